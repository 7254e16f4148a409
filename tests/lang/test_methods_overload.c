/*
 * test_methods_overload.c — member functions and free overloads together: a struct with
 * constructors, default member initializers and member functions used by free operator
 * functions and by an overloaded free function, inside a struct template instance
 * (Poly<Complex, 3>), run against C; and constructors and member functions chosen by C++'s
 * ranking (overload.c's, shared with free functions): a promotion beats a conversion, two
 * conversions are ambiguous.
 */
#include "construct_harness.h"

static const char *both_src =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "struct Complex {\n"
    "    float re;\n"
    "    float im = 0.0f;\n"
    "    Complex() : re(0) {}\n"
    "    Complex(float r) : re(r) {}\n"
    "    Complex(float r, float i) : re(r), im(i) {}\n"
    "    Complex(int n) : re(float(n) * 10.0f) {}\n"
    "    float norm2() const { return re * re + im * im; }\n"
    "    Complex conj() const { return Complex(re, -im); }\n"
    "    void scale(float s) { re *= s; im *= s; }\n"
    "};\n"
    "Complex operator*(Complex a, Complex b) {\n"
    "    return Complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);\n"
    "}\n"
    "Complex operator+(Complex a, Complex b) { return Complex(a.re + b.re, a.im + b.im); }\n"
    "Complex operator*(float s, Complex a) { return Complex(s * a.re, s * a.im); }\n"
    "void operator+=(thread Complex &a, Complex b) { a = a + b; }\n"
    "float mix2(Complex c, float t) { return c.re * t + c.im; }\n"
    "float mix2(float t, Complex c) { return c.im * t - c.re; }\n"
    "float mix2(float a, float b) { return a - b; }\n"
    "template <typename T, int N> struct Poly {\n"
    "    T c[N];\n"
    "    T eval(T x) const {\n"
    "        T r = c[N - 1];\n"
    "        for (int k = N - 2; k >= 0; k--) r = r * x + c[k];\n"
    "        return r;\n"
    "    }\n"
    "};\n"
    "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "    Complex a(in[i * 2], in[i * 2 + 1]);\n"
    "    Complex b = Complex(0.5f, -1.0f);\n"
    "    Complex p = a * b.conj();\n"
    "    p += 2.0f * a;\n"
    "    Complex q(3);\n"
    "    p.scale(0.5f);\n"
    "    Poly<Complex, 3> poly;\n"
    "    poly.c[0] = Complex(1.0f);\n"
    "    poly.c[1] = b;\n"
    "    poly.c[2] = q;\n"
    "    Complex e = poly.eval(a);\n"
    "    out[i * 5] = p.re;\n"
    "    out[i * 5 + 1] = p.im;\n"
    "    out[i * 5 + 2] = mix2(p, in[i * 2]) + mix2(in[i * 2], p) + mix2(in[i * 2], 1.0f);\n"
    "    out[i * 5 + 3] = e.norm2();\n"
    "    out[i * 5 + 4] = e.re + q.re;\n"
    "}\n";

typedef struct { float re, im; } Cx;
static Cx cx_mul(Cx a, Cx b) { return (Cx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
static Cx cx_add(Cx a, Cx b) { return (Cx){a.re + b.re, a.im + b.im}; }

static void test_methods_with_free_overloads(void **state)
{
    (void)state;
    enum { N = 64 };
    Harness h;
    ch_init(&h, both_src, NULL);
    float *in = ch_buf(&h, 0, N * 2 * 4);
    float *out = ch_buf(&h, 1, N * 5 * 4);
    for (int i = 0; i < N * 2; i++)
        in[i] = (float)((i * 29) % 17) * 0.375f - 3.0f;
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        Cx a = {in[i * 2], in[i * 2 + 1]}, b = {0.5f, -1.0f}, bc = {0.5f, 1.0f};
        Cx p = cx_mul(a, bc);
        p = cx_add(p, (Cx){2.0f * a.re, 2.0f * a.im});
        Cx q = {3.0f * 10.0f, 0.0f}; /* Complex(int): a promotion-free exact match */
        p.re *= 0.5f;
        p.im *= 0.5f;
        Cx c[3] = {{1.0f, 0.0f}, b, q};
        Cx e = c[2];
        for (int k = 1; k >= 0; k--)
            e = cx_add(cx_mul(e, a), c[k]);
        float t = in[i * 2];
        CH_FEQ(out[i * 5], p.re, i);
        CH_FEQ(out[i * 5 + 1], p.im, i);
        CH_FEQ(out[i * 5 + 2], (p.re * t + p.im) + (p.im * t - p.re) + (t - 1.0f), i);
        CH_FEQ(out[i * 5 + 3], e.re * e.re + e.im * e.im, i);
        CH_FEQ(out[i * 5 + 4], e.re + q.re, i);
    }
    h_free(&h);
}

#define RANK_KERNEL(body) \
    "struct S {\n" \
    "    float v;\n" \
    "    S(int n) : v(float(n) + 0.5f) {}\n" \
    "    S(uint n) : v(float(n) + 0.25f) {}\n" \
    "    float f(int x) const { return v + float(x); }\n" \
    "    float f(float x) const { return v * x; }\n" \
    "};\n" \
    "kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n" \
    body "\n}\n"

/* short to int is a promotion, short to uint a conversion: S(int) and f(int) are chosen
 * (a sum of per-argument scores called these ties); uint to int and to float are both
 * conversions: f is ambiguous, as in C++. */
static void test_member_ranking(void **state)
{
    (void)state;
    enum { N = 32 };
    Harness h;
    ch_init(&h, RANK_KERNEL("    short s = short(i) - 5;\n"
                            "    S a(s);\n"
                            "    o[i] = a.f(s) + S(int(i)).f(2.0f);"), NULL);
    float *o = ch_buf(&h, 0, N * 4);
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        short s = (short)(i - 5);
        float v = (float)s + 0.5f;
        CH_FEQ(o[i], (v + (float)s) + ((float)i + 0.5f) * 2.0f, i);
    }
    h_free(&h);
    ch_expect_error(RANK_KERNEL("    S a(1);\n    o[i] = a.f(i);"), NULL,
                    "k.metal:10:14: error: call of member function 'S::f' is ambiguous");
    ch_expect_error(RANK_KERNEL("    S a(1.0f);"), NULL,
                    "k.metal:9:7: error: call of constructor of 'S' is ambiguous");
}

/* What member functions do not take yet is refused by name (default arguments work:
 * test_defaults.c). */
static void test_refused(void **state)
{
    (void)state;
    ch_expect_error("struct C { float r; operator float() const { return r; } };\n"
                    "kernel void k(device float *o [[buffer(0)]]) { o[0] = 1.0f; }\n",
                    NULL, "k.metal:1:21: error: conversion operators (`operator float()`) are "
                    "not supported yet");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_methods_with_free_overloads),
        cmocka_unit_test(test_member_ranking),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
