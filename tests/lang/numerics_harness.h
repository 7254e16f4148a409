/*
 * numerics_harness.h — shared by the numerics suites: running a compiled kernel over bound
 * buffers, and the independent binary16 reference (rounding a double to half, and a half's
 * exact value) that expected values are computed with.
 */
#ifndef LOCKSTEP_TESTS_LANG_NUMERICS_HARNESS_H
#define LOCKSTEP_TESTS_LANG_NUMERICS_HARNESS_H

#include "../sim/sim_harness.h"

#include "../../lang/lang.h"

#define HDR "#include <metal_stdlib>\nusing namespace metal;\n"

/* ---- running a kernel ------------------------------------------------------------------- */

/* Compiles src; bufs[k] (sizes[k] bytes) is bound to [[buffer(k)]] and copied back after n
 * threads ran. */
static inline void run(const char *src, const LangOptions *opts, void *const bufs[], const size_t sizes[],
                uint32_t nbufs, uint32_t n)
{
    UtilError err = {{0}};
    IsaProgram *p = lang_compile_source(src, "num.metal", opts, NULL, &err);
    if (!p) {
        print_error("source:\n%s\n", src);
        fail_msg("compile failed: %s", err.message);
    }
    Harness h;
    memset(&h, 0, sizeof h);
    h.dev = mem_device_new();
    h.prog = p;
    for (uint32_t a = 0; a < p->num_args; a++) {
        uint32_t b = (uint32_t)p->args[a].binding;
        assert_true(b < nbufs);
        MemSpace sp = p->args[a].kind == ISA_ARG_CONSTANT ? MEM_SPACE_CONSTANT : MEM_SPACE_DEVICE;
        memcpy(h_buffer(&h, a, "b", sizes[b], sp), bufs[b], sizes[b]);
    }
    h.launch.instruction_budget = UINT64_MAX / 4;
    h_run1(&h, n, 64);
    h_expect_no_faults(&h);
    for (uint32_t a = 0; a < p->num_args; a++)
        memcpy(bufs[p->args[a].binding], h_data(&h, a), sizes[p->args[a].binding]);
    h_free(&h);
}

/* ---- reference binary16 ----------------------------------------------------------------- */

/* Rounds a double to binary16, nearest even, working on the double's bit pattern. */
static inline uint16_t ref_half(double x)
{
    uint64_t b;
    memcpy(&b, &x, 8);
    uint16_t s = (uint16_t)((b >> 48) & 0x8000);
    int e = (int)((b >> 52) & 0x7ff);
    uint64_t m = b & ((1ull << 52) - 1);
    if (e == 0x7ff)
        return (uint16_t)(s | (m ? 0x7e00 : 0x7c00));
    if (e == 0) /* zero or a double subnormal: far below half's smallest subnormal */
        return s;
    int ue = e - 1023;                   /* x = sig * 2^(ue - 52) */
    uint64_t sig = m | (1ull << 52);
    int lsb = (ue < -14 ? -14 : ue) - 10; /* exponent of the last bit binary16 keeps */
    int shift = lsb - (ue - 52);         /* >= 42 */
    if (shift > 54)                      /* below a quarter of the last bit */
        return s;
    uint64_t q = sig >> shift, rem = sig & ((1ull << shift) - 1), halfway = 1ull << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1)))
        q++;
    if (ue < -14) /* subnormal; q == 1024 is the smallest normal, encoded alike */
        return (uint16_t)(s | q);
    if (q == 2048)
        q = 1024, ue++;
    if (ue > 15)
        return (uint16_t)(s | 0x7c00);
    return (uint16_t)(s | ((ue + 15) << 10) | (q - 1024));
}

static inline double half_val(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 31 ? (m ? NAN : INFINITY) : e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
    return (h & 0x8000) ? -v : v;
}

static inline bool half_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }

#endif
