/*
 * test_exec_mask.c — pins the exec-mask machinery: the if/else/while/push/pop formulas of
 * apple-gpu-facts.md on every lane's nesting counter (r0l), read by an observer after each
 * instruction and compared with the formulas applied by hand in C (from random states, and
 * from every lane active with one lane's test failing); nested if/else, loops
 * whose lanes leave at different iterations, break and continue written as the facts file
 * says (mov16 r0l + pop_exec 0), jmp_exec_none skipping, inactive lanes leaving
 * registers and memory alone, and counters saturating at 0xffff with r0h kept.
 */
#include "sim_harness.h"

/* ---- counters through an observer ------------------------------------------------------- */

typedef struct Trace {
    uint32_t count;
    uint32_t pc[512];
    uint32_t exec[512];
    uint32_t r0[512][32];    /* whole: r0l, the counter, and r0h */
} Trace;

static void on_retired(void *ctx, const SimGroupView *sg, const IsaInst *inst)
{
    Trace *t = ctx;
    (void)inst;
    if (t->count >= 512)
        return;
    t->pc[t->count] = sg->pc;
    t->exec[t->count] = sg->exec_mask;
    memcpy(t->r0[t->count], sg->regs, sizeof t->r0[0]); /* r0 lane l is word l */
    t->count++;
}

/* Runs h's kernel on one SIMD-group of `lanes` threads, tracing every instruction it retires. */
static const Trace *run_traced(Harness *h, uint32_t lanes)
{
    static Trace t;
    memset(&t, 0, sizeof t);
    SimObserver obs = {.ctx = &t, .inst_retired = on_retired};
    SimObserver *list[] = {&obs};
    h->launch.observers = list;
    h->launch.num_observers = 1;
    h_run1(h, lanes, lanes);
    h->launch.observers = NULL;
    h->launch.num_observers = 0;
    return &t;
}

enum { OP_IF, OP_ELSE, OP_WHILE, OP_PUSH, OP_POP };

typedef struct Step {
    int op, n;
    int cond;     /* 0: lane < k, 1: lane >= k, 2: lane == k, 3: lane != k, 4: (float) lane > k,
                     5: (float) lane value != NaN-or-k (.ne with a NaN lane) */
    uint32_t k;
} Step;

static bool step_cond(const Step *s, uint32_t lane)
{
    switch (s->cond) {
    case 0: return lane < s->k;
    case 1: return lane >= s->k;
    case 2: return lane == s->k;
    case 3: return lane != s->k;
    case 4: return lane != 7 && (float)lane > (float)s->k; /* lane 7 holds NaN: ordered false */
    default: return lane == 7 || lane != s->k;              /* .ne is true on NaN */
    }
}

static void apply(const Step *s, uint32_t *D, uint32_t lanes)
{
    for (uint32_t l = 0; l < lanes; l++) {
        uint32_t v = D[l];
        bool c = step_cond(s, l);
        uint32_t n = (uint32_t)s->n;
        switch (s->op) {
        case OP_IF: if (v != 0) v += n; else if (!c) v = 1; break;
        case OP_ELSE: if (v == 0) v = n; else if (v == 1) v = c ? 0 : 1; break;
        case OP_WHILE: if (v < n) v = c ? 0 : n; break;
        case OP_PUSH: if (v != 0) v += n; break;
        default: v = v >= n ? v - n : 0; break;
        }
        D[l] = v;
    }
}

static int emit_step(char *buf, size_t size, const Step *s)
{
    static const char *names[] = {"if", "else", "while"};
    static const char *icond[] = {"ult", "uge", "eq", "ne"};
    if (s->op == OP_PUSH)
        return snprintf(buf, size, "    push_exec %d\n", s->n);
    if (s->op == OP_POP)
        return snprintf(buf, size, "    pop_exec %d\n", s->n);
    if (s->cond < 4)
        return snprintf(buf, size, "    %s_icmp.%s %d, r1, %u\n", names[s->op], icond[s->cond], s->n, s->k);
    return snprintf(buf, size, "    %s_fcmp.%s %d, r2, %u.0\n", names[s->op], s->cond == 4 ? "gt" : "ne",
                    s->n, s->k);
}

/* Runs the steps on one SIMD-group of `lanes` threads; checks r0l of every present lane and
 * the exec mask after every step. */
static void check_steps(const Step *steps, int count, uint32_t lanes)
{
    char *text = malloc(65536);
    size_t len = (size_t)snprintf(text, 65536,
                                  ".kernel steps\n.regs 4\n"
                                  "    get_sr r1, thread_index_in_simdgroup\n"
                                  "    cvt.f32.u32 r2, r1\n"
                                  "    icmpsel.eq r2, r1, 7, 0x7fc00000, r2\n");
    for (int i = 0; i < count; i++)
        len += (size_t)emit_step(text + len, 65536 - len, &steps[i]);
    snprintf(text + len, 65536 - len, "    stop\n");
    Harness h;
    h_init(&h, text);
    const Trace *t = run_traced(&h, lanes);
    uint32_t D[32] = {0};
    assert_int_equal(t->count, (uint32_t)count + 4);
    for (int i = 0; i < count; i++) {
        apply(&steps[i], D, lanes);
        uint32_t want_exec = 0;
        for (uint32_t l = 0; l < lanes; l++) {
            if ((uint16_t)t->r0[3 + i][l] != D[l]) {
                char line[128];
                emit_step(line, sizeof line, &steps[i]);
                fail_msg("step %d (%.*s) lane %u: counter expected %u, got %u", i, (int)strlen(line) - 1,
                         line, l, D[l], (uint16_t)t->r0[3 + i][l]);
            }
            want_exec |= (uint32_t)(D[l] == 0) << l;
        }
        if (t->exec[3 + i] != want_exec)
            fail_msg("step %d: exec mask expected %#x, got %#x", i, want_exec, t->exec[3 + i]);
    }
    h_free(&h);
    free(text);
}

static void test_formulas_handpicked(void **state)
{
    (void)state;
    const Step steps[] = {
        {OP_IF, 1, 0, 16},    {OP_IF, 1, 0, 8},     {OP_ELSE, 1, 1, 0},  {OP_POP, 1, 0, 0},
        {OP_ELSE, 1, 1, 20},  {OP_PUSH, 2, 0, 0},   {OP_WHILE, 2, 3, 3}, {OP_POP, 0, 0, 0},
        {OP_IF, 3, 2, 5},     {OP_ELSE, 2, 1, 20},  {OP_IF, 0, 0, 30},   {OP_WHILE, 3, 0, 10},
        {OP_POP, 2, 0, 0},    {OP_POP, 3, 0, 0},    {OP_IF, 1, 4, 12},   {OP_ELSE, 1, 5, 3},
        {OP_WHILE, 1, 4, 20}, {OP_POP, 3, 0, 0},    {OP_POP, 3, 0, 0},   {OP_PUSH, 3, 0, 0},
    };
    check_steps(steps, (int)(sizeof steps / sizeof steps[0]), 32);
    check_steps(steps, (int)(sizeof steps / sizeof steps[0]), 20); /* partial SIMD-group */
}

static void test_formulas_random(void **state)
{
    (void)state;
    uint32_t seed = 12345;
    for (int round = 0; round < 8; round++) {
        Step steps[150];
        for (int i = 0; i < 150; i++) {
            seed = seed * 1103515245u + 12345u;
            uint32_t r = seed >> 8;
            steps[i] = (Step){(int)(r % 5), (int)((r >> 3) % 4), (int)((r >> 5) % 6), (r >> 8) % 33};
        }
        check_steps(steps, 150, round & 1 ? 32 : 27);
    }
}

/* From every lane active (all counters 0), tests that hold on every lane but one (lane 0,
 * 17, 31: the last lane of the mask too), on every lane, and push/pop: an engine that takes
 * "every lane active" as a shortcut must still see the one lane that leaves. */
static void test_formulas_one_lane_leaves(void **state)
{
    (void)state;
    Step steps[96];
    int n = 0;
    static const uint32_t ks[] = {31, 0, 17};
    for (int i = 0; i < 3; i++) {
        const uint32_t k = ks[i];
        const Step round[] = {
            {OP_IF, 1, 3, k},    {OP_POP, 1, 0, 0},   {OP_WHILE, 2, 3, k}, {OP_POP, 2, 0, 0},
            {OP_IF, 1, 5, k},    {OP_POP, 1, 0, 0},   {OP_WHILE, 1, 5, k}, {OP_POP, 1, 0, 0},
            {OP_IF, 1, 0, 32},   {OP_WHILE, 2, 0, 32}, {OP_PUSH, 1, 0, 0}, {OP_POP, 1, 0, 0},
            {OP_WHILE, 3, 0, 31}, {OP_POP, 3, 0, 0},  {OP_IF, 2, 1, 1},    {OP_POP, 2, 0, 0},
        };
        for (size_t j = 0; j < sizeof round / sizeof round[0]; j++)
            steps[n++] = round[j];
    }
    check_steps(steps, n, 32);
}

/* ---- behaviour through memory ----------------------------------------------------------- */

static void run_kernel(const char *text, uint32_t n, uint32_t tg, uint32_t *out, uint32_t out_words)
{
    Harness h;
    h_init(&h, text);
    h_buffer(&h, 0, "out", (uint64_t)out_words * 4, MEM_SPACE_DEVICE);
    h_run1(&h, n, tg);
    h_expect_no_faults(&h);
    memcpy(out, h_data(&h, 0), out_words * 4);
    h_free(&h);
}

static void test_nested_if_else(void **state)
{
    (void)state;
    const char *k =
        ".kernel nest\n.regs 6\n.arg out, device, u0\n"
        "    get_sr r1, thread_position_in_grid.x\n"
        "    mov r2, 0\n"
        "    if_icmp.ult 1, r1, 40\n"
        "      and r3, r1, 1\n"
        "      if_icmp.eq 1, r3, 0\n"
        "        mov r2, 1\n"
        "        urem r4, r1, 3\n"
        "        if_icmp.eq 1, r4, 0\n"
        "          iadd r2, r2, 10\n"
        "        pop_exec 1\n"
        "      else_icmp.eq 1, 0, 0\n"
        "        mov r2, 2\n"
        "      pop_exec 1\n"
        "    else_icmp.eq 1, 0, 0\n"
        "      mov r2, 3\n"
        "    pop_exec 1\n"
        "    iadd r2, r2, 100\n"
        "    st_dev.b32 r2, u0, r1\n"
        "    stop\n";
    uint32_t out[70];
    run_kernel(k, 70, 64, out, 70);
    for (uint32_t i = 0; i < 70; i++) {
        uint32_t want = i < 40 ? (i % 2 == 0 ? (i % 3 == 0 ? 11 : 1) : 2) : 3;
        assert_int_equal(out[i], want + 100);
    }
}

static void test_loop_lanes_leave(void **state)
{
    (void)state;
    /* do { acc += k; k++; } while (k < i % 5 + i / 8) */
    const char *k =
        ".kernel loop\n.regs 8\n.arg out, device, u0\n"
        "    get_sr r1, thread_position_in_grid.x\n"
        "    urem r2, r1, 5\n"
        "    lsr r5, r1, 3\n"
        "    iadd r2, r2, r5\n"
        "    mov r3, 0\n"
        "    mov r4, 0\n"
        "    push_exec 2\n"
        "top:\n"
        "    iadd r4, r4, r3\n"
        "    iadd r3, r3, 1\n"
        "    while_icmp.ult 2, r3, r2\n"
        "    jmp_exec_any top\n"
        "    pop_exec 2\n"
        "    shl r6, r1, 1\n"
        "    st_dev.b32.x2 r3, u0, r6\n"
        "    stop\n";
    uint32_t out[2 * 50];
    run_kernel(k, 50, 32, out, 100);
    for (uint32_t i = 0; i < 50; i++) {
        uint32_t acc = 0, kk = 0, lim = i % 5 + i / 8;
        do {
            acc += kk;
            kk++;
        } while (kk < lim);
        assert_int_equal(out[2 * i], kk);
        assert_int_equal(out[2 * i + 1], acc);
    }
}

/* Counters saturate at 0xffff rather than wrap, and no exec-mask op touches r0h: lanes 0-15
 * get 0xfffe in r0l (the others sit at 1 after the if), then every op runs once more. */
static void test_counter_saturates_r0h_kept(void **state)
{
    (void)state;
    Harness h;
    h_init(&h, ".kernel sat\n.regs 4\n"
               "    get_sr r1, thread_index_in_simdgroup\n"
               "    mov16 r0h, 0xabcd\n"
               "    if_icmp.ult 1, r1, 16\n"   /* lanes >= 16: D = 1 */
               "    mov16 r0l, 0xfffe\n"       /* lanes < 16: D = 0xfffe */
               "    push_exec 3\n"             /* 0xffff (saturated) / 4 */
               "    if_icmp.ult 3, r1, 8\n"    /* 0xffff / 7 */
               "    else_icmp.ult 2, r1, 8\n"  /* unchanged: neither 0 nor 1 */
               "    while_icmp.ult 3, r1, 8\n" /* unchanged: not below 3 */
               "    pop_exec 3\n"              /* 0xfffc / 4 */
               "    pop_exec 3\n"              /* 0xfff9 / 1 */
               "    stop\n");
    const Trace *t = run_traced(&h, 32);
    static const uint32_t low[][2] = { /* after each op from push_exec on: lanes < 16, >= 16 */
        {0xffff, 4}, {0xffff, 7}, {0xffff, 7}, {0xffff, 7}, {0xfffc, 4}, {0xfff9, 1},
    };
    assert_int_equal(t->count, 11);
    for (uint32_t i = 0; i < 6; i++) {
        for (uint32_t l = 0; l < 32; l++) {
            const uint32_t want = 0xabcd0000u | low[i][l >= 16];
            if (t->r0[4 + i][l] != want)
                fail_msg("op %u lane %u: r0 %#x, want %#x", i, l, t->r0[4 + i][l], want);
        }
        assert_int_equal(t->exec[4 + i], 0);
    }
    h_free(&h);
}

static void test_break_continue(void **state)
{
    (void)state;
    /* do { k++; if (k & 1) continue; acc += k; if (acc > 3 * i) break; } while (k < 40) */
    const char *k =
        ".kernel brk\n.regs 8\n.arg out, device, u0\n"
        "    get_sr r1, thread_position_in_grid.x\n"
        "    imul r5, r1, 3\n"
        "    mov r3, 0\n"
        "    mov r4, 0\n"
        "    push_exec 2\n"
        "top:\n"
        "    iadd r3, r3, 1\n"
        "    and r6, r3, 1\n"
        "    if_icmp.ne 1, r6, 0\n"
        "      mov16 r0l, 2\n"       /* continue: inactive until the while */
        "      pop_exec 0\n"
        "    pop_exec 1\n"
        "    iadd r4, r4, r3\n"
        "    if_icmp.ugt 1, r4, r5\n"
        "      mov16 r0l, 3\n"       /* break: inactive until the loop's pop_exec 2 */
        "      pop_exec 0\n"
        "    pop_exec 1\n"
        "    while_icmp.ult 2, r3, 40\n"
        "    jmp_exec_any top\n"
        "    pop_exec 2\n"
        "    shl r6, r1, 1\n"
        "    st_dev.b32.x2 r3, u0, r6\n"
        "    stop\n";
    uint32_t out[2 * 40];
    run_kernel(k, 40, 40, out, 80);
    for (uint32_t i = 0; i < 40; i++) {
        uint32_t acc = 0, kk = 0;
        do {
            kk++;
            if (kk & 1)
                continue;
            acc += kk;
            if (acc > 3 * i)
                break;
        } while (kk < 40);
        if (out[2 * i] != kk || out[2 * i + 1] != acc)
            fail_msg("lane %u: expected k=%u acc=%u, got k=%u acc=%u", i, kk, acc, out[2 * i], out[2 * i + 1]);
    }
}

static void test_jmp_exec_none(void **state)
{
    (void)state;
    /* No lane passes the if: jmp_exec_none skips the body (2 instructions not issued). In
     * the second threadgroup lane 40 passes and the body runs. */
    const char *k =
        ".kernel skip\n.regs 4\n.arg out, device, u0\n"
        "    get_sr r1, thread_position_in_grid.x\n"
        "    if_icmp.eq 1, r1, 40\n"
        "    jmp_exec_none done\n"
        "    mov r2, 7\n"
        "    st_dev.b32 r2, u0, r1\n"
        "done:\n"
        "    pop_exec 1\n"
        "    stop\n";
    Harness h;
    h_init(&h, k);
    uint32_t *out = h_buffer(&h, 0, "out", 64 * 4, MEM_SPACE_DEVICE);
    h_run1(&h, 32, 32);
    for (int i = 0; i < 64; i++)
        assert_int_equal(out[i], 0);
    /* get_sr, if, jmp_exec_none, pop_exec, stop */
    assert_int_equal(h.res.instructions, 5);
    h_run1(&h, 64, 32);
    for (int i = 0; i < 64; i++)
        assert_int_equal(out[i], i == 40 ? 7u : 0u);
    /* first SIMD-group skips (5), second runs the body (7) */
    assert_int_equal(h.res.instructions, 12);
    /* lane_instructions: SG0 32+32+0+0+32; SG1 32+32+1+1+1+1+32 */
    assert_int_equal(h.res.lane_instructions, 96 + 100);
    h_free(&h);
}

static void test_inactive_lanes_untouched(void **state)
{
    (void)state;
    const char *k =
        ".kernel keep\n.regs 8\n.arg out, device, u0\n.arg log, device, u2\n"
        "    get_sr r1, thread_position_in_grid.x\n"
        "    mov r2, 0x1111\n"
        "    mov16 r3l, 0x2222\n"
        "    mov r4, 5\n"
        "    mov r6, 0\n"
        "    if_icmp.uge 1, r1, 10\n"
        "      mov r2, 0x9999\n"
        "      mov16 r3l, 0x8888\n"
        "      iadd64 r4, r4, 1\n"
        "      st_dev.b32 r1, u2, r1\n"
        "      ld_dev.b32 r6, u2, r1, 0\n"
        "      wait 0\n"
        "    pop_exec 1\n"
        "    shl r7, r1, 2\n"
        "    st_dev.b32.x4 r2, u0, r7\n"
        "    stop\n";
    Harness h;
    h_init(&h, k);
    uint32_t *out = h_buffer(&h, 0, "out", 32 * 16, MEM_SPACE_DEVICE);
    uint32_t *log = h_buffer(&h, 1, "log", 32 * 4, MEM_SPACE_DEVICE);
    for (int i = 0; i < 32; i++)
        log[i] = 0xdead0000u + (uint32_t)i;
    h_run1(&h, 32, 32);
    h_expect_no_faults(&h);
    for (uint32_t i = 0; i < 32; i++) {
        bool on = i >= 10;
        assert_int_equal(out[4 * i], on ? 0x9999u : 0x1111u);
        assert_int_equal(out[4 * i + 1] & 0xffff, on ? 0x8888u : 0x2222u);
        assert_int_equal(out[4 * i + 2], on ? 6u : 5u);
        assert_int_equal(out[4 * i + 3], 0u); /* r5: the pair's high word (5 + 1 carries nothing) */
        assert_int_equal(log[i], on ? i : 0xdead0000u + i);
    }
    h_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formulas_handpicked), cmocka_unit_test(test_formulas_random),
        cmocka_unit_test(test_nested_if_else),      cmocka_unit_test(test_loop_lanes_leave),
        cmocka_unit_test(test_break_continue),      cmocka_unit_test(test_jmp_exec_none),
        cmocka_unit_test(test_inactive_lanes_untouched),
        cmocka_unit_test(test_counter_saturates_r0h_kept),
        cmocka_unit_test(test_formulas_one_lane_leaves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
