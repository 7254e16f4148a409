/*
 * trace.h — instruction traces: recording a dispatch's issues to a file (record.c),
 * reading a trace file back with every field checked (read.c), and exporting it as text,
 * JSON Lines or Chrome trace JSON for Perfetto (export.c). docs/traces.md gives the format.
 *
 * A trace has one record per issued SIMD-group instruction: when (the cycle in a timed
 * run; the number in a functional one), where (core and scheduler), who
 * (threadgroup, SIMD-group), what (pc), which lanes ran it (exec mask), and in a timed run
 * when it could have issued and what it waited on until then. The file starts
 * with a text header that carries the program's instructions and source lines, so a trace
 * can be shown and exported without the kernel that made it.
 */
#ifndef LOCKSTEP_TRACES_TRACE_H
#define LOCKSTEP_TRACES_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../isa/isa.h"
#include "../sim/sim.h"
#include "../util/util.h"

#define TRACE_MAGIC "lockstep-trace"
#define TRACE_VERSION 1
#define TRACE_RECORD_BYTES 40
/* The most schedulers a core of any GPU config has (the header does not say how many) */
#define TRACE_MAX_SCHEDULERS 64u

/* What the header says about the run. */
typedef struct TraceInfo {
    char kernel[128];         /* entry name */
    char source[512];         /* the kernel's file */
    bool timed;
    char gpu[64];             /* timed: the config's name */
    double clock_hz;          /* timed */
    uint32_t cores;           /* timed: the GPU's cores; functional: 1 */
    uint32_t grid[3];         /* threads per grid */
    uint32_t threadgroup[3];  /* threads per threadgroup */
} TraceInfo;

/* ---- recording (record.c) ------------------------------------------------------------------ */

typedef struct TraceRecorder TraceRecorder;

/* The records `lockstep trace` keeps unless --limit says otherwise (40 bytes each: 400 MB). */
#define TRACE_DEFAULT_LIMIT 10000000u

/* Creates `path` and writes the header. limit > 0 records only the first `limit` issues
 * (the run goes on). NULL with err on failure (err names the file). */
TraceRecorder *trace_record_open(const char *path, const IsaProgram *program,
                                 const TraceInfo *info, uint64_t limit, UtilError *err);
/* Hooks the recorder into a launch: an issue trace in timed mode (the schedule stays as
 * without it), an observer in functional mode (launch->observers must be unset). The
 * recorder must outlive the dispatch. */
void trace_record_attach(TraceRecorder *r, SimLaunch *launch);
/* Flushes and closes the file; *records receives how many were written. False with err
 * when writing failed at any point (the file is then incomplete). Frees r either way. */
bool trace_record_close(TraceRecorder *r, uint64_t *records, UtilError *err);

/* ---- reading (read.c) ------------------------------------------------------------------------ */

typedef struct TraceInst {
    uint32_t pc;
    uint32_t line;            /* source line, 0 when none */
    char *text;               /* its assembly */
} TraceInst;

typedef struct TraceRecord {
    uint64_t cycle;           /* timed: issue cycle; functional: issue number from 0 */
    uint64_t threadgroup;     /* linear dispatch order */
    uint32_t pc;
    uint32_t exec_mask;
    uint32_t core, scheduler;
    uint32_t simdgroup;
    uint32_t lanes;           /* present lanes of the SIMD-group */
    /* timed: the earliest cycle it could have issued (operands, loads, barrier), and what it
     * waited on until then when that is after its SIMD-group's previous issue (from there to
     * `cycle` it waited for its turn); functional: cycle and SIM_STALL_DEPENDENCY */
    uint64_t ready;
    SimStall waited_on;
    const TraceInst *inst;    /* the instruction at pc (from the header) */
} TraceRecord;

typedef struct Trace {
    char *path;
    TraceInfo info;
    TraceInst *insts;
    uint32_t num_insts;
    uint64_t num_records;
    uint64_t next;            /* records read so far */
    uint64_t num_threadgroups;           /* in the grid (UINT64_MAX when more) */
    uint32_t simdgroups_per_threadgroup;
    FILE *f;
} Trace;

/* Opens and checks a trace: its header line by line, and that the records that follow are
 * whole. NULL with err ("FILE:LINE: error: ... expected ...") on anything malformed. */
Trace *trace_open(const char *path, UtilError *err);
/* The next record: 1 with *rec, 0 at the end, -1 on a malformed record (err says which one
 * and why). */
int trace_next(Trace *t, TraceRecord *rec, UtilError *err);
/* Reads the records from the current one on (at most limit when limit > 0) and comes back to
 * it: false with err at the first malformed one. Exports check first, so a bad record never
 * leaves half an export behind. */
bool trace_check_records(Trace *t, uint64_t limit, UtilError *err);
void trace_close(Trace *t);

/* ---- exporting (export.c) -------------------------------------------------------------------- */

typedef enum TraceFormat {
    TRACE_FORMAT_TEXT,        /* one aligned line per record, with its instruction */
    TRACE_FORMAT_JSONL,       /* one JSON object per record */
    TRACE_FORMAT_CHROME,      /* Chrome trace event JSON (Perfetto, chrome://tracing) */
} TraceFormat;

/* Writes the records from the current one on (at most limit when limit > 0). False with err
 * on a malformed record or a write error. */
bool trace_export(Trace *t, TraceFormat format, FILE *out, uint64_t limit, UtilError *err);

/* ---- profiling (profile.c) ------------------------------------------------------------------ */

/* Reads the records from the current one on and prints, per source line, its issues, the
 * share of lanes active, and the cycles its SIMD-groups waited before issuing it: on a
 * result, on memory, at a barrier, or for their turn. False with err on a malformed record. */
bool trace_profile(Trace *t, FILE *out, UtilError *err);

#endif
