/*
 * parse_limits.c — metal::numeric_limits<T>, as <metal_limits> gives it (MLX's kernels take
 * their infinities and extremes from it): `numeric_limits<float>::infinity()`,
 * `numeric_limits<T>::max()` inside a template, `numeric_limits<int>::digits`. Each member
 * is a constant of its type, folded where it is written, so it costs no instruction. The
 * scalar types have them (bool, char .. ulong, half, float, bfloat); a kernel that defines
 * its own `numeric_limits` keeps it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"

/* One scalar type's facts: the bits of its format (floats) or its width (integers). */
typedef struct Limits {
    int digits, digits10, max_digits10;      /* as std::numeric_limits */
    int min_exponent, max_exponent, min_exponent10, max_exponent10;
    double max, min, epsilon, denorm_min;    /* floats: max and the smallest normal */
} Limits;

static Limits float_limits(const LangType *ty)
{
    switch (ty->kind) {
    case LTY_HALF: /* binary16: 11-bit significand, exponents -14..15 */
        return (Limits){11, 3, 5, -13, 16, -4, 4, 65504.0, 0x1p-14, 0x1p-10, 0x1p-24};
    case LTY_BFLOAT: /* bfloat16: float's exponents, an 8-bit significand */
        return (Limits){8, 2, 4, -125, 128, -37, 38, 0x1.fep127, 0x1p-126, 0x1p-7, 0x1p-133};
    default: /* binary32 */
        return (Limits){24, 6, 9, -125, 128, -37, 38, 0x1.fffffep127, 0x1p-126, 0x1p-23,
                        0x1p-149};
    }
}

/* The member `name` of numeric_limits<ty>, at tok; false when there is no such member. */
static bool member(LangParser *p, LangToken *tok, LangType *ty, const char *name, bool called,
                   LangNode **out)
{
    const bool is_float = lang_is_float(ty), is_unsigned = lang_is_unsigned(ty);
    const bool is_bool = ty->kind == LTY_BOOL;
    const int bits = (int)ty->size * 8;
    /* integers: the largest and smallest values, as two's complement bits */
    const uint64_t umax = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
    const uint64_t imax = is_bool ? 1 : is_unsigned ? umax : umax >> 1;
    const uint64_t imin = is_unsigned || is_bool ? 0 : ~(umax >> 1);
    const Limits f = is_float ? float_limits(ty) : (Limits){0};
    static const char *const functions[] = {"max", "min", "lowest", "epsilon", "round_error",
                                            "infinity", "quiet_NaN", "signaling_NaN",
                                            "denorm_min"};
    int fn = -1;
    for (int i = 0; i < (int)(sizeof functions / sizeof functions[0]); i++)
        if (strcmp(name, functions[i]) == 0)
            fn = i;
    if (fn >= 0) {
        if (!called)
            lang_error_at(p->ctx, tok, "numeric_limits<%s>::%s is a function: call it (%s())",
                          lang_type_name(p->ctx, ty), name, name);
        if (!is_float) { /* integers: the extremes; the float-only ones are 0, as in C++ */
            uint64_t v = fn == 0 ? imax : fn == 1 || fn == 2 ? imin : 0;
            *out = lang_p_num(p, tok, ty, v, 0);
            return true;
        }
        const double vals[] = {f.max, f.min, -f.max, f.epsilon, 0.5, INFINITY, NAN, NAN,
                               f.denorm_min};
        *out = lang_p_num(p, tok, ty, 0, vals[fn]);
        return true;
    }
    if (called)
        return false; /* the rest are data members */
    const int digits = is_float ? f.digits : is_bool ? 1 : bits - !is_unsigned;
    /* digits10: decimal digits that survive a round trip, floor((digits) * log10(2)) */
    const int digits10 = is_float ? f.digits10 : is_bool ? 0 : (int)(digits * 0.30102999566398);
    const struct {
        const char *name;
        int64_t value;
        bool is_bool;
    } data[] = {
        {"is_specialized", 1, true}, {"is_signed", !is_unsigned && !is_bool, true},
        {"is_integer", !is_float, true}, {"is_exact", !is_float, true},
        {"has_infinity", is_float, true}, {"has_quiet_NaN", is_float, true},
        {"has_signaling_NaN", is_float, true}, {"is_iec559", is_float, true},
        {"is_bounded", 1, true}, {"is_modulo", is_unsigned && !is_bool, true},
        {"digits", digits, false}, {"digits10", digits10, false},
        {"max_digits10", is_float ? f.max_digits10 : 0, false}, {"radix", 2, false},
        {"min_exponent", f.min_exponent, false}, {"max_exponent", f.max_exponent, false},
        {"min_exponent10", f.min_exponent10, false},
        {"max_exponent10", f.max_exponent10, false},
    };
    for (size_t i = 0; i < sizeof data / sizeof data[0]; i++)
        if (strcmp(name, data[i].name) == 0) {
            *out = lang_p_num(p, tok, data[i].is_bool ? lang_ty_bool : lang_ty_int,
                              (uint64_t)data[i].value, 0);
            return true;
        }
    return false;
}

LangNode *lang_p_numeric_limits(LangParser *p)
{
    LangToken *tok = p->tok;
    if (!lang_p_is(tok, "numeric_limits") || !lang_p_is(tok->next, "<") ||
        lang_p_lookup(p, tok))
        return NULL;
    lang_p_next(p);
    lang_p_next(p);
    LangToken *at = p->tok;
    if (!lang_p_is_typename(p, at))
        lang_error_at(p->ctx, at, "expected a type in numeric_limits<...>");
    LangType *ty = lang_p_typename(p);
    if (!lang_is_integer(ty) && !lang_is_float(ty))
        lang_error_at(p->ctx, at, "numeric_limits<%s>: only scalar types have limits (bool, "
                      "char .. ulong, half, float, bfloat)", lang_type_name(p->ctx, ty));
    lang_p_close_angle(p);
    lang_p_skip(p, "::");
    LangToken *name = p->tok;
    if (!lang_p_is_name(name))
        lang_error_at(p->ctx, name, "expected a member of numeric_limits<%s>",
                      lang_type_name(p->ctx, ty));
    lang_p_next(p);
    if (lang_p_is(p->tok, "(") && !lang_p_is(p->tok->next, ")"))
        lang_error_at(p->ctx, p->tok->next, "numeric_limits<%s>::%.*s takes no arguments",
                      lang_type_name(p->ctx, ty), name->len, name->loc);
    const bool called = lang_p_is(p->tok, "(");
    char member_name[32];
    snprintf(member_name, sizeof member_name, "%.*s", name->len < 31 ? name->len : 31, name->loc);
    LangNode *node = NULL;
    if (!member(p, name, ty, member_name, called, &node))
        lang_error_at(p->ctx, name, "numeric_limits<%s> has no %s '%.*s'",
                      lang_type_name(p->ctx, ty), called ? "member function" : "member",
                      name->len, name->loc);
    if (called) {
        lang_p_next(p);
        lang_p_next(p);
    }
    return node;
}
