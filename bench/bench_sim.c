/*
 * bench_sim.c — `make bench`: how fast the simulator runs, in lane-instructions per second
 * (active lanes summed over executed SIMD-group instructions), for four kernels:
 *   alu_loop     a full-mask loop of dependent and independent ffma32 chains
 *   copy         a streaming copy through device memory (ld_dev / wait / st_dev)
 *   tg_sum       a threadgroup sum: simd_red, threadgroup memory, barriers (assembly; half
 *                of its lane-slots idle, which halves its lane-instruction rate)
 *   tree_reduce  the teaching tree reduction, kernels/reduce/reduce_threadgroup.metal
 * each in functional mode and in timed mode (the cycle-approximate engine on the built-in M1
 * config; its simulated cycles are printed too). Each is run several times; the best time is
 * reported (the machine is shared and noisy). Nothing here asserts a time: the figures are
 * for people to read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../isa/isa.h"
#include "../lang/lang.h"
#include "../mem/mem.h"
#include "../sim/sim.h"

static const char ALU_LOOP[] =
    ".kernel alu_loop\n"
    ".regs 16\n"
    ".arg out, device, u0\n"
    "    get_sr r1, thread_position_in_grid.x\n"
    "    cvt.f32.u32 r2, r1\n"
    "    mov r3, 1.0001\n"
    "    mov r4, 0.5\n"
    "    mov r5, r2\n"
    "    fadd32 r6, r2, 1.0\n"
    "    fadd32 r7, r2, 2.0\n"
    "    fadd32 r8, r2, 3.0\n"
    "    mov r11, 0\n"
    "    push_exec 2\n"
    "loop:\n"
    "    ffma32 r5, r5, r3, r4\n"
    "    ffma32 r6, r6, r3, r4\n"
    "    ffma32 r7, r7, r3, r4\n"
    "    ffma32 r8, r8, r3, r4\n"
    "    ffma32 r5, r5, r3, r4\n"
    "    ffma32 r6, r6, r3, r4\n"
    "    ffma32 r7, r7, r3, r4\n"
    "    ffma32 r8, r8, r3, r4\n"
    "    fmul32 r5, r5, r3\n"
    "    fadd32 r6, r6, r4\n"
    "    fmul32 r7, r7, r3\n"
    "    fadd32 r8, r8, r4\n"
    "    iadd r11, r11, 1\n"
    "    while_icmp.ult 2, r11, 256\n"
    "    jmp_exec_any loop\n"
    "    pop_exec 2\n"
    "    fadd32 r5, r5, r6\n"
    "    fadd32 r7, r7, r8\n"
    "    fadd32 r5, r5, r7\n"
    "    st_dev.b32 r5, u0, r1\n"
    "    stop\n";

static const char COPY[] =
    ".kernel copy\n"
    ".regs 8\n"
    ".arg src, device, u0\n"
    ".arg dst, device, u2\n"
    "    get_sr r1, thread_position_in_grid.x\n"
    "    shl r2, r1, 2\n"
    "    ld_dev.b32.x4 r4, u0, r2, 0\n"
    "    wait 0\n"
    "    st_dev.b32.x4 r4, u2, r2\n"
    "    stop\n";

static const char TG_SUM[] =
    ".kernel tg_sum\n"
    ".regs 8\n"
    ".arg in, device, u0\n"
    ".arg out, device, u2\n"
    ".tgmem 32\n"
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

typedef struct Case {
    const char *name;
    const char *text;      /* assembly, or NULL: */
    const char *metal;     /* a Metal kernel file (its constant arguments get `threads`,
                            * threadgroup arguments a float per thread of the group) */
    uint32_t threads;
    uint32_t tg;
    uint64_t bytes[2];     /* device buffers, in argument order */
} Case;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int run_case(const Case *c, SimMode mode, int reps)
{
    UtilError err;
    IsaProgram *p = c->text ? isa_assemble(c->text, c->name, &err)
                            : lang_compile_file(c->metal, NULL, NULL, &err);
    if (!p) {
        fprintf(stderr, "bench: %s\n", err.message);
        return 1;
    }
    MemDevice *dev = mem_device_new();
    SimArgBinding bind[8] = {{0}};
    uint32_t device_args = 0;
    for (uint32_t i = 0; i < p->num_args && i < 8; i++) {
        if (p->args[i].kind == ISA_ARG_THREADGROUP) {
            bind[i].tg_bytes = c->tg * 4;
            continue;
        }
        bool is_constant = p->args[i].kind == ISA_ARG_CONSTANT;
        uint64_t bytes = is_constant ? 4 : c->bytes[device_args++ & 1];
        bind[i].buffer = (uint32_t)mem_device_add(dev, p->args[i].name, bytes,
                                                  is_constant ? MEM_SPACE_CONSTANT : MEM_SPACE_DEVICE, &err);
        uint8_t *data = dev->buffers[bind[i].buffer].data;
        if (is_constant) {
            memcpy(data, &c->threads, 4);
            continue;
        }
        float *f = (float *)data;
        for (uint64_t k = 0; k < bytes / 4; k++)
            f[k] = (float)(k % 7) * 0.25f;
    }
    SimLaunch launch = {
        .program = p, .device = dev, .bindings = bind, .grid = {c->threads, 1, 1},
        .threadgroup = {c->tg, 1, 1}, .mode = mode,
    };
    double best = 1e30;
    SimResult r = {0};
    for (int i = 0; i < reps; i++) {
        sim_result_free(&r);
        double t0 = now();
        if (!sim_dispatch(&launch, &r, &err)) {
            fprintf(stderr, "bench: %s\n", err.message);
            return 1;
        }
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    char cycles[64] = "";
    if (r.timed)
        snprintf(cycles, sizeof cycles, ", %llu cycles", (unsigned long long)r.stats.cycles);
    printf("%-10s %-10s %9u threads %12llu lane-instr  %8.2f ms  %6.3f G lane-instr/s  (SIMD eff %.1f%%, %llu faults%s)\n",
           c->name, mode == SIM_MODE_TIMED ? "timed" : "functional", c->threads,
           (unsigned long long)r.lane_instructions, best * 1e3,
           (double)r.lane_instructions / best * 1e-9, 100 * sim_result_simd_efficiency(&r),
           (unsigned long long)r.total_faults, cycles);
    sim_result_free(&r);
    mem_device_free(dev);
    isa_program_free(p);
    return 0;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    const Case cases[] = {
        {"alu_loop", ALU_LOOP, NULL, 1 << 14, 256, {4u << 14, 0}},
        {"copy", COPY, NULL, 1 << 18, 256, {16u << 18, 16u << 18}},
        {"tg_sum", TG_SUM, NULL, 1 << 20, 256, {4u << 20, 4u << 12}},
        /* the teaching tree reduction (kernels/reduce/), compiled from Metal */
        {"tree_reduce", NULL, "kernels/reduce/reduce_threadgroup.metal", 1 << 20, 256,
         {4u << 20, 4u << 12}},
    };
    /* bench_sim REPS [KERNEL [functional|timed]], for profiling one case */
    const char *only = argc > 2 ? argv[2] : NULL;
    const char *mode = argc > 3 ? argv[3] : NULL;
    if (mode && strcmp(mode, "functional") != 0 && strcmp(mode, "timed") != 0) {
        fprintf(stderr, "bench_sim: mode must be functional or timed, not '%s'\n", mode);
        return 2;
    }
    printf("lockstep functional vs timed mode, one host core, best of %d runs\n", reps);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (only && strcmp(only, cases[i].name) != 0)
            continue;
        if ((!mode || mode[0] == 'f') && run_case(&cases[i], SIM_MODE_FUNCTIONAL, reps))
            return 1;
        if ((!mode || mode[0] == 't') && run_case(&cases[i], SIM_MODE_TIMED, reps))
            return 1;
    }
    return 0;
}
