/*
 * ops_simd.c — SIMD-group and quad-group functions: ballots, shuffles and broadcasts, and
 * reductions and prefix operations over the active lanes.
 *
 * Shuffles read the source lane's register whether or not that lane is active: MSL leaves
 * the value undefined, and the checks (not the semantics) are where that gets reported.
 * Reductions combine active lanes only, in a fixed pairwise tree over lane order with the
 * operation's identity in inactive lanes, so results are deterministic and close to what
 * a hardware reduction tree computes. Prefix operations go in lane order.
 *
 * SIMD-group matrix multiply-accumulate (mma32, mma16) gathers the three 8x8 matrices from
 * every lane's register pairs (docs/ISA.md, "Matrices"), whether or not the lane is active,
 * and writes the active lanes' elements of the result.
 */
#include "../util/fp.h"
#include "sim_internal.h"

void sim_exec_simd(SimDispatch *d, SimGroup *g, const SimInst *in)
{
    const uint32_t *A = sim_bank(d, g, &in->o[1]);
    const uint32_t *B = sim_bank(d, g, &in->o[2]);
    uint32_t res[W];
    IsaOpcode op = (IsaOpcode)in->op;
    if (op == ISA_OP_ICMP_BALLOT || op == ISA_OP_FCMP_BALLOT) {
        uint32_t m = sim_compare32((IsaCond)in->cond, A, B, op == ISA_OP_FCMP_BALLOT) & g->exec_mask;
        for (int l = 0; l < W; l++)
            res[l] = m;
    } else if (op == ISA_OP_BCAST_FIRST) {
        uint32_t first = g->exec_mask ? (uint32_t)__builtin_ctz(g->exec_mask) : 0;
        for (int l = 0; l < W; l++)
            res[l] = A[first];
    } else {
        for (int l = 0; l < W; l++) {
            int32_t b = (int32_t)B[l];
            int32_t src;
            int32_t quad = l & ~3, q = l & 3;
            switch (op) {
            case ISA_OP_SHFL: case ISA_OP_BCAST: src = b & 31; break;
            case ISA_OP_SHFL_UP: src = (uint32_t)b <= (uint32_t)l ? l - b : l; break;
            case ISA_OP_SHFL_DOWN: src = (uint32_t)b < (uint32_t)(W - l) ? l + b : l; break;
            case ISA_OP_SHFL_XOR: src = l ^ (b & 31); break;
            case ISA_OP_SHFL_ROT_UP: src = (l - (b & 31)) & 31; break;
            case ISA_OP_SHFL_ROT_DOWN: src = (l + (b & 31)) & 31; break;
            case ISA_OP_QSHFL: case ISA_OP_QBCAST: src = quad + (b & 3); break;
            case ISA_OP_QSHFL_UP: src = (uint32_t)b <= (uint32_t)q ? l - b : l; break;
            case ISA_OP_QSHFL_DOWN: src = (uint32_t)b < (uint32_t)(4 - q) ? l + b : l; break;
            case ISA_OP_QSHFL_XOR: src = quad + (q ^ (b & 3)); break;
            case ISA_OP_QSHFL_ROT_UP: src = quad + ((q - (b & 3)) & 3); break;
            default: src = quad + ((q + (b & 3)) & 3); break; /* QSHFL_ROT_DOWN */
            }
            res[l] = A[src];
        }
    }
    sim_write32(g, sim_bank(d, g, &in->o[0]), res);
}

/* One reduction step on values held as bits of `type`. */
static uint32_t combine(IsaReduceOp op, IsaType type, uint32_t x, uint32_t y)
{
    if (type == ISA_TYPE_F32 || type == ISA_TYPE_F16) {
        bool half = type == ISA_TYPE_F16;
        float a = half ? util_f16_to_f32((uint16_t)x) : util_bits_f32(x);
        float b = half ? util_f16_to_f32((uint16_t)y) : util_bits_f32(y);
        float r;
        switch (op) {
        case ISA_RED_SUM: r = a + b; break;
        case ISA_RED_PRODUCT: r = a * b; break;
        case ISA_RED_MIN: r = (b != b || a < b) ? a : b; r = a != a ? b : r; break;
        default: r = (b != b || a > b) ? a : b; r = a != a ? b : r; break; /* MAX */
        }
        return half ? sim_canon_f16(util_f32_to_f16(r)) : sim_canon_f32(util_f32_bits(r));
    }
    bool is_signed = type == ISA_TYPE_S32;
    switch (op) {
    case ISA_RED_SUM: return x + y;
    case ISA_RED_PRODUCT: return x * y;
    case ISA_RED_MIN:
        return is_signed ? ((int32_t)x < (int32_t)y ? x : y) : (x < y ? x : y);
    case ISA_RED_MAX:
        return is_signed ? ((int32_t)x > (int32_t)y ? x : y) : (x > y ? x : y);
    case ISA_RED_AND: return x & y;
    case ISA_RED_OR: return x | y;
    default: return x ^ y;
    }
}

static uint32_t identity(IsaReduceOp op, IsaType type)
{
    bool f = type == ISA_TYPE_F32, h = type == ISA_TYPE_F16;
    bool s = type == ISA_TYPE_S32;
    switch (op) {
    case ISA_RED_SUM: return f ? 0x80000000u : h ? 0x8000u : 0; /* -0 leaves every x alone */
    case ISA_RED_PRODUCT: return f ? 0x3f800000u : h ? 0x3c00u : 1;
    case ISA_RED_MIN: return f ? 0x7fc00000u : h ? 0x7e00u : s ? 0x7fffffffu : 0xffffffffu;
    case ISA_RED_MAX: return f ? 0x7fc00000u : h ? 0x7e00u : s ? 0x80000000u : 0;
    case ISA_RED_AND: return 0xffffffffu;
    default: return 0;
    }
}

/* The common reductions (sum, min, max of f32 and 32-bit integers over the whole
 * SIMD-group) without the generic per-step dispatch: the same pairwise tree and identities,
 * so the results are bit-identical to the general path below. */
#define TREE_REDUCE(T, load, store, expr)                                                        \
    do {                                                                                         \
        T t[W];                                                                                  \
        for (int l = 0; l < W; l++)                                                              \
            t[l] = load(((g->exec_mask >> l) & 1) ? A[l] : id);                                  \
        for (int width = W / 2; width >= 1; width /= 2)                                          \
            for (int i = 0; i < width; i++) {                                                    \
                T a = t[i], b = t[i + width];                                                    \
                t[i] = (expr);                                                                   \
            }                                                                                    \
        uint32_t r = store(t[0]);                                                                \
        for (int l = 0; l < W; l++)                                                              \
            res[l] = r;                                                                          \
    } while (0)

#define AS_U32(x) (x)
#define F32_CANON(x) sim_canon_f32(util_f32_bits(x))
#define AS_S32(x) ((int32_t)(x))
#define FROM_S32(x) ((uint32_t)(x))

static bool reduce_fast(SimDispatch *d, SimGroup *g, const SimInst *in, uint32_t id)
{
    const IsaInst *isa = in->isa;
    IsaType type = (IsaType)isa->type;
    IsaReduceOp op = (IsaReduceOp)isa->cond;
    if (in->op != ISA_OP_SIMD_RED || type == ISA_TYPE_F16)
        return false;
    const uint32_t *A = sim_bank(d, g, &in->o[1]);
    uint32_t res[W];
    if (type == ISA_TYPE_F32 && op == ISA_RED_SUM)
        TREE_REDUCE(float, util_bits_f32, F32_CANON, a + b);
    else if (type == ISA_TYPE_F32 && op == ISA_RED_MAX)
        TREE_REDUCE(float, util_bits_f32, F32_CANON,
                    a != a ? b : (b != b || a > b) ? a : b);
    else if (type == ISA_TYPE_F32 && op == ISA_RED_MIN)
        TREE_REDUCE(float, util_bits_f32, F32_CANON,
                    a != a ? b : (b != b || a < b) ? a : b);
    else if (type != ISA_TYPE_F32 && op == ISA_RED_SUM)
        TREE_REDUCE(uint32_t, AS_U32, AS_U32, a + b);
    else if (type == ISA_TYPE_S32 && op == ISA_RED_MAX)
        TREE_REDUCE(int32_t, AS_S32, FROM_S32, a > b ? a : b);
    else if (type == ISA_TYPE_S32 && op == ISA_RED_MIN)
        TREE_REDUCE(int32_t, AS_S32, FROM_S32, a < b ? a : b);
    else
        return false;
    sim_write32(g, sim_bank(d, g, &in->o[0]), res);
    return true;
}

void sim_exec_reduce(SimDispatch *d, SimGroup *g, const SimInst *in)
{
    const IsaInst *isa = in->isa;
    IsaReduceOp op = (IsaReduceOp)isa->cond;
    IsaType type = (IsaType)isa->type;
    bool half = type == ISA_TYPE_F16;
    bool quad = in->op == ISA_OP_QUAD_RED || in->op == ISA_OP_QUAD_PREFIX;
    bool prefix = in->op == ISA_OP_SIMD_PREFIX || in->op == ISA_OP_QUAD_PREFIX;
    uint32_t id = identity(op, type);
    if (reduce_fast(d, g, in, id))
        return;
    uint32_t v[W], res[W];
    if (half) {
        const uint16_t *A = sim_bank16(d, g, &in->o[1]);
        for (int l = 0; l < W; l++)
            v[l] = ((g->exec_mask >> l) & 1) ? A[l * 2] : id;
    } else {
        const uint32_t *A = sim_bank(d, g, &in->o[1]);
        for (int l = 0; l < W; l++)
            v[l] = ((g->exec_mask >> l) & 1) ? A[l] : id;
    }
    uint32_t span = quad ? 4 : W;
    for (uint32_t base = 0; base < W; base += span) {
        if (prefix) {
            /* The running value starts at the identity (-0 for a float sum, which leaves every
             * value as it is: a prefix of -0s sums to -0, as IEEE's does); the exclusive value
             * of a lane with no active lane before it is +0 for a sum, as MSL's is. */
            const uint32_t none = op == ISA_RED_SUM ? 0 : id;
            uint32_t acc = id;
            bool inclusive = isa->count != 0, any = false;
            for (uint32_t l = base; l < base + span; l++) {
                const bool on = (g->exec_mask >> l) & 1;
                if (inclusive && on)
                    acc = combine(op, type, acc, v[l]), any = true;
                res[l] = any ? acc : none;
                if (!inclusive && on)
                    acc = combine(op, type, acc, v[l]), any = true;
            }
        } else {
            uint32_t t[W];
            memcpy(t, v + base, span * sizeof *t);
            for (uint32_t width = span / 2; width >= 1; width /= 2)
                for (uint32_t i = 0; i < width; i++)
                    t[i] = combine(op, type, t[i], t[i + width]);
            for (uint32_t l = base; l < base + span; l++)
                res[l] = t[0];
        }
    }
    if (half) {
        uint16_t out[W];
        for (int l = 0; l < W; l++)
            out[l] = (uint16_t)res[l];
        sim_write16(g, sim_bank16(d, g, &in->o[0]), out);
    } else {
        sim_write32(g, sim_bank(d, g, &in->o[0]), res);
    }
}

static void gather_matrix(const uint32_t *lo, float m[8][8])
{
    const uint32_t *hi = lo + W;
    for (uint32_t l = 0; l < W; l++) {
        m[isa_matrix_row(l)][isa_matrix_col(l)] = util_bits_f32(lo[l]);
        m[isa_matrix_row(l)][isa_matrix_col(l) + 1] = util_bits_f32(hi[l]);
    }
}

/* c += a * b, each element a fused multiply-add chain over k in order. Correctly rounded
 * either way, so both give the same bits (a NaN's payload aside: results are made
 * canonical after); with hardware FMA the column loop is eight lanes of one vector FMA. */
typedef void (*MmaRows)(const float a[8][8], const float b[8][8], float c[8][8]);

static void mma_rows_soft(const float a[8][8], const float b[8][8], float c[8][8])
{
    for (int r = 0; r < 8; r++)
        for (int k = 0; k < 8; k++)
            for (int col = 0; col < 8; col++)
                c[r][col] = util_fma_f32(a[r][k], b[k][col], c[r][col]);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) static void mma_rows_hw(const float a[8][8],
                                                             const float b[8][8], float c[8][8])
{
    for (int r = 0; r < 8; r++)
        for (int k = 0; k < 8; k++)
            for (int col = 0; col < 8; col++)
                c[r][col] = __builtin_fmaf(a[r][k], b[k][col], c[r][col]);
}
#endif

void sim_exec_matrix(SimDispatch *d, SimGroup *g, const SimInst *in)
{
    float a[8][8], b[8][8], c[8][8];
    gather_matrix(sim_bank(d, g, &in->o[1]), a);
    gather_matrix(sim_bank(d, g, &in->o[2]), b);
    gather_matrix(sim_bank(d, g, &in->o[3]), c);
    MmaRows rows = mma_rows_soft;
#if defined(__x86_64__) && defined(__GNUC__)
    if (sim_host_has_fma())
        rows = mma_rows_hw;
#endif
    rows(a, b, c);
    bool half = in->op == ISA_OP_MMA16;
    uint32_t lo[W], hi[W];
    for (uint32_t l = 0; l < W; l++) {
        uint32_t r = isa_matrix_row(l), col = isa_matrix_col(l);
        for (uint32_t e = 0; e < 2; e++) {
            float acc = c[r][col + e];
            if (half)
                acc = util_f16_to_f32(util_f32_to_f16(acc));
            (e ? hi : lo)[l] = sim_canon_f32(util_f32_bits(acc));
        }
    }
    uint32_t *dst = sim_bank(d, g, &in->o[0]);
    sim_write32(g, dst, lo);
    sim_write32(g, dst + W, hi);
}
