/*
 * debug_session.c — the debugger's hold on a running dispatch.
 *
 * The dispatch runs, unchanged, on a thread of its own with one observer attached; the
 * observer decides at each issued instruction whether the user asked to stop there, and if
 * so hands the turn to the user's thread and waits for it to hand it back. Only one of the
 * two threads runs at a time (the mutex and `sim_turn` pass the turn), so the user's thread
 * reads registers and memory while they hold still, and the run is exactly the run
 * `lockstep run --mode functional` makes: same order, same results, every time.
 *
 * While the simulator's thread runs, the user's thread wakes every few hundredths of a second
 * to call dbg->poll (the terminal reads its keys there), so `q` or Ctrl-C in the middle of
 * a runaway loop asks it to stop at its next instruction. Quitting sets SimLaunch.cancel,
 * which the simulator reads before each instruction, so the run then ends at once.
 */
#include "debug.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How often the user's thread polls while the simulator's runs. */
#define POLL_NS 30000000L

uint32_t ui_dbg_line_of(const IsaProgram *p, uint32_t index)
{
    if (!p->locs || index >= p->count || p->locs[index].file != 0)
        return 0;
    return p->locs[index].line;
}

/* Hands the turn to the other thread and waits for it to come back. */
static void pass_turn(UiDbg *dbg, bool to_sim)
{
    dbg->sim_turn = to_sim;
    pthread_cond_broadcast(&dbg->cond);
    while (dbg->sim_turn == to_sim)
        pthread_cond_wait(&dbg->cond, &dbg->mutex);
}

static bool is_from_group(const UiDbg *dbg, const SimGroupView *sg)
{
    return sg->threadgroup->linear == dbg->from_tg && sg->simdgroup == dbg->from_sg;
}

static bool holds_thread(const UiDbg *dbg, const SimGroupView *sg, uint32_t *lane)
{
    const SimThreadgroupView *tg = sg->threadgroup;
    uint32_t local[3];
    for (int k = 0; k < 3; k++) {
        uint64_t start = (uint64_t)tg->position[k] * tg->dispatch_size[k];
        if (dbg->target[k] < start || dbg->target[k] >= start + tg->size[k])
            return false;
        local[k] = (uint32_t)(dbg->target[k] - start);
    }
    uint32_t linear = local[0] + tg->size[0] * (local[1] + tg->size[1] * local[2]);
    if (linear / SIM_SIMD_WIDTH != sg->simdgroup)
        return false;
    *lane = linear % SIM_SIMD_WIDTH;
    return true;
}

/* The breakpoint this instruction meets, or -1. A line breakpoint stops a SIMD-group where
 * it enters the line (its previous instruction was on another line, or it jumped back to
 * it), as gdb does, so a loop stops there once per trip, even a loop on one line, and a
 * line of several instructions stops once. */
static int breakpoint_at(UiDbg *dbg, const SimGroupView *sg, uint32_t index, uint32_t line)
{
    uint32_t *last = &dbg->last_line[sg->simdgroup], *last_index = &dbg->last_index[sg->simdgroup];
    bool entering = line != *last || index <= *last_index; /* or a jump back into it */
    *last = line;
    *last_index = index;
    for (uint32_t b = 0; b < dbg->num_breaks; b++) {
        const UiDbgBreak *bp = &dbg->breaks[b];
        if (bp->kind == UI_DBG_BREAK_LINE ? bp->line == line && entering
                                          : bp->kind == UI_DBG_BREAK_INDEX && bp->index == index)
            return (int)b;
    }
    return -1;
}

static void on_issued(void *ctx, const SimGroupView *sg, const IsaInst *inst)
{
    UiDbg *dbg = ctx;
    uint32_t index = (uint32_t)isa_program_index_of_pc(dbg->program, inst->pc);
    uint32_t line = ui_dbg_line_of(dbg->program, index);
    dbg->issued++;
    if (sg->simdgroup < UTIL_ARRAY_LEN(dbg->groups)) {
        struct UiDbgGroup *g = &dbg->groups[sg->simdgroup];
        g->issued++;
        g->last = index;
        g->barrier = -1;
    }
    int bp = breakpoint_at(dbg, sg, index, line);
    bool stop = false;
    uint32_t lane = dbg->focus_lane;
    UiDbgWhy why = UI_DBG_WHY_STEPPED;
    switch (dbg->run) {
    case UI_DBG_STEP:
        stop = --dbg->count == 0;
        break;
    case UI_DBG_NEXT:
        stop = (dbg->from_ended || is_from_group(dbg, sg)) && --dbg->count == 0;
        break;
    case UI_DBG_LINE:
        stop = dbg->from_ended || (is_from_group(dbg, sg) && line != 0 && line != dbg->from_line);
        break;
    case UI_DBG_THREAD:
        if (holds_thread(dbg, sg, &lane))
            stop = true, why = UI_DBG_WHY_THREAD;
        break;
    case UI_DBG_CONTINUE:
    case UI_DBG_END:
        break;
    }
    /* a store of the instruction before to a watched element */
    if (dbg->watch_pending.watch >= 0) {
        if (dbg->run != UI_DBG_END) {
            stop = true, why = UI_DBG_WHY_WATCH;
            dbg->watch_shown = dbg->watch_pending;
            dbg->breaks[dbg->watch_pending.watch].hits++;
        }
        dbg->watch_pending.watch = -1;
    }
    /* the faults of the instruction before (the budget's comes at the end); with --check,
     * an instruction's faults are one finding, which stops the run once */
    bool again = dbg->fault_stopped && dbg->prev_index < dbg->program->count &&
                 dbg->fault_stopped[dbg->prev_index];
    if (dbg->result.total_faults > dbg->faults_seen && dbg->run != UI_DBG_END && !again) {
        stop = true, why = UI_DBG_WHY_FAULT;
        if (dbg->fault_stopped && dbg->prev_index < dbg->program->count)
            dbg->fault_stopped[dbg->prev_index] = true;
        dbg->fault = dbg->faults_seen;
        dbg->num_new = (uint32_t)(dbg->result.total_faults - dbg->faults_seen);
    }
    dbg->faults_seen = dbg->result.total_faults;
    if (dbg->checking) {
        uint32_t n;
        check_session_flush(dbg->checking->session);
        check_session_findings(dbg->checking->session, &n);
        if (n > dbg->findings_seen && dbg->run != UI_DBG_END && why != UI_DBG_WHY_FAULT) {
            stop = true, why = UI_DBG_WHY_FINDING;
            dbg->finding = dbg->findings_seen;
            dbg->num_new = n - dbg->findings_seen;
        }
        dbg->findings_seen = n;
    }
    if (atomic_exchange_explicit(&dbg->interrupt, false, memory_order_relaxed))
        stop = true, why = UI_DBG_WHY_INTERRUPTED;
    if (bp >= 0 && dbg->run != UI_DBG_END) {
        dbg->breaks[bp].hits++;
        if (!stop || why == UI_DBG_WHY_STEPPED)
            why = UI_DBG_WHY_BREAKPOINT;
        stop = true;
    }
    dbg->prev_index = index;
    if (!stop || atomic_load(&dbg->cancel))
        return;
    dbg->why = why;
    dbg->breakpoint = bp;
    dbg->sg = sg;
    dbg->inst = inst;
    dbg->index = index;
    dbg->focus_lane = lane < sg->lanes ? lane : 0;
    pthread_mutex_lock(&dbg->mutex);
    pass_turn(dbg, false);
    pthread_mutex_unlock(&dbg->mutex);
}

/* Stores and atomics that touch a watched element: the first lane that does is kept, and
 * the next instruction stops (on_issued). */
static void on_mem_access(void *ctx, const SimGroupView *sg, const SimMemAccess *a)
{
    UiDbg *dbg = ctx;
    if (sg->simdgroup < UTIL_ARRAY_LEN(dbg->last_access)) {
        /* the lane data only for what a store wrote: copying it costs as much as the rest */
        SimMemAccess *last = &dbg->last_access[sg->simdgroup];
        memcpy(last, a, offsetof(SimMemAccess, data));
        dbg->has_access[sg->simdgroup] = true;
    }
    if (!dbg->num_watches || a->kind == SIM_ACCESS_READ || dbg->watch_pending.watch >= 0)
        return;
    for (uint32_t b = 0; b < dbg->num_breaks; b++) {
        const UiDbgBreak *w = &dbg->breaks[b];
        if (w->kind != UI_DBG_BREAK_WATCH || w->space != a->space)
            continue;
        for (uint32_t mask = a->lane_mask; mask; mask &= mask - 1) {
            uint32_t lane = (uint32_t)__builtin_ctz(mask);
            uint64_t lo = a->addr[lane], hi = lo + a->bytes;
            if (hi <= w->addr || w->addr + w->bytes <= lo)
                continue;
            UiDbgWatchHit *hit = &dbg->watch_pending;
            hit->watch = (int)b;
            sim_lane_thread(sg, lane, &hit->thread);
            hit->pc = a->inst->pc;
            hit->whole = lo <= w->addr && w->addr + w->bytes <= hi && w->bytes <= sizeof hit->value;
            if (hit->whole)
                memcpy(hit->value, a->data[lane] + (w->addr - lo), w->bytes);
            return;
        }
    }
}

static void on_barrier_arrive(void *ctx, const SimGroupView *sg, const IsaInst *inst)
{
    UiDbg *dbg = ctx;
    if (sg->simdgroup < UTIL_ARRAY_LEN(dbg->groups))
        dbg->groups[sg->simdgroup].barrier = (int32_t)isa_program_index_of_pc(dbg->program, inst->pc);
}

static void on_barrier_release(void *ctx, const SimThreadgroupView *tg)
{
    UiDbg *dbg = ctx;
    (void)tg;
    for (uint32_t i = 0; i < dbg->num_groups; i++)
        dbg->groups[i].barrier = -1;
}

static void on_tg_begin(void *ctx, const SimThreadgroupView *tg)
{
    UiDbg *dbg = ctx;
    dbg->num_groups = tg->num_simdgroups < UTIL_ARRAY_LEN(dbg->groups) ? tg->num_simdgroups
                                                                      : UTIL_ARRAY_LEN(dbg->groups);
    memset(dbg->groups, 0, sizeof dbg->groups);
    for (uint32_t i = 0; i < UTIL_ARRAY_LEN(dbg->groups); i++)
        dbg->groups[i].barrier = -1;
    memset(dbg->last_line, 0, sizeof dbg->last_line);
    memset(dbg->has_access, 0, sizeof dbg->has_access);
    memset(dbg->last_index, 0xff, sizeof dbg->last_index); /* no instruction yet */
}

static void on_tg_end(void *ctx, const SimThreadgroupView *tg)
{
    UiDbg *dbg = ctx;
    if (tg->linear == dbg->from_tg)
        dbg->from_ended = true;
}

static void *sim_thread(void *arg)
{
    UiDbg *dbg = arg;
    SimObserver observer = {
        .ctx = dbg,
        .threadgroup_begin = on_tg_begin,
        .threadgroup_end = on_tg_end,
        .inst_issued = on_issued,
        .mem_access = on_mem_access,
        .barrier_arrive = on_barrier_arrive,
        .barrier_release = on_barrier_release,
    };
    /* the checkers first: at an instruction, what the ones before it did is reported */
    SimObserver *list[4];
    uint32_t n = 0;
    SimLaunch launch = dbg->launch->sim;
    for (uint32_t i = 0; dbg->checking && i < launch.num_observers && n < 3; i++)
        list[n++] = launch.observers[i];
    list[n++] = &observer;
    launch.mode = SIM_MODE_FUNCTIONAL;
    launch.observers = list;
    launch.num_observers = n;
    launch.cancel = &dbg->cancel;
    bool ok = sim_dispatch(&launch, &dbg->result, &dbg->error);
    if (ok && dbg->checking)
        ui_checking_finish(dbg->checking, &dbg->result);
    pthread_mutex_lock(&dbg->mutex);
    dbg->dispatch_ok = ok;
    dbg->finished = true;
    dbg->why = UI_DBG_WHY_FINISHED;
    dbg->sg = NULL;
    dbg->inst = NULL;
    dbg->sim_turn = false;
    pthread_cond_broadcast(&dbg->cond);
    pthread_mutex_unlock(&dbg->mutex);
    return NULL;
}

/* The kernel's source, split into lines in place; none when it cannot be read (it was, a
 * moment ago, to compile it). */
static void load_source(UiDbg *dbg, const char *path)
{
    UtilError err;
    dbg->source = util_read_text_file(path, &err);
    if (!dbg->source)
        return;
    uint32_t cap = 0;
    for (char *s = dbg->source; *s;) {
        if (dbg->num_lines == cap)
            dbg->lines = util_realloc(dbg->lines, (cap = cap ? 2 * cap : 64) * sizeof *dbg->lines);
        dbg->lines[dbg->num_lines++] = s;
        char *nl = strchr(s, '\n');
        if (!nl)
            break;
        *nl = '\0';
        if (nl > s && nl[-1] == '\r')
            nl[-1] = '\0';
        s = nl + 1;
    }
}

void ui_dbg_start(UiDbg *dbg, UiLaunch *launch, UiChecking *checking)
{
    memset(dbg, 0, sizeof *dbg);
    dbg->launch = launch;
    dbg->checking = checking;
    dbg->watch_pending.watch = dbg->watch_shown.watch = -1;
    dbg->program = launch->program;
    dbg->prev_index = UINT32_MAX;
    if (checking)
        dbg->fault_stopped = util_calloc(dbg->program->count ? dbg->program->count : 1, 1);
    load_source(dbg, launch->m->kernel_path);
    pthread_mutex_init(&dbg->mutex, NULL);
    pthread_condattr_t attr; /* timed waits on the monotonic clock: a clock change is no stop */
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&dbg->cond, &attr);
    pthread_condattr_destroy(&attr);
    atomic_init(&dbg->cancel, false);
    atomic_init(&dbg->interrupt, false);
    dbg->run = UI_DBG_STEP;
    dbg->count = 1;
    dbg->sim_turn = true;
    pthread_mutex_lock(&dbg->mutex);
    if (pthread_create(&dbg->thread, NULL, sim_thread, dbg) != 0) {
        fprintf(stderr, "lockstep debug: error: cannot start a thread\n");
        abort();
    }
    dbg->started = true;
    while (dbg->sim_turn)
        pthread_cond_wait(&dbg->cond, &dbg->mutex);
    pthread_mutex_unlock(&dbg->mutex);
    if (!dbg->finished)
        dbg->why = UI_DBG_WHY_START;
}

void ui_dbg_resume(UiDbg *dbg, UiDbgRun run, uint64_t count, const uint32_t thread[3])
{
    if (dbg->finished)
        return;
    dbg->run = run;
    dbg->count = count ? count : 1;
    dbg->from_tg = dbg->sg->threadgroup->linear;
    dbg->from_sg = dbg->sg->simdgroup;
    dbg->from_line = ui_dbg_line_of(dbg->program, dbg->index);
    dbg->from_ended = false;
    if (thread)
        memcpy(dbg->target, thread, sizeof dbg->target);
    atomic_store(&dbg->interrupt, false); /* a Ctrl-C while stopped does not count */
    pthread_mutex_lock(&dbg->mutex);
    if (!dbg->poll) {
        pass_turn(dbg, true);
        pthread_mutex_unlock(&dbg->mutex);
        return;
    }
    dbg->sim_turn = true;
    pthread_cond_broadcast(&dbg->cond);
    while (dbg->sim_turn) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += POLL_NS;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&dbg->cond, &dbg->mutex, &until);
        if (dbg->sim_turn) {
            pthread_mutex_unlock(&dbg->mutex);
            dbg->poll(dbg->poll_ctx);
            pthread_mutex_lock(&dbg->mutex);
        }
    }
    pthread_mutex_unlock(&dbg->mutex);
}

void ui_dbg_interrupt(UiDbg *dbg)
{
    atomic_store_explicit(&dbg->interrupt, true, memory_order_relaxed);
}

void ui_dbg_end(UiDbg *dbg)
{
    if (dbg->started) {
        atomic_store(&dbg->cancel, true);
        pthread_mutex_lock(&dbg->mutex);
        if (!dbg->finished) {
            dbg->sim_turn = true;
            pthread_cond_broadcast(&dbg->cond);
        }
        pthread_mutex_unlock(&dbg->mutex);
        pthread_join(dbg->thread, NULL);
    }
    pthread_mutex_destroy(&dbg->mutex);
    pthread_cond_destroy(&dbg->cond);
    sim_result_free(&dbg->result);
    free(dbg->fault_stopped);
    dbg->fault_stopped = NULL;
    free(dbg->lines);
    free(dbg->source);
    dbg->lines = NULL;
    dbg->source = NULL;
    dbg->started = false;
}

/* ---- breakpoints ------------------------------------------------------------------------------ */

static bool same_break(const UiDbgBreak *a, const UiDbgBreak *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case UI_DBG_BREAK_LINE:
        return a->line == b->line;
    case UI_DBG_BREAK_INDEX:
        return a->index == b->index;
    case UI_DBG_BREAK_WATCH:
        return a->space == b->space && a->addr == b->addr;
    }
    return false;
}

/* Breakpoints change only while the run is stopped, so the simulator's thread never sees
 * one half made. */
static bool add_break(UiDbg *dbg, const UiDbgBreak *bp, char *why, size_t size)
{
    for (uint32_t b = 0; b < dbg->num_breaks; b++)
        if (same_break(&dbg->breaks[b], bp)) {
            snprintf(why, size, "breakpoint %u is there already", b + 1);
            return false;
        }
    if (dbg->num_breaks == UI_DBG_MAX_BREAKS) {
        snprintf(why, size, "%d breakpoints at most; `delete N` one first", UI_DBG_MAX_BREAKS);
        return false;
    }
    dbg->breaks[dbg->num_breaks++] = *bp;
    dbg->num_watches += bp->kind == UI_DBG_BREAK_WATCH;
    return true;
}

bool ui_dbg_break_line(UiDbg *dbg, uint32_t line, uint32_t *placed, char *why, size_t size)
{
    /* a line without code of its own (a comment, a declaration, a blank line, code whose
     * results nothing uses) takes the breakpoint to the next line that has some, as a
     * debugger does */
    uint32_t next = 0;
    for (uint32_t i = 0; i < dbg->program->count && line; i++) {
        const uint32_t l = ui_dbg_line_of(dbg->program, i);
        if (l >= line && (!next || l < next))
            next = l;
    }
    *placed = next;
    if (next)
        return add_break(dbg, &(UiDbgBreak){.kind = UI_DBG_BREAK_LINE, .line = next}, why, size);
    snprintf(why, size, "no instruction comes from line %u of %s or any line after it", line,
             dbg->program->num_files ? dbg->program->files[0] : "the kernel");
    return false;
}

bool ui_dbg_break_index(UiDbg *dbg, uint32_t index, char *why, size_t size)
{
    if (index >= dbg->program->count) {
        snprintf(why, size, "the kernel has %u instructions (0 to %u)", dbg->program->count,
                 dbg->program->count - 1);
        return false;
    }
    return add_break(dbg, &(UiDbgBreak){.kind = UI_DBG_BREAK_INDEX, .index = index}, why, size);
}

bool ui_dbg_watch(UiDbg *dbg, const char *what, char *why, size_t size)
{
    char name[64];
    int64_t index;
    UiDbgPlace place;
    if (!ui_dbg_split_index(what, name, sizeof name, &index) || index < 0) {
        snprintf(why, size, "watch needs one element of a buffer or threadgroup array, as "
                 "out[5], not `%s`", what);
        return false;
    }
    if (!ui_dbg_locate(dbg, name, &place)) {
        snprintf(why, size, "no buffer argument or threadgroup array named `%s`", name);
        return false;
    }
    UiElemType t;
    if (!ui_elem_type_parse(place.type_name, &t)) {
        snprintf(why, size, "`%s` has no element type lockstep knows, so no element %lld",
                 name, (long long)index);
        return false;
    }
    uint64_t es = ui_elem_size(t);
    if ((uint64_t)index >= place.bytes / es) {
        snprintf(why, size, "%s has %llu elements; %s is past its end", name,
                 (unsigned long long)(place.bytes / es), what);
        return false;
    }
    if (place.space == MEM_SPACE_CONSTANT) {
        snprintf(why, size, "`%s` is a constant buffer: kernels cannot write it", name);
        return false;
    }
    UiDbgBreak w = {.kind = UI_DBG_BREAK_WATCH, .space = place.space, .bytes = (uint32_t)es};
    w.addr = place.space == MEM_SPACE_DEVICE ? mem_buffer_address((uint32_t)place.buffer) +
                                                                  (uint64_t)index * es
                                             : place.offset + (uint64_t)index * es;
    snprintf(w.name, sizeof w.name, "%s", what);
    snprintf(w.type_name, sizeof w.type_name, "%s", place.type_name);
    return add_break(dbg, &w, why, size);
}

bool ui_dbg_delete(UiDbg *dbg, uint32_t number)
{
    if (number == 0 || number > dbg->num_breaks)
        return false;
    dbg->num_watches -= dbg->breaks[number - 1].kind == UI_DBG_BREAK_WATCH;
    memmove(&dbg->breaks[number - 1], &dbg->breaks[number],
            (dbg->num_breaks - number) * sizeof dbg->breaks[0]);
    dbg->num_breaks--;
    return true;
}
