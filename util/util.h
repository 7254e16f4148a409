/*
 * util — the few helpers every module shares: checked allocation (allocation failure aborts
 * loudly, so callers never test for NULL), growable arrays, and UtilError, the status-plus-
 * message that library code returns instead of printing. Nothing here prints except the
 * out-of-memory abort.
 */
#ifndef LOCKSTEP_UTIL_H
#define LOCKSTEP_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define UTIL_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define UTIL_MIN(a, b) ((a) < (b) ? (a) : (b))
#define UTIL_MAX(a, b) ((a) > (b) ? (a) : (b))

#if defined(__GNUC__)
#define UTIL_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define UTIL_LIKELY(x) __builtin_expect(!!(x), 1)
#define UTIL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define UTIL_PRINTF(fmt, args)
#define UTIL_LIKELY(x) (x)
#define UTIL_UNLIKELY(x) (x)
#endif

/* A failed operation's message, already in its final form, e.g.
 * "k.s:3:7: error: expected a register". Library code fills it; only ui/ prints it. */
/* Room for a compiler's first 20 errors, each with its source line and caret, and the
 * count of the rest (lang/diag.c). */
typedef struct UtilError {
    char message[8192];
} UtilError;

/* Formats into err (when err is not NULL) and returns false, so callers can write
 * `return util_fail(err, "...")`. */
bool util_fail(UtilError *err, const char *fmt, ...) UTIL_PRINTF(2, 3);
bool util_failv(UtilError *err, const char *fmt, va_list ap) UTIL_PRINTF(2, 0);

void *util_malloc(size_t size);
void *util_calloc(size_t count, size_t size);
/* Maps every whole page of [p, p + n) now, in one system call, where each would otherwise be
 * mapped at its first touch by a page fault (about 1.5 us each on a virtual machine): for
 * memory about to be written throughout. Contents are unchanged. A hint only: below
 * UTIL_POPULATE_MIN bytes, and where the kernel cannot (Linux before 5.14, other systems),
 * it does nothing and pages are mapped as they are touched. */
#define UTIL_POPULATE_MIN (64u * 1024u)
void util_populate(void *p, size_t n);
void *util_realloc(void *ptr, size_t size);
char *util_strdup(const char *s);
char *util_strndup(const char *s, size_t n);
/* Allocates and formats, like asprintf. */
char *util_format(const char *fmt, ...) UTIL_PRINTF(1, 2);

/* Grows *items (of item_size bytes each) so that at least `needed` fit; *capacity tracks it. */
void util_reserve(void **items, size_t *capacity, size_t needed, size_t item_size);
#define UTIL_PUSH(items, count, capacity, value)                                                 \
    do {                                                                                         \
        util_reserve((void **)&(items), &(capacity), (count) + 1, sizeof(*(items)));             \
        (items)[(count)++] = (value);                                                            \
    } while (0)

/* Writes s (up to its NUL or its first len bytes; NULL: "") as a JSON string, quotes
 * included: quotes, backslashes and control characters escaped, and each byte that is not
 * part of well-formed UTF-8 written as \ufffd, so the JSON stays valid. */
void util_json_string_n(FILE *out, const char *s, size_t len);
void util_json_string(FILE *out, const char *s);

/* The most util_read_file reads: the largest data file a buffer takes (1 GiB). */
#define UTIL_MAX_FILE_BYTES ((uint64_t)1 << 30)
/* Reads a whole regular file of at most UTIL_MAX_FILE_BYTES; returns NULL with err set
 * ("PATH: error: ...") when it cannot (a directory, device or FIFO: "expected a regular
 * file"). The buffer is NUL-terminated (not counted in *size). */
char *util_read_file(const char *path, size_t *size, UtilError *err);

/* util_read_file for source text (kernels, assembly): a NUL byte, which would end the text
 * early and silently, is an error naming its line and column. */
char *util_read_text_file(const char *path, UtilError *err);

/* The directory part of path ("." when none), newly allocated. */
char *util_dirname(const char *path);
/* base joined to rel unless rel is absolute, newly allocated. */
char *util_path_join(const char *base_dir, const char *rel);
/* The file a path names, as far as it can tell without the file (which may not exist yet):
 * its folder's real path joined to its name, so "out.bin" and "./out.bin" are one file.
 * Newly allocated. */
char *util_file_key(const char *path);

/* SWAR popcount: __builtin_popcount is a library call on baseline x86-64. */
static inline uint32_t util_popcount32(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (x * 0x01010101u) >> 24;
}

static inline uint32_t util_f32_bits(float f)
{
    union { float f; uint32_t u; } v = {.f = f};
    return v.u;
}
static inline float util_bits_f32(uint32_t u)
{
    union { uint32_t u; float f; } v = {.u = u};
    return v.f;
}
static inline uint64_t util_f64_bits(double f)
{
    union { double f; uint64_t u; } v = {.f = f};
    return v.u;
}
static inline double util_bits_f64(uint64_t u)
{
    union { uint64_t u; double f; } v = {.u = u};
    return v.f;
}

#endif
