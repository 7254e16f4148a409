/*
 * test_constructs_sync.c — atomics and barriers through the whole compiler: every
 * atomic_*_explicit on device and threadgroup atomic_int / atomic_uint, atomic_float add,
 * exchange, compare-exchange (a CAS loop), load and store; and a multi-step tree reduction
 * with a barrier inside its loop. Shape tests check the op, type and memory space each call
 * becomes; execution tests compare with C over all threads.
 */
#include "construct_harness.h"

#include <limits.h>

/* ---- atomics: shapes ------------------------------------------------------------------------ */

typedef struct AtomCase {
    const char *call;  /* with P the pointer and V the value */
    int op;            /* IsaAtomicOp, or -1 for compare-exchange */
} AtomCase;

static const AtomCase atom_cases[] = {
    {"atomic_fetch_add_explicit(P, V, memory_order_relaxed)", ISA_ATOM_ADD},
    {"atomic_fetch_sub_explicit(P, V, memory_order_relaxed)", ISA_ATOM_SUB},
    {"atomic_fetch_min_explicit(P, V, memory_order_relaxed)", ISA_ATOM_MIN},
    {"atomic_fetch_max_explicit(P, V, memory_order_relaxed)", ISA_ATOM_MAX},
    {"atomic_fetch_and_explicit(P, V, memory_order_relaxed)", ISA_ATOM_AND},
    {"atomic_fetch_or_explicit(P, V, memory_order_relaxed)", ISA_ATOM_OR},
    {"atomic_fetch_xor_explicit(P, V, memory_order_relaxed)", ISA_ATOM_XOR},
    {"atomic_exchange_explicit(P, V, memory_order_relaxed)", ISA_ATOM_XCHG},
    {"atomic_compare_exchange_weak_explicit(P, &e, V, memory_order_relaxed, memory_order_relaxed)", -1},
};

static void subst(char *out, size_t n, const char *call, const char *ptr, const char *val)
{
    size_t k = 0;
    for (const char *c = call; *c && k + 32 < n; c++) {
        const char *r = *c == 'P' ? ptr : *c == 'V' ? val : NULL;
        if (r)
            k += (size_t)snprintf(out + k, n - k, "%s", r);
        else
            out[k++] = *c;
    }
    out[k] = 0;
}

static void test_atomic_shape(void **state)
{
    (void)state;
    static const char *types[] = {"int", "uint"};
    for (int space = 0; space < 2; space++)
        for (int t = 0; t < 2; t++)
            for (size_t c = 0; c < sizeof atom_cases / sizeof atom_cases[0]; c++) {
                char call[256], src[1024];
                subst(call, sizeof call, atom_cases[c].call, space ? "&ta[i % 4u]" : "&a[i]",
                      t ? "uint(i)" : "int(i)");
                snprintf(src, sizeof src,
                         "kernel void k(device atomic_%s* a [[buffer(0)]], device int* o [[buffer(1)]],\n"
                         "              uint i [[thread_position_in_grid]]) {\n"
                         "  threadgroup atomic_%s ta[4];\n"
                         "  %s e = %s(7);\n"
                         "  o[i] = int(%s);\n}\n",
                         types[t], types[t], types[t], types[t], call);
                IsaProgram *p = ch_compile(src, NULL);
                IsaType ty = t ? ISA_TYPE_U32 : ISA_TYPE_S32;
                int at;
                if (atom_cases[c].op < 0)
                    at = ch_find_mod(p, space ? ISA_OP_CMPXCHG_TG : ISA_OP_CMPXCHG_DEV, -1, ty, 0);
                else
                    at = ch_find_mod(p, space ? ISA_OP_ATOM_TG : ISA_OP_ATOM_DEV, atom_cases[c].op, ty, 0);
                if (at < 0) {
                    ch_dump(p);
                    fail_msg("%s on %s %s: wrong or missing atomic op", atom_cases[c].call,
                             space ? "threadgroup" : "device", types[t]);
                }
                CH_EXPECT(p, ch_count(p, ISA_OP_ATOM_TG) + ch_count(p, ISA_OP_ATOM_DEV) +
                             ch_count(p, ISA_OP_CMPXCHG_TG) + ch_count(p, ISA_OP_CMPXCHG_DEV) == 1);
                isa_program_free(p);
            }
    /* float add, load and store */
    IsaProgram *p = ch_compile(
        "kernel void k(device atomic_float* f [[buffer(0)]], device float* o [[buffer(1)]],\n"
        "              uint i [[thread_position_in_grid]]) {\n"
        "  atomic_fetch_add_explicit(&f[0], 1.5f, memory_order_relaxed);\n"
        "  o[i] = atomic_load_explicit(&f[1], memory_order_relaxed);\n"
        "  atomic_store_explicit(&f[2], o[i], memory_order_relaxed);\n"
        "}\n", NULL);
    CH_EXPECT(p, ch_count(p, ISA_OP_ATOM_DEV) == 3);
    CH_EXPECT(p, ch_find_mod(p, ISA_OP_ATOM_DEV, ISA_ATOM_ADD, ISA_TYPE_F32, 0) >= 0);
    CH_EXPECT(p, ch_find_mod(p, ISA_OP_ATOM_DEV, ISA_ATOM_XCHG, ISA_TYPE_F32, 0) >= 0);
    isa_program_free(p);
    /* what atomic_float cannot do is refused clearly */
    ch_expect_error("kernel void k(device atomic_float* f [[buffer(0)]]) {\n"
                    "  atomic_fetch_min_explicit(f, 1.0f, memory_order_relaxed);\n}\n",
                    NULL, "atomic_float supports");
}

/* ---- atomics: execution --------------------------------------------------------------------- */

static const char *atom_src =
    "kernel void k(device atomic_int* di [[buffer(0)]], device atomic_uint* du [[buffer(1)]],\n"
    "              device atomic_float* df [[buffer(2)]], device int* o [[buffer(3)]],\n"
    "              uint i [[thread_position_in_grid]], uint l [[thread_index_in_threadgroup]],\n"
    "              uint g [[threadgroup_position_in_grid]]) {\n"
    "  threadgroup atomic_int ti[6];\n"
    "  threadgroup atomic_uint tu[4];\n"
    "  if (l < 6u) atomic_store_explicit(&ti[l], l == 2u ? 1000 : l == 3u ? -1000 : 0, memory_order_relaxed);\n"
    "  if (l < 4u) atomic_store_explicit(&tu[l], l == 0u ? 0xffffffffu : 5u, memory_order_relaxed);\n"
    "  threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "  int v = int(i * 7u % 23u) - 11;\n"
    "  uint bit = 1u << (i % 29u);\n"
    "  atomic_fetch_add_explicit(&di[0], v, memory_order_relaxed);\n"
    "  atomic_fetch_sub_explicit(&di[1], v, memory_order_relaxed);\n"
    "  atomic_fetch_min_explicit(&di[2], v, memory_order_relaxed);\n"
    "  atomic_fetch_max_explicit(&di[3], v, memory_order_relaxed);\n"
    "  o[i * 2] = atomic_exchange_explicit(&di[4], int(i), memory_order_relaxed);\n"
    "  int e = atomic_load_explicit(&di[5], memory_order_relaxed);\n"
    "  while (!atomic_compare_exchange_weak_explicit(&di[5], &e, e + 3, memory_order_relaxed,\n"
    "                                                memory_order_relaxed)) {}\n"
    "  atomic_fetch_and_explicit(&du[0], ~bit, memory_order_relaxed);\n"
    "  atomic_fetch_or_explicit(&du[1], bit, memory_order_relaxed);\n"
    "  atomic_fetch_xor_explicit(&du[2], i * 2654435761u, memory_order_relaxed);\n"
    "  atomic_fetch_min_explicit(&du[3], uint(v), memory_order_relaxed);\n"
    "  atomic_fetch_max_explicit(&du[4], uint(v), memory_order_relaxed);\n"
    "  atomic_fetch_add_explicit(&du[5], i, memory_order_relaxed);\n"
    "  atomic_fetch_add_explicit(&df[0], float(v) * 0.5f, memory_order_relaxed);\n"
    "  o[i * 2 + 1] = int(atomic_exchange_explicit(&df[1], float(i), memory_order_relaxed));\n"
    "  atomic_fetch_add_explicit(&ti[0], v, memory_order_relaxed);\n"
    "  atomic_fetch_sub_explicit(&ti[1], v, memory_order_relaxed);\n"
    "  atomic_fetch_min_explicit(&ti[2], v, memory_order_relaxed);\n"
    "  atomic_fetch_max_explicit(&ti[3], v, memory_order_relaxed);\n"
    "  int te = atomic_load_explicit(&ti[4], memory_order_relaxed);\n"
    "  while (!atomic_compare_exchange_weak_explicit(&ti[4], &te, te + int(l), memory_order_relaxed,\n"
    "                                                memory_order_relaxed)) {}\n"
    "  atomic_exchange_explicit(&ti[5], 77, memory_order_relaxed);\n"
    "  atomic_fetch_and_explicit(&tu[0], ~bit, memory_order_relaxed);\n"
    "  atomic_fetch_or_explicit(&tu[1], bit, memory_order_relaxed);\n"
    "  atomic_fetch_xor_explicit(&tu[2], bit, memory_order_relaxed);\n"
    "  atomic_fetch_max_explicit(&tu[3], uint(v), memory_order_relaxed);\n"
    "  threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "  if (l < 6u) o[N2 + g * 10u + l] = atomic_load_explicit(&ti[l], memory_order_relaxed);\n"
    "  if (l < 4u) o[N2 + g * 10u + 6u + l] = int(atomic_load_explicit(&tu[l], memory_order_relaxed));\n"
    "}\n";

static void test_atomic_exec(void **state)
{
    (void)state;
    enum { N = 100, TG = 64, G = 2 };
    char src[8192];
    /* N2: where the per-threadgroup results start */
    char def[32];
    snprintf(def, sizeof def, "%du", 2 * N);
    size_t k = 0;
    for (const char *c = atom_src; *c; c++) {
        if (c[0] == 'N' && c[1] == '2') {
            k += (size_t)snprintf(src + k, sizeof src - k, "%s", def);
            c++;
        } else {
            src[k++] = *c;
        }
    }
    src[k] = 0;
    Harness h;
    ch_init(&h, src, NULL);
    int32_t *di = ch_buf(&h, 0, 6 * 4);
    uint32_t *du = ch_buf(&h, 1, 6 * 4);
    float *df = ch_buf(&h, 2, 2 * 4);
    int32_t *o = ch_buf(&h, 3, (2 * N + G * 10) * 4);
    int32_t di0[6] = {100, -100, 50, -50, -1, 10};
    uint32_t du0[6] = {0xffffffffu, 0x80000000u, 0x12345678u, 0xfffffff0u, 3u, 0u};
    memcpy(di, di0, sizeof di0);
    memcpy(du, du0, sizeof du0);
    df[0] = 1.0f, df[1] = -1.0f;
    ch_run(&h, N, TG);
    int32_t add = di0[0], sub = di0[1], mn = di0[2], mx = di0[3];
    uint32_t band = du0[0], bor = du0[1], bxor = du0[2], umin = du0[3], umax = du0[4], uadd = 0;
    double fsum = 1.0;
    int32_t tg[G][6];
    uint32_t tgu[G][4];
    for (int g = 0; g < G; g++) {
        int32_t t0[6] = {0, 0, 1000, -1000, 0, 77};
        uint32_t u0[4] = {0xffffffffu, 5u, 5u, 5u};
        memcpy(tg[g], t0, sizeof t0);
        memcpy(tgu[g], u0, sizeof u0);
    }
    for (int i = 0; i < N; i++) {
        int32_t v = (int32_t)((uint32_t)i * 7u % 23u) - 11;
        uint32_t bit = 1u << (i % 29), uv = (uint32_t)v;
        int g = i / TG;
        add += v, sub -= v;
        mn = v < mn ? v : mn, mx = v > mx ? v : mx;
        band &= ~bit, bor |= bit, bxor ^= (uint32_t)i * 2654435761u;
        umin = uv < umin ? uv : umin, umax = uv > umax ? uv : umax, uadd += (uint32_t)i;
        fsum += v * 0.5;
        tg[g][0] += v, tg[g][1] -= v;
        tg[g][2] = v < tg[g][2] ? v : tg[g][2];
        tg[g][3] = v > tg[g][3] ? v : tg[g][3];
        tg[g][4] += i % TG;
        tgu[g][0] &= ~bit, tgu[g][1] |= bit, tgu[g][2] ^= bit;
        tgu[g][3] = uv > tgu[g][3] ? uv : tgu[g][3];
    }
    CH_IEQ(di[0], add, 0);
    CH_IEQ(di[1], sub, 1);
    CH_IEQ(di[2], mn, 2);
    CH_IEQ(di[3], mx, 3);
    CH_IEQ(di[5], 10 + 3 * N, 5);
    CH_IEQ(du[0], band, 0);
    CH_IEQ(du[1], bor, 1);
    CH_IEQ(du[2], bxor, 2);
    CH_IEQ(du[3], umin, 3);
    CH_IEQ(du[4], umax, 4);
    CH_IEQ(du[5], uadd, 5);
    CH_FEQ(df[0], (float)fsum, 0);
    /* exchange: the old values and the final one are the initial value and every i, once */
    int seen[N + 1] = {0}, fseen[N + 1] = {0};
    for (int i = 0; i <= N; i++) {
        int32_t x = i < N ? o[i * 2] : di[4];
        int32_t f = i < N ? o[i * 2 + 1] : (int32_t)df[1];
        assert_true(x >= -1 && x < N && f >= -1 && f < N);
        seen[x + 1]++, fseen[f + 1]++;
    }
    for (int i = 0; i <= N; i++)
        assert_true(seen[i] == 1 && fseen[i] == 1);
    for (int g = 0; g < G; g++) {
        for (int t = 0; t < 6; t++)
            CH_IEQ(o[2 * N + g * 10 + t], tg[g][t], g * 10 + t);
        for (int t = 0; t < 4; t++)
            CH_IEQ((uint32_t)o[2 * N + g * 10 + 6 + t], tgu[g][t], g * 10 + 6 + t);
    }
    h_free(&h);
}

/* ---- barriers in loops ---------------------------------------------------------------------- */

static const char *tree_src =
    "kernel void k(device const int* a [[buffer(0)]], device int* o [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]], uint l [[thread_index_in_threadgroup]],\n"
    "              uint g [[threadgroup_position_in_grid]]) {\n"
    "  threadgroup int buf[128];\n"
    "  buf[l] = a[i];\n"
    "  threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "  for (uint s = 64u; s > 0u; s >>= 1) {\n"
    "    if (l < s) buf[l] = max(buf[l], buf[l + s]) * 2 - buf[l + s];\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "  }\n"
    "  o[i] = buf[0] + buf[l / 2u];\n"
    "}\n";

static void test_barrier_loop_shape(void **state)
{
    (void)state;
    IsaProgram *p = ch_compile(tree_src, NULL);
    int push = ch_find(p, ISA_OP_PUSH_EXEC, 0);
    CH_EXPECT(p, push >= 0 && p->code[push].opd[0].imm == 2);
    int pop = -1;
    for (int k = ch_find(p, ISA_OP_POP_EXEC, push); k >= 0; k = ch_find(p, ISA_OP_POP_EXEC, k + 1))
        if (p->code[k].opd[0].imm == 2) {
            pop = k;
            break;
        }
    int b0 = ch_find(p, ISA_OP_BARRIER, 0);
    int b1 = ch_find(p, ISA_OP_BARRIER, b0 + 1);
    CH_EXPECT(p, ch_count(p, ISA_OP_BARRIER) == 2);
    CH_EXPECT(p, b0 < push && push < b1 && b1 < pop); /* the second is inside the loop */
    CH_EXPECT(p, p->code[b1].flags == ISA_MEM_THREADGROUP);
    /* the barrier is outside the loop's `if`: that if's pop comes before it */
    int ifp = ch_find(p, ISA_OP_IF_ICMP, push);
    int ifpop = ch_find(p, ISA_OP_POP_EXEC, ifp);
    CH_EXPECT(p, ifp > push && ifpop < b1 && p->code[ifpop].opd[0].imm == 1);
    CH_EXPECT(p, ch_find(p, ISA_OP_JMP_EXEC_ANY, b1) < pop);
    isa_program_free(p);
}

static void test_barrier_loop_exec(void **state)
{
    (void)state;
    enum { TG = 128, G = 3, N = TG * G };
    Harness h;
    ch_init(&h, tree_src, NULL);
    int32_t *a = ch_buf(&h, 0, N * 4);
    int32_t *o = ch_buf(&h, 1, N * 4);
    for (int i = 0; i < N; i++)
        a[i] = (i * 7919) % 1000 - 500;
    ch_run(&h, N, TG);
    for (int g = 0; g < G; g++) {
        int32_t buf[TG];
        memcpy(buf, a + g * TG, sizeof buf);
        for (int s = 64; s > 0; s >>= 1) /* each step reads only the previous step's values */
            for (int l = 0; l < s; l++)
                buf[l] = (buf[l] > buf[l + s] ? buf[l] : buf[l + s]) * 2 - buf[l + s];
        for (int l = 0; l < TG; l++)
            CH_IEQ(o[g * TG + l], buf[0] + buf[l / 2], g * TG + l);
    }
    h_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atomic_shape),
        cmocka_unit_test(test_atomic_exec),
        cmocka_unit_test(test_barrier_loop_shape),
        cmocka_unit_test(test_barrier_loop_exec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
