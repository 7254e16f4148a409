/*
 * debug_tui.c — the debugger in a terminal: the only file of lockstep that includes curses.
 *
 * It draws the lines debug_screen.c writes (the same ones `screen` prints in a script), marks
 * the current source line and instruction, and turns keys into the command lines the
 * command table binds them to; `:` reads a command line of any command (kept through a
 * resize; Escape or Ctrl-C cancel it). While a command runs, it keeps reading keys (the
 * session polls, debug_session.c): `q` stops the run and quits, Ctrl-C stops it, and other
 * keys wait their turn; a resize meanwhile moves the key bar to the new last row (the rest
 * of the screen is drawn when the run stops, as the session is the simulator's until then).
 */
#include "debug.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* The session Ctrl-C interrupts: a run that takes long (a `continue` into a loop that never
 * ends) stops at its next instruction, as in gdb, and the terminal stays usable. */
static UiDbg *interrupted_dbg;

static void on_sigint(int sig)
{
    (void)sig;
    if (interrupted_dbg)
        ui_dbg_interrupt(interrupted_dbg);
}

/* Keys typed while a command ran, to read after it: oldest first. */
static int typed_ahead[64];
static uint32_t num_typed_ahead;
static bool running_shown;   /* the key bar says a command runs */

static void show_running(void);

static int next_key(void)
{
    if (!num_typed_ahead)
        return getch();
    int key = typed_ahead[0];
    memmove(typed_ahead, typed_ahead + 1, --num_typed_ahead * sizeof typed_ahead[0]);
    return key;
}

/* Called every few hundredths of a second while a command runs: says so on the key bar,
 * and reads the keys typed meanwhile. q stops the run and quits; Ctrl-C (a key only when
 * the terminal sends no signal for it) stops it; the rest wait for it to end. */
static void poll_keys(void *ctx)
{
    UiDbgUi *ui = ctx;
    for (bool resized = false;; resized = true) {
        if (resized) {
            /* The session's state belongs to the simulator's thread until the run stops:
             * the new size gets the running bar on its last row, the screen after the run. */
            erase();
            mvaddnstr(0, 0, "the screen is drawn again when the run stops", COLS);
            running_shown = false;
        }
        show_running();
        nodelay(stdscr, TRUE);
        int key;
        while ((key = getch()) != ERR && key != KEY_RESIZE) {
            if (key == 'q') {
                ui->quit = true;
                ui_dbg_interrupt(ui->dbg);
            } else if (key == 3) {
                ui_dbg_interrupt(ui->dbg);
            } else if (num_typed_ahead < UTIL_ARRAY_LEN(typed_ahead)) {
                typed_ahead[num_typed_ahead++] = key; /* the screen is redrawn after the run */
            }
        }
        nodelay(stdscr, FALSE);
        if (key == ERR)
            return;
    }
}

/* The key bar says a command runs, and how to stop it. */
static void show_running(void)
{
    if (!running_shown) {
        int rows, cols;
        getmaxyx(stdscr, rows, cols);
        move(rows - 1, 0);
        clrtoeol();
        mvaddnstr(rows - 1, 0, "running...  q quits, Ctrl-C stops it here", cols);
        refresh();
        running_shown = true;
    }
}

/* The terminal takes UTF-8 (the locale says so): text is drawn as it is; else each
 * character past ASCII is drawn as `?` (two for a wide one), and the `…` that ends a value
 * cut short as `>`. */
static bool utf8;

/* Row y: line, cut at cols columns. */
static void draw_row(int y, const char *line, int cols)
{
    if (utf8) {
        mvaddnstr(y, 0, line, (int)ui_dbg_text_bytes(line, (uint32_t)cols));
        return;
    }
    char *ascii = util_malloc(2 * strlen(line) + 1);
    size_t len = 0;
    for (size_t at = 0, n; line[at]; at += n) {
        uint32_t w = ui_dbg_char_width(line + at, &n);
        if ((unsigned char)line[at] < 0x80)
            ascii[len++] = line[at];
        else if (n == 3 && memcmp(line + at, "\u2026", 3) == 0) /* a value cut short */
            ascii[len++] = '>';
        else
            for (uint32_t k = 0; k < w; k++)
                ascii[len++] = '?';
    }
    ascii[len] = '\0';
    mvaddnstr(y, 0, ascii, cols);
    free(ascii);
}

/* Draws the screen, the keys on the bottom row; the rows whose source or assembly half is
 * at the stop in bold. A terminal smaller than the screen needs says so on its top row and
 * gets the small screen (debug_screen.c): the latest messages first. */
static void draw(UiDbgUi *ui)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    erase();
    if (rows < 1 || cols < 1)
        return;
    bool small = rows < UI_DBG_MIN_ROWS + 1 || cols < UI_DBG_MIN_COLS;
    int top = small && rows >= 2, bar = rows >= 3;
    if (top) {
        char note[160];
        snprintf(note, sizeof note, "terminal %dx%d is too small: lockstep debug needs at least "
                 "%dx%d", cols, rows, UI_DBG_MIN_COLS, UI_DBG_MIN_ROWS + 1);
        if ((int)strlen(note) > cols)
            snprintf(note, sizeof note, "%dx%d too small, needs %dx%d", cols, rows,
                     UI_DBG_MIN_COLS, UI_DBG_MIN_ROWS + 1);
        mvaddnstr(0, 0, note, cols);
        mvchgat(0, 0, cols, A_BOLD | A_REVERSE, 0, NULL);
    }
    uint32_t height = (uint32_t)(rows - top - bar);
    UiDbgText screen = {0};
    /* the messages pane grows to show all the last command said (up to a third) */
    ui_dbg_screen(ui->dbg, (uint32_t)cols, height, ui->first_lane, &ui->messages,
                  ui->messages.count - ui->output_from, &screen);
    /* the source's half of a row: all of it on the small screen */
    uint32_t left = height < UI_DBG_MIN_ROWS ? (uint32_t)cols
                                             : ((uint32_t)(cols < UI_DBG_MIN_COLS ? UI_DBG_MIN_COLS
                                                                                  : cols) - 1) / 2;
    for (uint32_t r = 0; r < screen.count && r < height; r++) {
        const char *line = screen.lines[r];
        int y = (int)r + top;
        draw_row(y, line, cols);
        if (strncmp(line, "lockstep debug: ", 16) == 0)
            mvchgat(y, 0, cols, A_REVERSE, 0, NULL);
        else if (strncmp(line, "-- ", 3) == 0)
            mvchgat(y, 0, cols, A_BOLD, 0, NULL);
        if (strlen(line) > 3 && strncmp(line + 1, "=>", 2) == 0)
            mvchgat(y, 0, (int)left, A_BOLD | A_REVERSE, 0, NULL);
        size_t half = ui_dbg_text_bytes(line, left + 2); /* the assembly's `=>` */
        if (strlen(line) > half + 2 && strncmp(line + half, "=>", 2) == 0)
            mvchgat(y, (int)left + 1, cols - (int)left - 1, A_BOLD | A_REVERSE, 0, NULL);
    }
    if (bar)
        mvaddnstr(rows - 1, 0, cols >= 72 ? "s step  n next  l line  c continue  p print  : command  "
                                            "h help  q quit"
                                          : "s n l c p  : command  h help  q quit", cols);
    ui_dbg_text_free(&screen);
    refresh();
}

/* A help line cut into lines of at most cols columns, at spaces, the rest of it under the
 * help column (or indented 4 in a narrow terminal). */
static void wrap(const char *line, int cols, UiDbgText *out)
{
    int indent = cols >= 60 ? 31 : 4;
    for (bool first = true; *line; first = false) {
        int room = first || cols - indent < 10 ? cols : cols - indent;
        int n = (int)strlen(line);
        if (n > room) {
            int cut = room;
            while (cut > 0 && line[cut] != ' ')
                cut--;
            n = cut > 0 ? cut : room;
        }
        ui_dbg_text_add(out, "%*s%.*s", first || room == cols ? 0 : indent, "", n, line);
        line += n;
        while (*line == ' ')
            line++;
    }
}

/* The command list over the whole screen, wrapped to its width, until a key other than
 * those that scroll it is pressed; a resize redraws it. */
static void show_help(void)
{
    UiDbgText help = {0};
    ui_dbg_help(&help);
    int first = 0;
    for (;;) {
        int rows, cols;
        getmaxyx(stdscr, rows, cols);
        UiDbgText lines = {0};
        for (uint32_t i = 0; cols > 0 && i < help.count; i++)
            wrap(help.lines[i], cols, &lines);
        int top = rows >= 6 ? 2 : 1, body = rows - top > 0 ? rows - top : 0;
        int last = (int)lines.count > body ? (int)lines.count - body : 0;
        first = first < 0 ? 0 : first > last ? last : first;
        erase();
        mvaddnstr(0, 0, !last ? "lockstep debug: keys and commands (any key to go back)"
                        : cols >= 80 ? "lockstep debug: keys and commands (arrows, space scroll; "
                                       "any other key goes back)"
                                     : "help (space: more; other keys: back)", cols);
        mvchgat(0, 0, -1, A_REVERSE, 0, NULL);
        for (int i = 0; i < body && first + i < (int)lines.count; i++)
            mvaddnstr(top + i, 0, lines.lines[first + i], cols);
        ui_dbg_text_free(&lines);
        refresh();
        int key = getch();
        if (key == KEY_RESIZE || key == ERR)
            continue;
        int page = body > 1 ? body - 1 : 1;
        if (last && (key == KEY_DOWN || key == 'j'))
            first++;
        else if (last && (key == KEY_UP || key == 'k'))
            first--;
        else if (last && (key == ' ' || key == KEY_NPAGE))
            first += page;
        else if (last && key == KEY_PPAGE)
            first -= page;
        else
            break;
    }
    ui_dbg_text_free(&help);
}

/* Reads a command line on the bottom row into buf (size bytes), starting from what buf
 * holds. A resize redraws the screen under it and keeps what was typed; Enter runs it (true);
 * Escape, Ctrl-C, or Backspace on an empty line cancel it (false). The terminal is raw
 * meanwhile, so Ctrl-C is a key here, not an interrupt. */
static bool read_command(UiDbgUi *ui, char *buf, size_t size)
{
    size_t len = strlen(buf);
    raw();
    curs_set(1);
    bool ok = false;
    for (;;) {
        int rows, cols;
        getmaxyx(stdscr, rows, cols);
        /* the end of the line, when it is longer than the row */
        size_t from = cols > 2 && len + 2 > (size_t)cols ? len + 2 - (size_t)cols : 0;
        move(rows - 1, 0);
        clrtoeol();
        addch(':');
        addnstr(buf + from, cols > 1 ? cols - 1 : 0);
        refresh();
        int key = next_key();
        if (key == KEY_RESIZE) {
            draw(ui);
        } else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
            ok = true;
            break;
        } else if (key == 27 || key == 3 || key == ERR) { /* Escape, Ctrl-C */
            break;
        } else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
            if (!len)
                break;
            buf[--len] = '\0';
        } else if (key == 21) { /* Ctrl-U: the whole line */
            buf[len = 0] = '\0';
        } else if (key >= ' ' && key < 127 && len + 1 < size) {
            buf[len++] = (char)key;
            buf[len] = '\0';
        }
    }
    cbreak();
    curs_set(0);
    return ok;
}

int ui_dbg_tui(UiDbgUi *ui)
{
    /* the terminal's character set (LC_CTYPE only: numbers keep their `.`) */
    setlocale(LC_CTYPE, "");
    const char *codeset = nl_langinfo(CODESET);
    utf8 = codeset && (strcmp(codeset, "UTF-8") == 0 || strcmp(codeset, "utf8") == 0);
    /* newterm, not initscr: initscr exits the program (status 1) when TERM names no
     * terminal it knows, and that is bad input (status 2) with our message */
    SCREEN *screen = newterm(NULL, stdout, stdin);
    if (!screen) {
        const char *term = getenv("TERM");
        fprintf(stderr, "lockstep debug: error: cannot drive the terminal: TERM is %s%s%s; "
                        "expected a terminal type this system knows (xterm, linux, ...), or "
                        "use --script FILE\n",
                term ? "'" : "not set", term ? term : "", term ? "'" : "");
        return UI_EXIT_BAD_INPUT;
    }
    set_term(screen);
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    set_escdelay(25); /* Escape alone cancels a command line at once */
    curs_set(0);
    interrupted_dbg = ui->dbg;
    struct sigaction sa, old_sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_sa);
    ui_dbg_where(ui->dbg, &ui->messages);
    ui->dbg->poll = poll_keys;
    ui->dbg->poll_ctx = ui;
    while (!ui->quit) {
        draw(ui);
        running_shown = false;
        int key = next_key();
        char line[256];
        const char *cmd = NULL;
        if (key == ':') {
            line[0] = '\0';
            if (read_command(ui, line, sizeof line))
                cmd = line;
        } else if (key == 3) { /* Ctrl-C with the terminal in raw mode */
            ui_dbg_text_add(&ui->messages, "nothing is running (q quits)");
        } else if (key == KEY_RESIZE || key == ERR || key == '\n' || key == '\r' ||
                   key == KEY_ENTER || key == ' ' || key == 27) {
            continue; /* Enter, space and Escape mean nothing here: no message for them */
        } else {
            cmd = ui_dbg_key_command(key);
            size_t n = cmd ? strlen(cmd) : 0;
            if (n && cmd[n - 1] == ' ') { /* `p`: the command line, `print ` typed */
                snprintf(line, sizeof line, "%s", cmd);
                cmd = read_command(ui, line, sizeof line) ? line : NULL;
            } else if (!cmd && key < ' ') {
                ui_dbg_text_add(&ui->messages, "no command on key Ctrl-%c (h: help)", key + '@');
            } else if (!cmd && key < 127) {
                ui_dbg_text_add(&ui->messages, "no command on key `%c` (h: help)", key);
            }
        }
        if (cmd && (strcmp(cmd, "help") == 0 || strcmp(cmd, "h") == 0)) {
            show_help();
            continue;
        }
        if (cmd)
            ui_dbg_command(ui, cmd);
    }
    ui->dbg->poll = NULL;
    sigaction(SIGINT, &old_sa, NULL);
    interrupted_dbg = NULL;
    endwin();
    delscreen(screen);
    return UI_EXIT_OK;
}
