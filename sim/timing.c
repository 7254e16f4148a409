/*
 * timing.c — the timed mode engine's cycle loop: execution-driven, with functional
 * execution (sim_exec_one) kept apart from timing. An instruction executes when it issues,
 * so its results are exactly the functional ones; timing only decides when each SIMD-group
 * may issue next.
 *
 * Each core has schedulers_per_core schedulers; each resident SIMD-group is bound to one.
 * Every cycle each scheduler issues at most one instruction: the oldest of its SIMD-groups
 * (placement order) whose next instruction is ready. Ready means: every register half it
 * reads or writes has landed (a scoreboard of the cycle each pending write lands), the
 * scheduler's pipe for its op class is free (busy for `interval` cycles after each issue),
 * a `wait k` finds no load of slot k outstanding, a device load finds room in its wait slot
 * (wait_slot_loads), and the SIMD-group is not held at a barrier. Latencies and intervals
 * come from SimGpuConfig.op; device and constant memory from the cache model (every distinct
 * L1 line of the SIMD-group's access is one request; the data is ready when the last line
 * arrives); threadgroup memory from tg_latency plus the bank cycles of mem_tg_bank_cycles,
 * the banks being one port per core.
 *
 * Idle time is skipped, never stepped: each scheduler keeps the earliest cycle anything of
 * its could issue (`wake`), and when no scheduler can issue now the clock jumps to the
 * smallest wake. A scheduler-cycle without an issue is a stall, charged to the reason of its
 * oldest SIMD-group (dependency, memory, barrier, pipe busy) or to no work.
 *
 * A core whose next picks touch nothing outside it may issue them ahead of the other cores,
 * in one stretch (core_ahead): the cycles and results are those of a cycle at a time.
 *
 * With observers attached the engine issues in functional order (see timing_setup.c), so
 * the checkers see the same events in both modes; the cycles are then those of that order.
 */
#include <stdlib.h>

#include "timing_internal.h"

const char *const sim_stall_names[SIM_STALL_COUNT] = {
    [SIM_STALL_DEPENDENCY] = "dependency",
    [SIM_STALL_MEMORY] = "memory",
    [SIM_STALL_BARRIER] = "barrier",
    [SIM_STALL_PIPE] = "pipe busy",
    [SIM_STALL_NO_WORK] = "no work",
};

static _Thread_local uint64_t last_iterations; /* per thread: runs may be concurrent */

uint64_t sim_timed_debug_iterations(void) { return last_iterations; }

static bool ahead_enabled = true;

void sim_timed_debug_set_ahead(bool on) { ahead_enabled = on; }

static inline uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Copies tg's ready cycle and pipe to its scheduler's entry. */
void timing_publish(TimedRun *t, TGroup *tg)
{
    (void)t;
    TEntry *e = &tg->sp->list[tg->pos];
    e->ready = tg->ready;
    e->pipe = tg->pipe;
    e->local = tg->local;
}

/* tg may issue from its `ready` on (not before `not_before`): wake its scheduler for it. */
void timing_poke(TimedRun *t, TGroup *tg, uint64_t not_before)
{
    uint32_t core = tg->core;
    uint64_t *wake = &t->wake[core * t->spc + tg->sched];
    uint64_t at = max64(tg->ready, not_before);
    if (at < *wake)
        *wake = at;
    if (at < t->core_wake[core])
        t->core_wake[core] = at;
    if (at < t->next)
        t->next = at;
}

/* With observers attached, SIMD-groups of a threadgroup take turns in functional order:
 * the lowest-numbered one still running issues until it stops or reaches a barrier. */
void timing_next_turn(TimedRun *t, TSlot *slot, uint64_t now)
{
    if (!t->observed)
        return;
    uint32_t i = 0;
    while (i < slot->n && slot->groups[i].state != SIM_GROUP_RUNNING)
        i++;
    slot->turn = i;
    if (i < slot->n)
        timing_poke(t, &slot->tgroups[i], now + 1);
}

/* Drops the loads of wait slot k that have completed by `now`. */
static void prune_slot(TimedRun *t, TGroup *tg, uint32_t k, uint64_t now)
{
    uint64_t *done = tg->slot_done + k * t->slot_cap;
    uint32_t n = 0;
    for (uint32_t i = 0; i < tg->slot_n[k]; i++)
        if (done[i] > now)
            done[n++] = done[i];
    tg->slot_n[k] = (uint8_t)n;
}

/* Inlined into issue, which calls it once per instruction. */
static inline __attribute__((always_inline)) void compute_ready(TimedRun *t, TGroup *tg,
                                                                const TInst *ti, uint64_t now)
{
    const uint64_t *sb = tg->sb;
    uint64_t worst;
    if (UTIL_LIKELY(ti->fixed)) {
        worst = max64(max64(sb[ti->rd[0]], sb[ti->rd[1]]), max64(sb[ti->rd[2]], sb[ti->rd[3]]));
    } else {
        const uint16_t *h = t->halves + ti->first;
        worst = 0;
        for (uint32_t i = 0; i < ti->ncheck; i++)
            worst = max64(worst, sb[h[i]]);
    }
    uint64_t ready = worst >> 1;
    uint8_t reason = worst & 1 ? SIM_STALL_MEMORY : SIM_STALL_DEPENDENCY;
    if (UTIL_UNLIKELY(ti->kind == T_WAIT)) {
        if (tg->slot_last[ti->slot] > ready) {
            ready = tg->slot_last[ti->slot];
            reason = SIM_STALL_MEMORY;
        }
    } else if (UTIL_UNLIKELY(ti->kind == T_LD_DEV)) {
        prune_slot(t, tg, ti->slot, now);
        if (tg->slot_n[ti->slot] >= t->slot_cap) {
            const uint64_t *done = tg->slot_done + ti->slot * t->slot_cap;
            uint64_t first = T_NEVER;
            for (uint32_t i = 0; i < tg->slot_n[ti->slot]; i++)
                first = min64(first, done[i]);
            if (first > ready) {
                ready = first;
                reason = SIM_STALL_MEMORY;
            }
        }
    }
    tg->ready = ready;
    tg->reason = reason;
    tg->pipe = ti->pipe;
    tg->local = ti->local;
    timing_publish(t, tg);
}

void timing_compute_ready(TimedRun *t, TGroup *tg, uint64_t now)
{
    compute_ready(t, tg, &t->tinst[tg->g->pc < t->d->count ? tg->g->pc : 0], now);
}

/* ---- memory timing ------------------------------------------------------------------------ */

/* The distinct L1 lines the active lanes of a device access touch, from the operands exactly
 * as ops_mem.c computes its addresses, before the instruction executes (a load may
 * overwrite its own base or index). Returns how many, in lines[] (line numbers). */
static uint32_t device_lines(const TimedRun *t, SimDispatch *d, SimGroup *g, const SimInst *in,
                             const TInst *ti, uint32_t mask, uint64_t *lines)
{
    const uint32_t *base = sim_bank(d, g, &in->o[1]);
    const uint32_t *index = sim_bank(d, g, &in->o[2]);
    const int64_t esize = ti->esize;
    const uint64_t span = (uint64_t)ti->elems * ti->esize - 1;
    const uint32_t shift = t->line_shift;
    uint32_t n = 0;
    if (mask == SIM_FULL_MASK && in->o[1].bank == SIM_BANK_CONSTS && !(span >> shift)) {
        /* The common streaming access: a uniform base and indices stepping by a constant
         * with no gap between lanes' bytes. Their lines are then one ascending run, which
         * is what the general loop below finds, with no per-lane search. */
        const int64_t i0 = (int32_t)index[0], step = (int64_t)(int32_t)index[1] - i0;
        bool linear = step >= 0 && (uint64_t)(step * esize) <= span + 1;
        for (int64_t l = 2; l < W; l++)
            linear &= (int64_t)(int32_t)index[l] == i0 + l * step;
        if (linear) {
            uint64_t a0 = ((uint64_t)base[W] << 32 | base[0]) + (uint64_t)(i0 * esize);
            uint64_t end = a0 + (uint64_t)((W - 1) * step * esize) + span;
            if (end >= a0) {
                for (uint64_t line = a0 >> shift; line <= end >> shift; line++)
                    lines[n++] = line;
                return n;
            }
        }
    }
    while (mask) {
        uint32_t l = (uint32_t)__builtin_ctz(mask);
        mask &= mask - 1;
        uint64_t addr = ((uint64_t)base[W + l] << 32 | base[l]) +
                        (uint64_t)((int64_t)(int32_t)index[l] * esize);
        uint64_t first = addr >> shift, last = (addr + span) >> shift;
        /* Coalesced accesses usually fall in the line the previous lane ended in. */
        if (first == last && n && lines[n - 1] == first)
            continue;
        for (uint64_t line = first; line <= last && line - first < 2; line++) {
            /* Coalesced accesses repeat the previous line: check it first. */
            if (n && lines[n - 1] == line)
                continue;
            bool seen = false;
            for (uint32_t i = 0; i + 1 < n && !seen; i++)
                seen = lines[i] == line;
            if (!seen)
                lines[n++] = line;
        }
    }
    return n;
}

/* Threadgroup offsets of element 0 for every lane (only the active lanes' are read), in one
 * loop without branches. */
static void tg_offsets(SimDispatch *d, SimGroup *g, const SimInst *in, const TInst *ti,
                       uint64_t *addr)
{
    const uint32_t *base = sim_bank(d, g, &in->o[1]);
    const uint32_t *index = sim_bank(d, g, &in->o[2]);
    const uint32_t k = sim_esize_shift(ti->esize);
    for (int l = 0; l < W; l++)
        addr[l] = sim_lane_offset(base[l], index[l], k);
}

/* Requests every line; returns the last arrival. */
static uint64_t device_access(TimedRun *t, uint32_t core, const uint64_t *lines, uint32_t n,
                              bool is_write, uint64_t now)
{
    uint64_t arrival = now;
    for (uint32_t i = 0; i < n; i++)
        arrival = max64(arrival, mem_hierarchy_access(t->mem, core, lines[i] << t->line_shift,
                                                      is_write, now, NULL));
    return arrival;
}

/* mem_tg_bank_cycles for power-of-two banks (64 at most) and bank widths, with every lane's
 * word inside threadgroup memory: the most distinct words any bank serves, counted straight
 * from the definition. A word is new to this access when its bank_seen mark is not this
 * access's generation, so nothing is cleared between accesses; 0 when a lane's word is
 * outside (the caller then asks mem_tg_bank_cycles). This is for the patterns the closed
 * forms miss, such as a histogram's scattered atomics. */
static uint32_t bank_count(TimedRun *t, const uint64_t *addr, uint32_t mask, uint32_t banks,
                           uint32_t shift)
{
    if (!t->bank_seen) {
        t->bank_words = ((uint64_t)t->d->tg_mem_bytes >> shift) + 1;
        t->bank_seen = util_calloc(t->bank_words, sizeof *t->bank_seen);
    }
    if (++t->bank_gen == 0) { /* the marks wrapped: start them again */
        memset(t->bank_seen, 0, t->bank_words * sizeof *t->bank_seen);
        t->bank_gen = 1;
    }
    const uint32_t gen = t->bank_gen;
    uint8_t count[64] = {0};
    uint32_t most = 0;
    for (uint32_t m = mask; m; m &= m - 1) {
        const uint64_t w = addr[__builtin_ctz(m)] >> shift;
        if (w >= t->bank_words)
            return 0;
        if (t->bank_seen[w] == gen)
            continue; /* a repeat: served by the first lane's access */
        t->bank_seen[w] = gen;
        const uint32_t c = ++count[w & (banks - 1)];
        most = c > most ? c : most;
    }
    return most;
}

/* The bank cycles of one element of a threadgroup access. With power-of-two banks and bank
 * width they depend only on the active lanes' addresses relative to each other and to the
 * bank width: moving every word by the same amount (modulo 2^64 too) moves every bank by it,
 * which changes no bank's count. So each instruction remembers its last pattern (a tile
 * walked by a loop repeats one), and a repeat costs a comparison, not a count (bank_count, or
 * mem_tg_bank_cycles for other banks). */
static uint32_t bank_cycles(TimedRun *t, TBankMemo *memo, const uint64_t *addr, uint32_t mask)
{
    const uint32_t banks = t->tg_banks, bank_bytes = t->tg_bank_bytes;
    if (!mask || !t->tg_banks_pow2)
        return mem_tg_bank_cycles(addr, mask, banks, bank_bytes);
    const uint64_t a0 = addr[__builtin_ctz(mask)];
    const uint64_t low = a0 & (bank_bytes - 1);
    uint64_t rel[W], diff = 0;
    for (int l = 0; l < W; l++) {
        rel[l] = (addr[l] - a0) & (0 - (uint64_t)(mask >> l & 1));
        diff |= rel[l] ^ memo->rel[l];
    }
    if (diff == 0 && memo->mask == mask && memo->low == low)
        return memo->cycles;
    const uint32_t shift = (uint32_t)__builtin_ctz(bank_bytes);
    const uint32_t c = banks <= 64 ? bank_count(t, addr, mask, banks, shift) : 0;
    memo->cycles = c ? c : mem_tg_bank_cycles(addr, mask, banks, bank_bytes);
    memo->mask = mask;
    memo->low = low;
    memcpy(memo->rel, rel, sizeof rel);
    return memo->cycles;
}

/* The bank cycles of a threadgroup access with some lane active, over all its elements,
 * worked out before it executes (a load may overwrite its own index). addr[] holds the
 * lanes' offsets when `have_addr`; otherwise they are computed into it when needed.
 *
 * Most accesses need no offsets: when the base is uniform (a constant, as every
 * threadgroup array's is) and every active lane is in bounds, two lanes' offsets differ by
 * exactly their indices' difference times the element size (bounds keep it far inside 32
 * bits). So equal index differences, equal first-word place in its bank word and equal
 * lanes mean the pattern bank_cycles remembered: its memo, keyed by indices (`key`), is
 * checked with 32-bit compares and no offset at all. */
static uint32_t tg_bank_total(TimedRun *t, SimDispatch *d, SimGroup *g, const SimInst *in,
                              const TInst *ti, uint32_t mask, uint64_t *addr, bool have_addr)
{
    TBankMemo *memo = &t->memo[ti->memo];
    const uint32_t bank_bytes = t->tg_bank_bytes;
    const bool same_each = t->tg_banks_pow2 && (ti->esize & (bank_bytes - 1)) == 0;
    uint32_t key[W];
    bool keyed = false;
    if (in->o[1].bank == SIM_BANK_CONSTS && t->tg_banks_pow2 && (same_each || ti->elems == 1) &&
        d->tg_mem_bytes <= (1u << 30)) {
        const uint32_t *base = sim_bank(d, g, &in->o[1]), *index = sim_bank(d, g, &in->o[2]);
        const uint32_t k = sim_esize_shift(ti->esize);
        int32_t lo, hi;
        sim_index_range(base[0], d->tg_mem_bytes, (uint32_t)ti->elems * ti->esize, k, &lo, &hi);
        if (hi >= lo && !sim_lanes_outside(index, g->lane_select, lo, hi)) {
            const uint32_t i0 = index[__builtin_ctz(mask)];
            const uint64_t low = sim_lane_offset(base[0], i0, k) & (bank_bytes - 1);
            uint32_t diff = 0;
            for (int l = 0; l < W; l++) {
                key[l] = (index[l] - i0) & g->lane_select[l];
                diff |= key[l] ^ memo->key[l];
            }
            if (diff == 0 && memo->keyed && memo->mask == mask && memo->low == low)
                return memo->cycles * ti->elems;
            keyed = true;
        }
    }
    if (!have_addr)
        tg_offsets(d, g, in, ti, addr);
    uint32_t cycles = 0, first = 0;
    for (uint32_t k = 0; k < ti->elems; k++) {
        if (k)
            for (uint32_t m = mask; m; m &= m - 1)
                addr[__builtin_ctz(m)] += ti->esize;
        /* Element k's words are element 0's moved by k * esize / bank_bytes when that is
         * whole: the same cycles (bank_cycles says why). */
        uint32_t c = k && same_each ? first : bank_cycles(t, memo, addr, mask);
        if (!k)
            first = c;
        cycles += c;
    }
    /* The memo now holds element 0's pattern (keyed accesses have every element's alike). */
    memo->keyed = keyed;
    if (keyed)
        memcpy(memo->key, key, sizeof key);
    return cycles;
}

/* Threadgroup memory: the core's banks serve one SIMD-group access at a time, for `cycles`
 * (tg_bank_total; anything with no lane active). */
static uint64_t tg_access(TimedRun *t, TCore *core, uint32_t cycles, uint32_t mask,
                          const TInst *ti, uint64_t now)
{
    const SimGpuConfig *cfg = t->cfg;
    t->tg_accesses += ti->elems;
    if (!mask) { /* no lane: no bank busy */
        core->tg_port_free = max64(now, core->tg_port_free);
        return core->tg_port_free + cfg->tg_latency;
    }
    const uint32_t lanes = (uint32_t)util_popcount32(mask), banks = t->tg_banks;
    /* no division on this path when the geometry is powers of two (every shipped config) */
    const uint32_t ideal_each = t->tg_banks_pow2 ? (lanes + banks - 1) >> t->tg_banks_shift
                                                 : (lanes + banks - 1) / banks;
    const uint32_t ideal = ideal_each * ti->elems;
    if (cycles > ideal)
        t->tg_conflicts += cycles - ideal;
    uint64_t start = max64(now, core->tg_port_free);
    core->tg_port_free = start + cycles;
    return start + cycles + cfg->tg_latency;
}

/* ---- barriers and ends -------------------------------------------------------------------- */

static void notify_release(TimedRun *t, TSlot *slot)
{
    const SimLaunch *L = t->d->launch;
    for (uint32_t i = 0; i < L->num_observers; i++)
        if (L->observers[i]->barrier_release)
            L->observers[i]->barrier_release(L->observers[i]->ctx, &slot->view);
}

static void group_done(TimedRun *t, TCore *core, TSched *s, TGroup *tg, uint64_t now);

/* Every SIMD-group still running has arrived: all go on barrier_latency after the last. One
 * whose barrier was the program's last instruction has nothing left: it ends now, as
 * functional mode ends it on release (no instruction issues for it). */
static void check_release(TimedRun *t, TSlot *slot, uint64_t now)
{
    if (!slot->arrived || slot->arrived + slot->done < slot->n)
        return;
    notify_release(t, slot);
    uint64_t release = now + t->cfg->barrier_latency;
    if (release <= now)
        release = now + 1;
    bool ended = false;
    for (uint32_t i = 0; i < slot->n; i++) {
        TGroup *tg = &slot->tgroups[i];
        if (tg->g->state != SIM_GROUP_AT_BARRIER)
            continue;
        tg->g->state = SIM_GROUP_RUNNING;
        tg->sp->at_barrier--;
        if (UTIL_UNLIKELY(tg->g->pc >= t->d->count)) {
            ended = true;
            continue;
        }
        timing_compute_ready(t, tg, now);
        if (release >= tg->ready) {
            tg->ready = release;
            tg->reason = SIM_STALL_BARRIER;
            timing_publish(t, tg);
        }
        timing_poke(t, tg, now + 1);
    }
    slot->arrived = 0;
    timing_next_turn(t, slot, now);
    /* The last of them may end the threadgroup, and its slot may then take a new one. */
    const uint32_t n = slot->n;
    for (uint32_t i = 0; ended && i < n; i++) {
        TGroup *tg = &slot->tgroups[i];
        if (tg->g->state != SIM_GROUP_RUNNING || tg->g->pc < t->d->count)
            continue;
        tg->g->state = SIM_GROUP_DONE;
        const bool last = slot->done + 1 == n;
        group_done(t, &t->cores[tg->core], tg->sp, tg, now);
        if (last)
            break;
    }
}

static void group_done(TimedRun *t, TCore *core, TSched *s, TGroup *tg, uint64_t now)
{
    uint32_t i = tg->pos;
    memmove(&s->list[i], &s->list[i + 1], (s->n - i - 1) * sizeof *s->list);
    s->n--;
    for (; i < s->n; i++)
        s->list[i].tg->pos = i;
    timing_resident_change(core, now, -1);
    TSlot *slot = tg->slot;
    slot->done++;
    check_release(t, slot, now);
    if (UTIL_UNLIKELY(t->observed))
        timing_next_turn(t, slot, now);
    if (slot->done == slot->n)
        timing_finish_threadgroup(t, slot, now);
}

/* ---- issue -------------------------------------------------------------------------------- */

/* What every issue does once the instruction has executed: scoreboard, flops, end, and the
 * SIMD-group's next ready cycle (or its barrier arrival, or its end). */
static inline __attribute__((always_inline)) void issue_tail(TimedRun *t, TCore *core, TSched *s,
                                                             TGroup *tg, const TInst *ti,
                                                             uint32_t mask, uint64_t done,
                                                             uint8_t mem, uint64_t now)
{
    SimGroup *g = tg->g;
    const uint64_t landed = done << 1 | mem;
    if (UTIL_LIKELY(ti->fixed)) {
        tg->sb[ti->wr[0]] = landed;
        tg->sb[ti->wr[1]] = landed;
    } else {
        const uint16_t *h = t->halves + ti->first;
        for (uint32_t i = 0; i < ti->nwrite; i++)
            tg->sb[h[i]] = landed;
    }
    if (ti->flops)
        t->flops[ti->flops_unit] += (uint64_t)ti->flops * (uint64_t)util_popcount32(mask);
    t->end = max64(t->end, max64(done, now + 1));

    if (UTIL_LIKELY(g->state == SIM_GROUP_RUNNING)) {
        compute_ready(t, tg, &t->tinst[g->pc], now); /* running: pc < count (sim_exec_one) */
    } else if (g->state == SIM_GROUP_AT_BARRIER) {
        tg->ready = T_NEVER;
        tg->reason = SIM_STALL_BARRIER;
        timing_publish(t, tg);
        tg->sp->at_barrier++;
        tg->slot->arrived++;
        check_release(t, tg->slot, now);
        if (UTIL_UNLIKELY(t->observed))
            timing_next_turn(t, tg->slot, now);
    } else {
        group_done(t, core, s, tg, now);
    }
}

/* Executes g's instruction ti as issued at `now` on scheduler s: false when the budget
 * stopped it instead. */
static inline __attribute__((always_inline)) bool exec_issued(TimedRun *t, TCore *core, TSched *s,
                                                              TGroup *tg, const TInst *ti,
                                                              uint64_t now)
{
    SimGroup *g = tg->g;
    if (UTIL_UNLIKELY(t->slow_issue)) {
        if (t->trace && g->pc < t->d->count && t->d->result->instructions < t->d->budget) {
            SimIssueEvent e = {
                .cycle = now, .core = (uint32_t)(core - t->cores),
                .scheduler = (uint32_t)(s - core->sched),
                .threadgroup = g->view.threadgroup->linear, .simdgroup = g->index,
                .pc = t->d->code[g->pc].isa->pc, .exec_mask = g->exec_mask, .lanes = g->lanes,
                .ready = tg->ready < now ? tg->ready : now, .waited_on = (SimStall)tg->reason,
            };
            t->trace->issued(t->trace->ctx, &e);
        }
        if (t->observed)
            sim_exec_one(t->d, g);
        else
            sim_exec_one_unobserved(t->d, g);
    } else {
        sim_exec_one_unobserved(t->d, g);
    }
    if (UTIL_UNLIKELY(t->d->stopped)) {
        t->stopped_group = g;
        return false;
    }
    core->instructions++;
    s->pipe_free[ti->pipe] = now + ti->interval;
    return true;
}

/* Memory, wait, barrier and stack instructions: kept out of line so the ALU path of issue
 * carries none of their stack arrays or register pressure. `tg_addr`: a threadgroup
 * access's offsets when the caller has them already (tg_in_bounds), or NULL. */
static __attribute__((noinline)) void issue_other(TimedRun *t, TCore *core, TSched *s,
                                                  TGroup *tg, const TInst *ti, uint64_t now,
                                                  uint64_t *tg_addr)
{
    SimDispatch *d = t->d;
    SimGroup *g = tg->g;
    const SimInst *in = &d->code[g->pc];
    const uint32_t mask = g->exec_mask;
    uint64_t own[W], lines[2 * W];
    uint32_t nlines = 0, tg_cycles = 0;
    if (ti->kind < T_LD_TG)
        nlines = device_lines(t, d, g, in, ti, mask, lines);
    else if (ti->kind < T_STACK && mask)
        tg_cycles = tg_bank_total(t, d, g, in, ti, mask, tg_addr ? tg_addr : own,
                                  tg_addr != NULL);

    if (!exec_issued(t, core, s, tg, ti, now))
        return;
    uint64_t done = now + ti->latency;
    uint8_t mem = 0;
    switch ((TKind)ti->kind) {
    case T_LD_DEV: {
        uint64_t arrival = device_access(t, tg->core, lines, nlines, false, now);
        done = max64(done, arrival);
        mem = 1;
        uint32_t k = ti->slot;
        prune_slot(t, tg, k, now);
        if (tg->slot_n[k] < t->slot_cap)
            tg->slot_done[k * t->slot_cap + tg->slot_n[k]++] = done;
        tg->slot_last[k] = max64(tg->slot_last[k], done);
        break;
    }
    case T_LD_CONST:
        done = max64(done, device_access(t, tg->core, lines, nlines, false, now));
        mem = 1;
        break;
    case T_ST_DEV:
        t->end = max64(t->end, device_access(t, tg->core, lines, nlines, true, now));
        break;
    case T_ATOM_DEV:
        done = max64(done, device_access(t, tg->core, lines, nlines, true, now));
        mem = 1;
        break;
    case T_LD_TG: case T_ATOM_TG:
        done = max64(done, tg_access(t, core, tg_cycles, mask, ti, now));
        mem = 1;
        break;
    case T_ST_TG:
        t->end = max64(t->end, tg_access(t, core, tg_cycles, mask, ti, now));
        break;
    case T_WAIT:
        tg->slot_n[ti->slot] = 0;
        tg->slot_last[ti->slot] = 0;
        break;
    default:
        break;
    }
    issue_tail(t, core, s, tg, ti, mask, done, mem, now);
}

static inline __attribute__((always_inline)) void issue(TimedRun *t, TCore *core, TSched *s,
                                                        TGroup *tg, uint64_t now,
                                                        uint64_t *tg_addr)
{
    SimDispatch *d = t->d;
    SimGroup *g = tg->g;
    const TInst *ti = &t->tinst[g->pc];
    TSlot *slot = tg->slot;
    d->tg_memory = tg->tg_memory;
    if (UTIL_UNLIKELY(ti->get_sr) && t->current != slot) {
        d->tg = slot->view;
        t->current = slot;
    }
    if (UTIL_UNLIKELY(ti->kind != T_ALU)) {
        issue_other(t, core, s, tg, ti, now, tg_addr);
        return;
    }
    const uint32_t mask = g->exec_mask;
    if (!exec_issued(t, core, s, tg, ti, now))
        return;
    issue_tail(t, core, s, tg, ti, mask, now + ti->latency, 0, now);
}

/* Why scheduler s issues nothing at `now`: its oldest SIMD-group's reason. */
static uint8_t classify(const TSched *s, uint64_t now)
{
    if (!s->n)
        return SIM_STALL_NO_WORK;
    const TGroup *oldest = s->list[0].tg;
    if (oldest->ready > now)
        return oldest->reason;
    /* Ready, yet not issued: its pipe is busy, or (observers) it is not its turn. */
    return oldest->g->index == oldest->slot->turn || oldest->g->state != SIM_GROUP_RUNNING
               ? SIM_STALL_PIPE : SIM_STALL_NO_WORK;
}

/* A scheduler's pick at `now`: its oldest SIMD-group that is ready and whose pipe is free;
 * with none, *soonest is when one of them might be (its ready cycle, or its pipe's free
 * cycle when it is ready already). Written without a branch per entry, as whether an entry
 * is ready is as good as random to the host's branch predictor. With observers attached
 * only the SIMD-group whose turn it is may issue; the others are woken by timing_next_turn
 * when theirs comes. Inlined once per value of `observed`. */
static inline __attribute__((always_inline)) const TEntry *scan_entries(const TSched *s,
                                                                        uint64_t now,
                                                                        uint64_t *soonest,
                                                                        const bool observed)
{
    const TEntry *e = s->list;
    uint64_t first = T_NEVER;
    for (uint32_t i = 0; i < s->n; i++) {
        uint64_t r = e[i].ready, p = s->pipe_free[e[i].pipe];
        if (observed && r <= now && e[i].tg->g->index != e[i].tg->slot->turn)
            continue;
        uint64_t at = r > now ? r : p;
        if (at <= now)
            return &e[i];
        first = min64(first, at);
    }
    *soonest = first;
    return NULL;
}

static inline __attribute__((always_inline)) TGroup *scan(const TSched *s, uint64_t now,
                                                          uint64_t *soonest, const bool observed)
{
    const TEntry *e = scan_entries(s, now, soonest, observed);
    return e ? e->tg : NULL;
}

/* Hundreds of SIMD-groups are resident, so a picked one's state is mostly out of the host's
 * L1: start fetching all the picks' state before the first issue, so the misses overlap
 * instead of each issue waiting for its own. Two rounds, as the second needs what the first
 * brings (the SimGroup's pc and registers). Hints only: no effect on any result. */
static void prefetch_picks(const SimDispatch *d, TGroup *const *picks, uint32_t npicks)
{
    for (uint32_t i = 0; i < npicks; i++) {
        const TGroup *tg = picks[i];
        __builtin_prefetch(tg->g);
        __builtin_prefetch(tg->sb);
        __builtin_prefetch(tg->sb + 8);
    }
    for (uint32_t i = 0; i < npicks; i++) {
        const SimGroup *g = picks[i]->g;
        if (g->pc >= d->count)
            continue;
        const SimInst *in = &d->code[g->pc];
        for (int k = 0; k < 3; k++) {
            if (in->o[k].bank != SIM_BANK_REGS)
                continue;
            const uint32_t *r = g->regs + in->o[k].off;
            __builtin_prefetch(r);
            __builtin_prefetch(r + 16);
        }
        if (g->exec_mask != SIM_FULL_MASK) {
            __builtin_prefetch(g->lane_select);
            __builtin_prefetch(g->lane_select + 16);
        }
    }
}

/* Counts cycle c as one in which the core issued (once, whichever scheduler issued). Cycles
 * arrive in order per core: a core runs ahead only past the cycles it has issued in. */
static inline void count_busy(TCore *core, uint64_t c)
{
    if (c >= core->busy_next) {
        core->busy++;
        core->busy_next = c + 1;
    }
}

/* ---- running ahead ------------------------------------------------------------------------ */

/* The longest stretch a core or a scheduler runs ahead of the cycle loop, in cycles. */
#define AHEAD_MAX 256u
#define SCHED_AHEAD_MAX 64u

/* After scheduler s issued at `now`, it goes on issuing at now + 1, now + 2, ... by itself
 * while each cycle's pick is register work that leaves its SIMD-group running
 * (T_LOCAL_REGS), ahead of the other schedulers of its core. That is what issuing one cycle
 * at a time would do, because a scheduler's pick depends on the rest of its core in only
 * three ways, none of which can change such a stretch:
 *  - a SIMD-group placed on it is younger than all it has, so it wins only a cycle where
 *    none of them can issue, and a stretch ends at the first such cycle;
 *  - a barrier release of one of its SIMD-groups lands barrier_latency cycles or more after
 *    the current cycle, so while it has one waiting, the stretch ends before then;
 *  - observers' turns: with observers attached nothing issues ahead.
 * And register work changes nothing another scheduler reads: the SIMD-group's registers and
 * scoreboard, this scheduler's pipes, and sums (instructions, flops, the last cycle).
 * It tries while its recent stretches averaged 8 cycles or more (otherwise one time in 32,
 * to notice a change; see try_ahead): short ones cost the host more than they save. */
static __attribute__((noinline)) void sched_ahead(TimedRun *t, TCore *core, TSched *s,
                                                  uint64_t *wake, uint64_t now)
{
    const uint64_t span = s->at_barrier ? max64(t->cfg->barrier_latency, 1) : SCHED_AHEAD_MAX;
    const uint64_t limit = now + min64(span, SCHED_AHEAD_MAX);
    uint64_t c = now;
    while (c + 1 < limit && !t->d->stopped) { /* never stopped: the budget guard */
        uint64_t soonest;
        const TEntry *pick = scan_entries(s, c + 1, &soonest, false);
        if (!pick || pick->local != T_LOCAL_REGS)
            break;
        issue(t, core, s, pick->tg, ++c, NULL);
        count_busy(core, c);
    }
    if (c > now) {
        s->acct = c + 1;
        *wake = c + 1;
    }
    s->ahead_avg = s->ahead_avg - s->ahead_avg / 8 + (uint32_t)(c - now) * 2;
}

/* Whether scheduler s should try sched_ahead now: inlined, as it mostly says no. */
static inline bool try_ahead(TSched *s)
{
    return s->ahead_avg >= 8 * 16 || !(++s->ahead_probe & 31);
}

/* ---- cores running ahead ------------------------------------------------------------------ */

/* Whether every active lane of tg's next instruction, a threadgroup access, is in bounds:
 * the test ops_mem.c makes before it records a fault. A uniform base (a constant) needs only
 * the lanes' indices (sim_index_range); otherwise the offsets are left in addr[] for the
 * issue, and *filled says so. (A negative offset wraps to a huge one, beyond the last.) */
static bool tg_in_bounds(const TimedRun *t, const TGroup *tg, uint64_t *addr, bool *filled)
{
    SimDispatch *d = t->d;
    SimGroup *g = tg->g;
    *filled = false;
    if (!g->exec_mask)
        return true; /* nothing to check, and tg_access needs no offsets */
    const TInst *ti = &t->tinst[g->pc];
    const SimInst *in = &d->code[g->pc];
    const uint64_t bytes = (uint64_t)ti->elems * ti->esize, size = d->tg_mem_bytes;
    if (in->o[1].bank == SIM_BANK_CONSTS) {
        int32_t lo, hi;
        sim_index_range(sim_bank(d, g, &in->o[1])[0], size, (uint32_t)bytes,
                        sim_esize_shift(ti->esize), &lo, &hi);
        return hi >= lo && !sim_lanes_outside(sim_bank(d, g, &in->o[2]), g->lane_select, lo, hi);
    }
    tg_offsets(d, g, in, ti, addr);
    *filled = true;
    if (bytes > size)
        return false; /* some lane is active, and none fits */
    const uint64_t last = size - bytes; /* the last offset in bounds */
    uint32_t bad = 0;
    for (int l = 0; l < W; l++)
        bad |= (uint32_t)(addr[l] > last) & g->lane_select[l];
    return !bad;
}

/* After the cycle loop has issued at `now`, core c goes on by itself, a cycle at a time,
 * up to `limit`, for as long as every pick of its schedulers is local (TInst.local), and
 * stops before the first cycle with a pick that is not. Each of its cycles is what the
 * cycle loop would do with it, because a core's picks and their results depend on the rest
 * of the GPU only through:
 *  - device and constant memory and the stack (the caches are shared, faults are recorded
 *    in order): such a pick ends the stretch, and issues in the cycle loop, in core order;
 *  - threadgroups placed on it: a stretch starts only on a core with no room for one while
 *    any are waiting, and such a core gets room only when one of its own threadgroups ends,
 *    which no local instruction does;
 *  - the budget: the cycle loop lets no core run ahead when the budget is near;
 *  - observers' turns: with observers attached nothing runs ahead.
 * Barriers are local: a threadgroup's SIMD-groups all live on one core, so its releases
 * happen inside the stretch at the cycle they would anyway. And local work changes nothing
 * another core reads: only sums (instructions, flops, stalls, the last cycle) that are the
 * same in any order. The host gains a stretch in which one core's SIMD-groups stay in its
 * cache, and fewer trips round the cycle loop. */
static inline __attribute__((always_inline)) void core_ahead_n(TimedRun *t, uint32_t c,
                                                               uint64_t limit,
                                                               const uint32_t spc)
{
    TCore *core = &t->cores[c];
    uint64_t *wake = t->wake + c * spc;
    TGroup *pick[T_MAX_SCHEDULERS];
    uint64_t soon[T_MAX_SCHEDULERS];
    uint64_t *tg_addr = t->pick_addr; /* per scheduler: its pick's threadgroup offsets */
    if (timing_may_place(t, core))
        goto out;
    for (;;) {
        uint64_t y = T_NEVER;
        for (uint32_t k = 0; k < spc; k++)
            y = min64(y, wake[k]);
        if (y >= limit)
            break;
        /* Every due scheduler's pick, changing nothing until all are known to be local. */
        uint64_t due = 0, have_addr = 0;
        for (uint32_t k = 0; k < spc; k++) {
            if (wake[k] > y)
                continue;
            if (core->sched[k].acct > y) { /* it issued ahead up to acct - 1 */
                wake[k] = core->sched[k].acct;
                continue;
            }
            due |= 1ull << k;
            const TEntry *e = scan_entries(&core->sched[k], y, &soon[k], false);
            pick[k] = e ? e->tg : NULL;
            if (e && e->local == T_GLOBAL)
                goto out;
            if (e && e->local == T_LOCAL_IN_BOUNDS) {
                bool filled;
                if (!tg_in_bounds(t, e->tg, tg_addr + k * W, &filled))
                    goto out;
                have_addr |= (uint64_t)filled << k;
            }
        }
        for (uint64_t m = due; m; m &= m - 1) {
            uint32_t k = (uint32_t)__builtin_ctzll(m);
            TSched *s = &core->sched[k];
            if (y > s->acct)
                t->stall[s->idle_reason] += y - s->acct;
            s->acct = y + 1;
            if (pick[k]) {
                wake[k] = y + 1;
            } else {
                uint8_t reason = classify(s, y);
                t->stall[reason]++;
                s->idle_reason = reason;
                wake[k] = soon[k];
            }
        }
        for (uint64_t m = due; m; m &= m - 1) {
            uint32_t k = (uint32_t)__builtin_ctzll(m);
            if (pick[k]) {
                issue(t, core, &core->sched[k], pick[k], y,
                      have_addr >> k & 1 ? tg_addr + k * W : NULL);
                if (t->d->stopped) /* never: the budget guard */
                    goto out;
                count_busy(core, y);
                if (try_ahead(&core->sched[k]))
                    sched_ahead(t, core, &core->sched[k], &wake[k], y);
            }
        }
    }
out:;
    uint64_t cw = T_NEVER;
    for (uint32_t k = 0; k < spc; k++)
        cw = min64(cw, wake[k]);
    t->core_wake[c] = cw;
}

/* core_ahead_n compiled for every shipped config's 4 schedulers per core (its loops over
 * them unrolled, their wakes in registers) and for any other count. */
static void core_ahead(TimedRun *t, uint32_t c, uint64_t limit)
{
    if (t->spc == 4)
        core_ahead_n(t, c, limit, 4);
    else
        core_ahead_n(t, c, limit, t->spc);
}

void timing_loop(TimedRun *t)
{
    SimDispatch *d = t->d;
    uint64_t now = 0;
    const uint32_t nsched = t->num_cores * t->spc;
    /* Once the budget is this near, stretches stop; the cores ahead are caught up (within
     * AHEAD_MAX + SCHED_AHEAD_MAX cycles, fewer instructions than this) before it runs out. */
    const uint64_t ahead_guard = 2ull * nsched * (AHEAD_MAX + SCHED_AHEAD_MAX);
    TGroup **picks = util_calloc(nsched, sizeof *picks);
    uint32_t *pick_at = util_calloc(nsched, sizeof *pick_at);
    uint32_t *visited = util_calloc(t->num_cores, sizeof *visited);
    t->next = T_NEVER;
    timing_place(t, 0);
    while (t->resident_tgs && !d->stopped) {
        t->iterations++;
        t->next = T_NEVER;
        /* Pick: each scheduler's oldest ready SIMD-group. Issuing on one scheduler cannot
         * make another's SIMD-group ready in the same cycle (every wake it causes is at
         * now + 1 or later), so all picks can be made before any issue. */
        uint32_t npicks = 0;
        uint32_t nvisited = 0;
        for (uint32_t c = 0; c < t->num_cores; c++) {
            if (t->core_wake[c] > now)
                continue;
            visited[nvisited++] = c;
            uint64_t *wake = t->wake + c * t->spc;
            for (uint32_t k = 0; k < t->spc; k++) {
                if (wake[k] > now)
                    continue;
                TSched *s = &t->cores[c].sched[k];
                if (UTIL_UNLIKELY(s->acct > now)) { /* issued ahead up to acct - 1 */
                    wake[k] = s->acct;
                    continue;
                }
                if (now > s->acct)
                    t->stall[s->idle_reason] += now - s->acct;
                s->acct = now + 1;
                uint64_t soonest = T_NEVER;
                TGroup *pick = UTIL_UNLIKELY(t->observed) ? scan(s, now, &soonest, true)
                                                          : scan(s, now, &soonest, false);
                if (pick) {
                    __builtin_prefetch(pick);
                    __builtin_prefetch((const char *)pick + 64);
                    wake[k] = now + 1;
                    picks[npicks] = pick;
                    pick_at[npicks++] = c << 8 | k; /* spc <= 255 */
                } else {
                    uint8_t reason = classify(s, now);
                    t->stall[reason]++;
                    s->idle_reason = reason;
                    wake[k] = soonest;
                }
            }
        }
        prefetch_picks(d, picks, npicks);
        /* Issue, in core and scheduler order; far enough from the budget that its stop
         * falls on the same instruction, each scheduler then issues ahead what it can. */
        const bool ahead = ahead_enabled && !t->observed &&
                           d->budget - d->result->instructions > ahead_guard;
        for (uint32_t i = 0; i < npicks && !d->stopped; i++) {
            uint32_t c = pick_at[i] >> 8, k = pick_at[i] & 255;
            TCore *core = &t->cores[c];
            issue(t, core, &core->sched[k], picks[i], now, NULL);
            if (d->stopped) {
                /* This pick and the ones after it did not issue: their cycle is not one
                 * with an issue, so timing_fill_stats counts it as a stall like the rest. */
                for (uint32_t j = i; j < npicks; j++)
                    t->cores[pick_at[j] >> 8].sched[pick_at[j] & 255].acct = now;
                break;
            }
            count_busy(core, now);
            if (ahead && try_ahead(&core->sched[k]))
                sched_ahead(t, core, &core->sched[k], &t->wake[c * t->spc + k], now);
        }
        if (d->stopped)
            break;
        /* Then each visited core runs ahead what it can. Its wake is recomputed either way
         * (its schedulers' wakes moved); any other core's can only have been lowered, by
         * timing_poke, which keeps it exact. */
        for (uint32_t v = 0; v < nvisited; v++)
            core_ahead(t, visited[v], ahead ? now + AHEAD_MAX : now + 1);
        for (uint32_t c = 0; c < t->num_cores; c++)
            t->next = min64(t->next, t->core_wake[c]);
        if (t->next == T_NEVER)
            break;
        now = max64(t->next, now + 1);
    }
    t->end = max64(t->end, now);
    last_iterations = t->iterations;
    free(picks);
    free(pick_at);
    free(visited);
}
