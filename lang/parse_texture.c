/*
 * parse_texture.c — textures in the front end: the types texture1d<T, access::A> and
 * texture2d<T, access::A> and their member functions (read, write, get_width, get_height,
 * get_num_mip_levels, fence).
 *
 * A texture is a struct (LangType.texture says so) of its texels' address, width, height
 * and row pitch, bound from uniforms like a tensor (codegen.c). Its pixel format is the
 * manifest's, given to the compiler with the argument's name (LangOptions.textures), so that
 * read() and write() lower here to what a GPU's texture unit does by hand: the texel's
 * index, an ordinary device load or store of the format's storage type, and the format's
 * conversion (MSL 7.7). The simulator, the timing model and the checkers then see device
 * accesses, named at the call's line. A coordinate outside the texture (Metal leaves such
 * reads undefined and drops such writes) is sent one texel past the end of the texels, so
 * the bounds check reports it. Each lowering is written as MSL text and parsed in place,
 * as a macro expands: its tokens have the call as their origin, for debug info and
 * messages alike. sample() is parse_sampler.c's, built from the same expansion and texel
 * conversion (lang_p_texture_expand, lang_p_texel_text).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"

bool lang_p_is_texture_name(const LangToken *tok)
{
    return (lang_p_is(tok, "texture2d") || lang_p_is(tok, "texture1d")) &&
           lang_p_is(tok->next, "<");
}

static const char *const access_names[] = {"sample", "read", "write", "read_write"};
/* float, float2 or float4 by a format's component count */
static const char *const floatn[] = {"", "float", "float2", "", "float4"};

/* The storage type of a format's texel ("uchar4" -> uchar4). */
static LangType *storage_type(LangParser *p, const LangTexFormatInfo *f)
{
    static const struct {
        const char *prefix;
        LangType **type;
    } scalars[] = {{"uchar", &lang_ty_uchar}, {"ushort", &lang_ty_ushort}, {"half", &lang_ty_half},
                   {"float", &lang_ty_float}, {"uint", &lang_ty_uint}, {"char", &lang_ty_char},
                   {"short", &lang_ty_short}, {"int", &lang_ty_int}};
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++) {
        size_t n = strlen(scalars[i].prefix);
        if (strncmp(f->storage, scalars[i].prefix, n) == 0 &&
            (f->storage[n] == '\0' || (f->storage[n] >= '2' && f->storage[n] <= '4')))
            return f->components == 1 ? *scalars[i].type
                                      : lang_vector_of(p->ctx, *scalars[i].type, f->components,
                                                       false);
    }
    return lang_ty_uchar;
}

static LangType *texture_type(LangParser *p, int dims, LangType *sample, LangTexAccess access,
                              LangTexFormat format)
{
    LangType *ty = lang_alloc(p->ctx, sizeof *ty);
    ty->kind = LTY_STRUCT;
    ty->align = 1;
    ty->name = lang_format(p->ctx, "texture%dd<%s, access::%s>", dims, sample->name,
                           access_names[access]);
    ty->texture = lang_alloc(p->ctx, sizeof *ty->texture);
    *ty->texture = (LangTexture){dims, sample, access, format};
    const LangTexFormatInfo *f = lang_tex_format_info(format);
    LangType *texel = f ? storage_type(p, f) : lang_ty_uchar;
    bool writes = access == LTA_WRITE || access == LTA_READ_WRITE;
    LangMember *tail = NULL;
    lang_p_add_member(p, ty, &tail, "__data",
               lang_pointer_to(p->ctx, lang_qualified(p->ctx, texel, !writes), LAS_DEVICE));
    lang_p_add_member(p, ty, &tail, "__w", lang_ty_uint);
    lang_p_add_member(p, ty, &tail, "__h", lang_ty_uint);
    lang_p_add_member(p, ty, &tail, "__p", lang_ty_uint);
    return ty;
}

// texture-type = ("texture1d" | "texture2d") "<" T ("," "access" "::" access)? ">"
LangType *lang_p_texture_type(LangParser *p)
{
    int dims = lang_p_is(p->tok, "texture1d") ? 1 : 2;
    lang_p_next(p);
    lang_p_skip(p, "<");
    LangToken *at = p->tok;
    LangType *sample = lang_qualified(p->ctx, lang_p_typename(p), false);
    if (sample->kind != LTY_FLOAT && sample->kind != LTY_HALF && sample->kind != LTY_INT &&
        sample->kind != LTY_UINT)
        lang_error_at(p->ctx, at, "a texture's type is float, half, int or uint, not '%s'",
                      lang_type_name(p->ctx, sample));
    LangTexAccess access = LTA_SAMPLE; /* MSL's default */
    if (lang_p_consume(p, ",")) {
        lang_p_skip_namespaces(p);
        if (!lang_p_is(p->tok, "access") || !lang_p_is(p->tok->next, "::"))
            lang_error_at(p->ctx, p->tok, "expected access::read, access::write, "
                          "access::read_write or access::sample");
        lang_p_next(p);
        lang_p_next(p);
        int a = 0;
        while (a < 4 && !lang_p_is(p->tok, access_names[a]))
            a++;
        if (a == 4)
            lang_error_at(p->ctx, p->tok, "expected read, write, read_write or sample after "
                          "access::");
        lang_p_next(p);
        access = (LangTexAccess)a;
    }
    lang_p_close_angle(p);
    return texture_type(p, dims, sample, access, LANG_TEX_NONE);
}

/* Which formats a sample type reads: float and half take unorm and float formats, int
 * signed and uint unsigned integer ones (MSL 2.9). */
static bool format_fits(const LangType *sample, LangTexKind kind)
{
    if (sample->kind == LTY_INT)
        return kind == LANG_TEXK_SINT;
    if (sample->kind == LTY_UINT)
        return kind == LANG_TEXK_UINT;
    return kind == LANG_TEXK_UNORM || kind == LANG_TEXK_FLOAT;
}

LangType *lang_p_texture_param(LangParser *p, LangVar *v)
{
    const LangTexture *t = v->type->texture;
    const LangOptions *o = p->ctx->opts;
    LangTexFormat format = LANG_TEX_NONE;
    for (uint32_t i = 0; o && i < o->num_textures; i++)
        if (strcmp(o->textures[i].name, v->name) == 0)
            format = o->textures[i].format;
    if (format == LANG_TEX_NONE) /* `lockstep compile` without a manifest */
        format = t->sample->kind == LTY_FLOAT  ? LANG_TEX_RGBA32FLOAT
                 : t->sample->kind == LTY_HALF ? LANG_TEX_RGBA16FLOAT
                 : t->sample->kind == LTY_INT  ? LANG_TEX_RGBA32SINT
                                               : LANG_TEX_RGBA32UINT;
    const LangTexFormatInfo *f = lang_tex_format_info(format);
    if (!format_fits(t->sample, f->kind))
        lang_error_soft(p->ctx, v->tok, "texture '%s' is a '%s', whose format must hold %s; "
                        "the manifest gives it format %s", v->name,
                        lang_type_name(p->ctx, v->type),
                        t->sample->kind == LTY_INT    ? "signed integers (r32sint, ...)"
                        : t->sample->kind == LTY_UINT ? "unsigned integers (r32uint, ...)"
                                                      : "floats or unorms (rgba8unorm, ...)",
                        f->name);
    return texture_type(p, t->dims, t->sample, t->access, format);
}

/* ---- lowering by expansion ---------------------------------------------------------------- */

static LangToken *name_token(LangParser *p, const char *name, LangToken *at)
{
    LangToken *t = lang_alloc(p->ctx, sizeof *t);
    *t = *at;
    t->kind = LTK_IDENT;
    t->loc = name;
    t->len = (int)strlen(name);
    t->next = NULL;
    t->origin = at;
    return t;
}

LangNode *lang_p_texture_expand(LangParser *p, LangToken *at, LangHole *holes, int n,
                                const char *fmt, ...)
{
    char buf[16384];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= sizeof buf)
        lang_error_at(p->ctx, at, "internal error: a texture call's lowering is too long");
    LangFile *tmp = lang_alloc(p->ctx, sizeof *tmp);
    tmp->name = at->file ? at->file->name : "<texture>";
    tmp->contents = lang_strndup(p->ctx, buf, strlen(buf));
    tmp->index = at->file ? at->file->index : 0;
    LangToken *toks = lang_tokenize(p->ctx, tmp);
    for (LangToken *t = toks; t; t = t->next)
        t->origin = at;
    lang_p_enter(p);
    LangNode *sets[4];
    int num_sets = 0;
    for (int i = 0; i < n; i++) {
        LangNode *v = holes[i].value;
        LangToken *name = name_token(p, holes[i].name, at);
        if (v->kind == LND_VAR && v->var && lang_same_type(v->type, holes[i].type) &&
            (v->var->kind == LVAR_LOCAL || v->var->kind == LVAR_PARAM)) {
            lang_p_push_sym(p, name)->var = v->var;
            continue;
        }
        LangVar *var = lang_p_new_var(p, name, holes[i].type, LVAR_LOCAL);
        lang_p_add_local(p, var);
        var->written = true;
        LangNode *set = lang_p_new_node(p, LND_ASSIGN, at);
        set->lhs = lang_p_var_node(p, var, at);
        set->rhs = lang_same_type(v->type, holes[i].type) ? v
                                                          : lang_p_cast(p, v, holes[i].type,
                                                                        v->tok, true);
        set->type = holes[i].type;
        sets[num_sets++] = set;
    }
    LangToken *saved_tok = p->tok, *saved_prev = p->prev;
    p->tok = toks;
    LangNode *node = lang_p_expr(p);
    if (p->tok->kind != LTK_EOF)
        lang_error_at(p->ctx, at, "internal error: a texture call's lowering did not parse");
    p->tok = saved_tok;
    p->prev = saved_prev;
    lang_p_leave(p);
    while (num_sets > 0) {
        LangNode *c = lang_p_new_node(p, LND_COMMA, at);
        c->lhs = sets[--num_sets];
        c->rhs = node;
        c->type = node->type;
        node = c;
    }
    return node;
}

/* ---- member functions --------------------------------------------------------------------- */

int lang_p_call_args(LangParser *p, LangNode **args, int max, LangToken *name)
{
    lang_p_skip(p, "(");
    int n = 0;
    if (!lang_p_is(p->tok, ")"))
        do {
            if (n == max)
                lang_error_at(p->ctx, p->tok, "too many arguments to '%.*s'", name->len,
                              name->loc);
            args[n++] = lang_p_assign(p);
        } while (lang_p_consume(p, ","));
    lang_p_skip(p, ")");
    return n;
}

/* A mipmap level argument: lockstep's textures have one level, so it must be 0. */
static void lod_zero(LangParser *p, LangNode *lod)
{
    int64_t v;
    if (!lang_is_integer(lod->type) || !lang_p_eval(p, lod, &v) || v != 0)
        lang_error_at(p->ctx, lod->tok, "lockstep's textures have one mipmap level: the lod "
                      "must be 0");
}

/* The texel index of coordinate __tc, or one past the last texel when it is outside. */
static const char *texel_index(const LangTexture *t)
{
    return t->dims == 1 ? "select(__tx.__p, __tc, __tc < __tx.__w)"
                        : "select(__tx.__h * __tx.__p, __tc.y * __tx.__p + __tc.x, "
                          "all(__tc < uint2(__tx.__w, __tx.__h)))";
}

const LangTexFormatInfo *lang_p_texture_format(LangParser *p, const LangNode *tex,
                                               LangToken *name)
{
    const LangTexFormatInfo *f = lang_tex_format_info(tex->type->texture->format);
    if (!f && tex->kind == LND_VAR && tex->var && tex->var->kind == LVAR_PARAM)
        lang_error_at(p->ctx, name, "texture parameters of member functions are not supported "
                      "yet: lockstep compiles a helper function's body for each call's "
                      "textures, not a member function's (make '%s' a helper function)",
                      p->fn ? p->fn->name : "it");
    if (!f)
        lang_error_at(p->ctx, name, "the pixel format of this texture is unknown: lockstep knows "
                      "the formats of the kernel's texture arguments and of helper functions' "
                      "texture parameters (given at each call), not of textures in variables, "
                      "structs or arrays: call %.*s() on one of those", name->len, name->loc);
    return f;
}

/* The coordinate argument, as a hole: uint2 (texture2d) or uint (texture1d). */
static LangHole coord_hole(LangParser *p, const LangTexture *t, LangNode *c, LangToken *name)
{
    LangType *want = t->dims == 1 ? lang_ty_uint : lang_vector_of(p->ctx, lang_ty_uint, 2, false);
    const LangType *e = t->dims == 1 ? c->type : c->type->kind == LTY_VECTOR && c->type->len == 2
                                                     ? c->type->base : NULL;
    /* uint or ushort, as MSL's signatures (a 64-bit one would be cut to 32 bits) */
    bool ok = e && lang_is_integer(e) && e->kind != LTY_BOOL && e->size <= 4;
    if (!ok)
        lang_error_at(p->ctx, c->tok, "%.*s() takes the texel's coordinate as %s, not '%s'",
                      name->len, name->loc, t->dims == 1 ? "a uint" : "a uint2",
                      lang_type_name(p->ctx, c->type));
    return (LangHole){"__tc", c, want};
}

/* A unorm format's largest stored value, as a float literal */
static void max_text(const LangTexFormatInfo *f, char *buf, size_t size)
{
    snprintf(buf, size, "%s", f->bytes / f->components == 1 ? "255.0f" : "65535.0f");
}

void lang_p_texel_text(const LangTexFormatInfo *f, const char *T, const char *index, char *out,
                       size_t size)
{
    char raw[2400], m[16], val[2500];
    snprintf(raw, sizeof raw, "__tx.__data[%s]%s", index, f->bgra ? ".zyxw" : "");
    max_text(f, m, sizeof m);
    if (f->kind == LANG_TEXK_UNORM) /* MSL Table 31: float(c) / max */
        snprintf(val, sizeof val, "%s(%s) / %s", floatn[f->components], raw, m);
    else
        snprintf(val, sizeof val, "%s", raw);
    if (f->components == 4) /* missing components read as 0, and alpha as 1 */
        snprintf(out, size, "%s4(%s)", T, val);
    else if (f->components == 2)
        snprintf(out, size, "%s4(%s2(%s), %s(0), %s(1))", T, T, val, T, T);
    else
        snprintf(out, size, "%s4(%s(%s), %s(0), %s(0), %s(1))", T, T, val, T, T, T);
}

// read = "read" "(" coord ("," lod)? ")"
static LangNode *tex_read(LangParser *p, LangNode *tex, LangToken *name)
{
    const LangTexture *t = tex->type->texture;
    LangNode *args[2];
    int n = lang_p_call_args(p, args, 2, name);
    if (n == 0)
        lang_error_at(p->ctx, name, "read() takes the texel's coordinate");
    if (n == 2)
        lod_zero(p, args[1]);
    if (t->access == LTA_WRITE)
        lang_error_at(p->ctx, name, "read() needs a texture with access::read, read_write or "
                      "sample; this one is '%s'", lang_type_name(p->ctx, tex->type));
    const LangTexFormatInfo *f = lang_p_texture_format(p, tex, name);
    LangHole holes[2] = {{"__tx", tex, tex->type}, coord_hole(p, t, args[0], name)};
    char texel[600];
    lang_p_texel_text(f, t->sample->name, texel_index(t), texel, sizeof texel);
    return lang_p_texture_expand(p, name, holes, 2, "%s", texel);
}

// write = "write" "(" color "," coord ("," lod)? ")"
static LangNode *tex_write(LangParser *p, LangNode *tex, LangToken *name)
{
    const LangTexture *t = tex->type->texture;
    LangNode *args[3];
    int n = lang_p_call_args(p, args, 3, name);
    if (n < 2)
        lang_error_at(p->ctx, name, "write() takes the color and the texel's coordinate");
    if (n == 3)
        lod_zero(p, args[2]);
    if (t->access != LTA_WRITE && t->access != LTA_READ_WRITE)
        lang_error_at(p->ctx, name, "write() needs a texture with access::write or read_write; "
                      "this one is '%s'", lang_type_name(p->ctx, tex->type));
    const LangTexFormatInfo *f = lang_p_texture_format(p, tex, name);
    LangType *t4 = lang_vector_of(p->ctx, t->sample, 4, false);
    if (args[0]->type->kind != LTY_VECTOR || args[0]->type->len != 4)
        lang_error_at(p->ctx, args[0]->tok, "write() takes a 4-component color ('%s'), not '%s'",
                      t4->name, lang_type_name(p->ctx, args[0]->type));
    LangHole holes[3] = {{"__tx", tex, tex->type}, coord_hole(p, t, args[1], name),
                     {"__tv", lang_p_convert(p, args[0], t4, args[0]->tok), t4}};
    static const char *const part[] = {"", ".x", ".xy", "", ""};
    const char *sw = part[f->components], *fn = floatn[f->components];
    char value[512], m[16];
    max_text(f, m, sizeof m);
    if (f->kind == LANG_TEXK_UNORM) /* MSL Table 32: clamp(f * max), round to nearest even;
                                     * NaN becomes 0 (fmax returns the other operand) */
        snprintf(value, sizeof value, "%s(rint(fmin(fmax(%s(__tv%s) * %s, %s(0.0f)), %s(%s))))",
                 f->storage, fn, sw, m, fn, fn, m);
    else if ((f->kind == LANG_TEXK_UINT || f->kind == LANG_TEXK_SINT) &&
             f->bytes / f->components < 4) { /* MSL Table 33: 8 and 16 bits saturate */
        const int bits = 8 * f->bytes / f->components;
        const bool sgn = f->kind == LANG_TEXK_SINT;
        const long hi = sgn ? (1l << (bits - 1)) - 1 : (1l << bits) - 1, lo = sgn ? -hi - 1 : 0;
        char vt[16];
        snprintf(vt, sizeof vt, "%s%s", sgn ? "int" : "uint",
                 f->components > 1 ? (f->components == 2 ? "2" : "4") : "");
        snprintf(value, sizeof value, "%s(min(max(%s(__tv%s), %s(%ld)), %s(%ld)))", f->storage,
                 vt, sw, vt, lo, vt, hi);
    } else {
        snprintf(value, sizeof value, "%s(__tv%s)", f->storage, sw);
    }
    return lang_p_texture_expand(p, name, holes, 3, "__tx.__data[%s] = %s%s", texel_index(t), value,
                  f->bgra ? ".zyxw" : "");
}

static LangNode *texture_size(LangParser *p, LangNode *tex, LangToken *name, const char *member)
{
    LangNode *args[1];
    if (lang_p_call_args(p, args, 1, name) == 1)
        lod_zero(p, args[0]);
    LangHole holes[1] = {{"__tx", tex, tex->type}};
    return lang_p_texture_expand(p, name, holes, 1, "__tx.%s", member);
}

LangNode *lang_p_texture_member(LangParser *p, LangNode *lhs, LangToken *name)
{
    const LangTexture *t = lhs->type->texture;
    if (name->origin && name->len > 2 && name->loc[0] == '_' && name->loc[1] == '_')
        for (LangMember *m = lhs->type->members; m; m = m->next)
            if (lang_tok_equal(name, m->name)) { /* the lowering's own access to a part */
                LangNode *node = lang_p_new_node(p, LND_MEMBER, name);
                node->lhs = lhs;
                node->member = m;
                node->type = m->type;
                return node;
            }
    if (!lang_p_is(p->tok, "("))
        lang_error_at(p->ctx, name, "expected '(' after '%.*s': a texture's members are "
                      "functions", name->len, name->loc);
    if (lang_p_is(name, "read"))
        return tex_read(p, lhs, name);
    if (lang_p_is(name, "write"))
        return tex_write(p, lhs, name);
    if (lang_p_is(name, "sample") || lang_p_is(name, "gather"))
        return lang_p_texture_sample(p, lhs, name);
    if (lang_p_is(name, "get_width"))
        return texture_size(p, lhs, name, "__w");
    if (lang_p_is(name, "get_height") && t->dims == 2)
        return texture_size(p, lhs, name, "__h");
    if (lang_p_is(name, "get_num_mip_levels")) {
        LangNode *args[1];
        lang_p_call_args(p, args, 0, name);
        return lang_p_num(p, name, lang_ty_uint, 1, 0);
    }
    if (lang_p_is(name, "fence")) { /* each thread sees its own writes: nothing to order */
        LangNode *args[1];
        lang_p_call_args(p, args, 0, name);
        return lang_p_num(p, name, lang_ty_int, 0, 0);
    }
    lang_error_at(p->ctx, name, "'%.*s' is not a member lockstep supports on '%s' (read, write, "
                  "sample, gather, get_width%s, get_num_mip_levels and fence are)", name->len, name->loc,
                  lang_type_name(p->ctx, lhs->type), t->dims == 2 ? ", get_height" : "");
}
