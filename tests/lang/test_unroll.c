/*
 * test_unroll.c — full unrolling of small counted loops (lang/codegen_unroll.c): every
 * counting shape it accepts (<, <=, >, >=, != with ++, --, += and -= of a constant, signed
 * and unsigned counters) leaves no loop in the program and computes what C computes, and so
 * does a nest of them; every loop it must leave alone keeps its exec-mask loop (an outer
 * loop around one that does not unroll, or too big a nest), as does a loop after `#pragma
 * nounroll` and its equivalents; unrolled loops inside divergent code run only for the lanes
 * that reach them; barriers in an unrolled body stay in order, each with its own source
 * line. Arrays indexed only by constants and unrolled counters stay in registers (no stack
 * access) and compute what C computes; an index known only at run time, anywhere, puts the
 * array in thread memory.
 *
 * Expected values come from the same loops written in C in the test.
 */
#include "construct_harness.h"

enum { N = 96 };

static uint32_t input(uint32_t i) { return (i * 2654435761u) >> 7; }

/* ---- what is unrolled ---------------------------------------------------------------------- */

static const char *shapes_src =
    "kernel void k(device const uint *in [[buffer(0)]], device uint *out [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "    uint a = in[i];\n"
    "    for (uint k = 0; k < 8; k++) a += in[(i + k) % 96] * k;\n"
    "    for (int k = 10; k >= 0; k -= 3) a = a * 3u + uint(k);\n"
    "    for (uint k = 1; k <= 16; k += 5) a ^= k << 2;\n"
    "    for (int k = 7; k != 0; --k) a += uint(k) & i;\n"
    "    for (uint k = 3; k > 0; k--) a -= k * i;\n"
    "    out[i] = a;\n"
    "}\n";

static uint32_t shapes_ref(const uint32_t *in, uint32_t i)
{
    uint32_t a = in[i];
    for (uint32_t k = 0; k < 8; k++)
        a += in[(i + k) % 96] * k;
    for (int k = 10; k >= 0; k -= 3)
        a = a * 3u + (uint32_t)k;
    for (uint32_t k = 1; k <= 16; k += 5)
        a ^= k << 2;
    for (int k = 7; k != 0; --k)
        a += (uint32_t)k & i;
    for (uint32_t k = 3; k > 0; k--)
        a -= k * i;
    return a;
}

static void test_every_counting_shape(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, shapes_src, NULL);
    CH_EXPECT(h.prog, ch_count(h.prog, ISA_OP_PUSH_EXEC) == 0);
    CH_EXPECT(h.prog, ch_count(h.prog, ISA_OP_JMP_EXEC_ANY) == 0);
    CH_EXPECT(h.prog, ch_count(h.prog, ISA_OP_WHILE_ICMP) == 0);
    uint32_t *in = ch_buf(&h, 0, N * 4);
    uint32_t *out = ch_buf(&h, 1, N * 4);
    for (uint32_t i = 0; i < N; i++)
        in[i] = input(i);
    ch_run(&h, N, 32);
    for (uint32_t i = 0; i < N; i++)
        CH_IEQ(out[i], shapes_ref(in, i), i);
    h_free(&h);
}

/* ---- what is left alone -------------------------------------------------------------------- */

/* Compiles a kernel whose body is `body` and expects exactly `loops` exec-mask loops. */
static void expect_loops(const char *body, int loops)
{
    char src[2048];
    snprintf(src, sizeof src,
             "uint twice(uint x) { return 2 * x; }\n"
             "uint sum_to(uint x) { uint s = 0; for (uint j = 0; j < x; j++) s += j; "
             "return s; }\n"
             "kernel void k(device uint *out [[buffer(0)]], constant uint &n [[buffer(1)]],\n"
             "              uint i [[thread_position_in_grid]]) {\n"
             "    uint a = i;\n"
             "%s\n"
             "    out[i] = a;\n"
             "}\n",
             body);
    IsaProgram *p = ch_compile(src, NULL);
    if (ch_count(p, ISA_OP_JMP_EXEC_ANY) != loops) {
        ch_dump(p);
        fail_msg("%d loops, want %d, in:\n%s", ch_count(p, ISA_OP_JMP_EXEC_ANY), loops, body);
    }
    isa_program_free(p);
}

static void test_loops_left_alone(void **state)
{
    (void)state;
    /* the limits: 32 steps are unrolled, 33 are not */
    expect_loops("    for (uint k = 0; k < 32; k++) a += k;", 0);
    expect_loops("    for (uint k = 0; k < 33; k++) a += k;", 1);
    /* a bound or start known only at run time */
    expect_loops("    for (uint k = 0; k < n; k++) a += k;", 1);
    expect_loops("    for (uint k = n; k < 8; k++) a += k;", 1);
    /* leaving early, or changing the counter */
    expect_loops("    for (uint k = 0; k < 8; k++) { if (a > 5) break; a += k; }", 1);
    expect_loops("    for (uint k = 0; k < 8; k++) { if (a > 5) continue; a += k; }", 1);
    expect_loops("    for (uint k = 0; k < 8; k++) { if (a > 50) return; a += k; }", 1);
    expect_loops("    for (uint k = 0; k < 8; k++) { a += k; k += a & 1; }", 1);
    expect_loops("    for (uint k = 0; k < 8; k++) { thread uint *p = &k; a += *p; }", 1);
    /* a counter declared outside the loop is still live after it */
    expect_loops("    uint k;\n    for (k = 0; k < 8; k++) a += k;\n    a += k;", 1);
    /* a call of a function with a loop (inlined, the loop copied per step) and a local that
     * lives in memory would be copied per step; a small function without loops is fine */
    expect_loops("    for (uint k = 0; k < 8; k++) a += sum_to(k);", 2);
    expect_loops("    for (uint k = 0; k < 8; k++) a += twice(k);", 0);
    /* the bound: a local never written after a constant initializer, but not one that is */
    expect_loops("    uint m = 8;\n    for (uint k = 0; k < m; k++) a += k;", 0);
    expect_loops("    uint m = 8;\n    m += a & 1;\n    for (uint k = 0; k < m; k++) a += k;", 1);
    expect_loops("    uint m = 8;\n    thread uint *pm = &m;\n    *pm = a;\n"
                 "    for (uint k = 0; k < m; k++) a += k;", 1);
    expect_loops("    for (uint k = 0; k < 8; k++) { uint t[80]; t[a % 80] = k; a += t[k]; }", 1);
    /* a condition not on the counter itself, and a loop that never runs */
    expect_loops("    for (uint k = 0; k + 1 < 8; k++) a += k;", 1);
    expect_loops("    for (uint k = 0; k < 0; k++) a += k;", 1);
    /* a nest unrolls whole when every loop in it does and it stays small; an outer loop
     * around one that does not unroll is kept, and so is a nest too big in all */
    expect_loops("    for (uint j = 0; j < 8; j++) for (uint k = 0; k < 4; k++) a += j * k;", 0);
    expect_loops("    for (uint j = 0; j < 8; j++) { uint k = 0; while (k < j) k++; a += k; }", 2);
    expect_loops("    for (uint j = 0; j < 9; j++) for (uint k = 0; k < 200; k++) a += j * k;", 2);
    expect_loops("    for (uint j = 0; j < 32; j++) for (uint k = 0; k < 32; k++) a += j * k;", 1);
    /* an inner loop that writes the outer counter: the inner one unrolls, the outer stays */
    expect_loops("    for (uint j = 0; j < 4; j++) for (uint k = 0; k < 4; k++) { a += j; j += a & 1; }",
                 1);
}

/* ---- arrays in registers ------------------------------------------------------------------- */

#define ARRAYS_SRC \
    "kernel void k(device const uint *in [[buffer(0)]], device uint *out [[buffer(1)]],\n" \
    "              uint i [[thread_position_in_grid]]) {\n" \
    "    uint acc[2][3], v[4];\n" \
    "    for (uint r = 0; r < 2; r++)\n" \
    "        for (uint c = 0; c < 3; c++)\n" \
    "            acc[r][c] = r * 10 + c;\n" \
    "    for (uint k = 0; k < 4; k++) v[k] = in[(i + k) %% 96];\n" \
    "    for (uint r = 0; r < 2; r++)\n" \
    "        for (uint c = 0; c < 3; c++)\n" \
    "            acc[r][c] += v[(r + c) & 3] * v[3 - c] + uint4(1, 2, 3, 4)[c + 1];\n" \
    "    uint a = 0;\n" \
    "    for (int r = 1; r >= 0; r--) for (uint c = 0; c < 3; c++) a = a * 7u + acc[r][c];\n" \
    "    out[i] = a%s;\n" \
    "}\n"

static uint32_t arrays_ref(const uint32_t *in, uint32_t i, bool dyn)
{
    uint32_t acc[2][3], v[4], four[4] = {1, 2, 3, 4};
    for (uint32_t r = 0; r < 2; r++)
        for (uint32_t c = 0; c < 3; c++)
            acc[r][c] = r * 10 + c;
    for (uint32_t k = 0; k < 4; k++)
        v[k] = in[(i + k) % 96];
    for (uint32_t r = 0; r < 2; r++)
        for (uint32_t c = 0; c < 3; c++)
            acc[r][c] += v[(r + c) & 3] * v[3 - c] + four[c + 1];
    uint32_t a = 0;
    for (int r = 1; r >= 0; r--)
        for (uint32_t c = 0; c < 3; c++)
            a = a * 7u + acc[r][c];
    return a + (dyn ? v[i % 4] : 0);
}

/* A helper called in an unrolled loop (its returns its own, inlined per step), with the
 * bound in a local, and an array the helper's result indexes into: computed as C does. */
static uint32_t bump(uint32_t x, uint32_t k)
{
    if (x > 100u)
        return x - k;
    return x + k * 3u;
}

static void test_calls_in_unrolled_loops(void **state)
{
    (void)state;
    const char *src =
        "uint bump(uint x, uint k) { if (x > 100u) return x - k; return x + k * 3u; }\n"
        "kernel void k(device const uint *in [[buffer(0)]], device uint *out [[buffer(1)]],\n"
        "              uint i [[thread_position_in_grid]]) {\n"
        "    uint a = in[i];\n"
        "    uint v[6];\n"
        "    auto m = 6;\n"
        "    for (int k = 0; k < m; k++) {\n"
        "        a = bump(a, (uint)k);\n"
        "        v[k] = a;\n"
        "    }\n"
        "    for (int k = 0; k < 6; k++) a += v[k] * (uint)k;\n"
        "    out[i] = a;\n"
        "}\n";
    Harness h;
    ch_init(&h, src, NULL);
    CH_EXPECT(h.prog, ch_count(h.prog, ISA_OP_JMP_EXEC_ANY) == 0);
    CH_EXPECT(h.prog, h.prog->stack_bytes == 0); /* v stays in registers */
    uint32_t *in = ch_buf(&h, 0, N * 4);
    uint32_t *out = ch_buf(&h, 1, N * 4);
    for (uint32_t i = 0; i < N; i++)
        in[i] = input(i) % 200u;
    ch_run(&h, N, 32);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t a = in[i], v[6];
        for (uint32_t k = 0; k < 6; k++)
            v[k] = a = bump(a, k);
        for (uint32_t k = 0; k < 6; k++)
            a += v[k] * k;
        CH_IEQ(out[i], a, i);
    }
    h_free(&h);
}

/* Locals known constant through conversions that change their value (bool, uchar): the
 * converted value bounds the loop and indexes the vector; and a constant local index out
 * of range in code no lane runs compiles (review of d973bf5). */
static void test_constant_locals_converted(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device const uint *in [[buffer(0)]], device int *out [[buffer(1)]],\n"
        "              uint i [[thread_position_in_grid]]) {\n"
        "    int d = 2;   bool m = d;\n"              /* m is 1 */
        "    int a = 0;   for (int k = 0; k < m; k++) a += 1;\n"
        "    int c = 290; uchar n = c;\n"             /* n is 34 */
        "    int b = 0;   for (int k = 300; k > n; k--) b += 1;\n"
        "    int idx = m;\n"
        "    int4 v = int4(10, 11, 12, 13) + int(in[i]);\n"
        "    int w[4] = {20, 21, 22, 23};\n"
        "    w[0] += int(in[i]);\n"
        "    int four = 4, r = 0;\n"
        "    if (four < 4) r = v[four] + w[four];\n"  /* never runs */
        "    int e = 257; uchar one = e;\n"
        "    out[i] = a * 100000 + b * 100 + v[idx] + v[one] + w[one] + r;\n"
        "}\n";
    Harness h;
    ch_init(&h, src, NULL);
    uint32_t *in = ch_buf(&h, 0, N * 4);
    int32_t *out = ch_buf(&h, 1, N * 4);
    for (uint32_t i = 0; i < N; i++)
        in[i] = input(i) % 50u;
    ch_run(&h, N, 32);
    for (uint32_t i = 0; i < N; i++)
        CH_IEQ(out[i], 1 * 100000 + 266 * 100 + (11 + (int)in[i]) * 2 + 21, i);
    h_free(&h);
}

static void test_arrays_in_registers(void **state)
{
    (void)state;
    for (int dyn = 0; dyn < 2; dyn++) {
        char src[2048];
        snprintf(src, sizeof src, ARRAYS_SRC, dyn ? " + v[i % 4]" : "");
        Harness h;
        ch_init(&h, src, NULL);
        CH_EXPECT(h.prog, ch_count(h.prog, ISA_OP_JMP_EXEC_ANY) == 0);
        /* v indexed at run time (dyn) lives in thread memory; acc stays in registers */
        CH_EXPECT(h.prog, (ch_count(h.prog, ISA_OP_ST_STACK) > 0) == dyn);
        CH_EXPECT(h.prog, h.prog->stack_bytes == (dyn ? 16u : 0u));
        uint32_t *in = ch_buf(&h, 0, N * 4);
        uint32_t *out = ch_buf(&h, 1, N * 4);
        for (uint32_t i = 0; i < N; i++)
            in[i] = input(i);
        ch_run(&h, N, 32);
        for (uint32_t i = 0; i < N; i++)
            CH_IEQ(out[i], arrays_ref(in, i, dyn), i);
        h_free(&h);
    }
    /* an index out of range at some step, in code no lane runs there (`if (k > 0)`): the
     * array goes to memory and the kernel computes what C does; / and % of counters fold */
    Harness h;
    ch_init(&h, "kernel void k(device uint *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
                "    uint v[4], w[2][2];\n"
                "    for (int k = 0; k < 4; k++) v[k] = i + uint(k);\n"
                "    for (int k = 0; k < 4; k++) { if (k > 0) v[k] += v[k - 1]; }\n"
                "    for (uint k = 0; k < 4; k++) w[k / 2][k % 2] = v[k] * 2;\n"
                "    out[i] = w[0][0] + w[0][1] * 10 + w[1][0] * 100 + w[1][1] * 1000;\n}\n", NULL);
    CH_EXPECT(h.prog, h.prog->stack_bytes == 16); /* v only */
    uint32_t *out = ch_buf(&h, 0, N * 4);
    ch_run(&h, N, 32);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t v[4];
        for (uint32_t k = 0; k < 4; k++)
            v[k] = i + k + (k ? v[k - 1] : 0);
        CH_IEQ(out[i], 2 * v[0] + 20 * v[1] + 200 * v[2] + 2000 * v[3], i);
    }
    h_free(&h);
    /* an index from a loop that does not unroll (33 steps) puts the array in memory */
    IsaProgram *p = ch_compile("kernel void k(device uint *out [[buffer(0)]]) {\n"
                               "    uint t[4];\n"
                               "    for (uint k = 0; k < 4; k++) t[k] = k;\n"
                               "    uint a = 0;\n"
                               "    for (uint k = 0; k < 33; k++) a += t[k & 3];\n"
                               "    out[0] = a;\n}\n", NULL);
    CH_EXPECT(p, p->stack_bytes == 16);
    isa_program_free(p);
}

/* The loop pragmas that say "do not unroll" keep the next loop as written; any other pragma,
 * and a "do not unroll" before something else, changes nothing. */
static void test_nounroll_pragmas(void **state)
{
    (void)state;
    const char *loop = "    for (uint k = 0; k < 8; k++) a += k;";
    static const char *const keep[] = {
        "#pragma nounroll", "#pragma unroll 1", "  #pragma unroll(1)",
        "#pragma clang loop unroll(disable)", "#pragma clang loop unroll_count( 1 )",
        "    _Pragma(\"nounroll\")", "    _Pragma(\"clang loop unroll(disable)\")",
    };
    static const char *const ignored[] = {
        "#pragma unroll", "#pragma unroll(4)", "#pragma clang loop unroll(enable)",
        "#pragma unroll 1 2", "    _Pragma(\"unroll\")",
    };
    char body[512];
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        snprintf(body, sizeof body, "%s\n%s\n%s", keep[i], loop, loop);
        expect_loops(body, 1); /* the first loop only */
    }
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++) {
        snprintf(body, sizeof body, "%s\n%s", ignored[i], loop);
        expect_loops(body, 0);
    }
    /* for the next statement only, and through a macro that expands to the loop */
    snprintf(body, sizeof body, "#pragma nounroll\n    a += 1;\n%s", loop);
    expect_loops(body, 0);
    expect_loops("#define EACH(k, n) for (uint k = 0; k < n; k++)\n"
                 "#pragma nounroll\n    EACH(j, 4) a += j;", 1);
}

/* ---- divergence and barriers ------------------------------------------------------------- */

/* An unrolled loop inside an if runs for the lanes that took it, and an if inside an
 * unrolled body still masks per lane. */
static void test_unrolled_in_divergent_code(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device uint *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
        "    uint a = out[i];\n"
        "    if (i % 3 == 1) {\n"
        "        for (uint k = 0; k < 4; k++)\n"
        "            a += k + 1;\n"
        "    }\n"
        "    for (uint k = 0; k < 6; k++)\n"
        "        if ((i + k) % 2 == 0)\n"
        "            a = a * 5 + k;\n"
        "    out[i] = a;\n"
        "}\n";
    Harness h;
    ch_init(&h, src, NULL);
    CH_EXPECT(h.prog, ch_count(h.prog, ISA_OP_JMP_EXEC_ANY) == 0);
    uint32_t *out = ch_buf(&h, 0, N * 4);
    for (uint32_t i = 0; i < N; i++)
        out[i] = input(i);
    ch_run(&h, N, 32);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t a = input(i);
        if (i % 3 == 1)
            a += 1 + 2 + 3 + 4;
        for (uint32_t k = 0; k < 6; k++)
            if ((i + k) % 2 == 0)
                a = a * 5 + k;
        CH_IEQ(out[i], a, i);
    }
    h_free(&h);
}

/* Four steps of a rotate through threadgroup memory, two barriers each: eight barriers in
 * program order, on their two source lines in turn, and the values of four rotations. */
static void test_barriers_in_unrolled_body(void **state)
{
    (void)state;
    const char *src =
        "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
        "              uint t [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup float s[64];\n"
        "    float v = in[t];\n"
        "    for (uint k = 0; k < 4; k++) {\n"
        "        s[t] = v;\n"
        "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"   /* line 7 */
        "        v = s[(t + 1) % 64] + float(k);\n"
        "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"   /* line 9 */
        "    }\n"
        "    out[t] = v;\n"
        "}\n";
    Harness h;
    ch_init(&h, src, NULL);
    const IsaProgram *p = h.prog;
    CH_EXPECT(p, ch_count(p, ISA_OP_BARRIER) == 8);
    CH_EXPECT(p, ch_count(p, ISA_OP_JMP_EXEC_ANY) == 0);
    int seen = 0;
    for (int i = ch_find(p, ISA_OP_BARRIER, 0); i >= 0; i = ch_find(p, ISA_OP_BARRIER, i + 1))
        CH_EXPECT(p, p->locs[i].line == (seen++ % 2 ? 9u : 7u));
    float *in = ch_buf(&h, 0, 64 * 4);
    float *out = ch_buf(&h, 1, 64 * 4);
    for (uint32_t t = 0; t < 64; t++)
        in[t] = (float)t * 0.5f;
    ch_run(&h, 64, 64);
    for (uint32_t t = 0; t < 64; t++) {
        float v[64], next[64];
        for (uint32_t j = 0; j < 64; j++)
            v[j] = (float)j * 0.5f;
        for (uint32_t k = 0; k < 4; k++) {
            for (uint32_t j = 0; j < 64; j++)
                next[j] = v[(j + 1) % 64] + (float)k;
            memcpy(v, next, sizeof v);
        }
        CH_FEQ(out[t], v[t], t);
    }
    h_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_counting_shape),
        cmocka_unit_test(test_loops_left_alone),
        cmocka_unit_test(test_calls_in_unrolled_loops),
        cmocka_unit_test(test_arrays_in_registers),
        cmocka_unit_test(test_constant_locals_converted),
        cmocka_unit_test(test_nounroll_pragmas),
        cmocka_unit_test(test_unrolled_in_divergent_code),
        cmocka_unit_test(test_barriers_in_unrolled_body),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
