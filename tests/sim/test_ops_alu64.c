/*
 * test_ops_alu64.c — pins the 64-bit integer ops beyond add/sub/mul: high products,
 * division and remainder (by zero and INT64_MIN / -1 included), shifts with their 32-bit
 * amount taken mod 64, bitwise ops, and icmpsel64 with every integer condition. Expected
 * values come from C reference functions written here (the high products from unsigned
 * __int128, not the limb arithmetic the simulator uses).
 *
 * Every op runs once per test vector: thread i loads a into the pair r2:r3 and b into r4:r5,
 * and stores the pair r6:r7 (both preset to 0xa5a5a5a5, so an untouched high word shows).
 */
#include "sim_harness.h"

#define SENT 0xa5a5a5a5u

typedef struct V64 {
    uint64_t a, b;
} V64;

static const uint64_t vals[] = {
    0, 1, 2, 3, 7, 31, 32, 33, 63, 64, 65, 100, 0xffffffffull, 0x100000000ull,
    0x7fffffffull, 0x80000000ull, 0x123456789abcdef0ull, 0xfedcba9876543210ull,
    0x7fffffffffffffffull, 0x8000000000000000ull, 0xffffffffffffffffull,
    0xfffffffffffffff9ull, 0xfffffffeffffffffull, 0x00000001ffffffffull, 1000000007ull,
    0xdeadbeefcafebabeull,
};
#define NV (sizeof vals / sizeof vals[0])

/* Runs `insn` over every (a, b) pair of vals; out[i] = the r6:r7 pair of thread i. */
static uint32_t run_pairs(const char *insn, V64 *v, uint64_t *out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < NV; i++)
        for (uint32_t j = 0; j < NV; j++)
            v[n++] = (V64){vals[i], vals[j]};
    char text[2048];
    snprintf(text, sizeof text,
             ".kernel alu64\n.regs 12\n.arg in, device, u0\n.arg out, device, u2\n"
             ".uniform u10, 0x00000005\n.uniform u11, 0x80000000\n"
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
    for (uint32_t i = 0; i < n; i++) {
        in[4 * i] = (uint32_t)v[i].a, in[4 * i + 1] = (uint32_t)(v[i].a >> 32);
        in[4 * i + 2] = (uint32_t)v[i].b, in[4 * i + 3] = (uint32_t)(v[i].b >> 32);
    }
    h_run1(&h, n, 64);
    h_expect_no_faults(&h);
    const uint32_t *o = h_data(&h, 1);
    for (uint32_t i = 0; i < n; i++)
        out[i] = (uint64_t)o[2 * i + 1] << 32 | o[2 * i];
    h_free(&h);
    return n;
}

typedef uint64_t (*Ref64)(uint64_t a, uint64_t b);

static void check64(const char *insn, Ref64 ref)
{
    V64 v[NV * NV];
    uint64_t out[NV * NV];
    uint32_t n = run_pairs(insn, v, out);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t want = ref(v[i].a, v[i].b);
        if (out[i] != want)
            fail_msg("%s: a=%#llx b=%#llx: expected %#llx, got %#llx", insn,
                     (unsigned long long)v[i].a, (unsigned long long)v[i].b,
                     (unsigned long long)want, (unsigned long long)out[i]);
    }
}

/* ---- C references ---------------------------------------------------------------------- */

static uint64_t r_umulhi(uint64_t a, uint64_t b)
{
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
}
static uint64_t r_smulhi(uint64_t a, uint64_t b)
{
    __int128 p = (__int128)(int64_t)a * (__int128)(int64_t)b;
    return (uint64_t)((unsigned __int128)p >> 64);
}
static uint64_t r_udiv(uint64_t a, uint64_t b) { return b ? a / b : ~0ull; }
static uint64_t r_urem(uint64_t a, uint64_t b) { return b ? a % b : a; }
static uint64_t r_sdiv(uint64_t a, uint64_t b)
{
    int64_t x = (int64_t)a, y = (int64_t)b;
    if (y == 0)
        return ~0ull;
    if (x == INT64_MIN && y == -1)
        return a; /* the quotient 2^63 wraps to INT64_MIN */
    return (uint64_t)(x / y);
}
static uint64_t r_srem(uint64_t a, uint64_t b)
{
    int64_t x = (int64_t)a, y = (int64_t)b;
    if (y == 0)
        return a;
    if (x == INT64_MIN && y == -1)
        return 0;
    return (uint64_t)(x % y);
}
/* The amount is the low word of b, taken mod 64. */
static uint64_t r_shl(uint64_t a, uint64_t b) { return a << ((uint32_t)b % 64); }
static uint64_t r_lsr(uint64_t a, uint64_t b) { return a >> ((uint32_t)b % 64); }
static uint64_t r_asr(uint64_t a, uint64_t b)
{
    unsigned k = (uint32_t)b % 64;
    uint64_t r = a >> k;
    if ((a >> 63) && k) /* fill the vacated high bits with ones */
        r |= ~0ull << (64 - k);
    return r;
}
static uint64_t r_and(uint64_t a, uint64_t b) { return a & b; }
static uint64_t r_or(uint64_t a, uint64_t b) { return a | b; }
static uint64_t r_xor(uint64_t a, uint64_t b) { return a ^ b; }
static uint64_t r_not(uint64_t a, uint64_t b) { (void)b; return ~a; }
static uint64_t r_shl5(uint64_t a, uint64_t b) { (void)b; return a << 5; }
static uint64_t r_and_imm(uint64_t a, uint64_t b) { (void)b; return a & 0xf0f0f0f00000ffffull; }
static uint64_t r_div_u10(uint64_t a, uint64_t b) { (void)b; return r_udiv(a, 0x8000000000000005ull); }

static void test_products_and_division(void **state)
{
    (void)state;
    check64("umulhi64 r6, r2, r4", r_umulhi);
    check64("smulhi64 r6, r2, r4", r_smulhi);
    check64("udiv64 r6, r2, r4", r_udiv);
    check64("sdiv64 r6, r2, r4", r_sdiv);
    check64("urem64 r6, r2, r4", r_urem);
    check64("srem64 r6, r2, r4", r_srem);
    /* a uniform pair as the divisor: u10 low, u11 high */
    check64("udiv64 r6, r2, u10", r_div_u10);
}

static void test_shifts_and_bitwise(void **state)
{
    (void)state;
    check64("shl64 r6, r2, r4", r_shl);
    check64("lsr64 r6, r2, r4", r_lsr);
    check64("asr64 r6, r2, r4", r_asr);
    check64("shl64 r6, r2, 5", r_shl5);
    check64("and64 r6, r2, r4", r_and);
    check64("or64 r6, r2, r4", r_or);
    check64("xor64 r6, r2, r4", r_xor);
    check64("not64 r6, r2", r_not);
    check64("and64 r6, r2, 0xf0f0f0f00000ffff", r_and_imm);
    /* destination overlapping a source pair: computed before written */
    check64("xor64 r2, r2, r4\n    mov64 r6, r2", r_xor);
}

static bool cmp_ref(IsaCond c, uint64_t a, uint64_t b)
{
    int64_t x = (int64_t)a, y = (int64_t)b;
    switch (c) {
    case ISA_COND_EQ: return a == b;
    case ISA_COND_NE: return a != b;
    case ISA_COND_ULT: return a < b;
    case ISA_COND_ULE: return !(b < a);
    case ISA_COND_UGT: return b < a;
    case ISA_COND_UGE: return !(a < b);
    case ISA_COND_SLT: return x < y;
    case ISA_COND_SLE: return !(y < x);
    case ISA_COND_SGT: return y < x;
    default: return !(x < y);
    }
}

static void test_icmpsel64(void **state)
{
    (void)state;
    static const IsaCond conds[] = {ISA_COND_EQ, ISA_COND_NE, ISA_COND_ULT, ISA_COND_ULE,
                                    ISA_COND_UGT, ISA_COND_UGE, ISA_COND_SLT, ISA_COND_SLE,
                                    ISA_COND_SGT, ISA_COND_SGE};
    for (size_t k = 0; k < sizeof conds / sizeof conds[0]; k++) {
        char insn[128];
        /* 32-bit result: r7 keeps its sentinel */
        snprintf(insn, sizeof insn, "icmpsel64.%s r6, r2, r4, 0x11, r1", isa_cond_names[conds[k]]);
        V64 v[NV * NV];
        uint64_t out[NV * NV];
        uint32_t n = run_pairs(insn, v, out);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t want = cmp_ref(conds[k], v[i].a, v[i].b) ? 0x11 : i;
            if ((uint32_t)out[i] != want || (uint32_t)(out[i] >> 32) != SENT)
                fail_msg("%s: a=%#llx b=%#llx: expected %#x (r7 %#x), got %#x (r7 %#x)", insn,
                         (unsigned long long)v[i].a, (unsigned long long)v[i].b, want, SENT,
                         (uint32_t)out[i], (uint32_t)(out[i] >> 32));
        }
        /* against a 64-bit immediate */
        snprintf(insn, sizeof insn, "icmpsel64.%s r6, r2, 0x8000000000000000, 1, 0",
                 isa_cond_names[conds[k]]);
        n = run_pairs(insn, v, out);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t want = cmp_ref(conds[k], v[i].a, 0x8000000000000000ull);
            if ((uint32_t)out[i] != want)
                fail_msg("%s: a=%#llx: expected %u, got %u", insn, (unsigned long long)v[i].a,
                         want, (uint32_t)out[i]);
        }
    }
}

/* Inactive lanes keep both words of the destination pair. */
static void test_exec_mask(void **state)
{
    (void)state;
    const char *text =
        ".kernel m\n.regs 8\n.arg out, device, u0\n"
        "    get_sr r1, thread_position_in_grid.x\n"
        "    mov64 r2, 0x1111111122222222\n"
        "    if_icmp.eq 1, r1, 3\n"
        "    not64 r2, r2\n"
        "    pop_exec 1\n"
        "    shl r4, r1, 1\n"
        "    st_dev.b32.x2 r2, u0, r4\n"
        "    stop\n";
    Harness h;
    h_init(&h, text);
    h_buffer(&h, 0, "out", 8 * 8, MEM_SPACE_DEVICE);
    h_run1(&h, 8, 8);
    h_expect_no_faults(&h);
    const uint32_t *o = h_data(&h, 0);
    for (int i = 0; i < 8; i++) {
        uint64_t got = (uint64_t)o[2 * i + 1] << 32 | o[2 * i];
        uint64_t want = i == 3 ? ~0x1111111122222222ull : 0x1111111122222222ull;
        assert_int_equal(got, want);
    }
    h_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_products_and_division),
        cmocka_unit_test(test_shifts_and_bitwise),
        cmocka_unit_test(test_icmpsel64),
        cmocka_unit_test(test_exec_mask),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
