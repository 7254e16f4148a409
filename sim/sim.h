/*
 * sim.h — running a program over a grid: the launch description, the observer API that
 * checks, traces, statistics and the debugger subscribe to, and the result of a dispatch.
 *
 * The simulator computes values only; it never prints. Faults a kernel causes (an access
 * outside its buffer, a write to constant memory, a runaway loop) are recorded in the result
 * and the run goes on (or stops, for the budget); the simulator itself never crashes.
 * With no observer attached the interpreter runs a variant compiled without any observer
 * calls, so observers cost nothing when off.
 */
#ifndef LOCKSTEP_SIM_H
#define LOCKSTEP_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "../isa/isa.h"
#include "../mem/cache.h"
#include "../mem/mem.h"
#include "gpu.h"
#include "../util/util.h"

#define SIM_SIMD_WIDTH 32
#define SIM_MAX_THREADS_PER_THREADGROUP 1024
#define SIM_DEFAULT_TG_MEM_LIMIT 32768
/* Thread (stack) memory a kernel may use per thread: private arrays, spills. */
#define SIM_MAX_STACK_BYTES 65536
/* The instruction budget when the launch sets none: 10^8 plus 10^5 per SIMD-group of the
 * grid, at most 2 * 10^9 (sim_default_budget), so that a runaway small kernel stops in
 * seconds and a large one still has room. */
#define SIM_DEFAULT_INSTRUCTION_BUDGET 2000000000ull
#define SIM_DEFAULT_MAX_FAULTS 64

typedef enum SimMode { SIM_MODE_FUNCTIONAL, SIM_MODE_TIMED } SimMode;

/* What one kernel argument is bound to. */
typedef struct SimArgBinding {
    uint32_t buffer;    /* ISA_ARG_DEVICE / ISA_ARG_CONSTANT: index in the MemDevice */
    uint32_t tg_bytes;  /* ISA_ARG_THREADGROUP: size of its block of threadgroup memory */
    uint32_t tensor[3]; /* a tensor argument: extents (columns, rows), row pitch (elements) */
} SimArgBinding;

/* ---- observer API ------------------------------------------------------------------------- */

/* Who a thread is. */
typedef struct SimThreadId {
    uint32_t grid[3];         /* thread_position_in_grid */
    uint32_t threadgroup[3];  /* threadgroup_position_in_grid */
    uint32_t local[3];        /* thread_position_in_threadgroup */
    uint32_t simdgroup;       /* simdgroup_index_in_threadgroup */
    uint32_t lane;            /* thread_index_in_simdgroup */
} SimThreadId;

typedef struct SimThreadgroupView {
    uint32_t position[3];     /* threadgroup_position_in_grid */
    uint64_t linear;          /* dispatch order */
    uint32_t size[3];         /* threads_per_threadgroup (smaller at a partial edge) */
    uint32_t dispatch_size[3];/* dispatch_threads_per_threadgroup */
    uint32_t threads;
    uint32_t num_simdgroups;
    uint8_t *tg_memory;       /* its threadgroup memory */
    uint32_t tg_memory_bytes;
} SimThreadgroupView;

/* A SIMD-group as observers see it. Registers are lane-contiguous: regs[r * 32 + lane]. */
typedef struct SimGroupView {
    const SimThreadgroupView *threadgroup;
    uint32_t simdgroup;       /* index in the threadgroup */
    uint32_t lanes;           /* present lanes: 32, or fewer in a partial last SIMD-group */
    uint32_t exec_mask;       /* active lanes now */
    uint32_t pc;
    const uint32_t *regs;
    uint32_t num_regs;
    const uint8_t *stack;     /* thread (stack) memory: lane l's stack_bytes at l * stack_bytes */
    uint32_t stack_bytes;
    uint64_t retired;         /* instructions it has retired in this threadgroup (counted
                               * whether or not an observer asked to see them) */
} SimGroupView;

/* Fills the identity of lane `lane` of a SIMD-group. */
void sim_lane_thread(const SimGroupView *sg, uint32_t lane, SimThreadId *out);

/* The lanes where (a[l] cond b[l]), as the compare ops evaluate it (32-bit integers or
 * floats), as a bitmask: for observers that reason about an instruction's lanes. */
uint32_t sim_compare32(IsaCond cond, const uint32_t *a, const uint32_t *b, bool is_float);

typedef enum SimAccessKind { SIM_ACCESS_READ, SIM_ACCESS_WRITE, SIM_ACCESS_ATOMIC } SimAccessKind;

/* One memory instruction's accesses, one per lane in lane_mask (only in-bounds lanes). */
typedef struct SimMemAccess {
    const IsaInst *inst;
    MemSpace space;
    SimAccessKind kind;
    uint32_t lane_mask;
    uint32_t bytes;           /* bytes per lane */
    uint64_t addr[SIM_SIMD_WIDTH]; /* device address, threadgroup offset or stack offset */
    /* For writes and atomics: the bytes each lane wrote (up to 16). */
    uint8_t data[SIM_SIMD_WIDTH][16];
} SimMemAccess;

typedef struct SimObserver {
    void *ctx;
    void (*threadgroup_begin)(void *ctx, const SimThreadgroupView *tg);
    void (*threadgroup_end)(void *ctx, const SimThreadgroupView *tg);
    /* Before the instruction executes, with the lanes that will execute it. */
    void (*inst_issued)(void *ctx, const SimGroupView *sg, const IsaInst *inst);
    /* After it executed (registers hold its results). */
    void (*inst_retired)(void *ctx, const SimGroupView *sg, const IsaInst *inst);
    void (*mem_access)(void *ctx, const SimGroupView *sg, const SimMemAccess *access);
    void (*barrier_arrive)(void *ctx, const SimGroupView *sg, const IsaInst *inst);
    /* Every SIMD-group still running has arrived (or ended); they go on. */
    void (*barrier_release)(void *ctx, const SimThreadgroupView *tg);
    /* Optional: the opcodes inst_issued wants, a bitset (bit op % 64 of word op / 64, over
     * ISA_OP_COUNT); NULL means every one. Saves a call per instruction for the others.
     * The pointer is read when the dispatch starts; the bits it points to are read at each
     * instruction, so an observer may change them as it goes. */
    const uint64_t *issue_ops;
    /* The same for inst_retired. */
    const uint64_t *retire_ops;
    /* Optional promise: the bits issue_ops points to never change during a dispatch, so the
     * dispatch may sort the instructions into wanted and not wanted once, when it starts. */
    bool issue_ops_fixed;
    /* Optional, with issue_ops_fixed: per instruction index of the program, nonzero when
     * inst_issued wants that instruction (its opcode must be in issue_ops too). NULL: every
     * instruction of a wanted opcode. */
    const uint8_t *issue_insts;
} SimObserver;

/* ---- launch and result -------------------------------------------------------------------- */

/* ---- timed-mode statistics ---------------------------------------------------------------- */

typedef enum SimStall {
    SIM_STALL_DEPENDENCY,   /* waiting for a register an earlier instruction writes */
    SIM_STALL_MEMORY,       /* waiting at `wait` for device loads */
    SIM_STALL_BARRIER,      /* waiting at a threadgroup barrier */
    SIM_STALL_PIPE,         /* the op's pipe is still busy with an earlier instruction */
    SIM_STALL_NO_WORK,      /* no resident SIMD-group on the scheduler */
    SIM_STALL_COUNT
} SimStall;

extern const char *const sim_stall_names[SIM_STALL_COUNT];

/* One issue as the timing engine made it: for traces of where the cycles went. */
typedef struct SimIssueEvent {
    uint64_t cycle;
    uint32_t core, scheduler;
    uint64_t threadgroup;     /* linear dispatch order */
    uint32_t simdgroup;
    uint32_t pc;
    uint32_t exec_mask;       /* the lanes that run it */
    uint32_t lanes;           /* present lanes */
    /* When it could have issued at the earliest (its operands, loads or barrier ready), and
     * what it waited on until then (dependency, memory or barrier; meaningless when ready
     * is not after the SIMD-group's previous issue). From ready to cycle it waited for its
     * scheduler (other SIMD-groups issuing) or its pipe. */
    uint64_t ready;
    SimStall waited_on;
} SimIssueEvent;

/* Timed mode only: called at every issue, in each core's order (cores may run ahead of
 * each other: events are not sorted by cycle across cores). Unlike observers it changes
 * nothing: the schedule and cycles are those of the run without it. */
typedef struct SimIssueTrace {
    void *ctx;
    void (*issued)(void *ctx, const SimIssueEvent *e);
} SimIssueTrace;

typedef struct SimCoreStats {
    uint64_t busy_cycles;        /* cycles with at least one instruction issued */
    uint64_t instructions;       /* SIMD-group instructions issued */
    double avg_resident_simdgroups;
} SimCoreStats;

typedef struct SimStats {
    uint64_t cycles;             /* total, first issue to last completion */
    double seconds;              /* cycles at the config's clock */
    SimCoreStats *cores;         /* one per core of the config */
    uint32_t num_cores;
    double avg_resident_simdgroups;   /* per core, over the run */
    uint32_t max_resident_simdgroups; /* per core, what the limits allow for this kernel */
    char occupancy_limiter[64];       /* "registers (24 per thread)", "threadgroup memory", ... */
    uint64_t stall_cycles[SIM_STALL_COUNT]; /* scheduler-cycles without an issue, by reason */
    MemLevelStats memory[MEM_LEVEL_COUNT];
    uint64_t tg_memory_accesses, tg_bank_conflict_cycles;
    uint64_t flops;              /* float operations on the ALUs (fma = 2 per lane) */
    uint64_t tensor_flops;       /* on the neural accelerator (tmma where the GPU has one) */
    uint64_t dram_bytes;
    double flops_per_second, peak_flops_per_second;
    double tensor_flops_per_second, peak_tensor_flops_per_second; /* 0 without one */
    double dram_bytes_per_second, peak_dram_bytes_per_second;
} SimStats;

typedef struct SimLaunch {
    const IsaProgram *program;
    MemDevice *device;
    const SimArgBinding *bindings;   /* one per program argument */
    bool by_threadgroups;            /* grid counts threadgroups, not threads */
    uint32_t grid[3];
    uint32_t threadgroup[3];
    SimMode mode;
    uint32_t tg_mem_limit;           /* bytes; 0 = SIM_DEFAULT_TG_MEM_LIMIT */
    uint64_t instruction_budget;     /* SIMD-group instructions; 0 = default */
    uint32_t max_faults;             /* faults recorded in detail; 0 = default */
    SimObserver *const *observers;
    uint32_t num_observers;
    const SimGpuConfig *gpu;         /* timed mode; NULL = sim_gpu_default() */
    /* Optional: another thread (a debugger the user quit) sets it to stop the dispatch.
     * Read before each instruction of a functional run with observers (timed runs ignore
     * it); the run then ends as at the budget, with result->cancelled and no fault. */
    const _Atomic bool *cancel;
    const SimIssueTrace *issue_trace; /* optional; timed mode */
    /* A program with constant data (IsaProgram.data_bytes > 0, its program-scope constant
     * arrays) needs it bound: data_buffer is the buffer sim_add_program_data made for it,
     * and data_bound says so. */
    uint32_t data_buffer;
    bool data_bound;
} SimLaunch;

typedef enum SimFaultKind {
    SIM_FAULT_OUT_OF_BOUNDS,   /* an access outside its buffer or space */
    SIM_FAULT_NO_BUFFER,       /* a device address that belongs to no buffer */
    SIM_FAULT_CONSTANT_WRITE,  /* a store or atomic to a constant buffer */
    SIM_FAULT_BUDGET,          /* the instruction budget ran out */
    SIM_FAULT_COUNT
} SimFaultKind;

typedef struct SimFault {
    SimFaultKind kind;
    MemSpace space;
    bool is_write;
    const char *buffer;       /* device/constant buffer name, or NULL */
    uint64_t offset;          /* first byte accessed, from the buffer's start: a negative one
                               * as two's complement (read it as int64_t); or the address when
                               * no buffer */
    uint32_t bytes;           /* bytes accessed */
    uint64_t valid_bytes;     /* valid offsets are [0, valid_bytes) */
    SimThreadId thread;
    uint32_t pc;
} SimFault;

typedef struct SimResult {
    uint64_t instructions;        /* SIMD-group instructions issued */
    uint64_t lane_instructions;   /* active lanes summed over them */
    uint64_t lane_slots;          /* present lanes summed over them (for SIMD efficiency) */
    uint64_t threads;
    uint64_t threadgroups;
    uint64_t simdgroups;
    uint32_t grid_threads[3];     /* threads per grid */
    uint32_t grid_threadgroups[3];
    SimFault *faults;             /* the first max_faults faults */
    uint32_t num_faults;
    uint64_t total_faults;        /* all of them, including those not kept */
    /* So that every faulting instruction is known and counted: faults per instruction (index
     * in the program's code; NULL when none), and the first fault of each instruction none of
     * whose faults is among the first max_faults. */
    uint64_t *inst_faults;
    SimFault *late_faults;
    uint32_t num_late_faults;
    bool budget_exceeded;
    uint64_t budget;              /* the instruction budget the run had */
    bool cancelled;               /* launch->cancel stopped it */
    bool timed;                   /* stats below are valid */
    SimStats stats;
} SimResult;

/* Where each threadgroup argument's block starts in threadgroup memory (offsets[i] for
 * ISA_ARG_THREADGROUP args; 0 for others) and the total bytes: static memory first, then the
 * argument blocks in order, each aligned to 16 bytes. */
uint64_t sim_threadgroup_layout(const IsaProgram *p, const SimArgBinding *bindings,
                                uint32_t *offsets);

/* The name of the buffer that holds a program's constant data (no argument's name: it has
 * a space). */
#define SIM_DATA_BUFFER_NAME "constant data"

/* Adds a constant buffer holding a copy of p's constant data to dev, for SimLaunch's
 * data_buffer; returns its index, or -1 with err (a program without any: -1, err "").
 * Kernels read it; nothing writes it. */
int32_t sim_add_program_data(MemDevice *dev, const IsaProgram *p, UtilError *err);

/* The default instruction budget of a grid of `simdgroups` SIMD-groups. */
uint64_t sim_default_budget(uint64_t simdgroups);

/* Runs the dispatch to completion. Returns false (err set) only when the launch itself is
 * invalid (too much threadgroup memory, bad sizes, missing bindings); faults caused by the
 * kernel are in result. */
bool sim_dispatch(const SimLaunch *launch, SimResult *result, UtilError *err);
void sim_result_free(SimResult *result);

/* SIMD efficiency: active lanes over present lanes, 0..1. */
double sim_result_simd_efficiency(const SimResult *r);

#endif
