/*
 * seed_ref.c — independent CPU reference for the seed Metal kernels (../shared/kernels/seed/)
 * that the manifests in tests/seed/ run: for each it computes what the kernel computes, from a reading
 * of the kernel's source, and writes the expected outputs (and the inputs a manifest reads
 * from a file) as .npy files into the directory named on the command line.
 *
 * It links nothing from lockstep on purpose: its .npy writer, SplitMix64 (the manifest's
 * `random` and `normal` inits, docs/manifest.md; both in ref_common.h) and binary16 rounding
 * are written from their definitions, so a bug in the simulator, the compiler or the manifest
 * loader cannot leak into the expected values.
 *
 *   cc -std=c11 -O1 -ffp-contract=off tests/ref/seed_ref.c -lm -o /tmp/seed_ref && /tmp/seed_ref tests/seed/data
 *
 * Float arithmetic is done in C float (FLT_EVAL_METHOD 0, no contraction) where the kernel
 * computes in float, and per operation in binary16 where it computes in half. Where a kernel's
 * result legitimately depends on choices the language leaves open (reduction order inside
 * simd_sum, fused multiply-add, the accuracy of exp/pow/sin), the generator also computes the
 * plausible alternatives and stops with an error if they differ from the expected values by
 * more than the tolerance the manifest allows: a tolerance too tight to hold is caught here,
 * not by a flaky test. tests/seed/test_seed.c reruns this program and requires its output to
 * be byte-identical to the committed files.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REF_TOOL "seed_ref"
#include "ref_common.h"

/* ---- the manifest's init forms ------------------------------------------------------------ */

/* init {random: {seed, min, max}} for a float type, one value per scalar, as a double. */
static void random_doubles(uint64_t seed, double min, double max, double *out, size_t n)
{
    sm_state = seed;
    for (size_t i = 0; i < n; i++)
        out[i] = min + (max - min) * ((double)(sm_next() >> 11) * 0x1p-53);
}

/* init {normal: {seed, mean, std}}: Box-Muller, the second value unused. */
static void normal_doubles(uint64_t seed, double mean, double std, double *out, size_t n)
{
    sm_state = seed;
    for (size_t i = 0; i < n; i++) {
        double u1 = (double)((sm_next() >> 11) + 1) * 0x1p-53;
        double u2 = (double)(sm_next() >> 11) * 0x1p-53;
        out[i] = mean + std * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    }
}

/* init {random: {seed, min, max}} for uint. */
static void random_u32(uint64_t seed, uint64_t min, uint64_t max, uint32_t *out, size_t n)
{
    sm_state = seed;
    for (size_t i = 0; i < n; i++)
        out[i] = (uint32_t)(min + sm_next() % (max - min + 1));
}

/* ---- binary16 ------------------------------------------------------------------------------ */

static double h2d(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double v;
    if (exp == 0x1f)
        v = mant ? NAN : INFINITY;
    else if (exp == 0)
        v = ldexp(mant, -24);
    else
        v = ldexp(mant + 1024, exp - 25);
    return sign ? -v : v;
}

/* The double x rounded to binary16, to nearest, ties to even. */
static uint16_t d2h(double x)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    if (isnan(x))
        return 0x7e00;
    double a = fabs(x);
    if (a == 0)
        return sign;
    if (isinf(a))
        return sign | 0x7c00;
    int e;
    frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    int ulp_exp = e - 11;
    if (ulp_exp < -24)
        ulp_exp = -24; /* subnormals: a fixed spacing of 2^-24 */
    double q = ldexp(a, -ulp_exp), fl = floor(q), frac = q - fl;
    if (frac > 0.5 || (frac == 0.5 && fmod(fl, 2.0) != 0))
        fl += 1;
    double r = ldexp(fl, ulp_exp);
    if (r > 65504.0)
        return sign | 0x7c00;
    if (r < 0x1p-14)
        return sign | (uint16_t)ldexp(r, 24);
    frexp(r, &e);
    return sign | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)(ldexp(r, 11 - e) - 1024.0);
}

/* Half arithmetic: the exact result of +, *, / of two halves rounded once. Computing it in
 * double first is exact for + and * and, for /, double rounding is harmless because
 * 53 >= 2 * 11 + 2. */
static uint16_t h_add(uint16_t a, uint16_t b) { return d2h(h2d(a) + h2d(b)); }
static uint16_t h_mul(uint16_t a, uint16_t b) { return d2h(h2d(a) * h2d(b)); }
static uint16_t h_div(uint16_t a, uint16_t b) { return d2h(h2d(a) / h2d(b)); }
/* a * b + c rounded once, near enough for checking a tolerance: the product is exact in
 * double and the sum is exact unless the operands' exponents are ~30 binades apart. */
static uint16_t h_fma(uint16_t a, uint16_t b, uint16_t c) { return d2h(h2d(a) * h2d(b) + h2d(c)); }

static void halves_from(const double *v, uint16_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = d2h(v[i]);
}

static void floats_from(const double *v, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (float)v[i];
}

/* ---- add_arrays: c[id] = a[id] + b[id] ----------------------------------------------------- */

static void gen_add_arrays(void)
{
    enum { N = 1000 };
    static double tmp[N];
    static float a[N], b[N], c[N];
    random_doubles(11, -10, 10, tmp, N);
    floats_from(tmp, a, N);
    normal_doubles(12, 0, 3, tmp, N);
    floats_from(tmp, b, N);
    for (int i = 0; i < N; i++)
        c[i] = a[i] + b[i];
    write_f32("add_arrays.c.npy", c, N);
}

/* ---- dot_product_fp16: result[id] = dot(a[id], b[id]) over half4, computed in half --------- */

enum { DOT_N = 256 };
#define DOT_ATOL 4e-3

static void gen_dot_product_fp16(void)
{
    static double tmp[DOT_N * 4];
    static uint16_t a[DOT_N * 4], b[DOT_N * 4], r[DOT_N];
    random_doubles(21, -1, 1, tmp, DOT_N * 4);
    halves_from(tmp, a, DOT_N * 4);
    random_doubles(22, -1, 1, tmp, DOT_N * 4);
    halves_from(tmp, b, DOT_N * 4);
    for (int i = 0; i < DOT_N; i++) {
        const uint16_t *x = a + 4 * i, *y = b + 4 * i;
        /* x.x*y.x + x.y*y.y + x.z*y.z + x.w*y.w, left to right, every op rounded to half. */
        uint16_t s = h_mul(x[0], y[0]);
        for (int k = 1; k < 4; k++)
            s = h_add(s, h_mul(x[k], y[k]));
        r[i] = s;
        /* Allowed too: a chain of fused multiply-adds, a pairwise tree, or one rounding of
         * the exact sum (the sum of four exact products, in double). */
        uint16_t f = h_mul(x[0], y[0]);
        for (int k = 1; k < 4; k++)
            f = h_fma(x[k], y[k], f);
        uint16_t t = h_add(h_add(h_mul(x[0], y[0]), h_mul(x[1], y[1])),
                           h_add(h_mul(x[2], y[2]), h_mul(x[3], y[3])));
        double exact = 0;
        for (int k = 0; k < 4; k++)
            exact += h2d(x[k]) * h2d(y[k]);
        check_tolerance("dot_product_fp16 (fma chain)", (size_t)i, h2d(s), h2d(f), 0, DOT_ATOL);
        check_tolerance("dot_product_fp16 (tree)", (size_t)i, h2d(s), h2d(t), 0, DOT_ATOL);
        check_tolerance("dot_product_fp16 (exact)", (size_t)i, h2d(s), h2d(d2h(exact)), 0, DOT_ATOL);
    }
    write_f16("dot_product_fp16.result.npy", r, DOT_N);
}

/* ---- gemv_mixed_precision: y[row] = sum_k float(W[row][k]) * float(x[k]) ------------------- */

static void gen_gemv_mixed_precision(void)
{
    enum { ROWS = 64, K = 256 };
    static double tmp[ROWS * K];
    static uint16_t w[ROWS * K], x[K];
    static float y[ROWS];
    random_doubles(31, -1, 1, tmp, ROWS * K);
    halves_from(tmp, w, ROWS * K);
    random_doubles(32, -1, 1, tmp, K);
    halves_from(tmp, x, K);
    for (int row = 0; row < ROWS; row++) {
        float sum = 0.0f;
        /* The product of two halves (11-bit significands) is exact in float, so a fused
         * multiply-add rounds exactly as mul-then-add: the loop's order fixes every bit. */
        for (int k = 0; k < K; k++)
            sum += (float)h2d(w[row * K + k]) * (float)h2d(x[k]);
        y[row] = sum;
    }
    write_f32("gemv_mixed_precision.y.npy", y, ROWS);
}

/* ---- reduction_with_shared: tree reduction in threadgroup memory, one sum per group -------- */

static void gen_reduction_with_shared(void)
{
    enum { GROUPS = 16, TG = 256 };
    static double tmp[GROUPS * TG];
    static float in[GROUPS * TG];
    float out[GROUPS];
    random_doubles(41, -1, 1, tmp, GROUPS * TG);
    floats_from(tmp, in, GROUPS * TG);
    for (int g = 0; g < GROUPS; g++) {
        float shared[TG];
        memcpy(shared, in + g * TG, sizeof shared);
        /* The kernel fixes the order: at each stride, slot lid adds slot lid + stride. */
        for (int stride = TG / 2; stride > 0; stride /= 2)
            for (int lid = 0; lid < stride; lid++)
                shared[lid] += shared[lid + stride];
        out[g] = shared[0];
    }
    write_f32("reduction_with_shared.output.npy", out, GROUPS);
}

/* ---- rmsnorm: one row of N halves, scale = rsqrt(mean(x^2) + eps), out = x * scale * w ---- */

#define RMS_RTOL 2e-3
#define RMS_ATOL 1e-6

static void gen_rmsnorm(void)
{
    enum { N = 1000 };
    static double tmp[N];
    static uint16_t in[N], w[N], out[N];
    normal_doubles(51, 0, 1, tmp, N);
    halves_from(tmp, in, N);
    random_doubles(52, 0.5, 1.5, tmp, N);
    halves_from(tmp, w, N);
    const float eps = (float)1e-5;
    /* The sum of squares: each square is exact in float; the kernel's order (per thread, then
     * simd_sum, then across SIMD-groups) is left to the simulator, so sum exactly here. */
    double total = 0;
    for (int i = 0; i < N; i++)
        total += h2d(in[i]) * h2d(in[i]);
    float q = (float)total / (float)N + eps;
    float scale = (float)(1.0 / sqrt((double)q));
    /* The kernel's own order: per-thread float sums (thread t takes t, t+256, ...), its float
     * partials added in a different order; used to check that the tolerance covers it. */
    float partial[256] = {0}, alt_total = 0;
    for (int i = 0; i < N; i++)
        partial[i % 256] += (float)h2d(in[i]) * (float)h2d(in[i]);
    for (int t = 255; t >= 0; t--)
        alt_total += partial[t];
    float alt_scale = 1.0f / sqrtf(alt_total / (float)N + eps);
    for (int i = 0; i < N; i++) {
        float val = (float)h2d(in[i]);
        out[i] = d2h(val * scale * (float)h2d(w[i]));
        uint16_t alt = d2h(val * alt_scale * (float)h2d(w[i]));
        check_tolerance("rmsnorm", (size_t)i, h2d(out[i]), h2d(alt), RMS_RTOL, RMS_ATOL);
    }
    write_f16("rmsnorm.output.npy", out, N);
}

/* ---- silu_activation: x / (1 + exp(-x)) over half4, in half ------------------------------- */

#define SILU_RTOL 4e-3
#define SILU_ATOL 1e-4

static void gen_silu_activation(void)
{
    enum { N = 1024 * 4 };
    static double tmp[N];
    static uint16_t x[N], out[N];
    random_doubles(61, -6, 6, tmp, N);
    halves_from(tmp, x, N);
    const uint16_t one = 0x3c00;
    for (int i = 0; i < N; i++) {
        /* half4(1.0h) / (half4(1.0h) + exp(-x)); x * sigmoid_x: each op rounded to half, exp
         * correctly rounded. */
        uint16_t e = d2h(exp(-h2d(x[i])));
        uint16_t sig = h_div(one, h_add(one, e));
        out[i] = h_mul(x[i], sig);
        /* Allowed: exp and the division done in float and rounded to half once at the end, or
         * exp off by an ulp (a float exp2 rounded to half), or division as x * rcp(d). */
        double fx = h2d(x[i]);
        uint16_t alt1 = d2h((float)(fx / (1.0f + expf(-(float)fx))));
        uint16_t e_up = (uint16_t)(e + 1), e_dn = (uint16_t)(e - 1);
        uint16_t alt2 = h_mul(x[i], h_div(one, h_add(one, e_up)));
        uint16_t alt3 = h_mul(x[i], h_div(one, h_add(one, e_dn)));
        uint16_t alt4 = h_mul(x[i], d2h(1.0 / h2d(h_add(one, e))));
        check_tolerance("silu (float)", (size_t)i, h2d(out[i]), h2d(alt1), SILU_RTOL, SILU_ATOL);
        check_tolerance("silu (exp+1ulp)", (size_t)i, h2d(out[i]), h2d(alt2), SILU_RTOL, SILU_ATOL);
        check_tolerance("silu (exp-1ulp)", (size_t)i, h2d(out[i]), h2d(alt3), SILU_RTOL, SILU_ATOL);
        check_tolerance("silu (rcp)", (size_t)i, h2d(out[i]), h2d(alt4), SILU_RTOL, SILU_ATOL);
    }
    write_f16("silu_activation.output.npy", out, N);
}

/* ---- rope: rotate each (d, d + HEAD_DIM/2) pair of q and k by seq_pos * base^(-2d/dim) ---- */

#define ROPE_RTOL 2e-3
#define ROPE_ATOL 2e-4

static void gen_rope(void)
{
    enum { HEAD_DIM = 64, HEADS = 8, N = HEAD_DIM * HEADS, SEQ_POS = 37 };
    const float base = 10000.0f;
    static double tmp[N];
    static uint16_t q[N], k[N], q_out[N], k_out[N];
    normal_doubles(71, 0, 1, tmp, N);
    halves_from(tmp, q, N);
    normal_doubles(72, 0, 1, tmp, N);
    halves_from(tmp, k, N);
    memcpy(q_out, q, sizeof q);
    memcpy(k_out, k, sizeof k);
    for (int tid = 0; tid < HEADS * HEAD_DIM / 2; tid++) {
        int d = tid % (HEAD_DIM / 2), head = tid / (HEAD_DIM / 2);
        float expo = (float)(2 * d) / (float)HEAD_DIM;
        float freq = 1.0f / (float)pow((double)base, (double)expo);
        float angle = (float)SEQ_POS * freq;
        float c = (float)cos((double)angle), s = (float)sin((double)angle);
        /* Allowed: pow as exp2(y * log2(x)) in float, a few ulps off; the angle moves by
         * SEQ_POS times that. */
        float alt_freq = 1.0f / exp2f(expo * log2f(base));
        float alt_angle = (float)SEQ_POS * alt_freq;
        float ac = cosf(alt_angle), as = sinf(alt_angle);
        int i0 = head * HEAD_DIM + d, i1 = i0 + HEAD_DIM / 2;
        uint16_t *src[2] = {q, k}, *dst[2] = {q_out, k_out};
        for (int t = 0; t < 2; t++) {
            float v0 = (float)h2d(src[t][i0]), v1 = (float)h2d(src[t][i1]);
            dst[t][i0] = d2h(v0 * c - v1 * s);
            dst[t][i1] = d2h(v0 * s + v1 * c);
            check_tolerance("rope", (size_t)i0, h2d(dst[t][i0]), h2d(d2h(v0 * ac - v1 * as)),
                            ROPE_RTOL, ROPE_ATOL);
            check_tolerance("rope", (size_t)i1, h2d(dst[t][i1]), h2d(d2h(v0 * as + v1 * ac)),
                            ROPE_RTOL, ROPE_ATOL);
        }
    }
    write_f16("rope.q.npy", q_out, N);
    write_f16("rope.k.npy", k_out, N);
}

/* ---- histogram: bins[data[tid] % 256] += 1, atomically ------------------------------------- */

static void gen_histogram(void)
{
    enum { N = 4096 };
    static uint32_t data[N], bins[256];
    random_u32(81, 0, 1000000, data, N);
    for (int i = 0; i < N; i++)
        bins[data[i] % 256]++;
    write_u32("histogram.bins.npy", bins, 256);
}

/* ---- softmax: one threadgroup per row of COLS halves ---------------------------------------- */

#define SOFTMAX_RTOL 2e-3
#define SOFTMAX_ATOL 1.2e-7

static void gen_softmax(void)
{
    enum { ROWS = 8, COLS = 1000 };
    static double tmp[ROWS * COLS];
    static uint16_t in[ROWS * COLS], out[ROWS * COLS];
    random_doubles(91, -4, 4, tmp, ROWS * COLS);
    halves_from(tmp, in, ROWS * COLS);
    for (int r = 0; r < ROWS; r++) {
        const uint16_t *x = in + r * COLS;
        float mx = -INFINITY;
        for (int i = 0; i < COLS; i++)
            mx = fmaxf(mx, (float)h2d(x[i]));
        /* exp correctly rounded to float; the sum exact (the kernel's order is the simulator's). */
        double sum = 0, alt_sum = 0;
        for (int i = 0; i < COLS; i++)
            sum += (float)exp((double)((float)h2d(x[i]) - mx));
        for (int i = COLS - 1; i >= 0; i--) /* another order, in float, for the check */
            alt_sum = (float)(alt_sum + (float)exp2((double)(((float)h2d(x[i]) - mx) * 1.44269504f)));
        float inv = 1.0f / (float)sum, alt_inv = 1.0f / (float)alt_sum;
        for (int i = 0; i < COLS; i++) {
            float v = (float)h2d(x[i]) - mx;
            out[r * COLS + i] = d2h((float)exp((double)v) * inv);
            uint16_t alt = d2h(exp2f(v * 1.44269504f) * alt_inv);
            check_tolerance("softmax", (size_t)(r * COLS + i), h2d(out[r * COLS + i]), h2d(alt),
                            SOFTMAX_RTOL, SOFTMAX_ATOL);
        }
    }
    write_f16("softmax.output.npy", out, ROWS * COLS);
}

/* ---- gemm: the kernel reads its parameters and writes nothing; C keeps its initial values -- */

static void gen_gemm(void)
{
    enum { N = 32 * 32 };
    static uint16_t c[N];
    for (int i = 0; i < N; i++) /* init: {range: [0, 0.5]}: exact in half */
        c[i] = d2h(0.5 * i);
    write_f16("gemm.C.npy", c, N);
}

/* ---- mlx_myexp: out = half(exp(float(inp))) ------------------------------------------------- */

#define MYEXP_RTOL 1e-3

static void gen_mlx_myexp(void)
{
    enum { N = 1000 };
    static double tmp[N];
    static uint16_t in[N], out[N];
    random_doubles(101, -4, 4, tmp, N);
    halves_from(tmp, in, N);
    for (int i = 0; i < N; i++) {
        /* T = float: exp in float, then the store converts to half. */
        float e = (float)exp(h2d(in[i]));
        out[i] = d2h(e);
        float alt = exp2f((float)h2d(in[i]) * 1.44269504f);
        check_tolerance("mlx_myexp", (size_t)i, h2d(out[i]), h2d(d2h(alt)), MYEXP_RTOL, 0);
    }
    write_f16("mlx_myexp.out.npy", out, N);
}

/* ---- mlx_grid_sample and mlx_grid_sample_grad ----------------------------------------------- */

/* x: (B, H, W, C) and grid: (B, gH, gW, 2), channels last, as MLX lays them out. */
enum { GS_B = 2, GS_H = 8, GS_W = 12, GS_C = 3, GS_GH = 5, GS_GW = 7, GS_CPAD = 32 };
enum { GS_XN = GS_B * GS_H * GS_W * GS_C, GS_GN = GS_B * GS_GH * GS_GW * 2,
       GS_ON = GS_B * GS_GH * GS_GW * GS_C };
#define GS_RTOL 1e-6
#define GS_ATOL 5e-7
#define GSG_XGRAD_RTOL 1e-5
#define GSG_XGRAD_ATOL 1e-6
#define GSG_GRID_RTOL 1e-5
#define GSG_GRID_ATOL 1e-5

static float gs_x[GS_XN], gs_grid[GS_GN], gs_cot[GS_ON];

/* The grid: x coordinates in [-1 + 1/W, 1 - 1/W) and y in [-1 + 1/H, 1 - 1/H) shrunk by a
 * margin, so that the sample point ix lies in [0, W - 1) and all four neighbours are inside
 * the image (the kernel reads all four before masking the out-of-range ones). */
static void gs_inputs(void)
{
    static double tmp[GS_XN];
    random_doubles(111, -1, 1, tmp, GS_XN);
    floats_from(tmp, gs_x, GS_XN);
    random_doubles(113, -1, 1, tmp, GS_ON);
    floats_from(tmp, gs_cot, GS_ON);
    sm_state = 112;
    for (int i = 0; i < GS_GN; i++) {
        int extent = i % 2 == 0 ? GS_W : GS_H;
        double lo = -1.0 + 1.0 / extent + 0.01, hi = 1.0 - 1.0 / extent - 0.01;
        gs_grid[i] = (float)(lo + (hi - lo) * ((double)(sm_next() >> 11) * 0x1p-53));
    }
}

typedef struct GsPoint {
    float ix, iy;
    int ix_nw, iy_nw;
} GsPoint;

/* The kernel's sample position for grid point p, in float as the kernel computes it. */
static GsPoint gs_point(int p)
{
    GsPoint g;
    g.ix = ((gs_grid[2 * p] + 1) * (float)GS_W - 1) / 2;
    g.iy = ((gs_grid[2 * p + 1] + 1) * (float)GS_H - 1) / 2;
    g.ix_nw = (int)floorf(g.ix);
    g.iy_nw = (int)floorf(g.iy);
    if (g.ix_nw < 0 || g.ix_nw > GS_W - 2 || g.iy_nw < 0 || g.iy_nw > GS_H - 2) {
        fprintf(stderr, "seed_ref: grid point %d samples outside the image\n", p);
        exit(1);
    }
    return g;
}

static void gen_mlx_grid_sample(void)
{
    gs_inputs();
    write_f32("mlx_grid_sample.grid.npy", gs_grid, GS_GN);
    static float out[GS_ON];
    const int w_stride = GS_C, h_stride = GS_W * w_stride, b_stride = GS_H * h_stride;
    for (int elem = 0; elem < GS_ON; elem++) {
        int p = elem / GS_C; /* grid_idx / 2 */
        GsPoint g = gs_point(p);
        int ix_se = g.ix_nw + 1, iy_se = g.iy_nw + 1;
        float nw = ((float)ix_se - g.ix) * ((float)iy_se - g.iy);
        float ne = (g.ix - (float)g.ix_nw) * ((float)iy_se - g.iy);
        float sw = ((float)ix_se - g.ix) * (g.iy - (float)g.iy_nw);
        float se = (g.ix - (float)g.ix_nw) * (g.iy - (float)g.iy_nw);
        int base = elem / GS_C / GS_GH / GS_GW * b_stride + elem % GS_C;
        float i_nw = gs_x[base + g.iy_nw * h_stride + g.ix_nw * w_stride];
        float i_ne = gs_x[base + g.iy_nw * h_stride + ix_se * w_stride];
        float i_sw = gs_x[base + iy_se * h_stride + g.ix_nw * w_stride];
        float i_se = gs_x[base + iy_se * h_stride + ix_se * w_stride];
        out[elem] = nw * i_nw + ne * i_ne + sw * i_sw + se * i_se;
        /* Allowed: the sum contracted into fused multiply-adds. */
        float fused = fmaf(se, i_se, fmaf(sw, i_sw, fmaf(ne, i_ne, nw * i_nw)));
        check_tolerance("mlx_grid_sample", (size_t)elem, out[elem], fused, GS_RTOL, GS_ATOL);
    }
    write_f32("mlx_grid_sample.out.npy", out, GS_ON);
}

/* The VJP: one SIMD-group of 32 lanes (C padded to 32) per grid point; lane c < C handles
 * channel c. Each lane adds its four weighted cotangents into x_grad atomically, and the
 * SIMD-group's summed position gradients go into grid_grad. */
static void gen_mlx_grid_sample_grad(void)
{
    static double xg[GS_XN], xg_alt[GS_XN];
    static float x_grad[GS_XN], grid_grad[GS_GN];
    const int w_stride = GS_C, h_stride = GS_W * w_stride, b_stride = GS_H * h_stride;
    for (int p = 0; p < GS_B * GS_GH * GS_GW; p++) {
        GsPoint g = gs_point(p);
        int ix_ne = g.ix_nw + 1, iy_ne = g.iy_nw, ix_sw = g.ix_nw, iy_sw = g.iy_nw + 1;
        int ix_se = g.ix_nw + 1, iy_se = g.iy_nw + 1;
        float ix = g.ix, iy = g.iy;
        float nw = ((float)ix_se - ix) * ((float)iy_se - iy);
        float ne = (ix - (float)ix_sw) * ((float)iy_sw - iy);
        float sw = ((float)ix_ne - ix) * (iy - (float)iy_ne);
        float se = (ix - (float)g.ix_nw) * (iy - (float)g.iy_nw);
        double gix_sum = 0, giy_sum = 0;
        float gix_seq = 0, giy_seq = 0; /* lanes added in lane order, for the check */
        for (int c = 0; c < GS_C; c++) {
            int elem = p * GS_CPAD + c;
            int base = elem / GS_CPAD / GS_GH / GS_GW * b_stride + c;
            float cot = gs_cot[elem / GS_CPAD * GS_C + c];
            int off_nw = base + g.iy_nw * h_stride + g.ix_nw * w_stride;
            int off_ne = base + iy_ne * h_stride + ix_ne * w_stride;
            int off_sw = base + iy_sw * h_stride + ix_sw * w_stride;
            int off_se = base + iy_se * h_stride + ix_se * w_stride;
            float gix = 0, giy = 0;
            /* Every neighbour is inside the image (gs_point checks), so all four branches run. */
            xg[off_nw] += nw * cot;
            gix -= gs_x[off_nw] * ((float)iy_se - iy) * cot;
            giy -= gs_x[off_nw] * ((float)ix_se - ix) * cot;
            xg[off_ne] += ne * cot;
            gix += gs_x[off_ne] * ((float)iy_sw - iy) * cot;
            giy -= gs_x[off_ne] * (ix - (float)ix_sw) * cot;
            xg[off_sw] += sw * cot;
            gix -= gs_x[off_sw] * (iy - (float)iy_ne) * cot;
            giy += gs_x[off_sw] * ((float)ix_ne - ix) * cot;
            xg[off_se] += se * cot;
            gix += gs_x[off_se] * (iy - (float)g.iy_nw) * cot;
            giy += gs_x[off_se] * (ix - (float)g.ix_nw) * cot;
            xg_alt[off_nw] = (float)(xg_alt[off_nw] + (float)(nw * cot));
            xg_alt[off_ne] = (float)(xg_alt[off_ne] + (float)(ne * cot));
            xg_alt[off_sw] = (float)(xg_alt[off_sw] + (float)(sw * cot));
            xg_alt[off_se] = (float)(xg_alt[off_se] + (float)(se * cot));
            gix_sum += gix;
            giy_sum += giy;
            gix_seq += gix;
            giy_seq += giy;
        }
        /* T gix_mult = W / 2: an integer division, then converted. */
        float gix_mult = (float)(GS_W / 2), giy_mult = (float)(GS_H / 2);
        grid_grad[2 * p] = (float)gix_sum * gix_mult;
        grid_grad[2 * p + 1] = (float)giy_sum * giy_mult;
        check_tolerance("grid_grad", (size_t)(2 * p), grid_grad[2 * p], gix_seq * gix_mult,
                        GSG_GRID_RTOL, GSG_GRID_ATOL);
        check_tolerance("grid_grad", (size_t)(2 * p + 1), grid_grad[2 * p + 1], giy_seq * giy_mult,
                        GSG_GRID_RTOL, GSG_GRID_ATOL);
    }
    for (int i = 0; i < GS_XN; i++) {
        x_grad[i] = (float)xg[i];
        check_tolerance("x_grad", (size_t)i, x_grad[i], xg_alt[i], GSG_XGRAD_RTOL, GSG_XGRAD_ATOL);
    }
    write_f32("mlx_grid_sample_grad.x_grad.npy", x_grad, GS_XN);
    write_f32("mlx_grid_sample_grad.grid_grad.npy", grid_grad, GS_GN);
}

/* ---- tensor_matmul_relu: D = relu(half(A * B)), A M x K, B K x N, D M x N, all half ------
 * MPP's matmul2d multiplies half by half into a half destination; the order and precision of
 * its sum are the implementation's. Expected: a float sum of exact products in k order, each
 * step one rounding (a fused multiply-add chain), rounded to half; allowed too: a separately
 * rounded multiply and add, and the exact sum, within the manifest's tolerance. */

enum { TM_M = 96, TM_N = 128, TM_K = 76 };
#define TM_RTOL 2e-3
#define TM_ATOL 1e-3

static double tm_relu(double v) { return v > 0 ? v : 0; }

static void gen_tensor_matmul_relu(void)
{
    static double tmp[TM_M * TM_K > TM_K * TM_N ? TM_M * TM_K : TM_K * TM_N];
    static uint16_t a[TM_M * TM_K], b[TM_K * TM_N], d[TM_M * TM_N];
    random_doubles(201, -1, 1, tmp, TM_M * TM_K);
    halves_from(tmp, a, TM_M * TM_K);
    random_doubles(202, -1, 1, tmp, TM_K * TM_N);
    halves_from(tmp, b, TM_K * TM_N);
    for (int i = 0; i < TM_M; i++)
        for (int j = 0; j < TM_N; j++) {
            float fused = 0, separate = 0;
            double exact = 0;
            for (int k = 0; k < TM_K; k++) {
                float x = (float)h2d(a[i * TM_K + k]), y = (float)h2d(b[k * TM_N + j]);
                fused = fmaf(x, y, fused);
                separate = separate + x * y;
                exact += (double)x * y;
            }
            d[i * TM_N + j] = d2h(tm_relu(fused));
            double want = h2d(d[i * TM_N + j]);
            check_tolerance("tensor_matmul_relu (mul, add)", (size_t)(i * TM_N + j), want,
                            h2d(d2h(tm_relu(separate))), TM_RTOL, TM_ATOL);
            check_tolerance("tensor_matmul_relu (exact)", (size_t)(i * TM_N + j), want,
                            h2d(d2h(tm_relu(exact))), TM_RTOL, TM_ATOL);
        }
    write_f16("tensor_matmul_relu.destination.npy", d, TM_M * TM_N);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: seed_ref OUT_DIR\n");
        return 2;
    }
    uint32_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    if (first != 1) {
        fprintf(stderr, "seed_ref: needs a little-endian host\n");
        return 1;
    }
    /* The definitions in docs/manifest.md: seed 1's first output. */
    sm_state = 1;
    if (sm_next() != 0x910a2dec89025cc1ull) {
        fprintf(stderr, "seed_ref: SplitMix64 does not match its definition\n");
        return 1;
    }
    ref_out_dir = argv[1];
    gen_add_arrays();
    gen_dot_product_fp16();
    gen_gemv_mixed_precision();
    gen_reduction_with_shared();
    gen_rmsnorm();
    gen_silu_activation();
    gen_rope();
    gen_histogram();
    gen_softmax();
    gen_gemm();
    gen_mlx_myexp();
    gen_mlx_grid_sample();
    gen_mlx_grid_sample_grad();
    gen_tensor_matmul_relu();
    return 0;
}
