/*
 * engine_harness.h — what the timed-engine suites share (test_engine.c, test_banks.c):
 * assembling a kernel and running it on a GPU config with filled buffers, a one-core M1
 * with plain DRAM whose cycle counts follow by hand, and the check that every
 * scheduler-cycle is an issue or a stall.
 */
#ifndef LOCKSTEP_TESTS_TIMING_ENGINE_HARNESS_H
#define LOCKSTEP_TESTS_TIMING_ENGINE_HARNESS_H

#include "test_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../isa/isa.h"
#include "../../mem/mem.h"
#include "../../sim/gpu.h"
#include "../../sim/sim.h"

/* ---- helpers ------------------------------------------------------------------------------ */

typedef struct Run {
    IsaProgram *prog;
    MemDevice *dev;
    SimArgBinding bind[4];
    SimResult res;
} Run;

static inline void grow(char **buf, size_t *len, size_t *cap, const char *fmt, ...) UTIL_PRINTF(4, 5);
static inline void grow(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (*len + (size_t)n + 1 > *cap) {
        *cap = (*len + (size_t)n + 1) * 2;
        *buf = realloc(*buf, *cap);
    }
    memcpy(*buf + *len, line, (size_t)n + 1);
    *len += (size_t)n;
}

/* Binds one device buffer of `bytes` per argument of prog (r takes it), runs it. */
static inline void run_program(Run *r, IsaProgram *prog, const SimGpuConfig *gpu, SimMode mode,
                               uint32_t threads, uint32_t tg, uint64_t bytes)
{
    UtilError err = {{0}};
    memset(r, 0, sizeof *r);
    r->prog = prog;
    r->dev = mem_device_new();
    for (uint32_t i = 0; i < r->prog->num_args && i < 4; i++) {
        int32_t b = mem_device_add(r->dev, r->prog->args[i].name, bytes, MEM_SPACE_DEVICE, &err);
        assert_true(b >= 0);
        r->bind[i].buffer = (uint32_t)b;
        float *f = (float *)r->dev->buffers[b].data;
        for (uint64_t k = 0; k < bytes / 4; k++)
            f[k] = (float)(k % 5);
    }
    SimLaunch L = {
        .program = r->prog, .device = r->dev, .bindings = r->bind, .grid = {threads, 1, 1},
        .threadgroup = {tg, 1, 1}, .mode = mode, .gpu = gpu,
    };
    if (!sim_dispatch(&L, &r->res, &err))
        fail_msg("dispatch failed: %s", err.message);
    assert_int_equal(r->res.total_faults, 0);
    assert_int_equal(r->res.timed, mode == SIM_MODE_TIMED);
}

/* Assembles text, then run_program. */
static inline void run_kernel(Run *r, const char *text, const SimGpuConfig *gpu, SimMode mode,
                              uint32_t threads, uint32_t tg, uint64_t bytes)
{
    UtilError err = {{0}};
    IsaProgram *prog = isa_assemble(text, "engine.s", &err);
    if (!prog)
        fail_msg("assembly failed: %s\n%s", err.message, text);
    run_program(r, prog, gpu, mode, threads, tg, bytes);
}

/* The same for a kernel whose last instruction is not `stop`: the assembler refuses one, a
 * program built through the library may be one; text is assembled with a `stop` after it,
 * which is dropped. */
static inline void run_kernel_open_ended(Run *r, const char *text, const SimGpuConfig *gpu,
                                         SimMode mode, uint32_t threads, uint32_t tg,
                                         uint64_t bytes)
{
    UtilError err = {{0}};
    size_t len = strlen(text);
    char *closed = malloc(len + 16);
    memcpy(closed, text, len);
    strcpy(closed + len, "\n    stop\n");
    IsaProgram *prog = isa_assemble(closed, "engine.s", &err);
    free(closed);
    if (!prog)
        fail_msg("assembly failed: %s\n%s", err.message, text);
    prog->count--; /* the stop */
    if (!isa_program_finish(prog, &err))
        fail_msg("%s", err.message);
    run_program(r, prog, gpu, mode, threads, tg, bytes);
}

static inline void run_free(Run *r)
{
    sim_result_free(&r->res);
    mem_device_free(r->dev);
    isa_program_free(r->prog);
}

/* A one-core M1 whose memory is a plain DRAM: no caches, 1 cycle per line, fixed latency. */
static inline SimGpuConfig simple_gpu(void)
{
    SimGpuConfig c = *sim_gpu_default();
    c.cores = 1;
    c.memory.cores = 1;
    for (int lv = MEM_LEVEL_L1; lv < MEM_LEVEL_DRAM; lv++)
        c.memory.level[lv].size_bytes = 0;
    c.memory.level[MEM_LEVEL_DRAM].latency = 500;
    c.memory.level[MEM_LEVEL_DRAM].line_bytes = 128;
    c.memory.level[MEM_LEVEL_DRAM].bytes_per_cycle = 128;
    c.memory.level[MEM_LEVEL_L1].line_bytes = 128;
    return c;
}

static inline uint64_t total_stalls(const SimStats *s)
{
    uint64_t n = 0;
    for (int i = 0; i < SIM_STALL_COUNT; i++)
        n += s->stall_cycles[i];
    return n;
}

/* Every scheduler-cycle is an issue or a stall of some reason. */
static inline void check_accounting(const Run *r, const SimGpuConfig *gpu)
{
    const SimStats *s = &r->res.stats;
    uint64_t sched_cycles = s->cycles * gpu->cores * gpu->schedulers_per_core;
    assert_int_equal(total_stalls(s) + r->res.instructions, sched_cycles);
}

#endif
