/*
 * run.c — `lockstep run LAUNCH.yaml`: load the manifest, the kernel and the data, dispatch,
 * then report faults, check expectations and write dumps.
 *
 * Everything that can be wrong with the input is found before the kernel runs, so exit
 * status 2 (bad input) never comes with half a report, and 1 always means the run itself
 * found something.
 */
#include "ui.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void ui_run_usage(FILE *out)
{
    fputs("usage: lockstep run LAUNCH.yaml [options]\n"
          "\n"
          "Runs the dispatch a launch manifest describes (see docs/manifest.md), checks its\n"
          "expectations and writes its dumps. Out-of-bounds accesses are always reported;\n"
          "`lockstep check` (or --check) looks for races and the other bugs too.\n"
          "\n"
          "options:\n"
          "  --mode functional|timed   override the manifest's mode (default timed)\n"
          "  --gpu NAME|CONFIG.yaml    the GPU timed mode models (overrides the manifest's gpu:;\n"
          "                            default m1; `lockstep gpus` lists them)\n"
          "  --stats[=json]            print the timing statistics: cycles, per-core IPC,\n"
          "                            occupancy, stalls, caches, FLOP/s and bandwidth against\n"
          "                            the GPU's peaks; =json prints them as one JSON object\n"
          "                            instead of the text summary\n"
          "  --budget N                stop the kernel after N SIMD-group instructions\n"
          "  --quiet                   print only problems (and stdout dumps)\n"
          "  --check                   run every bug finder, as `lockstep check` does, and print\n"
          "                            its findings instead of the faults alone (in timed mode\n"
          "                            they watch a functional run beside it: same cycles)\n"
          "  --divergence              print the divergence profile: per branch site, executions,\n"
          "                            how many diverged and the SIMD efficiency lost\n"
          "  -h, --help                show this help\n"
          "\n"
          "exit status: 0 success; 1 an expectation not met or a kernel fault; 2 bad input\n",
          out);
}

typedef struct RunOptions {
    const char *manifest;
    UiLaunchFlags launch;     /* --mode --budget --gpu --stats */
    bool quiet;
    bool check;               /* --check: every bug finder */
    bool divergence;          /* --divergence: the full divergence profile */
} RunOptions;

int ui_launch_flag(int argc, char **argv, int *i, UiLaunchFlags *f, char *msg, size_t size)
{
    const char *a = argv[*i], *value;
    bool bad;
    if (ui_stats_option(a, &f->stats, &bad)) {
        if (bad)
            snprintf(msg, size, "unknown --stats format '%s'; expected --stats, --stats=text or "
                     "--stats=json", a + 8);
        return bad ? -1 : 1;
    }
    if (strncmp(a, "--gpu", 5) == 0 && (a[5] == '\0' || a[5] == '=')) {
        f->gpu = a[5] ? a + 6 : (*i + 1 < argc ? argv[++*i] : NULL);
        if (!f->gpu || !*f->gpu) {
            snprintf(msg, size, "--gpu needs a value: a GPU name (`lockstep gpus`) or a config file");
            return -1;
        }
        return 1;
    }
    if (strncmp(a, "--mode", 6) == 0 && (a[6] == '\0' || a[6] == '=')) {
        value = a[6] ? a + 7 : (*i + 1 < argc ? argv[++*i] : NULL);
        if (!value) {
            snprintf(msg, size, "%s needs a value: functional or timed", a);
            return -1;
        }
        if (strcmp(value, "functional") == 0) {
            f->mode = SIM_MODE_FUNCTIONAL;
        } else if (strcmp(value, "timed") == 0) {
            f->mode = SIM_MODE_TIMED;
        } else {
            snprintf(msg, size, "unknown mode '%s'; expected functional or timed", value);
            return -1;
        }
        f->has_mode = true;
        return 1;
    }
    if (strncmp(a, "--budget", 8) == 0 && (a[8] == '\0' || a[8] == '=')) {
        value = a[8] ? a + 9 : (*i + 1 < argc ? argv[++*i] : NULL);
        if (!value) {
            snprintf(msg, size, "%s needs a value: a positive number of instructions", a);
            return -1;
        }
        UiNumber n;
        if (!ui_yaml_parse_number(value, &n) || n.is_float || n.negative || n.magnitude == 0) {
            snprintf(msg, size, "expected --budget to be a positive integer, not '%s'", value);
            return -1;
        }
        f->budget = n.magnitude;
        f->has_budget = true;
        return 1;
    }
    return 0;
}

int ui_usage_error(const char *cmd, void (*usage)(FILE *), const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "lockstep %s: error: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    usage(stderr);
    return UI_EXIT_BAD_INPUT;
}

#define usage_error(...) ui_usage_error("run", ui_run_usage, __VA_ARGS__)

/* Returns -1 when the options are fine, else the exit status. */
static int parse_options(int argc, char **argv, RunOptions *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            ui_run_usage(stdout);
            return UI_EXIT_OK;
        }
        if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            o->quiet = true;
            continue;
        }
        if (strcmp(a, "--check") == 0 || strcmp(a, "--divergence") == 0) {
            *(a[2] == 'c' ? &o->check : &o->divergence) = true;
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
            return usage_error("unexpected argument '%s' (one manifest per run)", a);
        o->manifest = a;
    }
    if (!o->manifest)
        return usage_error("expected a launch manifest (LAUNCH.yaml)");
    if (o->launch.stats == UI_STATS_JSON)
        o->quiet = true; /* stdout is the JSON object (and any failures and stdout dumps) */
    return -1;
}

/* The kernel's threadgroup memory (its arrays and threadgroup arguments) and thread memory
 * within what a launch allows, else an error at the manifest's kernel: (the simulator would
 * refuse it too, without a place). */
static bool kernel_fits(const UiManifest *m, const IsaProgram *p, const UiBound *b,
                        uint32_t tg_limit, UtilError *err)
{
    const uint64_t tg = sim_threadgroup_layout(p, b->bindings, NULL);
    if (tg > tg_limit) {
        const IsaSymbol *big = NULL;
        for (uint32_t i = 0; i < p->num_symbols; i++)
            if (p->symbols[i].space == ISA_SYM_THREADGROUP && (!big || p->symbols[i].size > big->size))
                big = &p->symbols[i];
        char largest[128] = "";
        if (big)
            snprintf(largest, sizeof largest, " (its largest array: %s, %u bytes)", big->name,
                     big->size);
        return ui_yaml_fail(m->doc, m->kernel_node, err,
                            "kernel '%s' needs %llu bytes of threadgroup memory%s, more than the "
                            "%u a threadgroup may use", p->name, (unsigned long long)tg, largest,
                            tg_limit);
    }
    if (p->stack_bytes > SIM_MAX_STACK_BYTES)
        return ui_yaml_fail(m->doc, m->kernel_node, err,
                            "kernel '%s' needs %u bytes of thread memory per thread (its private "
                            "arrays and spills), more than the %d lockstep allows", p->name,
                            p->stack_bytes, SIM_MAX_STACK_BYTES);
    return true;
}

bool ui_launch_open(UiLaunch *L, const char *cmd, const char *manifest,
                    const UiLaunchFlags *f, UtilError *err)
{
    memset(L, 0, sizeof *L);
    L->m = ui_manifest_load(manifest, err);
    if (!L->m)
        return false;
    if (!ui_gpu_for_launch(cmd, f->gpu, L->m, &L->gpu, err))
        return false;
    L->program = ui_load_kernel(L->m, &L->layouts, err);
    if (!L->program)
        return false;
    /* the GPU's limit (every shipped config has Metal's 32 KiB), for argument blocks and
     * arrays alike */
    const uint32_t tg_limit = L->gpu.config.tg_memory_per_threadgroup
                                  ? L->gpu.config.tg_memory_per_threadgroup
                                  : SIM_DEFAULT_TG_MEM_LIMIT;
    L->bound_ok = true; /* ui_bind_layouts leaves bound freeable even when it fails */
    if (!ui_bind_layouts(L->m, L->program, L->layouts, tg_limit, &L->bound, err))
        return false;
    const UiManifest *m = L->m;
    if (!kernel_fits(m, L->program, &L->bound, tg_limit, err))
        return false;
    L->sim = (SimLaunch){
        .program = L->program,
        .device = L->bound.device,
        .bindings = L->bound.bindings,
        .by_threadgroups = m->by_threadgroups,
        .mode = f->has_mode ? f->mode : m->has_mode ? m->mode : SIM_MODE_TIMED,
        .instruction_budget = f->has_budget ? f->budget : m->has_budget ? m->budget : 0,
        .gpu = &L->gpu.config,
        .tg_mem_limit = tg_limit,
        .data_buffer = L->bound.data_buffer >= 0 ? (uint32_t)L->bound.data_buffer : 0,
        .data_bound = L->bound.data_buffer >= 0,
    };
    memcpy(L->sim.grid, m->grid, sizeof L->sim.grid);
    memcpy(L->sim.threadgroup, m->threadgroup, sizeof L->sim.threadgroup);
    return true;
}

void ui_launch_close(UiLaunch *L)
{
    if (L->bound_ok)
        ui_bound_free(&L->bound);
    if (L->program)
        ui_free_layouts(L->layouts, L->program->num_args);
    isa_program_free(L->program);
    ui_manifest_free(L->m);
    memset(L, 0, sizeof *L);
}

int ui_bad_input(const UtilError *err)
{
    fflush(stdout);
    fprintf(stderr, "%s\n", err->message);
    return UI_EXIT_BAD_INPUT;
}

int ui_cmd_run(int argc, char **argv)
{
    RunOptions o = {0};
    int status = parse_options(argc, argv, &o);
    if (status >= 0)
        return status;
    UtilError err;
    UiLaunch L;
    if (!ui_launch_open(&L, "lockstep run", o.manifest, &o.launch, &err)) {
        ui_launch_close(&L);
        return ui_bad_input(&err);
    }
    UiManifest *m = L.m;
    IsaProgram *program = L.program;
    UiBound *bound = &L.bound;
    SimLaunch *launch = &L.sim;
    uint64_t budget = launch->instruction_budget ? launch->instruction_budget
                                                : SIM_DEFAULT_INSTRUCTION_BUDGET;
    if (!o.quiet) {
        ui_report_header(stdout, m, program);
        fflush(stdout);
    }
    UiChecking checking = {0};
    if (o.check || o.divergence) {
        CheckOptions copts = check_options_all();
        if (!o.check)
            copts = (CheckOptions){.divergence_profile = true};
        ui_checking_start(&checking, program, bound, &copts, launch);
    }
    SimResult result = {0};
    if (checking.session ? !ui_checking_dispatch(&checking, launch, &result, &err)
                         : !sim_dispatch(launch, &result, &err)) {
        fflush(stdout);
        fprintf(stderr, "%s: error: %s\n", m->path, err.message);
        sim_result_free(&result);
        if (checking.session)
            ui_checking_end(&checking);
        status = UI_EXIT_BAD_INPUT;
        goto done;
    }
    status = UI_EXIT_OK;
    if (!o.quiet)
        ui_report_run(stdout, &result);
    if (o.launch.stats == UI_STATS_TEXT)
        ui_report_stats(stdout, &result, &L.gpu, o.launch.stats);
    for (uint32_t i = 0; i < bound->num_args; i++) {
        const UiBoundArg *a = &bound->args[i];
        if (a->want && !ui_report_expect(stdout, a, bound->device->buffers[a->buffer].data, o.quiet))
            status = UI_EXIT_FINDING;
    }
    for (uint32_t i = 0; i < bound->num_args; i++) {
        if (!ui_dump_arg(m, bound, &bound->args[i], stdout, &err)) {
            fflush(stdout);
            fprintf(stderr, "%s\n", err.message);
            status = UI_EXIT_BAD_INPUT;
        }
    }
    if (checking.session) {
        ui_checking_finish(&checking, &result);
        if (o.check) {
            /* The findings include the faults (folded in by check/). */
            ui_checking_print(stdout, &checking, program, m->kernel_path, &result, o.divergence);
            if (checking.errors && status == UI_EXIT_OK)
                status = UI_EXIT_FINDING;
        } else {
            ui_check_print_profile(stdout, program, m->kernel_path,
                                   check_session_profile(checking.session),
                                   ui_checking_result(&checking, &result), true);
        }
    }
    if (o.launch.stats == UI_STATS_JSON)
        ui_report_stats(stdout, &result, &L.gpu, o.launch.stats);
    fflush(stdout);
    if (!o.check && ui_report_faults(stderr, program, &result, budget) && status == UI_EXIT_OK)
        status = UI_EXIT_FINDING;
    if (checking.session)
        ui_checking_end(&checking);
    sim_result_free(&result);
done:
    ui_launch_close(&L);
    return status;
}
