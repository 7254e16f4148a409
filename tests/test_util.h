/*
 * test_util.h — helpers shared by the cmocka suites: the repository paths, running the
 * lockstep binary as a user would, capturing its exit status and output, and what the fuzz
 * smoke suites share (a seeded generator, a walk over the kernel folders).
 */
#ifndef LOCKSTEP_TEST_UTIL_H
#define LOCKSTEP_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/wait.h>

/* The lockstep binary under test: $LOCKSTEP, else build/lockstep. */
static inline const char *test_lockstep_path(void)
{
    const char *p = getenv("LOCKSTEP");
    return p && *p ? p : "build/lockstep";
}

/* The line number of the first line of `file` that contains `text` (fails the test when
 * there is none). */
static inline uint32_t test_line_of(const char *file, const char *text)
{
    FILE *f = fopen(file, "r");
    assert_non_null(f);
    char line[1024];
    uint32_t n = 0;
    while (fgets(line, sizeof line, f)) {
        n++;
        if (strstr(line, text)) {
            fclose(f);
            return n;
        }
    }
    fclose(f);
    fail_msg("%s has no line with `%s`", file, text);
    return 0;
}

/* Runs a shell command; returns its exit status (or 128+signal) and its stdout+stderr,
 * newly allocated, in *output (when output is not NULL). */
static inline int test_run(const char *command, char **output)
{
    char *full = malloc(strlen(command) + 16);
    sprintf(full, "%s 2>&1", command);
    FILE *p = popen(full, "r");
    free(full);
    if (!p)
        return -1;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += got;
        if (len + 1 >= cap)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = '\0';
    int status = pclose(p);
    if (output)
        *output = buf;
    else
        free(buf);
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return -1;
}

/* A whole file, newly allocated and NUL-terminated (so text can be read as a string); its
 * length in *size when size is not NULL; NULL when it cannot be opened. */
static inline char *test_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0, got;
    char *buf = malloc(cap + 1);
    while ((got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap)
            buf = realloc(buf, (cap *= 2) + 1);
    }
    fclose(f);
    buf[len] = '\0';
    if (size)
        *size = len;
    return buf;
}

/* Writes text to DIR/NAME (a test's temporary directory), or fails. */
static inline void test_write_file(const char *dir, const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Runs `lockstep ARGS`; see test_run. */
static inline int test_lockstep(const char *args, char **output)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s", test_lockstep_path(), args);
    return test_run(cmd, output);
}

/* splitmix64: the fuzz smoke suites' seeded generator */
static inline uint64_t test_rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Calls visit(path, name) for every file under dir in name order, going into subfolders
 * (names without a dot), skipping hidden entries, while visit returns true. */
typedef bool (*TestVisit)(const char *path, const char *name);
static inline bool test_walk_files(const char *dir, TestVisit visit)
{
    struct dirent **list;
    int n = scandir(dir, &list, NULL, alphasort);
    bool more = true;
    for (int i = 0; i < n; i++) {
        const char *name = list[i]->d_name;
        char path[1024];
        const int len = snprintf(path, sizeof path, "%s/%s", dir, name);
        if (more && name[0] != '.' && len < (int)sizeof path)
            more = strchr(name, '.') ? visit(path, name) : test_walk_files(path, visit);
        free(list[i]);
    }
    if (n >= 0)
        free(list);
    return more;
}

#endif
