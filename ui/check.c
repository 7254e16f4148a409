/*
 * check.c — `lockstep check LAUNCH.yaml`: runs the dispatch with every bug finder of check/
 * attached and prints each finding the way a compiler prints an error — primary location,
 * message, both accesses with their source line and caret and the thread that made them,
 * the fix, how often it happened — then the policies the checkers assumed and the divergence
 * profile; or all of it as JSON Lines (--json). `lockstep run --check` and `--divergence`
 * use the same pieces (ui_checking_*), so the two commands can never report differently.
 *
 * The primary location of a two-access finding is the SECOND access: it is the one that
 * completes the conflict (a compiler points at the use, not the declaration), and it is
 * where a fix — a barrier, an atomic — usually goes just before.
 */
#include "ui.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void ui_check_usage(FILE *out)
{
    fputs("usage: lockstep check LAUNCH.yaml [options]\n"
          "\n"
          "Runs the dispatch a launch manifest describes with every bug finder on: data races\n"
          "on threadgroup and device memory, barrier divergence, SIMD-group functions reading\n"
          "inactive lanes or given a lane, delta or mask MSL leaves undefined, out-of-bounds\n"
          "accesses, uninitialized reads (threadgroup memory, init: none buffers, private\n"
          "arrays) and values used before anything was assigned to them (a variable\n"
          "declared without a value), reads of async loads before their wait; then prints\n"
          "the divergence profile (see docs/checks.md).\n"
          "\n"
          "options:\n"
          "  --json                    print JSON Lines: one object per finding, then a summary\n"
          "  --strict-simd             do not assume the lanes of a SIMD-group run in lockstep\n"
          "                            (a lane's write and another lane's access race unless a\n"
          "                            simdgroup_barrier separates them)\n"
          "  --same-value-races        report writes of the same value as races (default: benign)\n"
          "  --no-races                turn off the data-race check\n"
          "  --no-barriers             turn off the barrier-divergence check\n"
          "  --no-simd                 turn off the checks of SIMD-group functions (inactive\n"
          "                            lanes read, undefined lane, delta or mask operands)\n"
          "  --no-memory               turn off out-of-bounds and read-before-wait findings\n"
          "  --no-uninit               turn off the uninitialized-read and -value checks\n"
          "  --no-divergence           do not collect or print the divergence profile\n"
          "  --mode functional|timed   override the manifest's mode; timed runs the checks in\n"
          "                            a functional run beside it, so its cycles and outputs\n"
          "                            are those of the run without checks\n"
          "  --gpu NAME|CONFIG.yaml    the GPU timed mode models (default m1; `lockstep gpus`)\n"
          "  --stats[=json]            print the timing statistics (see `lockstep run --help`);\n"
          "                            with --json or =json, as one JSON line of type \"stats\"\n"
          "  --budget N                stop the kernel after N SIMD-group instructions\n"
          "  --quiet                   print only the findings\n"
          "  -h, --help                show this help\n"
          "\n"
          "exit status: 0 nothing at error level found (and every expectation met); 1 an error\n"
          "found or an expectation not met; 2 bad input\n",
          out);
}

/* ---- source text ----------------------------------------------------------------------------- */

typedef struct Sources {
    const IsaProgram *program;
    char **texts;               /* per program file, read on first use; NULL when unreadable */
    bool *tried;
} Sources;

static void sources_init(Sources *s, const IsaProgram *p)
{
    s->program = p;
    uint32_t n = p->num_files ? p->num_files : 1;
    s->texts = util_calloc(n, sizeof *s->texts);
    s->tried = util_calloc(n, sizeof *s->tried);
}

static void sources_free(Sources *s)
{
    for (uint32_t i = 0; i < s->program->num_files; i++)
        free(s->texts[i]);
    free(s->texts);
    free(s->tried);
}

/* Line `line` (1-based) of a program file, without its newline; *len receives its length. */
static const char *source_line(Sources *s, uint32_t file, uint32_t line, size_t *len)
{
    if (file >= s->program->num_files || line == 0)
        return NULL;
    if (!s->tried[file]) {
        s->tried[file] = true;
        UtilError err;
        s->texts[file] = util_read_file(s->program->files[file], NULL, &err);
    }
    const char *p = s->texts[file];
    for (uint32_t k = 1; p && k < line; k++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (!p || !*p)
        return NULL;
    const char *end = strchr(p, '\n');
    *len = end ? (size_t)(end - p) : strlen(p);
    if (*len && p[*len - 1] == '\r')
        (*len)--;
    return p;
}

/* "    27 |     scratch[lid] = in[gid];" and a caret under column col, followed by `note`. */
static void print_line(FILE *out, Sources *s, const IsaSourceLoc *l, const char *note)
{
    size_t len;
    const char *text = source_line(s, l->file, l->line, &len);
    if (!text)
        return;
    fprintf(out, "  %6u | %.*s\n", l->line, (int)UTIL_MIN(len, 200), text);
    if (!l->col || l->col > len + 1)
        return;
    fputs("         | ", out);
    for (uint32_t i = 0; i + 1 < l->col; i++)
        fputc(text[i] == '\t' ? '\t' : ' ', out);
    fprintf(out, "^%s\n", note);
}

/* pc's source line, and for code inlined from a helper each call it came through. */
static void print_source(FILE *out, Sources *s, uint32_t pc)
{
    const IsaSourceLoc *l = ui_source_loc(s->program, pc);
    if (!l)
        return;
    print_line(out, s, l, "");
    char note[160];
    const IsaSourceLoc *at = l;
    for (int depth = 0; depth < 64; depth++) {
        const IsaCallSite *c = isa_call_of(s->program, at);
        if (!c || !c->loc.line || c->loc.file >= s->program->num_files)
            break;
        snprintf(note, sizeof note, " %s called here", c->func);
        print_line(out, s, &c->loc, note);
        at = &c->loc;
    }
}

/* " (in stage, called at line 16)" for inlined code at pc, else "". */
static const char *call_text(const IsaProgram *p, uint32_t pc, char *buf, size_t size)
{
    const IsaSourceLoc *l = ui_source_loc(p, pc);
    buf[0] = '\0';
    return l ? isa_call_text(p, l, buf, size) : buf;
}

/* ---- text reports ---------------------------------------------------------------------------- */

static const char *const severity_names[] = {"error", "warning", "note"};
static const char *const access_names[] = {"read", "write", "atomic access"};

static const char *severity_name(CheckSeverity s)
{
    return (unsigned)s < UTIL_ARRAY_LEN(severity_names) ? severity_names[s] : "error";
}

/* Findings whose sites are memory accesses (the others are instructions: a barrier, a
 * shuffle, the point the budget ran out). */
static bool is_memory_kind(CheckKind k)
{
    return k == CHECK_RACE || k == CHECK_OUT_OF_BOUNDS || k == CHECK_UNINITIALIZED ||
           k == CHECK_CONSTANT_WRITE;
}

static const char *inst_name(const IsaProgram *p, uint32_t pc)
{
    int64_t i = isa_program_index_of_pc(p, pc);
    return i >= 0 ? isa_ops[p->code[i].op].name : "instruction";
}

/* " of simd_shuffle_and_fill_up" for an instruction of a call compiled to several, or "". */
static const char *part_text(const IsaProgram *p, uint32_t pc, char *buf, size_t size)
{
    const int64_t i = isa_program_index_of_pc(p, pc);
    buf[0] = '\0';
    for (uint32_t k = 0; i >= 0 && k < p->num_parts; k++)
        if (p->parts[k].index == (uint64_t)i)
            snprintf(buf, size, " of %s", p->parts[k].func);
    return buf;
}

static void print_site(FILE *out, Sources *src, const char *fallback_file, const char *label,
                       CheckKind kind, const CheckSite *site)
{
    char where[600], name[160], call[256], part[80];
    ui_where_text(src->program, fallback_file, site->pc, where, sizeof where);
    call_text(src->program, site->pc, call, sizeof call);
    if (is_memory_kind(kind))
        fprintf(out, "  %s %s of %s at %s%s\n", label,
                access_names[site->access <= CHECK_ACCESS_ATOMIC ? site->access : 0],
                check_site_name(site, name, sizeof name), where, call);
    else
        fprintf(out, "  %s %s%s at %s%s\n", label, inst_name(src->program, site->pc),
                part_text(src->program, site->pc, part, sizeof part), where, call);
    print_source(out, src, site->pc);
    const SimThreadId *t = &site->thread;
    fprintf(out, "           by thread (%u,%u,%u) in threadgroup (%u,%u,%u), SIMD-group %u, lane %u, "
                 "pc 0x%x\n",
            t->grid[0], t->grid[1], t->grid[2], t->threadgroup[0], t->threadgroup[1],
            t->threadgroup[2], t->simdgroup, t->lane, site->pc);
}

static void print_finding(FILE *out, Sources *src, const char *fallback_file,
                          const CheckFinding *f)
{
    const CheckSite *primary = f->second.valid ? &f->second : &f->first;
    char where[600];
    if (primary->valid)
        ui_where_text(src->program, fallback_file, primary->pc, where, sizeof where);
    else
        snprintf(where, sizeof where, "%s", fallback_file);
    fprintf(out, "%s: %s: %s\n", where, severity_name(f->severity), f->message);
    if (f->second.valid) {
        if (f->first.valid)
            print_site(out, src, fallback_file, "first: ", f->kind, &f->first);
        print_site(out, src, fallback_file, "second:", f->kind, &f->second);
    } else if (f->first.valid) {
        print_site(out, src, fallback_file, is_memory_kind(f->kind) ? "access:" : "at:",
                   f->kind, &f->first);
    }
    if (f->fix[0])
        fprintf(out, "  note: %s\n", f->fix);
    fprintf(out, "  (%" PRIu64 " occurrence%s)\n", f->count, f->count == 1 ? "" : "s");
}

void ui_check_print_finding(FILE *out, const IsaProgram *program, const char *kernel_file,
                            const CheckFinding *f)
{
    Sources src;
    sources_init(&src, program);
    print_finding(out, &src, kernel_file, f);
    sources_free(&src);
}

static void print_policies(FILE *out, const CheckOptions *o)
{
    fprintf(out, "%-11s %s; %s\n", "policies",
            o->same_value_races ? "same-value writes reported as races (--same-value-races)"
                                : "same-value writes benign (--same-value-races to change)",
            o->strict_simd ? "SIMD-group lanes not ordered by lockstep (--strict-simd)"
                           : "SIMD-group lanes ordered by lockstep (--strict-simd to change)");
    const char *off[6];
    int n = 0;
    if (!o->races) off[n++] = "races";
    if (!o->barriers) off[n++] = "barriers";
    if (!o->simd) off[n++] = "simd";
    if (!o->memory) off[n++] = "memory";
    if (!o->uninit) off[n++] = "uninit";
    if (!o->divergence_profile) off[n++] = "divergence";
    if (n) {
        fprintf(out, "%-11s", "checks off");
        for (int i = 0; i < n; i++)
            fprintf(out, "%s %s", i ? "," : "", off[i]);
        fputc('\n', out);
    }
}

/* The kernel-wide efficiency: from the profile when profile.c filled it, else the run's. */
static void kernel_efficiency(const CheckProfile *prof, const SimResult *r, uint64_t *instr,
                              uint64_t *slots)
{
    *instr = prof && prof->lane_slots ? prof->lane_instructions : r->lane_instructions;
    *slots = prof && prof->lane_slots ? prof->lane_slots : r->lane_slots;
}

void ui_check_print_profile(FILE *out, const IsaProgram *p, const char *kernel_file,
                            const CheckProfile *prof, const SimResult *r, bool full)
{
    uint64_t instr, slots;
    kernel_efficiency(prof, r, &instr, &slots);
    double eff = slots ? (double)instr / (double)slots : 1.0;
    uint32_t diverged_sites = 0, worst = UINT32_MAX;
    for (uint32_t i = 0; prof && i < prof->num_branches; i++) {
        const CheckBranchProfile *b = &prof->branches[i];
        diverged_sites += b->diverged > 0;
        if (b->lanes_idle && (worst == UINT32_MAX || b->lanes_idle > prof->branches[worst].lanes_idle))
            worst = i;
    }
    uint32_t sites = prof ? prof->num_branches : 0;
    fprintf(out, "%-11s SIMD efficiency %.1f%% (%.1f%% of lane-slots idle); %u branch site%s, "
                 "%u diverged\n", "divergence", 100.0 * eff, 100.0 * (1.0 - eff), sites,
            sites == 1 ? "" : "s", diverged_sites);
    char where[600];
    if (!full) {
        if (worst != UINT32_MAX) {
            const CheckBranchProfile *b = &prof->branches[worst];
            fprintf(out, "%-11s costliest branch %s: diverged %" PRIu64 " of %" PRIu64
                         " executions, %.1f%% of lane-slots lost\n", "",
                    ui_where_text(p, kernel_file, b->pc, where, sizeof where), b->diverged,
                    b->executions, slots ? 100.0 * (double)b->lanes_idle / (double)slots : 0.0);
        }
        return;
    }
    if (!sites)
        return;
    fprintf(out, "  %-40s %12s %12s %16s\n", "branch site", "executions", "diverged",
            "efficiency lost");
    for (uint32_t i = 0; i < sites; i++) {
        const CheckBranchProfile *b = &prof->branches[i];
        fprintf(out, "  %-40s %12" PRIu64 " %12" PRIu64 " %15.1f%%\n",
                ui_where_text(p, kernel_file, b->pc, where, sizeof where), b->executions,
                b->diverged, slots ? 100.0 * (double)b->lanes_idle / (double)slots : 0.0);
    }
}

/* ---- JSON -------------------------------------------------------------------------------------- */

static void json_dims(FILE *out, const uint32_t d[3])
{
    fprintf(out, "[%u,%u,%u]", d[0], d[1], d[2]);
}

/* "file":..,"line":..,"col":..,"source":..,"calls":[..] of pc (nulls when unknown; calls
 * lists the helper calls inlined code came through, innermost first). */
static void json_location(FILE *out, Sources *src, uint32_t pc)
{
    const IsaSourceLoc *l = ui_source_loc(src->program, pc);
    if (!l) {
        fputs("\"file\":null,\"line\":null,\"col\":null,\"source\":null,\"calls\":[]", out);
        return;
    }
    fputs("\"file\":", out);
    util_json_string(out, ui_source_file(src->program, l->file));
    fprintf(out, ",\"line\":%u,\"col\":%u,\"source\":", l->line, l->col);
    size_t len;
    const char *text = source_line(src, l->file, l->line, &len);
    if (text)
        util_json_string_n(out, text, len);
    else
        fputs("null", out);
    fputs(",\"calls\":[", out);
    const IsaSourceLoc *at = l;
    for (int depth = 0; depth < 64; depth++) {
        const IsaCallSite *c = isa_call_of(src->program, at);
        if (!c)
            break;
        fputs(depth ? ",{\"function\":" : "{\"function\":", out);
        util_json_string(out, c->func);
        fputs(",\"file\":", out);
        util_json_string(out, ui_source_file(src->program, c->loc.file));
        fprintf(out, ",\"line\":%u,\"col\":%u}", c->loc.line, c->loc.col);
        at = &c->loc;
    }
    fputc(']', out);
}

static void json_site(FILE *out, Sources *src, const CheckSite *s)
{
    if (!s->valid) {
        fputs("null", out);
        return;
    }
    static const char *const access[] = {"read", "write", "atomic"};
    char name[160];
    fprintf(out, "{\"pc\":%u,", s->pc);
    json_location(out, src, s->pc);
    fprintf(out, ",\"instruction\":");
    util_json_string(out, inst_name(src->program, s->pc));
    fprintf(out, ",\"access\":\"%s\",\"space\":",
            access[s->access <= CHECK_ACCESS_ATOMIC ? s->access : 0]);
    util_json_string(out, (unsigned)s->space < MEM_SPACE_COUNT ? mem_space_names[s->space] : "?");
    fputs(",\"symbol\":", out);
    if (s->symbol[0])
        util_json_string(out, s->symbol);
    else
        fputs("null", out);
    if (s->index == CHECK_NO_INDEX)
        fprintf(out, ",\"index\":null");
    else
        fprintf(out, ",\"index\":%" PRId64, s->index);
    fprintf(out, ",\"offset\":%" PRId64 ",\"name\":", (int64_t)s->offset);
    util_json_string(out, check_site_name(s, name, sizeof name));
    fputs(",\"thread\":{\"grid\":", out);
    json_dims(out, s->thread.grid);
    fputs(",\"threadgroup\":", out);
    json_dims(out, s->thread.threadgroup);
    fputs(",\"local\":", out);
    json_dims(out, s->thread.local);
    fprintf(out, ",\"simdgroup\":%u,\"lane\":%u}}", s->thread.simdgroup, s->thread.lane);
}

static void json_finding(FILE *out, Sources *src, const CheckFinding *f)
{
    const CheckSite *primary = f->second.valid ? &f->second : &f->first;
    fputs("{\"type\":\"finding\",\"kind\":", out);
    util_json_string(out, (unsigned)f->kind < CHECK_KIND_COUNT ? check_kind_names[f->kind] : "?");
    fprintf(out, ",\"severity\":\"%s\",\"message\":", severity_name(f->severity));
    util_json_string(out, f->message);
    fputc(',', out);
    if (primary->valid)
        json_location(out, src, primary->pc);
    else
        fputs("\"file\":null,\"line\":null,\"col\":null,\"source\":null", out);
    fputs(",\"fix\":", out);
    if (f->fix[0])
        util_json_string(out, f->fix);
    else
        fputs("null", out);
    fprintf(out, ",\"count\":%" PRIu64 ",\"first\":", f->count);
    json_site(out, src, &f->first);
    fputs(",\"second\":", out);
    json_site(out, src, &f->second);
    fputs("}\n", out);
}

/* ---- a checked run --------------------------------------------------------------------------- */

void ui_checking_start(UiChecking *c, const IsaProgram *program, const UiBound *bound,
                       const CheckOptions *opts, SimLaunch *launch)
{
    memset(c, 0, sizeof *c);
    c->opts = *opts;
    uint32_t n = bound->device->count;
    c->buffers = util_calloc(n ? n : 1, sizeof *c->buffers);
    for (uint32_t i = 0; i < n; i++)
        c->buffers[i].elem_size = 1;
    for (uint32_t i = 0; i < bound->num_args; i++) {
        const UiBoundArg *a = &bound->args[i];
        if (a->buffer < 0 || (uint32_t)a->buffer >= n)
            continue;
        CheckBufferInfo *info = &c->buffers[a->buffer];
        info->elem_size = a->typed ? ui_elem_size(a->type)
                          : a->param->elem_size ? a->param->elem_size : 1;
        info->uninitialized = a->uninitialized;
    }
    c->session = check_session_new(program, bound->device, c->buffers, bound->bindings, opts);
    launch->observers = check_session_observers(c->session, &launch->num_observers);
}

typedef struct CheckedPass {
    SimLaunch launch;
    SimResult result;
    UtilError err;
    bool ok;
} CheckedPass;

static void *run_pass(void *arg)
{
    CheckedPass *p = arg;
    p->ok = sim_dispatch(&p->launch, &p->result, &p->err);
    return NULL;
}

bool ui_checking_dispatch(UiChecking *c, SimLaunch *launch, SimResult *result, UtilError *err)
{
    if (launch->mode != SIM_MODE_TIMED)
        return sim_dispatch(launch, result, err);
    mem_device_own_pages(launch->device); /* the timed run stores there beside the thread */
    /* The checked run gets its own copy of every buffer the kernel may write; the others
     * both runs only read, so they share them (no copy to make, no pages to fault in). */
    const uint32_t n = launch->device->count;
    bool *share = util_calloc(n ? n : 1, sizeof *share);
    for (uint32_t i = 0; i < n; i++)
        share[i] = !check_session_may_write(c->session, i);
    MemDevice *copy = mem_device_clone_sharing(launch->device, share);
    free(share);
    CheckedPass checked = {.launch = *launch};
    checked.launch.mode = SIM_MODE_FUNCTIONAL;
    checked.launch.device = copy;
    SimLaunch timed = *launch;
    timed.observers = NULL;
    timed.num_observers = 0;
    pthread_t thread;
    const bool threaded = pthread_create(&thread, NULL, run_pass, &checked) == 0;
    if (!threaded)
        run_pass(&checked);
    bool ok = sim_dispatch(&timed, result, err);
    if (threaded)
        pthread_join(thread, NULL);
    c->two_pass = true;
    c->checked = checked.result;
    c->copy = copy;
    if (ok && !checked.ok) {
        *err = checked.err;
        ok = false;
    }
    return ok;
}

void ui_checking_finish(UiChecking *c, const SimResult *r)
{
    c->findings = check_session_finish(c->session, ui_checking_result(c, r), &c->num_findings);
    for (uint32_t i = 0; i < c->num_findings; i++) {
        CheckSeverity s = c->findings[i].severity;
        c->errors += s == CHECK_ERROR || (unsigned)s > CHECK_NOTE;
        c->warnings += s == CHECK_WARNING;
    }
}

void ui_checking_print(FILE *out, const UiChecking *c, const IsaProgram *program,
                       const char *kernel_file, const SimResult *r, bool full_profile)
{
    Sources src;
    sources_init(&src, program);
    for (uint32_t i = 0; i < c->num_findings; i++)
        print_finding(out, &src, kernel_file, &c->findings[i]);
    sources_free(&src);
    print_policies(out, &c->opts);
    if (c->num_findings == 0)
        fprintf(out, "%-11s no problems found\n", "checks");
    else
        fprintf(out, "%-11s %" PRIu64 " error%s, %" PRIu64 " warning%s (%u finding%s)\n", "checks",
                c->errors, c->errors == 1 ? "" : "s", c->warnings, c->warnings == 1 ? "" : "s",
                c->num_findings, c->num_findings == 1 ? "" : "s");
    if (c->opts.divergence_profile)
        ui_check_print_profile(out, program, kernel_file, check_session_profile(c->session),
                               ui_checking_result(c, r), full_profile);
}

void ui_checking_end(UiChecking *c)
{
    if (c->two_pass)
        sim_result_free(&c->checked);
    mem_device_free(c->copy);
    check_session_free(c->session);
    free(c->buffers);
    memset(c, 0, sizeof *c);
}

/* ---- the command ---------------------------------------------------------------------------- */

typedef struct CheckArgs {
    const char *manifest;
    CheckOptions opts;
    bool json, quiet;
    UiLaunchFlags launch;     /* --mode --budget --gpu --stats */
} CheckArgs;

#define usage_error(...) ui_usage_error("check", ui_check_usage, __VA_ARGS__)

/* Returns -1 when the options are fine, else the exit status. */
static int parse_args(int argc, char **argv, CheckArgs *o)
{
    static const struct { const char *name; size_t field; bool value; } flags[] = {
        {"--strict-simd", offsetof(CheckOptions, strict_simd), true},
        {"--same-value-races", offsetof(CheckOptions, same_value_races), true},
        {"--no-races", offsetof(CheckOptions, races), false},
        {"--no-barriers", offsetof(CheckOptions, barriers), false},
        {"--no-simd", offsetof(CheckOptions, simd), false},
        {"--no-memory", offsetof(CheckOptions, memory), false},
        {"--no-uninit", offsetof(CheckOptions, uninit), false},
        {"--no-divergence", offsetof(CheckOptions, divergence_profile), false},
    };
    o->opts = check_options_all();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            ui_check_usage(stdout);
            return UI_EXIT_OK;
        }
        bool matched = false;
        for (size_t k = 0; k < UTIL_ARRAY_LEN(flags) && !matched; k++) {
            if (strcmp(a, flags[k].name) == 0) {
                *(bool *)((char *)&o->opts + flags[k].field) = flags[k].value;
                matched = true;
            }
        }
        if (matched)
            continue;
        if (strcmp(a, "--json") == 0) {
            o->json = true;
            continue;
        }
        if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            o->quiet = true;
            continue;
        }
        char why[160];
        int took = ui_launch_flag(argc, argv, &i, &o->launch, why, sizeof why);
        if (took < 0)
            return usage_error("%s", why);
        if (took)
            continue;
        if (a[0] == '-' && a[1] != '\0')
            return usage_error("unknown option '%s'", a);
        if (o->manifest)
            return usage_error("unexpected argument '%s' (one manifest per check)", a);
        o->manifest = a;
    }
    if (!o->manifest)
        return usage_error("expected a launch manifest (LAUNCH.yaml)");
    return -1;
}

static void json_summary(FILE *out, const CheckArgs *o, const UiManifest *m,
                         const IsaProgram *program, const UiBound *bound, const SimResult *r,
                         const UiChecking *c, int status)
{
    fputs("{\"type\":\"summary\",\"manifest\":", out);
    util_json_string(out, m->path);
    fputs(",\"kernel\":", out);
    util_json_string(out, program->name);
    fputs(",\"kernel_file\":", out);
    util_json_string(out, m->kernel_path);
    fputs(",\"grid_threads\":", out);
    json_dims(out, r->grid_threads);
    fputs(",\"grid_threadgroups\":", out);
    json_dims(out, r->grid_threadgroups);
    fputs(",\"threadgroup\":", out);
    json_dims(out, m->threadgroup);
    fprintf(out, ",\"threads\":%" PRIu64 ",\"simdgroups\":%" PRIu64 ",\"instructions\":%" PRIu64
                 ",\"lane_instructions\":%" PRIu64 ",\"lane_slots\":%" PRIu64
                 ",\"simd_efficiency\":%.6f,\"budget_exceeded\":%s",
            r->threads, r->simdgroups, r->instructions, r->lane_instructions, r->lane_slots,
            sim_result_simd_efficiency(r), r->budget_exceeded ? "true" : "false");
    fprintf(out, ",\"findings\":%u,\"errors\":%" PRIu64 ",\"warnings\":%" PRIu64,
            c->num_findings, c->errors, c->warnings);
    const CheckOptions *p = &o->opts;
    fprintf(out, ",\"checks\":{\"races\":%s,\"barriers\":%s,\"simd\":%s,\"memory\":%s,"
                 "\"uninit\":%s,\"divergence\":%s}",
            p->races ? "true" : "false", p->barriers ? "true" : "false",
            p->simd ? "true" : "false", p->memory ? "true" : "false",
            p->uninit ? "true" : "false", p->divergence_profile ? "true" : "false");
    fprintf(out, ",\"policies\":{\"strict_simd\":%s,\"same_value_races\":%s}",
            p->strict_simd ? "true" : "false", p->same_value_races ? "true" : "false");
    fputs(",\"expectations\":[", out);
    int n = 0;
    for (uint32_t i = 0; i < bound->num_args; i++) {
        const UiBoundArg *a = &bound->args[i];
        if (!a->want)
            continue;
        UiCompareResult res;
        const UiExpect *e = &a->spec->expect;
        ui_compare(a->type, bound->device->buffers[a->buffer].data, a->want, a->count, e->rtol,
                   e->atol, e->has_tolerance, &res);
        fprintf(out, "%s{\"arg\":", n++ ? "," : "");
        util_json_string(out, a->spec->name);
        fprintf(out, ",\"ok\":%s,\"elements\":%" PRIu64 ",\"mismatched\":%" PRIu64 "}",
                res.mismatched_elements ? "false" : "true", a->count, res.mismatched_elements);
    }
    fputc(']', out);
    if (p->divergence_profile) {
        const CheckProfile *prof = check_session_profile(c->session);
        uint64_t instr, slots;
        kernel_efficiency(prof, ui_checking_result(c, r), &instr, &slots);
        fprintf(out, ",\"divergence\":{\"lane_instructions\":%" PRIu64 ",\"lane_slots\":%" PRIu64
                     ",\"simd_efficiency\":%.6f,\"branches\":[",
                instr, slots, slots ? (double)instr / (double)slots : 1.0);
        Sources src;
        sources_init(&src, program);
        for (uint32_t i = 0; i < prof->num_branches; i++) {
            const CheckBranchProfile *b = &prof->branches[i];
            fprintf(out, "%s{\"pc\":%u,", i ? "," : "", b->pc);
            json_location(out, &src, b->pc);
            fprintf(out, ",\"executions\":%" PRIu64 ",\"diverged\":%" PRIu64
                         ",\"lanes_idle\":%" PRIu64 ",\"efficiency_lost\":%.6f}",
                    b->executions, b->diverged, b->lanes_idle,
                    slots ? (double)b->lanes_idle / (double)slots : 0.0);
        }
        sources_free(&src);
        fputs("]}", out);
    }
    fprintf(out, ",\"exit\":%d}\n", status);
}

int ui_cmd_check(int argc, char **argv)
{
    CheckArgs o = {0};
    int status = parse_args(argc, argv, &o);
    if (status >= 0)
        return status;
    UtilError err;
    UiLaunch L;
    if (!ui_launch_open(&L, "lockstep check", o.manifest, &o.launch, &err)) {
        ui_launch_close(&L);
        return ui_bad_input(&err);
    }
    UiManifest *m = L.m;
    IsaProgram *program = L.program;
    UiBound *bound = &L.bound;
    SimLaunch *launch = &L.sim;
    UiChecking c = {0};
    bool text = !o.json;
    if (text && !o.quiet) {
        ui_report_header(stdout, m, program);
        fflush(stdout);
    }
    ui_checking_start(&c, program, bound, &o.opts, launch);
    SimResult result = {0};
    if (!ui_checking_dispatch(&c, launch, &result, &err)) {
        fflush(stdout);
        fprintf(stderr, "%s: error: %s\n", m->path, err.message);
        sim_result_free(&result);
        status = UI_EXIT_BAD_INPUT;
        goto done;
    }
    ui_checking_finish(&c, &result);
    status = UI_EXIT_OK;
    if (text && !o.quiet)
        ui_report_run(stdout, &result);
    for (uint32_t i = 0; i < bound->num_args; i++) {
        const UiBoundArg *a = &bound->args[i];
        if (!a->want)
            continue;
        bool ok = text ? ui_report_expect(stdout, a, bound->device->buffers[a->buffer].data, o.quiet)
                       : true;
        if (!text) {
            UiCompareResult res;
            const UiExpect *e = &a->spec->expect;
            ui_compare(a->type, bound->device->buffers[a->buffer].data, a->want, a->count,
                       e->rtol, e->atol, e->has_tolerance, &res);
            ok = res.mismatched_elements == 0;
        }
        if (!ok)
            status = UI_EXIT_FINDING;
    }
    if (c.errors)
        status = UI_EXIT_FINDING;
    if (text) {
        ui_checking_print(stdout, &c, program, m->kernel_path, &result, false);
        if (o.launch.stats)
            ui_report_stats(stdout, &result, &L.gpu, o.launch.stats);
    } else {
        Sources src;
        sources_init(&src, program);
        for (uint32_t i = 0; i < c.num_findings; i++)
            json_finding(stdout, &src, &c.findings[i]);
        sources_free(&src);
        if (o.launch.stats)
            ui_report_stats(stdout, &result, &L.gpu, UI_STATS_JSON);
        json_summary(stdout, &o, m, program, bound, &result, &c, status);
    }
    fflush(stdout);
    sim_result_free(&result);
done:
    if (c.session)
        ui_checking_end(&c);
    ui_launch_close(&L);
    return status;
}
