/*
 * test_math.c — pins the accuracy of the math builtins (lang/codegen_math.c) end to end:
 * each function is compiled from a one-line Metal kernel, run by the simulator over dense
 * sweeps of inputs (every bit-pattern region, a domain sweep, edge cases: ±0, subnormals,
 * ±inf, NaN, huge arguments, sin/cos next to multiples of pi/2) and compared with the C
 * library's double-precision functions. The measured maximum ULP error must stay within the
 * MSL spec's limits (chapter 7, Tables 28-30) for precise math, fast math and half, and
 * within the bound docs/numerics.md states for the current sequences.
 */
#define _GNU_SOURCE /* exp10 */
#include "../sim/sim_harness.h"

#include <float.h>

#include "../../lang/lang.h"
#include "../../util/fp.h"

#define MAXN (1u << 19)

typedef double (*Ref1)(double);
typedef double (*Ref2)(double, double);
/* fast-math limit depending on the input (exp: 3 + floor(2|x|) ulp) */
typedef double (*Limit)(double x, double y);

/* ---- compile and run ---------------------------------------------------------------------- */

/* Runs `o[i] = expr` over n inputs (raw bits: u32 for float, u16 for half); outputs raw bits. */
static void run_expr(const char *expr, bool half, bool fast, uint32_t *const in[3], uint32_t n,
                     uint32_t *out)
{
    const char *t = half ? "half" : "float";
    char src[1024];
    snprintf(src, sizeof src,
             "#include <metal_stdlib>\nusing namespace metal;\n"
             "kernel void k(device const %s *a [[buffer(0)]], device const %s *b [[buffer(1)]],\n"
             "              device const %s *c [[buffer(2)]], device %s *o [[buffer(3)]],\n"
             "              uint i [[thread_position_in_grid]]) {\n"
             "    o[i] = %s;\n}\n",
             t, t, t, t, expr);
    LangOptions opts = {0};
    opts.fast_math = fast;
    UtilError err = {{0}};
    IsaProgram *p = lang_compile_source(src, "math.metal", &opts, NULL, &err);
    if (!p)
        fail_msg("%s: compile failed: %s", expr, err.message);
    Harness h;
    memset(&h, 0, sizeof h);
    h.dev = mem_device_new();
    h.prog = p;
    unsigned esz = half ? 2 : 4;
    uint32_t out_arg = 0;
    for (uint32_t a = 0; a < p->num_args; a++) {
        int bnd = p->args[a].binding;
        assert_true(bnd >= 0 && bnd <= 3);
        uint8_t *buf = h_buffer(&h, a, bnd == 3 ? "o" : "in", (uint64_t)n * esz, MEM_SPACE_DEVICE);
        for (uint32_t i = 0; bnd < 3 && i < n; i++) {
            if (half)
                ((uint16_t *)buf)[i] = (uint16_t)in[bnd][i];
            else
                ((uint32_t *)buf)[i] = in[bnd][i];
        }
        if (bnd == 3)
            out_arg = a;
    }
    h.launch.instruction_budget = UINT64_MAX / 4;
    h_run1(&h, n, 256);
    h_expect_no_faults(&h);
    const uint8_t *o = h_data(&h, out_arg);
    for (uint32_t i = 0; i < n; i++)
        out[i] = half ? ((const uint16_t *)o)[i] : ((const uint32_t *)o)[i];
    h_free(&h);
}

/* ---- error measure ------------------------------------------------------------------------ */

static double ulp_of(double x, bool half)
{
    x = fabs(x);
    if (half)
        return x < 0x1p-14 ? 0x1p-24 : ldexp(1, ilogb(x) - 10);
    return x < 0x1p-126 ? 0x1p-149 : ldexp(1, ilogb(x) - 23);
}

/* ULP error of got against the exact ref; 1e9 for a wrong special (NaN, inf, sign of 0). */
static double ulp_err(double got, double ref, bool half)
{
    double top = half ? 65520.0 : 0x1.ffffffp127; /* rounds to inf from here */
    if (isnan(ref) || isnan(got))
        return isnan(ref) && isnan(got) ? 0 : 1e9;
    if (isinf(got))
        return signbit(got) == signbit(ref) && fabs(ref) >= top * (1 - 0x1p-20) ? 0 : 1e9;
    if (isinf(ref) || fabs(ref) >= top)
        return 1e9;
    if (got == 0 && ref == 0)
        return signbit(got) == signbit(ref) ? 0 : 1e9;
    return fabs(got - ref) / ulp_of(ref, half);
}

static double val(uint32_t bits, bool half)
{
    return half ? h_f16_value((uint16_t)bits) : (double)h_bitsf(bits);
}

static uint32_t enc(float f, bool half) { return half ? util_f32_to_f16(f) : h_fbits(f); }

/* ---- inputs ------------------------------------------------------------------------------- */

static uint32_t rng = 0x9e3779b9u;
static uint32_t rnd(void)
{
    rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5;
    return rng;
}
static float rndf(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() >> 8) * 0x1p-24f; }

static const float edge[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, INFINITY,
                             -INFINITY, NAN, 0x1p-149f, -0x1p-149f, 0x1.fffffcp-127f, 0x1p-126f,
                             0x1.fffffep127f, -0x1.fffffep127f, 88.72f, 88.7228f, 89.41f,
                             -87.3f, -103.9f, -104.0f, 89.0f, 38.53f, -45.1f, 3.14159265f,
                             1.5707964f, 1e10f, -1e10f, 1e30f, 0.625f, 0.41421354f, 2.4142137f,
                             1.0000001f, 0.99999994f, 1.4142135f, 0.70710677f, 65504.0f,
                             0x1p-24f, 6e-5f, 11.1f, -17.3f};
#define NEDGE (sizeof edge / sizeof edge[0])

/* Unary inputs: edges, a sweep over all bit patterns, a domain sweep, and (trig) the floats
 * next to multiples of pi/2. Halves: every pattern. */
static uint32_t unary_inputs(uint32_t *x, bool half, float lo, float hi, bool trig)
{
    uint32_t n = 0;
    if (half) {
        for (uint32_t i = 0; i < 65536; i++)
            x[n++] = i;
        return n;
    }
    for (uint32_t i = 0; i < NEDGE; i++)
        x[n++] = h_fbits(edge[i]);
    for (uint32_t i = 0; i < (1u << 18); i++)
        x[n++] = (i << 14) | (rnd() & 0x3fff);
    for (uint32_t i = 0; i < (1u << 17); i++)
        x[n++] = h_fbits(lo + (hi - lo) * (float)i / (float)(1u << 17)) + (rnd() & 3);
    if (trig)
        for (uint32_t k = 1; k < 20000; k++) {
            float c = (float)(k * 1.5707963267948966 * (k < 10000 ? 1 : 57));
            for (int d = -2; d <= 2; d++)
                x[n++] = h_fbits(c) + (uint32_t)d;
        }
    return n;
}

/* Binary inputs: edges x edges, random patterns, a domain box, and (pow) x near 1 with big y
 * and x spread over binades. */
static uint32_t binary_inputs(uint32_t *x, uint32_t *y, bool half, float lo, float hi, bool pow_like)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < NEDGE; i++)
        for (uint32_t j = 0; j < NEDGE; j++, n++)
            x[n] = enc(edge[i], half), y[n] = enc(edge[j], half);
    for (uint32_t i = 0; i < (1u << 18); i++, n++) {
        float a, b;
        switch (i % 4) {
        case 0:
            x[n] = half ? rnd() & 0xffff : rnd(), y[n] = half ? rnd() & 0xffff : rnd();
            continue;
        case 1:
            if (pow_like) {
                a = exp2f(rndf(half ? -20 : -140, half ? 15 : 127)) * (rnd() & 1 ? 1 : -1);
                b = exp2f(rndf(-8, 8)) * (rnd() & 1 ? 1 : -1);
                break;
            } /* fall through */
        case 2:
            if (pow_like) {
                a = 1.0f + (float)((int)(rnd() % 2001) - 1000) * (half ? 0x1p-10f : 0x1p-23f);
                b = (float)(int32_t)rnd() * (half ? 0x1p-27f : 0x1p-6f);
                break;
            } /* fall through */
        case 3:
            if (pow_like && !half) { /* results near 2^-126, where the error peaks */
                a = rndf(1.0f, 2.0f);
                b = -rndf(118.0f, 128.0f) / log2f(a);
                if (rnd() & 1)
                    b = truncf(b), a = -a; /* a negative base needs an integer exponent */
                break;
            } /* fall through */
        default:
            a = rndf(lo, hi), b = rndf(lo, hi);
            if (rnd() & 1)
                b = truncf(b);
            break;
        }
        x[n] = enc(a, half), y[n] = enc(b, half);
    }
    return n;
}

/* ---- checks ------------------------------------------------------------------------------- */

typedef struct Check {
    const char *name;
    Ref1 r1;
    Ref2 r2;
    float lo, hi;       /* domain sweep */
    double precise;     /* bound pinned for precise math (<= the spec's Table 28 limit) */
    double fast;        /* bound for fast math, when fast_limit is NULL */
    Limit fast_limit;
    double half;        /* bound for half (<= Table 30) */
    bool fast_pos_only; /* fast math is undefined for x <= 0 (pow: exp2(y * log2(x))) */
} Check;

static double worst_of(const Check *c, bool half, bool fast, uint32_t *const in[3], uint32_t n,
                       const uint32_t *out, double *wx, double *wy, double *wgot)
{
    double worst = 0, max_ulp = 0;
    for (uint32_t i = 0; i < n; i++) {
        double x = val(in[0][i], half), y = c->r2 ? val(in[1][i], half) : 0;
        if (fast && c->fast_pos_only && !(x > 0 && isfinite(x) && isfinite(y)))
            continue;
        if (fast && (isnan(x) || isinf(x) || isnan(y) || isinf(y)))
            continue; /* fast math: undefined for NaN and inf (7.1) */
        double ref = c->r2 ? c->r2(x, y) : c->r1(x);
        double got = val(out[i], half);
        double e = ulp_err(got, ref, half);
        double lim = half ? c->half : !fast ? c->precise
                     : c->fast_limit ? c->fast_limit(x, y) : c->fast;
        double rel = e / lim;
        max_ulp = fmax(max_ulp, e);
        if (rel > worst || e > 1e8) {
            worst = rel, *wx = x, *wy = y, *wgot = got;
            if (e > 1e8)
                break;
        }
    }
    if (getenv("MATH_REPORT")) /* the measured maxima docs/numerics.md quotes */
        print_message("%-9s %-7s max %.3f ulp\n", c->name, half ? "half" : fast ? "fast" : "precise",
                      max_ulp);
    return worst;
}

static uint32_t *bufs[4];

static void check(const Check *c)
{
    for (int cfg = 0; cfg < 3; cfg++) {
        bool half = cfg == 2, fast = cfg == 1;
        bool trig = !strcmp(c->name, "sin") || !strcmp(c->name, "cos") || !strcmp(c->name, "tan");
        uint32_t n = c->r2 ? binary_inputs(bufs[0], bufs[1], half, c->lo, c->hi, c->fast_pos_only)
                           : unary_inputs(bufs[0], half, c->lo, c->hi, trig);
        char expr[64];
        snprintf(expr, sizeof expr, c->r2 ? "%s(a[i], b[i])" : "%s(a[i])", c->name);
        uint32_t *in[3] = {bufs[0], bufs[1], bufs[1]};
        run_expr(expr, half, fast, in, n, bufs[3]);
        double wx = 0, wy = 0, wgot = 0;
        double w = worst_of(c, half, fast, in, n, bufs[3], &wx, &wy, &wgot);
        if (w > 1.0)
            fail_msg("%s (%s): error %.3g times the bound at x=%a y=%a: got %a, want %a", c->name,
                     half ? "half" : fast ? "fast" : "precise", w, wx, wy, wgot,
                     c->r2 ? c->r2(wx, wy) : c->r1(wx));
    }
}

/* ---- references --------------------------------------------------------------------------- */

static double r_exp10(double x) { return exp10(x); }
static double r_rsqrt(double x) { return 1 / sqrt(x); }
static double r_sign(double x) { return isnan(x) ? 0 : x > 0 ? 1 : x < 0 ? -1 : x; }
static double r_fract(double x) /* min(x - floor(x), largest float below 1) (MSL 5.5) */
{
    if (isinf(x))
        return copysign(0, x);
    double f = x - floor(x);
    return f > 0x1.fffffep-1 && (float)f >= 1.0f ? 0x1.fffffep-1 : f;
}
static double r_fract_h(double x)
{
    if (isinf(x))
        return copysign(0, x);
    double f = x - floor(x);
    return f > 0x1.ffcp-1 && h_f16_value(h_d2h(f)) >= 1.0 ? 0x1.ffcp-1 : f;
}
static double r_powr(double x, double y) /* OpenCL powr special cases */
{
    if (isnan(x) || isnan(y) || x < 0)
        return NAN;
    if (x == 0)
        x = 0;
    if ((x == 0 && y == 0) || (isinf(x) && y == 0) || (x == 1 && isinf(y)))
        return NAN;
    return pow(x, y);
}

/* acosh .. cbrt, sinpi, cospi, tanpi: long double libm; the pi functions reduce exactly
 * first and give the exact zeros and poles (C23 / OpenCL signs) themselves. */
static double r_acosh(double x) { return (double)acoshl(x); }
static double r_asinh(double x) { return (double)asinhl(x); }
static double r_atanh(double x) { return (double)atanhl(x); }
static double r_cbrt(double x) { return (double)cbrtl(x); }
#define PI_L 3.14159265358979323846264338327950288L
static double r_sinpi(double x)
{
    if (!isfinite(x))
        return NAN;
    long double y = fmodl(x, 2);
    return y == truncl(y) ? copysign(0, x) : (double)sinl(PI_L * y);
}
static double r_cospi(double x)
{
    if (!isfinite(x))
        return NAN;
    long double y = fmodl(fabsl(x), 2), h = y - 0.5L;
    return h == truncl(h) ? 0 : (double)cosl(PI_L * y);
}
static double r_tanpi(double x)
{
    if (!isfinite(x))
        return NAN;
    long double y = fmodl(x, 2), h = y - 0.5L;
    if (y == truncl(y))
        return y == 0 ? copysign(0, x) : copysign(0, -x);   /* even n: n/1, odd: n/-1 */
    if (h == truncl(h))
        return fmodl(floorl(x), 2) == 0 ? INFINITY : -INFINITY;
    return (double)(sinl(PI_L * y) / cosl(PI_L * y));
}

static double l_exp(double x, double y) { (void)y; return 3 + floor(fabs(2 * x)); }
static double l_exp10(double x, double y) { (void)y; return 3 + floor(fabs(2 * x * 3.3219280948873623)); }
static double l_pow(double x, double y) { return 3 + floor(fabs(2 * y * log2(x))); }
static double l_hyp(double x, double y) { (void)y; return 4 + floor(fabs(2 * x)); }
/* log, log2: absolute error 2^-21 / 2^-22 on [0.5, 2] (as ulps of the result), else 3 / 2 ulp */
static double l_log(double x, double y)
{
    (void)y;
    return x >= 0.5 && x <= 2 ? fmax(3, 0x1p-21 / ulp_of(log(x), false)) : 3;
}
static double l_log2(double x, double y)
{
    (void)y;
    return x >= 0.5 && x <= 2 ? fmax(2, 0x1p-22 / ulp_of(log2(x), false)) : 2;
}
/* sin, cos: absolute error 2^-13 on [-pi, pi]; we hold them to 4 ulp anyway */

static void setup_bufs(void)
{
    for (int i = 0; i < 4; i++)
        if (!bufs[i])
            bufs[i] = calloc(MAXN, 4);
}

#define CASE(fn_name, ...)                                                                      \
    static void test_##fn_name(void **state)                                                    \
    {                                                                                           \
        (void)state;                                                                            \
        setup_bufs();                                                                           \
        static const Check c = {#fn_name, __VA_ARGS__};                                         \
        check(&c);                                                                              \
    }

/*            ref      ref2  lo     hi    precise fast  fast_limit half */
CASE(exp,     exp,     NULL, -105,  90,   1.5,    0,    l_exp,     0.51)
CASE(exp2,    exp2,    NULL, -151,  129,  1.0,    0,    l_exp,     0.51)
CASE(exp10,   r_exp10, NULL, -46,   39,   1.5,    0,    l_exp10,   0.51)
CASE(log,     log,     NULL, 0,     4,    2.0,    0,    l_log,     0.51)
CASE(log2,    log2,    NULL, 0,     4,    1.0,    0,    l_log2,    0.51)
CASE(log10,   log10,   NULL, 0,     4,    2.5,    3,    NULL,      0.51)
CASE(sin,     sin,     NULL, -100,  100,  1.0,    1.0,  NULL,      0.51)
CASE(cos,     cos,     NULL, -100,  100,  1.0,    1.0,  NULL,      0.51)
CASE(tan,     tan,     NULL, -100,  100,  2.5,    3.0,  NULL,      0.51)
CASE(asin,    asin,    NULL, -1,    1,    2.5,    2.5,  NULL,      0.51)
CASE(acos,    acos,    NULL, -1,    1,    1.5,    1.5,  NULL,      0.51)
CASE(atan,    atan,    NULL, -10,   10,   2.5,    2.5,  NULL,      0.51)
CASE(sinh,    sinh,    NULL, -90,   90,   2.0,    0,    l_hyp,     0.51)
CASE(cosh,    cosh,    NULL, -90,   90,   1.5,    0,    l_hyp,     0.51)
CASE(tanh,    tanh,    NULL, -10,   10,   1.5,    2.0,  NULL,      0.51)
CASE(sqrt,    sqrt,    NULL, 0,     4,    0.5,    0.5,  NULL,      0.5)
CASE(rsqrt,   r_rsqrt, NULL, 0,     4,    0.5,    0.5,  NULL,      0.5)
CASE(round,   round,   NULL, -10,   10,   1e-9,   1e-9, NULL,      1e-9)
CASE(trunc,   trunc,   NULL, -10,   10,   1e-9,   1e-9, NULL,      1e-9)
CASE(floor,   floor,   NULL, -10,   10,   1e-9,   1e-9, NULL,      1e-9)
CASE(ceil,    ceil,    NULL, -10,   10,   1e-9,   1e-9, NULL,      1e-9)
CASE(rint,    nearbyint, NULL, -10, 10,   1e-9,   1e-9, NULL,      1e-9)
CASE(fabs,    fabs,    NULL, -10,   10,   1e-9,   1e-9, NULL,      1e-9)
CASE(sign,    r_sign,  NULL, -10,   10,   1e-9,   1e-9, NULL,      1e-9)
CASE(pow,     NULL,    pow,  -20,   20,   7.0,    0,    l_pow,     0.6,  true)
CASE(powr,    NULL,    r_powr, -20, 20,   7.0,    0,    l_pow,     0.6,  true)
CASE(atan2,   NULL,    atan2, -10,  10,   3.0,    3.0,  NULL,      0.51)
CASE(fmod,    NULL,    fmod, -100,  100,  1e-9,   1e-9, NULL,      1e-9)
CASE(fdim,    NULL,    fdim, -100,  100,  0.5,    0.5,  NULL,      0.5)
CASE(copysign, NULL,   copysign, -100, 100, 1e-9, 1e-9, NULL,      1e-9)
CASE(fmin,    NULL,    fmin, -100,  100,  1e-9,   1e-9, NULL,      1e-9)
CASE(fmax,    NULL,    fmax, -100,  100,  1e-9,   1e-9, NULL,      1e-9)
/* fast math runs the precise sequences for these (Table 29 gives formulas, not bounds) */
CASE(acosh,   r_acosh, NULL, 1,     20,   2.5,    2.5,    NULL,      0.51)
CASE(asinh,   r_asinh, NULL, -20,   20,   2.0,    2.0,    NULL,      0.51)
CASE(atanh,   r_atanh, NULL, -1,    1,    2.0,    2.0,    NULL,      0.51)
CASE(cbrt,    r_cbrt,  NULL, -100,  100,  1.0,    1.0,    NULL,      0.51)
CASE(sinpi,   r_sinpi, NULL, -4,    4,    1.5,    1.5,    NULL,      0.51)
CASE(cospi,   r_cospi, NULL, -4,    4,    1.5,    1.5,    NULL,      0.51)
CASE(tanpi,   r_tanpi, NULL, -4,    4,    3.5,    3.5,    NULL,      0.51)

/* fract clamps below 1 in its own format, so half has its own reference. */
static void test_fract(void **state)
{
    (void)state;
    setup_bufs();
    const Check c32 = {"fract", r_fract, NULL, -10, 10, 0.5, 0.5, NULL, 0.5, false};
    const Check c16 = {"fract", r_fract_h, NULL, -10, 10, 0.5, 0.5, NULL, 0.5, false};
    for (int cfg = 0; cfg < 3; cfg++) {
        bool half = cfg == 2;
        const Check *c = half ? &c16 : &c32;
        uint32_t n = unary_inputs(bufs[0], half, c->lo, c->hi, false);
        uint32_t *in[3] = {bufs[0], bufs[0], bufs[0]};
        run_expr("fract(a[i])", half, cfg == 1, in, n, bufs[3]);
        double wx = 0, wy = 0, wgot = 0;
        double w = worst_of(c, half, cfg == 1, in, n, bufs[3], &wx, &wy, &wgot);
        if (w > 1.0)
            fail_msg("fract (%d): error at x=%a: got %a", cfg, wx, wgot);
    }
}

/* fma/mad round once (fmaf and the exact binary16 reference); clamp, mix, step, smoothstep,
 * saturate on exact cases. */
static void test_ternary(void **state)
{
    (void)state;
    setup_bufs();
    uint32_t n = 1u << 16;
    for (int cfg = 0; cfg < 3; cfg++) {
        bool half = cfg == 2;
        for (uint32_t i = 0; i < n; i++) {
            float a = rndf(-100, 100), b = rndf(-100, 100), c = rndf(-100, 100);
            if (i % 3 == 0)
                c = -a * b * (1 + rndf(-1e-3f, 1e-3f)); /* cancellation */
            bufs[0][i] = enc(a, half), bufs[1][i] = enc(b, half), bufs[2][i] = enc(c, half);
        }
        uint32_t *in[3] = {bufs[0], bufs[1], bufs[2]};
        const char *fns[] = {"fma(a[i], b[i], c[i])", "mad(a[i], b[i], c[i])"};
        for (int f = 0; f < 2; f++) {
            run_expr(fns[f], half, cfg == 1, in, n, bufs[3]);
            for (uint32_t i = 0; i < n; i++) {
                uint32_t want = half ? h_fma16_ref((uint16_t)in[0][i], (uint16_t)in[1][i], (uint16_t)in[2][i])
                                     : h_fbits(fmaf(h_bitsf(in[0][i]), h_bitsf(in[1][i]), h_bitsf(in[2][i])));
                if (bufs[3][i] != want)
                    fail_msg("%s cfg %d: %#x %#x %#x: got %#x want %#x", fns[f], cfg, in[0][i],
                             in[1][i], in[2][i], bufs[3][i], want);
            }
        }
    }
    /* exact small cases: values are dyadic with few bits, so every op is exact */
    static const float cases[][3] = {{0.25f, 1.0f, 0.5f}, {2.0f, -1.0f, 0.5f}, {-3.0f, 5.0f, 0.75f},
                                     {1.5f, 1.5f, 0.0f}, {0.0f, 4.0f, 0.125f}, {-2.0f, 2.0f, -3.0f},
                                     {-2.0f, 2.0f, 3.0f}, {0.0f, 1.0f, 0.5f}};
    enum { NC = sizeof cases / sizeof cases[0] };
    for (int cfg = 0; cfg < 2; cfg++) {
        bool half = cfg == 1;
        for (int i = 0; i < NC; i++)
            for (int k = 0; k < 3; k++)
                bufs[k][i] = enc(cases[i][k], half);
        uint32_t *in[3] = {bufs[0], bufs[1], bufs[2]};
        struct { const char *e; int kind; } fs[] = {{"clamp(c[i], a[i], b[i])", 0}, {"mix(a[i], b[i], c[i])", 1},
                                                    {"step(a[i], c[i])", 2}, {"smoothstep(a[i], b[i], c[i])", 3},
                                                    {"saturate(c[i])", 4}};
        for (int f = 0; f < 5; f++) {
            run_expr(fs[f].e, half, false, in, NC, bufs[3]);
            for (int i = 0; i < NC; i++) {
                double a = cases[i][0], b = cases[i][1], c = cases[i][2], want;
                switch (fs[f].kind) {
                case 0: want = fmin(fmax(c, a), b); break;
                case 1: want = a + (b - a) * c; break;
                case 2: want = c < a ? 0 : 1; break;
                case 3: {
                    double t = fmin(fmax((c - a) / (b - a), 0), 1);
                    want = t * t * (3 - 2 * t);
                    break;
                }
                default: want = fmin(fmax(c, 0), 1); break;
                }
                double got = val(bufs[3][i], half);
                if (fabs(got - want) > 1e-3 * fmax(1, fabs(want)))
                    fail_msg("%s (%s) case %d: got %g want %g", fs[f].e, half ? "half" : "float", i, got, want);
            }
        }
    }
}

/* divide: correctly rounded when precise; within 2.5 ulp with fast math. */
static void test_divide(void **state)
{
    (void)state;
    setup_bufs();
    uint32_t n = 1u << 17;
    for (int cfg = 0; cfg < 3; cfg++) {
        bool half = cfg == 2, fast = cfg == 1;
        for (uint32_t i = 0; i < n; i++)
            bufs[0][i] = enc(rndf(-1e6f, 1e6f), half), bufs[1][i] = enc(exp2f(rndf(-20, 20)) * (i & 1 ? 1 : -1), half);
        uint32_t *in[3] = {bufs[0], bufs[1], bufs[1]};
        run_expr(fast ? "fast::divide(a[i], b[i])" : "divide(a[i], b[i])", half, fast, in, n, bufs[3]);
        for (uint32_t i = 0; i < n; i++) {
            double e = ulp_err(val(bufs[3][i], half), val(in[0][i], half) / val(in[1][i], half), half);
            if (e > (fast ? 2.5 : 0.5))
                fail_msg("divide cfg %d: %a / %a: %g ulp", cfg, val(in[0][i], half), val(in[1][i], half), e);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exp),      cmocka_unit_test(test_exp2),  cmocka_unit_test(test_exp10),
        cmocka_unit_test(test_log),      cmocka_unit_test(test_log2),  cmocka_unit_test(test_log10),
        cmocka_unit_test(test_sin),      cmocka_unit_test(test_cos),   cmocka_unit_test(test_tan),
        cmocka_unit_test(test_asin),     cmocka_unit_test(test_acos),  cmocka_unit_test(test_atan),
        cmocka_unit_test(test_sinh),     cmocka_unit_test(test_cosh),  cmocka_unit_test(test_tanh),
        cmocka_unit_test(test_sqrt),     cmocka_unit_test(test_rsqrt), cmocka_unit_test(test_round),
        cmocka_unit_test(test_trunc),    cmocka_unit_test(test_floor), cmocka_unit_test(test_ceil),
        cmocka_unit_test(test_rint),     cmocka_unit_test(test_fabs),  cmocka_unit_test(test_sign),
        cmocka_unit_test(test_pow),      cmocka_unit_test(test_powr),  cmocka_unit_test(test_atan2),
        cmocka_unit_test(test_fmod),     cmocka_unit_test(test_fdim),  cmocka_unit_test(test_copysign),
        cmocka_unit_test(test_fmin),     cmocka_unit_test(test_fmax),  cmocka_unit_test(test_fract),
        cmocka_unit_test(test_ternary),  cmocka_unit_test(test_divide),
        cmocka_unit_test(test_acosh),    cmocka_unit_test(test_asinh), cmocka_unit_test(test_atanh),
        cmocka_unit_test(test_cbrt),     cmocka_unit_test(test_sinpi), cmocka_unit_test(test_cospi),
        cmocka_unit_test(test_tanpi),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
