/*
 * test_check_cli.c — `lockstep check` as a user runs it: every teaching kernel in
 * kernels/bugs/ reports exactly the diagnostics its NAME.expect lists (the stable subset of
 * lines docs/checks.md defines) with exit status 1 for a bug and 0 for a correct twin; the
 * --json output is valid JSON, one object per line, with the documented fields; the flags
 * change what is checked; bad usage exits 2. Also `lockstep run --check / --divergence`.
 * The tests run from the repository root (as `make test` does) and use $LOCKSTEP.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>

#include "test_json.h"
#include "test_util.h"

/* fail_msg jumps out of the test: copy what it shows, free the rest, then fail. */
static char failure[32768];
#define FAIL_FREEING(a, b, ...)                                                                  \
    do {                                                                                         \
        snprintf(failure, sizeof failure, __VA_ARGS__);                                          \
        free(a);                                                                                 \
        free(b);                                                                                 \
        fail_msg("%s", failure);                                                                 \
    } while (0)

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A diagnostic's first line: "FILE:LINE:COL: error: ..." (or "FILE: pc 0x..: error: ..."),
 * at the start of the line, with the severity after a colon. */
static bool is_primary(const char *line)
{
    if (!*line || isspace((unsigned char)*line))
        return false;
    return strstr(line, ": error: ") || strstr(line, ": warning: ") || strstr(line, ": note: ");
}

/* The lines docs/checks.md calls the stable subset of a report. */
static bool is_stable(const char *line)
{
    return is_primary(line) || starts_with(line, "  first: ") || starts_with(line, "  second: ") ||
           starts_with(line, "  access: ") || starts_with(line, "  at: ") ||
           starts_with(line, "  note: ");
}

/* Appends to out the lines of text that keep() accepts, each ending in '\n'. */
static char *filter_lines(const char *text, bool (*keep)(const char *line))
{
    size_t cap = strlen(text) + 2, len = 0;
    char *out = malloc(cap);
    out[0] = '\0';
    char *line = malloc(cap);
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        memcpy(line, p, n);
        line[n] = '\0';
        if (keep(line)) {
            memcpy(out + len, line, n);
            len += n;
            out[len++] = '\n';
            out[len] = '\0';
        }
        p += n + (nl ? 1 : 0);
    }
    free(line);
    return out;
}

static bool not_comment(const char *line)
{
    return line[0] != '#' && line[0] != '\0';
}

/* ---- (a) the teaching set ---------------------------------------------------------------- */

static void test_teaching_kernel(void **state)
{
    const char *manifest = *state;
    char expect_path[1024];
    snprintf(expect_path, sizeof expect_path, "%.*s.expect", (int)(strlen(manifest) - 5), manifest);
    char *expect_text = test_read_file(expect_path, NULL);
    if (!expect_text)
        fail_msg("%s has no %s next to it", manifest, expect_path);
    char *want = filter_lines(expect_text, not_comment);
    free(expect_text);
    bool bug = false;
    for (const char *p = want; *p; p = strchr(p, '\n') + 1)
        if (is_primary(p) && strstr(p, ": error: ") < strchr(p, '\n'))
            bug = true;

    char args[1200], *out = NULL;
    snprintf(args, sizeof args, "check %s", manifest);
    int rc = test_lockstep(args, &out);
    char *got = filter_lines(out, is_stable);
    if (strcmp(got, want) != 0) {
        /* Name the first differing line. */
        const char *g = got, *w = want;
        int line = 1;
        while (*g && *w) {
            const char *gn = strchr(g, '\n'), *wn = strchr(w, '\n');
            if (gn - g != wn - w || memcmp(g, w, (size_t)(gn - g)) != 0)
                break;
            g = gn + 1;
            w = wn + 1;
            line++;
        }
        snprintf(failure, sizeof failure,
                 "%s: report line %d differs\n  expected: %.*s\n  got:      %.*s\n"
                 "--- full output of `lockstep %s` ---\n%s",
                 manifest, line, (int)strcspn(w, "\n"), *w ? w : "(nothing)",
                 (int)strcspn(g, "\n"), *g ? g : "(nothing)", args, out);
        free(got);
        free(want);
        free(out);
        fail_msg("%s", failure);
    }
    free(got);
    free(want);
    if (rc != (bug ? 1 : 0))
        FAIL_FREEING(out, NULL, "`lockstep %s` exited %d; expected %d\n%s", args, rc, bug ? 1 : 0,
                     out);
    /* Every report ends with the policies in force and a verdict. */
    if (!strstr(out, "\npolicies    same-value writes benign") || !strstr(out, "\nchecks      "))
        FAIL_FREEING(out, NULL, "`lockstep %s`: no policies or verdict line\n%s", args, out);
    free(out);
}

/* ---- (b) JSON Lines ------------------------------------------------------------------------ */

static void test_json_self_check(void **state)
{
    (void)state;
    assert_true(test_json_valid("{\"a\":[1,-2.5e3,true,null,\"x\\n\\u00e9\"],\"b\":{}}"));
    assert_false(test_json_valid("{\"a\":1,}"));
    assert_false(test_json_valid("{\"a\" 1}"));
    assert_false(test_json_valid("[1,2"));
    assert_false(test_json_valid("\"tab\there\""));
    assert_false(test_json_valid("{} {}"));
    assert_false(test_json_valid("01"));
}

/* Runs `lockstep check MANIFEST --json`; checks every line is a JSON object and returns the
 * number of findings; *summary receives a copy of the last (summary) line. */
static int json_lines(const char *manifest, int want_rc, char **summary, char **all)
{
    char args[1200], *out = NULL;
    snprintf(args, sizeof args, "check %s --json", manifest);
    int rc = test_lockstep(args, &out);
    if (rc != want_rc)
        FAIL_FREEING(out, NULL, "`lockstep %s` exited %d, expected %d:\n%s", args, rc, want_rc, out);
    int findings = 0, lines = 0;
    *summary = NULL;
    char *line = malloc(strlen(out) + 1);
    for (const char *p = out; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        memcpy(line, p, n);
        line[n] = '\0';
        lines++;
        if (!test_json_valid(line) || line[0] != '{')
            FAIL_FREEING(out, line, "`lockstep %s`: line %d is not a JSON object:\n%s", args,
                         lines, out);
        if (starts_with(line, "{\"type\":\"finding\",")) {
            if (*summary)
                FAIL_FREEING(out, line, "`lockstep %s`: a finding after the summary:\n%s", args, out);
            findings++;
            static const char *const keys[] = {
                "\"kind\":", "\"severity\":", "\"message\":", "\"file\":", "\"line\":",
                "\"col\":", "\"source\":", "\"fix\":", "\"count\":", "\"first\":", "\"second\":",
                "\"thread\":{\"grid\":", "\"simdgroup\":", "\"lane\":", "\"access\":",
                "\"symbol\":", "\"index\":"};
            for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
                if (!strstr(line, keys[k]))
                    FAIL_FREEING(out, line, "`lockstep %s`: finding without %s:\n%s", args,
                                 keys[k], line);
        } else if (starts_with(line, "{\"type\":\"summary\",")) {
            if (*summary)
                FAIL_FREEING(out, line, "`lockstep %s`: two summaries:\n%s", args, out);
            *summary = strdup(line);
        } else {
            FAIL_FREEING(out, line, "`lockstep %s`: line %d has no known type:\n%s", args, lines,
                         line);
        }
        p += n + (nl ? 1 : 0);
    }
    free(line);
    if (!*summary)
        FAIL_FREEING(out, NULL, "`lockstep %s`: no summary object:\n%s", args, out);
    *all = out;
    return findings;
}

static void test_json_race(void **state)
{
    (void)state;
    char *summary, *out;
    int n = json_lines("kernels/bugs/missing_barrier.yaml", 1, &summary, &out);
    assert_int_equal(n, 1);
    const char *want[] = {
        "\"kind\":\"race\"", "\"severity\":\"error\"",
        "\"message\":\"threadgroup memory race (write after read) on scratch[32]\"",
        "\"file\":\"kernels/bugs/missing_barrier.metal\",\"line\":33,\"col\":26",
        "\"first\":{\"pc\":", "\"access\":\"read\"", "\"access\":\"write\"",
        "\"symbol\":\"scratch\",\"index\":32", "\"space\":\"threadgroup\"",
        "\"fix\":\"no threadgroup_barrier(mem_threadgroup) between the two accesses at line 33\"",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(out, want[i]))
            FAIL_FREEING(out, summary, "no %s in:\n%s", want[i], out);
    const char *want_summary[] = {"\"errors\":1", "\"findings\":1", "\"exit\":1",
                                  "\"policies\":{\"strict_simd\":false,\"same_value_races\":false}",
                                  "\"kernel\":\"missing_barrier\"", "\"divergence\":{"};
    for (size_t i = 0; i < sizeof want_summary / sizeof want_summary[0]; i++)
        if (!strstr(summary, want_summary[i]))
            FAIL_FREEING(out, summary, "no %s in the summary:\n%s", want_summary[i], summary);
    free(summary);
    free(out);
}

/* Writes DIR/k.metal and DIR/k.yaml (dir: a mkdtemp template) for a test of its own;
 * path receives the manifest's path. Remove them with remove_case. */
static void temp_case(char *dir, char *path, size_t size, const char *metal, const char *yaml)
{
    assert_non_null(mkdtemp(dir));
    snprintf(path, size, "%s/k.metal", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(metal, f);
    fclose(f);
    snprintf(path, size, "%s/k.yaml", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(yaml, f);
    fclose(f);
}

static void remove_case(const char *dir)
{
    char args[256];
    snprintf(args, sizeof args, "rm -r %s", dir);
    assert_int_equal(test_run(args, NULL), 0);
}

/* A finding inside a helper function: the text report shows each call the code was inlined
 * through under the site's source line, and the JSON sites list them ("calls"). */
static void test_helper_call_sites(void **state)
{
    (void)state;
    char dir[] = "/tmp/lockstep-calls-XXXXXX", path[128], args[256];
    temp_case(dir, path, sizeof path,
          "static void stage(threadgroup float *t, uint i, float v)\n"  /* 1 */
          "{\n"                                                         /* 2 */
          "    t[i] = v;\n"                                             /* 3 */
          "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"      /* 4 */
          "}\n"                                                         /* 5 */
          "kernel void k(device float *out [[buffer(0)]],\n"            /* 6 */
          "              uint lid [[thread_position_in_threadgroup]])\n" /* 7 */
          "{\n"                                                         /* 8 */
          "    threadgroup float t[64];\n"                              /* 9 */
          "    if (lid < 32)\n"                                         /* 10 */
          "        stage(t, lid, 1.0f);\n"                              /* 11 */
          "    else\n"                                                  /* 12 */
          "        stage(t, lid, 2.0f);\n"                              /* 13 */
          "    out[lid] = t[63 - lid];\n"                               /* 14 */
          "}\n",
          "kernel: k.metal\ngrid: [64]\nthreadgroup: [64]\nargs:\n  out: {count: 64}\n");
    char *out = NULL;
    snprintf(args, sizeof args, "check %s", path);
    int rc = test_lockstep(args, &out);
    const char *want[] = {
        ("SIMD-group 0 at line 4 (in stage, called at line 11), SIMD-group 1 at line 4 (in "
         "stage, called at line 13)"), /* one string: parentheses tell clang so */
        "  first:  barrier at ", "k.metal:4:5 (in stage, called at line 11)\n",
        "      11 |         stage(t, lid, 1.0f);\n         |         ^ stage called here\n",
        "      13 |         stage(t, lid, 2.0f);\n         |         ^ stage called here\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (rc != 1 || !strstr(out, want[i]))
            FAIL_FREEING(out, NULL, "exit %d, no \"%s\" in:\n%s", rc, want[i], out);
    free(out);
    char *summary;
    int n = json_lines(path, 1, &summary, &out);
    assert_int_equal(n, 1);
    if (!strstr(out, "\"calls\":[{\"function\":\"stage\",\"file\":") ||
        !strstr(out, "k.metal\",\"line\":11,\"col\":9}]") ||
        !strstr(out, "k.metal\",\"line\":13,\"col\":9}]"))
        FAIL_FREEING(out, summary, "no calls in the JSON sites:\n%s", out);
    free(out);
    free(summary);
    n = json_lines("kernels/bugs/missing_barrier.yaml", 1, &summary, &out);
    if (!strstr(out, "\"calls\":[]"))
        FAIL_FREEING(out, summary, "the kernel's own code lists no calls:\n%s", out);
    free(out);
    free(summary);
    remove_case(dir);
}

/* A site in a 2-D array is named as the message names it (t[0][0], not t[0] and t[64]),
 * in the text report and in JSON. */
static void test_site_names_match_the_message(void **state)
{
    (void)state;
    char dir[] = "/tmp/lockstep-names-XXXXXX", path[128], args[256];
    temp_case(dir, path, sizeof path,
              "kernel void k(device float *out [[buffer(0)]],\n"
              "              uint lid [[thread_index_in_threadgroup]]) {\n"
              "    threadgroup float t[2][64];\n"
              "    t[lid / 64][lid % 64] = 1.0f;\n"
              "    out[lid] = t[1 - lid / 64][lid % 64];\n"
              "}\n",
              "kernel: k.metal\ngrid: [128]\nthreadgroup: [128]\nargs:\n  out: {count: 128}\n");
    char *out = NULL, *summary;
    snprintf(args, sizeof args, "check %s", path);
    int rc = test_lockstep(args, &out);
    if (rc != 1 || !strstr(out, "race (read after write) on t[0][0]\n") ||
        !strstr(out, "  first:  write of t[0][0] at ") || !strstr(out, "  second: read of t[0][0] at "))
        FAIL_FREEING(out, NULL, "exit %d, sites not named t[0][0]:\n%s", rc, out);
    free(out);
    json_lines(path, 1, &summary, &out);
    if (!strstr(out, "\"name\":\"t[0][0]\"") || strstr(out, "\"name\":\"t[0]\""))
        FAIL_FREEING(out, summary, "JSON sites not named t[0][0]:\n%s", out);
    free(out);
    free(summary);
    remove_case(dir);
}

static void test_json_single_site_and_clean(void **state)
{
    (void)state;
    char *summary, *out;
    int n = json_lines("kernels/bugs/grid_edge_oob.yaml", 1, &summary, &out);
    assert_int_equal(n, 3);
    if (!strstr(out, "\"kind\":\"out-of-bounds\"") || !strstr(out, "\"second\":null") ||
        !strstr(out, "\"grid\":[1000,0,0],\"threadgroup\":[3,0,0]") ||
        !strstr(summary, "\"errors\":3"))
        FAIL_FREEING(out, summary, "unexpected JSON for grid_edge_oob:\n%s", out);
    free(summary);
    free(out);
    /* the kinds added later: a SIMD operand, and a private array read before its write */
    n = json_lines("kernels/bugs/shuffle_past_last_lane.yaml", 1, &summary, &out);
    assert_int_equal(n, 1);
    if (!strstr(out, "\"kind\":\"simd-operand\"") || !strstr(out, "\"second\":null"))
        FAIL_FREEING(out, summary, "unexpected JSON for shuffle_past_last_lane:\n%s", out);
    free(summary);
    free(out);
    n = json_lines("kernels/bugs/uninit_private.yaml", 1, &summary, &out);
    assert_int_equal(n, 1);
    if (!strstr(out, "\"kind\":\"uninitialized\"") || !strstr(out, "\"space\":\"thread\"") ||
        !strstr(out, "\"symbol\":\"window\",\"index\":1"))
        FAIL_FREEING(out, summary, "unexpected JSON for uninit_private:\n%s", out);
    free(summary);
    free(out);
    n = json_lines("kernels/bugs/uninit_branch.yaml", 1, &summary, &out);
    assert_int_equal(n, 1);
    if (!strstr(out, "\"kind\":\"uninitialized-value\"") || !strstr(out, "\"second\":null") ||
        !strstr(out, "\"symbol\":\"scale\""))
        FAIL_FREEING(out, summary, "unexpected JSON for uninit_branch:\n%s", out);
    free(summary);
    free(out);
    n = json_lines("kernels/bugs/ok_atomics.yaml", 0, &summary, &out);
    assert_int_equal(n, 0);
    if (!strstr(summary, "\"errors\":0") || !strstr(summary, "\"exit\":0") ||
        !strstr(summary, "\"expectations\":[{\"arg\":\"count\",\"ok\":true"))
        FAIL_FREEING(out, summary, "unexpected JSON summary for ok_atomics:\n%s", summary);
    free(summary);
    free(out);
}

/* ---- (c) flags ------------------------------------------------------------------------------ */

/* Runs lockstep; fails unless it exits rc and the output holds (or, with '!' first, lacks)
 * each of the strings. */
static void expect_run(const char *args, int rc, const char *const *has, size_t n)
{
    char *out = NULL;
    int got = test_lockstep(args, &out);
    if (got != rc)
        FAIL_FREEING(out, NULL, "`lockstep %s` exited %d, expected %d:\n%s", args, got, rc, out);
    for (size_t i = 0; i < n; i++) {
        bool negate = has[i][0] == '!';
        bool found = strstr(out, has[i] + negate) != NULL;
        if (found == negate)
            FAIL_FREEING(out, NULL, "`lockstep %s`: %s \"%s\" in:\n%s", args,
                         negate ? "unexpected" : "no", has[i] + negate, out);
    }
    free(out);
}

#define EXPECT_RUN(args, rc, ...)                                                                \
    do {                                                                                         \
        const char *const has_[] = {__VA_ARGS__};                                                \
        expect_run(args, rc, has_, sizeof has_ / sizeof has_[0]);                                \
    } while (0)

static void test_flags_turn_checks_off(void **state)
{
    (void)state;
    EXPECT_RUN("check kernels/bugs/missing_barrier.yaml --no-races", 0, "!: error: ",
               "checks off  races", "checks      no problems found");
    EXPECT_RUN("check kernels/bugs/barrier_in_if.yaml --no-barriers", 0, "!: error: ",
               "checks off  barriers");
    EXPECT_RUN("check kernels/bugs/shuffle_after_exit.yaml --no-simd", 0, "!: error: ");
    EXPECT_RUN("check kernels/bugs/shuffle_past_last_lane.yaml --no-simd", 0, "!: error: ");
    EXPECT_RUN("check kernels/bugs/uninit_halo.yaml --no-uninit", 0, "!: error: ");
    EXPECT_RUN("check kernels/bugs/uninit_private.yaml --no-uninit", 0, "!: error: ");
    EXPECT_RUN("check kernels/bugs/uninit_branch.yaml --no-uninit", 0, "!: error: ");
    EXPECT_RUN("check kernels/bugs/missing_barrier.yaml --no-divergence", 1,
               "!\ndivergence  ", "checks off  divergence");
    EXPECT_RUN("check kernels/bugs/missing_barrier.yaml --quiet", 1, "!ran         ",
               ": error: threadgroup memory race");
}

static void test_policy_flags(void **state)
{
    (void)state;
    /* Same-value writes: benign by default; a warning (not an error) when asked. */
    EXPECT_RUN("check kernels/bugs/ok_same_value.yaml --same-value-races", 0,
               "ok_same_value.metal:28:17: warning: threadgroup memory race (write after write, "
               "same value) on flag[0]",
               "policies    same-value writes reported as races (--same-value-races)");
    /* Lockstep lanes: ordered by default; a race under --strict-simd. */
    EXPECT_RUN("check kernels/bugs/ok_simd_lockstep.yaml --strict-simd", 1,
               "ok_simd_lockstep.metal:25:20: error: threadgroup memory race (read after write) "
               "on tile[1]",
               "add simdgroup_barrier(mem_threadgroup) between line 24 and line 25",
               "SIMD-group lanes not ordered by lockstep (--strict-simd)");
    EXPECT_RUN("check kernels/bugs/ok_simd_lockstep.yaml --json --strict-simd", 1,
               "\"policies\":{\"strict_simd\":true,\"same_value_races\":false}");
}

static void test_bad_usage(void **state)
{
    (void)state;
    EXPECT_RUN("check", 2, "expected a launch manifest", "usage: lockstep check");
    EXPECT_RUN("check --no-such-flag kernels/bugs/ok_atomics.yaml", 2,
               "unknown option '--no-such-flag'");
    EXPECT_RUN("check kernels/bugs/ok_atomics.yaml kernels/bugs/ok_atomics.yaml", 2,
               "unexpected argument");
    EXPECT_RUN("check kernels/bugs/no_such_kernel.yaml", 2, "no_such_kernel.yaml");
    EXPECT_RUN("check kernels/bugs/ok_atomics.yaml --budget", 2, "--budget needs a value");
    EXPECT_RUN("check kernels/bugs/ok_atomics.yaml --budget 0", 2, "positive integer");
    EXPECT_RUN("check kernels/bugs/ok_atomics.yaml --mode slow", 2, "unknown mode 'slow'");
    EXPECT_RUN("check kernels/bugs/ok_atomics.metal", 2, "error");
    EXPECT_RUN("check kernels/bugs/ok_atomics.yaml --json --bogus", 2, "unknown option");
}

static void test_help(void **state)
{
    (void)state;
    EXPECT_RUN("check --help", 0, "usage: lockstep check LAUNCH.yaml", "values used before anything",
               "--json", "--strict-simd",
               "--same-value-races", "--no-races", "--no-barriers", "--no-simd", "--no-memory",
               "--no-uninit", "--no-divergence");
    EXPECT_RUN("help check", 0, "usage: lockstep check");
    EXPECT_RUN("--help", 0, "check LAUNCH.yaml");
    EXPECT_RUN("run --help", 0, "--check", "--divergence");
}

static void test_budget_is_an_error(void **state)
{
    (void)state;
    EXPECT_RUN("check kernels/bugs/missing_barrier.yaml --budget 10 --no-races", 1,
               "error: the instruction budget ran out");
}

/* ---- (d) lockstep run --------------------------------------------------------------------- */

/* `lockstep run` words a fault as a compiler does: the source place first, the lanes of one
 * access folded into one error, a program-scope constant array named as an array, and code
 * inlined from a helper followed by the call it came through. */
static void test_run_faults_name_the_line(void **state)
{
    (void)state;
    /* Threads 1000..1023 are lanes 8..31 of SIMD-group 7 in threadgroup 3 (the manifest
     * dispatches 4 x 256 threads for 1000 elements): each access faults once, for 24 lanes. */
    EXPECT_RUN("run kernels/bugs/grid_edge_oob.yaml", 1,
               "kernels/bugs/grid_edge_oob.metal:21:", ": error: out-of-bounds read of device "
               "buffer 'a' at byte offset 4000", "by thread (1000,0,0) threadgroup (3,0,0) "
               "SIMD-group 7 lane 8", "  (and 23 more lanes of the same access, up to lane 31)\n",
               "error: out-of-bounds write of device buffer 'c'", "!lane 9,");
    char dir[] = "/tmp/lockstep-faults-XXXXXX", path[128], args[256];
    temp_case(dir, path, sizeof path,
              "constant float tab[4] = {1, 2, 3, 4};\n"                      /* 1 */
              "static float get(uint i)\n"                                  /* 2 */
              "{\n"                                                         /* 3 */
              "    return tab[i];\n"                                        /* 4 */
              "}\n"                                                         /* 5 */
              "kernel void k(device float *out [[buffer(0)]],\n"            /* 6 */
              "              uint i [[thread_position_in_grid]])\n"         /* 7 */
              "{\n"                                                         /* 8 */
              "    out[i] = get(i + 2);\n"                                  /* 9 */
              "}\n",
              "kernel: k.metal\ngrid: [4]\nthreadgroup: [4]\nargs:\n  out: {count: 4}\n");
    char *out = NULL;
    snprintf(args, sizeof args, "run %s", path);
    int rc = test_lockstep(args, &out);
    const char *want[] = {
        "k.metal:4:15: error: out-of-bounds read of constant array 'tab' at byte offset 16 "
        "(4 bytes; valid 0..15) by thread (2,0,0)",
        "  (and 1 more lane of the same access, up to lane 3)\n  note: in get, called at line 9\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (rc != 1 || !strstr(out, want[i]))
            FAIL_FREEING(out, NULL, "exit %d, no \"%s\" in:\n%s", rc, want[i], out);
    free(out);
    remove_case(dir);
}

static void test_run_check_and_divergence(void **state)
{
    (void)state;
    /* run alone reports faults only: the race goes unnoticed. */
    EXPECT_RUN("run kernels/bugs/missing_barrier.yaml", 0, "!race");
    EXPECT_RUN("run kernels/bugs/missing_barrier.yaml --check", 1,
               "kernels/bugs/missing_barrier.metal:33:26: error: threadgroup memory race (write "
               "after read) on scratch[32]", "policies    ");
    /* Faults come once, as findings, under --check. */
    EXPECT_RUN("run kernels/bugs/grid_edge_oob.yaml", 1, "error: out-of-bounds read");
    EXPECT_RUN("run kernels/bugs/grid_edge_oob.yaml --check", 1,
               "grid_edge_oob.metal:21:24: error: out-of-bounds read of b[1000]",
               "!by thread (1000,0,0) threadgroup (3,0,0) SIMD-group 7 lane 8, pc");
    /* divergent_if.s has two branches, each splitting every SIMD-group it runs in. */
    EXPECT_RUN("run kernels/asm/divergent_if.yaml --divergence", 0, "divergence  SIMD efficiency",
               "branch site", "executions", "diverged", "efficiency lost",
               "kernels/asm/divergent_if.s:", "!policies");
    EXPECT_RUN("run kernels/bugs/ok_atomics.yaml --check --divergence", 0, "checks      no problems",
               "branch site");
}

/* Timed mode under --check: the checkers watch a functional pass of their own, so the cycles
 * are the ones of the run without checks (7775 against 1388 for missing_barrier when checks
 * serialized the schedule), and the findings are the ones functional mode gives. */
static uint64_t cycles_of(const char *args, int status)
{
    char *out = NULL;
    int rc = test_lockstep(args, &out);
    const char *c = out ? strstr(out, "\"cycles\":") : NULL;
    if (!c || rc != status)
        FAIL_FREEING(out, NULL, "`lockstep %s` (exit %d, expected %d) printed:\n%s", args, rc,
                     status, out);
    uint64_t n = strtoull(c + strlen("\"cycles\":"), NULL, 10);
    free(out);
    return n;
}

static void test_timed_check_keeps_cycles(void **state)
{
    (void)state;
    /* With their exit statuses without and with checks. softmax has FMAs: the two passes
     * once chose the FMA lane loop at the same time, unsynchronized (`make tsan` reports
     * such races, and a report changes the status to 66). */
    const char *manifests[] = {"kernels/bugs/missing_barrier.yaml", "kernels/reduce/reduce_threadgroup.yaml",
                               "kernels/bugs/grid_edge_oob.yaml", "kernels/ml/softmax.yaml"};
    const int status[][2] = {{0, 1}, {0, 0}, {1, 1}, {0, 0}};
    for (size_t i = 0; i < sizeof manifests / sizeof *manifests; i++) {
        char plain[256], checked[256];
        snprintf(plain, sizeof plain, "run %s --mode timed --stats=json --quiet", manifests[i]);
        snprintf(checked, sizeof checked, "run %s --mode timed --check --stats=json --quiet", manifests[i]);
        uint64_t a = cycles_of(plain, status[i][0]), b = cycles_of(checked, status[i][1]);
        if (a == 0 || a != b)
            fail_msg("%s: %llu cycles without checks, %llu with", manifests[i],
                     (unsigned long long)a, (unsigned long long)b);
        char *timed = NULL, *functional = NULL;
        snprintf(plain, sizeof plain, "check %s --mode timed", manifests[i]);
        snprintf(checked, sizeof checked, "check %s --mode functional", manifests[i]);
        int rc_t = test_lockstep(plain, &timed), rc_f = test_lockstep(checked, &functional);
        char *ft = filter_lines(timed, is_primary), *ff = filter_lines(functional, is_primary);
        bool same = rc_t == rc_f && strcmp(ft, ff) == 0;
        free(timed);
        free(functional);
        if (!same)
            FAIL_FREEING(ft, ff, "%s: findings differ between timed and functional mode", manifests[i]);
        free(ft);
        free(ff);
    }
    /* The two runs share only the buffers the kernel cannot write (here its input): the
     * atomic counter is each run's own, so the timed run's count is not doubled. */
    EXPECT_RUN("run kernels/bugs/ok_atomics.yaml --mode timed --check", 0, "expect count ok",
               "checks      no problems");
}

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_json_self_check),
        cmocka_unit_test(test_json_race),
        cmocka_unit_test(test_helper_call_sites),
        cmocka_unit_test(test_site_names_match_the_message),
        cmocka_unit_test(test_json_single_site_and_clean),
        cmocka_unit_test(test_flags_turn_checks_off),
        cmocka_unit_test(test_policy_flags),
        cmocka_unit_test(test_bad_usage),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_budget_is_an_error),
        cmocka_unit_test(test_run_check_and_divergence),
        cmocka_unit_test(test_run_faults_name_the_line),
        cmocka_unit_test(test_timed_check_keeps_cycles),
    };
    size_t nfixed = sizeof fixed / sizeof fixed[0];
    char *names[256];
    size_t count = 0;
    DIR *d = opendir("kernels/bugs");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL && count < 256) {
        size_t n = strlen(e->d_name);
        if (n > 5 && strcmp(e->d_name + n - 5, ".yaml") == 0) {
            names[count] = malloc(n + 16);
            snprintf(names[count], n + 16, "kernels/bugs/%s", e->d_name);
            count++;
        }
    }
    if (d)
        closedir(d);
    for (size_t i = 1; i < count; i++) /* sorted, so the run reads the same every time */
        for (size_t k = i; k > 0 && strcmp(names[k - 1], names[k]) > 0; k--) {
            char *t = names[k];
            names[k] = names[k - 1];
            names[k - 1] = t;
        }
    struct CMUnitTest *tests = calloc(nfixed + count + 1, sizeof *tests);
    memcpy(tests, fixed, sizeof fixed);
    for (size_t i = 0; i < count; i++) {
        tests[nfixed + i].name = names[i];
        tests[nfixed + i].test_func = test_teaching_kernel;
        tests[nfixed + i].initial_state = names[i];
    }
    int failed = _cmocka_run_group_tests("check_cli", tests, nfixed + count, NULL, NULL);
    if (count < 12) {
        fprintf(stderr, "kernels/bugs/ holds %zu manifests; expected the teaching set (12+)\n", count);
        failed++;
    }
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(tests);
    return failed;
}
