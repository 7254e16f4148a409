/*
 * test_constant_data.c — program-scope constant arrays through the whole compiler: they
 * live in the program's constant data (a read-only buffer the launch binds), so a run-time
 * index, a pointer into one, pointer arithmetic (one past the end, then back), a helper
 * taking `constant float *`, 2-D arrays, arrays of structs and of narrow types all read
 * the values written in the source; constant indices fold to the values; no thread copies
 * anything to its stack; an index past an array faults naming the array, even where the
 * next array's bytes lie. Expected values come from the same tables in C.
 */
#include "construct_harness.h"

static const float k_tab[4] = {1, 2, 3, 4};
static const int k_other[3] = {10, 20, 30};

/* The kernel of the report: a pointer into `tab` read at a negative index (it faulted at
 * a device address of no buffer, since the array was on the stack and the pointer used as
 * a constant address), `tab + 4` read back, `tab` passed to a helper, and a run-time index. */
static void test_pointers_into_a_constant_array(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "constant float tab[4] = {1, 2, 3, 4};\n"
            "constant int other[3] = {10, 20, 30};\n"
            "float get(constant float *p, uint k) { return p[k]; }\n"
            "kernel void k(device float *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
            "    constant const float *t = &tab[3];\n"
            "    constant const float *e = tab + 4;\n"
            "    out[4 * i] = t[-1];\n"
            "    out[4 * i + 1] = e[-1 - int(i % 4)];\n"
            "    out[4 * i + 2] = get(tab, i % 4) + float(other[i % 3]);\n"
            "    out[4 * i + 3] = float(e - t) + (t < e ? 100.0f : 0.0f);\n"
            "}\n",
            NULL);
    CH_EXPECT(h.prog, h.prog->stack_bytes == 0 && !ch_has(h.prog, ISA_OP_ST_STACK));
    CH_EXPECT(h.prog, h.prog->data_bytes >= 16 + 12);
    float *o = ch_buf(&h, 0, 4 * 64 * sizeof(float));
    ch_run(&h, 64, 32);
    for (int i = 0; i < 64; i++) {
        CH_FEQ(o[4 * i], k_tab[2], 4 * i);
        CH_FEQ(o[4 * i + 1], k_tab[3 - i % 4], 4 * i + 1);
        CH_FEQ(o[4 * i + 2], k_tab[i % 4] + (float)k_other[i % 3], 4 * i + 2);
        CH_FEQ(o[4 * i + 3], 1.0f + 100.0f, 4 * i + 3);
    }
    h_free(&h);
}

/* 2-D arrays, structs, half, char and short elements: the bytes laid out as C lays them. */
static void test_layouts_of_constant_arrays(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "struct P { int a; float b; };\n"
            "constant int m[2][3] = {{1, 2, 3}, {4, 5, 6}};\n"
            "constant P ps[3] = {{7, 0.5f}, {8, 1.5f}, {9, 2.5f}};\n"
            "constant half hs[5] = {0.25h, -1.0h, 2.0h, 3.5h, 65504.0h};\n"
            "constant char cs[3] = {-5, 6, -7};\n"
            "constant short ss[3] = {-300, 301, -302};\n"
            "kernel void k(device float *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
            "    out[6 * i] = float(m[i % 2][i % 3]);\n"
            "    out[6 * i + 1] = float(ps[i % 3].a) + ps[i % 3].b;\n"
            "    out[6 * i + 2] = float(hs[i % 5]);\n"
            "    out[6 * i + 3] = float(cs[i % 3]);\n"
            "    out[6 * i + 4] = float(ss[i % 3]);\n"
            "    constant const P *q = &ps[1];\n"
            "    out[6 * i + 5] = q[int(i % 2) - 1].b;\n"
            "}\n",
            NULL);
    CH_EXPECT(h.prog, h.prog->stack_bytes == 0);
    float *o = ch_buf(&h, 0, 6 * 32 * sizeof(float));
    ch_run(&h, 32, 32);
    const int m[2][3] = {{1, 2, 3}, {4, 5, 6}};
    const int pa[3] = {7, 8, 9};
    const float pb[3] = {0.5f, 1.5f, 2.5f}, hs[5] = {0.25f, -1.0f, 2.0f, 3.5f, 65504.0f};
    const int cs[3] = {-5, 6, -7}, ss[3] = {-300, 301, -302};
    for (int i = 0; i < 32; i++) {
        CH_FEQ(o[6 * i], (float)m[i % 2][i % 3], 6 * i);
        CH_FEQ(o[6 * i + 1], (float)pa[i % 3] + pb[i % 3], 6 * i + 1);
        CH_FEQ(o[6 * i + 2], hs[i % 5], 6 * i + 2);
        CH_FEQ(o[6 * i + 3], (float)cs[i % 3], 6 * i + 3);
        CH_FEQ(o[6 * i + 4], (float)ss[i % 3], 6 * i + 4);
        CH_FEQ(o[6 * i + 5], pb[i % 2], 6 * i + 5);
    }
    h_free(&h);
}

/* Reads at constant indices (an unrolled loop over a table) are the values themselves: no
 * load, no stack. */
static void test_constant_indices_fold(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "constant float w[4] = {0.5f, -2.0f, 4.0f, 8.0f};\n"
            "kernel void k(device float *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
            "    float s = 0.0f;\n"
            "    for (int k = 0; k < 4; k++) s += w[k] * float(i + k);\n"
            "    out[i] = s;\n"
            "}\n",
            NULL);
    CH_EXPECT(h.prog, !ch_has(h.prog, ISA_OP_LD_CONST) && !ch_has(h.prog, ISA_OP_ST_STACK));
    float *o = ch_buf(&h, 0, 32 * sizeof(float));
    ch_run(&h, 32, 32);
    const float w[4] = {0.5f, -2.0f, 4.0f, 8.0f};
    for (int i = 0; i < 32; i++) {
        float s = 0.0f;
        for (int k = 0; k < 4; k++)
            s += w[k] * (float)(i + k);
        CH_FEQ(o[i], s, i);
    }
    h_free(&h);
}

/* An index past `tab` is out of bounds of tab (offset 16 of 16 bytes), though `other`'s
 * bytes follow in the constant data; the lanes inside read their values. */
static void test_index_past_a_constant_array_faults(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "constant float tab[4] = {1, 2, 3, 4};\n"
            "constant float other[4] = {5, 6, 7, 8};\n"
            "kernel void k(device float *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
            "    out[i] = tab[i] + other[0] * other[i % 4];\n"
            "}\n",
            NULL);
    float *o = ch_buf(&h, 0, 8 * sizeof(float));
    h_run1(&h, 8, 8);
    assert_int_equal(h.res.total_faults, 4); /* lanes 4..7 */
    const SimFault *f = &h.res.faults[0];
    assert_int_equal(f->kind, SIM_FAULT_OUT_OF_BOUNDS);
    assert_int_equal(f->space, MEM_SPACE_CONSTANT);
    assert_string_equal(f->buffer, "tab");
    assert_int_equal(f->offset, 16);
    assert_int_equal(f->valid_bytes, 16);
    assert_int_equal(f->thread.grid[0], 4);
    for (int i = 0; i < 4; i++)
        CH_FEQ(o[i], k_tab[i] + 5.0f * (5.0f + (float)i), i);
    h_free(&h);
}

/* A launch that binds no buffer for the constant data is refused, not run against address 0. */
static void test_unbound_constant_data_is_refused(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "constant float tab[2] = {1, 2};\n"
            "kernel void k(device float *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
            "    out[i] = tab[i % 2];\n"
            "}\n",
            NULL);
    ch_buf(&h, 0, 64);
    SimLaunch L = {.program = h.prog, .device = h.dev, .bindings = h.bind, .grid = {4, 1, 1},
                   .threadgroup = {4, 1, 1}, .mode = SIM_MODE_FUNCTIONAL};
    SimResult r = {0};
    UtilError err = {{0}};
    assert_false(sim_dispatch(&L, &r, &err));
    assert_non_null(strstr(err.message, "binds no buffer for them"));
    h_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pointers_into_a_constant_array),
        cmocka_unit_test(test_layouts_of_constant_arrays),
        cmocka_unit_test(test_constant_indices_fold),
        cmocka_unit_test(test_index_past_a_constant_array_faults),
        cmocka_unit_test(test_unbound_constant_data_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
