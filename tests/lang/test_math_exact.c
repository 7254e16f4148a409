/*
 * test_math_exact.c — the math builtins whose results are exact or nearly so and the ones
 * with a second result: frexp, modf and sincos (through a reference argument), ldexp, logb,
 * ilogb, nextafter, fmin3/fmax3/fmedian3 and min3/max3/median3 (floats and integers),
 * isnormal, isordered and isunordered. Each runs on the simulator over edge cases, random
 * bit patterns (every pattern for half) and vector forms, against the C library with long
 * double (frexpl, modfl, ldexpl, logbl, ilogb, nextafterf, sinl, cosl, fminl ...) or, for
 * half, against values derived from the binary16 format itself (its sorted list of values
 * for nextafter, its smallest normal for isnormal). test_math.c measures the approximations.
 */
#include "numerics_harness.h"

#include <float.h>

#include "../../util/fp.h"

static uint32_t rng = 0x2545f491u;
static uint32_t rnd(void)
{
    rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5;
    return rng;
}

static const float edge[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 1.5f, -2.5f, 3.0f, INFINITY,
                             -INFINITY, NAN, 0x1p-149f, -0x1p-149f, 0x1.fffffcp-127f, 0x1p-126f,
                             -0x1p-126f, 0x1.fffffep127f, -0x1.fffffep127f, 1e10f, -1e-10f,
                             65504.0f, 0x1p-24f, 0x1p-14f, 6e-5f, 0x1.8p23f, 0x1p24f, 2.75f};
#define NEDGE (sizeof edge / sizeof edge[0])

/* Raw inputs: half patterns (all of them) or float patterns (edges, then random). */
static uint32_t pattern(uint32_t i, bool half)
{
    if (half)
        return i & 0xffff;
    return i < NEDGE ? h_fbits(edge[i]) : rnd();
}

static double val(uint32_t bits, bool half)
{
    return half ? h_f16_value((uint16_t)bits) : (double)h_bitsf(bits);
}

/* The raw bits of a value that the format holds exactly. */
static uint32_t enc(long double v, bool half)
{
    if (half && fabsl(v) < 0x1p-26L) /* rounds to zero (and h_d2h wants exponents in range) */
        return signbit(v) ? 0x8000 : 0;
    return half ? h_d2h((double)v) : h_fbits((float)v);
}

static bool same(uint32_t got, uint32_t want, bool half)
{
    if (isnan(val(want, half)))
        return isnan(val(got, half));
    return got == want;
}

/* ---- binary16's own neighbours ------------------------------------------------------------- */

static double h16_sorted[65536];
static int h16_count;

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* nextafter on binary16 from the sorted list of its values (-0 and +0 both 0) */
static double next16(double x, double y)
{
    if (!h16_count) {
        for (uint32_t i = 0; i < 65536; i++)
            if (!h_f16_is_nan((uint16_t)i) && i != 0x8000)
                h16_sorted[h16_count++] = h_f16_value((uint16_t)i);
        qsort(h16_sorted, (size_t)h16_count, sizeof h16_sorted[0], cmp_d);
    }
    if (isnan(x) || isnan(y))
        return NAN;
    if (x == y)
        return y;
    if (x == 0)
        return y > 0 ? 0x1p-24 : -0x1p-24;
    int lo = 0, hi = h16_count - 1;
    while (h16_sorted[lo] != x) { /* binary search; x is in the list */
        int mid = (lo + hi) / 2;
        if (h16_sorted[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
        if (lo == hi)
            break;
    }
    double r = h16_sorted[y > x ? lo + 1 : lo - 1];
    return r == 0 ? copysign(0, x) : r;
}

/* ---- unary and binary functions ------------------------------------------------------------- */

enum { N = 1 << 16, NO = 8, NI = 3 };

static uint32_t in_a[N], in_b[N], out_f[N * NO];
static int32_t in_k[N], out_i[N * NI];

static double ulp_of(double x, bool half)
{
    x = fabs(x);
    if (half)
        return x < 0x1p-14 ? 0x1p-24 : ldexp(1, ilogb(x) - 10);
    return x < 0x1p-126 ? 0x1p-149 : ldexp(1, ilogb(x) - 23);
}

static void check_scalar(bool half)
{
    const char *t = half ? "half" : "float";
    char src[2048];
    snprintf(src, sizeof src, HDR
             "kernel void k(device const %s *a [[buffer(0)]], device const %s *b [[buffer(1)]],\n"
             "              device const int *kk [[buffer(2)]], device %s *o [[buffer(3)]],\n"
             "              device int *oi [[buffer(4)]], uint i [[thread_position_in_grid]]) {\n"
             "    %s x = a[i], y = b[i], ip, c;\n"
             "    int e;\n"
             "    o[i * 8 + 0] = frexp(x, e); oi[i * 3 + 0] = e;\n"
             "    o[i * 8 + 1] = modf(x, ip); o[i * 8 + 2] = ip;\n"
             "    o[i * 8 + 3] = sincos(x, c); o[i * 8 + 4] = c;\n"
             "    o[i * 8 + 5] = ldexp(x, kk[i]);\n"
             "    o[i * 8 + 6] = logb(x);\n"
             "    o[i * 8 + 7] = nextafter(x, y);\n"
             "    oi[i * 3 + 1] = ilogb(x);\n"
             "    oi[i * 3 + 2] = int(isnormal(x)) | int(isordered(x, y)) << 1 |\n"
             "                    int(isunordered(x, y)) << 2 | int(isinf(x)) << 3 |\n"
             "                    int(isfinite(x)) << 4;\n"
             "}\n", t, t, t, t);
    uint16_t h_in[2][N], h_out[N * NO];
    for (uint32_t i = 0; i < N; i++) {
        in_a[i] = pattern(i, half);
        in_b[i] = i % 7 == 0 ? in_a[i] : i % 7 == 1 ? pattern(rnd(), half) : pattern(i ^ 1, half);
        if (i % 11 == 3)
            in_b[i] = enc(-val(in_a[i], half), half);
        int32_t kr = (int32_t)(rnd() % 601) - 300;
        in_k[i] = i % 13 == 0 ? (int32_t)rnd() : i % 13 == 1 ? (int32_t)(rnd() % 61) - 30 : kr;
        h_in[0][i] = (uint16_t)in_a[i], h_in[1][i] = (uint16_t)in_b[i];
    }
    void *bufs[] = {half ? (void *)h_in[0] : in_a, half ? (void *)h_in[1] : in_b, in_k,
                    half ? (void *)h_out : out_f, out_i};
    size_t esz = half ? 2 : 4;
    size_t sizes[] = {N * esz, N * esz, sizeof in_k, N * NO * esz, sizeof out_i};
    run(src, NULL, bufs, sizes, 5, N);
    double worst_sin = 0, worst_cos = 0;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t o[NO];
        for (int j = 0; j < NO; j++)
            o[j] = half ? h_out[i * NO + j] : out_f[i * NO + j];
        long double x = val(in_a[i], half), y = val(in_b[i], half);
        int e = 0;
        long double ip;
        uint32_t want[NO];
        want[0] = enc(isfinite(x) ? frexpl(x, &e) : x, half);
        want[1] = enc(modfl(x, &ip), half);
        want[2] = enc(ip, half);
        want[5] = enc(ldexpl(x, in_k[i]), half);
        want[6] = enc(logbl(x), half);
        want[7] = half ? enc(next16((double)x, (double)y), half)
                       : h_fbits(nextafterf((float)x, (float)y));
        int wi[NI] = {e, ilogbl(x),
                      (half ? isfinite(x) && fabsl(x) >= 0x1p-14L : isnormal((float)x)) |
                      !isunordered(x, y) << 1 | isunordered(x, y) << 2 | !!isinf(x) << 3 |
                      !!isfinite(x) << 4};
        static const char *const names[NO] = {"frexp", "modf", "modf's intval", "sin", "cos",
                                              "ldexp", "logb", "nextafter"};
        for (int j = 0; j < NO; j++) {
            if (j == 3 || j == 4)
                continue;
            if (!same(o[j], want[j], half))
                fail_msg("%s %s(%La, %La, k=%d): got %#x, want %#x", t, names[j], x, y,
                         in_k[i], o[j], want[j]);
        }
        for (int j = 0; j < NI; j++)
            if (out_i[i * NI + j] != wi[j])
                fail_msg("%s %s(%La, %La): got %d, want %d", t,
                         j == 0 ? "frexp's exponent" : j == 1 ? "ilogb" : "the relational bits",
                         x, y, out_i[i * NI + j], wi[j]);
        /* sincos: sin and cos to the accuracy test_math pins for them (1 ulp; half 0.51) */
        if (isfinite(x)) {
            long double s = sinl(x), c = cosl(x);
            worst_sin = fmax(worst_sin, fabs(val(o[3], half) - (double)s) / ulp_of((double)s, half));
            worst_cos = fmax(worst_cos, fabs(val(o[4], half) - (double)c) / ulp_of((double)c, half));
        } else if (!isnan(val(o[3], half)) || !isnan(val(o[4], half))) {
            fail_msg("%s sincos(%La): got %a %a, want NaN", t, x, val(o[3], half), val(o[4], half));
        }
    }
    if (getenv("MATH_REPORT"))
        print_message("sincos %s: sin max %.3f ulp, cos max %.3f ulp\n", t, worst_sin, worst_cos);
    if (worst_sin > (half ? 0.51 : 1.0) || worst_cos > (half ? 0.51 : 1.0))
        fail_msg("sincos %s: %g / %g ulp", t, worst_sin, worst_cos);
}

static void test_float(void **state)
{
    (void)state;
    check_scalar(false);
}

static void test_half(void **state)
{
    (void)state;
    check_scalar(true);
}

/* ---- three-argument min, max and median ----------------------------------------------------- */

static long double med3(long double a, long double b, long double c) /* MSL's composition */
{
    return fmaxl(fminl(a, b), fminl(fmaxl(a, b), c));
}

static void test_three(void **state)
{
    (void)state;
    enum { M = 4096 };
    static float fa[3][M], fo[M * 6];
    for (uint32_t i = 0; i < M; i++)
        for (int j = 0; j < 3; j++)
            fa[j][i] = i < NEDGE * 3 ? edge[(i + (uint32_t)j * 5) % NEDGE] : h_bitsf(rnd());
    void *bufs[] = {fa[0], fa[1], fa[2], fo};
    size_t sizes[] = {sizeof fa[0], sizeof fa[1], sizeof fa[2], sizeof fo};
    run(HDR "kernel void k(device const float *a [[buffer(0)]], device const float *b [[buffer(1)]],\n"
            "  device const float *c [[buffer(2)]], device float *o [[buffer(3)]],\n"
            "  uint i [[thread_position_in_grid]]) {\n"
            "    o[i * 6 + 0] = fmin3(a[i], b[i], c[i]); o[i * 6 + 1] = fmax3(a[i], b[i], c[i]);\n"
            "    o[i * 6 + 2] = fmedian3(a[i], b[i], c[i]); o[i * 6 + 3] = min3(a[i], b[i], c[i]);\n"
            "    o[i * 6 + 4] = max3(a[i], b[i], c[i]); o[i * 6 + 5] = median3(a[i], b[i], c[i]);\n"
            "}\n", NULL, bufs, sizes, 4, M);
    for (uint32_t i = 0; i < M; i++) {
        long double a = fa[0][i], b = fa[1][i], c = fa[2][i];
        long double want[3] = {fminl(fminl(a, b), c), fmaxl(fmaxl(a, b), c), med3(a, b, c)};
        for (int j = 0; j < 6; j++) {
            uint32_t g = h_fbits(fo[i * 6 + j]), w = h_fbits((float)want[j % 3]);
            /* fmin/fmax of ±0 may give either zero */
            if (!same(g, w, false) && !(fo[i * 6 + j] == 0 && want[j % 3] == 0))
                fail_msg("3-argument function %d (%a, %a, %a): got %a want %a", j, fa[0][i],
                         fa[1][i], fa[2][i], fo[i * 6 + j], (double)want[j % 3]);
        }
    }
    /* integers: int, uint, short, long (and a vector of each) */
    static const int64_t iv[][3] = {{1, 2, 3}, {3, 2, 1}, {2, 3, 1}, {-5, 7, 0}, {7, 7, -7},
                                    {INT32_MIN, INT32_MAX, 0}, {-1, -2, -3}, {100, -100, 50}};
    enum { NI3 = sizeof iv / sizeof iv[0] };
    int32_t ia[3][NI3];
    int64_t la[3][NI3];
    int32_t io[NI3 * 8];
    int64_t lo[NI3 * 3];
    for (int i = 0; i < NI3; i++)
        for (int j = 0; j < 3; j++)
            ia[j][i] = (int32_t)iv[i][j], la[j][i] = iv[i][j] * 3000000000LL;
    void *ib[] = {ia[0], ia[1], ia[2], io, la[0], la[1], la[2], lo};
    size_t is[] = {sizeof ia[0], sizeof ia[1], sizeof ia[2], sizeof io,
                   sizeof la[0], sizeof la[1], sizeof la[2], sizeof lo};
    run(HDR "kernel void k(device const int *a [[buffer(0)]], device const int *b [[buffer(1)]],\n"
            "  device const int *c [[buffer(2)]], device int *o [[buffer(3)]],\n"
            "  device const long *la [[buffer(4)]], device const long *lb [[buffer(5)]],\n"
            "  device const long *lc [[buffer(6)]], device long *lo [[buffer(7)]],\n"
            "  uint i [[thread_position_in_grid]]) {\n"
            "    o[i * 8 + 0] = min3(a[i], b[i], c[i]); o[i * 8 + 1] = max3(a[i], b[i], c[i]);\n"
            "    o[i * 8 + 2] = median3(a[i], b[i], c[i]);\n"
            "    o[i * 8 + 3] = int(median3(uint(a[i]), uint(b[i]), uint(c[i])));\n"
            "    o[i * 8 + 4] = median3(short(a[i]), short(b[i]), short(c[i]));\n"
            "    int3 v = median3(int3(a[i], b[i], c[i]), int3(b[i], c[i], a[i]), int3(c[i]));\n"
            "    o[i * 8 + 5] = v.x; o[i * 8 + 6] = v.y; o[i * 8 + 7] = v.z;\n"
            "    lo[i * 3 + 0] = min3(la[i], lb[i], lc[i]); lo[i * 3 + 1] = max3(la[i], lb[i], lc[i]);\n"
            "    lo[i * 3 + 2] = median3(la[i], lb[i], lc[i]);\n"
            "}\n", NULL, ib, is, 8, NI3);
    for (int i = 0; i < NI3; i++) {
        int64_t a = iv[i][0], b = iv[i][1], c = iv[i][2];
        int64_t mn = a < b ? a : b, mx = a < b ? b : a;
        int64_t want_med = mx < c ? mx : c > mn ? c : mn;
        uint32_t ua = (uint32_t)a, ub = (uint32_t)b, uc = (uint32_t)c;
        uint32_t umn = ua < ub ? ua : ub, umx = ua < ub ? ub : ua;
        uint32_t umed = umx < uc ? umx : uc > umn ? uc : umn;
        int16_t sa = (int16_t)a, sb = (int16_t)b, sc = (int16_t)c;
        int16_t smn = sa < sb ? sa : sb, smx = sa < sb ? sb : sa;
        int16_t smed = smx < sc ? smx : sc > smn ? sc : smn;
        int64_t want[8] = {mn < c ? mn : c, mx > c ? mx : c, want_med, (int32_t)umed, smed,
                           want_med, (int64_t)med3((long double)b, (long double)c, (long double)c),
                           (int64_t)med3((long double)c, (long double)a, (long double)c)};
        for (int j = 0; j < 8; j++)
            if (io[i * 8 + j] != want[j])
                fail_msg("integer case %d, function %d: got %d want %lld", i, j, io[i * 8 + j],
                         (long long)want[j]);
        for (int j = 0; j < 3; j++)
            if (lo[i * 3 + j] != want[j] * 3000000000LL)
                fail_msg("long case %d, function %d: got %lld", i, j, (long long)lo[i * 3 + j]);
    }
}

/* ---- vector forms, and the reference argument as a swizzle, an element and threadgroup ------ */

static void test_vectors(void **state)
{
    (void)state;
    float x[4] = {12.5f, -0.375f, 0x1p-140f, -3.0f};
    float o[32];
    int32_t oi[16];
    void *bufs[] = {x, o, oi};
    size_t sizes[] = {sizeof x, sizeof o, sizeof oi};
    run(HDR "kernel void k(device const float4 *x [[buffer(0)]], device float4 *o [[buffer(1)]],\n"
            "  device int4 *oi [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
            "    threadgroup float4 tg[1];\n"
            "    float4 v = x[0], c, ip;\n"
            "    int4 e;\n"
            "    o[0] = frexp(v, e); oi[0] = e;\n"
            "    o[1] = sincos(v, c); o[2] = c;\n"
            "    o[3] = modf(v, ip); o[4] = ip;\n"
            "    o[5] = ldexp(v, int4(1, 2, 140, -2)); oi[1] = ilogb(v);\n"
            "    float2 s2; half2 h2 = half2(v.xy); half2 hc;\n"
            "    s2.y = sincos(v.x, s2.x); o[6] = float4(s2, float2(sincos(h2, hc)));\n"
            "    oi[2] = int4(isnormal(v)); oi[3] = int4(isunordered(v, float4(NAN, 1, 2, 3)));\n"
            "    modf(v, tg[0]); o[7] = tg[0] + float4(hc.x, 0, 0, 0) - float4(cos(half(12.5f)), 0, 0, 0);\n"
            "}\n", NULL, bufs, sizes, 3, 1);
    for (int j = 0; j < 4; j++) {
        long double v = x[j], ip;
        int e;
        long double m = frexpl(v, &e);
        assert_true(o[0 * 4 + j] == (float)m && oi[0 * 4 + j] == e);
        assert_true(fabsl(o[1 * 4 + j] - sinl(v)) <= 0x1p-23L * fmaxl(fabsl(sinl(v)), 0x1p-126L));
        assert_true(fabsl(o[2 * 4 + j] - cosl(v)) <= 0x1p-23L);
        long double f = modfl(v, &ip);
        assert_true(o[3 * 4 + j] == (float)f && signbit(o[3 * 4 + j]) == signbit((float)f));
        assert_true(o[4 * 4 + j] == (float)ip && o[7 * 4 + j] == (float)ip);
        static const int k[4] = {1, 2, 140, -2};
        assert_true(o[5 * 4 + j] == (float)ldexpl(v, k[j]));
        assert_int_equal(oi[1 * 4 + j], ilogbl(v));
        assert_int_equal(oi[2 * 4 + j], isnormal(x[j]) ? 1 : 0);
        assert_int_equal(oi[3 * 4 + j], j == 0 ? 1 : 0);
    }
    assert_true(fabsl(o[24] - cosl(12.5L)) <= 0x1p-23L && fabsl(o[25] - sinl(12.5L)) <= 0x1p-22L);
    assert_true(fabs(o[26] - sin(h_f16_value(h_d2h(12.5)))) <= 0x1p-11);
}

/* ---- diagnostics -------------------------------------------------------------------------- */

static void expect_error(const char *body, const char *msg)
{
    char src[1024];
    snprintf(src, sizeof src, HDR "kernel void k(device float *o [[buffer(0)]]) {\n%s\n}\n", body);
    UtilError err = {{0}};
    IsaProgram *p = lang_compile_source(src, "bad.metal", NULL, NULL, &err);
    if (p || !strstr(err.message, msg))
        fail_msg("%s: want an error with '%s', got '%s'", body, msg, p ? "(compiled)" : err.message);
}

static void test_diagnostics(void **state)
{
    (void)state;
    expect_error("float c; o[0] = sincos(o[1], 2.0f);", "writes its second result to a variable");
    expect_error("half c; o[0] = sincos(o[1], c);", "of type 'float', not to 'half'");
    expect_error("float e; o[0] = frexp(o[1], e);", "of type 'int', not to 'float'");
    expect_error("const float c = 1; o[0] = modf(o[1], c);", "cannot write its second result");
    expect_error("o[0] = fmin3(o[1], o[2]);", "too few arguments to 'fmin3'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float),   cmocka_unit_test(test_half),
        cmocka_unit_test(test_three),   cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_diagnostics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
