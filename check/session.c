/*
 * session.c — a checking run: builds the enabled checkers, hands their observers to the
 * simulator, folds the simulator's own faults (out-of-bounds, constant writes, the budget)
 * into findings, and de-duplicates: one finding per kind and pair of source locations, with
 * a count of how often it happened.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_internal.h"

const char *const check_kind_names[CHECK_KIND_COUNT] = {
    [CHECK_RACE] = "race",
    [CHECK_BARRIER_DIVERGENCE] = "barrier-divergence",
    [CHECK_SIMD_DIVERGENCE] = "simd-divergence",
    [CHECK_OUT_OF_BOUNDS] = "out-of-bounds",
    [CHECK_UNINITIALIZED] = "uninitialized",
    [CHECK_READ_BEFORE_WAIT] = "read-before-wait",
    [CHECK_CONSTANT_WRITE] = "constant-write",
    [CHECK_BUDGET] = "budget",
};

CheckOptions check_options_all(void)
{
    return (CheckOptions){
        .races = true, .barriers = true, .simd = true, .memory = true, .uninit = true,
        .divergence_profile = true, .strict_simd = false, .same_value_races = false,
    };
}

uint32_t check_line_of(const IsaProgram *p, uint32_t pc)
{
    int64_t i = isa_program_index_of_pc(p, pc);
    return i >= 0 && p->locs ? p->locs[i].line : 0;
}

/* Two sites are "the same place" when they come from the same source line and column (or the
 * same pc when there is no debug info). */
static uint64_t place_of(const IsaProgram *p, const CheckSite *site)
{
    if (!site->valid)
        return UINT64_MAX;
    int64_t i = isa_program_index_of_pc(p, site->pc);
    if (i >= 0 && p->locs && p->locs[i].line)
        return (uint64_t)p->locs[i].file << 48 | (uint64_t)p->locs[i].line << 16 | p->locs[i].col;
    return (uint64_t)1 << 63 | site->pc;
}

void check_report(CheckSession *s, const CheckFinding *f)
{
    uint64_t a = place_of(s->program, &f->first), b = place_of(s->program, &f->second);
    for (uint32_t i = 0; i < s->num_findings; i++) {
        CheckFinding *g = &s->findings[i];
        if (g->kind == f->kind && place_of(s->program, &g->first) == a &&
            place_of(s->program, &g->second) == b && g->first.access == f->first.access &&
            g->second.access == f->second.access && g->severity == f->severity) {
            g->count += f->count ? f->count : 1;
            return;
        }
    }
    util_reserve((void **)&s->findings, &s->findings_cap, s->num_findings + 1, sizeof *s->findings);
    CheckFinding *g = &s->findings[s->num_findings++];
    *g = *f;
    if (!g->count)
        g->count = 1;
}

void check_site_thread(CheckSite *site, const SimGroupView *sg, uint32_t lane, uint32_t pc)
{
    site->valid = true;
    site->pc = pc;
    sim_lane_thread(sg, lane, &site->thread);
}

void check_site_address(const CheckSession *s, CheckSite *site, MemSpace space, uint64_t addr)
{
    site->space = space;
    site->symbol[0] = '\0';
    site->index = -1;
    if (space == MEM_SPACE_DEVICE || space == MEM_SPACE_CONSTANT) {
        MemBuffer *b = mem_device_buffer_at(s->device, addr);
        site->offset = addr & MEM_MAX_BUFFER_BYTES;
        if (!b)
            return;
        uint32_t index = (uint32_t)(b - s->device->buffers);
        site->space = b->space;
        snprintf(site->symbol, sizeof site->symbol, "%s", b->name);
        uint32_t elem = index < s->num_buffers && s->buffers[index].elem_size ? s->buffers[index].elem_size : 1;
        site->index = (int64_t)(site->offset / elem);
        return;
    }
    site->offset = addr;
    const IsaProgram *p = s->program;
    IsaSymbolSpace want = space == MEM_SPACE_THREADGROUP ? ISA_SYM_THREADGROUP : ISA_SYM_THREAD;
    for (uint32_t i = 0; i < p->num_symbols; i++) {
        const IsaSymbol *sym = &p->symbols[i];
        if (sym->space == want && addr >= sym->offset && addr < (uint64_t)sym->offset + sym->size) {
            snprintf(site->symbol, sizeof site->symbol, "%s", sym->name);
            site->index = (int64_t)((addr - sym->offset) / (sym->elem_size ? sym->elem_size : 1));
            return;
        }
    }
    if (space != MEM_SPACE_THREADGROUP)
        return;
    for (uint32_t i = 0; i < p->num_args; i++) {
        if (p->args[i].kind != ISA_ARG_THREADGROUP || !s->tg_arg_bytes[i])
            continue;
        uint64_t start = s->tg_arg_offsets[i];
        if (addr >= start && addr < start + s->tg_arg_bytes[i]) {
            snprintf(site->symbol, sizeof site->symbol, "%s", p->args[i].name);
            uint32_t elem = p->args[i].elem_size ? p->args[i].elem_size : 1;
            site->index = (int64_t)((addr - start) / elem);
            return;
        }
    }
}

const char *check_site_name(const CheckSite *site, char *buf, size_t size)
{
    if (site->symbol[0] && site->index >= 0)
        snprintf(buf, size, "%s[%lld]", site->symbol, (long long)site->index);
    else if (site->symbol[0])
        snprintf(buf, size, "%s", site->symbol);
    else
        snprintf(buf, size, "%s memory byte %llu", mem_space_names[site->space],
                 (unsigned long long)site->offset);
    return buf;
}

CheckSession *check_session_new(const IsaProgram *program, const MemDevice *dev,
                                const CheckBufferInfo *buffers, const SimArgBinding *bindings,
                                const CheckOptions *opts)
{
    CheckSession *s = util_calloc(1, sizeof *s);
    s->program = program;
    s->device = dev;
    s->opts = *opts;
    s->num_buffers = dev ? dev->count : 0;
    s->buffers = util_calloc(s->num_buffers ? s->num_buffers : 1, sizeof *s->buffers);
    for (uint32_t i = 0; i < s->num_buffers; i++)
        s->buffers[i] = buffers ? buffers[i] : (CheckBufferInfo){.elem_size = 1};
    uint32_t n = program->num_args ? program->num_args : 1;
    s->tg_arg_offsets = util_calloc(n, sizeof *s->tg_arg_offsets);
    s->tg_arg_bytes = util_calloc(n, sizeof *s->tg_arg_bytes);
    sim_threadgroup_layout(program, bindings, s->tg_arg_offsets);
    for (uint32_t i = 0; bindings && i < program->num_args; i++)
        if (program->args[i].kind == ISA_ARG_THREADGROUP)
            s->tg_arg_bytes[i] = bindings[i].tg_bytes;
    CheckChecker *(*makers[])(CheckSession *) = {
        check_race_new, check_barrier_new, check_simd_new, check_memory_new, check_profile_new,
    };
    for (size_t i = 0; i < UTIL_ARRAY_LEN(makers); i++) {
        CheckChecker *c = makers[i](s);
        if (!c)
            continue;
        s->checkers[s->num_checkers] = c;
        s->observers[s->num_checkers] = &c->observer;
        s->num_checkers++;
    }
    return s;
}

SimObserver *const *check_session_observers(CheckSession *s, uint32_t *count)
{
    *count = s->num_checkers;
    return s->observers;
}

static void fold_fault(CheckSession *s, const SimFault *f, uint64_t count)
{
    CheckFinding g = {.severity = CHECK_ERROR, .count = count};
    g.first.valid = true;
    g.first.pc = f->pc;
    g.first.thread = f->thread;
    g.first.access = f->is_write ? CHECK_ACCESS_WRITE : CHECK_ACCESS_READ;
    char name[128];
    switch (f->kind) {
    case SIM_FAULT_BUDGET:
        g.kind = CHECK_BUDGET;
        snprintf(g.message, sizeof g.message, "the instruction budget ran out; the kernel was stopped");
        snprintf(g.fix, sizeof g.fix, "look for a loop that never ends, or raise the budget");
        break;
    case SIM_FAULT_CONSTANT_WRITE:
        g.kind = CHECK_CONSTANT_WRITE;
        g.first.space = f->space;
        snprintf(g.first.symbol, sizeof g.first.symbol, "%s", f->buffer ? f->buffer : "");
        g.first.offset = f->offset;
        snprintf(g.message, sizeof g.message, "write to constant buffer '%s'", f->buffer ? f->buffer : "?");
        break;
    default:
        g.kind = CHECK_OUT_OF_BOUNDS;
        g.first.space = f->space;
        g.first.offset = f->offset;
        g.first.index = -1;
        if (f->buffer) {
            snprintf(g.first.symbol, sizeof g.first.symbol, "%s", f->buffer);
            for (uint32_t i = 0; i < s->num_buffers; i++)
                if (s->device->buffers[i].name && strcmp(s->device->buffers[i].name, f->buffer) == 0 &&
                    s->buffers[i].elem_size)
                    g.first.index = (int64_t)(f->offset / s->buffers[i].elem_size);
        }
        check_site_name(&g.first, name, sizeof name);
        bool unused = !f->is_write && check_memory_read_unused(s, f->pc);
        if (unused)
            g.severity = CHECK_WARNING;
        if (f->kind == SIM_FAULT_NO_BUFFER)
            snprintf(g.message, sizeof g.message, "%s of address 0x%llx, which is in no buffer",
                     f->is_write ? "write" : "read", (unsigned long long)f->offset);
        else
            snprintf(g.message, sizeof g.message,
                     "out-of-bounds %s of %s (byte offset %llu, %u bytes; valid 0..%llu)",
                     f->is_write ? "write" : "read", name, (unsigned long long)f->offset, f->bytes,
                     (unsigned long long)(f->valid_bytes ? f->valid_bytes - 1 : 0));
        if (unused) {
            size_t len = strlen(g.message);
            snprintf(g.message + len, sizeof g.message - len, " whose value is never used");
            snprintf(g.fix, sizeof g.fix, "the loaded value is discarded; guard the load itself "
                     "with the bounds check, not only its use");
        }
        break;
    }
    check_report(s, &g);
}

static int finding_order(const void *a, const void *b)
{
    const CheckFinding *x = a, *y = b;
    if (x->severity != y->severity)
        return x->severity < y->severity ? -1 : 1;
    if (x->first.pc != y->first.pc)
        return x->first.pc < y->first.pc ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return x->second.pc < y->second.pc ? -1 : x->second.pc > y->second.pc;
}

const CheckFinding *check_session_finish(CheckSession *s, const SimResult *result,
                                         uint32_t *count)
{
    for (uint32_t i = 0; i < s->num_checkers; i++)
        if (s->checkers[i]->finish)
            s->checkers[i]->finish(s->checkers[i], s, result);
    /* The simulator keeps the first faults in detail; the rest are counted into the last. */
    for (uint32_t i = 0; i < result->num_faults; i++) {
        uint64_t extra = i + 1 == result->num_faults ? result->total_faults - result->num_faults : 0;
        fold_fault(s, &result->faults[i], 1 + extra);
    }
    if (s->num_findings)
        qsort(s->findings, s->num_findings, sizeof *s->findings, finding_order);
    *count = s->num_findings;
    return s->findings;
}

const CheckProfile *check_session_profile(const CheckSession *s) { return &s->profile; }

void check_session_free(CheckSession *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->num_checkers; i++)
        if (s->checkers[i]->destroy)
            s->checkers[i]->destroy(s->checkers[i]);
    free(s->buffers);
    free(s->tg_arg_offsets);
    free(s->tg_arg_bytes);
    free(s->findings);
    free(s->profile.branches);
    free(s);
}
