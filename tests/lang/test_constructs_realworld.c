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

/* ---- nullptr and pointers as conditions (llama.cpp's optional mask) ---------------------- */

static const char *mask_src =
    "kernel void k(device const float *x [[buffer(0)]], device const float *mask [[buffer(1)]],\n"
    "              device float *out [[buffer(2)]], constant int &use [[buffer(3)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "  device const float *pm = use ? mask + (i / 8) * 8 : nullptr;\n"
    "  float v = x[i] + (pm ? pm[i % 8] : 0.0f);\n"
    "  if (!pm) v = -v;\n"
    "  if (pm == nullptr || nullptr != pm && pm == mask) v *= 2.0f;\n"
    "  out[i] = v;\n"
    "}\n";

static void mask_run(int use)
{
    Harness h;
    ch_init(&h, mask_src, NULL);
    enum { N = 40 };
    float *x = ch_buf(&h, 0, N * 4), *mask = ch_buf(&h, 1, N * 4);
    float *out = ch_buf(&h, 2, N * 4);
    int *u = ch_buf(&h, 3, 4);
    *u = use;
    for (int i = 0; i < N; i++)
        x[i] = (float)i * 0.5f, mask[i] = (float)(i * 3 % 11);
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        /* pm for threads 0-7 is mask itself: an address whose offset is 0, not null */
        float v = (float)i * 0.5f + (use ? (float)(((i / 8) * 8 + i % 8) * 3 % 11) : 0.0f);
        if (!use)
            v = -v;
        if (!use || i < 8)
            v *= 2.0f;
        CH_FEQ(out[i], v, i);
    }
    h_free(&h);
}

static void test_nullptr(void **state)
{
    (void)state;
    mask_run(1);
    mask_run(0);
    ch_expect_error("kernel void k(device float *o [[buffer(0)]]) {\n"
                    "  threadgroup float t[4]; threadgroup float *p = nullptr; }",
                    NULL, "nullptr as a threadgroup pointer is not supported");
    ch_expect_error("kernel void k(device float *o [[buffer(0)]]) {\n"
                    "  threadgroup float t[4]; threadgroup float *p = t; if (p) o[0] = 1; }",
                    NULL, "a threadgroup pointer used as a condition is not supported");
    ch_expect_error("kernel void k(device float *o [[buffer(0)]]) { float f = nullptr; }",
                    NULL, "cannot convert nullptr to 'float'");
}

/* nullptr is a pointer, not the integer 0: arithmetic on it is refused, and so is its
 * conversion to an integer (even to ulong, the type it is carried in); two nullptrs compare. */
static void test_nullptr_not_a_number(void **state)
{
    (void)state;
    static const struct { const char *expr, *want; } cases[] = {
        {"nullptr + 1", "nullptr is a null pointer, not a number"},
        {"1 - nullptr", "nullptr is a null pointer, not a number"},
        {"nullptr * 2", "nullptr is a null pointer, not a number"},
        {"nullptr < nullptr", "nullptr is a null pointer, not a number"},
        {"nullptr == 0", "nullptr is a null pointer, not a number"},
        {"-nullptr", "cannot convert nullptr to 'ulong' (it is a null pointer, not a number)"},
        {"~nullptr", "cannot convert nullptr to 'ulong'"},
        {"+nullptr", "cannot convert nullptr to 'ulong'"},
        {"(ulong)nullptr", "cannot convert nullptr to 'ulong'"},
        {"ulong(nullptr)", "cannot convert nullptr to 'ulong'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char src[256];
        snprintf(src, sizeof src, "kernel void k(device ulong *o [[buffer(0)]]) {\n"
                 "  o[0] = %s;\n}\n", cases[i].expr);
        ch_expect_error(src, NULL, cases[i].want);
    }
    ch_expect_error("kernel void k(device ulong *o [[buffer(0)]]) { o[0] += nullptr; }", NULL,
                    "nullptr is a null pointer, not a number");
    ch_expect_error("kernel void k(device ulong *o [[buffer(0)]]) { ulong u = nullptr; o[0] = u; }",
                    NULL, "cannot convert nullptr to 'ulong'");
    Harness h;
    ch_init(&h, "kernel void k(device int *o [[buffer(0)]]) {\n"
                "  o[0] = nullptr == nullptr;\n  o[1] = nullptr != nullptr;\n}\n", NULL);
    int32_t *o = ch_buf(&h, 0, 8);
    o[0] = o[1] = 7;
    ch_run(&h, 1, 1);
    CH_IEQ(o[0], 1, 0);
    CH_IEQ(o[1], 0, 1);
    h_free(&h);
}

/* ---- reinterpret_cast --------------------------------------------------------------------- */

static void test_reinterpret_cast(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, "kernel void k(device const float *a [[buffer(0)]], device float *o [[buffer(1)]],\n"
                "              uint i [[thread_position_in_grid]]) {\n"
                "  device const float4 *a4 = reinterpret_cast<device const float4 *>(a + 4 * i);\n"
                "  threadgroup float t[8];\n"
                "  threadgroup float2 *t2 = reinterpret_cast<threadgroup float2 *>(t);\n"
                "  if (i == 0) { t2[1] = float2(5, 6); }\n"
                "  threadgroup_barrier(mem_flags::mem_threadgroup);\n"
                "  o[i] = dot(a4[0], float4(1, 10, 100, 1000)) + t[2] * t[3];\n"
                "}\n", NULL);
    enum { N = 16 };
    float *a = ch_buf(&h, 0, 4 * N * 4), *o = ch_buf(&h, 1, N * 4);
    for (int i = 0; i < 4 * N; i++)
        a[i] = (float)(i % 9);
    ch_run(&h, N, N);
    for (int i = 0; i < N; i++) {
        float d = a[4 * i] * 1.0f + a[4 * i + 1] * 10.0f + a[4 * i + 2] * 100.0f +
                  a[4 * i + 3] * 1000.0f;
        CH_FEQ(o[i], d + 30.0f, i);
    }
    h_free(&h);
    ch_expect_error("kernel void k(device float *o [[buffer(0)]]) { o[0] = reinterpret_cast<float>(1u); }",
                    NULL, "use as_type<T>(x) to reinterpret a value");
    ch_expect_error("kernel void k(device float *o [[buffer(0)]]) {\n"
                    "  constant float *c = reinterpret_cast<constant float *>(o); }",
                    NULL, "changes the address space");
}

/* ---- static_assert and joined string literals --------------------------------------------- */

static void test_static_assert(void **state)
{
    (void)state;
    /* ggml's block layouts are checked with static_assert on sizeof */
    Harness h;
    ch_init(&h, "typedef struct { half d; uchar qs[16]; } block_q4_0;\n"
                "static_assert(sizeof(block_q4_0) == 18, \"wrong q4_0 block size\");\n"
                "static_assert(alignof(block_q4_0) == 2);\n"
                "kernel void k(device uint *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
                "  static_assert(sizeof(float4) == 16, \"float4\");\n"
                "  o[i] = sizeof(block_q4_0) * i;\n"
                "}\n", NULL);
    uint32_t *o = ch_buf(&h, 0, 8 * 4);
    ch_run(&h, 8, 8);
    for (int i = 0; i < 8; i++)
        CH_IEQ(o[i], 18 * i, i);
    h_free(&h);
    ch_expect_error("struct S { float a; char b; };\n"
                    "static_assert(sizeof(S) == 5, \"S is \" \"packed\");\n"
                    "kernel void k() {}", NULL, "static assertion failed: S is packed");
    ch_expect_error("kernel void k(device int *o [[buffer(0)]]) { static_assert(o[0] == 1); }",
                    NULL, "static_assert needs a constant expression");
}

/* MLX names instantiations with macros: [[host_name("qmv_" #type "_gs_" #gs)]]. */
static void test_host_name_concatenation(void **state)
{
    (void)state;
    static const char *src =
        "template <typename T, int GS>\n"
        "[[kernel]] void scale(device T *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
        "  o[i] = T(i * GS);\n"
        "}\n"
        "#define inst(type, gs) template [[host_name(\"scale_\" #type \"_gs\" \"_\" #gs)]] "
        "[[kernel]] decltype(scale<type, gs>) scale<type, gs>;\n"
        "inst(float, 32)\n"
        "inst(uint, 64)\n";
    LangOptions o = {0};
    o.entry = "scale_uint_gs_64";
    Harness h;
    ch_init(&h, src, &o);
    uint32_t *out = ch_buf(&h, 0, 8 * 4);
    ch_run(&h, 8, 8);
    for (int i = 0; i < 8; i++)
        CH_IEQ(out[i], 64 * i, i);
    h_free(&h);
    o.entry = "scale_float_gs_32";
    IsaProgram *p = ch_compile(src, &o);
    isa_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_function_constant_arguments),
        cmocka_unit_test(test_nullptr),
        cmocka_unit_test(test_nullptr_not_a_number),
        cmocka_unit_test(test_reinterpret_cast),
        cmocka_unit_test(test_static_assert),
        cmocka_unit_test(test_host_name_concatenation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
