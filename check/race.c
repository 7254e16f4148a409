/*
 * race.c — the data-race detector: conflicting accesses to threadgroup and device memory,
 * per byte, that nothing orders.
 *
 * Every memory instruction instance gets a serial number (one per SimMemAccess, increasing
 * over the whole dispatch). Ordering is then a comparison of serials: a threadgroup barrier
 * whose mem_flags cover a space records "everything before serial N is ordered" for that
 * space, a simdgroup_barrier does the same for its SIMD-group (used under strict_simd), and
 * an access from an earlier threadgroup (serial below the current threadgroup's first) is
 * never ordered with a later one. Threadgroups run one after another, so the current
 * threadgroup is the only one still running.
 *
 * Shadow state is one RaceCell per 4-byte word (kept as one array per field, each made when
 * first needed: see RaceShadow; threadgroup memory is cleared where it was touched at each
 * threadgroup_begin) holding the last write (thread, instruction, serial, atomic?, and the
 * bytes it left, for the same-value policy) and the reads since: the latest read, and in a
 * side table made on first need, the latest read by another agent (SIMD-group; thread under
 * strict_simd) and one read by an earlier threadgroup. Whenever some read since the last
 * write is unordered with a new write, one of those three is: the latest read is, unless it
 * is the writer's agent, and then the latest read of another agent is; reads by earlier
 * threadgroups race with everything later. Atomics count as reads too (they read), so a
 * plain access meets every atomic it is unordered with. A word cell stands for four
 * identical per-byte states as long as every access covers the whole word; the first
 * narrower access splits it into four byte cells, exact per byte from then on.
 *
 * Most accesses change nothing but the latest read or write of words no other agent touched
 * since the last barrier, or are atomics meeting only atomics: read_fast / write_fast /
 * atomic_fast settle those in a few compares (a coalesced access, lane l at base + l * size,
 * walks consecutive cells, or takes all 32 in one pass when each is ordered with it: see
 * race_block.c; an atomic load of a word no plain write races with joins its reads), and
 * only the rest take the general per-byte path (race_cell.c). Both keep exactly the same
 * state. Threadgroup reads between a barrier and the next threadgroup
 * write (a tile being read) are logged rather than applied, and usually dropped unread by
 * the next barrier (see quiet reads).
 *
 * Findings are gathered here per pair of instructions and reason (a hash table), so a race
 * hit by millions of accesses costs one table probe each; finish hands them to the session,
 * which merges pairs with the same source locations. A finding's count is the number of
 * racing accesses: each thread's execution of the later instruction counts once per finding
 * however many bytes of it raced. Threadgroups, barriers and the checker's lifetime are in
 * race_sync.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__AVX2__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "lane_span.h"
#include "race_internal.h"

/* ---- the per-access work ------------------------------------------------------------------ */

/* The arrays the fast path for an access of `kind` writes: an atomic, like the general path,
 * records itself both as the last write and as the latest read. */
static inline bool need_arrays(RaceShadow *sh, uint8_t kind)
{
    if (kind == ACC_READ)
        return race_need_reads(sh);
    return race_need_writes(sh) && (kind != ACC_ATOMIC || race_need_reads(sh));
}

RaceShadow *race_device_shadow(Race *r, uint64_t addr)
{
    uint64_t index = (addr >> MEM_BUFFER_SHIFT) - 1;
    if (index >= r->num_dev)
        return NULL;
    RaceShadow *sh = &r->dev[index];
    if (UTIL_UNLIKELY(!sh->tried)) {
        sh->tried = true;
        const MemBuffer *b = &r->s->device->buffers[index];
        /* a buffer the kernel cannot write has nothing to race on: no shadow */
        sh->words = b->space == MEM_SPACE_DEVICE && r->s->writable[index] ? (b->size + 3) / 4 : 0;
    }
    return sh->words && !sh->dead ? sh : NULL;
}

/* An atomic that writes back what it read: what atomic_load_explicit compiles to (or with 0;
 * add -0.0 for floats), and the same from other ops (add, sub, xor 0; and all ones). */
static bool is_atomic_load(const IsaInst *in)
{
    if ((in->op != ISA_OP_ATOM_DEV && in->op != ISA_OP_ATOM_TG) || in->opd[3].kind != ISA_OPD_IMM)
        return false;
    const uint64_t v = in->opd[3].imm & 0xffffffffu;
    if (in->type == ISA_TYPE_F32)
        return in->cond == ISA_ATOM_ADD && v == 0x80000000u;
    switch (in->cond) {
    case ISA_ATOM_ADD: case ISA_ATOM_SUB: case ISA_ATOM_OR: case ISA_ATOM_XOR: return v == 0;
    case ISA_ATOM_AND: return v == 0xffffffffu;
    default: return false;
    }
}

/* ordered(r, a, b) for the current access by thread tid. */
static inline bool ordered_now(const RaceOrder *o, RaceAccess a, uint32_t tid)
{
    if (a.serial == o->serial)
        return acc_tid(a) == tid;
    if (a.serial < o->tg_first)
        return false;
    if (acc_tid(a) == tid || a.serial < o->rel)
        return true;
    if (acc_sg(a) != o->sg)
        return false;
    return !o->strict || a.serial < o->simd_rel;
}

/* Whether access a is one of agent tid's (a thread, or a SIMD-group's lanes when they run in
 * lockstep) since the last barrier ordering its memory: with a write by tid after it, a
 * read-modify-write. */
static inline bool own_since_barrier(const RaceOrder *o, RaceAccess a, uint32_t tid)
{
    const uint32_t agent = o->strict ? 0 : 5;
    return a.serial && a.serial >= o->tg_first && a.serial >= o->rel &&
           acc_tid(a) >> agent == tid >> agent;
}

static inline RaceWords words_of(const RaceShadow *sh)
{
    return (RaceWords){sh->w, sh->r1, sh->value, sh->link, sh->more};
}

/* Word i of a plain access, when that is simple: the word is not split, and nothing in it
 * (its side table included) conflicts with the access. Then this is exactly what
 * cell_access would do (it would report nothing) and true is returned; false leaves the
 * word to it. A write needs a->w (need_writes), a read a->r1 (need_reads). */
#define RACE_INLINE static inline __attribute__((always_inline))

RACE_INLINE bool write_fast(const RaceOrder *o, const RaceWords *a, uint64_t i, uint32_t tid,
                            RaceAccess now, uint32_t value)
{
    const uint32_t link = a->link ? a->link[i] : 0;
    if ((link & RACE_SPLIT) || (a->w[i].serial && !ordered_now(o, a->w[i], tid)))
        return false;
    if (a->r1 && a->r1[i].serial && !ordered_now(o, a->r1[i], tid))
        return false;
    /* the writer's own read since the last barrier makes this a read-modify-write */
    bool rmw = a->r1 && own_since_barrier(o, a->r1[i], tid);
    if (link) {
        /* the older reads of a word several agents read (see read_fast) */
        RaceMore *m = &a->more[link - 1];
        if ((m->r2.serial && !ordered_now(o, m->r2, tid)) ||
            (m->rx.serial && !ordered_now(o, m->rx, tid)))
            return false;
        rmw = rmw || own_since_barrier(o, m->r2, tid) || own_since_barrier(o, m->rx, tid);
        m->r2.serial = m->rx.serial = 0;
    }
    if (a->r1)
        a->r1[i].serial = 0;
    now.info |= rmw ? ACC_RMW : 0; /* ACC_WRITE | 2 */
    a->w[i] = now;
    a->value[i] = value;
    return true;
}

/* What insert_read does to word i for the access `now` (r1 its latest read, m its side
 * table or NULL), when it can: false, changing nothing, where that needs a side table the
 * word lacks (the general path makes it). */
RACE_INLINE bool note_read(const RaceOrder *o, const RaceWords *a, uint64_t i, uint32_t tid,
                           RaceAccess now, RaceAccess r1, RaceMore *m)
{
    const uint32_t agent = o->strict ? 0 : 5;
    if (r1.serial && (r1.serial < o->tg_first || r1.serial < o->rel)) {
        if (r1.serial < o->tg_first && !m)
            return false;
        if (m && m->r2.serial) { /* older than r1, so stale too */
            if (m->r2.serial < o->tg_first)
                m->rx = m->r2;
            m->r2.serial = 0;
        }
        if (r1.serial < o->tg_first)
            m->rx = r1;
        r1.serial = 0;
    }
    if (r1.serial && acc_tid(r1) >> agent != tid >> agent) {
        if (!m)
            return false;
        if (m->r2.serial && m->r2.serial < o->tg_first)
            m->rx = m->r2;
        m->r2 = r1;
    } else if (r1.serial && acc_kind(now) != ACC_READ && acc_kind(r1) == ACC_READ) {
        return true; /* as insert_read: the agent's plain read stays */
    }
    a->r1[i] = now;
    return true;
}

/* Whether remembered access x is there and unordered with the current one. */
RACE_INLINE bool unordered(const RaceOrder *o, RaceAccess x, uint32_t tid)
{
    return x.serial && !ordered_now(o, x, tid);
}

/* read_fast when no write or atomic has touched the shadow since the last barrier that
 * orders it (a tile read after it is filled): every write and atomic it remembers is then
 * ordered with the read, and only the reads since need looking at. */
RACE_INLINE bool read_quiet(const RaceOrder *o, const RaceWords *a, uint64_t i, uint32_t tid,
                            RaceAccess now)
{
    const uint32_t link = a->link ? a->link[i] : 0;
    if (link & RACE_SPLIT)
        return false;
    return note_read(o, a, i, tid, now, a->r1[i], link ? &a->more[link - 1] : NULL);
}

RACE_INLINE bool read_fast(const RaceOrder *o, const RaceWords *a, uint64_t i, uint32_t tid,
                           RaceAccess now)
{
    const uint32_t link = a->link ? a->link[i] : 0;
    if ((link & RACE_SPLIT) || (a->w && unordered(o, a->w[i], tid)))
        return false;
    const RaceAccess r1 = a->r1[i];
    /* A word read by several agents since the last barrier (a broadcast: a tile every
     * SIMD-group reads) has its older reads in a side table, m. Any atomic among the reads
     * this read is unordered with is a race: the general path reports it. */
    RaceMore *m = link ? &a->more[link - 1] : NULL;
    if (acc_kind(r1) == ACC_ATOMIC && unordered(o, r1, tid))
        return false;
    if (m && ((acc_kind(m->r2) == ACC_ATOMIC && unordered(o, m->r2, tid)) ||
              (acc_kind(m->rx) == ACC_ATOMIC && unordered(o, m->rx, tid))))
        return false;
    return note_read(o, a, i, tid, now, r1, m);
}

/* An atomic races with the plain accesses it is unordered with: the last write and the
 * reads since. When there are none, cell_access would record it as the last write and
 * then as the latest read (insert_read), which is what this does. Needs a->w and a->r1. */
RACE_INLINE bool atomic_fast(const RaceOrder *o, const RaceWords *a, uint64_t i, uint32_t tid,
                             RaceAccess now, uint32_t value)
{
    const uint32_t link = a->link ? a->link[i] : 0;
    if (link & RACE_SPLIT)
        return false;
    const RaceAccess w = a->w[i], r1 = a->r1[i];
    RaceMore *m = link ? &a->more[link - 1] : NULL;
    if ((acc_kind(w) != ACC_ATOMIC && unordered(o, w, tid)) ||
        (acc_kind(r1) != ACC_ATOMIC && unordered(o, r1, tid)) ||
        race_plain_live(ACC_ATOMIC, w, o->tg_first, o->rel)) /* kept as the last write: general path */
        return false;
    if (m && ((acc_kind(m->r2) != ACC_ATOMIC && unordered(o, m->r2, tid)) ||
              (acc_kind(m->rx) != ACC_ATOMIC && unordered(o, m->rx, tid))))
        return false;
    if (!note_read(o, a, i, tid, now, r1, m))
        return false;
    a->w[i] = now;
    a->value[i] = value;
    return true;
}

static RaceOrder race_order(const Race *r, const RaceCur *b, uint32_t sg)
{
    return (RaceOrder){
        .serial = b->serial, .tg_first = r->tg_first, .rel = r->rel[b->sp], .sg = sg,
        .simd_rel = sg < UTIL_ARRAY_LEN(r->simd_rel) ? r->simd_rel[sg][b->sp] : 0,
        .strict = r->strict,
    };
}

/* Whether words i0 .. i0 + 31 have never been accessed the way `kind` would conflict with:
 * none is linked (split, or with a side table), and for a read there is no write array and
 * no read; for a write, no read array and no write; for an atomic, no write and no read.
 * Then read_fast / write_fast / atomic_fast would accept each. */
static bool fresh_block(const RaceWords *a, uint8_t kind, uint64_t i0)
{
    uint32_t any = 0;
    if (kind == ACC_ATOMIC) { /* an atomic meets both: no write and no read */
        for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l++)
            any |= a->w[i0 + l].serial | a->r1[i0 + l].serial;
    } else {
        const RaceAccess *seen = kind == ACC_READ ? (a->w ? NULL : a->r1) : (a->r1 ? NULL : a->w);
        if (!seen)
            return false;
        for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l++)
            any |= seen[i0 + l].serial;
    }
    if (a->link && !any) /* no word of the block split or with older reads */
        for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l++)
            any |= a->link[i0 + l];
    return any == 0;
}

/* write_fast or atomic_fast, by the access's kind */
RACE_INLINE bool store_fast(const RaceOrder *o, const RaceWords *a, uint64_t i, uint32_t tid,
                            RaceAccess now, uint32_t value, uint8_t kind)
{
    return kind == ACC_ATOMIC ? atomic_fast(o, a, i, tid, now, value)
                              : write_fast(o, a, i, tid, now, value);
}

/* Lanes of `mask` whose word a later lane of `mask` reads too, looking 1, 2, 4, 8 and 16
 * lanes ahead (a row or a column of a tile in a 2D threadgroup); it may miss some. first[]
 * has SIM_SIMD_WIDTH + 16 entries, the ones past the lanes ignored. */
static uint32_t read_again(const uint32_t *first, uint32_t mask)
{
    uint32_t again = 0;
    for (uint32_t d = 1; d < SIM_SIMD_WIDTH; d *= 2) {
        uint32_t eq = 0;
#if defined(__AVX2__)
        for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l += 8) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(first + l));
            __m256i y = _mm256_loadu_si256((const __m256i *)(const void *)(first + l + d));
            eq |= (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(x, y))) << l;
        }
#else
        for (uint32_t l = 0; l + d < SIM_SIMD_WIDTH; l++)
            eq |= (uint32_t)(first[l] == first[l + d]) << l;
#endif
        again |= eq & mask & (mask >> d);
    }
    return again;
}

/* Lanes in `mask` of a whole-word access: lane l's words start at word first[l] (at
 * i0 + l * words when first is NULL). Each word goes to read_fast / write_fast /
 * atomic_fast, and the ones they decline, in lane order, to the general path. One loop per
 * kind for one-word lanes. */
RACE_INLINE void fast_lanes(Race *r, const SimGroupView *sg, RaceCur *b, const SimMemAccess *acc,
                            RaceShadow *sh, uint32_t mask, const uint32_t *first, uint64_t i0)
{
    const uint32_t sgi = sg->simdgroup, tid0 = sgi * SIM_SIMD_WIDTH, nwords = acc->bytes / 4;
    const RaceOrder o = race_order(r, b, sgi);
    const uint32_t info0 = RACE_INFO(b->index, 0, b->kind);
    RaceWords a = words_of(sh);
    if (!first && nwords == 1 && (b->kind == ACC_ATOMIC || !(b->kind == ACC_READ ? a.w : a.r1)) &&
        fresh_block(&a, b->kind, i0)) {
        /* the first access of each of 32 consecutive words: nothing to conflict with. An
         * atomic is then the last write and the latest read (what atomic_fast records). */
        RaceAccess *to = b->kind == ACC_READ ? a.r1 + i0 : a.w + i0;
        for (uint32_t lane = 0; lane < SIM_SIMD_WIDTH; lane++)
            to[lane] = (RaceAccess){o.serial, info0 | (tid0 + lane) << 2};
        if (b->kind == ACC_ATOMIC)
            memcpy(a.r1 + i0, to, SIM_SIMD_WIDTH * sizeof *to);
        if (b->kind != ACC_READ)
            for (uint32_t lane = 0; lane < SIM_SIMD_WIDTH; lane++)
                memcpy(&a.value[i0 + lane], acc->data[lane], 4);
        return;
    }
    if (nwords == 1 && b->kind == ACC_READ) {
        /* Lanes of one SIMD-group reading a word an earlier lane of this instruction read
         * without trouble (a broadcast) would find exactly what it found: the same write,
         * checked with the same answer (lanes of a SIMD-group are one agent, ordered alike
         * with everything), and that lane's read as the latest, which changes nothing but
         * which lane is the latest reader. So only the lanes `todo` that no later lane
         * repeats need visiting, as long as each passes read_fast. Not so when each thread
         * is its own agent (strict). */
        uint32_t todo = first && !o.strict ? mask & ~read_again(first, mask) : mask, m = todo;
        /* the threadgroup's writes and atomics all before its last barrier (see read_quiet):
         * tg_first <= each one's serial < rel, which ordered_now calls ordered */
        const bool quiet = b->sp == SP_TG && r->tg_store_serial < o.rel;
        while (m) {
            const uint32_t lane = (uint32_t)__builtin_ctz(m), tid = tid0 + lane;
            const RaceAccess now = {o.serial, info0 | tid << 2};
            const uint64_t i = first ? first[lane] : i0 + lane;
            if (UTIL_LIKELY(quiet ? read_quiet(&o, &a, i, tid, now)
                                  : read_fast(&o, &a, i, tid, now))) {
                m &= m - 1;
                continue;
            }
            if (todo != mask) {
                /* Some lane needs the general path, in lane order with the skipped ones:
                 * start again with every lane. The words settled so far pass again (see
                 * above) and end with their last reader; the rest are untouched. */
                todo = m = mask;
                continue;
            }
            race_lane_access(r, sg, b, acc, lane, 0);
            if (sh->dead)
                return;
            a = words_of(sh);
            m &= m - 1;
        }
        return;
    }
    if (nwords == 1) {
        for (; mask; mask &= mask - 1) {
            const uint32_t lane = (uint32_t)__builtin_ctz(mask), tid = tid0 + lane;
            const RaceAccess now = {o.serial, info0 | tid << 2};
            uint32_t v;
            memcpy(&v, acc->data[lane], 4);
            if (UTIL_LIKELY(store_fast(&o, &a, first ? first[lane] : i0 + lane, tid, now, v,
                                       b->kind)))
                continue;
            race_lane_access(r, sg, b, acc, lane, 0);
            if (sh->dead)
                return;
            a = words_of(sh);
        }
        return;
    }
    for (; mask; mask &= mask - 1) {
        const uint32_t lane = (uint32_t)__builtin_ctz(mask), tid = tid0 + lane;
        const RaceAccess now = {o.serial, info0 | tid << 2};
        const uint64_t i = first ? first[lane] : i0 + (uint64_t)lane * nwords;
        uint32_t k = 0;
        if (b->kind == ACC_READ) {
            while (k < nwords && read_fast(&o, &a, i + k, tid, now))
                k++;
        } else {
            for (; k < nwords; k++) {
                uint32_t v;
                memcpy(&v, acc->data[lane] + 4 * k, 4);
                if (!store_fast(&o, &a, i + k, tid, now, v, b->kind))
                    break;
            }
        }
        if (UTIL_UNLIKELY(k < nwords)) {
            race_lane_access(r, sg, b, acc, lane, k);
            if (sh->dead)
                return;
            a = words_of(sh);
        }
    }
}

/* fast_lanes compiled for each way of finding a lane's words */
static __attribute__((noinline)) void lanes_at(Race *r, const SimGroupView *sg, RaceCur *b,
                                               const SimMemAccess *acc, RaceShadow *sh,
                                               uint32_t mask, const uint32_t *first)
{
    fast_lanes(r, sg, b, acc, sh, mask, first, 0);
}

static __attribute__((noinline)) void lanes_from(Race *r, const SimGroupView *sg, RaceCur *b,
                                                 const SimMemAccess *acc, RaceShadow *sh,
                                                 uint64_t i0)
{
    fast_lanes(r, sg, b, acc, sh, 0xffffffffu, NULL, i0);
}

/* Lane `lane` of an atomic load (see ACC_ALOAD) by thread tid, when simple: one aligned
 * word, not split, whose last write is an atomic or ordered with it (plain, it would race:
 * cell_access reports it). Then the load joins the word's reads as insert_read would put
 * it, and true is returned; false changes nothing (the general path takes the lane). */
RACE_INLINE bool aload_fast(Race *r, const RaceOrder *o, const RaceCur *b,
                            const SimMemAccess *acc, uint32_t lane, uint32_t tid)
{
    uint64_t off = acc->addr[lane];
    RaceShadow *sh = &r->tg;
    if (b->sp == SP_DEV) {
        sh = race_device_shadow(r, off);
        off &= MEM_MAX_BUFFER_BYTES;
    }
    if (!sh || (off & 3) || off + 4 > sh->words * 4 || !sh->r1 || sh->dead)
        return false;
    const uint64_t i = off / 4;
    const uint32_t link = sh->link ? sh->link[i] : 0;
    const RaceWords a = words_of(sh);
    if ((link & RACE_SPLIT) || (a.w && a.w[i].serial && acc_kind(a.w[i]) != ACC_ATOMIC &&
                                !ordered_now(o, a.w[i], tid)))
        return false;
    const RaceAccess now = {b->serial, RACE_INFO(b->index, tid, ACC_ALOAD)};
    if (!note_read(o, &a, i, tid, now, a.r1[i], link ? &a.more[link - 1] : NULL))
        return false;
    if (b->sp == SP_TG && i + 1 > r->tg_hwm)
        r->tg_hwm = i + 1;
    return true;
}

/* An atomic load's lanes in `mask`, in lane order (the fast paths above know no loads). */
static __attribute__((noinline)) void aload_lanes(Race *r, const SimGroupView *sg, RaceCur *b,
                                                  const SimMemAccess *acc, uint32_t mask)
{
    const RaceOrder o = race_order(r, b, sg->simdgroup);
    const uint32_t tid0 = sg->simdgroup * SIM_SIMD_WIDTH;
    for (; mask; mask &= mask - 1) {
        const uint32_t lane = (uint32_t)__builtin_ctz(mask);
        if (acc->bytes != 4 || !aload_fast(r, &o, b, acc, lane, tid0 + lane))
            race_lane_access(r, sg, b, acc, lane, 0);
    }
}

/* ---- quiet threadgroup reads ------------------------------------------------------------- */

/* A threadgroup read while the threadgroup is quiet (no threadgroup write or atomic since the
 * last barrier ordering threadgroup memory: see read_quiet) races with nothing before it. It
 * matters only to a write or atomic before the next such barrier, which would race with it.
 * So such a read is logged instead of applied to the shadow, and then:
 *  - the next barrier ordering threadgroup memory drops the log. Every logged read is then
 *    ordered with every later access, and the shadow treats a remembered read that is
 *    ordered with everything later as it treats none: no finding, dropped by the next read
 *    or write of the word;
 *  - any other threadgroup access first applies the log, in order, which leaves the shadow
 *    as applying each read when it came would have (nothing it uses has changed since).
 * A tile read after the barrier that filled it (a tiled matmul's inner loop) then costs a
 * copy of its lanes' words. An instruction whose logged reads once had to be applied before
 * a write (a tree reduction reads, then writes) is applied at once from then on, as logging
 * would only add to its cost. Logging or not changes no finding, only the host's work. */
enum { QUIET_MAX = 1024 }; /* log entries; a full log is applied (memory stays flat) */

/* Word i of a logged read, applied: what fast_lanes, or race_lane_access after it, does. In
 * a quiet threadgroup the general path finds nothing to report: the read joins the word's. */
static void quiet_word(Race *r, const RaceOrder *o, RaceWords *a, uint64_t i, uint32_t tid,
                       RaceAccess now)
{
    if (read_quiet(o, a, i, tid, now))
        return;
    const RaceCur b = {.serial = now.serial, .index = now.info >> 12, .tid = (uint16_t)tid,
                       .kind = ACC_READ, .sp = SP_TG};
    race_word_read(r, &r->tg, i, &b);
    *a = words_of(&r->tg);
}

/* Applies the logged reads in order and empties the log. `needed`: a write or atomic wants
 * them, so their instructions are applied at once from now on. */
static void quiet_apply(Race *r, bool needed)
{
    for (size_t k = 0; k < r->num_quiet; k++) {
        const RaceQuiet *q = &r->quiet[k];
        if (needed)
            r->eager[q->info0 >> 12] = 1;
        const RaceOrder o = {.serial = q->serial, .tg_first = r->tg_first,
                             .rel = r->rel[SP_TG], .sg = q->sg, .strict = r->strict};
        RaceWords a = words_of(&r->tg);
        const uint32_t tid0 = q->sg * SIM_SIMD_WIDTH;
        for (uint32_t m = q->mask; m; m &= m - 1) {
            const uint32_t lane = (uint32_t)__builtin_ctz(m), tid = tid0 + lane;
            const RaceAccess now = {q->serial, q->info0 | tid << 2};
            const uint64_t i = q->coalesced ? q->i0 + (uint64_t)lane * q->nwords : q->first[lane];
            for (uint32_t w = 0; w < q->nwords; w++)
                quiet_word(r, &o, &a, i + w, tid, now);
        }
    }
    r->num_quiet = 0;
}

/* Whether a quiet read by instruction `index` is logged (not applied at once: see eager). */
static inline bool quiet_wanted(Race *r, uint32_t index)
{
    if (UTIL_UNLIKELY(!r->eager)) {
        const uint32_t n = r->s->program->count;
        r->num_eager = n < RACE_MAX_INDEX ? n : RACE_MAX_INDEX; /* the clamped index: eager */
        r->eager = util_calloc(r->num_eager + 1, 1);
    }
    return index < r->num_eager && !r->eager[index];
}

/* The log's next entry, not yet counted in (quiet_fill counts it). */
static inline RaceQuiet *quiet_next(Race *r)
{
    if (UTIL_UNLIKELY(r->num_quiet == QUIET_MAX))
        quiet_apply(r, false);
    if (UTIL_UNLIKELY(r->num_quiet == r->quiet_cap))
        util_reserve((void **)&r->quiet, &r->quiet_cap, r->num_quiet + 1, sizeof *r->quiet);
    return &r->quiet[r->num_quiet];
}

/* Logs a quiet threadgroup read that lanes_at (first) or lanes_from (first NULL, words from
 * i0) would take, in the entry quiet_next gave; its instruction must be quiet_wanted. */
static inline void quiet_fill(Race *r, RaceQuiet *q, const SimGroupView *sg, const RaceCur *b,
                              uint32_t mask, const uint32_t *first, uint64_t i0, uint32_t nwords)
{
    r->num_quiet++;
    q->serial = b->serial;
    q->info0 = RACE_INFO(b->index, 0, b->kind);
    q->sg = sg->simdgroup;
    q->mask = mask;
    q->nwords = nwords;
    q->coalesced = !first;
    q->i0 = i0;
    if (first && first != q->first)
        memcpy(q->first, first, sizeof q->first);
}

/* Logs the read when its instruction is quiet_wanted; false when it is applied at once
 * instead. */
static bool quiet_log(Race *r, const SimGroupView *sg, const RaceCur *b, uint32_t mask,
                      const uint32_t *first, uint64_t i0, uint32_t nwords)
{
    if (!quiet_wanted(r, b->index))
        return false;
    quiet_fill(r, quiet_next(r), sg, b, mask, first, i0, nwords);
    return true;
}

/* Before a threadgroup access takes the shadow as it is: the logged reads first. */
static inline void quiet_settle(Race *r, uint8_t sp)
{
    if (sp == SP_TG && r->num_quiet)
        quiet_apply(r, false);
}

/* One SimMemAccess, lane by lane in lane order (the order decides which access a finding
 * names first). Whole-word accesses to one shadow go through the fast paths, which settle
 * the common cases (a word no other thread touched since the last barrier, an atomic among
 * atomics) in a few compares; everything else, and every word they decline, takes the
 * general path. */
void race_on_mem_access(void *ctx, const SimGroupView *sg, const SimMemAccess *acc)
{
    Race *r = ctx;
    uint8_t sp;
    if (acc->space == MEM_SPACE_THREADGROUP)
        sp = SP_TG;
    else if (acc->space == MEM_SPACE_DEVICE || acc->space == MEM_SPACE_CONSTANT)
        sp = SP_DEV; /* a constant load may read any buffer (assembly can point one at a
                      * buffer the kernel writes): it races as a device load does; loads of
                      * buffers nothing writes are dropped below */
    else
        return;
    if (UTIL_UNLIKELY(r->serial >= UINT32_MAX - 2)) {
        r->exhausted = true;
        return;
    }
    const IsaProgram *prog = r->s->program;
    uintptr_t at = (uintptr_t)acc->inst, base = (uintptr_t)prog->code;
    int64_t index = at >= base && at < base + (uintptr_t)prog->count * sizeof *prog->code
                        ? (int64_t)((at - base) / sizeof *prog->code)
                        : isa_program_index_of_pc(prog, acc->inst->pc);
    RaceCur b = {
        .serial = ++r->serial, .pc = acc->inst->pc, .sp = sp,
        .index = index < 0 || index > RACE_MAX_INDEX ? RACE_MAX_INDEX : (uint32_t)index,
        .kind = acc->kind == SIM_ACCESS_READ ? ACC_READ : acc->kind == SIM_ACCESS_WRITE ? ACC_WRITE : ACC_ATOMIC,
        .aload = acc->kind == SIM_ACCESS_ATOMIC && is_atomic_load(acc->inst),
    };
    if (sp == SP_TG && b.kind != ACC_READ) {
        if (r->num_quiet) /* a write or atomic meets the logged reads (see quiet reads) */
            quiet_apply(r, true);
        r->tg_store_serial = b.serial;
    }
    const uint32_t bytes = acc->bytes;
    uint32_t mask = acc->lane_mask;
    if (!mask)
        return;
    if (b.aload) {
        quiet_settle(r, sp);
        aload_lanes(r, sg, &b, acc, mask);
        return;
    }
    const bool may_log = sp == SP_TG && b.kind == ACC_READ && r->tg_store_serial < r->rel[SP_TG];
    if (may_log && bytes && !(bytes & 3) && quiet_wanted(r, b.index) && need_arrays(&r->tg, ACC_READ)) {
        /* A quiet read (a tile read after the barrier that filled it): logged, each lane's
         * first word written straight into the log entry with the lanes' bounds in one pass
         * (without a mask to apply when every lane reads). Out of bounds or misaligned lanes
         * take the way below, which finds the words again. */
        RaceQuiet *q = quiet_next(r);
        uint32_t *first = q->first;
        uint64_t lo = ~(uint64_t)0, hi = 0;
        if (mask == 0xffffffffu) {
            for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l++) {
                const uint64_t a = acc->addr[l];
                first[l] = (uint32_t)(a / 4);
                lo &= a;
                hi |= a;
            }
        } else {
            for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l++) {
                const uint64_t on = 0 - (uint64_t)(mask >> l & 1), a = acc->addr[l];
                first[l] = (uint32_t)(a / 4);
                lo &= a | ~on;
                hi |= a & on;
            }
        }
        if (check_span_words_in((CheckSpan){lo, hi}, bytes, r->tg.words * 4)) {
            quiet_fill(r, q, sg, &b, mask, first, 0, bytes / 4);
            if ((hi + bytes + 3) / 4 > r->tg_hwm)
                r->tg_hwm = (hi + bytes + 3) / 4;
            return;
        }
    }
    if (sp == SP_DEV) {
        /* reads of a buffer the kernel cannot write (see find_writable) are left alone */
        uint64_t buffer = (acc->addr[__builtin_ctz(mask)] >> MEM_BUFFER_SHIFT) - 1;
        if (buffer < r->s->num_buffers && !r->s->writable[buffer] && b.kind == ACC_READ) {
            /* every active lane in that buffer? (a branch-free loop over all lanes) */
            uint64_t diff = 0, a0 = acc->addr[__builtin_ctz(mask)];
            for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l++)
                diff |= (acc->addr[l] ^ a0) & (0 - (uint64_t)(mask >> l & 1));
            if (!(diff >> MEM_BUFFER_SHIFT))
                return;
        }
    }
    /* The fast paths want whole words, every lane in one shadow. */
    const uint64_t off_mask = sp == SP_DEV ? MEM_MAX_BUFFER_BYTES : ~(uint64_t)0;
    const bool whole = bytes && !(bytes & 3);
    if (whole && mask == 0xffffffffu && race_coalesced(acc->addr, bytes)) {
        /* lane l at addr[0] + l * bytes: consecutive words, one bounds check */
        RaceShadow *sh = sp == SP_DEV ? race_device_shadow(r, acc->addr[0]) : &r->tg;
        const uint64_t off = acc->addr[0] & off_mask, end = off + (uint64_t)bytes * SIM_SIMD_WIDTH;
        if (sh && !(off & 3) && end <= sh->words * 4 && need_arrays(sh, b.kind)) {
            if (!may_log || !quiet_log(r, sg, &b, mask, NULL, off / 4, bytes / 4)) {
                quiet_settle(r, sp);
                /* 32 words each ordered with the access (a tile, a tree level) are taken in
                 * one pass; where the shadow has no array for the other kind of access,
                 * fast_lanes's fresh_block is quicker */
                if (!(bytes == 4 && b.kind != ACC_ATOMIC && (b.kind == ACC_READ ? sh->w : sh->r1) &&
                      race_block(r, sg, &b, acc, sh, off / 4)))
                    lanes_from(r, sg, &b, acc, sh, off / 4);
            }
            if (sp == SP_TG && end / 4 > r->tg_hwm)
                r->tg_hwm = end / 4;
            return;
        }
    }
    RaceShadow *sh = sp == SP_TG ? &r->tg : NULL;
    if (whole && sp == SP_DEV) {
        uint64_t a0 = acc->addr[__builtin_ctz(mask)], diff = 0;
        for (uint32_t m = mask; m; m &= m - 1)
            diff |= acc->addr[__builtin_ctz(m)] ^ a0;
        sh = diff >> MEM_BUFFER_SHIFT ? NULL : race_device_shadow(r, a0);
    }
    if (!sh || !whole || !need_arrays(sh, b.kind)) {
        quiet_settle(r, sp);
        for (; mask; mask &= mask - 1)
            race_lane_access(r, sg, &b, acc, (uint32_t)__builtin_ctz(mask), 0);
        return;
    }
    const uint64_t limit = sh->words * 4;
    uint32_t *first = r->lane_word;
    uint64_t hwm = 0;
    /* every lane, without a branch (lanes outside mask are computed and dropped) */
    for (uint32_t lane = 0; lane < SIM_SIMD_WIDTH; lane++)
        first[lane] = (uint32_t)((acc->addr[lane] & off_mask) / 4);
    const CheckSpan span = check_lane_span(acc->addr, mask, off_mask);
    if (check_span_words_in(span, bytes, limit)) {
        if (!may_log || !quiet_log(r, sg, &b, mask, first, 0, bytes / 4)) {
            quiet_settle(r, sp);
            lanes_at(r, sg, &b, acc, sh, mask, first);
        }
        hwm = span.hi + bytes;
    } else {
        quiet_settle(r, sp);
        uint32_t fast = 0;
        for (uint32_t lane = 0; lane < SIM_SIMD_WIDTH; lane++) {
            const uint64_t off = acc->addr[lane] & off_mask, end = off + bytes;
            const bool ok = (mask >> lane & 1) && !(off & 3) && end <= limit && end > off;
            fast |= (uint32_t)ok << lane;
            hwm = ok && end > hwm ? end : hwm;
        }
        /* some lane is unaligned or outside: keep lane order, one lane at a time */
        for (; mask; mask &= mask - 1) {
            const uint32_t lane = (uint32_t)__builtin_ctz(mask);
            if ((fast >> lane) & 1 && !sh->dead)
                lanes_at(r, sg, &b, acc, sh, 1u << lane, first);
            else
                race_lane_access(r, sg, &b, acc, lane, 0);
        }
    }
    if (sp == SP_TG && (hwm + 3) / 4 > r->tg_hwm)
        r->tg_hwm = (hwm + 3) / 4;
}
