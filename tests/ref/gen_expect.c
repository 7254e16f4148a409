/*
 * gen_expect.c — independent CPU reference for the hand-written kernels in kernels/asm/.
 *
 * For every kernel it computes the expected output (and, where a manifest reads its input
 * from a file, that input too) and writes them as .npy files into the directory named on the
 * command line. It links nothing from lockstep on purpose: its .npy writer and SplitMix64
 * (the manifest's `random` init, both in ref_common.h) and binary16 rounding are written from
 * their definitions, so a bug in the simulator or in the manifest loader cannot leak into the
 * expected values.
 *
 *   cc -std=c11 -O1 tests/ref/gen_expect.c -lm -o /tmp/gen && /tmp/gen kernels/asm
 *
 * tests/e2e/test_kernels.c builds and runs this program and requires every file it writes to
 * be byte-identical to the committed one, so the committed files can never go stale.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REF_TOOL "gen_expect"
#include "ref_common.h"

/* init: {random: {seed, min, max}} for float: a double in [min, max), rounded to float. */
static void random_f32(uint64_t seed, double min, double max, float *out, size_t n)
{
    sm_state = seed;
    for (size_t i = 0; i < n; i++) {
        double u = (double)(sm_next() >> 11) * 0x1p-53;
        out[i] = (float)(min + (max - min) * u);
    }
}

/* init: {random: {seed, min, max}} for integer types: min + next() % (max - min + 1). */
static void random_u32(uint64_t seed, int64_t min, int64_t max, uint32_t *out, size_t n)
{
    sm_state = seed;
    for (size_t i = 0; i < n; i++)
        out[i] = (uint32_t)(min + (int64_t)(sm_next() % (uint64_t)(max - min + 1)));
}

/* ---- binary16 -------------------------------------------------------------------------- */

static double half_to_double(uint16_t h)
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

/* Rounds the exact value hi + lo to binary16, nearest, ties to even. lo is the small error
 * term of a TwoSum (|lo| <= ulp(hi) / 2 in double): it can only break a tie that hi sits on
 * exactly, which is what makes the fused multiply-add below correctly rounded. */
static uint16_t half_round2(double hi, double lo)
{
    uint16_t sign = signbit(hi) ? 0x8000 : 0;
    if (hi == 0)
        return sign;
    if (isnan(hi))
        return 0x7e00;
    double a = fabs(hi);
    if (sign)
        lo = -lo;
    if (isinf(a))
        return sign | 0x7c00;
    int e;
    frexp(a, &e); /* a = m * 2^e, m in [0.5, 1): the leading bit has weight 2^(e-1) */
    int ulp_exp = e - 1 - 10;
    if (ulp_exp < -24)
        ulp_exp = -24; /* subnormals: fixed spacing 2^-24 */
    double q = ldexp(a, -ulp_exp); /* exact: a power-of-two scale */
    double fl = floor(q), frac = q - fl;
    int up = frac > 0.5 || (frac == 0.5 && (lo > 0 || (lo == 0 && fmod(fl, 2.0) != 0)));
    double r = ldexp(fl + up, ulp_exp); /* the rounded magnitude, exactly representable */
    if (r >= 65536.0)
        return sign | 0x7c00;
    if (r < 0x1p-14) /* subnormal: the mantissa field counts units of 2^-24 */
        return sign | (uint16_t)ldexp(r, 24);
    frexp(r, &e);
    int exp_field = e - 1 + 15;
    uint16_t mant = (uint16_t)(ldexp(r, -(e - 1)) * 1024.0 - 1024.0);
    return sign | (uint16_t)(exp_field << 10) | mant;
}

static uint16_t half_round(double x) { return half_round2(x, 0.0); }

/* binary16 arithmetic: sums and products of two halves are exact in double, so one rounding
 * gives the correctly rounded result. */
static uint16_t half_add(uint16_t a, uint16_t b) { return half_round(half_to_double(a) + half_to_double(b)); }
static uint16_t half_mul(uint16_t a, uint16_t b) { return half_round(half_to_double(a) * half_to_double(b)); }

/* a * b + c rounded once: the product is exact in double, the sum is split with TwoSum into
 * hi + lo exactly, and half_round2 uses lo to settle ties. */
static uint16_t half_fma(uint16_t a, uint16_t b, uint16_t c)
{
    double p = half_to_double(a) * half_to_double(b), q = half_to_double(c);
    if (isinf(p) || isinf(q) || isnan(p) || isnan(q))
        return half_round(p + q);
    double s = p + q;
    double bb = s - p;
    double lo = (p - (s - bb)) + (q - bb);
    return half_round2(s, lo);
}

/* ---- kernels ---------------------------------------------------------------------------- */

/* vector_add.yaml: a = range [0, 0.25], b = random {seed 42, -1..1}, c filled with -1,
 * grid 1000 threads, n = 997: c[i] = a[i] + b[i] for i < 997, c[997..999] untouched. */
static void gen_vector_add(void)
{
    enum { COUNT = 1000, N = 997 };
    static float a[COUNT], b[COUNT], c[COUNT];
    for (int i = 0; i < COUNT; i++)
        a[i] = (float)(0.0 + 0.25 * i);
    random_f32(42, -1.0, 1.0, b, COUNT);
    for (int i = 0; i < COUNT; i++)
        c[i] = i < N ? a[i] + b[i] : -1.0f;
    write_f32("vector_add.expect.npy", c, COUNT);
}

/* threadgroup_sum.yaml: 16 threadgroups of 256 threads. The inputs are multiples of 1/16 in
 * [-8, 8], so every partial sum is exact in float and the order the simulator sums in cannot
 * change the result. */
static void gen_threadgroup_sum(void)
{
    enum { GROUPS = 16, TG = 256 };
    static float in[GROUPS * TG];
    float out[GROUPS];
    sm_state = 2024;
    for (int i = 0; i < GROUPS * TG; i++)
        in[i] = (float)((int)(sm_next() % 257) - 128) / 16.0f;
    for (int g = 0; g < GROUPS; g++) {
        double s = 0;
        for (int t = 0; t < TG; t++)
            s += in[g * TG + t];
        out[g] = (float)s;
    }
    write_f32("threadgroup_sum.in.npy", in, GROUPS * TG);
    write_f32("threadgroup_sum.expect.npy", out, GROUPS);
}

/* divergent_if.yaml: x = random uint {seed 3, 1..1000}; one Collatz step per thread. */
static void gen_divergent_if(void)
{
    enum { COUNT = 256 };
    uint32_t x[COUNT], out[COUNT];
    random_u32(3, 1, 1000, x, COUNT);
    for (int i = 0; i < COUNT; i++)
        out[i] = (x[i] & 1) ? 3 * x[i] + 1 : x[i] / 2;
    write_u32("divergent_if.expect.npy", out, COUNT);
}

/* loop_break_continue.yaml: start = random uint {seed 11, 0..9999}; the Collatz loop with its
 * break (n <= 1) and continue (n even). */
static void gen_loop_break_continue(void)
{
    enum { COUNT = 256 };
    uint32_t start[COUNT], steps[COUNT], odd[COUNT];
    random_u32(11, 0, 9999, start, COUNT);
    for (int i = 0; i < COUNT; i++) {
        uint32_t n = start[i], s = 0, o = 0;
        for (;;) {
            if (n <= 1)
                break;
            s++;
            if ((n & 1) == 0) {
                n >>= 1;
                continue;
            }
            n = 3 * n + 1;
            o++;
        }
        steps[i] = s;
        odd[i] = o;
    }
    write_u32("loop_break_continue.steps.expect.npy", steps, COUNT);
    write_u32("loop_break_continue.odd_steps.expect.npy", odd, COUNT);
}

/* half_rounding.yaml: one case per thread, (a, b, c) -> (a + b, a * b, fma(a, b, c),
 * (a * b) + c rounded twice). Keep in step with the table in half_rounding.s. */
static void gen_half_rounding(void)
{
    static const double cases[][3] = {
        {2048, 1, 0},                       /*  0: 2049 is a tie -> even 2048 */
        {2048, 3, 0},                       /*  1: 2051 is a tie -> even 2052 */
        {2048, 2, 0},                       /*  2: 2050 exact */
        {1, 0x1p-11, 0},                    /*  3: 1 + 2^-11 is a tie -> 1 */
        {1 + 0x1p-10, 0x1p-11, 0},          /*  4: tie -> up to 1 + 2^-9 */
        {65504, 15, 0},                     /*  5: max half; + 15 rounds back down */
        {65504, 16, 0},                     /*  6: + 16 is a tie with 65536 -> inf */
        {-65504, -16, 0},                   /*  7: -> -inf */
        {300, 300, 0},                      /*  8: product 90000 -> inf */
        {0x1p-14, 0.5, 0},                  /*  9: min normal * 0.5 = 2^-15 subnormal */
        {0x1p-24, 0.5, 0},                  /* 10: min subnormal * 0.5 ties -> 0 */
        {0x3p-24, 0.5, 0},                  /* 11: 1.5 * 2^-24 ties -> 2^-23 */
        {0x1p-12, 0x1p-12, 0},              /* 12: 2^-24 exact */
        {0x1p-24, 0x1p-24, 0},              /* 13: subnormal + subnormal = 2^-23 */
        {1 + 0x1p-10, 1 + 0x1p-10, -(1 + 0x1p-9)}, /* 14: fma keeps 2^-20, mul+add gives 0 */
        {256, 256, -65504},                 /* 15: 65536 overflows alone; fma gives 32 */
        {3, 1.0 / 3.0, -1},                 /* 16: 3 * half(1/3) rounds to 1; fma -2^-12 */
        {0.1, 0.2, -0.3},                   /* 17: 0.1 + 0.2 != 0.3 in half too */
    };
    enum { N = sizeof cases / sizeof cases[0] };
    uint16_t in[N * 3], out[N * 4];
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 3; k++)
            in[i * 3 + k] = half_round(cases[i][k]); /* 1/3, 0.1, ... round to nearest half */
        uint16_t a = in[i * 3], b = in[i * 3 + 1], c = in[i * 3 + 2];
        out[i * 4 + 0] = half_add(a, b);
        out[i * 4 + 1] = half_mul(a, b);
        out[i * 4 + 2] = half_fma(a, b, c);
        out[i * 4 + 3] = half_add(half_mul(a, b), c);
    }
    write_f16("half_rounding.in.npy", in, N * 3);
    write_f16("half_rounding.expect.npy", out, N * 4);
}

/* atomic_histogram.yaml: 4096 values, mostly the sum of two dice 0..31 (a triangle over
 * bins 0..62), one in 16 an out-of-range value >= 64 that the kernel ignores. */
static void gen_atomic_histogram(void)
{
    enum { COUNT = 4096, BINS = 64 };
    static uint32_t data[COUNT];
    uint32_t bins[BINS] = {0};
    sm_state = 7;
    for (int i = 0; i < COUNT; i++) {
        if (sm_next() % 16 == 0) {
            data[i] = 64 + (uint32_t)(sm_next() % 1000);
        } else {
            uint32_t d1 = (uint32_t)(sm_next() % 32);
            uint32_t d2 = (uint32_t)(sm_next() % 32);
            data[i] = d1 + d2;
        }
        if (data[i] < BINS)
            bins[data[i]]++;
    }
    write_u32("atomic_histogram.in.npy", data, COUNT);
    write_u32("atomic_histogram.expect.npy", bins, BINS);
}

/* shuffle_ballot.yaml: x = random uint {seed 5, 0..99}, two full SIMD-groups. Follows the
 * ISA table's definitions: shfl reads lane (b & 31); shfl_down returns its own value when
 * lane + b is past 31. */
static void gen_shuffle_ballot(void)
{
    enum { COUNT = 64, W = 32 };
    uint32_t x[COUNT], rev[COUNT], xsum[COUNT], dsum[COUNT], ballot[COUNT], count[COUNT];
    random_u32(5, 0, 99, x, COUNT);
    for (int g = 0; g < COUNT / W; g++) {
        const uint32_t *v = x + g * W;
        uint32_t bf[W], dn[W], tmp[W], mask = 0;
        for (int l = 0; l < W; l++) {
            rev[g * W + l] = v[l ^ 31];
            bf[l] = dn[l] = v[l];
            if (v[l] >= 50)
                mask |= 1u << l;
        }
        for (int d = 16; d >= 1; d /= 2) {
            for (int l = 0; l < W; l++)
                tmp[l] = bf[l] + bf[l ^ d];
            memcpy(bf, tmp, sizeof bf);
            for (int l = 0; l < W; l++)
                tmp[l] = dn[l] + (l + d < W ? dn[l + d] : dn[l]);
            memcpy(dn, tmp, sizeof dn);
        }
        uint32_t pop = 0;
        for (int l = 0; l < W; l++)
            pop += (mask >> l) & 1;
        for (int l = 0; l < W; l++) {
            xsum[g * W + l] = bf[l];
            dsum[g * W + l] = dn[l];
            ballot[g * W + l] = mask;
            count[g * W + l] = pop;
        }
    }
    write_u32("shuffle_ballot.reversed.expect.npy", rev, COUNT);
    write_u32("shuffle_ballot.xor_sum.expect.npy", xsum, COUNT);
    write_u32("shuffle_ballot.down_sum.expect.npy", dsum, COUNT);
    write_u32("shuffle_ballot.ballot.expect.npy", ballot, COUNT);
    write_u32("shuffle_ballot.set_lanes.expect.npy", count, COUNT);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
        return 2;
    }
    const uint16_t probe = 1;
    if (*(const unsigned char *)&probe != 1) {
        fprintf(stderr, "gen_expect: needs a little-endian host\n");
        return 1;
    }
    ref_out_dir = argv[1];
    gen_vector_add();
    gen_threadgroup_sum();
    gen_divergent_if();
    gen_loop_break_continue();
    gen_half_rounding();
    gen_atomic_histogram();
    gen_shuffle_ballot();
    return 0;
}
