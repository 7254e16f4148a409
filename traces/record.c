/*
 * record.c — writing a trace as the dispatch runs.
 *
 * The header is text (docs/traces.md): what ran, then one `inst` line per instruction with
 * its pc, source line and assembly. The records follow, 40 bytes each, little-endian, written
 * through stdio's buffer as they come, so memory stays flat however long the run. In timed
 * mode the records come from SimLaunch.issue_trace, which leaves the schedule as it is; in
 * functional mode from an observer (nothing to disturb there), numbered in issue order.
 */
#include "trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct TraceRecorder {
    FILE *f;
    char *path;
    uint64_t limit;            /* 0: no limit */
    uint64_t records;
    uint64_t issued;           /* functional: the issue number */
    bool failed;               /* a write failed */
    int error;                 /* its errno */
    SimIssueTrace hook;
    SimObserver observer;
    SimObserver *observers[1];
};

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void write_record(TraceRecorder *r, const SimIssueEvent *e)
{
    if (r->failed || (r->limit && r->records >= r->limit))
        return;
    uint8_t b[TRACE_RECORD_BYTES] = {0};
    put_le(b + 0, e->cycle, 8);
    put_le(b + 8, e->threadgroup, 8);
    put_le(b + 16, e->pc, 4);
    put_le(b + 20, e->exec_mask, 4);
    put_le(b + 24, e->core, 2);
    put_le(b + 26, e->scheduler, 1);
    put_le(b + 27, e->lanes, 1);
    put_le(b + 28, e->simdgroup, 2);
    put_le(b + 30, e->waited_on, 1);
    put_le(b + 32, e->ready, 8);
    if (fwrite(b, sizeof b, 1, r->f) != 1) {
        r->failed = true;
        r->error = errno;
        return;
    }
    r->records++;
}

static void on_timed_issue(void *ctx, const SimIssueEvent *e) { write_record(ctx, e); }

static void on_functional_issue(void *ctx, const SimGroupView *sg, const IsaInst *inst)
{
    TraceRecorder *r = ctx;
    SimIssueEvent e = {
        .cycle = r->issued++, .threadgroup = sg->threadgroup->linear, .simdgroup = sg->simdgroup,
        .pc = inst->pc, .exec_mask = sg->exec_mask, .lanes = sg->lanes,
    };
    e.ready = e.cycle; /* no timing: never waited */
    write_record(r, &e);
}

/* A header value on one line: newlines and other control characters become spaces. */
static void put_text(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
}

TraceRecorder *trace_record_open(const char *path, const IsaProgram *program,
                                 const TraceInfo *info, uint64_t limit, UtilError *err)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        util_fail(err, "cannot create trace %s: %s", path, strerror(errno));
        return NULL;
    }
    TraceRecorder *r = util_calloc(1, sizeof *r);
    r->f = f;
    r->path = util_strdup(path);
    r->limit = limit;
    fprintf(f, "%s %d\nkernel ", TRACE_MAGIC, TRACE_VERSION);
    put_text(f, info->kernel);
    fputs("\nsource ", f);
    put_text(f, info->source);
    fprintf(f, "\nmode %s\n", info->timed ? "timed" : "functional");
    if (info->timed) {
        fputs("gpu ", f);
        put_text(f, info->gpu);
        fprintf(f, "\nclock_hz %.17g\n", info->clock_hz);
    }
    fprintf(f, "cores %u\ngrid %u %u %u\nthreadgroup %u %u %u\ninstructions %u\n",
            info->cores ? info->cores : 1, info->grid[0], info->grid[1], info->grid[2],
            info->threadgroup[0], info->threadgroup[1], info->threadgroup[2], program->count);
    for (uint32_t i = 0; i < program->count; i++) {
        char text[256];
        isa_format_inst(program, &program->code[i], text, sizeof text);
        uint32_t line = program->locs && program->locs[i].file == 0 ? program->locs[i].line : 0;
        fprintf(f, "inst 0x%x %u ", program->code[i].pc, line);
        put_text(f, text);
        fputc('\n', f);
    }
    fputs("records\n", f);
    if (ferror(f)) {
        r->failed = true;
        r->error = errno;
    }
    r->hook = (SimIssueTrace){.ctx = r, .issued = on_timed_issue};
    r->observer = (SimObserver){.ctx = r, .inst_issued = on_functional_issue};
    r->observers[0] = &r->observer;
    return r;
}

void trace_record_attach(TraceRecorder *r, SimLaunch *launch)
{
    if (launch->mode == SIM_MODE_TIMED) {
        launch->issue_trace = &r->hook;
    } else {
        launch->observers = r->observers;
        launch->num_observers = 1;
    }
}

bool trace_record_close(TraceRecorder *r, uint64_t *records, UtilError *err)
{
    *records = r->records;
    if (fclose(r->f) != 0 && !r->failed) {
        r->failed = true;
        r->error = errno;
    }
    bool ok = !r->failed;
    if (!ok)
        util_fail(err, "cannot write trace %s: %s", r->path, strerror(r->error));
    free(r->path);
    free(r);
    return ok;
}
