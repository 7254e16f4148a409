/*
 * test_if_constexpr.c — `if constexpr` through the whole compiler: a function template whose
 * branches would not compile for the other instances' types (a float-only builtin given an
 * int, a member of a struct the other types lack), else-if chains, a branch nested in a
 * loop, outside templates; each result against C computing the same in the test; and the
 * errors (a condition that is no constant, a discarded branch left unterminated).
 */
#include "construct_harness.h"

#include <math.h>

/* twice<bool> keeps x; an int halves (fabs would not take it); a float takes fabs; Pair has
 * a member only its branch names. */
static const char *branches_src =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "struct Pair { int a; int b; };\n"
    "template <typename T> T twice(T x) {\n"
    "  if constexpr (metal::is_same_v<T, bool>) return x;\n"
    "  else return x + x;\n"
    "}\n"
    "template <typename T> float mag(T x) {\n"
    "  if constexpr (is_same_v<T, float>) {\n"
    "    return fabs(x);\n"
    "  } else if constexpr (is_same_v<T, Pair>) {\n"
    "    return float(x.a * x.b);\n"
    "  } else if constexpr (is_integral_v<T>) {\n"
    "    T h = x >> 1;\n"
    "    return float(h);\n"
    "  } else {\n"
    "    return x.no_such_member;\n"
    "  }\n"
    "}\n"
    "template <int N> int steps(int x) {\n"
    "  for (int i = 0; i < 3; i++) {\n"
    "    if constexpr (N > 2) x += i * N;\n"
    "    else { x -= 1; }\n"
    "  }\n"
    "  if constexpr (N == 0) { undeclared_fn(x); }\n"
    "  return x;\n"
    "}\n"
    "kernel void k(device float* f [[buffer(0)]], device int* d [[buffer(1)]],\n"
    "              uint t [[thread_position_in_grid]]) {\n"
    "  Pair pr = {int(t), 3};\n"
    "  f[t * 4 + 0] = mag(float(t) - 2.5f);\n"
    "  f[t * 4 + 1] = mag(int(t) * 5 - 7);\n"
    "  f[t * 4 + 2] = mag(pr);\n"
    "  f[t * 4 + 3] = twice(float(t) + 0.25f);\n"
    "  d[t * 4 + 0] = twice(int(t)) + (twice(t > 1u) ? 100 : 0);\n"
    "  d[t * 4 + 1] = steps<5>(int(t));\n"
    "  d[t * 4 + 2] = steps<1>(int(t));\n"
    "  if constexpr (sizeof(float) == 4) d[t * 4 + 3] = 1; else d[t * 4 + 3] = 2;\n"
    "}\n";

static void test_branches_per_instance(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, branches_src, NULL);
    float *f = ch_buf(&h, 0, 16 * 4);
    int32_t *d = ch_buf(&h, 1, 16 * 4);
    ch_run(&h, 4, 4);
    for (int t = 0; t < 4; t++) {
        CH_FEQ(f[t * 4 + 0], fabsf((float)t - 2.5f), t);
        CH_FEQ(f[t * 4 + 1], (float)((t * 5 - 7) >> 1), t);
        CH_FEQ(f[t * 4 + 2], (float)(t * 3), t);
        CH_FEQ(f[t * 4 + 3], 2.0f * ((float)t + 0.25f), t);
        CH_IEQ(d[t * 4 + 0], 2 * t + (t > 1 ? 100 : 0), t);
        int x5 = t, x1 = t;
        for (int i = 0; i < 3; i++) {
            x5 += i * 5;
            x1 -= 1;
        }
        CH_IEQ(d[t * 4 + 1], x5, t);
        CH_IEQ(d[t * 4 + 2], x1, t);
        CH_IEQ(d[t * 4 + 3], 1, t);
    }
    h_free(&h);
}

/* A discarded branch with no else and a declaration of its own; a taken branch's names stay
 * in its own scope (a later declaration of the same name is no redefinition). */
static void test_scopes_and_empty(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "template <typename T> int f(T v) {\n"
            "  int r = 1;\n"
            "  if constexpr (is_void<T>::value) int r2 = bogus<T>(v);\n"
            "  if constexpr (!is_floating_point_v<T>) { int y = int(v) * 3; r += y; }\n"
            "  int y = 10;\n"
            "  return r + y;\n"
            "}\n"
            "kernel void k(device int* o [[buffer(0)]], uint t [[thread_position_in_grid]]) {\n"
            "  o[t] = f(int(t)) * 100 + f(half(t));\n"
            "}\n",
            NULL);
    int32_t *o = ch_buf(&h, 0, 4 * 4);
    ch_run(&h, 4, 4);
    for (int t = 0; t < 4; t++)
        CH_IEQ(o[t], (1 + 3 * t + 10) * 100 + 11, t);
    h_free(&h);
}

static void test_if_constexpr_errors(void **state)
{
    (void)state;
    ch_expect_error("kernel void k(device int* o [[buffer(0)]], uint t [[thread_position_in_grid]]) {\n"
                    "  if constexpr (t > 2u) o[t] = 1;\n"
                    "}\n",
                    NULL, "k.metal:2:17: error: the condition of 'if constexpr' must be a constant");
    ch_expect_error("template <typename T> T g(T x) {\n"
                    "  if constexpr (is_integral_v<T>) return x;\n"
                    "  else return x.y + \n"
                    "}\n"
                    "kernel void k(device int* o [[buffer(0)]]) { o[0] = g(1); }\n",
                    NULL, "k.metal:4:1: error: expected ';' (to end the statement at line 3)");
    ch_expect_error("kernel void k(device int* o [[buffer(0)]]) {\n"
                    "  if constexpr true) o[0] = 1;\n"
                    "}\n",
                    NULL, "k.metal:2:16: error: expected '('");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_branches_per_instance),
        cmocka_unit_test(test_scopes_and_empty),
        cmocka_unit_test(test_if_constexpr_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
