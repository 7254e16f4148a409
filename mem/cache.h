/*
 * cache.h — the timing model of the memory hierarchy: a per-core L1, a shared L2, the
 * system-level cache (SLC) and DRAM, each with a size, line size, associativity, latency and
 * bandwidth. It answers one question: a line requested by core c at cycle `now` — when does
 * it arrive, and from which level? Bandwidth is modelled as each level's port being busy
 * for line_bytes / bytes_per_cycle cycles per line it moves, so streaming kernels saturate
 * at the configured bandwidth. Values only; the simulator decides what to do with them.
 * Also the threadgroup-memory bank model (cycles for one SIMD-group access).
 */
#ifndef LOCKSTEP_MEM_CACHE_H
#define LOCKSTEP_MEM_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/util.h"

typedef enum MemLevel { MEM_LEVEL_L1, MEM_LEVEL_L2, MEM_LEVEL_SLC, MEM_LEVEL_DRAM, MEM_LEVEL_COUNT } MemLevel;

extern const char *const mem_level_names[MEM_LEVEL_COUNT];

typedef struct MemCacheLevelConfig {
    uint64_t size_bytes;      /* 0: the level is absent (DRAM: unused) */
    uint32_t line_bytes;
    uint32_t ways;
    uint32_t latency;         /* cycles from request to data, without queueing */
    double bytes_per_cycle;   /* bandwidth of the level's port (per core for L1; shared otherwise) */
} MemCacheLevelConfig;

typedef struct MemHierarchyConfig {
    MemCacheLevelConfig level[MEM_LEVEL_COUNT];
    uint32_t cores;
} MemHierarchyConfig;

/* Limits that keep a mistyped config from asking for gigabytes of tags or minutes per
 * access; real GPUs sit far inside them. mem_hierarchy_config_check enforces them; a config
 * reader may check each field against them where it was written. */
#define MEM_CACHE_MAX_CORES 4096u
#define MEM_CACHE_MAX_WAYS 256u
#define MEM_CACHE_MIN_LINE 4u
#define MEM_CACHE_MAX_LINE 65536u
#define MEM_CACHE_MAX_LINES (1ull << 22) /* per level, all cores' L1s together */
#define MEM_CACHE_MIN_BYTES_PER_CYCLE 0.001

typedef struct MemLevelStats {
    uint64_t hits, misses;
    uint64_t bytes;           /* bytes this level delivered */
} MemLevelStats;

typedef struct MemHierarchy MemHierarchy;

/* Whether cfg describes a hierarchy this model can build; when not, err says which level and
 * field is wrong ("memory hierarchy: L2: size ... is not a whole number of sets ..."). Rules:
 * 1 <= cores <= 4096; a cache level of size 0 is absent; a present one has a power-of-two
 * line_bytes (4..65536), 1..256 ways, a size that is a whole number of sets (any set count),
 * lines no smaller than those of the levels above it; DRAM's line_bytes is 0 (the line of the
 * level above) or obeys the same rules; every present level has bytes_per_cycle >= 0.001. */
bool mem_hierarchy_config_check(const MemHierarchyConfig *cfg, UtilError *err);
/* NULL when mem_hierarchy_config_check fails: check first to get the message. */
MemHierarchy *mem_hierarchy_new(const MemHierarchyConfig *cfg);
void mem_hierarchy_free(MemHierarchy *h);
/* A request for the line holding `addr` by core `core` at cycle `now`. Returns the cycle the
 * data is available; *level (when not NULL) says where it was found. Writes allocate in L1
 * (write-back is not modelled: a write costs like a read of its line). */
uint64_t mem_hierarchy_access(MemHierarchy *h, uint32_t core, uint64_t addr, bool is_write,
                              uint64_t now, MemLevel *level);
const MemLevelStats *mem_hierarchy_stats(const MemHierarchy *h); /* MEM_LEVEL_COUNT entries */

/* Threadgroup memory: cycles one SIMD-group access of `lanes` addresses (byte offsets, active
 * lanes in mask) takes with `banks` banks of `bank_bytes` bytes: the most accesses any bank
 * serves (lanes reading the same word share one access). */
uint32_t mem_tg_bank_cycles(const uint64_t *addr, uint32_t mask, uint32_t banks, uint32_t bank_bytes);

#endif
