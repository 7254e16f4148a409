/*
 * test_numerics.c — pins the floating-point arithmetic rules of the kernel language end to
 * end (docs/numerics.md, "Arithmetic rules"): half + - * / rounded to binary16 per operation
 * (ties to even, subnormals kept, overflow to inf), half literals and constant folding in
 * half, half promoted to float in mixed expressions (MSL 2.11 and the usual arithmetic
 * conversions), float ops in single precision with no contraction of a*b+c unless fma() is
 * called, and the precise:: / fast:: prefixes overriding the fast-math option. Each rule is
 * a small Metal kernel run by the simulator over an input sweep and compared with reference
 * code written here (a binary16 rounding on the bit pattern of a double; C float arithmetic
 * built with -ffp-contract=off). Integer rules and conversions: test_numerics_int.c.
 */
#include "numerics_harness.h"

static bool float_nan(uint32_t f) { return (f & 0x7f800000) == 0x7f800000 && (f & 0x7fffff); }

/* Equal bits, or both NaN (any payload). */
static bool same_half(uint16_t got, uint16_t want)
{
    return got == want || (half_nan(got) && half_nan(want));
}
static bool same_float(uint32_t got, uint32_t want)
{
    return got == want || (float_nan(got) && float_nan(want));
}

static uint32_t rng = 0x2545f491u;
static uint32_t rnd(void)
{
    rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5;
    return rng;
}

/* Halves that exercise rounding: specials, subnormals, the overflow edge, ties. */
static const uint16_t hedge[] = {
    0x0000, 0x8000, 0x3c00, 0xbc00, 0x0001, 0x8001, 0x0002, 0x03ff, 0x0400, 0x0401, 0x7bff,
    0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x3800, 0x3e00, 0x1000, 0x6800, 0x6801, 0x3c01, 0x1400,
    0x0200, 0x4000, 0x7800, 0x4c00, 0x3555, 0x2e66, 0x5bff, 0x0c00};
#define NHEDGE (sizeof hedge / sizeof hedge[0])

/* ---- half arithmetic ------------------------------------------------------------------- */

static const char half_ops_src[] = HDR
    "kernel void k(device const half *a [[buffer(0)]], device const half *b [[buffer(1)]],\n"
    "              device half *o [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
    "    half x = a[i], y = b[i];\n"
    "    o[4 * i] = x + y;\n"
    "    o[4 * i + 1] = x - y;\n"
    "    o[4 * i + 2] = x * y;\n"
    "    o[4 * i + 3] = x / y;\n"
    "}\n";

static uint16_t ref_half_op(int op, uint16_t a, uint16_t b)
{
    /* exact in double for + - * (40 and 22 significant bits); a/b rounded twice, which is
     * harmless as 53 >= 2 * 11 + 2 */
    double x = half_val(a), y = half_val(b);
    double r = op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y : x / y;
    return ref_half(r);
}

/* Every operation over edge pairs and 2^16 random bit patterns: bit-exact binary16 results. */
static void test_half_ops_sweep(void **state)
{
    (void)state;
    uint32_t n = 1u << 16;
    uint16_t *a = calloc(n, 2), *b = calloc(n, 2), *o = calloc(4 * (size_t)n, 2);
    uint32_t k = 0;
    for (uint32_t i = 0; i < NHEDGE; i++)
        for (uint32_t j = 0; j < NHEDGE; j++, k++)
            a[k] = hedge[i], b[k] = hedge[j];
    for (; k < n; k++) {
        uint32_t r = rnd();
        a[k] = (uint16_t)r, b[k] = (uint16_t)(r >> 16);
        if (k % 4 == 1) /* close magnitudes: cancellation and subnormal differences */
            b[k] = (uint16_t)((a[k] ^ (r >> 31 << 15)) + (int)((r >> 16) % 7) - 3);
    }
    void *bufs[] = {a, b, o};
    size_t sizes[] = {n * 2, n * 2, n * 8};
    run(half_ops_src, NULL, bufs, sizes, 3, n);
    static const char ops[] = "+-*/";
    for (uint32_t i = 0; i < n; i++)
        for (int op = 0; op < 4; op++) {
            uint16_t want = ref_half_op(op, a[i], b[i]), got = o[4 * i + op];
            if (!same_half(got, want))
                fail_msg("half %#06x %c %#06x: got %#06x want %#06x", a[i], ops[op], b[i], got, want);
        }
    free(a), free(b), free(o);
}

/* The rounding rules by name; the wanted bits come from working the binary16 format by hand. */
static void test_half_ops_rules(void **state)
{
    (void)state;
    static const struct { uint16_t a, b; int op; uint16_t want; const char *why; } c[] = {
        {0x3c00, 0x1000, 0, 0x3c00, "1 + 2^-11: a tie, to the even 1"},
        {0x3c01, 0x1000, 0, 0x3c02, "(1 + 2^-10) + 2^-11: a tie, up to the even 1 + 2^-9"},
        {0x6800, 0x3c00, 0, 0x6800, "2048 + 1: a tie, to 2048"},
        {0x6801, 0x3c00, 0, 0x6802, "2050 + 1: a tie, to 2052"},
        {0x7bff, 0x4c00, 0, 0x7c00, "65504 + 16 = 65520: the tie above the largest half is inf"},
        {0x7bff, 0x4800, 0, 0x7bff, "65504 + 8 stays finite"},
        {0x7bff, 0x4000, 2, 0x7c00, "65504 * 2 overflows to inf"},
        {0xfbff, 0x4000, 2, 0xfc00, "-65504 * 2 overflows to -inf"},
        {0x0400, 0x3800, 2, 0x0200, "2^-14 * 0.5: an exact subnormal, not flushed"},
        {0x0001, 0x3800, 2, 0x0000, "2^-24 * 0.5: a tie, to the even 0"},
        {0x0001, 0x3e00, 2, 0x0002, "2^-24 * 1.5: a tie, to the even 2^-23"},
        {0x0003, 0x3800, 2, 0x0002, "3 * 2^-25: a tie, to 2^-23"},
        {0x0400, 0x0001, 1, 0x03ff, "2^-14 - 2^-24: a subnormal difference"},
        {0x3c00, 0x4200, 3, 0x3555, "1 / 3"},
        {0x3c00, 0x0000, 3, 0x7c00, "1 / 0 = inf"},
        {0xbc00, 0x0000, 3, 0xfc00, "-1 / 0 = -inf"},
        {0x0000, 0x0000, 3, 0x7e00, "0 / 0 = NaN"},
        {0x7c00, 0x7c00, 1, 0x7e00, "inf - inf = NaN"},
        {0x3c00, 0xbc00, 0, 0x0000, "1 + -1 = +0"},
        {0x8000, 0x8000, 0, 0x8000, "-0 + -0 = -0"},
    };
    enum { N = sizeof c / sizeof c[0] };
    uint16_t a[N], b[N], o[4 * N];
    for (int i = 0; i < N; i++)
        a[i] = c[i].a, b[i] = c[i].b;
    void *bufs[] = {a, b, o};
    size_t sizes[] = {sizeof a, sizeof b, sizeof o};
    run(half_ops_src, NULL, bufs, sizes, 3, N);
    for (int i = 0; i < N; i++) {
        uint16_t got = o[4 * i + c[i].op];
        if (!same_half(got, c[i].want))
            fail_msg("%s: got %#06x want %#06x", c[i].why, got, c[i].want);
        assert_true(same_half(ref_half_op(c[i].op, c[i].a, c[i].b), c[i].want)); /* the reference agrees */
    }
}

/* A chain of half ops rounds after every op: a*b + c is round(round(a*b) + c), not fused and
 * not evaluated in float. The sweep must contain cases where that makes a difference. */
static void test_half_chain(void **state)
{
    (void)state;
    uint32_t n = 1u << 14;
    uint16_t *a = calloc(n, 2), *b = calloc(n, 2), *c = calloc(n, 2), *o = calloc(2 * (size_t)n, 2);
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (uint16_t)(0x3000 + rnd() % 0x1800), b[i] = (uint16_t)(0x3000 + rnd() % 0x1800);
        c[i] = (uint16_t)((rnd() % 0x1800 + 0x3000) | (rnd() & 0x8000));
    }
    void *bufs[] = {a, b, c, o};
    size_t sizes[] = {n * 2, n * 2, n * 2, n * 4};
    run(HDR "kernel void k(device const half *a [[buffer(0)]], device const half *b [[buffer(1)]],\n"
            "  device const half *c [[buffer(2)]], device half *o [[buffer(3)]],\n"
            "  uint i [[thread_position_in_grid]]) {\n"
            "    half x = a[i], y = b[i], z = c[i];\n"
            "    o[2 * i] = x * y + z;\n"
            "    half t = (x + y) * z - x;\n"
            "    o[2 * i + 1] = t;\n"
            "}\n", NULL, bufs, sizes, 4, n);
    uint32_t differs = 0;
    for (uint32_t i = 0; i < n; i++) {
        double x = half_val(a[i]), y = half_val(b[i]), z = half_val(c[i]);
        uint16_t w0 = ref_half(half_val(ref_half(x * y)) + z);
        uint16_t w1 = ref_half(half_val(ref_half(half_val(ref_half(x + y)) * z)) - x);
        differs += w0 != ref_half(x * y + z);
        if (o[2 * i] != w0 || o[2 * i + 1] != w1)
            fail_msg("half chain %#06x %#06x %#06x: got %#06x %#06x want %#06x %#06x", a[i], b[i],
                     c[i], o[2 * i], o[2 * i + 1], w0, w1);
    }
    assert_true(differs > 100); /* fusing would have been caught */
    free(a), free(b), free(c), free(o);
}

/* Half literals are binary16 values, and constant expressions in half round per op like the
 * same expressions evaluated at run time. */
static void test_half_literals_and_folding(void **state)
{
    (void)state;
    float o[8] = {0};
    uint16_t in[2] = {0x6800, 0x3c00}; /* 2048, 1 */
    void *bufs[] = {in, o};
    size_t sizes[] = {sizeof in, sizeof o};
    run(HDR "kernel void k(device const half *h [[buffer(0)]], device float *o [[buffer(1)]],\n"
            "              uint i [[thread_position_in_grid]]) {\n"
            "    o[0] = 1.1h;\n"
            "    o[1] = float(half(0.1f));\n"
            "    o[2] = (2048.0h + 1.0h) + 1.0h;\n"
            "    o[3] = (h[0] + h[1]) + h[1];\n"
            "    half k = 3.0h;\n"
            "    o[4] = 1.0h / k;\n"
            "    o[5] = 1.0H / 3.0H;\n"
            "    o[6] = 65504.0h + 16.0h;\n"
            "    o[7] = 0.1h * 10.0h;\n"
            "}\n", NULL, bufs, sizes, 2, 1);
    assert_true(o[0] == 1.099609375f);      /* 0x3c66 */
    assert_true(o[1] == 0.0999755859375f);  /* 0x2e66 */
    assert_true(o[2] == 2048.0f);           /* 2048 + 1 ties to 2048, twice; not 2050 */
    assert_true(o[3] == 2048.0f);
    assert_true(o[4] == 0.333251953125f);   /* 0x3555 */
    assert_true(o[5] == 0.333251953125f);
    assert_true(isinf(o[6]) && o[6] > 0);
    /* 0.1h = 0x2e66 = 1638/16384; times 10 = 16380/16384 = 0.999755859375, a tie between
     * 0x3bff and 1.0: to the even 1.0 */
    assert_true(o[7] == 1.0f);
}

/* ---- mixed half and float ------------------------------------------------------------------ */

/* half op float is float (the half is widened exactly); half op int is half; half compared
 * with float compares as float. */
static void test_mixed_half_float(void **state)
{
    (void)state;
    enum { N = 4096 };
    uint16_t *a = calloc(N, 2);
    uint32_t *b = calloc(N, 4), *o = calloc(6 * N, 4);
    for (int i = 0; i < N; i++) {
        a[i] = i < (int)NHEDGE ? hedge[i] : (uint16_t)rnd();
        b[i] = i % 3 == 0 ? h_fbits((float)half_val(a[i])) : rnd();
        if (i % 5 == 0)
            b[i] = h_fbits(1e-3f * (float)(i % 17));
    }
    void *bufs[] = {a, b, o};
    size_t sizes[] = {N * 2, N * 4, N * 24};
    run(HDR "kernel void k(device const half *a [[buffer(0)]], device const float *b [[buffer(1)]],\n"
            "              device float *o [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
            "    half h = a[i]; float f = b[i];\n"
            "    o[6 * i] = h + f;\n"
            "    o[6 * i + 1] = h * f;\n"
            "    o[6 * i + 2] = f / h;\n"
            "    o[6 * i + 3] = h == f ? 1.0f : 0.0f;\n"
            "    o[6 * i + 4] = h + 1;\n"      /* half + int: half */
            "    o[6 * i + 5] = h + 1.0;\n"    /* unsuffixed literal: float */
            "}\n", NULL, bufs, sizes, 3, N);
    for (int i = 0; i < N; i++) {
        float h = (float)half_val(a[i]), f = h_bitsf(b[i]);
        uint32_t want[6] = {h_fbits(h + f), h_fbits(h * f), h_fbits(f / h), h_fbits(h == f ? 1.0f : 0.0f),
                            h_fbits((float)half_val(ref_half((double)h + 1))), h_fbits(h + 1.0f)};
        for (int k = 0; k < 6; k++)
            if (!same_float(o[6 * i + k], want[k]))
                fail_msg("mixed #%d: h=%a f=%a: got %a want %a", k, h, f, h_bitsf(o[6 * i + k]),
                         h_bitsf(want[k]));
    }
    free(a), free(b), free(o);
}

/* ---- float arithmetic ------------------------------------------------------------------------ */

static const char float_ops_src[] = HDR
    "kernel void k(device const float *a [[buffer(0)]], device const float *b [[buffer(1)]],\n"
    "              device float *o [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
    "    float x = a[i], y = b[i];\n"
    "    o[4 * i] = x + y;\n"
    "    o[4 * i + 1] = x - y;\n"
    "    o[4 * i + 2] = x * y;\n"
    "    o[4 * i + 3] = x / y;\n"
    "}\n";

static const float fedge[] = {0.0f, -0.0f, 1.0f, -1.0f, 0x1p-149f, -0x1p-149f, 0x1p-126f,
                              0x1.fffffcp-127f, 0x1.fffffep127f, -0x1.fffffep127f, INFINITY,
                              -INFINITY, NAN, 3.0f, 0x1p-24f, 0x1.000002p0f, 0.1f, 1e-40f, 2.0f,
                              0x1p126f, 0x1p-127f, 16777216.0f};
#define NFEDGE (sizeof fedge / sizeof fedge[0])

/* Correctly rounded single precision (C float ops built without contraction), subnormals
 * kept; with fast math + - * stay exact and / is within 2.5 ulp (Table 29). */
static void test_float_ops_sweep(void **state)
{
    (void)state;
    uint32_t n = 1u << 16;
    uint32_t *a = calloc(n, 4), *b = calloc(n, 4), *o = calloc(4 * (size_t)n, 4);
    uint32_t k = 0;
    for (uint32_t i = 0; i < NFEDGE; i++)
        for (uint32_t j = 0; j < NFEDGE; j++, k++)
            a[k] = h_fbits(fedge[i]), b[k] = h_fbits(fedge[j]);
    for (; k < n; k++) {
        a[k] = rnd(), b[k] = rnd();
        if (k % 4 == 1) /* near-cancellation */
            b[k] = (a[k] ^ (rnd() & 0x80000000u)) + rnd() % 9 - 4;
        if (k % 4 == 2) /* subnormal results */
            a[k] = (a[k] & 0x80ffffffu) | 0x00800000u, b[k] = (b[k] & 0x807fffffu) | 0x3f000000u;
    }
    for (int fast = 0; fast < 2; fast++) {
        LangOptions opts = {0};
        opts.fast_math = fast;
        void *bufs[] = {a, b, o};
        size_t sizes[] = {n * 4, n * 4, n * 16};
        run(float_ops_src, &opts, bufs, sizes, 3, n);
        for (uint32_t i = 0; i < n; i++) {
            float x = h_bitsf(a[i]), y = h_bitsf(b[i]);
            if (fast && (!isfinite(x) || !isfinite(y)))
                continue; /* undefined with fast math (7.1) */
            float want[4] = {x + y, x - y, x * y, x / y};
            for (int op = 0; op < 4; op++) {
                uint32_t got = o[4 * i + op];
                if (fast && op == 3) {
                    double ay = fabs((double)y), q = (double)x / y, g = h_bitsf(got);
                    if (ay < 0x1p-126 || ay > 0x1p126 || !isfinite(want[3]) || fabs(q) < 0x1p-126)
                        continue;
                    double ulp = ldexp(1, ilogb(q) - 23);
                    if (fabs(g - q) > 2.5 * ulp)
                        fail_msg("fast %a / %a: got %a want %a", x, y, g, q);
                    continue;
                }
                if (!same_float(got, h_fbits(want[op])))
                    fail_msg("%s %a %c %a: got %a want %a", fast ? "fast" : "precise", x, "+-*/"[op],
                             y, h_bitsf(got), want[op]);
            }
        }
    }
    free(a), free(b), free(o);
}

/* a*b + c is two roundings; only fma() fuses. a = b = 1 + 2^-12: a*b = 1 + 2^-11 + 2^-24
 * rounds (a tie) to 1 + 2^-11, so a*b - (1 + 2^-11) is 0, but 2^-24 when fused. */
static void test_float_no_contraction(void **state)
{
    (void)state;
    float in[3] = {0x1.001p0f, 0x1.001p0f, -0x1.002p0f};
    float o[6] = {0};
    void *bufs[] = {in, o};
    size_t sizes[] = {sizeof in, sizeof o};
    const char *src = HDR
        "kernel void k(device const float *v [[buffer(0)]], device float *o [[buffer(1)]],\n"
        "              uint i [[thread_position_in_grid]]) {\n"
        "    float a = v[0], b = v[1], c = v[2];\n"
        "    o[0] = a * b + c;\n"
        "    float t = a * b;\n"
        "    o[1] = c + t;\n"
        "    o[2] = fma(a, b, c);\n"
        "    o[3] = c + a * b;\n"
        "    o[4] = mad(a, b, c) - fma(a, b, c);\n" /* mad: single rounding here too */
        "    o[5] = a * b - 0x1.002p0f;\n"
        "}\n";
    for (int fast = 0; fast < 2; fast++) {
        LangOptions opts = {0};
        opts.fast_math = fast;
        run(src, &opts, bufs, sizes, 2, 1);
        assert_true(o[0] == 0.0f);
        assert_true(o[1] == 0.0f);
        assert_true(o[2] == 0x1p-24f);
        assert_true(o[3] == 0.0f);
        assert_true(o[4] == 0.0f);
        assert_true(o[5] == 0.0f);
    }
    /* the same with half: a = b = 1 + 2^-6, a*b = 1 + 2^-5 + 2^-12 rounds to 1 + 2^-5 */
    uint16_t hin[3] = {0x3c10, 0x3c10, 0xbc20}, ho[2] = {0};
    void *hb[] = {hin, ho};
    size_t hs[] = {sizeof hin, sizeof ho};
    run(HDR "kernel void k(device const half *v [[buffer(0)]], device half *o [[buffer(1)]],\n"
            "              uint i [[thread_position_in_grid]]) {\n"
            "    o[0] = v[0] * v[1] + v[2];\n"
            "    o[1] = fma(v[0], v[1], v[2]);\n"
            "}\n", NULL, hb, hs, 2, 1);
    assert_int_equal(ho[0], 0x0000);
    assert_int_equal(ho[1], 0x0c00); /* 2^-12 */
}

/* ---- precise:: and fast:: ----------------------------------------------------------------- */

static double ulp_f(double x) { x = fabs(x); return x < 0x1p-126 ? 0x1p-149 : ldexp(1, ilogb(x) - 23); }

/* The prefix wins over the option: precise:: is precise under fast math and fast:: is fast
 * (within Table 29) without it; an unprefixed call follows the option. exp at |x| near 80 is
 * where the two differ: the fast sequence's error grows as 3 + floor(2|x|). */
static void test_precise_fast_prefixes(void **state)
{
    (void)state;
    enum { N = 4096 };
    float *x = calloc(N, 4), *o = calloc(6 * N, 4);
    for (int i = 0; i < N; i++)
        x[i] = -87.0f + 175.0f * (float)i / N;
    const char *src = HDR
        "kernel void k(device const float *x [[buffer(0)]], device float *o [[buffer(1)]],\n"
        "              uint i [[thread_position_in_grid]]) {\n"
        "    float v = x[i];\n"
        "    o[6 * i] = precise::exp(v);\n"
        "    o[6 * i + 1] = fast::exp(v);\n"
        "    o[6 * i + 2] = exp(v);\n"
        "    o[6 * i + 3] = metal::precise::divide(v, 3.0f);\n"
        "    o[6 * i + 4] = metal::fast::sin(v);\n"
        "    o[6 * i + 5] = precise::sqrt(fabs(v));\n"
        "}\n";
    for (int fast = 0; fast < 2; fast++) {
        LangOptions opts = {0};
        opts.fast_math = fast;
        void *bufs[] = {x, o};
        size_t sizes[] = {N * 4, N * 24};
        run(src, &opts, bufs, sizes, 2, N);
        double worst_fast = 0;
        for (int i = 0; i < N; i++) {
            double v = x[i], e = exp(v);
            double ep = fabs(o[6 * i] - e) / ulp_f(e), ef = fabs(o[6 * i + 1] - e) / ulp_f(e);
            double ed = fabs(o[6 * i + 2] - e) / ulp_f(e);
            if (ep > 1.5)
                fail_msg("precise::exp(%a) with fast_math=%d: %.2f ulp", v, fast, ep);
            if (ef > 3 + floor(fabs(2 * v)))
                fail_msg("fast::exp(%a): %.2f ulp", v, ef);
            if (ed > (fast ? 3 + floor(fabs(2 * v)) : 1.5))
                fail_msg("exp(%a) with fast_math=%d: %.2f ulp", v, fast, ed);
            worst_fast = fmax(worst_fast, ef);
            assert_true(o[6 * i + 3] == (float)(v / 3.0)); /* correctly rounded */
            if (fabs(v) <= M_PI && fabs(o[6 * i + 4] - sin(v)) > 0x1p-13)
                fail_msg("fast::sin(%a): abs error %g", v, fabs(o[6 * i + 4] - sin(v)));
            assert_true(o[6 * i + 5] == sqrtf(fabsf(x[i])));
        }
        /* the prefixes really select different sequences */
        assert_true(worst_fast > 2.0);
    }
    free(x), free(o);
}

/* Both prefixes compile for half and vectors. */
static void test_prefixes_half_vector(void **state)
{
    (void)state;
    uint16_t in[4] = {0x3c00, 0x4000, 0x3800, 0x0000}, o[8] = {0};
    void *bufs[] = {in, o};
    size_t sizes[] = {sizeof in, sizeof o};
    run(HDR "kernel void k(device const half4 *v [[buffer(0)]], device half4 *o [[buffer(1)]],\n"
            "              uint i [[thread_position_in_grid]]) {\n"
            "    o[0] = fast::exp2(v[0]);\n"
            "    o[1] = precise::exp2(v[0]);\n"
            "}\n", NULL, bufs, sizes, 2, 1);
    static const uint16_t want[4] = {0x4000, 0x4400, 0x3da8, 0x3c00}; /* 2, 4, sqrt2, 1 */
    for (int i = 0; i < 4; i++) {
        assert_int_equal(o[i], want[i]);
        assert_int_equal(o[4 + i], want[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_half_ops_sweep),
        cmocka_unit_test(test_half_ops_rules),
        cmocka_unit_test(test_half_chain),
        cmocka_unit_test(test_half_literals_and_folding),
        cmocka_unit_test(test_mixed_half_float),
        cmocka_unit_test(test_float_ops_sweep),
        cmocka_unit_test(test_float_no_contraction),
        cmocka_unit_test(test_precise_fast_prefixes),
        cmocka_unit_test(test_prefixes_half_vector),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
