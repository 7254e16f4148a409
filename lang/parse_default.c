/*
 * parse_default.c — default arguments of functions, member functions, constructors and
 * function templates (`float scale(float x, float s = 2.0f)`, `Acc(float s = 0.0f)`,
 * `T clampv(T x, T lo = T(0), T hi = T(1))`): where they are declared, what a later
 * declaration of the same function may add to them, and the argument a call that leaves
 * one out gets.
 *
 * A default is kept as its tokens and parsed again at each call that needs it, in the scope
 * outside its function's parameters (the program scope, the struct's, or a template
 * instance's with T bound), as C++ evaluates a default at each call with the names of its
 * declaration: so `T(0)` means the instance's T, and each call gets nodes of its own. A
 * default that names a parameter of its function (or `this`) is ill-formed C++ and refused
 * where it is written. Overload resolution (overload.c, parse_method.c) counts a function
 * viable for any number of arguments from its required ones to all of them.
 */
#include <string.h>

#include "parse.h"

static bool names_var(const LangToken *tok, const LangVar *v)
{
    return v->name && (int)strlen(v->name) == tok->len &&
           memcmp(v->name, tok->loc, (size_t)tok->len) == 0;
}

void lang_p_param_default(LangParser *p, LangVar *v, const LangVar *earlier)
{
    lang_p_skip(p, "=");
    LangToken *start = p->tok;
    if (lang_p_is(start, ",") || lang_p_is(start, ")"))
        lang_error_at(p->ctx, start, "expected the default argument's value after '='");
    v->default_arg = start;
    v->default_scope = p->scope->up; /* outside the parameters (file comment) */
    int angle = 0; /* template arguments open (`vec<float, 2>(1, 2)`): their commas */
    for (int depth = 0; p->tok->kind != LTK_EOF; lang_p_next(p)) {
        LangToken *tok = p->tok;
        if (depth == 0 && !angle && (lang_p_is(tok, ",") || lang_p_is(tok, ")")))
            return;
        depth += lang_p_is(tok, "(") || lang_p_is(tok, "[") || lang_p_is(tok, "{");
        depth -= lang_p_is(tok, ")") || lang_p_is(tok, "]") || lang_p_is(tok, "}");
        if (lang_p_is(tok, "<") && tok != start && lang_p_angle_opens(p, p->prev))
            angle++;
        else if (angle && lang_p_is(tok, ">"))
            angle--;
        else if (angle && lang_p_is(tok, ">>"))
            angle = angle > 1 ? angle - 2 : 0;
        bool qualified = tok != start && (lang_p_is(p->prev, ".") || lang_p_is(p->prev, "->") ||
                                          lang_p_is(p->prev, "::"));
        if (lang_p_is(tok, "this"))
            lang_error_at(p->ctx, tok, "'this' cannot be used in a default argument");
        if (tok->kind != LTK_IDENT || qualified)
            continue;
        if (names_var(tok, v))
            lang_error_at(p->ctx, tok, "the default argument of '%s' uses '%s' itself",
                          v->name, v->name);
        for (const LangVar *e = earlier; e; e = e->next)
            if (names_var(tok, e))
                lang_error_at(p->ctx, tok, "the default argument of '%s' uses parameter "
                              "'%.*s' (a default argument cannot depend on other arguments)",
                              v->name, tok->len, tok->loc);
    }
    lang_error_at(p->ctx, start, "unterminated default argument");
}

void lang_p_merge_defaults(LangParser *p, const LangVar *prior, LangVar *params)
{
    for (LangVar *v = params; v && prior; v = v->next, prior = prior->next) {
        if (!prior->default_arg)
            continue;
        if (v->default_arg)
            lang_error_at(p->ctx, v->default_arg, "redefinition of the default argument of "
                          "'%s' (given at line %d)", v->name, prior->default_arg->line);
        v->default_arg = prior->default_arg; /* a later declaration keeps the earlier ones */
        v->default_scope = prior->default_scope;
    }
    const LangVar *first = NULL;
    for (const LangVar *v = params; v; v = v->next) {
        if (!first && v->default_arg)
            first = v;
        else if (first && !v->default_arg)
            lang_error_at(p->ctx, v->tok, "parameter '%s' follows '%s', which has a default "
                          "argument, so it needs one too", v->name, first->name);
    }
}

int lang_p_required_params(const LangVar *params)
{
    int n = 0;
    for (; params && !params->default_arg; params = params->next)
        n++;
    return n;
}

LangNode *lang_p_default_arg(LangParser *p, LangVar *param)
{
    LangToken *tok = p->tok, *prev = p->prev;
    LangScope *scope = p->scope;
    LangMethod *method = p->method;
    p->tok = param->default_arg;
    p->scope = param->default_scope;
    p->method = NULL; /* the caller's `this` is not the callee's: members need an object */
    LangNode *e = lang_p_assign(p);
    if (!lang_p_is(p->tok, ",") && !lang_p_is(p->tok, ")"))
        lang_error_at(p->ctx, p->tok, "expected ',' or ')' after the default argument of '%s'",
                      param->name);
    p->tok = tok;
    p->prev = prev;
    p->scope = scope;
    p->method = method;
    return e;
}
