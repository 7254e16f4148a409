/*
 * dispatch.c — from a launch to a finished grid: validating the launch, binding arguments
 * to uniforms, resolving operands (see sim_internal.h), splitting the grid into
 * threadgroups and threadgroups into SIMD-groups, and running each threadgroup's
 * SIMD-groups from barrier to barrier.
 *
 * Functional mode runs one threadgroup at a time in a fixed order (x fastest, then y, z),
 * and within a threadgroup each SIMD-group in index order until it stops or reaches a
 * barrier; when none can go on, the barrier releases. That order is one legal schedule, so
 * race-free kernels get the results any schedule gives, every run the same. Memory is
 * proportional to one threadgroup, not to the grid. Timed mode shares everything up to the
 * translated code and hands the grid to the engine in timing.c.
 */
#include <stdlib.h>

#include "sim_internal.h"
#include "timing.h"

void sim_lane_thread(const SimGroupView *sg, uint32_t lane, SimThreadId *out)
{
    const SimThreadgroupView *tg = sg->threadgroup;
    uint32_t linear = sg->simdgroup * W + lane;
    uint32_t sx = tg->size[0], sy = tg->size[1];
    out->local[0] = linear % sx;
    out->local[1] = (linear / sx) % sy;
    out->local[2] = linear / (sx * sy);
    for (int k = 0; k < 3; k++) {
        out->threadgroup[k] = tg->position[k];
        out->grid[k] = tg->position[k] * tg->dispatch_size[k] + out->local[k];
    }
    out->simdgroup = sg->simdgroup;
    out->lane = lane;
}

void sim_fault(SimDispatch *d, SimGroup *g, uint32_t lane, SimFaultKind kind, MemSpace space,
               bool is_write, const char *buffer, uint64_t offset, uint32_t bytes,
               uint64_t valid_bytes)
{
    SimResult *r = d->result;
    r->total_faults++;
    bool first_here = false;
    if (g) {
        if (!r->inst_faults)
            r->inst_faults = util_calloc(d->program->count, sizeof *r->inst_faults);
        first_here = r->inst_faults[g->pc]++ == 0;
    }
    SimFault *f;
    if (r->num_faults < d->max_faults) {
        if (!r->faults)
            r->faults = util_calloc(d->max_faults, sizeof *r->faults);
        f = &r->faults[r->num_faults++];
    } else if (first_here) { /* at most one an instruction */
        r->late_faults = util_realloc(r->late_faults,
                                      (r->num_late_faults + 1) * sizeof *r->late_faults);
        f = &r->late_faults[r->num_late_faults++];
        memset(f, 0, sizeof *f);
    } else {
        return;
    }
    f->kind = kind;
    f->space = space;
    f->is_write = is_write;
    f->buffer = buffer;
    f->offset = offset;
    f->bytes = bytes;
    f->valid_bytes = valid_bytes;
    f->pc = g ? d->code[g->pc].isa->pc : 0;
    if (g)
        sim_lane_thread(&g->view, lane, &f->thread);
}

/* ---- operand resolution ------------------------------------------------------------------- */

typedef struct Splats {
    uint32_t *words;
    size_t count, capacity; /* in slots of 32 words */
} Splats;

static uint32_t splat(Splats *s, uint32_t value)
{
    util_reserve((void **)&s->words, &s->capacity, (s->count + 1) * W, sizeof *s->words);
    for (int l = 0; l < W; l++)
        s->words[s->count * W + l] = value;
    return (uint32_t)(s->count++ * W);
}

static bool is_float_source(const IsaInst *in, int k)
{
    const IsaOpInfo *info = &isa_ops[in->op];
    return (info->modifiers & ISA_MOD_SRC) && k > 0;
}

static void resolve_operand(const SimDispatch *d, const IsaInst *in, int k, Splats *s, SimOpd *o)
{
    const IsaOperand *io = &in->opd[k];
    memset(o, 0, sizeof *o);
    o->and_mask = 0xffffffffu;
    switch ((IsaOperandKind)io->kind) {
    case ISA_OPD_R32: case ISA_OPD_R64:
        o->bank = SIM_BANK_REGS;
        o->off = io->index * W;
        o->reg = io->index;
        break;
    case ISA_OPD_R16:
        o->bank = SIM_BANK_REGS;
        o->off = (io->index / 2u) * W;
        o->half = io->index & 1;
        o->reg = io->index / 2u;
        break;
    case ISA_OPD_U32: case ISA_OPD_U16:
        o->bank = SIM_BANK_CONSTS;
        o->off = splat(s, d->uniforms[io->index & 255]);
        break;
    case ISA_OPD_U64:
        o->bank = SIM_BANK_CONSTS;
        o->off = splat(s, d->uniforms[io->index & 255]);
        splat(s, d->uniforms[(io->index + 1) & 255]);
        break;
    case ISA_OPD_IMM:
        o->bank = SIM_BANK_CONSTS;
        o->off = splat(s, (uint32_t)io->imm);
        splat(s, (uint32_t)(io->imm >> 32));
        break;
    default: /* labels, numbers, special registers, absent operands read zeros */
        o->bank = SIM_BANK_CONSTS;
        o->off = 0;
        break;
    }
    if (is_float_source(in, k) && io->flags) {
        bool half = io->kind == ISA_OPD_R16 || io->kind == ISA_OPD_U16 ||
                    isa_ops[in->op].op_class == ISA_CLASS_FP16 ||
                    (in->op == ISA_OP_FLOOR16 || in->op == ISA_OP_CEIL16 ||
                     in->op == ISA_OP_TRUNC16 || in->op == ISA_OP_RINT16 || in->op == ISA_OP_FDIV16);
        uint32_t sign = half ? 0x8000u : 0x80000000u;
        if (io->flags & ISA_OPD_ABS)
            o->and_mask = ~sign;
        if (io->flags & ISA_OPD_NEG)
            o->xor_mask = sign;
    }
}

static bool writes_r0(const IsaInst *in)
{
    char first = isa_ops[in->op].operands[0];
    bool is_load = in->op == ISA_OP_LD_DEV || in->op == ISA_OP_LD_CONST ||
                   in->op == ISA_OP_LD_TG || in->op == ISA_OP_LD_STACK;
    if (!(first == 'D' || first == 'H' || first == 'P' || first == 'x' || (first == 'm' && is_load)))
        return false;
    const IsaOperand *o = &in->opd[0];
    if (o->kind == ISA_OPD_R16)
        return o->index / 2u == 0;
    return (o->kind == ISA_OPD_R32 || o->kind == ISA_OPD_R64) && o->index == 0;
}

static void translate(SimDispatch *d)
{
    const IsaProgram *p = d->program;
    Splats s = {0};
    splat(&s, 0); /* slot 0 and 1: zeros for absent operands */
    splat(&s, 0);
    d->code = util_calloc(p->count ? p->count : 1, sizeof *d->code);
    d->count = p->count;
    for (uint32_t i = 0; i < p->count; i++) {
        const IsaInst *in = &p->code[i];
        SimInst *si = &d->code[i];
        si->isa = in;
        si->op = in->op;
        si->cond = in->cond;
        for (int k = 0; k < ISA_MAX_OPERANDS; k++) {
            resolve_operand(d, in, k, &s, &si->o[k]);
            if (in->opd[k].kind == ISA_OPD_LABEL)
                si->target = in->opd[k].index;
        }
        if (writes_r0(in))
            si->flags |= SIM_INST_WRITES_R0;
        if ((isa_ops[in->op].modifiers & ISA_MOD_SAT) && (in->flags & ISA_INST_SAT))
            si->flags |= SIM_INST_SAT;
    }
    d->consts = s.words;
}

/* ---- launch validation and binding -------------------------------------------------------- */

uint64_t sim_threadgroup_layout(const IsaProgram *p, const SimArgBinding *bindings,
                                uint32_t *offsets)
{
    uint64_t tg_offset = p->tg_mem_bytes;
    for (uint32_t i = 0; i < p->num_args; i++) {
        if (offsets)
            offsets[i] = 0;
        if (p->args[i].kind != ISA_ARG_THREADGROUP || !bindings)
            continue;
        tg_offset = (tg_offset + 15) & ~(uint64_t)15;
        if (offsets)
            offsets[i] = (uint32_t)tg_offset;
        tg_offset += bindings[i].tg_bytes;
    }
    return tg_offset;
}

/* The kernel's named threadgroup blocks and its argument blocks, and the byte map of them
 * (SimDispatch.tg_home); overlapping blocks (none the compiler makes) keep the first. */
static void map_tg_blocks(SimDispatch *d)
{
    const IsaProgram *p = d->program;
    uint32_t n = 0, *offsets = util_calloc(p->num_args ? p->num_args : 1, sizeof *offsets);
    sim_threadgroup_layout(p, d->launch->bindings, offsets);
    d->tg_blocks = util_calloc(p->num_symbols + p->num_args + 1, sizeof *d->tg_blocks);
    for (uint32_t i = 0; i < p->num_symbols; i++)
        if (p->symbols[i].space == ISA_SYM_THREADGROUP && p->symbols[i].size)
            d->tg_blocks[n++] = (SimTgBlock){p->symbols[i].offset, p->symbols[i].size,
                                             p->symbols[i].name};
    for (uint32_t i = 0; i < p->num_args; i++)
        if (p->args[i].kind == ISA_ARG_THREADGROUP && d->launch->bindings[i].tg_bytes)
            d->tg_blocks[n++] = (SimTgBlock){offsets[i], d->launch->bindings[i].tg_bytes,
                                             p->args[i].name};
    free(offsets);
    d->num_tg_blocks = n;
    if (!n || n >= UINT16_MAX || !d->tg_mem_bytes)
        return;
    d->tg_home = util_calloc(d->tg_mem_bytes, sizeof *d->tg_home);
    for (uint32_t b = 0; b < n; b++) {
        const SimTgBlock *k = &d->tg_blocks[b];
        for (uint64_t x = k->offset; x < (uint64_t)k->offset + k->size && x < d->tg_mem_bytes; x++)
            if (!d->tg_home[x])
                d->tg_home[x] = (uint16_t)(b + 1);
    }
}

int32_t sim_add_program_data(MemDevice *dev, const IsaProgram *p, UtilError *err)
{
    err->message[0] = '\0';
    if (!p->data_bytes)
        return -1;
    int32_t index = mem_device_add(dev, SIM_DATA_BUFFER_NAME, p->data_bytes, MEM_SPACE_CONSTANT, err);
    if (index >= 0)
        memcpy(dev->buffers[index].data, p->data, p->data_bytes);
    return index;
}

static int block_order(const void *a, const void *b)
{
    const SimTgBlock *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The constant data: each block's address into its uniforms, and the blocks by offset. */
static bool bind_data(SimDispatch *d, UtilError *err)
{
    const SimLaunch *L = d->launch;
    const IsaProgram *p = d->program;
    d->data_buffer = -1;
    if (!p->data_bytes)
        return true;
    if (!L->data_bound || !L->device || L->data_buffer >= L->device->count)
        return util_fail(err, "kernel '%s' has %u bytes of constant data (program-scope "
                         "constant arrays), and the launch binds no buffer for them "
                         "(sim_add_program_data)", p->name, p->data_bytes);
    if (L->device->buffers[L->data_buffer].size < p->data_bytes)
        return util_fail(err, "the buffer bound to kernel '%s''s constant data holds %llu "
                         "bytes, fewer than its %u", p->name,
                         (unsigned long long)L->device->buffers[L->data_buffer].size, p->data_bytes);
    d->data_buffer = L->data_buffer;
    const uint64_t addr = mem_buffer_address(L->data_buffer);
    d->data_blocks = util_calloc(p->num_symbols + 1, sizeof *d->data_blocks);
    for (uint32_t i = 0; i < p->num_symbols; i++) {
        const IsaSymbol *s = &p->symbols[i];
        if (s->space != ISA_SYM_CONSTANT)
            continue;
        d->uniforms[s->uniform & 255] = (uint32_t)(addr + s->offset);
        d->uniforms[(s->uniform + 1) & 255] = (uint32_t)((addr + s->offset) >> 32);
        d->data_blocks[d->num_data_blocks++] = (SimTgBlock){s->offset, s->size, s->name};
    }
    qsort(d->data_blocks, d->num_data_blocks, sizeof *d->data_blocks, block_order);
    return true;
}

static bool bind_arguments(SimDispatch *d, UtilError *err)
{
    const SimLaunch *L = d->launch;
    const IsaProgram *p = d->program;
    for (uint32_t i = 0; i < p->num_uniform_inits; i++)
        d->uniforms[p->uniform_inits[i].uniform & 255] = p->uniform_inits[i].value;
    if (p->num_args && !L->bindings)
        return util_fail(err, "kernel '%s' has %u arguments but none is bound", p->name, p->num_args);
    uint32_t *tg_offsets = util_calloc(p->num_args ? p->num_args : 1, sizeof *tg_offsets);
    uint64_t tg_total = sim_threadgroup_layout(p, L->bindings, tg_offsets);
    for (uint32_t i = 0; i < p->num_args; i++) {
        const IsaArg *a = &p->args[i];
        const SimArgBinding *b = &L->bindings[i];
        if (a->kind == ISA_ARG_THREADGROUP) {
            d->uniforms[a->uniform & 255] = tg_offsets[i];
            continue;
        }
        if (!L->device || b->buffer >= L->device->count) {
            free(tg_offsets);
            return util_fail(err, "argument '%s' is bound to no buffer", a->name);
        }
        uint64_t addr = mem_buffer_address(b->buffer);
        d->uniforms[a->uniform & 255] = (uint32_t)addr;
        d->uniforms[(a->uniform + 1) & 255] = (uint32_t)(addr >> 32);
        for (uint32_t k = 0; (a->tensor_rank || a->texture) && k < 3; k++)
            d->uniforms[(a->uniform + 2 + k) & 255] = b->tensor[k];
    }
    free(tg_offsets);
    if (!bind_data(d, err))
        return false;
    uint32_t limit = L->tg_mem_limit ? L->tg_mem_limit : SIM_DEFAULT_TG_MEM_LIMIT;
    if (tg_total > limit)
        return util_fail(err,
                         "kernel '%s' needs %llu bytes of threadgroup memory (%u static + "
                         "argument blocks), more than the GPU's per-threadgroup limit of %u bytes",
                         p->name, (unsigned long long)tg_total, p->tg_mem_bytes, limit);
    d->tg_mem_bytes = (uint32_t)tg_total;
    map_tg_blocks(d);
    return true;
}

static bool size_grid(SimDispatch *d, UtilError *err)
{
    const SimLaunch *L = d->launch;
    uint64_t tg_threads = 1;
    for (int k = 0; k < 3; k++) {
        if (L->threadgroup[k] == 0 || L->grid[k] == 0)
            return util_fail(err, "grid and threadgroup sizes must be at least 1 in every dimension");
        tg_threads *= L->threadgroup[k];
        d->tg_size[k] = L->threadgroup[k];
        if (L->by_threadgroups) {
            d->tg_count[k] = L->grid[k];
            uint64_t threads = (uint64_t)L->grid[k] * L->threadgroup[k];
            if (threads > 0xffffffffu)
                return util_fail(err, "the grid has more than 2^32 threads in dimension %d", k);
            d->grid_size[k] = (uint32_t)threads;
        } else {
            d->grid_size[k] = L->grid[k];
            d->tg_count[k] = (uint32_t)(((uint64_t)L->grid[k] + L->threadgroup[k] - 1) / L->threadgroup[k]);
        }
    }
    /* Counts of threads and threadgroups are 64-bit (timing_setup.c's total_tgs): a grid
     * past that would wrap, and run nothing. */
    uint64_t grid_threads = 1;
    for (int k = 0; k < 3; k++)
        if (__builtin_mul_overflow(grid_threads, (uint64_t)d->grid_size[k], &grid_threads))
            return util_fail(err, "the grid has more than 2^64-1 threads");
    if (tg_threads > SIM_MAX_THREADS_PER_THREADGROUP)
        return util_fail(err, "a threadgroup of %llu threads is more than the %u a threadgroup may have",
                         (unsigned long long)tg_threads, SIM_MAX_THREADS_PER_THREADGROUP);
    return true;
}

/* ---- running ------------------------------------------------------------------------------ */

static void notify_tg(SimDispatch *d, bool begin)
{
    for (uint32_t i = 0; i < d->launch->num_observers; i++) {
        SimObserver *o = d->launch->observers[i];
        void (*fn)(void *, const SimThreadgroupView *) = begin ? o->threadgroup_begin : o->threadgroup_end;
        if (fn)
            fn(o->ctx, &d->tg);
    }
}

static void notify_release(SimDispatch *d)
{
    for (uint32_t i = 0; i < d->launch->num_observers; i++) {
        SimObserver *o = d->launch->observers[i];
        if (o->barrier_release)
            o->barrier_release(o->ctx, &d->tg);
    }
}

void sim_setup_threadgroup(SimDispatch *d, SimThreadgroupView *tg, SimGroup *groups,
                           uint32_t *regs, uint8_t *stack, uint8_t *tg_memory,
                           const uint32_t pos[3], uint64_t linear)
{
    const IsaProgram *p = d->program;
    uint32_t threads = 1;
    for (int k = 0; k < 3; k++) {
        tg->position[k] = pos[k];
        uint64_t start = (uint64_t)pos[k] * d->tg_size[k];
        uint64_t left = d->grid_size[k] - start;
        tg->size[k] = (uint32_t)(left < d->tg_size[k] ? left : d->tg_size[k]);
        tg->dispatch_size[k] = d->tg_size[k];
        threads *= tg->size[k];
    }
    tg->linear = linear;
    tg->threads = threads;
    tg->num_simdgroups = (threads + W - 1) / W;
    tg->tg_memory = tg_memory;
    tg->tg_memory_bytes = d->tg_mem_bytes;
    memset(tg_memory, 0, d->tg_mem_bytes);

    uint32_t n = tg->num_simdgroups;
    size_t reg_words = (size_t)p->num_regs * W;
    size_t stack_bytes = (size_t)p->stack_bytes * W;
    memset(regs, 0, n * reg_words * sizeof *regs);
    if (stack_bytes)
        memset(stack, 0, n * stack_bytes);
    for (uint32_t i = 0; i < n; i++) {
        SimGroup *g = &groups[i];
        g->regs = regs + i * reg_words;
        g->stack = stack + i * stack_bytes;
        g->pc = 0;
        g->index = i;
        g->lanes = i + 1 < n || threads % W == 0 ? W : threads % W;
        g->present_mask = g->lanes == W ? SIM_FULL_MASK : (1u << g->lanes) - 1;
        g->state = SIM_GROUP_RUNNING;
        sim_update_exec(g);
        g->view = (SimGroupView){
            .threadgroup = tg, .simdgroup = i, .lanes = g->lanes, .exec_mask = g->exec_mask,
            .pc = 0, .regs = g->regs, .num_regs = p->num_regs, .stack = g->stack,
            .stack_bytes = p->stack_bytes,
        };
    }
}

static void run_threadgroup(SimDispatch *d, const uint32_t pos[3], uint64_t linear)
{
    SimThreadgroupView *tg = &d->tg;
    sim_setup_threadgroup(d, tg, d->groups, d->reg_storage, d->stack_storage, d->tg_memory,
                          pos, linear);
    uint32_t n = tg->num_simdgroups, threads = tg->threads;
    notify_tg(d, true);
    for (;;) {
        bool any_barrier = false, any_running = false;
        for (uint32_t i = 0; i < n && !d->stopped; i++) {
            SimGroup *g = &d->groups[i];
            if (g->state == SIM_GROUP_RUNNING)
                sim_run_group(d, g);
        }
        if (d->stopped)
            break;
        for (uint32_t i = 0; i < n; i++) {
            any_barrier |= d->groups[i].state == SIM_GROUP_AT_BARRIER;
            any_running |= d->groups[i].state == SIM_GROUP_RUNNING;
        }
        if (any_running)
            continue;
        if (!any_barrier)
            break;
        notify_release(d);
        for (uint32_t i = 0; i < n; i++)
            if (d->groups[i].state == SIM_GROUP_AT_BARRIER)
                d->groups[i].state = SIM_GROUP_RUNNING;
    }
    notify_tg(d, false);
    d->result->threadgroups++;
    d->result->simdgroups += n;
    d->result->threads += threads;
}

/* The observers' inst_issued / inst_retired hooks, for notify_issued / notify_retired. */
static void gather_hooks(SimDispatch *d)
{
    const SimLaunch *L = d->launch;
    memset(d->all_ops, 0xff, sizeof d->all_ops);
    d->issued = util_calloc(2 * (L->num_observers ? L->num_observers : 1), sizeof *d->issued);
    d->retired = d->issued + (L->num_observers ? L->num_observers : 1);
    for (uint32_t i = 0; i < L->num_observers; i++) {
        const SimObserver *o = L->observers[i];
        if (o->inst_issued)
            d->issued[d->num_issued++] = (SimInstHook){o->inst_issued, o->ctx,
                                                       o->issue_ops ? o->issue_ops : d->all_ops};
        if (o->inst_retired)
            d->retired[d->num_retired++] = (SimInstHook){o->inst_retired, o->ctx,
                                                         o->retire_ops ? o->retire_ops : d->all_ops};
    }
    /* With every issue filter fixed, the instructions none wants are marked once. */
    bool fixed = true;
    for (uint32_t i = 0; i < L->num_observers; i++)
        fixed &= !L->observers[i]->inst_issued || L->observers[i]->issue_ops_fixed;
    for (uint32_t k = 0; fixed && k < d->count; k++) {
        const uint16_t op = d->code[k].op;
        bool wanted = false;
        for (uint32_t i = 0, h = 0; i < L->num_observers; i++) {
            const SimObserver *o = L->observers[i];
            if (!o->inst_issued)
                continue;
            wanted |= (d->issued[h++].ops[op / 64] >> (op % 64) & 1) &&
                      (!o->issue_insts || o->issue_insts[k]);
        }
        if (!wanted)
            d->code[k].flags |= SIM_INST_NO_ISSUE_HOOK;
    }
}

uint64_t sim_default_budget(uint64_t simdgroups)
{
    const uint64_t cap = SIM_DEFAULT_INSTRUCTION_BUDGET, base = 100000000u, per = 100000u;
    return simdgroups >= (cap - base) / per ? cap : base + per * simdgroups;
}

bool sim_dispatch(const SimLaunch *launch, SimResult *result, UtilError *err)
{
    memset(result, 0, sizeof *result);
    if (!launch->program || launch->program->count == 0)
        return util_fail(err, "the kernel has no instructions");
    if (launch->program->stack_bytes > SIM_MAX_STACK_BYTES)
        return util_fail(err, "kernel '%s' needs %u bytes of thread memory per thread (its "
                         "private arrays and spills), more than lockstep's limit of %u (%u KiB)",
                         launch->program->name, launch->program->stack_bytes, SIM_MAX_STACK_BYTES,
                         SIM_MAX_STACK_BYTES >> 10);
    SimDispatch d = {
        .launch = launch,
        .program = launch->program,
        .device = launch->device,
        .result = result,
        .max_faults = launch->max_faults ? launch->max_faults : SIM_DEFAULT_MAX_FAULTS,
        .budget = launch->instruction_budget ? launch->instruction_budget : SIM_DEFAULT_INSTRUCTION_BUDGET,
    };
    if (!size_grid(&d, err) || !bind_arguments(&d, err)) {
        free(d.tg_blocks);
        free(d.tg_home);
        free(d.data_blocks);
        return false;
    }
    if (!launch->instruction_budget) {
        const uint64_t tgs = (uint64_t)d.tg_count[0] * d.tg_count[1] * d.tg_count[2];
        const uint32_t per_tg = (d.tg_size[0] * d.tg_size[1] * d.tg_size[2] + W - 1) / W;
        d.budget = sim_default_budget(tgs * per_tg);
    }
    result->budget = d.budget;
    for (int k = 0; k < 3; k++) {
        result->grid_threads[k] = d.grid_size[k];
        result->grid_threadgroups[k] = d.tg_count[k];
    }
    translate(&d);
    gather_hooks(&d);
    if (launch->mode == SIM_MODE_TIMED) {
        bool ok = sim_timed_run(&d, err);
        free(d.code);
        free(d.consts);
        free(d.tg_blocks);
        free(d.tg_home);
        free(d.data_blocks);
        free(d.issued);
        return ok;
    }
    const IsaProgram *p = d.program;
    uint32_t max_groups = (d.tg_size[0] * d.tg_size[1] * d.tg_size[2] + W - 1) / W;
    d.groups = util_calloc(max_groups, sizeof *d.groups);
    d.reg_storage = util_calloc((size_t)max_groups * p->num_regs * W, sizeof *d.reg_storage);
    d.stack_storage = util_calloc((size_t)max_groups * W * (p->stack_bytes ? p->stack_bytes : 1), 1);
    d.tg_memory = util_calloc(d.tg_mem_bytes ? d.tg_mem_bytes : 1, 1);

    uint32_t pos[3];
    uint64_t linear = 0;
    for (pos[2] = 0; pos[2] < d.tg_count[2] && !d.stopped; pos[2]++)
        for (pos[1] = 0; pos[1] < d.tg_count[1] && !d.stopped; pos[1]++)
            for (pos[0] = 0; pos[0] < d.tg_count[0] && !d.stopped; pos[0]++)
                run_threadgroup(&d, pos, linear++);
    if (d.stopped && !result->cancelled) {
        result->budget_exceeded = true;
        SimGroup *g = NULL;
        for (uint32_t i = 0; i < d.tg.num_simdgroups; i++)
            if (d.groups[i].state == SIM_GROUP_RUNNING)
                g = &d.groups[i];
        sim_fault(&d, g, 0, SIM_FAULT_BUDGET, MEM_SPACE_THREAD, false, NULL, 0, 0, 0);
    }
    free(d.code);
    free(d.consts);
    free(d.tg_blocks);
    free(d.tg_home);
    free(d.data_blocks);
    free(d.issued);
    free(d.groups);
    free(d.reg_storage);
    free(d.stack_storage);
    free(d.tg_memory);
    return true;
}

void sim_result_free(SimResult *result)
{
    free(result->faults);
    free(result->inst_faults);
    free(result->late_faults);
    free(result->stats.cores);
    memset(result, 0, sizeof *result);
}

double sim_result_simd_efficiency(const SimResult *r)
{
    return r->lane_slots ? (double)r->lane_instructions / (double)r->lane_slots : 0.0;
}
