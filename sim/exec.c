/*
 * exec.c — the interpreter loop of one SIMD-group, with the semantics of the ALU, move and
 * control-flow ops inline; memory, SIMD-group, conversion and special-function ops call
 * handlers in their own files.
 *
 * Every handler is a loop over all 32 lanes that computes into a temporary and then writes
 * only active lanes (a plain copy when all 32 are active), so the C compiler vectorizes the
 * lane loops and a full exec mask costs no blending. One always-inlined body executes one
 * instruction; it is compiled into the run-to-barrier loop of functional mode and into
 * sim_exec_one, the single step timed mode issues, each once with observer calls and once
 * without, so observers cost nothing when none is attached and the loop keeps its speed.
 */
#include <math.h>
#include <stdatomic.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "../util/fp.h"
#include "sim_internal.h"
#include "timing.h"

static inline float f32(uint32_t u) { return util_bits_f32(u); }
static inline uint32_t bits(float f) { return util_f32_bits(f); }
/* bits of an arithmetic result: a NaN is the canonical one (sim_canon_f32), tested as a
 * float, which the lane loops turn into one unordered compare and a blend */
static inline uint32_t canon_bits(float f) { return f != f ? 0x7fc00000u : util_f32_bits(f); }

void sim_update_exec(SimGroup *g)
{
    const uint32_t lanes = g->lanes; /* missing lanes of a partial SIMD-group never run */
    /* r0l of lane l is the low half of word l of r0. */
    const uint32_t *r0 = g->regs;
    for (int l = 0; l < W; l++)
        g->lane_select[l] = 0u - (uint32_t)(((r0[l] & 0xffffu) == 0) & ((uint32_t)l < lanes));
    g->exec_mask = sim_lanes_to_mask(g->lane_select);
}

uint32_t sim_lanes_to_mask(const uint32_t *lanes)
{
    uint32_t m = 0;
#if defined(__SSE2__)
    /* The sign bit of each 0 / 0xffffffff lane, four at a time. */
    for (int i = 0; i < W / 4; i++) {
        __m128 v = _mm_castsi128_ps(_mm_loadu_si128((const __m128i *)(const void *)(lanes + 4 * i)));
        m |= (uint32_t)_mm_movemask_ps(v) << (4 * i);
    }
#else
    for (int l = 0; l < W; l++)
        m |= (lanes[l] >> 31) << l;
#endif
    return m;
}

#define CMP_LOOP(T, conv, op)                                                                    \
    for (int l = 0; l < W; l++)                                                                  \
        out[l] = 0u - (uint32_t)((T)conv(a[l]) op (T)conv(b[l]));                                     \
    break
#define AS_IS(x) (x)

void sim_compare_lanes(IsaCond cond, const uint32_t *a, const uint32_t *b, bool is_float,
                       uint32_t *out)
{
    if (is_float) {
        switch (cond) {
        case ISA_COND_EQ: CMP_LOOP(float, f32, ==);
        case ISA_COND_NE: CMP_LOOP(float, f32, !=);
        case ISA_COND_LT: CMP_LOOP(float, f32, <);
        case ISA_COND_LE: CMP_LOOP(float, f32, <=);
        case ISA_COND_GT: CMP_LOOP(float, f32, >);
        default: CMP_LOOP(float, f32, >=);
        }
        return;
    }
    switch (cond) {
    case ISA_COND_EQ: CMP_LOOP(uint32_t, AS_IS, ==);
    case ISA_COND_NE: CMP_LOOP(uint32_t, AS_IS, !=);
    case ISA_COND_ULT: CMP_LOOP(uint32_t, AS_IS, <);
    case ISA_COND_ULE: CMP_LOOP(uint32_t, AS_IS, <=);
    case ISA_COND_UGT: CMP_LOOP(uint32_t, AS_IS, >);
    case ISA_COND_UGE: CMP_LOOP(uint32_t, AS_IS, >=);
    case ISA_COND_SLT: CMP_LOOP(int32_t, AS_IS, <);
    case ISA_COND_SLE: CMP_LOOP(int32_t, AS_IS, <=);
    case ISA_COND_SGT: CMP_LOOP(int32_t, AS_IS, >);
    default: CMP_LOOP(int32_t, AS_IS, >=);
    }
}

uint32_t sim_compare32(IsaCond cond, const uint32_t *a, const uint32_t *b, bool is_float)
{
    uint32_t t[W];
    sim_compare_lanes(cond, a, b, is_float, t);
    return sim_lanes_to_mask(t);
}

/* ---- float helpers ------------------------------------------------------------------------ */

static inline float saturate(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }

static inline float fmin_ieee(float a, float b)
{
    float r = a < b ? a : b;
    r = a != a ? b : r;
    return b != b ? a : r;
}

static inline float fmax_ieee(float a, float b)
{
    float r = a > b ? a : b;
    r = a != a ? b : r;
    return b != b ? a : r;
}

/* Fused multiply-add over 32 lanes. With hardware FMA (x86-64 with FMA3) the single-rounding
 * result comes from the instruction; elsewhere util_fma_f32 computes the same bits. */
typedef void (*FmaLanes)(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                         const SimOpd *o);

static void fma_lanes_soft(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                           const SimOpd *o)
{
    for (int l = 0; l < W; l++) {
        float x = f32((a[l] & o[1].and_mask) ^ o[1].xor_mask);
        float y = f32((b[l] & o[2].and_mask) ^ o[2].xor_mask);
        float z = f32((c[l] & o[3].and_mask) ^ o[3].xor_mask);
        r[l] = sim_canon_f32(bits(util_fma_f32(x, y, z)));
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) static void fma_lanes_hw(uint32_t *r, const uint32_t *a,
                                                              const uint32_t *b, const uint32_t *c,
                                                              const SimOpd *o)
{
    const uint32_t am = o[1].and_mask, ax = o[1].xor_mask, bm = o[2].and_mask,
                   bx = o[2].xor_mask, cm = o[3].and_mask, cx = o[3].xor_mask;
    for (int l = 0; l < W; l++)
        r[l] = canon_bits(__builtin_fmaf(f32((a[l] & am) ^ ax), f32((b[l] & bm) ^ bx),
                                         f32((c[l] & cm) ^ cx)));
}
#endif

/* Chosen on first use. A checked timed run executes on two threads at once: both may
 * choose, and choose the same, so an atomic store of the final choice is all it takes (a
 * relaxed load costs what a plain one does). */
static _Atomic(FmaLanes) fma_chosen;

static FmaLanes fma_lanes(void)
{
    FmaLanes chosen = atomic_load_explicit(&fma_chosen, memory_order_relaxed);
    if (UTIL_UNLIKELY(!chosen)) {
        chosen = fma_lanes_soft;
#if defined(__x86_64__) && defined(__GNUC__)
        if (sim_host_has_fma())
            chosen = fma_lanes_hw;
#endif
        atomic_store_explicit(&fma_chosen, chosen, memory_order_relaxed);
    }
    return chosen;
}

/* Asked once (every matrix op asks): 0 not yet, 1 no, 2 yes. Two threads may both ask
 * and store the same answer. */
static _Atomic int host_fma;

bool sim_host_has_fma(void)
{
    int known = atomic_load_explicit(&host_fma, memory_order_relaxed);
    if (UTIL_UNLIKELY(!known)) {
        known = 1;
#if defined(__x86_64__) && defined(__GNUC__)
        __builtin_cpu_init();
        if (__builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2"))
            known = 2;
#endif
        atomic_store_explicit(&host_fma, known, memory_order_relaxed);
    }
    return known == 2;
}

/* ---- the interpreter ---------------------------------------------------------------------- */

/* Lane loops over sources `A`, `B`, `C` with float modifiers applied. */
#define SRC(i) sim_bank(d, g, &in->o[i])
#define FSRC(p, i, l) f32(((p)[l] & in->o[i].and_mask) ^ in->o[i].xor_mask)

#define F32_BINARY(expr)                                                                         \
    do {                                                                                         \
        const uint32_t *A = SRC(1), *B = SRC(2);                                                 \
        for (int l = 0; l < W; l++) {                                                            \
            float a = FSRC(A, 1, l), b = FSRC(B, 2, l);                                          \
            res[l] = canon_bits(expr);                                                           \
        }                                                                                        \
        goto write_f32;                                                                          \
    } while (0)

#define INT_BINARY(expr)                                                                         \
    do {                                                                                         \
        const uint32_t *A = SRC(1), *B = SRC(2);                                                 \
        for (int l = 0; l < W; l++) {                                                            \
            uint32_t a = A[l], b = B[l];                                                         \
            res[l] = (expr);                                                                     \
        }                                                                                        \
        goto write_32;                                                                           \
    } while (0)

#define F16_BINARY(expr)                                                                         \
    do {                                                                                         \
        const uint16_t *A = sim_bank16(d, g, &in->o[1]), *B = sim_bank16(d, g, &in->o[2]);        \
        for (int l = 0; l < W; l++) {                                                            \
            float a = util_f16_to_f32((uint16_t)((A[l * 2] & in->o[1].and_mask) ^ in->o[1].xor_mask)); \
            float b = util_f16_to_f32((uint16_t)((B[l * 2] & in->o[2].and_mask) ^ in->o[2].xor_mask)); \
            resf[l] = (expr);                                                                    \
        }                                                                                        \
        goto write_f16_from_f32;                                                                 \
    } while (0)

#define F16_UNARY(expr)                                                                          \
    do {                                                                                         \
        const uint16_t *A = sim_bank16(d, g, &in->o[1]);                                         \
        for (int l = 0; l < W; l++) {                                                            \
            float a = util_f16_to_f32((uint16_t)((A[l * 2] & in->o[1].and_mask) ^ in->o[1].xor_mask)); \
            resf[l] = (expr);                                                                    \
        }                                                                                        \
        goto write_f16_from_f32;                                                                 \
    } while (0)

#define F32_UNARY(expr)                                                                          \
    do {                                                                                         \
        const uint32_t *A = SRC(1);                                                              \
        for (int l = 0; l < W; l++) {                                                            \
            float a = FSRC(A, 1, l);                                                             \
            res[l] = canon_bits(expr);                                                           \
        }                                                                                        \
        goto write_f32;                                                                          \
    } while (0)

static inline __attribute__((always_inline)) void notify_issued(SimDispatch *d, SimGroup *g,
                                                                const SimInst *in)
{
    g->view.exec_mask = g->exec_mask;
    g->view.pc = in->isa->pc;
    if (in->flags & SIM_INST_NO_ISSUE_HOOK)
        return;
    if (d->num_issued == 1) { /* the usual one, a check session: no loop to set up */
        if (d->issued->ops[in->op / 64] >> (in->op % 64) & 1)
            d->issued->fn(d->issued->ctx, &g->view, in->isa);
        return;
    }
    for (uint32_t i = 0; i < d->num_issued; i++) {
        const SimInstHook *h = &d->issued[i];
        if (h->ops[in->op / 64] >> (in->op % 64) & 1)
            h->fn(h->ctx, &g->view, in->isa);
    }
}

static inline __attribute__((always_inline)) void notify_retired(SimDispatch *d, SimGroup *g,
                                                                 const SimInst *in)
{
    g->view.exec_mask = g->exec_mask;
    g->view.retired++;
    if (d->num_retired == 1) {
        if (d->retired->ops[in->op / 64] >> (in->op % 64) & 1)
            d->retired->fn(d->retired->ctx, &g->view, in->isa);
        return;
    }
    for (uint32_t i = 0; i < d->num_retired; i++) {
        const SimInstHook *h = &d->retired[i];
        if (h->ops[in->op / 64] >> (in->op % 64) & 1)
            h->fn(h->ctx, &g->view, in->isa);
    }
}

static void notify_barrier(SimDispatch *d, SimGroup *g, const SimInst *in)
{
    g->view.exec_mask = g->exec_mask;
    g->view.pc = in->isa->pc;
    for (uint32_t i = 0; i < d->launch->num_observers; i++) {
        SimObserver *o = d->launch->observers[i];
        if (o->barrier_arrive)
            o->barrier_arrive(o->ctx, &g->view, in->isa);
    }
}

/* The exec-mask ops, exactly as apple-gpu-facts.md gives them; D is the lane's r0l (the low
 * half of word l of r0; the high half r0h is kept). Written branch-free so the lane loops
 * vectorize; counters saturate at 0xffff rather than wrap. */
static void exec_mask_op(SimDispatch *d, SimGroup *g, const SimInst *in)
{
    uint32_t *r0 = g->regs;
    const uint32_t n = (uint32_t)in->isa->opd[0].imm;
    uint32_t c[W];
    switch (in->op) {
    case ISA_OP_IF_ICMP: case ISA_OP_ELSE_ICMP: case ISA_OP_WHILE_ICMP:
        sim_compare_lanes((IsaCond)in->cond, SRC(1), SRC(2), false, c);
        break;
    case ISA_OP_IF_FCMP: case ISA_OP_ELSE_FCMP: case ISA_OP_WHILE_FCMP:
        sim_compare_lanes((IsaCond)in->cond, SRC(1), SRC(2), true, c);
        break;
    default:
        break;
    }
    if (g->exec_mask == SIM_FULL_MASK && in->op != ISA_OP_ELSE_ICMP &&
        in->op != ISA_OP_ELSE_FCMP) {
        /* Every lane active, so every lane present and every counter 0. push_exec and
         * pop_exec leave 0 at 0, and so do if and while for a lane whose test holds: with
         * every lane's holding (a loop going round again), nothing changes, neither r0 nor
         * the exec mask. */
        uint32_t all = ~0u;
        if (in->op != ISA_OP_PUSH_EXEC && in->op != ISA_OP_POP_EXEC)
            for (int l = 0; l < W; l++)
                all &= c[l];
        if (all)
            return;
    }
    switch (in->op) {
    case ISA_OP_IF_ICMP: case ISA_OP_IF_FCMP:
        for (int l = 0; l < W; l++) {
            uint32_t v = r0[l] & 0xffffu;
            uint32_t nv = v != 0 ? v + n : (c[l] ? 0 : 1);
            r0[l] = (r0[l] & 0xffff0000u) | (nv > 0xffffu ? 0xffffu : nv);
        }
        break;
    case ISA_OP_ELSE_ICMP: case ISA_OP_ELSE_FCMP:
        for (int l = 0; l < W; l++) {
            uint32_t v = r0[l] & 0xffffu;
            uint32_t nv = v == 0 ? n : v == 1 ? (c[l] ? 0 : 1) : v;
            r0[l] = (r0[l] & 0xffff0000u) | nv;
        }
        break;
    case ISA_OP_WHILE_ICMP: case ISA_OP_WHILE_FCMP:
        for (int l = 0; l < W; l++) {
            uint32_t v = r0[l] & 0xffffu;
            uint32_t nv = v < n ? (c[l] ? 0 : n) : v;
            r0[l] = (r0[l] & 0xffff0000u) | nv;
        }
        break;
    case ISA_OP_PUSH_EXEC:
        for (int l = 0; l < W; l++) {
            uint32_t v = r0[l] & 0xffffu;
            uint32_t nv = v != 0 ? v + n : 0;
            r0[l] = (r0[l] & 0xffff0000u) | (nv > 0xffffu ? 0xffffu : nv);
        }
        break;
    default: /* POP_EXEC */
        for (int l = 0; l < W; l++) {
            uint32_t v = r0[l] & 0xffffu;
            r0[l] = (r0[l] & 0xffff0000u) | (v > n ? v - n : 0);
        }
        break;
    }
    sim_update_exec(g);
}

/* One instruction of g (the one at pc), all its active lanes; returns the next pc. The one
 * body serves the run-to-barrier loop of functional mode and the single steps of timed mode:
 * always inlined, so each caller gets it compiled with its own `observed`. */
static inline __attribute__((always_inline)) uint32_t exec_inst(SimDispatch *d, SimGroup *g,
                                                                const SimInst *in, uint32_t pc,
                                                                const bool observed)
{
    uint32_t res[W];
    float resf[W];
    uint32_t next = pc + 1;

    switch ((IsaOpcode)in->op) {
    /* ---- f32 ---- */
    case ISA_OP_FADD32: F32_BINARY(a + b);
    case ISA_OP_FMUL32: F32_BINARY(a * b);
    case ISA_OP_FMIN32: F32_BINARY(fmin_ieee(a, b));
    case ISA_OP_FMAX32: F32_BINARY(fmax_ieee(a, b));
    case ISA_OP_FMOV32: { /* a move: a NaN keeps its bits */
        const uint32_t *A = SRC(1);
        for (int l = 0; l < W; l++)
            res[l] = (A[l] & in->o[1].and_mask) ^ in->o[1].xor_mask;
        goto write_f32;
    }
    case ISA_OP_FFMA32:
        fma_lanes()(res, SRC(1), SRC(2), SRC(3), in->o);
        goto write_f32;
    case ISA_OP_FLOOR32: F32_UNARY(floorf(a));
    case ISA_OP_CEIL32: F32_UNARY(ceilf(a));
    case ISA_OP_TRUNC32: F32_UNARY(truncf(a));
    case ISA_OP_RINT32: F32_UNARY(nearbyintf(a));
    case ISA_OP_FDIV32: F32_BINARY(a / b);
    /* ---- f16 ---- */
    case ISA_OP_FADD16: F16_BINARY(a + b);
    case ISA_OP_FMUL16: F16_BINARY(a * b);
    case ISA_OP_FMIN16: F16_BINARY(fmin_ieee(a, b));
    case ISA_OP_FMAX16: F16_BINARY(fmax_ieee(a, b));
    case ISA_OP_FMOV16:
        if (!(in->flags & SIM_INST_SAT)) { /* a move: a NaN keeps its bits */
            const uint16_t *A = sim_bank16(d, g, &in->o[1]);
            uint16_t out[W];
            for (int l = 0; l < W; l++)
                out[l] = (uint16_t)((A[l * 2] & in->o[1].and_mask) ^ in->o[1].xor_mask);
            sim_write16(g, sim_bank16(d, g, &in->o[0]), out);
            goto written;
        }
        F16_UNARY(a);
    case ISA_OP_FLOOR16: F16_UNARY(floorf(a));
    case ISA_OP_CEIL16: F16_UNARY(ceilf(a));
    case ISA_OP_TRUNC16: F16_UNARY(truncf(a));
    case ISA_OP_RINT16: F16_UNARY(nearbyintf(a));
    case ISA_OP_FDIV16: F16_BINARY(a / b);
    case ISA_OP_FFMA16: {
        const uint16_t *A = sim_bank16(d, g, &in->o[1]), *B = sim_bank16(d, g, &in->o[2]),
                       *C = sim_bank16(d, g, &in->o[3]);
        uint16_t out[W];
        for (int l = 0; l < W; l++) {
            uint16_t a = (uint16_t)((A[l * 2] & in->o[1].and_mask) ^ in->o[1].xor_mask);
            uint16_t b = (uint16_t)((B[l * 2] & in->o[2].and_mask) ^ in->o[2].xor_mask);
            uint16_t c = (uint16_t)((C[l * 2] & in->o[3].and_mask) ^ in->o[3].xor_mask);
            out[l] = sim_canon_f16(util_fma_f16(a, b, c));
            if (in->flags & SIM_INST_SAT)
                out[l] = util_f32_to_f16(saturate(util_f16_to_f32(out[l])));
        }
        sim_write16(g, sim_bank16(d, g, &in->o[0]), out);
        goto written;
    }
    /* ---- integer ---- */
    case ISA_OP_IADD: INT_BINARY(a + b);
    case ISA_OP_ISUB: INT_BINARY(a - b);
    case ISA_OP_IMUL: INT_BINARY(a * b);
    case ISA_OP_UMULHI: INT_BINARY((uint32_t)(((uint64_t)a * b) >> 32));
    case ISA_OP_SMULHI:
        INT_BINARY((uint32_t)((uint64_t)((int64_t)(int32_t)a * (int32_t)b) >> 32));
    case ISA_OP_SHL: INT_BINARY(a << (b & 31));
    case ISA_OP_LSR: INT_BINARY(a >> (b & 31));
    case ISA_OP_ASR: INT_BINARY((uint32_t)((int32_t)a >> (b & 31)));
    case ISA_OP_AND: INT_BINARY(a & b);
    case ISA_OP_OR: INT_BINARY(a | b);
    case ISA_OP_XOR: INT_BINARY(a ^ b);
    case ISA_OP_IMAD: {
        const uint32_t *A = SRC(1), *B = SRC(2), *C = SRC(3);
        for (int l = 0; l < W; l++)
            res[l] = A[l] * B[l] + C[l];
        goto write_32;
    }
    case ISA_OP_NOT: {
        const uint32_t *A = SRC(1);
        for (int l = 0; l < W; l++)
            res[l] = ~A[l];
        goto write_32;
    }
    case ISA_OP_MOV: {
        const uint32_t *A = SRC(1);
        memcpy(res, A, sizeof res);
        goto write_32;
    }
    case ISA_OP_MOV16: {
        const uint16_t *A = sim_bank16(d, g, &in->o[1]);
        uint16_t out[W];
        for (int l = 0; l < W; l++)
            out[l] = A[l * 2];
        sim_write16(g, sim_bank16(d, g, &in->o[0]), out);
        goto written;
    }
    case ISA_OP_ICMPSEL: {
        uint32_t m = sim_compare32((IsaCond)in->cond, SRC(1), SRC(2), false);
        const uint32_t *X = SRC(3), *Y = SRC(4);
        for (int l = 0; l < W; l++)
            res[l] = ((m >> l) & 1) ? X[l] : Y[l];
        goto write_32;
    }
    case ISA_OP_FCMPSEL32: {
        const uint32_t *A = SRC(1), *B = SRC(2), *X = SRC(3), *Y = SRC(4);
        uint32_t a2[W], b2[W];
        for (int l = 0; l < W; l++) {
            a2[l] = (A[l] & in->o[1].and_mask) ^ in->o[1].xor_mask;
            b2[l] = (B[l] & in->o[2].and_mask) ^ in->o[2].xor_mask;
        }
        uint32_t m = sim_compare32((IsaCond)in->cond, a2, b2, true);
        for (int l = 0; l < W; l++)
            res[l] = ((m >> l) & 1) ? ((X[l] & in->o[3].and_mask) ^ in->o[3].xor_mask)
                                    : ((Y[l] & in->o[4].and_mask) ^ in->o[4].xor_mask);
        goto write_32;
    }
    case ISA_OP_FCMPSEL16: {
        uint32_t a2[W], b2[W];
        const uint16_t *A = sim_bank16(d, g, &in->o[1]), *B = sim_bank16(d, g, &in->o[2]),
                       *X = sim_bank16(d, g, &in->o[3]), *Y = sim_bank16(d, g, &in->o[4]);
        for (int l = 0; l < W; l++) {
            a2[l] = bits(util_f16_to_f32((uint16_t)((A[l * 2] & in->o[1].and_mask) ^ in->o[1].xor_mask)));
            b2[l] = bits(util_f16_to_f32((uint16_t)((B[l * 2] & in->o[2].and_mask) ^ in->o[2].xor_mask)));
        }
        uint32_t m = sim_compare32((IsaCond)in->cond, a2, b2, true);
        uint16_t out[W];
        for (int l = 0; l < W; l++)
            out[l] = ((m >> l) & 1) ? (uint16_t)((X[l * 2] & in->o[3].and_mask) ^ in->o[3].xor_mask)
                                    : (uint16_t)((Y[l * 2] & in->o[4].and_mask) ^ in->o[4].xor_mask);
        sim_write16(g, sim_bank16(d, g, &in->o[0]), out);
        goto written;
    }
    case ISA_OP_IADD64: case ISA_OP_ISUB64: case ISA_OP_IMUL64: case ISA_OP_MOV64: {
        const SimOpd *oa = &in->o[1], *ob = &in->o[2];
        const uint32_t *alo = sim_bank(d, g, oa), *ahi = alo + W;
        const uint32_t *blo = in->op == ISA_OP_MOV64 ? alo : sim_bank(d, g, ob),
                       *bhi = blo + W;
        uint32_t lo[W], hi[W];
        for (int l = 0; l < W; l++) {
            uint64_t a = (uint64_t)ahi[l] << 32 | alo[l], b = (uint64_t)bhi[l] << 32 | blo[l];
            uint64_t v = in->op == ISA_OP_IADD64 ? a + b
                         : in->op == ISA_OP_ISUB64 ? a - b
                         : in->op == ISA_OP_IMUL64 ? a * b
                                                   : a;
            lo[l] = (uint32_t)v;
            hi[l] = (uint32_t)(v >> 32);
        }
        uint32_t *dst = sim_bank(d, g, &in->o[0]);
        sim_write32(g, dst, lo);
        sim_write32(g, dst + W, hi);
        goto written;
    }
    /* ---- handlers in other files ---- */
    case ISA_OP_UDIV: case ISA_OP_SDIV: case ISA_OP_UREM: case ISA_OP_SREM:
    case ISA_OP_UBFE: case ISA_OP_SBFE: case ISA_OP_BFI: case ISA_OP_POPCOUNT:
    case ISA_OP_CLZ: case ISA_OP_FFS: case ISA_OP_BITREV:
        sim_exec_int_misc(d, g, in);
        goto written;
    case ISA_OP_UMULHI64: case ISA_OP_SMULHI64: case ISA_OP_UDIV64: case ISA_OP_SDIV64:
    case ISA_OP_UREM64: case ISA_OP_SREM64: case ISA_OP_SHL64: case ISA_OP_LSR64:
    case ISA_OP_ASR64: case ISA_OP_AND64: case ISA_OP_OR64: case ISA_OP_XOR64:
    case ISA_OP_NOT64:
        sim_exec_alu64(d, g, in);
        goto written;
    case ISA_OP_ICMPSEL64:
        sim_exec_icmpsel64(d, g, in);
        goto written;
    case ISA_OP_RCP32: case ISA_OP_RSQRT32: case ISA_OP_SQRT32: case ISA_OP_EXP232:
    case ISA_OP_LOG232: case ISA_OP_SIN32: case ISA_OP_COS32:
        sim_exec_sfu(d, g, in);
        goto written;
    case ISA_OP_CVT:
        sim_exec_convert(d, g, in);
        goto written;
    case ISA_OP_GET_SR:
        sim_exec_get_sr(d, g, in);
        goto written;
    case ISA_OP_LD_DEV: case ISA_OP_ST_DEV: case ISA_OP_LD_CONST: case ISA_OP_LD_TG:
    case ISA_OP_ST_TG: case ISA_OP_LD_STACK: case ISA_OP_ST_STACK:
        sim_exec_memory(d, g, in);
        goto written;
    case ISA_OP_ATOM_DEV: case ISA_OP_CMPXCHG_DEV: case ISA_OP_ATOM_TG:
    case ISA_OP_CMPXCHG_TG:
        sim_exec_atomic(d, g, in);
        goto written;
    case ISA_OP_ICMP_BALLOT: case ISA_OP_FCMP_BALLOT: case ISA_OP_SHFL: case ISA_OP_SHFL_UP:
    case ISA_OP_SHFL_DOWN: case ISA_OP_SHFL_XOR: case ISA_OP_SHFL_ROT_UP:
    case ISA_OP_SHFL_ROT_DOWN: case ISA_OP_BCAST: case ISA_OP_BCAST_FIRST: case ISA_OP_QSHFL:
    case ISA_OP_QSHFL_UP: case ISA_OP_QSHFL_DOWN: case ISA_OP_QSHFL_XOR:
    case ISA_OP_QSHFL_ROT_UP: case ISA_OP_QSHFL_ROT_DOWN: case ISA_OP_QBCAST:
        sim_exec_simd(d, g, in);
        goto written;
    case ISA_OP_SIMD_RED: case ISA_OP_QUAD_RED: case ISA_OP_SIMD_PREFIX:
    case ISA_OP_QUAD_PREFIX:
        sim_exec_reduce(d, g, in);
        goto written;
    case ISA_OP_MMA32: case ISA_OP_MMA16: case ISA_OP_TMMA:
        sim_exec_matrix(d, g, in);
        goto written;
    case ISA_OP_MKPAIR: {
        uint32_t *dst = sim_bank(d, g, &in->o[0]);
        const uint32_t *A = SRC(1), *B = SRC(2);
        uint32_t lo[W], hi[W];
        memcpy(lo, A, sizeof lo); /* the destination pair may overlap a source */
        memcpy(hi, B, sizeof hi);
        sim_write32(g, dst, lo);
        sim_write32(g, dst + W, hi);
        goto written;
    }
    case ISA_OP_LO32: case ISA_OP_HI32:
        memcpy(res, sim_bank(d, g, &in->o[1]) + (in->op == ISA_OP_HI32 ? W : 0), sizeof res);
        goto write_32;
    /* ---- control ---- */
    case ISA_OP_IF_ICMP: case ISA_OP_IF_FCMP: case ISA_OP_ELSE_ICMP: case ISA_OP_ELSE_FCMP:
    case ISA_OP_WHILE_ICMP: case ISA_OP_WHILE_FCMP: case ISA_OP_PUSH_EXEC:
    case ISA_OP_POP_EXEC:
        exec_mask_op(d, g, in);
        goto done;
    case ISA_OP_JMP_EXEC_ANY:
        if (g->exec_mask)
            next = in->target;
        goto done;
    case ISA_OP_JMP_EXEC_NONE:
        if (!g->exec_mask)
            next = in->target;
        goto done;
    case ISA_OP_JMP:
        next = in->target;
        goto done;
    case ISA_OP_STOP:
        g->state = SIM_GROUP_DONE;
        goto done;
    case ISA_OP_NOP:
        goto done;
    case ISA_OP_WAIT: /* loads complete at once here; timed mode times the wait */
        goto done;
    case ISA_OP_BARRIER:
        g->state = SIM_GROUP_AT_BARRIER;
        if (observed)
            notify_barrier(d, g, in);
        goto done;
    case ISA_OP_SIMD_BARRIER:
        goto done;
    case ISA_OP_COUNT:
        goto done;
    }
    goto done;

write_f32:
    if (in->flags & SIM_INST_SAT)
        for (int l = 0; l < W; l++)
            res[l] = bits(saturate(f32(res[l])));
    /* fall through */
write_32:
    sim_write32(g, sim_bank(d, g, &in->o[0]), res);
    goto written;
write_f16_from_f32: {
    uint16_t out[W];
    bool sat = in->flags & SIM_INST_SAT;
    for (int l = 0; l < W; l++)
        out[l] = sim_canon_f16(util_f32_to_f16(sat ? saturate(resf[l]) : resf[l]));
    sim_write16(g, sim_bank16(d, g, &in->o[0]), out);
}
written:
    if (UTIL_UNLIKELY(in->flags & SIM_INST_WRITES_R0))
        sim_update_exec(g);
done:
    if (observed)
        notify_retired(d, g, in);
    return next;
}

static inline __attribute__((always_inline)) void run_group(SimDispatch *d, SimGroup *g,
                                                           const bool observed)
{
    SimResult *r = d->result;
    const SimInst *code = d->code;
    const uint32_t count = d->count;
    const uint64_t budget = d->budget;
    const uint64_t lanes = g->lanes;
    uint64_t instructions = r->instructions, lane_instructions = r->lane_instructions,
             lane_slots = r->lane_slots;
    uint32_t pc = g->pc;
    /* the debugger's quit (SimLaunch.cancel): read only in observed runs */
    const _Atomic bool *cancel = observed ? d->launch->cancel : NULL;

    while (g->state == SIM_GROUP_RUNNING) {
        if (UTIL_UNLIKELY(pc >= count)) {
            g->state = SIM_GROUP_DONE;
            break;
        }
        if (UTIL_UNLIKELY(instructions >= budget)) {
            d->stopped = true;
            g->pc = pc;
            break;
        }
        if (observed && UTIL_UNLIKELY(cancel != NULL) &&
            atomic_load_explicit(cancel, memory_order_relaxed)) {
            d->stopped = r->cancelled = true;
            g->pc = pc;
            break;
        }
        const SimInst *in = &code[pc];
        g->pc = pc;
        instructions++;
        lane_instructions += util_popcount32(g->exec_mask);
        lane_slots += lanes;
        if (observed)
            notify_issued(d, g, in);
        pc = exec_inst(d, g, in, pc, observed);
        if (g->state == SIM_GROUP_AT_BARRIER || g->state == SIM_GROUP_DONE)
            break;
    }
    g->pc = pc;
    r->instructions = instructions;
    r->lane_instructions = lane_instructions;
    r->lane_slots = lane_slots;
}

static void run_group_plain(SimDispatch *d, SimGroup *g) { run_group(d, g, false); }
static void run_group_observed(SimDispatch *d, SimGroup *g) { run_group(d, g, true); }

void sim_run_group(SimDispatch *d, SimGroup *g)
{
    if (d->launch->num_observers)
        run_group_observed(d, g);
    else
        run_group_plain(d, g);
}

static inline __attribute__((always_inline)) void exec_one(SimDispatch *d, SimGroup *g,
                                                          const bool observed)
{
    SimResult *r = d->result;
    if (UTIL_UNLIKELY(g->pc >= d->count)) {
        g->state = SIM_GROUP_DONE;
        return;
    }
    if (UTIL_UNLIKELY(r->instructions >= d->budget)) {
        d->stopped = true;
        return;
    }
    const SimInst *in = &d->code[g->pc];
    r->instructions++;
    r->lane_instructions += util_popcount32(g->exec_mask);
    r->lane_slots += g->lanes;
    if (observed)
        notify_issued(d, g, in);
    g->pc = exec_inst(d, g, in, g->pc, observed);
    if (g->state == SIM_GROUP_RUNNING && g->pc >= d->count)
        g->state = SIM_GROUP_DONE;
}

void sim_exec_one_unobserved(SimDispatch *d, SimGroup *g) { exec_one(d, g, false); }
static void exec_one_observed(SimDispatch *d, SimGroup *g) { exec_one(d, g, true); }

void sim_exec_one(SimDispatch *d, SimGroup *g)
{
    if (d->launch->num_observers)
        exec_one_observed(d, g);
    else
        sim_exec_one_unobserved(d, g);
}
