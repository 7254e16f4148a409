/*
 * profile.c — where a timed trace's cycles went, source line by source line.
 *
 * Between two issues of one SIMD-group the cycles go to one of two things: waiting for
 * what the instruction needs (a result, memory, a barrier: up to its record's `ready`), and
 * then waiting for its turn at the scheduler (other SIMD-groups issuing, or its pipe). The
 * first needs the SIMD-group's previous issue, so the reader keeps the last issue cycle of
 * every SIMD-group that has issued and not yet ended (a hash table the size of what is
 * resident, not of the grid); each wait is charged to the instruction that waited.
 */
#include "trace.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Last issue cycle per SIMD-group (key threadgroup * 32 + SIMD-group + 1; 0: empty slot),
 * open addressing with linear probing and backward-shift deletion. */
typedef struct LastIssue {
    uint64_t *keys, *cycles;
    size_t cap, n;
} LastIssue;

static size_t slot_of(const LastIssue *m, uint64_t key)
{
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 20) & (m->cap - 1);
}

static size_t find(const LastIssue *m, uint64_t key)
{
    size_t i = slot_of(m, key);
    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static void put(LastIssue *m, uint64_t key, uint64_t cycle);

static void grow(LastIssue *m)
{
    LastIssue old = *m;
    m->cap = old.cap ? 2 * old.cap : 1024;
    m->n = 0;
    m->keys = util_calloc(m->cap, sizeof *m->keys);
    m->cycles = util_calloc(m->cap, sizeof *m->cycles);
    for (size_t i = 0; i < old.cap; i++)
        if (old.keys[i])
            put(m, old.keys[i], old.cycles[i]);
    free(old.keys);
    free(old.cycles);
}

static void put(LastIssue *m, uint64_t key, uint64_t cycle)
{
    if (2 * (m->n + 1) > m->cap)
        grow(m);
    size_t i = find(m, key);
    if (!m->keys[i]) {
        m->keys[i] = key;
        m->n++;
    }
    m->cycles[i] = cycle;
}

static void drop(LastIssue *m, size_t i)
{
    m->keys[i] = 0;
    m->n--;
    /* shift back the entries that probed past the hole */
    for (size_t j = (i + 1) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1)) {
        size_t home = slot_of(m, m->keys[j]);
        bool movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
        if (movable) {
            m->keys[i] = m->keys[j];
            m->cycles[i] = m->cycles[j];
            m->keys[j] = 0;
            i = j;
        }
    }
}

typedef struct LineCost {
    uint32_t line;
    uint64_t issues, lanes, slots;
    uint64_t waited[SIM_STALL_COUNT];
    uint64_t turn;
} LineCost;

static int by_line(const void *a, const void *b)
{
    uint32_t x = ((const LineCost *)a)->line, y = ((const LineCost *)b)->line;
    return (x > y) - (x < y);
}

static void percent(FILE *out, uint64_t part, uint64_t whole)
{
    fprintf(out, " %12" PRIu64 " %5.1f%%", part, whole ? 100.0 * (double)part / (double)whole : 0.0);
}

bool trace_profile(Trace *t, FILE *out, UtilError *err)
{
    /* per instruction, then summed per line */
    LineCost *inst = util_calloc(t->num_insts, sizeof *inst);
    LastIssue last = {0};
    grow(&last);
    TraceRecord r;
    int got;
    while ((got = trace_next(t, &r, err)) > 0) {
        LineCost *c = &inst[r.inst - t->insts];
        c->issues++;
        c->lanes += util_popcount32(r.exec_mask);
        c->slots += r.lanes;
        if (!t->info.timed) /* issue numbers, not cycles: nothing waited */
            continue;
        uint64_t key = r.threadgroup * 32 + r.simdgroup + 1;
        size_t i = find(&last, key);
        uint64_t from = last.keys[i] ? last.cycles[i] + 1 : r.cycle; /* its first: no wait */
        if (last.keys[i] && r.ready > from) {
            c->waited[r.waited_on] += r.ready - from;
            from = r.ready;
        }
        c->turn += r.cycle > from ? r.cycle - from : 0;
        if (strncmp(r.inst->text, "stop", 4) == 0) {
            if (last.keys[i])
                drop(&last, i);
        } else {
            put(&last, key, r.cycle);
        }
    }
    free(last.keys);
    free(last.cycles);
    if (got < 0) {
        free(inst);
        return false;
    }
    /* sum per line */
    LineCost *lines = util_calloc(t->num_insts, sizeof *lines), total = {0};
    uint32_t n = 0;
    for (uint32_t k = 0; k < t->num_insts; k++) {
        uint32_t line = t->insts[k].line;
        uint32_t j = 0;
        while (j < n && lines[j].line != line)
            j++;
        if (j == n)
            lines[n++].line = line;
        LineCost *l = &lines[j], *c = &inst[k];
        l->issues += c->issues;
        l->lanes += c->lanes;
        l->slots += c->slots;
        l->turn += c->turn;
        total.issues += c->issues;
        total.turn += c->turn;
        for (int s = 0; s < SIM_STALL_COUNT; s++) {
            l->waited[s] += c->waited[s];
            total.waited[s] += c->waited[s];
        }
    }
    qsort(lines, n, sizeof *lines, by_line);
    uint64_t all = total.turn;
    for (int s = 0; s < SIM_STALL_COUNT; s++)
        all += total.waited[s];
    fprintf(out, "profile of %s (%s), %s, %" PRIu64 " issues\n", t->info.kernel, t->info.source,
            t->info.timed ? "timed" : "functional", total.issues);
    if (!t->info.timed)
        fprintf(out, "a functional trace has no cycles: issues and lanes only\n");
    fprintf(out, "cycles between a SIMD-group's issues, charged to the instruction that waited:\n"
                 "on a result (dependency), on memory (loads, `wait`), at a barrier, or for its\n"
                 "turn (other SIMD-groups issuing, or its pipe busy); percentages of all of them\n");
    fprintf(out, "%6s %8s %6s %19s %19s %19s %19s\n", "line", "issues", "lanes", "on a result",
            "on memory", "at a barrier", "for its turn");
    for (uint32_t j = 0; j < n; j++) {
        const LineCost *l = &lines[j];
        if (!l->issues)
            continue;
        char line[16];
        snprintf(line, sizeof line, l->line ? "%u" : "-", l->line);
        fprintf(out, "%6s %8" PRIu64 " %5.1f%%", line, l->issues,
                l->slots ? 100.0 * (double)l->lanes / (double)l->slots : 0.0);
        percent(out, l->waited[SIM_STALL_DEPENDENCY], all);
        percent(out, l->waited[SIM_STALL_MEMORY], all);
        percent(out, l->waited[SIM_STALL_BARRIER], all);
        percent(out, l->turn, all);
        fputc('\n', out);
    }
    fprintf(out, "%6s %8" PRIu64 " %6s", "all", total.issues, "");
    percent(out, total.waited[SIM_STALL_DEPENDENCY], all);
    percent(out, total.waited[SIM_STALL_MEMORY], all);
    percent(out, total.waited[SIM_STALL_BARRIER], all);
    percent(out, total.turn, all);
    fputc('\n', out);
    free(lines);
    free(inst);
    return true;
}
