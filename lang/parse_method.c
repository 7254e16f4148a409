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

static char *candidates(LangParser *p, LangClass *cls, const LangToken *name, bool ctor)
{
    char *list = "";
    for (LangMethod *m = cls->methods; m; m = m->next)
        if (m->is_ctor == ctor && (ctor || lang_tok_equal(name, lang_p_name(p, m->name_tok))))
            list = lang_format(p->ctx, "%s%s%s", list, *list ? "; " : "", signature(p, m));
    return list;
}

/* The member function (or constructor) a call means: the arguments' count, then the
 * object's address space and const-ness, then C++'s overload resolution among the rest
 * (overload.c's ranking: exact match over promotion over conversion, per argument). obj is
 * NULL for `S::f(...)` and constructors. */
static LangMethod *choose(LangParser *p, LangClass *cls, LangToken *name, LangNode **args,
                          int n, LangNode *obj, bool ctor)
{
    LangAddrSpace space = obj && lang_p_is_lvalue(obj) ? lang_p_lvalue_space(obj) : LAS_THREAD;
    bool is_const = obj && (obj->type->is_const || space == LAS_CONSTANT);
    LangMethod **usable = NULL;
    LangVar **params = NULL;
    size_t cap = 0, pcap = 0;
    int counted = 0, in_space = 0, nusable = 0;
    for (LangMethod *m = cls->methods; m; m = m->next) {
        if (m->is_ctor != ctor || (!ctor && !lang_tok_equal(name, lang_p_name(p, m->name_tok))) ||
            declared_params(m) < n || lang_p_required_params(first_param(m)) > n)
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
        usable[nusable] = m;
        params[nusable++] = first_param(m);
    }
    const char *what = ctor ? "constructor of" : "member function";
    char *full = ctor ? (char *)cls->type->name
                      : lang_format(p->ctx, "%s::%.*s", cls->type->name, name->len, name->loc);
    if (!counted)
        lang_error_at(p->ctx, name, "no %s '%s' takes %d argument%s (%s)", what, full, n,
                      n == 1 ? "" : "s", candidates(p, cls, name, ctor));
    if (!in_space)
        lang_error_at(p->ctx, name, "'%s' cannot be called on an object in %s memory: a member "
                      "function acts on thread objects unless it is declared for %s ones "
                      "(`... %s`)", full, space_word(space), space_word(space),
                      space_word(space));
    if (!nusable)
        lang_error_at(p->ctx, name, "'%s' is not const, so it cannot be called on a const "
                      "object (declare it `... const` if it does not change the object)", full);
    if (nusable == 1)
        return usable[0]; /* its parameters convert the arguments, or say why they cannot */
    int best = lang_p_rank_params(p, params, nusable, args, n);
    if (best == -1)
        lang_error_at(p->ctx, name, "no %s '%s' takes these arguments (%s)", what, full,
                      candidates(p, cls, name, ctor));
    if (best == -2)
        lang_error_at(p->ctx, name, "call of %s '%s' is ambiguous (%s)", what, full,
                      candidates(p, cls, name, ctor));
    return usable[best];
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

static LangNode *call_method(LangParser *p, LangClass *cls, LangToken *name, LangNode *obj)
{
    int n;
    LangNode **args = call_args(p, &n);
    LangMethod *m = choose(p, cls, name, args, n, obj, false);
    return make_call(p, m, obj, args, n, name);
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
    if (!lang_p_is(p->tok, "("))
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
    LangMethod *m = choose(p, cls, tok, args, n, NULL, true);
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
            return make_call(p, choose(p, cls, tok, NULL, 0, NULL, true), NULL, NULL, 0, tok);
    lang_error_at(p->ctx, tok, "'%s' has no default constructor: give the arguments of one "
                  "of its constructors (%s)", ty->name, candidates(p, cls, tok, true));
}

