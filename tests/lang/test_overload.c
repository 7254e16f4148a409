/*
 * test_overload.c — overloaded functions and operator functions through the whole compiler:
 * overloads told apart by type, by the const and address space of a pointer parameter, by
 * a reference's const and by the number of parameters; promotion beating conversion and
 * exact beating both; templates beside functions of one name (the function wins a tie, the
 * template an exact match, a template body that does not compile for a call it loses is no
 * error); operators on the kernel's structs (binary, comparison, unary minus, compound
 * assignment); the names listings give overloads; and the errors for ambiguous calls, calls
 * that match nothing, redefinitions and operators that cannot be declared. Results are
 * compared with C computed here.
 */
#include "construct_harness.h"

#include <math.h>

/* ---- overloaded functions ------------------------------------------------------------------ */

static const char *fn_src =
    "float act(float x) { return x * 2.0f; }\n"
    "half act(half x) { return x + 1.0h; }\n"
    "float4 load(device const float4 *p, uint i) { return p[i]; }\n"
    "float load(device const float *p, uint i) { return p[i] + 100.0f; }\n"
    "float get(device const float *p, uint i) { return p[i]; }\n"
    "float get(device float *p, uint i) { return p[i] * 10.0f; }\n"
    "float where(threadgroup float *p) { return p[0] + 1000.0f; }\n"
    "float where(device float *p) { return p[0] + 2000.0f; }\n"
    "float kind(int x) { return 1.0f; }\n"
    "float kind(float x) { return 2.0f; }\n"
    "float kind(uint x) { return 3.0f; }\n"
    "float by(thread float &r) { r += 1.0f; return 5.0f; }\n"
    "float by(thread const float &r) { return 7.0f; }\n"
    "float vf(float4 v) { return v.x + v.y + v.z + v.w; }\n"
    "float vf(float s) { return -s; }\n"
    "float vf(float a, float b) { return a - b; }\n"
    "kernel void k(device const float *in [[buffer(0)]], device const float4 *in4 [[buffer(1)]],\n"
    "              device float *out [[buffer(2)]], uint i [[thread_position_in_grid]],\n"
    "              uint l [[thread_index_in_threadgroup]]) {\n"
    "  threadgroup float tg[32];\n"
    "  tg[l] = in[i] + 0.5f;\n"
    "  threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "  device float *o = out + i * 12;\n"
    "  float x = in[i];\n"
    "  const float cx = x;\n"
    "  o[11] = x;\n"
    "  float4 v = load(in4, i);\n"
    "  o[0] = act(x);\n"
    "  o[1] = float(act(half(x)));\n"
    "  o[2] = v.x + v.w + load(in, i);\n"
    "  o[3] = get(in, i) + get(o + 11, 0);\n"
    "  o[4] = where(tg + l) + where(o + 11) + where(tg);\n"
    "  o[5] = kind(short(i)) * 100.0f + kind(i) * 10.0f + kind(x) + kind(x > 0.0f) * 1000.0f;\n"
    "  float y = x;\n"
    "  float a = by(y);\n"
    "  float b = by(cx);\n"
    "  o[6] = a * 10.0f + b + y;\n"
    "  o[7] = vf(v) + vf(x) * 10.0f + vf(x, 1.0f) * 100.0f;\n"
    "}\n";

static void test_overloaded_functions(void **state)
{
    (void)state;
    enum { N = 64 };
    Harness h;
    ch_init(&h, fn_src, NULL);
    float *in = ch_buf(&h, 0, N * 4);
    float *in4 = ch_buf(&h, 1, N * 16);
    float *out = ch_buf(&h, 2, N * 12 * 4);
    for (int i = 0; i < N; i++) {
        in[i] = (float)(i % 7) * 0.25f - 0.5f;
        for (int c = 0; c < 4; c++)
            in4[i * 4 + c] = (float)(i + c * 3);
    }
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        float x = in[i], *o = out + i * 12, *v = in4 + i * 4;
        float tg0 = in[i / 32 * 32] + 0.5f;
        CH_FEQ(o[0], x * 2.0f, i);
        CH_FEQ(o[1], (float)h_f16_value(h_d2h(h_f16_value(h_d2h(x)) + 1.0)), i);
        CH_FEQ(o[2], v[0] + v[3] + (x + 100.0f), i);
        CH_FEQ(o[3], x + x * 10.0f, i);
        CH_FEQ(o[4], ((x + 0.5f) + 1000.0f) + (x + 2000.0f) + (tg0 + 1000.0f), i);
        /* short -> int and bool -> int are promotions (beating float and uint); uint and
         * float are exact */
        CH_FEQ(o[5], 100.0f + 30.0f + 2.0f + 1000.0f, i);
        CH_FEQ(o[6], 50.0f + 7.0f + (x + 1.0f), i); /* non-const lvalue: the non-const ref */
        CH_FEQ(o[7], (v[0] + v[1] + v[2] + v[3]) + (-x) * 10.0f + (x - 1.0f) * 100.0f, i);
    }
    h_free(&h);
}

/* ---- templates beside functions ------------------------------------------------------------ */

static const char *tmpl_src =
    "template <typename T> T twice(T x) { return x + x; }\n"
    "int twice(int x) { return x * 3; }\n"
    "template <typename T> T sq(T x) { return x * x + T(1); }\n"
    "float sq(float x) { return x * x; }\n"
    "template <typename T> T mix(T a, T b);\n"
    "template <typename T> T mix(T a, T b, T t) { return a + (b - a) * t; }\n"
    "template <typename U> U mix(U a, U b) { return (a + b) / U(2); }\n"
    "template <typename T> float sum(T v) { return v.x + v.y; }\n"
    "float sum(float v) { return v; }\n"
    "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "  float x = in[i];\n"
    "  device float *o = out + i * 6;\n"
    "  o[0] = twice(x);\n"
    "  o[1] = float(twice(int(i)));\n"
    "  o[2] = sq(x) + float(sq(int(i)));\n"
    "  o[3] = mix(x, 4.0f) + mix(x, 4.0f, 0.25f);\n"
    "  o[4] = sum(x) + sum(float2(x, 2.0f)) * 10.0f;\n"
    "  o[5] = float(mix<int>(int(i), 8));\n"
    "}\n";

static void test_templates_beside_functions(void **state)
{
    (void)state;
    enum { N = 32 };
    Harness h;
    ch_init(&h, tmpl_src, NULL);
    float *in = ch_buf(&h, 0, N * 4);
    float *out = ch_buf(&h, 1, N * 6 * 4);
    for (int i = 0; i < N; i++)
        in[i] = (float)(i % 5) * 0.5f - 1.0f;
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        float x = in[i], *o = out + i * 6;
        CH_FEQ(o[0], x + x, i);                      /* the template: exact */
        CH_FEQ(o[1], (float)(i * 3), i);             /* a tie: the function */
        CH_FEQ(o[2], x * x + (float)(i * i + 1), i); /* int: the template's exact match wins */
        CH_FEQ(o[3], (x + 4.0f) / 2.0f + (x + (4.0f - x) * 0.25f), i);
        CH_FEQ(o[4], x + (x + 2.0f) * 10.0f, i);     /* sum<float> is never compiled */
        CH_FEQ(o[5], (float)((i + 8) / 2), i);
    }
    h_free(&h);
}

/* ---- operators ----------------------------------------------------------------------------- */

static const char *op_src =
    "struct Complex { float re, im; };\n"
    "Complex operator*(Complex a, Complex b) {\n"
    "  return Complex{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};\n"
    "}\n"
    "Complex operator*(Complex a, float s) { return Complex{a.re * s, a.im * s}; }\n"
    "Complex operator*(float s, Complex a) { return Complex{s * a.re, s * a.im}; }\n"
    "Complex operator+(Complex a, Complex b) { return Complex{a.re + b.re, a.im + b.im}; }\n"
    "Complex operator-(Complex a, Complex b) { return Complex{a.re - b.re, a.im - b.im}; }\n"
    "Complex operator-(Complex a) { return Complex{-a.re, -a.im}; }\n"
    "bool operator==(Complex a, Complex b) { return a.re == b.re && a.im == b.im; }\n"
    "bool operator!=(Complex a, Complex b) { return !(a == b); }\n"
    "bool operator<(Complex a, Complex b) { return a.re * a.re + a.im * a.im <\n"
    "                                              b.re * b.re + b.im * b.im; }\n"
    "void operator+=(thread Complex &a, Complex b) { a = a + b; }\n"
    "void operator*=(thread Complex &a, float s) { a.re *= s; a.im *= s; }\n"
    "kernel void k(device const float2 *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "  Complex a = {in[i].x, in[i].y};\n"
    "  Complex b = {in[i + 1].x, 0.5f};\n"
    "  Complex c = a * b + -a - b * 2.0f;\n"
    "  c += 0.5f * a;\n"
    "  c *= 3.0f;\n"
    "  device float *o = out + i * 6;\n"
    "  o[0] = c.re;\n"
    "  o[1] = c.im;\n"
    "  o[2] = a == b ? 1.0f : 0.0f;\n"
    "  o[3] = a != a ? 1.0f : 0.0f;\n"
    "  o[4] = (a < b) + (b < a) * 2.0f;\n"
    "  o[5] = (a * a == a * a) ? 1.0f : 0.0f;\n"
    "}\n";

static void test_operators(void **state)
{
    (void)state;
    enum { N = 32 };
    Harness h;
    ch_init(&h, op_src, NULL);
    float *in = ch_buf(&h, 0, (N + 1) * 8);
    float *out = ch_buf(&h, 1, N * 6 * 4);
    for (int i = 0; i <= N; i++) {
        in[i * 2] = (float)(i % 6) * 0.5f - 1.0f;
        in[i * 2 + 1] = (float)(i % 4) * 0.25f;
    }
    in[2 * 5] = in[2 * 4]; /* thread 4: a == b */
    in[2 * 5 + 1] = 0.5f;
    in[2 * 4 + 1] = 0.5f;
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        float are = in[i * 2], aim = in[i * 2 + 1], bre = in[i * 2 + 2], bim = 0.5f;
        float pre = are * bre - aim * bim, pim = are * bim + aim * bre; /* a * b */
        float cre = ((pre + -are) - bre * 2.0f), cim = ((pim + -aim) - bim * 2.0f);
        cre = cre + 0.5f * are, cim = cim + 0.5f * aim;
        cre *= 3.0f, cim *= 3.0f;
        float *o = out + i * 6;
        CH_FEQ(o[0], cre, i);
        CH_FEQ(o[1], cim, i);
        CH_FEQ(o[2], are == bre && aim == bim ? 1.0f : 0.0f, i);
        CH_FEQ(o[3], 0.0f, i);
        float na = are * are + aim * aim, nb = bre * bre + bim * bim;
        CH_FEQ(o[4], (float)(na < nb) + (float)(nb < na) * 2.0f, i);
        CH_FEQ(o[5], 1.0f, i);
    }
    assert_true(out[4 * 6 + 2] == 1.0f); /* the equal pair was equal */
    h_free(&h);
}

/* Operators taking `thread const C&` (values bind to them through a temporary, so chains
 * work) and a compound assignment returning `thread C&`, as C++ code writes them. */
static const char *ref_src =
    "struct C { float re, im; };\n"
    "C operator*(thread const C &a, thread const C &b) {\n"
    "  return C{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};\n"
    "}\n"
    "C operator+(thread const C &a, thread const C &b) { return C{a.re + b.re, a.im + b.im}; }\n"
    "thread C &operator+=(thread C &a, thread const C &b) {\n"
    "  a.re += b.re;\n"
    "  a.im += b.im;\n"
    "  return a;\n"
    "}\n"
    "float sq(thread const float &x) { return x * x; }\n"
    "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "  C a = {in[i], 1.0f};\n"
    "  C b = a * a + a;\n"
    "  C c = (b += a * C{2.0f, 0.5f});\n"
    "  out[i * 4] = b.re;\n"
    "  out[i * 4 + 1] = b.im;\n"
    "  out[i * 4 + 2] = c.re + c.im;\n"
    "  out[i * 4 + 3] = sq(in[i] + 1.0f) + sq(2);\n"
    "}\n";

static void test_reference_operators(void **state)
{
    (void)state;
    enum { N = 32 };
    Harness h;
    ch_init(&h, ref_src, NULL);
    float *in = ch_buf(&h, 0, N * 4);
    float *out = ch_buf(&h, 1, N * 16);
    for (int i = 0; i < N; i++)
        in[i] = (float)(i % 9) * 0.5f - 2.0f;
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        float x = in[i];
        float bre = (x * x - 1.0f * 1.0f) + x, bim = (x * 1.0f + 1.0f * x) + 1.0f;
        bre += x * 2.0f - 1.0f * 0.5f;
        bim += x * 0.5f + 1.0f * 2.0f;
        CH_FEQ(out[i * 4], bre, i);
        CH_FEQ(out[i * 4 + 1], bim, i);
        CH_FEQ(out[i * 4 + 2], bre + bim, i);
        CH_FEQ(out[i * 4 + 3], (x + 1.0f) * (x + 1.0f) + 4.0f, i);
    }
    h_free(&h);
    /* the call of a reference-returning function is a value: what could tell is refused */
    ch_expect_error("struct C { float re; };\n"
                    "thread C &operator+=(thread C &a, C b) { a.re += b.re; return a; }\n"
                    "kernel void k(device float *o [[buffer(0)]]) {\n"
                    "  C a = {1.0f};\n  (a += a) += a;\n  o[0] = a.re;\n}\n", NULL,
                    "a 'C' value that is no variable or element cannot bind to 'thread C&' (a "
                    "value binds to a 'thread const' reference only)");
}

/* ---- names in listings --------------------------------------------------------------------- */

static bool has_call(const IsaProgram *p, const char *name)
{
    for (uint32_t i = 0; i < p->num_calls; i++)
        if (strcmp(p->calls[i].func, name) == 0)
            return true;
    return false;
}

static void test_overload_names(void **state)
{
    (void)state;
    IsaProgram *p = ch_compile(fn_src, NULL);
    CH_EXPECT(p, has_call(p, "act(float)") && has_call(p, "act(half)"));
    CH_EXPECT(p, has_call(p, "get(device const float*, uint)") &&
                 has_call(p, "get(device float*, uint)"));
    CH_EXPECT(p, has_call(p, "by(thread const float&)"));
    isa_program_free(p);
    p = ch_compile(tmpl_src, NULL);
    CH_EXPECT(p, has_call(p, "twice<float>(float)") && has_call(p, "twice(int)"));
    CH_EXPECT(p, has_call(p, "mix<int>(int, int)"));
    isa_program_free(p);
    p = ch_compile(op_src, NULL);
    CH_EXPECT(p, has_call(p, "operator-(Complex)") && has_call(p, "operator-(Complex, Complex)"));
    CH_EXPECT(p, has_call(p, "operator+")); /* the only one of its name: the name alone */
    isa_program_free(p);
    /* a helper that is not overloaded keeps its plain name */
    p = ch_compile("float h(float x) { return x + 1.0f; }\n"
                   "kernel void k(device float *o [[buffer(0)]]) { o[0] = h(o[1]); }\n", NULL);
    CH_EXPECT(p, has_call(p, "h"));
    isa_program_free(p);
}

/* ---- errors -------------------------------------------------------------------------------- */

#define KERNEL(body)                                                                       \
    "kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n" \
    body "\n}\n"
#define TWO "float f(float x) { return x; }\nhalf f(half x) { return x; }\n"

static void test_call_errors(void **state)
{
    (void)state;
    /* int converts to float and to half alike */
    ch_expect_error(TWO KERNEL("o[i] = f(int(i));"), NULL,
                    "k.metal:4:8: error: call to 'f' with argument (int) is ambiguous: "
                    "'f(float)' (line 1), 'f(half)' (line 2) match equally well");
    /* by value and by reference are both exact */
    ch_expect_error("float g(float x) { return x; }\nfloat g(thread float &x) { return x; }\n"
                    KERNEL("float y = o[i];\no[i] = g(y);"), NULL,
                    "k.metal:5:8: error: call to 'g' with argument (float) is ambiguous: "
                    "'g(float)' (line 1), 'g(thread float&)' (line 2) match equally well");
    /* two templates, each exact in one argument */
    ch_expect_error("template <typename T> T m(T a, float b) { return a; }\n"
                    "template <typename T> T m(float a, T b) { return b; }\n"
                    KERNEL("o[i] = m(1.0f, 2.0f);"), NULL,
                    "call to 'm' with arguments (float, float) is ambiguous: "
                    "'m<float>(float, float)' (template, line 1), "
                    "'m<float>(float, float)' (template, line 2) match equally well");
    ch_expect_error(TWO KERNEL("o[i] = f(float2(1.0f));"), NULL,
                    "k.metal:4:8: error: no matching function for call to 'f' with argument "
                    "(float2): 'f(float)' (line 1): no known conversion from 'float2' to "
                    "'float'; 'f(half)' (line 2): no known conversion from 'float2' to 'half'");
    ch_expect_error("float g(threadgroup float *p) { return p[0]; }\n"
                    "float g(device float *p, uint n) { return p[n]; }\n"
                    "template <typename T> T g(T a, T b) { return a; }\n"
                    "kernel void k(device float *o [[buffer(0)]], constant float *c "
                    "[[buffer(1)]]) {\no[0] = g(c);\n}\n", NULL,
                    "no matching function for call to 'g' with argument (constant float*): "
                    "'g(threadgroup float*)' (line 1): 'constant float*' points to constant "
                    "memory, 'threadgroup float*' to threadgroup memory; "
                    "'g(device float*, uint)' (line 2): it takes 2 arguments, not 1; "
                    "'g<constant float*>(constant float*, constant float*)' (template, line 3): "
                    "it takes 2 arguments, not 1");
    ch_expect_error("template <typename T> T t(T a, T b) { return a; }\nfloat t(int x) { return 1; }\n"
                    KERNEL("o[i] = t(1.0f, 2);"), NULL,
                    "no matching function for call to 't' with arguments (float, int): "
                    "template 't' (line 1): conflicting types for template parameter 'T' of 't': "
                    "'float' and 'int'");
    ch_expect_error("float h(device float *p) { return p[0]; }\n"
                    "float h(device int *p) { return 1.0f; }\n"
                    "kernel void k(device const float *c [[buffer(0)]]) {\nfloat x = h(c);\n}\n",
                    NULL, "'h(device float*)' (line 1): 'device const float*' to 'device "
                    "float*' would discard const;");
    ch_expect_error("float r(thread float &x) { return x; }\n"
                    "float r(device float *p) { return 1.0f; }\n"
                    KERNEL("o[i] = r(o[i] + 1.0f);"), NULL,
                    "'r(thread float&)' (line 1): a 'float' value that is no variable or "
                    "element cannot bind to 'thread float&' (a value binds to a 'thread const' "
                    "reference only); 'r(device float*)' (line 2): no "
                    "known conversion from 'float' to 'device float*'");
}

static void test_declaration_errors(void **state)
{
    (void)state;
    ch_expect_error("float f(float x) { return x; }\nfloat f(float y) { return y; }\n"
                    KERNEL("o[i] = f(1.0f);"), NULL,
                    "k.metal:2:7: error: redefinition of 'f' (first defined at line 1)");
    ch_expect_error(TWO "float f(const float y) { return y; }\n" KERNEL("o[i] = f(1.0f);"), NULL,
                    "k.metal:3:7: error: redefinition of 'f(const float)' (first defined at "
                    "line 1)");
    /* a declaration then the definition is one function; the pointee's const makes two */
    Harness h;
    ch_init(&h, "float f(float x);\nfloat f(float y) { return y * 2.0f; }\n"
                "float f(device const float *p) { return p[0]; }\n"
                "float f(device float *p) { return p[1]; }\n" KERNEL("o[i] = f(o) + f(3.0f);"),
            NULL);
    float *o = ch_buf(&h, 0, 8);
    o[1] = 5.0f;
    ch_run(&h, 1, 1);
    CH_FEQ(o[0], 5.0f + 6.0f, 0); /* o is no const pointer: f(device float*) */
    h_free(&h);
    ch_expect_error("float f(float x) { return x; }\nint f(float y) { return 1; }\n"
                    KERNEL("o[i] = f(1.0f);"), NULL,
                    "k.metal:2:5: error: functions that differ only in their return type cannot "
                    "be overloaded: 'f(float)' returns 'float' at line 1, 'int' here");
    ch_expect_error("kernel void k(device float *o [[buffer(0)]]) { o[0] = 1; }\n"
                    "kernel void k(device half *o [[buffer(0)]]) { o[0] = 1; }\n", NULL,
                    "k.metal:2:13: error: kernel functions cannot be overloaded (MSL 1.4.1): "
                    "'k' is also declared at line 1");
    ch_expect_error("float k(float x) { return x; }\n"
                    "kernel void k(device half *o [[buffer(0)]]) { o[0] = 1; }\n", NULL,
                    "kernel functions cannot be overloaded (MSL 1.4.1): 'k' is also declared "
                    "at line 1");
}

#define CPLX "struct C { float r; };\n"

static void test_operator_errors(void **state)
{
    (void)state;
    ch_expect_error("float operator+(float a, float b) { return a; }\n" KERNEL(""), NULL,
                    "k.metal:1:7: error: overloaded 'operator+' must have a parameter of struct "
                    "type (operators on built-in types cannot be redefined)");
    ch_expect_error(CPLX "bool operator==(C a) { return true; }\n" KERNEL(""), NULL,
                    "overloaded 'operator==' must be a binary operator (it has 1 parameter)");
    ch_expect_error(CPLX "C operator~(C a, C b) { return a; }\n" KERNEL(""), NULL,
                    "overloaded 'operator~' must be a unary operator (it has 2 parameters)");
    ch_expect_error(CPLX "float operator[](C a, int i) { return a.r; }\n" KERNEL(""), NULL,
                    "overloading 'operator[]' is not supported");
    ch_expect_error(CPLX "C operator++(thread C &a, float b) { return a; }\n" KERNEL(""), NULL,
                    "the second parameter of a postfix 'operator++' must be 'int'");
    ch_expect_error(CPLX "C operator+(C a, C b) { return C{a.r + b.r}; }\n"
                    KERNEL("C a = {1.0f};\nC b = a + 2.0f;"), NULL,
                    "k.metal:5:9: error: no matching function for call to 'operator+' with "
                    "arguments (C, float): 'operator+(C, C)' (line 2): argument 2: no known "
                    "conversion from 'float' to 'C'");
    /* a + b does not make a += b */
    ch_expect_error(CPLX "C operator+(C a, C b) { return C{a.r + b.r}; }\n"
                    KERNEL("C a = {1.0f};\na += a;"), NULL,
                    "invalid operands to binary expression ('C' and 'C')");
    ch_expect_error(CPLX KERNEL("C a = {1.0f};\nC b = -a;"), NULL,
                    "invalid argument type 'C' to unary expression");
}

/* A function of the kernel's named as a builtin hides none of the builtin's overloads of
 * other argument counts (C++ finds both through `using namespace metal`): a 3-argument max
 * beside the builtin's 2-argument one, a 1-argument clamp beside the builtin's 3, a min
 * template of 3 beside the builtin's 2. */
static void test_functions_named_as_builtins(void **state)
{
    (void)state;
    static const char *src =
        "#include <metal_stdlib>\n"
        "using namespace metal;\n"
        "inline float max(float a, float b, float c) { return max(max(a, b), c); }\n"
        "float clamp(float x) { return clamp(x, 0.0f, 1.0f); }\n"
        "template <typename T> T min(T a, T b, T c) { return min(a, min(b, c)); }\n"
        "kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
        "  float x = float(i) * 0.5f - 2.0f;\n"
        "  o[i] = max(x, 0.25f, -x) + max(x, 1.0f) + clamp(x) + min(x, 3.0f, -1.0f)\n"
        "         + float(min(int(i), 4));\n"
        "}\n";
    Harness h;
    ch_init(&h, src, NULL);
    float *o = ch_buf(&h, 0, 16 * 4);
    ch_run(&h, 16, 16);
    for (int i = 0; i < 16; i++) {
        float x = (float)i * 0.5f - 2.0f;
        float m3 = fmaxf(fmaxf(x, 0.25f), -x), m2 = fmaxf(x, 1.0f);
        float c = fminf(fmaxf(x, 0.0f), 1.0f), n3 = fminf(x, fminf(3.0f, -1.0f));
        CH_FEQ(o[i], m3 + m2 + c + n3 + (float)(i < 4 ? i : 4), i);
    }
    h_free(&h);
    /* a comma inside template arguments separates no arguments: two, the builtin's */
    ch_init(&h,
            "float2 max(float2 a, float2 b, float2 c) { return a; }\n"
            "kernel void k(device float2 *o [[buffer(0)]]) {\n"
            "  o[0] = max(vec<float, 2>(1.0f, -1.0f), o[1]); }\n",
            NULL);
    float *v = ch_buf(&h, 0, 2 * 8);
    v[2] = -2.0f;
    v[3] = 4.0f;
    ch_run(&h, 1, 1);
    CH_FEQ(v[0], 1.0f, 0);
    CH_FEQ(v[1], 4.0f, 1);
    h_free(&h);
    /* a count neither takes is reported as the builtin's */
    ch_expect_error("float max(float a, float b, float c) { return a; }\n"
                    "kernel void k(device float *o [[buffer(0)]]) { o[0] = max(o[0]); }\n",
                    NULL, "2:55: error: too few arguments to 'max', expected 2, have 1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overloaded_functions),
        cmocka_unit_test(test_templates_beside_functions),
        cmocka_unit_test(test_operators),
        cmocka_unit_test(test_reference_operators),
        cmocka_unit_test(test_overload_names),
        cmocka_unit_test(test_call_errors),
        cmocka_unit_test(test_declaration_errors),
        cmocka_unit_test(test_operator_errors),
        cmocka_unit_test(test_functions_named_as_builtins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
