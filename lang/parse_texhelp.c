/*
 * parse_texhelp.c — helper functions that take textures and samplers
 * (`float4 bilinear(texture2d<float> src, sampler s, float2 uv)`). A texture's pixel format
 * and a sampler's settings are not in the types a helper declares, yet texture calls are
 * lowered for them where the parser meets them (parse_texture.c, parse_sampler.c). So the
 * body of such a helper is not parsed at its definition: its tokens are kept, as a
 * template's are, and parsed again for each call whose textures and samplers are new, each
 * such parameter taking its argument's type (the manifest's format of the kernel's texture
 * argument, the settings of the constexpr sampler). Calls with the same formats and
 * settings share an instance; a helper that hands its texture on to another gives the type
 * it was given, so formats follow any chain of calls. Every call is inlined anyway, so an
 * instance costs compile time only.
 */
#include <string.h>

#include "parse.h"

struct LangTexHelper {
    LangTexHelper *next;
    LangFunction *generic;  /* the helper as declared (no body: instances have them) */
    LangToken *start;       /* its definition's first token, parsed again per instance */
    LangScope *scope;       /* the scope around the definition (a template's parameters) */
    LangInstance *instances; /* param_types: per parameter, the type bound, or NULL */
};

/* A parameter type whose texture calls need what only an argument has. */
static bool unbound(const LangType *ty)
{
    return (ty->texture && ty->texture->format == LANG_TEX_NONE) ||
           (ty->sampler && ty->sampler->generic);
}

static bool takes_texture(const LangFunction *f)
{
    for (const LangVar *v = f->params; v; v = v->next)
        if (unbound(v->type))
            return true;
    return false;
}

/* Textures held by reference: the reference has no format either, and Metal's textures are
 * handles passed by value. */
static void refuse_references(LangParser *p, const LangFunction *f)
{
    for (const LangVar *v = f->params; v; v = v->next)
        if (v->type->kind == LTY_POINTER && v->type->base &&
            (v->type->base->texture || v->type->base->sampler))
            lang_error_at(p->ctx, v->tok, "parameter '%s' is a pointer or reference to a %s: "
                          "lockstep passes textures and samplers to helpers by value only "
                          "(write '%s %s')", v->name, v->type->base->texture ? "texture"
                                                                             : "sampler",
                          lang_type_name(p->ctx, lang_qualified(p->ctx, v->type->base, false)),
                          v->name);
}

bool lang_p_texhelp_defer(LangParser *p, LangFunction *f, LangToken *start, LangInstance *inst)
{
    if (f->is_kernel || (inst && (inst->param_types || inst->decl_only)))
        return false;
    if (f->ret->texture)
        lang_error_at(p->ctx, f->tok, "'%s' returns a texture: lockstep knows the pixel format "
                      "of texture arguments and parameters only, so functions cannot return "
                      "textures (pass the texture itself)", f->name);
    refuse_references(p, f);
    if (!takes_texture(f) || !lang_p_is(p->tok, "{"))
        return false;
    LangTexHelper *h = lang_alloc(p->ctx, sizeof *h);
    h->generic = f;
    h->start = start;
    h->scope = p->scope->up; /* p->scope holds the parameters */
    h->next = p->tex_helpers;
    p->tex_helpers = h;
    f->is_defined = true; /* the definition is here; instances carry the body */
    for (int depth = 0;;) { /* skip the body */
        LangToken *tok = p->tok;
        if (tok->kind == LTK_EOF)
            lang_error_at(p->ctx, start, "unterminated function body");
        lang_p_next(p);
        depth += lang_p_is(tok, "{") - lang_p_is(tok, "}");
        if (depth == 0)
            break;
    }
    return true;
}

void lang_p_texhelp_bind(LangParser *p, LangFunction *f, const LangInstance *inst)
{
    (void)p;
    if (!inst || !inst->param_types)
        return;
    int k = 0;
    for (LangVar *v = f->params; v; v = v->next, k++)
        if (inst->param_types[k])
            v->type = inst->param_types[k];
}

/* The type parameter v (unbound) takes from argument a: a's own, or an error at a. */
static LangType *bound_type(LangParser *p, const LangFunction *f, const LangVar *v,
                            const LangNode *a, LangToken *at)
{
    if (!lang_same_type(a->type, v->type))
        lang_error_at(p->ctx, at, "cannot pass '%s' to parameter '%s' of '%s', a '%s'",
                      lang_type_name(p->ctx, a->type), v->name, f->name,
                      lang_type_name(p->ctx, v->type));
    if (unbound(a->type) && v->type->texture)
        lang_error_at(p->ctx, at, "the pixel format of this texture is unknown: lockstep knows "
                      "the formats of the kernel's texture arguments (and of helpers' texture "
                      "parameters given one), not of textures in variables, structs or arrays");
    if (unbound(a->type))
        lang_error_at(p->ctx, at, "'%s' takes a sampler whose settings are known: a constexpr "
                      "sampler (constexpr sampler s(filter::linear);)", f->name);
    return lang_qualified(p->ctx, a->type, v->type->is_const);
}

static bool same_binding(const LangType *a, const LangType *b)
{
    if (!a || !b)
        return a == b;
    if (a->texture)
        return a->texture->format == b->texture->format;
    return lang_same_type(a, b); /* samplers: the same settings */
}

static LangTexHelper *helper_of(LangParser *p, const LangFunction *f)
{
    for (LangTexHelper *h = p->tex_helpers; h; h = h->next)
        if (h->generic == f)
            return h;
    return NULL;
}

LangFunction *lang_p_texhelp_call(LangParser *p, LangFunction *f, LangToken *tok,
                                  LangNode ***args, LangToken ***starts, int *num_args)
{
    if (f->is_kernel || !takes_texture(f))
        return f;
    LangTexHelper *h = helper_of(p, f);
    if (!h)
        lang_error_at(p->ctx, tok, "'%s' takes a texture or sampler, and lockstep compiles such "
                      "a helper's body for each call's textures: define it before this call "
                      "(member functions taking textures are not supported yet)", f->name);
    if (!*args) { /* the arguments, parsed here to be looked at */
        enum { MAX_ARGS = 64 };
        LangNode **a = lang_alloc(p->ctx, MAX_ARGS * sizeof *a);
        LangToken **s = lang_alloc(p->ctx, MAX_ARGS * sizeof *s);
        int n = 0;
        lang_p_skip(p, "(");
        while (!lang_p_consume(p, ")")) {
            if (n && !lang_p_consume(p, ","))
                lang_error_at(p->ctx, p->tok, "expected ',' or ')'");
            if (n == MAX_ARGS)
                lang_error_at(p->ctx, p->tok, "too many arguments to '%s'", f->name);
            s[n] = p->tok;
            a[n++] = lang_p_assign(p);
        }
        *args = a;
        *starts = s;
        *num_args = n;
    }
    LangType **types = lang_alloc(p->ctx, (size_t)(f->num_params + 1) * sizeof *types);
    int k = 0;
    for (LangVar *v = f->params; v; v = v->next, k++) {
        if (!unbound(v->type))
            continue;
        if (k >= *num_args)
            lang_error_at(p->ctx, tok, "too few arguments to '%s': parameter '%s' is a %s",
                          f->name, v->name, v->type->texture ? "texture" : "sampler");
        types[k] = bound_type(p, f, v, (*args)[k], (*starts)[k]);
    }
    for (LangInstance *i = h->instances; i; i = i->next) {
        bool same = true;
        for (int j = 0; j < f->num_params && same; j++)
            same = same_binding(i->param_types[j], types[j]);
        if (same)
            return i->func;
    }
    if (p->inst_depth >= 32)
        lang_error_at(p->ctx, tok, "helper instances nest 32 levels deep at '%s'", f->name);
    LangInstance *inst = lang_alloc(p->ctx, sizeof *inst);
    inst->param_types = types;
    inst->next = h->instances;
    h->instances = inst; /* before its body, which may call it (and is then refused) */
    LangParser saved = *p;
    p->inst_depth++;
    p->scope = h->scope;
    p->tok = h->start;
    p->fn = NULL;
    p->method = NULL;
    FnAttrs fa = {0};
    lang_p_toplevel(p, &fa, inst);
    inst->func->name = f->name;
    lang_p_restore(p, &saved);
    return inst->func;
}

/* A function template's parameter declared `texture2d<T, ...> name` (or texture1d; T one
 * of its type parameters) takes T from the texture it is given, as C++ deduces a template
 * argument of a class template's specialization. */
bool lang_p_texhelp_deduce(LangParser *p, const LangTemplate *t, LangToken *from, LangToken *to,
                           const LangType *arg, LangTemplateArgs *args, const char **why)
{
    while (from != to && (lang_p_is(from, "const") || lang_p_is(from, "metal") ||
                          lang_p_is(from, "::")))
        from = from->next;
    if (from == to || !arg || !arg->texture || !lang_p_is_texture_name(from))
        return true;
    LangToken *name = from->next->next;
    if (name == to || name->kind != LTK_IDENT ||
        (!lang_p_is(name->next, ",") && !lang_p_is(name->next, ">")))
        return true;
    for (int k = 0; k < t->num_params; k++) {
        if (t->param_types[k] || t->params[k]->len != name->len ||
            memcmp(t->params[k]->loc, name->loc, (size_t)name->len) != 0)
            continue;
        LangType *ty = arg->texture->sample;
        if (args->types[k] && !lang_same_type(args->types[k], ty)) {
            *why = lang_format(p->ctx, "conflicting types for template parameter '%.*s' of "
                               "'%.*s': '%s' and '%s'; give it explicitly", name->len,
                               name->loc, t->name_tok->len, t->name_tok->loc,
                               lang_type_name(p->ctx, args->types[k]),
                               lang_type_name(p->ctx, ty));
            return false;
        }
        args->types[k] = ty;
    }
    return true;
}
