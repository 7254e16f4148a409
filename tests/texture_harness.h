/*
 * texture_harness.h — what the texture suites share (tests/lang/test_texture*.c,
 * tests/check/test_texture_checks.c): a temporary folder to write a kernel, a manifest and
 * raw input texels into, `lockstep` run on them, and the dumped texels read back.
 */
#ifndef LOCKSTEP_TESTS_TEXTURE_HARNESS_H
#define LOCKSTEP_TESTS_TEXTURE_HARNESS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

typedef struct TexDir {
    char path[64];
} TexDir;

static inline void tex_dir_new(TexDir *d)
{
    snprintf(d->path, sizeof d->path, "/tmp/lockstep-texture-XXXXXX");
    assert_non_null(mkdtemp(d->path));
}

static inline void tex_dir_remove(TexDir *d)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", d->path);
    assert_int_equal(system(cmd), 0);
}

static inline void tex_put(const TexDir *d, const char *name, const void *data, size_t size)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", d->path, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
}

static inline void tex_put_text(const TexDir *d, const char *name, const char *text)
{
    tex_put(d, name, text, strlen(text));
}

/* Reads a dumped file, which must hold exactly `size` bytes. */
static inline void tex_get(const TexDir *d, const char *name, void *data, size_t size)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", d->path, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("no dump %s", path);
    size_t got = fread(data, 1, size, f);
    int more = fgetc(f);
    fclose(f);
    if (got != size || more != EOF)
        fail_msg("%s: expected %zu bytes", path, size);
}

/* `lockstep COMMAND DIR/MANIFEST --mode functional`; the exit status, output in *out. */
static inline int tex_lockstep(const TexDir *d, const char *command, const char *manifest,
                               char **out)
{
    char args[512];
    snprintf(args, sizeof args, "%s %s/%s%s", command, d->path, manifest,
             strcmp(command, "run") == 0 ? " --mode functional" : "");
    return test_lockstep(args, out);
}

/* Runs a manifest that must succeed. */
static inline void tex_run_ok(const TexDir *d, const char *manifest)
{
    char *out = NULL;
    int status = tex_lockstep(d, "run", manifest, &out);
    if (status != 0)
        fail_msg("lockstep run %s/%s exited %d:\n%s", d->path, manifest, status, out);
    free(out);
}

/* binary16, written here (clang 14 has no _Float16 on x86): tex_f2h rounds a value to the
 * nearest half (ties to even) and encodes it, tex_h2f decodes one, and tex_h rounds a value
 * to half, for half arithmetic done one operation at a time (each exact in double). */
static inline float tex_h2f(uint16_t h)
{
    const int e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0 ? ldexpf((float)m, -24)
              : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 1024), e - 25);
    return (h & 0x8000) ? -v : v;
}

static inline uint16_t tex_f2h(double x)
{
    if (isnan(x))
        return 0x7e00;
    const uint16_t s = signbit(x) ? 0x8000 : 0;
    double a = fabs(x);
    if (isinf(a) || a == 0)
        return (uint16_t)(s | (a == 0 ? 0 : 0x7c00));
    int e;
    frexp(a, &e);                /* a in [2^(e-1), 2^e): 11 significant bits */
    int q = e - 11 < -24 ? -24 : e - 11; /* the ulp's exponent; subnormals' is -24 */
    double r = ldexp(nearbyint(ldexp(a, -q)), q);
    if (r > 65504.0)
        return (uint16_t)(s | 0x7c00);
    if (r < 0x1p-14)             /* subnormal: a multiple of 2^-24 */
        return (uint16_t)(s | (uint16_t)ldexp(r, 24));
    frexp(r, &e);                /* r = 1.m x 2^(e-1) */
    return (uint16_t)(s | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)(ldexp(r, 11 - e) - 1024));
}

static inline float tex_h(double x) { return tex_h2f(tex_f2h(x)); }

/* A kernel that `lockstep compile` must refuse: its body (after the metal_stdlib lines) and
 * what the message must hold (file:line:col, then the words). */
typedef struct TexBad {
    const char *body, *where, *what;
} TexBad;

/* Compiles each of n bad kernels in d; returns how many were not refused as expected
 * (each printed). */
static inline int tex_compile_errors(const TexDir *d, const TexBad *bad, size_t n)
{
    int failures = 0;
    for (size_t i = 0; i < n; i++) {
        char text[1024], args[300], *out = NULL;
        snprintf(text, sizeof text, "#include <metal_stdlib>\nusing namespace metal;\n%s\n",
                 bad[i].body);
        tex_put_text(d, "e.metal", text);
        snprintf(args, sizeof args, "compile %s/e.metal", d->path);
        int status = test_lockstep(args, &out);
        if (status != 2 || !strstr(out, bad[i].where) || !strstr(out, bad[i].what)) {
            print_message("case %zu: exit %d, expected '%s...%s', got:\n%s\n", i, status,
                          bad[i].where, bad[i].what, out);
            failures++;
        }
        free(out);
    }
    return failures;
}

#endif
