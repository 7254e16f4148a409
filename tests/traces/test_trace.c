/*
 * test_trace.c — `lockstep trace`: recording, show, export, and traces that are wrong.
 *
 * The kernel is kernels/asm/divergent_if.s, whose 11 instructions every SIMD-group issues
 * once (no loop), over x = 3 * i + 1, so the lanes on each side of its if/else are known
 * here: even x (odd i) run the then-side, odd x the else-side. Expected records come from
 * that, not from lockstep: 11 per SIMD-group, each SIMD-group's pcs in program order, the
 * masks at the two sides, cycles that never go back on a scheduler and stay below the
 * run's total. The tests run from the repository root and use $LOCKSTEP.
 */
#include <stdbool.h>
#include <unistd.h>

#include "test_json.h"
#include "test_util.h"

#include "../../util/util.h"

static char dir[] = "/tmp/lockstep-trace-XXXXXX";
static char manifest[256], trace_path[256];

/* instructions 4..10: if_icmp, lsr, else_icmp, imad, pop_exec, st, stop. An instruction
 * runs with the mask the one before left: lsr and else_icmp with the then-side's lanes,
 * imad and pop_exec with the else-side's. */
enum { THREADS = 256, GROUPS = THREADS / 32, INSTS = 11, LSR_INDEX = 5, IMAD_INDEX = 7 };

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    char cwd[1024];
    if (!getcwd(cwd, sizeof cwd))
        return -1;
    snprintf(manifest, sizeof manifest, "%s/div.yaml", dir);
    snprintf(trace_path, sizeof trace_path, "%s/div.trace", dir);
    FILE *f = fopen(manifest, "w");
    fprintf(f, "kernel: %s/kernels/asm/divergent_if.s\ngrid: [%d]\nthreadgroup: [64]\nargs:\n"
               "  x: {type: uint, count: %d, init: {range: [1, 3]}}\n"
               "  out: {type: uint, count: %d}\n", cwd, THREADS, THREADS, THREADS);
    fclose(f);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(manifest);
    unlink(trace_path);
    rmdir(dir);
    return 0;
}

/* `lockstep trace MANIFEST -o TRACE EXTRA` */
static int record(const char *extra, char **out)
{
    char args[2048];
    snprintf(args, sizeof args, "trace %s -o %s %s", manifest, trace_path, extra);
    return test_lockstep(args, out);
}

/* The JSON Lines export of the trace, parsed into records. */
typedef struct Rec {
    unsigned long long cycle, tg, ready;
    unsigned core, sched, sg, pc, mask, active, lanes, line;
    char waited[16];
} Rec;

static uint32_t read_jsonl(const char *text, Rec *recs, uint32_t max)
{
    uint32_t n = 0;
    for (const char *p = text; *p && n < max;) {
        const char *nl = strchr(p, '\n');
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)(nl ? nl - p : (long)strlen(p)), p);
        if (!test_json_valid(line))
            fail_msg("not JSON: %s", line);
        Rec *r = &recs[n++];
        if (sscanf(line, "{\"cycle\":%llu,\"core\":%u,\"scheduler\":%u,\"threadgroup\":%llu,"
                         "\"simdgroup\":%u,\"pc\":%u,\"exec_mask\":%u,\"active\":%u,\"lanes\":%u,"
                         "\"line\":%u,\"ready\":%llu,\"waited_on\":\"%15[^\"]\",",
                   &r->cycle, &r->core, &r->sched, &r->tg, &r->sg, &r->pc, &r->mask, &r->active,
                   &r->lanes, &r->line, &r->ready, r->waited) != 12)
            fail_msg("unexpected fields: %s", line);
        p = nl ? nl + 1 : p + strlen(p);
    }
    return n;
}

/* The lanes of SIMD-group (tg, sg) whose x = 3 i + 1 is even. */
static uint32_t even_mask(unsigned long long tg, unsigned sg)
{
    uint32_t m = 0;
    for (uint32_t l = 0; l < 32; l++) {
        uint64_t i = tg * 64 + sg * 32 + l;
        m |= (uint32_t)((3 * i + 1) % 2 == 0) << l;
    }
    return m;
}

static void check_records(const Rec *recs, uint32_t n, bool timed, unsigned long long cycles)
{
    assert_int_equal(n, GROUPS * INSTS);
    uint32_t count[GROUPS] = {0}, last_pc[GROUPS] = {0};
    unsigned long long prev[GROUPS] = {0};
    unsigned long long last_cycle[64][4] = {{0}};
    for (uint32_t k = 0; k < n; k++) {
        const Rec *r = &recs[k];
        uint32_t g = (uint32_t)r->tg * 2 + r->sg;
        assert_true(g < GROUPS);
        assert_true(count[g] == 0 || r->pc > last_pc[g]);
        if (count[g] == LSR_INDEX || count[g] == LSR_INDEX + 1)
            assert_int_equal(r->mask, even_mask(r->tg, r->sg));
        else if (count[g] == IMAD_INDEX || count[g] == IMAD_INDEX + 1)
            assert_int_equal(r->mask, ~even_mask(r->tg, r->sg));
        else
            assert_int_equal(r->mask, 0xffffffffu);
        assert_int_equal(r->active, (unsigned)__builtin_popcount(r->mask));
        assert_int_equal(r->lanes, 32);
        last_pc[g] = r->pc;
        count[g]++;
        if (timed) {
            assert_true(r->ready <= r->cycle);
            /* instruction 2 is `wait 0`, for the load just before it: it waits on memory */
            if (count[g] == 3) {
                assert_string_equal(r->waited, "memory");
                assert_true(r->ready > prev[g] + 1);
            }
            prev[g] = r->cycle;
            assert_true(r->core < 64 && r->sched < 4);
            assert_true(r->cycle >= last_cycle[r->core][r->sched]);
            assert_true(r->cycle < cycles);
            last_cycle[r->core][r->sched] = r->cycle;
        } else {
            assert_int_equal(r->cycle, k); /* functional: issues numbered in order */
            assert_int_equal(r->ready, r->cycle);
        }
    }
    for (uint32_t g = 0; g < GROUPS; g++)
        assert_int_equal(count[g], INSTS);
}

static void test_record_and_export(void **state)
{
    (void)state;
    for (int timed = 0; timed < 2; timed++) {
        const char *mode = timed ? "timed" : "functional";
        char *out = NULL, cmd[1024];
        snprintf(cmd, sizeof cmd, "--mode %s", mode);
        assert_int_equal(record(cmd, &out), 0);
        free(out);
        /* the run's cycles, from a run without a trace */
        unsigned long long cycles = 0;
        if (timed) {
            snprintf(cmd, sizeof cmd, "run %s --stats", manifest);
            assert_int_equal(test_lockstep(cmd, &out), 0);
            const char *c = strstr(out, "\ncycles ");
            assert_non_null(c);
            assert_int_equal(sscanf(c, "\ncycles %llu", &cycles), 1);
            free(out);
        }
        snprintf(cmd, sizeof cmd, "trace export %s --format jsonl", trace_path);
        assert_int_equal(test_lockstep(cmd, &out), 0);
        static Rec recs[GROUPS * INSTS + 8];
        uint32_t n = read_jsonl(out, recs, GROUPS * INSTS + 8);
        free(out);
        check_records(recs, n, timed, cycles);

        /* chrome: one JSON document */
        snprintf(cmd, sizeof cmd, "trace export %s --format chrome", trace_path);
        assert_int_equal(test_lockstep(cmd, &out), 0);
        assert_true(test_json_valid(out));
        assert_non_null(strstr(out, "\"traceEvents\":["));
        assert_non_null(strstr(out, "\"name\":\"lsr\""));
        free(out);

        /* show: a header line, a column line, then one line per record */
        snprintf(cmd, sizeof cmd, "trace show %s --limit 3", trace_path);
        assert_int_equal(test_lockstep(cmd, &out), 0);
        assert_non_null(strstr(out, "trace of divergent_if ("));
        assert_non_null(strstr(out, timed ? ", timed, 88 records" : ", functional, 88 records"));
        assert_non_null(strstr(out, "get_sr r1, thread_position_in_grid.x"));
        int lines = 0;
        for (const char *p = out; (p = strchr(p, '\n')); p++)
            lines++;
        assert_int_equal(lines, 2 + 3);
        free(out);
    }
    /* --limit on recording: only the first N issues */
    char *out = NULL;
    assert_int_equal(record("--limit 5", &out), 0);
    assert_non_null(strstr(out, "5 of 88 instructions"));
    free(out);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "trace export %s --format jsonl", trace_path);
    assert_int_equal(test_lockstep(cmd, &out), 0);
    static Rec recs[8];
    assert_int_equal(read_jsonl(out, recs, 8), 5);
    free(out);
}

/* `text` has `line` as a whole line. */
static void expect_line(const char *text, const char *line)
{
    const char *at = strstr(text, line);
    if (!at || (at != text && at[-1] != '\n') || (at[strlen(line)] != '\n' && at[strlen(line)]))
        fail_msg("no line `%s` in:\n%s", line, text);
}

/* Writes `text` (len bytes) as the trace and expects `message` and exit 2 from show. */
static void expect_bad(const char *text, size_t len, const char *message)
{
    FILE *f = fopen(trace_path, "wb");
    fwrite(text, 1, len, f);
    fclose(f);
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "trace show %s", trace_path);
    int status = test_lockstep(cmd, &out);
    if (status != 2 || !strstr(out, message))
        fail_msg("expected exit 2 and `%s`, got %d:\n%s", message, status, out);
    free(out);
}

static const char HEADER[] =
    "lockstep-trace 1\nkernel k\nsource k.s\nmode functional\ncores 1\ngrid 32 1 1\n"
    "threadgroup 32 1 1\ninstructions 2\ninst 0x0 3 get_sr r1, thread_position_in_grid.x\n"
    "inst 0x4 4 stop\nrecords\n";

/* A record (40 bytes, little-endian): pc, exec mask, lanes, simdgroup, wait reason; cycle
 * 10, ready 9. */
static size_t with_record(char *buf, uint32_t pc, uint32_t mask, uint8_t lanes, uint16_t sg,
                          uint8_t reason)
{
    size_t n = strlen(HEADER);
    memcpy(buf, HEADER, n);
    uint8_t r[40] = {10};
    memcpy(r + 16, &pc, 4);
    memcpy(r + 20, &mask, 4);
    r[27] = lanes;
    memcpy(r + 28, &sg, 2);
    r[30] = reason;
    r[32] = 9;
    memcpy(buf + n, r, 40);
    return n + 40;
}

static void test_malformed_traces(void **state)
{
    (void)state;
    char buf[4096];
    expect_bad("", 0, "not a lockstep trace");
    expect_bad("hello\n", 6, ":1: error: not a lockstep trace");
    expect_bad("lockstep-trace 2\n", 17, ":1: error: trace format version 2; this lockstep reads version 1");
    /* a header cut short, and a wrong value on line 4 */
    expect_bad(HEADER, strstr(HEADER, "mode") - HEADER, "the file ends in its header; expected a `mode` line");
    expect_bad(HEADER, strstr(HEADER, "mode") - HEADER + 3, ":4: error: a header line longer than");
    snprintf(buf, sizeof buf, "%s", HEADER);
    memcpy(strstr(buf, "functional"), "fast\n     ", 10);
    expect_bad(buf, strlen(buf), ":4: error: expected `mode timed` or `mode functional`, not `mode fast`");
    snprintf(buf, sizeof buf, "%s", HEADER);
    memcpy(strstr(buf, "grid 32 1 1"), "grid 32 x 1", 11);
    expect_bad(buf, strlen(buf), ":6: error: expected 3 numbers after `grid`");
    snprintf(buf, sizeof buf, "%s", HEADER);
    memcpy(strstr(buf, "inst 0x4"), "inst 0x0", 8);
    expect_bad(buf, strlen(buf), ":10: error: instruction 1's pc 0x0 is not past the one before");
    /* records: whole ones only, and each field within what the header allows */
    size_t n = with_record(buf, 0, 0xffffffff, 32, 0, 0);
    expect_bad(buf, n - 5, "the trace is cut short: 35 bytes after its last whole record");
    n = with_record(buf, 8, 0xffffffff, 32, 0, 0);
    expect_bad(buf, n, "record 0 (byte 0 of the records) is malformed: pc 0x8 is no instruction");
    n = with_record(buf, 4, 0xff, 4, 0, 0);
    expect_bad(buf, n, "exec mask 0x000000ff has lanes past its 4");
    n = with_record(buf, 4, 1, 33, 0, 0);
    expect_bad(buf, n, "33 lanes; a SIMD-group has 1 to 32");
    n = with_record(buf, 4, 1, 32, 40, 0);
    expect_bad(buf, n, "SIMD-group 40; a threadgroup has 1");
    /* fields past what the header allows were read as they were */
    n = with_record(buf, 4, 1, 32, 1, 0);
    expect_bad(buf, n, "SIMD-group 1; a threadgroup has 1");
    n = with_record(buf, 4, 1, 32, 0, 0);
    buf[n - 40 + 8] = 1;
    expect_bad(buf, n, "threadgroup 1; the grid has 1");
    memset(buf + n - 40 + 8, 0xff, 8);
    expect_bad(buf, n, "threadgroup 18446744073709551615; the grid has 1");
    n = with_record(buf, 4, 1, 32, 0, 0);
    buf[n - 40 + 26] = 1;
    expect_bad(buf, n, "scheduler 1; a functional trace has only scheduler 0");
    /* a record waits on a dependency, memory or a barrier (docs/traces.md); 3 and 4 (pipe,
     * no work) are the scheduler's reasons, never a record's */
    n = with_record(buf, 4, 1, 32, 0, 3);
    expect_bad(buf, n, "wait reason 3; expected 0 (dependency), 1 (memory) or 2 (barrier)");
    n = with_record(buf, 4, 1, 32, 0, 9);
    expect_bad(buf, n, "wait reason 9; expected 0");
    n = with_record(buf, 4, 1, 32, 0, 0);
    buf[n - 8] = 11; /* ready 11, after the issue at 10 */
    expect_bad(buf, n, "ready at cycle 11, after it issued (10)");
    /* and a good one reads */
    n = with_record(buf, 4, 0xffff, 16, 0, 1);
    FILE *f = fopen(trace_path, "wb");
    fwrite(buf, 1, n, f);
    fclose(f);
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "trace show %s", trace_path);
    assert_int_equal(test_lockstep(cmd, &out), 0);
    assert_non_null(strstr(out, "################                  0x0004     4  stop"));
    free(out);
    assert_int_equal(test_lockstep("trace show /no/such.trace", &out), 2);
    assert_non_null(strstr(out, "cannot open trace /no/such.trace"));
    free(out);
}

/* Damaged traces never crash show, export or profile: a recorded trace with random bytes changed,
 * cut or doubled reads with status 0 (damage the checks cannot see, like a cycle) or 2.
 * TRACE_SEED and TRACE_MUTANTS run other and more. */
static void test_damaged_traces(void **state)
{
    (void)state;
    char *out = NULL;
    assert_int_equal(record("--limit 40", &out), 0);
    free(out);
    size_t size;
    UtilError err;
    char *good = util_read_file(trace_path, &size, &err);
    assert_non_null(good);
    const char *env = getenv("TRACE_SEED");
    uint64_t rng = env ? strtoull(env, NULL, 0) : 1127;
    env = getenv("TRACE_MUTANTS");
    int mutants = env ? atoi(env) : 40;
    char *bad = malloc(2 * size + 64);
    for (int m = 0; m < mutants; m++) {
        memcpy(bad, good, size);
        size_t n = size;
        uint64_t r = test_rng_next(&rng);
        switch (r % 4) {
        case 0: /* a few bytes anywhere */
        case 1:
            for (int k = 0; k < 1 + (int)(r >> 8) % 4; k++)
                bad[test_rng_next(&rng) % n] = (char)test_rng_next(&rng);
            break;
        case 2: /* cut */
            n = test_rng_next(&rng) % n;
            break;
        case 3: /* a stretch doubled */
        {
            size_t at = test_rng_next(&rng) % n, len = test_rng_next(&rng) % 64;
            len = at + len > n ? n - at : len;
            memmove(bad + at + len, bad + at, n - at);
            n += len;
            break;
        }
        }
        FILE *f = fopen(trace_path, "wb");
        fwrite(bad, 1, n, f);
        fclose(f);
        static const char *const what[] = {"show", "export", "export", "profile"};
        static const char *const how[] = {"", "--format jsonl", "--format chrome", ""};
        char full[1200];
        snprintf(full, sizeof full, "trace %s %s %s", what[m % 4], trace_path, how[m % 4]);
        int status = test_lockstep(full, &out);
        if (status != 0 && status != 2)
            fail_msg("mutant %d (%s): exit %d\n%s", m, full, status, out);
        free(out);
    }
    free(bad);
    free(good);
}

/* `trace profile`: per source line, issues and the cycles waited before them, checked
 * against a reference computed here from the JSON Lines export of the same trace (each
 * SIMD-group's gap between issues: up to `ready` waited on `waited_on`, the rest for its
 * turn; a SIMD-group's first issue waits for nothing) for reduce_threadgroup, whose 64
 * threadgroups of 8 SIMD-groups keep barriers, memory and results all busy. */
static void test_profile(void **state)
{
    (void)state;
    char path[] = "/tmp/lockstep-profile-XXXXXX"; /* unique: test runs may overlap */
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char cmd[512], *out = NULL, *jsonl = NULL;
    snprintf(cmd, sizeof cmd, "trace kernels/reduce/reduce_threadgroup.yaml -o %s", path);
    assert_int_equal(test_lockstep(cmd, &out), 0);
    free(out);
    snprintf(cmd, sizeof cmd, "trace export %s --format jsonl", path);
    assert_int_equal(test_lockstep(cmd, &jsonl), 0);
    snprintf(cmd, sizeof cmd, "trace profile %s", path);
    assert_int_equal(test_lockstep(cmd, &out), 0);
    unlink(path);
    enum { KEYS = 64 * 8, LINES = 128 };
    static unsigned long long last[KEYS], waited[LINES][3], turn[LINES], issues[LINES];
    static bool seen[KEYS];
    memset(last, 0, sizeof last);
    memset(seen, 0, sizeof seen);
    memset(waited, 0, sizeof waited);
    memset(turn, 0, sizeof turn);
    memset(issues, 0, sizeof issues);
    uint64_t records = 0;
    for (const char *p = jsonl; *p; records++) {
        unsigned long long cycle, tg, ready;
        unsigned sg, line;
        char why[16], inst[8];
        if (sscanf(p, "{\"cycle\":%llu,\"core\":%*u,\"scheduler\":%*u,\"threadgroup\":%llu,"
                      "\"simdgroup\":%u,\"pc\":%*u,\"exec_mask\":%*u,\"active\":%*u,\"lanes\":%*u,"
                      "\"line\":%u,\"ready\":%llu,\"waited_on\":\"%15[^\"]\",\"inst\":\"%7[a-z_]",
                   &cycle, &tg, &sg, &line, &ready, why, inst) != 7)
            fail_msg("record %llu: unexpected %.200s", (unsigned long long)records, p);
        uint32_t key = (uint32_t)tg * 8 + sg;
        assert_true(key < KEYS && line < LINES);
        issues[line]++;
        unsigned long long from = seen[key] ? last[key] + 1 : cycle;
        if (seen[key] && ready > from) {
            int r = strcmp(why, "dependency") == 0 ? 0 : strcmp(why, "memory") == 0 ? 1 : 2;
            waited[line][r] += ready - from;
            from = ready;
        }
        turn[line] += cycle > from ? cycle - from : 0;
        last[key] = cycle;
        seen[key] = strcmp(inst, "stop") != 0;
        p = strchr(p, '\n');
        p = p ? p + 1 : "";
    }
    free(jsonl);
    assert_int_equal(records, 57856); /* 512 SIMD-groups; also in the profile's header */
    expect_line(out, "profile of reduce_threadgroup (kernels/reduce/reduce_threadgroup.metal), timed, 57856 issues");
    int rows = 0;
    for (uint32_t line = 0; line < LINES; line++) {
        if (!issues[line])
            continue;
        char head[64];
        snprintf(head, sizeof head, "\n%6u %8llu ", line, issues[line]);
        const char *row = strstr(out, head);
        if (!row)
            fail_msg("no row for line %u (%llu issues) in:\n%s", line, issues[line], out);
        unsigned long long dep, mem, bar, trn;
        assert_int_equal(sscanf(row + strlen(head), "%*f%% %llu %*f%% %llu %*f%% %llu %*f%% %llu",
                                &dep, &mem, &bar, &trn), 4);
        if (dep != waited[line][0] || mem != waited[line][1] || bar != waited[line][2] ||
            trn != turn[line])
            fail_msg("line %u: profile %llu %llu %llu %llu, reference %llu %llu %llu %llu", line,
                     dep, mem, bar, trn, waited[line][0], waited[line][1], waited[line][2],
                     turn[line]);
        rows++;
    }
    assert_true(rows >= 10);
    /* every kind of wait shows up somewhere in this kernel */
    unsigned long long sum[4] = {0};
    for (uint32_t line = 0; line < LINES; line++) {
        for (int r = 0; r < 3; r++)
            sum[r] += waited[line][r];
        sum[3] += turn[line];
    }
    assert_true(sum[0] && sum[1] && sum[2] && sum[3]);
    free(out);

    /* a functional trace numbers issues: it counts them, and no waits */
    snprintf(cmd, sizeof cmd, "trace kernels/reduce/reduce_threadgroup.yaml --mode functional -o %s", path);
    assert_int_equal(test_lockstep(cmd, &out), 0);
    free(out);
    snprintf(cmd, sizeof cmd, "trace profile %s", path);
    assert_int_equal(test_lockstep(cmd, &out), 0);
    unlink(path);
    expect_line(out, "a functional trace has no cycles: issues and lanes only");
    expect_line(out, "   all    57856                   0   0.0%            0   0.0%            0   0.0%"
                     "            0   0.0%");
    free(out);
}

static void test_usage_and_write_errors(void **state)
{
    (void)state;
    char *out;
    static const struct {
        const char *args, *message;
    } cases[] = {
        {"trace", "expected a launch manifest"},
        {"trace kernels/basics/vector_add.yaml", "expected -o FILE"},
        {"trace kernels/basics/vector_add.yaml -o", "-o needs a value"},
        {"trace kernels/basics/vector_add.yaml -o /tmp/x.trace --limit 0", "expected --limit to be a positive integer"},
        {"trace kernels/basics/vector_add.yaml -o /tmp/x.trace --bogus", "unknown option '--bogus'"},
        {"trace kernels/basics/vector_add.yaml -o /no/such/dir/x.trace", "cannot create trace /no/such/dir/x.trace"},
        {"trace kernels/basics/vector_add.yaml -o /dev/full", "cannot write trace /dev/full"},
        {"trace export /tmp/x.trace", "export needs --format jsonl or --format chrome"},
        {"trace export /tmp/x.trace --format xml", "unknown --format 'xml'"},
        {"trace show", "expected a trace file"},
        {"trace profile", "trace profile takes one trace file"},
        {"trace profile /no/such.trace", "cannot open trace /no/such.trace"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int status = test_lockstep(cases[i].args, &out);
        if (status != 2 || !strstr(out, cases[i].message))
            fail_msg("`%s`: exit %d, expected 2 and `%s`:\n%s", cases[i].args, status,
                     cases[i].message, out);
        free(out);
    }
    assert_int_equal(test_lockstep("trace --help", &out), 0);
    assert_non_null(strstr(out, "lockstep trace show FILE"));
    free(out);
    assert_int_equal(test_lockstep("help", &out), 0);
    assert_non_null(strstr(out, "trace LAUNCH.yaml -o F"));
    free(out);
}

/* -o naming a file of the launch (the manifest, the kernel, an init, expect or dump file)
 * replaced it without a word; each is refused, the file left as it was. A trace cut by
 * --limit says so. */
static void test_output_is_not_an_input(void **state)
{
    (void)state;
    char path[512], cmd[2048], *out = NULL;
    size_t size;
    UtilError err;
    char *kernel = util_read_file("kernels/asm/divergent_if.s", &size, &err);
    assert_non_null(kernel);
    static const char *const names[] = {"clob.yaml", "clob.s", "x.bin", "want.bin", "out.bin"};
    static const char yaml[] =
        "kernel: clob.s\ngrid: [256]\nthreadgroup: [64]\nargs:\n"
        "  x: {type: uint, count: 256, init: {file: x.bin}}\n"
        "  out: {type: uint, count: 256, expect: {file: want.bin}, dump: out.bin}\n";
    static char zeros[1024];
    const struct {
        const char *text;
        size_t len;
    } texts[] = {{yaml, sizeof yaml - 1}, {kernel, size}, {zeros, 1024}, {zeros, 1024},
                 {zeros, 1024}};
    for (size_t i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "wb");
        fwrite(texts[i].text, 1, texts[i].len, f);
        fclose(f);
    }
    static const char *const what[] = {
        "is the launch manifest; writing the trace there would replace it",
        "is the kernel's source; writing the trace there would replace it",
        "is the init: file of argument 'x' (", "is the expect: file of argument 'out' (",
        "is the dump: file of argument 'out' ("};
    for (size_t i = 0; i < 5; i++) {
        snprintf(cmd, sizeof cmd, "trace %s/clob.yaml -o %s/./%s", dir, dir, names[i]);
        int status = test_lockstep(cmd, &out);
        if (status != 2 || !strstr(out, what[i]))
            fail_msg("`%s`: exit %d, expected 2 and `%s`:\n%s", cmd, status, what[i], out);
        free(out);
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        char *now = util_read_file(path, &size, &err);
        assert_non_null(now);
        assert_int_equal(size, texts[i].len);
        assert_memory_equal(now, texts[i].text, size);
        free(now);
    }
    for (size_t i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    free(kernel);
    assert_int_equal(record("--limit 40", &out), 0);
    assert_non_null(strstr(out, "note: the trace stops at the --limit of 40 records (the run "
                                "went on); give --limit N to record more"));
    free(out);
    assert_int_equal(test_lockstep("trace --help", &out), 0);
    assert_non_null(strstr(out, "default 10000000"));
    free(out);
}

/* A malformed record late in a trace left a truncated export (invalid JSON) behind: the
 * records are checked before anything is written, to a file or to standard output. An
 * export onto the trace itself is refused. */
static void test_bad_trace_leaves_no_export(void **state)
{
    (void)state;
    char *out = NULL, json[300], cmd[1024];
    assert_int_equal(record("--limit 40", &out), 0);
    free(out);
    size_t size;
    UtilError err;
    char *text = util_read_file(trace_path, &size, &err);
    assert_non_null(text);
    text[size - 40 + 30] = 9; /* the last record's wait reason */
    FILE *f = fopen(trace_path, "wb");
    fwrite(text, 1, size, f);
    fclose(f);
    free(text);
    snprintf(json, sizeof json, "%s/out.json", dir);
    static const char *const formats[] = {"chrome", "jsonl"};
    for (int i = 0; i < 2; i++) {
        unlink(json);
        snprintf(cmd, sizeof cmd, "trace export %s --format %s -o %s", trace_path, formats[i], json);
        assert_int_equal(test_lockstep(cmd, &out), 2);
        assert_non_null(strstr(out, "record 39 (byte 1560 of the records) is malformed"));
        free(out);
        assert_int_equal(access(json, F_OK), -1);
        snprintf(cmd, sizeof cmd, "trace export %s --format %s", trace_path, formats[i]);
        assert_int_equal(test_lockstep(cmd, &out), 2);
        if (strstr(out, "\"cycle\"") || strstr(out, "traceEvents"))
            fail_msg("`%s` wrote part of an export:\n%s", cmd, out);
        free(out);
    }
    snprintf(cmd, sizeof cmd, "trace export %s --format jsonl -o %s/./div.trace", trace_path, dir);
    assert_int_equal(test_lockstep(cmd, &out), 2);
    assert_non_null(strstr(out, "is the trace being exported"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_and_export),
        cmocka_unit_test(test_malformed_traces),
        cmocka_unit_test(test_damaged_traces),
        cmocka_unit_test(test_profile),
        cmocka_unit_test(test_usage_and_write_errors),
        cmocka_unit_test(test_output_is_not_an_input),
        cmocka_unit_test(test_bad_trace_leaves_no_export),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
