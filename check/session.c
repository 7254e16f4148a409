/*
 * session.c — a checking run: builds the enabled checkers, hands the simulator one observer
 * that forwards each event to the checkers that want it, folds the simulator's own faults
 * (out-of-bounds, constant writes, the budget) into findings, and de-duplicates: one finding
 * per kind and pair of source locations, with a count of how often it happened. Also the
 * zeroed shadow arrays the checkers keep per buffer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "check_internal.h"

const char *const check_kind_names[CHECK_KIND_COUNT] = {
    [CHECK_RACE] = "race",
    [CHECK_BARRIER_DIVERGENCE] = "barrier-divergence",
    [CHECK_SIMD_DIVERGENCE] = "simd-divergence",
    [CHECK_SIMD_OPERAND] = "simd-operand",
    [CHECK_OUT_OF_BOUNDS] = "out-of-bounds",
    [CHECK_UNINITIALIZED] = "uninitialized",
    [CHECK_UNINIT_VALUE] = "uninitialized-value",
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

CheckLine check_loc_line(const IsaProgram *p, const IsaSourceLoc *loc)
{
    CheckLine l;
    if (!loc || !loc->line) {
        snprintf(l.s, sizeof l.s, "?");
        return l;
    }
    int n = snprintf(l.s, sizeof l.s, "%u", loc->line);
    isa_call_text(p, loc, l.s + n, sizeof l.s - (size_t)n);
    return l;
}

static const IsaSourceLoc *loc_at(const IsaProgram *p, uint32_t pc)
{
    int64_t i = isa_program_index_of_pc(p, pc);
    return i >= 0 && p->locs ? &p->locs[i] : NULL;
}

CheckLine check_line(const IsaProgram *p, uint32_t pc)
{
    return check_loc_line(p, loc_at(p, pc));
}

bool check_same_line(const IsaProgram *p, uint32_t a, uint32_t b)
{
    const IsaSourceLoc *la = loc_at(p, a), *lb = loc_at(p, b);
    if (!la || !lb)
        return la == lb;
    return la->file == lb->file && la->line == lb->line && la->call == lb->call;
}

/* Two sites are "the same place" when they come from the same source line and column, and
 * the same inlined call (or the same pc when there is no debug info). */
static bool same_place(const IsaProgram *p, const CheckSite *a, const CheckSite *b)
{
    if (!a->valid || !b->valid)
        return a->valid == b->valid;
    if (a->pc == b->pc)
        return true;
    const IsaSourceLoc *la = loc_at(p, a->pc), *lb = loc_at(p, b->pc);
    return la && lb && la->line && lb->line && isa_same_loc(la, lb);
}

void check_report(CheckSession *s, const CheckFinding *f)
{
    for (uint32_t i = 0; i < s->num_findings; i++) {
        CheckFinding *g = &s->findings[i];
        if (g->kind == f->kind && same_place(s->program, &g->first, &f->first) &&
            same_place(s->program, &g->second, &f->second) && g->first.access == f->first.access &&
            g->second.access == f->second.access && g->severity == f->severity &&
            g->cause == f->cause &&
            strcmp(g->first.symbol, f->first.symbol) == 0) { /* two arrays read at one line */
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

/* A byte of the constant data, by the program-scope constant array that holds it. */
static bool name_data_site(const IsaProgram *p, CheckSite *site)
{
    for (uint32_t i = 0; i < p->num_symbols; i++) {
        const IsaSymbol *sym = &p->symbols[i];
        if (sym->space != ISA_SYM_CONSTANT || site->offset < sym->offset ||
            site->offset >= (uint64_t)sym->offset + sym->size)
            continue;
        snprintf(site->symbol, sizeof site->symbol, "%s", sym->name);
        if (sym->array) {
            site->index = (int64_t)((site->offset - sym->offset) / (sym->elem_size ? sym->elem_size : 1));
            memcpy(site->dims, sym->dims, sizeof site->dims);
        }
        site->offset -= sym->offset;
        return true;
    }
    return false;
}

void check_site_address(const CheckSession *s, CheckSite *site, MemSpace space, uint64_t addr)
{
    site->space = space;
    site->symbol[0] = '\0';
    site->index = CHECK_NO_INDEX;
    memset(site->dims, 0, sizeof site->dims);
    if (space == MEM_SPACE_DEVICE || space == MEM_SPACE_CONSTANT) {
        MemBuffer *b = mem_device_buffer_at(s->device, addr);
        site->offset = addr & MEM_MAX_BUFFER_BYTES;
        if (!b)
            return;
        uint32_t index = (uint32_t)(b - s->device->buffers);
        site->space = b->space;
        if (b->name && strcmp(b->name, SIM_DATA_BUFFER_NAME) == 0 &&
            name_data_site(s->program, site))
            return;
        snprintf(site->symbol, sizeof site->symbol, "%s", b->name);
        uint32_t elem = index < s->num_buffers && s->buffers[index].elem_size ? s->buffers[index].elem_size : 1;
        site->index = (int64_t)(site->offset / elem);
        return;
    }
    site->offset = addr;
    const IsaProgram *p = s->program;
    IsaSymbolSpace want = space == MEM_SPACE_THREADGROUP ? ISA_SYM_THREADGROUP : ISA_SYM_THREAD;
    /* locals of disjoint scopes may share thread memory: the one whose scope holds the
     * access (pass 0), else any that holds the address */
    const int64_t at = isa_program_index_of_pc(p, site->pc);
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < p->num_symbols; i++) {
            const IsaSymbol *sym = &p->symbols[i];
            if (sym->space != want || addr < sym->offset || addr >= (uint64_t)sym->offset + sym->size ||
                (pass == 0 && sym->live_end && (at < sym->live_begin || at >= sym->live_end)))
                continue;
            snprintf(site->symbol, sizeof site->symbol, "%s", sym->name);
            /* a scalar or a struct is named alone: `total`, not `total[0]` */
            if (sym->array) {
                site->index = (int64_t)((addr - sym->offset) / (sym->elem_size ? sym->elem_size : 1));
                memcpy(site->dims, sym->dims, sizeof site->dims);
            }
            return;
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
    if (site->symbol[0] && site->index != CHECK_NO_INDEX && site->dims[0] && site->index >= 0) {
        /* [i][j].. from the flat index, innermost extent first */
        int n = 0;
        while (n < 3 && site->dims[n])
            n++;
        int64_t idx[4], rest = site->index;
        for (int k = n; k > 0; k--) {
            idx[k] = rest % site->dims[k - 1];
            rest /= site->dims[k - 1];
        }
        idx[0] = rest;
        size_t len = (size_t)snprintf(buf, size, "%s", site->symbol);
        for (int k = 0; k <= n && len < size; k++)
            len += (size_t)snprintf(buf + len, size - len, "[%lld]", (long long)idx[k]);
    } else if (site->symbol[0] && site->index != CHECK_NO_INDEX)
        snprintf(buf, size, "%s[%lld]", site->symbol, (long long)site->index);
    else if (site->symbol[0])
        snprintf(buf, size, "%s", site->symbol);
    else
        snprintf(buf, size, "%s memory byte %lld", /* below byte 0: negative */
                 (unsigned)site->space < MEM_SPACE_COUNT ? mem_space_names[site->space] : "?",
                 (long long)site->offset);
    return buf;
}

/* ---- shadow memory ------------------------------------------------------------------------ */

#define CHECK_HUGE ((size_t)2 << 20)

static bool shadow_mapped(size_t bytes)
{
#if defined(MADV_HUGEPAGE) && defined(MAP_ANONYMOUS)
    return bytes >= CHECK_HUGE && bytes <= SIZE_MAX / 2;
#else
    (void)bytes;
    return false;
#endif
}

void *check_shadow_alloc(uint64_t n, size_t size)
{
    if (n > SIZE_MAX / 2 / size)
        return NULL;
    size_t bytes = (size_t)n * size;
#if defined(MADV_HUGEPAGE) && defined(MAP_ANONYMOUS)
    if (shadow_mapped(bytes)) {
        size_t mapped = (bytes + CHECK_HUGE - 1) & ~(CHECK_HUGE - 1);
        uint8_t *p = mmap(NULL, mapped + CHECK_HUGE, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        /* keep the huge-page-aligned part */
        size_t lead = (CHECK_HUGE - ((uintptr_t)p & (CHECK_HUGE - 1))) & (CHECK_HUGE - 1);
        if (lead)
            munmap(p, lead);
        munmap(p + lead + mapped, CHECK_HUGE - lead);
        madvise(p + lead, mapped, MADV_HUGEPAGE);
        return p + lead;
    }
#endif
    return calloc(1, bytes ? bytes : 1);
}

void check_shadow_free(void *p, uint64_t n, size_t size)
{
    if (!p)
        return;
#if defined(MADV_HUGEPAGE) && defined(MAP_ANONYMOUS)
    size_t bytes = (size_t)n * size;
    if (shadow_mapped(bytes)) {
        munmap(p, (bytes + CHECK_HUGE - 1) & ~(CHECK_HUGE - 1));
        return;
    }
#endif
    (void)n;
    (void)size;
    free(p);
}

/* ---- the observer the simulator sees ------------------------------------------------------ */

static void fwd_threadgroup_begin(void *ctx, const SimThreadgroupView *tg)
{
    CheckSession *s = ctx;
    uint32_t n = tg->num_simdgroups;
    if (n > s->cap_groups) {
        s->groups = util_realloc(s->groups, n * sizeof *s->groups);
        s->cap_groups = n;
    }
    s->num_groups = n;
    s->num_retire_all = 0;
    memcpy(s->retire_now, s->retire_ops, sizeof s->retire_now);
    for (uint32_t i = 0; i < n; i++) {
        /* r0l starts at 0, so every present lane starts active */
        uint32_t lanes = i + 1 < n || tg->threads % 32 == 0 ? 32 : tg->threads % 32;
        s->groups[i] = (CheckGroup){.mask = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1};
    }
    for (uint32_t i = 0; i < s->fwd.num_tg_begin; i++)
        s->fwd.tg_begin[i].fn(s->fwd.tg_begin[i].ctx, tg);
}

static void fwd_threadgroup_end(void *ctx, const SimThreadgroupView *tg)
{
    CheckSession *s = ctx;
    for (uint32_t i = 0; i < s->fwd.num_tg_end; i++)
        s->fwd.tg_end[i].fn(s->fwd.tg_end[i].ctx, tg);
}

static __attribute__((noinline)) void issue_to(CheckSession *s, uint32_t want,
                                                const SimGroupView *sg, const IsaInst *inst)
{
    for (; want; want &= want - 1) {
        CheckChecker *c = s->checkers[__builtin_ctz(want)];
        c->observer.inst_issued(c->observer.ctx, sg, inst);
    }
}

static void fwd_inst_issued(void *ctx, const SimGroupView *sg, const IsaInst *inst)
{
    CheckSession *s = ctx;
    uint32_t want = inst->op < ISA_OP_COUNT ? s->issue_want[inst->op] : s->issue_want_any;
    if (want)
        issue_to(s, want, sg, inst);
}

static __attribute__((noinline)) void retire_to(CheckSession *s, uint32_t want,
                                                const SimGroupView *sg, const IsaInst *inst,
                                                uint32_t before)
{
    for (; want; want &= want - 1) {
        CheckChecker *c = s->checkers[__builtin_ctz(want)];
        if (c->retired)
            c->retired(c, sg, inst, before);
        if (c->observer.inst_retired)
            c->observer.inst_retired(c->observer.ctx, sg, inst);
    }
}

/* Keeps each SIMD-group's exec mask and instruction count, and calls the checkers that want
 * this instruction (see CheckChecker.retired). */
static void fwd_inst_retired(void *ctx, const SimGroupView *sg, const IsaInst *inst)
{
    CheckSession *s = ctx;
    CheckGroup *g = &s->groups[sg->simdgroup];
    const uint32_t before = g->mask;
    g->mask = sg->exec_mask;
    g->retired = sg->retired;
    uint32_t want = (inst->op < ISA_OP_COUNT ? s->retire_want[inst->op] : s->retire_want_any) |
                    g->retire_all;
    if (before != sg->exec_mask)
        want |= s->retire_on_change;
    if (!want)
        return;
    if (!(want & (want - 1))) { /* one checker (a load for the memory checker): no loop */
        CheckChecker *c = s->checkers[__builtin_ctz(want)];
        if (c->retired && !c->observer.inst_retired) {
            c->retired(c, sg, inst, before);
            return;
        }
    }
    retire_to(s, want, sg, inst, before);
}

static void fwd_mem_access(void *ctx, const SimGroupView *sg, const SimMemAccess *access)
{
    CheckSession *s = ctx;
    for (uint32_t i = 0; i < s->fwd.num_mem; i++)
        s->fwd.mem[i].fn(s->fwd.mem[i].ctx, sg, access);
}

static void fwd_barrier_arrive(void *ctx, const SimGroupView *sg, const IsaInst *inst)
{
    CheckSession *s = ctx;
    for (uint32_t i = 0; i < s->fwd.num_arrive; i++)
        s->fwd.arrive[i].fn(s->fwd.arrive[i].ctx, sg, inst);
}

static void fwd_barrier_release(void *ctx, const SimThreadgroupView *tg)
{
    CheckSession *s = ctx;
    for (uint32_t i = 0; i < s->fwd.num_release; i++)
        s->fwd.release[i].fn(s->fwd.release[i].ctx, tg);
}

/* The per-opcode tables, and the session's observer with only the hooks someone wants. */
static void build_forwarding(CheckSession *s)
{
    CheckForward *f = &s->fwd;
    for (uint32_t i = 0; i < s->num_checkers; i++) {
        CheckChecker *c = s->checkers[i];
        const SimObserver *o = &c->observer;
        uint8_t bit = (uint8_t)(1u << i);
        c->bit = bit;
        /* an opcode past the table (none should be) goes to everyone who might want it */
        if (o->inst_issued)
            s->issue_want_any |= bit;
        if (o->inst_retired || c->retired)
            s->retire_want_any |= bit;
        bool all_issued = true;
        for (uint32_t w = 0; w < CHECK_OP_WORDS; w++)
            all_issued &= c->issue_ops[w] == 0;
        for (uint32_t op = 0; op < ISA_OP_COUNT; op++) {
            bool op_set = (c->issue_ops[op / 64] >> (op % 64)) & 1;
            if (o->inst_issued && (all_issued || op_set))
                s->issue_want[op] |= bit;
            if (o->inst_retired || (c->retired && ((c->retire_ops[op / 64] >> (op % 64)) & 1)))
                s->retire_want[op] |= bit;
        }
        if (c->retired && c->retire_mask_changes)
            s->retire_on_change |= bit;
        if (o->threadgroup_begin)
            f->tg_begin[f->num_tg_begin++] = (CheckTgHook){o->threadgroup_begin, o->ctx};
        if (o->threadgroup_end)
            f->tg_end[f->num_tg_end++] = (CheckTgHook){o->threadgroup_end, o->ctx};
        if (o->mem_access)
            f->mem[f->num_mem++] = (CheckMemHook){o->mem_access, o->ctx};
        if (o->barrier_arrive)
            f->arrive[f->num_arrive++] = (CheckInstHook){o->barrier_arrive, o->ctx};
        if (o->barrier_release)
            f->release[f->num_release++] = (CheckTgHook){o->barrier_release, o->ctx};
        f->any_issued |= o->inst_issued != NULL;
        f->any_retired |= o->inst_retired || c->retired;
    }
    /* Checkers that filter their instructions: the simulator sees the union of all wants. */
    const IsaProgram *prog = s->program;
    bool filtered = false;
    for (uint32_t i = 0; i < s->num_checkers; i++)
        filtered |= s->checkers[i]->issue_insts != NULL;
    if (filtered) {
        s->issue_insts = util_calloc(prog->count ? prog->count : 1, 1);
        for (uint32_t k = 0; k < prog->count; k++) {
            const uint16_t op = prog->code[k].op;
            uint32_t want = op < ISA_OP_COUNT ? s->issue_want[op] : s->issue_want_any;
            for (; want && !s->issue_insts[k]; want &= want - 1) {
                const CheckChecker *c = s->checkers[__builtin_ctz(want)];
                s->issue_insts[k] = !c->issue_insts || c->issue_insts[k];
            }
        }
    }
    for (uint32_t op = 0; op < ISA_OP_COUNT; op++) {
        if (s->issue_want[op])
            check_op_set(s->issue_ops, op);
        if (s->retire_want[op] || isa_ops[op].op_class == ISA_CLASS_CONTROL)
            check_op_set(s->retire_ops, op);
    }
    /* r0 holds the exec nesting counters: whatever touches it may change a mask. And a
     * SIMD-group that runs off the end instead of reaching `stop` ends at the last
     * instruction: retiring that keeps CheckGroup.retired whole at the end. */
    const IsaProgram *p = s->program;
    if (p->count)
        check_op_set(s->retire_ops, p->code[p->count - 1].op);
    for (uint32_t k = 0; k < p->count; k++)
        for (uint32_t i = 0; i < ISA_MAX_OPERANDS; i++) {
            const IsaOperand *o = &p->code[k].opd[i];
            if ((o->kind == ISA_OPD_R32 && o->index == 0) || (o->kind == ISA_OPD_R16 && o->index < 2) ||
                (o->kind == ISA_OPD_R64 && o->index == 0))
                check_op_set(s->retire_ops, p->code[k].op);
        }
    /* threadgroup_begin always: it resets the per-SIMD-group state retiring needs */
    s->observer = (SimObserver){
        .ctx = s,
        .threadgroup_begin = fwd_threadgroup_begin,
        .threadgroup_end = f->num_tg_end ? fwd_threadgroup_end : NULL,
        .inst_issued = f->any_issued ? fwd_inst_issued : NULL,
        .inst_retired = f->any_retired ? fwd_inst_retired : NULL,
        .mem_access = f->num_mem ? fwd_mem_access : NULL,
        .barrier_arrive = f->num_arrive ? fwd_barrier_arrive : NULL,
        .barrier_release = f->num_release ? fwd_barrier_release : NULL,
        .issue_ops = s->issue_ops,
        .issue_ops_fixed = true, /* built once, here */
        .issue_insts = s->issue_insts,
        .retire_ops = s->retire_now,
    };
    memcpy(s->retire_now, s->retire_ops, sizeof s->retire_now);
    s->observers[0] = &s->observer;
    s->num_observers = 1;
    /* One checker alone wanting instructions this program has: the simulator calls it. */
    uint32_t wanting = 0, sole = 0;
    for (uint32_t i = 0; i < s->num_checkers; i++) {
        const CheckChecker *c = s->checkers[i];
        bool any = false;
        for (uint32_t k = 0; c->observer.inst_issued && k < prog->count && !any; k++) {
            const uint16_t op = prog->code[k].op;
            any = (op < ISA_OP_COUNT ? s->issue_want[op] : s->issue_want_any) & c->bit &&
                  (!c->issue_insts || c->issue_insts[k]);
        }
        if (any) {
            wanting++;
            sole = i;
        }
    }
    if (wanting == 1) {
        const CheckChecker *c = s->checkers[sole];
        s->observer.inst_issued = NULL;
        s->direct = (SimObserver){
            .ctx = c->observer.ctx,
            .inst_issued = c->observer.inst_issued,
            .issue_ops = s->issue_ops,
            .issue_ops_fixed = true,
            .issue_insts = s->issue_insts,
        };
        s->observers[s->num_observers++] = &s->direct;
    }
}

/* Which device buffers the kernel can write: those a store or atomic names by the uniform
 * register its argument is bound to. Uniform registers are read-only and a faulting access
 * writes nothing, so such an instruction writes only its own argument's buffer; one whose
 * base is anything else (a register pair, a uniform no argument owns) could write any, and
 * then every buffer counts as writable. A buffer no instruction can write has no races: the
 * race checker leaves its reads untracked. */
static void find_writable(CheckSession *s, const SimArgBinding *bindings)
{
    const IsaProgram *p = s->program;
    for (uint32_t i = 0; i < s->num_buffers; i++)
        s->writable[i] = bindings == NULL;
    for (uint32_t k = 0; bindings && k < p->count; k++) {
        const IsaInst *in = &p->code[k];
        if (in->op != ISA_OP_ST_DEV && in->op != ISA_OP_ATOM_DEV && in->op != ISA_OP_CMPXCHG_DEV)
            continue;
        const IsaOperand *base = &in->opd[1];
        bool named = false;
        for (uint32_t a = 0; base->kind == ISA_OPD_U64 && a < p->num_args; a++) {
            if (p->args[a].kind == ISA_ARG_THREADGROUP || p->args[a].uniform != base->index)
                continue;
            if (bindings[a].buffer < s->num_buffers)
                s->writable[bindings[a].buffer] = true;
            named = true;
        }
        if (!named) {
            for (uint32_t i = 0; i < s->num_buffers; i++)
                s->writable[i] = true;
            return;
        }
    }
}

bool check_session_may_write(const CheckSession *s, uint32_t buffer)
{
    return buffer >= s->num_buffers || s->writable[buffer];
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
    s->writable = util_calloc(s->num_buffers ? s->num_buffers : 1, sizeof *s->writable);
    find_writable(s, bindings);
    uint32_t n = program->num_args ? program->num_args : 1;
    s->tg_arg_offsets = util_calloc(n, sizeof *s->tg_arg_offsets);
    s->tg_arg_bytes = util_calloc(n, sizeof *s->tg_arg_bytes);
    sim_threadgroup_layout(program, bindings, s->tg_arg_offsets);
    for (uint32_t i = 0; bindings && i < program->num_args; i++)
        if (program->args[i].kind == ISA_ARG_THREADGROUP)
            s->tg_arg_bytes[i] = bindings[i].tg_bytes;
    CheckChecker *(*makers[])(CheckSession *) = {
        check_race_new, check_barrier_new, check_simd_new, check_memory_new, check_regdef_new,
        check_profile_new,
    };
    for (size_t i = 0; i < UTIL_ARRAY_LEN(makers); i++) {
        CheckChecker *c = makers[i](s);
        if (c)
            s->checkers[s->num_checkers++] = c;
    }
    build_forwarding(s);
    return s;
}

SimObserver *const *check_session_observers(CheckSession *s, uint32_t *count)
{
    *count = s->num_checkers ? s->num_observers : 0;
    return s->observers;
}

/* An access past a thread's stack memory is named by the array it ran past: the one whose
 * end is nearest below it, if it lies within that array's length past the end (v[8] of a
 * float v[8]). */
static void name_past_array(const IsaProgram *p, CheckSite *site)
{
    const IsaSymbol *best = NULL;
    const int64_t at = isa_program_index_of_pc(p, site->pc);
    for (int pass = 0; pass < 2 && !best; pass++) /* an array whose scope holds it first */
        for (uint32_t i = 0; i < p->num_symbols; i++) {
            const IsaSymbol *sym = &p->symbols[i];
            uint64_t end = (uint64_t)sym->offset + sym->size;
            if (sym->space == ISA_SYM_THREAD && sym->array && end <= site->offset &&
                site->offset < end + sym->size &&
                (pass || !sym->live_end || (at >= sym->live_begin && at < sym->live_end)) &&
                (!best || end > (uint64_t)best->offset + best->size))
                best = sym;
        }
    if (!best)
        return;
    snprintf(site->symbol, sizeof site->symbol, "%s", best->name);
    uint32_t elem = best->elem_size ? best->elem_size : 1;
    site->index = (int64_t)((site->offset - best->offset) / elem);
}

/* A threadgroup fault names the array (or argument block) its base pointed into, with the
 * offset from that array's start: the element, by the array's element size and shape; so
 * does a fault in the constant data (a program-scope constant array). */
static void name_tg_fault(const CheckSession *s, const SimFault *f, CheckSite *site)
{
    const IsaProgram *p = s->program;
    const IsaSymbolSpace want = f->space == MEM_SPACE_THREADGROUP ? ISA_SYM_THREADGROUP
                                                                  : ISA_SYM_CONSTANT;
    snprintf(site->symbol, sizeof site->symbol, "%s", f->buffer);
    uint32_t elem = 1;
    bool array = true;
    /* by name and size: two scopes may each declare a `buf` */
    const IsaSymbol *sym = NULL;
    for (uint32_t i = 0; i < p->num_symbols; i++)
        if (p->symbols[i].space == want && strcmp(p->symbols[i].name, f->buffer) == 0 &&
            (!sym || p->symbols[i].size == f->valid_bytes))
            sym = &p->symbols[i];
    if (sym) {
        elem = sym->elem_size ? sym->elem_size : 1;
        array = sym->array;
        memcpy(site->dims, sym->dims, sizeof site->dims);
    }
    for (uint32_t i = 0; want == ISA_SYM_THREADGROUP && i < p->num_args; i++)
        if (p->args[i].kind == ISA_ARG_THREADGROUP && strcmp(p->args[i].name, f->buffer) == 0)
            elem = p->args[i].elem_size ? p->args[i].elem_size : 1;
    /* a scalar variable is named alone (`total[1]` would read as an array) */
    site->index = array ? (int64_t)f->offset / (int64_t)elem : CHECK_NO_INDEX;
}

/* A fault the simulator named by a block of the constant data (none is named as a buffer). */
static bool data_fault(const IsaProgram *p, const SimFault *f)
{
    for (uint32_t i = 0; f->space == MEM_SPACE_CONSTANT && i < p->num_symbols; i++)
        if (p->symbols[i].space == ISA_SYM_CONSTANT && strcmp(p->symbols[i].name, f->buffer) == 0)
            return true;
    return false;
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
        g.first.index = CHECK_NO_INDEX;
        if (f->space == MEM_SPACE_THREAD && !f->buffer)
            name_past_array(s->program, &g.first);
        if (f->buffer && (f->space == MEM_SPACE_THREADGROUP || data_fault(s->program, f))) {
            name_tg_fault(s, f, &g.first);
        } else if (f->buffer) {
            snprintf(g.first.symbol, sizeof g.first.symbol, "%s", f->buffer);
            for (uint32_t i = 0; i < s->num_buffers; i++)
                if (s->device->buffers[i].name && strcmp(s->device->buffers[i].name, f->buffer) == 0 &&
                    s->buffers[i].elem_size)
                    g.first.index = (int64_t)f->offset / (int64_t)s->buffers[i].elem_size;
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
                     "out-of-bounds %s of %s (byte offset %lld, %u bytes; valid 0..%llu)",
                     f->is_write ? "write" : "read", name, (long long)f->offset, f->bytes,
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

/* Fault i of those kept in detail: the first ones, then the late ones. */
static const SimFault *kept_fault(const SimResult *r, uint32_t i)
{
    return i < r->num_faults ? &r->faults[i] : &r->late_faults[i - r->num_faults];
}

/* The simulator keeps the first faults in detail, and the first of each instruction after
 * them, with a count per instruction: each instruction's faults not kept are counted into
 * the last one kept there. */
static void fold_faults(CheckSession *s, const SimResult *r)
{
    const IsaProgram *p = s->program;
    uint64_t *left = NULL; /* per instruction: its faults not yet counted */
    if (r->inst_faults) {
        left = util_calloc(p->count ? p->count : 1, sizeof *left);
        memcpy(left, r->inst_faults, p->count * sizeof *left);
        for (uint32_t i = 0; i < r->num_faults + r->num_late_faults; i++) {
            const SimFault *f = kept_fault(r, i);
            int64_t at = isa_program_index_of_pc(p, f->pc);
            if (at >= 0 && left[at])
                left[at]--; /* now: the faults there beyond the kept ones */
        }
    }
    /* the last kept at an instruction takes its rest; they are folded in order, so each
     * finding reads as its first fault */
    uint32_t n = r->num_faults + r->num_late_faults;
    uint64_t *extra = util_calloc(n ? n : 1, sizeof *extra);
    for (uint32_t i = n; i-- > 0;) {
        const SimFault *f = kept_fault(r, i);
        int64_t at = left ? isa_program_index_of_pc(p, f->pc) : -1;
        if (at >= 0) {
            extra[i] = left[at];
            left[at] = 0;
        } else if (!left && i + 1 == r->num_faults) { /* no counts: the rest to the last */
            extra[i] = r->total_faults - r->num_faults;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        fold_fault(s, kept_fault(r, i), 1 + extra[i]);
    free(extra);
    free(left);
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
    fold_faults(s, result);
    if (s->num_findings)
        qsort(s->findings, s->num_findings, sizeof *s->findings, finding_order);
    *count = s->num_findings;
    return s->findings;
}

void check_session_flush(CheckSession *s)
{
    for (uint32_t i = 0; i < s->num_checkers; i++)
        if (s->checkers[i]->flush)
            s->checkers[i]->flush(s->checkers[i], s);
}

const CheckFinding *check_session_findings(const CheckSession *s, uint32_t *count)
{
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
    free(s->writable);
    free(s->tg_arg_offsets);
    free(s->tg_arg_bytes);
    free(s->findings);
    free(s->groups);
    free(s->issue_insts);
    free(s->profile.branches);
    free(s);
}
