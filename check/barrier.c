/*
 * barrier.c — barrier divergence: a threadgroup_barrier that some lanes of a SIMD-group skip,
 * SIMD-groups that wait at different barriers or end while others wait, and a
 * simdgroup_barrier in divergent code.
 *
 * The simulator never hangs on such a kernel: it releases a barrier once nothing else can
 * run. So each case is seen at a known moment: a partial exec mask at barrier_arrive, and at
 * barrier_release the SIMD-groups that arrived at another pc, or did not arrive at all (a
 * release only happens when no SIMD-group can run, so those have ended).
 *
 * To say which `if` to move the barrier out of, each SIMD-group keeps a small stack of the
 * branch instructions that turned lanes off and are still open: an if/else/while that
 * deactivates lanes is pushed with the lanes active around it, and popped once all of those
 * lanes are active again. The innermost entry is the branch the barrier sits in.
 */
#include <stdio.h>
#include <stdlib.h>

#include "check_internal.h"

#define BRANCH_STACK_MAX 32

typedef struct BranchEntry {
    uint32_t index;  /* the branch instruction */
    uint32_t around; /* lanes active around the construct: it is closed once they are back */
} BranchEntry;

typedef struct GroupState {
    uint32_t before;          /* the mask the instruction being retired ran with */
    uint32_t depth;
    BranchEntry stack[BRANCH_STACK_MAX];
    int64_t arrived;          /* instruction index of the barrier it waits at; -1 none */
    uint32_t arrived_lane;
    uint32_t lanes;           /* present lanes, when it arrived with none of them active */
    bool empty;               /* it arrived with no lane active (all left before it) */
    int64_t stopped;          /* index of the `stop` it ended at; -1 unknown */
    int64_t left;             /* last non-branch instruction that turned lanes off (a return) */
    bool ended_reported;
} GroupState;

typedef struct BarrierChecker {
    CheckChecker base;
    CheckSession *s;
    GroupState *groups;
    uint32_t num_groups, cap_groups;
} BarrierChecker;

static bool is_branch(uint16_t op)
{
    return op == ISA_OP_IF_ICMP || op == ISA_OP_IF_FCMP || op == ISA_OP_ELSE_ICMP ||
           op == ISA_OP_ELSE_FCMP || op == ISA_OP_WHILE_ICMP || op == ISA_OP_WHILE_FCMP;
}

static uint32_t present_mask(const SimGroupView *sg)
{
    return sg->lanes >= 32 ? 0xffffffffu : (1u << sg->lanes) - 1;
}

static uint32_t index_of(const CheckSession *s, const IsaInst *inst)
{
    return (uint32_t)(inst - s->program->code);
}

/* Keeps the stack of open diverging branches current after an instruction retired. */
static void track_branches(GroupState *g, uint32_t index, uint16_t op, uint32_t after)
{
    if (!is_branch(op) && (g->before & ~after))
        g->left = index;
    while (g->depth && (g->stack[g->depth - 1].around & ~after) == 0)
        g->depth--;
    if (!is_branch(op) || (g->before & ~after) == 0)
        return;
    /* Re-running a branch that is still open (a loop) returns to it rather than nesting. */
    for (uint32_t i = g->depth; i-- > 0;)
        if (g->stack[i].index == index) {
            g->depth = i + 1;
            g->stack[i].around |= g->before | after;
            return;
        }
    if (g->depth < BRANCH_STACK_MAX)
        g->stack[g->depth++] = (BranchEntry){.index = index, .around = g->before | after};
}

static void on_tg_begin(void *ctx, const SimThreadgroupView *tg)
{
    BarrierChecker *c = ctx;
    if (tg->num_simdgroups > c->cap_groups) {
        c->groups = util_realloc(c->groups, tg->num_simdgroups * sizeof *c->groups);
        c->cap_groups = tg->num_simdgroups;
    }
    c->num_groups = tg->num_simdgroups;
    for (uint32_t i = 0; i < c->num_groups; i++)
        c->groups[i] = (GroupState){.arrived = -1, .stopped = -1, .left = -1};
}

/* "the if at line 9" / "the loop at line 12" for the innermost open branch, or NULL. */
static const char *enclosing_branch(const BarrierChecker *c, const GroupState *g, char *buf,
                                    size_t size)
{
    if (!g->depth)
        return NULL;
    const IsaProgram *p = c->s->program;
    uint32_t index = g->stack[g->depth - 1].index;
    uint16_t op = p->code[index].op;
    const char *what = op == ISA_OP_WHILE_ICMP || op == ISA_OP_WHILE_FCMP ? "loop"
                       : op == ISA_OP_ELSE_ICMP || op == ISA_OP_ELSE_FCMP ? "else branch of the if"
                                                                          : "if";
    snprintf(buf, size, "the %s at line %s", what, check_line(p, p->code[index].pc).s);
    return buf;
}

static void report_partial(BarrierChecker *c, const SimGroupView *sg, const IsaInst *inst,
                           const char *name)
{
    GroupState *g = &c->groups[sg->simdgroup];
    uint32_t present = present_mask(sg);
    uint32_t skipped = present & ~sg->exec_mask;
    CheckFinding f = {.kind = CHECK_BARRIER_DIVERGENCE, .severity = CHECK_ERROR};
    check_site_thread(&f.first, sg, (uint32_t)__builtin_ctz(skipped), inst->pc);
    if (sg->exec_mask & present)
        snprintf(f.message, sizeof f.message,
                 "%s reached by %u of %u lanes of SIMD-group %u (the others skipped it: "
                 "barrier in divergent code)",
                 name, util_popcount32(sg->exec_mask & present), sg->lanes, sg->simdgroup);
    else
        snprintf(f.message, sizeof f.message,
                 "%s skipped by all %u lanes of SIMD-group %u while others wait at it (barrier "
                 "in divergent code)", name, sg->lanes, sg->simdgroup);
    char where[256];
    /* lanes that left (a return or break) after the innermost open branch began are why it
     * is still open: the branch only holds the return, not the barrier */
    bool left_inside =
        g->left >= 0 && (!g->depth || (uint32_t)g->left > g->stack[g->depth - 1].index);
    if (!left_inside && enclosing_branch(c, g, where, sizeof where))
        snprintf(f.fix, sizeof f.fix,
                 "move the %s out of %s: every thread of the %s must reach it", name, where,
                 inst->op == ISA_OP_BARRIER ? "threadgroup" : "SIMD-group");
    else if (g->left >= 0)
        snprintf(f.fix, sizeof f.fix,
                 "every thread of the %s must reach the %s at line %s; the lanes that skipped "
                 "it left at line %s (a return or break before it?)",
                 inst->op == ISA_OP_BARRIER ? "threadgroup" : "SIMD-group", name,
                 check_line(c->s->program, inst->pc).s,
                 check_line(c->s->program, c->s->program->code[g->left].pc).s);
    else
        snprintf(f.fix, sizeof f.fix, "every thread of the %s must reach the %s at line %s",
                 inst->op == ISA_OP_BARRIER ? "threadgroup" : "SIMD-group", name,
                 check_line(c->s->program, inst->pc).s);
    check_report(c->s, &f);
}

/* Everything is done at retirement. The session calls this for branches, `stop`,
 * simdgroup_barrier and every instruction that changed the exec mask: nothing else changes
 * the state here. */
static void on_retired(CheckChecker *base, const SimGroupView *sg, const IsaInst *inst,
                       uint32_t before)
{
    BarrierChecker *c = (BarrierChecker *)base;
    GroupState *g = &c->groups[sg->simdgroup];
    g->before = before;
    if (sg->exec_mask != g->before || is_branch(inst->op))
        track_branches(g, index_of(c->s, inst), inst->op, sg->exec_mask);
    if (inst->op == ISA_OP_STOP)
        g->stopped = index_of(c->s, inst);
    else if (inst->op == ISA_OP_SIMD_BARRIER && (present_mask(sg) & ~sg->exec_mask) &&
             (present_mask(sg) & sg->exec_mask)) /* a SIMD-group that skips it whole: fine */
        report_partial(c, sg, inst, "simdgroup_barrier");
}

static void on_arrive(void *ctx, const SimGroupView *sg, const IsaInst *inst)
{
    BarrierChecker *c = ctx;
    GroupState *g = &c->groups[sg->simdgroup];
    g->arrived = index_of(c->s, inst);
    g->arrived_lane = sg->exec_mask ? (uint32_t)__builtin_ctz(sg->exec_mask) : 0;
    /* a SIMD-group all of whose lanes left passes the barrier empty: wrong only if another
     * SIMD-group waits at it with lanes (on_release), not when the whole threadgroup left */
    g->empty = !(present_mask(sg) & sg->exec_mask);
    g->lanes = sg->lanes;
    if (!g->empty && (present_mask(sg) & ~sg->exec_mask))
        report_partial(c, sg, inst, "threadgroup_barrier");
}

/* A site for lane `lane` of SIMD-group `simdgroup` of tg, at pc. */
static void group_site(CheckSite *site, const SimThreadgroupView *tg, uint32_t simdgroup,
                       uint32_t lane, uint32_t pc)
{
    SimGroupView v = {.threadgroup = tg, .simdgroup = simdgroup, .lanes = 32};
    check_site_thread(site, &v, lane, pc);
}

static void on_release(void *ctx, const SimThreadgroupView *tg)
{
    BarrierChecker *c = ctx;
    const IsaProgram *p = c->s->program;
    int64_t first = -1;
    for (uint32_t i = 0; i < c->num_groups; i++)
        if (c->groups[i].arrived >= 0 && !c->groups[i].empty) {
            first = i;
            break;
        }
    if (first < 0) { /* nobody with lanes waits: the whole threadgroup left before it */
        for (uint32_t i = 0; i < c->num_groups; i++)
            c->groups[i].arrived = -1;
        return;
    }
    for (uint32_t i = 0; i < c->num_groups; i++) {
        GroupState *g = &c->groups[i];
        if (g->arrived >= 0 && g->empty) {
            SimGroupView v = {.threadgroup = tg, .simdgroup = i, .lanes = g->lanes};
            report_partial(c, &v, &p->code[g->arrived], "threadgroup_barrier");
            g->arrived = c->groups[first].arrived; /* reported: not "at another barrier" too */
        }
    }
    const GroupState *a = &c->groups[first];
    /* Usually every SIMD-group waits at the same barrier: nothing to report, and nothing to
     * build a report with (a finding and the barrier's line cost more than the rest). */
    bool odd = false;
    for (uint32_t i = 0; i < c->num_groups; i++) {
        const GroupState *g = &c->groups[i];
        odd |= g->arrived >= 0 ? g->arrived != a->arrived : !g->ended_reported;
    }
    if (!odd) {
        for (uint32_t i = 0; i < c->num_groups; i++)
            c->groups[i].arrived = -1;
        return;
    }
    uint32_t a_pc = p->code[a->arrived].pc;
    const CheckLine a_line_ = check_line(p, a_pc);
    const char *a_line = a_line_.s;
    for (uint32_t i = 0; i < c->num_groups; i++) {
        GroupState *g = &c->groups[i];
        if (!(g->arrived >= 0 && g->arrived != a->arrived) &&
            !(g->arrived < 0 && !g->ended_reported))
            continue;
        CheckFinding f = {.kind = CHECK_BARRIER_DIVERGENCE, .severity = CHECK_ERROR};
        if (g->arrived >= 0 && g->arrived != a->arrived) {
            uint32_t pc = p->code[g->arrived].pc;
            group_site(&f.first, tg, (uint32_t)first, a->arrived_lane, a_pc);
            group_site(&f.second, tg, i, g->arrived_lane, pc);
            snprintf(f.message, sizeof f.message,
                     "SIMD-groups wait at different barriers: SIMD-group %u at line %s, "
                     "SIMD-group %u at line %s",
                     (uint32_t)first, a_line, i, check_line(p, pc).s);
            snprintf(f.fix, sizeof f.fix,
                     "every thread of the threadgroup must reach the same threadgroup_barrier: "
                     "the barriers at line %s and line %s are on different paths",
                     a_line, check_line(p, pc).s);
            check_report(c->s, &f);
        } else if (g->arrived < 0 && !g->ended_reported) {
            /* Only SIMD-groups that ended are neither running nor waiting at a release. */
            g->ended_reported = true;
            group_site(&f.first, tg, (uint32_t)first, a->arrived_lane, a_pc);
            if (g->stopped >= 0)
                group_site(&f.second, tg, i, 0, p->code[g->stopped].pc);
            snprintf(f.message, sizeof f.message,
                     "SIMD-group %u ended without reaching the threadgroup_barrier at line %s",
                     i, a_line);
            snprintf(f.fix, sizeof f.fix,
                     "every thread of the threadgroup must reach the threadgroup_barrier at line "
                     "%s: move it out of the branch SIMD-group %u's threads skip, or before any "
                     "early return",
                     a_line, i);
            check_report(c->s, &f);
        }
    }
    for (uint32_t i = 0; i < c->num_groups; i++)
        c->groups[i].arrived = -1;
}

static void destroy(CheckChecker *base)
{
    BarrierChecker *c = (BarrierChecker *)base;
    free(c->groups);
    free(c);
}

CheckChecker *check_barrier_new(CheckSession *s)
{
    if (!s->opts.barriers)
        return NULL;
    BarrierChecker *c = util_calloc(1, sizeof *c);
    c->s = s;
    c->base.observer = (SimObserver){
        .ctx = c,
        .threadgroup_begin = on_tg_begin,
        .barrier_arrive = on_arrive,
        .barrier_release = on_release,
    };
    c->base.retired = on_retired;
    c->base.retire_mask_changes = true;
    for (uint32_t op = 0; op < ISA_OP_COUNT; op++)
        if (is_branch((uint16_t)op) || op == ISA_OP_STOP || op == ISA_OP_SIMD_BARRIER)
            check_op_set(c->base.retire_ops, op);
    c->base.destroy = destroy;
    return &c->base;
}
