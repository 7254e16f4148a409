/*
 * debug.h — the debugger's parts, inside ui/: a session that runs a launch on a thread of its
 * own and holds it still where the user asked (debug_session.c), the cycles of a timed run
 * of the same launch to show beside it (debug_timing.c), what it shows, drawn as lines of
 * text (debug_view.c, and the screen: debug_screen.c), the commands, one table for the
 * script and the keys (debug_cmd.c), and the curses front end (debug_tui.c, the only file
 * that includes curses).
 *
 * Stopped means: the simulator's thread waits inside the observer's inst_issued, before the
 * instruction at the stop runs, so everything the SimGroupView points to (registers, the
 * threadgroup's memory) and the device buffers hold still and may be read from the user's
 * thread until the next resume.
 */
#ifndef LOCKSTEP_UI_DEBUG_H
#define LOCKSTEP_UI_DEBUG_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ui.h"

#define UI_DBG_MAX_BREAKS 32

/* How far a resume runs. */
typedef enum UiDbgRun {
    UI_DBG_STEP,      /* `count` instructions of any SIMD-group (the simulator's order) */
    UI_DBG_NEXT,      /* `count` instructions of the SIMD-group stopped at */
    UI_DBG_LINE,      /* until that SIMD-group reaches another source line */
    UI_DBG_CONTINUE,  /* until a breakpoint */
    UI_DBG_THREAD,    /* until the SIMD-group of grid thread `thread` issues */
    UI_DBG_END,       /* to the end, ignoring breakpoints */
} UiDbgRun;

/* Why the run is stopped. */
typedef enum UiDbgWhy {
    UI_DBG_WHY_START,       /* before the first instruction */
    UI_DBG_WHY_STEPPED,     /* a step, next or line finished */
    UI_DBG_WHY_BREAKPOINT,
    UI_DBG_WHY_THREAD,
    UI_DBG_WHY_INTERRUPTED, /* Ctrl-C in the terminal */
    UI_DBG_WHY_FINDING,     /* a check reported something new (the instruction before) */
    UI_DBG_WHY_FAULT,       /* the instruction before faulted (out of bounds, ...) */
    UI_DBG_WHY_WATCH,       /* the instruction before stored to a watched element */
    UI_DBG_WHY_FINISHED,    /* the dispatch is over (nothing to look at but buffers) */
} UiDbgWhy;

typedef enum UiDbgBreakKind {
    UI_DBG_BREAK_LINE,      /* where a SIMD-group enters a source line */
    UI_DBG_BREAK_INDEX,     /* at an instruction */
    UI_DBG_BREAK_WATCH,     /* after a store or atomic to a buffer or threadgroup element */
} UiDbgBreakKind;

typedef struct UiDbgBreak {
    UiDbgBreakKind kind;
    uint32_t line;          /* LINE: a source line of the kernel's file */
    uint32_t index;         /* INDEX: the instruction */
    /* WATCH: what is watched: a device address, or an offset in each threadgroup's memory */
    char name[64];          /* as the user wrote it: `out[5]` */
    MemSpace space;
    uint64_t addr;
    uint32_t bytes;
    char type_name[32];
    uint64_t hits;
} UiDbgBreak;

/* A store that hit a watchpoint: who, where, and what the watched bytes became. */
typedef struct UiDbgWatchHit {
    int watch;              /* index in breaks; -1: none */
    SimThreadId thread;
    uint32_t pc;
    bool whole;             /* the store covered the watched element: value is valid */
    uint8_t value[16];
} UiDbgWatchHit;

/* The issues of a timed run, per SIMD-group and instruction (debug_timing.c). */
typedef struct UiDbgIssue {
    uint64_t cycle;         /* core << 52 | cycle */
    uint64_t ready;         /* reason << 60 | the cycle it could have issued (SimIssueEvent) */
} UiDbgIssue;

typedef struct UiDbgIssues {
    UiDbgIssue *issues;     /* per instruction it issued, in order */
    uint32_t n, cap;
} UiDbgIssues;

typedef struct UiDbgTiming {
    bool on;                /* recorded */
    char why[160];          /* when not: why */
    uint32_t groups_per_tg;
    uint64_t num_groups;
    UiDbgIssues *groups;    /* [threadgroup * groups_per_tg + simdgroup] */
    uint64_t recorded, dropped;
    uint64_t cycles;        /* the run's total */
    bool cut;               /* stopped early: later instructions have no cycle */
    double clock_mhz;
} UiDbgTiming;

/* Runs the launch timed, unobserved, on a copy of its buffers, noting every issue's cycle.
 * False with err when the launch is refused. */
bool ui_dbg_timing_run(UiDbgTiming *t, const UiLaunch *L, UtilError *err);
/* The k-th instruction (from 0) of a SIMD-group in the timed run: its cycle and core, the
 * cycles since the SIMD-group's instruction before, and of those how many it waited for
 * its operands, loads or a barrier (*waited, on *reason) rather than for its turn. False
 * when not recorded. */
typedef struct UiDbgIssueTime {
    uint64_t cycle, since, waited;
    uint32_t core;
    SimStall reason;
} UiDbgIssueTime;
bool ui_dbg_timing_at(const UiDbgTiming *t, uint64_t threadgroup, uint32_t simdgroup,
                      uint64_t k, UiDbgIssueTime *out);
void ui_dbg_timing_free(UiDbgTiming *t);

typedef struct UiDbg {
    UiLaunch *launch;
    const IsaProgram *program;
    pthread_t thread;
    bool started;
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    bool sim_turn;          /* the simulator's thread runs; else the user's */
    _Atomic bool cancel;
    _Atomic bool interrupt; /* set by a signal handler: stop at the next instruction */
    /* while a resume runs, the user's thread calls poll(poll_ctx) every few hundredths of a
     * second, with nothing locked (the terminal reads its keys: q and Ctrl-C stop the run,
     * with ui_dbg_interrupt); NULL: it only waits */
    void (*poll)(void *ctx);
    void *poll_ctx;

    /* what the current resume asked for (read by the simulator's thread) */
    UiDbgRun run;
    uint64_t count;
    uint64_t from_tg;       /* the SIMD-group stopped at, for NEXT and LINE */
    uint32_t from_sg;
    uint32_t from_line;
    bool from_ended;        /* its threadgroup ended: NEXT and LINE stop at anything */
    uint32_t target[3];     /* THREAD: the grid position */

    UiDbgBreak breaks[UI_DBG_MAX_BREAKS];
    uint32_t num_breaks;
    /* per SIMD-group of the running threadgroup: the line and instruction it issued last */
    uint32_t last_line[SIM_MAX_THREADS_PER_THREADGROUP / SIM_SIMD_WIDTH];
    uint32_t last_index[SIM_MAX_THREADS_PER_THREADGROUP / SIM_SIMD_WIDTH];

    /* where it stopped (valid while stopped) */
    UiDbgWhy why;
    int breakpoint;         /* index in breaks, for UI_DBG_WHY_BREAKPOINT */
    const SimGroupView *sg; /* NULL when finished */
    const IsaInst *inst;
    uint32_t index;         /* instruction index of inst */
    uint64_t issued;        /* instructions issued so far, over every SIMD-group */
    uint32_t focus_lane;    /* the lane the views single out */

    /* with --check: the checkers watching the run, and how many findings were shown */
    UiChecking *checking;
    uint32_t findings_seen;
    uint32_t finding;       /* for UI_DBG_WHY_FINDING: the new findings' indices in the */
    uint32_t num_new;       /* session's: [finding, finding + num_new) */

    /* watchpoints: the hit the simulator's thread saw (pending, until the next instruction
     * stops there) and the one shown */
    uint32_t num_watches;
    UiDbgWatchHit watch_pending, watch_shown;

    /* per SIMD-group of the running threadgroup: its latest memory access (for `mem` and
     * the screen), and whether it has made one in this threadgroup */
    SimMemAccess last_access[SIM_MAX_THREADS_PER_THREADGROUP / SIM_SIMD_WIDTH];
    bool has_access[SIM_MAX_THREADS_PER_THREADGROUP / SIM_SIMD_WIDTH];

    /* per SIMD-group of the running threadgroup, for `groups`: instructions issued, the
     * latest one's index, and the barrier it waits at (-1: none) */
    struct UiDbgGroup {
        uint64_t issued;
        uint32_t last;
        int32_t barrier;
    } groups[SIM_MAX_THREADS_PER_THREADGROUP / SIM_SIMD_WIDTH];
    uint32_t num_groups;    /* of the running threadgroup */

    /* faults so far, and for UI_DBG_WHY_FAULT the new ones: [fault, fault + num_new) */
    uint64_t faults_seen;
    uint64_t fault;
    /* the instruction issued last (the one whose faults the next issue finds), and with
     * --check, per instruction whether its faults stopped the run (the finding they make
     * stops it once, as other findings do) */
    uint32_t prev_index;
    bool *fault_stopped;

    /* when the launch is timed: the cycles of its timed run (NULL: functional) */
    const UiDbgTiming *timing;

    /* the kernel's source file, by line (lines[0] is line 1) */
    char *source;
    char **lines;
    uint32_t num_lines;

    /* once finished */
    bool finished;
    bool dispatch_ok;
    UtilError error;
    SimResult result;
} UiDbg;

/* ---- session (debug_session.c) --------------------------------------------------------------- */

/* Starts the launch (in functional mode) on a thread of its own and waits until it stops
 * before its first instruction (or, for an empty grid, is finished). With `checking` (made
 * by ui_checking_start on the launch, which this finishes after the run), every resume also
 * stops after an instruction that made a new finding. */
void ui_dbg_start(UiDbg *dbg, UiLaunch *launch, UiChecking *checking);
/* Runs on as `run` says (count for STEP and NEXT, x y z for THREAD); returns when stopped or
 * finished, calling dbg->poll meanwhile. */
void ui_dbg_resume(UiDbg *dbg, UiDbgRun run, uint64_t count, const uint32_t thread[3]);
/* Asks a running resume to stop at the next instruction (async-signal-safe). */
void ui_dbg_interrupt(UiDbg *dbg);
/* Stops the run where it is (unfinished runs are cancelled) and frees what it holds. */
void ui_dbg_end(UiDbg *dbg);

/* Breakpoints: false with a reason in why when there is no code at the line or index. A
 * line without code puts the breakpoint on the next line with some: *placed says which. */
bool ui_dbg_break_line(UiDbg *dbg, uint32_t line, uint32_t *placed, char *why, size_t size);
bool ui_dbg_break_index(UiDbg *dbg, uint32_t index, char *why, size_t size);
/* A watchpoint on one element (`out[5]`, `scratch[3]`): false with a reason in why. */
bool ui_dbg_watch(UiDbg *dbg, const char *what, char *why, size_t size);
bool ui_dbg_delete(UiDbg *dbg, uint32_t number);

/* The kernel's source line of an instruction (0: none known, or another file's). */
uint32_t ui_dbg_line_of(const IsaProgram *p, uint32_t index);

/* ---- what is shown (debug_view.c; the screen, debug_screen.c) ------------------------------ */

/* Lines of text a command or a screen writes into; the script mode prints them, curses draws
 * them. */
typedef struct UiDbgText {
    char **lines;
    uint32_t count, capacity;
} UiDbgText;

void ui_dbg_text_add(UiDbgText *t, const char *fmt, ...) UTIL_PRINTF(2, 3);
void ui_dbg_text_clear(UiDbgText *t);
void ui_dbg_text_free(UiDbgText *t);

/* Text is UTF-8. One character of s: its code point in *c and its length in bytes; 0 when
 * the bytes there are no UTF-8 character. */
size_t ui_dbg_utf8(const char *s, uint32_t *c);
/* The columns the character at s takes (a malformed byte: one, as its `?`), its bytes in
 * *bytes. */
uint32_t ui_dbg_char_width(const char *s, size_t *bytes);
/* How many bytes of s fill at most `cols` columns. */
size_t ui_dbg_text_bytes(const char *s, uint32_t cols);

/* The smallest screen that has every pane (the terminal has a row more, for the keys). */
#define UI_DBG_MIN_COLS 60
#define UI_DBG_MIN_ROWS 23

/* The whole screen, cols x rows lines: where it stopped, the source and assembly around it,
 * the lanes (exec mask and nesting depth), the live variables of lanes [first_lane,
 * first_lane + 8) and, at the bottom, the last lines of `messages` (msg_rows: how many the
 * last command said; the pane grows to show them, up to a third of the rows). Below
 * UI_DBG_MIN_ROWS rows, the latest messages, where it stopped and the source only. */
void ui_dbg_screen(const UiDbg *dbg, uint32_t cols, uint32_t rows, uint32_t first_lane,
                   const UiDbgText *messages, uint32_t msg_rows, UiDbgText *out);
/* Lane `lane`'s value of a register operand (R16 index = register * 2 + half), formatted as
 * `type` ("float", "uint", ... or NULL for hex). With `fit` > 0 (the screen's columns) a
 * float longer than fit characters gets fewer significant digits, and hex loses its leading
 * zeros when they do not fit; integers keep every digit (the screen cuts what still does
 * not fit, and marks it). */
void ui_dbg_format_reg(const SimGroupView *sg, IsaOperandKind kind, uint32_t index,
                       const char *type, uint32_t lane, uint32_t fit, char *buf, size_t size);
bool ui_dbg_lane_active(const SimGroupView *sg, uint32_t lane);
/* The variables live at the stop (pc in [pc_begin, pc_end)), at most max. */
uint32_t ui_dbg_live_vars(const UiDbg *dbg, const IsaVarLoc **out, uint32_t max);
/* `print WHAT`: a variable live at the stop, a register (r5, r5l, r5h), a named block
 * of threadgroup memory (`shared`, `shared[3]`) or a buffer argument (`out`, `out[5]`).
 * False with a message in out when WHAT names nothing printable here. */
bool ui_dbg_print(const UiDbg *dbg, const char *what, UiDbgText *out);
/* Where a buffer argument or a threadgroup array (argument or `threadgroup` declaration)
 * lives: false when `name` is neither. */
typedef struct UiDbgPlace {
    MemSpace space;         /* DEVICE or CONSTANT (buffer), or THREADGROUP (offset) */
    int32_t buffer;
    uint64_t offset;        /* threadgroup memory: from its start, in every threadgroup */
    uint64_t bytes;
    char type_name[32];     /* "float", "uint2", or "" when unknown */
} UiDbgPlace;

bool ui_dbg_locate(const UiDbg *dbg, const char *name, UiDbgPlace *out);
/* `name` or `name[index]` into name and *index (-1 without one); false when malformed. */
bool ui_dbg_split_index(const char *what, char *name, size_t size, int64_t *index);
/* An element of type `type_name` ("float", "int2"; "" or unknown: hex) as text. */
void ui_dbg_format_element(const char *type_name, const uint8_t *bytes, uint32_t size, char *buf,
                           size_t buf_size);
/* The latest memory access of the SIMD-group shown: one line (what, where, how many cache
 * lines it took), and with `lanes` each active lane's element. False when it has made none
 * in this threadgroup yet. */
bool ui_dbg_access(const UiDbg *dbg, bool lanes, UiDbgText *out);
/* `groups`: every SIMD-group of the running threadgroup — where it is, how many
 * instructions it issued, and whether it waits at a barrier, has ended, or has not started. */
void ui_dbg_groups(const UiDbg *dbg, UiDbgText *out);
/* One line saying where the run is stopped (or that it finished, with its totals). */
void ui_dbg_where(const UiDbg *dbg, UiDbgText *out);

/* ---- commands (debug_cmd.c) and the terminal (debug_tui.c) ------------------------------------ */

typedef struct UiDbgUi {
    UiDbg *dbg;
    UiDbgText messages;     /* what commands said, newest last */
    uint32_t first_lane;    /* the variables pane shows lanes first_lane .. first_lane + 7 */
    uint32_t cols, rows;    /* screen size for `screen` (script) */
    bool want_screen;       /* `screen` asked for it (the script prints it) */
    uint32_t output_from;   /* messages the last command added start here */
    bool quit;
} UiDbgUi;

/* Runs one command line (`step 3`, `break 24`, `print sum`, ...); what it says goes to
 * ui->messages. Returns false for a command it does not know or bad arguments (a message
 * says why). */
bool ui_dbg_command(UiDbgUi *ui, const char *line);
/* The key bindings as `key  command  help` lines, from the command table. */
void ui_dbg_help(UiDbgText *out);
/* The command a key runs in the terminal (`s` -> "step"), or NULL. */
const char *ui_dbg_key_command(int key);

/* The curses front end: returns the exit status. */
int ui_dbg_tui(UiDbgUi *ui);

#endif
