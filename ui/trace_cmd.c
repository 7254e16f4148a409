/*
 * trace_cmd.c — `lockstep trace`: record a launch's issues to a file, show a trace as text,
 * export it as JSON Lines or Chrome trace JSON (traces/ does the work; this file reads the
 * command line and reports). A recording never replaces one of the launch's own files and
 * stops at a default number of records, so a runaway kernel cannot fill the disk.
 */
#include "ui.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../traces/trace.h"

void ui_trace_usage(FILE *out)
{
    fputs("usage: lockstep trace LAUNCH.yaml -o FILE [options]   record\n"
          "       lockstep trace show FILE [--limit N]            print as text\n"
          "       lockstep trace export FILE --format jsonl|chrome [-o OUT] [--limit N]\n"
          "       lockstep trace profile FILE                     cycles waited, by source line\n"
          "\n"
          "Records one line per issued SIMD-group instruction of a launch: the cycle it issued\n"
          "at (timed mode; functional runs number the issues instead), the core and scheduler,\n"
          "the threadgroup and SIMD-group, the pc and the lanes that ran it. Timed recording\n"
          "changes nothing in the run: the cycles are those `lockstep run` reports. The file\n"
          "holds the program's instructions and source lines too (docs/traces.md).\n"
          "`chrome` exports open in Perfetto (ui.perfetto.dev) or chrome://tracing: a row per\n"
          "scheduler of each core, one microsecond per cycle.\n"
          "\n"
          "options (record):\n"
          "  -o FILE                   the trace file to write (required)\n"
          "  --mode functional|timed   override the manifest's mode (default timed)\n"
          "  --gpu NAME|CONFIG.yaml    the GPU timed mode models (default m1)\n"
          "  --budget N                stop the kernel after N SIMD-group instructions\n"
          "  --limit N                 record only the first N issues (the run goes on;\n"
          "                            default 10000000, about 400 MB)\n"
          "options (show, export):\n"
          "  --limit N                 only the first N records\n"
          "  --format jsonl|chrome     (export) the format\n"
          "  -o OUT                    (export) write there instead of standard output\n"
          "\n"
          "exit status: 0 success; 1 the kernel faulted (record); 2 bad input (usage,\n"
          "manifest, kernel, a malformed trace file, a file that cannot be written)\n",
          out);
}

#define usage_error(...) ui_usage_error("trace", ui_trace_usage, __VA_ARGS__)

/* `--name VALUE` or `--name=VALUE` at argv[*i]: its value, or NULL (with *missing set when
 * the option is there without a value). */
static const char *option_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n) != 0 || (a[n] && a[n] != '='))
        return NULL;
    const char *v = a[n] ? a + n + 1 : *i + 1 < argc ? argv[++*i] : NULL;
    *missing = !v || !*v;
    return *missing ? NULL : v;
}

static bool parse_limit(const char *v, uint64_t *limit)
{
    UiNumber n;
    if (!ui_yaml_parse_number(v, &n) || n.is_float || n.negative || n.magnitude == 0)
        return false;
    *limit = n.magnitude;
    return true;
}

/* a and b are one file: the same inode (links too), or the same path when one is not there
 * yet. */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ka = util_file_key(a), *kb = util_file_key(b);
    bool same = strcmp(ka, kb) == 0;
    free(ka);
    free(kb);
    return same;
}

/* The trace file must not be one the launch reads or writes: -o naming the manifest or the
 * kernel would replace it without a word. Returns false having said which it is. */
static bool check_output_path(const UiLaunch *L, const char *out_path)
{
    const UiManifest *m = L->m;
    char what[200] = "";
    const char *why = "writing the trace there would replace it";
    if (same_file(out_path, m->path))
        snprintf(what, sizeof what, "the launch manifest");
    else if (same_file(out_path, m->kernel_path))
        snprintf(what, sizeof what, "the kernel's source");
    for (uint32_t i = 0; !what[0] && L->program && i < L->program->num_files; i++)
        if (same_file(out_path, L->program->files[i]))
            snprintf(what, sizeof what, "a source file of the kernel (%s)", L->program->files[i]);
    if (!what[0] && L->gpu.path[0] && same_file(out_path, L->gpu.path))
        snprintf(what, sizeof what, "the GPU config");
    for (uint32_t i = 0; !what[0] && i < m->num_args; i++) {
        const UiArgSpec *a = &m->args[i];
        if (a->init.file && same_file(out_path, a->init.file))
            snprintf(what, sizeof what, "the init: file of argument '%s' (%s:%u)", a->name,
                     m->path, a->init.node->line);
        else if (a->expect.file && same_file(out_path, a->expect.file))
            snprintf(what, sizeof what, "the expect: file of argument '%s' (%s:%u)", a->name,
                     m->path, a->expect.file_node->line);
        else if (a->dump.path && same_file(out_path, a->dump.path)) {
            snprintf(what, sizeof what, "the dump: file of argument '%s' (%s:%u)", a->name,
                     m->path, a->dump.node->line);
            why = "the dump would replace the trace";
        }
    }
    if (!what[0])
        return true;
    fprintf(stderr, "lockstep trace: error: -o %s is %s; %s\n", out_path, what, why);
    return false;
}

/* show / export */
static int read_trace(int argc, char **argv, bool show)
{
    const char *path = NULL, *out_path = NULL, *format = show ? "text" : NULL;
    uint64_t limit = 0;
    for (int i = 2; i < argc; i++) {
        bool missing = false;
        const char *v;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            ui_trace_usage(stdout);
            return UI_EXIT_OK;
        }
        if ((v = option_value(argc, argv, &i, "--limit", &missing))) {
            if (!parse_limit(v, &limit))
                return usage_error("expected --limit to be a positive integer, not '%s'", v);
        } else if (!show && (v = option_value(argc, argv, &i, "--format", &missing))) {
            format = v;
        } else if (!show && (v = option_value(argc, argv, &i, "-o", &missing))) {
            out_path = v;
        } else if (missing) {
            return usage_error("%s needs a value", argv[i]);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return usage_error("unknown option '%s'", argv[i]);
        } else if (path) {
            return usage_error("unexpected argument '%s' (one trace at a time)", argv[i]);
        } else {
            path = argv[i];
        }
    }
    if (!path)
        return usage_error("expected a trace file");
    TraceFormat f = TRACE_FORMAT_TEXT;
    if (!format)
        return usage_error("export needs --format jsonl or --format chrome");
    if (strcmp(format, "jsonl") == 0)
        f = TRACE_FORMAT_JSONL;
    else if (strcmp(format, "chrome") == 0)
        f = TRACE_FORMAT_CHROME;
    else if (!show)
        return usage_error("unknown --format '%s'; expected jsonl or chrome", format);
    UtilError err;
    Trace *t = trace_open(path, &err);
    if (!t)
        return ui_bad_input(&err);
    if (out_path && same_file(out_path, path)) {
        fprintf(stderr, "lockstep trace: error: -o %s is the trace being exported; writing the "
                "export there would replace it\n", out_path);
        trace_close(t);
        return UI_EXIT_BAD_INPUT;
    }
    /* every record the export takes is checked before a byte is written: a malformed one
     * left a truncated file (invalid JSON) behind */
    if (!trace_check_records(t, limit, &err)) {
        trace_close(t);
        return ui_bad_input(&err);
    }
    FILE *out = stdout;
    if (out_path && !(out = fopen(out_path, "w"))) {
        fprintf(stderr, "lockstep trace: error: cannot create %s: %s\n", out_path, strerror(errno));
        trace_close(t);
        return UI_EXIT_BAD_INPUT;
    }
    if (show)
        printf("trace of %s (%s), %s, %" PRIu64 " records\n", t->info.kernel, t->info.source,
               t->info.timed ? "timed" : "functional", t->num_records);
    bool ok = trace_export(t, f, out, limit, &err);
    if (out != stdout && fclose(out) != 0 && ok) {
        ok = false;
        util_fail(&err, "cannot write %s: %s", out_path, strerror(errno));
    }
    /* a file cut short by a write error (a full disk) is not left looking like an export */
    struct stat st;
    if (!ok && out_path && stat(out_path, &st) == 0 && S_ISREG(st.st_mode))
        remove(out_path);
    trace_close(t);
    return ok ? UI_EXIT_OK : ui_bad_input(&err);
}

static int record(int argc, char **argv)
{
    const char *manifest = NULL, *out_path = NULL;
    uint64_t limit = TRACE_DEFAULT_LIMIT;
    bool limit_given = false;
    UiLaunchFlags flags = {0};
    for (int i = 1; i < argc; i++) {
        bool missing = false;
        const char *v;
        char why[160];
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            ui_trace_usage(stdout);
            return UI_EXIT_OK;
        }
        int took = ui_launch_flag(argc, argv, &i, &flags, why, sizeof why);
        if (took < 0)
            return usage_error("%s", why);
        if (took)
            continue;
        if ((v = option_value(argc, argv, &i, "-o", &missing))) {
            out_path = v;
        } else if ((v = option_value(argc, argv, &i, "--limit", &missing))) {
            if (!parse_limit(v, &limit))
                return usage_error("expected --limit to be a positive integer, not '%s'", v);
            limit_given = true;
        } else if (missing) {
            return usage_error("%s needs a value", argv[i]);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return usage_error("unknown option '%s'", argv[i]);
        } else if (manifest) {
            return usage_error("unexpected argument '%s' (one manifest at a time)", argv[i]);
        } else {
            manifest = argv[i];
        }
    }
    if (!manifest)
        return usage_error("expected a launch manifest (LAUNCH.yaml), or show / export");
    if (!out_path)
        return usage_error("expected -o FILE: where to write the trace");
    UtilError err;
    UiLaunch L;
    if (!ui_launch_open(&L, "lockstep trace", manifest, &flags, &err)) {
        ui_launch_close(&L);
        return ui_bad_input(&err);
    }
    if (!check_output_path(&L, out_path)) {
        ui_launch_close(&L);
        return UI_EXIT_BAD_INPUT;
    }
    TraceInfo info = {.timed = L.sim.mode == SIM_MODE_TIMED, .cores = 1};
    snprintf(info.kernel, sizeof info.kernel, "%s", L.program->name);
    snprintf(info.source, sizeof info.source, "%s", L.m->kernel_path);
    if (info.timed) {
        snprintf(info.gpu, sizeof info.gpu, "%s", L.gpu.config.name);
        info.clock_hz = L.gpu.config.clock_mhz * 1e6;
        info.cores = L.gpu.config.cores;
    }
    for (int k = 0; k < 3; k++) {
        info.threadgroup[k] = L.sim.threadgroup[k];
        info.grid[k] = L.sim.by_threadgroups ? L.sim.grid[k] * L.sim.threadgroup[k] : L.sim.grid[k];
    }
    TraceRecorder *rec = trace_record_open(out_path, L.program, &info, limit, &err);
    if (!rec) {
        ui_launch_close(&L);
        return ui_bad_input(&err);
    }
    trace_record_attach(rec, &L.sim);
    SimResult result = {0};
    bool ran = sim_dispatch(&L.sim, &result, &err);
    uint64_t records;
    UtilError werr;
    bool written = trace_record_close(rec, &records, &werr);
    int status = UI_EXIT_OK;
    if (!ran) {
        fprintf(stderr, "%s: error: %s\n", L.m->path, err.message);
        status = UI_EXIT_BAD_INPUT;
    } else if (!written) {
        status = ui_bad_input(&werr);
    } else {
        ui_report_run(stdout, &result);
        printf("%-11s %" PRIu64 " of %" PRIu64 " instructions%s to %s\n", "trace", records,
               result.instructions, info.timed ? ", with their cycles," : "", out_path);
        fflush(stdout);
        if (records == limit && result.instructions > records)
            fprintf(stderr, "lockstep trace: note: the trace stops at %s --limit of %" PRIu64
                    " records (the run went on); give --limit N to record more\n",
                    limit_given ? "the" : "the default", limit);
        uint64_t budget = L.sim.instruction_budget ? L.sim.instruction_budget
                                                   : SIM_DEFAULT_INSTRUCTION_BUDGET;
        if (ui_report_faults(stderr, L.program, &result, budget))
            status = UI_EXIT_FINDING;
    }
    sim_result_free(&result);
    ui_launch_close(&L);
    return status;
}

static int profile(int argc, char **argv)
{
    if (argc == 3 && (strcmp(argv[2], "-h") == 0 || strcmp(argv[2], "--help") == 0)) {
        ui_trace_usage(stdout);
        return UI_EXIT_OK;
    }
    if (argc != 3 || argv[2][0] == '-')
        return usage_error("trace profile takes one trace file");
    UtilError err;
    Trace *t = trace_open(argv[2], &err);
    if (!t)
        return ui_bad_input(&err);
    bool ok = trace_profile(t, stdout, &err);
    trace_close(t);
    return ok ? UI_EXIT_OK : ui_bad_input(&err);
}

int ui_cmd_trace(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "show") == 0 || strcmp(argv[1], "export") == 0))
        return read_trace(argc, argv, argv[1][0] == 's');
    if (argc >= 2 && strcmp(argv[1], "profile") == 0)
        return profile(argc, argv);
    return record(argc, argv);
}
