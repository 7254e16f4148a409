/*
 * parse_sampler.c — samplers and texture sampling: `constexpr sampler s(coord::normalized,
 * address::clamp_to_edge, filter::linear);`, `t.sample(s, coord [, offset])` on a
 * texture2d or texture1d with access::sample, and `t.gather(s, coord [, offset
 * [, component::c]])`, one component of the four texels linear filtering would weigh.
 *
 * A sampler's settings are compile-time values in MSL, so each constructor makes a type of
 * its own (LangType.sampler) and sample() is lowered here for the settings and the
 * texture's pixel format, as read() is in parse_texture.c: MSL text parsed in place. The
 * lowering follows the usual definition of texture filtering at LOD 0 (kernels sample with
 * an implicit LOD of 0, MSL 6.12.13, so the magnification filter applies): the coordinate is
 * scaled to texels (normalized coordinates) and, for linear filtering, moved by half a
 * texel; nearest takes the texel floor() lands in, linear the four around it weighted by
 * the fraction (in float: GPUs quantize these weights, Apple's to 8 bits, so a device may
 * differ in the last bits). Each texel's integer coordinate is then addressed per axis:
 * clamp_to_edge clamps, repeat wraps, mirrored_repeat mirrors every other period, and
 * clamp_to_zero and clamp_to_border give the border color for texels outside (the load
 * itself stays inside the texture, so no access is out of bounds).
 */
#include <stdio.h>
#include <string.h>

#include "parse.h"

static LangType *sampler_type(LangParser *p, const LangSampler *s)
{
    LangType *ty = lang_alloc(p->ctx, sizeof *ty);
    ty->kind = LTY_STRUCT;
    ty->align = 4;
    ty->size = 4;
    ty->name = "sampler";
    ty->sampler = lang_alloc(p->ctx, sizeof *ty->sampler);
    *ty->sampler = *s;
    LangMember *m = lang_alloc(p->ctx, sizeof *m); /* nothing the code reads: a placeholder,
                                                    * so that the struct is not empty */
    m->name = "__settings";
    m->type = lang_ty_int;
    ty->members = m;
    return ty;
}

LangType *lang_p_sampler_type(LangParser *p)
{
    lang_p_next(p);
    LangSampler s = {.generic = true};
    return sampler_type(p, &s);
}

/* By LangAddress; NULL-terminated, as setting() takes it. */
static const char *const address_names[] = {"clamp_to_edge", "repeat", "mirrored_repeat",
                                            "clamp_to_zero", "clamp_to_border", NULL};

/* NAME "::" VALUE: the value's index in values (NULL-terminated), or an error naming them. */
static int setting(LangParser *p, const char *what, const char *const *values)
{
    LangToken *at = p->tok;
    int i = 0;
    for (; values[i]; i++)
        if (lang_p_is(at, values[i]))
            break;
    if (!values[i]) {
        char list[200] = "";
        size_t len = 0;
        for (int k = 0; values[k] && len < sizeof list; k++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s::%s",
                                    k ? ", " : "", what, values[k]);
        lang_error_at(p->ctx, at, "expected %s", list);
    }
    lang_p_next(p);
    return i;
}

// sampler-args = ("(" (setting ("," setting)*)? ")")?
// setting = ("metal" "::")? ("coord" | "filter" | "mag_filter" | "min_filter" | "mip_filter" |
//           "address" | "s_address" | "t_address" | "r_address" | "border_color") "::" value
LangNode *lang_p_sampler_construct(LangParser *p, LangType *ty, LangToken *tok)
{
    (void)ty;
    static const char *const coords[] = {"normalized", "pixel", NULL};
    static const char *const filters[] = {"nearest", "linear", NULL};
    static const char *const mips[] = {"none", "nearest", "linear", NULL};
    static const char *const borders[] = {"transparent_black", "opaque_black", "opaque_white",
                                          NULL};
    LangSampler s = {0};
    bool has_args = lang_p_consume(p, "("); /* none: `constexpr sampler s;` */
    if (has_args && !lang_p_is(p->tok, ")"))
        do {
            lang_p_skip_namespaces(p);
            LangToken *name = p->tok;
            if (!lang_p_is_name(name) || !lang_p_is(name->next, "::"))
                lang_error_at(p->ctx, name, "expected a sampler setting such as "
                              "filter::linear or address::clamp_to_edge");
            lang_p_next(p);
            lang_p_next(p);
            if (lang_p_is(name, "coord")) {
                s.pixel = setting(p, "coord", coords) == 1;
            } else if (lang_p_is(name, "filter") || lang_p_is(name, "mag_filter")) {
                s.linear = setting(p, "filter", filters) == 1;
            } else if (lang_p_is(name, "min_filter")) { /* at LOD 0 the mag filter applies */
                setting(p, "min_filter", filters);
            } else if (lang_p_is(name, "mip_filter")) { /* one mipmap level */
                setting(p, "mip_filter", mips);
            } else if (lang_p_is(name, "address")) {
                s.address[0] = s.address[1] = (LangAddress)setting(p, "address", address_names);
            } else if (lang_p_is(name, "s_address") || lang_p_is(name, "t_address") ||
                       lang_p_is(name, "r_address")) {
                LangAddress a = (LangAddress)setting(p, "address", address_names);
                if (!lang_p_is(name, "r_address"))
                    s.address[lang_p_is(name, "t_address")] = a;
            } else if (lang_p_is(name, "border_color")) {
                s.border = setting(p, "border_color", borders);
            } else {
                lang_error_at(p->ctx, name, "sampler setting '%.*s' is not supported yet "
                              "(coord, filter, mag_filter, min_filter, mip_filter, address, "
                              "s_address, t_address and border_color are)", name->len,
                              name->loc);
            }
        } while (lang_p_consume(p, ","));
    if (has_args)
        lang_p_skip(p, ")");
    for (int a = 0; a < 2; a++)
        if (s.pixel && (s.address[a] == LADDR_REPEAT || s.address[a] == LADDR_MIRRORED_REPEAT))
            lang_error_at(p->ctx, tok, "a sampler with coord::pixel addresses by "
                          "clamp_to_edge, clamp_to_zero or clamp_to_border, not %s (MSL 2.10)",
                          address_names[s.address[a]]);
    LangNode *node = lang_p_new_node(p, LND_CONSTRUCT, tok);
    node->type = sampler_type(p, &s);
    node->args = lang_p_num(p, tok, lang_ty_int, 0, 0);
    node->num_args = 1;
    return node;
}

/* ---- sample() ---------------------------------------------------------------------------- */

/* A temporary holding value (of type ty), declared in a scope of its own: the assignment,
 * and in *var the variable to hand later expansions as a hole. */
static LangNode *temp(LangParser *p, LangToken *at, const char *name, LangNode *value,
                      LangType *ty, LangNode **var)
{
    LangToken *t = lang_alloc(p->ctx, sizeof *t);
    *t = *at;
    t->kind = LTK_IDENT;
    t->loc = name;
    t->len = (int)strlen(name);
    t->next = NULL;
    t->origin = at;
    lang_p_enter(p);
    LangVar *v = lang_p_new_var(p, t, ty, LVAR_LOCAL);
    lang_p_leave(p);
    lang_p_add_local(p, v);
    v->written = true;
    LangNode *set = lang_p_new_node(p, LND_ASSIGN, at);
    set->lhs = lang_p_var_node(p, v, at);
    set->rhs = value;
    set->type = ty;
    *var = lang_p_var_node(p, v, at);
    return set;
}

/* The integer texel coordinate `i` on an axis of size `n` (an int expression), addressed */
static void address(LangAddress mode, const char *i, const char *n, char *out, size_t size)
{
    switch (mode) {
    case LADDR_REPEAT:
        snprintf(out, size, "(((%s) %% %s + %s) %% %s)", i, n, n, n);
        break;
    case LADDR_MIRRORED_REPEAT: /* t in [0, 2n): t, or 2n - 1 - t in the mirrored half */
        snprintf(out, size, "select(2 * %s - 1 - (((%s) %% (2 * %s) + 2 * %s) %% (2 * %s)), "
                 "(((%s) %% (2 * %s) + 2 * %s) %% (2 * %s)), "
                 "(((%s) %% (2 * %s) + 2 * %s) %% (2 * %s)) < %s)",
                 n, i, n, n, n, i, n, n, n, i, n, n, n, n);
        break;
    default: /* clamp_to_edge; the border modes load the edge texel and replace it */
        snprintf(out, size, "clamp(%s, 0, %s - 1)", i, n);
        break;
    }
}

static bool border_mode(LangAddress a)
{
    return a == LADDR_CLAMP_TO_ZERO || a == LADDR_CLAMP_TO_BORDER;
}

/* The texel at integer coordinates (ix, iy) as a 4-vector of T, addressed by the sampler. */
static void fetch(const LangSampler *s, const LangTexFormatInfo *f, int dims, const char *T,
                  const char *ix, const char *iy, char *out, size_t size)
{
    char ax[1000], ay[1000], index[2100], texel[2700];
    address(s->address[0], ix, "int(__tx.__w)", ax, sizeof ax);
    if (dims == 2) {
        address(s->address[1], iy, "int(__tx.__h)", ay, sizeof ay);
        snprintf(index, sizeof index, "uint(%s) * __tx.__p + uint(%s)", ay, ax);
    } else {
        snprintf(index, sizeof index, "uint(%s)", ax);
    }
    lang_p_texel_text(f, T, index, texel, sizeof texel);
    char inside[300] = "";
    size_t len = 0;
    if (border_mode(s->address[0]))
        len += (size_t)snprintf(inside + len, sizeof inside - len, "(%s) >= 0 && (%s) < "
                                "int(__tx.__w)", ix, ix);
    if (dims == 2 && border_mode(s->address[1]))
        len += (size_t)snprintf(inside + len, sizeof inside - len, "%s(%s) >= 0 && (%s) < "
                                "int(__tx.__h)", len ? " && " : "", iy, iy);
    if (!len) {
        snprintf(out, size, "%s", texel);
        return;
    }
    /* clamp_to_zero: transparent black, or opaque black for a format without alpha (Apple's
     * MTLSamplerAddressMode); clamp_to_border: the sampler's border color */
    bool zero = border_mode(s->address[0]) ? s->address[0] == LADDR_CLAMP_TO_ZERO
                                           : s->address[1] == LADDR_CLAMP_TO_ZERO;
    const char *border = zero ? (f->components == 4 ? "4(0)" : "4(0, 0, 0, 1)")
                         : s->border == 0 ? "4(0)"
                         : s->border == 1 ? "4(0, 0, 0, 1)"
                                          : "4(1)";
    snprintf(out, size, "((%s) ? %s : %s%s)", inside, texel, T, border);
}

/* gather's arguments: "(" sampler "," coord ("," offset ("," "component" "::" c)?)? ")";
 * *component gets c's index (x 0 .. w 3) */
static int gather_args(LangParser *p, LangNode **args, int *component)
{
    static const char *const components[] = {"x", "y", "z", "w", NULL};
    lang_p_skip(p, "(");
    int n = 0;
    *component = 0;
    if (!lang_p_is(p->tok, ")"))
        do {
            lang_p_skip_namespaces(p);
            if (n >= 2 && lang_p_is(p->tok, "component") && lang_p_is(p->tok->next, "::")) {
                if (n == 2) /* MSL's signature: the offset comes first (C++ skips none) */
                    lang_error_at(p->ctx, p->tok, "gather() takes the offset before the "
                                  "component: gather(s, coord, int2(0), component::%.*s)",
                                  p->tok->next->next->len, p->tok->next->next->loc);
                lang_p_next(p);
                lang_p_next(p);
                *component = setting(p, "component", components);
                break;
            }
            if (n == 3)
                lang_error_at(p->ctx, p->tok, "too many arguments to 'gather'");
            args[n++] = lang_p_assign(p);
        } while (lang_p_consume(p, ","));
    lang_p_skip(p, ")");
    return n;
}

// sample = "sample" "(" sampler "," coord ("," offset)? ")"
// gather = "gather" "(" sampler "," coord ("," offset ("," component)?)? ")"
LangNode *lang_p_texture_sample(LangParser *p, LangNode *tex, LangToken *name)
{
    const LangTexture *t = tex->type->texture;
    bool gather = lang_p_is(name, "gather");
    LangNode *args[3];
    int component = 0;
    int n = gather ? gather_args(p, args, &component) : lang_p_call_args(p, args, 3, name);
    if (n < 2)
        lang_error_at(p->ctx, name, "%s() takes a sampler and the coordinate",
                      gather ? "gather" : "sample");
    if (t->access != LTA_SAMPLE)
        lang_error_at(p->ctx, name, "%s() needs a texture with access::sample (the "
                      "default); this one is '%s'", gather ? "gather" : "sample",
                      lang_type_name(p->ctx, tex->type));
    if (gather && t->dims != 2)
        lang_error_at(p->ctx, name, "gather() is a texture2d's (a texture1d has none)");
    if (!gather && t->sample->kind != LTY_FLOAT && t->sample->kind != LTY_HALF)
        lang_error_at(p->ctx, name, "sample() reads textures of float or half, not '%s'",
                      lang_type_name(p->ctx, tex->type));
    const LangSampler *s = args[0]->type->sampler;
    if (!s || s->generic)
        lang_error_at(p->ctx, args[0]->tok, "sample() takes a sampler declared with its "
                      "settings (constexpr sampler s(filter::linear);)");
    const LangTexFormatInfo *f = lang_p_texture_format(p, tex, name);
    LangType *fl2 = lang_vector_of(p->ctx, lang_ty_float, 2, false);
    LangType *ct = t->dims == 2 ? fl2 : lang_ty_float;
    LangType *it = t->dims == 2 ? lang_vector_of(p->ctx, lang_ty_int, 2, false) : lang_ty_int;
    if (!lang_is_scalar(args[1]->type) && args[1]->type->kind != LTY_VECTOR)
        lang_error_at(p->ctx, args[1]->tok, "sample() takes the coordinate as a %s",
                      ct->name);
    if (args[1]->type->kind == LTY_VECTOR
            ? args[1]->type->len != t->dims || !lang_is_float(args[1]->type->base)
            : t->dims != 1 || !lang_is_float(args[1]->type))
        lang_error_at(p->ctx, args[1]->tok, "sample() takes the coordinate as a %s, not '%s'",
                      ct->name, lang_type_name(p->ctx, args[1]->type));
    if (n == 3 && (args[2]->type->kind == LTY_VECTOR ? args[2]->type->len != t->dims ||
                                                           !lang_is_integer(args[2]->type->base)
                                                     : t->dims != 1 ||
                                                           !lang_is_integer(args[2]->type)))
        lang_error_at(p->ctx, args[2]->tok, "sample()'s third argument is a texel offset (%s); "
                      "lod options are not supported yet", it->name);
    /* P: the coordinate in texels (the centre of texel i at i + 0.5), less half a texel for
     * linear filtering */
    LangHole h[3] = {{"__tx", tex, tex->type}, {"__tc", args[1], ct},
                     {"__to", n == 3 ? args[2] : NULL, it}};
    const char *size = t->dims == 2 ? "float2(__tx.__w, __tx.__h)" : "float(__tx.__w)";
    LangNode *pos = lang_p_texture_expand(p, name, h, n == 3 ? 3 : 2, "%s%s%s%s",
                                          s->pixel ? "__tc" : "__tc * ", s->pixel ? "" : size,
                                          n == 3 ? (t->dims == 2 ? " + float2(__to)"
                                                                 : " + float(__to)") : "",
                                          s->linear || gather ? " - 0.5f" : "");
    LangNode *pv, *fv, *seq[2];
    seq[0] = temp(p, name, "__tp", pos, ct, &pv);
    LangHole hf[1] = {{"__tp", pv, ct}};
    seq[1] = temp(p, name, "__tf", lang_p_texture_expand(p, name, hf, 1, "floor(__tp)"), ct,
                  &fv);
    LangHole hs[3] = {{"__tx", tex, tex->type}, {"__tp", pv, ct}, {"__tf", fv, ct}};
    const char *T = t->sample->name;
    char text[14000];
    char f00[3000], f10[3000], f01[3000], f11[3000];
    const char *x = t->dims == 2 ? "int(__tf.x)" : "int(__tf)";
    const char *x1 = t->dims == 2 ? "(int(__tf.x) + 1)" : "(int(__tf) + 1)";
    const char *y = "int(__tf.y)", *y1 = "(int(__tf.y) + 1)";
    fetch(s, f, t->dims, "float", x, y, f00, sizeof f00);
    LangNode *result;
    if (gather) { /* the four texels bilinear filtering would take, counter-clockwise from the
                   * lower left (MSL 6.12.13): (-,+), (+,+), (+,-), (-,-) */
        static const char *const comp[] = {"x", "y", "z", "w"};
        fetch(s, f, 2, T, x, y1, f01, sizeof f01);
        fetch(s, f, 2, T, x1, y1, f11, sizeof f11);
        fetch(s, f, 2, T, x1, y, f10, sizeof f10);
        fetch(s, f, 2, T, x, y, f00, sizeof f00);
        const char *c = comp[component];
        snprintf(text, sizeof text, "%s4((%s).%s, (%s).%s, (%s).%s, (%s).%s)", T, f01, c, f11, c,
                 f10, c, f00, c);
        result = lang_p_texture_expand(p, name, hs, 3, "%s", text);
    } else if (!s->linear) {
        result = lang_p_texture_expand(p, name, hs, 3, "%s4(%s)", T, f00);
    } else if (t->dims == 1) {
        fetch(s, f, 1, "float", x1, y, f10, sizeof f10);
        snprintf(text, sizeof text, "%s4((1.0f - (__tp - __tf)) * %s + (__tp - __tf) * %s)", T,
                 f00, f10);
        result = lang_p_texture_expand(p, name, hs, 3, "%s", text);
    } else {
        fetch(s, f, 2, "float", x1, y, f10, sizeof f10);
        fetch(s, f, 2, "float", x, y1, f01, sizeof f01);
        fetch(s, f, 2, "float", x1, y1, f11, sizeof f11);
        snprintf(text, sizeof text,
                 "%s4((1.0f - (__tp.x - __tf.x)) * (1.0f - (__tp.y - __tf.y)) * %s + "
                 "(__tp.x - __tf.x) * (1.0f - (__tp.y - __tf.y)) * %s + "
                 "(1.0f - (__tp.x - __tf.x)) * (__tp.y - __tf.y) * %s + "
                 "(__tp.x - __tf.x) * (__tp.y - __tf.y) * %s)", T, f00, f10, f01, f11);
        result = lang_p_texture_expand(p, name, hs, 3, "%s", text);
    }
    for (int i = 1; i >= 0; i--) {
        LangNode *c = lang_p_new_node(p, LND_COMMA, name);
        c->lhs = seq[i];
        c->rhs = result;
        c->type = result->type;
        result = c;
    }
    return result;
}
