/*
 * test_constructs_matrix.c — SIMD-group matrices (simdgroup_float8x8, simdgroup_half8x8):
 * simdgroup_load and simdgroup_store with every optional argument (elements per row, origin,
 * transpose) from device and threadgroup memory, the diagonal and filled constructors,
 * simdgroup_multiply and simdgroup_multiply_accumulate with float, half and mixed operands,
 * matrices in arrays (also dynamically indexed), structs and helper functions, and the
 * diagnostics. Expected values come from C code here, written from MSL's definitions: matrix
 * element (r, c) is memory (origin.y + r) * elements_per_row + origin.x + c, or with
 * transpose (origin.y + c) * elements_per_row + origin.x + r.
 */
#include "construct_harness.h"

static float at(const float *mem, uint32_t epr, uint32_t ox, uint32_t oy, bool t, int r, int c)
{
    return t ? mem[(oy + (uint32_t)c) * epr + ox + (uint32_t)r]
             : mem[(oy + (uint32_t)r) * epr + ox + (uint32_t)c];
}

static void put(float *mem, uint32_t epr, uint32_t ox, uint32_t oy, bool t, int r, int c, float v)
{
    if (t)
        mem[(oy + (uint32_t)c) * epr + ox + (uint32_t)r] = v;
    else
        mem[(oy + (uint32_t)r) * epr + ox + (uint32_t)c] = v;
}

enum { SRC = 16 * 16, DST = 20 * 20 };

/* A load (epr, origin, transpose) then a store (epr, origin, transpose) of the same matrix;
 * the elements no store reaches keep their -1. */
static void check_copy(const char *type, const char *elem, const char *load_args,
                       uint32_t lepr, uint32_t lox, uint32_t loy, bool lt, const char *store_args,
                       uint32_t sepr, uint32_t sox, uint32_t soy, bool st, bool via_tg)
{
    char src[2048];
    snprintf(src, sizeof src,
             "#include <metal_simdgroup_matrix>\nusing namespace metal;\n"
             "kernel void k(device const %s *a [[buffer(0)]], device %s *out [[buffer(1)]],\n"
             "              uint tid [[thread_index_in_threadgroup]]) {\n"
             "    threadgroup %s stage[%d];\n"
             "    for (uint i = tid; i < %du; i += 32u) stage[i] = a[i];\n"
             "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
             "    %s m;\n"
             "    simdgroup_load(m, %s%s);\n"
             "    simdgroup_store(m, out%s);\n"
             "}\n",
             elem, elem, elem, SRC, SRC, type, via_tg ? "stage" : "a", load_args, store_args);
    bool half = strcmp(elem, "half") == 0;
    Harness h;
    ch_init(&h, src, NULL);
    float in[SRC], want[DST];
    for (int i = 0; i < SRC; i++)
        in[i] = (float)(i * 3 % 101) - 50.0f;
    for (int i = 0; i < DST; i++)
        want[i] = -1.0f;
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++)
            put(want, sepr, sox, soy, st, r, c, at(in, lepr, lox, loy, lt, r, c));
    if (half) {
        uint16_t *a = ch_buf(&h, 0, SRC * 2), *o = ch_buf(&h, 1, DST * 2);
        for (int i = 0; i < SRC; i++)
            a[i] = h_d2h(in[i]);
        for (int i = 0; i < DST; i++)
            o[i] = h_d2h(-1.0);
        ch_run(&h, 32, 32);
        for (int i = 0; i < DST; i++)
            if (h_f16_value(o[i]) != want[i])
                fail_msg("%s: element %d is %g, want %g", src, i, h_f16_value(o[i]), want[i]);
    } else {
        float *a = ch_buf(&h, 0, SRC * 4), *o = ch_buf(&h, 1, DST * 4);
        memcpy(a, in, sizeof in);
        for (int i = 0; i < DST; i++)
            o[i] = -1.0f;
        ch_run(&h, 32, 32);
        for (int i = 0; i < DST; i++)
            if (o[i] != want[i])
                fail_msg("%s: element %d is %g, want %g", src, i, o[i], want[i]);
    }
    h_free(&h);
}

static void test_load_store(void **state)
{
    (void)state;
    for (int half = 0; half < 2; half++) {
        const char *type = half ? "simdgroup_half8x8" : "simdgroup_float8x8";
        const char *elem = half ? "half" : "float";
        for (int tg = 0; tg < 2; tg++) {
            /* defaults: 8 elements a row, origin 0, not transposed */
            check_copy(type, elem, "", 8, 0, 0, false, "", 8, 0, 0, false, tg);
            check_copy(type, elem, ", 16", 16, 0, 0, false, ", 20", 20, 0, 0, false, tg);
            check_copy(type, elem, ", 16, ulong2(3, 5)", 16, 3, 5, false,
                       ", 20, ulong2(7, 2)", 20, 7, 2, false, tg);
            check_copy(type, elem, ", 16, ulong2(2, 4), true", 16, 2, 4, true,
                       ", 20, ulong2(1, 9), false", 20, 1, 9, false, tg);
            check_copy(type, elem, ", 16, 1, false", 16, 1, 1, false,
                       ", 20, ulong2(11, 3), true", 20, 11, 3, true, tg);
        }
    }
    /* simdgroup_matrix<T, 8, 8> is the same type */
    check_copy("simdgroup_matrix<float, 8, 8>", "float", ", 16, ulong2(1, 2)", 16, 1, 2, false,
               "", 8, 0, 0, false, false);
}

/* out = f(A, B, C) for A, B, C loaded from a, b, c (8 x 8 each, `elem`), stored as float. */
static void run_multiply(const char *prelude, const char *decls, const char *body,
                         const char *elem, const float *a, const float *b, const float *c,
                         float *out)
{
    char src[2048];
    snprintf(src, sizeof src,
             "#include <metal_simdgroup_matrix>\nusing namespace metal;\n%s\n"
             "kernel void k(device const %s *a [[buffer(0)]], device const %s *b [[buffer(1)]],\n"
             "              device const %s *c [[buffer(2)]], device float *out [[buffer(3)]],\n"
             "              uint l [[thread_index_in_simdgroup]]) {\n"
             "    %s\n    %s\n}\n",
             prelude, elem, elem, elem, decls, body);
    bool half = strcmp(elem, "half") == 0;
    Harness h;
    ch_init(&h, src, NULL);
    const float *srcs[3] = {a, b, c};
    for (uint32_t k = 0; k < 3; k++) {
        if (half) {
            uint16_t *d = ch_buf(&h, k, 64 * 2);
            for (int i = 0; i < 64; i++)
                d[i] = h_d2h(srcs[k][i]);
        } else {
            memcpy(ch_buf(&h, k, 64 * 4), srcs[k], 64 * 4);
        }
    }
    float *o = ch_buf(&h, 3, 64 * 4);
    ch_run(&h, 32, 32);
    memcpy(out, o, 64 * 4);
    h_free(&h);
}

static void matmul_ref(const float *a, const float *b, const float *c, float *d)
{
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            double s = c ? c[i * 8 + j] : 0.0;
            for (int k = 0; k < 8; k++)
                s += (double)a[i * 8 + k] * b[k * 8 + j];
            d[i * 8 + j] = (float)s;
        }
}

static void expect_matrix(const float *got, const float *want, const char *what)
{
    for (int i = 0; i < 64; i++)
        if (got[i] != want[i])
            fail_msg("%s: element (%d, %d) is %g, want %g", what, i / 8, i % 8, got[i], want[i]);
}

static void test_multiply(void **state)
{
    (void)state;
    float a[64], b[64], c[64], want[64], out[64];
    for (int i = 0; i < 64; i++) { /* small integers: every product and sum exact */
        a[i] = (float)((i * 7) % 9 - 4);
        b[i] = (float)((i * 5) % 11 - 5);
        c[i] = (float)((i * 3) % 13 - 6);
    }
    const char *load = "simdgroup_float8x8 A, B, C, D; simdgroup_load(A, a); "
                       "simdgroup_load(B, b); simdgroup_load(C, c);";
    run_multiply("", load, "simdgroup_multiply_accumulate(D, A, B, C); simdgroup_store(D, out);",
                 "float", a, b, c, out);
    matmul_ref(a, b, c, want);
    expect_matrix(out, want, "multiply_accumulate");
    run_multiply("", load, "simdgroup_multiply(D, A, B); simdgroup_store(D, out);", "float", a, b,
                 c, out);
    matmul_ref(a, b, NULL, want);
    expect_matrix(out, want, "multiply");
    /* the destination may be an operand: C = A * C + C */
    run_multiply("", load, "simdgroup_multiply_accumulate(C, A, C, C); simdgroup_store(C, out);",
                 "float", a, b, c, out);
    matmul_ref(a, c, c, want);
    expect_matrix(out, want, "C = A * C + C");
    /* half factors, float accumulator (the mixed form GEMM kernels use) */
    run_multiply("", "simdgroup_half8x8 A, B; simdgroup_float8x8 D = "
                 "make_filled_simdgroup_matrix<float, 8>(0.5f); "
                 "simdgroup_load(A, a); simdgroup_load(B, b);",
                 "simdgroup_multiply_accumulate(D, A, B, D); simdgroup_store(D, out);", "half", a,
                 b, c, out);
    for (int i = 0; i < 64; i++)
        c[i] = 0.5f;
    matmul_ref(a, b, c, want);
    expect_matrix(out, want, "half x half + float");
    /* a half destination rounds each element to binary16: 1/3 added to exact integers */
    run_multiply("", "simdgroup_half8x8 A, B, D; simdgroup_float8x8 T = "
                 "make_filled_simdgroup_matrix<float, 8, 8>(1.0f / 3.0f); "
                 "simdgroup_load(A, a); simdgroup_load(B, b);",
                 "simdgroup_multiply_accumulate(D, A, B, T); simdgroup_half8x8 E = D; "
                 "simdgroup_float8x8 F = simdgroup_float8x8(1.0f); "
                 "simdgroup_multiply(F, E, F); simdgroup_store(F, out);",
                 "half", a, b, c, out);
    for (int i = 0; i < 64; i++)
        c[i] = 1.0f / 3.0f;
    matmul_ref(a, b, c, want);
    for (int i = 0; i < 64; i++)
        want[i] = (float)h_f16_value(h_d2h((double)(float)want[i]));
    expect_matrix(out, want, "half destination");
}

/* simdgroup_float8x8(v) puts v on the diagonal; make_filled_ everywhere. */
static void test_constructors(void **state)
{
    (void)state;
    float z[64] = {0}, out[64], want[64];
    run_multiply("", "simdgroup_float8x8 D = simdgroup_float8x8(2.5f);", "simdgroup_store(D, out);",
                 "float", z, z, z, out);
    for (int i = 0; i < 64; i++)
        want[i] = i / 8 == i % 8 ? 2.5f : 0.0f;
    expect_matrix(out, want, "diagonal");
    run_multiply("", "simdgroup_half8x8 D = make_filled_simdgroup_matrix<half, 8, 8>(c[5]);",
                 "simdgroup_float8x8 F; simdgroup_multiply(F, D, simdgroup_float8x8(1.0f)); "
                 "simdgroup_store(F, out);", "half", z, z,
                 (float[64]){[5] = -3.25f}, out);
    for (int i = 0; i < 64; i++)
        want[i] = -3.25f;
    expect_matrix(out, want, "filled from a loaded half");
}

/* Matrices in arrays (constant and dynamic indices), structs and helper functions. */
static void test_matrices_as_values(void **state)
{
    (void)state;
    float a[64], out[64], want[64];
    for (int i = 0; i < 64; i++)
        a[i] = (float)(i % 10);
    run_multiply("struct Pair { simdgroup_float8x8 x, y; };\n"
                 "void scale(thread simdgroup_float8x8 &d, simdgroup_float8x8 s) {\n"
                 "    simdgroup_multiply(d, d, s);\n}\n",
                 "simdgroup_float8x8 m[3]; Pair p;",
                 "    for (uint i = 0; i < 3; i++) m[i] = simdgroup_float8x8(float(i + 1));\n"
                 "    simdgroup_load(p.x, a);\n"
                 "    uint j = uint(b[0]);\n"            /* 2, not known to the compiler */
                 "    p.y = m[j];\n"
                 "    simdgroup_multiply(m[0], p.x, p.y);\n"
                 "    scale(m[0], m[1]);\n"
                 "    simdgroup_store(m[0], out);",
                 "float", a, (float[64]){2.0f}, a, out);
    for (int i = 0; i < 64; i++)
        want[i] = a[i] * 3.0f * 2.0f;
    expect_matrix(out, want, "arrays, structs, helpers");
}

/* thread_elements(): this lane's two elements, row 4*b4 + 2*b2 + b1 and columns 4*b3 + 2*b0
 * and the next (Apple's layout, docs/ISA.md); read as a whole, and written by index and
 * through a swizzle (then stored with simdgroup_store). */
static void test_thread_elements(void **state)
{
    (void)state;
    float a[64], out[64];
    for (int i = 0; i < 64; i++)
        a[i] = (float)i;
    for (int half = 0; half < 2; half++) {
        const char *t = half ? "half" : "float";
        char decls[256];
        snprintf(decls, sizeof decls, "simdgroup_%s8x8 A; simdgroup_load(A, a); %s2 e = "
                 "A.thread_elements();", t, t);
        run_multiply("", decls, "out[2 * l] = e.x; out[2 * l + 1] = e[1];", t, a, a, a, out);
        for (uint32_t l = 0; l < 32; l++) {
            uint32_t row = 4 * (l >> 4 & 1) + 2 * (l >> 2 & 1) + (l >> 1 & 1);
            uint32_t col = 4 * (l >> 3 & 1) + 2 * (l & 1);
            if (out[2 * l] != a[row * 8 + col] || out[2 * l + 1] != a[row * 8 + col + 1])
                fail_msg("%s lane %u reads %g, %g, want %g, %g", t, l, out[2 * l],
                         out[2 * l + 1], a[row * 8 + col], a[row * 8 + col + 1]);
        }
        /* element 0 doubled, element 1 negated: every element of the stored matrix */
        run_multiply("", decls,
                     "A.thread_elements()[0] = e.x * 2;\n"
                     "    A.thread_elements().y = -A.thread_elements().y;\n"
                     "    simdgroup_float8x8 F;\n"
                     "    simdgroup_multiply(F, A, simdgroup_float8x8(1.0f));\n"
                     "    simdgroup_store(F, out);",
                     t, a, a, a, out);
        for (int i = 0; i < 64; i++)
            if (out[i] != (i % 2 ? -a[i] : 2 * a[i]))
                fail_msg("%s: element (%d, %d) is %g after the writes", t, i / 8, i % 8, out[i]);
    }
}

static void test_shapes(void **state)
{
    (void)state;
    IsaProgram *p = ch_compile(
        "#include <metal_simdgroup_matrix>\nusing namespace metal;\n"
        "kernel void k(device const half *a, device float *out) {\n"
        "    simdgroup_half8x8 A, H; simdgroup_float8x8 F;\n"
        "    simdgroup_load(A, a);\n"
        "    simdgroup_multiply(F, A, A);\n"
        "    simdgroup_multiply(H, A, A);\n"
        "    simdgroup_multiply_accumulate(F, H, A, F);\n"
        "    simdgroup_store(F, out);\n}\n", NULL);
    CH_EXPECT(p, ch_count(p, ISA_OP_MMA32) == 2);
    CH_EXPECT(p, ch_count(p, ISA_OP_MMA16) == 1);
    CH_EXPECT(p, ch_count(p, ISA_OP_LD_DEV) >= 1 && ch_count(p, ISA_OP_ST_DEV) >= 1);
    isa_program_free(p);
}

#define MATRIX_KERNEL(body) \
    "#include <metal_simdgroup_matrix>\nusing namespace metal;\n" \
    "kernel void k(device float *f, device half *h, constant float *c, uint i [[thread_position_in_grid]]) {\n" \
    body "\n}\n"

static void test_errors(void **state)
{
    (void)state;
    ch_expect_error(MATRIX_KERNEL("simdgroup_matrix<float, 16, 16> m;"),
                    NULL, "simdgroup matrices are 8x8: expected the literal 8");
    ch_expect_error(MATRIX_KERNEL("simdgroup_float4x4 m;"), NULL,
                    "simdgroup matrices are 8x8 of float or half");
    ch_expect_error(MATRIX_KERNEL("simdgroup_bfloat8x8 m;"), NULL, "bfloat simdgroup matrices");
    ch_expect_error(MATRIX_KERNEL("simdgroup_matrix<int, 8, 8> m;"), NULL,
                    "simdgroup matrices hold float or half, not 'int'");
    ch_expect_error(MATRIX_KERNEL("threadgroup simdgroup_float8x8 m;"), NULL,
                    "lives in its SIMD-group's registers");
    ch_expect_error(MATRIX_KERNEL("simdgroup_float8x8 m; simdgroup_load(m, h);"), NULL,
                    "'simdgroup_load' of a simdgroup_float8x8 needs a pointer to float");
    ch_expect_error(MATRIX_KERNEL("simdgroup_float8x8 m; simdgroup_load(m, f); "
                                  "simdgroup_store(m, c);"),
                    NULL, "stores through a pointer to device or threadgroup memory");
    ch_expect_error(MATRIX_KERNEL("simdgroup_float8x8 m; simdgroup_load(m, f, 8, 0, i > 3);"),
                    NULL, "the transpose argument of 'simdgroup_load' must be a constant");
    ch_expect_error(MATRIX_KERNEL("simdgroup_float8x8 m; simdgroup_multiply(m, m, 1.0f);"),
                    NULL, "a factor of 'simdgroup_multiply' must be a simdgroup matrix");
    ch_expect_error(MATRIX_KERNEL("simdgroup_float8x8 m = simdgroup_float8x8(1.0f, 2.0f);"),
                    NULL, "is constructed from one value");
    ch_expect_error(MATRIX_KERNEL("simdgroup_float8x8 m = 1.0f;"), NULL,
                    "cannot convert 'float' to 'simdgroup_float8x8'");
    ch_expect_error(MATRIX_KERNEL("simdgroup_float8x8 m; simdgroup_load(m, f); f[i] = m;"),
                    NULL, "cannot convert 'simdgroup_float8x8' to 'float'");
    ch_expect_error(MATRIX_KERNEL("simdgroup_float8x8 m; simdgroup_load(m, f); m = m + m;"),
                    NULL, "simdgroup_float8x8");
    ch_expect_error(MATRIX_KERNEL("simdgroup_float8x8 m; simdgroup_half8x8 n; "
                                  "simdgroup_load(m, f); n = m;"),
                    NULL, "cannot convert 'simdgroup_float8x8' to 'simdgroup_half8x8'");
    ch_expect_error(MATRIX_KERNEL("simdgroup_float8x8 m; simdgroup_load(m, f); "
                                  "simdgroup_multiply(simdgroup_float8x8(1.0f), m, m);"),
                    NULL, "must be a matrix variable it can assign");
    ch_expect_error(MATRIX_KERNEL("simdgroup_float8x8 m; simdgroup_load(m, f); f[i] = m.x;"),
                    NULL, "a simdgroup matrix has no member 'x'");
    ch_expect_error(MATRIX_KERNEL("simdgroup_float8x8 m; simdgroup_load(m, f); "
                                  "f[i] = m.thread_elements[0];"),
                    NULL, "its one member is the function thread_elements()");
    ch_expect_error(MATRIX_KERNEL("simdgroup_half8x8 m; simdgroup_load(m, h); "
                                  "thread float2 *p = &m.thread_elements();"),
                    NULL, "cannot take the address of this expression");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_store),
        cmocka_unit_test(test_multiply),
        cmocka_unit_test(test_constructors),
        cmocka_unit_test(test_matrices_as_values),
        cmocka_unit_test(test_thread_elements),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
