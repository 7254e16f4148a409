/*
 * test_numerics_int.c — pins the integer arithmetic and conversion rules of the kernel
 * language end to end (docs/numerics.md, "Arithmetic rules"): integer promotion and
 * wrap-around as in C for char..uint and long/ulong, signed and unsigned comparison, shifts
 * (the amount taken modulo the width, MSL 3.1), division and remainder truncating toward
 * zero, lockstep's values for division by zero; conversions: float -> integer saturating
 * with NaN -> 0, int -> float and float -> half rounding to nearest even, half -> float
 * exact, bool, implicit conversions in assignments, arguments and returns, and vector
 * conversions by constructor. Kernels run on the simulator and are compared with C
 * reference code written here; constant-folded forms must give the run-time values.
 */
#include "numerics_harness.h"


static uint32_t rng = 0x61c88647u;
static uint32_t rnd(void)
{
    rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5;
    return rng;
}

/* ---- integer operations by type -------------------------------------------------------------- */

typedef struct IntType {
    const char *name;
    int bytes;
    bool is_signed;
} IntType;

static const IntType itypes[] = {{"char", 1, true},  {"uchar", 1, false}, {"short", 2, true},
                                 {"ushort", 2, false}, {"int", 4, true},  {"uint", 4, false}};

enum { NO = 15, NW = 6 };

/* The value of element i (its bytes in buf) promoted to 32 bits: sign- or zero-extended. */
static uint32_t load_elem(const IntType *t, const uint8_t *buf, uint32_t i)
{
    uint32_t v = 0;
    memcpy(&v, buf + (size_t)i * t->bytes, t->bytes); /* little-endian host */
    int sh = 32 - 8 * t->bytes;
    return t->is_signed && sh ? (uint32_t)((int32_t)(v << sh) >> sh) : v;
}

/* C's rules on promoted operands: everything narrower than int is int; uint stays uint. */
static void ref_int_ops(const IntType *t, uint32_t x, uint32_t y, uint32_t o[NO], uint32_t w[NW])
{
    bool u = !strcmp(t->name, "uint");
    int32_t sx = (int32_t)x, sy = (int32_t)y;
    o[0] = x + y, o[1] = x - y, o[2] = x * y;
    o[3] = u ? x / y : (uint32_t)(sx / sy);
    o[4] = u ? x % y : (uint32_t)(sx % sy);
    o[5] = x & y, o[6] = x | y, o[7] = x ^ y;
    o[8] = x << (y & 31);
    o[9] = u ? x >> (y & 31) : (uint32_t)(sx >> (y & 31));
    o[10] = u ? x < y : sx < sy;
    o[11] = u ? x <= y : sx <= sy;
    o[12] = x == y;
    o[13] = ~x, o[14] = 0u - x;
    w[0] = x + y, w[1] = x * y, w[2] = x - y, w[3] = ~x, w[4] = x + 1, w[5] = o[3];
}

/* Every operator on every 32-bit-or-narrower type, over edge values and random pairs: the
 * promoted result (stored to an int) and the result stored back to the operand type. */
static void test_int_ops_sweep(void **state)
{
    (void)state;
    enum { N = 8192 };
    static const int64_t edges[] = {0, 1, -1, 2, -2, 7, -7, 100, 127, 128, 200, 255, 256, 300,
                                    -128, -129, 32767, 32768, 65535, 65536, -32768, 2147483647,
                                    -2147483647, 31, 32, 33, 8, 16};
    enum { NE = sizeof edges / sizeof edges[0] };
    for (size_t ti = 0; ti < sizeof itypes / sizeof itypes[0]; ti++) {
        const IntType *t = &itypes[ti];
        uint8_t *a = calloc(N, 4), *b = calloc(N, 4), *w = calloc((size_t)N * NW, 4);
        uint32_t *o = calloc((size_t)N * NO, 4);
        for (uint32_t i = 0; i < N; i++) {
            uint32_t x = i < NE * NE ? (uint32_t)edges[i / NE] : rnd();
            uint32_t y = i < NE * NE ? (uint32_t)edges[i % NE] : rnd();
            if (i >= NE * NE && i % 3 == 0)
                y = rnd() % 40; /* small shift amounts and divisors */
            memcpy(a + (size_t)i * t->bytes, &x, t->bytes);
            memcpy(b + (size_t)i * t->bytes, &y, t->bytes);
            uint32_t px = load_elem(t, a, i), py = load_elem(t, b, i);
            if (py == 0 || (t->bytes == 4 && t->is_signed && px == 0x80000000u && py == 0xffffffffu)) {
                py = 3; /* division by zero and INT_MIN / -1: test_int_rules */
                memcpy(b + (size_t)i * t->bytes, &py, t->bytes);
            }
        }
        char src[2048];
        snprintf(src, sizeof src, HDR
                 "kernel void k(device const %1$s *a [[buffer(0)]], device const %1$s *b [[buffer(1)]],\n"
                 "              device int *o [[buffer(2)]], device %1$s *w [[buffer(3)]],\n"
                 "              uint i [[thread_position_in_grid]]) {\n"
                 "    %1$s x = a[i], y = b[i];\n"
                 "    device int *r = o + %2$d * i;\n"
                 "    r[0] = x + y; r[1] = x - y; r[2] = x * y; r[3] = x / y; r[4] = x %% y;\n"
                 "    r[5] = x & y; r[6] = x | y; r[7] = x ^ y; r[8] = x << y; r[9] = x >> y;\n"
                 "    r[10] = x < y; r[11] = x <= y; r[12] = x == y; r[13] = ~x; r[14] = -x;\n"
                 "    device %1$s *s = w + %3$d * i;\n"
                 "    s[0] = x + y; s[1] = x * y; s[2] = x - y; s[3] = ~x;\n"
                 "    %1$s z = x; z++; s[4] = z;\n"
                 "    %1$s q = x; q /= y; s[5] = q;\n"
                 "}\n", t->name, NO, NW);
        void *bufs[] = {a, b, o, w};
        size_t sizes[] = {(size_t)N * t->bytes, (size_t)N * t->bytes, (size_t)N * NO * 4,
                          (size_t)N * NW * t->bytes};
        run(src, NULL, bufs, sizes, 4, N);
        uint32_t mask = t->bytes == 4 ? 0xffffffffu : (1u << (8 * t->bytes)) - 1;
        for (uint32_t i = 0; i < N; i++) {
            uint32_t x = load_elem(t, a, i), y = load_elem(t, b, i), wo[NO], ww[NW];
            ref_int_ops(t, x, y, wo, ww);
            for (int k = 0; k < NO; k++)
                if (o[i * NO + k] != wo[k])
                    fail_msg("%s %#x op#%d %#x: got %#x want %#x", t->name, x, k, y, o[i * NO + k], wo[k]);
            for (int k = 0; k < NW; k++) {
                uint32_t got = load_elem(t, w, i * NW + k) & mask;
                if (got != (ww[k] & mask))
                    fail_msg("%s %#x store#%d %#x: got %#x want %#x", t->name, x, k, y, got, ww[k] & mask);
            }
        }
        free(a), free(b), free(o), free(w);
    }
}

/* Named rules, once with run-time operands and once with constants the parser folds. The
 * wanted values are worked out by hand from C's promotion and MSL 3.1; the division by zero
 * values are lockstep's (MSL leaves them undefined). */
static const char *const rules_src =
    "    uchar a = V(0), b = V(1);\n"
    "    o[0] = a + b;\n"                          /* 300: promoted to int */
    "    uchar c = a + b; o[1] = c;\n"             /* 44 */
    "    ushort s = V(2); o[2] = s * s;\n"         /* int 0xfffe0001 wraps */
    "    ushort s2 = V(11); o[3] = s2 * s2;\n"     /* 90000 */
    "    ushort r = s2 * s2; o[4] = r;\n"          /* 24464 */
    "    int m = V(5); o[5] = m + 1;\n"            /* INT_MIN */
    "    o[6] = V(6) / -1; o[7] = V(6) % -1;\n"   /* INT_MIN, 0 */
    "    o[8] = -V(7) / V(9); o[9] = -V(7) % V(9);\n"   /* -3, -1 */
    "    o[10] = V(7) / -V(9); o[11] = V(7) % -V(9);\n" /* -3, 1 */
    "    o[12] = V(7) / V(10); o[13] = V(7) % V(10);\n" /* -1, 7 */
    "    o[14] = uint(V(7)) / uint(V(10)); o[15] = uint(V(7)) % uint(V(10));\n" /* ~0u, 7 */
    "    int n1 = V(3); uint one = V(4);\n"
    "    o[16] = n1 < one;\n"                      /* 0: -1 becomes 0xffffffff */
    "    o[17] = n1 < int(one);\n"                 /* 1 */
    "    short sn = V(3); ushort su = V(4); o[18] = sn < su;\n" /* 1: both int */
    "    char cn = V(3); uchar cu = V(14); o[19] = cn == cu;\n" /* 0: -1 vs 255 */
    "    uint un = n1; o[20] = un == -1;\n"       /* 1 */
    "    uint zero = V(10); o[21] = zero - 1u > 0u;\n" /* 1 */
    "    o[22] = V(4) << 33;\n"                    /* 2: amount mod 32 */
    "    o[23] = V(4) << V(15);\n"                 /* 2 */
    "    o[24] = -V(16) >> 1;\n"                   /* -4 */
    "    o[25] = uint(V(6)) >> 31;\n"              /* 1 */
    "    uchar h80 = V(17); o[26] = h80 << 1;\n"   /* 256 */
    "    char c80 = V(12); o[27] = c80 >> 1;\n"    /* -64 */
    "    o[28] = V(6) >> 31;\n"                    /* -1 */
    "    uchar u8 = V(14); u8++; o[29] = u8;\n"   /* 0 */
    "    char c8 = V(13); c8++; o[30] = c8;\n"    /* -128 */
    "    uchar cc = V(0); cc += V(1); o[31] = cc;\n" /* 44 */
    "    short ss = V(18); ss += 1; o[32] = ss;\n"  /* -32768 */
    "    o[33] = sizeof(a + b);\n"                 /* 4 */
    "    uchar z8 = V(10); o[34] = ~z8;\n"         /* -1: ~ of the promoted int */
    "    o[35] = -uint(V(4));\n"                   /* 0xffffffff */
    "    o[36] = true + true;\n"                   /* 2 */
    "    o[37] = V(4) << -1;\n"                    /* 0x80000000: -1 & 31 = 31 */
    "    o[38] = uint(V(3)) / 2u;\n"              /* 0x7fffffff */
    "    o[39] = V(3) / 2;\n"                      /* 0: toward zero */
    "    char sc = V(11); o[40] = sc;\n"           /* 300 -> 44 */
    "    short sh = V(19); o[41] = sh;\n"          /* 40000 -> -25536 */
    ;

static const int32_t rules_v[] = {200, 100, 65535, -1, 1, 2147483647, INT32_MIN, 7, 0, 2, 0,
                                  300, -128, 127, 255, 33, 8, 0x80, 32767, 40000};
static const uint32_t rules_want[] = {
    300, 44, 0xfffe0001u, 90000, 24464, 0x80000000u, 0x80000000u, 0, (uint32_t)-3, (uint32_t)-1,
    (uint32_t)-3, 1, 0xffffffffu, 7, 0xffffffffu, 7, 0, 1, 1, 0, 1, 1, 2, 2, (uint32_t)-4, 1,
    256, (uint32_t)-64, 0xffffffffu, 0, 0xffffff80u, 44, 0xffff8000u, 4, 0xffffffffu,
    0xffffffffu, 2, 0x80000000u, 0x7fffffffu, 0, 44, (uint32_t)-25536};

static void test_int_rules(void **state)
{
    (void)state;
    enum { NR = sizeof rules_want / sizeof rules_want[0] };
    for (int folded = 0; folded < 2; folded++) {
        char src[8192], body[4096];
        size_t k = 0;
        for (const char *s = rules_src; *s && k < sizeof body - 64; s++) {
            if (s[0] == 'V' && s[1] == '(') { /* V(n): v[n] at run time, or the literal */
                int idx = atoi(s + 2);
                k += (size_t)(folded ? snprintf(body + k, 64, "(%d)", rules_v[idx])
                                     : snprintf(body + k, 64, "v[%d]", idx));
                s = strchr(s, ')');
                continue;
            }
            body[k++] = *s;
        }
        body[k] = 0;
        snprintf(src, sizeof src, HDR
                 "kernel void k(device const int *v [[buffer(0)]], device int *o [[buffer(1)]],\n"
                 "              uint i [[thread_position_in_grid]]) {\n%s}\n", body);
        int32_t v[sizeof rules_v / sizeof rules_v[0]];
        memcpy(v, rules_v, sizeof v);
        uint32_t o[NR];
        memset(o, 0xaa, sizeof o);
        void *bufs[] = {v, o};
        size_t sizes[] = {sizeof v, sizeof o};
        run(src, NULL, bufs, sizes, 2, 1);
        for (int i = 0; i < NR; i++)
            if (o[i] != rules_want[i])
                fail_msg("%s rule o[%d]: got %#x want %#x", folded ? "folded" : "run-time", i, o[i],
                         rules_want[i]);
    }
}

/* long and ulong: + - * wrap modulo 2^64; int <-> long conversions as in C. */
static void test_long_rules(void **state)
{
    (void)state;
    int32_t vi[1] = {-5};
    uint32_t vu[1] = {0xffffffffu};
    int64_t vl[7] = {INT64_MAX, 1, 3, 0x123456789LL, 16777217, -1, 0x100000000LL};
    int64_t o[12];
    memset(o, 0xaa, sizeof o);
    void *bufs[] = {vi, vu, vl, o};
    size_t sizes[] = {sizeof vi, sizeof vu, sizeof vl, sizeof o};
    run(HDR "kernel void k(device const int *vi [[buffer(0)]], device const uint *vu [[buffer(1)]],\n"
            "  device const long *vl [[buffer(2)]], device long *o [[buffer(3)]],\n"
            "  uint i [[thread_position_in_grid]]) {\n"
            "    o[0] = vl[0] + vl[1];\n"
            "    o[1] = vl[0] * vl[2];\n"
            "    ulong ux = vl[5]; o[2] = ux + 1;\n"
            "    o[3] = long(vi[0]);\n"
            "    o[4] = ulong(vu[0]);\n"
            "    o[5] = ulong(vi[0]);\n"
            "    o[6] = int(vl[3]);\n"
            "    o[7] = vl[1] - vi[0];\n"
            "    o[8] = long(float(vl[4]));\n"
            "    o[9] = vl[0] == vl[0];\n"
            "    o[10] = bool(vl[6]);\n"
            "    o[11] = long(-1.5e19f);\n"
            "}\n", NULL, bufs, sizes, 4, 1);
    assert_true(o[0] == INT64_MIN);
    assert_true(o[1] == 0x7ffffffffffffffdLL); /* 3 * (2^63 - 1) mod 2^64 */
    assert_true(o[2] == 0);
    assert_true(o[3] == -5);
    assert_true(o[4] == 0xffffffffLL);
    assert_true((uint64_t)o[5] == 0xfffffffffffffffbull);
    assert_true(o[6] == 0x23456789);
    assert_true(o[7] == 6);
    assert_true(o[8] == 16777216);
    assert_true(o[9] == 1);
    assert_true(o[10] == 1);
    assert_true(o[11] == INT64_MIN);
}

/* ---- conversions ------------------------------------------------------------------------------- */

/* float -> integer: toward zero, saturating to the destination's range, NaN -> 0. */
static int64_t ref_f2i(double x, int64_t lo, int64_t hi)
{
    if (isnan(x))
        return 0;
    if (x <= (double)lo)
        return lo;
    if (x >= (double)hi)
        return hi;
    return (int64_t)trunc(x);
}

static const float cedge[] = {0.0f, -0.0f, 0.5f, -0.5f, 0.99999994f, -0.99999994f, 1.5f, -1.5f,
                              -2.7f, 127.5f, 128.0f, -128.5f, -129.0f, 255.9f, 256.0f, 32767.9f,
                              32768.0f, -32768.9f, -32769.0f, 65535.5f, 65536.0f, 2147483520.0f,
                              2147483648.0f, -2147483648.0f, -2147483904.0f, 4294967040.0f,
                              4294967296.0f, 1e30f, -1e30f, INFINITY, -INFINITY, NAN, -NAN,
                              0x1p-149f, 65504.0f, 65519.0f, 65520.0f, 16777217.0f, 1e-7f,
                              0x1.ffcp-15f, 0x1p-25f, 0x1.8p-24f};
#define NCEDGE (sizeof cedge / sizeof cedge[0])

/* Sweeps float -> every integer type, -> bool and -> half, and int/uint -> float and half. */
static void test_conversion_sweep(void **state)
{
    (void)state;
    enum { N = 1 << 15, NI = 8 };
    uint32_t *f = calloc(N, 4), *si = calloc(N, 4), *ui = calloc(N, 4), *o = calloc((size_t)N * NI, 4);
    uint32_t *of = calloc(2 * N, 4);
    uint16_t *oh = calloc(3 * N, 2);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t r = rnd();
        f[i] = i < NCEDGE ? h_fbits(cedge[i]) : i % 2 ? r : h_fbits((float)(int32_t)r * 0x1p-16f * (float)(i % 7));
        si[i] = i % 3 == 0 ? rnd() : (uint32_t)((int32_t)(rnd() % 200001) - 100000) + (i % 5 == 0 ? 16777216u : 0);
        ui[i] = i % 4 == 0 ? 0xffffff00u + (rnd() & 0xff) : rnd() >> (rnd() % 32);
    }
    void *bufs[] = {f, si, ui, o, of, oh};
    size_t sizes[] = {N * 4, N * 4, N * 4, (size_t)N * NI * 4, N * 8, N * 6};
    run(HDR "kernel void k(device const float *f [[buffer(0)]], device const int *si [[buffer(1)]],\n"
            "  device const uint *ui [[buffer(2)]], device int *o [[buffer(3)]],\n"
            "  device float *of [[buffer(4)]], device half *oh [[buffer(5)]],\n"
            "  uint i [[thread_position_in_grid]]) {\n"
            "    float x = f[i];\n"
            "    device int *r = o + 8 * i;\n"
            "    r[0] = int(x); r[1] = uint(x); r[2] = short(x); r[3] = ushort(x);\n"
            "    r[4] = char(x); r[5] = uchar(x); r[6] = bool(x); r[7] = int(half(x));\n"
            "    of[2 * i] = float(si[i]); of[2 * i + 1] = float(ui[i]);\n"
            "    oh[3 * i] = half(x); oh[3 * i + 1] = half(si[i]); oh[3 * i + 2] = half(ui[i]);\n"
            "}\n", NULL, bufs, sizes, 6, N);
    static const int64_t lo[] = {INT32_MIN, 0, -32768, 0, -128, 0}, hi[] = {INT32_MAX, UINT32_MAX, 32767, 65535, 127, 255};
    for (uint32_t i = 0; i < N; i++) {
        float x = h_bitsf(f[i]);
        uint32_t want[NI];
        for (int k = 0; k < 6; k++)
            want[k] = (uint32_t)ref_f2i(x, lo[k], hi[k]);
        want[6] = x != 0; /* NaN is true */
        want[7] = (uint32_t)ref_f2i(half_val(ref_half(x)), INT32_MIN, INT32_MAX);
        for (int k = 0; k < NI; k++)
            if (o[i * NI + k] != want[k])
                fail_msg("conversion #%d of %a: got %#x want %#x", k, x, o[i * NI + k], want[k]);
        float w0 = (float)(int32_t)si[i], w1 = (float)ui[i]; /* C: nearest even */
        if (of[2 * i] != h_fbits(w0) || of[2 * i + 1] != h_fbits(w1))
            fail_msg("int %d / uint %u -> float: got %a %a want %a %a", (int32_t)si[i], ui[i],
                     h_bitsf(of[2 * i]), h_bitsf(of[2 * i + 1]), w0, w1);
        uint16_t wh[3] = {ref_half(x), ref_half((int32_t)si[i]), ref_half(ui[i])};
        for (int k = 0; k < 3; k++)
            if (oh[3 * i + k] != wh[k] && !(half_nan(oh[3 * i + k]) && half_nan(wh[k])))
                fail_msg("-> half #%d (%a, %d, %u): got %#06x want %#06x", k, x, (int32_t)si[i], ui[i],
                         oh[3 * i + k], wh[k]);
    }
    free(f), free(si), free(ui), free(o), free(of), free(oh);
}

/* Every half: to float exactly, to int/uchar/short saturating (inf saturates, NaN -> 0). */
static void test_half_conversions_exhaustive(void **state)
{
    (void)state;
    enum { N = 65536 };
    uint16_t *h = calloc(N, 2);
    uint32_t *of = calloc(N, 4), *o = calloc(3 * (size_t)N, 4);
    for (uint32_t i = 0; i < N; i++)
        h[i] = (uint16_t)i;
    void *bufs[] = {h, of, o};
    size_t sizes[] = {N * 2, N * 4, (size_t)N * 12};
    run(HDR "kernel void k(device const half *h [[buffer(0)]], device float *of [[buffer(1)]],\n"
            "  device int *o [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
            "    half x = h[i];\n"
            "    of[i] = x;\n"
            "    o[3 * i] = int(x); o[3 * i + 1] = uchar(x); o[3 * i + 2] = short(x);\n"
            "}\n", NULL, bufs, sizes, 3, N);
    for (uint32_t i = 0; i < N; i++) {
        double v = half_val((uint16_t)i);
        float g = h_bitsf(of[i]);
        if (isnan(v) ? !isnan(g) : (double)g != v || !signbit(g) != !signbit(v))
            fail_msg("half %#06x -> float: got %a want %a", i, g, v);
        uint32_t want[3] = {(uint32_t)ref_f2i(v, INT32_MIN, INT32_MAX), (uint32_t)ref_f2i(v, 0, 255),
                            (uint32_t)ref_f2i(v, -32768, 32767)};
        for (int k = 0; k < 3; k++)
            if (o[3 * i + k] != want[k])
                fail_msg("half %#06x -> int #%d: got %#x want %#x", i, k, o[3 * i + k], want[k]);
    }
    free(h), free(of), free(o);
}

/* Implicit conversions where C++ puts them: initialisation, assignment, arguments, returns,
 * conditions, the ternary's arms, scalar-to-vector broadcast. */
static void test_implicit_conversions(void **state)
{
    (void)state;
    int32_t vi[4] = {16777217, 300, 0, 256};
    float vf[9] = {0.1f, -3.99f, 2.9f, 3e9f, -5.5f, 1e6f, 0.5f, -0.0f, NAN};
    int32_t o[13];
    float of[6];
    memset(o, 0xaa, sizeof o), memset(of, 0xaa, sizeof of);
    void *bufs[] = {vi, vf, o, of};
    size_t sizes[] = {sizeof vi, sizeof vf, sizeof o, sizeof of};
    run(HDR "float ff(float x) { return x; }\n"
            "half hh(half x) { return x; }\n"
            "int ii(int x) { return x; }\n"
            "int ret_int(float x) { return x; }\n"
            "uchar ret_uchar(int x) { return x; }\n"
            "kernel void k(device const int *vi [[buffer(0)]], device const float *vf [[buffer(1)]],\n"
            "  device int *o [[buffer(2)]], device float *of [[buffer(3)]],\n"
            "  uint i [[thread_position_in_grid]]) {\n"
            "    int big = vi[0];\n"
            "    of[0] = ff(big);\n"
            "    float g = big; of[1] = g;\n"
            "    of[2] = hh(vf[0]);\n"
            "    o[0] = ii(vf[1]);\n"
            "    o[1] = ret_int(vf[2]);\n"
            "    o[2] = ret_uchar(vi[1]);\n"
            "    int t; t = vf[3]; o[3] = t;\n"
            "    uint u = vf[4]; o[4] = u;\n"
            "    float4 f4 = big; of[3] = f4.w;\n"
            "    half h = big; of[4] = h;\n"
            "    uchar c = vf[5]; o[5] = c;\n"
            "    bool b = vf[6]; o[6] = b;\n"
            "    bool bz = vf[7]; o[7] = bz;\n"
            "    bool bn = vf[8]; o[8] = bn;\n"
            "    bool bi = vi[3]; o[9] = bi;\n"
            "    o[10] = (vi[3] && vf[6]) + !vf[8];\n"
            "    of[5] = vi[0] > 0 ? vf[0] : 1;\n"
            "    o[11] = vf[7] ? 5 : 6;\n"
            "    o[12] = bool(vi[3]) + bool(vi[2]);\n"
            "}\n", NULL, bufs, sizes, 4, 1);
    assert_true(of[0] == 16777216.0f);  /* int argument to float: nearest even */
    assert_true(of[1] == 16777216.0f);
    assert_true(of[2] == 0.0999755859375f); /* float argument to half */
    assert_int_equal(o[0], -3);        /* toward zero */
    assert_int_equal(o[1], 2);
    assert_int_equal(o[2], 44);        /* 300 mod 256 */
    assert_int_equal(o[3], INT32_MAX); /* saturates */
    assert_int_equal(o[4], 0);         /* negative float to uint */
    assert_true(of[3] == 16777216.0f);
    assert_true(isinf(of[4]) && of[4] > 0); /* 16777217 is beyond half's range */
    assert_int_equal(o[5], 255);
    assert_int_equal(o[6], 1);         /* 0.5 is true: no truncation to int first */
    assert_int_equal(o[7], 0);         /* -0 is false */
    assert_int_equal(o[8], 1);         /* NaN is true */
    assert_int_equal(o[9], 1);         /* 256 is true: not truncated to a byte */
    assert_int_equal(o[10], 1);        /* true + !NaN (false) */
    assert_true(of[5] == 0.1f);
    assert_int_equal(o[11], 6);
    assert_int_equal(o[12], 1);
}

/* Vector conversions by constructor apply the scalar rule per component; a scalar operand of
 * a vector op converts to the vector's element type (MSL 3.1), so int4 + 1.5f is int4 + 1. */
static void test_vector_conversions(void **state)
{
    (void)state;
    int32_t vi[8] = {16777217, 16777219, -16777217, INT32_MAX, 300, -1, 255, 256};
    float vf[16] = {3e9f, -3e9f, NAN, -2.7f, -1.5f, 5e9f, 4294967040.0f, 0.99f,
                    65519.0f, 65520.0f, 0.1f, 1e-7f, 2.5f, -0.5f, 1e5f, -65504.0f};
    float of[8];
    int32_t oi[8];
    uint32_t ou[4];
    uint16_t oh[8];
    uint8_t oc[4];
    void *bufs[] = {vi, vf, of, oi, ou, oh, oc};
    size_t sizes[] = {sizeof vi, sizeof vf, sizeof of, sizeof oi, sizeof ou, sizeof oh, sizeof oc};
    run(HDR "kernel void k(device const int4 *vi [[buffer(0)]], device const float4 *vf [[buffer(1)]],\n"
            "  device float4 *of [[buffer(2)]], device int4 *oi [[buffer(3)]],\n"
            "  device uint4 *ou [[buffer(4)]], device half4 *oh [[buffer(5)]],\n"
            "  device uchar4 *oc [[buffer(6)]], uint i [[thread_position_in_grid]]) {\n"
            "    of[0] = float4(vi[0]);\n"
            "    oi[0] = int4(vf[0]);\n"
            "    ou[0] = uint4(vf[1]);\n"
            "    oh[0] = half4(vf[2]);\n"
            "    oc[0] = uchar4(vi[1]);\n"
            "    oi[1] = vi[1] + 1.5f;\n"
            "    half4 h = half4(vf[3]);\n"
            "    oh[1] = h + 1.0f;\n"
            "    of[1] = 2;\n"
            "}\n", NULL, bufs, sizes, 7, 1);
    assert_true(of[0] == 16777216.0f && of[1] == 16777220.0f && of[2] == -16777216.0f &&
                of[3] == 2147483648.0f);
    assert_int_equal(oi[0], INT32_MAX), assert_int_equal(oi[1], INT32_MIN);
    assert_int_equal(oi[2], 0), assert_int_equal(oi[3], -2);
    assert_int_equal(ou[0], 0), assert_int_equal(ou[1], 0xffffffffu);
    assert_int_equal(ou[2], 4294967040u), assert_int_equal(ou[3], 0);
    assert_int_equal(oh[0], 0x7bff), assert_int_equal(oh[1], 0x7c00);
    assert_int_equal(oh[2], 0x2e66), assert_int_equal(oh[3], 0x0002); /* 1e-7 = 1.68 * 2^-24 */
    assert_int_equal(oc[0], 44), assert_int_equal(oc[1], 255), assert_int_equal(oc[2], 255);
    assert_int_equal(oc[3], 0);
    assert_int_equal(oi[4], 301), assert_int_equal(oi[5], 0), assert_int_equal(oi[6], 256);
    assert_int_equal(oi[7], 257);
    /* half4(2.5, -0.5, 1e5, -65504) + 1: 3.5, 0.5, inf + 1, -65503 -> -65504 (half spacing 32) */
    assert_int_equal(oh[4], 0x4300), assert_int_equal(oh[5], 0x3800);
    assert_int_equal(oh[6], 0x7c00), assert_int_equal(oh[7], 0xfbff);
    for (int k = 4; k < 8; k++)
        assert_true(of[k] == 2.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_ops_sweep),
        cmocka_unit_test(test_int_rules),
        cmocka_unit_test(test_long_rules),
        cmocka_unit_test(test_conversion_sweep),
        cmocka_unit_test(test_half_conversions_exhaustive),
        cmocka_unit_test(test_implicit_conversions),
        cmocka_unit_test(test_vector_conversions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
