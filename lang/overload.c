/*
 * overload.c — overloaded functions and operators: the set of functions and templates one
 * name has, what declaring another one means (a new overload, a redeclaration, or an error
 * naming both lines), C++ overload resolution for a call (MSL 1.4.1: C++14 section 13, with
 * address spaces part of a parameter's type), operator functions on the kernel's own
 * structs, and the names inlined calls of overloads get in listings and findings.
 *
 * Resolution is C++'s for the conversions lockstep has: each argument's implicit conversion
 * is an exact match (identity, array to pointer, adding const to a pointee or a reference),
 * a promotion (bool, char, uchar, short, ushort to int; half to float is a conversion, as
 * C++ promotes only float to double) or a conversion (any other arithmetic one, a scalar to
 * a vector, packed to unpacked). The best function is no worse for every argument and better
 * for one, or else a function where the other is a template instance, or else the more
 * specialized of two template instances (parse_order.c). Template candidates
 * take part with their deduced arguments; only their declaration is parsed until one is
 * chosen, so a template body that would not compile for a call's types is no error.
 *
 * Member functions and constructors are chosen by parse_method.c, by these same rankings
 * (lang_p_rank_params).
 *
 * Sets are kept as several symbols of one name in a scope (parse.h LangSym), so a name with
 * one function works exactly as before, and nothing downstream of the parser knows.
 */
#include <string.h>

#include "parse.h"

enum { MAX_SET = 64, MAX_ARGS = 64, MAX_LISTED = 4 };

/* ---- sets ---------------------------------------------------------------------------------- */

/* The functions and templates named name (len bytes) in the innermost scope that declares
 * it, in source order; 0 when that name is something else there. */
static int set_of(LangParser *p, const char *name, int len, LangSym **out)
{
    for (LangScope *s = p->scope; s; s = s->up) {
        int n = 0;
        bool named = false;
        for (LangSym *sym = s->syms; sym; sym = sym->next) {
            if (sym->len != len || memcmp(sym->name, name, (size_t)len) != 0)
                continue;
            named = true;
            if ((sym->func || sym->tmpl) && n < MAX_SET)
                out[n++] = sym;
        }
        if (!named)
            continue;
        for (int i = 0; i < n / 2; i++) { /* symbols are pushed in front: newest first */
            LangSym *t = out[i];
            out[i] = out[n - 1 - i];
            out[n - 1 - i] = t;
        }
        return n;
    }
    return 0;
}

bool lang_p_is_overloaded(LangParser *p, const LangSym *sym)
{
    LangSym *set[MAX_SET];
    return set_of(p, sym->name, sym->len, set) > 1;
}

/* How many arguments a parameter list from `open` (its "(") takes: *max in all, *min
 * without the defaulted ones. Read from the tokens, as a template's list is parsed only
 * for a call; a `<` opens a template's arguments there (`Vec<T, N> v`), until a default. */
static void token_params(const LangToken *open, int *min, int *max)
{
    int depth = 0, angle = 0, n = 0, required = 0;
    bool any = false, defaulted = false;
    for (const LangToken *t = open; t && t->kind != LTK_EOF; t = t->next) {
        if (lang_p_is(t, "(") || lang_p_is(t, "[") || lang_p_is(t, "{")) {
            depth++;
        } else if (lang_p_is(t, ")") || lang_p_is(t, "]") || lang_p_is(t, "}")) {
            if (--depth == 0)
                break;
        } else if (depth == 1 && !defaulted && lang_p_is(t, "<")) {
            angle++;
        } else if (depth == 1 && !defaulted && angle && lang_p_is(t, ">")) {
            angle--;
        } else if (depth == 1 && !defaulted && angle && lang_p_is(t, ">>")) {
            angle = angle > 1 ? angle - 2 : 0;
        } else if (depth == 1 && !angle && lang_p_is(t, ",")) {
            n++;
            required += !defaulted;
            defaulted = false;
            continue;
        } else if (depth == 1 && !angle && lang_p_is(t, "=")) {
            defaulted = true;
        }
        if (depth == 1 && t != open && !lang_p_is(t, "void"))
            any = true;
    }
    if (any) {
        n++;
        required += !defaulted;
    }
    *min = required;
    *max = n;
}

bool lang_p_set_takes(LangParser *p, const LangSym *sym, int nargs)
{
    LangSym *set[MAX_SET];
    int n = set_of(p, sym->name, sym->len, set);
    for (int i = 0; i < n; i++) {
        int min = 0, max = 0;
        if (set[i]->func) {
            for (const LangVar *v = set[i]->func->params; v; v = v->next) {
                max++;
                min += !v->default_arg;
            }
        } else if (set[i]->tmpl && set[i]->tmpl->open) {
            token_params(set[i]->tmpl->open, &min, &max);
        } else {
            return true; /* a form not counted here: let the call decide */
        }
        if (nargs >= min && nargs <= max)
            return true;
    }
    return false;
}

/* "name(float, device const half*)" */
static const char *signature(LangParser *p, const LangFunction *f, const char *name)
{
    char *s = lang_format(p->ctx, "%s(", name);
    int i = 0;
    for (const LangVar *v = f->params; v; v = v->next)
        s = lang_format(p->ctx, "%s%s%s", s, i++ ? ", " : "", lang_type_name(p->ctx, v->type));
    return lang_format(p->ctx, "%s)", s);
}

/* Parameter types as C++ tells overloads apart: a by-value parameter's own const does not
 * count; the const of what a pointer or reference designates does. */
static bool same_param_type(const LangType *a, const LangType *b)
{
    if (!lang_same_type(a, b))
        return false;
    for (; a->kind == LTY_POINTER && b->kind == LTY_POINTER; a = a->base, b = b->base)
        if (a->base->is_const != b->base->is_const)
            return false;
    return true;
}

static bool same_params(const LangFunction *a, const LangFunction *b)
{
    const LangVar *x = a->params, *y = b->params;
    for (; x && y; x = x->next, y = y->next)
        if (!same_param_type(x->type, y->type))
            return false;
    return !x && !y;
}

static bool is_operator(const char *name)
{
    return strncmp(name, "operator", 8) == 0 && name[8] && name[8] != '_' &&
           !(name[8] >= 'a' && name[8] <= 'z') && !(name[8] >= 'A' && name[8] <= 'Z') &&
           !(name[8] >= '0' && name[8] <= '9');
}

/* An operator function's own rules (C++ [over.oper]): its arity, and a struct among its
 * parameters, so that no operator on built-in types is ever replaced. */
static void check_operator(LangParser *p, const LangFunction *f)
{
    const char *op = f->name + 8;
    bool incdec = strcmp(op, "++") == 0 || strcmp(op, "--") == 0;
    bool unary_ok = strcmp(op, "-") == 0 || strcmp(op, "~") == 0 || strcmp(op, "+") == 0 ||
                    strcmp(op, "!") == 0 || incdec;
    bool binary_ok = strcmp(op, "~") != 0 && strcmp(op, "!") != 0;
    if (incdec && f->num_params == 2 && f->params->next->type->kind != LTY_INT)
        lang_error_soft(p->ctx, f->tok, "the second parameter of a postfix '%s' must be "
                        "'int'", f->name);
    if (!((unary_ok && f->num_params == 1) || (binary_ok && f->num_params == 2)))
        lang_error_soft(p->ctx, f->tok, "overloaded '%s' must be a %s operator (it has %d "
                        "parameter%s)", f->name,
                        unary_ok && binary_ok ? "unary or binary" : unary_ok ? "unary"
                                                                              : "binary",
                        f->num_params, f->num_params == 1 ? "" : "s");
    for (const LangVar *v = f->params; v; v = v->next)
        if (v->default_arg)
            lang_error_soft(p->ctx, v->default_arg, "an operator function cannot have default "
                            "arguments");
    for (const LangVar *v = f->params; v; v = v->next) {
        const LangType *t = v->type;
        if (t->kind == LTY_POINTER && t->is_reference)
            t = t->base;
        if (t->kind == LTY_STRUCT)
            return;
    }
    lang_error_soft(p->ctx, f->tok, "overloaded '%s' must have a parameter of struct type "
                    "(operators on built-in types cannot be redefined)", f->name);
}

LangFunction *lang_p_overload_declare(LangParser *p, LangFunction *f, bool defining)
{
    LangSym *set[MAX_SET];
    int n = set_of(p, f->name, (int)strlen(f->name), set);
    if (is_operator(f->name))
        check_operator(p, f);
    for (int i = 0; i < n; i++) {
        LangFunction *g = set[i]->func;
        if (!g || !same_params(g, f))
            continue;
        if (!lang_same_type(g->ret, f->ret))
            lang_error_at(p->ctx, f->tok, "functions that differ only in their return type "
                          "cannot be overloaded: '%s' returns '%s' at line %d, '%s' here",
                          signature(p, g, g->name), lang_type_name(p->ctx, g->ret),
                          g->tok->line, lang_type_name(p->ctx, f->ret));
        if (g->is_kernel != f->is_kernel)
            lang_error_at(p->ctx, f->tok, "'%s' is declared at line %d as %s",
                          f->name, g->tok->line, g->is_kernel ? "a kernel" : "a helper function");
        if (g->is_defined && defining)
            lang_error_at(p->ctx, f->tok, "redefinition of '%s' (first defined at line %d)",
                          n > 1 ? signature(p, f, f->name) : f->name, g->tok->line);
        return g;
    }
    for (int i = 0; i < n; i++) {
        bool kernel = set[i]->func ? set[i]->func->is_kernel : set[i]->tmpl->is_kernel;
        LangToken *at = set[i]->func ? set[i]->func->tok : set[i]->tmpl->name_tok;
        if (kernel || f->is_kernel)
            lang_error_at(p->ctx, f->tok, "kernel functions cannot be overloaded (MSL 1.4.1): "
                          "'%s' is also declared at line %d", f->name, at->line);
    }
    return NULL;
}

/* ---- templates ------------------------------------------------------------------------------ */

static bool same_spelling(const LangToken *a, const LangToken *b)
{
    return a->len == b->len && memcmp(a->loc, b->loc, (size_t)a->len) == 0;
}

/* A parameter's name: an identifier that ends a parameter (before "," ")" "[" or a
 * default's "=") and is no template parameter. Names do not tell templates apart; the
 * tokens of the types do. */
static bool is_param_name(const LangTemplate *t, const LangToken *tok)
{
    const LangToken *n = tok->next;
    return tok->kind == LTK_IDENT && lang_p_template_param(t, tok) < 0 &&
           (lang_p_is(n, ",") || lang_p_is(n, ")") || lang_p_is(n, "[") || lang_p_is(n, "[[") ||
            lang_p_is(n, "="));
}

/* From the "=" of a default argument (tok) to the "," or ")" after it: defaults do not
 * tell declarations apart. */
static const LangToken *skip_default(const LangToken *tok)
{
    if (!lang_p_is(tok, "="))
        return tok;
    for (int depth = 0; tok->kind != LTK_EOF; tok = tok->next) {
        if (depth == 0 && (lang_p_is(tok, ",") || lang_p_is(tok, ")")))
            break;
        depth += lang_p_is(tok, "(") || lang_p_is(tok, "[") || lang_p_is(tok, "{");
        depth -= lang_p_is(tok, ")") || lang_p_is(tok, "]") || lang_p_is(tok, "}");
    }
    return tok;
}

static bool names_enable_if(const LangTemplate *t)
{
    for (const LangToken *x = t->start; x->kind != LTK_EOF && x != t->name_tok; x = x->next)
        if (lang_p_is(x, "enable_if") || lang_p_is(x, "enable_if_t"))
            return true;
    return false;
}

/* Return types that differ make two templates (`enable_if_t<is_integral_v<T>, T> f(T)`
 * beside `enable_if_t<!is_integral_v<T>, T> f(T)`, as MLX overloads them); compared only
 * where one names enable_if, since a declaration and its definition may differ in
 * specifiers (inline, attributes). */
static bool same_return(const LangTemplate *a, const LangTemplate *b)
{
    if (!names_enable_if(a) && !names_enable_if(b))
        return true;
    const LangToken *x = a->start, *y = b->start;
    for (; x != a->name_tok && y != b->name_tok; x = x->next, y = y->next) {
        if (x->kind == LTK_EOF || y->kind == LTK_EOF)
            return false;
        int kx = lang_p_template_param(a, x), ky = lang_p_template_param(b, y);
        if (kx != ky || (kx < 0 && !same_spelling(x, y)))
            return false;
    }
    return x == a->name_tok && y == b->name_tok;
}

/* Whether two templates of one name declare the same function: the same kinds of template
 * parameters, the same return type (same_return) and the same parameter list, template
 * parameters compared by position. */
static bool same_template(const LangTemplate *a, const LangTemplate *b)
{
    if (a->num_params != b->num_params || !same_return(a, b))
        return false;
    for (int k = 0; k < a->num_params; k++)
        if (!a->param_types[k] != !b->param_types[k] ||
            (a->param_types[k] && !lang_same_type(a->param_types[k], b->param_types[k])))
            return false;
    const LangToken *x = a->open->next, *y = b->open->next;
    for (int depth = 0;;) {
        while (is_param_name(a, x))
            x = x->next;
        while (is_param_name(b, y))
            y = y->next;
        if (depth == 0) {
            x = skip_default(x);
            y = skip_default(y);
        }
        if (x->kind == LTK_EOF || y->kind == LTK_EOF)
            return false;
        int kx = lang_p_template_param(a, x), ky = lang_p_template_param(b, y);
        if (kx != ky || (kx < 0 && !same_spelling(x, y)))
            return false;
        depth += lang_p_is(x, "(") - lang_p_is(x, ")");
        if (depth < 0)
            return true;
        x = x->next;
        y = y->next;
    }
}

LangTemplate *lang_p_template_prior(LangParser *p, const LangTemplate *t)
{
    LangSym *set[MAX_SET];
    int n = t->op ? set_of(p, t->op, (int)strlen(t->op), set)
                  : set_of(p, t->name_tok->loc, t->name_tok->len, set);
    for (int i = 0; i < n; i++)
        if (set[i]->tmpl && same_template(set[i]->tmpl, t))
            return set[i]->tmpl;
    for (int i = 0; i < n; i++) {
        bool kernel = set[i]->func ? set[i]->func->is_kernel : set[i]->tmpl->is_kernel;
        LangToken *at = set[i]->func ? set[i]->func->tok : set[i]->tmpl->name_tok;
        if (kernel || t->is_kernel)
            lang_error_at(p->ctx, t->name_tok, "kernel functions cannot be overloaded (MSL "
                          "1.4.1): '%.*s' is also declared at line %d", t->name_tok->len,
                          t->name_tok->loc, at->line);
    }
    return NULL;
}

LangTemplate *lang_p_find_template(LangParser *p, LangToken *name)
{
    LangSym *set[MAX_SET];
    int n = set_of(p, name->loc, name->len, set);
    LangTemplate *found = NULL;
    for (int i = 0; i < n; i++) {
        if (!set[i]->tmpl)
            continue;
        if (found)
            lang_error_at(p->ctx, name, "'%.*s' names several templates (lines %d and %d): "
                          "explicit instantiation of an overloaded template is not supported",
                          name->len, name->loc, found->name_tok->line,
                          set[i]->tmpl->name_tok->line);
        found = set[i]->tmpl;
    }
    return found;
}

/* ---- resolution ---------------------------------------------------------------------------- */

enum { RANK_EXACT, RANK_PROMOTION, RANK_CONVERSION, RANK_NONE };

/* An argument's implicit conversion to a parameter's type, as far as ranking needs it. */
typedef struct Ics {
    unsigned char rank;
    bool adds_const;      /* a pointee or referee gains const (the less qualified one wins) */
    bool binds_ref;
} Ics;

typedef struct Cand {
    LangSym *sym;
    LangFunction *fn;     /* the function, or the template instance's declaration */
    LangTemplate *tmpl;   /* a template candidate */
    LangTemplateArgs targs;
    const char *why;      /* not viable: why */
    Ics ics[MAX_ARGS];
} Cand;

static bool is_promotion(const LangType *from, const LangType *to)
{
    return to->kind == LTY_INT && (from->kind == LTY_BOOL || from->kind == LTY_CHAR ||
                                   from->kind == LTY_UCHAR || from->kind == LTY_SHORT ||
                                   from->kind == LTY_USHORT);
}

static const char *space_word(LangAddrSpace s)
{
    return s == LAS_DEVICE ? "device" : s == LAS_CONSTANT ? "constant"
           : s == LAS_THREADGROUP ? "threadgroup" : "thread";
}

static Ics ics_of(LangParser *p, const LangNode *a, const LangType *pt, const char **why)
{
    Ics r = {RANK_NONE, false, false};
    LangType *at = a->type;
    const char *from = lang_type_name(p->ctx, at), *to = lang_type_name(p->ctx, pt);
    if (pt->kind == LTY_POINTER && pt->is_reference && pt->base->is_const &&
        pt->space == LAS_THREAD && !lang_p_is_lvalue(a)) { /* a temporary: as by value */
        r = ics_of(p, a, lang_qualified(p->ctx, pt->base, false), why);
        r.binds_ref = true;
        r.adds_const = !a->type->is_const; /* beside a member's object (rank_params) */
        return r;
    }
    if (pt->kind == LTY_POINTER && pt->is_reference) {
        r.binds_ref = true;
        if (!lang_p_is_lvalue(a))
            *why = lang_format(p->ctx, "a '%s' value that is no variable or element cannot "
                               "bind to '%s' (a value binds to a 'thread const' reference "
                               "only)", from, to);
        else if (!lang_same_type(at, pt->base))
            *why = lang_format(p->ctx, "cannot bind '%s' to '%s'", from, to);
        else if (lang_p_lvalue_space(a) != pt->space)
            *why = lang_format(p->ctx, "the argument is in %s memory, '%s' refers to %s memory",
                               space_word(lang_p_lvalue_space(a)), to, space_word(pt->space));
        else if (at->is_const && !pt->base->is_const)
            *why = lang_format(p->ctx, "binding const '%s' to '%s' would discard const", from,
                               to);
        else
            r = (Ics){RANK_EXACT, pt->base->is_const && !at->is_const, true};
        return r;
    }
    if (pt->kind == LTY_POINTER) {
        const LangType *pointee = NULL;
        LangAddrSpace space = LAS_THREAD;
        if (at->kind == LTY_POINTER)
            pointee = at->base, space = at->space;
        else if (at->kind == LTY_ARRAY && lang_p_is_lvalue(a))
            pointee = at->base, space = lang_p_lvalue_space(a);
        if (!pointee || !lang_same_type(pointee, pt->base))
            *why = lang_format(p->ctx, "no known conversion from '%s' to '%s'", from, to);
        else if (space != pt->space)
            *why = lang_format(p->ctx, "'%s' points to %s memory, '%s' to %s memory", from,
                               space_word(space), to, space_word(pt->space));
        else if (pointee->is_const && !pt->base->is_const)
            *why = lang_format(p->ctx, "'%s' to '%s' would discard const", from, to);
        else
            r = (Ics){RANK_EXACT, pt->base->is_const && !pointee->is_const, false};
        return r;
    }
    if (lang_is_scalar(at) && lang_is_scalar(pt))
        r.rank = at->kind == pt->kind ? RANK_EXACT
                 : is_promotion(at, pt) ? RANK_PROMOTION : RANK_CONVERSION;
    else if (lang_is_scalar(at) && pt->kind == LTY_VECTOR)
        r.rank = RANK_CONVERSION;
    else if (at->kind == LTY_VECTOR && pt->kind == LTY_VECTOR && at->len == pt->len &&
             lang_same_type(at->base, pt->base))
        r.rank = at->packed == pt->packed ? RANK_EXACT : RANK_CONVERSION;
    else if (lang_same_type(at, pt) && at->kind != LTY_ARRAY && at->kind != LTY_VOID)
        r.rank = RANK_EXACT;
    else
        *why = lang_format(p->ctx, "no known conversion from '%s' to '%s'", from, to);
    return r;
}

/* <0: a is the better conversion; >0: b is; 0: neither */
static int compare_ics(Ics a, Ics b)
{
    if (a.rank != b.rank)
        return a.rank < b.rank ? -1 : 1;
    if (a.binds_ref == b.binds_ref && a.adds_const != b.adds_const)
        return a.adds_const ? 1 : -1;
    return 0;
}

static bool better(LangParser *p, const Cand *a, const Cand *b, int n)
{
    bool some = false;
    for (int i = 0; i < n; i++) {
        int c = compare_ics(a->ics[i], b->ics[i]);
        if (c > 0)
            return false;
        some |= c < 0;
    }
    if (some || (!a->tmpl && b->tmpl))
        return true;
    return a->tmpl && b->tmpl && /* the more specialized template (parse_order.c) */
           lang_p_more_specialized(p, a->tmpl, a->fn, b->tmpl, b->fn, n);
}

/* "'act(float)' (line 3)", "'act<half>(half)' (template, line 7)" */
static const char *describe(LangParser *p, const Cand *c, const char *name)
{
    if (!c->tmpl)
        return lang_format(p->ctx, "'%s' (line %d)", signature(p, c->fn, name),
                           c->fn->tok->line);
    int line = c->tmpl->name_tok->line;
    if (!c->fn)
        return lang_format(p->ctx, "template '%s' (line %d)", name, line);
    char *targs = "";
    for (int k = 0; k < c->tmpl->num_params; k++)
        targs = c->tmpl->param_types[k]
                    ? lang_format(p->ctx, "%s%s%lld", targs, k ? ", " : "",
                                  (long long)c->targs.values[k])
                    : lang_format(p->ctx, "%s%s%s", targs, k ? ", " : "",
                                  lang_type_name(p->ctx, c->targs.types[k]));
    return lang_format(p->ctx, "'%s' (template, line %d)",
                       signature(p, c->fn, lang_format(p->ctx, "%s<%s>", name, targs)), line);
}

static const char *arg_list(LangParser *p, LangNode **args, int n)
{
    char *s = "";
    for (int i = 0; i < n; i++)
        s = lang_format(p->ctx, "%s%s%s", s, i ? ", " : "", lang_type_name(p->ctx, args[i]->type));
    return s;
}

/* The function a call of the set with these arguments calls (a template's instance made);
 * an error when none can be called, a soft one (and the first of the best) when several
 * are equally good. */
static LangFunction *resolve(LangParser *p, LangSym **set, int nset, const char *name,
                             LangToken *tok, LangNode **args, int n, LangTemplateArgs **given)
{
    Cand *cands = lang_alloc(p->ctx, (size_t)nset * sizeof *cands);
    LangType *types[MAX_ARGS];
    for (int i = 0; i < n; i++)
        types[i] = args[i]->type;
    int viable = 0;
    for (int k = 0; k < nset; k++) {
        Cand *c = &cands[k];
        c->sym = set[k];
        c->fn = set[k]->func;
        c->tmpl = set[k]->tmpl;
        if (c->tmpl) {
            if (given)
                c->targs = *given[k];
            else if (!lang_p_deduce_args(p, c->tmpl, types, n, &c->targs, &c->why))
                continue;
            if (lang_p_instance_disabled(p, c->tmpl, &c->targs)) { /* SFINAE */
                c->why = "its enable_if is false for these arguments";
                continue;
            }
            c->fn = lang_p_instance_decl(p, c->tmpl, &c->targs, tok);
        }
        int required = lang_p_required_params(c->fn->params); /* the rest have defaults */
        if (n > c->fn->num_params || n < required) {
            c->why = required == c->fn->num_params
                         ? lang_format(p->ctx, "it takes %d argument%s, not %d", required,
                                       required == 1 ? "" : "s", n)
                         : lang_format(p->ctx, "it takes %d to %d arguments, not %d", required,
                                       c->fn->num_params, n);
            continue;
        }
        int i = 0;
        for (const LangVar *v = c->fn->params; v && i < n && !c->why; v = v->next, i++) {
            const char *why = NULL;
            c->ics[i] = ics_of(p, args[i], v->type, &why);
            if (why)
                c->why = n > 1 ? lang_format(p->ctx, "argument %d: %s", i + 1, why) : why;
        }
        viable += !c->why;
    }
    const char *call = lang_format(p->ctx, "'%s' with argument%s (%s)", name, n == 1 ? "" : "s",
                                   arg_list(p, args, n));
    if (!viable) { /* an error that stops: the call's type is unknown */
        char *list = "";
        for (int k = 0; k < nset && k < MAX_LISTED; k++)
            list = lang_format(p->ctx, "%s%s%s: %s", list, k ? "; " : "",
                               describe(p, &cands[k], name), cands[k].why);
        lang_error_at(p->ctx, tok, "no matching function for call to %s: %s%s", call, list,
                      nset > MAX_LISTED ? "; ..." : "");
    }
    Cand *best = NULL;
    for (int k = 0; k < nset; k++)
        if (!cands[k].why && (!best || better(p, &cands[k], best, n)))
            best = &cands[k];
    bool unique = true;
    for (int k = 0; k < nset; k++)
        if (!cands[k].why && &cands[k] != best && !better(p, best, &cands[k], n))
            unique = false;
    if (!unique) { /* the candidates no other one beats */
        char *list = "";
        int listed = 0;
        for (int k = 0; k < nset; k++) {
            bool beaten = cands[k].why != NULL;
            for (int j = 0; j < nset && !beaten; j++)
                beaten = j != k && !cands[j].why && better(p, &cands[j], &cands[k], n);
            if (!beaten && listed++ < MAX_LISTED)
                list = lang_format(p->ctx, "%s%s%s", list, listed > 1 ? ", " : "",
                                   describe(p, &cands[k], name));
        }
        lang_error_soft(p->ctx, tok, "call to %s is ambiguous: %s%s match equally well", call,
                        list, listed > MAX_LISTED ? ", ..." : "");
    }
    return best->tmpl ? lang_p_instantiate(p, best->tmpl, &best->targs, tok) : best->fn;
}

LangType *lang_p_const_ref(LangParser *p, const LangType *ref)
{
    LangType *t = lang_pointer_to(p->ctx, lang_qualified(p->ctx, ref->base, true), LAS_THREAD);
    t->is_reference = true;
    return t;
}

int lang_p_rank_params(LangParser *p, LangVar *const *params, LangTemplate *const *tmpls,
                       int ncand, LangNode **args, int n)
{
    if (n > MAX_ARGS)
        return -1;
    Cand *cands = lang_alloc(p->ctx, (size_t)ncand * sizeof *cands);
    int viable = 0;
    for (int k = 0; k < ncand; k++) {
        cands[k].tmpl = tmpls ? tmpls[k] : NULL;
        int i = 0;
        for (const LangVar *v = params[k]; v && i < n && !cands[k].why; v = v->next, i++) {
            const LangType *pt = v->type;
            bool object = i == 0 && v->name && strcmp(v->name, "this") == 0 &&
                          pt->kind == LTY_POINTER && pt->is_reference &&
                          !lang_p_is_lvalue(args[0]);
            if (object) /* C++ binds a temporary object to a member's even when not const */
                pt = lang_p_const_ref(p, pt);
            cands[k].ics[i] = ics_of(p, args[i], pt, &cands[k].why);
            if (object)
                cands[k].ics[i].adds_const = v->type->base->is_const;
        }
        viable += !cands[k].why;
    }
    if (!viable)
        return -1;
    int best = -1;
    for (int k = 0; k < ncand; k++)
        if (!cands[k].why && (best < 0 || better(p, &cands[k], &cands[best], n)))
            best = k;
    for (int k = 0; k < ncand; k++)
        if (!cands[k].why && k != best && !better(p, &cands[best], &cands[k], n))
            return -2;
    return best;
}

/* Whether the template arguments at open ("<") suit t: a type for each type parameter, a
 * value for each value parameter, and a default for every parameter after them. */
static bool template_args_suit(LangParser *p, const LangTemplate *t, LangToken *open)
{
    int k = 0, depth = 0;
    LangToken *tok = open->next;
    if (lang_p_is(tok, ">"))
        return !t->num_params || t->defaults[0];
    for (bool start = true; tok->kind != LTK_EOF; tok = tok->next) {
        if (start) {
            bool is_type = lang_p_is_typename(p, tok) && !lang_p_is(tok->next, "(");
            if (k >= t->num_params || is_type != !t->param_types[k])
                return false;
            k++;
            start = false;
        }
        if (lang_p_is(tok, "<") || lang_p_is(tok, "("))
            depth++;
        else if ((lang_p_is(tok, ">") || lang_p_is(tok, ")")) && depth-- == 0)
            break;
        else if (depth == 0 && lang_p_is(tok, ","))
            start = true;
    }
    return k == t->num_params || t->defaults[k];
}

/* At the "<" of f<...>(...): the templates of the set those template arguments suit, moved
 * to the front of set, with the arguments each takes in given[]; the "<...>" is consumed.
 * Functions are no candidates then (C++ [temp.arg.explicit]). */
static int explicit_candidates(LangParser *p, LangSym **set, int nset, LangTemplateArgs **given)
{
    LangToken *open = p->tok, *end = open;
    int n = 0;
    for (int k = 0; k < nset; k++) {
        LangTemplate *t = set[k]->tmpl;
        if (!t || !template_args_suit(p, t, open))
            continue;
        p->tok = open;
        given[n] = lang_p_template_args(p, t);
        end = p->tok;
        set[n++] = set[k];
    }
    p->tok = end;
    return n;
}

LangNode *lang_p_overload_call(LangParser *p, LangSym *sym, LangToken *name)
{
    LangSym *set[MAX_SET];
    int nset = set_of(p, sym->name, sym->len, set);
    const char *fname = lang_strndup(p->ctx, sym->name, (size_t)sym->len);
    LangTemplateArgs *given[MAX_SET];
    bool explicit_args = lang_p_is(p->tok, "<");
    if (explicit_args) {
        nset = explicit_candidates(p, set, nset, given);
        if (!nset)
            lang_error_at(p->ctx, p->tok, "no template '%s' takes these template arguments",
                          fname);
    }
    if (!lang_p_is(p->tok, "("))
        lang_error_at(p->ctx, p->tok, "overloaded function '%s' must be called", fname);
    lang_p_next(p);
    LangNode *args[MAX_ARGS];
    LangToken *starts[MAX_ARGS];
    int n = 0;
    while (!lang_p_consume(p, ")")) {
        if (n && !lang_p_consume(p, ","))
            lang_error_at(p->ctx, p->tok, "expected ',' or ')'");
        if (n == MAX_ARGS)
            lang_error_at(p->ctx, p->tok, "more than %d arguments", MAX_ARGS);
        starts[n] = p->tok;
        args[n++] = lang_p_assign(p);
    }
    return lang_p_call(p, resolve(p, set, nset, fname, name, args, n,
                                  explicit_args ? given : NULL), name, args, starts, n);
}

/* ---- operators ----------------------------------------------------------------------------- */

const char *lang_p_operator_name(LangParser *p)
{
    static const char *const ops[] = {
        "+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "==", "!=", "<", "<=", ">", ">=",
        "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "~", "!", "++", "--",
    };
    LangToken *op = p->tok;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (lang_p_is(op, ops[i])) {
            lang_p_next(p);
            return lang_format(p->ctx, "operator%s", ops[i]);
        }
    if (lang_p_is(op, "(") && lang_p_is(op->next, ")"))
        lang_error_at(p->ctx, op, "overloading 'operator()' is not supported as a free "
                      "function (C++ makes it a member: declare it in the struct)");
    if (lang_p_is(op, "[") || lang_p_is(op, "[["))
        lang_error_at(p->ctx, op, "overloading 'operator[]' is not supported as a free "
                      "function (C++ makes it a member: declare it in the struct)");
    if (op->kind == LTK_PUNCT || lang_p_is_name(op))
        lang_error_at(p->ctx, op, "overloading 'operator%.*s' is not supported (binary "
                      "arithmetic, bitwise, shift and comparison operators, compound "
                      "assignments, unary '-', '+', '!' and '~', '++' and '--' are)", op->len,
                      op->loc);
    lang_error_at(p->ctx, op, "expected an operator after 'operator'");
}

LangNode *lang_p_operator_call(LangParser *p, LangToken *tok, LangNode *lhs, LangNode *rhs)
{
    if (lhs->type->kind != LTY_STRUCT && (!rhs || rhs->type->kind != LTY_STRUCT))
        return NULL;
    const char *name = lang_format(p->ctx, "operator%.*s", tok->len, tok->loc);
    LangSym *set[MAX_SET];
    int nset = set_of(p, name, (int)strlen(name), set);
    if (lhs->type->kind == LTY_STRUCT) { /* its member operators, with these beside them */
        LangNode *member = lang_p_member_operator_call(p, tok, name, lhs, rhs, set, nset);
        if (member)
            return member;
    }
    if (!nset)
        return NULL;
    LangNode *args[2] = {lhs, rhs};
    LangToken *starts[2] = {lhs->tok, rhs ? rhs->tok : NULL};
    int n = rhs ? 2 : 1;
    return lang_p_call(p, resolve(p, set, nset, name, tok, args, n, NULL), tok, args, starts,
                       n);
}

/* ---- names --------------------------------------------------------------------------------- */

void lang_p_name_overloads(LangParser *p)
{
    LangScope *saved = p->scope;
    p->scope = p->global;
    for (LangSym *sym = p->global->syms; sym; sym = sym->next) {
        LangSym *set[MAX_SET];
        if ((!sym->func && !sym->tmpl) || set_of(p, sym->name, sym->len, set) < 2)
            continue;
        if (sym->func && !sym->func->is_kernel)
            sym->func->name = (char *)signature(p, sym->func, sym->func->name);
        for (LangInstance *i = sym->tmpl ? sym->tmpl->instances : NULL; i; i = i->next)
            if (!i->func->is_kernel)
                i->func->name = (char *)signature(p, i->func, i->func->name);
    }
    p->scope = saved;
}
