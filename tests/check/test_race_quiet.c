/*
 * test_race_quiet.c — the race detector's log of quiet threadgroup reads (check/race.c):
 * reads after a barrier that orders threadgroup memory, before any threadgroup write, are
 * logged instead of applied, dropped by the next such barrier and applied, in order, by
 * anything else. Each case is one way the log could lose or invent a read: a barrier that
 * does not order threadgroup memory (mem_none) must keep it; a full log must be applied,
 * not dropped; reads of several words per lane must all count; a new threadgroup must not
 * inherit the last one's log; an instruction whose reads were once needed is applied at
 * once from then on and must be found the same in the next threadgroup.
 *
 * Expected lines come from markers in the kernel text, counts and threads from the
 * simulator's documented schedule (threadgroups one at a time; within one, SIMD-groups in
 * index order, each to its next barrier).
 */
#include "race_harness.h"

/* The one finding every case here expects: thread 0's write (line // W) races with thread
 * 32's read (line // R) of shared[0], `count` times in all. */
static const CheckFinding *expect_war_on_slot0(const Checked *c, const char *src, uint64_t count)
{
    expect_count(c, 1);
    const CheckFinding *war = find(c, "threadgroup memory race (write after read) on shared[0]");
    expect_lines(c, war, line_of(src, "// R"), line_of(src, "// W"));
    assert_int_equal(war->count, count);
    assert_int_equal(war->first.access, CHECK_ACCESS_READ);
    assert_int_equal(war->first.thread.local[0], 32);
    assert_int_equal(war->second.thread.local[0], 0);
    return war;
}

/* Each SIMD-group reads the other's half after a barrier, then a mem_none barrier (which
 * orders execution only), then each thread overwrites its own slot: every write races with
 * the other SIMD-group's read of it. The reads are logged and still there at the write. */
#define SWAP(TYPE, READ, WRITE)                                                                 \
    "kernel void k(device " TYPE " *out [[buffer(0)]],\n"                                       \
    "              uint tid [[thread_index_in_threadgroup]]) {\n"                              \
    "    threadgroup " TYPE " shared[64];\n"                                                    \
    "    shared[tid] = " TYPE "(float(tid));\n"                                                 \
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"                                    \
    "    " TYPE " v = shared[(tid + 32) % 64]; " READ " // R\n"                                 \
    "    threadgroup_barrier(mem_flags::mem_none); // B\n"                                      \
    "    " WRITE " // W\n"                                                                      \
    "    out[tid] = v;\n"                                                                       \
    "}\n"

/* Two threadgroups: in the first the reads are logged and the write applies them; from
 * then on the read is applied at once, and the second threadgroup's races are the same. */
static void test_mem_none_keeps_logged_reads(void **state)
{
    (void)state;
    const char *src = SWAP("float", "", "shared[tid] = v + 1.0f;");
    Checked c;
    setup(&c, src, 512);
    run(&c, 128, 64);
    const CheckFinding *war = expect_war_on_slot0(&c, src, 128); /* 64 writes per threadgroup */
    expect_fix(&c, war, fmt("the barrier at line %u has mem_flags::mem_none: it orders execution "
                            "only; use mem_threadgroup", line_of(src, "// B")));
    float *out = h_data(&c.h, 0); /* both threadgroups store out[0..63] alike */
    for (int i = 0; i < 64; i++)
        CH_FEQ(out[i], (float)((i + 32) % 64), i);
    done(&c);
}

/* float4 lanes read four words each (16 bytes apart: the coalesced path); the write then
 * touches only the third word of each slot, so it races only if every word of the logged
 * reads was applied. */
static void test_logged_vector_reads_every_word(void **state)
{
    (void)state;
    const char *src = SWAP("float4", "", "shared[tid].z = v.x;");
    Checked c;
    setup(&c, src, 64 * 16);
    run(&c, 64, 64);
    const CheckFinding *war = expect_war_on_slot0(&c, src, 64);
    assert_int_equal(war->second.offset, 8); /* slot 0's third word */
    done(&c);
}

/* Only the even lanes read (a partial mask: the log keeps it, and the lanes' bounds are
 * found under it): only the writes of even slots race, not those of the slots the odd
 * lanes' unused addresses name. */
static void test_logged_partial_reads(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device float *out [[buffer(0)]],\n"
        "              uint tid [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup float shared[64];\n"
        "    shared[tid] = float(tid);\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    float v = 0.0f;\n"
        "    if (tid % 2 == 0) v = shared[(tid + 32) % 64]; // R\n"
        "    threadgroup_barrier(mem_flags::mem_none);\n"
        "    shared[tid] = v + 1.0f; // W\n"
        "    out[tid] = v;\n"
        "}\n";
    Checked c;
    setup(&c, src, 256);
    run(&c, 64, 64);
    expect_war_on_slot0(&c, src, 32); /* the 32 writes of even slots */
    float *out = h_data(&c.h, 0);
    for (int i = 0; i < 64; i++)
        CH_FEQ(out[i], i % 2 == 0 ? (float)((i + 32) % 64) : 0.0f, i);
    done(&c);
}

/* 2 x 600 logged reads overflow the log (1024 entries), which is then applied and started
 * again. Each SIMD-group reads the other's half in its first 300 iterations and its own
 * after: SIMD-group 1's reads of shared[0..31] all sit in the part applied when the log
 * was full, and the race with thread 0's write needs them. Thread 32 is their latest
 * reader of shared[0] (lanes read their partner's slot only). */
static void test_full_log_is_applied(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device float *out [[buffer(0)]],\n"
        "              uint tid [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup float shared[64];\n"
        "    shared[tid] = float(tid);\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    float acc = 0.0f;\n"
        "    for (uint i = 0; i < 600; i++)\n"
        "        acc += shared[i < 300 ? (tid + 32) % 64 : tid]; // R\n"
        "    threadgroup_barrier(mem_flags::mem_none);\n"
        "    shared[tid] = acc; // W\n"
        "    out[tid] = acc;\n"
        "}\n";
    Checked c;
    setup(&c, src, 256);
    run(&c, 64, 64);
    expect_war_on_slot0(&c, src, 64);
    float *out = h_data(&c.h, 0);
    for (int t = 0; t < 64; t++)
        CH_FEQ(out[t], 300.0f * (float)((t + 32) % 64) + 300.0f * (float)t, t);
    done(&c);
}

/* The first threadgroup ends with its reads still logged (nothing after them touches
 * threadgroup memory); the second starts with a write of every slot. That write must not
 * meet the first threadgroup's reads: threadgroup memory is the new threadgroup's own. */
static void test_log_ends_with_threadgroup(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device float *out [[buffer(0)]],\n"
        "              uint tid [[thread_index_in_threadgroup]],\n"
        "              uint gid [[thread_position_in_grid]]) {\n"
        "    threadgroup float shared[64];\n"
        "    shared[tid] = float(gid);\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    out[gid] = shared[(tid + 32) % 64];\n"
        "}\n";
    Checked c;
    setup(&c, src, 512);
    run(&c, 128, 64);
    expect_silent(&c);
    float *out = h_data(&c.h, 0);
    for (int g = 0; g < 128; g++)
        CH_FEQ(out[g], (float)(g / 64 * 64 + (g % 64 + 32) % 64), g);
    done(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mem_none_keeps_logged_reads),
        cmocka_unit_test(test_logged_vector_reads_every_word),
        cmocka_unit_test(test_logged_partial_reads),
        cmocka_unit_test(test_full_log_is_applied),
        cmocka_unit_test(test_log_ends_with_threadgroup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
