/*
 * debug_screen.c — the debugger's screen, as lines of text: where the run is, the source and
 * the assembly around it, the 32 lanes' exec mask and nesting depth, the live variables lane
 * by lane, and the latest messages; on a screen too short for all of them, the ones that
 * matter most.
 *
 * The script's `screen` prints these lines; debug_tui.c only copies them to curses and
 * highlights a few marks.
 */
#include "debug.h"

#include <string.h>

/* A row's bytes: up to 400 columns of UTF-8 (4 bytes a character at most), and more. */
#define ROW_BYTES 2048

/* The columns a character takes: none for combining marks, two for East Asian wide ones
 * and emoji, else one (wcwidth's answer in a UTF-8 locale, without needing one). */
static uint32_t char_width(uint32_t c)
{
    if ((c >= 0x300 && c <= 0x36f) || (c >= 0x200b && c <= 0x200f) || (c >= 0xfe00 && c <= 0xfe0f))
        return 0;
    if ((c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf && c != 0x303f) ||
        (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
        (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
        (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) ||
        (c >= 0x1f900 && c <= 0x1f9ff) || (c >= 0x20000 && c <= 0x3fffd))
        return 2;
    return 1;
}

size_t ui_dbg_utf8(const char *s, uint32_t *c)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = u[0] < 0x80 ? 1 : (u[0] & 0xe0) == 0xc0 ? 2 : (u[0] & 0xf0) == 0xe0 ? 3
             : (u[0] & 0xf8) == 0xf0 ? 4 : 0;
    if (n == 0 || u[0] == 0)
        return 0;
    uint32_t v = n == 1 ? u[0] : u[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((u[i] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (u[i] & 0x3f);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < least[n] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0; /* overlong, past Unicode, or a surrogate */
    *c = v;
    return n;
}

uint32_t ui_dbg_char_width(const char *s, size_t *bytes)
{
    uint32_t c;
    size_t n = ui_dbg_utf8(s, &c);
    *bytes = n ? n : 1;
    return n ? char_width(c) : 1;
}

size_t ui_dbg_text_bytes(const char *s, uint32_t cols)
{
    size_t at = 0;
    for (uint32_t col = 0; s[at];) {
        size_t n;
        uint32_t w = ui_dbg_char_width(s + at, &n);
        if (col + w > cols)
            break;
        col += w;
        at += n;
    }
    return at;
}

/* Appends s to buf (at byte *len, column *col), cut at `width` columns: UTF-8 characters
 * whole, tabs as 4 spaces, control characters and malformed bytes as `?`. */
static void put(char *buf, size_t *len, uint32_t *col, uint32_t width, const char *s)
{
    while (*s && *col < width) {
        uint32_t c;
        size_t n = ui_dbg_utf8(s, &c);
        uint32_t w = n ? char_width(c) : 1;
        /* the rest of the row, in spaces, must fit after it */
        if (*col + w > width || *len + (n ? n : 1) + (width - *col) + 1 > ROW_BYTES)
            break;
        if (n == 1 && c == '\t') {
            for (int k = 0; k < 4 && *col < width; k++)
                buf[(*len)++] = ' ', (*col)++;
        } else if (n == 0 || c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
            buf[(*len)++] = '?', (*col)++;
        } else {
            memcpy(buf + *len, s, n);
            *len += n;
            *col += w;
        }
        s += n ? n : 1;
    }
}

/* Ends a row begun with put: spaces to `width` columns. */
static void pad(char *buf, size_t len, uint32_t col, uint32_t width)
{
    memset(buf + len, ' ', width - col);
    buf[len + width - col] = '\0';
}

/* A row of `width` columns: s, then padding. */
static void fit(char *buf, uint32_t width, const char *s)
{
    uint32_t col = 0;
    size_t len = 0;
    put(buf, &len, &col, width, s);
    pad(buf, len, col, width);
}

/* "-- title ------" across width columns. */
static void rule(char *buf, uint32_t width, const char *title)
{
    char head[256];
    snprintf(head, sizeof head, "-- %s ", title);
    fit(buf, width, head);
    for (size_t c = ui_dbg_text_bytes(head, width); buf[c]; c++) /* the padding */
        buf[c] = '-';
}

static bool is_break_line(const UiDbg *dbg, uint32_t line)
{
    for (uint32_t b = 0; b < dbg->num_breaks; b++)
        if (dbg->breaks[b].kind == UI_DBG_BREAK_LINE && dbg->breaks[b].line == line)
            return true;
    return false;
}

static bool is_break_index(const UiDbg *dbg, uint32_t index)
{
    for (uint32_t b = 0; b < dbg->num_breaks; b++)
        if (dbg->breaks[b].kind == UI_DBG_BREAK_INDEX && dbg->breaks[b].index == index)
            return true;
    return false;
}

/* Row r of `height` rows of the source pane, centred on the stop's line. */
static void source_row(const UiDbg *dbg, uint32_t r, uint32_t height, char *buf, uint32_t width)
{
    uint32_t cur = dbg->finished ? 0 : ui_dbg_line_of(dbg->program, dbg->index);
    uint32_t first = cur > height / 2 ? cur - height / 2 : 1;
    if (dbg->num_lines >= height && first + height - 1 > dbg->num_lines)
        first = dbg->num_lines - height + 1;
    uint32_t line = first + r;
    if (line == 0 || line > dbg->num_lines) {
        fit(buf, width, "");
        return;
    }
    char head[16];
    snprintf(head, sizeof head, "%c%s%4u  ", is_break_line(dbg, line) ? '*' : ' ',
             line == cur ? "=>" : "  ", line);
    uint32_t col = 0;
    size_t len = 0;
    put(buf, &len, &col, width, head);
    put(buf, &len, &col, width, dbg->lines[line - 1]);
    pad(buf, len, col, width);
}

/* Row r of the assembly pane, centred on the stop's instruction. */
static void asm_row(const UiDbg *dbg, uint32_t r, uint32_t height, char *buf, uint32_t width)
{
    const IsaProgram *p = dbg->program;
    uint32_t cur = dbg->finished ? 0 : dbg->index;
    uint32_t first = cur > height / 2 ? cur - height / 2 : 0;
    if (p->count >= height && first + height > p->count)
        first = p->count - height;
    uint32_t i = first + r;
    if (i >= p->count) {
        fit(buf, width, "");
        return;
    }
    char text[256], row[320];
    isa_format_inst(p, &p->code[i], text, sizeof text);
    snprintf(row, sizeof row, "%c%s%04x  %s", is_break_index(dbg, i) ? '*' : ' ',
             !dbg->finished && i == cur ? "=>" : "  ", p->code[i].pc, text);
    fit(buf, width, row);
}

/* The messages pane: its rule (saying how many lines of the last command's output do not
 * fit) and the last `rows` messages. */
static void messages_pane(const UiDbgText *messages, uint32_t cols, uint32_t rows, uint32_t said,
                          UiDbgText *out)
{
    char buf[ROW_BYTES], title[96] = "messages (h: help)";
    if (said > rows)
        snprintf(title, sizeof title, "messages (h: help; %u earlier line%s not shown: a taller "
                 "terminal shows them)", said - rows, said - rows == 1 ? "" : "s");
    rule(buf, cols, title);
    ui_dbg_text_add(out, "%s", buf);
    uint32_t from = messages->count > rows ? messages->count - rows : 0;
    for (uint32_t r = 0; r < rows; r++) {
        fit(buf, cols, from + r < messages->count ? messages->lines[from + r] : "");
        ui_dbg_text_add(out, "%s", buf);
    }
}

static void header_line(const UiDbg *dbg, uint32_t cols, UiDbgText *out)
{
    char buf[ROW_BYTES], tmp[ROW_BYTES];
    const UiLaunch *L = dbg->launch;
    snprintf(tmp, sizeof tmp, "lockstep debug: %s (%s), %s %u x %u x %u, threadgroup %u x %u x %u,"
             " %s", dbg->program->name, L->m->kernel_path,
             L->sim.by_threadgroups ? "threadgroups" : "grid", L->sim.grid[0],
             L->sim.grid[1], L->sim.grid[2], L->sim.threadgroup[0], L->sim.threadgroup[1],
             L->sim.threadgroup[2], dbg->timing ? "timed" : "functional");
    fit(buf, cols, tmp);
    ui_dbg_text_add(out, "%s", buf);
}

/* A screen of fewer than UI_DBG_MIN_ROWS rows: no lanes or variables, the source alone
 * across the width, and the rows that matter most first: the latest messages, where the
 * run is, the header, then as much source as fits. */
static void small_screen(const UiDbg *dbg, uint32_t cols, uint32_t rows, const UiDbgText *where,
                         const UiDbgText *messages, uint32_t said, UiDbgText *out)
{
    char buf[ROW_BYTES];
    uint32_t want = said < 1 ? 1 : said, left = rows;
    uint32_t msg = want < (rows / 3 ? rows / 3 : 1) ? want : rows / 3 ? rows / 3 : 1;
    left -= msg;
    uint32_t status = left && where->count ? 1 : 0;
    left -= status;
    bool header = left > 0, rule_shown = left > 1;
    left -= header + rule_shown;
    if (left && where->count > 1)
        status++, left--;
    uint32_t code = left >= 2 ? left - 1 : 0;
    msg += left - (code ? code + 1 : 0);  /* a row too few for the source: one more message */
    if (header)
        header_line(dbg, cols, out);
    for (uint32_t r = 0; r < status; r++) {
        fit(buf, cols, where->lines[r]);
        ui_dbg_text_add(out, "%s", buf);
    }
    if (code) {
        rule(buf, cols, "source");
        ui_dbg_text_add(out, "%s", buf);
        for (uint32_t r = 0; r < code; r++) {
            source_row(dbg, r, code, buf, cols);
            ui_dbg_text_add(out, "%s", buf);
        }
    }
    if (rule_shown) {
        messages_pane(messages, cols, msg, said, out);
        return;
    }
    uint32_t from = messages->count > msg ? messages->count - msg : 0;
    for (uint32_t r = 0; r < msg; r++) {
        fit(buf, cols, from + r < messages->count ? messages->lines[from + r] : "");
        ui_dbg_text_add(out, "%s", buf);
    }
}

void ui_dbg_screen(const UiDbg *dbg, uint32_t cols, uint32_t rows, uint32_t first_lane,
                   const UiDbgText *messages, uint32_t msg_rows, UiDbgText *out)
{
    /* the status: where it stopped, and (timed, or a thread found) one line more */
    UiDbgText where = {0};
    ui_dbg_where(dbg, &where);
    uint32_t status_rows = where.count > 1 ? 2 : 1;
    if (rows < UI_DBG_MIN_ROWS) {
        small_screen(dbg, cols < 10 ? 10 : cols > 400 ? 400 : cols, rows ? rows : 1, &where,
                     messages, msg_rows, out);
        ui_dbg_text_free(&where);
        return;
    }
    cols = cols < UI_DBG_MIN_COLS ? UI_DBG_MIN_COLS : cols > 400 ? 400 : cols;
    uint32_t said = msg_rows;
    msg_rows = msg_rows < 4 ? 4 : msg_rows > rows / 3 ? rows / 3 : msg_rows;
    char buf[ROW_BYTES], tmp[ROW_BYTES];
    const IsaVarLoc *live[256];
    uint32_t num_live = dbg->finished ? 0 : ui_dbg_live_vars(dbg, live, 256);
    uint32_t var_rows = num_live < 6 ? num_live : 6;
    /* what is left for the source and assembly: at least 3 rows, else the messages (down
     * to 4) and the variables (down to one and `... and N more`) give way, then the code */
    uint32_t fixed = 2 + status_rows + (dbg->finished ? 0 : 6 + 1 + (var_rows ? var_rows : 1)) +
                     1 + msg_rows;
    for (; fixed + 3 > rows && msg_rows > 4; msg_rows--)
        fixed--;
    for (; fixed + 3 > rows && var_rows > 2; var_rows--)
        fixed--;
    uint32_t code_rows = rows > fixed ? rows - fixed : 0;

    header_line(dbg, cols, out);
    for (uint32_t r = 0; r < status_rows; r++) {
        fit(buf, cols, where.count > r ? where.lines[r] : "");
        ui_dbg_text_add(out, "%s", buf);
    }
    ui_dbg_text_free(&where);
    uint32_t left = (cols - 1) / 2, right = cols - 1 - left;
    rule(buf, left, "source");
    rule(tmp, right, "assembly");
    ui_dbg_text_add(out, "%s|%s", buf, tmp);
    for (uint32_t r = 0; r < code_rows; r++) {
        source_row(dbg, r, code_rows, buf, left);
        asm_row(dbg, r, code_rows, tmp, right);
        ui_dbg_text_add(out, "%s|%s", buf, tmp);
    }

    if (!dbg->finished) {
        const SimGroupView *sg = dbg->sg;
        rule(buf, cols, "lanes (# active, . inactive; depth: exec nesting counter, r0l)");
        ui_dbg_text_add(out, "%s", buf);
        char tens[40], ones[40], exec[40], depth[40];
        for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l++) {
            bool present = l < sg->lanes;
            uint32_t d = sg->regs[l] & 0xffff; /* r0l */
            tens[l] = l % 10 == 0 ? (char)('0' + l / 10) : ' ';
            ones[l] = (char)('0' + l % 10);
            exec[l] = !present ? ' ' : ui_dbg_lane_active(sg, l) ? '#' : '.';
            depth[l] = !present ? ' ' : d > 9 ? '+' : (char)('0' + d);
        }
        tens[32] = ones[32] = exec[32] = depth[32] = '\0';
        const char *labels[4] = {"lane", "", "exec", "depth"};
        const char *values[4] = {tens, ones, exec, depth};
        char summary[96];
        snprintf(summary, sizeof summary, "   %u of %u lanes active, mask 0x%08x",
                 util_popcount32(sg->exec_mask), sg->lanes, sg->exec_mask);
        for (int k = 0; k < 4; k++) {
            snprintf(tmp, sizeof tmp, "%-7s%s%s", labels[k], values[k], k == 2 ? summary : "");
            fit(buf, cols, tmp);
            ui_dbg_text_add(out, "%s", buf);
        }
        UiDbgText access = {0};
        fit(buf, cols, ui_dbg_access(dbg, false, &access) ? access.lines[0]
                                                           : "no memory access yet in this threadgroup");
        ui_dbg_text_add(out, "%s", buf);
        ui_dbg_text_free(&access);
        /* a whole window of 8 lanes (or every lane of a smaller SIMD-group) */
        if (first_lane + 8 > sg->lanes)
            first_lane = sg->lanes > 8 ? sg->lanes - 8 : 0;
        uint32_t last = first_lane + 7 < sg->lanes ? first_lane + 7 : sg->lanes - 1;
        snprintf(tmp, sizeof tmp, "variables, lanes %u-%u (`lanes N` moves; (x): inactive lane)",
                 first_lane, last);
        rule(buf, cols, tmp);
        ui_dbg_text_add(out, "%s", buf);
        uint32_t colw = (cols - 14) / 8;
        for (uint32_t v = 0; v < var_rows; v++) {
            if (v + 1 == var_rows && num_live > var_rows) {
                snprintf(tmp, sizeof tmp, "... and %u more (print NAME)", num_live - v);
                fit(buf, cols, tmp);
                ui_dbg_text_add(out, "%s", buf);
                break;
            }
            uint32_t col = 0;
            size_t len = 0;
            snprintf(tmp, sizeof tmp, "%-13.13s ", live[v]->name);
            put(buf, &len, &col, cols, tmp);
            for (uint32_t l = first_lane; l <= last; l++) {
                /* room for the value, its parentheses when inactive, and a space; a value
                 * that does not fit is cut and ends in `…`, never shown as another value */
                bool active = ui_dbg_lane_active(sg, l);
                uint32_t room = colw - 1 - (active ? 0 : 2), start = col;
                char value[80], cell[96];
                ui_dbg_format_reg(sg, live[v]->kind, live[v]->index, live[v]->type_name, l,
                                  room, value, sizeof value);
                if (strlen(value) > room)
                    snprintf(value + room - 1, sizeof value - (room - 1), "\u2026");
                snprintf(cell, sizeof cell, active ? "%s" : "(%s)", value);
                put(buf, &len, &col, cols, cell);
                for (; col < start + colw && col < cols; col++)
                    buf[len++] = ' ';
            }
            pad(buf, len, col, cols);
            ui_dbg_text_add(out, "%s", buf);
        }
        if (!var_rows) {
            fit(buf, cols, "(no source variable lives here)");
            ui_dbg_text_add(out, "%s", buf);
        }
    }
    messages_pane(messages, cols, msg_rows, said, out);
}
