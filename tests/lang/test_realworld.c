/*
 * test_realworld.c — kernels written the way MLX, llama.cpp's ggml-metal, PyTorch MPS and
 * Apple's samples write them (tests/lang/realworld/), run the way a user runs them:
 *
 *   - the expected outputs in tests/lang/realworld/data/ are exactly what the independent C
 *     reference tests/ref/realworld_ref.c writes today (so they cannot go stale), and it
 *     writes nothing the folder does not hold, nor the folder anything it does not write;
 *   - every manifest there runs with `lockstep run`, exits 0 and meets every expectation;
 *   - every manifest passes `lockstep check` with no finding (these kernels are correct:
 *     a report would be a false positive);
 *   - every kernel there has a manifest, and the kernels under refused/ (language lockstep
 *     does not support yet) are refused with a message at the line of the construct.
 * The tests run from the repository root (as `make test` does) and use $LOCKSTEP.
 */
#include <dirent.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "test_util.h"

#define DIR_RW "tests/lang/realworld"
#define REGEN "cc -std=c11 -O1 -ffp-contract=off tests/ref/realworld_ref.c -lm -o /tmp/rw && " \
              "/tmp/rw " DIR_RW "/data"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the regular files in dir ending in suffix (NULL: all), sorted. */
static char **list_dir(const char *dir, const char *suffix, size_t *count)
{
    size_t n = 0, cap = 16;
    char **names = malloc(cap * sizeof *names);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
            (suffix && !ends_with(e->d_name, suffix)))
            continue;
        if (n == cap)
            names = realloc(names, (cap *= 2) * sizeof *names);
        names[n++] = strdup(e->d_name);
    }
    if (d)
        closedir(d);
    qsort(names, n, sizeof *names, compare_names);
    *count = n;
    return names;
}

static void free_list(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* fail_msg jumps out of the test: what it shows is copied first, so nothing on the heap is
 * left behind (the suite also runs under LeakSanitizer). */
static char failure[16384];

/* ---- the reference data is current ------------------------------------------------------ */

static void test_reference_is_current(void **state)
{
    (void)state;
    char tmp[] = "/tmp/lockstep-realworld-XXXXXX";
    assert_non_null(mkdtemp(tmp));
    char cmd[2048], *out = NULL;
    snprintf(cmd, sizeof cmd, "cc -std=c11 -O1 -ffp-contract=off tests/ref/realworld_ref.c -lm "
             "-o %s/gen && mkdir %s/out && %s/gen %s/out", tmp, tmp, tmp, tmp);
    int rc = test_run(cmd, &out);
    snprintf(failure, sizeof failure, "%s", out ? out : "");
    free(out);
    char dir[256];
    snprintf(dir, sizeof dir, "%s/out", tmp);
    size_t nf = 0, nc = 0;
    char **fresh = rc == 0 ? list_dir(dir, NULL, &nf) : NULL;
    char **committed = list_dir(DIR_RW "/data", NULL, &nc);
    char problems[8192] = "";
    size_t used = 0;
    for (size_t i = 0; i < nf && used < sizeof problems - 256; i++) {
        char a_path[4096], b_path[4096];
        snprintf(a_path, sizeof a_path, "%s/%s", dir, fresh[i]);
        snprintf(b_path, sizeof b_path, DIR_RW "/data/%s", fresh[i]);
        size_t na = 0, nb = 0;
        char *a = test_read_file(a_path, &na), *b = test_read_file(b_path, &nb);
        if (!a || !b || na != nb || memcmp(a, b, na) != 0)
            used += (size_t)snprintf(problems + used, sizeof problems - used, "%s is %s\n",
                                     b_path, b ? "stale" : "missing");
        free(a);
        free(b);
    }
    for (size_t i = 0; i < nc && used < sizeof problems - 256; i++) {
        bool found = false;
        for (size_t k = 0; k < nf && !found; k++)
            found = strcmp(fresh[k], committed[i]) == 0;
        if (!found && rc == 0)
            used += (size_t)snprintf(problems + used, sizeof problems - used, DIR_RW "/data/%s "
                                     "is not written by the reference: remove it\n",
                                     committed[i]);
    }
    free_list(fresh, nf);
    free_list(committed, nc);
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    test_run(cmd, NULL);
    if (rc != 0)
        fail_msg("building or running tests/ref/realworld_ref.c failed (exit %d):\n%s", rc,
                 failure);
    if (nf == 0)
        fail_msg("tests/ref/realworld_ref.c wrote no files");
    if (problems[0])
        fail_msg("%sregenerate with `%s`", problems, REGEN);
}

/* ---- every kernel has a manifest --------------------------------------------------------- */

static void test_every_kernel_has_a_manifest(void **state)
{
    (void)state;
    size_t nk = 0, nm = 0;
    char **kernels = list_dir(DIR_RW, ".metal", &nk), **manifests = list_dir(DIR_RW, ".yaml", &nm);
    char missing[4096] = "";
    size_t used = 0;
    for (size_t i = 0; i < nk; i++) {
        char line[512];
        snprintf(line, sizeof line, "kernel: %s\n", kernels[i]);
        bool found = false;
        for (size_t m = 0; m < nm && !found; m++) {
            char path[4096];
            snprintf(path, sizeof path, DIR_RW "/%s", manifests[m]);
            char *text = test_read_file(path, NULL);
            found = text && strstr(text, line);
            free(text);
        }
        if (!found && used < sizeof missing - 300)
            used += (size_t)snprintf(missing + used, sizeof missing - used,
                                     DIR_RW "/%s has no manifest (a line `kernel: %s`)\n",
                                     kernels[i], kernels[i]);
    }
    free_list(kernels, nk);
    free_list(manifests, nm);
    if (nk < 20)
        fail_msg("expected at least 20 kernels in " DIR_RW ", found %zu", nk);
    if (missing[0])
        fail_msg("%s", missing);
}

/* ---- each manifest runs and checks clean ------------------------------------------------- */

static int count_substr(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

static void run_manifest(const char *manifest, const char *verb)
{
    char *text = test_read_file(manifest, NULL);
    assert_non_null(text);
    int expects = count_substr(text, "expect:");
    free(text);
    char args[1024];
    snprintf(args, sizeof args, "%s %s --mode functional", verb, manifest);
    char *out = NULL;
    int rc = test_lockstep(args, &out);
    snprintf(failure, sizeof failure, "%s", out ? out : "");
    int oks = out ? count_substr(out, " ok (") : 0;
    bool findings = out && (strstr(out, "error:") || strstr(out, "warning:"));
    free(out);
    if (rc != 0 || findings)
        fail_msg("`lockstep %s` exited %d:\n%s", args, rc, failure);
    if (oks < expects)
        fail_msg("%s has %d expectations but `lockstep %s` reported %d ok:\n%s", manifest,
                 expects, verb, oks, failure);
}

static void test_manifest_runs(void **state) { run_manifest(*state, "run"); }
static void test_manifest_checks_clean(void **state) { run_manifest(*state, "check"); }

/* ---- what is refused, at the construct ---------------------------------------------------- */

static const struct {
    const char *file;   /* in DIR_RW/refused */
    int line;
    const char *words;  /* in the message */
} refused[] = {
    {"texture_array.metal", 8, "this texture type is not supported yet"},
};

static void test_refused(void **state)
{
    size_t i = (size_t)(uintptr_t)*state;
    char args[1024], where[256];
    snprintf(args, sizeof args, "compile " DIR_RW "/refused/%s", refused[i].file);
    snprintf(where, sizeof where, "%s:%d:", refused[i].file, refused[i].line);
    char *out = NULL;
    int rc = test_lockstep(args, &out);
    snprintf(failure, sizeof failure, "%s", out ? out : "");
    bool ok = out && strstr(out, where) && strstr(out, refused[i].words);
    free(out);
    if (rc != 2 || !ok)
        fail_msg("`lockstep %s` exited %d (expected 2, with \"%s\" at %s):\n%s", args, rc,
                 refused[i].words, where, failure);
}

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_reference_is_current),
        cmocka_unit_test(test_every_kernel_has_a_manifest),
    };
    enum { NFIXED = sizeof fixed / sizeof fixed[0], NREFUSED = sizeof refused / sizeof refused[0] };
    size_t nm = 0;
    char **manifests = list_dir(DIR_RW, ".yaml", &nm);
    size_t n = NFIXED + 2 * nm + NREFUSED;
    struct CMUnitTest *tests = calloc(n, sizeof *tests);
    char **names = calloc(3 * nm + NREFUSED + 1, sizeof *names);
    memcpy(tests, fixed, sizeof fixed);
    size_t t = NFIXED, k = 0;
    for (size_t i = 0; i < nm; i++) {
        char path[4096], name[4200];
        snprintf(path, sizeof path, DIR_RW "/%s", manifests[i]);
        char *p = names[k++] = strdup(path);
        snprintf(name, sizeof name, "run %s", path);
        tests[t].name = names[k++] = strdup(name);
        tests[t].test_func = test_manifest_runs;
        tests[t++].initial_state = p;
        snprintf(name, sizeof name, "check %s", path);
        tests[t].name = names[k++] = strdup(name);
        tests[t].test_func = test_manifest_checks_clean;
        tests[t++].initial_state = p;
    }
    for (size_t i = 0; i < NREFUSED; i++) {
        char name[256];
        snprintf(name, sizeof name, "refused: %s", refused[i].file);
        tests[t].name = names[k++] = strdup(name);
        tests[t].test_func = test_refused;
        tests[t++].initial_state = (void *)(uintptr_t)i;
    }
    int failed = _cmocka_run_group_tests("realworld", tests, t, NULL, NULL);
    for (size_t i = 0; i < k; i++)
        free(names[i]);
    free(names);
    free_list(manifests, nm);
    free(tests);
    return failed;
}
