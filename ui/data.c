/*
 * data.c — element types, number <-> buffer conversion, the init generators and the
 * expectation comparison behind `init:` and `expect:` in launch manifests.
 *
 * Numbers travel as UiNumber (an exact integer or a double) so that long and ulong values
 * keep every bit, and so that one conversion routine, with one set of range messages, serves
 * YAML values, .npy files and generated data alike. The generators are specified bit for bit
 * in docs/manifest.md; change one only together with that page.
 */
#include "data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fp.h"

static const struct {
    const char *name;
    uint32_t size;
    bool is_float, is_signed;
} scalar_info[UI_SCALAR_COUNT] = {
    [UI_BOOL] = {"bool", 1, false, false},     [UI_CHAR] = {"char", 1, false, true},
    [UI_UCHAR] = {"uchar", 1, false, false},   [UI_SHORT] = {"short", 2, false, true},
    [UI_USHORT] = {"ushort", 2, false, false}, [UI_INT] = {"int", 4, false, true},
    [UI_UINT] = {"uint", 4, false, false},     [UI_LONG] = {"long", 8, false, true},
    [UI_ULONG] = {"ulong", 8, false, false},   [UI_HALF] = {"half", 2, true, true},
    [UI_FLOAT] = {"float", 4, true, true},     [UI_BFLOAT] = {"bfloat", 2, true, true},
};

const char *ui_scalar_name(UiScalarType s) { return s < UI_SCALAR_COUNT ? scalar_info[s].name : "?"; }
uint32_t ui_scalar_size(UiScalarType s) { return scalar_info[s].size; }
bool ui_scalar_is_float(UiScalarType s) { return scalar_info[s].is_float; }
bool ui_scalar_is_signed(UiScalarType s) { return scalar_info[s].is_signed; }

uint32_t ui_elem_size(UiElemType t)
{
    return scalar_info[t.scalar].size * (t.lanes == 3 ? 4u : t.lanes);
}

uint64_t ui_scalar_offset(UiElemType t, uint64_t k)
{
    return (k / t.lanes) * ui_elem_size(t) + (k % t.lanes) * scalar_info[t.scalar].size;
}

bool ui_elem_type_parse(const char *name, UiElemType *out)
{
    for (int s = 0; s < UI_SCALAR_COUNT; s++) {
        size_t len = strlen(scalar_info[s].name);
        if (strncmp(name, scalar_info[s].name, len) != 0)
            continue;
        const char *rest = name + len;
        if (rest[0] == '\0') {
            *out = (UiElemType){(UiScalarType)s, 1};
            return true;
        }
        if (rest[0] >= '2' && rest[0] <= '4' && rest[1] == '\0') {
            *out = (UiElemType){(UiScalarType)s, (uint8_t)(rest[0] - '0')};
            return true;
        }
    }
    return false;
}

const char *ui_elem_type_name(UiElemType t, char *buf, size_t size)
{
    if (t.lanes == 1)
        snprintf(buf, size, "%s", ui_scalar_name(t.scalar));
    else
        snprintf(buf, size, "%s%u", ui_scalar_name(t.scalar), (unsigned)t.lanes);
    return buf;
}

/* ---- conversion --------------------------------------------------------------------------- */

static const char *number_text(const UiNumber *n, char *buf, size_t size)
{
    if (n->is_float)
        snprintf(buf, size, "%.17g", n->f);
    else
        snprintf(buf, size, "%s%llu", n->negative ? "-" : "", (unsigned long long)n->magnitude);
    return buf;
}

bool ui_store_number(UiScalarType s, const UiNumber *n, void *dst, UtilError *err)
{
    char text[64];
    /* A finite number too big for the type would round to infinity: that is stored (the
     * callers that generate values ignore the error), and reported. */
    if (s == UI_FLOAT) {
        double v = ui_number_to_double(n);
        float f = (float)v;
        memcpy(dst, &f, 4);
        return !(isinf(f) && isfinite(v)) ||
               util_fail(err, "%s is out of range for float (largest finite 3.40282e+38; "
                         "write .inf for infinity)", number_text(n, text, sizeof text));
    }
    if (s == UI_HALF) {
        double v = ui_number_to_double(n);
        uint16_t h = util_f64_to_f16(v);
        memcpy(dst, &h, 2);
        return !((h & 0x7fff) == 0x7c00 && isfinite(v)) ||
               util_fail(err, "%s is out of range for half (largest finite 65504; write .inf "
                         "for infinity)", number_text(n, text, sizeof text));
    }
    if (s == UI_BFLOAT) {
        double v = ui_number_to_double(n);
        uint16_t b = util_f64_to_bf16(v);
        memcpy(dst, &b, 2);
        return !((b & 0x7fff) == 0x7f80 && isfinite(v)) ||
               util_fail(err, "%s is out of range for bfloat (largest finite 3.38953e+38; "
                         "write .inf for infinity)", number_text(n, text, sizeof text));
    }
    bool negative = n->negative;
    uint64_t mag = n->magnitude;
    if (n->is_float) {
        if (!isfinite(n->f) || n->f != floor(n->f))
            return util_fail(err, "%s is not an integer (expected a %s)",
                             number_text(n, text, sizeof text), scalar_info[s].name);
        if (fabs(n->f) >= 18446744073709551616.0)
            return util_fail(err, "%s is out of range for %s", number_text(n, text, sizeof text),
                             scalar_info[s].name);
        mag = (uint64_t)fabs(n->f);
        negative = n->f < 0 && mag != 0;
    }
    unsigned bits = scalar_info[s].size * 8;
    uint64_t max_pos, max_neg;
    if (s == UI_BOOL) {
        max_pos = 1;
        max_neg = 0;
    } else if (scalar_info[s].is_signed) {
        max_pos = ((uint64_t)1 << (bits - 1)) - 1;
        max_neg = (uint64_t)1 << (bits - 1);
    } else {
        max_pos = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
        max_neg = 0;
    }
    if ((negative && mag > max_neg) || (!negative && mag > max_pos)) {
        if (s == UI_BOOL)
            return util_fail(err, "%s is not a bool (expected 0, 1, false or true)",
                             number_text(n, text, sizeof text));
        return util_fail(err, "%s is out of range for %s (%s%llu to %llu)",
                         number_text(n, text, sizeof text), scalar_info[s].name,
                         max_neg ? "-" : "", (unsigned long long)max_neg,
                         (unsigned long long)max_pos);
    }
    uint64_t v = negative ? (uint64_t)0 - mag : mag;
    switch (bits) {
    case 8: { uint8_t x = (uint8_t)v; memcpy(dst, &x, 1); break; }
    case 16: { uint16_t x = (uint16_t)v; memcpy(dst, &x, 2); break; }
    case 32: { uint32_t x = (uint32_t)v; memcpy(dst, &x, 4); break; }
    default: memcpy(dst, &v, 8); break;
    }
    return true;
}

UiNumber ui_load_number(UiScalarType s, const void *src)
{
    switch (s) {
    case UI_BOOL: { uint8_t x; memcpy(&x, src, 1); return ui_number_from_u64(x); }
    case UI_CHAR: { int8_t x; memcpy(&x, src, 1); return ui_number_from_i64(x); }
    case UI_UCHAR: { uint8_t x; memcpy(&x, src, 1); return ui_number_from_u64(x); }
    case UI_SHORT: { int16_t x; memcpy(&x, src, 2); return ui_number_from_i64(x); }
    case UI_USHORT: { uint16_t x; memcpy(&x, src, 2); return ui_number_from_u64(x); }
    case UI_INT: { int32_t x; memcpy(&x, src, 4); return ui_number_from_i64(x); }
    case UI_UINT: { uint32_t x; memcpy(&x, src, 4); return ui_number_from_u64(x); }
    case UI_LONG: { int64_t x; memcpy(&x, src, 8); return ui_number_from_i64(x); }
    case UI_ULONG: { uint64_t x; memcpy(&x, src, 8); return ui_number_from_u64(x); }
    case UI_HALF: { uint16_t x; memcpy(&x, src, 2); return ui_number_from_double(util_f16_to_f32(x)); }
    case UI_FLOAT: { float x; memcpy(&x, src, 4); return ui_number_from_double(x); }
    case UI_BFLOAT: { uint16_t x; memcpy(&x, src, 2); return ui_number_from_double(util_bf16_to_f32(x)); }
    default: return ui_number_from_u64(0);
    }
}

/* ---- generators --------------------------------------------------------------------------- */

uint64_t ui_splitmix64_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t total_scalars(UiElemType t, uint64_t count) { return count * t.lanes; }

bool ui_init_fill(UiElemType t, uint64_t count, const UiNumber *value, uint8_t *dst,
                  UtilError *err)
{
    uint8_t one[8];
    if (!ui_store_number(t.scalar, value, one, err))
        return false;
    uint32_t size = ui_scalar_size(t.scalar);
    for (uint64_t k = 0; k < total_scalars(t, count); k++)
        memcpy(dst + ui_scalar_offset(t, k), one, size);
    return true;
}

/* An integer-valued number as int64 (false when it is not one or does not fit). */
static bool number_to_i64(const UiNumber *n, int64_t *out)
{
    if (n->is_float) {
        if (!(n->f >= -9223372036854775808.0 && n->f < 9223372036854775808.0) ||
            n->f != floor(n->f))
            return false;
        *out = (int64_t)n->f;
        return true;
    }
    if (n->negative) {
        if (n->magnitude > (uint64_t)1 << 63)
            return false;
        *out = (int64_t)((uint64_t)0 - n->magnitude);
        return true;
    }
    if (n->magnitude > (uint64_t)INT64_MAX)
        return false;
    *out = (int64_t)n->magnitude;
    return true;
}

/* The common ranges (float, or an integer type both ends of the range fit in) written
 * straight into dst: the same values as the general loop below, which stays the reference
 * and the one that names the element a range overflows at. Scalars are contiguous (no
 * 3-lane padding). Returns false to leave the range to that loop. */
static bool range_fast(UiScalarType s, uint64_t n, const UiNumber *start, const UiNumber *step,
                       uint8_t *dst)
{
    if (s == UI_FLOAT) {
        double a = ui_number_to_double(start), d = ui_number_to_double(step);
        /* monotonic: both ends finite as floats means every element is */
        if (n && (!isfinite((float)a) || !isfinite((float)(a + d * (double)(n - 1)))))
            return false;
        for (uint64_t k = 0; k < n; k++) {
            float f = (float)(a + d * (double)k);
            memcpy(dst + 4 * k, &f, 4);
        }
        return true;
    }
    int64_t a, d, span, last;
    if (scalar_info[s].is_float || s == UI_BOOL || n == 0 || n > (uint64_t)INT64_MAX ||
        !number_to_i64(start, &a) || !number_to_i64(step, &d) ||
        __builtin_mul_overflow((int64_t)(n - 1), d, &span) ||
        __builtin_add_overflow(a, span, &last))
        return false;
    unsigned bits = scalar_info[s].size * 8;
    int64_t lo = 0, hi = INT64_MAX;
    if (bits < 64) {
        lo = scalar_info[s].is_signed ? -((int64_t)1 << (bits - 1)) : 0;
        hi = scalar_info[s].is_signed ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
    } else if (scalar_info[s].is_signed) {
        lo = INT64_MIN;
    }
    /* a range is monotonic: both ends inside means every element is */
    if (a < lo || a > hi || last < lo || last > hi)
        return false;
    for (uint64_t k = 0; k < n; k++) {
        uint64_t v = (uint64_t)a + k * (uint64_t)d;
        switch (bits) {
        case 8: dst[k] = (uint8_t)v; break;
        case 16: { uint16_t x = (uint16_t)v; memcpy(dst + 2 * k, &x, 2); break; }
        case 32: { uint32_t x = (uint32_t)v; memcpy(dst + 4 * k, &x, 4); break; }
        default: memcpy(dst + 8 * k, &v, 8); break;
        }
    }
    return true;
}

bool ui_init_range(UiElemType t, uint64_t count, const UiNumber *start, const UiNumber *step,
                   uint8_t *dst, UtilError *err)
{
    uint64_t n = total_scalars(t, count);
    if (t.lanes != 3 && range_fast(t.scalar, n, start, step, dst))
        return true;
    if (ui_scalar_is_float(t.scalar)) {
        double a = ui_number_to_double(start), d = ui_number_to_double(step);
        for (uint64_t k = 0; k < n; k++) {
            UiNumber v = ui_number_from_double(a + d * (double)k);
            UtilError why;
            if (!ui_store_number(t.scalar, &v, dst + ui_scalar_offset(t, k), &why))
                return util_fail(err, "range leaves %s at scalar %llu: %s",
                                 ui_scalar_name(t.scalar), (unsigned long long)k, why.message);
        }
        return true;
    }
    int64_t a, d;
    if (!number_to_i64(start, &a) || !number_to_i64(step, &d))
        return util_fail(err, "range of %s needs integer start and step within long's range",
                         ui_scalar_name(t.scalar));
    for (uint64_t k = 0; k < n; k++) {
        int64_t prod, v;
        if (k > (uint64_t)INT64_MAX || __builtin_mul_overflow((int64_t)k, d, &prod) ||
            __builtin_add_overflow(a, prod, &v))
            return util_fail(err, "range overflows a long at element %llu", (unsigned long long)k);
        UiNumber num = ui_number_from_i64(v);
        UtilError why;
        if (!ui_store_number(t.scalar, &num, dst + ui_scalar_offset(t, k), &why))
            return util_fail(err, "range leaves %s at scalar %llu: %s", ui_scalar_name(t.scalar),
                             (unsigned long long)k, why.message);
    }
    return true;
}

/* The two's-complement bits of an integer number (callers range-check first). */
static uint64_t number_bits(const UiNumber *n)
{
    return n->negative ? (uint64_t)0 - n->magnitude : n->magnitude;
}

static int compare_numbers(const UiNumber *a, const UiNumber *b)
{
    if (a->is_float || b->is_float) {
        double x = ui_number_to_double(a), y = ui_number_to_double(b);
        return x < y ? -1 : x > y;
    }
    if (a->negative != b->negative)
        return a->negative ? -1 : 1;
    int c = a->magnitude < b->magnitude ? -1 : a->magnitude > b->magnitude;
    return a->negative ? -c : c;
}

static UiNumber integral(const UiNumber *n)
{
    if (!n->is_float)
        return *n;
    UiNumber r = {.magnitude = (uint64_t)fabs(n->f)};
    r.negative = n->f < 0 && r.magnitude != 0;
    return r;
}

bool ui_init_random(UiElemType t, uint64_t count, uint64_t seed, const UiNumber *min,
                    const UiNumber *max, uint8_t *dst, UtilError *err)
{
    uint64_t n = total_scalars(t, count), state = seed;
    if (compare_numbers(min, max) > 0)
        return util_fail(err, "random needs min <= max");
    if (ui_scalar_is_float(t.scalar)) {
        double lo = ui_number_to_double(min), hi = ui_number_to_double(max);
        if (!isfinite(lo) || !isfinite(hi))
            return util_fail(err, "random needs finite min and max");
        uint8_t scratch[4];
        UtilError why;
        if (!ui_store_number(t.scalar, min, scratch, &why) ||
            !ui_store_number(t.scalar, max, scratch, &why))
            return util_fail(err, "random min/max: %s", why.message);
        for (uint64_t k = 0; k < n; k++) {
            double u = (double)(ui_splitmix64_next(&state) >> 11) * 0x1p-53;
            UiNumber v = ui_number_from_double(lo + (hi - lo) * u);
            ui_store_number(t.scalar, &v, dst + ui_scalar_offset(t, k), NULL);
        }
        return true;
    }
    uint8_t scratch[8];
    UtilError why;
    if (!ui_store_number(t.scalar, min, scratch, &why) ||
        !ui_store_number(t.scalar, max, scratch, &why))
        return util_fail(err, "random min/max: %s", why.message);
    /* Both fit the type, so integral floats (`min: 0.0`) become exact integers here. */
    UiNumber lo_n = integral(min), hi_n = integral(max);
    /* min + next() % (max - min + 1), in 64-bit modular arithmetic: the same bits whether the
     * type is signed or not; a span of 2^64 wraps to 0 and takes next() whole. */
    uint64_t lo = number_bits(&lo_n), span = number_bits(&hi_n) - lo + 1;
    for (uint64_t k = 0; k < n; k++) {
        uint64_t r = ui_splitmix64_next(&state);
        uint64_t bits = lo + (span ? r % span : r);
        UiNumber v = ui_scalar_is_signed(t.scalar) ? ui_number_from_i64((int64_t)bits)
                                                   : ui_number_from_u64(bits);
        ui_store_number(t.scalar, &v, dst + ui_scalar_offset(t, k), NULL);
    }
    return true;
}

bool ui_init_normal(UiElemType t, uint64_t count, uint64_t seed, double mean, double std_dev,
                    uint8_t *dst, UtilError *err)
{
    if (!ui_scalar_is_float(t.scalar))
        return util_fail(err, "normal needs a float type (half, bfloat or float, or their "
                              "vectors), not %s", ui_scalar_name(t.scalar));
    if (!isfinite(mean) || !isfinite(std_dev))
        return util_fail(err, "normal needs finite mean and std");
    const double two_pi = 6.283185307179586;
    uint64_t n = total_scalars(t, count), state = seed;
    for (uint64_t k = 0; k < n; k++) {
        double u1 = (double)((ui_splitmix64_next(&state) >> 11) + 1) * 0x1p-53;
        double u2 = (double)(ui_splitmix64_next(&state) >> 11) * 0x1p-53;
        UiNumber v = ui_number_from_double(mean + std_dev * sqrt(-2.0 * log(u1)) * cos(two_pi * u2));
        UtilError why;
        if (!ui_store_number(t.scalar, &v, dst + ui_scalar_offset(t, k), &why))
            return util_fail(err, "normal leaves %s at scalar %llu: %s", ui_scalar_name(t.scalar),
                             (unsigned long long)k, why.message);
    }
    return true;
}

/* ---- comparison --------------------------------------------------------------------------- */

static bool numbers_equal(const UiNumber *a, const UiNumber *b)
{
    if (a->is_float || b->is_float) {
        double x = ui_number_to_double(a), y = ui_number_to_double(b);
        return x == y || (isnan(x) && isnan(y));
    }
    return a->negative == b->negative && a->magnitude == b->magnitude;
}

void ui_compare(UiElemType t, const uint8_t *got, const uint8_t *want, uint64_t count,
                double rtol, double atol, bool has_tolerance, UiCompareResult *out)
{
    memset(out, 0, sizeof *out);
    bool tolerant = ui_scalar_is_float(t.scalar) || has_tolerance;
    for (uint64_t i = 0; i < count; i++) {
        bool element_differs = false;
        for (uint32_t c = 0; c < t.lanes; c++) {
            uint64_t off = ui_scalar_offset(t, i * t.lanes + c);
            UiNumber g = ui_load_number(t.scalar, got + off);
            UiNumber w = ui_load_number(t.scalar, want + off);
            double gd = ui_number_to_double(&g), wd = ui_number_to_double(&w);
            bool pass = numbers_equal(&g, &w);
            /* an infinity matches only itself (numbers_equal): rtol * |inf| would let any
             * value through */
            if (!pass && tolerant && isfinite(gd) && isfinite(wd))
                pass = fabs(gd - wd) <= atol + rtol * fabs(wd);
            if (pass)
                continue;
            element_differs = true;
            if (out->num_first < UI_MAX_REPORTED_MISMATCHES)
                out->first[out->num_first++] =
                    (UiMismatch){.element = i, .component = c, .got = g, .want = w, .diff = gd - wd};
        }
        out->mismatched_elements += element_differs;
    }
}

/* ---- printing ----------------------------------------------------------------------------- */

const char *ui_format_number(UiScalarType s, const UiNumber *n, char *buf, size_t size)
{
    if (!n->is_float) {
        snprintf(buf, size, "%s%llu", n->negative ? "-" : "", (unsigned long long)n->magnitude);
        return buf;
    }
    double v = n->f;
    if (isnan(v)) {
        snprintf(buf, size, "nan");
        return buf;
    }
    if (isinf(v)) {
        snprintf(buf, size, v < 0 ? "-inf" : "inf");
        return buf;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        double back = strtod(buf, NULL);
        if (s == UI_HALF ? util_f64_to_f16(back) == util_f64_to_f16(v)
            : s == UI_BFLOAT ? util_f64_to_bf16(back) == util_f64_to_bf16(v)
            : s == UI_FLOAT ? (float)back == (float)v
                            : back == v)
            break;
    }
    /* %g's shortest form of a whole number can be an exponent (10 -> "1e+01"): digits read
     * better up to 2^53, where every whole number is exact */
    if (strchr(buf, 'e') && v == floor(v) && fabs(v) < 9007199254740992.0)
        snprintf(buf, size, "%.0f", v);
    return buf;
}
