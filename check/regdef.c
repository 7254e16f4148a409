/*
 * regdef.c — values used before anything was assigned to them (kind `uninitialized-value`):
 * a store's data, an address, a branch condition or a SIMD lane operand that, in some lane
 * that uses it, comes from a variable declared without a value (IsaProgram.undefs: the
 * compiler marks such declarations) or from a register no instruction wrote in that lane.
 * `float sum; for (...) sum += x[i];` adds to whatever the register held on a GPU;
 * lockstep's registers start at zero, which would hide the bug rather than show it.
 *
 * Two parts. check_regdef_scan proves most programs clean before they run: a forward
 * dataflow over the code that knows which register halves are written with every lane that
 * can read them active. Writes happen under the exec mask, so a write counts only for the
 * lanes active then; the pass tracks the static exec nesting depth (the sum of the if/push
 * counts, as in the exec-mask ops of isa.h) and gives each half the shallowest depth at
 * which it was written with defined sources. A half written at depth L is defined for
 * every lane active at depth L or deeper, until an op that can re-activate lanes inactive
 * at the write: `pop_exec n` (forgets what was written deeper than where it lands),
 * `else` (what the then-part wrote; but a half both parts of an if/else define is defined
 * when it ends, see THEN_MAX) and a `while` that can bring back lanes a `continue` parked
 * (what the loop body wrote; see Where). A declaration without a value empties its halves.
 * A read of a half not so defined, or anywhere the depth cannot be known, is "maybe
 * undefined".
 *
 * Only when some read is, the run is tracked (checker made), and only the halves in doubt:
 * per SIMD-group and such half a lane mask of lanes whose value is defined, carried through
 * every instruction that touches one (the only ones the simulator shows this checker:
 * CheckChecker.issue_insts) as memcheck carries its validity bits — a result is
 * defined in a lane when every source is (selects look at the condition, shuffles at the
 * lane they read, reductions and prefix sums at the lanes they combine); loads, atomics and
 * special registers give defined values. A use that matters is reported once per value, at
 * the first such use, naming the declaration (or the read of the never-written register)
 * it came from. Memory is not tracked here: an undefined value stored to memory is
 * reported at the store, and spills of undefined values to thread memory pass silently
 * (their loads give defined values).
 */
#include <stdio.h>
#include <stdlib.h>

#include "check_internal.h"

#define LEVEL_NONE 255u   /* a half with no defined write for the current lanes */
#define DEPTH_UNSET -2    /* not reached yet */
#define DEPTH_UNKNOWN -1  /* reached with different depths, or one out of range */
#define DEPTH_MAX 63      /* deeper is taken as unknown (parked sets are 64 bits) */

/* ---- the static pass -------------------------------------------------------------------- */

/* Per instruction index i, IsaProgram.undefs[first[i] .. first[i + 1]) fall before it. */
static uint32_t *undef_table(const IsaProgram *p)
{
    uint32_t *first = util_calloc((size_t)p->count + 2, sizeof *first);
    for (uint32_t u = 0; u < p->num_undefs; u++)
        first[UTIL_MIN(p->undefs[u].index, p->count) + 1]++;
    for (uint32_t i = 0; i <= p->count; i++)
        first[i + 1] += first[i];
    return first;
}

/* The register halves an undef names. */
static uint32_t undef_halves(const IsaUndef *u, uint32_t nh, uint32_t *first)
{
    const IsaInst in = {.op = ISA_OP_NOP, .opd = {u->reg}};
    return check_operand_halves(&in, 0, nh, first);
}

/* What the pass knows on entry to an instruction besides each half's level: the static
 * depth, and the depths at which parked lanes would come back through pops (bit b: lanes
 * whose counter reaches 0 when the depth falls to b: an if's failing lanes, the then-part's
 * at its else, a loop's leavers, a `continue`). A `while n` at depth d brings back exactly
 * the lanes parked at d - n + 1 .. d - 1: with none, it re-activates nobody (the loop's
 * first test, or a loop without `continue`). */
typedef struct Where {
    int depth;
    uint64_t parked;
    uint64_t dparked;     /* those parked by an ordinary write of r0l (parks) */
} Where;

/* An if/else whose else part runs every lane the if held back (`else_icmp.eq 1, 0, 0`, as
 * the compiler writes it) joins what both parts defined: a half defined in the then-part
 * (its bit d in `then`, d the parts' depth, set at the else) and again in the else part is
 * defined for every lane of the if when it ends (its pop). Every lane active after that pop
 * ran one part or the other to its end, unless an ordinary write of r0l parked it to come
 * back right there (then no join). Depths up to THEN_MAX; deeper ifs just forget. */
#define THEN_MAX 15

typedef struct Scan {
    const IsaProgram *p;
    const CheckRoles *roles;
    const uint32_t *undef_first;
    uint32_t nh;          /* register halves */
    Where *at;            /* per instruction, on entry (depth DEPTH_UNSET: not reached) */
    uint8_t *level;       /* per instruction and half, on entry */
    uint16_t *then;       /* per instruction and half, on entry: see THEN_MAX */
    uint32_t *work;
    uint32_t nwork;
    uint8_t *queued;
} Scan;

static bool is_memory_result(uint16_t op)
{
    switch (op) {
    case ISA_OP_LD_DEV: case ISA_OP_LD_CONST: case ISA_OP_LD_TG: case ISA_OP_LD_STACK:
    case ISA_OP_ATOM_DEV: case ISA_OP_ATOM_TG: case ISA_OP_CMPXCHG_DEV: case ISA_OP_CMPXCHG_TG:
    case ISA_OP_GET_SR:
        return true;
    default:
        return false;
    }
}

static uint64_t depth_range(int lo, int hi);

/* The operands (bit k) of `in` that may hold, in some lane that reads them, a half not
 * defined there. The readers are the active lanes, except for an else (the lanes waiting
 * for it, held back at its if: defined at the depth before it) and a while that can bring
 * back lanes a `continue` parked (they left at depth d - n + 1 or deeper). */
static uint8_t maybe_operands(const Scan *s, const IsaInst *in, Where w, const uint8_t *level)
{
    int depth = w.depth;
    const int n = (int)(in->opd[0].imm & 3);
    if (depth >= 0 && (in->op == ISA_OP_ELSE_ICMP || in->op == ISA_OP_ELSE_FCMP))
        depth -= 1;
    else if (depth >= 0 && (in->op == ISA_OP_WHILE_ICMP || in->op == ISA_OP_WHILE_FCMP) &&
             (w.parked & depth_range(depth - n + 1, depth - 1)))
        depth -= n - 1;
    const uint8_t *r = s->roles->role[in->op];
    uint8_t maybe = 0;
    for (int k = 0; k < ISA_MAX_OPERANDS; k++) {
        if (r[k] != CHECK_ROLE_READ)
            continue;
        uint32_t first, nh = check_operand_halves(in, k, s->nh, &first);
        for (uint32_t h = first; h < first + nh; h++)
            if (h != 0 && (w.depth < 0 || depth < 0 || level[h] > depth)) /* r0l: the counter */
                maybe |= (uint8_t)(1u << k);
    }
    return maybe;
}

static void forget_above(uint8_t *level, uint32_t nh, int depth)
{
    for (uint32_t h = 1; h < nh; h++)
        if ((int)level[h] > depth)
            level[h] = LEVEL_NONE;
}

static uint64_t depth_bit(int b) { return b >= 0 && b <= DEPTH_MAX ? 1ull << b : 0; }

/* Bits lo..hi of a parked set (empty when hi < lo). */
static uint64_t depth_range(int lo, int hi)
{
    uint64_t m = 0;
    for (int b = lo < 0 ? 0 : lo; b <= hi && b <= DEPTH_MAX; b++)
        m |= 1ull << b;
    return m;
}

/* Declarations without a value that fall before instruction i: their halves hold nothing. */
static void apply_undefs(const Scan *s, uint32_t i, uint8_t *level)
{
    for (uint32_t u = s->undef_first[i]; u < s->undef_first[i + 1]; u++) {
        uint32_t first, n = undef_halves(&s->p->undefs[u], s->nh, &first);
        for (uint32_t h = first; h < first + n; h++)
            if (h != 0)
                level[h] = LEVEL_NONE;
    }
}

/* A write of r0l by an ordinary instruction (break, continue, return) parks the active
 * lanes: with an immediate K at depth d they come back at depth d - K; anything else may
 * come back anywhere. */
static uint64_t parks(const IsaInst *in, int k, int depth)
{
    const IsaOperand *src = &in->opd[1];
    if (in->op == ISA_OP_MOV16 && k == 0 && src->kind == ISA_OPD_IMM) {
        const int back = depth - (int)(src->imm & 0xffff);
        return src->imm & 0xffff ? depth_bit(back) : 0;
    }
    return ~0ull;
}

static bool else_takes_all(const IsaInst *in)
{
    const IsaOperand *a = &in->opd[1], *b = &in->opd[2];
    return in->op == ISA_OP_ELSE_ICMP && (in->opd[0].imm & 3) == 1 && in->cond == ISA_COND_EQ &&
           a->kind == ISA_OPD_IMM && b->kind == ISA_OPD_IMM && a->imm == b->imm;
}

/* Keeps only the then-bits of depths up to d. */
static void then_keep(uint16_t *then, uint32_t nh, int d)
{
    const uint16_t keep = d >= THEN_MAX ? 0xffffu : (uint16_t)((2u << (d < 0 ? 0 : d)) - 1u);
    for (uint32_t h = 0; h < nh; h++)
        then[h] &= d < 0 ? 0 : keep;
}

/* The state after instruction i, from the state on entry (w, level, then) in place. */
static Where transfer(const Scan *s, uint32_t i, Where w, uint8_t *level, uint16_t *then)
{
    const IsaInst *in = &s->p->code[i];
    apply_undefs(s, i, level);
    const bool defined = w.depth >= 0 && (is_memory_result(in->op) ||
                                          !maybe_operands(s, in, w, level));
    const uint8_t *r = s->roles->role[in->op];
    for (int k = 0; k < ISA_MAX_OPERANDS; k++) {
        if (r[k] != CHECK_ROLE_WRITE)
            continue;
        uint32_t first, n = check_operand_halves(in, k, s->nh, &first);
        for (uint32_t h = first; h < first + n; h++) {
            if (h == 0) {
                w.parked |= parks(in, k, w.depth);
                w.dparked |= parks(in, k, w.depth);
            } else
                level[h] = defined ? (uint8_t)UTIL_MIN(level[h], (uint32_t)w.depth) : LEVEL_NONE;
        }
    }
    if (w.depth < 0)
        return w;
    const int n = (int)(in->opd[0].imm & 3), d = w.depth;
    switch (in->op) {
    case ISA_OP_IF_ICMP: case ISA_OP_IF_FCMP: case ISA_OP_PUSH_EXEC:
        w.depth = d + n > DEPTH_MAX ? DEPTH_UNKNOWN : d + n;
        if (in->op != ISA_OP_PUSH_EXEC)
            w.parked |= depth_bit(d + n - 1); /* lanes failing it: counter 1 */
        then_keep(then, s->nh, d);
        return w;
    case ISA_OP_POP_EXEC:
        if (d - n < 0) {
            w.depth = DEPTH_UNKNOWN;
            return w;
        }
        if (n == 1 && d <= THEN_MAX && !(w.dparked & depth_range(d - 1, DEPTH_MAX)))
            for (uint32_t h = 1; h < s->nh; h++) /* an if/else ends: join its parts */
                if ((then[h] >> d & 1) && level[h] <= d)
                    level[h] = (uint8_t)UTIL_MIN(level[h], (uint32_t)(d - 1));
        w.depth = d - n;
        forget_above(level, s->nh, w.depth);
        then_keep(then, s->nh, w.depth);
        w.parked &= ~depth_range(w.depth, DEPTH_MAX); /* back, active again */
        w.dparked &= ~depth_range(w.depth, DEPTH_MAX);
        return w;
    case ISA_OP_ELSE_ICMP: case ISA_OP_ELSE_FCMP: {
        const bool all = else_takes_all(in) && d >= 1 && d <= THEN_MAX;
        then_keep(then, s->nh, d - 1);
        for (uint32_t h = 1; all && h < s->nh; h++) /* what the then-part defined */
            if (level[h] <= d)
                then[h] |= (uint16_t)(1u << d);
        forget_above(level, s->nh, d - 1);   /* the lanes waiting for the else come in */
        w.parked |= depth_bit(d - n);         /* the then-part's lanes: counter n */
        return w;
    }
    case ISA_OP_WHILE_ICMP: case ISA_OP_WHILE_FCMP:
        if (w.parked & depth_range(d - n + 1, d - 1)) { /* a `continue`: lanes come back */
            forget_above(level, s->nh, d - n);
            then_keep(then, s->nh, d - n);
            w.parked &= ~depth_range(d - n + 1, d - 1);
            w.dparked &= ~depth_range(d - n + 1, d - 1);
        }
        w.parked |= depth_bit(d - n); /* lanes leaving the loop: counter n */
        return w;
    default:
        return w;
    }
}

static void join(Scan *s, uint32_t to, Where w, const uint8_t *level, const uint16_t *then)
{
    if (to >= s->p->count)
        return;
    uint8_t *into = s->level + (size_t)to * s->nh;
    uint16_t *then_into = s->then + (size_t)to * s->nh;
    Where *at = &s->at[to];
    bool changed = false;
    if (at->depth == DEPTH_UNSET) {
        *at = w;
        memcpy(into, level, s->nh);
        memcpy(then_into, then, s->nh * sizeof *then);
        changed = true;
    } else {
        if (at->depth != w.depth && at->depth != DEPTH_UNKNOWN) {
            at->depth = DEPTH_UNKNOWN;
            changed = true;
        }
        if ((at->parked | w.parked) != at->parked || (at->dparked | w.dparked) != at->dparked) {
            at->parked |= w.parked;
            at->dparked |= w.dparked;
            changed = true;
        }
        for (uint32_t h = 0; h < s->nh; h++) {
            if (level[h] > into[h]) {
                into[h] = level[h];
                changed = true;
            }
            if ((then_into[h] & then[h]) != then_into[h]) { /* a join needs both paths */
                then_into[h] &= then[h];
                changed = true;
            }
        }
    }
    if (changed && !s->queued[to]) {
        s->queued[to] = 1;
        s->work[s->nwork++] = to;
    }
}

/* check_regdef_scan, and the halves a run must track (tracked[h], when not NULL): those some
 * instruction may read undefined, and those an instruction with such a read writes. Any
 * other half holds a defined value in every lane that reads it. opds[i] (when not NULL):
 * maybe_operands of instruction i. */
static uint32_t scan(const IsaProgram *p, bool *maybe, uint8_t *tracked, uint8_t *opds)
{
    CheckRoles *roles = util_calloc(1, sizeof *roles);
    check_roles_build(roles);
    Scan s = {.p = p, .roles = roles, .undef_first = undef_table(p),
              .nh = (p->num_regs ? p->num_regs : 1) * 2u};
    const size_t count = p->count ? p->count : 1;
    s.at = util_calloc(count, sizeof *s.at);
    s.level = util_calloc(count * s.nh, 1);
    s.then = util_calloc(count * s.nh, sizeof *s.then);
    s.work = util_calloc(count, sizeof *s.work);
    s.queued = util_calloc(count, 1);
    uint8_t *level = util_calloc(s.nh, 1);
    uint16_t *then = util_calloc(s.nh, sizeof *then);
    for (size_t i = 0; i < count; i++)
        s.at[i].depth = DEPTH_UNSET;
    memset(level, LEVEL_NONE, s.nh);
    level[0] = 0; /* r0l, the exec counter, starts at 0 by definition */
    if (p->count)
        join(&s, 0, (Where){0, 0, 0}, level, then);
    while (s.nwork) {
        uint32_t i = s.work[--s.nwork];
        s.queued[i] = 0;
        memcpy(level, s.level + (size_t)i * s.nh, s.nh);
        memcpy(then, s.then + (size_t)i * s.nh, s.nh * sizeof *then);
        Where w = transfer(&s, i, s.at[i], level, then);
        const IsaInst *in = &p->code[i];
        if (in->op == ISA_OP_STOP)
            continue;
        if (in->op == ISA_OP_JMP || in->op == ISA_OP_JMP_EXEC_ANY || in->op == ISA_OP_JMP_EXEC_NONE)
            join(&s, in->opd[0].index, w, level, then);
        if (in->op != ISA_OP_JMP)
            join(&s, i + 1, w, level, then);
    }
    uint32_t found = 0;
    for (uint32_t i = 0; i < p->count; i++) {
        uint8_t *entry = s.level + (size_t)i * s.nh;
        apply_undefs(&s, i, entry);
        const uint8_t mo = s.at[i].depth != DEPTH_UNSET
                               ? maybe_operands(&s, &p->code[i], s.at[i], entry) : 0;
        if (maybe)
            maybe[i] = mo != 0;
        if (opds)
            opds[i] = mo;
        found += mo != 0;
        for (int k = 0; mo && tracked && k < ISA_MAX_OPERANDS; k++) {
            const uint8_t role = roles->role[p->code[i].op][k];
            uint32_t first, n = check_operand_halves(&p->code[i], k, s.nh, &first);
            for (uint32_t h = first; h < first + n; h++)
                if (role == CHECK_ROLE_WRITE || (mo >> k & 1))
                    tracked[h] = 1;
        }
    }
    free(level);
    free(then);
    free(s.then);
    free(s.queued);
    free(s.work);
    free(s.level);
    free(s.at);
    free((void *)s.undef_first);
    free(roles);
    return found;
}

uint32_t check_regdef_scan(const IsaProgram *p, bool *maybe)
{
    return scan(p, maybe, NULL, NULL);
}

/* ---- tracking a run ---------------------------------------------------------------------- */

typedef struct RegGroup {
    uint32_t *def;   /* per half: lanes whose value is defined */
    uint32_t *root;  /* per half: where its undefined lanes' value comes from: ROOT_UNDEF |
                      * a declaration's index in IsaProgram.undefs, or (instruction index +
                      * 1) << 8 | half for a read of a register nothing wrote; 0: none yet */
} RegGroup;

#define ROOT_UNDEF 0x80000000u

/* What on_issued needs of each instruction, worked out once before the run: its uses to
 * check, the halves it writes, and how its result's lanes get defined; all of it about the
 * tracked halves only (the others are defined wherever they are read). Most instructions
 * are lane-wise work (RULE_PLAIN): a lane's result is defined when every half it reads is. */
enum { RULE_NONE, RULE_PLAIN, RULE_DEFINED, RULE_OTHER };
enum { PLAIN_READS = 8 };
typedef struct RdInst {
    uint8_t rule;                  /* RULE_NONE: writes no tracked half; RULE_DEFINED: loads,
                                    * atomics, special registers; RULE_OTHER: result_def */
    uint8_t uses;                  /* bit k: operand k is a use (is_use) of a tracked half */
    uint8_t undefs;                /* a declaration of a tracked half falls before it */
    uint8_t nread;                 /* RULE_PLAIN: the tracked halves it reads */
    uint16_t read[PLAIN_READS];
    uint16_t write;                /* the halves it writes (r0l left out) */
    uint8_t nwrite;
} RdInst;

typedef struct RegdefChecker {
    CheckChecker base;
    CheckSession *s;
    CheckRoles roles;
    uint32_t nh;
    uint32_t *undef_first; /* undef_table */
    uint8_t *tracked;      /* per half: scan's tracked halves; the others are always defined */
    uint8_t *opds;         /* per instruction: scan's operands that may read undefined halves */
    uint32_t *def_start;   /* per half: its lanes defined when a threadgroup starts */
    RdInst *insts;         /* per instruction */
    uint8_t *wanted;       /* per instruction: on_issued has something to do (issue_insts) */
    uint32_t *reported;    /* per instruction: the origin last reported there (report) */
    CheckFinding **last;   /* per instruction: that report, made on first need */
    uint64_t *repeats;     /* per instruction: the same report again, not yet counted in */
    RegGroup *groups;
    uint32_t cap_groups;
} RegdefChecker;

static void on_tg_begin(void *ctx, const SimThreadgroupView *tg)
{
    RegdefChecker *c = ctx;
    if (tg->num_simdgroups > c->cap_groups) {
        c->groups = util_realloc(c->groups, tg->num_simdgroups * sizeof *c->groups);
        for (uint32_t i = c->cap_groups; i < tg->num_simdgroups; i++) {
            c->groups[i].def = util_calloc(c->nh, sizeof *c->groups[i].def);
            c->groups[i].root = util_calloc(c->nh, sizeof *c->groups[i].root);
        }
        c->cap_groups = tg->num_simdgroups;
    }
    for (uint32_t i = 0; i < tg->num_simdgroups; i++) {
        memcpy(c->groups[i].def, c->def_start, c->nh * sizeof *c->def_start);
        memset(c->groups[i].root, 0, c->nh * sizeof *c->groups[i].root);
    }
}

/* Lanes in which every half of operand k is defined (all lanes for a non-register). */
static uint32_t operand_def(const RegdefChecker *c, const RegGroup *g, const IsaInst *in, int k)
{
    uint32_t first, n = check_operand_halves(in, k, c->nh, &first), d = 0xffffffffu;
    for (uint32_t h = first; h < first + n; h++)
        d &= g->def[h];
    return d;
}

/* Where operand k's value undefined in `lanes` comes from (see RegGroup.root). */
static uint32_t operand_root(const RegdefChecker *c, const RegGroup *g, const IsaInst *in, int k,
                             uint32_t index, uint32_t lanes)
{
    uint32_t first, n = check_operand_halves(in, k, c->nh, &first);
    for (uint32_t h = first; h < first + n; h++)
        if (lanes & ~g->def[h])
            return g->root[h] ? g->root[h] : (index + 1) << 8 | h;
    return 0;
}

/* Whether reading operand k of op is a use that matters: an address, a stored value, a
 * branch condition, a lane operand. Other reads carry the value into the result. */
static bool is_use(const RegdefChecker *c, uint16_t op, int k)
{
    if (c->roles.role[op][k] != CHECK_ROLE_READ)
        return false;
    switch (op) {
    case ISA_OP_LD_DEV: case ISA_OP_LD_CONST: case ISA_OP_LD_TG: case ISA_OP_LD_STACK:
    case ISA_OP_ST_DEV: case ISA_OP_ST_TG:
    case ISA_OP_ATOM_DEV: case ISA_OP_ATOM_TG: case ISA_OP_CMPXCHG_DEV: case ISA_OP_CMPXCHG_TG:
    case ISA_OP_IF_ICMP: case ISA_OP_IF_FCMP: case ISA_OP_ELSE_ICMP: case ISA_OP_ELSE_FCMP:
    case ISA_OP_WHILE_ICMP: case ISA_OP_WHILE_FCMP:
        return true;
    case ISA_OP_ST_STACK:
        return k != 0; /* its address; the data may be a spill of an undefined value */
    default:
        return k == 2 && check_simd_name(op) != NULL;
    }
}

static const char *use_text(uint16_t op, int k)
{
    switch (op) {
    case ISA_OP_ST_DEV: case ISA_OP_ST_TG:
        return k == 0 ? "the value stored" : "the address of this store";
    case ISA_OP_ATOM_DEV: case ISA_OP_ATOM_TG: case ISA_OP_CMPXCHG_DEV: case ISA_OP_CMPXCHG_TG:
        return k == 1 || k == 2 ? "the address of this atomic" : "the operand of this atomic";
    case ISA_OP_IF_ICMP: case ISA_OP_IF_FCMP: case ISA_OP_ELSE_ICMP: case ISA_OP_ELSE_FCMP:
    case ISA_OP_WHILE_ICMP: case ISA_OP_WHILE_FCMP:
        return "the condition of this branch";
    case ISA_OP_LD_DEV: case ISA_OP_LD_CONST: case ISA_OP_LD_TG: case ISA_OP_LD_STACK:
    case ISA_OP_ST_STACK:
        return "the address of this access";
    default:
        return "the lane operand of this SIMD-group function";
    }
}

/* The source variable that lives in half h at pc, or NULL. */
static const IsaVarLoc *variable_at(const IsaProgram *p, uint32_t pc, uint32_t h)
{
    for (uint32_t i = 0; i < p->num_vars; i++) {
        const IsaVarLoc *v = &p->vars[i];
        if (pc < v->pc_begin || pc >= v->pc_end)
            continue;
        uint32_t first = v->kind == ISA_OPD_R16 ? v->index : v->index * 2u;
        uint32_t n = v->kind == ISA_OPD_R16 ? 1 : v->kind == ISA_OPD_R64 ? 4 : 2;
        if (h >= first && h < first + n)
            return v;
    }
    return NULL;
}

/* The finding's text, once per use site and origin (see report). */
static void describe_finding(const RegdefChecker *c, CheckFinding *f, const IsaInst *in, int k,
                             uint32_t lane, uint32_t n, uint32_t root)
{
    const IsaProgram *p = c->s->program;
    CheckLine line_ = check_line(p, in->pc);
    const char *line = line_.s;
    if (root & ROOT_UNDEF) {
        const IsaUndef *u = &p->undefs[root & ~ROOT_UNDEF];
        /* a use inside a helper the variable was passed to: the line in the variable's own
         * function, the call's */
        const int64_t at = isa_program_index_of_pc(p, in->pc);
        const IsaSourceLoc *l = at >= 0 && p->locs ? &p->locs[at] : NULL;
        for (int depth = 0; l && l->call != u->loc.call && isa_call_of(p, l) && depth < 64; depth++)
            l = &isa_call_of(p, l)->loc;
        if (l)
            line_ = check_loc_line(p, l);
        snprintf(f->first.symbol, sizeof f->first.symbol, "%s", u->name);
        snprintf(f->message, sizeof f->message,
                 "%s is uninitialized: it comes from `%s`, declared at line %s without a value "
                 "(lane %u%s)",
                 use_text(in->op, k), u->name, check_loc_line(p, &u->loc).s, lane,
                 n > 1 ? " and others" : "");
        const size_t whole = strcspn(u->name, ".["); /* a vector's or struct's member */
        if (u->name[whole])
            snprintf(f->fix, sizeof f->fix,
                     "give `%s` a value on every path before line %s, or initialize `%.*s` "
                     "where it is declared", u->name, line, (int)whole, u->name);
        else if (strncmp(u->type_name, "simdgroup_", 10) == 0) /* a matrix takes no 0 */
            snprintf(f->fix, sizeof f->fix,
                     "give `%s` a value where it is declared (`%s %s = "
                     "make_filled_simdgroup_matrix<%s, 8, 8>(0);`) or on every path before line "
                     "%s", u->name, u->type_name, u->name,
                     strstr(u->type_name, "half") ? "half" : "float", line);
        else
            snprintf(f->fix, sizeof f->fix,
                     "give `%s` a value where it is declared (`%s %s = 0;`) or on every path "
                     "before line %s", u->name, u->type_name, u->name, line);
        return;
    }
    const uint32_t root_pc = p->code[(root >> 8) - 1].pc, half = root & 255;
    const IsaVarLoc *v = variable_at(p, root_pc, half);
    char what[96];
    if (v)
        snprintf(what, sizeof what, "`%s`", v->name);
    else
        snprintf(what, sizeof what, "register r%u%s", half / 2, half & 1 ? "h" : "");
    if (v)
        snprintf(f->first.symbol, sizeof f->first.symbol, "%s", v->name);
    const CheckLine root_line_ = check_line(p, root_pc);
    const char *root_line = root_line_.s;
    snprintf(f->message, sizeof f->message,
             "%s is uninitialized: it comes from %s, which line %s reads before anything is "
             "assigned to it (lane %u%s)",
             use_text(in->op, k), what, root_line, lane, n > 1 ? " and others" : "");
    if (v && v->type_name)
        snprintf(f->fix, sizeof f->fix,
                 "give %s a value on every path before line %s, or where it is declared "
                 "(`%s %s = 0;`)", what, root_line, v->type_name, v->name);
    else
        snprintf(f->fix, sizeof f->fix, "give %s a value on every path before line %s", what,
                 root_line);
}

/* Counts instruction `index`'s repeats of its last report into the session's findings. */
static void count_repeats(RegdefChecker *c, uint32_t index)
{
    if (!c->repeats[index])
        return;
    CheckFinding f = *c->last[index];
    f.count = c->repeats[index];
    c->repeats[index] = 0;
    check_report(c->s, &f);
}

/* Reports operand k of `in` (instruction `index`), undefined in `lanes`, its value from
 * `root`. The sites: the use alone when the value comes from a declaration or this very
 * read; else the read of the never-written register, then the use. Every SIMD-group makes
 * the same report again: only the first is put into words and handed to the session; the
 * rest are counted here and added when the origin changes or the run ends (finish). */
static void report(RegdefChecker *c, const SimGroupView *sg, const IsaInst *in, int k,
                   uint32_t index, uint32_t lanes, uint32_t root)
{
    if (c->reported[index] == root) {
        c->repeats[index]++;
        return;
    }
    count_repeats(c, index);
    const uint32_t lane = (uint32_t)__builtin_ctz(lanes);
    const uint32_t root_pc = root & ROOT_UNDEF ? in->pc : c->s->program->code[(root >> 8) - 1].pc;
    CheckFinding f = {.kind = CHECK_UNINIT_VALUE, .severity = CHECK_ERROR, .count = 1};
    CheckSite *use = root_pc == in->pc ? &f.first : &f.second;
    check_site_thread(use, sg, lane, in->pc);
    use->access = CHECK_ACCESS_READ;
    use->index = CHECK_NO_INDEX;
    if (use == &f.second) {
        check_site_thread(&f.first, sg, lane, root_pc);
        f.first.access = CHECK_ACCESS_READ;
        f.first.index = CHECK_NO_INDEX;
    }
    describe_finding(c, &f, in, k, lane, (uint32_t)util_popcount32(lanes), root);
    check_report(c->s, &f);
    c->reported[index] = root;
    if (!c->last[index])
        c->last[index] = util_calloc(1, sizeof *c->last[index]);
    *c->last[index] = f;
}

static void finish(CheckChecker *base, CheckSession *s, const SimResult *result)
{
    (void)s;
    (void)result;
    RegdefChecker *c = (RegdefChecker *)base;
    for (uint32_t i = 0; i < c->s->program->count; i++)
        count_repeats(c, i);
}

/* Lanes whose value of operand k the instruction reads as its condition: the active ones
 * for if and while, and for else the lanes waiting for it (nesting counter 1), which the
 * view's r0l gives before the instruction runs. */
static uint32_t condition_lanes(const SimGroupView *sg, const IsaInst *in, uint32_t exec,
                                uint32_t present)
{
    uint32_t lanes = 0, n = (uint32_t)(in->opd[0].imm & 3);
    switch (in->op) {
    case ISA_OP_ELSE_ICMP: case ISA_OP_ELSE_FCMP:
        for (uint32_t l = 0; l < 32; l++)
            lanes |= (uint32_t)((sg->regs[l] & 0xffffu) == 1) << l;
        return lanes & present;
    case ISA_OP_WHILE_ICMP: case ISA_OP_WHILE_FCMP:
        for (uint32_t l = 0; l < 32; l++)
            lanes |= (uint32_t)((sg->regs[l] & 0xffffu) < n) << l;
        return lanes & present;
    default:
        return exec;
    }
}

/* A 32-bit source's values with its float modifiers applied; false when not knowable. */
static bool source_values(const RegdefChecker *c, const SimGroupView *sg, const IsaOperand *o,
                          uint32_t out[32])
{
    if (o->kind != ISA_OPD_R32 && o->kind != ISA_OPD_IMM && o->kind != ISA_OPD_U32)
        return false;
    if (!check_operand_values(c->s->program, sg, o, out))
        return false;
    for (int l = 0; l < 32; l++) {
        if (o->flags & ISA_OPD_ABS)
            out[l] &= 0x7fffffffu;
        if (o->flags & ISA_OPD_NEG)
            out[l] ^= 0x80000000u;
    }
    return true;
}

/* Per quad (4 lanes), all of the quad or nothing: lanes of quads whose lanes in `lanes`
 * are all in `def`. */
static uint32_t whole_quads(uint32_t lanes, uint32_t def)
{
    uint32_t out = 0;
    for (int q = 0; q < 32; q += 4)
        if (((lanes & ~def) >> q & 0xfu) == 0)
            out |= 0xfu << q;
    return out;
}

/* Lanes of a prefix operation's result that combine only defined lanes: lanes below the
 * first undefined one in `lanes` (inclusive), or up to it (exclusive); per quad for quads. */
static uint32_t prefix_def(uint32_t lanes, uint32_t def, bool inclusive, bool quad)
{
    uint32_t out = 0;
    const int span = quad ? 4 : 32;
    for (int q = 0; q < 32; q += span) {
        const uint32_t all = span == 32 ? 0xffffffffu : 0xfu << q;
        const uint32_t bad = lanes & ~def & all;
        if (!bad) {
            out |= all;
            continue;
        }
        const int f = __builtin_ctz(bad);
        const int upto = inclusive ? f : f + 1; /* lanes q .. upto-1 stay defined */
        for (int l = q; l < upto; l++)
            out |= 1u << l;
    }
    return out;
}

/* Lanes in which the result of `in` is defined, given each source's defined lanes. */
static uint32_t result_def(const RegdefChecker *c, const RegGroup *g, const SimGroupView *sg,
                           const IsaInst *in, uint32_t exec)
{
    const uint16_t op = in->op;
    if (is_memory_result(op))
        return 0xffffffffu;
    uint32_t all = 0xffffffffu;
    for (int k = 0; k < ISA_MAX_OPERANDS; k++)
        if (c->roles.role[op][k] == CHECK_ROLE_READ)
            all &= operand_def(c, g, in, k);
    switch (op) {
    case ISA_OP_ICMPSEL: case ISA_OP_FCMPSEL32: {
        const uint32_t da = operand_def(c, g, in, 1), db = operand_def(c, g, in, 2);
        const uint32_t dc = operand_def(c, g, in, 3), de = operand_def(c, g, in, 4);
        uint32_t a[32], b[32];
        if (!source_values(c, sg, &in->opd[1], a) || !source_values(c, sg, &in->opd[2], b))
            return da & db & (dc | de); /* the condition unknown: never claim undefined */
        const uint32_t cond = sim_compare32((IsaCond)in->cond, a, b, op == ISA_OP_FCMPSEL32);
        return da & db & ((cond & dc) | (~cond & de));
    }
    case ISA_OP_BCAST_FIRST: {
        const uint32_t d = operand_def(c, g, in, 1);
        return !exec || (d >> __builtin_ctz(exec) & 1) ? 0xffffffffu : 0;
    }
    case ISA_OP_ICMP_BALLOT: case ISA_OP_FCMP_BALLOT: case ISA_OP_SIMD_RED:
    case ISA_OP_MMA32: case ISA_OP_MMA16: case ISA_OP_TMMA: /* each element of d reads a row and a column */
        return (exec & ~all) ? 0 : 0xffffffffu;
    case ISA_OP_QUAD_RED:
        return whole_quads(exec, all);
    case ISA_OP_SIMD_PREFIX: case ISA_OP_QUAD_PREFIX:
        return prefix_def(exec, all, in->count != 0, op == ISA_OP_QUAD_PREFIX);
    default:
        break;
    }
    if (!check_simd_name(op))
        return all;
    /* A shuffle or broadcast: lane l's value is the source lane's. A source lane that is
     * inactive or missing is simd.c's finding, not this one's: counted as defined. */
    uint32_t b[32];
    if (!check_operand_values(c->s->program, sg, &in->opd[2], b))
        return 0xffffffffu;
    const uint32_t d = operand_def(c, g, in, 1), present = sg->lanes >= 32 ? 0xffffffffu
                                                                           : (1u << sg->lanes) - 1;
    uint32_t out = 0;
    for (uint32_t m = exec; m; m &= m - 1) {
        const uint32_t l = (uint32_t)__builtin_ctz(m);
        const uint32_t src = check_source_lane(op, l, b[l]);
        const bool ok = src >= 32 || !(exec >> src & 1) || !(present >> src & 1) || (d >> src & 1);
        out |= (uint32_t)ok << l;
    }
    return out;
}

static void describe(RegdefChecker *c)
{
    const IsaProgram *p = c->s->program;
    c->insts = util_calloc(p->count ? p->count : 1, sizeof *c->insts);
    c->wanted = util_calloc(p->count ? p->count : 1, 1);
    c->reported = util_calloc(p->count ? p->count : 1, sizeof *c->reported);
    c->last = util_calloc(p->count ? p->count : 1, sizeof *c->last);
    c->repeats = util_calloc(p->count ? p->count : 1, sizeof *c->repeats);
    for (uint32_t i = 0; i < p->count; i++) {
        const IsaInst *in = &p->code[i];
        const uint16_t op = in->op;
        const IsaClass cls = isa_ops[op].op_class;
        RdInst *ri = &c->insts[i];
        for (uint32_t u = c->undef_first[i]; u < c->undef_first[i + 1]; u++) {
            uint32_t first, n = undef_halves(&p->undefs[u], c->nh, &first);
            for (uint32_t h = first; h < first + n; h++)
                ri->undefs |= c->tracked[h];
        }
        bool plain = op != ISA_OP_ICMPSEL && op != ISA_OP_FCMPSEL32 && cls != ISA_CLASS_SIMD &&
                     cls != ISA_CLASS_SIMD_REDUCE && !isa_is_mma(op);
        bool writes = false;
        for (int k = 0; k < ISA_MAX_OPERANDS; k++) {
            const uint8_t role = c->roles.role[op][k];
            uint32_t first, n = check_operand_halves(in, k, c->nh, &first);
            bool touches = false;
            for (uint32_t h = first; h < first + n; h++)
                touches |= c->tracked[h];
            if (is_use(c, op, k) && touches && (c->opds[i] >> k & 1)) /* not proven */
                ri->uses |= (uint8_t)(1u << k);
            if (role == CHECK_ROLE_WRITE && n && touches) {
                writes = true;
                ri->write = (uint16_t)(first == 0 ? 1 : first); /* r0l: the exec counter */
                ri->nwrite = (uint8_t)(first == 0 ? n - 1 : n);
            } else if (role == CHECK_ROLE_READ) {
                for (uint32_t h = first; h < first + n; h++)
                    if (h != 0 && c->tracked[h] && (plain = plain && ri->nread < PLAIN_READS))
                        ri->read[ri->nread++] = (uint16_t)h;
            }
        }
        ri->rule = !writes || !ri->nwrite ? RULE_NONE : is_memory_result(op) ? RULE_DEFINED
                 : plain || !c->opds[i] ? RULE_PLAIN : RULE_OTHER;
        if (!c->opds[i])
            ri->nread = 0; /* every read proven: the result is defined in every lane it writes */
        c->wanted[i] = ri->rule != RULE_NONE || ri->uses || ri->undefs;
    }
}

/* The result's halves get lanes `res` of the instruction's lanes `exec`; lanes left
 * undefined take their origin from the first source half undefined there. */
static void write_result(const RdInst *ri, RegGroup *g, uint32_t exec, uint32_t res, uint32_t root)
{
    for (uint32_t h = ri->write; h < (uint32_t)ri->write + ri->nwrite; h++) {
        g->def[h] = (g->def[h] & ~exec) | res;
        if (res != exec && root)
            g->root[h] = root;
    }
}

/* What on_issued does beyond the common case: declarations falling before the
 * instruction, its uses, and results by the other rules. Kept out of line so the common
 * case stays a short function. */
static __attribute__((noinline)) void issued_other(RegdefChecker *c, RegGroup *g,
                                                   const SimGroupView *sg, const IsaInst *in,
                                                   const RdInst *ri, uint32_t index,
                                                   uint32_t exec, uint32_t present)
{
    for (uint32_t u = c->undef_first[index]; ri->undefs && u < c->undef_first[index + 1]; u++) {
        uint32_t first, n = undef_halves(&c->s->program->undefs[u], c->nh, &first);
        for (uint32_t h = first; h < first + n; h++) {
            if (!c->tracked[h])
                continue;
            g->def[h] &= ~exec;
            g->root[h] = ROOT_UNDEF | u;
        }
    }
    const uint32_t cond_lanes = ri->uses ? condition_lanes(sg, in, exec, present) : 0;
    for (uint32_t m = ri->uses; m; m &= m - 1) {
        const int k = __builtin_ctz(m);
        const uint32_t lanes = cond_lanes & ~operand_def(c, g, in, k);
        if (!lanes)
            continue;
        report(c, sg, in, k, index, lanes, operand_root(c, g, in, k, index, lanes));
        /* reported once: from here on the value counts as defined in those lanes */
        uint32_t first, n = check_operand_halves(in, k, c->nh, &first);
        for (uint32_t h = first; h < first + n; h++)
            g->def[h] |= lanes;
    }
    if (ri->rule == RULE_NONE || !exec)
        return;
    if (ri->rule == RULE_DEFINED) {
        write_result(ri, g, exec, exec, 0);
        return;
    }
    const uint32_t res = result_def(c, g, sg, in, exec) & exec;
    /* a shuffle's value is undefined in the lanes it reads from, not in its own */
    const uint32_t from = check_simd_name(in->op) ? exec : exec & ~res;
    uint32_t root = 0;
    for (int k = 0; res != exec && k < ISA_MAX_OPERANDS && !root; k++)
        if (c->roles.role[in->op][k] == CHECK_ROLE_READ)
            root = operand_root(c, g, in, k, index, from);
    write_result(ri, g, exec, res, root);
}

/* Every instruction it wants (wanted), before it runs (registers hold its sources). */
static void on_issued(void *ctx, const SimGroupView *sg, const IsaInst *in)
{
    RegdefChecker *c = ctx;
    const uint32_t index = (uint32_t)(in - c->s->program->code);
    if (!c->wanted[index])
        return; /* here for another checker (a shuffle simd.c looks at) */
    RegGroup *g = &c->groups[sg->simdgroup];
    const uint32_t exec = sg->exec_mask; /* never holds a lane the SIMD-group lacks */
    const RdInst *ri = &c->insts[index];
    if (ri->rule != RULE_PLAIN || ri->uses || ri->undefs) {
        issued_other(c, g, sg, in, ri, index, exec,
                     sg->lanes >= 32 ? 0xffffffffu : (1u << sg->lanes) - 1);
        return;
    }
    uint32_t res = exec; /* the common case: lane-wise work, no use to check */
    for (uint32_t i = 0; i < ri->nread; i++)
        res &= g->def[ri->read[i]];
    uint32_t root = 0;
    for (uint32_t i = 0; res != exec && i < ri->nread && !root; i++)
        if (exec & ~g->def[ri->read[i]])
            root = g->root[ri->read[i]] ? g->root[ri->read[i]] : (index + 1) << 8 | ri->read[i];
    write_result(ri, g, exec, res, root);
}

static void destroy(CheckChecker *base)
{
    RegdefChecker *c = (RegdefChecker *)base;
    for (uint32_t i = 0; i < c->cap_groups; i++) {
        free(c->groups[i].def);
        free(c->groups[i].root);
    }
    free(c->groups);
    free(c->undef_first);
    free(c->insts);
    free(c->wanted);
    free(c->reported);
    for (uint32_t i = 0; i < c->s->program->count; i++)
        free(c->last[i]);
    free(c->last);
    free(c->repeats);
    free(c->tracked);
    free(c->opds);
    free(c->def_start);
    free(c);
}

CheckChecker *check_regdef_new(CheckSession *s)
{
    if (!s->opts.uninit)
        return NULL;
    const uint32_t nh = (s->program->num_regs ? s->program->num_regs : 1) * 2u;
    uint8_t *tracked = util_calloc(nh, 1);
    uint8_t *opds = util_calloc(s->program->count ? s->program->count : 1, 1);
    if (!scan(s->program, NULL, tracked, opds)) {
        free(opds);
        free(tracked);
        return NULL; /* no read can find an undefined value: nothing to track */
    }
    tracked[0] = 0; /* r0l, the exec counter */
    RegdefChecker *c = util_calloc(1, sizeof *c);
    c->s = s;
    c->tracked = tracked;
    c->opds = opds;
    c->def_start = util_calloc(nh, sizeof *c->def_start);
    for (uint32_t h = 0; h < nh; h++)
        c->def_start[h] = tracked[h] ? 0 : 0xffffffffu;
    check_roles_build(&c->roles);
    c->nh = nh;
    c->undef_first = undef_table(s->program);
    describe(c);
    c->base.observer = (SimObserver){
        .ctx = c,
        .threadgroup_begin = on_tg_begin,
        .inst_issued = on_issued,
    };
    for (uint32_t op = 0; op < ISA_OP_COUNT; op++)
        check_op_set(c->base.issue_ops, op);
    c->base.issue_insts = c->wanted;
    c->base.finish = finish;
    c->base.destroy = destroy;
    return &c->base;
}
