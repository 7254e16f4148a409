/*
 * test_constructs_bfloat.c — MSL 3.1's bfloat through the whole compiler: loads and stores
 * of bfloat buffers (scalars and vectors), conversions to and from float, half and integers,
 * arithmetic done in float and rounded once to bfloat per operation, comparisons, negation,
 * as_type, folded constants, library functions (computed in float, the result rounded), and
 * the mistakes it refuses (half with bfloat without a cast). The reference here converts with
 * explicit bit manipulation (round to nearest even on the 16 low bits, NaN kept quiet), and
 * the inputs include ties, values just off a tie, NaN, infinities, overflow and subnormals.
 */
#include "construct_harness.h"

#include "../../util/fp.h"

/* ---- reference -------------------------------------------------------------------------- */

static uint16_t ref_f2bf(float f)
{
    uint32_t u = util_f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40); /* quiet NaN, sign and top payload kept */
    uint32_t lsb = (u >> 16) & 1;
    return (uint16_t)((u + 0x7fffu + lsb) >> 16);
}

static float ref_bf2f(uint16_t b) { return util_bits_f32((uint32_t)b << 16); }

static bool bf_is_nan(uint16_t b) { return (b & 0x7fff) > 0x7f80; }

/* h_d2h for any value: below 2^-26 a half rounds to a signed zero (the harness's rounding
 * is meant for the half range) */
static uint16_t ref_half(double x)
{
    return fabs(x) < 0x1p-26 ? (signbit(x) ? 0x8000 : 0) : h_d2h(x);
}

#define BF_EQ(got, want, i)                                                             \
    do {                                                                                \
        uint16_t g_ = (got), w_ = (want);                                               \
        if (g_ != w_ && !(bf_is_nan(g_) && bf_is_nan(w_)))                              \
            fail_msg("element %d: got bfloat 0x%04x (%g), want 0x%04x (%g)", (int)(i),  \
                     g_, (double)ref_bf2f(g_), w_, (double)ref_bf2f(w_));               \
    } while (0)

/* ---- conversions ------------------------------------------------------------------------- */

static const char *convert_src =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void k(device const float *f [[buffer(0)]], device bfloat *ob [[buffer(1)]],\n"
    "              device float *of [[buffer(2)]], device half *oh [[buffer(3)]],\n"
    "              device int *oi [[buffer(4)]], device ushort *ou [[buffer(5)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "  bfloat b = bfloat(f[i]);\n"
    "  ob[i * 4] = b;\n"
    "  ob[i * 4 + 1] = bfloat(half(f[i]));\n"          /* half -> bfloat */
    "  ob[i * 4 + 2] = static_cast<bfloat>(int(i) * 257);\n"
    "  ob[i * 4 + 3] = -b;\n"
    "  of[i] = float(ob[i * 4]);\n"                     /* a load, widened exactly */
    "  oh[i] = half(b);\n"
    "  oi[i] = int(b);\n"
    "  ou[i] = as_type<ushort>(b);\n"
    "}\n";

static void test_convert_shape(void **state)
{
    (void)state;
    IsaProgram *p = ch_compile(convert_src, NULL);
    bool narrow = false, widen = false, to_half = false;
    for (uint32_t i = 0; i < p->count; i++) {
        const IsaInst *in = &p->code[i];
        if (in->op != ISA_OP_CVT)
            continue;
        narrow |= in->type == ISA_TYPE_BF16 && in->src_type == ISA_TYPE_F32 &&
                  in->opd[0].kind == ISA_OPD_R16;
        widen |= in->type == ISA_TYPE_F32 && in->src_type == ISA_TYPE_BF16;
        to_half |= in->type == ISA_TYPE_F16 && in->src_type == ISA_TYPE_BF16;
    }
    CH_EXPECT(p, narrow && widen && to_half);
    /* bfloat lives in memory as 16 bits, loaded into and stored from register halves */
    CH_EXPECT(p, ch_count_mem(p, ISA_OP_ST_DEV, ISA_FMT_H16, 1) >= 4);
    CH_EXPECT(p, ch_count_mem(p, ISA_OP_LD_DEV, ISA_FMT_H16, 1) == 1);
    isa_program_free(p);
}

static void test_convert_exec(void **state)
{
    (void)state;
    static const uint32_t in_bits[] = {
        0x3f800000u, /* 1 */
        0x3f808000u, /* 1 + 2^-8: a tie, to even 1 */
        0x3f818000u, /* 1 + 3*2^-8: a tie, to even 1 + 2^-6 */
        0x3f808001u, /* just above the tie: up */
        0x3f807fffu, /* just below: down */
        0xbf818000u, /* a negative tie */
        0x3dcccccdu, /* 0.1 */
        0x7f7fffffu, /* FLT_MAX: rounds to inf */
        0x7f7f7fffu, /* the largest bfloat after rounding */
        0x7f800000u, 0xff800000u, /* infinities */
        0x7fc00001u, 0xff812345u, /* NaNs (the second signalling) */
        0x00018000u, /* a subnormal tie: to even 2 */
        0x80000000u, /* -0 */
        0x47c35000u, /* 100000 */
        0x4b000001u, /* 2^23 + 1 */
        0xc2f6e979u, /* -123.456 */
        0x3fffffffu, /* rounds up to 2 */
        0x477fe000u, /* 65504 (half's largest) */
    };
    enum { N = sizeof in_bits / sizeof in_bits[0] };
    Harness h;
    ch_init(&h, convert_src, NULL);
    float *f = ch_buf(&h, 0, N * 4);
    uint16_t *ob = ch_buf(&h, 1, N * 8);
    float *of = ch_buf(&h, 2, N * 4);
    uint16_t *oh = ch_buf(&h, 3, N * 2);
    int32_t *oi = ch_buf(&h, 4, N * 4);
    uint16_t *ou = ch_buf(&h, 5, N * 2);
    for (int i = 0; i < N; i++)
        f[i] = util_bits_f32(in_bits[i]);
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        float x = f[i];
        uint16_t b = ref_f2bf(x);
        BF_EQ(ob[i * 4], b, i);
        /* half first rounds to 11 bits, then to bfloat's 8 */
        uint16_t hx = ref_half((double)x);
        float hv = util_f16_to_f32(hx);
        BF_EQ(ob[i * 4 + 1], h_f16_is_nan(hx) ? 0x7fc0 : ref_f2bf(hv), i);
        BF_EQ(ob[i * 4 + 2], ref_f2bf((float)(i * 257)), i); /* exact in float: one rounding */
        BF_EQ(ob[i * 4 + 3], (uint16_t)(b ^ 0x8000), i);
        if (!bf_is_nan(b))
            CH_FEQ(of[i], ref_bf2f(b), i);
        else
            assert_true(isnan(of[i]));
        double bv = (double)ref_bf2f(b);
        uint16_t want_h = ref_half(bv);
        if (!(h_f16_is_nan(oh[i]) && bf_is_nan(b)))
            CH_IEQ(oh[i], want_h, i);
        int32_t want_i = bf_is_nan(b) ? 0 : bv >= 2147483647.0 ? INT32_MAX
                         : bv <= -2147483648.0 ? INT32_MIN : (int32_t)bv;
        CH_IEQ(oi[i], want_i, i);
        BF_EQ(ou[i], b, i);
    }
    /* named outcomes, as a reader would check them by hand */
    assert_int_equal(ob[1 * 4], 0x3f80);
    assert_int_equal(ob[2 * 4], 0x3f82);
    assert_int_equal(ob[7 * 4], 0x7f80);
    assert_int_equal(ob[11 * 4], 0x7fc0);
    assert_int_equal(ob[12 * 4], 0xffc1);
    assert_int_equal(ob[13 * 4], 0x0002);
    assert_int_equal(ob[16 * 4], 0x4b00);
    h_free(&h);
}

/* ---- arithmetic ---------------------------------------------------------------------------- */

static const char *arith_src =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "constant bfloat TIE = 1.00390625;\n"   /* 1 + 2^-8: folds to 1 */
    "kernel void k(device const bfloat *a [[buffer(0)]], device const bfloat *b [[buffer(1)]],\n"
    "              device bfloat *o [[buffer(2)]], device int *c [[buffer(3)]],\n"
    "              device bfloat4 *v [[buffer(4)]], uint i [[thread_position_in_grid]]) {\n"
    "  bfloat x = a[i], y = b[i];\n"
    "  o[i * 8] = x + y;\n"
    "  o[i * 8 + 1] = x - y;\n"
    "  o[i * 8 + 2] = x * y;\n"
    "  o[i * 8 + 3] = x / y;\n"
    "  o[i * 8 + 4] = x * y + x;\n"           /* rounded after each operation */
    "  bfloat z = x;\n"
    "  z += 1.0f;\n"                           /* in float, rounded back */
    "  z++;\n"
    "  o[i * 8 + 5] = z;\n"
    "  o[i * 8 + 6] = x * 3;\n"                /* bfloat with int: bfloat */
    "  o[i * 8 + 7] = TIE;\n"
    "  c[i] = (x < y) | (x == y) << 1 | (x >= y) << 2 | (x != y) << 3 | (bool(x) << 4);\n"
    "  bfloat4 w = v[i];\n"
    "  v[i] = w * bfloat4(x, y, 2, -1) + w.wzyx;\n"
    "}\n";

static void test_arith_exec(void **state)
{
    (void)state;
    static const uint16_t A[] = {0x3f80, 0x3f81, 0x4049, 0xbfc0, 0x7f7f, 0x0001, 0x7fc0,
                                 0x7f80, 0x0000, 0x8000, 0x42c8, 0x3c23};
    static const uint16_t B[] = {0x3b80, 0x3f81, 0x3eaa, 0x4040, 0x4000, 0x0001, 0x3f80,
                                 0x7f80, 0x0000, 0x3f80, 0xc2c8, 0x3f7f};
    enum { N = sizeof A / sizeof A[0] };
    Harness h;
    ch_init(&h, arith_src, NULL);
    uint16_t *a = ch_buf(&h, 0, N * 2);
    uint16_t *b = ch_buf(&h, 1, N * 2);
    uint16_t *o = ch_buf(&h, 2, N * 16);
    int32_t *c = ch_buf(&h, 3, N * 4);
    uint16_t *v = ch_buf(&h, 4, N * 8);
    memcpy(a, A, sizeof A);
    memcpy(b, B, sizeof B);
    uint16_t vin[N * 4];
    for (int i = 0; i < N * 4; i++)
        vin[i] = ref_f2bf((float)(i % 7) * 0.37f - 1.0f);
    memcpy(v, vin, sizeof vin);
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        float x = ref_bf2f(A[i]), y = ref_bf2f(B[i]);
        BF_EQ(o[i * 8], ref_f2bf(x + y), i);
        BF_EQ(o[i * 8 + 1], ref_f2bf(x - y), i);
        BF_EQ(o[i * 8 + 2], ref_f2bf(x * y), i);
        BF_EQ(o[i * 8 + 3], ref_f2bf(x / y), i);
        BF_EQ(o[i * 8 + 4], ref_f2bf(ref_bf2f(ref_f2bf(x * y)) + x), i);
        float z = ref_bf2f(ref_f2bf(x + 1.0f));
        BF_EQ(o[i * 8 + 5], ref_f2bf(z + 1.0f), i);
        BF_EQ(o[i * 8 + 6], ref_f2bf(x * 3.0f), i);
        BF_EQ(o[i * 8 + 7], 0x3f80, i);
        int want = (x < y) | (x == y) << 1 | (x >= y) << 2 | (x != y) << 3 | ((x != 0) << 4);
        CH_IEQ(c[i], want, i);
        for (int k = 0; k < 4; k++) {
            float w = ref_bf2f(vin[i * 4 + k]), rev = ref_bf2f(vin[i * 4 + 3 - k]);
            float m = k == 0 ? x : k == 1 ? y : k == 2 ? 2.0f : -1.0f;
            BF_EQ(v[i * 4 + k], ref_f2bf(ref_bf2f(ref_f2bf(w * m)) + rev), i * 4 + k);
        }
    }
    /* 1 + 2^-7 plus itself is exact; 1 + 2^-7 times itself, 1 + 2^-6 + 2^-14, rounds down */
    assert_int_equal(o[1 * 8 + 2], 0x3f82);
    h_free(&h);
}

/* ---- library functions ------------------------------------------------------------------- */

static const char *lib_src =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void k(device const bfloat4 *a [[buffer(0)]], device bfloat *o [[buffer(1)]],\n"
    "              device int *flags [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
    "  bfloat4 x = a[i];\n"
    "  o[i * 6] = dot(x, x);\n"
    "  o[i * 6 + 1] = sqrt(abs(x.y));\n"
    "  o[i * 6 + 2] = max(x.x, x.z);\n"
    "  o[i * 6 + 3] = clamp(x.w, bfloat(-1), bfloat(1));\n"
    "  o[i * 6 + 4] = simd_shuffle_down(x.x, 1u);\n"
    "  o[i * 6 + 5] = select(x.y, x.z, x.x > x.w);\n"
    "  flags[i] = isnan(x.x) | isinf(x.y) << 1 | signbit(x.z) << 2;\n"
    "}\n";

static void test_library_exec(void **state)
{
    (void)state;
    enum { N = 32 };
    Harness h;
    ch_init(&h, lib_src, NULL);
    uint16_t *a = ch_buf(&h, 0, N * 8);
    uint16_t *o = ch_buf(&h, 1, N * 12);
    int32_t *flags = ch_buf(&h, 2, N * 4);
    for (int i = 0; i < N * 4; i++)
        a[i] = ref_f2bf(((float)((i * 37) % 23) - 11.0f) * 0.173f);
    a[5 * 4] = 0x7fc0;  /* NaN */
    a[6 * 4 + 1] = 0xff80; /* -inf */
    ch_run(&h, N, N);
    for (int i = 0; i < N; i++) {
        float x[4];
        for (int k = 0; k < 4; k++)
            x[k] = ref_bf2f(a[i * 4 + k]);
        /* dot in float, in order, then one rounding to bfloat */
        float d = x[0] * x[0];
        d = d + x[1] * x[1];
        d = d + x[2] * x[2];
        d = d + x[3] * x[3];
        BF_EQ(o[i * 6], ref_f2bf(d), i);
        if (!isinf(x[1]))
            BF_EQ(o[i * 6 + 1], ref_f2bf(sqrtf(fabsf(x[1]))), i);
        if (!isnan(x[0]))
            BF_EQ(o[i * 6 + 2], ref_f2bf(fmaxf(x[0], x[2])), i);
        BF_EQ(o[i * 6 + 3], ref_f2bf(fminf(fmaxf(x[3], -1.0f), 1.0f)), i);
        uint16_t down = i + 1 < N ? a[(i + 1) * 4] : a[i * 4];
        BF_EQ(o[i * 6 + 4], down, i);
        BF_EQ(o[i * 6 + 5], x[0] > x[3] ? a[i * 4 + 2] : a[i * 4 + 1], i);
        CH_IEQ(flags[i], (isnan(x[0]) != 0) | (isinf(x[1]) != 0) << 1 | (signbit(x[2]) != 0) << 2, i);
    }
    h_free(&h);
}

/* ---- what is refused --------------------------------------------------------------------- */

static void test_refused(void **state)
{
    (void)state;
    const char *head = "kernel void k(device bfloat *b [[buffer(0)]], device half *h "
                       "[[buffer(1)]], uint i [[thread_position_in_grid]]) {\n";
    static const struct { const char *body, *want; } cases[] = {
        {"  b[i] = b[i] + h[i];\n", "half and bfloat do not convert to each other implicitly"},
        {"  b[i] = (bfloat4(b[i]) * h[i]).x;\n", "invalid operands to binary expression "
                                                  "('bfloat4' and 'half')"},
        {"  b[i] = max(b[i], h[i]);\n", "'max' mixes half and bfloat arguments"},
        {"  float c; b[i] = sincos(b[i], c);\n", "'sincos' on bfloat is not supported"},
        {"  b[i] = b[i] % b[i];\n", "invalid operands to binary expression ('bfloat' and "
                                    "'bfloat')"},
        {"  simdgroup_bfloat8x8 m;\n", "bfloat simdgroup matrices are not supported yet"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char src[1024];
        snprintf(src, sizeof src, "%s%s}\n", head, cases[i].body);
        ch_expect_error(src, NULL, cases[i].want);
    }
    /* an explicit conversion between them is fine, and rounds once */
    IsaProgram *p = ch_compile("kernel void k(device bfloat *b [[buffer(0)]], device half *h "
                               "[[buffer(1)]], uint i [[thread_position_in_grid]]) {\n"
                               "  b[i] = bfloat(h[i]) + b[i];\n  h[i] = half(b[i]);\n}\n", NULL);
    isa_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convert_shape),
        cmocka_unit_test(test_convert_exec),
        cmocka_unit_test(test_arith_exec),
        cmocka_unit_test(test_library_exec),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
