/*
 * check_harness.h — running a kernel (Metal or assembly) under the checkers for the check
 * suites: compile, bind zero-filled buffers, dispatch with the session's observers, collect
 * the findings, and look findings up by kind and message.
 */
#ifndef LOCKSTEP_TESTS_CHECK_HARNESS_H
#define LOCKSTEP_TESTS_CHECK_HARNESS_H

#include "../lang/construct_harness.h"
#include "../../check/check.h"

/* ---- running a kernel under the checks ---------------------------------------------------- */

typedef struct Checked {
    Harness h;
    CheckSession *s;
    const CheckFinding *f;
    uint32_t n;
    const CheckBufferInfo *info; /* per device buffer, or NULL */
} Checked;

/* Buffers named after their arguments, `bytes` each. */
static inline void bind_all(Checked *c, uint64_t bytes)
{
    for (uint32_t i = 0; i < c->h.prog->num_args; i++) {
        const IsaArg *a = &c->h.prog->args[i];
        if (a->kind == ISA_ARG_THREADGROUP)
            continue;
        h_buffer(&c->h, i, a->name, bytes,
                 a->kind == ISA_ARG_CONSTANT ? MEM_SPACE_CONSTANT : MEM_SPACE_DEVICE);
        if (a->tensor_rank) { /* 32 columns, as many rows as the buffer holds */
            uint32_t elems = (uint32_t)(bytes / (a->elem_size ? a->elem_size : 4));
            c->h.bind[i].tensor[0] = 32;
            c->h.bind[i].tensor[1] = elems / 32;
            c->h.bind[i].tensor[2] = 32;
        }
    }
}

static inline void run_checked_opts(Checked *c, uint32_t threads, uint32_t tg, const CheckOptions *o)
{
    c->s = check_session_new(c->h.prog, c->h.dev, c->info, c->h.bind, o);
    uint32_t nobs;
    SimObserver *const *obs = check_session_observers(c->s, &nobs);
    h_grid(&c->h, false, threads, 1, 1, tg, 1, 1);
    c->h.launch.observers = obs;
    c->h.launch.num_observers = nobs;
    h_run(&c->h);
    c->f = check_session_finish(c->s, &c->h.res, &c->n);
}

static inline void run_checked(Checked *c, uint32_t threads, uint32_t tg)
{
    CheckOptions o = check_options_all();
    run_checked_opts(c, threads, tg, &o);
}

static inline void metal_info(Checked *c, const char *src, uint32_t threads, uint32_t tg,
                       const CheckBufferInfo *info)
{
    ch_init(&c->h, src, NULL);
    c->info = info;
    bind_all(c, 4096);
    run_checked(c, threads, tg);
}

static inline void metal(Checked *c, const char *src, uint32_t threads, uint32_t tg)
{
    ch_init(&c->h, src, NULL);
    c->info = NULL;
    bind_all(c, 4096);
    run_checked(c, threads, tg);
}

static inline void assembly(Checked *c, const char *src, uint32_t threads, uint32_t tg)
{
    h_init(&c->h, src);
    c->info = NULL;
    bind_all(c, 4096);
    run_checked(c, threads, tg);
}

/* The same for a kernel that runs off its end (h_assemble_open_ended). */
static inline void assembly_open_ended(Checked *c, const char *src, uint32_t threads, uint32_t tg)
{
    h_init_open_ended(&c->h, src);
    c->info = NULL;
    bind_all(c, 4096);
    run_checked(c, threads, tg);
}

static inline void done(Checked *c)
{
    check_session_free(c->s);
    h_free(&c->h);
}

static inline void dump(const Checked *c)
{
    for (uint32_t i = 0; i < c->n; i++)
        print_error("finding %u: [%s] %s | fix: %s (count %llu)\n", i,
                    check_kind_names[c->f[i].kind], c->f[i].message, c->f[i].fix,
                    (unsigned long long)c->f[i].count);
}

static inline const CheckFinding *find(const Checked *c, CheckKind kind, const char *text)
{
    for (uint32_t i = 0; i < c->n; i++)
        if (c->f[i].kind == kind && strstr(c->f[i].message, text))
            return &c->f[i];
    dump(c);
    fail_msg("no %s finding containing \"%s\"", check_kind_names[kind], text);
    abort(); /* fail_msg does not return; this tells the compiler so */
}

static inline void expect_silent(const Checked *c)
{
    if (c->n) {
        dump(c);
        fail_msg("expected no findings, got %u", c->n);
    }
}

static inline uint32_t line_of(const Checked *c, const CheckSite *site)
{
    int64_t i = isa_program_index_of_pc(c->h.prog, site->pc);
    return i >= 0 && c->h.prog->locs ? c->h.prog->locs[i].line : 0;
}

#endif
