/*
 * test_int16.c — short and ushort in register halves: the shape of the code (16-bit
 * variables in rNl/rNh, loads and stores in the h16 format, conversions to 32 bits only
 * for arithmetic) and kernels run on the simulator against C reference code written here:
 * promotion to int, wrap-around on the store back, compound assignment, ++/--, shifts,
 * comparisons, vectors, memory in every address space, conversions to and from every
 * other scalar type, bitcasts, common/integer functions and SIMD-group functions.
 */
#include "../sim/sim_harness.h"

#include "../../lang/lang.h"

#define HDR "#include <metal_stdlib>\nusing namespace metal;\n"

static IsaProgram *compile(const char *src)
{
    UtilError err = {{0}};
    IsaProgram *p = lang_compile_source(src, "s.metal", NULL, NULL, &err);
    if (!p) {
        print_error("source:\n%s\n", src);
        fail_msg("compile failed: %s", err.message);
    }
    return p;
}

/* bufs[k] (sizes[k] bytes) is bound to [[buffer(k)]] and copied back after n threads ran. */
static void run(const char *src, void *const bufs[], const size_t sizes[], uint32_t nbufs,
                uint32_t n, uint32_t tg)
{
    Harness h;
    memset(&h, 0, sizeof h);
    h.dev = mem_device_new();
    h.prog = compile(src);
    for (uint32_t a = 0; a < h.prog->num_args; a++) {
        uint32_t b = (uint32_t)h.prog->args[a].binding;
        assert_true(b < nbufs);
        memcpy(h_buffer(&h, a, "b", sizes[b], MEM_SPACE_DEVICE), bufs[b], sizes[b]);
    }
    h.launch.instruction_budget = UINT64_MAX / 4;
    h_run1(&h, n, tg);
    h_expect_no_faults(&h);
    for (uint32_t a = 0; a < h.prog->num_args; a++)
        memcpy(bufs[h.prog->args[a].binding], h_data(&h, a), sizes[h.prog->args[a].binding]);
    h_free(&h);
}

static int count_op(const IsaProgram *p, IsaOpcode op)
{
    int n = 0;
    for (uint32_t i = 0; i < p->count; i++)
        n += p->code[i].op == op;
    return n;
}

/* ---- shape ------------------------------------------------------------------------------- */

static void test_ushort_local_in_a_half(void **state)
{
    (void)state;
    IsaProgram *p = compile(
        HDR "kernel void k(device ushort *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
            "    ushort a = o[i];\n"
            "    ushort b = a;\n"
            "    for (int k = 0; k < 3; k++) b = b * a + ushort(k);\n"
            "    o[i] = b;\n"
            "}\n");
    /* the variables are halves over their whole range */
    int seen = 0;
    for (uint32_t v = 0; v < p->num_vars; v++) {
        if (!strcmp(p->vars[v].name, "a") || !strcmp(p->vars[v].name, "b")) {
            assert_int_equal(p->vars[v].kind, ISA_OPD_R16);
            seen++;
        }
    }
    assert_true(seen >= 2);
    /* h16 loads and stores into halves, never the extending u16/s16 formats */
    int h16 = 0;
    for (uint32_t i = 0; i < p->count; i++) {
        const IsaInst *in = &p->code[i];
        if (in->op == ISA_OP_LD_DEV || in->op == ISA_OP_ST_DEV) {
            assert_int_equal(in->type, ISA_FMT_H16);
            assert_int_equal(in->opd[0].kind, ISA_OPD_R16);
            h16++;
        }
        assert_false((in->op == ISA_OP_LD_DEV || in->op == ISA_OP_ST_DEV) &&
                     (in->type == ISA_FMT_U16 || in->type == ISA_FMT_S16));
    }
    assert_int_equal(h16, 2);
    /* arithmetic through cvt to 32 bits and back */
    assert_true(count_op(p, ISA_OP_CVT) >= 2);
    char *text = isa_disassemble(p, false);
    assert_non_null(strstr(text, "ld_dev.h16 r"));
    assert_non_null(strstr(text, "st_dev.h16 r"));
    assert_non_null(strstr(text, "cvt.u32.u16 r"));
    assert_non_null(strstr(text, "cvt.u16.u32 r"));
    bool half_opd = strstr(text, "l,") || strstr(text, "h,") || strstr(text, "l\n") ||
                    strstr(text, "h\n");
    assert_true(half_opd);
    free(text);
    isa_program_free(p);
}

static void test_short_vector_load_is_one_op(void **state)
{
    (void)state;
    IsaProgram *p = compile(
        HDR "kernel void k(device short4 *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
            "    short4 v = o[i];\n"
            "    o[i] = v.wzyx;\n"
            "}\n");
    assert_int_equal(count_op(p, ISA_OP_LD_DEV), 1);
    for (uint32_t i = 0; i < p->count; i++)
        if (p->code[i].op == ISA_OP_LD_DEV) {
            assert_int_equal(p->code[i].type, ISA_FMT_H16);
            assert_int_equal(p->code[i].count, 4);
        }
    isa_program_free(p);
}

/* ---- execution ------------------------------------------------------------------------------- */

static const int32_t edges[] = {0, 1, -1, 2, 7, -7, 100, 255, 256, 300, 32767, -32768, 32766,
                                -32767, 16384, 12345, -12345, 65535, 40000, 181, 46341, 15};
#define NE (sizeof edges / sizeof edges[0])

enum { NOUT = 24 };

static const char *ops_src =
    "kernel void k(device const T *x [[buffer(0)]], device const T *y [[buffer(1)]],\n"
    "  device int *o [[buffer(2)]], device T *t [[buffer(3)]], uint i [[thread_position_in_grid]]) {\n"
    "    T a = x[i], b = y[i];\n"
    "    device int *r = o + i * 24;\n"
    "    device T *w = t + i * 24;\n"
    "    r[0] = a + b; r[1] = a - b; r[2] = a * b; r[3] = b ? a / b : 0; r[4] = b ? a % b : 0;\n"
    "    r[5] = a & b; r[6] = a | b; r[7] = a ^ b; r[8] = a << (b & 15); r[9] = a >> (b & 15);\n"
    "    r[10] = a < b; r[11] = a >= b; r[12] = a == b; r[13] = ~a; r[14] = -a;\n"
    "    r[15] = a > 100 ? a : b; r[16] = min(a, b); r[17] = max(a, b); r[18] = abs(a);\n"
    "    r[19] = popcount(a); r[20] = int(float(a)); r[21] = long(a) * 3; r[22] = !a;\n"
    "    switch (a) { case 300: r[23] = 1; break; case -1: r[23] = 2; break; default: r[23] = 3; }\n"
    "    w[0] = a + b; w[1] = a * b; w[2] = ~a; w[3] = a << 9;\n"
    "    T c = a; c += b; w[4] = c; c *= 3; w[5] = c; c -= 1000; w[6] = c;\n"
    "    c = a; c <<= 4; w[7] = c; c >>= 2; w[8] = c; c ^= b; w[9] = c;\n"
    "    T d = a; d++; w[10] = d; w[11] = d--; w[12] = --d; w[13] = d;\n"
    "    w[14] = T(a + 70000); w[15] = T(float(b) * 2.5f); w[16] = T(int(a) * 65537);\n"
    "    w[17] = T(long(a) << 20 | long(b)); w[18] = T(half(b & 1023)); w[19] = as_type<T>(half(1.5h));\n"
    "    w[20] = clamp(a, T(10), T(1000)); w[21] = select(a, b, a < b);\n"
    "    w[22] = T(uchar(a)); w[23] = T(char(b));\n"
    "}\n";

/* C's rules: both operands promote to int (ushort zero-extends, short sign-extends). */
static void ref_ops(bool sg, uint16_t ua, uint16_t ub, int32_t r[NOUT], uint16_t w[NOUT])
{
    int32_t a = sg ? (int16_t)ua : ua, b = sg ? (int16_t)ub : ub;
    r[0] = a + b, r[1] = a - b, r[2] = (int32_t)((uint32_t)a * (uint32_t)b);
    r[3] = b ? a / b : 0, r[4] = b ? a % b : 0;
    r[5] = a & b, r[6] = a | b, r[7] = a ^ b;
    r[8] = (int32_t)((uint32_t)a << (b & 15)), r[9] = a >> (b & 15);
    r[10] = a < b, r[11] = a >= b, r[12] = a == b, r[13] = ~a, r[14] = -a;
    r[15] = a > 100 ? a : b, r[16] = a < b ? a : b, r[17] = a < b ? b : a;
    r[18] = sg ? (uint16_t)(a < 0 ? -a : a) : a; /* abs(short) is a short; stored as int */
    if (sg)
        r[18] = (int16_t)r[18];
    r[19] = __builtin_popcount(ua);
    r[20] = a, r[21] = (int32_t)((int64_t)a * 3), r[22] = a == 0;
    r[23] = a == 300 ? 1 : (sg && a == -1) ? 2 : 3; /* a ushort promotes: never -1 */
    w[0] = (uint16_t)(a + b), w[1] = (uint16_t)((uint32_t)a * (uint32_t)b), w[2] = (uint16_t)~a;
    w[3] = (uint16_t)((uint32_t)a << 9);
    uint16_t c = (uint16_t)(a + b);
    w[4] = c;
    int32_t cc = sg ? (int16_t)c : c;
    c = (uint16_t)(cc * 3), w[5] = c;
    cc = sg ? (int16_t)c : c;
    c = (uint16_t)(cc - 1000), w[6] = c;
    c = (uint16_t)((uint32_t)a << 4), w[7] = c;
    cc = sg ? (int16_t)c : c;
    c = (uint16_t)(cc >> 2), w[8] = c;
    c = (uint16_t)(c ^ (uint16_t)b), w[9] = c;
    w[10] = (uint16_t)(a + 1), w[11] = (uint16_t)(a + 1), w[12] = (uint16_t)(a - 1);
    w[13] = (uint16_t)(a - 1);
    w[14] = (uint16_t)(a + 70000);
    float fb = (float)b * 2.5f; /* float -> short/ushort saturates (docs/numerics.md) */
    double lo = sg ? -32768 : 0, hi = sg ? 32767 : 65535;
    w[15] = (uint16_t)(int32_t)(fb < lo ? lo : fb > hi ? hi : (double)(int32_t)fb);
    w[16] = (uint16_t)((uint32_t)a * 65537u);
    w[17] = (uint16_t)((uint64_t)(int64_t)a << 20 | (uint64_t)(int64_t)b);
    w[18] = (uint16_t)(b & 1023); /* exact in half */
    w[19] = 0x3e00;               /* the bits of half 1.5 */
    int32_t cl = a < 10 ? 10 : a;
    w[20] = (uint16_t)(cl > 1000 ? 1000 : cl);
    w[21] = (uint16_t)(a < b ? b : a);
    w[22] = (uint16_t)(uint8_t)a;
    w[23] = (uint16_t)(int8_t)b;
}

static void check_ops(const char *type, bool sg)
{
    enum { N = NE * NE };
    static uint16_t x[N], y[N], t[N * NOUT];
    static int32_t o[N * NOUT];
    uint32_t n = 0;
    for (uint32_t i = 0; i < NE; i++)
        for (uint32_t j = 0; j < NE; j++, n++)
            x[n] = (uint16_t)edges[i], y[n] = (uint16_t)edges[j];
    memset(o, 0xaa, sizeof o);
    memset(t, 0xaa, sizeof t);
    char src[4096];
    snprintf(src, sizeof src, HDR "typedef %s T;\n%s", type, ops_src);
    void *bufs[] = {x, y, o, t};
    size_t sizes[] = {sizeof x, sizeof y, sizeof o, sizeof t};
    run(src, bufs, sizes, 4, N, 64);
    for (uint32_t i = 0; i < N; i++) {
        int32_t wr[NOUT];
        uint16_t ww[NOUT];
        ref_ops(sg, x[i], y[i], wr, ww);
        for (int k = 0; k < NOUT; k++) {
            if (o[i * NOUT + k] != wr[k])
                fail_msg("%s r[%d]: a=%#x b=%#x: expected %d, got %d", type, k, x[i], y[i], wr[k],
                         o[i * NOUT + k]);
            if (t[i * NOUT + k] != ww[k])
                fail_msg("%s w[%d]: a=%#x b=%#x: expected %#x, got %#x", type, k, x[i], y[i],
                         ww[k], t[i * NOUT + k]);
        }
    }
}

static void test_short_ops(void **state)
{
    (void)state;
    check_ops("short", true);
}

static void test_ushort_ops(void **state)
{
    (void)state;
    check_ops("ushort", false);
}

/* Threadgroup and thread (stack) memory, structs with short members, short vectors and a
 * ushort built-in index. */
static void test_memory_and_aggregates(void **state)
{
    (void)state;
    enum { N = 64 };
    uint16_t in[N * 4], out[N * 8];
    for (int i = 0; i < N * 4; i++)
        in[i] = (uint16_t)(i * 2654435761u >> 7);
    memset(out, 0xaa, sizeof out);
    void *bufs[] = {in, out};
    size_t sizes[] = {sizeof in, sizeof out};
    run(HDR "struct P { short a; ushort b; float f; short2 c; };\n"
            "kernel void k(device const short4 *in [[buffer(0)]], device ushort *out [[buffer(1)]],\n"
            "  ushort lane [[thread_index_in_threadgroup]], uint i [[thread_position_in_grid]]) {\n"
            "    threadgroup ushort tg[64];\n"
            "    short4 v = in[i];\n"
            "    tg[lane] = ushort(v.x);\n"
            "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
            "    short st[4];\n"
            "    for (int k = 0; k < 4; k++) st[k] = v[k];\n"
            "    int j = int(v.y & 3);\n"
            "    P p = {v.z, ushort(v.w), 1.0f, short2(v.x, v.y)};\n"
            "    device ushort *o = out + i * 8;\n"
            "    o[0] = tg[(lane + 1) & 63];\n"
            "    o[1] = st[j];\n"
            "    o[2] = p.a + p.b;\n"
            "    o[3] = p.c.y - p.c.x;\n"
            "    o[4] = lane;\n"
            "    short4 s = v.wzyx + short4(1, 2, 3, 4);\n"
            "    o[5] = s.x; o[6] = s.w;\n"
            "    o[7] = simd_shuffle_xor(v.x, ushort(3)) + simd_sum(ushort(v.y & 7));\n"
            "}\n", bufs, sizes, 2, N, 64);
    for (uint32_t i = 0; i < N; i++) {
        const uint16_t *v = in + i * 4;
        const uint16_t *o = out + i * 8;
        uint32_t nb = (i + 1) & 63;
        assert_int_equal(o[0], in[nb * 4]);
        assert_int_equal(o[1], v[v[1] & 3]);
        assert_int_equal(o[2], (uint16_t)((int16_t)v[2] + v[3]));
        assert_int_equal(o[3], (uint16_t)((int16_t)v[1] - (int16_t)v[0]));
        assert_int_equal(o[4], i);
        assert_int_equal(o[5], (uint16_t)(v[3] + 1));
        assert_int_equal(o[6], (uint16_t)(v[0] + 4));
        uint32_t base = i / 32 * 32, sum = 0;
        for (uint32_t l = 0; l < 32; l++)
            sum += in[(base + l) * 4 + 1] & 7;
        assert_int_equal(o[7], (uint16_t)((int16_t)in[(i ^ 3) * 4] + (int32_t)sum));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ushort_local_in_a_half),
        cmocka_unit_test(test_short_vector_load_is_one_op),
        cmocka_unit_test(test_short_ops),
        cmocka_unit_test(test_ushort_ops),
        cmocka_unit_test(test_memory_and_aggregates),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
