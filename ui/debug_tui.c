/*
 * debug_tui.c — the debugger in a terminal: the only file of lockstep that includes curses.
 *
 * It draws the lines debug_view.c writes (the same ones `screen` prints in a script), marks
 * the current source line and instruction, and turns keys into the command lines the
 * command table binds them to; `:` reads a command line of any command.
 */
#include "debug.h"

#include <curses.h>
#include <string.h>

/* Draws the screen; the rows whose source or assembly half is at the stop in bold. */
static void draw(UiDbgUi *ui)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    UiDbgText screen = {0};
    ui_dbg_screen(ui->dbg, (uint32_t)cols, (uint32_t)rows - 1, ui->first_lane, &ui->messages,
                  &screen);
    erase();
    uint32_t left = ((uint32_t)(cols < 60 ? 60 : cols) - 1) / 2;
    for (uint32_t r = 0; r < screen.count && (int)r < rows - 1; r++) {
        const char *line = screen.lines[r];
        mvaddnstr((int)r, 0, line, cols);
        if (r == 0)
            mvchgat((int)r, 0, cols, A_REVERSE, 0, NULL);
        else if (strncmp(line, "-- ", 3) == 0)
            mvchgat((int)r, 0, cols, A_BOLD, 0, NULL);
        if (strlen(line) > 3 && strncmp(line + 1, "=>", 2) == 0)
            mvchgat((int)r, 0, (int)left, A_BOLD | A_REVERSE, 0, NULL);
        if (strlen(line) > left + 4 && strncmp(line + left + 2, "=>", 2) == 0)
            mvchgat((int)r, (int)left + 1, cols - (int)left - 1, A_BOLD | A_REVERSE, 0, NULL);
    }
    mvaddnstr(rows - 1, 0, "s step  n next  l line  c continue  : command  h help  q quit", cols);
    ui_dbg_text_free(&screen);
    refresh();
}

/* Reads a command line on the bottom row. */
static bool read_command(char *buf, int size)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    (void)cols;
    move(rows - 1, 0);
    clrtoeol();
    addstr(":");
    echo();
    curs_set(1);
    int got = getnstr(buf, size - 1);
    noecho();
    curs_set(0);
    return got == OK;
}

int ui_dbg_tui(UiDbgUi *ui)
{
    if (!initscr()) {
        fprintf(stderr, "lockstep debug: error: cannot start the terminal (is TERM set?)\n");
        return UI_EXIT_BAD_INPUT;
    }
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    ui_dbg_where(ui->dbg, &ui->messages);
    while (!ui->quit) {
        draw(ui);
        int key = getch();
        char line[256];
        const char *cmd = NULL;
        if (key == ':') {
            if (read_command(line, sizeof line))
                cmd = line;
        } else if (key == KEY_RESIZE || key == ERR) {
            continue;
        } else {
            cmd = ui_dbg_key_command(key);
            if (!cmd && key < 128)
                ui_dbg_text_add(&ui->messages, "no command on key `%c` (h: help)", key);
        }
        if (cmd)
            ui_dbg_command(ui, cmd);
    }
    endwin();
    return UI_EXIT_OK;
}
