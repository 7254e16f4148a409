/*
 * debug_harness.h — what the `lockstep debug` suites share (test_debug_cli.c,
 * test_debug_print.c): running a session from a script, kernels written for a test in a
 * temporary folder, finding a source line, and cutting one command's output out of a run.
 */
#ifndef LOCKSTEP_TESTS_UI_DEBUG_HARNESS_H
#define LOCKSTEP_TESTS_UI_DEBUG_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

static char failure[65536];

/* Runs `lockstep debug MANIFEST OPTIONS --script FILE` with `script` in FILE. */
static inline int debug(const char *manifest, const char *options, const char *script, char **out)
{
    *out = NULL;
    char path[] = "/tmp/lockstep-debug-script-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(script, f);
    fclose(f);
    char args[1024];
    snprintf(args, sizeof args, "debug %s %s --script %s", manifest, options, path);
    int status = test_lockstep(args, out);
    unlink(path);
    return status;
}

/* A kernel written for a test: FILE (kernel.metal or kernel.s) and launch.yaml in a fresh
 * temporary folder. */
typedef struct TempKernel {
    char dir[64], kernel[128], manifest[128];
} TempKernel;

static inline void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static inline void temp_kernel(TempKernel *t, const char *file, const char *kernel, const char *yaml)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/lockstep-debug-XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    snprintf(t->kernel, sizeof t->kernel, "%s/%s", t->dir, file);
    snprintf(t->manifest, sizeof t->manifest, "%s/launch.yaml", t->dir);
    write_file(t->kernel, kernel);
    write_file(t->manifest, yaml);
}

static inline void temp_kernel_remove(TempKernel *t)
{
    unlink(t->kernel);
    unlink(t->manifest);
    rmdir(t->dir);
}

/* The line number of the first line of `file` that contains `text`. */
static inline uint32_t line_of(const char *file, const char *text)
{
    return test_line_of(file, text);
}

/* What command `cmd` printed: the text after its `(lockstep) cmd` echo up to the next echo
 * (newly allocated), or fails. `nth` picks among repeated commands (0 = first). */
static inline char *said(const char *out, const char *cmd, int nth)
{
    char echo[256];
    snprintf(echo, sizeof echo, "(lockstep) %s\n", cmd);
    const char *at = out;
    for (int k = 0; k <= nth; k++) {
        at = strstr(at, echo);
        if (!at) {
            snprintf(failure, sizeof failure, "no output for `%s` (#%d) in:\n%s", cmd, nth, out);
            fail_msg("%s", failure);
        }
        at += strlen(echo);
    }
    const char *end = strstr(at, "(lockstep) ");
    size_t n = end ? (size_t)(end - at) : strlen(at);
    char *s = malloc(n + 1);
    memcpy(s, at, n);
    s[n] = '\0';
    return s;
}

static inline void expect_in(const char *text, const char *what, const char *all)
{
    if (!strstr(text, what)) {
        snprintf(failure, sizeof failure, "expected `%s` in:\n%s\n--- whole output:\n%s", what,
                 text, all);
        fail_msg("%s", failure);
    }
}

#endif
