/*
 * report.c — what `lockstep run` prints: a short aligned summary of the launch (labels in a
 * 12-column gutter, so a glance down the left edge finds a line), kernel faults as compiler-
 * style diagnostics, expectation verdicts with the first differing elements, and values.
 */
#include "ui.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

static void label(FILE *out, const char *text)
{
    fprintf(out, "%-11s ", text);
}

static void dims_text(const uint32_t d[3], char *buf, size_t size)
{
    snprintf(buf, size, "%u x %u x %u", d[0], d[1], d[2]);
}

void ui_report_header(FILE *out, const UiManifest *m, const IsaProgram *program)
{
    label(out, "kernel");
    fprintf(out, "%s  (%s)\n", program->name ? program->name : "?", m->kernel_path);
    label(out, "registers");
    fprintf(out, "%u per thread: up to %u threads resident per core\n", program->num_regs,
            ui_occupancy_threads(program->num_regs));
    uint32_t threads[3], groups[3];
    bool partial[3];
    int num_partial = 0, dims_used = 0;
    for (int d = 0; d < 3; d++) {
        if (m->by_threadgroups) {
            groups[d] = m->grid[d];
            threads[d] = m->grid[d] * m->threadgroup[d];
        } else {
            threads[d] = m->grid[d];
            groups[d] = (uint32_t)(((uint64_t)m->grid[d] + m->threadgroup[d] - 1) / m->threadgroup[d]);
        }
        partial[d] = threads[d] % m->threadgroup[d] != 0;
        num_partial += partial[d];
        dims_used += groups[d] > 1;
    }
    uint64_t total_groups = (uint64_t)groups[0] * groups[1] * groups[2];
    char t[64], g[64], tg[64];
    dims_text(threads, t, sizeof t);
    dims_text(groups, g, sizeof g);
    dims_text(m->threadgroup, tg, sizeof tg);
    label(out, "grid");
    fprintf(out, "%s threads, %" PRIu64 " threadgroup%s", t, total_groups,
            total_groups == 1 ? "" : "s");
    if (dims_used > 1)
        fprintf(out, " (%s)", g);
    fprintf(out, " of %s", tg);
    if (num_partial == 1 && dims_used <= 1)
        fprintf(out, " (last partial)");
    else if (num_partial)
        fprintf(out, " (partial at the %s edge%s)",
                num_partial == 1 ? (partial[0] ? "x" : partial[1] ? "y" : "z") : "grid's",
                num_partial == 1 ? "" : "s");
    fputc('\n', out);
}

void ui_report_run(FILE *out, const SimResult *r)
{
    label(out, "ran");
    fprintf(out, "%" PRIu64 " SIMD-group%s%s, %" PRIu64 " instructions, %" PRIu64
                 " lane-instructions, SIMD efficiency %.1f%%\n",
            r->simdgroups, r->simdgroups == 1 ? "" : "s",
            r->budget_exceeded || r->cancelled ? " to the end (stopped before the rest)" : "",
            r->instructions, r->lane_instructions, 100.0 * sim_result_simd_efficiency(r));
}

/* ---- where in the source ------------------------------------------------------------------ */

const IsaSourceLoc *ui_source_loc(const IsaProgram *p, uint32_t pc)
{
    int64_t i = isa_program_index_of_pc(p, pc);
    if (i < 0 || !p->locs || p->locs[i].line == 0 || p->locs[i].file >= p->num_files)
        return NULL;
    return &p->locs[i];
}

const char *ui_source_file(const IsaProgram *p, uint32_t file)
{
    return file < p->num_files && p->files[file] ? p->files[file] : "?";
}

const char *ui_where_text(const IsaProgram *p, const char *fallback_file, uint32_t pc,
                          char *buf, size_t size)
{
    const IsaSourceLoc *l = ui_source_loc(p, pc);
    if (!l)
        snprintf(buf, size, "%s: pc 0x%x", p->num_files ? ui_source_file(p, 0) : fallback_file,
                 pc);
    else if (l->col)
        snprintf(buf, size, "%s:%u:%u", ui_source_file(p, l->file), l->line, l->col);
    else
        snprintf(buf, size, "%s:%u", ui_source_file(p, l->file), l->line);
    return buf;
}

/* ---- faults ----------------------------------------------------------------------------- */

/* Whether `name` is one of the program's own constant arrays (bound as its constant data)
 * rather than a kernel argument. */
static bool is_program_constant(const IsaProgram *p, const char *name)
{
    for (uint32_t i = 0; p && name && i < p->num_args; i++)
        if (p->args[i].name && strcmp(p->args[i].name, name) == 0)
            return false;
    for (uint32_t i = 0; p && name && i < p->num_symbols; i++)
        if (p->symbols[i].space == ISA_SYM_CONSTANT && p->symbols[i].name &&
            strcmp(p->symbols[i].name, name) == 0)
            return true;
    return false;
}

static const char *space_text(const IsaProgram *p, const SimFault *f, char *buf, size_t size)
{
    switch (f->space) {
    case MEM_SPACE_DEVICE:
    case MEM_SPACE_CONSTANT:
        if (f->space == MEM_SPACE_CONSTANT && is_program_constant(p, f->buffer))
            snprintf(buf, size, "constant array '%s'", f->buffer);
        else
            snprintf(buf, size, "%s buffer '%s'", mem_space_names[f->space],
                     f->buffer ? f->buffer : "?");
        break;
    case MEM_SPACE_THREADGROUP:
        if (f->buffer) /* an array (or argument block) an index ran past */
            snprintf(buf, size, "threadgroup array '%s'", f->buffer);
        else
            snprintf(buf, size, "threadgroup memory");
        break;
    default:
        snprintf(buf, size, "thread (stack) memory");
        break;
    }
    return buf;
}

static void print_who(FILE *out, const SimFault *f)
{
    const SimThreadId *t = &f->thread;
    fprintf(out, " by thread (%u,%u,%u) threadgroup (%u,%u,%u) SIMD-group %u lane %u, pc 0x%x\n",
            t->grid[0], t->grid[1], t->grid[2], t->threadgroup[0], t->threadgroup[1],
            t->threadgroup[2], t->simdgroup, t->lane, f->pc);
}

/* "k.metal:6:17: " (and, for code inlined from a helper, the call it came through after the
 * message), or nothing when the program has no source location for the fault's pc. */
static void print_where(FILE *out, const IsaProgram *p, const SimFault *f)
{
    char where[600];
    if (p && ui_source_loc(p, f->pc))
        fprintf(out, "%s: ", ui_where_text(p, "?", f->pc, where, sizeof where));
}

/* The fault's diagnostic; `more` of the access's later lanes (up to lane `last`) are counted
 * after it, before the note of the call its code came through. */
static bool report_fault(FILE *out, const IsaProgram *p, const SimFault *f, uint32_t more,
                         uint32_t last)
{
    char where[200];
    const char *rw = f->is_write ? "write" : "read";
    if (f->kind != SIM_FAULT_OUT_OF_BOUNDS && f->kind != SIM_FAULT_NO_BUFFER &&
        f->kind != SIM_FAULT_CONSTANT_WRITE)
        return false; /* the budget is reported once, by ui_report_faults */
    print_where(out, p, f);
    switch (f->kind) {
    case SIM_FAULT_OUT_OF_BOUNDS:
        fprintf(out, "error: out-of-bounds %s of %s at byte offset %" PRId64 " (%u bytes; ",
                rw, space_text(p, f, where, sizeof where), (int64_t)f->offset, f->bytes);
        if (f->valid_bytes)
            fprintf(out, "valid 0..%" PRIu64 ")", f->valid_bytes - 1);
        else
            fprintf(out, "it has no valid bytes)");
        break;
    case SIM_FAULT_NO_BUFFER:
        fprintf(out, "error: %s of %u bytes at device address 0x%" PRIx64
                     ", which belongs to no buffer,", rw, f->bytes, f->offset);
        break;
    default:
        fprintf(out, "error: write to read-only %s at byte offset %" PRIu64 " (%u bytes)",
                space_text(p, f, where, sizeof where), f->offset, f->bytes);
        break;
    }
    print_who(out, f);
    if (more)
        fprintf(out, "  (and %u more lane%s of the same access, up to lane %u)\n", more,
                more == 1 ? "" : "s", last);
    if (p) {
        const IsaSourceLoc *l = ui_source_loc(p, f->pc);
        char call[256];
        /* " (in stage, called at line 16)" -> "note: in stage, called at line 16" */
        size_t len = l ? strlen(isa_call_text(p, l, call, sizeof call)) : 0;
        if (len > 3)
            fprintf(out, "  note: %.*s\n", (int)(len - 3), call + 2);
    }
    return true;
}

bool ui_report_fault(FILE *out, const IsaProgram *p, const SimFault *f)
{
    return report_fault(out, p, f, 0, 0);
}

/* Whether b is a's instruction again, on another lane: same pc, SIMD-group and kind of
 * fault on the same memory (the lanes of one access fault together). */
static bool same_access(const SimFault *a, const SimFault *b)
{
    const SimThreadId *s = &a->thread, *t = &b->thread;
    return a->kind == b->kind && a->pc == b->pc && a->space == b->space &&
           a->is_write == b->is_write && a->buffer == b->buffer && s->simdgroup == t->simdgroup &&
           memcmp(s->threadgroup, t->threadgroup, sizeof s->threadgroup) == 0 &&
           s->lane < t->lane;
}

uint64_t ui_report_faults(FILE *out, const IsaProgram *p, const SimResult *r, uint64_t budget)
{
    uint64_t printed = 0;
    for (uint32_t i = 0; i < r->num_faults;) {
        uint32_t n = 1;
        while (i + n < r->num_faults && same_access(&r->faults[i + n - 1], &r->faults[i + n]))
            n++;
        printed += report_fault(out, p, &r->faults[i], n - 1, r->faults[i + n - 1].thread.lane);
        i += n;
    }
    if (r->total_faults > r->num_faults)
        fprintf(out, "  (and %" PRIu64 " more)\n", r->total_faults - r->num_faults);
    if (r->budget_exceeded) {
        fprintf(out, "error: instruction budget of %" PRIu64 " exhausted; the kernel was stopped "
                     "(raise it with `budget:` or --budget)\n", r->budget ? r->budget : budget);
        printed++;
    }
    return printed;
}

static void element_name(const char *arg, UiElemType t, uint64_t element, uint32_t component,
                         char *buf, size_t size)
{
    if (t.lanes == 1)
        snprintf(buf, size, "%s[%" PRIu64 "]", arg, element);
    else
        snprintf(buf, size, "%s[%" PRIu64 "].%c", arg, element, "xyzw"[component]);
}

bool ui_report_expect(FILE *out, const UiBoundArg *arg, const uint8_t *got, bool quiet)
{
    const UiExpect *e = &arg->spec->expect;
    UiCompareResult res;
    ui_compare(arg->type, got, arg->want, arg->count, e->rtol, e->atol, e->has_tolerance, &res);
    char lab[200];
    snprintf(lab, sizeof lab, "expect %s", arg->spec->name);
    if (res.mismatched_elements == 0) {
        if (!quiet) {
            label(out, lab);
            fprintf(out, "ok (%" PRIu64 " element%s)\n", arg->count, arg->count == 1 ? "" : "s");
        }
        return true;
    }
    label(out, lab);
    fprintf(out, "FAILED: %" PRIu64 " of %" PRIu64 " elements differ", res.mismatched_elements,
            arg->count);
    if (e->has_tolerance)
        fprintf(out, " (rtol %g, atol %g)", e->rtol, e->atol);
    fputc('\n', out);
    for (uint32_t i = 0; i < res.num_first; i++) {
        const UiMismatch *mm = &res.first[i];
        char name[240], g[48], w[48];
        element_name(arg->spec->name, arg->type, mm->element, mm->component, name, sizeof name);
        ui_format_number(arg->type.scalar, &mm->got, g, sizeof g);
        ui_format_number(arg->type.scalar, &mm->want, w, sizeof w);
        fprintf(out, "  %s: got %s, expected %s", name, g, w);
        if (ui_scalar_is_float(arg->type.scalar))
            fprintf(out, " (diff %.6g)\n", mm->diff);
        else if (fabs(mm->diff) < 9007199254740992.0)
            fprintf(out, " (diff %.0f)\n", mm->diff);
        else
            fprintf(out, " (diff %.6g)\n", mm->diff);
    }
    return false;
}

void ui_report_values(FILE *out, const char *name, UiElemType t, const uint8_t *data,
                      uint64_t count)
{
    char lab[200], tname[16], num[48];
    snprintf(lab, sizeof lab, "dump %s", name);
    label(out, lab);
    ui_elem_type_name(t, tname, sizeof tname);
    uint64_t scalars = count * t.lanes;
    /* Short arrays read best on one line; longer ones a few elements per line, with the
     * index of the first so a value can be found. */
    bool one_line = scalars <= 16;
    uint64_t per_line = t.lanes == 1 ? 8 : 2;
    if (!one_line)
        fprintf(out, "%" PRIu64 " x %s\n", count, tname);
    for (uint64_t i = 0; i < count; i++) {
        if (!one_line && i % per_line == 0)
            fprintf(out, "%s  [%" PRIu64 "]", i ? "\n" : "", i);
        if (!(i == 0 && one_line))
            fputc(' ', out);
        if (t.lanes > 1)
            fputc('(', out);
        for (uint32_t c = 0; c < t.lanes; c++) {
            UiNumber n = ui_load_number(t.scalar, data + ui_scalar_offset(t, i * t.lanes + c));
            fprintf(out, "%s%s", c ? ", " : "", ui_format_number(t.scalar, &n, num, sizeof num));
        }
        if (t.lanes > 1)
            fputc(')', out);
    }
    fputc('\n', out);
}
