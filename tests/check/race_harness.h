/*
 * race_harness.h — running a kernel under the race checker alone, for test_race.c and
 * test_race_atomics.c: compile, bind zero-filled buffers, dispatch with the checker
 * watching, and look findings up by message, with their lines (from markers in the kernel
 * text), counts and fixes.
 */
#ifndef LOCKSTEP_TESTS_CHECK_RACE_HARNESS_H
#define LOCKSTEP_TESTS_CHECK_RACE_HARNESS_H

#include "test_util.h"

#include "../lang/construct_harness.h"
#include "../../check/check.h"

/* ---- running a kernel under the race checker ---------------------------------------------- */

typedef struct Checked {
    Harness h;
    CheckSession *s;
    const CheckFinding *f;
    uint32_t n;
} Checked;

/* Until the compiler names threadgroup arrays itself, the test names the kernel's one array. */
static inline void name_threadgroup_array(IsaProgram *p, const char *name, uint32_t elem)
{
    if (p->num_symbols || !p->tg_mem_bytes)
        return;
    p->symbols = calloc(1, sizeof *p->symbols);
    p->symbols[0] = (IsaSymbol){.name = strdup(name), .space = ISA_SYM_THREADGROUP,
                                .offset = 0, .size = p->tg_mem_bytes, .elem_size = elem,
                                .array = true};
    p->num_symbols = 1;
}

/* Compiles src and binds a zero-filled buffer named after each device argument. */
static inline void setup(Checked *c, const char *src, uint64_t bytes)
{
    memset(c, 0, sizeof *c);
    ch_init(&c->h, src, NULL);
    name_threadgroup_array(c->h.prog, "shared", 4);
    for (uint32_t i = 0; i < c->h.prog->num_args; i++)
        if (c->h.prog->args[i].kind == ISA_ARG_DEVICE)
            h_buffer(&c->h, i, c->h.prog->args[i].name, bytes, MEM_SPACE_DEVICE);
}

static inline void run_opts(Checked *c, uint32_t threads, uint32_t tg, const CheckOptions *o)
{
    CheckBufferInfo info[H_MAX_ARGS];
    for (uint32_t i = 0; i < H_MAX_ARGS; i++)
        info[i] = (CheckBufferInfo){.elem_size = 1};
    for (uint32_t i = 0; i < c->h.prog->num_args && i < H_MAX_ARGS; i++)
        if (c->h.prog->args[i].kind == ISA_ARG_DEVICE && c->h.prog->args[i].elem_size)
            info[c->h.bind[i].buffer].elem_size = c->h.prog->args[i].elem_size;
    c->s = check_session_new(c->h.prog, c->h.dev, info, c->h.bind, o);
    uint32_t nobs;
    SimObserver *const *obs = check_session_observers(c->s, &nobs);
    h_grid(&c->h, false, threads, 1, 1, tg, 1, 1);
    c->h.launch.observers = obs;
    c->h.launch.num_observers = nobs;
    h_run(&c->h);
    h_expect_no_faults(&c->h);
    c->f = check_session_finish(c->s, &c->h.res, &c->n);
}

static inline CheckOptions races_only(void)
{
    return (CheckOptions){.races = true};
}

static inline void run(Checked *c, uint32_t threads, uint32_t tg)
{
    CheckOptions o = races_only();
    run_opts(c, threads, tg, &o);
}

static inline void done(Checked *c)
{
    check_session_free(c->s);
    h_free(&c->h);
}

/* The source line of the instruction at pc, from the program's debug info. */
static inline uint32_t line_at(const IsaProgram *p, uint32_t pc)
{
    int64_t i = isa_program_index_of_pc(p, pc);
    return i >= 0 && p->locs ? p->locs[i].line : 0;
}

static inline void dump(const Checked *c)
{
    for (uint32_t i = 0; i < c->n; i++)
        print_error("finding %u: [%s] %s | lines %u -> %u | fix: %s (count %llu)\n", i,
                    check_kind_names[c->f[i].kind], c->f[i].message,
                    line_at(c->h.prog, c->f[i].first.pc), line_at(c->h.prog, c->f[i].second.pc),
                    c->f[i].fix, (unsigned long long)c->f[i].count);
}

static inline const CheckFinding *find(const Checked *c, const char *message)
{
    for (uint32_t i = 0; i < c->n; i++)
        if (c->f[i].kind == CHECK_RACE && strcmp(c->f[i].message, message) == 0)
            return &c->f[i];
    dump(c);
    fail_msg("no race finding \"%s\"", message);
    return NULL;
}

static inline void expect_silent(const Checked *c)
{
    if (c->n) {
        dump(c);
        fail_msg("expected no findings, got %u", c->n);
    }
}

static inline void expect_count(const Checked *c, uint32_t n)
{
    if (c->n != n) {
        dump(c);
        fail_msg("expected %u findings, got %u", n, c->n);
    }
}

/* The 1-based line of the first line of src containing marker. */
static inline uint32_t line_of(const char *src, const char *marker)
{
    const char *m = strstr(src, marker);
    assert_non_null(m);
    uint32_t line = 1;
    for (const char *p = src; p < m; p++)
        line += *p == '\n';
    return line;
}

static inline void expect_lines(const Checked *c, const CheckFinding *f, uint32_t first, uint32_t second)
{
    uint32_t a = line_at(c->h.prog, f->first.pc), b = line_at(c->h.prog, f->second.pc);
    if (a != first || b != second) {
        dump(c);
        fail_msg("%s: lines %u -> %u, want %u -> %u", f->message, a, b, first, second);
    }
}

static inline void expect_fix(const Checked *c, const CheckFinding *f, const char *want)
{
    if (strcmp(f->fix, want) != 0) {
        dump(c);
        fail_msg("fix \"%s\", want \"%s\"", f->fix, want);
    }
}

static char fmt_buf[4][256] __attribute__((unused));
static int fmt_k __attribute__((unused));
#define fmt(...) (fmt_k = (fmt_k + 1) % 4, snprintf(fmt_buf[fmt_k], sizeof fmt_buf[0], __VA_ARGS__), \
                  fmt_buf[fmt_k])

#endif
