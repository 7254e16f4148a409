/*
 * test_ops_alu.c — pins the semantics of every ALU op of isa_table.h: 32-bit float with
 * source modifiers and .sat, binary16 against an independent rounding reference, special
 * functions within stated tolerances, integer wrap-around, shifts, division by zero,
 * bitfields, bit counts, 64-bit ops, compare-and-select with every condition (NaN
 * included) and cvt over a sample of type pairs and rounding modes.
 *
 * Every op runs once per test vector: thread i loads four input words into r2..r5 and stores
 * r6 and r7 (both preset to 0xa5a5a5a5, so untouched halves and registers show).
 */
#include "sim_harness.h"

#define SENT 0xa5a5a5a5u

typedef struct V {
    uint32_t a, b, c, e;
} V;

/* Runs `insn` over n vectors; out[2i], out[2i+1] = r6, r7 of thread i. */
static void run_vec(const char *insn, const V *v, uint32_t n, uint32_t *out)
{
    char text[2048];
    snprintf(text, sizeof text,
             ".kernel alu\n.regs 12\n.arg in, device, u0\n.arg out, device, u2\n"
             ".uniform u10, 0x40400000\n.uniform u11, 7\n"
             "    get_sr r1, thread_position_in_grid.x\n"
             "    shl r8, r1, 2\n"
             "    ld_dev.b32.x4 r2, u0, r8, 0\n"
             "    mov r6, 0xa5a5a5a5\n"
             "    mov r7, 0xa5a5a5a5\n"
             "    wait 0\n"
             "    %s\n"
             "    shl r9, r1, 1\n"
             "    st_dev.b32.x2 r6, u2, r9\n"
             "    stop\n",
             insn);
    Harness h;
    h_init(&h, text);
    uint32_t *in = h_buffer(&h, 0, "in", (uint64_t)n * 16, MEM_SPACE_DEVICE);
    h_buffer(&h, 1, "out", (uint64_t)n * 8, MEM_SPACE_DEVICE);
    memcpy(in, v, (size_t)n * 16);
    h_run1(&h, n, 64);
    h_expect_no_faults(&h);
    memcpy(out, h_data(&h, 1), (size_t)n * 8);
    h_free(&h);
}

static const uint32_t ints[] = {0, 1, 2, 3, 5, 31, 32, 33, 63, 100, 0x7fffffff, 0x80000000,
                                0xffffffff, 0xfffffffe, 0x12345678, 0xdeadbeef, 0xfffffff9};
#define NI (sizeof ints / sizeof ints[0])

static uint32_t make_int_vectors(V *v)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < NI; i++)
        for (uint32_t j = 0; j < NI; j++, n++)
            v[n] = (V){ints[i], ints[j], ints[(i * 7 + j * 3) % NI], ints[(i + j * 5) % NI]};
    return n;
}

typedef uint32_t (*IntRef)(uint32_t a, uint32_t b, uint32_t c, uint32_t e);

static void check_int(const char *insn, IntRef ref)
{
    V v[NI * NI];
    uint32_t n = make_int_vectors(v), out[NI * NI * 2];
    run_vec(insn, v, n, out);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t want = ref(v[i].a, v[i].b, v[i].c, v[i].e);
        if (out[2 * i] != want || out[2 * i + 1] != SENT)
            fail_msg("%s: a=%#x b=%#x c=%#x e=%#x: expected %#x, got %#x (r7 %#x)", insn, v[i].a,
                     v[i].b, v[i].c, v[i].e, want, out[2 * i], out[2 * i + 1]);
    }
}

static uint32_t r_iadd(uint32_t a, uint32_t b, uint32_t c, uint32_t e) { (void)c, (void)e; return (uint32_t)((uint64_t)a + b); }
static uint32_t r_isub(uint32_t a, uint32_t b, uint32_t c, uint32_t e) { (void)c, (void)e; return (uint32_t)((uint64_t)a + (~(uint64_t)b + 1)); }
static uint32_t r_imul(uint32_t a, uint32_t b, uint32_t c, uint32_t e) { (void)c, (void)e; return (uint32_t)((uint64_t)a * b); }
static uint32_t r_imad(uint32_t a, uint32_t b, uint32_t c, uint32_t e) { (void)e; return (uint32_t)((uint64_t)a * b + c); }
static uint32_t r_umulhi(uint32_t a, uint32_t b, uint32_t c, uint32_t e) { (void)c, (void)e; return (uint32_t)(((uint64_t)a * b) >> 32); }
static uint32_t r_smulhi(uint32_t a, uint32_t b, uint32_t c, uint32_t e)
{
    (void)c, (void)e;
    int64_t p = (int64_t)(int32_t)a * (int64_t)(int32_t)b;
    return (uint32_t)((uint64_t)p >> 32);
}
static uint32_t r_udiv(uint32_t a, uint32_t b, uint32_t c, uint32_t e) { (void)c, (void)e; return b ? a / b : 0xffffffffu; }
static uint32_t r_urem(uint32_t a, uint32_t b, uint32_t c, uint32_t e) { (void)c, (void)e; return b ? a % b : a; }
static uint32_t r_sdiv(uint32_t a, uint32_t b, uint32_t c, uint32_t e)
{
    (void)c, (void)e;
    int64_t x = (int32_t)a, y = (int32_t)b;
    if (y == 0)
        return 0xffffffffu;
    int64_t q = x / y; /* 64-bit: INT_MIN / -1 = 2^31, which wraps to INT_MIN */
    return (uint32_t)(uint64_t)q;
}
static uint32_t r_srem(uint32_t a, uint32_t b, uint32_t c, uint32_t e)
{
    (void)c, (void)e;
    int64_t x = (int32_t)a, y = (int32_t)b;
    return y == 0 ? a : (uint32_t)(uint64_t)(x % y);
}
static uint32_t r_shl(uint32_t a, uint32_t b, uint32_t c, uint32_t e) { (void)c, (void)e; return (uint32_t)((uint64_t)a << (b % 32)); }
static uint32_t r_lsr(uint32_t a, uint32_t b, uint32_t c, uint32_t e) { (void)c, (void)e; return a >> (b % 32); }
static uint32_t r_asr(uint32_t a, uint32_t b, uint32_t c, uint32_t e)
{
    (void)c, (void)e;
    uint32_t s = b % 32, r = a >> s;
    if ((a & 0x80000000u) && s)
        r |= ~(0xffffffffu >> s);
    return r;
}
static uint32_t r_and(uint32_t a, uint32_t b, uint32_t c, uint32_t e) { (void)c, (void)e; return a & b; }
static uint32_t r_or(uint32_t a, uint32_t b, uint32_t c, uint32_t e) { (void)c, (void)e; return a | b; }
static uint32_t r_xor(uint32_t a, uint32_t b, uint32_t c, uint32_t e) { (void)c, (void)e; return a ^ b; }
static uint32_t r_not(uint32_t a, uint32_t b, uint32_t c, uint32_t e) { (void)b, (void)c, (void)e; return a ^ 0xffffffffu; }
static uint32_t r_mov(uint32_t a, uint32_t b, uint32_t c, uint32_t e) { (void)b, (void)c, (void)e; return a; }
static uint32_t r_add_uni(uint32_t a, uint32_t b, uint32_t c, uint32_t e) { (void)b, (void)c, (void)e; return a + 7; }
static uint32_t r_sub_imm(uint32_t a, uint32_t b, uint32_t c, uint32_t e) { (void)b, (void)c, (void)e; return a - 0xfffffff9u; }
static uint32_t r_shl_imm(uint32_t a, uint32_t b, uint32_t c, uint32_t e) { (void)b, (void)c, (void)e; return a << 4; /* 36 & 31 */ }

static void test_int_arith(void **state)
{
    (void)state;
    check_int("iadd r6, r2, r3", r_iadd);
    check_int("isub r6, r2, r3", r_isub);
    check_int("imul r6, r2, r3", r_imul);
    check_int("imad r6, r2, r3, r4", r_imad);
    check_int("umulhi r6, r2, r3", r_umulhi);
    check_int("smulhi r6, r2, r3", r_smulhi);
    check_int("udiv r6, r2, r3", r_udiv);
    check_int("sdiv r6, r2, r3", r_sdiv);
    check_int("urem r6, r2, r3", r_urem);
    check_int("srem r6, r2, r3", r_srem);
    check_int("shl r6, r2, r3", r_shl);
    check_int("lsr r6, r2, r3", r_lsr);
    check_int("asr r6, r2, r3", r_asr);
    check_int("and r6, r2, r3", r_and);
    check_int("or r6, r2, r3", r_or);
    check_int("xor r6, r2, r3", r_xor);
    check_int("not r6, r2", r_not);
    check_int("mov r6, r2", r_mov);
    check_int("iadd r6, r2, u11", r_add_uni);
    check_int("isub r6, r2, -7", r_sub_imm);
    check_int("shl r6, r2, 36", r_shl_imm);
}

static uint32_t clamp32u(uint32_t x) { return x > 32 ? 32 : x; }
static uint32_t lowmask(uint32_t n) { return n >= 32 ? 0xffffffffu : (1u << n) - 1; }
static uint32_t r_ubfe(uint32_t a, uint32_t b, uint32_t c, uint32_t e)
{
    (void)e;
    b = clamp32u(b), c = clamp32u(c);
    uint32_t shifted = b >= 32 ? 0 : a >> b;
    return shifted & lowmask(c);
}
static uint32_t r_sbfe(uint32_t a, uint32_t b, uint32_t c, uint32_t e)
{
    (void)e;
    b = clamp32u(b), c = clamp32u(c);
    if (c == 0)
        return 0;
    uint32_t f = (b >= 32 ? 0 : a >> b) & lowmask(c);
    if ((f >> (c - 1)) & 1)
        f |= ~lowmask(c);
    return f;
}
static uint32_t r_bfi(uint32_t a, uint32_t b, uint32_t c, uint32_t e)
{
    c = clamp32u(c), e = clamp32u(e);
    uint32_t mask = c >= 32 ? 0 : lowmask(e) << c;
    uint32_t ins = c >= 32 ? 0 : b << c;
    return (a & ~mask) | (ins & mask);
}

static void test_bitfield(void **state)
{
    (void)state;
    static const uint32_t offs[] = {0, 1, 4, 16, 31, 32, 40};
    V v[1024];
    uint32_t n = 0;
    for (uint32_t i = 0; i < 7; i++)
        for (uint32_t j = 0; j < 7; j++)
            for (uint32_t k = 0; k < 3; k++)
                v[n++] = (V){k == 0 ? 0xdeadbeefu : k == 1 ? 0x80000001u : 0x7ffe1234u, offs[i], offs[j],
                             k == 0 ? 0xcafef00du : 0x5};
    uint32_t out[2048];
    struct { const char *insn; IntRef ref; bool in_range_only; } ops[] = {
        {"ubfe r6, r2, r3, r4", r_ubfe, false},
        /* sbfe and bfi define fields that fit in 32 bits; b + c > 32 is left alone */
        {"sbfe r6, r2, r3, r4", r_sbfe, true},
        {"bfi r6, r2, r5, r3, r4", NULL, true},
    };
    for (int o = 0; o < 3; o++) {
        run_vec(ops[o].insn, v, n, out);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t b = clamp32u(v[i].b), c = clamp32u(v[i].c);
            if (ops[o].in_range_only && b + c > 32)
                continue;
            uint32_t want = o == 2 ? r_bfi(v[i].a, v[i].e, v[i].b, v[i].c) : ops[o].ref(v[i].a, v[i].b, v[i].c, 0);
            if (out[2 * i] != want)
                fail_msg("%s: a=%#x b=%u c=%u e=%#x: expected %#x, got %#x", ops[o].insn, v[i].a,
                         v[i].b, v[i].c, v[i].e, want, out[2 * i]);
        }
    }
}

static uint32_t ref_popcount(uint32_t a) { uint32_t n = 0; for (int i = 0; i < 32; i++) n += (a >> i) & 1; return n; }
static uint32_t ref_clz(uint32_t a) { uint32_t n = 0; for (int i = 31; i >= 0 && !((a >> i) & 1); i--) n++; return n; }
static uint32_t ref_ffs(uint32_t a) { for (uint32_t i = 0; i < 32; i++) if ((a >> i) & 1) return i; return 32; }
static uint32_t ref_bitrev(uint32_t a) { uint32_t r = 0; for (int i = 0; i < 32; i++) r |= ((a >> i) & 1) << (31 - i); return r; }

static void test_bitcount(void **state)
{
    (void)state;
    static const uint32_t in[] = {0, 0xffffffff, 1, 0x80000000, 0x00010000, 0xdeadbeef, 0x0000fff0,
                                  0x40000000, 3, 0x12345678};
    V v[10];
    uint32_t out[20];
    for (int i = 0; i < 10; i++)
        v[i] = (V){in[i], 0, 0, 0};
    const char *insn[] = {"popcount r6, r2", "clz r6, r2", "ffs r6, r2", "bitrev r6, r2"};
    uint32_t (*ref[])(uint32_t) = {ref_popcount, ref_clz, ref_ffs, ref_bitrev};
    for (int o = 0; o < 4; o++) {
        run_vec(insn[o], v, 10, out);
        for (int i = 0; i < 10; i++)
            if (out[2 * i] != ref[o](in[i]))
                fail_msg("%s of %#x: expected %#x, got %#x", insn[o], in[i], ref[o](in[i]), out[2 * i]);
    }
    /* the table's edge cases, written out */
    run_vec("clz r6, r2", v, 2, out);
    assert_int_equal(out[0], 32);
    assert_int_equal(out[2], 0);
    run_vec("ffs r6, r2", v, 2, out);
    assert_int_equal(out[0], 32);
    assert_int_equal(out[2], 0);
    run_vec("popcount r6, r2", v, 2, out);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[2], 32);
}

static void test_int64(void **state)
{
    (void)state;
    static const uint64_t vals[] = {0, 1, 0xffffffffull, 0x100000000ull, 0xffffffffffffffffull,
                                    0x8000000000000000ull, 0x123456789abcdef0ull, 0x00000000fffffffeull};
    V v[64];
    uint32_t n = 0;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++, n++)
            v[n] = (V){(uint32_t)vals[i], (uint32_t)(vals[i] >> 32), (uint32_t)vals[j], (uint32_t)(vals[j] >> 32)};
    uint32_t out[128];
    const char *insn[] = {"iadd64 r6, r2, r4", "isub64 r6, r2, r4", "imul64 r6, r2, r4",
                          "mov64 r6, r2", "iadd64 r6, r2, -1", "mov64 r6, 0x123456789abcdef0"};
    for (int o = 0; o < 6; o++) {
        run_vec(insn[o], v, n, out);
        for (uint32_t i = 0; i < n; i++) {
            uint64_t a = vals[i / 8], b = vals[i % 8], want;
            switch (o) {
            case 0: want = a + b; break;
            case 1: want = a - b; break;
            case 2: want = a * b; break;
            case 3: want = a; break;
            case 4: want = a + 0xffffffffffffffffull; break;
            default: want = 0x123456789abcdef0ull; break;
            }
            uint64_t got = (uint64_t)out[2 * i + 1] << 32 | out[2 * i];
            if (got != want)
                fail_msg("%s: a=%#llx b=%#llx: expected %#llx, got %#llx", insn[o], (unsigned long long)a,
                         (unsigned long long)b, (unsigned long long)want, (unsigned long long)got);
        }
    }
}

static void test_icmpsel(void **state)
{
    (void)state;
    static const char *conds[] = {"eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge"};
    V v[NI * NI];
    uint32_t n = make_int_vectors(v), out[NI * NI * 2];
    char insn[64];
    for (int k = 0; k < 10; k++) {
        snprintf(insn, sizeof insn, "icmpsel.%s r6, r2, r3, r4, r5", conds[k]);
        run_vec(insn, v, n, out);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t a = v[i].a, b = v[i].b;
            int32_t sa = (int32_t)a, sb = (int32_t)b;
            bool t = k == 0 ? a == b : k == 1 ? a != b : k == 2 ? a < b : k == 3 ? a <= b
                   : k == 4 ? a > b : k == 5 ? a >= b : k == 6 ? sa < sb : k == 7 ? sa <= sb
                   : k == 8 ? sa > sb : sa >= sb;
            uint32_t want = t ? v[i].c : v[i].e;
            if (out[2 * i] != want)
                fail_msg("%s: a=%#x b=%#x: expected %#x, got %#x", insn, a, b, want, out[2 * i]);
        }
    }
    run_vec("icmpsel.slt r6, r2, 0, 11, 22", v, n, out);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(out[2 * i], (int32_t)v[i].a < 0 ? 11u : 22u);
}

/* ---- f32 ---------------------------------------------------------------------------------- */

static const float fvals[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 1.5f, 2.5f, -2.5f, 3.4028235e38f,
                              1e-45f, 1.17549435e-38f, 1e30f, -7.25f, 0.1f, 3.0f, INFINITY,
                              -INFINITY, NAN};
#define NF (sizeof fvals / sizeof fvals[0])

static bool f32_same(uint32_t want, uint32_t got)
{
    if (isnan(h_bitsf(want)))
        return isnan(h_bitsf(got));
    return want == got;
}

static float mod(float x, bool neg, bool abs_)
{
    uint32_t u = h_fbits(x);
    if (abs_)
        u &= 0x7fffffffu;
    if (neg)
        u ^= 0x80000000u;
    return h_bitsf(u);
}

static float ref_fmin(float a, float b) { return isnan(a) ? b : isnan(b) ? a : a < b ? a : b; }
static float ref_fmax(float a, float b) { return isnan(a) ? b : isnan(b) ? a : a > b ? a : b; }

/* Checks a float op over all pairs of fvals; op is applied to the already-modified sources. */
static void check_f32(const char *insn, int kind, bool na, bool aa, bool nb, bool ab, bool sat)
{
    V v[NF * NF];
    uint32_t n = 0, out[NF * NF * 2];
    for (uint32_t i = 0; i < NF; i++)
        for (uint32_t j = 0; j < NF; j++, n++)
            v[n] = (V){h_fbits(fvals[i]), h_fbits(fvals[j]), h_fbits(fvals[(i * 5 + j) % NF]), 0};
    run_vec(insn, v, n, out);
    for (uint32_t i = 0; i < n; i++) {
        float a = mod(h_bitsf(v[i].a), na, aa), b = mod(h_bitsf(v[i].b), nb, ab), c = h_bitsf(v[i].c);
        float r;
        switch (kind) {
        case 0: r = a + b; break;
        case 1: r = a * b; break;
        case 2: r = fmaf(a, b, c); break;
        case 3: r = ref_fmin(a, b); break;
        case 4: r = ref_fmax(a, b); break;
        case 5: r = a; break;
        case 6: r = floorf(a); break;
        case 7: r = ceilf(a); break;
        case 8: r = truncf(a); break;
        case 9: r = nearbyintf(a); break;
        case 10: r = a / b; break;
        default: r = sqrtf(a); break;
        }
        uint32_t got = out[2 * i];
        if (sat) {
            if (isnan(r))
                continue; /* .sat of NaN is not pinned by the table */
            r = r > 0 ? (r < 1 ? r : 1.0f) : 0.0f;
            if (r == 0 && (got & 0x7fffffffu) == 0)
                continue; /* either zero */
        }
        if ((kind == 3 || kind == 4) && a == 0 && b == 0 && (got & 0x7fffffffu) == 0)
            continue; /* min/max of +0 and -0: either */
        if (!f32_same(h_fbits(r), got))
            fail_msg("%s: a=%a b=%a c=%a: expected %a (%#x), got %a (%#x)", insn, (double)h_bitsf(v[i].a),
                     (double)h_bitsf(v[i].b), (double)c, (double)r, h_fbits(r), (double)h_bitsf(got), got);
    }
}

static void test_f32_arith(void **state)
{
    (void)state;
    check_f32("fadd32 r6, r2, r3", 0, 0, 0, 0, 0, 0);
    check_f32("fmul32 r6, r2, r3", 1, 0, 0, 0, 0, 0);
    check_f32("ffma32 r6, r2, r3, r4", 2, 0, 0, 0, 0, 0);
    check_f32("fmin32 r6, r2, r3", 3, 0, 0, 0, 0, 0);
    check_f32("fmax32 r6, r2, r3", 4, 0, 0, 0, 0, 0);
    check_f32("fmov32 r6, r2", 5, 0, 0, 0, 0, 0);
    check_f32("floor32 r6, r2", 6, 0, 0, 0, 0, 0);
    check_f32("ceil32 r6, r2", 7, 0, 0, 0, 0, 0);
    check_f32("trunc32 r6, r2", 8, 0, 0, 0, 0, 0);
    check_f32("rint32 r6, r2", 9, 0, 0, 0, 0, 0);
    check_f32("fdiv32 r6, r2, r3", 10, 0, 0, 0, 0, 0);
    check_f32("sqrt32 r6, r2", 11, 0, 0, 0, 0, 0);
}

static void test_f32_modifiers(void **state)
{
    (void)state;
    check_f32("fadd32 r6, -r2, |r3|", 0, 1, 0, 0, 1, 0);
    check_f32("fmul32 r6, -|r2|, -r3", 1, 1, 1, 1, 0, 0);
    check_f32("ffma32 r6, |r2|, -r3, r4", 2, 0, 1, 1, 0, 0);
    check_f32("fmin32 r6, -r2, r3", 3, 1, 0, 0, 0, 0);
    check_f32("fmax32 r6, |r2|, -|r3|", 4, 0, 1, 1, 1, 0);
    check_f32("fmov32 r6, -|r2|", 5, 1, 1, 0, 0, 0);
    check_f32("fmov32 r6, |r2|", 5, 0, 1, 0, 0, 0);
    check_f32("floor32 r6, -r2", 6, 1, 0, 0, 0, 0);
    check_f32("fdiv32 r6, |r2|, -r3", 10, 0, 1, 1, 0, 0);
    check_f32("fadd32.sat r6, r2, r3", 0, 0, 0, 0, 0, 1);
    check_f32("fmul32.sat r6, -r2, r3", 1, 1, 0, 0, 0, 1);
    check_f32("ffma32.sat r6, r2, r3, r4", 2, 0, 0, 0, 0, 1);
    check_f32("fmov32.sat r6, r2", 5, 0, 0, 0, 0, 1);
    /* a float immediate and a uniform (u10 = 3.0) as sources */
    V v[1] = {{h_fbits(1.25f), 0, 0, 0}};
    uint32_t out[2];
    run_vec("fadd32 r6, r2, 2.5", v, 1, out);
    assert_int_equal(out[0], h_fbits(3.75f));
    run_vec("fmul32 r6, -r2, u10", v, 1, out);
    assert_int_equal(out[0], h_fbits(-3.75f));
}

/* ulps between two finite floats of the same sign */
static uint32_t ulps(float a, float b)
{
    int32_t x = (int32_t)h_fbits(a), y = (int32_t)h_fbits(b);
    return (uint32_t)(x > y ? x - y : y - x);
}

static void test_sfu(void **state)
{
    (void)state;
    static const float in[] = {0.75f, 1.0f, 2.0f, 3.0f, 0.1f, 10.5f, 1e-3f, 123.25f, 7.0f, 0.333f,
                               -0.5f, -4.25f, 1e20f, 5e-20f, -9.75f, 0.0f, -0.0f, INFINITY, -INFINITY, -1.0f};
    enum { N = sizeof in / sizeof in[0] };
    V v[N];
    uint32_t out[2 * N];
    for (int i = 0; i < N; i++)
        v[i] = (V){h_fbits(in[i]), 0, 0, 0};
    const char *insn[] = {"rcp32 r6, r2", "rsqrt32 r6, r2", "exp232 r6, r2", "log232 r6, r2",
                          "sin32 r6, r2", "cos32 r6, r2"};
    for (int o = 0; o < 6; o++) {
        run_vec(insn[o], v, N, out);
        for (int i = 0; i < N; i++) {
            double a = in[i];
            float got = h_bitsf(out[2 * i]);
            double want;
            switch (o) {
            case 0: want = 1.0 / a; break;
            case 1: want = 1.0 / sqrt(a); break;
            case 2: want = exp2(a); break;
            case 3: want = log2(a); break;
            case 4: want = sin(a); break;
            default: want = cos(a); break;
            }
            float wf = (float)want;
            bool ok;
            if (isnan(wf))
                ok = isnan(got);
            else if (isinf(wf) || wf == 0)
                ok = got == wf && signbit(got) == signbit(wf);
            else if (o >= 4)
                ok = fabs(a) > 200 || fabs((double)got - want) <= 2e-6; /* huge arguments: not pinned */
            else
                ok = signbit(got) == signbit(wf) && ulps(got, wf) <= (o < 2 ? 1u : 2u);
            if (!ok)
                fail_msg("%s of %a: expected about %a, got %a", insn[o], a, want, (double)got);
        }
    }
}

/* ---- f16 ---------------------------------------------------------------------------------- */

static const uint16_t hvals[] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0x4100, 0x7bff,
                                 0x0001, 0x03ff, 0x0400, 0x3555, 0x4248, 0xc880, 0x7c00, 0xfc00,
                                 0x7e00, 0x1400, 0x5640, 0x7800, 0xc100, 0x0200};
#define NH (sizeof hvals / sizeof hvals[0])

static uint16_t hmod(uint16_t x, bool neg, bool abs_)
{
    if (abs_)
        x &= 0x7fff;
    if (neg)
        x ^= 0x8000;
    return x;
}

static uint16_t ref_h(int kind, uint16_t a, uint16_t b, uint16_t c, bool sat)
{
    double x = h_f16_value(a), y = h_f16_value(b);
    uint16_t r;
    /* 53 >= 2 * 11 + 2: rounding the double result of +, *, / again to binary16 is exact */
    switch (kind) {
    case 0: r = h_d2h(x + y); break;
    case 1: r = h_d2h(x * y); break;
    case 2: r = h_fma16_ref(a, b, c); break;
    case 3: r = isnan(x) ? b : isnan(y) ? a : x < y ? a : b; break;
    case 4: r = isnan(x) ? b : isnan(y) ? a : x > y ? a : b; break;
    case 5: r = a; break;
    case 6: r = h_d2h(floor(x)); break;
    case 7: r = h_d2h(ceil(x)); break;
    case 8: r = h_d2h(trunc(x)); break;
    case 9: r = h_d2h(nearbyint(x)); break;
    default: r = h_d2h(x / y); break;
    }
    if (sat && !h_f16_is_nan(r)) {
        double v = h_f16_value(r);
        r = v > 0 ? (v < 1 ? r : 0x3c00) : 0;
    }
    return r;
}

/* Runs a 16-bit op; sources are a = r2l, b = r2h, c = r3l, destination r6l or r6h. */
static void check_f16(const char *insn, int kind, bool high_dst, bool na, bool aa, bool nb, bool ab, bool sat)
{
    V v[NH * NH];
    uint32_t n = 0, out[NH * NH * 2];
    for (uint32_t i = 0; i < NH; i++)
        for (uint32_t j = 0; j < NH; j++, n++)
            v[n] = (V){hvals[i] | (uint32_t)hvals[j] << 16, hvals[(i * 3 + j * 7) % NH], 0, 0};
    run_vec(insn, v, n, out);
    for (uint32_t i = 0; i < n; i++) {
        uint16_t a = hmod((uint16_t)v[i].a, na, aa), b = hmod((uint16_t)(v[i].a >> 16), nb, ab);
        uint16_t c = (uint16_t)v[i].b;
        uint16_t want = ref_h(kind, a, b, c, sat);
        uint16_t got = (uint16_t)(high_dst ? out[2 * i] >> 16 : out[2 * i]);
        uint16_t other = (uint16_t)(high_dst ? out[2 * i] : out[2 * i] >> 16);
        if (other != 0xa5a5)
            fail_msg("%s wrote the other half of r6: %#x", insn, out[2 * i]);
        if (sat && h_f16_is_nan(want))
            continue;
        if ((sat || kind == 3 || kind == 4) && (want & 0x7fff) == 0 && (got & 0x7fff) == 0)
            continue; /* the sign of a zero from .sat or from min/max(+0, -0) is not pinned */
        bool ok = h_f16_is_nan(want) ? h_f16_is_nan(got) : want == got;
        if (!ok)
            fail_msg("%s: a=%#06x b=%#06x c=%#06x: expected %#06x (%g), got %#06x (%g)", insn, a, b, c,
                     want, h_f16_value(want), got, h_f16_value(got));
    }
}

static void test_f16_arith(void **state)
{
    (void)state;
    check_f16("fadd16 r6l, r2l, r2h", 0, false, 0, 0, 0, 0, 0);
    check_f16("fmul16 r6h, r2l, r2h", 1, true, 0, 0, 0, 0, 0);
    check_f16("ffma16 r6l, r2l, r2h, r3l", 2, false, 0, 0, 0, 0, 0);
    check_f16("fmin16 r6l, r2l, r2h", 3, false, 0, 0, 0, 0, 0);
    check_f16("fmax16 r6h, r2l, r2h", 4, true, 0, 0, 0, 0, 0);
    check_f16("fmov16 r6l, r2l", 5, false, 0, 0, 0, 0, 0);
    check_f16("floor16 r6l, r2l", 6, false, 0, 0, 0, 0, 0);
    check_f16("ceil16 r6h, r2l", 7, true, 0, 0, 0, 0, 0);
    check_f16("trunc16 r6l, r2l", 8, false, 0, 0, 0, 0, 0);
    check_f16("rint16 r6l, r2l", 9, false, 0, 0, 0, 0, 0);
    check_f16("fdiv16 r6l, r2l, r2h", 10, false, 0, 0, 0, 0, 0);
}

static void test_f16_modifiers(void **state)
{
    (void)state;
    check_f16("fadd16 r6l, -r2l, |r2h|", 0, false, 1, 0, 0, 1, 0);
    check_f16("fmul16 r6l, -|r2l|, -r2h", 1, false, 1, 1, 1, 0, 0);
    check_f16("ffma16 r6h, |r2l|, -r2h, r3l", 2, true, 0, 1, 1, 0, 0);
    check_f16("fmin16 r6l, -r2l, r2h", 3, false, 1, 0, 0, 0, 0);
    check_f16("fmov16 r6l, -|r2l|", 5, false, 1, 1, 0, 0, 0);
    check_f16("rint16 r6l, -r2l", 9, false, 1, 0, 0, 0, 0);
    check_f16("fdiv16 r6l, -r2l, |r2h|", 10, false, 1, 0, 0, 1, 0);
    check_f16("fadd16.sat r6l, r2l, r2h", 0, false, 0, 0, 0, 0, 1);
    check_f16("fmul16.sat r6l, r2l, -r2h", 1, false, 0, 0, 1, 0, 1);
    check_f16("ffma16.sat r6l, r2l, r2h, r3l", 2, false, 0, 0, 0, 0, 1);
    check_f16("fmov16.sat r6h, r2l", 5, true, 0, 0, 0, 0, 1);
    V v[1] = {{0x3d00, 0, 0, 0}}; /* 1.25 */
    uint32_t out[2];
    run_vec("fadd16 r6l, r2l, 2.5", v, 1, out);
    assert_int_equal(out[0] & 0xffff, 0x4380); /* 3.75 */
}

static void test_fcmpsel(void **state)
{
    (void)state;
    static const char *conds[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    static const float cv[] = {-INFINITY, -1.0f, -0.0f, 0.0f, 1.0f, 2.5f, INFINITY, NAN};
    static const uint16_t ch[] = {0xfc00, 0xbc00, 0x8000, 0x0000, 0x3c00, 0x4100, 0x7c00, 0x7e00};
    V v[64], w[64];
    uint32_t out[128];
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            v[i * 8 + j] = (V){h_fbits(cv[i]), h_fbits(cv[j]), 0x1111, 0x2222};
            w[i * 8 + j] = (V){ch[i] | (uint32_t)ch[j] << 16, 0x1111 | 0x2222u << 16, 0, 0};
        }
    char insn[80];
    for (int k = 0; k < 6; k++) {
        for (int width = 0; width < 2; width++) {
            if (width == 0)
                snprintf(insn, sizeof insn, "fcmpsel32.%s r6, r2, r3, r4, r5", conds[k]);
            else
                snprintf(insn, sizeof insn, "fcmpsel16.%s r6l, r2l, r2h, r3l, r3h", conds[k]);
            run_vec(insn, width ? w : v, 64, out);
            for (int i = 0; i < 64; i++) {
                float a = cv[i / 8], b = cv[i % 8];
                bool t = k == 0 ? a == b : k == 1 ? !(a == b) : k == 2 ? a < b : k == 3 ? a <= b
                       : k == 4 ? a > b : a >= b;
                uint32_t want = t ? 0x1111 : 0x2222;
                uint32_t got = width ? out[2 * i] & 0xffff : out[2 * i];
                if (got != want)
                    fail_msg("%s: a=%g b=%g: expected %#x, got %#x", insn, (double)a, (double)b, want, got);
                if (width && (out[2 * i] >> 16) != 0xa5a5)
                    fail_msg("%s wrote r6h", insn);
            }
        }
    }
}

/* ---- cvt ---------------------------------------------------------------------------------- */

typedef struct CvtCase {
    const char *sfx; /* dst.src[.round] */
    uint64_t in, want;
} CvtCase;

static unsigned type_width(const char *t)
{
    if (!strncmp(t, "f16", 3))
        return 16;
    if (!strncmp(t, "u64", 3) || !strncmp(t, "s64", 3))
        return 64;
    return 32;
}

static void test_cvt(void **state)
{
    (void)state;
#define F(x) ((uint64_t)h_fbits(x))
    const CvtCase cases[] = {
        /* float -> int: toward zero by default, saturating, NaN -> 0 */
        {"s32.f32", F(1.5f), 1}, {"s32.f32", F(-1.5f), 0xffffffff}, {"s32.f32", F(3e9f), 0x7fffffff},
        {"s32.f32", F(-3e9f), 0x80000000}, {"s32.f32", F(NAN), 0}, {"s32.f32", F(INFINITY), 0x7fffffff},
        {"s32.f32", F(-INFINITY), 0x80000000}, {"s32.f32", F(-0.0f), 0},
        {"s32.f32.rte", F(2.5f), 2}, {"s32.f32.rte", F(3.5f), 4}, {"s32.f32.rte", F(-2.5f), 0xfffffffe},
        {"s32.f32.rtz", F(-2.9f), 0xfffffffe},
        {"u32.f32", F(-1.0f), 0}, {"u32.f32", F(5e9f), 0xffffffff}, {"u32.f32", F(NAN), 0},
        {"u32.f32", F(4294967040.0f), 4294967040u}, {"u32.f32", F(7.99f), 7},
        {"u8.f32", F(300.0f), 255}, {"u8.f32", F(-5.0f), 0}, {"u8.f32", F(200.7f), 200},
        {"s8.f32", F(-200.0f), 0xffffff80}, {"s8.f32", F(100.7f), 100}, {"s8.f32", F(-3.5f), 0xfffffffd},
        {"s16.f32", F(40000.0f), 0x7fff}, {"s16.f32", F(-40000.0f), 0xffff8000}, {"u16.f32", F(70000.0f), 0xffff},
        {"s64.f32", F(-1e19f), 0x8000000000000000ull}, {"s64.f32", F(1e19f), 0x7fffffffffffffffull},
        {"u64.f32", F(1e19f), 9999999980506447872ull}, {"s64.f32", F(-2.5f), 0xfffffffffffffffeull},
        {"s64.f32", F(NAN), 0},
        {"s32.f16", 0x4d00, 20}, {"s32.f16", 0xcd00, 0xffffffec}, {"u8.f16", 0x7bff, 255},
        {"s32.f16", 0x7c00, 0x7fffffff}, {"u32.f16", 0x7e00, 0},
        /* int -> float: nearest even by default */
        {"f32.s32", 16777217, F(16777216.0f)}, {"f32.s32", 16777219, F(16777220.0f)},
        {"f32.s32.rtz", 16777219, F(16777218.0f)}, {"f32.s32", 0xffffffff, F(-1.0f)},
        {"f32.s32", 0x80000000, F(-2147483648.0f)}, {"f32.u32", 0xffffffff, F(4294967296.0f)},
        {"f32.u32.rtz", 0xffffffff, F(4294967040.0f)}, {"f32.u16", 0xffff, F(65535.0f)},
        {"f32.s16", 0xffff, F(-1.0f)}, {"f32.s8", 0x80, F(-128.0f)}, {"f32.u8", 0xff, F(255.0f)},
        {"f32.s64", 0x8000000000000000ull, F(-9223372036854775808.0f)},
        {"f32.u64", 0xffffffffffffffffull, F(18446744073709551616.0f)},
        {"f16.s32", 65519, 0x7bff}, {"f16.s32", 65520, 0x7c00}, {"f16.s32.rtz", 65520, 0x7bff},
        {"f16.u32", 2049, 0x6800}, {"f16.u32", 2051, 0x6802}, {"f16.s32", 0xfffffffd, 0xc200},
        /* float <-> float */
        {"f16.f32", F(1.0f), 0x3c00}, {"f16.f32", F(65520.0f), 0x7c00}, {"f16.f32", F(65519.0f), 0x7bff},
        {"f16.f32.rtz", F(65520.0f), 0x7bff}, {"f16.f32", F(1e-8f), 0}, {"f16.f32", F(3e-8f), 0x0001},
        {"f16.f32", F(-INFINITY), 0xfc00}, {"f16.f32", F(1.0009765625f), 0x3c01},
        {"f16.f32", F(1.00048828125f), 0x3c00}, {"f16.f32", F(1.00146484375f), 0x3c02},
        {"f32.f16", 0x0001, F(5.9604644775390625e-8f)}, {"f32.f16", 0x7bff, F(65504.0f)},
        {"f32.f16", 0xfc00, F(-INFINITY)}, {"f32.f16", 0x8000, F(-0.0f)},
        /* int <-> int: extension and wrap-around */
        {"s32.s8", 0xff, 0xffffffff}, {"u32.u8", 0x1ff, 0xff}, {"s32.s16", 0x8000, 0xffff8000},
        {"s64.s32", 0xfffffffb, 0xfffffffffffffffbull}, {"u64.u32", 0xfffffffb, 0xfffffffbull},
        {"s32.s64", 0x123456789ull, 0x23456789}, {"u8.u32", 0x1234, 0x34}, {"s8.u32", 0x80, 0xffffff80},
        {"s64.s16", 0x18000, 0xffffffffffff8000ull}, {"u64.s8", 0x80, 0xffffffffffffff80ull},
        {"s64.u16", 0xffff8000, 0x8000}, {"u16.s32", 0xfffe1234, 0x1234}, {"s16.u64", 0x1234567890abcdefull, 0xffffcdef},
        {"u32.s64", 0xfedcba9876543210ull, 0x76543210}, {"s64.s64", 0x8000000000000001ull, 0x8000000000000001ull},
        {"s32.u32", 0x80000000, 0x80000000}, {"s64.s32", 0x7fffffff, 0x7fffffff},
    };
#undef F
    enum { N = sizeof cases / sizeof cases[0] };
    for (int i = 0; i < N; i++) {
        char dst[4], insn[96];
        memcpy(dst, cases[i].sfx, 3), dst[3] = 0;
        if (dst[2] == '.')
            dst[2] = 0;
        const char *s2 = strchr(cases[i].sfx, '.') + 1;
        unsigned dw = type_width(dst), sw = type_width(s2);
        snprintf(insn, sizeof insn, "cvt.%s %s, %s", cases[i].sfx, dw == 16 ? "r6l" : "r6", sw == 16 ? "r2l" : "r2");
        V v = {(uint32_t)cases[i].in, (uint32_t)(cases[i].in >> 32), 0, 0};
        uint32_t out[2];
        run_vec(insn, &v, 1, out);
        uint64_t got = (uint64_t)out[1] << 32 | out[0];
        uint64_t want = cases[i].want;
        if (dw == 16)
            want |= 0xa5a50000ull, want |= (uint64_t)SENT << 32;
        else if (dw == 32)
            want |= (uint64_t)SENT << 32;
        bool nan16 = dw == 16 && (uint16_t)want == 0x7e00;
        if (nan16 ? !h_f16_is_nan((uint16_t)got) : got != want)
            fail_msg("%s of %#llx: expected %#llx, got %#llx", insn, (unsigned long long)cases[i].in,
                     (unsigned long long)want, (unsigned long long)got);
    }
    /* NaN f32 -> f16 stays NaN */
    V v = {h_fbits(NAN), 0, 0, 0};
    uint32_t out[2];
    run_vec("cvt.f16.f32 r6l, r2", &v, 1, out);
    assert_true(h_f16_is_nan((uint16_t)out[0]));
}

/* Integer to integer over many lanes at once, each its own value (test_cvt runs one lane):
 * 40 threads, a full SIMD-group and 8 lanes of the next, against extension and wrap-around
 * written here with shifts. */
static uint64_t ref_int_cvt(uint64_t x, unsigned sw, bool ss, unsigned dw, bool ds)
{
    uint64_t v = sw < 64 ? (ss ? (uint64_t)((int64_t)(x << (64 - sw)) >> (64 - sw))
                               : x & ((UINT64_C(1) << sw) - 1))
                         : x;
    if (dw < 64)
        v &= (UINT64_C(1) << dw) - 1;
    if (ds && dw < 32)
        v = (uint64_t)(uint32_t)((int32_t)((uint32_t)v << (32 - dw)) >> (32 - dw));
    return v;
}

static void test_cvt_lanes(void **state)
{
    (void)state;
    static const char *const pairs[] = {
        "s64.s32", "u64.u32", "s64.u32", "u64.s32", "s32.s8", "u32.u8", "s32.s16", "u32.s16",
        "s8.u32", "u8.s32", "s16.s32", "u16.s32", "s16.u64", "s32.s64", "u32.u64", "u64.s8",
        "s64.s16", "s64.s64", "s8.s64",
    };
    enum { N = 40 };
    V v[N];
    for (uint32_t i = 0; i < N; i++) {
        uint64_t x = (i + 1) * UINT64_C(0x9e3779b97f4a7c15);
        x ^= i & 1 ? 0 : UINT64_C(0x8080808080808080); /* sign bits set in half the lanes */
        v[i] = (V){(uint32_t)x, (uint32_t)(x >> 32), 0, 0};
    }
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        const char *t = pairs[p];
        unsigned dw = (unsigned)atoi(t + 1), sw = (unsigned)atoi(strchr(t, '.') + 2);
        bool ds = t[0] == 's', ss = strchr(t, '.')[1] == 's';
        char insn[64];
        snprintf(insn, sizeof insn, "cvt.%s r6, r2", t);
        uint32_t out[2 * N];
        run_vec(insn, v, N, out);
        for (uint32_t i = 0; i < N; i++) {
            uint64_t x = (uint64_t)v[i].b << 32 | v[i].a;
            uint64_t want = ref_int_cvt(x, sw, ss, dw, ds);
            if (dw < 64)
                want |= (uint64_t)SENT << 32;
            uint64_t got = (uint64_t)out[2 * i + 1] << 32 | out[2 * i];
            if (got != want)
                fail_msg("%s lane %u of %#llx: expected %#llx, got %#llx", insn, i,
                         (unsigned long long)x, (unsigned long long)want, (unsigned long long)got);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_arith),  cmocka_unit_test(test_bitfield),
        cmocka_unit_test(test_bitcount),   cmocka_unit_test(test_int64),
        cmocka_unit_test(test_icmpsel),    cmocka_unit_test(test_f32_arith),
        cmocka_unit_test(test_f32_modifiers), cmocka_unit_test(test_sfu),
        cmocka_unit_test(test_f16_arith),  cmocka_unit_test(test_f16_modifiers),
        cmocka_unit_test(test_fcmpsel),    cmocka_unit_test(test_cvt), cmocka_unit_test(test_cvt_lanes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
