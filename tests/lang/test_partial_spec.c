/*
 * test_partial_spec.c — partial specializations of struct templates through the whole
 * compiler: chosen over the primary template for the arguments they match (`Vec<float, N>`,
 * `Vec<T, 2>`, `Limits<device T*>` whose T is the pointee, `Pair<T, T>` for two equal
 * types, `Elem<vec<T, N> >` taking a vector's element and length), the more specialized
 * of two that match chosen (`Ptr<device const T*>` over `Ptr<device T*>`), an explicit
 * specialization winning over partial ones (`Vec<float, 2>`, which two partial ones
 * match), instances made inside a function template; and the errors: two partial
 * specializations neither more specialized, a parameter that cannot be deduced, a
 * pattern that specializes nothing, a default on a parameter, a partial specialization
 * declared twice or after an instance it matches was made from the template. Each specialization returns
 * its own numbers, so the results say which was made; sums are checked against C.
 */
#include "construct_harness.h"

static const char *spec_src =
    "template <typename T, int N> struct Vec {\n"
    "    T v[N];\n"
    "    T sum() const { T s = T(0); for (int j = 0; j < N; j++) s += v[j]; return s; }\n"
    "    static constexpr int which = 0;\n"
    "};\n"
    "template <int N> struct Vec<float, N> {\n"
    "    float v[N];\n"
    "    float sum() const { float s = 100.0f; for (int j = 0; j < N; j++) s += v[j]; return s; }\n"
    "    static constexpr int which = 1;\n"
    "};\n"
    "template <typename T> struct Vec<T, 2> {\n"
    "    T v[2];\n"
    "    T sum() const { return v[0] - v[1]; }\n"
    "    static constexpr int which = 2;\n"
    "};\n"
    "template <> struct Vec<float, 2> {\n"
    "    float v[2];\n"
    "    float sum() const { return v[0] * v[1]; }\n"
    "    static constexpr int which = 3;\n"
    "};\n"
    "template <typename T> struct Limits { static constexpr int kind = 0; };\n"
    "template <typename T> struct Limits<device T*> {\n"
    "    static constexpr int kind = 1;\n"
    "    static T get(device T *p) { return p[0] + T(1); }\n"
    "};\n"
    "template <> struct Limits<float> { static constexpr int kind = 2; };\n"
    "template <typename T> struct Ptr { static constexpr int which = 0; };\n"
    "template <typename T> struct Ptr<device T*> { static constexpr int which = 1; };\n"
    "template <typename T> struct Ptr<device const T*> { static constexpr int which = 2; };\n"
    "template <typename A, typename B> struct Pair { static constexpr int which = 0; };\n"
    "template <typename T> struct Pair<T, T> { static constexpr int which = 1; };\n"
    "template <typename T> struct Pair<T, float> { static constexpr int which = 2; };\n"
    "template <typename T> struct Elem { static constexpr int n = 1; };\n"
    "template <typename T, int N> struct Elem<vec<T, N> > {\n"
    "    static constexpr int n = N;\n"
    "    static T twice(T x) { return x + x; }\n"
    "    static T ends(vec<T, N> x) { return x[0] + x[N - 1]; }\n"
    "};\n"
    "template <typename T> int pick() { return Vec<T, 2>::which; }\n"
    "kernel void k(device float *o [[buffer(0)]], device int *q [[buffer(1)]],\n"
    "              device int *in [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
    "    float x = float(i);\n"
    "    Vec<float, 3> a = {{x, 1.0f, 2.0f}};\n"
    "    Vec<int, 2> b = {{int(i), 3}};\n"
    "    Vec<int, 3> c = {{1, 2, int(i)}};\n"
    "    Vec<float, 2> d = {{x, 5.0f}};\n"
    "    device float *r = o + i * 4;\n"
    "    r[0] = a.sum();\n"
    "    r[1] = float(b.sum()) + float(c.sum()) * 1000.0f;\n"
    "    r[2] = d.sum();\n"
    "    r[3] = float(Limits<device int*>::get(in + i)) + Elem<float4>::twice(x)\n"
    "           + Elem<float4>::ends(float4(x, 1, 2, 3)) * 10.0f;\n"
    "    device int *s = q + i * 12;\n"
    "    s[0] = Vec<float, 3>::which * 1000 + Vec<int, 2>::which * 100 + Vec<int, 3>::which * 10\n"
    "           + Vec<float, 2>::which;\n"
    "    s[1] = Limits<int>::kind;\n"
    "    s[2] = Limits<device float*>::kind;\n"
    "    s[3] = Limits<float>::kind;\n"
    "    s[4] = Ptr<int>::which;\n"
    "    s[5] = Ptr<device float*>::which;\n"
    "    s[6] = Ptr<device const float*>::which;\n"
    "    s[7] = Pair<int, int>::which * 100 + Pair<int, float>::which * 10 + Pair<float, int>::which;\n"
    "    s[8] = Elem<float4>::n * 10 + Elem<half2>::n;\n"
    "    s[9] = Elem<float>::n;\n"
    "    s[10] = pick<half>() * 10 + pick<float>();\n"
    "    s[11] = Ptr<threadgroup float*>::which;\n"
    "}\n";

static void test_partial_specializations(void **state)
{
    (void)state;
    enum { N = 32 };
    Harness h;
    ch_init(&h, spec_src, NULL);
    float *o = ch_buf(&h, 0, N * 4 * 4);
    int32_t *q = ch_buf(&h, 1, N * 12 * 4);
    int32_t *in = ch_buf(&h, 2, N * 4);
    for (int i = 0; i < N; i++)
        in[i] = i * 7 - 50;
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        float x = (float)i, *r = o + i * 4;
        int32_t *s = q + i * 12;
        float sa = 100.0f;
        sa += x;
        sa += 1.0f;
        sa += 2.0f;
        CH_FEQ(r[0], sa, i);
        CH_FEQ(r[1], (float)(i - 3) + (float)(1 + 2 + i) * 1000.0f, i);
        CH_FEQ(r[2], x * 5.0f, i);
        CH_FEQ(r[3], (float)(in[i] + 1) + (x + x) + (x + 3.0f) * 10.0f, i);
        CH_IEQ(s[0], 1 * 1000 + 2 * 100 + 0 * 10 + 3, i);
        CH_IEQ(s[1], 0, i);
        CH_IEQ(s[2], 1, i);
        CH_IEQ(s[3], 2, i);
        CH_IEQ(s[4], 0, i);
        CH_IEQ(s[5], 1, i);
        CH_IEQ(s[6], 2, i);
        CH_IEQ(s[7], 1 * 100 + 2 * 10 + 0, i);
        CH_IEQ(s[8], 4 * 10 + 2, i);
        CH_IEQ(s[9], 1, i);
        CH_IEQ(s[10], 2 * 10 + 3, i);
        CH_IEQ(s[11], 0, i); /* `device T*` does not match a threadgroup pointer */
    }
    h_free(&h);
}

#define KERNEL(body)                                                                     \
    "kernel void k(device int *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n" \
    body "\n}\n"

static void test_partial_errors(void **state)
{
    (void)state;
    ch_expect_error("template <typename A, typename B> struct Pair { static constexpr int w = 0; };\n"
                    "template <typename T> struct Pair<T, T> { static constexpr int w = 1; };\n"
                    "template <typename T> struct Pair<T, float> { static constexpr int w = 2; };\n"
                    KERNEL("o[i] = Pair<float, float>::w;"), NULL,
                    "k.metal:5:8: error: the partial specializations 'Pair<T, T>' (line 2), "
                    "'Pair<T, float>' (line 3) all match these template arguments of 'Pair' and "
                    "none is more specialized than the others");
    /* made by a macro: named as spelled, at the lines of the macro's uses */
    ch_expect_error("#define P2(A, B) template <typename T> struct Pair<A, B> { int w; };\n"
                    "template <typename A, typename B> struct Pair { int w; };\n"
                    "P2(T, T)\nP2(T, float)\n" KERNEL("Pair<float, float> q;"), NULL,
                    "the partial specializations 'Pair<T, T>' (line 3), 'Pair<T, float>' "
                    "(line 4) all match");
    ch_expect_error("template <typename A, typename B> struct Pair { int w; };\n"
                    "template <typename T, typename U> struct Pair<T, T> { int w; };\n" KERNEL(""),
                    NULL, "k.metal:2:32: error: template parameter 'U' is not used in the "
                    "arguments of the partial specialization 'Pair<T, T>', so it cannot be "
                    "deduced");
    ch_expect_error("template <typename A, int N> struct V { int w; };\n"
                    "template <typename T, int M> struct V<T, M> { int w; };\n" KERNEL(""),
                    NULL, "k.metal:2:38: error: the partial specialization 'V<T, M>' "
                    "specializes none of the template's arguments");
    ch_expect_error("template <typename A, int N> struct V { int w; };\n"
                    "template <typename T, int M> struct V<T, M * 2> { int w; };\n" KERNEL(""),
                    NULL, "k.metal:2:42: error: this argument of a partial specialization cannot "
                    "be deduced: write a template parameter's name alone, or a constant");
    ch_expect_error("template <typename A> struct W { int w; };\n"
                    "template <typename T = int> struct W<device T*> { int w; };\n" KERNEL(""),
                    NULL, "k.metal:2:24: error: a partial specialization's template parameter "
                    "cannot have a default");
    ch_expect_error("template <typename T, int N> struct V { int a; };\n"
                    "template <typename T> struct V<T, 2> { int b; };\n"
                    "template <typename U> struct V<U, 2> { int c; };\n" KERNEL(""), NULL,
                    "k.metal:3:30: error: redefinition of the partial specialization "
                    "'V<U, 2>' (line 2)");
    /* made from the template before; an explicit specialization made before is no error */
    ch_expect_error("template <typename T, int N> struct V { static constexpr int a = 1; };\n"
                    "template <> struct V<float, 2> { int e; };\n"
                    "constant int K = V<int, 2>::a;\n"
                    "template <typename T> struct V<T, 2> { int b; };\n" KERNEL(""), NULL,
                    "k.metal:4:30: error: 'V<int, 2>' was made from the template before this "
                    "partial specialization, which matches it (declare it before the first use)");
    ch_expect_error("template <typename T> struct Q<T*> { int w; };\n" KERNEL(""),
                    NULL, "k.metal:1:30: error: 'Q' is not a struct template declared before");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partial_specializations),
        cmocka_unit_test(test_partial_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
