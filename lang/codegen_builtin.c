/*
 * codegen_builtin.c — the standard library's non-math functions: common functions on
 * integers (and the float ones lang_cg_math leaves to us), integer bit functions,
 * relational and geometric functions, barriers, atomics, and SIMD-group and quad-group
 * functions. Math builtins go to lang_cg_math (codegen_math.c) one scalar component at a
 * time. SIMD-group results only count active lanes, as the ops do.
 */
#include <string.h>

#include "codegen_internal.h"

static IsaOperand op2(LangCg *cg, IsaOpcode op, int w, IsaOperand a, IsaOperand b)
{
    IsaOperand d = lang_cg_new_vreg(cg, w);
    IsaInst *in = lang_cg_emit(cg, op);
    in->opd[0] = d, in->opd[1] = a, in->opd[2] = b;
    return d;
}

static IsaOperand op1(LangCg *cg, IsaOpcode op, int w, IsaOperand a)
{
    IsaOperand d = lang_cg_new_vreg(cg, w);
    IsaInst *in = lang_cg_emit(cg, op);
    in->opd[0] = d, in->opd[1] = a;
    return d;
}

static IsaOperand sel(LangCg *cg, IsaOpcode op, IsaCond c, int w, IsaOperand a, IsaOperand b,
                      IsaOperand x, IsaOperand y)
{
    IsaOperand d = lang_cg_new_vreg(cg, w);
    IsaInst *in = lang_cg_emit(cg, op);
    in->cond = (uint8_t)c;
    in->opd[0] = d, in->opd[1] = a, in->opd[2] = b, in->opd[3] = x, in->opd[4] = y;
    return d;
}

static IsaOperand cvt_to(LangCg *cg, IsaOperand v, IsaType dst, IsaType src, int w)
{
    IsaOperand d = lang_cg_new_vreg(cg, w);
    IsaInst *in = lang_cg_emit(cg, ISA_OP_CVT);
    in->type = (uint8_t)dst, in->src_type = (uint8_t)src;
    in->opd[0] = d, in->opd[1] = v;
    return d;
}

static int64_t fold(LangNode *n, bool *ok)
{
    if (!n) {
        *ok = false;
        return 0;
    }
    switch (n->kind) {
    case LND_NUM: return (int64_t)n->ival;
    case LND_CAST: return fold(n->lhs, ok);
    case LND_BITOR: return fold(n->lhs, ok) | fold(n->rhs, ok);
    case LND_BITAND: return fold(n->lhs, ok) & fold(n->rhs, ok);
    default: *ok = false; return 0;
    }
}

static IsaOperand fimm(LangType *s, double v)
{
    if (s->kind == LTY_HALF) {
        /* exact small constants only: 0, 1, 2, 3, -1 */
        uint16_t h = v == 0 ? 0 : v == 1 ? 0x3c00 : v == 2 ? 0x4000 : v == 3 ? 0x4200 : 0xbc00;
        return lang_cg_imm_f16(h);
    }
    return lang_cg_imm_f32((float)v);
}

/* ---- common functions, one component ------------------------------------------------------ */

static IsaOperand minmax(LangCg *cg, bool is_max, LangType *s, IsaOperand a, IsaOperand b)
{
    if (s->kind == LTY_FLOAT)
        return op2(cg, is_max ? ISA_OP_FMAX32 : ISA_OP_FMIN32, 32, a, b);
    if (s->kind == LTY_HALF)
        return op2(cg, is_max ? ISA_OP_FMAX16 : ISA_OP_FMIN16, 16, a, b);
    bool u = lang_is_unsigned(s);
    IsaCond c = is_max ? (u ? ISA_COND_UGT : ISA_COND_SGT) : (u ? ISA_COND_ULT : ISA_COND_SLT);
    if (cg_width_of(s) == 64)
        return cg_select(cg, sel(cg, ISA_OP_ICMPSEL64, c, 32, a, b, lang_cg_imm(1), lang_cg_imm(0)),
                         a, b, 64);
    return sel(cg, ISA_OP_ICMPSEL, c, 32, a, b, a, b);
}

static IsaOperand fop(LangCg *cg, LangType *s, LangNodeKind k, IsaOperand a, IsaOperand b)
{
    return cg_binop(cg, k, s, a, b, NULL);
}

static IsaOperand common(LangCg *cg, LangBuiltin b, LangType *s, IsaOperand *x, LangNode *node)
{
    bool fl = lang_is_float(s), h = s->kind == LTY_HALF;
    int w = h ? 16 : 32;
    switch (b) {
    case LANG_BI_ABS: case LANG_BI_FABS:
        if (fl) {
            IsaOperand a = x[0];
            if (a.kind == ISA_OPD_IMM)
                a.imm &= h ? 0x7fffu : 0x7fffffffu;
            else
                a.flags = ISA_OPD_ABS;
            return op1(cg, h ? ISA_OP_FMOV16 : ISA_OP_FMOV32, w, a);
        }
        if (lang_is_unsigned(s))
            return x[0];
        if (cg_width_of(s) == 64) {
            IsaOperand neg = sel(cg, ISA_OP_ICMPSEL64, ISA_COND_SLT, 32, x[0], lang_cg_imm(0),
                                 lang_cg_imm(1), lang_cg_imm(0));
            return cg_select(cg, neg, op2(cg, ISA_OP_ISUB64, 64, lang_cg_imm(0), x[0]), x[0], 64);
        }
        return cg_normalize(cg, sel(cg, ISA_OP_ICMPSEL, ISA_COND_SLT, 32, x[0], lang_cg_imm(0),
                                    op2(cg, ISA_OP_ISUB, 32, lang_cg_imm(0), x[0]), x[0]), s);
    case LANG_BI_MIN: case LANG_BI_FMIN: return minmax(cg, false, s, x[0], x[1]);
    case LANG_BI_MAX: case LANG_BI_FMAX: return minmax(cg, true, s, x[0], x[1]);
    case LANG_BI_CLAMP: return minmax(cg, false, s, minmax(cg, true, s, x[0], x[1]), x[2]);
    case LANG_BI_SATURATE: {
        IsaOperand d = op1(cg, h ? ISA_OP_FMOV16 : ISA_OP_FMOV32, w, x[0]);
        cg->ir->insts[cg->ir->count - 1].inst.flags = ISA_INST_SAT;
        return d;
    }
    case LANG_BI_MIX:
        return fop(cg, s, LND_ADD, x[0], fop(cg, s, LND_MUL, fop(cg, s, LND_SUB, x[1], x[0]), x[2]));
    case LANG_BI_STEP:
        return sel(cg, h ? ISA_OP_FCMPSEL16 : ISA_OP_FCMPSEL32, ISA_COND_LT, w, x[1], x[0],
                   fimm(s, 0), fimm(s, 1));
    case LANG_BI_SMOOTHSTEP: {
        IsaOperand t = fop(cg, s, LND_DIV, fop(cg, s, LND_SUB, x[2], x[0]),
                           fop(cg, s, LND_SUB, x[1], x[0]));
        t = minmax(cg, false, s, minmax(cg, true, s, t, fimm(s, 0)), fimm(s, 1));
        IsaOperand k = fop(cg, s, LND_SUB, fimm(s, 3), fop(cg, s, LND_MUL, fimm(s, 2), t));
        return fop(cg, s, LND_MUL, fop(cg, s, LND_MUL, t, t), k);
    }
    case LANG_BI_SIGN: {
        IsaOpcode op = h ? ISA_OP_FCMPSEL16 : ISA_OP_FCMPSEL32;
        IsaOperand r = sel(cg, op, ISA_COND_LT, w, x[0], fimm(s, 0), fimm(s, -1), x[0]);
        r = sel(cg, op, ISA_COND_GT, w, x[0], fimm(s, 0), fimm(s, 1), r);
        /* NaN gives 0 */
        return sel(cg, op, ISA_COND_EQ, w, x[0], x[0], r, fimm(s, 0));
    }
    case LANG_BI_FMIN3: case LANG_BI_MIN3:
        return minmax(cg, false, s, minmax(cg, false, s, x[0], x[1]), x[2]);
    case LANG_BI_FMAX3: case LANG_BI_MAX3:
        return minmax(cg, true, s, minmax(cg, true, s, x[0], x[1]), x[2]);
    case LANG_BI_FMEDIAN3: case LANG_BI_MEDIAN3: /* max(min(x, y), min(max(x, y), z)) */
        return minmax(cg, true, s, minmax(cg, false, s, x[0], x[1]),
                      minmax(cg, false, s, minmax(cg, true, s, x[0], x[1]), x[2]));
    default:
        cg_error(cg, node->tok, "this function is not supported for these argument types");
    }
}

static bool is_math(LangBuiltin b)
{
    return (b >= LANG_BI_FLOOR && b <= LANG_BI_MEDIAN3) || b == LANG_BI_SMOOTHSTEP ||
           b == LANG_BI_MIX || b == LANG_BI_SIGN || b == LANG_BI_STEP || b == LANG_BI_FMIN ||
           b == LANG_BI_FMAX || b == LANG_BI_ABS || b == LANG_BI_FABS || b == LANG_BI_MIN ||
           b == LANG_BI_MAX || b == LANG_BI_CLAMP || b == LANG_BI_SATURATE;
}

/* ---- integer functions ---------------------------------------------------------------------- */

static int bits_of(LangType *s) { return s->size * 8; }

static IsaOperand mask_bits(LangCg *cg, LangType *s, IsaOperand a)
{
    if (bits_of(s) >= 32)
        return a;
    return op2(cg, ISA_OP_AND, 32, a, lang_cg_imm((1u << bits_of(s)) - 1));
}

static IsaOperand integer_fn(LangCg *cg, LangBuiltin b, LangType *s, IsaOperand *x, LangNode *node)
{
    int bits = bits_of(s);
    bool u = lang_is_unsigned(s);
    if (bits > 32)
        return cg_int64_fn(cg, b, s, x, node);
    switch (b) {
    case LANG_BI_CLZ: {
        IsaOperand c = op1(cg, ISA_OP_CLZ, 32, mask_bits(cg, s, x[0]));
        return bits < 32 ? op2(cg, ISA_OP_ISUB, 32, c, lang_cg_imm((uint32_t)(32 - bits))) : c;
    }
    case LANG_BI_CTZ: {
        IsaOperand c = op1(cg, ISA_OP_FFS, 32, x[0]);
        return bits < 32 ? minmax(cg, false, lang_ty_uint, c, lang_cg_imm((uint32_t)bits)) : c;
    }
    case LANG_BI_POPCOUNT: return op1(cg, ISA_OP_POPCOUNT, 32, mask_bits(cg, s, x[0]));
    case LANG_BI_REVERSE_BITS: {
        IsaOperand r = op1(cg, ISA_OP_BITREV, 32, x[0]);
        if (bits < 32)
            r = op2(cg, u ? ISA_OP_LSR : ISA_OP_ASR, 32, r, lang_cg_imm((uint32_t)(32 - bits)));
        return r;
    }
    case LANG_BI_EXTRACT_BITS: {
        IsaOperand d = lang_cg_new_vreg(cg, 32);
        IsaOperand src = mask_bits(cg, s, x[0]); /* before the op: it may emit code */
        IsaInst *in = lang_cg_emit(cg, u ? ISA_OP_UBFE : ISA_OP_SBFE);
        in->opd[0] = d, in->opd[1] = src, in->opd[2] = x[1], in->opd[3] = x[2];
        return cg_normalize(cg, d, s);
    }
    case LANG_BI_INSERT_BITS: {
        IsaOperand d = lang_cg_new_vreg(cg, 32);
        IsaInst *in = lang_cg_emit(cg, ISA_OP_BFI);
        in->opd[0] = d, in->opd[1] = x[0], in->opd[2] = x[1], in->opd[3] = x[2], in->opd[4] = x[3];
        return cg_normalize(cg, d, s);
    }
    case LANG_BI_MULHI:
        if (bits < 32)
            return cg_normalize(cg, op2(cg, ISA_OP_ASR, 32, op2(cg, ISA_OP_IMUL, 32, x[0], x[1]),
                                        lang_cg_imm((uint32_t)bits)), s);
        return op2(cg, u ? ISA_OP_UMULHI : ISA_OP_SMULHI, 32, x[0], x[1]);
    case LANG_BI_MUL24: return cg_normalize(cg, op2(cg, ISA_OP_IMUL, 32, x[0], x[1]), s);
    case LANG_BI_MAD24: {
        IsaOperand d = lang_cg_new_vreg(cg, 32);
        IsaInst *in = lang_cg_emit(cg, ISA_OP_IMAD);
        in->opd[0] = d, in->opd[1] = x[0], in->opd[2] = x[1], in->opd[3] = x[2];
        return cg_normalize(cg, d, s);
    }
    case LANG_BI_ROTATE: {
        IsaOperand v = mask_bits(cg, s, x[0]);
        IsaOperand k = op2(cg, ISA_OP_UREM, 32, mask_bits(cg, s, x[1]), lang_cg_imm((uint32_t)bits));
        IsaOperand l = op2(cg, ISA_OP_SHL, 32, v, k);
        IsaOperand rk = op2(cg, ISA_OP_ISUB, 32, lang_cg_imm((uint32_t)bits), k);
        IsaOperand r = op2(cg, ISA_OP_LSR, 32, v, rk);
        /* k == 0: the right shift by `bits` must give 0 (lsr masks the count) */
        r = sel(cg, ISA_OP_ICMPSEL, ISA_COND_EQ, 32, k, lang_cg_imm(0), lang_cg_imm(0), r);
        return cg_normalize(cg, op2(cg, ISA_OP_OR, 32, l, r), s);
    }
    case LANG_BI_ABSDIFF: {
        IsaOperand hi = minmax(cg, true, s, x[0], x[1]), lo = minmax(cg, false, s, x[0], x[1]);
        IsaOperand d = op2(cg, ISA_OP_ISUB, 32, hi, lo);
        return bits < 32 ? mask_bits(cg, s, d) : d; /* the result type is unsigned */
    }
    case LANG_BI_ADDSAT: case LANG_BI_SUBSAT: {
        bool add = b == LANG_BI_ADDSAT;
        IsaOperand r = op2(cg, add ? ISA_OP_IADD : ISA_OP_ISUB, 32, x[0], x[1]);
        if (bits < 32) { /* exact in 32 bits: clamp to the type's range */
            int64_t lo = u ? 0 : -(INT64_C(1) << (bits - 1));
            int64_t hi = u ? (INT64_C(1) << bits) - 1 : (INT64_C(1) << (bits - 1)) - 1;
            r = minmax(cg, true, lang_ty_int, r, lang_cg_imm((uint32_t)lo));
            return minmax(cg, false, lang_ty_int, r, lang_cg_imm((uint32_t)hi));
        }
        if (u)
            return add ? sel(cg, ISA_OP_ICMPSEL, ISA_COND_ULT, 32, r, x[0], lang_cg_imm(0xffffffffu), r)
                       : sel(cg, ISA_OP_ICMPSEL, ISA_COND_UGT, 32, x[1], x[0], lang_cg_imm(0), r);
        /* signed overflow: the operands' signs (b negated for sub) agree and r's differs */
        IsaOperand t1 = op2(cg, ISA_OP_XOR, 32, x[0], r);
        IsaOperand t2 = op2(cg, ISA_OP_XOR, 32, x[1], r);
        if (!add)
            t2 = op1(cg, ISA_OP_NOT, 32, t2);
        IsaOperand ov = op2(cg, ISA_OP_AND, 32, t1, t2);
        IsaOperand satv = sel(cg, ISA_OP_ICMPSEL, ISA_COND_SLT, 32, x[0], lang_cg_imm(0),
                              lang_cg_imm(0x80000000u), lang_cg_imm(0x7fffffffu));
        return sel(cg, ISA_OP_ICMPSEL, ISA_COND_SLT, 32, ov, lang_cg_imm(0), satv, r);
    }
    case LANG_BI_MADHI: { /* mulhi(a, b) + c, wrapping in T */
        IsaOperand hi = bits < 32 ? op2(cg, ISA_OP_ASR, 32, op2(cg, ISA_OP_IMUL, 32, x[0], x[1]),
                                        lang_cg_imm((uint32_t)bits))
                                  : op2(cg, u ? ISA_OP_UMULHI : ISA_OP_SMULHI, 32, x[0], x[1]);
        return cg_normalize(cg, op2(cg, ISA_OP_IADD, 32, hi, x[2]), s);
    }
    case LANG_BI_MADSAT: { /* a * b + c, exact, then clamped to T's range */
        if (bits < 32) { /* exact in 32 bits (|a * b| < 2^30 + |c|) */
            IsaOperand r = op2(cg, ISA_OP_IADD, 32, op2(cg, ISA_OP_IMUL, 32, x[0], x[1]), x[2]);
            int64_t lo = u ? 0 : -(INT64_C(1) << (bits - 1));
            int64_t hi = u ? (INT64_C(1) << bits) - 1 : (INT64_C(1) << (bits - 1)) - 1;
            r = minmax(cg, true, lang_ty_int, r, lang_cg_imm((uint32_t)lo));
            return minmax(cg, false, lang_ty_int, r, lang_cg_imm((uint32_t)hi));
        }
        LangType *wide = u ? lang_ty_ulong : lang_ty_long;
        IsaOperand w[3];
        for (int i = 0; i < 3; i++)
            w[i] = cg_convert(cg, x[i], s, wide);
        IsaOperand r = op2(cg, ISA_OP_IADD64, 64, op2(cg, ISA_OP_IMUL64, 64, w[0], w[1]), w[2]);
        /* icmpsel64 compares 64 bits and selects 32: the low half, or the bound */
        IsaOperand res = cg_convert(cg, r, wide, s);
        uint64_t hi = u ? (UINT64_C(1) << bits) - 1 : (UINT64_C(1) << (bits - 1)) - 1;
        res = sel(cg, ISA_OP_ICMPSEL64, u ? ISA_COND_UGT : ISA_COND_SGT, 32, r, lang_cg_imm(hi),
                  lang_cg_imm((uint32_t)hi), res);
        if (!u)
            res = sel(cg, ISA_OP_ICMPSEL64, ISA_COND_SLT, 32, r, lang_cg_imm(~hi),
                      lang_cg_imm((uint32_t)~hi), res);
        return res;
    }
    case LANG_BI_HADD: case LANG_BI_RHADD: {
        IsaOpcode sh = u ? ISA_OP_LSR : ISA_OP_ASR;
        IsaOperand s1 = op2(cg, ISA_OP_IADD, 32, op2(cg, sh, 32, x[0], lang_cg_imm(1)),
                            op2(cg, sh, 32, x[1], lang_cg_imm(1)));
        IsaOperand c = op2(cg, b == LANG_BI_HADD ? ISA_OP_AND : ISA_OP_OR, 32, x[0], x[1]);
        return cg_normalize(cg, op2(cg, ISA_OP_IADD, 32, s1, op2(cg, ISA_OP_AND, 32, c, lang_cg_imm(1))), s);
    }
    default:
        cg_error(cg, node->tok, "unsupported integer function");
    }
}

/* ---- relational ------------------------------------------------------------------------------ */

/* isordered / isunordered: 1 where neither / either of a, b is NaN */
static IsaOperand ordered(LangCg *cg, bool want, IsaOperand a, IsaOperand b)
{
    IsaOperand yes = lang_cg_imm(want), no = lang_cg_imm(!want);
    IsaOperand r = sel(cg, ISA_OP_FCMPSEL32, ISA_COND_NE, 32, b, b, no, yes);
    return sel(cg, ISA_OP_FCMPSEL32, ISA_COND_NE, 32, a, a, no, r);
}

static IsaOperand relational(LangCg *cg, LangBuiltin b, LangType *s, IsaOperand a,
                             IsaOperand a2)
{
    if (s->kind == LTY_HALF) {
        a = cvt_to(cg, a, ISA_TYPE_F32, ISA_TYPE_F16, 32);
        if (b == LANG_BI_ISORDERED || b == LANG_BI_ISUNORDERED)
            a2 = cvt_to(cg, a2, ISA_TYPE_F32, ISA_TYPE_F16, 32);
    }
    if (b == LANG_BI_ISORDERED || b == LANG_BI_ISUNORDERED)
        return ordered(cg, b == LANG_BI_ISORDERED, a, a2);
    IsaOperand abs = a; /* in a register of its own: fcmpsel takes no source modifiers */
    if (abs.kind == ISA_OPD_IMM) {
        abs.imm &= 0x7fffffffu;
    } else {
        abs.flags = ISA_OPD_ABS;
        abs = op1(cg, ISA_OP_FMOV32, 32, abs);
    }
    IsaOperand inf = lang_cg_imm(0x7f800000u);
    switch (b) {
    case LANG_BI_ISNAN: return sel(cg, ISA_OP_FCMPSEL32, ISA_COND_NE, 32, a, a, lang_cg_imm(1), lang_cg_imm(0));
    case LANG_BI_ISINF: return sel(cg, ISA_OP_FCMPSEL32, ISA_COND_EQ, 32, abs, inf, lang_cg_imm(1), lang_cg_imm(0));
    case LANG_BI_ISFINITE: return sel(cg, ISA_OP_FCMPSEL32, ISA_COND_LT, 32, abs, inf, lang_cg_imm(1), lang_cg_imm(0));
    case LANG_BI_ISNORMAL: { /* the smallest normal of the argument's own format and up */
        IsaOperand lo = lang_cg_imm_f32(s->kind == LTY_HALF ? 0x1p-14f : 0x1p-126f);
        IsaOperand r = sel(cg, ISA_OP_FCMPSEL32, ISA_COND_LT, 32, abs, inf, lang_cg_imm(1), lang_cg_imm(0));
        return sel(cg, ISA_OP_FCMPSEL32, ISA_COND_GE, 32, abs, lo, r, lang_cg_imm(0));
    }
    default: return op2(cg, ISA_OP_LSR, 32, a, lang_cg_imm(31)); /* SIGNBIT */
    }
}

/* ---- geometric --------------------------------------------------------------------------------- */

static IsaOperand dot(LangCg *cg, LangType *s, CgVal a, CgVal b)
{
    IsaOperand acc = fop(cg, s, LND_MUL, a.c[0], b.c[0]);
    for (int i = 1; i < a.n; i++)
        acc = fop(cg, s, LND_ADD, acc, fop(cg, s, LND_MUL, a.c[i], b.c[i]));
    return acc;
}

static IsaOperand sqrt_of(LangCg *cg, LangType *s, IsaOperand x, LangNode *node)
{
    IsaOperand d = lang_cg_new_vreg(cg, s->kind == LTY_HALF ? 16 : 32);
    if (!lang_cg_math(cg, LANG_BI_SQRT, d, &x, 1, s->kind == LTY_HALF, node->fast_math))
        cg_error(cg, node->tok, "sqrt is not available");
    return d;
}

/* ---- atomics ----------------------------------------------------------------------------------- */

/* known: the object's address when the call names it (`&bins[i]`): its array stays the base,
 * so the simulator bounds the index by that array (else the pointer's value is the base). */
static CgVal atomic_fn(LangCg *cg, LangNode *node, CgVal *args, const CgAddr *known)
{
    LangBuiltin b = node->builtin;
    CgVal p = args[0];
    if (p.ref || p.type->kind != LTY_POINTER)
        cg_error(cg, node->tok, "an atomic operation needs an atomic object in device or threadgroup memory");
    LangType *vt = p.type->base->kind == LTY_ATOMIC ? p.type->base->base : p.type->base;
    CgAddr a = known ? *known : cg_addr_of_pointer(cg, p);
    bool dev = a.space == LAS_DEVICE;
    if (!dev && a.space != LAS_THREADGROUP)
        cg_error(cg, node->tok, "atomics work on device or threadgroup memory");
    IsaType it = vt->kind == LTY_FLOAT ? ISA_TYPE_F32 : lang_is_unsigned(vt) ? ISA_TYPE_U32 : ISA_TYPE_S32;
    IsaOperand index = cg_elem_index(cg, &a, 4);
    CgVal r = cg_val_new(cg, node->type, 1);
    if (b == LANG_BI_ATOMIC_CMPXCHG_WEAK) {
        if (it == ISA_TYPE_F32)
            cg_error(cg, node->tok, "compare-exchange on atomic_float is not supported");
        CgVal ep = args[1];
        CgLval *elv;
        CgLval tmp = {0};
        if (ep.ref) {
            elv = ep.ref;
        } else {
            tmp.kind = LV_MEM;
            tmp.type = vt;
            tmp.addr = cg_addr_of_pointer(cg, ep);
            elv = &tmp;
        }
        elv->type = vt;
        IsaOperand expected = cg_to_reg(cg, cg_load(cg, elv).c[0], 32);
        IsaOperand old = lang_cg_new_vreg(cg, 32);
        IsaOperand desired = cg_to_reg(cg, args[2].c[0], 32); /* before the op: it may emit a mov */
        IsaInst *in = lang_cg_emit(cg, dev ? ISA_OP_CMPXCHG_DEV : ISA_OP_CMPXCHG_TG);
        in->type = (uint8_t)it;
        in->opd[0] = old, in->opd[1] = a.base, in->opd[2] = index, in->opd[3] = expected;
        in->opd[4] = desired;
        IsaOperand ok = sel(cg, ISA_OP_ICMPSEL, ISA_COND_EQ, 32, old, expected, lang_cg_imm(1), lang_cg_imm(0));
        CgVal nv = cg_val_new(cg, vt, 1);
        nv.c[0] = old;
        cg_store(cg, elv, nv); /* equal when it succeeded */
        r.c[0] = ok;
        return r;
    }
    IsaAtomicOp op;
    IsaOperand v = b == LANG_BI_ATOMIC_LOAD ? lang_cg_imm(0) : args[1].c[0];
    switch (b) {
    case LANG_BI_ATOMIC_LOAD: op = ISA_ATOM_OR; break;
    case LANG_BI_ATOMIC_STORE: case LANG_BI_ATOMIC_EXCHANGE: op = ISA_ATOM_XCHG; break;
    case LANG_BI_ATOMIC_FETCH_ADD: op = ISA_ATOM_ADD; break;
    case LANG_BI_ATOMIC_FETCH_SUB: op = ISA_ATOM_SUB; break;
    case LANG_BI_ATOMIC_FETCH_MIN: op = ISA_ATOM_MIN; break;
    case LANG_BI_ATOMIC_FETCH_MAX: op = ISA_ATOM_MAX; break;
    case LANG_BI_ATOMIC_FETCH_AND: op = ISA_ATOM_AND; break;
    case LANG_BI_ATOMIC_FETCH_OR: op = ISA_ATOM_OR; break;
    default: op = ISA_ATOM_XOR; break;
    }
    if (b == LANG_BI_ATOMIC_LOAD && it == ISA_TYPE_F32)
        it = ISA_TYPE_U32; /* the bits, or 0: x + -0 would write back a NaN made quiet */
    if (it == ISA_TYPE_F32 && op != ISA_ATOM_ADD && op != ISA_ATOM_XCHG)
        cg_error(cg, node->tok, "atomic_float supports load, store, exchange and fetch_add only");
    IsaOperand old = lang_cg_new_vreg(cg, 32);
    IsaInst *in = lang_cg_emit(cg, dev ? ISA_OP_ATOM_DEV : ISA_OP_ATOM_TG);
    in->cond = (uint8_t)op;
    in->type = (uint8_t)it;
    in->opd[0] = old, in->opd[1] = a.base, in->opd[2] = index, in->opd[3] = v;
    r.c[0] = old;
    if (b == LANG_BI_ATOMIC_STORE)
        r.n = 0;
    return r;
}

/* ---- SIMD-group and quad-group functions ----------------------------------------------------------- */

IsaOperand cg_lane_id(LangCg *cg)
{
    IsaOperand d = lang_cg_new_vreg(cg, 32);
    IsaInst *in = lang_cg_emit(cg, ISA_OP_GET_SR);
    in->opd[0] = d;
    in->opd[1].kind = ISA_OPD_SR;
    in->opd[1].index = ISA_SR_THREAD_INDEX_IN_SIMDGROUP;
    return d;
}

static IsaOperand ballot(LangCg *cg, IsaCond c, IsaOperand a, IsaOperand b)
{
    IsaOperand d = lang_cg_new_vreg(cg, 32);
    IsaInst *in = lang_cg_emit(cg, ISA_OP_ICMP_BALLOT);
    in->cond = (uint8_t)c;
    in->opd[0] = d, in->opd[1] = a, in->opd[2] = b;
    return d;
}

static IsaOperand active_mask(LangCg *cg)
{
    return ballot(cg, ISA_COND_EQ, lang_cg_imm(0), lang_cg_imm(0));
}

/* The 4 bits of this lane's quad, shifted down. */
static IsaOperand quad_bits(LangCg *cg, IsaOperand mask)
{
    IsaOperand base = op2(cg, ISA_OP_AND, 32, cg_lane_id(cg), lang_cg_imm(~3u));
    return op2(cg, ISA_OP_AND, 32, op2(cg, ISA_OP_LSR, 32, mask, base), lang_cg_imm(0xf));
}

/* A ballot or mask as the simd_vote (its ulong) or quad_vote (its uint) the call returns. */
static CgVal mask_result(LangCg *cg, LangNode *node, IsaOperand m)
{
    CgVal r = cg_val_new(cg, node->type, 1);
    r.c[0] = node->type->vote == LANG_VOTE_SIMD ? cvt_to(cg, m, ISA_TYPE_U64, ISA_TYPE_U32, 64)
                                                : m;
    return r;
}

/* v.all(): every lane of the SIMD-group (its 32 bits) or quad (bits 0-3) set, whatever is
 * active (MSL: unlike simd_all); v.any(): one of them set. */
static CgVal vote_member(LangCg *cg, LangNode *node, CgVal v)
{
    bool simd = v.type->vote == LANG_VOTE_SIMD;
    IsaOperand bits = simd ? cvt_to(cg, v.c[0], ISA_TYPE_U32, ISA_TYPE_U64, 32)
                           : op2(cg, ISA_OP_AND, 32, v.c[0], lang_cg_imm(0xf));
    IsaOperand full = lang_cg_imm(simd ? 0xffffffffu : 0xfu);
    CgVal r = cg_val_new(cg, node->type, 1);
    r.c[0] = node->builtin == LANG_BI_VOTE_ALL
                 ? sel(cg, ISA_OP_ICMPSEL, ISA_COND_EQ, 32, bits, full, lang_cg_imm(1), lang_cg_imm(0))
                 : sel(cg, ISA_OP_ICMPSEL, ISA_COND_NE, 32, bits, lang_cg_imm(0), lang_cg_imm(1),
                       lang_cg_imm(0));
    return r;
}

static IsaOpcode shuffle_op(LangBuiltin b)
{
    switch (b) {
    case LANG_BI_SIMD_SHUFFLE: return ISA_OP_SHFL;
    case LANG_BI_SIMD_SHUFFLE_UP: return ISA_OP_SHFL_UP;
    case LANG_BI_SIMD_SHUFFLE_DOWN: return ISA_OP_SHFL_DOWN;
    case LANG_BI_SIMD_SHUFFLE_XOR: return ISA_OP_SHFL_XOR;
    case LANG_BI_SIMD_SHUFFLE_ROTATE_UP: return ISA_OP_SHFL_ROT_UP;
    case LANG_BI_SIMD_SHUFFLE_ROTATE_DOWN: return ISA_OP_SHFL_ROT_DOWN;
    case LANG_BI_SIMD_BROADCAST: return ISA_OP_BCAST;
    case LANG_BI_QUAD_SHUFFLE: return ISA_OP_QSHFL;
    case LANG_BI_QUAD_SHUFFLE_UP: return ISA_OP_QSHFL_UP;
    case LANG_BI_QUAD_SHUFFLE_DOWN: return ISA_OP_QSHFL_DOWN;
    case LANG_BI_QUAD_SHUFFLE_XOR: return ISA_OP_QSHFL_XOR;
    case LANG_BI_QUAD_SHUFFLE_ROTATE_UP: return ISA_OP_QSHFL_ROT_UP;
    case LANG_BI_QUAD_SHUFFLE_ROTATE_DOWN: return ISA_OP_QSHFL_ROT_DOWN;
    case LANG_BI_QUAD_BROADCAST: return ISA_OP_QBCAST;
    default: return ISA_OP_COUNT;
    }
}

static bool reduce_op(LangBuiltin b, IsaOpcode *op, IsaReduceOp *r, int *prefix)
{
    *prefix = -1;
    switch (b) {
    case LANG_BI_SIMD_SUM: *op = ISA_OP_SIMD_RED; *r = ISA_RED_SUM; return true;
    case LANG_BI_SIMD_PRODUCT: *op = ISA_OP_SIMD_RED; *r = ISA_RED_PRODUCT; return true;
    case LANG_BI_SIMD_MIN: *op = ISA_OP_SIMD_RED; *r = ISA_RED_MIN; return true;
    case LANG_BI_SIMD_MAX: *op = ISA_OP_SIMD_RED; *r = ISA_RED_MAX; return true;
    case LANG_BI_SIMD_AND: *op = ISA_OP_SIMD_RED; *r = ISA_RED_AND; return true;
    case LANG_BI_SIMD_OR: *op = ISA_OP_SIMD_RED; *r = ISA_RED_OR; return true;
    case LANG_BI_SIMD_XOR: *op = ISA_OP_SIMD_RED; *r = ISA_RED_XOR; return true;
    case LANG_BI_QUAD_SUM: *op = ISA_OP_QUAD_RED; *r = ISA_RED_SUM; return true;
    case LANG_BI_QUAD_PRODUCT: *op = ISA_OP_QUAD_RED; *r = ISA_RED_PRODUCT; return true;
    case LANG_BI_QUAD_MIN: *op = ISA_OP_QUAD_RED; *r = ISA_RED_MIN; return true;
    case LANG_BI_QUAD_MAX: *op = ISA_OP_QUAD_RED; *r = ISA_RED_MAX; return true;
    case LANG_BI_QUAD_AND: *op = ISA_OP_QUAD_RED; *r = ISA_RED_AND; return true;
    case LANG_BI_QUAD_OR: *op = ISA_OP_QUAD_RED; *r = ISA_RED_OR; return true;
    case LANG_BI_QUAD_XOR: *op = ISA_OP_QUAD_RED; *r = ISA_RED_XOR; return true;
    case LANG_BI_SIMD_PREFIX_INCLUSIVE_SUM: *op = ISA_OP_SIMD_PREFIX; *r = ISA_RED_SUM; *prefix = 1; return true;
    case LANG_BI_SIMD_PREFIX_EXCLUSIVE_SUM: *op = ISA_OP_SIMD_PREFIX; *r = ISA_RED_SUM; *prefix = 0; return true;
    case LANG_BI_SIMD_PREFIX_INCLUSIVE_PRODUCT: *op = ISA_OP_SIMD_PREFIX; *r = ISA_RED_PRODUCT; *prefix = 1; return true;
    case LANG_BI_SIMD_PREFIX_EXCLUSIVE_PRODUCT: *op = ISA_OP_SIMD_PREFIX; *r = ISA_RED_PRODUCT; *prefix = 0; return true;
    case LANG_BI_QUAD_PREFIX_INCLUSIVE_SUM: *op = ISA_OP_QUAD_PREFIX; *r = ISA_RED_SUM; *prefix = 1; return true;
    case LANG_BI_QUAD_PREFIX_EXCLUSIVE_SUM: *op = ISA_OP_QUAD_PREFIX; *r = ISA_RED_SUM; *prefix = 0; return true;
    case LANG_BI_QUAD_PREFIX_INCLUSIVE_PRODUCT: *op = ISA_OP_QUAD_PREFIX; *r = ISA_RED_PRODUCT; *prefix = 1; return true;
    case LANG_BI_QUAD_PREFIX_EXCLUSIVE_PRODUCT: *op = ISA_OP_QUAD_PREFIX; *r = ISA_RED_PRODUCT; *prefix = 0; return true;
    default: return false;
    }
}

/* One 32-bit reduction or prefix op (prefix < 0: a reduction) over src. */
static IsaOperand reduce32(LangCg *cg, IsaOpcode op, IsaReduceOp red, IsaType t, int prefix,
                           IsaOperand src)
{
    IsaOperand d = lang_cg_new_vreg(cg, 32);
    src = cg_to_reg(cg, src, 32); /* before the op: it may emit a mov */
    IsaInst *in = lang_cg_emit(cg, op);
    in->cond = (uint8_t)red;
    in->type = (uint8_t)t;
    if (prefix >= 0)
        in->count = (uint8_t)prefix;
    in->opd[0] = d;
    in->opd[1] = src;
    return d;
}

/* One 32-bit shuffle or broadcast (lane unused by bcast_first). */
static IsaOperand shuffle32(LangCg *cg, IsaOpcode op, IsaOperand src, IsaOperand lane)
{
    IsaOperand d = lang_cg_new_vreg(cg, 32);
    src = cg_to_reg(cg, src, 32);
    IsaInst *in = lang_cg_emit(cg, op);
    in->opd[0] = d;
    in->opd[1] = src;
    if (op != ISA_OP_BCAST_FIRST)
        in->opd[2] = lane;
    return d;
}

/* A 64-bit value as its two 32-bit words, and back. */
static void split64(LangCg *cg, IsaOperand v, IsaOperand *lo, IsaOperand *hi)
{
    if (v.kind == ISA_OPD_IMM) {
        *lo = lang_cg_imm((uint32_t)v.imm);
        *hi = lang_cg_imm((uint32_t)(v.imm >> 32));
        return;
    }
    *lo = cvt_to(cg, v, ISA_TYPE_U32, ISA_TYPE_U64, 32);
    *hi = cvt_to(cg, op2(cg, ISA_OP_LSR64, 64, v, lang_cg_imm(32)), ISA_TYPE_U32, ISA_TYPE_U64, 32);
}

static IsaOperand join64(LangCg *cg, IsaOperand lo, IsaOperand hi)
{
    if (lo.kind == ISA_OPD_IMM && hi.kind == ISA_OPD_IMM)
        return lang_cg_imm((uint64_t)(uint32_t)hi.imm << 32 | (uint32_t)lo.imm);
    IsaOperand h = op2(cg, ISA_OP_SHL64, 64, cvt_to(cg, hi, ISA_TYPE_U64, ISA_TYPE_U32, 64),
                       lang_cg_imm(32));
    if (lo.kind == ISA_OPD_IMM && (uint32_t)lo.imm == 0)
        return h;
    return op2(cg, ISA_OP_OR64, 64, h, cvt_to(cg, lo, ISA_TYPE_U64, ISA_TYPE_U32, 64));
}

/* SIMD-group and quad functions on one long/ulong component, from 32-bit ops on its words:
 * shuffles move both words; and/or/xor reduce each word; a sum adds the high words and the
 * two 16-bit halves of the low words separately (each partial sum fits in 32 bits, so the
 * recombination is exact mod 2^64); min/max reduce the high words, then the low words of
 * only the lanes whose high word won (the others give the neutral 0 or 0xffffffff);
 * products have no such split and go lane by lane (cg_product64). */
static IsaOperand simd64(LangCg *cg, bool is_red, IsaOpcode op, IsaReduceOp red, int prefix,
                         LangType *s, IsaOperand v, IsaOperand lane)
{
    if (is_red && red == ISA_RED_PRODUCT)
        return cg_product64(cg, op == ISA_OP_QUAD_RED || op == ISA_OP_QUAD_PREFIX, prefix, v);
    IsaOperand lo, hi;
    split64(cg, v, &lo, &hi);
    if (!is_red)
        return join64(cg, shuffle32(cg, op, lo, lane), shuffle32(cg, op, hi, lane));
    bool u = lang_is_unsigned(s);
    switch (red) {
    case ISA_RED_AND: case ISA_RED_OR: case ISA_RED_XOR:
        return join64(cg, reduce32(cg, op, red, ISA_TYPE_U32, prefix, lo),
                      reduce32(cg, op, red, ISA_TYPE_U32, prefix, hi));
    case ISA_RED_SUM: {
        IsaOperand s0 = reduce32(cg, op, red, ISA_TYPE_U32, prefix,
                                 op2(cg, ISA_OP_AND, 32, lo, lang_cg_imm(0xffff)));
        IsaOperand s1 = reduce32(cg, op, red, ISA_TYPE_U32, prefix,
                                 op2(cg, ISA_OP_LSR, 32, lo, lang_cg_imm(16)));
        IsaOperand sh = reduce32(cg, op, red, ISA_TYPE_U32, prefix, hi);
        IsaOperand mid = op2(cg, ISA_OP_SHL64, 64, cvt_to(cg, s1, ISA_TYPE_U64, ISA_TYPE_U32, 64),
                             lang_cg_imm(16));
        IsaOperand low = op2(cg, ISA_OP_IADD64, 64, mid, cvt_to(cg, s0, ISA_TYPE_U64, ISA_TYPE_U32, 64));
        return op2(cg, ISA_OP_IADD64, 64, join64(cg, lang_cg_imm(0), sh), low);
    }
    default: /* ISA_RED_MIN, ISA_RED_MAX */ {
        IsaOperand mh = reduce32(cg, op, red, u ? ISA_TYPE_U32 : ISA_TYPE_S32, prefix, hi);
        IsaOperand neutral = lang_cg_imm(red == ISA_RED_MAX ? 0 : 0xffffffffu);
        IsaOperand l2 = sel(cg, ISA_OP_ICMPSEL, ISA_COND_EQ, 32, hi, mh, lo, neutral);
        return join64(cg, reduce32(cg, op, red, ISA_TYPE_U32, prefix, l2), mh);
    }
    }
}

/* One component of any scalar type shuffled from lane `lane` (shfl). */
static IsaOperand shuffle_any(LangCg *cg, LangNode *node, LangType *s, IsaOperand v,
                              IsaOperand lane)
{
    int w = cg_width_of(s);
    if (w == 64) {
        if (!lang_is_integer(s))
            cg_error(cg, node->tok, "SIMD-group functions do not take pointers");
        return simd64(cg, false, ISA_OP_SHFL, ISA_RED_SUM, -1, s, v, lane);
    }
    if (cg_is_int16(s))
        return cg_narrow16(cg, shuffle32(cg, ISA_OP_SHFL, cg_widen16(cg, v, s), lane), s);
    if (w == 16) /* a half, through f32: exact both ways */
        return cvt_to(cg, shuffle32(cg, ISA_OP_SHFL, cvt_to(cg, v, ISA_TYPE_F32, ISA_TYPE_F16, 32),
                                    lane), ISA_TYPE_F16, ISA_TYPE_F32, 16);
    return shuffle32(cg, ISA_OP_SHFL, v, lane);
}

/* simd/quad_shuffle_and_fill_up/down: the SIMD-group (or quad) is cut into vectors of
 * `modulo` lanes (32 or 4 by default; a power of two); lane i of a vector takes data from
 * i - delta (up) or i + delta (down) in its vector, and where that falls outside, the
 * filling data from the other end: both come from the same source lane, base | (i ∓ delta
 * mod modulo), so two shuffles and a select do it. */
static CgVal shuffle_fill(LangCg *cg, LangNode *node, CgVal *args, int na)
{
    LangBuiltin b = node->builtin;
    bool up = b == LANG_BI_SIMD_SHUFFLE_AND_FILL_UP || b == LANG_BI_QUAD_SHUFFLE_AND_FILL_UP;
    bool quad = b == LANG_BI_QUAD_SHUFFLE_AND_FILL_UP || b == LANG_BI_QUAD_SHUFFLE_AND_FILL_DOWN;
    IsaOperand delta = cg_convert(cg, args[2].c[0], args[2].type, lang_ty_uint);
    IsaOperand mod = na > 3 ? cg_convert(cg, args[3].c[0], args[3].type, lang_ty_uint)
                            : lang_cg_imm(quad ? 4 : 32);
    const uint32_t width = quad ? 4 : 32;
    if (mod.kind == ISA_OPD_IMM && (mod.imm == 0 || mod.imm > width || (mod.imm & (mod.imm - 1))))
        cg_error(cg, node->args->next->next->next->tok,
                 quad ? "the modulo of a quad shuffle-and-fill must be 1, 2 or 4"
                      : "the modulo of a SIMD shuffle-and-fill must be a power of two up to 32");
    const char *fn = quad ? (up ? "quad_shuffle_and_fill_up" : "quad_shuffle_and_fill_down")
                          : (up ? "simd_shuffle_and_fill_up" : "simd_shuffle_and_fill_down");
    LangIr *ir = cg->ir;
    IsaOperand lane = cg_lane_id(cg);
    IsaOperand mask = op2(cg, ISA_OP_ISUB, 32, mod, lang_cg_imm(1));
    /* a modulo known at run time only: the checkers see it at this isub (simd.c) */
    LangIrInst *sub = ir->count ? &ir->insts[ir->count - 1] : NULL;
    if (mod.kind != ISA_OPD_IMM && sub && sub->label < 0 && sub->inst.op == ISA_OP_ISUB &&
        sub->inst.opd[1].kind == mod.kind && sub->inst.opd[1].index == mod.index) {
        sub->part_of = fn;
        sub->modulo_opd = 1;
        sub->modulo_width = (uint8_t)width;
    }
    IsaOperand i = op2(cg, ISA_OP_AND, 32, lane, mask);
    IsaOperand j = op2(cg, up ? ISA_OP_ISUB : ISA_OP_IADD, 32, i, delta);
    IsaOperand src = op2(cg, ISA_OP_OR, 32, op2(cg, ISA_OP_ISUB, 32, lane, i),
                         op2(cg, ISA_OP_AND, 32, j, mask));
    IsaOperand from_data = up ? sel(cg, ISA_OP_ICMPSEL, ISA_COND_UGE, 32, i, delta,
                                    lang_cg_imm(1), lang_cg_imm(0))
                              : sel(cg, ISA_OP_ICMPSEL, ISA_COND_ULT, 32, j, mod,
                                    lang_cg_imm(1), lang_cg_imm(0));
    int n;
    CgLeaf *l = cg_leaves(cg, args[0].type, &n);
    CgVal r = cg_val_new(cg, node->type, args[0].n);
    const uint32_t first = ir->count;
    for (int k = 0; k < args[0].n && k < n; k++) {
        LangType *s = l[k].scalar;
        IsaOperand d = shuffle_any(cg, node, s, args[0].c[k], src);
        IsaOperand f = shuffle_any(cg, node, s, args[1].c[k], src);
        r.c[k] = cg_select(cg, from_data, d, f, cg_width_of(s));
    }
    /* its shuffles are the function's, for the checkers' messages */
    for (uint32_t x = first; x < ir->count; x++)
        if (ir->insts[x].label < 0 && ir->insts[x].inst.op == ISA_OP_SHFL)
            ir->insts[x].part_of = fn;
    return r;
}

static CgVal simd_fn(LangCg *cg, LangNode *node, CgVal *args, int na)
{
    LangBuiltin b = node->builtin;
    switch (b) {
    case LANG_BI_SIMD_SHUFFLE_AND_FILL_UP: case LANG_BI_SIMD_SHUFFLE_AND_FILL_DOWN:
    case LANG_BI_QUAD_SHUFFLE_AND_FILL_UP: case LANG_BI_QUAD_SHUFFLE_AND_FILL_DOWN:
        return shuffle_fill(cg, node, args, na);
    case LANG_BI_QUAD_ACTIVE_THREADS_MASK: return mask_result(cg, node, quad_bits(cg, active_mask(cg)));
    case LANG_BI_VOTE_ALL: case LANG_BI_VOTE_ANY: return vote_member(cg, node, args[0]);
    case LANG_BI_QUAD_IS_FIRST: {
        IsaOperand first = op1(cg, ISA_OP_FFS, 32, quad_bits(cg, active_mask(cg)));
        IsaOperand ql = op2(cg, ISA_OP_AND, 32, cg_lane_id(cg), lang_cg_imm(3));
        CgVal r = cg_val_new(cg, node->type, 1);
        r.c[0] = sel(cg, ISA_OP_ICMPSEL, ISA_COND_EQ, 32, ql, first, lang_cg_imm(1), lang_cg_imm(0));
        return r;
    }
    case LANG_BI_SIMD_BALLOT:
        return mask_result(cg, node, ballot(cg, ISA_COND_NE, cg_bool_of(cg, args[0].c[0], args[0].type), lang_cg_imm(0)));
    case LANG_BI_SIMD_ACTIVE_THREADS_MASK: return mask_result(cg, node, active_mask(cg));
    case LANG_BI_SIMD_ALL: case LANG_BI_SIMD_ANY: case LANG_BI_QUAD_ALL: case LANG_BI_QUAD_ANY:
    case LANG_BI_QUAD_BALLOT: {
        IsaOperand m = ballot(cg, ISA_COND_NE, cg_bool_of(cg, args[0].c[0], args[0].type), lang_cg_imm(0));
        IsaOperand act = active_mask(cg);
        bool quad = b == LANG_BI_QUAD_ALL || b == LANG_BI_QUAD_ANY || b == LANG_BI_QUAD_BALLOT;
        if (quad) {
            m = quad_bits(cg, m);
            act = quad_bits(cg, act);
        }
        if (b == LANG_BI_QUAD_BALLOT)
            return mask_result(cg, node, m);
        bool all = b == LANG_BI_SIMD_ALL || b == LANG_BI_QUAD_ALL;
        CgVal r = cg_val_new(cg, node->type, 1);
        r.c[0] = all ? sel(cg, ISA_OP_ICMPSEL, ISA_COND_EQ, 32, m, act, lang_cg_imm(1), lang_cg_imm(0))
                     : sel(cg, ISA_OP_ICMPSEL, ISA_COND_NE, 32, m, lang_cg_imm(0), lang_cg_imm(1), lang_cg_imm(0));
        return r;
    }
    case LANG_BI_SIMD_IS_FIRST: {
        IsaOperand first = op1(cg, ISA_OP_FFS, 32, active_mask(cg));
        CgVal r = cg_val_new(cg, node->type, 1);
        r.c[0] = sel(cg, ISA_OP_ICMPSEL, ISA_COND_EQ, 32, cg_lane_id(cg), first, lang_cg_imm(1), lang_cg_imm(0));
        return r;
    }
    default: break;
    }
    CgVal v = args[0];
    int n;
    CgLeaf *l = cg_leaves(cg, v.type, &n);
    CgVal r = cg_val_new(cg, node->type, v.n);
    IsaOpcode op = ISA_OP_COUNT;
    IsaReduceOp red = ISA_RED_SUM;
    int prefix;
    bool is_red = reduce_op(b, &op, &red, &prefix);
    IsaOpcode sop = shuffle_op(b);
    IsaOperand lane = {0};
    if (b == LANG_BI_QUAD_BROADCAST_FIRST) { /* shfl from the quad's first active lane */
        sop = ISA_OP_SHFL;
        lane = op2(cg, ISA_OP_IADD, 32, op2(cg, ISA_OP_AND, 32, cg_lane_id(cg), lang_cg_imm(~3u)),
                   op1(cg, ISA_OP_FFS, 32, quad_bits(cg, active_mask(cg))));
    } else if (!is_red && b != LANG_BI_SIMD_BROADCAST_FIRST) {
        if (sop == ISA_OP_COUNT)
            cg_error(cg, node->tok, "unsupported SIMD-group function");
        lane = cg_convert(cg, args[1].c[0], args[1].type, lang_ty_uint);
    }
    for (int i = 0; i < v.n && i < n; i++) {
        LangType *s = l[i].scalar;
        int w = cg_width_of(s);
        if (w == 64) {
            if (!lang_is_integer(s))
                cg_error(cg, node->tok, "SIMD-group functions do not take pointers");
            IsaOpcode sh = b == LANG_BI_SIMD_BROADCAST_FIRST ? ISA_OP_BCAST_FIRST : sop;
            r.c[i] = simd64(cg, is_red, is_red ? op : sh, red, prefix, s, v.c[i], lane);
            continue;
        }
        if (cg_is_int16(s)) { /* through the extended 32-bit value, exact both ways */
            IsaOperand x = cg_widen16(cg, v.c[i], s), d32;
            if (is_red)
                d32 = reduce32(cg, op, red, lang_is_unsigned(s) ? ISA_TYPE_U32 : ISA_TYPE_S32,
                               prefix, x);
            else
                d32 = shuffle32(cg, b == LANG_BI_SIMD_BROADCAST_FIRST ? ISA_OP_BCAST_FIRST : sop,
                                x, lane);
            r.c[i] = cg_narrow16(cg, d32, s);
            continue;
        }
        if (is_red) {
            IsaType t = s->kind == LTY_HALF ? ISA_TYPE_F16 : s->kind == LTY_FLOAT ? ISA_TYPE_F32
                        : lang_is_unsigned(s) ? ISA_TYPE_U32 : ISA_TYPE_S32;
            if (lang_is_float(s) && red >= ISA_RED_AND)
                cg_error(cg, node->tok, "bitwise reductions need integer values");
            IsaOperand d = lang_cg_new_vreg(cg, w);
            IsaOperand src = cg_to_reg(cg, v.c[i], w); /* before the op: it may emit a mov */
            IsaInst *in = lang_cg_emit(cg, op);
            in->cond = (uint8_t)red;
            in->type = (uint8_t)t;
            if (prefix >= 0)
                in->count = (uint8_t)prefix;
            in->opd[0] = d;
            in->opd[1] = src;
            r.c[i] = cg_normalize(cg, d, s);
            continue;
        }
        IsaOperand x = v.c[i];
        if (w == 16)
            x = cvt_to(cg, x, ISA_TYPE_F32, ISA_TYPE_F16, 32); /* exact both ways */
        IsaOperand d = lang_cg_new_vreg(cg, 32);
        IsaOperand src = cg_to_reg(cg, x, 32); /* before the op: it may emit a mov */
        IsaInst *in = lang_cg_emit(cg, b == LANG_BI_SIMD_BROADCAST_FIRST ? ISA_OP_BCAST_FIRST : sop);
        in->opd[0] = d;
        in->opd[1] = src;
        if (b != LANG_BI_SIMD_BROADCAST_FIRST)
            in->opd[2] = lane;
        r.c[i] = w == 16 ? cvt_to(cg, d, ISA_TYPE_F16, ISA_TYPE_F32, 16) : d;
    }
    return r;
}

/* ---- dispatch ------------------------------------------------------------------------------------ */

/* sincos, frexp, modf: the return value, and the second result (cos, the exponent, the
 * integral part) stored through the reference argument, the parser's LND_ADDR of an lvalue. */
static CgVal two_results(LangCg *cg, LangNode *node)
{
    LangBuiltin b = node->builtin;
    LangBuiltin second = b == LANG_BI_SINCOS ? LANG_BI_COS
                         : b == LANG_BI_FREXP ? LANG_BI_FREXP_EXP : LANG_BI_TRUNC;
    CgVal x = cg_expr(cg, node->args);
    LangNode *out = node->args->next;
    if (out->kind == LND_ADDR)
        out = out->lhs;
    CgLval *lv = cg_lval(cg, out);
    cg_set_loc(cg, node->tok);
    bool h = lang_scalar_of(x.type)->kind == LTY_HALF;
    CgVal r = cg_val_new(cg, node->type, x.n), o = cg_val_new(cg, lv->type, x.n);
    for (int k = 0; k < x.n; k++) {
        r.c[k] = lang_cg_new_vreg(cg, h ? 16 : 32);
        o.c[k] = lang_cg_new_vreg(cg, h && second != LANG_BI_FREXP_EXP ? 16 : 32);
        if (!lang_cg_math(cg, b, r.c[k], &x.c[k], 1, h, node->fast_math) ||
            !lang_cg_math(cg, second, o.c[k], &x.c[k], 1, h, node->fast_math))
            cg_error(cg, node->tok, "this function is not supported for these argument types");
    }
    cg_store(cg, lv, o);
    return r;
}

CgVal cg_builtin(LangCg *cg, LangNode *node)
{
    LangBuiltin b = node->builtin;
    int na = 0;
    for (LangNode *a = node->args; a; a = a->next)
        na++;
    if (lang_builtin_is_matrix(b))
        return cg_matrix_builtin(cg, node);
    if (lang_builtin_is_tensor(b))
        return cg_tensor_builtin(cg, node);
    if (lang_builtin_is_linalg(b))
        return cg_linalg_builtin(cg, node);
    CgVal *args = lang_alloc(cg->ctx, (size_t)(na ? na : 1) * sizeof *args);
    int i = 0;
    if (b == LANG_BI_THREADGROUP_BARRIER || b == LANG_BI_SIMDGROUP_BARRIER) {
        bool ok = true;
        int64_t flags = fold(node->args, &ok);
        if (!ok)
            cg_error(cg, node->args ? node->args->tok : node->tok,
                     "barrier flags must be a constant mem_flags value");
        cg_set_loc(cg, node->tok);
        IsaInst *in = lang_cg_emit(cg, b == LANG_BI_THREADGROUP_BARRIER ? ISA_OP_BARRIER : ISA_OP_SIMD_BARRIER);
        in->flags = (uint8_t)(flags & 7);
        return cg_val_new(cg, lang_ty_void, 0);
    }
    if (b == LANG_BI_SINCOS || b == LANG_BI_FREXP || b == LANG_BI_MODF)
        return two_results(cg, node);
    const bool atomic = b >= LANG_BI_ATOMIC_STORE && b <= LANG_BI_ATOMIC_FETCH_XOR;
    CgAddr object;
    bool named = false;
    for (LangNode *a = node->args; a; a = a->next, i++) {
        if (a->type && (a->type->kind == LTY_ENUM_MEMORY_ORDER)) {
            args[i] = cg_val_new(cg, a->type, 0);
        } else if (atomic && i == 0 && a->kind == LND_ADDR && a->type->kind == LTY_POINTER &&
                   a->lhs->kind == LND_INDEX) {
            CgLval *lv = cg_lval(cg, a->lhs); /* `&bins[i]`: the array and the index */
            if (lv->kind == LV_MEM) {
                object = lv->addr;
                named = true;
                args[i] = cg_val_new(cg, a->type, 1);
                args[i].c[0] = lang_cg_imm(0); /* not read: the address is `object` */
            } else {
                args[i] = cg_expr(cg, a);
            }
        } else {
            args[i] = cg_expr(cg, a);
        }
    }
    cg_set_loc(cg, node->tok);
    if (atomic)
        return atomic_fn(cg, node, args, named ? &object : NULL);
    if (b >= LANG_BI_SIMD_SHUFFLE)
        return simd_fn(cg, node, args, na);
    LangType *rt = node->type;
    LangType *at = na ? args[0].type : rt;
    LangType *s = lang_scalar_of(at);
    int n = lang_components(at);
    if (b == LANG_BI_ALL || b == LANG_BI_ANY) {
        IsaOperand acc = cg_bool_of(cg, args[0].c[0], s);
        for (int k = 1; k < args[0].n; k++)
            acc = op2(cg, b == LANG_BI_ALL ? ISA_OP_AND : ISA_OP_OR, 32, acc,
                      cg_bool_of(cg, args[0].c[k], s));
        CgVal r = cg_val_new(cg, rt, 1);
        r.c[0] = acc;
        return r;
    }
    if (b == LANG_BI_SELECT) { /* select(a, b, c): c ? b : a */
        int nn = args[0].n;
        CgVal r = cg_val_new(cg, rt, nn);
        LangType *cs = lang_scalar_of(args[2].type);
        for (int k = 0; k < nn; k++) {
            IsaOperand c = cg_bool_of(cg, args[2].c[args[2].n == 1 ? 0 : k], cs);
            r.c[k] = cg_select(cg, c, args[1].c[k], args[0].c[k], cg_width_of(s));
        }
        return r;
    }
    if (b >= LANG_BI_DOT && b <= LANG_BI_CROSS) {
        CgVal r = cg_val_new(cg, rt, lang_components(rt));
        switch (b) {
        case LANG_BI_DOT: r.c[0] = dot(cg, s, args[0], args[1]); break;
        case LANG_BI_LENGTH_SQUARED: r.c[0] = dot(cg, s, args[0], args[0]); break;
        case LANG_BI_LENGTH: r.c[0] = sqrt_of(cg, s, dot(cg, s, args[0], args[0]), node); break;
        case LANG_BI_DISTANCE: {
            CgVal d = cg_val_new(cg, at, n);
            for (int k = 0; k < n; k++)
                d.c[k] = fop(cg, s, LND_SUB, args[0].c[k], args[1].c[k]);
            r.c[0] = sqrt_of(cg, s, dot(cg, s, d, d), node);
            break;
        }
        case LANG_BI_NORMALIZE: {
            IsaOperand len = sqrt_of(cg, s, dot(cg, s, args[0], args[0]), node);
            for (int k = 0; k < n; k++)
                r.c[k] = fop(cg, s, LND_DIV, args[0].c[k], len);
            break;
        }
        default: { /* CROSS */
            CgVal x = args[0], y = args[1];
            for (int k = 0; k < 3; k++) {
                int j1 = (k + 1) % 3, j2 = (k + 2) % 3;
                r.c[k] = fop(cg, s, LND_SUB, fop(cg, s, LND_MUL, x.c[j1], y.c[j2]),
                             fop(cg, s, LND_MUL, x.c[j2], y.c[j1]));
            }
            break;
        }
        }
        return r;
    }
    /* componentwise functions; scalar arguments broadcast */
    int nr = lang_components(rt);
    CgVal r = cg_val_new(cg, rt, nr);
    for (int k = 0; k < nr; k++) {
        IsaOperand x[4];
        for (int j = 0; j < na && j < 4; j++) {
            x[j] = args[j].c[args[j].n == 1 ? 0 : k];
            LangType *js = lang_scalar_of(args[j].type);
            if (cg_is_int16(js)) /* the integer functions work on extended 32-bit values */
                x[j] = cg_widen16(cg, x[j], js);
        }
        if (b >= LANG_BI_ISNAN && b <= LANG_BI_ISUNORDERED) {
            r.c[k] = relational(cg, b, s, x[0], na > 1 ? x[1] : x[0]);
        } else if (b >= LANG_BI_CLZ && b <= LANG_BI_MADSAT) {
            r.c[k] = integer_fn(cg, b, s, x, node);
        } else if (lang_is_float(s) && is_math(b)) {
            bool h = s->kind == LTY_HALF;
            IsaOperand d = lang_cg_new_vreg(cg, h && b != LANG_BI_ILOGB ? 16 : 32);
            /* the parser folded the option in; precise:: must win over it */
            bool fast = node->fast_math;
            if (lang_cg_math(cg, b, d, x, na, h, fast))
                r.c[k] = d;
            else
                r.c[k] = common(cg, b, s, x, node);
        } else if (is_math(b) && !lang_is_float(s)) {
            r.c[k] = common(cg, b, s, x, node);
        } else {
            cg_error(cg, node->tok, "this function is not supported for these argument types");
        }
        if (cg_is_int16(lang_scalar_of(rt)))
            r.c[k] = cg_narrow16(cg, r.c[k], lang_scalar_of(rt));
    }
    return r;
}
