/*
 * gpu.h — what the timing model knows about a GPU: cores and clock, schedulers, the
 * occupancy limits, latency and issue interval per op class (with per-op overrides), the
 * memory hierarchy and threadgroup memory. Configs live as YAML files in sim/gpus/ (read by
 * ui/, which owns YAML); sim_gpu_default() is the M1 built in, so the simulator needs no file.
 */
#ifndef LOCKSTEP_SIM_GPU_H
#define LOCKSTEP_SIM_GPU_H

#include <stdint.h>

#include "../isa/isa.h"
#include "../mem/cache.h"

typedef struct SimOpTiming {
    uint16_t latency;    /* cycles until the result can be read */
    uint16_t interval;   /* cycles before the same pipe of a scheduler takes another one */
} SimOpTiming;

typedef struct SimGpuConfig {
    char name[32];               /* "m1" */
    char chip[64];               /* "Apple M1 (G13, Apple7)" */
    uint32_t cores;
    double clock_mhz;
    uint32_t schedulers_per_core;      /* 4 */
    uint32_t max_threads_per_core;     /* resident threads (before register limits) */
    uint32_t max_threadgroups_per_core;
    uint32_t tg_memory_per_core;       /* bytes */
    uint32_t tg_memory_per_threadgroup;/* API limit: 32 KB */
    SimOpTiming op_class[ISA_CLASS_COUNT];
    SimOpTiming op[ISA_OP_COUNT];      /* resolved: class defaults with per-op overrides */
    MemHierarchyConfig memory;
    uint32_t tg_latency;               /* threadgroup memory, cycles */
    uint32_t tg_banks, tg_bank_bytes;  /* unknown on real hardware: a parameter */
    uint32_t wait_slot_loads;          /* pending loads per wait slot (Mesa: 8) */
    uint32_t barrier_latency;          /* cycles from the last arrival to release */
    double fp32_flops_per_cycle_per_core; /* peak, for achieved-vs-peak (256 on M1) */
    double dram_bytes_per_second;      /* peak, for achieved-vs-peak */
    /* The neural accelerator (M5): FP16 FLOPs per cycle per core; 0 = none, and tensor ops
     * (class tensor) run on the fp32 pipe as matrix ops do. With one, they issue to a tensor
     * pipe of their own in each scheduler. */
    double neural_fp16_flops_per_cycle_per_core;
} SimGpuConfig;

/* The built-in M1 configuration (the same numbers as sim/gpus/m1.yaml). */
const SimGpuConfig *sim_gpu_default(void);
/* The tensor class's timing when a config gives none: the matrix class's on a GPU without a
 * neural accelerator; with one, an 8x8x8 step (1024 FLOPs) every 1024 / (its FLOPs per cycle
 * per scheduler) cycles, and that interval plus the fp32 pipe's FFMA latency as latency. */
SimOpTiming sim_gpu_tensor_timing(const SimGpuConfig *cfg);
/* Fills op[] from op_class[] for ops without an explicit override (override_mask[op] == 0). */
void sim_gpu_resolve_ops(SimGpuConfig *cfg, const uint8_t *override_mask);
/* Resident threads per core for a kernel using `regs` registers per thread (Mesa's table for
 * G13, capped by max_threads_per_core). */
uint32_t sim_gpu_occupancy_threads(const SimGpuConfig *cfg, uint32_t regs);

#endif
