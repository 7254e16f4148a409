/*
 * ir_builder.h — building LangIr by hand for the backend and register-allocation suites:
 * a compiler context to run lang_backend in, vreg and instruction helpers, and running the
 * resulting program on the simulator.
 */
#ifndef LOCKSTEP_TESTS_LANG_IR_BUILDER_H
#define LOCKSTEP_TESTS_LANG_IR_BUILDER_H

#include "sim/sim_harness.h"

#include "../../lang/backend_internal.h"

/* ---- building LangIr by hand ---------------------------------------------------------------- */

typedef struct Fx {
    LangCtx ctx;
    UtilError err;
    LangIr *ir;
} Fx;

static const LangOptions fx_options;

static Fx *fx_new(void)
{
    Fx *f = calloc(1, sizeof *f);
    f->ctx.err = &f->err;
    f->ctx.opts = &fx_options;
    const char *text = "kernel void k() {}\n";
    lang_add_file(&f->ctx, "k.metal", lang_strndup(&f->ctx, text, strlen(text)));
    LangIr *ir = lang_alloc(&f->ctx, sizeof *ir);
    ir->cap = 8192;
    ir->insts = lang_alloc(&f->ctx, ir->cap * sizeof *ir->insts);
    ir->vregs_cap = 4096;
    ir->vregs = lang_alloc(&f->ctx, ir->vregs_cap * sizeof *ir->vregs);
    ir->vregs[0].width = 32; /* r0 */
    ir->num_vregs = 1;
    ir->loops_cap = 16;
    ir->loops = lang_alloc(&f->ctx, ir->loops_cap * sizeof *ir->loops);
    ir->name = (char *)"k";
    f->ir = ir;
    return f;
}

static void fx_free(Fx *f)
{
    lang_ctx_free(&f->ctx);
    free(f);
}

static uint32_t vreg(Fx *f, int width)
{
    f->ir->vregs[f->ir->num_vregs].width = (uint8_t)width;
    return f->ir->num_vregs++;
}

static inline uint32_t vreg_var(Fx *f, int width, LangVar *var)
{
    uint32_t v = vreg(f, width);
    f->ir->vregs[v].var = var;
    return v;
}

static inline int new_label(Fx *f) { return (int)f->ir->num_labels++; }

static inline void def_label(Fx *f, int label)
{
    LangIrInst *li = &f->ir->insts[f->ir->count++];
    memset(li, 0, sizeof *li);
    li->label = label;
}

static inline IsaOperand R32(uint32_t v) { return (IsaOperand){.kind = ISA_OPD_R32, .index = (uint16_t)v}; }
static inline IsaOperand R16(uint32_t v) { return (IsaOperand){.kind = ISA_OPD_R16, .index = (uint16_t)v}; }
static inline IsaOperand R64(uint32_t v) { return (IsaOperand){.kind = ISA_OPD_R64, .index = (uint16_t)v}; }
static inline IsaOperand U64(uint32_t u) { return (IsaOperand){.kind = ISA_OPD_U64, .index = (uint16_t)u}; }
static inline IsaOperand IMM(uint64_t x) { return (IsaOperand){.kind = ISA_OPD_IMM, .imm = x}; }
static inline IsaOperand NUM(uint64_t x) { return (IsaOperand){.kind = ISA_OPD_NUM, .imm = x}; }
static inline IsaOperand LBL(int l) { return (IsaOperand){.kind = ISA_OPD_LABEL, .index = (uint16_t)l}; }
static inline IsaOperand SR(IsaSpecialReg r) { return (IsaOperand){.kind = ISA_OPD_SR, .index = (uint16_t)r}; }
static inline IsaOperand NO(void) { return (IsaOperand){.kind = ISA_OPD_NONE}; }

/* Appends op with up to five operands (NO() for the rest). */
static IsaInst *ins(Fx *f, IsaOpcode op, IsaOperand a, IsaOperand b, IsaOperand c, IsaOperand d,
                    IsaOperand e)
{
    LangIrInst *li = &f->ir->insts[f->ir->count++];
    memset(li, 0, sizeof *li);
    li->label = -1;
    li->loc.line = 1;
    li->loc.col = 1;
    li->inst.op = (uint16_t)op;
    li->inst.opd[0] = a, li->inst.opd[1] = b, li->inst.opd[2] = c, li->inst.opd[3] = d;
    li->inst.opd[4] = e;
    return &li->inst;
}

static IsaInst *mem(Fx *f, IsaOpcode op, IsaMemFormat fmt, int count, IsaOperand data,
                    IsaOperand base, IsaOperand index)
{
    IsaInst *in = ins(f, op, data, base, index, op == ISA_OP_LD_DEV ? NUM(0) : NO(), NO());
    in->type = (uint8_t)fmt;
    in->count = (uint8_t)count;
    return in;
}

static inline void add_device_arg(Fx *f, const char *name, uint16_t uniform)
{
    LangIr *ir = f->ir;
    if (!ir->args)
        ir->args = lang_alloc(&f->ctx, 8 * sizeof *ir->args);
    ir->args[ir->num_args++] = (IsaArg){.name = (char *)name, .kind = ISA_ARG_DEVICE,
                                        .uniform = uniform, .binding = (int)ir->num_args,
                                        .elem_size = 4};
}

static inline void add_loop(Fx *f, int head, int end)
{
    f->ir->loops[f->ir->num_loops++] = (LangIrLoop){head, end};
}

/* Runs the backend as lang_compile_source does; NULL on error (message in f->err). */
static IsaProgram *backend(Fx *f)
{
    if (setjmp(f->ctx.bail) == 0)
        return lang_backend(&f->ctx, f->ir);
    return NULL;
}

static IsaProgram *backend_ok(Fx *f)
{
    IsaProgram *p = backend(f);
    if (!p)
        fail_msg("lang_backend failed: %s", f->err.message);
    return p;
}

static inline int find_op(const IsaProgram *p, IsaOpcode op, int from)
{
    for (uint32_t i = (uint32_t)from; i < p->count; i++)
        if (p->code[i].op == op)
            return (int)i;
    return -1;
}

static inline int count_op(const IsaProgram *p, IsaOpcode op)
{
    int n = 0;
    for (uint32_t i = 0; i < p->count; i++)
        n += p->code[i].op == op;
    return n;
}

/* Binds fresh device buffers and runs prog over n threads in groups of tg. */
static inline void run_prog(Harness *h, IsaProgram *prog, uint32_t n, uint32_t tg)
{
    h->prog = prog;
    h_run1(h, n, tg);
    h_expect_no_faults(h);
}

#endif
