/*
 * test_observer.c — pins what observers see: threadgroup begin/end per threadgroup,
 * inst_issued/inst_retired per instruction with the exec mask of the lanes that execute
 * it, mem_access batches with the right lanes, addresses, sizes and data for loads, stores
 * and atomics (faulting lanes left out), and barrier_arrive per SIMD-group and
 * barrier_release per barrier; an issue_ops bitset limits inst_issued to its opcodes.
 */
#include "sim_harness.h"

enum { TGN = 40, THREADS = 80, VALID = 75, MAXACC = 64 };

typedef struct Seen {
    uint32_t tg_begin, tg_end, issued, retired, arrive, release;
    uint64_t last_retired_count; /* SimGroupView.retired at the last inst_retired */
    uint32_t tg_pos_begin[4], tg_threads[4], tg_sgs[4];
    uint32_t exec_at[2][2][16]; /* [tg][sg][instruction index] exec mask at issue */
    uint32_t present_violations;
    uint32_t num_acc;
    SimMemAccess acc[MAXACC];
    uint32_t acc_tg[MAXACC], acc_sg[MAXACC];
    const IsaProgram *prog;
} Seen;

static void tg_begin(void *ctx, const SimThreadgroupView *tg)
{
    Seen *s = ctx;
    if (s->tg_begin < 4) {
        s->tg_pos_begin[s->tg_begin] = tg->position[0];
        s->tg_threads[s->tg_begin] = tg->threads;
        s->tg_sgs[s->tg_begin] = tg->num_simdgroups;
    }
    s->tg_begin++;
}

static void tg_end(void *ctx, const SimThreadgroupView *tg)
{
    (void)tg;
    ((Seen *)ctx)->tg_end++;
}

static void issued(void *ctx, const SimGroupView *sg, const IsaInst *inst)
{
    Seen *s = ctx;
    s->issued++;
    int64_t idx = inst - s->prog->code;
    uint32_t present = sg->lanes == 32 ? 0xffffffffu : (1u << sg->lanes) - 1;
    if (sg->exec_mask & ~present)
        s->present_violations++;
    if (idx >= 0 && idx < 16 && sg->simdgroup < 2 && sg->threadgroup->position[0] < 2)
        s->exec_at[sg->threadgroup->position[0]][sg->simdgroup][idx] = sg->exec_mask;
}

static void retired(void *ctx, const SimGroupView *sg, const IsaInst *inst)
{
    (void)inst;
    ((Seen *)ctx)->retired++;
    ((Seen *)ctx)->last_retired_count = sg->retired;
}

static void mem_access(void *ctx, const SimGroupView *sg, const SimMemAccess *a)
{
    Seen *s = ctx;
    if (s->num_acc < MAXACC) {
        s->acc[s->num_acc] = *a;
        s->acc_tg[s->num_acc] = sg->threadgroup->position[0];
        s->acc_sg[s->num_acc] = sg->simdgroup;
        s->num_acc++;
    }
}

static void arrive(void *ctx, const SimGroupView *sg, const IsaInst *inst)
{
    (void)sg, (void)inst;
    ((Seen *)ctx)->arrive++;
}

static void release(void *ctx, const SimThreadgroupView *tg)
{
    (void)tg;
    ((Seen *)ctx)->release++;
}

static void test_observer_events(void **state)
{
    (void)state;
    const char *k =
        ".kernel obs\n.regs 6\n.arg in, device, u0\n.arg out, device, u2\n.arg cnt, device, u4\n"
        "    get_sr r1, thread_position_in_grid.x\n"     /* 0 */
        "    ld_dev.b32 r2, u0, r1, 0\n"                 /* 1 */
        "    wait 0\n"                                   /* 2 */
        "    urem r3, r1, 3\n"                           /* 3 */
        "    if_icmp.ne 1, r3, 0\n"                      /* 4 */
        "    iadd r2, r2, 1\n"                           /* 5 */
        "    st_dev.b32 r2, u2, r1\n"                    /* 6 */
        "    atom_dev.add.u32 r4, u4, 0, r1\n"           /* 7 */
        "    pop_exec 1\n"                               /* 8 */
        "    barrier\n"                                  /* 9 */
        "    stop\n";                                    /* 10 */
    Harness h;
    h_init(&h, k);
    uint32_t *in = h_buffer(&h, 0, "in", VALID * 4, MEM_SPACE_DEVICE);
    h_buffer(&h, 1, "out", THREADS * 4, MEM_SPACE_DEVICE);
    uint32_t *cnt = h_buffer(&h, 2, "cnt", 4, MEM_SPACE_DEVICE);
    for (uint32_t i = 0; i < VALID; i++)
        in[i] = 1000 + i * 7;
    static Seen s;
    memset(&s, 0, sizeof s);
    s.prog = h.prog;
    SimObserver obs = {.ctx = &s, .threadgroup_begin = tg_begin, .threadgroup_end = tg_end,
                       .inst_issued = issued, .inst_retired = retired, .mem_access = mem_access,
                       .barrier_arrive = arrive, .barrier_release = release};
    SimObserver *list[] = {&obs};
    h.launch.observers = list;
    h.launch.num_observers = 1;
    h_run1(&h, THREADS, TGN);

    assert_int_equal(s.tg_begin, 2);
    assert_int_equal(s.tg_end, 2);
    for (uint32_t t = 0; t < 2; t++) {
        assert_int_equal(s.tg_pos_begin[t], t);
        assert_int_equal(s.tg_threads[t], TGN);
        assert_int_equal(s.tg_sgs[t], 2);
    }
    /* 11 instructions per SIMD-group, 4 SIMD-groups */
    assert_int_equal(s.issued, 44);
    assert_int_equal(s.retired, 44);
    assert_int_equal(h.res.instructions, 44);
    assert_int_equal(s.present_violations, 0);
    assert_int_equal(s.arrive, 4);
    assert_int_equal(s.release, 2);
    for (uint32_t t = 0; t < 2; t++)
        for (uint32_t g = 0; g < 2; g++) {
            uint32_t lanes = g == 0 ? 32 : 8, present = lanes == 32 ? 0xffffffffu : 0xffu, m = 0;
            for (uint32_t l = 0; l < lanes; l++)
                if ((t * TGN + g * 32 + l) % 3 != 0)
                    m |= 1u << l;
            assert_int_equal(s.exec_at[t][g][4], present); /* the if itself: all present lanes */
            assert_int_equal(s.exec_at[t][g][5], m);
            assert_int_equal(s.exec_at[t][g][6], m);
            assert_int_equal(s.exec_at[t][g][7], m);
            assert_int_equal(s.exec_at[t][g][8], m);
            assert_int_equal(s.exec_at[t][g][9], present);
        }

    /* memory batches: per SIMD-group a load, a store and an atomic, in that order */
    assert_int_equal(s.num_acc, 12);
    uint64_t base_in = mem_buffer_address(h.bind[0].buffer), base_out = mem_buffer_address(h.bind[1].buffer),
             base_cnt = mem_buffer_address(h.bind[2].buffer);
    uint32_t atom_total = 0;
    for (uint32_t j = 0; j < 12; j++) {
        const SimMemAccess *a = &s.acc[j];
        uint32_t t = s.acc_tg[j], g = s.acc_sg[j], lanes = g == 0 ? 32 : 8;
        assert_int_equal(j / 3, t * 2 + g);
        assert_int_equal(a->space, MEM_SPACE_DEVICE);
        assert_int_equal(a->bytes, 4);
        uint32_t want_mask = 0;
        for (uint32_t l = 0; l < lanes; l++) {
            uint32_t i = t * TGN + g * 32 + l;
            bool on = j % 3 == 0 ? i < VALID : i % 3 != 0;
            want_mask |= (uint32_t)on << l;
        }
        assert_int_equal(a->lane_mask, want_mask);
        assert_ptr_equal(a->inst, &h.prog->code[j % 3 == 0 ? 1 : j % 3 == 1 ? 6 : 7]);
        uint32_t prev_new = 0;
        bool first = true;
        for (uint32_t l = 0; l < 32; l++) {
            if (!((want_mask >> l) & 1))
                continue;
            uint32_t i = t * TGN + g * 32 + l, data;
            memcpy(&data, a->data[l], 4);
            if (j % 3 == 0) {
                assert_int_equal(a->kind, SIM_ACCESS_READ);
                assert_int_equal(a->addr[l], base_in + 4ull * i);
            } else if (j % 3 == 1) {
                assert_int_equal(a->kind, SIM_ACCESS_WRITE);
                assert_int_equal(a->addr[l], base_out + 4ull * i);
                assert_int_equal(data, (i < VALID ? in[i] : 0) + 1);
            } else {
                /* the value each lane wrote: its old value + i, lanes in order */
                assert_int_equal(a->kind, SIM_ACCESS_ATOMIC);
                assert_int_equal(a->addr[l], base_cnt);
                if (!first)
                    assert_int_equal(data - i, prev_new);
                prev_new = data;
                first = false;
                atom_total += i;
            }
        }
        if (j % 3 == 2)
            assert_true(prev_new <= *cnt);
    }
    assert_int_equal(*cnt, atom_total);
    /* the loads of threads 75..79 faulted and were left out of the batch */
    assert_int_equal(h.res.total_faults, THREADS - VALID);
    h_free(&h);
}

/* Two SIMD-groups of 7 instructions, one imul and one iadd each (64 threads). */
static const char FILTER_KERNEL[] =
    ".kernel filt\n.regs 6\n.arg out, device, u0\n"
    "    get_sr r1, thread_position_in_grid.x\n"
    "    imul r2, r1, r1\n"
    "    if_icmp.ult 1, r1, 50\n"
    "    iadd r2, r2, 3\n"
    "    pop_exec 1\n"
    "    st_dev.b32 r2, u0, r1\n"
    "    stop\n";

static void test_no_observer_same_result(void **state)
{
    (void)state;
    /* observers must not change what a kernel computes */
    uint32_t first[64];
    for (int run = 0; run < 2; run++) {
        Harness h;
        h_init(&h, FILTER_KERNEL);
        uint32_t *out = h_buffer(&h, 0, "out", 64 * 4, MEM_SPACE_DEVICE);
        static Seen s;
        memset(&s, 0, sizeof s);
        s.prog = h.prog;
        SimObserver obs = {.ctx = &s, .inst_issued = issued};
        SimObserver *list[] = {&obs};
        if (run) {
            h.launch.observers = list;
            h.launch.num_observers = 1;
        }
        h_run1(&h, 64, 64);
        for (uint32_t i = 0; i < 64; i++)
            assert_int_equal(out[i], i * i + (i < 50 ? 3 : 0));
        if (run == 0)
            memcpy(first, out, sizeof first);
        else
            assert_memory_equal(first, out, sizeof first);
        h_free(&h);
    }
}

/* issue_ops / retire_ops: inst_issued / inst_retired see only the opcodes in the bitset
 * (one of them filtered per mode), and SimGroupView.retired counts every instruction. 64 threads in one threadgroup: 2 SIMD-groups of 7 instructions, one imul and
 * one iadd each. */
static void test_issue_filter(void **state)
{
    (void)state;
    for (int timed = 0; timed < 2; timed++) {
        Harness h;
        h_init(&h, FILTER_KERNEL);
        h_buffer(&h, 0, "out", 64 * 4, MEM_SPACE_DEVICE);
        static Seen s;
        memset(&s, 0, sizeof s);
        s.prog = h.prog;
        uint64_t ops[(ISA_OP_COUNT + 63) / 64] = {0};
        ops[ISA_OP_IMUL / 64] |= 1ull << (ISA_OP_IMUL % 64);
        ops[ISA_OP_IADD / 64] |= 1ull << (ISA_OP_IADD % 64);
        SimObserver obs = {.ctx = &s, .inst_issued = issued, .inst_retired = retired,
                           .issue_ops = timed ? NULL : ops, .retire_ops = timed ? ops : NULL};
        SimObserver *list[] = {&obs};
        h.launch.observers = list;
        h.launch.num_observers = 1;
        h_grid(&h, false, 64, 1, 1, 64, 1, 1);
        h.launch.mode = timed ? SIM_MODE_TIMED : SIM_MODE_FUNCTIONAL; /* after h_grid */
        h_run(&h);
        assert_int_equal(h.res.timed, timed);
        /* functional: issues filtered; timed: retirements filtered */
        assert_int_equal(s.issued, timed ? 14 : 4);
        assert_int_equal(s.retired, timed ? 4 : 14);
        /* the last one seen: iadd, the 4th of 7 instructions (filtered); stop, the 7th */
        assert_int_equal(s.last_retired_count, timed ? 4 : 7);
        h_free(&h);
    }
}

/* An issue filter that changes as the run goes (the observer adds iadd when it first sees
 * imul) is read at each instruction; one marked fixed is read once, when the dispatch
 * starts, so the iadd added later is never issued to it. Kernel as in test_issue_filter. */
static uint64_t grow_ops[(ISA_OP_COUNT + 63) / 64];
static uint32_t grow_iadds;

static void issued_growing(void *ctx, const SimGroupView *sg, const IsaInst *inst)
{
    (void)ctx;
    (void)sg;
    if (inst->op == ISA_OP_IMUL)
        grow_ops[ISA_OP_IADD / 64] |= 1ull << (ISA_OP_IADD % 64);
    grow_iadds += inst->op == ISA_OP_IADD;
}

static void test_issue_filter_fixed(void **state)
{
    (void)state;
    for (int fixed = 0; fixed < 2; fixed++) {
        Harness h;
        h_init(&h, FILTER_KERNEL);
        uint32_t *out = h_buffer(&h, 0, "out", 64 * 4, MEM_SPACE_DEVICE);
        memset(grow_ops, 0, sizeof grow_ops);
        grow_ops[ISA_OP_IMUL / 64] |= 1ull << (ISA_OP_IMUL % 64);
        grow_iadds = 0;
        SimObserver obs = {.inst_issued = issued_growing, .issue_ops = grow_ops,
                           .issue_ops_fixed = fixed};
        SimObserver *list[] = {&obs};
        h.launch.observers = list;
        h.launch.num_observers = 1;
        h_run1(&h, 64, 64);
        /* both SIMD-groups reach the iadd after an imul */
        assert_int_equal(grow_iadds, fixed ? 0 : 2);
        for (uint32_t i = 0; i < 64; i++)
            assert_int_equal(out[i], i * i + (i < 50 ? 3 : 0));
        h_free(&h);
    }
}

/* SimLaunch.cancel: an observer that sets it at the 10th instruction stops a functional
 * run there, before that instruction: 9 issued (of 14 over 2 SIMD-groups), no budget fault,
 * result->cancelled; a flag that stays false changes nothing. Kernel as in
 * test_issue_filter. */
static _Atomic bool cancel_flag;
static uint32_t cancel_seen;

static void issued_cancelling(void *ctx, const SimGroupView *sg, const IsaInst *inst)
{
    (void)ctx;
    (void)sg;
    (void)inst;
    if (++cancel_seen == 9)
        cancel_flag = true;
}

static void test_cancel(void **state)
{
    (void)state;
    for (int set = 0; set < 2; set++) {
        Harness h;
        h_init(&h, FILTER_KERNEL);
        h_buffer(&h, 0, "out", 64 * 4, MEM_SPACE_DEVICE);
        cancel_flag = false;
        cancel_seen = 0;
        SimObserver obs = {.inst_issued = set ? issued_cancelling : NULL};
        SimObserver *list[] = {&obs};
        h.launch.observers = list;
        h.launch.num_observers = 1;
        h.launch.cancel = &cancel_flag;
        h_run1(&h, 64, 64);
        assert_int_equal(h.res.instructions, set ? 9 : 14);
        assert_int_equal(h.res.cancelled, set);
        assert_false(h.res.budget_exceeded);
        assert_int_equal(h.res.total_faults, 0);
        h_free(&h);
    }
}

/* SimLaunch.issue_trace in timed mode: one event per issued instruction, each SIMD-group's
 * in program order (FILTER_KERNEL has no loop: 7 instructions at increasing pcs), cycles
 * never going back on a scheduler, exec masks as the kernel sets them (lanes >= 50 off at
 * the iadd), `ready` never after the issue and, for the imul that reads get_sr's result,
 * after the get_sr's issue with the wait a dependency; and the run's cycles, results and
 * statistics exactly those without a trace. */
typedef struct TraceSeen {
    uint32_t events;
    uint32_t per_group[64][8];        /* [threadgroup * 2 + simdgroup][k]: k-th pc */
    uint32_t count[64];
    uint64_t last_cycle[64][4];       /* [core][scheduler] */
    uint32_t iadd_masks[64];
    uint64_t prev_cycle[64];
    bool cycle_went_back, ready_late, imul_not_waiting;
} TraceSeen;

static void traced(void *ctx, const SimIssueEvent *e)
{
    TraceSeen *t = ctx;
    t->events++;
    uint32_t g = (uint32_t)e->threadgroup * 2 + e->simdgroup;
    if (g >= 64 || e->core >= 64 || e->scheduler >= 4)
        fail_msg("event out of range: tg %llu sg %u core %u sched %u",
                 (unsigned long long)e->threadgroup, e->simdgroup, e->core, e->scheduler);
    if (t->count[g] < 8)
        t->per_group[g][t->count[g]] = e->pc;
    if (t->count[g] == 3) /* the iadd, under the if */
        t->iadd_masks[g] = e->exec_mask;
    t->count[g]++;
    t->cycle_went_back |= e->cycle < t->last_cycle[e->core][e->scheduler];
    t->ready_late |= e->ready > e->cycle;
    /* the imul (2nd instruction) reads r1, which the get_sr before it writes */
    if (t->count[g] == 2 && !(e->ready > t->prev_cycle[g] && e->waited_on == SIM_STALL_DEPENDENCY))
        t->imul_not_waiting = true;
    t->prev_cycle[g] = e->cycle;
    t->last_cycle[e->core][e->scheduler] = e->cycle;
}

static void test_issue_trace(void **state)
{
    (void)state;
    SimResult plain = {0};
    uint32_t plain_out[1024];
    for (int with = 0; with < 2; with++) {
        Harness h;
        h_init(&h, FILTER_KERNEL);
        uint32_t *out = h_buffer(&h, 0, "out", 1024 * 4, MEM_SPACE_DEVICE);
        static TraceSeen seen;
        memset(&seen, 0, sizeof seen);
        SimIssueTrace trace = {.ctx = &seen, .issued = traced};
        h_grid(&h, false, 1024, 1, 1, 64, 1, 1); /* 16 threadgroups of 2 SIMD-groups */
        h.launch.mode = SIM_MODE_TIMED;
        h.launch.issue_trace = with ? &trace : NULL;
        h_run(&h);
        assert_true(h.res.timed);
        if (!with) {
            plain = h.res;
            plain.faults = NULL;
            plain.stats.cores = NULL;
            memcpy(plain_out, out, sizeof plain_out);
            h_free(&h);
            continue;
        }
        assert_int_equal(h.res.stats.cycles, plain.stats.cycles);
        assert_int_equal(h.res.instructions, plain.instructions);
        assert_memory_equal(h.res.stats.stall_cycles, plain.stats.stall_cycles,
                            sizeof plain.stats.stall_cycles);
        assert_memory_equal(out, plain_out, sizeof plain_out);
        assert_int_equal(seen.events, 16 * 2 * 7);
        assert_false(seen.cycle_went_back);
        assert_false(seen.ready_late);       /* nothing issues before it is ready */
        assert_false(seen.imul_not_waiting); /* and a dependent op waits on its result */
        for (uint32_t g = 0; g < 32; g++) {
            assert_int_equal(seen.count[g], 7);
            for (uint32_t k = 1; k < 7; k++)
                assert_true(seen.per_group[g][k] > seen.per_group[g][k - 1]);
            /* thread ids of SIMD-group g: 32 g .. 32 g + 31; the if keeps those below 50 */
            uint32_t mask = 0;
            for (uint32_t l = 0; l < 32; l++)
                mask |= (uint32_t)(32 * g + l < 50) << l;
            assert_int_equal(seen.iadd_masks[g], mask);
        }
        h_free(&h);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_observer_events),
        cmocka_unit_test(test_no_observer_same_result),
        cmocka_unit_test(test_issue_filter),
        cmocka_unit_test(test_issue_filter_fixed),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_issue_trace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
