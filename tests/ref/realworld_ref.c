/*
 * realworld_ref.c — independent CPU reference for the kernels of tests/lang/realworld/: Metal
 * kernels written in the styles of MLX, llama.cpp's ggml-metal, PyTorch MPS and Apple's
 * samples. For each manifest there it computes what the kernel computes, from a reading of
 * the kernel's source, and writes the expected outputs (and the inputs a manifest reads from
 * a file) into the directory named on the command line.
 *
 * Like seed_ref.c it links nothing from lockstep: the manifest's generators (SplitMix64,
 * ref_common.h) and binary16 rounding are written from their definitions. Float work is done
 * in C float, in the kernel's order, where the kernel's result is exact or nearly so; in
 * double where the kernel leaves the order to simd_sum or an atomic, the manifest then
 * allowing for it. Where the language leaves a choice that could flip a discrete result (a
 * histogram bin, a rounding to uchar), the generator computes the alternatives and stops if
 * any input lands on such an edge.
 *
 *   cc -std=c11 -O1 -ffp-contract=off tests/ref/realworld_ref.c -lm -o /tmp/rw && /tmp/rw tests/lang/realworld/data
 *
 * tests/lang/test_realworld.c reruns it and requires its output to be byte-identical to the
 * committed files. The ML-shaped kernels (norms, softmax, quantized products, attention) are
 * in realworld_ref_ml.h, included below so that the generator stays one command.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REF_TOOL "realworld_ref"
#include "ref_common.h"

/* ---- the manifest's init forms ------------------------------------------------------------ */

/* init {random: {seed, min, max}} for float (rounded to float). */
static void rand_f32(uint64_t seed, double min, double max, float *out, size_t n)
{
    sm_state = seed;
    for (size_t i = 0; i < n; i++)
        out[i] = (float)(min + (max - min) * ((double)(sm_next() >> 11) * 0x1p-53));
}

/* init {random: ...} for half: the double, rounded once to binary16. */
static uint16_t d2h(double x);
static void rand_f16(uint64_t seed, double min, double max, uint16_t *out, size_t n)
{
    sm_state = seed;
    for (size_t i = 0; i < n; i++)
        out[i] = d2h(min + (max - min) * ((double)(sm_next() >> 11) * 0x1p-53));
}

/* init {normal: {seed, mean, std}} for float. */
static void normal_f32(uint64_t seed, double mean, double std, float *out, size_t n)
{
    sm_state = seed;
    for (size_t i = 0; i < n; i++) {
        double u1 = (double)((sm_next() >> 11) + 1) * 0x1p-53;
        double u2 = (double)(sm_next() >> 11) * 0x1p-53;
        out[i] = (float)(mean + std * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
    }
}

static void normal_f16(uint64_t seed, double mean, double std, uint16_t *out, size_t n)
{
    sm_state = seed;
    for (size_t i = 0; i < n; i++) {
        double u1 = (double)((sm_next() >> 11) + 1) * 0x1p-53;
        double u2 = (double)(sm_next() >> 11) * 0x1p-53;
        out[i] = d2h(mean + std * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
    }
}

/* init {random: {seed, min, max}} for an integer type, as 64-bit values. */
static void rand_int(uint64_t seed, int64_t min, int64_t max, int64_t *out, size_t n)
{
    sm_state = seed;
    for (size_t i = 0; i < n; i++)
        out[i] = min + (int64_t)(sm_next() % (uint64_t)(max - min + 1));
}

static void rand_u32(uint64_t seed, uint32_t *out, size_t n) /* the full range */
{
    sm_state = seed;
    for (size_t i = 0; i < n; i++)
        out[i] = (uint32_t)(sm_next() % 4294967296ull);
}

/* ---- binary16 ----------------------------------------------------------------------------- */

static double h2d(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0x1f ? (m ? NAN : INFINITY) : e == 0 ? ldexp(m, -24) : ldexp(m + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* x rounded to binary16, nearest even: scale into an integer significand and let rint (in
 * the default rounding mode) do the rounding. */
static uint16_t d2h(double x)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    if (isnan(x))
        return 0x7e00;
    double a = fabs(x);
    if (isinf(a))
        return sign | 0x7c00;
    int e;
    frexp(a, &e);                     /* a = f * 2^e, f in [0.5, 1) */
    int lsb = (e - 11 < -24) ? -24 : e - 11; /* exponent of the last kept bit */
    double q = rint(ldexp(a, -lsb));  /* exact scaling, one rounding */
    double r = ldexp(q, lsb);
    if (r >= 65520.0)
        return sign | 0x7c00;
    if (r < 0x1p-14)
        return sign | (uint16_t)ldexp(r, 24);
    int re;
    double rf = frexp(r, &re);        /* r = rf * 2^re */
    return sign | (uint16_t)((re - 1 + 15) << 10) | (uint16_t)(ldexp(rf, 11) - 1024);
}

static float hf(uint16_t h) { return (float)h2d(h); }

/* ---- writers ------------------------------------------------------------------------------ */

static void write_i32(const char *name, const int32_t *v, size_t n) { write_npy(name, "<i4", 4, n, v); }

static void write_bin(const char *name, const void *data, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", ref_out_dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, REF_TOOL ": cannot write %s\n", path);
        exit(1);
    }
}

/* A discrete result computed two allowed ways must agree, or the input sits on an edge. */
static void same_choice(const char *what, size_t index, long a, long b)
{
    if (a == b)
        return;
    fprintf(stderr, REF_TOOL ": %s[%zu]: allowed evaluations give %ld and %ld: choose other "
            "inputs\n", what, index, a, b);
    exit(1);
}

#include "realworld_ref_ml.h"

/* ---- elementwise -------------------------------------------------------------------------- */

static void binary_broadcast(void)
{
    { /* add_float: out[2][5][7], a strides [7, 0, 1], b strides [0, 1, 0] */
        float a[14], b[5], out[70];
        rand_f32(1, -2, 2, a, 14);
        rand_f32(2, -2, 2, b, 5);
        for (int z = 0; z < 2; z++)
            for (int y = 0; y < 5; y++)
                for (int x = 0; x < 7; x++)
                    out[x + 7 * (y + 5 * z)] = a[z * 7 + x] + b[y];
        write_f32("binary_broadcast.out.npy", out, 70);
    }
    { /* mul_half: out[3][4][6], a strides [0, 6, 1], b strides [6, 0, 1] */
        uint16_t a[24], b[18], out[72];
        rand_f16(3, -2, 2, a, 24);
        rand_f16(4, -2, 2, b, 18);
        for (int z = 0; z < 3; z++)
            for (int y = 0; y < 4; y++)
                for (int x = 0; x < 6; x++)
                    out[x + 6 * (y + 4 * z)] = d2h(h2d(a[y * 6 + x]) * h2d(b[z * 6 + x]));
        write_f16("binary_broadcast_mul_half.out.npy", out, 72);
    }
    { /* max_float over [2, 3, 4, 5]; a strides [1, 2, 6, 24], b strides [4, 0, 1, 0] */
        float a[120], b[8], out[120];
        rand_f32(5, -2, 2, a, 120);
        rand_f32(6, -2, 2, b, 8);
        for (int i0 = 0; i0 < 2; i0++)
            for (int i1 = 0; i1 < 3; i1++)
                for (int i2 = 0; i2 < 4; i2++)
                    for (int i3 = 0; i3 < 5; i3++) {
                        float av = a[i0 + 2 * i1 + 6 * i2 + 24 * i3], bv = b[4 * i0 + i2];
                        out[((i0 * 3 + i1) * 4 + i2) * 5 + i3] = av > bv ? av : bv;
                    }
        write_f32("binary_broadcast_max_4d.out.npy", out, 120);
    }
}

/* functor_ops.metal: Add and Maximum through binary_vv; row_max_float's row maxima and
 * each lane's sums of squares of its 4 columns (in the kernel's order: float products
 * added one stride of 128 after another). */
static void functor_ops(void)
{
    float a[300], b[300], c[300];
    rand_f32(31, -4, 4, a, 300);
    rand_f32(32, -4, 4, b, 300);
    for (int i = 0; i < 300; i++)
        c[i] = a[i] + b[i];
    write_f32("functor_add.c.npy", c, 300);
    rand_f32(33, -4, 4, a, 256);
    rand_f32(34, -4, 4, b, 256);
    for (int i = 0; i < 256; i++)
        c[i] = a[i] > b[i] ? a[i] : b[i];
    write_f32("functor_maximum.c.npy", c, 256);
    static float in[4096], out[8], sq[1024];
    rand_f32(35, -8, 8, in, 4096);
    for (int row = 0; row < 8; row++) {
        const float *x = in + row * 512;
        out[row] = -INFINITY;
        for (int i = 0; i < 512; i++)
            out[row] = x[i] > out[row] ? x[i] : out[row];
        for (int lane = 0; lane < 32; lane++)
            for (int k = 0; k < 4; k++) {
                float s = 0.0f;
                for (int i = lane * 4; i < 512; i += 128)
                    s += x[i + k] * x[i + k];
                sq[row * 128 + lane * 4 + k] = s;
            }
    }
    write_f32("functor_row_max.out.npy", out, 8);
    write_f32("functor_row_max.sq.npy", sq, 1024);
}

static float gelu_f(float x)
{
    float inner = 0.7978845608028654f * x * (1.0f + 0.044715f * x * x);
    return 0.5f * x * (1.0f + (float)tanh((double)inner));
}

static void unary(void)
{
    float x[1000], y[1000];
    uint16_t xh[1000], yh[1000];
    rand_f32(11, -6, 6, x, 1000);
    rand_f16(11, -6, 6, xh, 1000);
    for (int i = 0; i < 1000; i++)
        y[i] = gelu_f(x[i]);
    write_f32("unary_gelu_float.out.npy", y, 1000);
    for (int i = 0; i < 1000; i++)
        y[i] = (float)((double)x[i] / (1.0 + exp(-(double)x[i])));
    write_f32("unary_silu_float.out.npy", y, 1000);
    for (int i = 0; i < 1000; i++)
        yh[i] = d2h(gelu_f(hf(xh[i])));
    write_f16("unary_gelu_half.out.npy", yh, 1000);
    /* silu<half>: exp, the add and the divide each rounded to half */
    for (int i = 0; i < 1000; i++) {
        double e = h2d(d2h(exp(-h2d(xh[i]))));
        double d = h2d(d2h(1.0 + e));
        yh[i] = d2h(h2d(xh[i]) / d);
    }
    write_f16("unary_silu_half.out.npy", yh, 1000);
    float x4[1024], y4[1024];
    rand_f32(12, -6, 6, x4, 1024);
    for (int i = 0; i < 1024; i++)
        y4[i] = gelu_f(x4[i]);
    write_f32("unary_gelu_4.dst.npy", y4, 1024);
}

static void gather_scatter(void)
{
    static const int ids[9] = {3, 49, 0, 3, 17, 17, 25, 3, 8};
    float table[1000], out[180], grad[180], tg[1000] = {0};
    rand_f32(81, -1, 1, table, 1000);
    for (int t = 0; t < 9; t++)
        for (int c = 0; c < 20; c++)
            out[t * 20 + c] = table[ids[t] * 20 + c];
    write_f32("gather.out.npy", out, 180);
    /* multiples of 1/8 in [-4, 4): every order of the atomic adds sums them exactly */
    for (int i = 0; i < 180; i++)
        grad[i] = (float)((i * 37 % 64) - 32) / 8.0f;
    write_f32("scatter_add.grad.npy", grad, 180);
    for (int t = 0; t < 9; t++)
        for (int c = 0; c < 20; c++)
            tg[ids[t] * 20 + c] += grad[t * 20 + c];
    write_f32("scatter_add.table_grad.npy", tg, 1000);
    uint16_t src[54], dst[28];
    static const int index[4] = {5, 0, 5, 2};
    rand_f16(82, -4, 4, src, 54);
    for (int t = 0; t < 28; t++)
        dst[t] = src[index[t / 7] * 9 + t % 7];
    write_f16("index_select.dst.npy", dst, 28);
}

static void transpose(void)
{
    float out[1850];
    for (int r = 0; r < 37; r++)
        for (int c = 0; c < 50; c++)
            out[c * 37 + r] = (float)(r * 50 + c);
    write_f32("transpose.out.npy", out, 1850);
}

static void scans(void)
{
    int64_t in[768];
    uint32_t out[768], sums[3];
    rand_int(91, 0, 1000, in, 768);
    for (int b = 0; b < 3; b++) {
        uint32_t run = 0;
        for (int i = 0; i < 256; i++) {
            out[b * 256 + i] = run;
            run += (uint32_t)in[b * 256 + i];
        }
        sums[b] = run;
    }
    write_u32("scan_blelloch.out.npy", out, 768);
    write_u32("scan_blelloch.block_sums.npy", sums, 3);
    float x[320], y[320];
    for (int i = 0; i < 320; i++)
        x[i] = (float)((i * 7 + 3) % 10);
    write_f32("scan_simd.in.npy", x, 320);
    for (int b = 0; b < 2; b++) {
        float run = 0;
        for (int i = 0; i < 160; i++)
            y[b * 160 + i] = run += x[b * 160 + i];
    }
    write_f32("scan_simd.out.npy", y, 320);
}

/* The bitonic network run step by step; within a step the pairs are disjoint, so doing them
 * one after another is what the threads do at once. */
static void bitonic(void)
{
    int64_t k0[512];
    uint32_t keys[512], vals[512];
    rand_int(101, 0, 200, k0, 512);
    for (int blk = 0; blk < 2; blk++) {
        uint32_t *sk = keys + 256 * blk, *sv = vals + 256 * blk;
        for (int i = 0; i < 256; i++)
            sk[i] = (uint32_t)k0[256 * blk + i], sv[i] = (uint32_t)i;
        for (unsigned k = 2; k <= 256; k <<= 1)
            for (unsigned j = k >> 1; j > 0; j >>= 1)
                for (unsigned i = 0; i < 256; i++) {
                    unsigned l = i ^ j;
                    if (l <= i)
                        continue;
                    int up = (i & k) == 0;
                    if (up ? sk[i] > sk[l] : sk[i] < sk[l]) {
                        uint32_t t = sk[i]; sk[i] = sk[l]; sk[l] = t;
                        t = sv[i]; sv[i] = sv[l]; sv[l] = t;
                    }
                }
        for (int i = 1; i < 256; i++)
            if (sk[i - 1] > sk[i]) {
                fprintf(stderr, REF_TOOL ": bitonic reference did not sort\n");
                exit(1);
            }
    }
    write_u32("bitonic_sort_tg.keys.npy", keys, 512);
    write_u32("bitonic_sort_tg.vals.npy", vals, 512);
    float d[64];
    rand_f32(102, -10, 10, d, 64);
    for (unsigned i = 0; i < 64; i++) {
        unsigned l = i ^ 4u;
        if (l > i) {
            int ascending = (i & 8u) == 0;
            if ((d[i] > d[l]) == ascending) {
                float t = d[i]; d[i] = d[l]; d[l] = t;
            }
        }
    }
    write_f32("bitonic_step.data.npy", d, 64);
}

static void argmax(void)
{
    float x[600];
    uint32_t out[6];
    rand_f32(1001, -5, 5, x, 600);
    x[4 * 100 + 10] = x[4 * 100 + 70] = 9.0f;   /* a tie across lanes */
    x[5 * 100 + 33] = x[5 * 100 + 1] = 9.5f;    /* a tie within lane 1's stride */
    write_f32("argmax.x.npy", x, 600);
    for (int r = 0; r < 6; r++) {
        uint32_t best = 0;
        for (uint32_t c = 1; c < 100; c++)
            if (x[r * 100 + c] > x[r * 100 + best])
                best = c;
        out[r] = best;
    }
    write_u32("argmax_rows.out.npy", out, 6);
    float xb[128];
    uint32_t ob[4];
    for (int i = 0; i < 128; i++)
        xb[i] = (float)((i * 13 + i / 32) % 6);
    write_f32("argmax_ballot.x.npy", xb, 128);
    for (int r = 0; r < 4; r++) {
        uint32_t best = 0;
        for (uint32_t c = 1; c < 32; c++)
            if (xb[r * 32 + c] > xb[r * 32 + best])
                best = c;
        ob[r] = best;
    }
    write_u32("argmax_ballot.out.npy", ob, 4);
}

static void conv1d_one(const char *name, int K, int has_bias, int stride, int pad, int dil,
                       int out_len, uint64_t wseed)
{
    float in[300], w[60], bias[4], out[400];
    rand_f32(111, -1, 1, in, 300);
    rand_f32(wseed, -1, 1, w, (size_t)(4 * 3 * K));
    rand_f32(113, -1, 1, bias, 4);
    for (int b = 0; b < 2; b++)
        for (int oc = 0; oc < 4; oc++)
            for (int ox = 0; ox < out_len; ox++) {
                double acc = has_bias ? bias[oc] : 0.0;
                for (int ic = 0; ic < 3; ic++)
                    for (int k = 0; k < K; k++) {
                        int ix = ox * stride - pad + k * dil;
                        if (ix >= 0 && ix < 50)
                            acc += (double)in[(b * 3 + ic) * 50 + ix] * w[(oc * 3 + ic) * K + k];
                    }
                out[(b * 4 + oc) * out_len + ox] = (float)acc;
            }
    write_f32(name, out, (size_t)(2 * 4 * out_len));
}

static void gemv(void)
{
    float A[2652], x[204], y[13];
    rand_f32(121, -1, 1, A, 2652);
    rand_f32(122, -1, 1, x, 204);
    for (int r = 0; r < 13; r++) {
        double s = 0;
        for (int c = 0; c < 204; c++)
            s += (double)A[r * 204 + c] * x[c];
        y[r] = (float)s;
    }
    write_f32("gemv.y.npy", y, 13);
}

/* Bin of an RGBA8 pixel: luma = dot(rgb / 255, Rec. 709); the dot may be evaluated with or
 * without fused multiply-adds, so both are computed and must agree. */
static void histogram(void)
{
    uint32_t px[1000], hist[64] = {0};
    rand_u32(131, px, 1000);
    for (int i = 0; i < 1000; i++) {
        float r = (float)(px[i] & 0xff) / 255.0f, g = (float)((px[i] >> 8) & 0xff) / 255.0f,
              b = (float)((px[i] >> 16) & 0xff) / 255.0f;
        float plain = r * 0.2126f + g * 0.7152f + b * 0.0722f;
        float fused = fmaf(b, 0.0722f, fmaf(g, 0.7152f, r * 0.2126f));
        float exact = (float)((double)r * 0.2126f + (double)g * 0.7152f + (double)b * 0.0722f);
        long bin_p = (long)(plain * 64.0f), bin_f = (long)(fused * 64.0f), bin_e = (long)(exact * 64.0f);
        same_choice("histogram bin", (size_t)i, bin_p, bin_f);
        same_choice("histogram bin", (size_t)i, bin_p, bin_e);
        hist[bin_p > 63 ? 63 : bin_p]++;
    }
    write_u32("histogram.hist.npy", hist, 64);
}

static void fc_variants(void)
{
    float x[100], y[100], res[100], out[100];
    rand_f32(141, -1, 1, x, 100);
    rand_f32(142, -1, 1, y, 100);
    rand_f32(143, -1, 1, res, 100);
    for (int i = 0; i < 100; i++) {
        float v = 0.75f * x[i] + -1.5f * y[i];
        v += res[i];
        out[i] = v > 0 ? v : 0.0f;
    }
    write_f32("fc_variants.out.npy", out, 100);
    for (int i = 0; i < 100; i++)
        out[i] = 1.0f * x[i] + -1.5f * y[i];
    write_f32("fc_variants_plain.out.npy", out, 100);
}

static void particles(void)
{
    float p[384];
    uint16_t col[256];
    rand_f32(241, -1.5, 1.5, p, 384);
    rand_f16(242, 0, 1, col, 256);
    const float dt = 0.1f, gy = -9.8f;
    for (int id = 0; id < 64; id++) {
        float *pos = p + 6 * id, *vel = p + 6 * id + 3;
        float v[3], x[3];
        int hit = 0;
        for (int c = 0; c < 3; c++) {
            v[c] = vel[c] + (c == 1 ? gy * dt : 0.0f * dt);
            x[c] = pos[c] + v[c] * dt;
            int h = x[c] < -1.0f || x[c] > 1.0f;
            hit |= h;
            if (h)
                v[c] = -v[c] * 0.5f;
            x[c] = x[c] < -1.0f ? -1.0f : x[c] > 1.0f ? 1.0f : x[c];
        }
        double hs = sqrt((double)v[0] * v[0] + (double)v[2] * v[2]);
        if (hs > 4.0) {
            float s = (float)(4.0 / hs);
            v[0] *= s;
            v[2] *= s;
        }
        uint16_t *c = col + 4 * id;
        if (hit) {
            c[0] = d2h(1.0);
            c[1] = 0;
        } else {
            uint16_t t = c[0];
            c[0] = c[1];
            c[1] = t;
        }
        double speed = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
        c[3] = d2h((float)fmin(1.0, speed / 8.0));
        for (int k = 0; k < 3; k++)
            pos[k] = x[k], vel[k] = v[k];
    }
    write_f32("particles.particles.npy", p, 384);
    write_f16("particles.colors.npy", col, 256);
}

static uint32_t pcg_hash(uint32_t v)
{
    uint32_t state = v * 747796405u + 2891336453u;
    uint32_t word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

static void bits(void)
{
    float in[256];
    uint32_t keys[256], hashes[256];
    uint8_t digits[256];
    rand_f32(1501, -1000, 1000, in, 256);
    in[0] = 0.0f;
    in[1] = -0.0f;
    in[2] = INFINITY;
    in[3] = -INFINITY;
    write_f32("bits.in.npy", in, 256);
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t u;
        memcpy(&u, &in[i], 4);
        uint32_t k = u ^ ((u & 0x80000000u) ? 0xFFFFFFFFu : 0x80000000u);
        keys[i] = k;
        digits[i] = (uint8_t)((k >> 16) & 0xff);
        hashes[i] = pcg_hash(i ^ k);
    }
    write_u32("bits_radix_keys.keys.npy", keys, 256);
    write_u8("bits_radix_keys.digits.npy", digits, 256);
    write_u32("bits_radix_keys.hashes.npy", hashes, 256);
    float c[256], un[256];
    uint32_t packed[64];
    rand_f32(151, -0.2, 1.2, c, 256);
    for (int i = 0; i < 64; i++) {
        uint8_t u[4];
        for (int k = 0; k < 4; k++) {
            float s = c[4 * i + k] < 0 ? 0 : c[4 * i + k] > 1 ? 1 : c[4 * i + k];
            float scaled = s * 255.0f;
            same_choice("pack_rgba8 rounding", (size_t)(4 * i + k), (long)rintf(scaled),
                        (long)rint((double)s * 255.0));
            u[k] = (uint8_t)rintf(scaled);
        }
        packed[i] = (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
        static const int bgra[4] = {2, 1, 0, 3};
        for (int k = 0; k < 4; k++)
            un[4 * i + k] = (float)u[bgra[k]] * (1.0f / 255.0f);
    }
    write_u32("bits_pack_rgba8.packed.npy", packed, 64);
    write_f32("bits_pack_rgba8.unpacked.npy", un, 256);
}

static void stencil3d(void)
{
    float u[270], lap[270];
    rand_f32(161, -1, 1, u, 270);
    const int nx = 9, ny = 6, nz = 5;
#define U(x, y, z) u[((z) * ny + (y)) * nx + (x)]
    for (int z = 0; z < nz; z++)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++) {
                int xl = x > 0 ? x - 1 : 0, xh = x < nx - 1 ? x + 1 : nx - 1;
                int yl = y > 0 ? y - 1 : 0, yh = y < ny - 1 ? y + 1 : ny - 1;
                int zl = z > 0 ? z - 1 : 0, zh = z < nz - 1 ? z + 1 : nz - 1;
                double s = (double)U(xl, y, z) + U(xh, y, z) + U(x, yl, z) + U(x, yh, z) +
                           U(x, y, zl) + U(x, y, zh);
                lap[(z * ny + y) * nx + x] = (float)((s - 6.0 * U(x, y, z)) * 4.0);
            }
#undef U
    write_f32("stencil3d.lap.npy", lap, 270);
}

static void gemm_tiled(void)
{
    float A[1850], B[1440], C[1184];
    rand_f32(171, -1, 1, A, 1850);
    rand_f32(172, -1, 1, B, 1440);
    rand_f32(173, -1, 1, C, 1184);
    for (int r = 0; r < 37; r++)
        for (int c = 0; c < 29; c++) {
            double acc = 0;
            for (int k = 0; k < 45; k++)
                acc += (double)A[r * 50 + k] * B[k * 32 + c];
            C[r * 32 + c] = (float)(1.5 * acc + -0.5 * C[r * 32 + c]);
        }
    write_f32("gemm_tiled.C.npy", C, 1184);
}

static void adam(void)
{
    float p[500], m[500], v[500];
    uint16_t g[500];
    rand_f32(181, -1, 1, p, 500);
    rand_f16(182, -1, 1, g, 500);
    rand_f32(183, -0.1, 0.1, m, 500);
    rand_f32(184, 0, 0.01, v, 500);
    const float lr = 0.001f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f, wd = 0.01f;
    const double bc1 = 1.0 - pow(b1, 3), bc2 = 1.0 - pow(b2, 3);
    for (int i = 0; i < 500; i++) {
        float gg = hf(g[i]) + wd * p[i];
        m[i] = b1 * m[i] + (1.0f - b1) * gg;
        v[i] = b2 * v[i] + (1.0f - b2) * gg * gg;
        double denom = sqrt(v[i] / bc2) + eps;
        p[i] = (float)(p[i] - lr / bc1 * m[i] / denom);
    }
    write_f32("adam.param.npy", p, 500);
    write_f32("adam.exp_avg.npy", m, 500);
    write_f32("adam.exp_avg_sq.npy", v, 500);
}

static void image_ops(void)
{
    int64_t in[364];
    uint8_t out[364];
    rand_int(191, 0, 255, in, 364);
    for (int i = 0; i < 91; i++) {
        double g = (0.2126 * in[4 * i] + 0.7152 * in[4 * i + 1] + 0.0722 * in[4 * i + 2]) / 255.0;
        double q = floor(g * 255.0 + 0.5);
        for (int k = 0; k < 3; k++)
            out[4 * i + k] = (uint8_t)(q > 255 ? 255 : q);
        out[4 * i + 3] = (uint8_t)in[4 * i + 3];
    }
    write_u8("grayscale.out.npy", out, 364);
    /* texture_gray.metal: rgba8unorm textures, BT.601 luma, alpha kept */
    rand_int(193, 0, 255, in, 364);
    for (int i = 0; i < 91; i++) {
        double g = (0.299 * in[4 * i] + 0.587 * in[4 * i + 1] + 0.114 * in[4 * i + 2]) / 255.0;
        double q = nearbyint(g * 255.0);
        for (int k = 0; k < 3; k++)
            out[4 * i + k] = (uint8_t)(q > 255 ? 255 : q);
        out[4 * i + 3] = (uint8_t)in[4 * i + 3];
    }
    write_u8("texture_gray.out.npy", out, 364);
    /* texture_resize.metal: bilinear, normalized, clamp_to_edge, 7 x 5 to 16 x 9 */
    int64_t img[140];
    uint8_t big[16 * 9 * 4];
    rand_int(194, 0, 255, img, 140);
    for (int y = 0; y < 9; y++)
        for (int x = 0; x < 16; x++) {
            double px = (x + 0.5) / 16 * 7 - 0.5, py = (y + 0.5) / 9 * 5 - 0.5;
            int x0 = (int)floor(px), y0 = (int)floor(py);
            double a = px - x0, b = py - y0;
            for (int c = 0; c < 4; c++) {
                double t[2][2];
                for (int j = 0; j < 2; j++)
                    for (int i = 0; i < 2; i++) {
                        int xx = x0 + i < 0 ? 0 : x0 + i > 6 ? 6 : x0 + i;
                        int yy = y0 + j < 0 ? 0 : y0 + j > 4 ? 4 : y0 + j;
                        t[j][i] = (double)img[4 * (yy * 7 + xx) + c] / 255.0;
                    }
                double v = (1 - a) * (1 - b) * t[0][0] + a * (1 - b) * t[0][1] +
                           (1 - a) * b * t[1][0] + a * b * t[1][1];
                big[4 * (y * 16 + x) + c] = (uint8_t)nearbyint(v * 255.0);
            }
        }
    write_u8("texture_resize.dst.npy", big, 16 * 9 * 4);
    float src[91], dst[91];
    rand_f32(192, 0, 1, src, 91);
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 13; x++) {
            float s = 0;
            for (int d = -2; d <= 2; d++) {
                int xx = x + d < 0 ? 0 : x + d > 12 ? 12 : x + d;
                s += src[y * 13 + xx];
            }
            dst[y * 13 + x] = s * 0.2f;
        }
    write_f32("box_blur_x.dst.npy", dst, 91);
}

/* ---- bfloat (bf16.metal) ------------------------------------------------------------------ */

/* The bfloat nearest x (finite, normal range), ties to even: x scaled to an 8-bit significand
 * in [128, 256), rounded by nearbyint (the default mode rounds ties to even). */
static float d2bf(double x)
{
    if (x == 0)
        return (float)x;
    int e;
    frexp(x, &e); /* |x| = m * 2^e, m in [0.5, 1) */
    return (float)ldexp(nearbyint(ldexp(x, 8 - e)), e - 8);
}

/* init {random: ...} for bfloat: the double, rounded once to bfloat. */
static void rand_bf(uint64_t seed, double min, double max, float *out, size_t n)
{
    sm_state = seed;
    for (size_t i = 0; i < n; i++)
        out[i] = d2bf(min + (max - min) * ((double)(sm_next() >> 11) * 0x1p-53));
}

static void bfloat_kernels(void)
{
    static float in[1000], out[1000], x[1024], y[1024], r[1024], sums[256];
    rand_bf(21, -100, 100, in, 1000);
    for (int i = 0; i < 1000; i++)
        out[i] = d2bf(in[i] * 0.7f); /* the float product, rounded once */
    write_f32("bf16_scale.out.npy", out, 1000);
    rand_bf(22, -8, 8, x, 1024);
    rand_bf(23, -8, 8, y, 1024);
    float alpha = d2bf(1.3f);
    for (int i = 0; i < 1024; i++)
        r[i] = d2bf(d2bf(alpha * x[i]) + y[i]);
    for (int i = 0; i < 256; i++)
        sums[i] = d2bf(((r[4 * i] + r[4 * i + 1]) + r[4 * i + 2]) + r[4 * i + 3]);
    write_f32("bf16_axpy.out.npy", r, 1024);
    write_f32("bf16_axpy.sums.npy", sums, 256);
}

/* ---- matrix types (matrix_transform.metal) ------------------------------------------------- */

/* m (column-major, cols columns of rows) times v: each row's products added left to right */
static void mat_vec(const float *m, int cols, int rows, const float *v, float *out)
{
    for (int r = 0; r < rows; r++) {
        float acc = m[r] * v[0];
        for (int c = 1; c < cols; c++)
            acc = acc + m[c * rows + r] * v[c];
        out[r] = acc;
    }
}

static void matrix_kernels(void)
{
    static const float model[16] = {1.5f, 0.25f, 0, 0.125f, -0.5f, 2, 0.75f, 0,
                                    0, 0.5f, 1, 0.25f, 1, -1, 4, 5};
    float pts[400], out[400];
    rand_f32(31, -2, 2, pts, 400);
    for (int i = 0; i < 100; i++) {
        float p[4];
        mat_vec(model, 4, 4, pts + 4 * i, p);
        for (int k = 0; k < 4; k++)
            out[4 * i + k] = p[k] / p[3];
    }
    write_f32("matrix_points.points.npy", out, 400);
    static const float um[16] = {0.5f, 1, -2, 0, 3, 0.25f, 1, 0, -1, 2, 0.75f, 0, 4, 5, 6, 1};
    static const float tint[9] = {1, 0.5f, 0, 0, 2, 0.25f, -1, 0, 1.5f};
    float m[9], mt[9], nrm[256], res[256];
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            m[c * 3 + r] = um[c * 4 + r];
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            mt[c * 3 + r] = m[r * 3 + c];
    /* first-column expansion: m00 * (m11 m22 - m21 m12) - m01 * (...) + m02 * (...) */
    float d = m[0] * (m[4] * m[8] - m[5] * m[7]);
    d = d - m[1] * (m[3] * m[8] - m[5] * m[6]);
    d = d + m[2] * (m[3] * m[7] - m[4] * m[6]);
    float s = 0.5f * (d > 0 ? 1.0f : d < 0 ? -1.0f : 0.0f);
    rand_f32(32, -1, 1, nrm, 256);
    for (int i = 0; i < 64; i++) {
        float n[3], t[3];
        mat_vec(mt, 3, 3, nrm + 4 * i, n);
        mat_vec(tint, 3, 3, n, t);
        for (int k = 0; k < 3; k++)
            res[4 * i + k] = t[k] * s;
        res[4 * i + 3] = d;
    }
    write_f32("matrix_normals.out.npy", res, 256);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
        return 2;
    }
    uint32_t probe = 1;
    if (*(unsigned char *)&probe != 1) {
        fprintf(stderr, REF_TOOL ": needs a little-endian host\n");
        return 1;
    }
    ref_out_dir = argv[1];
    binary_broadcast();
    unary();
    gather_scatter();
    transpose();
    scans();
    bitonic();
    argmax();
    conv1d_one("conv1d.output.npy", 5, 1, 2, 3, 2, 24, 112);
    conv1d_one("conv1d_nobias.output.npy", 3, 0, 1, 1, 1, 50, 114);
    gemv();
    histogram();
    fc_variants();
    particles();
    bits();
    stencil3d();
    gemm_tiled();
    adam();
    image_ops();
    ml_kernels();
    bfloat_kernels();
    matrix_kernels();
    functor_ops();
    return 0;
}
