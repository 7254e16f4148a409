/*
 * test_constructs_realworld.c — language forms that real kernels (MLX, llama.cpp's
 * ggml-metal, PyTorch MPS, Apple's samples) use and that tests/lang/realworld/ first found
 * missing: arguments made optional by a function constant, static_assert, nullptr and
 * pointers as conditions, reinterpret_cast, and host names built by string-literal
 * concatenation. Each is compiled, run, and compared with values computed here in C.
 */
#include "construct_harness.h"

/* ---- [[function_constant(name)]] on arguments ------------------------------------------- */

static const char *optional_src =
    "constant bool use_alpha [[function_constant(0)]];\n"
    "constant bool do_relu [[function_constant(1)]];\n"
    "constant bool has_residual = !is_function_constant_defined(do_relu) || do_relu;\n"
    "constant bool relu = is_function_constant_defined(do_relu) && do_relu;\n"
    "kernel void k(device const float *x [[buffer(0)]],\n"
    "              constant float &alpha [[buffer(1), function_constant(use_alpha)]],\n"
    "              device const float *res [[function_constant(has_residual)]],\n"
    "              device float *out,\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "  float v = (use_alpha ? alpha : 1.0f) * x[i];\n"
    "  if (has_residual) v += res[i];\n"
    "  out[i] = relu ? max(v, 0.0f) : v;\n"
    "}\n";

/* Runs optional_src with the given constants: `present` says which optional arguments
 * exist; the program's arguments must be exactly those, in order, with the indices Metal
 * gives them (an absent argument takes no index: `out` follows the last present one). */
static void optional_check(const LangConstant *c, uint32_t nc, bool alpha, bool res, bool relu)
{
    LangOptions o = {0};
    o.constants = c, o.num_constants = nc;
    Harness h;
    ch_init(&h, optional_src, &o);
    uint32_t want_args = 2u + alpha + res;
    CH_IEQ(h.prog->num_args, want_args, 0);
    uint32_t a = 0;
    assert_string_equal(h.prog->args[a++].name, "x");
    if (alpha)
        assert_string_equal(h.prog->args[a++].name, "alpha");
    if (res) {
        assert_string_equal(h.prog->args[a].name, "res");
        CH_IEQ(h.prog->args[a++].binding, 1 + alpha, 1);
    }
    assert_string_equal(h.prog->args[a].name, "out");
    CH_IEQ(h.prog->args[a].binding, 1 + alpha + res, 2);
    enum { N = 40 };
    a = 0;
    float *x = ch_buf(&h, a++, N * 4);
    float *al = alpha ? ch_buf(&h, a++, 4) : NULL;
    float *r = res ? ch_buf(&h, a++, N * 4) : NULL;
    float *out = ch_buf(&h, a, N * 4);
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i - 20) * 0.25f;
        if (r)
            r[i] = (float)(i % 7) - 3.0f;
    }
    if (al)
        *al = -1.5f;
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        float v = (alpha ? -1.5f : 1.0f) * ((float)(i - 20) * 0.25f);
        if (res)
            v += (float)(i % 7) - 3.0f;
        if (relu)
            v = v > 0 ? v : 0.0f;
        CH_FEQ(out[i], v, i);
    }
    h_free(&h);
}

static void test_function_constant_arguments(void **state)
{
    (void)state;
    LangConstant all[] = {{"use_alpha", false, 1}, {"do_relu", false, 1}};
    optional_check(all, 2, true, true, true);
    LangConstant none[] = {{"use_alpha", false, 0}, {"do_relu", false, 0}};
    optional_check(none, 2, false, false, false);
    /* do_relu undefined: has_residual is true and relu false (both fold, short-circuiting
     * past the undefined constant) */
    LangConstant alpha_only[] = {{"use_alpha", false, 1}};
    optional_check(alpha_only, 1, true, true, false);
    /* the optional argument's attribute no longer takes the buffer index of its constant's
     * value: with both given, x, alpha, res and out are buffers 0, 1, 2 and 3 */
    LangConstant some[] = {{"use_alpha", false, 1}, {"do_relu", false, 0}};
    optional_check(some, 2, true, false, false);

    /* the attribute needs a name; on a program-scope constant it needs the index */
    ch_expect_error("kernel void k(device float *o [[buffer(0), function_constant(1)]]) {}",
                    NULL, "needs the name of a function constant");
    ch_expect_error("constant bool b [[function_constant(c)]];\nkernel void k() {}", NULL,
                    "use of undeclared identifier 'c'");
    ch_expect_error("constant int n = 3;\nconstant bool b [[function_constant(n + 0.5f)]];\n"
                    "kernel void k() {}", NULL, "expected a non-negative integer constant");
    /* an absent argument the kernel really reads faults at run time, naming no buffer */
    LangConstant off[] = {{"use_alpha", false, 0}};
    LangOptions o = {0};
    o.constants = off, o.num_constants = 1;
    Harness h;
    ch_init(&h, "constant bool use_alpha [[function_constant(0)]];\n"
                "kernel void k(device float *o [[buffer(0)]],\n"
                "              device float *p [[buffer(1), function_constant(use_alpha)]],\n"
                "              uint i [[thread_position_in_grid]]) { o[i] = p[i]; }\n", &o);
    CH_IEQ(h.prog->num_args, 1, 0);
    ch_buf(&h, 0, 16);
    h_run1(&h, 4, 4);
    assert_true(h.res.total_faults > 0);
    h_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_function_constant_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
