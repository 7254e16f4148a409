/*
 * ops_alu.c — semantics of the less frequent ALU ops: integer division and bit
 * manipulation, the special-function unit (rcp, rsqrt, sqrt, exp2, log2, sin, cos),
 * conversions, get_sr (thread positions and sizes), and the 64-bit integer ops beyond
 * add/sub/mul (division, high product, shifts, bitwise, compare-and-select). Hot arithmetic
 * lives in exec.c.
 *
 * A 64-bit operand is a register pair, uniform pair or immediate: its low word's 32 lanes are
 * at the operand's bank offset and its high word's 32 lanes right after (sim_internal.h).
 */
#include <math.h>

#include "../util/fp.h"
#include "sim_internal.h"

static inline uint32_t clamp32(uint32_t v) { return v > 32 ? 32 : v; }

static uint32_t bit_extract(uint32_t a, uint32_t offset, uint32_t count, bool is_signed)
{
    offset = clamp32(offset);
    count = clamp32(count);
    if (count == 0)
        return 0;
    if (offset + count > 32)
        count = 32 - offset;
    if (count == 0)
        return 0;
    uint64_t field = ((uint64_t)a >> offset) & ((1ull << count) - 1);
    if (is_signed && (field >> (count - 1)) & 1)
        field |= ~((1ull << count) - 1);
    return (uint32_t)field;
}

static uint32_t bit_insert(uint32_t base, uint32_t insert, uint32_t offset, uint32_t count)
{
    offset = clamp32(offset);
    count = clamp32(count);
    if (offset + count > 32)
        count = 32 - offset;
    uint64_t mask = ((1ull << count) - 1) << offset;
    return (uint32_t)((base & ~mask) | (((uint64_t)insert << offset) & mask));
}

static uint32_t bit_reverse(uint32_t v)
{
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
    v = ((v >> 8) & 0x00ff00ffu) | ((v & 0x00ff00ffu) << 8);
    return (v >> 16) | (v << 16);
}

void sim_exec_int_misc(SimDispatch *d, SimGroup *g, const SimInst *in)
{
    const uint32_t *A = sim_bank(d, g, &in->o[1]);
    const uint32_t *B = sim_bank(d, g, &in->o[2]); /* absent operands read a zero splat */
    uint32_t res[W];
    for (int l = 0; l < W; l++) {
        uint32_t a = A[l], b = B[l];
        int32_t sa = (int32_t)a, sb = (int32_t)b;
        uint32_t v;
        switch (in->op) {
        case ISA_OP_UDIV: v = b ? a / b : 0xffffffffu; break;
        case ISA_OP_SDIV:
            v = b == 0 ? 0xffffffffu
                : (sa == INT32_MIN && sb == -1) ? (uint32_t)INT32_MIN
                                                 : (uint32_t)(sa / sb);
            break;
        case ISA_OP_UREM: v = b ? a % b : a; break;
        case ISA_OP_SREM:
            v = b == 0 ? a : (sa == INT32_MIN && sb == -1) ? 0 : (uint32_t)(sa % sb);
            break;
        case ISA_OP_UBFE: v = bit_extract(a, b, sim_bank(d, g, &in->o[3])[l], false); break;
        case ISA_OP_SBFE: v = bit_extract(a, b, sim_bank(d, g, &in->o[3])[l], true); break;
        case ISA_OP_BFI:
            v = bit_insert(a, b, sim_bank(d, g, &in->o[3])[l], sim_bank(d, g, &in->o[4])[l]);
            break;
        case ISA_OP_POPCOUNT: v = util_popcount32(a); break;
        case ISA_OP_CLZ: v = a ? (uint32_t)__builtin_clz(a) : 32; break;
        case ISA_OP_FFS: v = a ? (uint32_t)__builtin_ctz(a) : 32; break;
        default: v = bit_reverse(a); break; /* BITREV */
        }
        res[l] = v;
    }
    sim_write32(g, sim_bank(d, g, &in->o[0]), res);
}

void sim_exec_sfu(SimDispatch *d, SimGroup *g, const SimInst *in)
{
    const uint32_t *A = sim_bank(d, g, &in->o[1]);
    uint32_t res[W];
    for (int l = 0; l < W; l++) {
        float a = util_bits_f32((A[l] & in->o[1].and_mask) ^ in->o[1].xor_mask);
        float v;
        switch (in->op) {
        case ISA_OP_RCP32: v = 1.0f / a; break;
        case ISA_OP_RSQRT32: v = (float)(1.0 / sqrt((double)a)); break;
        case ISA_OP_SQRT32: v = sqrtf(a); break;
        case ISA_OP_EXP232: v = exp2f(a); break;
        case ISA_OP_LOG232: v = log2f(a); break;
        case ISA_OP_SIN32: v = sinf(a); break;
        default: v = cosf(a); break; /* COS32 */
        }
        res[l] = sim_canon_f32(util_f32_bits(v));
    }
    sim_write32(g, sim_bank(d, g, &in->o[0]), res);
}

/* Reads every lane of a register operand of the given width (16, 32 or 64 bits), zero-extended;
 * one loop per kind, so each vectorizes. */
static void read_lanes(SimDispatch *d, SimGroup *g, const SimOpd *o, const IsaOperand *io,
                       uint64_t *v)
{
    switch ((IsaOperandKind)io->kind) {
    case ISA_OPD_R16: case ISA_OPD_U16: {
        const uint16_t *p = sim_bank16(d, g, o);
        for (int l = 0; l < W; l++)
            v[l] = p[l * 2];
        break;
    }
    case ISA_OPD_R64: case ISA_OPD_U64: case ISA_OPD_IMM: {
        const uint32_t *p = sim_bank(d, g, o);
        for (int l = 0; l < W; l++)
            v[l] = (uint64_t)p[W + l] << 32 | p[l];
        break;
    }
    default: {
        const uint32_t *p = sim_bank(d, g, o);
        for (int l = 0; l < W; l++)
            v[l] = p[l];
        break;
    }
    }
}

static bool int_type(IsaType t) { return t <= ISA_TYPE_S64; } /* IsaType lists them first */

static bool signed_type(IsaType t)
{
    return t == ISA_TYPE_S8 || t == ISA_TYPE_S16 || t == ISA_TYPE_S32 || t == ISA_TYPE_S64;
}

void sim_exec_convert(SimDispatch *d, SimGroup *g, const SimInst *in)
{
    const IsaInst *isa = in->isa;
    IsaType src = (IsaType)isa->src_type, dst = (IsaType)isa->type;
    unsigned src_bytes = isa_type_size(src);
    uint64_t out[W];
    read_lanes(d, g, &in->o[1], &isa->opd[1], out);
    if (int_type(src) && int_type(dst)) {
        /* Integer to integer (pointer arithmetic's s32 -> s64, above all): extend from the
         * source's width, then wrap to the destination's, as util_convert does, in one
         * branch-free loop. Narrow signed results are sign-extended to 32 bits. Signs
         * extend as (x ^ m) - m, m the sign bit, on x cut to its width. */
        const unsigned sb = 8 * src_bytes, db = 8 * isa_type_size(dst);
        const uint64_t smask = sb < 64 ? (UINT64_C(1) << sb) - 1 : ~UINT64_C(0);
        const uint64_t dmask = db < 64 ? (UINT64_C(1) << db) - 1 : ~UINT64_C(0);
        const uint64_t ssign = signed_type(src) && sb < 64 ? UINT64_C(1) << (sb - 1) : 0;
        const uint64_t dsign = signed_type(dst) && db < 32 ? UINT64_C(1) << (db - 1) : 0;
        const uint64_t dkeep = dsign ? UINT64_C(0xffffffff) : dmask;
        for (int l = 0; l < W; l++) {
            const uint64_t v = (((out[l] & smask) ^ ssign) - ssign) & dmask;
            out[l] = ((v ^ dsign) - dsign) & dkeep;
        }
    } else {
        const uint64_t smask = src_bytes < 8 ? (UINT64_C(1) << (8 * src_bytes)) - 1 : ~UINT64_C(0);
        for (int l = 0; l < W; l++)
            out[l] = util_convert(out[l] & smask, src, dst, (IsaRound)isa->round);
    }
    switch ((IsaOperandKind)isa->opd[0].kind) {
    case ISA_OPD_R16: {
        uint16_t o16[W];
        for (int l = 0; l < W; l++)
            o16[l] = (uint16_t)out[l];
        sim_write16(g, sim_bank16(d, g, &in->o[0]), o16);
        break;
    }
    case ISA_OPD_R64: {
        uint32_t lo[W], hi[W];
        for (int l = 0; l < W; l++) {
            lo[l] = (uint32_t)out[l];
            hi[l] = (uint32_t)(out[l] >> 32);
        }
        uint32_t *p = sim_bank(d, g, &in->o[0]);
        sim_write32(g, p, lo);
        sim_write32(g, p + W, hi);
        break;
    }
    default: {
        uint32_t o32[W];
        for (int l = 0; l < W; l++)
            o32[l] = (uint32_t)out[l];
        sim_write32(g, sim_bank(d, g, &in->o[0]), o32);
        break;
    }
    }
}

/* ---- 64-bit integer ------------------------------------------------------------------------ */

static inline uint64_t pair_lane(const uint32_t *p, int l) { return (uint64_t)p[W + l] << 32 | p[l]; }

/* High 64 bits of the 128-bit product, from 32-bit limbs (no __int128 needed). */
static uint64_t umulhi64(uint64_t a, uint64_t b)
{
    uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/* Signed: the unsigned high part minus the corrections for negative operands. */
static uint64_t smulhi64(uint64_t a, uint64_t b)
{
    uint64_t h = umulhi64(a, b);
    if ((int64_t)a < 0)
        h -= b;
    if ((int64_t)b < 0)
        h -= a;
    return h;
}

static uint64_t alu64(IsaOpcode op, uint64_t a, uint64_t b)
{
    int64_t sa = (int64_t)a, sb = (int64_t)b;
    switch (op) {
    case ISA_OP_UMULHI64: return umulhi64(a, b);
    case ISA_OP_SMULHI64: return smulhi64(a, b);
    case ISA_OP_UDIV64: return b ? a / b : UINT64_MAX;
    case ISA_OP_SDIV64:
        return b == 0 ? UINT64_MAX : (sa == INT64_MIN && sb == -1) ? a : (uint64_t)(sa / sb);
    case ISA_OP_UREM64: return b ? a % b : a;
    case ISA_OP_SREM64:
        return b == 0 ? a : (sa == INT64_MIN && sb == -1) ? 0 : (uint64_t)(sa % sb);
    case ISA_OP_SHL64: return a << (b & 63);
    case ISA_OP_LSR64: return a >> (b & 63);
    case ISA_OP_ASR64: /* arithmetic without relying on implementation-defined >> */
        return sa < 0 ? ~(~a >> (b & 63)) : a >> (b & 63);
    case ISA_OP_AND64: return a & b;
    case ISA_OP_OR64: return a | b;
    case ISA_OP_XOR64: return a ^ b;
    default: return ~a; /* NOT64 */
    }
}

void sim_exec_alu64(SimDispatch *d, SimGroup *g, const SimInst *in)
{
    const uint32_t *A = sim_bank(d, g, &in->o[1]);
    const uint32_t *B = sim_bank(d, g, &in->o[2]); /* a 32-bit shift amount: only its low word */
    const bool b_is_32 = in->op == ISA_OP_SHL64 || in->op == ISA_OP_LSR64 || in->op == ISA_OP_ASR64;
    uint32_t lo[W], hi[W];
    for (int l = 0; l < W; l++) {
        uint64_t v = alu64((IsaOpcode)in->op, pair_lane(A, l), b_is_32 ? B[l] : pair_lane(B, l));
        lo[l] = (uint32_t)v;
        hi[l] = (uint32_t)(v >> 32);
    }
    uint32_t *dst = sim_bank(d, g, &in->o[0]);
    sim_write32(g, dst, lo);
    sim_write32(g, dst + W, hi);
}

static bool compare64(IsaCond c, uint64_t a, uint64_t b)
{
    int64_t sa = (int64_t)a, sb = (int64_t)b;
    switch (c) {
    case ISA_COND_EQ: return a == b;
    case ISA_COND_NE: return a != b;
    case ISA_COND_ULT: return a < b;
    case ISA_COND_ULE: return a <= b;
    case ISA_COND_UGT: return a > b;
    case ISA_COND_UGE: return a >= b;
    case ISA_COND_SLT: return sa < sb;
    case ISA_COND_SLE: return sa <= sb;
    case ISA_COND_SGT: return sa > sb;
    default: return sa >= sb; /* SGE; the assembler admits integer conditions only */
    }
}

void sim_exec_icmpsel64(SimDispatch *d, SimGroup *g, const SimInst *in)
{
    const uint32_t *A = sim_bank(d, g, &in->o[1]), *B = sim_bank(d, g, &in->o[2]);
    const uint32_t *X = sim_bank(d, g, &in->o[3]), *Y = sim_bank(d, g, &in->o[4]);
    const IsaCond c = (IsaCond)in->cond;
    uint32_t res[W];
    for (int l = 0; l < W; l++)
        res[l] = compare64(c, pair_lane(A, l), pair_lane(B, l)) ? X[l] : Y[l];
    sim_write32(g, sim_bank(d, g, &in->o[0]), res);
}

/* Splat or per-lane value of a special register; the switch is outside the lane loops. */
void sim_exec_get_sr(SimDispatch *d, SimGroup *g, const SimInst *in)
{
    const SimThreadgroupView *tg = &d->tg;
    uint32_t res[W];
    const uint32_t sx = tg->size[0], sy = tg->size[1];
    const uint32_t first = g->index * W;
    IsaSpecialReg sr = (IsaSpecialReg)in->isa->opd[1].index;
    uint32_t splat_value = 0;
    bool is_splat = true;
    switch (sr) {
    case ISA_SR_THREAD_POSITION_IN_GRID_X: case ISA_SR_THREAD_POSITION_IN_THREADGROUP_X:
    case ISA_SR_THREAD_POSITION_IN_GRID_Y: case ISA_SR_THREAD_POSITION_IN_THREADGROUP_Y:
    case ISA_SR_THREAD_POSITION_IN_GRID_Z: case ISA_SR_THREAD_POSITION_IN_THREADGROUP_Z: {
        /* Walk the lanes' (x, y, z) positions with one division for lane 0 instead of one per
         * lane: consecutive lanes step x, carrying into y and z. */
        int k = (sr == ISA_SR_THREAD_POSITION_IN_GRID_X || sr == ISA_SR_THREAD_POSITION_IN_THREADGROUP_X) ? 0
                : (sr == ISA_SR_THREAD_POSITION_IN_GRID_Y || sr == ISA_SR_THREAD_POSITION_IN_THREADGROUP_Y) ? 1
                                                                                                   : 2;
        bool in_grid = sr == ISA_SR_THREAD_POSITION_IN_GRID_X || sr == ISA_SR_THREAD_POSITION_IN_GRID_Y ||
                       sr == ISA_SR_THREAD_POSITION_IN_GRID_Z;
        uint32_t origin = in_grid ? tg->position[k] * d->tg_size[k] : 0;
        uint32_t pos[3] = {first % sx, (first / sx) % sy, first / (sx * sy)};
        if (pos[0] + W <= sx) {
            /* Every lane in one row (a 1D threadgroup of whole SIMD-groups, or a wide one):
             * x steps by one, y and z stay. */
            const uint32_t at = origin + pos[k], step = k == 0;
            for (uint32_t l = 0; l < W; l++)
                res[l] = at + step * l;
            is_splat = false;
            break;
        }
        for (uint32_t l = 0; l < W; l++) {
            res[l] = origin + pos[k];
            if (++pos[0] == sx) {
                pos[0] = 0;
                if (++pos[1] == sy) {
                    pos[1] = 0;
                    pos[2]++;
                }
            }
        }
        is_splat = false;
        break;
    }
    case ISA_SR_THREAD_INDEX_IN_THREADGROUP:
        for (uint32_t l = 0; l < W; l++)
            res[l] = first + l;
        is_splat = false;
        break;
    case ISA_SR_THREAD_INDEX_IN_SIMDGROUP:
        for (uint32_t l = 0; l < W; l++)
            res[l] = l;
        is_splat = false;
        break;
    case ISA_SR_THREAD_INDEX_IN_QUADGROUP:
        for (uint32_t l = 0; l < W; l++)
            res[l] = l & 3;
        is_splat = false;
        break;
    case ISA_SR_QUADGROUP_INDEX_IN_THREADGROUP:
        for (uint32_t l = 0; l < W; l++)
            res[l] = (first + l) / 4;
        is_splat = false;
        break;
    case ISA_SR_ACTIVE_THREAD_INDEX_IN_SIMDGROUP: {
        uint32_t before = 0;
        for (uint32_t l = 0; l < W; l++) {
            res[l] = before;
            before += (g->exec_mask >> l) & 1;
        }
        is_splat = false;
        break;
    }
    case ISA_SR_THREADGROUP_POSITION_IN_GRID_X: splat_value = tg->position[0]; break;
    case ISA_SR_THREADGROUP_POSITION_IN_GRID_Y: splat_value = tg->position[1]; break;
    case ISA_SR_THREADGROUP_POSITION_IN_GRID_Z: splat_value = tg->position[2]; break;
    case ISA_SR_THREADS_PER_GRID_X: splat_value = d->grid_size[0]; break;
    case ISA_SR_THREADS_PER_GRID_Y: splat_value = d->grid_size[1]; break;
    case ISA_SR_THREADS_PER_GRID_Z: splat_value = d->grid_size[2]; break;
    case ISA_SR_THREADS_PER_THREADGROUP_X: splat_value = tg->size[0]; break;
    case ISA_SR_THREADS_PER_THREADGROUP_Y: splat_value = tg->size[1]; break;
    case ISA_SR_THREADS_PER_THREADGROUP_Z: splat_value = tg->size[2]; break;
    case ISA_SR_DISPATCH_THREADS_PER_THREADGROUP_X: splat_value = d->tg_size[0]; break;
    case ISA_SR_DISPATCH_THREADS_PER_THREADGROUP_Y: splat_value = d->tg_size[1]; break;
    case ISA_SR_DISPATCH_THREADS_PER_THREADGROUP_Z: splat_value = d->tg_size[2]; break;
    case ISA_SR_THREADGROUPS_PER_GRID_X: splat_value = d->tg_count[0]; break;
    case ISA_SR_THREADGROUPS_PER_GRID_Y: splat_value = d->tg_count[1]; break;
    case ISA_SR_THREADGROUPS_PER_GRID_Z: splat_value = d->tg_count[2]; break;
    case ISA_SR_THREAD_EXECUTION_WIDTH: case ISA_SR_THREADS_PER_SIMDGROUP: splat_value = W; break;
    case ISA_SR_SIMDGROUP_INDEX_IN_THREADGROUP: splat_value = g->index; break;
    case ISA_SR_SIMDGROUPS_PER_THREADGROUP: splat_value = tg->num_simdgroups; break;
    case ISA_SR_DISPATCH_SIMDGROUPS_PER_THREADGROUP:
        splat_value = (d->tg_size[0] * d->tg_size[1] * d->tg_size[2] + W - 1) / W;
        break;
    case ISA_SR_QUADGROUPS_PER_THREADGROUP: splat_value = (tg->threads + 3) / 4; break;
    case ISA_SR_DISPATCH_QUADGROUPS_PER_THREADGROUP:
        splat_value = (d->tg_size[0] * d->tg_size[1] * d->tg_size[2] + 3) / 4;
        break;
    case ISA_SR_CORE_INDEX: case ISA_SR_COUNT: splat_value = 0; break;
    }
    if (is_splat)
        for (uint32_t l = 0; l < W; l++)
            res[l] = splat_value;
    sim_write32(g, sim_bank(d, g, &in->o[0]), res);
}
