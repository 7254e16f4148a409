/*
 * teach_ref.c — independent CPU reference for the teaching kernels in kernels/ (basics,
 * reduce, ml, linalg, scan): for each it computes the expected outputs, and the inputs a
 * manifest reads from a file, and writes them as .npy files under the directory named on the
 * command line, in the same topic folders (OUT/basics/vector_add.c.npy, ...).
 *
 * It links nothing from lockstep: its .npy writer and SplitMix64 (the manifest's `random`
 * and `normal` inits, docs/manifest.md) are written from their definitions in ref_common.h,
 * so a bug in the simulator, the compiler or the manifest loader cannot leak into the
 * expected values.
 *
 *   cc -std=c11 -O1 -ffp-contract=off tests/ref/teach_ref.c -lm -o /tmp/teach_ref && /tmp/teach_ref kernels
 *
 * Where the result legitimately depends on choices the language leaves open (simd_sum's
 * order, fused multiply-add, the last bits of exp and rsqrt), the generator also computes an
 * alternative and stops with an error if it falls outside the tolerance the manifest states.
 * tests/seed/test_seed.c reruns this program and requires its output to be byte-identical
 * to the committed files.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define REF_TOOL "teach_ref"
#include "ref_common.h"

/* ---- output ------------------------------------------------------------------------------ */

static void make_dir(const char *topic)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", ref_out_dir, topic);
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "teach_ref: cannot create %s\n", path);
        exit(1);
    }
}

/* ---- the manifest's init forms ------------------------------------------------------------ */

/* init {random: {seed, min, max}} for float. */
static void random_f32(uint64_t seed, double min, double max, float *out, size_t n)
{
    sm_state = seed;
    for (size_t i = 0; i < n; i++)
        out[i] = (float)(min + (max - min) * ((double)(sm_next() >> 11) * 0x1p-53));
}

/* init {normal: {seed, mean, std}} for float: Box-Muller, the second value unused. */
static void normal_f32(uint64_t seed, double mean, double std, float *out, size_t n)
{
    sm_state = seed;
    for (size_t i = 0; i < n; i++) {
        double u1 = (double)((sm_next() >> 11) + 1) * 0x1p-53;
        double u2 = (double)(sm_next() >> 11) * 0x1p-53;
        out[i] = (float)(mean + std * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
    }
}

/* init {random: {seed, min, max}} for uint. */
static void random_u32(uint64_t seed, uint64_t min, uint64_t max, uint32_t *out, size_t n)
{
    sm_state = seed;
    for (size_t i = 0; i < n; i++)
        out[i] = (uint32_t)(min + sm_next() % (max - min + 1));
}

/* ---- basics -------------------------------------------------------------------------------- */

static void gen_vector_add(void)
{
    enum { N = 1000 };
    static float a[N], b[N], c[N];
    random_f32(1, -1, 1, a, N);
    for (int i = 0; i < N; i++) /* init: {range: [0, 0.125]} */
        b[i] = (float)(0.0 + 0.125 * i);
    for (int i = 0; i < N; i++)
        c[i] = a[i] + b[i];
    write_f32("basics/vector_add.c.npy", c, N);
}

/* Skewed bytes: half of them below 64, so the low bins are about 5 times fuller. */
static void gen_histogram(void)
{
    enum { N = 10000 };
    static uint8_t data[N];
    static uint32_t bins[256];
    sm_state = 2718;
    for (int i = 0; i < N; i++) {
        uint64_t r = sm_next();
        data[i] = (uint8_t)((r & 1) ? (r >> 8) % 64 : (r >> 8) % 256);
        bins[data[i]]++;
    }
    write_u8("basics/histogram.data.npy", data, N);
    write_u32("basics/histogram.bins.npy", bins, 256);
}

/* ---- reduce -------------------------------------------------------------------------------- */

/* Multiples of 1/16 in [-8, 8]: every partial sum of 16384 of them is a multiple of 1/16
 * below 2^17 in magnitude, 21 significant bits, exact in float: any order gives one result. */
static void gen_reduce(void)
{
    enum { N = 16384, TG = 256 };
    static float in[N], partials[N / TG];
    sm_state = 1618;
    for (int i = 0; i < N; i++)
        in[i] = (float)((int)(sm_next() % 257) - 128) / 16.0f;
    double total = 0;
    for (int g = 0; g < N / TG; g++) {
        double s = 0;
        for (int t = 0; t < TG; t++)
            s += in[g * TG + t];
        partials[g] = (float)s;
        total += s;
    }
    float t32 = (float)total;
    write_f32("reduce/reduce.in.npy", in, N);
    write_f32("reduce/reduce.partials.npy", partials, N / TG);
    write_f32("reduce/reduce.total.npy", &t32, 1);
}

/* ---- ml ------------------------------------------------------------------------------------ */

#define SOFTMAX_RTOL 1e-5

static void gen_softmax(void)
{
    enum { ROWS = 16, COLS = 777 };
    static float in[ROWS * COLS], out[ROWS * COLS];
    random_f32(7, -4, 4, in, ROWS * COLS);
    for (int r = 0; r < ROWS; r++) {
        const float *x = in + r * COLS;
        float m = -INFINITY;
        for (int j = 0; j < COLS; j++)
            m = fmaxf(m, x[j]);
        double sum = 0;
        float alt_sum = 0; /* exp as exp2 of a float product, summed in reverse, in float */
        for (int j = 0; j < COLS; j++)
            sum += (float)exp((double)(x[j] - m));
        for (int j = COLS - 1; j >= 0; j--)
            alt_sum += exp2f((x[j] - m) * 1.44269504f);
        float inv = 1.0f / (float)sum, alt_inv = 1.0f / alt_sum;
        for (int j = 0; j < COLS; j++) {
            out[r * COLS + j] = (float)exp((double)(x[j] - m)) * inv;
            check_tolerance("softmax", (size_t)(r * COLS + j), out[r * COLS + j],
                            exp2f((x[j] - m) * 1.44269504f) * alt_inv, SOFTMAX_RTOL, 0);
        }
    }
    write_f32("ml/softmax.out.npy", out, ROWS * COLS);
}

#define RMS_RTOL 1e-5

static void gen_rmsnorm(void)
{
    enum { ROWS = 8, COLS = 1000, TG = 256 };
    static float in[ROWS * COLS], w[COLS], out[ROWS * COLS];
    normal_f32(8, 0, 2, in, ROWS * COLS);
    random_f32(9, 0.5, 1.5, w, COLS);
    const float eps = (float)1e-6;
    for (int r = 0; r < ROWS; r++) {
        const float *x = in + r * COLS;
        /* The kernel squares in float; the order of the additions is simd_sum's. */
        double sum = 0;
        for (int j = 0; j < COLS; j++)
            sum += x[j] * x[j];
        float scale = (float)(1.0 / sqrt((double)((float)sum / (float)COLS + eps)));
        /* Alternative: per-thread fused multiply-add sums, added in reverse, in float. */
        float part[TG] = {0}, alt_sum = 0;
        for (int j = 0; j < COLS; j++)
            part[j % TG] = fmaf(x[j], x[j], part[j % TG]);
        for (int t = TG - 1; t >= 0; t--)
            alt_sum += part[t];
        float alt_scale = 1.0f / sqrtf(alt_sum / (float)COLS + eps);
        for (int j = 0; j < COLS; j++) {
            out[r * COLS + j] = x[j] * scale * w[j];
            check_tolerance("rmsnorm", (size_t)(r * COLS + j), out[r * COLS + j],
                            x[j] * alt_scale * w[j], RMS_RTOL, 0);
        }
    }
    write_f32("ml/rmsnorm.out.npy", out, ROWS * COLS);
}

/* ---- linalg -------------------------------------------------------------------------------- */

#define MATMUL_TOL 1e-5

/* C = A * B for A (M x K) and B (K x N) from the manifest's random inits, float, k in order,
 * multiply and add rounded separately; the fused order checked to stay inside MATMUL_TOL. */
static void gen_matmul(const char *name, int M, int N, int K, uint64_t seed_a, uint64_t seed_b,
                       const char *path)
{
    float *a = calloc((size_t)(M * K), sizeof *a), *b = calloc((size_t)(K * N), sizeof *b);
    float *c = calloc((size_t)(M * N), sizeof *c);
    if (!a || !b || !c) {
        fprintf(stderr, "teach_ref: out of memory\n");
        exit(1);
    }
    random_f32(seed_a, -1, 1, a, (size_t)(M * K));
    random_f32(seed_b, -1, 1, b, (size_t)(K * N));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0.0f, fused = 0.0f;
            for (int k = 0; k < K; k++) {
                acc += a[i * K + k] * b[k * N + j];
                fused = fmaf(a[i * K + k], b[k * N + j], fused);
            }
            c[i * N + j] = acc;
            check_tolerance(name, (size_t)(i * N + j), acc, fused, MATMUL_TOL, MATMUL_TOL);
        }
    write_f32(path, c, (size_t)(M * N));
    free(a);
    free(b);
    free(c);
}

/* ---- scan ---------------------------------------------------------------------------------- */

static void gen_prefix_scan(void)
{
    enum { N = 2000, TG = 256, BLOCKS = 8 };
    static uint32_t in[N], out[N], sums[BLOCKS];
    random_u32(12, 0, 100, in, N);
    for (int b = 0; b < BLOCKS; b++) {
        uint32_t s = 0;
        for (int i = b * TG; i < (b + 1) * TG && i < N; i++)
            out[i] = s += in[i];
        sums[b] = s;
    }
    write_u32("scan/prefix_scan.out.npy", out, N);
    write_u32("scan/prefix_scan.block_sums.npy", sums, BLOCKS);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: teach_ref OUT_DIR\n");
        return 2;
    }
    uint32_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    if (first != 1) {
        fprintf(stderr, "teach_ref: needs a little-endian host\n");
        return 1;
    }
    sm_state = 1;
    if (sm_next() != 0x910a2dec89025cc1ull) {
        fprintf(stderr, "teach_ref: SplitMix64 does not match its definition\n");
        return 1;
    }
    ref_out_dir = argv[1];
    static const char *const topics[] = {"basics", "reduce", "ml", "linalg", "scan"};
    for (size_t i = 0; i < sizeof topics / sizeof topics[0]; i++)
        make_dir(topics[i]);
    gen_vector_add();
    gen_histogram();
    gen_reduce();
    gen_softmax();
    gen_rmsnorm();
    gen_matmul("matmul_tiled", 50, 70, 45, 10, 11, "linalg/matmul_tiled.C.npy");
    gen_matmul("matmul_simdgroup", 64, 96, 40, 12, 13, "linalg/matmul_simdgroup.C.npy");
    gen_prefix_scan();
    return 0;
}
