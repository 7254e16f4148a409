/*
 * codegen_expr.c — expressions: values as leaves (codegen_internal.h), lvalues in registers
 * or memory, loads and stores in every address space, conversions with Metal's rules
 * (float->int saturating toward zero, int->float and float->half to nearest even), and C's
 * arithmetic (narrow integers kept extended and re-normalized after each operation, so they
 * wrap exactly). && || ?: evaluate both sides and select unless a side has effects or may
 * fault, in which case they become exec-mask regions.
 */
#include <string.h>

#include "../util/fp.h"
#include "codegen_internal.h"

/* ---- leaves ---------------------------------------------------------------------------------- */

int cg_leaf_count(const LangType *ty)
{
    switch (ty->kind) {
    case LTY_VECTOR: return ty->len;
    case LTY_ARRAY: return ty->len * cg_leaf_count(ty->base);
    case LTY_STRUCT: {
        int n = 0;
        for (LangMember *m = ty->members; m; m = m->next)
            n += cg_leaf_count(m->type);
        return n;
    }
    case LTY_VOID: return 0;
    default: return 1;
    }
}

static void fill_leaves(LangType *ty, int off, CgLeaf *out, int *k)
{
    switch (ty->kind) {
    case LTY_VECTOR:
        for (int i = 0; i < ty->len; i++) {
            out[*k].off = off + i * ty->base->size;
            out[(*k)++].scalar = ty->base;
        }
        break;
    case LTY_ARRAY:
        for (int i = 0; i < ty->len; i++)
            fill_leaves(ty->base, off + i * ty->base->size, out, k);
        break;
    case LTY_STRUCT:
        for (LangMember *m = ty->members; m; m = m->next)
            fill_leaves(m->type, off + m->offset, out, k);
        break;
    case LTY_VOID: break;
    case LTY_ATOMIC:
        out[*k].off = off;
        out[(*k)++].scalar = ty->base;
        break;
    default:
        out[*k].off = off;
        out[(*k)++].scalar = ty;
        break;
    }
}

CgLeaf *cg_leaves(LangCg *cg, LangType *ty, int *n)
{
    *n = cg_leaf_count(ty);
    CgLeaf *l = lang_alloc(cg->ctx, (size_t)(*n ? *n : 1) * sizeof *l);
    int k = 0;
    fill_leaves(ty, 0, l, &k);
    return l;
}

CgVal cg_val_new(LangCg *cg, LangType *ty, int n)
{
    CgVal v = {ty, n, NULL, NULL};
    v.c = lang_alloc(cg->ctx, (size_t)(n ? n : 1) * sizeof *v.c);
    return v;
}

CgVal cg_val_fresh(LangCg *cg, LangType *ty)
{
    int n;
    CgLeaf *l = cg_leaves(cg, ty, &n);
    CgVal v = cg_val_new(cg, ty, n);
    for (int i = 0; i < n; i++)
        v.c[i] = cg_vreg_for(cg, l[i].scalar);
    return v;
}

static bool is_reg(IsaOperand o)
{
    return o.kind == ISA_OPD_R32 || o.kind == ISA_OPD_R16 || o.kind == ISA_OPD_R64;
}

IsaOperand cg_mov(LangCg *cg, IsaOperand dst, IsaOperand src, int width)
{
    if (src.kind == dst.kind && src.index == dst.index && is_reg(src))
        return dst;
    IsaInst *in = lang_cg_emit(cg, width == 16 ? ISA_OP_MOV16 : width == 64 ? ISA_OP_MOV64 : ISA_OP_MOV);
    in->opd[0] = dst;
    in->opd[1] = src;
    return dst;
}

IsaOperand cg_to_reg(LangCg *cg, IsaOperand src, int width)
{
    if (is_reg(src))
        return src;
    return cg_mov(cg, lang_cg_new_vreg(cg, width), src, width);
}

void cg_copy_into(LangCg *cg, IsaOperand *dst, LangType *ty, CgVal v)
{
    int n;
    CgLeaf *l = cg_leaves(cg, ty, &n);
    for (int i = 0; i < n && i < v.n; i++)
        cg_mov(cg, dst[i], v.c[i], cg_width_of(l[i].scalar));
}

/* ---- constants ------------------------------------------------------------------------------- */

static IsaOperand imm_of(LangType *t, bool is_float, uint64_t ival, double fval)
{
    if (t->kind == LTY_FLOAT)
        return lang_cg_imm_f32(is_float ? (float)fval : (float)(int64_t)ival);
    if (t->kind == LTY_HALF)
        return lang_cg_imm_f16(util_f64_to_f16(is_float ? fval : (double)(int64_t)ival));
    if (is_float) /* a float literal given to an integer */
        ival = (uint64_t)(int64_t)fval;
    switch (t->kind) {
    case LTY_BOOL: return lang_cg_imm(ival != 0);
    case LTY_CHAR: return lang_cg_imm((uint32_t)(int32_t)(int8_t)ival);
    case LTY_UCHAR: return lang_cg_imm((uint8_t)ival);
    case LTY_SHORT: return lang_cg_imm((uint32_t)(int32_t)(int16_t)ival);
    case LTY_USHORT: return lang_cg_imm((uint16_t)ival);
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
        return imm_of(t, false, (uint64_t)(int64_t)d, 0);
    }
    if (v->init && v->init->kind == LND_NUM)
        return imm_of(t, v->init->is_float, v->init->ival, v->init->fval);
    lang_error_at(cg->ctx, v->tok,
                  "function constant '%s' has no value: give it in the manifest's constants:",
                  v->name);
}

/* ---- conversions ------------------------------------------------------------------------------ */

static IsaType reg_type(const LangType *t)
{
    switch (t->kind) {
    case LTY_BOOL: case LTY_UCHAR: case LTY_USHORT: case LTY_UINT: return ISA_TYPE_U32;
    case LTY_CHAR: case LTY_SHORT: case LTY_INT: return ISA_TYPE_S32;
    case LTY_LONG: return ISA_TYPE_S64;
    case LTY_ULONG: return ISA_TYPE_U64;
    case LTY_HALF: return ISA_TYPE_F16;
    case LTY_FLOAT: return ISA_TYPE_F32;
    default: return ISA_TYPE_U32;
    }
}

static IsaOperand cvt(LangCg *cg, IsaOperand v, IsaType dst, IsaType src, int dst_width)
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
    if (v.kind == ISA_OPD_IMM)
        return imm_of(ty, false, v.imm, 0);
    return cvt(cg, v, t, ISA_TYPE_U32, 32);
}

IsaOperand cg_bool_of(LangCg *cg, IsaOperand v, LangType *ty)
{
    IsaOperand d = lang_cg_new_vreg(cg, 32);
    if (ty->kind == LTY_BOOL)
        return v;
    if (ty->kind == LTY_FLOAT || ty->kind == LTY_HALF) {
        if (ty->kind == LTY_HALF)
            v = cvt(cg, v, ISA_TYPE_F32, ISA_TYPE_F16, 32);
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
        int64_t x = lang_is_unsigned(from) ? (int64_t)(uint32_t)v.imm : (int64_t)(int32_t)v.imm;
        return imm_of(to, false, (uint64_t)x, 0);
    }
    if (ff || tf)
        return cvt(cg, v, reg_type(to) == ISA_TYPE_U32 || reg_type(to) == ISA_TYPE_S32
                              ? lang_isa_type(to) : reg_type(to), reg_type(from), tw);
    /* integer to integer */
    if (tw == 64)
        return fw == 64 ? v : cvt(cg, v, reg_type(to), reg_type(from), 64);
    if (fw == 64)
        v = cvt(cg, v, ISA_TYPE_U32, reg_type(from), 32);
    return cg_normalize(cg, v, to);
}

/* ---- selects ----------------------------------------------------------------------------------- */

static IsaOperand emit3(LangCg *cg, IsaOpcode op, int width, IsaOperand a, IsaOperand b);

IsaOperand cg_select(LangCg *cg, IsaOperand c01, IsaOperand a, IsaOperand b, int width)
{
    if (width == 64) { /* straight-line, so it runs under any exec mask: b ^ ((a ^ b) & -c01) */
        IsaOperand mask = emit3(cg, ISA_OP_ISUB64, 64, lang_cg_imm(0),
                                cvt(cg, c01, ISA_TYPE_U64, ISA_TYPE_U32, 64));
        IsaOperand diff = emit3(cg, ISA_OP_XOR64, 64, a, b);
        return emit3(cg, ISA_OP_XOR64, 64, b, emit3(cg, ISA_OP_AND64, 64, diff, mask));
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
        IsaOperand ch = cvt(cg, c01, ISA_TYPE_F16, ISA_TYPE_U32, 16);
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

static IsaOperand emit3(LangCg *cg, IsaOpcode op, int width, IsaOperand a, IsaOperand b)
{
    IsaOperand d = lang_cg_new_vreg(cg, width);
    IsaInst *in = lang_cg_emit(cg, op);
    in->opd[0] = d, in->opd[1] = a, in->opd[2] = b;
    return d;
}

IsaOperand cg_compare(LangCg *cg, LangNodeKind k, LangType *ty, IsaOperand a, IsaOperand b)
{
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
    if (ty->kind == LTY_HALF) {
        a = cvt(cg, a, ISA_TYPE_F32, ISA_TYPE_F16, 32);
        b = cvt(cg, b, ISA_TYPE_F32, ISA_TYPE_F16, 32);
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
    if (ty->kind == LTY_FLOAT || ty->kind == LTY_HALF) {
        bool h = ty->kind == LTY_HALF;
        int w = h ? 16 : 32;
        switch (k) {
        case LND_ADD: return emit3(cg, h ? ISA_OP_FADD16 : ISA_OP_FADD32, w, a, b);
        case LND_SUB: return emit3(cg, h ? ISA_OP_FADD16 : ISA_OP_FADD32, w, a, negate_float(b, h));
        case LND_MUL: return emit3(cg, h ? ISA_OP_FMUL16 : ISA_OP_FMUL32, w, a, b);
        case LND_DIV: return emit3(cg, h ? ISA_OP_FDIV16 : ISA_OP_FDIV32, w, a, b);
        default: cg_error(cg, tok, "this operator does not apply to floating-point values");
        }
    }
    bool u = lang_is_unsigned(ty);
    if (cg_width_of(ty) == 64) {
        switch (k) {
        case LND_ADD: return emit3(cg, ISA_OP_IADD64, 64, a, b);
        case LND_SUB: return emit3(cg, ISA_OP_ISUB64, 64, a, b);
        case LND_MUL: return emit3(cg, ISA_OP_IMUL64, 64, a, b);
        case LND_DIV: return emit3(cg, u ? ISA_OP_UDIV64 : ISA_OP_SDIV64, 64, a, b);
        case LND_MOD: return emit3(cg, u ? ISA_OP_UREM64 : ISA_OP_SREM64, 64, a, b);
        case LND_BITAND: return emit3(cg, ISA_OP_AND64, 64, a, b);
        case LND_BITOR: return emit3(cg, ISA_OP_OR64, 64, a, b);
        case LND_BITXOR: return emit3(cg, ISA_OP_XOR64, 64, a, b);
        case LND_SHL: case LND_SHR: {
            /* the count has the left operand's type; the ops take its low word mod 64 */
            if (b.kind == ISA_OPD_IMM)
                b = lang_cg_imm(b.imm & 63);
            else if (b.kind == ISA_OPD_R64 || b.kind == ISA_OPD_U64)
                b = cvt(cg, b, ISA_TYPE_U32, ISA_TYPE_U64, 32);
            IsaOpcode sop = k == LND_SHL ? ISA_OP_SHL64 : u ? ISA_OP_LSR64 : ISA_OP_ASR64;
            return emit3(cg, sop, 64, a, b);
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
    return cg_normalize(cg, emit3(cg, op, 32, a, b), ty);
}

/* Leafwise binary operation of two values of the same shape (vectors: componentwise). */
static CgVal binop_val(LangCg *cg, LangNode *node, LangNodeKind k, CgVal a, CgVal b)
{
    LangType *rt = node->type;
    LangType *ot = a.type; /* operand type */
    CgVal r = cg_val_new(cg, rt, a.n);
    for (int i = 0; i < a.n; i++)
        r.c[i] = cg_binop(cg, k, lang_scalar_of(ot), a.c[i], b.c[b.n == 1 ? 0 : i], node->tok);
    return r;
}

/* ---- addresses, loads and stores ---------------------------------------------------------------- */

static bool is_dev(LangAddrSpace s) { return s == LAS_DEVICE || s == LAS_CONSTANT; }

static IsaMemFormat fmt_of(const LangType *t)
{
    switch (t->kind) {
    case LTY_BOOL: case LTY_UCHAR: return ISA_FMT_U8;
    case LTY_CHAR: return ISA_FMT_S8;
    case LTY_SHORT: return ISA_FMT_S16;
    case LTY_USHORT: return ISA_FMT_U16;
    case LTY_HALF: return ISA_FMT_H16;
    default: return ISA_FMT_B32;
    }
}

/* The element index for an access with elements of fsz bytes at addr + extra. */
static IsaOperand elem_index(LangCg *cg, CgAddr *a, int extra, int fsz)
{
    int64_t off = a->off + extra;
    if (a->idx.kind == ISA_OPD_NONE) {
        if (off % fsz)
            cg_error(cg, NULL, "misaligned memory access");
        return lang_cg_imm((uint32_t)(int32_t)(off / fsz));
    }
    if (a->scale % fsz == 0 && off % fsz == 0) {
        int mul = a->scale / fsz;
        int32_t add = (int32_t)(off / fsz);
        if (a->idx.kind == ISA_OPD_IMM)
            return lang_cg_imm((uint32_t)((int32_t)a->idx.imm * mul + add));
        IsaOperand d = lang_cg_new_vreg(cg, 32);
        if (mul == 1 && add == 0)
            return a->idx;
        IsaInst *in = lang_cg_emit(cg, ISA_OP_IMAD);
        in->opd[0] = d, in->opd[1] = a->idx, in->opd[2] = lang_cg_imm((uint32_t)mul);
        in->opd[3] = lang_cg_imm((uint32_t)add);
        return d;
    }
    /* bytes, then elements (addresses are aligned for the element) */
    IsaOperand bytes = lang_cg_new_vreg(cg, 32);
    IsaInst *in = lang_cg_emit(cg, ISA_OP_IMAD);
    in->opd[0] = bytes, in->opd[1] = a->idx, in->opd[2] = lang_cg_imm((uint32_t)a->scale);
    in->opd[3] = lang_cg_imm((uint32_t)(int32_t)off);
    if (fsz == 1)
        return bytes;
    return emit3(cg, ISA_OP_ASR, 32, bytes, lang_cg_imm(fsz == 2 ? 1 : fsz == 4 ? 2 : 3));
}

IsaOperand cg_elem_index(LangCg *cg, CgAddr *a, int fsz)
{
    return elem_index(cg, a, 0, fsz);
}

static void mem_op(LangCg *cg, bool store, CgAddr *a, int extra, IsaMemFormat fmt, int count,
                   IsaOperand data)
{
    int fsz = (int)isa_fmt_size(fmt);
    IsaOperand index = elem_index(cg, a, extra, fsz);
    IsaOpcode op;
    switch (a->space) {
    case LAS_DEVICE: op = store ? ISA_OP_ST_DEV : ISA_OP_LD_DEV; break;
    case LAS_CONSTANT:
        if (store)
            cg_error(cg, NULL, "cannot store to the constant address space");
        op = ISA_OP_LD_CONST;
        break;
    case LAS_THREADGROUP: op = store ? ISA_OP_ST_TG : ISA_OP_LD_TG; break;
    default: op = store ? ISA_OP_ST_STACK : ISA_OP_LD_STACK; break;
    }
    if (data.kind == ISA_OPD_R64) /* backend convention: R32 naming the 64-bit vreg, .x2 */
        data.kind = ISA_OPD_R32;
    IsaInst *in = lang_cg_emit(cg, op);
    in->type = (uint8_t)fmt;
    in->count = (uint8_t)count;
    in->opd[0] = data;
    in->opd[1] = a->base;
    in->opd[2] = index;
    if (op == ISA_OP_LD_DEV) {
        in->opd[3] = cg_num(cg->load_slot);
        cg->load_slot ^= 1;
    }
}

/* Runs of leaves that form one aligned vector can move with one .xN op. */
static int run_length(LangCg *cg, CgLeaf *l, int n, int i, LangType *ty)
{
    if (!cg->vec_mem || ty->kind != LTY_VECTOR || ty->packed || i != 0)
        return 1;
    (void)l;
    (void)n;
    return ty->len;
}

CgVal cg_load_addr(LangCg *cg, CgAddr *a, LangType *ty)
{
    int n;
    CgLeaf *l = cg_leaves(cg, ty, &n);
    CgVal v = cg_val_new(cg, ty, n);
    for (int i = 0; i < n;) {
        LangType *s = l[i].scalar;
        int w = cg_width_of(s);
        int run = w == 64 ? 1 : run_length(cg, l, n, i, ty);
        IsaOperand first = {0};
        for (int k = 0; k < run; k++) {
            v.c[i + k] = lang_cg_new_vreg(cg, w);
            if (k == 0)
                first = v.c[i];
        }
        mem_op(cg, false, a, l[i].off, w == 64 ? ISA_FMT_B32 : fmt_of(s), w == 64 ? 2 : run, first);
        i += run;
    }
    return v;
}

void cg_store_addr(LangCg *cg, CgAddr *a, LangType *ty, CgVal v)
{
    int n;
    CgLeaf *l = cg_leaves(cg, ty, &n);
    for (int i = 0; i < n && i < v.n;) {
        LangType *s = l[i].scalar;
        int w = cg_width_of(s);
        int run = w == 64 ? 1 : run_length(cg, l, n, i, ty);
        bool consecutive = true;
        for (int k = 0; k < run; k++)
            consecutive = consecutive && is_reg(v.c[i + k]) && v.c[i + k].index == v.c[i].index + k;
        IsaOperand first;
        if (consecutive && (run > 1 || is_reg(v.c[i]))) {
            first = v.c[i];
        } else {
            first = lang_cg_new_vreg(cg, w);
            for (int k = 1; k < run; k++)
                lang_cg_new_vreg(cg, w);
            for (int k = 0; k < run; k++) {
                IsaOperand d = first;
                d.index = (uint16_t)(first.index + k);
                cg_mov(cg, d, v.c[i + k], w);
            }
        }
        mem_op(cg, true, a, l[i].off, w == 64 ? ISA_FMT_B32 : fmt_of(s), w == 64 ? 2 : run, first);
        i += run;
    }
}

CgAddr cg_addr_of_pointer(LangCg *cg, CgVal p)
{
    (void)cg;
    CgAddr a = {0};
    a.space = p.type->space;
    a.base = p.c[0];
    a.scale = 1;
    return a;
}

CgVal cg_pointer_of_addr(LangCg *cg, CgAddr *a, LangType *pty)
{
    CgVal p = cg_val_new(cg, pty, 1);
    if (a->idx.kind == ISA_OPD_NONE && a->off == 0) {
        p.c[0] = a->base;
        return p;
    }
    IsaOperand bytes;
    if (a->idx.kind == ISA_OPD_NONE) {
        bytes = lang_cg_imm((uint32_t)(int32_t)a->off);
    } else {
        bytes = lang_cg_new_vreg(cg, 32);
        IsaInst *in = lang_cg_emit(cg, ISA_OP_IMAD);
        in->opd[0] = bytes, in->opd[1] = a->idx, in->opd[2] = lang_cg_imm((uint32_t)a->scale);
        in->opd[3] = lang_cg_imm((uint32_t)(int32_t)a->off);
    }
    if (is_dev(a->space)) {
        IsaOperand wide = bytes.kind == ISA_OPD_IMM
                              ? lang_cg_imm((uint64_t)(int64_t)(int32_t)bytes.imm)
                              : cvt(cg, bytes, ISA_TYPE_S64, ISA_TYPE_S32, 64);
        p.c[0] = emit3(cg, ISA_OP_IADD64, 64, a->base, wide);
    } else {
        p.c[0] = emit3(cg, ISA_OP_IADD, 32, a->base, bytes);
    }
    return p;
}

/* addr += index * scale (index a 32-bit operand of integer type it). */
static void addr_add(LangCg *cg, CgAddr *a, IsaOperand index, LangType *it, int scale)
{
    if (cg_width_of(it) == 64)
        index = cvt(cg, index, ISA_TYPE_U32, reg_type(it), 32);
    if (index.kind == ISA_OPD_IMM) {
        a->off += (int64_t)(int32_t)index.imm * scale;
        return;
    }
    if (a->idx.kind == ISA_OPD_NONE) {
        a->idx = index;
        a->scale = scale;
        return;
    }
    /* two dynamic terms: fold into bytes */
    IsaOperand t = lang_cg_new_vreg(cg, 32);
    IsaInst *in = lang_cg_emit(cg, ISA_OP_IMUL);
    in->opd[0] = t, in->opd[1] = a->idx, in->opd[2] = lang_cg_imm((uint32_t)a->scale);
    IsaOperand s = lang_cg_new_vreg(cg, 32);
    in = lang_cg_emit(cg, ISA_OP_IMAD);
    in->opd[0] = s, in->opd[1] = index, in->opd[2] = lang_cg_imm((uint32_t)scale), in->opd[3] = t;
    a->idx = s;
    a->scale = 1;
}

/* ---- lvalues -------------------------------------------------------------------------------------- */

static CgLval *new_lval(LangCg *cg, CgLvKind k, LangType *ty)
{
    CgLval *lv = lang_alloc(cg->ctx, sizeof *lv);
    lv->kind = k;
    lv->type = ty;
    return lv;
}

static CgLval *var_lval(LangCg *cg, LangNode *node)
{
    LangVar *v = node->var;
    CgBind *b = cg_bind(cg, v);
    if (b->kind == BIND_NONE && v->kind == LVAR_THREADGROUP) {
        b->kind = BIND_MEM;
        memset(&b->addr, 0, sizeof b->addr);
        b->addr.space = LAS_THREADGROUP;
        b->addr.base = lang_cg_imm((uint32_t)v->tg_offset);
        b->addr.scale = 1;
    }
    if (b->kind == BIND_MEM) {
        CgLval *lv = new_lval(cg, LV_MEM, v->type);
        lv->addr = b->addr;
        return lv;
    }
    if (b->kind == BIND_REG) {
        CgLval *lv = new_lval(cg, LV_REG, v->type);
        lv->regs = b->regs;
        return lv;
    }
    lang_error_at(cg->ctx, node->tok, "'%s' cannot be assigned here", v->name);
}

static int member_leaf_start(LangType *st, LangMember *mem)
{
    int k = 0;
    for (LangMember *m = st->members; m && m != mem; m = m->next)
        k += cg_leaf_count(m->type);
    return k;
}

static bool lvalue_like(LangNode *n)
{
    switch (n->kind) {
    case LND_VAR:
        return n->var->kind == LVAR_LOCAL || n->var->kind == LVAR_PARAM ||
               n->var->kind == LVAR_THREADGROUP || n->var->kind == LVAR_CONSTANT;
    case LND_DEREF: return true;
    case LND_INDEX:
        return n->lhs->type->kind == LTY_POINTER || lvalue_like(n->lhs);
    case LND_MEMBER: case LND_SWIZZLE: return lvalue_like(n->lhs);
    default: return false;
    }
}

static CgLval *sub_lval(LangCg *cg, CgLval *base, LangType *ty, int leaf_start, int byte_off)
{
    if (base->kind == LV_REG) {
        CgLval *lv = new_lval(cg, LV_REG, ty);
        lv->regs = base->regs + leaf_start;
        return lv;
    }
    if (base->kind == LV_MEM) {
        CgLval *lv = new_lval(cg, LV_MEM, ty);
        lv->addr = base->addr;
        lv->addr.off += byte_off;
        return lv;
    }
    cg_error(cg, NULL, "unsupported lvalue");
}

CgLval *cg_lval(LangCg *cg, LangNode *node)
{
    cg_set_loc(cg, node->tok);
    switch (node->kind) {
    case LND_VAR:
        if (node->var->kind == LVAR_CONSTANT) {
            CgBind *b = cg_bind(cg, node->var);
            if (b->kind == BIND_MEM) {
                CgLval *lv = new_lval(cg, LV_MEM, node->type);
                lv->addr = b->addr;
                return lv;
            }
        }
        return var_lval(cg, node);
    case LND_DEREF: {
        CgVal p = cg_expr(cg, node->lhs);
        if (p.ref)
            return p.ref;
        CgLval *lv = new_lval(cg, LV_MEM, node->type);
        lv->addr = cg_addr_of_pointer(cg, p);
        return lv;
    }
    case LND_MEMBER: {
        CgLval *base = cg_lval(cg, node->lhs);
        LangType *st = node->lhs->type;
        return sub_lval(cg, base, node->type, member_leaf_start(st, node->member), node->member->offset);
    }
    case LND_SWIZZLE: {
        CgLval *lv = new_lval(cg, LV_SWZ, node->type);
        lv->base = cg_lval(cg, node->lhs);
        memcpy(lv->swz, node->swizzle, 4);
        lv->swz_len = node->swizzle_len;
        return lv;
    }
    case LND_INDEX: {
        LangType *lt = node->lhs->type;
        if (lt->kind == LTY_POINTER) {
            CgVal p = cg_expr(cg, node->lhs);
            CgVal i = cg_expr(cg, node->rhs);
            CgLval *lv = new_lval(cg, LV_MEM, node->type);
            lv->addr = cg_addr_of_pointer(cg, p);
            addr_add(cg, &lv->addr, i.c[0], node->rhs->type, lt->base->size);
            return lv;
        }
        CgLval *base = cg_lval(cg, node->lhs);
        bool ok;
        int64_t k = cg_const_int(cg, node->rhs, &ok);
        if (lt->kind == LTY_VECTOR) {
            if (ok) {
                if (k < 0 || k >= lt->len)
                    cg_error(cg, node->tok, "vector index out of range");
                return sub_lval(cg, base, node->type, (int)k, (int)k * lt->base->size);
            }
            if (base->kind == LV_MEM) {
                CgLval *lv = new_lval(cg, LV_MEM, node->type);
                lv->addr = base->addr;
                addr_add(cg, &lv->addr, cg_expr(cg, node->rhs).c[0], node->rhs->type, lt->base->size);
                return lv;
            }
            CgLval *lv = new_lval(cg, LV_DYNVEC, node->type);
            lv->base = base;
            lv->dyn = cg_convert(cg, cg_expr(cg, node->rhs).c[0], node->rhs->type, lang_ty_uint);
            return lv;
        }
        if (lt->kind != LTY_ARRAY)
            cg_error(cg, node->tok, "cannot index this value");
        int per = cg_leaf_count(lt->base);
        if (ok) {
            if (k < 0 || k >= lt->len)
                cg_error(cg, node->tok, "array index out of range");
            return sub_lval(cg, base, node->type, (int)k * per, (int)k * lt->base->size);
        }
        if (base->kind != LV_MEM)
            cg_error(cg, node->tok, "an array in registers cannot be indexed by a variable here");
        CgLval *lv = new_lval(cg, LV_MEM, node->type);
        lv->addr = base->addr;
        addr_add(cg, &lv->addr, cg_expr(cg, node->rhs).c[0], node->rhs->type, lt->base->size);
        return lv;
    }
    default:
        cg_error(cg, node->tok, "expected an assignable value");
    }
}

CgVal cg_load(LangCg *cg, CgLval *lv)
{
    switch (lv->kind) {
    case LV_REG: {
        CgVal v = cg_val_new(cg, lv->type, cg_leaf_count(lv->type));
        memcpy(v.c, lv->regs, (size_t)v.n * sizeof *v.c);
        return v;
    }
    case LV_MEM: return cg_load_addr(cg, &lv->addr, lv->type);
    case LV_SWZ: {
        CgVal b = cg_load(cg, lv->base);
        CgVal v = cg_val_new(cg, lv->type, lv->swz_len);
        for (int i = 0; i < lv->swz_len; i++)
            v.c[i] = b.c[lv->swz[i]];
        return v;
    }
    default: { /* LV_DYNVEC: a select chain */
        CgVal b = cg_load(cg, lv->base);
        int w = cg_width_of(lv->type);
        IsaOperand r = b.c[0];
        for (int i = 1; i < b.n; i++) {
            IsaOperand c = cg_compare(cg, LND_EQ, lang_ty_uint, lv->dyn, lang_cg_imm((uint32_t)i));
            r = cg_select(cg, c, b.c[i], r, w);
        }
        CgVal v = cg_val_new(cg, lv->type, 1);
        v.c[0] = r;
        return v;
    }
    }
}

/* Sources that are destination registers at another position (v = v.yx) are read into
 * temporaries first, so that no write clobbers a later read. */
static CgVal unalias(LangCg *cg, IsaOperand *dst, int ndst, CgVal v, bool any_position)
{
    bool overlap = false;
    for (int i = 0; i < v.n && !overlap; i++)
        for (int k = 0; k < ndst && !overlap; k++)
            overlap = (any_position || k != i) && is_reg(v.c[i]) && is_reg(dst[k]) && v.c[i].index == dst[k].index;
    if (!overlap)
        return v;
    CgVal c = cg_val_new(cg, v.type, v.n);
    for (int i = 0; i < v.n; i++) {
        int w = v.c[i].kind == ISA_OPD_R16 ? 16 : v.c[i].kind == ISA_OPD_R64 ? 64 : 32;
        c.c[i] = is_reg(v.c[i]) ? cg_mov(cg, lang_cg_new_vreg(cg, w), v.c[i], w) : v.c[i];
    }
    return c;
}

void cg_store(LangCg *cg, CgLval *lv, CgVal v)
{
    switch (lv->kind) {
    case LV_REG: {
        int n;
        CgLeaf *l = cg_leaves(cg, lv->type, &n);
        v = unalias(cg, lv->regs, n, v, false);
        for (int i = 0; i < n && i < v.n; i++) {
            if (!is_reg(lv->regs[i]))
                cg_error(cg, NULL, "internal error: assignment to a read-only binding");
            cg_mov(cg, lv->regs[i], v.c[i], cg_width_of(l[i].scalar));
        }
        return;
    }
    case LV_MEM: cg_store_addr(cg, &lv->addr, lv->type, v); return;
    case LV_SWZ: {
        if (lv->base->kind == LV_MEM) { /* f[i].zx = v: store only z and x, no read-modify-write */
            LangType *s = lang_scalar_of(lv->base->type);
            CgVal part = cg_val_new(cg, s, 1);
            for (int i = 0; i < lv->swz_len; i++) {
                CgLval one = *lv->base;
                one.type = s;
                one.addr.off += (int64_t)lv->swz[i] * s->size;
                part.c[0] = v.c[i];
                cg_store(cg, &one, part);
            }
            return;
        }
        CgVal b = cg_load(cg, lv->base);
        CgVal nb = cg_val_new(cg, lv->base->type, b.n);
        memcpy(nb.c, b.c, (size_t)b.n * sizeof *b.c);
        for (int i = 0; i < lv->swz_len; i++)
            nb.c[lv->swz[i]] = v.c[i];
        if (lv->base->kind == LV_REG) { /* write only the named components */
            v = unalias(cg, lv->base->regs, b.n, v, true);
            CgVal part = cg_val_new(cg, lv->type, 1);
            for (int i = 0; i < lv->swz_len; i++) {
                CgLval one = *lv->base;
                one.type = lang_scalar_of(lv->base->type);
                one.regs = lv->base->regs + lv->swz[i];
                part.c[0] = v.c[i];
                cg_store(cg, &one, part);
            }
            return;
        }
        cg_store(cg, lv->base, nb);
        return;
    }
    default: { /* LV_DYNVEC */
        CgVal b = cg_load(cg, lv->base);
        int w = cg_width_of(lv->type);
        CgVal nb = cg_val_new(cg, lv->base->type, b.n);
        for (int i = 0; i < b.n; i++) {
            IsaOperand c = cg_compare(cg, LND_EQ, lang_ty_uint, lv->dyn, lang_cg_imm((uint32_t)i));
            nb.c[i] = cg_select(cg, c, v.c[0], b.c[i], w);
        }
        cg_store(cg, lv->base, nb);
        return;
    }
    }
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
        return n->kind == LND_BUILTIN && n->builtin < LANG_BI_CLZ && cg_expr_is_simple(n->args) &&
               (!n->args || cg_expr_is_simple(n->args->next));
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
        CgVal v = src;
        v.type = node->type;
        v.ref = NULL;
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
            i = cvt(cg, i, ISA_TYPE_S32, reg_type(it), 32), it = lang_ty_int;
        i = i.kind == ISA_OPD_IMM ? lang_cg_imm((uint32_t)-(int32_t)i.imm)
                                  : emit3(cg, ISA_OP_ISUB, 32, lang_cg_imm(0), i);
    }
    if (p.ref)
        cg_error(cg, node->tok, "pointer arithmetic on a variable held in registers is not supported");
    CgAddr a = cg_addr_of_pointer(cg, p);
    addr_add(cg, &a, i, it, p.type->base->size ? p.type->base->size : 1);
    return cg_pointer_of_addr(cg, &a, node->type);
}

static CgVal incdec(LangCg *cg, LangNode *node)
{
    CgLval *lv = cg_lval(cg, node->lhs);
    CgVal old = cg_load(cg, lv);
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
        addr_add(cg, &a, lang_cg_imm(inc ? 1u : (uint32_t)-1), lang_ty_int, ty->base->size);
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
    CgVal old = cg_load(cg, lv);
    CgVal nv;
    if (ty->kind == LTY_POINTER)
        nv = pointer_arith(cg, node->lhs, old, node->rhs, node->assign_op == LND_SUB);
    else
        nv = binop_val(cg, node->lhs, node->assign_op, old, cg_expr(cg, node->rhs));
    nv.type = ty;
    cg_store(cg, lv, nv);
    return nv;
}

CgVal cg_expr(LangCg *cg, LangNode *node)
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
        if (lvalue_like(node->lhs))
            return cg_load(cg, cg_lval(cg, node));
        {
            CgVal s = cg_expr(cg, node->lhs);
            CgVal v = cg_val_new(cg, ty, cg_leaf_count(ty));
            memcpy(v.c, s.c + member_leaf_start(node->lhs->type, node->member),
                   (size_t)v.n * sizeof *v.c);
            return v;
        }
    case LND_SWIZZLE: {
        CgVal s = cg_expr(cg, node->lhs);
        CgVal v = cg_val_new(cg, ty, node->swizzle_len);
        for (int i = 0; i < node->swizzle_len; i++)
            v.c[i] = s.c[node->swizzle[i] < s.n ? node->swizzle[i] : 0];
        return v;
    }
    case LND_INDEX:
        if (lvalue_like(node))
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
                v.c[i] = emit3(cg, ISA_OP_XOR, 32, b, lang_cg_imm(1));
            } else if (node->kind == LND_BITNOT) {
                bool wide = cg_width_of(sc) == 64;
                IsaOperand d = lang_cg_new_vreg(cg, wide ? 64 : 32);
                IsaInst *in = lang_cg_emit(cg, wide ? ISA_OP_NOT64 : ISA_OP_NOT);
                in->opd[0] = d, in->opd[1] = a;
                v.c[i] = cg_normalize(cg, d, sc);
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
            if (is_dev(node->lhs->type->space))
                diff = cvt(cg, emit3(cg, ISA_OP_ISUB64, 64, a.c[0], b.c[0]), ISA_TYPE_S32, ISA_TYPE_S64, 32);
            else
                diff = emit3(cg, ISA_OP_ISUB, 32, a.c[0], b.c[0]);
            diff = emit3(cg, ISA_OP_SDIV, 32, diff, lang_cg_imm((uint32_t)size));
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
