/*
 * test_race_oracle.c — the race detector against a reference written for this test, on
 * random access patterns. Each case is a kernel of two to six random steps, each step a
 * guarded read or write of one array element at a computed index, or a barrier with random
 * mem_flags; the reference evaluates every thread's guard and index in C, pairs up the
 * accesses to each element, and decides from the rules below, never from lockstep's output,
 * whether the kernel races and which elements a race can name. The checker must find a race
 * exactly when the reference does, find nothing else, and name only racy elements.
 *
 * The rules (docs/checks.md): two accesses to one element by different threads, at least
 * one a write, race unless a barrier whose flags cover the element's address space lies
 * between them in their threadgroup; accesses by different threadgroups to one device
 * element always race; two instructions of one SIMD-group are ordered by lockstep (two lanes
 * of one write instruction are not), unless --strict-simd. Values written are distinct per
 * thread and step, so the same-value policy never applies.
 */
#include "race_harness.h"

#include <stdarg.h>

enum { THREADS = 256, TG = 128, SIMD = 32, MAX_STEPS = 6, CASES = 150 };
enum { STEP_READ, STEP_WRITE, STEP_BARRIER };

typedef struct Step {
    int kind;
    bool orders;            /* a barrier whose flags cover the array's address space */
    int guard, guard_arg;   /* 0: lid < arg; 1: (lid & arg) == 0; 2: always */
    int index, a, b, m;     /* see element() */
} Step;

typedef struct Case {
    bool device;            /* the array is a device buffer shared by both threadgroups */
    bool strict;            /* --strict-simd */
    Step steps[MAX_STEPS];
    int n;
} Case;

typedef struct Src {
    char text[4096];
    size_t len;
} Src;

static void put(Src *s, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int k = vsnprintf(s->text + s->len, sizeof s->text - s->len, format, ap);
    va_end(ap);
    assert_true(k > 0 && (size_t)k < sizeof s->text - s->len);
    s->len += (size_t)k;
}

static int pick(uint64_t *rng, int n) { return (int)(test_rng_next(rng) % (uint64_t)n); }

/* ---- the reference ------------------------------------------------------------------------ */

/* The element step s of thread gid accesses: threadgroup arrays have 128 elements and are
 * indexed by the local id, the device buffer 256 and also by the global id and group. */
static int element(const Case *c, const Step *s, int gid)
{
    int lid = gid % TG, group = gid / TG;
    if (!c->device)
        switch (s->index) {
        case 0: return (lid * s->a + s->b) & 127;
        case 1: return lid ^ s->m;
        case 2: return lid / (s->m % 8 + 1);
        case 3: return (lid + s->b) & 127;
        case 4: return s->b;
        case 5: return (lid & s->m) | (s->b & ~s->m & 127);
        default: return lid;
        }
    switch (s->index) {
    case 0: return (gid * s->a + s->b) & 255;
    case 1: return gid ^ s->m;
    case 2: return (lid + group * TG + s->b) & 255;
    case 3: return lid + group * TG;
    case 4: return s->b;
    case 5: return (lid ^ (s->m & 127)) + group * TG;
    default: return gid;
    }
}

static bool guarded(const Step *s, int gid)
{
    int lid = gid % TG;
    return s->guard == 0 ? lid < s->guard_arg : s->guard == 1 ? (lid & s->guard_arg) == 0 : true;
}

/* Marks in racy[] every element two accesses race on; returns whether any does. */
static bool reference(const Case *c, bool racy[256])
{
    typedef struct Access { int step, gid, epoch; bool write; } Access;
    static Access acc[256][THREADS * MAX_STEPS];
    static int nacc[256];
    memset(nacc, 0, sizeof nacc);
    int epoch = 0;
    for (int i = 0; i < c->n; i++) {
        const Step *s = &c->steps[i];
        if (s->kind == STEP_BARRIER) {
            epoch += s->orders;
            continue;
        }
        for (int gid = 0; gid < THREADS; gid++)
            if (guarded(s, gid)) {
                int e = element(c, s, gid) + (c->device ? 0 : gid / TG * 128);
                acc[e][nacc[e]++] = (Access){i, gid, epoch, s->kind == STEP_WRITE};
            }
    }
    bool any = false;
    memset(racy, 0, 256);
    for (int e = 0; e < 256; e++)
        for (int i = 0; i < nacc[e] && !racy[e]; i++)
            for (int j = i + 1; j < nacc[e] && !racy[e]; j++) {
                const Access *x = &acc[e][i], *y = &acc[e][j];
                if (x->gid == y->gid || (!x->write && !y->write))
                    continue;
                bool same_group = x->gid / TG == y->gid / TG;
                if (same_group && x->epoch != y->epoch)
                    continue;
                if (same_group && !c->strict && x->gid / SIMD == y->gid / SIMD && x->step != y->step)
                    continue;
                racy[e] = any = true;
            }
    return any;
}

/* ---- random cases ------------------------------------------------------------------------- */

static const char *const flag_text[] = {
    "mem_flags::mem_threadgroup", "mem_flags::mem_device",
    "mem_flags::mem_device | mem_flags::mem_threadgroup", "mem_flags::mem_none"};

static void random_case(Case *c, uint64_t *rng, Src *src)
{
    int size = c->device ? 256 : 128;
    c->n = 2 + pick(rng, MAX_STEPS - 1);
    put(src, "kernel void k(device uint *d [[buffer(0)]], device uint *out [[buffer(1)]],\n"
             "              uint lid [[thread_index_in_threadgroup]],\n"
             "              uint group [[threadgroup_position_in_grid]],\n"
             "              uint gid [[thread_position_in_grid]]) {\n"
             "    uint x = 0u;\n");
    if (!c->device)
        put(src, "    threadgroup uint shared[128];\n    shared[lid] = lid;\n"
                 "    threadgroup_barrier(mem_flags::mem_threadgroup);\n");
    const char *arr = c->device ? "d" : "shared";
    for (int i = 0; i < c->n; i++) {
        Step *s = &c->steps[i];
        *s = (Step){0};
        if (i > 0 && c->steps[i - 1].kind != STEP_BARRIER && pick(rng, 2) == 0) {
            int f = pick(rng, 4);
            s->kind = STEP_BARRIER;
            s->orders = c->device ? f == 1 || f == 2 : f == 0 || f == 2;
            put(src, "    threadgroup_barrier(%s);\n", flag_text[f]);
            continue;
        }
        s->kind = pick(rng, 2) ? STEP_WRITE : STEP_READ;
        s->guard = pick(rng, 3);
        s->guard_arg = s->guard == 0 ? 1 + pick(rng, 128) : 1 + pick(rng, 63);
        static const int mults[] = {1, 3, 5, 7, 9, 127};
        s->index = pick(rng, 8); /* 6 and 7: the thread's own element */
        s->a = mults[pick(rng, 6)];
        s->b = pick(rng, size);
        s->m = 1 + pick(rng, size - 1);
        char guard[64], index[96];
        if (s->guard == 0)
            snprintf(guard, sizeof guard, "lid < %du", s->guard_arg);
        else if (s->guard == 1)
            snprintf(guard, sizeof guard, "(lid & %du) == 0u", s->guard_arg);
        else
            snprintf(guard, sizeof guard, "true");
        if (!c->device)
            switch (s->index) {
            case 0: snprintf(index, sizeof index, "(lid * %du + %du) & 127u", s->a, s->b); break;
            case 1: snprintf(index, sizeof index, "lid ^ %du", s->m); break;
            case 2: snprintf(index, sizeof index, "lid / %du", s->m % 8 + 1); break;
            case 3: snprintf(index, sizeof index, "(lid + %du) & 127u", s->b); break;
            case 4: snprintf(index, sizeof index, "%du", s->b); break;
            case 5: snprintf(index, sizeof index, "(lid & %du) | %du", s->m, s->b & ~s->m & 127); break;
            default: snprintf(index, sizeof index, "lid");
            }
        else
            switch (s->index) {
            case 0: snprintf(index, sizeof index, "(gid * %du + %du) & 255u", s->a, s->b); break;
            case 1: snprintf(index, sizeof index, "gid ^ %du", s->m); break;
            case 2: snprintf(index, sizeof index, "(lid + group * 128u + %du) & 255u", s->b); break;
            case 3: snprintf(index, sizeof index, "lid + group * 128u"); break;
            case 4: snprintf(index, sizeof index, "%du", s->b); break;
            case 5: snprintf(index, sizeof index, "(lid ^ %du) + group * 128u", s->m & 127); break;
            default: snprintf(index, sizeof index, "gid");
            }
        if (s->kind == STEP_WRITE)
            put(src, "    if (%s) %s[%s] = gid * 1000u + %du;\n", guard, arr, index, i);
        else
            put(src, "    if (%s) x += %s[%s];\n", guard, arr, index);
    }
    put(src, "    out[gid] = x;\n}\n");
}

/* ---- the comparison ----------------------------------------------------------------------- */

/* The element a finding names: the number in the last "[...]" of its message. */
static int named_element(const char *message)
{
    const char *open = strrchr(message, '[');
    return open ? atoi(open + 1) : -1;
}

static void run_cases(bool device, bool strict, uint64_t seed)
{
    uint64_t rng = seed;
    int races = 0;
    for (int k = 0; k < CASES; k++) {
        Case c = {.device = device, .strict = strict};
        Src src = {{0}, 0};
        random_case(&c, &rng, &src);
        bool racy[256];
        bool want = reference(&c, racy);
        races += want;

        Checked ch;
        setup(&ch, src.text, 4 * THREADS);
        CheckOptions o = {.races = true, .strict_simd = strict};
        run_opts(&ch, THREADS, TG, &o);
        bool got = false;
        for (uint32_t i = 0; i < ch.n; i++) {
            const CheckFinding *f = &ch.f[i];
            int e = named_element(f->message);
            bool ok = f->kind == CHECK_RACE && e >= 0 && e < (device ? 256 : 128) &&
                      (racy[e] || (!device && racy[e + 128]));
            if (!ok) {
                print_error("case %d (seed %llu):\n%s", k, (unsigned long long)seed, src.text);
                dump(&ch);
                fail_msg("finding %u names no racy element", i);
            }
            got = true;
        }
        if (got != want) {
            print_error("case %d (seed %llu):\n%s", k, (unsigned long long)seed, src.text);
            dump(&ch);
            fail_msg("the reference says %s, the checker found %s", want ? "race" : "no race",
                     got ? "one" : "none");
        }
        done(&ch);
    }
    /* A generator that made only clean or only racy kernels would test one side. */
    assert_true(races > CASES / 10 && races < CASES * 9 / 10);
}

static void test_threadgroup_patterns(void **state)
{
    (void)state;
    run_cases(false, false, 1);
}

static void test_threadgroup_patterns_strict(void **state)
{
    (void)state;
    run_cases(false, true, 2);
}

static void test_device_patterns(void **state)
{
    (void)state;
    run_cases(true, false, 3);
}

static void test_device_patterns_strict(void **state)
{
    (void)state;
    run_cases(true, true, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threadgroup_patterns),
        cmocka_unit_test(test_threadgroup_patterns_strict),
        cmocka_unit_test(test_device_patterns),
        cmocka_unit_test(test_device_patterns_strict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
