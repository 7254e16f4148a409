/*
 * parse_vote.c — simd_vote and quad_vote in the front end: the types (and their vote_t),
 * their explicit constructor, their explicit conversion to vote_t, and the members all()
 * and any().
 *
 * MSL declares them as classes around one integer: simd_vote holds a uint64_t (bit i for
 * lane i), quad_vote a uint (bits 0-3 for the quad's lanes; its constructor clears the
 * rest). Here each is a struct of that one member, so locals, copies, helper parameters,
 * struct members and arrays work as for any struct, marked with LangType.vote so that the
 * conversions follow MSL's rules: both ways they are explicit (`simd_vote(m)`,
 * `static_cast<ulong>(v)`), and the conversion operator yields exactly vote_t, so
 * `uint(v)` of a simd_vote is refused as C++ refuses it. A vote is no condition either:
 * `if (v)` says to use v.any() or v.all().
 */
#include <string.h>

#include "parse.h"

static const char *const vote_names[2] = {"simd_vote", "quad_vote"};

static LangType *vote_t_of(const LangType *vote)
{
    return vote->vote == LANG_VOTE_SIMD ? lang_ty_ulong : lang_ty_uint;
}

LangType *lang_p_vote_type(LangParser *p, bool quad)
{
    if (p->vote_types[quad])
        return p->vote_types[quad];
    LangMember *m = lang_alloc(p->ctx, sizeof *m);
    m->name = "__vote";
    m->type = quad ? lang_ty_uint : lang_ty_ulong;
    LangType *ty = lang_alloc(p->ctx, sizeof *ty);
    ty->kind = LTY_STRUCT;
    ty->name = (char *)vote_names[quad];
    ty->size = ty->align = m->type->size;
    ty->members = m;
    ty->vote = quad ? LANG_VOTE_QUAD : LANG_VOTE_SIMD;
    return p->vote_types[quad] = ty;
}

LangType *lang_p_vote_named(LangParser *p, const LangToken *tok)
{
    for (int q = 0; q < 2; q++)
        if (lang_p_is(tok, vote_names[q]))
            return lang_p_vote_type(p, q);
    return NULL;
}

/* A vote made from its bits, v converted to vote_t; quad_vote keeps bits 0-3 only. */
static LangNode *make_vote(LangParser *p, LangType *ty, LangNode *v, LangToken *tok)
{
    LangNode *bits = v ? lang_p_cast(p, v, vote_t_of(ty), v->tok, false)
                       : lang_p_num(p, tok, vote_t_of(ty), 0, 0);
    if (ty->vote == LANG_VOTE_QUAD) {
        LangNode *m = lang_p_new_node(p, LND_BITAND, tok);
        m->lhs = bits;
        m->rhs = lang_p_num(p, tok, lang_ty_uint, 0xf, 0);
        m->type = lang_ty_uint;
        LangNode *f = bits->kind == LND_NUM ? lang_p_fold(p, m) : NULL;
        bits = f ? f : m;
    }
    LangNode *c = lang_p_new_node(p, LND_CONSTRUCT, tok);
    c->type = ty;
    c->args = bits;
    bits->next = NULL;
    c->num_args = 1;
    return c;
}

// vote-construct = ("simd_vote" | "quad_vote") ("(" assign? ")" | "{" assign? "}")
LangNode *lang_p_vote_construct(LangParser *p, LangType *ty, LangToken *tok)
{
    bool brace = lang_p_is(p->tok, "{");
    lang_p_next(p);
    const char *close = brace ? "}" : ")";
    LangNode *v = NULL;
    if (!lang_p_consume(p, close)) {
        v = lang_p_assign(p);
        if (!lang_p_consume(p, close))
            lang_error_at(p->ctx, p->tok, "a %s is made from one value, its %s::vote_t bits: "
                          "expected '%s'", ty->name, ty->name, close);
    }
    if (v && v->type->vote && lang_same_type(v->type, ty))
        return v; /* a copy */
    if (v && !lang_is_integer(v->type) && !lang_is_float(v->type)) {
        lang_error_soft(p->ctx, v->tok, "a %s is made from its %s::vote_t bits, not from '%s'",
                        ty->name, ty->name, lang_type_name(p->ctx, v->type));
        v = NULL;
    }
    return make_vote(p, ty, v, tok);
}

/* Its vote_t value, an rvalue member read. */
static LangNode *bits_of(LangParser *p, LangNode *vote, LangToken *tok)
{
    LangNode *node = lang_p_new_node(p, LND_MEMBER, tok);
    node->lhs = vote;
    node->member = vote->type->members;
    node->type = vote->type->members->type;
    return node;
}

LangNode *lang_p_vote_cast(LangParser *p, LangNode *node, LangType *ty, LangToken *tok,
                           bool explicit)
{
    LangType *from = node->type;
    if (from->vote) {
        const char *t = lang_type_name(p->ctx, vote_t_of(from));
        if (explicit && lang_same_type(ty, vote_t_of(from)))
            return bits_of(p, node, tok);
        if (explicit)
            lang_error_soft(p->ctx, tok, "a %s converts only to %s::vote_t (%s), not to '%s': "
                            "write static_cast<%s>(v) and convert that", from->name, from->name,
                            t, lang_type_name(p->ctx, ty), t);
        else if (ty->kind == LTY_BOOL)
            lang_error_soft(p->ctx, tok, "a %s is not a condition: use its any() or all()",
                            from->name);
        else
            lang_error_soft(p->ctx, tok, "a %s converts to '%s' only explicitly: write "
                            "static_cast<%s>(v) for its bits", from->name,
                            lang_type_name(p->ctx, ty), t);
        return lang_p_num(p, tok, lang_is_scalar(ty) ? ty : lang_ty_int, 0, 0);
    }
    /* to a vote, from something else */
    if (!explicit)
        lang_error_soft(p->ctx, tok, "%s's constructor is explicit: write %s(x) to make one "
                        "from '%s'", ty->name, ty->name, lang_type_name(p->ctx, from));
    else if (!lang_is_integer(from) && !lang_is_float(from))
        lang_error_soft(p->ctx, tok, "a %s is made from its %s::vote_t bits, not from '%s'",
                        ty->name, ty->name, lang_type_name(p->ctx, from));
    else
        return make_vote(p, ty, node, tok);
    return make_vote(p, ty, NULL, tok);
}

// vote-member = vote "." ("all" | "any") "(" ")"      (at the name after the '.')
LangNode *lang_p_vote_member(LangParser *p, LangNode *lhs, LangToken *name)
{
    const char *t = lhs->type->name;
    bool all = lang_p_is(name, "all");
    if (!all && !lang_p_is(name, "any"))
        lang_error_at(p->ctx, name, "a %s has the member functions all() and any(); its bits "
                      "are static_cast<%s::vote_t>(v)", t, t);
    if (!lang_p_consume(p, "(") || !lang_p_consume(p, ")"))
        lang_error_at(p->ctx, p->tok, "%s::%s takes no arguments: expected '()'", t,
                      all ? "all" : "any");
    LangNode *node = lang_p_new_node(p, LND_BUILTIN, name);
    node->builtin = all ? LANG_BI_VOTE_ALL : LANG_BI_VOTE_ANY;
    node->args = lhs;
    lhs->next = NULL;
    node->num_args = 1;
    node->type = lang_ty_bool;
    return node;
}
