/*
 * test_dispatch.c — pins how a launch becomes threads: 1D/2D/3D grids given in threads
 * (with partial edge threadgroups) or in threadgroups, every get_sr value of every thread
 * against the formulas of MSL spec 4.3.4.6, partial last SIMD-groups, barriers, refused
 * launches, the instruction budget, the result counters and determinism.
 */
#include "sim_harness.h"

enum { NSR = ISA_SR_COUNT };

typedef struct Dims {
    bool by_tg;
    uint32_t grid[3], tg[3];
} Dims;

static uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

/* Every thread takes a slot with an atomic and writes all its special registers there; the
 * test then finds each thread by its grid position and checks the rest. */
static void check_sregs(Dims d)
{
    char *text = malloc(16384);
    size_t len = (size_t)snprintf(text, 16384,
                                  ".kernel sr\n.regs 6\n.arg counter, device, u0\n.arg out, device, u2\n"
                                  "    atom_dev.add.u32 r3, u0, 0, 1\n"
                                  "    imul r4, r3, %d\n", NSR);
    for (int k = 0; k < NSR; k++)
        len += (size_t)snprintf(text + len, 16384 - len,
                                "    get_sr r2, %s\n    st_dev.b32 r2, u2, r4\n    iadd r4, r4, 1\n", isa_sr_names[k]);
    snprintf(text + len, 16384 - len, "    stop\n");
    uint32_t G[3], W[3], S[3];
    for (int k = 0; k < 3; k++) {
        S[k] = d.tg[k];
        G[k] = d.by_tg ? d.grid[k] * d.tg[k] : d.grid[k];
        W[k] = d.by_tg ? d.grid[k] : ceil_div(d.grid[k], d.tg[k]);
    }
    uint32_t total = G[0] * G[1] * G[2];
    Harness h;
    h_init(&h, text);
    uint32_t *counter = h_buffer(&h, 0, "counter", 4, MEM_SPACE_DEVICE);
    uint32_t *out = h_buffer(&h, 1, "out", (uint64_t)total * NSR * 4, MEM_SPACE_DEVICE);
    h_grid(&h, d.by_tg, d.grid[0], d.grid[1], d.grid[2], d.tg[0], d.tg[1], d.tg[2]);
    h_run(&h);
    h_expect_no_faults(&h);
    assert_int_equal(*counter, total);
    uint8_t *seen = calloc(total, 1);
    uint64_t want_sgs = 0;
    for (uint32_t z = 0; z < W[2]; z++)
        for (uint32_t y = 0; y < W[1]; y++)
            for (uint32_t x = 0; x < W[0]; x++) {
                uint32_t pos[3] = {x, y, z}, t = 1;
                for (int k = 0; k < 3; k++)
                    t *= UTIL_MIN(S[k], G[k] - pos[k] * S[k]);
                want_sgs += ceil_div(t, 32);
            }
    for (uint32_t r = 0; r < total; r++) {
        const uint32_t *v = out + (size_t)r * NSR;
        uint32_t g[3] = {v[ISA_SR_THREAD_POSITION_IN_GRID_X], v[ISA_SR_THREAD_POSITION_IN_GRID_Y],
                         v[ISA_SR_THREAD_POSITION_IN_GRID_Z]};
        assert_true(g[0] < G[0] && g[1] < G[1] && g[2] < G[2]);
        uint32_t lin = g[0] + G[0] * (g[1] + G[1] * g[2]);
        if (seen[lin])
            fail_msg("thread (%u,%u,%u) ran twice", g[0], g[1], g[2]);
        seen[lin] = 1;
        uint32_t w[3], l[3], T[3];
        for (int k = 0; k < 3; k++) {
            w[k] = g[k] / S[k];
            l[k] = g[k] % S[k];
            T[k] = UTIL_MIN(S[k], G[k] - w[k] * S[k]); /* threads_per_threadgroup at an edge */
        }
        uint32_t tid = l[0] + T[0] * (l[1] + T[1] * l[2]);
        uint32_t tthreads = T[0] * T[1] * T[2], sthreads = S[0] * S[1] * S[2];
        uint32_t want[NSR];
        for (int k = 0; k < 3; k++) {
            want[ISA_SR_THREAD_POSITION_IN_GRID_X + k] = g[k];
            want[ISA_SR_THREAD_POSITION_IN_THREADGROUP_X + k] = l[k];
            want[ISA_SR_THREADGROUP_POSITION_IN_GRID_X + k] = w[k];
            want[ISA_SR_THREADS_PER_GRID_X + k] = G[k];
            want[ISA_SR_THREADS_PER_THREADGROUP_X + k] = T[k];
            want[ISA_SR_DISPATCH_THREADS_PER_THREADGROUP_X + k] = S[k];
            want[ISA_SR_THREADGROUPS_PER_GRID_X + k] = W[k];
        }
        want[ISA_SR_THREAD_INDEX_IN_THREADGROUP] = tid;
        want[ISA_SR_THREAD_EXECUTION_WIDTH] = 32;
        want[ISA_SR_THREADS_PER_SIMDGROUP] = 32;
        want[ISA_SR_THREAD_INDEX_IN_SIMDGROUP] = tid % 32;
        want[ISA_SR_SIMDGROUP_INDEX_IN_THREADGROUP] = tid / 32;
        want[ISA_SR_SIMDGROUPS_PER_THREADGROUP] = ceil_div(tthreads, 32);
        want[ISA_SR_DISPATCH_SIMDGROUPS_PER_THREADGROUP] = ceil_div(sthreads, 32);
        want[ISA_SR_THREAD_INDEX_IN_QUADGROUP] = tid % 4;
        want[ISA_SR_QUADGROUP_INDEX_IN_THREADGROUP] = tid / 4;
        want[ISA_SR_QUADGROUPS_PER_THREADGROUP] = ceil_div(tthreads, 4);
        want[ISA_SR_DISPATCH_QUADGROUPS_PER_THREADGROUP] = ceil_div(sthreads, 4);
        want[ISA_SR_ACTIVE_THREAD_INDEX_IN_SIMDGROUP] = tid % 32; /* every present lane is active */
        want[ISA_SR_CORE_INDEX] = v[ISA_SR_CORE_INDEX];          /* not pinned */
        for (int k = 0; k < NSR; k++)
            if (v[k] != want[k])
                fail_msg("grid %u,%u,%u / tg %u,%u,%u%s: thread (%u,%u,%u) %s = %u, expected %u", d.grid[0],
                         d.grid[1], d.grid[2], d.tg[0], d.tg[1], d.tg[2], d.by_tg ? " (threadgroups)" : "",
                         g[0], g[1], g[2], isa_sr_names[k], v[k], want[k]);
    }
    assert_int_equal(h.res.threads, total);
    assert_int_equal(h.res.threadgroups, (uint64_t)W[0] * W[1] * W[2]);
    assert_int_equal(h.res.simdgroups, want_sgs);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(h.res.grid_threads[k], G[k]);
        assert_int_equal(h.res.grid_threadgroups[k], W[k]);
    }
    free(seen);
    free(text);
    h_free(&h);
}

static void test_special_registers(void **state)
{
    (void)state;
    check_sregs((Dims){false, {100, 1, 1}, {32, 1, 1}});
    check_sregs((Dims){false, {13, 7, 1}, {4, 3, 1}});
    check_sregs((Dims){false, {19, 5, 1}, {8, 5, 1}}); /* 40-thread groups, partial at x */
    check_sregs((Dims){false, {5, 4, 3}, {2, 3, 2}});
    check_sregs((Dims){false, {70, 3, 2}, {33, 2, 1}});
    check_sregs((Dims){true, {3, 2, 2}, {5, 3, 2}});
    check_sregs((Dims){true, {3, 1, 1}, {40, 1, 1}});
    check_sregs((Dims){true, {2, 2, 1}, {1, 1, 64}});
    /* rows of 64 and 48: SIMD-groups inside one row (y and z fixed), and across two */
    check_sregs((Dims){false, {128, 3, 2}, {64, 2, 1}});
    check_sregs((Dims){false, {96, 2, 3}, {48, 2, 2}});
}

static void test_partial_simdgroup(void **state)
{
    (void)state;
    /* every present lane counts itself and records the ballot of all active lanes */
    const char *k =
        ".kernel p\n.regs 6\n.arg counter, device, u0\n.arg out, device, u2\n"
        "    get_sr r1, thread_position_in_grid.x\n"
        "    atom_dev.add.u32 r2, u0, 0, 1\n"
        "    icmp_ballot.eq r3, 0, 0\n"
        "    st_dev.b32 r3, u2, r1\n"
        "    stop\n";
    Harness h;
    h_init(&h, k);
    uint32_t *counter = h_buffer(&h, 0, "counter", 4, MEM_SPACE_DEVICE);
    uint32_t *out = h_buffer(&h, 1, "out", 120 * 4, MEM_SPACE_DEVICE);
    h_run1(&h, 120, 40);
    assert_int_equal(*counter, 120);
    for (uint32_t i = 0; i < 120; i++)
        assert_int_equal(out[i], i % 40 < 32 ? 0xffffffffu : 0xffu);
    assert_int_equal(h.res.simdgroups, 6);
    h_free(&h);
}

static void test_barrier_exchange(void **state)
{
    (void)state;
    /* tg[i] = 3i + 1; barrier; x = tg[(i + 37) % 128]; barrier; tg[i] = x * 2; barrier;
     * out[i] = tg[(i + 64) % 128]. SIMD-groups run in order up to a barrier, so without
     * one, group 0 would read words no one wrote yet. */
    const char *k =
        ".kernel bar\n.regs 8\n.tgmem 512\n.arg out, device, u0\n"
        "    get_sr r1, thread_index_in_threadgroup\n"
        "    get_sr r7, thread_position_in_grid.x\n"
        "    imad r2, r1, 3, 1\n"
        "    st_tg.b32 r2, 0, r1\n"
        "    barrier.tg\n"
        "    iadd r3, r1, 37\n"
        "    and r3, r3, 127\n"
        "    ld_tg.b32 r4, 0, r3\n"
        "    barrier.tg\n"
        "    shl r4, r4, 1\n"
        "    st_tg.b32 r4, 0, r1\n"
        "    barrier\n"
        "    iadd r3, r1, 64\n"
        "    and r3, r3, 127\n"
        "    ld_tg.b32 r5, 0, r3\n"
        "    st_dev.b32 r5, u0, r7\n"
        "    stop\n";
    Harness h;
    h_init(&h, k);
    uint32_t *out = h_buffer(&h, 0, "out", 256 * 4, MEM_SPACE_DEVICE);
    h_run1(&h, 256, 128);
    h_expect_no_faults(&h);
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t j = (i % 128 + 64) % 128;       /* whose word is read last */
        uint32_t src = (j + 37) % 128;           /* whose first word that one read */
        assert_int_equal(out[i], (3 * src + 1) * 2);
    }
    h_free(&h);
}

static void test_refused_launches(void **state)
{
    (void)state;
    UtilError err = {{0}};
    SimResult res;
    Harness h;
    h_init(&h, ".kernel big\n.regs 2\n.tgmem 40000\n    stop\n");
    h_grid(&h, false, 32, 1, 1, 32, 1, 1);
    assert_false(sim_dispatch(&h.launch, &res, &err));
    assert_non_null(strstr(err.message, "32768"));
    h_free(&h);

    h_init(&h, ".kernel blk\n.regs 2\n.tgmem 512\n.arg scratch, threadgroup, u0\n    stop\n");
    h.bind[0].tg_bytes = 600;
    h_grid(&h, false, 32, 1, 1, 32, 1, 1);
    h.launch.tg_mem_limit = 1024;
    memset(&err, 0, sizeof err);
    assert_false(sim_dispatch(&h.launch, &res, &err));
    assert_non_null(strstr(err.message, "1024"));
    h.bind[0].tg_bytes = 500; /* 512 + 500 fits in 1024 */
    h_run(&h);
    h_free(&h);

    h_init(&h, ".kernel wide\n.regs 2\n    stop\n");
    h_grid(&h, false, 2048, 1, 1, 32, 33, 1);
    memset(&err, 0, sizeof err);
    assert_false(sim_dispatch(&h.launch, &res, &err));
    assert_non_null(strstr(err.message, "1024"));
    h_grid(&h, false, 2048, 1, 1, 32, 32, 1); /* exactly 1024 is allowed */
    h_run(&h);
    h_grid(&h, false, 0, 1, 1, 32, 1, 1);
    memset(&err, 0, sizeof err);
    assert_false(sim_dispatch(&h.launch, &res, &err));
    assert_true(err.message[0] != 0);
    /* 2^31 x 2^31 x 4 threadgroups of one thread: 2^64 threads, refused in both modes
     * (a 64-bit count of threadgroups wrapped to 0 and the timed run ran nothing) */
    for (int timed = 0; timed < 2; timed++) {
        h_grid(&h, true, 1u << 31, 1u << 31, 4, 1, 1, 1);
        h.launch.mode = timed ? SIM_MODE_TIMED : SIM_MODE_FUNCTIONAL;
        memset(&err, 0, sizeof err);
        assert_false(sim_dispatch(&h.launch, &res, &err));
        assert_non_null(strstr(err.message, "2^64-1 threads"));
    }
    h_free(&h);

    /* thread memory past 64 KiB per thread: refused in both modes (a 1 GiB stack made the
     * simulator abort allocating it), 64 KiB runs */
    for (int timed = 0; timed < 2; timed++) {
        h_init(&h, ".kernel deep\n.regs 2\n.stack 1073741824\n    st_stack.b32 r1, 0, 0\n    stop\n");
        h_grid(&h, false, 2048, 1, 1, 256, 1, 1);
        h.launch.mode = timed ? SIM_MODE_TIMED : SIM_MODE_FUNCTIONAL;
        memset(&err, 0, sizeof err);
        assert_false(sim_dispatch(&h.launch, &res, &err));
        assert_non_null(strstr(err.message, "1073741824 bytes of thread memory per thread"));
        h_free(&h);
    }
    h_init(&h, ".kernel deep\n.regs 2\n.stack 65536\n    st_stack.b32 r1, 0, 65532\n    stop\n");
    h_grid(&h, false, 64, 1, 1, 64, 1, 1);
    h_run(&h);
    h_free(&h);
}

static void test_budget(void **state)
{
    (void)state;
    Harness h;
    h_init(&h, ".kernel spin\n.regs 2\ntop:\n    jmp top\n    stop\n");
    h_grid(&h, false, 64, 1, 1, 64, 1, 1);
    h.launch.instruction_budget = 1000;
    h_run(&h);
    assert_true(h.res.budget_exceeded);
    assert_int_equal(h.res.instructions, 1000);
    assert_true(h.res.num_faults >= 1);
    bool found = false;
    for (uint32_t i = 0; i < h.res.num_faults; i++)
        found |= h.res.faults[i].kind == SIM_FAULT_BUDGET;
    assert_true(found);
    assert_int_equal(h.res.budget, 1000);
    h_free(&h);
    /* the default: 10^8 + 10^5 per SIMD-group, at most 2 * 10^9 (a runaway two-SIMD-group
     * kernel ran 2 * 10^9 instructions, over a minute timed, before it stopped) */
    assert_int_equal(sim_default_budget(2), 100200000u);
    assert_int_equal(sim_default_budget(19000), 2000000000u);
    assert_int_equal(sim_default_budget(18999), 1999900000u);
    assert_int_equal(sim_default_budget(UINT64_MAX), 2000000000u);
    h_init(&h, ".kernel quick\n.regs 2\n    stop\n");
    for (int timed = 0; timed < 2; timed++) {
        h_grid(&h, false, 4096, 1, 1, 256, 1, 1); /* 128 SIMD-groups */
        h.launch.mode = timed ? SIM_MODE_TIMED : SIM_MODE_FUNCTIONAL;
        h_run(&h);
        assert_int_equal(h.res.budget, 100000000u + 128u * 100000u);
    }
    h_free(&h);
}

static void test_counters(void **state)
{
    (void)state;
    const char *k =
        ".kernel c\n.regs 4\n"
        "    get_sr r1, thread_index_in_threadgroup\n"
        "    if_icmp.ult 1, r1, 5\n"
        "    iadd r2, r1, 1\n"
        "    pop_exec 1\n"
        "    stop\n";
    Harness h;
    h_init(&h, k);
    /* two threadgroups of 40: per threadgroup SIMD-group 0 issues 5 instructions with
     * 32, 32, 5, 5, 32 active lanes; SIMD-group 1 (8 lanes) 5 with 8, 8, 0, 0, 8 */
    h_run1(&h, 80, 40);
    assert_int_equal(h.res.instructions, 2 * 10);
    assert_int_equal(h.res.lane_instructions, 2 * (106 + 24));
    assert_int_equal(h.res.lane_slots, 2 * (5 * 32 + 5 * 8));
    assert_int_equal(h.res.threads, 80);
    assert_int_equal(h.res.threadgroups, 2);
    assert_int_equal(h.res.simdgroups, 4);
    assert_true(fabs(sim_result_simd_efficiency(&h.res) - 260.0 / 400.0) < 1e-12);
    h_free(&h);
}

static void test_determinism(void **state)
{
    (void)state;
    const char *k =
        ".kernel det\n.regs 8\n.tgmem 256\n.arg acc, device, u0\n.arg out, device, u2\n"
        "    get_sr r1, thread_position_in_grid.x\n"
        "    get_sr r2, thread_index_in_threadgroup\n"
        "    cvt.f32.u32 r3, r1\n"
        "    fmul32 r3, r3, 0.1\n"
        "    atom_dev.add.f32 r4, u0, 0, r3\n"
        "    atom_tg.add.u32 r5, 0, 0, r1\n"
        "    simd_red.sum.f32 r6, r3\n"
        "    barrier\n"
        "    ld_tg.b32 r7, 0, 0\n"
        "    shl r2, r1, 2\n"
        "    st_dev.b32.x4 r4, u2, r2\n"
        "    stop\n";
    uint32_t *copy = malloc(200 * 16);
    SimResult first = {0};
    for (int run = 0; run < 2; run++) {
        Harness h;
        h_init(&h, k);
        h_buffer(&h, 0, "acc", 4, MEM_SPACE_DEVICE);
        uint32_t *out = h_buffer(&h, 1, "out", 200 * 16, MEM_SPACE_DEVICE);
        h_run1(&h, 200, 64);
        if (run == 0) {
            memcpy(copy, out, 200 * 16);
            first = h.res;
            first.faults = NULL;
        } else {
            assert_memory_equal(copy, out, 200 * 16);
            assert_int_equal(first.instructions, h.res.instructions);
            assert_int_equal(first.lane_instructions, h.res.lane_instructions);
            assert_int_equal(first.lane_slots, h.res.lane_slots);
            assert_int_equal(first.simdgroups, h.res.simdgroups);
            assert_int_equal(first.total_faults, h.res.total_faults);
        }
        h_free(&h);
    }
    free(copy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_special_registers), cmocka_unit_test(test_partial_simdgroup),
        cmocka_unit_test(test_barrier_exchange),  cmocka_unit_test(test_refused_launches),
        cmocka_unit_test(test_budget),            cmocka_unit_test(test_counters),
        cmocka_unit_test(test_determinism),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
