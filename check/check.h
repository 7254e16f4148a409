/*
 * check.h — the bug finders: observers of the simulator (sim.h) that find data races,
 * barrier divergence, SIMD-group functions reading inactive lanes, out-of-bounds and
 * uninitialized accesses and reads of asynchronous loads before their `wait`, plus the
 * divergence profile. Each finding names both accesses precisely enough for ui/ to print a
 * compiler-like diagnostic (source line and caret come from the program's debug info).
 *
 * A CheckSession bundles the enabled checkers: attach check_session_observers() to a
 * SimLaunch, run sim_dispatch, then check_session_finish() folds in the simulator's own
 * faults and returns the de-duplicated findings. Nothing here prints.
 */
#ifndef LOCKSTEP_CHECK_H
#define LOCKSTEP_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "../isa/isa.h"
#include "../mem/mem.h"
#include "../sim/sim.h"
#include "../util/util.h"

typedef enum CheckKind {
    CHECK_RACE,                 /* data race on threadgroup or device memory */
    CHECK_BARRIER_DIVERGENCE,   /* a barrier not reached by all lanes / SIMD-groups alike */
    CHECK_SIMD_DIVERGENCE,      /* a SIMD-group function reading an inactive lane */
    CHECK_SIMD_OPERAND,         /* its lane, delta or mask operand invalid or not uniform */
    CHECK_OUT_OF_BOUNDS,
    CHECK_UNINITIALIZED,        /* a read of memory nothing wrote */
    CHECK_UNINIT_VALUE,         /* a register value nothing assigned, stored or branched on */
    CHECK_READ_BEFORE_WAIT,     /* an async load's register used before its `wait` */
    CHECK_CONSTANT_WRITE,
    CHECK_BUDGET,               /* the run stopped at its instruction budget */
    CHECK_KIND_COUNT
} CheckKind;

typedef enum CheckSeverity { CHECK_ERROR, CHECK_WARNING, CHECK_NOTE } CheckSeverity;

extern const char *const check_kind_names[CHECK_KIND_COUNT]; /* "race", "barrier-divergence" ... */

typedef enum CheckAccessKind { CHECK_ACCESS_READ, CHECK_ACCESS_WRITE, CHECK_ACCESS_ATOMIC } CheckAccessKind;

#define CHECK_NO_INDEX INT64_MIN /* CheckSite.index when the element is not known */

/* One side of a finding: who did what, where. */
typedef struct CheckSite {
    bool valid;
    uint32_t pc;               /* the instruction (program->locs gives file:line:col) */
    SimThreadId thread;
    CheckAccessKind access;
    MemSpace space;
    char symbol[64];           /* buffer or variable name ("shared", "out"); "" unknown */
    int64_t index;             /* element in symbol (< 0: before it), or CHECK_NO_INDEX */
    uint32_t dims[3];          /* a multi-dimensional array's inner extents (IsaSymbol.dims):
                                * the index is named [i][j].., or all 0 */
    uint64_t offset;           /* byte offset in the buffer / threadgroup memory */
} CheckSite;

/* "shared[10]" / "tile[4][0]" / "out[3]" / "total" / "threadgroup memory byte 40" into buf,
 * as messages name a site. */
const char *check_site_name(const CheckSite *site, char *buf, size_t size);

typedef struct CheckFinding {
    CheckKind kind;
    CheckSeverity severity;
    char message[640];         /* "threadgroup memory race (write after read) on shared[10]" */
    CheckSite first;           /* the earlier access (or the only one) */
    CheckSite second;          /* the later, conflicting access; valid == false when none */
    char fix[640];             /* "no threadgroup_barrier(mem_threadgroup) between line 23 and line 25" */
    uint64_t count;            /* occurrences folded into this finding */
    uint32_t cause;            /* findings of one kind at the same places but of different
                                * causes (a race between threadgroups, and one within a
                                * threadgroup a barrier would fix) are kept apart; 0: one */
} CheckFinding;

typedef struct CheckOptions {
    bool races;
    bool barriers;             /* barrier divergence */
    bool simd;                 /* SIMD-group functions reading inactive lanes */
    bool memory;               /* out-of-bounds (as findings) and read-before-wait */
    bool uninit;
    bool divergence_profile;
    /* policies (reported in the output so a reader knows what was assumed) */
    bool strict_simd;          /* lanes of a SIMD-group are not ordered by lockstep */
    bool same_value_races;     /* report writes of the same value as races (default: benign) */
} CheckOptions;

/* Every check on, default policies. */
CheckOptions check_options_all(void);

/* What the checkers need to know about each device buffer beyond MemDevice. */
typedef struct CheckBufferInfo {
    uint32_t elem_size;        /* for element indices; 0: bytes */
    bool uninitialized;        /* the manifest said `init: none`: reads before writes are findings */
} CheckBufferInfo;

/* Per branch site: how often it ran, how often it split a SIMD-group, and what that cost. */
typedef struct CheckBranchProfile {
    uint32_t pc;               /* the if_* / while_* / else_* instruction */
    uint64_t executions;       /* SIMD-group executions */
    uint64_t diverged;         /* executions that left some but not all active lanes active */
    uint64_t lanes_idle;       /* lane-slots lost to inactive lanes in the code it guards */
} CheckBranchProfile;

typedef struct CheckProfile {
    CheckBranchProfile *branches;
    uint32_t num_branches;
    uint64_t lane_instructions, lane_slots; /* whole kernel: efficiency = instr / slots */
} CheckProfile;

typedef struct CheckSession CheckSession;

/* buffers[i] describes dev->buffers[i] (NULL: elem_size 1, initialized); bindings are the
 * launch's (for the names of threadgroup argument blocks). */
CheckSession *check_session_new(const IsaProgram *program, const MemDevice *dev,
                                const CheckBufferInfo *buffers, const SimArgBinding *bindings,
                                const CheckOptions *opts);
/* The observers to put in SimLaunch.observers (valid until the session is freed). */
SimObserver *const *check_session_observers(CheckSession *s, uint32_t *count);
/* After sim_dispatch: folds in the simulator's faults, sorts and returns the findings. */
const CheckFinding *check_session_finish(CheckSession *s, const SimResult *result,
                                         uint32_t *count);
/* During the run, for a debugger that stops at each new finding: flush makes the checkers
 * report what they would otherwise hold until the end (races, merged per pair of sites),
 * and findings gives those so far, in the order found (a later occurrence of one is counted
 * into it, not added), valid until the next is reported. The findings at the end are the
 * same, flushed or not. */
void check_session_flush(CheckSession *s);
const CheckFinding *check_session_findings(const CheckSession *s, uint32_t *count);
const CheckProfile *check_session_profile(const CheckSession *s);
/* Whether the kernel may write device buffer i: false only when none of its stores and
 * atomics can reach it (each names another buffer argument). */
bool check_session_may_write(const CheckSession *s, uint32_t buffer);
void check_session_free(CheckSession *s);

#endif
