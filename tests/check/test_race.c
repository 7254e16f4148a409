/*
 * test_race.c — the data-race detector on small Metal kernels: each classic bug (a tree
 * reduction missing its barrier, a barrier with the wrong mem_flags, a shared slot read then
 * overwritten, a plain ++ on a device counter from several threadgroups) is found with its
 * kind, message, lines, threads and count; correct kernels that naive checkers flag
 * (same-value writes, disjoint indices, barrier-separated reuse, accesses ordered by
 * SIMD-group lockstep) stay silent; the policies
 * (same_value_races, strict_simd) turn findings on. A finding's count is the number of racing
 * accesses: each thread's execution of the later instruction counts once.
 *
 * Expected lines come from markers in the kernel text, expected counts from reasoning about
 * the simulator's documented schedule (threadgroups one at a time; within one, SIMD-groups in
 * index order, each to its next barrier). The slowdown of the checker is printed, not asserted.
 * Atomics are in test_race_atomics.c, how findings name arrays and helper calls in
 * test_race_names.c.
 */
#include <time.h>

#include "race_harness.h"

/* ---- missing and wrong barriers ----------------------------------------------------------- */

#define EXCHANGE(BARRIER)                                                                     \
    "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n" \
    "              uint tid [[thread_index_in_threadgroup]]) {\n"                            \
    "    threadgroup float shared[64];\n"                                                     \
    "    shared[tid] = in[tid]; // W\n"                                                       \
    "    " BARRIER " // B\n"                                                                  \
    "    out[tid] = shared[(tid + 32) % 64]; // R\n"                                          \
    "}\n"

/* SIMD-group 0 writes shared[0..31] and reads shared[32..63] before SIMD-group 1 runs; then
 * SIMD-group 1 overwrites what 0 read (32 write-after-read) and reads what 0 wrote (32
 * read-after-write). */
static void test_missing_barrier(void **state)
{
    (void)state;
    const char *src = EXCHANGE("");
    Checked c;
    setup(&c, src, 256);
    run(&c, 64, 64);
    uint32_t w = line_of(src, "// W"), r = line_of(src, "// R");
    expect_count(&c, 2);
    const CheckFinding *war = find(&c, "threadgroup memory race (write after read) on shared[32]");
    expect_lines(&c, war, r, w);
    assert_int_equal(war->count, 32);
    assert_int_equal(war->severity, CHECK_ERROR);
    assert_int_equal(war->first.access, CHECK_ACCESS_READ);
    assert_int_equal(war->second.access, CHECK_ACCESS_WRITE);
    assert_int_equal(war->first.thread.local[0], 0);   /* thread 0 read shared[32] */
    assert_int_equal(war->second.thread.local[0], 32); /* thread 32 wrote it */
    assert_int_equal(war->second.thread.simdgroup, 1);
    assert_int_equal(war->second.space, MEM_SPACE_THREADGROUP);
    assert_int_equal(war->second.offset, 128);
    expect_fix(&c, war, fmt("no threadgroup_barrier(mem_threadgroup) between line %u and line %u", r, w));
    const CheckFinding *raw = find(&c, "threadgroup memory race (read after write) on shared[0]");
    expect_lines(&c, raw, w, r);
    assert_int_equal(raw->count, 32);
    assert_int_equal(raw->first.thread.local[0], 0);
    assert_int_equal(raw->second.thread.local[0], 32);
    expect_fix(&c, raw, fmt("no threadgroup_barrier(mem_threadgroup) between line %u and line %u", w, r));
    done(&c);
}

/* Reads of one word by every SIMD-group after a barrier (the history then holds reads by
 * two agents), then a write without a barrier by the last SIMD-group: the write races with
 * the latest read by another SIMD-group. shared[w] is read by threads w, w + 16, ..., so the
 * latest reads of shared[0] are by 80 (SIMD-group 2), then 96 and 112 (SIMD-group 3, the
 * writer's own, ordered by lockstep): the race names thread 80. */
static void test_broadcast_reads_then_write(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device float *out [[buffer(0)]],\n"
        "              uint tid [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup float shared[16];\n"
        "    if (tid < 16)\n"
        "        shared[tid] = float(tid);\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    float v = shared[tid % 16]; // R\n"
        "    if (tid == 127)\n"
        "        shared[0] = 5.0f; // W\n"
        "    out[tid] = v;\n"
        "}\n";
    Checked c;
    setup(&c, src, 512);
    run(&c, 128, 128);
    uint32_t r = line_of(src, "// R"), w = line_of(src, "// W");
    expect_count(&c, 1);
    const CheckFinding *war = find(&c, "threadgroup memory race (write after read) on shared[0]");
    expect_lines(&c, war, r, w);
    assert_int_equal(war->count, 1);
    assert_int_equal(war->first.thread.local[0], 80);
    assert_int_equal(war->second.thread.local[0], 127);
    done(&c);
}

/* Lanes of a SIMD-group reading words others of its lanes read again are checked once per
 * word (the last reader), unless some lane needs the general path: then every lane is gone
 * through in lane order. Here SIMD-group 1 reads shared[(tid % 16) % 3]: words 0, 1, 2 at
 * lanes 0, 1, 2, 3, ... Lane 16's read of shared[0] is settled first, then lane 17 finds the
 * unordered write of shared[1] by thread 1. The read-after-write race names thread 33 (lane
 * 1, the first in lane order) and counts all 10 readers of shared[1]; after the mem_none
 * barrier thread 64's write of shared[0] races with the latest read, by lane 31 (thread 63). */
static void test_repeated_reads_in_lane_order(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device float *out [[buffer(0)]],\n"
        "              uint tid [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup float shared[16];\n"
        "    if (tid < 16)\n"
        "        shared[tid] = float(tid);\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    if (tid == 1)\n"
        "        shared[1] = 9.0f; // W1\n"
        "    float v = 0.0f;\n"
        "    if (tid >= 32 && tid < 64)\n"
        "        v = shared[(tid % 16) % 3]; // R\n"
        "    threadgroup_barrier(mem_flags::mem_none);\n"
        "    if (tid == 64)\n"
        "        shared[0] = 7.0f; // W2\n"
        "    out[tid] = v;\n"
        "}\n";
    Checked c;
    setup(&c, src, 384);
    run(&c, 96, 96);
    uint32_t w1 = line_of(src, "// W1"), r = line_of(src, "// R"), w2 = line_of(src, "// W2");
    expect_count(&c, 2);
    const CheckFinding *raw = find(&c, "threadgroup memory race (read after write) on shared[1]");
    expect_lines(&c, raw, w1, r);
    assert_int_equal(raw->count, 10);
    assert_int_equal(raw->first.thread.local[0], 1);
    assert_int_equal(raw->second.thread.local[0], 33);
    const CheckFinding *war = find(&c, "threadgroup memory race (write after read) on shared[0]");
    expect_lines(&c, war, r, w2);
    assert_int_equal(war->count, 1);
    assert_int_equal(war->first.thread.local[0], 63);
    assert_int_equal(war->second.thread.local[0], 64);
    done(&c);
}

static void test_barrier_silences(void **state)
{
    (void)state;
    Checked c;
    setup(&c, EXCHANGE("threadgroup_barrier(mem_flags::mem_threadgroup);"), 256);
    float *in = h_data(&c.h, 0);
    for (int i = 0; i < 64; i++)
        in[i] = (float)i;
    run(&c, 64, 64);
    expect_silent(&c);
    float *out = h_data(&c.h, 1);
    for (int i = 0; i < 64; i++)
        CH_FEQ(out[i], (float)((i + 32) % 64), i);
    done(&c);
}

/* Both SIMD-groups write, the barrier releases without ordering threadgroup memory, both read
 * the other's slots: 64 reads after unordered writes, one pair of lines. */
static void wrong_flags(const char *barrier, const char *flags, const char *why)
{
    const char *src = EXCHANGE("");
    char text[1024];
    snprintf(text, sizeof text, "%.*s%s%s", (int)(strstr(src, " // B") - src), src, barrier,
             strstr(src, " // B"));
    Checked c;
    setup(&c, text, 256);
    run(&c, 64, 64);
    uint32_t w = line_of(text, "// W"), r = line_of(text, "// R"), b = line_of(text, "// B");
    expect_count(&c, 1);
    const CheckFinding *raw = find(&c, "threadgroup memory race (read after write) on shared[32]");
    expect_lines(&c, raw, w, r);
    assert_int_equal(raw->count, 64);
    assert_int_equal(raw->first.thread.local[0], 32); /* SIMD-group 0 reads first, what 32 wrote */
    assert_int_equal(raw->second.thread.local[0], 0);
    expect_fix(&c, raw, fmt("the barrier at line %u has mem_flags::%s: %s; use mem_threadgroup", b, flags, why));
    done(&c);
}

static void test_barrier_mem_none(void **state)
{
    (void)state;
    wrong_flags("threadgroup_barrier(mem_flags::mem_none);", "mem_none", "it orders execution only");
}

static void test_barrier_mem_device(void **state)
{
    (void)state;
    wrong_flags("threadgroup_barrier(mem_flags::mem_device);", "mem_device",
                "it does not order threadgroup memory");
}

#define REDUCE(INNER_BARRIER)                                                                 \
    "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n" \
    "              uint tid [[thread_index_in_threadgroup]], uint gid [[thread_position_in_grid]],\n" \
    "              uint tg [[threadgroup_position_in_grid]]) {\n"                            \
    "    threadgroup float shared[256];\n"                                                    \
    "    shared[tid] = in[gid];\n"                                                            \
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"                                  \
    "    for (uint s = 128; s > 0; s >>= 1) {\n"                                              \
    "        if (tid < s)\n"                                                                  \
    "            shared[tid] += shared[tid + s]; // L\n"                                      \
    "        " INNER_BARRIER "\n"                                                             \
    "    }\n"                                                                                 \
    "    if (tid == 0)\n"                                                                     \
    "        out[tg] = shared[0];\n"                                                          \
    "}\n"

/* Without the barrier in the loop, SIMD-group 0 runs all its rounds first and reads slots
 * 64.. that SIMD-groups 1..3 overwrite in their first round: races within the one line. */
static void test_reduction_missing_barrier(void **state)
{
    (void)state;
    const char *src = REDUCE("");
    Checked c;
    setup(&c, src, 4096);
    run(&c, 256, 256);
    uint32_t l = line_of(src, "// L");
    assert_true(c.n >= 1);
    for (uint32_t i = 0; i < c.n; i++) {
        assert_int_equal(c.f[i].kind, CHECK_RACE);
        assert_non_null(strstr(c.f[i].message, "threadgroup memory race ("));
        assert_non_null(strstr(c.f[i].message, " on shared["));
        expect_lines(&c, &c.f[i], l, l);
        expect_fix(&c, &c.f[i], fmt("no threadgroup_barrier(mem_threadgroup) between the two accesses at line %u", l));
        assert_true(c.f[i].count >= 1);
    }
    /* SIMD-group 0 read shared[32..63] in round s=32; SIMD-group 1 overwrote them in round 128 */
    find(&c, "threadgroup memory race (write after read) on shared[32]");
    done(&c);
}

static void test_reduction_correct_silent(void **state)
{
    (void)state;
    Checked c;
    setup(&c, REDUCE("threadgroup_barrier(mem_flags::mem_threadgroup);"), 4096);
    float *in = h_data(&c.h, 0);
    for (int i = 0; i < 1024; i++)
        in[i] = (float)(i % 7);
    run(&c, 1024, 256);
    expect_silent(&c);
    float *out = h_data(&c.h, 1);
    for (int t = 0; t < 4; t++) {
        float want = 0;
        for (int i = 0; i < 256; i++)
            want += (float)((t * 256 + i) % 7);
        CH_FEQ(out[t], want, t);
    }
    done(&c);
}

/* A rotate done in place: each thread reads its right neighbour, then overwrites its own slot.
 * Thread 31 read shared[32], which thread 32 then overwrites; thread 63 reads shared[0], which
 * thread 0 overwrote — one race each way. */
static void test_read_then_overwrite(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
        "              uint tid [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup float shared[64];\n"
        "    shared[tid] = in[tid];\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    float v = shared[(tid + 1) % 64]; // R\n"
        "    shared[tid] = v; // W\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    out[tid] = shared[tid];\n"
        "}\n";
    Checked c;
    setup(&c, src, 256);
    run(&c, 64, 64);
    uint32_t r = line_of(src, "// R"), w = line_of(src, "// W");
    expect_count(&c, 2);
    const CheckFinding *war = find(&c, "threadgroup memory race (write after read) on shared[32]");
    expect_lines(&c, war, r, w);
    assert_int_equal(war->count, 1);
    assert_int_equal(war->first.thread.local[0], 31);
    assert_int_equal(war->second.thread.local[0], 32);
    expect_fix(&c, war, fmt("no threadgroup_barrier(mem_threadgroup) between line %u and line %u", r, w));
    const CheckFinding *raw = find(&c, "threadgroup memory race (read after write) on shared[0]");
    expect_lines(&c, raw, w, r);
    assert_int_equal(raw->count, 1);
    assert_int_equal(raw->first.thread.local[0], 0);
    assert_int_equal(raw->second.thread.local[0], 63);
    done(&c);
}

/* ---- device memory across threadgroups ---------------------------------------------------- */

/* counter[0]++ by 4 threadgroups of 32: within threadgroup 0 the lanes store the same value at
 * once (benign); each later threadgroup's 32 loads read threadgroup t-1's store (3 x 32
 * read-after-write) and its lane 0's store overwrites it (3 write-after-write; its other
 * lanes store the same value as lane 0). */
static void test_device_counter_plus_plus(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device uint *counter [[buffer(0)]]) {\n"
        "    counter[0] = counter[0] + 1; // X\n"
        "}\n";
    Checked c;
    setup(&c, src, 16);
    run(&c, 128, 32);
    uint32_t x = line_of(src, "// X");
    expect_count(&c, 2);
    const CheckFinding *raw = find(&c, "device memory race between threadgroups (read after write) on counter[0]");
    expect_lines(&c, raw, x, x);
    assert_int_equal(raw->count, 96);
    assert_int_equal(raw->first.access, CHECK_ACCESS_WRITE);
    assert_int_equal(raw->first.thread.grid[0], 31);  /* threadgroup 0's last lane stored last */
    assert_int_equal(raw->first.thread.threadgroup[0], 0);
    assert_int_equal(raw->second.thread.grid[0], 32);
    assert_int_equal(raw->second.thread.threadgroup[0], 1);
    assert_int_equal(raw->second.space, MEM_SPACE_DEVICE);
    expect_fix(&c, raw, "threadgroups cannot synchronize: use atomics or separate dispatches");
    const CheckFinding *waw = find(&c, "device memory race between threadgroups (write after write) on counter[0]");
    assert_int_equal(waw->count, 3);
    assert_int_equal(waw->first.thread.grid[0], 31);
    assert_int_equal(waw->second.thread.grid[0], 32);
    done(&c);
}

/* The checker leaves reads of a buffer untracked when no store can reach it; a store whose
 * base is a pointer held in registers (here chosen per threadgroup) could reach any buffer,
 * so the reads of `a` stay tracked and both races on a[0] are found. */
static void test_store_through_pointer_register(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device uint *a [[buffer(0)]], device uint *b [[buffer(1)]],\n"
        "              uint gid [[thread_position_in_grid]],\n"
        "              uint tg [[threadgroup_position_in_grid]]) {\n"
        "    device uint *p = tg == 1 ? a : b;\n"
        "    uint v = a[0]; // R\n"
        "    if (gid == 32)\n"
        "        p[0] = v + 1; // W\n"
        "}\n";
    Checked c;
    setup(&c, src, 16);
    run(&c, 128, 32);
    uint32_t r = line_of(src, "// R"), w = line_of(src, "// W");
    /* threadgroup 0 read a[0] before threadgroup 1's thread 32 wrote it; threadgroups 2 and
     * 3 (64 threads) read it after */
    const CheckFinding *war = find(&c, "device memory race between threadgroups (write after read) on a[0]");
    expect_lines(&c, war, r, w);
    const CheckFinding *raw = find(&c, "device memory race between threadgroups (read after write) on a[0]");
    expect_lines(&c, raw, w, r);
    assert_int_equal(raw->count, 64);
    done(&c);
}

/* Found by the run fuzzer: a constant load (ld_const) reads whatever buffer its base names,
 * here `c`, which the kernel also stores to. Thread 0 of each SIMD-group stores c[0] while
 * every SIMD-group loads c[0] as its count: the load must race with the store like a device
 * load, not pass unseen as a load from a read-only constant buffer. */
static void test_constant_load_of_a_written_buffer(void **state)
{
    (void)state;
    const char *src = ".kernel k\n"
                      ".regs 4\n"
                      ".arg c, device, u0\n"
                      "    get_sr r1, thread_position_in_grid.x\n"
                      "    ld_const.b32 r2, u0, 0\n"
                      "    mov r3, 7\n"
                      "    st_dev.b32 r3, u0, r1\n"
                      "    stop\n";
    Checked c;
    memset(&c, 0, sizeof c);
    h_init(&c.h, src);
    h_buffer(&c.h, 0, "c", 4096, MEM_SPACE_DEVICE);
    run(&c, 64, 32);
    /* SIMD-group 0 stored c[0] = 7; threadgroup 1's loads of c[0] come after it */
    const CheckFinding *raw =
        find(&c, "device memory race between threadgroups (read after write) on c[0]");
    assert_int_equal(raw->first.access, CHECK_ACCESS_WRITE);
    assert_int_equal(raw->second.access, CHECK_ACCESS_READ);
    assert_int_equal(raw->second.thread.threadgroup[0], 1);
    done(&c);
}

/* Found by the run fuzzer: thread 0 reads a slot, then writes 5 to it; thread 32 (another
 * SIMD-group, nothing ordering them) writes 5 too. The writes agree, but thread 0's read
 * could have seen either value: under the same-value policy this is still a race (a write
 * after write, the first a read-modify-write). Without the read it is benign. */
static void test_read_modify_write_then_same_value(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device uint *out [[buffer(0)]], uint tid [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup uint slot[1];\n"
        "    if (tid == 0) slot[0] = 1;\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    if (tid == 0) { out[0] = slot[0]; slot[0] = 5; } // W\n"
        "    if (tid == 32) slot[0] = 5; // X\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "}\n";
    Checked c;
    setup(&c, src, 16);
    run(&c, 64, 64);
    const CheckFinding *waw = find(&c, "threadgroup memory race (write after write) on slot[0]");
    expect_lines(&c, waw, line_of(src, "// W"), line_of(src, "// X"));
    assert_int_equal(waw->severity, CHECK_ERROR);
    done(&c);
    const char *benign =
        "kernel void k(device uint *out [[buffer(0)]], uint tid [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup uint slot[1];\n"
        "    if (tid == 0) slot[0] = 5;\n"
        "    if (tid == 32) slot[0] = 5;\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    if (tid == 0) out[0] = slot[0];\n"
        "}\n";
    setup(&c, benign, 16);
    run(&c, 64, 64);
    expect_count(&c, 0);
    done(&c);
}

/* The same for a whole SIMD-group: SIMD-group 0 reads slot[0..31] and writes them back
 * (32 consecutive words, each read then written by its own lane: read-modify-writes, taken
 * a block at a time), then SIMD-group 1 writes the same values with nothing ordering it:
 * every word is a race under the same-value policy. Without the reads it is benign. */
static void test_read_modify_write_block_then_same_value(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device uint *out [[buffer(0)]], uint tid [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup uint slot[32];\n"
        "    if (tid < 32) slot[tid] = 5;\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    if (tid < 32) { uint v = slot[tid]; slot[tid] = v; } // W\n"
        "    if (tid >= 32) slot[tid - 32] = 5; // X\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    out[tid] = slot[tid % 32];\n"
        "}\n";
    Checked c;
    setup(&c, src, 256);
    run(&c, 64, 64);
    expect_count(&c, 1);
    const CheckFinding *waw = find(&c, "threadgroup memory race (write after write) on slot[0]");
    expect_lines(&c, waw, line_of(src, "// W"), line_of(src, "// X"));
    assert_int_equal(waw->count, 32); /* one per racing thread of SIMD-group 1 */
    done(&c);
    const char *benign =
        "kernel void k(device uint *out [[buffer(0)]], uint tid [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup uint slot[32];\n"
        "    if (tid < 32) slot[tid] = 5;\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    if (tid < 32) slot[tid] = 5;\n"
        "    if (tid >= 32) slot[tid - 32] = 5;\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    out[tid] = slot[tid % 32];\n"
        "}\n";
    setup(&c, benign, 256);
    run(&c, 64, 64);
    expect_count(&c, 0);
    done(&c);
}

/* De-duplication: one thread of threadgroup 0 stores, 256 threads of threadgroups 1..8 load —
 * one finding, counted once per racing load. */
static void test_dedup_counts_accesses(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device uint *data [[buffer(0)]], device uint *out [[buffer(1)]],\n"
        "              uint gid [[thread_position_in_grid]]) {\n"
        "    if (gid == 0)\n"
        "        data[0] = 42; // W\n"
        "    out[gid] = data[0]; // R\n"
        "}\n";
    Checked c;
    setup(&c, src, 2048);
    run(&c, 288, 32);
    expect_count(&c, 1);
    const CheckFinding *raw = find(&c, "device memory race between threadgroups (read after write) on data[0]");
    expect_lines(&c, raw, line_of(src, "// W"), line_of(src, "// R"));
    assert_int_equal(raw->count, 256);
    assert_int_equal(raw->first.thread.grid[0], 0);
    done(&c);
}

/* ---- correct kernels that naive checkers flag --------------------------------------------- */

static void test_same_value_writes_benign(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device uint *flag [[buffer(0)]], device const float *in [[buffer(1)]],\n"
        "              uint gid [[thread_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup uint shared[1];\n"
        "    if (in[gid] >= 0.0f) {\n"
        "        flag[0] = 1; // F\n"
        "        shared[0] = 1; // S\n"
        "    }\n"
        "}\n";
    Checked c;
    setup(&c, src, 1024);
    run(&c, 256, 64);
    expect_silent(&c);
    done(&c);

    /* the policy flag turns them into warnings: 255 racing stores to flag (every store but
     * the first), 3 x 63 to each threadgroup's shared[0] */
    setup(&c, src, 1024);
    CheckOptions o = races_only();
    o.same_value_races = true;
    run_opts(&c, 256, 64, &o);
    uint32_t f = line_of(src, "// F"), s = line_of(src, "// S");
    const CheckFinding *dev = NULL, *tg = NULL;
    uint64_t dev_count = 0, tg_count = 0;
    for (uint32_t i = 0; i < c.n; i++) {
        assert_int_equal(c.f[i].severity, CHECK_WARNING);
        assert_non_null(strstr(c.f[i].message, "write after write, same value"));
        assert_non_null(strstr(c.f[i].fix, "same_value_races"));
        if (c.f[i].first.space == MEM_SPACE_DEVICE) {
            dev = &c.f[i];
            dev_count += c.f[i].count;
            expect_lines(&c, dev, f, f);
        } else {
            tg = &c.f[i];
            tg_count += c.f[i].count;
            expect_lines(&c, tg, s, s);
        }
    }
    assert_non_null(dev);
    assert_non_null(tg);
    assert_int_equal(dev_count, 255);
    assert_int_equal(tg_count, 4 * 63);
    done(&c);
}

/* Different values stored by the lanes of one instruction are a race even in lockstep. */
static void test_same_instruction_different_values(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device uint *out [[buffer(0)]], uint tid [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup uint shared[4];\n"
        "    shared[0] = tid; // S\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    out[tid] = shared[0];\n"
        "}\n";
    Checked c;
    setup(&c, src, 256);
    run(&c, 32, 32);
    uint32_t s = line_of(src, "// S");
    expect_count(&c, 1);
    const CheckFinding *f = find(&c, "threadgroup memory race (write after write) on shared[0]");
    expect_lines(&c, f, s, s);
    assert_int_equal(f->count, 31);
    expect_fix(&c, f, fmt("threads of one instruction at line %u store different values to the same "
                          "element: give each thread its own element, or use an atomic", s));
    done(&c);
}

static void test_disjoint_indices_silent(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
        "              device half *h [[buffer(2)]], device uchar *bytes [[buffer(3)]],\n"
        "              uint gid [[thread_position_in_grid]]) {\n"
        "    out[gid] = in[gid] * 2.0f;\n"
        "    h[gid] = half(in[gid]);\n"
        "    bytes[gid] = uchar(gid);\n"
        "    out[gid] += 1.0f;\n"
        "}\n";
    Checked c;
    setup(&c, src, 4096);
    run(&c, 512, 128);
    expect_silent(&c);
    done(&c);
}

/* Sub-word accesses are checked per byte: neighbouring uchars by different threadgroups are
 * not a race; the same uchar is. */
static void test_bytes_are_separate(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device uchar *bytes [[buffer(0)]], uint gid [[thread_position_in_grid]],\n"
        "              uint tg [[threadgroup_position_in_grid]]) {\n"
        "    if (gid % 32 == 0)\n"
        "        bytes[tg] = uchar(tg + 1); // A\n"
        "    if (gid % 32 == 0)\n"
        "        bytes[8] = uchar(tg + 1); // B\n"
        "}\n";
    Checked c;
    setup(&c, src, 64);
    run(&c, 128, 32);
    expect_count(&c, 1);
    const CheckFinding *f = find(&c, "device memory race between threadgroups (write after write) on bytes[8]");
    expect_lines(&c, f, line_of(src, "// B"), line_of(src, "// B"));
    assert_int_equal(f->count, 3);
    assert_int_equal(f->second.offset, 8);
    done(&c);
}

static void test_barrier_separated_reuse_silent(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
        "              uint tid [[thread_index_in_threadgroup]], uint gid [[thread_position_in_grid]]) {\n"
        "    threadgroup float shared[128];\n"
        "    shared[tid] = in[gid];\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    float a = shared[127 - tid];\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    shared[tid] = a * 2.0f;\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    float b = shared[(tid + 64) % 128];\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    shared[(tid + 1) % 128] = b;\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    out[gid] = shared[tid];\n"
        "}\n";
    Checked c;
    setup(&c, src, 4096);
    run(&c, 512, 128);
    expect_silent(&c);
    done(&c);
}

/* Device memory ordered by threadgroup_barrier(mem_device) inside a threadgroup is not a race. */
static void test_device_barrier_in_threadgroup_silent(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device float *buf [[buffer(0)]], uint tid [[thread_index_in_threadgroup]],\n"
        "              uint tg [[threadgroup_position_in_grid]]) {\n"
        "    buf[tg * 64 + tid] = float(tid);\n"
        "    threadgroup_barrier(mem_flags::mem_device);\n"
        "    float v = buf[tg * 64 + 63 - tid];\n"
        "    threadgroup_barrier(mem_flags::mem_device);\n"
        "    buf[tg * 64 + tid] = v;\n"
        "}\n";
    Checked c;
    setup(&c, src, 4096);
    run(&c, 256, 64);
    expect_silent(&c);
    done(&c);
}

/* ---- SIMD-group lockstep ------------------------------------------------------------------ */

#define SWAP(BETWEEN)                                                                          \
    "kernel void k(device uint *out [[buffer(0)]], uint tid [[thread_index_in_threadgroup]]) {\n" \
    "    threadgroup uint shared[64];\n"                                                       \
    "    shared[tid] = tid * 3; // W\n"                                                        \
    "    " BETWEEN "\n"                                                                        \
    "    out[tid] = shared[tid ^ 1]; // R\n"                                                   \
    "}\n"

static void test_lockstep_ordered_by_default(void **state)
{
    (void)state;
    Checked c;
    setup(&c, SWAP(""), 256);
    run(&c, 64, 64);
    expect_silent(&c);
    uint32_t *out = h_data(&c.h, 0);
    for (uint32_t i = 0; i < 64; i++)
        CH_IEQ(out[i], (i ^ 1) * 3, i);
    done(&c);
}

static void test_strict_simd_reports(void **state)
{
    (void)state;
    const char *src = SWAP("");
    Checked c;
    setup(&c, src, 256);
    CheckOptions o = races_only();
    o.strict_simd = true;
    run_opts(&c, 64, 64, &o);
    uint32_t w = line_of(src, "// W"), r = line_of(src, "// R");
    expect_count(&c, 1);
    const CheckFinding *f = find(&c, "threadgroup memory race (read after write) on shared[1]");
    expect_lines(&c, f, w, r);
    assert_int_equal(f->count, 64);
    assert_int_equal(f->first.thread.lane, 1);
    assert_int_equal(f->second.thread.lane, 0);
    expect_fix(&c, f, fmt("add simdgroup_barrier(mem_threadgroup) between line %u and line %u "
                          "(strict_simd: lanes of a SIMD-group are not assumed to run in lockstep)", w, r));
    done(&c);

    /* a simdgroup_barrier orders them under strict_simd too */
    setup(&c, SWAP("simdgroup_barrier(mem_flags::mem_threadgroup);"), 256);
    run_opts(&c, 64, 64, &o);
    expect_silent(&c);
    done(&c);
}

/* Under strict_simd, lanes of one SIMD-group adding to one element at one line: no barrier
 * can go between them, so the advice is an atomic or an element each. */
static void test_strict_simd_same_line(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device uint *out [[buffer(0)]], uint lid [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup uint tile[1];\n"
        "    if (lid == 0) tile[0] = 0;\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    tile[0] += lid; // A\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    if (lid == 0) out[0] = tile[0];\n"
        "}\n";
    Checked c;
    setup(&c, src, 256);
    CheckOptions o = races_only();
    o.strict_simd = true;
    run_opts(&c, 32, 32, &o);
    const CheckFinding *f = find(&c, "threadgroup memory race (write after read) on tile[0]");
    expect_fix(&c, f, fmt("lanes of one SIMD-group read and write the same element at line %u: "
                          "give each lane its own, or use an atomic (strict_simd: lanes of a "
                          "SIMD-group are not assumed to run in lockstep)", line_of(src, "// A")));
    done(&c);
}

/* Under strict_simd, a simdgroup_barrier whose flags do not cover the memory: the fix names
 * it and its flags (it said to add a simdgroup_barrier where one already was); with the
 * right flags, silent. */
static void test_strict_simd_barrier_flags(void **state)
{
    (void)state;
    for (int right = 0; right < 2; right++) {
        char src[1024];
        snprintf(src, sizeof src,
                 "kernel void k(device uint *out [[buffer(0)]], uint lid [[thread_index_in_threadgroup]]) {\n"
                 "    threadgroup uint tile[32];\n"
                 "    tile[lid] = lid; // W\n"
                 "    simdgroup_barrier(mem_flags::%s); // B\n"
                 "    out[lid] = tile[lid ^ 1]; // R\n"
                 "}\n", right ? "mem_threadgroup" : "mem_none");
        Checked c;
        setup(&c, src, 256);
        CheckOptions o = races_only();
        o.strict_simd = true;
        run_opts(&c, 32, 32, &o);
        if (right) {
            expect_silent(&c);
        } else {
            const CheckFinding *f = find(&c, "threadgroup memory race (read after write) on tile[1]");
            expect_lines(&c, f, line_of(src, "// W"), line_of(src, "// R"));
            expect_fix(&c, f, fmt("the simdgroup_barrier at line %u has mem_flags::mem_none: it "
                                  "does not order threadgroup memory; use simdgroup_barrier("
                                  "mem_threadgroup) (strict_simd: lanes of a SIMD-group are not "
                                  "assumed to run in lockstep)", line_of(src, "// B")));
        }
        done(&c);
    }
}

/* ---- cost ------------------------------------------------------------------------------------ */

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The race-free reduction with and without the race checker; the ratio is printed only. */
static void test_slowdown(void **state)
{
    (void)state;
    enum { N = 1 << 16, REPS = 3 };
    Checked c;
    setup(&c, REDUCE("threadgroup_barrier(mem_flags::mem_threadgroup);"), N * 4);
    double best_off = 1e9, best_on = 1e9;
    for (int rep = 0; rep < REPS; rep++) {
        h_grid(&c.h, false, N, 1, 1, 256, 1, 1);
        c.h.launch.observers = NULL;
        c.h.launch.num_observers = 0;
        double t0 = seconds();
        h_run(&c.h);
        double t1 = seconds();
        best_off = t1 - t0 < best_off ? t1 - t0 : best_off;
        CheckOptions o = races_only();
        t0 = seconds();
        run_opts(&c, N, 256, &o);
        t1 = seconds();
        best_on = t1 - t0 < best_on ? t1 - t0 : best_on;
        expect_silent(&c);
        check_session_free(c.s);
        c.s = NULL;
    }
    print_message("race checker slowdown on a %d-thread reduction: %.2fx (%.1f ms off, %.1f ms on)\n",
                  N, best_on / best_off, best_off * 1e3, best_on * 1e3);
    done(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_barrier),
        cmocka_unit_test(test_barrier_silences),
        cmocka_unit_test(test_barrier_mem_none),
        cmocka_unit_test(test_barrier_mem_device),
        cmocka_unit_test(test_reduction_missing_barrier),
        cmocka_unit_test(test_reduction_correct_silent),
        cmocka_unit_test(test_read_then_overwrite),
        cmocka_unit_test(test_device_counter_plus_plus),
        cmocka_unit_test(test_dedup_counts_accesses),
        cmocka_unit_test(test_broadcast_reads_then_write),
        cmocka_unit_test(test_repeated_reads_in_lane_order),
        cmocka_unit_test(test_store_through_pointer_register),
        cmocka_unit_test(test_constant_load_of_a_written_buffer),
        cmocka_unit_test(test_read_modify_write_then_same_value),
        cmocka_unit_test(test_same_value_writes_benign),
        cmocka_unit_test(test_same_instruction_different_values),
        cmocka_unit_test(test_disjoint_indices_silent),
        cmocka_unit_test(test_bytes_are_separate),
        cmocka_unit_test(test_barrier_separated_reuse_silent),
        cmocka_unit_test(test_device_barrier_in_threadgroup_silent),
        cmocka_unit_test(test_lockstep_ordered_by_default),
        cmocka_unit_test(test_strict_simd_reports),
        cmocka_unit_test(test_strict_simd_same_line),
        cmocka_unit_test(test_strict_simd_barrier_flags),
        cmocka_unit_test(test_read_modify_write_block_then_same_value),
        cmocka_unit_test(test_slowdown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
