/*
 * sim_harness.h — what the simulator suites share: assembling a kernel from text, binding
 * fresh device buffers to its arguments, running a dispatch, and an independent binary16
 * reference (round-to-nearest-even from double or from an exact scaled integer), so that
 * half results are checked against arithmetic the simulator does not share.
 */
#ifndef LOCKSTEP_TESTS_SIM_HARNESS_H
#define LOCKSTEP_TESTS_SIM_HARNESS_H

#include "test_util.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../isa/isa.h"
#include "../../mem/mem.h"
#include "../../sim/sim.h"

#define H_MAX_ARGS 16

typedef struct Harness {
    MemDevice *dev;
    IsaProgram *prog;
    SimArgBinding bind[H_MAX_ARGS];
    SimLaunch launch;
    SimResult res;
    bool have_res;
} Harness;

/* Assembles text; a failure fails the test with the assembler's message. */
static inline IsaProgram *h_assemble(const char *text)
{
    UtilError err = {{0}};
    IsaProgram *p = isa_assemble(text, "test.s", &err);
    if (!p) {
        print_error("kernel:\n%s\nassembler: %s\n", text, err.message);
        fail_msg("assembly failed");
    }
    return p;
}

/* A program whose last instruction is not `stop`, so that SIMD-groups run off its end (they
 * end there, as at `stop`). The assembler refuses such a kernel; a program built through the
 * library may still be one, so text is assembled with a `stop` after it, which is dropped. */
static inline IsaProgram *h_assemble_open_ended(const char *text)
{
    size_t len = strlen(text);
    char *closed = malloc(len + 16);
    memcpy(closed, text, len);
    strcpy(closed + len, "\n    stop\n");
    IsaProgram *p = h_assemble(closed);
    free(closed);
    assert_true(p->count >= 2 && p->code[p->count - 1].op == ISA_OP_STOP);
    p->count--;
    UtilError err = {{0}};
    if (!isa_program_finish(p, &err))
        fail_msg("%s", err.message);
    return p;
}

static inline void h_init(Harness *h, const char *text)
{
    memset(h, 0, sizeof *h);
    h->dev = mem_device_new();
    h->prog = h_assemble(text);
}

static inline void h_init_open_ended(Harness *h, const char *text)
{
    memset(h, 0, sizeof *h);
    h->dev = mem_device_new();
    h->prog = h_assemble_open_ended(text);
}

static inline void h_free(Harness *h)
{
    if (h->have_res)
        sim_result_free(&h->res);
    isa_program_free(h->prog);
    mem_device_free(h->dev);
    memset(h, 0, sizeof *h);
}

/* A zero-filled buffer of `bytes` bound to argument `arg`; returns its host bytes. */
static inline void *h_buffer(Harness *h, uint32_t arg, const char *name, uint64_t bytes,
                             MemSpace space)
{
    UtilError err = {{0}};
    int32_t idx = mem_device_add(h->dev, name, bytes, space, &err);
    if (idx < 0)
        fail_msg("mem_device_add: %s", err.message);
    assert_true(arg < H_MAX_ARGS);
    h->bind[arg].buffer = (uint32_t)idx;
    return h->dev->buffers[idx].data;
}

static inline void *h_data(Harness *h, uint32_t arg) { return h->dev->buffers[h->bind[arg].buffer].data; }

/* Sets up the launch (grid in threads, or in threadgroups when by_tg). */
static inline void h_grid(Harness *h, bool by_tg, uint32_t gx, uint32_t gy, uint32_t gz,
                          uint32_t tx, uint32_t ty, uint32_t tz)
{
    SimLaunch *L = &h->launch;
    L->program = h->prog;
    L->device = h->dev;
    L->bindings = h->bind;
    L->by_threadgroups = by_tg;
    if (h->prog->data_bytes && !L->data_bound) { /* program-scope constant arrays */
        UtilError err = {{0}};
        int32_t idx = sim_add_program_data(h->dev, h->prog, &err);
        if (idx < 0)
            fail_msg("sim_add_program_data: %s", err.message);
        L->data_buffer = (uint32_t)idx;
        L->data_bound = true;
    }
    L->grid[0] = gx, L->grid[1] = gy, L->grid[2] = gz;
    L->threadgroup[0] = tx, L->threadgroup[1] = ty, L->threadgroup[2] = tz;
    L->mode = SIM_MODE_FUNCTIONAL;
}

/* Runs the dispatch set up by h_grid; the launch must be valid. */
static inline void h_run(Harness *h)
{
    UtilError err = {{0}};
    if (h->have_res)
        sim_result_free(&h->res);
    if (!sim_dispatch(&h->launch, &h->res, &err))
        fail_msg("sim_dispatch refused the launch: %s", err.message);
    h->have_res = true;
}

/* 1D shorthand: n threads in threadgroups of tg. */
static inline void h_run1(Harness *h, uint32_t n, uint32_t tg)
{
    h_grid(h, false, n, 1, 1, tg, 1, 1);
    h_run(h);
}

static inline void h_expect_no_faults(const Harness *h)
{
    if (h->res.total_faults) {
        const SimFault *f = &h->res.faults[0];
        fail_msg("%llu unexpected faults; first: kind %d buffer %s offset %llu pc %u",
                 (unsigned long long)h->res.total_faults, f->kind, f->buffer ? f->buffer : "-",
                 (unsigned long long)f->offset, f->pc);
    }
}

/* Byte address of instruction `index`, from the table's encoded sizes (independent of the
 * simulator): the pc a fault or observer reports for it. */
static inline uint32_t h_pc_of(const IsaProgram *p, uint32_t index)
{
    uint32_t pc = 0;
    for (uint32_t i = 0; i < index; i++)
        pc += isa_ops[p->code[i].op].size;
    return pc;
}

/* ---- independent binary16 reference ----------------------------------------------------- */

static inline double h_f16_value(uint16_t h)
{
    int sign = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 31)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp(m, -24);
    else
        v = ldexp(1024 + m, e - 25);
    return sign ? -v : v;
}

static inline bool h_f16_is_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }

/* Rounds a magnitude given as mag * 2^scale (mag > 0) to binary16, nearest even. */
static inline uint16_t h_round_scaled(bool neg, unsigned __int128 mag, int scale)
{
    uint16_t s = neg ? 0x8000 : 0;
    if (mag == 0)
        return s;
    int p = 127;
    while (!((mag >> p) & 1))
        p--;
    int e = p + scale;                 /* value in [2^e, 2^(e+1)) */
    int q_exp = e < -14 ? -24 : e - 10; /* exponent of the last kept bit */
    int shift = q_exp - scale;
    unsigned __int128 q;
    if (shift <= 0) {
        q = mag << -shift;
    } else {
        q = mag >> shift;
        unsigned __int128 rem = mag & (((unsigned __int128)1 << shift) - 1);
        unsigned __int128 halfway = (unsigned __int128)1 << (shift - 1);
        if (rem > halfway || (rem == halfway && (q & 1)))
            q++;
    }
    if (q_exp == -24) /* subnormal (q == 1024 is the smallest normal, encoded alike) */
        return (uint16_t)(s | (uint16_t)q);
    if (q == 2048) {
        q = 1024;
        e++;
    }
    if (e > 15)
        return (uint16_t)(s | 0x7c00);
    return (uint16_t)(s | (uint16_t)((e + 15) << 10) | (uint16_t)(q - 1024));
}

/* double -> binary16, nearest even (x must be exactly the value to round). */
static inline uint16_t h_d2h(double x)
{
    if (isnan(x))
        return 0x7e00;
    bool neg = signbit(x);
    double a = fabs(x);
    if (isinf(a))
        return neg ? 0xfc00 : 0x7c00;
    if (a == 0)
        return neg ? 0x8000 : 0;
    int e;
    double f = frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
    /* 53 significant bits as an integer: exact */
    unsigned __int128 mag = (unsigned __int128)(uint64_t)ldexp(f, 53);
    return h_round_scaled(neg, mag, e - 53);
}

/* Exact a * b + c of three finite halves, rounded once to binary16. */
static inline uint16_t h_fma16_ref(uint16_t a, uint16_t b, uint16_t c)
{
    double da = h_f16_value(a), db = h_f16_value(b), dc = h_f16_value(c);
    if (isnan(da) || isnan(db) || isnan(dc) || isinf(da) || isinf(db) || isinf(dc))
        return h_d2h(fma(da, db, dc)); /* specials: no rounding involved */
    /* every finite half is an integer multiple of 2^-24; products of 2^-48 */
    __int128 ia = (__int128)ldexp(da, 24), ib = (__int128)ldexp(db, 24), ic = (__int128)ldexp(dc, 24);
    __int128 prod = ia * ib;              /* units of 2^-48 */
    __int128 sum = prod + ic * ((__int128)1 << 24);
    if (sum == 0) {
        bool prod_neg = ((a ^ b) & 0x8000) != 0;
        bool c_neg = (c & 0x8000) != 0;
        bool both_zero = prod == 0 && ic == 0;
        return both_zero && prod_neg && c_neg ? 0x8000 : 0;
    }
    bool neg = sum < 0;
    return h_round_scaled(neg, (unsigned __int128)(neg ? -sum : sum), -48);
}

static inline uint32_t h_fbits(float f) { return util_f32_bits(f); }
static inline float h_bitsf(uint32_t u) { return util_bits_f32(u); }

#endif
