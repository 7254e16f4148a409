/*
 * codegen_matrix.c — SIMD-group matrices in code generation. A simdgroup_float8x8 or
 * simdgroup_half8x8 is one 64-bit leaf: this lane's two elements as f32 in a register pair
 * (docs/ISA.md, "Matrices"; a half matrix holds binary16 values). Its layout decides which
 * elements a lane loads and stores: lane l = b4 b3 b2 b1 b0 holds row 4*b4 + 2*b2 + b1,
 * columns 4*b3 + 2*b0 and the next. So simdgroup_load and simdgroup_store are ordinary
 * per-lane memory accesses at addresses computed from the lane ID (what the checkers see),
 * and only the multiply is a matrix instruction (mma32, or mma16 into a half matrix).
 */
#include "codegen_internal.h"

/* The row and first column this lane holds (32-bit registers). */
void cg_matrix_lane_coords(LangCg *cg, IsaOperand *row, IsaOperand *col)
{
    IsaOperand l = cg_lane_id(cg);
    /* isa_matrix_row(l) = ((l >> 2) & 4) | ((l >> 1) & 3);
     * isa_matrix_col(l) = ((l >> 1) & 4) | ((l << 1) & 2) */
    IsaOperand r4 = cg_emit3(cg, ISA_OP_AND, 32, cg_emit3(cg, ISA_OP_LSR, 32, l, lang_cg_imm(2)),
                             lang_cg_imm(4));
    IsaOperand half = cg_emit3(cg, ISA_OP_LSR, 32, l, lang_cg_imm(1));
    *row = cg_emit3(cg, ISA_OP_OR, 32, r4, cg_emit3(cg, ISA_OP_AND, 32, half, lang_cg_imm(3)));
    IsaOperand c4 = cg_emit3(cg, ISA_OP_AND, 32, half, lang_cg_imm(4));
    IsaOperand c2 = cg_emit3(cg, ISA_OP_AND, 32, cg_emit3(cg, ISA_OP_SHL, 32, l, lang_cg_imm(1)),
                             lang_cg_imm(2));
    *col = cg_emit3(cg, ISA_OP_OR, 32, c4, c2);
}

/* An element value of type `elem` (float or half) as the f32 a matrix register holds. */
IsaOperand cg_matrix_f32(LangCg *cg, IsaOperand v, const LangType *elem)
{
    if (elem->kind != LTY_HALF)
        return cg_to_reg(cg, v, 32);
    return cg_cvt(cg, cg_to_reg(cg, v, 16), ISA_TYPE_F32, ISA_TYPE_F16, 32);
}

static IsaOperand pair(LangCg *cg, IsaOperand lo, IsaOperand hi)
{
    return cg_emit3(cg, ISA_OP_MKPAIR, 64, lo, hi);
}

static CgVal matrix_val(LangCg *cg, LangType *ty, IsaOperand m)
{
    CgVal v = cg_val_new(cg, ty, 1);
    v.c[0] = m;
    return v;
}

/* d = cond ? a : 0 where cond is row == col + add. */
static IsaOperand diagonal_element(LangCg *cg, IsaOperand row, IsaOperand col, int add,
                                   IsaOperand value)
{
    IsaOperand c = add ? cg_emit3(cg, ISA_OP_IADD, 32, col, lang_cg_imm((uint32_t)add)) : col;
    IsaOperand d = lang_cg_new_vreg(cg, 32);
    IsaInst *in = lang_cg_emit(cg, ISA_OP_ICMPSEL);
    in->cond = ISA_COND_EQ;
    in->opd[0] = d, in->opd[1] = row, in->opd[2] = c, in->opd[3] = value;
    in->opd[4] = lang_cg_imm(0);
    return d;
}

/* The byte address of a lane's element at (row, col) of memory with `epr` elements a row:
 * base + ((oy + row) * epr + ox + col) * size. */
static CgAddr element_addr(LangCg *cg, CgAddr base, IsaOperand row, IsaOperand col,
                           IsaOperand epr, IsaOperand ox, IsaOperand oy, int size)
{
    IsaOperand r = cg_emit3(cg, ISA_OP_IADD, 32, oy, row);
    IsaOperand c = cg_emit3(cg, ISA_OP_IADD, 32, ox, col);
    IsaOperand index = lang_cg_new_vreg(cg, 32);
    IsaInst *in = lang_cg_emit(cg, ISA_OP_IMAD);
    in->opd[0] = index, in->opd[1] = r, in->opd[2] = epr, in->opd[3] = c;
    cg_addr_add(cg, &base, index, lang_ty_uint, size);
    return base;
}

/* The operands of simdgroup_load/store after the matrix: address, elements per row,
 * origin (column, row), transposed. */
typedef struct MatrixMem {
    CgAddr addr;
    IsaOperand epr, ox, oy;
    bool transpose;
} MatrixMem;

static MatrixMem memory_operands(LangCg *cg, LangNode *ptr)
{
    MatrixMem m = {.epr = lang_cg_imm(8), .ox = lang_cg_imm(0), .oy = lang_cg_imm(0)};
    m.addr = cg_addr_of_pointer(cg, cg_expr(cg, ptr));
    LangNode *a = ptr->next;
    if (a) {
        m.epr = cg_scalar(cg, a);
        a = a->next;
    }
    if (a) {
        CgVal o = cg_expr(cg, a);
        m.ox = o.c[0], m.oy = o.c[1];
        a = a->next;
    }
    if (a) {
        bool ok = true;
        m.transpose = cg_const_int(cg, a, &ok) != 0;
        if (!ok)
            cg_error(cg, a->tok, "the transpose argument must be a constant");
    }
    return m;
}

/* Loads this lane's two elements: (row, col) and (row, col + 1) of the matrix, which are
 * memory (row, col..col+1), or, transposed, memory (col, row) and (col + 1, row). */
static IsaOperand load(LangCg *cg, LangNode *ptr, const LangType *elem)
{
    MatrixMem m = memory_operands(cg, ptr);
    IsaOperand row, col;
    cg_matrix_lane_coords(cg, &row, &col);
    LangType *et = (LangType *)elem;
    if (!m.transpose) {
        CgAddr a = element_addr(cg, m.addr, row, col, m.epr, m.ox, m.oy, et->size);
        CgVal v = cg_load_addr(cg, &a, lang_vector_of(cg->ctx, et, 2, true));
        return pair(cg, cg_matrix_f32(cg, v.c[0], elem), cg_matrix_f32(cg, v.c[1], elem));
    }
    IsaOperand e[2];
    for (int k = 0; k < 2; k++) {
        IsaOperand c = k ? cg_emit3(cg, ISA_OP_IADD, 32, col, lang_cg_imm(1)) : col;
        CgAddr a = element_addr(cg, m.addr, c, row, m.epr, m.ox, m.oy, et->size);
        e[k] = cg_matrix_f32(cg, cg_load_addr(cg, &a, et).c[0], elem);
    }
    return pair(cg, e[0], e[1]);
}

CgVal cg_matrix_elements(LangCg *cg, IsaOperand matrix, LangType *vec2)
{
    IsaOperand v = cg_to_reg(cg, matrix, 64);
    CgVal e = cg_val_new(cg, vec2, 2);
    for (int k = 0; k < 2; k++) {
        e.c[k] = lang_cg_new_vreg(cg, 32);
        IsaInst *in = lang_cg_emit(cg, k ? ISA_OP_HI32 : ISA_OP_LO32);
        in->opd[0] = e.c[k], in->opd[1] = v;
        if (vec2->base->kind == LTY_HALF)
            e.c[k] = cg_cvt(cg, e.c[k], ISA_TYPE_F16, ISA_TYPE_F32, 16);
    }
    return e;
}

IsaOperand cg_matrix_of_elements(LangCg *cg, CgVal elements)
{
    const LangType *elem = lang_scalar_of(elements.type);
    return pair(cg, cg_matrix_f32(cg, elements.c[0], elem), cg_matrix_f32(cg, elements.c[1], elem));
}

static void store(LangCg *cg, IsaOperand value, LangNode *ptr, const LangType *elem)
{
    MatrixMem m = memory_operands(cg, ptr);
    IsaOperand row, col;
    cg_matrix_lane_coords(cg, &row, &col);
    LangType *et = (LangType *)elem;
    CgVal e = cg_matrix_elements(cg, value, lang_vector_of(cg->ctx, et, 2, true));
    if (!m.transpose) {
        CgAddr a = element_addr(cg, m.addr, row, col, m.epr, m.ox, m.oy, et->size);
        cg_store_addr(cg, &a, e.type, e);
        return;
    }
    for (int k = 0; k < 2; k++) {
        IsaOperand c = k ? cg_emit3(cg, ISA_OP_IADD, 32, col, lang_cg_imm(1)) : col;
        CgAddr a = element_addr(cg, m.addr, c, row, m.epr, m.ox, m.oy, et->size);
        CgVal one = cg_val_new(cg, et, 1);
        one.c[0] = e.c[k];
        cg_store_addr(cg, &a, et, one);
    }
}

CgVal cg_matrix_builtin(LangCg *cg, LangNode *node)
{
    LangNode *arg = node->args;
    switch (node->builtin) {
    case LANG_BI_SIMDGROUP_FILLED: case LANG_BI_SIMDGROUP_DIAGONAL: {
        IsaOperand v = cg_matrix_f32(cg, cg_scalar(cg, arg), node->type->base);
        cg_set_loc(cg, node->tok);
        if (node->builtin == LANG_BI_SIMDGROUP_FILLED)
            return matrix_val(cg, node->type, pair(cg, v, v));
        IsaOperand row, col;
        cg_matrix_lane_coords(cg, &row, &col);
        return matrix_val(cg, node->type, pair(cg, diagonal_element(cg, row, col, 0, v),
                                               diagonal_element(cg, row, col, 1, v)));
    }
    case LANG_BI_SIMDGROUP_LOAD: {
        CgLval *d = cg_lval(cg, arg);
        cg_set_loc(cg, node->tok);
        IsaOperand m = load(cg, arg->next, arg->type->base);
        cg_store(cg, d, matrix_val(cg, arg->type, m));
        break;
    }
    case LANG_BI_SIMDGROUP_STORE: {
        IsaOperand v = cg_expr(cg, arg).c[0];
        cg_set_loc(cg, node->tok);
        store(cg, v, arg->next, arg->type->base);
        break;
    }
    default: { /* simdgroup_multiply(d, a, b), simdgroup_multiply_accumulate(d, a, b, c) */
        CgLval *d = cg_lval(cg, arg);
        IsaOperand a = cg_to_reg(cg, cg_expr(cg, arg->next).c[0], 64);
        IsaOperand b = cg_to_reg(cg, cg_expr(cg, arg->next->next).c[0], 64);
        IsaOperand c = arg->next->next->next ? cg_expr(cg, arg->next->next->next).c[0]
                                             : lang_cg_imm(0);
        cg_set_loc(cg, node->tok);
        IsaOperand r = lang_cg_new_vreg(cg, 64);
        IsaInst *in = lang_cg_emit(cg, arg->type->base->kind == LTY_HALF ? ISA_OP_MMA16
                                                                        : ISA_OP_MMA32);
        in->opd[0] = r, in->opd[1] = a, in->opd[2] = b, in->opd[3] = c;
        cg_store(cg, d, matrix_val(cg, arg->type, r));
        break;
    }
    }
    return cg_val_new(cg, lang_ty_void, 0);
}
