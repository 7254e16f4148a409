/*
 * test_run_fuzz_smoke.c — "the simulator never crashes, whatever a kernel does", tested on
 * kernels nobody wrote: every example and seed kernel, compiled to assembly, then mutated a
 * few dozen ways each by a seeded generator (registers, immediates, uniforms, labels and
 * opcodes swapped; lines deleted, duplicated, reordered, and taken from other kernels); and
 * Metal kernels mutated line by line that still compile. Each mutant that assembles runs on
 * a small grid with a small instruction budget in every way a user can run it: functional,
 * functional under every checker, timed (twice, over every shipped GPU config and two odd
 * ones), and timed under every checker.
 * Whatever it does (faults, races, endless loops, barriers in divergent code), each run must
 * end, at its budget exactly when the budget stops it, and:
 *  - the checkers change nothing: the buffers and the instruction count of the checked
 *    functional run are those of the plain one; and they are deterministic: a second
 *    checked run finds the same things (messages, counts, instructions);
 *  - timed runs are deterministic: two give the same buffers, cycles and instructions, also
 *    when one runs far from its budget (cores running ahead of the cycle loop) and the other
 *    with a budget just above what it uses (nothing running ahead);
 *  - where the checkers find no race and no divergent barrier, and the kernel has no atomic,
 *    the timed run's buffers are the functional run's.
 * Under `make asan` this also catches memory errors on paths no example reaches. The seeds
 * are read from kernels/, fuzz/seeds/ and ../shared/kernels/seed/ (the tests run from the
 * repository root). A longer hunt: RUN_FUZZ_SEED=N RUN_FUZZ_MUTANTS=M
 * build/tests/e2e/test_run_fuzz_smoke (M mutants per seed kernel; the suite runs seed 2026
 * with 24).
 */
#include "test_util.h"

#include <stdlib.h>

#include "../../check/check.h"
#include "../../isa/isa.h"
#include "../../lang/lang.h"
#include "../../mem/mem.h"
#include "../../sim/sim.h"
#include "../../ui/ui.h"

enum {
    MAX_SEEDS = 96,
    MUTANTS_PER_SEED = 24,
    BUDGET = 3000,      /* SIMD-group instructions per run */
    DEVICE_BYTES = 1024,
    CONSTANT_BYTES = 64,
    TG_ARG_BYTES = 256,
    MAX_LINES = 4096,
};

static char *seeds[MAX_SEEDS];       /* assembly */
static char *metal_seeds[MAX_SEEDS]; /* the Metal sources among them */
static int num_metal_seeds;
static int compared_modes; /* mutants whose functional and timed buffers were compared */
static SimGpuConfig gpus[16]; /* the timed runs take turns: every shipped config, two odd */
static int num_gpus;
static int num_seeds;

static uint32_t below(uint64_t *rng, uint32_t n)
{
    return n ? (uint32_t)(test_rng_next(rng) % n) : 0;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A seed kernel as assembly text: a .s file as it is, a .metal file compiled (one that needs
 * function constants, or fails, is skipped) and kept as Metal too. */
static bool add_seed(const char *path, const char *name)
{
    UtilError err = {{0}};
    size_t size;
    if (ends_with(name, ".metal")) {
        IsaProgram *p = lang_compile_file(path, NULL, NULL, &err);
        if (p) {
            seeds[num_seeds++] = isa_disassemble(p, false);
            isa_program_free(p);
            metal_seeds[num_metal_seeds] = util_read_file(path, &size, &err);
            num_metal_seeds += metal_seeds[num_metal_seeds] != NULL;
        }
    } else if (ends_with(name, ".s")) {
        char *text = util_read_file(path, &size, &err);
        if (text)
            seeds[num_seeds++] = text;
    }
    return num_seeds < MAX_SEEDS;
}

/* Every shipped GPU config */
static bool add_gpu(const char *path, const char *name)
{
    UiGpu g;
    UtilError err = {{0}};
    if (ends_with(name, ".yaml") && ui_gpu_load(path, &g, &err))
        gpus[num_gpus++] = g.config;
    return num_gpus < 14;
}

/* ---- mutating assembly -------------------------------------------------------------------- */

typedef struct Lines {
    char *line[MAX_LINES];
    int n;
} Lines;

static void split_lines(const char *text, Lines *L)
{
    L->n = 0;
    const char *p = text;
    while (*p && L->n < MAX_LINES) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char *s = malloc(len + 1);
        memcpy(s, p, len);
        s[len] = '\0';
        L->line[L->n++] = s;
        p += len + (end ? 1 : 0);
    }
}

static void free_lines(Lines *L)
{
    for (int i = 0; i < L->n; i++)
        free(L->line[i]);
    L->n = 0;
}

/* An instruction line: indented, and neither a comment nor empty. */
static bool is_inst(const char *s)
{
    if (*s != ' ' && *s != '\t')
        return false;
    while (*s == ' ' || *s == '\t')
        s++;
    return *s && *s != ';';
}

static int pick_inst(uint64_t *rng, const Lines *L)
{
    int count = 0;
    for (int i = 0; i < L->n; i++)
        count += is_inst(L->line[i]);
    if (!count)
        return -1;
    int k = (int)below(rng, (uint32_t)count);
    for (int i = 0; i < L->n; i++)
        if (is_inst(L->line[i]) && k-- == 0)
            return i;
    return -1;
}

/* Replaces bytes [at, at + len) of *s with repl. */
static void splice(char **s, size_t at, size_t len, const char *repl)
{
    size_t old = strlen(*s), n = strlen(repl);
    char *t = malloc(old - len + n + 1);
    memcpy(t, *s, at);
    memcpy(t + at, repl, n);
    memcpy(t + at + n, *s + at + len, old - at - len + 1);
    free(*s);
    *s = t;
}

/* The k-th token (after the mnemonic) of line s that starts with one of `starts` followed by
 * a digit, or any number when starts is "#": its place and length. */
static bool find_token(const char *s, const char *starts, uint64_t *rng, size_t *at, size_t *len)
{
    size_t pos[64], lens[64];
    int n = 0;
    const char *p = s;
    while (*p == ' ' || *p == '\t')
        p++;
    while (*p && *p != ' ')
        p++; /* the mnemonic */
    while (*p && *p != ';' && n < 64) {
        if (*p == ' ' || *p == ',') {
            p++;
            continue;
        }
        const char *q = p;
        while (*q && *q != ' ' && *q != ',' && *q != ';')
            q++;
        bool want;
        if (starts[0] == '#')
            want = (*p >= '0' && *p <= '9') || (*p == '-' && p[1] >= '0' && p[1] <= '9');
        else
            want = strchr(starts, *p) && p[1] >= '0' && p[1] <= '9';
        if (want) {
            pos[n] = (size_t)(p - s);
            lens[n++] = (size_t)(q - p);
        }
        p = q;
    }
    if (!n)
        return false;
    int k = (int)below(rng, (uint32_t)n);
    *at = pos[k];
    *len = lens[k];
    return true;
}

/* Another mnemonic with the same operands and modifiers as the one line s starts with. */
static bool swap_opcode(char **s, uint64_t *rng)
{
    const char *p = *s;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t at = (size_t)(p - *s), len = 0;
    while (p[len] && p[len] != '.' && p[len] != ' ')
        len++;
    IsaOpcode op = isa_lookup_op(p, len);
    if (op >= ISA_OP_COUNT)
        return false;
    int same[ISA_OP_COUNT], n = 0;
    for (int o = 0; o < ISA_OP_COUNT; o++)
        if (o != (int)op && strcmp(isa_ops[o].operands, isa_ops[op].operands) == 0 &&
            isa_ops[o].modifiers == isa_ops[op].modifiers)
            same[n++] = o;
    if (!n)
        return false;
    splice(s, at, len, isa_ops[same[below(rng, (uint32_t)n)]].name);
    return true;
}

static void mutate(uint64_t *rng, const char *seed, Lines *L)
{
    static const char *const numbers[] = {"0", "1", "2", "3", "-1", "31", "32", "33", "255",
                                          "256", "1023", "1024", "4096", "65535", "65536",
                                          "2147483647", "-2147483648", "4294967295", "7"};
    split_lines(seed, L);
    int edits = 1 + (int)below(rng, 3);
    for (int k = 0; k < edits; k++) {
        int i = pick_inst(rng, L);
        if (i < 0)
            return;
        char buf[32];
        size_t at, len;
        switch (below(rng, 9)) {
        case 0: /* another register */
            if (find_token(L->line[i], "r", rng, &at, &len)) {
                size_t digits = 1;
                while (L->line[i][at + digits] >= '0' && L->line[i][at + digits] <= '9')
                    digits++;
                snprintf(buf, sizeof buf, "r%u", below(rng, 12));
                splice(&L->line[i], at, digits, buf);
            }
            break;
        case 1: /* another number */
            if (find_token(L->line[i], "#", rng, &at, &len))
                splice(&L->line[i], at, len, numbers[below(rng, sizeof numbers / sizeof *numbers)]);
            break;
        case 2: /* another uniform */
            if (find_token(L->line[i], "u", rng, &at, &len)) {
                snprintf(buf, sizeof buf, "u%u", below(rng, 10));
                splice(&L->line[i], at, len, buf);
            }
            break;
        case 3: /* another label */
            if (find_token(L->line[i], "L", rng, &at, &len)) {
                int j = (int)below(rng, (uint32_t)L->n);
                for (int t = 0; t < L->n; t++, j = (j + 1) % L->n) {
                    const char *c = strchr(L->line[j], ':');
                    if (L->line[j][0] == 'L' && c && c[1] == '\0') {
                        snprintf(buf, sizeof buf, "%.*s", (int)(c - L->line[j]), L->line[j]);
                        splice(&L->line[i], at, len, buf);
                        break;
                    }
                }
            }
            break;
        case 4: /* another opcode of the same shape */
            swap_opcode(&L->line[i], rng);
            break;
        case 5: /* delete */
            free(L->line[i]);
            memmove(&L->line[i], &L->line[i + 1], (size_t)(L->n - i - 1) * sizeof *L->line);
            L->n--;
            break;
        case 6: /* duplicate */
            if (L->n < MAX_LINES) {
                memmove(&L->line[i + 1], &L->line[i], (size_t)(L->n - i) * sizeof *L->line);
                L->line[i + 1] = strdup(L->line[i]);
                L->n++;
            }
            break;
        case 8: { /* an instruction of another kernel (a barrier, an atomic, a shuffle...) */
            Lines other;
            split_lines(seeds[below(rng, (uint32_t)num_seeds)], &other);
            int j = pick_inst(rng, &other);
            if (j >= 0 && L->n < MAX_LINES) {
                memmove(&L->line[i + 1], &L->line[i], (size_t)(L->n - i) * sizeof *L->line);
                L->line[i + 1] = strdup(other.line[j]);
                L->n++;
            }
            free_lines(&other);
            break;
        }
        default: /* swap with the next line */
            if (i + 1 < L->n) {
                char *t = L->line[i];
                L->line[i] = L->line[i + 1];
                L->line[i + 1] = t;
            }
            break;
        }
    }
}

static char *join_lines(const Lines *L)
{
    size_t size = 1;
    for (int i = 0; i < L->n; i++)
        size += strlen(L->line[i]) + 1;
    char *text = malloc(size), *p = text;
    for (int i = 0; i < L->n; i++)
        p += sprintf(p, "%s\n", L->line[i]);
    *p = '\0';
    return text;
}

/* ---- mutating Metal ------------------------------------------------------------------------- */

static bool is_ident(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* A random number (digits standing alone) or identifier of line s: its place and length. */
static bool find_c_token(const char *s, bool number, uint64_t *rng, size_t *at, size_t *len)
{
    size_t pos[128], lens[128];
    int n = 0;
    for (size_t i = 0; s[i] && n < 128;) {
        if (!is_ident(s[i])) {
            i++;
            continue;
        }
        size_t j = i;
        while (is_ident(s[j]))
            j++;
        const bool digits = s[i] >= '0' && s[i] <= '9';
        if (digits == number) {
            pos[n] = i;
            lens[n++] = j - i;
        }
        i = j;
    }
    if (!n)
        return false;
    int k = (int)below(rng, (uint32_t)n);
    *at = pos[k];
    *len = lens[k];
    return true;
}

/* Line-level edits of Metal source that keep it mostly compilable: numbers and names swapped
 * (loop bounds, indices, which variable), comparisons and arithmetic flipped, lines
 * deleted, duplicated and swapped. */
static void mutate_metal(uint64_t *rng, const char *seed, Lines *L)
{
    static const char *const numbers[] = {"0", "1", "2", "3", "7", "16", "31", "32", "33", "64",
                                          "255", "256", "1024", "65536"};
    static const char ops[] = "<>+-*&|^";
    split_lines(seed, L);
    if (!L->n)
        return;
    int edits = 1 + (int)below(rng, 2);
    for (int k = 0; k < edits; k++) {
        int i = (int)below(rng, (uint32_t)L->n);
        size_t at, len;
        switch (below(rng, 6)) {
        case 0:
            if (find_c_token(L->line[i], true, rng, &at, &len))
                splice(&L->line[i], at, len, numbers[below(rng, sizeof numbers / sizeof *numbers)]);
            break;
        case 1: { /* a name another line uses */
            size_t at2, len2;
            int j = (int)below(rng, (uint32_t)L->n);
            if (find_c_token(L->line[i], false, rng, &at, &len) &&
                find_c_token(L->line[j], false, rng, &at2, &len2)) {
                char name[64];
                snprintf(name, sizeof name, "%.*s", (int)(len2 < 63 ? len2 : 63), L->line[j] + at2);
                splice(&L->line[i], at, len, name);
            }
            break;
        }
        case 2: { /* an operator */
            char *c = strpbrk(L->line[i], ops);
            if (c)
                *c = ops[below(rng, sizeof ops - 1)];
            break;
        }
        case 3:
            free(L->line[i]);
            memmove(&L->line[i], &L->line[i + 1], (size_t)(L->n - i - 1) * sizeof *L->line);
            L->n--;
            break;
        case 4:
            if (L->n < MAX_LINES) {
                memmove(&L->line[i + 1], &L->line[i], (size_t)(L->n - i) * sizeof *L->line);
                L->line[i + 1] = strdup(L->line[i]);
                L->n++;
            }
            break;
        default:
            if (i + 1 < L->n) {
                char *t = L->line[i];
                L->line[i] = L->line[i + 1];
                L->line[i + 1] = t;
            }
            break;
        }
        if (!L->n)
            return;
    }
}

/* ---- running a mutant ---------------------------------------------------------------------- */

typedef struct Run {
    MemDevice *dev;
    SimArgBinding bind[64];
    SimResult res;
    bool ok;
    CheckSession *checks;
    bool order_free; /* checked: no finding says the result may depend on the order of work */
    uint64_t findings; /* checked: a hash of every finding's kind, message, sites and count */
} Run;

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* Fresh buffers for every argument, filled from `fill` (the same for every run of a
 * mutant): device buffers with any bits, constant buffers with small numbers (sizes and
 * counts a loop may run to). */
static void bind_buffers(Run *r, const IsaProgram *p, uint64_t fill)
{
    r->dev = mem_device_new();
    for (uint32_t i = 0; i < p->num_args && i < 64; i++) {
        const IsaArg *a = &p->args[i];
        if (a->kind == ISA_ARG_THREADGROUP) {
            r->bind[i].tg_bytes = TG_ARG_BYTES;
            continue;
        }
        const bool constant = a->kind == ISA_ARG_CONSTANT;
        const uint64_t bytes = constant ? CONSTANT_BYTES : DEVICE_BYTES;
        UtilError err = {{0}};
        const MemSpace space = constant ? MEM_SPACE_CONSTANT : MEM_SPACE_DEVICE;
        int32_t idx = mem_device_add(r->dev, a->name, bytes, space, &err);
        if (idx < 0)
            fail_msg("mem_device_add: %s", err.message);
        r->bind[i].buffer = (uint32_t)idx;
        if (a->tensor_rank) { /* 16 columns, as many rows as the buffer holds */
            r->bind[i].tensor[0] = r->bind[i].tensor[2] = 16;
            r->bind[i].tensor[1] = (uint32_t)(bytes / (a->elem_size ? a->elem_size : 4) / 16);
        }
        uint32_t *w = (uint32_t *)r->dev->buffers[idx].data;
        uint64_t s = fill + i;
        for (uint64_t k = 0; k < bytes / 4; k++)
            w[k] = constant ? (uint32_t)(test_rng_next(&s) % 200) : (uint32_t)test_rng_next(&s);
    }
}

/* The grids the mutants run on: partial threadgroups and partial SIMD-groups in each. */
static const struct {
    const char *name;
    uint32_t grid[3], tg[3];
} shapes[] = {
    {"1D", {100, 1, 1}, {64, 1, 1}},  /* 2 threadgroups, the second of 36 threads */
    {"2D", {24, 6, 1}, {8, 4, 1}},    /* 3 x 2 threadgroups, the last row of 8 x 2 */
    {"3D", {10, 3, 7}, {5, 3, 5}},    /* 2 x 1 x 2, 75 threads each (3 SIMD-groups), then 30 */
};
enum { NUM_SHAPES = sizeof shapes / sizeof *shapes };

static void run_budget(Run *r, const IsaProgram *p, uint64_t fill, uint32_t shape, SimMode mode,
                       bool checked, const SimGpuConfig *gpu, uint64_t budget)
{
    memset(r, 0, sizeof *r);
    bind_buffers(r, p, fill);
    SimLaunch L = {
        .program = p, .device = r->dev, .bindings = r->bind, .mode = mode,
        .instruction_budget = budget, .gpu = gpu,
    };
    memcpy(L.grid, shapes[shape].grid, sizeof L.grid);
    memcpy(L.threadgroup, shapes[shape].tg, sizeof L.threadgroup);
    if (checked) {
        CheckOptions o = check_options_all();
        o.strict_simd = fill >> 8 & 1; /* the policies take turns too */
        o.same_value_races = fill >> 9 & 1;
        r->checks = check_session_new(p, r->dev, NULL, r->bind, &o);
        L.observers = check_session_observers(r->checks, &L.num_observers);
    }
    UtilError err = {{0}};
    r->ok = sim_dispatch(&L, &r->res, &err);
    if (!r->ok && !err.message[0])
        fail_msg("sim_dispatch refused a launch without saying why");
    if (r->ok && (r->res.instructions > budget ||
                  (r->res.budget_exceeded && r->res.instructions != budget)))
        fail_msg("a run stopped at %llu instructions by a budget of %llu",
                 (unsigned long long)r->res.instructions, (unsigned long long)budget);
    if (r->checks && r->ok) {
        uint32_t n;
        const CheckFinding *f = check_session_finish(r->checks, &r->res, &n);
        r->order_free = !r->res.budget_exceeded;
        r->findings = hash_bytes(0xcbf29ce484222325ull, &n, sizeof n);
        for (uint32_t i = 0; i < n; i++) {
            r->findings = hash_bytes(r->findings, f[i].message, strlen(f[i].message));
            r->findings = hash_bytes(r->findings, &f[i].count, sizeof f[i].count);
            r->findings = hash_bytes(r->findings, &f[i].first.pc, sizeof f[i].first.pc);
            r->findings = hash_bytes(r->findings, &f[i].second.pc, sizeof f[i].second.pc);
        }
        for (uint32_t i = 0; i < n; i++)
            if (f[i].kind == CHECK_RACE || f[i].kind == CHECK_BARRIER_DIVERGENCE ||
                f[i].kind == CHECK_BUDGET)
                r->order_free = false;
    }
}

static void run_one(Run *r, const IsaProgram *p, uint64_t fill, uint32_t shape, SimMode mode,
                    bool checked, const SimGpuConfig *gpu)
{
    run_budget(r, p, fill, shape, mode, checked, gpu, BUDGET);
}

static void run_free(Run *r)
{
    if (r->checks)
        check_session_free(r->checks);
    if (r->ok)
        sim_result_free(&r->res);
    mem_device_free(r->dev);
}

/* Whether a and b hold the same buffers; when not, the first word that differs is printed. */
static bool same_buffers(const Run *a, const Run *b)
{
    if (a->dev->count != b->dev->count)
        return false;
    for (uint32_t i = 0; i < a->dev->count; i++) {
        const MemBuffer *x = &a->dev->buffers[i], *y = &b->dev->buffers[i];
        for (uint64_t k = 0; k + 4 <= x->size; k += 4) {
            uint32_t u, v;
            memcpy(&u, x->data + k, 4);
            memcpy(&v, y->data + k, 4);
            if (u != v) {
                print_error("buffer %s, byte %llu: 0x%08x, then 0x%08x\n", x->name,
                            (unsigned long long)k, u, v);
                return false;
            }
        }
    }
    return true;
}

/* Fails with the mutant's instructions, a line at a time (comments left out). */
static void report(const char *what, const char *text)
{
    print_error("mutant:\n");
    for (const char *p = text; *p;) {
        const char *end = strchr(p, '\n');
        int len = end ? (int)(end - p) : (int)strlen(p);
        if (len && *p != ';')
            print_error("%.*s\n", len, p);
        p += len + (end ? 1 : 0);
    }
    fail_msg("%s", what);
}

/* Whether any instruction of p is an atomic (its old values depend on the order of work). */
static bool has_atomics(const IsaProgram *p)
{
    for (uint32_t i = 0; i < p->count; i++)
        if (isa_ops[p->code[i].op].op_class == ISA_CLASS_ATOMIC)
            return true;
    return false;
}

/* Every way of running one mutant; returns whether the launch was accepted. */
static bool run_mutant(const IsaProgram *p, const char *text, uint64_t fill, uint32_t shape)
{
    const SimGpuConfig *gpu = &gpus[fill % (uint64_t)num_gpus];
    Run plain, checked, t1, t2, tc;
    run_one(&plain, p, fill, shape, SIM_MODE_FUNCTIONAL, false, NULL);
    if (!plain.ok) {
        run_free(&plain);
        return false;
    }
    run_one(&checked, p, fill, shape, SIM_MODE_FUNCTIONAL, true, NULL);
    if (!checked.ok || !same_buffers(&plain, &checked) ||
        checked.res.instructions != plain.res.instructions) {
        print_error("fill %llu, %s grid: %llu instructions plain, %llu checked\n",
                    (unsigned long long)fill, shapes[shape].name,
                    (unsigned long long)plain.res.instructions,
                    (unsigned long long)checked.res.instructions);
        report("the checkers changed a functional run", text);
    }
    Run again;
    run_one(&again, p, fill, shape, SIM_MODE_FUNCTIONAL, true, NULL);
    if (!again.ok || again.findings != checked.findings)
        report("two checked runs found different things", text);
    run_free(&again);
    /* A kernel that ends within the budget runs timed with a budget far above it, so that
     * cores and schedulers run ahead of the cycle loop (only done far from a budget), and
     * again with a budget just above what it used, so that nothing runs ahead: the cycles
     * and results must be the same. Others run twice with the budget. */
    const bool ends = !plain.res.budget_exceeded;
    const uint64_t budget1 = ends ? 1u << 20 : BUDGET;
    run_budget(&t1, p, fill, shape, SIM_MODE_TIMED, false, gpu, budget1);
    /* (a race can make the timed run loop where the functional one ended: same budget) */
    const uint64_t budget2 = t1.ok && !t1.res.budget_exceeded
                                 ? t1.res.instructions + 1 + fill % 64 : budget1;
    run_budget(&t2, p, fill, shape, SIM_MODE_TIMED, false, gpu, budget2);
    if (!t1.ok || !t2.ok || !same_buffers(&t1, &t2) ||
        t1.res.stats.cycles != t2.res.stats.cycles ||
        t1.res.instructions != t2.res.instructions) {
        print_error("fill %llu, %s grid, gpu %s; cycles %llu and %llu, instructions %llu and "
                    "%llu (budgets %llu and %llu)\n",
                    (unsigned long long)fill, shapes[shape].name, gpu->name,
                    (unsigned long long)t1.res.stats.cycles,
                    (unsigned long long)t2.res.stats.cycles,
                    (unsigned long long)t1.res.instructions,
                    (unsigned long long)t2.res.instructions,
                    (unsigned long long)budget1, (unsigned long long)budget2);
        report("two timed runs differ", text);
    }
    /* With no race, divergent barrier or atomic, the order in which the timed engine issues
     * work cannot show in the buffers: they are the functional run's. */
    if (checked.order_free && !has_atomics(p)) {
        compared_modes++;
        if (!same_buffers(&plain, &t1)) {
            print_error("fill %llu, %s grid, gpu %s (%u cores, %u schedulers)\n",
                        (unsigned long long)fill, shapes[shape].name, gpu->name, gpu->cores,
                        gpu->schedulers_per_core);
            report("a race-free run's buffers differ between functional and timed mode", text);
        }
    }
    run_one(&tc, p, fill, shape, SIM_MODE_TIMED, true, gpu);
    if (!tc.ok)
        report("a timed run with checks was refused", text);
    run_free(&plain);
    run_free(&checked);
    run_free(&t1);
    run_free(&t2);
    run_free(&tc);
    return true;
}

/* RUN_FUZZ_SEED and RUN_FUZZ_MUTANTS: other and more mutants than the suite's (a longer hunt) */
static void hunt_params(uint64_t seed, uint64_t *rng, int *mutants)
{
    const char *env_seed = getenv("RUN_FUZZ_SEED"), *env_count = getenv("RUN_FUZZ_MUTANTS");
    *rng = env_seed ? strtoull(env_seed, NULL, 10) : seed;
    *mutants = env_count ? atoi(env_count) : MUTANTS_PER_SEED;
}

static void test_mutated_programs_run_to_an_end(void **state)
{
    (void)state;
    assert_true(num_seeds >= 10);
    assert_true(num_gpus >= 8);
    uint64_t rng;
    int mutants;
    hunt_params(2026, &rng, &mutants);
    int assembled = 0, refused = 0, launched = 0;
    for (int s = 0; s < num_seeds; s++) {
        for (int m = 0; m < mutants; m++) {
            Lines L;
            mutate(&rng, seeds[s], &L);
            char *text = join_lines(&L);
            free_lines(&L);
            UtilError err = {{0}};
            IsaProgram *p = isa_assemble(text, "mutant.s", &err);
            if (!p) {
                refused++;
                if (strncmp(err.message, "mutant.s", 8) != 0)
                    fail_msg("a refused mutant's message does not name the file: %s", err.message);
            } else {
                assembled++;
                launched += run_mutant(p, text, test_rng_next(&rng), (uint32_t)m % NUM_SHAPES);
                isa_program_free(p);
            }
            free(text);
        }
    }
    print_message("run fuzz smoke: %d seeds, %d mutants assembled (%d launched, %d race-free "
                  "ones compared across modes), %d refused\n",
                  num_seeds, assembled, launched, compared_modes, refused);
    /* a generator that only broke programs would test nothing past the assembler */
    assert_true(launched >= num_seeds * mutants / 4);
}

/* text without its comments (an argument's type is one: assembly has no types) */
static char *strip_comments(const char *text)
{
    char *out = malloc(strlen(text) + 1), *o = out;
    for (const char *p = text; *p;) {
        size_t code = strcspn(p, ";\n"), line = strcspn(p, "\n");
        while (code && p[code - 1] == ' ')
            code--;
        memcpy(o, p, code);
        o += code;
        p += line;
        if (*p == '\n')
            *o++ = *p++;
    }
    *o = '\0';
    return out;
}

/* `lockstep compile`'s listing (with its source comments) assembles back to the program it
 * shows: disassembled again, the same instructions and directives. */
static void round_trip(const IsaProgram *p, const char *listing_with_types)
{
    char *listing = strip_comments(listing_with_types);
    char *annotated = isa_disassemble(p, true);
    UtilError err = {{0}};
    IsaProgram *q = isa_assemble(annotated, "listing.s", &err);
    if (!q) {
        print_error("assembler: %s\n", err.message);
        report("a compiled kernel's listing does not assemble", annotated);
    }
    char *again_with_types = isa_disassemble(q, false), *again = strip_comments(again_with_types);
    free(again_with_types);
    if (strcmp(again, listing) != 0) {
        size_t i = 0, line = 1;
        while (again[i] && again[i] == listing[i])
            line += again[i++] == '\n';
        const char *a = listing + i, *b = again + i;
        while (a > listing && a[-1] != '\n')
            a--, b--;
        print_error("line %zu: compiled \"%.*s\", assembled back \"%.*s\"\n", line,
                    (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
        report("a compiled kernel's listing assembles to another program", annotated);
    }
    free(again);
    free(listing);
    isa_program_free(q);
    free(annotated);
}

/* Mutated Metal kernels that still compile run the same way: what the compiler makes of
 * odd but valid code must not crash the simulator either; and each one's listing must
 * assemble back to it. */
static void test_mutated_metal_runs_to_an_end(void **state)
{
    (void)state;
    assert_true(num_metal_seeds >= 10);
    uint64_t rng;
    int mutants;
    hunt_params(2027, &rng, &mutants);
    int compiled = 0, launched = 0;
    for (int s = 0; s < num_metal_seeds; s++) {
        for (int m = 0; m < mutants; m++) {
            Lines L;
            mutate_metal(&rng, metal_seeds[s], &L);
            char *text = join_lines(&L);
            free_lines(&L);
            UtilError err = {{0}};
            IsaProgram *p = lang_compile_source(text, "mutant.metal", NULL, NULL, &err);
            if (p) {
                compiled++;
                char *listing = isa_disassemble(p, false);
                launched += run_mutant(p, listing, test_rng_next(&rng), (uint32_t)m % NUM_SHAPES);
                round_trip(p, listing);
                free(listing);
                isa_program_free(p);
            } else if (strncmp(err.message, "mutant.metal", 12) != 0) {
                fail_msg("a refused mutant's message does not name the file: %s", err.message);
            }
            free(text);
        }
    }
    print_message("run fuzz smoke (Metal): %d seeds, %d mutants compiled, %d launched\n",
                  num_metal_seeds, compiled, launched);
    assert_true(launched >= num_metal_seeds * mutants / 4);
}

static int load_seeds(void **state)
{
    (void)state;
    test_walk_files("kernels", add_seed);
    test_walk_files("fuzz/seeds", add_seed);
    test_walk_files("../shared/kernels/seed", add_seed);
    test_walk_files("sim/gpus", add_gpu);
    /* odd schedulers and one core: the engine's paths for counts other than 4, and a GPU
     * whose every threadgroup waits for the one core */
    gpus[num_gpus] = *sim_gpu_default();
    gpus[num_gpus].schedulers_per_core = 3;
    gpus[num_gpus].wait_slot_loads = 1;
    gpus[num_gpus++].barrier_latency = 0;
    gpus[num_gpus] = *sim_gpu_default();
    gpus[num_gpus].cores = gpus[num_gpus].memory.cores = 1;
    gpus[num_gpus++].schedulers_per_core = 1;
    return 0;
}

static int free_seeds(void **state)
{
    (void)state;
    for (int s = 0; s < num_seeds; s++)
        free(seeds[s]);
    for (int s = 0; s < num_metal_seeds; s++)
        free(metal_seeds[s]);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mutated_programs_run_to_an_end),
        cmocka_unit_test(test_mutated_metal_runs_to_an_end),
    };
    return cmocka_run_group_tests(tests, load_seeds, free_seeds);
}
