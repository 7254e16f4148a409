/*
 * debug_timing.c — the cycles the debugger shows beside each instruction.
 *
 * The debugger steps through a functional run (its observer must see SIMD-groups in a
 * fixed order, which would change a timed run's schedule). So before it starts, the launch
 * runs once timed, unobserved, on a copy of the buffers, with SimLaunch.issue_trace noting
 * when each SIMD-group issued each of its instructions. The k-th instruction a SIMD-group
 * issues is the same in both runs (same program, same inputs), so at a stop the debugger
 * looks up the cycle of instruction k of that SIMD-group: the cycle `lockstep run` would
 * have issued it at, and how long after the one before.
 */
#include "debug.h"

#include <stdlib.h>
#include <string.h>

/* The timed run stops after this many issues (16 bytes each: 64 MB; half a second of
 * timed simulation), so a runaway kernel does not hold up the debugger; the instructions
 * after them have no cycle. */
#define MAX_ISSUES (4u << 20)
/* Beyond this many SIMD-groups in the grid, no cycles at all. */
#define MAX_GROUPS (8u << 20)

#define CORE_BITS 12
#define CYCLE_MASK ((UINT64_C(1) << (64 - CORE_BITS)) - 1)
#define READY_MASK ((UINT64_C(1) << 60) - 1)

static void on_issue(void *ctx, const SimIssueEvent *e)
{
    UiDbgTiming *t = ctx;
    uint64_t key = e->threadgroup * t->groups_per_tg + e->simdgroup;
    if (key >= t->num_groups)
        return;
    UiDbgIssues *g = &t->groups[key];
    if (t->recorded >= MAX_ISSUES) {
        t->dropped++;
        return;
    }
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 16;
        g->issues = util_realloc(g->issues, g->cap * sizeof *g->issues);
    }
    g->issues[g->n++] = (UiDbgIssue){
        (uint64_t)e->core << (64 - CORE_BITS) | (e->cycle & CYCLE_MASK),
        (uint64_t)e->waited_on << 60 | (e->ready & READY_MASK),
    };
    t->recorded++;
}

bool ui_dbg_timing_run(UiDbgTiming *t, const UiLaunch *L, UtilError *err)
{
    memset(t, 0, sizeof *t);
    const SimLaunch *in = &L->sim;
    uint64_t tgs = 1, tg_threads = 1;
    for (int k = 0; k < 3; k++) {
        uint64_t n = in->by_threadgroups ? in->grid[k]
                                         : ((uint64_t)in->grid[k] + in->threadgroup[k] - 1) /
                                               (in->threadgroup[k] ? in->threadgroup[k] : 1);
        tgs *= n;
        tg_threads *= in->threadgroup[k];
    }
    t->groups_per_tg = (uint32_t)((tg_threads + SIM_SIMD_WIDTH - 1) / SIM_SIMD_WIDTH);
    t->num_groups = tgs * t->groups_per_tg;
    if (t->num_groups > MAX_GROUPS) {
        snprintf(t->why, sizeof t->why, "no cycles: the grid has more than %u SIMD-groups",
                 MAX_GROUPS);
        t->num_groups = 0;
        return true;
    }
    t->groups = util_calloc(t->num_groups ? t->num_groups : 1, sizeof *t->groups);
    MemDevice *copy = mem_device_clone(in->device);
    SimIssueTrace hook = {.ctx = t, .issued = on_issue};
    SimLaunch launch = *in;
    launch.device = copy;
    launch.mode = SIM_MODE_TIMED;
    launch.observers = NULL;
    launch.num_observers = 0;
    launch.issue_trace = &hook;
    uint64_t budget = in->instruction_budget ? in->instruction_budget : SIM_DEFAULT_INSTRUCTION_BUDGET;
    launch.instruction_budget = budget < MAX_ISSUES ? budget : MAX_ISSUES;
    SimResult r = {0};
    bool ok = sim_dispatch(&launch, &r, err);
    t->cycles = r.stats.cycles;
    t->cut = r.budget_exceeded && budget > MAX_ISSUES;
    t->clock_mhz = in->gpu ? in->gpu->clock_mhz : 0;
    sim_result_free(&r);
    mem_device_free(copy);
    t->on = ok;
    return ok;
}

bool ui_dbg_timing_at(const UiDbgTiming *t, uint64_t threadgroup, uint32_t simdgroup,
                      uint64_t k, UiDbgIssueTime *out)
{
    if (!t->on)
        return false;
    uint64_t key = threadgroup * t->groups_per_tg + simdgroup;
    if (key >= t->num_groups || k >= t->groups[key].n)
        return false;
    const UiDbgIssue *c = t->groups[key].issues;
    uint64_t prev = k ? c[k - 1].cycle & CYCLE_MASK : 0, ready = c[k].ready & READY_MASK;
    out->cycle = c[k].cycle & CYCLE_MASK;
    out->core = (uint32_t)(c[k].cycle >> (64 - CORE_BITS));
    out->since = k ? out->cycle - prev : 0;
    /* from the cycle after the previous issue to `ready`, it waited on `reason` */
    out->waited = k && ready > prev + 1 ? ready - prev - 1 : 0;
    out->reason = (SimStall)(c[k].ready >> 60);
    return true;
}

void ui_dbg_timing_free(UiDbgTiming *t)
{
    for (uint64_t i = 0; i < t->num_groups; i++)
        free(t->groups[i].issues);
    free(t->groups);
    memset(t, 0, sizeof *t);
}
