/*
 * codegen_mem.c — where values live: scalar leaves of aggregates (codegen_internal.h), moves
 * between operands, memory addresses and the loads and stores of every address space
 * (formats, .xN vector runs, element indexes, pointer <-> address), and lvalues in
 * registers, memory, swizzles and run-time-indexed vectors, with the reads and writes that
 * go through them (read-before-write when an assignment's sources alias its destination).
 * Arithmetic and the expression walk are in codegen_expr.c.
 */
#include <string.h>

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

IsaOperand cg_mov(LangCg *cg, IsaOperand dst, IsaOperand src, int width)
{
    if (src.kind == dst.kind && src.index == dst.index && cg_is_reg(src))
        return dst;
    IsaInst *in = lang_cg_emit(cg, width == 16 ? ISA_OP_MOV16 : width == 64 ? ISA_OP_MOV64 : ISA_OP_MOV);
    in->opd[0] = dst;
    in->opd[1] = src;
    return dst;
}

IsaOperand cg_to_reg(LangCg *cg, IsaOperand src, int width)
{
    if (cg_is_reg(src))
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


/* ---- addresses, loads and stores ---------------------------------------------------------------- */

static IsaMemFormat fmt_of(const LangType *t)
{
    switch (t->kind) {
    case LTY_BOOL: case LTY_UCHAR: return ISA_FMT_U8;
    case LTY_CHAR: return ISA_FMT_S8;
    case LTY_SHORT: case LTY_USHORT: case LTY_HALF: case LTY_BFLOAT:
        return ISA_FMT_H16; /* into a half */
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
        if (mul == 1 && add == 0)
            return a->idx;
        IsaOperand d = lang_cg_new_vreg(cg, 32);
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
    return cg_emit3(cg, ISA_OP_ASR, 32, bytes, lang_cg_imm(fsz == 2 ? 1 : fsz == 4 ? 2 : 3));
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

/* A read of a program-scope constant array at a constant index: the values themselves
 * (their bytes are known now), as immediates, so an unrolled loop over a table loads
 * nothing. False (nothing written) unless every leaf is known. */
static bool fold_constant_load(LangCg *cg, CgAddr *a, const CgLeaf *l, int n, CgVal *v)
{
    if (a->space != LAS_CONSTANT)
        return false;
    for (int i = 0; i < n; i++) {
        uint64_t bits;
        const LangType *s = l[i].scalar;
        if (s->kind == LTY_POINTER || !cg_constant_data_at(cg, a, l[i].off, s->size, &bits))
            return false;
        if (s->kind == LTY_CHAR)
            bits = (uint32_t)(int32_t)(int8_t)bits; /* kept sign-extended in 32 bits */
        v->c[i] = lang_cg_imm(bits);
    }
    return true;
}

CgVal cg_load_addr(LangCg *cg, CgAddr *a, LangType *ty)
{
    int n;
    CgLeaf *l = cg_leaves(cg, ty, &n);
    CgVal v = cg_val_new(cg, ty, n);
    if (fold_constant_load(cg, a, l, n, &v))
        return v;
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

void cg_load_into(LangCg *cg, CgAddr *a, LangType *scalar, int n, IsaOperand dst)
{
    mem_op(cg, false, a, 0, fmt_of(scalar), n, dst);
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
            consecutive = consecutive && cg_is_reg(v.c[i + k]) && v.c[i + k].index == v.c[i].index + k;
        IsaOperand first;
        if (consecutive && (run > 1 || cg_is_reg(v.c[i]))) {
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
    if (cg_is_dev(a->space)) {
        IsaOperand wide = bytes.kind == ISA_OPD_IMM
                              ? lang_cg_imm((uint64_t)(int64_t)(int32_t)bytes.imm)
                              : cg_cvt(cg, bytes, ISA_TYPE_S64, ISA_TYPE_S32, 64);
        p.c[0] = cg_emit3(cg, ISA_OP_IADD64, 64, a->base, wide);
    } else {
        p.c[0] = cg_emit3(cg, ISA_OP_IADD, 32, a->base, bytes);
    }
    return p;
}

/* The greatest common divisor of two byte scales; 1 unless both are positive. */
static int common_factor(int x, int y)
{
    if (x <= 0 || y <= 0)
        return 1;
    while (y) {
        int r = x % y;
        x = y;
        y = r;
    }
    return x;
}

/* addr += index * scale (index a 32-bit operand of integer type it). */
void cg_addr_add(LangCg *cg, CgAddr *a, IsaOperand index, LangType *it, int scale)
{
    if (cg_width_of(it) == 64)
        index = cg_cvt(cg, index, ISA_TYPE_U32, cg_reg_type(it), 32);
    else if (cg_is_int16(it))
        index = cg_widen16(cg, index, it);
    if (index.kind == ISA_OPD_IMM) {
        a->off += (int64_t)(int32_t)index.imm * scale;
        return;
    }
    if (a->idx.kind == ISA_OPD_NONE) {
        a->idx = index;
        a->scale = scale;
        return;
    }
    /* Two dynamic terms: one index in units of the scales' common factor g, so that
     * As[y][x] of floats stays an element index (y * 16 + x, scale 4) rather than bytes
     * that elem_index would have to shift back down. idx * g equals the byte sum modulo
     * 2^32 whatever g is. */
    int g = common_factor(a->scale, scale);
    int ma = a->scale / g, mb = scale / g;
    IsaOperand s = lang_cg_new_vreg(cg, 32);
    IsaInst *in;
    if (mb == 1) {
        in = lang_cg_emit(cg, ISA_OP_IMAD);
        in->opd[0] = s, in->opd[1] = a->idx, in->opd[2] = lang_cg_imm((uint32_t)ma);
        in->opd[3] = index;
    } else {
        IsaOperand t = a->idx;
        if (ma != 1) {
            t = lang_cg_new_vreg(cg, 32);
            in = lang_cg_emit(cg, ISA_OP_IMUL);
            in->opd[0] = t, in->opd[1] = a->idx, in->opd[2] = lang_cg_imm((uint32_t)ma);
        }
        in = lang_cg_emit(cg, ISA_OP_IMAD);
        in->opd[0] = s, in->opd[1] = index, in->opd[2] = lang_cg_imm((uint32_t)mb);
        in->opd[3] = t;
    }
    a->idx = s;
    a->scale = g;
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
    if (b->kind == BIND_NONE && v->kind == LVAR_LOCAL && !v->address_taken) {
        /* a temporary the parser made inside an expression (a texture call's coordinate,
         * parse_texture.c) has no declaration: its first assignment binds it */
        b->kind = BIND_REG;
        b->regs = cg_val_fresh(cg, v->type).c;
    }
    if (b->kind == BIND_REG) {
        CgLval *lv = new_lval(cg, LV_REG, v->type);
        lv->regs = b->regs;
        return lv;
    }
    if (b->kind == BIND_VALUE && !b->value.ref && b->value.n == cg_leaf_count(v->type)) {
        /* a value never written (a program-scope constant struct whose const member
         * function is called): read through, and never stored to (cg_store refuses) */
        CgLval *lv = new_lval(cg, LV_REG, v->type);
        lv->regs = b->value.c;
        return lv;
    }
    lang_error_at(cg->ctx, node->tok, "'%s' cannot be assigned here", v->name);
}

int cg_member_leaf_start(LangType *st, LangMember *mem)
{
    int k = 0;
    for (LangMember *m = st->members; m && m != mem; m = m->next)
        k += cg_leaf_count(m->type);
    return k;
}

bool cg_lvalue_like(LangNode *n)
{
    switch (n->kind) {
    case LND_VAR:
        return n->var->kind == LVAR_LOCAL || n->var->kind == LVAR_PARAM ||
               n->var->kind == LVAR_THREADGROUP || n->var->kind == LVAR_CONSTANT;
    case LND_DEREF: return true;
    case LND_INDEX:
        return n->lhs->type->kind == LTY_POINTER || cg_lvalue_like(n->lhs);
    case LND_MEMBER: case LND_SWIZZLE: case LND_ELEMENTS: return cg_lvalue_like(n->lhs);
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
    if (base->kind == LV_ELEMS) { /* m.thread_elements()[k]: element k of the pair */
        CgLval *lv = new_lval(cg, LV_SWZ, ty);
        lv->base = base;
        lv->swz[0] = (uint8_t)leaf_start;
        lv->swz_len = 1;
        return lv;
    }
    if (base->kind == LV_SWZ && leaf_start < base->swz_len) { /* v.zx[1]: v's component x */
        CgLval *lv = new_lval(cg, LV_SWZ, ty);
        lv->base = base->base;
        lv->swz[0] = base->swz[leaf_start];
        lv->swz_len = 1;
        return lv;
    }
    cg_error(cg, NULL, "unsupported lvalue");
}

static CgLval *cg_lval_at(LangCg *cg, LangNode *node)
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
        return sub_lval(cg, base, node->type, cg_member_leaf_start(st, node->member), node->member->offset);
    }
    case LND_ELEMENTS: {
        CgLval *lv = new_lval(cg, LV_ELEMS, node->type);
        lv->base = cg_lval(cg, node->lhs);
        return lv;
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
            if (p.ref) /* the parser puts such objects in memory (parse_struct.c) */
                cg_error(cg, node->tok, "indexing a pointer to a variable held in registers is "
                         "not supported");
            CgLval *lv = new_lval(cg, LV_MEM, node->type);
            lv->addr = cg_addr_of_pointer(cg, p);
            cg_addr_add(cg, &lv->addr, i.c[0], node->rhs->type, lt->base->size);
            return lv;
        }
        CgLval *base = cg_lval(cg, node->lhs);
        bool ok;
        int64_t k = cg_const_int(cg, node->rhs, &ok);
        if (!ok && (lt->kind == LTY_VECTOR || base->kind == LV_REG)) {
            /* a counter of an unrolled loop, or a local known constant: out of range, it is
             * in code that no lane may run (`if (m < 4) v[m]`), indexed as a variable */
            ok = cg_fold_index(cg, node->rhs, &k) &&
                 ((k >= 0 && k < lt->len) || lt->kind == LTY_ARRAY);
        }
        if (lt->kind == LTY_VECTOR) {
            if (ok) {
                if (k < 0 || k >= lt->len)
                    cg_error(cg, node->tok, "vector index out of range");
                return sub_lval(cg, base, node->type, (int)k, (int)k * lt->base->size);
            }
            if (base->kind == LV_MEM) {
                CgLval *lv = new_lval(cg, LV_MEM, node->type);
                lv->addr = base->addr;
                cg_addr_add(cg, &lv->addr, cg_expr(cg, node->rhs).c[0], node->rhs->type, lt->base->size);
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
            if (node->addr_only && k == lt->len && base->kind == LV_MEM) {
                CgLval *lv = new_lval(cg, LV_MEM, node->type); /* &a[N]: an address only */
                lv->addr = base->addr;
                lv->addr.off += (int)k * lt->base->size;
                return lv;
            }
            if (k < 0 || k >= lt->len)
                cg_error(cg, node->tok, "array index out of range");
            return sub_lval(cg, base, node->type, (int)k * per, (int)k * lt->base->size);
        }
        if (base->kind != LV_MEM && per == 1) {
            /* reached through a pointer to registers (a member function's `this->v[i]`),
             * which the placement of arrays (codegen_unroll.c) cannot see: a select over the
             * elements, as for a vector */
            CgLval *lv = new_lval(cg, LV_DYNVEC, node->type);
            lv->base = base;
            lv->dyn = cg_convert(cg, cg_expr(cg, node->rhs).c[0], node->rhs->type, lang_ty_uint);
            return lv;
        }
        if (base->kind != LV_MEM)
            cg_error(cg, node->tok, "an array in registers cannot be indexed by a variable here");
        CgLval *lv = new_lval(cg, LV_MEM, node->type);
        lv->addr = base->addr;
        cg_addr_add(cg, &lv->addr, cg_expr(cg, node->rhs).c[0], node->rhs->type, lt->base->size);
        return lv;
    }
    default:
        if (node->type->kind == LTY_STRUCT) {
            /* a temporary (`Acc(x).result()`): the object a member function runs on, in
             * registers of its own that die with the call */
            CgVal v = cg_expr(cg, node);
            CgVal t = cg_val_fresh(cg, node->type);
            cg_copy_into(cg, t.c, node->type, v);
            CgLval *lv = new_lval(cg, LV_REG, node->type);
            lv->regs = t.c;
            return lv;
        }
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
    case LV_ELEMS: return cg_matrix_elements(cg, cg_load(cg, lv->base).c[0], lv->type);
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
            overlap = (any_position || k != i) && cg_is_reg(v.c[i]) && cg_is_reg(dst[k]) && v.c[i].index == dst[k].index;
    if (!overlap)
        return v;
    CgVal c = cg_val_new(cg, v.type, v.n);
    for (int i = 0; i < v.n; i++) {
        int w = v.c[i].kind == ISA_OPD_R16 ? 16 : v.c[i].kind == ISA_OPD_R64 ? 64 : 32;
        c.c[i] = cg_is_reg(v.c[i]) ? cg_mov(cg, lang_cg_new_vreg(cg, w), v.c[i], w) : v.c[i];
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
            if (!cg_is_reg(lv->regs[i]))
                cg_error(cg, NULL, "internal error: assignment to a read-only binding");
            cg_mov(cg, lv->regs[i], v.c[i], cg_width_of(l[i].scalar));
        }
        return;
    }
    case LV_MEM: cg_store_addr(cg, &lv->addr, lv->type, v); return;
    case LV_ELEMS: {
        CgVal m = cg_val_new(cg, lv->base->type, 1);
        m.c[0] = cg_matrix_of_elements(cg, v);
        cg_store(cg, lv->base, m);
        return;
    }
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

/* Evaluates node with its own source location, then gives the caller back its location, so
 * the instructions a parent emits after evaluating its operands carry the parent's
 * line:col (a load in `a[i + j]` is at the `[`, not at `j`). */
CgLval *cg_lval(LangCg *cg, LangNode *node)
{
    IsaSourceLoc saved = cg->loc;
    CgLval *result = cg_lval_at(cg, node);
    cg->loc = saved;
    return result;
}
