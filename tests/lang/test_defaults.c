/*
 * test_defaults.c — default arguments through the whole compiler: of helper functions (a
 * constant, a program-scope constant, an expression calling another helper; given in a
 * declaration and used by the later definition; added by a redeclaration), of member
 * functions and constructors (in the struct, or declared there and defined after it; a
 * constructor whose every parameter has one is the default constructor; in a struct
 * template, with its parameters), of function
 * templates (`T(0)` with the instance's T; a template parameter deduced from the arguments
 * given; defaults in a template's declaration, with its own names, used by its definition), overload resolution counting a candidate with defaults as viable for fewer
 * arguments (and ambiguous where another matches as well), and the errors for defaults C++
 * refuses (on operator functions too). Results are compared with C computed here.
 */
#include "construct_harness.h"

#define KERNEL(body)                                                                       \
    "kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n" \
    body "\n}\n"

/* ---- functions ----------------------------------------------------------------------------- */

static const char *fn_src =
    "constant float BIAS = 0.25f;\n"
    "float base() { return 3.0f; }\n"
    "float scale(float x, float s = 2.0f) { return x * s; }\n"
    "float affine(float x, float a = base(), float b = BIAS * 2.0f) { return x * a + b; }\n"
    "float later(float x, int n = 4);\n"
    "float later(float x, int n) { return x + float(n); }\n"
    "float added(float x, float y);\n"
    "float added(float x, float y = 10.0f);\n"
    "float added(float x = 7.0f, float y) { return x - y; }\n"
    "METAL_FUNC void load(device float *dst, float v, short n = 4) {\n"
    "    for (short j = 0; j < n; j++) dst[j] = v + float(j);\n"
    "}\n"
    KERNEL("    float x = float(i) * 0.5f - 3.0f;\n"
           "    device float *r = o + i * 16;\n"
           "    r[0] = scale(x);\n"
           "    r[1] = scale(x, -1.5f);\n"
           "    r[2] = affine(x);\n"
           "    r[3] = affine(x, 0.5f);\n"
           "    r[4] = affine(x, 0.5f, -1.0f);\n"
           "    r[5] = later(x);\n"
           "    r[6] = later(x, -2);\n"
           "    r[7] = added();\n"
           "    r[8] = added(x);\n"
           "    r[9] = added(x, 1.0f);\n"
           "    load(r + 10, x);\n"
           "    load(r + 14, -x, 2);");

static void test_function_defaults(void **state)
{
    (void)state;
    enum { N = 32 };
    Harness h;
    ch_init(&h, fn_src, NULL);
    float *o = ch_buf(&h, 0, N * 16 * 4);
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        float x = (float)i * 0.5f - 3.0f, *r = o + i * 16;
        CH_FEQ(r[0], x * 2.0f, i);
        CH_FEQ(r[1], x * -1.5f, i);
        CH_FEQ(r[2], x * 3.0f + 0.5f, i);
        CH_FEQ(r[3], x * 0.5f + 0.5f, i);
        CH_FEQ(r[4], x * 0.5f + -1.0f, i);
        CH_FEQ(r[5], x + 4.0f, i);
        CH_FEQ(r[6], x - 2.0f, i);
        CH_FEQ(r[7], 7.0f - 10.0f, i);
        CH_FEQ(r[8], x - 10.0f, i);
        CH_FEQ(r[9], x - 1.0f, i);
        for (int j = 0; j < 4; j++)
            CH_FEQ(r[10 + j], x + (float)j, i);
        CH_FEQ(r[14], -x + 0.0f, i);
        CH_FEQ(r[15], -x + 1.0f, i);
    }
    h_free(&h);
}

/* ---- member functions and constructors ----------------------------------------------------- */

static const char *method_src =
    "struct Acc {\n"
    "    float sum;\n"
    "    int count;\n"
    "    Acc(float s = 0.0f, int c = 0) : sum(s), count(c) {}\n"
    "    void add(float x, float w = 1.0f) { sum += x * w; count++; }\n"
    "    float mean(float empty = -1.0f) const { return count ? sum / float(count) : empty; }\n"
    "    static float twice(float x, float k = 2.0f) { return x * k; }\n"
    "    float shifted(float d = 0.5f) const;\n"
    "    static constexpr float K = 4.0f;\n"
    "    float kmul(float k = K) const { return sum * k; }\n"
    "};\n"
    "float Acc::shifted(float d) const { return sum + d; }\n"
    "struct Box {\n"
    "    float v;\n"
    "    Box(float x, float y = 3.0f);\n"
    "};\n"
    "Box::Box(float x, float y) : v(x * y) {}\n"
    "template <typename T, int N = 2> struct Scaled {\n"
    "    T k;\n"
    "    Scaled(T s = T(N)) : k(s) {}\n"
    "    T apply(T x, T bias = T(N + 1)) const { return x * k + bias; }\n"
    "};\n"
    KERNEL("    float x = float(i) + 1.0f;\n"
           "    device float *r = o + i * 10;\n"
           "    Acc a;\n"
           "    r[0] = a.mean();\n"
           "    a.add(x);\n"
           "    a.add(x, 3.0f);\n"
           "    r[1] = a.mean(5.0f);\n"
           "    Acc b(x);\n"
           "    r[2] = b.sum + float(b.count);\n"
           "    Acc c(x, 2);\n"
           "    r[3] = c.mean();\n"
           "    r[4] = Acc::twice(x) + a.twice(x, -1.0f);\n"
           "    r[5] = c.shifted() + Acc(1.0f).shifted(2.0f);\n"
           "    Box bx(x);\n"
           "    r[6] = bx.v + Box(x, 0.5f).v;\n"
           "    Acc arr[2];\n"
           "    r[7] = arr[1].mean(9.0f);\n"
           "    r[8] = c.kmul() + c.kmul(0.5f);\n"
           "    Scaled<float> sc;\n"
           "    r[9] = sc.apply(x) + float(Scaled<int, 5>().apply(2, 1)) * 100.0f;");

static void test_method_defaults(void **state)
{
    (void)state;
    enum { N = 32 };
    Harness h;
    ch_init(&h, method_src, NULL);
    float *o = ch_buf(&h, 0, N * 10 * 4);
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        float x = (float)i + 1.0f, *r = o + i * 10;
        CH_FEQ(r[0], -1.0f, i);
        float sum = x * 1.0f;
        sum += x * 3.0f;
        CH_FEQ(r[1], sum / 2.0f, i);
        CH_FEQ(r[2], x + 0.0f, i);
        CH_FEQ(r[3], x / 2.0f, i);
        CH_FEQ(r[4], x * 2.0f + x * -1.0f, i);
        CH_FEQ(r[5], (x + 0.5f) + (1.0f + 2.0f), i);
        CH_FEQ(r[6], x * 3.0f + x * 0.5f, i);
        CH_FEQ(r[7], 9.0f, i);
        CH_FEQ(r[8], x * 4.0f + x * 0.5f, i);
        CH_FEQ(r[9], (x * 2.0f + 3.0f) + (float)(2 * 5 + 1) * 100.0f, i);
    }
    h_free(&h);
}

/* ---- templates and overloads --------------------------------------------------------------- */

static const char *tmpl_src =
    "template <typename T> T clampv(T x, T lo = T(0), T hi = T(1)) {\n"
    "    return x < lo ? lo : x > hi ? hi : x;\n"
    "}\n"
    "template <typename T, int N = 2> T powi(T x, int extra = N) {\n"
    "    T r = T(1);\n"
    "    for (int j = 0; j < extra; j++) r *= x;\n"
    "    return r;\n"
    "}\n"
    "template <typename U> U mixd(U a, U b = U(1), U t = U(0.5f));\n"
    "template <typename T> T mixd(T a, T b, T t) { return a + (b - a) * t; }\n"
    "template <typename T> T addk(int a, T b = T(1)) { return T(a) + b; }\n"
    "float pick(float x) { return x; }\n"
    "float pick(float x, float y, float z = 100.0f) { return x + y + z; }\n"
    "float pick(int x, int y = 5) { return float(x * y); }\n"
    KERNEL("    float x = float(i) * 0.125f - 1.0f;\n"
           "    device float *r = o + i * 11;\n"
           "    r[0] = clampv(x);\n"
           "    r[1] = clampv(x, -0.5f);\n"
           "    r[2] = clampv(x, -2.0f, 0.25f);\n"
           "    r[3] = float(clampv(int(i), 3, 20)) + float(clampv(int(i)));\n"
           "    r[4] = powi(x) + powi<float, 3>(x);\n"
           "    r[5] = pick(x) + pick(x, 1.0f);\n"
           "    r[6] = pick(int(i));\n"
           "    r[7] = pick(x, 1.0f, 2.0f);\n"
           "    r[8] = mixd(x) + mixd(x, 3.0f, 0.25f);\n"
           "    r[9] = float(mixd(int(i), 7));\n"
           "    r[10] = addk(int(i), x) + addk<float>(2) * 10.0f;");

static void test_template_and_overload_defaults(void **state)
{
    (void)state;
    enum { N = 32 };
    Harness h;
    ch_init(&h, tmpl_src, NULL);
    float *o = ch_buf(&h, 0, N * 11 * 4);
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        float x = (float)i * 0.125f - 1.0f, *r = o + i * 11;
        float c0 = x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x;
        float c1 = x < -0.5f ? -0.5f : x > 1.0f ? 1.0f : x;
        float c2 = x < -2.0f ? -2.0f : x > 0.25f ? 0.25f : x;
        int ci = i < 3 ? 3 : i > 20 ? 20 : i;
        int cj = i < 0 ? 0 : i > 1 ? 1 : i;
        CH_FEQ(r[0], c0, i);
        CH_FEQ(r[1], c1, i);
        CH_FEQ(r[2], c2, i);
        CH_FEQ(r[3], (float)ci + (float)cj, i);
        float p2 = 1.0f * x, p3;
        p2 *= x;
        p3 = 1.0f * x;
        p3 *= x;
        p3 *= x;
        CH_FEQ(r[4], p2 + p3, i);
        CH_FEQ(r[5], x + ((x + 1.0f) + 100.0f), i);
        CH_FEQ(r[6], (float)(i * 5), i);
        CH_FEQ(r[7], (x + 1.0f) + 2.0f, i);
        CH_FEQ(r[8], (x + (1.0f - x) * 0.5f) + (x + (3.0f - x) * 0.25f), i);
        CH_FEQ(r[9], (float)(i + (7 - i) * 0), i); /* int(0.5f) is 0 */
        CH_FEQ(r[10], ((float)i + x) + (2.0f + 1.0f) * 10.0f, i); /* T from a defaulted one */
    }
    h_free(&h);
}

/* ---- errors -------------------------------------------------------------------------------- */

static void test_default_errors(void **state)
{
    (void)state;
    /* f(float) and f(float, float = 1) both take one float */
    ch_expect_error("float f(float x) { return x; }\n"
                    "float f(float x, float y = 1.0f) { return x + y; }\n"
                    KERNEL("o[i] = f(2.0f);"), NULL,
                    "k.metal:4:8: error: call to 'f' with argument (float) is ambiguous: "
                    "'f(float)' (line 1), 'f(float, float)' (line 2) match equally well");
    ch_expect_error("float f(float x, float y = 1.0f) { return x + y; }\n"
                    "float f(int x, int y, int z) { return 1.0f; }\n"
                    KERNEL("o[i] = f();"), NULL,
                    "k.metal:4:8: error: no matching function for call to 'f' with arguments "
                    "(): 'f(float, float)' (line 1): it takes 1 to 2 arguments, not 0; "
                    "'f(int, int, int)' (line 2): it takes 3 arguments, not 0");
    ch_expect_error("float f(float x, float y = x) { return x + y; }\n" KERNEL("o[i] = f(1.0f);"),
                    NULL, "k.metal:1:28: error: the default argument of 'y' uses parameter 'x' "
                    "(a default argument cannot depend on other arguments)");
    ch_expect_error("float f(float x, float y = 1.0f, float z) { return x; }\n" KERNEL(""),
                    NULL, "k.metal:1:40: error: parameter 'z' follows 'y', which has a default "
                    "argument, so it needs one too");
    ch_expect_error("float f(float x, float y = 1.0f);\n"
                    "float f(float x, float y = 2.0f) { return x + y; }\n" KERNEL(""),
                    NULL, "k.metal:2:28: error: redefinition of the default argument of 'y' "
                    "(given at line 1)");
    ch_expect_error("struct S { float v; S(float a = 1.0f); };\n"
                    "S::S(float a = 2.0f) : v(a) {}\n" KERNEL(""),
                    NULL, "k.metal:2:16: error: redefinition of the default argument of 'a' "
                    "(given at line 1)");
    ch_expect_error("struct S { float v; float g(float a = v) const { return a; } };\n"
                    KERNEL("S s = {1.0f};\no[i] = s.g();"), NULL,
                    "k.metal:1:39: error: data member 'v' of 'S' is used without an object");
    ch_expect_error("struct S { float v; float g(float a = this->v) const { return a; } };\n"
                    KERNEL(""), NULL,
                    "k.metal:1:39: error: 'this' cannot be used in a default argument");
    /* a default is parsed where a call uses it: its error names the default's line */
    ch_expect_error("float f(float x, device float *p = 1.0f) { return x; }\n"
                    KERNEL("o[i] = f(1.0f);"), NULL, "k.metal:1:36: error:");
    ch_expect_error("struct C { float r; };\n"
                    "C operator-(C a, C b = C{1.0f}) { return C{a.r - b.r}; }\n" KERNEL(""),
                    NULL, "k.metal:2:24: error: an operator function cannot have default "
                    "arguments");
    /* two default constructors */
    ch_expect_error("struct S { float v; S() : v(0) {} S(float a = 1.0f) : v(a) {} };\n"
                    KERNEL("S s;\no[i] = s.v;"), NULL,
                    "k.metal:3:3: error: call of constructor of 'S' is ambiguous (S::S(); "
                    "S::S(float))");
}

/* A default argument whose template arguments hold a comma (`vec<float, 2>(..)`,
 * `cnt<float, 3>()`) is one argument, not cut at that comma; a comparison's `<` stays one. */
static void test_defaults_with_template_arguments(void **state)
{
    (void)state;
    static const char *src =
        "template <typename T, int N> T cnt() { return T(N); }\n"
        "float f(float2 a = vec<float, 2>(1.0f, 2.0f)) { return a.x + a.y; }\n"
        "float g(float a = cnt<float, 3>(), int b = 1 < 2, int c = 4) { return a + float(b) + float(c); }\n"
        "template <typename T> T h(T a = cnt<T, 5>()) { return a; }\n"
        "kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
        "  o[i] = f() + g() * 10.0f + h<float>() * 100.0f + f(float2(float(i), 0.5f)) * 1000.0f;\n"
        "}\n";
    Harness h;
    ch_init(&h, src, NULL);
    float *o = ch_buf(&h, 0, 4 * 4);
    ch_run(&h, 4, 4);
    for (int i = 0; i < 4; i++) /* f() 3, g() 3 + 1 + 4, h 5 */
        CH_FEQ(o[i], 3.0f + 80.0f + 500.0f + ((float)i + 0.5f) * 1000.0f, i);
    h_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_function_defaults),
        cmocka_unit_test(test_method_defaults),
        cmocka_unit_test(test_template_and_overload_defaults),
        cmocka_unit_test(test_default_errors),
        cmocka_unit_test(test_defaults_with_template_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
