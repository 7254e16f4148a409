/*
 * codegen_tensor.c — Metal 4 tensor operations in code generation (parse_tensor.c types
 * them). A tensor is four leaves: the address of its origin element, its two extents in
 * bounds (columns, rows) and its row pitch in elements; a slice moves the address and trims
 * the extents. matmul2d's run() becomes what a SIMD-group does with the tensor unit: its
 * block of the destination tile held as 8x8 matrices (mma32's layout, two f32 elements a
 * lane in a register pair), and a loop over k in steps of 8 that loads this lane's elements
 * of the left and right operands and issues one `tmma` per block. Loads and stores are
 * ordinary per-lane accesses, so the checkers see every element; an element outside a
 * tensor's extents reads as 0 and is not written (edge checks), except through a
 * static_slice, which promises to stay inside and is not checked. A cooperative tensor is
 * this thread's elements of the destination: element 2*b + h is half h of block b (blocks
 * row by row), at the row and column mma32's layout gives the lane.
 */
#include "codegen_internal.h"

typedef struct Tensor {
    IsaOperand data, e[2], s1;
    LangType *elem;
    LangAddrSpace space;
    bool unchecked;
} Tensor;

static Tensor tensor_of(LangCg *cg, LangNode *n)
{
    CgVal v = cg_expr(cg, n);
    Tensor t = {.data = v.c[0], .e = {v.c[1], v.c[2]}, .s1 = v.c[3]};
    t.elem = n->type->tensor->elem;
    t.space = n->type->members->type->space;
    t.unchecked = n->type->tensor->unchecked;
    return t;
}

static IsaOperand icmpsel(LangCg *cg, IsaCond c, IsaOperand a, IsaOperand b, IsaOperand yes,
                          IsaOperand no)
{
    IsaOperand d = lang_cg_new_vreg(cg, 32);
    IsaInst *in = lang_cg_emit(cg, ISA_OP_ICMPSEL);
    in->cond = (uint8_t)c;
    in->opd[0] = d, in->opd[1] = a, in->opd[2] = b, in->opd[3] = yes, in->opd[4] = no;
    return d;
}

static IsaOperand add(LangCg *cg, IsaOperand a, int k)
{
    return k ? cg_emit3(cg, ISA_OP_IADD, 32, a, lang_cg_imm((uint32_t)k)) : a;
}

/* The address of element (x, y): data + (y * s1 + x) * size. */
static CgAddr element_addr(LangCg *cg, const Tensor *t, IsaOperand x, IsaOperand y)
{
    IsaOperand index = lang_cg_new_vreg(cg, 32);
    IsaInst *in = lang_cg_emit(cg, ISA_OP_IMAD);
    in->opd[0] = index, in->opd[1] = y, in->opd[2] = t->s1, in->opd[3] = x;
    CgAddr a = {.space = t->space, .base = t->data, .scale = 1};
    cg_addr_add(cg, &a, index, lang_ty_int, t->elem->size);
    return a;
}

/* 1 when (x, y) is inside the extents (unsigned compares: a negative coordinate is out). */
static IsaOperand in_bounds(LangCg *cg, const Tensor *t, IsaOperand x, IsaOperand y)
{
    IsaOperand row_ok = icmpsel(cg, ISA_COND_ULT, y, t->e[1], lang_cg_imm(1), lang_cg_imm(0));
    return icmpsel(cg, ISA_COND_ULT, x, t->e[0], row_ok, lang_cg_imm(0));
}

/* This lane's element (x, y) of t, or 0 outside its extents; as f32 when as_f32. */
static IsaOperand load(LangCg *cg, const Tensor *t, IsaOperand x, IsaOperand y, bool as_f32)
{
    CgAddr a = element_addr(cg, t, x, y);
    if (t->unchecked) {
        IsaOperand e = cg_load_addr(cg, &a, t->elem).c[0];
        return as_f32 ? cg_matrix_f32(cg, e, t->elem) : e;
    }
    /* 0, then the load in the lanes inside: the value is not read in the guard, so the loads
     * of a k-step all issue before the first wait */
    int width = cg_width_of(t->elem);
    IsaOperand v = lang_cg_new_vreg(cg, width);
    cg_mov(cg, v, lang_cg_imm(0), width);
    int skip;
    cg_if_cmp_begin(cg, ISA_OP_IF_ICMP, ISA_COND_NE, in_bounds(cg, t, x, y), lang_cg_imm(0),
                    &skip);
    cg_load_into(cg, &a, t->elem, 1, v);
    cg_if_end(cg, skip);
    return as_f32 ? cg_matrix_f32(cg, v, t->elem) : v;
}

/* Elements (x, y) and (x + 1, y), neighbours in memory, into v[0], v[1] (raw, 0 outside the
 * extents): one two-element load where both are inside, one for x alone where only it is. */
static void load_neighbours(LangCg *cg, const Tensor *t, IsaOperand x, IsaOperand y,
                            IsaOperand v[2])
{
    CgAddr a = element_addr(cg, t, x, y);
    int width = cg_width_of(t->elem);
    v[0] = lang_cg_new_vreg(cg, width);
    v[1] = lang_cg_new_vreg(cg, width); /* consecutive: the two-element load's registers */
    if (t->unchecked) {
        cg_load_into(cg, &a, t->elem, 2, v[0]);
        return;
    }
    cg_mov(cg, v[0], lang_cg_imm(0), width);
    cg_mov(cg, v[1], lang_cg_imm(0), width);
    IsaOperand row_ok = icmpsel(cg, ISA_COND_ULT, y, t->e[1], lang_cg_imm(1), lang_cg_imm(0));
    IsaOperand x1 = add(cg, x, 1);
    int skip;
    cg_if_cmp_begin(cg, ISA_OP_IF_ICMP, ISA_COND_NE,
                    icmpsel(cg, ISA_COND_ULT, x1, t->e[0], row_ok, lang_cg_imm(0)),
                    lang_cg_imm(0), &skip);
    cg_load_into(cg, &a, t->elem, 2, v[0]);
    cg_if_end(cg, skip);
    cg_if_cmp_begin(cg, ISA_OP_IF_ICMP, ISA_COND_NE,
                    icmpsel(cg, ISA_COND_EQ, x1, t->e[0], row_ok, lang_cg_imm(0)),
                    lang_cg_imm(0), &skip);
    cg_load_into(cg, &a, t->elem, 1, v[0]);
    cg_if_end(cg, skip);
}

/* Stores value (of t's element type) at (x, y) when inside the extents. */
static void store(LangCg *cg, const Tensor *t, IsaOperand x, IsaOperand y, IsaOperand value)
{
    CgAddr a = element_addr(cg, t, x, y);
    CgVal v = cg_val_new(cg, t->elem, 1);
    v.c[0] = value;
    if (t->unchecked) {
        cg_store_addr(cg, &a, t->elem, v);
        return;
    }
    int skip;
    cg_if_cmp_begin(cg, ISA_OP_IF_ICMP, ISA_COND_NE, in_bounds(cg, t, x, y), lang_cg_imm(0),
                    &skip);
    cg_store_addr(cg, &a, t->elem, v);
    cg_if_end(cg, skip);
}

/* ---- slices ----------------------------------------------------------------------------- */

static CgVal slice(LangCg *cg, LangNode *node)
{
    LangNode *src = node->args;
    Tensor t = tensor_of(cg, src);
    IsaOperand o[2] = {cg_scalar(cg, src->next), cg_scalar(cg, src->next->next)};
    cg_set_loc(cg, node->tok);
    const LangTensor *to = node->type->tensor;
    CgVal r = cg_val_new(cg, node->type, 4);
    CgAddr a = element_addr(cg, &t, o[0], o[1]);
    r.c[0] = cg_pointer_of_addr(cg, &a, node->type->members->type).c[0];
    for (int d = 0; d < 2; d++) {
        /* what is left of the parent from the origin on: 0 past its end or before it (an
         * unsigned compare: a negative origin is out) */
        IsaOperand left = icmpsel(cg, ISA_COND_ULT, o[d], t.e[d],
                                  cg_emit3(cg, ISA_OP_ISUB, 32, t.e[d], o[d]), lang_cg_imm(0));
        if (to->ext[d] < 0)
            r.c[1 + d] = left;
        else if (to->unchecked)
            r.c[1 + d] = lang_cg_imm((uint32_t)to->ext[d]);
        else
            r.c[1 + d] = icmpsel(cg, ISA_COND_SLT, left, lang_cg_imm((uint32_t)to->ext[d]), left,
                                 lang_cg_imm((uint32_t)to->ext[d]));
    }
    r.c[3] = t.s1;
    return r;
}

/* ---- the destination layout ------------------------------------------------------------- */

typedef struct Layout {
    int bm, bn;              /* 8x8 blocks of a SIMD-group's part: rows, columns */
    IsaOperand row0, col0;   /* where its part starts in the tile */
    IsaOperand r, c;         /* this lane's row and first column in a block */
} Layout;

static Layout layout_of(LangCg *cg, const LangTensor *t)
{
    Layout L;
    int sm = t->split_rows, sn = t->simdgroups / sm;
    int rm = t->m / sm, rn = t->n / sn;
    L.bm = rm / 8, L.bn = rn / 8;
    if (t->simdgroups == 1) {
        L.row0 = L.col0 = lang_cg_imm(0);
    } else {
        IsaOperand s = lang_cg_new_vreg(cg, 32);
        IsaInst *in = lang_cg_emit(cg, ISA_OP_GET_SR);
        in->opd[0] = s;
        in->opd[1].kind = ISA_OPD_SR;
        in->opd[1].index = ISA_SR_SIMDGROUP_INDEX_IN_THREADGROUP;
        IsaOperand sr = cg_emit3(cg, ISA_OP_UDIV, 32, s, lang_cg_imm((uint32_t)sn));
        IsaOperand sc = cg_emit3(cg, ISA_OP_UREM, 32, s, lang_cg_imm((uint32_t)sn));
        L.row0 = cg_emit3(cg, ISA_OP_IMUL, 32, sr, lang_cg_imm((uint32_t)rm));
        L.col0 = cg_emit3(cg, ISA_OP_IMUL, 32, sc, lang_cg_imm((uint32_t)rn));
    }
    cg_matrix_lane_coords(cg, &L.r, &L.c);
    return L;
}

/* The tile row and column of this thread's element e. */
static void element_at(LangCg *cg, const Layout *L, int e, IsaOperand *row, IsaOperand *col)
{
    int b = e / 2, bi = b / L->bn, bj = b % L->bn;
    *row = cg_emit3(cg, ISA_OP_IADD, 32, L->row0, add(cg, L->r, bi * 8));
    *col = cg_emit3(cg, ISA_OP_IADD, 32, L->col0, add(cg, L->c, bj * 8 + (e & 1)));
}

/* ct.load(t) / ct.store(t) */
static void coop_memory(LangCg *cg, LangNode *node, bool is_load)
{
    LangNode *ctn = node->args;
    const LangTensor *ct = ctn->type->tensor;
    CgLval *lv = cg_lval(cg, ctn);
    Tensor t = tensor_of(cg, ctn->next);
    cg_set_loc(cg, node->tok);
    Layout L = layout_of(cg, ct);
    CgVal v = is_load ? cg_val_new(cg, ctn->type, ct->capacity) : cg_load(cg, lv);
    for (int e = 0; e < ct->capacity; e++) {
        IsaOperand row, col;
        element_at(cg, &L, e, &row, &col);
        if (is_load)
            v.c[e] = cg_convert(cg, load(cg, &t, col, row, false), t.elem, ct->elem);
        else
            store(cg, &t, col, row, cg_convert(cg, v.c[e], ct->elem, t.elem));
    }
    if (is_load)
        cg_store(cg, lv, v);
}

/* ---- run -------------------------------------------------------------------------------- */

/* The accumulators' starting values: 0, or (multiply_accumulate) the destination's. */
static void start(LangCg *cg, const LangTensor *op, const Layout *L, IsaOperand *acc,
                  const CgVal *coop, const Tensor *dt)
{
    int blocks = L->bm * L->bn;
    for (int b = 0; b < blocks; b++) {
        acc[b] = lang_cg_new_vreg(cg, 64);
        if (!op->accumulate) {
            cg_mov(cg, acc[b], lang_cg_imm(0), 64);
            continue;
        }
        IsaOperand h[2];
        for (int k = 0; k < 2; k++) {
            if (coop) {
                h[k] = cg_matrix_f32(cg, coop->c[2 * b + k], op->elem);
            } else {
                IsaOperand row, col;
                element_at(cg, L, 2 * b + k, &row, &col);
                h[k] = load(cg, dt, col, row, true);
            }
        }
        cg_mov(cg, acc[b], cg_emit3(cg, ISA_OP_MKPAIR, 64, h[0], h[1]), 64);
    }
}

/* This lane's two elements of an 8x8 block of A (row `row`, columns col and col + 1) or B
 * (the same of B), raw: neighbours in memory, or in two rows when the tensor holds the
 * operand transposed. */
static void operand_elements(LangCg *cg, const Tensor *t, IsaOperand row, IsaOperand col,
                             bool transposed, IsaOperand h[2])
{
    if (!transposed) {
        load_neighbours(cg, t, col, row, h);
        return;
    }
    for (int k = 0; k < 2; k++)
        h[k] = load(cg, t, row, add(cg, col, k), false);
}

/* The pair register of two raw elements, as f32. */
static IsaOperand pair_of(LangCg *cg, const Tensor *t, const IsaOperand h[2])
{
    return cg_emit3(cg, ISA_OP_MKPAIR, 64, cg_matrix_f32(cg, h[0], t->elem),
                    cg_matrix_f32(cg, h[1], t->elem));
}

static void run(LangCg *cg, LangNode *node)
{
    LangNode *opn = node->args, *an = opn->next, *bn = an->next, *dn = bn->next;
    LangTensor op = *opn->type->tensor;
    Tensor A = tensor_of(cg, an), B = tensor_of(cg, bn), D = {0};
    if (op.k >= 0) { /* the descriptor's k: an operand's elements past it are not summed */
        int ka = op.transpose_left ? 1 : 0, kb = op.transpose_right ? 0 : 1;
        IsaOperand K = lang_cg_imm((uint32_t)op.k);
        A.e[ka] = icmpsel(cg, ISA_COND_SLT, A.e[ka], K, A.e[ka], K);
        B.e[kb] = icmpsel(cg, ISA_COND_SLT, B.e[kb], K, B.e[kb], K);
        if (op.k % 8) /* the last step of 8 passes k: check even a static slice's loads */
            A.unchecked = B.unchecked = false;
    }
    const bool to_coop = dn->type->tensor->kind == LTN_COOP;
    CgLval *lv = NULL;
    CgVal coop = {0};
    if (to_coop) {
        lv = cg_lval(cg, dn);
        op.elem = dn->type->tensor->elem;
        if (op.accumulate)
            coop = cg_load(cg, lv);
    } else {
        D = tensor_of(cg, dn);
        op.elem = D.elem;
    }
    cg_set_loc(cg, node->tok);
    Layout L = layout_of(cg, &op);
    int blocks = L.bm * L.bn;
    IsaOperand *acc = lang_alloc(cg->ctx, (size_t)blocks * sizeof *acc);
    IsaOperand *a = lang_alloc(cg->ctx, (size_t)(L.bm + L.bn) * sizeof *a), *b = a + L.bm;
    IsaOperand *raw = lang_alloc(cg->ctx, (size_t)(L.bm + L.bn) * 2 * sizeof *raw);
    start(cg, &op, &L, acc, to_coop ? &coop : NULL, &D);
    /* k: the descriptor's, or the left operand's extent along it */
    IsaOperand K = op.k >= 0 ? lang_cg_imm((uint32_t)op.k)
                             : A.e[op.transpose_left ? 1 : 0];
    IsaOperand k0 = lang_cg_new_vreg(cg, 32);
    cg_mov(cg, k0, lang_cg_imm(0), 32);
    CgLoop loop;
    cg_loop_begin(cg, &loop, ISA_COND_SLT, k0, K);
    IsaOperand kc = cg_emit3(cg, ISA_OP_IADD, 32, k0, L.c), kr = cg_emit3(cg, ISA_OP_IADD, 32,
                                                                         k0, L.r);
    /* every load of the step first, then the pairs: one wait for them all */
    for (int i = 0; i < L.bm; i++) /* A: row i*8 + r of the part, columns k0 + c, + 1 */
        operand_elements(cg, &A, cg_emit3(cg, ISA_OP_IADD, 32, L.row0, add(cg, L.r, i * 8)),
                         kc, op.transpose_left, raw + 2 * i);
    for (int j = 0; j < L.bn; j++) /* B: row k0 + r, columns j*8 + c of the part, + 1 */
        operand_elements(cg, &B, kr, cg_emit3(cg, ISA_OP_IADD, 32, L.col0,
                                              add(cg, L.c, j * 8)),
                         op.transpose_right, raw + 2 * (L.bm + j));
    for (int i = 0; i < L.bm; i++)
        a[i] = pair_of(cg, &A, raw + 2 * i);
    for (int j = 0; j < L.bn; j++)
        b[j] = pair_of(cg, &B, raw + 2 * (L.bm + j));
    for (int i = 0; i < L.bm; i++)
        for (int j = 0; j < L.bn; j++) {
            IsaInst *in = lang_cg_emit(cg, ISA_OP_TMMA);
            IsaOperand *d = &acc[i * L.bn + j];
            in->opd[0] = *d, in->opd[1] = a[i], in->opd[2] = b[j], in->opd[3] = *d;
            in->opd[4] = (IsaOperand){.kind = ISA_OPD_NUM, .imm = (uint64_t)op.simdgroups};
        }
    cg_mov(cg, k0, add(cg, k0, 8), 32);
    cg_loop_end(cg, &loop, ISA_COND_SLT, k0, K);
    /* the results, in the destination's element type */
    LangType *vec2 = lang_vector_of(cg->ctx, op.elem, 2, true);
    CgVal out = to_coop ? cg_val_new(cg, dn->type, dn->type->tensor->capacity) : (CgVal){0};
    for (int blk = 0; blk < blocks; blk++) {
        CgVal e = cg_matrix_elements(cg, acc[blk], vec2);
        for (int h = 0; h < 2; h++) {
            if (to_coop) {
                out.c[2 * blk + h] = e.c[h];
                continue;
            }
            IsaOperand row, col;
            element_at(cg, &L, 2 * blk + h, &row, &col);
            store(cg, &D, col, row, e.c[h]);
        }
    }
    if (to_coop)
        cg_store(cg, lv, out);
}

/* T(pointer, extents): dense, the row pitch its columns */
static CgVal make(LangCg *cg, LangNode *node)
{
    LangNode *a = node->args;
    CgVal r = cg_val_new(cg, node->type, 4);
    r.c[0] = cg_expr(cg, a).c[0];
    r.c[1] = cg_scalar(cg, a->next);
    r.c[2] = cg_scalar(cg, a->next->next);
    r.c[3] = r.c[1];
    return r;
}

CgVal cg_tensor_builtin(LangCg *cg, LangNode *node)
{
    switch (node->builtin) {
    case LANG_BI_TENSOR_MAKE:
        return make(cg, node);
    case LANG_BI_TENSOR_SLICE:
        return slice(cg, node);
    case LANG_BI_TENSOR_RUN:
        run(cg, node);
        break;
    default:
        coop_memory(cg, node, node->builtin == LANG_BI_TENSOR_LOAD);
        break;
    }
    return cg_val_new(cg, lang_ty_void, 0);
}
