/*
 * bench_compile.c — `make bench`: how long the kernel-language compiler takes on every
 * kernel in kernels/ (and the seed kernels beside the repository, when present). Each kernel
 * is compiled several times and the best time kept; the target is under 50 ms per
 * kernel. Nothing here asserts a time: the figures are for people to read.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lang/lang.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double worst_ms;
static int kernels;

static void bench_file(const char *path, int reps)
{
    UtilError err;
    size_t size;
    char *text = util_read_file(path, &size, &err);
    if (!text)
        return;
    double best = 1e30;
    uint32_t regs = 0, insts = 0;
    bool ok = true;
    for (int i = 0; i < reps; i++) {
        double t0 = now();
        IsaProgram *p = lang_compile_source(text, path, NULL, NULL, &err);
        double t = now() - t0;
        if (!p) {
            ok = false; /* kernels that need function constants or are meant to be refused */
            break;
        }
        regs = p->num_regs;
        insts = p->count;
        isa_program_free(p);
        if (t < best)
            best = t;
    }
    free(text);
    if (!ok) {
        printf("  %-58s (refused without function constants, or invalid: skipped)\n", path);
        return;
    }
    printf("  %-58s %7.2f ms  %5u instructions  %3u registers\n", path, best * 1e3, insts, regs);
    if (best * 1e3 > worst_ms)
        worst_ms = best * 1e3;
    kernels++;
}

static void walk(const char *dir, int reps)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        util_reserve((void **)&names, &cap, n + 1, sizeof *names);
        names[n] = util_malloc(sizeof *e);
        memcpy(names[n++], e, sizeof *e);
    }
    closedir(d);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(names[i]->d_name, names[j]->d_name) > 0) {
                struct dirent *t = names[i];
                names[i] = names[j];
                names[j] = t;
            }
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        size_t len = strlen(names[i]->d_name);
        if (len > 6 && strcmp(names[i]->d_name + len - 6, ".metal") == 0)
            bench_file(path, reps);
        else if (!strchr(names[i]->d_name, '.'))
            walk(path, reps);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    printf("kernel-language compile time, best of %d (target: under 50 ms each)\n", reps);
    walk("kernels", reps);
    walk("../shared/kernels/seed", reps);
    printf("compiled %d kernels; slowest %.2f ms\n", kernels, worst_ms);
    return 0;
}
