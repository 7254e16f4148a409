/*
 * test_profile.c — the divergence profile: per branch site executions, splits and idle
 * lane-slots, and the kernel totals, checked against numbers derived by hand for small
 * assembly kernels; plus a measurement (printed, not asserted) of what every check costs on
 * a reduction kernel.
 */
#include "test_util.h"
#include "check_harness.h"

#include <time.h>



/* ---- the profile of a small kernel, derived by hand ------------------------------------------- */

/* One SIMD-group per threadgroup, two threadgroups. Lanes 0..7 take the if, 8..31 the else.
 *   instruction             mask      idle   charged to
 *   get_sr, mov, if         all         0    -
 *   mov, mov                0..7       24    if  (twice)
 *   else                    0..7       24    if
 *   mov                     8..31       8    else
 *   pop_exec                8..31       8    else
 *   st_dev, stop            all         0    -
 * Per SIMD-group: if idle 72, else idle 16; lane-instructions 5*32 + 3*8 + 2*24 = 232 of
 * 10*32 = 320 lane-slots. The while loop runs lanes 0..3 for lane+1 iterations each. */
static const char *const k_profile =
    ".kernel prof\n"
    ".regs 4\n"
    ".arg out, device, u0\n"
    "    get_sr r1, thread_index_in_simdgroup\n"
    "    mov r2, 0\n"
    "    if_icmp.ult 1, r1, 8\n"
    "    mov r2, 1\n"
    "    mov r2, 2\n"
    "    else_icmp.eq 1, 0, 0\n"
    "    mov r2, 3\n"
    "    pop_exec 1\n"
    "    st_dev.b32 r2, u0, r1\n"
    "    stop\n";

static void test_profile_by_hand(void **state)
{
    (void)state;
    Checked c;
    assembly(&c, k_profile, 64, 32);
    expect_silent(&c);
    const CheckProfile *p = check_session_profile(c.s);
    assert_int_equal(p->num_branches, 2);
    const IsaProgram *prog = c.h.prog;
    /* sorted by idle lane-slots: the if (144) before the else (32) */
    assert_int_equal(p->branches[0].pc, h_pc_of(prog, 2));
    assert_int_equal(p->branches[0].executions, 2);
    assert_int_equal(p->branches[0].diverged, 2);
    assert_int_equal(p->branches[0].lanes_idle, 2 * 72);
    assert_int_equal(p->branches[1].pc, h_pc_of(prog, 5));
    assert_int_equal(p->branches[1].executions, 2);
    assert_int_equal(p->branches[1].diverged, 2);
    assert_int_equal(p->branches[1].lanes_idle, 2 * 16);
    assert_int_equal(p->lane_instructions, 2 * 232);
    assert_int_equal(p->lane_slots, 2 * 320);
    done(&c);
}

/* A loop: lane L < 4 runs L + 1 iterations, lanes 4..31 none (bound r3 = L < 4 ? L + 1 : 0).
 * Instructions 0..5 run with all 32 lanes (0 idle). The entry while (5) leaves lanes 0..3:
 * executed once, diverged once. Iteration k = 1..4: iadd and the back-edge while (7) run with
 * 5 - k lanes (idle 27 + k), jmp_exec_any with 4 - k (idle 28 + k); the back-edge while
 * diverges in iterations 1..3 (in 4 it leaves no lane). Idle slots go to the innermost open
 * branch: iteration 1's iadd and while to the entry while (28 + 28 = 56); after that the
 * back-edge while is open: jmps 29 + 30 + 31 + 32, iadds and whiles of iterations 2..4
 * 2 * (29 + 30 + 31), and pop_exec, issued with no lane, 32: 334 in all.
 * Lane-instructions: 6 * 32 + (10 + 10 + 6) + 0 + 2 * 32 = 282 of 21 * 32 = 672 slots. */
static const char *const k_loop =
    ".kernel loop\n"
    ".regs 4\n"
    ".arg out, device, u0\n"
    "    get_sr r1, thread_index_in_simdgroup\n"   /* 0 */
    "    iadd r3, r1, 1\n"                         /* 1 */
    "    icmpsel.ult r3, r1, 4, r3, 0\n"           /* 2 */
    "    mov r2, 0\n"                              /* 3 */
    "    push_exec 2\n"                            /* 4 */
    "    while_icmp.ult 2, r2, r3\n"               /* 5 */
    "body: iadd r2, r2, 1\n"                       /* 6 */
    "    while_icmp.ult 2, r2, r3\n"               /* 7 */
    "    jmp_exec_any body\n"                      /* 8 */
    "    pop_exec 2\n"                             /* 9 */
    "    st_dev.b32 r2, u0, r1\n"                  /* 10 */
    "    stop\n";                                  /* 11 */

/* A kernel that runs off its end inside an if (no pop_exec, no stop: the assembler refuses it,
 * a program built through the library may be one), so its last
 * instructions are plain ALU ops no checker asks to see: their idle lane-slots must still be
 * charged. Lanes 0..7 take the if: the three movs after it leave 24 lanes idle each, 72 per
 * SIMD-group; two threadgroups of one SIMD-group. */
static const char *const k_off_end =
    ".kernel offend\n"
    ".regs 4\n"
    ".arg out, device, u0\n"
    "    get_sr r1, thread_index_in_simdgroup\n"
    "    st_dev.b32 r1, u0, r1\n"
    "    if_icmp.ult 1, r1, 8\n"
    "    mov r2, 1\n"
    "    mov r2, 2\n"
    "    mov r2, 3\n";

static void test_profile_runs_off_the_end(void **state)
{
    (void)state;
    Checked c;
    assembly_open_ended(&c, k_off_end, 64, 32);
    const CheckProfile *p = check_session_profile(c.s);
    assert_int_equal(p->num_branches, 1);
    assert_int_equal(p->branches[0].executions, 2);
    assert_int_equal(p->branches[0].lanes_idle, 2 * 72);
    /* 3 full instructions and 3 of 8 lanes: (3 * 32 + 3 * 8) per SIMD-group of 6 * 32 */
    assert_int_equal(p->lane_instructions, 2 * (3 * 32 + 3 * 8));
    assert_int_equal(p->lane_slots, 2 * 6 * 32);
    done(&c);
}

static void test_profile_loop_by_hand(void **state)
{
    (void)state;
    Checked c;
    assembly(&c, k_loop, 32, 32);
    expect_silent(&c);
    const uint32_t *out = h_data(&c.h, 0);
    assert_int_equal(out[3], 4);
    assert_int_equal(out[4], 0);
    const CheckProfile *p = check_session_profile(c.s);
    const IsaProgram *prog = c.h.prog;
    assert_int_equal(p->num_branches, 2);
    assert_int_equal(p->branches[0].pc, h_pc_of(prog, 7));
    assert_int_equal(p->branches[0].executions, 4);
    assert_int_equal(p->branches[0].diverged, 3);
    assert_int_equal(p->branches[0].lanes_idle, 334);
    assert_int_equal(p->branches[1].pc, h_pc_of(prog, 5));
    assert_int_equal(p->branches[1].executions, 1);
    assert_int_equal(p->branches[1].diverged, 1);
    assert_int_equal(p->branches[1].lanes_idle, 56);
    assert_int_equal(p->lane_instructions, 282);
    assert_int_equal(p->lane_slots, 672);
    done(&c);
}

/* A Metal kernel: a branch that splits every SIMD-group, and one that never does. */
static void test_profile_metal_kernel(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "kernel void k(device float *out [[buffer(0)]], uint gid [[thread_position_in_grid]],\n" /* 1 */
          "              uint lane [[thread_index_in_simdgroup]])\n"                               /* 2 */
          "{\n"                                                                                    /* 3 */
          "    float v = out[gid];\n"                                                              /* 4 */
          "    if (lane % 2 == 0) {\n"                                                             /* 5 */
          "        v = v * 2.0f + 1.0f;\n"                                                         /* 6 */
          "        v = sqrt(v);\n"                                                                 /* 7 */
          "    }\n"                                                                                /* 8 */
          "    if (gid < 100000) v += 1.0f;\n"                                                     /* 9 */
          "    out[gid] = v;\n"                                                                    /* 10 */
          "}\n",
          256, 64);
    expect_silent(&c);
    const CheckProfile *p = check_session_profile(c.s);
    assert_true(p->num_branches >= 2);
    /* the split branch costs the most; it split all 8 SIMD-group executions */
    assert_int_equal(line_of(&c, &(CheckSite){.pc = p->branches[0].pc}), 5);
    assert_int_equal(p->branches[0].executions, 8);
    assert_int_equal(p->branches[0].diverged, 8);
    assert_true(p->branches[0].lanes_idle >= 8 * 16 * 2); /* at least its two body lines */
    for (uint32_t i = 1; i < p->num_branches; i++)
        if (line_of(&c, &(CheckSite){.pc = p->branches[i].pc}) == 9) {
            assert_int_equal(p->branches[i].diverged, 0);
            assert_int_equal(p->branches[i].lanes_idle, 0);
        }
    for (uint32_t i = 1; i < p->num_branches; i++)
        assert_true(p->branches[i - 1].lanes_idle >= p->branches[i].lanes_idle);
    assert_true(p->lane_instructions < p->lane_slots);
    assert_int_equal(p->lane_instructions, c.h.res.lane_instructions);
    done(&c);
}

/* ---- cost --------------------------------------------------------------------------------------- */

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *const k_reduce =
    "kernel void reduce(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                   uint gid [[thread_position_in_grid]],\n"
    "                   uint lid [[thread_position_in_threadgroup]],\n"
    "                   uint tg [[threadgroup_position_in_grid]],\n"
    "                   uint lane [[thread_index_in_simdgroup]],\n"
    "                   uint sg [[simdgroup_index_in_threadgroup]])\n"
    "{\n"
    "    threadgroup float partial[8];\n"
    "    float v = in[gid];\n"
    "    for (uint i = 0; i < 16; i++) v = v * 0.5f + 1.0f;\n"
    "    v = simd_sum(v);\n"
    "    if (lane == 0) partial[sg] = v;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    if (lid < 8) {\n"
    "        float s = partial[lid];\n"
    "        s = simd_sum(s);\n"
    "        if (lid == 0) out[tg] = s;\n"
    "    }\n"
    "}\n";

/* One run of the reduction with the checks of `o` (NULL: none); returns seconds. */
static double timed_run(Harness *h, const CheckOptions *o, uint32_t *findings)
{
    CheckSession *s = NULL;
    h->launch.observers = NULL;
    h->launch.num_observers = 0;
    if (o) {
        s = check_session_new(h->prog, h->dev, NULL, h->bind, o);
        h->launch.observers = check_session_observers(s, &h->launch.num_observers);
    }
    double t0 = seconds();
    h_run(h);
    if (s)
        check_session_finish(s, &h->res, findings);
    double t = seconds() - t0;
    check_session_free(s);
    return t;
}

/* Prints (does not assert) how much slower a reduction runs with the checks on. */
static void test_measure_slowdown(void **state)
{
    (void)state;
    const uint32_t threads = 1 << 16, tg = 256;
    Harness h;
    ch_init(&h, k_reduce, NULL);
    h_buffer(&h, 0, "in", threads * 4, MEM_SPACE_DEVICE);
    h_buffer(&h, 1, "out", threads / tg * 4, MEM_SPACE_DEVICE);
    h_grid(&h, false, threads, 1, 1, tg, 1, 1);
    CheckOptions all = check_options_all(), mine = all, none = {0};
    mine.races = false;
    CheckOptions only[5] = {none, none, none, none, none};
    only[0].barriers = true;
    only[1].simd = true;
    only[2].memory = true;
    only[3].uninit = true;
    only[4].divergence_profile = true;
    const char *names[5] = {"barriers", "simd", "memory", "uninit", "profile"};
    double off = 1e9, t_all = 1e9, t_mine = 1e9, t_only[5] = {1e9, 1e9, 1e9, 1e9, 1e9};
    uint32_t findings = 0, f2 = 0;
    for (int rep = 0; rep < 3; rep++) {
        off = UTIL_MIN(off, timed_run(&h, NULL, NULL));
        t_all = UTIL_MIN(t_all, timed_run(&h, &all, &findings));
        t_mine = UTIL_MIN(t_mine, timed_run(&h, &mine, &f2));
        for (int i = 0; i < 5; i++)
            t_only[i] = UTIL_MIN(t_only[i], timed_run(&h, &only[i], &f2));
    }
    print_message("reduction of %u threads: checks off %.2f ms; every check %.2f ms (%.2fx, %u "
                  "findings); all but races %.2f ms (%.2fx)\n",
                  threads, off * 1e3, t_all * 1e3, t_all / off, findings, t_mine * 1e3,
                  t_mine / off);
    for (int i = 0; i < 5; i++)
        print_message("  only %-8s %.2f ms (%.2fx)\n", names[i], t_only[i] * 1e3, t_only[i] / off);
    assert_int_equal(findings, 0);
    h_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_profile_by_hand),
        cmocka_unit_test(test_profile_runs_off_the_end),
        cmocka_unit_test(test_profile_loop_by_hand),
        cmocka_unit_test(test_profile_metal_kernel),
        cmocka_unit_test(test_measure_slowdown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
