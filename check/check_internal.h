/*
 * check_internal.h — what the checkers share: the session (program, buffers, options, the
 * findings so far), the checker interface (an observer plus a finish hook), and helpers that
 * name a thread and an address the way reports print them.
 *
 * The simulator sees one observer, the session's, which hands each event on to the checkers
 * that asked for it: most checkers care about a few opcodes, so per instruction that is one
 * call and a table lookup rather than a call into every checker (see CheckChecker).
 *
 * Checkers: race.c (data races), barrier.c (barrier divergence), simd.c (SIMD-group
 * functions reading inactive lanes), memory.c (uninitialized reads, read-before-wait,
 * out-of-bounds reads whose value is never used), regdef.c (uninitialized register values
 * used), profile.c (divergence profile).
 */
#ifndef LOCKSTEP_CHECK_INTERNAL_H
#define LOCKSTEP_CHECK_INTERNAL_H

#include <string.h>

#include "check.h"

typedef struct CheckChecker CheckChecker;

#define CHECK_OP_WORDS ((ISA_OP_COUNT + 63) / 64)

struct CheckChecker {
    /* observer.ctx points back at this checker's own state. The session forwards every hook
     * but inst_issued and inst_retired as they come; those two it filters: */
    SimObserver observer;
    /* observer.inst_issued is called only for opcodes set here (all of them when none is). */
    uint64_t issue_ops[CHECK_OP_WORDS];
    /* And, when not NULL, only for instructions k with issue_insts[k] set (program order):
     * the simulator then skips the others' calls altogether, unless another checker wants
     * them, when inst_issued must return at once. */
    const uint8_t *issue_insts;
    /* Called instead of observer.inst_retired, with the exec mask the instruction ran with
     * (`before`; sg->exec_mask is the one it left), for: opcodes set in retire_ops, every
     * instruction that changed the exec mask when retire_mask_changes, and every instruction
     * of a SIMD-group for which it has called check_retire_all(..., true). Whatever it is not
     * called for it must not need: the session's CheckGroup counts the instructions. */
    void (*retired)(CheckChecker *c, const SimGroupView *sg, const IsaInst *inst, uint32_t before);
    uint64_t retire_ops[CHECK_OP_WORDS];
    bool retire_mask_changes;
    uint8_t bit;               /* set by the session: 1 << its index in checkers[] */
    /* Reports what it holds back to report at the end (may be NULL): check_session_flush,
     * for a debugger that stops at each new finding. Later occurrences then fold in. */
    void (*flush)(CheckChecker *c, CheckSession *s);
    /* Called by check_session_finish, before faults are folded in; may be NULL. */
    void (*finish)(CheckChecker *c, CheckSession *s, const SimResult *result);
    void (*destroy)(CheckChecker *c);
};

/* Per SIMD-group of the running threadgroup, kept by the session. */
typedef struct CheckGroup {
    uint32_t mask;             /* the exec mask the last retired instruction left */
    uint8_t retire_all;        /* checkers that want every instruction it retires */
    uint64_t retired;          /* instructions it retired in this threadgroup (as of the last
                                * one the session saw: SimGroupView.retired) */
} CheckGroup;

/* Sets opcode op in a CheckChecker's issue_ops / retire_ops. */
static inline void check_op_set(uint64_t *ops, uint32_t op)
{
    ops[op / 64] |= (uint64_t)1 << (op % 64);
}

/* The checkers' hooks of one kind, gathered for forwarding (session.c). */
typedef struct CheckTgHook {
    void (*fn)(void *ctx, const SimThreadgroupView *tg);
    void *ctx;
} CheckTgHook;
typedef struct CheckInstHook {
    void (*fn)(void *ctx, const SimGroupView *sg, const IsaInst *inst);
    void *ctx;
} CheckInstHook;
typedef struct CheckMemHook {
    void (*fn)(void *ctx, const SimGroupView *sg, const SimMemAccess *access);
    void *ctx;
} CheckMemHook;
typedef struct CheckForward {
    CheckTgHook tg_begin[8], tg_end[8], release[8];
    CheckInstHook arrive[8];
    CheckMemHook mem[8];
    uint32_t num_tg_begin, num_tg_end, num_release, num_arrive, num_mem;
    bool any_issued, any_retired;
} CheckForward;

struct CheckSession {
    const IsaProgram *program;
    const MemDevice *device;
    CheckBufferInfo *buffers;      /* one per device buffer (copied) */
    bool *writable;                /* per device buffer: may this kernel write it? (session.c) */
    uint32_t num_buffers;
    uint32_t *tg_arg_offsets;      /* per program argument: its threadgroup block's offset */
    uint32_t *tg_arg_bytes;        /* and size (0 for other arguments) */
    CheckOptions opts;
    CheckChecker *checkers[8];
    uint32_t num_checkers;
    /* the one observer the simulator sees (session.c), and the checkers it forwards to: bit i
     * of a mask stands for checkers[i] */
    SimObserver observer;
    SimObserver *observers[2];
    uint32_t num_observers;
    /* When one checker alone wants inst_issued for this program's instructions, the simulator
     * calls it directly through this second observer (one call, no forwarding). */
    SimObserver direct;
    CheckForward fwd;
    uint8_t issue_want[ISA_OP_COUNT];   /* per opcode: checkers whose inst_issued wants it */
    uint8_t *issue_insts;               /* per instruction, when a checker filters them */
    uint64_t issue_ops[CHECK_OP_WORDS]; /* the opcodes with any: the observer's issue_ops */
    /* the opcodes to retire: those a checker asked for and every one that can change an exec
     * mask (so CheckGroup.mask stays exact) */
    uint64_t retire_ops[CHECK_OP_WORDS];
    /* the observer's retire_ops: retire_ops, or every opcode while some SIMD-group has
     * retire_all set (num_retire_all of them) */
    uint64_t retire_now[CHECK_OP_WORDS];
    uint32_t num_retire_all;
    uint8_t retire_want[ISA_OP_COUNT];  /* per opcode: checkers to retire it to */
    uint8_t retire_on_change;           /* checkers that want every exec mask change */
    uint8_t issue_want_any, retire_want_any; /* for an opcode past the tables */
    CheckGroup *groups;
    uint32_t num_groups, cap_groups;
    CheckFinding *findings;
    uint32_t num_findings;
    size_t findings_cap;
    CheckProfile profile;          /* filled by profile.c */
};

/* From now on (until the threadgroup ends), c->retired sees every instruction SIMD-group
 * `simdgroup` retires (on), or only those it asked for (off). */
static inline void check_retire_all(CheckSession *s, const CheckChecker *c, uint32_t simdgroup,
                                    bool on)
{
    uint8_t *all = &s->groups[simdgroup].retire_all;
    const uint8_t was = *all;
    *all = (uint8_t)(on ? *all | c->bit : *all & ~c->bit);
    if (!was != !*all) {
        s->num_retire_all += *all ? 1 : (uint32_t)-1;
        if (s->num_retire_all)
            memset(s->retire_now, 0xff, sizeof s->retire_now);
        else
            memcpy(s->retire_now, s->retire_ops, sizeof s->retire_now);
    }
}

/* Adds a finding, or counts it into an existing one with the same kind and the same pair of
 * source locations (first and second site). */
void check_report(CheckSession *s, const CheckFinding *f);

/* Fills site's thread (from lane `lane` of sg) and pc. */
void check_site_thread(CheckSite *site, const SimGroupView *sg, uint32_t lane, uint32_t pc);
/* Fills site's space, symbol, index and offset for an address as SimMemAccess gives it
 * (device address, or byte offset in threadgroup/thread memory). tg is the threadgroup (for
 * threadgroup argument blocks). */
void check_site_address(const CheckSession *s, CheckSite *site, MemSpace space, uint64_t addr);
/* A zeroed array of n elements of `size` bytes for shadow state, or NULL. From a huge page up
 * it is fresh anonymous memory, which the kernel zeroes on first touch: only the parts a
 * kernel touches are ever cleared, once, right before use; it asks for huge pages, since
 * first touches of 4 KiB pages would cost more than the checking. Free it with the same n
 * and size. */
void *check_shadow_alloc(uint64_t n, size_t size);
void check_shadow_free(void *p, uint64_t n, size_t size);

/* Loads: the opcodes whose memory data operand (`m`) they write. */
static inline bool check_is_load(uint32_t op)
{
    return op == ISA_OP_LD_DEV || op == ISA_OP_LD_CONST || op == ISA_OP_LD_TG ||
           op == ISA_OP_LD_STACK;
}

/* Which operands each opcode reads and writes (roles.c). */
enum { CHECK_ROLE_NONE, CHECK_ROLE_READ, CHECK_ROLE_WRITE };
typedef struct CheckRoles {
    uint8_t role[ISA_OP_COUNT][ISA_MAX_OPERANDS];
    /* per opcode, the operands it reads and then those it writes, in operand order */
    uint8_t uses[ISA_OP_COUNT][2 * ISA_MAX_OPERANDS];
    uint8_t num_reads[ISA_OP_COUNT], num_uses[ISA_OP_COUNT];
} CheckRoles;
void check_roles_build(CheckRoles *r);

/* The register halves operand k of `in` names, among a SIMD-group's num_halves: [*first,
 * *first + return value); 0 for an operand that is no register. Memory data (`m`) names
 * .xN consecutive registers, or halves for f16 formats. */
static inline uint32_t check_operand_halves(const IsaInst *in, int k, uint32_t num_halves,
                                            uint32_t *first)
{
    const IsaOperand *o = &in->opd[k];
    *first = 0;
    uint32_t n = isa_ops[in->op].operands[0] == 'm' && k == 0 && in->count ? in->count : 1;
    uint32_t h;
    switch ((IsaOperandKind)o->kind) {
    case ISA_OPD_R32: *first = o->index * 2u; h = 2 * n; break;
    case ISA_OPD_R16: *first = o->index; h = n; break;
    case ISA_OPD_R64: *first = o->index * 2u; h = 4; break;
    default: return 0;
    }
    if (*first >= num_halves)
        return 0;
    return UTIL_MIN(h, num_halves - *first);
}

/* simd.c: the value of a 32-bit source operand in every lane (a register from the view, an
 * immediate, a uniform with a .uniform value); false when an observer cannot know it (a
 * uniform bound at launch). */
bool check_operand_values(const IsaProgram *p, const SimGroupView *sg, const IsaOperand *o,
                          uint32_t out[32]);
/* simd.c: the lane that lane l of a shuffle or broadcast reads given its lane, delta or
 * mask operand b, as sim/ops_simd.c picks it. */
uint32_t check_source_lane(uint16_t op, uint32_t l, uint32_t b);
/* simd.c: the MSL name of a shuffle or broadcast opcode; NULL for any other. */
const char *check_simd_name(uint16_t op);

/* The source line of pc (0 when unknown). */
/* A source line for messages: "7", or for code inlined from a helper function
 * "7 (in stage, called at line 16)"; "?" without debug info. check_line(p, pc).s can be
 * passed straight to printf (the temporary lives to the end of the call). */
typedef struct CheckLine {
    char s[200];
} CheckLine;
CheckLine check_line(const IsaProgram *p, uint32_t pc);
CheckLine check_loc_line(const IsaProgram *p, const IsaSourceLoc *loc);
/* pcs a and b come from the same source line (and the same inlined call) */
bool check_same_line(const IsaProgram *p, uint32_t a, uint32_t b);

/* The checkers (each returns NULL when its options are off). */
CheckChecker *check_race_new(CheckSession *s);
CheckChecker *check_barrier_new(CheckSession *s);
CheckChecker *check_simd_new(CheckSession *s);
CheckChecker *check_memory_new(CheckSession *s);
CheckChecker *check_profile_new(CheckSession *s);
CheckChecker *check_regdef_new(CheckSession *s);

/* regdef.c: how many instructions of p may read a register half that holds no defined value
 * in some lane that reads it (0: the program cannot use an uninitialized register, and a
 * run needs no tracking); maybe[i] says which, when not NULL (p->count entries). */
uint32_t check_regdef_scan(const IsaProgram *p, bool *maybe);

/* memory.c: true when every out-of-bounds read at pc loaded a value that no instruction then
 * read (the register was overwritten or the thread ended); session.c folds such faults in as
 * warnings. False when the memory checker is off. */
bool check_memory_read_unused(const CheckSession *s, uint32_t pc);

#endif
