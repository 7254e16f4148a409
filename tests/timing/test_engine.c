/*
 * test_engine.c — the timed mode engine (sim/timing*.c) on small kernels whose cycle counts
 * follow from the configuration by hand: a dependent FMA chain costs its latency per
 * instruction; independent FMAs from enough SIMD-groups issue once per cycle per scheduler;
 * `wait` holds until the load arrives; idle time is skipped (the loop runs far fewer
 * iterations than cycles); register count limits resident SIMD-groups; runs are
 * deterministic; and every race-free kernel in kernels/ gives the same buffers timed as
 * functional. Barriers are in test_barriers.c; the shared helpers in engine_harness.h. Runs
 * from the repository root.
 */
#include "test_util.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../isa/isa.h"
#include "../../mem/mem.h"
#include "../../sim/gpu.h"
#include "../../sim/sim.h"
#include "../../sim/timing.h"
#include "../../ui/manifest.h"
#include "../../ui/ui.h"

#include "engine_harness.h"

/* ---- dependent chain: latency per instruction --------------------------------------------- */

static char *fma_chain(uint32_t n)
{
    char *t = NULL;
    size_t len = 0, cap = 0;
    grow(&t, &len, &cap, ".kernel chain\n.regs 8\n.arg out, device, u0\n");
    grow(&t, &len, &cap, "    get_sr r1, thread_position_in_grid.x\n    mov r2, 1.0\n");
    for (uint32_t i = 0; i < n; i++)
        grow(&t, &len, &cap, "    ffma32 r2, r2, 1.0001, 0.5\n");
    grow(&t, &len, &cap, "    st_dev.b32 r2, u0, r1\n    stop\n");
    return t;
}

static void test_dependent_chain(void **state)
{
    (void)state;
    SimGpuConfig gpu = simple_gpu();
    gpu.op[ISA_OP_FFMA32] = (SimOpTiming){10, 1};
    Run a, b;
    char *ta = fma_chain(100), *tb = fma_chain(200);
    run_kernel(&a, ta, &gpu, SIM_MODE_TIMED, 32, 32, 4096);
    run_kernel(&b, tb, &gpu, SIM_MODE_TIMED, 32, 32, 4096);
    /* 100 more FMAs, each waiting for the previous one's 10-cycle latency. */
    assert_int_equal(b.res.stats.cycles - a.res.stats.cycles, 100 * 10);
    assert_true(a.res.stats.cycles >= 100 * 10 && a.res.stats.cycles < 100 * 10 + 600);
    assert_true(b.res.stats.stall_cycles[SIM_STALL_DEPENDENCY] >= 200 * 9);
    assert_int_equal(b.res.stats.flops, 200 * 2 * 32);
    check_accounting(&b, &gpu);
    run_free(&a);
    run_free(&b);
    free(ta);
    free(tb);
}

/* A chain of n instructions alternating between two lines, each reading the other's result:
 * `first` and `second` with %s for nothing (printf templates of one instruction each). */
static char *alternating_chain(const char *first, const char *second, uint32_t n)
{
    char *t = NULL;
    size_t len = 0, cap = 0;
    grow(&t, &len, &cap, ".kernel alt\n.regs 12\n.arg out, device, u0\n");
    grow(&t, &len, &cap, "    get_sr r1, thread_position_in_grid.x\n    mov r2, 1.0\n"
                         "    mov r3, 1.0\n    mov r4, 1\n    mov r5, 0\n    mov r6, 2\n"
                         "    mov r7, 0\n    mov r8, 3\n    mov r9, 0\n");
    for (uint32_t i = 0; i < n; i++)
        grow(&t, &len, &cap, "    %s\n", i & 1 ? second : first);
    grow(&t, &len, &cap, "    st_dev.b32 r2, u0, r1\n    stop\n");
    return t;
}

/* Cycles added by 100 more instructions of an alternating chain: 100 x `latency` when each
 * waits for the one before. */
static uint64_t chain_step_cycles(const SimGpuConfig *gpu, const char *first, const char *second)
{
    Run a, b;
    char *ta = alternating_chain(first, second, 100), *tb = alternating_chain(first, second, 200);
    run_kernel(&a, ta, gpu, SIM_MODE_TIMED, 32, 32, 4096);
    run_kernel(&b, tb, gpu, SIM_MODE_TIMED, 32, 32, 4096);
    check_accounting(&b, gpu);
    uint64_t d = b.res.stats.cycles - a.res.stats.cycles;
    run_free(&a);
    run_free(&b);
    free(ta);
    free(tb);
    return d;
}

/* The dependence a chain waits on sits at every place of the register halves an instruction
 * checks (its written halves are listed first, then the read ones): in the third and fourth
 * places of a 32-bit op, in a single half of 16-bit ops, and in places nine to twelve of a
 * 64-bit op, which checks twelve halves. */
static void test_dependence_in_every_place(void **state)
{
    (void)state;
    SimGpuConfig gpu = simple_gpu();
    gpu.op[ISA_OP_FMUL32] = (SimOpTiming){7, 1};
    gpu.op[ISA_OP_FADD16] = (SimOpTiming){5, 1};
    gpu.op[ISA_OP_IADD64] = (SimOpTiming){11, 1};
    /* 32-bit: writes r3 (places 1, 2), reads r2 (places 3, 4), and back */
    assert_int_equal(chain_step_cycles(&gpu, "fmul32 r3, r2, 1.5", "fmul32 r2, r3, 0.5"), 100 * 7);
    /* the same with the dependence through the second source only */
    assert_int_equal(chain_step_cycles(&gpu, "fmul32 r3, 1.5, r2", "fmul32 r2, 0.5, r3"), 100 * 7);
    /* 16-bit: one half each, the other half of the same register */
    assert_int_equal(chain_step_cycles(&gpu, "fadd16 r2h, r2l, 1.0", "fadd16 r2l, r2h, 1.0"), 100 * 5);
    /* 64-bit: writes r6:r7 (4 halves), reads r8:r9 then r4:r5 (places 9 to 12), and back */
    assert_int_equal(chain_step_cycles(&gpu, "iadd64 r6, r8, r4", "iadd64 r4, r8, r6"), 100 * 11);
    /* and without a read of the last result: each waits only for the one two back, which
     * wrote the same half (a write waits for the pending one), 5 cycles per two */
    assert_int_equal(chain_step_cycles(&gpu, "fadd16 r2h, r3l, 1.0", "fadd16 r3h, r2l, 1.0"), 50 * 5);
}

/* Cycles of one SIMD-group running `reps` times the instructions of `body` (a list
 * separated by ';'), after a set-up that gives r1..r9 values. */
static uint64_t body_cycles(const SimGpuConfig *gpu, const char *body, uint32_t reps)
{
    char *t = NULL;
    size_t len = 0, cap = 0;
    grow(&t, &len, &cap, ".kernel body\n.regs 16\n.arg out, device, u0\n"
                         "    get_sr r1, thread_position_in_grid.x\n");
    for (int k = 2; k < 10; k++)
        grow(&t, &len, &cap, "    mov r%d, %d.0\n", k, k);
    for (uint32_t i = 0; i < reps; i++)
        for (const char *p = body; *p;) {
            size_t n = strcspn(p, ";");
            grow(&t, &len, &cap, "    %.*s\n", (int)n, p);
            p += n + (p[n] == ';');
        }
    grow(&t, &len, &cap, "    stop\n");
    Run r;
    run_kernel(&r, t, gpu, SIM_MODE_TIMED, 32, 32, 4096);
    check_accounting(&r, gpu);
    uint64_t cycles = r.res.stats.cycles;
    run_free(&r);
    free(t);
    return cycles;
}

/* SIMD-group matrix multiply-accumulate (class matrix) issues on the fp32 pipe: a chain
 * waits its latency, independent ones its interval, an FFMA between two of them waits for
 * the pipe, and an integer op does not. Cycles added by 25 more repetitions of a body. */
static void test_matrix_on_fp32_pipe(void **state)
{
    (void)state;
    SimGpuConfig gpu = simple_gpu();
    gpu.op[ISA_OP_MMA32] = (SimOpTiming){20, 16};
    gpu.op[ISA_OP_FFMA32] = (SimOpTiming){6, 1};
    static const struct {
        const char *body;
        uint64_t cycles; /* per repetition */
    } cases[] = {
        /* each reads the accumulator the one before wrote: the latency */
        {"mma32 r4, r2, r2, r4", 20},
        /* independent (four accumulators: no write waits for the one before it): the
         * interval */
        {"mma32 r4, r2, r2, r6;mma32 r8, r2, r2, r6;mma32 r10, r2, r2, r6;mma32 r12, r2, r2, r6",
         4 * 16},
        /* an FFMA after each: 16 cycles for the matrix op, then 1 for the FFMA */
        {"mma32 r4, r2, r2, r6;ffma32 r14, r1, 1.5, 0.5;mma32 r8, r2, r2, r6;"
         "ffma32 r15, r1, 1.5, 0.5", 2 * 17},
        /* an integer op has its own pipe: it issues in the matrix op's shadow */
        {"mma32 r4, r2, r2, r6;iadd r14, r1, 1;mma32 r8, r2, r2, r6;iadd r15, r1, 1", 2 * 16},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t d = body_cycles(&gpu, cases[i].body, 50) - body_cycles(&gpu, cases[i].body, 25);
        if (d != 25 * cases[i].cycles)
            fail_msg("%s: %llu cycles for 25 more, want %llu", cases[i].body,
                     (unsigned long long)d, (unsigned long long)(25 * cases[i].cycles));
    }
    /* 1024 flops a matrix op (512 multiply-adds) */
    Run r;
    char *t = alternating_chain("mma32 r4, r2, r2, r6", "mma32 r8, r2, r2, r6", 10);
    run_kernel(&r, t, &gpu, SIM_MODE_TIMED, 32, 32, 4096);
    assert_int_equal(r.res.stats.flops, 10 * 1024);
    run_free(&r);
    free(t);
}

/* Tensor ops (tmma, class tensor): without a neural accelerator they share the fp32 pipe as
 * matrix ops do; with one they have a pipe of their own, so an FFMA or an mma32 issues in
 * their shadow; and the config's default timing follows from the accelerator's FLOPs. */
static void test_tensor_pipe(void **state)
{
    (void)state;
    static const struct {
        const char *body;
        uint64_t alu, neural; /* cycles per repetition without and with an accelerator */
    } cases[] = {
        {"tmma r4, r2, r2, r4, 1", 20, 10},                                /* the latency */
        /* four accumulators, so no write waits for the one before it: the interval */
        {"tmma r4, r2, r2, r6, 1;tmma r8, r2, r2, r6, 1;tmma r10, r2, r2, r6, 1;tmma r12, r2, r2, r6, 1",
         4 * 16, 4 * 4},
        {"tmma r4, r2, r2, r6, 1;ffma32 r14, r1, 1.5, 0.5;tmma r8, r2, r2, r6, 1;"
         "ffma32 r15, r1, 1.5, 0.5;tmma r10, r2, r2, r6, 1;ffma32 r14, r1, 1.5, 0.5;"
         "tmma r12, r2, r2, r6, 1;ffma32 r15, r1, 1.5, 0.5", 4 * 17, 4 * 4}, /* FFMAs: shadow */
        /* mma32 keeps the fp32 pipe: only the accelerator's tmma leaves it */
        {"tmma r4, r2, r2, r6, 1;mma32 r8, r2, r2, r6;tmma r10, r2, r2, r6, 1;mma32 r12, r2, r2, r6",
         4 * 16, 2 * 16},
    };
    for (int neural = 0; neural < 2; neural++) {
        SimGpuConfig gpu = simple_gpu();
        gpu.op[ISA_OP_MMA32] = (SimOpTiming){20, 16};
        gpu.op[ISA_OP_FFMA32] = (SimOpTiming){6, 1};
        gpu.op_class[ISA_CLASS_MATRIX] = (SimOpTiming){20, 16};
        if (neural) /* 1024 FP16 FLOPs a cycle a core: 256 a scheduler, 4 cycles a tmma */
            gpu.neural_fp16_flops_per_cycle_per_core = 256.0 * gpu.schedulers_per_core;
        gpu.op[ISA_OP_TMMA] = sim_gpu_tensor_timing(&gpu);
        assert_int_equal(gpu.op[ISA_OP_TMMA].latency, neural ? 10 : 20);
        assert_int_equal(gpu.op[ISA_OP_TMMA].interval, neural ? 4 : 16);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            uint64_t want = neural ? cases[i].neural : cases[i].alu;
            uint64_t d = body_cycles(&gpu, cases[i].body, 50) -
                         body_cycles(&gpu, cases[i].body, 25);
            if (d != 25 * want)
                fail_msg("%s (%s): %llu cycles for 25 more, want %llu", cases[i].body,
                         neural ? "neural accelerator" : "ALUs", (unsigned long long)d,
                         (unsigned long long)(25 * want));
        }
        /* 1024 flops a tmma: the neural accelerator's where there is one, else the ALUs' */
        Run r;
        char *t = alternating_chain("tmma r4, r2, r2, r6, 1", "tmma r8, r2, r2, r6, 1", 10);
        run_kernel(&r, t, &gpu, SIM_MODE_TIMED, 32, 32, 4096);
        assert_int_equal(r.res.stats.tensor_flops, neural ? 10 * 1024 : 0);
        assert_int_equal(r.res.stats.flops, neural ? 0 : 10 * 1024);
        assert_true((r.res.stats.peak_tensor_flops_per_second > 0) == (neural != 0));
        run_free(&r);
        free(t);
    }
}

/* ---- independent work: one issue per cycle per scheduler ---------------------------------- */

static void test_throughput(void **state)
{
    (void)state;
    SimGpuConfig gpu = simple_gpu();
    char *t = NULL;
    size_t len = 0, cap = 0;
    grow(&t, &len, &cap, ".kernel indep\n.regs 16\n.arg out, device, u0\n");
    grow(&t, &len, &cap, "    get_sr r1, thread_position_in_grid.x\n");
    for (int k = 2; k < 10; k++)
        grow(&t, &len, &cap, "    mov r%d, %d.0\n", k, k);
    for (int i = 0; i < 800; i++)
        grow(&t, &len, &cap, "    ffma32 r%d, r%d, 1.0001, 0.5\n", 2 + i % 8, 2 + i % 8);
    /* No store: its 500-cycle completion would end the run long after the last issue. */
    grow(&t, &len, &cap, "    stop\n");
    /* 16 SIMD-groups: 4 per scheduler, each with 8 independent chains (latency 6). */
    Run r;
    run_kernel(&r, t, &gpu, SIM_MODE_TIMED, 512, 512, 4096);
    const SimStats *s = &r.res.stats;
    double issue_rate = (double)r.res.instructions / ((double)s->cycles * gpu.schedulers_per_core);
    assert_true(issue_rate > 0.9);
    assert_true(issue_rate <= 1.0);
    double flops_per_cycle = (double)s->flops / (double)s->cycles;
    assert_true(flops_per_cycle > 0.9 * 256 && flops_per_cycle <= 256);
    assert_int_equal(s->cores[0].instructions, r.res.instructions);
    assert_true(s->cores[0].busy_cycles <= s->cycles);
    check_accounting(&r, &gpu);
    run_free(&r);
    free(t);
}

/* ---- wait, idle skipping ------------------------------------------------------------------ */

static const char ONE_LOAD[] =
    ".kernel one_load\n.regs 8\n.arg buf, device, u0\n"
    "    get_sr r1, thread_position_in_grid.x\n"
    "    ld_dev.b32 r2, u0, r1, 0\n"
    "    wait 0\n"
    "    fadd32 r3, r2, 1.0\n"
    "    st_dev.b32 r3, u0, r1\n"
    "    stop\n";

static void test_wait_and_idle_skip(void **state)
{
    (void)state;
    SimGpuConfig gpu = simple_gpu();
    Run r;
    run_kernel(&r, ONE_LOAD, &gpu, SIM_MODE_TIMED, 32, 32, 4096);
    const SimStats *s = &r.res.stats;
    /* The load's line arrives 1 + 500 cycles after it issues, and the store's completes as
     * long after it issues: two round trips and a few cycles of issue. */
    assert_true(s->cycles >= 2 * 501);
    assert_true(s->cycles < 2 * 501 + 40);
    assert_true(s->stall_cycles[SIM_STALL_MEMORY] >= 495);
    /* Far fewer loop iterations than cycles: the 500 idle ones were skipped. */
    assert_true(sim_timed_debug_iterations() < 30);
    assert_int_equal(s->memory[MEM_LEVEL_DRAM].hits, 2); /* the load's line and the store's */
    float *f = (float *)r.dev->buffers[0].data;
    assert_true(f[3] == 4.0f);
    check_accounting(&r, &gpu);
    run_free(&r);

    /* The latency follows the config. */
    gpu.memory.level[MEM_LEVEL_DRAM].latency = 2000;
    run_kernel(&r, ONE_LOAD, &gpu, SIM_MODE_TIMED, 32, 32, 4096);
    assert_true(r.res.stats.cycles >= 2 * 2001 && r.res.stats.cycles < 2 * 2001 + 40);
    run_free(&r);
}

/* ---- occupancy ---------------------------------------------------------------------------- */

/* A threadgroup store of 32 words `stride` words apart, then a load with no lane active
 * whose result a chain depends on. */
static char *port_kernel(uint32_t stride)
{
    char *t = NULL;
    size_t len = 0, cap = 0;
    grow(&t, &len, &cap, ".kernel port\n.regs 8\n.tgmem 4096\n.arg out, device, u0\n");
    grow(&t, &len, &cap, "    get_sr r1, thread_position_in_grid.x\n    imul r5, r1, %u\n", stride);
    grow(&t, &len, &cap, "    mov r3, 0\n    st_tg.b32 r1, 0, r5\n");
    grow(&t, &len, &cap, "    if_icmp.ult 1, r1, 0\n    ld_tg.b32 r3, 0, r1\n    pop_exec 1\n");
    for (int i = 0; i < 40; i++)
        grow(&t, &len, &cap, "    iadd r3, r3, 1\n");
    grow(&t, &len, &cap, "    st_dev.b32 r3, u0, r1\n    stop\n");
    return t;
}

/* The banks serve one access at a time, even one with no lane active: it starts when the
 * store before it is done with the banks. A stride of 16 words puts all 32 words in one of
 * the 16 banks (32 cycles); a stride of 1 spreads them two to a bank (2 cycles). So the
 * load, and the chain and store after it, finish 30 cycles later, less the 2 or so cycles
 * between the store's issue and the load's. */
static void test_tg_port_without_lanes(void **state)
{
    (void)state;
    SimGpuConfig gpu = simple_gpu();
    gpu.tg_banks = 16;
    gpu.tg_bank_bytes = 4;
    char *ta = port_kernel(16), *tb = port_kernel(1);
    Run a, b;
    run_kernel(&a, ta, &gpu, SIM_MODE_TIMED, 32, 32, 4096);
    run_kernel(&b, tb, &gpu, SIM_MODE_TIMED, 32, 32, 4096);
    const int64_t diff = (int64_t)a.res.stats.cycles - (int64_t)b.res.stats.cycles;
    if (diff < 27 || diff > 30)
        fail_msg("cycles %llu vs %llu: want 27..30 more with the conflicting store",
                 (unsigned long long)a.res.stats.cycles, (unsigned long long)b.res.stats.cycles);
    assert_int_equal(a.res.stats.tg_bank_conflict_cycles - b.res.stats.tg_bank_conflict_cycles, 30);
    check_accounting(&a, &gpu);
    run_free(&a);
    run_free(&b);
    free(ta);
    free(tb);
}

/* Banks that are not a power of two (24 of 4 bytes) take the general count: a store of 32
 * words `stride` apart fills ceil(32 / (24 / gcd(stride, 24))) words into its busiest bank,
 * of which ceil(32 / 24) = 2 are the conflict-free count. */
static void test_bank_conflicts_odd_banks(void **state)
{
    (void)state;
    SimGpuConfig gpu = simple_gpu();
    gpu.tg_banks = 24;
    gpu.tg_bank_bytes = 4;
    static const uint32_t strides[] = {1, 3, 24, 5, 8};
    static const uint64_t want[] = {0, 2, 30, 0, 9}; /* 2, 4, 32, 2, 11 cycles, less 2 */
    for (uint32_t i = 0; i < sizeof strides / sizeof strides[0]; i++) {
        char *text = port_kernel(strides[i]);
        Run r;
        run_kernel(&r, text, &gpu, SIM_MODE_TIMED, 32, 32, 4096);
        if (r.res.stats.tg_bank_conflict_cycles != want[i])
            fail_msg("stride %u: %llu conflict cycles, want %llu", strides[i],
                     (unsigned long long)r.res.stats.tg_bank_conflict_cycles,
                     (unsigned long long)want[i]);
        run_free(&r);
        free(text);
    }
}

/* 32 SIMD-groups of one threadgroup, each a chain of 200 dependent FMAs (latency 10,
 * one issue per cycle per scheduler), on one core with 1 to 4 schedulers. SIMD-groups are
 * dealt to the schedulers evenly, so the busiest has G = ceil(32 / s). Issuing oldest
 * first, a scheduler keeps its 10 oldest chains going (each is ready again just as the
 * tenth after it issues) and starts the next only when one ends: G chains take
 * ceil(G / 10) waves of 200 x 10 cycles, plus the few cycles before the chains and the
 * 500-cycle DRAM store after them. Covers the engine's general scheduler count as well as
 * the 4 every shipped config has. */
static void test_schedulers_per_core(void **state)
{
    (void)state;
    char *text = fma_chain(200);
    for (uint32_t spc = 1; spc <= 4; spc++) {
        SimGpuConfig gpu = simple_gpu();
        gpu.op[ISA_OP_FFMA32] = (SimOpTiming){10, 1};
        gpu.schedulers_per_core = spc;
        Run r;
        run_kernel(&r, text, &gpu, SIM_MODE_TIMED, 1024, 1024, 4096);
        const uint64_t groups = (32 + spc - 1) / spc, waves = (groups + 9) / 10;
        const uint64_t want = waves * 2000 + 500;
        if (r.res.stats.cycles < want || r.res.stats.cycles > want + 150)
            fail_msg("%u schedulers: %llu cycles, want %llu to %llu", spc,
                     (unsigned long long)r.res.stats.cycles, (unsigned long long)want,
                     (unsigned long long)want + 150);
        check_accounting(&r, &gpu);
        run_free(&r);
    }
    free(text);
}

static char *occupancy_kernel(uint32_t regs)
{
    char *t = NULL;
    size_t len = 0, cap = 0;
    grow(&t, &len, &cap, ".kernel occ\n.regs %u\n.arg out, device, u0\n", regs);
    grow(&t, &len, &cap, "    get_sr r1, thread_position_in_grid.x\n    mov r2, 1.0\n");
    for (int i = 0; i < 40; i++)
        grow(&t, &len, &cap, "    ffma32 r2, r2, 1.0001, 0.5\n");
    grow(&t, &len, &cap, "    stop\n");
    return t;
}

static void test_occupancy(void **state)
{
    (void)state;
    SimGpuConfig gpu = simple_gpu();
    /* Mesa's table: 32 registers = 64 halves -> 1024 threads (32 SIMD-groups); 128 registers
     * = 256 halves -> 384 threads (12 SIMD-groups). */
    assert_int_equal(sim_gpu_occupancy_threads(&gpu, 32), 1024);
    assert_int_equal(sim_gpu_occupancy_threads(&gpu, 128), 384);
    assert_int_equal(sim_gpu_occupancy_threads(&gpu, 64), 832);
    char *small = occupancy_kernel(32), *big = occupancy_kernel(128);
    Run a, b;
    run_kernel(&a, small, &gpu, SIM_MODE_TIMED, 64 * 32, 32, 64 * 32 * 4);
    run_kernel(&b, big, &gpu, SIM_MODE_TIMED, 64 * 32, 32, 64 * 32 * 4);
    assert_int_equal(a.res.stats.max_resident_simdgroups, 32);
    assert_int_equal(b.res.stats.max_resident_simdgroups, 12);
    assert_non_null(strstr(b.res.stats.occupancy_limiter, "registers"));
    assert_true(b.res.stats.avg_resident_simdgroups <= 12.0);
    assert_true(b.res.stats.avg_resident_simdgroups > 6.0);
    assert_true(a.res.stats.avg_resident_simdgroups > 12.0);
    assert_true(a.res.stats.avg_resident_simdgroups <= 32.0);
    /* Fewer resident SIMD-groups hide less latency: the big kernel takes longer. */
    assert_true(b.res.stats.cycles > a.res.stats.cycles);
    run_free(&a);
    run_free(&b);
    free(small);
    free(big);
}

/* ---- determinism -------------------------------------------------------------------------- */

static const char TG_SUM[] =
    ".kernel tg_sum\n.regs 8\n.arg in, device, u0\n.arg out, device, u2\n.tgmem 32\n"
    "    get_sr r1, thread_position_in_grid.x\n"
    "    get_sr r2, thread_index_in_simdgroup\n"
    "    get_sr r3, simdgroup_index_in_threadgroup\n"
    "    ld_dev.b32 r4, u0, r1, 0\n"
    "    wait 0\n"
    "    simd_red.sum.f32 r5, r4\n"
    "    if_icmp.eq 1, r2, 0\n"
    "    st_tg.b32 r5, 0, r3\n"
    "    pop_exec 1\n"
    "    barrier.tg\n"
    "    if_icmp.eq 1, r3, 0\n"
    "    if_icmp.ult 1, r2, 8\n"
    "    ld_tg.b32 r6, 0, r2\n"
    "    pop_exec 1\n"
    "    icmpsel.ult r6, r2, 8, r6, 0\n"
    "    simd_red.sum.f32 r7, r6\n"
    "    if_icmp.eq 1, r2, 0\n"
    "    get_sr r2, threadgroup_position_in_grid.x\n"
    "    st_dev.b32 r7, u2, r2\n"
    "    pop_exec 1\n"
    "    pop_exec 1\n"
    "    stop\n";

static void test_determinism(void **state)
{
    (void)state;
    Run a, b, f;
    run_kernel(&a, TG_SUM, NULL, SIM_MODE_TIMED, 1 << 16, 256, 4u << 16);
    run_kernel(&b, TG_SUM, NULL, SIM_MODE_TIMED, 1 << 16, 256, 4u << 16);
    run_kernel(&f, TG_SUM, NULL, SIM_MODE_FUNCTIONAL, 1 << 16, 256, 4u << 16);
    const SimStats *x = &a.res.stats, *y = &b.res.stats;
    assert_true(x->cycles > 0);
    assert_int_equal(x->cycles, y->cycles);
    for (int i = 0; i < SIM_STALL_COUNT; i++)
        assert_int_equal(x->stall_cycles[i], y->stall_cycles[i]);
    for (int lv = 0; lv < MEM_LEVEL_COUNT; lv++) {
        assert_int_equal(x->memory[lv].hits, y->memory[lv].hits);
        assert_int_equal(x->memory[lv].misses, y->memory[lv].misses);
        assert_int_equal(x->memory[lv].bytes, y->memory[lv].bytes);
    }
    assert_int_equal(x->num_cores, 8);
    for (uint32_t c = 0; c < x->num_cores; c++) {
        assert_int_equal(x->cores[c].busy_cycles, y->cores[c].busy_cycles);
        assert_int_equal(x->cores[c].instructions, y->cores[c].instructions);
        assert_true(x->cores[c].avg_resident_simdgroups == y->cores[c].avg_resident_simdgroups);
        assert_true(x->cores[c].instructions > 0); /* 256 threadgroups spread over 8 cores */
    }
    assert_int_equal(x->tg_memory_accesses, y->tg_memory_accesses);
    assert_true(x->tg_memory_accesses > 0);
    assert_true(x->dram_bytes >= (4u << 16)); /* the input was read from DRAM once */
    assert_true(x->seconds > 0 && x->peak_flops_per_second > 2.5e12);
    /* Same instructions and results as functional mode. */
    assert_int_equal(a.res.instructions, f.res.instructions);
    assert_int_equal(a.res.lane_instructions, f.res.lane_instructions);
    assert_int_equal(a.res.threadgroups, f.res.threadgroups);
    assert_memory_equal(a.dev->buffers[1].data, f.dev->buffers[1].data, a.dev->buffers[1].size);
    check_accounting(&a, sim_gpu_default());
    run_free(&a);
    run_free(&b);
    run_free(&f);
}

/* ---- same answers: every race-free kernel in kernels/ -------------------------------------- */

typedef struct Buffers {
    uint32_t count;
    uint8_t **data;
    uint64_t *size;
    uint64_t instructions;
    uint64_t conflicts;   /* timed: threadgroup bank-conflict cycles */
    uint64_t stats[128];  /* timed: every counter of the result and its statistics */
    uint32_t nstats;
} Buffers;

static void keep_stat(Buffers *b, uint64_t v)
{
    assert_true(b->nstats < sizeof b->stats / sizeof b->stats[0]);
    b->stats[b->nstats++] = v;
}

static void keep_stats(Buffers *b, const SimResult *r)
{
    const SimStats *st = &r->stats;
    /* Every scheduler-cycle is an issue or a stall, also when the budget stopped the run
     * (the picks of the cycle it stopped in that did not issue once were neither). The
     * default GPU's 4 schedulers per core. */
    uint64_t stalls = 0;
    for (int i = 0; i < SIM_STALL_COUNT; i++)
        stalls += st->stall_cycles[i];
    if (stalls + r->instructions != (uint64_t)st->num_cores * 4 * st->cycles)
        fail_msg("%llu stall cycles and %llu issues in %llu cycles of %u cores of 4 schedulers%s",
                 (unsigned long long)stalls, (unsigned long long)r->instructions,
                 (unsigned long long)st->cycles, st->num_cores,
                 r->budget_exceeded ? " (budget stop)" : "");
    keep_stat(b, r->instructions);
    keep_stat(b, r->lane_instructions);
    keep_stat(b, r->total_faults);
    keep_stat(b, r->budget_exceeded);
    keep_stat(b, st->cycles);
    for (int i = 0; i < SIM_STALL_COUNT; i++)
        keep_stat(b, st->stall_cycles[i]);
    for (uint32_t c = 0; c < st->num_cores; c++) {
        keep_stat(b, st->cores[c].busy_cycles);
        keep_stat(b, st->cores[c].instructions);
        keep_stat(b, (uint64_t)(st->cores[c].avg_resident_simdgroups * 1e6));
    }
    for (int lv = 0; lv < MEM_LEVEL_COUNT; lv++) {
        keep_stat(b, st->memory[lv].hits);
        keep_stat(b, st->memory[lv].misses);
    }
    keep_stat(b, st->tg_memory_accesses);
    keep_stat(b, st->tg_bank_conflict_cycles);
    keep_stat(b, st->flops);
    /* the faults recorded, in the order they happened */
    for (uint32_t i = 0; i < r->num_faults && i < 16; i++) {
        keep_stat(b, r->faults[i].thread.grid[0]);
        keep_stat(b, r->faults[i].pc);
        keep_stat(b, r->faults[i].offset);
    }
}

static bool run_manifest_budget(const char *path, SimMode mode, uint64_t budget, Buffers *out);

static bool run_manifest(const char *path, SimMode mode, Buffers *out)
{
    return run_manifest_budget(path, mode, 0, out);
}

/* Runs the manifest at path (budget: the manifest's when 0) into out. */
static bool run_manifest_budget(const char *path, SimMode mode, uint64_t budget, Buffers *out)
{
    UtilError err = {{0}};
    memset(out, 0, sizeof *out);
    UiManifest *m = ui_manifest_load(path, &err);
    if (!m)
        return false;
    LangTypeLayout *layouts = NULL;
    IsaProgram *p = ui_load_kernel(m, &layouts, &err);
    if (!p) {
        ui_manifest_free(m);
        fail_msg("%s: %s", path, err.message);
    }
    UiBound bound;
    if (!ui_bind_layouts(m, p, layouts, 0, &bound, &err))
        fail_msg("%s: %s", path, err.message);
    SimLaunch launch = {
        .program = p, .device = bound.device, .bindings = bound.bindings,
        .data_buffer = (uint32_t)bound.data_buffer, .data_bound = bound.data_buffer >= 0,
        .by_threadgroups = m->by_threadgroups, .mode = mode,
        .instruction_budget = budget ? budget : m->has_budget ? m->budget : 0,
    };
    memcpy(launch.grid, m->grid, sizeof launch.grid);
    memcpy(launch.threadgroup, m->threadgroup, sizeof launch.threadgroup);
    SimResult r = {0};
    if (!sim_dispatch(&launch, &r, &err))
        fail_msg("%s: %s", path, err.message);
    out->count = bound.device->count;
    out->data = calloc(out->count + 1, sizeof *out->data);
    out->size = calloc(out->count + 1, sizeof *out->size);
    for (uint32_t i = 0; i < out->count; i++) {
        out->size[i] = bound.device->buffers[i].size;
        out->data[i] = malloc(out->size[i] + 1);
        memcpy(out->data[i], bound.device->buffers[i].data, out->size[i]);
    }
    out->instructions = r.instructions;
    out->conflicts = r.stats.tg_bank_conflict_cycles;
    if (mode == SIM_MODE_TIMED)
        keep_stats(out, &r);
    sim_result_free(&r);
    ui_bound_free(&bound);
    ui_free_layouts(layouts, p->num_args);
    isa_program_free(p);
    ui_manifest_free(m);
    return true;
}

static void buffers_free(Buffers *b)
{
    for (uint32_t i = 0; i < b->count; i++)
        free(b->data[i]);
    free(b->data);
    free(b->size);
}

static int compared;

static void same_answers_in(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        names = realloc(names, (n + 1) * sizeof *names);
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    /* Sorted, so a failure report is the same on every host. */
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(names[j], names[i]) < 0) {
                char *t = names[i];
                names[i] = names[j];
                names[j] = t;
            }
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        size_t len = strlen(names[i]);
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            /* kernels/bugs/ is racy or faulty on purpose. */
            if (strcmp(path, "kernels/bugs") != 0)
                same_answers_in(path);
        } else if (len > 5 && strcmp(names[i] + len - 5, ".yaml") == 0) {
            Buffers f, t;
            if (!run_manifest(path, SIM_MODE_FUNCTIONAL, &f))
                fail_msg("%s: not a launch manifest", path);
            assert_true(run_manifest(path, SIM_MODE_TIMED, &t));
            assert_int_equal(f.count, t.count);
            assert_int_equal(f.instructions, t.instructions);
            for (uint32_t b = 0; b < f.count; b++) {
                assert_int_equal(f.size[b], t.size[b]);
                if (memcmp(f.data[b], t.data[b], f.size[b]) != 0)
                    fail_msg("%s: buffer %u differs between functional and timed mode", path, b);
            }
            compared++;
            buffers_free(&f);
            buffers_free(&t);
        }
        free(names[i]);
    }
    free(names);
}

static void test_same_answers(void **state)
{
    (void)state;
    compared = 0;
    same_answers_in("kernels");
    assert_true(compared >= 10);
}

/* ---- running ahead ------------------------------------------------------------------------ */

/* Register work of a length that depends on the threadgroup (so that cores reach their
 * stores at different cycles), then threadgroup stores of which some (two lanes of every
 * third threadgroup) fall outside the array, a barrier, more register work. On a
 * non-uniform grid, its last threadgroup partial: with 96 threads a threadgroup, cores keep
 * room for it while full ones wait to be placed. */
static const char stray_kernel[] =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void stray(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                  uint gid [[thread_position_in_grid]],\n"
    "                  uint lid [[thread_index_in_threadgroup]],\n"
    "                  uint tgid [[threadgroup_position_in_grid]])\n"
    "{\n"
    "    threadgroup float tile[128];\n"
    "    float v = in[gid];\n"
    "    for (uint k = 0; k < 4 + tgid % 7 * 5; k++)\n"
    "        v = fma(v, 1.0001f, 0.5f);\n"
    "    uint slot = (tgid % 3 == 1 && lid % 64 == 0) ? lid + 128 + tgid : lid;\n"
    "    tile[slot] = v;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    float w = tile[(lid + 1) % 128];\n"
    "    for (uint k = 0; k < 4; k++)\n"
    "        w = fma(w, 0.999f, 0.25f);\n"
    "    out[gid] = w;\n"
    "}\n";

/* The benchmark kernels with barriers between stretches of register work (softmax, tiled
 * matmul, a tree reduction), threadgroup atomics (histogram) and a register-bound loop, on
 * 2^14 threads, and a kernel with threadgroup faults on a non-uniform grid: every counter,
 * the faults in order and every buffer with cores and schedulers running ahead equal those
 * of one cycle at a time, also when the budget stops the run midway. */
static void test_ahead_is_cycle_exact(void **state)
{
    (void)state;
    char kpath[] = "/tmp/lockstep_stray_XXXXXX.metal";
    int kfd = mkstemps(kpath, 6);
    assert_true(kfd >= 0);
    assert_int_equal(write(kfd, stray_kernel, strlen(stray_kernel)), (ssize_t)strlen(stray_kernel));
    close(kfd);
    static const struct { const char *kernel, *grid, *tg, *args; } cases[] = {
        {NULL, "[30000]", "[128]",
         "  in: {type: float, count: 30000, init: {range: [0, 1]}}\n"
         "  out: {type: float, count: 30000}\n"},
        {NULL, "[30000]", "[96]",
         "  in: {type: float, count: 30000, init: {range: [0, 1]}}\n"
         "  out: {type: float, count: 30000}\n"},
        {"histogram", "[16384]", "[256]",
         "  keys: {type: uint, count: 16384, init: {range: [0, 1]}}\n"
         "  bins: {type: uint, count: 256}\n"},
        {"softmax", "[16384]", "[256]",
         "  in: {type: float, count: 16384, init: {range: [0, 1]}}\n"
         "  out: {type: float, count: 16384}\n  scale: {type: float, value: 0.03125}\n"},
        {"matmul", "[128, 128]", "[16, 16]",
         "  A: {type: float, count: 8192, init: {range: [0, 1]}}\n"
         "  B: {type: float, count: 8192, init: {range: [0, 1]}}\n"
         "  C: {type: float, count: 16384}\n"
         "  M: {type: uint, value: 128}\n  N: {type: uint, value: 128}\n  K: {type: uint, value: 64}\n"},
        {"reduce", "[16384]", "[256]",
         "  in: {type: float, count: 16384, init: {range: [0, 1]}}\n"
         "  partial_sums: {type: float, count: 64}\n"},
        {"compute", "[16384]", "[256]",
         "  in: {type: float, count: 16384, init: {range: [0, 1]}}\n"
         "  out: {type: float, count: 16384}\n  iters: {type: uint, value: 64}\n"},
    };
    char cwd[2048], path[] = "/tmp/lockstep_ahead_XXXXXX.yaml";
    assert_non_null(getcwd(cwd, sizeof cwd));
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    close(fd);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        if (cases[i].kernel)
            fprintf(f, "kernel: %s/bench/compare/kernels/%s.metal\n", cwd, cases[i].kernel);
        else
            fprintf(f, "kernel: %s\n", kpath);
        fprintf(f, "grid: %s\nthreadgroup: %s\nargs:\n%s", cases[i].grid, cases[i].tg,
                cases[i].args);
        fclose(f);
        uint64_t total = 0;
        for (int b = 0; b < 3; b++) {
            /* the whole run, then budgets that stop it a third and two thirds of the way */
            uint64_t budget = b ? total * (uint64_t)b / 3 : 0;
            Buffers on, off;
            sim_timed_debug_set_ahead(false);
            assert_true(run_manifest_budget(path, SIM_MODE_TIMED, budget, &off));
            sim_timed_debug_set_ahead(true);
            assert_true(run_manifest_budget(path, SIM_MODE_TIMED, budget, &on));
            if (!b)
                total = off.instructions;
            assert_true(total > 1000);
            assert_int_equal(on.nstats, off.nstats);
            for (uint32_t k = 0; k < on.nstats; k++)
                if (on.stats[k] != off.stats[k])
                    fail_msg("%s (budget %llu): counter %u is %llu running ahead, %llu a cycle at a time",
                             cases[i].kernel ? cases[i].kernel : "stray", (unsigned long long)budget, k,
                             (unsigned long long)on.stats[k], (unsigned long long)off.stats[k]);
            for (uint32_t k = 0; k < on.count; k++)
                if (memcmp(on.data[k], off.data[k], on.size[k]) != 0)
                    fail_msg("%s (budget %llu): buffer %u differs",
                             cases[i].kernel ? cases[i].kernel : "stray",
                             (unsigned long long)budget, k);
            buffers_free(&on);
            buffers_free(&off);
        }
    }
    remove(path);
    remove(kpath);
}

/* ---- threadgroup banks --------------------------------------------------------------------- */

static uint32_t gcd32(uint32_t a, uint32_t b)
{
    while (b) {
        uint32_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Runs one SIMD-group of a kernel that reads `tile[INDEX]` of a threadgroup array `TYPE
 * tile[1024]` once a round (s[i] the i-th of n values) and returns the bank-conflict cycles. */
static uint64_t typed_tile_conflicts(const char *type, const char *index, const uint32_t *values,
                                     uint32_t n, uint32_t rounds)
{
    char kernel[1024];
    snprintf(kernel, sizeof kernel,
             "#include <metal_stdlib>\n"
             "using namespace metal;\n"
             "kernel void tiles(device const uint *s [[buffer(0)]], device uint *out [[buffer(1)]],\n"
             "                  constant uint &n [[buffer(2)]],\n"
             "                  uint lid [[thread_index_in_threadgroup]])\n"
             "{\n"
             "    threadgroup %s tile[1024];\n"
             "    uint acc = 0;\n"
             "    for (uint i = 0; i < n; i++)\n"
             "        acc += tile[%s];\n"
             "    out[lid] = acc;\n"
             "}\n",
             type, index);
    char kpath[] = "/tmp/lockstep_tiles_XXXXXX.metal", path[] = "/tmp/lockstep_tiles_XXXXXX.yaml";
    int fd = mkstemps(kpath, 6);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, kernel, strlen(kernel)), (ssize_t)strlen(kernel));
    close(fd);
    fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fprintf(f, "kernel: %s\ngrid: [32]\nthreadgroup: [32]\nargs:\n  s: {type: uint, init: {values: [", kpath);
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "%s%u", i ? ", " : "", values[i]);
    fprintf(f, "]}}\n  out: {type: uint, count: 32}\n  n: {type: uint, value: %u}\n", rounds);
    fclose(f);
    Buffers b;
    assert_true(run_manifest(path, SIM_MODE_TIMED, &b));
    const uint64_t conflicts = b.conflicts;
    buffers_free(&b);
    remove(path);
    remove(kpath);
    return conflicts;
}

/* typed_tile_conflicts on `uint tile[1024]` at INDEX & 1023 */
static uint64_t tile_conflicts(const char *index, const uint32_t *values, uint32_t n,
                               uint32_t rounds)
{
    char masked[256];
    snprintf(masked, sizeof masked, "(%s) & 1023u", index);
    return typed_tile_conflicts("uint", masked, values, n, rounds);
}

/* The definition: the most distinct 4-byte words one of 16 banks serves when lane l reads
 * word w[l], less the ideal 2 (none when that is less). */
static uint64_t words_conflicts(const uint32_t *w)
{
    uint32_t most = 0;
    for (uint32_t bank = 0; bank < 16; bank++) {
        uint32_t distinct = 0;
        for (uint32_t l = 0; l < 32; l++) {
            bool earlier = false;
            for (uint32_t j = 0; j < l; j++)
                earlier |= w[j] == w[l];
            distinct += w[l] % 16 == bank && !earlier;
        }
        most = distinct > most ? distinct : most;
    }
    return most > 2 ? most - 2 : 0;
}

/* words_conflicts when lane l reads byte b0 + l * stride */
static uint64_t byte_round_conflicts(uint32_t b0, uint32_t stride)
{
    uint32_t w[32];
    for (uint32_t l = 0; l < 32; l++)
        w[l] = (b0 + l * stride) / 4;
    return words_conflicts(w);
}

/* One SIMD-group reads tile[lane * s] for a list of strides s, all through one load
 * instruction, so that instruction sees its lane pattern change and come back. With the
 * default 16 banks of 4 bytes, stride s puts 2 * gcd(s, 16) of the 32 distinct words in
 * each bank it uses: that many cycles, of which 2 are the conflict-free count. */
static void test_bank_conflicts_per_stride(void **state)
{
    (void)state;
    static const uint32_t strides[] = {1, 32, 2, 16, 4, 8, 32, 1, 3, 6, 12, 16, 6, 1};
    const uint32_t n = sizeof strides / sizeof strides[0];
    uint64_t expect = 0;
    for (uint32_t i = 0; i < n; i++)
        expect += 2 * gcd32(strides[i], 16) - 2;
    assert_int_equal(tile_conflicts("lid * s[i]", strides, n, n), expect);
}

/* Scattered threadgroup reads (the histogram's pattern, which no closed form covers): each
 * round 32 lanes read words of a pseudo-random list, some repeated (served once), some
 * sharing a bank. Expected cycles from the definition, per access: the most distinct words
 * one of the 16 four-byte banks serves, less the ideal 2. */
static void test_bank_conflicts_scattered(void **state)
{
    (void)state;
    enum { ROUNDS = 24 };
    uint32_t word[ROUNDS * 32];
    uint32_t seed = 12345;
    uint64_t expect = 0;
    for (uint32_t r = 0; r < ROUNDS; r++) {
        uint32_t *w = word + r * 32;
        for (uint32_t l = 0; l < 32; l++) {
            seed = seed * 1664525u + 1013904223u;
            /* rounds alternate: anywhere in the tile, or few words (repeats and bank mates) */
            w[l] = r % 2 ? (seed >> 8) & 1023u : ((seed >> 8) % 6u) * 48u;
        }
        expect += words_conflicts(w);
    }
    assert_int_equal(tile_conflicts("s[i * 32u + lid]", word, ROUNDS * 32, ROUNDS), expect);
}

/* Byte reads tile[b0 + lid * stride] of `uchar tile[1024]`, all through one load: lanes
 * whose offsets differ alike meet different banks when b0 moves within a 4-byte word, so
 * the engine's memo of the last pattern must tell those apart (by the first byte's place in
 * its word), and a round with lanes outside the tile (1001 + 31 * 64: recorded as faults,
 * yet timed) must not leave that memo answering for the in-bounds round after it. Expected cycles from the
 * definition, per round. */
static void test_bank_conflicts_bytes(void **state)
{
    (void)state;
    static const uint32_t rounds[][2] = {
        {0, 17}, {1, 17}, {2, 17}, {0, 17}, {0, 31}, {1, 31}, {2, 31}, {3, 31}, {3, 15},
        {0, 15}, {5, 17}, {1001, 64}, {1, 17}, {2, 17}, {0, 1}, {3, 1}, {8, 65}, {3, 31},
    };
    enum { N = sizeof rounds / sizeof rounds[0] };
    uint32_t values[2 * N];
    uint64_t expect = 0;
    for (uint32_t i = 0; i < N; i++) {
        values[2 * i] = rounds[i][0];
        values[2 * i + 1] = rounds[i][1];
        expect += byte_round_conflicts(rounds[i][0], rounds[i][1]);
    }
    /* the rounds the memo must tell apart do differ: same stride, other cycles */
    assert_true(byte_round_conflicts(0, 17) != byte_round_conflicts(1, 17));
    assert_true(byte_round_conflicts(0, 31) != byte_round_conflicts(1, 31));
    assert_true(byte_round_conflicts(1001, 64) != byte_round_conflicts(1, 17));
    assert_int_equal(typed_tile_conflicts("uchar", "s[2u * i] + lid * s[2u * i + 1u]", values,
                                          2 * N, N),
                     expect);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dependent_chain),
        cmocka_unit_test(test_dependence_in_every_place),
        cmocka_unit_test(test_matrix_on_fp32_pipe),
        cmocka_unit_test(test_tensor_pipe),
        cmocka_unit_test(test_throughput),
        cmocka_unit_test(test_wait_and_idle_skip),
        cmocka_unit_test(test_tg_port_without_lanes),
        cmocka_unit_test(test_bank_conflicts_odd_banks),
        cmocka_unit_test(test_schedulers_per_core),
        cmocka_unit_test(test_occupancy),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_same_answers),
        cmocka_unit_test(test_ahead_is_cycle_exact),
        cmocka_unit_test(test_bank_conflicts_per_stride),
        cmocka_unit_test(test_bank_conflicts_scattered),
        cmocka_unit_test(test_bank_conflicts_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
