/*
 * dce.c — dead-code elimination on the LangIr, after opt.c's clean-ups and before register
 * allocation (backend.c): an instruction without side effects none of whose results is
 * ever read is removed, transitively (a value read only by removed instructions is dead
 * too), as an optimizing GPU compiler (Apple's is LLVM at -O2) does, so that the timing
 * model does not charge code the hardware would never run.
 *
 * What may go: lane-wise arithmetic, conversions, moves and get_sr; SIMD-group and quad
 * functions (shuffles, broadcasts, ballots, reductions, prefix sums) and SIMD-group matrix
 * multiplies, which read other lanes but write nothing else (LLVM removes an unused
 * convergent intrinsic that does not touch memory); and loads of every address space
 * (LLVM removes a dead non-volatile load; lockstep's language ignores `volatile`, and an
 * atomic load is an atomic, which stays). A removed load no longer faults, is no longer
 * reported out of bounds or as a race, exactly as on the hardware, where the compiled code
 * would not read memory either. Everything else stays: stores, atomics, barriers, the
 * exec-mask ops and jumps, anything that writes r0 (the exec nesting counter), tensor
 * multiplies (tmma: the checks count each run of a tensor operation per SIMD-group), the
 * markers of declarations without a value and of thread-memory scopes (the checkers' undefs
 * and symbols), and instructions that are part of a call compiled to several (IsaFnPart:
 * the checks read a shuffle-and-fill's modulo from them).
 *
 * Liveness is "strongly live" (faint-variable) analysis, a backward dataflow to a fixed
 * point over the control flow graph of the exec-mask code: a value is live where a kept
 * instruction may read it later, and an instruction is kept when it has a side effect or
 * writes a live value; the uses of an instruction found dead never count, so a chain of
 * dead computations (or a loop-carried value only its own update reads) goes in one
 * analysis. Successors are the next instruction and jump targets (jmp_exec_any back edges
 * make loops); `stop` and `jmp` do not fall through.
 *
 * SIMT writes are partial: an instruction writes only the lanes active under the exec mask,
 * and the others keep their value, which a later instruction may read (after the if, or in
 * the next loop iteration). So a write ends (kills) an earlier value only within a block:
 * a stretch of instructions that all run under the same mask (no label, exec-mask op, jump
 * or r0 write inside), and only when it writes every bit of the vreg (a 16-bit write of a
 * 32-bit vreg's low half, or a 32-bit write of a 64-bit pair's low register, kills nothing)
 * with a lane-wise ALU op (a load completes at a later `wait`). At a block's entry whatever
 * is live at its exit is live too (the lanes the block does not run pass it through).
 * Reads of other lanes (shuffles) need nothing more: they read a register whose inactive
 * lanes were written before the block, which the entry rule keeps live.
 */
#include <string.h>

#include "backend_internal.h"

typedef struct Dce {
    LangCtx *ctx;
    const LangIr *ir;
    LangIrInst *w;
    uint32_t n;
    uint32_t words;          /* 64-bit words of a scan's live set (every vreg) */
    uint32_t nblocks;
    uint32_t *block_start;   /* per block: first position; [nblocks] = n */
    uint32_t *block_of;      /* per position: its block */
    int32_t *label_block;    /* per label: the block it starts, or -1 */
    uint64_t *live_in;       /* per block: the global vregs live at entry */
    uint32_t gwords;         /* words of those sets: the global vregs' slots */
    uint32_t *slot;          /* per vreg: its bit in a live set (globals first) */
    LangBeOpd *ops;          /* per position: its register operands */
    uint8_t *nops;
} Dce;

static bool test_bit(const Dce *d, const uint64_t *s, uint32_t v)
{
    return s[d->slot[v] >> 6] >> (d->slot[v] & 63) & 1;
}
static void set_bit(const Dce *d, uint64_t *s, uint32_t v)
{
    s[d->slot[v] >> 6] |= 1ull << (d->slot[v] & 63);
}
static void clear_bit(const Dce *d, uint64_t *s, uint32_t v)
{
    s[d->slot[v] >> 6] &= ~(1ull << (d->slot[v] & 63));
}

static int vreg_halves(uint8_t width) { return width == 16 ? 1 : width == 64 ? 4 : 2; }

static bool writes_r0(const Dce *d, uint32_t p)
{
    for (int k = 0; k < d->nops[p]; k++)
        if (d->ops[p * ISA_MAX_OPERANDS + k].def && d->ops[p * ISA_MAX_OPERANDS + k].vreg == 0)
            return true;
    return false;
}

/* Lane-wise: each lane's result comes from its own sources (a kill is exact for it). */
static bool lane_wise(IsaOpcode op)
{
    switch (isa_ops[op].op_class) {
    case ISA_CLASS_FP32: case ISA_CLASS_FP16: case ISA_CLASS_INT: case ISA_CLASS_INT_COMPLEX:
    case ISA_CLASS_SFU: case ISA_CLASS_CONVERT: case ISA_CLASS_MOVE:
        return op != ISA_OP_NOP;
    default:
        return false;
    }
}

/* May go when nothing reads what it writes (see the file comment). */
static bool removable(const Dce *d, uint32_t p)
{
    const LangIrInst *it = &d->w[p];
    if (it->label >= 0 || it->part_of || writes_r0(d, p))
        return false;
    IsaOpcode op = (IsaOpcode)it->inst.op;
    switch (op) {
    case ISA_OP_LD_DEV: case ISA_OP_LD_CONST: case ISA_OP_LD_TG: case ISA_OP_LD_STACK:
    case ISA_OP_MMA32: case ISA_OP_MMA16:
        return true;
    default:
        break;
    }
    IsaClass c = isa_ops[op].op_class;
    return lane_wise(op) || c == ISA_CLASS_SIMD || c == ISA_CLASS_SIMD_REDUCE;
}

/* Control flow and r0 writes end a block after them; labels start one. */
static bool ends_block(const Dce *d, uint32_t p)
{
    const LangIrInst *it = &d->w[p];
    return it->label < 0 && (isa_ops[it->inst.op].op_class == ISA_CLASS_CONTROL || writes_r0(d, p));
}

static void find_blocks(Dce *d)
{
    d->block_start = lang_alloc(d->ctx, (d->n + 2) * sizeof *d->block_start);
    d->block_of = lang_alloc(d->ctx, (d->n + 1) * sizeof *d->block_of);
    d->label_block = lang_alloc(d->ctx, (d->ir->num_labels + 1) * sizeof *d->label_block);
    for (uint32_t l = 0; l < d->ir->num_labels; l++)
        d->label_block[l] = -1;
    uint32_t b = 0;
    for (uint32_t p = 0; p < d->n; p++) {
        bool starts = p == 0 || d->w[p].label >= 0 || ends_block(d, p - 1);
        if (starts)
            d->block_start[b++] = p;
        d->block_of[p] = b - 1;
        if (d->w[p].label >= 0)
            d->label_block[d->w[p].label] = (int32_t)(b - 1);
    }
    d->nblocks = b;
    d->block_start[b] = d->n;
}

/* The blocks control may go to after block b: up to two. */
static int successors(const Dce *d, uint32_t b, uint32_t succ[2])
{
    int k = 0;
    uint32_t last = d->block_start[b + 1] - 1;
    const LangIrInst *it = &d->w[last];
    IsaOpcode op = it->label < 0 ? (IsaOpcode)it->inst.op : ISA_OP_NOP;
    if (op == ISA_OP_JMP || op == ISA_OP_JMP_EXEC_ANY || op == ISA_OP_JMP_EXEC_NONE) {
        int32_t t = d->label_block[it->inst.opd[0].index];
        if (t >= 0)
            succ[k++] = (uint32_t)t;
    }
    if (op != ISA_OP_JMP && op != ISA_OP_STOP && b + 1 < d->nblocks)
        succ[k++] = b + 1;
    return k;
}

/* Whether the instruction at p stays, given the vregs live after it. */
static bool needed(const Dce *d, const bool *keep_always, uint32_t p, const uint64_t *live)
{
    if (keep_always[p])
        return true;
    const LangBeOpd *ops = &d->ops[p * ISA_MAX_OPERANDS];
    for (int k = 0; k < d->nops[p]; k++)
        if (ops[k].def)
            for (uint32_t v = ops[k].vreg; v < ops[k].vreg + ops[k].nvregs; v++)
                if (test_bit(d, live, v))
                    return true;
    return false;
}

/* Whether operand o of the instruction at p writes every bit of its vreg in the active lanes
 * before anything can read it (see the file comment). */
static bool kills(const Dce *d, uint32_t p, const LangBeOpd *o)
{
    return lane_wise((IsaOpcode)d->w[p].inst.op) && !lang_ir_is_marker(&d->w[p]) && o->def &&
           o->nvregs == 1 && o->vreg != 0 &&
           o->halves == vreg_halves(d->ir->vregs[o->vreg].width);
}

/* Steps the live set from after p to before p (p is kept). */
static void step_back(const Dce *d, uint32_t p, uint64_t *live)
{
    const LangBeOpd *ops = &d->ops[p * ISA_MAX_OPERANDS];
    for (int k = 0; k < d->nops[p]; k++)
        if (kills(d, p, &ops[k]))
            clear_bit(d, live, ops[k].vreg);
    for (int k = 0; k < d->nops[p]; k++)
        if (!ops[k].def)
            for (uint32_t v = ops[k].vreg; v < ops[k].vreg + ops[k].nvregs; v++)
                if (v != 0)
                    set_bit(d, live, v);
}

/* live_out of block b into out's global part. (Its other part stays as it is: all clear
 * between blocks, since a local vreg's first reference kills it.) */
static void live_out(const Dce *d, uint32_t b, uint64_t *out)
{
    memset(out, 0, d->gwords * sizeof *out);
    uint32_t succ[2];
    int k = successors(d, b, succ);
    for (int i = 0; i < k; i++)
        for (uint32_t w = 0; w < d->gwords; w++)
            out[w] |= d->live_in[(size_t)succ[i] * d->gwords + w];
}

/* Only vregs whose value can cross a block boundary need a bit in every block's set: those
 * referenced in two blocks or more, or in one block whose first reference to it is not a
 * killing write (the value comes in from its entry, as around a loop). The others (most of
 * codegen's temporaries) are dead at every block's entry and exit. */
static void assign_slots(Dce *d)
{
    const uint32_t nv = d->ir->num_vregs;
    int32_t *block = lang_alloc(d->ctx, (nv + 1) * sizeof *block);
    bool *global = lang_alloc(d->ctx, nv + 1);
    for (uint32_t v = 0; v < nv; v++)
        block[v] = -1;
    for (uint32_t p = 0; p < d->n; p++) {
        const LangBeOpd *ops = &d->ops[p * ISA_MAX_OPERANDS];
        const int32_t b = (int32_t)d->block_of[p];
        for (int pass = 0; pass < 2; pass++) /* reads come before writes */
            for (int k = 0; k < d->nops[p]; k++) {
                if (ops[k].def != (pass == 1))
                    continue;
                for (uint32_t v = ops[k].vreg; v < ops[k].vreg + ops[k].nvregs; v++) {
                    if (block[v] < 0)
                        global[v] = !kills(d, p, &ops[k]);
                    else if (block[v] != b)
                        global[v] = true;
                    block[v] = b;
                }
            }
    }
    d->slot = lang_alloc(d->ctx, (nv + 1) * sizeof *d->slot);
    uint32_t n = 0;
    for (uint32_t v = 0; v < nv; v++)
        if (global[v])
            d->slot[v] = n++;
    d->gwords = (n + 63) / 64;
    for (uint32_t v = 0; v < nv; v++)
        if (!global[v])
            d->slot[v] = n++;
    d->words = (n + 63) / 64;
}

uint32_t lang_dce(LangCtx *ctx, const LangIr *ir, LangIrInst *insts, uint32_t count, bool *gone)
{
    Dce d = {.ctx = ctx, .ir = ir, .w = insts, .n = count};
    if (gone)
        memset(gone, 0, ir->num_vregs * sizeof *gone);
    if (!count)
        return 0;
    d.ops = lang_alloc(ctx, (size_t)count * ISA_MAX_OPERANDS * sizeof *d.ops);
    d.nops = lang_alloc(ctx, count);
    for (uint32_t p = 0; p < count; p++) {
        if (insts[p].label >= 0)
            continue;
        const char *why = NULL;
        int k = lang_be_operands(ir, &insts[p].inst, &d.ops[p * ISA_MAX_OPERANDS], &why);
        if (k < 0)
            lang_be_error(ctx, &insts[p].loc, "internal compiler error: %s", why);
        d.nops[p] = (uint8_t)k;
    }
    bool *keep_always = lang_alloc(ctx, count);
    for (uint32_t p = 0; p < count; p++)
        keep_always[p] = insts[p].label < 0 && !removable(&d, p);
    find_blocks(&d);
    assign_slots(&d);
    d.live_in = lang_alloc(ctx, ((size_t)d.nblocks * d.gwords + 1) * sizeof *d.live_in);
    uint64_t *live = lang_alloc(ctx, d.words * sizeof *live);
    uint64_t *out = lang_alloc(ctx, d.words * sizeof *out);

    /* Monotone from empty sets: the least fixed point, where only kept code reads. */
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t b = d.nblocks; b-- > 0;) {
            live_out(&d, b, out);
            memcpy(live, out, d.gwords * sizeof *live);
            for (uint32_t p = d.block_start[b + 1]; p-- > d.block_start[b];)
                if (insts[p].label < 0 && needed(&d, keep_always, p, live))
                    step_back(&d, p, live);
            uint64_t *in = &d.live_in[(size_t)b * d.gwords];
            for (uint32_t w = 0; w < d.gwords; w++) {
                uint64_t x = live[w] | out[w]; /* lanes the block does not run pass through */
                if (x != in[w]) {
                    in[w] = x;
                    changed = true;
                }
            }
        }
    }

    /* Remove, remembering which vregs lost every reference but a marker's. */
    bool *lost = gone ? lang_alloc(ctx, ir->num_vregs + 1) : NULL;
    bool *has = gone ? lang_alloc(ctx, ir->num_vregs + 1) : NULL;
    bool *dead = lang_alloc(ctx, count);
    for (uint32_t b = 0; b < d.nblocks; b++) {
        live_out(&d, b, live);
        for (uint32_t p = d.block_start[b + 1]; p-- > d.block_start[b];) {
            if (insts[p].label >= 0)
                continue;
            dead[p] = !needed(&d, keep_always, p, live);
            if (!dead[p])
                step_back(&d, p, live);
        }
    }
    uint32_t m = 0;
    for (uint32_t p = 0; p < count; p++) {
        if (gone && insts[p].label < 0 && !lang_ir_is_marker(&insts[p]))
            for (int k = 0; k < d.nops[p]; k++) {
                const LangBeOpd *o = &d.ops[p * ISA_MAX_OPERANDS + k];
                for (uint32_t v = o->vreg; v < o->vreg + o->nvregs; v++)
                    (dead[p] ? lost : has)[v] = true;
            }
        if (!dead[p])
            insts[m++] = insts[p];
    }
    for (uint32_t v = 1; gone && v < ir->num_vregs; v++)
        gone[v] = lost[v] && !has[v];
    return m;
}
