/*
 * test_numeric_limits.c — metal::numeric_limits<T> through the whole compiler: each member
 * of the float types (float, half, bfloat) and of the integer types, read in a kernel and
 * stored, against C's <float.h> and <limits.h> and the formats' known values; inside a
 * template (MLX's `Limits<T>` over numeric_limits); as a constant (an array size); a kernel's
 * own numeric_limits kept; and the forms refused, with their messages.
 */
#include "construct_harness.h"

#include <float.h>
#include <limits.h>
#include <math.h>

static const char *float_src =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void k(device float* o [[buffer(0)]], device int* d [[buffer(1)]]) {\n"
    "  o[0] = numeric_limits<float>::max();\n"
    "  o[1] = metal::numeric_limits<float>::min();\n"
    "  o[2] = numeric_limits<float>::lowest();\n"
    "  o[3] = numeric_limits<float>::epsilon();\n"
    "  o[4] = numeric_limits<float>::infinity();\n"
    "  o[5] = numeric_limits<float>::quiet_NaN();\n"
    "  o[6] = numeric_limits<float>::denorm_min();\n"
    "  o[7] = float(numeric_limits<half>::max());\n"
    "  o[8] = float(numeric_limits<half>::min());\n"
    "  o[9] = float(numeric_limits<half>::epsilon());\n"
    "  o[10] = float(numeric_limits<half>::lowest());\n"
    "  o[11] = float(numeric_limits<bfloat>::max());\n"
    "  o[12] = float(numeric_limits<bfloat>::epsilon());\n"
    "  o[13] = -numeric_limits<half>::infinity();\n"
    "  d[0] = numeric_limits<float>::digits;\n"
    "  d[1] = numeric_limits<half>::digits;\n"
    "  d[2] = numeric_limits<float>::max_exponent;\n"
    "  d[3] = numeric_limits<float>::is_integer ? 1 : 0;\n"
    "  d[4] = numeric_limits<half>::has_infinity ? 1 : 0;\n"
    "  d[5] = numeric_limits<float>::digits10;\n"
    "}\n";

static void test_float_limits(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, float_src, NULL);
    float *o = ch_buf(&h, 0, 16 * 4);
    int32_t *d = ch_buf(&h, 1, 8 * 4);
    ch_run(&h, 1, 1);
    const float want[] = {FLT_MAX, FLT_MIN, -FLT_MAX, FLT_EPSILON, INFINITY, 0.0f,
                          0x1p-149f, 65504.0f, 0x1p-14f, 0x1p-10f, -65504.0f,
                          0x1.fep127f, 0x1p-7f, -INFINITY};
    for (int i = 0; i < 14; i++)
        if (i == 5)
            assert_true(isnan(o[5]));
        else
            CH_FEQ(o[i], want[i], i);
    const int want_d[] = {FLT_MANT_DIG, 11, FLT_MAX_EXP, 0, 1, FLT_DIG};
    for (int i = 0; i < 6; i++)
        CH_IEQ(d[i], want_d[i], i);
    h_free(&h);
}

static const char *int_src =
    "kernel void k(device long* o [[buffer(0)]]) {\n"
    "  o[0] = numeric_limits<int>::max();\n"
    "  o[1] = numeric_limits<int>::min();\n"
    "  o[2] = numeric_limits<int>::lowest();\n"
    "  o[3] = numeric_limits<uint>::max();\n"
    "  o[4] = numeric_limits<uint>::min();\n"
    "  o[5] = numeric_limits<short>::min();\n"
    "  o[6] = numeric_limits<ushort>::max();\n"
    "  o[7] = numeric_limits<char>::min();\n"
    "  o[8] = numeric_limits<uchar>::max();\n"
    "  o[9] = numeric_limits<long>::min();\n"
    "  o[10] = long(numeric_limits<ulong>::max() >> 1);\n"
    "  o[11] = numeric_limits<int>::digits;\n"
    "  o[12] = numeric_limits<uint>::digits;\n"
    "  o[13] = numeric_limits<bool>::max() ? 1 : 0;\n"
    "  o[14] = numeric_limits<int>::epsilon();\n"
    "  o[15] = numeric_limits<short>::is_signed + 2 * numeric_limits<ushort>::is_signed;\n"
    "  o[16] = numeric_limits<int>::digits10;\n"
    "}\n";

static void test_integer_limits(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, int_src, NULL);
    int64_t *o = ch_buf(&h, 0, 17 * 8);
    ch_run(&h, 1, 1);
    const int64_t want[] = {INT_MAX, INT_MIN, INT_MIN, UINT_MAX, 0, SHRT_MIN, USHRT_MAX,
                            SCHAR_MIN, UCHAR_MAX, LLONG_MIN, LLONG_MAX, 31, 32, 1, 0, 1, 9};
    for (int i = 0; i < 17; i++)
        CH_IEQ(o[i], want[i], i);
    h_free(&h);
}

/* MLX's pattern: a template reads the limits of its own type parameter; and a member used
 * where a constant must be (an array size). */
static const char *tmpl_src =
    "template <typename T> struct Limits {\n"
    "  static constexpr T finite_max() { return metal::numeric_limits<T>::max(); }\n"
    "};\n"
    "template <typename T> T lowest_of(T x) { return x > T(0) ? numeric_limits<T>::lowest() : x; }\n"
    "kernel void k(device float* f [[buffer(0)]], device int* i [[buffer(1)]],\n"
    "              uint t [[thread_position_in_grid]]) {\n"
    "  float a[numeric_limits<uchar>::digits];\n"
    "  for (int j = 0; j < 8; j++) a[j] = float(j * t);\n"
    "  f[t] = lowest_of(float(t) - 1.0f) + a[7] + Limits<float>::finite_max() * 0.0f;\n"
    "  i[t] = lowest_of(int(t) - 1) + Limits<int>::finite_max();\n"
    "}\n";

static void test_limits_in_templates(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, tmpl_src, NULL);
    float *f = ch_buf(&h, 0, 4 * 4);
    int32_t *iv = ch_buf(&h, 1, 4 * 4);
    ch_run(&h, 4, 4);
    for (int t = 0; t < 4; t++) {
        float x = (float)t - 1.0f;
        CH_FEQ(f[t], (x > 0.0f ? -FLT_MAX : x) + (float)(7 * t), t);
        int64_t y = t - 1;
        /* INT_MIN + INT_MAX = -1 */
        CH_IEQ(iv[t], y > 0 ? -1 : (int32_t)((uint32_t)y + (uint32_t)INT_MAX), t);
    }
    h_free(&h);
}

/* A kernel's own numeric_limits wins, as a name it declares hides the library's. */
static void test_own_numeric_limits(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "template <typename T> struct numeric_limits { static T max() { return T(7); } };\n"
            "kernel void k(device float* o [[buffer(0)]]) { o[0] = numeric_limits<float>::max(); }\n",
            NULL);
    float *o = ch_buf(&h, 0, 4);
    ch_run(&h, 1, 1);
    CH_FEQ(o[0], 7.0f, 0);
    h_free(&h);
}

static void test_limits_errors(void **state)
{
    (void)state;
    ch_expect_error("kernel void k(device float* o [[buffer(0)]]) {\n"
                    "  o[0] = numeric_limits<float4>::max().x; }\n",
                    NULL, "2:25: error: numeric_limits<float4>: only scalar types have limits");
    ch_expect_error("kernel void k(device float* o [[buffer(0)]]) {\n"
                    "  o[0] = numeric_limits<float>::biggest(); }\n",
                    NULL, "2:33: error: numeric_limits<float> has no member function 'biggest'");
    ch_expect_error("kernel void k(device float* o [[buffer(0)]]) {\n"
                    "  o[0] = numeric_limits<float>::max; }\n",
                    NULL, "2:33: error: numeric_limits<float>::max is a function: call it (max())");
    ch_expect_error("kernel void k(device float* o [[buffer(0)]]) {\n"
                    "  o[0] = numeric_limits<float>::max(1); }\n",
                    NULL, "2:37: error: numeric_limits<float>::max takes no arguments");
    ch_expect_error("kernel void k(device int* o [[buffer(0)]]) {\n"
                    "  o[0] = numeric_limits<int>::digits(); }\n",
                    NULL, "2:31: error: numeric_limits<int> has no member function 'digits'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_limits),
        cmocka_unit_test(test_integer_limits),
        cmocka_unit_test(test_limits_in_templates),
        cmocka_unit_test(test_own_numeric_limits),
        cmocka_unit_test(test_limits_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
