/*
 * parse_access.c — the postfix accesses of an expression: a struct's member (`s.x`,
 * `p->x`, and the members of the built-in matrix and tensor types), a vector's swizzle
 * (`v.zyx`, `c.rgba`), and an index into an array, a pointer or a vector, with the bounds
 * a constant index must keep. parse_expr.c's postfix loop calls these.
 */
#include <string.h>

#include "parse.h"

/* .xyzw / .rgba on a vector. */
static LangNode *swizzle(LangParser *p, LangNode *lhs, LangToken *name)
{
    LangType *vt = lhs->type;
    LangNode *node = lang_p_new_node(p, LND_SWIZZLE, name);
    node->lhs = lhs;
    if (name->len > 4)
        lang_error_at(p->ctx, name, "a swizzle selects at most 4 components");
    int set = -1;
    for (int i = 0; i < name->len; i++) {
        const char *c = strchr("xyzw", name->loc[i]);
        int s = 0;
        if (!c || !name->loc[i]) {
            c = strchr("rgba", name->loc[i]);
            s = 1;
        }
        if (!c || !name->loc[i] || (set >= 0 && set != s))
            lang_error_at(p->ctx, name, "invalid swizzle '%.*s' on '%s' (use x y z w or r g b "
                          "a)", name->len, name->loc, lang_type_name(p->ctx, vt));
        set = s;
        int idx = (int)(c - (s ? "rgba" : "xyzw"));
        if (idx >= vt->len)
            lang_error_at(p->ctx, name, "swizzle component '%c' is out of range for '%s'",
                          name->loc[i], lang_type_name(p->ctx, vt));
        node->swizzle[i] = (uint8_t)idx;
    }
    node->swizzle_len = name->len;
    LangType *elem = lang_qualified(p->ctx, vt->base, vt->is_const);
    node->type = name->len == 1 ? elem
                                : lang_qualified(p->ctx, lang_vector_of(p->ctx, vt->base,
                                                                        name->len, false),
                                                 vt->is_const);
    return node;
}

LangNode *lang_p_member(LangParser *p, LangNode *lhs, LangToken *name)
{
    LangType *ty = lhs->type;
    if (ty->kind == LTY_VECTOR)
        return swizzle(p, lhs, name);
    if (ty->kind == LTY_SGMATRIX)
        return lang_p_matrix_member(p, lhs, name);
    if (ty->tensor)
        return lang_p_tensor_member(p, lhs, name);
    if (ty->texture)
        return lang_p_texture_member(p, lhs, name);
    if (ty->vote)
        return lang_p_vote_member(p, lhs, name);
    if (ty->kind != LTY_STRUCT)
        lang_error_at(p->ctx, name, "member reference base type '%s' is not a structure",
                      lang_type_name(p->ctx, ty));
    for (LangMember *m = ty->members; m; m = m->next) {
        if (strlen(m->name) != (size_t)name->len || memcmp(m->name, name->loc, (size_t)name->len))
            continue;
        LangNode *node = lang_p_new_node(p, LND_MEMBER, name);
        node->lhs = lhs;
        node->member = m;
        node->type = ty->is_const ? lang_qualified(p->ctx, m->type, true) : m->type;
        return node;
    }
    for (LangMethod *m = ty->cls ? ty->cls->methods : NULL; m; m = m->next)
        if (!m->is_ctor && lang_tok_equal(name, lang_p_name(p, m->name_tok)))
            lang_error_at(p->ctx, name, "member function '%s' must be called", m->func->name);
    lang_error_at(p->ctx, name, "no member named '%.*s' in '%s'", name->len, name->loc,
                  lang_type_name(p->ctx, ty));
}

// index = postfix "[" expr "]"   (after the "[")
LangNode *lang_p_index(LangParser *p, LangNode *lhs, LangToken *tok, bool addr_of)
{
    LangToken *at = p->tok;
    LangNode *idx = lang_p_expr(p);
    lang_p_skip(p, "]");
    /* the & applies to this index only when no other postfix operator follows */
    addr_of = addr_of && !lang_p_is(p->tok, "[") && !lang_p_is(p->tok, ".") &&
              !lang_p_is(p->tok, "->") && !lang_p_is(p->tok, "++") && !lang_p_is(p->tok, "--");
    const LangType *coop = lhs->type->tensor && lhs->type->tensor->kind == LTN_COOP
                               ? lhs->type : NULL;
    if (coop)
        lhs = lang_p_tensor_elements(p, lhs); /* ct[i]: this thread's element i */
    LangType *ty = lhs->type;
    LangNode *node = lang_p_new_node(p, LND_INDEX, tok);
    node->lhs = lhs;
    node->rhs = idx;
    node->addr_only = addr_of && ty->kind == LTY_ARRAY && !coop;
    if (!lang_is_integer(idx->type))
        lang_error_soft(p->ctx, at, "array subscript is not an integer ('%s')",
                        lang_type_name(p->ctx, idx->type));
    else if (idx->type->size < 4)
        node->rhs = lang_p_cast(p, idx, lang_ty_int, at, false);
    if (ty->kind == LTY_POINTER) {
        node->type = ty->base;
    } else if (ty->kind == LTY_ARRAY || ty->kind == LTY_VECTOR) {
        node->type = ty->is_const ? lang_qualified(p->ctx, ty->base, true) : ty->base;
        int64_t v;
        LangVar *var = lang_p_root_var(lhs);
        if (lang_p_eval(p, idx, &v)) {
            if ((v < 0 || v >= ty->len) && coop)
                lang_error_soft(p->ctx, at, "index %lld is outside the cooperative tensor: each "
                                "thread holds %d elements (get_capacity())", (long long)v,
                                ty->len);
            else if (v < 0 || v > ty->len || (v == ty->len && !node->addr_only))
                lang_error_soft(p->ctx, at, "index %lld is past the end of '%s'%s", (long long)v,
                                lang_type_name(p->ctx, ty),
                                v == ty->len && ty->kind == LTY_ARRAY
                                    ? " (only its address, one past the end, may be taken: "
                                      "&array[N])" : "");
        } else if (var && ty->kind == LTY_ARRAY) {
            var->dyn_indexed = true; /* codegen_unroll.c: registers or memory */
        }
    } else {
        lang_error_at(p->ctx, tok, "subscripted value '%s' is not an array, pointer or vector",
                      lang_type_name(p->ctx, ty));
    }
    return node;
}

void lang_p_index_used(LangParser *p, LangNode *node)
{
    int64_t v;
    if (node->kind != LND_INDEX || !node->addr_only)
        return;
    node->addr_only = false;
    if (node->lhs->type->kind == LTY_ARRAY && lang_p_eval(p, node->rhs, &v) &&
        v == node->lhs->type->len)
        lang_error_soft(p->ctx, node->rhs->tok, "index %lld is past the end of '%s'",
                        (long long)v, lang_type_name(p->ctx, node->lhs->type));
}
