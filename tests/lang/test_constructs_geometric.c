/*
 * test_constructs_geometric.c — reflect, refract, faceforward and distance_squared (MSL 5.7)
 * on float and half vectors (and on bfloat, through float) against C written here in the
 * order docs/language.md gives: dot(N, I) as a multiply and adds left to right, reflect as
 * I - (2 * d) * N, refract's k = 1 - (eta * eta) * (1 - d * d) with 0 where k < 0 (total
 * internal reflection) and eta * I - (eta * d + sqrt(k)) * N elsewhere, faceforward's sign
 * flip when dot(Nref, I) >= 0; half results round after every operation.
 */
#include "construct_harness.h"

#include "../../util/fp.h"

static float dot3(const float *a, const float *b)
{
    float acc = a[0] * b[0];
    acc = acc + a[1] * b[1];
    return acc + a[2] * b[2];
}

static const char *float_src =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void k(device const float4 *in [[buffer(0)]], device float4 *o [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "  float3 I = in[i * 3].xyz, N = in[i * 3 + 1].xyz, R = in[i * 3 + 2].xyz;\n"
    "  float eta = in[i * 3].w;\n"
    "  o[i * 4] = float4(reflect(I, N), distance_squared(I, N));\n"
    "  o[i * 4 + 1] = float4(refract(I, N, eta), 0);\n"
    "  o[i * 4 + 2] = float4(faceforward(N, I, R), 0);\n"
    "  o[i * 4 + 3] = float4(metal::reflect(I.xy, N.xy), refract(I.xy, N.xy, 0.5f));\n"
    "}\n";

static void test_float_exec(void **state)
{
    (void)state;
    enum { N = 32 };
    Harness h;
    ch_init(&h, float_src, NULL);
    float *in = ch_buf(&h, 0, N * 48);
    float *o = ch_buf(&h, 1, N * 64);
    for (int i = 0; i < N * 12; i++)
        in[i] = (float)((i * 41) % 29 - 14) * 0.071f;
    for (int i = 0; i < N; i++) {
        /* a unit normal, and eta from 0.5 to 2.05 (above 1, some rays reflect totally) */
        float *n = in + (i * 3 + 1) * 4;
        float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++)
            n[k] = len > 0 ? n[k] / len : (k == 2);
        in[i * 12 + 3] = 0.5f + 0.05f * (float)i;
    }
    ch_run(&h, N, N);
    int tir = 0;
    for (int i = 0; i < N; i++) {
        const float *I = in + i * 12, *Nv = in + i * 12 + 4, *R = in + i * 12 + 8;
        float eta = I[3];
        float d = dot3(Nv, I);
        float want[16];
        float t = 2.0f * d;
        for (int k = 0; k < 3; k++)
            want[k] = I[k] - t * Nv[k];
        float df[3] = {I[0] - Nv[0], I[1] - Nv[1], I[2] - Nv[2]};
        want[3] = dot3(df, df);
        float kk = 1.0f - (eta * eta) * (1.0f - d * d);
        float coef = eta * d + sqrtf(kk);
        tir += kk < 0;
        for (int k = 0; k < 3; k++)
            want[4 + k] = kk < 0 ? 0.0f : eta * I[k] - coef * Nv[k];
        want[7] = 0;
        bool flip = !(dot3(R, I) < 0);
        for (int k = 0; k < 3; k++)
            want[8 + k] = flip ? -Nv[k] : Nv[k];
        want[11] = 0;
        float d2 = Nv[0] * I[0] + Nv[1] * I[1];
        for (int k = 0; k < 2; k++)
            want[12 + k] = I[k] - (2.0f * d2) * Nv[k];
        float k2 = 1.0f - (0.5f * 0.5f) * (1.0f - d2 * d2);
        for (int k = 0; k < 2; k++)
            want[14 + k] = k2 < 0 ? 0.0f : 0.5f * I[k] - (0.5f * d2 + sqrtf(k2)) * Nv[k];
        for (int k = 0; k < 16; k++)
            CH_FEQ(o[i * 16 + k], want[k], i * 16 + k);
    }
    assert_true(tir > 0 && tir < N); /* both branches of refract are exercised */
    h_free(&h);
}

/* ---- half: each operation rounded ------------------------------------------------------------ */

static float hr(float x) { return util_f16_to_f32(util_f32_to_f16(x)); }

static const char *half_src =
    "kernel void k(device const half4 *in [[buffer(0)]], device half4 *o [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "  half3 I = in[i * 2].xyz, N = in[i * 2 + 1].xyz;\n"
    "  o[i * 3] = half4(reflect(I, N), 0);\n"
    "  o[i * 3 + 1] = half4(refract(I, N, in[i * 2].w), 0);\n"
    "  o[i * 3 + 2] = half4(faceforward(N, I, N), 0);\n"
    "}\n";

static void test_half_exec(void **state)
{
    (void)state;
    enum { N = 32 };
    Harness h;
    ch_init(&h, half_src, NULL);
    uint16_t *in = ch_buf(&h, 0, N * 16);
    uint16_t *o = ch_buf(&h, 1, N * 24);
    float f[N * 8];
    for (int i = 0; i < N * 8; i++) {
        f[i] = hr((float)((i * 17) % 23 - 11) * 0.083f);
        if (i % 8 == 3)
            f[i] = hr(0.6f + 0.04f * (float)(i / 8));
        in[i] = util_f32_to_f16(f[i]);
    }
    ch_run(&h, N, N);
    for (int i = 0; i < N; i++) {
        const float *I = f + i * 8, *Nv = f + i * 8 + 4;
        float d = hr(Nv[0] * I[0]);
        d = hr(d + hr(Nv[1] * I[1]));
        d = hr(d + hr(Nv[2] * I[2]));
        float t = hr(2.0f * d), eta = I[3];
        float kk = hr(1.0f - hr(hr(eta * eta) * hr(1.0f - hr(d * d))));
        float coef = hr(hr(eta * d) + hr(sqrtf(kk)));
        for (int k = 0; k < 3; k++) {
            CH_IEQ(o[i * 12 + k], util_f32_to_f16(hr(I[k] - hr(t * Nv[k]))), i * 12 + k);
            float r = kk < 0 ? 0.0f : hr(hr(eta * I[k]) - hr(coef * Nv[k]));
            CH_IEQ(o[i * 12 + 4 + k], util_f32_to_f16(r), i * 12 + 4 + k);
            float dd = hr(hr(hr(Nv[0] * I[0]) + hr(Nv[1] * I[1])) + hr(Nv[2] * I[2]));
            CH_IEQ(o[i * 12 + 8 + k], util_f32_to_f16(dd < 0 ? Nv[k] : -Nv[k]), i * 12 + 8 + k);
        }
    }
    h_free(&h);
}

/* bfloat through float: the float result rounded once (MSL 3.1 has no bfloat overloads) */
static void test_bfloat_and_errors(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, "kernel void k(device const bfloat4 *in [[buffer(0)]], device bfloat4 *o "
                "[[buffer(1)]], uint i [[thread_position_in_grid]]) {\n"
                "  o[i] = bfloat4(reflect(in[i].xyz, in[i + 1].xyz), 0);\n}\n", NULL);
    uint16_t *in = ch_buf(&h, 0, 2 * 8);
    uint16_t *o = ch_buf(&h, 1, 8);
    static const uint16_t bits[8] = {0x3f80, 0xbf40, 0x3ec0, 0, 0x3f00, 0x3f20, 0xbe80, 0};
    memcpy(in, bits, sizeof bits);
    ch_run(&h, 1, 1);
    float I[3], Nv[3];
    for (int k = 0; k < 3; k++) {
        I[k] = util_bits_f32((uint32_t)bits[k] << 16);
        Nv[k] = util_bits_f32((uint32_t)bits[4 + k] << 16);
    }
    float t = 2.0f * dot3(Nv, I);
    for (int k = 0; k < 3; k++) {
        uint32_t u = util_f32_bits(I[k] - t * Nv[k]);
        CH_IEQ(o[k], (u + 0x7fffu + ((u >> 16) & 1)) >> 16, k);
    }
    h_free(&h);
    ch_expect_error("kernel void k(device float4 *o [[buffer(0)]]) {\n"
                    "  o[0].xyz = reflect(o[0].xyz, o[1].xy);\n}\n", NULL, "'reflect': arguments of "
                    "types 'float3' and 'float2' do not match");
    ch_expect_error("kernel void k(device float4 *o [[buffer(0)]]) {\n"
                    "  o[0] = refract(o[0], o[1]);\n}\n", NULL, "too few arguments to 'refract', "
                    "expected 3, have 2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_exec),
        cmocka_unit_test(test_half_exec),
        cmocka_unit_test(test_bfloat_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
