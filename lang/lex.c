/*
 * lex.c — the kernel language's tokenizer (chibicc's tokenize.c): one file's text becomes a
 * list of LangTokens ending in LTK_EOF. Identifiers that spell a keyword are LTK_KEYWORD from
 * the start; the preprocessor treats both kinds alike as macro names. Numbers are converted
 * here (value, float or integer, num_type from the suffix and C's rules), so a malformed
 * literal is reported where it is written. Backslash-newlines are spliced out of the file's
 * own buffer before lexing, with the removed line breaks put back after the logical line, so
 * line numbers and the diagnostics' source lines stay those of the file.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lang_internal.h"

/* The one keyword table: C, then the C++/MSL words the parser needs to see as keywords. */
static const char *const keywords[] = {
    "if", "else", "for", "while", "do", "switch", "case", "default", "break", "continue",
    "return", "sizeof", "alignof", "struct", "typedef", "enum", "union", "const", "static", "inline",
    "volatile", "void", "bool", "char", "short", "int", "long", "unsigned", "signed", "float",
    "true", "false",
    "kernel", "vertex", "fragment", "device", "constant", "threadgroup", "thread", "using",
    "namespace", "template", "typename", "static_cast", "reinterpret_cast", "decltype",
    "constexpr", "half", "uint", "ushort", "uchar", "ulong",
};

/* Longest first, so the first match is the right one. */
static const char *const puncts[] = {
    "<<=", ">>=", "...", "::", "->", "++", "--", "&&", "||", "==", "!=", "<=", ">=", "<<", ">>",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##",
};

typedef struct Lexer {
    LangCtx *ctx;
    LangFile *file;
    const char *line_start;
    int line;
} Lexer;

bool lang_tok_equal(const LangToken *tok, const char *s)
{
    size_t n = strlen(s);
    return tok && (size_t)tok->len == n && memcmp(tok->loc, s, n) == 0;
}

static bool is_ident_start(int c)
{
    return isalpha(c) || c == '_';
}

static bool is_ident_char(int c)
{
    return isalnum(c) || c == '_';
}

static LangToken *new_token(Lexer *lx, LangTokenKind kind, const char *start, const char *end)
{
    LangToken *tok = lang_alloc(lx->ctx, sizeof *tok);
    tok->kind = kind;
    tok->loc = start;
    tok->len = (int)(end - start);
    tok->file = lx->file;
    tok->line = lx->line;
    tok->col = (int)(start - lx->line_start) + 1;
    return tok;
}

/* Splices backslash-newlines and turns CRLF into LF, in place (the text only shrinks). */
static void splice_lines(char *p)
{
    size_t i = 0, j = 0;
    int pending = 0;
    while (p[i]) {
        if (p[i] == '\\' && p[i + 1] == '\n') {
            i += 2;
            pending++;
        } else if (p[i] == '\\' && p[i + 1] == '\r' && p[i + 2] == '\n') {
            i += 3;
            pending++;
        } else if (p[i] == '\r' && p[i + 1] == '\n') {
            i++;
        } else if (p[i] == '\n') {
            p[j++] = p[i++];
            for (; pending > 0; pending--)
                p[j++] = '\n';
        } else {
            p[j++] = p[i++];
        }
    }
    for (; pending > 0; pending--)
        p[j++] = '\n';
    p[j] = '\0';
}

/* ---- numbers ------------------------------------------------------------------------------ */

static int digit_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

/* C's integer suffixes; returns false for anything else. */
static bool int_suffix(const char *s, int len, bool *is_unsigned, bool *is_long)
{
    static const char *const forms[] = {"", "u", "l", "ll", "ul", "lu", "ull", "llu"};
    char low[4];
    if (len > 3)
        return false;
    for (int i = 0; i < len; i++)
        low[i] = (char)tolower((unsigned char)s[i]);
    low[len] = '\0';
    /* "lL" and "Ll" are not C suffixes: both l's take the same case. */
    if (memchr(s, 'l', (size_t)len) && memchr(s, 'L', (size_t)len))
        return false;
    for (size_t i = 0; i < UTIL_ARRAY_LEN(forms); i++) {
        if (strcmp(low, forms[i]) == 0) {
            *is_unsigned = strchr(low, 'u') != NULL;
            *is_long = strchr(low, 'l') != NULL;
            return true;
        }
    }
    return false;
}

static void convert_float(Lexer *lx, LangToken *tok, bool hex)
{
    const char *start = tok->loc;
    const char *end = start + tok->len;
    char *buf = lang_strndup(lx->ctx, start, (size_t)tok->len);
    char *stop;
    double d = strtod(buf, &stop);
    const char *suffix = start + (stop - buf);
    if (hex && !memchr(start, 'p', (size_t)(suffix - start)) &&
        !memchr(start, 'P', (size_t)(suffix - start)))
        lang_error_pos(lx->ctx, lx->file, start, "hexadecimal floating literal requires an exponent");
    int slen = (int)(end - suffix);
    if (slen > 0 && strchr("eEpP", *suffix))
        lang_error_pos(lx->ctx, lx->file, suffix, "exponent has no digits");
    tok->is_float = true;
    if (slen == 0 || (slen == 1 && (*suffix == 'f' || *suffix == 'F'))) {
        /* MSL has no double: an unsuffixed literal is a float (spec 2.1). Convert straight to
         * float so the value is correctly rounded, not rounded twice through double. */
        buf[suffix - start] = '\0';
        tok->fval = strtof(buf, NULL);
        tok->num_type = lang_ty_float;
    } else if (slen == 1 && (*suffix == 'h' || *suffix == 'H')) {
        tok->fval = d;
        tok->num_type = lang_ty_half;
    } else {
        lang_error_pos(lx->ctx, lx->file, suffix, "invalid suffix '%.*s' on floating literal",
                       slen, suffix);
    }
}

/* A preprocessing number already delimited in tok: its value and type, or an error. */
static void convert_number(Lexer *lx, LangToken *tok)
{
    const char *p = tok->loc;
    const char *end = p + tok->len;
    int base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
        if (digit_value((unsigned char)*p) >= 16 && *p != '.')
            lang_error_pos(lx->ctx, lx->file, tok->loc, "invalid number '%.*s'", tok->len,
                           tok->loc);
    } else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B') && (p[2] == '0' || p[2] == '1')) {
        base = 2;
        p += 2;
    } else if (p[0] == '0') {
        base = 8;
    }
    const char *digits = p;
    /* Octal literals are scanned with decimal digits so "09.5" can still be a float. */
    int scan_base = base == 8 ? 10 : base;
    while (p < end && digit_value((unsigned char)*p) < scan_base)
        p++;
    if (p < end && (*p == '.' || (base == 16 && (*p == 'p' || *p == 'P')) ||
                    (base != 16 && base != 2 && (*p == 'e' || *p == 'E')))) {
        convert_float(lx, tok, base == 16);
        return;
    }
    if (tok->loc[0] == '.') {
        convert_float(lx, tok, false);
        return;
    }
    uint64_t value = 0;
    bool overflow = false;
    for (const char *q = digits; q < p; q++) {
        int d = digit_value((unsigned char)*q);
        if (d >= base)
            lang_error_pos(lx->ctx, lx->file, q, "invalid digit '%c' in octal literal", *q);
        if (value > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            overflow = true;
        value = value * (uint64_t)base + (uint64_t)d;
    }
    bool is_unsigned = false, is_long = false;
    if (!int_suffix(p, (int)(end - p), &is_unsigned, &is_long))
        lang_error_pos(lx->ctx, lx->file, p, "invalid suffix '%.*s' on integer literal",
                       (int)(end - p), p);
    if (overflow)
        lang_error_pos(lx->ctx, lx->file, tok->loc, "integer literal too large");
    /* C 6.4.4.1: the first type that holds the value; decimal literals without 'u' only try
     * signed types (long is 64-bit; a decimal too big for long becomes ulong, as GCC does). */
    LangType *ty;
    if (is_unsigned && is_long)
        ty = lang_ty_ulong;
    else if (is_unsigned)
        ty = value <= UINT32_MAX ? lang_ty_uint : lang_ty_ulong;
    else if (is_long)
        ty = value <= INT64_MAX ? lang_ty_long : lang_ty_ulong;
    else if (value <= INT32_MAX)
        ty = lang_ty_int;
    else if (base != 10 && value <= UINT32_MAX)
        ty = lang_ty_uint;
    else
        ty = value <= INT64_MAX ? lang_ty_long : lang_ty_ulong;
    tok->ival = value;
    tok->num_type = ty;
}

/* ---- strings and characters --------------------------------------------------------------- */

/* One character of a string or character literal at *pp (after the opening quote). */
static int read_char(Lexer *lx, const char **pp)
{
    const char *p = *pp;
    if (*p != '\\') {
        *pp = p + 1;
        return (unsigned char)*p;
    }
    const char *esc = p;
    p++;
    int c;
    switch (*p) {
    case 'a': c = 7; p++; break;
    case 'b': c = 8; p++; break;
    case 'f': c = 12; p++; break;
    case 'n': c = 10; p++; break;
    case 'r': c = 13; p++; break;
    case 't': c = 9; p++; break;
    case 'v': c = 11; p++; break;
    case '\\': case '\'': case '"': case '?': c = *p++; break;
    case 'x':
        p++;
        if (digit_value((unsigned char)*p) >= 16)
            lang_error_pos(lx->ctx, lx->file, esc, "\\x used with no following hex digits");
        c = 0;
        while (digit_value((unsigned char)*p) < 16) {
            c = c * 16 + digit_value((unsigned char)*p++);
            if (c > 255)
                lang_error_pos(lx->ctx, lx->file, esc, "hex escape sequence out of range");
        }
        break;
    default:
        if (*p >= '0' && *p <= '7') {
            c = 0;
            for (int i = 0; i < 3 && *p >= '0' && *p <= '7'; i++)
                c = c * 8 + (*p++ - '0');
            if (c > 255)
                lang_error_pos(lx->ctx, lx->file, esc, "octal escape sequence out of range");
            break;
        }
        lang_error_pos(lx->ctx, lx->file, esc, "unknown escape sequence '\\%c'",
                       isprint((unsigned char)*p) ? *p : '?');
    }
    *pp = p;
    return c;
}

static LangToken *read_string(Lexer *lx, const char *start)
{
    const char *p = start + 1;
    size_t n = 0;
    for (const char *q = p; *q != '"'; q++) {
        if (*q == '\n' || *q == '\0')
            lang_error_pos(lx->ctx, lx->file, start, "unterminated string literal");
        if (*q == '\\' && q[1] != '\n' && q[1] != '\0')
            q++;
        n++;
    }
    char *buf = lang_alloc(lx->ctx, n + 1);
    size_t len = 0;
    while (*p != '"')
        buf[len++] = (char)read_char(lx, &p);
    LangToken *tok = new_token(lx, LTK_STR, start, p + 1);
    tok->str = buf;
    return tok;
}

static LangToken *read_char_literal(Lexer *lx, const char *start)
{
    const char *p = start + 1;
    for (const char *q = p; *q != '\''; q++) {
        if (*q == '\n' || *q == '\0')
            lang_error_pos(lx->ctx, lx->file, start, "unterminated character literal");
        if (*q == '\\' && q[1] != '\n' && q[1] != '\0')
            q++;
    }
    if (*p == '\'')
        lang_error_pos(lx->ctx, lx->file, start, "empty character literal");
    int c = read_char(lx, &p);
    if (*p != '\'')
        lang_error_pos(lx->ctx, lx->file, start, "multi-character character literal");
    LangToken *tok = new_token(lx, LTK_NUM, start, p + 1);
    tok->ival = (uint64_t)(int64_t)(signed char)c; /* char is signed in MSL, as in C */
    tok->num_type = lang_ty_int;
    return tok;
}

/* ---- the tokenizer ------------------------------------------------------------------------ */

static bool is_keyword(const char *s, int len)
{
    for (size_t i = 0; i < UTIL_ARRAY_LEN(keywords); i++)
        if ((int)strlen(keywords[i]) == len && memcmp(keywords[i], s, (size_t)len) == 0)
            return true;
    return false;
}

static int punct_len(const char *p)
{
    for (size_t i = 0; i < UTIL_ARRAY_LEN(puncts); i++) {
        size_t n = strlen(puncts[i]);
        if (strncmp(p, puncts[i], n) == 0)
            return (int)n;
    }
    return strchr("+-*/%&|^~!=<>?:;,.()[]{}#", *p) && *p ? 1 : 0;
}

LangToken *lang_tokenize(LangCtx *ctx, LangFile *file)
{
    splice_lines(file->contents);
    Lexer lx = {.ctx = ctx, .file = file, .line_start = file->contents, .line = 1};
    LangToken head = {0};
    LangToken *cur = &head;
    const char *p = file->contents;
    bool at_bol = true, has_space = false;
    while (*p) {
        if (*p == '\n') {
            p++;
            lx.line++;
            lx.line_start = p;
            at_bol = true;
            has_space = false;
            continue;
        }
        if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v') {
            p++;
            has_space = true;
            continue;
        }
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                p++;
            has_space = true;
            continue;
        }
        if (p[0] == '/' && p[1] == '*') {
            const char *start = p;
            for (p += 2; !(p[0] == '*' && p[1] == '/'); p++) {
                if (!*p)
                    lang_error_pos(ctx, file, start, "unterminated comment");
                if (*p == '\n') {
                    lx.line++;
                    lx.line_start = p + 1;
                }
            }
            p += 2;
            has_space = true;
            continue;
        }
        LangToken *tok;
        if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
            /* a C preprocessing number: digits, letters, '.', and signs after an exponent */
            const char *q = p++;
            for (;;) {
                if (p[0] && p[1] && strchr("eEpP", p[0]) && (p[1] == '+' || p[1] == '-'))
                    p += 2;
                else if (isalnum((unsigned char)*p) || *p == '.' || *p == '_')
                    p++;
                else
                    break;
            }
            tok = new_token(&lx, LTK_NUM, q, p);
            convert_number(&lx, tok);
        } else if (*p == '"') {
            tok = read_string(&lx, p);
            p = tok->loc + tok->len;
        } else if (*p == '\'') {
            tok = read_char_literal(&lx, p);
            p = tok->loc + tok->len;
        } else if (is_ident_start((unsigned char)*p)) {
            const char *q = p;
            while (is_ident_char((unsigned char)*p))
                p++;
            tok = new_token(&lx, is_keyword(q, (int)(p - q)) ? LTK_KEYWORD : LTK_IDENT, q, p);
        } else if (punct_len(p) > 0) {
            int n = punct_len(p);
            tok = new_token(&lx, LTK_PUNCT, p, p + n);
            p += n;
        } else if (isprint((unsigned char)*p)) {
            lang_error_pos(ctx, file, p, "invalid character '%c'", *p);
        } else {
            lang_error_pos(ctx, file, p, "invalid character (byte 0x%02x)", (unsigned char)*p);
        }
        tok->at_bol = at_bol;
        tok->has_space = has_space;
        at_bol = has_space = false;
        cur = cur->next = tok;
    }
    LangToken *eof = new_token(&lx, LTK_EOF, p, p);
    eof->at_bol = true;
    cur->next = eof;
    return head.next;
}
