/*
 * construct_harness.h — what the per-construct compiler suites (test_constructs*.c) share:
 * compiling a kernel from text (a failure prints the compiler's message), asserting on the
 * emitted instruction sequence with the disassembly printed when a shape check fails, and
 * running the kernel on the simulator with fresh buffers bound argument by argument.
 */
#ifndef LOCKSTEP_TESTS_LANG_CONSTRUCT_HARNESS_H
#define LOCKSTEP_TESTS_LANG_CONSTRUCT_HARNESS_H

#include "test_util.h"

#include <stdlib.h>

#include "../sim/sim_harness.h"
#include "../../lang/lang.h"

static inline IsaProgram *ch_compile(const char *src, const LangOptions *opts)
{
    UtilError err = {{0}};
    IsaProgram *p = lang_compile_source(src, "k.metal", opts, NULL, &err);
    if (!p) {
        print_error("source:\n%s\ncompiler: %s\n", src, err.message);
        fail_msg("compilation failed");
    }
    return p;
}

/* Compiles a kernel that must be refused; the message must contain `want`. */
static inline void ch_expect_error(const char *src, const LangOptions *opts, const char *want)
{
    UtilError err = {{0}};
    IsaProgram *p = lang_compile_source(src, "k.metal", opts, NULL, &err);
    if (p) {
        isa_program_free(p);
        print_error("source:\n%s\n", src);
        fail_msg("compiled, expected an error containing \"%s\"", want);
    }
    if (!strstr(err.message, want)) {
        print_error("source:\n%s\ncompiler: %s\n", src, err.message);
        fail_msg("the message lacks \"%s\"", want);
    }
}

static inline void ch_dump(const IsaProgram *p)
{
    char *text = isa_disassemble(p, true);
    print_error("%s\n", text ? text : "(no disassembly)");
    free(text);
}

/* A shape assertion: on failure the program's disassembly goes with the message. */
#define CH_EXPECT(p, cond)                                                 \
    do {                                                                   \
        if (!(cond)) {                                                     \
            ch_dump(p);                                                    \
            fail_msg("%s:%d: shape check failed: %s", __FILE__, __LINE__, #cond); \
        }                                                                  \
    } while (0)

static inline int ch_count(const IsaProgram *p, IsaOpcode op)
{
    int n = 0;
    for (uint32_t i = 0; i < p->count; i++)
        n += p->code[i].op == op;
    return n;
}

/* Index of the first `op` at or after `from`, or -1. */
static inline int ch_find(const IsaProgram *p, IsaOpcode op, int from)
{
    for (uint32_t i = from < 0 ? 0 : (uint32_t)from; i < p->count; i++)
        if (p->code[i].op == op)
            return (int)i;
    return -1;
}

/* Index of the first `op` with modifier field cond == c and type == t (-1: any). */
static inline int ch_find_mod(const IsaProgram *p, IsaOpcode op, int c, int t, int from)
{
    for (int i = ch_find(p, op, from); i >= 0; i = ch_find(p, op, i + 1))
        if ((c < 0 || p->code[i].cond == c) && (t < 0 || p->code[i].type == t))
            return i;
    return -1;
}

static inline bool ch_has(const IsaProgram *p, IsaOpcode op) { return ch_find(p, op, 0) >= 0; }

/* Count of memory ops `op` with format fmt and element count n. */
static inline int ch_count_mem(const IsaProgram *p, IsaOpcode op, IsaMemFormat fmt, int n)
{
    int k = 0;
    for (uint32_t i = 0; i < p->count; i++)
        k += p->code[i].op == op && p->code[i].type == fmt && p->code[i].count == n;
    return k;
}

/* ---- running -------------------------------------------------------------------------------- */

static inline void ch_init(Harness *h, const char *src, const LangOptions *opts)
{
    memset(h, 0, sizeof *h);
    h->dev = mem_device_new();
    h->prog = ch_compile(src, opts);
}

/* A zero-filled buffer for argument `arg` (constant arguments get constant memory). */
static inline void *ch_buf(Harness *h, uint32_t arg, uint64_t bytes)
{
    char name[16];
    snprintf(name, sizeof name, "b%u", arg);
    assert_true(arg < h->prog->num_args);
    MemSpace sp = h->prog->args[arg].kind == ISA_ARG_CONSTANT ? MEM_SPACE_CONSTANT : MEM_SPACE_DEVICE;
    return h_buffer(h, arg, name, bytes, sp);
}

/* Runs n threads in threadgroups of tg and expects no faults. */
static inline void ch_run(Harness *h, uint32_t n, uint32_t tg)
{
    h_run1(h, n, tg);
    h_expect_no_faults(h);
}

static inline uint32_t ch_fbits(float f) { return util_f32_bits(f); }

/* Float results compared bit for bit, with the element named on failure. */
#define CH_FEQ(got, want, i)                                                          \
    do {                                                                              \
        float g_ = (got), w_ = (want);                                                \
        if (util_f32_bits(g_) != util_f32_bits(w_))                                   \
            fail_msg("element %d: got %.9g (0x%08x), want %.9g (0x%08x)", (int)(i),   \
                     (double)g_, util_f32_bits(g_), (double)w_, util_f32_bits(w_));   \
    } while (0)

#define CH_IEQ(got, want, i)                                                          \
    do {                                                                              \
        long long g_ = (long long)(got), w_ = (long long)(want);                      \
        if (g_ != w_)                                                                 \
            fail_msg("element %d: got %lld, want %lld", (int)(i), g_, w_);            \
    } while (0)

#endif
