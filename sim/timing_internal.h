/*
 * timing_internal.h — the timed mode engine's own state, shared by timing.c (the cycle loop:
 * issue, scoreboard, memory and barrier timing) and timing_setup.c (per-instruction timing
 * precomputed once per dispatch, threadgroup placement, occupancy and statistics).
 *
 * Everything the issue loop reads per instruction is precomputed: a TInst per instruction
 * (latency, interval, pipe, what kind of memory op, its register halves) and, per SIMD-group,
 * the cycle its next instruction's registers are ready. Nothing is ordered by host pointer
 * or hash: lists are arrays in placement order, so a run is the same on every host.
 */
#ifndef LOCKSTEP_SIM_TIMING_INTERNAL_H
#define LOCKSTEP_SIM_TIMING_INTERNAL_H

#include "timing.h"

#define T_NEVER UINT64_MAX
#define T_MAX_SCHEDULERS 64u /* per core: a bit each in core_ahead's masks (as in GPU configs) */
#define T_MAX_SLOT_LOADS 64u /* cap on wait_slot_loads, so the pending list stays small */

typedef enum TKind {
    T_ALU,       /* everything without memory or synchronization */
    T_LD_DEV, T_ST_DEV, T_LD_CONST, T_ATOM_DEV,
    T_LD_TG, T_ST_TG, T_ATOM_TG,
    T_STACK,
    T_WAIT,
    T_BARRIER,
} TKind;

/* Whether a core may issue an instruction running ahead of the others (timing.c). */
typedef enum TLocal {
    T_GLOBAL,            /* device memory, the stack, or it may end its SIMD-group */
    T_LOCAL_REGS,        /* register work: may also issue ahead of the core's other schedulers */
    T_LOCAL,             /* waits, barriers */
    T_LOCAL_IN_BOUNDS,   /* threadgroup memory: local when every active lane is in bounds */
} TLocal;

/* One instruction as the timing model sees it. */
typedef struct TInst {
    uint32_t first;      /* its register halves in TimedRun.halves: the written ones first */
    uint16_t latency, interval;
    uint8_t pipe;        /* IsaClass: one pipe per class per scheduler */
    uint8_t kind;        /* TKind */
    uint8_t nwrite;      /* halves written */
    uint8_t ncheck;      /* halves written or read: all must be ready to issue */
    uint8_t flops;       /* float operations per active lane */
    uint8_t flops_unit;  /* whose: 0 the ALUs, 1 the neural accelerator (TimedRun.flops) */
    uint8_t slot;        /* wait slot (ld_dev, wait) */
    uint8_t elems, esize;/* memory: elements per lane and bytes per element */
    uint8_t get_sr;      /* reads d->tg: that must be this SIMD-group's threadgroup */
    uint8_t local;       /* TLocal */
    uint16_t memo;       /* threadgroup access: its TBankMemo in TimedRun.memo */
    /* The same halves in fixed places, for the issue loop's branch-free path when `fixed`
     * (at most 4 checked, 2 written): unused places name the scoreboard's last two entries,
     * one never written (ready at 0) for rd, one never read for wr (T_SB_ZERO, T_SB_SINK). */
    uint8_t fixed;
    uint16_t rd[4], wr[2];
} TInst;

/* A SIMD-group's scoreboard has num_halves + 2 entries: these two are the extra ones. */
#define T_SB_ZERO(t) ((t)->num_halves)
#define T_SB_SINK(t) ((t)->num_halves + 1u)

/* The last lane pattern a threadgroup instruction's access had, and its bank cycles. */
typedef struct TBankMemo {
    uint32_t mask;       /* active lanes; 0: nothing remembered yet */
    uint32_t cycles;
    uint64_t low;        /* first active lane's address modulo the bank width */
    uint64_t rel[32];    /* each active lane's address less the first's (0 when inactive) */
    bool keyed;          /* the same pattern is in `key` too (timing.c: tg_bank_total) */
    uint32_t key[32];    /* each active lane's index less the first's (0 when inactive) */
} TBankMemo;

struct TSlot;

/* A resident SIMD-group's timing state. */
typedef struct TGroup {
    uint64_t ready;      /* earliest cycle its next instruction may issue (not counting pipes) */
    uint8_t pipe;        /* pipe of its next instruction */
    uint8_t reason;      /* SimStall: why not before `ready` */
    uint8_t local;       /* TInst.local of its next instruction */
    uint8_t sched;       /* scheduler index within its core */
    uint32_t pos;        /* its TEntry in that scheduler's list */
    uint32_t core;       /* = slot->core, kept here: the hot paths touch no TSlot */
    uint8_t *tg_memory;  /* = slot->tg_memory */
    struct TSched *sp;   /* its scheduler */
    uint8_t slot_n[2];   /* pending loads per wait slot */
    SimGroup *g;
    struct TSlot *slot;
    uint64_t *sb;        /* per register half: (cycle its pending write lands) << 1 | written
                          * by a memory op (a wait for it is a memory stall) */
    uint64_t slot_last[2];
    uint64_t *slot_done; /* [2][wait_slot_loads]: completion cycles of the pending loads */
} TGroup;

/* A resident threadgroup and its storage (kept for reuse when it ends). */
typedef struct TSlot {
    SimThreadgroupView view;
    SimGroup *groups;
    TGroup *tgroups;
    uint32_t *regs;
    uint8_t *stack;
    uint8_t *tg_memory;
    uint64_t *sb;
    uint64_t *slot_done;
    uint32_t core;
    uint32_t n, arrived, done;
    uint32_t turn;       /* with observers: the only SIMD-group that may issue */
    uint32_t threads;    /* reserved on its core: SIMD-groups x 32 */
    struct TSlot *next_free;
} TSlot;

/* A scheduler's view of one of its SIMD-groups: a copy of what the issue scan reads, kept
 * contiguous so scanning a scheduler touches a few cache lines and chases no pointers. */
typedef struct TEntry {
    uint64_t ready;
    TGroup *tg;
    uint8_t pipe;
    uint8_t local;
} TEntry;

typedef struct TSched {
    TEntry *list;        /* resident SIMD-groups, oldest first */
    uint32_t n;
    size_t cap;
    uint8_t idle_reason; /* reason for the cycles since acct when it last could not issue */
    uint32_t at_barrier; /* its SIMD-groups waiting at a barrier */
    uint32_t ahead_avg;  /* recent stretches ahead, average length x 16 (timing.c) */
    uint32_t ahead_probe;
    uint64_t acct;       /* first cycle not yet counted as an issue or a stall */
    uint64_t pipe_free[ISA_CLASS_COUNT];
} TSched;

typedef struct TCore {
    TSched *sched;
    uint32_t threads, tgs, tg_mem; /* reserved by resident threadgroups */
    uint32_t resident;             /* SIMD-groups */
    uint64_t resident_since, resident_area;
    uint64_t busy, instructions;
    uint64_t busy_next;            /* first cycle not yet counted in busy */
    uint64_t tg_port_free;         /* threadgroup memory banks busy until */
} TCore;

typedef struct TimedRun {
    SimDispatch *d;
    const SimGpuConfig *cfg;
    MemHierarchy *mem;
    TInst *tinst;
    TBankMemo *memo;               /* one per threadgroup access instruction */
    uint64_t *pick_addr;           /* [spc][W]: core_ahead's threadgroup offsets per pick */
    uint32_t *bank_seen;           /* per bank-width word of threadgroup memory: the last
                                    * bank_count that met it (timing.c), made on first need */
    uint64_t bank_words;
    uint32_t bank_gen;
    uint32_t tg_banks, tg_bank_bytes; /* the config's, 0 taken as 1 bank of 4 bytes */
    bool tg_banks_pow2;            /* both powers of two (what bank_cycles' memo needs) */
    uint32_t tg_banks_shift;       /* log2 tg_banks when tg_banks_pow2 */
    uint16_t *halves;
    uint32_t num_halves;           /* per SIMD-group scoreboard entries */
    uint32_t spc;                  /* schedulers per core */
    uint32_t slot_cap;             /* wait_slot_loads, capped */
    uint32_t line_shift;           /* log2 of the L1 line */
    TCore *cores;
    uint32_t num_cores;
    uint64_t *wake;                /* per scheduler (core * spc + k): nothing issues before */
    uint64_t *core_wake;           /* per core: the smallest of its schedulers' wakes */
    TSlot **slots;                 /* every slot ever made, for freeing */
    uint32_t num_slots;
    size_t cap_slots;
    TSlot *free_slots;
    TSlot *current;                /* whose view d->tg holds */
    uint64_t next_tg, total_tgs;
    uint32_t occ_threads;          /* resident threads per core for this kernel */
    uint32_t resident_tgs;
    bool observed;
    bool slow_issue;               /* observed, or an issue trace: exec_issued's slower path */
    const SimIssueTrace *trace;
    uint64_t next;                 /* earliest wake of any scheduler (this iteration) */
    uint64_t end;                  /* last completion seen */
    SimGroup *stopped_group;       /* the one that met the budget */
    uint64_t iterations;
    uint64_t flops[2];             /* float operations: ALUs, neural accelerator */
    uint64_t tg_accesses, tg_conflicts;
    uint64_t stall[SIM_STALL_COUNT];
} TimedRun;

/* timing_setup.c */
void timing_precompute(TimedRun *t);
void timing_place(TimedRun *t, uint64_t now);
void timing_finish_threadgroup(TimedRun *t, TSlot *slot, uint64_t now);
void timing_resident_change(TCore *core, uint64_t now, int delta);
bool timing_may_place(const TimedRun *t, const TCore *core);
void timing_fill_stats(TimedRun *t);
/* timing.c */
void timing_compute_ready(TimedRun *t, TGroup *tg, uint64_t now);
void timing_publish(TimedRun *t, TGroup *tg);
void timing_poke(TimedRun *t, TGroup *tg, uint64_t not_before);
void timing_next_turn(TimedRun *t, TSlot *slot, uint64_t now);
void timing_loop(TimedRun *t);

#endif
