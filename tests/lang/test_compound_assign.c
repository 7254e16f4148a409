/*
 * test_compound_assign.c — `a op= b` is `a = (A)(a op b)` with `a op b` computed in the common
 * type of both sides, as C and MSL define it: `int i = -2; i += 1.5f` adds in float (-0.5)
 * and truncates to 0, not -2 + int(1.5f) = -1; `half h; h += f` rounds once, to half, after a
 * float add. Expected values are worked out here by hand.
 */
#include "construct_harness.h"

static const char *const KERNEL =
    "kernel void k(device int *oi [[buffer(0)]], device half *oh [[buffer(1)]],\n"
    "              device short *os [[buffer(2)]], device const float *f [[buffer(3)]]) {\n"
    "    int i = -2; i += 1.5f; oi[0] = i;\n"          /* -0.5 -> 0 */
    "    int j = 7; j *= 0.5f; oi[1] = j;\n"           /* 3.5 -> 3 */
    "    uint u = 10; u -= 0.25f; oi[2] = int(u);\n"   /* 9.75 -> 9 */
    "    int n = 100; n /= 8.0f; oi[3] = n;\n"         /* 12.5 -> 12 */
    "    short s = 7; s /= 100000; os[0] = s;\n"       /* 7 / 100000 = 0 (not 7 / -31072) */
    "    half h = 2048.0h; h += f[0]; oh[0] = h;\n"    /* 2048 + 0.75 = 2048.75 -> 2048 */
    "    half g = 1.0h; g += f[1]; oh[1] = g;\n"       /* 1 + 2^-11 + 2^-22: one rounding */
    "}\n";

static void test_compound_assignment_uses_the_common_type(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, KERNEL, NULL);
    int32_t *oi = ch_buf(&h, 0, 16);
    uint16_t *oh = ch_buf(&h, 1, 4);
    int16_t *os = ch_buf(&h, 2, 2);
    float *f = ch_buf(&h, 3, 8);
    f[0] = 0.75f;
    /* Rounding the float operand 2^-11 + 2^-22 to half first gives 2^-11 (a tie, to even),
     * and 1 + 2^-11 is again a tie between the halves 1 and 1 + 2^-10, to even: 1. One
     * rounding of the float sum 1 + 2^-11 + 2^-22 (exact in float) is above the tie: 1 + 2^-10. */
    f[1] = 0x1p-11f + 0x1p-22f;
    ch_run(&h, 1, 1);
    assert_int_equal(oi[0], 0);
    assert_int_equal(oi[1], 3);
    assert_int_equal(oi[2], 9);
    assert_int_equal(oi[3], 12);
    assert_int_equal(os[0], 0);
    assert_int_equal(oh[0], 0x6800);            /* 2048 */
    assert_int_equal(oh[1], 0x3c01);            /* 1 + 2^-10 */
    h_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compound_assignment_uses_the_common_type),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
