/*
 * test_trait_types.c — <metal_type_traits>' type traits through the whole compiler:
 * conditional_t, make_unsigned_t, make_signed_t, remove_cv_t and remove_const_t choosing a
 * type (checked by its size and by how it behaves: an unsigned shift, a signed one, a
 * wrap); enable_if_t and enable_if<B, T>::type taking template candidates out of overload
 * resolution (SFINAE) in return types and in template parameters' defaults, for free
 * function pairs and for MLX's Power functor; and the errors, with their file:line.
 * Expected values come from C computing the same here.
 */
#include "construct_harness.h"

#include <math.h>

#define CH_FNEAR(got, want, i)                                                          \
    do {                                                                                \
        float g_ = (got), w_ = (want);                                                  \
        if (!(fabsf(g_ - w_) <= 1e-5f * fabsf(w_)))                                     \
            fail_msg("element %d: got %.9g, want %.9g", (int)(i), (double)g_, (double)w_); \
    } while (0)

static void test_choosing_types(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "#include <metal_stdlib>\n"
            "using namespace metal;\n"
            "template <typename T> int wide_size() {\n"
            "  return sizeof(conditional_t<sizeof(T) <= 2, int, long>);\n"
            "}\n"
            "template <typename T> int ushr(T x) {\n"
            "  return int(make_unsigned_t<T>(x) >> (sizeof(T) * 8 - 4));\n"
            "}\n"
            "kernel void k(device int* o [[buffer(0)]], uint t [[thread_position_in_grid]]) {\n"
            "  int b = 10 * int(t);\n"
            "  o[t * 12 + 0] = sizeof(conditional_t<true, char, long>);\n"
            "  o[t * 12 + 1] = sizeof(metal::conditional<is_integral_v<float>, char, long>::type);\n"
            "  o[t * 12 + 2] = wide_size<half>() * 10 + wide_size<float>();\n"
            "  make_unsigned_t<int> u = -1 - b;\n"
            "  o[t * 12 + 3] = int(u >> 28);\n"
            "  make_signed_t<uint> s = 0xffffffffu - uint(b);\n"
            "  o[t * 12 + 4] = s >> 28;\n"
            "  make_unsigned_t<char> c = 200 + t;\n"
            "  o[t * 12 + 5] = c;\n"
            "  make_signed_t<ushort> w = ushort(65535 - t);\n"
            "  o[t * 12 + 6] = w;\n"
            "  remove_cv_t<const int> r = b;\n"
            "  r += 3;\n"
            "  o[t * 12 + 7] = r;\n"
            "  o[t * 12 + 8] = is_const_v<remove_const_t<const float>> * 2 +\n"
            "                  is_same_v<typename remove_cv<const uint>::type, uint>;\n"
            "  o[t * 12 + 9] = ushr(-1 - b) * 100 + ushr(short(-1 - b));\n"
            "  o[t * 12 + 10] = is_same_v<make_unsigned_t<const long>, const ulong> +\n"
            "                   2 * is_same_v<make_signed_t<uchar>, char>;\n"
            "  o[t * 12 + 11] = sizeof(conditional_t<(sizeof(int) > 2), long, short>);\n"
            "}\n",
            NULL);
    int32_t *o = ch_buf(&h, 0, 4 * 12 * 4);
    ch_run(&h, 4, 4);
    for (int t = 0; t < 4; t++) {
        int b = 10 * t;
        const int32_t *r = &o[t * 12];
        CH_IEQ(r[0], sizeof(char), t);
        CH_IEQ(r[1], 8, t);
        CH_IEQ(r[2], 4 * 10 + 8, t);
        CH_IEQ(r[3], (int)((uint32_t)(-1 - b) >> 28), t);
        CH_IEQ(r[4], (int32_t)(0xffffffffu - (uint32_t)b) >> 28, t);
        CH_IEQ(r[5], (uint8_t)(200 + t), t);
        CH_IEQ(r[6], (int16_t)(uint16_t)(65535 - t), t);
        CH_IEQ(r[7], b + 3, t);
        CH_IEQ(r[8], 1, t);
        CH_IEQ(r[9], (int)((uint32_t)(-1 - b) >> 28) * 100 + (int)((uint16_t)(-1 - b) >> 12), t);
        CH_IEQ(r[10], 3, t);
        CH_IEQ(r[11], 8, t);
    }
    h_free(&h);
}

/* C's references for the overload pairs. */
static int ipow(int b, int e)
{
    int r = 1;
    for (int i = 0; i < e; i++)
        r *= b;
    return r;
}

/* Free function pairs: enable_if_t in the return type, enable_if<B, T>::type after
 * typename, and the template-parameter form (MLX's `typename = enable_if_t<...>`, told
 * apart by an extra `int = 0`). The discarded candidates would not compile for the type
 * (a float shift, an integer pow). */
static void test_enable_if_free_functions(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "#include <metal_stdlib>\n"
            "template <typename T> metal::enable_if_t<metal::is_integral_v<T>, T> pw(T b, T e) {\n"
            "  T r = 1;\n"
            "  for (T i = 0; i < e; i++) r *= b;\n"
            "  return r;\n"
            "}\n"
            "template <typename T>\n"
            "typename metal::enable_if<!metal::is_integral_v<T>, T>::type pw(T b, T e) {\n"
            "  return metal::pow(b, e);\n"
            "}\n"
            "template <typename T, typename = metal::enable_if_t<metal::is_floating_point_v<T>>>\n"
            "T halve(T x) { return x * T(0.5); }\n"
            "template <typename T, typename = metal::enable_if_t<metal::is_integral_v<T>>, int = 0>\n"
            "T halve(T x) { return x >> 1; }\n"
            "kernel void k(device float* f [[buffer(0)]], device int* d [[buffer(1)]],\n"
            "              uint t [[thread_position_in_grid]]) {\n"
            "  d[t * 2] = pw(int(t) + 1, 3);\n"
            "  d[t * 2 + 1] = halve(int(t) * 7 - 9);\n"
            "  f[t * 2] = pw(float(t) + 1.0f, 0.5f);\n"
            "  f[t * 2 + 1] = halve(float(t) - 0.5f);\n"
            "}\n",
            NULL);
    float *f = ch_buf(&h, 0, 8 * 4);
    int32_t *d = ch_buf(&h, 1, 8 * 4);
    ch_run(&h, 4, 4);
    for (int t = 0; t < 4; t++) {
        CH_IEQ(d[t * 2], ipow(t + 1, 3), t);
        CH_IEQ(d[t * 2 + 1], (t * 7 - 9) >> 1, t);
        CH_FNEAR(f[t * 2], powf((float)t + 1.0f, 0.5f), t);
        CH_FEQ(f[t * 2 + 1], ((float)t - 0.5f) * 0.5f, t);
    }
    h_free(&h);
}

/* The same pairs called with explicit template arguments: the defaults are filled from
 * them, and a false one takes its candidate out as a deduced one does. */
static void test_enable_if_explicit_args(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "template <typename T, typename = enable_if_t<is_floating_point_v<T>>>\n"
            "T halve(T x) { return x * T(0.5); }\n"
            "template <typename T, typename = enable_if_t<is_integral_v<T>>, int = 0>\n"
            "T halve(T x) { return x >> 1; }\n"
            "template <typename T> enable_if_t<is_integral_v<T>, T> pw(T b) { return b + 1; }\n"
            "template <typename T> enable_if_t<!is_integral_v<T>, T> pw(T b) { return b * 2; }\n"
            "kernel void k(device float* f [[buffer(0)]], device int* d [[buffer(1)]],\n"
            "              uint t [[thread_position_in_grid]]) {\n"
            "  f[t * 2] = halve<float>(float(t) + 3.0f);\n"
            "  f[t * 2 + 1] = pw<float>(float(t));\n"
            "  d[t * 2] = halve<int>(int(t) * 5);\n"
            "  d[t * 2 + 1] = pw<int>(int(t));\n"
            "}\n",
            NULL);
    float *f = ch_buf(&h, 0, 8 * 4);
    int32_t *d = ch_buf(&h, 1, 8 * 4);
    ch_run(&h, 4, 4);
    for (int t = 0; t < 4; t++) {
        CH_FEQ(f[t * 2], ((float)t + 3.0f) * 0.5f, t);
        CH_FEQ(f[t * 2 + 1], (float)t * 2.0f, t);
        CH_IEQ(d[t * 2], (t * 5) >> 1, t);
        CH_IEQ(d[t * 2 + 1], t + 1, t);
    }
    h_free(&h);
}

/* Conditions as MLX and others write them: a parenthesized comparison, sizeof, && and ||
 * over traits, a value parameter; and an alias of a conditional_t in a struct template
 * (an accumulator wider than half and bfloat). */
static void test_enable_if_conditions(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "#include <metal_stdlib>\n"
            "using namespace metal;\n"
            "template <typename T> struct Acc {\n"
            "  using AccT = conditional_t<is_same_v<T, half> || is_same_v<T, bfloat>, float, T>;\n"
            "  AccT sum;\n"
            "};\n"
            "template <typename T, int N> enable_if_t<N >= 2 && is_same_v<T, float>, T> sc(T x) {\n"
            "  return x * N;\n"
            "}\n"
            "template <typename T, int N> enable_if_t<(N < 2), T> sc(T x) { return x - T(1); }\n"
            "template <typename T> enable_if_t<sizeof(T) == 4, int> sz(T x) { return 4; }\n"
            "template <typename T> enable_if_t<!(sizeof(T) == 4), int> sz(T x) { return 2; }\n"
            "kernel void k(device float* f [[buffer(0)]], device int* d [[buffer(1)]],\n"
            "              uint t [[thread_position_in_grid]]) {\n"
            "  f[t * 2] = sc<float, 3>(float(t));\n"
            "  f[t * 2 + 1] = sc<float, 1>(float(t));\n"
            "  d[t * 3] = sz(float(t)) * 10 + sz(half(t)) + sz(short(t)) * 100;\n"
            "  d[t * 3 + 1] = sizeof(Acc<half>) * 100 + sizeof(Acc<bfloat>) * 10 + sizeof(Acc<short>);\n"
            "  Acc<half> a;\n"
            "  a.sum = 2049.0f + float(t);\n"
            "  d[t * 3 + 2] = int(a.sum);\n"
            "}\n",
            NULL);
    float *f = ch_buf(&h, 0, 8 * 4);
    int32_t *d = ch_buf(&h, 1, 12 * 4);
    ch_run(&h, 4, 4);
    for (int t = 0; t < 4; t++) {
        CH_FEQ(f[t * 2], (float)t * 3.0f, t);
        CH_FEQ(f[t * 2 + 1], (float)t - 1.0f, t);
        CH_IEQ(d[t * 3], 4 * 10 + 2 + 2 * 100, t);
        CH_IEQ(d[t * 3 + 1], 4 * 100 + 4 * 10 + 2, t);
        CH_IEQ(d[t * 3 + 2], 2049 + t, t); /* a float: half would round 2049 to 2048 */
    }
    h_free(&h);
}

/* if constexpr in a kernel template, explicitly instantiated for int and float (MLX's
 * pattern): each instance compiles its own branch. */
static const char *kernel_tmpl_src =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "template <typename T>\n"
    "[[kernel]] void kk(device T* o [[buffer(0)]], uint t [[thread_position_in_grid]]) {\n"
    "  if constexpr (is_integral_v<T>) {\n"
    "    o[t] = T(t) << 2;\n"
    "  } else {\n"
    "    o[t] = metal::sqrt(T(t));\n"
    "  }\n"
    "}\n"
    "template [[host_name(\"kk_int\")]] [[kernel]] void kk<int>(device int*, uint);\n"
    "template [[host_name(\"kk_float\")]] [[kernel]] void kk<float>(device float*, uint);\n";

static void test_if_constexpr_kernel_template(void **state)
{
    (void)state;
    Harness h;
    LangOptions opts = {.entry = "kk_int"};
    ch_init(&h, kernel_tmpl_src, &opts);
    int32_t *o = ch_buf(&h, 0, 8 * 4);
    ch_run(&h, 8, 8);
    for (int t = 0; t < 8; t++)
        CH_IEQ(o[t], t << 2, t);
    h_free(&h);
    opts.entry = "kk_float";
    ch_init(&h, kernel_tmpl_src, &opts);
    float *fo = ch_buf(&h, 0, 8 * 4);
    ch_run(&h, 8, 8);
    for (int t = 0; t < 8; t++)
        CH_FNEAR(fo[t], sqrtf((float)t), t);
    h_free(&h);
}

/* MLX's binary ops (mlx/backend/metal/kernels/binary_ops.h): Power's two operator()
 * templates, told apart by enable_if_t alone; an integer base takes the square-and-multiply
 * loop, a float one pow. */
static const char *power_src =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "struct Power {\n"
    "  template <typename T>\n"
    "  metal::enable_if_t<!metal::is_integral_v<T>, T> operator()(T base, T exp) {\n"
    "    return metal::pow(base, exp);\n"
    "  }\n"
    "  template <typename T>\n"
    "  metal::enable_if_t<metal::is_integral_v<T>, T> operator()(T base, T exp) {\n"
    "    T res = 1;\n"
    "    while (exp) {\n"
    "      if (exp & 1) {\n"
    "        res *= base;\n"
    "      }\n"
    "      exp >>= 1;\n"
    "      base *= base;\n"
    "    }\n"
    "    return res;\n"
    "  }\n"
    "};\n"
    "template <typename T, typename U, typename Op>\n"
    "[[kernel]] void binary_vv(device const T* a [[buffer(0)]], device const T* b [[buffer(1)]],\n"
    "                          device U* c [[buffer(2)]], uint index [[thread_position_in_grid]]) {\n"
    "  c[index] = Op()(a[index], b[index]);\n"
    "}\n"
    "template [[host_name(\"power_int\")]] [[kernel]] void binary_vv<int, int, Power>(\n"
    "    device const int*, device const int*, device int*, uint);\n"
    "template [[host_name(\"power_float\")]] [[kernel]] void binary_vv<float, float, Power>(\n"
    "    device const float*, device const float*, device float*, uint);\n";

static void test_mlx_power(void **state)
{
    (void)state;
    enum { N = 8 };
    Harness h;
    LangOptions opts = {.entry = "power_int"};
    ch_init(&h, power_src, &opts);
    int32_t *a = ch_buf(&h, 0, N * 4), *b = ch_buf(&h, 1, N * 4), *c = ch_buf(&h, 2, N * 4);
    for (int i = 0; i < N; i++) {
        a[i] = i - 3;
        b[i] = i % 5;
    }
    ch_run(&h, N, N);
    for (int i = 0; i < N; i++)
        CH_IEQ(c[i], ipow(i - 3, i % 5), i);
    h_free(&h);

    opts.entry = "power_float";
    ch_init(&h, power_src, &opts);
    float *fa = ch_buf(&h, 0, N * 4), *fb = ch_buf(&h, 1, N * 4), *fc = ch_buf(&h, 2, N * 4);
    for (int i = 0; i < N; i++) {
        fa[i] = 0.5f + (float)i;
        fb[i] = 0.25f * (float)(i % 5);
    }
    ch_run(&h, N, N);
    for (int i = 0; i < N; i++)
        CH_FNEAR(fc[i], powf(0.5f + (float)i, 0.25f * (float)(i % 5)), i);
    h_free(&h);
}

/* A kernel's own template named like a type trait keeps its meaning. */
static void test_own_trait_type_name(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "template <typename T> T make_unsigned(T x) { return x * T(3); }\n"
            "kernel void k(device int* o [[buffer(0)]]) { o[0] = make_unsigned<int>(-5); }\n",
            NULL);
    int32_t *o = ch_buf(&h, 0, 4);
    ch_run(&h, 1, 1);
    CH_IEQ(o[0], -15, 0);
    h_free(&h);
}

static void test_trait_type_errors(void **state)
{
    (void)state;
    /* a false enable_if outside overload resolution */
    ch_expect_error("kernel void k(device int* o [[buffer(0)]]) {\n"
                    "  enable_if_t<sizeof(int) == 2, int> x = 1;\n"
                    "  o[0] = x;\n"
                    "}\n",
                    NULL, "k.metal:2:15: error: enable_if's condition is false here");
    /* every candidate taken out: the call names them and why */
    ch_expect_error("template <typename T> enable_if_t<is_integral_v<T>, T> f(T x) { return x; }\n"
                    "template <typename T> enable_if_t<is_void_v<T>, T> f(T x) { return x; }\n"
                    "kernel void k(device float* o [[buffer(0)]]) {\n"
                    "  o[0] = f(1.5f);\n"
                    "}\n",
                    NULL, "k.metal:4:10: error: no matching function for call to 'f' with "
                          "argument (float): template 'f' (line 1): its enable_if is false");
    ch_expect_error("template <typename T, typename = enable_if_t<is_floating_point_v<T>>>\n"
                    "T halve(T x) { return x * T(0.5); }\n"
                    "kernel void k(device int* o [[buffer(0)]]) {\n"
                    "  o[0] = halve(6) + halve<int>(4);\n"
                    "}\n",
                    NULL, "k.metal:4:10: error: the enable_if in the default of its template "
                          "parameter 2 is false for these arguments");
    ch_expect_error("template <typename T, typename = enable_if_t<is_floating_point_v<T>>>\n"
                    "T halve(T x) { return x * T(0.5); }\n"
                    "kernel void k(device int* o [[buffer(0)]]) {\n"
                    "  o[0] = halve<int>(4);\n"
                    "}\n",
                    NULL, "k.metal:4:10: error: the enable_if in the default of template "
                          "parameter 2 of 'halve' is false for these template arguments");
    ch_expect_error("kernel void k(device int* o [[buffer(0)]], uint t [[thread_position_in_grid]]) {\n"
                    "  conditional_t<t == 0u, int, uint> x = 1;\n"
                    "  o[0] = x;\n"
                    "}\n",
                    NULL, "k.metal:2:17: error: the first argument of 'conditional_t' must be a "
                          "constant expression");
    /* a parenthesized return-type argument cut short, or no parameter list after it */
    ch_expect_error("template <typename T> enable_if_t<(sizeof(T) == 4",
                    NULL, "k.metal:1:1: error: expected a function template");
    ch_expect_error("template <typename T> enable_if_t<(sizeof(T) == 4), T> f { return 1; }\n"
                    "kernel void k(device int* o [[buffer(0)]]) { o[0] = f(1); }\n",
                    NULL, "k.metal:1:1: error: expected a function template");
    ch_expect_error("kernel void k(device int* o [[buffer(0)]]) {\n"
                    "  metal::remove_reference_t<int> x = 1;\n"
                    "}\n",
                    NULL, "k.metal:2:10: error: type trait 'remove_reference_t' is not "
                          "supported yet");
    ch_expect_error("kernel void k(device int* o [[buffer(0)]]) {\n"
                    "  o[0] = sizeof(decay<int>::type);\n"
                    "}\n",
                    NULL, "k.metal:2:17: error: type trait 'decay' is not supported yet");
    ch_expect_error("kernel void k(device int* o [[buffer(0)]]) {\n"
                    "  make_unsigned_t<float> x = 1;\n"
                    "}\n",
                    NULL, "k.metal:2:19: error: make_unsigned<float>: only the integer types");
    ch_expect_error("kernel void k(device int* o [[buffer(0)]]) {\n"
                    "  enable_if<true, int>::typ x = 1;\n"
                    "}\n",
                    NULL, "k.metal:2:25: error: expected 'type' after 'enable_if<...>::'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_choosing_types),
        cmocka_unit_test(test_enable_if_free_functions),
        cmocka_unit_test(test_enable_if_explicit_args),
        cmocka_unit_test(test_enable_if_conditions),
        cmocka_unit_test(test_if_constexpr_kernel_template),
        cmocka_unit_test(test_mlx_power),
        cmocka_unit_test(test_own_trait_type_name),
        cmocka_unit_test(test_trait_type_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
