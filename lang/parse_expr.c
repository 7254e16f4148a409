/*
 * parse_expr.c — expressions: precedence climbing from comma down to primary, the MSL
 * typing rules (usual arithmetic conversions, half op float -> float, scalar op vector ->
 * vector, no implicit conversion between vector element types), lvalues and what may be
 * assigned, casts, and constant folding (members, swizzles and indexing are in
 * parse_access.c; constructors and calls with their arguments in parse_call.c). Every
 * conversion is an
 * explicit node, so code generation never has to infer one. Builtin calls are typed in
 * parse.c.
 */
#include <math.h>
#include <string.h>

#include "parse.h"

static LangNode *unary(LangParser *p);
static LangNode *postfix(LangParser *p);

LangNode *lang_p_new_node(LangParser *p, LangNodeKind kind, LangToken *tok)
{
    LangNode *n = lang_alloc(p->ctx, sizeof *n);
    p->num_nodes++;
    n->kind = kind;
    n->tok = tok;
    n->builtin = LANG_BUILTIN_NONE;
    return n;
}

static LangType *unqual(LangParser *p, LangType *ty)
{
    return lang_qualified(p->ctx, ty, false);
}

/* Wraps an integer to its type's width and signedness. */

/* ---- lvalues ------------------------------------------------------------------------------- */

static void check_assignable(LangParser *p, LangNode *node, LangToken *tok)
{
    if (node->kind == LND_NUM && node->tok->kind == LTK_IDENT) {
        LangSym *sym = lang_p_lookup(p, node->tok);
        if (sym && sym->var) /* a folded constant; otherwise undeclared, already reported */
            lang_error_soft(p->ctx, tok, "cannot assign to program-scope constant '%.*s'",
                            node->tok->len, node->tok->loc);
        return;
    }
    if (!lang_p_is_lvalue(node)) {
        lang_error_soft(p->ctx, tok, "expression is not assignable");
        return;
    }
    LangVar *v = lang_p_root_var(node);
    if (v && (v->kind == LVAR_CONSTANT || v->kind == LVAR_FUNCTION_CONSTANT)) {
        lang_error_soft(p->ctx, tok, "cannot assign to program-scope constant '%s'", v->name);
    } else if (lang_p_lvalue_space(node) == LAS_CONSTANT) {
        lang_error_soft(p->ctx, tok, "cannot assign to memory in the constant address space "
                        "(it is read-only)");
    } else if (node->type->is_const) {
        lang_error_soft(p->ctx, tok, "cannot assign to a const value of type '%s'",
                        lang_type_name(p->ctx, node->type));
    } else if (node->type->kind == LTY_ATOMIC) {
        lang_error_soft(p->ctx, tok, "cannot assign to an atomic; use atomic_store_explicit");
    } else if (node->type->kind == LTY_ARRAY && !node->type->matrix) {
        lang_error_soft(p->ctx, tok, "arrays cannot be assigned");
    }
}

/* ---- binary operators ---------------------------------------------------------------------- */

static bool is_numeric(const LangType *ty)
{
    return lang_is_scalar(ty) || ty->kind == LTY_VECTOR;
}

static LangNode *binary(LangParser *p, LangNodeKind kind, LangNode *lhs, LangNode *rhs,
                        LangToken *tok)
{
    if (kind != LND_LOGAND && kind != LND_LOGOR) {
        LangNode *user = lang_p_operator_call(p, tok, lhs, rhs);
        if (user)
            return user;
    }
    LangNode *m = lang_p_matrix_binary(p, kind, lhs, rhs, tok);
    if (m || (m = lang_p_nullptr_binary(p, kind, lhs, rhs, tok)) != NULL)
        return m;
    LangNode *node = lang_p_new_node(p, kind, tok);
    LangType *lt = lhs->type, *rt = rhs->type;
    node->lhs = lhs;
    node->rhs = rhs;
    if ((kind == LND_LOGAND || kind == LND_LOGOR) &&
        (lt->kind == LTY_VECTOR || rt->kind == LTY_VECTOR)) {
        /* on vectors, component-wise and not short-circuit (MSL 6.3): bool vectors hold 0 or
         * 1, so & and | of them are the logical operators */
        const int n = lt->kind == LTY_VECTOR ? lt->len : rt->len;
        if ((lt->kind == LTY_VECTOR && rt->kind == LTY_VECTOR && lt->len != rt->len) ||
            !is_numeric(lt) || !is_numeric(rt)) {
            lang_error_soft(p->ctx, tok, "invalid operands to binary expression ('%s' and '%s')",
                            lang_type_name(p->ctx, lt), lang_type_name(p->ctx, rt));
            node->type = lang_ty_bool;
            return node;
        }
        LangType *bn = lang_vector_of(p->ctx, lang_ty_bool, n, false);
        node->kind = kind == LND_LOGAND ? LND_BITAND : LND_BITOR;
        node->lhs = lang_p_cast(p, lhs, bn, tok, true); /* each component tested, as if (x) */
        node->rhs = lang_p_cast(p, rhs, bn, tok, true);
        node->type = bn;
        return node;
    }
    if (kind == LND_LOGAND || kind == LND_LOGOR) {
        node->lhs = lang_p_to_bool(p, lhs);
        node->rhs = lang_p_to_bool(p, rhs);
        node->type = lang_ty_bool;
        return node;
    }
    if (lt->kind == LTY_ENUM_MEM_FLAGS && rt->kind == LTY_ENUM_MEM_FLAGS && kind == LND_BITOR) {
        node->type = lang_ty_mem_flags;
        LangNode *f = lang_p_fold(p, node);
        return f ? f : node;
    }
    /* pointer arithmetic and comparison: an array on either side decays to a pointer to its
     * first element (`e - t`, `e == t`, `e < t + 4` with e a pointer into t) */
    if (lt->kind == LTY_ARRAY && lang_p_is_lvalue(lhs))
        lhs = node->lhs = lang_p_cast(p, lhs, lang_pointer_to(p->ctx, lt->base, lang_p_lvalue_space(lhs)),
                                  tok, false), lt = lhs->type;
    if (rt->kind == LTY_ARRAY && lang_p_is_lvalue(rhs) && lt->kind == LTY_POINTER)
        rhs = node->rhs = lang_p_cast(p, rhs, lang_pointer_to(p->ctx, rt->base, lang_p_lvalue_space(rhs)),
                                  tok, false), rt = rhs->type;
    if (lt->kind == LTY_POINTER || rt->kind == LTY_POINTER) {
        if (kind == LND_EQ || kind == LND_NE) { /* p == nullptr */
            if (lt->kind == LTY_POINTER && rhs->is_nullptr)
                rhs = node->rhs = lang_p_cast(p, rhs, lt, tok, false), rt = lt;
            else if (rt->kind == LTY_POINTER && lhs->is_nullptr)
                lhs = node->lhs = lang_p_cast(p, lhs, rt, tok, false), lt = rt;
        }
        if ((kind == LND_ADD || kind == LND_SUB) && lt->kind == LTY_POINTER &&
            lang_is_integer(rt)) {
            node->type = lt;
            return node;
        }
        if (kind == LND_ADD && rt->kind == LTY_POINTER && lang_is_integer(lt)) {
            node->lhs = rhs, node->rhs = lhs;
            node->type = rt;
            return node;
        }
        if (lt->kind == LTY_POINTER && lang_same_type(lt, rt)) {
            if (kind == LND_SUB) {
                node->type = lang_ty_long;
                return node;
            }
            if (kind >= LND_EQ && kind <= LND_GE) {
                node->type = lang_ty_bool;
                return node;
            }
        }
        lang_error_soft(p->ctx, tok, "invalid operands to binary expression ('%s' and '%s')",
                        lang_type_name(p->ctx, lt), lang_type_name(p->ctx, rt));
        node->type = lang_ty_int;
        return node;
    }
    LangType *ty = is_numeric(lt) && is_numeric(rt) ? lang_p_common_type(p, lt, rt) : NULL;
    bool int_only = kind == LND_MOD || (kind >= LND_BITAND && kind <= LND_SHR);
    if (!ty || (int_only && !lang_is_integer(lang_scalar_of(ty)))) {
        lang_error_soft(p->ctx, tok, "invalid operands to binary expression ('%s' and '%s')%s",
                        lang_type_name(p->ctx, lt), lang_type_name(p->ctx, rt),
                        lang_p_operands_hint(lt, rt));
        node->type = lang_ty_int;
        return node;
    }
    if (kind == LND_SHL || kind == LND_SHR) {
        /* the result has the (promoted) left type; the count follows it */
        ty = lt->kind == LTY_VECTOR ? unqual(p, lt) : lang_p_promote(unqual(p, lt));
        if (rt->kind == LTY_VECTOR && lt->kind != LTY_VECTOR) {
            lang_error_soft(p->ctx, tok, "a scalar cannot be shifted by a vector");
            ty = unqual(p, rt);
        }
    }
    node->lhs = lang_p_cast(p, lhs, ty, tok, false);
    node->rhs = lang_p_cast(p, rhs, ty, tok, false);
    if (kind >= LND_EQ && kind <= LND_GE)
        node->type = ty->kind == LTY_VECTOR ? lang_vector_of(p->ctx, lang_ty_bool, ty->len, false)
                                            : lang_ty_bool;
    else
        node->type = ty;
    if (node->lhs->kind == LND_NUM && node->rhs->kind == LND_NUM) {
        LangNode *f = lang_p_fold(p, node);
        if (f)
            return f;
    }
    return node;
}

/* ---- expression grammar -------------------------------------------------------------------- */

/* Chains (a + b + c ..., a = b = c ..., a ? b : c ? d ..., a, b, c ...) make trees as deep as
 * they are long without deepening the parser's own recursion, but constant folding and
 * codegen walk the tree recursively: p->height counts the tree levels above the expression
 * being parsed, and past MAX_EXPR_HEIGHT hostile input gets an error, not a stack overflow. */
enum { MAX_EXPR_HEIGHT = 1000 };

static void grow(LangParser *p, int levels)
{
    p->height += levels;
    if (p->height > MAX_EXPR_HEIGHT)
        lang_error_at(p->ctx, p->tok, "expression nests too deeply");
}

// expr = assign ("," assign)*
LangNode *lang_p_expr(LangParser *p)
{
    LangNode *node = lang_p_assign(p);
    int levels = 0;
    while (lang_p_is(p->tok, ",")) {
        LangToken *tok = p->tok;
        lang_p_next(p);
        grow(p, 1);
        levels++;
        LangNode *c = lang_p_new_node(p, LND_COMMA, tok);
        c->lhs = node;
        c->rhs = lang_p_assign(p);
        c->type = c->rhs->type;
        node = c;
    }
    p->height -= levels;
    return node;
}

static const struct {
    const char *op;
    LangNodeKind kind;
} assign_ops[] = {
    {"+=", LND_ADD}, {"-=", LND_SUB}, {"*=", LND_MUL}, {"/=", LND_DIV}, {"%=", LND_MOD},
    {"&=", LND_BITAND}, {"|=", LND_BITOR}, {"^=", LND_BITXOR}, {"<<=", LND_SHL},
    {">>=", LND_SHR},
};

// assign = cond (("=" | "+=" | "-=" | "*=" | "/=" | "%=" | "&=" | "|=" | "^=" | "<<=" | ">>=")
//          assign)?
LangNode *lang_p_assign(LangParser *p)
{
    LangNode *lhs = lang_p_cond(p);
    LangToken *tok = p->tok;
    LangNodeKind op = LND_NULL_STMT;
    if (lang_p_is(tok, "=")) {
        op = 0;
    } else {
        for (size_t i = 0; i < sizeof assign_ops / sizeof assign_ops[0]; i++)
            if (lang_p_is(tok, assign_ops[i].op))
                op = assign_ops[i].kind;
    }
    if (op == LND_NULL_STMT)
        return lhs;
    lang_p_next(p);
    LangToken *rtok = p->tok;
    grow(p, 1);
    LangNode *rhs = lang_p_assign(p);
    p->height--;
    LangNode *user = op ? lang_p_operator_call(p, tok, lhs, rhs) : NULL; /* operator+= */
    if (user)
        return user;
    check_assignable(p, lhs, tok);
    LangNode *node = lang_p_new_node(p, LND_ASSIGN, tok);
    node->assign_op = op;
    node->lhs = lhs;
    node->type = unqual(p, lhs->type);
    if (op && lhs->type->kind == LTY_POINTER && (op == LND_ADD || op == LND_SUB) &&
        lang_is_integer(rhs->type)) {
        node->rhs = rhs;
        return node;
    }
    if (op && lang_p_matrix_compound(p, node, op, lhs, rhs, tok))
        return node;
    if (op) { /* type-check the operation itself */
        LangNode *b = binary(p, op, lhs, rhs, tok);
        if (op != LND_SHL && op != LND_SHR && b->kind == op && b->type &&
            (lang_is_scalar(b->type) || b->type->kind == LTY_VECTOR)) {
            /* C: `a op= b` is `a = (A)(a op b)` with `a op b` in the common type, so
             * `int i; i += 1.5f` adds in float and `half h; h += f` rounds once. */
            node->op_type = b->type;
            node->rhs = b->rhs;
            return node;
        }
    }
    if (op == LND_SHL || op == LND_SHR)
        node->rhs = lang_is_integer(rhs->type) || rhs->type->kind == LTY_VECTOR
                        ? lang_p_cast(p, rhs, lhs->type->kind == LTY_VECTOR || lang_is_scalar(
                                      rhs->type) ? node->type : rhs->type, rtok, false)
                        : rhs;
    else
        node->rhs = lang_p_cast(p, rhs, node->type, rtok, false);
    return node;
}

static LangNode *binary_level(LangParser *p, int level);

// cond = logor ("?" expr ":" cond)?
LangNode *lang_p_cond(LangParser *p)
{
    LangNode *c = binary_level(p, 0);
    LangToken *tok = p->tok;
    if (!lang_p_consume(p, "?"))
        return c;
    LangNode *node = lang_p_new_node(p, LND_COND, tok);
    node->cond = lang_p_to_bool(p, c);
    grow(p, 1);
    LangNode *then = lang_p_expr(p);
    lang_p_skip(p, ":");
    LangNode *els = lang_p_cond(p);
    p->height--;
    LangType *ty;
    if (lang_same_type(then->type, els->type))
        ty = unqual(p, then->type);
    else if (then->type->kind == LTY_POINTER && els->is_nullptr)
        ty = unqual(p, then->type);
    else if (els->type->kind == LTY_POINTER && then->is_nullptr)
        ty = unqual(p, els->type);
    else if (is_numeric(then->type) && is_numeric(els->type) &&
             (ty = lang_p_common_type(p, then->type, els->type)) != NULL)
        ;
    else {
        lang_error_soft(p->ctx, tok, "incompatible operand types ('%s' and '%s')",
                        lang_type_name(p->ctx, then->type), lang_type_name(p->ctx, els->type));
        ty = unqual(p, then->type);
    }
    node->then = lang_p_cast(p, then, ty, tok, false);
    node->els = lang_p_cast(p, els, ty, tok, false);
    node->type = ty;
    if (node->cond->kind == LND_NUM)
        return node->cond->ival ? node->then : node->els;
    return node;
}

/* Binary operators by precedence, lowest first (C's table). */
static const struct {
    const char *op;
    LangNodeKind kind;
    int level;
} binops[] = {
    {"||", LND_LOGOR, 0}, {"&&", LND_LOGAND, 1}, {"|", LND_BITOR, 2}, {"^", LND_BITXOR, 3},
    {"&", LND_BITAND, 4}, {"==", LND_EQ, 5}, {"!=", LND_NE, 5}, {"<", LND_LT, 6},
    {"<=", LND_LE, 6}, {">", LND_GT, 6}, {">=", LND_GE, 6}, {"<<", LND_SHL, 7},
    {">>", LND_SHR, 7}, {"+", LND_ADD, 8}, {"-", LND_SUB, 8}, {"*", LND_MUL, 9},
    {"/", LND_DIV, 9}, {"%", LND_MOD, 9},
};

// logor = logand ("||" logand)*        logand = bitor ("&&" bitor)*
// bitor = bitxor ("|" bitxor)*         bitxor = bitand ("^" bitand)*
// bitand = equality ("&" equality)*    equality = relational (("==" | "!=") relational)*
// relational = shift (("<" | "<=" | ">" | ">=") shift)*
// shift = add (("<<" | ">>") add)*     add = mul (("+" | "-") mul)*
// mul = unary (("*" | "/" | "%") unary)*
static LangNode *binary_level(LangParser *p, int level)
{
    if (level == 10)
        return unary(p);
    LangNode *node = binary_level(p, level + 1);
    for (int levels = 0;; levels++) {
        LangToken *tok = p->tok;
        size_t i, n = sizeof binops / sizeof binops[0];
        for (i = 0; i < n && !(binops[i].level == level && lang_p_is(tok, binops[i].op)); i++)
            ;
        if (i == n) {
            p->height -= levels;
            return node;
        }
        lang_p_next(p);
        grow(p, 1);
        LangNode *rhs = binary_level(p, level + 1);
        node = binary(p, binops[i].kind, node, rhs, tok);
    }
}

LangNode *lang_p_additive(LangParser *p)
{
    return binary_level(p, 8);
}

static LangNode *cast_to(LangParser *p, LangNode *node, LangType *ty, LangToken *tok)
{
    if (ty->kind == LTY_VOID) {
        LangNode *c = lang_p_new_node(p, LND_CAST, tok);
        c->lhs = node;
        c->type = lang_ty_void;
        return c;
    }
    if ((ty->kind == LTY_STRUCT || ty->kind == LTY_ARRAY) && !ty->vote) {
        if (lang_same_type(node->type, ty))
            return node;
        lang_error_soft(p->ctx, tok, "cannot cast '%s' to '%s'",
                        lang_type_name(p->ctx, node->type), lang_type_name(p->ctx, ty));
        return node;
    }
    return lang_p_cast(p, node, ty, tok, true);
}

static LangNode *incdec(LangParser *p, LangNodeKind kind, LangNode *lhs, LangToken *tok)
{
    if (lhs->type->kind == LTY_STRUCT) { /* a member operator++ (postfix: its int operand) */
        bool post = kind == LND_POST_INC || kind == LND_POST_DEC;
        LangNode *user = lang_p_operator_call(p, tok, lhs, post ? lang_p_num(p, tok, lang_ty_int,
                                                                             0, 0) : NULL);
        if (user)
            return user;
    }
    check_assignable(p, lhs, tok);
    if (!lang_is_scalar(lhs->type) && lhs->type->kind != LTY_POINTER &&
        lhs->type->kind != LTY_VECTOR)
        lang_error_soft(p->ctx, tok, "cannot increment or decrement '%s'",
                        lang_type_name(p->ctx, lhs->type));
    LangNode *node = lang_p_new_node(p, kind, tok);
    node->lhs = lhs;
    node->type = unqual(p, lhs->type);
    return node;
}

/* After "(" and a type name: a C cast `(T*)` rather than `(T(x) + y)` if only type tokens
 * come before the ")". */
static bool is_cast(const LangToken *t)
{
    for (; t->kind != LTK_EOF; t = t->next) {
        if (lang_p_is(t, ")"))
            return true;
        if (!lang_p_is_name(t) && t->kind != LTK_NUM && !lang_p_is(t, "*") &&
            !lang_p_is(t, "&") && !lang_p_is(t, "<") && !lang_p_is(t, ">") &&
            !lang_p_is(t, ",") && !lang_p_is(t, "::"))
            return false;
    }
    return false;
}

static LangNode *unary_inner(LangParser *p);

/* Expressions recurse through here: a bound on the depth keeps hostile input (thousands of
 * nested parentheses) from overflowing the stack. */
static LangNode *unary(LangParser *p)
{
    if (++p->depth > LANG_P_MAX_DEPTH)
        lang_error_at(p->ctx, p->tok, "expression or statement nests too deeply");
    grow(p, 1);
    LangNode *node = unary_inner(p);
    p->height--;
    p->depth--;
    return node;
}

// unary = ("+" | "-" | "!" | "~" | "*" | "&" | "++" | "--") unary
//       | "(" typename ")" unary
//       | postfix
static LangNode *unary_inner(LangParser *p)
{
    LangToken *tok = p->tok;
    if (lang_p_is(tok, "(") && lang_p_is_typename(p, tok->next) && is_cast(tok->next)) {
        lang_p_next(p);
        LangType *ty = lang_p_typename(p);
        lang_p_skip(p, ")");
        return cast_to(p, unary(p), ty, tok);
    }
    if (lang_p_consume(p, "+")) {
        LangNode *n = unary(p);
        LangNode *user = lang_p_operator_call(p, tok, n, NULL);
        if (user)
            return user;
        if (!is_numeric(n->type))
            lang_error_soft(p->ctx, tok, "invalid argument type '%s' to unary expression",
                            lang_type_name(p->ctx, n->type));
        return lang_is_scalar(n->type) ? lang_p_cast(p, n, lang_p_promote(n->type), tok, false) : n;
    }
    if (lang_p_consume(p, "-") || lang_p_consume(p, "~")) {
        bool neg = lang_p_is(tok, "-");
        LangNode *n = unary(p);
        LangNode *user = lang_p_operator_call(p, tok, n, NULL);
        if (user)
            return user;
        LangType *ty = n->type;
        if (!is_numeric(ty) || (!neg && !lang_is_integer(lang_scalar_of(ty)))) {
            lang_error_soft(p->ctx, tok, "invalid argument type '%s' to unary expression",
                            lang_type_name(p->ctx, ty));
            return n;
        }
        ty = ty->kind == LTY_VECTOR ? unqual(p, ty) : lang_p_promote(unqual(p, ty));
        LangNode *node = lang_p_new_node(p, neg ? LND_NEG : LND_BITNOT, tok);
        node->lhs = lang_p_cast(p, n, ty, tok, false);
        node->type = ty;
        LangNode *f = node->lhs->kind == LND_NUM ? lang_p_fold(p, node) : NULL;
        return f ? f : node;
    }
    if (lang_p_consume(p, "!")) {
        LangNode *n = unary(p);
        LangNode *user = lang_p_operator_call(p, tok, n, NULL);
        if (user)
            return user;
        LangNode *node = lang_p_new_node(p, LND_NOT, tok);
        if (n->type->kind == LTY_VECTOR) {
            node->type = lang_vector_of(p->ctx, lang_ty_bool, n->type->len, false);
            node->lhs = lang_p_cast(p, n, node->type, tok, true);
        } else {
            node->lhs = lang_p_to_bool(p, n);
            node->type = lang_ty_bool;
        }
        LangNode *f = node->lhs->kind == LND_NUM ? lang_p_fold(p, node) : NULL;
        return f ? f : node;
    }
    if (lang_p_consume(p, "*")) {
        LangNode *n = unary(p);
        LangNode *node = lang_p_new_node(p, LND_DEREF, tok);
        node->lhs = n;
        if (n->type->kind == LTY_ARRAY && lang_p_is_lvalue(n))
            node->lhs = n = lang_p_cast(p, n, lang_pointer_to(p->ctx, n->type->base,
                                                          lang_p_lvalue_space(n)), tok, false);
        if (n->type->kind != LTY_POINTER) {
            lang_error_at(p->ctx, tok, "indirection requires a pointer operand ('%s' invalid)",
                          lang_type_name(p->ctx, n->type));
        }
        node->type = n->type->base;
        return node;
    }
    if (lang_p_consume(p, "&")) {
        p->addr_operand = p->tok;
        LangNode *n = unary(p);
        if (!lang_p_is_lvalue(n) || n->kind == LND_SWIZZLE || n->kind == LND_ELEMENTS ||
            (n->kind == LND_INDEX && n->lhs->type->kind == LTY_VECTOR))
            lang_error_at(p->ctx, tok, "cannot take the address of this expression");
        LangNode *node = lang_p_new_node(p, LND_ADDR, tok);
        node->lhs = n;
        node->type = lang_pointer_to(p->ctx, n->type, lang_p_lvalue_space(n));
        LangVar *v = lang_p_root_var(n);
        if (v)
            v->address_taken = true;
        return node;
    }
    if (lang_p_consume(p, "++"))
        return incdec(p, LND_PRE_INC, unary(p), tok);
    if (lang_p_consume(p, "--"))
        return incdec(p, LND_PRE_DEC, unary(p), tok);
    return postfix(p);
}

static LangNode *primary(LangParser *p);

// postfix = primary ("[" expr "]" | "." ident | "->" ident | "++" | "--")*
static LangNode *postfix(LangParser *p)
{
    const bool addr_of = p->addr_operand == p->tok; /* the whole chain is &'s operand */
    const LangToken *open = p->tok;
    const bool parenthesized = addr_of && lang_p_is(open, "(");
    /* &(a[64]) is &a[64]: the chain inside the parentheses is &'s operand too */
    p->addr_operand = parenthesized ? open->next : NULL;
    LangNode *node = primary(p);
    p->addr_operand = NULL;
    if (parenthesized && (lang_p_is(p->tok, "[") || lang_p_is(p->tok, ".") ||
                          lang_p_is(p->tok, "->") || lang_p_is(p->tok, "++") ||
                          lang_p_is(p->tok, "--")))
        lang_p_index_used(p, node); /* &(a[64]).x reads a[64] after all */
    for (;;) {
        LangToken *tok = p->tok;
        if (lang_p_consume(p, "[")) {
            node = lang_p_has_member_op(node->type, "operator[]")
                       ? lang_p_subscript_call(p, node, tok) /* parse_functor.c */
                       : lang_p_index(p, node, tok, addr_of);
        } else if (lang_p_is(tok, "(") && node->type->kind == LTY_STRUCT && node->type->cls) {
            node = lang_p_functor_call(p, node, tok); /* op(a, b), Op()(a, b) */
        } else if (lang_p_consume(p, ".") || lang_p_consume(p, "->")) {
            if (lang_p_is(tok, "->")) {
                if (node->type->kind != LTY_POINTER)
                    lang_error_at(p->ctx, tok, "'->' needs a pointer ('%s' is not one)",
                                  lang_type_name(p->ctx, node->type));
                LangNode *d = lang_p_new_node(p, LND_DEREF, tok);
                d->lhs = node;
                d->type = node->type->base;
                node = d;
            }
            lang_p_consume(p, "template"); /* op.template f<T>(...) */
            LangToken *name = p->tok;
            if (!lang_p_is_name(name))
                lang_error_at(p->ctx, name, "expected a member name");
            lang_p_next(p);
            if ((lang_p_is(p->tok, "(") || lang_p_is(p->tok, "<")) &&
                node->type->kind == LTY_STRUCT && node->type->cls && node->type->cls->member_tmpls)
                node = lang_p_method_call(p, node, name); /* a member function template's */
            else if (lang_p_is(p->tok, "(") && node->type->kind == LTY_STRUCT &&
                     !node->type->tensor && !node->type->vote && !node->type->texture)
                node = lang_p_method_call(p, node, name); /* parse_method.c */
            else if (lang_p_is(p->tok, "(") && node->type->kind != LTY_SGMATRIX &&
                     !node->type->tensor && !node->type->vote && !node->type->texture)
                lang_error_at(p->ctx, name, "member functions are not supported on '%s'",
                              lang_type_name(p->ctx, node->type));
            else
                node = lang_p_member(p, node, name);
        } else if (lang_p_consume(p, "++")) {
            node = incdec(p, LND_POST_INC, node, tok);
        } else if (lang_p_consume(p, "--")) {
            node = incdec(p, LND_POST_DEC, node, tok);
        } else {
            return node;
        }
    }
}

/* ---- primary ------------------------------------------------------------------------------- */

// call = ident template-args? "(" (assign ("," assign)*)? ")"   (after the name)
static LangNode *call(LangParser *p, LangFunction *f, LangToken *tok)
{
    return lang_p_call(p, f, tok, NULL, NULL, 0);
}

static LangNode *var_ref(LangParser *p, LangVar *v, LangToken *tok)
{
    if (v->kind == LVAR_CONSTANT && v->init && v->init->kind == LND_NUM)
        return lang_p_num(p, tok, v->init->type, v->init->ival, v->init->fval);
    LangNode *node = lang_p_new_node(p, LND_VAR, tok);
    node->var = v;
    node->type = v->type;
    if (v->type->kind == LTY_POINTER && v->type->is_reference) {
        LangNode *d = lang_p_new_node(p, LND_DEREF, tok);
        d->lhs = node;
        d->type = v->type->base;
        return d;
    }
    return node;
}

/* metal::mem_flags::mem_x and memory_order_x */
static LangNode *enum_constant(LangParser *p, LangToken *tok)
{
    static const struct {
        const char *name;
        int value;
        bool mem_flags;
    } consts[] = {
        {"mem_none", 0, true}, {"mem_device", 1, true}, {"mem_threadgroup", 2, true},
        {"mem_texture", 4, true}, {"mem_threadgroup_imageblock", 8, true},
        {"memory_order_relaxed", 0, false},
    };
    for (size_t i = 0; i < sizeof consts / sizeof consts[0]; i++)
        if (lang_p_is(tok, consts[i].name))
            return lang_p_num(p, tok, consts[i].mem_flags ? lang_ty_mem_flags
                                                          : lang_ty_memory_order,
                              (uint64_t)consts[i].value, 0);
    if (lang_p_is(tok, "memory_order_seq_cst") || lang_p_is(tok, "memory_order_acquire") ||
        lang_p_is(tok, "memory_order_release") || lang_p_is(tok, "memory_order_acq_rel"))
        lang_error_at(p->ctx, tok, "only memory_order_relaxed is supported");
    return NULL;
}

/* "<" T ">" "(" expr ")" of static_cast and as_type */
static LangNode *cast_template(LangParser *p, LangToken *tok, bool bitcast)
{
    lang_p_skip(p, "<");
    LangType *ty = unqual(p, lang_p_typename(p));
    lang_p_close_angle(p);
    lang_p_skip(p, "(");
    LangNode *e = lang_p_expr(p);
    lang_p_skip(p, ")");
    if (!bitcast)
        return cast_to(p, e, ty, tok);
    if (!is_numeric(ty) || !is_numeric(e->type) || ty->size != e->type->size) {
        lang_error_soft(p->ctx, tok, "as_type<%s> of '%s': %s", lang_type_name(p->ctx, ty),
                        lang_type_name(p->ctx, e->type),
                        is_numeric(ty) && is_numeric(e->type)
                            ? lang_format(p->ctx, "the sizes differ (%d and %d bytes)",
                                          ty->size, e->type->size)
                            : "both types must be scalars or vectors");
    }
    LangNode *node = lang_p_new_node(p, LND_BITCAST, tok);
    node->lhs = e;
    node->type = ty;
    return node;
}

/* reinterpret_cast<T *>(p): a pointer viewed as pointing to another type in the same address
 * space, as `(device float4 *)p` does (ggml and MLX read rows as float4 this way). Values
 * are reinterpreted with as_type in MSL; references are not supported. */
static LangNode *reinterpret(LangParser *p, LangToken *tok)
{
    lang_p_skip(p, "<");
    LangToken *at = p->tok;
    LangType *ty = unqual(p, lang_p_typename(p));
    lang_p_close_angle(p);
    lang_p_skip(p, "(");
    LangNode *e = lang_p_expr(p);
    lang_p_skip(p, ")");
    LangType *from = e->type;
    if (from->kind == LTY_ARRAY && ty->kind == LTY_POINTER)
        return lang_p_cast(p, e, ty, tok, true);
    if (ty->kind != LTY_POINTER || from->kind != LTY_POINTER) {
        lang_error_soft(p->ctx, at, "reinterpret_cast<%s> of '%s': lockstep supports it "
                        "between pointers (use as_type<T>(x) to reinterpret a value)",
                        lang_type_name(p->ctx, ty), lang_type_name(p->ctx, from));
        return e;
    }
    if (ty->space != from->space)
        lang_error_soft(p->ctx, at, "reinterpret_cast<%s> of '%s' changes the address space",
                        lang_type_name(p->ctx, ty), lang_type_name(p->ctx, from));
    return lang_p_cast(p, e, ty, tok, true);
}

/* The arguments a call's list from `open` (its "(") has: commas outside brackets and
 * template arguments (`vec<float, 2>(x)`). */
static int count_args(LangParser *p, LangToken *open)
{
    int depth = 0, angle = 0, n = 0;
    bool any = false;
    for (LangToken *t = open, *prev = NULL; t && t->kind != LTK_EOF; prev = t, t = t->next) {
        if (lang_p_is(t, "(") || lang_p_is(t, "[") || lang_p_is(t, "{"))
            depth++;
        else if ((lang_p_is(t, ")") || lang_p_is(t, "]") || lang_p_is(t, "}")) && --depth == 0)
            break;
        else if (lang_p_is(t, "<") && lang_p_angle_opens(p, prev))
            angle++;
        else if (angle && lang_p_is(t, ">"))
            angle--;
        else if (angle && lang_p_is(t, ">>"))
            angle = angle > 1 ? angle - 2 : 0;
        else if (depth == 1 && !angle && lang_p_is(t, ","))
            n++;
        if (depth >= 1 && t != open)
            any = true;
    }
    return any ? n + 1 : 0;
}

// primary = "(" expr ")" | num | "true" | "false" | "sizeof" ("(" typename ")" | unary)
//         | "alignof" "(" typename ")"
//         | ("static_cast" | "as_type") "<" typename ">" "(" expr ")"
//         | typename ("(" args ")" | "{" args "}")
//         | ("metal" | "fast" | "precise") "::" primary
//         | "mem_flags" "::" ident | ident template-args? ("(" args ")")?
static LangNode *primary(LangParser *p)
{
    LangToken *tok = p->tok;
    bool fast = p->ctx->opts && p->ctx->opts->fast_math, ns = false;
    while (lang_p_is_name(p->tok) && lang_p_is(p->tok->next, "::") &&
           (lang_p_is(p->tok, "metal") || lang_p_is(p->tok, "fast") ||
            lang_p_is(p->tok, "precise") || lang_p_is(p->tok, "mpp") ||
            lang_p_is(p->tok, "tensor_ops"))) {
        if (lang_p_is(p->tok, "fast") || lang_p_is(p->tok, "precise"))
            fast = lang_p_is(p->tok, "fast"), ns = true;
        lang_p_next(p);
        lang_p_next(p);
    }
    if (p->tok != tok && ns) {
        int id = lang_p_builtin_id(p->tok);
        if (id < 0)
            lang_error_at(p->ctx, p->tok, "no function '%.*s' in namespace '%.*s'",
                          p->tok->len, p->tok->loc, tok->len, tok->loc);
        LangToken *name = p->tok;
        lang_p_next(p);
        return lang_p_builtin_call(p, name, id, fast);
    }
    tok = p->tok;
    if (lang_p_consume(p, "(")) {
        LangNode *node = lang_p_expr(p);
        lang_p_skip(p, ")");
        return node;
    }
    if (tok->kind == LTK_NUM) {
        lang_p_next(p);
        LangType *ty = tok->num_type;
        if (!ty)
            ty = tok->is_float ? lang_ty_float : tok->ival > 0x7fffffff ? lang_ty_long
                                                                       : lang_ty_int;
        return lang_p_num(p, tok, ty, tok->ival, tok->is_float ? tok->fval : (double)tok->ival);
    }
    if (tok->kind == LTK_STR)
        lang_error_at(p->ctx, tok, "string literals are not supported");
    if (lang_p_consume(p, "true") || lang_p_consume(p, "false"))
        return lang_p_num(p, tok, lang_ty_bool, lang_p_is(tok, "true"), 0);
    if (lang_p_consume(p, "nullptr")) {
        LangNode *n = lang_p_num(p, tok, lang_ty_ulong, 0, 0);
        n->is_nullptr = true;
        return n;
    }
    if (lang_p_consume(p, "sizeof")) {
        LangType *ty;
        if (lang_p_is(p->tok, "(") && lang_p_is_typename(p, p->tok->next)) {
            lang_p_next(p);
            ty = lang_p_typename(p);
            lang_p_skip(p, ")");
        } else {
            ty = unary(p)->type;
        }
        if (ty->kind == LTY_VOID)
            lang_error_soft(p->ctx, tok, "sizeof(void): void has no size");
        return lang_p_num(p, tok, lang_ty_ulong, (uint64_t)ty->size, 0);
    }
    if (lang_p_consume(p, "alignof")) { /* alignof(type), as in C++ */
        lang_p_skip(p, "(");
        if (!lang_p_is_typename(p, p->tok))
            lang_error_at(p->ctx, p->tok, "expected a type in alignof(...)");
        LangType *ty = lang_p_typename(p);
        lang_p_skip(p, ")");
        if (ty->kind == LTY_VOID)
            lang_error_soft(p->ctx, tok, "alignof(void): void has no alignment");
        return lang_p_num(p, tok, lang_ty_ulong, (uint64_t)ty->align, 0);
    }
    if (lang_p_consume(p, "static_cast"))
        return cast_template(p, tok, false);
    if (lang_p_consume(p, "as_type"))
        return cast_template(p, tok, true);
    if (lang_p_consume(p, "reinterpret_cast"))
        return reinterpret(p, tok);
    if (lang_p_is(tok, "const_cast") || lang_p_is(tok, "dynamic_cast"))
        lang_error_at(p->ctx, tok, "%.*s is not supported (use as_type or static_cast)",
                      tok->len, tok->loc);
    if (lang_p_is(tok, "mem_flags") && lang_p_is(tok->next, "::")) {
        lang_p_next(p);
        lang_p_next(p);
        LangNode *c = enum_constant(p, p->tok);
        if (!c || c->type != lang_ty_mem_flags)
            lang_error_at(p->ctx, p->tok, "unknown mem_flags value '%.*s'", p->tok->len,
                          p->tok->loc);
        lang_p_next(p);
        return c;
    }
    if (!lang_p_is_name(tok))
        lang_error_at(p->ctx, tok, "expected expression");
    if (lang_p_is(tok, "make_filled_simdgroup_matrix") && lang_p_is(tok->next, "<"))
        return lang_p_matrix_filled(p);
    LangNode *tensor = lang_p_tensor_primary(p);
    if (tensor)
        return tensor;
    LangNode *self = lang_p_this(p, tok); /* parse_method.c */
    if (self)
        return self;
    LangNode *limit = lang_p_numeric_limits(p); /* parse_limits.c */
    if (limit)
        return limit;
    LangNode *trait = lang_p_type_trait(p); /* parse_traits.c */
    if (trait)
        return trait;
    LangSym *sym = lang_p_lookup(p, tok);
    if (sym && sym->member_of)
        return lang_p_member_name(p, sym, tok); /* a member inside a member function */
    if (sym && sym->type && sym->type->cls && lang_p_is(tok->next, "::")) {
        lang_p_next(p); /* StructName::static_member */
        lang_p_next(p);
        return lang_p_static_member(p, sym->type, tok->next->next);
    }
    if (sym && sym->type && !sym->is_enum_const && lang_p_is(tok->next, "::")) {
        lang_p_next(p); /* EnumName::enumerator */
        lang_p_next(p);
        tok = p->tok;
        sym = lang_p_lookup(p, tok);
        if (!sym || !sym->is_enum_const)
            lang_error_at(p->ctx, tok, "expected an enumerator");
    }
    if (lang_p_is_typename(p, tok)) {
        LangType *ty = lang_p_typename(p);
        if (ty->kind == LTY_STRUCT && ty->cls && lang_p_consume(p, "::"))
            return lang_p_static_member(p, ty, p->tok); /* Vec<T, 4>::size */
        if (!lang_p_is(p->tok, "(") && !lang_p_is(p->tok, "{"))
            lang_error_at(p->ctx, p->tok, "expected '(' after the type name '%s'",
                          lang_type_name(p->ctx, ty));
        return lang_p_construct(p, ty, tok);
    }
    lang_p_next(p);
    if (sym && (sym->func || sym->tmpl) && lang_p_is(p->tok, "(")) {
        /* A function of the kernel's named as a builtin (a 3-argument max) hides none of
         * the builtin's overloads: C++ finds both, through `using namespace metal`. Those
         * of another argument count are the builtin's. */
        int id = lang_p_builtin_id(tok);
        if (id >= 0 && !lang_p_set_takes(p, sym, count_args(p, p->tok)))
            return lang_p_builtin_call(p, tok, id, fast);
    }
    if (sym && sym->var)
        return var_ref(p, sym->var, tok);
    if (sym && sym->is_enum_const)
        return lang_p_num(p, tok, sym->const_type ? sym->const_type : lang_ty_int,
                          (uint64_t)sym->enum_value, 0);
    if (sym && (sym->func || sym->tmpl) && lang_p_is_overloaded(p, sym))
        return lang_p_overload_call(p, sym, tok);
    if (sym && sym->func) {
        if (!lang_p_is(p->tok, "("))
            lang_error_at(p->ctx, p->tok, "function '%.*s' must be called", tok->len, tok->loc);
        return call(p, sym->func, tok);
    }
    if (sym && sym->tmpl) {
        if (lang_p_is(p->tok, "("))
            return call(p, lang_p_deduce(p, sym->tmpl, tok), tok);
        if (!lang_p_is(p->tok, "<"))
            lang_error_at(p->ctx, p->tok, "template '%.*s' must be called, with its template "
                          "arguments or arguments they can be deduced from", tok->len, tok->loc);
        LangTemplateArgs *args = lang_p_template_args(p, sym->tmpl);
        LangFunction *f = lang_p_instantiate(p, sym->tmpl, args, tok);
        return call(p, f, tok);
    }
    LangNode *c = enum_constant(p, tok);
    if (c)
        return c;
    if (lang_p_is(p->tok, "(")) {
        if (lang_p_is(tok, "is_function_constant_defined")) {
            lang_p_next(p);
            LangToken *at = p->tok;
            LangNode *v = lang_p_expr(p);
            bool defined = false;
            if (v->kind != LND_VAR || v->var->kind != LVAR_FUNCTION_CONSTANT)
                lang_error_soft(p->ctx, at, "is_function_constant_defined needs a function "
                                "constant");
            else /* defined: its value is given in the options (manifest constants:) */
                for (uint32_t i = 0; p->ctx->opts && i < p->ctx->opts->num_constants; i++)
                    defined |= strcmp(p->ctx->opts->constants[i].name, v->var->name) == 0;
            lang_p_skip(p, ")");
            return lang_p_num(p, tok, lang_ty_bool, defined, 0);
        }
        int id = lang_p_builtin_id(tok);
        if (id >= 0)
            return lang_p_builtin_call(p, tok, id, fast);
    }
    /* A local of this function by that name whose scope has ended (`for (uint s = ...)` then
     * `s` after the loop): say so, since "undeclared" alone puzzles a reader who sees it. */
    const LangVar *gone = NULL;
    for (const LangVar *v = p->fn ? p->fn->locals : NULL; v; v = v->next)
        if (v->tok && (int)strlen(v->name) == tok->len && memcmp(v->name, tok->loc, (size_t)tok->len) == 0)
            gone = v;
    if (gone)
        lang_error_soft(p->ctx, tok, "use of undeclared identifier '%.*s' ('%s' declared at line "
                        "%d is out of scope here: its block ended before this line)",
                        tok->len, tok->loc, gone->name, gone->tok->line);
    else
        lang_error_soft(p->ctx, tok, "use of undeclared identifier '%.*s'", tok->len, tok->loc);
    if (lang_p_is(p->tok, "(")) { /* an unknown function: check its arguments anyway */
        lang_p_next(p);
        while (!lang_p_consume(p, ")")) {
            lang_p_assign(p);
            if (!lang_p_consume(p, ",") && !lang_p_is(p->tok, ")"))
                lang_error_at(p->ctx, p->tok, "expected ',' or ')'");
        }
    }
    return lang_p_num(p, tok, lang_ty_int, 0, 0);
}
