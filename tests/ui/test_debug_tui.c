/*
 * test_debug_tui.c — the interactive `lockstep debug` as a user sees it: keys read while a
 * command runs, what the screen shows at a given terminal size, a resize in the middle of
 * typing. The debugger runs in a detached tmux session (a real pseudo-terminal of a size we
 * set and change), and the screen is read back as text with `tmux capture-pane`, so a test
 * looks at what is drawn where, not at curses' escape sequences. Without tmux the tests
 * skip. They run from the repository root and use $LOCKSTEP.
 */
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include "debug_harness.h"

/* One debugger in a tmux session of its own (its own server socket, no user config). */
typedef struct Tui {
    char socket[64];
    char status[96];        /* the debugger's exit status is written here when it ends */
} Tui;

static void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static int tmux(const Tui *t, const char *args, char **out)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "tmux -f /dev/null -L %s %s", t->socket, args);
    return test_run(cmd, out);
}

/* Starts `env lockstep ARGS` in a cols x rows terminal; skips the test without tmux. */
static void tui_start(Tui *t, int cols, int rows, const char *env, const char *args)
{
    if (test_run("command -v tmux", NULL) != 0)
        skip();
    static int n;
    snprintf(t->socket, sizeof t->socket, "lockstep-test-%d-%d", (int)getpid(), n++);
    snprintf(t->status, sizeof t->status, "/tmp/%s.status", t->socket);
    unlink(t->status);
    char cwd[1024], cmd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(cmd, sizeof cmd, "new-session -d -x %d -y %d -c '%s' \"TERM=xterm %s %s %s; "
             "echo \\$? > %s; sleep 60\"", cols, rows, cwd, env, test_lockstep_path(), args,
             t->status);
    assert_int_equal(tmux(t, cmd, NULL), 0);
}

/* The screen as text, one line a row (newly allocated). */
static char *tui_screen(const Tui *t)
{
    char *out;
    tmux(t, "capture-pane -p", &out);
    return out;
}

/* Row r of the screen (from 0) into buf. */
static void tui_row(const Tui *t, int r, char *buf, size_t size)
{
    char *s = tui_screen(t);
    const char *p = s;
    for (int i = 0; i < r && p; i++)
        p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
    snprintf(buf, size, "%.*s", p ? (int)strcspn(p, "\n") : 0, p ? p : "");
    free(s);
}

/* Waits (up to 10 s) until the screen shows `text`; fails with the screen if it never does. */
static void tui_wait_for(const Tui *t, const char *text)
{
    char *s = NULL;
    for (int i = 0; i < 200; i++) {
        free(s);
        s = tui_screen(t);
        if (strstr(s, text)) {
            free(s);
            return;
        }
        sleep_ms(50);
    }
    snprintf(failure, sizeof failure, "the screen never showed `%s`:\n%s", text, s);
    free(s);
    fail_msg("%s", failure);
}

/* Types keys (tmux send-keys names: `s`, `Enter`, `C-c`, `Escape`; -l: literal text). */
static void tui_keys(const Tui *t, const char *keys)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "send-keys -t 0 %s", keys);
    assert_int_equal(tmux(t, cmd, NULL), 0);
    sleep_ms(150);
}

static void tui_resize(const Tui *t, int cols, int rows)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "resize-window -t 0 -x %d -y %d", cols, rows);
    assert_int_equal(tmux(t, cmd, NULL), 0);
    sleep_ms(300);
}

/* The debugger's exit status, waiting up to `ms` for it to end; -1 when it has not. */
static int tui_status(const Tui *t, int ms)
{
    for (int waited = 0;; waited += 20) {
        FILE *f = fopen(t->status, "r");
        int status = -1;
        if (f) {
            if (fscanf(f, "%d", &status) != 1)
                status = -1;
            fclose(f);
        }
        if (status >= 0 || waited >= ms)
            return status;
        sleep_ms(20);
    }
}

static void tui_end(Tui *t)
{
    tmux(t, "kill-server", NULL);
    unlink(t->status);
}

/* A kernel whose loop never ends (k is even, never 1). */
static void spin_kernel(TempKernel *k)
{
    temp_kernel(k, "spin.metal",
                "// spin — a loop that never ends\n"
                "kernel void spin(device uint *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
                "    for (uint k = 0; k != 1; k += 2) {}\n"
                "    out[i] = 1;\n"
                "}\n",
                "kernel: spin.metal\ngrid: [32]\nthreadgroup: [32]\nargs:\n"
                "  out: {type: uint, count: 32}\n");
}

/* `q` while `continue` runs into a loop that never ends stops the run and quits at once
 * (status 0); Ctrl-C stops it where it is and the session goes on. */
static void test_q_stops_a_run(void **state)
{
    (void)state;
    TempKernel k;
    spin_kernel(&k);
    char args[512];
    snprintf(args, sizeof args, "debug %s --mode functional --budget 4000000000", k.manifest);
    Tui t;
    tui_start(&t, 100, 30, "", args);
    tui_wait_for(&t, "at the start: line ");
    tui_keys(&t, "c");
    tui_wait_for(&t, "running...");
    sleep_ms(500);
    assert_int_equal(tui_status(&t, 0), -1); /* still running */
    tui_keys(&t, "q");
    int status = tui_status(&t, 3000);
    tui_end(&t);
    assert_int_equal(status, 0);

    tui_start(&t, 100, 30, "", args);
    tui_wait_for(&t, "at the start: line ");
    tui_keys(&t, "c");
    tui_wait_for(&t, "running...");
    tui_keys(&t, "C-c");
    tui_wait_for(&t, "interrupted: line 3,");
    tui_keys(&t, "q");
    status = tui_status(&t, 3000);
    tui_end(&t);
    temp_kernel_remove(&k);
    assert_int_equal(status, 0);
}

/* A resize while `continue` runs puts the running bar on the new last row; when the run
 * stops, the screen is drawn at the new size (its key bar on the last row). */
static void test_resize_while_running(void **state)
{
    (void)state;
    TempKernel k;
    spin_kernel(&k);
    char args[512], row[512];
    snprintf(args, sizeof args, "debug %s --mode functional --budget 4000000000", k.manifest);
    Tui t;
    tui_start(&t, 100, 30, "", args);
    tui_wait_for(&t, "at the start: line ");
    tui_keys(&t, "c");
    tui_wait_for(&t, "running...");
    tui_resize(&t, 80, 24);
    tui_wait_for(&t, "the screen is drawn again");
    tui_row(&t, 23, row, sizeof row);
    expect_in(row, "running...", row);
    tui_keys(&t, "C-c");
    tui_wait_for(&t, "interrupted: line 3,");
    tui_row(&t, 23, row, sizeof row);
    expect_in(row, "s step  n next", row);
    tui_keys(&t, "q");
    int status = tui_status(&t, 3000);
    tui_end(&t);
    temp_kernel_remove(&k);
    assert_int_equal(status, 0);
}

/* At 80x24 the screen takes every row above the key bar: the newest message is on the row
 * right above it (timed: after a step, the run's outcome after finish); a command that says
 * more than the messages pane holds says how many of its lines are not shown. */
static void test_newest_message_at_80x24(void **state)
{
    (void)state;
    Tui t;
    char row[512];
    tui_start(&t, 80, 24, "", "debug kernels/basics/vector_add.yaml");
    tui_wait_for(&t, "at the start: line ");
    tui_keys(&t, "s");
    tui_wait_for(&t, "stepped: line ");
    tui_row(&t, 22, row, sizeof row);
    expect_in(row, "timed: issues at cycle 1 on core 0", row);
    tui_row(&t, 23, row, sizeof row);
    expect_in(row, "s step  n next", row);
    tui_keys(&t, "f");
    tui_wait_for(&t, "finished: ");
    tui_row(&t, 22, row, sizeof row);
    expect_in(row, "expect c    ok (1000 elements)", row);
    tui_keys(&t, "q");
    assert_int_equal(tui_status(&t, 3000), 0);
    tui_end(&t);

    /* reduce_threadgroup: 8 SIMD-groups a threadgroup, `groups` says 9 lines */
    tui_start(&t, 80, 24, "", "debug kernels/reduce/reduce_threadgroup.yaml --mode functional");
    tui_wait_for(&t, "at the start: line ");
    tui_keys(&t, "g");
    tui_wait_for(&t, "earlier lines not shown");
    tui_row(&t, 22, row, sizeof row);
    expect_in(row, "sg 7 ", row);
    tui_keys(&t, "q");
    assert_int_equal(tui_status(&t, 3000), 0);
    tui_end(&t);
}

/* A terminal smaller than the screen needs says so, and shows the latest messages, where
 * the run is and some source; the keys still work, and help scrolls. */
static void test_small_terminal(void **state)
{
    (void)state;
    Tui t;
    char row[512];
    tui_start(&t, 40, 10, "", "debug kernels/basics/vector_add.yaml");
    tui_wait_for(&t, "40x10 too small, needs 60x24");
    tui_wait_for(&t, "at the start: line 21");
    tui_keys(&t, "s");
    tui_wait_for(&t, "stepped: line 23");
    tui_keys(&t, "f");
    tui_wait_for(&t, "finished: ");
    tui_row(&t, 8, row, sizeof row);
    expect_in(row, "expect c    ok", row);
    tui_keys(&t, "h");
    tui_wait_for(&t, "help (space: more; other keys: back)");
    tui_wait_for(&t, "run N");
    tui_keys(&t, "Space Space Space Space Space Space Space Space Space Space");
    tui_wait_for(&t, "shortened (s, n, b 24, p sum)");
    tui_keys(&t, "x");
    tui_wait_for(&t, "40x10 too small");
    tui_keys(&t, "q");
    assert_int_equal(tui_status(&t, 3000), 0);
    tui_end(&t);

    tui_start(&t, 80, 23, "", "debug kernels/basics/vector_add.yaml");
    tui_wait_for(&t, "terminal 80x23 is too small: lockstep debug needs at least 60x24");
    tui_row(&t, 21, row, sizeof row);
    expect_in(row, "timed: issues at cycle 0", row);
    tui_keys(&t, "q");
    assert_int_equal(tui_status(&t, 3000), 0);
    tui_end(&t);
}

/* A resize while a command line is typed redraws the screen and keeps the line; one while
 * help is shown keeps help. Escape and Ctrl-C cancel a command line. */
static void test_resize_and_prompt(void **state)
{
    (void)state;
    Tui t;
    char row[512];
    tui_start(&t, 100, 30, "", "debug kernels/basics/vector_add.yaml --mode functional");
    tui_wait_for(&t, "at the start: line 21");
    tui_keys(&t, "-l :pri");
    tui_resize(&t, 90, 28);
    tui_row(&t, 27, row, sizeof row);
    expect_in(row, ":pri", row);
    tui_keys(&t, "-l 'nt i'");
    tui_keys(&t, "Enter");
    tui_wait_for(&t, "i (uint, r1), lanes 0-31");
    char *screen = tui_screen(&t);
    if (strstr(screen, "stepped:")) /* n and l did not run as keys */
        fail_msg("a key of the command line ran:\n%s", screen);
    free(screen);

    tui_keys(&t, "h");
    tui_wait_for(&t, "keys and commands");
    tui_resize(&t, 100, 30);
    tui_wait_for(&t, "keys and commands");
    tui_keys(&t, "x");
    tui_wait_for(&t, "-- messages");

    /* Escape and Ctrl-C leave the line: nothing runs, and the keys are back */
    tui_keys(&t, "-l ':step 5'");
    tui_keys(&t, "Escape");
    tui_keys(&t, "-l ':step 7'");
    tui_keys(&t, "C-c");
    tui_row(&t, 29, row, sizeof row);
    expect_in(row, "s step  n next", row);
    tui_keys(&t, "s");
    tui_wait_for(&t, "stepped: line 23, pc 0x0004");
    screen = tui_screen(&t);
    if (strstr(screen, "step 5") || strstr(screen, "step 7") || strstr(screen, "^["))
        fail_msg("a cancelled command line ran or was typed into:\n%s", screen);
    free(screen);
    tui_keys(&t, "q");
    assert_int_equal(tui_status(&t, 3000), 0);
    tui_end(&t);
}

/* `p` opens the command line with `print ` typed: the user adds the name. */
static void test_p_prints(void **state)
{
    (void)state;
    Tui t;
    char row[512];
    tui_start(&t, 100, 30, "", "debug kernels/basics/vector_add.yaml --mode functional");
    tui_wait_for(&t, "at the start: line 21");
    tui_keys(&t, "p");
    tui_row(&t, 29, row, sizeof row);
    expect_in(row, ":print", row);
    tui_keys(&t, "-l i");
    tui_row(&t, 29, row, sizeof row);
    expect_in(row, ":print i", row);
    tui_keys(&t, "Enter");
    tui_wait_for(&t, "i (uint, r1), lanes 0-31");
    tui_keys(&t, "q");
    assert_int_equal(tui_status(&t, 3000), 0);
    tui_end(&t);
}

/* A kernel's first line has an em dash: drawn as it is in a UTF-8 locale, as one `?` (not
 * one a byte) in a locale that is not. */
static void test_utf8(void **state)
{
    (void)state;
    static const struct {
        const char *env, *want;
    } cases[] = {
        {"LC_ALL=C.UTF-8", "      1  // vector_add.metal \u2014 the \"hello world\""},
        {"LC_ALL=C", "      1  // vector_add.metal ? the \"hello world\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (i == 0 && test_run("locale -a | grep -qix 'C.UTF-8\\|C.utf8'", NULL) != 0)
            continue; /* no UTF-8 locale here */
        Tui t;
        tui_start(&t, 100, 60, cases[i].env, "debug kernels/basics/vector_add.yaml");
        tui_wait_for(&t, cases[i].want);
        tui_keys(&t, "q");
        assert_int_equal(tui_status(&t, 3000), 0);
        tui_end(&t);
    }
}

/* Enter and space on the main screen do nothing (no `no command on key` message); `>` stops
 * at the last whole window of lanes, 24-31. */
static void test_keys_that_do_nothing(void **state)
{
    (void)state;
    Tui t;
    tui_start(&t, 100, 30, "", "debug kernels/basics/vector_add.yaml --mode functional");
    tui_wait_for(&t, "at the start: line 21");
    tui_keys(&t, "Enter Space '>' '>' '>' '>' '>'");
    tui_wait_for(&t, "-- variables, lanes 24-31 ");
    char *screen = tui_screen(&t);
    if (strstr(screen, "no command on key"))
        fail_msg("Enter or space said something:\n%s", screen);
    free(screen);
    tui_keys(&t, "x");
    tui_wait_for(&t, "no command on key `x` (h: help)");
    tui_keys(&t, "q");
    assert_int_equal(tui_status(&t, 3000), 0);
    tui_end(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_q_stops_a_run),
        cmocka_unit_test(test_newest_message_at_80x24),
        cmocka_unit_test(test_small_terminal),
        cmocka_unit_test(test_resize_and_prompt),
        cmocka_unit_test(test_resize_while_running),
        cmocka_unit_test(test_p_prints),
        cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_keys_that_do_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
