/*
 * simd.c — SIMD-group functions used in ways MSL leaves undefined: a shuffle or broadcast
 * whose active lane reads an inactive lane or a lane the SIMD-group does not have
 * (simd-divergence), and a lane, delta or mask operand that is no valid lane ID (past lane
 * 31, or quad lane 3) or differs between lanes where MSL requires one value for the
 * SIMD-group (quad functions: for the quad) (simd-operand). Reductions, prefix operations,
 * ballots and simd_broadcast_first combine active lanes only, so they are correct in
 * divergent code and stay silent. A SIMD-group matrix multiply (mma32, mma16) reads every
 * lane: with any of the 32 lanes inactive or missing, it is simd-divergence too.
 *
 * Each source lane is computed from the operands exactly as the simulator picks it
 * (sim/ops_simd.c, which wraps an out-of-range lane ID as the hardware's 5 or 2 lane bits
 * would): a register is read from the view, an immediate from the instruction, a uniform
 * from the program's .uniform values. A uniform bound at launch (a buffer address) is not
 * visible to observers; such a shuffle is skipped, which is never the case for the
 * compiler's output (lane operands are registers or immediates).
 *
 * A shuffle-and-fill compiles to shuffles of computed lanes (IsaProgram.parts): they are
 * named by the function, and its modulo, read where the compiled code first uses it, must
 * cut the SIMD-group (quad) into vectors of a power of two lanes (simd-operand).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_internal.h"

typedef struct SimdChecker {
    CheckChecker base;
    CheckSession *s;
    /* Tensor operations' execution scopes: each operation (the first tmma of its run()) has
     * a slot, and each SIMD-group of the current threadgroup counts the times it ran it. */
    uint32_t *slot_of;        /* per instruction index: its slot + 1; 0 for other ops */
    uint32_t *slot_inst;      /* per slot: the instruction index */
    uint32_t num_slots;
    uint64_t *runs;           /* [slot * num_groups + simdgroup] */
    uint32_t num_groups, cap_runs;
    const IsaFnPart **part;   /* per instruction: the call it is part of, or NULL */
    uint8_t *wanted;          /* per instruction, when modulos are checked: issue_insts */
} SimdChecker;

const char *check_simd_name(uint16_t op)
{
    switch (op) {
    case ISA_OP_SHFL: return "simd_shuffle";
    case ISA_OP_SHFL_UP: return "simd_shuffle_up";
    case ISA_OP_SHFL_DOWN: return "simd_shuffle_down";
    case ISA_OP_SHFL_XOR: return "simd_shuffle_xor";
    case ISA_OP_SHFL_ROT_UP: return "simd_shuffle_rotate_up";
    case ISA_OP_SHFL_ROT_DOWN: return "simd_shuffle_rotate_down";
    case ISA_OP_BCAST: return "simd_broadcast";
    case ISA_OP_QSHFL: return "quad_shuffle";
    case ISA_OP_QSHFL_UP: return "quad_shuffle_up";
    case ISA_OP_QSHFL_DOWN: return "quad_shuffle_down";
    case ISA_OP_QSHFL_XOR: return "quad_shuffle_xor";
    case ISA_OP_QSHFL_ROT_UP: return "quad_shuffle_rotate_up";
    case ISA_OP_QSHFL_ROT_DOWN: return "quad_shuffle_rotate_down";
    case ISA_OP_QBCAST: return "quad_broadcast";
    default: return NULL;
    }
}

bool check_operand_values(const IsaProgram *p, const SimGroupView *sg, const IsaOperand *o,
                          uint32_t out[32])
{
    uint32_t v;
    switch ((IsaOperandKind)o->kind) {
    case ISA_OPD_R32:
        if (o->index >= sg->num_regs)
            return false;
        for (int l = 0; l < 32; l++)
            out[l] = sg->regs[o->index * 32u + l];
        return true;
    case ISA_OPD_IMM:
        v = (uint32_t)o->imm;
        break;
    case ISA_OPD_U32: {
        uint32_t i = 0;
        while (i < p->num_uniform_inits && p->uniform_inits[i].uniform != o->index)
            i++;
        if (i == p->num_uniform_inits)
            return false;
        v = p->uniform_inits[i].value;
        break;
    }
    default:
        return false;
    }
    for (int l = 0; l < 32; l++)
        out[l] = v;
    return true;
}

uint32_t check_source_lane(uint16_t op, uint32_t l, uint32_t b)
{
    uint32_t quad = l & ~3u, q = l & 3u;
    switch (op) {
    case ISA_OP_SHFL: case ISA_OP_BCAST: return b & 31;
    case ISA_OP_SHFL_UP: return b <= l ? l - b : l;
    case ISA_OP_SHFL_DOWN: return b < 32 - l ? l + b : l;
    case ISA_OP_SHFL_XOR: return l ^ (b & 31);
    case ISA_OP_SHFL_ROT_UP: return (l - (b & 31)) & 31;
    case ISA_OP_SHFL_ROT_DOWN: return (l + (b & 31)) & 31;
    case ISA_OP_QSHFL: case ISA_OP_QBCAST: return quad + (b & 3);
    case ISA_OP_QSHFL_UP: return b <= q ? l - b : l;
    case ISA_OP_QSHFL_DOWN: return b < 4 - q ? l + b : l;
    case ISA_OP_QSHFL_XOR: return quad + (q ^ (b & 3));
    case ISA_OP_QSHFL_ROT_UP: return quad + ((q - (b & 3)) & 3);
    default: return quad + ((q + (b & 3)) & 3); /* QSHFL_ROT_DOWN */
    }
}

static bool is_quad(uint16_t op)
{
    switch (op) {
    case ISA_OP_QSHFL: case ISA_OP_QSHFL_UP: case ISA_OP_QSHFL_DOWN: case ISA_OP_QSHFL_XOR:
    case ISA_OP_QSHFL_ROT_UP: case ISA_OP_QSHFL_ROT_DOWN: case ISA_OP_QBCAST: return true;
    default: return false;
    }
}

/* What MSL calls the operand, when it must be one value for the SIMD-group (the quad);
 * NULL for simd_shuffle and quad_shuffle, whose lane may differ per lane. */
static const char *uniform_operand(uint16_t op)
{
    switch (op) {
    case ISA_OP_SHFL: case ISA_OP_QSHFL: return NULL;
    case ISA_OP_BCAST: case ISA_OP_QBCAST: return "lane";
    case ISA_OP_SHFL_XOR: case ISA_OP_QSHFL_XOR: return "mask";
    default: return "delta";
    }
}

/* Operands from this value up name no lane ID (or, as an XOR mask, make none): the
 * SIMD-group's 32 lanes, the quad's 4. Shifts and rotations take any delta. */
static uint32_t operand_limit(uint16_t op)
{
    switch (op) {
    case ISA_OP_SHFL: case ISA_OP_BCAST: case ISA_OP_SHFL_XOR: return 32;
    case ISA_OP_QSHFL: case ISA_OP_QBCAST: case ISA_OP_QSHFL_XOR: return 4;
    default: return UINT32_MAX;
    }
}

static void report_out_of_range(SimdChecker *c, const SimGroupView *sg, const IsaInst *inst,
                                 const char *name, uint32_t l, uint32_t b)
{
    bool quad = is_quad(inst->op);
    const char *role = uniform_operand(inst->op) ? uniform_operand(inst->op) : "lane";
    const char *unit = quad ? "quad" : "SIMD";
    uint32_t ids = quad ? 4 : 32;
    CheckFinding f = {.kind = CHECK_SIMD_OPERAND, .severity = CHECK_ERROR, .count = 1};
    check_site_thread(&f.first, sg, l, inst->pc);
    f.first.access = CHECK_ACCESS_READ;
    if (inst->op == ISA_OP_SHFL_XOR || inst->op == ISA_OP_QSHFL_XOR)
        snprintf(f.message, sizeof f.message,
                 "%s's mask %u takes %s lane %u to %s lane %u, which is not a %s lane ID (0 to "
                 "%u): the result is undefined", name, b, unit, quad ? l & 3 : l, unit,
                 quad ? (l & 3) ^ b : l ^ b, unit, ids - 1);
    else
        snprintf(f.message, sizeof f.message,
                 "%s's %s %u is not a %s lane ID (0 to %u): lane %u asks for it, and the result "
                 "is undefined", name, role, b, unit, ids - 1, l);
    snprintf(f.fix, sizeof f.fix, "keep the %s of %s at line %s in 0 to %u%s", role, name,
             check_line(c->s->program, inst->pc).s, ids - 1,
             inst->op == ISA_OP_SHFL ? " (clamp it, or wrap it with `& 31` or simd_shuffle_rotate_down)"
             : inst->op == ISA_OP_QSHFL ? " (clamp it, or wrap it with `& 3` or quad_shuffle_rotate_down)"
                                        : "");
    check_report(c->s, &f);
}

static void report_not_uniform(SimdChecker *c, const SimGroupView *sg, const IsaInst *inst,
                               const char *name, uint32_t first, uint32_t l, const uint32_t b[32])
{
    bool quad = is_quad(inst->op);
    const char *what = uniform_operand(inst->op);
    CheckFinding f = {.kind = CHECK_SIMD_OPERAND, .severity = CHECK_ERROR, .count = 1};
    check_site_thread(&f.first, sg, first, inst->pc);
    check_site_thread(&f.second, sg, l, inst->pc);
    f.first.access = f.second.access = CHECK_ACCESS_READ;
    snprintf(f.message, sizeof f.message,
             "%s's %s differs between lanes of one %s (lane %u: %u, lane %u: %u): MSL requires "
             "one value, else the result is undefined",
             name, what, quad ? "quad" : "SIMD-group", first, b[first], l, b[l]);
    snprintf(f.fix, sizeof f.fix,
             "give %s at line %s a %s that is the same in every lane of the %s (a constant, a "
             "uniform, or simd_broadcast_first of it)",
             name, check_line(c->s->program, inst->pc).s, what, quad ? "quad" : "SIMD-group");
    check_report(c->s, &f);
}

/* Reports the first active lane whose operand names no lane ID, and the first whose operand
 * differs from its SIMD-group's (quad's) first active lane where MSL requires one value.
 * The lane masks are built without branches; reporting is the rare path. Returns the lanes
 * whose operand is out of range. */
static uint32_t check_operand(SimdChecker *c, const SimGroupView *sg, const IsaInst *inst,
                              const char *name, uint32_t exec, const uint32_t b[32])
{
    uint32_t limit = operand_limit(inst->op), out = 0;
    for (int l = 0; l < 32; l++)
        out |= (uint32_t)(b[l] >= limit) << l;
    out &= exec;
    if (out)
        report_out_of_range(c, sg, inst, name, (uint32_t)__builtin_ctz(out), b[__builtin_ctz(out)]);
    if (!uniform_operand(inst->op))
        return out;
    uint32_t differ = 0;
    if (is_quad(inst->op)) {
        for (int q = 0; q < 32; q += 4) {
            uint32_t active = (exec >> q) & 0xfu;
            uint32_t v = active ? b[q + __builtin_ctz(active)] : 0;
            for (int k = 0; k < 4; k++)
                differ |= (uint32_t)(b[q + k] != v) << (q + k);
        }
    } else {
        const uint32_t v = b[__builtin_ctz(exec)];
        for (int l = 0; l < 32; l++)
            differ |= (uint32_t)(b[l] != v) << l;
    }
    differ &= exec;
    if (differ) {
        uint32_t l = (uint32_t)__builtin_ctz(differ);
        uint32_t scope = is_quad(inst->op) ? exec & (0xfu << (l & ~3u)) : exec;
        report_not_uniform(c, sg, inst, name, (uint32_t)__builtin_ctz(scope), l, b);
    }
    return out;
}

/* A shuffle-and-fill's modulo known only at run time (the compiler checks a constant one):
 * the first active lane whose modulo is no power of two up to the SIMD-group's (the quad's)
 * width. */
static void check_modulo(SimdChecker *c, const SimGroupView *sg, const IsaInst *inst,
                         const IsaFnPart *part)
{
    uint32_t present = sg->lanes >= 32 ? 0xffffffffu : (1u << sg->lanes) - 1;
    uint32_t exec = sg->exec_mask & present, b[32];
    if (!exec || part->modulo_opd >= ISA_MAX_OPERANDS ||
        !check_operand_values(c->s->program, sg, &inst->opd[part->modulo_opd], b))
        return;
    for (uint32_t m = exec; m; m &= m - 1) {
        const uint32_t l = (uint32_t)__builtin_ctz(m), v = b[l];
        if (v && v <= part->width && !(v & (v - 1)))
            continue;
        const bool quad = part->width == 4;
        const char *valid = quad ? "1, 2 or 4" : "1, 2, 4, 8, 16 or 32";
        CheckFinding f = {.kind = CHECK_SIMD_OPERAND, .severity = CHECK_ERROR, .count = 1};
        check_site_thread(&f.first, sg, l, inst->pc);
        f.first.access = CHECK_ACCESS_READ;
        snprintf(f.message, sizeof f.message,
                 "%s's modulo %u is not a power of two up to the %s's %u lanes (%s): lane %u "
                 "gives it, and the result is undefined", part->func, v,
                 quad ? "quad" : "SIMD-group", part->width, valid, l);
        snprintf(f.fix, sizeof f.fix,
                 "give %s at line %s a modulo of %s: the width of the vectors it cuts the %s "
                 "into", part->func, check_line(c->s->program, inst->pc).s, valid,
                 quad ? "quad" : "SIMD-group");
        check_report(c->s, &f);
        return;
    }
}

/* A simd-divergence finding: lane `reader` reads lane `source` (its second site when the
 * SIMD-group has that lane) at inst; returns the source line, for the fix. */
static CheckLine divergence(const SimdChecker *c, const SimGroupView *sg, const IsaInst *inst,
                           uint32_t reader, uint32_t source, CheckFinding *f)
{
    *f = (CheckFinding){.kind = CHECK_SIMD_DIVERGENCE, .severity = CHECK_ERROR, .count = 1};
    check_site_thread(&f->first, sg, reader, inst->pc);
    f->first.access = CHECK_ACCESS_READ;
    if (source < sg->lanes)
        check_site_thread(&f->second, sg, source, inst->pc);
    return check_line(c->s->program, inst->pc);
}

/* A matrix multiply-accumulate reads every lane's elements and writes only the active
 * lanes': it needs all 32 lanes present and active. */
static void check_matrix(SimdChecker *c, const SimGroupView *sg, const IsaInst *inst)
{
    uint32_t present = sg->lanes >= 32 ? 0xffffffffu : (1u << sg->lanes) - 1;
    uint32_t exec = sg->exec_mask & present;
    if (!exec || exec == 0xffffffffu)
        return;
    uint32_t lane = (uint32_t)__builtin_ctz(~exec);
    CheckFinding f;
    const CheckLine line = divergence(c, sg, inst, (uint32_t)__builtin_ctz(exec), lane, &f);
    /* tmma is what a tensor operation (matmul2d's run) compiles to */
    const bool tensor = isa_ops[inst->op].op_class == ISA_CLASS_TENSOR;
    const char *what = tensor ? "tensor operation (matmul2d run)" : "simdgroup matrix multiply";
    if (lane < sg->lanes) {
        snprintf(f.message, sizeof f.message,
                 "%s with %u of 32 lanes active: it reads every lane's elements, and lane %u "
                 "is inactive (its elements are undefined)",
                 what, util_popcount32(exec), lane);
    } else {
        snprintf(f.message, sizeof f.message,
                 "%s in a SIMD-group of %u threads: it reads every lane's elements, and lane "
                 "%u does not exist",
                 what, sg->lanes, lane);
    }
    if (lane < sg->lanes)
        snprintf(f.fix, sizeof f.fix,
                 "every thread of the %s must reach the %s at line %s together: move it out "
                 "of the if, or an early return after it",
                 tensor ? "execution scope" : "SIMD-group",
                 tensor ? "tensor operation" : "simdgroup matrix call", line.s);
    else
        snprintf(f.fix, sizeof f.fix,
                 "the %s at line %s needs whole SIMD-groups: launch threadgroups whose size is "
                 "a multiple of 32 (at the grid's edge too: dispatch whole threadgroups and "
                 "check the bounds in the kernel)",
                 tensor ? "tensor operation" : "simdgroup matrix call", line.s);
    check_report(c->s, &f);
}

static void on_tg_begin(void *ctx, const SimThreadgroupView *tg)
{
    SimdChecker *c = ctx;
    c->num_groups = tg->num_simdgroups;
    uint32_t n = c->num_slots * c->num_groups;
    if (n > c->cap_runs) {
        c->runs = util_realloc(c->runs, n * sizeof *c->runs);
        c->cap_runs = n;
    }
    if (n)
        memset(c->runs, 0, n * sizeof *c->runs);
}

static uint32_t scope_of(const IsaInst *inst)
{
    return inst->opd[4].kind == ISA_OPD_NUM && inst->opd[4].imm ? (uint32_t)inst->opd[4].imm : 1;
}

/* "SIMD-groups 2 and 3" / "SIMD-groups 2 to 5" / "SIMD-group 2" */
static void group_range(char *buf, size_t size, uint32_t first, uint32_t last)
{
    if (first == last)
        snprintf(buf, size, "SIMD-group %u", first);
    else
        snprintf(buf, size, "SIMD-groups %u %s %u", first, last == first + 1 ? "and" : "to", last);
}

/* One tensor operation (all its tmma share a line) in one threadgroup: every SIMD-group of
 * its execution scope, SIMD-groups 0 to N - 1, must run it as often as the others; one past
 * the scope computes a block outside the tile (undefined in MPP). */
static void check_scope(SimdChecker *c, const SimThreadgroupView *tg, uint32_t slot)
{
    const IsaProgram *p = c->s->program;
    const IsaInst *inst = &p->code[c->slot_inst[slot]];
    const uint32_t n = scope_of(inst), ng = c->num_groups;
    const CheckLine line_ = check_line(p, inst->pc);
    const char *line = line_.s;
    const uint64_t *runs = c->runs + (size_t)slot * ng;
    uint32_t ran = ng, short_of = ng, beyond = ng;
    for (uint32_t g = 0; g < ng; g++) {
        if (runs[g] && ran == ng)
            ran = g;
        if (g >= n && runs[g] && beyond == ng)
            beyond = g;
    }
    if (ran == ng)
        return;
    uint64_t most = 0;
    for (uint32_t g = 0; g < n && g < ng; g++)
        most = runs[g] > most ? runs[g] : most;
    for (uint32_t g = 0; g < n && g < ng && short_of == ng; g++)
        if (runs[g] < most)
            short_of = g;
    CheckFinding f = {.kind = CHECK_SIMD_DIVERGENCE, .severity = CHECK_ERROR};
    SimGroupView v = {.threadgroup = tg, .lanes = 32};
    char who[48];
    if (n > ng || short_of < ng) {
        uint32_t busiest = 0; /* a SIMD-group of the scope that ran it the most */
        while (runs[busiest] != most)
            busiest++;
        v.simdgroup = busiest;
        check_site_thread(&f.first, &v, 0, inst->pc);
        if (short_of < ng) {
            v.simdgroup = short_of;
            check_site_thread(&f.second, &v, 0, inst->pc);
            char times[48];
            if (runs[short_of])
                snprintf(times, sizeof times, "ran it %llu time%s",
                         (unsigned long long)runs[short_of], runs[short_of] == 1 ? "" : "s");
            else
                snprintf(times, sizeof times, "never ran it");
            snprintf(f.message, sizeof f.message,
                     "tensor operation (matmul2d run) with execution_simdgroups<%u>: SIMD-group "
                     "%u of its scope %s where SIMD-group %u ran it %llu time%s (the blocks of "
                     "the tile it holds are left uncomputed)", n, short_of, times, busiest,
                     (unsigned long long)most, most == 1 ? "" : "s");
        } else {
            group_range(who, sizeof who, ng, n - 1);
            snprintf(f.message, sizeof f.message,
                     "tensor operation (matmul2d run) with execution_simdgroups<%u> in a "
                     "threadgroup of %u SIMD-groups: %s of its scope do%s not exist, and their "
                     "blocks of the tile are never computed", n, ng, who, ng == n - 1 ? "es" : "");
        }
        snprintf(f.fix, sizeof f.fix,
                 "SIMD-groups 0 to %u of the threadgroup are the execution scope: all of them "
                 "must call the run() at line %s together (outside any if that splits them), "
                 "in threadgroups of %u threads", n - 1, line, n * 32);
        check_report(c->s, &f);
        return;
    }
    if (beyond < ng) {
        v.simdgroup = beyond;
        check_site_thread(&f.first, &v, 0, inst->pc);
        f.severity = CHECK_WARNING;
        snprintf(f.message, sizeof f.message,
                 "tensor operation (matmul2d run) with execution_simdgroups<%u> run by "
                 "SIMD-group %u of a threadgroup of %u SIMD-groups: the scope is SIMD-groups 0 "
                 "to %u; MPP leaves a run by more undefined (lockstep computes blocks past the "
                 "tile)", n, beyond, ng, n - 1);
        snprintf(f.fix, sizeof f.fix,
                 "launch threadgroups of %u threads for the run() at line %s, or make the "
                 "scope execution_simdgroups<%u>", n * 32, line, ng);
        check_report(c->s, &f);
    }
}

static void on_tg_end(void *ctx, const SimThreadgroupView *tg)
{
    SimdChecker *c = ctx;
    for (uint32_t slot = 0; slot < c->num_slots; slot++)
        check_scope(c, tg, slot);
}

static void on_issued(void *ctx, const SimGroupView *sg, const IsaInst *inst)
{
    SimdChecker *c = ctx;
    if (isa_is_mma(inst->op)) {
        uint32_t slot = c->slot_of[inst - c->s->program->code];
        if (slot && sg->simdgroup < c->num_groups)
            c->runs[(size_t)(slot - 1) * c->num_groups + sg->simdgroup]++;
        check_matrix(c, sg, inst);
        return;
    }
    const IsaFnPart *part = c->part[inst - c->s->program->code];
    if (part && part->modulo_opd) {
        check_modulo(c, sg, inst, part);
        return;
    }
    const char *name = part ? part->func : check_simd_name(inst->op);
    if (!name)
        return;
    uint32_t present = sg->lanes >= 32 ? 0xffffffffu : (1u << sg->lanes) - 1;
    uint32_t exec = sg->exec_mask & present;
    if (!exec)
        return;
    uint32_t b[32];
    if (!check_operand_values(c->s->program, sg, &inst->opd[2], b))
        return;
    /* a shuffle-and-fill's lanes are computed in range (from a valid modulo) */
    uint32_t out_of_range = part ? 0 : check_operand(c, sg, inst, name, exec, b);
    /* With every lane of a full SIMD-group active, every source lane is valid. */
    if (exec == 0xffffffffu)
        return;
    uint32_t bad = 0, reader = 0, source = 0;
    for (uint32_t m = exec; m; m &= m - 1) {
        uint32_t l = (uint32_t)__builtin_ctz(m);
        if ((out_of_range >> l) & 1)
            continue; /* reported above */
        uint32_t src = check_source_lane(inst->op, l, b[l]);
        if (src >= sg->lanes || !((exec >> src) & 1)) {
            if (!bad) {
                reader = l;
                source = src;
            }
            bad++;
        }
    }
    if (!bad)
        return;
    CheckFinding f;
    const CheckLine line = divergence(c, sg, inst, reader, source, &f);
    if (source < sg->lanes) {
        snprintf(f.message, sizeof f.message,
                 "%s reads lane %u, which is inactive (its value is undefined): lane %u reads it"
                 "%s",
                 name, source, reader, bad > 1 ? ", and other lanes read inactive lanes too" : "");
    } else {
        snprintf(f.message, sizeof f.message,
                 "%s reads lane %u, which does not exist (the SIMD-group has %u threads): lane "
                 "%u reads it",
                 name, source, sg->lanes, reader);
    }
    snprintf(f.fix, sizeof f.fix,
             "call %s at line %s where every lane it reads is active (outside the if), or "
             "use a reduction, which combines only active lanes",
             name, line.s);
    check_report(c->s, &f);
}

static void destroy(CheckChecker *base)
{
    SimdChecker *c = (SimdChecker *)base;
    free(c->slot_of);
    free(c->slot_inst);
    free(c->runs);
    free(c->part);
    free(c->wanted);
    free(c);
}

CheckChecker *check_simd_new(CheckSession *s)
{
    if (!s->opts.simd)
        return NULL;
    SimdChecker *c = util_calloc(1, sizeof *c);
    c->s = s;
    const IsaProgram *p = s->program;
    c->slot_of = util_calloc(p->count ? p->count : 1, sizeof *c->slot_of);
    c->slot_inst = util_calloc(p->count ? p->count : 1, sizeof *c->slot_inst);
    /* a slot per operation: the tmma of one run() share its line, and the first stands for
     * them (every SIMD-group of a whole scope runs each as often) */
    for (uint32_t i = 0; i < p->count; i++) {
        if (p->code[i].op != ISA_OP_TMMA || scope_of(&p->code[i]) <= 1)
            continue;
        uint32_t slot = 0;
        while (slot < c->num_slots && !check_same_line(p, p->code[c->slot_inst[slot]].pc, p->code[i].pc))
            slot++;
        if (slot == c->num_slots) {
            c->slot_inst[c->num_slots++] = i;
            c->slot_of[i] = slot + 1;
        }
    }
    c->base.observer = (SimObserver){.ctx = c, .inst_issued = on_issued};
    if (c->num_slots) {
        c->base.observer.threadgroup_begin = on_tg_begin;
        c->base.observer.threadgroup_end = on_tg_end;
    }
    for (uint32_t op = 0; op < ISA_OP_COUNT; op++)
        if (check_simd_name((uint16_t)op) || isa_is_mma((uint16_t)op))
            check_op_set(c->base.issue_ops, op);
    c->part = util_calloc(p->count ? p->count : 1, sizeof *c->part);
    bool modulos = false;
    for (uint32_t i = 0; i < p->num_parts; i++)
        if (p->parts[i].index < p->count) {
            c->part[p->parts[i].index] = &p->parts[i];
            modulos |= p->parts[i].modulo_opd != 0;
        }
    if (modulos) { /* the instructions that read a modulo, and only those of their opcodes */
        c->wanted = util_calloc(p->count ? p->count : 1, 1);
        for (uint32_t i = 0; i < p->count; i++) {
            const uint16_t op = p->code[i].op;
            c->wanted[i] = check_simd_name(op) || isa_is_mma(op) ||
                           (c->part[i] && c->part[i]->modulo_opd);
            if (c->part[i] && c->part[i]->modulo_opd)
                check_op_set(c->base.issue_ops, op);
        }
        c->base.issue_insts = c->wanted;
    }
    c->base.destroy = destroy;
    return &c->base;
}
