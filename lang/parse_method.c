/*
 * parse_method.c — calls of a struct's member functions and constructors (parse_struct.c
 * declares them): `obj.f(...)`, `ptr->f(...)`, `S::f(...)`, members a member function
 * names without `this`, `this` itself, `T(...)`, `T{...}` and `T x;` of a struct with
 * constructors. Which member function a call means is decided here and only here, apart
 * from the lookup of free functions: by the arguments' count (a default argument lets a
 * call leave its parameter out), then the object's address
 * space and const-ness, then C++'s ranking of the arguments' conversions to each
 * candidate's parameters, which free functions use too (overload.c, lang_p_rank_params).
 *
 * The object goes to the call as the `this` argument: a pointer already (`ptr->f()`), or
 * the object's address. An object held in registers stays there: codegen's pointer to a
 * register lvalue designates it (as a thread reference parameter's does), and a temporary
 * (`Acc(x).result()`) gets registers of its own.
 */
#include <string.h>

#include "parse.h"

static const char *space_word(LangAddrSpace s)
{
    return s == LAS_DEVICE ? "device" : s == LAS_CONSTANT ? "constant"
           : s == LAS_THREADGROUP ? "threadgroup" : "thread";
}

static LangSym *class_lookup(LangClass *cls, const LangToken *tok)
{
    for (LangSym *sym = cls->scope->syms; sym; sym = sym->next)
        if (sym->len == tok->len && memcmp(sym->name, tok->loc, (size_t)tok->len) == 0)
            return sym;
    return NULL;
}

static LangNode *deref(LangParser *p, LangNode *ptr, LangToken *tok)
{
    LangNode *d = lang_p_new_node(p, LND_DEREF, tok);
    d->lhs = ptr;
    d->type = ptr->type->base;
    return d;
}

/* `this` of the member function being parsed: its parameter, or in a constructor the
 * address of the object it builds; NULL in a static member function. */
static LangNode *this_node(LangParser *p, LangToken *tok)
{
    LangMethod *m = p->method;
    if (!m || m->is_static)
        return NULL;
    if (!m->is_ctor)
        return lang_p_var_node(p, m->this_var, tok);
    LangNode *a = lang_p_new_node(p, LND_ADDR, tok);
    a->lhs = lang_p_var_node(p, m->this_var, tok);
    a->type = lang_pointer_to(p->ctx, m->cls->type, LAS_THREAD);
    return a;
}

/* "(" (assign ("," assign)*)? ")" or the same in braces; *n gets the count */
static LangNode **call_args(LangParser *p, int *n)
{
    bool brace = lang_p_is(p->tok, "{");
    const char *close = brace ? "}" : ")";
    lang_p_next(p);
    LangNode **args = NULL;
    size_t cap = 0;
    int count = 0;
    while (!lang_p_consume(p, close)) {
        if (count && !lang_p_consume(p, ","))
            lang_error_at(p->ctx, p->tok, "expected ',' or '%s'", close);
        if (brace && lang_p_is(p->tok, "}"))
            continue;
        args = lang_grow(p->ctx, args, (size_t)count, &cap, sizeof *args, 4);
        args[count++] = lang_p_assign(p);
    }
    *n = count;
    return args;
}

static int declared_params(const LangMethod *m)
{
    return m->func->num_params - (m->this_var && !m->is_ctor ? 1 : 0);
}

static LangVar *first_param(const LangMethod *m)
{
    return m->this_var && !m->is_ctor ? m->func->params->next : m->func->params;
}

static char *signature(LangParser *p, const LangMethod *m)
{
    char *s = lang_format(p->ctx, "%s(", m->func->name);
    for (LangVar *v = first_param(m); v; v = v->next)
        s = lang_format(p->ctx, "%s%s%s", s, lang_type_name(p->ctx, v->type), v->next ? ", " : "");
    return lang_format(p->ctx, "%s)%s%s%s", s, m->is_const ? " const" : "",
                       m->this_space != LAS_THREAD ? " " : "",
                       m->this_space != LAS_THREAD ? space_word(m->this_space) : "");
}

/* Whether m is what a call names: a member function by name, or an operator (op). */
static bool named(LangParser *p, const LangMethod *m, const LangToken *name, const char *op)
{
    return op ? m->op && strcmp(m->op, op) == 0
              : !m->op && lang_tok_equal(name, lang_p_name(p, m->name_tok));
}

static char *candidates(LangParser *p, LangClass *cls, const LangToken *name, const char *op,
                        bool ctor)
{
    char *list = "";
    for (LangMethod *m = cls->methods; m; m = m->next)
        if (m->is_ctor == ctor && (ctor || named(p, m, name, op)))
            list = lang_format(p->ctx, "%s%s%s", list, *list ? "; " : "", signature(p, m));
    for (LangTemplate *t = ctor ? NULL : cls->member_tmpls; t; t = t->next)
        if (lang_p_member_template_named(p, t, name, op))
            list = lang_format(p->ctx, "%s%stemplate at line %d", list, *list ? "; " : "",
                               t->name_tok->line);
    return list;
}

/* The implicit object parameter C++ ranks a member function's object against (C++14
 * [over.match.funcs]): a reference to the struct, const for a const member function, in
 * the object's space (a temporary binds to it even when it is not const: lang_p_rank_params
 * knows the name "this"); a static member function matches any object. */
static LangVar *object_param(LangParser *p, const LangMethod *m, const LangNode *obj,
                             LangAddrSpace space)
{
    LangVar *v = lang_alloc(p->ctx, sizeof *v);
    v->name = "this";
    v->next = lang_p_method_params(m);
    LangType *st = m->cls->type;
    if (m->is_static) {
        v->type = lang_qualified(p->ctx, obj->type, false);
        return v;
    }
    v->type = lang_pointer_to(p->ctx, lang_qualified(p->ctx, st, m->is_const), space);
    v->type->is_reference = true;
    return v;
}

/* The member function (or constructor) a call means: the arguments' count, then the
 * object's address space and const-ness, then C++'s overload resolution among the rest
 * (overload.c's ranking: exact match over promotion over conversion, per argument, the
 * object included; a function beats a template instance that matches as well). Member
 * function templates take part with the arguments deduced from the call, or given
 * (`given`: then only they do). obj is NULL for `S::f(...)` and constructors. */
static LangMethod *choose(LangParser *p, LangClass *cls, LangToken *name, const char *op,
                          const LangTemplateArgs *given, LangNode **args, int n, LangNode *obj,
                          bool ctor)
{
    LangAddrSpace space = obj && lang_p_is_lvalue(obj) ? lang_p_lvalue_space(obj) : LAS_THREAD;
    bool is_const = obj && (obj->type->is_const || space == LAS_CONSTANT);
    LangMethod **all = NULL, **usable = NULL;
    LangVar **params = NULL;
    LangTemplate **tmpls = NULL;
    size_t acap = 0, cap = 0, pcap = 0, tcap = 0;
    int nall = 0, counted = 0, in_space = 0, nusable = 0;
    for (LangMethod *m = given ? NULL : cls->methods; m; m = m->next)
        if (m->is_ctor == ctor && (ctor || named(p, m, name, op))) {
            all = lang_grow(p->ctx, all, (size_t)nall, &acap, sizeof *all, 4);
            all[nall++] = m;
        }
    const char *tmpl_why = NULL;
    for (LangTemplate *t = ctor ? NULL : cls->member_tmpls; t; t = t->next) {
        LangMethod *m = lang_p_member_template_candidate(p, t, name, op, given, args, n,
                                                         &tmpl_why);
        if (m) {
            all = lang_grow(p->ctx, all, (size_t)nall, &acap, sizeof *all, 4);
            all[nall++] = m;
        }
    }
    for (int k = 0; k < nall; k++) {
        LangMethod *m = all[k];
        if (declared_params(m) < n || lang_p_required_params(first_param(m)) > n)
            continue;
        counted++;
        bool has_this = !m->is_static && !ctor;
        if (has_this && obj && m->this_space != space)
            continue;
        in_space++;
        if (has_this && is_const && !m->is_const)
            continue;
        usable = lang_grow(p->ctx, usable, (size_t)nusable, &cap, sizeof *usable, 4);
        params = lang_grow(p->ctx, params, (size_t)nusable, &pcap, sizeof *params, 4);
        tmpls = lang_grow(p->ctx, tmpls, (size_t)nusable, &tcap, sizeof *tmpls, 4);
        usable[nusable] = m;
        tmpls[nusable] = m->tmpl;
        params[nusable++] = obj ? object_param(p, m, obj, space) : first_param(m);
    }
    const char *what = ctor ? "constructor of" : op ? "operator" : "member function";
    char *full = ctor ? (char *)cls->type->name
                 : op ? lang_format(p->ctx, "%s::%s", cls->type->name, op)
                      : lang_format(p->ctx, "%s::%.*s", cls->type->name, name->len, name->loc);
    if (!counted && tmpl_why) /* a template's arguments could not be deduced: say why */
        lang_error_at(p->ctx, name, "no %s '%s' takes these arguments (%s): %s", what, full,
                      candidates(p, cls, name, op, ctor), tmpl_why);
    if (!counted)
        lang_error_at(p->ctx, name, "no %s '%s' takes %d argument%s (%s)", what, full, n,
                      n == 1 ? "" : "s", candidates(p, cls, name, op, ctor));
    if (!in_space)
        lang_error_at(p->ctx, name, "'%s' cannot be called on an object in %s memory: a member "
                      "function acts on thread objects unless it is declared for %s ones "
                      "(`... %s`)", full, space_word(space), space_word(space),
                      space_word(space));
    if (!nusable)
        lang_error_at(p->ctx, name, "'%s' is not const, so it cannot be called on a const "
                      "object (declare it `... const` if it does not change the object)", full);
    LangMethod *chosen = usable[0]; /* alone: its parameters convert the arguments, or say why
                                     * they cannot */
    if (nusable > 1) {
        LangNode **all_args = args;
        if (obj) { /* the object is the first argument, as its parameter is the first */
            all_args = lang_alloc(p->ctx, (size_t)(n + 1) * sizeof *all_args);
            all_args[0] = obj;
            if (n) /* args is NULL for a call without arguments */
                memcpy(all_args + 1, args, (size_t)n * sizeof *args);
        }
        int best = lang_p_rank_params(p, params, tmpls, nusable, all_args, n + (obj != NULL));
        if (best == -1)
            lang_error_at(p->ctx, name, "no %s '%s' takes these arguments (%s)", what, full,
                          candidates(p, cls, name, op, ctor));
        if (best == -2)
            lang_error_at(p->ctx, name, "call of %s '%s' is ambiguous (%s)", what, full,
                          candidates(p, cls, name, op, ctor));
        chosen = usable[best];
    }
    if (chosen->tmpl)
        lang_p_member_instance_body(p, chosen); /* parse_struct.c */
    return chosen;
}

static LangNode *make_call(LangParser *p, LangMethod *m, LangNode *obj, LangNode **args, int n,
                           LangToken *tok)
{
    LangFunction *f = m->func;
    LangNode *node = lang_p_new_node(p, LND_CALL, tok);
    node->func = f;
    node->type = lang_qualified(p->ctx, f->ret, false);
    if (p->fn && f == p->fn)
        lang_error_soft(p->ctx, tok, "recursive call to '%s' (functions cannot be recursive in "
                        "Metal)", f->name);
    if (p->fn) {
        LangCallEdge *e = lang_alloc(p->ctx, sizeof *e);
        *e = (LangCallEdge){.next = p->calls, .caller = p->fn, .callee = f, .tok = tok};
        p->calls = e;
    }
    LangNode head = {0}, *cur = &head;
    if (m->this_var && !m->is_ctor) {
        if (!obj)
            lang_error_at(p->ctx, tok, "'%s' is not static: call it on an object", f->name);
        LangNode *self;
        if (obj->kind == LND_DEREF) { /* ptr->f(): the pointer itself */
            self = obj->lhs;
        } else { /* the object's address; one in registers stays there (file comment) */
            self = lang_p_new_node(p, LND_ADDR, tok);
            self->lhs = obj;
            if (f->this_escapes && !lang_p_is_lvalue(obj))
                lang_error_at(p->ctx, tok, "'%s' takes addresses inside its object, so call "
                              "it on a variable, not on a temporary", f->name);
            LangVar *v = f->this_escapes ? lang_p_root_var(obj) : NULL;
            if (v) /* it indexes or offsets them: the object lives in memory */
                v->address_taken = true;
        }
        LangNode *c = lang_p_new_node(p, LND_CAST, tok); /* typed as the parameter */
        c->lhs = self;
        c->type = m->this_var->type;
        cur = cur->next = c;
    }
    int i = 0;
    LangVar *v = first_param(m);
    for (; v && i < n; v = v->next, i++) {
        args[i]->next = NULL;
        cur = cur->next = lang_p_pass_arg(p, args[i], v->type, args[i]->tok);
    }
    for (; v && v->default_arg; v = v->next) /* the arguments left out (parse_default.c) */
        cur = cur->next = lang_p_pass_arg(p, lang_p_default_arg(p, v), v->type, v->default_arg);
    node->args = head.next;
    node->num_args = f->num_params;
    return node;
}

LangVar *lang_p_method_params(const LangMethod *m)
{
    return first_param(m);
}

LangNode *lang_p_call_member(LangParser *p, LangClass *cls, LangToken *name, const char *op,
                             const LangTemplateArgs *given, LangNode *obj, LangNode **args,
                             int n)
{
    LangMethod *m = choose(p, cls, name, op, given, args, n, obj, false);
    LangNode *call = make_call(p, m, obj, args, n, name);
    LangType *ret = m->func->ret;
    if (ret->kind != LTY_POINTER || !ret->is_reference)
        return call;
    call->type = lang_qualified(p->ctx, ret, false); /* a reference: the lvalue it designates */
    return deref(p, call, name);
}

static LangNode *call_method(LangParser *p, LangClass *cls, LangToken *name, LangNode *obj)
{
    const LangTemplateArgs *given = NULL;
    if (lang_p_is(p->tok, "<")) { /* obj.f<T>(...): a member function template's arguments */
        LangTemplate *t = cls->member_tmpls;
        while (t && !lang_p_member_template_named(p, t, name, NULL))
            t = t->next;
        if (!t)
            lang_error_at(p->ctx, p->tok, "'%s::%.*s' is not a member function template",
                          cls->type->name, name->len, name->loc);
        given = lang_p_template_args(p, t);
        if (!lang_p_is(p->tok, "("))
            lang_error_at(p->ctx, p->tok, "expected '(' after the template arguments");
    }
    int n;
    LangNode **args = call_args(p, &n);
    return lang_p_call_member(p, cls, name, NULL, given, obj, args, n);
}

LangNode *lang_p_method_call(LangParser *p, LangNode *obj, LangToken *name)
{
    LangClass *cls = obj->type->cls;
    LangSym *sym = cls ? class_lookup(cls, name) : NULL;
    if (!sym || !sym->member_of || sym->member)
        lang_error_at(p->ctx, name, "%s '%.*s' in '%s'",
                      sym && sym->member ? "a data member, not a member function, is named"
                                         : "no member function named",
                      name->len, name->loc, lang_type_name(p->ctx, obj->type));
    return call_method(p, cls, name, obj);
}

LangNode *lang_p_this(LangParser *p, LangToken *tok)
{
    if (!lang_p_is(tok, "this"))
        return NULL;
    LangNode *self = this_node(p, tok);
    if (!self)
        lang_error_at(p->ctx, tok, "'this' is only valid in a non-static member function");
    lang_p_next(p);
    return self;
}

LangNode *lang_p_member_name(LangParser *p, LangSym *sym, LangToken *tok)
{
    lang_p_next(p);
    LangClass *cls = sym->member_of;
    LangNode *self = p->method && p->method->cls == cls ? this_node(p, tok) : NULL;
    LangNode *obj = self ? deref(p, self, tok) : NULL;
    if (sym->member) {
        if (!obj)
            lang_error_at(p->ctx, tok, "data member '%.*s' of '%s' is used without an object "
                          "(in a static member function, or outside '%s')", tok->len, tok->loc,
                          cls->type->name, cls->type->name);
        return lang_p_member(p, obj, tok);
    }
    if (!lang_p_is(p->tok, "(") && !(lang_p_is(p->tok, "<") && cls->member_tmpls))
        lang_error_at(p->ctx, p->tok, "member function '%s::%.*s' must be called",
                      cls->type->name, tok->len, tok->loc);
    return call_method(p, cls, tok, obj);
}

LangNode *lang_p_static_member(LangParser *p, LangType *ty, LangToken *name)
{
    LangClass *cls = ty->cls;
    LangSym *sym = lang_p_is_name(name) ? class_lookup(cls, name) : NULL;
    if (!sym)
        lang_error_at(p->ctx, name, "no member named '%.*s' in '%s'", name->len, name->loc,
                      ty->name);
    if (sym->member_of)
        return lang_p_member_name(p, sym, name);
    lang_p_next(p);
    if (sym->is_enum_const)
        return lang_p_num(p, name, sym->const_type ? sym->const_type : lang_ty_int,
                          (uint64_t)sym->enum_value, 0);
    if (!sym->var)
        lang_error_at(p->ctx, name, "'%s::%.*s' is a type, not a value", ty->name, name->len,
                      name->loc);
    LangVar *v = sym->var;
    if (v->init && v->init->kind == LND_NUM)
        return lang_p_num(p, name, v->init->type, v->init->ival, v->init->fval);
    return lang_p_var_node(p, v, name);
}

LangNode *lang_p_class_construct(LangParser *p, LangType *ty, LangToken *tok)
{
    LangClass *cls = ty->kind == LTY_STRUCT ? ty->cls : NULL;
    if (!cls || (!cls->has_ctor && !cls->implicit_ctor))
        return NULL;
    if (!cls->has_ctor) { /* only T() and T{} run the implicit constructor */
        LangToken *close = p->tok->next;
        if (!lang_p_is(close, lang_p_is(p->tok, "{") ? "}" : ")"))
            return NULL; /* an aggregate's members */
        lang_p_next(p);
        lang_p_next(p);
        return make_call(p, cls->implicit_ctor, NULL, NULL, 0, tok);
    }
    int n;
    LangNode **args = call_args(p, &n);
    if (n == 1 && lang_same_type(args[0]->type, ty)) { /* a copy, unless one takes it */
        bool declared = false;
        for (LangMethod *m = cls->methods; m; m = m->next) {
            LangType *pt = m->is_ctor && declared_params(m) == 1 ? first_param(m)->type : NULL;
            if (pt && pt->kind == LTY_POINTER && pt->is_reference)
                pt = pt->base;
            declared |= pt && lang_same_type(pt, ty);
        }
        if (!declared)
            return args[0];
    }
    LangMethod *m = choose(p, cls, tok, NULL, NULL, args, n, NULL, true);
    return make_call(p, m, NULL, args, n, tok);
}

LangNode *lang_p_default_init(LangParser *p, LangType *ty, LangToken *tok)
{
    if (ty->kind == LTY_ARRAY) {
        LangNode *first = lang_p_default_init(p, ty->base, tok);
        if (!first)
            return NULL;
        if (ty->len > 64)
            lang_error_at(p->ctx, tok, "an array of more than 64 objects with a constructor is "
                          "not supported (this one has %d)", ty->len);
        LangNode *c = lang_p_new_node(p, LND_CONSTRUCT, tok);
        c->type = lang_qualified(p->ctx, ty, false);
        c->args = first;
        for (int i = 1; i < ty->len; i++)
            first = first->next = lang_p_default_init(p, ty->base, tok);
        c->num_args = ty->len;
        return c;
    }
    LangClass *cls = ty->kind == LTY_STRUCT ? ty->cls : NULL;
    if (!cls)
        return NULL;
    if (cls->implicit_ctor)
        return make_call(p, cls->implicit_ctor, NULL, NULL, 0, tok);
    if (!cls->has_ctor)
        return NULL;
    for (LangMethod *m = cls->methods; m; m = m->next)
        if (m->is_ctor && lang_p_required_params(first_param(m)) == 0) /* S() or S(int = 0) */
            return make_call(p, choose(p, cls, tok, NULL, NULL, NULL, 0, NULL, true), NULL, NULL, 0, tok);
    lang_error_at(p->ctx, tok, "'%s' has no default constructor: give the arguments of one "
                  "of its constructors (%s)", ty->name, candidates(p, cls, tok, NULL, true));
}

