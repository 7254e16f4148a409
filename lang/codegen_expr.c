/*
 * codegen_expr.c — expressions: constants, conversions with Metal's rules (float->int
 * saturating toward zero, int->float and float->half or bfloat to nearest even), selects,
 * C's arithmetic and comparisons on every scalar type (bfloat converted to f32 for each
 * operation and the result rounded back, as MSL 3.1 defines it; char/uchar kept extended in 32-bit
 * registers and re-normalized after each operation, short/ushort in register halves widened
 * for arithmetic and narrowed back, long/ulong on register pairs), and the walk over the
 * expression tree: constructors, bitcasts, && || ?: (both sides evaluated and selected
 * unless a side has effects or may fault, then exec-mask regions), pointer arithmetic,
 * ++/--, assignment. Where values live (leaves, memory, lvalues) is codegen_mem.c.
 */
#include <string.h>

#include "../util/fp.h"
#include "codegen_internal.h"

/* ---- constants ------------------------------------------------------------------------------- */

static IsaOperand imm_of(LangType *t, bool is_float, uint64_t ival, double fval)
{
    if (t->kind == LTY_FLOAT)
        return lang_cg_imm_f32(is_float ? (float)fval : (float)(int64_t)ival);
    if (t->kind == LTY_HALF)
        return lang_cg_imm_f16(util_f64_to_f16(is_float ? fval : (double)(int64_t)ival));
    if (t->kind == LTY_BFLOAT)
        return lang_cg_imm(util_f64_to_bf16(is_float ? fval : (double)(int64_t)ival));
    if (is_float) /* a float literal given to an integer */
        ival = (uint64_t)(int64_t)fval;
    switch (t->kind) {
    case LTY_BOOL: return lang_cg_imm(ival != 0);
    case LTY_CHAR: return lang_cg_imm((uint32_t)(int32_t)(int8_t)ival);
    case LTY_UCHAR: return lang_cg_imm((uint8_t)ival);
    case LTY_SHORT: case LTY_USHORT: return lang_cg_imm((uint16_t)ival); /* a register half */
    case LTY_LONG: case LTY_ULONG: return lang_cg_imm(ival);
    default: return lang_cg_imm((uint32_t)ival);
    }
}

int64_t cg_const_int(LangCg *cg, LangNode *node, bool *ok)
{
    (void)cg;
    *ok = false;
    while (node && node->kind == LND_CAST && lang_is_integer(node->type))
        node = node->lhs;
    if (node && node->kind == LND_NUM && !node->is_float) {
        *ok = true;
        return (int64_t)node->ival;
    }
    return 0;
}

static IsaOperand function_constant(LangCg *cg, LangVar *v)
{
    const LangOptions *o = cg->ctx->opts;
    LangType *t = v->type;
    for (uint32_t i = 0; o && i < o->num_constants; i++) {
        if (strcmp(o->constants[i].name, v->name) != 0)
            continue;
        double d = o->constants[i].number;
        if (lang_is_float(t))
            return imm_of(t, true, 0, d);
        return imm_of(t, false, lang_constant_bits(&o->constants[i]), 0);
    }
    if (v->init && v->init->kind == LND_NUM)
        return imm_of(t, v->init->is_float, v->init->ival, v->init->fval);
    lang_error_at(cg->ctx, v->tok,
                  "function constant '%s' has no value: give it in the manifest's constants:",
                  v->name);
}

/* ---- conversions ------------------------------------------------------------------------------ */

IsaType cg_reg_type(const LangType *t)
{
    switch (t->kind) {
    case LTY_BOOL: case LTY_UCHAR: case LTY_UINT: return ISA_TYPE_U32;
    case LTY_CHAR: case LTY_INT: return ISA_TYPE_S32;
    case LTY_SHORT: return ISA_TYPE_S16;
    case LTY_USHORT: return ISA_TYPE_U16;
    case LTY_LONG: return ISA_TYPE_S64;
    case LTY_ULONG: return ISA_TYPE_U64;
    case LTY_HALF: return ISA_TYPE_F16;
    case LTY_FLOAT: return ISA_TYPE_F32;
    case LTY_BFLOAT: return ISA_TYPE_BF16;
    default: return ISA_TYPE_U32;
    }
}

IsaOperand cg_bf16_to_f32(LangCg *cg, IsaOperand v)
{
    if (v.kind == ISA_OPD_IMM) /* a constant operand: its f32 directly */
        return lang_cg_imm_f32(util_bf16_to_f32((uint16_t)v.imm));
    return cg_cvt(cg, v, ISA_TYPE_F32, ISA_TYPE_BF16, 32);
}

IsaOperand cg_cvt(LangCg *cg, IsaOperand v, IsaType dst, IsaType src, int dst_width)
{
    IsaOperand d = lang_cg_new_vreg(cg, dst_width);
    IsaInst *in = lang_cg_emit(cg, ISA_OP_CVT);
    in->type = (uint8_t)dst;
    in->src_type = (uint8_t)src;
    in->opd[0] = d;
    in->opd[1] = v;
    return d;
}

IsaOperand cg_normalize(LangCg *cg, IsaOperand v, LangType *ty)
{
    IsaType t;
    switch (ty->kind) {
    case LTY_CHAR: t = ISA_TYPE_S8; break;
    case LTY_UCHAR: t = ISA_TYPE_U8; break;
    case LTY_SHORT: t = ISA_TYPE_S16; break;
    case LTY_USHORT: t = ISA_TYPE_U16; break;
    default: return v;
    }
    if (v.kind == ISA_OPD_IMM) {
        uint32_t x = (uint32_t)v.imm;
        switch (t) {
        case ISA_TYPE_S8: return lang_cg_imm((uint32_t)(int32_t)(int8_t)x);
        case ISA_TYPE_U8: return lang_cg_imm((uint8_t)x);
        case ISA_TYPE_S16: return lang_cg_imm((uint32_t)(int32_t)(int16_t)x);
        default: return lang_cg_imm((uint16_t)x);
        }
    }
    return cg_cvt(cg, v, t, ISA_TYPE_U32, 32);
}

bool cg_is_int16(const LangType *t)
{
    return t->kind == LTY_SHORT || t->kind == LTY_USHORT;
}

IsaOperand cg_widen16(LangCg *cg, IsaOperand v, const LangType *t)
{
    bool u = t->kind == LTY_USHORT;
    if (v.kind == ISA_OPD_IMM)
        return lang_cg_imm(u ? (uint16_t)v.imm : (uint32_t)(int32_t)(int16_t)v.imm);
    return cg_cvt(cg, v, u ? ISA_TYPE_U32 : ISA_TYPE_S32, u ? ISA_TYPE_U16 : ISA_TYPE_S16, 32);
}

IsaOperand cg_narrow16(LangCg *cg, IsaOperand v, const LangType *t)
{
    if (v.kind == ISA_OPD_IMM)
        return lang_cg_imm((uint16_t)v.imm);
    return cg_cvt(cg, v, t->kind == LTY_USHORT ? ISA_TYPE_U16 : ISA_TYPE_S16, ISA_TYPE_U32, 16);
}

IsaOperand cg_bool_of(LangCg *cg, IsaOperand v, LangType *ty)
{
    IsaOperand d = lang_cg_new_vreg(cg, 32);
    if (ty->kind == LTY_BOOL)
        return v;
    if (cg_is_int16(ty))
        v = cg_widen16(cg, v, ty);
    if (lang_is_float(ty)) {
        if (ty->kind != LTY_FLOAT)
            v = cg_cvt(cg, v, ISA_TYPE_F32, cg_reg_type(ty), 32);
        IsaInst *in = lang_cg_emit(cg, ISA_OP_FCMPSEL32);
        in->cond = ISA_COND_NE; /* unordered: NaN is true, as in C */
        in->opd[0] = d, in->opd[1] = v, in->opd[2] = lang_cg_imm_f32(0.0f);
        in->opd[3] = lang_cg_imm(1), in->opd[4] = lang_cg_imm(0);
        return d;
    }
    IsaInst *in = lang_cg_emit(cg, cg_width_of(ty) == 64 ? ISA_OP_ICMPSEL64 : ISA_OP_ICMPSEL);
    in->cond = ISA_COND_NE;
    in->opd[0] = d, in->opd[1] = v, in->opd[2] = lang_cg_imm(0);
    in->opd[3] = lang_cg_imm(1), in->opd[4] = lang_cg_imm(0);
    return d;
}

IsaOperand cg_convert(LangCg *cg, IsaOperand v, LangType *from, LangType *to)
{
    if (from->kind == to->kind || to->kind == LTY_POINTER || from->kind == LTY_POINTER)
        return v;
    if (to->kind == LTY_BOOL)
        return cg_bool_of(cg, v, from);
    bool ff = lang_is_float(from), tf = lang_is_float(to);
    int fw = cg_width_of(from), tw = cg_width_of(to);
    if (v.kind == ISA_OPD_IMM && !ff && !tf && fw != 64) { /* fold integer immediates */
        if (fw == 16)
            v = cg_widen16(cg, v, from);
        int64_t x = lang_is_unsigned(from) ? (int64_t)(uint32_t)v.imm : (int64_t)(int32_t)v.imm;
        return imm_of(to, false, (uint64_t)x, 0);
    }
    if (ff || tf)
        return cg_cvt(cg, v, cg_reg_type(to) == ISA_TYPE_U32 || cg_reg_type(to) == ISA_TYPE_S32
                              ? lang_isa_type(to) : cg_reg_type(to), cg_reg_type(from), tw);
    /* integer to integer: short/ushort in halves widen exactly; to them, keep the low bits */
    if (fw == 16 && tw == 16) /* short <-> ushort: the same bits */
        return v;
    if (tw == 64)
        return fw == 64 ? v : cg_cvt(cg, v, cg_reg_type(to), cg_reg_type(from), 64);
    if (fw == 64)
        v = cg_cvt(cg, v, ISA_TYPE_U32, cg_reg_type(from), 32);
    else if (fw == 16)
        v = cg_widen16(cg, v, from);
    if (tw == 16)
        return cg_narrow16(cg, v, to);
    return cg_normalize(cg, v, to);
}

/* ---- selects ----------------------------------------------------------------------------------- */

IsaOperand cg_select(LangCg *cg, IsaOperand c01, IsaOperand a, IsaOperand b, int width)
{
    if (width == 64) { /* straight-line, so it runs under any exec mask: b ^ ((a ^ b) & -c01) */
        IsaOperand mask = cg_emit3(cg, ISA_OP_ISUB64, 64, lang_cg_imm(0),
                                cg_cvt(cg, c01, ISA_TYPE_U64, ISA_TYPE_U32, 64));
        IsaOperand diff = cg_emit3(cg, ISA_OP_XOR64, 64, a, b);
        return cg_emit3(cg, ISA_OP_XOR64, 64, b, cg_emit3(cg, ISA_OP_AND64, 64, diff, mask));
    }
    IsaOperand d = lang_cg_new_vreg(cg, width);
    if (width == 32) {
        IsaInst *in = lang_cg_emit(cg, ISA_OP_ICMPSEL);
        in->cond = ISA_COND_NE;
        in->opd[0] = d, in->opd[1] = c01, in->opd[2] = lang_cg_imm(0);
        in->opd[3] = a, in->opd[4] = b;
        return d;
    }
    if (width == 16) {
        IsaOperand ch = cg_cvt(cg, c01, ISA_TYPE_F16, ISA_TYPE_U32, 16);
        IsaInst *in = lang_cg_emit(cg, ISA_OP_FCMPSEL16);
        in->cond = ISA_COND_NE;
        in->opd[0] = d, in->opd[1] = ch, in->opd[2] = lang_cg_imm_f16(0);
        in->opd[3] = a, in->opd[4] = b;
        return d;
    }
    return d;
}

/* ---- arithmetic --------------------------------------------------------------------------------- */

static IsaOperand negate_float(IsaOperand b, bool half)
{
    if (b.kind == ISA_OPD_IMM)
        b.imm ^= half ? 0x8000u : 0x80000000u;
    else
        b.flags ^= ISA_OPD_NEG;
    return b;
}

IsaOperand cg_emit3(LangCg *cg, IsaOpcode op, int width, IsaOperand a, IsaOperand b)
{
    IsaOperand d = lang_cg_new_vreg(cg, width);
    IsaInst *in = lang_cg_emit(cg, op);
    in->opd[0] = d, in->opd[1] = a, in->opd[2] = b;
    return d;
}

IsaOperand cg_compare(LangCg *cg, LangNodeKind k, LangType *ty, IsaOperand a, IsaOperand b)
{
    if (cg_is_int16(ty)) { /* compare the promoted values, as C does */
        a = cg_widen16(cg, a, ty), b = cg_widen16(cg, b, ty);
        ty = lang_ty_int;
    }
    IsaOperand d = lang_cg_new_vreg(cg, 32);
    IsaCond c;
    bool fl = lang_is_float(ty);
    bool u = !fl && (lang_is_unsigned(ty) || ty->kind == LTY_POINTER);
    switch (k) {
    case LND_EQ: c = ISA_COND_EQ; break;
    case LND_NE: c = ISA_COND_NE; break;
    case LND_LT: c = fl ? ISA_COND_LT : u ? ISA_COND_ULT : ISA_COND_SLT; break;
    case LND_LE: c = fl ? ISA_COND_LE : u ? ISA_COND_ULE : ISA_COND_SLE; break;
    case LND_GT: c = fl ? ISA_COND_GT : u ? ISA_COND_UGT : ISA_COND_SGT; break;
    default: c = fl ? ISA_COND_GE : u ? ISA_COND_UGE : ISA_COND_SGE; break;
    }
    if (ty->kind == LTY_HALF || ty->kind == LTY_BFLOAT) {
        a = cg_cvt(cg, a, ISA_TYPE_F32, cg_reg_type(ty), 32);
        b = cg_cvt(cg, b, ISA_TYPE_F32, cg_reg_type(ty), 32);
    }
    IsaInst *in = lang_cg_emit(cg, fl ? ISA_OP_FCMPSEL32
                                   : cg_width_of(ty) == 64 ? ISA_OP_ICMPSEL64 : ISA_OP_ICMPSEL);
    in->cond = (uint8_t)c;
    in->opd[0] = d, in->opd[1] = a, in->opd[2] = b;
    in->opd[3] = lang_cg_imm(1), in->opd[4] = lang_cg_imm(0);
    return d;
}

IsaOperand cg_binop(LangCg *cg, LangNodeKind k, LangType *ty, IsaOperand a, IsaOperand b,
                    const LangToken *tok)
{
    if (k >= LND_EQ && k <= LND_GE)
        return cg_compare(cg, k, ty, a, b);
    if (cg_is_int16(ty)) { /* compute in int (C's promotion), keep the low 16 bits */
        LangType *wide = ty->kind == LTY_USHORT ? lang_ty_uint : lang_ty_int;
        IsaOperand r = cg_binop(cg, k, wide, cg_widen16(cg, a, ty), cg_widen16(cg, b, ty), tok);
        return cg_narrow16(cg, r, ty);
    }
    if (ty->kind == LTY_BFLOAT) { /* in f32, rounded once to bfloat (exact operands) */
        IsaOperand r = cg_binop(cg, k, lang_ty_float, cg_bf16_to_f32(cg, a),
                                cg_bf16_to_f32(cg, b), tok);
        return cg_cvt(cg, r, ISA_TYPE_BF16, ISA_TYPE_F32, 16);
    }
    if (ty->kind == LTY_FLOAT || ty->kind == LTY_HALF) {
        bool h = ty->kind == LTY_HALF;
        int w = h ? 16 : 32;
        switch (k) {
        case LND_ADD: return cg_emit3(cg, h ? ISA_OP_FADD16 : ISA_OP_FADD32, w, a, b);
        case LND_SUB: return cg_emit3(cg, h ? ISA_OP_FADD16 : ISA_OP_FADD32, w, a, negate_float(b, h));
        case LND_MUL: return cg_emit3(cg, h ? ISA_OP_FMUL16 : ISA_OP_FMUL32, w, a, b);
        case LND_DIV: return cg_emit3(cg, h ? ISA_OP_FDIV16 : ISA_OP_FDIV32, w, a, b);
        default: cg_error(cg, tok, "this operator does not apply to floating-point values");
        }
    }
    bool u = lang_is_unsigned(ty);
    if (cg_width_of(ty) == 64) {
        switch (k) {
        case LND_ADD: return cg_emit3(cg, ISA_OP_IADD64, 64, a, b);
        case LND_SUB: return cg_emit3(cg, ISA_OP_ISUB64, 64, a, b);
        case LND_MUL: return cg_emit3(cg, ISA_OP_IMUL64, 64, a, b);
        case LND_DIV: return cg_emit3(cg, u ? ISA_OP_UDIV64 : ISA_OP_SDIV64, 64, a, b);
        case LND_MOD: return cg_emit3(cg, u ? ISA_OP_UREM64 : ISA_OP_SREM64, 64, a, b);
        case LND_BITAND: return cg_emit3(cg, ISA_OP_AND64, 64, a, b);
        case LND_BITOR: return cg_emit3(cg, ISA_OP_OR64, 64, a, b);
        case LND_BITXOR: return cg_emit3(cg, ISA_OP_XOR64, 64, a, b);
        case LND_SHL: case LND_SHR: {
            /* the count has the left operand's type; the ops take its low word mod 64 */
            if (b.kind == ISA_OPD_IMM)
                b = lang_cg_imm(b.imm & 63);
            else if (b.kind == ISA_OPD_R64 || b.kind == ISA_OPD_U64)
                b = cg_cvt(cg, b, ISA_TYPE_U32, ISA_TYPE_U64, 32);
            IsaOpcode sop = k == LND_SHL ? ISA_OP_SHL64 : u ? ISA_OP_LSR64 : ISA_OP_ASR64;
            return cg_emit3(cg, sop, 64, a, b);
        }
        default: cg_error(cg, tok, "unsupported operator");
        }
    }
    IsaOpcode op;
    switch (k) {
    case LND_ADD: op = ISA_OP_IADD; break;
    case LND_SUB: op = ISA_OP_ISUB; break;
    case LND_MUL: op = ISA_OP_IMUL; break;
    case LND_DIV: op = u ? ISA_OP_UDIV : ISA_OP_SDIV; break;
    case LND_MOD: op = u ? ISA_OP_UREM : ISA_OP_SREM; break;
    case LND_BITAND: op = ISA_OP_AND; break;
    case LND_BITOR: op = ISA_OP_OR; break;
    case LND_BITXOR: op = ISA_OP_XOR; break;
    case LND_SHL: op = ISA_OP_SHL; break;
    case LND_SHR: op = u ? ISA_OP_LSR : ISA_OP_ASR; break;
    default: cg_error(cg, tok, "unsupported operator");
    }
    return cg_normalize(cg, cg_emit3(cg, op, 32, a, b), ty);
}

/* Leafwise binary operation of two values of the same shape (vectors: componentwise). */
/* v converted component by component to type `to` (scalars broadcast). */
static CgVal convert_val(LangCg *cg, CgVal v, LangType *to)
{
    if (lang_same_type(v.type, to))
        return v;
    LangType *fs = lang_scalar_of(v.type), *ts = lang_scalar_of(to);
    int n = lang_components(to);
    CgVal r = cg_val_new(cg, to, n);
    for (int i = 0; i < n; i++)
        r.c[i] = cg_convert(cg, v.c[v.n == 1 ? 0 : i], fs, ts);
    return r;
}

static CgVal binop_val(LangCg *cg, LangNode *node, LangNodeKind k, CgVal a, CgVal b)
{
    LangType *rt = node->type;
    LangType *ot = a.type; /* operand type */
    CgVal r = cg_val_new(cg, rt, a.n);
    for (int i = 0; i < a.n; i++)
        r.c[i] = cg_binop(cg, k, lang_scalar_of(ot), a.c[i], b.c[b.n == 1 ? 0 : i], node->tok);
    return r;
}

/* ---- expressions ---------------------------------------------------------------------------------- */

/* No side effects and no access that may fault: safe to evaluate on lanes that C would not. */
bool cg_expr_is_simple(LangNode *n)
{
    if (!n)
        return true;
    switch (n->kind) {
    case LND_NUM: case LND_VAR: return true;
    case LND_CALL: case LND_ASSIGN: case LND_PRE_INC: case LND_PRE_DEC: case LND_POST_INC:
    case LND_POST_DEC: case LND_DEREF: case LND_BUILTIN:
        if (n->kind != LND_BUILTIN || n->builtin >= LANG_BI_CLZ)
            return false;
        for (LangNode *a = n->args; a; a = a->next) /* fma, clamp, fmin3: three */
            if (!cg_expr_is_simple(a))
                return false;
        return true;
    case LND_INDEX:
        /* An element picked by a run-time index is a memory access that may be out of bounds
         * for the lanes that would not evaluate it (`i < n ? a[i] : 0`): never speculate it. */
        if (n->lhs->type->kind == LTY_POINTER || n->rhs->kind != LND_NUM)
            return false;
        break;
    case LND_DIV: case LND_MOD:
        break;
    default: break;
    }
    for (LangNode *a = n->args; a; a = a->next)
        if (!cg_expr_is_simple(a))
            return false;
    return cg_expr_is_simple(n->lhs) && cg_expr_is_simple(n->rhs) && cg_expr_is_simple(n->cond) &&
           cg_expr_is_simple(n->then) && cg_expr_is_simple(n->els);
}

IsaOperand cg_scalar(LangCg *cg, LangNode *node)
{
    CgVal v = cg_expr(cg, node);
    if (v.n < 1)
        cg_error(cg, node->tok, "expected a value");
    return v.c[0];
}

static CgVal one(LangCg *cg, LangType *ty, IsaOperand o)
{
    CgVal v = cg_val_new(cg, ty, 1);
    v.c[0] = o;
    return v;
}

static CgVal construct(LangCg *cg, LangNode *node)
{
    LangType *ty = node->type;
    if (lang_is_matrix(ty) && node->num_args == 1 && node->args->type->kind != LTY_VECTOR)
        return cg_matrix_type_construct(cg, node);
    int n;
    CgLeaf *l = cg_leaves(cg, ty, &n);
    CgVal v = cg_val_new(cg, ty, n);
    for (int i = 0; i < n; i++) /* zero fill what the initializer leaves out */
        v.c[i] = imm_of(l[i].scalar, false, 0, 0);
    if (ty->kind == LTY_VECTOR && node->num_args == 1 && lang_is_scalar(node->args->type)) {
        IsaOperand s = cg_convert(cg, cg_scalar(cg, node->args), node->args->type, ty->base);
        for (int i = 0; i < n; i++)
            v.c[i] = s;
        return v;
    }
    int k = 0;
    LangMember *m = ty->kind == LTY_STRUCT ? ty->members : NULL;
    for (LangNode *a = node->args; a; a = a->next) {
        CgVal av = cg_expr(cg, a);
        LangType *target = ty->kind == LTY_STRUCT ? (m ? m->type : NULL)
                           : ty->kind == LTY_ARRAY ? ty->base : ty->base;
        if (ty->kind == LTY_STRUCT && m)
            m = m->next;
        if (target && lang_is_scalar(target) && lang_is_scalar(av.type))
            av.c[0] = cg_convert(cg, av.c[0], av.type, target);
        for (int i = 0; i < av.n && k < n; i++)
            v.c[k++] = av.c[i];
    }
    return v;
}

/* as_type<T>(x): same bits. Equal leaf layouts are free; others go through the stack. */
static CgVal bitcast(LangCg *cg, LangNode *node)
{
    CgVal src = cg_expr(cg, node->lhs);
    int na, nb;
    CgLeaf *la = cg_leaves(cg, src.type, &na);
    CgLeaf *lb = cg_leaves(cg, node->type, &nb);
    bool same = na == nb;
    for (int i = 0; same && i < na; i++)
        same = cg_width_of(la[i].scalar) == cg_width_of(lb[i].scalar);
    if (same) {
        CgVal v = cg_val_new(cg, node->type, na);
        for (int i = 0; i < na; i++) {
            v.c[i] = src.c[i];
            /* a char or uchar sits in its register extended by its sign: between the two the
             * bits are the same, the extension not (a conversion is the same bits here) */
            LangType *from = la[i].scalar, *to = lb[i].scalar;
            if (from->size == 1 && to->size == 1 && from->kind != LTY_BOOL &&
                to->kind != LTY_BOOL && !lang_same_type(from, to) && lang_is_integer(from) &&
                lang_is_integer(to))
                v.c[i] = cg_convert(cg, v.c[i], from, to);
        }
        return v;
    }
    CgAddr a = {0};
    a.space = LAS_THREAD;
    a.base = lang_cg_imm(cg_stack_alloc(cg, node->type->size > src.type->size ? node->type->size
                                                                               : src.type->size, 16));
    a.scale = 1;
    bool save = cg->vec_mem;
    cg->vec_mem = false;
    cg_store_addr(cg, &a, src.type, src);
    CgVal v = cg_load_addr(cg, &a, node->type);
    cg->vec_mem = save;
    return v;
}

static CgVal logical(LangCg *cg, LangNode *node)
{
    bool is_and = node->kind == LND_LOGAND;
    IsaOperand l = cg_bool_of(cg, cg_scalar(cg, node->lhs), node->lhs->type);
    if (cg_expr_is_simple(node->rhs)) {
        IsaOperand r = cg_bool_of(cg, cg_scalar(cg, node->rhs), node->rhs->type);
        IsaOperand d = lang_cg_new_vreg(cg, 32);
        IsaInst *in = lang_cg_emit(cg, is_and ? ISA_OP_AND : ISA_OP_OR);
        in->opd[0] = d, in->opd[1] = l, in->opd[2] = r;
        return one(cg, node->type, d);
    }
    IsaOperand d = cg_mov(cg, lang_cg_new_vreg(cg, 32), l, 32);
    int skip;
    cg_if_cmp_begin(cg, ISA_OP_IF_ICMP, is_and ? ISA_COND_NE : ISA_COND_EQ, d, lang_cg_imm(0), &skip);
    IsaOperand r = cg_bool_of(cg, cg_scalar(cg, node->rhs), node->rhs->type);
    cg_mov(cg, d, r, 32);
    cg_if_end(cg, skip);
    return one(cg, node->type, d);
}

static CgVal conditional(LangCg *cg, LangNode *node)
{
    IsaOperand c = cg_bool_of(cg, cg_scalar(cg, node->cond), node->cond->type);
    if (cg_expr_is_simple(node->then) && cg_expr_is_simple(node->els) &&
        node->type->kind != LTY_VOID) {
        CgVal a = cg_expr(cg, node->then), b = cg_expr(cg, node->els);
        int n;
        CgLeaf *l = cg_leaves(cg, node->type, &n);
        CgVal v = cg_val_new(cg, node->type, n);
        for (int i = 0; i < n; i++)
            v.c[i] = cg_select(cg, c, a.c[i], b.c[i], cg_width_of(l[i].scalar));
        return v;
    }
    CgVal v = node->type->kind == LTY_VOID ? cg_val_new(cg, node->type, 0) : cg_val_fresh(cg, node->type);
    int skip;
    cg_if_begin(cg, c, &skip);
    CgVal a = cg_expr(cg, node->then);
    if (v.n)
        cg_copy_into(cg, v.c, node->type, a);
    cg_if_else(cg, &skip);
    CgVal b = cg_expr(cg, node->els);
    if (v.n)
        cg_copy_into(cg, v.c, node->type, b);
    cg_if_end(cg, skip);
    return v;
}

/* Pointer +/- integer. */
static CgVal pointer_arith(LangCg *cg, LangNode *node, CgVal p, LangNode *inode, bool sub)
{
    IsaOperand i = cg_scalar(cg, inode);
    LangType *it = inode->type;
    if (sub) {
        if (cg_width_of(it) == 64)
            i = cg_cvt(cg, i, ISA_TYPE_S32, cg_reg_type(it), 32), it = lang_ty_int;
        else if (cg_is_int16(it))
            i = cg_widen16(cg, i, it), it = lang_ty_int;
        i = i.kind == ISA_OPD_IMM ? lang_cg_imm((uint32_t)-(int32_t)i.imm)
                                  : cg_emit3(cg, ISA_OP_ISUB, 32, lang_cg_imm(0), i);
    }
    if (p.ref)
        cg_error(cg, node->tok, "pointer arithmetic on a variable held in registers is not supported");
    CgAddr a = cg_addr_of_pointer(cg, p);
    cg_addr_add(cg, &a, i, it, p.type->base->size ? p.type->base->size : 1);
    return cg_pointer_of_addr(cg, &a, node->type);
}

/* The read half of a read-modify-write (`x += y`, `x++`) is reported at x, its write at the
 * operator: checkers then name both ends of `a[i] += b` precisely. */
static CgVal load_at_lvalue(LangCg *cg, LangNode *lhs, CgLval *lv)
{
    IsaSourceLoc saved = cg->loc;
    cg_set_loc(cg, lhs->tok);
    CgVal v = cg_load(cg, lv);
    cg->loc = saved;
    return v;
}

static CgVal incdec(LangCg *cg, LangNode *node)
{
    CgLval *lv = cg_lval(cg, node->lhs);
    CgVal old = load_at_lvalue(cg, node->lhs, lv);
    LangType *ty = node->lhs->type;
    bool inc = node->kind == LND_PRE_INC || node->kind == LND_POST_INC;
    bool post = node->kind == LND_POST_INC || node->kind == LND_POST_DEC;
    if (post && lv->kind != LV_MEM) { /* keep the old value past the store */
        CgVal copy = cg_val_fresh(cg, ty);
        cg_copy_into(cg, copy.c, ty, old);
        old = copy;
    }
    CgVal nv;
    if (ty->kind == LTY_POINTER) {
        CgAddr a = cg_addr_of_pointer(cg, old);
        cg_addr_add(cg, &a, lang_cg_imm(inc ? 1u : (uint32_t)-1), lang_ty_int, ty->base->size);
        nv = cg_pointer_of_addr(cg, &a, ty);
    } else {
        LangType *s = lang_scalar_of(ty);
        IsaOperand onev = imm_of(s, false, 1, 0);
        nv = cg_val_new(cg, ty, old.n);
        for (int i = 0; i < old.n; i++)
            nv.c[i] = cg_binop(cg, inc ? LND_ADD : LND_SUB, s, old.c[i], onev, node->tok);
    }
    cg_store(cg, lv, nv);
    return post ? old : nv;
}

static CgVal assign(LangCg *cg, LangNode *node)
{
    LangType *ty = node->lhs->type;
    if (!node->assign_op) {
        CgVal v = cg_expr(cg, node->rhs);
        CgLval *lv = cg_lval(cg, node->lhs);
        if (ty->kind == LTY_POINTER && v.ref && lv->kind == LV_REG) {
            cg_error(cg, node->tok, "a pointer to a register variable cannot be stored");
        }
        cg_store(cg, lv, v);
        return v;
    }
    CgLval *lv = cg_lval(cg, node->lhs);
    CgVal old = load_at_lvalue(cg, node->lhs, lv);
    CgVal nv;
    if (ty->kind == LTY_POINTER) {
        nv = pointer_arith(cg, node->lhs, old, node->rhs, node->assign_op == LND_SUB);
    } else if (node->op_type && !lang_same_type(node->op_type, ty)) {
        /* computed in the common type, then converted back to the left side's type */
        LangType *opt = node->op_type;
        CgVal a = convert_val(cg, old, opt), b = cg_expr(cg, node->rhs);
        CgVal r = cg_val_new(cg, opt, a.n);
        for (int i = 0; i < a.n; i++)
            r.c[i] = cg_binop(cg, node->assign_op, lang_scalar_of(opt), a.c[i],
                              b.c[b.n == 1 ? 0 : i], node->tok);
        nv = convert_val(cg, r, ty);
    } else {
        nv = binop_val(cg, node->lhs, node->assign_op, old, cg_expr(cg, node->rhs));
    }
    nv.type = ty;
    cg_store(cg, lv, nv);
    return nv;
}

static CgVal cg_expr_at(LangCg *cg, LangNode *node)
{
    cg_set_loc(cg, node->tok);
    LangType *ty = node->type;
    switch (node->kind) {
    case LND_NUM:
        return one(cg, ty, imm_of(ty, node->is_float, node->ival, node->fval));
    case LND_VAR: {
        LangVar *v = node->var;
        if (v->kind == LVAR_FUNCTION_CONSTANT)
            return one(cg, ty, function_constant(cg, v));
        CgBind *b = cg_bind(cg, v);
        if (b->kind == BIND_VALUE) {
            CgVal r = b->value;
            r.type = ty;
            return r;
        }
        if (v->kind == LVAR_CONSTANT && b->kind == BIND_NONE && v->init && v->init->kind == LND_NUM)
            return cg_expr(cg, v->init);
        if (b->kind == BIND_NONE && v->kind != LVAR_THREADGROUP)
            lang_error_at(cg->ctx, node->tok, "'%s' is used before it has a value", v->name);
        return cg_load(cg, cg_lval(cg, node));
    }
    case LND_MEMBER:
        if (cg_lvalue_like(node->lhs))
            return cg_load(cg, cg_lval(cg, node));
        {
            CgVal s = cg_expr(cg, node->lhs);
            CgVal v = cg_val_new(cg, ty, cg_leaf_count(ty));
            memcpy(v.c, s.c + cg_member_leaf_start(node->lhs->type, node->member),
                   (size_t)v.n * sizeof *v.c);
            return v;
        }
    case LND_ELEMENTS:
        if (cg_lvalue_like(node))
            return cg_load(cg, cg_lval(cg, node));
        return cg_matrix_elements(cg, cg_expr(cg, node->lhs).c[0], ty);
    case LND_SWIZZLE: {
        CgVal s = cg_expr(cg, node->lhs);
        CgVal v = cg_val_new(cg, ty, node->swizzle_len);
        for (int i = 0; i < node->swizzle_len; i++)
            v.c[i] = s.c[node->swizzle[i] < s.n ? node->swizzle[i] : 0];
        return v;
    }
    case LND_INDEX:
        if (cg_lvalue_like(node))
            return cg_load(cg, cg_lval(cg, node));
        {
            CgVal s = cg_expr(cg, node->lhs);
            bool ok;
            int64_t k = cg_const_int(cg, node->rhs, &ok);
            int per = cg_leaf_count(ty);
            if (ok && k >= 0 && (k + 1) * per <= s.n) {
                CgVal v = cg_val_new(cg, ty, per);
                memcpy(v.c, s.c + k * per, (size_t)per * sizeof *v.c);
                return v;
            }
            if (node->lhs->type->kind == LTY_ARRAY) {
                /* a value in registers (`transpose(m)[i]`): a select chain over elements */
                IsaOperand idx = cg_convert(cg, cg_scalar(cg, node->rhs), node->rhs->type,
                                            lang_ty_uint);
                int n;
                CgLeaf *l = cg_leaves(cg, ty, &n);
                CgVal v = cg_val_new(cg, ty, per);
                memcpy(v.c, s.c, (size_t)per * sizeof *v.c);
                for (int e = 1; e < node->lhs->type->len; e++) {
                    IsaOperand c = cg_compare(cg, LND_EQ, lang_ty_uint, idx,
                                              lang_cg_imm((uint32_t)e));
                    for (int j = 0; j < per; j++)
                        v.c[j] = cg_select(cg, c, s.c[e * per + j], v.c[j],
                                           cg_width_of(l[j].scalar));
                }
                return v;
            }
            if (node->lhs->type->kind != LTY_VECTOR)
                cg_error(cg, node->tok, "cannot index this value by a variable");
            CgLval tmp = {0};
            tmp.kind = LV_REG;
            tmp.type = node->lhs->type;
            tmp.regs = s.c;
            CgLval dyn = {0};
            dyn.kind = LV_DYNVEC;
            dyn.type = ty;
            dyn.base = &tmp;
            dyn.dyn = cg_convert(cg, cg_scalar(cg, node->rhs), node->rhs->type, lang_ty_uint);
            return cg_load(cg, &dyn);
        }
    case LND_DEREF:
        return cg_load(cg, cg_lval(cg, node));
    case LND_ADDR: {
        if (node->temporary) { /* the temporary: fresh registers the reference designates */
            CgVal v = cg_expr(cg, node->lhs);
            CgLval *tmp = lang_alloc(cg->ctx, sizeof *tmp);
            tmp->kind = LV_REG;
            tmp->type = node->lhs->type;
            tmp->regs = cg_val_fresh(cg, node->lhs->type).c;
            cg_copy_into(cg, tmp->regs, node->lhs->type, v);
            CgVal p = cg_val_new(cg, ty, 1);
            p.c[0] = lang_cg_imm(0);
            p.ref = tmp;
            return p;
        }
        CgLval *lv = cg_lval(cg, node->lhs);
        if (lv->kind == LV_MEM)
            return cg_pointer_of_addr(cg, &lv->addr, ty);
        CgVal p = cg_val_new(cg, ty, 1);
        p.c[0] = lang_cg_imm(0);
        p.ref = lv;
        return p;
    }
    case LND_CAST: {
        CgVal s = cg_expr(cg, node->lhs);
        if (ty->kind == LTY_VOID)
            return cg_val_new(cg, ty, 0);
        if (ty->kind == LTY_POINTER || s.type->kind == LTY_POINTER) {
            s.type = ty;
            return s;
        }
        LangType *fs = lang_scalar_of(s.type), *ts = lang_scalar_of(ty);
        if (!lang_is_scalar(fs) || !lang_is_scalar(ts)) {
            s.type = ty;
            return s;
        }
        int n = lang_components(ty);
        CgVal v = cg_val_new(cg, ty, n);
        for (int i = 0; i < n; i++)
            v.c[i] = cg_convert(cg, s.c[s.n == 1 ? 0 : i], fs, ts);
        return v;
    }
    case LND_BITCAST:
        return bitcast(cg, node);
    case LND_CONSTRUCT:
        return construct(cg, node);
    case LND_CALL:
        return cg_call(cg, node);
    case LND_BUILTIN:
        return cg_builtin(cg, node);
    case LND_NEG: case LND_BITNOT: case LND_NOT: {
        CgVal s = cg_expr(cg, node->lhs);
        LangType *sc = lang_scalar_of(s.type);
        CgVal v = cg_val_new(cg, ty, s.n);
        for (int i = 0; i < s.n; i++) {
            IsaOperand a = s.c[i];
            if (node->kind == LND_NOT) {
                IsaOperand b = cg_bool_of(cg, a, sc);
                v.c[i] = cg_emit3(cg, ISA_OP_XOR, 32, b, lang_cg_imm(1));
            } else if (node->kind == LND_BITNOT && cg_is_int16(sc)) {
                IsaOperand d = cg_emit3(cg, ISA_OP_XOR, 32, cg_widen16(cg, a, sc), lang_cg_imm(~0u));
                v.c[i] = cg_narrow16(cg, d, sc);
            } else if (node->kind == LND_BITNOT) {
                bool wide = cg_width_of(sc) == 64;
                IsaOperand d = lang_cg_new_vreg(cg, wide ? 64 : 32);
                IsaInst *in = lang_cg_emit(cg, wide ? ISA_OP_NOT64 : ISA_OP_NOT);
                in->opd[0] = d, in->opd[1] = a;
                v.c[i] = cg_normalize(cg, d, sc);
            } else if (sc->kind == LTY_BFLOAT) { /* exact: a sign flip through f32 */
                IsaOperand f = cg_bf16_to_f32(cg, a), d = lang_cg_new_vreg(cg, 32);
                IsaInst *in = lang_cg_emit(cg, ISA_OP_FMOV32);
                in->opd[0] = d;
                in->opd[1] = negate_float(f, false);
                v.c[i] = cg_cvt(cg, d, ISA_TYPE_BF16, ISA_TYPE_F32, 16);
            } else if (lang_is_float(sc)) {
                bool h = sc->kind == LTY_HALF;
                IsaOperand d = lang_cg_new_vreg(cg, h ? 16 : 32);
                IsaInst *in = lang_cg_emit(cg, h ? ISA_OP_FMOV16 : ISA_OP_FMOV32);
                in->opd[0] = d;
                in->opd[1] = negate_float(a, h);
                v.c[i] = d;
            } else {
                v.c[i] = cg_binop(cg, LND_SUB, sc, lang_cg_imm(0), a, node->tok);
            }
        }
        return v;
    }
    case LND_ADD: case LND_SUB:
        if (ty->kind == LTY_POINTER) {
            bool lp = node->lhs->type->kind == LTY_POINTER;
            CgVal p = cg_expr(cg, lp ? node->lhs : node->rhs);
            return pointer_arith(cg, node, p, lp ? node->rhs : node->lhs, node->kind == LND_SUB);
        }
        if (node->kind == LND_SUB && node->lhs->type->kind == LTY_POINTER) {
            CgVal a = cg_expr(cg, node->lhs), b = cg_expr(cg, node->rhs);
            if (a.ref || b.ref)
                cg_error(cg, node->tok, "pointer arithmetic on a variable held in registers is not supported");
            int size = node->lhs->type->base->size ? node->lhs->type->base->size : 1;
            IsaOperand diff;
            if (cg_is_dev(node->lhs->type->space))
                diff = cg_cvt(cg, cg_emit3(cg, ISA_OP_ISUB64, 64, a.c[0], b.c[0]), ISA_TYPE_S32, ISA_TYPE_S64, 32);
            else
                diff = cg_emit3(cg, ISA_OP_ISUB, 32, a.c[0], b.c[0]);
            diff = cg_emit3(cg, ISA_OP_SDIV, 32, diff, lang_cg_imm((uint32_t)size));
            return one(cg, ty, cg_convert(cg, diff, lang_ty_int, ty));
        }
        /* fall through */
    case LND_MUL: case LND_DIV: case LND_MOD: case LND_BITAND: case LND_BITOR:
    case LND_BITXOR: case LND_SHL: case LND_SHR:
    case LND_EQ: case LND_NE: case LND_LT: case LND_LE: case LND_GT: case LND_GE: {
        CgVal a = cg_expr(cg, node->lhs);
        CgVal b = cg_expr(cg, node->rhs);
        if (a.n == 1 && b.n > 1) {
            CgVal t = cg_val_new(cg, b.type, b.n);
            for (int i = 0; i < b.n; i++)
                t.c[i] = a.c[0];
            a = t;
        }
        return binop_val(cg, node, node->kind, a, b);
    }
    case LND_LOGAND: case LND_LOGOR:
        return logical(cg, node);
    case LND_ASSIGN:
        return assign(cg, node);
    case LND_PRE_INC: case LND_PRE_DEC: case LND_POST_INC: case LND_POST_DEC:
        return incdec(cg, node);
    case LND_COND:
        return conditional(cg, node);
    case LND_COMMA:
        cg_expr(cg, node->lhs);
        return cg_expr(cg, node->rhs);
    default:
        cg_error(cg, node->tok, "this is not an expression");
    }
}

/* Evaluates node with its own source location, then gives the caller back its location, so
 * the instructions a parent emits after evaluating its operands carry the parent's
 * line:col (a load in `a[i + j]` is at the `[`, not at `j`). */
CgVal cg_expr(LangCg *cg, LangNode *node)
{
    IsaSourceLoc saved = cg->loc;
    CgVal result = cg_expr_at(cg, node);
    cg->loc = saved;
    return result;
}
