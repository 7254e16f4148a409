/*
 * parse_struct.c — structs (and classes) with what C++ lets them hold beyond data: member
 * functions (const, static, and qualified with the address space of their object),
 * constructors with member initializer lists, default member initializers, static
 * constants, member types and `public:`/`private:` labels; the bodies of member functions
 * and constructors, written in the struct or after it (`float Acc::get() const { ... }`);
 * and which member functions need their object in memory. Calls of them are
 * parse_method.c's.
 *
 * A member function is an ordinary LangFunction named "Acc::add" whose first parameter is
 * `this`, a pointer to the object, so codegen inlines it as any helper and the listing and
 * the checkers' findings name it "Acc::add". A constructor is a function that returns the
 * object: its body declares the object, assigns the member initializers, runs the written
 * body and returns the object, so `Acc a(x)`, `Acc(x)` and `Acc{x}` are calls whose value
 * initializes. Member function bodies are parsed once the struct is complete, as C++ reads
 * them, so they see every member and call member functions declared after them.
 */
#include <string.h>

#include "parse.h"

static LangMember *find_member(LangType *ty, const LangToken *tok)
{
    for (LangMember *m = ty->members; m; m = m->next)
        if (lang_tok_equal(tok, m->name))
            return m;
    return NULL;
}

/* Skips a balanced group from its opening token (p->tok) through its closing one. */
static void skip_group(LangParser *p, const LangToken *open)
{
    int depth = 0;
    do {
        if (p->tok->kind == LTK_EOF)
            lang_error_at(p->ctx, open, "unterminated '%.*s'", open->len, open->loc);
        depth += lang_p_is(p->tok, "(") || lang_p_is(p->tok, "{") || lang_p_is(p->tok, "[");
        depth -= lang_p_is(p->tok, ")") || lang_p_is(p->tok, "}") || lang_p_is(p->tok, "]");
        lang_p_next(p);
    } while (depth > 0);
}

/* ---- declarations in a struct's body ---------------------------------------------------------- */

/* The parameters a member function is declared with, after `this` */
static LangVar *declared(const LangMethod *m)
{
    return m->this_var && !m->is_ctor ? m->func->params->next : m->func->params;
}

/* Whether a has b's name, kind and qualifiers and takes the parameter types in params. */
static bool same_signature(const LangMethod *a, const LangMethod *b, const LangVar *params)
{
    if (a->is_ctor != b->is_ctor || a->is_const != b->is_const ||
        a->this_space != b->this_space || a->name_tok->len != b->name_tok->len ||
        memcmp(a->name_tok->loc, b->name_tok->loc, (size_t)a->name_tok->len) != 0 ||
        !a->op != !b->op || (a->op && strcmp(a->op, b->op) != 0))
        return false;
    const LangVar *x = declared(a), *y = params;
    for (; x && y; x = x->next, y = y->next)
        if (!lang_same_type(x->type, y->type))
            return false;
    return !x && !y;
}

/* The qualifiers after a member function's parameters: const, an address space. */
static void method_qualifiers(LangParser *p, LangMethod *m)
{
    bool has_space = false;
    for (;;) {
        LangToken *q = p->tok;
        if (lang_p_consume(p, "const")) {
            m->is_const = true;
        } else if (lang_p_is(q, "thread") || lang_p_is(q, "device") ||
                   lang_p_is(q, "threadgroup") || lang_p_is(q, "constant")) {
            if (has_space)
                lang_error_at(p->ctx, q, "more than one address space on a member function");
            has_space = true;
            m->this_space = lang_p_is(q, "device") ? LAS_DEVICE
                            : lang_p_is(q, "constant") ? LAS_CONSTANT
                            : lang_p_is(q, "threadgroup") ? LAS_THREADGROUP : LAS_THREAD;
            lang_p_next(p);
        } else if (!lang_p_consume(p, "noexcept")) {
            break;
        }
    }
    if ((m->is_static || m->is_ctor) && (m->is_const || has_space))
        lang_error_at(p->ctx, m->name_tok, "a %s has no object to be const or in an address "
                      "space", m->is_ctor ? "constructor" : "static member function");
}

/* A member function's signature. Its body (or a constructor's initializers) is skipped
 * here and parsed by method_body once the struct is complete.
 * method = declspec ident params ("const" | address-space)* ("{" ... "}" | ";")
 *        | ident params (":" mem-init ("," mem-init)*)? "{" ... "}"     (a constructor) */
static void method_decl(LangParser *p, LangClass *cls, LangType *ret, LangToken *name,
                        bool is_static, bool is_ctor, const char *op)
{
    LangCtx *ctx = p->ctx;
    if (p->fn)
        lang_error_at(ctx, name, "member functions of a struct declared inside a function are "
                      "not supported; declare '%s' at program scope", cls->type->name);
    LangMethod *m = lang_alloc(ctx, sizeof *m);
    m->cls = cls;
    m->name_tok = name;
    m->is_static = is_static;
    m->is_ctor = is_ctor;
    m->op = op;
    LangFunction *f = lang_alloc(ctx, sizeof *f);
    f->name = op ? lang_format(ctx, "%s::%s", cls->type->name, op)
                 : lang_format(ctx, "%s::%.*s", cls->type->name, name->len, name->loc);
    f->tok = name;
    f->ret = is_ctor ? cls->type : ret;
    f->is_method = true;
    m->func = f;
    lang_p_enter(p);
    m->params = p->scope;
    f->params = lang_p_params(p, f);
    lang_p_merge_defaults(p, NULL, f->params);
    method_qualifiers(p, m);
    lang_p_leave(p);
    if (!is_static && !is_ctor) { /* this: the first parameter */
        LangVar *self = lang_alloc(ctx, sizeof *self);
        self->name = "this";
        self->tok = name;
        self->kind = LVAR_PARAM;
        self->type = lang_pointer_to(ctx, lang_qualified(ctx, cls->type, m->is_const),
                                     m->this_space);
        self->id = p->next_var_id++;
        self->next = f->params;
        f->params = self;
        f->num_params++;
        m->this_var = self;
    }
    if (lang_p_is(p->tok, "{") || (is_ctor && lang_p_is(p->tok, ":"))) {
        m->body = p->tok;
        if (lang_p_consume(p, ":")) /* the initializers, parsed with the body */
            do {
                if (p->tok->kind != LTK_IDENT)
                    lang_error_at(ctx, p->tok, "expected a member name in the constructor's "
                                  "initializers");
                lang_p_next(p);
                if (!lang_p_is(p->tok, "(") && !lang_p_is(p->tok, "{"))
                    lang_error_at(ctx, p->tok, "expected '(' or '{' after the member's name");
                skip_group(p, p->tok);
            } while (lang_p_consume(p, ","));
        if (!lang_p_is(p->tok, "{"))
            lang_error_at(ctx, p->tok, "expected the constructor's body ('{')");
        skip_group(p, p->tok);
        f->is_defined = true;
    } else if (!lang_p_consume(p, ";")) { /* else defined outside: lang_p_method_define */
        lang_error_at(ctx, p->tok, "expected '{' or ';' after the parameters of '%s'", f->name);
    }
    if (cls->instance_out) { /* a member template's instance: its maker keeps it */
        *cls->instance_out = m;
        return;
    }
    if (op)
        lang_p_check_member_operator(p, m);
    LangMethod **tail = &cls->methods;
    for (; *tail; tail = &(*tail)->next)
        if (same_signature(*tail, m, declared(m)))
            lang_error_soft(ctx, name, "redefinition of '%s' (with the same parameters)",
                            f->name);
    *tail = m;
    lang_p_add_function(p, f);
    if (is_ctor) {
        cls->has_ctor = true;
        return;
    }
    if (op)
        return; /* found by the operator, not by a name */
    LangSym *sym = lang_p_lookup_in_scope(p, name);
    if (sym && sym->member)
        lang_error_soft(ctx, name, "'%.*s' is both a data member and a member function",
                        name->len, name->loc);
    else if (!sym)
        lang_p_push_sym(p, name)->member_of = cls;
}

/* `static constexpr int N = 4;` or `static constant float S = 0.5f;`: a program-scope
 * constant named in the struct's scope (S::N outside it). */
static void static_constant(LangParser *p, LangType *ty, LangToken *name)
{
    if (!lang_p_consume(p, "="))
        lang_error_at(p->ctx, name, "static data member '%.*s' needs a constant initializer "
                      "(`static constexpr int %.*s = 4;`)", name->len, name->loc, name->len,
                      name->loc);
    LangToken *at = p->tok;
    LangType *value_ty = lang_qualified(p->ctx, ty, false);
    LangNode *init = lang_p_fold(p, lang_p_initializer(p, value_ty));
    if (!init)
        lang_error_at(p->ctx, at, "the initializer of static member '%.*s' must be a constant "
                      "expression", name->len, name->loc);
    LangVar *v = lang_p_new_var(p, name, lang_qualified(p->ctx, ty, true), LVAR_CONSTANT);
    v->space = LAS_CONSTANT;
    v->init = init;
    if (p->globals_tail)
        p->globals_tail->next = v;
    else
        p->unit->globals = v;
    p->globals_tail = v;
}

/* A data member's default initializer: kept as tokens for the constructors. */
static LangToken *member_default(LangParser *p)
{
    if (!lang_p_consume(p, "=") && !lang_p_is(p->tok, "{"))
        return NULL;
    LangToken *start = p->tok;
    while (!lang_p_is(p->tok, ",") && !lang_p_is(p->tok, ";")) {
        if (p->tok->kind == LTK_EOF || lang_p_is(p->tok, "}") || lang_p_is(p->tok, ")"))
            lang_error_at(p->ctx, p->tok, "expected ';' after the member's initializer");
        if (lang_p_is(p->tok, "(") || lang_p_is(p->tok, "{") || lang_p_is(p->tok, "["))
            skip_group(p, p->tok);
        else
            lang_p_next(p);
    }
    return start;
}

/* [[...]] lists, taken no meaning from */
static void skip_attributes(LangParser *p)
{
    while (lang_p_is(p->tok, "[[") || (lang_p_is(p->tok, "[") && lang_p_is(p->tok->next, "[")))
        for (int depth = 0;; lang_p_next(p)) {
            depth += lang_p_is(p->tok, "[") - lang_p_is(p->tok, "]") +
                     2 * (lang_p_is(p->tok, "[[") - lang_p_is(p->tok, "]]"));
            if (p->tok->kind == LTK_EOF)
                lang_error_at(p->ctx, p->tok, "expected ']]'");
            if (depth == 0) {
                lang_p_next(p);
                break;
            }
        }
}

/* Prefixes of a member declaration the parser takes no meaning from, and `static`. */
static bool member_prefix(LangParser *p, bool *is_static)
{
    if (lang_p_consume(p, "static")) {
        *is_static = true;
        return true;
    }
    if (lang_p_consume(p, "inline") || lang_p_consume(p, "METAL_FUNC") ||
        lang_p_consume(p, "explicit"))
        return true;
    if (lang_p_is(p->tok, "__attribute__")) {
        lang_p_next(p);
        skip_group(p, p->tok);
        return true;
    }
    if (lang_p_is(p->tok, "[[") || (lang_p_is(p->tok, "[") && lang_p_is(p->tok->next, "["))) {
        skip_attributes(p);
        return true;
    }
    return false;
}

/* One declaration in a struct's body; data members are appended to *tail.
 * member = ";" | ("public" | "private" | "protected") ":" | "using" ident "=" typename ";"
 *        | "typedef" declspec declarator ";" | method
 *        | "static" declspec ident "=" initializer ";"
 *        | declspec (declarator ("=" initializer | "{" ... "}")? ("," ...)*)? ";" */
static void member_decl(LangParser *p, LangClass *cls, LangMember ***tail)
{
    LangCtx *ctx = p->ctx;
    LangToken *at = p->tok;
    if (lang_p_consume(p, ";"))
        return; /* `void f() {};` as MLX writes: an empty declaration */
    if ((lang_p_is(at, "public") || lang_p_is(at, "private") || lang_p_is(at, "protected")) &&
        lang_p_is(at->next, ":")) {
        lang_p_next(p); /* access is not checked: every member is reachable */
        lang_p_next(p);
        return;
    }
    if (lang_p_consume(p, "using")) {
        LangToken *name = p->tok;
        if (name->kind != LTK_IDENT)
            lang_error_at(ctx, name, "expected a type alias (`using T = float;`)");
        lang_p_next(p);
        lang_p_skip(p, "=");
        LangType *ty = lang_p_typename(p);
        lang_p_expect_semi(p);
        lang_p_push_sym(p, name)->type = ty;
        return;
    }
    if (lang_p_consume(p, "typedef")) {
        LangAddrSpace space = LAS_THREAD;
        bool has_space = false;
        LangType *base = lang_p_declspec(p, &space, &has_space);
        LangToken *name = NULL;
        LangType *ty = lang_p_declarator(p, base, space, has_space, &name);
        if (!name)
            lang_error_at(ctx, p->tok, "expected a typedef name");
        lang_p_expect_semi(p);
        lang_p_push_sym(p, name)->type = ty;
        return;
    }
    if (lang_p_is(at, "template")) {
        lang_p_member_template(p, cls); /* parse_functor.c */
        return;
    }
    if (lang_p_is(at, "friend") || lang_p_is(at, "virtual"))
        lang_error_at(ctx, at, "'%.*s' is not supported in a struct", at->len, at->loc);
    if (lang_p_is(at, "~"))
        lang_error_at(ctx, at, "destructors are not supported (Metal objects need none)");
    bool is_static = false;
    while (member_prefix(p, &is_static))
        ;
    at = p->tok;
    if (cls->name_tok && at->len == cls->name_tok->len &&
        memcmp(at->loc, cls->name_tok->loc, (size_t)at->len) == 0 && lang_p_is(at->next, "(")) {
        lang_p_next(p);
        method_decl(p, cls, NULL, at, false, true, NULL);
        return;
    }
    if (lang_p_is(at, "operator"))
        lang_error_at(ctx, at, "conversion operators (`operator %.*s()`) are not supported yet",
                      at->next->len, at->next->loc);
    if (!lang_p_is_typename(p, at))
        lang_error_at(ctx, at, "unknown type name '%.*s'", at->len, at->loc);
    LangAddrSpace space = LAS_THREAD;
    bool has_space = false;
    LangType *base = lang_p_declspec(p, &space, &has_space);
    if (lang_p_consume(p, ";"))
        return; /* a nested struct or enum */
    do {
        LangToken *mname = NULL;
        LangType *mt = lang_p_declarator(p, base, space, has_space, &mname);
        if (mname && lang_p_is(mname, "operator")) { /* `T operator()(T x)`, `T& operator[]` */
            const char *op = lang_p_member_operator_name(p); /* parse_functor.c */
            if (!lang_p_is(p->tok, "("))
                lang_error_at(ctx, p->tok, "expected '(' after '%s'", op);
            method_decl(p, cls, mt, mname, is_static, false, op);
            return;
        }
        if (!mname)
            lang_error_at(ctx, p->tok, "expected a member name");
        if (lang_p_is(p->tok, "(")) {
            method_decl(p, cls, mt, mname, is_static, false, NULL);
            return;
        }
        if (is_static) {
            static_constant(p, mt, mname);
            continue;
        }
        if (mt->kind == LTY_VOID || mt->size == 0)
            lang_error_at(ctx, mname, "member '%.*s' has incomplete type", mname->len,
                          mname->loc);
        skip_attributes(p); /* a member's attributes: ignored */
        LangToken *init = member_default(p);
        LangMember *m = lang_alloc(ctx, sizeof *m);
        m->name = lang_p_name(p, mname);
        m->type = mt;
        m->tok = mname;
        m->init_tok = init;
        if (find_member(cls->type, mname) || lang_p_lookup_in_scope(p, mname)) {
            lang_error_soft(ctx, mname, "duplicate member '%s'", m->name);
        } else {
            LangSym *sym = lang_p_push_sym(p, mname);
            sym->member_of = cls;
            sym->member = m;
        }
        **tail = m;
        *tail = &m->next;
        cls->type->members = cls->type->members ? cls->type->members : m;
    } while (lang_p_consume(p, ","));
    lang_p_expect_semi(p);
}

/* ---- member function bodies --------------------------------------------------------------------- */

LangNode *lang_p_var_node(LangParser *p, LangVar *v, LangToken *tok)
{
    LangNode *n = lang_p_new_node(p, LND_VAR, tok);
    n->var = v;
    n->type = v->type;
    return n;
}

static LangNode *expr_stmt(LangParser *p, LangNode *e, LangToken *tok)
{
    LangNode *s = lang_p_new_node(p, LND_EXPR_STMT, tok);
    s->lhs = e;
    return s;
}

/* obj.m = value, built directly (a const member is initialized, not assigned) */
static LangNode *init_member(LangParser *p, LangNode *obj, LangMember *m, LangNode *value,
                             LangToken *tok)
{
    LangNode *lhs = lang_p_new_node(p, LND_MEMBER, tok);
    lhs->lhs = obj;
    lhs->member = m;
    lhs->type = m->type;
    LangNode *a = lang_p_new_node(p, LND_ASSIGN, tok);
    a->lhs = lhs;
    a->rhs = value;
    a->type = lang_qualified(p->ctx, m->type, false);
    return expr_stmt(p, a, tok);
}

/* A member's value from `(args)` or `{args}` at p->tok, as `T(args)` would make it. */
static LangNode *member_value(LangParser *p, LangMember *m, LangToken *tok)
{
    LangType *ty = lang_qualified(p->ctx, m->type, false);
    LangNode *v = lang_p_construct(p, ty, tok);
    return lang_same_type(v->type, ty) ? v : lang_p_convert(p, v, ty, tok);
}

/* A default member initializer's value, parsed from its tokens in its struct's scope. */
static LangNode *member_default_value(LangParser *p, LangClass *cls, LangMember *m)
{
    LangToken *tok = p->tok, *prev = p->prev;
    LangScope *scope = p->scope;
    p->tok = m->init_tok;
    p->scope = cls->scope;
    LangType *ty = lang_qualified(p->ctx, m->type, false);
    LangNode *v = lang_p_is(p->tok, "{") ? member_value(p, m, m->tok)
                                         : lang_p_initializer(p, ty);
    p->tok = tok;
    p->prev = prev;
    p->scope = scope;
    return v;
}

LangNode *lang_p_member_defaults(LangParser *p, LangType *ty, LangMember *from, LangToken *tok)
{
    LangClass *cls = ty->cls;
    LangMember *last = NULL; /* the last member with something to run */
    for (LangMember *m = from; cls && m; m = m->next)
        if (m->init_tok || (m->type->kind == LTY_STRUCT && m->type->cls &&
                            (m->type->cls->implicit_ctor || m->type->cls->has_ctor)))
            last = m;
    if (!last)
        return NULL;
    LangNode head = {0}, *cur = &head;
    for (LangMember *m = from; m != last->next; m = m->next) {
        LangNode *v = m->init_tok ? member_default_value(p, cls, m)
                                  : lang_p_default_init(p, m->type, tok);
        if (!v) { /* zero, as the members an aggregate's initializer leaves out */
            v = lang_p_new_node(p, LND_CONSTRUCT, tok);
            v->type = lang_qualified(p->ctx, m->type, false);
        }
        cur = cur->next = v;
    }
    return head.next;
}

// mem-inits = ":" mem-init ("," mem-init)*    mem-init = ident ("(" args ")" | "{" args "}")
// Then every other member with a default initializer or a default constructor, all in
// declaration order (C++'s order, whatever the list's).
static LangNode *member_inits(LangParser *p, LangMethod *ctor, LangNode *self)
{
    LangType *ty = ctor->cls->type;
    int n = 0;
    for (LangMember *m = ty->members; m; m = m->next)
        n++;
    LangNode **given = lang_alloc(p->ctx, (size_t)(n ? n : 1) * sizeof *given);
    if (lang_p_consume(p, ":")) {
        do {
            LangToken *name = p->tok;
            LangMember *m = name->kind == LTK_IDENT ? find_member(ty, name) : NULL;
            if (!m)
                lang_error_at(p->ctx, name, "'%.*s' is not a data member of '%s'", name->len,
                              name->loc, ty->name);
            lang_p_next(p);
            if (!lang_p_is(p->tok, "(") && !lang_p_is(p->tok, "{"))
                lang_error_at(p->ctx, p->tok, "expected '(' or '{' after '%s'", m->name);
            int k = 0;
            for (LangMember *o = ty->members; o != m; o = o->next)
                k++;
            if (given[k])
                lang_error_soft(p->ctx, name, "member '%s' is initialized twice", m->name);
            given[k] = init_member(p, self, m, member_value(p, m, name), name);
        } while (lang_p_consume(p, ","));
    }
    LangNode head = {0}, *cur = &head;
    int k = 0;
    for (LangMember *m = ty->members; m; m = m->next, k++) {
        LangNode *s = given[k];
        if (!s && m->init_tok)
            s = init_member(p, self, m, member_default_value(p, ctor->cls, m), m->tok);
        LangNode *d = s ? NULL : lang_p_default_init(p, m->type, ctor->name_tok);
        if (d)
            s = init_member(p, self, m, d, m->tok);
        if (s)
            cur = cur->next = s;
    }
    return head.next;
}

/* A constructor's body: { T obj; initializers; { written body } return obj; } */
static LangNode *ctor_body(LangParser *p, LangMethod *m)
{
    LangToken *tok = m->body ? m->body : m->name_tok;
    LangVar *obj = lang_alloc(p->ctx, sizeof *obj);
    obj->name = "*this";
    obj->tok = m->name_tok;
    obj->type = m->cls->type;
    obj->kind = LVAR_LOCAL;
    obj->space = LAS_THREAD;
    obj->id = p->next_var_id++;
    lang_p_add_local(p, obj);
    m->this_var = obj;
    LangNode *decl = lang_p_new_node(p, LND_DECL, m->name_tok);
    decl->var = obj;
    LangNode *cur = decl;
    LangNode *inits = member_inits(p, m, lang_p_var_node(p, obj, tok));
    for (cur->next = inits; cur->next; cur = cur->next)
        ;
    if (m->body) {
        LangToken *open = p->tok;
        lang_p_skip(p, "{");
        cur = cur->next = lang_p_compound(p, open);
    }
    LangNode *ret = lang_p_new_node(p, LND_RETURN, tok);
    ret->lhs = lang_p_var_node(p, obj, tok);
    cur->next = ret;
    LangNode *block = lang_p_new_node(p, LND_BLOCK, tok);
    block->body = decl;
    return block;
}

static void method_body(LangParser *p, LangMethod *m)
{
    LangFunction *f = m->func;
    p->tok = m->body ? m->body : m->name_tok;
    p->scope = m->params;
    p->method = m;
    long nodes_before = p->num_nodes;
    lang_p_body_begin(p, f);
    if (m->is_ctor) {
        f->body = ctor_body(p, m);
    } else {
        LangToken *open = p->tok;
        lang_p_skip(p, "{");
        f->body = lang_p_compound(p, open);
    }
    lang_p_body_end(p, f, nodes_before);
}

/* The implicit default constructor of a struct that declares none but has members to
 * initialize (default member initializers, members whose type has a constructor). */
static void implicit_ctor(LangParser *p, LangClass *cls)
{
    bool needed = false;
    for (LangMember *m = cls->type->members; m && !needed; m = m->next) {
        LangType *t = m->type;
        while (t->kind == LTY_ARRAY)
            t = t->base;
        needed = m->init_tok || (t->kind == LTY_STRUCT && t->cls &&
                                 (t->cls->has_ctor || t->cls->implicit_ctor));
    }
    if (!needed || cls->has_ctor)
        return;
    LangMethod *m = lang_alloc(p->ctx, sizeof *m);
    m->cls = cls;
    m->is_ctor = true;
    m->name_tok = cls->name_tok ? cls->name_tok : cls->type->members->tok;
    m->func = lang_alloc(p->ctx, sizeof *m->func);
    m->func->name = lang_format(p->ctx, "%s::%s", cls->type->name, cls->type->name);
    m->func->tok = m->name_tok;
    m->func->ret = cls->type;
    m->func->is_defined = true;
    lang_p_enter(p);
    m->params = p->scope;
    lang_p_leave(p);
    lang_p_add_function(p, m->func);
    cls->implicit_ctor = m;
}

/* ---- objects that live in memory ------------------------------------------------------------ */

/* A member function that takes an address inside its object (`&v[0]`, an array member used
 * as a pointer, a member bound to a reference, `this` kept as a value) may index or offset
 * it, which an object held in registers cannot serve: the objects such a function is
 * called on live in thread memory, as a local whose address is taken does. Decided once
 * the struct's bodies are parsed, to a fixpoint, since member functions call each other. */

static bool takes_this(const LangFunction *f)
{
    return f->is_method && f->params && strcmp(f->params->name, "this") == 0;
}

static bool is_this(const LangMethod *m, const LangNode *n)
{
    if (!m->this_var)
        return false;
    if (m->is_ctor)
        return n->kind == LND_ADDR && n->lhs->kind == LND_VAR && n->lhs->var == m->this_var;
    return n->kind == LND_VAR && n->var == m->this_var;
}

/* Whether the lvalue n is the object `this` points to or a part of it. */
static bool in_this(const LangMethod *m, const LangNode *n)
{
    while (n->kind == LND_MEMBER || n->kind == LND_SWIZZLE || n->kind == LND_ELEMENTS ||
           (n->kind == LND_INDEX && n->lhs->type->kind != LTY_POINTER))
        n = n->lhs;
    if (m->is_ctor && n->kind == LND_VAR && n->var == m->this_var)
        return true;
    return n->kind == LND_DEREF && is_this(m, n->lhs);
}

static bool escapes(LangMethod *m, LangNode *n, int depth);

/* One expression (not its siblings). */
static bool node_escapes(LangMethod *m, LangNode *n, int depth)
{
    if (!n)
        return false;
    LangNode *next = n->next;
    n->next = NULL;
    bool esc = escapes(m, n, depth);
    n->next = next;
    return esc;
}

/* The object a member function is called on, given as `this` (make_call's CAST of it): it
 * escapes when the callee's does; a local object given to such a callee is put in memory.
 * The indexes on the way to the object are walked as any expression. */
static bool this_arg_escapes(LangMethod *m, const LangFunction *callee, LangNode *self,
                             int depth)
{
    if (is_this(m, self))
        return callee->this_escapes;
    if (self->kind != LND_ADDR)
        return node_escapes(m, self, depth + 1); /* ptr->f(): a pointer value */
    bool esc = callee->this_escapes && in_this(m, self->lhs);
    if (callee->this_escapes && !esc) {
        LangVar *v = lang_p_root_var(self->lhs);
        if (v)
            v->address_taken = true;
    }
    LangNode *lv = self->lhs;
    while (lv->kind == LND_MEMBER || lv->kind == LND_SWIZZLE || lv->kind == LND_ELEMENTS ||
           (lv->kind == LND_INDEX && lv->lhs->type->kind != LTY_POINTER)) {
        if (lv->kind == LND_INDEX)
            esc |= node_escapes(m, lv->rhs, depth + 1);
        lv = lv->lhs;
    }
    if (lv->kind == LND_DEREF ? !is_this(m, lv->lhs) : lv->kind != LND_VAR)
        esc |= node_escapes(m, lv->kind == LND_DEREF ? lv->lhs : lv, depth + 1);
    return esc;
}

/* Whether the statements or expressions from n on (through next) use `this` other than to
 * reach a member or to call a member function that keeps it in place. */
static bool escapes(LangMethod *m, LangNode *n, int depth)
{
    bool esc = false;
    if (depth > 2 * LANG_P_MAX_DEPTH)
        return false; /* deeper than the parser allows */
    for (; n; n = n->next) {
        if (n->kind == LND_CALL && n->func && takes_this(n->func) && n->args &&
            n->args->kind == LND_CAST) {
            esc |= this_arg_escapes(m, n->func, n->args->lhs, depth);
            esc |= escapes(m, n->args->next, depth + 1);
            continue;
        }
        if (is_this(m, n) || (n->kind == LND_ADDR && in_this(m, n->lhs))) {
            esc = true;
            continue;
        }
        if (n->kind == LND_DEREF && is_this(m, n->lhs))
            continue; /* *this, this->x */
        LangNode *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->inc, n->body,
                            n->args, n->kind == LND_SWITCH ? n->case_next : NULL};
        for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++)
            esc |= escapes(m, kids[i], depth + 1);
    }
    return esc;
}

static bool mark_escapes(LangMethod *m)
{
    if (!m->func->body || !escapes(m, m->func->body, 0))
        return false;
    if (m->is_ctor) { /* the object being built is a local of the constructor */
        m->this_var->address_taken = true;
        return false;
    }
    bool changed = !m->func->this_escapes;
    m->func->this_escapes = true;
    return changed;
}

static void mark_class_escapes(LangClass *cls);

/* Every member function body, parsed with the struct complete and the parser's state kept
 * for what follows the struct. */
static void method_bodies(LangParser *p, LangClass *cls)
{
    LangParser saved = *p;
    for (LangMethod *m = cls->methods; m; m = m->next)
        if (m->body)
            method_body(p, m);
    if (cls->implicit_ctor)
        method_body(p, cls->implicit_ctor);
    lang_p_restore(p, &saved);
    mark_class_escapes(cls);
}

/* The fixpoint over cls's member functions (again when a body defined after the struct is
 * parsed: what calls it may now escape). */
static void mark_class_escapes(LangClass *cls)
{
    for (bool changed = true; changed;) {
        changed = false;
        for (LangMethod *m = cls->methods; m; m = m->next)
            changed |= mark_escapes(m);
        /* member template instances the bodies made: marked when made, maybe before the
         * member functions they call were */
        for (LangTemplate *t = cls->member_tmpls; t; t = t->next)
            for (LangInstance *i = t->instances; i; i = i->next)
                changed |= i->method && i->method->func->body && mark_escapes(i->method);
        if (cls->implicit_ctor)
            mark_escapes(cls->implicit_ctor);
    }
}

// struct-decl = ident? ("{" member* "}")?
LangType *lang_p_struct_decl(LangParser *p, LangType *inst)
{
    LangToken *name = NULL;
    if (p->tok->kind == LTK_IDENT) {
        name = p->tok;
        lang_p_next(p);
    }
    if (lang_p_is(p->tok, "final"))
        lang_p_next(p);
    if (lang_p_is(p->tok, ":"))
        lang_error_at(p->ctx, p->tok, "inheritance is not supported yet");
    if (!lang_p_is(p->tok, "{")) {
        if (!name)
            lang_error_at(p->ctx, p->tok, "expected a struct name or '{'");
        LangSym *sym = lang_p_lookup(p, name);
        if (!sym || !sym->type || sym->type->kind != LTY_STRUCT)
            lang_error_at(p->ctx, name, "unknown struct '%.*s'", name->len, name->loc);
        return sym->type;
    }
    LangToken *open = p->tok;
    lang_p_next(p);
    LangType *ty = inst ? inst : lang_alloc(p->ctx, sizeof *ty);
    ty->kind = LTY_STRUCT;
    if (!inst)
        ty->name = name ? lang_p_name(p, name) : "(anonymous struct)";
    LangClass *cls = ty->cls ? ty->cls : lang_alloc(p->ctx, sizeof *cls);
    cls->type = ty;
    if (name)
        cls->name_tok = name;
    ty->cls = cls;
    if (cls->name_tok) /* its own members' declarations name it */
        lang_p_push_sym(p, cls->name_tok)->type = ty;
    lang_p_enter(p);
    cls->scope = p->scope;
    LangMember *members = NULL, **tail = &members;
    while (!lang_p_consume(p, "}")) {
        if (p->tok->kind == LTK_EOF)
            lang_error_at(p->ctx, open, "unterminated struct");
        member_decl(p, cls, &tail);
    }
    lang_p_leave(p);
    int offset = 0, align = 1;
    for (LangMember *m = members; m; m = m->next) {
        LangType *mt = m->type;
        offset = (offset + mt->align - 1) / mt->align * mt->align;
        m->offset = offset;
        if ((int64_t)offset + mt->size > LANG_MAX_OBJECT_BYTES)
            lang_error_at(p->ctx, m->tok, "the struct is too large (at most %d MiB)",
                          LANG_MAX_OBJECT_BYTES >> 20);
        offset += mt->size;
        if (mt->align > align)
            align = mt->align;
    }
    ty->members = members;
    ty->align = align;
    ty->size = (offset + align - 1) / align * align;
    if (ty->twin) { /* a const version made before the struct was complete */
        ty->twin->members = ty->members;
        ty->twin->align = ty->align;
        ty->twin->size = ty->size;
    }
    implicit_ctor(p, cls);
    if (cls->methods || cls->implicit_ctor)
        method_bodies(p, cls);
    return ty;
}

LangNode *lang_p_ctor_result(LangParser *p, LangToken *tok)
{
    return lang_p_var_node(p, p->method->this_var, tok);
}

// method-definition = declspec? ident "::" (ident | "operator" op) params qualifiers
//                     (mem-inits)? "{" ... "}"
// (at the "::"; ret NULL for a constructor): the body of a member function the struct
// declared, parsed now that the struct is complete.
void lang_p_method_define(LangParser *p, LangType *st, LangType *ret)
{
    LangClass *cls = st->cls;
    lang_p_skip(p, "::");
    LangToken *name = p->tok;
    if (name->kind != LTK_IDENT)
        lang_error_at(p->ctx, name, "expected a member function's name after '::'");
    lang_p_next(p);
    LangMethod want = {.cls = cls, .name_tok = name, .is_ctor = !ret};
    if (ret && lang_p_is(name, "operator")) /* `float V::operator[](int i) const { ... }` */
        want.op = lang_p_member_operator_name(p);
    if (!ret && !(cls->name_tok && lang_tok_equal(name, lang_p_name(p, cls->name_tok))))
        lang_error_at(p->ctx, name, "expected a return type before '%s::%.*s'", st->name,
                      name->len, name->loc);
    LangFunction f = {.is_method = true};
    LangScope *scope = p->scope;
    p->scope = cls->scope;
    lang_p_enter(p);
    want.params = p->scope;
    want.func = &f;
    f.params = lang_p_params(p, &f);
    method_qualifiers(p, &want);
    p->scope = scope;
    LangMethod *m = cls->methods;
    while (m && !same_signature(m, &want, f.params))
        m = m->next;
    if (!m)
        lang_error_at(p->ctx, name, "'%s' declares no member function '%s' with these "
                      "parameters", st->name, want.op ? want.op : lang_p_name(p, name));
    if (m->body || m->func->body)
        lang_error_at(p->ctx, name, "redefinition of '%s'", m->func->name);
    if (ret && !lang_same_type(ret, m->func->ret))
        lang_error_at(p->ctx, name, "'%s' is declared to return '%s'", m->func->name,
                      lang_type_name(p->ctx, m->func->ret));
    lang_p_merge_defaults(p, declared(m), f.params); /* defaults the struct gave */
    if (m->this_var && !m->is_ctor)
        m->this_var->next = f.params; /* the definition's parameter names */
    else
        m->func->params = f.params;
    m->params = want.params;
    m->body = p->tok;
    if (!lang_p_is(p->tok, "{") && !(m->is_ctor && lang_p_is(p->tok, ":")))
        lang_error_at(p->ctx, p->tok, "expected '{' after the parameters of '%s'",
                      m->func->name);
    LangParser saved = *p;
    method_body(p, m);
    LangToken *tok = p->tok, *prev = p->prev;
    lang_p_restore(p, &saved);
    p->tok = tok;
    p->prev = prev;
    mark_class_escapes(cls);
}


LangMethod *lang_p_member_instance_decl(LangParser *p, LangClass *cls)
{
    LangMethod *made = NULL, **outer = cls->instance_out;
    LangMember *data = NULL, **tail = &data;
    LangToken *at = p->tok;
    cls->instance_out = &made;
    member_decl(p, cls, &tail);
    cls->instance_out = outer;
    if (!made || data || made->is_ctor)
        lang_error_at(p->ctx, at, "only member functions can be member templates here (not "
                      "data members, constructors or nested structs)");
    return made;
}

void lang_p_member_instance_body(LangParser *p, LangMethod *m)
{
    if (m->func->body || !m->body || m->in_body)
        return;
    LangParser saved = *p;
    p->inst_depth++;
    m->in_body = true;
    method_body(p, m);
    m->in_body = false;
    lang_p_restore(p, &saved);
    lang_p_add_function(p, m->func);
    mark_escapes(m); /* what it calls was marked when made */
}
