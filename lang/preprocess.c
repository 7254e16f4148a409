/*
 * preprocess.c — the C preprocessor for kernel sources (chibicc's preprocess.c): directives,
 * #include of local headers, conditional inclusion, and macro expansion with Prosser's
 * hidesets, which is what stops `#define A A` and mutual recursion from expanding forever.
 *
 * The token list is rewritten in one loop: an expanded macro's tokens are spliced in front
 * of the rest and rescanned, and an #include splices the header's tokens (ending in that
 * header's own EOF token, kept as a marker so the end of the header is seen). Nothing recurses
 * on the shape of the input except argument pre-expansion and #if expressions, and both have
 * depth limits; total expansion work is capped too, so hostile input gets an error, not a
 * crash or a hang. <metal_stdlib> and every other <...> header contribute nothing: the
 * language knows the standard library built in, and its constants (INFINITY, FLT_MAX,
 * M_PI_F, INT_MAX ...) are predefined here as macros that expand to one literal token.
 *
 * Every token made by an expansion has `origin` set — the macro use for tokens of a macro
 * body, the written token for copies of macro arguments — so diagnostics point at the
 * user's source and a token from an expansion can never start a directive.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lang_internal.h"

enum {
    MAX_INCLUDE_DEPTH = 64,
    MAX_ARG_DEPTH = 200,       /* macro calls nested in macro arguments */
    MAX_EXPR_DEPTH = 200,      /* nesting in an #if expression */
    MAX_EXPANSION = 1 << 20,   /* tokens copied by macro expansion, in all */
    MACRO_BUCKETS = 1024,
};

struct LangHideset {
    LangHideset *next;
    const char *name;
};

typedef enum MacroKind {
    MACRO_USER,      /* #define */
    MACRO_LITERAL,   /* a predefined constant: expands to a copy of `literal` */
    MACRO_LINE, MACRO_FILE, MACRO_COUNTER
} MacroKind;

typedef struct Macro Macro;
struct Macro {
    Macro *next;            /* hash chain */
    char *name;
    MacroKind kind;
    bool is_objlike;
    char **params;
    int num_params;
    char *va_name;          /* variadic: "__VA_ARGS__" or a GNU named parameter; else NULL */
    LangToken *body;        /* ends in LTK_EOF */
    LangToken literal;      /* MACRO_LITERAL */
};

typedef struct MacroArg {
    LangToken *raw;         /* unexpanded (for # and ##), ends in LTK_EOF */
    LangToken *expanded;    /* fully macro-expanded, computed on first use */
} MacroArg;

typedef enum CondCtx { IN_THEN, IN_ELIF, IN_ELSE } CondCtx;

typedef struct CondIncl CondIncl;
struct CondIncl {
    CondIncl *next;
    CondCtx ctx;
    LangToken *tok;         /* the #if, for "unterminated" */
    bool included;          /* some branch was taken */
};

typedef struct IncludeLevel {
    LangFile *file;
    CondIncl *cond_at_entry;
} IncludeLevel;

typedef struct Pre {
    LangCtx *ctx;
    Macro *macros[MACRO_BUCKETS];
    CondIncl *cond;
    IncludeLevel includes[MAX_INCLUDE_DEPTH + 1];
    int num_includes;
    char **once_files;      /* #pragma once */
    size_t num_once, once_cap;
    long work;              /* tokens copied by expansion so far */
    int arg_depth;
    int counter;
    LangToken *work_tok;    /* the outermost macro use, for "macro expansion too large" */
} Pre;

/* ---- tokens and hidesets ------------------------------------------------------------------ */

static bool is_ident(const LangToken *tok)
{
    return tok->kind == LTK_IDENT || tok->kind == LTK_KEYWORD;
}

static bool is_punct(const LangToken *tok, const char *s)
{
    return tok->kind == LTK_PUNCT && lang_tok_equal(tok, s);
}

static bool same_name(const LangToken *tok, const char *name)
{
    return is_ident(tok) && lang_tok_equal(tok, name);
}

static char *tok_name(Pre *pp, const LangToken *tok)
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

static LangToken *new_eof(Pre *pp, const LangToken *tok)
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

static Macro *find_macro(Pre *pp, const LangToken *tok)
{
    return is_ident(tok) ? *macro_slot(pp, tok->loc, tok->len) : NULL;
}

/* Adds (or replaces) a macro; redefinition is silently allowed, as most compilers do for
 * identical bodies. */
static Macro *add_macro(Pre *pp, const char *name, MacroKind kind)
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

static void remove_macro(Pre *pp, const LangToken *tok)
{
    Macro **slot = macro_slot(pp, tok->loc, tok->len);
    if (*slot)
        *slot = (*slot)->next;
}

/* ---- predefined macros -------------------------------------------------------------------- */

typedef enum ConstType { C_INT, C_UINT, C_FLOAT, C_HALF } ConstType;

static const struct {
    const char *name;
    ConstType type;
    double value;  /* exact for every integer here */
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
};

static void define_predefined(Pre *pp)
{
    for (size_t i = 0; i < UTIL_ARRAY_LEN(predefined); i++) {
        Macro *m = add_macro(pp, predefined[i].name, MACRO_LITERAL);
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
    add_macro(pp, "__LINE__", MACRO_LINE);
    add_macro(pp, "__FILE__", MACRO_FILE);
    add_macro(pp, "__COUNTER__", MACRO_COUNTER);
}

/* ---- macro expansion ---------------------------------------------------------------------- */

static LangToken *expand_list(Pre *pp, LangToken *tok);

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
    bool empty_call = is_punct(tok, ")");
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
            if (tok->at_bol && !tok->origin && is_punct(tok, "#"))
                lang_error_at(pp->ctx, tok, "directives are not supported inside macro arguments");
            if (level == 0 && (is_punct(tok, ")") || (is_punct(tok, ",") && !rest)))
                break;
            if (is_punct(tok, "("))
                level++;
            else if (is_punct(tok, ")"))
                level--;
            cur = cur->next = copy_arg_token(pp, tok);
        }
        cur->next = new_eof(pp, tok);
        if (nargs == cap) {
            MacroArg *bigger = lang_alloc(pp->ctx, (size_t)cap * 2 * sizeof *args);
            memcpy(bigger, args, (size_t)cap * sizeof *args);
            args = bigger;
            cap *= 2;
        }
        args[nargs++].raw = head.next ? head.next : cur->next;
        if (is_punct(tok, ")"))
            break;
        tok = tok->next; /* the comma */
    }
    *rparen = tok;
    if (empty_call && m->num_params == 0)
        nargs = 0; /* F() passes no argument to a macro without parameters */
    int want = m->num_params;
    if (m->va_name && nargs == want) /* F(a) for F(x, ...): the variadic part is empty */
        args[nargs++].raw = new_eof(pp, tok);
    if (nargs < want + (m->va_name != NULL))
        lang_error_at(pp->ctx, macro_tok, "macro '%s' requires %d argument%s, but only %d given",
                      m->name, want, want == 1 ? "" : "s", nargs);
    if (!m->va_name && nargs > want)
        lang_error_at(pp->ctx, macro_tok, "macro '%s' passed %d arguments, but takes just %d",
                      m->name, nargs, want);
    return args;
}

static int find_param(const Macro *m, const LangToken *tok)
{
    if (!is_ident(tok))
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
        cur->next = new_eof(pp, macro_tok);
        arg->expanded = expand_list(pp, head.next);
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
        if (is_punct(t, "#") && (p = find_param(m, t->next)) >= 0) {
            cur = cur->next = stringize(pp, t, args[p].raw, macro_tok);
            t = t->next->next;
            continue;
        }
        /* GNU: ", ## __VA_ARGS__" drops the comma when the variadic part is empty */
        if (is_punct(t, ",") && is_punct(t->next, "##") && m->va_name &&
            find_param(m, t->next->next) == m->num_params) {
            LangToken *va = args[m->num_params].raw;
            if (va->kind != LTK_EOF) {
                cur = cur->next = copy_token(pp, t);
                cur->origin = macro_tok;
                cur = append_copies(pp, cur, va, t->next->next);
            }
            t = t->next->next->next;
            continue;
        }
        if (is_punct(t, "##")) {
            LangToken *rhs = t->next;
            p = find_param(m, rhs);
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
        p = find_param(m, t);
        if (p >= 0 && is_punct(t->next, "##")) {
            LangToken *a = args[p].raw;
            if (a->kind == LTK_EOF) {
                /* an empty left operand: the right one stands alone */
                LangToken *rhs = t->next->next;
                int q = find_param(m, rhs);
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
static bool expand_macro(Pre *pp, LangToken **rest, LangToken *tok)
{
    if (hideset_contains(tok->hideset, tok))
        return false;
    Macro *m = find_macro(pp, tok);
    if (!m)
        return false;
    if (m->kind != MACRO_USER) {
        LangToken *t = builtin_token(pp, m, tok);
        t->next = tok->next;
        *rest = t;
        return true;
    }
    if (!m->is_objlike && !is_punct(tok->next, "("))
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
static LangToken *expand_list(Pre *pp, LangToken *tok)
{
    LangToken head = {0};
    LangToken *cur = &head;
    while (tok->kind != LTK_EOF) {
        if (expand_macro(pp, &tok, tok))
            continue;
        cur = cur->next = tok;
        tok = tok->next;
    }
    cur->next = tok;
    return head.next;
}

/* ---- directives --------------------------------------------------------------------------- */

static bool is_directive(const LangToken *tok)
{
    return tok->at_bol && !tok->origin && is_punct(tok, "#");
}

static LangToken *skip_line(LangToken *tok)
{
    while (!tok->at_bol)
        tok = tok->next;
    return tok;
}

/* Copies the rest of a directive line, ending the copy with an EOF; *rest is the next line. */
static LangToken *copy_line(Pre *pp, LangToken **rest, LangToken *tok)
{
    LangToken head = {0};
    LangToken *cur = &head;
    for (; !tok->at_bol; tok = tok->next) {
        cur = cur->next = lang_alloc(pp->ctx, sizeof *cur);
        *cur = *tok;
        cur->next = NULL;
    }
    cur->next = new_eof(pp, tok);
    *rest = tok;
    return head.next;
}

static void check_macro_name(Pre *pp, LangToken *tok, LangToken *directive)
{
    if (tok->at_bol)
        lang_error_at(pp->ctx, directive, "macro name missing");
    if (!is_ident(tok))
        lang_error_at(pp->ctx, tok, "macro names must be identifiers");
    if (same_name(tok, "defined"))
        lang_error_at(pp->ctx, tok, "'defined' cannot be used as a macro name");
}

/* #define NAME body | #define NAME(params) body */
static LangToken *read_define(Pre *pp, LangToken *directive)
{
    LangToken *tok = directive->next;
    check_macro_name(pp, tok, directive);
    LangToken *name = tok;
    Macro tmp = {.is_objlike = true};
    tok = tok->next;
    if (!tok->at_bol && is_punct(tok, "(") && !tok->has_space) {
        LangToken *lparen = tok;
        tmp.is_objlike = false;
        int cap = 4;
        tmp.params = lang_alloc(pp->ctx, (size_t)cap * sizeof *tmp.params);
        tok = tok->next;
        while (!is_punct(tok, ")") || tmp.num_params > 0) {
            if (tok->at_bol)
                lang_error_at(pp->ctx, lparen, "missing ')' in macro parameter list");
            if (is_punct(tok, "...")) {
                tmp.va_name = "__VA_ARGS__";
                tok = tok->next;
                if (!is_punct(tok, ")"))
                    lang_error_at(pp->ctx, tok, "expected ')' after '...'");
                break;
            }
            if (!is_ident(tok))
                lang_error_at(pp->ctx, tok, "expected parameter name, found '%.*s'", tok->len,
                              tok->loc);
            if (same_name(tok, "__VA_ARGS__"))
                lang_error_at(pp->ctx, tok, "__VA_ARGS__ can only appear in the expansion of a "
                              "variadic macro");
            for (int i = 0; i < tmp.num_params; i++)
                if (lang_tok_equal(tok, tmp.params[i]))
                    lang_error_at(pp->ctx, tok, "duplicate macro parameter '%s'", tmp.params[i]);
            if (is_punct(tok->next, "...")) { /* GNU named variadic parameter: args... */
                tmp.va_name = tok_name(pp, tok);
                tok = tok->next->next;
                if (!is_punct(tok, ")"))
                    lang_error_at(pp->ctx, tok, "expected ')' after '...'");
                break;
            }
            if (tmp.num_params == cap) {
                char **bigger = lang_alloc(pp->ctx, (size_t)cap * 2 * sizeof *bigger);
                memcpy(bigger, tmp.params, (size_t)cap * sizeof *bigger);
                tmp.params = bigger;
                cap *= 2;
            }
            tmp.params[tmp.num_params++] = tok_name(pp, tok);
            tok = tok->next;
            if (is_punct(tok, ")"))
                break;
            if (!is_punct(tok, ",") || tok->at_bol)
                lang_error_at(pp->ctx, tok->at_bol ? lparen : tok,
                              "expected ',' or ')' in macro parameter list");
            tok = tok->next;
        }
        tok = tok->next; /* ')' */
    }
    LangToken *rest;
    tmp.body = copy_line(pp, &rest, tok);
    for (LangToken *t = tmp.body; t->kind != LTK_EOF; t = t->next) {
        if (is_punct(t, "##") && (t == tmp.body || t->next->kind == LTK_EOF))
            lang_error_at(pp->ctx, t, "'##' cannot appear at either end of a macro expansion");
        if (!tmp.is_objlike && is_punct(t, "#") && find_param(&tmp, t->next) < 0)
            lang_error_at(pp->ctx, t, "'#' is not followed by a macro parameter");
        if (same_name(t, "__VA_ARGS__") && !(tmp.va_name && strcmp(tmp.va_name, "__VA_ARGS__") == 0))
            lang_error_at(pp->ctx, t, "__VA_ARGS__ can only appear in the expansion of a "
                          "variadic macro");
    }
    char *macro_name = tok_name(pp, name);
    Macro *m = add_macro(pp, macro_name, MACRO_USER);
    Macro *chain = m->next;
    *m = tmp;
    m->name = macro_name;
    m->kind = MACRO_USER;
    m->next = chain;
    return rest;
}

/* Skips a group whose condition is false, up to its #elif/#else/#endif (left for the caller)
 * or an EOF. Nested conditionals are counted, not recursed into. */
static LangToken *skip_cond_incl(LangToken *tok)
{
    int depth = 0;
    for (; tok->kind != LTK_EOF; tok = tok->next) {
        if (!is_directive(tok))
            continue;
        LangToken *d = tok->next;
        if (same_name(d, "if") || same_name(d, "ifdef") || same_name(d, "ifndef")) {
            depth++;
        } else if (same_name(d, "elif") || same_name(d, "else") || same_name(d, "endif")) {
            if (depth == 0)
                return tok;
            if (same_name(d, "endif"))
                depth--;
        }
    }
    return tok;
}

/* ---- #if expressions ---------------------------------------------------------------------- */

typedef struct Value {
    uint64_t v;
    bool uns;      /* C: unsigned if either operand is (intmax_t/uintmax_t arithmetic) */
} Value;

typedef struct Eval {
    Pre *pp;
    LangToken *tok;
    int depth;
    int skip;      /* > 0 inside an operand that is not evaluated (0 && x/0) */
} Eval;

static Value eval_cond(Eval *e);

static Value eval_primary(Eval *e)
{
    LangToken *tok = e->tok;
    if (is_punct(tok, "(")) {
        e->tok = tok->next;
        Value v = eval_cond(e);
        if (!is_punct(e->tok, ")"))
            lang_error_at(e->pp->ctx, e->tok->kind == LTK_EOF ? tok : e->tok,
                          "expected ')' in #if expression");
        e->tok = e->tok->next;
        return v;
    }
    e->tok = tok->next;
    if (tok->kind == LTK_NUM) {
        if (tok->is_float)
            lang_error_at(e->pp->ctx, tok, "floating literal in #if expression");
        return (Value){tok->ival, tok->num_type == lang_ty_uint || tok->num_type == lang_ty_ulong};
    }
    if (is_ident(tok)) /* identifiers left after expansion are 0; true is 1 in C++ */
        return (Value){same_name(tok, "true"), false};
    if (tok->kind == LTK_EOF)
        lang_error_at(e->pp->ctx, tok, "expected value in #if expression");
    lang_error_at(e->pp->ctx, tok, "invalid token '%.*s' in #if expression", tok->len, tok->loc);
}

static Value eval_unary(Eval *e)
{
    LangToken *tok = e->tok;
    if (++e->depth > MAX_EXPR_DEPTH)
        lang_error_at(e->pp->ctx, tok, "#if expression nested too deeply");
    Value v;
    if (is_punct(tok, "+") || is_punct(tok, "-") || is_punct(tok, "~") || is_punct(tok, "!")) {
        e->tok = tok->next;
        v = eval_unary(e);
        if (is_punct(tok, "-"))
            v.v = 0 - v.v;
        else if (is_punct(tok, "~"))
            v.v = ~v.v;
        else if (is_punct(tok, "!"))
            v = (Value){v.v == 0, false};
    } else {
        v = eval_primary(e);
    }
    e->depth--;
    return v;
}

static const struct { const char *op; int prec; } binary_ops[] = {
    {"||", 1}, {"&&", 2}, {"|", 3}, {"^", 4}, {"&", 5}, {"==", 6}, {"!=", 6},
    {"<", 7}, {">", 7}, {"<=", 7}, {">=", 7}, {"<<", 8}, {">>", 8},
    {"+", 9}, {"-", 9}, {"*", 10}, {"/", 10}, {"%", 10},
};

static int binary_prec(const LangToken *tok)
{
    if (tok->kind != LTK_PUNCT)
        return 0;
    for (size_t i = 0; i < UTIL_ARRAY_LEN(binary_ops); i++)
        if (lang_tok_equal(tok, binary_ops[i].op))
            return binary_ops[i].prec;
    return 0;
}

static uint64_t shift(uint64_t a, bool a_uns, int64_t count, bool left)
{
    if (count < 0) {
        left = !left;
        count = count == INT64_MIN ? 64 : -count;
    }
    bool negative = !a_uns && (int64_t)a < 0;
    if (count >= 64)
        return left || !negative ? 0 : UINT64_MAX;
    if (left)
        return a << count;
    return negative ? ~(~a >> count) : a >> count;
}

static Value apply(Eval *e, LangToken *op, Value a, Value b)
{
    bool uns = a.uns || b.uns;
    int64_t sa = (int64_t)a.v, sb = (int64_t)b.v;
    if (lang_tok_equal(op, "<<") || lang_tok_equal(op, ">>")) {
        int64_t count = b.uns && b.v > 64 ? 64 : sb;
        return (Value){shift(a.v, a.uns, count, lang_tok_equal(op, "<<")), a.uns};
    }
    if (lang_tok_equal(op, "/") || lang_tok_equal(op, "%")) {
        if (b.v == 0) {
            if (e->skip)
                return (Value){0, uns};
            lang_error_at(e->pp->ctx, op, "division by zero in #if expression");
        }
        bool div = lang_tok_equal(op, "/");
        if (uns)
            return (Value){div ? a.v / b.v : a.v % b.v, true};
        if (sa == INT64_MIN && sb == -1)
            return (Value){div ? a.v : 0, false};
        return (Value){(uint64_t)(div ? sa / sb : sa % sb), false};
    }
    if (lang_tok_equal(op, "+"))
        return (Value){a.v + b.v, uns};
    if (lang_tok_equal(op, "-"))
        return (Value){a.v - b.v, uns};
    if (lang_tok_equal(op, "*"))
        return (Value){a.v * b.v, uns};
    if (lang_tok_equal(op, "&"))
        return (Value){a.v & b.v, uns};
    if (lang_tok_equal(op, "|"))
        return (Value){a.v | b.v, uns};
    if (lang_tok_equal(op, "^"))
        return (Value){a.v ^ b.v, uns};
    if (lang_tok_equal(op, "&&"))
        return (Value){a.v && b.v, false};
    if (lang_tok_equal(op, "||"))
        return (Value){a.v || b.v, false};
    if (lang_tok_equal(op, "=="))
        return (Value){a.v == b.v, false};
    if (lang_tok_equal(op, "!="))
        return (Value){a.v != b.v, false};
    bool lt = uns ? a.v < b.v : sa < sb;
    bool gt = uns ? a.v > b.v : sa > sb;
    if (lang_tok_equal(op, "<"))
        return (Value){lt, false};
    if (lang_tok_equal(op, ">"))
        return (Value){gt, false};
    if (lang_tok_equal(op, "<="))
        return (Value){!gt, false};
    return (Value){!lt, false}; /* >= */
}

/* Precedence climbing: the recursion is bounded by the ten precedence levels. */
static Value eval_binary(Eval *e, int min_prec)
{
    Value lhs = eval_unary(e);
    for (;;) {
        LangToken *op = e->tok;
        int prec = binary_prec(op);
        if (prec == 0 || prec < min_prec)
            return lhs;
        e->tok = op->next;
        /* the right operand of a decided && or || is parsed but not evaluated */
        bool decided = (lang_tok_equal(op, "&&") && lhs.v == 0) ||
                       (lang_tok_equal(op, "||") && lhs.v != 0);
        e->skip += decided;
        Value rhs = eval_binary(e, prec + 1);
        e->skip -= decided;
        lhs = apply(e, op, lhs, rhs);
    }
}

static Value eval_cond(Eval *e)
{
    if (++e->depth > MAX_EXPR_DEPTH)
        lang_error_at(e->pp->ctx, e->tok, "#if expression nested too deeply");
    Value cond = eval_binary(e, 1);
    if (!is_punct(e->tok, "?")) {
        e->depth--;
        return cond;
    }
    e->tok = e->tok->next;
    e->skip += cond.v == 0;
    Value then = eval_cond(e);
    e->skip -= cond.v == 0;
    if (!is_punct(e->tok, ":"))
        lang_error_at(e->pp->ctx, e->tok, "expected ':' in #if expression");
    e->tok = e->tok->next;
    e->skip += cond.v != 0;
    Value els = eval_cond(e);
    e->skip -= cond.v != 0;
    e->depth--;
    Value v = cond.v ? then : els;
    v.uns = then.uns || els.uns;
    return v;
}

/* The value of the rest of an #if/#elif line: `defined` first, then macros, then C. */
static bool eval_if_line(Pre *pp, LangToken **rest, LangToken *directive)
{
    LangToken *line = copy_line(pp, rest, directive->next);
    if (line->kind == LTK_EOF)
        lang_error_at(pp->ctx, directive, "#%.*s with no expression", directive->len,
                      directive->loc);
    LangToken head = {0};
    LangToken *cur = &head;
    for (LangToken *t = line; t->kind != LTK_EOF;) {
        if (!same_name(t, "defined")) {
            cur = cur->next = t;
            t = t->next;
            continue;
        }
        LangToken *start = t;
        t = t->next;
        bool paren = is_punct(t, "(");
        if (paren)
            t = t->next;
        if (!is_ident(t))
            lang_error_at(pp->ctx, t->kind == LTK_EOF ? start : t,
                          "macro name missing after 'defined'");
        bool defined = find_macro(pp, t) != NULL;
        t = t->next;
        if (paren) {
            if (!is_punct(t, ")"))
                lang_error_at(pp->ctx, start, "missing ')' after 'defined'");
            t = t->next;
        }
        start->kind = LTK_NUM;
        start->ival = defined;
        start->num_type = lang_ty_int;
        cur = cur->next = start;
    }
    cur->next = new_eof(pp, *rest);
    Eval e = {.pp = pp, .tok = expand_list(pp, head.next)};
    Value v = eval_cond(&e);
    if (e.tok->kind != LTK_EOF)
        lang_error_at(pp->ctx, e.tok, "extra token '%.*s' in #if expression", e.tok->len,
                      e.tok->loc);
    return v.v != 0;
}

/* ---- #include ----------------------------------------------------------------------------- */

static bool is_once(Pre *pp, const char *path)
{
    for (size_t i = 0; i < pp->num_once; i++)
        if (strcmp(pp->once_files[i], path) == 0)
            return true;
    return false;
}

/* Reads path into the arena, or returns NULL. */
static char *read_source(Pre *pp, const char *path)
{
    UtilError err;
    size_t size;
    char *text = util_read_file(path, &size, &err);
    if (!text)
        return NULL;
    char *copy = lang_strndup(pp->ctx, text, size);
    free(text);
    return copy;
}

static _Noreturn void include_too_deep(Pre *pp, LangToken *tok, const char *path)
{
    int start = -1;
    for (int i = pp->num_includes - 1; i >= 0 && start < 0; i--)
        if (strcmp(pp->includes[i].file->name, path) == 0)
            start = i;
    if (start < 0)
        lang_error_at(pp->ctx, tok, "#include nested too deeply (limit %d)", MAX_INCLUDE_DEPTH);
    char *chain = "";
    for (int i = start; i < pp->num_includes; i++)
        chain = lang_format(pp->ctx, "%s%s -> ", chain, pp->includes[i].file->name);
    lang_error_at(pp->ctx, tok, "#include nested too deeply (limit %d): include cycle %s%s",
                  MAX_INCLUDE_DEPTH, chain, path);
}

/* #include "file" | #include <file> | #include MACRO; returns the tokens to go on with. */
static LangToken *include_file(Pre *pp, LangToken *directive)
{
    LangToken *rest;
    LangToken *tok = directive->next;
    if (!tok->at_bol && is_ident(tok)) { /* a macro that expands to "file" or <file> */
        tok = expand_list(pp, copy_line(pp, &rest, tok));
    } else {
        rest = skip_line(directive);
    }
    if (tok->kind == LTK_STR && !tok->at_bol) {
        /* "file": below */
    } else if (is_punct(tok, "<") && !tok->at_bol) {
        for (LangToken *t = tok->next; !t->at_bol; t = t->next)
            if (is_punct(t, ">"))
                return rest; /* system headers: the standard library is built in */
        lang_error_at(pp->ctx, tok, "expected '>' to end the header name");
    } else {
        lang_error_at(pp->ctx, directive, "#include expects \"FILENAME\" or <FILENAME>");
    }
    const char *name = tok->str;
    const char *dirs[2] = {pp->includes[pp->num_includes - 1].file->name,
                           pp->includes[0].file->name};
    char *tried[2] = {NULL, NULL};
    char *path = NULL, *text = NULL;
    for (int i = 0; i < 2 && !text; i++) {
        char *dir = util_dirname(dirs[i]);
        char *joined = strcmp(dir, ".") == 0 ? util_strdup(name) : util_path_join(dir, name);
        free(dir);
        tried[i] = lang_strndup(pp->ctx, joined, strlen(joined));
        free(joined);
        if (i == 1 && strcmp(tried[0], tried[1]) == 0)
            tried[1] = NULL;
        else if (is_once(pp, tried[i]))
            return rest;
        else if ((text = read_source(pp, tried[i])))
            path = tried[i];
    }
    if (!text)
        lang_error_at(pp->ctx, tok, "'%s' file not found (tried %s%s%s)", name, tried[0],
                      tried[1] ? " and " : "", tried[1] ? tried[1] : "");
    if (pp->num_includes > MAX_INCLUDE_DEPTH)
        include_too_deep(pp, tok, path);
    LangFile *file = lang_add_file(pp->ctx, path, text);
    LangToken *toks = lang_tokenize(pp->ctx, file);
    pp->includes[pp->num_includes++] = (IncludeLevel){.file = file, .cond_at_entry = pp->cond};
    pp->ctx->include_depth = pp->num_includes - 1;
    LangToken *last = toks;
    while (last->kind != LTK_EOF)
        last = last->next;
    last->next = rest; /* the header's EOF stays in the stream: it marks the header's end */
    return toks;
}

static void end_include(Pre *pp)
{
    IncludeLevel *level = &pp->includes[pp->num_includes - 1];
    if (pp->cond != level->cond_at_entry)
        lang_error_at(pp->ctx, pp->cond->tok, "unterminated #%.*s", pp->cond->tok->len,
                      pp->cond->tok->loc);
    pp->num_includes--;
    pp->ctx->include_depth = pp->num_includes - 1;
}

/* ---- the main loop ------------------------------------------------------------------------ */

static void push_cond(Pre *pp, LangToken *directive, bool included)
{
    CondIncl *ci = lang_alloc(pp->ctx, sizeof *ci);
    ci->next = pp->cond;
    ci->ctx = IN_THEN;
    ci->tok = directive;
    ci->included = included;
    pp->cond = ci;
}

/* The open conditional of the current file, or an error naming the directive. */
static CondIncl *current_cond(Pre *pp, LangToken *directive)
{
    if (!pp->cond || pp->cond == pp->includes[pp->num_includes - 1].cond_at_entry)
        lang_error_at(pp->ctx, directive, "#%.*s without #if", directive->len, directive->loc);
    return pp->cond;
}

/* Carries out the directive after hash; returns the tokens to go on with. */
static LangToken *directive(Pre *pp, LangToken *hash)
{
    LangCtx *ctx = pp->ctx;
    LangToken *d = hash->next;
    LangToken *rest;
    if (d->at_bol) /* the null directive */
        return d;
    if (same_name(d, "include"))
        return include_file(pp, d);
    if (same_name(d, "define"))
        return read_define(pp, d);
    if (same_name(d, "undef")) {
        check_macro_name(pp, d->next, d);
        remove_macro(pp, d->next);
        return skip_line(d->next);
    }
    if (same_name(d, "if")) {
        bool value = eval_if_line(pp, &rest, d);
        push_cond(pp, d, value);
        return value ? rest : skip_cond_incl(rest);
    }
    if (same_name(d, "ifdef") || same_name(d, "ifndef")) {
        check_macro_name(pp, d->next, d);
        bool value = (find_macro(pp, d->next) != NULL) == same_name(d, "ifdef");
        push_cond(pp, d, value);
        rest = skip_line(d->next);
        return value ? rest : skip_cond_incl(rest);
    }
    if (same_name(d, "elif")) {
        CondIncl *ci = current_cond(pp, d);
        if (ci->ctx == IN_ELSE)
            lang_error_at(ctx, d, "#elif after #else");
        ci->ctx = IN_ELIF;
        if (ci->included)
            return skip_cond_incl(skip_line(d));
        ci->included = eval_if_line(pp, &rest, d);
        return ci->included ? rest : skip_cond_incl(rest);
    }
    if (same_name(d, "else")) {
        CondIncl *ci = current_cond(pp, d);
        if (ci->ctx == IN_ELSE)
            lang_error_at(ctx, d, "#else after #else");
        ci->ctx = IN_ELSE;
        rest = skip_line(d);
        bool take = !ci->included;
        ci->included = true;
        return take ? rest : skip_cond_incl(rest);
    }
    if (same_name(d, "endif")) {
        current_cond(pp, d);
        pp->cond = pp->cond->next;
        return skip_line(d);
    }
    if (same_name(d, "error")) {
        LangToken *first = d->next, *last = d;
        for (LangToken *t = first; !t->at_bol; t = t->next)
            last = t;
        if (last == d)
            lang_error_at(ctx, d, "#error");
        lang_error_at(ctx, d, "#error %.*s", (int)(last->loc + last->len - first->loc), first->loc);
    }
    if (same_name(d, "pragma")) {
        if (same_name(d->next, "once") && !d->next->at_bol) {
            const char *name = d->file->name;
            UTIL_PUSH(pp->once_files, pp->num_once, pp->once_cap,
                      lang_strndup(ctx, name, strlen(name)));
        }
        return skip_line(d);
    }
    if (same_name(d, "warning"))
        return skip_line(d);
    if (same_name(d, "line")) {
        /* accepted and checked; line numbers stay those of the file */
        LangToken *n = d->next;
        if (n->at_bol || n->kind != LTK_NUM || n->is_float || n->ival == 0 ||
            (!n->next->at_bol && (n->next->kind != LTK_STR || !n->next->next->at_bol)))
            lang_error_at(ctx, n->at_bol ? d : n, "#line expects a positive line number and an "
                          "optional \"file name\"");
        return skip_line(d);
    }
    lang_error_at(ctx, d, "invalid preprocessing directive #%.*s", d->len, d->loc);
}

LangToken *lang_preprocess(LangCtx *ctx, LangToken *tok)
{
    Pre *pp = lang_alloc(ctx, sizeof *pp);
    pp->ctx = ctx;
    pp->includes[0].file = tok->file;
    pp->num_includes = 1;
    define_predefined(pp);
    LangToken head = {0};
    LangToken *cur = &head;
    for (;;) {
        if (tok->kind == LTK_EOF) {
            if (pp->num_includes > 1 && tok->file == pp->includes[pp->num_includes - 1].file) {
                end_include(pp);
                tok = tok->next;
                continue;
            }
            break;
        }
        if (expand_macro(pp, &tok, tok))
            continue;
        if (is_directive(tok)) {
            tok = directive(pp, tok);
            continue;
        }
        cur = cur->next = tok;
        tok = tok->next;
    }
    if (pp->cond)
        lang_error_at(ctx, pp->cond->tok, "unterminated #%.*s", pp->cond->tok->len,
                      pp->cond->tok->loc);
    free(pp->once_files);
    cur->next = tok;
    return head.next;
}
