/*
 * debug_view.c — what the debugger says, as lines of text: values of registers, variables
 * and memory, and the answers of `print`, `where`, `mem` and `groups` (the screen that
 * shows them is debug_screen.c's).
 *
 * Everything is text so the script mode prints exactly what the terminal shows and tests
 * can read it. Values are read while the run is stopped (debug_session.c), never while it
 * runs.
 */
#include "debug.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fp.h"

void ui_dbg_text_add(UiDbgText *t, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *line = util_malloc(n > 0 ? (size_t)n + 1 : 1);
    line[0] = '\0';
    if (n > 0)
        vsnprintf(line, (size_t)n + 1, fmt, again);
    va_end(again);
    if (t->count == t->capacity) {
        t->capacity = t->capacity ? 2 * t->capacity : 16;
        t->lines = util_realloc(t->lines, t->capacity * sizeof *t->lines);
    }
    t->lines[t->count++] = line;
}

void ui_dbg_text_clear(UiDbgText *t)
{
    for (uint32_t i = 0; i < t->count; i++)
        free(t->lines[i]);
    t->count = 0;
}

void ui_dbg_text_free(UiDbgText *t)
{
    ui_dbg_text_clear(t);
    free(t->lines);
    memset(t, 0, sizeof *t);
}

/* ---- values ------------------------------------------------------------------------------------ */

void ui_dbg_format_reg(const SimGroupView *sg, IsaOperandKind kind, uint32_t index,
                       const char *type, uint32_t lane, uint32_t fit, char *buf, size_t size)
{
    UiElemType t;
    bool typed = type && ui_elem_type_parse(type, &t) && t.lanes == 1;
    uint8_t bytes[8] = {0};
    uint32_t width;
    if (kind == ISA_OPD_R16) {
        uint16_t h = (uint16_t)(sg->regs[(index / 2) * SIM_SIMD_WIDTH + lane] >> (16 * (index % 2)));
        memcpy(bytes, &h, 2);
        width = 2;
    } else if (kind == ISA_OPD_R64) {
        uint32_t lo = sg->regs[index * SIM_SIMD_WIDTH + lane];
        uint32_t hi = index + 1 < sg->num_regs ? sg->regs[(index + 1) * SIM_SIMD_WIDTH + lane] : 0;
        memcpy(bytes, &lo, 4);
        memcpy(bytes + 4, &hi, 4);
        width = 8;
    } else {
        memcpy(bytes, &sg->regs[index * SIM_SIMD_WIDTH + lane], 4);
        width = 4;
    }
    if (kind == ISA_OPD_R64 && type && strncmp(type, "simdgroup_", 10) == 0) {
        /* a SIMD-group matrix: this lane's two elements, f32 in the pair */
        float e[2];
        memcpy(e, bytes, 8);
        snprintf(buf, size, fit ? "%.3g,%.3g" : "%.9g, %.9g", (double)e[0], (double)e[1]);
        return;
    }
    if (typed && ui_scalar_size(t.scalar) == width) {
        UiNumber n = ui_load_number(t.scalar, bytes);
        if (fit && n.is_float) /* the screen's columns: 6 digits, not every digit */
            snprintf(buf, size, "%.6g", n.f);
        else
            ui_format_number(t.scalar, &n, buf, size);
        for (int digits = 5; fit && n.is_float && strlen(buf) > fit && digits >= 1; digits--)
            snprintf(buf, size, "%.*g", digits, n.f);
        return;
    }
    uint64_t v = 0;
    memcpy(&v, bytes, width);
    if (fit && 2 + (size_t)width * 2 > fit) /* the screen: without leading zeros */
        snprintf(buf, size, "0x%llx", (unsigned long long)v);
    else
        snprintf(buf, size, "0x%0*llx", (int)width * 2, (unsigned long long)v);
}

bool ui_dbg_lane_active(const SimGroupView *sg, uint32_t lane)
{
    return sg->exec_mask >> lane & 1;
}

uint32_t ui_dbg_live_vars(const UiDbg *dbg, const IsaVarLoc **out, uint32_t max)
{
    const IsaProgram *p = dbg->program;
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->num_vars && n < max; i++)
        if (p->vars[i].pc_begin <= dbg->inst->pc && dbg->inst->pc < p->vars[i].pc_end)
            out[n++] = &p->vars[i];
    return n;
}

/* ---- where ------------------------------------------------------------------------------------- */

static const char *why_name(const UiDbg *dbg, char *buf, size_t size)
{
    switch (dbg->why) {
    case UI_DBG_WHY_START:
        return "at the start";
    case UI_DBG_WHY_STEPPED:
        return "stepped";
    case UI_DBG_WHY_BREAKPOINT:
        snprintf(buf, size, "breakpoint %d", dbg->breakpoint + 1);
        return buf;
    case UI_DBG_WHY_THREAD:
        return "thread";
    case UI_DBG_WHY_INTERRUPTED:
        return "interrupted";
    case UI_DBG_WHY_WATCH:
        snprintf(buf, size, "watchpoint %d", dbg->watch_shown.watch + 1);
        return buf;
    case UI_DBG_WHY_FAULT:
        if (dbg->num_new > 1)
            snprintf(buf, size, "after faults %llu-%llu", (unsigned long long)dbg->fault + 1,
                     (unsigned long long)dbg->fault + dbg->num_new);
        else
            snprintf(buf, size, "after fault %llu", (unsigned long long)dbg->fault + 1);
        return buf;
    case UI_DBG_WHY_FINDING:
        if (dbg->num_new > 1)
            snprintf(buf, size, "after findings %u-%u", dbg->finding + 1, dbg->finding + dbg->num_new);
        else
            snprintf(buf, size, "after finding %u", dbg->finding + 1);
        return buf;
    case UI_DBG_WHY_FINISHED:
        return "finished";
    }
    return "?";
}

void ui_dbg_where(const UiDbg *dbg, UiDbgText *out)
{
    if (dbg->finished) {
        const SimResult *r = &dbg->result;
        if (!dbg->dispatch_ok) {
            ui_dbg_text_add(out, "the dispatch did not start: %s", dbg->error.message);
            return;
        }
        ui_dbg_text_add(out, "finished%s: %llu threadgroup%s, %llu SIMD-group instructions, "
                        "SIMD efficiency %.1f%%, %llu faults",
                        r->cancelled ? " (cancelled)" : r->budget_exceeded ? " (budget ran out)" : "",
                        (unsigned long long)r->threadgroups, r->threadgroups == 1 ? "" : "s",
                        (unsigned long long)r->instructions,
                        100.0 * sim_result_simd_efficiency(r), (unsigned long long)r->total_faults);
        return;
    }
    const SimGroupView *sg = dbg->sg;
    const SimThreadgroupView *tg = sg->threadgroup;
    char why[32];
    uint32_t line = ui_dbg_line_of(dbg->program, dbg->index);
    char at_line[200] = "", call[160] = "";
    if (line && dbg->index < dbg->program->count) /* "(in stage, called at line 16)" */
        isa_call_text(dbg->program, &dbg->program->locs[dbg->index], call, sizeof call);
    if (line)
        snprintf(at_line, sizeof at_line, " line %u%s,", line, call);
    ui_dbg_text_add(out, "%s:%s pc 0x%04x; threadgroup (%u,%u,%u), SIMD-group %u, %u of %u lanes "
                    "active; %llu instruction%s done",
                    why_name(dbg, why, sizeof why), at_line, dbg->inst->pc, tg->position[0],
                    tg->position[1], tg->position[2], sg->simdgroup,
                    util_popcount32(sg->exec_mask), sg->lanes, (unsigned long long)dbg->issued - 1,
                    dbg->issued - 1 == 1 ? "" : "s");
    UiDbgIssueTime it;
    if (dbg->timing && ui_dbg_timing_at(dbg->timing, tg->linear, sg->simdgroup, sg->retired, &it)) {
        char gap[160], total[96];
        if (sg->retired == 0)
            snprintf(gap, sizeof gap, "this SIMD-group's first instruction");
        else if (it.since <= 1)
            snprintf(gap, sizeof gap, "right after this SIMD-group's previous one");
        else if (it.waited)
            snprintf(gap, sizeof gap, "%llu cycles after this SIMD-group's previous one: %llu "
                     "waiting on %s, %llu for its turn", (unsigned long long)it.since,
                     (unsigned long long)it.waited,
                     it.reason == SIM_STALL_MEMORY ? "memory" :
                     it.reason == SIM_STALL_BARRIER ? "the barrier" : "a result (dependency)",
                     (unsigned long long)(it.since - 1 - it.waited));
        else
            snprintf(gap, sizeof gap, "%llu cycles after this SIMD-group's previous one, waiting "
                     "for its turn (other SIMD-groups issuing, or its pipe busy)",
                     (unsigned long long)it.since);
        if (dbg->timing->cut)
            snprintf(total, sizeof total, "the timed run was cut at cycle %llu",
                     (unsigned long long)dbg->timing->cycles);
        else
            snprintf(total, sizeof total, "the run takes %llu cycles",
                     (unsigned long long)dbg->timing->cycles);
        ui_dbg_text_add(out, "timed: issues at cycle %llu on core %u, %s (%s)",
                        (unsigned long long)it.cycle, it.core, gap, total);
    } else if (dbg->timing && dbg->timing->cut) {
        ui_dbg_text_add(out, "timed: no cycle (the timed run was cut after its first %u "
                        "instructions)", 4u << 20);
    }
    if (dbg->why == UI_DBG_WHY_THREAD)
        ui_dbg_text_add(out, "grid thread (%u,%u,%u) is lane %u", dbg->target[0], dbg->target[1],
                        dbg->target[2], dbg->focus_lane);
}

/* ---- print ------------------------------------------------------------------------------------- */

/* 32 lanes (or fewer), 8 a line; inactive lanes' values in parentheses. */
static void print_lanes(const UiDbg *dbg, IsaOperandKind kind, uint32_t index, const char *type,
                        UiDbgText *out)
{
    const SimGroupView *sg = dbg->sg;
    for (uint32_t first = 0; first < sg->lanes; first += 8) {
        char line[512];
        size_t len = (size_t)snprintf(line, sizeof line, "  lanes %2u-%-2u:", first,
                                      first + 7 < sg->lanes ? first + 7 : sg->lanes - 1);
        for (uint32_t l = first; l < first + 8 && l < sg->lanes && len < sizeof line; l++) {
            char v[64];
            ui_dbg_format_reg(sg, kind, index, type, l, 0, v, sizeof v);
            len += (size_t)snprintf(line + len, sizeof line - len,
                                    ui_dbg_lane_active(sg, l) ? " %s" : " (%s)", v);
        }
        ui_dbg_text_add(out, "%s", line);
    }
}

/* A SIMD-group matrix variable as the 8 x 8 matrix its 32 lanes hold together (docs/ISA.md,
 * "Matrices": lane l holds row 4*b4 + 2*b2 + b1, columns 4*b3 + 2*b0 and the next); the
 * elements of inactive lanes in parentheses. */
static void print_matrix(const UiDbg *dbg, uint32_t index, UiDbgText *out)
{
    const SimGroupView *sg = dbg->sg;
    char cell[8][8][40];
    for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l++) {
        uint32_t row = isa_matrix_row(l), col = isa_matrix_col(l);
        for (uint32_t e = 0; e < 2; e++) {
            uint32_t bits = index + e < sg->num_regs ? sg->regs[(index + e) * SIM_SIMD_WIDTH + l]
                                                    : 0;
            float f;
            memcpy(&f, &bits, 4);
            snprintf(cell[row][col + e], sizeof cell[row][col + e],
                     l < sg->lanes && ui_dbg_lane_active(sg, l) ? "%.6g" : "(%.6g)", (double)f);
        }
    }
    ui_dbg_text_add(out, "  as the SIMD-group's 8 x 8 matrix (row: its 8 columns; lane l holds "
                         "row 4*b4+2*b2+b1, columns 4*b3+2*b0 and +1):");
    for (uint32_t r = 0; r < 8; r++) {
        char line[512];
        size_t len = (size_t)snprintf(line, sizeof line, "  row %u:", r);
        for (uint32_t c = 0; c < 8 && len < sizeof line; c++)
            len += (size_t)snprintf(line + len, sizeof line - len, " %10s", cell[r][c]);
        ui_dbg_text_add(out, "%s", line);
    }
}

/* r12, r12l, r12h: false when `what` is not a register name. */
static bool parse_register(const char *what, uint32_t *index, char *half)
{
    if (what[0] != 'r' || !isdigit((unsigned char)what[1]))
        return false;
    char *end;
    unsigned long n = strtoul(what + 1, &end, 10);
    *half = 0;
    if (*end == 'l' || *end == 'h')
        *half = *end++;
    if (*end || n > 255)
        return false;
    *index = (uint32_t)n;
    return true;
}

bool ui_dbg_split_index(const char *what, char *name, size_t size, int64_t *index)
{
    const char *open = strchr(what, '[');
    size_t n = open ? (size_t)(open - what) : strlen(what);
    if (n == 0 || n >= size)
        return false;
    memcpy(name, what, n);
    name[n] = '\0';
    *index = -1;
    if (!open)
        return true;
    char *end;
    long long v = strtoll(open + 1, &end, 10);
    if (end == open + 1 || *end != ']' || end[1] || v < 0)
        return false;
    *index = v;
    return true;
}

void ui_dbg_format_element(const char *type_name, const uint8_t *bytes, uint32_t size, char *buf,
                           size_t buf_size)
{
    UiElemType t;
    if (!type_name || !ui_elem_type_parse(type_name, &t) || ui_elem_size(t) > size) {
        size_t len = (size_t)snprintf(buf, buf_size, "0x");
        for (uint32_t i = size; i-- > 0 && len + 2 < buf_size;)
            len += (size_t)snprintf(buf + len, buf_size - len, "%02x", bytes[i]);
        return;
    }
    size_t len = 0;
    for (uint32_t c = 0; c < t.lanes && len < buf_size; c++) {
        char v[64];
        UiNumber n = ui_load_number(t.scalar, bytes + ui_scalar_offset(t, c));
        ui_format_number(t.scalar, &n, v, sizeof v);
        len += (size_t)snprintf(buf + len, buf_size - len, "%s%s%s%s", c == 0 && t.lanes > 1 ? "(" : "",
                                c ? "," : "", v, t.lanes > 1 && c + 1 == t.lanes ? ")" : "");
    }
}

/* count elements of type t (named type_name) from data, starting at element first, 8 a
 * line. */
static void print_elements(const char *label, const char *type_name, UiElemType t,
                           const uint8_t *data, uint64_t first, uint64_t count, UiDbgText *out)
{
    uint32_t es = ui_elem_size(t);
    for (uint64_t i = first; i < first + count; i += 8) {
        char line[768];
        size_t len = (size_t)snprintf(line, sizeof line, "  %s[%llu]:", label, (unsigned long long)i);
        for (uint64_t e = i; e < i + 8 && e < first + count && len < sizeof line; e++) {
            char v[160];
            ui_dbg_format_element(type_name, data + e * es, es, v, sizeof v);
            len += (size_t)snprintf(line + len, sizeof line - len, " %s", v);
        }
        ui_dbg_text_add(out, "%s", line);
    }
}

static bool print_memory(const char *name, int64_t index, const char *type_name,
                         const uint8_t *data, uint64_t bytes, const char *where, UiDbgText *out)
{
    UiElemType t;
    if (!type_name || !ui_elem_type_parse(type_name, &t)) {
        ui_dbg_text_add(out, "`%s` has type %s, which print cannot show", name,
                        type_name ? type_name : "unknown");
        return false;
    }
    uint64_t count = bytes / ui_elem_size(t);
    if (index >= 0 && (uint64_t)index >= count) {
        ui_dbg_text_add(out, "%s[%lld] is past the end of `%s` (%llu elements)", name,
                        (long long)index, name, (unsigned long long)count);
        return false;
    }
    uint64_t first = index >= 0 ? (uint64_t)index : 0;
    uint64_t shown = index >= 0 ? 1 : count < 32 ? count : 32;
    ui_dbg_text_add(out, "%s (%s, %s, %llu elements)%s", name, type_name, where,
                    (unsigned long long)count, shown < count && index < 0 ? ", the first 32:" : ":");
    print_elements(name, type_name, t, data, first, shown, out);
    return true;
}

bool ui_dbg_locate(const UiDbg *dbg, const char *name, UiDbgPlace *out)
{
    memset(out, 0, sizeof *out);
    const UiBound *b = &dbg->launch->bound;
    for (uint32_t i = 0; i < b->num_args; i++) {
        const UiBoundArg *a = &b->args[i];
        if (strcmp(a->param->name, name) != 0)
            continue;
        if (a->typed)
            ui_elem_type_name(a->type, out->type_name, sizeof out->type_name);
        out->bytes = a->bytes;
        if (a->buffer >= 0) {
            out->space = a->param->kind == ISA_ARG_CONSTANT ? MEM_SPACE_CONSTANT : MEM_SPACE_DEVICE;
            out->buffer = a->buffer;
            return true;
        }
        /* a threadgroup argument: a block of each threadgroup's memory */
        uint32_t offsets[64];
        if (dbg->program->num_args > 64)
            return false;
        sim_threadgroup_layout(dbg->program, b->bindings, offsets);
        out->space = MEM_SPACE_THREADGROUP;
        out->offset = offsets[i];
        return true;
    }
    const IsaProgram *p = dbg->program;
    for (uint32_t i = 0; i < p->num_symbols; i++) {
        const IsaSymbol *s = &p->symbols[i];
        if (strcmp(s->name, name) != 0 || s->space == ISA_SYM_THREAD ||
            (s->space == ISA_SYM_CONSTANT && b->data_buffer < 0))
            continue;
        snprintf(out->type_name, sizeof out->type_name, "%s", s->type_name ? s->type_name : "");
        /* a program-scope constant array: its block of the constant data */
        out->space = s->space == ISA_SYM_CONSTANT ? MEM_SPACE_CONSTANT : MEM_SPACE_THREADGROUP;
        out->buffer = s->space == ISA_SYM_CONSTANT ? b->data_buffer : 0;
        out->offset = s->offset;
        out->bytes = s->size;
        return true;
    }
    return false;
}

/* The array kept in thread memory named `name` whose scope holds the instruction shown (a
 * local of disjoint scopes may share its bytes with another), or NULL. */
static const IsaSymbol *thread_array(const UiDbg *dbg, const char *name)
{
    const IsaProgram *p = dbg->program;
    for (uint32_t i = 0; i < p->num_symbols; i++) {
        const IsaSymbol *s = &p->symbols[i];
        if (s->space == ISA_SYM_THREAD && strcmp(s->name, name) == 0 &&
            (!s->live_end || (dbg->index >= s->live_begin && dbg->index < s->live_end)))
            return s;
    }
    return NULL;
}

/* `a`, `a[3]`, `m[1]`, `m[1][2]` of an array in thread memory: each element's value in every
 * lane (the first 32 elements of a larger part), as registers are shown. The indices after
 * the name pick a part of an array of several dimensions. */
static bool print_thread_array(const UiDbg *dbg, const IsaSymbol *s, const char *what,
                               UiDbgText *out)
{
    const SimGroupView *sg = dbg->sg;
    const uint32_t elem = s->elem_size ? s->elem_size : 1, total = s->size / elem;
    uint32_t extent[4] = {total, 0, 0, 0}, ndims = 1; /* outermost first */
    for (int k = 0; k < 3 && s->dims[k]; k++, ndims++)
        extent[k + 1] = s->dims[k];
    for (uint32_t k = 1; k < ndims; k++)
        extent[0] /= extent[k];
    uint64_t first = 0, count = total, stride = total;
    uint32_t given = 0;
    for (const char *q = strchr(what, '['); q; q = strchr(q + 1, '['), given++) {
        const unsigned long long v = strtoull(q + 1, NULL, 10);
        if (given >= ndims || v >= extent[given]) {
            ui_dbg_text_add(out, "`%s` is past the end of `%s` (%u elements of %s)", what, s->name,
                            total, s->type_name ? s->type_name : "?");
            return false;
        }
        stride /= extent[given];
        first += v * stride;
        count = stride;
    }
    if ((uint64_t)s->offset + s->size > sg->stack_bytes || !sg->stack) {
        ui_dbg_text_add(out, "`%s` is not in this kernel's thread memory", s->name);
        return false;
    }
    const uint64_t shown = count < 32 ? count : 32;
    if (shown < count)
        ui_dbg_text_add(out, "%s: %llu elements, the first 32:", what, (unsigned long long)count);
    for (uint64_t e = first; e < first + shown; e++) {
        char label[160];
        size_t len = (size_t)snprintf(label, sizeof label, "%s", s->name);
        for (uint32_t k = 0, rest = (uint32_t)e, div = total; k < ndims && len < sizeof label; k++) {
            div /= extent[k];
            len += (size_t)snprintf(label + len, sizeof label - len, "[%u]", rest / div);
            rest %= div;
        }
        ui_dbg_text_add(out, "%s (%s, thread memory), lanes 0-%u (inactive lanes in parentheses):",
                        label, s->type_name ? s->type_name : "?", sg->lanes - 1);
        for (uint32_t l0 = 0; l0 < sg->lanes; l0 += 8) {
            char line[768];
            size_t n = (size_t)snprintf(line, sizeof line, "  lanes %2u-%-2u:", l0,
                                        l0 + 7 < sg->lanes ? l0 + 7 : sg->lanes - 1);
            for (uint32_t l = l0; l < l0 + 8 && l < sg->lanes && n < sizeof line; l++) {
                char v[160];
                ui_dbg_format_element(s->type_name, sg->stack + (size_t)l * sg->stack_bytes +
                                      s->offset + e * elem, elem, v, sizeof v);
                n += (size_t)snprintf(line + n, sizeof line - n,
                                      ui_dbg_lane_active(sg, l) ? " %s" : " (%s)", v);
            }
            ui_dbg_text_add(out, "%s", line);
        }
    }
    return true;
}

/* NAME[i][j]...: an identifier and two or more indices. */
static bool is_index_path(const char *what)
{
    const char *p = what;
    if (!isalpha((unsigned char)*p) && *p != '_')
        return false;
    while (isalnum((unsigned char)*p) || *p == '_')
        p++;
    int n = 0;
    for (; *p == '['; n++) {
        const char *digits = ++p;
        while (isdigit((unsigned char)*p))
            p++;
        if (p == digits || *p++ != ']')
            return false;
    }
    return n >= 2 && !*p;
}

/* Whether the variable (part) `var` is what `print WHAT` asks for: `v` matches v itself and
 * its parts v.x, v[1]; with an index (`acc[1]`), acc[1] itself or its parts acc[1][0]. */
static bool part_of_name(const char *var, const char *name, const char *what, bool indexed)
{
    size_t len = strlen(name);
    if (strncmp(var, name, len) != 0 || (var[len] && var[len] != '.' && var[len] != '['))
        return false;
    size_t wl = strlen(what);
    return !indexed || (strncmp(var, what, wl) == 0 &&
                        (!var[wl] || var[wl] == '[' || var[wl] == '.'));
}

bool ui_dbg_print(const UiDbg *dbg, const char *what, UiDbgText *out)
{
    char name[128];
    int64_t index;
    /* a part of a variable with several indices (acc[1][0]): matched whole below */
    bool path = !ui_dbg_split_index(what, name, sizeof name, &index) && is_index_path(what);
    if (path) {
        snprintf(name, sizeof name, "%.*s", (int)strcspn(what, "["), what);
        index = -1;
    } else if (!ui_dbg_split_index(what, name, sizeof name, &index)) {
        ui_dbg_text_add(out, "print: expected a variable, a register (r5, r5l), a buffer "
                        "or threadgroup array (out, out[5]), not `%s`", what);
        return false;
    }
    UiDbgPlace place;
    if (!path && ui_dbg_locate(dbg, name, &place)) {
        const char *type = place.type_name[0] ? place.type_name : NULL;
        if (place.space != MEM_SPACE_THREADGROUP)
            return print_memory(name, index, type,
                                dbg->launch->bound.device->buffers[place.buffer].data + place.offset,
                                place.bytes, place.space == MEM_SPACE_CONSTANT ? "constant buffer"
                                                                               : "device buffer", out);
        const SimThreadgroupView *tg = dbg->finished ? NULL : dbg->sg->threadgroup;
        if (tg && place.offset + place.bytes <= tg->tg_memory_bytes)
            return print_memory(name, index, type, tg->tg_memory + place.offset, place.bytes,
                                "threadgroup memory", out);
    }
    if (dbg->finished) {
        ui_dbg_text_add(out, "the run is over: only buffer arguments can be printed, not `%s`",
                        what);
        return false;
    }
    const SimGroupView *sg = dbg->sg;
    const IsaProgram *p = dbg->program;
    char half;
    uint32_t reg;
    if (index < 0 && parse_register(what, &reg, &half)) {
        if (reg >= sg->num_regs) {
            ui_dbg_text_add(out, "the kernel uses r0 to r%u; it has no %s", sg->num_regs - 1, what);
            return false;
        }
        ui_dbg_text_add(out, "%s, lanes 0-%u (inactive lanes in parentheses):", what, sg->lanes - 1);
        print_lanes(dbg, half ? ISA_OPD_R16 : ISA_OPD_R32, half ? reg * 2 + (half == 'h') : reg,
                    NULL, out);
        return true;
    }
    const IsaVarLoc *live[256];
    uint32_t n = ui_dbg_live_vars(dbg, live, 256), found = 0;
    for (uint32_t i = 0; i < n; i++) {
        const IsaVarLoc *v = live[i];
        if (!part_of_name(v->name, name, what, index >= 0 || path))
            continue;
        char reg_name[16];
        if (v->kind == ISA_OPD_R16)
            snprintf(reg_name, sizeof reg_name, "r%u%c", v->index / 2u, v->index % 2 ? 'h' : 'l');
        else
            snprintf(reg_name, sizeof reg_name, "r%u", v->index);
        ui_dbg_text_add(out, "%s (%s, %s), lanes 0-%u (inactive lanes in parentheses):", v->name,
                        v->type_name, reg_name, sg->lanes - 1);
        print_lanes(dbg, v->kind, v->index, v->type_name, out);
        if (v->kind == ISA_OPD_R64 && v->type_name && strncmp(v->type_name, "simdgroup_", 10) == 0)
            print_matrix(dbg, v->index, out);
        found++;
    }
    /* the parts no register holds anywhere, because the compiler removed every instruction
     * that computed them (unless a live part has the same name) */
    for (uint32_t i = 0; i < p->num_gone; i++) {
        const IsaGoneVar *g = &p->gone[i];
        if (!part_of_name(g->name, name, what, index >= 0 || path))
            continue;
        bool shown = false;
        for (uint32_t k = 0; k < n && !shown; k++)
            shown = !strcmp(live[k]->name, g->name);
        for (uint32_t k = 0; k < i && !shown; k++) /* a helper's local and the caller's */
            shown = !strcmp(p->gone[k].name, g->name);
        if (shown)
            continue;
        ui_dbg_text_add(out, "%s (%s): optimized out", g->name, g->type_name);
        found++;
    }
    if (found)
        return true;
    const IsaSymbol *array = thread_array(dbg, name);
    if (array)
        return print_thread_array(dbg, array, what, out);
    for (uint32_t i = 0; i < p->num_vars; i++)
        if (strcmp(p->vars[i].name, name) == 0) {
            ui_dbg_text_add(out, "`%s` holds no value at pc 0x%04x (it lives at pc 0x%04x to 0x%04x)",
                            name, dbg->inst->pc, p->vars[i].pc_begin, p->vars[i].pc_end);
            return false;
        }
    ui_dbg_text_add(out, "no variable, register, buffer or threadgroup array named `%s`", what);
    return false;
}

/* ---- memory accesses ----------------------------------------------------------------------------- */

/* `name[off / elem]`, or `name+off` when off is not a whole element (or elem is unknown). */
static void name_element(const char *name, uint64_t off, uint32_t elem, char *buf, size_t size)
{
    if (elem && off % elem == 0)
        snprintf(buf, size, "%s[%llu]", name, (unsigned long long)(off / elem));
    else
        snprintf(buf, size, "%s+%llu", name, (unsigned long long)off);
}

/* An address as the kernel names it: `a[7]` for an element of a typed buffer argument or a
 * threadgroup array, else the buffer or space and the byte offset. */
static void name_address(const UiDbg *dbg, MemSpace space, uint64_t addr, char *buf, size_t size)
{
    const UiBound *b = &dbg->launch->bound;
    if (space == MEM_SPACE_DEVICE || space == MEM_SPACE_CONSTANT) {
        uint64_t index = (addr >> MEM_BUFFER_SHIFT) - 1, offset = addr & MEM_MAX_BUFFER_BYTES;
        for (uint32_t i = 0; i < b->num_args; i++) {
            const UiBoundArg *a = &b->args[i];
            if (a->buffer >= 0 && (uint64_t)a->buffer == index) {
                name_element(a->param->name, offset, a->typed ? ui_elem_size(a->type) : 0, buf, size);
                return;
            }
        }
        snprintf(buf, size, "device 0x%llx", (unsigned long long)addr);
        return;
    }
    if (space == MEM_SPACE_THREADGROUP) {
        const IsaProgram *p = dbg->program;
        for (uint32_t i = 0; i < p->num_symbols; i++) {
            const IsaSymbol *s = &p->symbols[i];
            if (s->space == ISA_SYM_THREADGROUP && addr >= s->offset && addr < s->offset + s->size) {
                name_element(s->name, addr - s->offset, s->elem_size, buf, size);
                return;
            }
        }
        UiDbgPlace place;
        for (uint32_t i = 0; i < b->num_args; i++) {
            const UiBoundArg *a = &b->args[i];
            if (a->buffer < 0 && ui_dbg_locate(dbg, a->param->name, &place) &&
                addr >= place.offset && addr < place.offset + place.bytes) {
                name_element(a->param->name, addr - place.offset,
                             a->typed ? ui_elem_size(a->type) : 0, buf, size);
                return;
            }
        }
        snprintf(buf, size, "threadgroup byte %llu", (unsigned long long)addr);
        return;
    }
    snprintf(buf, size, "stack byte %llu", (unsigned long long)addr);
}

bool ui_dbg_access(const UiDbg *dbg, bool lanes, UiDbgText *out)
{
    if (dbg->finished || dbg->sg->simdgroup >= UTIL_ARRAY_LEN(dbg->has_access) ||
        !dbg->has_access[dbg->sg->simdgroup])
        return false;
    const SimMemAccess *a = &dbg->last_access[dbg->sg->simdgroup];
    static const char *const kinds[] = {"read", "write", "atomic"};
    uint32_t n = util_popcount32(a->lane_mask);
    char first[96] = "-", last[96] = "-", cost[96] = "";
    if (a->lane_mask) {
        name_address(dbg, a->space, a->addr[__builtin_ctz(a->lane_mask)], first, sizeof first);
        name_address(dbg, a->space, a->addr[31 - __builtin_clz(a->lane_mask)], last, sizeof last);
    }
    const SimGpuConfig *gpu = &dbg->launch->gpu.config;
    if (a->space == MEM_SPACE_DEVICE || a->space == MEM_SPACE_CONSTANT) {
        /* distinct L1 lines among the lanes' spans: the requests it makes */
        uint32_t line = gpu->memory.level[MEM_LEVEL_L1].line_bytes, shift = 0, count = 0;
        while (line > 1u << shift)
            shift++;
        uint64_t seen[64];
        for (uint32_t m = a->lane_mask; m; m &= m - 1) {
            uint32_t l = (uint32_t)__builtin_ctz(m);
            for (uint64_t ln = a->addr[l] >> shift; ln <= (a->addr[l] + a->bytes - 1) >> shift; ln++) {
                bool known = false;
                for (uint32_t k = 0; k < count && !known; k++)
                    known = seen[k] == ln;
                if (!known && count < UTIL_ARRAY_LEN(seen))
                    seen[count++] = ln;
            }
        }
        snprintf(cost, sizeof cost, "; %u line%s of %u bytes", count, count == 1 ? "" : "s", line);
    } else if (a->space == MEM_SPACE_THREADGROUP && gpu->tg_banks) {
        uint32_t cycles = mem_tg_bank_cycles(a->addr, a->lane_mask, gpu->tg_banks, gpu->tg_bank_bytes);
        snprintf(cost, sizeof cost, "; %u bank cycle%s", cycles, cycles == 1 ? "" : "s");
    }
    int64_t index = isa_program_index_of_pc(dbg->program, a->inst->pc);
    uint32_t line = index >= 0 ? ui_dbg_line_of(dbg->program, (uint32_t)index) : 0;
    ui_dbg_text_add(out, "last access (pc 0x%04x, line %u): %s of %s memory, %u byte%s by each of %u "
                    "lane%s, %s .. %s%s", a->inst->pc, line,
                    kinds[a->kind <= SIM_ACCESS_ATOMIC ? a->kind : 0],
                    mem_space_names[a->space < MEM_SPACE_COUNT ? a->space : 0], a->bytes,
                    a->bytes == 1 ? "" : "s", n, n == 1 ? "" : "s", first, last, cost);
    if (!lanes)
        return true;
    uint32_t present = dbg->sg->lanes;
    for (uint32_t l0 = 0; l0 < present; l0 += 8) {
        char row[512];
        uint32_t l1 = l0 + 7 < present ? l0 + 7 : present - 1;
        size_t len = (size_t)snprintf(row, sizeof row, "  lanes %2u-%-2u:", l0, l1);
        for (uint32_t l = l0; l <= l1 && len < sizeof row; l++) {
            char name[96] = "-";
            if (a->lane_mask >> l & 1)
                name_address(dbg, a->space, a->addr[l], name, sizeof name);
            len += (size_t)snprintf(row + len, sizeof row - len, " %s", name);
        }
        ui_dbg_text_add(out, "%s", row);
    }
    return true;
}

/* ---- SIMD-groups of the threadgroup --------------------------------------------------------------- */

void ui_dbg_groups(const UiDbg *dbg, UiDbgText *out)
{
    const SimThreadgroupView *tg = dbg->sg->threadgroup;
    const IsaProgram *p = dbg->program;
    ui_dbg_text_add(out, "threadgroup (%u,%u,%u): %u SIMD-group%s, run one at a time up to each "
                    "barrier (functional order)", tg->position[0], tg->position[1], tg->position[2],
                    tg->num_simdgroups, tg->num_simdgroups == 1 ? "" : "s");
    for (uint32_t i = 0; i < dbg->num_groups; i++) {
        const struct UiDbgGroup *g = &dbg->groups[i];
        bool shown = i == dbg->sg->simdgroup;
        char state[96], where[48] = "";
        if (g->issued)
            snprintf(where, sizeof where, "line %u, pc 0x%04x", ui_dbg_line_of(p, g->last),
                     p->code[g->last].pc);
        if (shown)
            snprintf(state, sizeof state, "stopped here");
        else if (!g->issued)
            snprintf(state, sizeof state, "not started");
        else if (g->barrier >= 0)
            snprintf(state, sizeof state, "waits at the barrier of line %u",
                     ui_dbg_line_of(p, (uint32_t)g->barrier));
        else if (p->code[g->last].op == ISA_OP_STOP)
            snprintf(state, sizeof state, "ended");
        else
            snprintf(state, sizeof state, "runs next, when those before it reach a barrier or end");
        ui_dbg_text_add(out, "%s sg %-2u  %-22s %6llu issued  %s", shown ? "=>" : "  ", i,
                        shown ? "" : where, (unsigned long long)(shown ? g->issued - 1 : g->issued),
                        state);
    }
}
