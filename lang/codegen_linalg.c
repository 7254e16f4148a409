/*
 * codegen_linalg.c — the matrix types floatNxM and halfNxM (parse_linalg.c) lowered to scalar
 * operations: no instruction of their own, as on Apple's GPUs. A matrix value is its
 * column-major leaves (element (c, r), column c and row r, is leaf c * rows + r), so
 * construction, transpose and `+`/`-` move or combine leaves, and every product is a chain
 * of multiplies and adds in the element type, in the order dot() uses: the first product,
 * then each next one added (MSL leaves the order of partial sums undefined, 3.2). Nothing is
 * fused, and a half matrix rounds to half after every operation, as half arithmetic does.
 *
 * determinant expands along the first column (Laplace): det = sum over rows r of
 * (-1)^r * m[0][r] * det(the minor without column 0 and row r), the terms added left to
 * right, down to 2x2 minors a*d - c*b; docs/language.md spells it out for reference code.
 */
#include "codegen_internal.h"

static IsaOperand op(LangCg *cg, LangType *s, LangNodeKind k, IsaOperand a, IsaOperand b)
{
    return cg_binop(cg, k, s, a, b, NULL);
}

/* sum over k < n of a[k * astride] * b[k * bstride], in order. */
static IsaOperand dot_strided(LangCg *cg, LangType *s, const IsaOperand *a, int astride,
                              const IsaOperand *b, int bstride, int n)
{
    IsaOperand acc = op(cg, s, LND_MUL, a[0], b[0]);
    for (int k = 1; k < n; k++)
        acc = op(cg, s, LND_ADD, acc, op(cg, s, LND_MUL, a[k * astride], b[k * bstride]));
    return acc;
}

/* The determinant of the minor of m (rows leaves a column) made of the columns cols[0..k)
 * and the rows rows[0..k). */
static IsaOperand det(LangCg *cg, LangType *s, const IsaOperand *m, int rows, const int *cols,
                      const int *rws, int k)
{
    if (k == 1)
        return m[cols[0] * rows + rws[0]];
    IsaOperand acc = {0};
    for (int i = 0; i < k; i++) {
        int rest[4], n = 0;
        for (int j = 0; j < k; j++)
            if (j != i)
                rest[n++] = rws[j];
        IsaOperand t = op(cg, s, LND_MUL, m[cols[0] * rows + rws[i]],
                          det(cg, s, m, rows, cols + 1, rest, k - 1));
        acc = i == 0 ? t : op(cg, s, i % 2 ? LND_SUB : LND_ADD, acc, t);
    }
    return acc;
}

/* T(x) with one argument: a scalar on the diagonal (zeros elsewhere), or a matrix of the same
 * size converted element by element. */
CgVal cg_matrix_type_construct(LangCg *cg, LangNode *node)
{
    LangType *ty = node->type, *elem = ty->base->base;
    int cols = ty->len, rows = ty->base->len;
    CgVal a = cg_expr(cg, node->args);
    CgVal v = cg_val_new(cg, ty, cols * rows);
    if (lang_is_matrix(a.type)) {
        LangType *from = a.type->base->base;
        for (int i = 0; i < v.n; i++)
            v.c[i] = cg_convert(cg, a.c[i], from, elem);
        return v;
    }
    IsaOperand zero = elem->kind == LTY_HALF ? lang_cg_imm_f16(0) : lang_cg_imm_f32(0.0f);
    for (int c = 0; c < cols; c++)
        for (int r = 0; r < rows; r++)
            v.c[c * rows + r] = c == r ? a.c[0] : zero;
    return v;
}

CgVal cg_linalg_builtin(LangCg *cg, LangNode *node)
{
    LangBuiltin b = node->builtin;
    LangType *rt = node->type;
    LangNode *an = node->args, *bn = an->next;
    CgVal x = cg_expr(cg, an), y = bn ? cg_expr(cg, bn) : x;
    LangType *xt = an->type, *yt = bn ? bn->type : xt;
    LangType *s = lang_is_matrix(xt) ? xt->base->base : yt->base->base;
    switch (b) {
    case LANG_BI_MATRIX_ADD: case LANG_BI_MATRIX_SUB: {
        CgVal r = cg_val_new(cg, rt, x.n);
        for (int i = 0; i < x.n; i++)
            r.c[i] = op(cg, s, b == LANG_BI_MATRIX_ADD ? LND_ADD : LND_SUB, x.c[i], y.c[i]);
        return r;
    }
    case LANG_BI_TRANSPOSE: { /* N x M in, M x N out */
        int cols = xt->len, rows = xt->base->len;
        CgVal r = cg_val_new(cg, rt, x.n);
        for (int c = 0; c < cols; c++)
            for (int k = 0; k < rows; k++)
                r.c[k * cols + c] = x.c[c * rows + k];
        return r;
    }
    case LANG_BI_DETERMINANT: {
        static const int idx[4] = {0, 1, 2, 3};
        CgVal r = cg_val_new(cg, rt, 1);
        r.c[0] = det(cg, s, x.c, xt->base->len, idx, idx, xt->len);
        return r;
    }
    default: /* MATRIX_MUL */
        break;
    }
    if (lang_is_scalar(xt) || lang_is_scalar(yt)) { /* every element times the scalar */
        bool left = lang_is_scalar(xt);
        CgVal m = left ? y : x;
        IsaOperand k = left ? x.c[0] : y.c[0];
        CgVal r = cg_val_new(cg, rt, m.n);
        for (int i = 0; i < m.n; i++)
            r.c[i] = left ? op(cg, s, LND_MUL, k, m.c[i]) : op(cg, s, LND_MUL, m.c[i], k);
        return r;
    }
    if (lang_is_matrix(xt) && lang_is_matrix(yt)) { /* column j of the result: x * y[j] */
        int n = xt->len, rows = xt->base->len, p = yt->len;
        CgVal r = cg_val_new(cg, rt, p * rows);
        for (int j = 0; j < p; j++)
            for (int k = 0; k < rows; k++)
                r.c[j * rows + k] = dot_strided(cg, s, x.c + k, rows, y.c + j * n, 1, n);
        return r;
    }
    if (lang_is_matrix(xt)) { /* m * v: row k of m with v */
        int n = xt->len, rows = xt->base->len;
        CgVal r = cg_val_new(cg, rt, rows);
        for (int k = 0; k < rows; k++)
            r.c[k] = dot_strided(cg, s, x.c + k, rows, y.c, 1, n);
        return r;
    }
    /* v * m: v with column j of m */
    int cols = yt->len, rows = yt->base->len;
    CgVal r = cg_val_new(cg, rt, cols);
    for (int j = 0; j < cols; j++)
        r.c[j] = dot_strided(cg, s, x.c, 1, y.c + j * rows, 1, rows);
    return r;
}
