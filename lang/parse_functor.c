/*
 * parse_functor.c — what MLX's functors need of C++ beyond plain member functions: member
 * operators (`T operator()(T a, T b) const`, `thread T& operator[](int i)`, `S&
 * operator+=(S o)`, unary `-`, `!`, `~`, prefix and postfix `++`/`--`, comparisons) and
 * member function templates (`template <typename T> T operator()(T x, T y)`, `template
 * <typename T> T simd_reduce(T v)`), and the calls of both: `op(a, b)`, `Op()(a, b)`,
 * `v[i]`, `a += b`, `op.simd_reduce(v)`, `op.f<float>(v)`.
 *
 * A member operator is a member function named by its operator ("Add::operator()"), so
 * parse_method.c chooses among them as among member functions, by C++'s ranking with the
 * object as the first argument. An operator that a struct declares and a free operator
 * function of the same operator are candidates together (C++ [over.match.oper]), member
 * operator templates' instances among them: the member takes the left operand as its
 * object, a reference a temporary binds to as well. A member function template keeps its
 * tokens, as a function template does; a call deduces its arguments (or is given them),
 * declares the instance in the struct's scope with them bound (parse_template.c,
 * parse_struct.c) and parses its body only when the call chooses it, as C++ instantiates a
 * candidate's declaration alone.
 *
 * A member function returning a reference (`thread T& operator[](int i)`) returns the
 * address of what its `return` names, and its call is that lvalue: `v[i] = x` writes into
 * the object, which therefore lives in thread memory (parse_struct.c's escape analysis sees
 * the address taken).
 */
#include <string.h>

#include "parse.h"

enum { MAX_ARGS = 64 };

/* ---- declarations ----------------------------------------------------------------------- */

const char *lang_p_member_operator_name(LangParser *p)
{
    LangToken *op = p->tok;
    if ((lang_p_is(op, "(") && lang_p_is(op->next, ")")) ||
        (lang_p_is(op, "[") && lang_p_is(op->next, "]"))) {
        lang_p_next(p);
        lang_p_next(p);
        return lang_p_is(op, "(") ? "operator()" : "operator[]";
    }
    if (lang_p_is(op, "=") || lang_p_is(op, "&&") || lang_p_is(op, "||") ||
        lang_p_is(op, "->") || lang_p_is(op, ","))
        lang_error_at(p->ctx, op, "overloading 'operator%.*s' is not supported (a struct may "
                      "declare operator(), operator[], the arithmetic, bitwise, shift and "
                      "comparison operators, compound assignments, unary '-', '+', '!', '~', "
                      "'++' and '--')", op->len, op->loc);
    return lang_p_operator_name(p); /* the ones free functions may declare too (overload.c) */
}

void lang_p_check_member_operator(LangParser *p, const LangMethod *m)
{
    const char *op = m->op + 8;
    int n = m->func->num_params - (m->this_var ? 1 : 0);
    if (m->is_static)
        lang_error_soft(p->ctx, m->name_tok, "'%s' cannot be a static member function", m->op);
    const char *want = NULL;
    if (strcmp(op, "()") == 0)
        return;
    if (strcmp(op, "[]") == 0)
        want = n == 1 ? NULL : "one parameter (the index)";
    else if (strcmp(op, "++") == 0 || strcmp(op, "--") == 0)
        want = n == 0 || (n == 1 && m->func->params->next->type->kind == LTY_INT)
                   ? NULL : "no parameter (prefix) or one 'int' (postfix)";
    else if (strcmp(op, "!") == 0 || strcmp(op, "~") == 0)
        want = n == 0 ? NULL : "no parameter";
    else if (strcmp(op, "-") == 0 || strcmp(op, "+") == 0)
        want = n <= 1 ? NULL : "no parameter (unary) or one (binary)";
    else
        want = n == 1 ? NULL : "one parameter (the right operand)";
    if (want)
        lang_error_soft(p->ctx, m->name_tok, "member '%s' must take %s; it takes %d", m->op,
                        want, n);
}

bool lang_p_member_template_named(LangParser *p, const LangTemplate *t, const LangToken *name,
                                  const char *op)
{
    return op ? t->op && strcmp(t->op, op) == 0
              : !t->op && lang_tok_equal(name, lang_p_name(p, t->name_tok));
}

/* Skips a balanced (...) from p->tok. */
static void skip_parens(LangParser *p)
{
    for (int depth = 0;;) {
        if (p->tok->kind == LTK_EOF)
            lang_error_at(p->ctx, p->tok, "expected ')'");
        depth += lang_p_is(p->tok, "(") - lang_p_is(p->tok, ")");
        lang_p_next(p);
        if (depth == 0)
            return;
    }
}

// member-template = template-params method     (in a struct's body, at "template")
void lang_p_member_template(LangParser *p, LangClass *cls)
{
    LangToken *tmpl_tok = p->tok;
    lang_p_next(p);
    if (!lang_p_is(p->tok, "<"))
        lang_error_at(p->ctx, p->tok, "expected '<' after 'template'");
    LangTemplate *t = lang_p_template_params(p);
    if (!t)
        lang_error_at(p->ctx, tmpl_tok, "explicit specializations of member function "
                      "templates are not supported");
    if (p->fn)
        lang_error_at(p->ctx, tmpl_tok, "member function templates of a struct declared inside "
                      "a function are not supported; declare '%s' at program scope",
                      cls->type->name);
    t->start = p->tok;
    t->cls = cls;
    /* the name: `operator` and its operator, or the identifier before the first "(" */
    for (int brackets = 0; p->tok->kind != LTK_EOF && !t->open; lang_p_next(p)) {
        LangToken *tok = p->tok;
        if (lang_p_is(tok, "[") || lang_p_is(tok, "[["))
            brackets++;
        else if (lang_p_is(tok, "]") || lang_p_is(tok, "]]"))
            brackets--;
        else if (brackets)
            continue;
        else if (lang_p_is(tok, "struct") || lang_p_is(tok, "class") ||
                 lang_p_is(tok, "using") || lang_p_is(tok, ";") || lang_p_is(tok, "{") ||
                 lang_p_is(tok, "="))
            break;
        else if (lang_p_is(tok, "operator")) {
            t->name_tok = tok;
            lang_p_next(p);
            t->op = lang_p_member_operator_name(p);
            t->open = p->tok;
        } else if (lang_p_is(tok, "(")) {
            t->name_tok = p->prev;
            t->open = tok;
        }
        if (t->open)
            break;
    }
    if (!t->open || !t->name_tok || t->name_tok->kind != LTK_IDENT)
        lang_error_at(p->ctx, t->start, "expected a member function template (data members, "
                      "types and nested structs cannot be templates here)");
    if (!t->op && cls->name_tok && lang_tok_equal(t->name_tok, lang_p_name(p, cls->name_tok)))
        lang_error_at(p->ctx, t->name_tok, "constructor templates are not supported yet");
    if (!lang_p_is(t->open, "("))
        lang_error_at(p->ctx, t->open, "expected '(' after '%s'", t->op);
    p->tok = t->open;
    skip_parens(p);
    /* qualifiers, then the body (parsed for each instance) or ";" */
    while (!lang_p_is(p->tok, "{") && !lang_p_is(p->tok, ";")) {
        if (p->tok->kind == LTK_EOF || lang_p_is(p->tok, "}"))
            lang_error_at(p->ctx, p->tok, "expected the member function template's body");
        lang_p_next(p);
    }
    if (lang_p_consume(p, ";"))
        lang_error_at(p->ctx, p->prev, "a member function template is defined in its struct "
                      "(definitions outside it are not supported yet)");
    for (int depth = 0;;) {
        if (p->tok->kind == LTK_EOF)
            lang_error_at(p->ctx, tmpl_tok, "unterminated member function template");
        depth += lang_p_is(p->tok, "{") - lang_p_is(p->tok, "}");
        lang_p_next(p);
        if (depth == 0)
            break;
    }
    LangTemplate **tail = &cls->member_tmpls;
    while (*tail)
        tail = &(*tail)->next;
    *tail = t;
    if (t->op)
        return;
    LangSym *sym = lang_p_lookup_in_scope(p, t->name_tok);
    if (sym && sym->member)
        lang_error_soft(p->ctx, t->name_tok, "'%.*s' is both a data member and a member "
                        "function", t->name_tok->len, t->name_tok->loc);
    else if (!sym)
        lang_p_push_sym(p, t->name_tok)->member_of = cls;
}

LangMethod *lang_p_member_template_candidate(LangParser *p, LangTemplate *t, LangToken *name,
                                             const char *op, const LangTemplateArgs *given,
                                             LangNode **args, int n, const char **why)
{
    if (!lang_p_member_template_named(p, t, name, op))
        return NULL;
    LangTemplateArgs targs;
    if (given) {
        targs = *given;
    } else {
        LangType *types[MAX_ARGS];
        if (n > MAX_ARGS)
            return NULL;
        for (int i = 0; i < n; i++)
            types[i] = args[i]->type;
        if (!lang_p_deduce_args(p, t, types, n, &targs, why))
            return NULL;
    }
    if (lang_p_instance_disabled(p, t, &targs)) { /* SFINAE: MLX's Power */
        *why = "its enable_if is false for these arguments";
        return NULL;
    }
    return lang_p_member_instantiate(p, t, &targs, name);
}

/* ---- calls -------------------------------------------------------------------------------- */

bool lang_p_has_member_op(const LangType *ty, const char *op)
{
    const LangClass *cls = ty->kind == LTY_STRUCT ? ty->cls : NULL;
    for (const LangMethod *m = cls ? cls->methods : NULL; m; m = m->next)
        if (m->op && strcmp(m->op, op) == 0)
            return true;
    for (const LangTemplate *t = cls ? cls->member_tmpls : NULL; t; t = t->next)
        if (t->op && strcmp(t->op, op) == 0)
            return true;
    return false;
}

LangNode *lang_p_functor_call(LangParser *p, LangNode *obj, LangToken *tok)
{
    if (!lang_p_has_member_op(obj->type, "operator()"))
        lang_error_at(p->ctx, tok, "'%s' is not callable: it declares no operator()",
                      lang_type_name(p->ctx, obj->type));
    lang_p_skip(p, "(");
    LangNode *args[MAX_ARGS];
    int n = 0;
    while (!lang_p_consume(p, ")")) {
        if (n && !lang_p_consume(p, ","))
            lang_error_at(p->ctx, p->tok, "expected ',' or ')'");
        if (n == MAX_ARGS)
            lang_error_at(p->ctx, p->tok, "more than %d arguments", MAX_ARGS);
        args[n++] = lang_p_assign(p);
    }
    return lang_p_call_member(p, obj->type->cls, tok, "operator()", NULL, obj, args, n);
}

LangNode *lang_p_subscript_call(LangParser *p, LangNode *obj, LangToken *tok)
{
    LangNode *index = lang_p_expr(p);
    lang_p_skip(p, "]");
    return lang_p_call_member(p, obj->type->cls, tok, "operator[]", NULL, obj, &index, 1);
}

/* "'S::operator+(S) const' (line 3)" or "'operator+(S, S)' (line 7)" for a message */
static const char *describe(LangParser *p, const LangFunction *f, bool member)
{
    char *s = lang_format(p->ctx, "'%s(", f->name);
    int i = 0;
    for (const LangVar *v = member ? f->params->next : f->params; v; v = v->next)
        s = lang_format(p->ctx, "%s%s%s", s, i++ ? ", " : "", lang_type_name(p->ctx, v->type));
    return lang_format(p->ctx, "%s)%s' (line %d)", s,
                       member && f->params->type->base->is_const ? " const" : "", f->tok->line);
}

/* Free and member candidates together: the free ones' parameters, and the member ones'
 * with the object's reference first; C++'s ranking over both operands. */
static LangNode *resolve_mixed(LangParser *p, LangToken *tok, const char *name, LangNode *lhs,
                               LangNode *rhs, LangSym **set, int nset)
{
    LangClass *cls = lhs->type->cls;
    int n = rhs ? 2 : 1, ncand = 0;
    LangNode *args[2] = {lhs, rhs};
    LangVar **params = lang_alloc(p->ctx, (size_t)(nset + 64) * sizeof *params);
    LangTemplate **tmpls = lang_alloc(p->ctx, (size_t)(nset + 64) * sizeof *tmpls);
    LangFunction **fns = lang_alloc(p->ctx, (size_t)(nset + 64) * sizeof *fns);
    LangMethod **methods = lang_alloc(p->ctx, (size_t)(nset + 64) * sizeof *methods);
    LangAddrSpace space = lang_p_is_lvalue(lhs) ? lang_p_lvalue_space(lhs) : LAS_THREAD;
    bool is_const = lhs->type->is_const || space == LAS_CONSTANT;
    LangMethod *members[128]; /* plain member operators, then templates' instances */
    int nmembers = 0;
    for (LangMethod *m = cls->methods; m && nmembers < 64; m = m->next)
        if (m->op && strcmp(m->op, name) == 0)
            members[nmembers++] = m;
    for (LangTemplate *t = cls->member_tmpls; t && nmembers < 128; t = t->next) {
        const char *why = NULL;
        LangMethod *m = lang_p_member_template_candidate(p, t, tok, name, NULL, &args[1],
                                                         n - 1, &why);
        if (m)
            members[nmembers++] = m;
    }
    for (int k = 0; k < nmembers && ncand < 64; k++) {
        LangMethod *m = members[k];
        if (m->func->num_params != n || m->this_space != space || (is_const && !m->is_const))
            continue;
        LangVar *self = lang_alloc(p->ctx, sizeof *self);
        *self = *m->this_var;
        self->next = lang_p_method_params(m);
        self->type = lang_pointer_to(p->ctx, m->this_var->type->base, space);
        self->type->is_reference = true; /* a temporary binds too (lang_p_rank_params) */
        tmpls[ncand] = m->tmpl;
        methods[ncand] = m;
        params[ncand++] = self;
    }
    for (int k = 0; k < nset; k++) {
        LangFunction *f = set[k]->func;
        LangTemplateArgs targs;
        const char *why = NULL;
        LangType *types[2] = {lhs->type, rhs ? rhs->type : NULL};
        if (set[k]->tmpl) {
            if (!lang_p_deduce_args(p, set[k]->tmpl, types, n, &targs, &why))
                continue;
            f = lang_p_instance_decl(p, set[k]->tmpl, &targs, tok);
        }
        if (f->num_params != n)
            continue;
        tmpls[ncand] = set[k]->tmpl;
        fns[ncand] = f;
        params[ncand++] = f->params;
    }
    int best = lang_p_rank_params(p, params, tmpls, ncand, args, n);
    if (best < 0) {
        char *list = "";
        for (int k = 0; k < ncand && k < 4; k++)
            list = lang_format(p->ctx, "%s%s%s", list, k ? ", " : "",
                               describe(p, methods[k] ? methods[k]->func : fns[k],
                                        methods[k] != NULL));
        lang_error_at(p->ctx, tok, "%s '%s' with operand%s (%s%s%s): %s", best == -2
                      ? "ambiguous use of" : "no viable", name, n == 1 ? "" : "s",
                      lang_type_name(p->ctx, lhs->type), rhs ? ", " : "",
                      rhs ? lang_type_name(p->ctx, rhs->type) : "",
                      best == -2 ? lang_format(p->ctx, "the member and free operators %s match "
                                               "equally well", list)
                                 : *list ? lang_format(p->ctx, "none of %s takes them", list)
                                         : "no operator function or member operator takes "
                                           "that many operands on this object");
    }
    if (methods[best])
        return lang_p_call_member(p, cls, tok, name, NULL, lhs, rhs ? &args[1] : NULL, n - 1);
    LangFunction *f = fns[best];
    if (tmpls[best]) {
        LangTemplateArgs targs;
        const char *why = NULL;
        LangType *types[2] = {lhs->type, rhs ? rhs->type : NULL};
        lang_p_deduce_args(p, tmpls[best], types, n, &targs, &why);
        f = lang_p_instantiate(p, tmpls[best], &targs, tok);
    }
    LangToken *starts[2] = {lhs->tok, rhs ? rhs->tok : NULL};
    return lang_p_call(p, f, tok, args, starts, n);
}

LangNode *lang_p_member_operator_call(LangParser *p, LangToken *tok, const char *name,
                                      LangNode *lhs, LangNode *rhs, LangSym **set, int nset)
{
    LangClass *cls = lhs->type->cls;
    if (!cls || !lang_p_has_member_op(lhs->type, name))
        return NULL;
    int n = rhs ? 1 : 0;
    bool takes = false; /* a member for this many operands (unary or binary `-`) */
    for (LangMethod *m = cls->methods; m; m = m->next)
        takes |= m->op && strcmp(m->op, name) == 0 && m->func->num_params - 1 == n;
    for (LangTemplate *t = cls->member_tmpls; t; t = t->next)
        takes |= t->op && strcmp(t->op, name) == 0;
    if (!takes)
        return NULL;
    if (nset)
        return resolve_mixed(p, tok, name, lhs, rhs, set, nset);
    return lang_p_call_member(p, cls, tok, name, NULL, lhs, rhs ? &rhs : NULL, n);
}

/* ---- reference returns -------------------------------------------------------------------- */

LangNode *lang_p_return_ref(LangParser *p, LangNode *e, LangType *ret, LangToken *at)
{
    if (!lang_p_is_lvalue(e) || e->kind == LND_SWIZZLE || e->kind == LND_ELEMENTS ||
        (e->kind == LND_INDEX && e->lhs->type->kind == LTY_VECTOR))
        lang_error_at(p->ctx, at, "a function returning '%s' must return a variable, a member "
                      "or an element (a reference to it is returned)",
                      lang_type_name(p->ctx, ret));
    if (!lang_same_type(lang_qualified(p->ctx, e->type, false),
                        lang_qualified(p->ctx, ret->base, false)))
        lang_error_at(p->ctx, at, "cannot return '%s' as '%s'", lang_type_name(p->ctx, e->type),
                      lang_type_name(p->ctx, ret));
    if (lang_p_lvalue_space(e) != ret->space)
        lang_error_at(p->ctx, at, "'%s' refers to %s memory; this is not there",
                      lang_type_name(p->ctx, ret), ret->space == LAS_DEVICE ? "device"
                      : ret->space == LAS_CONSTANT ? "constant"
                      : ret->space == LAS_THREADGROUP ? "threadgroup" : "thread");
    if (e->type->is_const && !ret->base->is_const)
        lang_error_at(p->ctx, at, "returning const '%s' as '%s' would discard const",
                      lang_type_name(p->ctx, e->type), lang_type_name(p->ctx, ret));
    if (e->kind == LND_DEREF) /* *this, *ptr: the pointer itself */
        return lang_p_cast(p, e->lhs, lang_qualified(p->ctx, ret, false), at, true);
    const LangVar *own = lang_p_root_var(e);
    if (own && (own->kind == LVAR_LOCAL || own->kind == LVAR_PARAM))
        lang_error_at(p->ctx, at, "returning a reference to '%s', which ends when the function "
                      "returns (a local or a parameter taken by value)", own->name);
    LangNode *a = lang_p_new_node(p, LND_ADDR, at);
    a->lhs = e;
    a->type = lang_qualified(p->ctx, ret, false);
    LangVar *v = lang_p_root_var(e);
    if (v)
        v->address_taken = true;
    return a;
}
