/*
 * ui.h — the command line's internal interface: commands, binding a manifest to a kernel
 * (ui/bind.c), and the run report (ui/report.c). Only ui/ includes it.
 *
 * Exit statuses are the contract with scripts and CI: 0 success, 1 a finding (an
 * expectation not met, a kernel fault), 2 bad input (usage, manifest, kernel, data files).
 */
#ifndef LOCKSTEP_UI_UI_H
#define LOCKSTEP_UI_UI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../check/check.h"
#include "../isa/isa.h"
#include "../lang/lang.h"
#include "../mem/mem.h"
#include "../sim/sim.h"
#include "../util/util.h"
#include "data.h"
#include "manifest.h"

enum { UI_EXIT_OK = 0, UI_EXIT_FINDING = 1, UI_EXIT_BAD_INPUT = 2 };

#define UI_VERSION "0.1.0"

/* ---- commands (ui/run.c) -------------------------------------------------------------------- */

/* `lockstep run ARGS...` (argv[0] is "run"); returns the exit status. */
int ui_cmd_run(int argc, char **argv);
void ui_run_usage(FILE *out);

/* ---- binding (ui/bind.c) ------------------------------------------------------------------- */

/* One kernel argument with what the manifest put behind it. */
typedef struct UiBoundArg {
    const IsaArg *param;
    const UiArgSpec *spec;
    bool typed;               /* type known: values can be converted, compared, dumped */
    UiElemType type;
    uint64_t count;           /* elements */
    uint64_t bytes;           /* buffer or threadgroup block size */
    int32_t buffer;           /* MemDevice index; -1 for threadgroup args */
    bool uninitialized;       /* init: none (zero-filled for now; later checked) */
    uint8_t *want;            /* expected contents (count elements), or NULL */
} UiBoundArg;

typedef struct UiBound {
    MemDevice *device;
    SimArgBinding *bindings;  /* one per program argument, in program order */
    UiBoundArg *args;         /* the same order */
    uint32_t num_args;
    int32_t data_buffer;      /* the program's constant data (SimLaunch.data_buffer), or -1 */
} UiBound;

/* ---- the kernel (ui/kernel.c) --------------------------------------------------------------- */

/* Assembles (.s) or compiles (.metal, with the manifest's constants) the manifest's kernel and
 * checks its entry. For .metal kernels *layouts (when not NULL) receives one layout per
 * program argument (free with lang_layouts_free(layouts, program->num_args)). */
IsaProgram *ui_load_kernel(const UiManifest *m, LangTypeLayout **layouts, UtilError *err);
void ui_free_layouts(LangTypeLayout *layouts, uint32_t count);
/* Lays a struct value (a YAML map of field values) out at dst. */
bool ui_fill_struct(const UiYamlDoc *doc, const UiYamlNode *value, const LangTypeLayout *layout,
                    uint8_t *dst, UtilError *err);
/* Threads per core that can stay resident with `regs` registers per thread. */
uint32_t ui_occupancy_threads(uint32_t regs);
/* `lockstep compile ARGS...`; returns the exit status. */
int ui_cmd_compile(int argc, char **argv);
/* `lockstep trace ARGS...` (ui/trace_cmd.c); returns the exit status. */
int ui_cmd_trace(int argc, char **argv);
void ui_trace_usage(FILE *out);
/* `lockstep debug ARGS...` (ui/debug_cmd.c); returns the exit status. */
int ui_cmd_debug(int argc, char **argv);
void ui_debug_usage(FILE *out);
void ui_compile_usage(FILE *out);

/* Matches manifest args to the program's, builds and fills buffers, loads expectations.
 * layouts (or NULL) describe the arguments' types for .metal kernels; tg_limit is the
 * threadgroup memory one threadgroup may use, arrays and argument blocks together (the GPU
 * config's tg_memory_per_threadgroup; 0 for Metal's SIM_DEFAULT_TG_MEM_LIMIT, as ui_bind). */
bool ui_bind(const UiManifest *m, const IsaProgram *program, UiBound *out, UtilError *err);
bool ui_bind_layouts(const UiManifest *m, const IsaProgram *program,
                     const LangTypeLayout *layouts, uint32_t tg_limit, UiBound *out,
                     UtilError *err);
void ui_bound_free(UiBound *b);
/* Writes one arg's `dump:`; stdout dumps go to out. */
bool ui_dump_arg(const UiManifest *m, const UiBound *b, const UiBoundArg *arg, FILE *out,
                 UtilError *err);

/* Reads a .npy or raw .bin file into `*count` elements of type t (newly allocated). When
 * *count is 0 the file sets it; otherwise the file must hold exactly that many. */
bool ui_read_data_file(const char *path, UiElemType t, uint64_t *count, uint8_t **data,
                       UtilError *err);

/* ---- report (ui/report.c) ------------------------------------------------------------------ */

void ui_report_header(FILE *out, const UiManifest *m, const IsaProgram *program);
void ui_report_run(FILE *out, const SimResult *r);
/* Prints one fault as a diagnostic, "file:line:col: error: ..." when p (may be NULL) has the
 * fault's source location (false, printing nothing, for the budget's). */
bool ui_report_fault(FILE *out, const IsaProgram *p, const SimFault *f);
/* Prints the faults as diagnostics, one per access (its other lanes counted after it);
 * returns the number of errors printed. */
uint64_t ui_report_faults(FILE *out, const IsaProgram *p, const SimResult *r, uint64_t budget);
/* The source location of pc, or NULL when p has none for it. */
const IsaSourceLoc *ui_source_loc(const IsaProgram *p, uint32_t pc);
/* The name of p's source file `file`, or "?". */
const char *ui_source_file(const IsaProgram *p, uint32_t file);
/* "file:line:col" of pc, or "file: pc 0x40" when there is no debug info for it. */
const char *ui_where_text(const IsaProgram *p, const char *fallback_file, uint32_t pc,
                          char *buf, size_t size);
/* Compares an arg with its expectation and prints the verdict (failures always, `ok` unless
 * quiet). Returns true when it passed. */
bool ui_report_expect(FILE *out, const UiBoundArg *arg, const uint8_t *got, bool quiet);
/* Prints count elements of t, a few per line, labelled `name`. */
void ui_report_values(FILE *out, const char *name, UiElemType t, const uint8_t *data,
                      uint64_t count);

/* ---- checks (ui/check.c) ------------------------------------------------------------------- */

/* `lockstep check ARGS...`; returns the exit status. */
int ui_cmd_check(int argc, char **argv);
void ui_check_usage(FILE *out);

/* A run with check/'s observers attached, as `check` and `run --check/--divergence` do it:
 * start (before sim_dispatch: fills launch->observers), finish (after it), print, end. */
typedef struct UiChecking {
    CheckSession *session;
    CheckBufferInfo *buffers;     /* per device buffer: element size, `init: none` */
    CheckOptions opts;
    const CheckFinding *findings; /* after finish */
    uint32_t num_findings;
    uint64_t errors, warnings;
    bool two_pass;                /* ui_checking_dispatch ran the checks in a pass of their own */
    SimResult checked;            /* that pass's result */
    MemDevice *copy;              /* and its buffers (the result's faults name them) */
} UiChecking;

void ui_checking_start(UiChecking *c, const IsaProgram *program, const UiBound *bound,
                       const CheckOptions *opts, SimLaunch *launch);
/* Runs the launch ui_checking_start prepared. In functional mode that is one dispatch with
 * the checkers watching. In timed mode the checkers watch a functional pass over a copy of
 * the buffers, on a second thread, while the timed pass runs unobserved on this one: its
 * result (cycles, statistics) and buffers are exactly those of the run without checks, and
 * the findings those of the same kernel run functionally. */
bool ui_checking_dispatch(UiChecking *c, SimLaunch *launch, SimResult *result, UtilError *err);
/* The result the checks saw: r, the dispatch's, or with two passes their own. */
static inline const SimResult *ui_checking_result(const UiChecking *c, const SimResult *r)
{
    return c->two_pass ? &c->checked : r;
}
/* r is the dispatch's result (see ui_checking_result). */
void ui_checking_finish(UiChecking *c, const SimResult *r);
/* Each finding as a diagnostic, then the policies, a verdict and the divergence profile
 * (when on: its summary, or every branch site when full_profile). */
void ui_checking_print(FILE *out, const UiChecking *c, const IsaProgram *program,
                       const char *kernel_file, const SimResult *r, bool full_profile);
void ui_checking_end(UiChecking *c);
/* One finding as `lockstep check` prints it: the diagnostic, its sites with their source
 * lines, the note and the count. */
void ui_check_print_finding(FILE *out, const IsaProgram *program, const char *kernel_file,
                            const CheckFinding *f);
/* The divergence profile: the kernel's SIMD efficiency and the costliest branch site, or
 * (full) one line per branch site. */
void ui_check_print_profile(FILE *out, const IsaProgram *p, const char *kernel_file,
                            const CheckProfile *prof, const SimResult *r, bool full);

/* ---- GPU configs (ui/gpu.c) and timing statistics (ui/gpu_stats.c) ------------------------- */

/* A GPU config as loaded from sim/gpus/NAME.yaml (or the built-in M1). */
typedef struct UiGpu {
    SimGpuConfig config;
    char path[1024];          /* the file; "" for the built-in M1 */
    char sources[512];        /* the config's `sources:` line */
} UiGpu;

/* Loads and checks a config file; errors are "file:line:col: error: ...". */
bool ui_gpu_load(const char *path, UiGpu *out, UtilError *err);
bool ui_gpu_parse(const char *text, size_t size, const char *path, UiGpu *out, UtilError *err);
/* The built-in M1 (sim_gpu_default()). */
void ui_gpu_builtin(UiGpu *out);
/* Finds NAME.yaml in the config folders ($LOCKSTEP_GPUS, <binary>/../sim/gpus,
 * <binary>/../share/lockstep/gpus); writes its path. */
bool ui_gpu_find(const char *name, char *path, size_t size);
/* NAME, a path (has a '/' or ends .yaml), or NULL for the built-in M1. */
bool ui_gpu_select(const char *spec, UiGpu *out, UtilError *err);
/* The GPU a launch uses: --gpu (flag, or NULL) wins over the manifest's gpu:, which wins over
 * the built-in M1. `cmd` ("lockstep run") prefixes errors about the flag. */
bool ui_gpu_for_launch(const char *cmd, const char *flag, const UiManifest *m, UiGpu *out,
                       UtilError *err);
/* `lockstep gpus`; returns the exit status. */
int ui_cmd_gpus(int argc, char **argv);
void ui_gpus_usage(FILE *out);

typedef enum UiStatsMode { UI_STATS_OFF, UI_STATS_TEXT, UI_STATS_JSON } UiStatsMode;

/* The options every command that launches a kernel takes: --mode, --budget, --gpu, --stats. */
typedef struct UiLaunchFlags {
    bool has_mode;
    SimMode mode;
    bool has_budget;
    uint64_t budget;
    const char *gpu;          /* --gpu, or NULL */
    UiStatsMode stats;        /* --stats */
} UiLaunchFlags;

/* Takes argv[*i] when it is one of the launch options (advancing *i past a separate value):
 * returns 1 when taken, 0 when it is not one of them, -1 when its value is bad (msg says
 * why). */
int ui_launch_flag(int argc, char **argv, int *i, UiLaunchFlags *f, char *msg, size_t size);

/* Everything a command that runs a manifest sets up: the manifest, the GPU, the kernel and
 * its argument layouts, the bound buffers, and the SimLaunch over them (ui/run.c). */
typedef struct UiLaunch {
    UiManifest *m;
    UiGpu gpu;
    IsaProgram *program;
    LangTypeLayout *layouts;
    UiBound bound;
    bool bound_ok;            /* bound holds allocations to free */
    SimLaunch sim;
} UiLaunch;

/* Loads and binds; on failure err says why and L still must be closed. `cmd` ("lockstep
 * run") prefixes errors about the flags. */
bool ui_launch_open(UiLaunch *L, const char *cmd, const char *manifest,
                    const UiLaunchFlags *f, UtilError *err);
void ui_launch_close(UiLaunch *L);
/* "lockstep CMD: error: MESSAGE", then the command's usage, on stderr; returns exit status 2
 * (ui/run.c). */
int ui_usage_error(const char *cmd, void (*usage)(FILE *), const char *fmt, ...) UTIL_PRINTF(3, 4);
/* Prints a bad-input message (after flushing stdout) and returns exit status 2. */
int ui_bad_input(const UtilError *err);


/* Parses --stats / --stats=text / --stats=json / --stats=off into *mode. Returns false when
 * `arg` is not a --stats option; *bad is set when it is one with a wrong value. */
bool ui_stats_option(const char *arg, UiStatsMode *mode, bool *bad);
/* SimResult.stats (timed mode) or the counts functional mode has: aligned text, or one JSON
 * object on one line. */
void ui_report_stats(FILE *out, const SimResult *r, const UiGpu *gpu, UiStatsMode mode);

#endif

