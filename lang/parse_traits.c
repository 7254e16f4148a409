/*
 * parse_traits.c — choosing code by type at compile time, as MLX's kernels do: `if constexpr`
 * (its discarded branch skipped as tokens, never parsed, so within a template instance it may
 * be ill-formed for that instance's types, as C++ allows) and <metal_type_traits>' value
 * traits (`is_same_v<T, bool>`, `is_integral<T>::value`, ...), each folded to a bool constant
 * where it is written; and its type traits (`conditional_t`, `make_unsigned_t`,
 * `enable_if_t`, ...), each the type it names, a false enable_if a marked void type that
 * parse_template.c and overload.c take as "no candidate" (SFINAE). A kernel's own name
 * spelled like a trait keeps its meaning, as with numeric_limits (parse_limits.c).
 */
#include <string.h>

#include "parse.h"

/* ---- if constexpr -------------------------------------------------------------------------- */

/* Skips a balanced group from its opening bracket (p->tok) through its closing one. */
static void skip_group(LangParser *p)
{
    LangToken *open = p->tok;
    int depth = 0;
    do {
        if (p->tok->kind == LTK_EOF)
            lang_error_at(p->ctx, open, "unterminated '%.*s'", open->len, open->loc);
        depth += lang_p_is(p->tok, "(") || lang_p_is(p->tok, "{") || lang_p_is(p->tok, "[");
        depth -= lang_p_is(p->tok, ")") || lang_p_is(p->tok, "}") || lang_p_is(p->tok, "]");
        lang_p_next(p);
    } while (depth > 0);
}

static bool at_open(const LangParser *p)
{
    return lang_p_is(p->tok, "(") || lang_p_is(p->tok, "{") || lang_p_is(p->tok, "[");
}

/* Skips one statement by its shape alone: what it would mean is never looked at, since a
 * discarded branch may name functions and types that do not fit this instance. */
void lang_p_skip_stmt(LangParser *p)
{
    LangToken *start = p->tok;
    if (++p->depth > LANG_P_MAX_DEPTH)
        lang_error_at(p->ctx, start, "expression or statement nests too deeply");
    if (lang_p_is(start, "{")) {
        skip_group(p);
    } else if (lang_p_consume(p, "if")) {
        lang_p_consume(p, "constexpr");
        if (!lang_p_is(p->tok, "("))
            lang_error_at(p->ctx, p->tok, "expected '('");
        skip_group(p);
        lang_p_skip_stmt(p);
        if (lang_p_consume(p, "else"))
            lang_p_skip_stmt(p);
    } else if (lang_p_consume(p, "for") || lang_p_consume(p, "while") ||
               lang_p_consume(p, "switch")) {
        if (!lang_p_is(p->tok, "("))
            lang_error_at(p->ctx, p->tok, "expected '('");
        skip_group(p);
        lang_p_skip_stmt(p);
    } else if (lang_p_consume(p, "do")) {
        lang_p_skip_stmt(p);
        lang_p_skip(p, "while");
        if (!lang_p_is(p->tok, "("))
            lang_error_at(p->ctx, p->tok, "expected '('");
        skip_group(p);
        lang_p_expect_semi(p);
    } else { /* an expression or declaration: through its ';' */
        while (!lang_p_is(p->tok, ";")) {
            if (p->tok->kind == LTK_EOF || lang_p_is(p->tok, "}") || lang_p_is(p->tok, ")") ||
                lang_p_is(p->tok, "]"))
                lang_error_at(p->ctx, p->tok, "expected ';' (to end the statement at line %d)",
                              start->line);
            if (at_open(p))
                skip_group(p);
            else
                lang_p_next(p);
        }
        lang_p_next(p);
    }
    p->depth--;
}

bool lang_p_constexpr_cond(LangParser *p)
{
    LangToken *at = p->tok;
    LangNode *c = lang_p_to_bool(p, lang_p_expr(p));
    int64_t v;
    if (!lang_p_eval(p, c, &v))
        lang_error_at(p->ctx, at, "the condition of 'if constexpr' must be a constant "
                      "expression (a template parameter, a trait, a constexpr value)");
    return v != 0;
}

/* ---- value traits --------------------------------------------------------------------------- */

typedef enum Trait {
    TR_SAME, TR_FLOATING_POINT, TR_INTEGRAL, TR_SIGNED, TR_UNSIGNED, TR_ARITHMETIC, TR_SCALAR,
    TR_VECTOR, TR_VOID, TR_POINTER, TR_CONST, TR_COUNT
} Trait;

static const char *const trait_names[TR_COUNT] = {
    "is_same", "is_floating_point", "is_integral", "is_signed", "is_unsigned", "is_arithmetic",
    "is_scalar", "is_vector", "is_void", "is_pointer", "is_const",
};

/* Which trait tok spells (`is_same` or `is_same_v`: *is_v says which), or -1. */
static int trait_of(const LangToken *tok, bool *is_v)
{
    for (int i = 0; i < TR_COUNT; i++) {
        int n = (int)strlen(trait_names[i]);
        if (tok->len < n || memcmp(tok->loc, trait_names[i], (size_t)n) != 0)
            continue;
        if (tok->len == n || (tok->len == n + 2 && memcmp(tok->loc + n, "_v", 2) == 0)) {
            *is_v = tok->len == n + 2;
            return i;
        }
    }
    return -1;
}

/* is_same: the same type, const and all (lang_same_type ignores const), down a pointer. */
static bool exact_same(const LangType *a, const LangType *b)
{
    if (!lang_same_type(a, b) || a->is_const != b->is_const)
        return false;
    return a->kind != LTY_POINTER || exact_same(a->base, b->base);
}

/* The value of trait tr for ty (and b for is_same). */
static bool trait_value(Trait tr, const LangType *ty, const LangType *b)
{
    const bool arithmetic = lang_is_integer(ty) || lang_is_float(ty);
    switch (tr) {
    case TR_SAME:
        return exact_same(ty, b);
    case TR_FLOATING_POINT: return lang_is_float(ty);
    case TR_INTEGRAL: return lang_is_integer(ty);
    case TR_SIGNED: /* T(-1) < T(0) */
        return lang_is_float(ty) || (lang_is_integer(ty) && !lang_is_unsigned(ty) &&
                                     ty->kind != LTY_BOOL);
    case TR_UNSIGNED: return lang_is_integer(ty) && (lang_is_unsigned(ty) || ty->kind == LTY_BOOL);
    case TR_ARITHMETIC: return arithmetic;
    case TR_SCALAR: /* arithmetic, enumerations (ints here) and pointers */
        return arithmetic || (ty->kind == LTY_POINTER && !ty->is_reference);
    case TR_VECTOR: return ty->kind == LTY_VECTOR;
    case TR_VOID: return ty->kind == LTY_VOID;
    case TR_POINTER: return ty->kind == LTY_POINTER && !ty->is_reference;
    case TR_CONST: return ty->is_const && !ty->is_reference;
    default: return false;
    }
}

/* Consumes one '>' closing a template argument list; a '>>' token gives up its first half
 * (a new token stands for the second, so the list itself is never changed: templates parse
 * their tokens again). */
void lang_p_close_angle(LangParser *p)
{
    LangToken *t = p->tok;
    if (lang_p_is(t, ">>")) {
        LangToken *rest = lang_alloc(p->ctx, sizeof *rest);
        *rest = *t;
        rest->loc = t->loc + 1;
        rest->len = 1;
        rest->col = t->col + 1;
        rest->has_space = false;
        p->prev = t;
        p->tok = rest;
        return;
    }
    lang_p_skip(p, ">");
}

static LangType *type_arg(LangParser *p, const LangToken *trait)
{
    LangToken *at = p->tok;
    if (!lang_p_is_typename(p, at))
        lang_error_at(p->ctx, at, "expected a type as argument of '%.*s'", trait->len,
                      trait->loc);
    return lang_p_typename(p);
}

/* <metal_type_traits>' type traits this compiler lacks, named as such (they reach the
 * expression parser, being no types here, whose message would be "undeclared"). */
static void unsupported_type_trait(LangParser *p, const LangToken *tok)
{
    static const char *const names[] = {
        "remove_reference", "remove_pointer", "remove_extent", "remove_all_extents",
        "remove_cvref", "add_const", "add_volatile", "add_cv", "add_pointer",
        "add_lvalue_reference", "add_rvalue_reference", "decay", "common_type",
        "underlying_type", "type_identity",
    };
    int len = tok->len;
    if (len > 2 && memcmp(tok->loc + len - 2, "_t", 2) == 0)
        len -= 2;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((int)strlen(names[i]) == len && memcmp(tok->loc, names[i], (size_t)len) == 0)
            lang_error_at(p->ctx, tok, "type trait '%.*s' is not supported yet (these are: "
                          "conditional, enable_if, remove_cv, remove_const, remove_volatile, "
                          "make_unsigned, make_signed, each as trait_t<...> or "
                          "trait<...>::type)", tok->len, tok->loc);
}

// trait = ("is_same" | "is_integral" | ...) ("_v" "<" types ">" | "<" types ">" "::" "value")
LangNode *lang_p_type_trait(LangParser *p)
{
    LangToken *tok = p->tok;
    if (tok->kind != LTK_IDENT || !lang_p_is(tok->next, "<") || lang_p_lookup(p, tok))
        return NULL;
    bool is_v = false;
    int tr = trait_of(tok, &is_v);
    if (tr < 0) {
        unsupported_type_trait(p, tok);
        if (tok->len > 3 && memcmp(tok->loc, "is_", 3) == 0)
            lang_error_at(p->ctx, tok, "unknown type trait '%.*s' (known: is_same, "
                          "is_floating_point, is_integral, is_signed, is_unsigned, "
                          "is_arithmetic, is_scalar, is_vector, is_void, is_pointer, is_const, "
                          "each as trait_v<T> or trait<T>::value)", tok->len, tok->loc);
        return NULL;
    }
    lang_p_next(p);
    lang_p_next(p);
    LangType *a = type_arg(p, tok), *b = NULL;
    if (tr == TR_SAME) {
        lang_p_skip(p, ",");
        b = type_arg(p, tok);
    }
    lang_p_close_angle(p);
    if (!is_v) {
        lang_p_skip(p, "::");
        if (!lang_p_is(p->tok, "value"))
            lang_error_at(p->ctx, p->tok, "expected 'value' after '%.*s<...>::' (or write "
                          "%.*s_v<...>)", tok->len, tok->loc, tok->len, tok->loc);
        lang_p_next(p);
    }
    return lang_p_num(p, tok, lang_ty_bool, trait_value((Trait)tr, a, b), 0);
}

/* ---- type traits --------------------------------------------------------------------------- */

/* What enable_if<false, T>::type is: a void type by this name, so a template whose
 * declaration names it is taken out of overload resolution (SFINAE, lang_p_is_disabled)
 * rather than failing; anywhere else it is an error (a soft one: a candidate's declaration
 * is parsed with its errors dropped). */
static char disabled_name[] = "enable_if<false>::type";

bool lang_p_is_disabled(const LangType *ty)
{
    for (; ty; ty = ty->base)
        if (ty->name == disabled_name)
            return true;
    return false;
}

typedef enum TypeTrait {
    TT_CONDITIONAL, TT_ENABLE_IF, TT_REMOVE_CV, TT_REMOVE_CONST, TT_REMOVE_VOLATILE,
    TT_MAKE_UNSIGNED, TT_MAKE_SIGNED, TT_COUNT
} TypeTrait;

static const char *const type_trait_names[TT_COUNT] = {
    "conditional", "enable_if", "remove_cv", "remove_const", "remove_volatile",
    "make_unsigned", "make_signed",
};

/* Which type trait tok spells (`conditional` or `conditional_t`: *is_t says which), or -1. */
static int type_trait_of(const LangToken *tok, bool *is_t)
{
    for (int i = 0; i < TT_COUNT; i++) {
        int n = (int)strlen(type_trait_names[i]);
        if (tok->len < n || memcmp(tok->loc, type_trait_names[i], (size_t)n) != 0)
            continue;
        if (tok->len == n || (tok->len == n + 2 && memcmp(tok->loc + n, "_t", 2) == 0)) {
            *is_t = tok->len == n + 2;
            return i;
        }
    }
    return -1;
}

/* The trait's name token after `typename` and `metal::` (either may be left out), or NULL. */
static LangToken *type_trait_at(LangParser *p, LangToken *tok)
{
    if (lang_p_is(tok, "typename"))
        tok = tok->next;
    if (lang_p_is(tok, "metal") && lang_p_is(tok->next, "::"))
        tok = tok->next->next;
    bool is_t;
    if (tok->kind != LTK_IDENT || !lang_p_is(tok->next, "<") || type_trait_of(tok, &is_t) < 0 ||
        lang_p_lookup(p, tok))
        return NULL;
    return tok;
}

bool lang_p_is_trait_type(LangParser *p, LangToken *tok)
{
    return type_trait_at(p, tok) != NULL;
}

/* Whether tok opens a template argument list (vec<, a template's or a trait's name) rather
 * than comparing: only such names are followed by one in a constant expression here. */
static bool opens_angle(LangParser *p, LangToken *name)
{
    bool is;
    if (!name || !lang_p_is_name(name))
        return false;
    if (trait_of(name, &is) >= 0 || type_trait_of(name, &is) >= 0)
        return true;
    LangSym *sym = lang_p_lookup(p, name);
    return (sym && (sym->tmpl || (sym->type && !sym->is_enum_const))) ||
           (!sym && lang_p_is_typename(p, name));
}

/* A bool template argument (enable_if's and conditional's first): any constant expression,
 * its '>' and '==' included, up to the ',' or '>' that ends it. It is parsed from a copy of
 * its tokens ending in an end-of-input, so the expression parser stops there (the tokens
 * themselves stay as they are: templates parse them again). */
static bool bool_arg(LangParser *p, const LangToken *trait)
{
    LangToken *start = p->tok, *end = start, *prev = NULL;
    bool split = false;
    for (int depth = 0, angles = 0; end->kind != LTK_EOF; end = end->next) {
        if (depth == 0 && angles <= 0 &&
            (lang_p_is(end, ",") || lang_p_is(end, ">") || lang_p_is(end, ">>")))
            break;
        if (lang_p_is(end, "(") || lang_p_is(end, "[") || lang_p_is(end, "{"))
            depth++;
        else if (lang_p_is(end, ")") || lang_p_is(end, "]") || lang_p_is(end, "}"))
            depth--;
        else if (depth == 0 && lang_p_is(end, "<") && opens_angle(p, prev))
            angles++;
        else if (depth == 0 && lang_p_is(end, ">"))
            angles--;
        else if (depth == 0 && lang_p_is(end, ">>"))
            angles -= 2;
        if (angles < 0) { /* `>>` closing this argument's inner list and the trait's */
            split = true;
            break;
        }
        prev = end;
    }
    if (end == start)
        lang_error_at(p->ctx, start, "expected a constant as the first argument of '%.*s'",
                      trait->len, trait->loc);
    LangToken head = {0}, *cur = &head;
    for (LangToken *t = start; t != end; t = t->next) {
        cur = cur->next = lang_alloc(p->ctx, sizeof *cur);
        *cur = *t;
    }
    if (split) { /* `is_integral_v<T>>`: the first '>' is the argument's */
        cur = cur->next = lang_alloc(p->ctx, sizeof *cur);
        *cur = *end;
        cur->len = 1;
    }
    cur = cur->next = lang_alloc(p->ctx, sizeof *cur);
    *cur = *end;
    cur->kind = LTK_EOF;
    cur->next = NULL;
    LangToken *stop = cur;
    p->tok = head.next;
    LangNode *e = lang_p_cond(p);
    int64_t v = 0;
    if (p->tok != stop)
        lang_error_at(p->ctx, p->tok, "expected ',' or '>' after the first argument of '%.*s'",
                      trait->len, trait->loc);
    if (!lang_p_eval(p, lang_p_to_bool(p, e), &v))
        lang_error_at(p->ctx, start, "the first argument of '%.*s' must be a constant "
                      "expression", trait->len, trait->loc);
    p->tok = end;
    if (split)
        lang_p_close_angle(p); /* the second '>' stays for the trait */
    return v != 0;
}

/* make_unsigned<T> and make_signed<T>: the integer of T's width and the other signedness,
 * const kept. */
static LangType *resign(LangParser *p, LangType *ty, bool to_unsigned, const LangToken *at)
{
    static LangType **const pairs[][2] = {
        {&lang_ty_char, &lang_ty_uchar}, {&lang_ty_short, &lang_ty_ushort},
        {&lang_ty_int, &lang_ty_uint}, {&lang_ty_long, &lang_ty_ulong},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (lang_same_type(ty, *pairs[i][0]) || lang_same_type(ty, *pairs[i][1]))
            return lang_qualified(p->ctx, *pairs[i][to_unsigned], ty->is_const);
    lang_error_at(p->ctx, at, "%s<%s>: only the integer types but bool have a %s version "
                  "(char, short, int, long and their unsigned types)",
                  to_unsigned ? "make_unsigned" : "make_signed", lang_type_name(p->ctx, ty),
                  to_unsigned ? "unsigned" : "signed");
    return ty;
}

// type-trait = "typename"? ("metal" "::")? name ("_t" "<" args ">" | "<" args ">" "::" "type")
//   conditional<B, T, U>, enable_if<B, T = void>, remove_cv<T>, remove_const<T>,
//   remove_volatile<T>, make_unsigned<T>, make_signed<T>
LangType *lang_p_trait_type(LangParser *p)
{
    LangToken *tok = type_trait_at(p, p->tok);
    while (p->tok != tok)
        lang_p_next(p);
    bool is_t = false;
    TypeTrait tt = (TypeTrait)type_trait_of(tok, &is_t);
    lang_p_next(p);
    lang_p_next(p);
    LangType *ty = NULL;
    if (tt == TT_CONDITIONAL || tt == TT_ENABLE_IF) {
        LangToken *at = p->tok;
        bool b = bool_arg(p, tok);
        LangType *then = lang_ty_void, *els = NULL;
        if (tt == TT_CONDITIONAL || !lang_p_is(p->tok, ">")) {
            lang_p_skip(p, ",");
            then = type_arg(p, tok);
        }
        if (tt == TT_CONDITIONAL) {
            lang_p_skip(p, ",");
            els = type_arg(p, tok);
        }
        if (tt == TT_CONDITIONAL) {
            ty = b ? then : els;
        } else if (b) {
            ty = then;
        } else {
            lang_error_soft(p->ctx, at, "enable_if's condition is false here, so it has no "
                            "type (a template whose declaration names it is no candidate for "
                            "a call; elsewhere it is an error)");
            ty = lang_alloc(p->ctx, sizeof *ty);
            *ty = *lang_ty_void;
            ty->name = disabled_name;
        }
    } else {
        LangToken *at = p->tok;
        ty = type_arg(p, tok);
        if (tt == TT_MAKE_UNSIGNED || tt == TT_MAKE_SIGNED)
            ty = resign(p, ty, tt == TT_MAKE_UNSIGNED, at);
        else if (tt != TT_REMOVE_VOLATILE) /* volatile is not kept on types here */
            ty = lang_qualified(p->ctx, ty, false);
    }
    lang_p_close_angle(p);
    if (!is_t) {
        lang_p_skip(p, "::");
        if (!lang_p_is(p->tok, "type"))
            lang_error_at(p->ctx, p->tok, "expected 'type' after '%.*s<...>::' (or write "
                          "%.*s_t<...>)", tok->len, tok->loc, tok->len, tok->loc);
        lang_p_next(p);
    }
    return ty;
}
