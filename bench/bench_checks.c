/*
 * bench_checks.c — `make bench`: what the bug finders cost. Four race-free kernels from
 * kernels/ (a threadgroup tree reduction, softmax, a vector add, a tiled matmul) run as
 * their manifests say (the last two at larger sizes), and a correct kernel whose registers
 * the uninitialized-value check tracks (TRACKED_KERNEL), with no observer attached and then
 * with every check of `lockstep check` on; the slowdown is the ratio of the best times (the
 * target is at most 3x). Each run is repeated and the
 * best time kept, since the machine is shared and noisy. Nothing here asserts a time: the
 * figures are for people to read (tests never time anything).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../check/check.h"
#include "../ui/ui.h"

/* kernels/basics/vector_add.yaml's own 1000 elements run in microseconds, where a session's
 * fixed setup would dominate: the same kernel over 256K elements. */
static const char VECTOR_ADD[] =
    "kernel: vector_add.metal\n"
    "threadgroups: [1024]\n"
    "threadgroup: [256]\n"
    "args:\n"
    "  a: {count: 262144, init: {random: {seed: 1, min: -1, max: 1}}}\n"
    "  b: {count: 262144, init: {range: [0, 0.125]}}\n"
    "  c: {count: 262144}\n"
    "  n: {value: 262144}\n";

/* The teaching tiled matmul (kernels/linalg/) at 256 x 256 x 64: every SIMD-group reads
 * every word of a tile, the threadgroup-memory pattern that costs a race checker most. */
static const char MATMUL[] =
    "kernel: matmul_tiled.metal\n"
    "threadgroups: [16, 16]\n"
    "threadgroup: [16, 16]\n"
    "args:\n"
    "  A: {count: 16384, init: {random: {seed: 10, min: -1, max: 1}}}\n"
    "  B: {count: 16384, init: {random: {seed: 11, min: -1, max: 1}}}\n"
    "  C: {count: 65536}\n"
    "  p: {value: {M: 256, N: 256, K: 64}}\n";

/* A correct kernel the uninitialized-value check must track (the other kernels here it
 * proves before the run, and costs them nothing): `m` is assigned under one `if` and used
 * under another with the same condition, which no static pass follows. Written to a
 * temporary file, as no kernel in kernels/ needs it. */
static const char TRACKED_KERNEL[] =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void tracked(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                    uint gid [[thread_position_in_grid]],\n"
    "                    uint lid [[thread_position_in_threadgroup]])\n"
    "{\n"
    "    float m;\n"
    "    if (lid < 128)\n"
    "        m = in[gid] * 2.0f;\n"
    "    float x = in[gid ^ 1] + 1.0f;\n"
    "    if (lid < 128)\n"
    "        x += m;\n"
    "    out[gid] = x;\n"
    "}\n";
static const char TRACKED_MANIFEST[] =
    "kernel: %s\n"
    "threadgroups: [1024]\n"
    "threadgroup: [256]\n"
    "args:\n"
    "  in: {count: 262144, init: {range: [0, 0.25]}}\n"
    "  out: {count: 262144}\n";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One timed dispatch; with_checks attaches a fresh session as `lockstep check` does. */
static double run_once(const IsaProgram *program, const UiBound *bound, const UiManifest *m,
                       bool with_checks, uint32_t *findings, uint64_t *lane_instr)
{
    SimLaunch launch = {
        .program = program,
        .device = bound->device,
        .bindings = bound->bindings,
        .data_buffer = (uint32_t)bound->data_buffer,
        .data_bound = bound->data_buffer >= 0,
        .by_threadgroups = m->by_threadgroups,
        .mode = SIM_MODE_FUNCTIONAL,
    };
    memcpy(launch.grid, m->grid, sizeof launch.grid);
    memcpy(launch.threadgroup, m->threadgroup, sizeof launch.threadgroup);
    double t0 = now();
    UiChecking c = {0};
    if (with_checks) {
        CheckOptions opts = check_options_all();
        ui_checking_start(&c, program, bound, &opts, &launch);
    }
    SimResult r = {0};
    UtilError err;
    if (!sim_dispatch(&launch, &r, &err)) {
        fprintf(stderr, "bench_checks: %s: %s\n", m->path, err.message);
        exit(1);
    }
    if (with_checks) {
        ui_checking_finish(&c, &r);
        *findings = c.num_findings;
        ui_checking_end(&c);
    }
    double t = now() - t0;
    *lane_instr = r.lane_instructions;
    sim_result_free(&r);
    return t;
}

/* manifest: a path, or (text != NULL) the name that anchors the manifest text's paths. */
static bool bench(const char *label, const char *manifest, const char *text, double *worst)
{
    UtilError err;
    UiManifest *m = text ? ui_manifest_parse(text, strlen(text), manifest, &err)
                         : ui_manifest_load(manifest, &err);
    if (!m) {
        fprintf(stderr, "bench_checks: %s\n", err.message);
        return false;
    }
    LangTypeLayout *layouts = NULL;
    IsaProgram *program = ui_load_kernel(m, &layouts, &err);
    if (!program) {
        fprintf(stderr, "bench_checks: %s\n", err.message);
        ui_manifest_free(m);
        return false;
    }
    UiBound bound;
    bool ok = ui_bind_layouts(m, program, layouts, 0, &bound, &err);
    if (!ok) {
        fprintf(stderr, "bench_checks: %s\n", err.message);
    } else {
        double best[2] = {1e30, 1e30};
        uint32_t findings = 0;
        uint64_t lanes = 0;
        /* Repeat until each variant has had ~0.3 s (at least 3 runs), alternating. */
        double spent = 0;
        for (int i = 0; i < 200 && (i < 6 || spent < 0.6); i++) {
            bool checks = i % 2 == 1;
            double t = run_once(program, &bound, m, checks, &findings, &lanes);
            spent += t;
            if (t < best[checks])
                best[checks] = t;
        }
        double ratio = best[1] / best[0];
        if (ratio > *worst)
            *worst = ratio;
        printf("  %-22s %10.3f ms %10.3f ms %8.2fx %10.1f M %8u\n", label, best[0] * 1e3,
               best[1] * 1e3, ratio, (double)lanes / 1e6, findings);
    }
    ui_bound_free(&bound);
    ui_free_layouts(layouts, program->num_args);
    isa_program_free(program);
    ui_manifest_free(m);
    return ok;
}

int main(int argc, char **argv)
{
    /* bench_checks [KERNEL]: one kernel only, for profiling */
    const char *only = argc > 1 ? argv[1] : NULL;
    printf("checks: cost of `lockstep check` (every check on) over a plain run (target <= 3x)\n");
    printf("  %-22s %13s %13s %9s %12s %8s\n", "kernel", "checks off", "checks on", "slowdown",
           "lane-instr", "findings");
    double worst = 0;
    static const struct { const char *label, *manifest, *text; } cases[] = {
        {"reduce_threadgroup", "kernels/reduce/reduce_threadgroup.yaml", NULL},
        {"softmax", "kernels/ml/softmax.yaml", NULL},
        {"vector_add", "kernels/basics/bench_checks.yaml", VECTOR_ADD},
        {"matmul_tiled", "kernels/linalg/bench_checks.yaml", MATMUL},
        {"tracked", NULL, NULL}, /* TRACKED_KERNEL, set up below */
    };
    bool ok = true, any = false;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (only && strcmp(only, cases[i].label) != 0)
            continue;
        any = true;
        if (cases[i].manifest) {
            ok = bench(cases[i].label, cases[i].manifest, cases[i].text, &worst) && ok;
            continue;
        }
        char path[] = "/tmp/lockstep-tracked-XXXXXX.metal";
        int fd = mkstemps(path, 6);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!f || fputs(TRACKED_KERNEL, f) == EOF || fclose(f) != 0) {
            fprintf(stderr, "bench_checks: cannot write %s\n", path);
            ok = false;
            continue;
        }
        char text[sizeof TRACKED_MANIFEST + sizeof path];
        snprintf(text, sizeof text, TRACKED_MANIFEST, path);
        ok = bench(cases[i].label, "/tmp/bench_checks.yaml", text, &worst) && ok;
        remove(path);
    }
    if (!any) {
        fprintf(stderr, "bench_checks: no kernel named '%s'\n", only);
        return 2;
    }
    printf("  worst slowdown %.2fx%s\n", worst, worst > 3.0 ? " (above the 3x target)" : "");
    return ok ? 0 : 1;
}
