/*
 * test_debug_cli.c — `lockstep debug` as a user drives it, through --script: where it
 * stops (breakpoints, steps, a thread's SIMD-group), what it shows (a variable in every
 * lane, the exec mask and nesting counters on the screen, buffers and threadgroup memory),
 * how the run ends, and bad input (exit 2, naming the script's line). What `print` and
 * `watch` show of values is in test_debug_print.c.
 *
 * Expected values come from the kernels and manifests themselves, worked out here: which
 * threadgroup, SIMD-group and lane hold a grid thread, which lanes pass a bounds check or
 * a parity test, what a loop variable holds, which source line a statement is on (found by
 * searching the kernel's text). The tests run from the repository root and use $LOCKSTEP.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <unistd.h>

#include "debug_harness.h"

/* The screen's `exec` row for a mask of `lanes` lanes: # active, . inactive. */
static void exec_row(uint32_t mask, uint32_t lanes, char *row)
{
    for (uint32_t l = 0; l < 32; l++)
        row[l] = l >= lanes ? ' ' : mask >> l & 1 ? '#' : '.';
    row[32] = '\0';
}

/* vector_add (4 threadgroups of 256, n = 1000): grid thread 1000 is in threadgroup 3,
 * SIMD-group 7, lane 8; that SIMD-group holds threads 992..1023, of which 8 pass the bounds
 * check, so at the addition 8 lanes are active and i holds 992.. in every lane. */
static void test_thread_and_breakpoint(void **state)
{
    (void)state;
    const char *kernel = "kernels/basics/vector_add.metal";
    uint32_t add = line_of(kernel, "c[i] = a[i] + b[i];");
    char script[256], *out;
    snprintf(script, sizeof script,
             "thread 1000\nbreak %u\ncontinue\nprint i\nscreen\nbreaks\nfinish\n", add);
    int status = debug("kernels/basics/vector_add.yaml", "", script, &out);
    if (status != 0)
        fail_msg("exit %d:\n%s", status, out);
    uint32_t t = 1000, tg = t / 256, sg = t % 256 / 32, lane = t % 32;
    char want[256];
    char *s = said(out, "thread 1000", 0);
    snprintf(want, sizeof want, "threadgroup (%u,0,0), SIMD-group %u,", tg, sg);
    expect_in(s, want, out);
    snprintf(want, sizeof want, "grid thread (1000,0,0) is lane %u", lane);
    expect_in(s, want, out);
    free(s);

    uint32_t first = tg * 256 + sg * 32, active = 1000 - first;
    s = said(out, "continue", 0);
    snprintf(want, sizeof want, "breakpoint 1: line %u,", add);
    expect_in(s, want, out);
    snprintf(want, sizeof want, "SIMD-group %u, %u of 32 lanes active", sg, active);
    expect_in(s, want, out);
    free(s);

    s = said(out, "print i", 0);
    for (uint32_t l0 = 0; l0 < 32; l0 += 8) {
        int len = snprintf(want, sizeof want, "  lanes %2u-%-2u:", l0, l0 + 7);
        for (uint32_t l = l0; l < l0 + 8; l++)
            len += snprintf(want + len, sizeof want - len, l < active ? " %u" : " (%u)", first + l);
        expect_in(s, want, out);
    }
    free(s);

    s = said(out, "screen", 0);
    char row[33];
    exec_row((1u << active) - 1, 32, row);
    snprintf(want, sizeof want, "exec   %s   %u of 32 lanes active", row, active);
    expect_in(s, want, out);
    snprintf(want, sizeof want, "*=> %3u      c[i] = a[i] + b[i];", add);
    expect_in(s, want, out);
    free(s);

    s = said(out, "breaks", 0);
    snprintf(want, sizeof want, "1: line %u, hit 1 times", add);
    expect_in(s, want, out);
    free(s);

    /* the run ends and the expectation (independent reference data) holds */
    s = said(out, "finish", 0);
    expect_in(s, "finished: 4 threadgroups,", out);
    expect_in(s, "expect c", out);
    expect_in(s, "ok (1000 elements)", out);
    free(s);
    free(out);
}

/* reduce_threadgroup (threadgroups of 256): at the first round's add, stride is 128 in
 * every lane and lid the lane's index; SIMD-groups 0..3 (lids 0..127) enter the add with
 * every lane, SIMD-group 4 (lids 128..159) with none, and each is a breakpoint hit. next N
 * runs exactly N instructions of the SIMD-group shown; line runs it off the add's line. */
static void test_reduce_rounds(void **state)
{
    (void)state;
    const char *kernel = "kernels/reduce/reduce_threadgroup.metal";
    uint32_t add = line_of(kernel, "scratch[lid] += scratch[lid + stride];");
    char script[512], *out;
    snprintf(script, sizeof script,
             "break %u\ncontinue\nprint stride\nprint lid\nprint scratch[3]\nprint in[3]\n"
             "step\nnext 3\nline\ncontinue\ncontinue\ncontinue\ncontinue\nscreen\nbreaks\n",
             add);
    int status = debug("kernels/reduce/reduce_threadgroup.yaml", "--size 120x40", script, &out);
    if (status != 0)
        fail_msg("exit %d:\n%s", status, out);
    char want[256];
    char *s = said(out, "print stride", 0);
    expect_in(s, "  lanes 24-31: 128 128 128 128 128 128 128 128", out);
    free(s);
    s = said(out, "print lid", 0);
    expect_in(s, "  lanes  8-15: 8 9 10 11 12 13 14 15", out);
    free(s);

    /* before the first add, scratch[lid] is in[gid]: threadgroup 0, so scratch[3] == in[3] */
    char *tg3 = said(out, "print scratch[3]", 0), *in3 = said(out, "print in[3]", 0);
    const char *v1 = strstr(tg3, "scratch[3]:"), *v2 = strstr(in3, "in[3]:");
    assert_non_null(v1);
    assert_non_null(v2);
    assert_string_equal(strchr(v1, ':'), strchr(v2, ':'));
    expect_in(tg3, "threadgroup memory", out);
    free(tg3);
    free(in3);

    /* instruction counts: step +1, next 3 +3, in SIMD-group 0 */
    unsigned long long at_break, after_step, after_next;
    s = said(out, "continue", 0);
    const char *done = strstr(s, "SIMD-group 0, 32 of 32 lanes active; ");
    assert_non_null(done);
    assert_int_equal(sscanf(done, "SIMD-group 0, 32 of 32 lanes active; %llu", &at_break), 1);
    free(s);
    s = said(out, "step", 0);
    assert_int_equal(sscanf(strstr(s, "lanes active; "), "lanes active; %llu", &after_step), 1);
    free(s);
    s = said(out, "next 3", 0);
    expect_in(s, "SIMD-group 0,", out);
    assert_int_equal(sscanf(strstr(s, "lanes active; "), "lanes active; %llu", &after_next), 1);
    free(s);
    assert_int_equal(after_step, at_break + 1);
    assert_int_equal(after_next, after_step + 3);
    /* line: SIMD-group 0 on another source line (the if's end or the barrier) */
    unsigned next_line = 0;
    s = said(out, "line", 0);
    assert_int_equal(sscanf(s, "stepped: line %u,", &next_line), 1);
    assert_true(next_line == add - 1 || next_line == add + 1);
    expect_in(s, "SIMD-group 0,", out);
    free(s);

    for (int k = 0; k < 4; k++) {
        s = said(out, "continue", k + 1);
        snprintf(want, sizeof want, "SIMD-group %d, %d of 32 lanes active", k + 1, k + 1 < 4 ? 32 : 0);
        expect_in(s, want, out);
        free(s);
    }
    s = said(out, "screen", 0);
    char row[33];
    exec_row(0, 32, row);
    snprintf(want, sizeof want, "exec   %s   0 of 32 lanes active", row);
    expect_in(s, want, out);
    expect_in(s, "lid           (128)", out);
    free(s);
    s = said(out, "breaks", 0);
    snprintf(want, sizeof want, "1: line %u, hit 5 times", add);
    expect_in(s, want, out);
    free(s);
    free(out);
}

/* A breakpoint on a line without code of its own (the `{` before the bounds check) goes to
 * the next line that has some, and says so; past the last such line there is none. */
static void test_breakpoint_on_a_line_without_code(void **state)
{
    (void)state;
    const char *kernel = "kernels/basics/vector_add.metal";
    uint32_t check = line_of(kernel, "if (i >= n)");
    char script[256], want[256], *out;
    snprintf(script, sizeof script, "break %u\ncontinue\nbreaks\n", check - 1);
    int status = debug("kernels/basics/vector_add.yaml", "", script, &out);
    if (status != 0)
        fail_msg("exit %d:\n%s", status, out);
    char cmd[32];
    snprintf(cmd, sizeof cmd, "break %u", check - 1);
    char *s = said(out, cmd, 0);
    snprintf(want, sizeof want, "breakpoint 1 at line %u (line %u has no instruction of its own",
             check, check - 1);
    expect_in(s, want, out);
    free(s);
    s = said(out, "continue", 0);
    snprintf(want, sizeof want, "breakpoint 1: line %u,", check);
    expect_in(s, want, out);
    free(s);
    free(out);
    status = debug("kernels/basics/vector_add.yaml", "", "break 1000\n", &out);
    if (status != 2 || !strstr(out, "no instruction comes from line 1000 of ") ||
        !strstr(out, " or any line after it"))
        fail_msg("exit %d:\n%s", status, out);
    free(out);
}

/* softmax's two helpers are inlined: a breakpoint in threadgroup_max stops there and the
 * status names the call the code came from. */
static void test_breakpoint_in_helper_names_the_call(void **state)
{
    (void)state;
    const char *kernel = "kernels/ml/softmax.metal";
    uint32_t in_helper = line_of(kernel, "scratch[simd_group] = v;");
    uint32_t call = line_of(kernel, "m = threadgroup_max(m, scratch");
    char script[64], want[160], *out;
    snprintf(script, sizeof script, "break %u\ncontinue\n", in_helper);
    int status = debug("kernels/ml/softmax.yaml", "", script, &out);
    if (status != 0)
        fail_msg("exit %d:\n%s", status, out);
    char *s = said(out, "continue", 0);
    snprintf(want, sizeof want, "breakpoint 1: line %u (in threadgroup_max, called at line %u),",
             in_helper, call);
    expect_in(s, want, out);
    free(s);
    free(out);
}

/* divergent_if.s with x = 3 * lane + 1 (even in the odd lanes): at the then-side (the lsr,
 * instruction 5) the lanes with x even are active and the others have nesting counter 1;
 * at the else-side (the imad, instruction 7) it is the other way round. */
static void test_divergence_and_counters(void **state)
{
    (void)state;
    char dir[] = "/tmp/lockstep-debug-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cwd[1024], manifest[1200];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(manifest, sizeof manifest, "%s/div.yaml", dir);
    FILE *f = fopen(manifest, "w");
    fprintf(f, "kernel: %s/kernels/asm/divergent_if.s\ngrid: [32]\nthreadgroup: [32]\nargs:\n"
               "  x: {type: uint, count: 32, init: {range: [1, 3]}}\n"
               "  out: {type: uint, count: 32}\n", cwd);
    fclose(f);
    char *out;
    int status = debug(manifest, "", "break *5\nbreak *7\ncontinue\nscreen\ncontinue\nscreen\n"
                                     "print r4\n", &out);
    unlink(manifest);
    rmdir(dir);
    if (status != 0)
        fail_msg("exit %d:\n%s", status, out);
    uint32_t even = 0;
    char depth_then[33], depth_else[33], want[256], row[33];
    for (uint32_t l = 0; l < 32; l++) {
        uint32_t x = 3 * l + 1;
        even |= (uint32_t)(x % 2 == 0) << l;
        depth_then[l] = x % 2 == 0 ? '0' : '1';
        depth_else[l] = x % 2 == 0 ? '1' : '0';
    }
    depth_then[32] = depth_else[32] = '\0';
    char *s = said(out, "screen", 0);
    exec_row(even, 32, row);
    snprintf(want, sizeof want, "exec   %s   16 of 32 lanes active, mask 0x%08x", row, even);
    expect_in(s, want, out);
    snprintf(want, sizeof want, "depth  %s", depth_then);
    expect_in(s, want, out);
    const char *lsr = strstr(s, "  lsr r4, r2, 1");
    assert_non_null(lsr);
    assert_memory_equal(lsr - 7, "*=>", 3); /* breakpoint and stop mark, then a 4-digit pc */
    free(s);
    s = said(out, "screen", 1);
    exec_row(~even, 32, row);
    snprintf(want, sizeof want, "exec   %s   16 of 32 lanes active, mask 0x%08x", row, ~even);
    expect_in(s, want, out);
    snprintf(want, sizeof want, "depth  %s", depth_else);
    expect_in(s, want, out);
    free(s);
    /* the then-side ran: even lanes hold x / 2; the odd lanes' r4 was never written (0) */
    s = said(out, "print r4", 0);
    int len = snprintf(want, sizeof want, "  lanes  0-7 :");
    for (uint32_t l = 0; l < 8; l++) {
        uint32_t x = 3 * l + 1;
        len += snprintf(want + len, sizeof want - len, x % 2 ? " 0x%08x" : " (0x%08x)",
                        x % 2 ? 0 : x / 2);
    }
    expect_in(s, want, out);
    free(s);
    free(out);
}

/* A line breakpoint stops once per loop trip, even in a loop written on one line (the jump
 * back re-enters the line): with n trips, n hits. */
static void test_loop_on_one_line(void **state)
{
    (void)state;
    static const unsigned trips[] = {1, 5};
    for (int t = 0; t < 2; t++) {
        TempKernel k;
        char yaml[160], *out, want[64];
        snprintf(yaml, sizeof yaml, "kernel: loop1.metal\ngrid: [40]\nthreadgroup: [40]\nargs:\n"
                 "  out: {count: 40}\n  n: {value: %u}\n", trips[t]);
        temp_kernel(&k, "loop1.metal",
                    "kernel void loop1(device uint *out [[buffer(0)]], constant uint &n [[buffer(1)]],\n"
                    "                  uint i [[thread_position_in_grid]]) {\n"
                    "    uint acc = 0;\n"
                    "    for (uint k = 0; k < n; k++) acc += k;\n"
                    "    out[i] = acc;\n"
                    "}\n", yaml);
        int status = debug(k.manifest, "", "break 4\nc\nc\nc\nc\nc\nc\nc\nc\nc\nc\nc\nc\nbreaks\n", &out);
        temp_kernel_remove(&k);
        if (status != 0)
            fail_msg("exit %d:\n%s", status, out);
        /* two SIMD-groups (40 threads: 32 and 8 lanes), each making every trip */
        snprintf(want, sizeof want, "1: line 4, hit %u times", 2 * trips[t]);
        expect_in(out, want, out);
        free(out);
    }
}

static void test_timed_stops(void **state)
{
    (void)state;
    char *out = NULL, *trace_out = NULL, *stats = NULL;
    int status = debug("kernels/basics/vector_add.yaml", "",
                       "thread 1000\nbreak 25\ncontinue\nnext\n", &out);
    if (status != 0)
        fail_msg("exit %d:\n%s", status, out);
    /* the trace of the same launch, as JSON Lines */
    char trace[] = "/tmp/lockstep-debug-va-XXXXXX", cmd[256]; /* unique: test runs may overlap */
    int fd = mkstemp(trace);
    assert_true(fd >= 0);
    close(fd);
    snprintf(cmd, sizeof cmd, "trace kernels/basics/vector_add.yaml -o %s", trace);
    assert_int_equal(test_lockstep(cmd, &trace_out), 0);
    free(trace_out);
    snprintf(cmd, sizeof cmd, "trace export %s --format jsonl", trace);
    assert_int_equal(test_lockstep(cmd, &trace_out), 0);
    unlink(trace);
    assert_int_equal(test_lockstep("run kernels/basics/vector_add.yaml --stats", &stats), 0);
    /* "cycles      1,361  (...)": digits with thousands separators */
    unsigned long long total = 0;
    const char *c = strstr(stats, "\ncycles ");
    assert_non_null(c);
    for (c += 8; *c == ' '; c++)
        ;
    for (; isdigit((unsigned char)*c) || *c == ','; c++)
        if (*c != ',')
            total = total * 10 + (unsigned long long)(*c - '0');
    free(stats);
    /* the cycles of threadgroup 3, SIMD-group 7's instructions, in order */
    unsigned long long cyc[64];
    uint32_t n = 0;
    for (const char *p = trace_out; (p = strstr(p, "{\"cycle\":")) && n < 64; p++) {
        unsigned long long cycle, tg;
        unsigned sg;
        assert_int_equal(sscanf(p, "{\"cycle\":%llu,\"core\":%*u,\"scheduler\":%*u,"
                                   "\"threadgroup\":%llu,\"simdgroup\":%u", &cycle, &tg, &sg), 3);
        if (tg == 3 && sg == 7)
            cyc[n++] = cycle;
    }
    free(trace_out);
    /* at `continue` the SIMD-group has done 409 - 403 = 6 instructions; `next` one more */
    unsigned long long done0, done;
    char *at_thread = said(out, "thread 1000", 0);
    assert_int_equal(sscanf(strstr(at_thread, "active; "), "active; %llu", &done0), 1);
    free(at_thread);
    for (int k = 0; k < 2; k++) {
        char *s = said(out, k ? "next" : "continue", 0), want[200];
        assert_int_equal(sscanf(strstr(s, "active; "), "active; %llu", &done), 1);
        uint64_t i = done - done0;
        assert_true(i > 0 && i < n);
        snprintf(want, sizeof want, "timed: issues at cycle %llu on core 3, ", cyc[i]);
        expect_in(s, want, out);
        if (cyc[i] - cyc[i - 1] <= 1)
            snprintf(want, sizeof want, ", right after this SIMD-group's previous one (");
        else
            snprintf(want, sizeof want, ", %llu cycles after this SIMD-group's previous one",
                     cyc[i] - cyc[i - 1]);
        expect_in(s, want, out);
        snprintf(want, sizeof want, "(the run takes %llu cycles)", total);
        expect_in(s, want, out);
        free(s);
    }
    free(out);
    assert_int_equal(debug("kernels/basics/vector_add.yaml", "--mode functional --size 160x30",
                           "next\nscreen\n", &out), 0);
    assert_null(strstr(out, "timed:"));
    assert_non_null(strstr(out, "threadgroup 256 x 1 x 1, functional"));
    free(out);
}

/* `mem`: the SIMD-group's latest access, lane by lane, and what it cost: vector_add's load
 * of a by SIMD-group 0 is a[0] .. a[31], 128 contiguous bytes, one 128-byte line; a store
 * with a stride of 32 floats touches a line per lane; reduce's first-round load of
 * scratch[lid + stride] is scratch[128 + lane]. */
static void test_mem(void **state)
{
    (void)state;
    char *out = NULL;
    const char *va = "kernels/basics/vector_add.metal";
    char script[128];
    snprintf(script, sizeof script, "mem\nbreak %u\ncontinue\nnext 2\nmem\n",
             line_of(va, "c[i] = a[i] + b[i];"));
    assert_int_equal(debug("kernels/basics/vector_add.yaml", "--mode functional", script, &out), 0);
    char *s = said(out, "mem", 0);
    expect_in(s, "no memory access in this threadgroup yet", out);
    free(s);
    s = said(out, "mem", 1);
    expect_in(s, "read of device memory, 4 bytes by each of 32 lanes, a[0] .. a[31]; 1 line of 128 bytes", out);
    expect_in(s, "  lanes 24-31: a[24] a[25] a[26] a[27] a[28] a[29] a[30] a[31]", out);
    free(s);
    free(out);

    TempKernel k;
    temp_kernel(&k, "strided.metal",
                "kernel void strided(device float *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
                "    out[i * 32] = 1.0f;\n"
                "}\n",
                "kernel: strided.metal\ngrid: [32]\nthreadgroup: [32]\nargs:\n  out: {count: 1024}\n");
    assert_int_equal(debug(k.manifest, "--mode functional", "watch out[0]\ncontinue\nmem\n", &out), 0);
    temp_kernel_remove(&k);
    s = said(out, "mem", 0);
    expect_in(s, "write of device memory, 4 bytes by each of 32 lanes, out[0] .. out[992]; 32 lines of 128 bytes", out);
    expect_in(s, "  lanes  0-7 : out[0] out[32] out[64] out[96] out[128] out[160] out[192] out[224]", out);
    free(s);
    free(out);

    snprintf(script, sizeof script, "break %u\ncontinue\nnext 3\nmem\n",
             line_of("kernels/reduce/reduce_threadgroup.metal", "scratch[lid] += scratch[lid + stride];"));
    assert_int_equal(debug("kernels/reduce/reduce_threadgroup.yaml", "--mode functional", script, &out), 0);
    s = said(out, "mem", 0);
    expect_in(s, "read of threadgroup memory, 4 bytes by each of 32 lanes, scratch[128] .. scratch[159]; ", out);
    expect_in(s, " bank cycle", out);
    free(s);
    free(out);
}

/* `groups`: at the start SIMD-group 0 is stopped and the 7 others have not started; at the
 * first round's add in SIMD-group 1, SIMD-group 0 waits at the loop's barrier (the
 * functional run takes them one at a time up to each barrier) and 2..7 wait for their turn
 * past the first barrier. */
static void test_groups(void **state)
{
    (void)state;
    const char *kernel = "kernels/reduce/reduce_threadgroup.metal";
    uint32_t add = line_of(kernel, "scratch[lid] += scratch[lid + stride];");
    uint32_t first_barrier = line_of(kernel, "    threadgroup_barrier");
    uint32_t loop_barrier = line_of(kernel, "        threadgroup_barrier");
    char script[128], want[160], *out = NULL;
    snprintf(script, sizeof script, "groups\nbreak %u\ncontinue\ncontinue\ngroups\n", add);
    assert_int_equal(debug("kernels/reduce/reduce_threadgroup.yaml", "--mode functional", script,
                           &out), 0);
    char *s = said(out, "groups", 0);
    expect_in(s, "threadgroup (0,0,0): 8 SIMD-groups", out);
    expect_in(s, "=> sg 0 ", out);
    expect_in(s, "stopped here", out);
    for (int g = 1; g < 8; g++) {
        snprintf(want, sizeof want, "   sg %-2d  %-22s %6d issued  not started", g, "", 0);
        expect_in(s, want, out);
    }
    free(s);
    s = said(out, "groups", 1);
    expect_in(s, "=> sg 1 ", out);
    snprintf(want, sizeof want, "waits at the barrier of line %u", loop_barrier);
    expect_in(s, want, out);
    for (int g = 2; g < 8; g++) {
        snprintf(want, sizeof want, "   sg %-2d  line %u, ", g, first_barrier);
        expect_in(s, want, out);
    }
    expect_in(s, "runs next, when those before it reach a barrier or end", out);
    free(s);
    free(out);
}

/* The variables pane never shows a value that does not fit its column as another value: a
 * float gets fewer digits, an integer keeps its digits and one cut short ends in `…` (in a
 * 100-column screen a lane has 10 columns, 9 for an active lane's value), hex loses its
 * leading zeros first; `print` shows every digit. */
static void test_pane_fits(void **state)
{
    (void)state;
    char *out = NULL;
    TempKernel k;
    temp_kernel(&k, "wide.metal",
                "kernel void wide(device ulong *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
                "    ulong acc = (ulong)i * 4000000000ul;\n"
                "    uint big = 700000000u + i;\n"
                "    out[i] = acc + big;\n"
                "}\n",
                "kernel: wide.metal\ngrid: [4]\nthreadgroup: [4]\nargs:\n  out: {count: 4}\n");
    assert_int_equal(debug(k.manifest, "--mode functional", "break 4\ncontinue\nscreen\nprint acc\n",
                           &out), 0);
    temp_kernel_remove(&k);
    char *s = said(out, "screen", 0);
    expect_in(s, "\nacc           0         40000000\u2026 80000000\u2026 12000000\u2026 ", out);
    expect_in(s, "\nbig           700000000 700000001 700000002 700000003 ", out);
    free(s);
    s = said(out, "print acc", 0);
    expect_in(s, "  lanes  0-3 : 0 4000000000 8000000000 12000000000", out);
    free(s);
    free(out);
    /* a pointer, 0x0000000100000000: never 0x0000000, which looks like null */
    assert_int_equal(debug("kernels/linalg/matmul_tensor.yaml", "", "next 12\nscreen\n", &out), 0);
    s = said(out, "screen", 0);
    expect_in(s, "\na.data        0x100000\u2026 0x100000\u2026 ", out);
    free(s);
    free(out);
}

/* `screen` is exactly the rows asked for, whatever the panes hold (a timed stop has two
 * status lines; matmul_tensor has many variables), and its last row is the newest message. */
static void test_screen_rows(void **state)
{
    (void)state;
    static const char *const sizes[] = {"60x24", "80x24", "100x25", "100x40"};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        char options[64], *out;
        unsigned cols, rows;
        sscanf(sizes[i], "%ux%u", &cols, &rows);
        snprintf(options, sizeof options, "--size %s", sizes[i]);
        assert_int_equal(debug("kernels/linalg/matmul_tensor.yaml", options,
                               "next 12\nscreen\n", &out), 0);
        char *s = said(out, "screen", 0);
        unsigned lines = 0;
        const char *last = s;
        for (const char *p = s; *p; p++)
            if (*p == '\n') {
                lines++;
                if (p[1])
                    last = p + 1;
            }
        if (lines != rows || strncmp(last, "timed: issues at cycle", 22) != 0)
            fail_msg("%s: %u lines, the last `%.40s`:\n%s", sizes[i], lines, last, s);
        free(s);
        free(out);
    }
}

/* `screen` passes UTF-8 through whole: the em dash of a kernel's first line, a wide
 * character taking two columns (the source half still ends at its column), and a byte
 * that is no UTF-8 as one `?`. */
static void test_screen_utf8(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(debug("kernels/basics/vector_add.yaml", "--size 100x60", "screen\n", &out), 0);
    char *s = said(out, "screen", 0);
    expect_in(s, "\n      1  // vector_add.metal \u2014 the \"hello world\" | =>0000", out);
    free(s);
    free(out);
    TempKernel k;
    temp_kernel(&k, "wide.metal",
                "// \u6570\u636e \u2014 ok \xff!\n"
                "kernel void wide(device uint *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
                "    out[i] = i;\n"
                "}\n",
                "kernel: wide.metal\ngrid: [4]\nthreadgroup: [4]\nargs:\n  out: {count: 4}\n");
    assert_int_equal(debug(k.manifest, "--mode functional", "screen\n", &out), 0);
    temp_kernel_remove(&k);
    s = said(out, "screen", 0);
    /* 100 columns: the source half is 49; the line takes 9 + 3 + 4 + 8 of them, 25 spaces */
    expect_in(s, "\n      1  // \u6570\u636e \u2014 ok ?!                         |", out);
    free(s);
    free(out);
}

/* The variables pane always shows a whole window of 8 lanes: past lane 24 it is 24-31, and
 * a SIMD-group of 4 lanes shows them all. */
static void test_lanes_window(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(debug("kernels/basics/vector_add.yaml", "",
                           "lanes 99\nscreen\nlanes 16\nlanes +8\nlanes +8\nscreen\nlanes 27\nscreen\n",
                           &out), 0);
    for (int i = 0; i < 3; i++) {
        char *s = said(out, "screen", i);
        expect_in(s, "-- variables, lanes 24-31 ", out);
        free(s);
    }
    free(out);
    assert_int_equal(debug("kernels/basics/saxpy.yaml", "", "lanes 5\nscreen\n", &out), 0);
    char *s = said(out, "screen", 0);
    expect_in(s, "-- variables, lanes 0-7 ", out);
    free(s);
    free(out);
}

/* A budget ends the run with the budget's message; quitting mid-run exits 0 at once. */
static void test_budget_and_quit(void **state)
{
    (void)state;
    char *out;
    int status = debug("kernels/basics/vector_add.yaml", "--budget 100", "finish\n", &out);
    assert_int_equal(status, 1); /* the run ran out of budget: 1, as `lockstep run` says */
    char *s = said(out, "finish", 0);
    expect_in(s, "finished (budget ran out): ", out);
    expect_in(s, "100 SIMD-group instructions", out);
    free(s);
    free(out);
    status = debug("kernels/reduce/reduce_threadgroup.yaml", "", "step 5\nquit\nstep\n", &out);
    assert_int_equal(status, 0);
    assert_null(strstr(out, "finished"));
    assert_null(strstr(out, "(lockstep) step\n")); /* nothing runs after quit */
    free(out);
}

/* Bad input: exit 2 with a message naming what was expected (and the script's line). */
static void test_bad_input(void **state)
{
    (void)state;
    static const struct {
        const char *options, *script, *message;
    } cases[] = {
        {"", "where\nbogus\n", ":2: error: unknown command `bogus`"},
        {"", "where\nbreak 99\n", ":2: error: no instruction comes from line 99 of"},
        {"", "break *100000\n", "error: the kernel has"},
        {"", "print nothing_here\n", "no variable, register, buffer or threadgroup array named"},
        {"", "thread 5000\n", "the grid has 1024 threads along x; thread 5000 is past it"},
        {"", "step 0\n", "expected a count of 1 or more"},
        {"", "lanes x\n", "expected a lane number"},
        {"", "watch c\n", "watch needs one element of a buffer or threadgroup array"},
        {"", "watch c[1000]\n", "c has 1000 elements; c[1000] is past its end"},
        {"", "watch nothing[1]\n", "no buffer argument or threadgroup array named `nothing`"},
        {"", "watch n[0]\n", "`n` is a constant buffer"},
        {"--size 10x10", "", "expected --size COLSxROWS"},
        {"--bogus", "", "unknown option"},
        {"--budget 0", "", "expected --budget to be a positive integer"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out;
        int status = debug("kernels/basics/vector_add.yaml", cases[i].options, cases[i].script, &out);
        if (status != 2 || !strstr(out, cases[i].message))
            fail_msg("case %zu: exit %d, expected 2 and `%s` in:\n%s", i, status, cases[i].message,
                     out);
        free(out);
    }
    char *out;
    assert_int_equal(test_lockstep("debug kernels/no_such.yaml --script /dev/null", &out), 2);
    expect_in(out, "no_such.yaml", out);
    free(out);
    assert_int_equal(test_lockstep("debug kernels/basics/vector_add.yaml --script /no/such/file", &out), 2);
    expect_in(out, "cannot open script /no/such/file", out);
    free(out);
    /* a device of NUL bytes that never ends a line (it read forever), a directory, a line
     * past 4096 bytes (it became two commands) */
    assert_int_equal(test_lockstep("debug kernels/basics/vector_add.yaml --script /dev/zero", &out), 2);
    expect_in(out, "/dev/zero:1: error: a NUL byte in the line", out);
    free(out);
    assert_int_equal(test_lockstep("debug kernels/basics/vector_add.yaml --script kernels", &out), 2);
    expect_in(out, "kernels: error: expected a file (a debug script), not a directory", out);
    free(out);
    {
        char *script = malloc(6000);
        memset(script, ' ', 5000);
        memcpy(script + 5000, "step\n", 6);
        int status = debug("kernels/basics/vector_add.yaml", "", script, &out);
        free(script);
        if (status != 2 || !strstr(out, ":1: error: the line is longer than 4096 bytes"))
            fail_msg("a 5005-byte line: exit %d:\n%s", status, out);
        free(out);
    }
    assert_int_equal(test_lockstep("debug < /dev/null", &out), 2);
    expect_in(out, "expected a launch manifest", out);
    free(out);
    /* no terminal and no script */
    assert_int_equal(test_lockstep("debug kernels/basics/vector_add.yaml < /dev/null", &out), 2);
    expect_in(out, "the debugger needs a terminal", out);
    free(out);
    assert_int_equal(test_lockstep("debug --help", &out), 0);
    expect_in(out, "--script FILE", out);
    free(out);
    assert_int_equal(test_lockstep("--help", &out), 0);
    expect_in(out, "debug LAUNCH.yaml", out);
    free(out);
}

/* help lists every command the table has; a key runs the command it is bound to. */
static void test_help(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(debug("kernels/basics/vector_add.yaml", "", "help\n", &out), 0);
    static const char *const names[] = {"step [N]", "next [N]", "line", "continue", "finish",
                                        "thread X [Y [Z]]", "break LINE|*INSTR", "delete N",
                                        "breaks", "print WHAT", "lanes N|+N|-N", "where", "watch NAME[I]", "mem", "groups",
                                        "screen", "help", "quit"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        expect_in(out, names[i], out);
    expect_in(out, "  p     print WHAT ", out); /* the key --help and the tutorial name */
    free(out);
    /* abbreviations: s, n, b, p, d */
    assert_int_equal(debug("kernels/basics/vector_add.yaml", "",
                           "s\nn 2\nb 23\nd 1\nbreaks\np i\n", &out), 0);
    expect_in(out, "(lockstep) breaks\nno breakpoints", out);
    expect_in(out, "i (uint, r1), lanes 0-31", out);
    free(out);
}

/* The terminal front end, on a pseudo-terminal (util-linux `script`): keys step, h shows
 * the commands, `:` reads a command line, q quits with status 0. Curses draws with cursor moves, so only text it
 * writes in one piece is looked for: the stop line and a line of `print i`. */
static void test_terminal(void **state)
{
    (void)state;
    if (test_run("command -v script", NULL) != 0)
        skip();
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "printf 'sh :print i\\nq' | TERM=xterm COLUMNS=100 LINES=30 "
             "timeout 60 script -qfec 'exec %s debug kernels/basics/vector_add.yaml' /dev/null",
             test_lockstep_path());
    int status = test_run(cmd, &out);
    if (status != 0)
        fail_msg("exit %d:\n%s", status, out);
    expect_in(out, "lockstep debug: vector_add", out);
    expect_in(out, "stepped: line ", out);
    expect_in(out, "lanes  8-15: 8 9 10 11 12 13 14 15", out);
    /* h: the command list over the screen, until a key; the pane then shows all of print's
     * output, its first line too */
    expect_in(out, "keys and commands (any key to go back)", out);
    expect_in(out, "i (uint, r1), lanes 0-31", out);
    free(out);
    /* a terminal type nobody knows: bad input, said so, not curses' own exit */
    snprintf(cmd, sizeof cmd, "printf q | TERM=no-such-terminal timeout 60 script -qfec "
             "'exec %s debug kernels/basics/vector_add.yaml' /dev/null", test_lockstep_path());
    status = test_run(cmd, &out);
    if (status != 2)
        fail_msg("exit %d, expected 2:\n%s", status, out);
    expect_in(out, "cannot drive the terminal: TERM is 'no-such-terminal'", out);
    free(out);
}

/* Ctrl-C stops a `continue` into a loop that never ends (at its next instruction, as gdb
 * does) and the session goes on. The keys are sent a second apart so that the interrupt
 * reaches a run, not the prompt. `exec`: script runs the command with $SHELL -c, and a
 * shell that stays (dash does) is in the terminal's process group too, gets the SIGINT and
 * dies of it. */
static void test_terminal_interrupt(void **state)
{
    (void)state;
    if (test_run("command -v script", NULL) != 0)
        skip();
    TempKernel k;
    temp_kernel(&k, "spin.s",
                ".kernel spin\n.regs 4\n.arg out, device, u0\nloop:\n    iadd r1, r1, 1\n"
                "    jmp_exec_any loop\n    stop\n",
                "kernel: spin.s\ngrid: [32]\nthreadgroup: [32]\nargs:\n"
                "  out: {type: uint, count: 32}\n");
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "(printf c; sleep 1; printf '\\003'; sleep 1; printf ':where\\nq') "
             "| TERM=xterm timeout 60 script -qfec 'exec %s debug %s --mode functional --budget 4000000000' /dev/null",
             test_lockstep_path(), k.manifest);
    int status = test_run(cmd, &out);
    temp_kernel_remove(&k);
    if (status != 0)
        fail_msg("exit %d:\n%s", status, out);
    expect_in(out, "interrupted: line ", out);
    free(out);
}

/* Whether a line belongs to the stable subset of a check report (docs/checks.md): a
 * diagnostic (FILE:LINE:COL: error|warning: ...) or a site or note line under one. */
static bool is_stable(const char *line)
{
    static const char *const under[] = {"  first: ", "  second: ", "  access: ", "  at: ", "  note: "};
    for (size_t i = 0; i < sizeof under / sizeof *under; i++)
        if (strncmp(line, under[i], strlen(under[i])) == 0)
            return true;
    return *line && *line != ' ' && *line != '#' && strncmp(line, "error: ", 7) != 0 &&
           (strstr(line, ": error: ") || strstr(line, ": warning: "));
}

/* The stable lines of text, in order, each ending in a newline (newly allocated). */
static char *stable_lines(const char *text)
{
    size_t len = 0;
    char *out = malloc(strlen(text) + 1), line[4096];
    out[0] = '\0';
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        snprintf(line, sizeof line, "%.*s", (int)n, p);
        if (is_stable(line))
            len += (size_t)sprintf(out + len, "%s\n", line);
        p += n + (nl != NULL);
    }
    return out;
}

/* --check: in every teaching kernel of kernels/bugs/, `continue` stops after each new
 * finding (races as soon as the second access is made) or fault, once per finding the
 * kernel's NAME.expect lists, and at the end the debugger reports exactly what `lockstep
 * check` must (the .expect lines, which were written for the checks, not taken from them). */
static void test_check_stops(void **state)
{
    (void)state;
    DIR *dir = opendir("kernels/bugs");
    assert_non_null(dir);
    struct dirent *e;
    int kernels = 0;
    while ((e = readdir(dir))) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".yaml") != 0)
            continue;
        char manifest[512], expect_path[512];
        snprintf(manifest, sizeof manifest, "kernels/bugs/%s", e->d_name);
        snprintf(expect_path, sizeof expect_path, "kernels/bugs/%.*s.expect", (int)(n - 5), e->d_name);
        FILE *f = fopen(expect_path, "r");
        assert_non_null(f);
        char expect_text[16384];
        size_t got = fread(expect_text, 1, sizeof expect_text - 1, f);
        expect_text[got] = '\0';
        fclose(f);
        char *want = stable_lines(expect_text);
        unsigned diagnostics = 0;
        for (const char *p = want; *p; p = strchr(p, '\n') + 1)
            diagnostics += *p != ' ';
        char *out;
        int status = debug(manifest, "--check", "c\nc\nc\nc\nc\nc\nc\nc\nc\nc\nc\nc\n", &out);
        /* 1 for a bug (an error finding, taken to the end), 0 for a correct twin */
        const bool clean = strncmp(e->d_name, "ok_", 3) == 0;
        if (status != (clean ? 0 : 1))
            fail_msg("%s: exit %d:\n%s", manifest, status, out);
        /* the stops: "after finding 3", "after findings 2-3", "after fault 1", "after faults 1-24" */
        unsigned announced = 0;
        for (const char *p = strstr(out, "\nafter "); p; p = strstr(p + 1, "\nafter ")) {
            unsigned a, b;
            if (sscanf(p, "\nafter findings %u-%u", &a, &b) == 2)
                announced += b - a + 1; /* several findings of one instruction */
            else if (sscanf(p, "\nafter finding %u", &a) == 1 || !strncmp(p, "\nafter fault", 12))
                announced++;            /* a fault stop: one instruction's faults, one finding */
        }
        const char *end = strstr(out, "\nfinished: ");
        if (!end)
            fail_msg("%s: the run did not finish:\n%s", manifest, out);
        char *report = stable_lines(end + 1);
        if (announced != diagnostics || strcmp(report, want) != 0) {
            snprintf(failure, sizeof failure, "%s: %u stops for %u findings; report:\n%s\nwanted:\n%s\n"
                     "--- output:\n%s", manifest, announced, diagnostics, report, want, out);
            free(report);
            free(want);
            free(out);
            fail_msg("%s", failure);
        }
        free(report);
        free(want);
        free(out);
        kernels++;
    }
    closedir(dir);
    assert_true(kernels >= 18);
}

/* Never a crash, whatever the commands: random scripts (mostly commands that work, some
 * with bad arguments, which end the script with status 2) over kernels with barriers,
 * divergence, threadgroup memory and partial SIMD-groups must exit 0 or 2. DEBUG_SEED and
 * DEBUG_SCRIPTS run other and more scripts. */
static void test_random_scripts(void **state)
{
    (void)state;
    static const char *const manifests[] = {
        "kernels/basics/vector_add.yaml", "kernels/reduce/reduce_threadgroup.yaml",
        "kernels/asm/divergent_if.yaml", "kernels/bugs/missing_barrier.yaml",
        "kernels/scan/prefix_scan.yaml", "kernels/bugs/barrier_in_if.yaml",
        "tests/seed/softmax.yaml", "tests/seed/gemm.yaml", "tests/seed/mlx_grid_sample.yaml",
        "tests/seed/dot_product_fp16.yaml", "kernels/bugs/uninit_halo.yaml",
        "kernels/linalg/matmul_simdgroup.yaml",
    };
    static const char *const fixed[] = {
        "step", "next", "line", "continue", "where", "screen", "breaks", "help", "lanes +8",
        "lanes -8", "print i", "print lid", "print stride", "print scratch", "print r0l",
        "print r1", "print in", "print out[0]", "print x[3]", "s", "n", "l", "c", "finish",
        "watch scratch[1]", "watch c[3]", "watch out[2]", "watch partial_sums[0]", "delete 1",
        "mem", "m", "groups", "g", "print acc", "print acc[1]", "print acc[0][1]", "print a[0]",
    };
    static const char *const risky[] = {
        "print scratch[100000]", "print r300", "print nothing", "delete 7", "thread 99999999",
        "break 0", "break *999999", "step -1", "lanes 40", "print c[-1]", "print ]", "b",
        "print [3]", "thread 1 2 3 4", "bogus", "print acc[9][9]", "print acc[0][0][0][0]",
        "print acc[1][", "print acc[][1]",
    };
    const char *env = getenv("DEBUG_SEED");
    uint64_t rng = env ? strtoull(env, NULL, 0) : 20261127;
    env = getenv("DEBUG_SCRIPTS");
    int scripts = env ? atoi(env) : 24;
    for (int k = 0; k < scripts; k++) {
        char script[4096];
        size_t len = 0;
        int commands = 5 + (int)(test_rng_next(&rng) % 25);
        for (int c = 0; c < commands; c++) {
            uint64_t r = test_rng_next(&rng);
            char cmd[64];
            switch (r % 10) {
            case 0:
                snprintf(cmd, sizeof cmd, "break %u", (unsigned)(r >> 8) % 60 + 1);
                break;
            case 1:
                snprintf(cmd, sizeof cmd, "break *%u", (unsigned)(r >> 8) % 40);
                break;
            case 2:
                snprintf(cmd, sizeof cmd, "step %u", (unsigned)(r >> 8) % 200 + 1);
                break;
            case 3:
                snprintf(cmd, sizeof cmd, "thread %u", (unsigned)(r >> 8) % 256);
                break;
            case 4:
                snprintf(cmd, sizeof cmd, "%s", risky[(r >> 8) % (sizeof risky / sizeof *risky)]);
                if ((r >> 20) % 4) /* mostly keep the script going */
                    snprintf(cmd, sizeof cmd, "where");
                break;
            default:
                snprintf(cmd, sizeof cmd, "%s", fixed[(r >> 8) % (sizeof fixed / sizeof *fixed)]);
            }
            len += (size_t)snprintf(script + len, sizeof script - len, "%s\n", cmd);
        }
        const char *manifest = manifests[k % (sizeof manifests / sizeof *manifests)];
        char *out;
        int status = debug(manifest, k % 3 ? (k % 3 == 1 ? "" : "--check") : "--size 60x24",
                           script, &out);
        if (status != 0 && status != 2) {
            snprintf(failure, sizeof failure, "script %d on %s: exit %d\n%s\n---\n%s", k,
                     manifest, status, script, out);
            free(out);
            fail_msg("%s", failure);
        }
        free(out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thread_and_breakpoint),
        cmocka_unit_test(test_breakpoint_on_a_line_without_code),
        cmocka_unit_test(test_breakpoint_in_helper_names_the_call),
        cmocka_unit_test(test_reduce_rounds),
        cmocka_unit_test(test_divergence_and_counters),
        cmocka_unit_test(test_loop_on_one_line),
        cmocka_unit_test(test_timed_stops),
        cmocka_unit_test(test_mem),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_pane_fits),
        cmocka_unit_test(test_screen_rows),
        cmocka_unit_test(test_screen_utf8),
        cmocka_unit_test(test_lanes_window),
        cmocka_unit_test(test_budget_and_quit),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_check_stops),
        cmocka_unit_test(test_terminal),
        cmocka_unit_test(test_terminal_interrupt),
        cmocka_unit_test(test_random_scripts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
