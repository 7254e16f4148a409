/*
 * parse_matrix.c — SIMD-group matrices in the front end: the types simdgroup_float8x8,
 * simdgroup_half8x8 and simdgroup_matrix<T, 8, 8>, their construction (a diagonal matrix
 * from T(value), make_filled_simdgroup_matrix<T, 8[, 8]>(value)), and the typing of
 * simdgroup_load, simdgroup_store, simdgroup_multiply and simdgroup_multiply_accumulate, and
 * m.thread_elements(): this thread's two elements as a vec<T, 2> that can be assigned.
 *
 * A matrix is a value of the thread address space (it lives in registers, spread over the
 * SIMD-group's lanes), so it may be a local, an array element or a struct member, and is
 * copied by assignment; it takes no arithmetic. codegen_matrix.c lowers what is typed here.
 */
#include <string.h>

#include "parse.h"

/* The matrix type a type name spells (simdgroup_float8x8, simdgroup_half8x8), or NULL. */
LangType *lang_p_matrix_named(LangParser *p, const LangToken *tok)
{
    if (lang_p_is(tok, "simdgroup_float8x8"))
        return lang_sgmatrix_of(p->ctx, lang_ty_float);
    if (lang_p_is(tok, "simdgroup_half8x8"))
        return lang_sgmatrix_of(p->ctx, lang_ty_half);
    return NULL;
}

/* A dimension of a simdgroup_matrix: the literal 8 (the only size MSL has). */
static void dimension(LangParser *p)
{
    LangToken *at = p->tok;
    if (at->kind != LTK_NUM || at->is_float || at->ival != 8)
        lang_error_at(p->ctx, at, "simdgroup matrices are 8x8: expected the literal 8 here");
    lang_p_next(p);
}

/* The element type of a matrix: float or half. */
static LangType *element(LangParser *p)
{
    LangToken *at = p->tok;
    LangType *t = lang_p_typename(p);
    if (t->kind != LTY_FLOAT && t->kind != LTY_HALF)
        lang_error_at(p->ctx, at, "simdgroup matrices hold float or half, not '%s'",
                      lang_type_name(p->ctx, t));
    return t;
}

// matrix-type = "simdgroup_matrix" "<" ("float" | "half") "," "8" "," "8" ">"
LangType *lang_p_matrix_template(LangParser *p)
{
    lang_p_skip(p, "simdgroup_matrix");
    lang_p_skip(p, "<");
    LangType *t = element(p);
    lang_p_skip(p, ",");
    dimension(p);
    lang_p_skip(p, ",");
    dimension(p);
    lang_p_skip(p, ">");
    return lang_sgmatrix_of(p->ctx, t);
}

static LangNode *matrix_node(LangParser *p, LangToken *tok, LangBuiltin id, LangType *ty,
                             LangNode *value)
{
    LangNode *n = lang_p_new_node(p, LND_BUILTIN, tok);
    n->builtin = id;
    n->type = ty;
    n->args = lang_p_convert(p, value, ty->base, value->tok);
    n->args->next = NULL;
    n->num_args = 1;
    return n;
}

// filled = "make_filled_simdgroup_matrix" "<" T "," "8" ("," "8")? ">" "(" assign ")"
LangNode *lang_p_matrix_filled(LangParser *p)
{
    LangToken *tok = p->tok;
    lang_p_next(p);
    lang_p_skip(p, "<");
    LangType *ty = lang_sgmatrix_of(p->ctx, element(p));
    lang_p_skip(p, ",");
    dimension(p);
    if (lang_p_consume(p, ","))
        dimension(p);
    lang_p_skip(p, ">");
    lang_p_skip(p, "(");
    LangNode *value = lang_p_assign(p);
    lang_p_skip(p, ")");
    return matrix_node(p, tok, LANG_BI_SIMDGROUP_FILLED, ty, value);
}

/* T(value): the diagonal matrix with value on its diagonal, zero elsewhere. */
LangNode *lang_p_matrix_construct(LangParser *p, LangType *ty, LangToken *tok, LangNode *args,
                                  int n)
{
    if (n != 1)
        lang_error_at(p->ctx, tok, "'%s' is constructed from one value (the diagonal); "
                      "make_filled_simdgroup_matrix<T, 8, 8>(value) fills every element",
                      ty->name);
    return matrix_node(p, tok, LANG_BI_SIMDGROUP_DIAGONAL, ty, args);
}

// elements = matrix "." "thread_elements" "(" ")"
LangNode *lang_p_matrix_member(LangParser *p, LangNode *lhs, LangToken *name)
{
    if (!lang_p_is(name, "thread_elements") || !lang_p_is(p->tok, "(") ||
        !lang_p_is(p->tok->next, ")"))
        lang_error_at(p->ctx, name, "a simdgroup matrix has no member '%.*s': its one member "
                      "is the function thread_elements()", name->len, name->loc);
    lang_p_next(p); /* "(" ")"; the caller consumed the name */
    lang_p_next(p);
    LangNode *n = lang_p_new_node(p, LND_ELEMENTS, name);
    n->lhs = lhs;
    n->type = lang_qualified(p->ctx, lang_vector_of(p->ctx, lhs->type->base, 2, false),
                             lhs->type->is_const);
    return n;
}

static LangType *matrix_arg(LangParser *p, LangNode *a, LangToken *name, const char *what)
{
    if (a->type->kind == LTY_SGMATRIX)
        return a->type;
    lang_error_soft(p->ctx, a->tok, "%s of '%.*s' must be a simdgroup matrix, not '%s'", what,
                    name->len, name->loc, lang_type_name(p->ctx, a->type));
    return NULL;
}

/* The destination matrix: an assignable matrix of this thread. */
static void destination(LangParser *p, LangNode *a, LangToken *name)
{
    if (!matrix_arg(p, a, name, "the destination (first argument)"))
        return;
    if (!lang_p_is_lvalue(a) || a->type->is_const)
        lang_error_soft(p->ctx, a->tok, "the destination of '%.*s' must be a matrix variable it "
                        "can assign", name->len, name->loc);
}

/* simdgroup_load(d, src[, elements_per_row[, matrix_origin[, transpose]]]) and
 * simdgroup_store(a, dst, ...): the memory operand points to the matrix's element type in
 * device, constant (load) or threadgroup memory; the rest convert to uint, uint2, bool. */
static void memory_args(LangParser *p, LangNode **args, int n, LangToken *name, bool load)
{
    LangType *m = load ? (destination(p, args[0], name), args[0]->type)
                       : matrix_arg(p, args[0], name, "the matrix (first argument)");
    LangType *pt = args[1]->type;
    if (pt->kind == LTY_ARRAY && lang_p_is_lvalue(args[1]))
        args[1] = lang_p_convert(p, args[1], lang_pointer_to(p->ctx, pt->base,
                                                             lang_p_lvalue_space(args[1])),
                                 args[1]->tok);
    pt = args[1]->type;
    if (pt->kind != LTY_POINTER || pt->space == LAS_THREAD ||
        (!load && pt->space == LAS_CONSTANT)) {
        lang_error_soft(p->ctx, args[1]->tok, "'%.*s' %s a pointer to %s memory, not '%s'",
                        name->len, name->loc, load ? "loads through" : "stores through",
                        load ? "device, constant or threadgroup" : "device or threadgroup",
                        lang_type_name(p->ctx, pt));
    } else if (m && m->kind == LTY_SGMATRIX && pt->base->kind != m->base->kind) {
        lang_error_soft(p->ctx, args[1]->tok, "'%.*s' of a %s needs a pointer to %s, not '%s'",
                        name->len, name->loc, m->name, m->base->name,
                        lang_type_name(p->ctx, pt));
    } else if (!load && pt->base->is_const) {
        lang_error_soft(p->ctx, args[1]->tok, "'%.*s' cannot store through a pointer to const",
                        name->len, name->loc);
    }
    if (n > 2)
        args[2] = lang_p_convert(p, args[2], lang_ty_uint, args[2]->tok);
    if (n > 3) {
        LangType *u2 = lang_vector_of(p->ctx, lang_ty_uint, 2, false);
        LangType *ot = args[3]->type;
        if (lang_is_scalar(ot) || (ot->kind == LTY_VECTOR && ot->len == 2 &&
                                   lang_is_integer(ot->base)))
            args[3] = lang_p_cast(p, args[3], u2, args[3]->tok, true);
        else
            lang_error_soft(p->ctx, args[3]->tok, "the matrix origin of '%.*s' is a ulong2 "
                            "(column, row), not '%s'", name->len, name->loc,
                            lang_type_name(p->ctx, ot));
    }
    if (n > 4) {
        int64_t v;
        args[4] = lang_p_to_bool(p, args[4]);
        if (!lang_p_eval(p, args[4], &v))
            lang_error_soft(p->ctx, args[4]->tok, "the transpose argument of '%.*s' must be a "
                            "constant (true or false)", name->len, name->loc);
    }
}

LangType *lang_p_matrix_call(LangParser *p, LangNode **args, int n, LangToken *name, int id)
{
    switch (id) {
    case LANG_BI_SIMDGROUP_LOAD: case LANG_BI_SIMDGROUP_STORE:
        memory_args(p, args, n, name, id == LANG_BI_SIMDGROUP_LOAD);
        break;
    default: /* simdgroup_multiply(d, a, b), simdgroup_multiply_accumulate(d, a, b, c) */
        destination(p, args[0], name);
        for (int i = 1; i < n; i++)
            matrix_arg(p, args[i], name, i == 3 ? "the addend" : "a factor");
        break;
    }
    return lang_ty_void;
}
