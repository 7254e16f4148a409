/*
 * test_vote.c — simd_vote and quad_vote end to end: simd_ballot, simd_active_threads_mask,
 * quad_ballot and quad_active_threads_mask return them; all() and any() (which, unlike
 * simd_all and simd_any, look at every lane of the SIMD-group or quad, active or not); the
 * explicit conversion to vote_t (static_cast, C and functional casts, simd_vote::vote_t);
 * the explicit constructor (quad_vote's keeps bits 0-3), default construction to 0, copies,
 * helper parameters, struct members and arrays. Kernels run with lanes, whole quads and the end of
 * a partial SIMD-group inactive; expected values come from C reference code written here.
 * The MSL rules lockstep enforces (no implicit conversion either way, vote_t only, no
 * condition) are refused with messages at the right place.
 */
#include "numerics_harness.h"

enum { N = 120, NO = 10 }; /* the last SIMD-group has 24 threads */

static uint32_t rng = 0x68e31da4u;
static uint32_t rnd(void)
{
    rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5;
    return rng;
}

/* Who runs the votes: all of SIMD-groups 0 and 1, a third missing from group 2 (and quads
 * 4 and 6 whole), every thread of the partial group 3 but lane 7. */
static bool runs(uint32_t i)
{
    uint32_t g = i / 32, lane = i % 32;
    return g < 2 ? true : g == 2 ? lane % 3 != 1 && lane / 4 != 4 && lane / 4 != 6 : lane != 7;
}

static void test_votes(void **state)
{
    (void)state;
    static int32_t x[N];
    static uint32_t keep[N];
    static uint64_t o[N * NO];
    for (uint32_t i = 0; i < N; i++) {
        x[i] = i < 32 ? (int32_t)(rnd() % 9) + 3 : (int32_t)(rnd() % 7) - 2; /* group 0: all > 2 */
        keep[i] = runs(i);
    }
    x[37] = x[38] = x[39] = x[36] = 5; /* a quad all > 1 in group 1 */
    memset(o, 0xaa, sizeof o);
    void *bufs[] = {x, keep, o};
    size_t sizes[] = {sizeof x, sizeof keep, sizeof o};
    run(HDR "struct Tally { simd_vote votes; uint n; };\n"
            "static bool most(simd_vote v) { return popcount(static_cast<ulong>(v)) > 16; }\n"
            "kernel void k(device const int *x [[buffer(0)]], device const uint *keep "
            "[[buffer(1)]],\n  device ulong *o [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
            "    int v = x[i];\n"
            "    device ulong *r = o + i * 10;\n"
            "    if (keep[i] == 0)\n"
            "        return;\n"
            "    simd_vote b = simd_ballot(v > 0);\n"
            "    r[0] = static_cast<ulong>(b);\n"
            "    r[1] = (b.any() ? 1 : 0) | (b.all() ? 2 : 0) | (most(b) ? 4 : 0);\n"
            "    simd_vote a = simd_active_threads_mask();\n"
            "    r[2] = (ulong)a | (a.all() ? 1ul << 40 : 0);\n"
            "    uint n = popcount(static_cast<ulong>(simd_ballot(v > 2)));\n"
            "    r[3] = n;\n"
            "    quad_vote q = quad_ballot(v > 1);\n"
            "    r[4] = static_cast<quad_vote::vote_t>(q) | (q.any() ? 16 : 0) | (q.all() ? 32 : 0);\n"
            "    r[5] = uint(quad_active_threads_mask()) | (quad_active_threads_mask().all() ? 16 : 0);\n"
            "    simd_vote z; quad_vote w(0x35u); simd_vote full = simd_vote(~0ul);\n"
            "    r[6] = static_cast<simd_vote::vote_t>(z) | ulong(static_cast<uint>(w)) << 8 |\n"
            "           (full.all() ? 1ul << 16 : 0) | (simd_vote(0xffffffff00000000ul).any() ? 1ul << 17 : 0) |\n"
            "           (quad_vote(0xf0u).any() ? 1ul << 18 : 0) | (quad_vote{0x1fu}.all() ? 1ul << 19 : 0);\n"
            "    Tally t = {b, 3};\n"
            "    simd_vote c = t.votes;\n"
            "    c = simd_ballot(v < 0);\n"
            "    simd_vote arr[2] = {c, c};\n"
            "    arr[1] = t.votes;\n"
            "    r[7] = ulong(arr[1]) ^ (ulong)arr[keep[i] - 1u]; /* a run-time index: arr[0] */\n"
            "    metal::simd_vote m = simd_vote(uint(i & 3u));\n"
            "    r[8] = ulong(m) | (m.any() ? 8 : 0);\n"
            "    r[9] = ulong(static_cast<simd_vote>(5u)) + sizeof(simd_vote) * 100 + sizeof(quad_vote) * 1000;\n"
            "}\n", NULL, bufs, sizes, 3, N);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t base = i / 32 * 32, qb = i & ~3u;
        uint64_t pos = 0, act = 0, gt2 = 0, gt1 = 0, neg = 0;
        for (uint32_t l = base; l < base + 32 && l < N; l++) {
            if (!keep[l])
                continue;
            uint64_t bit = 1ull << (l - base);
            act |= bit;
            pos |= x[l] > 0 ? bit : 0, gt2 |= x[l] > 2 ? bit : 0, gt1 |= x[l] > 1 ? bit : 0;
            neg |= x[l] < 0 ? bit : 0;
        }
        uint32_t qs = qb - base;
        uint64_t q = (gt1 >> qs) & 0xf, qa = (act >> qs) & 0xf;
        uint64_t want[NO] = {
            pos,
            (pos ? 1u : 0) | (pos == 0xffffffffull ? 2 : 0) | (__builtin_popcountll(pos) > 16 ? 4 : 0),
            act | (act == 0xffffffffull ? 1ull << 40 : 0),
            (uint64_t)__builtin_popcountll(gt2),
            q | (q ? 16 : 0) | (q == 0xf ? 32 : 0),
            qa | (qa == 0xf ? 16 : 0),
            0 | 0x5ull << 8 | 1ull << 16 | 0 << 17 | 0 << 18 | 1ull << 19,
            pos ^ neg,
            (i & 3) | ((i & 3) ? 8 : 0),
            5 + 800 + 4000};
        for (int k = 0; k < NO; k++) {
            uint64_t w = keep[i] ? want[k] : 0xaaaaaaaaaaaaaaaaull;
            if (o[i * NO + k] != w)
                fail_msg("thread %u r[%d]: expected %#llx, got %#llx", i, k,
                         (unsigned long long)w, (unsigned long long)o[i * NO + k]);
        }
    }
}

/* What MSL refuses is refused, at the place and with the way out. */
static void test_refused(void **state)
{
    (void)state;
    static const struct {
        const char *body, *message;
    } cases[] = {
        {"ulong m = simd_ballot(c); o[i] = m;",
         "5:15: error: a simd_vote converts to 'ulong' only explicitly: write static_cast<ulong>(v)"},
        {"o[i] = uint(simd_ballot(c));",
         "5:12: error: a simd_vote converts only to simd_vote::vote_t (ulong), not to 'uint'"},
        {"o[i] = ushort(quad_ballot(c));",
         "5:12: error: a quad_vote converts only to quad_vote::vote_t (uint), not to 'ushort'"},
        {"if (simd_ballot(c)) o[i] = 1;",
         "5:9: error: a simd_vote is not a condition: use its any() or all()"},
        {"simd_vote v = 5ul; o[i] = v.any();",
         "5:19: error: simd_vote's constructor is explicit: write simd_vote(x)"},
        {"o[i] = simd_ballot(c).count;",
         "5:27: error: a simd_vote has the member functions all() and any()"},
        {"o[i] = quad_ballot(c).all(1);", "5:31: error: quad_vote::all takes no arguments"},
        {"o[i] = quad_vote(simd_ballot(c)).any();",
         "5:22: error: a quad_vote is made from its quad_vote::vote_t bits, not from 'simd_vote'"},
        {"o[i] = simd_shuffle(simd_ballot(c), 1u).any();",
         "5:25: error: invalid argument of type 'simd_vote' to 'simd_shuffle'"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char src[512];
        snprintf(src, sizeof src,
                 HDR "kernel void k(device uint *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
                     "    bool c = i > 3;\n    %s\n}\n", cases[k].body);
        UtilError err = {{0}};
        IsaProgram *p = lang_compile_source(src, "v.metal", NULL, NULL, &err);
        if (p || !strstr(err.message, cases[k].message))
            fail_msg("%s\nexpected: %s\ngot: %s", cases[k].body, cases[k].message,
                     p ? "(compiled)" : err.message);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_votes),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
