/*
 * test_constructs_simd.c — every SIMD-group and quad-group function of lang/builtins.h,
 * called with all lanes active and inside divergent code (`lane % 3 != 0`), on a grid whose
 * second SIMD-group is partial. Expected values come from C reference code over the active
 * lanes only (reductions, prefix ops, votes, broadcast_first, is_first); shuffles are
 * checked only on lanes whose source lane is active. Shape tests check the lowering of each
 * function to its instruction (shfl_xor, quad_red.sum, simd_prefix.excl ...).
 */
#include "construct_harness.h"

/* One function call per row: its MSL expression on int v (lane is the uint lane index). */
typedef enum { K_SHFL, K_SHFL_UP, K_SHFL_DOWN, K_SHFL_XOR, K_ROT_UP, K_ROT_DOWN, K_BCAST,
               K_BCAST_FIRST, K_BALLOT, K_ALL, K_ANY, K_ALL_LANES, K_ANY_LANES, K_IS_FIRST,
               K_ACTIVE, K_RED, K_PREFIX_INCL, K_PREFIX_EXCL,
               K_QSHFL, K_QSHFL_UP, K_QSHFL_DOWN, K_QSHFL_XOR, K_QROT_UP, K_QROT_DOWN, K_QBCAST,
               K_QBALLOT, K_QALL, K_QANY, K_QRED, K_QPREFIX_INCL, K_QPREFIX_EXCL, K_COUNT_ACTIVE,
               K_QBCAST_FIRST, K_QIS_FIRST, K_QACTIVE, K_FILL_UP, K_FILL_DOWN } Kind;

typedef struct Fn {
    const char *expr;
    Kind kind;
    int arg;       /* shuffle delta / lane, or IsaReduceOp for reductions and prefixes;
                    * the fills: delta + 100 * modulo, the filling data v * 10 + 1 */
} Fn;

static const Fn fns[] = {
    {"simd_shuffle(v, (lane * 7u + 3u) % 32u)", K_SHFL, 0},
    {"simd_sum(1) * 1000 + simd_shuffle_xor(7, 1u)", K_COUNT_ACTIVE, 0},
    {"simd_shuffle_up(v, 3u)", K_SHFL_UP, 3},
    {"simd_shuffle_down(v, 5u)", K_SHFL_DOWN, 5},
    {"simd_shuffle_xor(v, 5u)", K_SHFL_XOR, 5},
    {"simd_shuffle_rotate_up(v, 3u)", K_ROT_UP, 3},
    {"simd_shuffle_rotate_down(v, 6u)", K_ROT_DOWN, 6},
    {"simd_broadcast(v, 4u)", K_BCAST, 4},
    {"simd_broadcast_first(v)", K_BCAST_FIRST, 0},
    {"int(uint(ulong(simd_ballot(v > 10))))", K_BALLOT, 10},
    {"int(simd_all(v > 0))", K_ALL, 0},
    {"int(simd_any(v > 40))", K_ANY, 40},
    {"int(simd_all(lane % 3u != 0u))", K_ALL_LANES, 0},
    {"int(simd_any(lane % 3u == 0u))", K_ANY_LANES, 0},
    {"int(simd_is_first())", K_IS_FIRST, 0},
    {"int(uint(ulong(simd_active_threads_mask())))", K_ACTIVE, 0},
    {"simd_sum(v)", K_RED, ISA_RED_SUM},
    {"simd_product(v)", K_RED, ISA_RED_PRODUCT},
    {"simd_min(v)", K_RED, ISA_RED_MIN},
    {"simd_max(v)", K_RED, ISA_RED_MAX},
    {"simd_and(v)", K_RED, ISA_RED_AND},
    {"simd_or(v)", K_RED, ISA_RED_OR},
    {"simd_xor(v)", K_RED, ISA_RED_XOR},
    {"simd_prefix_inclusive_sum(v)", K_PREFIX_INCL, ISA_RED_SUM},
    {"simd_prefix_exclusive_sum(v)", K_PREFIX_EXCL, ISA_RED_SUM},
    {"simd_prefix_inclusive_product(v)", K_PREFIX_INCL, ISA_RED_PRODUCT},
    {"simd_prefix_exclusive_product(v)", K_PREFIX_EXCL, ISA_RED_PRODUCT},
    {"quad_shuffle(v, 3u - (lane & 3u))", K_QSHFL, 0},
    {"quad_shuffle_up(v, 1u)", K_QSHFL_UP, 1},
    {"quad_shuffle_down(v, 2u)", K_QSHFL_DOWN, 2},
    {"quad_shuffle_xor(v, 1u)", K_QSHFL_XOR, 1},
    {"quad_shuffle_rotate_up(v, 1u)", K_QROT_UP, 1},
    {"quad_shuffle_rotate_down(v, 3u)", K_QROT_DOWN, 3},
    {"quad_broadcast(v, 2u)", K_QBCAST, 2},
    {"int(uint(quad_ballot(v > 10)))", K_QBALLOT, 10},
    {"int(quad_all(v > 0))", K_QALL, 0},
    {"int(quad_any(v > 40))", K_QANY, 40},
    {"quad_sum(v)", K_QRED, ISA_RED_SUM},
    {"quad_product(v)", K_QRED, ISA_RED_PRODUCT},
    {"quad_min(v)", K_QRED, ISA_RED_MIN},
    {"quad_max(v)", K_QRED, ISA_RED_MAX},
    {"quad_and(v)", K_QRED, ISA_RED_AND},
    {"quad_or(v)", K_QRED, ISA_RED_OR},
    {"quad_xor(v)", K_QRED, ISA_RED_XOR},
    {"quad_prefix_inclusive_sum(v)", K_QPREFIX_INCL, ISA_RED_SUM},
    {"quad_prefix_exclusive_sum(v)", K_QPREFIX_EXCL, ISA_RED_SUM},
    {"quad_prefix_inclusive_product(v)", K_QPREFIX_INCL, ISA_RED_PRODUCT},
    {"quad_prefix_exclusive_product(v)", K_QPREFIX_EXCL, ISA_RED_PRODUCT},
    {"quad_broadcast_first(v)", K_QBCAST_FIRST, 0},
    {"int(quad_is_first())", K_QIS_FIRST, 0},
    {"int(uint(quad_active_threads_mask()))", K_QACTIVE, 0},
    {"simd_shuffle_and_fill_up(v, v * 10 + 1, 3u)", K_FILL_UP, 3 + 100 * 32},
    {"simd_shuffle_and_fill_down(v, v * 10 + 1, 5u)", K_FILL_DOWN, 5 + 100 * 32},
    {"simd_shuffle_and_fill_up(v, v * 10 + 1, 2u, 8u)", K_FILL_UP, 2 + 100 * 8},
    {"simd_shuffle_and_fill_down(v, v * 10 + 1, ushort(3), ushort(4))", K_FILL_DOWN, 3 + 100 * 4},
    {"quad_shuffle_and_fill_up(v, v * 10 + 1, 1u)", K_FILL_UP, 1 + 100 * 4},
    {"quad_shuffle_and_fill_down(v, v * 10 + 1, 1u, 2u)", K_FILL_DOWN, 1 + 100 * 2},
    {"quad_shuffle_and_fill_down(v, v * 10 + 1, 2u)", K_FILL_DOWN, 2 + 100 * 4},
};
enum { NFN = sizeof fns / sizeof fns[0], SENTINEL = -7777 };

static uint32_t red_apply(int op, uint32_t a, uint32_t b)
{
    switch (op) {
    case ISA_RED_SUM: return a + b;
    case ISA_RED_PRODUCT: return a * b;
    case ISA_RED_MIN: return (int32_t)a < (int32_t)b ? a : b;
    case ISA_RED_MAX: return (int32_t)a > (int32_t)b ? a : b;
    case ISA_RED_AND: return a & b;
    case ISA_RED_OR: return a | b;
    default: return a ^ b;
    }
}

static uint32_t red_identity(int op)
{
    return op == ISA_RED_PRODUCT ? 1u : op == ISA_RED_MIN ? 0x7fffffffu
         : op == ISA_RED_MAX ? 0x80000000u : op == ISA_RED_AND ? 0xffffffffu : 0u;
}

/* Reduction of lanes [lo, hi) that are active and (prefix) not past `upto`. */
static uint32_t reduce(int op, const int32_t *v, uint32_t active, int lo, int hi)
{
    uint32_t acc = red_identity(op);
    for (int l = lo; l < hi; l++)
        if (active >> l & 1)
            acc = red_apply(op, acc, (uint32_t)v[l]);
    return acc;
}

/* The value lane `l` must see, or false when it depends on an inactive lane. */
static bool expect(const Fn *f, const int32_t *v, uint32_t active, int l, int32_t *out)
{
    int q = l & ~3, ql = l & 3, src = -1;
    switch (f->kind) {
    case K_SHFL: src = (l * 7 + 3) % 32; break;
    case K_SHFL_UP: src = l >= f->arg ? l - f->arg : l; break;
    case K_SHFL_DOWN: src = l + f->arg < 32 ? l + f->arg : l; break;
    case K_SHFL_XOR: src = l ^ f->arg; break;
    case K_ROT_UP: src = (l - f->arg + 32) % 32; break;
    case K_ROT_DOWN: src = (l + f->arg) % 32; break;
    case K_BCAST: src = f->arg; break;
    case K_BCAST_FIRST: src = __builtin_ctz(active); break;
    case K_QSHFL: src = q + 3 - ql; break;
    case K_QSHFL_UP: src = ql >= f->arg ? l - f->arg : l; break;
    case K_QSHFL_DOWN: src = ql + f->arg < 4 ? l + f->arg : l; break;
    case K_QSHFL_XOR: src = q + (ql ^ f->arg); break;
    case K_QROT_UP: src = q + ((ql - f->arg + 4) & 3); break;
    case K_QROT_DOWN: src = q + ((ql + f->arg) & 3); break;
    case K_QBCAST: src = q + f->arg; break;
    case K_QBCAST_FIRST: src = q + __builtin_ctz((active >> q) & 15); break;
    case K_FILL_UP: case K_FILL_DOWN: { /* MSL 6.9.2: vectors of `modulo` lanes */
        int d = f->arg % 100, m = f->arg / 100, i = l % m, b = l - i;
        bool data = f->kind == K_FILL_UP ? i >= d : i + d < m;
        src = f->kind == K_FILL_UP ? (data ? b + i - d : b + m - d + i)
                                   : (data ? b + i + d : b + i + d - m);
        if (!(active >> src & 1))
            return false;
        *out = data ? v[src] : v[src] * 10 + 1;
        return true;
    }
    default: break;
    }
    if (src >= 0) {
        if (!(active >> src & 1))
            return false;
        *out = v[src];
        return true;
    }
    uint32_t m = 0, qm = (active >> q) & 15;
    for (int k = 0; k < 32; k++)
        if ((active >> k & 1) && v[k] > f->arg)
            m |= 1u << k;
    bool all = true, any = false, qall = true, qany = false;
    for (int k = 0; k < 32; k++) {
        if (!(active >> k & 1))
            continue;
        bool c = f->kind == K_ALL_LANES ? k % 3 != 0 : f->kind == K_ANY_LANES ? k % 3 == 0 : v[k] > f->arg;
        all &= c, any |= c;
        if (k >= q && k < q + 4)
            qall &= c, qany |= c;
    }
    switch (f->kind) {
    case K_BALLOT: *out = (int32_t)m; return true;
    case K_ALL: case K_ALL_LANES: *out = all; return true;
    case K_ANY: case K_ANY_LANES: *out = any; return true;
    case K_IS_FIRST: *out = l == __builtin_ctz(active); return true;
    case K_ACTIVE: *out = (int32_t)active; return true;
    case K_COUNT_ACTIVE: *out = __builtin_popcount(active) * 1000 + ((active >> (l ^ 1) & 1) ? 7 : -1); return (active >> (l ^ 1)) & 1;
    case K_RED: *out = (int32_t)reduce(f->arg, v, active, 0, 32); return true;
    case K_PREFIX_INCL: *out = (int32_t)reduce(f->arg, v, active, 0, l + 1); return true;
    case K_PREFIX_EXCL: *out = (int32_t)reduce(f->arg, v, active, 0, l); return true;
    case K_QBALLOT: *out = (int32_t)((m >> q) & 15 & qm); return true;
    case K_QALL: *out = qall; return true;
    case K_QANY: *out = qany; return true;
    case K_QRED: *out = (int32_t)reduce(f->arg, v, active, q, q + 4); return true;
    case K_QPREFIX_INCL: *out = (int32_t)reduce(f->arg, v, active, q, l + 1); return true;
    case K_QPREFIX_EXCL: *out = (int32_t)reduce(f->arg, v, active, q, l); return true;
    case K_QIS_FIRST: *out = l == q + __builtin_ctz(qm); return true;
    case K_QACTIVE: *out = (int32_t)qm; return true;
    default: return false;
    }
}

/* The kernel: every function with all lanes, then again under `lane % 3 != 0`. */
static char *simd_source(void)
{
    size_t cap = 16384, len = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    len += (size_t)snprintf(s + len, cap - len,
        "kernel void k(device const int* a [[buffer(0)]], device int* o [[buffer(1)]],\n"
        "              uint i [[thread_position_in_grid]],\n"
        "              uint lane [[thread_index_in_simdgroup]]) {\n"
        "  int v = a[i];\n");
    for (int f = 0; f < NFN; f++)
        len += (size_t)snprintf(s + len, cap - len, "  o[i * %du + %du] = %s;\n", 2 * NFN, f, fns[f].expr);
    len += (size_t)snprintf(s + len, cap - len, "  if (lane %% 3u != 0u) {\n");
    for (int f = 0; f < NFN; f++)
        len += (size_t)snprintf(s + len, cap - len, "    o[i * %du + %du] = %s;\n", 2 * NFN, NFN + f, fns[f].expr);
    len += (size_t)snprintf(s + len, cap - len, "  }\n}\n");
    assert_true(len < cap - 1);
    return s;
}

static void test_simd_exec_all_functions(void **state)
{
    (void)state;
    char *src = simd_source();
    Harness h;
    ch_init(&h, src, NULL);
    enum { N = 52 }; /* one threadgroup of 52: SIMD-groups of 32 and 20 lanes */
    int32_t *a = ch_buf(&h, 0, 64 * 4);
    int32_t *o = ch_buf(&h, 1, (uint64_t)N * 2 * NFN * 4);
    int32_t v[64];
    for (int i = 0; i < 64; i++) {
        /* varied signs, bits and sizes; small odd factors keep products interesting */
        v[i] = i < N ? (i * 37 % 53) - 9 : 0;
        a[i] = v[i];
    }
    for (int i = 0; i < N * 2 * NFN; i++)
        o[i] = SENTINEL;
    ch_run(&h, N, 64);
    int checked = 0;
    for (int i = 0; i < N; i++) {
        int base = i / 32 * 32, l = i % 32;
        int lanes = N - base < 32 ? N - base : 32;
        uint32_t full = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
        uint32_t div = 0;
        for (int k = 0; k < lanes; k++)
            div |= (uint32_t)(k % 3 != 0) << k;
        for (int f = 0; f < NFN; f++) {
            for (int d = 0; d < 2; d++) {
                int32_t got = o[i * 2 * NFN + d * NFN + f], want;
                if (d && l % 3 == 0) {
                    if (got != SENTINEL)
                        fail_msg("%s: inactive lane %d (thread %d) wrote %d", fns[f].expr, l, i, got);
                    continue;
                }
                if (!expect(&fns[f], v + base, d ? div : full, l, &want))
                    continue;
                checked++;
                if (got != want)
                    fail_msg("%s%s: thread %d (lane %d): got %d (0x%x), want %d (0x%x)", fns[f].expr,
                             d ? " (divergent)" : "", i, l, got, (unsigned)got, want, (unsigned)want);
            }
        }
    }
    assert_true(checked > N * NFN);
    h_free(&h);
    free(src);
}

/* ---- shapes ----------------------------------------------------------------------------------- */

static IsaOpcode kind_op(Kind k)
{
    static const IsaOpcode ops[] = {
        [K_SHFL] = ISA_OP_SHFL, [K_SHFL_UP] = ISA_OP_SHFL_UP, [K_SHFL_DOWN] = ISA_OP_SHFL_DOWN,
        [K_SHFL_XOR] = ISA_OP_SHFL_XOR, [K_ROT_UP] = ISA_OP_SHFL_ROT_UP,
        [K_ROT_DOWN] = ISA_OP_SHFL_ROT_DOWN, [K_BCAST] = ISA_OP_BCAST,
        [K_BCAST_FIRST] = ISA_OP_BCAST_FIRST, [K_BALLOT] = ISA_OP_ICMP_BALLOT,
        [K_ALL] = ISA_OP_ICMP_BALLOT, [K_ANY] = ISA_OP_ICMP_BALLOT,
        [K_ALL_LANES] = ISA_OP_ICMP_BALLOT, [K_ANY_LANES] = ISA_OP_ICMP_BALLOT,
        [K_IS_FIRST] = ISA_OP_FFS, [K_ACTIVE] = ISA_OP_ICMP_BALLOT, [K_RED] = ISA_OP_SIMD_RED,
        [K_PREFIX_INCL] = ISA_OP_SIMD_PREFIX, [K_PREFIX_EXCL] = ISA_OP_SIMD_PREFIX,
        [K_QSHFL] = ISA_OP_QSHFL, [K_QSHFL_UP] = ISA_OP_QSHFL_UP, [K_QSHFL_DOWN] = ISA_OP_QSHFL_DOWN,
        [K_QSHFL_XOR] = ISA_OP_QSHFL_XOR, [K_QROT_UP] = ISA_OP_QSHFL_ROT_UP,
        [K_QROT_DOWN] = ISA_OP_QSHFL_ROT_DOWN, [K_QBCAST] = ISA_OP_QBCAST,
        [K_QBALLOT] = ISA_OP_ICMP_BALLOT, [K_QALL] = ISA_OP_ICMP_BALLOT, [K_QANY] = ISA_OP_ICMP_BALLOT,
        [K_QRED] = ISA_OP_QUAD_RED, [K_QPREFIX_INCL] = ISA_OP_QUAD_PREFIX,
        [K_QPREFIX_EXCL] = ISA_OP_QUAD_PREFIX, [K_COUNT_ACTIVE] = ISA_OP_SIMD_RED,
        [K_QBCAST_FIRST] = ISA_OP_SHFL, [K_QIS_FIRST] = ISA_OP_FFS, [K_QACTIVE] = ISA_OP_ICMP_BALLOT,
        [K_FILL_UP] = ISA_OP_SHFL, [K_FILL_DOWN] = ISA_OP_SHFL,
    };
    return ops[k];
}

/* Each function alone, inside divergent code: its instruction sits between the if and the
 * pop, with the reduction op, type and inclusive/exclusive flag it names. */
static void test_simd_shape_each_function(void **state)
{
    (void)state;
    for (int f = 0; f < NFN; f++) {
        char src[512];
        snprintf(src, sizeof src,
                 "kernel void k(device int* o [[buffer(0)]], uint i [[thread_position_in_grid]],\n"
                 "              uint lane [[thread_index_in_simdgroup]]) {\n"
                 "  int v = o[i];\n  if (lane %% 3u != 0u) o[i] = %s;\n}\n", fns[f].expr);
        IsaProgram *p = ch_compile(src, NULL);
        IsaOpcode op = kind_op(fns[f].kind);
        int at_if = ch_find(p, ISA_OP_IF_ICMP, 0);
        int at = ch_find(p, op, at_if);
        int at_pop = ch_find(p, ISA_OP_POP_EXEC, at_if);
        if (!(at_if >= 0 && at > at_if && at_pop > at)) {
            ch_dump(p);
            fail_msg("%s: expected %s inside the if", fns[f].expr, isa_ops[op].name);
        }
        const IsaInst *in = &p->code[at];
        switch (fns[f].kind) {
        case K_COUNT_ACTIVE: { /* constant sources are moved into a register first */
            int mv = ch_find(p, ISA_OP_MOV, at_if);
            CH_EXPECT(p, mv > at_if && mv < at);
            CH_EXPECT(p, in->type == ISA_TYPE_S32 && in->cond == ISA_RED_SUM);
            break;
        }
        case K_RED: case K_QRED: case K_PREFIX_INCL: case K_PREFIX_EXCL:
        case K_QPREFIX_INCL: case K_QPREFIX_EXCL:
            CH_EXPECT(p, in->cond == fns[f].arg && in->type == ISA_TYPE_S32);
            if (op == ISA_OP_SIMD_PREFIX || op == ISA_OP_QUAD_PREFIX)
                CH_EXPECT(p, in->count == (fns[f].kind == K_PREFIX_INCL || fns[f].kind == K_QPREFIX_INCL));
            break;
        case K_SHFL_UP: case K_SHFL_DOWN: case K_SHFL_XOR: case K_ROT_UP: case K_ROT_DOWN:
        case K_BCAST: case K_QSHFL_UP: case K_QSHFL_DOWN: case K_QSHFL_XOR: case K_QROT_UP:
        case K_QROT_DOWN: case K_QBCAST:
            /* a constant delta or lane stays an immediate */
            CH_EXPECT(p, in->opd[2].kind == ISA_OPD_IMM && (int)in->opd[2].imm == fns[f].arg);
            break;
        default: break;
        }
        /* nothing after the pop but the kernel's end */
        CH_EXPECT(p, p->code[p->count - 1].op == ISA_OP_STOP);
        isa_program_free(p);
    }
}

static void test_simd_shape_half_and_float(void **state)
{
    (void)state;
    IsaProgram *p = ch_compile(
        "kernel void k(device half* h [[buffer(0)]], device float* f [[buffer(1)]],\n"
        "              uint i [[thread_position_in_grid]]) {\n"
        "  h[i] = simd_sum(h[i]);\n"
        "  f[i] = quad_prefix_exclusive_product(f[i]);\n"
        "}\n", NULL);
    int r = ch_find_mod(p, ISA_OP_SIMD_RED, ISA_RED_SUM, ISA_TYPE_F16, 0);
    CH_EXPECT(p, r >= 0);
    CH_EXPECT(p, p->code[r].opd[0].kind == ISA_OPD_R16 && p->code[r].opd[1].kind == ISA_OPD_R16);
    int q = ch_find_mod(p, ISA_OP_QUAD_PREFIX, ISA_RED_PRODUCT, ISA_TYPE_F32, 0);
    CH_EXPECT(p, q >= 0 && p->code[q].count == 0);
    CH_EXPECT(p, p->code[q].opd[0].kind == ISA_OPD_R32);
    isa_program_free(p);
}

/* Float and half values: exact small dyadics, so every summation order gives one answer. */
static void test_simd_exec_float_half(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "kernel void k(device const float* a [[buffer(0)]], device float* o [[buffer(1)]],\n"
            "              device half* oh [[buffer(2)]], uint i [[thread_position_in_grid]],\n"
            "              uint lane [[thread_index_in_simdgroup]]) {\n"
            "  float x = a[i];\n"
            "  half hx = half(x);\n"
            "  o[i * 8] = simd_sum(x);\n"
            "  o[i * 8 + 1] = simd_max(x);\n"
            "  o[i * 8 + 2] = quad_product(x);\n"
            "  o[i * 8 + 3] = simd_shuffle_xor(x, 1u);\n"
            "  if (lane % 3u != 0u) {\n"
            "    o[i * 8 + 4] = simd_prefix_inclusive_sum(x);\n"
            "    o[i * 8 + 5] = quad_min(x);\n"
            "    oh[i * 2] = simd_sum(hx);\n"
            "    oh[i * 2 + 1] = quad_broadcast(hx, 1u);\n"
            "  }\n"
            "}\n", NULL);
    enum { N = 44 };
    float *a = ch_buf(&h, 0, N * 4);
    float *o = ch_buf(&h, 1, N * 32);
    uint16_t *oh = ch_buf(&h, 2, N * 4);
    static const float vals[] = {1.0f, 2.0f, 0.5f, -1.0f, 1.5f, -0.25f, 4.0f};
    for (int i = 0; i < N; i++)
        a[i] = vals[(i * 5 + 2) % 7];
    ch_run(&h, N, 64);
    for (int i = 0; i < N; i++) {
        int base = i / 32 * 32, l = i % 32, q = i & ~3;
        int end = base + 32 < N ? base + 32 : N;
        double sum = 0, mx = -INFINITY, prod = 1, pre = 0, dsum = 0, qmin = INFINITY;
        for (int k = base; k < end; k++) {
            sum += a[k];
            mx = fmax(mx, a[k]);
            if ((k - base) % 3 != 0) {
                dsum += a[k];
                if (k <= i)
                    pre += a[k];
            }
        }
        for (int k = q; k < q + 4 && k < N; k++) {
            prod *= a[k];
            if ((k - base) % 3 != 0)
                qmin = fmin(qmin, a[k]);
        }
        CH_FEQ(o[i * 8], (float)sum, i);
        CH_FEQ(o[i * 8 + 1], (float)mx, i);
        if (q + 3 < N)
            CH_FEQ(o[i * 8 + 2], (float)prod, i);
        if ((i ^ 1) < N)
            CH_FEQ(o[i * 8 + 3], a[i ^ 1], i);
        if (l % 3 == 0) {
            CH_FEQ(o[i * 8 + 4], 0.0f, i);
            CH_IEQ(oh[i * 2], 0, i);
            continue;
        }
        CH_FEQ(o[i * 8 + 4], (float)pre, i);
        CH_FEQ(o[i * 8 + 5], (float)qmin, i);
        CH_IEQ(oh[i * 2], h_d2h(dsum), i);
        if (((q + 1) - base) % 3 != 0)
            CH_IEQ(oh[i * 2 + 1], h_d2h(a[q + 1]), i);
    }
    h_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simd_shape_each_function),
        cmocka_unit_test(test_simd_shape_half_and_float),
        cmocka_unit_test(test_simd_exec_all_functions),
        cmocka_unit_test(test_simd_exec_float_half),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
