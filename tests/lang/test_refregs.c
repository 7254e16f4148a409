/*
 * test_refregs.c — locals passed to `thread` reference parameters (lang/codegen_refs.c):
 * when the helper only reads and writes the object (compound assignment, ++, members,
 * swizzles, whole-object assignment, constant indexes, possibly after unrolling, passing it
 * on to another such helper, calling a member function that keeps it in place) the local
 * stays in registers: no ld_stack / st_stack, no .stack. When the helper needs an address
 * (`&a` kept in a pointer, pointer arithmetic, an index known only at run time, a pointer
 * parameter, a helper or member function that needs one, a local reference) the local
 * lives in thread memory as before, also when that helper is defined after its caller.
 * Device and threadgroup references and temporaries bound to `thread const T&` work as
 * before. Every kernel, of either kind, runs and computes what the same code written in C
 * in this file computes.
 */
#include "construct_harness.h"

enum { N = 64 };

/* Every kernel here reads in[] and writes four floats per thread into out[]. */
#define KERNEL_HEAD \
    "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n" \
    "              uint i [[thread_position_in_grid]]) {\n"

typedef void (*RefFn)(const float *in, uint32_t i, float out[4]);

static float input(uint32_t i) { return (float)((i * 37u) % 17u) * 0.25f - 1.5f; }

static float maxf(float a, float b) { return a > b ? a : b; }

/* Compiles src, checks where the locals live (in_memory: thread memory is used), runs it
 * on N threads and compares every output with ref, bit for bit. */
static void check(const char *src, bool in_memory, RefFn ref)
{
    Harness h;
    ch_init(&h, src, NULL);
    if (in_memory) {
        CH_EXPECT(h.prog, h.prog->stack_bytes > 0 && ch_has(h.prog, ISA_OP_ST_STACK));
    } else {
        CH_EXPECT(h.prog, h.prog->stack_bytes == 0);
        CH_EXPECT(h.prog, !ch_has(h.prog, ISA_OP_ST_STACK) && !ch_has(h.prog, ISA_OP_LD_STACK));
    }
    float *in = ch_buf(&h, 0, N * 4);
    float *out = ch_buf(&h, 1, N * 16);
    for (uint32_t i = 0; i < N; i++)
        in[i] = input(i);
    ch_run(&h, N, 32);
    for (uint32_t i = 0; i < N; i++) {
        float want[4] = {0, 0, 0, 0};
        ref(in, i, want);
        for (int c = 0; c < 4; c++)
            CH_FEQ(out[i * 4 + c], want[c], i * 4 + c);
    }
    h_free(&h);
}

/* ---- what stays in registers --------------------------------------------------------------- */

/* The accumulator of the brief, in an unrolled loop and in a loop with a bound known only
 * at run time; the helper is declared first and defined after the kernel. */
static const char *scalar_src =
    "void acc(thread float &a, float v);\n"
    KERNEL_HEAD
    "    float s = 0;\n"
    "    for (int j = 0; j < 4; j++) acc(s, float(j * i));\n"
    "    float t = in[i];\n"
    "    for (uint j = 0; j < i % 5; j++) acc(t, in[j]);\n"
    "    out[4 * i] = s;\n"
    "    out[4 * i + 1] = t;\n"
    "}\n"
    "void acc(thread float &a, float v) { a += v; }\n";

static void scalar_ref(const float *in, uint32_t i, float out[4])
{
    float s = 0, t = in[i];
    for (int j = 0; j < 4; j++)
        s += (float)((uint32_t)j * i);
    for (uint32_t j = 0; j < i % 5; j++)
        t += in[j];
    out[0] = s, out[1] = t;
}

static void test_scalar_accumulator(void **state)
{
    (void)state;
    check(scalar_src, false, scalar_ref);
}

/* A float4 and a struct updated through references: compound assignment of the whole
 * vector, swizzles, members, ++, and an assignment of the whole object. */
static const char *aggregate_src =
    "struct Stats { float sum; float sq; int n; float2 range; };\n"
    "void add4(thread float4 &a, float4 v) { a += v * 0.5f; a.w = max(a.w, v.x); a.yx = a.xy; }\n"
    "void reset(thread Stats &s, float x) { s = Stats{x, x * x, 1, float2(x)}; }\n"
    "void push(thread Stats &s, float x) {\n"
    "    s.sum += x; s.sq += x * x; s.n++;\n"
    "    s.range.x = min(s.range.x, x); s.range[1] = max(s.range[1], x);\n"
    "}\n"
    KERNEL_HEAD
    "    float4 a = float4(in[i]);\n"
    "    Stats st;\n"
    "    reset(st, in[i]);\n"
    "    for (uint k = 1; k < 6; k++) {\n"
    "        float x = in[(i + k) % 64];\n"
    "        add4(a, float4(x, 1.0f, -x, 2.0f));\n"
    "        push(st, x);\n"
    "    }\n"
    "    out[4 * i] = a.x + a.y * 2.0f + a.z * 4.0f + a.w * 8.0f;\n"
    "    out[4 * i + 1] = st.sum + st.sq * 0.5f;\n"
    "    out[4 * i + 2] = float(st.n);\n"
    "    out[4 * i + 3] = st.range.y - st.range.x;\n"
    "}\n";

static void aggregate_ref(const float *in, uint32_t i, float out[4])
{
    float a[4] = {in[i], in[i], in[i], in[i]};
    float sum = in[i], sq = in[i] * in[i], lo = in[i], hi = in[i];
    int n = 1;
    for (uint32_t k = 1; k < 6; k++) {
        float x = in[(i + k) % 64];
        const float v[4] = {x, 1.0f, -x, 2.0f};
        for (int c = 0; c < 4; c++)
            a[c] += v[c] * 0.5f;
        a[3] = maxf(a[3], v[0]);
        float t = a[0];
        a[0] = a[1], a[1] = t;
        sum += x, sq += x * x, n++;
        lo = x < lo ? x : lo;
        hi = maxf(hi, x);
    }
    out[0] = a[0] + a[1] * 2.0f + a[2] * 4.0f + a[3] * 8.0f;
    out[1] = sum + sq * 0.5f;
    out[2] = (float)n;
    out[3] = hi - lo;
}

static void test_vector_and_struct_accumulators(void **state)
{
    (void)state;
    check(aggregate_src, false, aggregate_ref);
}

/* Two helpers in a chain, one reaching a member of the object it was given, and a helper
 * taking `thread const T&` of a local; a member function called through the reference. */
static const char *chain_src =
    "struct Acc {\n"
    "    float sum; float m; float2 p;\n"
    "    void add(float x) { sum += x; m = max(m, x); }\n"
    "    float result() const { return sum + m; }\n"
    "};\n"
    "void inner(thread float2 &p, float x) { p.x += x; p.y = max(p.y, x); }\n"
    "void outer(thread float2 &p, float x) { inner(p, x); inner(p, -0.5f * x); }\n"
    "void feed(thread Acc &a, float x) { a.add(x); a.add(2.0f * x); outer(a.p, x); }\n"
    "float finish(thread const Acc &a) { return a.result() + a.p.x; }\n"
    KERNEL_HEAD
    "    float2 p = float2(0.0f, -100.0f);\n"
    "    Acc acc = {0.0f, -100.0f, float2(1.0f, 0.0f)};\n"
    "    for (uint k = 0; k < i % 7; k++) {\n"
    "        outer(p, in[k]);\n"
    "        feed(acc, in[k + 1]);\n"
    "    }\n"
    "    out[4 * i] = p.x;\n"
    "    out[4 * i + 1] = p.y;\n"
    "    out[4 * i + 2] = finish(acc);\n"
    "    out[4 * i + 3] = acc.p.y;\n"
    "}\n";

static void chain_ref(const float *in, uint32_t i, float out[4])
{
    float px = 0.0f, py = -100.0f, sum = 0.0f, m = -100.0f, ax = 1.0f, ay = 0.0f;
    for (uint32_t k = 0; k < i % 7; k++) {
        float x = in[k], y = in[k + 1];
        px += x, py = maxf(py, x);
        px += -0.5f * x, py = maxf(py, -0.5f * x);
        sum += y, m = maxf(m, y);
        sum += 2.0f * y, m = maxf(m, 2.0f * y);
        ax += y, ay = maxf(ay, y);
        ax += -0.5f * y, ay = maxf(ay, -0.5f * y);
    }
    out[0] = px, out[1] = py, out[2] = sum + m + ax, out[3] = ay;
}

static void test_chains_and_member_functions(void **state)
{
    (void)state;
    check(chain_src, false, chain_ref);
}

/* An array member indexed through the reference: constant indexes, and a counter of a loop
 * the helper unrolls, stay in registers. */
static const char *fold_src =
    "struct Q { float v[4]; };\n"
    "void fill(thread Q &q, float x) { for (int k = 0; k < 4; k++) q.v[k] = x * float(k); }\n"
    "void bump(thread Q &q) { q.v[0] += 1.0f; q.v[3] -= 1.0f; }\n"
    KERNEL_HEAD
    "    Q q;\n"
    "    fill(q, in[i]);\n"
    "    bump(q);\n"
    "    for (int k = 0; k < 4; k++) out[4 * i + k] = q.v[k];\n"
    "}\n";

static void fold_ref(const float *in, uint32_t i, float out[4])
{
    for (int k = 0; k < 4; k++)
        out[k] = in[i] * (float)k;
    out[0] += 1.0f, out[3] -= 1.0f;
}

static void test_constant_indexes(void **state)
{
    (void)state;
    check(fold_src, false, fold_ref);
}

/* Device and threadgroup references are memory anyway, as before; a value given to a
 * `thread const T&` is a temporary in registers, as before. */
static const char *spaces_src =
    "void tg_add(threadgroup float &t, float x) { t += x; }\n"
    "void dev_add(device float &d, float x) { d += x; }\n"
    "float twice(thread const float &x) { return x * 2.0f; }\n"
    "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]], uint l [[thread_index_in_threadgroup]]) {\n"
    "    threadgroup float t[32];\n"
    "    t[l] = in[i];\n"
    "    tg_add(t[l], 1.0f);\n"
    "    out[4 * i] = twice(t[l] + 0.5f);\n"
    "    out[4 * i + 1] = in[i];\n"
    "    float v = in[i];\n"
    "    dev_add(out[4 * i + 1], twice(v));\n"
    "}\n";

static void spaces_ref(const float *in, uint32_t i, float out[4])
{
    out[0] = (in[i] + 1.0f + 0.5f) * 2.0f;
    out[1] = in[i] + in[i] * 2.0f;
}

static void test_other_spaces_and_temporaries(void **state)
{
    (void)state;
    check(spaces_src, false, spaces_ref);
}

/* ---- llama.cpp's dequantize_q4_0 ------------------------------------------------------------ */

/* As ggml-metal writes it: a float4x4 filled by a helper through `thread float4x4 &reg`,
 * indexed by the counter of the loop it unrolls; the kernel reads the matrix back. */
static const char *q4_src =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "typedef struct { half d; uchar qs[16]; } block_q4_0;\n"
    "void dequantize_q4_0(device const block_q4_0 *xb, short il, thread float4x4 &reg) {\n"
    "    device const ushort *qs = ((device const ushort *)xb + 1);\n"
    "    const float d1 = il ? (xb->d / 16.h) : xb->d;\n"
    "    const float d2 = d1 / 256.f;\n"
    "    const float md = -8.h * xb->d;\n"
    "    const ushort mask0 = il ? 0x00F0 : 0x000F;\n"
    "    const ushort mask1 = mask0 << 8;\n"
    "    for (int i = 0; i < 8; i++) {\n"
    "        reg[i/2][2*(i%2) + 0] = d1 * (qs[i] & mask0) + md;\n"
    "        reg[i/2][2*(i%2) + 1] = d2 * (qs[i] & mask1) + md;\n"
    "    }\n"
    "}\n"
    "kernel void k(device const block_q4_0 *src [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "    for (short il = 0; il < 2; il++) {\n"
    "        float4x4 reg;\n"
    "        dequantize_q4_0(src + i, il, reg);\n"
    "        for (int r = 0; r < 4; r++)\n"
    "            for (int c = 0; c < 4; c++)\n"
    "                out[i * 32 + il * 16 + r * 4 + c] = reg[r][c];\n"
    "    }\n"
    "}\n";

static void test_dequantize_q4_0(void **state)
{
    (void)state;
    /* scales exact in half, so d / 16 and -8 * d are exact too */
    static const uint16_t d_bits[8] = {0x3800, 0x3400, 0x3E00, 0x4000,
                                       0x3000, 0x4200, 0x3A00, 0x3C00};
    static const float d_vals[8] = {0.5f, 0.25f, 1.5f, 2.0f, 0.125f, 3.0f, 0.75f, 1.0f};
    enum { BLOCKS = 32, BLOCK = 18 };
    Harness h;
    ch_init(&h, q4_src, NULL);
    CH_EXPECT(h.prog, h.prog->stack_bytes == 0);
    CH_EXPECT(h.prog, !ch_has(h.prog, ISA_OP_ST_STACK) && !ch_has(h.prog, ISA_OP_LD_STACK));
    uint8_t *src = ch_buf(&h, 0, BLOCKS * BLOCK);
    float *out = ch_buf(&h, 1, BLOCKS * 32 * 4);
    for (uint32_t b = 0; b < BLOCKS; b++) {
        src[b * BLOCK] = (uint8_t)(d_bits[b % 8] & 0xFF);
        src[b * BLOCK + 1] = (uint8_t)(d_bits[b % 8] >> 8);
        for (uint32_t j = 0; j < 16; j++)
            src[b * BLOCK + 2 + j] = (uint8_t)((b * 29u + j * 53u + 7u) & 0xFF);
    }
    ch_run(&h, BLOCKS, 32);
    for (uint32_t b = 0; b < BLOCKS; b++) {
        const uint8_t *qb = src + b * BLOCK + 2;
        const float d = d_vals[b % 8];
        for (int il = 0; il < 2; il++) {
            const float d1 = il ? d / 16.0f : d, d2 = d1 / 256.0f, md = -8.0f * d;
            const uint32_t mask0 = il ? 0x00F0u : 0x000Fu, mask1 = mask0 << 8;
            float reg[4][4];
            for (int k = 0; k < 8; k++) {
                const uint32_t q = (uint32_t)qb[2 * k] | (uint32_t)qb[2 * k + 1] << 8;
                reg[k / 2][2 * (k % 2)] = d1 * (float)(q & mask0) + md;
                reg[k / 2][2 * (k % 2) + 1] = d2 * (float)(q & mask1) + md;
            }
            for (int e = 0; e < 16; e++)
                CH_FEQ(out[b * 32 + (uint32_t)il * 16 + (uint32_t)e], reg[e / 4][e % 4],
                       b * 32 + (uint32_t)il * 16 + (uint32_t)e);
        }
    }
    h_free(&h);
}

/* ---- what goes to memory ---------------------------------------------------------------------- */

/* Each helper needs the object at an address; the kernel around it is the same. */
#define MEMORY_KERNEL(helpers, after)                                         \
    "struct Q { float v[4]; float first() const { thread const float *p = &v[0]; " \
    "return p[1]; } };\n"                                                      \
    helpers                                                                   \
    KERNEL_HEAD                                                               \
    "    float s = in[i];\n"                                                  \
    "    Q q = {{in[i], 1.0f, 2.0f, 3.0f}};\n"                                \
    "    f(s, q, int(i % 4), in[(i + 1) % 64]);\n"                            \
    "    out[4 * i] = s;\n"                                                   \
    "    for (int k = 1; k < 4; k++) out[4 * i + k] = q.v[k];\n"              \
    "}\n" after

static const char *const memory_srcs[] = {
    /* the address kept in a pointer */
    MEMORY_KERNEL("void f(thread float &a, thread Q &q, int k, float x) {\n"
                  "    thread float *p = &a; *p += x; q.v[1] += x; }\n", ""),
    /* an array member decaying to a pointer, with pointer arithmetic */
    MEMORY_KERNEL("void f(thread float &a, thread Q &q, int k, float x) {\n"
                  "    thread float *p = q.v; p[1] += x; *(p + 3) = a; a += x; }\n", ""),
    /* an index known only at run time */
    MEMORY_KERNEL("void f(thread float &a, thread Q &q, int k, float x) {\n"
                  "    q.v[k] += x; a += q.v[k]; }\n", ""),
    /* given to a pointer parameter */
    MEMORY_KERNEL("void g(thread float *p, float x) { *p += x; p[0] *= 2.0f; }\n"
                  "void f(thread float &a, thread Q &q, int k, float x) {\n"
                  "    g(&a, x); g(&q.v[1], x); }\n", ""),
    /* given on to a reference parameter that needs memory itself */
    MEMORY_KERNEL("void g(thread float &b, float x) { thread float *p = &b; *p += x; }\n"
                  "void f(thread float &a, thread Q &q, int k, float x) {\n"
                  "    g(a, x); g(q.v[1], x); }\n", ""),
    /* the same, the helper defined after the kernel: found in a later round */
    MEMORY_KERNEL("void g(thread float &b, float x);\n"
                  "void f(thread float &a, thread Q &q, int k, float x) {\n"
                  "    g(a, x); g(q.v[1], x); }\n",
                  "void g(thread float &b, float x) { thread float *p = &b; *p += x; }\n"),
    /* a member function that takes an address inside its object */
    MEMORY_KERNEL("void f(thread float &a, thread Q &q, int k, float x) {\n"
                  "    thread float &b = a; b += x; q.v[1] += q.first(); }\n", ""),
};

/* What every memory_srcs kernel computes: s + x, and v[1] + x (v[1] doubled when through
 * g's pointer); the variants differ only where noted. */
static int memory_case;

static void memory_ref(const float *in, uint32_t i, float out[4])
{
    const float x = in[(i + 1) % 64];
    float s = in[i], v[4] = {in[i], 1.0f, 2.0f, 3.0f};
    switch (memory_case) {
    case 0: s += x, v[1] += x; break;
    case 1: v[1] += x, v[3] = s, s += x; break;
    case 2: v[i % 4] += x, s += v[i % 4]; break;
    case 3: s = (s + x) * 2.0f, v[1] = (v[1] + x) * 2.0f; break;
    case 4: case 5: s += x, v[1] += x; break;
    default: s += x, v[1] += v[1]; break;
    }
    out[0] = s, out[1] = v[1], out[2] = v[2], out[3] = v[3];
}

static void test_addresses_keep_memory(void **state)
{
    (void)state;
    for (memory_case = 0; memory_case < (int)(sizeof memory_srcs / sizeof *memory_srcs);
         memory_case++)
        check(memory_srcs[memory_case], true, memory_ref);
}

/* A member function indexing an array of vectors at run time through `this` (codegen
 * selects only among scalars): the object goes to memory, called on a local or through a
 * reference; both were refused ("an array in registers cannot be indexed by a variable"). */
static const char *method_index_src =
    "struct S { float2 v[4]; float2 get(int k) const { return v[k]; } };\n"
    "float2 pick(thread const S &s, int k) { return s.get(k); }\n"
    KERNEL_HEAD
    "    S s, t;\n"
    "    for (int j = 0; j < 4; j++) { s.v[j] = float2(float(j), in[i]); t.v[j] = -s.v[j]; }\n"
    "    float2 a = s.get(int(i % 4)), b = pick(t, int(i % 3));\n"
    "    out[4 * i] = a.x; out[4 * i + 1] = a.y; out[4 * i + 2] = b.x; out[4 * i + 3] = b.y;\n"
    "}\n";

static void method_index_ref(const float *in, uint32_t i, float out[4])
{
    out[0] = (float)(i % 4), out[1] = in[i];
    out[2] = -(float)(i % 3), out[3] = -in[i];
}

static void test_method_indexing_vectors(void **state)
{
    (void)state;
    check(method_index_src, true, method_index_ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalar_accumulator),
        cmocka_unit_test(test_vector_and_struct_accumulators),
        cmocka_unit_test(test_chains_and_member_functions),
        cmocka_unit_test(test_constant_indexes),
        cmocka_unit_test(test_other_spaces_and_temporaries),
        cmocka_unit_test(test_dequantize_q4_0),
        cmocka_unit_test(test_addresses_keep_memory),
        cmocka_unit_test(test_method_indexing_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
