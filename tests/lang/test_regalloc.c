/*
 * test_regalloc.c — register allocation through lang_backend on hand-built IR: no two
 * simultaneously live vregs share a register or half (checked against intervals computed
 * here), r0 is never handed out, 16-bit values pack into halves, pairs and .xN data are
 * consecutive, intervals stretch over loops, and programs needing more than 127 registers
 * spill to the stack and still compute the right values on the simulator.
 */
#include "ir_builder.h"

static LangType ty_int = {.kind = LTY_INT, .size = 4, .align = 4, .name = (char *)"int"};

/* Halves covered by operand k of a final instruction (`data` for memory data). */
static int halves_of(const IsaInst *in, int k, bool data, int *first)
{
    const IsaOperand *o = &in->opd[k];
    if (data && o->kind == ISA_OPD_R16) {
        *first = o->index;
        return in->count;
    }
    if (data) {
        *first = o->index * 2;
        return 2 * in->count;
    }
    switch (o->kind) {
    case ISA_OPD_R16: *first = o->index; return 1;
    case ISA_OPD_R32: *first = o->index * 2; return 2;
    case ISA_OPD_R64: *first = o->index * 2; return 4;
    default: return 0;
    }
}

/* For IR without device loads or spills, final instruction i is IR instruction i (labels
 * aside). Records the half each vreg operand maps to and checks that every vreg always
 * maps to the same place; returns the per-vreg first half (-1 when unused). */
static int *map_vregs(Fx *f, const IsaProgram *p)
{
    const LangIr *ir = f->ir;
    int *half = malloc(ir->num_vregs * sizeof *half);
    for (uint32_t v = 0; v < ir->num_vregs; v++)
        half[v] = -1;
    uint32_t fi = 0;
    for (uint32_t i = 0; i < ir->count; i++) {
        const LangIrInst *li = &ir->insts[i];
        if (li->label >= 0)
            continue;
        assert_true(fi < p->count);
        const IsaInst *in = &p->code[fi++];
        assert_int_equal(in->op, li->inst.op);
        bool is_mem = (isa_ops[in->op].modifiers & ISA_MOD_MEM) != 0;
        for (int k = 0; k < ISA_MAX_OPERANDS; k++) {
            const IsaOperand *o = &li->inst.opd[k];
            if (o->kind != ISA_OPD_R16 && o->kind != ISA_OPD_R32 && o->kind != ISA_OPD_R64)
                continue;
            int first;
            int n = halves_of(in, k, is_mem && k == 0, &first);
            assert_true(n > 0);
            /* each member of .xN data sits after the previous one */
            uint32_t v = o->index;
            int h = first;
            while (n > 0) {
                int w = ir->vregs[v].width == 16 ? 1 : ir->vregs[v].width == 64 ? 4 : 2;
                if (v != 0) {
                    if (half[v] >= 0 && half[v] != h)
                        fail_msg("vreg %u in half %d and in half %d", v, half[v], h);
                    half[v] = h;
                    assert_true(h >= 2); /* never r0 */
                    if (w == 2 || w == 4)
                        assert_int_equal(h % 2, 0);
                    assert_true(h + w <= 256);
                }
                h += w;
                n -= w;
                v++;
            }
        }
    }
    return half;
}

/* Intervals [first, last] reference of each vreg in IR positions (no loops). */
static void ir_intervals(Fx *f, int *lo, int *hi)
{
    const LangIr *ir = f->ir;
    for (uint32_t v = 0; v < ir->num_vregs; v++)
        lo[v] = hi[v] = -1;
    for (uint32_t i = 0; i < ir->count; i++) {
        const LangIrInst *li = &ir->insts[i];
        if (li->label >= 0)
            continue;
        for (int k = 0; k < ISA_MAX_OPERANDS; k++) {
            const IsaOperand *o = &li->inst.opd[k];
            if (o->kind != ISA_OPD_R16 && o->kind != ISA_OPD_R32 && o->kind != ISA_OPD_R64)
                continue;
            uint32_t n = 1;
            if (k == 0 && (isa_ops[li->inst.op].modifiers & ISA_MOD_MEM) && li->inst.count > 1)
                n = o->kind == ISA_OPD_R64 ? 1 : li->inst.count;
            for (uint32_t v = o->index; v < o->index + n; v++) {
                if (lo[v] < 0)
                    lo[v] = (int)i;
                hi[v] = (int)i;
            }
        }
    }
}

static void check_no_interference(Fx *f, const int *half, const int *lo, const int *hi)
{
    const LangIr *ir = f->ir;
    for (uint32_t a = 1; a < ir->num_vregs; a++) {
        for (uint32_t b = a + 1; b < ir->num_vregs; b++) {
            if (half[a] < 0 || half[b] < 0 || hi[a] < lo[b] || hi[b] < lo[a])
                continue;
            int wa = ir->vregs[a].width / 16, wb = ir->vregs[b].width / 16;
            if (half[a] < half[b] + wb && half[b] < half[a] + wa)
                fail_msg("live vregs %u and %u share half %d/%d", a, b, half[a], half[b]);
        }
    }
}

static void test_random_straight_line_no_interference(void **state)
{
    (void)state;
    for (int seed = 1; seed <= 6; seed++) {
        Fx *f = fx_new();
        uint32_t rng = (uint32_t)seed * 2654435761u;
        enum { NV = 90 };
        uint32_t v[NV];
        int width[NV];
        for (int i = 0; i < NV; i++) {
            rng = rng * 1664525u + 1013904223u;
            width[i] = (rng >> 28) % 3 == 0 ? 16 : (rng >> 28) % 3 == 1 ? 32 : 64;
            v[i] = vreg(f, width[i]);
        }
        /* define all, then random ops among same-width values; each value is stored as
         * soon as it is made, so that dead-code elimination keeps every instruction */
        for (int i = 0; i < NV; i++) {
            IsaOpcode op = width[i] == 16 ? ISA_OP_MOV16 : width[i] == 32 ? ISA_OP_MOV : ISA_OP_MOV64;
            IsaOperand d = width[i] == 16 ? R16(v[i]) : width[i] == 32 ? R32(v[i]) : R64(v[i]);
            IsaMemFormat fmt = width[i] == 16 ? ISA_FMT_H16 : ISA_FMT_B32;
            int elems = width[i] == 64 ? 2 : 1;
            ins(f, op, d, IMM((uint64_t)i), NO(), NO(), NO());
            mem(f, ISA_OP_ST_TG, fmt, elems, d, IMM(0), IMM(0));
            for (int k = 0; k < 2 && i > 4; k++) {
                rng = rng * 1664525u + 1013904223u;
                int a = (int)((rng >> 8) % (uint32_t)i), b = (int)((rng >> 16) % (uint32_t)i);
                if (width[a] != width[b] || width[a] != width[i])
                    continue;
                if (width[i] == 16)
                    ins(f, ISA_OP_FADD16, R16(v[i]), R16(v[a]), R16(v[b]), NO(), NO());
                else if (width[i] == 32)
                    ins(f, ISA_OP_IADD, R32(v[i]), R32(v[a]), R32(v[b]), NO(), NO());
                else
                    ins(f, ISA_OP_IADD64, R64(v[i]), R64(v[a]), R64(v[b]), NO(), NO());
                mem(f, ISA_OP_ST_TG, fmt, elems, d, IMM(0), IMM(0));
            }
        }
        IsaProgram *p = backend_ok(f);
        int *half = map_vregs(f, p);
        int lo[NV + 1], hi[NV + 1];
        ir_intervals(f, lo, hi);
        check_no_interference(f, half, lo, hi);
        assert_int_equal(count_op(p, ISA_OP_LD_STACK), 0);
        assert_true(p->num_regs <= 128);
        free(half);
        isa_program_free(p);
        fx_free(f);
    }
}

static void test_halves_pack(void **state)
{
    (void)state;
    Fx *f = fx_new();
    uint32_t h[6], s = vreg(f, 16);
    for (int i = 0; i < 6; i++) {
        h[i] = vreg(f, 16);
        ins(f, ISA_OP_MOV16, R16(h[i]), IMM(0x3c00), NO(), NO(), NO());
    }
    ins(f, ISA_OP_MOV16, R16(s), IMM(0), NO(), NO(), NO());
    for (int i = 0; i < 6; i++)
        ins(f, ISA_OP_FADD16, R16(s), R16(s), R16(h[i]), NO(), NO());
    mem(f, ISA_OP_ST_TG, ISA_FMT_H16, 1, R16(s), IMM(0), IMM(0));
    IsaProgram *p = backend_ok(f);
    /* seven 16-bit values live at once: r1..r4 (halves), plus r0 */
    assert_int_equal(p->num_regs, 5);
    int *half = map_vregs(f, p);
    int lo[16], hi[16];
    ir_intervals(f, lo, hi);
    check_no_interference(f, half, lo, hi);
    free(half);
    isa_program_free(p);
    fx_free(f);
}

static void test_groups_consecutive(void **state)
{
    (void)state;
    Fx *f = fx_new();
    add_device_arg(f, "a", 0);
    uint32_t pre = vreg(f, 32), q = vreg(f, 32);
    vreg(f, 32), vreg(f, 32), vreg(f, 32);
    uint32_t hh = vreg(f, 16);
    vreg(f, 16), vreg(f, 16);
    uint32_t wide = vreg(f, 64), s = vreg(f, 32);
    ins(f, ISA_OP_MOV, R32(pre), IMM(1), NO(), NO(), NO());
    mem(f, ISA_OP_LD_TG, ISA_FMT_B32, 4, R32(q), IMM(0), IMM(0));
    mem(f, ISA_OP_LD_TG, ISA_FMT_H16, 3, R16(hh), IMM(0), IMM(0));
    mem(f, ISA_OP_LD_TG, ISA_FMT_B32, 2, R64(wide), IMM(16), IMM(0));
    ins(f, ISA_OP_IADD, R32(s), R32(q + 3), R32(pre), NO(), NO());
    ins(f, ISA_OP_IADD, R32(s), R32(q + 1), R32(s), NO(), NO());
    ins(f, ISA_OP_FADD16, R16(hh + 2), R16(hh + 1), R16(hh), NO(), NO());
    ins(f, ISA_OP_IADD64, R64(wide), R64(wide), IMM(1), NO(), NO());
    mem(f, ISA_OP_ST_TG, ISA_FMT_B32, 2, R32(q + 2), IMM(0), IMM(0));
    mem(f, ISA_OP_ST_TG, ISA_FMT_B32, 1, R32(s), IMM(0), IMM(0));
    mem(f, ISA_OP_ST_TG, ISA_FMT_H16, 1, R16(hh + 2), IMM(0), IMM(0));
    mem(f, ISA_OP_ST_TG, ISA_FMT_B32, 2, R64(wide), IMM(0), IMM(0));
    IsaProgram *p = backend_ok(f);
    int *half = map_vregs(f, p); /* checks members sit consecutively in every use */
    assert_int_equal(half[q + 1], half[q] + 2);
    assert_int_equal(half[q + 3], half[q] + 6);
    assert_int_equal(half[hh + 2], half[hh] + 2);
    assert_int_equal(p->code[3].opd[0].kind, ISA_OPD_R32); /* R64 data becomes r.x2 */
    int lo[16], hi[16];
    ir_intervals(f, lo, hi);
    /* group members share their group's interval: widen before checking */
    for (uint32_t v = q; v < q + 4; v++)
        lo[v] = 1, hi[v] = 8;
    for (uint32_t v = hh; v < hh + 3; v++)
        lo[v] = 2, hi[v] = 10;
    check_no_interference(f, half, lo, hi);
    free(half);
    isa_program_free(p);
    fx_free(f);
}

/* x is live into the loop and last read early in the body; t is written after that read.
 * Around the back edge x is needed again, so t must not take x's register. Likewise y, a
 * variable read before it is written in the body, must survive the whole loop. */
static void test_loop_extends_intervals(void **state)
{
    (void)state;
    Fx *f = fx_new();
    LangVar y_var = {.name = (char *)"y", .type = &ty_int};
    uint32_t x = vreg(f, 32), i = vreg(f, 32), t = vreg(f, 32), u = vreg(f, 32),
             y = vreg_var(f, 32, &y_var), z = vreg(f, 32);
    int head = new_label(f), end = new_label(f);
    ins(f, ISA_OP_MOV, R32(x), IMM(5), NO(), NO(), NO());
    ins(f, ISA_OP_MOV, R32(i), IMM(0), NO(), NO(), NO());
    ins(f, ISA_OP_PUSH_EXEC, NUM(2), NO(), NO(), NO(), NO());
    def_label(f, head);
    ins(f, ISA_OP_MOV, R32(u), IMM(1), NO(), NO(), NO());        /* temp, before y's read */
    mem(f, ISA_OP_ST_TG, ISA_FMT_B32, 1, R32(u), IMM(0), IMM(0));
    mem(f, ISA_OP_ST_TG, ISA_FMT_B32, 1, R32(y), IMM(4), IMM(0)); /* y from last iteration */
    ins(f, ISA_OP_IADD, R32(i), R32(i), R32(x), NO(), NO());    /* last read of x */
    ins(f, ISA_OP_MOV, R32(t), IMM(9), NO(), NO(), NO());
    mem(f, ISA_OP_ST_TG, ISA_FMT_B32, 1, R32(t), IMM(8), IMM(0));
    ins(f, ISA_OP_MOV, R32(y), R32(i), NO(), NO(), NO());
    ins(f, ISA_OP_WHILE_ICMP, NUM(2), R32(i), IMM(40), NO(), NO())->cond = ISA_COND_ULT;
    ins(f, ISA_OP_JMP_EXEC_ANY, LBL(head), NO(), NO(), NO(), NO());
    def_label(f, end);
    ins(f, ISA_OP_POP_EXEC, NUM(2), NO(), NO(), NO(), NO());
    ins(f, ISA_OP_MOV, R32(z), IMM(3), NO(), NO(), NO());       /* after the loop: may reuse */
    mem(f, ISA_OP_ST_TG, ISA_FMT_B32, 1, R32(z), IMM(0), IMM(0));
    add_loop(f, head, end);
    IsaProgram *p = backend_ok(f);
    int *half = map_vregs(f, p);
    assert_int_not_equal(half[t], half[x]);
    assert_int_not_equal(half[t], half[i]);
    assert_int_not_equal(half[u], half[y]);
    assert_int_not_equal(half[t], half[y]);
    assert_int_not_equal(half[u], half[x]);
    /* the loop's values are dead after it: z reuses one of their registers */
    assert_true(half[z] == half[x] || half[z] == half[i] || half[z] == half[y] ||
                half[z] == half[t] || half[z] == half[u]);
    free(half);
    isa_program_free(p);
    fx_free(f);
}

/* 130 32-bit values and 10 64-bit ones all live at once: out[t] = t * (1 + ... + 130),
 * wide[t] = sum of (j + 1) * 0x100000001 for j < 10. */
static void test_spill_runs_correctly(void **state)
{
    (void)state;
    enum { N32 = 130, N64 = 10, THREADS = 40 };
    Fx *f = fx_new();
    add_device_arg(f, "out", 0);
    add_device_arg(f, "wide", 2);
    uint32_t tid = vreg(f, 32), v[N32], w[N64], acc = vreg(f, 32), acc64 = vreg(f, 64),
             i2 = vreg(f, 32);
    ins(f, ISA_OP_GET_SR, R32(tid), SR(ISA_SR_THREAD_POSITION_IN_GRID_X), NO(), NO(), NO());
    for (int i = 0; i < N32; i++) {
        v[i] = vreg(f, 32);
        ins(f, ISA_OP_IMUL, R32(v[i]), R32(tid), IMM((uint64_t)i + 1), NO(), NO());
    }
    for (int j = 0; j < N64; j++) {
        w[j] = vreg(f, 64);
        ins(f, ISA_OP_MOV64, R64(w[j]), IMM((uint64_t)(j + 1) * 0x100000001ull), NO(), NO(), NO());
    }
    ins(f, ISA_OP_MOV, R32(acc), IMM(0), NO(), NO(), NO());
    for (int i = 0; i < N32; i++)
        ins(f, ISA_OP_IADD, R32(acc), R32(acc), R32(v[i]), NO(), NO());
    ins(f, ISA_OP_MOV64, R64(acc64), IMM(0), NO(), NO(), NO());
    for (int j = 0; j < N64; j++)
        ins(f, ISA_OP_IADD64, R64(acc64), R64(acc64), R64(w[j]), NO(), NO());
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(acc), U64(0), R32(tid));
    ins(f, ISA_OP_SHL, R32(i2), R32(tid), IMM(1), NO(), NO());
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 2, R64(acc64), U64(2), R32(i2));
    IsaProgram *p = backend_ok(f);
    assert_true(count_op(p, ISA_OP_LD_STACK) > 0);
    assert_true(count_op(p, ISA_OP_ST_STACK) > 0);
    assert_true(p->stack_bytes >= 4);
    assert_true(p->num_regs <= 128);
    /* no register outside r1..r127 besides r0l-free code */
    Harness h;
    memset(&h, 0, sizeof h);
    h.dev = mem_device_new();
    uint32_t *out = h_buffer(&h, 0, "out", 4 * THREADS, MEM_SPACE_DEVICE);
    uint64_t *wide = h_buffer(&h, 1, "wide", 8 * THREADS, MEM_SPACE_DEVICE);
    run_prog(&h, p, THREADS, 32);
    uint64_t want64 = 0;
    for (int j = 0; j < N64; j++)
        want64 += (uint64_t)(j + 1) * 0x100000001ull;
    for (uint32_t t = 0; t < THREADS; t++) {
        uint32_t want = 0;
        for (uint32_t i = 0; i < N32; i++)
            want += t * (i + 1);
        assert_int_equal(out[t], want);
        assert_int_equal(wide[t], want64);
    }
    h_free(&h);
    fx_free(f);
}

/* Under pressure inside an if: spilled values are written back only for active lanes. */
static void test_spill_under_mask(void **state)
{
    (void)state;
    enum { NV = 135, THREADS = 32 };
    Fx *f = fx_new();
    add_device_arg(f, "out", 0);
    uint32_t tid = vreg(f, 32), v[NV], acc = vreg(f, 32);
    ins(f, ISA_OP_GET_SR, R32(tid), SR(ISA_SR_THREAD_POSITION_IN_GRID_X), NO(), NO(), NO());
    for (int i = 0; i < NV; i++) {
        v[i] = vreg(f, 32);
        ins(f, ISA_OP_IADD, R32(v[i]), R32(tid), IMM((uint64_t)i), NO(), NO());
    }
    /* odd lanes: v[i] *= 2 */
    uint32_t odd = vreg(f, 32);
    ins(f, ISA_OP_AND, R32(odd), R32(tid), IMM(1), NO(), NO());
    ins(f, ISA_OP_IF_ICMP, NUM(1), R32(odd), IMM(1), NO(), NO())->cond = ISA_COND_EQ;
    for (int i = 0; i < NV; i++)
        ins(f, ISA_OP_SHL, R32(v[i]), R32(v[i]), IMM(1), NO(), NO());
    ins(f, ISA_OP_POP_EXEC, NUM(1), NO(), NO(), NO(), NO());
    ins(f, ISA_OP_MOV, R32(acc), IMM(0), NO(), NO(), NO());
    for (int i = 0; i < NV; i++)
        ins(f, ISA_OP_IADD, R32(acc), R32(acc), R32(v[i]), NO(), NO());
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(acc), U64(0), R32(tid));
    IsaProgram *p = backend_ok(f);
    assert_true(count_op(p, ISA_OP_ST_STACK) > 0);
    Harness h;
    memset(&h, 0, sizeof h);
    h.dev = mem_device_new();
    uint32_t *out = h_buffer(&h, 0, "out", 4 * THREADS, MEM_SPACE_DEVICE);
    run_prog(&h, p, THREADS, 32);
    for (uint32_t t = 0; t < THREADS; t++) {
        uint32_t want = 0;
        for (uint32_t i = 0; i < NV; i++)
            want += (t + i) * (t & 1 ? 2u : 1u);
        assert_int_equal(out[t], want);
    }
    h_free(&h);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_straight_line_no_interference),
        cmocka_unit_test(test_halves_pack),
        cmocka_unit_test(test_groups_consecutive),
        cmocka_unit_test(test_loop_extends_intervals),
        cmocka_unit_test(test_spill_runs_correctly),
        cmocka_unit_test(test_spill_under_mask),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
