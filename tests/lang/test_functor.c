/*
 * test_functor.c — functors as MLX writes them (kernels/binary_ops.h, unary_ops.h,
 * reduction/ops.h): structs with a member operator() (a template or not) passed as template
 * type arguments of kernels instantiated explicitly with [[host_name]], called as `Op()(a,
 * b)` and `op(acc, x)`, member function templates (`op.simd_reduce(v)`, `op.template
 * f<float>(v)`), static constants (`Max::init`); and the other member operators: operator[]
 * read (const) and written (through `thread float&`), compound assignment returning `*this`,
 * unary `-`, `!`, prefix and postfix `++`, comparisons, member and free operators chosen
 * together; and free operator templates. Results are checked against C written here; what
 * stays refused, and ambiguous member/free operators, are errors naming file:line.
 */
#include <math.h>

#include "construct_harness.h"

static const char *ops_src =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "struct Add { template <typename T> T operator()(T x, T y) { return x + y; } };\n"
    "struct Max {\n"
    "  template <typename T> METAL_FUNC T operator()(T a, T b) const { return a > b ? a : b; }\n"
    "  static constexpr constant float init = -INFINITY;\n"
    "  template <typename T> T simd_reduce(T v) { return simd_max(v); }\n"
    "};\n"
    "struct Sum {\n"
    "  static constexpr constant float init = 0.0f;\n"
    "  float operator()(float a, float b) const { return a + b; }\n"
    "  template <typename T> T simd_reduce(T v) { return simd_sum(v); }\n"
    "};\n"
    "struct Square { template <typename T> T operator()(T x) { return x * x; } };\n"
    "struct Negate { float operator()(float x) const { return -x; }\n"
    "                int operator()(int x) const { return -x * 10; } };\n"
    "template <typename T, typename U, typename Op>\n"
    "[[kernel]] void binary_vv(device const T* a, device const T* b, device U* c,\n"
    "                          uint i [[thread_position_in_grid]])\n"
    "{ c[i] = Op()(a[i], b[i]); }\n"
    "template [[host_name(\"add_float\")]] [[kernel]]\n"
    "decltype(binary_vv<float, float, Add>) binary_vv<float, float, Add>;\n"
    "template [[host_name(\"max_int\")]] [[kernel]]\n"
    "decltype(binary_vv<int, int, Max>) binary_vv<int, int, Max>;\n"
    "template <typename T, typename Op>\n"
    "[[kernel]] void unary_v(device const T* in, device T* out, uint i [[thread_position_in_grid]])\n"
    "{ Op op; out[i] = op(in[i]); }\n"
    "template [[host_name(\"square_float\")]] [[kernel]]\n"
    "decltype(unary_v<float, Square>) unary_v<float, Square>;\n"
    "template [[host_name(\"negate_int\")]] [[kernel]]\n"
    "decltype(unary_v<int, Negate>) unary_v<int, Negate>;\n"
    "template <typename Op>\n"
    "[[kernel]] void row_reduce(device const float* in, device float* out,\n"
    "                           uint i [[thread_position_in_grid]],\n"
    "                           uint lane [[thread_index_in_simdgroup]]) {\n"
    "  Op op;\n"
    "  float acc = Op::init;\n"
    "  for (int k = 0; k < 4; k++) acc = op(acc, in[i * 4 + k]);\n"
    "  acc = op.simd_reduce(acc);\n"
    "  if (lane == 0) out[i / 32] = acc + op.template simd_reduce<float>(1.0f);\n"
    "}\n"
    "template [[host_name(\"reduce_max\")]] [[kernel]]\n"
    "decltype(row_reduce<Max>) row_reduce<Max>;\n"
    "template [[host_name(\"reduce_sum\")]] [[kernel]]\n"
    "decltype(row_reduce<Sum>) row_reduce<Sum>;\n";

static IsaProgram *compile_entry(Harness *h, const char *entry)
{
    LangOptions opts = {0};
    opts.entry = entry;
    ch_init(h, ops_src, &opts);
    return h->prog;
}

static float in_value(int i, int salt) { return (float)((i * 7 + salt) % 23) * 0.375f - 4.0f; }

static void test_binary_functors(void **state)
{
    (void)state;
    enum { N = 64 };
    Harness h;
    compile_entry(&h, "add_float");
    float *a = ch_buf(&h, 0, N * 4), *b = ch_buf(&h, 1, N * 4), *c = ch_buf(&h, 2, N * 4);
    for (int i = 0; i < N; i++)
        a[i] = in_value(i, 1), b[i] = in_value(i, 5);
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++)
        CH_FEQ(c[i], a[i] + b[i], i);
    h_free(&h);

    compile_entry(&h, "max_int");
    int32_t *x = ch_buf(&h, 0, N * 4), *y = ch_buf(&h, 1, N * 4), *z = ch_buf(&h, 2, N * 4);
    for (int i = 0; i < N; i++)
        x[i] = (i * 37) % 19 - 9, y[i] = (i * 11) % 17 - 8;
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++)
        CH_IEQ(z[i], x[i] > y[i] ? x[i] : y[i], i);
    h_free(&h);
}

static void test_unary_functors(void **state)
{
    (void)state;
    enum { N = 32 };
    Harness h;
    compile_entry(&h, "square_float");
    float *in = ch_buf(&h, 0, N * 4), *out = ch_buf(&h, 1, N * 4);
    for (int i = 0; i < N; i++)
        in[i] = in_value(i, 3);
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++)
        CH_FEQ(out[i], in[i] * in[i], i);
    h_free(&h);

    compile_entry(&h, "negate_int"); /* the int overload of a non-template operator() */
    int32_t *xi = ch_buf(&h, 0, N * 4), *xo = ch_buf(&h, 1, N * 4);
    for (int i = 0; i < N; i++)
        xi[i] = i - 11;
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++)
        CH_IEQ(xo[i], -(i - 11) * 10, i);
    h_free(&h);
}

static void test_reduction_functors(void **state)
{
    (void)state;
    enum { N = 64 };
    for (int which = 0; which < 2; which++) {
        Harness h;
        compile_entry(&h, which ? "reduce_sum" : "reduce_max");
        float *in = ch_buf(&h, 0, N * 4 * 4), *out = ch_buf(&h, 1, (N / 32) * 4);
        for (int i = 0; i < N * 4; i++)
            in[i] = (float)((i * 13) % 29) * 0.5f - 7.0f; /* exact in float: sums are too */
        ch_run(&h, N, 32);
        for (int g = 0; g < N / 32; g++) {
            float acc_all = which ? 0.0f : -INFINITY;
            for (int t = g * 32; t < g * 32 + 32; t++) {
                float acc = which ? 0.0f : -INFINITY;
                for (int k = 0; k < 4; k++)
                    acc = which ? acc + in[t * 4 + k] : fmaxf(acc, in[t * 4 + k]);
                acc_all = which ? acc_all + acc : fmaxf(acc_all, acc);
            }
            CH_FEQ(out[g], acc_all + 1.0f, g); /* only lane 0 sums the 1 */
        }
        h_free(&h);
    }
}

/* Member function templates in a struct template: called from a plain member function and
 * from another member template without `this`, static ones as `S::f(x)` and `S::f<int>(x)`,
 * and a functor given to a function template (`apply(sc, 1.0f)` calls `f(x)`). */
static const char *nested_src =
    "template <typename T> struct Acc {\n"
    "  T sum = 0;\n"
    "  template <typename U> void add(U x) { sum += T(x); }\n"
    "  template <typename U> static U twice(U x) { return x * 2; }\n"
    "  void add_both(T a, int b) { add(a); add(b); add_pair(a, a); }\n"
    "  template <typename U> void add_pair(U a, U b) { add(a + b); }\n"
    "  T operator()() const { return sum; }\n"
    "};\n"
    "struct Scale { float s; float operator()(float x) const { return s * x; } };\n"
    "template <typename F> float apply(F f, float x) { return f(x); }\n"
    "kernel void k(device float *o, uint i [[thread_position_in_grid]]) {\n"
    "  Acc<float> a;\n"
    "  a.add(1.5f);\n"
    "  a.add(2);\n"
    "  a.add_both(float(i), 3);\n"
    "  Scale sc{3.0f};\n"
    "  o[i] = a() + Acc<float>::twice(2.0f) + apply(sc, 1.0f) + Acc<int>::twice<int>(5);\n"
    "}\n";

static void test_member_templates(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, nested_src, NULL);
    float *o = ch_buf(&h, 0, 32 * 4);
    ch_run(&h, 32, 32);
    for (int i = 0; i < 32; i++) {
        float sum = 1.5f + 2.0f + (float)i + 3.0f + ((float)i + (float)i);
        CH_FEQ(o[i], sum + 4.0f + 3.0f + 10.0f, i);
    }
    h_free(&h);
}

/* A member template instance made while the struct's bodies are parsed (init calls set<float>)
 * that calls a member function returning a reference into the object: the object must live
 * in thread memory, decided with the struct's member functions, not before them. */
static void test_instance_escapes(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, "struct S {\n"
                "  float v[4];\n"
                "  void init(int j, float x) { set(j, x); }\n"
                "  template <typename T> void set(int i, T x) { at(i) = x; }\n"
                "  thread float& at(int i) { return v[i]; }\n"
                "};\n"
                "kernel void k(device float *o, uint i [[thread_position_in_grid]]) {\n"
                "  S s = {{0, 0, 0, 0}};\n"
                "  s.init(int(i % 4), 5.0f);\n"
                "  o[i] = s.v[0] + s.v[1] * 10 + s.v[2] * 100 + s.v[3] * 1000;\n"
                "}\n", NULL);
    float *o = ch_buf(&h, 0, 32 * 4);
    ch_run(&h, 32, 32);
    for (int i = 0; i < 32; i++)
        CH_FEQ(o[i], 5.0f * powf(10.0f, (float)(i % 4)), i);
    h_free(&h);
}

/* ---- the other member operators ---------------------------------------------------------- */

static const char *vec_src =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "struct V4 {\n"
    "  float v[4];\n"
    "  float operator[](int i) const { return v[i]; }\n"
    "  thread float& operator[](int i) { return v[i]; }\n"
    "  thread V4& operator+=(V4 o) { for (int k = 0; k < 4; k++) v[k] += o.v[k]; return *this; }\n"
    "  V4 operator-() const { V4 r; for (int k = 0; k < 4; k++) r.v[k] = -v[k]; return r; }\n"
    "  bool operator!() const { return v[0] == 0.0f; }\n"
    "  thread V4& operator++() { v[0] += 1.0f; return *this; }\n"
    "  V4 operator++(int) { V4 old = *this; v[0] += 1.0f; return old; }\n"
    "  bool operator<(V4 o) const { return v[0] < o.v[0]; }\n"
    "  V4 operator*(float s) const { V4 r; for (int k = 0; k < 4; k++) r.v[k] = v[k] * s;\n"
    "                                return r; }\n"
    "};\n"
    "V4 operator*(float s, V4 a) { return a * s; }\n"
    "kernel void k(device const float *a, device float *o, uint i [[thread_position_in_grid]]) {\n"
    "  V4 x;\n"
    "  for (int k = 0; k < 4; k++) x[k] = a[i * 4 + k];\n"
    "  V4 y = -x;\n"
    "  y += x * 2.0f;\n"
    "  y[2] = 7.0f;\n"
    "  y[3] += 0.25f;\n"
    "  ++y;\n"
    "  V4 z = y++;\n"
    "  const V4 c = 0.5f * z;\n"
    "  for (int k = 0; k < 4; k++) o[i * 8 + k] = y[k];\n"
    "  o[i * 8 + 4] = z[0];\n"
    "  o[i * 8 + 5] = c[1];\n"
    "  o[i * 8 + 6] = !x ? 1.0f : 0.0f;\n"
    "  o[i * 8 + 7] = (z < y) ? 1.0f : 2.0f;\n"
    "}\n";

static void test_member_operators(void **state)
{
    (void)state;
    enum { N = 32 };
    Harness h;
    ch_init(&h, vec_src, NULL);
    float *a = ch_buf(&h, 0, N * 16), *o = ch_buf(&h, 1, N * 32);
    for (int i = 0; i < N * 4; i++)
        a[i] = i % 5 == 0 ? 0.0f : in_value(i, 2);
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        float x[4], y[4], z[4];
        for (int k = 0; k < 4; k++)
            x[k] = a[i * 4 + k], y[k] = -x[k] + x[k] * 2.0f;
        y[2] = 7.0f;
        y[3] += 0.25f;
        y[0] += 1.0f;
        for (int k = 0; k < 4; k++)
            z[k] = y[k];
        y[0] += 1.0f;
        for (int k = 0; k < 4; k++)
            CH_FEQ(o[i * 8 + k], y[k], i * 8 + k);
        CH_FEQ(o[i * 8 + 4], z[0], i * 8 + 4);
        CH_FEQ(o[i * 8 + 5], 0.5f * z[1], i * 8 + 5);
        CH_FEQ(o[i * 8 + 6], x[0] == 0.0f ? 1.0f : 0.0f, i * 8 + 6);
        CH_FEQ(o[i * 8 + 7], z[0] < y[0] ? 1.0f : 2.0f, i * 8 + 7);
    }
    h_free(&h);
}

/* ---- operator templates ------------------------------------------------------------------ */

/* Free operator templates on a struct template's instances, deduced from the operands
 * (`Vec<T> operator+(Vec<T>, Vec<T>)` for float and int); a plain operator beside a template
 * that matches as well is chosen over it. */
static const char *tmpl_src =
    "template <typename T> struct Vec { T x, y; };\n"
    "template <typename T> Vec<T> operator+(Vec<T> a, Vec<T> b) {\n"
    "  return Vec<T>{a.x + b.x, a.y + b.y};\n"
    "}\n"
    "template <typename T> Vec<T> operator*(T s, Vec<T> a) { return Vec<T>{s * a.x, s * a.y}; }\n"
    "Vec<int> operator*(int s, Vec<int> a) { return Vec<int>{s * a.x * 10, s * a.y * 10}; }\n"
    "kernel void k(device float *o, device int *p, uint i [[thread_position_in_grid]]) {\n"
    "  Vec<float> a{float(i), 1.0f}, b{2.0f, 3.0f};\n"
    "  Vec<float> c = a + b;\n"
    "  Vec<int> d = Vec<int>{int(i), 2} + Vec<int>{3, 4};\n"
    "  Vec<float> e = 0.5f * c;\n"
    "  Vec<int> f = 2 * d;\n"
    "  o[i] = c.x + c.y * 100.0f + e.x * 1000.0f;\n"
    "  p[i] = d.x + d.y * 100 + f.x * 10000;\n"
    "}\n";

static void test_operator_templates(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, tmpl_src, NULL);
    float *o = ch_buf(&h, 0, 32 * 4);
    int32_t *p = ch_buf(&h, 1, 32 * 4);
    ch_run(&h, 32, 32);
    for (int i = 0; i < 32; i++) {
        float cx = (float)i + 2.0f, cy = 4.0f;
        CH_FEQ(o[i], cx + cy * 100.0f + (0.5f * cx) * 1000.0f, i);
        int dx = i + 3, dy = 6;
        CH_IEQ(p[i], dx + dy * 100 + (2 * dx * 10) * 10000, i);
    }
    h_free(&h);
    ch_expect_error("template <typename T> struct Vec { T x; };\n"
                    "template <typename T> Vec<T> operator&&(Vec<T> a, Vec<T> b) { return a; }\n"
                    "kernel void k(device float *o) { o[0] = 1; }\n", NULL,
                    "k.metal:2:38: error: overloading 'operator&&' is not supported");
}

/* Member operators declared in the struct and defined after it. */
static void test_operators_defined_outside(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, "struct V { float v[2]; float operator[](int i) const; V operator+(V o) const;\n"
                "           thread float& operator[](int i); };\n"
                "float V::operator[](int i) const { return v[i]; }\n"
                "thread float& V::operator[](int i) { return v[i]; }\n"
                "V V::operator+(V o) const { return V{{v[0] + o.v[0], v[1] + o.v[1]}}; }\n"
                "kernel void k(device float *o, uint i [[thread_position_in_grid]]) {\n"
                "  V a = {{float(i), 2}};\n"
                "  a[1] += 0.5f;\n"
                "  const V b = a + a;\n"
                "  o[i] = b[0] + b[1] * 100.0f;\n"
                "}\n", NULL);
    float *o = ch_buf(&h, 0, 32 * 4);
    ch_run(&h, 32, 32);
    for (int i = 0; i < 32; i++)
        CH_FEQ(o[i], ((float)i + (float)i) + (2.5f + 2.5f) * 100.0f, i);
    h_free(&h);
    ch_expect_error("struct V { float v[2]; float operator[](int i) const; };\n"
                    "float V::operator()(int i) const { return v[i]; }\n"
                    "kernel void k(device float *o) { o[0] = 1; }\n", NULL,
                    "k.metal:2:10: error: 'V' declares no member function 'operator()' with "
                    "these parameters");
}

/* Free `!`, unary `+`, prefix and postfix `++` and `--` on a struct, as free functions. */
static void test_free_unary_operators(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, "struct C { int n; };\n"
                "bool operator!(C a) { return a.n == 0; }\n"
                "C operator+(C a) { return C{a.n * 3}; }\n"
                "thread C &operator++(thread C &a) { a.n += 10; return a; }\n"
                "C operator++(thread C &a, int) { C old = a; a.n += 100; return old; }\n"
                "thread C &operator--(thread C &a) { a.n -= 1; return a; }\n"
                "kernel void k(device int *o, uint i [[thread_position_in_grid]]) {\n"
                "  C c{int(i % 3)};\n"
                "  int z = !c ? 1000 : 0;\n"
                "  C p = c++;\n"
                "  ++c;\n"
                "  --c;\n"
                "  o[i] = z + (+p).n + c.n * 10000;\n"
                "}\n", NULL);
    int32_t *o = ch_buf(&h, 0, 32 * 4);
    ch_run(&h, 32, 32);
    for (int i = 0; i < 32; i++) {
        int n = i % 3;
        CH_IEQ(o[i], (n == 0 ? 1000 : 0) + n * 3 + (n + 100 + 10 - 1) * 10000, i);
    }
    h_free(&h);
}

/* A member operator and a free one that match equally well are ambiguous, as in C++ (the
 * member's object binds by reference, the free one's operand by value: neither is better);
 * a non-const member beats a free operator taking `thread const S&` (less const added),
 * also on a temporary, which C++ binds to a non-const member's object. */
static void test_member_and_free(void **state)
{
    (void)state;
    ch_expect_error("struct S { float x; S operator+(S o) const { return S{x + o.x}; } };\n"
                    "S operator+(S a, S b) { return S{a.x - b.x}; }\n"
                    "kernel void k(device float *o, uint i [[thread_position_in_grid]]) {\n"
                    "  S a{1.0f}, b{2.0f};\n"
                    "  o[i] = (a + b).x;\n"
                    "}\n", NULL,
                    "k.metal:5:13: error: ambiguous use of 'operator+' with operands (S, S): the "
                    "member and free operators 'S::operator+(S) const' (line 1), "
                    "'operator+(S, S)' (line 2) match equally well");
    Harness h;
    ch_init(&h, "struct S { float x; S operator+(S o) { return S{x + o.x}; } };\n"
                "S operator+(thread const S &a, S b) { return S{a.x - b.x}; }\n"
                "kernel void k(device float *o, uint i [[thread_position_in_grid]]) {\n"
                "  S a{float(i)}, b{2.0f};\n"
                "  o[i] = (a + b).x + (b + a).x * 10.0f + (S{1.0f} + b).x * 100.0f;\n"
                "}\n", NULL);
    float *o = ch_buf(&h, 0, 32 * 4);
    ch_run(&h, 32, 32);
    for (int i = 0; i < 32; i++) /* the member's sum, not the free operator's difference,
                                  * for a temporary object too */
        CH_FEQ(o[i], ((float)i + 2.0f) + (2.0f + (float)i) * 10.0f + 3.0f * 100.0f, i);
    h_free(&h);
}

/* A member operator template beside free operators: deduced from the right operand, it
 * takes `a * 3`; for `a * b` it matches as well as the free operator(S, S), and the plain
 * function wins over the template's instance. */
static void test_member_template_and_free(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, "struct S { float x;\n"
                "  template <typename T> S operator*(T s) const { return S{x * float(s)}; }\n"
                "};\n"
                "S operator*(S a, S b) { return S{a.x * b.x + 1000.0f}; }\n"
                "S operator*(float s, S a) { return S{a.x * s + 0.5f}; }\n"
                "kernel void k(device float *o, uint i [[thread_position_in_grid]]) {\n"
                "  S a{float(i)}, b{2.0f};\n"
                "  o[i] = (a * 3).x + (a * b).x * 10.0f + (2.0f * a).x * 100.0f;\n"
                "}\n", NULL);
    float *o = ch_buf(&h, 0, 32 * 4);
    ch_run(&h, 32, 32);
    for (int i = 0; i < 32; i++) {
        float x = (float)i;
        CH_FEQ(o[i], x * 3.0f + (x * 2.0f + 1000.0f) * 10.0f + (x * 2.0f + 0.5f) * 100.0f, i);
    }
    h_free(&h);
}

/* What stays refused, and misuse, is an error at the line that says it. */
static void test_refused(void **state)
{
    (void)state;
    ch_expect_error("struct S { float x; thread S& operator=(S o) { x = o.x; return *this; } };\n"
                    "kernel void k(device float *o) { o[0] = 1; }\n", NULL,
                    "k.metal:1:39: error: overloading 'operator=' is not supported");
    ch_expect_error("struct S { float x; bool operator&&(S o) const { return x && o.x; } };\n"
                    "kernel void k(device float *o) { o[0] = 1; }\n", NULL,
                    "k.metal:1:34: error: overloading 'operator&&' is not supported");
    /* a reference to what ends with the call: a local, a parameter taken by value */
    ch_expect_error("struct B { float v; thread float& get() { float t = v; return t; } };\n"
                    "kernel void k(device float *o) { B b = {1.0f}; b.get() = 5.0f; o[0] = b.v; }\n",
                    NULL, "k.metal:1:63: error: returning a reference to 't', which ends when "
                    "the function returns");
    ch_expect_error("struct B { float v; thread float& pick(float w) { return w; } };\n"
                    "kernel void k(device float *o) { B b = {1.0f}; o[0] = b.pick(2.0f); }\n",
                    NULL, "k.metal:1:58: error: returning a reference to 'w'");
    ch_expect_error("struct S { float x; };\n"
                    "kernel void k(device float *o) { S s{1.0f}; o[0] = s(2.0f); }\n", NULL,
                    "k.metal:2:53: error: 'S' is not callable: it declares no operator()");
    ch_expect_error("struct S { float v[2]; float operator[](int i, int j) { return v[i]; } };\n"
                    "kernel void k(device float *o) { o[0] = 1; }\n", NULL,
                    "k.metal:1:30: error: member 'operator[]' must take one parameter (the "
                    "index); it takes 2");
    ch_expect_error("struct S { float v[2]; thread float& operator[](int i) { return v[i]; } };\n"
                    "kernel void k(device float *o) { const S s = {{1, 2}}; o[0] = s[1]; }\n",
                    NULL, "k.metal:2:64: error: 'S::operator[]' is not const");
    ch_expect_error("struct S { float x; thread float& get() { return x + 1.0f; } };\n"
                    "kernel void k(device float *o) { S s{1}; o[0] = s.get(); }\n", NULL,
                    "k.metal:1:50: error: a function returning 'thread float&' must return a "
                    "variable, a member or an element");
    ch_expect_error("struct S { template <typename T> T f(T a, T b) { return a + b; } };\n"
                    "kernel void k(device float *o) { S s; o[0] = s.f(1.0f, 2); }\n", NULL,
                    "k.metal:2:48: error: no member function 'S::f' takes these arguments "
                    "(template at line 1): conflicting types for template parameter 'T'");
    ch_expect_error("struct S { float x; template <typename T> S(T v) : x(v) {} };\n"
                    "kernel void k(device float *o) { o[0] = 1; }\n", NULL,
                    "k.metal:1:43: error: constructor templates are not supported yet");
    ch_expect_error("struct S { template <typename T> T f(T x) { return f(x); } };\n"
                    "kernel void k(device float *o) { S s; o[0] = s.f(1.0f); }\n", NULL,
                    "k.metal:1:52: error: recursive call to 'S::f<float>' (functions cannot be "
                    "recursive in Metal)");
    ch_expect_error("float operator[](int i) { return 1.0f; }\n"
                    "kernel void k(device float *o) { o[0] = 1; }\n", NULL,
                    "k.metal:1:15: error: overloading 'operator[]' is not supported as a free "
                    "function (C++ makes it a member: declare it in the struct)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_binary_functors),
        cmocka_unit_test(test_unary_functors),
        cmocka_unit_test(test_reduction_functors),
        cmocka_unit_test(test_member_templates),
        cmocka_unit_test(test_instance_escapes),
        cmocka_unit_test(test_member_operators),
        cmocka_unit_test(test_operator_templates),
        cmocka_unit_test(test_operators_defined_outside),
        cmocka_unit_test(test_free_unary_operators),
        cmocka_unit_test(test_member_and_free),
        cmocka_unit_test(test_member_template_and_free),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
