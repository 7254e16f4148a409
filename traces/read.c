/*
 * read.c — reading a trace file back, trusting nothing in it.
 *
 * A trace may be cut short (a full disk, a killed run), edited, or not a trace at all: every
 * header line is checked for its keyword and values, in order, and every record for values
 * the header allows (a pc the program has, a core the GPU has, a mask within the present
 * lanes). Errors name the file and the header line, or the record by its number and byte
 * offset, and say what was expected.
 */
#include "trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct Reader {
    Trace *t;
    uint32_t line;
    char buf[1024];
    UtilError *err;
} Reader;

static bool fail_at(Reader *r, const char *fmt, ...) UTIL_PRINTF(2, 3);
static bool fail_at(Reader *r, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return util_fail(r->err, "%s:%u: error: %s", r->t->path, r->line, msg);
}

/* The next header line, without its newline, in r->buf; its keyword must be `key`, and
 * *rest points past it and one space. */
static bool next_line(Reader *r, const char *key, const char **rest)
{
    r->line++;
    if (!fgets(r->buf, sizeof r->buf, r->t->f))
        return fail_at(r, "the file ends in its header; expected a `%s` line", key);
    size_t n = strlen(r->buf);
    if (n == 0 || r->buf[n - 1] != '\n')
        return fail_at(r, "a header line longer than %zu bytes, or cut short; expected a `%s` "
                       "line", sizeof r->buf - 2, key);
    r->buf[n - 1] = '\0';
    size_t k = strlen(key);
    if (strncmp(r->buf, key, k) != 0 || (r->buf[k] != ' ' && r->buf[k] != '\0'))
        return fail_at(r, "expected a `%s` line, not `%.40s`", key, r->buf);
    *rest = r->buf[k] ? r->buf + k + 1 : r->buf + k;
    return true;
}

/* count unsigned numbers (decimal or 0x hex) from s, and nothing after them. */
static bool parse_u32s(Reader *r, const char *key, const char *s, uint32_t *out, int count)
{
    for (int i = 0; i < count; i++) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 0);
        if (end == s || errno || v > UINT32_MAX || *s == '-' || (*end && *end != ' '))
            return fail_at(r, "expected %d number%s after `%s`, not `%s`", count,
                           count == 1 ? "" : "s", key, s);
        out[i] = (uint32_t)v;
        s = *end ? end + 1 : end;
    }
    if (*s)
        return fail_at(r, "expected %d number%s after `%s`; `%s` is one too many", count,
                       count == 1 ? "" : "s", key, s);
    return true;
}

static bool copy_text(Reader *r, const char *key, char *dst, size_t size)
{
    const char *v;
    if (!next_line(r, key, &v))
        return false;
    snprintf(dst, size, "%s", v);
    return true;
}

static bool read_header(Reader *r)
{
    Trace *t = r->t;
    const char *v;
    uint32_t n[3];
    if (!next_line(r, TRACE_MAGIC, &v))
        return util_fail(r->err, "%s:1: error: not a lockstep trace (it does not start with "
                         "`%s %d`)", t->path, TRACE_MAGIC, TRACE_VERSION);
    if (!parse_u32s(r, TRACE_MAGIC, v, n, 1))
        return false;
    if (n[0] != TRACE_VERSION)
        return fail_at(r, "trace format version %u; this lockstep reads version %d", n[0],
                       TRACE_VERSION);
    if (!copy_text(r, "kernel", t->info.kernel, sizeof t->info.kernel) ||
        !copy_text(r, "source", t->info.source, sizeof t->info.source) || !next_line(r, "mode", &v))
        return false;
    if (strcmp(v, "timed") != 0 && strcmp(v, "functional") != 0)
        return fail_at(r, "expected `mode timed` or `mode functional`, not `mode %s`", v);
    t->info.timed = v[0] == 't';
    if (t->info.timed) {
        if (!copy_text(r, "gpu", t->info.gpu, sizeof t->info.gpu) || !next_line(r, "clock_hz", &v))
            return false;
        char *end;
        t->info.clock_hz = strtod(v, &end);
        if (end == v || *end || !(t->info.clock_hz > 0))
            return fail_at(r, "expected a clock rate in Hz after `clock_hz`, not `%s`", v);
    }
    if (!next_line(r, "cores", &v) || !parse_u32s(r, "cores", v, &t->info.cores, 1) ||
        !next_line(r, "grid", &v) || !parse_u32s(r, "grid", v, t->info.grid, 3) ||
        !next_line(r, "threadgroup", &v) || !parse_u32s(r, "threadgroup", v, t->info.threadgroup, 3) ||
        !next_line(r, "instructions", &v) || !parse_u32s(r, "instructions", v, n, 1))
        return false;
    if (t->info.cores == 0 || t->info.cores > 65535)
        return fail_at(r, "expected 1 to 65535 cores, not %u", t->info.cores);
    /* what the records are checked against: the threadgroups of the grid, the SIMD-groups of
     * a threadgroup */
    uint64_t groups = 1, threads = 1;
    for (int k = 0; k < 3; k++) {
        uint32_t g = t->info.grid[k], tg = t->info.threadgroup[k];
        if (g == 0 || tg == 0)
            return fail_at(r, "expected a grid and threadgroup of positive sizes, not %u and "
                           "%u in dimension %d", g, tg, k);
        uint64_t per = g / tg + (g % tg != 0);
        groups = groups > UINT64_MAX / per ? UINT64_MAX : groups * per;
        threads *= tg;
    }
    t->num_threadgroups = groups;
    t->simdgroups_per_threadgroup = (threads + SIM_SIMD_WIDTH - 1) / SIM_SIMD_WIDTH;
    if (n[0] == 0 || n[0] > (1u << 24))
        return fail_at(r, "expected 1 to %u instructions, not %u", 1u << 24, n[0]);
    t->num_insts = n[0];
    t->insts = util_calloc(n[0], sizeof *t->insts);
    for (uint32_t i = 0; i < t->num_insts; i++) {
        if (!next_line(r, "inst", &v))
            return false;
        char *end;
        unsigned long long pc = strtoull(v, &end, 16);
        unsigned long long line = *end == ' ' ? strtoull(end + 1, &end, 10) : ~0ull;
        if (strncmp(v, "0x", 2) != 0 || pc > UINT32_MAX || line > UINT32_MAX || *end != ' ' ||
            !end[1])
            return fail_at(r, "expected `inst 0xPC LINE ASSEMBLY`, not `inst %.40s`", v);
        if (i && pc <= t->insts[i - 1].pc)
            return fail_at(r, "instruction %u's pc 0x%llx is not past the one before (0x%x)", i,
                           pc, t->insts[i - 1].pc);
        t->insts[i] = (TraceInst){(uint32_t)pc, (uint32_t)line, util_strdup(end + 1)};
    }
    return next_line(r, "records", &v) && (!*v || fail_at(r, "expected `records` alone"));
}

Trace *trace_open(const char *path, UtilError *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        util_fail(err, "cannot open trace %s: %s", path, strerror(errno));
        return NULL;
    }
    Trace *t = util_calloc(1, sizeof *t);
    t->path = util_strdup(path);
    t->f = f;
    Reader r = {.t = t, .err = err};
    if (!read_header(&r)) {
        trace_close(t);
        return NULL;
    }
    long start = ftell(f);
    if (start < 0 || fseek(f, 0, SEEK_END) != 0) {
        util_fail(err, "cannot read trace %s: %s", path, strerror(errno));
        trace_close(t);
        return NULL;
    }
    long end = ftell(f);
    uint64_t bytes = (uint64_t)(end - start);
    if (bytes % TRACE_RECORD_BYTES) {
        util_fail(err, "%s: error: the trace is cut short: %" PRIu64 " bytes after its last whole "
                  "record (records are %d bytes; was the run stopped while recording?)", path,
                  bytes % TRACE_RECORD_BYTES, TRACE_RECORD_BYTES);
        trace_close(t);
        return NULL;
    }
    t->num_records = bytes / TRACE_RECORD_BYTES;
    fseek(f, start, SEEK_SET);
    return t;
}

static uint64_t get_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

static const TraceInst *find_inst(const Trace *t, uint32_t pc)
{
    uint32_t lo = 0, hi = t->num_insts;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->insts[mid].pc < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->num_insts && t->insts[lo].pc == pc ? &t->insts[lo] : NULL;
}

int trace_next(Trace *t, TraceRecord *rec, UtilError *err)
{
    if (t->next >= t->num_records)
        return 0;
    uint8_t b[TRACE_RECORD_BYTES];
    uint64_t k = t->next++;
    if (fread(b, sizeof b, 1, t->f) != 1) {
        util_fail(err, "%s: error: cannot read record %" PRIu64 ": %s", t->path, k,
                  ferror(t->f) ? strerror(errno) : "the file got shorter");
        return -1;
    }
    *rec = (TraceRecord){
        .cycle = get_le(b, 8), .threadgroup = get_le(b + 8, 8), .pc = (uint32_t)get_le(b + 16, 4),
        .exec_mask = (uint32_t)get_le(b + 20, 4), .core = (uint32_t)get_le(b + 24, 2),
        .scheduler = b[26], .lanes = b[27], .simdgroup = (uint32_t)get_le(b + 28, 2),
        .waited_on = (SimStall)b[30], .ready = get_le(b + 32, 8),
    };
    const char *why = NULL;
    char buf[160];
    rec->inst = find_inst(t, rec->pc);
    if (!rec->inst)
        why = (snprintf(buf, sizeof buf, "pc 0x%x is no instruction of the program", rec->pc), buf);
    else if (rec->lanes == 0 || rec->lanes > 32)
        why = (snprintf(buf, sizeof buf, "%u lanes; a SIMD-group has 1 to 32", rec->lanes), buf);
    else if (rec->lanes < 32 && rec->exec_mask >> rec->lanes)
        why = (snprintf(buf, sizeof buf, "exec mask 0x%08x has lanes past its %u", rec->exec_mask,
                        rec->lanes), buf);
    else if (rec->core >= t->info.cores)
        why = (snprintf(buf, sizeof buf, "core %u; the header says %u cores", rec->core,
                        t->info.cores), buf);
    else if (rec->scheduler >= (t->info.timed ? TRACE_MAX_SCHEDULERS : 1))
        why = (snprintf(buf, sizeof buf, "scheduler %u; %s %u", rec->scheduler, t->info.timed ?
                        "a core has at most" : "a functional trace has only scheduler",
                        t->info.timed ? TRACE_MAX_SCHEDULERS : 0), buf);
    else if (rec->threadgroup >= t->num_threadgroups)
        why = (snprintf(buf, sizeof buf, "threadgroup %" PRIu64 "; the grid has %" PRIu64,
                        rec->threadgroup, t->num_threadgroups), buf);
    else if (rec->simdgroup >= t->simdgroups_per_threadgroup)
        why = (snprintf(buf, sizeof buf, "SIMD-group %u; a threadgroup has %u", rec->simdgroup,
                        t->simdgroups_per_threadgroup), buf);
    else if (b[30] > SIM_STALL_BARRIER) /* what a record waited on: its SIMD-group's own reason */
        why = (snprintf(buf, sizeof buf, "wait reason %u; expected 0 (dependency), 1 (memory) or "
                        "2 (barrier)", b[30]), buf);
    else if (b[31])
        why = "its reserved byte 31 is not zero";
    else if (rec->ready > rec->cycle)
        why = (snprintf(buf, sizeof buf, "ready at cycle %" PRIu64 ", after it issued (%" PRIu64 ")",
                        rec->ready, rec->cycle), buf);
    if (why) {
        util_fail(err, "%s: error: record %" PRIu64 " (byte %" PRIu64 " of the records) is "
                  "malformed: %s", t->path, k, k * TRACE_RECORD_BYTES, why);
        return -1;
    }
    return 1;
}

bool trace_check_records(Trace *t, uint64_t limit, UtilError *err)
{
    long at = ftell(t->f);
    uint64_t next = t->next;
    if (at < 0)
        return util_fail(err, "cannot read trace %s: %s", t->path, strerror(errno));
    TraceRecord rec;
    int got = 1;
    for (uint64_t n = 0; (limit == 0 || n < limit) && (got = trace_next(t, &rec, err)) > 0; n++)
        ;
    if (fseek(t->f, at, SEEK_SET) != 0)
        return util_fail(err, "cannot read trace %s: %s", t->path, strerror(errno));
    t->next = next;
    return got >= 0;
}

void trace_close(Trace *t)
{
    if (!t)
        return;
    if (t->f)
        fclose(t->f);
    for (uint32_t i = 0; i < t->num_insts; i++)
        free(t->insts[i].text);
    free(t->insts);
    free(t->path);
    free(t);
}
