/*
 * test_codegen.c — code generation through the whole pipeline: the shape of the emitted
 * exec-mask code (if/else, loops, break, continue) and kernels run on the simulator against
 * values computed by C code here.
 */
#include "test_util.h"

#include "../sim/sim_harness.h"
#include "../../lang/lang.h"
#include "../../lang/lang_internal.h"
#include "../../lang/codegen.h"

static IsaProgram *compile(const char *src, const LangOptions *opts)
{
    UtilError err = {{0}};
    IsaProgram *p = lang_compile_source(src, "k.metal", opts, NULL, &err);
    if (!p) {
        print_error("source:\n%s\ncompiler: %s\n", src, err.message);
        fail_msg("compilation failed");
    }
    return p;
}

static int count_op(const IsaProgram *p, IsaOpcode op)
{
    int n = 0;
    for (uint32_t i = 0; i < p->count; i++)
        n += p->code[i].op == op;
    return n;
}

static int find_op(const IsaProgram *p, IsaOpcode op, int from)
{
    for (uint32_t i = (uint32_t)from; i < p->count; i++)
        if (p->code[i].op == op)
            return (int)i;
    return -1;
}

/* Runs a compiled kernel with n threads in groups of tg; buffers are bound in order. */
typedef struct Run {
    Harness h;
} Run;

static void run_init(Run *r, const char *src, const LangOptions *opts)
{
    memset(&r->h, 0, sizeof r->h);
    r->h.dev = mem_device_new();
    r->h.prog = compile(src, opts);
}

static void *run_buf(Run *r, uint32_t arg, uint64_t bytes)
{
    char name[16];
    snprintf(name, sizeof name, "b%u", arg);
    MemSpace sp = r->h.prog->args[arg].kind == ISA_ARG_CONSTANT ? MEM_SPACE_CONSTANT : MEM_SPACE_DEVICE;
    return h_buffer(&r->h, arg, name, bytes, sp);
}

/* ---- shapes ----------------------------------------------------------------------------- */

static void test_if_else_shape(void **state)
{
    (void)state;
    IsaProgram *p = compile("kernel void k(device int* o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
                            "  if (i < 4u) o[i] = 1; else o[i] = 2;\n}\n", NULL);
    int a = find_op(p, ISA_OP_IF_ICMP, 0);
    assert_true(a >= 0);
    assert_int_equal(p->code[a].cond, ISA_COND_ULT);
    int b = find_op(p, ISA_OP_ELSE_ICMP, a);
    assert_true(b > a);
    int c = find_op(p, ISA_OP_POP_EXEC, b);
    assert_true(c > b);
    assert_int_equal(p->code[c].opd[0].imm, 1);
    assert_int_equal(count_op(p, ISA_OP_IF_ICMP), 1);
    isa_program_free(p);
}

static void test_loop_shape(void **state)
{
    (void)state;
    IsaProgram *p = compile("kernel void k(device int* o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
                            "  int s = 0;\n"
                            "  for (uint j = 0; j < i; j++) { if (j == 5u) break; s += j; }\n"
                            "  o[i] = s;\n}\n", NULL);
    int push = find_op(p, ISA_OP_PUSH_EXEC, 0);
    assert_true(push >= 0);
    assert_int_equal(p->code[push].opd[0].imm, 2);
    int w = find_op(p, ISA_OP_WHILE_ICMP, push);
    assert_true(w > push);
    /* the break: mov16 r0l, 3 (2 for the loop + 1 for the if), then pop_exec 0 */
    int m = find_op(p, ISA_OP_MOV16, push);
    assert_true(m > push);
    assert_int_equal(p->code[m].opd[0].kind, ISA_OPD_R16);
    assert_int_equal(p->code[m].opd[0].index, 0);
    assert_int_equal(p->code[m].opd[1].imm, 3);
    assert_int_equal(p->code[m + 1].op, ISA_OP_POP_EXEC);
    assert_int_equal(p->code[m + 1].opd[0].imm, 0);
    int any = find_op(p, ISA_OP_JMP_EXEC_ANY, m);
    assert_true(any > m);
    int pop = find_op(p, ISA_OP_POP_EXEC, any);
    assert_int_equal(p->code[pop].opd[0].imm, 2);
    isa_program_free(p);
}

/* ---- execution ------------------------------------------------------------------------------ */

static void test_exec_arith_and_control(void **state)
{
    (void)state;
    Run r;
    run_init(&r,
             "kernel void k(device const int* a [[buffer(0)]], device int* o [[buffer(1)]],\n"
             "              constant uint& n [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
             "  if (i >= n) return;\n"
             "  int x = a[i];\n"
             "  int s = 0;\n"
             "  for (int j = 0; j < x; j++) {\n"
             "    if (j % 3 == 1) continue;\n"
             "    if (j > 10) { if (x > 12) break; }\n"
             "    s += j;\n"
             "  }\n"
             "  short t = (short)(x * 5000);\n"
             "  switch (x & 3) { case 0: s += 100; case 1: s += 1000; break; default: s -= 7; }\n"
             "  o[i] = s + t;\n"
             "}\n", NULL);
    enum { N = 40 };
    int32_t *a = run_buf(&r, 0, N * 4);
    int32_t *o = run_buf(&r, 1, N * 4);
    uint32_t *n = run_buf(&r, 2, 4);
    *n = N - 3;
    for (int i = 0; i < N; i++) {
        a[i] = (i * 7) % 20;
        o[i] = -1;
    }
    h_run1(&r.h, N, 32);
    h_expect_no_faults(&r.h);
    for (int i = 0; i < N; i++) {
        int x = a[i], s = 0, expect;
        for (int j = 0; j < x; j++) {
            if (j % 3 == 1)
                continue;
            if (j > 10 && x > 12)
                break;
            s += j;
        }
        int16_t t = (int16_t)(x * 5000);
        switch (x & 3) {
        case 0: s += 100; /* fall through */
        case 1: s += 1000; break;
        default: s -= 7;
        }
        expect = i >= N - 3 ? -1 : s + t;
        assert_int_equal(o[i], expect);
    }
    h_free(&r.h);
}

static void test_exec_vectors_structs(void **state)
{
    (void)state;
    Run r;
    run_init(&r,
             "struct P { float2 a; int b; float c[3]; };\n"
             "float scale(float v, thread float& acc) { acc += v; return v * 2.0f; }\n"
             "kernel void k(device const P* in [[buffer(0)]], device float4* o [[buffer(1)]],\n"
             "              uint i [[thread_position_in_grid]]) {\n"
             "  P p = in[i];\n"
             "  float acc = 0.0f;\n"
             "  float4 v = float4(p.a, float(p.b), p.c[2]);\n"
             "  v.yx = v.xy;\n"
             "  v.z = scale(v.z, acc);\n"
             "  v.w += acc;\n"
             "  o[i] = v;\n"
             "}\n", NULL);
    enum { N = 8 };
    typedef struct { float a[2]; int32_t b; float c[3]; } P; /* 24 bytes, as MSL */
    P *in = run_buf(&r, 0, N * sizeof(P));
    float *o = run_buf(&r, 1, N * 16);
    for (int i = 0; i < N; i++) {
        in[i].a[0] = (float)i;
        in[i].a[1] = (float)i + 0.5f;
        in[i].b = i * 3;
        in[i].c[2] = 1.25f * (float)i;
    }
    h_run1(&r.h, N, 32);
    h_expect_no_faults(&r.h);
    for (int i = 0; i < N; i++) {
        float x = (float)i, y = (float)i + 0.5f, z = (float)(i * 3), w = 1.25f * (float)i;
        float acc = z;
        assert_true(o[i * 4 + 0] == y);
        assert_true(o[i * 4 + 1] == x);
        assert_true(o[i * 4 + 2] == z * 2.0f);
        assert_true(o[i * 4 + 3] == w + acc);
    }
    h_free(&r.h);
}

static void test_exec_simd_atomics(void **state)
{
    (void)state;
    Run r;
    run_init(&r,
             "kernel void k(device int* o [[buffer(0)]], device atomic_int* c [[buffer(1)]],\n"
             "              threadgroup int* t [[threadgroup(0)]],\n"
             "              uint i [[thread_position_in_grid]], uint l [[thread_index_in_threadgroup]]) {\n"
             "  int v = int(i);\n"
             "  int s = simd_sum(v);\n"
             "  int e = 0;\n"
             "  if (i % 2 == 0) e = simd_prefix_exclusive_sum(v);\n"
             "  t[l] = v;\n"
             "  threadgroup_barrier(mem_flags::mem_threadgroup);\n"
             "  int nb = t[(l + 1) % 32];\n"
             "  atomic_fetch_add_explicit(c, 1, memory_order_relaxed);\n"
             "  o[i] = s * 1000000 + e * 1000 + nb + simd_shuffle_xor(v, 1u) * 0;\n"
             "}\n", NULL);
    int32_t *o = run_buf(&r, 0, 64 * 4);
    int32_t *c = run_buf(&r, 1, 4);
    r.h.bind[2].tg_bytes = 32 * 4;
    h_run1(&r.h, 64, 32);
    h_expect_no_faults(&r.h);
    assert_int_equal(*c, 64);
    for (int i = 0; i < 64; i++) {
        int base = i / 32 * 32, s = 0, e = 0;
        for (int k = base; k < base + 32; k++)
            s += k;
        if (i % 2 == 0)
            for (int k = base; k < i; k += 2)
                e += k;
        int nb = base + (i - base + 1) % 32;
        assert_int_equal(o[i], s * 1000000 + e * 1000 + nb);
    }
    h_free(&r.h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_if_else_shape),
        cmocka_unit_test(test_loop_shape),
        cmocka_unit_test(test_exec_arith_and_control),
        cmocka_unit_test(test_exec_vectors_structs),
        cmocka_unit_test(test_exec_simd_atomics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
