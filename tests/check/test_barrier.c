/*
 * test_barrier.c — barrier divergence: a threadgroup_barrier skipped by some lanes, reached
 * by SIMD-groups at different barriers or after one ended, and a simdgroup_barrier in
 * divergent code are each reported with their lines and threads, the run ends (no hang),
 * and barriers every thread reaches stay silent.
 */
#include "test_util.h"
#include "check_harness.h"



/* ---- threadgroup_barrier in divergent code ------------------------------------------------- */

static const char *const k_half_barrier =
    "kernel void k(device float *out [[buffer(0)]],\n"              /* 1 */
    "              uint lid [[thread_position_in_threadgroup]])\n"  /* 2 */
    "{\n"                                                            /* 3 */
    "    threadgroup float sh[64];\n"                                /* 4 */
    "    sh[lid] = float(lid);\n"                                    /* 5 */
    "    if (lid < 16) {\n"                                          /* 6 */
    "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"     /* 7 */
    "    }\n"                                                        /* 8 */
    "    out[lid] = sh[lid];\n"                                      /* 9 */
    "}\n";

static void test_barrier_in_if_ends_and_is_reported(void **state)
{
    (void)state;
    Checked c;
    metal(&c, k_half_barrier, 32, 32);
    /* the run ended: every thread stored its value */
    const float *out = h_data(&c.h, 0);
    for (int i = 0; i < 32; i++)
        CH_FEQ(out[i], (float)i, i);
    const CheckFinding *f = find(&c, CHECK_BARRIER_DIVERGENCE,
                                 "threadgroup_barrier reached by 16 of 32 lanes of SIMD-group 0");
    assert_non_null(strstr(f->message, "barrier in divergent code"));
    assert_int_equal(line_of(&c, &f->first), 7);
    assert_int_equal(f->first.thread.simdgroup, 0);
    assert_int_equal(f->first.thread.lane, 16); /* the first lane that skipped it */
    assert_non_null(strstr(f->fix, "move the threadgroup_barrier out of the if at line 6"));
    assert_int_equal(f->severity, CHECK_ERROR);
    assert_int_equal(c.n, 1);
    done(&c);
}

static void test_barrier_in_if_two_simdgroups(void **state)
{
    (void)state;
    Checked c;
    metal(&c, k_half_barrier, 128, 64); /* two threadgroups of two SIMD-groups */
    const CheckFinding *f = find(&c, CHECK_BARRIER_DIVERGENCE, "reached by 16 of 32 lanes");
    assert_int_equal(line_of(&c, &f->first), 7);
    assert_int_equal(f->count, 2); /* SIMD-group 0 of each threadgroup */
    /* No lane of SIMD-group 1 takes the if, so it jumps over the body (the compiler always
     * keeps that jump around a barrier) and ends without ever reaching the barrier. */
    f = find(&c, CHECK_BARRIER_DIVERGENCE,
             "SIMD-group 1 ended without reaching the threadgroup_barrier at line 7");
    assert_int_equal(f->count, 2);
    assert_int_equal(c.n, 2);
    done(&c);
}

/* An early return: SIMD-group 1's lanes all left before the barrier. */
static void test_barrier_after_early_return(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "kernel void k(device float *out [[buffer(0)]],\n"             /* 1 */
          "              uint lid [[thread_position_in_threadgroup]])\n" /* 2 */
          "{\n"                                                           /* 3 */
          "    if (lid >= 40) return;\n"                                  /* 4 */
          "    threadgroup_barrier(mem_flags::mem_none);\n"               /* 5 */
          "    out[lid] = 1.0f;\n"                                        /* 6 */
          "}\n",
          64, 64);
    const CheckFinding *f = find(&c, CHECK_BARRIER_DIVERGENCE,
                                 "threadgroup_barrier reached by 8 of 32 lanes of SIMD-group 1");
    assert_int_equal(line_of(&c, &f->first), 5);
    assert_int_equal(f->first.thread.lane, 8);
    assert_int_equal(f->first.thread.local[0], 40);
    assert_non_null(strstr(f->fix, "line 4"));
    assert_int_equal(c.n, 1);
    done(&c);
}

/* A return in an if before the barrier: the advice is about the return, not the if (which
 * holds only the return); a SIMD-group all of whose lanes returned passes the barrier with
 * none active while the other waits; a threadgroup all of whose threads returned is fine. */
static const char *const k_guarded =
    "kernel void k(device float *out [[buffer(0)]], constant uint &n [[buffer(1)]],\n" /* 1 */
    "              uint lid [[thread_position_in_threadgroup]])\n"                     /* 2 */
    "{\n"                                                                               /* 3 */
    "    if (lid >= n) return;\n"                                                       /* 4 */
    "    threadgroup_barrier(mem_flags::mem_none);\n"                                   /* 5 */
    "    out[lid] = 1.0f;\n"                                                            /* 6 */
    "}\n";

static void run_guarded(Checked *c, uint32_t n)
{
    ch_init(&c->h, k_guarded, NULL);
    c->info = NULL;
    h_buffer(&c->h, 0, "out", 256, MEM_SPACE_DEVICE);
    *(uint32_t *)h_buffer(&c->h, 1, "n", 4, MEM_SPACE_CONSTANT) = n;
    run_checked(c, 64, 64);
}

static void test_early_return_advice_and_whole_simdgroups(void **state)
{
    (void)state;
    Checked c;
    run_guarded(&c, 40);
    const CheckFinding *f = find(&c, CHECK_BARRIER_DIVERGENCE,
                                 "threadgroup_barrier reached by 8 of 32 lanes of SIMD-group 1");
    assert_non_null(strstr(f->fix, "the lanes that skipped it left at line 4 (a return or "
                                   "break before it?)"));
    assert_null(strstr(f->fix, "out of the if"));
    done(&c);
    run_guarded(&c, 32);
    f = find(&c, CHECK_BARRIER_DIVERGENCE, "threadgroup_barrier skipped by all 32 lanes of "
                                           "SIMD-group 1 while others wait at it");
    assert_int_equal(line_of(&c, &f->first), 5);
    assert_int_equal(f->first.thread.simdgroup, 1);
    assert_int_equal(c.n, 1);
    done(&c);
    run_guarded(&c, 0);
    expect_silent(&c);
    done(&c);
}

/* ---- SIMD-groups at different barriers, or ended ------------------------------------------- */

/* Each SIMD-group takes one side of the if; the compiler always jumps over a side holding a
 * barrier when no lane takes it, so the two SIMD-groups wait at different barriers. */
static void test_barriers_in_both_branches(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "kernel void k(device float *out [[buffer(0)]],\n"                 /* 1 */
          "              uint sg [[simdgroup_index_in_threadgroup]],\n"      /* 2 */
          "              uint lid [[thread_position_in_threadgroup]])\n"     /* 3 */
          "{\n"                                                               /* 4 */
          "    if (sg == 0) {\n"                                              /* 5 */
          "        out[lid] = 1.0f;\n"                                        /* 6 */
          "        threadgroup_barrier(mem_flags::mem_device);\n"             /* 7 */
          "    } else {\n"                                                    /* 8 */
          "        out[lid] = 2.0f;\n"                                        /* 9 */
          "        threadgroup_barrier(mem_flags::mem_device);\n"             /* 10 */
          "    }\n"                                                           /* 11 */
          "}\n",
          64, 64);
    const CheckFinding *f = find(&c, CHECK_BARRIER_DIVERGENCE,
                                 "SIMD-groups wait at different barriers: SIMD-group 0 at line 7, "
                                 "SIMD-group 1 at line 10");
    assert_int_equal(line_of(&c, &f->first), 7);
    assert_int_equal(line_of(&c, &f->second), 10);
    assert_int_equal(c.n, 1);
    const float *out = h_data(&c.h, 0);
    CH_FEQ(out[0], 1.0f, 0);
    CH_FEQ(out[40], 2.0f, 40);
    done(&c);
}

/* Code that jumps over a body no lane runs: the SIMD-groups wait at different barriers. */
static void test_simdgroups_at_different_barriers(void **state)
{
    (void)state;
    Checked c;
    assembly(&c,
             ".kernel k\n"                                          /* 1 */
             ".regs 4\n"                                            /* 2 */
             ".arg out, device, u0\n"                               /* 3 */
             "    get_sr r1, simdgroup_index_in_threadgroup\n"      /* 4 */
             "    if_icmp.eq 1, r1, 0\n"                            /* 5 */
             "    jmp_exec_none other\n"                            /* 6 */
             "    barrier.tg\n"                                     /* 7 */
             "other: else_icmp.eq 1, 0, 0\n"                        /* 8 */
             "    jmp_exec_none end\n"                              /* 9 */
             "    barrier.tg\n"                                     /* 10 */
             "end: pop_exec 1\n"                                    /* 11 */
             "    stop\n",                                          /* 12 */
             128, 128);
    const CheckFinding *f = find(&c, CHECK_BARRIER_DIVERGENCE,
                                 "SIMD-groups wait at different barriers: SIMD-group 0 at line 7, "
                                 "SIMD-group 1 at line 10");
    assert_int_equal(line_of(&c, &f->first), 7);
    assert_int_equal(line_of(&c, &f->second), 10);
    assert_int_equal(f->first.thread.simdgroup, 0);
    assert_true(f->second.valid);
    assert_int_equal(f->second.thread.simdgroup, 1);
    assert_int_equal(f->second.thread.local[0], 32);
    /* SIMD-groups 2 and 3 are the same pair of places: folded in */
    assert_int_equal(f->count, 3);
    assert_int_equal(c.n, 1);
    done(&c);
}

static const char *const k_ended =
    ".kernel ended\n"                                       /* 1 */
    ".regs 4\n"                                             /* 2 */
    ".arg out, device, u0\n"                                /* 3 */
    "    get_sr r1, simdgroup_index_in_threadgroup\n"       /* 4 */
    "    get_sr r2, thread_position_in_threadgroup.x\n"     /* 5 */
    "    if_icmp.eq 1, r1, 3\n"                             /* 6 */
    "    jmp_exec_none skip\n"                              /* 7 */
    "    stop\n"                                            /* 8 */
    "skip: pop_exec 1\n"                                    /* 9 */
    "    barrier.tg\n"                                      /* 10 */
    "    st_dev.b32 r2, u0, r2\n"                           /* 11 */
    "    stop\n";                                           /* 12 */

static void test_simdgroup_ended_before_barrier(void **state)
{
    (void)state;
    Checked c;
    assembly(&c, k_ended, 128, 128);
    const CheckFinding *f = find(&c, CHECK_BARRIER_DIVERGENCE,
                                 "SIMD-group 3 ended without reaching the threadgroup_barrier at line 10");
    assert_int_equal(line_of(&c, &f->first), 10);
    assert_true(f->second.valid);
    assert_int_equal(line_of(&c, &f->second), 8);
    assert_int_equal(f->second.thread.simdgroup, 3);
    assert_int_equal(c.n, 1);
    /* the others went on past the barrier */
    const uint32_t *out = h_data(&c.h, 0);
    assert_int_equal(out[95], 95);
    assert_int_equal(out[96], 0);
    done(&c);
}

/* ---- simdgroup_barrier ---------------------------------------------------------------------- */

static void test_simdgroup_barrier_in_divergent_code(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "kernel void k(device float *out [[buffer(0)]],\n"          /* 1 */
          "              uint lane [[thread_index_in_simdgroup]])\n"  /* 2 */
          "{\n"                                                        /* 3 */
          "    if (lane < 4) {\n"                                      /* 4 */
          "        out[lane] = 1.0f;\n"                                /* 5 */
          "        simdgroup_barrier(mem_flags::mem_device);\n"        /* 6 */
          "    }\n"                                                    /* 7 */
          "}\n",
          32, 32);
    const CheckFinding *f = find(&c, CHECK_BARRIER_DIVERGENCE,
                                 "simdgroup_barrier reached by 4 of 32 lanes of SIMD-group 0");
    assert_int_equal(line_of(&c, &f->first), 6);
    assert_non_null(strstr(f->fix, "out of the if at line 4"));
    done(&c);
}

/* A simdgroup_barrier concerns one SIMD-group: one that skips it whole is not divergent. */
static void test_simdgroup_barrier_skipped_by_a_whole_simdgroup(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "kernel void k(device float *out [[buffer(0)]],\n"
          "              uint gid [[thread_position_in_grid]],\n"
          "              uint sg [[simdgroup_index_in_threadgroup]]) {\n"
          "    if (sg == 0) simdgroup_barrier(mem_flags::mem_none);\n"
          "    out[gid] = 1.0f;\n"
          "}\n",
          64, 64);
    expect_silent(&c);
    done(&c);
}

/* ---- silence -------------------------------------------------------------------------------- */

static void test_correct_reduction_is_silent(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "kernel void k(device float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
          "              uint lid [[thread_position_in_threadgroup]],\n"
          "              uint gid [[thread_position_in_grid]],\n"
          "              uint tg [[threadgroup_position_in_grid]])\n"
          "{\n"
          "    threadgroup float sh[128];\n"
          "    sh[lid] = in[gid];\n"
          "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
          "    for (uint s = 64; s > 0; s >>= 1) {\n"
          "        if (lid < s) sh[lid] += sh[lid + s];\n"
          "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"
          "    }\n"
          "    if (lid == 0) out[tg] = sh[0];\n"
          "    simdgroup_barrier(mem_flags::mem_none);\n"
          "}\n",
          512, 128);
    expect_silent(&c);
    done(&c);
}

static void test_partial_simdgroup_is_not_divergent(void **state)
{
    (void)state;
    Checked c;
    /* 48 threads: SIMD-group 1 has 16 lanes, all of which reach the barrier */
    metal(&c,
          "kernel void k(device float *out [[buffer(0)]],\n"
          "              uint lid [[thread_position_in_threadgroup]])\n"
          "{\n"
          "    threadgroup_barrier(mem_flags::mem_none);\n"
          "    out[lid] = 1.0f;\n"
          "}\n",
          48, 48);
    expect_silent(&c);
    done(&c);
}

/* A barrier inside a helper called on both sides of an if: the two SIMD-groups wait at one
 * source line, and the report tells the two calls apart (each site names its call). */
static void test_barrier_in_helper_names_the_calls(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "static void stage(device float *out, uint i, float v)\n"           /* 1 */
          "{\n"                                                               /* 2 */
          "    out[i] = v;\n"                                                 /* 3 */
          "    threadgroup_barrier(mem_flags::mem_device);\n"                 /* 4 */
          "}\n"                                                               /* 5 */
          "static void twice(device float *out, uint i)\n"                    /* 6 */
          "{\n"                                                               /* 7 */
          "    stage(out, i, 3.0f);\n"                                        /* 8 */
          "}\n"                                                               /* 9 */
          "kernel void k(device float *out [[buffer(0)]],\n"                  /* 10 */
          "              uint sg [[simdgroup_index_in_threadgroup]],\n"       /* 11 */
          "              uint lid [[thread_position_in_threadgroup]])\n"      /* 12 */
          "{\n"                                                               /* 13 */
          "    if (sg == 0)\n"                                                /* 14 */
          "        stage(out, lid, 1.0f);\n"                                  /* 15 */
          "    else if (sg == 1)\n"                                           /* 16 */
          "        stage(out, lid, 2.0f);\n"                                  /* 17 */
          "    else\n"                                                        /* 18 */
          "        twice(out, lid);\n"                                        /* 19 */
          "}\n",
          96, 96);
    const CheckFinding *f = find(&c, CHECK_BARRIER_DIVERGENCE,
                                 "SIMD-groups wait at different barriers: SIMD-group 0 at line 4 "
                                 "(in stage, called at line 15), SIMD-group 1 at line 4 (in "
                                 "stage, called at line 17)");
    assert_int_equal(line_of(&c, &f->first), 4);
    assert_int_equal(line_of(&c, &f->second), 4);
    assert_non_null(strstr(f->fix, "the barriers at line 4 (in stage, called at line 15) and "
                                   "line 4 (in stage, called at line 17) are on different paths"));
    /* a helper called from a helper names both calls, innermost first */
    find(&c, CHECK_BARRIER_DIVERGENCE,
         "SIMD-group 0 at line 4 (in stage, called at line 15), SIMD-group 2 at line 4 (in "
         "stage, called at line 8 in twice, called at line 19)");
    assert_int_equal(c.n, 2);
    done(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_barrier_in_if_ends_and_is_reported),
        cmocka_unit_test(test_barrier_in_if_two_simdgroups),
        cmocka_unit_test(test_barrier_after_early_return),
        cmocka_unit_test(test_early_return_advice_and_whole_simdgroups),
        cmocka_unit_test(test_simdgroup_barrier_skipped_by_a_whole_simdgroup),
        cmocka_unit_test(test_barriers_in_both_branches),
        cmocka_unit_test(test_barrier_in_helper_names_the_calls),
        cmocka_unit_test(test_simdgroups_at_different_barriers),
        cmocka_unit_test(test_simdgroup_ended_before_barrier),
        cmocka_unit_test(test_simdgroup_barrier_in_divergent_code),
        cmocka_unit_test(test_correct_reduction_is_silent),
        cmocka_unit_test(test_partial_simdgroup_is_not_divergent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
