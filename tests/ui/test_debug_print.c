/*
 * test_debug_print.c — what `lockstep debug` shows of values, through --script: watchpoints
 * (the thread and the value of each store to a watched element), SIMD-group matrices (each
 * lane's two elements and the 8 x 8 matrix the lanes hold), and the parts of arrays and
 * structs by their paths (`acc[1][0]`, `p.pos.y`), and variables the compiler optimized out
 * (dead code). Expected values come from the independent references' .npy files and from
 * the kernels, worked out here. The tests run from the repository root and use $LOCKSTEP.
 */
#include <math.h>

#include "debug_harness.h"

/* Element i of a little-endian float32 .npy file (version 1 header), read here. */
static float npy_float(const char *path, uint32_t i)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char head[10];
    assert_int_equal(fread(head, 1, 10, f), 10);
    assert_memory_equal(head, "\x93NUMPY\x01", 7);
    long data = 10 + (head[8] | head[9] << 8);
    float v;
    assert_int_equal(fseek(f, data + 4L * i, SEEK_SET), 0);
    assert_int_equal(fread(&v, 4, 1, f), 1);
    fclose(f);
    return v;
}

/* The value a watch stop printed for `name` (`c[5] = 1.25 by thread ...`). */
static float watched_value(const char *text, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, "%s = ", name);
    const char *at = strstr(text, key);
    assert_non_null(at);
    return strtof(at + strlen(key), NULL);
}

/* Watchpoints: vector_add's c[5] is stored once, by thread 5 (lane 5 of SIMD-group 0), and
 * c[999] by thread 999 (threadgroup 3, SIMD-group 7, lane 7), with the values of the
 * independent reference output; reduce_threadgroup's scratch[0] first holds in[0], then
 * in[0] + in[128] after the first round's add, then that + in[64] + in[192] (exact sums:
 * the inputs are small multiples of 1/16). */
static void test_watch(void **state)
{
    (void)state;
    char *out, want[256];
    int status = debug("kernels/basics/vector_add.yaml", "",
                       "watch c[5]\nwatch c[999]\nc\nc\nc\nbreaks\n", &out);
    if (status != 0)
        fail_msg("exit %d:\n%s", status, out);
    char *s = said(out, "c", 0);
    expect_in(s, "watchpoint 1: ", out);
    expect_in(s, "by thread (5,0,0) (threadgroup (0,0,0), SIMD-group 0, lane 5) at line ", out);
    assert_true(watched_value(s, "c[5]") == npy_float("kernels/basics/vector_add.c.npy", 5));
    free(s);
    s = said(out, "c", 1);
    expect_in(s, "watchpoint 2: ", out);
    snprintf(want, sizeof want, "by thread (999,0,0) (threadgroup (%u,0,0), SIMD-group %u, lane %u)",
             999 / 256, 999 % 256 / 32, 999 % 32);
    expect_in(s, want, out);
    assert_true(watched_value(s, "c[999]") == npy_float("kernels/basics/vector_add.c.npy", 999));
    free(s);
    s = said(out, "breaks", 0);
    expect_in(s, "1: watch c[5], hit 1 times\n2: watch c[999], hit 1 times", out);
    free(s);
    free(out);

    const char *kernel = "kernels/reduce/reduce_threadgroup.metal", *in = "kernels/reduce/reduce.in.npy";
    status = debug("kernels/reduce/reduce_threadgroup.yaml", "", "watch scratch[0]\nc\nc\nc\n", &out);
    if (status != 0)
        fail_msg("exit %d:\n%s", status, out);
    float sums[3] = {npy_float(in, 0), 0, 0};
    sums[1] = sums[0] + npy_float(in, 128);
    sums[2] = sums[1] + (npy_float(in, 64) + npy_float(in, 192));
    uint32_t lines[3] = {line_of(kernel, "scratch[lid] = gid < n ? in[gid] : 0.0f;"),
                         line_of(kernel, "scratch[lid] += scratch[lid + stride];"), 0};
    lines[2] = lines[1];
    for (int k = 0; k < 3; k++) {
        s = said(out, "c", k);
        snprintf(want, sizeof want, "by thread (0,0,0) (threadgroup (0,0,0), SIMD-group 0, lane 0) "
                 "at line %u,", lines[k]);
        expect_in(s, want, out);
        if (watched_value(s, "scratch[0]") != sums[k])
            fail_msg("stop %d: scratch[0] = %g, expected %g:\n%s", k, watched_value(s, "scratch[0]"),
                     sums[k], out);
        free(s);
    }
    free(out);
}

/* Timed (the default): each stop says the cycle its instruction issues at in the timed run,
 * which is what `lockstep trace` records for that SIMD-group's instruction of the same
 * number, and the run's total is `lockstep run --stats`' cycles; --mode functional says
 * nothing of cycles. */
/* print of a SIMD-group matrix: each lane's two elements, and the 8 x 8 matrix the lanes
 * hold together, which at the store of matmul_simdgroup is the top-left block of C (from
 * teach_ref's .npy; the matrix unit's rounding order differs: compared to 1e-5). */
static void test_matrix_print(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(debug("kernels/linalg/matmul_simdgroup.yaml", "",
                           "break 65\ncontinue\nprint acc[0][0]\n", &out), 0);
    const char *C = "kernels/linalg/matmul_simdgroup.C.npy";
    expect_in(out, "acc[0][0] (simdgroup_float8x8, r", out);
    expect_in(out, "as the SIMD-group's 8 x 8 matrix", out);
    for (uint32_t r = 0; r < 8; r++) {
        char key[16];
        snprintf(key, sizeof key, "  row %u:", r);
        const char *line = strstr(out, key);
        if (!line)
            fail_msg("no %s in:\n%s", key, out);
        const char *p = line + strlen(key);
        for (uint32_t c = 0; c < 8; c++) {
            char *end;
            double v = strtod(p, &end);
            if (end == p)
                fail_msg("row %u, column %u: no number in %s", r, c, line);
            double want = npy_float(C, r * 96 + c);
            if (fabs(v - want) > 1e-5 * (1 + fabs(want)))
                fail_msg("row %u, column %u: %g, want %g", r, c, v, want);
            p = end;
        }
    }
    /* lane 1 holds row 0, columns 2 and 3 */
    const char *lanes = strstr(out, "lanes  0-7 :");
    assert_non_null(lanes);
    double e[4];
    const char *p = lanes + strlen("lanes  0-7 :");
    for (int i = 0; i < 4; i++) {
        char *end;
        e[i] = strtod(p, &end);
        assert_true(end != p);
        p = end + (*end == ',');
    }
    assert_true(fabs(e[2] - npy_float(C, 2)) <= 1e-5 && fabs(e[3] - npy_float(C, 3)) <= 1e-5);
    free(out);
    /* a row of the 2 x 2 array: both its parts */
    assert_int_equal(debug("kernels/linalg/matmul_simdgroup.yaml", "",
                           "break 65\ncontinue\nprint acc[1]\n", &out), 0);
    expect_in(out, "acc[1][0] (simdgroup_float8x8", out);
    expect_in(out, "acc[1][1] (simdgroup_float8x8", out);
    assert_null(strstr(out, "acc[0][1] ("));
    free(out);
}

/* A struct's parts are named by their paths (p.pos.y, p.w[1]); `print p.w` prints the parts
 * under it, with each lane's values: pos = (i, 2i), w = {1, 2}. */
static void test_struct_paths(void **state)
{
    (void)state;
    TempKernel k;
    temp_kernel(&k, "st.metal",
                "#include <metal_stdlib>\nusing namespace metal;\n"
                "struct P { float2 pos; float w[2]; };\n"
                "kernel void k(device float *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
                "    P p;\n"
                "    p.pos = float2(i, i * 2);\n"
                "    p.w[0] = 1; p.w[1] = 2;\n"
                "    out[i] = p.pos.x + p.pos.y + p.w[0] + p.w[1];\n"
                "}\n",
                "kernel: st.metal\ngrid: [32]\nthreadgroup: [32]\nargs:\n  out: {count: 32}\n");
    char *out;
    int status = debug(k.manifest, "", "break 8\ncontinue\nprint p.w\nprint p.pos.y\n", &out);
    temp_kernel_remove(&k);
    assert_int_equal(status, 0);
    expect_in(out, "(lockstep) print p.w\np.w[0] (float, r", out);
    expect_in(out, "  lanes 24-31: 1 1 1 1 1 1 1 1\np.w[1] (float, r", out);
    expect_in(out, "  lanes  0-7 : 2 2 2 2 2 2 2 2\n", out);
    expect_in(out, "(lockstep) print p.pos.y\np.pos.y (float, r", out);
    expect_in(out, "  lanes  0-7 : 0 2 4 6 8 10 12 14\n", out);
    free(out);
}

/* Arrays the compiler keeps in thread memory (indexed at run time) print per lane as
 * registers do: `a[3]` is 10 i + 3 in lane i, `m[1]` is m[1][0..2] = 3..5 + i / 2; an index
 * past the end is refused; a program-scope constant array prints as a buffer (it was "no
 * variable ... named" for both). */
static void test_thread_arrays(void **state)
{
    (void)state;
    TempKernel k;
    temp_kernel(&k, "ta.metal",
                "constant float tab[4] = {1.5, 2.5, 3.5, 4.5};\n"
                "kernel void k(device float *out [[buffer(0)]], device const uint *n [[buffer(1)]],\n"
                "              uint i [[thread_position_in_grid]]) {\n"
                "    float a[8];\n"
                "    float m[2][3];\n"
                "    for (uint k = 0; k < 8; k++) a[k] = float(i * 10 + k);\n"
                "    for (uint k = 0; k < 6; k++) m[k / 3][k % 3] = float(k) + 0.5f * float(i);\n"
                "    out[i] = a[n[0] % 8] + m[n[0] % 2][n[0] % 3] + tab[n[0] % 4];\n"
                "}\n",
                "kernel: ta.metal\ngrid: [32]\nthreadgroup: [32]\nargs:\n  out: {count: 32}\n"
                "  n: {value: [3]}\n");
    char *out;
    /* a command that fails ends the script with status 2: the index past the end is last */
    int status = debug(k.manifest, "", "break 8\ncontinue\nprint a[3]\nprint m[1]\nprint a\n"
                       "print tab\nprint tab[2]\nprint a[8]\n", &out);
    temp_kernel_remove(&k);
    assert_int_equal(status, 2);
    char want[512];
    char *s = said(out, "print a[3]", 0);
    expect_in(s, "a[3] (float, thread memory), lanes 0-31 (inactive lanes in parentheses):\n", out);
    for (int l0 = 0; l0 < 32; l0 += 8) {
        int n = snprintf(want, sizeof want, "  lanes %2d-%-2d:", l0, l0 + 7);
        for (int l = l0; l < l0 + 8; l++)
            n += snprintf(want + n, sizeof want - (size_t)n, " %d", 10 * l + 3);
        expect_in(s, want, out);
    }
    free(s);
    s = said(out, "print m[1]", 0);
    for (int j = 0; j < 3; j++) {
        snprintf(want, sizeof want, "m[1][%d] (float, thread memory), lanes 0-31 (inactive lanes "
                 "in parentheses):\n  lanes  0-7 : %g %g %g", j, 3.0 + j, 3.5 + j, 4.0 + j);
        expect_in(s, want, out);
    }
    assert_null(strstr(s, "m[0]"));
    free(s);
    s = said(out, "print a", 0);
    for (int e = 0; e < 8; e++) {
        snprintf(want, sizeof want, "a[%d] (float, thread memory), lanes 0-31 (inactive lanes in "
                 "parentheses):\n  lanes  0-7 : %d %d", e, e, 10 + e);
        expect_in(s, want, out);
    }
    free(s);
    s = said(out, "print a[8]", 0);
    expect_in(s, "`a[8]` is past the end of `a` (8 elements of float)", out);
    free(s);
    s = said(out, "print tab", 0);
    expect_in(s, "tab (float, constant buffer, 4 elements):\n  tab[0]: 1.5 2.5 3.5 4.5", out);
    free(s);
    s = said(out, "print tab[2]", 0);
    expect_in(s, "tab[2]: 3.5", out);
    free(s);
    free(out);
}

/* Tensor types' parts by what they are: a slice's extents and pitch, a cooperative
 * tensor's elements as the kernel indexes them (the seed's 96 x 76 A: the first tile's slice
 * of it has 76 columns and 64 rows). */
static void test_tensor_paths(void **state)
{
    (void)state;
    char *out;
    int status = debug("tests/seed/tensor_matmul_relu.yaml", "",
                       "break 35\ncontinue\nprint sliceA.rows\nprint sliceA\nbreak 41\n"
                       "continue\nprint cooperativeTensor[3]\n", &out);
    assert_int_equal(status, 0);
    expect_in(out, "(lockstep) print sliceA.rows\nsliceA.rows (int, r", out);
    expect_in(out, "  lanes  0-7 : 64 64 64 64 64 64 64 64\n", out);
    expect_in(out, "sliceA.data (device half*, r", out);
    expect_in(out, "sliceA.columns (int, r", out);
    expect_in(out, "  lanes 24-31: 76 76 76 76 76 76 76 76\nsliceA.rows (int, r", out);
    expect_in(out, "  lanes 24-31: 64 64 64 64 64 64 64 64\nsliceA.row_pitch (int, r", out);
    expect_in(out, "(lockstep) print cooperativeTensor[3]\ncooperativeTensor[3] (half, r", out);
    free(out);
}

/* Variables whose instructions the compiler removed as dead code print as optimized out
 * (not the contents of a register that now holds something else); the live part of the same
 * struct prints its values (p.a = 2i). */
static void test_optimized_out(void **state)
{
    (void)state;
    TempKernel k;
    temp_kernel(&k, "d.metal",
                "struct P { float a; float b; };\n"
                "P make(float x) { P p; p.a = x * 2.0f; p.b = sqrt(x) + exp(x); return p; }\n"
                "kernel void k(device float *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
                "    uint unused = i * 7u + 3u;\n"
                "    P p = make(float(i));\n"
                "    out[i] = p.a;\n"
                "}\n",
                "kernel: d.metal\ngrid: [32]\nthreadgroup: [32]\nargs:\n  out: {count: 32}\n");
    char *out;
    int status = debug(k.manifest, "", "break 6\ncontinue\nprint unused\nprint p\nprint p.b\n"
                       "print i\n", &out);
    temp_kernel_remove(&k);
    assert_int_equal(status, 0);
    char *s = said(out, "print unused", 0);
    expect_in(s, "unused (uint): optimized out\n", out);
    free(s);
    s = said(out, "print p", 0);
    expect_in(s, "p.a (float, r", out);
    expect_in(s, "  lanes  0-7 : 0 2 4 6 8 10 12 14\n", out);
    expect_in(s, "p.b (float): optimized out\n", out);
    assert_null(strstr(s, "p.b (float, r"));
    free(s);
    s = said(out, "print p.b", 0);
    expect_in(s, "p.b (float): optimized out\n", out);
    assert_null(strstr(s, "p.a"));
    free(s);
    s = said(out, "print i", 0);
    expect_in(s, "  lanes  8-15: 8 9 10 11 12 13 14 15\n", out);
    free(s);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watch),
        cmocka_unit_test(test_thread_arrays),
        cmocka_unit_test(test_matrix_print),
        cmocka_unit_test(test_struct_paths),
        cmocka_unit_test(test_tensor_paths),
        cmocka_unit_test(test_optimized_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
