/*
 * test_constructs_linalg.c — the matrix types floatNxM and halfNxM through the whole
 * compiler: their layout (MSL Table 4: columns as vectors, a float3 column padded to 16
 * bytes) in buffers, structs and `constant` references; construction (a diagonal from one
 * scalar, column vectors, scalars column by column, another matrix); m[i] and m[i][j], read
 * and assigned, with constant and run-time indices; m * v, v * m, m * m, m * s, s * m, + and
 * -, compound assignment, transpose, determinant of 2x2, 3x3 and 4x4; matrices as helper
 * parameters and results; half matrices rounding after every operation; and the misuse the
 * compiler refuses. References are C written here, in the order docs/language.md gives
 * (each product a multiply then adds, left to right; determinants by first-column expansion).
 */
#include "construct_harness.h"

#include "../../util/fp.h"

/* ---- reference (column-major: element (c, r) at c * rows + r) ----------------------------- */

static void mat_vec(const float *m, int cols, int rows, const float *v, float *out)
{
    for (int r = 0; r < rows; r++) {
        float acc = m[r] * v[0];
        for (int c = 1; c < cols; c++)
            acc = acc + m[c * rows + r] * v[c];
        out[r] = acc;
    }
}

static void vec_mat(const float *v, const float *m, int cols, int rows, float *out)
{
    for (int c = 0; c < cols; c++) {
        float acc = v[0] * m[c * rows];
        for (int r = 1; r < rows; r++)
            acc = acc + v[r] * m[c * rows + r];
        out[c] = acc;
    }
}

/* a (n cols, rows rows) * b (p cols, n rows) */
static void mat_mat(const float *a, int n, int rows, const float *b, int p, float *out)
{
    for (int j = 0; j < p; j++)
        mat_vec(a, n, rows, b + j * n, out + j * rows);
}

/* first-column Laplace expansion of the minor (cols[0..k), rws[0..k)) */
static float det_ref(const float *m, int rows, const int *cols, const int *rws, int k)
{
    if (k == 1)
        return m[cols[0] * rows + rws[0]];
    float acc = 0;
    for (int i = 0; i < k; i++) {
        int rest[4], n = 0;
        for (int j = 0; j < k; j++)
            if (j != i)
                rest[n++] = rws[j];
        float t = m[cols[0] * rows + rws[i]] * det_ref(m, rows, cols + 1, rest, k - 1);
        acc = i == 0 ? t : i % 2 ? acc - t : acc + t;
    }
    return acc;
}

static float det_n(const float *m, int n)
{
    static const int idx[4] = {0, 1, 2, 3};
    return det_ref(m, n, idx, idx, n);
}

static void check_vec(const float *got, const float *want, int n, int at)
{
    for (int k = 0; k < n; k++)
        CH_FEQ(got[k], want[k], at * 10 + k);
}

/* ---- float matrices --------------------------------------------------------------------------- */

static const char *float_src =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "static_assert(sizeof(float3x3) == 48 && alignof(float3x3) == 16, \"float3x3\");\n"
    "static_assert(sizeof(float2x2) == 16 && alignof(float2x2) == 8, \"float2x2\");\n"
    "static_assert(sizeof(half3x3) == 24 && alignof(half3x3) == 8, \"half3x3\");\n"
    "static_assert(sizeof(float4x3) == 64 && sizeof(half2x4) == 16, \"sizes\");\n"
    "struct Xf { float s; float3x3 r; };\n"
    "static_assert(sizeof(Xf) == 64, \"the matrix member is 16-aligned\");\n"
    "float3x3 scaled(float3x3 m, float s) { return m * s; }\n"
    "kernel void k(device const float4x4 *ms [[buffer(0)]], device const float4 *vs [[buffer(1)]],\n"
    "              constant Xf &x [[buffer(2)]], constant float4x4 &g [[buffer(3)]],\n"
    "              device float4 *o [[buffer(4)]], device float *d [[buffer(5)]],\n"
    "              device float4x4 *om [[buffer(6)]], uint i [[thread_position_in_grid]]) {\n"
    "  float4x4 a = ms[i], b = ms[i + 1];\n"
    "  float4 v = vs[i];\n"
    "  o[i * 8] = a * v;\n"
    "  o[i * 8 + 1] = v * a;\n"
    "  om[i * 2] = a * b;\n"
    "  om[i * 2 + 1] = transpose(a) + b - g * 2.0f;\n"
    "  float3x3 r = scaled(x.r, x.s);\n"
    "  o[i * 8 + 2] = float4(r * v.xyz, determinant(r));\n"
    "  d[i * 3] = determinant(a);\n"
    "  float2x2 t = float2x2(v.x, v.y, v.z, v.w);\n"
    "  d[i * 3 + 1] = determinant(t);\n"
    "  d[i * 3 + 2] = a[2][int(i) % 4] + a[int(i) % 4].y;\n"
    "  float2x3 q = float2x3(v.xyz, v.wzy);\n"
    "  float3x2 qt = transpose(q);\n"
    "  o[i * 8 + 3] = float4(t * float2(1, 2), qt * float3(1, 2, 3));\n"
    "  float4x4 e = float4x4(2.0f);\n"
    "  e[3][0] = v.x;\n"
    "  e[1] = v;\n"
    "  o[i * 8 + 4] = e * v;\n"
    "  e *= 0.5f;\n"
    "  e += a;\n"
    "  o[i * 8 + 5] = 3.0f * e * v;\n"
    "  float4 w = v;\n"
    "  w *= a;\n"
    "  o[i * 8 + 6] = w + float4x4(half4x4(a))[int(i) % 4];\n"
    "  float3x4 n3 = float3x4(a[0], a[1], a[2]);\n"
    "  float4x3 b43 = float4x3(b[0].xyz, b[1].xyz, b[2].xyz, b[3].xyz);\n"
    "  o[i * 8 + 7] = float4(b43 * n3 * float3(1, -1, 0.5f), 0) + (n3 * float3(v.xyz));\n"
    "}\n";

static void test_float_exec(void **state)
{
    (void)state;
    enum { N = 8 };
    Harness h;
    ch_init(&h, float_src, NULL);
    float *ms = ch_buf(&h, 0, (N + 1) * 64);
    float *vs = ch_buf(&h, 1, N * 16);
    float *xb = ch_buf(&h, 2, 64);
    float *gb = ch_buf(&h, 3, 64);
    float *o = ch_buf(&h, 4, N * 8 * 16);
    float *d = ch_buf(&h, 5, N * 3 * 4);
    float *om = ch_buf(&h, 6, N * 2 * 64);
    for (int i = 0; i < (N + 1) * 16; i++)
        ms[i] = (float)((i * 37) % 19 - 9) * 0.37f + (float)(i % 5) * 0.011f;
    for (int i = 0; i < N * 4; i++)
        vs[i] = (float)((i * 13) % 11 - 5) * 0.71f;
    /* Xf: s at 0, the float3x3's columns at 16, 32, 48 (each padded to 16 bytes) */
    static const float r3[9] = {1.5f, -2, 0.25f, 3, 1, -1, 0.5f, 2, 4};
    xb[0] = 1.25f;
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++)
            xb[4 + c * 4 + k] = r3[c * 3 + k];
    for (int i = 0; i < 16; i++)
        gb[i] = (float)(i % 7) - 2.5f;
    ch_run(&h, N, N);
    for (int i = 0; i < N; i++) {
        const float *a = ms + i * 16, *b = ms + (i + 1) * 16, *v = vs + i * 4;
        float want[16], t1[16];
        mat_vec(a, 4, 4, v, want);
        check_vec(o + (i * 8) * 4, want, 4, i * 8);
        vec_mat(v, a, 4, 4, want);
        check_vec(o + (i * 8 + 1) * 4, want, 4, i * 8 + 1);
        mat_mat(a, 4, 4, b, 4, want);
        check_vec(om + i * 32, want, 16, i * 8 + 2);
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++)
                t1[c * 4 + r] = (a[r * 4 + c] + b[c * 4 + r]) - gb[c * 4 + r] * 2.0f;
        check_vec(om + i * 32 + 16, t1, 16, i * 8 + 3);
        float rs[9];
        for (int k = 0; k < 9; k++)
            rs[k] = r3[k] * 1.25f;
        mat_vec(rs, 3, 3, v, want);
        want[3] = det_n(rs, 3);
        check_vec(o + (i * 8 + 2) * 4, want, 4, i * 8 + 4);
        CH_FEQ(d[i * 3], det_n(a, 4), i);
        CH_FEQ(d[i * 3 + 1], det_n(v, 2), i);
        CH_FEQ(d[i * 3 + 2], a[2 * 4 + i % 4] + a[(i % 4) * 4 + 1], i);
        float t[4] = {v[0], v[1], v[2], v[3]}, two[2] = {1, 2}, three[3] = {1, 2, 3};
        float q[6] = {v[0], v[1], v[2], v[3], v[2], v[1]}, qt[6];
        for (int c = 0; c < 2; c++)
            for (int r = 0; r < 3; r++)
                qt[r * 2 + c] = q[c * 3 + r];
        mat_vec(t, 2, 2, two, want);
        mat_vec(qt, 3, 2, three, want + 2);
        check_vec(o + (i * 8 + 3) * 4, want, 4, i * 8 + 5);
        float e[16] = {0};
        for (int k = 0; k < 4; k++)
            e[k * 5] = 2.0f;
        e[12] = v[0];
        for (int k = 0; k < 4; k++)
            e[4 + k] = v[k];
        mat_vec(e, 4, 4, v, want);
        check_vec(o + (i * 8 + 4) * 4, want, 4, i * 8 + 6);
        for (int k = 0; k < 16; k++)
            e[k] = e[k] * 0.5f + a[k];
        float e3[16];
        for (int k = 0; k < 16; k++)
            e3[k] = 3.0f * e[k];
        mat_vec(e3, 4, 4, v, want);
        check_vec(o + (i * 8 + 5) * 4, want, 4, i * 8 + 7);
        float w[4];
        vec_mat(v, a, 4, 4, w);
        for (int k = 0; k < 4; k++) /* through half and back: each element rounded to half */
            want[k] = w[k] + util_f16_to_f32(util_f32_to_f16(a[(i % 4) * 4 + k]));
        check_vec(o + (i * 8 + 6) * 4, want, 4, i * 8 + 8);
        /* b43: b's columns' first three rows; n3: a's first three columns */
        float b43[12], bn[9], s3[3] = {1, -1, 0.5f}, y3[3], nv[4];
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 3; r++)
                b43[c * 3 + r] = b[c * 4 + r];
        mat_mat(b43, 4, 3, a, 3, bn);
        mat_vec(bn, 3, 3, s3, y3);
        mat_vec(a, 3, 4, v, nv);
        for (int k = 0; k < 4; k++)
            want[k] = (k < 3 ? y3[k] : 0.0f) + nv[k];
        check_vec(o + (i * 8 + 7) * 4, want, 4, i * 8 + 9);
    }
    h_free(&h);
}

/* ---- half matrices: every operation rounded to half ---------------------------------------- */

static float hr(float x) { return util_f16_to_f32(util_f32_to_f16(x)); }

static const char *half_src =
    "kernel void k(device const half3x3 *ms [[buffer(0)]], device const half3 *vs [[buffer(1)]],\n"
    "              device half3 *o [[buffer(2)]], device half *d [[buffer(3)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "  half3x3 m = ms[i];\n"
    "  o[i] = m * vs[i];\n"
    "  d[i] = determinant(m);\n"
    "}\n";

static void test_half_exec(void **state)
{
    (void)state;
    enum { N = 16 };
    Harness h;
    ch_init(&h, half_src, NULL);
    uint16_t *ms = ch_buf(&h, 0, N * 24); /* half3 columns: 8 bytes each */
    uint16_t *vs = ch_buf(&h, 1, N * 8);
    uint16_t *o = ch_buf(&h, 2, N * 8);
    uint16_t *d = ch_buf(&h, 3, N * 2);
    float mf[N * 9], vf[N * 3];
    for (int i = 0; i < N * 9; i++) {
        mf[i] = hr((float)((i * 29) % 23 - 11) * 0.173f);
        ms[(i / 3) * 4 + i % 3] = util_f32_to_f16(mf[i]);
    }
    for (int i = 0; i < N * 3; i++) {
        vf[i] = hr((float)((i * 7) % 13 - 6) * 0.61f);
        vs[(i / 3) * 4 + i % 3] = util_f32_to_f16(vf[i]);
    }
    ch_run(&h, N, N);
    for (int i = 0; i < N; i++) {
        const float *m = mf + i * 9, *v = vf + i * 3;
        for (int r = 0; r < 3; r++) {
            float acc = hr(m[r] * v[0]);
            for (int c = 1; c < 3; c++)
                acc = hr(acc + hr(m[c * 3 + r] * v[c]));
            CH_IEQ(o[i * 4 + r], util_f32_to_f16(acc), i * 3 + r);
        }
        /* first-column expansion, each operation rounded to half */
        float m2[3];
        for (int r = 0; r < 3; r++) {
            int r1 = r == 0 ? 1 : 0, r2 = r == 2 ? 1 : 2;
            m2[r] = hr(hr(m[3 + r1] * m[6 + r2]) - hr(m[3 + r2] * m[6 + r1]));
        }
        float det = hr(m[0] * m2[0]);
        det = hr(det - hr(m[1] * m2[1]));
        det = hr(det + hr(m[2] * m2[2]));
        CH_IEQ(d[i], util_f32_to_f16(det), i);
    }
    h_free(&h);
}

/* ---- shapes and what is refused --------------------------------------------------------------- */

static void test_no_new_instructions(void **state)
{
    (void)state;
    IsaProgram *p = ch_compile("kernel void k(device float4 *o [[buffer(0)]],\n"
                               "              constant float4x4 &m [[buffer(1)]],\n"
                               "              uint i [[thread_position_in_grid]]) {\n"
                               "  o[i] = m * o[i];\n}\n", NULL);
    /* 16 products and 12 sums, nothing fused */
    CH_EXPECT(p, ch_count(p, ISA_OP_FMUL32) == 16 && ch_count(p, ISA_OP_FADD32) == 12);
    CH_EXPECT(p, !ch_has(p, ISA_OP_FFMA32) && !ch_has(p, ISA_OP_MMA32));
    CH_EXPECT(p, p->num_args == 2 && strcmp(p->args[1].type_name, "float4") == 0 &&
                 p->args[1].elem_size == 16);
    isa_program_free(p);
}

static void test_refused(void **state)
{
    (void)state;
    const char *head = "kernel void k(device float4 *o [[buffer(0)]], constant float4x4 &m "
                       "[[buffer(1)]], uint i [[thread_position_in_grid]]) {\n";
    static const struct { const char *body, *want; } cases[] = {
        {"  o[i].xyz = m * o[i].xyz;\n", "as many components as the matrix has columns"},
        {"  float3x3 n = float3x3(1); o[i] = (m + n)[0];\n", "+ and - take two matrices of "
                                                           "one size"},
        {"  half4x4 h = half4x4(m); o[i] = float4((h * o[i]));\n", "the elements' types differ"},
        {"  float2x3 a = float2x3(1); o[i] = (a * m)[0].xyzz;\n", "the left matrix's columns "
                                                                "must match the right one's rows"},
        {"  o[i] = (m / 2.0f)[0];\n", "matrices take +, - and *"},
        {"  float2x2 a = float2x2(o[i].xy, 1, 2);\n", "they do not mix in a matrix constructor"},
        {"  float2x2 a = float2x2(1, 2, 3);\n", "not 3 arguments"},
        {"  float2x2 a = float2x2(float3x3(1));\n", "a matrix of the same size"},
        {"  o[i].x = determinant(float2x3(1));\n", "determinant needs a square matrix"},
        {"  o[i].x = determinant(o[i]);\n", "'determinant' needs a matrix"},
        {"  int4x4 a;\n", "matrix types have float or half elements"},
        {"  float4 v = o[i]; v *= float3x4(1);\n", "gives a 'float3'"},
        {"  o[i].x = m[4][0];\n", "index 4 is past the end of 'float4x4'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char src[1024];
        snprintf(src, sizeof src, "%s%s}\n", head, cases[i].body);
        ch_expect_error(src, NULL, cases[i].want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_exec),
        cmocka_unit_test(test_half_exec),
        cmocka_unit_test(test_no_new_instructions),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
