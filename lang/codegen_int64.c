/*
 * codegen_int64.c — the standard library's integer functions on long and ulong (one
 * component at a time; codegen_builtin.c calls here for every 64-bit component), and
 * products over a SIMD-group or quad of 64-bit values.
 *
 * Apple's GPUs have no 64-bit bit-counting, bit-field or saturating instructions, and
 * neither does lockstep's ISA: each function is a short sequence of 32- and 64-bit ALU ops,
 * as a GPU compiler would emit (the halves of a pair through lo32/hi32/mkpair, which are
 * moves), so the timing model charges every op the hardware would run. Selects
 * between 64-bit values use an all-ones/zero mask pair (b ^ ((a ^ b) & m)), straight-line
 * code that needs no exec-mask region.
 *
 * The bit-field functions clamp offset and bits as the 32-bit ubfe/sbfe/bfi ops do (the
 * field stops at the top bit), so a call MSL leaves undefined (offset + bits > 64) still
 * gives a documented value. A product over a SIMD-group or quad has no reduction op either:
 * it visits the active lanes one by one, lowest first, each lane shuffling the visited
 * lane's value in and multiplying; only active lanes are read, so the checks see no read of
 * an inactive lane.
 */
#include "codegen_internal.h"

static IsaOperand op1(LangCg *cg, IsaOpcode op, int w, IsaOperand a)
{
    IsaOperand d = lang_cg_new_vreg(cg, w);
    IsaInst *in = lang_cg_emit(cg, op);
    in->opd[0] = d, in->opd[1] = a;
    return d;
}

static IsaOperand op2(LangCg *cg, IsaOpcode op, int w, IsaOperand a, IsaOperand b)
{
    return cg_emit3(cg, op, w, a, b);
}

/* d = (a cond b) ? x : y, 32-bit x and y; op is icmpsel or icmpsel64 (64-bit a and b). */
static IsaOperand sel(LangCg *cg, IsaOpcode op, IsaCond c, IsaOperand a, IsaOperand b,
                      IsaOperand x, IsaOperand y)
{
    IsaOperand d = lang_cg_new_vreg(cg, 32);
    IsaInst *in = lang_cg_emit(cg, op);
    in->cond = (uint8_t)c;
    in->opd[0] = d, in->opd[1] = a, in->opd[2] = b, in->opd[3] = x, in->opd[4] = y;
    return d;
}

static IsaOperand imm(uint64_t v) { return lang_cg_imm(v); }

static IsaOperand lo(LangCg *cg, IsaOperand v)
{
    return v.kind == ISA_OPD_IMM ? imm((uint32_t)v.imm) : op1(cg, ISA_OP_LO32, 32, v);
}

static IsaOperand hi(LangCg *cg, IsaOperand v)
{
    return v.kind == ISA_OPD_IMM ? imm((uint32_t)(v.imm >> 32)) : op1(cg, ISA_OP_HI32, 32, v);
}

static IsaOperand pair(LangCg *cg, IsaOperand l, IsaOperand h)
{
    if (l.kind == ISA_OPD_IMM && h.kind == ISA_OPD_IMM)
        return imm((uint64_t)(uint32_t)h.imm << 32 | (uint32_t)l.imm);
    return op2(cg, ISA_OP_MKPAIR, 64, l, h);
}

/* All ones where (a cond b) holds, else 0, as a 64-bit mask; a, b 64-bit. */
static IsaOperand mask64(LangCg *cg, IsaCond c, IsaOperand a, IsaOperand b)
{
    IsaOperand m = sel(cg, ISA_OP_ICMPSEL64, c, a, b, imm(0xffffffffu), imm(0));
    return pair(cg, m, m);
}

/* m ? x : y per bit, m an all-ones/zero mask. */
static IsaOperand pick(LangCg *cg, IsaOperand m, IsaOperand x, IsaOperand y)
{
    IsaOperand diff = op2(cg, ISA_OP_XOR64, 64, x, y);
    return op2(cg, ISA_OP_XOR64, 64, y, op2(cg, ISA_OP_AND64, 64, diff, m));
}

/* min(v, cap) for a 32-bit unsigned v. */
static IsaOperand umin32(LangCg *cg, IsaOperand v, IsaOperand cap)
{
    return sel(cg, ISA_OP_ICMPSEL, ISA_COND_UGT, v, cap, cap, v);
}

/* INT64_MAX for a non-negative sign source, INT64_MIN for a negative one. */
static IsaOperand saturated(LangCg *cg, IsaOperand sign_of)
{
    return op2(cg, ISA_OP_XOR64, 64, op2(cg, ISA_OP_ASR64, 64, sign_of, imm(63)),
               imm(UINT64_C(0x7fffffffffffffff)));
}

/* extract_bits / insert_bits: offset clamped to 64 and bits to what is left above it
 * (the 32-bit ops' rule); *nonempty is an all-ones mask unless the field is empty. */
static void field(LangCg *cg, IsaOperand offset, IsaOperand bits, IsaOperand *off,
                  IsaOperand *cnt, IsaOperand *nonempty)
{
    *off = umin32(cg, offset, imm(64));
    *cnt = umin32(cg, bits, op2(cg, ISA_OP_ISUB, 32, imm(64), *off));
    IsaOperand m = sel(cg, ISA_OP_ICMPSEL, ISA_COND_NE, *cnt, imm(0), imm(0xffffffffu), imm(0));
    *nonempty = pair(cg, m, m);
}

/* madsat: a * b + c computed exactly in 128 bits, clamped to T's range. */
static IsaOperand madsat64(LangCg *cg, bool u, IsaOperand a, IsaOperand b, IsaOperand c)
{
    IsaOperand pl = op2(cg, ISA_OP_IMUL64, 64, a, b);
    IsaOperand ph = op2(cg, u ? ISA_OP_UMULHI64 : ISA_OP_SMULHI64, 64, a, b);
    IsaOperand s = op2(cg, ISA_OP_IADD64, 64, pl, c);
    if (u) { /* past 2^64 - 1 when the high half is set or the low sum carried */
        IsaOperand m = sel(cg, ISA_OP_ICMPSEL64, ISA_COND_NE, ph, imm(0), imm(0xffffffffu), imm(0));
        m = sel(cg, ISA_OP_ICMPSEL64, ISA_COND_ULT, s, pl, imm(0xffffffffu), m);
        return op2(cg, ISA_OP_OR64, 64, s, pair(cg, m, m));
    }
    /* the high half of the 128-bit sum: ph + (c's sign extension) + the low half's carry */
    IsaOperand carry = sel(cg, ISA_OP_ICMPSEL64, ISA_COND_ULT, s, pl, imm(1), imm(0));
    IsaOperand sh = op2(cg, ISA_OP_IADD64, 64, ph, op2(cg, ISA_OP_ASR64, 64, c, imm(63)));
    sh = op2(cg, ISA_OP_IADD64, 64, sh, pair(cg, carry, imm(0)));
    /* it fits in a long when the high half is the low half's sign extension */
    IsaOperand ov = mask64(cg, ISA_COND_NE, sh, op2(cg, ISA_OP_ASR64, 64, s, imm(63)));
    return pick(cg, ov, saturated(cg, sh), s);
}

static IsaOperand addsat64(LangCg *cg, bool add, bool u, IsaOperand a, IsaOperand b)
{
    IsaOperand r = op2(cg, add ? ISA_OP_IADD64 : ISA_OP_ISUB64, 64, a, b);
    if (u && add) /* wrapped: the sum is below an operand */
        return op2(cg, ISA_OP_OR64, 64, r, mask64(cg, ISA_COND_ULT, r, a));
    if (u) /* b > a: 0 */
        return op2(cg, ISA_OP_AND64, 64, r, mask64(cg, ISA_COND_UGE, a, b));
    /* signed overflow: the operands' signs (b negated for sub) agree and r's differs */
    IsaOperand t = add ? op2(cg, ISA_OP_AND64, 64, op2(cg, ISA_OP_XOR64, 64, a, r),
                             op2(cg, ISA_OP_XOR64, 64, b, r))
                       : op2(cg, ISA_OP_AND64, 64, op2(cg, ISA_OP_XOR64, 64, a, b),
                             op2(cg, ISA_OP_XOR64, 64, a, r));
    IsaOperand ov = op2(cg, ISA_OP_ASR64, 64, t, imm(63));
    return pick(cg, ov, saturated(cg, a), r);
}

IsaOperand cg_int64_fn(LangCg *cg, LangBuiltin b, LangType *s, IsaOperand *x, LangNode *node)
{
    bool u = lang_is_unsigned(s);
    switch (b) {
    case LANG_BI_MULHI:
        return op2(cg, u ? ISA_OP_UMULHI64 : ISA_OP_SMULHI64, 64, x[0], x[1]);
    case LANG_BI_MADHI:
        return op2(cg, ISA_OP_IADD64, 64,
                   op2(cg, u ? ISA_OP_UMULHI64 : ISA_OP_SMULHI64, 64, x[0], x[1]), x[2]);
    case LANG_BI_MADSAT:
        return madsat64(cg, u, x[0], x[1], x[2]);
    case LANG_BI_CLZ: { /* the high word's count, or 32 + the low word's when it is 0 */
        IsaOperand h = hi(cg, x[0]), l = lo(cg, x[0]);
        IsaOperand low = op2(cg, ISA_OP_IADD, 32, op1(cg, ISA_OP_CLZ, 32, l), imm(32));
        return pair(cg, sel(cg, ISA_OP_ICMPSEL, ISA_COND_EQ, h, imm(0), low,
                            op1(cg, ISA_OP_CLZ, 32, h)), imm(0));
    }
    case LANG_BI_CTZ: { /* ffs gives 32 for 0, so 0 gives 64 */
        IsaOperand h = hi(cg, x[0]), l = lo(cg, x[0]);
        IsaOperand high = op2(cg, ISA_OP_IADD, 32, op1(cg, ISA_OP_FFS, 32, h), imm(32));
        return pair(cg, sel(cg, ISA_OP_ICMPSEL, ISA_COND_EQ, l, imm(0), high,
                            op1(cg, ISA_OP_FFS, 32, l)), imm(0));
    }
    case LANG_BI_POPCOUNT:
        return pair(cg, op2(cg, ISA_OP_IADD, 32, op1(cg, ISA_OP_POPCOUNT, 32, lo(cg, x[0])),
                            op1(cg, ISA_OP_POPCOUNT, 32, hi(cg, x[0]))), imm(0));
    case LANG_BI_REVERSE_BITS: /* each word reversed, and the words swapped */
        return pair(cg, op1(cg, ISA_OP_BITREV, 32, hi(cg, x[0])),
                    op1(cg, ISA_OP_BITREV, 32, lo(cg, x[0])));
    case LANG_BI_EXTRACT_BITS: { /* the field moved to the top, then shifted down */
        IsaOperand off, cnt, nonempty;
        field(cg, x[1], x[2], &off, &cnt, &nonempty);
        IsaOperand top = op2(cg, ISA_OP_ISUB, 32, op2(cg, ISA_OP_ISUB, 32, imm(64), off), cnt);
        IsaOperand t = op2(cg, ISA_OP_SHL64, 64, x[0], top);
        IsaOperand r = op2(cg, u ? ISA_OP_LSR64 : ISA_OP_ASR64, 64, t,
                           op2(cg, ISA_OP_ISUB, 32, imm(64), cnt));
        return op2(cg, ISA_OP_AND64, 64, r, nonempty); /* a shift by 64 is one by 0 */
    }
    case LANG_BI_INSERT_BITS: {
        IsaOperand off, cnt, nonempty;
        field(cg, x[2], x[3], &off, &cnt, &nonempty);
        IsaOperand ones = op2(cg, ISA_OP_LSR64, 64, imm(UINT64_MAX),
                              op2(cg, ISA_OP_ISUB, 32, imm(64), cnt));
        IsaOperand m = op2(cg, ISA_OP_SHL64, 64, op2(cg, ISA_OP_AND64, 64, ones, nonempty), off);
        IsaOperand ins = op2(cg, ISA_OP_AND64, 64, op2(cg, ISA_OP_SHL64, 64, x[1], off), m);
        IsaOperand keep = op2(cg, ISA_OP_AND64, 64, x[0], op1(cg, ISA_OP_NOT64, 64, m));
        return op2(cg, ISA_OP_OR64, 64, keep, ins);
    }
    case LANG_BI_ROTATE: { /* by the count mod 64; by 0, both shifts are by 0 and v | v = v */
        IsaOperand k = op2(cg, ISA_OP_AND, 32, lo(cg, x[1]), imm(63));
        return op2(cg, ISA_OP_OR64, 64, op2(cg, ISA_OP_SHL64, 64, x[0], k),
                   op2(cg, ISA_OP_LSR64, 64, x[0], op2(cg, ISA_OP_ISUB, 32, imm(64), k)));
    }
    case LANG_BI_ABSDIFF: { /* x - y, negated (d ^ m) - m when x < y: exact mod 2^64 */
        IsaOperand m = mask64(cg, u ? ISA_COND_ULT : ISA_COND_SLT, x[0], x[1]);
        IsaOperand d = op2(cg, ISA_OP_ISUB64, 64, x[0], x[1]);
        return op2(cg, ISA_OP_ISUB64, 64, op2(cg, ISA_OP_XOR64, 64, d, m), m);
    }
    case LANG_BI_ADDSAT: case LANG_BI_SUBSAT:
        return addsat64(cg, b == LANG_BI_ADDSAT, u, x[0], x[1]);
    case LANG_BI_HADD: case LANG_BI_RHADD: { /* (x >> 1) + (y >> 1) + the carry of bit 0 */
        IsaOpcode sh = u ? ISA_OP_LSR64 : ISA_OP_ASR64;
        IsaOperand s1 = op2(cg, ISA_OP_IADD64, 64, op2(cg, sh, 64, x[0], imm(1)),
                            op2(cg, sh, 64, x[1], imm(1)));
        IsaOperand c = op2(cg, b == LANG_BI_HADD ? ISA_OP_AND64 : ISA_OP_OR64, 64, x[0], x[1]);
        return op2(cg, ISA_OP_IADD64, 64, s1, op2(cg, ISA_OP_AND64, 64, c, imm(1)));
    }
    case LANG_BI_MUL24: case LANG_BI_MAD24:
        cg_error(cg, node->tok, "mul24 and mad24 multiply 24-bit values held in int or uint, "
                 "not long or ulong");
    default:
        cg_error(cg, node->tok, "this function is not supported for 64-bit integers");
    }
}

/* ---- products over a SIMD-group or quad --------------------------------------------------- */

static IsaOperand shuffle(LangCg *cg, bool quad, IsaOperand src, IsaOperand lane)
{
    IsaOperand d = lang_cg_new_vreg(cg, 32);
    IsaInst *in = lang_cg_emit(cg, quad ? ISA_OP_QSHFL : ISA_OP_SHFL);
    in->opd[0] = d, in->opd[1] = src, in->opd[2] = lane;
    return d;
}

IsaOperand cg_product64(LangCg *cg, bool quad, int prefix, IsaOperand v)
{
    IsaOperand l = cg_to_reg(cg, lo(cg, v), 32), h = cg_to_reg(cg, hi(cg, v), 32);
    IsaOperand lane = quad || prefix >= 0 ? cg_lane_id(cg) : lang_cg_imm(0);
    IsaOperand m = lang_cg_new_vreg(cg, 32); /* the active lanes not visited yet */
    IsaInst *in = lang_cg_emit(cg, ISA_OP_ICMP_BALLOT);
    in->cond = ISA_COND_EQ;
    in->opd[0] = m, in->opd[1] = imm(0), in->opd[2] = imm(0);
    if (quad) { /* this quad's four bits, and lanes numbered within the quad */
        IsaOperand base = op2(cg, ISA_OP_AND, 32, lane, imm(~3u));
        cg_mov(cg, m, op2(cg, ISA_OP_AND, 32, op2(cg, ISA_OP_LSR, 32, m, base), imm(0xf)), 32);
        lane = op2(cg, ISA_OP_AND, 32, lane, imm(3));
    }
    IsaOperand acc = lang_cg_new_vreg(cg, 64);
    cg_mov(cg, acc, imm(1), 64);
    /* every lane of the SIMD-group (of the quad) has the same m, so each loop is uniform */
    CgLoop loop;
    cg_loop_begin(cg, &loop, ISA_COND_NE, m, imm(0));
    IsaOperand j = op1(cg, ISA_OP_FFS, 32, m);
    IsaOperand p = op2(cg, ISA_OP_IMUL64, 64, acc,
                       pair(cg, shuffle(cg, quad, l, j), shuffle(cg, quad, h, j)));
    if (prefix >= 0) { /* only lanes up to this one (below it, exclusive) count */
        IsaOperand t = sel(cg, ISA_OP_ICMPSEL, prefix ? ISA_COND_ULE : ISA_COND_ULT, j, lane,
                           imm(0xffffffffu), imm(0));
        p = pick(cg, pair(cg, t, t), p, acc);
    }
    cg_mov(cg, acc, p, 64);
    cg_mov(cg, m, op2(cg, ISA_OP_AND, 32, m, op2(cg, ISA_OP_ISUB, 32, m, imm(1))), 32);
    cg_loop_end(cg, &loop, ISA_COND_NE, m, imm(0));
    return acc;
}
