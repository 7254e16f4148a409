/*
 * test_cache.c — pins the memory-hierarchy timing model of cache.h against hand-worked
 * cases: LRU eviction order in a 2-set x 2-way L1, fill of every level above the one that
 * hit, separate L1s per core, the latency of each level, port queueing and the DRAM rate
 * over many back-to-back lines, a non-power-of-two set count, statistics, the threadgroup
 * bank model for stride patterns (and random ones against a brute-force count), and the
 * messages of config validation. Expected cycles come from the formula
 * completion = ceil(max(now, port_free) + line / bytes_per_cycle) + latency.
 */
#include "test_util.h"

#include "../../mem/cache.h"

static MemCacheLevelConfig level(uint64_t size, uint32_t line, uint32_t ways, uint32_t latency,
                                 double bytes_per_cycle)
{
    return (MemCacheLevelConfig){size, line, ways, latency, bytes_per_cycle};
}

/* 128-byte lines; transfers of 2 (L1), 4 (L2), 8 (SLC), 16 (DRAM) cycles. L1 4 sets x 2 ways,
 * L2 8 sets x 4 ways, SLC 32 sets x 4 ways. */
static MemHierarchyConfig small_config(uint32_t cores)
{
    MemHierarchyConfig cfg = {.cores = cores};
    cfg.level[MEM_LEVEL_L1] = level(1024, 128, 2, 3, 64);
    cfg.level[MEM_LEVEL_L2] = level(4096, 128, 4, 20, 32);
    cfg.level[MEM_LEVEL_SLC] = level(16384, 128, 4, 50, 16);
    cfg.level[MEM_LEVEL_DRAM] = level(0, 0, 0, 100, 8);
    return cfg;
}

/* M1-like: 8 KB L1, 768 KB L2 (12 ways), 8 MB SLC, DRAM at 9.5 B/cycle. */
static MemHierarchyConfig m1_like(void)
{
    MemHierarchyConfig cfg = {.cores = 8};
    cfg.level[MEM_LEVEL_L1] = level(8192, 128, 4, 30, 64);
    cfg.level[MEM_LEVEL_L2] = level(768 * 1024, 128, 12, 97, 32);
    cfg.level[MEM_LEVEL_SLC] = level(8 << 20, 128, 16, 340, 18);
    cfg.level[MEM_LEVEL_DRAM] = level(0, 128, 0, 397, 9.5);
    return cfg;
}

static MemLevel access_level(MemHierarchy *h, uint32_t core, uint64_t addr, uint64_t now)
{
    MemLevel lv = MEM_LEVEL_COUNT;
    mem_hierarchy_access(h, core, addr, false, now, &lv);
    return lv;
}

static void test_lru_two_sets_two_ways(void **state)
{
    (void)state;
    /* L1 only: 16-byte lines, 2 sets x 2 ways; line n is in set n & 1. */
    MemHierarchyConfig cfg = {.cores = 1};
    cfg.level[MEM_LEVEL_L1] = level(64, 16, 2, 1, 16);
    cfg.level[MEM_LEVEL_DRAM] = level(0, 0, 0, 10, 16);
    MemHierarchy *h = mem_hierarchy_new(&cfg);
    assert_non_null(h);
    static const struct { uint64_t addr; MemLevel expect; } seq[] = {
        {0, MEM_LEVEL_DRAM},   /* line 0 -> set 0 {0} */
        {32, MEM_LEVEL_DRAM},  /* line 2 -> set 0 {0, 2} */
        {0, MEM_LEVEL_L1},     /* 0 most recent */
        {64, MEM_LEVEL_DRAM},  /* line 4 evicts 2, the least recent */
        {4, MEM_LEVEL_L1},     /* line 0 again, now newer than 4 */
        {32, MEM_LEVEL_DRAM},  /* line 2 evicts 4 */
        {64, MEM_LEVEL_DRAM},  /* line 4 evicts 0 */
        {16, MEM_LEVEL_DRAM},  /* line 1 -> set 1, leaves set 0 alone */
        {40, MEM_LEVEL_L1},    /* line 2 still there */
        {8, MEM_LEVEL_DRAM},   /* line 0 evicts 4 */
        {20, MEM_LEVEL_L1},    /* line 1 untouched by set-0 traffic */
        {72, MEM_LEVEL_DRAM},  /* line 4 was evicted */
        {15, MEM_LEVEL_L1},    /* line 0: last byte of the line */
    };
    for (size_t i = 0; i < UTIL_ARRAY_LEN(seq); i++) {
        MemLevel lv = access_level(h, 0, seq[i].addr, 1000 * i);
        if (lv != seq[i].expect)
            fail_msg("access %zu (addr %llu): got %s, expected %s", i,
                     (unsigned long long)seq[i].addr, mem_level_names[lv],
                     mem_level_names[seq[i].expect]);
    }
    const MemLevelStats *s = mem_hierarchy_stats(h);
    assert_int_equal(s[MEM_LEVEL_L1].hits, 5);
    assert_int_equal(s[MEM_LEVEL_L1].misses, 8);
    assert_int_equal(s[MEM_LEVEL_L1].bytes, 5 * 16);
    assert_int_equal(s[MEM_LEVEL_DRAM].hits, 8);
    assert_int_equal(s[MEM_LEVEL_DRAM].misses, 0);
    assert_int_equal(s[MEM_LEVEL_DRAM].bytes, 8 * 16); /* DRAM line 0: L1's line */
    for (int lv = MEM_LEVEL_L2; lv <= MEM_LEVEL_SLC; lv++) /* absent */
        assert_int_equal(s[lv].hits + s[lv].misses + s[lv].bytes, 0);
    mem_hierarchy_free(h);
}

static void test_inclusive_fill_and_per_core_l1(void **state)
{
    (void)state;
    /* 16-byte lines; L1 2 sets x 2 ways per core, L2 4 sets x 2 ways, SLC 16 sets x 4 ways. */
    MemHierarchyConfig cfg = {.cores = 2};
    cfg.level[MEM_LEVEL_L1] = level(64, 16, 2, 1, 16);
    cfg.level[MEM_LEVEL_L2] = level(128, 16, 2, 5, 16);
    cfg.level[MEM_LEVEL_SLC] = level(1024, 16, 4, 9, 16);
    cfg.level[MEM_LEVEL_DRAM] = level(0, 16, 0, 20, 16);
    MemHierarchy *h = mem_hierarchy_new(&cfg);
    assert_non_null(h);
    uint64_t t = 0;
    assert_int_equal(access_level(h, 0, 0, t += 100), MEM_LEVEL_DRAM); /* fills L1[0], L2, SLC */
    assert_int_equal(access_level(h, 0, 0, t += 100), MEM_LEVEL_L1);
    assert_int_equal(access_level(h, 1, 0, t += 100), MEM_LEVEL_L2); /* core 1 has its own L1 */
    assert_int_equal(access_level(h, 1, 0, t += 100), MEM_LEVEL_L1); /* ... which L2 filled */
    /* Lines 4 and 8 share L2 set 0 with line 0 (but not its SLC set) and push it out. */
    assert_int_equal(access_level(h, 1, 64, t += 100), MEM_LEVEL_DRAM);
    assert_int_equal(access_level(h, 1, 128, t += 100), MEM_LEVEL_DRAM);
    /* No back-invalidation: core 0's L1 copy survives the L2 eviction. */
    assert_int_equal(access_level(h, 0, 0, t += 100), MEM_LEVEL_L1);
    /* Core 1's L1 set 0 lost line 0 to lines 4 and 8; L2 lost it too; the SLC has it. */
    assert_int_equal(access_level(h, 1, 0, t += 100), MEM_LEVEL_SLC);
    assert_int_equal(access_level(h, 1, 0, t += 100), MEM_LEVEL_L1);  /* refilled from SLC */
    /* Core 1's L1 set 0 is {8, 0}; L2 set 0 is {8, 0} too, 4 having made way for 0. */
    assert_int_equal(access_level(h, 1, 128, t += 100), MEM_LEVEL_L1);
    assert_int_equal(access_level(h, 1, 64, t += 100), MEM_LEVEL_SLC); /* L2 set 0 now {0, 4} */
    /* Writes allocate like reads: line 32 (L2 set 0, evicting 0; SLC set 0 beside line 0). */
    mem_hierarchy_access(h, 0, 512, true, t += 100, NULL);
    assert_int_equal(access_level(h, 0, 512, t += 100), MEM_LEVEL_L1);

    const MemLevelStats *s = mem_hierarchy_stats(h);
    assert_int_equal(s[MEM_LEVEL_L1].hits, 6);
    assert_int_equal(s[MEM_LEVEL_L1].misses, 7);
    assert_int_equal(s[MEM_LEVEL_L2].hits, 1);
    assert_int_equal(s[MEM_LEVEL_L2].misses, 6);
    assert_int_equal(s[MEM_LEVEL_SLC].hits, 2);
    assert_int_equal(s[MEM_LEVEL_SLC].misses, 4);
    assert_int_equal(s[MEM_LEVEL_DRAM].hits, 4);
    assert_int_equal(s[MEM_LEVEL_DRAM].misses, 0);
    for (int lv = 0; lv < MEM_LEVEL_COUNT; lv++)
        assert_int_equal(s[lv].bytes, 16 * s[lv].hits);
    /* A core number past the configured count is reduced, never out of bounds. */
    assert_int_equal(access_level(h, 7, 512, t += 100), MEM_LEVEL_L2); /* core 1 */
    mem_hierarchy_free(h);
    mem_hierarchy_free(NULL);
}

static void test_latency_of_each_level(void **state)
{
    (void)state;
    MemHierarchyConfig cfg = small_config(3);
    MemHierarchy *h = mem_hierarchy_new(&cfg);
    assert_non_null(h);
    MemLevel lv;
    /* X = line 0. Idle ports: completion = now + transfer + latency. */
    assert_int_equal(mem_hierarchy_access(h, 0, 0, false, 1000, &lv), 1000 + 16 + 100);
    assert_int_equal(lv, MEM_LEVEL_DRAM);
    assert_int_equal(mem_hierarchy_access(h, 0, 0, false, 2000, &lv), 2000 + 2 + 3);
    assert_int_equal(lv, MEM_LEVEL_L1);
    assert_int_equal(mem_hierarchy_access(h, 1, 0, false, 3000, &lv), 3000 + 4 + 20);
    assert_int_equal(lv, MEM_LEVEL_L2);
    /* Lines 8, 16, 24, 32 share L2 set 0 (8 sets of 4 ways) and evict X there; only line 32
     * shares X's SLC set (32 sets of 4 ways), which keeps it. */
    for (uint64_t n = 8, now = 4000; n <= 32; n += 8, now += 1000)
        assert_int_equal(mem_hierarchy_access(h, 0, n * 128, false, now, &lv), now + 16 + 100);
    assert_int_equal(mem_hierarchy_access(h, 2, 0, false, 10000, &lv), 10000 + 8 + 50);
    assert_int_equal(lv, MEM_LEVEL_SLC);
    mem_hierarchy_free(h);
}

static void test_port_queueing(void **state)
{
    (void)state;
    MemHierarchyConfig cfg = small_config(2);
    MemHierarchy *h = mem_hierarchy_new(&cfg);
    assert_non_null(h);
    /* Warm: lines 0 and 1 in core 0's L1, line 0 in core 1's, line 2 in L2 only. */
    mem_hierarchy_access(h, 0, 0, false, 0, NULL);
    mem_hierarchy_access(h, 0, 128, false, 1000, NULL);
    mem_hierarchy_access(h, 1, 0, false, 2000, NULL);
    mem_hierarchy_access(h, 1, 256, false, 3000, NULL);
    /* Same core's L1 port queues; another core's L1 port does not. */
    assert_int_equal(mem_hierarchy_access(h, 0, 0, false, 5000, NULL), 5000 + 2 + 3);
    assert_int_equal(mem_hierarchy_access(h, 0, 128, false, 5000, NULL), 5000 + 4 + 3);
    assert_int_equal(mem_hierarchy_access(h, 1, 0, false, 5000, NULL), 5000 + 2 + 3);
    /* The L2 port is shared: core 0's L2 hit waits for core 1's transfer (4 cycles each). */
    assert_int_equal(mem_hierarchy_access(h, 1, 128, false, 6000, NULL), 6000 + 4 + 20);
    assert_int_equal(mem_hierarchy_access(h, 0, 256, false, 6000, NULL), 6000 + 8 + 20);
    /* A request that arrives after the port freed does not wait (line 0 has long been in
     * core 0's L1; line 256, just copied in from L2, arrives only at 6028). */
    assert_int_equal(mem_hierarchy_access(h, 0, 0, false, 6009, NULL), 6009 + 2 + 3);
    assert_int_equal(mem_hierarchy_access(h, 0, 256, false, 6010, NULL), 6000 + 8 + 20);
    /* A request made earlier than the port is free (cores stepped out of order) still
     * waits for it: ports serve in call order. */
    assert_int_equal(mem_hierarchy_access(h, 1, 4096, false, 7000, NULL), 7000 + 16 + 100);
    assert_int_equal(mem_hierarchy_access(h, 0, 8192, false, 6990, NULL), 7000 + 32 + 100);
    mem_hierarchy_free(h);
}

/* A line still being fetched: a request that finds it (in the same core's L1, or in L2
 * from another core) gets its data when the fill completes, not before; once it has come,
 * hits cost what hits cost. Small config: L1 3 + 2 cycles, L2 20 + 4, DRAM 100 + 16. */
static void test_fill_in_flight(void **state)
{
    (void)state;
    MemHierarchyConfig cfg = small_config(2);
    MemHierarchy *h = mem_hierarchy_new(&cfg);
    assert_non_null(h);
    const uint64_t a = 1 << 20, b = 2 << 20;
    MemLevel lv;
    assert_int_equal(mem_hierarchy_access(h, 0, a, false, 0, &lv), 0 + 16 + 100);
    assert_int_equal(lv, MEM_LEVEL_DRAM);
    /* core 0 again, a cycle later: an L1 hit on a line that arrives at 116 */
    assert_int_equal(mem_hierarchy_access(h, 0, a, false, 1, &lv), 116);
    assert_int_equal(lv, MEM_LEVEL_L1);
    /* core 1: misses its L1, finds the line in L2, still arriving */
    assert_int_equal(mem_hierarchy_access(h, 1, a, false, 2, &lv), 116);
    assert_int_equal(lv, MEM_LEVEL_L2);
    /* after the fill: plain hits */
    assert_int_equal(mem_hierarchy_access(h, 1, a, false, 200, &lv), 200 + 2 + 3);
    assert_int_equal(lv, MEM_LEVEL_L1);
    /* another line in flight does not hold up one that has arrived */
    assert_int_equal(mem_hierarchy_access(h, 0, b, false, 300, NULL), 300 + 16 + 100);
    assert_int_equal(mem_hierarchy_access(h, 0, a, false, 301, NULL), 301 + 2 + 3);
    assert_int_equal(mem_hierarchy_access(h, 0, b, false, 302, NULL), 416);
    mem_hierarchy_free(h);
}

static void test_dram_bandwidth_saturation(void **state)
{
    (void)state;
    MemHierarchyConfig cfg = m1_like();
    MemHierarchy *h = mem_hierarchy_new(&cfg);
    assert_non_null(h);
    /* 128 B at 9.5 B/cycle = 256/19 cycles a line; all requested at cycle 0 by rotating
     * cores, line i (from 1) completes at ceil(256 i / 19) + 397. */
    const uint64_t lines = 200000, latency = 397;
    uint64_t last = 0;
    for (uint64_t i = 1; i <= lines; i++) {
        MemLevel lv;
        last = mem_hierarchy_access(h, (uint32_t)(i % 8), i * 128 + (1ull << 32), false, 0, &lv);
        assert_int_equal(lv, MEM_LEVEL_DRAM);
        uint64_t expect = (256 * i + 18) / 19 + latency;
        if (last != expect)
            fail_msg("line %llu: completes at %llu, expected %llu", (unsigned long long)i,
                     (unsigned long long)last, (unsigned long long)expect);
    }
    double rate = (double)(lines * 128) / (double)(last - latency);
    assert_true(rate > 9.5 * 0.99 && rate < 9.5 * 1.01);
    const MemLevelStats *s = mem_hierarchy_stats(h);
    assert_int_equal(s[MEM_LEVEL_DRAM].hits, lines);
    assert_int_equal(s[MEM_LEVEL_DRAM].bytes, lines * 128);
    assert_int_equal(s[MEM_LEVEL_L1].misses, lines);
    assert_int_equal(s[MEM_LEVEL_L2].misses, lines);
    assert_int_equal(s[MEM_LEVEL_SLC].misses, lines);

    /* Spaced wider than a transfer, nothing queues: ceil(256/19) = 14 cycles each. */
    uint64_t base = last + 1000;
    for (uint64_t i = 0; i < 100; i++) {
        uint64_t now = base + 20 * i;
        assert_int_equal(mem_hierarchy_access(h, 0, (3ull << 32) + i * 128, false, now, NULL),
                         now + 14 + latency);
    }
    mem_hierarchy_free(h);
}

static void test_non_power_of_two_sets(void **state)
{
    (void)state;
    /* L2 only: 768 KB, 128 B lines, 8 ways = 768 sets; line n is in set n % 768. */
    MemHierarchyConfig cfg = {.cores = 1};
    cfg.level[MEM_LEVEL_L2] = level(768 * 1024, 128, 8, 50, 32);
    cfg.level[MEM_LEVEL_DRAM] = level(0, 0, 0, 300, 8);
    MemHierarchy *h = mem_hierarchy_new(&cfg);
    assert_non_null(h);
    uint64_t t = 0;
    for (uint64_t k = 0; k < 8; k++) /* fills set 0 */
        assert_int_equal(access_level(h, 0, k * 768 * 128, t += 1000), MEM_LEVEL_DRAM);
    /* Lines 512 and 1024 are in sets 512 and 256, not 0 (as a mask of 511 would have it). */
    assert_int_equal(access_level(h, 0, 512 * 128, t += 1000), MEM_LEVEL_DRAM);
    assert_int_equal(access_level(h, 0, 1024 * 128, t += 1000), MEM_LEVEL_DRAM);
    assert_int_equal(access_level(h, 0, 0, t += 1000), MEM_LEVEL_L2);
    assert_int_equal(access_level(h, 0, 8 * 768 * 128, t += 1000), MEM_LEVEL_DRAM); /* evicts 768 */
    assert_int_equal(access_level(h, 0, 0, t += 1000), MEM_LEVEL_L2);
    assert_int_equal(access_level(h, 0, 768 * 128, t += 1000), MEM_LEVEL_DRAM);
    assert_int_equal(access_level(h, 0, 512 * 128, t += 1000), MEM_LEVEL_L2);
    mem_hierarchy_free(h);
}

/* Random accesses to an L1 alone, against an LRU written here: each set a list of its lines,
 * most recent first. For every way count from 1 to 16 (4, 8, 12 and 16 are the ones the
 * model compares four ways at a time), sets a power of two or not, and a pool of lines a
 * little larger than the cache, so that hits, misses into empty ways and evictions all
 * happen, in sets filled unevenly. */
static void test_lru_against_reference(void **state)
{
    (void)state;
    enum { LINE = 64, MAX_WAYS = 16, MAX_SETS = 5, ACCESSES = 6000 };
    for (uint32_t ways = 1; ways <= MAX_WAYS; ways++) {
        for (uint32_t sets = 4; sets <= MAX_SETS; sets++) {
            MemHierarchyConfig cfg = {.cores = 1};
            cfg.level[MEM_LEVEL_L1] = level((uint64_t)sets * ways * LINE, LINE, ways, 1, 64);
            cfg.level[MEM_LEVEL_DRAM] = level(0, 0, 0, 10, 64);
            MemHierarchy *h = mem_hierarchy_new(&cfg);
            assert_non_null(h);
            uint64_t lru[MAX_SETS][MAX_WAYS]; /* lines, most recent first */
            uint32_t used[MAX_SETS] = {0};
            uint32_t seed = 2024u + ways * 31u + sets;
            const uint32_t pool = sets * ways + sets * ways / 2 + 3;
            for (uint32_t k = 0; k < ACCESSES; k++) {
                seed = seed * 1664525u + 1013904223u;
                const uint64_t line = (seed >> 9) % pool;
                const uint32_t s = (uint32_t)(line % sets);
                uint32_t at = used[s];
                for (uint32_t i = 0; i < used[s]; i++)
                    if (lru[s][i] == line)
                        at = i;
                const bool hit = at < used[s];
                if (!hit)
                    at = used[s] < ways ? used[s]++ : ways - 1; /* the last is the LRU one */
                memmove(&lru[s][1], &lru[s][0], at * sizeof lru[s][0]);
                lru[s][0] = line;
                const MemLevel got = access_level(h, 0, line * LINE + (seed & (LINE - 1)), k * 100);
                if (got != (hit ? MEM_LEVEL_L1 : MEM_LEVEL_DRAM))
                    fail_msg("%u ways, %u sets, access %u (line %llu): got %s, expected %s", ways,
                             sets, k, (unsigned long long)line, mem_level_names[got],
                             hit ? "L1" : "DRAM");
            }
            mem_hierarchy_free(h);
        }
    }
}

static void test_tg_bank_cycles(void **state)
{
    (void)state;
    uint64_t a[32];
    const uint32_t all = 0xffffffffu;
    for (int i = 0; i < 32; i++)
        a[i] = 4 * (uint64_t)i; /* stride 1 word */
    assert_int_equal(mem_tg_bank_cycles(a, all, 32, 4), 1);
    assert_int_equal(mem_tg_bank_cycles(a, all, 16, 4), 2);  /* 32 words over 16 banks */
    assert_int_equal(mem_tg_bank_cycles(a, all, 128, 4), 1); /* more banks than 64 */
    assert_int_equal(mem_tg_bank_cycles(a, 0, 32, 4), 0);
    assert_int_equal(mem_tg_bank_cycles(a, 1u << 7, 32, 4), 1);
    for (int i = 0; i < 32; i++)
        a[i] = 4 * 32 * (uint64_t)i; /* stride = banks words: one bank */
    assert_int_equal(mem_tg_bank_cycles(a, all, 32, 4), 32);
    assert_int_equal(mem_tg_bank_cycles(a, 0x0000ffffu, 32, 4), 16);
    assert_int_equal(mem_tg_bank_cycles(a, all, 128, 4), 8); /* lanes 4 apart share a bank */
    for (int i = 0; i < 32; i++)
        a[i] = 4 * 2 * (uint64_t)i; /* stride 2 words: lanes i and i + 16 collide */
    assert_int_equal(mem_tg_bank_cycles(a, all, 32, 4), 2);
    assert_int_equal(mem_tg_bank_cycles(a, 0x0000ffffu, 32, 4), 1);
    for (int i = 0; i < 32; i++)
        a[i] = 4 * 33 * (uint64_t)i; /* stride 33 words: conflict-free */
    assert_int_equal(mem_tg_bank_cycles(a, all, 32, 4), 1);
    for (int i = 0; i < 32; i++)
        a[i] = 1000; /* one word: a broadcast */
    assert_int_equal(mem_tg_bank_cycles(a, all, 32, 4), 1);
    assert_int_equal(mem_tg_bank_cycles(a, all, 128, 4), 1);
    for (int i = 0; i < 32; i++)
        a[i] = (uint64_t)i; /* bytes 0..31: words 0..7 */
    assert_int_equal(mem_tg_bank_cycles(a, all, 32, 4), 1);
    assert_int_equal(mem_tg_bank_cycles(a, all, 4, 4), 2); /* words w and w+4 share a bank */
    for (int i = 0; i < 32; i++)
        a[i] = 128 * (uint64_t)(i % 4); /* 4 words in bank 0, each read by 8 lanes */
    assert_int_equal(mem_tg_bank_cycles(a, all, 32, 4), 4);
    assert_int_equal(mem_tg_bank_cycles(a, all, 96, 4), 2); /* banks 0, 32, 64, 0: > 64, not 2^n */
    for (int i = 0; i < 32; i++)
        a[i] = 8 * (uint64_t)i; /* 8-byte banks, stride 1 bank */
    assert_int_equal(mem_tg_bank_cycles(a, all, 32, 8), 1);
    assert_int_equal(mem_tg_bank_cycles(a, all, 24, 8), 2); /* banks i % 24 */
    /* Degenerate parameters serialise instead of dividing by zero. */
    assert_int_equal(mem_tg_bank_cycles(a, all, 0, 0), 32);
    for (int i = 0; i < 32; i++)
        a[i] = 4 * (uint64_t)(31 - i); /* descending strides */
    assert_int_equal(mem_tg_bank_cycles(a, all, 32, 4), 1);
    for (int i = 0; i < 32; i++)
        a[i] = 128 * (uint64_t)(31 - i);
    assert_int_equal(mem_tg_bank_cycles(a, all, 32, 4), 32);
    for (int i = 0; i < 32; i++)
        a[i] = 12 * (uint64_t)i; /* 12-byte banks (not a power of two) */
    assert_int_equal(mem_tg_bank_cycles(a, all, 32, 12), 1);
    assert_int_equal(mem_tg_bank_cycles(a, all, 32, 6), 2); /* words 2i: 16 banks used */
    for (int i = 0; i < 32; i++)
        a[i] = 4 * (uint64_t)i;
    assert_int_equal(mem_tg_bank_cycles(a, 0xaaaaaaaau, 32, 4), 1); /* odd lanes, odd banks */
    for (int i = 0; i < 32; i++)
        a[i] = 64 * (uint64_t)i; /* stride 16 words: odd lanes all in bank 16 */
    assert_int_equal(mem_tg_bank_cycles(a, 0xaaaaaaaau, 32, 4), 16);
    assert_int_equal(mem_tg_bank_cycles(a, all, 32, 4), 16); /* banks 0 and 16 */
    for (int i = 0; i < 32; i++)
        a[i] = (1ull << 63) + 128 * (uint64_t)i; /* words past 2^62 */
    assert_int_equal(mem_tg_bank_cycles(a, all, 32, 1), 32);
    assert_int_equal(mem_tg_bank_cycles(a, all, 32, 4), 32);
    assert_int_equal(mem_tg_bank_cycles(a, all, 128, 1), 32);
    assert_int_equal(mem_tg_bank_cycles(a, all, 256, 1), 16);
}

/* Brute force for the random cross-check: per bank, the distinct words of active lanes. */
static uint32_t reference_bank_cycles(const uint64_t *addr, uint32_t mask, uint32_t banks,
                                      uint32_t bank_bytes)
{
    uint32_t most = 0;
    for (int i = 0; i < 32; i++) {
        if (!(mask >> i & 1))
            continue;
        uint64_t bank = addr[i] / bank_bytes % banks;
        uint32_t distinct = 0;
        for (int j = 0; j < 32; j++) {
            if (!(mask >> j & 1) || addr[j] / bank_bytes % banks != bank)
                continue;
            bool earlier = false; /* is j's word also held by an earlier lane? */
            for (int k = 0; k < j; k++)
                earlier |= (mask >> k & 1) && addr[k] / bank_bytes == addr[j] / bank_bytes;
            distinct += !earlier;
        }
        if (distinct > most)
            most = distinct;
    }
    return most;
}

static void test_tg_bank_cycles_random(void **state)
{
    (void)state;
    static const uint32_t bank_counts[] = {1, 3, 16, 32, 64, 96, 128};
    static const uint32_t bank_sizes[] = {1, 4, 8, 12};
    uint64_t seed = 12345;
    for (int round = 0; round < 20000; round++) {
        uint64_t a[32];
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t banks = bank_counts[(seed >> 33) % UTIL_ARRAY_LEN(bank_counts)];
        uint32_t bank_bytes = bank_sizes[(seed >> 40) % UTIL_ARRAY_LEN(bank_sizes)];
        uint32_t kind = (uint32_t)(seed >> 50) % 7;
        uint32_t period = 2u << ((seed >> 56) % 4); /* 2, 4, 8 or 16 */
        uint64_t stride = (seed >> 20) % 700;
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t mask = (seed >> 45) % 3 == 0 ? 0xffffffffu : (uint32_t)(seed >> 13);
        for (int i = 0; i < 32; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t r = seed >> 33;
            /* strides, small ranges (many repeats), wide ranges, progressions with noise,
             * progressions repeating with a period or in blocks (tile rows and columns),
             * and those with noise */
            uint64_t noise = r % 8 == 0 ? r % 16 : 0;
            a[i] = kind == 0 ? stride * (uint64_t)i
                 : kind == 1 ? r % 64
                 : kind == 2 ? r % 65536
                 : kind == 3 ? stride * (uint64_t)i + noise
                 : kind == 4 ? 1000 + stride * (uint64_t)(i % period)
                 : kind == 5 ? 1000 + stride * (uint64_t)(i / period)
                 : 1000 + stride * (uint64_t)(i % period) + noise;
        }
        uint32_t want = reference_bank_cycles(a, mask, banks, bank_bytes);
        uint32_t got = mem_tg_bank_cycles(a, mask, banks, bank_bytes);
        if (got != want)
            fail_msg("round %d (kind %u, banks %u x %u B, mask %08x): got %u, expected %u", round,
                     kind, banks, bank_bytes, mask, got, want);
    }
}

static void expect_rejected(const MemHierarchyConfig *cfg, const char *needle)
{
    UtilError err = {{0}};
    assert_false(mem_hierarchy_config_check(cfg, &err));
    if (!strstr(err.message, needle))
        fail_msg("message \"%s\" lacks \"%s\"", err.message, needle);
    assert_null(mem_hierarchy_new(cfg));
}

static void test_config_validation(void **state)
{
    (void)state;
    UtilError err = {{0}};
    MemHierarchyConfig ok = m1_like();
    assert_true(mem_hierarchy_config_check(&ok, &err));
    ok = small_config(1);
    assert_true(mem_hierarchy_config_check(&ok, &err));
    assert_false(mem_hierarchy_config_check(NULL, &err));

    MemHierarchyConfig c = m1_like();
    c.cores = 0;
    expect_rejected(&c, "memory hierarchy: cores must be from 1 to 4096 (got 0)");
    c = m1_like();
    c.level[MEM_LEVEL_L2].size_bytes = 768 * 1024 + 128;
    expect_rejected(&c, "memory hierarchy: L2: size 786560 bytes is not a whole number of sets "
                        "of 12 ways x 128-byte lines (1536 bytes a set)");
    c = m1_like();
    c.level[MEM_LEVEL_L1].line_bytes = 96;
    expect_rejected(&c, "L1: line_bytes must be a power of two from 4 to 65536 (got 96)");
    c = m1_like();
    c.level[MEM_LEVEL_SLC].ways = 0;
    expect_rejected(&c, "SLC: ways must be from 1 to 256 (got 0)");
    c = m1_like();
    c.level[MEM_LEVEL_L2].line_bytes = 64;
    expect_rejected(&c, "L2: line_bytes 64 is smaller than L1's 128");
    c = m1_like();
    c.level[MEM_LEVEL_DRAM].line_bytes = 64;
    expect_rejected(&c, "DRAM: line_bytes 64 is smaller than SLC's 128");
    c = m1_like();
    c.level[MEM_LEVEL_DRAM].line_bytes = 200;
    expect_rejected(&c, "DRAM: line_bytes must be a power of two from 4 to 65536 (got 200)");
    c = m1_like();
    c.level[MEM_LEVEL_DRAM].bytes_per_cycle = 0;
    expect_rejected(&c, "DRAM: bytes_per_cycle must be a number of at least 0.001 (got 0)");
    c = m1_like();
    c.level[MEM_LEVEL_L1].bytes_per_cycle = -1;
    expect_rejected(&c, "L1: bytes_per_cycle");
    c = m1_like();
    c.level[MEM_LEVEL_L2].bytes_per_cycle = 0.0 / 0.0;
    expect_rejected(&c, "L2: bytes_per_cycle");
    c = m1_like();
    c.level[MEM_LEVEL_SLC].size_bytes = 1ull << 40;
    expect_rejected(&c, "SLC: 8589934592 lines is more than this model supports");
    c = m1_like();
    c.cores = 4096;
    c.level[MEM_LEVEL_L1].size_bytes = 1 << 20;
    expect_rejected(&c, "L1: 8192 lines per core is more than this model supports (1024)");
    c = (MemHierarchyConfig){.cores = 1};
    c.level[MEM_LEVEL_DRAM] = level(0, 0, 0, 100, 8);
    expect_rejected(&c, "DRAM: line_bytes must be set when no cache level is present");
    c.level[MEM_LEVEL_DRAM].line_bytes = 128; /* DRAM alone is a valid hierarchy */
    assert_true(mem_hierarchy_config_check(&c, &err));
    MemHierarchy *h = mem_hierarchy_new(&c);
    assert_non_null(h);
    assert_int_equal(mem_hierarchy_access(h, 0, 0, false, 10, NULL), 10 + 16 + 100);
    mem_hierarchy_free(h);
}

static void test_level_names(void **state)
{
    (void)state;
    assert_string_equal(mem_level_names[MEM_LEVEL_L1], "L1");
    assert_string_equal(mem_level_names[MEM_LEVEL_L2], "L2");
    assert_string_equal(mem_level_names[MEM_LEVEL_SLC], "SLC");
    assert_string_equal(mem_level_names[MEM_LEVEL_DRAM], "DRAM");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lru_two_sets_two_ways),
        cmocka_unit_test(test_inclusive_fill_and_per_core_l1),
        cmocka_unit_test(test_latency_of_each_level),
        cmocka_unit_test(test_port_queueing),
        cmocka_unit_test(test_fill_in_flight),
        cmocka_unit_test(test_dram_bandwidth_saturation),
        cmocka_unit_test(test_non_power_of_two_sets),
        cmocka_unit_test(test_lru_against_reference),
        cmocka_unit_test(test_tg_bank_cycles),
        cmocka_unit_test(test_tg_bank_cycles_random),
        cmocka_unit_test(test_config_validation),
        cmocka_unit_test(test_level_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
