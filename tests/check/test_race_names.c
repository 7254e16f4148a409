/*
 * test_race_names.c — how the data-race detector names what raced: array elements of one
 * to three dimensions (`tile[4][0]`, `cube[1][0][7]`), a scalar alone, races inside helper
 * functions with the call they came from (one finding per call site, however often an
 * unrolled loop inlines it, and long call chains named whole), and races between
 * threadgroups kept apart from the same lines' races within one. Expected lines come from
 * markers in the kernel text. The rest of the detector's tests are in test_race.c.
 */
#include "race_harness.h"

/* A helper that reads its neighbour's slot, called at two places: the races inside it are
 * two findings, one per call, each naming its call in the fix. */
static void test_race_in_helper_names_the_call(void **state)
{
    (void)state;
    const char *src =
        "static float swap_in(threadgroup float *t, uint i, float v) {\n"
        "    t[i] = v; // W\n"
        "    return t[i ^ 32]; // R\n"
        "}\n"
        "kernel void k(device float *out [[buffer(0)]],\n"
        "              uint tid [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup float shared[64];\n"
        "    float a = swap_in(shared, tid, 1.0f); // C1\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    float b = swap_in(shared, tid, 2.0f); // C2\n"
        "    out[tid] = a + b;\n"
        "}\n";
    Checked c;
    setup(&c, src, 256);
    run(&c, 64, 64);
    uint32_t w = line_of(src, "// W"), r = line_of(src, "// R");
    uint32_t c1 = line_of(src, "// C1"), c2 = line_of(src, "// C2");
    expect_count(&c, 4); /* write after read and read after write, at each call */
    for (uint32_t call = 0; call < 2; call++) {
        uint32_t at = call ? c2 : c1;
        uint32_t n = 0;
        for (uint32_t i = 0; i < c.n; i++) {
            const CheckFinding *f = &c.f[i];
            bool war = strstr(f->message, "write after read") != NULL;
            if (!strstr(f->fix, fmt("called at line %u)", at)))
                continue;
            n++;
            expect_lines(&c, f, war ? r : w, war ? w : r);
            expect_fix(&c, f, fmt("no threadgroup_barrier(mem_threadgroup) between line %u (in "
                                  "swap_in, called at line %u) and line %u (in swap_in, called at "
                                  "line %u)", war ? r : w, at, war ? w : r, at));
        }
        assert_int_equal(n, 2);
    }
    done(&c);
}

/* Each thread reads its left neighbour's element, then writes its own: within a threadgroup
 * a barrier would order the two (SIMD-group 1's read of element 31 and 0's write; the same in
 * threadgroup 1), but threadgroup 1's read of element 63 follows threadgroup 0's write, which
 * nothing can order. Two findings at one pair of lines, each with its own fix. */
static void test_cross_threadgroup_race_kept_apart(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device float *buf [[buffer(0)]], uint gid [[thread_position_in_grid]]) {\n"
        "    float left = gid > 0 ? buf[gid - 1] : 0.0f; // R\n"
        "    buf[gid] = buf[gid] + left; // W\n"
        "}\n";
    Checked c;
    setup(&c, src, 512);
    run(&c, 128, 64);
    expect_count(&c, 2);
    const CheckFinding *in = find(&c, "device memory race (read after write) on buf[31]");
    const CheckFinding *across = find(&c, "device memory race between threadgroups (read after write) on buf[63]");
    expect_lines(&c, in, line_of(src, "// W"), line_of(src, "// R"));
    expect_lines(&c, across, line_of(src, "// W"), line_of(src, "// R"));
    assert_int_equal(in->count, 2);
    assert_int_equal(across->count, 1);
    assert_int_equal(across->second.thread.grid[0], 64);
    expect_fix(&c, across, "threadgroups cannot synchronize: use atomics or separate dispatches");
    done(&c);
}

/* A helper called in a loop the compiler unrolls: its copies are one call, so its races are
 * the same findings as for a loop that stays a loop (each copy was a finding of its own). */
static void test_race_in_helper_in_unrolled_loop(void **state)
{
    (void)state;
    for (int trips = 4; trips <= 40; trips += 36) {
        char src[1024];
        snprintf(src, sizeof src,
                 "static void stage(threadgroup float *t, uint i, float v) {\n"
                 "    t[i] = v + t[i ^ 32]; // RW\n"
                 "}\n"
                 "kernel void k(device float *out [[buffer(0)]],\n"
                 "              uint tid [[thread_index_in_threadgroup]]) {\n"
                 "    threadgroup float shared[64];\n"
                 "    shared[tid] = 0.0f;\n"
                 "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
                 "    for (int i = 0; i < %d; i++)\n"
                 "        stage(shared, tid, float(i)); // C\n"
                 "    out[tid] = shared[tid];\n"
                 "}\n", trips);
        Checked c;
        setup(&c, src, 256);
        run(&c, 64, 64);
        expect_count(&c, 2);
        const uint32_t rw = line_of(src, "// RW"), call = line_of(src, "// C");
        for (uint32_t i = 0; i < c.n; i++)
            expect_fix(&c, &c.f[i], fmt("no threadgroup_barrier(mem_threadgroup) between the two "
                                        "accesses at line %u (in stage, called at line %u)", rw, call));
        done(&c);
    }
}

/* Helpers with long names nested in one another: the line text is cut whole ("...)"), not
 * mid-name, and the fix keeps its end. */
static void test_long_call_chain_named_whole(void **state)
{
    (void)state;
    const char *src =
        "static void store_the_value_into_shared_memory_helper(threadgroup float *t, uint i) {\n"
        "    t[i] = 1.0f; // W\n"
        "}\n"
        "static void outer_wrapper_function_with_a_rather_long_name(threadgroup float *t, uint i) {\n"
        "    store_the_value_into_shared_memory_helper(t, i);\n"
        "}\n"
        "static void outermost_wrapper_function_with_a_rather_long_name(threadgroup float *t, uint i) {\n"
        "    outer_wrapper_function_with_a_rather_long_name(t, i);\n"
        "}\n"
        "kernel void k(device float *out [[buffer(0)]], uint lid [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup float shared[64];\n"
        "    outermost_wrapper_function_with_a_rather_long_name(shared, lid);\n"
        "    out[lid] = shared[(lid + 32) & 63]; // R\n"
        "}\n";
    Checked c;
    setup(&c, src, 256);
    run(&c, 64, 64);
    const CheckFinding *f = find(&c, "threadgroup memory race (read after write) on shared[0]");
    if (!strstr(f->fix, "...) and line 13"))
        fail_msg("the fix lost its end: %s", f->fix);
    assert_non_null(strstr(f->fix, "(in store_the_value_into_shared_memory_helper, called at line 5"));
    done(&c);
}

/* A 2-D threadgroup array is named by row and column: an 8 x 8 tile whose rows 4 to 7
 * (SIMD-group 1) read rows 0 to 3 (SIMD-group 0) with no barrier. */
static void test_two_dimensional_names(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device float *out [[buffer(0)]],\n"
        "              uint lid [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup float tile[8][8];\n"
        "    uint x = lid % 8, y = lid / 8;\n"
        "    tile[y][x] = float(x); // W\n"
        "    out[lid] = tile[y ^ 4][x]; // R\n"
        "}\n";
    Checked c;
    setup(&c, src, 256);
    run(&c, 64, 64);
    const CheckFinding *f = find(&c, "threadgroup memory race (write after read) on tile[4][0]");
    expect_lines(&c, f, line_of(src, "// R"), line_of(src, "// W"));
    done(&c);
}

/* Arrays of three and four dimensions are named index by index too (2 x 4 x 8: the slice
 * of SIMD-group 1 starts at cube[1][0][0]); five or more are named by the flat index. */
static void test_three_dimensional_names(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device float *out [[buffer(0)]],\n"
        "              uint lid [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup float cube[2][4][8];\n"
        "    uint x = lid % 8, y = lid / 8 % 4, z = lid / 32;\n"
        "    cube[z][y][x] = float(x); // W\n"
        "    out[lid] = cube[z ^ 1][y][x]; // R\n"
        "}\n";
    Checked c;
    setup(&c, src, 256);
    run(&c, 64, 64);
    const CheckFinding *f = find(&c, "threadgroup memory race (write after read) on cube[1][0][0]");
    expect_lines(&c, f, line_of(src, "// R"), line_of(src, "// W"));
    done(&c);
    const char *src4 =
        "kernel void k(device float *out [[buffer(0)]],\n"
        "              uint lid [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup float h[2][2][2][8];\n"
        "    threadgroup float flat[2][1][1][2][16];\n"
        "    h[lid / 32][lid / 16 % 2][lid / 8 % 2][lid % 8] = 1.0f;\n"
        "    flat[lid / 32][0][0][lid / 16 % 2][lid % 16] = 1.0f;\n"
        "    out[lid] = h[1 - lid / 32][1][1][7] + flat[1 - lid / 32][0][0][1][15];\n"
        "}\n";
    setup(&c, src4, 256);
    run(&c, 64, 64);
    find(&c, "threadgroup memory race (write after read) on h[1][1][1][7]");
    find(&c, "threadgroup memory race (write after read) on flat[63]");
    done(&c);
}

/* A scalar threadgroup variable is named alone, an array with its index. */
static void test_scalar_named_alone(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device float *out [[buffer(0)]], uint tid [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup float total;\n"
        "    if (tid == 0) total = 0.0f;\n"
        "    total += 1.0f; // RMW\n"
        "    out[tid] = total;\n"
        "}\n";
    Checked c;
    setup(&c, src, 256);
    run(&c, 64, 64);
    find(&c, "threadgroup memory race (write after read) on total");
    done(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_race_in_helper_names_the_call),
        cmocka_unit_test(test_cross_threadgroup_race_kept_apart),
        cmocka_unit_test(test_race_in_helper_in_unrolled_loop),
        cmocka_unit_test(test_long_call_chain_named_whole),
        cmocka_unit_test(test_two_dimensional_names),
        cmocka_unit_test(test_three_dimensional_names),
        cmocka_unit_test(test_scalar_named_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
