/*
 * test_ops_matrix.c — pins the SIMD-group matrix ops (mma32, mma16) and the pair moves
 * (mkpair, lo32, hi32): the lane layout of docs/ISA.md "Matrices", written out here from
 * its bit description, products against a double-precision reference, half rounding,
 * and inactive lanes, which keep their destination.
 */
#include "sim_harness.h"

enum { N = 32 };
#define SENT 0xa5a5a5a5u

/* docs/ISA.md: lane l = b4 b3 b2 b1 b0 holds row 4*b4 + 2*b2 + b1, columns 4*b3 + 2*b0 + e. */
static uint32_t row_of(uint32_t l) { return 4 * (l >> 4 & 1) + 2 * (l >> 2 & 1) + (l >> 1 & 1); }
static uint32_t col_of(uint32_t l, uint32_t e) { return 4 * (l >> 3 & 1) + 2 * (l & 1) + e; }

/* Lays an 8x8 matrix out as lane l's two elements at [2l], [2l + 1]. */
static void spread(const float m[8][8], float out[2 * N])
{
    for (uint32_t l = 0; l < N; l++)
        for (uint32_t e = 0; e < 2; e++)
            out[2 * l + e] = m[row_of(l)][col_of(l, e)];
}

/* Runs `body` (a = r2:r3, b = r4:r5, c = r6:r7 loaded per lane; the result in r8:r9, preset
 * to SENT) on one SIMD-group; `guard` (may be empty) is put before body and closed after. */
static void run_mma(const char *body, const char *guard, const float *a, const float *b,
                    const float *c, uint32_t *out)
{
    char text[2048];
    snprintf(text, sizeof text,
             ".kernel m\n.regs 12\n.arg a, device, u0\n.arg b, device, u2\n.arg c, device, u4\n"
             ".arg out, device, u6\n"
             "    get_sr r1, thread_position_in_grid.x\n"
             "    shl r10, r1, 1\n"
             "    ld_dev.b32.x2 r2, u0, r10, 0\n"
             "    ld_dev.b32.x2 r4, u2, r10, 0\n"
             "    ld_dev.b32.x2 r6, u4, r10, 0\n"
             "    wait 0\n"
             "    mov r8, 0xa5a5a5a5\n"
             "    mov r9, 0xa5a5a5a5\n"
             "%s\n"
             "    %s\n"
             "%s\n"
             "    st_dev.b32.x2 r8, u6, r10\n"
             "    stop\n",
             guard[0] ? guard : "", body, guard[0] ? "    pop_exec 1" : "");
    Harness h;
    h_init(&h, text);
    memcpy(h_buffer(&h, 0, "a", 2 * N * 4, MEM_SPACE_DEVICE), a, 2 * N * 4);
    memcpy(h_buffer(&h, 1, "b", 2 * N * 4, MEM_SPACE_DEVICE), b, 2 * N * 4);
    memcpy(h_buffer(&h, 2, "c", 2 * N * 4, MEM_SPACE_DEVICE), c, 2 * N * 4);
    h_buffer(&h, 3, "out", 2 * N * 4, MEM_SPACE_DEVICE);
    h_run1(&h, N, N);
    h_expect_no_faults(&h);
    memcpy(out, h_data(&h, 3), 2 * N * 4);
    h_free(&h);
}

static uint64_t rng = 12345;

static void random_matrix(float m[8][8], bool small_ints)
{
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            uint64_t r = test_rng_next(&rng);
            m[i][j] = small_ints ? (float)((int)(r % 17) - 8)
                                 : (float)((double)(r >> 11) / 9007199254740992.0 * 4.0 - 2.0);
        }
}

static void reference(const float a[8][8], const float b[8][8], const float c[8][8],
                      double d[8][8])
{
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            double s = c[i][j];
            for (int k = 0; k < 8; k++)
                s += (double)a[i][k] * (double)b[k][j];
            d[i][j] = s;
        }
}

/* Three 8 x 8 matrices, laid out for the lanes, and their exact product-sum. */
typedef struct Mats {
    float a[8][8], b[8][8], c[8][8], la[2 * N], lb[2 * N], lc[2 * N];
    double d[8][8];
} Mats;

static void make_mats(Mats *m, bool small_ints)
{
    random_matrix(m->a, small_ints), random_matrix(m->b, small_ints);
    random_matrix(m->c, small_ints);
}

static void lay_out(Mats *m)
{
    spread(m->a, m->la), spread(m->b, m->lb), spread(m->c, m->lc);
    reference(m->a, m->b, m->c, m->d);
}

/* Small integers: every product and sum is exact in f32, so any order of the fma chain gives
 * the reference exactly; a wrong layout or operand order cannot. */
static void test_mma32_exact(void **state)
{
    (void)state;
    for (int trial = 0; trial < 4; trial++) {
        Mats m;
        make_mats(&m, true);
        lay_out(&m);
        uint32_t out[2 * N];
        run_mma("mma32 r8, r2, r4, r6", "", m.la, m.lb, m.lc, out);
        for (uint32_t l = 0; l < N; l++)
            for (uint32_t e = 0; e < 2; e++) {
                double want = m.d[row_of(l)][col_of(l, e)];
                if (h_bitsf(out[2 * l + e]) != (float)want)
                    fail_msg("trial %d lane %u element %u (row %u col %u): %g, want %g", trial, l,
                             e, row_of(l), col_of(l, e), h_bitsf(out[2 * l + e]), want);
            }
    }
}

/* Random values: within a few f32 roundings of the exact product (8 fmas of terms <= 4). */
static void test_mma32_random(void **state)
{
    (void)state;
    Mats m;
    make_mats(&m, false);
    lay_out(&m);
    uint32_t out[2 * N];
    run_mma("mma32 r8, r2, r4, r6", "", m.la, m.lb, m.lc, out);
    for (uint32_t l = 0; l < N; l++)
        for (uint32_t e = 0; e < 2; e++) {
            uint32_t r = row_of(l), col = col_of(l, e);
            assert_true(fabs(h_bitsf(out[2 * l + e]) - m.d[r][col]) <= 8 * 36 * 0x1p-24);
            /* exactly the documented order: fmaf over k = 0..7 from c (C's fmaf is
             * correctly rounded, as both of the simulator's paths are) */
            float chain = m.c[r][col];
            for (int k = 0; k < 8; k++)
                chain = fmaf(m.a[r][k], m.b[k][col], chain);
            assert_int_equal(out[2 * l + e], h_fbits(chain));
        }
    /* tmma (the tensor unit's op) computes the same bits */
    uint32_t t_out[2 * N];
    run_mma("tmma r8, r2, r4, r6, 1", "", m.la, m.lb, m.lc, t_out);
    assert_memory_equal(t_out, out, sizeof out);
    /* the destination may be a source: d = a * b + d */
    run_mma("mma32 r6, r2, r4, r6\n    mov64 r8, r6", "", m.la, m.lb, m.lc, out);
    for (uint32_t l = 0; l < N; l++)
        for (uint32_t e = 0; e < 2; e++)
            assert_true(fabs(h_bitsf(out[2 * l + e]) - m.d[row_of(l)][col_of(l, e)]) <=
                        8 * 36 * 0x1p-24);
}

/* mma16: each element rounded to binary16 (still f32 bits). Exact integer products up to
 * 8 * 64 + 8 fit binary16's 11 bits; scaled by 1/3 they need rounding. */
static void test_mma16(void **state)
{
    (void)state;
    Mats m;
    make_mats(&m, true);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            m.c[i][j] = m.c[i][j] + 1.0f / 3.0f; /* the sum is no longer a binary16 value */
    lay_out(&m);
    uint32_t out[2 * N];
    run_mma("mma16 r8, r2, r4, r6", "", m.la, m.lb, m.lc, out);
    for (uint32_t l = 0; l < N; l++)
        for (uint32_t e = 0; e < 2; e++) {
            /* the f32 chain is exact up to the rounding of c's third: round that result */
            double want = h_f16_value(h_d2h((double)(float)m.d[row_of(l)][col_of(l, e)]));
            assert_true(h_bitsf(out[2 * l + e]) == (float)want);
        }
}

/* Lanes outside the exec mask keep their destination; the active ones get the product,
 * which reads the inactive lanes' elements too. */
static void test_mma_inactive_lanes(void **state)
{
    (void)state;
    Mats m;
    make_mats(&m, true);
    lay_out(&m);
    uint32_t out[2 * N];
    run_mma("mma32 r8, r2, r4, r6", "    if_icmp.ult 1, r1, 20", m.la, m.lb, m.lc, out);
    for (uint32_t l = 0; l < N; l++)
        for (uint32_t e = 0; e < 2; e++) {
            if (l >= 20)
                assert_int_equal(out[2 * l + e], SENT);
            else
                assert_true(h_bitsf(out[2 * l + e]) == (float)m.d[row_of(l)][col_of(l, e)]);
        }
}

/* mkpair puts its first source low, lo32 and hi32 take the halves back. */
static void test_pair_moves(void **state)
{
    (void)state;
    Harness h;
    h_init(&h, ".kernel p\n.regs 10\n.arg out, device, u0\n"
               "    get_sr r1, thread_position_in_grid.x\n"
               "    imad r2, r1, 3, 7\n"
               "    mkpair r4, r2, r1\n"      /* (3i + 7, i) */
               "    hi32 r6, r4\n"            /* i */
               "    lo32 r7, r4\n"            /* 3i + 7 */
               "    mkpair r2, r7, r6\n"      /* into a pair overlapping its first source */
               "    shl r8, r1, 2\n"
               "    st_dev.b32.x2 r2, u0, r8\n"
               "    iadd r8, r8, 2\n"
               "    st_dev.b32.x2 r4, u0, r8\n"
               "    stop\n");
    uint32_t *out = h_buffer(&h, 0, "out", N * 16, MEM_SPACE_DEVICE);
    h_run1(&h, N, N);
    h_expect_no_faults(&h);
    for (uint32_t i = 0; i < N; i++) {
        assert_int_equal(out[4 * i], 3 * i + 7);
        assert_int_equal(out[4 * i + 1], i);
        assert_int_equal(out[4 * i + 2], 3 * i + 7);
        assert_int_equal(out[4 * i + 3], i);
    }
    h_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mma32_exact),
        cmocka_unit_test(test_mma32_random),
        cmocka_unit_test(test_mma16),
        cmocka_unit_test(test_mma_inactive_lanes),
        cmocka_unit_test(test_pair_moves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
