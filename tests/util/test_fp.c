/*
 * test_fp.c — util/fp.c against references written here: a table of every finite half's
 * exact value (built with ldexp from the bit fields) rounded by comparing with the exact
 * midpoints, exact 128-bit integer arithmetic for the half fused multiply-add, and the C
 * library's fmaf (correctly rounded) for the single-precision one. bfloat16 the same way: a
 * table of every finite bfloat's value from its bit fields, rounded by the exact midpoints.
 */
#include "test_util.h"

#include <float.h>
#include <limits.h>
#include <math.h>

#include "../../util/fp.h"
#include "../../util/util.h"

#define HALF_INF 0x7c00u

/* hv[i]: the exact value of the positive half with bits i, i < 0x7c00; hv[0x7c00] = 65536,
 * the value the next step would have, so overflow rounds like any other tie (to the even
 * pattern 0x7c00, infinity). */
static double hv[0x7c01];

static void build_half_table(void)
{
    for (unsigned i = 0; i < 0x7c00; i++) {
        unsigned exp = i >> 10, frac = i & 0x3ff;
        hv[i] = exp ? ldexp(1024.0 + frac, (int)exp - 25) : ldexp(frac, -24);
    }
    hv[0x7c00] = 65536.0;
}

/* The half nearest to x (any double), ties to even, by comparing with the exact midpoint of
 * the two neighbouring halves; rtz picks the lower neighbour instead. */
static uint16_t ref_to_half(double x, bool rtz)
{
    if (isnan(x))
        return 0x7e00;
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double ax = fabs(x);
    if (ax >= 65536.0)
        return sign | (rtz && !isinf(x) ? 0x7bff : HALF_INF);
    unsigned lo = 0, hi = 0x7c00; /* hv[lo] <= ax < hv[hi] */
    while (hi - lo > 1) {
        unsigned mid = (lo + hi) / 2;
        if (hv[mid] <= ax)
            lo = mid;
        else
            hi = mid;
    }
    if (ax == hv[lo] || rtz)
        return sign | (uint16_t)lo;
    double midpoint = (hv[lo] + hv[hi]) / 2; /* exact: 12 significant bits */
    unsigned r = ax < midpoint ? lo : ax > midpoint ? hi : (lo & 1 ? hi : lo);
    return sign | (uint16_t)r;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static bool is_nan16(uint16_t h) { return (h & 0x7fff) > 0x7c00; }

static void check_f32_to_f16(float f)
{
    uint16_t want = ref_to_half((double)f, false), got = util_f32_to_f16(f);
    uint16_t want_z = ref_to_half((double)f, true), got_z = util_f32_to_f16_rtz(f);
    if (got != want || got_z != want_z) {
        print_error("f32 %a (0x%08x): rte got 0x%04x want 0x%04x, rtz got 0x%04x want 0x%04x\n",
                    (double)f, util_f32_bits(f), got, want, got_z, want_z);
        fail();
    }
}

static void test_f16_roundtrip_exhaustive(void **state)
{
    (void)state;
    for (unsigned h = 0; h < 0x10000; h++) {
        float f = util_f16_to_f32((uint16_t)h);
        uint16_t back = util_f32_to_f16(f);
        if (is_nan16((uint16_t)h)) {
            /* NaN stays NaN, keeps sign and payload, comes back quiet. */
            assert_true(isnan(f));
            assert_int_equal(back, h | 0x0200);
            assert_int_equal(util_f32_to_f16_rtz(f), h | 0x0200);
            continue;
        }
        double want = (h & 0x7fff) == HALF_INF ? INFINITY : hv[h & 0x7fff];
        if (h & 0x8000)
            want = -want;
        assert_true((double)f == want);
        assert_int_equal(signbit(f) != 0, (h & 0x8000) != 0);
        assert_int_equal(back, h);
        assert_int_equal(util_f32_to_f16_rtz(f), h);
        assert_int_equal(util_f64_to_f16((double)f), h);
    }
}

static void test_f32_to_f16_named(void **state)
{
    (void)state;
    static const struct { float f; uint16_t rte, rtz; } cases[] = {
        {65504.0f, 0x7bff, 0x7bff},
        {65519.996f, 0x7bff, 0x7bff},         /* just below the overflow threshold */
        {65520.0f, 0x7c00, 0x7bff},           /* tie between 65504 (odd) and 2^16 (even) */
        {1e6f, 0x7c00, 0x7bff},
        {-65520.0f, 0xfc00, 0xfbff},
        {0x1p-24f, 0x0001, 0x0001},           /* smallest subnormal */
        {0x1p-25f, 0x0000, 0x0000},           /* half of it: tie to even zero */
        {0x1.000002p-25f, 0x0001, 0x0000},
        {0x1.fffffep-26f, 0x0000, 0x0000},
        {0x1.8p-24f, 0x0002, 0x0001},         /* 1.5 ulps: tie, odd 1 -> 2 */
        {0x1.4p-23f, 0x0002, 0x0002},         /* 2.5 ulps: tie, even 2 stays */
        {0x1.ff8p-15f, 0x03ff, 0x03ff},       /* largest subnormal 1023 * 2^-24 */
        {0x1.ffcp-15f, 0x0400, 0x03ff},       /* 1023.5 ulps: tie to the smallest normal */
        {0x1p-14f, 0x0400, 0x0400},
        {0x1.002p0f, 0x3c00, 0x3c00},         /* 1 + 2^-11: tie, even */
        {0x1.006p0f, 0x3c02, 0x3c01},         /* 1 + 3*2^-11: tie, odd -> up */
        {0x1.002002p0f, 0x3c01, 0x3c00},      /* just above the tie */
        {-0x1.001ffep0f, 0xbc00, 0xbc00},     /* just below the tie */
        {0.0f, 0x0000, 0x0000},
        {-0.0f, 0x8000, 0x8000},
        {INFINITY, 0x7c00, 0x7c00},
        {-INFINITY, 0xfc00, 0xfc00},
        {FLT_MIN, 0x0000, 0x0000},
        {-FLT_TRUE_MIN, 0x8000, 0x8000},
        {0.1f, 0x2e66, 0x2e66},
        {3.14159265f, 0x4248, 0x4248},
    };
    for (size_t i = 0; i < UTIL_ARRAY_LEN(cases); i++) {
        if (util_f32_to_f16(cases[i].f) != cases[i].rte || util_f32_to_f16_rtz(cases[i].f) != cases[i].rtz)
            print_error("case %zu (%a): got 0x%04x/0x%04x\n", i, (double)cases[i].f,
                        util_f32_to_f16(cases[i].f), util_f32_to_f16_rtz(cases[i].f));
        assert_int_equal(util_f32_to_f16(cases[i].f), cases[i].rte);
        assert_int_equal(util_f32_to_f16_rtz(cases[i].f), cases[i].rtz);
        check_f32_to_f16(cases[i].f); /* and the table reference agrees with the hand values */
    }
    /* NaN: quiet, sign and top payload bits kept. */
    assert_int_equal(util_f32_to_f16(util_bits_f32(0x7fc00000)), 0x7e00);
    assert_int_equal(util_f32_to_f16(util_bits_f32(0xff800001)), 0xfe00); /* signaling -> quiet */
    assert_int_equal(util_f32_to_f16(util_bits_f32(0x7fa02000)), 0x7f01);
    assert_int_equal(util_f32_to_f16_rtz(util_bits_f32(0x7fa02000)), 0x7f01);
}

static void test_f32_to_f16_boundaries(void **state)
{
    (void)state;
    /* Around every half and every midpoint between neighbours, both signs. */
    for (unsigned h = 0; h < 0x7c00; h++) {
        float v = (float)hv[h], mid = (float)((hv[h] + hv[h + 1]) / 2);
        assert_true((double)mid == (hv[h] + hv[h + 1]) / 2);
        float probes[] = {v, nextafterf(v, 0), nextafterf(v, INFINITY), mid,
                          nextafterf(mid, 0), nextafterf(mid, INFINITY)};
        for (size_t i = 0; i < UTIL_ARRAY_LEN(probes); i++) {
            check_f32_to_f16(probes[i]);
            check_f32_to_f16(-probes[i]);
        }
    }
    /* Random floats in and around the half range, then anywhere. */
    for (int i = 0; i < 2000000; i++) {
        uint64_t r = rng();
        uint32_t exp = 95 + (uint32_t)(r >> 40) % 58; /* 2^-32 .. 2^25 */
        uint32_t bits = (uint32_t)(r & 0x807fffff) | exp << 23;
        check_f32_to_f16(util_bits_f32(bits));
        uint32_t any = (uint32_t)(r >> 32);
        if (!isnan(util_bits_f32(any)))
            check_f32_to_f16(util_bits_f32(any));
    }
}

static void test_f64_to_f16(void **state)
{
    (void)state;
    /* Just off a tie by less than float precision: rounding via float would tie to even. */
    assert_int_equal(util_f64_to_f16(1.0 + 0x1p-11 + 0x1p-40), 0x3c01);
    assert_int_equal(util_f64_to_f16(1.0 + 3 * 0x1p-11 - 0x1p-40), 0x3c01);
    assert_int_equal(util_f64_to_f16(65520.0 - 0x1p-30), 0x7bff);
    assert_int_equal(util_f64_to_f16(0x1p-25 + 0x1p-60), 0x0001);
    assert_int_equal(util_f64_to_f16(-0x1p-25), 0x8000);
    assert_int_equal(util_f64_to_f16(DBL_TRUE_MIN), 0x0000);
    assert_int_equal(util_f64_to_f16(1e300), 0x7c00);
    assert_int_equal(util_f64_to_f16(-INFINITY), 0xfc00);
    assert_true(is_nan16(util_f64_to_f16(NAN)));
    for (unsigned h = 0; h < 0x7c00; h++) {
        double mid = (hv[h] + hv[h + 1]) / 2;
        double probes[] = {mid, nextafter(mid, 0), nextafter(mid, INFINITY), hv[h],
                           nextafter(hv[h], INFINITY), mid * (1 + 0x1p-35), mid * (1 - 0x1p-35)};
        for (size_t i = 0; i < UTIL_ARRAY_LEN(probes); i++) {
            assert_int_equal(util_f64_to_f16(probes[i]), ref_to_half(probes[i], false));
            assert_int_equal(util_f64_to_f16(-probes[i]), ref_to_half(-probes[i], false));
        }
    }
    for (int i = 0; i < 1000000; i++) {
        uint64_t r = rng();
        uint64_t exp = 990 + (r >> 20) % 60; /* 2^-33 .. 2^26 */
        double d = util_bits_f64((r & UINT64_C(0x800fffffffffffff)) | exp << 52);
        assert_int_equal(util_f64_to_f16(d), ref_to_half(d, false));
    }
}

/* ---- fma_f32 ---- */

static void check_fma32(float a, float b, float c)
{
    float got = util_fma_f32(a, b, c), want = fmaf(a, b, c);
    if (isnan(want) ? !isnan(got) : util_f32_bits(got) != util_f32_bits(want)) {
        print_error("fma(%a, %a, %a): got %a want %a\n", (double)a, (double)b, (double)c,
                    (double)got, (double)want);
        fail();
    }
}

static float random_float(void)
{
    uint64_t r = rng();
    switch (r & 3) {
    case 0: return util_bits_f32((uint32_t)(r >> 32)); /* anything, NaN included */
    case 1: /* moderate exponents, where products and sums interact */
        return util_bits_f32((uint32_t)((r >> 32) & 0x807fffff) | (uint32_t)(110 + (r >> 8) % 36) << 23);
    case 2: /* near the subnormal range */
        return util_bits_f32((uint32_t)((r >> 32) & 0x807fffff) | (uint32_t)((r >> 8) % 8) << 23);
    default: /* few significant bits, so sums are often exact or ties */
        return util_bits_f32((uint32_t)((r >> 32) & 0x807f0000) | (uint32_t)(120 + (r >> 8) % 16) << 23);
    }
}

static void test_fma_f32_random(void **state)
{
    (void)state;
    for (int i = 0; i < 1000000; i++) {
        float a = random_float(), b = random_float(), c = random_float();
        check_fma32(a, b, c);
        /* Cancellation: c near -a*b. */
        float p = a * b;
        uint32_t pc = util_f32_bits(-p) + (uint32_t)(rng() % 5) - 2;
        check_fma32(a, b, util_bits_f32(pc));
    }
}

static void test_fma_f32_specials(void **state)
{
    (void)state;
    const float sp[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 3.0f, INFINITY, -INFINITY, NAN,
                        FLT_MIN, -FLT_MIN, FLT_TRUE_MIN, -FLT_TRUE_MIN, FLT_MAX, -FLT_MAX,
                        0x1p64f, 0x1p-64f, 0x1.fffffep-1f, 0x1.000002p0f, 1e-20f, -7.5f};
    size_t n = UTIL_ARRAY_LEN(sp);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            for (size_t k = 0; k < n; k++)
                check_fma32(sp[i], sp[j], sp[k]);
    /* Zero signs, written out. */
    assert_int_equal(util_f32_bits(util_fma_f32(-0.0f, 1.0f, 0.0f)), 0x00000000);
    assert_int_equal(util_f32_bits(util_fma_f32(-0.0f, 1.0f, -0.0f)), 0x80000000);
    assert_int_equal(util_f32_bits(util_fma_f32(2.0f, 3.0f, -6.0f)), 0x00000000);
    /* -2^-298 is not zero: it rounds to -0 whatever the zero addend. */
    assert_int_equal(util_f32_bits(util_fma_f32(-FLT_TRUE_MIN, FLT_TRUE_MIN, 0.0f)), 0x80000000);
    assert_int_equal(util_f32_bits(util_fma_f32(FLT_TRUE_MIN, FLT_TRUE_MIN, -0.0f)), 0x00000000);
    /* Overflow and the default NaN. */
    assert_true(util_fma_f32(FLT_MAX, 2.0f, -FLT_MAX) == FLT_MAX);
    assert_int_equal(util_f32_bits(util_fma_f32(INFINITY, 0.0f, 1.0f)), 0x7fc00000);
    assert_int_equal(util_f32_bits(util_fma_f32(INFINITY, 1.0f, -INFINITY)), 0x7fc00000);
    /* A NaN operand comes back quieted: the first one, in a, b, c order. */
    assert_int_equal(util_f32_bits(util_fma_f32(1.0f, util_bits_f32(0x7f800001), util_bits_f32(0xffc00002))),
                     0x7fc00001);
}

/* a*b = ±ulp(F)/2 * (1 - 2^-2j): the exact sum sits just inside a midpoint of F by less than
 * double precision for j >= 15, so rounding the double sum would tie. */
static void test_fma_f32_double_rounding(void **state)
{
    (void)state;
    int naive_wrong = 0, cases = 0;
    for (int i = 0; i < 20000; i++) {
        uint64_t r = rng();
        uint32_t fexp = 60 + (uint32_t)(r % 140);
        uint32_t fbits = (uint32_t)((r >> 8) & 0x807fffff) | fexp << 23;
        float f = util_bits_f32(fbits);
        int j = 12 + (int)((r >> 40) % 12);
        int half_ulp_exp = (int)fexp - 127 - 24;
        float a = ldexpf(1.0f + ldexpf(1.0f, -j), half_ulp_exp);
        float b = 1.0f - ldexpf(1.0f, -j);
        if ((r >> 50) & 1)
            b = -b; /* below the midpoint towards zero instead */
        if ((r >> 51) & 1) {
            a = -a;
            b = -b;
        }
        float naive = (float)((double)a * (double)b + (double)f);
        check_fma32(a, b, f);
        check_fma32(b, a, f);
        cases++;
        naive_wrong += util_f32_bits(naive) != util_f32_bits(fmaf(a, b, f));
    }
    /* The construction really does defeat plain double arithmetic. */
    assert_true(naive_wrong > cases / 10);
    /* One written out: 1 + 2^-23 + 2^-24 - 2^-54 rounds down to 1 + 2^-23. */
    float a = 0x1p-24f * (1.0f + 0x1p-15f), b = 1.0f - 0x1p-15f;
    assert_int_equal(util_f32_bits(util_fma_f32(a, b, 0x1.000002p0f)), 0x3f800001);
}

/* ---- fma_f16, against exact integer arithmetic ---- */

typedef __int128 i128;

/* A finite half's magnitude as m * 2^e, e >= -24. */
static void half_decode(uint16_t h, i128 *m, int *e)
{
    unsigned exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
    *m = exp ? 1024 + frac : frac;
    *e = (exp ? (int)exp : 1) - 25;
}

/* |value| * 2^48 as an integer. */
static i128 half_scaled(uint16_t h)
{
    i128 m;
    int e;
    half_decode(h, &m, &e);
    return m << (e + 48);
}

static uint16_t ref_fma16(uint16_t a, uint16_t b, uint16_t c)
{
    bool sa = a >> 15, sb = b >> 15, sc = c >> 15;
    if (is_nan16(a) || is_nan16(b) || is_nan16(c))
        return 0x7e00;
    bool ainf = (a & 0x7fff) == HALF_INF, binf = (b & 0x7fff) == HALF_INF, cinf = (c & 0x7fff) == HALF_INF;
    bool sp = sa ^ sb;
    if (ainf || binf) {
        if (!(a & 0x7fff) || !(b & 0x7fff))
            return 0x7e00;
        if (cinf && sc != sp)
            return 0x7e00;
        return sp ? 0xfc00 : 0x7c00;
    }
    if (cinf)
        return c;
    /* Everything in units of 2^-48: the product of two multiples of 2^-24 is one. */
    i128 ma, mb;
    int ea, eb;
    half_decode(a, &ma, &ea);
    half_decode(b, &mb, &eb);
    i128 pm = (ma * mb) << (ea + eb + 48);
    i128 cm = half_scaled(c);
    i128 s = (sp ? -pm : pm) + (sc ? -cm : cm);
    if (s == 0)
        return (pm == 0 && cm == 0 && sp && sc) ? 0x8000 : 0x0000;
    uint16_t sign = s < 0 ? 0x8000 : 0;
    i128 mag = s < 0 ? -s : s;
    i128 top = (i128)1 << 64; /* 65536 */
    if (mag >= top)
        return sign | HALF_INF; /* and 65520 is the tie below it, handled next */
    unsigned lo = 0, hi = 0x7c00;
    while (hi - lo > 1) {
        unsigned mid = (lo + hi) / 2;
        if (half_scaled((uint16_t)mid) <= mag)
            lo = mid;
        else
            hi = mid;
    }
    i128 vlo = half_scaled((uint16_t)lo), vhi = hi == 0x7c00 ? top : half_scaled((uint16_t)hi);
    i128 twice = 2 * mag, sum = vlo + vhi;
    unsigned r = twice < sum ? lo : twice > sum ? hi : (lo & 1 ? hi : lo);
    return sign | (uint16_t)r;
}

static void check_fma16(uint16_t a, uint16_t b, uint16_t c)
{
    uint16_t got = util_fma_f16(a, b, c), want = ref_fma16(a, b, c);
    if (is_nan16(want) ? !is_nan16(got) : got != want) {
        print_error("fma16(0x%04x, 0x%04x, 0x%04x): got 0x%04x want 0x%04x\n", a, b, c, got, want);
        fail();
    }
}

static void test_fma_f16(void **state)
{
    (void)state;
    assert_int_equal(half_scaled(0x3c00), (i128)1 << 48); /* the reference's scale */
    const uint16_t sp[] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x0001, 0x8001, 0x03ff, 0x0400,
                           0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x3c01, 0x4200, 0x5bff, 0x1400};
    size_t n = UTIL_ARRAY_LEN(sp);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            for (size_t k = 0; k < n; k++)
                check_fma16(sp[i], sp[j], sp[k]);
    for (int i = 0; i < 1000000; i++) {
        uint64_t r = rng();
        uint16_t a = (uint16_t)r, b = (uint16_t)(r >> 16), c = (uint16_t)(r >> 32);
        if ((r >> 48) & 1) { /* exponents that meet rather than random ones */
            a = (uint16_t)((a & 0x83ff) | (0x3000 + ((r >> 49) & 0xf) * 0x400));
            b = (uint16_t)((b & 0x83ff) | (0x3000 + ((r >> 53) & 0xf) * 0x400));
            c = util_f32_to_f16(-util_f16_to_f32(a) * util_f16_to_f32(b));
            c = (uint16_t)(c + ((r >> 57) & 3) - 1);
        }
        check_fma16(a, b, c);
    }
    /* 3075/1024 * 16 = 49200 is the midpoint of 49184 and 49216; the addend decides. */
    assert_int_equal(util_fma_f16(0x3c01, 0x7a00, 0x0000), 0x7a02); /* tie: even 49216 */
    assert_int_equal(util_fma_f16(0x3c01, 0x7a00, 0x8001), 0x7a01);
    assert_int_equal(util_fma_f16(0x3c01, 0x7a00, 0x0001), 0x7a02);
    assert_int_equal(util_fma_f16(0x8000, 0x3c00, 0x0000), 0x0000);
    assert_int_equal(util_fma_f16(0x8000, 0x3c00, 0x8000), 0x8000);
    assert_int_equal(util_fma_f16(0x7c00, 0x0000, 0x3c00), 0x7e00);
    assert_int_equal(util_fma_f16(0x3c00, 0x7d01, 0x7c00), 0x7f01); /* NaN operand, quieted */
}

/* ---- cvt ---- */

static uint64_t cvt(uint64_t bits, IsaType src, IsaType dst, IsaRound round)
{
    return util_convert(bits, src, dst, round);
}
static uint64_t fbits(float f) { return util_f32_bits(f); }

static void test_convert_float_to_int(void **state)
{
    (void)state;
    const IsaRound D = ISA_ROUND_DEFAULT, E = ISA_ROUND_RTE, Z = ISA_ROUND_RTZ;
    const IsaType F32 = ISA_TYPE_F32;
    assert_int_equal(cvt(fbits(3.7f), F32, ISA_TYPE_S32, D), 3);
    assert_int_equal(cvt(fbits(3.7f), F32, ISA_TYPE_S32, Z), 3);
    assert_int_equal(cvt(fbits(3.7f), F32, ISA_TYPE_S32, E), 4);
    assert_int_equal(cvt(fbits(-3.7f), F32, ISA_TYPE_S32, D), 0xfffffffd);
    assert_int_equal(cvt(fbits(-3.7f), F32, ISA_TYPE_S32, E), 0xfffffffc);
    assert_int_equal(cvt(fbits(2.5f), F32, ISA_TYPE_S32, E), 2);
    assert_int_equal(cvt(fbits(3.5f), F32, ISA_TYPE_S32, E), 4);
    assert_int_equal(cvt(fbits(-2.5f), F32, ISA_TYPE_S32, E), 0xfffffffe);
    assert_int_equal(cvt(fbits(0.5f), F32, ISA_TYPE_U32, E), 0);
    assert_int_equal(cvt(fbits(0.50000006f), F32, ISA_TYPE_U32, E), 1);
    assert_int_equal(cvt(fbits(-1.5f), F32, ISA_TYPE_U32, D), 0);
    assert_int_equal(cvt(fbits(-0.4f), F32, ISA_TYPE_U32, E), 0);
    assert_int_equal(cvt(fbits(1e10f), F32, ISA_TYPE_S32, D), INT_MAX);
    assert_int_equal(cvt(fbits(-1e10f), F32, ISA_TYPE_S32, D), 0x80000000u);
    assert_int_equal(cvt(fbits(1e10f), F32, ISA_TYPE_U32, D), UINT32_MAX);
    assert_int_equal(cvt(fbits(2147483520.0f), F32, ISA_TYPE_S32, D), 2147483520);
    assert_int_equal(cvt(fbits(2147483648.0f), F32, ISA_TYPE_S32, D), INT_MAX);
    assert_int_equal(cvt(fbits(-2147483648.0f), F32, ISA_TYPE_S32, D), 0x80000000u);
    assert_int_equal(cvt(fbits(4294967040.0f), F32, ISA_TYPE_U32, D), 4294967040u);
    assert_int_equal(cvt(fbits(NAN), F32, ISA_TYPE_S32, D), 0);
    assert_int_equal(cvt(fbits(-NAN), F32, ISA_TYPE_U64, E), 0);
    assert_int_equal(cvt(fbits(INFINITY), F32, ISA_TYPE_S32, D), INT_MAX);
    assert_int_equal(cvt(fbits(-INFINITY), F32, ISA_TYPE_S32, D), 0x80000000u);
    assert_int_equal(cvt(fbits(-INFINITY), F32, ISA_TYPE_U16, D), 0);
    /* Narrow destinations saturate to their own range, then extend to 32 bits. */
    assert_int_equal(cvt(fbits(200.0f), F32, ISA_TYPE_S8, D), 127);
    assert_int_equal(cvt(fbits(-200.0f), F32, ISA_TYPE_S8, D), 0xffffff80u);
    assert_int_equal(cvt(fbits(-3.0f), F32, ISA_TYPE_S8, D), 0xfffffffdu);
    assert_int_equal(cvt(fbits(300.0f), F32, ISA_TYPE_U8, D), 255);
    assert_int_equal(cvt(fbits(127.5f), F32, ISA_TYPE_S8, E), 127);
    assert_int_equal(cvt(fbits(-128.5f), F32, ISA_TYPE_S8, Z), 0xffffff80u);
    assert_int_equal(cvt(fbits(40000.0f), F32, ISA_TYPE_S16, D), 32767);
    assert_int_equal(cvt(fbits(-40000.0f), F32, ISA_TYPE_S16, D), 0xffff8000u);
    assert_int_equal(cvt(fbits(70000.0f), F32, ISA_TYPE_U16, D), 65535);
    /* 64-bit destinations. */
    assert_int_equal(cvt(fbits(0x1p62f), F32, ISA_TYPE_S64, D), UINT64_C(1) << 62);
    assert_int_equal(cvt(fbits(0x1p63f), F32, ISA_TYPE_S64, D), INT64_MAX);
    assert_int_equal(cvt(fbits(-0x1p63f), F32, ISA_TYPE_S64, D), (uint64_t)INT64_MIN);
    assert_int_equal(cvt(fbits(-1.0f), F32, ISA_TYPE_S64, D), UINT64_MAX);
    assert_int_equal(cvt(fbits(0x1p63f), F32, ISA_TYPE_U64, D), UINT64_C(1) << 63);
    assert_int_equal(cvt(fbits(0x1p64f), F32, ISA_TYPE_U64, D), UINT64_MAX);
    assert_int_equal(cvt(fbits(0x1.fffffep63f), F32, ISA_TYPE_U64, D), UINT64_C(0xffffff0000000000));
    assert_int_equal(cvt(fbits(FLT_TRUE_MIN), F32, ISA_TYPE_U64, E), 0);
    /* Half sources. */
    assert_int_equal(cvt(0x4170, ISA_TYPE_F16, ISA_TYPE_S32, D), 2);   /* 2.71875 */
    assert_int_equal(cvt(0x4170, ISA_TYPE_F16, ISA_TYPE_S32, E), 3);
    assert_int_equal(cvt(0x7bff, ISA_TYPE_F16, ISA_TYPE_U16, D), 65504);
    assert_int_equal(cvt(0x7bff, ISA_TYPE_F16, ISA_TYPE_S16, D), 32767);
    assert_int_equal(cvt(0xfc00, ISA_TYPE_F16, ISA_TYPE_S8, D), 0xffffff80u);
    assert_int_equal(cvt(0x7e00, ISA_TYPE_F16, ISA_TYPE_S32, D), 0);
    assert_int_equal(cvt(0x3800, ISA_TYPE_F16, ISA_TYPE_S32, E), 0);    /* 0.5 */
    assert_int_equal(cvt(0x3e00, ISA_TYPE_F16, ISA_TYPE_S32, E), 2);    /* 1.5 */
}

static void test_convert_int_to_float(void **state)
{
    (void)state;
    const IsaRound D = ISA_ROUND_DEFAULT, E = ISA_ROUND_RTE, Z = ISA_ROUND_RTZ;
    const IsaType F32 = ISA_TYPE_F32, F16 = ISA_TYPE_F16;
    assert_int_equal(cvt(16777217u, ISA_TYPE_U32, F32, E), fbits(16777216.0f));
    assert_int_equal(cvt(16777217u, ISA_TYPE_U32, F32, Z), fbits(16777216.0f));
    assert_int_equal(cvt(16777219u, ISA_TYPE_U32, F32, D), fbits(16777220.0f));
    assert_int_equal(cvt(16777219u, ISA_TYPE_U32, F32, Z), fbits(16777218.0f));
    assert_int_equal(cvt(16777218u, ISA_TYPE_U32, F32, E), fbits(16777218.0f));
    assert_int_equal(cvt(0xffffffffu, ISA_TYPE_U32, F32, E), fbits(4294967296.0f));
    assert_int_equal(cvt(0xffffffffu, ISA_TYPE_U32, F32, Z), fbits(4294967040.0f));
    assert_int_equal(cvt(0xffffffffu, ISA_TYPE_S32, F32, E), fbits(-1.0f));
    assert_int_equal(cvt(0x80000000u, ISA_TYPE_S32, F32, E), fbits(-2147483648.0f));
    assert_int_equal(cvt(0x80000001u, ISA_TYPE_S32, F32, Z), fbits(-2147483520.0f));
    assert_int_equal(cvt(0, ISA_TYPE_S32, F32, E), 0);
    assert_int_equal(cvt(UINT64_MAX, ISA_TYPE_U64, F32, E), fbits(0x1p64f));
    assert_int_equal(cvt(UINT64_MAX, ISA_TYPE_U64, F32, Z), fbits(0x1.fffffep63f));
    assert_int_equal(cvt(UINT64_MAX, ISA_TYPE_S64, F32, E), fbits(-1.0f));
    assert_int_equal(cvt((uint64_t)INT64_MIN, ISA_TYPE_S64, F32, E), fbits(-0x1p63f));
    /* 2^53 + 2^29 + 1: double-then-float would round to 2^53 + 2^29, a tie, then to 2^53. */
    uint64_t tricky = (UINT64_C(1) << 53) + (UINT64_C(1) << 29) + 1;
    assert_int_equal(cvt(tricky, ISA_TYPE_U64, F32, E), fbits(0x1.000002p53f));
    assert_int_equal(cvt((UINT64_C(1) << 53) + (UINT64_C(1) << 29), ISA_TYPE_U64, F32, E),
                     fbits(0x1p53f));
    assert_int_equal(cvt((UINT64_C(1) << 53) + (UINT64_C(3) << 29), ISA_TYPE_U64, F32, E),
                     fbits(0x1.000004p53f));
    /* Narrow sources read their own bits only. */
    assert_int_equal(cvt(0xfffffffdu, ISA_TYPE_S8, F32, E), fbits(-3.0f));
    assert_int_equal(cvt(0xfffffffdu, ISA_TYPE_U8, F32, E), fbits(253.0f));
    assert_int_equal(cvt(0x18000, ISA_TYPE_S16, F32, E), fbits(-32768.0f));
    assert_int_equal(cvt(0xffff, ISA_TYPE_U16, F16, E), 0x7c00);   /* 65535 -> inf */
    assert_int_equal(cvt(0xffff, ISA_TYPE_U16, F16, Z), 0x7bff);
    assert_int_equal(cvt(65519, ISA_TYPE_U32, F16, E), 0x7bff);
    assert_int_equal(cvt(65520, ISA_TYPE_U32, F16, E), 0x7c00);
    assert_int_equal(cvt(2049, ISA_TYPE_S32, F16, E), 0x6800);     /* tie to even 2048 */
    assert_int_equal(cvt(2051, ISA_TYPE_S32, F16, E), 0x6802);     /* tie to even 2052 */
    assert_int_equal(cvt(2051, ISA_TYPE_S32, F16, Z), 0x6801);
    assert_int_equal(cvt(0xfffffffbu, ISA_TYPE_S32, F16, E), 0xc500); /* -5 */
    assert_int_equal(cvt(UINT64_MAX, ISA_TYPE_U64, F16, E), 0x7c00);
    assert_int_equal(cvt(UINT64_MAX, ISA_TYPE_U64, F16, Z), 0x7bff);
    assert_int_equal(cvt((uint64_t)INT64_MIN, ISA_TYPE_S64, F16, Z), 0xfbff);
    /* Against the half table for every 16-bit and a spread of 32-bit integers. */
    for (uint32_t v = 0; v < 0x110000; v += (v < 0x10000 ? 1 : 97)) {
        assert_int_equal(cvt(v, ISA_TYPE_U32, F16, E), ref_to_half((double)v, false));
        assert_int_equal(cvt(v, ISA_TYPE_U32, F16, Z), ref_to_half((double)v, true));
        double neg = v ? -(double)v : 0.0; /* integer zero has no sign */
        assert_int_equal(cvt(-(uint64_t)v, ISA_TYPE_S64, F16, E), ref_to_half(neg, false));
    }
}

static void test_convert_int_and_float(void **state)
{
    (void)state;
    const IsaRound D = ISA_ROUND_DEFAULT, Z = ISA_ROUND_RTZ;
    /* Integer to integer wraps or extends. */
    assert_int_equal(cvt(0x1ff, ISA_TYPE_U32, ISA_TYPE_S8, D), 0xffffffffu);
    assert_int_equal(cvt(0x1ff, ISA_TYPE_U32, ISA_TYPE_U8, D), 0xff);
    assert_int_equal(cvt(0xfffffffdu, ISA_TYPE_S32, ISA_TYPE_S8, D), 0xfffffffdu);
    assert_int_equal(cvt(0x80u, ISA_TYPE_S8, ISA_TYPE_S32, D), 0xffffff80u);
    assert_int_equal(cvt(0x80u, ISA_TYPE_S8, ISA_TYPE_S64, D), UINT64_C(0xffffffffffffff80));
    assert_int_equal(cvt(0x80u, ISA_TYPE_U8, ISA_TYPE_S64, D), 0x80);
    assert_int_equal(cvt(0xffffffffu, ISA_TYPE_S32, ISA_TYPE_S64, D), UINT64_MAX);
    assert_int_equal(cvt(0xffffffffu, ISA_TYPE_U32, ISA_TYPE_S64, D), 0xffffffffu);
    assert_int_equal(cvt(UINT64_C(0x123456789), ISA_TYPE_U64, ISA_TYPE_U32, D), 0x23456789);
    assert_int_equal(cvt(UINT64_C(0x12345fffe), ISA_TYPE_S64, ISA_TYPE_S16, D), 0xfffffffeu);
    assert_int_equal(cvt(0x8000, ISA_TYPE_U16, ISA_TYPE_S16, D), 0xffff8000u);
    /* Float to float. */
    assert_int_equal(cvt(0x3c00, ISA_TYPE_F16, ISA_TYPE_F32, D), fbits(1.0f));
    assert_int_equal(cvt(0x0001, ISA_TYPE_F16, ISA_TYPE_F32, D), fbits(0x1p-24f));
    assert_int_equal(cvt(fbits(0x1.006p0f), ISA_TYPE_F32, ISA_TYPE_F16, D), 0x3c02);
    assert_int_equal(cvt(fbits(0x1.006p0f), ISA_TYPE_F32, ISA_TYPE_F16, Z), 0x3c01);
    assert_int_equal(cvt(fbits(1e6f), ISA_TYPE_F32, ISA_TYPE_F16, Z), 0x7bff);
    assert_int_equal(cvt(fbits(-2.0f), ISA_TYPE_F32, ISA_TYPE_F32, D), fbits(-2.0f));
    assert_int_equal(cvt(0xbc00, ISA_TYPE_F16, ISA_TYPE_F16, D), 0xbc00);
}


/* ---- bfloat16 --------------------------------------------------------------------------- */

#define BF_INF 0x7f80u

/* bv[i]: the exact value of the positive bfloat with bits i, i < 0x7f80; bv[0x7f80] = 2^128,
 * where the next step would be, so overflow rounds like a tie to the even pattern (inf). */
static double bv[0x7f81];

static void build_bfloat_table(void)
{
    for (unsigned i = 0; i < 0x7f80; i++) {
        unsigned exp = i >> 7, frac = i & 0x7f;
        bv[i] = exp ? ldexp(128.0 + frac, (int)exp - 134) : ldexp(frac, -133);
    }
    bv[0x7f80] = ldexp(1.0, 128);
}

/* The bfloat nearest to x (not NaN), ties to even, or the lower neighbour for rtz. */
static uint16_t ref_to_bfloat(double x, bool rtz)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double ax = fabs(x);
    if (ax >= bv[0x7f80])
        return sign | (rtz && !isinf(x) ? 0x7f7f : BF_INF);
    unsigned lo = 0, hi = 0x7f80; /* bv[lo] <= ax < bv[hi] */
    while (hi - lo > 1) {
        unsigned mid = (lo + hi) / 2;
        if (bv[mid] <= ax)
            lo = mid;
        else
            hi = mid;
    }
    if (ax == bv[lo] || rtz)
        return sign | (uint16_t)lo;
    double midpoint = (bv[lo] + bv[hi]) / 2; /* exact: 9 significant bits */
    unsigned r = ax < midpoint ? lo : ax > midpoint ? hi : (lo & 1 ? hi : lo);
    return sign | (uint16_t)r;
}

static bool is_nan_bf(uint16_t b) { return (b & 0x7fff) > BF_INF; }

static void check_f32_to_bf16(uint32_t u)
{
    float f = util_bits_f32(u);
    uint64_t rte = util_convert(u, ISA_TYPE_F32, ISA_TYPE_BF16, ISA_ROUND_DEFAULT);
    uint64_t rtz = util_convert(u, ISA_TYPE_F32, ISA_TYPE_BF16, ISA_ROUND_RTZ);
    if (isnan(f)) { /* a quiet NaN of the same sign, the payload's top bits kept */
        uint16_t want = (uint16_t)((u >> 16) | 0x40);
        if (util_f32_to_bf16(f) != want || rte != want || rtz != want)
            fail_msg("NaN 0x%08x: got 0x%04x / 0x%04x, want 0x%04x", u, util_f32_to_bf16(f),
                     (unsigned)rte, want);
        return;
    }
    uint16_t want = ref_to_bfloat((double)f, false), want_z = ref_to_bfloat((double)f, true);
    if (util_f32_to_bf16(f) != want || rte != want || rtz != want_z)
        fail_msg("f32 %a (0x%08x): got 0x%04x / cvt 0x%04x / rtz 0x%04x, want 0x%04x / rtz "
                 "0x%04x", (double)f, u, util_f32_to_bf16(f), (unsigned)rte, (unsigned)rtz,
                 want, want_z);
}

static void test_bfloat_from_f32(void **state)
{
    (void)state;
    /* named cases: ties go to the even pattern, just above a tie rounds up */
    static const struct { uint32_t f; uint16_t b; } named[] = {
        {0x3f800000u, 0x3f80}, /* 1 */
        {0x3f808000u, 0x3f80}, /* 1 + 2^-8: a tie, to even 1 */
        {0x3f818000u, 0x3f82}, /* 1 + 3*2^-8: a tie, to even 1 + 2^-6 */
        {0x3f808001u, 0x3f81}, /* just above the tie */
        {0x3f807fffu, 0x3f80}, /* just below */
        {0x3dcccccdu, 0x3dcd}, /* 0.1f */
        {0x7f7fffffu, 0x7f80}, /* FLT_MAX rounds to inf */
        {0x7f7f7fffu, 0x7f7f}, /* below the midpoint to 2^128: the largest bfloat */
        {0x7f7f8000u, 0x7f80}, /* the midpoint: a tie, to the even pattern, inf */
        {0x00000001u, 0x0000}, /* the smallest subnormal float: 0 */
        {0x00008000u, 0x0000}, /* a subnormal tie, to even 0 */
        {0x00018000u, 0x0002}, /* a subnormal tie, to even 2 */
        {0x80000000u, 0x8000}, {0xff800000u, 0xff80}, {0x7f800000u, 0x7f80},
        {0xbf808000u, 0xbf80}, /* -(1 + 2^-8): to even, sign kept */
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        uint16_t got = util_f32_to_bf16(util_bits_f32(named[i].f));
        if (got != named[i].b)
            fail_msg("0x%08x: got 0x%04x, want 0x%04x", named[i].f, got, named[i].b);
        check_f32_to_bf16(named[i].f);
    }
    /* NaNs: quiet, sign and top payload kept (a signalling NaN is quieted) */
    assert_int_equal(util_f32_to_bf16(util_bits_f32(0x7f800001u)), 0x7fc0);
    assert_int_equal(util_f32_to_bf16(util_bits_f32(0xffa00000u)), 0xffe0);
    /* every exponent with a spread of fractions (incl. every low-half pattern near ties) */
    for (uint64_t u = 0; u <= 0xffffffffu; u += 65521)
        check_f32_to_bf16((uint32_t)u);
    for (uint32_t e = 0; e < 256; e++)
        for (uint32_t low = 0x7ff0; low <= 0x8010; low++) {
            check_f32_to_bf16((e << 23) | 0x10000u | low);
            check_f32_to_bf16((e << 23) | low | 0x80000000u);
        }
    /* the double entry point rounds once: 1 + 2^-8 + 2^-30 is above the tie (through float
     * it would first become the tie 1 + 2^-8, then 1) */
    assert_int_equal(util_f64_to_bf16(1.0 + 0x1p-8 + 0x1p-30), 0x3f81);
    assert_int_equal(util_f64_to_bf16(1.0 + 0x1p-8), 0x3f80);
    assert_int_equal(util_f64_to_bf16(-0.1), 0xbdcd);
    assert_int_equal(util_f64_to_bf16(1e39), BF_INF);
    assert_true(is_nan_bf(util_f64_to_bf16(NAN)));
    for (int i = 0; i < 20000; i++) {
        double d = ldexp((double)(rng() >> 11), (int)(rng() % 300) - 200 - 53);
        assert_int_equal(util_f64_to_bf16(d), ref_to_bfloat(d, false));
        assert_int_equal(util_f64_to_bf16(-d), ref_to_bfloat(-d, false));
    }
}

/* Every bfloat widens exactly and converts to half, integers and back as its value says. */
static void test_bfloat_conversions(void **state)
{
    (void)state;
    const IsaRound D = ISA_ROUND_DEFAULT;
    for (uint32_t b = 0; b < 0x10000; b++) {
        uint32_t mag = b & 0x7fff;
        double value = mag < BF_INF ? bv[mag] : INFINITY;
        if (b & 0x8000)
            value = -value;
        uint64_t f = util_convert(b, ISA_TYPE_BF16, ISA_TYPE_F32, D);
        float got = util_bf16_to_f32((uint16_t)b);
        if (mag > BF_INF) { /* NaN: quieted, payload kept */
            assert_int_equal(f, ((b << 16) | 0x400000u));
            assert_true(isnan(got));
            assert_true(is_nan16((uint16_t)util_convert(b, ISA_TYPE_BF16, ISA_TYPE_F16, D)));
            assert_int_equal(util_convert(b, ISA_TYPE_BF16, ISA_TYPE_S32, D), 0);
            continue;
        }
        assert_int_equal(f, (uint64_t)b << 16);
        assert_true((double)got == value);
        assert_int_equal(util_convert(b, ISA_TYPE_BF16, ISA_TYPE_F16, D),
                         ref_to_half(value, false));
        assert_int_equal(util_convert(b, ISA_TYPE_BF16, ISA_TYPE_F16, ISA_ROUND_RTZ),
                         ref_to_half(value, true));
        assert_int_equal(util_convert(b, ISA_TYPE_BF16, ISA_TYPE_BF16, D), b);
        double t = trunc(value);
        int64_t want = isinf(value) ? (value > 0 ? INT32_MAX : INT32_MIN)
                       : t >= 2147483647.0 ? INT32_MAX : t <= -2147483648.0 ? INT32_MIN
                                                                           : (int64_t)t;
        assert_int_equal((int32_t)util_convert(b, ISA_TYPE_BF16, ISA_TYPE_S32, D), want);
    }
    /* every half to bfloat: one rounding of its exact value */
    for (uint32_t h = 0; h < 0x10000; h++) {
        if (is_nan16((uint16_t)h))
            continue;
        double value = (double)util_f16_to_f32((uint16_t)h);
        assert_int_equal(util_convert(h, ISA_TYPE_F16, ISA_TYPE_BF16, D),
                         ref_to_bfloat(value, false));
    }
    /* integers: one rounding of the exact value (257 is a tie: to even 256; 259 to 260) */
    assert_int_equal(util_convert(257, ISA_TYPE_S32, ISA_TYPE_BF16, D), 0x4380);
    assert_int_equal(util_convert(259, ISA_TYPE_S32, ISA_TYPE_BF16, D), 0x4382);
    assert_int_equal(util_convert(0xfffffeffu, ISA_TYPE_S32, ISA_TYPE_BF16, D), 0xc380);
    /* 2^24 + 2^16 + 1: through float it would become the tie 2^24 + 2^16, then 2^24 */
    assert_int_equal(util_convert((1u << 24) + (1u << 16) + 1, ISA_TYPE_U32, ISA_TYPE_BF16, D),
                     ref_to_bfloat(16777216.0 + 65536.0 + 1.0, false));
    assert_int_equal(util_convert(UINT64_MAX, ISA_TYPE_U64, ISA_TYPE_BF16, D), 0x5f80);
    for (uint32_t v = 0; v < 0x200000; v += (v < 0x10000 ? 1 : 251)) {
        assert_int_equal(util_convert(v, ISA_TYPE_U32, ISA_TYPE_BF16, D),
                         ref_to_bfloat((double)v, false));
        assert_int_equal(util_convert(-(uint64_t)v, ISA_TYPE_S64, ISA_TYPE_BF16, D),
                         ref_to_bfloat(v ? -(double)v : 0.0, false));
    }
}

int main(void)
{
    build_half_table();
    build_bfloat_table();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f16_roundtrip_exhaustive),
        cmocka_unit_test(test_f32_to_f16_named),
        cmocka_unit_test(test_f32_to_f16_boundaries),
        cmocka_unit_test(test_f64_to_f16),
        cmocka_unit_test(test_fma_f32_random),
        cmocka_unit_test(test_fma_f32_specials),
        cmocka_unit_test(test_fma_f32_double_rounding),
        cmocka_unit_test(test_fma_f16),
        cmocka_unit_test(test_convert_float_to_int),
        cmocka_unit_test(test_convert_int_to_float),
        cmocka_unit_test(test_convert_int_and_float),
        cmocka_unit_test(test_bfloat_from_f32),
        cmocka_unit_test(test_bfloat_conversions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
