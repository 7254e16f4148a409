/*
 * timing_setup.c — everything of timed mode around the cycle loop: the per-instruction
 * timing precomputed once per dispatch (so the loop never decodes operands), placing
 * threadgroups on cores as their resources allow, occupancy, and the statistics.
 *
 * Placement. Threadgroups are queued in dispatch order (x fastest, then y, z) and placed in
 * that order, each on the core with the fewest resident threads among those with room for
 * it: threads (Mesa's occupancy table for the kernel's register count, counted in whole
 * SIMD-groups), threadgroup memory per core and max_threadgroups_per_core. A core with
 * nothing resident always takes one, so a threadgroup larger than the limits still runs.
 * Within a core each SIMD-group is bound to the scheduler with the fewest SIMD-groups
 * (lowest index on a tie). When observers are attached, one threadgroup is resident at a
 * time and its SIMD-groups take turns as in functional mode (each until it stops or reaches
 * a barrier): the checkers reason about that order, and see the same events in both modes.
 */
#include <stdio.h>
#include <stdlib.h>

#include "timing_internal.h"

/* ---- per-instruction timing --------------------------------------------------------------- */

typedef struct HalfSet {
    uint16_t list[64];
    uint32_t n;
    uint8_t seen[260];
    uint32_t limit;
} HalfSet;

static void add_halves(HalfSet *h, uint32_t first, uint32_t count)
{
    for (uint32_t x = first; x < first + count; x++) {
        if (x >= h->limit || h->seen[x] || h->n >= 64)
            continue;
        h->seen[x] = 1;
        h->list[h->n++] = (uint16_t)x;
    }
}

static void add_operand(HalfSet *h, const IsaOperand *o)
{
    switch ((IsaOperandKind)o->kind) {
    case ISA_OPD_R32: add_halves(h, o->index * 2u, 2); break;
    case ISA_OPD_R16: add_halves(h, o->index, 1); break;
    case ISA_OPD_R64: add_halves(h, o->index * 2u, 4); break;
    default: break;
    }
}

/* The data registers of a memory op: .xN consecutive registers (halves for f16 formats). */
static void add_data(HalfSet *h, const IsaInst *in)
{
    const IsaOperand *o = &in->opd[0];
    uint32_t n = in->count ? in->count : 1;
    if (o->kind == ISA_OPD_R16)
        add_halves(h, o->index, n);
    else if (o->kind == ISA_OPD_R32 || o->kind == ISA_OPD_R64)
        add_halves(h, o->index * 2u, 2 * n);
}

static TKind kind_of(IsaOpcode op)
{
    switch (op) {
    case ISA_OP_LD_DEV: return T_LD_DEV;
    case ISA_OP_ST_DEV: return T_ST_DEV;
    case ISA_OP_LD_CONST: return T_LD_CONST;
    case ISA_OP_ATOM_DEV: case ISA_OP_CMPXCHG_DEV: return T_ATOM_DEV;
    case ISA_OP_LD_TG: return T_LD_TG;
    case ISA_OP_ST_TG: return T_ST_TG;
    case ISA_OP_ATOM_TG: case ISA_OP_CMPXCHG_TG: return T_ATOM_TG;
    case ISA_OP_LD_STACK: case ISA_OP_ST_STACK: return T_STACK;
    case ISA_OP_WAIT: return T_WAIT;
    case ISA_OP_BARRIER: return T_BARRIER;
    default: return T_ALU;
    }
}

static uint8_t flops_of(IsaOpcode op)
{
    switch (op) {
    case ISA_OP_FFMA32: case ISA_OP_FFMA16:
        return 2;
    case ISA_OP_MMA32: case ISA_OP_MMA16: case ISA_OP_TMMA:
        return 32; /* 8 x 8 x 8 multiply-adds a SIMD-group: 1024 flops, 32 a lane */
    case ISA_OP_FADD32: case ISA_OP_FMUL32: case ISA_OP_FMIN32: case ISA_OP_FMAX32:
    case ISA_OP_FADD16: case ISA_OP_FMUL16: case ISA_OP_FMIN16: case ISA_OP_FMAX16:
        return 1;
    default:
        return 0;
    }
}

static bool is_load(IsaOpcode op)
{
    return op == ISA_OP_LD_DEV || op == ISA_OP_LD_CONST || op == ISA_OP_LD_TG || op == ISA_OP_LD_STACK;
}

void timing_precompute(TimedRun *t)
{
    const IsaProgram *p = t->d->program;
    const SimGpuConfig *cfg = t->cfg;
    t->num_halves = p->num_regs * 2u;
    t->tinst = util_calloc(p->count, sizeof *t->tinst);
    size_t cap = 0, used = 0;
    HalfSet *writes = util_calloc(1, sizeof *writes);
    for (uint32_t i = 0; i < p->count; i++) {
        const IsaInst *in = &p->code[i];
        IsaOpcode op = (IsaOpcode)in->op;
        const IsaOpInfo *info = &isa_ops[op];
        TInst *ti = &t->tinst[i];
        ti->latency = cfg->op[op].latency;
        ti->interval = cfg->op[op].interval;
        /* matrix multiply-accumulate runs on the fp32 pipe, as the ALUs of M1-M4 do it; tensor
         * ops too, unless the GPU has a neural accelerator */
        IsaClass pipe = info->op_class;
        if (pipe == ISA_CLASS_MATRIX ||
            (pipe == ISA_CLASS_TENSOR && !(cfg->neural_fp16_flops_per_cycle_per_core > 0)))
            pipe = ISA_CLASS_FP32;
        ti->pipe = (uint8_t)pipe;
        ti->flops_unit = pipe == ISA_CLASS_TENSOR; /* on the neural accelerator */
        ti->kind = (uint8_t)kind_of(op);
        ti->flops = flops_of(op);
        ti->get_sr = op == ISA_OP_GET_SR;
        bool jumps = op == ISA_OP_JMP || op == ISA_OP_JMP_EXEC_ANY || op == ISA_OP_JMP_EXEC_NONE;
        /* What a core may issue running ahead of the others (timing.c, core_ahead): work
         * that touches nothing outside its SIMD-group, threadgroup and core, and leaves the
         * SIMD-group running. Threadgroup accesses only in bounds, checked at the pick: a
         * fault is recorded in issue order. */
        bool runs_on = op != ISA_OP_STOP && i + 1 < p->count &&
                       (!jumps || t->d->code[i].target < p->count);
        TKind kind = kind_of(op);
        if (!runs_on)
            ti->local = T_GLOBAL;
        else if (kind == T_ALU)
            ti->local = T_LOCAL_REGS;
        else if (kind == T_WAIT || kind == T_BARRIER)
            ti->local = T_LOCAL;
        else if (kind == T_LD_TG || kind == T_ST_TG || kind == T_ATOM_TG)
            ti->local = T_LOCAL_IN_BOUNDS;
        else
            ti->local = T_GLOBAL;
        if (op == ISA_OP_LD_DEV)
            ti->slot = (uint8_t)(in->opd[3].imm & 1);
        else if (op == ISA_OP_WAIT)
            ti->slot = (uint8_t)(in->opd[0].imm & 1);
        if (info->modifiers & ISA_MOD_MEM) {
            ti->elems = in->count ? in->count : 1;
            ti->esize = (uint8_t)isa_fmt_size((IsaMemFormat)in->type);
        } else {
            ti->elems = 1;
            ti->esize = 4;
        }
        /* Written halves first, then the read ones not already listed. */
        memset(writes, 0, sizeof *writes);
        writes->limit = t->num_halves;
        const char *letters = info->operands;
        size_t nletters = (strlen(letters) + 1) / 2;
        for (int pass = 0; pass < 2; pass++) {
            for (size_t k = 0; k < nletters && k < ISA_MAX_OPERANDS; k++) {
                char c = letters[2 * k];
                bool dst = c == 'D' || c == 'H' || c == 'P' || c == 'x' || (c == 'm' && is_load(op));
                bool src = c == 's' || c == 'h' || c == 'p' || c == 'y' || c == 'b' || c == 'a' ||
                           (c == 'm' && !is_load(op));
                if ((pass == 0 && !dst) || (pass == 1 && !src))
                    continue;
                if (c == 'm')
                    add_data(writes, in);
                else
                    add_operand(writes, &in->opd[k]);
            }
            if (pass == 0)
                ti->nwrite = (uint8_t)writes->n;
        }
        ti->ncheck = (uint8_t)writes->n;
        ti->fixed = ti->ncheck <= 4 && ti->nwrite <= 2;
        for (uint32_t k = 0; k < 4; k++)
            ti->rd[k] = (uint16_t)(k < ti->ncheck ? writes->list[k] : T_SB_ZERO(t));
        for (uint32_t k = 0; k < 2; k++)
            ti->wr[k] = (uint16_t)(k < ti->nwrite ? writes->list[k] : T_SB_SINK(t));
        util_reserve((void **)&t->halves, &cap, used + writes->n + 1, sizeof *t->halves);
        ti->first = (uint32_t)used;
        memcpy(t->halves + used, writes->list, writes->n * sizeof *t->halves);
        used += writes->n;
    }
    if (!t->halves)
        t->halves = util_calloc(1, sizeof *t->halves);
    free(writes);
    uint32_t nmemo = 0;
    for (uint32_t i = 0; i < p->count; i++) {
        TInst *ti = &t->tinst[i];
        if (ti->kind >= T_LD_TG && ti->kind <= T_ATOM_TG && nmemo < UINT16_MAX)
            ti->memo = (uint16_t)++nmemo; /* past 65535 they share entry 0: still exact */
    }
    t->memo = util_calloc(nmemo + 1, sizeof *t->memo);
}

/* ---- placement ---------------------------------------------------------------------------- */

void timing_resident_change(TCore *core, uint64_t now, int delta)
{
    core->resident_area += (uint64_t)core->resident * (now - core->resident_since);
    core->resident_since = now;
    core->resident = (uint32_t)((int)core->resident + delta);
}

static TSlot *new_slot(TimedRun *t)
{
    if (t->free_slots) {
        TSlot *s = t->free_slots;
        t->free_slots = s->next_free;
        return s;
    }
    const IsaProgram *p = t->d->program;
    SimDispatch *d = t->d;
    uint32_t max_groups = (d->tg_size[0] * d->tg_size[1] * d->tg_size[2] + W - 1) / W;
    TSlot *s = util_calloc(1, sizeof *s);
    s->groups = util_calloc(max_groups, sizeof *s->groups);
    s->tgroups = util_calloc(max_groups, sizeof *s->tgroups);
    s->regs = util_calloc((size_t)max_groups * p->num_regs * W + 1, sizeof *s->regs);
    s->stack = util_calloc((size_t)max_groups * W * (p->stack_bytes ? p->stack_bytes : 1), 1);
    s->tg_memory = util_calloc(d->tg_mem_bytes ? d->tg_mem_bytes : 1, 1);
    s->sb = util_calloc((size_t)max_groups * (t->num_halves + 2), sizeof *s->sb);
    s->slot_done = util_calloc((size_t)max_groups * 2 * t->slot_cap, sizeof *s->slot_done);
    util_reserve((void **)&t->slots, &t->cap_slots, t->num_slots + 1, sizeof *t->slots);
    t->slots[t->num_slots++] = s;
    return s;
}

static void notify_tg(TimedRun *t, TSlot *slot, bool begin)
{
    const SimLaunch *L = t->d->launch;
    for (uint32_t i = 0; i < L->num_observers; i++) {
        SimObserver *o = L->observers[i];
        void (*fn)(void *, const SimThreadgroupView *) = begin ? o->threadgroup_begin : o->threadgroup_end;
        if (fn)
            fn(o->ctx, &slot->view);
    }
}

static uint32_t simd_threads(const SimDispatch *d, uint64_t linear, uint32_t pos[3])
{
    pos[0] = (uint32_t)(linear % d->tg_count[0]);
    pos[1] = (uint32_t)(linear / d->tg_count[0] % d->tg_count[1]);
    pos[2] = (uint32_t)(linear / ((uint64_t)d->tg_count[0] * d->tg_count[1]));
    uint32_t threads = 1;
    for (int k = 0; k < 3; k++) {
        uint64_t left = d->grid_size[k] - (uint64_t)pos[k] * d->tg_size[k];
        threads *= (uint32_t)(left < d->tg_size[k] ? left : d->tg_size[k]);
    }
    return (threads + W - 1) / W * W;
}

static bool has_room(const TimedRun *t, const TCore *core, uint32_t threads)
{
    if (!core->tgs)
        return true;
    const SimGpuConfig *cfg = t->cfg;
    return core->threads + threads <= t->occ_threads &&
           core->tgs < cfg->max_threadgroups_per_core &&
           core->tg_mem + t->d->tg_mem_bytes <= cfg->tg_memory_per_core;
}

/* Whether a threadgroup may yet be placed on core: some are waiting, and it has room for
 * the smallest there can be (one SIMD-group). */
bool timing_may_place(const TimedRun *t, const TCore *core)
{
    return t->next_tg < t->total_tgs && has_room(t, core, W);
}

void timing_place(TimedRun *t, uint64_t now)
{
    SimDispatch *d = t->d;
    while (t->next_tg < t->total_tgs) {
        if (t->observed && t->resident_tgs)
            return;
        uint32_t pos[3];
        uint32_t threads = simd_threads(d, t->next_tg, pos);
        TCore *core = NULL;
        for (uint32_t c = 0; c < t->num_cores; c++) {
            TCore *k = &t->cores[c];
            if (has_room(t, k, threads) && (!core || k->threads < core->threads))
                core = k;
        }
        if (!core)
            return;
        TSlot *slot = new_slot(t);
        slot->core = (uint32_t)(core - t->cores);
        sim_setup_threadgroup(d, &slot->view, slot->groups, slot->regs, slot->stack,
                              slot->tg_memory, pos, t->next_tg);
        t->next_tg++;
        slot->n = slot->view.num_simdgroups;
        slot->arrived = slot->done = slot->turn = 0;
        slot->threads = threads;
        core->threads += threads;
        core->tgs++;
        core->tg_mem += d->tg_mem_bytes;
        t->resident_tgs++;
        notify_tg(t, slot, true);
        size_t halves = t->num_halves + 2;
        memset(slot->sb, 0, slot->n * halves * sizeof *slot->sb);
        /* Threadgroups placed as others end start the cycle after. */
        uint64_t start = now ? now + 1 : 0;
        for (uint32_t i = 0; i < slot->n; i++) {
            TGroup *tg = &slot->tgroups[i];
            memset(tg, 0, sizeof *tg);
            tg->g = &slot->groups[i];
            tg->slot = slot;
            tg->core = slot->core;
            tg->tg_memory = slot->tg_memory;
            tg->sb = slot->sb + i * halves;
            tg->slot_done = slot->slot_done + (size_t)i * 2 * t->slot_cap;
            uint32_t best = 0;
            for (uint32_t k = 1; k < t->spc; k++)
                if (core->sched[k].n < core->sched[best].n)
                    best = k;
            tg->sched = (uint8_t)best;
            TSched *s = &core->sched[best];
            util_reserve((void **)&s->list, &s->cap, s->n + 1, sizeof *s->list);
            tg->pos = s->n;
            tg->sp = s;
            s->list[s->n++].tg = tg;
            timing_resident_change(core, now, 1);
            timing_compute_ready(t, tg, now);
            if (tg->ready < start) {
                tg->ready = start;
                timing_publish(t, tg);
            }
            timing_poke(t, tg, start);
        }
    }
}

void timing_finish_threadgroup(TimedRun *t, TSlot *slot, uint64_t now)
{
    SimDispatch *d = t->d;
    TCore *core = &t->cores[slot->core];
    notify_tg(t, slot, false);
    core->threads -= slot->threads;
    core->tgs--;
    core->tg_mem -= d->tg_mem_bytes;
    t->resident_tgs--;
    d->result->threadgroups++;
    d->result->simdgroups += slot->n;
    d->result->threads += slot->view.threads;
    if (t->current == slot)
        t->current = NULL;
    slot->n = 0;
    slot->next_free = t->free_slots;
    t->free_slots = slot;
    timing_place(t, now);
}

/* ---- occupancy and statistics ------------------------------------------------------------- */

static void occupancy(TimedRun *t, SimStats *st)
{
    const SimGpuConfig *cfg = t->cfg;
    const SimDispatch *d = t->d;
    uint32_t regs = d->program->num_regs;
    uint32_t tg_threads = d->tg_size[0] * d->tg_size[1] * d->tg_size[2];
    uint32_t groups = (tg_threads + W - 1) / W;
    uint32_t by_threads = t->occ_threads / (groups * W);
    uint32_t limit = by_threads;
    if (t->occ_threads < cfg->max_threads_per_core)
        snprintf(st->occupancy_limiter, sizeof st->occupancy_limiter, "registers (%u per thread)", regs);
    else
        snprintf(st->occupancy_limiter, sizeof st->occupancy_limiter, "threads per core (%u)",
                 cfg->max_threads_per_core);
    if (cfg->max_threadgroups_per_core < limit) {
        limit = cfg->max_threadgroups_per_core;
        snprintf(st->occupancy_limiter, sizeof st->occupancy_limiter, "threadgroups per core (%u)", limit);
    }
    if (d->tg_mem_bytes && cfg->tg_memory_per_core / d->tg_mem_bytes < limit) {
        limit = cfg->tg_memory_per_core / d->tg_mem_bytes;
        snprintf(st->occupancy_limiter, sizeof st->occupancy_limiter,
                 "threadgroup memory (%u bytes per threadgroup)", d->tg_mem_bytes);
    }
    if (t->observed && limit > 1) {
        limit = 1;
        snprintf(st->occupancy_limiter, sizeof st->occupancy_limiter,
                 "observers attached (one threadgroup at a time)");
    }
    if (limit == 0)
        limit = 1; /* an empty core always takes one */
    uint64_t per_core = (t->total_tgs + t->num_cores - 1) / t->num_cores;
    if (per_core < limit) {
        limit = (uint32_t)per_core;
        snprintf(st->occupancy_limiter, sizeof st->occupancy_limiter, "grid size (%llu threadgroups)",
                 (unsigned long long)t->total_tgs);
    }
    st->max_resident_simdgroups = limit * groups;
}

void timing_fill_stats(TimedRun *t)
{
    const SimGpuConfig *cfg = t->cfg;
    SimResult *r = t->d->result;
    SimStats *st = &r->stats;
    uint64_t end = t->end;
    for (uint32_t c = 0; c < t->num_cores; c++)
        for (uint32_t k = 0; k < t->spc; k++) {
            TSched *s = &t->cores[c].sched[k];
            if (end > s->acct)
                t->stall[s->n ? s->idle_reason : SIM_STALL_NO_WORK] += end - s->acct;
        }
    r->timed = true;
    st->cycles = end;
    double hz = cfg->clock_mhz * 1e6;
    st->seconds = hz > 0 ? (double)end / hz : 0;
    st->num_cores = t->num_cores;
    st->cores = util_calloc(t->num_cores, sizeof *st->cores);
    double resident = 0;
    for (uint32_t c = 0; c < t->num_cores; c++) {
        TCore *core = &t->cores[c];
        timing_resident_change(core, end, 0);
        st->cores[c].busy_cycles = core->busy;
        st->cores[c].instructions = core->instructions;
        st->cores[c].avg_resident_simdgroups = end ? (double)core->resident_area / (double)end : 0;
        resident += st->cores[c].avg_resident_simdgroups;
    }
    st->avg_resident_simdgroups = t->num_cores ? resident / t->num_cores : 0;
    occupancy(t, st);
    memcpy(st->stall_cycles, t->stall, sizeof st->stall_cycles);
    memcpy(st->memory, mem_hierarchy_stats(t->mem), sizeof st->memory);
    st->tg_memory_accesses = t->tg_accesses;
    st->tg_bank_conflict_cycles = t->tg_conflicts;
    st->flops = t->flops[0];
    st->tensor_flops = t->flops[1];
    st->dram_bytes = st->memory[MEM_LEVEL_DRAM].bytes;
    st->flops_per_second = st->seconds > 0 ? (double)st->flops / st->seconds : 0;
    st->peak_flops_per_second = cfg->fp32_flops_per_cycle_per_core * cfg->cores * hz;
    st->tensor_flops_per_second = st->seconds > 0 ? (double)st->tensor_flops / st->seconds : 0;
    st->peak_tensor_flops_per_second = cfg->neural_fp16_flops_per_cycle_per_core * cfg->cores * hz;
    st->dram_bytes_per_second = st->seconds > 0 ? (double)st->dram_bytes / st->seconds : 0;
    st->peak_dram_bytes_per_second = cfg->dram_bytes_per_second;
}

/* ---- the timed dispatch ------------------------------------------------------------------- */

static void free_run(TimedRun *t)
{
    for (uint32_t i = 0; i < t->num_slots; i++) {
        TSlot *s = t->slots[i];
        free(s->groups);
        free(s->tgroups);
        free(s->regs);
        free(s->stack);
        free(s->tg_memory);
        free(s->sb);
        free(s->slot_done);
        free(s);
    }
    free(t->slots);
    if (t->cores) {
        for (uint32_t c = 0; c < t->num_cores; c++) {
            if (!t->cores[c].sched)
                continue;
            for (uint32_t k = 0; k < t->spc; k++)
                free(t->cores[c].sched[k].list);
            free(t->cores[c].sched);
        }
    }
    free(t->cores);
    free(t->wake);
    free(t->core_wake);
    free(t->pick_addr);
    free(t->tinst);
    free(t->memo);
    free(t->bank_seen);
    free(t->halves);
    mem_hierarchy_free(t->mem);
}

bool sim_timed_run(SimDispatch *d, UtilError *err)
{
    const SimGpuConfig *cfg = d->launch->gpu ? d->launch->gpu : sim_gpu_default();
    if (!cfg->cores || !cfg->schedulers_per_core || cfg->schedulers_per_core > T_MAX_SCHEDULERS)
        return util_fail(err, "GPU config '%s': cores and schedulers_per_core must be at least 1 "
                              "(schedulers at most %u)", cfg->name, T_MAX_SCHEDULERS);
    MemHierarchyConfig mcfg = cfg->memory;
    mcfg.cores = cfg->cores;
    UtilError merr;
    if (!mem_hierarchy_config_check(&mcfg, &merr))
        return util_fail(err, "GPU config '%s': %s", cfg->name, merr.message);
    TimedRun t = {
        .d = d, .cfg = cfg, .spc = cfg->schedulers_per_core, .num_cores = cfg->cores,
        .observed = d->launch->num_observers != 0,
        .slow_issue = d->launch->num_observers != 0 ||
                      (d->launch->issue_trace && d->launch->issue_trace->issued),
        .trace = d->launch->issue_trace && d->launch->issue_trace->issued ? d->launch->issue_trace
                                                                          : NULL,
    };
    t.mem = mem_hierarchy_new(&mcfg);
    t.slot_cap = cfg->wait_slot_loads ? cfg->wait_slot_loads : 1;
    if (t.slot_cap > T_MAX_SLOT_LOADS)
        t.slot_cap = T_MAX_SLOT_LOADS;
    uint32_t line = mcfg.level[MEM_LEVEL_L1].line_bytes ? mcfg.level[MEM_LEVEL_L1].line_bytes : 128;
    while ((1u << t.line_shift) < line && t.line_shift < 31)
        t.line_shift++;
    t.occ_threads = sim_gpu_occupancy_threads(cfg, d->program->num_regs);
    t.total_tgs = (uint64_t)d->tg_count[0] * d->tg_count[1] * d->tg_count[2];
    t.cores = util_calloc(t.num_cores, sizeof *t.cores);
    t.wake = util_calloc((size_t)t.num_cores * t.spc, sizeof *t.wake);
    t.core_wake = util_calloc(t.num_cores, sizeof *t.core_wake);
    t.pick_addr = util_calloc((size_t)t.spc * W, sizeof *t.pick_addr);
    t.tg_banks = cfg->tg_banks ? cfg->tg_banks : 1;
    t.tg_bank_bytes = cfg->tg_bank_bytes ? cfg->tg_bank_bytes : 4;
    t.tg_banks_pow2 = !(t.tg_banks & (t.tg_banks - 1)) && !(t.tg_bank_bytes & (t.tg_bank_bytes - 1));
    while (t.tg_banks_pow2 && (1u << t.tg_banks_shift) < t.tg_banks)
        t.tg_banks_shift++;
    for (size_t i = 0; i < (size_t)t.num_cores * t.spc; i++)
        t.wake[i] = T_NEVER;
    for (uint32_t c = 0; c < t.num_cores; c++)
        t.core_wake[c] = T_NEVER;
    for (uint32_t c = 0; c < t.num_cores; c++) {
        t.cores[c].sched = util_calloc(t.spc, sizeof *t.cores[c].sched);
        for (uint32_t k = 0; k < t.spc; k++) {
            t.cores[c].sched[k].idle_reason = SIM_STALL_NO_WORK;
        }
    }
    timing_precompute(&t);
    timing_loop(&t);
    if (d->stopped) {
        d->result->budget_exceeded = true;
        sim_fault(d, t.stopped_group, 0, SIM_FAULT_BUDGET, MEM_SPACE_THREAD, false, NULL, 0, 0, 0);
        for (uint32_t i = 0; i < t.num_slots; i++)
            if (t.slots[i]->n)
                notify_tg(&t, t.slots[i], false);
    }
    timing_fill_stats(&t);
    free_run(&t);
    return true;
}
