// tools.c — the small measuring and comparing helpers of the comparison harness (run.sh),
// in C so the harness needs only a shell and a C compiler.
//
//   tools time RESULT CMD [ARGS...]   run CMD; write "WALL_SECONDS MAXRSS_KB STATUS" to RESULT
//                                    (wall clock from fork to exit, peak RSS from wait4)
//   tools cmp TYPE RTOL ATOL REF GOT  compare two outputs element by element; REF and GOT are
//                                    raw .bin files, or oclgrind:DUMPFILE:NAME for the text
//                                    oclgrind-kernel prints for an argument marked `dump`.
//                                    Prints "ok N" or "DIFF ..."; exit 0 when equal within
//                                    |got - want| <= atol + rtol * |want| (NaN matches
//                                    NaN, an infinity only itself), 1 otherwise.
//
// TYPE is float or uint. Oclgrind prints floats with 6 significant digits, so comparisons
// against it need rtol of about 1e-5.
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmd_time(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: tools time RESULT CMD [ARGS...]\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        fprintf(stderr, "tools: cannot run %s: %s\n", argv[1], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("wait4");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    FILE *f = fopen(argv[0], "w");
    if (!f) {
        perror(argv[0]);
        return 2;
    }
    fprintf(f, "%.6f %ld %d\n", wall, ru.ru_maxrss, rc);
    fclose(f);
    return 0;
}

// Values of one output as doubles; *n receives the count.
static double *load(const char *spec, const char *type, size_t *n)
{
    int is_float = !strcmp(type, "float");
    if (!strncmp(spec, "oclgrind:", 9)) {
        char path[4096];
        snprintf(path, sizeof path, "%s", spec + 9);
        char *colon = strrchr(path, ':');
        if (!colon) {
            fprintf(stderr, "tools: expected oclgrind:FILE:NAME, got %s\n", spec);
            exit(2);
        }
        *colon = 0;
        const char *name = colon + 1;
        FILE *f = fopen(path, "r");
        if (!f) {
            fprintf(stderr, "tools: %s: %s\n", path, strerror(errno));
            exit(2);
        }
        char header[256];
        snprintf(header, sizeof header, "Argument '%s':", name);
        size_t cap = 1024, count = 0;
        double *v = malloc(cap * sizeof *v);
        char *line = NULL;
        size_t len = 0;
        int in_arg = 0;
        size_t nl = strlen(name);
        while (getline(&line, &len, f) > 0) {
            if (!strncmp(line, "Argument '", 10)) {
                in_arg = !strncmp(line, header, strlen(header));
                continue;
            }
            char *p = line;
            while (*p == ' ')
                p++;
            if (!in_arg || strncmp(p, name, nl) || p[nl] != '[')
                continue;
            char *eq = strchr(p, '=');
            if (!eq)
                continue;
            if (count == cap)
                v = realloc(v, (cap *= 2) * sizeof *v);
            v[count++] = strtod(eq + 1, NULL);
        }
        free(line);
        fclose(f);
        *n = count;
        return v;
    }
    FILE *f = fopen(spec, "rb");
    if (!f) {
        fprintf(stderr, "tools: %s: %s\n", spec, strerror(errno));
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    *n = (size_t)bytes / 4;
    double *v = malloc((*n + 1) * sizeof *v);
    for (size_t i = 0; i < *n; i++) {
        unsigned char b[4];
        if (fread(b, 1, 4, f) != 4)
            break;
        if (is_float) {
            float x;
            memcpy(&x, b, 4);
            v[i] = x;
        } else {
            uint32_t x;
            memcpy(&x, b, 4);
            v[i] = x;
        }
    }
    fclose(f);
    return v;
}

static int cmd_cmp(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: tools cmp TYPE RTOL ATOL REF GOT\n");
        return 2;
    }
    double rtol = strtod(argv[1], NULL), atol = strtod(argv[2], NULL);
    size_t nw, ng;
    double *want = load(argv[3], argv[0], &nw);
    double *got = load(argv[4], argv[0], &ng);
    if (nw != ng || nw == 0) {
        printf("DIFF sizes %zu vs %zu\n", nw, ng);
        return 1;
    }
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < nw; i++) {
        double w = want[i], g = got[i];
        int same = (w == g) || (isnan(w) && isnan(g)) ||
                   (isfinite(w) && isfinite(g) && fabs(g - w) <= atol + rtol * fabs(w));
        if (!same && bad++ == 0)
            first = i;
    }
    if (bad) {
        printf("DIFF %zu of %zu (first [%zu]: got %.9g want %.9g)\n", bad, nw, first,
               got[first], want[first]);
        return 1;
    }
    printf("ok %zu\n", nw);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "time"))
        return cmd_time(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "cmp"))
        return cmd_cmp(argc - 2, argv + 2);
    fprintf(stderr, "usage: tools time RESULT CMD... | tools cmp TYPE RTOL ATOL REF GOT\n");
    return 2;
}
