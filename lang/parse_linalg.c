/*
 * parse_linalg.c — the matrix types floatNxM and halfNxM (N columns of M-vectors, N and M 2
 * to 4, MSL 2.2) in the front end: their names, their constructors (a diagonal from one
 * scalar, N column vectors, N * M scalars in column-major order, another matrix of the same
 * size), the operators of MSL 3.2 (`+` and `-` of two matrices, `*` of a matrix with a
 * scalar, a vector or a matrix), compound assignment, and the typing of transpose and
 * determinant (5.6).
 *
 * A matrix type is an LTY_ARRAY of its columns with `matrix` set, so indexing (`m[i]` is a
 * column, `m[i][j]` an element), copies, struct members, arguments and memory layout (a
 * float3 column takes 16 bytes) are an array's. The operators become LND_BUILTIN nodes
 * (LANG_BI_MATRIX_*) whose operands are evaluated once; codegen_linalg.c lowers them to
 * scalar multiplies and adds.
 */
#include <string.h>

#include "parse.h"

/* The matrix type a type name spells (float4x4, half2x3), or NULL. */
LangType *lang_p_matrix_type_named(LangParser *p, const LangToken *tok)
{
    const char *s = tok->loc;
    int n = tok->len;
    LangType *elem = NULL;
    if (n == 8 && memcmp(s, "float", 5) == 0)
        elem = lang_ty_float;
    else if (n == 7 && memcmp(s, "half", 4) == 0)
        elem = lang_ty_half;
    if (!elem || tok->kind != LTK_IDENT)
        return NULL;
    char c = s[n - 3], x = s[n - 2], r = s[n - 1];
    if (c < '2' || c > '4' || x != 'x' || r < '2' || r > '4')
        return NULL;
    return lang_matrix_of(p->ctx, elem, c - '0', r - '0');
}

static LangType *unqual(LangParser *p, LangType *ty)
{
    return lang_qualified(p->ctx, ty, false);
}

static LangNode *builtin(LangParser *p, LangBuiltin id, LangType *ty, LangToken *tok,
                         LangNode *a, LangNode *b)
{
    LangNode *node = lang_p_new_node(p, LND_BUILTIN, tok);
    node->builtin = id;
    node->type = ty;
    node->args = a;
    a->next = b;
    if (b)
        b->next = NULL;
    node->num_args = b ? 2 : 1;
    return node;
}

// matrix-construct = T "(" scalar ")" | T "(" column ("," column)* ")"
//                  | T "(" scalar ("," scalar)* ")" | T "(" matrix ")"
LangNode *lang_p_matrix_type_construct(LangParser *p, LangType *ty, LangToken *tok,
                                       LangNode *args, int n)
{
    LangType *col = ty->base, *elem = col->base;
    LangNode *c = lang_p_new_node(p, LND_CONSTRUCT, tok);
    c->type = ty;
    c->num_args = n;
    if (n == 1 && lang_is_matrix(args->type)) { /* same size; the elements convert */
        LangType *at = args->type;
        if (at->len != ty->len || at->base->len != col->len)
            lang_error_soft(p->ctx, args->tok, "a '%s' can be made from a matrix of the same "
                            "size, not from a '%s'", ty->name, lang_type_name(p->ctx, at));
        if (lang_same_type(unqual(p, at), ty))
            return args;
        c->args = args;
        return c;
    }
    if (n == 1 && lang_is_scalar(args->type)) { /* the diagonal; zeros elsewhere */
        c->args = lang_p_cast(p, args, elem, args->tok, true);
        return c;
    }
    bool vectors = args && args->type->kind == LTY_VECTOR;
    for (LangNode *a = args; a; a = a->next)
        if ((a->type->kind == LTY_VECTOR) != vectors)
            lang_error_at(p->ctx, a->tok, "a '%s' is made from vectors or from scalars: they "
                          "do not mix in a matrix constructor", ty->name);
    int want = vectors ? ty->len : ty->len * col->len;
    if (n != want)
        lang_error_at(p->ctx, tok, "a '%s' is made from one scalar (its diagonal), %d %s, or "
                      "%d scalars (column by column), not %d argument%s", ty->name, ty->len,
                      lang_type_name(p->ctx, col), ty->len * col->len, n, n == 1 ? "" : "s");
    LangNode head = {0}, *cur = &head;
    for (LangNode *a = args, *next; a; a = next) {
        next = a->next;
        a->next = NULL;
        bool ok = vectors ? a->type->kind == LTY_VECTOR && a->type->len == col->len
                          : lang_is_scalar(a->type);
        if (!ok)
            lang_error_at(p->ctx, a->tok, "a '%s' takes %s here, not '%s'", ty->name,
                          vectors ? lang_type_name(p->ctx, col) : "scalars",
                          lang_type_name(p->ctx, a->type));
        cur = cur->next = lang_p_cast(p, a, vectors ? col : elem, a->tok, true);
    }
    c->args = head.next;
    return c;
}

static bool is_numeric(const LangType *ty)
{
    return lang_is_scalar(ty) || ty->kind == LTY_VECTOR;
}

static LangNode *refuse(LangParser *p, LangToken *tok, LangNode *lhs, LangNode *rhs,
                        const char *why)
{
    lang_error_soft(p->ctx, tok, "invalid operands to binary expression ('%s' and '%s')%s",
                    lang_type_name(p->ctx, lhs->type), lang_type_name(p->ctx, rhs->type), why);
    return builtin(p, LANG_BI_MATRIX_ADD, unqual(p, lhs->type), tok, lhs, rhs);
}

/* `a op b` where a or b is a matrix (MSL 3.2); NULL when neither is. */
LangNode *lang_p_matrix_binary(LangParser *p, LangNodeKind kind, LangNode *lhs, LangNode *rhs,
                               LangToken *tok)
{
    LangType *lt = unqual(p, lhs->type), *rt = unqual(p, rhs->type);
    bool lm = lang_is_matrix(lt), rm = lang_is_matrix(rt);
    if (!lm && !rm)
        return NULL;
    LangType *elem = (lm ? lt : rt)->base->base;
    if ((lm && rm && !lang_same_type(lt->base->base, rt->base->base)) ||
        (!lm && lt->kind == LTY_VECTOR && !lang_same_type(lt->base, elem)) ||
        (!rm && rt->kind == LTY_VECTOR && !lang_same_type(rt->base, elem)))
        return refuse(p, tok, lhs, rhs, ": the elements' types differ (convert one, as "
                      "float4x4(m) or float4(v))");
    if (kind == LND_ADD || kind == LND_SUB) {
        if (!lm || !rm || !lang_same_type(lt, rt))
            return refuse(p, tok, lhs, rhs, ": + and - take two matrices of one size");
        return builtin(p, kind == LND_ADD ? LANG_BI_MATRIX_ADD : LANG_BI_MATRIX_SUB, lt, tok,
                       lhs, rhs);
    }
    if (kind != LND_MUL)
        return refuse(p, tok, lhs, rhs, ": matrices take +, - and *");
    int lcols = lm ? lt->len : 0, lrows = lm ? lt->base->len : 0;
    int rcols = rm ? rt->len : 0, rrows = rm ? rt->base->len : 0;
    if (lm && rm) { /* (N cols, M rows) * (P cols, N rows): P cols, M rows */
        if (rrows != lcols)
            return refuse(p, tok, lhs, rhs, ": the left matrix's columns must match the "
                          "right one's rows");
        return builtin(p, LANG_BI_MATRIX_MUL, lang_matrix_of(p->ctx, elem, rcols, lrows), tok,
                       lhs, rhs);
    }
    LangNode *other = lm ? rhs : lhs;
    LangType *ot = lm ? rt : lt;
    if (lang_is_scalar(ot)) { /* every element times the scalar */
        other = lang_p_cast(p, other, elem, other->tok, false);
        return lm ? builtin(p, LANG_BI_MATRIX_MUL, lt, tok, lhs, other)
                  : builtin(p, LANG_BI_MATRIX_MUL, rt, tok, other, rhs);
    }
    if (!is_numeric(ot) || ot->kind != LTY_VECTOR)
        return refuse(p, tok, lhs, rhs, "");
    /* m * v: v a column vector of the matrix's columns' count; v * m: a row vector of its
     * rows' count */
    int need = lm ? lcols : rrows;
    if (ot->len != need)
        return refuse(p, tok, lhs, rhs, lm ? ": a matrix times a vector needs as many "
                      "components as the matrix has columns"
                      : ": a vector times a matrix needs as many components as the matrix "
                        "has rows");
    other = lang_p_cast(p, other, lang_vector_of(p->ctx, elem, ot->len, false), other->tok,
                        false);
    LangType *res = lang_vector_of(p->ctx, elem, lm ? lrows : rcols, false);
    return lm ? builtin(p, LANG_BI_MATRIX_MUL, res, tok, lhs, other)
              : builtin(p, LANG_BI_MATRIX_MUL, res, tok, other, rhs);
}

/* Whether evaluating node twice could differ from evaluating it once. */
static bool has_effects(const LangNode *n)
{
    if (!n)
        return false;
    switch (n->kind) {
    case LND_CALL: case LND_ASSIGN: case LND_PRE_INC: case LND_PRE_DEC: case LND_POST_INC:
    case LND_POST_DEC:
        return true;
    case LND_BUILTIN:
        if (n->builtin >= LANG_BI_SINCOS && n->builtin <= LANG_BI_FREXP_EXP)
            return true;
        break;
    default:
        break;
    }
    for (const LangNode *a = n->args; a; a = a->next)
        if (has_effects(a))
            return true;
    return has_effects(n->lhs) || has_effects(n->rhs) || has_effects(n->cond) ||
           has_effects(n->then) || has_effects(n->els);
}

/* `a op= b` with a matrix on either side: `a = a op b` (a is read, then written). NULL when
 * neither side is a matrix. */
LangNode *lang_p_matrix_compound(LangParser *p, LangNode *assign, LangNodeKind op, LangNode *lhs,
                                 LangNode *rhs, LangToken *tok)
{
    if (!lang_is_matrix(lhs->type) && !lang_is_matrix(rhs->type))
        return NULL;
    if (has_effects(lhs))
        lang_error_soft(p->ctx, tok, "a compound assignment to a matrix expression with side "
                        "effects; write it out (x = x op y)");
    LangNode *value = lang_p_matrix_binary(p, op, lhs, rhs, tok);
    if (!lang_same_type(value->type, unqual(p, lhs->type)))
        lang_error_soft(p->ctx, tok, "'%.*s' of '%s' and '%s' gives a '%s', which is not the "
                        "left side's type", tok->len, tok->loc,
                        lang_type_name(p->ctx, lhs->type), lang_type_name(p->ctx, rhs->type),
                        lang_type_name(p->ctx, value->type));
    assign->assign_op = 0;
    assign->rhs = value;
    return assign;
}

/* transpose(m), determinant(m) (5.6). */
LangType *lang_p_linalg_call(LangParser *p, LangNode **args, int n, LangToken *name, int id)
{
    (void)n;
    LangType *t = unqual(p, args[0]->type);
    if (!lang_is_matrix(t)) {
        lang_error_soft(p->ctx, args[0]->tok, "'%.*s' needs a matrix (float4x4, half3x3, ...), "
                        "not '%s'", name->len, name->loc, lang_type_name(p->ctx, t));
        return lang_ty_float;
    }
    if (id == LANG_BI_TRANSPOSE)
        return lang_matrix_of(p->ctx, t->base->base, t->base->len, t->len);
    if (t->len != t->base->len)
        lang_error_soft(p->ctx, args[0]->tok, "determinant needs a square matrix, not '%s'",
                        t->name);
    return t->base->base;
}
