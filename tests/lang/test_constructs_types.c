/*
 * test_constructs_types.c — conversions and compile-time constructs through the whole
 * compiler: casts (int <-> float saturation and NaN, float <-> half rounding, static_cast,
 * narrowing), as_type, function constants (given, defaulted, as loop bounds), templates
 * (explicit instantiation as MLX writes it, f<float>(x) calls, and calls whose template
 * arguments are deduced from the arguments' types, with the cases deduction refuses), early
 * return (in
 * divergent code, and inside an inlined helper), decltype(expr) as a type, value template
 * parameters (int N, uint
 * TILE, bool B: array sizes, loop bounds, arguments of other templates), and `auto` locals, which take their
 * initializer's type (uint wraps, a pointer indexes, a vector swizzles), with the forms it
 * refuses. Shape tests and execution tests against C.
 */
#include "construct_harness.h"

#include <float.h>
#include <limits.h>

static int find_cvt(const IsaProgram *p, IsaType dst, IsaType src)
{
    for (int i = ch_find(p, ISA_OP_CVT, 0); i >= 0; i = ch_find(p, ISA_OP_CVT, i + 1))
        if (p->code[i].type == dst && p->code[i].src_type == src)
            return i;
    return -1;
}

/* ---- casts and as_type ------------------------------------------------------------------ */

static const char *cast_src =
    "kernel void k(device const float* f [[buffer(0)]], device int* oi [[buffer(1)]],\n"
    "              device uint* ou [[buffer(2)]], device half* oh [[buffer(3)]],\n"
    "              device float* of [[buffer(4)]], uint i [[thread_position_in_grid]]) {\n"
    "  float x = f[i];\n"
    "  oi[i * 4] = int(x);\n"
    "  oi[i * 4 + 1] = short(int(i) * 3000 - 40000);\n"
    "  oi[i * 4 + 2] = int(uchar(int(i) - 3));\n"
    "  oi[i * 4 + 3] = int(float(int(i) * 1000003));\n"
    "  ou[i * 4] = static_cast<uint>(x);\n"
    "  ou[i * 4 + 1] = as_type<uint>(x);\n"
    "  half2 hp = as_type<half2>(as_type<uint>(x));\n"
    "  ou[i * 4 + 2] = as_type<uint>(hp.yx);\n"
    "  ou[i * 4 + 3] = uint(as_type<ushort>(half(x)));\n"
    "  oh[i] = half(x);\n"
    "  of[i * 2] = float(half(x));\n"
    "  of[i * 2 + 1] = as_type<float>(as_type<uint>(x) ^ 0x80000000u);\n"
    "}\n";

static void test_cast_shape(void **state)
{
    (void)state;
    IsaProgram *p = ch_compile(cast_src, NULL);
    CH_EXPECT(p, find_cvt(p, ISA_TYPE_S32, ISA_TYPE_F32) >= 0);
    CH_EXPECT(p, find_cvt(p, ISA_TYPE_U32, ISA_TYPE_F32) >= 0);
    CH_EXPECT(p, find_cvt(p, ISA_TYPE_F32, ISA_TYPE_S32) >= 0);
    int h = find_cvt(p, ISA_TYPE_F16, ISA_TYPE_F32);
    CH_EXPECT(p, h >= 0 && p->code[h].opd[0].kind == ISA_OPD_R16);
    int w = find_cvt(p, ISA_TYPE_F32, ISA_TYPE_F16);
    CH_EXPECT(p, w >= 0 && p->code[w].opd[1].kind == ISA_OPD_R16);
    isa_program_free(p);
    /* as_type is a reinterpretation: no conversion at all */
    p = ch_compile("kernel void k(device float* f [[buffer(0)]], device uint* u [[buffer(1)]],\n"
                   "              uint i [[thread_position_in_grid]]) {\n"
                   "  u[i] = as_type<uint>(f[i]);\n  f[i] = as_type<float>(u[i] + 1u);\n}\n", NULL);
    CH_EXPECT(p, !ch_has(p, ISA_OP_CVT));
    CH_EXPECT(p, ch_count(p, ISA_OP_IADD) == 1);
    isa_program_free(p);
}

static int32_t f2i_ref(float x)
{
    if (isnan(x))
        return 0;
    if (x >= 2147483648.0f)
        return INT32_MAX;
    if (x <= -2147483648.0f)
        return INT32_MIN;
    return (int32_t)x;
}

static uint32_t f2u_ref(float x)
{
    if (isnan(x) || x <= 0.0f)
        return 0;
    if (x >= 4294967296.0f)
        return UINT32_MAX;
    return (uint32_t)x;
}

static void test_cast_exec(void **state)
{
    (void)state;
    static const float in[] = {
        2.5f, -2.5f, 0.999f, -0.999f, 3e9f, -3e9f, 5e9f, INFINITY, -INFINITY, NAN, -NAN,
        2147483520.0f, 4294967040.0f, 65504.0f, 65519.0f, 65520.0f, 1e-8f, 6e-8f, -0.0f,
        0.1f, 1.00048828125f /* tie: to even */, 1.00146484375f /* tie: up */, 3.14159f,
        -100000.0f, 1e-5f, 5.96046448e-08f, 2.98023224e-08f,
    };
    enum { N = sizeof in / sizeof in[0] };
    Harness h;
    ch_init(&h, cast_src, NULL);
    float *f = ch_buf(&h, 0, N * 4);
    int32_t *oi = ch_buf(&h, 1, N * 16);
    uint32_t *ou = ch_buf(&h, 2, N * 16);
    uint16_t *oh = ch_buf(&h, 3, N * 2);
    float *of = ch_buf(&h, 4, N * 8);
    memcpy(f, in, sizeof in);
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        float x = in[i];
        uint32_t bits = util_f32_bits(x);
        uint16_t hx = h_d2h((double)x);
        CH_IEQ(oi[i * 4], f2i_ref(x), i);
        CH_IEQ(oi[i * 4 + 1], (int16_t)(uint16_t)(i * 3000 - 40000), i);
        CH_IEQ(oi[i * 4 + 2], (uint8_t)(i - 3), i);
        CH_IEQ(oi[i * 4 + 3], (int32_t)(float)(i * 1000003), i);
        CH_IEQ(ou[i * 4], f2u_ref(x), i);
        CH_IEQ(ou[i * 4 + 1], bits, i);
        CH_IEQ(ou[i * 4 + 2], (bits << 16) | (bits >> 16), i);
        if (!h_f16_is_nan(hx)) {
            CH_IEQ(ou[i * 4 + 3], hx, i);
            CH_IEQ(oh[i], hx, i);
            CH_FEQ(of[i * 2], (float)h_f16_value(hx), i);
        } else {
            assert_true(h_f16_is_nan(oh[i]) && isnan(of[i * 2]));
        }
        CH_IEQ(util_f32_bits(of[i * 2 + 1]), bits ^ 0x80000000u, i);
    }
    h_free(&h);
}

/* An array cast to a pointer of another element type: it decays to its first element, then
 * the cast reinterprets it ((threadgroup uchar *)tile reads tile's bytes, little-endian). */
static void test_array_cast_to_pointer(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "kernel void k(device uint *out [[buffer(0)]], device const uint *in [[buffer(1)]],\n"
            "              uint lid [[thread_position_in_threadgroup]]) {\n"
            "    threadgroup uint tile[8];\n"
            "    thread uint mine[2] = {in[lid % 8], 7u};\n"
            "    if (lid < 8) tile[lid] = in[lid];\n"
            "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
            "    threadgroup uchar *b = (threadgroup uchar *)tile;\n"
            "    thread ushort *m = (thread ushort *)mine;\n"
            "    out[lid] = b[lid] + (uint(m[lid % 4]) << 8);\n"
            "}\n", NULL);
    uint32_t *out = ch_buf(&h, 0, 32 * 4), *in = ch_buf(&h, 1, 8 * 4);
    for (uint32_t i = 0; i < 8; i++)
        in[i] = 0x01020304u * (i + 1);
    ch_run(&h, 32, 32);
    for (uint32_t i = 0; i < 32; i++) {
        uint8_t bytes[32];
        memcpy(bytes, in, sizeof bytes);
        uint32_t mine[2] = {in[i % 8], 7u};
        uint16_t halves[4];
        memcpy(halves, mine, sizeof halves);
        CH_IEQ(out[i], bytes[i] + ((uint32_t)halves[i % 4] << 8), i);
    }
    h_free(&h);
}

/* ---- function constants ----------------------------------------------------------------- */

static const char *fc_src =
    "constant int kSteps [[function_constant(0)]];\n"
    "constant float kScale [[function_constant(1)]];\n"
    "constant bool kNegate [[function_constant(2)]];\n"
    "constant int kOpt [[function_constant(3)]];\n"
    "constant int kN = is_function_constant_defined(kOpt) ? kOpt : 4;\n"
    "kernel void k(device float* o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
    "  float s = float(i);\n"
    "  for (int j = 0; j < kSteps; j++) s += kScale;\n"
    "  if (kNegate) s = -s;\n"
    "  for (int j = 0; j < kN; j++) s *= 2.0f;\n"
    "  o[i] = s;\n"
    "}\n";

static void fc_check(const LangConstant *c, uint32_t nc, int steps, float scale, bool neg, int n)
{
    LangOptions o = {0};
    o.constants = c, o.num_constants = nc;
    Harness h;
    ch_init(&h, fc_src, &o);
    /* loop bounds become immediates of the while */
    int w = -1, bounds = 0;
    while ((w = ch_find(h.prog, ISA_OP_WHILE_ICMP, w + 1)) >= 0)
        if (h.prog->code[w].opd[2].kind == ISA_OPD_IMM &&
            ((int)h.prog->code[w].opd[2].imm == steps || (int)h.prog->code[w].opd[2].imm == n))
            bounds++;
    CH_EXPECT(h.prog, bounds >= 2);
    enum { N = 24 };
    float *out = ch_buf(&h, 0, N * 4);
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        float s = (float)i;
        for (int j = 0; j < steps; j++)
            s += scale;
        if (neg)
            s = -s;
        for (int j = 0; j < n; j++)
            s *= 2.0f;
        CH_FEQ(out[i], s, i);
    }
    h_free(&h);
}

static void test_function_constants(void **state)
{
    (void)state;
    LangConstant c[] = {{"kSteps", false, 5}, {"kScale", true, 0.375}, {"kNegate", false, 1},
                        {"kOpt", false, 3}};
    fc_check(c, 3, 5, 0.375f, true, 4);   /* kOpt not given: kN takes its default, 4 */
    fc_check(c, 4, 5, 0.375f, true, 3);   /* given: kN = kOpt */
    LangConstant d[] = {{"kSteps", false, 2}, {"kScale", true, -1.5}, {"kNegate", false, 0}};
    fc_check(d, 3, 2, -1.5f, false, 4);
    /* a function constant without a value that the kernel uses is an error */
    ch_expect_error(fc_src, NULL, "function constant 'kSteps' has no value");
}

/* ---- templates ---------------------------------------------------------------------------- */

static const char *tmpl_src =
    "template <typename T>\n"
    "T twice(T x) { return x + x; }\n"
    "template <typename T>\n"
    "T poly(T x, int k) { T r = T(0); for (int j = 0; j < k; j++) r = r * x + T(j + 1); return r; }\n"
    "template <typename T>\n"
    "[[kernel]] void scale_k(const device T* x [[buffer(0)]], device T* out [[buffer(1)]],\n"
    "                        uint3 tpig [[thread_position_in_grid]]) {\n"
    "  uint e = tpig.x;\n"
    "  out[e] = twice<T>(x[e]) + poly<T>(x[e], 3) + T(twice<int>(int(e)));\n"
    "}\n"
    "template [[host_name(\"scale_float\")]] [[kernel]] decltype(scale_k<float>) scale_k<float>;\n"
    "template [[host_name(\"scale_half\")]] [[kernel]] decltype(scale_k<half>) scale_k<half>;\n";

static void test_template_shape(void **state)
{
    (void)state;
    LangOptions o = {0};
    o.entry = "scale_half";
    IsaProgram *p = ch_compile(tmpl_src, &o);
    CH_EXPECT(p, strcmp(p->name, "scale_half") == 0);
    CH_EXPECT(p, p->args[0].type_name && strcmp(p->args[0].type_name, "half") == 0);
    CH_EXPECT(p, ch_has(p, ISA_OP_FADD16) && !ch_has(p, ISA_OP_FADD32));
    CH_EXPECT(p, ch_count_mem(p, ISA_OP_LD_DEV, ISA_FMT_H16, 1) >= 1);
    isa_program_free(p);
    o.entry = "scale_float";
    p = ch_compile(tmpl_src, &o);
    CH_EXPECT(p, ch_has(p, ISA_OP_FADD32) && !ch_has(p, ISA_OP_FADD16));
    CH_EXPECT(p, p->args[1].elem_size == 4);
    isa_program_free(p);
    /* the MLX custom-kernel pattern itself, from the seed kernels */
    UtilError err = {{0}};
    LangOptions m = {0};
    m.entry = "custom_kernel_grid_sample_float";
    p = lang_compile_file("../shared/kernels/seed/mlx_grid_sample.metal", &m, NULL, &err);
    if (!p)
        fail_msg("mlx_grid_sample.metal: %s", err.message);
    CH_EXPECT(p, p->num_args == 5 && strcmp(p->args[0].type_name, "float") == 0);
    CH_EXPECT(p, p->args[1].kind == ISA_ARG_CONSTANT);
    isa_program_free(p);
    /* a value template parameter (test_value_template_parameters runs them) */
    p = ch_compile("template <typename T, int K> T f(T x) { return x * T(K); }\n"
                   "kernel void k(device float* o [[buffer(0)]]) { o[0] = f<float, 2>(o[0]); }\n",
                   NULL);
    CH_EXPECT(p, ch_count(p, ISA_OP_FMUL32) == 1);
    isa_program_free(p);
    /* deduction: T from the argument (test_template_deduction runs more) */
    p = ch_compile("template <typename T> T f(T x) { return x + x; }\n"
                   "kernel void k(device float* o [[buffer(0)]]) { o[0] = f(o[0]); }\n", NULL);
    CH_EXPECT(p, ch_count(p, ISA_OP_FADD32) == 1);
    isa_program_free(p);
    /* an entry that is not there */
    o.entry = "scale_double";
    ch_expect_error(tmpl_src, &o, "scale_double");
}

static void test_template_exec(void **state)
{
    (void)state;
    enum { N = 36 };
    for (int half = 0; half < 2; half++) {
        LangOptions o = {0};
        o.entry = half ? "scale_half" : "scale_float";
        Harness h;
        ch_init(&h, tmpl_src, &o);
        void *x = ch_buf(&h, 0, N * 4);
        void *out = ch_buf(&h, 1, N * 4);
        double xv[N];
        for (int i = 0; i < N; i++) {
            xv[i] = (double)(i % 9) * 0.25 - 1.0;
            if (half)
                ((uint16_t *)x)[i] = h_d2h(xv[i]);
            else
                ((float *)x)[i] = (float)xv[i];
        }
        ch_run(&h, N, 32);
        for (int i = 0; i < N; i++) {
            if (half) { /* every step rounded to half; small dyadics keep each exact */
                double v = xv[i], r = 0;
                for (int j = 0; j < 3; j++)
                    r = h_f16_value(h_d2h(h_f16_value(h_d2h(r * v)) + (j + 1)));
                double t = h_f16_value(h_d2h(v + v));
                double want = h_f16_value(h_d2h(t + r)) + (double)(2 * i);
                CH_IEQ(((uint16_t *)out)[i], h_d2h(want), i);
            } else {
                float v = (float)xv[i], r = 0.0f;
                for (int j = 0; j < 3; j++)
                    r = r * v + (float)(j + 1);
                CH_FEQ(((float *)out)[i], (v + v) + r + (float)(2 * i), i);
            }
        }
        h_free(&h);
    }
}

/* An explicit instantiation that repeats the kernel's parameter list (instead of MLX's
 * decltype form), through a macro as real code writes it: it was refused, the return
 * type's parser taking the template's name for a declarator. */
static void test_template_instantiation_with_parameters(void **state)
{
    (void)state;
    static const char *src =
        "template <typename T, typename U>\n"
        "[[kernel]] void copy_g(device const T* src [[buffer(0)]], device U* dst [[buffer(1)]],\n"
        "                       uint i [[thread_position_in_grid]]) {\n"
        "  dst[i] = static_cast<U>(src[i] * T(3));\n"
        "}\n"
        "#define instantiate_copy(tname, T, U) \\\n"
        "  template [[host_name(\"copy_g_\" #tname)]] [[kernel]] void copy_g<T, U>( \\\n"
        "      device const T* src [[buffer(0)]], device U* dst [[buffer(1)]], \\\n"
        "      uint i [[thread_position_in_grid]]);\n"
        "instantiate_copy(int_float, int, float)\n"
        "template void copy_g<float, int>(device const float*, device int*, uint);\n";
    LangOptions o = {0};
    o.entry = "copy_g_int_float";
    Harness h;
    ch_init(&h, src, &o);
    int32_t *in = ch_buf(&h, 0, 40 * 4);
    float *out = ch_buf(&h, 1, 40 * 4);
    for (int i = 0; i < 40; i++)
        in[i] = i - 20;
    ch_run(&h, 40, 32);
    for (int i = 0; i < 40; i++)
        CH_FEQ(out[i], (float)((i - 20) * 3), i);
    h_free(&h);
}

/* `>>` closing two template argument lists at once (`Box<vec<float, 2>>`, as C++11 reads
 * it): each list takes its `>`, in types, traits, limits and casts. */
static void test_double_angle_close(void **state)
{
    (void)state;
    static const char *src =
        "template <typename T> struct Box { T v; };\n"
        "template <typename T, typename U> struct Two { T a; U b; };\n"
        "kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
        "  Box<vec<float, 2>> b = {float2(float(i), 2.0f)};\n"
        "  Two<int, Box<float>> t = {3, {4.0f}};\n"
        "  float2 c = static_cast<vec<float, 2>>(b.v) * 0.5f;\n"
        "  o[i] = b.v.x + c.y * 10.0f + float(t.a) * 100.0f + t.b.v * 1000.0f\n"
        "         + (is_same_v<float4, vec<float, 4>> ? 10000.0f : 0.0f);\n"
        "}\n";
    Harness h;
    ch_init(&h, src, NULL);
    float *o = ch_buf(&h, 0, 4 * 4);
    ch_run(&h, 4, 4);
    for (int i = 0; i < 4; i++)
        CH_FEQ(o[i], (float)i + 10.0f + 300.0f + 4000.0f + 10000.0f, i);
    h_free(&h);
}

/* ---- early return ------------------------------------------------------------------------- */

static const char *ret_src =
    "float helper(float x, thread int& steps) {\n"
    "  if (x < 0.0f) return -1.0f;\n"
    "  for (int j = 0; j < 10; j++) {\n"
    "    steps++;\n"
    "    if (x < 1.0f) return x;\n"
    "    x *= 0.5f;\n"
    "  }\n"
    "  return 99.0f;\n"
    "}\n"
    "kernel void k(device int* o [[buffer(0)]], device float* of [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "  int steps = 0;\n"
    "  float h = helper(float(int(i) - 4) * 37.0f, steps);\n"
    "  of[i] = h + float(steps) * 1000.0f;\n"
    "  int acc = 0;\n"
    "  for (int j = 0; j < 8; j++) {\n"
    "    if (int(i) % 11 == j) { o[i * 2] = acc * 100 + j; return; }\n"
    "    acc += j;\n"
    "  }\n"
    "  if (i % 2u == 0u) return;\n"
    "  o[i * 2] = -acc - int(i);\n"
    "  o[i * 2 + 1] = simd_sum(1);\n"
    "}\n";

static void test_early_return_shape(void **state)
{
    (void)state;
    IsaProgram *p = ch_compile(ret_src, NULL);
    /* every return in divergent code parks its lanes: mov16 r0l, depth; pop_exec 0 */
    int parks = 0;
    for (int m = ch_find(p, ISA_OP_MOV16, 0); m >= 0; m = ch_find(p, ISA_OP_MOV16, m + 1)) {
        const IsaInst *in = &p->code[m];
        if (in->opd[0].kind == ISA_OPD_R16 && in->opd[0].index == 0 && in->opd[1].kind == ISA_OPD_IMM) {
            CH_EXPECT(p, p->code[m + 1].op == ISA_OP_POP_EXEC && p->code[m + 1].opd[0].imm == 0);
            parks++;
        }
    }
    CH_EXPECT(p, parks >= 3); /* the helper's two divergent returns are inside an if; the
                               * kernel's in the loop and after it */
    /* the kernel ends once, at the end; the helper's returns do not stop the SIMD-group */
    CH_EXPECT(p, ch_count(p, ISA_OP_STOP) == 1 && p->code[p->count - 1].op == ISA_OP_STOP);
    CH_EXPECT(p, ch_find(p, ISA_OP_SIMD_RED, 0) > ch_find(p, ISA_OP_ST_DEV, 0));
    isa_program_free(p);
}

static void test_early_return_exec(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, ret_src, NULL);
    enum { N = 45 };
    int32_t *o = ch_buf(&h, 0, N * 8);
    float *of = ch_buf(&h, 1, N * 4);
    for (int i = 0; i < N * 2; i++)
        o[i] = -12345;
    ch_run(&h, N, 64);
    int32_t last[N];
    int32_t live[2] = {0, 0}; /* lanes that reach the end, per SIMD-group */
    for (int i = 0; i < N; i++) {
        float x = (float)(i - 4) * 37.0f, hv;
        int steps = 0;
        if (x < 0.0f) {
            hv = -1.0f;
        } else {
            hv = 99.0f;
            for (int j = 0; j < 10; j++) {
                steps++;
                if (x < 1.0f) {
                    hv = x;
                    break;
                }
                x *= 0.5f;
            }
        }
        CH_FEQ(of[i], hv + (float)steps * 1000.0f, i);
        int acc = 0, ret = 0;
        for (int j = 0; j < 8 && !ret; j++) {
            if (i % 11 == j) {
                last[i] = acc * 100 + j;
                ret = 1;
            } else {
                acc += j;
            }
        }
        if (!ret && i % 2 == 0)
            ret = 2, last[i] = -12345;
        if (!ret) {
            last[i] = -acc - i;
            live[i / 32]++;
        }
    }
    for (int i = 0; i < N; i++) {
        CH_IEQ(o[i * 2], last[i], i);
        bool reached = i % 11 >= 8 && i % 2 == 1;
        CH_IEQ(o[i * 2 + 1], reached ? live[i / 32] : -12345, i);
    }
    h_free(&h);
}

/* ---- value template parameters ---------------------------------------------------------------- */

static const char *value_template_src =
    "template <typename T, int N>\n"
    "T sum_n(device const T *p) {\n"
    "    T s = 0;\n"
    "    for (int k = 0; k < N; k++) s += p[k];\n"
    "    return s;\n"
    "}\n"
    "template <typename T, uint TILE, bool SQUARE>\n"
    "[[kernel]] void tiled(device const T *in [[buffer(0)]], device T *out [[buffer(1)]],\n"
    "                      uint i [[thread_position_in_grid]]) {\n"
    "    T acc[TILE];\n"
    "    for (uint k = 0; k < TILE; k++) acc[k] = in[i * TILE + k];\n"
    "    T s = sum_n<T, TILE * 2 - 1>(in + i);\n"
    "    for (uint k = 0; k < TILE; k++) s += SQUARE ? acc[k] * acc[k] : acc[k];\n"
    "    out[i] = s;\n"
    "}\n"
    "template [[host_name(\"tiled_float_4\")]] [[kernel]] decltype(tiled<float, 4, true>) "
    "tiled<float, 4, true>;\n"
    "template [[host_name(\"tiled_int_3\")]] [[kernel]] decltype(tiled<int, 3, false>) "
    "tiled<int, 3, false>;\n";

static void test_value_template_parameters(void **state)
{
    (void)state;
    for (int which = 0; which < 2; which++) {
        LangOptions o = {.entry = which ? "tiled_int_3" : "tiled_float_4"};
        const uint32_t tile = which ? 3 : 4;
        Harness h;
        ch_init(&h, value_template_src, &o);
        /* acc[TILE] is indexed by counters of loops TILE long: it stays in registers */
        CH_EXPECT(h.prog, h.prog->stack_bytes == 0);
        CH_EXPECT(h.prog, ch_count(h.prog, ISA_OP_JMP_EXEC_ANY) == 0);
        void *in = ch_buf(&h, 0, 512 * 4), *out = ch_buf(&h, 1, 32 * 4);
        for (int i = 0; i < 512; i++) {
            if (which)
                ((int32_t *)in)[i] = i % 7 - 3;
            else
                ((float *)in)[i] = (float)(i % 5) * 0.5f;
        }
        ch_run(&h, 32, 32);
        for (uint32_t i = 0; i < 32; i++) {
            double s = 0;
            for (uint32_t k = 0; k < 2 * tile - 1; k++)
                s += which ? ((int32_t *)in)[i + k] : ((float *)in)[i + k];
            for (uint32_t k = 0; k < tile; k++) {
                double a = which ? ((int32_t *)in)[i * tile + k] : ((float *)in)[i * tile + k];
                s += which ? a : a * a;
            }
            if (which)
                CH_IEQ(((int32_t *)out)[i], (int64_t)s, i);
            else
                CH_FEQ(((float *)out)[i], (float)s, i);
        }
        h_free(&h);
    }
#define TPL(params, call) \
    "template <" params ">\nfloat f(float x) { return x; }\n" \
    "kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n" \
    "    o[i] = " call ";\n}\n"
    ch_expect_error(TPL("float F", "f<1.0f>(o[i])"), NULL,
                    "a template parameter is a type (typename T) or an integer value");
    ch_expect_error(TPL("int N", "f<i>(o[i])"), NULL,
                    "expected an integer constant as template argument (for a 'int' parameter)");
    ch_expect_error(TPL("int N", "f<float>(o[i])"), NULL, "expected an integer constant");
    ch_expect_error(TPL("typename T", "f<4>(o[i])"), NULL, "expected a type as template argument");
    ch_expect_error(TPL("typename T, int N", "f<float, 2, 3>(o[i])"), NULL,
                    "too many template arguments: 'f' takes 2");
    ch_expect_error(TPL("typename T, int N", "f<float>(o[i])"), NULL,
                    "template 'f' takes 2 arguments, not 1");
#undef TPL
}

/* ---- default template arguments ---------------------------------------------------------------- */

static void test_template_defaults(void **state)
{
    (void)state;
    const char *src =
        "template <typename T, int N = 4, typename U = T> U sum_n(device const T *p) {\n"
        "    U s = 0;\n"
        "    for (int k = 0; k < N; k++) s += U(p[k]);\n"
        "    return s;\n"
        "}\n"
        "template <typename T, int N_READS = 2, int STRIDE = N_READS * 2>\n"
        "[[kernel]] void k(device const T *in [[buffer(0)]], device T *out [[buffer(1)]],\n"
        "                  uint i [[thread_position_in_grid]]) {\n"
        "    out[i] = sum_n(in + i) + sum_n<T, N_READS>(in) + T(STRIDE) + sum_n<T, 1, int>(in);\n"
        "}\n"
        "template [[host_name(\"k_float\")]] [[kernel]] decltype(k<float>) k<float>;\n"
        "template [[host_name(\"k_float_3\")]] [[kernel]] decltype(k<float, 3>) k<float, 3>;\n";
    for (int reads = 2; reads <= 3; reads++) {
        LangOptions o = {.entry = reads == 2 ? "k_float" : "k_float_3"};
        Harness h;
        ch_init(&h, src, &o);
        float *in = ch_buf(&h, 0, 64 * 4), *out = ch_buf(&h, 1, 32 * 4);
        for (int i = 0; i < 64; i++)
            in[i] = (float)i;
        ch_run(&h, 32, 32);
        for (int i = 0; i < 32; i++) {
            /* sum_n<float, 4, float>(in + i), sum_n<float, READS>(in), STRIDE = 2 * READS,
             * sum_n<float, 1, int>(in) */
            float want = (float)(4 * i + 6) + (float)(reads * (reads - 1) / 2) + 2.0f * reads;
            CH_FEQ(out[i], want, i);
        }
        h_free(&h);
    }
#define TPL(params, call) \
    "template <" params ">\nfloat f(float x) { return x; }\n" \
    "kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n" \
    "    o[i] = " call ";\n}\n"
    ch_expect_error(TPL("typename T = float, int N", "f<float, 2>(o[i])"), NULL,
                    "template parameter 'N' follows one with a default, so it needs a default");
    ch_expect_error(TPL("int N = 2.5f", "f<>(o[i])"), NULL, "expected an integer constant");
    ch_expect_error(TPL("typename T = 3", "f(o[i])"), NULL,
                    "expected a type as the default of 'T'");
#undef TPL
}

/* ---- template argument deduction -------------------------------------------------------------- */

static void test_template_deduction(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "template <typename T> T twice(T x) { return x + x; }\n"
            "template <typename T, typename U> T scaled(const device T *p, U s) { return p[0] * T(s); }\n"
            "template <typename T> void bump(thread T &x) { x += T(1); }\n"
            "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
            "              uint i [[thread_position_in_grid]]) {\n"
            "    float x = twice(in[i]);\n"          /* T = float */
            "    half h = twice(half(1.5));\n"       /* T = half: 3 */
            "    uint n = twice(0xffffffffu);\n"     /* T = uint: wraps to 0xfffffffe */
            "    float y = scaled(in + i, 2u);\n"    /* T = float from a pointer, U = uint */
            "    bump(x);\n"                         /* T = float through a reference */
            "    out[i] = x + float(h) + float(n == 0xfffffffeu) + y;\n"
            "}\n", NULL);
    float *in = ch_buf(&h, 0, 64 * 4), *out = ch_buf(&h, 1, 64 * 4);
    for (int i = 0; i < 64; i++)
        in[i] = (float)i * 0.5f;
    ch_run(&h, 64, 32);
    for (int i = 0; i < 64; i++)
        CH_FEQ(out[i], (in[i] + in[i] + 1.0f) + 3.0f + 1.0f + in[i] * 2.0f, i);
    h_free(&h);
#define DEDUCE(decl, call) \
    decl "\nkernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n" \
    "    o[i] = " call ";\n}\n"
    ch_expect_error(DEDUCE("template <typename T> T add(T a, T b) { return a + b; }",
                           "add(o[i], 2)"), NULL,
                    "conflicting types for template parameter 'T' of 'add': 'float' and 'int'");
    ch_expect_error(DEDUCE("template <typename T> T zero() { return T(0); }", "zero()"), NULL,
                    "cannot deduce template parameter 'T' of 'zero' from this call");
    ch_expect_error(DEDUCE("template <int N> float times(float x) { return x * N; }",
                           "times(o[i])"), NULL, "cannot deduce template parameter 'N'");
    ch_expect_error(DEDUCE("template <typename T> T first(vec<T, 2> v) { return v.x; }",
                           "first(float2(o[i]))"), NULL, "cannot deduce template parameter 'T'");
    ch_expect_error(DEDUCE("template <typename T> T load(device T *p) { return *p; }",
                           "load(o[i])"), NULL, "argument 1 of 'load' is not a pointer");
    ch_expect_error(DEDUCE("template <typename T> T id(T x) { return x; }", "id"), NULL,
                    "template 'id' must be called");
    /* declared, then defined: deduction reads the definition's parameter list (make fuzz
     * found a crash when a later definition replaced the first) */
    IsaProgram *p = ch_compile(DEDUCE("template <typename T> T id(device T *x);\n"
                                      "template <typename T> T id(T y) { return y + y; }",
                                      "id(o[i])"), NULL);
    CH_EXPECT(p, ch_count(p, ISA_OP_FADD32) == 1);
    isa_program_free(p);
    /* vec<T, N>'s length is a constant expression: a template's N, N + 1; in 2 to 4 */
    p = ch_compile(DEDUCE("template <typename T, int N> T last(vec<T, N + 1> v) { return v[N]; }",
                          "last<float, 2>(float3(1.0f, 2.0f, o[i])) + float(vec<int, 1 + 1>(3).y)"),
                   NULL);
    isa_program_free(p);
    ch_expect_error(DEDUCE("template <int N> float f(vec<float, N> v) { return v.x; }",
                           "f<5>(float4(1.0f))"), NULL, "k.metal:1:37: error: vector length "
                    "must be 2, 3 or 4");
    ch_expect_error(DEDUCE("typedef vec<float, 2.0f> f2;", "1.0f"), NULL,
                    "k.metal:1:20: error: vector length must be 2, 3 or 4");
#undef DEDUCE
}

/* ---- local references --------------------------------------------------------------------------- */

static void test_local_references(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "kernel void k(device float *out [[buffer(0)]], uint i [[thread_position_in_grid]],\n"
            "              uint l [[thread_index_in_threadgroup]]) {\n"
            "    threadgroup float tile[64];\n"
            "    float acc[4] = {1, 2, 3, 4};\n"
            "    thread float &a = acc[i % 4];\n"        /* a thread array element */
            "    a *= 10;\n"
            "    device float &o = out[i];\n"            /* a buffer element */
            "    threadgroup float &t = tile[l];\n"      /* threadgroup memory */
            "    t = o + 1;\n"
            "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
            "    const thread float &first = acc[0];\n"
            "    o = first + acc[1] + acc[2] + acc[3] + t;\n"
            "}\n", NULL);
    float *out = ch_buf(&h, 0, 64 * 4);
    for (int i = 0; i < 64; i++)
        out[i] = (float)i;
    ch_run(&h, 64, 64);
    for (int i = 0; i < 64; i++) {
        float acc[4] = {1, 2, 3, 4};
        acc[i % 4] *= 10;
        CH_FEQ(out[i], acc[0] + acc[1] + acc[2] + acc[3] + (float)i + 1.0f, i);
    }
    h_free(&h);
#define REF_KERNEL(body) \
    "kernel void k(device float *f [[buffer(0)]], const device float *c [[buffer(1)]],\n" \
    "              uint i [[thread_position_in_grid]]) {\n    " body "\n}\n"
    ch_expect_error(REF_KERNEL("thread float &r;"), NULL, "reference 'r' needs an initializer");
    ch_expect_error(REF_KERNEL("thread float &r = 1.0f;"), NULL,
                    "cannot bind 'float' to a reference of type 'thread float&'");
    ch_expect_error(REF_KERNEL("float x = 1; device float &r = x;"), NULL,
                    "cannot bind 'float' to a reference of type 'device float&'");
    ch_expect_error(REF_KERNEL("device float &r = c[i];"), NULL,
                    "binding a const value to a non-const reference");
    ch_expect_error(REF_KERNEL("float2 v = 0; thread float &r = v.x;"), NULL, "cannot bind");
#undef REF_KERNEL
}

/* ---- auto ------------------------------------------------------------------------------------ */

static void test_auto(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
            "              uint i [[thread_position_in_grid]]) {\n"
            "    auto x = in[i] * 2.0f;\n"               /* float */
            "    const auto n = 3u;\n"                   /* const uint */
            "    auto p = in + 1;\n"                     /* device const float* */
            "    auto v = float2(x, 1.0f);\n"            /* float2 */
            "    for (auto k = 0u; k < n; k++)\n"
            "        v.y += p[k];\n"
            "    auto wrap = n - 4;\n"                   /* uint: wraps to 4294967295 */
            "    auto h = half(x) / half(3);\n"          /* half arithmetic */
            "    constexpr auto one = 1;\n"
            "    out[i] = v.x + v.y + float(wrap > 100u) + float(h) * one;\n"
            "}\n", NULL);
    float *in = ch_buf(&h, 0, 64 * 4), *out = ch_buf(&h, 1, 64 * 4);
    for (int i = 0; i < 64; i++)
        in[i] = (float)i * 0.25f;
    ch_run(&h, 60, 32);
    for (int i = 0; i < 60; i++) {
        float x = in[i] * 2.0f, y = 1.0f;
        for (int k = 0; k < 3; k++)
            y += in[1 + k];
        float hv = (float)h_f16_value(h_d2h((double)(float)h_f16_value(h_d2h(x)) / 3.0));
        CH_FEQ(out[i], x + y + 1.0f + hv, i);
    }
    h_free(&h);
    /* decltype(expr): the expression's type, not evaluated */
    ch_init(&h,
            "kernel void k(device const half *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
            "              uint i [[thread_position_in_grid]]) {\n"
            "    half2 v = half2(in[i], in[i + 1]);\n"
            "    decltype(v) w = v * half(2);\n"            /* half2 */
            "    decltype(i + 1u) j = i;\n"                 /* uint */
            "    decltype(in) p = in + 1;\n"                /* device const half* */
            "    out[i] = float(w.x + w.y) + float(j) + float(p[0]) + float(sizeof(decltype(w)));\n"
            "}\n", NULL);
    uint16_t *hin = ch_buf(&h, 0, 64 * 2);
    float *hout = ch_buf(&h, 1, 64 * 4);
    for (int i = 0; i < 64; i++)
        hin[i] = h_d2h(i * 0.25);
    ch_run(&h, 32, 32);
    for (int i = 0; i < 32; i++) {
        double a = h_f16_value(h_d2h(i * 0.25)), b = h_f16_value(h_d2h((i + 1) * 0.25));
        float w = (float)h_f16_value(h_d2h(h_f16_value(h_d2h(2 * a)) + h_f16_value(h_d2h(2 * b))));
        CH_FEQ(hout[i], w + (float)i + (float)h_f16_value(hin[1]) + 4.0f, i);
    }
    h_free(&h);
#define AUTO_KERNEL(body) \
    "kernel void k(device float *f [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n" \
    body "\n}\n"
    ch_expect_error(AUTO_KERNEL("auto x;"), NULL, "'auto' needs an initializer after '='");
    ch_expect_error(AUTO_KERNEL("auto x{1};"), NULL, "'auto' needs an initializer");
    ch_expect_error(AUTO_KERNEL("auto x = {1, 2};"), NULL, "cannot take a type from a brace list");
    ch_expect_error(AUTO_KERNEL("auto *p = f;"), NULL, "expected a variable name after 'auto'");
    ch_expect_error(AUTO_KERNEL("float a[2] = {1, 2}; auto b = a;"), NULL,
                    "cannot take its type from a value of type 'float[2]'");
    ch_expect_error(AUTO_KERNEL("auto m = mem_flags::mem_device;"), NULL,
                    "cannot take its type from a value of type 'mem_flags'");
    ch_expect_error("void g(auto x) {}\n" AUTO_KERNEL("g(1.0f);"), NULL,
                    "'auto' is supported for a local variable with an initializer");
    ch_expect_error(AUTO_KERNEL("f[i] = (auto)1;"), NULL,
                    "'auto' is supported for a local variable with an initializer");
    ch_expect_error("float g(float x) { return x; }\n" AUTO_KERNEL("decltype(g) *p;"), NULL,
                    "function 'g' must be called");
#undef AUTO_KERNEL
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cast_shape),
        cmocka_unit_test(test_cast_exec),
        cmocka_unit_test(test_array_cast_to_pointer),
        cmocka_unit_test(test_function_constants),
        cmocka_unit_test(test_template_shape),
        cmocka_unit_test(test_template_exec),
        cmocka_unit_test(test_template_instantiation_with_parameters),
        cmocka_unit_test(test_double_angle_close),
        cmocka_unit_test(test_early_return_shape),
        cmocka_unit_test(test_early_return_exec),
        cmocka_unit_test(test_value_template_parameters),
        cmocka_unit_test(test_template_deduction),
        cmocka_unit_test(test_template_defaults),
        cmocka_unit_test(test_local_references),
        cmocka_unit_test(test_auto),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
