/*
 * test_opt.c — the IR clean-ups of lang/opt.c and the element-index addressing of
 * codegen_mem.c: the shape of compiled loops (instruction counts, no copies, no byte
 * shifts, one constant load where a reload is provably redundant and two where it is
 * not), every rewrite the passes must refuse, debug info surviving on the rewritten
 * instructions, and each kernel run on the simulator against C reference values.
 */
#include <math.h>

#include "construct_harness.h"
#include "ir_builder.h"

/* The body of the innermost loop: from the target of the last jmp_exec_any to it. */
static int inner_loop(const IsaProgram *p, int *head)
{
    int j = -1;
    for (int i = ch_find(p, ISA_OP_JMP_EXEC_ANY, 0); i >= 0; i = ch_find(p, ISA_OP_JMP_EXEC_ANY, i + 1))
        if (j < 0 || (int)p->code[i].opd[0].index > (int)p->code[j].opd[0].index)
            j = i;
    assert_true(j >= 0);
    *head = p->code[j].opd[0].index;
    return j - *head + 1;
}

static void dev_setup(Harness *h)
{
    memset(h, 0, sizeof *h);
    h->dev = mem_device_new();
}

/* Register-to-register copies (not the r0l writes of break and continue) in [from, +n). */
static int copies_in(const IsaProgram *p, int from, int n)
{
    int k = 0;
    for (int i = from; i < from + n; i++) {
        const IsaInst *in = &p->code[i];
        bool mov = in->op == ISA_OP_MOV || in->op == ISA_OP_MOV16 || in->op == ISA_OP_MOV64;
        bool reg = in->opd[1].kind == ISA_OPD_R32 || in->opd[1].kind == ISA_OPD_R16 ||
                   in->opd[1].kind == ISA_OPD_R64;
        k += mov && reg && !(in->opd[0].kind == ISA_OPD_R16 && in->opd[0].index == 0);
    }
    return k;
}

static int count_in(const IsaProgram *p, IsaOpcode op, int from, int n)
{
    int k = 0;
    for (int i = from; i < from + n; i++)
        k += p->code[i].op == op;
    return k;
}

static float test_value(uint32_t i)
{
    return (float)((i * 37u + 11u) % 23u) / 8.0f - 1.25f;
}

/* ---- loops ----------------------------------------------------------------------------------- */

static const char *compute_src =
    "kernel void compute(device const float *in [[buffer(0)]],\n"
    "                    device float *out      [[buffer(1)]],\n"
    "                    constant uint &iters   [[buffer(2)]],\n"
    "                    uint i                 [[thread_position_in_grid]])\n"
    "{\n"
    "    float x = in[i], y = in[i] * 0.5f;\n"
    "    for (uint k = 0; k < iters; k++) {\n"
    "        x = fma(x, 0.9999f, 0.0001f);\n"
    "        y = fma(y, 0.9998f, 0.0002f);\n"
    "    }\n"
    "    out[i] = x + y;\n"
    "}\n";

static void test_compute_loop(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, compute_src, NULL);
    int head, n = inner_loop(h.prog, &head);
    /* ffma, ffma, iadd, while_icmp, jmp_exec_any: no copies, no reload of `iters` */
    CH_EXPECT(h.prog, n == 5);
    CH_EXPECT(h.prog, count_in(h.prog, ISA_OP_FFMA32, head, n) == 2);
    CH_EXPECT(h.prog, count_in(h.prog, ISA_OP_IADD, head, n) == 1);
    CH_EXPECT(h.prog, ch_count(h.prog, ISA_OP_LD_CONST) == 1);
    CH_EXPECT(h.prog, ch_find(h.prog, ISA_OP_LD_CONST, 0) < head);

    enum { N = 96, ITERS = 37 };
    float *in = ch_buf(&h, 0, N * 4);
    float *out = ch_buf(&h, 1, N * 4);
    uint32_t *iters = ch_buf(&h, 2, 4);
    *iters = ITERS;
    for (uint32_t i = 0; i < N; i++)
        in[i] = test_value(i);
    ch_run(&h, N, 32);
    for (uint32_t i = 0; i < N; i++) {
        float x = test_value(i), y = test_value(i) * 0.5f;
        for (int k = 0; k < ITERS; k++) {
            x = fmaf(x, 0.9999f, 0.0001f);
            y = fmaf(y, 0.9998f, 0.0002f);
        }
        CH_FEQ(out[i], x + y, i);
    }
    h_free(&h);
}

static const char *matmul_src =
    "constant uint TILE = 16;\n"
    "kernel void matmul(device const float *A [[buffer(0)]],\n"
    "                   device const float *B [[buffer(1)]],\n"
    "                   device float *C       [[buffer(2)]],\n"
    "                   constant uint &M      [[buffer(3)]],\n"
    "                   constant uint &N      [[buffer(4)]],\n"
    "                   constant uint &K      [[buffer(5)]],\n"
    "                   uint2 gid             [[thread_position_in_grid]],\n"
    "                   uint2 lid             [[thread_position_in_threadgroup]])\n"
    "{\n"
    "    threadgroup float As[TILE][TILE];\n"
    "    threadgroup float Bs[TILE][TILE];\n"
    "    uint col = gid.x, row = gid.y;\n"
    "    float acc = 0.0f;\n"
    "    for (uint t = 0; t < K; t += TILE) {\n"
    "        As[lid.y][lid.x] = A[row * K + t + lid.x];\n"
    "        Bs[lid.y][lid.x] = B[(t + lid.y) * N + col];\n"
    "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "        for (uint k = 0; k < TILE; k++)\n"
    "            acc = fma(As[lid.y][k], Bs[k][lid.x], acc);\n"   /* line 20 */
    "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    }\n"
    "    if (row < M)\n"
    "        C[row * N + col] = acc;\n"
    "}\n";

static void test_matmul_inner_loop(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, matmul_src, NULL);
    const IsaProgram *p = h.prog;
    int head, n = inner_loop(p, &head);
    /* The k loop (16 steps, constants only) is unrolled into the t loop: per step at most
     * imad, ld_tg, iadd, ld_tg, ffma (step 0 needs no add), and no exec-mask op of its own:
     * the t loop's while_icmp is the only one. */
    CH_EXPECT(p, count_in(p, ISA_OP_FFMA32, head, n) == 16);
    CH_EXPECT(p, count_in(p, ISA_OP_LD_TG, head, n) == 32);
    CH_EXPECT(p, count_in(p, ISA_OP_WHILE_ICMP, head, n) == 1);
    CH_EXPECT(p, count_in(p, ISA_OP_PUSH_EXEC, head, n) == 0);
    CH_EXPECT(p, n <= 16 * 5 + 20);
    CH_EXPECT(p, copies_in(p, head, n) == 0);
    CH_EXPECT(p, !ch_has(p, ISA_OP_ASR)); /* element indexes, never bytes shifted down */
    /* K: one load before the loop serves both reloads in it; N and M stay */
    CH_EXPECT(p, ch_count(p, ISA_OP_LD_CONST) == 4);

    /* debug info: the fused multiply-add accumulates into `acc`, at its source line */
    int f = ch_find(p, ISA_OP_FFMA32, head);
    CH_EXPECT(p, f >= 0 && f < head + n);
    assert_non_null(p->locs);
    assert_int_equal(p->locs[f].line, 20);
    uint16_t acc_reg = p->code[f].opd[0].index;
    assert_int_equal(p->code[f].opd[3].index, acc_reg);
    uint32_t pc = h_pc_of(p, (uint32_t)f);
    bool found = false;
    for (uint32_t v = 0; v < p->num_vars; v++)
        found |= !strcmp(p->vars[v].name, "acc") && p->vars[v].kind == ISA_OPD_R32 &&
                 p->vars[v].index == acc_reg && p->vars[v].pc_begin <= pc && pc < p->vars[v].pc_end;
    assert_true(found);

    enum { DM = 32, DN = 48, DK = 32 };
    float *A = ch_buf(&h, 0, DM * DK * 4);
    float *B = ch_buf(&h, 1, DK * DN * 4);
    float *C = ch_buf(&h, 2, DM * DN * 4);
    uint32_t *m = ch_buf(&h, 3, 4), *nn = ch_buf(&h, 4, 4), *k = ch_buf(&h, 5, 4);
    *m = DM - 3; /* rows past M are not stored */
    *nn = DN;
    *k = DK;
    for (uint32_t i = 0; i < DM * DK; i++)
        A[i] = test_value(i);
    for (uint32_t i = 0; i < DK * DN; i++)
        B[i] = test_value(i * 5u + 1u);
    for (uint32_t i = 0; i < DM * DN; i++)
        C[i] = -7.0f;
    h_grid(&h, false, DN, DM, 1, 16, 16, 1);
    h_run(&h);
    h_expect_no_faults(&h);
    for (uint32_t row = 0; row < DM; row++)
        for (uint32_t col = 0; col < DN; col++) {
            float acc = 0.0f;
            for (uint32_t kk = 0; kk < DK; kk++)
                acc = fmaf(A[row * DK + kk], B[kk * DN + col], acc);
            CH_FEQ(C[row * DN + col], row < DM - 3 ? acc : -7.0f, row * DN + col);
        }
    h_free(&h);
}

/* Per-lane trip counts, continue and break, and 32-, 16- and 64-bit values carried around
 * the loop: coalesced copies must keep every lane's value. */
static const char *divergent_src =
    "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "              device ulong *wide [[buffer(2)]], device half *hout [[buffer(3)]],\n"
    "              constant uint &n [[buffer(4)]], uint i [[thread_position_in_grid]])\n"
    "{\n"
    "    float x = in[i], y = 0.0f;\n"
    "    ulong w = i;\n"
    "    half h = (half)(i & 7u);\n"
    "    uint trips = (i * 7u) % n;\n"
    "    for (uint k = 0; k < trips; k++) {\n"
    "        if ((k + i) % 3u == 0u) continue;\n"
    "        x = x * 1.5f + 1.0f;\n"
    "        if (x > 100.0f) break;\n"
    "        y = y + x;\n"
    "        w = w * 3ul + (ulong)k;\n"
    "        h = h * (half)0.5 + (half)1.0;\n"
    "    }\n"
    "    out[i] = x + y;\n"
    "    wide[i] = w;\n"
    "    hout[i] = h;\n"
    "}\n";

static void test_divergent_loop(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, divergent_src, NULL);
    int head, n = inner_loop(h.prog, &head);
    CH_EXPECT(h.prog, copies_in(h.prog, head, n) == 0);

    enum { N = 128, TRIPS = 13 };
    float *in = ch_buf(&h, 0, N * 4);
    float *out = ch_buf(&h, 1, N * 4);
    uint64_t *wide = ch_buf(&h, 2, N * 8);
    uint16_t *hout = ch_buf(&h, 3, N * 2);
    uint32_t *np = ch_buf(&h, 4, 4);
    *np = TRIPS;
    for (uint32_t i = 0; i < N; i++)
        in[i] = test_value(i);
    ch_run(&h, N, 64);
    for (uint32_t i = 0; i < N; i++) {
        float x = test_value(i), y = 0.0f;
        uint64_t w = i;
        uint16_t hv = h_d2h((double)(i & 7u));
        uint32_t trips = (i * 7u) % TRIPS;
        for (uint32_t k = 0; k < trips; k++) {
            if ((k + i) % 3u == 0u)
                continue;
            x = x * 1.5f + 1.0f;
            if (x > 100.0f)
                break;
            y = y + x;
            w = w * 3u + k;
            /* h * 0.5 is exact; the add rounds once to binary16 */
            hv = h_d2h(h_f16_value(h_d2h(h_f16_value(hv) * 0.5)) + 1.0);
        }
        CH_FEQ(out[i], x + y, i);
        CH_IEQ(wide[i], w, i);
        CH_IEQ(hout[i], hv, i);
    }
    h_free(&h);
}

/* ---- constant loads ---------------------------------------------------------------------------- */

/* n is loaded inside an if (odd lanes only), after it, before the loop and in it; m inside
 * an if in the loop and after that if's else. Reuse is sound only from a load every
 * reading lane executed: the load after the if serves the loop's condition and its else
 * branch; the load in the if, and m's load in the then branch, serve nothing. */
static const char *const_src =
    "kernel void k(device uint *out [[buffer(0)]], constant uint &n [[buffer(1)]],\n"
    "              constant uint &m [[buffer(2)]], uint i [[thread_position_in_grid]])\n"
    "{\n"
    "    uint s = 0;\n"
    "    if ((i & 1u) != 0u)\n"
    "        s = n;\n"
    "    s += n * 2u;\n"
    "    uint a = 0;\n"
    "    for (uint k = 0; k < n; k++) {\n"
    "        if (k % 2u == i % 2u)\n"
    "            a += m;\n"
    "        else\n"
    "            a += n;\n"
    "        a += m;\n"
    "    }\n"
    "    out[i] = s * 1000u + a;\n"
    "}\n";

static void test_const_load_reuse(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, const_src, NULL);
    /* n: in the if, after it; m: in the then branch, after the else */
    CH_EXPECT(h.prog, ch_count(h.prog, ISA_OP_LD_CONST) == 4);
    int head, len = inner_loop(h.prog, &head);
    CH_EXPECT(h.prog, count_in(h.prog, ISA_OP_LD_CONST, head, len) == 2);

    enum { N = 64, VN = 9, VM = 5 };
    uint32_t *out = ch_buf(&h, 0, N * 4);
    uint32_t *n = ch_buf(&h, 1, 4), *m = ch_buf(&h, 2, 4);
    *n = VN;
    *m = VM;
    ch_run(&h, N, 32);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t s = (i & 1u) ? VN : 0;
        s += VN * 2u;
        uint32_t a = 0;
        for (uint32_t k = 0; k < VN; k++) {
            a += k % 2u == i % 2u ? VM : VN;
            a += VM;
        }
        CH_IEQ(out[i], s * 1000u + a, i);
    }
    h_free(&h);
}

/* A loop that no lane enters must not read the constant buffer (no hoisting), and a load
 * behind a break (r0l written) is not reused. */
static const char *const_break_src =
    "kernel void k(device uint *out [[buffer(0)]], constant uint &n [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]])\n"
    "{\n"
    "    uint a = 0;\n"
    "    for (uint k = 0; k < n; k++) {\n"
    "        if (k == i % 4u) break;\n"
    "        a += n;\n"
    "    }\n"
    "    out[i] = a + n;\n"
    "}\n";

static void test_const_load_with_break(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, const_break_src, NULL);
    enum { N = 64, VN = 3 };
    uint32_t *out = ch_buf(&h, 0, N * 4);
    uint32_t *n = ch_buf(&h, 1, 4);
    *n = VN;
    ch_run(&h, N, 32);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t a = 0;
        for (uint32_t k = 0; k < VN; k++) {
            if (k == i % 4u)
                break;
            a += VN;
        }
        CH_IEQ(out[i], a + VN, i);
    }
    h_free(&h);
}

/* ---- addressing -------------------------------------------------------------------------------- */

static const char *index_src =
    "struct S { float a; float v[3]; };\n"
    "kernel void k(device const S *s [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]], uint lid [[thread_position_in_threadgroup]])\n"
    "{\n"
    "    threadgroup float t[4][8];\n"
    "    threadgroup half th[4][8];\n"
    "    uint j = i % 3u;\n"
    "    t[lid / 8u][lid % 8u] = s[i].v[j];\n"
    "    th[lid / 8u][lid % 8u] = (half)(float)lid;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    uint r = 31u - lid;\n"
    "    out[i] = t[r / 8u][r % 8u] + (float)th[r % 4u][r / 4u] + s[i].v[j];\n"
    "}\n";

typedef struct TS {
    float a;
    float v[3];
} TS;

static void test_element_indexes(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, index_src, NULL);
    /* every two-term index is kept in elements: no byte offset shifted back down */
    CH_EXPECT(h.prog, !ch_has(h.prog, ISA_OP_ASR));
    enum { N = 64 };
    TS *s = ch_buf(&h, 0, N * sizeof(TS));
    float *out = ch_buf(&h, 1, N * 4);
    for (uint32_t i = 0; i < N; i++) {
        s[i].a = -100.0f;
        for (int k = 0; k < 3; k++)
            s[i].v[k] = test_value(i * 3u + (uint32_t)k);
    }
    ch_run(&h, N, 32);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t base = i & ~31u, lid = i & 31u, r = 31u - lid;
        uint32_t writer = base + r;                     /* wrote t[r / 8][r % 8] */
        uint32_t hl = (r % 4u) * 8u + r / 4u;           /* wrote th[r % 4][r / 4] */
        float want = s[writer].v[writer % 3u] + (float)h_f16_value(h_d2h((double)hl));
        want = want + s[i].v[i % 3u];
        CH_FEQ(out[i], want, i);
    }
    h_free(&h);
}

/* ---- the passes on hand-built IR -------------------------------------------------------------- */

static LangVar var_x = {.name = (char *)"x"};

/* Runs lang_opt over a copy of the IR; returns the surviving instructions. */
static LangIrInst *opt_ir(Fx *f, uint32_t *n)
{
    LangIrInst *w = lang_alloc(&f->ctx, (f->ir->count + 1) * sizeof *w);
    memcpy(w, f->ir->insts, f->ir->count * sizeof *w);
    if (setjmp(f->ctx.bail) != 0)
        fail_msg("lang_opt failed: %s", f->err.message);
    *n = lang_opt(&f->ctx, f->ir, w, f->ir->count);
    return w;
}

static void test_fold_forms(void **state)
{
    (void)state;
    Fx *f = fx_new();
    uint32_t a = vreg_var(f, 32, &var_x);
    ins(f, ISA_OP_GET_SR, R32(a), SR(ISA_SR_THREAD_POSITION_IN_GRID_X), NO(), NO(), NO());
    struct { IsaOpcode op; IsaOperand b, c; IsaOpcode want; } forms[] = {
        {ISA_OP_IMAD, IMM(1), IMM(0), ISA_OP_MOV},
        {ISA_OP_IMAD, IMM(1), R32(a), ISA_OP_IADD},
        {ISA_OP_IMAD, IMM(6), IMM(0), ISA_OP_IMUL},
        {ISA_OP_IMAD, IMM(6), IMM(2), ISA_OP_IMAD},
        {ISA_OP_IMUL, IMM(1), NO(), ISA_OP_MOV},
        {ISA_OP_IMUL, IMM(2), NO(), ISA_OP_IMUL},
        {ISA_OP_IADD, IMM(0), NO(), ISA_OP_MOV},
        {ISA_OP_ISUB, IMM(0), NO(), ISA_OP_MOV},
        {ISA_OP_OR, IMM(0), NO(), ISA_OP_MOV},
        {ISA_OP_XOR, IMM(0), NO(), ISA_OP_MOV},
        {ISA_OP_AND, IMM(0xffffffffu), NO(), ISA_OP_MOV},
        {ISA_OP_AND, IMM(0xfffffffeu), NO(), ISA_OP_AND},
        {ISA_OP_SHL, IMM(0), NO(), ISA_OP_MOV},
        {ISA_OP_LSR, IMM(32), NO(), ISA_OP_MOV}, /* the amount is taken & 31 */
        {ISA_OP_ASR, IMM(2), NO(), ISA_OP_ASR},
        {ISA_OP_UDIV, IMM(8), NO(), ISA_OP_LSR},
        {ISA_OP_UDIV, IMM(1), NO(), ISA_OP_MOV},
        {ISA_OP_UDIV, IMM(6), NO(), ISA_OP_UDIV},
        {ISA_OP_UREM, IMM(16), NO(), ISA_OP_AND},
        {ISA_OP_UREM, IMM(1), NO(), ISA_OP_AND},
        {ISA_OP_UREM, IMM(0), NO(), ISA_OP_UREM}, /* a % 0 is a: no mask gives that */
    };
    enum { NF = sizeof forms / sizeof forms[0] };
    uint32_t d[NF];
    for (int i = 0; i < NF; i++) {
        d[i] = vreg_var(f, 32, &var_x); /* variables: never coalesced away */
        ins(f, forms[i].op, R32(d[i]), R32(a), forms[i].b, forms[i].c, NO());
    }
    add_device_arg(f, "out", 0);
    for (int i = 0; i < NF; i++) {
        uint32_t idx = vreg_var(f, 32, &var_x);
        ins(f, ISA_OP_IMAD, R32(idx), R32(a), IMM(NF), IMM((uint32_t)i), NO());
        mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(d[i]), U64(0), R32(idx));
    }
    uint32_t n;
    LangIrInst *w = opt_ir(f, &n);
    for (int i = 0; i < NF; i++) {
        const IsaInst *in = &w[1 + i].inst;
        if (in->op != forms[i].want)
            fail_msg("form %d: got %s, want %s", i, isa_ops[in->op].name, isa_ops[forms[i].want].name);
        assert_int_equal(in->opd[0].index, d[i]);
    }

    /* and the folded program computes what the forms say */
    IsaProgram *p = backend_ok(f);
    Harness h;
    dev_setup(&h);
    uint32_t *out = h_buffer(&h, 0, "out", 32 * NF * 4, MEM_SPACE_DEVICE);
    run_prog(&h, p, 32, 32);
    for (uint32_t t = 0; t < 32; t++) {
        uint32_t want[NF] = {t, t + t, t * 6, t * 6 + 2, t, t * 2, t, t, t, t, t,
                             t & 0xfffffffeu, t, t, (uint32_t)((int32_t)t >> 2),
                             t / 8, t, t / 6, t % 16, 0, t};
        for (int i = 0; i < NF; i++)
            CH_IEQ(out[t * NF + (uint32_t)i], want[i], t * NF + (uint32_t)i);
    }
    h_free(&h);
    fx_free(f);
}

/* `OP t; mov v, t` and `mov t, v; OP t` around every kind of obstacle. */
static void test_coalesce_refusals(void **state)
{
    (void)state;
    enum { OK, LABEL, LOAD, READS_V, TWO_USES, VAR_TEMP, SHUFFLE, EXEC, BACK_OK, BACK_WRITE_V,
           BACK_STORE, CASES };
    static const int want_movs[CASES] = {0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1};
    for (int c = 0; c < CASES; c++) {
        Fx *f = fx_new();
        add_device_arg(f, "out", 0);
        uint32_t a = vreg_var(f, 32, &var_x), v = vreg_var(f, 32, &var_x);
        uint32_t t = c == VAR_TEMP ? vreg_var(f, 32, &var_x) : vreg(f, 32);
        uint32_t u = vreg(f, 32);
        ins(f, ISA_OP_GET_SR, R32(a), SR(ISA_SR_THREAD_POSITION_IN_GRID_X), NO(), NO(), NO());
        ins(f, ISA_OP_MOV, R32(v), IMM(7), NO(), NO(), NO());
        if (c < BACK_OK) {
            if (c == LOAD)
                mem(f, ISA_OP_LD_DEV, ISA_FMT_B32, 1, R32(t), U64(0), R32(a));
            else if (c == SHUFFLE)
                ins(f, ISA_OP_SHFL_XOR, R32(t), R32(a), IMM(1), NO(), NO());
            else
                ins(f, ISA_OP_IADD, R32(t), R32(a), IMM(3), NO(), NO());
            if (c == LABEL)
                def_label(f, new_label(f));
            if (c == READS_V)
                ins(f, ISA_OP_IADD, R32(u), R32(v), IMM(1), NO(), NO());
            if (c == EXEC)
                ins(f, ISA_OP_PUSH_EXEC, NUM(1), NO(), NO(), NO(), NO());
            ins(f, ISA_OP_MOV, R32(v), R32(t), NO(), NO(), NO());
            if (c == EXEC)
                ins(f, ISA_OP_POP_EXEC, NUM(1), NO(), NO(), NO(), NO());
            if (c == TWO_USES)
                ins(f, ISA_OP_IADD, R32(u), R32(t), IMM(1), NO(), NO());
            if (c != READS_V && c != TWO_USES)
                ins(f, ISA_OP_MOV, R32(u), IMM(0), NO(), NO(), NO());
        } else {
            ins(f, ISA_OP_MOV, R32(t), R32(v), NO(), NO(), NO());
            if (c == BACK_WRITE_V)
                ins(f, ISA_OP_IADD, R32(v), R32(a), IMM(1), NO(), NO());
            if (c == BACK_STORE) {
                mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(t), U64(0), R32(a));
                ins(f, ISA_OP_MOV, R32(u), IMM(0), NO(), NO(), NO());
            } else {
                ins(f, ISA_OP_IADD, R32(u), R32(t), IMM(5), NO(), NO());
            }
        }
        uint32_t idx = vreg(f, 32);
        ins(f, ISA_OP_IMUL, R32(idx), R32(a), IMM(2), NO(), NO());
        mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(v), U64(0), R32(idx));
        uint32_t idx1 = vreg(f, 32);
        ins(f, ISA_OP_IADD, R32(idx1), R32(idx), IMM(1), NO(), NO());
        mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(u), U64(0), R32(idx1));

        uint32_t n;
        LangIrInst *w = opt_ir(f, &n);
        /* the `mov v, 7` (and `mov u, 0`) are constants, not copies: count register moves */
        int movs = 0;
        for (uint32_t i = 0; i < n; i++)
            movs += w[i].label < 0 && w[i].inst.op == ISA_OP_MOV && w[i].inst.opd[1].kind == ISA_OPD_R32;
        if (movs != want_movs[c])
            fail_msg("case %d: %d register moves left, want %d", c, movs, want_movs[c]);

        IsaProgram *p = backend_ok(f);
        Harness h;
        dev_setup(&h);
        uint32_t *out = h_buffer(&h, 0, "out", 64 * 4, MEM_SPACE_DEVICE);
        run_prog(&h, p, 32, 32);
        for (uint32_t l = 0; l < 32; l++) {
            uint32_t wv, wu;
            switch (c) {
            case SHUFFLE: wv = l ^ 1u, wu = 0; break;
            case READS_V: wv = l + 3, wu = 8; break;
            case TWO_USES: wv = l + 3, wu = l + 4; break;
            case BACK_OK: wv = 7, wu = 12; break;
            case BACK_WRITE_V: wv = l + 1, wu = 12; break;
            case BACK_STORE: wv = 7, wu = 0; break;
            case LOAD: wv = 0, wu = 0; break; /* read (and waited for) before any store */
            default: wv = l + 3, wu = 0; break;
            }
            CH_IEQ(out[2 * l], wv, l);
            CH_IEQ(out[2 * l + 1], wu, l);
        }
        h_free(&h);
        fx_free(f);
    }
}

/* Constant-load reuse on hand-built exec-mask code: lanes that skipped the first load
 * (an if's pop, an else, a while that wakes lanes up, a jump past it) must load again. */
static void test_const_reuse_refusals(void **state)
{
    (void)state;
    enum { POP, ELSE, WHILE, JUMP, REUSE, CASES, K = 0x1234 };
    for (int c = 0; c < CASES; c++) {
        Fx *f = fx_new();
        add_device_arg(f, "out", 0);
        f->ir->args[f->ir->num_args++] = (IsaArg){.name = (char *)"n", .kind = ISA_ARG_CONSTANT,
                                                  .uniform = 2, .binding = 1, .elem_size = 4};
        uint32_t a = vreg(f, 32), odd = vreg(f, 32), t0 = vreg(f, 32), t1 = vreg(f, 32);
        ins(f, ISA_OP_GET_SR, R32(a), SR(ISA_SR_THREAD_POSITION_IN_GRID_X), NO(), NO(), NO());
        ins(f, ISA_OP_AND, R32(odd), R32(a), IMM(1), NO(), NO());
        int l = new_label(f);
        if (c == JUMP)
            ins(f, ISA_OP_JMP, LBL(l), NO(), NO(), NO(), NO());
        if (c == REUSE)
            mem(f, ISA_OP_LD_CONST, ISA_FMT_B32, 1, R32(t0), U64(2), IMM(0));
        if (c != JUMP)
            ins(f, ISA_OP_IF_ICMP, NUM(1), R32(odd), IMM(0), NO(), NO())->cond = ISA_COND_NE;
        if (c != REUSE)
            mem(f, ISA_OP_LD_CONST, ISA_FMT_B32, 1, R32(t0), U64(2), IMM(0));
        if (c == POP)
            ins(f, ISA_OP_POP_EXEC, NUM(1), NO(), NO(), NO(), NO());
        if (c == ELSE)
            ins(f, ISA_OP_ELSE_ICMP, NUM(1), IMM(0), IMM(0), NO(), NO())->cond = ISA_COND_EQ;
        if (c == WHILE) /* lanes at 1 (the if's sleepers) wake up */
            ins(f, ISA_OP_WHILE_ICMP, NUM(2), IMM(0), IMM(0), NO(), NO())->cond = ISA_COND_EQ;
        def_label(f, l);
        mem(f, ISA_OP_LD_CONST, ISA_FMT_B32, 1, R32(t1), U64(2), IMM(0));
        mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(t1), U64(0), R32(a));
        if (c == ELSE || c == WHILE || c == REUSE)
            ins(f, ISA_OP_POP_EXEC, NUM(1), NO(), NO(), NO(), NO());

        uint32_t n;
        LangIrInst *w = opt_ir(f, &n);
        int loads = 0;
        for (uint32_t i = 0; i < n; i++)
            loads += w[i].label < 0 && w[i].inst.op == ISA_OP_LD_CONST;
        if (loads != (c == REUSE ? 1 : 2))
            fail_msg("case %d: %d constant loads left", c, loads);

        IsaProgram *p = backend_ok(f);
        Harness h;
        dev_setup(&h);
        uint32_t *out = h_buffer(&h, 0, "out", 32 * 4, MEM_SPACE_DEVICE);
        *(uint32_t *)h_buffer(&h, 1, "n", 4, MEM_SPACE_CONSTANT) = K;
        run_prog(&h, p, 32, 32);
        for (uint32_t lane = 0; lane < 32; lane++) {
            bool stored = c == ELSE ? !(lane & 1) : c == REUSE ? (lane & 1) : true;
            CH_IEQ(out[lane], stored ? K : 0, lane);
        }
        h_free(&h);
        fx_free(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compute_loop),
        cmocka_unit_test(test_matmul_inner_loop),
        cmocka_unit_test(test_divergent_loop),
        cmocka_unit_test(test_const_load_reuse),
        cmocka_unit_test(test_const_load_with_break),
        cmocka_unit_test(test_element_indexes),
        cmocka_unit_test(test_fold_forms),
        cmocka_unit_test(test_coalesce_refusals),
        cmocka_unit_test(test_const_reuse_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
