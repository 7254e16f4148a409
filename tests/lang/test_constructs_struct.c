/*
 * test_constructs_struct.c — structs with member functions through the whole compiler:
 * methods (const, static, `this->`, members named without `this`, methods calling
 * methods), constructors (initializer lists, bodies, overloads by count and type, `T x;`,
 * `T x(a)`, `T x = T(a)`, `T{a}`, temporaries), default member initializers, static
 * constants, methods qualified for device and threadgroup objects and called through
 * pointers, arrays of objects, and struct templates (type and value parameters, used in a
 * function template). Kernels run on the simulator against C computed here; the
 * misuses are refused with messages naming the line.
 */
#include "construct_harness.h"

#include <math.h>

/* ---- member functions and constructors -------------------------------------------------- */

#define ACC_STRUCT \
    "#include <metal_stdlib>\n" \
    "using namespace metal;\n" \
    "struct Acc {\n" \
    "    float sum;\n" \
    "    float m;\n" \
    "    Acc() : sum(0), m(-INFINITY) {}\n" \
    "    Acc(float s) { sum = s; this->m = s; }\n" \
    "    Acc(int n, float s) : sum(float(n) * s), m(s) {}\n" \
    "    void add(float x) { sum += x; m = max(m, x); }\n" \
    "    float result() const { return sum + this->m; }\n" \
    "    static float twice(float x) { return 2.0f * x; }\n" \
    "    void add2(float x) { add(x); this->add(twice(x)); }\n" \
    "    Acc merged(const thread Acc &o) const { Acc r(sum + o.sum); r.m = max(m, o.m); " \
    "return r; }\n" \
    "};\n"

static const char *acc_src =
    ACC_STRUCT
    "float use(thread Acc &a, float x) { a.add(x); return a.result(); }\n"
    "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "    Acc a;\n"
    "    for (int j = 0; j < 4; j++) a.add(in[i * 4 + j]);\n"
    "    Acc b(1.5f);\n"
    "    b.add2(in[i * 4]);\n"
    "    Acc c = Acc(3, 0.5f);\n"
    "    Acc d{2.0f};\n"
    "    out[i * 6] = a.result();\n"
    "    out[i * 6 + 1] = b.result() + Acc::twice(c.sum);\n"
    "    out[i * 6 + 2] = Acc(in[i * 4 + 1]).result();\n"
    "    out[i * 6 + 3] = a.merged(b).result();\n"
    "    out[i * 6 + 4] = use(d, in[i * 4 + 2]);\n"
    "    thread Acc *p = &c;\n"
    "    p->add(in[i * 4 + 3]);\n"
    "    Acc e = {4, 0.25f};\n"
    "    out[i * 6 + 5] = p->result() + c.m + e.result() * 1000.0f;\n"
    "}\n";

typedef struct { float sum, m; } AccRef;
static void acc_add(AccRef *a, float x) { a->sum += x; a->m = fmaxf(a->m, x); }
static float acc_result(const AccRef *a) { return a->sum + a->m; }

static void test_methods_exec(void **state)
{
    (void)state;
    enum { N = 64 };
    Harness h;
    ch_init(&h, acc_src, NULL);
    float *in = ch_buf(&h, 0, N * 4 * 4);
    float *out = ch_buf(&h, 1, N * 6 * 4);
    for (int i = 0; i < N * 4; i++)
        in[i] = (float)((i * 37) % 23) * 0.25f - 2.0f;
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        const float *x = in + i * 4;
        AccRef a = {0.0f, -INFINITY}, b = {1.5f, 1.5f}, c = {3.0f * 0.5f, 0.5f}, d = {2, 2};
        for (int j = 0; j < 4; j++)
            acc_add(&a, x[j]);
        acc_add(&b, x[0]);
        acc_add(&b, 2.0f * x[0]);
        CH_FEQ(out[i * 6], acc_result(&a), i);
        CH_FEQ(out[i * 6 + 1], acc_result(&b) + 2.0f * c.sum, i);
        CH_FEQ(out[i * 6 + 2], x[1] + x[1], i);
        AccRef r = {a.sum + b.sum, fmaxf(a.m, b.m)};
        CH_FEQ(out[i * 6 + 3], acc_result(&r), i);
        acc_add(&d, x[2]);
        CH_FEQ(out[i * 6 + 4], acc_result(&d), i);
        acc_add(&c, x[3]);
        AccRef e = {4 * 0.25f, 0.25f};
        CH_FEQ(out[i * 6 + 5], acc_result(&c) + c.m + acc_result(&e) * 1000.0f, i);
    }
    h_free(&h);
}

/* The object stays in registers (no stack memory), and the listing names the member
 * functions as Acc::add. */
static void test_methods_shape(void **state)
{
    (void)state;
    IsaProgram *p = ch_compile(ACC_STRUCT
        "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
        "              uint i [[thread_position_in_grid]]) {\n"
        "    Acc a;\n"
        "    for (int j = 0; j < 4; j++) a.add(in[i * 4 + j]);\n"
        "    Acc b(1.5f);\n"
        "    b.add2(in[i]);\n"
        "    out[i] = a.result() + b.result() + Acc(in[i + 1]).result();\n"
        "}\n", NULL);
    CH_EXPECT(p, p->stack_bytes == 0);
    bool add = false, ctor = false, twice = false;
    for (uint32_t i = 0; i < p->num_calls; i++) {
        add |= strcmp(p->calls[i].func, "Acc::add") == 0;
        ctor |= strcmp(p->calls[i].func, "Acc::Acc") == 0;
        twice |= strcmp(p->calls[i].func, "Acc::twice") == 0;
    }
    CH_EXPECT(p, add && ctor && twice);
    char *text = isa_disassemble(p, true);
    CH_EXPECT(p, strstr(text, "(in Acc::add, called at line 12 in Acc::add2, called at line 20)"));
    free(text);
    isa_program_free(p);
}

/* Default member initializers, members whose type has a constructor, static constants,
 * private parts, and arrays of objects (each element constructed). */
static const char *init_src =
    "struct Counter {\n"
    "    int n = 0;\n"
    "    float scale{2.0f};\n"
    "    void tick() { n++; }\n"
    "};\n"
    "class Pair {\n"
    "public:\n"
    "    static constexpr int K = 3;\n"
    "    static constant float HALF = 0.5f;\n"
    "    Pair(int a) : lo(a) { hi.n = a * K; }\n"
    "    int total() const { return lo.n + hi.n + int(lo.scale * HALF); }\n"
    "    Counter lo, hi;\n"
    "private:\n"
    "    int unused;\n"
    "};\n"
    "struct Wrap { Counter c; int get() const { return c.n; } };\n"
    "kernel void k(device int *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
    "    Counter cs[4];\n"
    "    for (uint j = 0; j < 4; j++)\n"
    "        for (uint t = 0; t <= j; t++) cs[j].tick();\n"
    "    Pair p(int(i));\n"
    "    p.lo.tick();\n"
    "    Wrap w;\n"
    "    w.c.tick();\n"
    "    out[i * 4] = cs[0].n * 1000 + cs[1].n * 100 + cs[2].n * 10 + cs[3].n;\n"
    "    out[i * 4 + 1] = p.total() + Pair::K;\n"
    "    out[i * 4 + 2] = int(cs[3].scale) + w.get();\n"
    "    out[i * 4 + 3] = Counter().n + Counter{}.n + int(Pair::HALF * 4.0f);\n"
    "}\n";

static void test_member_initializers(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, init_src, NULL);
    int32_t *out = ch_buf(&h, 0, 32 * 4 * 4);
    ch_run(&h, 32, 32);
    for (int i = 0; i < 32; i++) {
        CH_IEQ(out[i * 4], 1234, i);
        CH_IEQ(out[i * 4 + 1], (i + 1) + i * 3 + 1 + 3, i);
        CH_IEQ(out[i * 4 + 2], 2 + 1, i);
        CH_IEQ(out[i * 4 + 3], 2, i);
    }
    h_free(&h);
}

/* Member functions on device and threadgroup objects (qualified for them), through
 * pointers and references; a const object calls const members only. */
static const char *space_src =
    "struct Cell {\n"
    "    float v;\n"
    "    float get() const device { return v; }\n"
    "    void put(float x) device { v = x; }\n"
    "    void put(float x) threadgroup { v = x * 2.0f; }\n"
    "    float get() const threadgroup { return v; }\n"
    "    float get() const { return v + 100.0f; }\n"
    "};\n"
    "kernel void k(device Cell *cells [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]], uint l [[thread_index_in_threadgroup]]) {\n"
    "    threadgroup Cell tile[32];\n"
    "    tile[l].put(cells[i].get());\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    device Cell *c = cells + i;\n"
    "    c->put(tile[31 - l].get());\n"
    "    device Cell &r = cells[i];\n"
    "    Cell t = {r.get()};\n"
    "    out[i] = t.get();\n"
    "}\n";

static void test_address_space_methods(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, space_src, NULL);
    float *cells = ch_buf(&h, 0, 64 * 4);
    float *out = ch_buf(&h, 1, 64 * 4);
    for (int i = 0; i < 64; i++)
        cells[i] = (float)i * 1.5f;
    ch_run(&h, 64, 32);
    for (int i = 0; i < 64; i++) {
        int g = i / 32 * 32, l = i % 32;
        float moved = (float)(g + 31 - l) * 1.5f * 2.0f;
        CH_FEQ(cells[i], moved, i);
        CH_FEQ(out[i], moved + 100.0f, i);
    }
    h_free(&h);
}

/* An array member indexed through `this`: a constant index once the loop that passes it
 * unrolls (registers only: no selects, no stack), a run-time one as a select over the
 * elements (the object stays in registers). */
static const char *buf_src =
    "struct Buf {\n"
    "    float v[4];\n"
    "    void set(int i, float x) { v[i] = x; }\n"
    "    float get(int i) const { return v[i]; }\n"
    "};\n"
    "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "    Buf b;\n"
    "    for (int j = 0; j < 4; j++) b.set(j, in[i * 4 + j]);\n"
    "#ifdef DYNAMIC\n"
    "    for (uint j = 0; j < i % 4u; j++) b.set(int(j), b.get(int(j)) * 2.0f);\n"
    "    out[i] = b.get(int(i % 3u)) * 10.0f + b.get(3);\n"
    "#else\n"
    "    out[i] = b.get(0) + b.get(3);\n"
    "#endif\n"
    "}\n";

static void test_array_member_index(void **state)
{
    (void)state;
    IsaProgram *p = ch_compile(buf_src, NULL);
    CH_EXPECT(p, !ch_has(p, ISA_OP_ICMPSEL) && p->stack_bytes == 0);
    isa_program_free(p);
    char src[1024];
    snprintf(src, sizeof src, "#define DYNAMIC\n%s", buf_src);
    Harness h;
    ch_init(&h, src, NULL);
    CH_EXPECT(h.prog, h.prog->stack_bytes == 0);
    float *in = ch_buf(&h, 0, 64 * 4 * 4);
    float *out = ch_buf(&h, 1, 64 * 4);
    for (int i = 0; i < 64 * 4; i++)
        in[i] = (float)((i * 13) % 11) - 4.0f;
    ch_run(&h, 64, 32);
    for (int i = 0; i < 64; i++) {
        float v[4];
        memcpy(v, in + i * 4, sizeof v);
        for (int j = 0; j < i % 4; j++)
            v[j] *= 2.0f;
        CH_FEQ(out[i], v[i % 3] * 10.0f + v[3], i);
    }
    h_free(&h);
}

/* `return;` in a constructor, in divergent code, gives the object built so far; an early
 * return in a member function as in any helper. */
static void test_constructor_return(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
    "struct S {\n"
    "    int v;\n"
    "    S(int a) { v = 1; if (a % 2 == 0) return; v = a * 10; }\n"
    "    int f(int x) const { if (x < 3) return v; return v + x; }\n"
    "};\n"
    "kernel void k(device int *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
    "    S s(int(i));\n"
    "    o[i] = s.f(int(i % 5u));\n"
    "}\n", NULL);
    int32_t *o = ch_buf(&h, 0, 32 * 4);
    ch_run(&h, 32, 32);
    for (int i = 0; i < 32; i++) {
        int v = i % 2 == 0 ? 1 : i * 10, x = i % 5;
        CH_IEQ(o[i], x < 3 ? v : v + x, i);
    }
    h_free(&h);
}

/* Objects in the constant address space (a program-scope constant, a constant buffer)
 * call the member functions declared for them (`... const constant`). */
static void test_constant_objects(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "struct P {\n"
            "    float w, h;\n"
            "    float area() const constant { return w * h; }\n"
            "    float area() const { return -1.0f; }\n"
            "};\n"
            "constant P unit = {2.0f, 3.0f};\n"
            "kernel void k(device float *o [[buffer(0)]], constant P &p [[buffer(1)]],\n"
            "              uint i [[thread_position_in_grid]]) {\n"
            "    P copy = p;\n"
            "    o[i] = unit.area() + p.area() * float(i) + copy.area() * 100.0f;\n"
            "}\n", NULL);
    float *o = ch_buf(&h, 0, 32 * 4);
    float *pp = ch_buf(&h, 1, 8);
    pp[0] = 1.5f;
    pp[1] = 4.0f;
    ch_run(&h, 32, 32);
    for (int i = 0; i < 32; i++)
        CH_FEQ(o[i], 6.0f + 6.0f * (float)i + -1.0f * 100.0f, i);
    h_free(&h);
}

/* ---- misuse ------------------------------------------------------------------------------ */

#define S_KERNEL(body)                                                                  \
    "struct Acc {\n"                                                                    \
    "    float sum;\n"                                                                  \
    "    Acc(float s) : sum(s) {}\n"                                                    \
    "    Acc(int n, float s) : sum(float(n) * s) {}\n"                                  \
    "    void add(float x) { sum += x; }\n"                                             \
    "    float get() const { return sum; }\n"                                           \
    "};\n"                                                                              \
    "kernel void k(device float *o [[buffer(0)]], device Acc *d [[buffer(1)]],\n"      \
    "              uint i [[thread_position_in_grid]]) {\n" body "\n}\n"

static void test_method_errors(void **state)
{
    (void)state;
    ch_expect_error(S_KERNEL("  Acc a(1.0f);\n  a.scale(2.0f);"), NULL,
                    "k.metal:11:5: error: no member function named 'scale' in 'Acc'");
    ch_expect_error(S_KERNEL("  Acc a(1.0f);\n  o[i] = a.sum(2.0f);"), NULL,
                    "k.metal:11:12: error: a data member, not a member function, is named 'sum'");
    ch_expect_error(S_KERNEL("  const Acc a(1.0f);\n  a.add(2.0f);"), NULL,
                    "k.metal:11:5: error: 'Acc::add' is not const, so it cannot be called on a "
                    "const object");
    ch_expect_error(S_KERNEL("  Acc a;"), NULL,
                    "k.metal:10:7: error: 'Acc' has no default constructor: give the arguments "
                    "of one of its constructors (Acc::Acc(float); Acc::Acc(int, float))");
    ch_expect_error(S_KERNEL("  Acc a(1.0f, 2.0f, 3.0f);"), NULL,
                    "k.metal:10:7: error: no constructor of 'Acc' takes 3 arguments");
    ch_expect_error(S_KERNEL("  Acc a(1.0f);\n  a.add();"), NULL,
                    "k.metal:11:5: error: no member function 'Acc::add' takes 0 arguments "
                    "(Acc::add(float))");
    ch_expect_error(S_KERNEL("  d[i].add(1.0f);"), NULL,
                    "k.metal:10:8: error: 'Acc::add' cannot be called on an object in device "
                    "memory");
    ch_expect_error(S_KERNEL("  o[i] = Acc::get();"), NULL,
                    "k.metal:10:15: error: 'Acc::get' is not static: call it on an object");
    ch_expect_error(S_KERNEL("  Acc a(1.0f);\n  o[i] = a.get;"), NULL,
                    "k.metal:11:12: error: member function 'Acc::get' must be called");
    ch_expect_error(S_KERNEL("  o[i] = this->sum;"), NULL,
                    "'this' is only valid in a non-static member function");
    ch_expect_error("struct S { int v; int f() const { v = 1; return v; } };\n"
                    "kernel void k(device int *o [[buffer(0)]]) { S s = {1}; o[0] = s.f(); }\n",
                    NULL, "k.metal:1:37: error: cannot assign to a const value of type 'const int'");
    ch_expect_error("struct S { int v; static int f() { return v; } };\n"
                    "kernel void k(device int *o [[buffer(0)]]) { o[0] = S::f(); }\n",
                    NULL, "k.metal:1:43: error: data member 'v' of 'S' is used without an object");
    ch_expect_error("struct S { int v; S(int a) : w(a) {} };\n"
                    "kernel void k(device int *o [[buffer(0)]]) { S s(1); o[0] = s.v; }\n",
                    NULL, "k.metal:1:30: error: 'w' is not a data member of 'S'");
    ch_expect_error("struct S { int v; int f() { return f(); } };\n"
                    "kernel void k(device int *o [[buffer(0)]]) { S s = {1}; o[0] = s.f(); }\n",
                    NULL, "recursive call to 'S::f'");
    ch_expect_error("kernel void k(device int *o [[buffer(0)]]) {\n"
                    "  struct L { int f() { return 1; } };\n  o[0] = 1;\n}\n",
                    NULL, "k.metal:2:18: error: member functions of a struct declared inside a "
                    "function are not supported");
}

/* ---- struct templates -------------------------------------------------------------------- */

static const char *vec_src =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "template <typename T, int N = 4>\n"
    "struct Vec {\n"
    "    T v[N];\n"
    "    T get(int i) const { return v[i]; }\n"
    "    void set(int i, T x) { v[i] = x; }\n"
    "    T sum() const { T s = 0; for (int i = 0; i < N; i++) s += v[i]; return s; }\n"
    "    Vec<T, N> scaled(T k) const { Vec<T, N> r; for (int i = 0; i < N; i++) "
    "r.v[i] = v[i] * k; return r; }\n"
    "    Vec scaled_again(T k) const { return scaled(k).scaled(k); }\n"
    "    static constexpr int size = N;\n"
    "    static Vec filled(T x) { Vec r; for (int i = 0; i < N; i++) r.v[i] = x; return r; }\n"
    "};\n"
    "template <typename T, int N>\n"
    "class Pair {\n"
    "public:\n"
    "    Vec<T, N> a;\n"
    "    T bias;\n"
    "    Pair(T b) : a(Vec<T, N>::filled(b)), bias(b) {}\n"
    "    T total() const { return a.sum() + bias; }\n"
    "};\n"
    "template <typename T>\n"
    "T total(device const T *in, uint i) {\n"
    "    Vec<T, 4> a;\n"
    "    for (int j = 0; j < 4; j++) a.set(j, in[i * 4 + j]);\n"
    "    Vec<T> b = a.scaled_again(T(2));\n"
    "    return b.sum() + a.get(int(i % 4u)) + T(Vec<T, 4>::size);\n"
    "}\n"
    "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "              device int *iout [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
    "    out[i] = total(in, i);\n"
    "    Pair<int, 3> p(int(i));\n"
    "    Vec<int, 2> w;\n"
    "    for (uint j = 0; j < i % 3u; j++) w.set(int(j % 2u), int(j) + 1);\n"
    "    w.set(1, 5);\n"
    "    iout[i] = p.total() * 100 + total(iout + 64, 0) + w.get(1) + (i % 3u > 0u ? "
    "w.get(0) : 7) * 1000;\n"
    "}\n";

static void test_struct_templates(void **state)
{
    (void)state;
    enum { N = 64 };
    Harness h;
    ch_init(&h, vec_src, NULL);
    float *in = ch_buf(&h, 0, N * 4 * 4);
    float *out = ch_buf(&h, 1, N * 4);
    int32_t *iout = ch_buf(&h, 2, (N + 4) * 4);
    for (int i = 0; i < N * 4; i++)
        in[i] = (float)((i * 29) % 17) * 0.5f - 3.0f;
    for (int i = 0; i < 4; i++)
        iout[N + i] = 10 * (i + 1);
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        float s = 0.0f;
        for (int j = 0; j < 4; j++)
            s += (in[i * 4 + j] * 2.0f) * 2.0f;
        CH_FEQ(out[i], s + in[i * 4 + i % 4] + 4.0f, i);
        int itotal = (10 * 2 * 2 + 20 * 2 * 2 + 30 * 2 * 2 + 40 * 2 * 2) + 10 + 4;
        int w0 = i % 3 > 0 ? 1 : 7;
        CH_IEQ(iout[i], (3 * i + i) * 100 + itotal + 5 + w0 * 1000, i);
    }
    h_free(&h);
}

static void test_struct_template_errors(void **state)
{
    (void)state;
    const char *t = "template <typename T, int N> struct V { T v[N]; };\n";
    char src[512];
    snprintf(src, sizeof src, "%skernel void k(device int *o [[buffer(0)]]) {\n  V x;\n}\n", t);
    ch_expect_error(src, NULL, "k.metal:3:3: error: struct template 'V' needs its template "
                    "arguments (V<...>)");
    snprintf(src, sizeof src, "%skernel void k(device int *o [[buffer(0)]]) {\n  V<int> x;\n}\n",
             t);
    ch_expect_error(src, NULL, "k.metal:3:4: error: template 'V' takes 2 arguments, not 1");
    snprintf(src, sizeof src, "%skernel void k(device int *o [[buffer(0)]]) {\n"
             "  V<int, 2> x;\n  o[0] = x.w;\n}\n", t);
    ch_expect_error(src, NULL, "k.metal:4:12: error: no member named 'w' in 'V<int, 2>'");
    ch_expect_error("template <typename T> struct S { T f() { return g(); } };\n"
                    "kernel void k(device int *o [[buffer(0)]]) { S<int> s; o[0] = s.f(); }\n",
                    NULL, "k.metal:1:49: error: use of undeclared identifier 'g'");
    /* an explicit instantiation makes the instance, and so parses its member functions */
    ch_expect_error("template <typename T> struct W { T v; T get() const { return v + w; } };\n"
                    "template struct W<float>;\n", NULL,
                    "k.metal:1:66: error: use of undeclared identifier 'w'");
    IsaProgram *p = ch_compile("template <typename T> struct W { T v; T get() const { return v; } };\n"
                               "template struct W<int>;\n"
                               "kernel void k(device int *o [[buffer(0)]]) { W<int> w = {3}; "
                               "o[0] = w.get(); }\n", NULL);
    isa_program_free(p);
    ch_expect_error("template <typename T> struct S;\n"
                    "kernel void k(device int *o [[buffer(0)]]) { S<int> s; }\n",
                    NULL, "k.metal:2:46: error: struct template 'S' is declared but not defined");
}

/* MLX's BlockLoader (steel/gemm/loader.h) as MLX writes it: a struct template with short
 * value parameters, `static constant constexpr const` members computed from them, const
 * and pointer members set by the constructor's initializers (later ones reading earlier
 * ones), attributes on the constructor's parameters, and member functions that step a
 * pointer member and copy a tile into threadgroup memory. */
static const char *loader_src =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "#define STEEL_CONST static constant constexpr const\n"
    "#define STEEL_PRAGMA_UNROLL _Pragma(\"clang loop unroll(full)\")\n"
    "template <typename T, short BROWS, short BCOLS, short dst_ld, short tgp_size>\n"
    "struct BlockLoader {\n"
    "  STEEL_CONST short n_reads = (BCOLS * BROWS) / (tgp_size);\n"
    "  STEEL_CONST short TCOLS = BCOLS / n_reads;\n"
    "  STEEL_CONST short TROWS = tgp_size / TCOLS;\n"
    "  const int src_ld;\n"
    "  const short thread_idx;\n"
    "  const short bi;\n"
    "  const short bj;\n"
    "  threadgroup T* dst;\n"
    "  const device T* src;\n"
    "  METAL_FUNC BlockLoader(const device T* src_, const int src_ld_, threadgroup T* dst_,\n"
    "                         ushort simd_group_id [[simdgroup_index_in_threadgroup]],\n"
    "                         ushort simd_lane_id [[thread_index_in_simdgroup]])\n"
    "      : src_ld(src_ld_), thread_idx(simd_group_id * 32 + simd_lane_id),\n"
    "        bi(thread_idx / TCOLS), bj(n_reads * (thread_idx % TCOLS)),\n"
    "        dst(dst_ + bi * dst_ld + bj), src(src_ + bi * src_ld + bj) {}\n"
    "  METAL_FUNC void load_unsafe() const {\n"
    "    STEEL_PRAGMA_UNROLL\n"
    "    for (short i = 0; i < BROWS; i += TROWS) {\n"
    "      STEEL_PRAGMA_UNROLL\n"
    "      for (short j = 0; j < n_reads; j++) {\n"
    "        dst[i * dst_ld + j] = src[i * src_ld + j];\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  METAL_FUNC void next() { src += BCOLS; }\n"
    "};\n"
    "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "              uint l [[thread_index_in_threadgroup]], ushort sg [[simdgroup_index_in_threadgroup]],\n"
    "              ushort lane [[thread_index_in_simdgroup]]) {\n"
    "  threadgroup float tile[8 * 16];\n"
    "  BlockLoader<float, 8, 16, 16, 64> loader(in, 32, tile, sg, lane);\n"
    "  float acc = 0;\n"
    "  for (int step = 0; step < 2; step++) {\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    loader.load_unsafe();\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    acc += tile[(l * 7) % 128] * float(step + 1);\n"
    "    loader.next();\n"
    "  }\n"
    "  out[l] = acc;\n"
    "}\n";

static void test_mlx_block_loader(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, loader_src, NULL);
    float *in = ch_buf(&h, 0, 256 * 4);
    float *out = ch_buf(&h, 1, 64 * 4);
    for (int i = 0; i < 256; i++)
        in[i] = (float)(i * 3 % 101) - 50.0f;
    ch_run(&h, 64, 64);
    for (int l = 0; l < 64; l++) {
        float acc = 0.0f;
        for (int step = 0; step < 2; step++) { /* the tile holds rows of 16 from column 16 * step */
            int t = (l * 7) % 128;
            acc += in[t / 16 * 32 + t % 16 + step * 16] * (float)(step + 1);
        }
        CH_FEQ(out[l], acc, l);
    }
    h_free(&h);
}

/* An explicit specialization (MLX's Limits<float>) is the instance for its arguments; the
 * others come from the template. */
static const char *spec_src =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "template <typename U>\n"
    "struct Limits {\n"
    "  static const constant U max = 100;\n"
    "  static U clamp(U x) { return x > max ? max : x; }\n"
    "};\n"
    "template <>\n"
    "struct Limits<float> {\n"
    "  static constexpr constant float max = 1.5f;\n"
    "  static float clamp(float x) { return min(x, max); }\n"
    "  Limits() {}\n"
    "};\n"
    "template <typename T>\n"
    "T clip(T x) { return Limits<T>::clamp(x) + Limits<T>::max; }\n"
    "kernel void k(device float *f [[buffer(0)]], device int *n [[buffer(1)]], uint i [[thread_position_in_grid]]) {\n"
    "  f[i] = clip(f[i]);\n"
    "  n[i] = clip(n[i]);\n"
    "}\n";

static void test_struct_specialization(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, spec_src, NULL);
    float *f = ch_buf(&h, 0, 32 * 4);
    int32_t *n = ch_buf(&h, 1, 32 * 4);
    for (int i = 0; i < 32; i++) {
        f[i] = (float)i * 0.125f;
        n[i] = i * 7;
    }
    ch_run(&h, 32, 32);
    for (int i = 0; i < 32; i++) {
        float x = (float)i * 0.125f;
        CH_FEQ(f[i], (x < 1.5f ? x : 1.5f) + 1.5f, i);
        CH_IEQ(n[i], (i * 7 > 100 ? 100 : i * 7) + 100, i);
    }
    h_free(&h);
    ch_expect_error("template <typename T> struct L { static T get() { return 1; } };\n"
                    "kernel void k(device int *o [[buffer(0)]]) { o[0] = L<int>::get(); }\n"
                    "template <> struct L<int> { static int get() { return 2; } };\n",
                    NULL, "k.metal:3:1: error: 'L<int>' is specialized after it was used");
    ch_expect_error("template <typename T> T f(T x) { return x; }\n"
                    "template <> float f<float>(float x) { return x; }\n",
                    NULL, "k.metal:2:13: error: only struct templates can be specialized here");
}

/* Member functions and constructors declared in the struct and defined after it (their
 * own parameter names; a static one without `static`), and what a definition must match. */
static const char *outside_src =
    "struct Acc {\n"
    "    float sum;\n"
    "    Acc(float s);\n"
    "    void add(float x);\n"
    "    float result() const;\n"
    "    static float twice(float x);\n"
    "    Acc merged(Acc o) const;\n"
    "};\n"
    "Acc::Acc(float start) : sum(start) {}\n"
    "void Acc::add(float y) { sum += twice(y); }\n"
    "float Acc::result() const { return sum; }\n"
    "float Acc::twice(float x) { return 2.0f * x; }\n"
    "Acc Acc::merged(Acc o) const { return Acc(sum + o.sum); }\n"
    "kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
    "    Acc a(1.0f);\n"
    "    a.add(o[i]);\n"
    "    o[i] = a.merged(Acc(0.5f)).result();\n"
    "}\n";

static void test_out_of_class_definitions(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, outside_src, NULL);
    float *o = ch_buf(&h, 0, 32 * 4);
    for (int i = 0; i < 32; i++)
        o[i] = (float)i * 0.75f - 3.0f;
    ch_run(&h, 32, 32);
    for (int i = 0; i < 32; i++)
        CH_FEQ(o[i], (1.0f + 2.0f * ((float)i * 0.75f - 3.0f)) + 0.5f, i);
    h_free(&h);
#define DECL "struct S { int v; S(int); int get() const; };\n"
    ch_expect_error(DECL "int S::get() { return v; }\n", NULL,
                    "k.metal:2:8: error: 'S' declares no member function 'get' with these "
                    "parameters");
    ch_expect_error(DECL "float S::get() const { return v; }\n", NULL,
                    "k.metal:2:10: error: 'S::get' is declared to return 'int'");
    ch_expect_error(DECL "int S::get() const { return v; }\nint S::get() const { return 1; }\n",
                    NULL, "k.metal:3:8: error: redefinition of 'S::get'");
    ch_expect_error(DECL "S::T(int a) {}\n", NULL,
                    "k.metal:2:4: error: expected a return type before 'S::T'");
    ch_expect_error(DECL "S::S(int a) : v(a) {}\n"
                    "kernel void k(device int *o [[buffer(0)]]) { S s(1); o[0] = s.get(); }\n",
                    NULL, "k.metal:3:63: error: function 'S::get' is declared but never defined");
#undef DECL
    ch_expect_error("template <typename T> struct V { T v; T get() const; };\n"
                    "template <typename T> T V<T>::get() const { return v; }\n", NULL,
                    "k.metal:2:31: error: a member function of a struct template is defined "
                    "inside the template");
}

/* A member function that takes an address inside its object (`&v[0]` indexed or offset),
 * directly or through another member function or a member object's, puts the objects it is
 * called on in thread memory; the others stay in registers. */
static const char *escape_src =
    "struct Buf {\n"
    "    float v[4];\n"
    "    float at(int i) const { const thread float *q = &v[0]; return q[i]; }\n"
    "    float first() const { return *(&v[0] + 1); }\n"
    "    float via(int i) const { return at(i) + 0.5f; }\n"
    "    float plain(int i) const { return v[i]; }\n"
    "};\n"
    "struct Outer {\n"
    "    Buf b;\n"
    "    float get(int i) const { return b.via(i); }\n"
    "};\n"
    "kernel void k(device float *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
    "    Buf b = {{1.0f, 2.0f, 3.0f, 4.0f}};\n"
    "    Buf c = {{5.0f, 6.0f, 7.0f, 8.0f}};\n"
    "    Outer o = {{{9.0f, 10.0f, 11.0f, 12.0f}}};\n"
    "    out[i] = b.at(int(i % 4u)) + b.first() * 10.0f + c.plain(int(i % 4u)) * 100.0f + o.get(int(i % 4u)) * 1000.0f;\n"
    "}\n";

static void test_address_inside_object(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, escape_src, NULL);
    CH_EXPECT(h.prog, h.prog->stack_bytes == 32); /* b and o, not c */
    float *out = ch_buf(&h, 0, 32 * 4);
    ch_run(&h, 32, 32);
    for (int i = 0; i < 32; i++) {
        int k = i % 4;
        CH_FEQ(out[i], (float)(1 + k) + 2.0f * 10.0f + (float)(5 + k) * 100.0f +
                       ((float)(9 + k) + 0.5f) * 1000.0f, i);
    }
    h_free(&h);
    ch_expect_error("struct B { float v[2]; float at(int i) const { return (&v[0])[i]; } };\n"
                    "kernel void k(device float *o [[buffer(0)]]) { o[0] = B{{1, 2}}.at(1); }\n",
                    NULL, "k.metal:2:65: error: 'B::at' takes addresses inside its object, so "
                    "call it on a variable, not on a temporary");
}

/* A function template's type and value parameters deduced from a struct template's
 * instance its argument is (by value, by reference, through a pointer). */
static const char *deduce_src =
    "template <typename T, int N>\n"
    "struct Vec { T v[N]; };\n"
    "template <typename T, int N>\n"
    "T dot(thread const Vec<T, N> &a, Vec<T, N> b) {\n"
    "    T s = 0;\n"
    "    for (int i = 0; i < N; i++) s += a.v[i] * b.v[i];\n"
    "    return s + T(N);\n"
    "}\n"
    "template <typename U>\n"
    "U first(device const Vec<U, 2> *p) { return p->v[0]; }\n"
    "kernel void k(device float *o [[buffer(0)]], device const Vec<int, 2> *q [[buffer(1)]], uint i [[thread_position_in_grid]]) {\n"
    "    Vec<float, 3> a = {{1.0f, 2.0f, 3.0f}};\n"
    "    Vec<float, 3> b = {{float(i), 1.0f, 0.5f}};\n"
    "    o[i] = dot(a, b) + float(first(q + i));\n"
    "}\n";

static void test_deduction_from_instances(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, deduce_src, NULL);
    float *o = ch_buf(&h, 0, 32 * 4);
    int32_t *q = ch_buf(&h, 1, 32 * 2 * 4);
    for (int i = 0; i < 64; i++)
        q[i] = i * 3 - 7;
    ch_run(&h, 32, 32);
    for (int i = 0; i < 32; i++)
        CH_FEQ(o[i], ((1.0f * (float)i + 2.0f * 1.0f) + 3.0f * 0.5f) + 3.0f +
                     (float)(i * 2 * 3 - 7), i);
    h_free(&h);
    ch_expect_error("template <typename T, int N> struct V { T v[N]; };\n"
                    "template <typename T, int N> T f(V<T, N> a, V<T, N> b) { return a.v[0]; }\n"
                    "kernel void k(device int *o [[buffer(0)]]) {\n"
                    "  V<int, 2> a = {{1, 2}}; V<int, 3> b = {{1, 2, 3}}; o[0] = f(a, b);\n}\n",
                    NULL, "k.metal:4:61: error: conflicting values for template parameter 'N' "
                    "of 'f'");
}

/* `return {a, b};` builds the return type from the list, as `T{a, b}` does: an aggregate,
 * a struct template's instance (in an operator template), a vector, a scalar. */
static void test_return_braced_list(void **state)
{
    (void)state;
    static const char *src =
        "struct P { float a; int b; };\n"
        "template <typename T> struct Pair { T x, y; };\n"
        "template <typename T> Pair<T> operator+(Pair<T> u, Pair<T> v) { return {u.x + v.x, u.y + v.y}; }\n"
        "P make(float a, int b) { return {a * 2.0f, b + 1}; }\n"
        "float2 swap(float2 v) { return {v.y, v.x}; }\n"
        "float one(float x) { return {x + 1.0f}; }\n"
        "kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
        "  P p = make(float(i), int(i));\n"
        "  Pair<float> q = Pair<float>{1.0f, float(i)} + Pair<float>{0.5f, 2.0f};\n"
        "  float2 s = swap(float2(float(i), 3.0f));\n"
        "  o[i] = p.a + float(p.b) * 10.0f + q.x * 100.0f + q.y * 1000.0f + s.x + s.y * 0.5f\n"
        "         + one(float(i));\n"
        "}\n";
    Harness h;
    ch_init(&h, src, NULL);
    float *o = ch_buf(&h, 0, 8 * 4);
    ch_run(&h, 8, 8);
    for (int i = 0; i < 8; i++) {
        float pa = (float)i * 2.0f, pb = (float)(i + 1), qx = 1.5f, qy = (float)i + 2.0f;
        float want = pa + pb * 10.0f + qx * 100.0f + qy * 1000.0f + 3.0f + (float)i * 0.5f;
        want = want + ((float)i + 1.0f);
        CH_FEQ(o[i], want, i);
    }
    h_free(&h);
    ch_expect_error("void f(float x) { return {x}; }\n"
                    "kernel void k(device float *o [[buffer(0)]]) { f(o[0]); }\n",
                    NULL, "1:26: error: void function should not return a value");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_methods_exec),
        cmocka_unit_test(test_methods_shape),
        cmocka_unit_test(test_member_initializers),
        cmocka_unit_test(test_address_space_methods),
        cmocka_unit_test(test_array_member_index),
        cmocka_unit_test(test_constructor_return),
        cmocka_unit_test(test_constant_objects),
        cmocka_unit_test(test_method_errors),
        cmocka_unit_test(test_struct_templates),
        cmocka_unit_test(test_struct_template_errors),
        cmocka_unit_test(test_mlx_block_loader),
        cmocka_unit_test(test_struct_specialization),
        cmocka_unit_test(test_out_of_class_definitions),
        cmocka_unit_test(test_address_inside_object),
        cmocka_unit_test(test_deduction_from_instances),
        cmocka_unit_test(test_return_braced_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
