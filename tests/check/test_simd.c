/*
 * test_simd.c — SIMD-group functions in divergent code: shuffles and broadcasts whose active
 * lanes read an inactive or missing lane are reported with the reading and the source lane;
 * reductions, prefix operations, ballots, simd_broadcast_first and shuffles that read only
 * active lanes stay silent. Operands MSL leaves undefined (simd-operand): a lane ID past 31
 * (quad: 3), an XOR mask that makes one, a broadcast lane, delta or mask that differs
 * between lanes of the SIMD-group (quad: of the quad); the same operands kept in range and
 * uniform stay silent. A simdgroup matrix multiply needs all 32 lanes: inside an if, or in a
 * partial SIMD-group, it is reported; with every lane active it is silent.
 */
#include "test_util.h"
#include "check_harness.h"



/* ---- shuffles reading inactive lanes -------------------------------------------------------- */

static void test_shuffle_down_reads_inactive_lane(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "kernel void k(device float *out [[buffer(0)]], uint gid [[thread_position_in_grid]],\n" /* 1 */
          "              uint lane [[thread_index_in_simdgroup]])\n"  /* 2 */
          "{\n"                                                        /* 3 */
          "    float v = out[gid];\n"                                  /* 4 */
          "    if (lane < 16) {\n"                                     /* 5 */
          "        v = simd_shuffle_down(v, 1);\n"                     /* 6 */
          "    }\n"                                                    /* 7 */
          "    out[gid] = v;\n"                                        /* 8 */
          "}\n",
          64, 32);
    const CheckFinding *f = find(&c, CHECK_SIMD_DIVERGENCE,
                                 "simd_shuffle_down reads lane 16, which is inactive (its value is undefined)");
    assert_non_null(strstr(f->message, "lane 15 reads it"));
    assert_int_equal(line_of(&c, &f->first), 6);
    assert_int_equal(f->first.thread.lane, 15);
    assert_true(f->second.valid);
    assert_int_equal(f->second.thread.lane, 16);
    assert_int_equal(f->count, 2); /* once per SIMD-group: two threadgroups */
    if (c.n != 1) { dump(&c); fail(); }
    done(&c);
}

static void test_broadcast_from_inactive_lane(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "kernel void k(device uint *out [[buffer(0)]],\n"            /* 1 */
          "              uint lane [[thread_index_in_simdgroup]])\n"   /* 2 */
          "{\n"                                                         /* 3 */
          "    uint v = lane * 3;\n"                                    /* 4 */
          "    if (lane >= 8) {\n"                                      /* 5 */
          "        v = simd_broadcast(v, 2);\n"                         /* 6 */
          "    }\n"                                                     /* 7 */
          "    out[lane] = v;\n"                                        /* 8 */
          "}\n",
          32, 32);
    const CheckFinding *f = find(&c, CHECK_SIMD_DIVERGENCE, "simd_broadcast reads lane 2, which is inactive");
    assert_int_equal(f->first.thread.lane, 8);
    assert_int_equal(f->second.thread.lane, 2);
    assert_int_equal(line_of(&c, &f->first), 6);
    assert_non_null(strstr(f->message, "other lanes"));
    done(&c);
}

static void test_quad_broadcast_from_inactive_lane(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "kernel void k(device uint *out [[buffer(0)]],\n"
          "              uint lane [[thread_index_in_simdgroup]])\n"
          "{\n"
          "    uint v = lane;\n"
          "    if ((lane & 3) != 3) {\n"
          "        v = quad_broadcast(v, 3);\n"
          "    }\n"
          "    out[lane] = v;\n"
          "}\n",
          32, 32);
    const CheckFinding *f = find(&c, CHECK_SIMD_DIVERGENCE, "quad_broadcast reads lane 3, which is inactive");
    assert_int_equal(f->first.thread.lane, 0);
    assert_int_equal(c.n, 1);
    done(&c);
}

/* A partial SIMD-group of 20 threads: lanes 20..31 do not exist. */
static void test_shuffle_reads_missing_lane(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "kernel void k(device float *out [[buffer(0)]],\n"
          "              uint lane [[thread_index_in_simdgroup]])\n"
          "{\n"
          "    out[lane] = simd_shuffle_down(out[lane], 8);\n"
          "}\n",
          20, 20);
    const CheckFinding *f = find(&c, CHECK_SIMD_DIVERGENCE,
                                 "simd_shuffle_down reads lane 20, which does not exist (the SIMD-group has 20 threads)");
    assert_int_equal(f->first.thread.lane, 12);
    assert_false(f->second.valid);
    assert_int_equal(c.n, 1);
    done(&c);
}

/* ---- simdgroup matrices ----------------------------------------------------------------------- */

#define MATRIX_KERNEL(cond)                                                                   \
    "kernel void k(device float *out [[buffer(0)]], uint gid [[thread_position_in_grid]],\n" \
    "              uint lane [[thread_index_in_simdgroup]])\n"       /* 2 */                  \
    "{\n"                                                             /* 3 */                  \
    "    simdgroup_float8x8 m; device float *p = out + gid / 32 * 64;\n" /* 4 */               \
    "    simdgroup_load(m, p);\n"                                     /* 5 */                  \
    "    if (" cond ")\n"                                             /* 6 */                  \
    "        simdgroup_multiply(m, m, m);\n"                          /* 7 */                  \
    "    simdgroup_store(m, p);\n"                                    /* 8 */                  \
    "}\n"

static void test_matrix_multiply_in_divergent_code(void **state)
{
    (void)state;
    Checked c;
    metal(&c, MATRIX_KERNEL("lane != 5"), 64, 64);
    const CheckFinding *f = find(&c, CHECK_SIMD_DIVERGENCE,
                                 "simdgroup matrix multiply with 31 of 32 lanes active: it reads "
                                 "every lane's elements, and lane 5 is inactive");
    assert_int_equal(line_of(&c, &f->first), 7);
    assert_int_equal(f->first.thread.lane, 0);
    assert_true(f->second.valid);
    assert_int_equal(f->second.thread.lane, 5);
    assert_int_equal(f->count, 2); /* both SIMD-groups */
    assert_non_null(strstr(f->fix, "simdgroup matrix call at line 7 together"));
    if (c.n != 1) { dump(&c); fail(); }
    done(&c);
}

static void test_matrix_multiply_in_partial_simdgroup(void **state)
{
    (void)state;
    Checked c;
    metal(&c, MATRIX_KERNEL("lane < 32"), 24, 24);
    const CheckFinding *f = find(&c, CHECK_SIMD_DIVERGENCE,
                                 "simdgroup matrix multiply in a SIMD-group of 24 threads: it "
                                 "reads every lane's elements, and lane 24 does not exist");
    assert_false(f->second.valid);
    done(&c);
}

/* A tensor operation compiles to tmma, which reads every lane as mma32 does: run() in
 * divergent code is reported as the tensor operation it is. */
static void test_tensor_run_in_divergent_code(void **state)
{
    (void)state;
    static const char *const src =
        "using namespace metal; using namespace mpp::tensor_ops;\n"           /* 1 */
        "kernel void k(tensor<device float, dextents<int, 2>> A,\n"           /* 2 */
        "              tensor<device float, dextents<int, 2>> D,\n"           /* 3 */
        "              uint lane [[thread_index_in_simdgroup]]) {\n"          /* 4 */
        "    matmul2d<matmul2d_descriptor(16, 16, 8), execution_simdgroup> op;\n" /* 5 */
        "    if (lane != 5)\n"                                                /* 6 */
        "        op.run(A, A, D);\n"                                          /* 7 */
        "}\n";
    Checked c;
    metal(&c, src, 32, 32);
    const CheckFinding *f = find(&c, CHECK_SIMD_DIVERGENCE,
                                 "tensor operation (matmul2d run) with 31 of 32 lanes active: it "
                                 "reads every lane's elements, and lane 5 is inactive");
    assert_int_equal(line_of(&c, &f->first), 7);
    assert_int_equal(f->second.thread.lane, 5);
    assert_non_null(strstr(f->fix, "every thread of the execution scope must reach the tensor "
                                   "operation at line 7 together"));
    done(&c);
    /* all lanes: silent */
    metal(&c, "using namespace metal; using namespace mpp::tensor_ops;\n"
              "kernel void k(tensor<device float, dextents<int, 2>> A,\n"
              "              tensor<device float, dextents<int, 2>> D) {\n"
              "    matmul2d<matmul2d_descriptor(16, 16, 8), execution_simdgroup> op;\n"
              "    op.run(A, A, D);\n"
              "}\n", 32, 32);
    expect_silent(&c);
    done(&c);
}

/* A tensor operation's execution scope is SIMD-groups 0 to N - 1 of the threadgroup: one of
 * them skipping run(), a threadgroup too small for the scope, and SIMD-groups past it. */
#define SCOPE_KERNEL(n, cond)                                                                \
    "using namespace metal; using namespace mpp::tensor_ops;\n"           /* 1 */           \
    "kernel void k(tensor<device float, dextents<int, 2>> A,\n"           /* 2 */           \
    "              tensor<device float, dextents<int, 2>> D,\n"           /* 3 */           \
    "              uint sg [[simdgroup_index_in_threadgroup]]) {\n"       /* 4 */           \
    "    matmul2d<matmul2d_descriptor(32, 32, 8), execution_simdgroups<" n ">> op;\n"      \
    "    if (" cond ")\n"                                                 /* 6 */           \
    "        op.run(A, A, D);\n"                                          /* 7 */           \
    "}\n"

static void test_tensor_scope(void **state)
{
    (void)state;
    Checked c;
    metal(&c, SCOPE_KERNEL("4", "sg < 2"), 256, 128);
    const CheckFinding *f = find(&c, CHECK_SIMD_DIVERGENCE,
                                 "tensor operation (matmul2d run) with execution_simdgroups<4>: "
                                 "SIMD-group 2 of its scope never ran it where SIMD-group 0 ran "
                                 "it 1 time");
    assert_int_equal(line_of(&c, &f->first), 7);
    assert_int_equal(f->first.thread.simdgroup, 0);
    assert_int_equal(f->second.thread.simdgroup, 2);
    assert_int_equal(f->count, 2); /* once a threadgroup */
    assert_non_null(strstr(f->fix, "SIMD-groups 0 to 3 of the threadgroup are the execution "
                                   "scope: all of them must call the run() at line 7"));
    done(&c);
    metal(&c, SCOPE_KERNEL("4", "true"), 64, 64);
    f = find(&c, CHECK_SIMD_DIVERGENCE, "with execution_simdgroups<4> in a threadgroup of 2 "
                                        "SIMD-groups: SIMD-groups 2 and 3 of its scope do not "
                                        "exist");
    assert_int_equal(f->severity, CHECK_ERROR);
    done(&c);
    metal(&c, SCOPE_KERNEL("2", "true"), 128, 128);
    f = find(&c, CHECK_SIMD_DIVERGENCE, "with execution_simdgroups<2> run by SIMD-group 2 of a "
                                        "threadgroup of 4 SIMD-groups: the scope is SIMD-groups 0 "
                                        "to 1; MPP leaves a run by more undefined");
    assert_int_equal(f->severity, CHECK_WARNING);
    done(&c);
    /* the whole scope, or only SIMD-groups past it skipping (silent: the scope ran it) */
    metal(&c, SCOPE_KERNEL("4", "true"), 256, 128);
    expect_silent(&c);
    done(&c);
    metal(&c, SCOPE_KERNEL("2", "sg < 2"), 128, 128);
    expect_silent(&c);
    done(&c);
}

static void test_matrix_multiply_all_lanes_is_silent(void **state)
{
    (void)state;
    Checked c;
    metal(&c, MATRIX_KERNEL("lane < 32"), 64, 32);
    expect_silent(&c);
    done(&c);
}

/* The lane operand in a uniform with a value known at build time (.uniform). */
static void test_assembly_uniform_lane_operand(void **state)
{
    (void)state;
    Checked c;
    assembly(&c,
             ".kernel k\n"                                  /* 1 */
             ".regs 4\n"                                    /* 2 */
             ".arg out, device, u0\n"                       /* 3 */
             ".uniform u2, 5\n"                             /* 4 */
             "    get_sr r1, thread_index_in_simdgroup\n"   /* 5 */
             "    if_icmp.ult 1, r1, 4\n"                   /* 6 */
             "    shfl r2, r1, u2\n"                        /* 7 */
             "    pop_exec 1\n"                             /* 8 */
             "    shfl_xor r3, r1, 1\n"                     /* 9 */
             "    st_dev.b32 r3, u0, r1\n"                  /* 10 */
             "    stop\n",
             32, 32);
    const CheckFinding *f = find(&c, CHECK_SIMD_DIVERGENCE, "simd_shuffle reads lane 5, which is inactive");
    assert_int_equal(line_of(&c, &f->first), 7);
    assert_int_equal(f->first.thread.lane, 0);
    assert_int_equal(c.n, 1);
    done(&c);
}

/* ---- silence -------------------------------------------------------------------------------- */

static void test_reductions_in_divergent_code_are_silent(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "kernel void k(device float *out [[buffer(0)]], device uint *bits [[buffer(1)]],\n"
          "              uint lane [[thread_index_in_simdgroup]], uint gid [[thread_position_in_grid]])\n"
          "{\n"
          "    float v = out[gid];\n"
          "    if (lane < 12) {\n"
          "        float s = simd_sum(v) + simd_max(v) + simd_prefix_exclusive_sum(v)\n"
          "                  + simd_prefix_inclusive_product(v) + quad_sum(v);\n"
          "        uint b = (uint)(uint64_t)simd_ballot(v > 0.5f);\n"
          "        bool a = simd_all(v > 0.0f) || simd_any(v > 1.0f);\n"
          "        float first = simd_broadcast_first(v);\n"
          "        float x = simd_shuffle_xor(v, 1) + simd_shuffle_up(v, 2);\n"
          "        out[gid] = s + first + x + (a ? 1.0f : 0.0f);\n"
          "        bits[gid] = b;\n"
          "    }\n"
          "    out[gid] += simd_shuffle_down(v, 3) + simd_broadcast(v, 31);\n"
          "}\n",
          64, 64);
    expect_silent(&c);
    done(&c);
}

/* A classic shuffle reduction over full SIMD-groups reads only active lanes. */
static void test_full_shuffle_reduction_is_silent(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "kernel void k(device float *out [[buffer(0)]], uint gid [[thread_position_in_grid]])\n"
          "{\n"
          "    float v = out[gid];\n"
          "    for (ushort d = 16; d > 0; d >>= 1)\n"
          "        v += simd_shuffle_down(v, d);\n"
          "    out[gid] = v;\n"
          "}\n",
          128, 64);
    expect_silent(&c);
    done(&c);
}

/* ---- lane, delta and mask operands ---------------------------------------------------------- */

#define SHUFFLE_KERNEL(EXPR)                                                                  \
    "kernel void k(device uint *out [[buffer(0)]], uint gid [[thread_position_in_grid]],\n"   \
    "              uint lane [[thread_index_in_simdgroup]])\n"                               \
    "{\n"                                                                                      \
    "    uint v = gid * 10u;\n"                                                                \
    "    out[gid] = " EXPR ";\n" /* line 5 */                                                  \
    "}\n"

/* The classic neighbour exchange without a wrap: lane 31 asks for lane 32. */
static void test_shuffle_lane_past_31(void **state)
{
    (void)state;
    Checked c;
    metal(&c, SHUFFLE_KERNEL("simd_shuffle(v, ushort(lane + 1u))"), 64, 64);
    const CheckFinding *f = find(&c, CHECK_SIMD_OPERAND,
                                 "simd_shuffle's lane 32 is not a SIMD lane ID (0 to 31): lane 31 asks for it");
    assert_int_equal(line_of(&c, &f->first), 5);
    assert_int_equal(f->first.thread.lane, 31);
    assert_int_equal(f->first.thread.grid[0], 31);
    assert_false(f->second.valid);
    assert_int_equal(f->count, 2); /* once per SIMD-group */
    assert_non_null(strstr(f->fix, "keep the lane of simd_shuffle at line 5 in 0 to 31"));
    assert_int_equal(c.n, 1);
    done(&c);
    /* wrapped, it is a rotation: silent */
    metal(&c, SHUFFLE_KERNEL("simd_shuffle(v, ushort((lane + 1u) & 31u))"), 64, 64);
    expect_silent(&c);
    done(&c);
}

static void test_xor_mask_and_quad_lane_out_of_range(void **state)
{
    (void)state;
    Checked c;
    metal(&c, SHUFFLE_KERNEL("simd_shuffle_xor(v, ushort(32))"), 32, 32);
    find(&c, CHECK_SIMD_OPERAND, "simd_shuffle_xor's mask 32 takes SIMD lane 0 to SIMD lane 32, which is not a SIMD lane ID (0 to 31)");
    assert_int_equal(c.n, 1);
    done(&c);
    metal(&c, SHUFFLE_KERNEL("quad_shuffle_xor(v, ushort(4))"), 32, 32);
    find(&c, CHECK_SIMD_OPERAND, "quad_shuffle_xor's mask 4 takes quad lane 0 to quad lane 4, which is not a quad lane ID (0 to 3)");
    assert_int_equal(c.n, 1);
    done(&c);
    metal(&c, SHUFFLE_KERNEL("quad_shuffle(v, ushort(lane & 7u))"), 32, 32);
    const CheckFinding *f = find(&c, CHECK_SIMD_OPERAND, "quad_shuffle's lane 4 is not a quad lane ID (0 to 3): lane 4 asks for it");
    assert_non_null(strstr(f->fix, "in 0 to 3"));
    assert_int_equal(c.n, 1);
    done(&c);
    metal(&c, SHUFFLE_KERNEL("quad_shuffle_xor(v, ushort(3)) + simd_shuffle_xor(v, ushort(31))"), 32, 32);
    expect_silent(&c);
    done(&c);
}

static void test_delta_differs_between_lanes(void **state)
{
    (void)state;
    Checked c;
    metal(&c, SHUFFLE_KERNEL("simd_shuffle_down(v, ushort(lane & 1u))"), 32, 32);
    const CheckFinding *f = find(&c, CHECK_SIMD_OPERAND,
                                 "simd_shuffle_down's delta differs between lanes of one SIMD-group (lane 0: 0, lane 1: 1)");
    assert_int_equal(f->first.thread.lane, 0);
    assert_int_equal(f->second.thread.lane, 1);
    assert_non_null(strstr(f->fix, "give simd_shuffle_down at line 5 a delta that is the same in every lane"));
    assert_int_equal(c.n, 1);
    done(&c);
    metal(&c, SHUFFLE_KERNEL("simd_broadcast(v, ushort(lane / 16u))"), 32, 32);
    find(&c, CHECK_SIMD_OPERAND, "simd_broadcast's lane differs between lanes of one SIMD-group (lane 0: 0, lane 16: 1)");
    done(&c);
    /* quad functions need one value per quad only */
    metal(&c, SHUFFLE_KERNEL("quad_broadcast(v, ushort(lane / 4u % 4u)) + quad_shuffle_up(v, ushort(lane / 8u))"), 32, 32);
    expect_silent(&c);
    done(&c);
    metal(&c, SHUFFLE_KERNEL("quad_shuffle_rotate_down(v, ushort(lane / 2u))"), 32, 32);
    find(&c, CHECK_SIMD_OPERAND, "quad_shuffle_rotate_down's delta differs between lanes of one quad (lane 0: 0, lane 2: 1)");
    done(&c);
}

/* Only active lanes' operands count: a lane ID past 31 in a lane that does not run it is
 * not read. */
static void test_inactive_lanes_operands_do_not_count(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "kernel void k(device uint *out [[buffer(0)]], uint gid [[thread_position_in_grid]],\n"
          "              uint lane [[thread_index_in_simdgroup]])\n"
          "{\n"
          "    uint v = gid;\n"
          "    if (lane < 16u)\n"
          "        v = simd_shuffle(v, ushort(lane + 16u)) + simd_shuffle_down(v, ushort(lane < 16u ? 4u : lane));\n"
          "    out[gid] = v;\n"
          "}\n",
          32, 32);
    /* lanes 16-31 are inactive: both shuffles read them */
    find(&c, CHECK_SIMD_DIVERGENCE, "simd_shuffle reads lane 16, which is inactive");
    find(&c, CHECK_SIMD_DIVERGENCE, "simd_shuffle_down reads lane 16, which is inactive");
    assert_int_equal(c.n, 2);
    done(&c);
}

/* ---- shuffle-and-fill ------------------------------------------------------------------------ */

/* A shuffle-and-fill compiles to plain shuffles of computed lanes; findings name the
 * function the kernel called (they named `simd_shuffle`). */
static void test_shuffle_and_fill_named(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "kernel void k(device uint *out [[buffer(0)]], uint gid [[thread_position_in_grid]],\n" /* 1 */
          "              uint lane [[thread_index_in_simdgroup]])\n"     /* 2 */
          "{\n"                                                           /* 3 */
          "    uint v = gid * 10u;\n"                                     /* 4 */
          "    if (lane < 16u)\n"                                         /* 5 */
          "        v = simd_shuffle_and_fill_down(v, 7u, ushort(2));\n"   /* 6 */
          "    half h = half(gid);\n"                                     /* 7 */
          "    if (lane % 4u != 0u)\n"                                    /* 8 */
          "        h = quad_shuffle_and_fill_up(h, half(1), ushort(1));\n" /* 9 */
          "    out[gid] = v + uint(h);\n"                                 /* 10 */
          "}\n",
          32, 32);
    const CheckFinding *f = find(&c, CHECK_SIMD_DIVERGENCE, "simd_shuffle_and_fill_down reads "
                                 "lane 16, which is inactive (its value is undefined): lane 14 reads it");
    assert_int_equal(line_of(&c, &f->first), 6);
    assert_non_null(strstr(f->fix, "call simd_shuffle_and_fill_down at line 6 where every lane"));
    f = find(&c, CHECK_SIMD_DIVERGENCE, "quad_shuffle_and_fill_up reads lane 0, which is "
             "inactive (its value is undefined): lane 1 reads it");
    assert_int_equal(line_of(&c, &f->first), 9);
    assert_int_equal(c.n, 2);
    done(&c);
}

/* The modulo of a shuffle-and-fill, read from a buffer: MSL allows the widths 1, 2, 4, 8, 16
 * and 32 (a quad's: 1, 2 and 4); any other is reported at the call (the compiler refuses
 * such a constant). */
static void run_fill_modulo(Checked *c, const char *fn, uint32_t modulo)
{
    char src[600];
    snprintf(src, sizeof src,
             "kernel void k(device uint *out [[buffer(0)]], device const uint *m [[buffer(1)]],\n"
             "              uint gid [[thread_position_in_grid]]) {\n"
             "    out[gid] = %s(gid, 100u + gid, ushort(1), ushort(m[0]));\n" /* 3 */
             "}\n", fn);
    ch_init(&c->h, src, NULL);
    c->info = NULL;
    bind_all(c, 4096);
    ((uint32_t *)h_data(&c->h, 1))[0] = modulo;
    run_checked(c, 32, 32);
}

static void test_shuffle_and_fill_runtime_modulo(void **state)
{
    (void)state;
    static const char *const fns[] = {"simd_shuffle_and_fill_up", "simd_shuffle_and_fill_down",
                                      "quad_shuffle_and_fill_up", "quad_shuffle_and_fill_down"};
    static const uint32_t simd_ok[] = {1, 2, 4, 8, 16, 32}, quad_ok[] = {1, 2, 4};
    static const uint32_t tried[] = {0, 1, 2, 3, 4, 6, 8, 12, 16, 32, 33, 64, 65535};
    for (size_t f = 0; f < 4; f++) {
        const bool quad = f >= 2;
        for (size_t t = 0; t < sizeof tried / sizeof tried[0]; t++) {
            bool ok = false;
            for (size_t k = 0; k < (quad ? 3u : 6u); k++)
                ok |= tried[t] == (quad ? quad_ok : simd_ok)[k];
            Checked c;
            run_fill_modulo(&c, fns[f], tried[t]);
            if (ok) {
                expect_silent(&c);
            } else {
                char want[200];
                snprintf(want, sizeof want, "%s's modulo %u is not a power of two up to the %s "
                         "lanes (%s): lane 0 gives it, and the result is undefined", fns[f],
                         tried[t], quad ? "quad's 4" : "SIMD-group's 32",
                         quad ? "1, 2 or 4" : "1, 2, 4, 8, 16 or 32");
                const CheckFinding *x = find(&c, CHECK_SIMD_OPERAND, want);
                assert_int_equal(line_of(&c, &x->first), 3);
                assert_int_equal(x->first.thread.lane, 0);
            }
            done(&c);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix_multiply_in_divergent_code),
        cmocka_unit_test(test_matrix_multiply_in_partial_simdgroup),
        cmocka_unit_test(test_matrix_multiply_all_lanes_is_silent),
        cmocka_unit_test(test_tensor_run_in_divergent_code),
        cmocka_unit_test(test_tensor_scope),
        cmocka_unit_test(test_shuffle_down_reads_inactive_lane),
        cmocka_unit_test(test_broadcast_from_inactive_lane),
        cmocka_unit_test(test_quad_broadcast_from_inactive_lane),
        cmocka_unit_test(test_shuffle_reads_missing_lane),
        cmocka_unit_test(test_assembly_uniform_lane_operand),
        cmocka_unit_test(test_reductions_in_divergent_code_are_silent),
        cmocka_unit_test(test_full_shuffle_reduction_is_silent),
        cmocka_unit_test(test_shuffle_lane_past_31),
        cmocka_unit_test(test_xor_mask_and_quad_lane_out_of_range),
        cmocka_unit_test(test_delta_differs_between_lanes),
        cmocka_unit_test(test_inactive_lanes_operands_do_not_count),
        cmocka_unit_test(test_shuffle_and_fill_named),
        cmocka_unit_test(test_shuffle_and_fill_runtime_modulo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
