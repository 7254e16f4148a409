/*
 * test_int64.c — long and ulong end to end: every operator (/ % & | ^ << >> ~ unary -,
 * the six comparisons signed and unsigned, ++/--, compound assignment), conditions, ?:,
 * switch on 64-bit values, min/max/abs/clamp/mulhi, and the SIMD-group and quad functions
 * (shuffles, broadcasts, sum/min/max/and/or/xor reductions and prefix sums) on 64-bit
 * values. Kernels compiled from Metal run on the simulator; every expected value comes from
 * C reference code written here (lockstep's documented values where C is undefined:
 * x / 0, x % 0, INT64_MIN / -1, shift counts taken mod 64, signed wrap-around).
 */
#include "../sim/sim_harness.h"

#include "../../lang/lang.h"

#define HDR "#include <metal_stdlib>\nusing namespace metal;\n"

/* Compiles src; bufs[k] (sizes[k] bytes) is bound to [[buffer(k)]] and copied back after n
 * threads (threadgroups of tg) ran. */
static void run(const char *src, void *const bufs[], const size_t sizes[], uint32_t nbufs,
                uint32_t n, uint32_t tg)
{
    UtilError err = {{0}};
    IsaProgram *p = lang_compile_source(src, "int64.metal", NULL, NULL, &err);
    if (!p) {
        print_error("source:\n%s\n", src);
        fail_msg("compile failed: %s", err.message);
    }
    Harness h;
    memset(&h, 0, sizeof h);
    h.dev = mem_device_new();
    h.prog = p;
    for (uint32_t a = 0; a < p->num_args; a++) {
        uint32_t b = (uint32_t)p->args[a].binding;
        assert_true(b < nbufs);
        memcpy(h_buffer(&h, a, "b", sizes[b], MEM_SPACE_DEVICE), bufs[b], sizes[b]);
    }
    h.launch.instruction_budget = UINT64_MAX / 4;
    h_run1(&h, n, tg);
    h_expect_no_faults(&h);
    for (uint32_t a = 0; a < p->num_args; a++)
        memcpy(bufs[p->args[a].binding], h_data(&h, a), sizes[p->args[a].binding]);
    h_free(&h);
}

static const uint64_t edges[] = {
    0, 1, 2, 3, 5, 63, 64, 65, 100, 0x7fffffffull, 0x80000000ull, 0xffffffffull,
    0x100000000ull, 0x100000001ull, 0x123456789abcdef0ull, 0x7fffffffffffffffull,
    0x8000000000000000ull, 0xffffffffffffffffull, 0xfffffffffffffffeull,
    0xfffffffffffffff9ull, 0xffffffff00000000ull, 0xdeadbeefcafebabeull, 1000000007ull,
};
#define NE (sizeof edges / sizeof edges[0])

static uint32_t rng = 0x9e3779b9u;
static uint64_t rnd64(void)
{
    uint64_t r = 0;
    for (int i = 0; i < 2; i++) {
        rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5;
        r = r << 32 | rng;
    }
    return r;
}

/* ---- operators --------------------------------------------------------------------------- */

enum { NOUT = 40 };

static const char *ops_body =
    "    T a = x[i], b = y[i];\n"
    "    device T *r = o + i * 40;\n"
    "    r[0] = a / b; r[1] = a % b; r[2] = a & b; r[3] = a | b; r[4] = a ^ b;\n"
    "    r[5] = a << b; r[6] = a >> b; r[7] = ~a; r[8] = -a;\n"
    "    r[9] = a < b; r[10] = a <= b; r[11] = a > b; r[12] = a >= b;\n"
    "    r[13] = a == b; r[14] = a != b;\n"
    "    int s = int(b & 127);\n"
    "    r[15] = a << s; r[16] = a >> s;\n"
    "    T c = a; c += b; r[17] = c;\n"
    "    c -= 7; c *= b; r[18] = c;\n"
    "    c /= b; r[19] = c;\n"
    "    c = a; c %= b; c <<= 3; c >>= 1; r[20] = c;\n"
    "    c &= a; c |= 0x10; c ^= b; r[21] = c;\n"
    "    T d = a; d++; r[22] = d; r[23] = d--; r[24] = --d; r[25] = ++d;\n"
    "    r[26] = a < b ? a : b;\n"
    "    if (a > b) r[27] = 1; else r[27] = 2;\n"
    "    T n = a & 15, cnt = 0;\n"
    "    while (n > 0) { n--; cnt += 2; }\n"
    "    r[28] = cnt;\n"
    "    r[29] = a ? 1 : 0; r[30] = !a; r[31] = a && b; r[32] = a || b;\n"
    "    r[33] = min(a, b); r[34] = max(a, b); r[35] = clamp(a, T(5), T(1000000));\n"
    "    r[36] = abs(a); r[37] = mulhi(a, b);\n"
    "    switch (a) {\n"
    "    case 0x100000001: r[38] = 1; break;\n"
    "    case 1: r[38] = 2; break;\n"
    "    case -1: r[38] = 3; break;\n"
    "    default: r[38] = 4; break;\n"
    "    }\n"
    "    r[39] = (a >> 32) < (b >> 32) ? T(1) << 40 : b >> 60;\n";

static uint64_t ref_div(bool sg, uint64_t a, uint64_t b)
{
    if (b == 0)
        return ~0ull;
    if (!sg)
        return a / b;
    if ((int64_t)a == INT64_MIN && (int64_t)b == -1)
        return a;
    return (uint64_t)((int64_t)a / (int64_t)b);
}

static uint64_t ref_rem(bool sg, uint64_t a, uint64_t b)
{
    if (b == 0)
        return a;
    if (!sg)
        return a % b;
    if ((int64_t)a == INT64_MIN && (int64_t)b == -1)
        return 0;
    return (uint64_t)((int64_t)a % (int64_t)b);
}

static uint64_t ref_shr(bool sg, uint64_t a, unsigned k)
{
    k %= 64;
    uint64_t r = a >> k;
    if (sg && (a >> 63) && k)
        r |= ~0ull << (64 - k);
    return r;
}

static bool ref_lt(bool sg, uint64_t a, uint64_t b)
{
    return sg ? (int64_t)a < (int64_t)b : a < b;
}

static uint64_t ref_mulhi(bool sg, uint64_t a, uint64_t b)
{
    if (!sg)
        return (uint64_t)(((unsigned __int128)a * b) >> 64);
    __int128 p = (__int128)(int64_t)a * (__int128)(int64_t)b;
    return (uint64_t)((unsigned __int128)p >> 64);
}

static void ref_ops(bool sg, uint64_t a, uint64_t b, uint64_t r[NOUT])
{
    r[0] = ref_div(sg, a, b), r[1] = ref_rem(sg, a, b);
    r[2] = a & b, r[3] = a | b, r[4] = a ^ b;
    r[5] = a << (b % 64), r[6] = ref_shr(sg, a, (unsigned)(b % 64));
    r[7] = ~a, r[8] = 0 - a;
    r[9] = ref_lt(sg, a, b), r[10] = !ref_lt(sg, b, a), r[11] = ref_lt(sg, b, a);
    r[12] = !ref_lt(sg, a, b), r[13] = a == b, r[14] = a != b;
    unsigned s = (unsigned)(b & 127);
    r[15] = a << (s % 64), r[16] = ref_shr(sg, a, s);
    uint64_t c = a + b;
    r[17] = c;
    c = (c - 7) * b;
    r[18] = c;
    c = ref_div(sg, c, b);
    r[19] = c;
    c = ref_rem(sg, a, b) << 3;
    c = ref_shr(sg, c, 1);
    r[20] = c;
    c = ((c & a) | 0x10) ^ b;
    r[21] = c;
    r[22] = a + 1, r[23] = a + 1, r[24] = a - 1, r[25] = a;
    r[26] = ref_lt(sg, a, b) ? a : b;
    r[27] = ref_lt(sg, b, a) ? 1 : 2;
    r[28] = 2 * (a & 15);
    r[29] = a != 0, r[30] = a == 0, r[31] = a && b, r[32] = a || b;
    r[33] = ref_lt(sg, a, b) ? a : b;
    r[34] = ref_lt(sg, a, b) ? b : a;
    uint64_t lo = ref_lt(sg, a, 5) ? 5 : a;
    r[35] = ref_lt(sg, 1000000, lo) ? 1000000 : lo;
    r[36] = sg && (int64_t)a < 0 ? 0 - a : a;
    r[37] = ref_mulhi(sg, a, b);
    r[38] = a == 0x100000001ull ? 1 : a == 1 ? 2 : a == ~0ull ? 3 : 4;
    r[39] = ref_lt(sg, ref_shr(sg, a, 32), ref_shr(sg, b, 32)) ? 1ull << 40 : ref_shr(sg, b, 60);
}

static void check_ops(const char *type, bool sg)
{
    enum { N = NE * NE + 200 };
    static uint64_t x[N], y[N], o[N * NOUT];
    uint32_t n = 0;
    for (uint32_t i = 0; i < NE; i++)
        for (uint32_t j = 0; j < NE; j++, n++)
            x[n] = edges[i], y[n] = edges[j];
    for (; n < N; n++) {
        x[n] = rnd64();
        y[n] = n % 3 ? rnd64() >> (n % 61) : rnd64();
    }
    memset(o, 0xaa, sizeof o);
    char src[4096];
    snprintf(src, sizeof src,
             HDR "typedef %s T;\n"
             "kernel void k(device const T *x [[buffer(0)]], device const T *y [[buffer(1)]],\n"
             "  device T *o [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n%s}\n",
             type, ops_body);
    void *bufs[] = {x, y, o};
    size_t sizes[] = {sizeof x, sizeof y, sizeof o};
    run(src, bufs, sizes, 3, N, 64);
    for (uint32_t i = 0; i < N; i++) {
        uint64_t want[NOUT];
        ref_ops(sg, x[i], y[i], want);
        for (int k = 0; k < NOUT; k++)
            if (o[i * NOUT + k] != want[k])
                fail_msg("%s r[%d]: a=%#llx b=%#llx: expected %#llx, got %#llx", type, k,
                         (unsigned long long)x[i], (unsigned long long)y[i],
                         (unsigned long long)want[k], (unsigned long long)o[i * NOUT + k]);
    }
}

static void test_long_ops(void **state)
{
    (void)state;
    check_ops("long", true);
}

static void test_ulong_ops(void **state)
{
    (void)state;
    check_ops("ulong", false);
}

/* Constant operands fold or go through immediates and give the run-time values. */
static void test_constant_operands(void **state)
{
    (void)state;
    int64_t o[10];
    int64_t x[1] = {-1000000000000LL};
    memset(o, 0xaa, sizeof o);
    void *bufs[] = {x, o};
    size_t sizes[] = {sizeof x, sizeof o};
    run(HDR "kernel void k(device const long *x [[buffer(0)]], device long *o [[buffer(1)]],\n"
            "  uint i [[thread_position_in_grid]]) {\n"
            "    long a = x[0];\n"
            "    o[0] = a / 7; o[1] = a % 7; o[2] = a >> 3; o[3] = ulong(a) >> 3;\n"
            "    o[4] = a < -999999999999; o[5] = ulong(a) > 0x8000000000000000ul;\n"
            "    o[6] = (1l << 40) / 3; o[7] = a << 65; o[8] = ~0l ^ a; o[9] = a & 0xff00ff00ff;\n"
            "}\n", bufs, sizes, 2, 1, 1);
    int64_t a = x[0];
    assert_true(o[0] == a / 7);
    assert_true(o[1] == a % 7);
    assert_true(o[2] == -125000000000LL); /* -10^12 / 8 is exact */
    assert_true((uint64_t)o[3] == (uint64_t)a >> 3);
    assert_true(o[4] == 1);
    assert_true(o[5] == 1);
    assert_true(o[6] == (1LL << 40) / 3);
    assert_true(o[7] == (int64_t)((uint64_t)a << 1));
    assert_true(o[8] == ~a);
    assert_true(o[9] == (a & 0xff00ff00ffLL));
}

/* <limits.h>'s 64-bit limits in a kernel: LONG_MIN is one literal, ULONG_MAX wraps to 0. */
static void test_limits(void **state)
{
    (void)state;
    int64_t o[5];
    int64_t x[1] = {0};
    memset(o, 0xaa, sizeof o);
    void *bufs[] = {x, o};
    size_t sizes[] = {sizeof x, sizeof o};
    run(HDR "kernel void k(device const long *x [[buffer(0)]], device long *o [[buffer(1)]],\n"
            "  uint i [[thread_position_in_grid]]) {\n"
            "    o[0] = LONG_MAX + x[0]; o[1] = LONG_MIN + x[0]; o[2] = long(ULONG_MAX + ulong(x[0]));\n"
            "    o[3] = long(ULONG_MAX + 1 + ulong(x[0])); o[4] = -(LONG_MIN + 1);\n"
            "}\n", bufs, sizes, 2, 1, 1);
    assert_true(o[0] == INT64_MAX);
    assert_true(o[1] == INT64_MIN);
    assert_true(o[2] == -1);
    assert_true(o[3] == 0);
    assert_true(o[4] == INT64_MAX);
}

/* ---- SIMD-group and quad functions ------------------------------------------------------- */

enum { NS = 16 };

static void check_simd(const char *type, bool sg)
{
    static const uint32_t W32 = 32;
    uint64_t x[64], o[64 * NS];
    for (int i = 0; i < 64; i++)
        x[i] = i % 5 == 0 ? edges[i % NE] : rnd64() >> (i % 40);
    memset(o, 0xaa, sizeof o);
    char src[4096];
    snprintf(src, sizeof src,
             HDR "typedef %s T;\n"
             "kernel void k(device const T *x [[buffer(0)]], device T *o [[buffer(1)]],\n"
             "  uint i [[thread_position_in_grid]], uint lane [[thread_index_in_simdgroup]]) {\n"
             "    T v = x[i];\n"
             "    device T *r = o + i * 16;\n"
             "    r[0] = simd_shuffle(v, (lane * 7u + 3u) %% 32u);\n"
             "    r[1] = simd_shuffle_xor(v, 5u);\n"
             "    r[2] = simd_broadcast(v, 9u);\n"
             "    r[3] = quad_shuffle(v, 3u - (lane & 3u));\n"
             "    if (lane %% 3u != 1u) {\n"
             "        r[4] = simd_sum(v); r[5] = simd_min(v); r[6] = simd_max(v);\n"
             "        r[7] = simd_and(v); r[8] = simd_or(v); r[9] = simd_xor(v);\n"
             "        r[10] = simd_prefix_exclusive_sum(v); r[11] = simd_prefix_inclusive_sum(v);\n"
             "        r[12] = quad_sum(v); r[13] = quad_min(v); r[14] = quad_max(v);\n"
             "        r[15] = simd_broadcast_first(v);\n"
             "    }\n"
             "}\n",
             type);
    void *bufs[] = {x, o};
    size_t sizes[] = {sizeof x, sizeof o};
    run(src, bufs, sizes, 2, 64, 64);
    for (uint32_t i = 0; i < 64; i++) {
        uint32_t base = i / W32 * W32, lane = i % W32, q = i & ~3u;
        uint64_t want[NS];
        want[0] = x[base + (lane * 7 + 3) % 32];
        want[1] = x[base + (lane ^ 5)];
        want[2] = x[base + 9];
        want[3] = x[q + 3 - (lane & 3)];
        bool active = lane % 3 != 1;
        uint64_t sum = 0, mn = sg ? (uint64_t)INT64_MAX : ~0ull, mx = sg ? (uint64_t)INT64_MIN : 0;
        uint64_t an = ~0ull, orr = 0, xr = 0, before = 0, first = 0;
        bool have_first = false;
        for (uint32_t l = 0; l < W32; l++) {
            if (l % 3 == 1)
                continue;
            uint64_t v = x[base + l];
            if (!have_first)
                first = v, have_first = true;
            sum += v, an &= v, orr |= v, xr ^= v;
            if (ref_lt(sg, v, mn))
                mn = v;
            if (ref_lt(sg, mx, v))
                mx = v;
            if (l < lane)
                before += v;
        }
        uint64_t qs = 0, qmn = sg ? (uint64_t)INT64_MAX : ~0ull, qmx = sg ? (uint64_t)INT64_MIN : 0;
        for (uint32_t l = q; l < q + 4; l++) {
            if ((l % W32) % 3 == 1)
                continue;
            qs += x[l];
            if (ref_lt(sg, x[l], qmn))
                qmn = x[l];
            if (ref_lt(sg, qmx, x[l]))
                qmx = x[l];
        }
        want[4] = sum, want[5] = mn, want[6] = mx, want[7] = an, want[8] = orr, want[9] = xr;
        want[10] = before, want[11] = before + x[i];
        want[12] = qs, want[13] = qmn, want[14] = qmx, want[15] = first;
        for (int k = 0; k < NS; k++) {
            uint64_t w = k >= 4 && !active ? 0xaaaaaaaaaaaaaaaaull : want[k];
            if (o[i * NS + k] != w)
                fail_msg("%s thread %u r[%d]: expected %#llx, got %#llx", type, i, k,
                         (unsigned long long)w, (unsigned long long)o[i * NS + k]);
        }
    }
}

static void test_simd_long(void **state)
{
    (void)state;
    check_simd("long", true);
}

static void test_simd_ulong(void **state)
{
    (void)state;
    check_simd("ulong", false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_ops),
        cmocka_unit_test(test_ulong_ops),
        cmocka_unit_test(test_constant_operands),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_simd_long),
        cmocka_unit_test(test_simd_ulong),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
