/*
 * parse_order.c — partial ordering of function templates (C++14 [temp.func.order]): when
 * two template candidates match a call equally well, the more specialized one is chosen
 * (`template <typename T> T f(T)` loses to `template <typename T> T f(device T*)` for a
 * pointer; `g(T, T)` beats `g(T, U)` when both arguments have one type). overload.c asks
 * here only after comparing the arguments' conversions left a tie.
 *
 * A template is at least as specialized as another when the other's parameters can be
 * deduced from its parameter types, its own template parameters standing for unique types
 * of their own (atoms); it is more specialized when that does not hold the other way. Only
 * the parameters the call gives arguments for take part. Each parameter is read from its
 * tokens as deduction reads it (parse_template.c): `T x`, `const T x`, `thread const T &r`
 * (references and top-level const removed, as C++ does before ordering), `device T *p` and
 * `device const T *p`, or a type without template parameters (whose type the candidate's
 * declaration has). A template with a parameter of any other form (`Vec<T, N>`, `T a[N]`)
 * is ordered with nothing, so such calls stay ambiguous, as lockstep reported them before.
 */
#include <string.h>

#include "parse.h"

enum { MAX_ORDERED = 16 };

/* A type in the ordering: an atom (a template parameter of the other template) or a type,
 * with its const; `pointer`: a pointer to that, in `space`. */
typedef struct Term {
    bool pointer;
    LangAddrSpace space;
    int atom;              /* >= 0: the template parameter; -1: `type` */
    LangType *type;        /* without const */
    bool is_const;         /* of the pointee (a pointer) or 0 (a value: top-level const goes) */
} Term;

/* One function parameter's form: plain `T` (a type parameter), a pointer to one, or a type
 * with no template parameter in it. */
typedef struct Shape {
    int k;                 /* the type parameter, or -1: `fixed` */
    bool pointer;
    bool pointee_const;
    LangAddrSpace space;
    LangType *fixed;
} Shape;

static bool qualifier(const LangToken *tok, bool *is_const)
{
    static const char *const words[] = {"volatile", "device", "constant", "threadgroup",
                                        "thread", "restrict", "__restrict"};
    if (lang_p_is(tok, "const"))
        return *is_const = true;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (lang_p_is(tok, words[i]))
            return true;
    return false;
}

/* The form of the parameter whose tokens are [from, to) and whose type in the candidate's
 * declaration is ty; false for a form that is not ordered. */
static bool shape_of(const LangTemplate *t, const LangToken *from, const LangToken *to,
                     LangType *ty, Shape *s)
{
    const LangToken *end = from;
    for (const LangToken *q = from; q != to; q = q->next) { /* up to a default or attribute */
        if (lang_p_is(q, "=") || lang_p_is(q, "[["))
            break;
        if (lang_p_is(q, "["))
            return false; /* an array parameter */
        end = q->next;
    }
    bool named = false; /* the last token before `end` is the parameter's name */
    for (const LangToken *q = from; q != end; q = q->next)
        if (q->next == end && q->kind == LTK_IDENT && lang_p_template_param(t, q) < 0 && q != from)
            named = true;
    bool uses = false;
    for (const LangToken *q = from; q != to; q = q->next)
        uses |= lang_p_template_param(t, q) >= 0;
    *s = (Shape){.k = -1};
    if (!uses) {
        s->fixed = ty;
        return true;
    }
    bool is_const = false;
    const LangToken *q = from;
    while (q != end && qualifier(q, &is_const))
        q = q->next;
    int k = q != end ? lang_p_template_param(t, q) : -1;
    if (k < 0 || t->param_types[k])
        return false;
    for (q = q->next; q != end && qualifier(q, &is_const);)
        q = q->next;
    s->k = k;
    if (q != end && lang_p_is(q, "*") && ty->kind == LTY_POINTER && !ty->is_reference) {
        s->pointer = true;
        s->pointee_const = is_const;
        s->space = ty->space;
        q = q->next;
        bool top = false;
        while (q != end && qualifier(q, &top))
            q = q->next;
    } else if (q != end && lang_p_is(q, "&")) {
        q = q->next;
    }
    return q == end || (named && q->next == end);
}

/* The forms of t's first n parameters (fn: a candidate's declaration of it). */
static bool shapes(const LangTemplate *t, const LangFunction *fn, int n, Shape *out)
{
    const LangToken *from = t->open->next;
    const LangVar *v = fn->params;
    int i = 0, depth = 0;
    for (const LangToken *tok = from; i < n && tok->kind != LTK_EOF; tok = tok->next) {
        bool end = depth == 0 && lang_p_is(tok, ")");
        if (!end && !(depth == 0 && lang_p_is(tok, ","))) {
            depth += lang_p_is(tok, "(") || lang_p_is(tok, "<") || lang_p_is(tok, "[");
            depth -= lang_p_is(tok, ")") || lang_p_is(tok, ">") || lang_p_is(tok, "]");
            continue;
        }
        if (!v || !shape_of(t, from, tok, v->type, &out[i]))
            return false;
        i++;
        v = v->next;
        from = tok->next;
        if (end)
            break;
    }
    return i == n;
}

static Term term_of_type(LangParser *p, LangType *ty)
{
    if (ty->kind == LTY_POINTER && ty->is_reference)
        ty = ty->base;
    if (ty->kind == LTY_POINTER)
        return (Term){true, ty->space, -1, lang_qualified(p->ctx, ty->base, false),
                      ty->base->is_const};
    return (Term){false, LAS_THREAD, -1, lang_qualified(p->ctx, ty, false), false};
}

static Term term_of_shape(LangParser *p, const Shape *s)
{
    if (s->k < 0)
        return term_of_type(p, s->fixed);
    return (Term){s->pointer, s->space, s->k, NULL, s->pointer && s->pointee_const};
}

static bool same_term(const Term *a, const Term *b)
{
    if (a->pointer != b->pointer || (a->pointer && a->space != b->space) ||
        a->is_const != b->is_const || a->atom != b->atom)
        return false;
    return a->atom >= 0 || lang_same_type(a->type, b->type);
}

/* Whether the parameters in `pattern` deduce from the types in `from` (see the file
 * comment), each template parameter taking one value throughout. */
static bool deduces(LangParser *p, const Shape *pattern, const Shape *from, int n)
{
    Term bound[8];
    bool has[8] = {false};
    for (int i = 0; i < n; i++) {
        Term a = term_of_shape(p, &from[i]);
        const Shape *s = &pattern[i];
        if (s->k < 0) {
            Term want = term_of_type(p, s->fixed);
            if (!same_term(&want, &a))
                return false;
            continue;
        }
        Term value = a;
        if (s->pointer) { /* `device T*` takes what a pointer of that space points to */
            if (!a.pointer || a.space != s->space || (s->pointee_const && !a.is_const))
                return false;
            value = (Term){false, LAS_THREAD, a.atom, a.type,
                           a.is_const && !s->pointee_const};
        }
        if (has[s->k] && !same_term(&bound[s->k], &value))
            return false;
        bound[s->k] = value;
        has[s->k] = true;
    }
    return true;
}

bool lang_p_more_specialized(LangParser *p, const LangTemplate *a, const LangFunction *afn,
                             const LangTemplate *b, const LangFunction *bfn, int n)
{
    Shape sa[MAX_ORDERED], sb[MAX_ORDERED];
    if (n > MAX_ORDERED || a->num_params > 8 || b->num_params > 8 ||
        !shapes(a, afn, n, sa) || !shapes(b, bfn, n, sb))
        return false;
    return deduces(p, sb, sa, n) && !deduces(p, sa, sb, n);
}
