/*
 * export.c — a trace as text, JSON Lines, or Chrome trace event JSON.
 *
 * Text is for reading in a terminal: one aligned line per issue with its lanes drawn as
 * `#` and `.`. JSON Lines is for scripts: one object per issue. The Chrome format loads in
 * Perfetto (ui.perfetto.dev) and chrome://tracing: a process per core, a thread per
 * scheduler, a one-unit slice per issue named by its instruction, with the timeline's
 * microseconds standing for cycles (functional traces: for issue numbers, on one track per
 * SIMD-group of the threadgroup).
 */
#include "trace.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

static void write_text(FILE *out, const TraceRecord *r, bool timed)
{
    char lanes[33];
    for (uint32_t l = 0; l < 32; l++)
        lanes[l] = l >= r->lanes ? ' ' : r->exec_mask >> l & 1 ? '#' : '.';
    lanes[32] = '\0';
    fprintf(out, "%10" PRIu64 "  %3u.%u  %6" PRIu64 "  %2u  %s  0x%04x  %4u  %s\n", r->cycle,
            timed ? r->core : 0, timed ? r->scheduler : 0, r->threadgroup, r->simdgroup, lanes,
            r->pc, r->inst->line, r->inst->text);
}

static void write_jsonl(FILE *out, const TraceRecord *r)
{
    fprintf(out, "{\"cycle\":%" PRIu64 ",\"core\":%u,\"scheduler\":%u,\"threadgroup\":%" PRIu64
                 ",\"simdgroup\":%u,\"pc\":%u,\"exec_mask\":%u,\"active\":%u,\"lanes\":%u,"
                 "\"line\":%u,\"ready\":%" PRIu64 ",\"waited_on\":\"%s\",\"inst\":",
            r->cycle, r->core, r->scheduler, r->threadgroup, r->simdgroup, r->pc, r->exec_mask,
            util_popcount32(r->exec_mask), r->lanes, r->inst->line, r->ready,
            sim_stall_names[r->waited_on]);
    util_json_string(out, r->inst->text);
    fputs("}\n", out);
}

static void write_chrome(FILE *out, const TraceRecord *r, bool timed)
{
    /* the slice's name: the mnemonic alone, so Perfetto colours each kind alike */
    char name[32];
    size_t n = strcspn(r->inst->text, " ");
    snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), r->inst->text);
    fputs(",\n{\"name\":", out); /* after the names chrome_names wrote */
    util_json_string(out, name);
    fprintf(out, ",\"cat\":\"inst\",\"ph\":\"X\",\"ts\":%" PRIu64 ",\"dur\":1,\"pid\":%u,"
                 "\"tid\":%u,\"args\":{\"threadgroup\":%" PRIu64 ",\"simdgroup\":%u,"
                 "\"pc\":\"0x%04x\",\"line\":%u,\"active\":%u,\"ready\":%" PRIu64 ","
                 "\"waited_on\":\"%s\",\"inst\":",
            r->cycle, timed ? r->core : 0, timed ? r->scheduler : r->simdgroup, r->threadgroup,
            r->simdgroup, r->pc, r->inst->line, util_popcount32(r->exec_mask), r->ready,
            sim_stall_names[r->waited_on]);
    util_json_string(out, r->inst->text);
    fputs("}}", out);
}

/* Names the Chrome format's processes and threads: cores and schedulers (timed), or the
 * SIMD-groups of a threadgroup (functional). */
static void chrome_names(FILE *out, const Trace *t)
{
    const TraceInfo *in = &t->info;
    uint32_t tracks = in->timed ? 4 : (in->threadgroup[0] * in->threadgroup[1] * in->threadgroup[2] +
                                       SIM_SIMD_WIDTH - 1) / SIM_SIMD_WIDTH;
    tracks = tracks > 32 ? 32 : tracks;
    for (uint32_t c = 0; c < (in->timed ? in->cores : 1); c++) {
        fprintf(out, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"name\":\"",
                c ? ",\n" : "", c);
        if (in->timed)
            fprintf(out, "core %u", c);
        else
            fputs("functional run", out);
        fputs("\"}}", out);
        for (uint32_t k = 0; k < tracks; k++)
            fprintf(out, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,"
                         "\"args\":{\"name\":\"%s %u\"}}",
                    c, k, in->timed ? "scheduler" : "SIMD-group", k);
    }
}

bool trace_export(Trace *t, TraceFormat format, FILE *out, uint64_t limit, UtilError *err)
{
    bool timed = t->info.timed;
    if (format == TRACE_FORMAT_CHROME) {
        fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"kernel\":", out);
        util_json_string(out, t->info.kernel);
        fprintf(out, ",\"mode\":\"%s\",\"time\":\"%s\"},\n\"traceEvents\":[\n",
                timed ? "timed" : "functional", timed ? "1 us = 1 cycle" : "1 us = 1 issue");
        chrome_names(out, t);
    } else if (format == TRACE_FORMAT_TEXT) {
        fprintf(out, "%10s  %5s  %6s  %2s  %-32s  %6s  %4s  %s\n", timed ? "cycle" : "issue",
                "core", "tg", "sg", "lanes (# active)", "pc", "line", "instruction");
    }
    TraceRecord r;
    uint64_t n = 0;
    int got = 0;
    while ((limit == 0 || n < limit) && (got = trace_next(t, &r, err)) > 0) {
        if (format == TRACE_FORMAT_TEXT)
            write_text(out, &r, timed);
        else if (format == TRACE_FORMAT_JSONL)
            write_jsonl(out, &r);
        else
            write_chrome(out, &r, timed);
        n++;
    }
    if (limit && n == limit)
        got = 0;
    if (format == TRACE_FORMAT_CHROME)
        fputs("\n]}\n", out);
    if (got < 0)
        return false;
    if (fflush(out) != 0 || ferror(out))
        return util_fail(err, "cannot write the export: %s", strerror(errno));
    return true;
}
