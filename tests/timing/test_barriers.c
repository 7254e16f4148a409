/*
 * test_barriers.c — the timed engine at threadgroup barriers: the SIMD-groups of a
 * threadgroup leave a barrier barrier_latency cycles after the last arrives, and those whose
 * barrier was the program's last instruction end there, as in functional mode. Split from
 * test_engine.c; its helpers are in engine_harness.h.
 */
#include "engine_harness.h"

/* ---- barrier ------------------------------------------------------------------------------ */

static char *barrier_kernel(void)
{
    char *t = NULL;
    size_t len = 0, cap = 0;
    grow(&t, &len, &cap, ".kernel bar\n.regs 8\n.arg out, device, u0\n");
    grow(&t, &len, &cap, "    get_sr r1, thread_position_in_grid.x\n");
    grow(&t, &len, &cap, "    get_sr r4, simdgroup_index_in_threadgroup\n    mov r2, 1.0\n");
    /* SIMD-group 0 runs 50 dependent FMAs (latency 10) before the barrier; 1 arrives at once. */
    grow(&t, &len, &cap, "    if_icmp.eq 1, r4, 0\n    jmp_exec_none after\n");
    for (int i = 0; i < 50; i++)
        grow(&t, &len, &cap, "    ffma32 r2, r2, 1.0001, 0.5\n");
    grow(&t, &len, &cap, "after:\n    pop_exec 1\n    barrier.tg\n    st_dev.b32 r1, u0, r1\n    stop\n");
    return t;
}

static void test_barrier_release(void **state)
{
    (void)state;
    SimGpuConfig gpu = simple_gpu();
    gpu.op[ISA_OP_FFMA32] = (SimOpTiming){10, 1};
    char *t = barrier_kernel();
    Run a, b;
    gpu.barrier_latency = 1;
    run_kernel(&a, t, &gpu, SIM_MODE_TIMED, 64, 64, 4096);
    gpu.barrier_latency = 301;
    run_kernel(&b, t, &gpu, SIM_MODE_TIMED, 64, 64, 4096);
    /* Both SIMD-groups leave the barrier 300 cycles later: everything after shifts by 300. */
    assert_int_equal(b.res.stats.cycles - a.res.stats.cycles, 300);
    /* SIMD-group 1 waited at the barrier for group 0's chain (49 latencies at least). */
    assert_true(a.res.stats.stall_cycles[SIM_STALL_BARRIER] >= 49 * 10);
    assert_true(b.res.stats.stall_cycles[SIM_STALL_BARRIER] >= 49 * 10 + 2 * 300);
    assert_true(a.res.stats.cycles >= 50 * 10);
    check_accounting(&a, &gpu);
    run_free(&a);
    run_free(&b);
    free(t);
}

/* Found by the run fuzzer: a program whose last instruction is a barrier (no `stop`; the
 * assembler refuses one now, a program built through the library may still be one). On
 * release the SIMD-groups have nothing left, and end, as functional mode ends them: the
 * engine issued a phantom instruction for each, from past the end of its tables (reading
 * garbage timing and writing a pipe slot out of bounds), so cycles varied from run to run.
 * Here two SIMD-groups run a chain (one with no lane active), meet at the barrier, and end. */
static void test_barrier_as_last_instruction(void **state)
{
    (void)state;
    SimGpuConfig gpu = simple_gpu();
    gpu.op[ISA_OP_FFMA32] = (SimOpTiming){10, 1};
    gpu.barrier_latency = 7;
    const char *k = ".kernel k\n.regs 4\n.arg out, device, u0\n"
                    "    get_sr r1, thread_position_in_grid.x\n"
                    "    mov r2, 1.0\n"
                    "    if_icmp.ult 1, r1, 32\n"
                    "    ffma32 r2, r2, r2, r2\n"
                    "    ffma32 r2, r2, r2, r2\n"
                    "    ffma32 r2, r2, r2, r2\n"
                    "    st_dev.b32 r2, u0, r1\n"
                    "    pop_exec 1\n"
                    "    barrier.tg\n";
    Run f, a, b;
    run_kernel_open_ended(&f, k, &gpu, SIM_MODE_FUNCTIONAL, 64, 64, 4096);
    run_kernel_open_ended(&a, k, &gpu, SIM_MODE_TIMED, 64, 64, 4096);
    run_kernel_open_ended(&b, k, &gpu, SIM_MODE_TIMED, 64, 64, 4096);
    /* 9 instructions each, none past the end */
    assert_int_equal(f.res.instructions, 18);
    assert_int_equal(a.res.instructions, 18);
    uint64_t issued = 0;
    for (uint32_t c = 0; c < a.res.stats.num_cores; c++)
        issued += a.res.stats.cores[c].instructions;
    assert_int_equal(issued, 18);
    check_accounting(&a, &gpu);
    assert_int_equal(a.res.stats.cycles, b.res.stats.cycles);
    /* the release comes after the chain (3 latencies; the other SIMD-group runs it too,
     * with no lane active) and the barrier's 7 cycles */
    assert_true(a.res.stats.cycles >= 3 * 10 + 7);
    assert_memory_equal(f.dev->buffers[0].data, a.dev->buffers[0].data, 4096);
    run_free(&f);
    run_free(&a);
    run_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_barrier_release),
        cmocka_unit_test(test_barrier_as_last_instruction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
