/*
 * test_backend.c — the compiler backend on hand-built IR: where waits go (first use, writes,
 * labels, barriers, stop, the 8-per-slot cap), which loads move up and which stay, the
 * optional jmp_exec_none threshold, debug variable ranges, internal-error reporting, and
 * hand-built programs run on the simulator against values computed here in C.
 */
#include "ir_builder.h"

static void h_setup(Harness *h)
{
    memset(h, 0, sizeof *h);
    h->dev = mem_device_new();
}

static LangType ty_float = {.kind = LTY_FLOAT, .size = 4, .align = 4, .name = (char *)"float"};
static LangType ty_float2 = {.kind = LTY_VECTOR, .size = 8, .align = 8, .base = &ty_float,
                             .len = 2, .name = (char *)"float2"};

/* ---- waits ------------------------------------------------------------------------------------ */

static void test_wait_before_first_read(void **state)
{
    (void)state;
    Fx *f = fx_new();
    add_device_arg(f, "a", 0);
    uint32_t tid = vreg(f, 32), x = vreg(f, 32), y = vreg(f, 32), z = vreg(f, 32);
    ins(f, ISA_OP_GET_SR, R32(tid), SR(ISA_SR_THREAD_POSITION_IN_GRID_X), NO(), NO(), NO());
    mem(f, ISA_OP_LD_DEV, ISA_FMT_B32, 1, R32(x), U64(0), R32(tid));
    ins(f, ISA_OP_IADD, R32(y), R32(tid), IMM(5), NO(), NO());
    ins(f, ISA_OP_FADD32, R32(z), R32(x), IMM(0x3f800000), NO(), NO());
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(z), U64(0), R32(tid));
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(y), U64(0), R32(tid));
    IsaProgram *p = backend_ok(f);
    const IsaOpcode want[] = {ISA_OP_GET_SR, ISA_OP_LD_DEV, ISA_OP_IADD, ISA_OP_WAIT,
                              ISA_OP_FADD32, ISA_OP_ST_DEV, ISA_OP_ST_DEV, ISA_OP_STOP};
    assert_int_equal(p->count, 8);
    for (int i = 0; i < 8; i++)
        assert_int_equal(p->code[i].op, want[i]);
    assert_int_equal(p->code[3].opd[0].kind, ISA_OPD_NUM);
    assert_int_equal(p->code[3].opd[0].imm, 0);
    /* the load's register is what fadd reads */
    assert_int_equal(p->code[1].opd[0].index, p->code[4].opd[1].index);
    isa_program_free(p);
    fx_free(f);
}

static void test_wait_before_overwrite(void **state)
{
    (void)state;
    Fx *f = fx_new();
    add_device_arg(f, "a", 0);
    uint32_t tid = vreg(f, 32), x = vreg(f, 32);
    ins(f, ISA_OP_GET_SR, R32(tid), SR(ISA_SR_THREAD_POSITION_IN_GRID_X), NO(), NO(), NO());
    mem(f, ISA_OP_LD_DEV, ISA_FMT_B32, 1, R32(x), U64(0), R32(tid));
    /* the low half only: the store reads the loaded high half, so the load is not dead */
    ins(f, ISA_OP_MOV16, R16(x), IMM(7), NO(), NO(), NO());
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(x), U64(0), R32(tid));
    IsaProgram *p = backend_ok(f);
    int mov = find_op(p, ISA_OP_MOV16, 0);
    assert_true(mov > 0);
    assert_int_equal(p->code[mov - 1].op, ISA_OP_WAIT);
    assert_int_equal(count_op(p, ISA_OP_WAIT), 1);
    isa_program_free(p);
    fx_free(f);
}

static void test_waits_at_barrier_label_stop(void **state)
{
    (void)state;
    Fx *f = fx_new();
    add_device_arg(f, "a", 0);
    uint32_t tid = vreg(f, 32), a = vreg(f, 32), b = vreg(f, 32), c = vreg(f, 32),
             t = vreg(f, 32), d = vreg(f, 32);
    int skip = new_label(f);
    ins(f, ISA_OP_GET_SR, R32(tid), SR(ISA_SR_THREAD_POSITION_IN_GRID_X), NO(), NO(), NO());
    mem(f, ISA_OP_LD_DEV, ISA_FMT_B32, 1, R32(a), U64(0), R32(tid));
    ins(f, ISA_OP_BARRIER, NO(), NO(), NO(), NO(), NO());
    mem(f, ISA_OP_LD_DEV, ISA_FMT_B32, 1, R32(b), U64(0), IMM(1));
    ins(f, ISA_OP_IF_ICMP, NUM(1), R32(tid), IMM(3), NO(), NO())->cond = ISA_COND_EQ;
    ins(f, ISA_OP_JMP_EXEC_NONE, LBL(skip), NO(), NO(), NO(), NO());
    ins(f, ISA_OP_IADD, R32(t), R32(tid), IMM(1), NO(), NO());
    def_label(f, skip);
    ins(f, ISA_OP_POP_EXEC, NUM(1), NO(), NO(), NO(), NO());
    ins(f, ISA_OP_IADD, R32(c), R32(a), R32(b), NO(), NO());
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(c), U64(0), R32(t));
    /* d is read only past the stop (a live load: dead-code elimination keeps it) */
    int past = new_label(f);
    mem(f, ISA_OP_LD_DEV, ISA_FMT_B32, 1, R32(d), U64(0), IMM(2));
    ins(f, ISA_OP_JMP_EXEC_NONE, LBL(past), NO(), NO(), NO(), NO());
    ins(f, ISA_OP_STOP, NO(), NO(), NO(), NO(), NO());
    def_label(f, past);
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(d), U64(0), IMM(3));
    IsaProgram *p = backend_ok(f);
    int bar = find_op(p, ISA_OP_BARRIER, 0);
    assert_true(bar > 0);
    assert_int_equal(p->code[bar - 1].op, ISA_OP_WAIT);
    int j = find_op(p, ISA_OP_JMP_EXEC_NONE, 0);
    assert_true(j >= 0);
    uint32_t target = p->code[j].opd[0].index;
    assert_int_equal(p->code[target].op, ISA_OP_WAIT);       /* the label waits ... */
    assert_int_equal(p->code[target + 1].op, ISA_OP_POP_EXEC);
    assert_int_equal(p->code[j].opd[0].imm, p->code[target].pc);
    int stop = find_op(p, ISA_OP_STOP, 0);
    assert_true(stop > 0);
    assert_int_equal(p->code[stop - 1].op, ISA_OP_WAIT);       /* ... and so does stop */
    assert_int_equal(p->code[stop + 1].op, ISA_OP_WAIT);       /* (and the label past it) */
    assert_int_equal(p->code[stop + 2].op, ISA_OP_ST_DEV);
    assert_int_equal(count_op(p, ISA_OP_WAIT), 4);
    isa_program_free(p);
    fx_free(f);
}

static void test_backward_jump_waits(void **state)
{
    (void)state;
    Fx *f = fx_new();
    add_device_arg(f, "a", 0);
    uint32_t i = vreg(f, 32), x = vreg(f, 32);
    int head = new_label(f), end = new_label(f);
    ins(f, ISA_OP_MOV, R32(i), IMM(0), NO(), NO(), NO());
    ins(f, ISA_OP_PUSH_EXEC, NUM(2), NO(), NO(), NO(), NO());
    def_label(f, head);
    mem(f, ISA_OP_LD_DEV, ISA_FMT_B32, 1, R32(x), U64(0), R32(i)); /* read after the loop */
    ins(f, ISA_OP_IADD, R32(i), R32(i), IMM(1), NO(), NO());
    ins(f, ISA_OP_WHILE_ICMP, NUM(2), R32(i), IMM(4), NO(), NO())->cond = ISA_COND_ULT;
    ins(f, ISA_OP_JMP_EXEC_ANY, LBL(head), NO(), NO(), NO(), NO());
    def_label(f, end);
    ins(f, ISA_OP_POP_EXEC, NUM(2), NO(), NO(), NO(), NO());
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(x), U64(0), IMM(0));
    add_loop(f, head, end);
    IsaProgram *p = backend_ok(f);
    int j = find_op(p, ISA_OP_JMP_EXEC_ANY, 0);
    assert_true(j > 0);
    assert_int_equal(p->code[j - 1].op, ISA_OP_WAIT);
    isa_program_free(p);
    fx_free(f);
}

static void test_slot_cap(void **state)
{
    (void)state;
    Fx *f = fx_new();
    add_device_arg(f, "a", 0);
    uint32_t v[12];
    for (int k = 0; k < 12; k++) {
        v[k] = vreg(f, 32);
        mem(f, ISA_OP_LD_DEV, ISA_FMT_B32, 1, R32(v[k]), U64(0), IMM((uint64_t)k));
    }
    for (int k = 0; k < 12; k++)
        mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(v[k]), U64(0), IMM((uint64_t)k + 16));
    IsaProgram *p = backend_ok(f);
    int pending = 0, max_pending = 0;
    for (uint32_t i = 0; i < p->count; i++) {
        if (p->code[i].op == ISA_OP_LD_DEV)
            pending++;
        if (p->code[i].op == ISA_OP_WAIT)
            pending = 0;
        if (pending > max_pending)
            max_pending = pending;
    }
    assert_int_equal(max_pending, 8);
    /* exactly: 8 loads, wait, 4 loads, wait before the first store */
    int w = find_op(p, ISA_OP_WAIT, 0);
    assert_int_equal(w, 8);
    assert_int_equal(find_op(p, ISA_OP_WAIT, w + 1), 13);
    assert_int_equal(count_op(p, ISA_OP_WAIT), 2);
    isa_program_free(p);
    fx_free(f);
}

static void test_two_slots_pending_separately(void **state)
{
    (void)state;
    Fx *f = fx_new();
    add_device_arg(f, "a", 0);
    uint32_t v[16];
    for (int k = 0; k < 16; k++) {
        v[k] = vreg(f, 32);
        IsaInst *in = mem(f, ISA_OP_LD_DEV, ISA_FMT_B32, 1, R32(v[k]), U64(0), IMM((uint64_t)k));
        in->opd[3] = NUM((uint64_t)(k & 1));
    }
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(v[1]), U64(0), IMM(20)); /* slot 1 */
    for (int k = 0; k < 16; k++)
        if (k != 1)
            mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(v[k]), U64(0), IMM((uint64_t)k + 32));
    IsaProgram *p = backend_ok(f);
    /* 8 loads on each slot never exceed the cap; the first store waits for slot 1 only */
    int w = find_op(p, ISA_OP_WAIT, 0);
    assert_int_equal(w, 16);
    assert_int_equal(p->code[w].opd[0].imm, 1);
    assert_int_equal(p->code[w + 1].op, ISA_OP_ST_DEV);
    assert_int_equal(p->code[w + 2].op, ISA_OP_WAIT);
    assert_int_equal(p->code[w + 2].opd[0].imm, 0);
    assert_int_equal(count_op(p, ISA_OP_WAIT), 2);
    isa_program_free(p);
    fx_free(f);
}

/* ---- load scheduling ---------------------------------------------------------------------------- */

static void test_load_hoisted_to_address_def(void **state)
{
    (void)state;
    Fx *f = fx_new();
    add_device_arg(f, "a", 0);
    uint32_t tid = vreg(f, 32), t1 = vreg(f, 32), t2 = vreg(f, 32), x = vreg(f, 32),
             s = vreg(f, 32);
    ins(f, ISA_OP_GET_SR, R32(tid), SR(ISA_SR_THREAD_POSITION_IN_GRID_X), NO(), NO(), NO());
    ins(f, ISA_OP_IADD, R32(t1), R32(tid), IMM(1), NO(), NO());
    ins(f, ISA_OP_IMUL, R32(t2), R32(t1), IMM(3), NO(), NO());
    mem(f, ISA_OP_LD_DEV, ISA_FMT_B32, 1, R32(x), U64(0), R32(tid));
    ins(f, ISA_OP_IADD, R32(s), R32(x), R32(t2), NO(), NO());
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(s), U64(0), R32(tid));
    IsaProgram *p = backend_ok(f);
    const IsaOpcode want[] = {ISA_OP_GET_SR, ISA_OP_LD_DEV, ISA_OP_IADD, ISA_OP_IMUL,
                              ISA_OP_WAIT, ISA_OP_IADD, ISA_OP_ST_DEV, ISA_OP_STOP};
    assert_int_equal(p->count, 8);
    for (int i = 0; i < 8; i++)
        assert_int_equal(p->code[i].op, want[i]);
    isa_program_free(p);
    fx_free(f);
}

/* A load after `blocker` and one unrelated iadd: where does it end up? */
static int load_position(int blocker)
{
    Fx *f = fx_new();
    add_device_arg(f, "a", 0);
    uint32_t tid = vreg(f, 32), t = vreg(f, 32), x = vreg(f, 32), y = vreg(f, 32);
    ins(f, ISA_OP_GET_SR, R32(tid), SR(ISA_SR_THREAD_POSITION_IN_GRID_X), NO(), NO(), NO());
    ins(f, ISA_OP_MOV, R32(y), IMM(1), NO(), NO(), NO());
    switch (blocker) {
    case 0: ins(f, ISA_OP_IADD, R32(t), R32(tid), IMM(2), NO(), NO()); break;
    case 1: mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(y), U64(0), IMM(9)); break;
    case 2: def_label(f, new_label(f)); break;
    case 3: ins(f, ISA_OP_MOV, R32(x), IMM(3), NO(), NO(), NO()); break;        /* writes x */
    case 4: ins(f, ISA_OP_IADD, R32(t), R32(x), IMM(2), NO(), NO()); break;     /* reads x */
    case 5: ins(f, ISA_OP_BARRIER, NO(), NO(), NO(), NO(), NO()); break;
    case 6: ins(f, ISA_OP_ATOM_DEV, R32(t), U64(0), IMM(0), IMM(1), NO()); break;
    }
    ins(f, ISA_OP_IADD, R32(y), R32(y), IMM(1), NO(), NO());
    mem(f, ISA_OP_LD_DEV, ISA_FMT_B32, 1, R32(x), U64(0), R32(tid));
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(x), U64(0), R32(y));
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(t), U64(0), IMM(5)); /* t is not dead code */
    IsaProgram *p = backend_ok(f);
    int pos = find_op(p, ISA_OP_LD_DEV, 0);
    isa_program_free(p);
    fx_free(f);
    return pos;
}

static void test_load_not_hoisted_across(void **state)
{
    (void)state;
    assert_int_equal(load_position(0), 1); /* right after get_sr, its address */
    assert_int_equal(load_position(1), 3); /* not above a device store */
    assert_int_equal(load_position(2), 2); /* not above a label */
    assert_int_equal(load_position(3), 3); /* not above a write of its destination */
    assert_int_equal(load_position(4), 3); /* not above a read of its destination */
    assert_int_equal(load_position(5), 3); /* not above a barrier */
    assert_int_equal(load_position(6), 3); /* not above a device atomic */
}

/* ---- optional jmp_exec_none ---------------------------------------------------------------------- */

/* An if whose body costs `tg_loads` * 4 + `alus` units, skipped by an optional jump. */
static IsaProgram *skip_program(Fx *f, int tg_loads, int alus, bool optional)
{
    uint32_t tid = vreg(f, 32), t = vreg(f, 32);
    int skip = new_label(f);
    ins(f, ISA_OP_GET_SR, R32(tid), SR(ISA_SR_THREAD_POSITION_IN_GRID_X), NO(), NO(), NO());
    ins(f, ISA_OP_IF_ICMP, NUM(1), R32(tid), IMM(0), NO(), NO())->cond = ISA_COND_EQ;
    IsaInst *j = ins(f, ISA_OP_JMP_EXEC_NONE, LBL(skip), NO(), NO(), NO(), NO());
    if (optional)
        j->flags = LANG_IR_OPTIONAL;
    for (int i = 0; i < tg_loads; i++)
        mem(f, ISA_OP_LD_TG, ISA_FMT_B32, 1, R32(t), IMM(0), IMM(0));
    for (int i = 0; i < alus; i++)
        ins(f, ISA_OP_IADD, R32(t), R32(t), IMM(1), NO(), NO());
    def_label(f, skip);
    ins(f, ISA_OP_POP_EXEC, NUM(1), NO(), NO(), NO(), NO());
    mem(f, ISA_OP_ST_TG, ISA_FMT_B32, 1, R32(t), IMM(0), IMM(0)); /* the body is not dead */
    return backend_ok(f);
}

static void test_optional_skip_threshold(void **state)
{
    (void)state;
    Fx *f = fx_new();
    IsaProgram *p = skip_program(f, 9, 2, true); /* 38 units: kept */
    int j = find_op(p, ISA_OP_JMP_EXEC_NONE, 0);
    assert_true(j >= 0);
    assert_int_equal(p->code[j].flags & LANG_IR_OPTIONAL, 0);
    assert_int_equal(p->code[p->code[j].opd[0].index].op, ISA_OP_POP_EXEC);
    isa_program_free(p);
    fx_free(f);

    f = fx_new();
    p = skip_program(f, 9, 1, true); /* 37 units: dropped */
    assert_int_equal(count_op(p, ISA_OP_JMP_EXEC_NONE), 0);
    assert_int_equal(count_op(p, ISA_OP_LD_TG), 9);
    isa_program_free(p);
    fx_free(f);

    f = fx_new();
    p = skip_program(f, 0, 38, true); /* 38 ALU ops: kept */
    assert_int_equal(count_op(p, ISA_OP_JMP_EXEC_NONE), 1);
    isa_program_free(p);
    fx_free(f);

    f = fx_new();
    p = skip_program(f, 0, 1, false); /* not optional: always kept */
    assert_int_equal(count_op(p, ISA_OP_JMP_EXEC_NONE), 1);
    isa_program_free(p);
    fx_free(f);
}

/* ---- program shape, debug info, errors ----------------------------------------------------------- */

static void test_label_at_end_and_program_fields(void **state)
{
    (void)state;
    Fx *f = fx_new();
    add_device_arg(f, "out", 4);
    f->ir->tg_mem_bytes = 64;
    f->ir->stack_bytes = 12;
    uint32_t tid = vreg(f, 32);
    int end = new_label(f);
    ins(f, ISA_OP_GET_SR, R32(tid), SR(ISA_SR_THREAD_POSITION_IN_GRID_X), NO(), NO(), NO());
    ins(f, ISA_OP_IF_ICMP, NUM(1), R32(tid), IMM(0), NO(), NO())->cond = ISA_COND_EQ;
    ins(f, ISA_OP_JMP_EXEC_NONE, LBL(end), NO(), NO(), NO(), NO());
    ins(f, ISA_OP_STOP, NO(), NO(), NO(), NO(), NO());
    def_label(f, end);
    IsaProgram *p = backend_ok(f);
    assert_string_equal(p->name, "k");
    assert_int_equal(p->num_args, 1);
    assert_string_equal(p->args[0].name, "out");
    assert_int_equal(p->args[0].uniform, 4);
    assert_int_equal(p->tg_mem_bytes, 64);
    assert_int_equal(p->stack_bytes, 12);
    assert_int_equal(p->num_files, 1);
    assert_string_equal(p->files[0], "k.metal");
    assert_non_null(p->locs);
    int j = find_op(p, ISA_OP_JMP_EXEC_NONE, 0);
    assert_int_equal(p->code[j].opd[0].index, p->count - 1);
    assert_int_equal(p->code[p->count - 1].op, ISA_OP_STOP);
    assert_int_equal(count_op(p, ISA_OP_STOP), 2);
    assert_true(p->num_regs >= 2 && p->num_regs <= 3);
    isa_program_free(p);
    fx_free(f);
}

static void test_var_ranges(void **state)
{
    (void)state;
    Fx *f = fx_new();
    add_device_arg(f, "a", 0);
    LangVar x_var = {.name = (char *)"x", .type = &ty_float};
    LangVar v_var = {.name = (char *)"v", .type = &ty_float2};
    uint32_t tid = vreg(f, 32), x = vreg_var(f, 32, &x_var), vx = vreg_var(f, 32, &v_var),
             vy = vreg_var(f, 32, &v_var), s = vreg(f, 32);
    ins(f, ISA_OP_GET_SR, R32(tid), SR(ISA_SR_THREAD_POSITION_IN_GRID_X), NO(), NO(), NO());
    ins(f, ISA_OP_MOV, R32(x), IMM(0x40000000), NO(), NO(), NO());        /* 1 */
    ins(f, ISA_OP_FMUL32, R32(vx), R32(x), R32(x), NO(), NO());          /* 2 */
    ins(f, ISA_OP_FADD32, R32(vy), R32(x), R32(vx), NO(), NO());         /* 3 */
    ins(f, ISA_OP_FADD32, R32(s), R32(vx), R32(vy), NO(), NO());         /* 4 */
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(s), U64(0), R32(tid));
    IsaProgram *p = backend_ok(f);
    assert_int_equal(p->num_vars, 3);
    bool seen[3] = {false, false, false};
    for (uint32_t i = 0; i < p->num_vars; i++) {
        const IsaVarLoc *l = &p->vars[i];
        assert_string_equal(l->type_name, "float");
        assert_int_equal(l->kind, ISA_OPD_R32);
        int def = 0, last = 0;
        if (strcmp(l->name, "x") == 0)
            def = 1, last = 3, seen[0] = true;
        else if (strcmp(l->name, "v.x") == 0)
            def = 2, last = 4, seen[1] = true;
        else if (strcmp(l->name, "v.y") == 0)
            def = 3, last = 4, seen[2] = true;
        else
            fail_msg("unexpected variable %s", l->name);
        assert_int_equal(l->index, p->code[def].opd[0].index);
        assert_int_equal(l->pc_begin, h_pc_of(p, (uint32_t)def));
        assert_int_equal(l->pc_end, h_pc_of(p, (uint32_t)last + 1));
    }
    assert_true(seen[0] && seen[1] && seen[2]);
    isa_program_free(p);
    fx_free(f);
}

static void test_bad_ir_is_an_error(void **state)
{
    (void)state;
    Fx *f = fx_new();
    uint32_t h = vreg(f, 16);
    ins(f, ISA_OP_IADD, R32(h), IMM(1), IMM(2), NO(), NO()); /* 32-bit op on a 16-bit vreg */
    assert_null(backend(f));
    assert_non_null(strstr(f->err.message, "k.metal:1:1: error: internal compiler error"));
    fx_free(f);

    f = fx_new();
    ins(f, ISA_OP_JMP, LBL(3), NO(), NO(), NO(), NO()); /* unknown label */
    assert_null(backend(f));
    assert_non_null(strstr(f->err.message, "label"));
    fx_free(f);

    f = fx_new();
    uint32_t v = vreg(f, 32);
    mem(f, ISA_OP_LD_TG, ISA_FMT_B32, 4, R32(v), IMM(0), IMM(0)); /* x4 past the last vreg */
    assert_null(backend(f));
    fx_free(f);
}

/* ---- running hand-built IR ---------------------------------------------------------------------- */

/* out[i] = a[i] + b[i] (f32), and sums[i] = the four floats of a[4i..4i+3] read with .x4. */
static void test_run_vector_add(void **state)
{
    (void)state;
    Fx *f = fx_new();
    add_device_arg(f, "a", 0);
    add_device_arg(f, "b", 2);
    add_device_arg(f, "out", 4);
    add_device_arg(f, "sums", 6);
    uint32_t tid = vreg(f, 32), x = vreg(f, 32), y = vreg(f, 32), s = vreg(f, 32),
             i4 = vreg(f, 32), q0 = vreg(f, 32), q1 = vreg(f, 32), q2 = vreg(f, 32),
             q3 = vreg(f, 32), t0 = vreg(f, 32), t1 = vreg(f, 32), t2 = vreg(f, 32);
    ins(f, ISA_OP_GET_SR, R32(tid), SR(ISA_SR_THREAD_POSITION_IN_GRID_X), NO(), NO(), NO());
    mem(f, ISA_OP_LD_DEV, ISA_FMT_B32, 1, R32(x), U64(0), R32(tid));
    mem(f, ISA_OP_LD_DEV, ISA_FMT_B32, 1, R32(y), U64(2), R32(tid));
    ins(f, ISA_OP_FADD32, R32(s), R32(x), R32(y), NO(), NO());
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(s), U64(4), R32(tid));
    ins(f, ISA_OP_SHL, R32(i4), R32(tid), IMM(2), NO(), NO());
    mem(f, ISA_OP_LD_DEV, ISA_FMT_B32, 4, R32(q0), U64(0), R32(i4));
    (void)q1, (void)q2;
    ins(f, ISA_OP_FADD32, R32(t0), R32(q0), R32(q1), NO(), NO());
    ins(f, ISA_OP_FADD32, R32(t1), R32(t0), R32(q2), NO(), NO());
    ins(f, ISA_OP_FADD32, R32(t2), R32(t1), R32(q3), NO(), NO());
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(t2), U64(6), R32(tid));
    IsaProgram *p = backend_ok(f);
    enum { N = 64 };
    Harness h;
    h_setup(&h);
    float *a = h_buffer(&h, 0, "a", 4 * N * 4, MEM_SPACE_DEVICE);
    float *b = h_buffer(&h, 1, "b", 4 * N, MEM_SPACE_DEVICE);
    float *out = h_buffer(&h, 2, "out", 4 * N, MEM_SPACE_DEVICE);
    float *sums = h_buffer(&h, 3, "sums", 4 * N / 4, MEM_SPACE_DEVICE);
    for (int i = 0; i < 4 * N; i++)
        a[i] = (float)i * 0.5f - 3.0f;
    for (int i = 0; i < N; i++)
        b[i] = (float)(i * i) * 0.25f;
    run_prog(&h, p, N / 4, 16);
    for (int i = 0; i < N / 4; i++) {
        assert_true(out[i] == a[i] + b[i]);
        float want = ((a[4 * i] + a[4 * i + 1]) + a[4 * i + 2]) + a[4 * i + 3];
        assert_true(sums[i] == want);
    }
    h_free(&h);
    fx_free(f);
}

/* out[t] = sum of in[i] for i < t % 5: a per-lane trip count, `break` via r0l, a load in
 * the loop body and a loop-carried accumulator. */
static void test_run_loop_with_break(void **state)
{
    (void)state;
    Fx *f = fx_new();
    add_device_arg(f, "in", 0);
    add_device_arg(f, "out", 2);
    LangVar acc_var = {.name = (char *)"acc", .type = &ty_float};
    uint32_t tid = vreg(f, 32), cnt = vreg(f, 32), acc = vreg_var(f, 32, &acc_var),
             i = vreg(f, 32), x = vreg(f, 32);
    int head = new_label(f), nb = new_label(f), end = new_label(f);
    ins(f, ISA_OP_GET_SR, R32(tid), SR(ISA_SR_THREAD_POSITION_IN_GRID_X), NO(), NO(), NO());
    ins(f, ISA_OP_UREM, R32(cnt), R32(tid), IMM(5), NO(), NO());
    ins(f, ISA_OP_MOV, R32(acc), IMM(0), NO(), NO(), NO());
    ins(f, ISA_OP_MOV, R32(i), IMM(0), NO(), NO(), NO());
    ins(f, ISA_OP_PUSH_EXEC, NUM(2), NO(), NO(), NO(), NO());
    def_label(f, head);
    ins(f, ISA_OP_IF_ICMP, NUM(1), R32(i), R32(cnt), NO(), NO())->cond = ISA_COND_UGE;
    ins(f, ISA_OP_JMP_EXEC_NONE, LBL(nb), NO(), NO(), NO(), NO())->flags = LANG_IR_OPTIONAL;
    ins(f, ISA_OP_MOV16, R16(0), IMM(3), NO(), NO(), NO());
    ins(f, ISA_OP_POP_EXEC, NUM(0), NO(), NO(), NO(), NO());
    def_label(f, nb);
    ins(f, ISA_OP_POP_EXEC, NUM(1), NO(), NO(), NO(), NO());
    mem(f, ISA_OP_LD_DEV, ISA_FMT_B32, 1, R32(x), U64(0), R32(i));
    ins(f, ISA_OP_IADD, R32(acc), R32(acc), R32(x), NO(), NO());
    ins(f, ISA_OP_IADD, R32(i), R32(i), IMM(1), NO(), NO());
    ins(f, ISA_OP_WHILE_ICMP, NUM(2), IMM(0), IMM(0), NO(), NO())->cond = ISA_COND_EQ;
    ins(f, ISA_OP_JMP_EXEC_ANY, LBL(head), NO(), NO(), NO(), NO());
    def_label(f, end);
    ins(f, ISA_OP_POP_EXEC, NUM(2), NO(), NO(), NO(), NO());
    mem(f, ISA_OP_ST_DEV, ISA_FMT_B32, 1, R32(acc), U64(2), R32(tid));
    add_loop(f, head, end);
    IsaProgram *p = backend_ok(f);
    assert_int_equal(count_op(p, ISA_OP_JMP_EXEC_NONE), 0); /* 2 units: not worth it */
    enum { N = 70 };
    Harness h;
    h_setup(&h);
    uint32_t *in = h_buffer(&h, 0, "in", 4 * 8, MEM_SPACE_DEVICE);
    uint32_t *out = h_buffer(&h, 1, "out", 4 * N, MEM_SPACE_DEVICE);
    for (int k = 0; k < 8; k++)
        in[k] = (uint32_t)k * 7 + 1;
    run_prog(&h, p, N, 32);
    for (uint32_t t = 0; t < N; t++) {
        uint32_t want = 0;
        for (uint32_t k = 0; k < t % 5; k++)
            want += k * 7 + 1;
        assert_int_equal(out[t], want);
    }
    h_free(&h);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wait_before_first_read),
        cmocka_unit_test(test_wait_before_overwrite),
        cmocka_unit_test(test_waits_at_barrier_label_stop),
        cmocka_unit_test(test_backward_jump_waits),
        cmocka_unit_test(test_slot_cap),
        cmocka_unit_test(test_two_slots_pending_separately),
        cmocka_unit_test(test_load_hoisted_to_address_def),
        cmocka_unit_test(test_load_not_hoisted_across),
        cmocka_unit_test(test_optional_skip_threshold),
        cmocka_unit_test(test_label_at_end_and_program_fields),
        cmocka_unit_test(test_var_ranges),
        cmocka_unit_test(test_bad_ir_is_an_error),
        cmocka_unit_test(test_run_vector_add),
        cmocka_unit_test(test_run_loop_with_break),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
