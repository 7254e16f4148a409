/*
 * test_kernels.c — end-to-end tests of the example kernels, run the way a user runs them.
 *
 * Three kinds of check:
 *   - the expected outputs committed in kernels/asm/ are exactly what the independent C
 *     reference (tests/ref/gen_expect.c) writes today, so they can never go stale;
 *   - every manifest found under kernels/ (searched on disk, so a new example is tested the
 *     moment it is added) runs with `lockstep run`, exits 0 and meets every expectation;
 *   - a few facts of the run summaries that the kernels exist to show (divergence costs SIMD
 *     efficiency, a partial grid runs exactly the SIMD-groups it needs).
 * The tests run from the repository root (as `make test` does) and use $LOCKSTEP.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "test_util.h"

#define REGEN_HINT "cc -std=c11 -O1 tests/ref/gen_expect.c -lm -o /tmp/gen && /tmp/gen kernels/asm"

/* ---- small helpers ------------------------------------------------------------------------ */

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct PathList {
    char **items;
    size_t count, cap;
} PathList;

static void path_list_add(PathList *l, const char *path)
{
    if (l->count == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->items = realloc(l->items, l->cap * sizeof *l->items);
    }
    l->items[l->count++] = strdup(path);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Every *.yaml below dir, recursively. */
static void find_manifests(const char *dir, PathList *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        /* kernels/bugs/ holds kernels that are wrong on purpose (some fault under `run`):
         * tests/check/test_check_cli.c runs them with `lockstep check`. */
        if (S_ISDIR(st.st_mode) && strcmp(path, "kernels/bugs") != 0)
            find_manifests(path, out);
        else if (S_ISREG(st.st_mode) && ends_with(e->d_name, ".yaml"))
            path_list_add(out, path);
    }
    closedir(d);
}

/* How many `expect:` keys the manifest has (outside comments). */
static int count_expectations(const char *manifest)
{
    size_t size;
    char *text = test_read_file(manifest, &size);
    if (!text)
        return -1;
    int n = 0;
    char *line = text, *end = text + size;
    while (line < end) {
        char *nl = memchr(line, '\n', (size_t)(end - line));
        char *stop = nl ? nl : end;
        char *hash = memchr(line, '#', (size_t)(stop - line));
        if (hash)
            stop = hash;
        for (char *p = line; p + 7 <= stop; p++)
            if (memcmp(p, "expect:", 7) == 0 && (p == line || !(p[-1] == '_' || isalnum((unsigned char)p[-1]))))
                n++;
        line = nl ? nl + 1 : end;
    }
    free(text);
    return n;
}

/* Summary lines that report a met expectation: "expect NAME ok (N elements)". */
static int count_ok_lines(const char *output)
{
    int n = 0;
    for (const char *line = output; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (strncmp(line, "expect ", 7) == 0) {
            for (size_t i = 7; i + 4 <= len; i++)
                if (memcmp(line + i, " ok", 3) == 0 && (line[i + 3] == ' ' || i + 3 == len)) {
                    n++;
                    break;
                }
        }
        line = nl ? nl + 1 : line + len;
    }
    return n;
}

/* The number written just before `word` in output ("32 SIMD-groups"), or right after it
 * ("SIMD efficiency 81.8%"), whichever the first occurrence of word has. */
static bool number_near(const char *output, const char *word, bool before, double *value)
{
    const char *p = strstr(output, word);
    if (!p)
        return false;
    if (before) {
        const char *q = p;
        while (q > output && q[-1] == ' ')
            q--;
        const char *end = q;
        while (q > output && (isdigit((unsigned char)q[-1]) || q[-1] == '.'))
            q--;
        if (q == end)
            return false;
        *value = strtod(q, NULL);
        return true;
    }
    const char *q = p + strlen(word);
    while (*q == ' ')
        q++;
    if (!isdigit((unsigned char)*q))
        return false;
    *value = strtod(q, NULL);
    return true;
}

/* fail_msg jumps out of the test, so the output it shows must not be heap memory that
 * would then leak (the suite also runs under LeakSanitizer): copy it and free it first. */
static char failure_text[16384];
#define FAIL_FREEING(buf, ...)                                                                   \
    do {                                                                                         \
        snprintf(failure_text, sizeof failure_text, __VA_ARGS__);                                \
        free(buf);                                                                               \
        fail_msg("%s", failure_text);                                                            \
    } while (0)

/* Runs `lockstep ARGS`; fails the test unless it exits 0. Returns the output. */
static char *run_ok(const char *args)
{
    char *out = NULL;
    int rc = test_lockstep(args, &out);
    if (rc != 0)
        FAIL_FREEING(out, "`lockstep %s` exited %d:\n%s", args, rc, out);
    return out;
}

/* ---- (a) committed expected outputs are current -------------------------------------------- */

static void test_expected_outputs_are_current(void **state)
{
    (void)state;
    char tmp[] = "/tmp/lockstep-kernels-XXXXXX";
    assert_non_null(mkdtemp(tmp));
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "cc -std=c11 -O1 tests/ref/gen_expect.c -lm -o %s/gen && mkdir %s/out && %s/gen %s/out",
             tmp, tmp, tmp, tmp);
    int rc = test_run(cmd, &out);
    if (rc != 0)
        FAIL_FREEING(out, "building or running tests/ref/gen_expect.c failed (exit %d):\n%s", rc, out);
    free(out);

    char dir[1024];
    snprintf(dir, sizeof dir, "%s/out", tmp);
    PathList names = {0};
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            path_list_add(&names, e->d_name);
    closedir(d);
    qsort(names.items, names.count, sizeof *names.items, compare_names);
    assert_true(names.count > 0);

    char stale[4096] = "";
    for (size_t i = 0; i < names.count; i++) {
        char fresh_path[2048], committed_path[2048];
        snprintf(fresh_path, sizeof fresh_path, "%s/%s", dir, names.items[i]);
        snprintf(committed_path, sizeof committed_path, "kernels/asm/%s", names.items[i]);
        size_t fresh_size = 0, committed_size = 0;
        char *fresh = test_read_file(fresh_path, &fresh_size);
        char *committed = test_read_file(committed_path, &committed_size);
        assert_non_null(fresh);
        if (!committed || fresh_size != committed_size || memcmp(fresh, committed, fresh_size))
            snprintf(stale + strlen(stale), sizeof stale - strlen(stale),
                     "kernels/asm/%s is %s: regenerate with `" REGEN_HINT "`\n", names.items[i],
                     committed ? "stale" : "missing");
        free(fresh);
        free(committed);
        free(names.items[i]);
    }
    free(names.items);
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    test_run(cmd, NULL);
    if (stale[0])
        fail_msg("%s", stale);
}

/* ---- (b) every manifest runs and meets its expectations ----------------------------------- */

static void test_manifest_runs(void **state)
{
    const char *manifest = *state;
    int expects = count_expectations(manifest);
    assert_true(expects >= 0);
    char args[1024];
    snprintf(args, sizeof args, "run %s", manifest);
    char *out = run_ok(args);
    int oks = count_ok_lines(out);
    if (oks < expects)
        FAIL_FREEING(out, "%s has %d expectations but `lockstep run` reported %d ok:\n%s",
                     manifest, expects, oks, out);
    free(out);
}

/* ---- (c) what the run summaries must show ------------------------------------------------- */

/* SIMD efficiency of a run, in percent. */
static double simd_efficiency(const char *manifest)
{
    char args[1024];
    snprintf(args, sizeof args, "run %s", manifest);
    char *out = run_ok(args);
    double eff = -1;
    if (!number_near(out, "SIMD efficiency", false, &eff))
        FAIL_FREEING(out, "no \"SIMD efficiency\" in the summary of %s:\n%s", manifest, out);
    free(out);
    return eff;
}

static void test_divergent_if_costs_efficiency(void **state)
{
    (void)state;
    double eff = simd_efficiency("kernels/asm/divergent_if.yaml");
    if (!(eff > 0 && eff < 100))
        fail_msg("divergent_if: SIMD efficiency %g%%, expected below 100%%", eff);
}

static void test_loop_costs_efficiency(void **state)
{
    (void)state;
    double eff = simd_efficiency("kernels/asm/loop_break_continue.yaml");
    if (!(eff > 0 && eff < 100))
        fail_msg("loop_break_continue: SIMD efficiency %g%%, expected below 100%%", eff);
}

/* No control flow and full SIMD-groups: every lane is busy on every instruction. */
static void test_shuffle_ballot_is_fully_efficient(void **state)
{
    (void)state;
    double eff = simd_efficiency("kernels/asm/shuffle_ballot.yaml");
    if (eff != 100)
        fail_msg("shuffle_ballot: SIMD efficiency %g%%, expected 100%%", eff);
}

/* 1000 threads in threadgroups of 256: 3 full threadgroups of 8 SIMD-groups and one of 232
 * threads = 7 full SIMD-groups + 1 of 8 lanes: 4 threadgroups, 32 SIMD-groups. */
static void test_vector_add_partial_grid(void **state)
{
    (void)state;
    char *out = run_ok("run kernels/asm/vector_add.yaml");
    double sgs = -1, tgs = -1;
    if (!number_near(out, " SIMD-groups", true, &sgs))
        FAIL_FREEING(out, "no SIMD-group count in the summary:\n%s", out);
    if (!number_near(out, " threadgroups", true, &tgs))
        FAIL_FREEING(out, "no threadgroup count in the summary:\n%s", out);
    if (sgs != 32 || tgs != 4)
        FAIL_FREEING(out, "vector_add: %g threadgroups, %g SIMD-groups; expected 4 and 32:\n%s",
                     tgs, sgs, out);
    free(out);
}

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_expected_outputs_are_current),
        cmocka_unit_test(test_divergent_if_costs_efficiency),
        cmocka_unit_test(test_loop_costs_efficiency),
        cmocka_unit_test(test_shuffle_ballot_is_fully_efficient),
        cmocka_unit_test(test_vector_add_partial_grid),
    };
    PathList manifests = {0};
    find_manifests("kernels", &manifests);
    qsort(manifests.items, manifests.count, sizeof *manifests.items, compare_names);

    /* One group, so the run's summary line counts every test: the fixed ones, then one per
     * manifest, named by its path. */
    size_t n = (sizeof fixed / sizeof fixed[0]) + manifests.count;
    struct CMUnitTest *tests = calloc(n, sizeof *tests);
    memcpy(tests, fixed, sizeof fixed);
    for (size_t i = 0; i < manifests.count; i++) {
        struct CMUnitTest *t = &tests[(sizeof fixed / sizeof fixed[0]) + i];
        t->name = manifests.items[i];
        t->test_func = test_manifest_runs;
        t->initial_state = manifests.items[i];
    }
    int failed = _cmocka_run_group_tests("kernels", tests, n, NULL, NULL);
    for (size_t i = 0; i < manifests.count; i++)
        free(manifests.items[i]);
    free(manifests.items);
    free(tests);
    return failed;
}
