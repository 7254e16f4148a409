/*
 * parse_stmt.c — statements, block scopes and local declarations, plus the token and scope
 * helpers every parser file uses. A name lives from its declaration to the end of its block,
 * so a variable used after its `for` or `{}` is simply undeclared there. Threadgroup
 * variables of a kernel body get their offsets here, in declaration order.
 */
#include <string.h>

#include "parse.h"

/* ---- tokens -------------------------------------------------------------------------------- */

bool lang_p_is(const LangToken *tok, const char *s)
{
    size_t n = strlen(s);
    return tok->kind != LTK_STR && tok->kind != LTK_EOF && (size_t)tok->len == n &&
           memcmp(tok->loc, s, n) == 0;
}

bool lang_p_is_name(const LangToken *tok)
{
    return tok->kind == LTK_IDENT || tok->kind == LTK_KEYWORD;
}

void lang_p_next(LangParser *p)
{
    if (p->tok->kind == LTK_EOF)
        return;
    p->prev = p->tok;
    p->tok = p->tok->next;
}

bool lang_p_consume(LangParser *p, const char *s)
{
    if (!lang_p_is(p->tok, s))
        return false;
    lang_p_next(p);
    return true;
}

void lang_p_skip(LangParser *p, const char *s)
{
    if (!lang_p_consume(p, s))
        lang_error_at(p->ctx, p->tok, "expected '%s'", s);
}

void lang_p_expect_semi(LangParser *p)
{
    if (lang_p_consume(p, ";"))
        return;
    const LangToken *prev = p->prev;
    while (prev && prev->origin)
        prev = prev->origin;
    if (!prev || !prev->file)
        lang_error_at(p->ctx, p->tok, "expected ';'");
    lang_error_pos(p->ctx, prev->file, prev->loc + prev->len, "expected ';'");
}

char *lang_p_name(LangParser *p, const LangToken *tok)
{
    return lang_strndup(p->ctx, tok->loc, (size_t)tok->len);
}

/* ---- scopes -------------------------------------------------------------------------------- */

void lang_p_enter(LangParser *p)
{
    LangScope *s = lang_alloc(p->ctx, sizeof *s);
    s->up = p->scope;
    p->scope = s;
}

void lang_p_leave(LangParser *p)
{
    p->scope = p->scope->up;
}

LangSym *lang_p_lookup(LangParser *p, const LangToken *tok)
{
    for (LangScope *s = p->scope; s; s = s->up)
        for (LangSym *sym = s->syms; sym; sym = sym->next)
            if (sym->len == tok->len && memcmp(sym->name, tok->loc, (size_t)tok->len) == 0)
                return sym;
    return NULL;
}

LangSym *lang_p_lookup_in_scope(LangParser *p, const LangToken *tok)
{
    for (LangSym *sym = p->scope->syms; sym; sym = sym->next)
        if (sym->len == tok->len && memcmp(sym->name, tok->loc, (size_t)tok->len) == 0)
            return sym;
    return NULL;
}

LangSym *lang_p_push_sym(LangParser *p, const LangToken *tok)
{
    for (LangSym *sym = p->scope->syms; sym; sym = sym->next)
        if (sym->len == tok->len && memcmp(sym->name, tok->loc, (size_t)tok->len) == 0 &&
            !sym->func && !sym->tmpl)
            lang_error_soft(p->ctx, tok, "redefinition of '%.*s'", tok->len, tok->loc);
    LangSym *sym = lang_alloc(p->ctx, sizeof *sym);
    sym->name = tok->loc;
    sym->len = tok->len;
    sym->next = p->scope->syms;
    p->scope->syms = sym;
    return sym;
}

LangVar *lang_p_new_var(LangParser *p, LangToken *tok, LangType *ty, LangVarKind kind)
{
    LangVar *v = lang_alloc(p->ctx, sizeof *v);
    v->name = lang_p_name(p, tok);
    v->type = ty;
    v->tok = tok;
    v->kind = kind;
    v->id = p->next_var_id++;
    lang_p_push_sym(p, tok)->var = v;
    return v;
}

/* ---- statements ---------------------------------------------------------------------------- */

static LangNode *stmt(LangParser *p);

static LangNode *new_stmt(LangParser *p, LangNodeKind kind, LangToken *tok)
{
    return lang_p_new_node(p, kind, tok);
}

/* A name followed by a name (`Foo x`) where Foo is no type: an unknown type name. */
static bool looks_like_bad_decl(LangParser *p)
{
    LangToken *t = p->tok;
    if (t->kind != LTK_IDENT || lang_p_lookup(p, t) || !lang_p_is_name(t->next))
        return false;
    LangToken *n = t->next->next;
    return t->next->kind == LTK_IDENT &&
           (lang_p_is(n, "=") || lang_p_is(n, ";") || lang_p_is(n, "[") || lang_p_is(n, ","));
}

void lang_p_add_local(LangParser *p, LangVar *v)
{
    if (!p->fn)
        return;
    if (p->locals_tail)
        p->locals_tail->next = v;
    else
        p->fn->locals = v;
    p->locals_tail = v;
}

// initializer = "{" (initializer ("," initializer)* ","?)? "}" | assign
LangNode *lang_p_initializer(LangParser *p, LangType *ty)
{
    LangToken *start = p->tok;
    if (p->depth > LANG_P_MAX_DEPTH)
        lang_error_at(p->ctx, start, "initializer nests too deeply");
    if (ty->vote && lang_p_is(p->tok, "{"))
        return lang_p_vote_construct(p, ty, start);
    if (!lang_p_is(p->tok, "{")) {
        LangNode *e = lang_p_assign(p);
        return lang_p_convert(p, e, ty, start);
    }
    lang_p_next(p);
    LangNode *node = lang_p_new_node(p, LND_CONSTRUCT, start);
    node->type = ty;
    LangNode head = {0}, *cur = &head;
    LangMember *mem = ty->kind == LTY_STRUCT ? ty->members : NULL;
    int count = 0, limit = ty->kind == LTY_STRUCT ? -1 : ty->kind == LTY_ARRAY ? ty->len
                                                   : ty->kind == LTY_VECTOR ? ty->len : 1;
    while (!lang_p_is(p->tok, "}")) {
        if (count && !lang_p_consume(p, ","))
            lang_error_at(p->ctx, p->tok, "expected ',' or '}'");
        if (lang_p_is(p->tok, "}"))
            break;
        LangToken *at = p->tok;
        LangType *et;
        if (ty->kind == LTY_STRUCT) {
            if (!mem)
                lang_error_at(p->ctx, at, "too many initializers for '%s'",
                              lang_type_name(p->ctx, ty));
            et = mem->type;
            mem = mem->next;
        } else if (ty->kind == LTY_ARRAY || ty->kind == LTY_VECTOR) {
            et = ty->base;
        } else {
            et = ty;
        }
        if (limit >= 0 && count >= limit)
            lang_error_at(p->ctx, at, "too many initializers for '%s'",
                          lang_type_name(p->ctx, ty));
        p->depth++;
        cur = cur->next = lang_p_initializer(p, lang_qualified(p->ctx, et, false));
        p->depth--;
        count++;
    }
    lang_p_skip(p, "}");
    if (ty->kind == LTY_STRUCT && (cur->next = lang_p_member_defaults(p, ty, mem, start)))
        for (; cur->next; cur = cur->next)
            count++; /* default member initializers (parse_struct.c) */
    if (ty->kind == LTY_VECTOR && count != ty->len && count != 1 && count)
        lang_error_soft(p->ctx, start, "a '%s' initializer needs %d elements, not %d",
                        lang_type_name(p->ctx, ty), ty->len, count);
    if (lang_is_scalar(ty)) {
        if (count != 1)
            lang_error_at(p->ctx, start, "a scalar initializer needs exactly one value");
        return head.next;
    }
    node->args = head.next;
    node->num_args = count;
    return node;
}

// local-decl = declspec (declarator ("=" initializer | initializer)?
//              ("," declarator ...)*)? ";"
/* `auto`, after `const` or `constexpr` if any: a local whose type is its initializer's. */
static bool auto_ahead(LangParser *p, bool *is_const)
{
    LangToken *t = p->tok;
    *is_const = false;
    while (lang_p_is(t, "const") || lang_p_is(t, "constexpr")) {
        *is_const = true;
        t = t->next;
    }
    if (!lang_p_is(t, "auto"))
        return false;
    while (p->tok != t)
        lang_p_next(p);
    lang_p_next(p);
    return true;
}

/* The type `auto NAME = value` deduces: value's, without const (the declaration's own
 * const applies), as C++ deduces it for the types lockstep has. */
static LangType *deduce(LangParser *p, LangToken *name, LangNode **init, bool is_const)
{
    LangToken *eq = p->tok;
    if (!lang_p_consume(p, "="))
        lang_error_at(p->ctx, lang_p_is(eq, "{") ? eq : name,
                      "'auto' needs an initializer after '=' to take its type from "
                      "(`auto %.*s = value;`)", name->len, name->loc);
    if (lang_p_is(p->tok, "{"))
        lang_error_at(p->ctx, p->tok, "'auto' cannot take a type from a brace list; write the "
                      "type");
    *init = lang_p_assign(p);
    LangType *ty = (*init)->type;
    if (ty->kind == LTY_VOID || ty->kind == LTY_FUNC || (ty->kind == LTY_ARRAY && !ty->matrix) ||
        ty->kind == LTY_ATOMIC || ty->kind == LTY_ENUM_MEM_FLAGS ||
        ty->kind == LTY_ENUM_MEMORY_ORDER)
        lang_error_at(p->ctx, (*init)->tok, "'auto' cannot take its type from a value of type "
                      "'%s'; write the type", lang_type_name(p->ctx, ty));
    return lang_qualified(p->ctx, ty, is_const);
}

/* `SPACE T &name = lvalue`: the address of the lvalue, read and written through by every use
 * of name (as a reference parameter is). */
static LangNode *reference_init(LangParser *p, LangToken *name, LangType *ty)
{
    if (!lang_p_consume(p, "="))
        lang_error_at(p->ctx, name, "reference '%.*s' needs an initializer (`= variable;`)",
                      name->len, name->loc);
    LangToken *at = p->tok;
    LangNode *a = lang_p_assign(p);
    if (!lang_p_is_lvalue(a) || a->kind == LND_SWIZZLE || a->kind == LND_ELEMENTS ||
        !lang_same_type(a->type, ty->base) || lang_p_lvalue_space(a) != ty->space) {
        lang_error_soft(p->ctx, at, "cannot bind '%s' to a reference of type '%s'",
                        lang_type_name(p->ctx, a->type), lang_type_name(p->ctx, ty));
    } else if (a->type->is_const && !ty->base->is_const) {
        lang_error_soft(p->ctx, at, "binding a const value to a non-const reference");
    }
    LangVar *root = lang_p_root_var(a);
    if (root)
        root->address_taken = true;
    LangNode *addr = lang_p_new_node(p, LND_ADDR, at);
    addr->lhs = a;
    addr->type = lang_qualified(p->ctx, ty, false);
    return addr;
}

LangNode *lang_p_local_decl(LangParser *p)
{
    LangToken *start = p->tok;
    LangAddrSpace space = LAS_THREAD;
    bool has_space = false, auto_const;
    const bool is_auto = auto_ahead(p, &auto_const);
    LangType *base = is_auto ? NULL : lang_p_declspec(p, &space, &has_space);
    if (!is_auto && lang_p_consume(p, ";"))
        return new_stmt(p, LND_NULL_STMT, start); /* a local struct or enum definition */
    LangNode head = {0}, *cur = &head;
    int n = 0;
    do {
        LangToken *name = NULL;
        LangType *ty = NULL;
        LangNode *init = NULL;
        if (is_auto) {
            name = p->tok;
            if (name->kind != LTK_IDENT)
                lang_error_at(p->ctx, name, "expected a variable name after 'auto' (lockstep "
                              "deduces `auto NAME = value;`; write the type for pointers, "
                              "references and arrays)");
            lang_p_next(p);
            ty = deduce(p, name, &init, auto_const);
        } else {
            ty = lang_p_declarator(p, base, space, has_space, &name);
        }
        if (!name)
            lang_error_at(p->ctx, p->tok, "expected a variable name");
        if (ty->kind == LTY_VOID)
            lang_error_at(p->ctx, name, "variable '%.*s' has type void", name->len, name->loc);
        if (ty->is_reference)
            init = reference_init(p, name, ty);
        /* the space of a pointer (or of an array's pointers) is its pointee's: the variable
         * itself is the thread's (`threadgroup float *rows[2]`) */
        const LangType *leaf = ty;
        while (leaf->kind == LTY_ARRAY)
            leaf = leaf->base;
        bool is_tg = has_space && space == LAS_THREADGROUP && leaf->kind != LTY_POINTER;
        if (has_space && leaf->kind != LTY_POINTER && (space == LAS_DEVICE ||
                                                        space == LAS_CONSTANT))
            lang_error_soft(p->ctx, start, "a local variable cannot be in the %s address space "
                            "(program-scope `constant` values go outside functions)",
                            space == LAS_DEVICE ? "device" : "constant");
        if (is_tg && (!p->fn || !p->fn->is_kernel))
            lang_error_soft(p->ctx, name, "threadgroup variables can only be declared in a "
                            "kernel function");
        /* The initializer sees the outer name (C would see the new one; MSL code never
         * relies on either), so parse it before declaring. */
        LangToken *eq = p->tok;
        if (is_auto || ty->is_reference) {
            /* parsed above, with the type it gave */
        } else if (lang_p_consume(p, "=")) {
            if (is_tg)
                lang_error_soft(p->ctx, eq, "threadgroup variables cannot have an initializer");
            if (!lang_p_is(p->tok, "{") ||
                !(init = lang_p_class_construct(p, ty, p->tok))) /* `= {a, b}`: a constructor's */
                init = lang_p_initializer(p, lang_qualified(p->ctx, ty, false));
        } else if (lang_p_is(p->tok, "{") ) {
            if (!(init = lang_p_class_construct(p, ty, p->tok)))
                init = lang_p_initializer(p, lang_qualified(p->ctx, ty, false));
        } else if (ty->vote && !is_tg) { /* `simd_vote v(m);`, and `simd_vote v;` is 0 */
            LangType *vt = lang_qualified(p->ctx, ty, false);
            init = lang_p_is(p->tok, "(") ? lang_p_vote_construct(p, vt, eq)
                                          : lang_p_vote_cast(p, lang_p_num(p, name, lang_ty_uint, 0,
                                                                           0), vt, name, true);
        } else if (lang_p_is(p->tok, "(") && !is_tg) { /* `T x(args)`: as `T x = T(args)` */
            init = lang_p_construct(p, ty, name);
        } else if (ty->sampler && !is_tg) { /* `constexpr sampler s;`: the defaults */
            init = lang_p_sampler_construct(p, ty, name);
        } else if (!is_tg && (init = lang_p_default_init(p, ty, name)) != NULL) {
            /* `T x;` of a struct with a default constructor (or of an array of them) */
        } else if (ty->is_const && !is_tg) {
            lang_error_soft(p->ctx, name, "const variable '%.*s' needs an initializer",
                            name->len, name->loc);
        }
        if (ty->sampler && init && init->type->sampler) /* its settings are its type's */
            ty = lang_qualified(p->ctx, init->type, ty->is_const);
        LangVar *v = lang_p_new_var(p, name, ty, is_tg ? LVAR_THREADGROUP : LVAR_LOCAL);
        v->space = is_tg ? LAS_THREADGROUP : LAS_THREAD;
        if (ty->is_const && init)
            v->init = init;
        v->decl_init = init;
        if (is_tg) {
            int align = ty->align ? ty->align : 1;
            p->tg_bytes = (p->tg_bytes + align - 1) / align * align;
            v->tg_offset = p->tg_bytes;
            p->tg_bytes += ty->size;
        }
        lang_p_add_local(p, v);
        LangNode *d = new_stmt(p, LND_DECL, name);
        d->var = v;
        d->init = init;
        cur = cur->next = d;
        n++;
    } while (lang_p_consume(p, ","));
    lang_p_expect_semi(p);
    if (n == 1)
        return head.next;
    LangNode *block = new_stmt(p, LND_BLOCK, start);
    block->body = head.next;
    return block;
}

/* A statement that starts with a type declares; `S::f(x);` (a struct's static member) is
 * an expression. */
static bool starts_decl(LangParser *p)
{
    if (!lang_p_is_typename(p, p->tok))
        return false;
    LangSym *sym = lang_p_is(p->tok->next, "::") ? lang_p_lookup(p, p->tok) : NULL;
    return !sym || !sym->type || !sym->type->cls;
}

/* Statements up to the next case label or the end of the switch body. */
static LangNode *case_body(LangParser *p, LangToken *tok)
{
    LangNode *block = new_stmt(p, LND_BLOCK, tok);
    LangNode head = {0}, *cur = &head;
    while (!lang_p_is(p->tok, "case") && !lang_p_is(p->tok, "default") &&
           !lang_p_is(p->tok, "}") && p->tok->kind != LTK_EOF) {
        LangNode *s = starts_decl(p) ? lang_p_local_decl(p) : stmt(p);
        cur = cur->next = s;
    }
    block->body = head.next;
    return block;
}

// switch-body = "{" (stmt* | ("case" const-expr ":" | "default" ":") stmt*)* "}"
static LangNode *switch_body(LangParser *p, LangNode *sw)
{
    LangToken *open = p->tok;
    lang_p_skip(p, "{");
    lang_p_enter(p);
    LangNode *block = new_stmt(p, LND_BLOCK, open);
    LangNode head = {0}, *cur = &head, *last_case = NULL;
    bool seen_default = false;
    cur = cur->next = case_body(p, open); /* statements before the first label (unreachable) */
    while (!lang_p_consume(p, "}")) {
        LangToken *tok = p->tok;
        if (tok->kind == LTK_EOF)
            lang_error_at(p->ctx, tok, "expected '}'");
        LangNode *c = new_stmt(p, LND_CASE, tok);
        if (lang_p_consume(p, "default")) {
            if (seen_default)
                lang_error_soft(p->ctx, tok, "multiple default labels in one switch");
            seen_default = true;
            c->is_default = true;
        } else {
            lang_p_skip(p, "case");
            LangNode *v = lang_p_cond(p);
            int64_t val = 0;
            if (!lang_p_eval(p, v, &val) || !lang_is_integer(v->type)) {
                lang_error_soft(p->ctx, tok->next, "case value is not an integer constant");
                val = INT64_MIN; /* matches no other label */
            } else {
                for (LangNode *o = sw->case_next; o; o = o->case_next)
                    if (!o->is_default && o->case_value == val)
                        lang_error_soft(p->ctx, tok->next, "duplicate case value %lld",
                                        (long long)val);
            }
            c->case_value = val;
        }
        lang_p_skip(p, ":");
        c->body = case_body(p, tok);
        if (last_case)
            last_case->case_next = c;
        else
            sw->case_next = c;
        last_case = c;
        cur = cur->next = c;
    }
    lang_p_leave(p);
    block->body = head.next;
    return block;
}

static LangNode *stmt_inner(LangParser *p);

static LangNode *stmt(LangParser *p)
{
    if (++p->depth > LANG_P_MAX_DEPTH)
        lang_error_at(p->ctx, p->tok, "expression or statement nests too deeply");
    LangNode *node = stmt_inner(p);
    p->depth--;
    return node;
}

// if-constexpr = "if" "constexpr" "(" constant-expr ")" stmt ("else" stmt)?
// Only the taken branch is parsed (the other is skipped as tokens, parse_traits.c): in a
// template instance the discarded one may not fit the instance's types, as in C++.
static LangNode *if_constexpr(LangParser *p, LangToken *tok)
{
    lang_p_next(p);
    lang_p_next(p);
    lang_p_skip(p, "(");
    const bool taken = lang_p_constexpr_cond(p);
    lang_p_skip(p, ")");
    LangNode *node = new_stmt(p, LND_BLOCK, tok); /* empty when no branch is taken */
    if (taken) {
        lang_p_enter(p);
        node = stmt(p);
        lang_p_leave(p);
    } else {
        lang_p_skip_stmt(p);
    }
    if (lang_p_consume(p, "else")) {
        if (taken) {
            lang_p_skip_stmt(p);
        } else {
            lang_p_enter(p);
            node = stmt(p);
            lang_p_leave(p);
        }
    }
    return node;
}

// stmt = "return" (expr | "{" args "}")? ";"
//      | "if" "(" expr ")" stmt ("else" stmt)?
//      | if-constexpr
//      | "switch" "(" expr ")" switch-body
//      | "for" "(" (local-decl | expr? ";") expr? ";" expr? ")" stmt
//      | "while" "(" expr ")" stmt
//      | "do" stmt "while" "(" expr ")" ";"
//      | "break" ";" | "continue" ";"
//      | "{" compound
//      | ";"
//      | local-decl
//      | expr ";"
static LangNode *stmt_inner(LangParser *p)
{
    LangToken *tok = p->tok;
    if (lang_p_is(tok, "static_assert")) {
        lang_p_static_assert(p);
        return new_stmt(p, LND_BLOCK, tok);
    }
    if (lang_p_consume(p, "return")) {
        LangNode *node = new_stmt(p, LND_RETURN, tok);
        LangType *ret = p->fn ? p->fn->ret : lang_ty_void;
        if (!lang_p_is(p->tok, ";")) {
            LangToken *at = p->tok;
            /* `return {a, b};`: the return type built from the list, as `T{a, b}` */
            if (lang_p_is(at, "{") && ret->kind == LTY_VOID)
                lang_error_at(p->ctx, at, "void function should not return a value");
            LangNode *e = lang_p_is(at, "{") && ret->kind != LTY_VOID &&
                                  !(ret->kind == LTY_POINTER && ret->is_reference)
                              ? lang_p_construct(p, lang_qualified(p->ctx, ret, false), at)
                              : lang_p_expr(p);
            if (ret->kind == LTY_VOID)
                lang_error_soft(p->ctx, at, "void function should not return a value");
            else if (ret->kind == LTY_POINTER && ret->is_reference) /* a member's `T& f()` */
                node->lhs = lang_p_return_ref(p, e, ret, at); /* parse_functor.c */
            else
                node->lhs = lang_p_convert(p, e, lang_qualified(p->ctx, ret, false), at);
        } else if (p->method && p->method->is_ctor) {
            node->lhs = lang_p_ctor_result(p, tok); /* the object built so far */
        } else if (ret->kind != LTY_VOID) {
            lang_error_soft(p->ctx, tok, "non-void function should return a value");
        }
        lang_p_expect_semi(p);
        return node;
    }
    if (lang_p_is(tok, "if") && lang_p_is(tok->next, "constexpr"))
        return if_constexpr(p, tok);
    if (lang_p_consume(p, "if")) {
        LangNode *node = new_stmt(p, LND_IF, tok);
        lang_p_skip(p, "(");
        node->cond = lang_p_to_bool(p, lang_p_expr(p));
        lang_p_skip(p, ")");
        lang_p_enter(p);
        node->then = stmt(p);
        lang_p_leave(p);
        if (lang_p_consume(p, "else")) {
            lang_p_enter(p);
            node->els = stmt(p);
            lang_p_leave(p);
        }
        return node;
    }
    if (lang_p_consume(p, "switch")) {
        LangNode *node = new_stmt(p, LND_SWITCH, tok);
        lang_p_skip(p, "(");
        LangToken *at = p->tok;
        LangNode *c = lang_p_expr(p);
        if (!lang_is_integer(c->type))
            lang_error_soft(p->ctx, at, "switch condition has type '%s', not an integer",
                            lang_type_name(p->ctx, c->type));
        else if (c->type->size < 4)
            c = lang_p_convert(p, c, lang_ty_int, at); /* integer promotion */
        node->cond = c;
        lang_p_skip(p, ")");
        p->switch_depth++;
        node->body = switch_body(p, node);
        p->switch_depth--;
        return node;
    }
    if (lang_p_consume(p, "for")) {
        LangNode *node = new_stmt(p, LND_FOR, tok);
        lang_p_skip(p, "(");
        lang_p_enter(p);
        if (lang_p_is_typename(p, p->tok)) {
            node->init = lang_p_local_decl(p);
        } else if (!lang_p_consume(p, ";")) {
            LangNode *e = new_stmt(p, LND_EXPR_STMT, p->tok);
            e->lhs = lang_p_expr(p);
            node->init = e;
            lang_p_expect_semi(p);
        }
        if (!lang_p_is(p->tok, ";"))
            node->cond = lang_p_to_bool(p, lang_p_expr(p));
        lang_p_expect_semi(p);
        if (!lang_p_is(p->tok, ")"))
            node->inc = lang_p_expr(p);
        lang_p_skip(p, ")");
        p->loop_depth++;
        node->body = stmt(p);
        p->loop_depth--;
        lang_p_leave(p);
        return node;
    }
    if (lang_p_consume(p, "while")) {
        LangNode *node = new_stmt(p, LND_FOR, tok);
        lang_p_skip(p, "(");
        node->cond = lang_p_to_bool(p, lang_p_expr(p));
        lang_p_skip(p, ")");
        p->loop_depth++;
        lang_p_enter(p);
        node->body = stmt(p);
        lang_p_leave(p);
        p->loop_depth--;
        return node;
    }
    if (lang_p_consume(p, "do")) {
        LangNode *node = new_stmt(p, LND_DO, tok);
        p->loop_depth++;
        lang_p_enter(p);
        node->body = stmt(p);
        lang_p_leave(p);
        p->loop_depth--;
        lang_p_skip(p, "while");
        lang_p_skip(p, "(");
        node->cond = lang_p_to_bool(p, lang_p_expr(p));
        lang_p_skip(p, ")");
        lang_p_expect_semi(p);
        return node;
    }
    if (lang_p_consume(p, "break")) {
        if (!p->loop_depth && !p->switch_depth)
            lang_error_soft(p->ctx, tok, "'break' outside a loop or switch");
        lang_p_expect_semi(p);
        return new_stmt(p, LND_BREAK, tok);
    }
    if (lang_p_consume(p, "continue")) {
        if (!p->loop_depth)
            lang_error_soft(p->ctx, tok, "'continue' outside a loop");
        lang_p_expect_semi(p);
        return new_stmt(p, LND_CONTINUE, tok);
    }
    if (lang_p_is(tok, "goto") || (tok->kind == LTK_IDENT && lang_p_is(tok->next, ":")))
        lang_error_at(p->ctx, tok, "goto and labels are not supported");
    if (lang_p_is(p->tok, "case") || lang_p_is(p->tok, "default"))
        lang_error_at(p->ctx, tok, "'%.*s' label not directly inside a switch body", tok->len,
                      tok->loc);
    if (lang_p_consume(p, "{")) {
        lang_p_enter(p);
        LangNode *b = lang_p_compound(p, tok);
        lang_p_leave(p);
        return b;
    }
    if (lang_p_consume(p, ";"))
        return new_stmt(p, LND_NULL_STMT, tok);
    if (starts_decl(p))
        return lang_p_local_decl(p);
    if (looks_like_bad_decl(p))
        lang_error_at(p->ctx, tok, "unknown type name '%.*s'", tok->len, tok->loc);
    LangNode *node = new_stmt(p, LND_EXPR_STMT, tok);
    node->lhs = lang_p_expr(p);
    lang_p_expect_semi(p);
    return node;
}

// compound = stmt* "}"    (the caller has consumed "{" and opened the scope)
LangNode *lang_p_compound(LangParser *p, LangToken *open)
{
    LangNode *block = new_stmt(p, LND_BLOCK, open);
    LangNode head = {0}, *cur = &head;
    while (!lang_p_consume(p, "}")) {
        if (p->tok->kind == LTK_EOF)
            lang_error_at(p->ctx, p->tok, "expected '}' (to match the '{' at line %d)",
                          open->line);
        cur = cur->next = stmt(p);
    }
    block->body = head.next;
    return block;
}
