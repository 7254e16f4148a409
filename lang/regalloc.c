/*
 * regalloc.c — register allocation for the backend: virtual registers of 16, 32 and 64 bits
 * onto r1..r127 (r0 is the exec nesting counter), by linear scan over live intervals in the
 * linear instruction order.
 *
 * Why linear intervals are right for SIMT code: after lowering to exec-mask ops every
 * instruction executes in program order (masked), so a lane's value lives from a write to
 * a later read along the same linear order, and a register that no other vreg touches in
 * between keeps it even while other lanes write under their own masks. Loops are the
 * exception: a value may flow around the back edge. So a vreg that is live into a loop,
 * live out of it, read in the loop before any write there, or that holds a source variable
 * (which a lane may write in one iteration under one mask and read in the next under
 * another) stays live over the whole loop. Codegen's temporaries without a variable are
 * assumed written before read within an iteration.
 *
 * The register file is managed in 16-bit halves: 16-bit vregs pack two to a register,
 * 32-bit ones take an aligned register, 64-bit ones two consecutive registers, and the data
 * vregs of a memory op's .xN are one unit of consecutive registers (or halves). When the
 * file runs out, the unit that stays live longest is spilled to the stack for its whole
 * interval and the allocation is redone with r120..r127 kept as scratch registers, which
 * backend.c fills and drains with ld_stack/st_stack around each use.
 */
#include <stdlib.h>
#include <string.h>

#include "backend_internal.h"

enum { HALVES = 256 };

typedef struct Unit {
    int32_t start, end;
    uint32_t first, nmembers; /* member vregs first..first+nmembers-1 */
    uint16_t size;            /* halves */
    uint8_t align;            /* 1: any half; 2: starts a register */
    int32_t loc;              /* first half; -1 when spilled */
} Unit;

typedef struct Run {
    uint32_t a, b; /* vregs [a, b) */
} Run;

typedef struct Alloc {
    LangCtx *ctx;
    const LangIr *ir;
    const LangIrInst *insts;
    uint32_t count;
    int32_t *start, *end;
    Unit *units;
    uint32_t num_units;
    uint32_t *order;  /* units by start */
} Alloc;

static int vreg_halves(uint8_t width) { return width == 16 ? 1 : width == 64 ? 4 : 2; }

static int operands_of(const Alloc *a, uint32_t pos, LangBeOpd ops[ISA_MAX_OPERANDS])
{
    const char *why = NULL;
    int n = lang_be_operands(a->ir, &a->insts[pos].inst, ops, &why);
    if (n < 0)
        lang_be_error(a->ctx, &a->insts[pos].loc, "internal compiler error: %s", why);
    return n;
}

/* First and last reference of every vreg; the consecutive runs memory ops need. */
static Run *scan_refs(Alloc *a, uint32_t *num_runs)
{
    uint32_t nv = a->ir->num_vregs;
    for (uint32_t v = 0; v < nv; v++)
        a->start[v] = a->end[v] = -1;
    Run *runs = NULL;
    uint32_t n_runs = 0, cap = 0;
    for (uint32_t p = 0; p < a->count; p++) {
        if (a->insts[p].label >= 0)
            continue;
        LangBeOpd ops[ISA_MAX_OPERANDS];
        int n = operands_of(a, p, ops);
        for (int k = 0; k < n; k++) {
            for (uint32_t v = ops[k].vreg; v < ops[k].vreg + ops[k].nvregs; v++) {
                if (v == 0)
                    continue;
                if (a->start[v] < 0)
                    a->start[v] = (int32_t)p;
                a->end[v] = (int32_t)p;
            }
            if (ops[k].nvregs > 1) {
                if (n_runs == cap) {
                    cap = cap ? cap * 2 : 16;
                    Run *bigger = lang_alloc(a->ctx, cap * sizeof *bigger);
                    if (n_runs)
                        memcpy(bigger, runs, n_runs * sizeof *runs);
                    runs = bigger;
                }
                runs[n_runs++] = (Run){ops[k].vreg, ops[k].vreg + ops[k].nvregs};
            }
        }
    }
    *num_runs = n_runs;
    return runs;
}

/* Loop ranges [head, end] in positions: the IR's loops and every backward jump. */
static uint32_t loop_ranges(Alloc *a, int32_t **out_h, int32_t **out_e)
{
    const LangIr *ir = a->ir;
    int32_t *label_pos = lang_alloc(a->ctx, (ir->num_labels + 1) * sizeof *label_pos);
    for (uint32_t l = 0; l < ir->num_labels; l++)
        label_pos[l] = -1;
    uint32_t jumps = 0;
    for (uint32_t p = 0; p < a->count; p++) {
        if (a->insts[p].label >= 0)
            label_pos[a->insts[p].label] = (int32_t)p;
        else
            jumps++;
    }
    uint32_t cap = ir->num_loops + jumps + 1, n = 0;
    int32_t *h = lang_alloc(a->ctx, cap * sizeof *h), *e = lang_alloc(a->ctx, cap * sizeof *e);
    for (uint32_t i = 0; i < ir->num_loops; i++) {
        int32_t hp = label_pos[ir->loops[i].head_label], ep = label_pos[ir->loops[i].end_label];
        if (hp >= 0 && ep >= hp)
            h[n] = hp, e[n++] = ep;
    }
    for (uint32_t p = 0; p < a->count; p++) {
        if (a->insts[p].label >= 0)
            continue;
        for (int k = 0; k < ISA_MAX_OPERANDS; k++) {
            const IsaOperand *o = &a->insts[p].inst.opd[k];
            if (o->kind == ISA_OPD_LABEL && label_pos[o->index] >= 0 &&
                label_pos[o->index] <= (int32_t)p)
                h[n] = label_pos[o->index], e[n++] = (int32_t)p;
        }
    }
    *out_h = h;
    *out_e = e;
    return n;
}

/* Widens intervals over loops (see the file comment) until nothing changes. */
static void extend_over_loops(Alloc *a)
{
    int32_t *h, *e;
    uint32_t n = loop_ranges(a, &h, &e);
    if (!n)
        return;
    uint32_t *seen = lang_alloc(a->ctx, (a->ir->num_vregs + 1) * sizeof *seen);
    uint32_t stamp = 0;
    bool changed = true;
    for (uint32_t iter = 0; changed && iter < n + 2; iter++) {
        changed = false;
        for (uint32_t r = 0; r < n; r++) {
            stamp++;
            for (int32_t p = h[r]; p <= e[r]; p++) {
                if (a->insts[p].label >= 0)
                    continue;
                LangBeOpd ops[ISA_MAX_OPERANDS];
                int nops = operands_of(a, (uint32_t)p, ops);
                /* reads happen before the instruction's writes */
                for (int pass = 0; pass < 2; pass++) {
                    for (int k = 0; k < nops; k++) {
                        if (ops[k].def != (pass == 1))
                            continue;
                        for (uint32_t v = ops[k].vreg; v < ops[k].vreg + ops[k].nvregs; v++) {
                            if (v == 0 || seen[v] == stamp)
                                continue;
                            seen[v] = stamp;
                            bool carried = a->ir->vregs[v].var || !ops[k].def ||
                                           a->start[v] < h[r] || a->end[v] > e[r];
                            if (carried && (a->start[v] > h[r] || a->end[v] < e[r])) {
                                if (a->start[v] > h[r])
                                    a->start[v] = h[r];
                                if (a->end[v] < e[r])
                                    a->end[v] = e[r];
                                changed = true;
                            }
                        }
                    }
                }
            }
        }
    }
}

static int cmp_run(const void *x, const void *y)
{
    const Run *a = x, *b = y;
    return a->a < b->a ? -1 : a->a > b->a ? 1 : 0;
}

static void add_unit(Alloc *a, uint32_t first, uint32_t nmembers, uint16_t size, uint8_t align)
{
    Unit *u = &a->units[a->num_units++];
    u->first = first;
    u->nmembers = nmembers;
    u->size = size;
    u->align = align;
    u->start = INT32_MAX;
    u->end = -1;
    for (uint32_t v = first; v < first + nmembers; v++) {
        if (a->start[v] >= 0 && a->start[v] < u->start)
            u->start = a->start[v];
        if (a->end[v] > u->end)
            u->end = a->end[v];
    }
    u->loc = -1;
}

static void build_units(Alloc *a, Run *runs, uint32_t num_runs, int32_t *unit_of)
{
    const LangIr *ir = a->ir;
    if (num_runs)
        qsort(runs, num_runs, sizeof *runs, cmp_run);
    for (uint32_t v = 0; v < ir->num_vregs; v++)
        unit_of[v] = -1;
    for (uint32_t i = 0; i < num_runs;) {
        uint32_t lo = runs[i].a, hi = runs[i].b;
        for (i++; i < num_runs && runs[i].a < hi; i++)
            if (runs[i].b > hi)
                hi = runs[i].b;
        uint16_t size = 0;
        bool is16 = ir->vregs[lo].width == 16;
        for (uint32_t v = lo; v < hi; v++) {
            size = (uint16_t)(size + vreg_halves(ir->vregs[v].width));
            unit_of[v] = (int32_t)a->num_units;
        }
        if (size > HALVES - 2)
            lang_be_error(a->ctx, NULL, "internal compiler error: a register block of %u halves",
                          size);
        add_unit(a, lo, hi - lo, size, is16 ? 1 : 2);
    }
    for (uint32_t v = 1; v < ir->num_vregs; v++) {
        if (a->start[v] < 0 || unit_of[v] >= 0)
            continue;
        unit_of[v] = (int32_t)a->num_units;
        uint8_t w = ir->vregs[v].width;
        add_unit(a, v, 1, (uint16_t)vreg_halves(w), w == 16 ? 1 : 2);
    }
}

/* Lowest place for `size` halves; single halves go next to a half in use first, so that
 * 16-bit values pack two to a register. */
static int find_place(const int32_t *owner, int size, int align, int limit)
{
    if (size == 1) {
        for (int h = 2; h < limit; h++)
            if (owner[h] < 0 && owner[h ^ 1] >= 0)
                return h;
        for (int h = 2; h + 1 < limit; h += 2)
            if (owner[h] < 0 && owner[h + 1] < 0)
                return h;
        return -1;
    }
    for (int h = 2; h + size <= limit; h += align) {
        int k = 0;
        while (k < size && owner[h + k] < 0)
            k++;
        if (k == size)
            return h;
    }
    return -1;
}

static void set_owner(int32_t *owner, const Unit *u, int32_t value)
{
    for (int k = 0; k < u->size; k++)
        owner[u->loc + k] = value;
}

/* One linear scan with halves [2, limit) available; returns whether anything spilled. */
static bool scan(Alloc *a, int limit)
{
    int32_t owner[HALVES];
    for (int h = 0; h < HALVES; h++)
        owner[h] = h < 2 ? INT32_MAX : -1; /* r0 is the exec nesting counter */
    uint32_t *active = lang_alloc(a->ctx, (a->num_units + 1) * sizeof *active);
    uint32_t num_active = 0;
    bool spilled = false;
    for (uint32_t i = 0; i < a->num_units; i++)
        a->units[i].loc = -1;
    for (uint32_t i = 0; i < a->num_units; i++) {
        uint32_t ui = a->order[i];
        Unit *u = &a->units[ui];
        for (uint32_t k = 0; k < num_active;) {
            Unit *o = &a->units[active[k]];
            if (o->end < u->start) {
                set_owner(owner, o, -1);
                active[k] = active[--num_active];
            } else {
                k++;
            }
        }
        int place = find_place(owner, u->size, u->align, limit);
        if (place < 0) {
            /* spill whichever live unit ends last, if that makes room */
            int best = -1;
            for (uint32_t k = 0; k < num_active; k++) {
                Unit *o = &a->units[active[k]];
                if (o->end <= u->end || (best >= 0 && o->end <= a->units[active[best]].end))
                    continue;
                set_owner(owner, o, -1);
                int fits = find_place(owner, u->size, u->align, limit);
                set_owner(owner, o, (int32_t)active[k]);
                if (fits >= 0)
                    best = (int)k;
            }
            spilled = true;
            if (best < 0)
                continue; /* u itself goes to the stack */
            Unit *victim = &a->units[active[best]];
            set_owner(owner, victim, -1);
            victim->loc = -1;
            active[best] = active[--num_active];
            place = find_place(owner, u->size, u->align, limit);
        }
        u->loc = place;
        set_owner(owner, u, (int32_t)ui);
        active[num_active++] = ui;
    }
    return spilled;
}

typedef struct OrderKey {
    int32_t start;
    uint32_t unit;
} OrderKey;

static int cmp_order(const void *x, const void *y)
{
    const OrderKey *a = x, *b = y;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return a->unit < b->unit ? -1 : a->unit > b->unit;
}

void lang_regalloc(LangCtx *ctx, const LangIr *ir, const LangIrInst *insts, uint32_t count,
                   LangRegAlloc *out)
{
    uint32_t nv = ir->num_vregs ? ir->num_vregs : 1;
    Alloc a = {.ctx = ctx, .ir = ir, .insts = insts, .count = count};
    a.start = lang_alloc(ctx, nv * sizeof *a.start);
    a.end = lang_alloc(ctx, nv * sizeof *a.end);
    uint32_t num_runs;
    Run *runs = scan_refs(&a, &num_runs);
    extend_over_loops(&a);
    a.units = lang_alloc(ctx, nv * sizeof *a.units);
    int32_t *unit_of = lang_alloc(ctx, nv * sizeof *unit_of);
    build_units(&a, runs, num_runs, unit_of);
    OrderKey *keys = lang_alloc(ctx, (a.num_units + 1) * sizeof *keys);
    for (uint32_t i = 0; i < a.num_units; i++)
        keys[i] = (OrderKey){a.units[i].start, i};
    if (a.num_units)
        qsort(keys, a.num_units, sizeof *keys, cmp_order);
    a.order = lang_alloc(ctx, (a.num_units + 1) * sizeof *a.order);
    for (uint32_t i = 0; i < a.num_units; i++)
        a.order[i] = keys[i].unit;

    out->spilled = scan(&a, HALVES);
    if (out->spilled)
        scan(&a, LANG_RA_SCRATCH_REG * 2);

    out->half = lang_alloc(ctx, nv * sizeof *out->half);
    out->spill = lang_alloc(ctx, nv * sizeof *out->spill);
    out->start = a.start;
    out->end = a.end;
    uint32_t stack = (ir->stack_bytes + 3u) & ~3u;
    for (uint32_t v = 0; v < nv; v++)
        out->half[v] = out->spill[v] = -1;
    out->half[0] = 0;
    for (uint32_t i = 0; i < a.num_units; i++) {
        Unit *u = &a.units[i];
        uint32_t off = 0; /* halves from the unit's start */
        for (uint32_t v = u->first; v < u->first + u->nmembers; v++) {
            if (u->loc >= 0)
                out->half[v] = u->loc + (int32_t)off;
            else
                out->spill[v] = (int32_t)(stack + off * 2);
            off += (uint32_t)vreg_halves(ir->vregs[v].width);
        }
        if (u->loc < 0)
            stack += ((uint32_t)u->size * 2 + 3u) & ~3u;
    }
    out->stack_bytes = out->spilled ? stack : ir->stack_bytes;
}
