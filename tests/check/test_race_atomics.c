/*
 * test_race_atomics.c — the data-race detector on atomics: atomics meet only plain accesses
 * they are unordered with (an earlier threadgroup's load, a store with no barrier between,
 * reads by other SIMD-groups), never other atomics, and a barrier orders them like any
 * access. Each case is found with its message, lines, threads and count, or stays silent.
 *
 * Expected lines come from markers in the kernel text, expected counts from reasoning about
 * the simulator's documented schedule (threadgroups one at a time; within one, SIMD-groups in
 * index order, each to its next barrier) and the detector's documented memory (the last
 * write, and the reads since the last plain write).
 */
#include "race_harness.h"

/* ---- atomics -------------------------------------------------------------------------------- */

#define ATOMIC_ARGS                                                                              \
    "kernel void k(device atomic_uint *counter [[buffer(0)]], device uint *plain [[buffer(1)]],\n" \
    "              device uint *out [[buffer(2)]], uint lid [[thread_index_in_threadgroup]],\n"     \
    "              uint tg [[threadgroup_position_in_grid]]) {\n"

/* plain aliases counter: both arguments are bound to the one buffer. */
/* A finding's count, and each of its two accesses' kind and thread (its index in the
 * threadgroup). */
static void expect_pair(const CheckFinding *f, uint64_t count, CheckAccessKind first,
                        uint32_t first_local, CheckAccessKind second, uint32_t second_local)
{
    assert_int_equal(f->count, count);
    assert_int_equal(f->first.access, first);
    assert_int_equal(f->first.thread.local[0], first_local);
    assert_int_equal(f->second.access, second);
    assert_int_equal(f->second.thread.local[0], second_local);
}

static void setup_aliased(Checked *c, const char *src)
{
    setup(c, src, 64);
    c->h.bind[1].buffer = c->h.bind[0].buffer;
}

/* Threadgroup 0's lane 0 loads the counter plainly; each of threadgroup 1's 32 atomics races
 * with that load (threadgroups never synchronize, and atomics do not end a plain read's
 * reach as a plain store would). */
static void test_atomic_vs_plain_across_threadgroups(void **state)
{
    (void)state;
    const char *src = ATOMIC_ARGS
        "    atomic_fetch_add_explicit(&counter[0], 1u, memory_order_relaxed); // A\n"
        "    if (lid == 0)\n"
        "        out[tg] = plain[0]; // P\n"
        "}\n";
    Checked c;
    setup_aliased(&c, src);
    run(&c, 64, 32);
    expect_count(&c, 1);
    const CheckFinding *f = find(&c, "atomic and non-atomic access race between threadgroups on counter[0]");
    expect_lines(&c, f, line_of(src, "// P"), line_of(src, "// A"));
    assert_int_equal(f->count, 32);
    assert_int_equal(f->first.access, CHECK_ACCESS_READ);
    assert_int_equal(f->second.access, CHECK_ACCESS_ATOMIC);
    assert_int_equal(f->first.thread.grid[0], 0);
    assert_int_equal(f->second.thread.grid[0], 32);
    expect_fix(&c, f, "threadgroups cannot synchronize: use atomics for every access to counter[0], "
                      "or separate dispatches");
    uint32_t *out = h_data(&c.h, 2);
    assert_int_equal(out[0], 32);
    assert_int_equal(out[1], 64);
    done(&c);
}

/* Within one threadgroup: both SIMD-groups add atomically, then thread 40 stores plainly with
 * no barrier; SIMD-group 0's atomics are unordered with that store. */
static void test_atomic_vs_plain_in_threadgroup(void **state)
{
    (void)state;
    const char *src = ATOMIC_ARGS
        "    atomic_fetch_add_explicit(&counter[0], 1u, memory_order_relaxed); // A\n"
        "    if (lid == 40)\n"
        "        plain[0] = 0; // P\n"
        "}\n";
    Checked c;
    setup_aliased(&c, src);
    run(&c, 64, 64);
    expect_count(&c, 1);
    const CheckFinding *f = find(&c, "atomic and non-atomic access race on counter[0]");
    uint32_t a = line_of(src, "// A"), p = line_of(src, "// P");
    expect_lines(&c, f, a, p);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->first.access, CHECK_ACCESS_ATOMIC);
    assert_int_equal(f->first.thread.simdgroup, 0);
    assert_int_equal(f->second.thread.local[0], 40);
    expect_fix(&c, f, fmt("no threadgroup_barrier(mem_device) between line %u and line %u, or use "
                          "atomics for every access", a, p));
    done(&c);
}

/* An atomic meeting an unordered plain write: SIMD-group 0's lane 0 stores, then SIMD-group
 * 1's atomics run with no barrier between. Each of them races with the store: an atomic
 * does not take the place of a plain write others are unordered with (32 races). */
static void test_atomic_after_plain_write(void **state)
{
    (void)state;
    const char *src = ATOMIC_ARGS
        "    if (lid == 0)\n"
        "        plain[0] = 7u; // P\n"
        "    if (lid >= 32)\n"
        "        atomic_fetch_add_explicit(&counter[0], 1u, memory_order_relaxed); // A\n"
        "}\n";
    Checked c;
    setup_aliased(&c, src);
    run(&c, 64, 64);
    expect_count(&c, 1);
    const CheckFinding *f = find(&c, "atomic and non-atomic access race on counter[0]");
    expect_lines(&c, f, line_of(src, "// P"), line_of(src, "// A"));
    expect_pair(f, 32, CHECK_ACCESS_WRITE, 0, CHECK_ACCESS_ATOMIC, 32);
    assert_int_equal(((uint32_t *)h_data(&c.h, 0))[0], 7 + 32);
    done(&c);
}

/* An atomic meeting an unordered plain read: the read stays among the reads since the last
 * plain write (an atomic does not end them, as a plain store would), so each of SIMD-group
 * 1's 32 atomics races with it. */
static void test_atomic_after_plain_read(void **state)
{
    (void)state;
    const char *src = ATOMIC_ARGS
        "    if (lid == 0)\n"
        "        out[0] = plain[0]; // P\n"
        "    if (lid >= 32)\n"
        "        atomic_fetch_add_explicit(&counter[0], 1u, memory_order_relaxed); // A\n"
        "}\n";
    Checked c;
    setup_aliased(&c, src);
    run(&c, 64, 64);
    expect_count(&c, 1);
    const CheckFinding *f = find(&c, "atomic and non-atomic access race on counter[0]");
    expect_lines(&c, f, line_of(src, "// P"), line_of(src, "// A"));
    assert_int_equal(f->count, 32);
    assert_int_equal(f->first.access, CHECK_ACCESS_READ);
    assert_int_equal(f->second.access, CHECK_ACCESS_ATOMIC);
    done(&c);
}

/* The word's latest read is plain and its older one atomic (SIMD-groups 0, 1, 2 in turn,
 * no barrier): SIMD-group 2's atomic races with SIMD-group 1's read, not with the atomic
 * before it. Two findings: atomic then read, read then atomic. */
static void test_atomic_after_mixed_reads(void **state)
{
    (void)state;
    const char *src = ATOMIC_ARGS
        "    if (lid == 0)\n"
        "        atomic_fetch_add_explicit(&counter[0], 1u, memory_order_relaxed); // A0\n"
        "    if (lid == 32)\n"
        "        out[0] = plain[0]; // P\n"
        "    if (lid == 64)\n"
        "        atomic_fetch_add_explicit(&counter[0], 1u, memory_order_relaxed); // A2\n"
        "}\n";
    Checked c;
    setup_aliased(&c, src);
    run(&c, 96, 96);
    expect_count(&c, 2);
    const uint32_t a0 = line_of(src, "// A0"), p = line_of(src, "// P"), a2 = line_of(src, "// A2");
    bool seen_a0_p = false, seen_p_a2 = false;
    for (uint32_t i = 0; i < c.n; i++) {
        const CheckFinding *f = &c.f[i];
        assert_int_equal(f->kind, CHECK_RACE);
        assert_int_equal(f->count, 1);
        uint32_t first = line_at(c.h.prog, f->first.pc), second = line_at(c.h.prog, f->second.pc);
        seen_a0_p |= first == a0 && second == p;
        seen_p_a2 |= first == p && second == a2;
    }
    if (!seen_a0_p || !seen_p_a2) {
        dump(&c);
        fail_msg("want races %u -> %u and %u -> %u", a0, p, p, a2);
    }
    done(&c);
}

/* A plain access, then an atomic by another lane of the same SIMD-group (ordered with it by
 * lockstep), then an atomic by another SIMD-group or threadgroup: the last races with the
 * plain access, which the first atomic must not hide. Device and threadgroup memory, a plain
 * write or read, and one threadgroup or two. */
static void test_atomic_in_writer_simdgroup_hides_nothing(void **state)
{
    (void)state;
    static const char *const plain[] = {"((device uint *)c)[0] = 5u; // P",
                                        "out[gid] = ((device uint *)c)[0]; // P"};
    for (int tgmem = 0; tgmem < 2; tgmem++)
        for (int k = 0; k < 2; k++)
            for (uint32_t tg = 32; tg <= 64; tg += 32) {
                if (tgmem && tg == 32)
                    continue; /* threadgroup memory is per threadgroup */
                char src[1024];
                snprintf(src, sizeof src,
                         "kernel void k(device atomic_uint *dc [[buffer(0)]],\n"
                         "              device uint *out [[buffer(1)]],\n"
                         "              uint gid [[thread_position_in_grid]]) {\n"
                         "    threadgroup atomic_uint tc[1];\n"
                         "    %s *c = %s;\n"
                         "    if (gid == 0) atomic_store_explicit(&c[0], 0u, memory_order_relaxed);\n"
                         "    threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);\n"
                         "    if (gid == 0) %s\n"
                         "    if (gid == 1 || gid == 40)\n"
                         "        atomic_fetch_add_explicit(&c[0], 1u, memory_order_relaxed); // A\n"
                         "}\n",
                         tgmem ? "threadgroup atomic_uint" : "device atomic_uint",
                         tgmem ? "tc" : "dc", tgmem ? (k ? "out[gid] = ((threadgroup uint *)c)[0]; // P"
                                                          : "((threadgroup uint *)c)[0] = 5u; // P")
                                                    : plain[k]);
                Checked c;
                setup(&c, src, 256);
                run(&c, 64, tg);
                const CheckFinding *f = find(&c, tgmem ? "atomic and non-atomic access race on tc[0]"
                                                 : tg == 32 ? "atomic and non-atomic access race "
                                                              "between threadgroups on dc[0]"
                                                            : "atomic and non-atomic access race on dc[0]");
                expect_lines(&c, f, line_of(src, "// P"), line_of(src, "// A"));
                assert_int_equal(f->first.thread.grid[0], 0);
                assert_int_equal(f->second.thread.grid[0], 40);
                assert_int_equal(f->first.access, k ? CHECK_ACCESS_READ : CHECK_ACCESS_WRITE);
                done(&c);
            }
}

/* The same accesses with a barrier between: silent, and the atomics still count. */
static void test_atomic_after_barrier_silent(void **state)
{
    (void)state;
    const char *src = ATOMIC_ARGS
        "    if (lid == 0)\n"
        "        plain[0] = 7u;\n"
        "    if (lid == 1)\n"
        "        out[0] = plain[1];\n"
        "    threadgroup_barrier(mem_flags::mem_device);\n"
        "    if (lid >= 32) {\n"
        "        atomic_fetch_add_explicit(&counter[0], 1u, memory_order_relaxed);\n"
        "        atomic_fetch_add_explicit(&counter[1], 2u, memory_order_relaxed);\n"
        "    }\n"
        "}\n";
    Checked c;
    setup_aliased(&c, src);
    run(&c, 64, 64);
    expect_silent(&c);
    const uint32_t *counter = h_data(&c.h, 0);
    assert_int_equal(counter[0], 7 + 32);
    assert_int_equal(counter[1], 64);
    done(&c);
}

static void test_atomics_only_silent(void **state)
{
    (void)state;
    const char *src = ATOMIC_ARGS
        "    atomic_fetch_add_explicit(&counter[0], 1u, memory_order_relaxed);\n"
        "    atomic_fetch_max_explicit(&counter[1], lid, memory_order_relaxed);\n"
        "    out[tg * 64 + lid] = atomic_load_explicit(&counter[2], memory_order_relaxed);\n"
        "}\n";
    Checked c;
    setup(&c, src, 4096);
    run(&c, 256, 64);
    expect_silent(&c);
    uint32_t *counter = h_data(&c.h, 0);
    assert_int_equal(counter[0], 256);
    assert_int_equal(counter[1], 63);
    done(&c);
}

/* An atomic load (atomic_load_explicit) is an atomic read: against a plain read of the same
 * word nothing races (two reads), against atomics nothing races, and against a plain write
 * it is a race like any atomic. Threadgroup 0 reads plainly, threadgroup 1 loads
 * atomically (device memory: threadgroups never order), first without a write, then with
 * threadgroup 1 also adding and threadgroup 0 storing. */
static void test_atomic_load_is_a_read(void **state)
{
    (void)state;
    const char *quiet = ATOMIC_ARGS
        "    if (tg == 0) out[lid] = plain[0];\n"
        "    else out[64 + lid] = atomic_load_explicit(&counter[0], memory_order_relaxed);\n"
        "    if (tg == 1) atomic_fetch_add_explicit(&counter[1], 1u, memory_order_relaxed);\n"
        "    out[128 + tg * 64 + lid] = atomic_load_explicit(&counter[1], memory_order_relaxed);\n"
        "}\n";
    Checked c;
    setup(&c, quiet, 2048);
    c.h.bind[1].buffer = c.h.bind[0].buffer;
    run(&c, 128, 64);
    expect_silent(&c);
    done(&c);
    const char *racy = ATOMIC_ARGS
        "    if (tg == 0 && lid == 0) plain[0] = 5u; // W\n"
        "    if (tg == 1) out[lid] = atomic_load_explicit(&counter[0], memory_order_relaxed); // L\n"
        "    if (tg == 1 && lid == 0) out[100] = atomic_load_explicit(&counter[1], memory_order_relaxed); // M\n"
        "    if (tg == 2 && lid == 0) plain[1] = 6u; // X\n"
        "}\n";
    setup(&c, racy, 1024);
    c.h.bind[1].buffer = c.h.bind[0].buffer;
    run(&c, 192, 64);
    expect_count(&c, 2);
    const CheckFinding *f = find(&c, "atomic and non-atomic access race between threadgroups on counter[0]");
    expect_lines(&c, f, line_of(racy, "// W"), line_of(racy, "// L"));
    assert_int_equal(f->count, 64); /* each of threadgroup 1's loads */
    assert_int_equal(f->first.access, CHECK_ACCESS_WRITE);
    assert_int_equal(f->second.access, CHECK_ACCESS_ATOMIC);
    f = find(&c, "atomic and non-atomic access race between threadgroups on counter[1]");
    expect_lines(&c, f, line_of(racy, "// M"), line_of(racy, "// X"));
    assert_int_equal(f->first.access, CHECK_ACCESS_ATOMIC);
    assert_int_equal(f->second.access, CHECK_ACCESS_WRITE);
    done(&c);
}

/* A threadgroup read after a barrier skips the checks for writes and atomics when none has
 * come since (check/race.c, read_quiet); an atomic after the barrier must count as one.
 * Lane 0 of both SIMD-groups reads word 5 (so the word keeps a side table of readers), then
 * after the barrier thread 0 adds to it atomically, and thread 40 (SIMD-group 1, which runs
 * after SIMD-group 0 ends) reads it plainly: a race the side table would otherwise let
 * through. (Assembly: the word is both atomic and plain.) */
static void test_tg_atomic_then_read_after_barrier(void **state)
{
    (void)state;
    Checked c;
    memset(&c, 0, sizeof c);
    h_init(&c.h,
           ".kernel k\n.regs 6\n.tgmem 256\n.arg out, device, u0\n"
           "    get_sr r1, thread_position_in_grid.x\n"
           "    and r2, r1, 31\n"
           "    if_icmp.eq 1, r2, 0\n"
           "      ld_tg.b32 r3, 0, 5\n"
           "    pop_exec 1\n"
           "    barrier.tg\n"
           "    if_icmp.eq 1, r1, 0\n"
           "      atom_tg.add.u32 r2, 0, 5, r1\n"
           "    pop_exec 1\n"
           "    if_icmp.eq 1, r1, 40\n"
           "      ld_tg.b32 r3, 0, 5\n"
           "      st_dev.b32 r3, u0, r1\n"
           "    pop_exec 1\n"
           "    stop\n");
    h_buffer(&c.h, 0, "out", 64 * 4, MEM_SPACE_DEVICE);
    run(&c, 64, 64);
    expect_count(&c, 1);
    const CheckFinding *f =
        find(&c, "atomic and non-atomic access race on threadgroup memory byte 20");
    expect_pair(f, 1, CHECK_ACCESS_ATOMIC, 0, CHECK_ACCESS_READ, 40);
    done(&c);
}

/* SIMD-group 0 runs `first` on threadgroup words 0..31 (lane l on word l, thread id in r1),
 * then SIMD-group 1 adds to the same 32 words atomically, one a lane, with no barrier
 * between: each atomic races with SIMD-group 0's access, of kind `kind`, 32 in all. */
static void expect_atomic_block_race(const char *first, CheckAccessKind kind)
{
    char text[1024];
    snprintf(text, sizeof text,
             ".kernel k\n.regs 6\n.tgmem 256\n.arg out, device, u0\n"
             "    get_sr r1, thread_position_in_grid.x\n"
             "    if_icmp.ult 1, r1, 32\n"
             "%s"
             "    pop_exec 1\n"
             "    if_icmp.uge 1, r1, 32\n"
             "      isub r2, r1, 32\n"
             "      imul r4, r2, 4\n"
             "      atom_tg.add.u32 r5, r4, 0, r1\n"
             "    pop_exec 1\n"
             "    stop\n",
             first);
    Checked c;
    memset(&c, 0, sizeof c);
    h_init(&c.h, text);
    h_buffer(&c.h, 0, "out", 64 * 4, MEM_SPACE_DEVICE);
    run(&c, 64, 64);
    expect_count(&c, 1);
    const CheckFinding *f =
        find(&c, "atomic and non-atomic access race on threadgroup memory byte 0");
    expect_pair(f, 32, kind, 0, CHECK_ACCESS_ATOMIC, 32);
    done(&c);
}

/* SIMD-group 0 reads the words, which have never been written: only the reads say the
 * atomics race (an atomic block is new to the detector only when its words have neither a
 * write nor a read). */
static void test_tg_atomic_block_after_reads(void **state)
{
    (void)state;
    expect_atomic_block_race("      ld_tg.b32 r3, 0, r1\n"
                             "      st_dev.b32 r3, u0, r1\n",
                             CHECK_ACCESS_READ);
}

/* SIMD-group 0 stores one byte of each word: the words are split into bytes, where the
 * stores are, and their word-wide records stay empty. */
static void test_tg_atomic_block_after_byte_stores(void **state)
{
    (void)state;
    expect_atomic_block_race("      imul r4, r1, 4\n"
                             "      st_tg.u8 r1, 0, r4\n",
                             CHECK_ACCESS_WRITE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atomic_vs_plain_across_threadgroups),
        cmocka_unit_test(test_atomic_vs_plain_in_threadgroup),
        cmocka_unit_test(test_atomic_after_plain_write),
        cmocka_unit_test(test_atomic_after_plain_read),
        cmocka_unit_test(test_atomic_after_mixed_reads),
        cmocka_unit_test(test_atomic_in_writer_simdgroup_hides_nothing),
        cmocka_unit_test(test_atomic_after_barrier_silent),
        cmocka_unit_test(test_atomics_only_silent),
        cmocka_unit_test(test_atomic_load_is_a_read),
        cmocka_unit_test(test_tg_atomic_then_read_after_barrier),
        cmocka_unit_test(test_tg_atomic_block_after_reads),
        cmocka_unit_test(test_tg_atomic_block_after_byte_stores),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
