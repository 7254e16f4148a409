/*
 * test_ops_simd.c — pins the SIMD-group and quad-group functions on a threadgroup of 48
 * threads (SIMD-group 1 has 16 lanes) where every thread with index % 5 == 3 is inactive:
 * ballots, every shuffle and broadcast, and reductions and prefix operations of every
 * op and type, which must leave inactive lanes out (and unwritten).
 */
#include "sim_harness.h"

enum { N = 48 };
#define SENT 0xa5a5a5a5u

static bool present(uint32_t sg, uint32_t l) { return l < (sg == 0 ? 32u : 16u); }
static bool active(uint32_t sg, uint32_t l) { return present(sg, l) && (sg * 32 + l) % 5 != 3; }

/* Runs `insn` with a = r2 (or r2l), b = r3 per thread, destination r6 preset to SENT. */
static void run_simd(const char *insn, const uint32_t *a, const uint32_t *b, uint32_t *out)
{
    char text[1024];
    snprintf(text, sizeof text,
             ".kernel s\n.regs 8\n.arg vals, device, u0\n.arg bs, device, u2\n.arg out, device, u4\n"
             "    get_sr r1, thread_position_in_grid.x\n"
             "    ld_dev.b32 r2, u0, r1, 0\n"
             "    ld_dev.b32 r3, u2, r1, 0\n"
             "    wait 0\n"
             "    mov r6, 0xa5a5a5a5\n"
             "    urem r5, r1, 5\n"
             "    if_icmp.ne 1, r5, 3\n"
             "    %s\n"
             "    pop_exec 1\n"
             "    st_dev.b32 r6, u4, r1\n"
             "    stop\n",
             insn);
    Harness h;
    h_init(&h, text);
    memcpy(h_buffer(&h, 0, "vals", N * 4, MEM_SPACE_DEVICE), a, N * 4);
    uint32_t *bs = h_buffer(&h, 1, "bs", N * 4, MEM_SPACE_DEVICE);
    if (b)
        memcpy(bs, b, N * 4);
    h_buffer(&h, 2, "out", N * 4, MEM_SPACE_DEVICE);
    h_run1(&h, N, N);
    h_expect_no_faults(&h);
    memcpy(out, h_data(&h, 2), N * 4);
    h_free(&h);
}

static void check_inactive(const char *insn, const uint32_t *out)
{
    for (uint32_t i = 0; i < N; i++)
        if (!active(i / 32, i % 32) && out[i] != SENT)
            fail_msg("%s wrote inactive thread %u: %#x", insn, i, out[i]);
}

static void test_ballot(void **state)
{
    (void)state;
    uint32_t a[N], out[N];
    for (uint32_t i = 0; i < N; i++)
        a[i] = (i * 13) % 100;
    run_simd("icmp_ballot.ult r6, r2, 50", a, NULL, out);
    check_inactive("icmp_ballot", out);
    for (uint32_t sg = 0; sg < 2; sg++) {
        uint32_t m = 0;
        for (uint32_t l = 0; l < 32; l++)
            if (active(sg, l) && a[sg * 32 + l] < 50)
                m |= 1u << l;
        for (uint32_t l = 0; l < 32; l++)
            if (active(sg, l))
                assert_int_equal(out[sg * 32 + l], m);
    }
    float fv[] = {1.0f, -2.0f, NAN, 0.5f, 3.0f, -0.0f, INFINITY};
    for (uint32_t i = 0; i < N; i++)
        a[i] = h_fbits(fv[i % 7]);
    for (int ne = 0; ne < 2; ne++) {
        run_simd(ne ? "fcmp_ballot.ne r6, r2, 1.0" : "fcmp_ballot.lt r6, r2, 1.0", a, NULL, out);
        for (uint32_t sg = 0; sg < 2; sg++) {
            uint32_t m = 0;
            for (uint32_t l = 0; l < 32; l++) {
                float x = fv[(sg * 32 + l) % 7];
                if (active(sg, l) && (ne ? !(x == 1.0f) : x < 1.0f))
                    m |= 1u << l;
            }
            for (uint32_t l = 0; l < 32; l++)
                if (active(sg, l))
                    assert_int_equal(out[sg * 32 + l], m);
        }
    }
}

/* Source lane of a shuffle for lane l with operand b; -1 for "own value". */
static int shuffle_src(int kind, uint32_t l, uint32_t b)
{
    uint32_t quad = l & ~3u, q = l & 3;
    switch (kind) {
    case 0: return (int)(b & 31);                                 /* shfl */
    case 1: return b <= l ? (int)(l - b) : (int)l;                 /* shfl_up */
    case 2: return b <= 31 - l ? (int)(l + b) : (int)l;            /* shfl_down */
    case 3: return (int)(l ^ (b & 31));                            /* shfl_xor */
    case 4: return (int)((l + 32 - (b % 32)) % 32);                /* shfl_rot_up */
    case 5: return (int)((l + b) % 32);                            /* shfl_rot_down */
    case 6: return (int)(quad + (b & 3));                          /* qshfl */
    case 7: return b <= q ? (int)(l - b) : (int)l;                 /* qshfl_up */
    case 8: return b <= 3 - q ? (int)(l + b) : (int)l;             /* qshfl_down */
    case 9: return (int)(quad + (q ^ (b & 3)));                    /* qshfl_xor */
    case 10: return (int)(quad + (q + 4 - (b % 4)) % 4);           /* qshfl_rot_up */
    default: return (int)(quad + (q + b) % 4);                     /* qshfl_rot_down */
    }
}

static void test_shuffles(void **state)
{
    (void)state;
    static const char *names[] = {"shfl", "shfl_up", "shfl_down", "shfl_xor", "shfl_rot_up",
                                  "shfl_rot_down", "qshfl", "qshfl_up", "qshfl_down", "qshfl_xor",
                                  "qshfl_rot_up", "qshfl_rot_down"};
    uint32_t a[N], b[N], out[N];
    for (uint32_t i = 0; i < N; i++)
        a[i] = 0x1000u + i * 3;
    for (int pattern = 0; pattern < 3; pattern++) {
        for (uint32_t i = 0; i < N; i++)
            b[i] = pattern == 0 ? (i * 7 + 3) % 45 : pattern == 1 ? i % 6 : 2; /* incl. >= 32 */
        for (int kind = 0; kind < 12; kind++) {
            char insn[64];
            snprintf(insn, sizeof insn, "%s r6, r2, r3", names[kind]);
            run_simd(insn, a, b, out);
            check_inactive(insn, out);
            for (uint32_t i = 0; i < N; i++) {
                uint32_t sg = i / 32, l = i % 32;
                if (!active(sg, l))
                    continue;
                uint32_t s = (uint32_t)shuffle_src(kind, l, b[i]);
                if (!active(sg, s))
                    continue; /* reading an inactive or absent lane: undefined in MSL */
                if (out[i] != a[sg * 32 + s])
                    fail_msg("%s lane %u b=%u: expected lane %u's %#x, got %#x", names[kind], i, b[i], s,
                             a[sg * 32 + s], out[i]);
            }
        }
    }
}

static void test_broadcasts(void **state)
{
    (void)state;
    uint32_t a[N], out[N];
    for (uint32_t i = 0; i < N; i++)
        a[i] = 0x2000u + i;
    run_simd("bcast r6, r2, 6", a, NULL, out);
    check_inactive("bcast", out);
    for (uint32_t i = 0; i < N; i++)
        if (active(i / 32, i % 32))
            assert_int_equal(out[i], a[(i / 32) * 32 + 6]);
    run_simd("qbcast r6, r2, 2", a, NULL, out);
    for (uint32_t i = 0; i < N; i++)
        if (active(i / 32, i % 32) && active(i / 32, (i % 32 & ~3u) + 2))
            assert_int_equal(out[i], a[(i & ~3u) + 2]);
    /* bcast_first: the lowest active lane, here lane 0 of each SIMD-group; then a case
     * where SIMD-group 0 has no active lane and SIMD-group 1's first active lane is 37 */
    run_simd("bcast_first r6, r2", a, NULL, out);
    for (uint32_t i = 0; i < N; i++)
        if (active(i / 32, i % 32))
            assert_int_equal(out[i], a[(i / 32) * 32]);
    const char *k =
        ".kernel bf\n.regs 6\n.arg out, device, u0\n"
        "    get_sr r1, thread_position_in_grid.x\n"
        "    if_icmp.uge 1, r1, 37\n"
        "    imul r2, r1, 10\n"
        "    bcast_first r3, r2\n"
        "    pop_exec 1\n"
        "    st_dev.b32 r3, u0, r1\n"
        "    stop\n";
    Harness h;
    h_init(&h, k);
    uint32_t *o = h_buffer(&h, 0, "out", N * 4, MEM_SPACE_DEVICE);
    h_run1(&h, N, N);
    for (uint32_t i = 0; i < N; i++)
        assert_int_equal(o[i], i >= 37 ? 370u : 0u);
    h_free(&h);
}

/* ---- reductions and prefix ops ---------------------------------------------------------- */

static const char *red_names[] = {"sum", "product", "min", "max", "and", "or", "xor"};
static const char *type_names[] = {"i32", "u32", "f32", "f16"};

static double val_of(int type, uint32_t x)
{
    return type == 2 ? (double)h_bitsf(x) : h_f16_value((uint16_t)x);
}

/* x op y on values of the given type (floats: NaN operands yield the other for min/max). */
static uint32_t combine_ref(int op, int type, uint32_t x, uint32_t y)
{
    if (type >= 2) {
        double a = val_of(type, x), b = val_of(type, y), r;
        switch (op) {
        case 0: r = a + b; break;
        case 1: r = a * b; break;
        case 2: if (isnan(a)) return y; if (isnan(b)) return x; return a <= b ? x : y;
        default: if (isnan(a)) return y; if (isnan(b)) return x; return a >= b ? x : y;
        }
        return type == 2 ? h_fbits((float)r) : h_d2h(r); /* exact for the inputs used */
    }
    switch (op) {
    case 0: return x + y;
    case 1: return x * y;
    case 2: return type == 0 ? ((int32_t)x < (int32_t)y ? x : y) : (x < y ? x : y);
    case 3: return type == 0 ? ((int32_t)x > (int32_t)y ? x : y) : (x > y ? x : y);
    case 4: return x & y;
    case 5: return x | y;
    default: return x ^ y;
    }
}

static void make_values(int op, int type, uint32_t *a)
{
    static const float prod_f[] = {1.0f, 2.0f, 0.5f, -1.0f, -2.0f, 0.25f, 1.0f};
    for (uint32_t i = 0; i < N; i++) {
        int32_t si = (int32_t)((i * 37) % 23) - 11;
        float f = op == 1 ? prod_f[i % 7] : (float)si * 0.25f; /* every fold exact in any order */
        if (op >= 2 && op <= 3 && i % 11 == 4)
            f = NAN;
        switch (type) {
        case 0: a[i] = (uint32_t)(si * 100003); break;
        case 1: a[i] = i * 2654435761u; break;
        case 2: a[i] = h_fbits(f); break;
        default: a[i] = isnan(f) ? 0x7e00 : h_d2h((double)f); break;
        }
    }
}

static bool same_val(int type, uint32_t want, uint32_t got)
{
    if (type == 3) {
        got &= 0xffff;
        if (h_f16_is_nan((uint16_t)want))
            return h_f16_is_nan((uint16_t)got);
        return (uint16_t)want == got;
    }
    if (type == 2 && isnan(h_bitsf(want)))
        return isnan(h_bitsf(got));
    return want == got;
}

/* mode: 0 reduce, 1 inclusive prefix, 2 exclusive prefix; quad: over quads. */
static void check_red(int mode, bool quad, int op, int type)
{
    char insn[96];
    const char *dst = type == 3 ? "r6l" : "r6", *src = type == 3 ? "r2l" : "r2";
    if (mode == 0)
        snprintf(insn, sizeof insn, "%s.%s.%s %s, %s", quad ? "quad_red" : "simd_red", red_names[op],
                 type_names[type], dst, src);
    else
        snprintf(insn, sizeof insn, "%s.%s.%s.%s %s, %s", quad ? "quad_prefix" : "simd_prefix",
                 mode == 1 ? "incl" : "excl", red_names[op], type_names[type], dst, src);
    uint32_t a[N], out[N];
    make_values(op, type, a);
    run_simd(insn, a, NULL, out);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t sg = i / 32, l = i % 32;
        if (!active(sg, l)) {
            if (out[i] != SENT)
                fail_msg("%s wrote inactive thread %u", insn, i);
            continue;
        }
        uint32_t lo = quad ? l & ~3u : 0, hi = quad ? lo + 4 : 32;
        if (mode == 1)
            hi = l + 1;
        if (mode == 2)
            hi = l;
        bool have = false;
        uint32_t acc = 0;
        for (uint32_t s = lo; s < hi; s++) {
            if (!active(sg, s))
                continue;
            acc = have ? combine_ref(op, type, acc, a[sg * 32 + s]) : a[sg * 32 + s];
            have = true;
        }
        if (!have) /* an exclusive prefix with nothing below: the identity */
            acc = op == 0 ? 0 : type == 2 ? h_fbits(1.0f) : type == 3 ? 0x3c00 : 1;
        uint32_t got = out[i];
        if (type == 3 && (got >> 16) != 0xa5a5)
            fail_msg("%s wrote r6h of thread %u", insn, i);
        if (!same_val(type, acc, got))
            fail_msg("%s thread %u: expected %#x, got %#x", insn, i, acc, type == 3 ? got & 0xffff : got);
    }
}

static void test_reductions(void **state)
{
    (void)state;
    for (int quad = 0; quad < 2; quad++)
        for (int type = 0; type < 4; type++)
            for (int op = 0; op < 7; op++)
                if (type < 2 || op < 4)
                    check_red(0, quad, op, type);
}

static void test_prefix(void **state)
{
    (void)state;
    for (int quad = 0; quad < 2; quad++)
        for (int mode = 1; mode <= 2; mode++)
            for (int type = 0; type < 4; type++)
                for (int op = 0; op < 2; op++)
                    check_red(mode, quad, op, type);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ballot),     cmocka_unit_test(test_shuffles),
        cmocka_unit_test(test_broadcasts), cmocka_unit_test(test_reductions),
        cmocka_unit_test(test_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
