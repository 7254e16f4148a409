/*
 * parse_call.c — what a call looks like once its callee is known: a type's constructor or
 * functional cast (`float4(a, b)`, `Acc(x)` through parse_method.c, a struct's members in
 * order, vector components, tensors, matrices and vote types handed to their files), and a
 * function call's arguments passed to its parameters (conversions, references bound to
 * lvalues, a value bound to a `thread const T&` held in a temporary, defaults for the
 * arguments left out), with the call graph
 * edge the inliner and the recursion check use. Which function a call means is decided
 * before: by name lookup (parse_expr.c), overload resolution (overload.c) or member
 * function choice (parse_method.c).
 */
#include "parse.h"

/* Constructor or functional cast (the type is already parsed):
 * construct = typename ("(" (assign ("," assign)*)? ")" | "{" (assign ("," assign)*)? "}") */
LangNode *lang_p_construct(LangParser *p, LangType *ty, LangToken *tok)
{
    if (ty->tensor)
        return lang_p_tensor_construct(p, ty, tok);
    if (ty->sampler)
        return lang_p_sampler_construct(p, ty, tok);
    LangNode *by_ctor = lang_p_class_construct(p, ty, tok); /* parse_method.c */
    if (by_ctor)
        return by_ctor;
    ty = lang_qualified(p->ctx, ty, false);
    if (ty->vote)
        return lang_p_vote_construct(p, ty, tok);
    if (lang_p_is(p->tok, "{") && (ty->kind == LTY_STRUCT || ty->kind == LTY_ARRAY))
        return lang_p_initializer(p, ty);
    bool brace = lang_p_is(p->tok, "{");
    lang_p_next(p);
    const char *close = brace ? "}" : ")";
    LangNode head = {0}, *cur = &head;
    int n = 0;
    while (!lang_p_consume(p, close)) {
        if (n && !lang_p_consume(p, ","))
            lang_error_at(p->ctx, p->tok, "expected ',' or '%s'", close);
        cur = cur->next = lang_p_assign(p);
        n++;
    }
    LangNode *args = head.next;
    if (ty->kind == LTY_SGMATRIX)
        return lang_p_matrix_construct(p, ty, tok, args, n);
    if (lang_is_matrix(ty))
        return lang_p_matrix_type_construct(p, ty, tok, args, n);
    if (ty->kind == LTY_STRUCT && n == 1 && lang_same_type(args->type, ty))
        return args; /* a copy: T(t) */
    if (ty->kind == LTY_STRUCT) {
        LangNode *c = lang_p_new_node(p, LND_CONSTRUCT, tok);
        c->type = ty;
        LangMember *m = ty->members;
        LangNode h2 = {0}, *c2 = &h2;
        for (LangNode *a = args, *next; a; a = next, m = m ? m->next : NULL) {
            next = a->next;
            if (!m)
                lang_error_at(p->ctx, a->tok, "too many arguments for '%s'", ty->name);
            c2 = c2->next = lang_p_cast(p, a, m->type, a->tok, false);
            c2->next = NULL;
        }
        c2->next = lang_p_member_defaults(p, ty, m, tok); /* parse_struct.c */
        for (; c2->next; c2 = c2->next)
            n++;
        c->args = h2.next;
        c->num_args = n;
        return c;
    }
    if (ty->kind == LTY_POINTER && n == 1) /* `dst(ptr)` initializing a pointer member */
        return lang_p_convert(p, args, ty, tok);
    if (lang_is_scalar(ty)) {
        if (n > 1)
            lang_error_at(p->ctx, tok, "a '%s' cast takes one value", ty->name);
        return n ? lang_p_cast(p, args, ty, tok, true) : lang_p_num(p, tok, ty, 0, 0);
    }
    if (ty->kind != LTY_VECTOR)
        lang_error_at(p->ctx, tok, "cannot construct a '%s'", lang_type_name(p->ctx, ty));
    if (n == 0)
        return lang_p_broadcast(p, lang_p_num(p, tok, ty->base, 0, 0), ty, tok);
    if (n == 1 && args->type->kind == LTY_VECTOR && args->type->len == ty->len)
        return lang_p_cast(p, args, ty, tok, true);
    if (n == 1 && lang_is_scalar(args->type))
        return lang_p_broadcast(p, args, ty, tok);
    LangNode *c = lang_p_new_node(p, LND_CONSTRUCT, tok);
    c->type = ty;
    int total = 0;
    LangNode h2 = {0}, *c2 = &h2;
    for (LangNode *a = args, *next; a; a = next) {
        next = a->next;
        a->next = NULL;
        LangType *at = a->type;
        if (lang_is_scalar(at)) {
            c2 = c2->next = lang_p_cast(p, a, ty->base, a->tok, true);
            total++;
        } else if (at->kind == LTY_VECTOR) {
            c2 = c2->next = lang_p_cast(p, a, lang_vector_of(p->ctx, ty->base, at->len, false),
                                    a->tok, true);
            total += at->len;
        } else {
            lang_error_at(p->ctx, a->tok, "cannot use '%s' in a '%s' constructor",
                          lang_type_name(p->ctx, at), ty->name);
        }
        c2->next = NULL;
    }
    if (total != ty->len)
        lang_error_soft(p->ctx, tok, "a '%s' constructor needs %d components, not %d", ty->name,
                        ty->len, total);
    c->args = h2.next;
    c->num_args = n;
    return c;
}

LangNode *lang_p_pass_arg(LangParser *p, LangNode *a, LangType *pt, LangToken *at)
{
    if (pt->kind != LTY_POINTER || !pt->is_reference)
        return lang_p_cast(p, a, pt, at, false);
    if (pt->base->is_const && pt->space == LAS_THREAD && !lang_p_is_lvalue(a)) {
        /* a value bound to `thread const T&`: a temporary holds it (C++ [dcl.init.ref]) */
        LangNode *addr = lang_p_new_node(p, LND_ADDR, at);
        addr->lhs = lang_p_convert(p, a, lang_qualified(p->ctx, pt->base, false), at);
        addr->type = pt;
        addr->temporary = true;
        return addr;
    }
    if (!lang_p_is_lvalue(a) || !lang_same_type(a->type, pt->base) ||
        lang_p_lvalue_space(a) != pt->space) {
        lang_error_soft(p->ctx, at, "cannot bind '%s' to a reference parameter of type '%s'",
                        lang_type_name(p->ctx, a->type), lang_type_name(p->ctx, pt));
        return a;
    }
    if (a->type->is_const && !pt->base->is_const)
        lang_error_soft(p->ctx, at, "binding a const value to a non-const reference");
    LangNode *addr = lang_p_new_node(p, LND_ADDR, at);
    addr->lhs = a;
    addr->type = pt;
    /* an object bound to a thread reference may stay in registers: codegen_refs.c decides,
     * once every callee's body is known, whether this one needs it in memory */
    LangVar *v = pt->space == LAS_THREAD ? NULL : lang_p_root_var(a);
    if (v)
        v->address_taken = true;
    return addr;
}

LangNode *lang_p_call(LangParser *p, LangFunction *f, LangToken *tok, LangNode **args,
                      LangToken **starts, int num_args)
{
    f = lang_p_texhelp_call(p, f, tok, &args, &starts, &num_args); /* parse_texhelp.c */
    if (!args)
        lang_p_skip(p, "(");
    LangNode *node = lang_p_new_node(p, LND_CALL, tok);
    node->func = f;
    node->type = lang_qualified(p->ctx, f->ret, false);
    if (f->is_kernel)
        lang_error_soft(p->ctx, tok, "a kernel function cannot be called");
    if (p->fn && f == p->fn)
        lang_error_soft(p->ctx, tok, "recursive call to '%s' (functions cannot be recursive in "
                        "Metal)", f->name);
    LangCallEdge *e = lang_alloc(p->ctx, sizeof *e);
    e->caller = p->fn;
    e->callee = f;
    e->tok = tok;
    e->next = p->calls;
    if (p->fn)
        p->calls = e;
    LangNode head = {0}, *cur = &head;
    LangVar *param = f->params;
    int n = 0;
    while (args ? n < num_args : !lang_p_consume(p, ")")) {
        if (!args && n && !lang_p_consume(p, ","))
            lang_error_at(p->ctx, p->tok, "expected ',' or ')'");
        LangToken *at = args ? starts[n] : p->tok;
        LangNode *a = args ? args[n] : lang_p_assign(p);
        n++;
        if (!param)
            continue;
        cur = cur->next = lang_p_pass_arg(p, a, param->type, at);
        param = param->next;
    }
    for (; param && param->default_arg; param = param->next, n++) /* parse_default.c */
        cur = cur->next = lang_p_pass_arg(p, lang_p_default_arg(p, param), param->type,
                                          param->default_arg);
    if (n != f->num_params)
        lang_error_soft(p->ctx, tok, "too %s arguments to function call, expected %d, have %d",
                        n < f->num_params ? "few" : "many", f->num_params, n);
    node->args = head.next;
    node->num_args = n < f->num_params ? n : f->num_params;
    return node;
}
