/*
 * gpu.c — the built-in GPU configuration (Apple M1, G13) and the two helpers every config
 * needs: resolving per-op timing from the op-class defaults, and Mesa's occupancy table.
 *
 * Every number below cites apple-gpu-facts.md and the source it names there: [M] measured on
 * hardware (philipturner/metal-benchmarks, chipsandcheese), [A] Apple's own figure, [E] an
 * estimate or a parameter nobody has published. Cycle counts are rounded to whole cycles;
 * "1 / 2.2" in the facts file means 1 cycle per SIMD-group instruction issued, 2.2 cycles of
 * latency. sim/gpus/m1.yaml carries the same numbers for the command line.
 */
#include <pthread.h>
#include <string.h>

#include "gpu.h"

enum { M1_CLOCK_MHZ = 1278 }; /* [M] applegpuinfo; chips table of apple-gpu-facts.md */

static void set_op(SimGpuConfig *c, uint8_t *mask, IsaOpcode op, uint16_t latency, uint16_t interval)
{
    c->op[op] = (SimOpTiming){latency, interval};
    mask[op] = 1;
}

static SimGpuConfig build_m1(void)
{
    SimGpuConfig c;
    memset(&c, 0, sizeof c);
    strcpy(c.name, "m1");
    strcpy(c.chip, "Apple M1 (G13, Apple7)");
    c.cores = 8;                         /* [A] 8-core GPU */
    c.clock_mhz = M1_CLOCK_MHZ;          /* [M] */
    c.schedulers_per_core = 4;           /* [M] metal-benchmarks: 4 schedulers, 1 instr/cycle each */
    c.max_threads_per_core = 1024;       /* Mesa's occupancy table: <= 104 half-registers */
    c.max_threadgroups_per_core = 32;    /* [E] not published: one per SIMD-group slot */
    c.tg_memory_per_core = 60 * 1024;    /* [E] ~60 KB per core */
    c.tg_memory_per_threadgroup = 32768; /* [A] Metal API limit */

    /* Op classes: {latency, interval}. metal-benchmarks throughput / latency, rounded. */
    c.op_class[ISA_CLASS_FP32] = (SimOpTiming){3, 1};        /* [M] FADD/FMUL32 1 / ~3 */
    c.op_class[ISA_CLASS_FP16] = (SimOpTiming){3, 1};        /* [M] FFMA16 1 / ~3 */
    c.op_class[ISA_CLASS_INT] = (SimOpTiming){3, 1};         /* [M] IADD32 1 / 2.2; Mesa {2,1} */
    c.op_class[ISA_CLASS_INT_COMPLEX] = (SimOpTiming){4, 4}; /* [M] IMUL/IMAD32 4 / ~4 */
    c.op_class[ISA_CLASS_SFU] = (SimOpTiming){5, 4};         /* [M] EXP2/LOG2 4 / 4.3 */
    c.op_class[ISA_CLASS_CONVERT] = (SimOpTiming){4, 4};     /* [M] CONVERT, RINT 4 / 3.7 */
    c.op_class[ISA_CLASS_MOVE] = (SimOpTiming){2, 1};        /* [E] like iadd (Mesa: mov {2,1}) */
    c.op_class[ISA_CLASS_CONTROL] = (SimOpTiming){1, 1};     /* [E] exec-mask ops and jumps */
    c.op_class[ISA_CLASS_SIMD] = (SimOpTiming){4, 2};        /* [M] shuffle, broadcast 2 / 3.7 */
    c.op_class[ISA_CLASS_SIMD_REDUCE] = (SimOpTiming){28, 15}; /* [M] simd_sum f32 14.5 / 27.6 */
    c.op_class[ISA_CLASS_MATRIX] = (SimOpTiming){22, 16};    /* [E] 512 FMAs on 32 fp32 lanes; +ffma32's 6 */
    c.op_class[ISA_CLASS_TENSOR] = c.op_class[ISA_CLASS_MATRIX]; /* no neural accelerator */
    /* Memory: issue cost only; the data latency comes from the hierarchy (device, constant)
     * or tg_latency + bank cycles (threadgroup). */
    c.op_class[ISA_CLASS_MEM_DEVICE] = (SimOpTiming){4, 1};  /* [E] */
    c.op_class[ISA_CLASS_MEM_CONST] = (SimOpTiming){4, 1};   /* [E] */
    c.op_class[ISA_CLASS_MEM_TG] = (SimOpTiming){4, 1};      /* [E] */
    c.op_class[ISA_CLASS_MEM_STACK] = (SimOpTiming){60, 1};  /* [E] spills: about an L1 hit */
    c.op_class[ISA_CLASS_ATOMIC] = (SimOpTiming){4, 4};      /* [E] */
    c.op_class[ISA_CLASS_BARRIER] = (SimOpTiming){1, 1};     /* [E] */

    uint8_t mask[ISA_OP_COUNT] = {0};
    set_op(&c, mask, ISA_OP_FFMA32, 6, 1);    /* [M] later metal-benchmarks: FFMA32 ~6 */
    set_op(&c, mask, ISA_OP_FMIN32, 5, 1);    /* [M] FMIN/FMAX32 1 / 4.74 */
    set_op(&c, mask, ISA_OP_FMAX32, 5, 1);
    set_op(&c, mask, ISA_OP_FCMPSEL32, 5, 1); /* [M] FCMPSEL32 1 / 4.74 */
    set_op(&c, mask, ISA_OP_UMULHI, 10, 8);   /* [M] IMULHI32 8 / 9.8 */
    set_op(&c, mask, ISA_OP_SMULHI, 10, 8);
    set_op(&c, mask, ISA_OP_SHL, 4, 2);       /* [M] runtime shifts: left 4, right 7.9; Mesa {3,2} */
    set_op(&c, mask, ISA_OP_LSR, 8, 2);
    set_op(&c, mask, ISA_OP_ASR, 8, 2);
    set_op(&c, mask, ISA_OP_RCP32, 7, 6);     /* [M] RECIP 6 / 6.5 */
    set_op(&c, mask, ISA_OP_RSQRT32, 9, 8);   /* [M] RSQRT 8 / 9.0 */
    set_op(&c, mask, ISA_OP_FDIV32, 8, 6);    /* [M] DIV32 6 per instruction; latency [E] */
    set_op(&c, mask, ISA_OP_FDIV16, 8, 6);    /* [E] as FDIV32 */
    set_op(&c, mask, ISA_OP_SQRT32, 10, 8);   /* [M] SQRT32 8 per instruction; latency [E] */
    set_op(&c, mask, ISA_OP_SIN32, 16, 14);   /* [M] SIN 14.3 (9 FLOPs per core-cycle) */
    set_op(&c, mask, ISA_OP_COS32, 16, 14);
    set_op(&c, mask, ISA_OP_ICMP_BALLOT, 5, 2); /* [M] ballot 2 / 4.3 */
    set_op(&c, mask, ISA_OP_FCMP_BALLOT, 5, 2);
    static const IsaOpcode quad_shuffles[] = {
        ISA_OP_QSHFL, ISA_OP_QSHFL_UP, ISA_OP_QSHFL_DOWN, ISA_OP_QSHFL_XOR,
        ISA_OP_QSHFL_ROT_UP, ISA_OP_QSHFL_ROT_DOWN, ISA_OP_QBCAST,
    };
    for (size_t i = 0; i < sizeof quad_shuffles / sizeof quad_shuffles[0]; i++)
        set_op(&c, mask, quad_shuffles[i], 3, 2); /* [M] quad shuffle 2 / 2.8 */
    set_op(&c, mask, ISA_OP_SIMD_PREFIX, 22, 12); /* [M] prefix exclusive sum f32 11.6 / 21.9 */
    set_op(&c, mask, ISA_OP_QUAD_RED, 4, 2);      /* [E] like a quad shuffle */
    set_op(&c, mask, ISA_OP_QUAD_PREFIX, 4, 2);   /* [E] */
    set_op(&c, mask, ISA_OP_IMUL64, 10, 8);       /* [M] 32x32->64 8 / 9.8; wider [E] */
    set_op(&c, mask, ISA_OP_UMULHI64, 20, 16);    /* [E] a few 32-bit multiplies */
    set_op(&c, mask, ISA_OP_SMULHI64, 20, 16);
    sim_gpu_resolve_ops(&c, mask);

    /* Memory hierarchy. Latencies are end to end (request to data) at 1278 MHz. */
    MemCacheLevelConfig *l1 = &c.memory.level[MEM_LEVEL_L1];
    l1->size_bytes = 8 * 1024;   /* [M] 8 KB per core */
    l1->line_bytes = 128;        /* [M] 128 B lines */
    l1->ways = 8;                /* [E] */
    l1->latency = 60;            /* [E] a little above threadgroup memory (43 ns = 55 cycles) */
    l1->bytes_per_cycle = 64;    /* [E] 64 B per core per cycle */
    MemCacheLevelConfig *l2 = &c.memory.level[MEM_LEVEL_L2];
    l2->size_bytes = 768 * 1024; /* [E] 768 KB */
    l2->line_bytes = 128;
    l2->ways = 16;               /* [E] */
    l2->latency = 97;            /* [M] chipsandcheese 76 ns */
    l2->bytes_per_cycle = 300;   /* [M] 384 GB/s / 1.278 GHz, shared */
    MemCacheLevelConfig *slc = &c.memory.level[MEM_LEVEL_SLC];
    slc->size_bytes = 8ull << 20; /* [E] 8 MB */
    slc->line_bytes = 128;
    slc->ways = 16;              /* [E] */
    slc->latency = 340;          /* [M] chipsandcheese 266 ns */
    slc->bytes_per_cycle = 105;  /* [M] 134 GB/s / 1.278 GHz */
    MemCacheLevelConfig *dram = &c.memory.level[MEM_LEVEL_DRAM];
    dram->line_bytes = 128;
    dram->latency = 397;         /* [M] chipsandcheese 311 ns */
    dram->bytes_per_cycle = 68.25e9 / (M1_CLOCK_MHZ * 1e6); /* [A] 68.25 GB/s LPDDR4X */
    c.memory.cores = c.cores;

    c.tg_latency = 55;           /* [M] chipsandcheese: threadgroup memory 43 ns */
    c.tg_banks = 16;             /* [E] unknown on hardware (a 16 x 4 B claim was withdrawn); */
    c.tg_bank_bytes = 4;         /*     64 B/cycle matches the measured 671 GB/s over 8 cores */
    c.wait_slot_loads = 8;       /* Mesa agx_insert_waits.c: 8 pending loads per slot */
    c.barrier_latency = 8;       /* [E] */
    c.fp32_flops_per_cycle_per_core = 256; /* [M] 128 ALUs x FMA */
    c.dram_bytes_per_second = 68.25e9;     /* [A] */
    return c;
}

static SimGpuConfig default_m1;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

static void build_default(void) { default_m1 = build_m1(); }

const SimGpuConfig *sim_gpu_default(void)
{
    /* Built once per process (two threads may ask: a checked timed run); a compound-literal
     * initializer for ~200 ops would be unreadable. Callers only read it. */
    pthread_once(&default_once, build_default);
    return &default_m1;
}

SimOpTiming sim_gpu_tensor_timing(const SimGpuConfig *cfg)
{
    double per_scheduler = cfg->neural_fp16_flops_per_cycle_per_core /
                           (cfg->schedulers_per_core ? cfg->schedulers_per_core : 1);
    if (!(per_scheduler > 0))
        return cfg->op_class[ISA_CLASS_MATRIX];
    double cycles = 1024.0 / per_scheduler;
    uint16_t interval = cycles >= 65535 ? 65535 : cycles <= 1 ? 1 : (uint16_t)(cycles + 0.999);
    uint32_t latency = interval + cfg->op[ISA_OP_FFMA32].latency;
    return (SimOpTiming){(uint16_t)(latency > 65535 ? 65535 : latency), interval};
}

void sim_gpu_resolve_ops(SimGpuConfig *cfg, const uint8_t *override_mask)
{
    for (int op = 0; op < ISA_OP_COUNT; op++)
        if (!override_mask || !override_mask[op])
            cfg->op[op] = cfg->op_class[isa_ops[op].op_class];
}

uint32_t sim_gpu_occupancy_threads(const SimGpuConfig *cfg, uint32_t regs)
{
    /* Mesa (src/asahi/compiler) for G13: resident threads by 16-bit half-registers used. */
    static const struct { uint32_t halves, threads; } table[] = {
        {104, 1024}, {112, 896}, {128, 832}, {136, 768}, {144, 704},
        {160, 640},  {184, 576}, {208, 512}, {232, 448}, {256, 384},
    };
    uint32_t halves = regs * 2, threads = 384;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (halves <= table[i].halves) {
            threads = table[i].threads;
            break;
        }
    }
    if (cfg && cfg->max_threads_per_core && threads > cfg->max_threads_per_core)
        threads = cfg->max_threads_per_core;
    return threads;
}
