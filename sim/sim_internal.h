/*
 * sim_internal.h — the simulator's own view of a dispatch, shared by its files only.
 *
 * At dispatch start each IsaInst is turned into a SimInst whose operands are already
 * resolved to "bank + word offset": bank 0 is the SIMD-group's register file, bank 1 a
 * per-dispatch table where every immediate and uniform is splatted across 32 lanes. So every
 * source is a pointer to 32 lane values and every handler is a plain lane loop the C compiler
 * vectorizes, with no per-lane decoding. Float abs/neg modifiers become an and-mask and an
 * xor-mask applied in the loop.
 */
#ifndef LOCKSTEP_SIM_INTERNAL_H
#define LOCKSTEP_SIM_INTERNAL_H

#include <string.h>

#include "sim.h"

#define W SIM_SIMD_WIDTH
#define SIM_FULL_MASK 0xffffffffu

enum { SIM_BANK_REGS = 0, SIM_BANK_CONSTS = 1 };

typedef struct SimOpd {
    uint32_t off;       /* word offset in its bank: register * 32, or splat slot * 32 */
    uint8_t bank;       /* SIM_BANK_* */
    uint8_t half;       /* 16-bit operands: 0 low, 1 high */
    uint16_t reg;       /* register number (registers only) */
    uint32_t and_mask;  /* float source modifiers: value = (bits & and_mask) ^ xor_mask */
    uint32_t xor_mask;
} SimOpd;

enum {
    SIM_INST_WRITES_R0 = 1, /* the destination is r0 or one of its halves: recompute exec */
    SIM_INST_SAT = 2,
    SIM_INST_NO_ISSUE_HOOK = 4, /* no observer's inst_issued wants it (fixed filters) */
};

typedef struct SimInst {
    const IsaInst *isa;
    uint16_t op;
    uint8_t flags;
    uint8_t cond;
    uint32_t target;     /* branch target instruction index */
    SimOpd o[ISA_MAX_OPERANDS];
} SimInst;

typedef enum SimGroupState { SIM_GROUP_RUNNING, SIM_GROUP_AT_BARRIER, SIM_GROUP_DONE } SimGroupState;

typedef struct SimGroup {
    uint32_t *regs;         /* num_regs * 32 words, lane-contiguous */
    uint8_t *stack;         /* 32 * stack_bytes: lane L's stack at L * stack_bytes */
    uint32_t pc;            /* instruction index */
    uint32_t exec_mask;     /* lanes whose nesting counter is 0, among the present ones */
    uint32_t present_mask;  /* lanes that exist */
    /* What every instruction reads comes first, in one host cache line: hundreds of
     * SIMD-groups are resident in timed mode, so their state is mostly out of the host L1. */
    uint32_t lanes;
    uint32_t index;         /* simdgroup_index_in_threadgroup */
    SimGroupState state;
    uint32_t lane_select[W];/* 0xffffffff for active lanes, 0 otherwise: blend masks */
    SimGroupView view;      /* kept current for observers */
} SimGroup;

/* A named block of threadgroup memory: bytes [offset, offset + size). */
typedef struct SimTgBlock {
    uint32_t offset, size;
    const char *name;
} SimTgBlock;

/* An observer's inst_issued or inst_retired with its opcode filter (never NULL). */
typedef struct SimInstHook {
    void (*fn)(void *ctx, const SimGroupView *sg, const IsaInst *inst);
    void *ctx;
    const uint64_t *ops;
} SimInstHook;

#define SIM_OP_WORDS ((ISA_OP_COUNT + 63) / 64)

typedef struct SimDispatch {
    const SimLaunch *launch;
    /* The observers' per-instruction hooks, gathered when the dispatch starts (a NULL
     * filter becomes all_ops): per instruction, a load and a bit test for each. */
    SimInstHook *issued, *retired;
    uint32_t num_issued, num_retired;
    uint64_t all_ops[SIM_OP_WORDS];
    const IsaProgram *program;
    MemDevice *device;
    SimInst *code;
    uint32_t count;
    uint32_t *consts;          /* bank 1 */
    uint32_t uniforms[256];
    uint32_t tg_size[3];       /* dispatch threads per threadgroup */
    uint32_t tg_count[3];      /* threadgroups per grid */
    uint32_t grid_size[3];     /* threads per grid */
    uint32_t tg_mem_bytes;     /* static + argument blocks */
    /* The named blocks of threadgroup memory (the kernel's arrays and variables, its
     * threadgroup arguments' blocks) and, per byte, 1 + the block it belongs to (0: none;
     * NULL when there are none): an access belongs to the block its base points into. */
    SimTgBlock *tg_blocks;
    uint32_t num_tg_blocks;
    uint16_t *tg_home;
    /* The program's constant data: the buffer that holds it (-1: none), and its blocks
     * (each constant array) by offset, which bound accesses as threadgroup blocks do. */
    int64_t data_buffer;
    SimTgBlock *data_blocks;
    uint32_t num_data_blocks;
    SimThreadgroupView tg;     /* the threadgroup running now */
    SimGroup *groups;
    uint32_t num_groups;
    uint8_t *tg_memory;
    uint32_t *reg_storage;
    uint8_t *stack_storage;
    SimResult *result;
    uint32_t max_faults;
    uint64_t budget;
    bool stopped;              /* the budget ran out */
} SimDispatch;

/* The named threadgroup block a base offset points into, or NULL. */
static inline const SimTgBlock *sim_tg_home(const SimDispatch *d, uint32_t base)
{
    const uint16_t h = d->tg_home && base < d->tg_mem_bytes ? d->tg_home[base] : 0;
    return h ? &d->tg_blocks[h - 1] : NULL;
}

/* The named block the access [offset, offset + bytes) from a base offset leaves, or NULL:
 * the block the base points into. A pointer (a base in a register) at the start of one
 * block, or at the end of the last, may also be one past the end of the block before it
 * (`end = s + 64; end[-1]`, `&s[64]`): an access inside either is in bounds, and one
 * outside both from the end of the last block leaves that block (`*end` reads s[64]). A
 * constant base is an array's own start. */
static inline const SimTgBlock *sim_tg_overrun(const SimDispatch *d, uint32_t base,
                                               uint64_t offset, uint32_t bytes, bool pointer)
{
    const SimTgBlock *home = sim_tg_home(d, base);
    /* [offset, offset + bytes) inside [lo, hi), without the sum wrapping: a negative index
     * wraps offset to just below 2^64, where offset + bytes would wrap back into range */
#define SIM_TG_INSIDE(lo, hi) (offset >= (lo) && offset < (hi) && (hi) - offset >= bytes)
    if (home && SIM_TG_INSIDE(home->offset, (uint64_t)home->offset + home->size))
        return NULL;
    const SimTgBlock *before =
        pointer && base && (home ? base == home->offset : base == d->tg_mem_bytes)
            ? sim_tg_home(d, base - 1) : NULL;
    if (before && before->offset + before->size != base)
        before = NULL;
    if (before && SIM_TG_INSIDE(before->offset, (uint64_t)base))
        return NULL;
#undef SIM_TG_INSIDE
    return home ? home : before;
}

/* The constant data block that byte `at` of the data buffer is in, or NULL. */
static inline const SimTgBlock *sim_data_home(const SimDispatch *d, uint64_t at)
{
    uint32_t lo = 0, hi = d->num_data_blocks;
    while (lo < hi) { /* the first block ending past at */
        const uint32_t mid = lo + (hi - lo) / 2;
        if ((uint64_t)d->data_blocks[mid].offset + d->data_blocks[mid].size <= at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < d->num_data_blocks && d->data_blocks[lo].offset <= at ? &d->data_blocks[lo] : NULL;
}

/* As sim_tg_overrun, for the constant data buffer: the block an access [offset, offset +
 * bytes) from a base offset leaves (offsets from the buffer's start; a negative one wraps),
 * or NULL. A pointer at a block's start or past every block may also be one past the end
 * of the block before it (`tab + 4`, then `p[-1]`). */
static inline const SimTgBlock *sim_data_overrun(const SimDispatch *d, uint64_t base,
                                                 uint64_t offset, uint32_t bytes, bool pointer)
{
    const SimTgBlock *home = sim_data_home(d, base);
    /* [offset, offset + bytes) inside [lo, hi), without the sum wrapping (offset may) */
#define SIM_DATA_INSIDE(lo, hi) (offset >= (lo) && (hi) - offset >= bytes && offset < (hi))
    if (home && SIM_DATA_INSIDE(home->offset, (uint64_t)home->offset + home->size))
        return NULL;
    const SimTgBlock *before =
        pointer && base && (!home || base == home->offset) ? sim_data_home(d, base - 1) : NULL;
    if (before && (uint64_t)before->offset + before->size != base)
        before = NULL;
    if (before && SIM_DATA_INSIDE(before->offset, base))
        return NULL;
#undef SIM_DATA_INSIDE
    /* leaving both: backwards, the block the pointer is one past the end of (`e[-5]` of
     * `e = tab + 4` is tab[-1]) */
    return before && (!home || (int64_t)offset < (int64_t)base) ? before : home;
}

/* ---- operand access ----------------------------------------------------------------------- */

static inline uint32_t *sim_bank(SimDispatch *d, SimGroup *g, const SimOpd *o)
{
    return (o->bank == SIM_BANK_REGS ? g->regs : d->consts) + o->off;
}

/* A 16-bit operand: element l is at p[l * 2]. */
static inline uint16_t *sim_bank16(SimDispatch *d, SimGroup *g, const SimOpd *o)
{
    return (uint16_t *)sim_bank(d, g, o) + o->half;
}

void sim_update_exec(SimGroup *g);

/* Writes 32 lane results to a 32-bit destination, only on active lanes. */
/* log2 of a memory element size of 1, 2 or 4 bytes: offsets scale by a shift, which
 * vectorizes where a 64-bit multiply does not. */
static inline uint32_t sim_esize_shift(uint32_t esize) { return esize == 4 ? 2 : esize == 2 ? 1 : 0; }

/* A lane's byte offset base + index * esize (index signed: a negative offset wraps to a huge
 * value, which every bounds check rejects). */
static inline uint64_t sim_lane_offset(uint32_t base, uint32_t index, uint32_t shift)
{
    return (uint64_t)(int64_t)base + ((uint64_t)(int64_t)(int32_t)index << shift);
}

/* sim_index_range floors with >>: the compilers lockstep supports shift a negative number
 * arithmetically (C leaves it to them). */
_Static_assert((-5 >> 1) == -3, "right shift of a negative number must be arithmetic");

/* The indices i for which `bytes` at origin + i * 2^shift lie inside a region of `size`
 * bytes, as the range [*lo, *hi] (empty when *hi < *lo). origin is where a uniform base
 * points; -(origin >> shift) = ceil(-origin / 2^shift) as origin >= 0. */
static inline void sim_index_range(uint64_t origin, uint64_t size, uint32_t bytes, uint32_t shift,
                                   int32_t *lo, int32_t *hi)
{
    const int64_t o = (int64_t)origin;
    /* floor((size - bytes - o) / 2^shift), negative too (an arithmetic shift, asserted above):
     * with the origin past the region's end, the last index in bounds is below -1 */
    const int64_t hi64 = ((int64_t)size - (int64_t)bytes - o) >> shift;
    const int64_t lo64 = -(o >> shift); /* >= -2^32 */
    const bool none = hi64 < INT32_MIN; /* every index in bounds is below any 32-bit one */
    *lo = none ? 0 : lo64 < INT32_MIN ? INT32_MIN : (int32_t)lo64;
    *hi = none ? -1 : hi64 > INT32_MAX ? INT32_MAX : (int32_t)hi64;
}

/* The lanes whose select[] is set and whose signed index lies outside [lo, hi]: two 32-bit
 * compares a lane, in a loop that vectorizes. */
static inline uint32_t sim_lanes_outside(const uint32_t *index, const uint32_t *select,
                                         int32_t lo, int32_t hi)
{
    uint32_t bad = 0;
    for (int l = 0; l < W; l++) {
        const int32_t i = (int32_t)index[l];
        bad |= ((uint32_t)(i < lo) | (uint32_t)(i > hi)) & select[l];
    }
    return bad;
}

/* A float arithmetic result as the ISA defines it (docs/ISA.md, "Floating point"): any NaN is
 * the canonical quiet NaN, whatever NaNs the operands held and whichever the host or the
 * compiler of lockstep would have passed on, so every mode and host gives the same bits. */
static inline uint32_t sim_canon_f32(uint32_t x)
{
    return (x & 0x7fffffffu) > 0x7f800000u ? 0x7fc00000u : x;
}

static inline uint16_t sim_canon_f16(uint16_t x)
{
    return (x & 0x7fffu) > 0x7c00u ? (uint16_t)0x7e00u : x;
}

static inline void sim_write32(SimGroup *g, uint32_t *dst, const uint32_t *res)
{
    if (g->exec_mask == SIM_FULL_MASK) {
        memcpy(dst, res, W * sizeof *dst);
    } else {
        for (int l = 0; l < W; l++)
            dst[l] = (res[l] & g->lane_select[l]) | (dst[l] & ~g->lane_select[l]);
    }
}

static inline void sim_write16(SimGroup *g, uint16_t *dst, const uint16_t *res)
{
    for (int l = 0; l < W; l++)
        dst[l * 2] = (uint16_t)((res[l] & g->lane_select[l]) | (dst[l * 2] & ~g->lane_select[l]));
}

/* ---- handlers in other files (each: one instruction, all active lanes) -------------------- */

void sim_exec_convert(SimDispatch *d, SimGroup *g, const SimInst *in);
void sim_exec_sfu(SimDispatch *d, SimGroup *g, const SimInst *in);
void sim_exec_int_misc(SimDispatch *d, SimGroup *g, const SimInst *in);
void sim_exec_alu64(SimDispatch *d, SimGroup *g, const SimInst *in);
void sim_exec_icmpsel64(SimDispatch *d, SimGroup *g, const SimInst *in);
void sim_exec_get_sr(SimDispatch *d, SimGroup *g, const SimInst *in);
void sim_exec_memory(SimDispatch *d, SimGroup *g, const SimInst *in);
void sim_exec_atomic(SimDispatch *d, SimGroup *g, const SimInst *in);
void sim_exec_matrix(SimDispatch *d, SimGroup *g, const SimInst *in);
/* Whether the host has FMA and AVX2 (x86-64): the float paths that use them compute the
 * same bits as util_fma_f32. */
bool sim_host_has_fma(void);
void sim_exec_simd(SimDispatch *d, SimGroup *g, const SimInst *in);
void sim_exec_reduce(SimDispatch *d, SimGroup *g, const SimInst *in);

/* Records a fault by lane `lane` of g (first max_faults kept). */
void sim_fault(SimDispatch *d, SimGroup *g, uint32_t lane, SimFaultKind kind, MemSpace space,
               bool is_write, const char *buffer, uint64_t offset, uint32_t bytes,
               uint64_t valid_bytes);

/* Runs g until it stops, reaches a barrier or the budget runs out. */
void sim_run_group(SimDispatch *d, SimGroup *g);

/* Per-lane compare of two 32-bit sources: out[l] = 0xffffffff where (a cond b), else 0. */
void sim_compare_lanes(IsaCond cond, const uint32_t *a, const uint32_t *b, bool is_float,
                       uint32_t *out);
/* Bit l set where lanes[l] (0 or 0xffffffff) is all ones. */
uint32_t sim_lanes_to_mask(const uint32_t *lanes);

#endif
