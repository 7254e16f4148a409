/*
 * util.c — checked allocation, error formatting and file reading shared by every module,
 * and mapping a large buffer's pages ahead of writing it (util_populate). Allocation failure
 * is not a recoverable condition for a simulator: it aborts with a message. Files read whole
 * are regular files of at most UTIL_MAX_FILE_BYTES: a device, a FIFO or a runaway file is
 * bad input, not something to wait on or to read until memory runs out.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* madvise */
#endif
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

bool util_failv(UtilError *err, const char *fmt, va_list ap)
{
    if (err)
        vsnprintf(err->message, sizeof err->message, fmt, ap);
    return false;
}

bool util_fail(UtilError *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    util_failv(err, fmt, ap);
    va_end(ap);
    return false;
}

static void out_of_memory(size_t size)
{
    fprintf(stderr, "lockstep: fatal: out of memory allocating %zu bytes\n", size);
    abort();
}

void *util_malloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        out_of_memory(size);
    return p;
}

void *util_calloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        out_of_memory(count * size);
    return p;
}

void util_populate(void *p, size_t n)
{
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels refuse it, which is fine */
#endif
    if (n < UTIL_POPULATE_MIN)
        return;
    const long sz = sysconf(_SC_PAGESIZE); /* from the process's start-up data, no call */
    const size_t page = sz > 0 ? (size_t)sz : 4096;
    uintptr_t first = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
    uintptr_t end = ((uintptr_t)p + n) & ~(uintptr_t)(page - 1);
    if (end > first)
        (void)madvise((void *)first, end - first, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)n;
#endif
}

void *util_realloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (!p)
        out_of_memory(size);
    return p;
}

char *util_strdup(const char *s) { return util_strndup(s, strlen(s)); }

char *util_strndup(const char *s, size_t n)
{
    char *p = util_malloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *util_format(const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = util_malloc((size_t)(n < 0 ? 0 : n) + 1);
    vsnprintf(p, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

void util_reserve(void **items, size_t *capacity, size_t needed, size_t item_size)
{
    if (needed <= *capacity)
        return;
    size_t cap = *capacity ? *capacity : 8;
    while (cap < needed)
        cap *= 2;
    *items = util_realloc(*items, cap * item_size);
    *capacity = cap;
}

char *util_read_file(const char *path, size_t *size, UtilError *err)
{
    /* O_NONBLOCK: opening a FIFO for reading would wait for a writer; it is refused below */
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        util_fail(err, "%s: error: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        util_fail(err, "%s: error: expected a regular file", path);
        return NULL;
    }
    if ((uint64_t)st.st_size > UTIL_MAX_FILE_BYTES) {
        close(fd);
        util_fail(err, "%s: error: %llu bytes; expected a file of at most 1 GiB", path,
                  (unsigned long long)st.st_size);
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        util_fail(err, "%s: error: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    /* st_size is a hint (files in /proc say 0, a file may grow): read to the end, capped */
    size_t cap = (size_t)st.st_size + 4096, len = 0;
    char *buf = util_malloc(cap);
    bool too_big = false;
    for (;;) {
        if (len + 1 >= cap) {
            cap *= 2;
            buf = util_realloc(buf, cap);
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
        if (len > UTIL_MAX_FILE_BYTES) {
            too_big = true;
            break;
        }
    }
    bool failed = ferror(f);
    fclose(f);
    if (failed || too_big) {
        free(buf);
        if (too_big)
            util_fail(err, "%s: error: more than 1 GiB; expected a file of at most 1 GiB", path);
        else
            util_fail(err, "%s: error: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    buf[len] = '\0';
    if (size)
        *size = len;
    return buf;
}

char *util_read_text_file(const char *path, UtilError *err)
{
    size_t size;
    char *text = util_read_file(path, &size, err);
    const char *nul = text ? memchr(text, '\0', size) : NULL;
    if (!nul)
        return text;
    unsigned line = 1, col = 1;
    for (const char *c = text; c < nul; c++, col++)
        if (*c == '\n') {
            line++;
            col = 0;
        }
    util_fail(err, "%s:%u:%u: error: a NUL byte; expected text (is this a binary file?)", path,
              line, col);
    free(text);
    return NULL;
}

char *util_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return util_strdup(".");
    if (slash == path)
        return util_strdup("/");
    return util_strndup(path, (size_t)(slash - path));
}

char *util_path_join(const char *base_dir, const char *rel)
{
    if (rel[0] == '/' || !base_dir || !base_dir[0])
        return util_strdup(rel);
    return util_format("%s/%s", base_dir, rel);
}

char *util_file_key(const char *path)
{
    char *dir = util_dirname(path);
    const char *slash = strrchr(path, '/');
    char *real = realpath(dir, NULL);
    char *key = util_path_join(real ? real : dir, slash ? slash + 1 : path);
    free(real);
    free(dir);
    return key;
}

/* The length of the well-formed UTF-8 sequence of 2 to 4 bytes at p (before end), or 0. */
static size_t utf8_sequence(const unsigned char *p, const unsigned char *end)
{
    size_t n = *p >= 0xc2 && *p <= 0xdf ? 2 : *p >= 0xe0 && *p <= 0xef ? 3
             : *p >= 0xf0 && *p <= 0xf4 ? 4 : 0;
    if (!n || (size_t)(end - p) < n)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    /* no overlong forms, surrogates or code points past U+10FFFF */
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
        (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
        return 0;
    return n;
}

void util_json_string_n(FILE *out, const char *s, size_t len)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s, *end = p + len; p < end && *p; p++) {
        if (*p >= 0x80) {
            /* UTF-8 as it is; any other byte (Latin-1 text, junk) would make the JSON
             * invalid: U+FFFD, the replacement character, stands for it */
            size_t n = utf8_sequence(p, end);
            if (n) {
                fwrite(p, 1, n, out);
                p += n - 1;
            } else {
                fputs("\\ufffd", out);
            }
        } else if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p == '\t')
            fputs("\\t", out);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

void util_json_string(FILE *out, const char *s)
{
    util_json_string_n(out, s ? s : "", s ? strlen(s) : 0);
}
