/*
 * ref_common.h — what the independent reference generators in tests/ref/ share, written from
 * the definitions and not from lockstep's code: the .npy writer (format 1.0, little-endian,
 * C order, 1-D), the tolerance guard, and SplitMix64 (the manifest's `random` and `normal`
 * inits, docs/manifest.md). Header-only so each generator still builds as one command:
 *
 *   cc -std=c11 -O1 -ffp-contract=off tests/ref/NAME.c -lm -o /tmp/NAME
 *
 * Before including it a generator defines REF_TOOL (its name, for messages); it sets
 * ref_out_dir from its command line.
 */
#ifndef LOCKSTEP_TESTS_REF_COMMON_H
#define LOCKSTEP_TESTS_REF_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef REF_TOOL
#error "define REF_TOOL (the generator's name) before including ref_common.h"
#endif

static const char *ref_out_dir;

/* elem_size bytes per element in `data`, host order; written little-endian at OUT/name. */
static inline void write_npy(const char *name, const char *descr, size_t elem_size, size_t count,
                             const void *data)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", ref_out_dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, REF_TOOL ": cannot write %s\n", path);
        exit(1);
    }
    char header[256];
    int len = snprintf(header, sizeof header,
                       "{'descr': '%s', 'fortran_order': False, 'shape': (%zu,), }", descr, count);
    /* numpy pads the header with spaces so that magic + lengths + header is a multiple of 64
     * and ends it with a newline. */
    size_t padded = (10 + (size_t)len + 1 + 63) / 64 * 64;
    while ((size_t)len < padded - 10 - 1)
        header[len++] = ' ';
    header[len++] = '\n';
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    unsigned char hl[2] = {(unsigned char)(len & 0xff), (unsigned char)(len >> 8)};
    fwrite(hl, 1, 2, f);
    fwrite(header, 1, (size_t)len, f);
    const unsigned char *bytes = data;
    for (size_t i = 0; i < count; i++) {
        uint64_t v = 0;
        memcpy(&v, bytes + i * elem_size, elem_size); /* low bytes: main() checks the host */
        unsigned char le[8];
        for (size_t b = 0; b < elem_size; b++)
            le[b] = (unsigned char)(v >> (8 * b));
        fwrite(le, 1, elem_size, f);
    }
    if (fclose(f) != 0) {
        fprintf(stderr, REF_TOOL ": error writing %s\n", path);
        exit(1);
    }
}

static inline void write_f32(const char *name, const float *v, size_t n) { write_npy(name, "<f4", 4, n, v); }
static inline void write_f16(const char *name, const uint16_t *v, size_t n) { write_npy(name, "<f2", 2, n, v); }
static inline void write_u32(const char *name, const uint32_t *v, size_t n) { write_npy(name, "<u4", 4, n, v); }
static inline void write_u8(const char *name, const uint8_t *v, size_t n) { write_npy(name, "|u1", 1, n, v); }

/* A tolerance the manifest states was exceeded by a plausible alternative: stop. */
static inline void check_tolerance(const char *what, size_t index, double want, double alt,
                                   double rtol, double atol)
{
    if (fabs(alt - want) <= atol + rtol * fabs(want))
        return;
    fprintf(stderr, REF_TOOL ": %s[%zu]: an allowed evaluation gives %.9g, expected %.9g; the "
            "manifest's tolerance (rtol %g, atol %g) is too tight\n", what, index, alt, want,
            rtol, atol);
    exit(1);
}

/* ---- SplitMix64 ------------------------------------------------------------------------- */

static uint64_t sm_state;

static inline uint64_t sm_next(void)
{
    sm_state += 0x9e3779b97f4a7c15ull;
    uint64_t z = sm_state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif
