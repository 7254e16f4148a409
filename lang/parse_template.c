/*
 * parse_template.c — function and struct templates: definitions (type parameters, integer
 * value parameters, defaults), template argument lists, instances, argument deduction from
 * a call's arguments, and explicit instantiation.
 *
 * A template's tokens are kept and parsed again for each instance with its parameters bound
 * (types as typedefs, values as typed constants); simple and exact for the MLX pattern
 * (explicit instantiation with [[host_name]], f<T, 4>(...) calls, and helper calls whose
 * types are deduced). A struct template's instance is a struct type (parse_struct.c parses
 * it, member functions and all), made the first time its arguments are named, from the
 * template or from its partial specialization for those arguments (parse_partial.c).
 */
#include <string.h>

#include "parse.h"

/* Registers t under its name: a new template (an overload of function templates of that
 * name, overload.c), or the definition of a declared one. */
static void register_template(LangParser *p, LangTemplate *t, LangToken *name, bool defined)
{
    LangSym *sym = t->op ? NULL : lang_p_lookup(p, name);
    LangTemplate *prior = NULL;
    if (sym && sym->tmpl && (sym->tmpl->is_struct || t->is_struct)) {
        if (sym->tmpl->is_struct != t->is_struct)
            lang_error_at(p->ctx, name, "'%.*s' is declared as a %s template before",
                          name->len, name->loc, sym->tmpl->is_struct ? "struct" : "function");
        prior = sym->tmpl;
    } else if (!t->is_struct) {
        prior = lang_p_template_prior(p, t);
    }
    if (prior) {
        if (defined) { /* a definition after a declaration */
            if (!prior->is_struct && !prior->decl_open) { /* the declaration's defaults */
                prior->decl_open = prior->open;
                prior->decl_params = prior->params;
            }
            prior->start = t->start;
            prior->open = t->open;
            prior->params = t->params; /* the names its body uses */
        }
        return;
    }
    LangSym *added = lang_p_push_sym(p, name);
    added->tmpl = t;
    if (t->op) { /* found by its operator ("operator+"), as operator functions are */
        added->name = t->op;
        added->len = (int)strlen(t->op);
    }
    t->next = p->templates;
    p->templates = t;
}

// struct-template = "template" "<" param ("," param)* ">" ("struct" | "class") ident
//                   ("{" ... "}")? ";"
static void struct_template_def(LangParser *p, LangTemplate *t, LangToken *tmpl_tok)
{
    t->is_struct = true;
    lang_p_next(p);
    LangToken *name = p->tok;
    if (name->kind != LTK_IDENT)
        lang_error_at(p->ctx, name, "expected the struct template's name");
    t->name_tok = name;
    lang_p_next(p);
    if (lang_p_is(p->tok, "<")) {
        lang_p_partial_spec(p, t, tmpl_tok); /* parse_partial.c */
        return;
    }
    bool defined = lang_p_is(p->tok, "{");
    if (defined) {
        for (int depth = 0;;) { /* the body is parsed for each instance */
            LangToken *tok = p->tok;
            if (tok->kind == LTK_EOF)
                lang_error_at(p->ctx, tmpl_tok, "unterminated struct template");
            lang_p_next(p);
            depth += lang_p_is(tok, "{") - lang_p_is(tok, "}");
            if (depth == 0)
                break;
        }
    } else if (lang_p_is(p->tok, ":")) {
        lang_error_at(p->ctx, p->tok, "inheritance is not supported yet");
    }
    lang_p_expect_semi(p);
    register_template(p, t, name, defined);
}

/* Type arguments are one when their const is, at each level (`device const float*` and
 * `device float*` make two instances, as in C++), which lang_same_type does not look at. */
static bool same_type_arg(const LangType *a, const LangType *b)
{
    if (!lang_same_type(a, b))
        return false;
    for (; a && b; a = a->base, b = b->base) {
        if (a->is_const != b->is_const)
            return false;
        if (a->kind != LTY_POINTER)
            break;
    }
    return true;
}

static bool same_args(const LangTemplate *t, const LangTemplateArgs *a, const LangTemplateArgs *b)
{
    for (int k = 0; k < t->num_params; k++)
        if (t->param_types[k] ? a->values[k] != b->values[k]
                              : !same_type_arg(a->types[k], b->types[k]))
            return false;
    return true;
}

/* "f<float, 4>": an instance's name in listings and messages */
static char *instance_name(LangParser *p, const LangTemplate *t, const LangTemplateArgs *args)
{
    char *name = t->op && !t->cls ? (char *)t->op : lang_p_name(p, t->name_tok);
    for (int k = 0; k < t->num_params; k++)
        name = t->param_types[k]
                   ? lang_format(p->ctx, "%s%s%lld", name, k ? ", " : "<",
                                 (long long)args->values[k])
                   : lang_format(p->ctx, "%s%s%s", name, k ? ", " : "<",
                                 lang_type_name(p->ctx, args->types[k]));
    return lang_format(p->ctx, "%s>", name);
}

/* Refuses a 33rd instance inside the instances being parsed: each one's body asked for
 * another (R<N> holds R<N + 1>, r<N> calls r<N - 1>), which only recursion does. */
static void check_nesting(LangParser *p, const LangTemplate *t, LangToken *at)
{
    if (p->inst_depth >= 32)
        lang_error_at(p->ctx, at, "template instances nest 32 levels deep at '%.*s': "
                      "recursive templates are not supported", t->name_tok->len,
                      t->name_tok->loc);
}

/* A new instance of t for args, first in t's list (after check_nesting). */
static LangInstance *add_instance(LangParser *p, LangTemplate *t, const LangTemplateArgs *args,
                                  LangToken *at)
{
    check_nesting(p, t, at);
    LangInstance *inst = lang_alloc(p->ctx, sizeof *inst);
    inst->args = *args;
    inst->next = t->instances;
    t->instances = inst;
    return inst;
}

static LangType *new_instance(LangParser *p, LangTemplate *t, const LangTemplateArgs *args,
                              LangToken *at)
{
    for (LangInstance *i = t->instances; i; i = i->next)
        if (same_args(t, &i->args, args))
            lang_error_at(p->ctx, at, "'%s' is specialized after it was used (specialize it "
                          "before its first use)", i->type->name);
    LangInstance *inst = add_instance(p, t, args, at);
    LangType *ty = inst->type = lang_alloc(p->ctx, sizeof *inst->type);
    ty->kind = LTY_STRUCT;
    ty->name = instance_name(p, t, args);
    ty->cls = lang_alloc(p->ctx, sizeof *ty->cls);
    ty->cls->tmpl = t;
    ty->cls->name_tok = t->name_tok;
    return ty;
}

// specialization = "template" "<" ">" ("struct" | "class") ident template-args
//                  "{" member* "}" ";"
// The instance for those arguments is this struct, not one made from the template.
static void specialization(LangParser *p, LangToken *tmpl_tok)
{
    if (!lang_p_consume(p, "struct") && !lang_p_consume(p, "class"))
        lang_error_at(p->ctx, p->tok, "only struct templates can be specialized here "
                      "(`template <> struct Name<float> { ... };`)");
    LangToken *name = p->tok;
    LangSym *sym = lang_p_is_name(name) ? lang_p_lookup(p, name) : NULL;
    if (!sym || !sym->tmpl || !sym->tmpl->is_struct)
        lang_error_at(p->ctx, name, "'%.*s' is not a struct template", name->len, name->loc);
    lang_p_next(p);
    LangTemplateArgs *args = lang_p_template_args(p, sym->tmpl);
    if (!lang_p_is(p->tok, "{"))
        lang_error_at(p->ctx, p->tok, "expected '{' after the specialization's arguments");
    LangType *ty = new_instance(p, sym->tmpl, args, tmpl_tok);
    sym->tmpl->instances->is_explicit = true; /* partial ones do not replace it */
    LangParser saved = *p;
    p->inst_depth++;
    p->scope = p->global;
    lang_p_enter(p); /* the struct's own name, inside it, is this specialization */
    p->fn = NULL;
    p->method = NULL;
    lang_p_struct_decl(p, ty);
    LangToken *tok = p->tok, *prev = p->prev;
    lang_p_restore(p, &saved);
    p->tok = tok;
    p->prev = prev;
    lang_p_expect_semi(p);
}

// template-params = "<" param ("," param)* ">"
// param = ("typename" | "class") ident ("=" default)? | integer-type ident ("=" default)?
LangTemplate *lang_p_template_params(LangParser *p)
{
    LangTemplate *t = lang_alloc(p->ctx, sizeof *t);
    t->params = lang_alloc(p->ctx, 8 * sizeof *t->params);
    t->param_types = lang_alloc(p->ctx, 8 * sizeof *t->param_types);
    t->defaults = lang_alloc(p->ctx, 8 * sizeof *t->defaults);
    lang_p_skip(p, "<");
    if (lang_p_consume(p, ">"))
        return NULL;
    do {
        LangToken *kw = p->tok;
        if (!lang_p_consume(p, "typename") && !lang_p_consume(p, "class")) {
            LangAddrSpace space = LAS_THREAD;
            bool has_space = false;
            LangType *vt = lang_p_is_typename(p, kw) ? lang_p_declspec(p, &space, &has_space)
                                                     : NULL;
            if (!vt || !lang_is_integer(vt))
                lang_error_at(p->ctx, kw, "a template parameter is a type (typename T) or an "
                              "integer value (int N, uint N, bool B)");
            if (t->num_params < 8)
                t->param_types[t->num_params] = lang_qualified(p->ctx, vt, false);
        }
        /* `typename = enable_if_t<...>` and `int = 0` name no parameter: an empty name
         * (at the "=") stands for it, which no token matches and nothing binds */
        const bool unnamed = lang_p_is(p->tok, "=");
        if (p->tok->kind != LTK_IDENT && !unnamed)
            lang_error_at(p->ctx, p->tok, "expected a template parameter name");
        if (t->num_params == 8)
            lang_error_at(p->ctx, p->tok, "too many template parameters");
        LangToken *name = p->tok;
        if (unnamed) {
            name = lang_alloc(p->ctx, sizeof *name);
            *name = *p->tok;
            name->kind = LTK_IDENT;
            name->len = 0;
        } else {
            lang_p_next(p);
        }
        t->params[t->num_params++] = name;
        if (lang_p_consume(p, "=")) { /* a default: parsed when an instance needs it */
            t->defaults[t->num_params - 1] = p->tok;
            for (int depth = 0; p->tok->kind != LTK_EOF; lang_p_next(p)) {
                if (depth == 0 && (lang_p_is(p->tok, ",") || lang_p_is(p->tok, ">")))
                    break;
                depth += lang_p_is(p->tok, "<") || lang_p_is(p->tok, "(");
                depth -= lang_p_is(p->tok, ">") || lang_p_is(p->tok, ")");
                depth -= 2 * lang_p_is(p->tok, ">>"); /* enable_if_t<is_integral_v<T>> */
            }
        } else if (t->num_params > 1 && t->defaults[t->num_params - 2]) {
            lang_error_at(p->ctx, t->params[t->num_params - 1], "template parameter '%.*s' "
                          "follows one with a default, so it needs a default too",
                          t->params[t->num_params - 1]->len, t->params[t->num_params - 1]->loc);
        }
    } while (lang_p_consume(p, ","));
    lang_p_skip(p, ">");
    return t;
}

// template-def = template-params (function | struct-template)
void lang_p_template_def(LangParser *p, LangToken *tmpl_tok)
{
    LangTemplate *t = lang_p_template_params(p);
    if (!t) {
        specialization(p, tmpl_tok);
        return;
    }
    t->start = p->tok;
    if (lang_p_is(p->tok, "struct") || lang_p_is(p->tok, "class")) {
        struct_template_def(p, t, tmpl_tok);
        return;
    }
    /* Find the name (the token before the first "(" outside attributes) and skip the body. */
    int brackets = 0;
    LangToken *name = NULL;
    for (LangToken *tok = p->tok; tok->kind != LTK_EOF; tok = tok->next) {
        if (lang_p_is(tok, "[") || lang_p_is(tok, "[["))
            brackets++;
        else if (lang_p_is(tok, "]") || lang_p_is(tok, "]]"))
            brackets--;
        else if (!brackets && (lang_p_is(tok, "struct") || lang_p_is(tok, "class")))
            lang_error_at(p->ctx, tok, "expected a function template, or a struct template "
                          "starting with 'struct' or 'class'");
        else if (lang_p_is(tok, "kernel"))
            t->is_kernel = true;
        else if (!brackets && lang_p_is(tok, "operator")) { /* an operator template */
            p->tok = tok->next;
            t->op = lang_p_operator_name(p);
            if (!lang_p_is(p->tok, "("))
                lang_error_at(p->ctx, p->tok, "expected '(' after '%s'", t->op);
            name = tok;
            t->open = p->tok;
            break;
        } else if (!brackets && (lang_p_is(tok, "{") || lang_p_is(tok, ";"))) {
            break; /* no parameter list before the body */
        } else if (!brackets && lang_p_is(tok, "(") && p->prev->kind != LTK_IDENT &&
                   p->prev != tmpl_tok && !lang_p_is(p->prev, ">")) {
            /* a constant in the return type's template arguments (`enable_if_t<(N < 2),
             * T>`): not the parameters */
            for (int depth = 0; tok->next->kind != LTK_EOF; tok = tok->next) {
                depth += lang_p_is(tok, "(") - lang_p_is(tok, ")");
                if (depth == 0)
                    break;
                p->prev = tok;
            }
        } else if (!brackets && lang_p_is(tok, "(")) {
            name = p->prev;
            t->open = tok;
            break;
        }
        p->prev = tok;
        p->tok = tok->next;
    }
    if (!name || name->kind != LTK_IDENT)
        lang_error_at(p->ctx, tmpl_tok, "expected a function template");
    for (LangToken *q = t->start; q != name; q = q->next)
        if (q->next == name && lang_p_is(q, "::"))
            lang_error_at(p->ctx, name, "a member function of a struct template is defined "
                          "inside the template (definitions outside it are not supported "
                          "yet)");
    t->name_tok = name;
    int depth = 0;
    for (;;) {
        LangToken *tok = p->tok;
        if (tok->kind == LTK_EOF)
            lang_error_at(p->ctx, tmpl_tok, "unterminated template definition");
        lang_p_next(p);
        if (lang_p_is(tok, "{"))
            depth++;
        else if (lang_p_is(tok, "}") && --depth == 0)
            break;
        else if (lang_p_is(tok, ";") && depth == 0)
            break;
    }
    register_template(p, t, name, lang_p_is(p->prev, "}"));
}

/* A value template argument: a constant of the parameter's integer type, in its range. */
static int64_t value_arg(LangParser *p, LangType *ty, LangToken *at)
{
    if (lang_p_is_typename(p, at) && !lang_p_is(p->tok->next, "("))
        lang_error_at(p->ctx, at, "expected an integer constant as template argument (for a "
                      "'%s' parameter), not a type", lang_type_name(p->ctx, ty));
    LangNode *e = lang_p_additive(p);
    int64_t v;
    if (!lang_is_integer(e->type) || !lang_p_eval(p, e, &v))
        lang_error_at(p->ctx, at, "expected an integer constant as template argument (for a "
                      "'%s' parameter)", lang_type_name(p->ctx, ty));
    LangNode *c = lang_p_fold(p, lang_p_convert(p, lang_p_num(p, at, lang_ty_long, (uint64_t)v, 0),
                                                ty, at));
    return c && c->kind == LND_NUM ? (int64_t)c->ival : v;
}

/* Binds t's parameters 0..n-1 to args in a new scope (closed by the caller). */
static void bind_params(LangParser *p, const LangTemplate *t, const LangTemplateArgs *args, int n)
{
    lang_p_enter(p);
    for (int k = 0; k < n; k++) {
        if (t->params[k]->len == 0)
            continue; /* unnamed */
        LangSym *sym = lang_p_push_sym(p, t->params[k]);
        if (t->param_types[k]) { /* a value: a constant of its type, as an enumerator is */
            sym->is_enum_const = true;
            sym->enum_value = args->values[k];
            sym->const_type = t->param_types[k];
        } else {
            sym->type = args->types[k];
        }
    }
}

/* Parameters from `from` on take their defaults, each parsed where the earlier ones are
 * bound (`typename U = T`, `int M = N * 2`). */
static void fill_defaults(LangParser *p, const LangTemplate *t, LangTemplateArgs *args, int from)
{
    for (int k = from; k < t->num_params; k++) {
        if (args->types[k])
            continue; /* deduced */
        LangToken *at = t->defaults[k];
        if (!at)
            lang_error_at(p->ctx, t->params[k], "template parameter '%.*s' has no default to "
                          "take", t->params[k]->len, t->params[k]->loc);
        LangToken *tok = p->tok, *prev = p->prev;
        LangScope *scope = p->scope;
        p->tok = at;
        p->scope = p->global; /* the template's scope, not the caller's */
        bind_params(p, t, args, k);
        if (t->param_types[k]) {
            args->types[k] = t->param_types[k];
            args->values[k] = value_arg(p, t->param_types[k], at);
        } else {
            if (!lang_p_is_typename(p, at))
                lang_error_at(p->ctx, at, "expected a type as the default of '%.*s'",
                              t->params[k]->len, t->params[k]->loc);
            args->types[k] = lang_p_typename(p);
        }
        if (!lang_p_is(p->tok, ",") && !lang_p_is(p->tok, ">"))
            lang_error_at(p->ctx, p->tok, "expected ',' or '>' after the default of '%.*s'",
                          t->params[k]->len, t->params[k]->loc);
        p->scope = scope;
        p->tok = tok;
        p->prev = prev;
    }
}

/* fill_defaults, where a default naming a false enable_if (`typename = enable_if_t<...>`)
 * is no error but the index of its parameter (-1: none), for the caller to take the
 * template out of overload resolution (SFINAE) or report. */
static int fill_defaults_sfinae(LangParser *p, const LangTemplate *t, LangTemplateArgs *args,
                                int from)
{
    const LangErrorMark errors = lang_errors_mark(p->ctx);
    fill_defaults(p, t, args, from);
    for (int k = from; k < t->num_params; k++)
        if (lang_p_is_disabled(args->types[k])) {
            lang_errors_restore(p->ctx, errors);
            return k;
        }
    return -1;
}

// template-args = "<" arg ("," arg)* ">"      arg = typename | additive-expression
LangTemplateArgs *lang_p_template_args(LangParser *p, LangTemplate *t)
{
    LangToken *open = p->tok;
    lang_p_skip(p, "<");
    LangTemplateArgs *args = lang_alloc(p->ctx, sizeof *args);
    int n = 0;
    do {
        LangToken *at = p->tok;
        if (n == 0 && lang_p_is(at, ">"))
            break; /* f<>(...): every argument from its default */
        if (n == 8 || n >= t->num_params)
            lang_error_at(p->ctx, at, "too many template arguments: '%.*s' takes %d",
                          t->name_tok->len, t->name_tok->loc, t->num_params);
        LangType *vt = t->param_types[n];
        if (vt) {
            args->types[n] = vt;
            args->values[n] = value_arg(p, vt, at);
        } else {
            if (!lang_p_is_typename(p, at))
                lang_error_at(p->ctx, at, "expected a type as template argument");
            args->types[n] = lang_p_typename(p);
        }
        n++;
    } while (lang_p_consume(p, ","));
    lang_p_close_angle(p);
    if (n < t->num_params && !t->defaults[n])
        lang_error_at(p->ctx, open, "template '%.*s' takes %d argument%s, not %d",
                      t->name_tok->len, t->name_tok->loc, t->num_params,
                      t->num_params == 1 ? "" : "s", n);
    fill_defaults_sfinae(p, t, args, n); /* a false enable_if: lang_p_instantiate says so */
    return args;
}

/* The default arguments a function template's declaration gave (`template <typename U> U
 * mix(U a, U b = U(1));` before its definition) for f, t's instance for args: the
 * declaration's parameters parsed with its own names of the template parameters bound. */
static void declared_defaults(LangParser *p, LangTemplate *t, const LangTemplateArgs *args,
                              LangFunction *f)
{
    if (!t->decl_open)
        return;
    LangParser saved = *p;
    LangToken **names = t->params;
    t->params = t->decl_params;
    p->scope = p->global;
    bind_params(p, t, args, t->num_params);
    t->params = names;
    lang_p_enter(p);
    p->tok = t->decl_open;
    p->fn = NULL;
    LangFunction decl = {.is_method = true}; /* parameter names may be left out */
    LangVar *params = lang_p_params(p, &decl);
    lang_p_restore(p, &saved);
    lang_p_merge_defaults(p, params, f->params);
}

/* The instance of t for args: found, or made by parsing the template's tokens again in the
 * program scope with its parameters bound as typedefs (the parser's state is saved around
 * it, since calls instantiate in the middle of another function). */
LangFunction *lang_p_instantiate(LangParser *p, LangTemplate *t, const LangTemplateArgs *args,
                                 LangToken *at)
{
    for (LangInstance *i = t->instances; i; i = i->next)
        if (same_args(t, &i->args, args))
            return i->func;
    for (int k = 0; k < t->num_params; k++)
        if (lang_p_is_disabled(args->types[k]))
            lang_error_at(p->ctx, at, "the enable_if in the default of template parameter %d "
                          "of '%.*s' is false for these template arguments", k + 1,
                          t->name_tok->len, t->name_tok->loc);
    LangInstance *inst = add_instance(p, t, args, at);
    LangParser saved = *p;
    p->inst_depth++;
    p->scope = p->global;
    bind_params(p, t, args, t->num_params);
    p->tok = t->start;
    p->fn = NULL;
    p->method = NULL;
    FnAttrs fa = {0};
    lang_p_toplevel(p, &fa, inst);
    if (!inst->func)
        lang_error_at(p->ctx, at, "'%.*s' is not a function template", t->name_tok->len,
                      t->name_tok->loc);
    inst->func->name = instance_name(p, t, args);
    lang_p_restore(p, &saved);
    declared_defaults(p, t, args, inst->func);
    return inst->func;
}

LangMethod *lang_p_member_instantiate(LangParser *p, LangTemplate *t,
                                      const LangTemplateArgs *args, LangToken *at)
{
    for (LangInstance *i = t->instances; i; i = i->next)
        if (same_args(t, &i->args, args))
            return i->method;
    LangInstance *inst = add_instance(p, t, args, at);
    LangParser saved = *p;
    p->inst_depth++;
    p->scope = t->cls->scope; /* the struct's members, then its template's parameters */
    bind_params(p, t, args, t->num_params);
    p->tok = t->start;
    p->fn = NULL;
    p->method = NULL;
    LangMethod *m = inst->method = lang_p_member_instance_decl(p, t->cls);
    m->tmpl = t;
    char *name = instance_name(p, t, args); /* "f<float>": the struct's name goes first */
    m->func->name = lang_format(p->ctx, "%s::%s%s", t->cls->type->name,
                                t->op ? t->op : "", t->op ? name + t->name_tok->len : name);
    lang_p_restore(p, &saved);
    return m;
}

void lang_p_restore(LangParser *p, const LangParser *saved)
{
    LangScope *global = p->global;
    LangTemplate *templates = p->templates;
    struct LangTexHelper *tex_helpers = p->tex_helpers;
    LangCallEdge *calls = p->calls;
    LangFnSize *sizes = p->sizes;
    int next_id = p->next_var_id;
    LangFunction *tail = p->funcs_tail;
    LangVar *gtail = p->globals_tail;
    *p = *saved;
    p->global = global;
    p->templates = templates;
    p->tex_helpers = tex_helpers;
    p->calls = calls;
    p->sizes = sizes;
    p->next_var_id = next_id;
    p->funcs_tail = tail;
    p->globals_tail = gtail;
}

/* The declaration of t's instance for args, for overload resolution: the instance itself
 * when made already, else its return and parameter types parsed without the body (which
 * need not compile for arguments the call does not choose: C++ instantiates only the
 * declaration of a candidate). Nothing of it stays: the parser's state, soft errors
 * included, is as before. */
LangFunction *lang_p_instance_decl(LangParser *p, LangTemplate *t, const LangTemplateArgs *args,
                                   LangToken *at)
{
    for (LangInstance *i = t->instances; i; i = i->next)
        if (same_args(t, &i->args, args))
            return i->func;
    check_nesting(p, t, at);
    LangInstance inst = {.args = *args, .decl_only = true};
    LangParser saved = *p;
    const LangErrorMark errors = lang_errors_mark(p->ctx);
    p->inst_depth++;
    p->scope = p->global;
    bind_params(p, t, args, t->num_params);
    p->tok = t->start;
    p->fn = NULL;
    FnAttrs fa = {0};
    lang_p_toplevel(p, &fa, &inst);
    lang_p_restore(p, &saved);
    if (inst.func)
        declared_defaults(p, t, args, inst.func);
    lang_errors_restore(p->ctx, errors);
    if (!inst.func)
        lang_error_at(p->ctx, at, "'%.*s' is not a function template", t->name_tok->len,
                      t->name_tok->loc);
    return inst.func;
}

bool lang_p_instance_disabled(LangParser *p, LangTemplate *t, const LangTemplateArgs *args)
{
    for (int k = 0; k < t->num_params; k++)
        if (lang_p_is_disabled(args->types[k]))
            return true;
    /* the return type (where MLX puts enable_if_t), parsed with the parameters bound and
     * nothing of it kept */
    LangParser saved = *p;
    const LangErrorMark errors = lang_errors_mark(p->ctx);
    p->inst_depth++;
    p->scope = t->cls ? t->cls->scope : p->global;
    bind_params(p, t, args, t->num_params);
    p->tok = t->start;
    while (lang_p_is(p->tok, "[") && lang_p_is(p->tok->next, "["))
        lang_p_attributes(p, NULL, NULL);
    bool disabled = false;
    if (lang_p_is_typename(p, p->tok)) {
        LangAddrSpace space = LAS_THREAD;
        bool has_space = false;
        disabled = lang_p_is_disabled(lang_p_declspec(p, &space, &has_space));
    }
    lang_p_restore(p, &saved);
    lang_errors_restore(p->ctx, errors);
    return disabled;
}

/* Template argument deduction, for the parameter forms helper templates use: a parameter
 * declared `T name`, `const T name`, `ADDRESS-SPACE T *name` or `ADDRESS-SPACE T &name`
 * (T a type parameter) takes T from its argument's type (the pointee for `*`). */
static bool is_qualifier(const LangToken *t)
{
    static const char *const words[] = {"const", "volatile", "device", "constant",
                                        "threadgroup", "thread", "restrict", "__restrict"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (lang_p_is(t, words[i]))
            return true;
    return false;
}

bool lang_p_angle_opens(LangParser *p, LangToken *name)
{
    if (!name || name->kind != LTK_IDENT)
        return false;
    if (lang_p_is_typename(p, name))
        return true;
    LangSym *sym = lang_p_lookup(p, name);
    return sym && sym->tmpl;
}

int lang_p_template_param(const LangTemplate *t, const LangToken *tok)
{
    for (int k = 0; k < t->num_params; k++)
        if (tok->len == t->params[k]->len && memcmp(tok->loc, t->params[k]->loc,
                                                   (size_t)tok->len) == 0)
            return k;
    return -1;
}

/* The type parameter one function parameter's tokens [from, to) name, whether through `*`,
 * and whether const is written with it; -1 when the parameter is no such form. */
static int deducible(const LangTemplate *t, LangToken *from, LangToken *to, bool *pointer,
                     bool *has_const)
{
    *has_const = false;
    for (; from != to && is_qualifier(from); from = from->next)
        *has_const |= lang_p_is(from, "const");
    if (from == to)
        return -1;
    int k = lang_p_template_param(t, from);
    if (k < 0 || t->param_types[k])
        return -1;
    LangToken *q = from->next;
    for (; q != to && is_qualifier(q); q = q->next)
        *has_const |= lang_p_is(q, "const");
    *pointer = q != to && lang_p_is(q, "*");
    if (q != to && (lang_p_is(q, "*") || lang_p_is(q, "&")))
        q = q->next;
    /* then only the name, and a default argument's "=" ... (parse_default.c) */
    return q != to && q->kind == LTK_IDENT && (q->next == to || lang_p_is(q->next, "=")) ? k
                                                                                      : -1;
}

/* A parameter declared with a struct template's instance (`thread const Vec<T, N> &v`,
 * `Vec<T, 4> v`, `device Vec<T, N> *p`): each of its template arguments written as one of
 * t's parameters takes the value the argument's instance has there. False with *why when
 * two values conflict. */
static bool deduce_from_instance(LangParser *p, const LangTemplate *t, LangToken *from,
                                 LangToken *to, LangType *arg, LangTemplateArgs *args,
                                 const char **why)
{
    while (from != to && is_qualifier(from))
        from = from->next;
    LangSym *sym = from != to && from->kind == LTK_IDENT ? lang_p_lookup(p, from) : NULL;
    if (!sym || !sym->tmpl || !sym->tmpl->is_struct || !lang_p_is(from->next, "<"))
        return true;
    LangTemplate *st = sym->tmpl;
    LangType *ty = arg->kind == LTY_POINTER ? arg->base : arg;
    const LangInstance *inst = st->instances;
    while (inst && !(ty->kind == LTY_STRUCT && lang_same_type(inst->type, ty)))
        inst = inst->next;
    if (!inst)
        return true; /* not an instance of it: the call's conversion reports that */
    /* the arguments in `<...>`, each a run of tokens at depth 0 */
    LangToken *start = from->next->next;
    int j = 0, len = 0, depth = 0;
    for (LangToken *q = start; q != to && q->kind != LTK_EOF && j < st->num_params;
         q = q->next) {
        bool ends = depth == 0 && (lang_p_is(q, ",") || lang_p_is(q, ">"));
        if (!ends) {
            depth += lang_p_is(q, "<") || lang_p_is(q, "(");
            depth -= lang_p_is(q, ">") || lang_p_is(q, ")");
            len++;
            continue;
        }
        int k = len == 1 ? lang_p_template_param(t, start) : -1; /* the argument is one of t's names */
        if (k >= 0 && !t->param_types[k] == !st->param_types[j]) {
            bool given = args->types[k] != NULL;
            bool same = t->param_types[k] ? args->values[k] == inst->args.values[j]
                                          : lang_same_type(args->types[k], inst->args.types[j]);
            if (given && !same) {
                *why = lang_format(p->ctx, "conflicting values for template parameter '%.*s' "
                                   "of '%.*s'; give the template arguments (%.*s<...>(...))",
                                   t->params[k]->len, t->params[k]->loc, t->name_tok->len,
                                   t->name_tok->loc, t->name_tok->len, t->name_tok->loc);
                return false;
            }
            args->types[k] = t->param_types[k] ? t->param_types[k] : inst->args.types[j];
            args->values[k] = inst->args.values[j];
        }
        j++;
        len = 0;
        start = q->next;
        if (lang_p_is(q, ">"))
            break;
    }
    return true;
}

LangFunction *lang_p_deduce(LangParser *p, LangTemplate *t, LangToken *at)
{
    /* the arguments' types: parsed once here and again by the call (soft errors of this
     * first pass are taken back, the second reports them) */
    LangToken *open = p->tok;
    const LangErrorMark errors = lang_errors_mark(p->ctx);
    LangType *arg_types[16];
    int n = 0;
    lang_p_skip(p, "(");
    while (!lang_p_consume(p, ")")) {
        if (n && !lang_p_consume(p, ","))
            lang_error_at(p->ctx, p->tok, "expected ',' or ')'");
        LangNode *a = lang_p_assign(p);
        if (n < 16)
            arg_types[n] = a->type;
        n++;
    }
    lang_errors_restore(p->ctx, errors);
    p->tok = open;
    LangTemplateArgs args;
    const char *why = NULL;
    if (!lang_p_deduce_args(p, t, arg_types, n, &args, &why))
        lang_error_at(p->ctx, at, "%s", why);
    return lang_p_instantiate(p, t, &args, at);
}

bool lang_p_deduce_args(LangParser *p, LangTemplate *t, LangType *const *arg_types, int n,
                        LangTemplateArgs *out, const char **why)
{
    /* the function's parameter list, to the matching ")" */
    LangToken *tok = t->open;
    LangTemplateArgs args = {{0}};
    LangToken *from = tok->next;
    for (int i = 0, depth = 0; tok->kind != LTK_EOF && from; tok = tok->next) {
        if (lang_p_is(tok, "(") || lang_p_is(tok, "<") || lang_p_is(tok, "["))
            depth++;
        else if (lang_p_is(tok, ")") || lang_p_is(tok, ">") || lang_p_is(tok, "]"))
            depth--;
        bool end = depth == 0 && lang_p_is(tok, ")");
        if (!(depth == 1 && lang_p_is(tok, ",")) && !end)
            continue;
        bool pointer = false, has_const = false;
        if (i < n && i < 16 && !deduce_from_instance(p, t, from, tok, arg_types[i], &args, why))
            return false;
        if (i < n && i < 16 && !lang_p_texhelp_deduce(p, t, from, tok, arg_types[i], &args, why))
            return false; /* texture2d<T, ...> (parse_texhelp.c) */
        int k = i < n && i < 16 ? deducible(t, from, tok, &pointer, &has_const) : -1;
        if (k >= 0) {
            LangType *ty = arg_types[i];
            if (pointer && ty->kind != LTY_POINTER) {
                *why = lang_format(p->ctx, "argument %d of '%.*s' is not a pointer, as the "
                                   "template's parameter is", i + 1, t->name_tok->len,
                                   t->name_tok->loc);
                return false;
            }
            ty = pointer ? ty->base : ty;
            /* `device T *p` given a `device const float*` has T `const float`, as in C++
             * (`device const T *p` has T `float`); a value's own const goes */
            bool keep_const = pointer && ty->is_const && !has_const;
            ty = ty->kind == LTY_ARRAY && !ty->matrix ? NULL
                                                      : lang_qualified(p->ctx, ty, keep_const);
            if (ty && args.types[k] && !lang_same_type(args.types[k], ty)) {
                *why = lang_format(p->ctx, "conflicting types for template parameter '%.*s' of "
                                   "'%.*s': '%s' and '%s'; give it explicitly (%.*s<%s>(...))",
                                   t->params[k]->len, t->params[k]->loc, t->name_tok->len,
                                   t->name_tok->loc, lang_type_name(p->ctx, args.types[k]),
                                   lang_type_name(p->ctx, ty), t->name_tok->len,
                                   t->name_tok->loc, lang_type_name(p->ctx, args.types[k]));
                return false;
            }
            if (ty)
                args.types[k] = ty;
        }
        i++;
        from = tok->next;
        if (end)
            break;
    }
    int deduced = 0; /* the leading parameters deduced; the rest may take defaults */
    while (deduced < t->num_params && args.types[deduced])
        deduced++;
    if (deduced < t->num_params && t->defaults[deduced]) {
        int k = fill_defaults_sfinae(p, t, &args, deduced);
        if (k >= 0) { /* SFINAE: no candidate, no error */
            *why = lang_format(p->ctx, "the enable_if in the default of its template "
                               "parameter %d is false for these arguments", k + 1);
            return false;
        }
    }
    for (int k = 0; k < t->num_params; k++)
        if (!args.types[k]) {
            *why = lang_format(p->ctx, "cannot deduce template parameter '%.*s' of '%.*s' from "
                               "this call; give the template arguments (%.*s<...>(...))",
                               t->params[k]->len, t->params[k]->loc, t->name_tok->len,
                               t->name_tok->loc, t->name_tok->len, t->name_tok->loc);
            return false;
        }
    *out = args;
    return true;
}

// explicit-instantiation = "template" ("struct" | "class") ident template-args ";"
//                        | "template" attrs "decltype" "(" ident template-args ")"
//                          ident template-args ";"
//                        | "template" attrs declspec ident template-args params ";"
void lang_p_explicit_instantiation(LangParser *p)
{
    if (lang_p_consume(p, "struct") || lang_p_consume(p, "class")) {
        LangToken *name = p->tok; /* template struct Vec<float, 4>; */
        LangSym *sym = lang_p_is_name(name) ? lang_p_lookup(p, name) : NULL;
        if (!sym || !sym->tmpl || !sym->tmpl->is_struct)
            lang_error_at(p->ctx, name, "'%.*s' is not a struct template", name->len,
                          name->loc);
        lang_p_next(p);
        lang_p_struct_instance(p, sym->tmpl, name);
        lang_p_expect_semi(p);
        return;
    }
    FnAttrs fa = {0};
    lang_p_attributes(p, &fa, NULL);
    while (lang_p_consume(p, "kernel"))
        fa.is_kernel = true;
    bool decltype = lang_p_consume(p, "decltype");
    if (decltype)
        lang_p_skip(p, "(");
    else { /* the return type of `template void f<float>(...)`: a type, then the name */
        LangAddrSpace space = LAS_THREAD;
        bool has_space = false;
        lang_p_declspec(p, &space, &has_space);
        while (lang_p_consume(p, "*") || lang_p_consume(p, "&") || lang_p_consume(p, "const"))
            ;
    }
    LangToken *name = p->tok;
    LangTemplate *t = lang_p_find_template(p, name);
    if (!t)
        lang_error_at(p->ctx, name, "'%.*s' is not a function template", name->len, name->loc);
    lang_p_next(p);
    LangTemplateArgs *args = lang_p_template_args(p, t);
    if (decltype) {
        lang_p_skip(p, ")");
        LangToken *again = p->tok;
        if (again->len != name->len || memcmp(again->loc, name->loc, (size_t)name->len))
            lang_error_at(p->ctx, again, "expected '%.*s'", name->len, name->loc);
        lang_p_next(p);
        LangTemplateArgs *args2 = lang_p_template_args(p, t);
        if (!same_args(t, args, args2))
            lang_error_at(p->ctx, again, "template arguments differ from the decltype's");
    } else {
        int depth = 0; /* the parameter list repeats the template's; it is not checked */
        do {
            depth += lang_p_is(p->tok, "(") - lang_p_is(p->tok, ")");
            if (p->tok->kind == LTK_EOF)
                lang_error_at(p->ctx, p->tok, "expected ')'");
            lang_p_next(p);
        } while (depth > 0);
    }
    lang_p_expect_semi(p);
    LangFunction *f = lang_p_instantiate(p, t, args, name);
    if (fa.is_kernel && !f->is_kernel)
        lang_error_at(p->ctx, name, "[[kernel]] instantiation of a template that is not a "
                      "kernel");
    if (fa.host_name)
        f->name = fa.host_name;
}


/* A struct template's instance: found, or made by parsing the template's tokens again with
 * its parameters bound, in the program scope (as a function template's instance is made).
 * The type is registered before its body is parsed, so the body may name it (`Vec<T, N>
 * add(Vec<T, N> o)`). */
LangType *lang_p_struct_instance(LangParser *p, LangTemplate *t, LangToken *at)
{
    if (!lang_p_is(p->tok, "<"))
        lang_error_at(p->ctx, at, "struct template '%.*s' needs its template arguments "
                      "(%.*s<...>)", t->name_tok->len, t->name_tok->loc, t->name_tok->len,
                      t->name_tok->loc);
    LangTemplateArgs *args = lang_p_template_args(p, t);
    for (LangInstance *i = t->instances; i; i = i->next)
        if (same_args(t, &i->args, args))
            return i->type; /* an explicit specialization is one already */
    LangTemplateArgs bound;
    LangTemplate *partial = lang_p_find_partial(p, t, args, at, &bound);
    if (!partial && (!t->start || !lang_p_is(t->start->next->next, "{")))
        lang_error_at(p->ctx, at, "struct template '%.*s' is declared but not defined",
                      t->name_tok->len, t->name_tok->loc);
    LangType *ty = new_instance(p, t, args, at);
    LangParser saved = *p;
    p->inst_depth++;
    p->scope = p->global;
    if (partial) { /* its body, at the "{", with its own parameters bound */
        bind_params(p, partial, &bound, partial->num_params);
        p->tok = partial->start;
    } else {
        bind_params(p, t, args, t->num_params);
        p->tok = t->start->next; /* after "struct" */
    }
    p->fn = NULL;
    p->method = NULL;
    lang_p_struct_decl(p, ty);
    lang_p_restore(p, &saved);
    return ty;
}
