/*
 * race_sync.c — the data-race detector's view of synchronization and its lifetime: each
 * threadgroup starts with clean threadgroup shadow and its own serial range; a barrier
 * orders, per memory space its mem_flags cover, everything before it (and drops the logged
 * quiet reads, see race.c); a simdgroup_barrier does the same for its SIMD-group under
 * strict_simd. The per-access work is in race.c, the reports in race_report.c.
 */
#include <stdlib.h>
#include <string.h>

#include "race_internal.h"

static const uint8_t space_bit[SP_COUNT] = {ISA_MEM_DEVICE, ISA_MEM_THREADGROUP};

/* ---- threadgroups and barriers ------------------------------------------------------------ */

static void on_threadgroup_begin(void *ctx, const SimThreadgroupView *tg)
{
    Race *r = ctx;
    uint64_t words = ((uint64_t)tg->tg_memory_bytes + 3) / 4;
    RaceShadow *sh = &r->tg;
    if (words > sh->words) {
        free(sh->w);
        free(sh->value);
        free(sh->r1);
        free(sh->link);
        sh->w = util_calloc(words, sizeof *sh->w);
        sh->value = util_calloc(words, sizeof *sh->value);
        sh->r1 = util_calloc(words, sizeof *sh->r1);
        sh->link = util_calloc(words, sizeof *sh->link);
        sh->words = words;
    } else if (r->tg_hwm) {
        memset(sh->w, 0, r->tg_hwm * sizeof *sh->w);
        memset(sh->value, 0, r->tg_hwm * sizeof *sh->value);
        memset(sh->r1, 0, r->tg_hwm * sizeof *sh->r1);
        memset(sh->link, 0, r->tg_hwm * sizeof *sh->link);
    }
    r->tg_hwm = 0;
    r->tg_store_serial = 0;
    r->num_quiet = 0; /* the shadow starts again */
    r->tg.num_bytes = 0;
    r->tg.num_more = 0;
    r->cur_tg = tg;
    r->tg_first = r->serial + 1;
    memcpy(r->dispatch_size, tg->dispatch_size, sizeof r->dispatch_size);
    util_reserve((void **)&r->tgs, &r->tgs_cap, r->num_tgs + 1, sizeof *r->tgs);
    RaceTg *t = &r->tgs[r->num_tgs++];
    t->first_serial = r->tg_first;
    memcpy(t->position, tg->position, sizeof t->position);
    memcpy(t->size, tg->size, sizeof t->size);
    memset(r->rel, 0, sizeof r->rel);
    memset(r->simd_rel, 0, sizeof r->simd_rel);
    memset(r->simd_noncover_serial, 0, sizeof r->simd_noncover_serial);
    memset(r->noncover_serial, 0, sizeof r->noncover_serial);
    r->pending_flags = 0xff;
    r->pending_any = false;
}

static void on_barrier_arrive(void *ctx, const SimGroupView *sg, const IsaInst *inst)
{
    Race *r = ctx;
    (void)sg;
    if (inst->op != ISA_OP_BARRIER)
        return;
    /* SIMD-groups at different barriers is barrier divergence (barrier.c); here only the
     * spaces every arriving barrier covers count as ordered */
    r->pending_flags &= inst->flags;
    r->pending_any = true;
    r->pending_pc = inst->pc;
}

static void on_barrier_release(void *ctx, const SimThreadgroupView *tg)
{
    Race *r = ctx;
    (void)tg;
    uint8_t flags = r->pending_any ? r->pending_flags : 0;
    if (flags & space_bit[SP_TG])
        r->num_quiet = 0; /* every logged read is now ordered with what follows */
    for (int sp = 0; sp < SP_COUNT; sp++) {
        if (flags & space_bit[sp]) {
            r->rel[sp] = r->serial + 1;
        } else {
            r->noncover_serial[sp] = r->serial + 1;
            r->noncover_pc[sp] = r->pending_pc;
            r->noncover_flags[sp] = flags;
        }
    }
    r->pending_flags = 0xff;
    r->pending_any = false;
}

/* Only attached under strict_simd: simdgroup_barrier orders the lanes of its SIMD-group. */
static void on_inst_issued(void *ctx, const SimGroupView *sg, const IsaInst *inst)
{
    Race *r = ctx;
    if (inst->op != ISA_OP_SIMD_BARRIER || sg->simdgroup >= UTIL_ARRAY_LEN(r->simd_rel))
        return;
    const uint32_t g = sg->simdgroup;
    for (int sp = 0; sp < SP_COUNT; sp++) {
        if (inst->flags & space_bit[sp]) {
            r->simd_rel[g][sp] = r->serial + 1;
        } else {
            r->simd_noncover_serial[g][sp] = r->serial + 1;
            r->simd_noncover_pc[g][sp] = inst->pc;
            r->simd_noncover_flags[g][sp] = inst->flags;
        }
    }
}

/* ---- the checker -------------------------------------------------------------------------- */

/* The races found since the last flush go to the session (which folds repeats of one into
 * it); the table that merges repeats until then starts empty again. */
static void race_flush(CheckChecker *c, CheckSession *s)
{
    Race *r = (Race *)c;
    if (!r->num_found)
        return;
    for (size_t i = 0; i < r->num_found; i++)
        check_report(s, &r->found[i].f);
    r->num_found = 0;
    if (r->table)
        memset(r->table, 0, r->table_size * sizeof *r->table);
}

static void race_finish(CheckChecker *c, CheckSession *s, const SimResult *result)
{
    (void)result;
    race_flush(c, s);
}

static void race_destroy(CheckChecker *c)
{
    Race *r = (Race *)c;
    for (uint32_t i = 0; i < r->num_dev; i++)
        race_shadow_release(&r->dev[i], true);
    free(r->dev);
    race_shadow_release(&r->tg, false);
    free(r->quiet);
    free(r->eager);
    free(r->tgs);
    free(r->found);
    free(r->table);
    free(r);
}

CheckChecker *check_race_new(CheckSession *s)
{
    if (!s->opts.races)
        return NULL;
    Race *r = util_calloc(1, sizeof *r);
    r->s = s;
    r->strict = s->opts.strict_simd;
    r->same_value = s->opts.same_value_races;
    r->num_dev = s->device ? s->device->count : 0;
    r->dev = util_calloc(r->num_dev ? r->num_dev : 1, sizeof *r->dev);
    r->pending_flags = 0xff;
    r->base.observer = (SimObserver){
        .ctx = r,
        .threadgroup_begin = on_threadgroup_begin,
        .inst_issued = r->strict ? on_inst_issued : NULL,
        .mem_access = race_on_mem_access,
        .barrier_arrive = on_barrier_arrive,
        .barrier_release = on_barrier_release,
    };
    check_op_set(r->base.issue_ops, ISA_OP_SIMD_BARRIER);
    r->base.flush = race_flush;
    r->base.finish = race_finish;
    r->base.destroy = race_destroy;
    return &r->base;
}

/* ---- shadows ------------------------------------------------------------------------------ */

void race_shadow_release(RaceShadow *sh, bool device)
{
    if (device) {
        check_shadow_free(sh->w, sh->words, sizeof *sh->w);
        check_shadow_free(sh->value, sh->words, sizeof *sh->value);
        check_shadow_free(sh->r1, sh->words, sizeof *sh->r1);
        check_shadow_free(sh->link, sh->words, sizeof *sh->link);
    } else {
        free(sh->w);
        free(sh->value);
        free(sh->r1);
        free(sh->link);
    }
    free(sh->bytes);
    free(sh->more);
}
