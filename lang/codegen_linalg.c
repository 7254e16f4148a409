/*
 * codegen_linalg.c — the matrix types floatNxM and halfNxM (parse_linalg.c) lowered to scalar
 * operations: no instruction of their own, as on Apple's GPUs. A matrix value is its
 * column-major leaves (element (c, r), column c and row r, is leaf c * rows + r), so
 * construction, transpose and `+`/`-` move or combine leaves, and every product is a chain
 * of multiplies and adds in the element type, in the order dot() uses: the first product,
 * then each next one added (MSL leaves the order of partial sums undefined, 3.2). Nothing is
 * fused, and a half matrix rounds to half after every operation, as half arithmetic does.
 *
 * reflect, refract, faceforward and distance_squared (5.7) are here too: straight-line
 * code on dot products, in the element type, as the spec writes them (docs/language.md).
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

/* reflect(I, N) = I - 2 * dot(N, I) * N; refract(I, N, eta): k = 1 - eta * eta * (1 -
 * dot(N, I) * dot(N, I)), 0 where k < 0, else eta * I - (eta * dot(N, I) + sqrt(k)) * N;
 * faceforward(N, I, Nref) = dot(Nref, I) < 0 ? N : -N; distance_squared(x, y) =
 * dot(x - y, x - y). */
static CgVal geometric(LangCg *cg, LangNode *node, LangType *s, CgVal *a)
{
    LangBuiltin b = node->builtin;
    LangType *rt = node->type;
    int n = a[0].n;
    bool h = s->kind == LTY_HALF;
    IsaOperand one = h ? lang_cg_imm_f16(0x3c00) : lang_cg_imm_f32(1.0f);
    CgVal r = cg_val_new(cg, rt, lang_components(rt));
    if (b == LANG_BI_DISTANCE_SQUARED) {
        IsaOperand d[4];
        for (int k = 0; k < n; k++)
            d[k] = op(cg, s, LND_SUB, a[0].c[k], a[1].c[k]);
        r.c[0] = dot_strided(cg, s, d, 1, d, 1, n);
        return r;
    }
    if (b == LANG_BI_FACEFORWARD) { /* N, I, Nref */
        IsaOperand d = dot_strided(cg, s, a[2].c, 1, a[1].c, 1, n);
        IsaOperand neg = cg_compare(cg, LND_LT, s, d, h ? lang_cg_imm_f16(0) : lang_cg_imm_f32(0));
        for (int k = 0; k < n; k++) { /* -N: the sign flipped (fmov's negate) */
            IsaOperand x = a[0].c[k], minus = lang_cg_new_vreg(cg, h ? 16 : 32);
            if (x.kind == ISA_OPD_IMM)
                x.imm ^= h ? 0x8000u : 0x80000000u;
            else
                x.flags ^= ISA_OPD_NEG;
            IsaInst *in = lang_cg_emit(cg, h ? ISA_OP_FMOV16 : ISA_OP_FMOV32);
            in->opd[0] = minus;
            in->opd[1] = x;
            r.c[k] = cg_select(cg, neg, a[0].c[k], minus, h ? 16 : 32);
        }
        return r;
    }
    IsaOperand d = dot_strided(cg, s, a[1].c, 1, a[0].c, 1, n); /* dot(N, I) */
    if (b == LANG_BI_REFLECT) {
        IsaOperand t = op(cg, s, LND_MUL, h ? lang_cg_imm_f16(0x4000) : lang_cg_imm_f32(2.0f), d);
        for (int k = 0; k < n; k++)
            r.c[k] = op(cg, s, LND_SUB, a[0].c[k], op(cg, s, LND_MUL, t, a[1].c[k]));
        return r;
    }
    IsaOperand eta = a[2].c[0];
    IsaOperand k2 = op(cg, s, LND_SUB, one, op(cg, s, LND_MUL, d, d));
    IsaOperand kk = op(cg, s, LND_SUB, one, op(cg, s, LND_MUL, op(cg, s, LND_MUL, eta, eta), k2));
    IsaOperand root = lang_cg_new_vreg(cg, h ? 16 : 32);
    if (!lang_cg_math(cg, LANG_BI_SQRT, root, &kk, 1, h, node->fast_math))
        cg_error(cg, node->tok, "sqrt is not available");
    IsaOperand coef = op(cg, s, LND_ADD, op(cg, s, LND_MUL, eta, d), root);
    IsaOperand tir = cg_compare(cg, LND_LT, s, kk, h ? lang_cg_imm_f16(0) : lang_cg_imm_f32(0));
    for (int k = 0; k < n; k++) {
        IsaOperand v = op(cg, s, LND_SUB, op(cg, s, LND_MUL, eta, a[0].c[k]),
                          op(cg, s, LND_MUL, coef, a[1].c[k]));
        r.c[k] = cg_select(cg, tir, h ? lang_cg_imm_f16(0) : lang_cg_imm_f32(0), v, h ? 16 : 32);
    }
    return r;
}

CgVal cg_linalg_builtin(LangCg *cg, LangNode *node)
{
    LangBuiltin b = node->builtin;
    LangType *rt = node->type;
    LangNode *an = node->args, *bn = an->next;
    if (b >= LANG_BI_REFLECT) {
        CgVal a[3];
        int na = 0;
        for (LangNode *x = an; x && na < 3; x = x->next)
            a[na++] = cg_expr(cg, x);
        return geometric(cg, node, lang_scalar_of(an->type), a);
    }
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
