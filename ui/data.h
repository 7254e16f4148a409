/*
 * data.h — the values that fill and check kernel buffers: element types as a manifest names
 * them (float, uint, half4, ...), conversion of numbers into and out of buffer bytes, the
 * deterministic init generators (SplitMix64; docs/manifest.md specifies them so that
 * independent reference code can reproduce inputs), expectation comparison and number
 * printing. Pure functions on memory: no files, no YAML positions.
 *
 * A buffer of `count` elements of type T holds count * ui_elem_size(T) bytes; component c of
 * element i is at i * ui_elem_size(T) + c * ui_scalar_size(T.scalar). 3-vectors take the room
 * of 4 components, as Metal's float3 does; the padding component is never generated or
 * compared. "Scalar index" k = i * lanes + c numbers the real components in order.
 */
#ifndef LOCKSTEP_UI_DATA_H
#define LOCKSTEP_UI_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/util.h"
#include "yaml.h"

/* Buffers the command line builds are capped, so a typo in a count is a message, not an
 * exhausted machine. */
#define UI_MAX_BUFFER_BYTES ((uint64_t)1 << 30)

typedef enum UiScalarType {
    UI_BOOL, UI_CHAR, UI_UCHAR, UI_SHORT, UI_USHORT, UI_INT, UI_UINT, UI_LONG, UI_ULONG,
    UI_HALF, UI_FLOAT, UI_BFLOAT,
    UI_SCALAR_COUNT
} UiScalarType;

typedef struct UiElemType {
    UiScalarType scalar;
    uint8_t lanes;        /* 1 (scalar), 2, 3 or 4 */
} UiElemType;

/* Parses "float", "half4", "uchar3", ... Returns false for anything else. */
bool ui_elem_type_parse(const char *name, UiElemType *out);
/* "float4" etc. into buf. */
const char *ui_elem_type_name(UiElemType t, char *buf, size_t size);
const char *ui_scalar_name(UiScalarType s);
uint32_t ui_scalar_size(UiScalarType s);
uint32_t ui_elem_size(UiElemType t);
bool ui_scalar_is_float(UiScalarType s);
bool ui_scalar_is_signed(UiScalarType s);
/* Byte offset of scalar index k. */
uint64_t ui_scalar_offset(UiElemType t, uint64_t k);

/* Stores n into one component of type s. Integers must be in range; floats convert to
 * integer types only when integral; float types round to nearest even. On failure returns
 * false with a reason ("300 is out of range for uchar (0 to 255)") in err. */
bool ui_store_number(UiScalarType s, const UiNumber *n, void *dst, UtilError *err);
/* The component at src, exactly (half and bfloat as their float values). */
UiNumber ui_load_number(UiScalarType s, const void *src);

/* ---- init generators (see docs/manifest.md, "init") ---------------------------------------- */

uint64_t ui_splitmix64_next(uint64_t *state);

/* Each fills `count` elements at dst (count * ui_elem_size(t) bytes, padding untouched) and
 * returns false with a reason when a value does not fit the type. */
bool ui_init_fill(UiElemType t, uint64_t count, const UiNumber *value, uint8_t *dst,
                  UtilError *err);
bool ui_init_range(UiElemType t, uint64_t count, const UiNumber *start, const UiNumber *step,
                   uint8_t *dst, UtilError *err);
bool ui_init_random(UiElemType t, uint64_t count, uint64_t seed, const UiNumber *min,
                    const UiNumber *max, uint8_t *dst, UtilError *err);
bool ui_init_normal(UiElemType t, uint64_t count, uint64_t seed, double mean, double std_dev,
                    uint8_t *dst, UtilError *err);

/* ---- expectations ------------------------------------------------------------------------- */

#define UI_MAX_REPORTED_MISMATCHES 8

typedef struct UiMismatch {
    uint64_t element;
    uint32_t component;
    UiNumber got, want;
    double diff;          /* got - want */
} UiMismatch;

typedef struct UiCompareResult {
    uint64_t mismatched_elements;
    UiMismatch first[UI_MAX_REPORTED_MISMATCHES];
    uint32_t num_first;
} UiCompareResult;

/* Compares count elements of got against want. Floats pass when
 * |got - want| <= atol + rtol * |want| (or got == want; NaN matches NaN). Integers compare
 * exactly unless has_tolerance, then by the same rule on their values. */
void ui_compare(UiElemType t, const uint8_t *got, const uint8_t *want, uint64_t count,
                double rtol, double atol, bool has_tolerance, UiCompareResult *out);

/* The shortest text that reads back as the same value of type s ("0.1", "-3", "nan"). */
const char *ui_format_number(UiScalarType s, const UiNumber *n, char *buf, size_t size);

#endif
