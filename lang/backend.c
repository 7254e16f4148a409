/*
 * backend.c — LangIr (ISA instructions on virtual registers, labels as pseudo-instructions)
 * to an IsaProgram. In order:
 *
 *   0. clean up what codegen leaves in loops (opt.c): reuse constant loads, fold trivial
 *      arithmetic, coalesce copies through temporaries; then remove dead code (dce.c):
 *      instructions without side effects whose results nothing reads;
 *   1. drop optional jmp_exec_none skips whose skipped code is too cheap to be worth a
 *      branch (Mesa's agx_opt_jmp_none rule);
 *   2. issue device loads early: within a straight-line run each ld_dev moves up as far as
 *      its operands and conservative aliasing allow;
 *   3. allocate registers (regalloc.c), spilling through r120..r127 when they run out;
 *   4. emit the final code, inserting `wait` before the first instruction that touches a
 *      pending load's registers, before barriers, stop and backward jumps, at branch
 *      targets and loop heads, and when a slot would hold more than 8 loads (Mesa's
 *      agx_insert_waits). Waits are placed after allocation, on physical registers, so that
 *      a register reused by another vreg (or a spill scratch) is covered as well;
 *   5. resolve labels, attach debug info (locations, variable ranges) and finish.
 *
 * Every temporary lives in the context's arena; only the IsaProgram is malloc'd, and it is
 * built last so an internal error never leaks it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_internal.h"

/* Mesa keeps a jmp_exec_none when skipped cost >= 19 / p, with p = 1/2 here. */
enum { SKIP_MIN_COST = 38, MAX_PENDING_PER_SLOT = 8 };

void lang_be_error(LangCtx *ctx, const IsaSourceLoc *loc, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (loc && loc->line && loc->file < ctx->num_files && ctx->files[loc->file]->contents) {
        LangFile *f = ctx->files[loc->file];
        const char *p = f->contents;
        uint32_t line = 1;
        while (line < loc->line && *p)
            line += *p++ == '\n';
        for (uint32_t col = 1; col < loc->col && *p && *p != '\n'; col++)
            p++;
        if (line == loc->line)
            lang_error_pos(ctx, f, p, "%s", msg);
    }
    lang_error_at(ctx, NULL, "%s", msg);
}

/* ---- operands ------------------------------------------------------------------------------ */

static int op_letters(IsaOpcode op, char letters[ISA_MAX_OPERANDS])
{
    int n = 0;
    for (const char *s = isa_ops[op].operands; *s && n < ISA_MAX_OPERANDS; s++)
        if (*s != ',')
            letters[n++] = *s;
    for (int k = n; k < ISA_MAX_OPERANDS; k++)
        letters[k] = 0;
    return n;
}

static bool is_load(IsaOpcode op)
{
    return op == ISA_OP_LD_DEV || op == ISA_OP_LD_CONST || op == ISA_OP_LD_TG ||
           op == ISA_OP_LD_STACK;
}

static bool is_reg_kind(uint8_t kind)
{
    return kind == ISA_OPD_R16 || kind == ISA_OPD_R32 || kind == ISA_OPD_R64;
}

static int fail_why(const char **why, const char *msg)
{
    *why = msg;
    return -1;
}

/* The vregs of a memory op's data operand (see backend_internal.h). */
static int data_operand(const LangIr *ir, const IsaInst *in, const IsaOperand *o, LangBeOpd *r,
                        const char **why)
{
    unsigned cnt = in->count;
    if (cnt < 1 || cnt > 4 || in->type >= ISA_FMT_COUNT)
        return fail_why(why, "a memory op must move 1 to 4 elements of a known format");
    uint32_t v = o->index;
    if (v == 0)
        return fail_why(why, "memory data cannot be r0");
    uint8_t w = ir->vregs[v].width;
    if (in->type == ISA_FMT_H16) {
        if (o->kind != ISA_OPD_R16)
            return fail_why(why, "h16 memory data must be a 16-bit register");
        r->is16 = true;
        r->halves = (uint8_t)cnt;
        if (cnt == 1 && (w == 16 || w == 32))
            return 0;
        if (v + cnt > ir->num_vregs)
            return fail_why(why, "h16 .xN data needs N consecutive 16-bit vregs");
        for (unsigned i = 0; i < cnt; i++)
            if (ir->vregs[v + i].width != 16)
                return fail_why(why, "h16 .xN data needs N consecutive 16-bit vregs");
        r->nvregs = cnt;
        return 0;
    }
    if (o->kind == ISA_OPD_R16)
        return fail_why(why, "32-bit memory data cannot be a 16-bit register");
    r->halves = (uint8_t)(2 * cnt);
    if (cnt == 1 && (w == 32 || w == 64))
        return 0;
    unsigned regs = 0;
    uint32_t i = v;
    while (regs < cnt) {
        if (i >= ir->num_vregs || ir->vregs[i].width == 16)
            return fail_why(why, "memory data .xN needs consecutive 32/64-bit vregs covering N registers");
        regs += ir->vregs[i].width == 64 ? 2 : 1;
        i++;
    }
    if (regs != cnt)
        return fail_why(why, "memory data .xN needs consecutive 32/64-bit vregs covering N registers");
    r->nvregs = i - v;
    return 0;
}

int lang_be_operands(const LangIr *ir, const IsaInst *in, LangBeOpd out[ISA_MAX_OPERANDS],
                     const char **why)
{
    if (in->op >= ISA_OP_COUNT)
        return fail_why(why, "an invalid opcode");
    char letters[ISA_MAX_OPERANDS];
    op_letters((IsaOpcode)in->op, letters);
    if (in->op == ISA_OP_NOP && (in->flags & LANG_IR_UNDEF))
        letters[0] = 'D'; /* a declaration without a value: writes its vreg */
    int n = 0;
    for (int k = 0; k < ISA_MAX_OPERANDS; k++) {
        const IsaOperand *o = &in->opd[k];
        char letter = letters[k];
        bool def = k == 0 && (letter == 'D' || letter == 'H' || letter == 'P' || letter == 'x' ||
                              (letter == 'm' && is_load((IsaOpcode)in->op)));
        if (!is_reg_kind(o->kind)) {
            if (def || letter == 'm')
                return fail_why(why, "a destination or memory data operand that is not a register");
            continue;
        }
        if (!letter)
            return fail_why(why, "a register operand the instruction does not take");
        if (o->index >= ir->num_vregs)
            return fail_why(why, "an unknown virtual register");
        LangBeOpd *r = &out[n++];
        *r = (LangBeOpd){.opd = (uint8_t)k, .def = def, .vreg = o->index, .nvregs = 1};
        if (letter == 'm') {
            if (data_operand(ir, in, o, r, why) < 0)
                return -1;
            continue;
        }
        uint8_t w = o->index == 0 ? 0 : ir->vregs[o->index].width;
        switch (o->kind) {
        case ISA_OPD_R16:
            if (w == 64)
                return fail_why(why, "a 16-bit operand names a 64-bit vreg");
            r->is16 = true;
            r->halves = 1;
            break;
        case ISA_OPD_R32:
            if (w == 16)
                return fail_why(why, "a 32-bit operand names a 16-bit vreg");
            r->halves = 2;
            break;
        default:
            if (w != 64)
                return fail_why(why, "a 64-bit operand names a vreg that is not 64-bit");
            r->halves = 4;
            break;
        }
    }
    return n;
}

/* ---- checks and passes on the IR ----------------------------------------------------------- */

static void validate(LangCtx *ctx, LangIr *ir)
{
    for (uint32_t v = 1; v < ir->num_vregs; v++) {
        uint8_t w = ir->vregs[v].width;
        if (w != 16 && w != 32 && w != 64)
            lang_be_error(ctx, NULL, "internal compiler error: vreg %u is %u bits wide", v, w);
    }
    bool *defined = lang_alloc(ctx, ir->num_labels + 1);
    for (uint32_t i = 0; i < ir->count; i++) {
        LangIrInst *it = &ir->insts[i];
        if (it->label >= 0) {
            if ((uint32_t)it->label >= ir->num_labels || defined[it->label])
                lang_be_error(ctx, &it->loc, "internal compiler error: label %d is unknown or defined twice",
                              it->label);
            defined[it->label] = true;
            continue;
        }
        LangBeOpd ops[ISA_MAX_OPERANDS];
        const char *why = NULL;
        if (lang_be_operands(ir, &it->inst, ops, &why) < 0)
            lang_be_error(ctx, &it->loc, "internal compiler error: %s %s", isa_ops[it->inst.op < ISA_OP_COUNT ? it->inst.op : 0].name, why);
        char letters[ISA_MAX_OPERANDS];
        op_letters((IsaOpcode)it->inst.op, letters);
        for (int k = 0; k < ISA_MAX_OPERANDS; k++) {
            IsaOperand *o = &it->inst.opd[k];
            if ((letters[k] == 'l') != (o->kind == ISA_OPD_LABEL) ||
                (o->kind == ISA_OPD_LABEL && o->index >= ir->num_labels))
                lang_be_error(ctx, &it->loc, "internal compiler error: %s needs a known label",
                              isa_ops[it->inst.op].name);
        }
        if (it->inst.op == ISA_OP_LD_DEV) {
            IsaOperand *slot = &it->inst.opd[3];
            if (slot->kind == ISA_OPD_NONE)
                *slot = (IsaOperand){.kind = ISA_OPD_NUM, .imm = 0};
            if (slot->kind != ISA_OPD_NUM || slot->imm > 1)
                lang_be_error(ctx, &it->loc, "internal compiler error: ld_dev wait slot must be 0 or 1");
        }
    }
    for (uint32_t i = 0; i < ir->count; i++) {
        LangIrInst *it = &ir->insts[i];
        for (int k = 0; it->label < 0 && k < ISA_MAX_OPERANDS; k++)
            if (it->inst.opd[k].kind == ISA_OPD_LABEL && !defined[it->inst.opd[k].index])
                lang_be_error(ctx, &it->loc, "internal compiler error: label %u is never defined",
                              it->inst.opd[k].index);
    }
    for (uint32_t i = 0; i < ir->num_loops; i++) {
        const LangIrLoop *l = &ir->loops[i];
        if (l->head_label < 0 || l->end_label < 0 || (uint32_t)l->head_label >= ir->num_labels ||
            (uint32_t)l->end_label >= ir->num_labels || !defined[l->head_label] ||
            !defined[l->end_label])
            lang_be_error(ctx, NULL, "internal compiler error: loop %u has undefined labels", i);
    }
}

static int32_t *label_positions(LangCtx *ctx, const LangIr *ir, const LangIrInst *w, uint32_t n)
{
    int32_t *pos = lang_alloc(ctx, (ir->num_labels + 1) * sizeof *pos);
    for (uint32_t l = 0; l < ir->num_labels; l++)
        pos[l] = -1;
    for (uint32_t i = 0; i < n; i++)
        if (w[i].label >= 0)
            pos[w[i].label] = (int32_t)i;
    return pos;
}

/* Cost units of Mesa's skip rule: memory and SFU ops 4, everything else 1. */
static unsigned inst_cost(IsaOpcode op)
{
    switch (isa_ops[op].op_class) {
    case ISA_CLASS_MEM_DEVICE: case ISA_CLASS_MEM_CONST: case ISA_CLASS_MEM_TG:
    case ISA_CLASS_MEM_STACK: case ISA_CLASS_ATOMIC: case ISA_CLASS_SFU:
        return 4;
    default:
        return 1;
    }
}

static uint32_t prune_skips(LangCtx *ctx, const LangIr *ir, LangIrInst *w, uint32_t n)
{
    int32_t *pos = label_positions(ctx, ir, w, n);
    bool *drop = lang_alloc(ctx, n + 1);
    for (uint32_t i = 0; i < n; i++) {
        IsaInst *in = &w[i].inst;
        if (w[i].label >= 0 || in->op != ISA_OP_JMP_EXEC_NONE || !(in->flags & LANG_IR_OPTIONAL))
            continue;
        int32_t target = pos[in->opd[0].index];
        bool keep = true;
        if (target > (int32_t)i) {
            /* A side holding a threadgroup barrier is always skipped when no lane takes it:
             * a SIMD-group must not arrive at a barrier on a path none of its threads is
             * on (the other SIMD-groups may wait at the barrier of the other side). */
            unsigned cost = 0;
            bool has_barrier = false;
            for (int32_t j = (int32_t)i + 1; j < target; j++)
                if (w[j].label < 0 && !lang_ir_is_marker(&w[j])) {
                    cost += inst_cost((IsaOpcode)w[j].inst.op);
                    has_barrier |= w[j].inst.op == ISA_OP_BARRIER;
                }
            keep = cost >= SKIP_MIN_COST || has_barrier;
        }
        if (keep)
            in->flags &= (uint8_t)~LANG_IR_OPTIONAL;
        else
            drop[i] = true;
    }
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!drop[i])
            w[m++] = w[i];
    return m;
}

/* Labels, control flow (exec-mask ops included), barriers and anything touching r0 end a
 * straight-line run: loads never move across them. */
static bool run_boundary(const LangIrInst *it)
{
    if (it->label >= 0)
        return true;
    IsaClass c = isa_ops[it->inst.op].op_class;
    if (c == ISA_CLASS_CONTROL || c == ISA_CLASS_BARRIER || it->inst.op == ISA_OP_WAIT)
        return true;
    for (int k = 0; k < ISA_MAX_OPERANDS; k++)
        if (is_reg_kind(it->inst.opd[k].kind) && it->inst.opd[k].index == 0)
            return true; /* r0l is the exec nesting counter */
    return false;
}

static bool overlaps(const LangBeOpd *a, const LangBeOpd *b)
{
    return a->vreg < b->vreg + b->nvregs && b->vreg < a->vreg + a->nvregs;
}

/* Whether `it` must stay above the load whose operands are ld[0..nld). */
static bool blocks_load(const LangIr *ir, const LangIrInst *it, const LangBeOpd *ld, int nld)
{
    IsaOpcode op = (IsaOpcode)it->inst.op;
    if (op == ISA_OP_ST_DEV || op == ISA_OP_ATOM_DEV || op == ISA_OP_CMPXCHG_DEV)
        return true; /* may alias the loaded address */
    LangBeOpd ops[ISA_MAX_OPERANDS];
    const char *why;
    int n = lang_be_operands(ir, &it->inst, ops, &why);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < nld; j++)
            if (overlaps(&ops[i], &ld[j]) && (ld[j].def || ops[i].def))
                return true;
    return false;
}

static void hoist_loads(const LangIr *ir, LangIrInst *w, uint32_t n)
{
    uint32_t run_start = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (run_boundary(&w[i])) {
            run_start = i + 1;
            continue;
        }
        if (w[i].inst.op != ISA_OP_LD_DEV)
            continue;
        LangBeOpd ld[ISA_MAX_OPERANDS];
        const char *why;
        int nld = lang_be_operands(ir, &w[i].inst, ld, &why);
        uint32_t p = i;
        while (p > run_start && !blocks_load(ir, &w[p - 1], ld, nld))
            p--;
        if (p < i) {
            LangIrInst load = w[i];
            memmove(&w[p + 1], &w[p], (i - p) * sizeof *w);
            w[p] = load;
        }
    }
}

/* ---- emission: spill code and waits -------------------------------------------------------- */

typedef struct Emit {
    LangCtx *ctx;
    IsaInst *code;
    IsaSourceLoc *locs;
    uint32_t count, cap;
    uint8_t pend[256];   /* per register half: wait slots with a load pending into it */
    uint32_t pending[2]; /* loads issued on each slot since its last wait */
} Emit;

static void push(Emit *e, const IsaInst *in, IsaSourceLoc loc)
{
    if (e->count == e->cap) {
        uint32_t cap = e->cap ? e->cap * 2 : 64;
        IsaInst *code = lang_alloc(e->ctx, cap * sizeof *code);
        IsaSourceLoc *locs = lang_alloc(e->ctx, cap * sizeof *locs);
        if (e->count) {
            memcpy(code, e->code, e->count * sizeof *code);
            memcpy(locs, e->locs, e->count * sizeof *locs);
        }
        e->code = code;
        e->locs = locs;
        e->cap = cap;
    }
    e->code[e->count] = *in;
    e->locs[e->count++] = loc;
}

static unsigned pending_slots(const Emit *e)
{
    return (e->pending[0] ? 1u : 0u) | (e->pending[1] ? 2u : 0u);
}

static void wait_slots(Emit *e, unsigned slots, IsaSourceLoc loc)
{
    for (unsigned s = 0; s < 2; s++) {
        if (!((slots >> s) & 1))
            continue;
        IsaInst w = {.op = ISA_OP_WAIT};
        w.opd[0] = (IsaOperand){.kind = ISA_OPD_NUM, .imm = s};
        push(e, &w, loc);
        e->pending[s] = 0;
        for (int h = 0; h < 256; h++)
            e->pend[h] &= (uint8_t)~(1u << s);
    }
}

/* The register halves operand k of a final instruction covers: *first and the count. */
static int covered_halves(const IsaInst *in, int k, char letter, int *first)
{
    const IsaOperand *o = &in->opd[k];
    if (letter == 'm' && in->type == ISA_FMT_H16 && o->kind == ISA_OPD_R16) {
        *first = o->index;
        return in->count;
    }
    if (letter == 'm' && o->kind == ISA_OPD_R32) {
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

/* Emits one final instruction, preceded by the waits it needs (plus `extra` slots). */
static void emit_inst(Emit *e, const IsaInst *in, IsaSourceLoc loc, unsigned extra)
{
    IsaOpcode op = (IsaOpcode)in->op;
    unsigned need = extra;
    if (op == ISA_OP_BARRIER || op == ISA_OP_SIMD_BARRIER || op == ISA_OP_STOP)
        need |= pending_slots(e);
    char letters[ISA_MAX_OPERANDS];
    op_letters(op, letters);
    for (int k = 0; k < ISA_MAX_OPERANDS; k++) {
        int first = 0, n = covered_halves(in, k, letters[k], &first);
        for (int h = first; h < first + n && h < 256; h++)
            need |= e->pend[h];
    }
    unsigned slot = op == ISA_OP_LD_DEV ? (unsigned)(in->opd[3].imm & 1) : 0;
    if (op == ISA_OP_LD_DEV && e->pending[slot] >= MAX_PENDING_PER_SLOT)
        need |= 1u << slot;
    wait_slots(e, need, loc);
    push(e, in, loc);
    if (op == ISA_OP_LD_DEV) {
        e->pending[slot]++;
        int first = 0, n = covered_halves(in, 0, 'm', &first);
        for (int h = first; h < first + n && h < 256; h++)
            e->pend[h] |= (uint8_t)(1u << slot);
    }
}

/* Maps the vreg operands of `it` to registers into *out; spilled ones go through scratch
 * registers, filled by pre[] and written back by post[]. */
static void rewrite(LangCtx *ctx, const LangIr *ir, const LangRegAlloc *ra, const LangIrInst *it,
                    IsaInst *out, IsaInst *pre, int *npre, IsaInst *post, int *npost)
{
    *out = it->inst;
    *npre = *npost = 0;
    LangBeOpd ops[ISA_MAX_OPERANDS];
    const char *why;
    int n = lang_be_operands(ir, &it->inst, ops, &why);
    char letters[ISA_MAX_OPERANDS];
    op_letters((IsaOpcode)it->inst.op, letters);
    int scratch = LANG_RA_SCRATCH_REG * 2;
    for (int k = 0; k < n; k++) {
        const LangBeOpd *o = &ops[k];
        IsaOperand *d = &out->opd[o->opd];
        int32_t h;
        if (o->vreg == 0) {
            h = 0;
        } else if (ra->half[o->vreg] >= 0) {
            h = ra->half[o->vreg];
        } else {
            if (!o->is16)
                scratch = (scratch + 1) & ~1;
            h = scratch;
            scratch += o->halves;
            if (scratch > 256 || ra->spill[o->vreg] < 0)
                lang_be_error(ctx, &it->loc, "internal compiler error: too many spilled operands");
            IsaInst m = {.op = o->def ? ISA_OP_ST_STACK : ISA_OP_LD_STACK};
            m.type = o->is16 ? ISA_FMT_H16 : ISA_FMT_B32;
            m.count = (uint8_t)(o->is16 ? o->halves : o->halves / 2);
            m.opd[0] = o->is16 ? (IsaOperand){.kind = ISA_OPD_R16, .index = (uint16_t)h}
                               : (IsaOperand){.kind = ISA_OPD_R32, .index = (uint16_t)(h / 2)};
            m.opd[1] = (IsaOperand){.kind = ISA_OPD_IMM, .imm = (uint64_t)ra->spill[o->vreg]};
            m.opd[2] = (IsaOperand){.kind = ISA_OPD_IMM, .imm = 0};
            if (o->def)
                post[(*npost)++] = m;
            else
                pre[(*npre)++] = m;
        }
        if (letters[o->opd] == 'm')
            d->kind = o->is16 ? ISA_OPD_R16 : ISA_OPD_R32;
        d->index = (uint16_t)(d->kind == ISA_OPD_R16 ? h : h / 2);
    }
}

/* ---- the program --------------------------------------------------------------------------- */

typedef struct VarRef {
    uintptr_t var;
    uint32_t vreg;
} VarRef;

static int cmp_varref(const void *x, const void *y)
{
    const VarRef *a = x, *b = y;
    if (a->var != b->var)
        return a->var < b->var ? -1 : 1;
    return a->vreg < b->vreg ? -1 : a->vreg > b->vreg;
}

static uint32_t pc_at(const IsaProgram *p, uint32_t index)
{
    return index < p->count ? p->code[index].pc : p->code_bytes;
}

/* How leaf k of a value of type ty is written in source: `.y`, `[2]`, `.pos.x`; "" for a
 * scalar (leaves in cg_leaf_count's order). */
/* How the debugger names a tensor type's hidden members (parse_tensor.c): a cooperative
 * tensor's elements as the kernel indexes them (`ct[3]`), a tensor's parts by what they are. */
static const char *member_label(const LangType *st, const LangMember *m)
{
    static const char *const hidden[][2] = {
        {"__e", ""}, {"__data", ".data"}, {"__e0", ".columns"}, {"__e1", ".rows"},
        {"__s1", ".row_pitch"},
    };
    if (st->tensor && m->name)
        for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++)
            if (!strcmp(m->name, hidden[i][0]))
                return hidden[i][1];
    return NULL;
}

static void leaf_path(const LangType *ty, uint32_t k, char *out, size_t size)
{
    out[0] = 0;
    switch (ty->kind) {
    case LTY_VECTOR:
        snprintf(out, size, ".%c", "xyzw"[k % 4]);
        return;
    case LTY_ARRAY: {
        const uint32_t each = (uint32_t)cg_leaf_count(ty->base);
        if (!each)
            return;
        int n = snprintf(out, size, "[%u]", k / each);
        if (n > 0 && (size_t)n < size)
            leaf_path(ty->base, k % each, out + n, size - (size_t)n);
        return;
    }
    case LTY_STRUCT:
        for (const LangMember *m = ty->members; m; m = m->next) {
            const uint32_t each = (uint32_t)cg_leaf_count(m->type);
            if (k >= each) {
                k -= each;
                continue;
            }
            const char *label = member_label(ty, m);
            int n = label ? snprintf(out, size, "%s", label)
                          : snprintf(out, size, ".%s", m->name ? m->name : "?");
            if (n >= 0 && (size_t)n < size)
                leaf_path(m->type, k, out + n, size - (size_t)n);
            return;
        }
        return;
    default:
        return;
    }
}

/* The scalar (or matrix, or pointer) type of leaf k of a value of type ty. */
static const LangType *leaf_type(const LangType *ty, uint32_t k)
{
    switch (ty->kind) {
    case LTY_VECTOR:
        return ty->base;
    case LTY_ARRAY: {
        const uint32_t each = (uint32_t)cg_leaf_count(ty->base);
        return each ? leaf_type(ty->base, k % each) : ty;
    }
    case LTY_STRUCT:
        for (const LangMember *m = ty->members; m; m = m->next) {
            const uint32_t each = (uint32_t)cg_leaf_count(m->type);
            if (k < each)
                return leaf_type(m->type, k);
            k -= each;
        }
        return ty;
    default:
        return ty;
    }
}

/* One IsaVarLoc per allocated vreg that holds a source variable, over its live range; an
 * IsaGoneVar per such vreg dead-code elimination took every instruction of (gone). */
static void add_var_locs(LangCtx *ctx, const LangIr *ir, const LangRegAlloc *ra, const bool *gone,
                         const uint32_t *pos_first, const uint32_t *pos_end, IsaProgram *prog)
{
    VarRef *refs = lang_alloc(ctx, (ir->num_vregs + 1) * sizeof *refs);
    uint32_t n = 0;
    for (uint32_t v = 1; v < ir->num_vregs; v++)
        if (ir->vregs[v].var && ir->vregs[v].var->name)
            refs[n++] = (VarRef){(uintptr_t)ir->vregs[v].var, v};
    if (n)
        qsort(refs, n, sizeof *refs, cmp_varref);
    prog->vars = util_calloc(n ? n : 1, sizeof *prog->vars);
    prog->gone = util_calloc(n ? n : 1, sizeof *prog->gone);
    for (uint32_t i = 0, first = 0, total = 0; i < n; i++) {
        if (i == 0 || refs[i].var != refs[i - 1].var) {
            first = i;
            for (total = 0; first + total < n && refs[first + total].var == refs[i].var; total++)
                ;
        }
        uint32_t ord = i - first;
        uint32_t v = refs[i].vreg;
        if (!gone[v] && (ra->half[v] < 0 || ra->start[v] < 0))
            continue;
        const LangVar *var = ir->vregs[v].var;
        const LangType *ty = var->type;
        const LangType *elem = ty && (ty->kind == LTY_VECTOR || ty->kind == LTY_ARRAY) && ty->base
                                   ? ty->base : ty;
        char name[256];
        size_t len = (size_t)snprintf(name, sizeof name, "%s", var->name);
        /* one vreg a leaf, in leaf order (cg_val_fresh): name the part, `acc[1][0]`, `p.x` */
        if (total > 1 && ty && total == (uint32_t)cg_leaf_count(ty) && len < sizeof name) {
            leaf_path(ty, ord, name + len, sizeof name - len);
            elem = leaf_type(ty, ord);
        } else if (total > 1 && ty && ty->kind == LTY_VECTOR && ty->len >= 1 && ty->len <= 4) {
            snprintf(name, sizeof name, "%s.%c", var->name, "xyzw"[ord % (uint32_t)ty->len]);
        } else if (total > 1 && ty && (ty->kind == LTY_ARRAY || ty->kind == LTY_STRUCT)) {
            snprintf(name, sizeof name, "%s[%u]", var->name, ord);
        }
        const char *type_name = !elem ? "?" : elem->name ? elem->name
                                                : lang_type_name(ctx, elem); /* pointers */
        if (gone[v]) {
            prog->gone[prog->num_gone++] = (IsaGoneVar){util_strdup(name), util_strdup(type_name)};
            continue;
        }
        uint32_t b = pos_first[ra->start[v]], e = pos_end[ra->end[v]];
        IsaVarLoc *loc = &prog->vars[prog->num_vars];
        loc->pc_begin = pc_at(prog, b);
        loc->pc_end = pc_at(prog, e);
        if (loc->pc_end <= loc->pc_begin)
            continue;
        uint8_t w = ir->vregs[v].width;
        loc->kind = w == 16 ? ISA_OPD_R16 : w == 64 ? ISA_OPD_R64 : ISA_OPD_R32;
        loc->index = (uint16_t)(w == 16 ? ra->half[v] : ra->half[v] / 2);
        loc->name = util_strdup(name);
        loc->type_name = util_strdup(type_name);
        prog->num_vars++;
    }
}

/* The declarations without a value (LANG_IR_UNDEF), for IsaProgram.undefs: in the arena
 * (names too) until the program is built, so an error on the way leaks nothing. */
typedef struct Undefs {
    IsaUndef *list;       /* room for every IR instruction */
    uint32_t n;
} Undefs;

/* Records marker `it`, which falls before instruction `index`: the register its vreg got.
 * A spilled vreg is not recorded (its stack slot is not tracked either). */
static void record_undef(LangCtx *ctx, const LangIr *ir, const LangRegAlloc *ra,
                         const LangIrInst *it, uint32_t index, Undefs *u)
{
    const uint32_t v = it->inst.opd[0].index;
    if (v == 0 || v >= ir->num_vregs || ra->half[v] < 0 || !ir->vregs[v].var)
        return;
    const LangVar *var = ir->vregs[v].var;
    const LangType *ty = var->type;
    const LangType *elem = ty ? leaf_type(ty, (uint32_t)it->inst.opd[1].imm) : NULL;
    IsaUndef *d = &u->list[u->n++];
    const uint8_t w = ir->vregs[v].width;
    d->index = index;
    d->reg.kind = w == 16 ? ISA_OPD_R16 : w == 64 ? ISA_OPD_R64 : ISA_OPD_R32;
    d->reg.index = (uint16_t)(w == 16 ? ra->half[v] : ra->half[v] / 2);
    d->loc = it->loc;
    char name[256];
    size_t len = (size_t)snprintf(name, sizeof name, "%s", var->name ? var->name : "?");
    if (ty && len < sizeof name)
        leaf_path(ty, (uint32_t)it->inst.opd[1].imm, name + len, sizeof name - len);
    const char *type_name = elem && elem->name ? elem->name : "?";
    d->name = lang_strndup(ctx, name, strlen(name));
    d->type_name = lang_strndup(ctx, type_name, strlen(type_name));
}

/* The recorded declarations, copied out of the arena into prog. */
static void attach_undefs(const Undefs *u, IsaProgram *prog)
{
    prog->undefs = util_calloc(u->n ? u->n : 1, sizeof *prog->undefs);
    for (uint32_t i = 0; i < u->n; i++) {
        prog->undefs[i] = u->list[i];
        prog->undefs[i].name = util_strdup(u->list[i].name);
        prog->undefs[i].type_name = util_strdup(u->list[i].type_name);
    }
    prog->num_undefs = u->n;
}

/* The instructions of calls compiled to several (IsaProgram.parts), names static until
 * the program is built. */
typedef struct Parts {
    IsaFnPart *list;      /* room for every IR instruction */
    uint32_t n;
} Parts;

static uint32_t regs_used(const Emit *e)
{
    uint32_t top = 0;
    for (uint32_t i = 0; i < e->count; i++) {
        char letters[ISA_MAX_OPERANDS];
        op_letters((IsaOpcode)e->code[i].op, letters);
        for (int k = 0; k < ISA_MAX_OPERANDS; k++) {
            int first = 0, n = covered_halves(&e->code[i], k, letters[k], &first);
            if (n && (uint32_t)(first + n - 1) / 2 + 1 > top)
                top = (uint32_t)(first + n - 1) / 2 + 1;
        }
    }
    return top ? top : 1;
}

static IsaProgram *build_program(LangCtx *ctx, const LangIr *ir, const Emit *e,
                                 const LangRegAlloc *ra, const bool *gone,
                                 const uint32_t *pos_first, const uint32_t *pos_end)
{
    IsaProgram *p = isa_program_new();
    for (uint32_t i = 0; i < e->count; i++)
        isa_program_emit(p, &e->code[i], e->locs[i]);
    p->name = util_strdup(ir->name ? ir->name : "kernel");
    p->num_regs = regs_used(e);
    p->tg_mem_bytes = ir->tg_mem_bytes;
    p->stack_bytes = ra->stack_bytes;
    p->symbols = util_calloc(ir->num_symbols ? ir->num_symbols : 1, sizeof *p->symbols);
    for (uint32_t i = 0; i < ir->num_symbols; i++) {
        p->symbols[i] = ir->symbols[i];
        p->symbols[i].name = util_strdup(ir->symbols[i].name);
        p->symbols[i].type_name = ir->symbols[i].type_name ? util_strdup(ir->symbols[i].type_name) : NULL;
    }
    p->num_symbols = ir->num_symbols;
    if (ir->data_bytes) {
        p->data = util_malloc(ir->data_bytes);
        memcpy(p->data, ir->data, ir->data_bytes);
        p->data_bytes = ir->data_bytes;
    }
    p->args = util_calloc(ir->num_args ? ir->num_args : 1, sizeof *p->args);
    for (uint32_t i = 0; i < ir->num_args; i++) {
        p->args[i] = ir->args[i];
        p->args[i].name = util_strdup(ir->args[i].name ? ir->args[i].name : "");
        p->args[i].type_name = ir->args[i].type_name ? util_strdup(ir->args[i].type_name) : NULL;
    }
    p->num_args = ir->num_args;
    p->uniform_inits = util_calloc(ir->num_uniform_inits ? ir->num_uniform_inits : 1,
                                   sizeof *p->uniform_inits);
    if (ir->num_uniform_inits)
        memcpy(p->uniform_inits, ir->uniform_inits, ir->num_uniform_inits * sizeof *p->uniform_inits);
    p->num_uniform_inits = ir->num_uniform_inits;
    p->files = util_calloc(ctx->num_files ? (size_t)ctx->num_files : 1, sizeof *p->files);
    for (int i = 0; i < ctx->num_files; i++)
        p->files[i] = util_strdup(ctx->files[i]->name);
    p->num_files = (uint32_t)ctx->num_files;
    p->calls = util_calloc(ir->num_calls ? ir->num_calls : 1, sizeof *p->calls);
    for (uint32_t i = 0; i < ir->num_calls; i++) {
        p->calls[i] = ir->calls[i];
        p->calls[i].func = util_strdup(ir->calls[i].func ? ir->calls[i].func : "?");
    }
    p->num_calls = ir->num_calls;
    UtilError err = {{0}};
    if (!isa_program_finish(p, &err)) {
        isa_program_free(p);
        lang_be_error(ctx, NULL, "internal compiler error: %s", err.message);
    }
    add_var_locs(ctx, ir, ra, gone, pos_first, pos_end, p);
    return p;
}

IsaProgram *lang_backend(LangCtx *ctx, LangIr *ir)
{
    validate(ctx, ir);
    uint32_t n = ir->count;
    LangIrInst *w = lang_alloc(ctx, (n + 1) * sizeof *w);
    if (n)
        memcpy(w, ir->insts, n * sizeof *w);
    n = lang_opt(ctx, ir, w, n);
    bool *gone = lang_alloc(ctx, ir->num_vregs + 1);
    n = lang_dce(ctx, ir, w, n, gone);
    n = prune_skips(ctx, ir, w, n);
    hoist_loads(ir, w, n);
    LangRegAlloc ra;
    lang_regalloc(ctx, ir, w, n, &ra);

    /* branch targets and loop heads wait for every pending load */
    bool *target = lang_alloc(ctx, ir->num_labels + 1);
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; w[i].label < 0 && k < ISA_MAX_OPERANDS; k++)
            if (w[i].inst.opd[k].kind == ISA_OPD_LABEL)
                target[w[i].inst.opd[k].index] = true;
    for (uint32_t i = 0; i < ir->num_loops; i++)
        target[ir->loops[i].head_label] = true;
    int32_t *label_index = lang_alloc(ctx, (ir->num_labels + 1) * sizeof *label_index);
    uint8_t *label_slots = lang_alloc(ctx, ir->num_labels + 1);
    for (uint32_t l = 0; l < ir->num_labels; l++)
        label_index[l] = -1;
    uint32_t *pos_first = lang_alloc(ctx, (n + 1) * sizeof *pos_first);
    uint32_t *pos_end = lang_alloc(ctx, (n + 1) * sizeof *pos_end);

    Emit e = {.ctx = ctx};
    Undefs undefs = {lang_alloc(ctx, (n + 1) * sizeof *undefs.list), 0};
    Parts parts = {lang_alloc(ctx, (n + 1) * sizeof *parts.list), 0};
    IsaSourceLoc last_loc = {0};
    /* the scopes of locals in thread memory, per thread symbol: [begin, end) */
    uint32_t num_thread = 0;
    for (uint32_t i = 0; i < ir->num_symbols; i++)
        num_thread += ir->symbols[i].space == ISA_SYM_THREAD;
    uint32_t *scope = lang_alloc(ctx, (2 * num_thread + 1) * sizeof *scope);
    int64_t begun = -1; /* where the last scope began: no branch target may be there */
    for (uint32_t p = 0; p < n; p++) {
        const LangIrInst *it = &w[p];
        pos_first[p] = e.count;
        last_loc = it->loc;
        if (it->label >= 0 && target[it->label] && begun == (int64_t)e.count) {
            /* the scope begins here, not where a jump to the label lands */
            IsaInst nop = {.op = ISA_OP_NOP};
            emit_inst(&e, &nop, it->loc, 0);
        }
        if (lang_ir_is_marker(it) && !lang_ir_is_undef(it)) {
            if (it->sym < num_thread)
                scope[2 * it->sym + !(it->inst.flags & LANG_IR_SCOPE_BEGIN)] = e.count;
            if (it->inst.flags & LANG_IR_SCOPE_BEGIN)
                begun = e.count;
            pos_end[p] = e.count;
            continue;
        }
        if (it->label >= 0) {
            label_index[it->label] = (int32_t)e.count;
            if (target[it->label])
                wait_slots(&e, pending_slots(&e) | label_slots[it->label], it->loc);
            pos_end[p] = e.count;
            continue;
        }
        if (lang_ir_is_undef(it)) {
            record_undef(ctx, ir, &ra, it, e.count, &undefs);
            pos_end[p] = e.count;
            continue;
        }
        IsaInst inst, pre[ISA_MAX_OPERANDS], post[ISA_MAX_OPERANDS];
        int npre, npost;
        rewrite(ctx, ir, &ra, it, &inst, pre, &npre, post, &npost);
        for (int i = 0; i < npre; i++)
            emit_inst(&e, &pre[i], it->loc, 0);
        unsigned extra = 0;
        for (int k = 0; k < ISA_MAX_OPERANDS; k++) {
            if (inst.opd[k].kind != ISA_OPD_LABEL)
                continue;
            uint32_t l = inst.opd[k].index;
            if (label_index[l] >= 0)
                extra |= pending_slots(&e); /* backward: the head already waited */
            else
                label_slots[l] |= (uint8_t)pending_slots(&e);
        }
        emit_inst(&e, &inst, it->loc, extra);
        if (it->part_of) /* emit_inst put inst last, after any wait */
            parts.list[parts.n++] = (IsaFnPart){.index = e.count - 1, .modulo_opd = it->modulo_opd,
                                                .width = it->modulo_width,
                                                .func = (char *)it->part_of};
        for (int i = 0; i < npost; i++)
            emit_inst(&e, &post[i], it->loc, 0);
        pos_end[p] = e.count;
    }
    bool need_stop = e.count == 0 || e.code[e.count - 1].op != ISA_OP_STOP ||
                     begun == (int64_t)e.count;
    for (uint32_t l = 0; l < ir->num_labels; l++)
        need_stop |= label_index[l] == (int32_t)e.count;
    if (need_stop) {
        IsaInst stop = {.op = ISA_OP_STOP};
        emit_inst(&e, &stop, last_loc, 0);
    }
    if (e.count > 65535) /* label operands hold 16-bit instruction indexes */
        lang_be_error(ctx, NULL, "the kernel is too long (%u instructions)", e.count);
    for (uint32_t i = 0; i < e.count; i++)
        for (int k = 0; k < ISA_MAX_OPERANDS; k++)
            if (e.code[i].opd[k].kind == ISA_OPD_LABEL)
                e.code[i].opd[k].index = (uint16_t)label_index[e.code[i].opd[k].index];
    IsaProgram *prog = build_program(ctx, ir, &e, &ra, gone, pos_first, pos_end);
    attach_undefs(&undefs, prog);
    for (uint32_t i = 0, k = 0; i < prog->num_symbols && k < num_thread; i++)
        if (prog->symbols[i].space == ISA_SYM_THREAD) {
            prog->symbols[i].live_begin = scope[2 * k];
            prog->symbols[i].live_end = scope[2 * k + 1];
            k++;
        }
    prog->parts = util_calloc(parts.n ? parts.n : 1, sizeof *prog->parts);
    for (uint32_t i = 0; i < parts.n; i++) {
        prog->parts[i] = parts.list[i];
        prog->parts[i].func = util_strdup(parts.list[i].func);
    }
    prog->num_parts = parts.n;
    return prog;
}
