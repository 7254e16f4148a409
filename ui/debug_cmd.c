/*
 * debug_cmd.c — `lockstep debug`: the debugger's commands, one table (name, shortest
 * abbreviation, keys, arguments, help, handler) that the script mode, the terminal's keys
 * and `help` all read, and the command line that picks the terminal or a script.
 *
 * A script is the tests' and the teachers' way in: one command per line, each echoed as
 * `(lockstep) COMMAND` with what it said, and `screen` prints the screen the terminal would
 * show. A bad command in a script is bad input (exit 2, naming the script's line); in the
 * terminal it is only a message.
 */
#include "debug.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef bool (*CmdFn)(UiDbgUi *ui, char **args, int nargs);

typedef struct CmdKey {
    int key;
    const char *line;       /* the command line the key runs; one ending in a space opens the
                             * command line with it, for the user to finish (`print `) */
} CmdKey;

typedef struct Cmd {
    const char *name;
    const char *abbrev;     /* shortest accepted prefix */
    CmdKey keys[2];
    const char *args;
    const char *help;
    CmdFn fn;
} Cmd;

static void say(UiDbgUi *ui, const char *fmt, ...) UTIL_PRINTF(2, 3);
static void say(UiDbgUi *ui, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ui_dbg_text_add(&ui->messages, "%s", buf);
}

/* N >= 1 from args[0], or 1 when none. */
static bool count_arg(UiDbgUi *ui, char **args, int nargs, uint64_t *n)
{
    *n = 1;
    if (nargs == 0)
        return true;
    char *end;
    unsigned long long v = strtoull(args[0], &end, 10);
    if (nargs > 1 || *end || end == args[0] || v == 0 || args[0][0] == '-') {
        say(ui, "expected a count of 1 or more, not `%s`", args[0]);
        return false;
    }
    *n = v;
    return true;
}

/* A decimal number, or 0x hex (never octal: `break 010` is line 10). */
static bool u32_arg(const char *s, uint32_t *out)
{
    char *end;
    if (!isdigit((unsigned char)*s))
        return false;
    bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    unsigned long long v = strtoull(s, &end, hex ? 16 : 10);
    if (*end || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* Adds what `print` writes to a stream as message lines. */
typedef void (*StreamPrinter)(FILE *out, const UiDbg *dbg);

static void add_printed(UiDbgUi *ui, StreamPrinter print)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return;
    print(f, ui->dbg);
    fclose(f);
    for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        ui_dbg_text_add(&ui->messages, "%s", line);
    }
    free(text);
}

/* The findings the run stopped after, as `lockstep check` prints them. */
static void print_new_findings(FILE *out, const UiDbg *dbg)
{
    uint32_t n;
    const CheckFinding *f = check_session_findings(dbg->checking->session, &n);
    for (uint32_t i = dbg->finding; i < dbg->finding + dbg->num_new && i < n; i++)
        ui_check_print_finding(out, dbg->program, dbg->launch->m->kernel_path, &f[i]);
}

/* The first fault the run stopped after, as `lockstep run` prints it, and how many more
 * (usually the instruction's other lanes). */
static void print_new_faults(FILE *out, const UiDbg *dbg)
{
    const SimResult *r = &dbg->result;
    if (dbg->fault < r->num_faults)
        ui_report_fault(out, dbg->program, &r->faults[dbg->fault]);
    else
        fprintf(out, "(past the first %u faults, which alone are kept in detail)\n", r->num_faults);
    if (dbg->num_new > 1)
        fprintf(out, "  (and %u more)\n", dbg->num_new - 1);
}

/* Who stored to the watched element, and what it holds now. */
static void print_watch_hit(FILE *out, const UiDbg *dbg)
{
    const UiDbgWatchHit *h = &dbg->watch_shown;
    const UiDbgBreak *w = &dbg->breaks[h->watch];
    char value[160] = "";
    if (h->whole)
        ui_dbg_format_element(w->type_name, h->value, w->bytes, value, sizeof value);
    const SimThreadId *t = &h->thread;
    int64_t index = isa_program_index_of_pc(dbg->program, h->pc);
    uint32_t line = index >= 0 ? ui_dbg_line_of(dbg->program, (uint32_t)index) : 0;
    char at[32] = "";
    if (line)
        snprintf(at, sizeof at, "line %u, ", line);
    fprintf(out, "%s %s %s by thread (%u,%u,%u) (threadgroup (%u,%u,%u), SIMD-group %u, "
                 "lane %u) at %spc 0x%04x\n",
            w->name, h->whole ? "=" : "partly", h->whole ? value : "written", t->grid[0],
            t->grid[1], t->grid[2], t->threadgroup[0], t->threadgroup[1], t->threadgroup[2],
            t->simdgroup, t->lane, at, h->pc);
}

/* At the end: the expectations and faults as `lockstep run` words them, or with --check
 * everything `lockstep check` says. */
static void print_outcome(FILE *out, const UiDbg *dbg)
{
    const UiBound *b = &dbg->launch->bound;
    for (uint32_t i = 0; i < b->num_args; i++)
        if (b->args[i].want)
            ui_report_expect(out, &b->args[i], b->device->buffers[b->args[i].buffer].data, false);
    if (dbg->checking) {
        ui_checking_print(out, dbg->checking, dbg->program, dbg->launch->m->kernel_path,
                          &dbg->result, false);
        return;
    }
    uint64_t budget = dbg->launch->sim.instruction_budget;
    ui_report_faults(out, dbg->program, &dbg->result, budget ? budget : SIM_DEFAULT_INSTRUCTION_BUDGET);
}

/* Says where the run stopped (and, at the end, how it went). */
static void report_stop(UiDbgUi *ui)
{
    UiDbg *dbg = ui->dbg;
    ui_dbg_where(dbg, &ui->messages);
    if (dbg->why == UI_DBG_WHY_FINDING && !dbg->finished)
        add_printed(ui, print_new_findings);
    if (dbg->why == UI_DBG_WHY_FAULT && !dbg->finished)
        add_printed(ui, print_new_faults);
    if (dbg->why == UI_DBG_WHY_WATCH && !dbg->finished)
        add_printed(ui, print_watch_hit);
    if (dbg->finished && dbg->dispatch_ok && !dbg->result.cancelled)
        add_printed(ui, print_outcome);
}

static bool resume(UiDbgUi *ui, UiDbgRun run, uint64_t count, const uint32_t *thread)
{
    if (ui->dbg->finished) {
        say(ui, "%s", "the run is over (quit, or look at the buffers with print)");
        return true;
    }
    ui_dbg_resume(ui->dbg, run, count, thread);
    report_stop(ui);
    return true;
}

static bool cmd_step(UiDbgUi *ui, char **args, int nargs)
{
    uint64_t n;
    return count_arg(ui, args, nargs, &n) && resume(ui, UI_DBG_STEP, n, NULL);
}

static bool cmd_next(UiDbgUi *ui, char **args, int nargs)
{
    uint64_t n;
    return count_arg(ui, args, nargs, &n) && resume(ui, UI_DBG_NEXT, n, NULL);
}

static bool cmd_line(UiDbgUi *ui, char **args, int nargs)
{
    (void)args;
    if (nargs) {
        say(ui, "%s", "line takes no arguments");
        return false;
    }
    return resume(ui, UI_DBG_LINE, 1, NULL);
}

static bool cmd_continue(UiDbgUi *ui, char **args, int nargs)
{
    (void)args;
    (void)nargs;
    return resume(ui, UI_DBG_CONTINUE, 1, NULL);
}

static bool cmd_finish(UiDbgUi *ui, char **args, int nargs)
{
    (void)args;
    (void)nargs;
    return resume(ui, UI_DBG_END, 1, NULL);
}

static bool cmd_thread(UiDbgUi *ui, char **args, int nargs)
{
    uint32_t t[3] = {0, 0, 0};
    if (nargs < 1 || nargs > 3) {
        say(ui, "%s", "thread needs a grid position: X [Y [Z]]");
        return false;
    }
    for (int k = 0; k < nargs; k++)
        if (!u32_arg(args[k], &t[k])) {
            say(ui, "expected a thread position in the grid, not `%s`", args[k]);
            return false;
        }
    const SimLaunch *L = &ui->dbg->launch->sim;
    for (int k = 0; k < 3; k++) {
        uint64_t size = L->by_threadgroups ? (uint64_t)L->grid[k] * L->threadgroup[k] : L->grid[k];
        if (t[k] >= size) {
            say(ui, "the grid has %llu threads along %c; thread %u is past it",
                (unsigned long long)size, "xyz"[k], t[k]);
            return false;
        }
    }
    return resume(ui, UI_DBG_THREAD, 1, t);
}

static bool cmd_break(UiDbgUi *ui, char **args, int nargs)
{
    char why[200];
    uint32_t v;
    if (nargs != 1) {
        say(ui, "%s", "break needs a source line (break 24) or an instruction (break *5)");
        return false;
    }
    bool at_index = args[0][0] == '*';
    if (!u32_arg(args[0] + at_index, &v)) {
        say(ui, "expected a line number or *INSTRUCTION, not `%s`", args[0]);
        return false;
    }
    UiDbg *dbg = ui->dbg;
    uint32_t line = v;
    if (!(at_index ? ui_dbg_break_index(dbg, v, why, sizeof why)
                   : ui_dbg_break_line(dbg, v, &line, why, sizeof why))) {
        say(ui, "%s", why);
        return false;
    }
    if (line != v)
        say(ui, "breakpoint %u at line %u (line %u has no instruction of its own: a comment, "
            "a declaration, or code whose results nothing uses)", dbg->num_breaks, line, v);
    else
        say(ui, "breakpoint %u at %s %u", dbg->num_breaks, at_index ? "instruction" : "line", v);
    return true;
}

static bool cmd_watch(UiDbgUi *ui, char **args, int nargs)
{
    char why[200];
    if (nargs != 1) {
        say(ui, "%s", "watch needs one element: watch out[5], watch scratch[3]");
        return false;
    }
    if (!ui_dbg_watch(ui->dbg, args[0], why, sizeof why)) {
        say(ui, "%s", why);
        return false;
    }
    say(ui, "breakpoint %u: watch %s (stops after each store or atomic to it)",
        ui->dbg->num_breaks, args[0]);
    return true;
}

static bool cmd_delete(UiDbgUi *ui, char **args, int nargs)
{
    uint32_t n;
    if (nargs != 1 || !u32_arg(args[0], &n) || !ui_dbg_delete(ui->dbg, n)) {
        say(ui, "%s", "delete needs the number of a breakpoint (`breaks` lists them)");
        return false;
    }
    say(ui, "deleted breakpoint %s", args[0]);
    return true;
}

static bool cmd_breaks(UiDbgUi *ui, char **args, int nargs)
{
    (void)args;
    (void)nargs;
    UiDbg *dbg = ui->dbg;
    if (!dbg->num_breaks)
        say(ui, "%s", "no breakpoints");
    for (uint32_t b = 0; b < dbg->num_breaks; b++) {
        const UiDbgBreak *bp = &dbg->breaks[b];
        if (bp->kind == UI_DBG_BREAK_WATCH)
            say(ui, "%u: watch %s, hit %llu times", b + 1, bp->name, (unsigned long long)bp->hits);
        else
            say(ui, "%u: %s %u, hit %llu times", b + 1,
                bp->kind == UI_DBG_BREAK_LINE ? "line" : "instruction",
                bp->kind == UI_DBG_BREAK_LINE ? bp->line : bp->index, (unsigned long long)bp->hits);
    }
    return true;
}

static bool cmd_print(UiDbgUi *ui, char **args, int nargs)
{
    if (nargs != 1) {
        say(ui, "%s", "print needs one thing to show: a variable, register, buffer or array");
        return false;
    }
    return ui_dbg_print(ui->dbg, args[0], &ui->messages);
}

static bool cmd_mem(UiDbgUi *ui, char **args, int nargs)
{
    (void)args;
    (void)nargs;
    if (ui->dbg->finished) {
        say(ui, "%s", "the run is over");
        return true;
    }
    if (!ui_dbg_access(ui->dbg, true, &ui->messages))
        say(ui, "%s", "this SIMD-group has made no memory access in this threadgroup yet");
    return true;
}

static bool cmd_groups(UiDbgUi *ui, char **args, int nargs)
{
    (void)args;
    (void)nargs;
    if (ui->dbg->finished)
        say(ui, "%s", "the run is over");
    else
        ui_dbg_groups(ui->dbg, &ui->messages);
    return true;
}

static bool cmd_lanes(UiDbgUi *ui, char **args, int nargs)
{
    uint32_t lanes = ui->dbg->sg ? ui->dbg->sg->lanes : SIM_SIMD_WIDTH;
    if (nargs != 1) {
        say(ui, "%s", "lanes needs the first lane to show (0 to 31, or +8 / -8)");
        return false;
    }
    int64_t first;
    const char *a = args[0];
    uint32_t v;
    if ((a[0] == '+' || a[0] == '-') && u32_arg(a + 1, &v))
        first = (int64_t)ui->first_lane + (a[0] == '+' ? (int64_t)v : -(int64_t)v);
    else if (u32_arg(a, &v))
        first = v;
    else {
        say(ui, "expected a lane number, not `%s`", a);
        return false;
    }
    /* a whole window of 8: `lanes 99` and `>` at 24 show 24-31 */
    int64_t most = lanes > 8 ? lanes - 8 : 0;
    first = first < 0 ? 0 : first > most ? most : first;
    ui->first_lane = (uint32_t)first;
    return true;
}

static bool cmd_where(UiDbgUi *ui, char **args, int nargs)
{
    (void)args;
    (void)nargs;
    ui_dbg_where(ui->dbg, &ui->messages);
    return true;
}

static bool cmd_screen(UiDbgUi *ui, char **args, int nargs)
{
    (void)args;
    (void)nargs;
    ui->want_screen = true;
    return true;
}

static bool cmd_help(UiDbgUi *ui, char **args, int nargs)
{
    (void)args;
    (void)nargs;
    ui_dbg_help(&ui->messages);
    return true;
}

static bool cmd_quit(UiDbgUi *ui, char **args, int nargs)
{
    (void)args;
    (void)nargs;
    ui->quit = true;
    return true;
}

static const Cmd COMMANDS[] = {
    {"step", "s", {{'s', "step"}}, "[N]",
     "run N instructions (1) of any SIMD-group, in the simulator's order", cmd_step},
    {"next", "n", {{'n', "next"}}, "[N]", "run N instructions of the SIMD-group shown", cmd_next},
    {"line", "l", {{'l', "line"}}, "", "run the SIMD-group shown to its next source line", cmd_line},
    {"continue", "c", {{'c', "continue"}}, "", "run to the next breakpoint or the end", cmd_continue},
    {"finish", "f", {{'f', "finish"}}, "", "run to the end, past any breakpoint", cmd_finish},
    {"thread", "t", {{0}}, "X [Y [Z]]",
     "run until the SIMD-group of grid thread (X,Y,Z) issues; single out its lane", cmd_thread},
    {"break", "b", {{0}}, "LINE|*INSTR",
     "stop where a SIMD-group enters source line LINE, or at instruction INSTR", cmd_break},
    {"watch", "wa", {{0}}, "NAME[I]",
     "stop after each store or atomic to element I of a buffer or threadgroup array", cmd_watch},
    {"delete", "d", {{0}}, "N", "delete breakpoint N", cmd_delete},
    {"breaks", "breaks", {{0}}, "", "list the breakpoints and their hits", cmd_breaks},
    {"print", "p", {{'p', "print "}}, "WHAT",
     "a variable's value in every lane, a register (r5, r5l), a buffer or array (out, out[3])",
     cmd_print},
    {"mem", "m", {{'m', "mem"}}, "",
     "the SIMD-group's latest memory access: each lane's element, cache lines or bank cycles",
     cmd_mem},
    {"groups", "g", {{'g', "groups"}}, "",
     "every SIMD-group of the threadgroup: where it is, and if it waits at a barrier or ended",
     cmd_groups},
    {"lanes", "la", {{'>', "lanes +8"}, {'<', "lanes -8"}}, "N|+N|-N",
     "the variables pane shows lanes N to N+7", cmd_lanes},
    {"where", "w", {{0}}, "", "where the run is stopped", cmd_where},
    {"screen", "screen", {{0}}, "", "print the screen (scripts; the terminal always shows it)",
     cmd_screen},
    {"help", "h", {{'h', "help"}, {'?', "help"}}, "", "this list", cmd_help},
    {"quit", "q", {{'q', "quit"}}, "", "stop the run and leave", cmd_quit},
};
enum { NUM_COMMANDS = sizeof COMMANDS / sizeof COMMANDS[0] };

/* The command `word` names: its name, or a prefix of it at least as long as its abbrev. */
static const Cmd *find_command(const char *word)
{
    size_t n = strlen(word);
    for (int i = 0; i < NUM_COMMANDS; i++) {
        const Cmd *c = &COMMANDS[i];
        if (n >= strlen(c->abbrev) && n <= strlen(c->name) && strncmp(c->name, word, n) == 0)
            return c;
    }
    return NULL;
}

bool ui_dbg_command(UiDbgUi *ui, const char *line)
{
    char copy[512];
    snprintf(copy, sizeof copy, "%s", line);
    char *args[8];
    int nargs = 0;
    for (char *tok = strtok(copy, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
        if (nargs == 8) {
            say(ui, "%s", "too many arguments");
            return false;
        }
        args[nargs++] = tok;
    }
    if (nargs == 0)
        return true;
    ui->output_from = ui->messages.count;
    const Cmd *c = find_command(args[0]);
    if (!c) {
        say(ui, "unknown command `%s` (help lists them)", args[0]);
        return false;
    }
    return c->fn(ui, args + 1, nargs - 1);
}

void ui_dbg_help(UiDbgText *out)
{
    for (int i = 0; i < NUM_COMMANDS; i++) {
        const Cmd *c = &COMMANDS[i];
        char keys[16] = "";
        for (int k = 0; k < 2 && c->keys[k].key; k++) {
            size_t len = strlen(keys);
            snprintf(keys + len, sizeof keys - len, "%s%c", k ? " " : "", c->keys[k].key);
        }
        char usage[40];
        snprintf(usage, sizeof usage, "%s %s", c->name, c->args);
        ui_dbg_text_add(out, "  %-5s %-22s %s", keys, usage, c->help);
    }
    ui_dbg_text_add(out, "  :     (a command line)       any command above; commands may be "
                    "shortened (s, n, b 24, p sum)");
}

const char *ui_dbg_key_command(int key)
{
    for (int i = 0; i < NUM_COMMANDS; i++)
        for (int k = 0; k < 2; k++)
            if (COMMANDS[i].keys[k].key && COMMANDS[i].keys[k].key == key)
                return COMMANDS[i].keys[k].line;
    return NULL;
}

/* ---- lockstep debug ------------------------------------------------------------------------------ */

void ui_debug_usage(FILE *out)
{
    fputs("usage: lockstep debug LAUNCH.yaml [options]\n"
          "\n"
          "Runs the dispatch a launch manifest describes one instruction at a time, in the\n"
          "terminal: the source line and the instruction each SIMD-group is at, which of its 32\n"
          "lanes are active (the exec mask and each lane's nesting counter), and the value every\n"
          "live variable holds in every lane. It stops before the first instruction; `s` steps,\n"
          "`n` steps the SIMD-group shown, `l` runs it to the next source line, `c` runs to a\n"
          "breakpoint (`:break 24`), `p` prints, `h` lists every command, `q` quits.\n"
          "The run stepped through is functional: the same order and results as `lockstep run\n"
          "--mode functional`; in timed mode each stop also shows its cycle in the timed run.\n"
          "\n"
          "options:\n"
          "  --script FILE      run the commands in FILE (- for stdin), one per line, instead of\n"
          "                     the terminal; each is echoed as `(lockstep) COMMAND` with what it\n"
          "                     says, and `screen` prints the screen. # starts a comment\n"
          "  --size COLSxROWS   the screen `screen` prints (default 100x40)\n"
          "  --check            run every bug finder of `lockstep check` too, and stop right\n"
          "                     after each instruction that makes a new finding (a race, a\n"
          "                     divergent barrier, ...), showing it; at the end, all of them\n"
          "  --mode functional|timed  timed (the default, as for `lockstep run`) also runs the\n"
          "                     launch timed first, and shows at each stop the cycle `lockstep\n"
          "                     run` issues that instruction at; functional skips that run\n"
          "  --gpu NAME|CONFIG.yaml    the GPU whose cycles are shown (default m1)\n"
          "  --budget N         stop the kernel after N SIMD-group instructions\n"
          "  -h, --help         show this help\n"
          "\n"
          "exit status: 0 success; 1 the run, taken to its end, faulted, ran out of budget or\n"
          "(--check) made an error finding; 2 bad input (usage, manifest, kernel, data, a bad\n"
          "command in a script)\n",
          out);
}

#define usage_error(...) ui_usage_error("debug", ui_debug_usage, __VA_ARGS__)

static void flush_messages(UiDbgUi *ui, uint32_t *printed)
{
    for (; *printed < ui->messages.count; (*printed)++)
        printf("%s\n", ui->messages.lines[*printed]);
}

enum { SCRIPT_LINE_MAX = 4096 };

/* Reads one line of a script into line (without its end), bounded: false at the end of the
 * file; *why is set, and the rest of the line left, for a NUL byte or a line past
 * SCRIPT_LINE_MAX bytes (a device such as /dev/zero ends here, not in memory). */
static bool read_script_line(FILE *f, char *line, const char **why)
{
    size_t n = 0;
    int c;
    *why = NULL;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (c == '\r') /* a CRLF line end, or a stray one: not part of any command */
            continue;
        if (c == '\0')
            *why = "a NUL byte in the line";
        else if (n == SCRIPT_LINE_MAX)
            *why = "the line is longer than 4096 bytes";
        if (*why)
            return true;
        line[n++] = (char)c;
    }
    line[n] = '\0';
    return c != EOF || n > 0;
}

/* The script mode: returns the exit status. */
static int run_script(UiDbgUi *ui, const char *path)
{
    struct stat st;
    if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: error: expected a file (a debug script), not a directory\n", path);
        return UI_EXIT_BAD_INPUT;
    }
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!f) {
        fprintf(stderr, "lockstep debug: error: cannot open script %s: %s\n", path, strerror(errno));
        return UI_EXIT_BAD_INPUT;
    }
    const char *name = f == stdin ? "<stdin>" : path;
    char line[SCRIPT_LINE_MAX + 1];
    const char *why;
    uint32_t printed = 0, lineno = 0;
    int status = UI_EXIT_OK;
    report_stop(ui);
    flush_messages(ui, &printed);
    while (!ui->quit && read_script_line(f, line, &why)) {
        lineno++;
        if (why) {
            fflush(stdout);
            fprintf(stderr, "%s:%u: error: %s\n", name, lineno, why);
            status = UI_EXIT_BAD_INPUT;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *cmd = line;
        while (isspace((unsigned char)*cmd))
            cmd++;
        for (size_t n = strlen(cmd); n && isspace((unsigned char)cmd[n - 1]); n--)
            cmd[n - 1] = '\0';
        if (!*cmd)
            continue;
        printf("(lockstep) %s\n", cmd);
        bool ok = ui_dbg_command(ui, cmd);
        flush_messages(ui, &printed);
        if (!ok) {
            fflush(stdout);
            fprintf(stderr, "%s:%u: error: %s\n", name, lineno,
                    ui->messages.count ? ui->messages.lines[ui->messages.count - 1] : cmd);
            status = UI_EXIT_BAD_INPUT;
            break;
        }
        if (ui->want_screen) {
            UiDbgText screen = {0};
            ui_dbg_screen(ui->dbg, ui->cols, ui->rows, ui->first_lane, &ui->messages, 4, &screen);
            for (uint32_t i = 0; i < screen.count; i++)
                printf("%s\n", screen.lines[i]);
            ui_dbg_text_free(&screen);
            ui->want_screen = false;
        }
    }
    if (f != stdin)
        fclose(f);
    fflush(stdout);
    return status;
}

/* A run taken to its end that faulted, ran out of budget or (with --check) made an error
 * finding. */
static bool found_problems(const UiDbg *dbg)
{
    if (dbg->result.total_faults || dbg->result.budget_exceeded)
        return true;
    uint32_t n = 0;
    const CheckFinding *f = dbg->checking ? check_session_findings(dbg->checking->session, &n)
                                          : NULL;
    for (uint32_t i = 0; i < n; i++)
        if (f[i].severity == CHECK_ERROR)
            return true;
    return false;
}

int ui_cmd_debug(int argc, char **argv)
{
    const char *manifest = NULL, *script = NULL;
    bool check = false;
    UiDbgUi ui = {.cols = 100, .rows = 40};
    UiLaunchFlags flags = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            ui_debug_usage(stdout);
            return UI_EXIT_OK;
        }
        if (strcmp(a, "--script") == 0 || strcmp(a, "--size") == 0) {
            if (i + 1 >= argc)
                return usage_error("%s", a[3] == 'c' ? "--script needs a file (or -)"
                                                     : "--size needs COLSxROWS");
            const char *v = argv[++i];
            if (a[3] == 'c') {
                script = v;
                continue;
            }
            unsigned cols, rows;
            char end;
            if (sscanf(v, "%ux%u%c", &cols, &rows, &end) != 2 || cols < 60 || rows < 24 ||
                cols > 400 || rows > 1000)
                return usage_error("expected --size COLSxROWS, at least 60x24 and at most "
                                   "400x1000, not %s", v);
            ui.cols = cols;
            ui.rows = rows;
            continue;
        }
        if (strcmp(a, "--check") == 0) {
            check = true;
            continue;
        }
        char why[160];
        int took = ui_launch_flag(argc, argv, &i, &flags, why, sizeof why);
        if (took < 0)
            return usage_error("%s", why);
        if (took) {
            if (flags.stats != UI_STATS_OFF)
                return usage_error("--stats is `lockstep run`'s; the debugger shows cycles at "
                                   "each stop");
            continue;
        }
        if (a[0] == '-' && a[1] != '\0')
            return usage_error("unknown option %s", a);
        if (manifest)
            return usage_error("unexpected argument (one manifest at a time): %s", a);
        manifest = a;
    }
    if (!manifest)
        return usage_error("expected a launch manifest (LAUNCH.yaml)");
    if (!script && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
        fprintf(stderr, "lockstep debug: error: the debugger needs a terminal; without one, "
                        "give it commands with --script FILE\n");
        return UI_EXIT_BAD_INPUT;
    }
    UtilError err;
    UiLaunch L;
    if (!ui_launch_open(&L, "lockstep debug", manifest, &flags, &err)) {
        ui_launch_close(&L);
        return ui_bad_input(&err);
    }
    UiChecking checking = {0};
    if (check) {
        CheckOptions opts = check_options_all();
        ui_checking_start(&checking, L.program, &L.bound, &opts, &L.sim);
    }
    UiDbgTiming timing = {0};
    if (L.sim.mode == SIM_MODE_TIMED && !ui_dbg_timing_run(&timing, &L, &err)) {
        ui_launch_close(&L);
        return ui_bad_input(&err);
    }
    UiDbg dbg;
    ui_dbg_start(&dbg, &L, check ? &checking : NULL);
    dbg.timing = timing.on ? &timing : NULL;
    ui.dbg = &dbg;
    int status = script ? run_script(&ui, script) : ui_dbg_tui(&ui);
    if (status == UI_EXIT_OK && dbg.finished && found_problems(&dbg))
        status = UI_EXIT_FINDING; /* as `lockstep run` and `lockstep check` say it */
    ui_dbg_end(&dbg);
    ui_dbg_timing_free(&timing);
    if (check)
        ui_checking_end(&checking);
    ui_dbg_text_free(&ui.messages);
    ui_launch_close(&L);
    return status;
}
