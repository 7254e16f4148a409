/*
 * test_template_order.c — partial ordering of function templates through the whole
 * compiler: of two templates that match a call equally well, the more specialized one is
 * called (`f(device T*)` over `f(T)` for a pointer, `g(T, T)` over `g(T, U)`, `m(T, int)`
 * over `m(T, U)`, a reference parameter ordered as its type), while the conversions still
 * decide first (a non-const pointer takes `h(device T*)` over `h(device const T*)`, which
 * adds const) and a plain function still beats both; and the
 * ambiguity error, naming both candidates and their lines, when neither is more
 * specialized. Each template returns its own constant, so the results say which was called.
 */
#include "construct_harness.h"

static const char *order_src =
    "template <typename T> float f(T x) { return 1.0f; }\n"
    "template <typename T> float f(device T *p) { return 2.0f + float(p[0]); }\n"
    "template <typename T> float g(T a, T b) { return 10.0f; }\n"
    "template <typename T, typename U> float g(T a, U b) { return 20.0f; }\n"
    "template <typename T> float h(device T *p) { return 100.0f; }\n"
    "template <typename T> float h(device const T *p) { return 200.0f; }\n"
    "template <typename T> float m(T a, int b) { return 1000.0f + float(b); }\n"
    "template <typename T, typename U> float m(T a, U b) { return 2000.0f; }\n"
    "template <typename T> float r(thread const T &a, T b) { return 3.0f; }\n"
    "template <typename T, typename U> float r(thread const T &a, U b) { return 4.0f; }\n"
    "template <typename T> float s(T a) { return 5.0f; }\n"
    "template <typename T> float s(device T *a) { return 6.0f; }\n"
    "float s(device float *a) { return 7.0f; }\n"
    "kernel void k(device float *o [[buffer(0)]], device float *c [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "    float x = float(i);\n"
    "    device float *r0 = o + i * 8;\n"
    "    r0[0] = f(x) + f(c + i) * 10.0f;\n"
    "    r0[1] = g(x, 1.0f) + g(x, 1) * 2.0f;\n"
    "    r0[2] = h(c) + h(o) * 2.0f;\n"
    "    r0[3] = m(x, int(i)) + m(x, 1.0f);\n"
    "    r0[4] = r(x, 2.0f) + r(x, 2u) * 10.0f;\n"
    "    r0[5] = s(x) + s(o) * 10.0f;\n"
    "}\n";

static void test_more_specialized_wins(void **state)
{
    (void)state;
    enum { N = 32 };
    Harness h;
    ch_init(&h, order_src, NULL);
    float *o = ch_buf(&h, 0, N * 8 * 4);
    float *c = ch_buf(&h, 1, N * 4);
    for (int i = 0; i < N; i++)
        c[i] = (float)(i * 3);
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        float *r = o + i * 8;
        CH_FEQ(r[0], 1.0f + (2.0f + c[i]) * 10.0f, i);  /* f(T), then f(device T*) */
        CH_FEQ(r[1], 10.0f + 20.0f * 2.0f, i);          /* g(T, T); (float, int): g(T, U) */
        CH_FEQ(r[2], 100.0f + 100.0f * 2.0f, i);        /* the other adds const */
        CH_FEQ(r[3], (1000.0f + (float)i) + 2000.0f, i);
        CH_FEQ(r[4], 3.0f + 4.0f * 10.0f, i);
        CH_FEQ(r[5], 5.0f + 7.0f * 10.0f, i); /* the function beats both */
    }
    h_free(&h);
}

/* A pointer to const: `device T *p` deduces T as `const float` (C++), so both h's take it
 * and the more specialized `h(device const T*)` is called; `s(device T*)` beats `s(T)`
 * while the function `s(device float*)` cannot take it. */
static const char *const_src =
    "template <typename T> T first(device T *p) { return p[0] + p[1]; }\n"
    "template <typename T> float f(T x) { return 1.0f; }\n"
    "template <typename T> float f(device T *p) { return 2.0f + float(p[0]); }\n"
    "template <typename T> float h(device T *p) { return 100.0f; }\n"
    "template <typename T> float h(device const T *p) { return 200.0f; }\n"
    "template <typename T> float s(T a) { return 5.0f; }\n"
    "template <typename T> float s(device T *a) { return 6.0f; }\n"
    "float s(device float *a) { return 7.0f; }\n"
    "kernel void k(device float *o [[buffer(0)]], device const float *c [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "    device float *r = o + i * 4;\n"
    "    r[0] = first(c + i);\n"
    "    r[1] = f(c + i);\n"
    "    r[2] = h(c) + h(o) * 2.0f;\n"
    "    r[3] = s(c) + s(o) * 10.0f;\n"
    "}\n";

static void test_pointer_to_const(void **state)
{
    (void)state;
    enum { N = 32 };
    Harness h;
    ch_init(&h, const_src, NULL);
    float *o = ch_buf(&h, 0, N * 4 * 4);
    float *c = ch_buf(&h, 1, (N + 1) * 4);
    for (int i = 0; i <= N; i++)
        c[i] = (float)(i * 3) - 7.5f;
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        float *r = o + i * 4;
        CH_FEQ(r[0], c[i] + c[i + 1], i);
        CH_FEQ(r[1], 2.0f + c[i], i);
        CH_FEQ(r[2], 200.0f + 100.0f * 2.0f, i);
        CH_FEQ(r[3], 6.0f + 7.0f * 10.0f, i);
    }
    h_free(&h);
}

#define KERNEL(body)                                                                       \
    "kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n" \
    body "\n}\n"

static void test_neither_more_specialized(void **state)
{
    (void)state;
    ch_expect_error("template <typename T> float w(device T *a, T b) { return 1.0f; }\n"
                    "template <typename T> float w(T a, float b) { return 2.0f; }\n"
                    KERNEL("o[i] = w(o, 1.0f);"), NULL,
                    "k.metal:4:8: error: call to 'w' with arguments (device float*, float) is "
                    "ambiguous: 'w<float>(device float*, float)' (template, line 1), "
                    "'w<device float*>(device float*, float)' (template, line 2) match equally "
                    "well");
    ch_expect_error("template <typename T> float m(T a, float b) { return 1.0f; }\n"
                    "template <typename T> float m(float a, T b) { return 2.0f; }\n"
                    KERNEL("o[i] = m(1.0f, 2.0f);"), NULL,
                    "k.metal:4:8: error: call to 'm' with arguments (float, float) is "
                    "ambiguous: 'm<float>(float, float)' (template, line 1), "
                    "'m<float>(float, float)' (template, line 2) match equally well");
    /* a parameter form that is not ordered (an instance of a struct template) */
    ch_expect_error("template <typename T, int N> struct V { T v[N]; };\n"
                    "template <typename T, int N> float z(V<T, N> a) { return 1.0f; }\n"
                    "template <typename T> float z(T a) { return 2.0f; }\n"
                    KERNEL("V<float, 2> v = {{1.0f, 2.0f}};\no[i] = z(v);"), NULL,
                    "k.metal:6:8: error: call to 'z' with argument (V<float, 2>) is ambiguous");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_more_specialized_wins),
        cmocka_unit_test(test_pointer_to_const),
        cmocka_unit_test(test_neither_more_specialized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
