/*
 * test_int64_fn.c — the integer functions on long and ulong end to end: clz, ctz, popcount,
 * reverse_bits, extract_bits, insert_bits, rotate, absdiff, addsat, subsat, hadd, rhadd and
 * madsat, on scalars and vectors, with run-time and constant operands, and the products
 * over a SIMD-group and a quad (reductions and prefixes, with lanes and whole quads
 * inactive). Kernels compiled from Metal run on the simulator over every pair of edge
 * values (0, 1, all ones, INT64_MIN,
 * INT64_MAX, word boundaries) and random ones, with bit-field offsets and sizes at the
 * edges (offset + bits == 64, bits 0 and 64) and rotate counts of 64 and more. Every
 * expected value comes from C reference code written here, with 128-bit arithmetic where
 * the result must not wrap; where MSL leaves a result undefined (offset + bits > 64) the
 * reference follows lockstep's documented rule: the field stops at the top bit.
 */
#include "numerics_harness.h"

static const uint64_t edges[] = {
    0, 1, 2, 3, 5, 63, 64, 65, 100, 0x7fffffffull, 0x80000000ull, 0xffffffffull,
    0x100000000ull, 0x100000001ull, 0x123456789abcdef0ull, 0x7fffffffffffffffull,
    0x8000000000000000ull, 0x8000000000000001ull, 0xffffffffffffffffull,
    0xfffffffffffffffeull, 0xffffffff00000000ull, 0xdeadbeefcafebabeull, 1000000007ull,
};
#define NE (sizeof edges / sizeof edges[0])

/* bit-field offsets and sizes: both sides of 32 and 64, and far past */
static const uint32_t offsets[] = {0, 1, 2, 31, 32, 33, 62, 63, 64, 65, 100, 0xffffffffu};
static const uint32_t sizes_[] = {0, 1, 2, 31, 32, 33, 63, 64, 65};
#define NOFF (sizeof offsets / sizeof offsets[0])
#define NSZ (sizeof sizes_ / sizeof sizes_[0])

static uint32_t rng = 0x2545f491u;
static uint64_t rnd64(void)
{
    uint64_t r = 0;
    for (int i = 0; i < 2; i++) {
        rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5;
        r = r << 32 | rng;
    }
    return r;
}

/* ---- reference ---------------------------------------------------------------------------- */

static uint64_t ref_clz(uint64_t x) { return x ? (uint64_t)__builtin_clzll(x) : 64; }
static uint64_t ref_ctz(uint64_t x) { return x ? (uint64_t)__builtin_ctzll(x) : 64; }

static uint64_t ref_popcount(uint64_t x)
{
    uint64_t n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

static uint64_t ref_reverse(uint64_t x)
{
    uint64_t r = 0;
    for (int i = 0; i < 64; i++)
        if (x >> i & 1)
            r |= 1ull << (63 - i);
    return r;
}

static uint64_t low_ones(uint32_t n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }

/* The field [offset, offset + bits): offset at most 64, bits at most what is left above it. */
static void ref_field(uint32_t offset, uint32_t bits, uint32_t *off, uint32_t *cnt)
{
    *off = offset > 64 ? 64 : offset;
    *cnt = bits > 64 - *off ? 64 - *off : bits;
}

static uint64_t ref_extract(bool sg, uint64_t x, uint32_t offset, uint32_t bits)
{
    uint32_t off, cnt;
    ref_field(offset, bits, &off, &cnt);
    if (cnt == 0)
        return 0;
    uint64_t f = (x >> off) & low_ones(cnt); /* off < 64 here */
    if (sg && cnt < 64 && (f >> (cnt - 1) & 1))
        f |= ~low_ones(cnt);
    return f;
}

static uint64_t ref_insert(uint64_t base, uint64_t ins, uint32_t offset, uint32_t bits)
{
    uint32_t off, cnt;
    ref_field(offset, bits, &off, &cnt);
    if (cnt == 0)
        return base;
    uint64_t m = low_ones(cnt) << off;
    return (base & ~m) | ((ins << off) & m);
}

static uint64_t ref_rotate(uint64_t v, uint64_t i)
{
    unsigned k = (unsigned)(i % 64);
    return k ? v << k | v >> (64 - k) : v;
}

static __int128 val(bool sg, uint64_t x) { return sg ? (__int128)(int64_t)x : (__int128)x; }

static uint64_t clamp128(bool sg, __int128 v)
{
    __int128 lo = sg ? (__int128)INT64_MIN : 0;
    __int128 hi = sg ? (__int128)INT64_MAX : (__int128)UINT64_MAX;
    return (uint64_t)(v < lo ? lo : v > hi ? hi : v);
}

/* floor((a + b + round) / 2), exactly */
static uint64_t ref_half_sum(bool sg, uint64_t a, uint64_t b, int round)
{
    __int128 s = val(sg, a) + val(sg, b) + round;
    return (uint64_t)(s >> 1); /* arithmetic on a negative __int128: floor */
}

static uint64_t ref_madsat(bool sg, uint64_t a, uint64_t b, uint64_t c)
{
    if (!sg) {
        unsigned __int128 p = (unsigned __int128)a * b + c; /* < 2^128 */
        return p > UINT64_MAX ? UINT64_MAX : (uint64_t)p;
    }
    return clamp128(true, (__int128)(int64_t)a * (int64_t)b + (int64_t)c);
}

/* ---- every function over every pair of edges ------------------------------------------------ */

enum { NOUT = 13 };

static void reference(bool sg, uint64_t a, uint64_t b, uint64_t c, uint32_t off, uint32_t bits,
                      uint64_t r[NOUT])
{
    r[0] = ref_clz(a), r[1] = ref_ctz(a), r[2] = ref_popcount(a), r[3] = ref_reverse(a);
    r[4] = ref_extract(sg, a, off, bits);
    r[5] = ref_insert(a, b, off, bits);
    r[6] = ref_rotate(a, b);
    __int128 d = val(sg, a) - val(sg, b);
    r[7] = (uint64_t)(d < 0 ? -d : d);
    r[8] = clamp128(sg, val(sg, a) + val(sg, b));
    r[9] = clamp128(sg, val(sg, a) - val(sg, b));
    r[10] = ref_half_sum(sg, a, b, 0), r[11] = ref_half_sum(sg, a, b, 1);
    r[12] = ref_madsat(sg, a, b, c);
}

static void check_functions(const char *type, bool sg)
{
    enum { N = NE * NE + 320 };
    static uint64_t x[N], y[N], z[N], o[N * NOUT];
    static uint32_t ob[N * 2];
    uint32_t n = 0;
    for (uint32_t i = 0; i < NE; i++)
        for (uint32_t j = 0; j < NE; j++, n++)
            x[n] = edges[i], y[n] = edges[j];
    for (; n < N; n++) {
        x[n] = n % 4 ? rnd64() >> (n % 64) : rnd64();
        y[n] = n % 3 ? rnd64() >> (n % 61) : rnd64();
        if (n % 5 == 0)
            y[n] = ~y[n]; /* negative, and small magnitudes of either sign */
    }
    for (uint32_t i = 0; i < N; i++) {
        z[i] = i % 3 ? edges[(i * 7) % NE] : rnd64() >> (i % 64);
        ob[2 * i] = offsets[i % NOFF];
        ob[2 * i + 1] = sizes_[(i / NOFF) % NSZ];
    }
    memset(o, 0xaa, sizeof o);
    char src[2048];
    snprintf(src, sizeof src,
             HDR "typedef %s T;\n"
             "kernel void k(device const T *x [[buffer(0)]], device const T *y [[buffer(1)]],\n"
             "  device const T *z [[buffer(2)]], device const uint2 *ob [[buffer(3)]],\n"
             "  device T *o [[buffer(4)]], uint i [[thread_position_in_grid]]) {\n"
             "    T a = x[i], b = y[i], c = z[i];\n"
             "    uint off = ob[i].x, bits = ob[i].y;\n"
             "    device T *r = o + i * %d;\n"
             "    r[0] = clz(a); r[1] = ctz(a); r[2] = popcount(a); r[3] = reverse_bits(a);\n"
             "    r[4] = extract_bits(a, off, bits); r[5] = insert_bits(a, b, off, bits);\n"
             "    r[6] = rotate(a, b); r[7] = T(absdiff(a, b));\n"
             "    r[8] = addsat(a, b); r[9] = subsat(a, b);\n"
             "    r[10] = hadd(a, b); r[11] = rhadd(a, b); r[12] = madsat(a, b, c);\n"
             "}\n",
             type, NOUT);
    void *bufs[] = {x, y, z, ob, o};
    size_t sizes[] = {sizeof x, sizeof y, sizeof z, sizeof ob, sizeof o};
    run(src, NULL, bufs, sizes, 5, N);
    static const char *const names[NOUT] = {
        "clz", "ctz", "popcount", "reverse_bits", "extract_bits", "insert_bits", "rotate",
        "absdiff", "addsat", "subsat", "hadd", "rhadd", "madsat"};
    for (uint32_t i = 0; i < N; i++) {
        uint64_t want[NOUT];
        reference(sg, x[i], y[i], z[i], ob[2 * i], ob[2 * i + 1], want);
        for (int k = 0; k < NOUT; k++)
            if (o[i * NOUT + k] != want[k])
                fail_msg("%s %s: a=%#llx b=%#llx c=%#llx offset=%u bits=%u: expected %#llx, "
                         "got %#llx", type, names[k], (unsigned long long)x[i],
                         (unsigned long long)y[i], (unsigned long long)z[i], ob[2 * i],
                         ob[2 * i + 1], (unsigned long long)want[k],
                         (unsigned long long)o[i * NOUT + k]);
    }
}

static void test_long_functions(void **state)
{
    (void)state;
    check_functions("long", true);
}

static void test_ulong_functions(void **state)
{
    (void)state;
    check_functions("ulong", false);
}

/* Vectors: each component on its own (different counts per component), and the scalar
 * offset/bits arguments shared by every component. */
static void test_vectors(void **state)
{
    (void)state;
    enum { N = 64 };
    static uint64_t x[N * 4], y[N * 4], o[N * 4 * 6];
    for (uint32_t i = 0; i < N * 4; i++)
        x[i] = i % 7 == 0 ? edges[i % NE] : rnd64() >> (i % 64), y[i] = edges[(i * 5 + 3) % NE];
    memset(o, 0xaa, sizeof o);
    void *bufs[] = {x, y, o};
    size_t sizes[] = {sizeof x, sizeof y, sizeof o};
    run(HDR "kernel void k(device const long4 *x [[buffer(0)]], device const ulong4 *y "
            "[[buffer(1)]],\n  device ulong4 *o [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
            "    long4 a = x[i]; ulong4 b = y[i];\n"
            "    o[i * 6] = ulong4(clz(a)); o[i * 6 + 1] = rotate(ulong4(a), b);\n"
            "    o[i * 6 + 2] = ulong4(extract_bits(a, 60u, 4u));\n"
            "    long3 c = insert_bits(a.xyz, long3(b.xyz), 62u, 2u);\n"
            "    o[i * 6 + 3] = ulong4(ulong3(c), 7);\n"
            "    o[i * 6 + 4] = absdiff(a, long4(b));\n"
            "    ulong2 s = addsat(ulong2(a.xy), b.zw);\n"
            "    o[i * 6 + 5] = ulong4(s, ulong2(popcount(a.zw)));\n"
            "}\n", NULL, bufs, sizes, 3, N);
    for (uint32_t i = 0; i < N; i++) {
        const uint64_t *a = x + i * 4, *b = y + i * 4, *r = o + i * 24;
        for (int k = 0; k < 4; k++) {
            __int128 d = (__int128)(int64_t)a[k] - (__int128)(int64_t)b[k];
            uint64_t want[6] = {
                ref_clz(a[k]), ref_rotate(a[k], b[k]), ref_extract(true, a[k], 60, 4),
                k < 3 ? ref_insert(a[k], b[k], 62, 2) : 7, (uint64_t)(d < 0 ? -d : d),
                k < 2 ? clamp128(false, (__int128)a[k] + b[k + 2]) : ref_popcount(a[k])};
            for (int f = 0; f < 6; f++)
                if (r[f * 4 + k] != want[f])
                    fail_msg("thread %u output %d component %d: a=%#llx b=%#llx: expected %#llx, "
                             "got %#llx", i, f, k, (unsigned long long)a[k],
                             (unsigned long long)b[k], (unsigned long long)want[f],
                             (unsigned long long)r[f * 4 + k]);
        }
    }
}

/* Constant operands go through immediates (or fold) and give the run-time values. */
static void test_constant_operands(void **state)
{
    (void)state;
    enum { NC = 16 };
    uint64_t o[NC];
    uint64_t x[1] = {0x8000000000000001ull};
    memset(o, 0xaa, sizeof o);
    void *bufs[] = {x, o};
    size_t sizes[] = {sizeof x, sizeof o};
    run(HDR "kernel void k(device const long *x [[buffer(0)]], device long *o [[buffer(1)]],\n"
            "  uint i [[thread_position_in_grid]]) {\n"
            "    long a = x[0];\n"
            "    o[0] = clz(0l); o[1] = ctz(long(0)); o[2] = clz(LONG_MIN); o[3] = popcount(-1l);\n"
            "    o[4] = reverse_bits(1l); o[5] = rotate(a, 64l); o[6] = rotate(a, 65l);\n"
            "    o[7] = rotate(a, -1l); o[8] = extract_bits(a, 0u, 64u); o[9] = extract_bits(a, 63u, 1u);\n"
            "    o[10] = insert_bits(0l, -1l, 0u, 64u); o[11] = insert_bits(a, 0l, 64u, 0u);\n"
            "    o[12] = addsat(LONG_MAX, a); o[13] = subsat(LONG_MIN, 1l);\n"
            "    o[14] = madsat(LONG_MIN, -1l, 0l); o[15] = long(madsat(ulong(a), 2ul, 0ul));\n"
            "}\n", NULL, bufs, sizes, 2, 1);
    uint64_t a = x[0];
    uint64_t want[NC] = {64, 64, 0, 64, 1ull << 63, a, ref_rotate(a, 65), ref_rotate(a, 63),
                         a, ~0ull, ~0ull, a, clamp128(true, (__int128)INT64_MAX + (int64_t)a),
                         (uint64_t)INT64_MIN, (uint64_t)INT64_MAX, UINT64_MAX};
    for (int k = 0; k < NC; k++)
        if (o[k] != want[k])
            fail_msg("o[%d]: expected %#llx, got %#llx", k, (unsigned long long)want[k],
                     (unsigned long long)o[k]);
}

/* ---- products over a SIMD-group and a quad -------------------------------------------------- */

enum { NP = 8 };

/* Which lanes run the products: all of SIMD-group 0, a third missing from group 1, whole
 * quads missing from group 2 (and a 0 in it), one lane of group 3. */
static bool runs_products(uint32_t i)
{
    uint32_t g = i / 32, lane = i % 32;
    return g == 0 ? true : g == 1 ? lane % 3 != 1 : g == 2 ? (lane & 5) == 0 || lane == 13
                                                           : lane == 22;
}

static void check_products(const char *type)
{
    enum { N = 128 };
    static uint64_t x[N], o[N * NP];
    static uint32_t keep[N];
    for (uint32_t i = 0; i < N; i++) {
        /* mostly odd factors, so that 32 of them do not multiply to 0 mod 2^64 */
        x[i] = i % 9 == 4 ? edges[(i * 3) % NE] : rnd64() >> (i % 50) | 1;
        keep[i] = runs_products(i);
    }
    x[0] = ~0ull, x[5] = 0x8000000000000001ull, x[70] = 0, x[33] = 0xffffffff00000001ull;
    memset(o, 0xaa, sizeof o);
    char src[2048];
    snprintf(src, sizeof src,
             HDR "typedef %s T;\ntypedef vec<T, 2> T2;\n"
             "kernel void k(device const T *x [[buffer(0)]], device const uint *keep "
             "[[buffer(1)]],\n  device T *o [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
             "    T v = x[i];\n"
             "    device T *r = o + i * %d;\n"
             "    if (keep[i] != 0) {\n"
             "        r[0] = simd_product(v); r[1] = simd_prefix_inclusive_product(v);\n"
             "        r[2] = simd_prefix_exclusive_product(v); r[3] = quad_product(v);\n"
             "        r[4] = quad_prefix_inclusive_product(v);\n"
             "        r[5] = quad_prefix_exclusive_product(v);\n"
             "        T2 w = simd_prefix_exclusive_product(T2(v, v ^ 6));\n"
             "        r[6] = w.x; r[7] = w.y;\n"
             "    }\n"
             "}\n",
             type, NP);
    void *bufs[] = {x, keep, o};
    size_t sizes[] = {sizeof x, sizeof keep, sizeof o};
    run(src, NULL, bufs, sizes, 3, N);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t base = i / 32 * 32, qbase = i & ~3u;
        uint64_t all = 1, incl = 1, excl = 1, quad = 1, qincl = 1, qexcl = 1, excl6 = 1;
        for (uint32_t l = base; l < base + 32; l++) {
            if (!keep[l])
                continue;
            all *= x[l];
            if (l <= i)
                incl *= x[l];
            if (l < i)
                excl *= x[l], excl6 *= x[l] ^ 6;
            if (l >= qbase && l < qbase + 4) {
                quad *= x[l];
                if (l <= i)
                    qincl *= x[l];
                if (l < i)
                    qexcl *= x[l];
            }
        }
        uint64_t want[NP] = {all, incl, excl, quad, qincl, qexcl, excl, excl6};
        for (int k = 0; k < NP; k++) {
            uint64_t w = keep[i] ? want[k] : 0xaaaaaaaaaaaaaaaaull;
            if (o[i * NP + k] != w)
                fail_msg("%s thread %u r[%d]: expected %#llx, got %#llx", type, i, k,
                         (unsigned long long)w, (unsigned long long)o[i * NP + k]);
        }
    }
}

static void test_products(void **state)
{
    (void)state;
    check_products("long");
    check_products("ulong");
}

/* A SIMD-group product is the lane loop and nothing else: no split of the value into words
 * through shifts and converts (its halves are lo32/hi32 moves), no lane ID it does not use. */
static void test_product_code(void **state)
{
    (void)state;
    UtilError err = {{0}};
    IsaProgram *p = lang_compile_source(
        HDR "kernel void k(device long *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
            "    o[i] = simd_product(o[i]);\n"
            "}\n", "c.metal", NULL, NULL, &err);
    assert_non_null(p);
    int muls = 0;
    for (uint32_t k = 0; k < p->count; k++) {
        const IsaInst *in = &p->code[k];
        assert_int_not_equal(in->op, ISA_OP_CVT);
        assert_int_not_equal(in->op, ISA_OP_LSR64);
        assert_false(in->op == ISA_OP_GET_SR && in->opd[1].index == ISA_SR_THREAD_INDEX_IN_SIMDGROUP);
        muls += in->op == ISA_OP_IMUL64;
    }
    assert_int_equal(muls, 1);
    isa_program_free(p);
}

/* What stays refused says so, at the call. */
static void test_refused(void **state)
{
    (void)state;
    UtilError err = {{0}};
    IsaProgram *p = lang_compile_source(
        HDR "kernel void k(device long *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
            "    o[i] = mul24(o[i], o[i + 1]);\n"
            "}\n", "m.metal", NULL, NULL, &err);
    assert_null(p);
    assert_non_null(strstr(err.message, "m.metal:4:12: error: mul24 and mad24 multiply 24-bit"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_functions),
        cmocka_unit_test(test_ulong_functions),
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_constant_operands),
        cmocka_unit_test(test_products),
        cmocka_unit_test(test_product_code),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
