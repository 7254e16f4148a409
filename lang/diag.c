/*
 * diag.c — what every compiler stage shares: the arena all compiler memory comes from, the
 * source files, and diagnostics that look like a compiler's (file:line:col: error: ..., the
 * source line, a caret), delivered by longjmp so that a stage can stop at its first error
 * without threading failure through every function. Kept apart from the driver
 * (compile.c) so each stage can be tested alone.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang_internal.h"

struct LangArenaBlock {
    LangArenaBlock *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

void *lang_alloc(LangCtx *ctx, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    LangArenaBlock *b = ctx->arena;
    if (!b || b->used + size > b->size) {
        size_t cap = size > 65536 ? size : 65536;
        b = util_malloc(sizeof *b + cap);
        b->next = ctx->arena;
        b->used = 0;
        b->size = cap;
        ctx->arena = b;
    }
    void *p = b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

void *lang_grow(LangCtx *ctx, void *items, size_t count, size_t *cap, size_t size, size_t first)
{
    if (count < *cap)
        return items;
    *cap = *cap ? *cap * 2 : first;
    void *n = lang_alloc(ctx, *cap * size);
    if (count)
        memcpy(n, items, count * size);
    return n;
}

char *lang_strndup(LangCtx *ctx, const char *s, size_t n)
{
    char *p = lang_alloc(ctx, n + 1);
    memcpy(p, s, n);
    return p;
}

char *lang_format(LangCtx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *tmp = NULL;
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    tmp = lang_alloc(ctx, (size_t)n + 1);
    vsnprintf(tmp, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return tmp;
}

void lang_ctx_free(LangCtx *ctx)
{
    for (LangArenaBlock *b = ctx->arena, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    ctx->arena = NULL;
    free(ctx->files);
    ctx->files = NULL;
    free(ctx->diags);
    ctx->diags = NULL;
    ctx->diags_len = ctx->diags_cap = 0;
}

LangFile *lang_add_file(LangCtx *ctx, const char *name, char *contents)
{
    LangFile *f = lang_alloc(ctx, sizeof *f);
    f->name = lang_strndup(ctx, name, strlen(name));
    f->contents = contents;
    f->index = ctx->num_files;
    if (ctx->num_files == ctx->files_cap) {
        ctx->files_cap = ctx->files_cap ? ctx->files_cap * 2 : 8;
        ctx->files = util_realloc(ctx->files, (size_t)ctx->files_cap * sizeof *ctx->files);
    }
    ctx->files[ctx->num_files++] = f;
    return f;
}

/* Formats "file:line:col: error: msg", then the line and a caret under col, into out. */
static void format_diag(char *out, size_t size, const LangFile *file, const char *pos, int len,
                        const char *fmt, va_list ap) UTIL_PRINTF(6, 0);
static void format_diag(char *out, size_t size, const LangFile *file, const char *pos, int len,
                        const char *fmt, va_list ap)
{
    char msg[600];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (!file || !pos) {
        /* No position (a whole-file problem such as "no kernel"): still name the file. */
        if (file)
            snprintf(out, size, "%s: error: %s", file->name, msg);
        else
            snprintf(out, size, "error: %s", msg);
        return;
    }
    const char *start = pos, *end = pos;
    while (start > file->contents && start[-1] != '\n')
        start--;
    while (*end && *end != '\n')
        end++;
    int line = 1;
    for (const char *p = file->contents; p < start; p++)
        line += *p == '\n';
    int col = (int)(pos - start) + 1;
    /* Show at most ~160 columns of the line, around the error. */
    const char *show = start;
    if (pos - show > 120)
        show = pos - 80;
    int shown = (int)(end - show) > 160 ? 160 : (int)(end - show);
    char caret[200];
    int k = 0;
    for (const char *p = show; p < pos && k < 180; p++)
        caret[k++] = *p == '\t' ? '\t' : ' ';
    caret[k++] = '^';
    for (int i = 1; i < len && k < 190 && pos + i < end; i++)
        caret[k++] = '~';
    caret[k] = '\0';
    snprintf(out, size, "%s:%d:%d: error: %s\n%.*s\n%s", file->name, line, col, msg, shown, show,
             caret);
}

static _Noreturn void report(LangCtx *ctx, const LangFile *file, const char *pos, int len,
                             const char *fmt, va_list ap) UTIL_PRINTF(5, 0);
static _Noreturn void report(LangCtx *ctx, const LangFile *file, const char *pos, int len,
                             const char *fmt, va_list ap)
{
    char diag[1024];
    format_diag(diag, sizeof diag, file, pos, len, fmt, ap);
    if (ctx->num_errors == 0)
        util_fail(ctx->err, "%s", diag);
    else /* soft errors came first: keep them and add this one */
        lang_error_soft(ctx, NULL, "%s", diag);
    longjmp(ctx->bail, 1);
}

/* The kept errors into ctx->err, one per line group, as many whole ones as fit, then how
 * many more there were (those past the limit, and any that did not fit). */
static void publish(LangCtx *ctx)
{
    if (!ctx->err)
        return;
    char *out = ctx->err->message;
    const size_t size = sizeof ctx->err->message, reserve = 64; /* room for the count */
    size_t used = 0;
    int shown = 0;
    out[0] = '\0';
    for (size_t at = 0; at < ctx->diags_len && shown < ctx->num_errors; shown++) {
        const size_t n = strlen(ctx->diags + at);
        if (used + 1 + n + reserve > size)
            break;
        if (used)
            out[used++] = '\n';
        memcpy(out + used, ctx->diags + at, n + 1);
        used += n;
        at += n + 1;
    }
    const int more = ctx->num_errors - shown + ctx->num_hidden;
    if (more)
        snprintf(out + used, size - used, "%s%d more error%s not shown", used ? "\n" : "",
                 more, more == 1 ? "" : "s");
}

void lang_error_soft(LangCtx *ctx, const LangToken *tok, const char *fmt, ...)
{
    char diag[1024];
    va_list ap;
    va_start(ap, fmt);
    while (tok && tok->origin)
        tok = tok->origin;
    if (tok && tok->file)
        format_diag(diag, sizeof diag, tok->file, tok->loc, tok->len, fmt, ap);
    else if (ctx->num_errors == 0 && ctx->num_files)
        format_diag(diag, sizeof diag, ctx->files[0], NULL, 0, fmt, ap);
    else
        vsnprintf(diag, sizeof diag, fmt, ap);
    va_end(ap);
    if (ctx->num_errors >= LANG_MAX_ERRORS) {
        ctx->num_hidden++;
        publish(ctx);
        return;
    }
    const size_t n = strlen(diag) + 1; /* kept with its NUL: errors are found by walking */
    util_reserve((void **)&ctx->diags, &ctx->diags_cap, ctx->diags_len + n, 1);
    memcpy(ctx->diags + ctx->diags_len, diag, n);
    ctx->diags_len += n;
    ctx->num_errors++;
    publish(ctx);
}

LangErrorMark lang_errors_mark(const LangCtx *ctx)
{
    return (LangErrorMark){ctx->num_errors, ctx->num_hidden, ctx->diags_len};
}

void lang_errors_restore(LangCtx *ctx, LangErrorMark mark)
{
    ctx->num_errors = mark.num_errors;
    ctx->num_hidden = mark.num_hidden;
    ctx->diags_len = mark.diags_len;
    publish(ctx);
}

void lang_bail_if_errors(LangCtx *ctx)
{
    if (ctx->num_errors)
        longjmp(ctx->bail, 1);
}

void lang_error_at(LangCtx *ctx, const LangToken *tok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    while (tok && tok->origin)
        tok = tok->origin;
    if (!tok || !tok->file)
        report(ctx, ctx->num_files ? ctx->files[0] : NULL, NULL, 0, fmt, ap);
    report(ctx, tok->file, tok->loc, tok->len, fmt, ap);
}

void lang_error_pos(LangCtx *ctx, const LangFile *file, const char *pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(ctx, file, pos, 1, fmt, ap);
}

