/*
 * preprocess.c — the C preprocessor's directives and main loop (chibicc's preprocess.c,
 * directive half): #define parsing, #undef, conditional inclusion with #if expression
 * evaluation, #include of local headers, #pragma once, #error and #line. Macros themselves
 * (the table, the predefined ones, expansion) are preprocess_macro.c's.
 *
 * The token list is rewritten in one loop: an expanded macro's tokens are spliced in front
 * of the rest and rescanned, and an #include splices the header's tokens (ending in that
 * header's own EOF token, kept as a marker so the end of the header is seen). Nothing recurses
 * on the shape of the input except #if expressions, which have a depth limit; skipped groups
 * count nesting instead of recursing. <metal_stdlib> and every other <...> header contribute
 * nothing: the language knows the standard library built in.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "preprocess_internal.h"

/* ---- directives --------------------------------------------------------------------------- */

static bool is_directive(const LangToken *tok)
{
    return tok->at_bol && !tok->origin && lang_pp_is_punct(tok, "#");
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
    cur->next = lang_pp_new_eof(pp, tok);
    *rest = tok;
    return head.next;
}

static void check_macro_name(Pre *pp, LangToken *tok, LangToken *directive)
{
    if (tok->at_bol)
        lang_error_at(pp->ctx, directive, "macro name missing");
    if (!lang_pp_is_ident(tok))
        lang_error_at(pp->ctx, tok, "macro names must be identifiers");
    if (lang_pp_same_name(tok, "defined"))
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
    if (!tok->at_bol && lang_pp_is_punct(tok, "(") && !tok->has_space) {
        LangToken *lparen = tok;
        tmp.is_objlike = false;
        int cap = 4;
        tmp.params = lang_alloc(pp->ctx, (size_t)cap * sizeof *tmp.params);
        tok = tok->next;
        while (!lang_pp_is_punct(tok, ")") || tmp.num_params > 0) {
            if (tok->at_bol)
                lang_error_at(pp->ctx, lparen, "missing ')' in macro parameter list");
            if (lang_pp_is_punct(tok, "...")) {
                tmp.va_name = "__VA_ARGS__";
                tok = tok->next;
                if (!lang_pp_is_punct(tok, ")"))
                    lang_error_at(pp->ctx, tok, "expected ')' after '...'");
                break;
            }
            if (!lang_pp_is_ident(tok))
                lang_error_at(pp->ctx, tok, "expected parameter name, found '%.*s'", tok->len,
                              tok->loc);
            if (lang_pp_same_name(tok, "__VA_ARGS__"))
                lang_error_at(pp->ctx, tok, "__VA_ARGS__ can only appear in the expansion of a "
                              "variadic macro");
            for (int i = 0; i < tmp.num_params; i++)
                if (lang_tok_equal(tok, tmp.params[i]))
                    lang_error_at(pp->ctx, tok, "duplicate macro parameter '%s'", tmp.params[i]);
            if (lang_pp_is_punct(tok->next, "...")) { /* GNU named variadic parameter: args... */
                tmp.va_name = lang_pp_tok_name(pp, tok);
                tok = tok->next->next;
                if (!lang_pp_is_punct(tok, ")"))
                    lang_error_at(pp->ctx, tok, "expected ')' after '...'");
                break;
            }
            if (tmp.num_params == cap) {
                char **bigger = lang_alloc(pp->ctx, (size_t)cap * 2 * sizeof *bigger);
                memcpy(bigger, tmp.params, (size_t)cap * sizeof *bigger);
                tmp.params = bigger;
                cap *= 2;
            }
            tmp.params[tmp.num_params++] = lang_pp_tok_name(pp, tok);
            tok = tok->next;
            if (lang_pp_is_punct(tok, ")"))
                break;
            if (!lang_pp_is_punct(tok, ",") || tok->at_bol)
                lang_error_at(pp->ctx, tok->at_bol ? lparen : tok,
                              "expected ',' or ')' in macro parameter list");
            tok = tok->next;
        }
        tok = tok->next; /* ')' */
    }
    LangToken *rest;
    tmp.body = copy_line(pp, &rest, tok);
    for (LangToken *t = tmp.body; t->kind != LTK_EOF; t = t->next) {
        if (lang_pp_is_punct(t, "##") && (t == tmp.body || t->next->kind == LTK_EOF))
            lang_error_at(pp->ctx, t, "'##' cannot appear at either end of a macro expansion");
        if (!tmp.is_objlike && lang_pp_is_punct(t, "#") &&
            lang_pp_find_param(&tmp, t->next) < 0)
            lang_error_at(pp->ctx, t, "'#' is not followed by a macro parameter");
        if (lang_pp_same_name(t, "__VA_ARGS__") &&
            !(tmp.va_name && strcmp(tmp.va_name, "__VA_ARGS__") == 0))
            lang_error_at(pp->ctx, t, "__VA_ARGS__ can only appear in the expansion of a "
                          "variadic macro");
    }
    char *macro_name = lang_pp_tok_name(pp, name);
    Macro *m = lang_pp_add_macro(pp, macro_name, MACRO_USER);
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
        if (lang_pp_same_name(d, "if") || lang_pp_same_name(d, "ifdef") ||
            lang_pp_same_name(d, "ifndef")) {
            depth++;
        } else if (lang_pp_same_name(d, "elif") || lang_pp_same_name(d, "else") ||
                   lang_pp_same_name(d, "endif")) {
            if (depth == 0)
                return tok;
            if (lang_pp_same_name(d, "endif"))
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
    if (lang_pp_is_punct(tok, "(")) {
        e->tok = tok->next;
        Value v = eval_cond(e);
        if (!lang_pp_is_punct(e->tok, ")"))
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
    if (lang_pp_is_ident(tok)) /* identifiers left after expansion are 0; true is 1 in C++ */
        return (Value){lang_pp_same_name(tok, "true"), false};
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
    if (lang_pp_is_punct(tok, "+") || lang_pp_is_punct(tok, "-") || lang_pp_is_punct(tok, "~") ||
        lang_pp_is_punct(tok, "!")) {
        e->tok = tok->next;
        v = eval_unary(e);
        if (lang_pp_is_punct(tok, "-"))
            v.v = 0 - v.v;
        else if (lang_pp_is_punct(tok, "~"))
            v.v = ~v.v;
        else if (lang_pp_is_punct(tok, "!"))
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
    if (!lang_pp_is_punct(e->tok, "?")) {
        e->depth--;
        return cond;
    }
    e->tok = e->tok->next;
    e->skip += cond.v == 0;
    Value then = eval_cond(e);
    e->skip -= cond.v == 0;
    if (!lang_pp_is_punct(e->tok, ":"))
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
        if (!lang_pp_same_name(t, "defined")) {
            cur = cur->next = t;
            t = t->next;
            continue;
        }
        LangToken *start = t;
        t = t->next;
        bool paren = lang_pp_is_punct(t, "(");
        if (paren)
            t = t->next;
        if (!lang_pp_is_ident(t))
            lang_error_at(pp->ctx, t->kind == LTK_EOF ? start : t,
                          "macro name missing after 'defined'");
        bool defined = lang_pp_find_macro(pp, t) != NULL;
        t = t->next;
        if (paren) {
            if (!lang_pp_is_punct(t, ")"))
                lang_error_at(pp->ctx, start, "missing ')' after 'defined'");
            t = t->next;
        }
        start->kind = LTK_NUM;
        start->ival = defined;
        start->num_type = lang_ty_int;
        cur = cur->next = start;
    }
    cur->next = lang_pp_new_eof(pp, *rest);
    Eval e = {.pp = pp, .tok = lang_pp_expand_list(pp, head.next)};
    Value v = eval_cond(&e);
    if (e.tok->kind != LTK_EOF)
        lang_error_at(pp->ctx, e.tok, "extra token '%.*s' in #if expression", e.tok->len,
                      e.tok->loc);
    return v.v != 0;
}

typedef struct OnceFile {
    struct OnceFile *next;
    const char *path;
} OnceFile;

/* ---- #include ----------------------------------------------------------------------------- */

static bool is_once(Pre *pp, const char *path)
{
    for (const OnceFile *f = pp->once_files; f; f = f->next)
        if (strcmp(f->path, path) == 0)
            return true;
    return false;
}

/* Reads path into the arena, or returns NULL when there is no such file. Only regular files
 * of sane size are read: "/dev/zero" or "/dev/stdin" would never end. */
static char *read_source(Pre *pp, LangToken *tok, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    if (!S_ISREG(st.st_mode))
        lang_error_at(pp->ctx, tok, "cannot include '%s': not a regular file", path);
    if (st.st_size > MAX_INCLUDE_BYTES)
        lang_error_at(pp->ctx, tok, "cannot include '%s': larger than %d MiB", path,
                      MAX_INCLUDE_BYTES >> 20);
    UtilError err;
    size_t size;
    char *text = util_read_file(path, &size, &err);
    if (!text)
        return NULL;
    if (memchr(text, '\0', size)) {
        free(text);
        lang_error_at(pp->ctx, tok, "cannot include '%s': it holds a NUL byte (not a text file?)",
                      path);
    }
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
    if (!tok->at_bol && lang_pp_is_ident(tok)) { /* a macro that expands to "file" or <file> */
        tok = lang_pp_expand_list(pp, copy_line(pp, &rest, tok));
    } else {
        rest = skip_line(directive);
    }
    if (tok->kind == LTK_STR && !tok->at_bol) {
        /* "file": below */
    } else if (lang_pp_is_punct(tok, "<") && !tok->at_bol) {
        for (LangToken *t = tok->next; !t->at_bol; t = t->next)
            if (lang_pp_is_punct(t, ">"))
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
        else if ((text = read_source(pp, tok, tried[i])))
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
    if (lang_pp_same_name(d, "include"))
        return include_file(pp, d);
    if (lang_pp_same_name(d, "define"))
        return read_define(pp, d);
    if (lang_pp_same_name(d, "undef")) {
        check_macro_name(pp, d->next, d);
        lang_pp_remove_macro(pp, d->next);
        return skip_line(d->next);
    }
    if (lang_pp_same_name(d, "if")) {
        bool value = eval_if_line(pp, &rest, d);
        push_cond(pp, d, value);
        return value ? rest : skip_cond_incl(rest);
    }
    if (lang_pp_same_name(d, "ifdef") || lang_pp_same_name(d, "ifndef")) {
        check_macro_name(pp, d->next, d);
        bool value = (lang_pp_find_macro(pp, d->next) != NULL) == lang_pp_same_name(d, "ifdef");
        push_cond(pp, d, value);
        rest = skip_line(d->next);
        return value ? rest : skip_cond_incl(rest);
    }
    if (lang_pp_same_name(d, "elif")) {
        CondIncl *ci = current_cond(pp, d);
        if (ci->ctx == IN_ELSE)
            lang_error_at(ctx, d, "#elif after #else");
        ci->ctx = IN_ELIF;
        if (ci->included)
            return skip_cond_incl(skip_line(d));
        ci->included = eval_if_line(pp, &rest, d);
        return ci->included ? rest : skip_cond_incl(rest);
    }
    if (lang_pp_same_name(d, "else")) {
        CondIncl *ci = current_cond(pp, d);
        if (ci->ctx == IN_ELSE)
            lang_error_at(ctx, d, "#else after #else");
        ci->ctx = IN_ELSE;
        rest = skip_line(d);
        bool take = !ci->included;
        ci->included = true;
        return take ? rest : skip_cond_incl(rest);
    }
    if (lang_pp_same_name(d, "endif")) {
        current_cond(pp, d);
        pp->cond = pp->cond->next;
        return skip_line(d);
    }
    if (lang_pp_same_name(d, "error")) {
        LangToken *first = d->next, *last = d;
        for (LangToken *t = first; !t->at_bol; t = t->next)
            last = t;
        if (last == d)
            lang_error_at(ctx, d, "#error");
        lang_error_at(ctx, d, "#error %.*s", (int)(last->loc + last->len - first->loc), first->loc);
    }
    if (lang_pp_same_name(d, "pragma")) {
        if (!d->next->at_bol) {
            const LangToken *last = d->next;
            while (!last->next->at_bol && last->next->kind != LTK_EOF)
                last = last->next;
            if (lang_pp_is_nounroll(d->next->loc, (size_t)(last->loc + last->len - d->next->loc)))
                pp->no_unroll_next = true;
        }
        if (lang_pp_same_name(d->next, "once") && !d->next->at_bol) {
            const char *name = d->file->name;
            OnceFile *once = lang_alloc(ctx, sizeof *once);
            once->path = lang_strndup(ctx, name, strlen(name));
            once->next = pp->once_files;
            pp->once_files = once;
        }
        return skip_line(d);
    }
    if (lang_pp_same_name(d, "warning"))
        return skip_line(d);
    if (lang_pp_same_name(d, "line")) {
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
    lang_pp_define_predefined(pp);
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
        if (lang_pp_expand_macro(pp, &tok, tok))
            continue;
        if (is_directive(tok)) {
            tok = directive(pp, tok);
            continue;
        }
        if (pp->no_unroll_next) {
            tok->no_unroll = true;
            pp->no_unroll_next = false;
        }
        cur = cur->next = tok;
        tok = tok->next;
    }
    if (pp->cond)
        lang_error_at(ctx, pp->cond->tok, "unterminated #%.*s", pp->cond->tok->len,
                      pp->cond->tok->loc);
    cur->next = tok;
    return head.next;
}
