/*
 * test_check_oracle.c — the race, uninitialized-read, out-of-bounds and barrier-divergence
 * checks against a reference written for this test, on random access patterns. Each case
 * is a kernel of two to six random steps, each a guarded read or write of one element of a
 * threadgroup, device or private array at a computed index (in some suites sometimes past
 * the end), or a barrier with random mem_flags (in some suites under a guard or in a loop);
 * the reference evaluates every thread's guards and indices in C and decides from the rules
 * below, never from lockstep's output, which elements race, which reads find nothing
 * written, which accesses fall past the end, and whether a barrier diverges. The checkers
 * must find exactly what the reference does, and name only elements the reference names.
 *
 * The rules (docs/checks.md): two accesses to one element by different threads, at least
 * one a write, race unless a barrier whose flags cover the element's address space lies
 * between them in their threadgroup; accesses by different threadgroups to one device
 * element always race; two instructions of one SIMD-group are ordered by lockstep (two lanes
 * of one write instruction are not), unless --strict-simd. Values written are distinct per
 * thread and step, so the same-value policy never applies. A read is uninitialized when no
 * write to its element came before it in the run (threadgroup memory: in its threadgroup;
 * a device buffer marked `init: none`: in the whole dispatch), in the order the functional
 * run documents: threadgroups one at a time, and within one, SIMD-groups in index order,
 * each to its next barrier. An access past the array's end is reported and touches nothing
 * (it neither races nor initializes). A private array is each thread's alone: a read of an
 * element the thread has not written is uninitialized, when the compiler keeps the array
 * in memory (some index is computed at run time); in registers (every index a constant)
 * the value read is undefined and taints the sum the thread stores, which the
 * uninitialized-value check reports at the store, naming an element some thread read. A
 * barrier diverges when some threads of a threadgroup run it more often than others (under
 * a guard, or in a loop whose trip count differs between threads); one in a loop that runs
 * no trips orders nothing.
 */
#include "check_harness.h"

#include <stdarg.h>

enum { THREADS = 256, TG = 128, SIMD = 32, MAX_STEPS = 6, CASES = 150 };
enum { STEP_READ, STEP_WRITE, STEP_BARRIER };

typedef struct Step {
    int kind;
    bool orders;            /* a barrier whose flags cover the array's address space */
    int guard, guard_arg;   /* 0: lid < arg; 1: (lid & arg) == 0; 2: always */
    int index, a, b, m;     /* see element() */
    int past;               /* added to the index unmasked: past the end when large */
    int loop, loop_arg;     /* a barrier in a loop: see trips() */
} Step;

typedef struct Case {
    bool device;            /* the array is a device buffer shared by both threadgroups */
    bool strict;            /* --strict-simd */
    bool uninit;            /* threadgroup: no initial write; device: the buffer is `init: none` */
    bool guarded_barriers;  /* barriers may be under a guard */
    bool oob;               /* indices may run past the array's end */
    bool private_array;     /* the array is each thread's own, in thread memory: 16 elements */
    Step steps[MAX_STEPS];
    int n;
} Case;

/* What the reference expects, per element (threadgroup arrays: element + 128 * group). */
typedef struct Expect {
    bool racy[THREADS], unwritten[THREADS];
    bool outside[2 * THREADS]; /* elements past the end that some access asks for */
    bool unwritten_reg[16];    /* a private array in registers: elements read undefined */
    bool race, uninit, divergence, oob;
    bool uninit_value;         /* some thread stores a sum of an undefined element */
} Expect;

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
static int masked_element(const Case *c, const Step *s, int gid)
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

static int element(const Case *c, const Step *s, int gid)
{
    if (c->private_array)
        return masked_element(c, s, gid) & 15;
    return masked_element(c, s, gid) + s->past;
}

static int array_size(const Case *c) { return c->private_array ? 16 : c->device ? 256 : 128; }

/* The reference's name for an element in bounds: threadgroup arrays are one per
 * threadgroup. Accesses past the end touch nothing: the simulator refuses them. */
static int slot(const Case *c, const Step *s, int gid)
{
    return element(c, s, gid) + (c->device || c->private_array ? 0 : gid / TG * 128);
}

static bool guarded(const Step *s, int gid)
{
    int lid = gid % TG;
    return s->guard == 0 ? lid < s->guard_arg : s->guard == 1 ? (lid & s->guard_arg) == 0 : true;
}

/* How many times thread gid runs barrier step s: once, or as its guard or loop says. */
static int trips(const Step *s, int gid)
{
    int lid = gid % TG;
    switch (s->loop) {
    case 1: return lid % s->loop_arg;
    case 2: return lid / 32 % 2 + 1;
    case 3: return s->loop_arg;
    default: return guarded(s, gid);
    }
}

/* A barrier that every thread runs (the reference's other rules hold only then). */
static bool effective(const Step *s) { return s->kind == STEP_BARRIER && trips(s, 0) > 0; }

static void expect_races(const Case *c, Expect *x)
{
    if (c->private_array)
        return; /* no other thread can reach a thread's own memory */
    typedef struct Access { int step, gid, epoch; bool write; } Access;
    static Access acc[THREADS][THREADS * MAX_STEPS];
    static int nacc[THREADS];
    memset(nacc, 0, sizeof nacc);
    int epoch = 0;
    for (int i = 0; i < c->n; i++) {
        const Step *s = &c->steps[i];
        if (s->kind == STEP_BARRIER) {
            epoch += s->orders && effective(s);
            continue;
        }
        for (int gid = 0; gid < THREADS; gid++)
            if (guarded(s, gid) && element(c, s, gid) < array_size(c)) {
                int e = slot(c, s, gid);
                acc[e][nacc[e]++] = (Access){i, gid, epoch, s->kind == STEP_WRITE};
            }
    }
    for (int e = 0; e < THREADS; e++)
        for (int i = 0; i < nacc[e] && !x->racy[e]; i++)
            for (int j = i + 1; j < nacc[e] && !x->racy[e]; j++) {
                const Access *p = &acc[e][i], *q = &acc[e][j];
                if (p->gid == q->gid || (!p->write && !q->write))
                    continue;
                bool same_group = p->gid / TG == q->gid / TG;
                if (same_group && p->epoch != q->epoch)
                    continue;
                if (same_group && !c->strict && p->gid / SIMD == q->gid / SIMD && p->step != q->step)
                    continue;
                x->racy[e] = x->race = true;
            }
}

/* Replays the run in its documented order, marking reads of elements nothing wrote yet. */
static void expect_uninit(const Case *c, Expect *x)
{
    if (c->private_array) { /* each thread alone, in program order */
        bool in_memory = false; /* only an array indexed at run time is kept in memory */
        for (int i = 0; i < c->n; i++)
            in_memory |= c->steps[i].kind != STEP_BARRIER && c->steps[i].index != 4;
        for (int gid = 0; gid < THREADS; gid++) {
            bool mine[16] = {0};
            for (int i = 0; i < c->n; i++) {
                const Step *s = &c->steps[i];
                if (s->kind == STEP_BARRIER || !guarded(s, gid))
                    continue;
                int e = element(c, s, gid);
                if (s->kind == STEP_WRITE)
                    mine[e] = true;
                else if (!mine[e] && in_memory)
                    x->unwritten[e] = x->uninit = true;
                else if (!mine[e])
                    x->unwritten_reg[e] = x->uninit_value = true;
            }
        }
        return;
    }
    bool written[THREADS];
    memset(written, !c->uninit, sizeof written);
    for (int group = 0; group < THREADS / TG; group++)
        for (int first = 0; first < c->n;) {
            int end = first;
            while (end < c->n && !effective(&c->steps[end]))
                end++;
            for (int sg = 0; sg < TG / SIMD; sg++)
                for (int i = first; i < end; i++)
                    for (int lane = 0; lane < SIMD; lane++) {
                        int gid = group * TG + sg * SIMD + lane;
                        const Step *s = &c->steps[i];
                        if (s->kind == STEP_BARRIER || !guarded(s, gid) ||
                            element(c, s, gid) >= array_size(c))
                            continue;
                        int e = slot(c, s, gid);
                        if (s->kind == STEP_WRITE)
                            written[e] = true;
                        else if (!written[e])
                            x->unwritten[e] = x->uninit = true;
                    }
            first = end + 1;
        }
}

static void expect_oob(const Case *c, Expect *x)
{
    for (int i = 0; i < c->n; i++)
        for (int gid = 0; gid < THREADS; gid++) {
            const Step *s = &c->steps[i];
            int e = element(c, s, gid);
            if (s->kind != STEP_BARRIER && guarded(s, gid) && e >= array_size(c))
                x->outside[e] = x->oob = true;
        }
}

/* A barrier some threads of a threadgroup run more often than others (a guard some pass,
 * a loop whose trip count differs). */
static bool expect_divergence(const Case *c)
{
    for (int i = 0; i < c->n; i++) {
        const Step *s = &c->steps[i];
        if (s->kind != STEP_BARRIER)
            continue;
        for (int lid = 1; lid < TG; lid++)
            if (trips(s, lid) != trips(s, 0))
                return true;
    }
    return false;
}

/* ---- random cases ------------------------------------------------------------------------- */

static const char *const flag_text[] = {
    "mem_flags::mem_threadgroup", "mem_flags::mem_device",
    "mem_flags::mem_device | mem_flags::mem_threadgroup", "mem_flags::mem_none"};

static void random_guard(Step *s, uint64_t *rng, char *text, size_t size)
{
    s->guard = pick(rng, 3);
    s->guard_arg = s->guard == 0 ? 1 + pick(rng, 128) : 1 + pick(rng, 63);
    if (s->guard == 0)
        snprintf(text, size, "lid < %du", s->guard_arg);
    else if (s->guard == 1)
        snprintf(text, size, "(lid & %du) == 0u", s->guard_arg);
    else
        snprintf(text, size, "true");
}

static void random_index(const Case *c, Step *s, uint64_t *rng, char *text, size_t size)
{
    static const int mults[] = {1, 3, 5, 7, 9, 127};
    int elems = c->device ? 256 : 128;
    s->index = pick(rng, 8); /* 6 and 7: the thread's own element */
    s->a = mults[pick(rng, 6)];
    s->b = pick(rng, elems);
    s->m = 1 + pick(rng, elems - 1);
    if (!c->device)
        switch (s->index) {
        case 0: snprintf(text, size, "(lid * %du + %du) & 127u", s->a, s->b); break;
        case 1: snprintf(text, size, "lid ^ %du", s->m); break;
        case 2: snprintf(text, size, "lid / %du", s->m % 8 + 1); break;
        case 3: snprintf(text, size, "(lid + %du) & 127u", s->b); break;
        case 4: snprintf(text, size, "%du", s->b); break;
        case 5: snprintf(text, size, "(lid & %du) | %du", s->m, s->b & ~s->m & 127); break;
        default: snprintf(text, size, "lid");
        }
    else
        switch (s->index) {
        case 0: snprintf(text, size, "(gid * %du + %du) & 255u", s->a, s->b); break;
        case 1: snprintf(text, size, "gid ^ %du", s->m); break;
        case 2: snprintf(text, size, "(lid + group * 128u + %du) & 255u", s->b); break;
        case 3: snprintf(text, size, "lid + group * 128u"); break;
        case 4: snprintf(text, size, "%du", s->b); break;
        case 5: snprintf(text, size, "(lid ^ %du) + group * 128u", s->m & 127); break;
        default: snprintf(text, size, "gid");
        }
    if (c->oob && s->index != 4 && pick(rng, 3) == 0) { /* a constant index past the end does not compile */
        s->past = 1 + pick(rng, elems);
        size_t len = strlen(text);
        assert_true(len + 16 < size);
        memmove(text + 1, text, len);
        snprintf(text + len + 1, size - len - 1, ") + %du", s->past);
        text[0] = '(';
    }
}

static void random_case(Case *c, uint64_t *rng, Src *src)
{
    c->n = 2 + pick(rng, MAX_STEPS - 1);
    put(src, "kernel void k(device uint *d [[buffer(0)]], device uint *out [[buffer(1)]],\n"
             "              uint lid [[thread_index_in_threadgroup]],\n"
             "              uint group [[threadgroup_position_in_grid]],\n"
             "              uint gid [[thread_position_in_grid]]) {\n"
             "    uint x = 0u;\n");
    if (c->private_array) {
        put(src, "    uint priv[16];\n");
    } else if (!c->device) {
        put(src, "    threadgroup uint shared[128];\n");
        if (!c->uninit)
            put(src, "    shared[lid] = lid;\n    threadgroup_barrier(mem_flags::mem_threadgroup);\n");
    }
    const char *array = c->private_array ? "priv" : c->device ? "d" : "shared";
    for (int i = 0; i < c->n; i++) {
        Step *s = &c->steps[i];
        *s = (Step){.guard = 2};
        char guard[64], index[96];
        if (i > 0 && c->steps[i - 1].kind != STEP_BARRIER && pick(rng, 2) == 0) {
            int f = pick(rng, 4);
            s->kind = STEP_BARRIER;
            s->orders = c->device ? f == 1 || f == 2 : f == 0 || f == 2;
            int how = c->guarded_barriers ? pick(rng, 4) : 0;
            if (how == 1) {
                random_guard(s, rng, guard, sizeof guard);
                put(src, "    if (%s) threadgroup_barrier(%s);\n", guard, flag_text[f]);
            } else if (how >= 2) {
                s->loop = 1 + pick(rng, 3);
                s->loop_arg = s->loop == 1 ? 1 + pick(rng, 4) : pick(rng, 3);
                char count[32];
                if (s->loop == 1)
                    snprintf(count, sizeof count, "lid %% %du", s->loop_arg);
                else if (s->loop == 2)
                    snprintf(count, sizeof count, "lid / 32u %% 2u + 1u");
                else
                    snprintf(count, sizeof count, "%du", s->loop_arg);
                put(src, "    for (uint t = 0u; t < %s; t++) threadgroup_barrier(%s);\n", count,
                    flag_text[f]);
            } else {
                put(src, "    threadgroup_barrier(%s);\n", flag_text[f]);
            }
            continue;
        }
        s->kind = pick(rng, 2) ? STEP_WRITE : STEP_READ;
        random_guard(s, rng, guard, sizeof guard);
        random_index(c, s, rng, index, sizeof index);
        if (c->private_array) {
            char masked[sizeof index];
            snprintf(masked, sizeof masked, "%s", index);
            snprintf(index, sizeof index, "(%.80s) & 15u", masked);
        }
        if (s->kind == STEP_WRITE)
            put(src, "    if (%s) %s[%s] = gid * 1000u + %du;\n", guard, array, index, i);
        else
            put(src, "    if (%s) x += %s[%s];\n", guard, array, index);
    }
    put(src, "    out[gid] = x;\n}\n");
}

/* ---- the comparison ----------------------------------------------------------------------- */

/* The element a finding names: the number in the last "[...]" of its message, as the
 * reference names it (threadgroup arrays: the finder's threadgroup's copy). */
static int named_slot(const Case *c, const CheckFinding *f)
{
    const char *open = strrchr(f->message, '[');
    int e = open ? atoi(open + 1) : -1;
    if (e < 0 || e >= array_size(c))
        return -1;
    return e + (c->device || c->private_array ? 0 : (int)f->first.thread.threadgroup[0] * 128);
}

/* The element an out-of-bounds finding names, past the end. */
static int outside_element(const CheckFinding *f)
{
    int64_t i = f->first.index != CHECK_NO_INDEX ? f->first.index : (int64_t)f->first.offset / 4;
    return i >= 0 && i < 2 * THREADS ? (int)i : -1;
}

static void fail_case(const Checked *ch, uint64_t seed, int k, const Src *src, const char *why)
{
    print_error("case %d (seed %llu):\n%s", k, (unsigned long long)seed, src->text);
    dump(ch);
    fail_msg("%s", why);
}

/* Runs CASES random cases of one kind; counts how many the reference finds each bug in. */
static void run_cases(Case kind, uint64_t seed, int found[4])
{
    uint64_t rng = seed;
    for (int k = 0; k < CASES; k++) {
        Case c = kind;
        Src src = {{0}, 0};
        random_case(&c, &rng, &src);
        Expect x = {{0}};
        x.divergence = expect_divergence(&c);
        if (!x.divergence) {
            expect_races(&c, &x);
            expect_uninit(&c, &x);
            expect_oob(&c, &x);
        }
        found[0] += x.race, found[1] += x.uninit || x.uninit_value, found[2] += x.divergence,
            found[3] += x.oob;

        Checked ch = {0};
        CheckBufferInfo info[2] = {{.elem_size = 4, .uninitialized = c.device && c.uninit},
                                   {.elem_size = 4}};
        ch_init(&ch.h, src.text, NULL);
        ch.info = info;
        bind_all(&ch, 4 * THREADS);
        CheckOptions o = {.races = true, .uninit = true, .barriers = true, .memory = true,
                          .strict_simd = c.strict};
        run_checked_opts(&ch, THREADS, TG, &o);
        bool race = false, uninit = false, divergence = false, oob = false, value = false;
        for (uint32_t i = 0; i < ch.n; i++) {
            const CheckFinding *f = &ch.f[i];
            if (f->kind == CHECK_BARRIER_DIVERGENCE) {
                divergence = true;
                continue;
            }
            if (x.divergence)
                continue; /* what a diverged barrier orders is not the reference's business */
            int e = named_slot(&c, f), past = outside_element(f);
            if (f->kind == CHECK_OUT_OF_BOUNDS && past >= 0 && x.outside[past])
                oob = true;
            else if (f->kind == CHECK_RACE && e >= 0 && x.racy[e])
                race = true;
            else if (f->kind == CHECK_UNINITIALIZED && e >= 0 && x.unwritten[e])
                uninit = true;
            else if (f->kind == CHECK_UNINIT_VALUE && e >= 0 && e < 16 && x.unwritten_reg[e])
                value = true;
            else
                fail_case(&ch, seed, k, &src, "a finding names no element the reference does");
        }
        if (divergence != x.divergence)
            fail_case(&ch, seed, k, &src, x.divergence ? "a diverged barrier went unreported"
                                                       : "a barrier divergence the reference does not see");
        if (race != x.race)
            fail_case(&ch, seed, k, &src, x.race ? "a race went unreported" : "no race expected");
        if (oob != x.oob)
            fail_case(&ch, seed, k, &src, x.oob ? "an out-of-bounds access went unreported"
                                                : "no out-of-bounds access expected");
        if (uninit != x.uninit)
            fail_case(&ch, seed, k, &src, x.uninit ? "an uninitialized read went unreported"
                                                   : "no uninitialized read expected");
        if (value != x.uninit_value)
            fail_case(&ch, seed, k, &src, x.uninit_value ? "an undefined value stored went unreported"
                                                         : "no undefined value expected");
        done(&ch);
    }
}

/* A generator that made only clean or only buggy kernels would test one side. */
static void expect_both_sides(int found, const char *what)
{
    if (found <= CASES / 10 || found >= CASES * 9 / 10)
        fail_msg("%d of %d cases have %s: the generator is lopsided", found, CASES, what);
}

static void test_threadgroup_races(void **state)
{
    (void)state;
    int found[4] = {0};
    run_cases((Case){0}, 1, found);
    run_cases((Case){.strict = true}, 2, found);
    expect_both_sides(found[0] / 2, "a race");
}

static void test_device_races(void **state)
{
    (void)state;
    int found[4] = {0};
    run_cases((Case){.device = true}, 3, found);
    run_cases((Case){.device = true, .strict = true}, 4, found);
    expect_both_sides(found[0] / 2, "a race");
}

static void test_uninitialized_reads(void **state)
{
    (void)state;
    int found[4] = {0};
    run_cases((Case){.uninit = true}, 5, found);
    expect_both_sides(found[1], "an uninitialized threadgroup read");
    memset(found, 0, sizeof found);
    run_cases((Case){.device = true, .uninit = true}, 6, found);
    expect_both_sides(found[1], "an uninitialized device read");
}

static void test_guarded_barriers(void **state)
{
    (void)state;
    int found[4] = {0};
    run_cases((Case){.guarded_barriers = true}, 7, found);
    run_cases((Case){.device = true, .guarded_barriers = true, .uninit = true}, 8, found);
    assert_true(found[2] > CASES / 10);
    assert_true(found[2] < CASES * 2 - CASES / 10);
}

static void test_out_of_bounds(void **state)
{
    (void)state;
    int found[4] = {0};
    run_cases((Case){.oob = true}, 9, found);
    run_cases((Case){.device = true, .oob = true, .uninit = true}, 10, found);
    expect_both_sides(found[3] / 2, "an access past the end");
}

static void test_private_arrays(void **state)
{
    (void)state;
    int found[4] = {0};
    run_cases((Case){.private_array = true, .uninit = true}, 11, found);
    expect_both_sides(found[1], "an uninitialized private read");
    assert_int_equal(found[0], 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threadgroup_races),
        cmocka_unit_test(test_device_races),
        cmocka_unit_test(test_uninitialized_reads),
        cmocka_unit_test(test_guarded_barriers),
        cmocka_unit_test(test_out_of_bounds),
        cmocka_unit_test(test_private_arrays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
