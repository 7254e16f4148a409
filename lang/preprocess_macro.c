/*
 * preprocess_macro.c — macros for the preprocessor (chibicc's preprocess.c, expansion half):
 * the macro table, the predefined macros, and expansion with Prosser's hidesets, which is what
 * stops `#define A A` and mutual recursion from expanding forever: argument collection,
 * pre-expansion of arguments, substitution with # and ## (and GNU's `, ## __VA_ARGS__`).
 * The directives that define and test macros are in preprocess.c.
 *
 * An expanded macro's tokens are spliced in front of the rest of the stream and rescanned by
 * the caller, so nothing here recurses on the shape of the input except argument
 * pre-expansion, which has a depth limit; the total number of tokens copied is capped too, so
 * hostile input gets an error, not a crash or a hang. <metal_stdlib>'s constants (INFINITY,
 * FLT_MAX, M_PI_F, INT_MAX ...) are predefined here as macros that expand to one literal token.
 *
 * Every token made by an expansion has `origin` set — the macro use for tokens of a macro
 * body, the written token for copies of macro arguments — so diagnostics point at the
 * user's source and a token from an expansion can never start a directive.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "preprocess_internal.h"

struct LangHideset {
    LangHideset *next;
    const char *name;
};

typedef struct MacroArg {
    LangToken *raw;         /* unexpanded (for # and ##), ends in LTK_EOF */
    LangToken *expanded;    /* fully macro-expanded, computed on first use */
} MacroArg;

/* ---- tokens and hidesets ------------------------------------------------------------------ */

bool lang_pp_is_ident(const LangToken *tok)
{
    return tok->kind == LTK_IDENT || tok->kind == LTK_KEYWORD;
}

bool lang_pp_is_punct(const LangToken *tok, const char *s)
{
    return tok->kind == LTK_PUNCT && lang_tok_equal(tok, s);
}

bool lang_pp_is_nounroll(const char *text, size_t len)
{
    static const char *const forms[] = {"nounroll", "unroll1", "unroll(1)",
                                        "clangloopunroll(disable)", "clangloopunroll_count(1)"};
    char squeezed[64];
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == ' ' || text[i] == '\t')
            continue;
        if (n + 1 == sizeof squeezed)
            return false;
        squeezed[n++] = text[i];
    }
    squeezed[n] = '\0';
    for (size_t i = 0; i < UTIL_ARRAY_LEN(forms); i++)
        if (strcmp(squeezed, forms[i]) == 0)
            return true;
    return false;
}

bool lang_pp_same_name(const LangToken *tok, const char *name)
{
    return lang_pp_is_ident(tok) && lang_tok_equal(tok, name);
}

char *lang_pp_tok_name(Pre *pp, const LangToken *tok)
{
    return lang_strndup(pp->ctx, tok->loc, (size_t)tok->len);
}

static LangToken *copy_token(Pre *pp, const LangToken *tok)
{
    if (++pp->work > MAX_EXPANSION)
        lang_error_at(pp->ctx, pp->work_tok ? pp->work_tok : tok, "macro expansion too large");
    LangToken *t = lang_alloc(pp->ctx, sizeof *t);
    *t = *tok;
    t->next = NULL;
    return t;
}

/* A copy of a token the expansion passes through unchanged (a macro argument): its origin is
 * the written token, so messages point at it. */
static LangToken *copy_arg_token(Pre *pp, LangToken *tok)
{
    LangToken *t = copy_token(pp, tok);
    if (!t->origin)
        t->origin = tok;
    return t;
}

LangToken *lang_pp_new_eof(Pre *pp, const LangToken *tok)
{
    LangToken *t = lang_alloc(pp->ctx, sizeof *t);
    *t = *tok;
    t->kind = LTK_EOF;
    t->len = 0;
    t->next = NULL;
    t->at_bol = true;
    return t;
}

static bool hideset_contains(const LangHideset *hs, const LangToken *tok)
{
    for (; hs; hs = hs->next)
        if (lang_tok_equal(tok, hs->name))
            return true;
    return false;
}

static bool hideset_has_name(const LangHideset *hs, const char *name)
{
    for (; hs; hs = hs->next)
        if (strcmp(hs->name, name) == 0)
            return true;
    return false;
}

static LangHideset *new_hideset(Pre *pp, const char *name, LangHideset *next)
{
    LangHideset *hs = lang_alloc(pp->ctx, sizeof *hs);
    hs->name = name;
    hs->next = next;
    return hs;
}

static LangHideset *hideset_union(Pre *pp, LangHideset *a, LangHideset *b)
{
    LangHideset head = {0};
    LangHideset *cur = &head;
    for (; a; a = a->next)
        if (!hideset_has_name(b, a->name))
            cur = cur->next = new_hideset(pp, a->name, NULL);
    cur->next = b;
    return head.next;
}

static LangHideset *hideset_intersection(Pre *pp, LangHideset *a, LangHideset *b)
{
    LangHideset *out = NULL;
    for (; a; a = a->next)
        if (hideset_has_name(b, a->name))
            out = new_hideset(pp, a->name, out);
    return out;
}

/* ---- macro table -------------------------------------------------------------------------- */

static unsigned hash_name(const char *s, int len)
{
    unsigned h = 2166136261u;
    for (int i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h % MACRO_BUCKETS;
}

static Macro **macro_slot(Pre *pp, const char *s, int len)
{
    Macro **slot = &pp->macros[hash_name(s, len)];
    for (; *slot; slot = &(*slot)->next)
        if ((int)strlen((*slot)->name) == len && memcmp((*slot)->name, s, (size_t)len) == 0)
            break;
    return slot;
}

Macro *lang_pp_find_macro(Pre *pp, const LangToken *tok)
{
    return lang_pp_is_ident(tok) ? *macro_slot(pp, tok->loc, tok->len) : NULL;
}

/* Adds (or replaces) a macro; redefinition is silently allowed, as most compilers do for
 * identical bodies. */
Macro *lang_pp_add_macro(Pre *pp, const char *name, MacroKind kind)
{
    Macro **slot = macro_slot(pp, name, (int)strlen(name));
    Macro *m = lang_alloc(pp->ctx, sizeof *m);
    m->name = lang_strndup(pp->ctx, name, strlen(name));
    m->kind = kind;
    m->is_objlike = true;
    if (*slot) {
        m->next = (*slot)->next;
    }
    *slot = m;
    return m;
}

void lang_pp_remove_macro(Pre *pp, const LangToken *tok)
{
    Macro **slot = macro_slot(pp, tok->loc, tok->len);
    if (*slot)
        *slot = (*slot)->next;
}

/* ---- predefined macros -------------------------------------------------------------------- */

typedef enum ConstType { C_INT, C_UINT, C_LONG, C_ULONG, C_FLOAT, C_HALF } ConstType;

static const struct {
    const char *name;
    ConstType type;
    double value;  /* exact for every integer here but LONG_MAX and ULONG_MAX, which round
                    * up to 2^63 and 2^64: those take the largest value of their type */
} predefined[] = {
    {"__METAL_VERSION__", C_INT, 310}, {"__METAL__", C_INT, 1}, {"__METAL_MACOS__", C_INT, 1},
    {"__LOCKSTEP__", C_INT, 1},
    /* metal_stdlib's float constants (spec 5.5) and <float.h>'s */
    {"INFINITY", C_FLOAT, INFINITY}, {"HUGE_VALF", C_FLOAT, INFINITY},
    {"NAN", C_FLOAT, NAN}, {"MAXFLOAT", C_FLOAT, 0x1.fffffep127},
    {"FLT_MAX", C_FLOAT, 0x1.fffffep127}, {"FLT_MIN", C_FLOAT, 0x1p-126},
    {"FLT_EPSILON", C_FLOAT, 0x1p-23},
    {"HALF_MAX", C_HALF, 65504.0}, {"MAXHALF", C_HALF, 65504.0},
    {"HUGE_VALH", C_HALF, INFINITY}, {"HALF_MIN", C_HALF, 0x1p-14},
    {"HALF_EPSILON", C_HALF, 0x1p-10},
    {"M_E_F", C_FLOAT, 2.718281828459045235}, {"M_LOG2E_F", C_FLOAT, 1.442695040888963407},
    {"M_LOG10E_F", C_FLOAT, 0.434294481903251828}, {"M_LN2_F", C_FLOAT, 0.693147180559945309},
    {"M_LN10_F", C_FLOAT, 2.302585092994045684}, {"M_PI_F", C_FLOAT, 3.141592653589793238},
    {"M_PI_2_F", C_FLOAT, 1.570796326794896619}, {"M_PI_4_F", C_FLOAT, 0.785398163397448310},
    {"M_1_PI_F", C_FLOAT, 0.318309886183790672}, {"M_2_PI_F", C_FLOAT, 0.636619772367581343},
    {"M_2_SQRTPI_F", C_FLOAT, 1.128379167095512574}, {"M_SQRT2_F", C_FLOAT, 1.414213562373095049},
    {"M_SQRT1_2_F", C_FLOAT, 0.707106781186547524},
    {"M_E_H", C_HALF, 2.718281828459045235}, {"M_LOG2E_H", C_HALF, 1.442695040888963407},
    {"M_LOG10E_H", C_HALF, 0.434294481903251828}, {"M_LN2_H", C_HALF, 0.693147180559945309},
    {"M_LN10_H", C_HALF, 2.302585092994045684}, {"M_PI_H", C_HALF, 3.141592653589793238},
    {"M_PI_2_H", C_HALF, 1.570796326794896619}, {"M_PI_4_H", C_HALF, 0.785398163397448310},
    {"M_1_PI_H", C_HALF, 0.318309886183790672}, {"M_2_PI_H", C_HALF, 0.636619772367581343},
    {"M_2_SQRTPI_H", C_HALF, 1.128379167095512574}, {"M_SQRT2_H", C_HALF, 1.414213562373095049},
    {"M_SQRT1_2_H", C_HALF, 0.707106781186547524},
    /* <limits.h>, with MSL's sizes (char is signed) */
    {"CHAR_BIT", C_INT, 8}, {"CHAR_MAX", C_INT, 127}, {"CHAR_MIN", C_INT, -128},
    {"SCHAR_MAX", C_INT, 127}, {"SCHAR_MIN", C_INT, -128}, {"UCHAR_MAX", C_INT, 255},
    {"SHRT_MAX", C_INT, 32767}, {"SHRT_MIN", C_INT, -32768}, {"USHRT_MAX", C_INT, 65535},
    {"INT_MAX", C_INT, 2147483647.0}, {"INT_MIN", C_INT, -2147483648.0},
    {"UINT_MAX", C_UINT, 4294967295.0},
    {"LONG_MAX", C_LONG, 0x1p63}, {"LONG_MIN", C_LONG, -0x1p63}, {"ULONG_MAX", C_ULONG, 0x1p64},
};

void lang_pp_define_predefined(Pre *pp)
{
    for (size_t i = 0; i < UTIL_ARRAY_LEN(predefined); i++) {
        Macro *m = lang_pp_add_macro(pp, predefined[i].name, MACRO_LITERAL);
        LangToken *t = &m->literal;
        t->kind = LTK_NUM;
        double v = predefined[i].value;
        switch (predefined[i].type) {
        case C_INT:
            /* negative values (INT_MIN) are one token holding the sign-extended value */
            t->ival = (uint64_t)(int64_t)v;
            t->num_type = lang_ty_int;
            t->loc = lang_format(pp->ctx, "%.0f", v);
            break;
        case C_UINT:
            t->ival = (uint64_t)v;
            t->num_type = lang_ty_uint;
            t->loc = lang_format(pp->ctx, "%.0fu", v);
            break;
        case C_LONG:
            t->ival = v >= 0x1p63 ? (uint64_t)INT64_MAX : (uint64_t)(int64_t)v;
            t->num_type = lang_ty_long;
            t->loc = lang_format(pp->ctx, "%" PRId64 "l", (int64_t)t->ival);
            break;
        case C_ULONG:
            t->ival = UINT64_MAX;
            t->num_type = lang_ty_ulong;
            t->loc = lang_format(pp->ctx, "%" PRIu64 "ul", t->ival);
            break;
        case C_FLOAT:
            t->is_float = true;
            t->fval = (float)v;
            t->num_type = lang_ty_float;
            t->loc = lang_format(pp->ctx, "%af", t->fval);
            break;
        case C_HALF:
            t->is_float = true;
            t->fval = v;
            t->num_type = lang_ty_half;
            t->loc = lang_format(pp->ctx, "%ah", v);
            break;
        }
        /* the spelling # and ## see; infinities and NaN have none and keep the macro's */
        if (isfinite(v))
            t->len = (int)strlen(t->loc);
        else
            t->loc = NULL;
    }
    lang_pp_add_macro(pp, "__LINE__", MACRO_LINE);
    lang_pp_add_macro(pp, "__FILE__", MACRO_FILE);
    lang_pp_add_macro(pp, "__COUNTER__", MACRO_COUNTER);
}

/* ---- macro expansion ---------------------------------------------------------------------- */

/* The written token a (possibly expanded) token stands for. */
static const LangToken *source_of(const LangToken *tok)
{
    while (tok->origin)
        tok = tok->origin;
    return tok;
}

/* A predefined macro's single token, placed at the use (its spelling is not in any file,
 * so messages go by its origin). */
static LangToken *builtin_token(Pre *pp, Macro *m, LangToken *use)
{
    LangToken *t = copy_token(pp, use);
    const LangToken *src = source_of(use);
    t->origin = use;
    t->hideset = NULL;
    switch (m->kind) {
    case MACRO_LITERAL:
        if (m->literal.loc) {
            t->loc = m->literal.loc;
            t->len = m->literal.len;
        }
        t->kind = LTK_NUM;
        t->is_float = m->literal.is_float;
        t->ival = m->literal.ival;
        t->fval = m->literal.fval;
        t->num_type = m->literal.num_type;
        break;
    case MACRO_LINE:
        t->kind = LTK_NUM;
        t->ival = (uint64_t)src->line;
        t->num_type = lang_ty_int;
        t->loc = lang_format(pp->ctx, "%d", src->line);
        t->len = (int)strlen(t->loc);
        break;
    case MACRO_COUNTER:
        t->kind = LTK_NUM;
        t->ival = (uint64_t)pp->counter;
        t->num_type = lang_ty_int;
        t->loc = lang_format(pp->ctx, "%d", pp->counter++);
        t->len = (int)strlen(t->loc);
        break;
    case MACRO_FILE:
        t->kind = LTK_STR;
        t->str = src->file ? src->file->name : "";
        t->loc = lang_format(pp->ctx, "\"%s\"", t->str);
        t->len = (int)strlen(t->loc);
        break;
    case MACRO_USER:
        break;
    }
    return t;
}

/* Reads the arguments of a function-like macro use; tok is the macro name, followed by '('.
 * Returns the arguments (one per parameter, plus the variadic rest) and sets *rparen. */
static MacroArg *read_macro_args(Pre *pp, LangToken *macro_tok, Macro *m, LangToken **rparen)
{
    int cap = m->num_params + 1;
    MacroArg *args = lang_alloc(pp->ctx, (size_t)cap * sizeof *args);
    int nargs = 0;
    LangToken *tok = macro_tok->next->next;
    bool empty_call = lang_pp_is_punct(tok, ")");
    for (;;) {
        LangToken head = {0};
        LangToken *cur = &head;
        int level = 0;
        /* the variadic argument takes everything left, commas included */
        bool rest = m->va_name && nargs == m->num_params;
        for (;; tok = tok->next) {
            if (tok->kind == LTK_EOF)
                lang_error_at(pp->ctx, macro_tok, "unterminated argument list invoking macro '%s'",
                              m->name);
            if (tok->at_bol && !tok->origin && lang_pp_is_punct(tok, "#"))
                lang_error_at(pp->ctx, tok, "directives are not supported inside macro arguments");
            if (level == 0 && (lang_pp_is_punct(tok, ")") || (lang_pp_is_punct(tok, ",") && !rest)))
                break;
            if (lang_pp_is_punct(tok, "("))
                level++;
            else if (lang_pp_is_punct(tok, ")"))
                level--;
            cur = cur->next = copy_arg_token(pp, tok);
        }
        cur->next = lang_pp_new_eof(pp, tok);
        if (nargs == cap) {
            MacroArg *bigger = lang_alloc(pp->ctx, (size_t)cap * 2 * sizeof *args);
            memcpy(bigger, args, (size_t)cap * sizeof *args);
            args = bigger;
            cap *= 2;
        }
        args[nargs++].raw = head.next ? head.next : cur->next;
        if (lang_pp_is_punct(tok, ")"))
            break;
        tok = tok->next; /* the comma */
    }
    *rparen = tok;
    if (empty_call && m->num_params == 0)
        nargs = 0; /* F() passes no argument to a macro without parameters */
    int want = m->num_params;
    if (m->va_name && nargs == want) /* F(a) for F(x, ...): the variadic part is empty */
        args[nargs++].raw = lang_pp_new_eof(pp, tok);
    if (nargs < want + (m->va_name != NULL))
        lang_error_at(pp->ctx, macro_tok, "macro '%s' requires %d argument%s, but only %d given",
                      m->name, want, want == 1 ? "" : "s", nargs);
    if (!m->va_name && nargs > want)
        lang_error_at(pp->ctx, macro_tok, "macro '%s' passed %d arguments, but takes just %d",
                      m->name, nargs, want);
    return args;
}

int lang_pp_find_param(const Macro *m, const LangToken *tok)
{
    if (!lang_pp_is_ident(tok))
        return -1;
    for (int i = 0; i < m->num_params; i++)
        if (lang_tok_equal(tok, m->params[i]))
            return i;
    if (m->va_name && lang_tok_equal(tok, m->va_name))
        return m->num_params;
    return -1;
}

/* "#x": the argument's spelling as a string literal. */
static LangToken *stringize(Pre *pp, LangToken *hash, LangToken *arg, LangToken *macro_tok)
{
    size_t n = 3;
    for (LangToken *t = arg; t->kind != LTK_EOF; t = t->next)
        n += (size_t)t->len * 2 + 1;
    char *text = lang_alloc(pp->ctx, n);
    char *quoted = lang_alloc(pp->ctx, n);
    size_t len = 0, qlen = 0;
    quoted[qlen++] = '"';
    for (LangToken *t = arg; t->kind != LTK_EOF; t = t->next) {
        if (t != arg && t->has_space) {
            text[len++] = ' ';
            quoted[qlen++] = ' ';
        }
        for (int i = 0; i < t->len; i++) {
            char c = t->loc[i];
            text[len++] = c;
            if ((c == '"' || c == '\\') && (t->kind == LTK_STR || t->kind == LTK_NUM))
                quoted[qlen++] = '\\';
            quoted[qlen++] = c;
        }
    }
    quoted[qlen++] = '"';
    LangToken *t = copy_token(pp, hash);
    t->kind = LTK_STR;
    t->loc = quoted;
    t->len = (int)qlen;
    t->str = text;
    t->origin = macro_tok;
    return t;
}

/* "a ## b": re-lexes the joined spelling, which must be one token. A lexer error is reported
 * again at the macro use (the pasted text has no place in any file), so the lexer's longjmp is
 * caught here for the moment. */
static LangToken *paste(Pre *pp, LangToken *lhs, LangToken *rhs, LangToken *macro_tok)
{
    LangCtx *ctx = pp->ctx;
    char *text = lang_format(ctx, "%.*s%.*s", lhs->len, lhs->loc, rhs->len, rhs->loc);
    LangFile *tmp = lang_alloc(ctx, sizeof *tmp);
    tmp->name = lhs->file ? lhs->file->name : "<paste>";
    tmp->contents = text;
    tmp->index = lhs->file ? lhs->file->index : 0;
    jmp_buf saved;
    memcpy(saved, ctx->bail, sizeof saved);
    LangToken *volatile toks = NULL;
    if (setjmp(ctx->bail) == 0)
        toks = lang_tokenize(ctx, tmp);
    memcpy(ctx->bail, saved, sizeof saved);
    if (!toks || toks->kind == LTK_EOF || toks->next->kind != LTK_EOF)
        lang_error_at(ctx, macro_tok, "pasting \"%.*s\" and \"%.*s\" does not give a valid token",
                      lhs->len, lhs->loc, rhs->len, rhs->loc);
    LangToken *t = copy_token(pp, toks);
    t->file = lhs->file;
    t->line = lhs->line;
    t->col = lhs->col;
    t->at_bol = false;
    t->has_space = lhs->has_space;
    t->origin = macro_tok;
    t->hideset = NULL;
    return t;
}

static LangToken *expanded_arg(Pre *pp, MacroArg *arg, LangToken *macro_tok)
{
    if (!arg->expanded) {
        if (++pp->arg_depth > MAX_ARG_DEPTH)
            lang_error_at(pp->ctx, macro_tok, "macro arguments nested too deeply");
        LangToken head = {0};
        LangToken *cur = &head;
        for (LangToken *t = arg->raw; t->kind != LTK_EOF; t = t->next)
            cur = cur->next = copy_token(pp, t);
        cur->next = lang_pp_new_eof(pp, macro_tok);
        arg->expanded = lang_pp_expand_list(pp, head.next);
        pp->arg_depth--;
    }
    return arg->expanded;
}

/* Appends copies of a token list (up to its EOF) after *cur. */
static LangToken *append_copies(Pre *pp, LangToken *cur, LangToken *list, const LangToken *like)
{
    for (LangToken *t = list; t->kind != LTK_EOF; t = t->next) {
        cur = cur->next = copy_arg_token(pp, t);
        if (t == list && like) {
            cur->has_space = like->has_space;
            cur->at_bol = false;
        }
    }
    return cur;
}

/* The body of a function-like macro with its arguments substituted (C 6.10.3.1-3). */
static LangToken *subst(Pre *pp, Macro *m, MacroArg *args, LangToken *macro_tok)
{
    LangToken head = {0};
    LangToken *cur = &head;
    for (LangToken *t = m->body; t->kind != LTK_EOF;) {
        int p;
        if (lang_pp_is_punct(t, "#") && (p = lang_pp_find_param(m, t->next)) >= 0) {
            cur = cur->next = stringize(pp, t, args[p].raw, macro_tok);
            t = t->next->next;
            continue;
        }
        /* GNU: ", ## __VA_ARGS__" drops the comma when the variadic part is empty */
        if (lang_pp_is_punct(t, ",") && lang_pp_is_punct(t->next, "##") && m->va_name &&
            lang_pp_find_param(m, t->next->next) == m->num_params) {
            LangToken *va = args[m->num_params].raw;
            if (va->kind != LTK_EOF) {
                cur = cur->next = copy_token(pp, t);
                cur->origin = macro_tok;
                cur = append_copies(pp, cur, va, t->next->next);
            }
            t = t->next->next->next;
            continue;
        }
        if (lang_pp_is_punct(t, "##")) {
            LangToken *rhs = t->next;
            p = lang_pp_find_param(m, rhs);
            if (p >= 0) {
                LangToken *a = args[p].raw;
                if (a->kind != LTK_EOF) {
                    if (cur == &head) {
                        cur = append_copies(pp, cur, a, rhs);
                    } else {
                        *cur = *paste(pp, cur, a, macro_tok);
                        cur = append_copies(pp, cur, a->next, NULL);
                    }
                }
            } else if (cur == &head) {
                cur = cur->next = copy_token(pp, rhs);
                cur->origin = macro_tok;
            } else {
                *cur = *paste(pp, cur, rhs, macro_tok);
            }
            t = rhs->next;
            continue;
        }
        p = lang_pp_find_param(m, t);
        if (p >= 0 && lang_pp_is_punct(t->next, "##")) {
            LangToken *a = args[p].raw;
            if (a->kind == LTK_EOF) {
                /* an empty left operand: the right one stands alone */
                LangToken *rhs = t->next->next;
                int q = lang_pp_find_param(m, rhs);
                if (q >= 0) {
                    cur = append_copies(pp, cur, args[q].raw, t);
                } else {
                    cur = cur->next = copy_token(pp, rhs);
                    cur->origin = macro_tok;
                }
                t = rhs->next;
            } else {
                cur = append_copies(pp, cur, a, t);
                t = t->next;
            }
            continue;
        }
        if (p >= 0) {
            cur = append_copies(pp, cur, expanded_arg(pp, &args[p], macro_tok), t);
            t = t->next;
            continue;
        }
        cur = cur->next = copy_token(pp, t);
        cur->origin = macro_tok;
        t = t->next;
    }
    cur->next = NULL;
    return head.next;
}

/* Expands the macro named by tok if it is one (and not hidden); on success *rest is the
 * expansion spliced in front of what followed the use. */
bool lang_pp_expand_macro(Pre *pp, LangToken **rest, LangToken *tok)
{
    if (hideset_contains(tok->hideset, tok))
        return false;
    Macro *m = lang_pp_find_macro(pp, tok);
    if (!m && lang_pp_same_name(tok, "_Pragma")) {
        /* C99's pragma operator (`#define UNROLL _Pragma("unroll")`): like #pragma, it
         * changes nothing here, and goes away with its operand */
        LangToken *open = tok->next;
        LangToken *str = lang_pp_is_punct(open, "(") ? open->next : NULL;
        LangToken *close = str && str->kind == LTK_STR ? str->next : NULL;
        if (!close || !lang_pp_is_punct(close, ")"))
            lang_error_at(pp->ctx, tok, "_Pragma expects a string literal in parentheses");
        if (lang_pp_is_nounroll(str->str, strlen(str->str)))
            pp->no_unroll_next = true;
        *rest = close->next;
        return true;
    }
    if (!m)
        return false;
    if (m->kind != MACRO_USER) {
        LangToken *t = builtin_token(pp, m, tok);
        t->next = tok->next;
        *rest = t;
        return true;
    }
    if (!m->is_objlike && !lang_pp_is_punct(tok->next, "("))
        return false;
    bool outermost = !pp->work_tok;
    if (outermost)
        pp->work_tok = tok;
    LangToken *body, *after;
    LangHideset *hs;
    if (m->is_objlike) {
        hs = hideset_union(pp, tok->hideset, new_hideset(pp, m->name, NULL));
        LangToken head = {0};
        LangToken *cur = &head;
        for (LangToken *t = m->body; t->kind != LTK_EOF; t = t->next) {
            cur = cur->next = copy_token(pp, t);
            cur->origin = tok;
        }
        body = head.next;
        after = tok->next;
    } else {
        LangToken *rparen;
        MacroArg *args = read_macro_args(pp, tok, m, &rparen);
        hs = hideset_intersection(pp, tok->hideset, rparen->hideset);
        hs = hideset_union(pp, hs, new_hideset(pp, m->name, NULL));
        body = subst(pp, m, args, tok);
        after = rparen->next;
    }
    if (outermost)
        pp->work_tok = NULL;
    if (!body) {
        *rest = after;
        return true;
    }
    LangToken *last = body;
    for (LangToken *t = body; t; t = t->next) {
        t->hideset = hideset_union(pp, t->hideset, hs);
        last = t;
    }
    body->at_bol = tok->at_bol;
    body->has_space = tok->has_space;
    last->next = after;
    *rest = body;
    return true;
}

/* Macro-expands a token list that ends in EOF (a macro argument or an #if line); no
 * directives here. */
LangToken *lang_pp_expand_list(Pre *pp, LangToken *tok)
{
    LangToken head = {0};
    LangToken *cur = &head;
    while (tok->kind != LTK_EOF) {
        if (lang_pp_expand_macro(pp, &tok, tok))
            continue;
        cur = cur->next = tok;
        tok = tok->next;
    }
    cur->next = tok;
    return head.next;
}
