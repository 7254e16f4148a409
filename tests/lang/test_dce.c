/*
 * test_dce.c — dead-code elimination (lang/dce.c): dead values (a local nothing reads, the
 * unused member of a returned struct, a dead loop-carried value, dead 64-bit, half and
 * SIMD-group computations, a dead load) leave no instruction, while what the results need
 * stays; checked on the compiled programs' opcodes and by running each kernel against C
 * reference values, so an instruction removed while still needed (a value a lane keeps
 * through an if, around a loop's back edge, in the other half of a register or pair) shows
 * as a wrong result. Hand-built IR covers partial writes exactly. The debug table of
 * optimized-out variables (IsaProgram.gone) is checked here too.
 */
#include <math.h>

#include "construct_harness.h"
#include "ir_builder.h"
#include "../../util/fp.h"

static float value_of(uint32_t i)
{
    return (float)((i * 29u + 7u) % 41u) / 16.0f - 1.0f;
}

static bool has_gone(const IsaProgram *p, const char *name)
{
    for (uint32_t i = 0; i < p->num_gone; i++)
        if (!strcmp(p->gone[i].name, name))
            return true;
    return false;
}

static bool has_var(const IsaProgram *p, const char *name)
{
    for (uint32_t i = 0; i < p->num_vars; i++)
        if (!strcmp(p->vars[i].name, name))
            return true;
    return false;
}

/* Instructions `op` with an immediate operand of value imm. */
static int count_with_imm(const IsaProgram *p, IsaOpcode op, uint64_t imm)
{
    int n = 0;
    for (uint32_t i = 0; i < p->count; i++)
        for (int k = 1; p->code[i].op == op && k < ISA_MAX_OPERANDS; k++)
            n += p->code[i].opd[k].kind == ISA_OPD_IMM && p->code[i].opd[k].imm == imm;
    return n;
}

/* ---- the example: an unused local and an unused struct member ------------------- */

static const char *struct_src =
    "struct P { float a; float b; };\n"
    "P make(float x) { P p; p.a = x * 2.0f; p.b = sqrt(x) + exp(x); return p; }\n"
    "kernel void k(device float *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
    "    uint unused = i * 7u + 3u;\n"
    "    P p = make(float(i));\n"
    "    out[i] = p.a;\n"
    "}\n";

static void test_unused_local_and_member(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, struct_src, NULL);
    const IsaProgram *p = h.prog;
    /* unused = i * 7 + 3 and p.b = sqrt(x) + exp(x) (exp2, rint, ffma ...) are gone */
    CH_EXPECT(p, !ch_has(p, ISA_OP_IMUL) && !ch_has(p, ISA_OP_IADD) && !ch_has(p, ISA_OP_IMAD));
    CH_EXPECT(p, !ch_has(p, ISA_OP_SQRT32) && !ch_has(p, ISA_OP_EXP232));
    CH_EXPECT(p, !ch_has(p, ISA_OP_RINT32) && !ch_has(p, ISA_OP_FFMA32));
    CH_EXPECT(p, !ch_has(p, ISA_OP_FCMPSEL32));
    /* p.a = x * 2 and its store stay: get_sr, cvt, fmul, (a copy), st_dev, stop */
    CH_EXPECT(p, ch_count(p, ISA_OP_FMUL32) == 1 && ch_count(p, ISA_OP_ST_DEV) == 1);
    CH_EXPECT(p, ch_count(p, ISA_OP_CVT) == 1 && ch_count(p, ISA_OP_GET_SR) == 1);
    CH_EXPECT(p, p->count <= 6);
    /* the debugger's table: gone everywhere, so printed as optimized out */
    assert_true(has_gone(p, "unused"));
    assert_true(has_gone(p, "p.b"));
    assert_false(has_gone(p, "p.a"));
    assert_false(has_var(p, "unused"));
    assert_false(has_var(p, "p.b"));
    assert_true(has_var(p, "p.a"));

    enum { N = 80 };
    float *out = ch_buf(&h, 0, N * 4);
    ch_run(&h, N, 32);
    for (uint32_t i = 0; i < N; i++)
        CH_FEQ(out[i], (float)i * 2.0f, i);
    h_free(&h);
}

/* ---- loops: carried values, a value live around the back edge only ------------------------ */

static const char *loop_src =
    "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "              constant uint &n [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
    "    float acc = 0.0f, prev = 0.0f, cur = 1.0f, waste = 0.0f;\n"
    "    for (uint k = 0; k < n; k++) {\n"
    "        acc = acc * 0.5f + prev;\n"        /* prev: last iteration's cur */
    "        prev = cur;\n"
    "        cur = in[(i + k) % 64u];\n"
    "        waste = waste * 3.0f + sqrt(cur);\n" /* carried, but never read after the loop */
    "        float tmp = cur * cur;\n"            /* dead in every iteration */
    "    }\n"
    "    out[i] = acc + cur;\n"
    "}\n";

static void test_loop_carried(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, loop_src, NULL);
    const IsaProgram *p = h.prog;
    CH_EXPECT(p, ch_has(p, ISA_OP_JMP_EXEC_ANY));
    CH_EXPECT(p, !ch_has(p, ISA_OP_SQRT32));
    /* acc * 0.5 + prev is one fmul and one fadd (or an ffma); cur * cur and waste * 3 are gone */
    CH_EXPECT(p, ch_count(p, ISA_OP_FMUL32) + ch_count(p, ISA_OP_FFMA32) == 1);

    enum { N = 96, ITERS = 9 };
    float *in = ch_buf(&h, 0, 64 * 4);
    float *out = ch_buf(&h, 1, N * 4);
    uint32_t *n = ch_buf(&h, 2, 4);
    *n = ITERS;
    for (uint32_t i = 0; i < 64; i++)
        in[i] = value_of(i);
    ch_run(&h, N, 32);
    for (uint32_t i = 0; i < N; i++) {
        float acc = 0.0f, prev = 0.0f, cur = 1.0f;
        for (uint32_t k = 0; k < ITERS; k++) {
            acc = acc * 0.5f + prev;
            prev = cur;
            cur = value_of((i + k) % 64u);
        }
        CH_FEQ(out[i], acc + cur, i);
    }
    h_free(&h);
}

/* ---- divergence: a value some lanes overwrite and the others keep ------------------------- */

static const char *branch_src =
    "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "    float v = in[i];\n"
    "    float x = v * 2.0f;\n"                 /* lanes with v <= 0 keep this one */
    "    float y = v + 5.0f;\n"
    "    if (v > 0.0f) {\n"
    "        x = v + 1.0f;\n"
    "        float t = exp(v);\n"               /* dead, under the mask */
    "    } else {\n"
    "        x = x - 0.25f;\n"                  /* reads the first x */
    "    }\n"
    "    y = x * 3.0f;\n"
    "    uint j = i;\n"
    "    for (uint k = 0; k < 4u + (i & 3u); k++) {\n"   /* lanes leave at different times */
    "        if (k == 2u) continue;\n"
    "        j = j * 3u + k;\n"
    "    }\n"
    "    out[i] = y + float(j & 255u);\n"
    "}\n";

static void test_divergent_partial_writes(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, branch_src, NULL);
    const IsaProgram *p = h.prog;
    CH_EXPECT(p, !ch_has(p, ISA_OP_EXP232) && !ch_has(p, ISA_OP_RINT32));

    enum { N = 96 };
    float *in = ch_buf(&h, 0, N * 4);
    float *out = ch_buf(&h, 1, N * 4);
    for (uint32_t i = 0; i < N; i++)
        in[i] = value_of(i);
    ch_run(&h, N, 32);
    for (uint32_t i = 0; i < N; i++) {
        float v = value_of(i), x = v * 2.0f;
        if (v > 0.0f)
            x = v + 1.0f;
        else
            x = x - 0.25f;
        float y = x * 3.0f;
        uint32_t j = i;
        for (uint32_t k = 0; k < 4u + (i & 3u); k++) {
            if (k == 2u)
                continue;
            j = j * 3u + k;
        }
        CH_FEQ(out[i], y + (float)(j & 255u), i);
    }
    h_free(&h);
}

/* ---- 64-bit values in register pairs, halves, vector components -------------------------- */

static const char *wide_src =
    "kernel void k(device const uint *in [[buffer(0)]], device ulong *out64 [[buffer(1)]],\n"
    "              device half *outh [[buffer(2)]], device uint *out32 [[buffer(3)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "    ulong a = ulong(in[i]) * 0x100000001ul + 7ul;\n"
    "    ulong dead64 = a * a / 3ul;\n"
    "    ulong b = a;\n"
    "    b = (b & 0xffffffff00000000ul) | ulong(in[i] ^ 0x55u);\n"
    "    out64[i] = b + (a >> 3);\n"
    "    half h = half(float(in[i] & 63u) * 0.25f);\n"
    "    half hd = h * h + h;\n"                     /* dead half */
    "    half2 hv = half2(h, h + 1.0h);\n"
    "    hv.x = h * 2.0h;\n"                          /* overwrites one half only */
    "    outh[i] = hv.x + hv.y;\n"
    "    uint4 u = uint4(in[i], in[i] + 1u, in[i] + 2u, in[i] + 3u);\n"
    "    u.y = 9u;\n"
    "    uint4 du = u * 5u;\n"                        /* dead vector */
    "    out32[i] = u.x + u.y * 2u + u.z * 3u + u.w * 4u;\n"
    "}\n";

static void test_wide_and_narrow_values(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, wide_src, NULL);
    const IsaProgram *p = h.prog;
    CH_EXPECT(p, !ch_has(p, ISA_OP_UDIV64));      /* a * a / 3 */
    CH_EXPECT(p, ch_count(p, ISA_OP_IMUL64) <= 1); /* a * 0x100000001 only, not a * a */
    CH_EXPECT(p, !ch_has(p, ISA_OP_FFMA16));     /* h * h + h */
    CH_EXPECT(p, count_with_imm(p, ISA_OP_IMUL, 5) == 0);  /* u * 5 */

    enum { N = 64 };
    uint32_t *in = ch_buf(&h, 0, N * 4);
    uint64_t *out64 = ch_buf(&h, 1, N * 8);
    uint16_t *outh = ch_buf(&h, 2, N * 2);
    uint32_t *out32 = ch_buf(&h, 3, N * 4);
    for (uint32_t i = 0; i < N; i++)
        in[i] = i * 2654435761u;
    ch_run(&h, N, 32);
    for (uint32_t i = 0; i < N; i++) {
        uint64_t a = (uint64_t)in[i] * 0x100000001ull + 7u;
        uint64_t b = (a & 0xffffffff00000000ull) | (uint64_t)(in[i] ^ 0x55u);
        CH_IEQ(out64[i], b + (a >> 3), i);
        /* halves: all values are exact in binary16 (multiples of 0.25 below 64) */
        float hf = (float)(in[i] & 63u) * 0.25f;
        float want = hf * 2.0f + (hf + 1.0f);
        CH_FEQ(util_f16_to_f32(outh[i]), want, i);
        uint32_t x = in[i];
        CH_IEQ(out32[i], (uint32_t)(x + 9u * 2u + (x + 2u) * 3u + (x + 3u) * 4u), i);
    }
    h_free(&h);
}

/* ---- SIMD-group functions, loads, atomics, thread memory ------------------------------------ */

static const char *simd_src =
    "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "              device atomic_uint *count [[buffer(2)]],\n"
    "              uint i [[thread_position_in_grid]], uint lane [[thread_index_in_simdgroup]]) {\n"
    "    float v = in[i];\n"
    "    float far = in[i + 100000u];\n"              /* dead: never loaded, never faults */
    "    float s = simd_shuffle(v, (lane + 1u) & 31u);\n"
    "    float dead = simd_shuffle_xor(v, 3u) + simd_sum(v);\n"
    "    atomic_fetch_add_explicit(count, 1u, memory_order_relaxed);\n" /* result unused */
    "    float w[4];\n"
    "    for (uint k = 0; k < 4u; k++) w[(k + i) & 3u] = v + float(k);\n"
    "    out[i] = s + w[i & 3u];\n"
    "}\n";

static void test_simd_loads_atomics(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, simd_src, NULL);
    const IsaProgram *p = h.prog;
    CH_EXPECT(p, ch_count(p, ISA_OP_SHFL) == 1);
    CH_EXPECT(p, !ch_has(p, ISA_OP_SHFL_XOR) && !ch_has(p, ISA_OP_SIMD_RED));
    CH_EXPECT(p, ch_count(p, ISA_OP_LD_DEV) == 1);
    CH_EXPECT(p, ch_count(p, ISA_OP_ATOM_DEV) == 1);

    enum { N = 96 };
    float *in = ch_buf(&h, 0, N * 4);
    float *out = ch_buf(&h, 1, N * 4);
    uint32_t *count = ch_buf(&h, 2, 4);
    for (uint32_t i = 0; i < N; i++)
        in[i] = value_of(i);
    ch_run(&h, N, 32); /* no fault: the load past the end went with its value */
    for (uint32_t i = 0; i < N; i++) {
        uint32_t src = (i & ~31u) | (((i & 31u) + 1u) & 31u);
        /* w[(k + i) & 3] = v + k, read at i & 3: k = 0 */
        CH_FEQ(out[i], value_of(src) + value_of(i), i);
    }
    CH_IEQ(*count, N, 0);
    h_free(&h);
}

/* ---- hand-built IR: partial writes keep the full write before them ----------------------- */

static void test_partial_writes_ir(void **state)
{
    (void)state;
    Fx *f = fx_new();
    add_device_arg(f, "a", 0);
    uint32_t w32 = vreg(f, 32), w64 = vreg(f, 64), full = vreg(f, 32), gone = vreg(f, 32),
             h16 = vreg(f, 16);
    ins(f, ISA_OP_MOV, R32(w32), IMM(0x11112222), NO(), NO(), NO());
    ins(f, ISA_OP_MOV16, R16(w32), IMM(0x3333), NO(), NO(), NO());    /* low half only */
    ins(f, ISA_OP_MOV64, R64(w64), IMM(0x4444444455555555ull), NO(), NO(), NO());
    ins(f, ISA_OP_MOV, R32(w64), IMM(0x66666666), NO(), NO(), NO());  /* low register only */
    ins(f, ISA_OP_MOV, R32(full), IMM(1), NO(), NO(), NO());          /* overwritten: dead */
    ins(f, ISA_OP_MOV, R32(full), IMM(0x77777777), NO(), NO(), NO());
    ins(f, ISA_OP_IMUL, R32(gone), R32(full), IMM(3), NO(), NO());    /* never read: dead */
    ins(f, ISA_OP_MOV16, R16(h16), IMM(0x1234), NO(), NO(), NO());    /* dead: overwritten */
    ins(f, ISA_OP_MOV16, R16(h16), IMM(0x4321), NO(), NO(), NO());
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(w32), U64(0), IMM(0));
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 2, R64(w64), U64(0), IMM(1));
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(full), U64(0), IMM(3));
    mem(f, ISA_OP_ST_DEV, ISA_FMT_H16, 1, R16(h16), U64(0), IMM(8));
    IsaProgram *p = backend_ok(f);
    assert_int_equal(count_op(p, ISA_OP_IMUL), 0);
    assert_int_equal(count_op(p, ISA_OP_MOV), 3);   /* w32, w64's low register, `full` */
    assert_int_equal(count_op(p, ISA_OP_MOV16), 2); /* w32's low half and h16 */
    assert_int_equal(count_op(p, ISA_OP_MOV64), 1);
    assert_int_equal(p->count, 11);                  /* 6 moves, 4 stores, stop */
    Harness h = {0};
    h.dev = mem_device_new();
    uint32_t *a = h_buffer(&h, 0, "a", 64, MEM_SPACE_DEVICE);
    run_prog(&h, p, 1, 1);
    assert_int_equal(a[0], 0x11113333u);
    assert_int_equal(a[1], 0x66666666u);
    assert_int_equal(a[2], 0x44444444u);
    assert_int_equal(a[3], 0x77777777u);
    assert_int_equal(a[4] & 0xffffu, 0x4321u);
    h_free(&h);
    fx_free(f);
}

/* A full write in one block does not end a value the lanes it does not run still hold. */
static void test_masked_write_keeps_earlier_ir(void **state)
{
    (void)state;
    Fx *f = fx_new();
    add_device_arg(f, "a", 0);
    uint32_t tid = vreg(f, 32), x = vreg(f, 32);
    ins(f, ISA_OP_GET_SR, R32(tid), SR(ISA_SR_THREAD_POSITION_IN_GRID_X), NO(), NO(), NO());
    ins(f, ISA_OP_MOV, R32(x), IMM(5), NO(), NO(), NO());
    ins(f, ISA_OP_IF_ICMP, NUM(1), R32(tid), IMM(2), NO(), NO())->cond = ISA_COND_ULT;
    ins(f, ISA_OP_MOV, R32(x), IMM(9), NO(), NO(), NO()); /* no skip: one path, two masks */
    ins(f, ISA_OP_POP_EXEC, NUM(1), NO(), NO(), NO(), NO());
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(x), U64(0), R32(tid));
    IsaProgram *p = backend_ok(f);
    assert_int_equal(count_op(p, ISA_OP_MOV), 2);
    Harness h = {0};
    h.dev = mem_device_new();
    uint32_t *a = h_buffer(&h, 0, "a", 16, MEM_SPACE_DEVICE);
    run_prog(&h, p, 4, 4);
    for (uint32_t i = 0; i < 4; i++)
        CH_IEQ(a[i], i < 2 ? 9 : 5, i);
    h_free(&h);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unused_local_and_member),
        cmocka_unit_test(test_loop_carried),
        cmocka_unit_test(test_divergent_partial_writes),
        cmocka_unit_test(test_wide_and_narrow_values),
        cmocka_unit_test(test_simd_loads_atomics),
        cmocka_unit_test(test_partial_writes_ir),
        cmocka_unit_test(test_masked_write_keeps_earlier_ir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
