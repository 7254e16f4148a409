/*
 * race_internal.h — the race detector's state, shared by its files: race.c (the per-access
 * work and its fast paths), race_block.c (whole blocks of 32 words at once), race_cell.c
 * (the general path, a RaceCell at a time), race_sync.c (threadgroups, barriers, the
 * checker's lifetime) and race_report.c (turning a conflict into a finding: the slow path).
 */
#ifndef LOCKSTEP_CHECK_RACE_INTERNAL_H
#define LOCKSTEP_CHECK_RACE_INTERNAL_H

#include "check_internal.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum { SP_DEV, SP_TG, SP_COUNT };
/* ACC_RMW: a remembered write whose own agent read the word earlier since the last barrier
 * (a read-modify-write); it is a write everywhere but in the same-value policy, which cannot
 * call another agent's write of the same value benign then: that read could have seen it. */
enum { ACC_READ = 0, ACC_WRITE = 1, ACC_ATOMIC = 2, ACC_RMW = 3 };
/* Among the reads (r1, r2, rx) the kinds are ACC_READ, ACC_ATOMIC and ACC_ALOAD: an atomic
 * load (an atomic that writes back what it read: atomic_load_explicit compiles to one). It
 * races with a plain write only: not with plain reads, and not with atomics. */
enum { ACC_ALOAD = 1 };

/* One access as the shadow remembers it, packed: serial 0 means none; info holds the
 * instruction index (20 bits), the thread index in its threadgroup (10) and the ACC_ kind (2). */
typedef struct RaceAccess {
    uint32_t serial;
    uint32_t info;
} RaceAccess;

#define RACE_INFO(index, tid, kind) ((uint32_t)(index) << 12 | (uint32_t)(tid) << 2 | (uint32_t)(kind))
#define RACE_MAX_INDEX ((1u << 20) - 1)
static inline uint32_t acc_tid(RaceAccess a) { return (a.info >> 2) & 1023; }
static inline uint32_t acc_kind(RaceAccess a) { return a.info & 3; }
static inline uint32_t acc_sg(RaceAccess a) { return acc_tid(a) / SIM_SIMD_WIDTH; }

/* Per word (or, split, per byte): 24 bytes. */
typedef struct RaceCell {
    RaceAccess w;            /* the last write */
    RaceAccess r1;           /* the latest read (or atomic) since the last plain write */
    uint32_t value;          /* the bytes the last write left (byte cells: byte 0) */
    uint32_t link;           /* word cells: RACE_SPLIT | index of four byte cells; otherwise
                              * 0 or 1 + index of the cell's RaceMore */
} RaceCell;

#define RACE_SPLIT 0x80000000u

/* The rarer read history, allocated for a cell when it first needs it. */
typedef struct RaceMore {
    RaceAccess r2;           /* the latest read by another agent than r1's */
    RaceAccess rx;           /* a read by an earlier threadgroup: races with every later write */
} RaceMore;

/* A word cell's fields live in one array each, made on first need (an absent array holds
 * none / zero everywhere): a buffer only read never has w or value, one only written never
 * has r1, and link is rare. So a shadow costs 8 to 20 bytes per word touched, not 24. */
typedef struct RaceShadow {
    RaceAccess *w;           /* per word: RaceCell.w */
    uint32_t *value;         /* per word: RaceCell.value (made with w) */
    RaceAccess *r1;          /* per word: RaceCell.r1 */
    uint32_t *link;          /* per word: RaceCell.link */
    uint64_t words;
    RaceCell *bytes;         /* byte cells of split words, four at a time */
    size_t num_bytes, bytes_cap;
    RaceMore *more;
    size_t num_more, more_cap;
    bool tried;              /* device buffers are shadowed lazily */
    bool dead;               /* an array could not be made: the buffer goes unchecked */
} RaceShadow;

/* Where an earlier threadgroup sat, to name the threads of its accesses. */
typedef struct RaceTg {
    uint32_t first_serial;
    uint32_t position[3], size[3];
} RaceTg;

typedef enum RaceReason {
    REASON_NO_BARRIER, REASON_FLAGS, REASON_CROSS_TG, REASON_SIMD, REASON_SAME_INST,
} RaceReason;

typedef struct RacePending {
    uint64_t key;
    uint32_t klass;
    CheckFinding f;
} RacePending;

/* The later access, lane by lane. */
typedef struct RaceCur {
    uint32_t serial, pc;
    uint32_t index;          /* instruction index (clamped to RACE_MAX_INDEX) */
    uint16_t tid;
    uint8_t kind;
    uint8_t sp;
    bool aload;              /* an atomic load (kind ACC_ATOMIC): see ACC_ALOAD */
    uint32_t lane;
    bool done_w, done_r;     /* this lane's access already counted against a write / a read */
} RaceCur;

/* A threadgroup read logged while the threadgroup is quiet (see race.c, quiet reads): lane l
 * of `mask` reads words first[l] .. + nwords - 1, or i0 + l * nwords .. when coalesced. */
typedef struct RaceQuiet {
    uint32_t serial, info0;  /* info0: RACE_INFO of the access with thread 0 */
    uint32_t sg, mask, nwords;
    bool coalesced;
    uint64_t i0;
    uint32_t first[SIM_SIMD_WIDTH];
} RaceQuiet;

typedef struct Race {
    CheckChecker base;
    CheckSession *s;
    bool strict, same_value;
    bool exhausted;          /* serials ran out (2^32 memory instructions): checking stopped */
    uint32_t serial;
    RaceShadow *dev;
    uint32_t num_dev;
    RaceShadow tg;
    uint64_t tg_hwm;         /* words of threadgroup shadow touched in this threadgroup */
    uint32_t tg_store_serial; /* the latest threadgroup write or atomic in this threadgroup */
    RaceQuiet *quiet;        /* quiet threadgroup reads not applied to the shadow yet */
    size_t num_quiet, quiet_cap;
    uint8_t *eager;          /* per instruction index: its quiet reads were needed once, so
                              * they are applied at once (made with the first log entry) */
    uint32_t num_eager;
    const SimThreadgroupView *cur_tg;
    uint32_t tg_first;
    uint32_t dispatch_size[3];
    RaceTg *tgs;
    size_t num_tgs, tgs_cap;
    /* ordering, per space: accesses with serial below rel[] are ordered with later ones */
    uint32_t rel[SP_COUNT];
    uint32_t simd_rel[SIM_MAX_THREADS_PER_THREADGROUP / SIM_SIMD_WIDTH][SP_COUNT];
    /* the latest barrier that did not cover a space: for "mem_none orders execution only" */
    uint32_t noncover_serial[SP_COUNT], noncover_pc[SP_COUNT];
    uint8_t noncover_flags[SP_COUNT];
    /* the same for each SIMD-group's latest simdgroup_barrier (strict_simd) */
    uint32_t simd_noncover_serial[SIM_MAX_THREADS_PER_THREADGROUP / SIM_SIMD_WIDTH][SP_COUNT];
    uint32_t simd_noncover_pc[SIM_MAX_THREADS_PER_THREADGROUP / SIM_SIMD_WIDTH][SP_COUNT];
    uint8_t simd_noncover_flags[SIM_MAX_THREADS_PER_THREADGROUP / SIM_SIMD_WIDTH][SP_COUNT];
    uint8_t pending_flags;
    bool pending_any;
    uint32_t pending_pc;
    RacePending *found;
    size_t num_found, found_cap;
    uint32_t *table;         /* open addressing: 1 + index into found; 0 empty */
    size_t table_size;
    /* scratch for on_mem_access: each lane's first word, exact for every lane a fast path
     * reads (in bounds: shadows hold at most 2^30 words) and truncated, unread, for the
     * rest; the 16 past the lanes stay 0 (they are compared and ignored: see read_again) */
    uint32_t lane_word[SIM_SIMD_WIDTH + 16];
} Race;


/* What ordered() needs about the current access, in locals: the shadow cells are written
 * through pointers the compiler cannot tell apart from Race's fields. */
typedef struct RaceOrder {
    uint32_t serial, tg_first, rel, simd_rel, sg;
    bool strict;
} RaceOrder;

/* The arrays of one shadow as the fast paths use them (reloaded after the general path,
 * which may make them). */
typedef struct RaceWords {
    RaceAccess *w, *r1;
    uint32_t *value, *link;
    RaceMore *more;
} RaceWords;


/* A plain access x (not an atomic) that some agent is not yet ordered with: made since the
 * last barrier covering the space, or by an earlier threadgroup. An atomic after it by the
 * same agent (ordered with it by lockstep, or by program order) does not stand for it: others
 * are still unordered with the plain access, and atomics do not race with atomics. */
static inline bool race_plain_live(uint32_t kind_atomic, RaceAccess x, uint32_t tg_first, uint32_t rel)
{
    return x.serial && acc_kind(x) != kind_atomic && (x.serial < tg_first || x.serial >= rel);
}

/* Makes the arrays a read (r1) or a write (w, value) needs; false (and the shadow dead) when
 * that fails. Threadgroup shadows have them all from the start. */
static inline bool race_need_reads(RaceShadow *sh)
{
    if (!sh->r1 && !(sh->r1 = check_shadow_alloc(sh->words, sizeof *sh->r1)))
        sh->dead = true;
    return !sh->dead;
}

static inline bool race_need_writes(RaceShadow *sh)
{
    if (!sh->w) {
        sh->w = check_shadow_alloc(sh->words, sizeof *sh->w);
        sh->value = check_shadow_alloc(sh->words, sizeof *sh->value);
        if (!sh->w || !sh->value)
            sh->dead = true;
    }
    return !sh->dead;
}

static inline bool race_need_links(RaceShadow *sh)
{
    if (!sh->link && !(sh->link = check_shadow_alloc(sh->words, sizeof *sh->link)))
        sh->dead = true;
    return !sh->dead;
}

/* race.c: one SimMemAccess (the observer's mem_access). race_sync.c: freeing a shadow's
 * arrays (device shadows are allocated apart from the rest: see check_shadow_alloc). */
void race_on_mem_access(void *ctx, const SimGroupView *sg, const SimMemAccess *acc);
/* race.c: the shadow of the device buffer addr falls in (made on first need), or NULL when
 * it has none (no such buffer, one the kernel cannot write, or one that could not be made). */
RaceShadow *race_device_shadow(Race *r, uint64_t addr);

/* race_cell.c, the general path: lane `lane` of acc from its word `first` on (the words
 * before it settled by a fast path), reporting what races; and a read b joining the reads of
 * word i of sh (split or not) when it can race with nothing before it (a quiet read). */
void race_lane_access(Race *r, const SimGroupView *sg, RaceCur *b, const SimMemAccess *acc,
                      uint32_t lane, uint32_t first);
void race_word_read(Race *r, RaceShadow *sh, uint64_t i, const RaceCur *b);
void race_shadow_release(RaceShadow *sh, bool device);

/* Records a conflict between the remembered access a and the current one b (lane at addr):
 * one finding per pair of instructions and reason, counted (race_report.c). */
void race_report(Race *r, const SimGroupView *sg, const RaceCur *b, const RaceAccess *a,
                 uint64_t addr, bool same_value);

/* Whether addr[l] == addr[0] + l * bytes for every lane (a coalesced access). */
static inline bool race_coalesced(const uint64_t *addr, uint32_t bytes)
{
#if defined(__SSE2__)
    /* two lanes at a time: this runs once per memory instruction */
    const __m128i step = _mm_set1_epi64x((int64_t)bytes * 2);
    __m128i want = _mm_set_epi64x((int64_t)(addr[0] + bytes), (int64_t)addr[0]);
    __m128i apart = _mm_setzero_si128();
    for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l += 2) {
        __m128i got = _mm_loadu_si128((const __m128i *)(const void *)(addr + l));
        apart = _mm_or_si128(apart, _mm_xor_si128(got, want));
        want = _mm_add_epi64(want, step);
    }
    return _mm_movemask_epi8(_mm_cmpeq_epi8(apart, _mm_setzero_si128())) == 0xffff;
#else
    uint64_t apart = 0;
    for (uint32_t l = 0; l + 1 < SIM_SIMD_WIDTH; l++)
        apart |= (addr[l + 1] - addr[l]) ^ bytes;
    return apart == 0;
#endif
}

/* race_block.c: a coalesced one-word plain read or write (not an atomic) of a whole
 * SIMD-group, lane l at word i0 + l of sh, taken as one block when each of the 32 words is
 * ordered with it (each would pass read_fast / write_fast): then it does what those would
 * and returns true; false changes nothing (fast_lanes goes word by word). */
bool race_block(Race *r, const SimGroupView *sg, const RaceCur *b, const SimMemAccess *acc,
                RaceShadow *sh, uint64_t i0);

#endif
