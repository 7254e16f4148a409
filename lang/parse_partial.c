/*
 * parse_partial.c — partial specializations of struct templates (`template <typename T>
 * struct Limits<device T*> { ... };`, `template <int N> struct Vec<float, N> { ... };`,
 * `template <typename T> struct Pair<T, T> { ... };`): their argument patterns, which
 * partial specialization an instance is made from, and C++'s choice of the more
 * specialized one when several match.
 *
 * A pattern is read once, where the partial specialization is declared, into a small tree:
 * one of its template parameters, a type or constant without them (parsed as any type or
 * constant is), a pointer (`T*`, `device const T*`), a vector (`vec<T, N>`) or an instance
 * of a struct template (`Vec<T, 4>`). An instance's arguments, turned into the same trees,
 * are matched against each pattern; the parameters take what they stand for, each one
 * value throughout (`Pair<T, T>` needs two equal types). Among the partial specializations
 * that match, the one more specialized than every other is chosen: A is at least as
 * specialized as B when B's pattern matches A's, A's parameters standing for themselves
 * (C++14 [temp.class.order]); when none is, the instance is ambiguous, an error naming
 * them. An explicit specialization (`template <> struct Limits<float>`) is an instance
 * already, so it wins before any partial one is tried (parse_template.c). A pointer
 * pattern without an address space (`T*`) matches pointers into any, T taking the pointee
 * type without it.
 */
#include <string.h>

#include "parse.h"

enum { MAX_PARTIALS = 16 };

typedef enum PatKind { PAT_PARAM, PAT_TYPE, PAT_VALUE, PAT_POINTER, PAT_VECTOR,
                       PAT_INSTANCE } PatKind;

typedef struct Pat {
    PatKind kind;
    int k;                 /* PAT_PARAM: the partial specialization's parameter */
    LangType *type;        /* PAT_TYPE: without const; src: as written or given */
    LangType *src;
    int64_t value;         /* PAT_VALUE */
    bool is_const;         /* a type's const (PARAM, TYPE; a pointer's pointee is its sub) */
    bool any_space;        /* PAT_POINTER written without an address space */
    LangAddrSpace space;
    struct Pat *sub;       /* POINTER: the pointee; VECTOR: the element */
    struct Pat *len;       /* VECTOR: the length */
    LangTemplate *tmpl;    /* PAT_INSTANCE: the struct template and its arguments */
    struct Pat *args[8];
} Pat;

struct LangPartial {
    LangPartial *next;
    LangTemplate *spec;    /* its parameters; start: the "{" of its body */
    Pat *args[8];          /* a pattern per parameter of the primary template */
    const char *text;      /* "Pair<T, T>", for messages */
};

/* The line a partial specialization is written on: where the macro that made it was used,
 * if one did. */
static int line_of(const LangPartial *ps)
{
    const LangToken *tok = ps->spec->name_tok;
    while (tok->origin)
        tok = tok->origin;
    return tok->line;
}

static Pat *new_pat(LangParser *p, PatKind kind)
{
    Pat *pat = lang_alloc(p->ctx, sizeof *pat);
    pat->kind = kind;
    return pat;
}

/* Whether the template argument starting at tok names one of spec's parameters. */
static bool arg_uses(const LangTemplate *spec, const LangToken *tok)
{
    for (int depth = 0; tok->kind != LTK_EOF; tok = tok->next) {
        if (depth == 0 && (lang_p_is(tok, ",") || lang_p_is(tok, ">")))
            return false;
        if (lang_p_template_param(spec, tok) >= 0)
            return true;
        depth += lang_p_is(tok, "<") || lang_p_is(tok, "(") || lang_p_is(tok, "[");
        depth -= lang_p_is(tok, ">") || lang_p_is(tok, ")") || lang_p_is(tok, "]");
    }
    return false;
}

/* A type (of an instance's arguments, or a pattern's part without parameters) as a tree. */
static Pat *pat_of_type(LangParser *p, LangType *ty)
{
    Pat *pat = new_pat(p, PAT_TYPE);
    pat->src = ty;
    pat->type = lang_qualified(p->ctx, ty, false);
    pat->is_const = ty->is_const;
    if (ty->kind == LTY_POINTER && !ty->is_reference) {
        pat->kind = PAT_POINTER;
        pat->space = ty->space;
        pat->sub = pat_of_type(p, ty->base);
    } else if (ty->kind == LTY_VECTOR && !ty->packed) {
        pat->kind = PAT_VECTOR;
        pat->sub = pat_of_type(p, ty->base);
        pat->len = new_pat(p, PAT_VALUE);
        pat->len->value = ty->len;
    } else if (ty->kind == LTY_STRUCT && ty->cls && ty->cls->tmpl) {
        LangTemplate *t = ty->cls->tmpl;
        for (LangInstance *i = t->instances; i; i = i->next) {
            if (!i->type || !lang_same_type(i->type, ty))
                continue;
            pat->kind = PAT_INSTANCE;
            pat->tmpl = t;
            for (int j = 0; j < t->num_params; j++) {
                if (t->param_types[j]) {
                    pat->args[j] = new_pat(p, PAT_VALUE);
                    pat->args[j]->value = i->args.values[j];
                } else {
                    pat->args[j] = pat_of_type(p, i->args.types[j]);
                }
            }
            break;
        }
    }
    return pat;
}

static Pat *pat_type(LangParser *p, LangTemplate *spec);

/* A value argument of a pattern: a parameter's name alone, or a constant. */
static Pat *pat_value(LangParser *p, LangTemplate *spec)
{
    LangToken *at = p->tok;
    int k = lang_p_template_param(spec, at);
    if (k >= 0 && (lang_p_is(at->next, ",") || lang_p_is(at->next, ">"))) {
        if (!spec->param_types[k])
            lang_error_at(p->ctx, at, "'%.*s' is a type, but this template argument is a "
                          "value", at->len, at->loc);
        lang_p_next(p);
        Pat *pat = new_pat(p, PAT_PARAM);
        pat->k = k;
        return pat;
    }
    if (arg_uses(spec, at))
        lang_error_at(p->ctx, at, "this argument of a partial specialization cannot be "
                      "deduced: write a template parameter's name alone, or a constant");
    LangNode *e = lang_p_additive(p);
    Pat *pat = new_pat(p, PAT_VALUE);
    if (!lang_is_integer(e->type) || !lang_p_eval(p, e, &pat->value))
        lang_error_at(p->ctx, at, "expected an integer constant as template argument");
    return pat;
}

/* The arguments of a struct template's instance in a pattern (`Vec<T, 4>`), at the "<". */
static Pat *pat_instance(LangParser *p, LangTemplate *spec, LangTemplate *t, LangToken *at)
{
    Pat *pat = new_pat(p, PAT_INSTANCE);
    pat->tmpl = t;
    lang_p_skip(p, "<");
    int n = 0;
    do {
        if (n == t->num_params)
            lang_error_at(p->ctx, p->tok, "too many template arguments: '%.*s' takes %d",
                          t->name_tok->len, t->name_tok->loc, t->num_params);
        pat->args[n] = t->param_types[n] ? pat_value(p, spec) : pat_type(p, spec);
        n++;
    } while (lang_p_consume(p, ","));
    lang_p_skip(p, ">");
    if (n < t->num_params)
        lang_error_at(p->ctx, at, "give all %d template arguments of '%.*s' in a partial "
                      "specialization's argument", t->num_params, t->name_tok->len,
                      t->name_tok->loc);
    return pat;
}

// pat-type = qualifier* (param | "vec" "<" pat-type "," pat-value ">" | template "<" ... ">")
//            "const"? ("*" "const"?)*         (or a type without parameters)
static Pat *pat_type(LangParser *p, LangTemplate *spec)
{
    LangToken *at = p->tok;
    if (!arg_uses(spec, at)) {
        if (!lang_p_is_typename(p, at))
            lang_error_at(p->ctx, at, "expected a type as template argument");
        return pat_of_type(p, lang_p_typename(p));
    }
    bool is_const = false, has_space = false;
    LangAddrSpace space = LAS_THREAD;
    for (;; lang_p_next(p)) {
        LangToken *q = p->tok;
        if (lang_p_is(q, "const"))
            is_const = true;
        else if (lang_p_is(q, "device") || lang_p_is(q, "constant") ||
                 lang_p_is(q, "threadgroup") || lang_p_is(q, "thread"))
            has_space = true, space = lang_p_is(q, "device") ? LAS_DEVICE
                                      : lang_p_is(q, "constant") ? LAS_CONSTANT
                                      : lang_p_is(q, "threadgroup") ? LAS_THREADGROUP
                                                                    : LAS_THREAD;
        else if (!lang_p_is(q, "volatile"))
            break;
    }
    LangToken *base = p->tok;
    int k = lang_p_template_param(spec, base);
    LangSym *sym = k < 0 && base->kind == LTK_IDENT ? lang_p_lookup(p, base) : NULL;
    Pat *pat;
    if (k >= 0) {
        if (spec->param_types[k])
            lang_error_at(p->ctx, base, "'%.*s' is a value, but this template argument is a "
                          "type", base->len, base->loc);
        lang_p_next(p);
        pat = new_pat(p, PAT_PARAM);
        pat->k = k;
    } else if (lang_p_is(base, "vec") && lang_p_is(base->next, "<")) {
        lang_p_next(p);
        lang_p_next(p);
        pat = new_pat(p, PAT_VECTOR);
        pat->sub = pat_type(p, spec);
        lang_p_skip(p, ",");
        pat->len = pat_value(p, spec);
        lang_p_skip(p, ">");
    } else if (sym && sym->tmpl && sym->tmpl->is_struct && lang_p_is(base->next, "<")) {
        lang_p_next(p);
        pat = pat_instance(p, spec, sym->tmpl, base);
    } else {
        lang_error_at(p->ctx, base, "this form of partial specialization argument is not "
                      "supported (a template parameter, a pointer to one, `vec<T, N>`, or "
                      "a struct template's instance are)");
    }
    while (lang_p_consume(p, "const"))
        is_const = true;
    pat->is_const = is_const;
    for (bool first = true; lang_p_consume(p, "*"); first = false) {
        Pat *ptr = new_pat(p, PAT_POINTER);
        ptr->sub = pat;
        ptr->any_space = !(first && has_space);
        ptr->space = space;
        pat = ptr;
        while (lang_p_consume(p, "const") || lang_p_consume(p, "volatile"))
            ; /* the pointer's own const */
    }
    if (pat->kind != PAT_POINTER && has_space)
        lang_error_at(p->ctx, at, "an address space in a template argument goes with a "
                      "pointer (`device T*`)");
    if (lang_p_is(p->tok, "&") || lang_p_is(p->tok, "["))
        lang_error_at(p->ctx, p->tok, "references and arrays are not supported in a partial "
                      "specialization's arguments");
    return pat;
}

static bool same_pat(const Pat *a, const Pat *b);
static bool match(LangParser *p, const Pat *pattern, Pat *a, Pat **bound);
static Pat *pat_of_args(LangParser *p, const LangTemplate *t, const LangTemplateArgs *args,
                        int j);

/* What C++ makes ill-formed about a new partial specialization beside what t has: the same
 * one twice, and one declared after an instance it matches was made from the template. */
static void check_new_partial(LangParser *p, LangTemplate *t, const LangPartial *ps)
{
    for (const LangPartial *o = t->partials; o; o = o->next) {
        bool same = o->spec->num_params == ps->spec->num_params;
        for (int k = 0; same && k < ps->spec->num_params; k++)
            same = !o->spec->param_types[k] == !ps->spec->param_types[k];
        for (int j = 0; same && j < t->num_params; j++)
            same = same_pat(o->args[j], ps->args[j]);
        if (same)
            lang_error_at(p->ctx, ps->spec->name_tok, "redefinition of the partial "
                          "specialization '%s' (line %d)", ps->text, line_of(o));
    }
    for (const LangInstance *i = t->instances; i; i = i->next) {
        Pat *bound[8] = {0};
        bool matches = !i->is_explicit;
        for (int j = 0; j < t->num_params && matches; j++)
            matches = match(p, ps->args[j], pat_of_args(p, t, &i->args, j), bound);
        if (matches)
            lang_error_at(p->ctx, ps->spec->name_tok, "'%s' was made from the template before "
                          "this partial specialization, which matches it (declare it before "
                          "the first use)", i->type->name);
    }
}

static bool uses_param(const Pat *pat, int k)
{
    if (!pat)
        return false;
    if (pat->kind == PAT_PARAM)
        return pat->k == k;
    bool used = uses_param(pat->sub, k) || uses_param(pat->len, k);
    for (int j = 0; pat->kind == PAT_INSTANCE && j < pat->tmpl->num_params; j++)
        used |= uses_param(pat->args[j], k);
    return used;
}

void lang_p_partial_spec(LangParser *p, LangTemplate *spec, LangToken *tmpl_tok)
{
    LangToken *name = spec->name_tok;
    LangSym *sym = lang_p_lookup(p, name);
    if (!sym || !sym->tmpl || !sym->tmpl->is_struct)
        lang_error_at(p->ctx, name, "'%.*s' is not a struct template declared before (a "
                      "partial specialization follows its primary template)", name->len,
                      name->loc);
    LangTemplate *t = sym->tmpl;
    for (int k = 0; k < spec->num_params; k++)
        if (spec->defaults[k])
            lang_error_at(p->ctx, spec->defaults[k], "a partial specialization's template "
                          "parameter cannot have a default");
    LangPartial *ps = lang_alloc(p->ctx, sizeof *ps);
    ps->spec = spec;
    LangToken *open = p->tok;
    lang_p_skip(p, "<");
    int n = 0;
    do {
        if (n == t->num_params)
            lang_error_at(p->ctx, p->tok, "too many template arguments: '%.*s' takes %d",
                          name->len, name->loc, t->num_params);
        ps->args[n] = t->param_types[n] ? pat_value(p, spec) : pat_type(p, spec);
        n++;
    } while (lang_p_consume(p, ","));
    LangToken *close = p->tok;
    lang_p_skip(p, ">");
    char *text = lang_format(p->ctx, "%.*s<", name->len, name->loc);
    for (LangToken *q = open->next; q != close; q = q->next) /* its tokens, as spelled */
        text = lang_format(p->ctx, "%s%s%.*s", text, q != open->next && q->has_space ? " " : "",
                           q->len, q->loc);
    ps->text = lang_format(p->ctx, "%s>", text);
    if (n < t->num_params)
        lang_error_at(p->ctx, open, "a partial specialization of '%.*s' gives all %d of its "
                      "template arguments (defaults are not taken here)", name->len, name->loc,
                      t->num_params);
    bool primary = spec->num_params == t->num_params;
    for (int k = 0; k < spec->num_params; k++) {
        bool used = false;
        for (int j = 0; j < n; j++)
            used |= uses_param(ps->args[j], k);
        if (!used)
            lang_error_at(p->ctx, spec->params[k], "template parameter '%.*s' is not used in "
                          "the arguments of the partial specialization '%s', so it cannot be "
                          "deduced", spec->params[k]->len, spec->params[k]->loc, ps->text);
    }
    for (int j = 0; j < n && primary; j++)
        primary = ps->args[j]->kind == PAT_PARAM && ps->args[j]->k == j &&
                  !ps->args[j]->is_const;
    if (primary)
        lang_error_at(p->ctx, open, "the partial specialization '%s' specializes none of the "
                      "template's arguments", ps->text);
    if (!lang_p_is(p->tok, "{"))
        lang_error_at(p->ctx, p->tok, "expected '{' after the partial specialization's "
                      "arguments");
    spec->start = p->tok;
    for (int depth = 0;;) { /* the body is parsed for each instance */
        LangToken *tok = p->tok;
        if (tok->kind == LTK_EOF)
            lang_error_at(p->ctx, tmpl_tok, "unterminated struct template");
        lang_p_next(p);
        depth += lang_p_is(tok, "{") - lang_p_is(tok, "}");
        if (depth == 0)
            break;
    }
    lang_p_expect_semi(p);
    check_new_partial(p, t, ps);
    LangPartial **tail = &t->partials;
    while (*tail)
        tail = &(*tail)->next;
    *tail = ps;
}

/* ---- matching and ordering ------------------------------------------------------------------ */

static bool same_pat(const Pat *a, const Pat *b)
{
    if (a->kind != b->kind || a->is_const != b->is_const)
        return false;
    switch (a->kind) {
    case PAT_PARAM:
        return a->k == b->k;
    case PAT_TYPE:
        return lang_same_type(a->type, b->type);
    case PAT_VALUE:
        return a->value == b->value;
    case PAT_POINTER:
        return a->any_space == b->any_space && (a->any_space || a->space == b->space) &&
               same_pat(a->sub, b->sub);
    case PAT_VECTOR:
        return same_pat(a->sub, b->sub) && same_pat(a->len, b->len);
    case PAT_INSTANCE:
        if (a->tmpl != b->tmpl)
            return false;
        for (int j = 0; j < a->tmpl->num_params; j++)
            if (!same_pat(a->args[j], b->args[j]))
                return false;
        return true;
    }
    return false;
}

/* Whether pattern matches a (an argument's tree, or another pattern whose parameters stand
 * for themselves), binding pattern's parameters in bound[]. */
static bool match(LangParser *p, const Pat *pattern, Pat *a, Pat **bound)
{
    switch (pattern->kind) {
    case PAT_PARAM: {
        Pat *v = a;
        if (pattern->is_const) { /* `const T` takes a const type, T without the const */
            if (!a->is_const)
                return false;
            v = new_pat(p, a->kind);
            *v = *a;
            v->is_const = false;
            v->src = a->src ? lang_qualified(p->ctx, a->src, false) : NULL;
        }
        if (bound[pattern->k])
            return same_pat(bound[pattern->k], v);
        bound[pattern->k] = v;
        return true;
    }
    case PAT_TYPE:
    case PAT_VALUE:
        return same_pat(pattern, a);
    case PAT_POINTER:
        return a->kind == PAT_POINTER &&
               (pattern->any_space || (!a->any_space && a->space == pattern->space)) &&
               match(p, pattern->sub, a->sub, bound);
    case PAT_VECTOR:
        return a->kind == PAT_VECTOR && match(p, pattern->sub, a->sub, bound) &&
               match(p, pattern->len, a->len, bound);
    case PAT_INSTANCE:
        if (a->kind != PAT_INSTANCE || a->tmpl != pattern->tmpl)
            return false;
        for (int j = 0; j < a->tmpl->num_params; j++)
            if (!match(p, pattern->args[j], a->args[j], bound))
                return false;
        return true;
    }
    return false;
}

/* Whether a is at least as specialized as b (of one primary template t). */
static bool at_least(LangParser *p, const LangTemplate *t, const LangPartial *a,
                     const LangPartial *b)
{
    Pat *bound[8] = {0};
    for (int j = 0; j < t->num_params; j++)
        if (!match(p, b->args[j], a->args[j], bound))
            return false;
    return true;
}

/* Argument j of an instance of t, as a tree. */
static Pat *pat_of_args(LangParser *p, const LangTemplate *t, const LangTemplateArgs *args,
                        int j)
{
    if (!t->param_types[j])
        return pat_of_type(p, args->types[j]);
    Pat *v = new_pat(p, PAT_VALUE);
    v->value = args->values[j];
    return v;
}

LangTemplate *lang_p_find_partial(LangParser *p, LangTemplate *t, const LangTemplateArgs *args,
                                  LangToken *at, LangTemplateArgs *out)
{
    Pat *given[8];
    for (int j = 0; j < t->num_params; j++)
        given[j] = pat_of_args(p, t, args, j);
    const LangPartial *found[MAX_PARTIALS];
    LangTemplateArgs values[MAX_PARTIALS];
    int n = 0;
    for (const LangPartial *ps = t->partials; ps && n < MAX_PARTIALS; ps = ps->next) {
        Pat *bound[8] = {0};
        bool ok = true;
        for (int j = 0; j < t->num_params && ok; j++)
            ok = match(p, ps->args[j], given[j], bound);
        if (!ok)
            continue;
        LangTemplateArgs *v = &values[n];
        *v = (LangTemplateArgs){{0}};
        for (int k = 0; k < ps->spec->num_params; k++) {
            v->types[k] = ps->spec->param_types[k] ? ps->spec->param_types[k] : bound[k]->src;
            v->values[k] = bound[k]->value;
        }
        found[n++] = ps;
    }
    for (int c = 0; c < n; c++) {
        bool best = true;
        for (int o = 0; o < n && best; o++)
            best = o == c || (at_least(p, t, found[c], found[o]) &&
                              !at_least(p, t, found[o], found[c]));
        if (best) {
            *out = values[c];
            return found[c]->spec;
        }
    }
    if (n == 0)
        return NULL;
    char *list = "";
    for (int c = 0; c < n; c++)
        list = lang_format(p->ctx, "%s%s'%s' (line %d)", list, c ? ", " : "", found[c]->text,
                           line_of(found[c]));
    lang_error_at(p->ctx, at, "the partial specializations %s all match these template "
                  "arguments of '%.*s' and none is more specialized than the others", list,
                  t->name_tok->len, t->name_tok->loc);
}
