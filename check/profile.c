/*
 * profile.c — the divergence profile: per branch site (if_* / else_* / while_*) how often a
 * SIMD-group executed it, how often it split the SIMD-group, and the lane-slots lost to
 * inactive lanes while it was open; plus the kernel's lane-instructions and lane-slots.
 *
 * Idle lane-slots are charged to the innermost branch that turned lanes off and is still
 * open. Each SIMD-group keeps a small stack of those branches: a branch that deactivates
 * lanes is pushed with the lanes active around it and popped once all of them are active
 * again (the same bookkeeping barrier.c uses to name the `if` a barrier sits in). Counters
 * are per instruction index, allocated once. Only branches and exec mask changes come here
 * (the session counts the instructions between them): in between, the mask and the stack
 * stay as they are, so their idle lane-slots are charged in one multiply.
 */
#include <stdlib.h>

#include "check_internal.h"

#define BRANCH_STACK_MAX 32

typedef struct BranchEntry {
    uint32_t index;
    uint32_t around; /* lanes active around the construct */
} BranchEntry;

typedef struct GroupState {
    uint32_t mask;   /* exec mask after the last instruction: the next one runs with it */
    uint32_t lanes;
    uint64_t charged;/* instructions (the session's CheckGroup.retired) charged so far */
    uint32_t depth;
    BranchEntry stack[BRANCH_STACK_MAX];
} GroupState;

typedef struct ProfileChecker {
    CheckChecker base;
    CheckSession *s;
    uint64_t *executions, *diverged, *idle; /* per instruction index */
    GroupState *groups;
    uint32_t cap_groups;
} ProfileChecker;

static bool is_branch(uint16_t op)
{
    return op == ISA_OP_IF_ICMP || op == ISA_OP_IF_FCMP || op == ISA_OP_ELSE_ICMP ||
           op == ISA_OP_ELSE_FCMP || op == ISA_OP_WHILE_ICMP || op == ISA_OP_WHILE_FCMP;
}

static bool is_else(uint16_t op) { return op == ISA_OP_ELSE_ICMP || op == ISA_OP_ELSE_FCMP; }

static void on_tg_begin(void *ctx, const SimThreadgroupView *tg)
{
    ProfileChecker *c = ctx;
    if (tg->num_simdgroups > c->cap_groups) {
        c->groups = util_realloc(c->groups, tg->num_simdgroups * sizeof *c->groups);
        c->cap_groups = tg->num_simdgroups;
    }
    uint32_t n = tg->num_simdgroups;
    for (uint32_t i = 0; i < n; i++) {
        /* r0l starts at 0, so every present lane starts active */
        uint32_t lanes = i + 1 < n || tg->threads % 32 == 0 ? 32 : tg->threads % 32;
        c->groups[i].mask = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
        c->groups[i].lanes = lanes;
        c->groups[i].charged = 0;
        c->groups[i].depth = 0;
    }
}

/* Charges the idle lane-slots of SIMD-group i's instructions up to its `retired`-th, which
 * all ran with g->mask under the same innermost branch. */
static void charge(ProfileChecker *c, GroupState *g, uint64_t retired)
{
    if (g->depth)
        c->idle[g->stack[g->depth - 1].index] +=
            (retired - g->charged) * (g->lanes - util_popcount32(g->mask));
    g->charged = retired;
}

/* A branch, or an instruction that changed the exec mask: it ran with g->mask (`before`). */
static void on_retired(CheckChecker *base, const SimGroupView *sg, const IsaInst *inst,
                       uint32_t before)
{
    ProfileChecker *c = (ProfileChecker *)base;
    GroupState *g = &c->groups[sg->simdgroup];
    uint32_t after = sg->exec_mask;
    charge(c, g, c->s->groups[sg->simdgroup].retired);
    g->mask = after;
    bool branch = is_branch(inst->op);
    if (after == before && !branch)
        return;
    while (g->depth && (g->stack[g->depth - 1].around & ~after) == 0)
        g->depth--;
    if (!branch)
        return;
    uint32_t index = (uint32_t)(inst - c->s->program->code);
    c->executions[index]++;
    /* An if/while splits the lanes it ran with; an else splits when both sides have lanes. */
    bool split = is_else(inst->op) ? before && after : after && after != before;
    c->diverged[index] += split;
    if ((before & ~after) == 0)
        return;
    for (uint32_t i = g->depth; i-- > 0;)
        if (g->stack[i].index == index) { /* a loop's branch again: back to it, not deeper */
            g->depth = i + 1;
            g->stack[i].around |= before | after;
            return;
        }
    if (g->depth < BRANCH_STACK_MAX)
        g->stack[g->depth++] = (BranchEntry){.index = index, .around = before | after};
}

static void on_tg_end(void *ctx, const SimThreadgroupView *tg)
{
    ProfileChecker *c = ctx;
    for (uint32_t i = 0; i < tg->num_simdgroups && i < c->s->num_groups; i++)
        charge(c, &c->groups[i], c->s->groups[i].retired);
}

static int by_idle(const void *a, const void *b)
{
    const CheckBranchProfile *x = a, *y = b;
    if (x->lanes_idle != y->lanes_idle)
        return x->lanes_idle > y->lanes_idle ? -1 : 1;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static void finish(CheckChecker *base, CheckSession *s, const SimResult *result)
{
    ProfileChecker *c = (ProfileChecker *)base;
    const IsaProgram *p = s->program;
    CheckProfile *prof = &s->profile;
    free(prof->branches);
    prof->branches = NULL;
    prof->num_branches = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->count; i++)
        n += is_branch(p->code[i].op) && c->executions[i];
    if (n) {
        prof->branches = util_calloc(n, sizeof *prof->branches);
        for (uint32_t i = 0; i < p->count; i++)
            if (is_branch(p->code[i].op) && c->executions[i])
                prof->branches[prof->num_branches++] = (CheckBranchProfile){
                    .pc = p->code[i].pc, .executions = c->executions[i],
                    .diverged = c->diverged[i], .lanes_idle = c->idle[i],
                };
        qsort(prof->branches, n, sizeof *prof->branches, by_idle);
    }
    prof->lane_instructions = result->lane_instructions;
    prof->lane_slots = result->lane_slots;
}

static void destroy(CheckChecker *base)
{
    ProfileChecker *c = (ProfileChecker *)base;
    free(c->executions);
    free(c->groups);
    free(c);
}

CheckChecker *check_profile_new(CheckSession *s)
{
    if (!s->opts.divergence_profile)
        return NULL;
    ProfileChecker *c = util_calloc(1, sizeof *c);
    c->s = s;
    size_t n = s->program->count ? s->program->count : 1;
    c->executions = util_calloc(3 * n, sizeof *c->executions);
    c->diverged = c->executions + n;
    c->idle = c->executions + 2 * n;
    c->base.observer = (SimObserver){
        .ctx = c,
        .threadgroup_begin = on_tg_begin,
        .threadgroup_end = on_tg_end,
    };
    c->base.retired = on_retired;
    c->base.retire_mask_changes = true;
    for (uint32_t op = 0; op < ISA_OP_COUNT; op++)
        if (is_branch((uint16_t)op))
            check_op_set(c->base.retire_ops, op);
    c->base.finish = finish;
    c->base.destroy = destroy;
    return &c->base;
}
