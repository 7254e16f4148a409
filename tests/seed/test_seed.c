/*
 * test_seed.c — the real Metal kernels of ../shared/kernels/seed/ (read in place, never
 * copied) and the teaching kernels of kernels/, run the way a user runs them.
 *
 *   - the expected outputs committed in tests/seed/data/ and kernels/<topic>/ are exactly what
 *     the independent C references (tests/ref/seed_ref.c, tests/ref/teach_ref.c) write
 *     today, so they can never go stale (tests/e2e/test_kernels.c runs every kernels/ manifest;
 *     this file checks the teaching kernels' reference data);
 *   - every manifest in tests/seed/ runs with `lockstep run`, exits 0 and meets every expectation,
 *     and there is one for each seed kernel that must run;
 *   - the seed kernels that are not valid MSL are refused, by `lockstep run` (manifests in
 *     tests/seed/refused/) and by `lockstep compile`, with exit status 2 and a diagnostic
 *     at the right file:line:col that shows the source line and a caret under the column.
 * The tests run from the repository root (as `make test` does) and use $LOCKSTEP.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <strings.h>
#include <sys/stat.h>

#include "test_util.h"

#define SEED_DIR "../shared/kernels/seed"
#define SEED_REGEN "cc -std=c11 -O1 -ffp-contract=off tests/ref/seed_ref.c -lm -o /tmp/seed_ref " \
                   "&& /tmp/seed_ref tests/seed/data"
#define TEACH_REGEN "cc -std=c11 -O1 -ffp-contract=off tests/ref/teach_ref.c -lm -o /tmp/teach_ref " \
                    "&& /tmp/teach_ref kernels"

/* The seed kernels that must compile and run; each has tests/seed/NAME.yaml. */
static const char *const must_run[] = {
    "add_arrays", "dot_product_fp16", "gemv_mixed_precision", "reduction_with_shared",
    "rmsnorm", "silu_activation", "rope", "histogram", "softmax", "thread_id_demo", "gemm",
    "mlx_myexp", "mlx_grid_sample", "mlx_grid_sample_grad",
};

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

static void path_list_free(PathList *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->count = l->cap = 0;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The regular files below root/rel, as paths relative to root; recursive when asked, and
 * only those ending in suffix (NULL: all). */
static void list_files(const char *root, const char *rel, bool recursive, const char *suffix,
                       PathList *out)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s%s%s", root, rel[0] ? "/" : "", rel);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[8192], sub[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode) && recursive)
            list_files(root, sub, true, suffix, out);
        else if (S_ISREG(st.st_mode) && (!suffix || ends_with(e->d_name, suffix)))
            path_list_add(out, sub);
    }
    closedir(d);
}

/* How many `expect:` keys the manifest has (outside comments). */
static int count_expectations(const char *text)
{
    int n = 0;
    const char *line = text, *end = text + strlen(text);
    while (line < end) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *stop = nl ? nl : end;
        const char *hash = memchr(line, '#', (size_t)(stop - line));
        if (hash)
            stop = hash;
        for (const char *p = line; p + 7 <= stop; p++)
            if (memcmp(p, "expect:", 7) == 0 &&
                (p == line || !(p[-1] == '_' || isalnum((unsigned char)p[-1]))))
                n++;
        line = nl ? nl + 1 : end;
    }
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
            for (size_t i = 7; i + 3 <= len; i++)
                if (memcmp(line + i, " ok", 3) == 0 && (i + 3 == len || line[i + 3] == ' ')) {
                    n++;
                    break;
                }
        }
        line = nl ? nl + 1 : line + len;
    }
    return n;
}

/* fail_msg jumps out of the test, so what it shows must not be heap memory that would then
 * leak (the suite also runs under LeakSanitizer): copy it and free first. */
static char failure_text[16384];
#define FAIL_FREEING(buf, ...)                                                                   \
    do {                                                                                         \
        snprintf(failure_text, sizeof failure_text, __VA_ARGS__);                                \
        free(buf);                                                                               \
        fail_msg("%s", failure_text);                                                            \
    } while (0)

static void require_seed_dir(void)
{
    struct stat st;
    if (stat(SEED_DIR, &st) != 0 || !S_ISDIR(st.st_mode))
        fail_msg("%s is missing: the seed kernels are read in place from the shared folder "
                 "beside the repository (run the tests from the repository root)", SEED_DIR);
}

/* ---- (a) committed reference outputs are current ------------------------------------------ */

/* Builds and runs a reference generator into a fresh directory; then every file it wrote
 * must equal the committed one under committed_root, and (when orphans_too) every file under
 * committed_root must be one it wrote. */
static void check_reference(const char *source, const char *committed_root, bool recursive,
                            const char *committed_suffix, bool orphans_too, const char *hint)
{
    char tmp[] = "/tmp/lockstep-seed-XXXXXX";
    assert_non_null(mkdtemp(tmp));
    char cmd[2048], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "cc -std=c11 -O1 -ffp-contract=off %s -lm -o %s/gen && mkdir %s/out && %s/gen %s/out",
             source, tmp, tmp, tmp, tmp);
    int rc = test_run(cmd, &out);
    if (rc != 0) {
        snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
        test_run(cmd, NULL);
        FAIL_FREEING(out, "building or running %s failed (exit %d):\n%s", source, rc, out);
    }
    free(out);

    char dir[1024];
    snprintf(dir, sizeof dir, "%s/out", tmp);
    PathList fresh = {0}, committed = {0};
    list_files(dir, "", recursive, NULL, &fresh);
    list_files(committed_root, "", recursive, committed_suffix, &committed);
    qsort(fresh.items, fresh.count, sizeof *fresh.items, compare_names);
    bool wrote_any = fresh.count > 0;

    char problems[8192] = "";
    size_t used = 0;
    for (size_t i = 0; i < fresh.count; i++) {
        char fresh_path[4096], committed_path[4096];
        snprintf(fresh_path, sizeof fresh_path, "%s/%s", dir, fresh.items[i]);
        snprintf(committed_path, sizeof committed_path, "%s/%s", committed_root, fresh.items[i]);
        size_t fresh_size = 0, committed_size = 0;
        char *a = test_read_file(fresh_path, &fresh_size);
        char *b = test_read_file(committed_path, &committed_size);
        if (!b || !a || fresh_size != committed_size || memcmp(a, b, fresh_size))
            used += (size_t)snprintf(problems + used, sizeof problems - used, "%s is %s\n",
                                     committed_path, b ? "stale" : "missing");
        free(a);
        free(b);
        if (used >= sizeof problems)
            used = sizeof problems - 1;
    }
    for (size_t i = 0; orphans_too && i < committed.count; i++) {
        bool found = false;
        for (size_t k = 0; k < fresh.count && !found; k++)
            found = strcmp(fresh.items[k], committed.items[i]) == 0;
        if (!found && used < sizeof problems - 1)
            used += (size_t)snprintf(problems + used, sizeof problems - used,
                                     "%s/%s is not written by %s any more: remove it\n",
                                     committed_root, committed.items[i], source);
        if (used >= sizeof problems)
            used = sizeof problems - 1;
    }
    path_list_free(&fresh);
    path_list_free(&committed);
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    test_run(cmd, NULL);
    if (!wrote_any)
        fail_msg("%s wrote no files", source);
    if (problems[0])
        fail_msg("%sregenerate with `%s`", problems, hint);
}

static void test_seed_reference_is_current(void **state)
{
    (void)state;
    check_reference("tests/ref/seed_ref.c", "tests/seed/data", false, NULL, true, SEED_REGEN);
}

/* teach_ref writes kernels/<topic>/... ; only .npy files there are its output. */
static void test_teach_reference_is_current(void **state)
{
    (void)state;
    check_reference("tests/ref/teach_ref.c", "kernels", true, NULL, false, TEACH_REGEN);
}

/* Every teaching kernel has a manifest beside it (tests/e2e/test_kernels.c runs them all). */
static void test_teaching_kernels_have_manifests(void **state)
{
    (void)state;
    PathList metal = {0};
    list_files("kernels", "", true, ".metal", &metal);
    if (metal.count == 0) {
        path_list_free(&metal);
        fail_msg("no .metal teaching kernels under kernels/");
    }
    char missing[4096] = "";
    size_t used = 0;
    for (size_t i = 0; i < metal.count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "kernels/%.*s.yaml", (int)(strlen(metal.items[i]) - 6),
                 metal.items[i]);
        struct stat st;
        if (stat(path, &st) != 0 && used < sizeof missing - 1)
            used += (size_t)snprintf(missing + used, sizeof missing - used, "%s has no manifest "
                                     "%s\n", metal.items[i], path);
        if (used >= sizeof missing)
            used = sizeof missing - 1;
    }
    path_list_free(&metal);
    if (missing[0])
        fail_msg("%s", missing);
}

/* ---- (b) every seed manifest runs and meets its expectations ------------------------------ */

static void test_every_seed_kernel_has_a_manifest(void **state)
{
    (void)state;
    require_seed_dir();
    for (size_t i = 0; i < sizeof must_run / sizeof must_run[0]; i++) {
        char path[512], kernel[512];
        snprintf(path, sizeof path, "tests/seed/%s.yaml", must_run[i]);
        snprintf(kernel, sizeof kernel, "kernel: ../../../shared/kernels/seed/%s.metal\n",
                 must_run[i]);
        char *text = test_read_file(path, NULL);
        if (!text)
            fail_msg("%s is missing", path);
        if (!strstr(text, kernel))
            FAIL_FREEING(text, "%s must read the seed kernel in place: expected a line `%.*s`",
                         path, (int)strlen(kernel) - 1, kernel);
        free(text);
    }
}

static void test_seed_manifest_runs(void **state)
{
    const char *manifest = *state;
    require_seed_dir();
    char *text = test_read_file(manifest, NULL);
    assert_non_null(text);
    int expects = count_expectations(text);
    free(text);
    char args[1024];
    snprintf(args, sizeof args, "run %s", manifest);
    char *out = NULL;
    int rc = test_lockstep(args, &out);
    if (rc != 0)
        FAIL_FREEING(out, "`lockstep %s` exited %d:\n%s", args, rc, out);
    int oks = count_ok_lines(out);
    if (oks < expects)
        FAIL_FREEING(out, "%s has %d expectations but `lockstep run` reported %d ok:\n%s",
                     manifest, expects, oks, out);
    free(out);
}

/* ---- (c) invalid seed kernels are refused with a located diagnostic ----------------------- */

typedef struct Expected {
    int line, col;          /* col 0: any column */
    const char *words[3];   /* each must appear on the error line; "a|b" means either */
} Expected;

typedef struct Refused {
    const char *name;
    Expected diags[2];
} Refused;

static const Refused refused[] = {
    {"softmax_simd", {{12, 23, {"threads_per_threadgroup", "undeclared|not declared"}}}},
    {"address_space_demo", {{6, 14, {"Params", "unknown type"}}}},
    {"linear_layer", {{18, 48, {"expected", "expression"}}}},
    {"spec_reduce", {{32, 18, {"undeclared|not declared"}}, {36, 0, {"atomic"}}}},
};

static bool has_word(const char *line, size_t len, const char *alternatives)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", alternatives);
    for (char *save = NULL, *w = strtok_r(buf, "|", &save); w; w = strtok_r(NULL, "|", &save)) {
        size_t n = strlen(w);
        for (size_t i = 0; i + n <= len; i++)
            if (strncasecmp(line + i, w, n) == 0)
                return true;
    }
    return false;
}

/* Line `line` (1-based) of text, without its newline. */
static bool source_line(const char *text, int line, const char **start, size_t *len)
{
    const char *p = text;
    for (int i = 1; i < line; i++) {
        p = strchr(p, '\n');
        if (!p)
            return false;
        p++;
    }
    const char *nl = strchr(p, '\n');
    *start = p;
    *len = nl ? (size_t)(nl - p) : strlen(p);
    return true;
}

/* Checks one expected diagnostic in output; returns NULL or what is wrong (static text). */
static const char *check_diagnostic(const char *output, const char *name, const char *source,
                                    const Expected *e)
{
    static char why[1024];
    char loc[256];
    snprintf(loc, sizeof loc, "%s.metal:%d:", name, e->line);
    const char *p = strstr(output, loc);
    if (!p) {
        snprintf(why, sizeof why, "no diagnostic at %s.metal line %d", name, e->line);
        return why;
    }
    int col = atoi(p + strlen(loc));
    if (col <= 0 || (e->col && col != e->col)) {
        snprintf(why, sizeof why, "the diagnostic at %s.metal:%d is at column %d, expected %d",
                 name, e->line, col, e->col);
        return why;
    }
    const char *line_start = p;
    while (line_start > output && line_start[-1] != '\n')
        line_start--;
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - line_start) : strlen(line_start);
    if (!has_word(line_start, len, ": error:")) {
        snprintf(why, sizeof why, "%.*s: expected \"error:\" after the location", (int)len,
                 line_start);
        return why;
    }
    for (int w = 0; w < 3 && e->words[w]; w++)
        if (!has_word(line_start, len, e->words[w])) {
            snprintf(why, sizeof why, "%.*s: expected the message to say %s", (int)len,
                     line_start, e->words[w]);
            return why;
        }
    /* The next line is the source line, the one after it a caret under the column. */
    const char *src;
    size_t src_len;
    if (!source_line(source, e->line, &src, &src_len) || !nl) {
        snprintf(why, sizeof why, "no source line after the diagnostic");
        return why;
    }
    const char *shown = nl + 1, *shown_end = strchr(shown, '\n');
    size_t shown_len = shown_end ? (size_t)(shown_end - shown) : strlen(shown);
    if (shown_len != src_len || memcmp(shown, src, src_len) != 0) {
        snprintf(why, sizeof why, "expected line %d of %s.metal after the diagnostic, found "
                 "\"%.*s\"", e->line, name, (int)shown_len, shown);
        return why;
    }
    if (!shown_end) {
        snprintf(why, sizeof why, "no caret line after the source line");
        return why;
    }
    const char *caret = shown_end + 1;
    int k = 0;
    while (caret[k] == ' ' || caret[k] == '\t')
        k++;
    if (caret[k] != '^' || k != col - 1) {
        snprintf(why, sizeof why, "expected a caret under column %d of the source line", col);
        return why;
    }
    return NULL;
}

static void check_refused(const Refused *r, const char *args)
{
    char path[512];
    snprintf(path, sizeof path, SEED_DIR "/%s.metal", r->name);
    char *source = test_read_file(path, NULL);
    if (!source)
        fail_msg("cannot read %s", path);
    char *out = NULL;
    int rc = test_lockstep(args, &out);
    if (rc != 2) {
        free(source);
        FAIL_FREEING(out, "`lockstep %s` exited %d, expected 2 (bad input):\n%s", args, rc, out);
    }
    for (size_t i = 0; i < 2 && r->diags[i].line; i++) {
        const char *why = check_diagnostic(out, r->name, source, &r->diags[i]);
        if (why) {
            free(source);
            FAIL_FREEING(out, "`lockstep %s`: %s; its output:\n%s", args, why, out);
        }
    }
    free(source);
    free(out);
}

static void test_refused_by_run(void **state)
{
    const Refused *r = *state;
    require_seed_dir();
    char args[512];
    snprintf(args, sizeof args, "run tests/seed/refused/%s.yaml", r->name);
    check_refused(r, args);
}

static void test_refused_by_compile(void **state)
{
    const Refused *r = *state;
    require_seed_dir();
    char args[512];
    snprintf(args, sizeof args, "compile %s/%s.metal", SEED_DIR, r->name);
    check_refused(r, args);
}

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_seed_reference_is_current),
        cmocka_unit_test(test_teach_reference_is_current),
        cmocka_unit_test(test_teaching_kernels_have_manifests),
        cmocka_unit_test(test_every_seed_kernel_has_a_manifest),
    };
    enum { NFIXED = sizeof fixed / sizeof fixed[0], NREFUSED = sizeof refused / sizeof refused[0] };
    PathList manifests = {0};
    list_files("tests/seed", "", false, ".yaml", &manifests);
    qsort(manifests.items, manifests.count, sizeof *manifests.items, compare_names);

    /* One group, so the summary line counts every test: the fixed ones, one per manifest
     * (named by its path), and two per refused kernel. */
    size_t n = NFIXED + manifests.count + 2 * NREFUSED;
    struct CMUnitTest *tests = calloc(n, sizeof *tests);
    char **names = calloc(manifests.count + 2 * NREFUSED, sizeof *names);
    memcpy(tests, fixed, sizeof fixed);
    size_t t = NFIXED, k = 0;
    for (size_t i = 0; i < manifests.count; i++, t++) {
        char path[4096];
        snprintf(path, sizeof path, "tests/seed/%s", manifests.items[i]);
        names[k] = strdup(path);
        tests[t].name = names[k];
        tests[t].test_func = test_seed_manifest_runs;
        tests[t].initial_state = names[k++];
    }
    for (size_t i = 0; i < NREFUSED; i++) {
        char name[256];
        snprintf(name, sizeof name, "refused by run: %s", refused[i].name);
        names[k] = strdup(name);
        tests[t].name = names[k++];
        tests[t].test_func = test_refused_by_run;
        tests[t++].initial_state = (void *)&refused[i];
        snprintf(name, sizeof name, "refused by compile: %s", refused[i].name);
        names[k] = strdup(name);
        tests[t].name = names[k++];
        tests[t].test_func = test_refused_by_compile;
        tests[t++].initial_state = (void *)&refused[i];
    }
    int failed = _cmocka_run_group_tests("seed", tests, n, NULL, NULL);
    for (size_t i = 0; i < k; i++)
        free(names[i]);
    free(names);
    path_list_free(&manifests);
    free(tests);
    return failed;
}
