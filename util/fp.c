/*
 * fp.c — binary16/binary32 arithmetic exactly as the ISA defines it, whatever the host FPU
 * does with halves: every rounding here is done on integer bit patterns (round_pack), except
 * the fused multiply-adds, which use host double arithmetic only where it is exact or where
 * its error is recovered exactly (TwoSum), so they need nothing but IEEE double with the
 * default round-to-nearest. NaN results are made deterministic too: the first NaN operand,
 * quieted, or the default quiet NaN when an invalid operation creates one.
 */
#include "fp.h"

#include "util.h"

#include <stdbool.h>

#define F32_QNAN 0x7fc00000u
#define F16_QNAN 0x7e00u

static unsigned clz64(uint64_t x)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_clzll(x);
#else
    unsigned n = 0;
    while (!(x & (UINT64_C(1) << 63))) {
        x <<= 1;
        n++;
    }
    return n;
#endif
}

/* The bits of the float nearest to (-1)^neg * m * 2^e (m != 0) in a format with frac_bits
 * fraction bits and exp_bits exponent bits, rounded to nearest even or toward zero. Every
 * conversion into f16 or f32 funnels through here so there is one rounding to get right. */
static uint64_t round_pack(bool neg, int e, uint64_t m, unsigned frac_bits, unsigned exp_bits,
                           bool rtz)
{
    uint64_t sign = (uint64_t)neg << (frac_bits + exp_bits);
    int bias = (1 << (exp_bits - 1)) - 1;
    unsigned lead = clz64(m);
    m <<= lead;
    int exp = e + 63 - (int)lead; /* value = 1.xxx * 2^exp */
    if (exp > bias) {
        uint64_t inf = (((uint64_t)1 << exp_bits) - 1) << frac_bits;
        return sign | (rtz ? inf - 1 : inf);
    }
    /* Significant bits kept: all of them for normals, fewer as a subnormal shrinks. */
    int keep = (int)frac_bits + 1 - (exp < 1 - bias ? (1 - bias) - exp : 0);
    int shift = 64 - keep;
    uint64_t q, rem, half;
    if (shift > 64) {
        return sign; /* below half the smallest subnormal */
    } else if (shift == 64) {
        q = 0;
        rem = m;
        half = UINT64_C(1) << 63;
    } else {
        q = m >> shift;
        rem = m & ((UINT64_C(1) << shift) - 1);
        half = UINT64_C(1) << (shift - 1);
    }
    if (!rtz && (rem > half || (rem == half && (q & 1))))
        q++; /* a carry out of the significand correctly bumps the exponent (or gives inf) */
    if (exp < 1 - bias)
        return sign | q;
    return sign | ((((uint64_t)(exp + bias - 1)) << frac_bits) + q);
}

/* Everything but normal half results: zeros, subnormals, overflow, infinities and NaN. */
static uint16_t f32_to_f16_slow(uint32_t u, bool rtz)
{
    bool neg = u >> 31;
    uint32_t exp = (u >> 23) & 0xff, frac = u & 0x7fffff;
    if (exp == 0xff) {
        if (frac)
            return (uint16_t)((neg << 15) | F16_QNAN | (frac >> 13));
        return (uint16_t)((neg << 15) | 0x7c00);
    }
    if (exp == 0 && frac == 0)
        return (uint16_t)(neg << 15);
    uint64_t m = exp ? frac | 0x800000u : frac;
    int e = exp ? (int)exp - 150 : -149;
    return (uint16_t)round_pack(neg, e, m, 10, 5, rtz);
}

static inline uint16_t f32_to_f16(float f, bool rtz)
{
    uint32_t u = util_f32_bits(f);
    uint32_t mag = u & 0x7fffffffu;
    /* The common case, a normal half result (2^-14 <= |f| < 65520, or < 65536 truncating):
     * rebias the exponent and round at bit 13; a carry out of the fraction lands in the
     * exponent, which is exactly right. */
    if (UTIL_LIKELY(mag >= 0x38800000u && mag < (rtz ? 0x47800000u : 0x477ff000u))) {
        uint32_t r = mag - 0x38000000u;
        if (!rtz)
            r += 0xfffu + ((r >> 13) & 1);
        return (uint16_t)(((u >> 16) & 0x8000u) | (r >> 13));
    }
    return f32_to_f16_slow(u, rtz);
}

uint16_t util_f32_to_f16(float f) { return f32_to_f16(f, false); }
uint16_t util_f32_to_f16_rtz(float f) { return f32_to_f16(f, true); }

static inline float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
    if (UTIL_LIKELY(exp - 1 < 0x1e))
        return util_bits_f32(sign | ((exp + 112) << 23) | (frac << 13));
    if (exp == 0x1f)
        return util_bits_f32(sign | 0x7f800000u | (frac ? F32_QNAN | (frac << 13) : 0));
    /* Subnormal: frac * 2^-24 is exact in float, so the host multiply cannot round. */
    float mag = (float)frac * 0x1p-24f;
    return util_bits_f32(sign | util_f32_bits(mag));
}

float util_f16_to_f32(uint16_t h) { return f16_to_f32(h); }

/* bfloat16 is the top half of a binary32: widening is a shift (NaN quieted, as for f16),
 * narrowing one rounding of the 16 low bits, to nearest even; a NaN keeps its sign and the
 * top of its payload, quieted. */
static uint16_t f32_to_bf16(float f, bool rtz)
{
    uint32_t u = util_f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x0040u);
    if (!rtz)
        u += 0x7fffu + ((u >> 16) & 1); /* a carry into the exponent is right (to inf, too) */
    return (uint16_t)(u >> 16);
}

uint16_t util_f32_to_bf16(float f) { return f32_to_bf16(f, false); }

float util_bf16_to_f32(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    if ((u & 0x7fffffffu) > 0x7f800000u)
        u |= F32_QNAN;
    return util_bits_f32(u);
}

static uint16_t f64_to_f16_slow(uint64_t u)
{
    bool neg = u >> 63;
    uint64_t exp = (u >> 52) & 0x7ff, frac = u & ((UINT64_C(1) << 52) - 1);
    if (exp == 0x7ff) {
        if (frac)
            return (uint16_t)((neg << 15) | F16_QNAN | (frac >> 42));
        return (uint16_t)((neg << 15) | 0x7c00);
    }
    if (exp == 0 && frac == 0)
        return (uint16_t)(neg << 15);
    uint64_t m = exp ? frac | (UINT64_C(1) << 52) : frac;
    int e = exp ? (int)exp - 1075 : -1074;
    return (uint16_t)round_pack(neg, e, m, 10, 5, false);
}

static inline uint16_t f64_to_f16(double d)
{
    uint64_t u = util_f64_bits(d);
    uint64_t mag = u & ~(UINT64_C(1) << 63);
    /* Fast path as in f32_to_f16: 2^-14 <= |d| < 65520. */
    if (UTIL_LIKELY(mag >= UINT64_C(0x3f10000000000000) && mag < UINT64_C(0x40effe0000000000))) {
        uint64_t r = mag - (UINT64_C(1008) << 52);
        r += (UINT64_C(1) << 41) - 1 + ((r >> 42) & 1);
        return (uint16_t)(((u >> 48) & 0x8000u) | (r >> 42));
    }
    return f64_to_f16_slow(u);
}

uint16_t util_f64_to_f16(double d) { return f64_to_f16(d); }

uint16_t util_f64_to_bf16(double d)
{
    uint64_t u = util_f64_bits(d);
    bool neg = u >> 63;
    uint64_t exp = (u >> 52) & 0x7ff, frac = u & ((UINT64_C(1) << 52) - 1);
    if (exp == 0x7ff)
        return (uint16_t)((neg << 15) | 0x7f80u | (frac ? 0x40u | (frac >> 45) : 0));
    if (exp == 0 && frac == 0)
        return (uint16_t)(neg << 15);
    uint64_t m = exp ? frac | (UINT64_C(1) << 52) : frac;
    int e = exp ? (int)exp - 1075 : -1074;
    return (uint16_t)round_pack(neg, e, m, 7, 8, false);
}

/* s = RN(x + y) turned into round-to-odd of the exact x + y: when the sum was inexact and s
 * came out even, step to the odd neighbour on the error's side. Rounding to odd at 53 bits
 * and then to nearest at p <= 51 bits is one correct rounding (Boldo & Melquiond), which is
 * what makes the fused multiply-adds single-rounding. Branch-free so that it vectorizes;
 * the caller guarantees s is finite and x + y does not overflow. */
static inline double sum_round_to_odd(double x, double y)
{
    double s = x + y;
    double bv = s - x;
    double err = (x - (s - bv)) + (y - bv); /* TwoSum: x + y == s + err exactly */
    uint64_t sb = util_f64_bits(s), eb = util_f64_bits(err);
    uint64_t step = (uint64_t)((err != 0.0) & !(sb & 1));
    /* Same sign: away from zero (+1 on the magnitude bits); opposite: toward zero. */
    uint64_t toward_zero = (sb ^ eb) >> 63;
    sb += step - 2 * (step & toward_zero);
    return util_bits_f64(sb);
}

static inline bool f32_is_nan(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }

float util_fma_f32(float a, float b, float c)
{
    /* 24 x 24 bit significands: the product is exact in double, and so far from double's
     * range limits that neither p nor p + c can overflow or go subnormal. */
    double p = (double)a * (double)b;
    double sum = p + (double)c;
    if (UTIL_UNLIKELY(!(sum - sum == 0.0))) {
        uint32_t ua = util_f32_bits(a), ub = util_f32_bits(b), uc = util_f32_bits(c);
        if (f32_is_nan(ua))
            return util_bits_f32(ua | F32_QNAN);
        if (f32_is_nan(ub))
            return util_bits_f32(ub | F32_QNAN);
        if (f32_is_nan(uc))
            return util_bits_f32(uc | F32_QNAN);
        if (sum != sum)
            return util_bits_f32(F32_QNAN); /* inf * 0 or inf - inf */
        return (float)sum; /* an infinite operand decides */
    }
    return (float)sum_round_to_odd(p, (double)c);
}

static inline bool f16_is_nan(uint16_t h) { return (h & 0x7fff) > 0x7c00; }

uint16_t util_fma_f16(uint16_t a, uint16_t b, uint16_t c)
{
    double p = (double)f16_to_f32(a) * (double)f16_to_f32(b);
    double dc = (double)f16_to_f32(c);
    double sum = p + dc;
    if (UTIL_UNLIKELY(!(sum - sum == 0.0))) {
        if (f16_is_nan(a))
            return (uint16_t)(a | F16_QNAN);
        if (f16_is_nan(b))
            return (uint16_t)(b | F16_QNAN);
        if (f16_is_nan(c))
            return (uint16_t)(c | F16_QNAN);
        if (sum != sum)
            return F16_QNAN;
        return f64_to_f16(sum);
    }
    return f64_to_f16(sum_round_to_odd(p, dc));
}

/* ---- cvt ---- */

static bool type_is_float(IsaType t)
{
    return t == ISA_TYPE_F16 || t == ISA_TYPE_F32 || t == ISA_TYPE_BF16;
}
static bool type_is_signed(IsaType t)
{
    return t == ISA_TYPE_S8 || t == ISA_TYPE_S16 || t == ISA_TYPE_S32 || t == ISA_TYPE_S64;
}
static unsigned type_bits(IsaType t)
{
    switch (t) {
    case ISA_TYPE_U8: case ISA_TYPE_S8: return 8;
    case ISA_TYPE_U16: case ISA_TYPE_S16: case ISA_TYPE_F16: case ISA_TYPE_BF16: return 16;
    case ISA_TYPE_U32: case ISA_TYPE_S32: case ISA_TYPE_F32: return 32;
    default: return 64;
    }
}

/* An integer result's bits: truncated to the type, then extended as the header promises
 * (8/16-bit to 32 bits by the type's signedness, 32-bit zero-extended). */
static uint64_t int_result(uint64_t v, IsaType dst)
{
    unsigned bits = type_bits(dst);
    if (bits == 64)
        return v;
    uint64_t mask = (UINT64_C(1) << bits) - 1;
    v &= mask;
    if (bits < 32 && type_is_signed(dst) && (v >> (bits - 1)))
        v |= UINT64_C(0xffffffff) & ~mask;
    return v;
}

/* A float operand as sign, significand and exponent (value = m * 2^e); false for NaN. */
static bool float_unpack(uint64_t bits, IsaType src, bool *neg, uint64_t *m, int *e, bool *inf)
{
    unsigned fb = src == ISA_TYPE_F16 ? 10 : src == ISA_TYPE_BF16 ? 7 : 23;
    unsigned eb = src == ISA_TYPE_F16 ? 5 : 8;
    int bias = (1 << (eb - 1)) - 1;
    uint64_t emax = (UINT64_C(1) << eb) - 1;
    uint64_t exp = (bits >> fb) & emax, frac = bits & ((UINT64_C(1) << fb) - 1);
    *neg = (bits >> (fb + eb)) & 1;
    *inf = false;
    if (exp == emax) {
        *inf = true;
        return frac == 0;
    }
    *m = exp ? frac | (UINT64_C(1) << fb) : frac;
    *e = (exp ? (int)exp : 1) - bias - (int)fb;
    return true;
}

/* Float -> integer: round to an integer per the mode, then clamp to the type (Metal). */
static uint64_t float_to_int(uint64_t bits, IsaType src, IsaType dst, bool rte)
{
    bool neg, inf;
    uint64_t m = 0;
    int e = 0;
    if (!float_unpack(bits, src, &neg, &m, &e, &inf))
        return 0;
    bool huge = inf; /* magnitude >= 2^64 */
    uint64_t mag = 0;
    if (!inf && m) {
        if (e >= 0) {
            if (e + 64 - (int)clz64(m) > 64)
                huge = true;
            else
                mag = m << e;
        } else if (-e < 64) {
            unsigned sh = (unsigned)-e;
            mag = m >> sh;
            uint64_t rem = m & ((UINT64_C(1) << sh) - 1), half = UINT64_C(1) << (sh - 1);
            if (rte && (rem > half || (rem == half && (mag & 1))))
                mag++;
        }
        /* -e >= 64: |value| < 2^-40, rounds to 0 either way. */
    }
    unsigned nbits = type_bits(dst);
    if (type_is_signed(dst)) {
        uint64_t max_pos = (UINT64_C(1) << (nbits - 1)) - 1; /* max_neg magnitude is +1 */
        uint64_t v;
        if (neg)
            v = huge || mag > max_pos + 1 ? ~max_pos : (uint64_t)0 - mag;
        else
            v = huge || mag > max_pos ? max_pos : mag;
        return int_result(v, dst);
    }
    uint64_t max = nbits == 64 ? UINT64_MAX : (UINT64_C(1) << nbits) - 1;
    if (neg)
        return 0;
    return int_result(huge || mag > max ? max : mag, dst);
}

uint64_t util_convert(uint64_t bits, IsaType src, IsaType dst, IsaRound round)
{
    if ((unsigned)src >= ISA_TYPE_COUNT || (unsigned)dst >= ISA_TYPE_COUNT)
        return 0;
    if (type_is_float(src) && !type_is_float(dst))
        return float_to_int(bits, src, dst, round == ISA_ROUND_RTE);
    bool rtz = round == ISA_ROUND_RTZ;
    if (type_is_float(src)) {
        if (src == dst)
            return bits & (src == ISA_TYPE_F32 ? 0xffffffffu : 0xffffu);
        /* through f32, which holds every f16 and bf16 value exactly: one rounding */
        float f = src == ISA_TYPE_F16 ? f16_to_f32((uint16_t)bits)
                  : src == ISA_TYPE_BF16 ? util_bf16_to_f32((uint16_t)bits)
                                         : util_bits_f32((uint32_t)bits);
        if (dst == ISA_TYPE_F16)
            return f32_to_f16(f, rtz);
        if (dst == ISA_TYPE_BF16)
            return f32_to_bf16(f, rtz);
        return util_f32_bits(f);
    }
    /* Integer source: its value, from the low bits of the register. */
    unsigned sbits = type_bits(src);
    uint64_t v = bits;
    if (sbits < 64) {
        v &= (UINT64_C(1) << sbits) - 1;
        if (type_is_signed(src) && (v >> (sbits - 1)))
            v |= ~((UINT64_C(1) << sbits) - 1);
    }
    if (!type_is_float(dst))
        return int_result(v, dst);
    bool neg = type_is_signed(src) && (v >> 63);
    uint64_t mag = neg ? (uint64_t)0 - v : v;
    if (mag == 0)
        return 0;
    if (dst == ISA_TYPE_F16)
        return round_pack(neg, 0, mag, 10, 5, rtz);
    if (dst == ISA_TYPE_BF16)
        return round_pack(neg, 0, mag, 7, 8, rtz);
    return round_pack(neg, 0, mag, 23, 8, rtz);
}
