/*
 * npy.h — NumPy .npy files, versions 1.0 and 2.0: C-order, little-endian arrays of the
 * element types kernels use (plus <f8 for reading, converted by the caller). Everything a
 * reader can be lied to about (magic, version, header, dtype, order, shape, data length) is
 * checked, and each failure names the file and what was expected.
 */
#ifndef LOCKSTEP_UI_NPY_H
#define LOCKSTEP_UI_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/util.h"

typedef enum UiNpyDtype {
    UI_NPY_F2, UI_NPY_F4, UI_NPY_F8,
    UI_NPY_I1, UI_NPY_U1, UI_NPY_I2, UI_NPY_U2, UI_NPY_I4, UI_NPY_U4, UI_NPY_I8, UI_NPY_U8,
    UI_NPY_B1,
    UI_NPY_DTYPE_COUNT
} UiNpyDtype;

#define UI_NPY_MAX_DIMS 8

typedef struct UiNpyArray {
    UiNpyDtype dtype;
    uint32_t ndim;
    uint64_t shape[UI_NPY_MAX_DIMS];
    uint64_t count;      /* product of shape (1 for a 0-d array) */
    uint8_t *data;       /* count * itemsize bytes, little-endian */
    uint64_t bytes;
} UiNpyArray;

/* "<f4", "|u1", ... */
const char *ui_npy_descr(UiNpyDtype d);
uint32_t ui_npy_itemsize(UiNpyDtype d);

/* Parses a whole .npy image (named `name` in messages). Arrays above max_bytes are refused. */
bool ui_npy_parse(const uint8_t *bytes, size_t size, const char *name, uint64_t max_bytes,
                  UiNpyArray *out, UtilError *err);
/* Reads a file; the header is checked before the data is read, so a huge shape costs
 * nothing. */
bool ui_npy_read(const char *path, uint64_t max_bytes, UiNpyArray *out, UtilError *err);
void ui_npy_free(UiNpyArray *a);

/* A .npy image (version 1.0, or 2.0 when the header needs it) of the given array; newly
 * allocated, its length in *size. */
uint8_t *ui_npy_encode(UiNpyDtype dtype, const uint64_t *shape, uint32_t ndim, const void *data,
                       size_t *size);
bool ui_npy_write(const char *path, UiNpyDtype dtype, const uint64_t *shape, uint32_t ndim,
                  const void *data, UtilError *err);

#endif
