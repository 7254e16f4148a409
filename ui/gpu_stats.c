/*
 * gpu_stats.c — `--stats` and `--stats=json`: what the timing model measured (SimStats),
 * printed so the question "how many cycles, and where did they go?" is answered at a glance:
 * cycles and time, how busy each core was, occupancy and its limiter, stall cycles by
 * reason, the caches, and the achieved FLOP/s and DRAM bandwidth against the chip's peaks.
 * Functional runs have no cycles; they print the counts they do have and say so.
 *
 * Text lines use report.c's 12-column label gutter; JSON is one object on one line with
 * every field, so scripts can rely on the keys being present (zero when nothing happened).
 */
#include "ui.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>


/* JSON keys of the stall reasons, in SimStall order: identifiers that stay stable for
 * scripts (the text report prints sim_stall_names). */
static const char *const stall_keys[SIM_STALL_COUNT] = {
    [SIM_STALL_DEPENDENCY] = "dependency", [SIM_STALL_MEMORY] = "memory",
    [SIM_STALL_BARRIER] = "barrier",       [SIM_STALL_PIPE] = "pipe",
    [SIM_STALL_NO_WORK] = "no_work",
};

bool ui_stats_option(const char *arg, UiStatsMode *mode, bool *bad)
{
    *bad = false;
    if (strncmp(arg, "--stats", 7) != 0 || (arg[7] != '\0' && arg[7] != '='))
        return false;
    const char *v = arg[7] ? arg + 8 : "text";
    if (strcmp(v, "text") == 0)
        *mode = UI_STATS_TEXT;
    else if (strcmp(v, "json") == 0)
        *mode = UI_STATS_JSON;
    else if (strcmp(v, "off") == 0)
        *mode = UI_STATS_OFF;
    else
        *bad = true;
    return true;
}

static double ratio(double a, double b)
{
    return b > 0 && isfinite(a / b) ? a / b : 0.0;
}

/* The peaks: the engine's when it filled them, else from the config. */
static double peak_flops(const SimStats *s, const SimGpuConfig *c)
{
    return s->peak_flops_per_second > 0
               ? s->peak_flops_per_second
               : c->cores * c->fp32_flops_per_cycle_per_core * c->clock_mhz * 1e6;
}

static double peak_dram(const SimStats *s, const SimGpuConfig *c)
{
    return s->peak_dram_bytes_per_second > 0 ? s->peak_dram_bytes_per_second
                                             : c->dram_bytes_per_second;
}

static double run_seconds(const SimStats *s, const SimGpuConfig *c)
{
    return s->seconds > 0 ? s->seconds : ratio((double)s->cycles, c->clock_mhz * 1e6);
}

/* ---- text ------------------------------------------------------------------------------------- */

static void label(FILE *out, const char *text)
{
    fprintf(out, "%-11s ", text);
}

/* 1234567 -> "1,234,567" */
static const char *grouped(uint64_t v, char *buf, size_t size)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%" PRIu64, v);
    size_t k = 0;
    for (int i = 0; i < n && k + 2 < size; i++) {
        if (i && (n - i) % 3 == 0)
            buf[k++] = ',';
        buf[k++] = digits[i];
    }
    buf[k] = '\0';
    return buf;
}

/* 1.23e12 with unit "FLOP/s" -> "1.23 TFLOP/s" */
static const char *scaled(double v, const char *unit, char *buf, size_t size)
{
    static const char *const prefixes[] = {"", "K", "M", "G", "T", "P"};
    int p = 0;
    while (fabs(v) >= 1000 && p < 5) {
        v /= 1000;
        p++;
    }
    snprintf(buf, size, fabs(v) < 100 ? "%.2f %s%s" : "%.1f %s%s", v, prefixes[p], unit);
    return buf;
}

static const char *duration(double s, char *buf, size_t size)
{
    if (s >= 1)
        snprintf(buf, size, "%.3f s", s);
    else if (s >= 1e-3)
        snprintf(buf, size, "%.3f ms", s * 1e3);
    else
        snprintf(buf, size, "%.3f us", s * 1e6);
    return buf;
}

static void text_functional(FILE *out, const SimResult *r, const UiGpu *gpu)
{
    char a[32], b[32], c[32];
    label(out, "stats");
    fprintf(out, "functional mode: no cycles, occupancy, stalls, caches or FLOP/s (those need "
                 "timed mode on %s: --mode timed)\n", gpu->config.name);
    label(out, "work");
    fprintf(out, "%s SIMD-group instructions, %s lane-instructions, %s threads\n",
            grouped(r->instructions, a, sizeof a), grouped(r->lane_instructions, b, sizeof b),
            grouped(r->threads, c, sizeof c));
    label(out, "groups");
    fprintf(out, "%" PRIu64 " threadgroups, %" PRIu64 " SIMD-groups\n", r->threadgroups,
            r->simdgroups);
    label(out, "SIMD eff.");
    fprintf(out, "%.1f%% (active lanes / present lanes)\n",
            100.0 * sim_result_simd_efficiency(r));
}

static void text_timed(FILE *out, const SimResult *r, const UiGpu *gpu)
{
    const SimStats *s = &r->stats;
    const SimGpuConfig *c = &gpu->config;
    char a[64], b[64], d[64];
    label(out, "gpu");
    fprintf(out, "%s (%s): %u cores, %u schedulers each, %.0f MHz\n", c->name, c->chip, c->cores,
            c->schedulers_per_core, c->clock_mhz);
    label(out, "cycles");
    fprintf(out, "%s  (%s at %.0f MHz)\n", grouped(s->cycles, a, sizeof a),
            duration(run_seconds(s, c), b, sizeof b), c->clock_mhz);

    uint64_t busy = 0, instr = 0;
    for (uint32_t i = 0; i < s->num_cores; i++) {
        busy += s->cores[i].busy_cycles;
        instr += s->cores[i].instructions;
    }
    double core_cycles = (double)s->cycles * (s->num_cores ? s->num_cores : 1);
    label(out, "cores");
    fprintf(out, "busy %.1f%% of cycles on average, IPC %.2f per core (at most %u)\n",
            100.0 * ratio((double)busy, core_cycles), ratio((double)instr, core_cycles),
            c->schedulers_per_core);
    if (s->num_cores) {
        fprintf(out, "%12s%6s %14s %7s %14s %6s %9s\n", "", "core", "busy cycles", "busy",
                "instructions", "IPC", "resident");
        for (uint32_t i = 0; i < s->num_cores; i++) {
            const SimCoreStats *k = &s->cores[i];
            fprintf(out, "%12s%6u %14s %6.1f%% %14s %6.2f %9.1f\n", "", i,
                    grouped(k->busy_cycles, a, sizeof a),
                    100.0 * ratio((double)k->busy_cycles, (double)s->cycles),
                    grouped(k->instructions, b, sizeof b),
                    ratio((double)k->instructions, (double)s->cycles), k->avg_resident_simdgroups);
        }
    }
    label(out, "occupancy");
    fprintf(out, "%.1f SIMD-groups resident per core on average, of %u allowed (%.0f%%); "
                 "limited by %s\n",
            s->avg_resident_simdgroups, s->max_resident_simdgroups,
            100.0 * ratio(s->avg_resident_simdgroups, s->max_resident_simdgroups),
            s->occupancy_limiter[0] ? s->occupancy_limiter : "nothing reported");

    uint64_t stalls = 0;
    for (int i = 0; i < SIM_STALL_COUNT; i++)
        stalls += s->stall_cycles[i];
    double sched_cycles = core_cycles * c->schedulers_per_core;
    label(out, "stalls");
    fprintf(out, "%s scheduler-cycles without an issue (%.1f%% of %s)\n",
            grouped(stalls, a, sizeof a), 100.0 * ratio((double)stalls, sched_cycles),
            grouped((uint64_t)sched_cycles, b, sizeof b));
    for (int i = 0; i < SIM_STALL_COUNT; i++)
        fprintf(out, "%12s%-12s %14s %6.1f%%\n", "", sim_stall_names[i],
                grouped(s->stall_cycles[i], a, sizeof a),
                100.0 * ratio((double)s->stall_cycles[i], (double)stalls));

    label(out, "memory");
    fprintf(out, "%6s %14s %14s %9s %14s\n", "level", "hits", "misses", "hit rate", "bytes");
    for (int i = 0; i < MEM_LEVEL_COUNT; i++) {
        const MemLevelStats *m = &s->memory[i];
        char e[64];
        fprintf(out, "%12s%6s %14s %14s %8.1f%% %14s\n", "", mem_level_names[i],
                grouped(m->hits, a, sizeof a), grouped(m->misses, b, sizeof b),
                100.0 * ratio((double)m->hits, (double)(m->hits + m->misses)),
                grouped(m->bytes, e, sizeof e));
    }
    label(out, "threadgroup");
    fprintf(out, "%s accesses, %s bank-conflict cycles (%u banks x %u B: an estimate)\n",
            grouped(s->tg_memory_accesses, a, sizeof a),
            grouped(s->tg_bank_conflict_cycles, b, sizeof b), c->tg_banks, c->tg_bank_bytes);

    double pf = peak_flops(s, c), pd = peak_dram(s, c);
    label(out, "FP32");
    fprintf(out, "%s of %s peak (%.1f%%), %s FLOPs\n",
            scaled(s->flops_per_second, "FLOP/s", a, sizeof a), scaled(pf, "FLOP/s", b, sizeof b),
            100.0 * ratio(s->flops_per_second, pf), grouped(s->flops, d, sizeof d));
    if (s->peak_tensor_flops_per_second > 0) {
        label(out, "tensor");
        fprintf(out, "%s of %s peak (%.1f%%), %s FLOPs on the neural accelerator\n",
                scaled(s->tensor_flops_per_second, "FLOP/s", a, sizeof a),
                scaled(s->peak_tensor_flops_per_second, "FLOP/s", b, sizeof b),
                100.0 * ratio(s->tensor_flops_per_second, s->peak_tensor_flops_per_second),
                grouped(s->tensor_flops, d, sizeof d));
    }
    label(out, "DRAM");
    fprintf(out, "%s of %s peak (%.1f%%), %s bytes\n",
            scaled(s->dram_bytes_per_second, "B/s", a, sizeof a), scaled(pd, "B/s", b, sizeof b),
            100.0 * ratio(s->dram_bytes_per_second, pd), grouped(s->dram_bytes, d, sizeof d));
    label(out, "SIMD eff.");
    fprintf(out, "%.1f%% (active lanes / present lanes)\n",
            100.0 * sim_result_simd_efficiency(r));
}

/* ---- JSON ------------------------------------------------------------------------------------- */

/* A finite double (JSON has no inf or nan). */
static void json_double(FILE *out, const char *key, double v)
{
    fprintf(out, ",\"%s\":%.9g", key, isfinite(v) ? v : 0.0);
}

static void json_u64(FILE *out, const char *key, uint64_t v)
{
    fprintf(out, ",\"%s\":%" PRIu64, key, v);
}

static void json_common(FILE *out, const SimResult *r, const UiGpu *gpu, bool timed)
{
    const SimGpuConfig *c = &gpu->config;
    fprintf(out, "{\"type\":\"stats\",\"mode\":\"%s\",\"timed\":%s,\"gpu\":",
            timed ? "timed" : "functional", timed ? "true" : "false");
    util_json_string(out, c->name);
    fputs(",\"chip\":", out);
    util_json_string(out, c->chip);
    json_double(out, "clock_mhz", c->clock_mhz);
    fprintf(out, ",\"num_cores\":%u,\"schedulers_per_core\":%u", c->cores,
            c->schedulers_per_core);
    json_u64(out, "instructions", r->instructions);
    json_u64(out, "lane_instructions", r->lane_instructions);
    json_u64(out, "lane_slots", r->lane_slots);
    json_u64(out, "threads", r->threads);
    json_u64(out, "threadgroups", r->threadgroups);
    json_u64(out, "simdgroups", r->simdgroups);
    json_double(out, "simd_efficiency", sim_result_simd_efficiency(r));
}

static void json_timed(FILE *out, const SimResult *r, const UiGpu *gpu)
{
    const SimStats *s = &r->stats;
    const SimGpuConfig *c = &gpu->config;
    json_common(out, r, gpu, true);
    json_u64(out, "cycles", s->cycles);
    json_double(out, "seconds", run_seconds(s, c));
    fputs(",\"cores\":[", out);
    for (uint32_t i = 0; i < s->num_cores; i++) {
        const SimCoreStats *k = &s->cores[i];
        fprintf(out, "%s{\"core\":%u", i ? "," : "", i);
        json_u64(out, "busy_cycles", k->busy_cycles);
        json_u64(out, "instructions", k->instructions);
        json_double(out, "ipc", ratio((double)k->instructions, (double)s->cycles));
        json_double(out, "avg_resident_simdgroups", k->avg_resident_simdgroups);
        fputc('}', out);
    }
    fputc(']', out);
    json_double(out, "avg_resident_simdgroups", s->avg_resident_simdgroups);
    fprintf(out, ",\"max_resident_simdgroups\":%u,\"occupancy_limiter\":",
            s->max_resident_simdgroups);
    util_json_string(out, s->occupancy_limiter);
    fputs(",\"stall_cycles\":{", out);
    for (int i = 0; i < SIM_STALL_COUNT; i++) {
        fputs(i ? "," : "", out);
        util_json_string(out, stall_keys[i]);
        fprintf(out, ":%" PRIu64, s->stall_cycles[i]);
    }
    fputs("},\"memory\":{", out);
    for (int i = 0; i < MEM_LEVEL_COUNT; i++) {
        const MemLevelStats *m = &s->memory[i];
        fputs(i ? "," : "", out);
        util_json_string(out, mem_level_names[i]);
        fprintf(out, ":{\"hits\":%" PRIu64 ",\"misses\":%" PRIu64 ",\"bytes\":%" PRIu64,
                m->hits, m->misses, m->bytes);
        json_double(out, "hit_rate", ratio((double)m->hits, (double)(m->hits + m->misses)));
        fputc('}', out);
    }
    fputc('}', out);
    json_u64(out, "tg_memory_accesses", s->tg_memory_accesses);
    json_u64(out, "tg_bank_conflict_cycles", s->tg_bank_conflict_cycles);
    double pf = peak_flops(s, c), pd = peak_dram(s, c);
    json_u64(out, "flops", s->flops);
    json_double(out, "flops_per_second", s->flops_per_second);
    json_double(out, "peak_flops_per_second", pf);
    json_double(out, "flops_percent_of_peak", 100.0 * ratio(s->flops_per_second, pf));
    json_u64(out, "tensor_flops", s->tensor_flops);
    json_double(out, "tensor_flops_per_second", s->tensor_flops_per_second);
    json_double(out, "peak_tensor_flops_per_second", s->peak_tensor_flops_per_second);
    json_u64(out, "dram_bytes", s->dram_bytes);
    json_double(out, "dram_bytes_per_second", s->dram_bytes_per_second);
    json_double(out, "peak_dram_bytes_per_second", pd);
    json_double(out, "dram_percent_of_peak", 100.0 * ratio(s->dram_bytes_per_second, pd));
    fputs("}\n", out);
}

void ui_report_stats(FILE *out, const SimResult *r, const UiGpu *gpu, UiStatsMode mode)
{
    if (mode == UI_STATS_OFF)
        return;
    if (mode == UI_STATS_JSON) {
        if (r->timed) {
            json_timed(out, r, gpu);
        } else {
            json_common(out, r, gpu, false);
            fputs(",\"note\":\"cycles, occupancy, stalls, caches and FLOP/s need timed mode\"}\n",
                  out);
        }
    } else if (r->timed) {
        text_timed(out, r, gpu);
    } else {
        text_functional(out, r, gpu);
    }
}
