/*
 * opt.c — clean-ups on the LangIr before register allocation, aimed at what codegen leaves
 * in loops (backend.c runs them first, on its working copy of the instructions):
 *
 *   1. reuse of constant loads: an `ld_const` of a uniform base and an immediate index
 *      that an identical earlier load already fetched, for every lane that can reach it,
 *      reads the earlier load's register instead (the `constant uint &n` of a loop bound);
 *   2. algebraic folding: imad by 1 and/or plus 0, imul by 1, add/sub/or/xor of 0, shifts
 *      by 0 become iadd, imul or mov; unsigned division and remainder by a power of two
 *      become a logical shift and an and;
 *   3. copy coalescing of codegen temporaries: `OP t, ..; mov v, t` -> `OP v, ..` and
 *      `mov t, v; OP .., t, ..` -> `OP .., v, ..`.
 *
 * Why the coalescing keeps regalloc.c's loop rule sound: it only rewrites a temporary
 * with one def and one use, inside a stretch with no label, exec-mask op, jump, barrier or
 * r0 access, in which v is not touched (forward) or not written (backward). No loop head or
 * end can fall strictly inside such a stretch, so for every loop v's first reference is of
 * the same kind (read or write) as before and its interval only moves within the stretch:
 * a temporary the allocator treated as "written before read in an iteration" still is one,
 * and a carried value stays carried. The rewritten OP is a lane-wise ALU op, which reads its
 * sources before writing, so `iadd v, v, 1` is exact; loads (ld_dev completes at a later
 * `wait`), SIMD shuffles and reductions (they read other lanes) are never rewritten.
 *
 * Why reusing a constant load is exact: constant memory cannot change during a dispatch
 * (stores to it fault and do nothing) and uniforms are read-only, so every execution of
 * the load yields the same bits; what must be proven is that each lane that reads the
 * reused value was active at the earlier load. A lane inactive there has r0l = D >= 1; the
 * pass follows a lower bound `lo` on D for such lanes from the earlier load onward
 * (push/if add n; pop takes n off and must leave lo >= 1; while n needs lo >= n and else
 * lo >= 2 to leave them alone) and gives up where the bound fails, at any r0 access, when a
 * jump from outside that stretch enters it, or when a jump inside it lands where the linear
 * bound is higher than at the jump. Every use of the later load must lie in the stretch.
 */
#include <string.h>

#include "backend_internal.h"

enum {
    WINDOW = 64,       /* instructions a coalescing search looks across */
    MAX_ROUNDS = 8,    /* coalescing rounds (each can expose another) */
    MAX_EARLIER = 4    /* earlier identical constant loads tried per load */
};

typedef struct Opt {
    LangCtx *ctx;
    const LangIr *ir;
    LangIrInst *w;
    uint32_t n;
    bool *dead;
    uint32_t *defs, *uses;   /* per vreg, over live instructions */
    int32_t *label_pos;      /* per label: its position, or -1 */
    int32_t *lo_at;          /* per position: the exec-counter bound (constant loads) */
} Opt;

static int operands(const Opt *o, uint32_t p, LangBeOpd ops[ISA_MAX_OPERANDS])
{
    const char *why = NULL;
    int k = lang_be_operands(o->ir, &o->w[p].inst, ops, &why);
    if (k < 0)
        lang_be_error(o->ctx, &o->w[p].loc, "internal compiler error: %s", why);
    return k;
}

static bool live_inst(const Opt *o, uint32_t p)
{
    return !o->dead[p] && o->w[p].label < 0;
}

static void count_refs(Opt *o)
{
    memset(o->defs, 0, o->ir->num_vregs * sizeof *o->defs);
    memset(o->uses, 0, o->ir->num_vregs * sizeof *o->uses);
    for (uint32_t p = 0; p < o->n; p++) {
        if (!live_inst(o, p))
            continue;
        LangBeOpd ops[ISA_MAX_OPERANDS];
        int k = operands(o, p, ops);
        for (int i = 0; i < k; i++)
            for (uint32_t v = ops[i].vreg; v < ops[i].vreg + ops[i].nvregs; v++)
                (ops[i].def ? o->defs : o->uses)[v]++;
    }
}

static bool is_reg(const IsaOperand *op)
{
    return op->kind == ISA_OPD_R16 || op->kind == ISA_OPD_R32 || op->kind == ISA_OPD_R64;
}

static bool touches_r0(const IsaInst *in)
{
    for (int k = 0; k < ISA_MAX_OPERANDS; k++)
        if (is_reg(&in->opd[k]) && in->opd[k].index == 0)
            return true;
    return false;
}

/* Lane-wise arithmetic, conversions and moves: each lane's result depends only on its own
 * sources, which are read before the destination is written. */
static bool lane_alu(IsaOpcode op)
{
    switch (isa_ops[op].op_class) {
    case ISA_CLASS_FP32: case ISA_CLASS_FP16: case ISA_CLASS_INT: case ISA_CLASS_INT_COMPLEX:
    case ISA_CLASS_SFU: case ISA_CLASS_CONVERT:
        return true;
    case ISA_CLASS_MOVE:
        return op != ISA_OP_NOP;
    default:
        return false;
    }
}

/* What a coalescing stretch may hold between its two instructions. */
static bool plain(const Opt *o, uint32_t p)
{
    if (o->w[p].label >= 0)
        return false;
    const IsaInst *in = &o->w[p].inst;
    IsaClass c = isa_ops[in->op].op_class;
    return c != ISA_CLASS_CONTROL && c != ISA_CLASS_BARRIER && in->op != ISA_OP_WAIT &&
           !touches_r0(in);
}

static uint8_t kind_of_width(uint8_t width)
{
    return width == 16 ? ISA_OPD_R16 : width == 64 ? ISA_OPD_R64 : ISA_OPD_R32;
}

/* A register-to-register move between two distinct vregs of its own width. */
static bool plain_move(const Opt *o, const IsaInst *in)
{
    uint8_t want;
    switch (in->op) {
    case ISA_OP_MOV: want = ISA_OPD_R32; break;
    case ISA_OP_MOV16: want = ISA_OPD_R16; break;
    case ISA_OP_MOV64: want = ISA_OPD_R64; break;
    default: return false;
    }
    const IsaOperand *d = &in->opd[0], *s = &in->opd[1];
    if (d->kind != want || s->kind != want || d->flags || s->flags || d->index == 0 ||
        s->index == 0 || d->index == s->index)
        return false;
    const LangVreg *vr = o->ir->vregs;
    return kind_of_width(vr[d->index].width) == want && kind_of_width(vr[s->index].width) == want;
}

/* A codegen temporary (no source variable) with exactly one def and one use. */
static bool temp_once(const Opt *o, uint32_t t)
{
    return !o->ir->vregs[t].var && o->defs[t] == 1 && o->uses[t] == 1;
}

static bool covers(const LangBeOpd *op, uint32_t v)
{
    return v >= op->vreg && v < op->vreg + op->nvregs;
}

/* ---- copy coalescing ----------------------------------------------------------------------- */

/* `OP t, ..; mov v, t` -> `OP v, ..`. */
static bool coalesce_into_def(Opt *o, uint32_t j)
{
    const IsaInst *mv = &o->w[j].inst;
    uint32_t v = mv->opd[0].index, t = mv->opd[1].index;
    if (!temp_once(o, t))
        return false;
    uint32_t stop = j > WINDOW ? j - WINDOW : 0;
    for (uint32_t i = j; i-- > stop;) {
        if (o->dead[i])
            continue;
        if (!plain(o, i))
            return false;
        LangBeOpd ops[ISA_MAX_OPERANDS];
        int k = operands(o, i, ops);
        bool defines_t = false, touches_v = false;
        for (int x = 0; x < k; x++) {
            defines_t |= ops[x].def && covers(&ops[x], t);
            touches_v |= covers(&ops[x], v);
        }
        if (defines_t) {
            IsaInst *def = &o->w[i].inst;
            int ndefs = 0;
            for (int x = 0; x < k; x++)
                ndefs += ops[x].def;
            if (!lane_alu((IsaOpcode)def->op) || ndefs != 1 || ops[0].opd != 0 || !ops[0].def ||
                ops[0].vreg != t || ops[0].nvregs != 1 || def->opd[0].kind != mv->opd[1].kind)
                return false;
            def->opd[0].index = (uint16_t)v;
            o->dead[j] = true;
            o->defs[t] = o->uses[t] = 0;
            return true;
        }
        if (touches_v)
            return false;
    }
    return false;
}

/* `mov t, v; OP .., t, ..` -> `OP .., v, ..`. */
static bool coalesce_into_use(Opt *o, uint32_t j)
{
    const IsaInst *mv = &o->w[j].inst;
    uint32_t t = mv->opd[0].index, v = mv->opd[1].index;
    if (!temp_once(o, t))
        return false;
    uint32_t stop = j + WINDOW < o->n ? j + WINDOW : o->n;
    for (uint32_t i = j + 1; i < stop; i++) {
        if (o->dead[i])
            continue;
        if (!plain(o, i))
            return false;
        LangBeOpd ops[ISA_MAX_OPERANDS];
        int k = operands(o, i, ops);
        int use = -1;
        bool writes_v = false;
        for (int x = 0; x < k; x++) {
            if (!ops[x].def && covers(&ops[x], t))
                use = x;
            writes_v |= ops[x].def && covers(&ops[x], v);
        }
        if (use >= 0) {
            IsaInst *in = &o->w[i].inst;
            if (!lane_alu((IsaOpcode)in->op) || ops[use].vreg != t || ops[use].nvregs != 1)
                return false;
            in->opd[ops[use].opd].index = (uint16_t)v;
            o->dead[j] = true;
            o->defs[t] = o->uses[t] = 0;
            return true;
        }
        if (writes_v)
            return false;
    }
    return false;
}

static void coalesce(Opt *o)
{
    for (int round = 0; round < MAX_ROUNDS; round++) {
        count_refs(o);
        bool changed = false;
        for (uint32_t j = 0; j < o->n; j++) {
            if (!live_inst(o, j) || !plain_move(o, &o->w[j].inst))
                continue;
            if (coalesce_into_def(o, j) || coalesce_into_use(o, j))
                changed = true;
        }
        if (!changed)
            break;
    }
}

/* ---- algebraic folding --------------------------------------------------------------------- */

static bool is_imm(const IsaOperand *op, uint32_t value)
{
    return op->kind == ISA_OPD_IMM && (uint32_t)op->imm == value;
}

/* Rewrites `in` as `op d, a[, b]`, keeping its destination. */
static void become(IsaInst *in, IsaOpcode op, IsaOperand a, IsaOperand b)
{
    IsaOperand d = in->opd[0];
    memset(in, 0, sizeof *in);
    in->op = (uint16_t)op;
    in->opd[0] = d;
    in->opd[1] = a;
    in->opd[2] = b;
}

static void fold_inst(IsaInst *in)
{
    if (in->opd[0].kind != ISA_OPD_R32 || touches_r0(in))
        return;
    for (int k = 1; k < ISA_MAX_OPERANDS; k++)
        if (in->opd[k].flags)
            return;
    IsaOperand a = in->opd[1], b = in->opd[2], c = in->opd[3], none = {0};
    switch (in->op) {
    case ISA_OP_IMAD:
        if (is_imm(&b, 1) && is_imm(&c, 0))
            become(in, ISA_OP_MOV, a, none);
        else if (is_imm(&a, 1) && is_imm(&c, 0))
            become(in, ISA_OP_MOV, b, none);
        else if (is_imm(&b, 1))
            become(in, ISA_OP_IADD, a, c);
        else if (is_imm(&a, 1))
            become(in, ISA_OP_IADD, b, c);
        else if (is_imm(&c, 0))
            become(in, ISA_OP_IMUL, a, b);
        break;
    case ISA_OP_IMUL:
        if (is_imm(&b, 1))
            become(in, ISA_OP_MOV, a, none);
        else if (is_imm(&a, 1))
            become(in, ISA_OP_MOV, b, none);
        break;
    case ISA_OP_IADD: case ISA_OP_OR: case ISA_OP_XOR:
        if (is_imm(&b, 0))
            become(in, ISA_OP_MOV, a, none);
        else if (is_imm(&a, 0))
            become(in, ISA_OP_MOV, b, none);
        break;
    case ISA_OP_ISUB:
        if (is_imm(&b, 0))
            become(in, ISA_OP_MOV, a, none);
        break;
    case ISA_OP_SHL: case ISA_OP_LSR: case ISA_OP_ASR:
        if (b.kind == ISA_OPD_IMM && ((uint32_t)b.imm & 31) == 0)
            become(in, ISA_OP_MOV, a, none);
        break;
    case ISA_OP_UDIV: case ISA_OP_UREM:
        /* unsigned by a power of two: a shift or a mask (the divider costs ~6x an ALU op) */
        if (b.kind == ISA_OPD_IMM && (uint32_t)b.imm && !((uint32_t)b.imm & ((uint32_t)b.imm - 1))) {
            const uint32_t k = (uint32_t)__builtin_ctz((uint32_t)b.imm);
            IsaOperand amount = b;
            amount.imm = in->op == ISA_OP_UDIV ? k : (uint32_t)b.imm - 1;
            if (in->op == ISA_OP_UDIV && k == 0)
                become(in, ISA_OP_MOV, a, none);
            else
                become(in, in->op == ISA_OP_UDIV ? ISA_OP_LSR : ISA_OP_AND, a, amount);
        }
        break;
    case ISA_OP_AND:
        if (is_imm(&b, UINT32_MAX))
            become(in, ISA_OP_MOV, a, none);
        else if (is_imm(&a, UINT32_MAX))
            become(in, ISA_OP_MOV, b, none);
        break;
    default:
        break;
    }
}

static void fold(Opt *o)
{
    for (uint32_t p = 0; p < o->n; p++)
        if (live_inst(o, p))
            fold_inst(&o->w[p].inst);
}

/* ---- constant loads ------------------------------------------------------------------------ */

/* An ld_const of one element at a uniform base and an immediate index into a temporary. */
static bool uniform_const_load(const Opt *o, uint32_t p)
{
    if (!live_inst(o, p))
        return false;
    const IsaInst *in = &o->w[p].inst;
    if (in->op != ISA_OP_LD_CONST || in->count != 1 || in->opd[1].kind != ISA_OPD_U64 ||
        in->opd[2].kind != ISA_OPD_IMM || !is_reg(&in->opd[0]) || in->opd[0].index == 0)
        return false;
    uint32_t t = in->opd[0].index;
    return !o->ir->vregs[t].var && o->defs[t] == 1;
}

static bool same_load(const Opt *o, uint32_t p, uint32_t q)
{
    const IsaInst *a = &o->w[p].inst, *b = &o->w[q].inst;
    return a->type == b->type && a->opd[0].kind == b->opd[0].kind &&
           o->ir->vregs[a->opd[0].index].width == o->ir->vregs[b->opd[0].index].width &&
           a->opd[1].index == b->opd[1].index && a->opd[2].imm == b->opd[2].imm;
}

static int32_t exec_n(const IsaInst *in)
{
    return (int32_t)(in->opd[0].imm & 0xff);
}

/* A lower bound on r0l of the lanes that are inactive right after position p0's
 * predecessors: 1 in general, more right after a push_exec or while. */
static int32_t bound_at(const Opt *o, uint32_t p0)
{
    uint32_t stop = p0 > WINDOW ? p0 - WINDOW : 0;
    for (uint32_t p = p0; p-- > stop;) {
        if (o->dead[p])
            continue;
        if (o->w[p].label >= 0 || touches_r0(&o->w[p].inst))
            return 1;
        const IsaInst *in = &o->w[p].inst;
        switch (in->op) {
        case ISA_OP_PUSH_EXEC: return 1 + exec_n(in);
        case ISA_OP_WHILE_ICMP: case ISA_OP_WHILE_FCMP: return exec_n(in) > 1 ? exec_n(in) : 1;
        default:
            if (isa_ops[in->op].op_class == ISA_CLASS_CONTROL)
                return 1;
        }
    }
    return 1;
}

/* The end of the stretch after p0 over which lanes inactive at p0 provably stay inactive
 * (see the file comment); fills lo_at[p0+1 .. end). */
static uint32_t inactive_stretch(Opt *o, uint32_t p0)
{
    int32_t lo = bound_at(o, p0);
    for (uint32_t p = p0 + 1; p < o->n; p++) {
        o->lo_at[p] = lo;
        if (!live_inst(o, p))
            continue;
        const IsaInst *in = &o->w[p].inst;
        if (touches_r0(in))
            return p;
        int32_t k = exec_n(in);
        switch (in->op) {
        case ISA_OP_PUSH_EXEC: case ISA_OP_IF_ICMP: case ISA_OP_IF_FCMP:
            if (lo > INT32_MAX / 2)
                return p;
            lo += k;
            break;
        case ISA_OP_POP_EXEC:
            if (lo - k < 1)
                return p;
            lo -= k;
            break;
        case ISA_OP_WHILE_ICMP: case ISA_OP_WHILE_FCMP:
            if (lo < k)
                return p;
            break;
        case ISA_OP_ELSE_ICMP: case ISA_OP_ELSE_FCMP:
            if (lo < 2)
                return p;
            break;
        default:
            break;
        }
    }
    return o->n;
}

/* Jumps into (p0, end): only from inside, and never to a place with a higher bound. */
static bool jumps_stay_sound(const Opt *o, uint32_t p0, uint32_t end)
{
    for (uint32_t p = 0; p < o->n; p++) {
        if (!live_inst(o, p))
            continue;
        for (int k = 0; k < ISA_MAX_OPERANDS; k++) {
            const IsaOperand *op = &o->w[p].inst.opd[k];
            if (op->kind != ISA_OPD_LABEL)
                continue;
            int32_t tp = o->label_pos[op->index];
            if (tp <= (int32_t)p0 || tp >= (int32_t)end)
                continue;
            if (p <= p0 || p >= end || o->lo_at[p] < o->lo_at[tp])
                return false;
        }
    }
    return true;
}

/* Rewrites the reads of t1 to t0 when all of them lie in (p1, end) as whole operands. */
static bool redirect_uses(Opt *o, uint32_t t1, uint32_t t0, uint32_t p1, uint32_t end)
{
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t p = 0; p < o->n; p++) {
            if (!live_inst(o, p))
                continue;
            LangBeOpd ops[ISA_MAX_OPERANDS];
            int k = operands(o, p, ops);
            for (int x = 0; x < k; x++) {
                if (ops[x].def || !covers(&ops[x], t1))
                    continue;
                if (pass == 0 && (p <= p1 || p >= end || ops[x].vreg != t1 || ops[x].nvregs != 1))
                    return false;
                if (pass == 1)
                    o->w[p].inst.opd[ops[x].opd].index = (uint16_t)t0;
            }
        }
    }
    return true;
}

static void reuse_const_loads(Opt *o)
{
    count_refs(o);
    for (uint32_t p1 = 0; p1 < o->n; p1++) {
        if (!uniform_const_load(o, p1))
            continue;
        int tried = 0;
        for (uint32_t p0 = p1; p0-- > 0 && tried < MAX_EARLIER;) {
            if (!uniform_const_load(o, p0) || !same_load(o, p0, p1))
                continue;
            tried++;
            uint32_t end = inactive_stretch(o, p0);
            if (p1 >= end || !jumps_stay_sound(o, p0, end))
                continue;
            uint32_t t0 = o->w[p0].inst.opd[0].index, t1 = o->w[p1].inst.opd[0].index;
            if (!redirect_uses(o, t1, t0, p1, end))
                continue;
            o->dead[p1] = true;
            o->uses[t0] += o->uses[t1];
            o->defs[t1] = o->uses[t1] = 0;
            break;
        }
    }
}

/* ---- driver -------------------------------------------------------------------------------- */

uint32_t lang_opt(LangCtx *ctx, const LangIr *ir, LangIrInst *w, uint32_t n)
{
    if (!n || !ir->num_vregs)
        return n;
    Opt o = {.ctx = ctx, .ir = ir, .w = w, .n = n};
    o.dead = lang_alloc(ctx, n * sizeof *o.dead);
    o.defs = lang_alloc(ctx, ir->num_vregs * sizeof *o.defs);
    o.uses = lang_alloc(ctx, ir->num_vregs * sizeof *o.uses);
    o.label_pos = lang_alloc(ctx, (ir->num_labels + 1) * sizeof *o.label_pos);
    o.lo_at = lang_alloc(ctx, (n + 1) * sizeof *o.lo_at);
    for (uint32_t l = 0; l < ir->num_labels; l++)
        o.label_pos[l] = -1;
    for (uint32_t p = 0; p < n; p++)
        if (w[p].label >= 0)
            o.label_pos[w[p].label] = (int32_t)p;

    reuse_const_loads(&o);
    fold(&o);
    coalesce(&o);

    uint32_t m = 0;
    for (uint32_t p = 0; p < n; p++)
        if (!o.dead[p])
            w[m++] = w[p];
    return m;
}
