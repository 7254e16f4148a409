/*
 * cache.c — the memory hierarchy's timing model (cache.h): tag arrays with LRU for the
 * per-core L1, the shared L2 and the SLC, a bandwidth port per level, and the threadgroup-
 * memory bank model. It holds no data, only tags: the functional simulator owns the bytes.
 *
 * Lookup. A request for the line holding `addr` walks L1 (of the requesting core) -> L2 ->
 * SLC -> DRAM and stops at the first level that holds it; DRAM always does. Every cache level
 * it missed allocates the line (LRU victim), so a miss fills every level above the one that
 * hit. Writes allocate exactly like reads. Each way remembers when its line's data arrives
 * (the completion of the request that allocated it), so a request that finds a line still
 * being fetched — another SIMD-group's miss a few cycles earlier, in this core's L1 or in
 * L2 — waits for that fill, as an MSHR merge does, rather than getting the data before it
 * came (it counts as a hit where it found the line, and its port is charged as for a hit).
 * Not modelled: write-back traffic and dirty state (a write costs what a read of its line
 * costs), back-invalidation (a line evicted from L2 or the SLC stays in the L1s that hold
 * it: inclusive on fill, not enforced afterwards), coherence between L1s, prefetching.
 * A level of size 0 is absent and skipped.
 *
 * Timing. Only the level that serves a request is charged. Each level has a port (L1: one per
 * core; L2, SLC and DRAM: one each, shared by all cores) that moves one of its lines in
 *     transfer = line_bytes / bytes_per_cycle  cycles
 * (a fraction, kept to 2^-32 of a cycle, rounded down) and serves requests in the order they
 * are made. With port_free the time it finishes its
 * previous transfer:
 *     start      = max(now, port_free)
 *     port_free  = start + transfer
 *     completion = ceil(start + transfer) + latency
 * where latency is the level's configured end-to-end latency (L2 hit = L2 latency, a DRAM
 * access = DRAM latency, as the published measurements are). Back-to-back requests to one
 * level therefore complete at exactly bytes_per_cycle in the long run. DRAM's line_bytes may
 * be 0, meaning the line of the nearest cache level above it.
 *
 * Statistics: a cache level counts a hit or a miss per lookup that reached it; DRAM counts
 * every request it serves as a hit. bytes is what the level served (its line per request).
 *
 * Everything is deterministic: LRU uses per-array use counters, never host addresses, time
 * or randomness. An access costs O(ways) per level looked up (with AVX2, four ways a
 * compare) and allocates nothing.
 */
#include "cache.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

const char *const mem_level_names[MEM_LEVEL_COUNT] = {
    [MEM_LEVEL_L1] = "L1",
    [MEM_LEVEL_L2] = "L2",
    [MEM_LEVEL_SLC] = "SLC",
    [MEM_LEVEL_DRAM] = "DRAM",
};

/* The limits (cache.h) under shorter names. */
#define CACHE_MAX_CORES MEM_CACHE_MAX_CORES
#define CACHE_MAX_WAYS MEM_CACHE_MAX_WAYS
#define CACHE_MIN_LINE MEM_CACHE_MIN_LINE
#define CACHE_MAX_LINE MEM_CACHE_MAX_LINE
#define CACHE_MAX_LINES MEM_CACHE_MAX_LINES
#define CACHE_MIN_BYTES_PER_CYCLE MEM_CACHE_MIN_BYTES_PER_CYCLE
#define FRAC_ONE (1ull << 32)

/* A cache level's tags, set-major (set s holds ways s * assoc .. s * assoc + assoc - 1), as
 * two arrays so that a set's lines, then its stamps, are each compared a vector at a time. */
typedef struct CacheArray {
    uint64_t *lines;   /* each way's line (addr >> line_shift) */
    uint64_t *stamps;  /* each way's last use; 0: the way is empty (in lines' allocation) */
    uint64_t *ready;   /* each way's fill: the cycle its line's data arrives (ditto) */
    uint64_t sets;
    uint64_t set_mask; /* sets - 1 when sets is a power of two */
    bool sets_pow2;
    uint32_t assoc;
    uint32_t line_shift;
    uint64_t clock; /* use counter for LRU stamps */
} CacheArray;

/* A time with a fraction of a cycle in units of 2^-32, so that transfers such as
 * 128 / 9.5 cycles add up without drift. */
typedef struct PortTime {
    uint64_t cycle;
    uint64_t frac;
} PortTime;

typedef struct LevelTiming {
    PortTime transfer;
    uint32_t latency;
    uint32_t bytes; /* served per request */
} LevelTiming;

struct MemHierarchy {
    uint32_t cores;
    bool present[MEM_LEVEL_COUNT];
    LevelTiming timing[MEM_LEVEL_COUNT];
    CacheArray *l1;      /* cores entries (when L1 is present) */
    CacheArray l2, slc;
    PortTime *l1_port;   /* cores entries */
    PortTime port[MEM_LEVEL_COUNT]; /* shared ports: L2, SLC, DRAM */
    MemLevelStats stats[MEM_LEVEL_COUNT];
};

static bool is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

static uint32_t log2_u64(uint64_t x)
{
    uint32_t n = 0;
    while (x > 1) {
        x >>= 1;
        n++;
    }
    return n;
}

static bool level_present(const MemHierarchyConfig *cfg, MemLevel lv)
{
    return lv == MEM_LEVEL_DRAM || cfg->level[lv].size_bytes != 0;
}

/* The line DRAM moves: its own, else that of the nearest present cache above it. */
static uint32_t dram_line_bytes(const MemHierarchyConfig *cfg)
{
    if (cfg->level[MEM_LEVEL_DRAM].line_bytes)
        return cfg->level[MEM_LEVEL_DRAM].line_bytes;
    for (int lv = MEM_LEVEL_SLC; lv >= MEM_LEVEL_L1; lv--)
        if (level_present(cfg, (MemLevel)lv))
            return cfg->level[lv].line_bytes;
    return 0;
}

static bool check_bandwidth(const MemCacheLevelConfig *c, const char *name, UtilError *err)
{
    if (!isfinite(c->bytes_per_cycle) || c->bytes_per_cycle < CACHE_MIN_BYTES_PER_CYCLE)
        return util_fail(err, "memory hierarchy: %s: bytes_per_cycle must be a number of at "
                              "least %g (got %g)", name, CACHE_MIN_BYTES_PER_CYCLE,
                         c->bytes_per_cycle);
    return true;
}

static bool check_line(uint32_t line, const char *name, UtilError *err)
{
    if (!is_pow2(line) || line < CACHE_MIN_LINE || line > CACHE_MAX_LINE)
        return util_fail(err, "memory hierarchy: %s: line_bytes must be a power of two from "
                              "%u to %u (got %u)", name, CACHE_MIN_LINE, CACHE_MAX_LINE, line);
    return true;
}

static bool check_cache_level(const MemHierarchyConfig *cfg, MemLevel lv, UtilError *err)
{
    const MemCacheLevelConfig *c = &cfg->level[lv];
    const char *name = mem_level_names[lv];
    if (!check_line(c->line_bytes, name, err))
        return false;
    if (c->ways < 1 || c->ways > CACHE_MAX_WAYS)
        return util_fail(err, "memory hierarchy: %s: ways must be from 1 to %u (got %u)", name,
                         CACHE_MAX_WAYS, c->ways);
    uint64_t set_bytes = (uint64_t)c->line_bytes * c->ways;
    if (c->size_bytes % set_bytes != 0)
        return util_fail(err, "memory hierarchy: %s: size %llu bytes is not a whole number of "
                              "sets of %u ways x %u-byte lines (%llu bytes a set)", name,
                         (unsigned long long)c->size_bytes, c->ways, c->line_bytes,
                         (unsigned long long)set_bytes);
    uint64_t lines = c->size_bytes / c->line_bytes;
    uint64_t copies = lv == MEM_LEVEL_L1 ? cfg->cores : 1;
    if (lines > CACHE_MAX_LINES / copies)
        return util_fail(err, "memory hierarchy: %s: %llu lines%s is more than this model "
                              "supports (%llu)", name, (unsigned long long)lines,
                         lv == MEM_LEVEL_L1 ? " per core" : "",
                         (unsigned long long)(CACHE_MAX_LINES / copies));
    return check_bandwidth(c, name, err);
}

bool mem_hierarchy_config_check(const MemHierarchyConfig *cfg, UtilError *err)
{
    if (!cfg)
        return util_fail(err, "memory hierarchy: no configuration");
    if (cfg->cores < 1 || cfg->cores > CACHE_MAX_CORES)
        return util_fail(err, "memory hierarchy: cores must be from 1 to %u (got %u)",
                         CACHE_MAX_CORES, cfg->cores);
    int above = -1; /* the nearest present cache level checked so far */
    for (int lv = MEM_LEVEL_L1; lv < MEM_LEVEL_DRAM; lv++) {
        if (!level_present(cfg, (MemLevel)lv))
            continue;
        if (!check_cache_level(cfg, (MemLevel)lv, err))
            return false;
        if (above >= 0 && cfg->level[lv].line_bytes < cfg->level[above].line_bytes)
            return util_fail(err, "memory hierarchy: %s: line_bytes %u is smaller than %s's %u; "
                                  "a level's line must hold a whole line of each level above it",
                             mem_level_names[lv], cfg->level[lv].line_bytes,
                             mem_level_names[above], cfg->level[above].line_bytes);
        above = lv;
    }
    const MemCacheLevelConfig *dram = &cfg->level[MEM_LEVEL_DRAM];
    if (dram->line_bytes) {
        if (!check_line(dram->line_bytes, "DRAM", err))
            return false;
        if (above >= 0 && dram->line_bytes < cfg->level[above].line_bytes)
            return util_fail(err, "memory hierarchy: DRAM: line_bytes %u is smaller than %s's %u; "
                                  "a level's line must hold a whole line of each level above it",
                             dram->line_bytes, mem_level_names[above],
                             cfg->level[above].line_bytes);
    } else if (above < 0) {
        return util_fail(err, "memory hierarchy: DRAM: line_bytes must be set when no cache "
                              "level is present");
    }
    return check_bandwidth(dram, "DRAM", err);
}

static void cache_init(CacheArray *a, const MemCacheLevelConfig *c)
{
    a->assoc = c->ways;
    a->sets = c->size_bytes / ((uint64_t)c->line_bytes * c->ways);
    a->sets_pow2 = is_pow2(a->sets);
    a->set_mask = a->sets - 1;
    a->line_shift = log2_u64(c->line_bytes);
    a->clock = 0;
    /* Written, not calloc'ed: a lookup reads a way before it is ever written, which on a
     * fresh calloc page maps the shared zero page, and the first write is then a
     * copy-on-write that interrupts every CPU running the process (two-pass checking
     * runs a second thread). */
    const size_t ways = (size_t)(a->sets * a->assoc);
    a->lines = util_malloc(3 * ways * sizeof *a->lines);
    util_populate(a->lines, 3 * ways * sizeof *a->lines);
    memset(a->lines, 0, 3 * ways * sizeof *a->lines);
    a->stamps = a->lines + ways;
    a->ready = a->lines + 2 * ways;
}

/* The way of n holding `line` (its stamp not 0), or n. */
static inline uint32_t find_way(const uint64_t *ln, const uint64_t *st, uint32_t n, uint64_t line)
{
#if defined(__AVX2__)
    if (!(n & 3)) {
        const __m256i key = _mm256_set1_epi64x((long long)line), zero = _mm256_setzero_si256();
        for (uint32_t i = 0; i < n; i += 4) {
            const __m256i l = _mm256_loadu_si256((const __m256i *)(const void *)(ln + i));
            const __m256i s = _mm256_loadu_si256((const __m256i *)(const void *)(st + i));
            const __m256i hit = _mm256_andnot_si256(_mm256_cmpeq_epi64(s, zero),
                                                    _mm256_cmpeq_epi64(l, key));
            const int m = _mm256_movemask_pd(_mm256_castsi256_pd(hit));
            if (m)
                return i + (uint32_t)__builtin_ctz((unsigned)m);
        }
        return n;
    }
#endif
    for (uint32_t i = 0; i < n; i++)
        if (st[i] && ln[i] == line)
            return i;
    return n;
}

/* The first of n ways with the smallest stamp: an empty one (0) if any, else the least
 * recently used (stamps are distinct, and below 2^63, so signed compares order them). */
static inline uint32_t oldest_way(const uint64_t *st, uint32_t n)
{
#if defined(__AVX2__)
    if (!(n & 3)) {
        __m256i m = _mm256_loadu_si256((const __m256i *)(const void *)st);
        for (uint32_t i = 4; i < n; i += 4) {
            const __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(st + i));
            m = _mm256_blendv_epi8(m, x, _mm256_cmpgt_epi64(m, x));
        }
        const __m128i lo = _mm256_castsi256_si128(m), hi = _mm256_extracti128_si256(m, 1);
        const __m128i m2 = _mm_blendv_epi8(lo, hi, _mm_cmpgt_epi64(lo, hi));
        const int64_t a0 = _mm_cvtsi128_si64(m2), a1 = _mm_extract_epi64(m2, 1);
        const __m256i key = _mm256_set1_epi64x(a0 < a1 ? a0 : a1);
        for (uint32_t i = 0;; i += 4) {
            const __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(st + i));
            const int eq = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(x, key)));
            if (eq)
                return i + (uint32_t)__builtin_ctz((unsigned)eq);
        }
    }
#endif
    uint32_t victim = 0;
    for (uint32_t i = 1; i < n; i++)
        if (st[i] < st[victim])
            victim = i;
    return victim;
}

/* Looks the line of addr up; on a miss, allocates it in place of the set's least recently
 * used way (an empty way first). Returns whether it hit; *way receives the way's index in the
 * array (for its fill time). */
static bool cache_touch(CacheArray *a, uint64_t addr, size_t *way)
{
    const uint64_t line = addr >> a->line_shift;
    const uint64_t set = a->sets_pow2 ? (line & a->set_mask) : (line % a->sets);
    uint64_t *ln = a->lines + set * a->assoc, *st = a->stamps + set * a->assoc;
    const uint64_t stamp = ++a->clock;
    uint32_t i = find_way(ln, st, a->assoc, line);
    const bool hit = i < a->assoc;
    if (!hit) {
        i = oldest_way(st, a->assoc);
        ln[i] = line;
    }
    st[i] = stamp;
    *way = (size_t)(set * a->assoc + i);
    return hit;
}

static PortTime transfer_time(uint32_t bytes, double bytes_per_cycle)
{
    double cycles = (double)bytes / bytes_per_cycle;
    PortTime t = {(uint64_t)floor(cycles), 0};
    /* Rounded down, so n transfers of p/q cycles never pass an exact integer and ceil()
     * stays exact where the true sum is whole. */
    double frac = floor((cycles - (double)t.cycle) * (double)FRAC_ONE);
    t.frac = frac >= (double)FRAC_ONE ? FRAC_ONE - 1 : (uint64_t)frac;
    return t;
}

MemHierarchy *mem_hierarchy_new(const MemHierarchyConfig *cfg)
{
    if (!mem_hierarchy_config_check(cfg, NULL))
        return NULL;
    MemHierarchy *h = util_calloc(1, sizeof *h);
    h->cores = cfg->cores;
    for (int lv = 0; lv < MEM_LEVEL_COUNT; lv++) {
        h->present[lv] = level_present(cfg, (MemLevel)lv);
        if (!h->present[lv])
            continue;
        const MemCacheLevelConfig *c = &cfg->level[lv];
        uint32_t bytes = lv == MEM_LEVEL_DRAM ? dram_line_bytes(cfg) : c->line_bytes;
        h->timing[lv].bytes = bytes;
        h->timing[lv].latency = c->latency;
        h->timing[lv].transfer = transfer_time(bytes, c->bytes_per_cycle);
    }
    if (h->present[MEM_LEVEL_L1]) {
        h->l1 = util_calloc(h->cores, sizeof *h->l1);
        for (uint32_t i = 0; i < h->cores; i++)
            cache_init(&h->l1[i], &cfg->level[MEM_LEVEL_L1]);
    }
    h->l1_port = util_calloc(h->cores, sizeof *h->l1_port);
    if (h->present[MEM_LEVEL_L2])
        cache_init(&h->l2, &cfg->level[MEM_LEVEL_L2]);
    if (h->present[MEM_LEVEL_SLC])
        cache_init(&h->slc, &cfg->level[MEM_LEVEL_SLC]);
    return h;
}

void mem_hierarchy_free(MemHierarchy *h)
{
    if (!h)
        return;
    if (h->l1)
        for (uint32_t i = 0; i < h->cores; i++)
            free(h->l1[i].lines);
    free(h->l1);
    free(h->l1_port);
    free(h->l2.lines);
    free(h->slc.lines);
    free(h);
}

/* Occupies the port for one transfer starting no earlier than now; returns the cycle the
 * data is available (see the formula at the top of this file). */
static uint64_t port_serve(PortTime *port, uint64_t now, const LevelTiming *t)
{
    PortTime start = *port;
    if (now > start.cycle || (now == start.cycle && start.frac == 0))
        start = (PortTime){now, 0};
    uint64_t frac = start.frac + t->transfer.frac;
    port->cycle = start.cycle + t->transfer.cycle + (frac >> 32);
    port->frac = frac & (FRAC_ONE - 1);
    return port->cycle + (port->frac != 0) + t->latency;
}

uint64_t mem_hierarchy_access(MemHierarchy *h, uint32_t core, uint64_t addr, bool is_write,
                              uint64_t now, MemLevel *level)
{
    (void)is_write; /* write-allocate, no write-back: a write costs a read of its line */
    if (UTIL_UNLIKELY(core >= h->cores))
        core %= h->cores; /* a caller bug must not index out of bounds */
    MemLevel served = MEM_LEVEL_DRAM;
    PortTime *port = &h->port[MEM_LEVEL_DRAM];
    CacheArray *arrays[MEM_LEVEL_DRAM] = {h->l1 ? &h->l1[core] : NULL, &h->l2, &h->slc};
    size_t way[MEM_LEVEL_DRAM] = {0};
    if (h->present[MEM_LEVEL_L1] && cache_touch(arrays[MEM_LEVEL_L1], addr, &way[MEM_LEVEL_L1])) {
        served = MEM_LEVEL_L1;
        port = &h->l1_port[core];
    } else if (h->present[MEM_LEVEL_L2] && cache_touch(&h->l2, addr, &way[MEM_LEVEL_L2])) {
        served = MEM_LEVEL_L2;
        port = &h->port[MEM_LEVEL_L2];
    } else if (h->present[MEM_LEVEL_SLC] && cache_touch(&h->slc, addr, &way[MEM_LEVEL_SLC])) {
        served = MEM_LEVEL_SLC;
        port = &h->port[MEM_LEVEL_SLC];
    }
    h->stats[served].hits++;
    h->stats[served].bytes += h->timing[served].bytes;
    if (level)
        *level = served;
    uint64_t done = port_serve(port, now, &h->timing[served]);
    /* A line an earlier miss is still fetching: its data comes when that fill does. */
    if (served != MEM_LEVEL_DRAM && arrays[served]->ready[way[served]] > done)
        done = arrays[served]->ready[way[served]];
    /* Every present cache level above `served` was looked up, missed, and now holds the
     * line, whose data arrives with this request's. */
    for (int lv = MEM_LEVEL_L1; lv < (int)served; lv++)
        if (h->present[lv]) {
            h->stats[lv].misses++;
            arrays[lv]->ready[way[lv]] = done;
        }
    return done;
}

const MemLevelStats *mem_hierarchy_stats(const MemHierarchy *h) { return h->stats; }

/* Threadgroup banks. Only first occurrences of a word count (later lanes reading it share
 * the access). The usual patterns — a stride of any number of words, a broadcast — are
 * arithmetic progressions of words in lane order, which have a closed form: banks repeat
 * every B / gcd(stride mod B, B) lanes, so the busiest bank serves ceil(n / period) words.
 * Anything else takes the general path: repeats are dropped with a small hash set of the
 * words, and distinct words are counted per bank in a 64-slot table probed from bank % 64:
 * at most 32 banks are in use, so it never fills, whatever the bank count. */
static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Cycles for n distinct words in arithmetic progression (step != 0) over `banks` banks. */
static uint32_t progression_cycles(uint64_t step, uint32_t n, uint32_t banks)
{
    uint64_t mag = (int64_t)step < 0 ? 0 - step : step, period;
    if (is_pow2(banks)) { /* gcd(stride, B) is stride's lowest set bit, or B: no division */
        uint64_t stride = mag & (banks - 1);
        period = stride ? banks >> __builtin_ctzll(stride) : 1;
    } else {
        period = banks / gcd_u64(mag % banks, banks); /* gcd(0, B) = B: period 1 */
    }
    return (uint32_t)((n + period - 1) / period);
}

/* Two more closed forms, for all 32 lanes: the words repeat with a period p (lane i reads
 * lane i - p's word: a 16-wide tile row read by both halves of a SIMD-group), or come in
 * blocks of p equal words (one word per 16-lane tile row). The distinct words are then the
 * first p, or every p-th, and when those are a progression (step != 0: all distinct) the
 * busiest bank serves progression_cycles of them. False when neither form fits. */
static bool repeat_cycles(const uint64_t *word, uint32_t banks, uint32_t *cycles)
{
    for (uint32_t p = 16; p >= 2; p /= 2) {
        uint64_t periodic = 0, blocks = 0;
        for (uint32_t i = p; i < 32; i++)
            periodic |= word[i] ^ word[i - p];
        for (uint32_t i = 0; i < 32; i++)
            blocks |= word[i] ^ word[i & ~(p - 1)];
        for (int form = 0; form < 2; form++) {
            if (form == 0 ? periodic : blocks)
                continue;
            /* the distinct words: lanes 0..p-1, or lanes 0, p, 2p, ... */
            uint32_t n = form == 0 ? p : 32 / p, gap = form == 0 ? 1 : p;
            uint64_t step = word[gap] - word[0], off = 0;
            for (uint32_t j = 2; j < n; j++)
                off |= (word[j * gap] - word[(j - 1) * gap]) ^ step;
            if (off == 0 && step != 0) {
                *cycles = progression_cycles(step, n, banks);
                return true;
            }
        }
    }
    return false;
}

uint32_t mem_tg_bank_cycles(const uint64_t *addr, uint32_t mask, uint32_t banks, uint32_t bank_bytes)
{
    if (!mask)
        return 0;
    if (banks == 0)
        banks = 1; /* a nonsense parameter still yields a finite, serialising answer */
    if (bank_bytes == 0)
        bank_bytes = 1;
    uint64_t word[32];
    uint32_t n = 0;
    bool shift_ok = is_pow2(bank_bytes);
    uint32_t byte_shift = shift_ok ? log2_u64(bank_bytes) : 0;
    /* Below 2^62 the differences are exact as int64 and no progression wraps. */
    uint64_t step, off_step = 0, high;
    if (mask == UINT32_MAX && shift_ok) { /* the common case: one pass, no compaction */
        uint64_t prev = addr[0] >> byte_shift;
        step = (addr[1] >> byte_shift) - prev;
        high = word[0] = prev;
        for (uint32_t i = 1; i < 32; i++) {
            uint64_t w = addr[i] >> byte_shift;
            off_step |= (w - prev) ^ step;
            high |= w;
            word[i] = prev = w;
        }
        n = 32;
    } else {
        for (uint32_t m = mask; m; m &= m - 1) {
            uint32_t lane = (uint32_t)__builtin_ctz(m);
            word[n++] = shift_ok ? addr[lane] >> byte_shift : addr[lane] / bank_bytes;
        }
        if (n == 1)
            return 1;
        step = word[1] - word[0];
        high = word[0];
        for (uint32_t i = 1; i < n; i++) {
            off_step |= (word[i] - word[i - 1]) ^ step;
            high |= word[i];
        }
    }
    if (off_step == 0 && high >> 62 == 0)
        return step == 0 ? 1 : progression_cycles(step, n, banks); /* step 0: a broadcast */
    uint32_t cycles;
    if (n == 32 && high >> 62 == 0 && repeat_cycles(word, banks, &cycles))
        return cycles;
    /* Distinct words go into a 64-slot set (32 at most: it never fills), and each new one
     * is counted against its bank; both tables are open-addressed, their occupancy in a
     * bitmask so nothing needs clearing. */
    bool bank_mask = is_pow2(banks);
    uint64_t seen[64], seen_used = 0, bank_used = 0;
    uint32_t key[64];
    uint8_t count[64];
    uint32_t most = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t h = (uint32_t)((word[i] * 0x9E3779B97F4A7C15ull) >> 58);
        while ((seen_used >> h & 1) && seen[h] != word[i])
            h = (h + 1) & 63;
        if (seen_used >> h & 1)
            continue; /* a repeat: served by the first lane's access */
        seen_used |= 1ull << h;
        seen[h] = word[i];
        uint32_t bank = (uint32_t)(bank_mask ? word[i] & (banks - 1) : word[i] % banks);
        uint32_t slot = bank & 63;
        while ((bank_used >> slot & 1) && key[slot] != bank)
            slot = (slot + 1) & 63;
        if (!(bank_used >> slot & 1)) {
            bank_used |= 1ull << slot;
            key[slot] = bank;
            count[slot] = 0;
        }
        if (++count[slot] > most)
            most = count[slot];
    }
    return most;
}
