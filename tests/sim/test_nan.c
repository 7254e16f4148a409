/*
 * test_nan.c — NaN results are the same bits in every mode (docs/ISA.md, "Floating point"):
 * every float arithmetic result that is a NaN is the canonical quiet NaN (0x7fc00000, or
 * 0x7e00 in f16), whatever NaNs its operands held; a move (fmov) keeps a NaN's bits. Found
 * by the run fuzzer (tests/e2e/test_run_fuzz_smoke.c): fadd32 of two NaNs gave one operand's
 * payload in functional mode and the other's in timed mode, as the host compiler ordered
 * the operands differently in the two copies of the interpreter.
 *
 * Expected values come from the host's C arithmetic on the non-NaN cases and from the
 * canonical constants on the NaN ones.
 */
#include "sim_harness.h"

#include <math.h>

enum { LANES = 32, RESULTS = 10, QNAN32 = 0x7fc00000, QNAN16 = 0x7e00 };

static const char *const kernel =
    ".kernel nans\n"
    ".regs 12\n"
    ".arg a, device, u0\n"
    ".arg b, device, u2\n"
    ".arg c, device, u4\n"
    ".arg out, device, u6\n"
    ".arg sum, device, u8\n"
    "    get_sr r1, thread_position_in_grid.x\n"
    "    ld_dev.b32 r2, u0, r1, 0\n"
    "    ld_dev.b32 r3, u2, r1, 0\n"
    "    ld_dev.b32 r4, u4, r1, 0\n"
    "    wait 0\n"
    "    imul r5, r1, 10\n"
    "    fadd32 r6, r2, r3\n"
    "    st_dev.b32 r6, u6, r5\n"
    "    iadd r5, r5, 1\n"
    "    fmul32 r6, r3, r2\n"
    "    st_dev.b32 r6, u6, r5\n"
    "    iadd r5, r5, 1\n"
    "    ffma32 r6, r2, r3, r4\n"
    "    st_dev.b32 r6, u6, r5\n"
    "    iadd r5, r5, 1\n"
    "    fmin32 r6, r2, r3\n"
    "    st_dev.b32 r6, u6, r5\n"
    "    iadd r5, r5, 1\n"
    "    fdiv32 r6, r2, r3\n"
    "    st_dev.b32 r6, u6, r5\n"
    "    iadd r5, r5, 1\n"
    "    sqrt32 r6, r2\n"
    "    st_dev.b32 r6, u6, r5\n"
    "    iadd r5, r5, 1\n"
    "    fmov32 r6, -r2\n"
    "    st_dev.b32 r6, u6, r5\n"
    "    iadd r5, r5, 1\n"
    "    mov r6, 0\n"
    "    fadd16 r6l, r2l, r3l\n"
    "    st_dev.b32 r6, u6, r5\n"
    "    iadd r5, r5, 1\n"
    "    fmov16 r6l, -r4l\n"
    "    st_dev.b32 r6, u6, r5\n"
    "    iadd r5, r5, 1\n"
    "    simd_red.sum.f32 r6, r2\n"
    "    st_dev.b32 r6, u6, r5\n"
    "    atom_dev.add.f32 r7, u8, 0, r2\n"
    "    stop\n";

/* Operand bits per lane: NaNs of both signs, signaling and quiet, with payloads; invalid
 * operations (inf * 0, inf - inf, sqrt(-1)); and plain numbers. The rest repeat lane 5.
 * C[1]'s low half is a binary16 signaling NaN with a payload. */
static const uint32_t A[6] = {0x7fa00001, 0x7fc00005, 0x7f800000,
                              0xbf800000, 0x7f800000, 0x40000000};
static const uint32_t B[6] = {0xffb00002, 0x3f800000, 0x00000000,
                              0xff800001, 0xff800000, 0x40400000};
static const uint32_t C[6] = {0x3f800000, 0xffc07d01, 0x3f800000,
                              0x3f800000, 0x3f800000, 0x3f800000};

static float f(uint32_t x)
{
    float v;
    memcpy(&v, &x, 4);
    return v;
}

static uint32_t u(float v)
{
    uint32_t x;
    memcpy(&x, &v, 4);
    return isnan(v) ? QNAN32 : x;
}

/* fmin32 as docs/ISA.md defines it: a NaN operand yields the other (unlike C's fminf, which
 * gives a NaN for a signaling one) */
static float min_isa(float x, float y) { return isnan(x) ? y : isnan(y) ? x : x < y ? x : y; }

/* binary16 bits of the low halves' sum: every case here is a NaN, an infinity, a zero or a
 * small integer, so the f32 sum converts exactly */
static uint32_t half_sum(uint16_t a, uint16_t b)
{
    double x = h_f16_value(a), y = h_f16_value(b), s = x + y;
    return isnan(s) ? QNAN16 : h_d2h(s);
}

static void run_mode(SimMode mode)
{
    Harness h;
    h_init(&h, kernel);
    uint32_t *a = h_buffer(&h, 0, "a", LANES * 4, MEM_SPACE_DEVICE);
    uint32_t *b = h_buffer(&h, 1, "b", LANES * 4, MEM_SPACE_DEVICE);
    uint32_t *c = h_buffer(&h, 2, "c", LANES * 4, MEM_SPACE_DEVICE);
    h_buffer(&h, 3, "out", LANES * RESULTS * 4, MEM_SPACE_DEVICE);
    uint32_t *sum = h_buffer(&h, 4, "sum", 4, MEM_SPACE_DEVICE);
    *sum = 0x7f900003; /* an atomic add to a NaN in memory */
    for (int l = 0; l < LANES; l++) {
        a[l] = A[l < 6 ? l : 5];
        b[l] = B[l < 6 ? l : 5];
        c[l] = C[l < 6 ? l : 5];
    }
    h_grid(&h, false, LANES, 1, 1, LANES, 1, 1);
    h.launch.mode = mode;
    h_run(&h);
    h_expect_no_faults(&h);
    const uint32_t *out = h_data(&h, 3);
    for (int l = 0; l < LANES; l++) {
        const uint32_t *r = out + l * RESULTS;
        const float x = f(a[l]), y = f(b[l]), z = f(c[l]);
        const uint32_t want[RESULTS - 1] = {
            u(x + y), u(y * x), u(fmaf(x, y, z)), u(min_isa(x, y)), u(x / y), u(sqrtf(x)),
            a[l] ^ 0x80000000u, /* fmov -a: the sign flipped, a NaN's payload kept */
            half_sum((uint16_t)a[l], (uint16_t)b[l]),
            (c[l] & 0xffffu) ^ 0x8000u, /* fmov16 -c: lane 1's half NaN keeps its payload */
        };
        for (int k = 0; k < RESULTS - 1; k++)
            if (r[k] != want[k])
                fail_msg("mode %d lane %d result %d: got 0x%08x, want 0x%08x", mode, l, k, r[k],
                         want[k]);
        assert_int_equal(r[RESULTS - 1], QNAN32); /* lanes 0, 1 and 3 hold NaNs */
    }
    assert_int_equal(*sum, QNAN32);
    h_free(&h);
}

static void test_nan_results_are_canonical_in_every_mode(void **state)
{
    (void)state;
    run_mode(SIM_MODE_FUNCTIONAL);
    run_mode(SIM_MODE_TIMED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nan_results_are_canonical_in_every_mode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
