/*
 * memory.c — the memory checks beyond the simulator's own bounds faults: reads of memory
 * nothing wrote (threadgroup memory, device buffers marked `init: none`, private arrays
 * kept in thread memory), registers of an asynchronous device load used before its
 * `wait`, and out-of-bounds reads whose value is never used (session.c folds those faults
 * in as warnings rather than errors).
 *
 * Uninitialized reads use a shadow "written" byte per byte of threadgroup memory (reset
 * per threadgroup), of each `init: none` buffer (kept for the dispatch, as device memory
 * is), and of each thread's stack bytes that hold a named local (a private array the
 * compiler keeps in memory; reset per threadgroup, one block per lane of every SIMD-group;
 * spill slots and temporaries are not tracked: their bytes start out written). Locals of
 * disjoint scopes may share stack bytes: where a local's scope begins (IsaSymbol.live_begin,
 * an instruction no branch lands on) its bytes are unwritten again for the lanes that reach
 * it, as they are each time a loop's body declares it anew. Register
 * tracking works on register halves (so h16 loads are exact) with a lane mask per half:
 * lanes whose half holds a device load not yet waited for, and lanes whose half holds the
 * zeros of a faulting load nobody has read yet. Which operands an instruction
 * reads or writes comes from its operand letters in isa_ops (the first letter of a
 * D/H/P/x operand is the destination; `m` is written by loads and read by stores). Only
 * loads come here, and every instruction of a SIMD-group while something is pending (see
 * check_retire_all), which in compiled code (it waits right after its loads) is a few
 * instructions at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_internal.h"
#include "lane_span.h"

#define NO_LOAD UINT32_MAX

typedef struct GroupRegs {
    uint32_t *wait_mask;     /* per half: lanes holding a device load not yet waited for */
    uint8_t *wait_slot;
    uint32_t *wait_index;    /* the ld_dev instruction */
    uint32_t *oob_mask;      /* per half: lanes holding an unread value of a faulting load */
    uint32_t *oob_index;     /* per half and lane: the faulting load */
    uint32_t wait_pending[2];/* halves with a nonzero wait_mask, per slot */
    uint64_t wait_bits[2][4];/* the same halves as bits (a `wait` visits only those) */
    uint32_t oob_pending;    /* halves with a nonzero oob_mask */
    uint32_t load_index;     /* the load whose in-bounds lanes load_ok holds (NO_LOAD) */
    uint32_t load_ok;
} GroupRegs;

typedef struct MemoryChecker {
    CheckChecker base;
    CheckSession *s;
    bool track_regs;         /* read-before-wait and unused out-of-bounds reads */
    bool uninit;
    CheckRoles roles;
    uint32_t num_halves;
    GroupRegs *groups;
    uint32_t cap_groups, num_groups;
    uint32_t *oob_used, *oob_unused; /* per instruction index: faulting lanes' values */
    uint8_t *tg_written;
    uint32_t tg_bytes, tg_cap;
    uint32_t tg_unwritten;   /* bytes of tg_written still 0: at 0 no read can find a hole */
    uint8_t **dev_written;   /* per buffer; NULL unless it is `init: none` */
    uint8_t *stack_template; /* per stack byte: 0 in a named local, 1 elsewhere; NULL: none */
    uint8_t *stack_written;  /* stack_bytes per lane, SIMD-group after SIMD-group */
    uint32_t stack_bytes;
    size_t stack_cap;
    bool any_dev_uninit;
    const SimThreadgroupView *tg;
    uint32_t *begin_first;   /* per instruction index i: begin_syms[begin_first[i] ..
                              * begin_first[i + 1]) are the thread symbols whose scope begins */
    uint32_t *begin_syms;
    uint8_t *begin_wanted;   /* issue_insts: the instructions that begin a scope */
} MemoryChecker;

static inline uint32_t operand_halves(const MemoryChecker *c, const IsaInst *in, int k,
                                      uint32_t *first)
{
    return check_operand_halves(in, k, c->num_halves, first);
}

static uint32_t index_of(const CheckSession *s, const IsaInst *inst)
{
    return (uint32_t)(inst - s->program->code);
}

static void on_tg_begin(void *ctx, const SimThreadgroupView *tg)
{
    MemoryChecker *c = ctx;
    c->tg = tg;
    if (c->uninit) {
        if (tg->tg_memory_bytes > c->tg_cap) {
            c->tg_written = util_realloc(c->tg_written, tg->tg_memory_bytes);
            c->tg_cap = tg->tg_memory_bytes;
        }
        c->tg_bytes = tg->tg_memory_bytes;
        c->tg_unwritten = c->tg_bytes;
        if (c->tg_bytes)
            memset(c->tg_written, 0, c->tg_bytes);
    }
    if (c->stack_template) {
        size_t lanes = (size_t)tg->num_simdgroups * SIM_SIMD_WIDTH;
        if (lanes * c->stack_bytes > c->stack_cap) {
            c->stack_cap = lanes * c->stack_bytes;
            c->stack_written = util_realloc(c->stack_written, c->stack_cap);
        }
        for (size_t l = 0; l < lanes; l++)
            memcpy(c->stack_written + l * c->stack_bytes, c->stack_template, c->stack_bytes);
    }
    if (!c->track_regs)
        return;
    uint32_t nh = c->num_halves;
    if (tg->num_simdgroups > c->cap_groups) {
        c->groups = util_realloc(c->groups, tg->num_simdgroups * sizeof *c->groups);
        for (uint32_t i = c->cap_groups; i < tg->num_simdgroups; i++) {
            GroupRegs *g = &c->groups[i];
            g->wait_mask = util_calloc(nh, sizeof *g->wait_mask);
            g->wait_slot = util_calloc(nh, 1);
            g->wait_index = util_calloc(nh, sizeof *g->wait_index);
            g->oob_mask = util_calloc(nh, sizeof *g->oob_mask);
            g->oob_index = util_calloc((size_t)nh * 32, sizeof *g->oob_index);
        }
        c->cap_groups = tg->num_simdgroups;
    }
    c->num_groups = tg->num_simdgroups;
    for (uint32_t i = 0; i < c->num_groups; i++) {
        GroupRegs *g = &c->groups[i];
        memset(g->wait_mask, 0, nh * sizeof *g->wait_mask);
        memset(g->oob_mask, 0, nh * sizeof *g->oob_mask);
        g->wait_pending[0] = g->wait_pending[1] = g->oob_pending = 0;
        memset(g->wait_bits, 0, sizeof g->wait_bits);
        g->load_index = NO_LOAD;
    }
}

/* Values of faulting loads still unread when the threadgroup ends were never used. */
static void on_tg_end(void *ctx, const SimThreadgroupView *tg)
{
    (void)tg;
    MemoryChecker *c = ctx;
    if (!c->track_regs)
        return;
    for (uint32_t i = 0; i < c->num_groups; i++) {
        GroupRegs *g = &c->groups[i];
        for (uint32_t h = 0; g->oob_pending && h < c->num_halves; h++) {
            for (uint32_t m = g->oob_mask[h]; m; m &= m - 1)
                c->oob_unused[g->oob_index[h * 32 + (uint32_t)__builtin_ctz(m)]]++;
            if (g->oob_mask[h])
                g->oob_pending--;
            g->oob_mask[h] = 0;
        }
        check_retire_all(c->s, &c->base, i,
                         g->wait_pending[0] | g->wait_pending[1] | g->oob_pending);
    }
}

static void reg_name(const IsaOperand *o, uint32_t half, char *buf, size_t size)
{
    if (o->kind == ISA_OPD_R16)
        snprintf(buf, size, "r%u%c", half / 2, half & 1 ? 'h' : 'l');
    else
        snprintf(buf, size, "r%u", half / 2);
}

static void report_before_wait(MemoryChecker *c, const SimGroupView *sg, const IsaInst *inst,
                               const IsaOperand *o, uint32_t half, uint32_t lanes, bool write)
{
    GroupRegs *g = &c->groups[sg->simdgroup];
    const IsaProgram *p = c->s->program;
    uint32_t lane = (uint32_t)__builtin_ctz(lanes);
    uint32_t load_pc = p->code[g->wait_index[half]].pc;
    CheckFinding f = {.kind = CHECK_READ_BEFORE_WAIT, .severity = CHECK_ERROR};
    check_site_thread(&f.first, sg, lane, load_pc);
    f.first.access = CHECK_ACCESS_READ;
    f.first.space = MEM_SPACE_DEVICE;
    f.first.index = CHECK_NO_INDEX;
    check_site_thread(&f.second, sg, lane, inst->pc);
    f.second.access = write ? CHECK_ACCESS_WRITE : CHECK_ACCESS_READ;
    f.second.index = CHECK_NO_INDEX;
    char name[16];
    reg_name(o, half, name, sizeof name);
    CheckLine load_line = check_line(p, load_pc), line = check_line(p, inst->pc);
    if (write)
        snprintf(f.message, sizeof f.message,
                 "register %s is written before `wait %u`: the device load at line %s may "
                 "complete after this write and overwrite it",
                 name, g->wait_slot[half], load_line.s);
    else
        snprintf(f.message, sizeof f.message,
                 "register %s is read before `wait %u`: the device load at line %s may not "
                 "have completed",
                 name, g->wait_slot[half], load_line.s);
    snprintf(f.fix, sizeof f.fix, "put `wait %u` after the load at line %s and before line %s",
             g->wait_slot[half], load_line.s, line.s);
    check_report(c->s, &f);
}

static void clear_wait(GroupRegs *g, uint32_t h, uint32_t lanes)
{
    if (!g->wait_mask[h])
        return;
    g->wait_mask[h] &= ~lanes;
    if (!g->wait_mask[h]) {
        g->wait_pending[g->wait_slot[h]]--;
        g->wait_bits[g->wait_slot[h]][h >> 6] &= ~(1ull << (h & 63));
    }
}

/* Checks one register operand against pending loads. */
static void check_operand(MemoryChecker *c, const SimGroupView *sg, const IsaInst *inst, int k,
                          bool write, bool copy, uint32_t lanes)
{
    GroupRegs *g = &c->groups[sg->simdgroup];
    uint32_t first, n = operand_halves(c, inst, k, &first);
    bool reported = false;
    for (uint32_t h = first; h < first + n; h++) {
        uint32_t w = g->wait_mask[h] & lanes;
        if (w && !reported) {
            /* one finding per operand, not per half */
            reported = true;
            report_before_wait(c, sg, inst, &inst->opd[k], h, w, write);
        }
        clear_wait(g, h, w); /* one finding per load, not one per later use */
        uint32_t m = copy ? 0 : g->oob_mask[h] & lanes;
        if (m) {
            uint32_t *count = write ? c->oob_unused : c->oob_used;
            for (uint32_t r = m; r; r &= r - 1)
                count[g->oob_index[h * 32 + (uint32_t)__builtin_ctz(r)]]++;
            g->oob_mask[h] &= ~m;
            if (!g->oob_mask[h])
                g->oob_pending--;
        }
    }
}

/* A plain register move: it carries an unread value along rather than using it (compiled
 * code copies a loaded value into the variable's register before the `if` that uses it). */
static bool is_copy(const IsaInst *inst)
{
    uint8_t kind = inst->opd[1].kind;
    return (inst->op == ISA_OP_MOV && kind == ISA_OPD_R32) ||
           (inst->op == ISA_OP_MOV16 && kind == ISA_OPD_R16) ||
           (inst->op == ISA_OP_MOV64 && kind == ISA_OPD_R64);
}

/* The destination of a copy: first the values it overwrites, then the unread ones it gets. */
static void copy_unread(MemoryChecker *c, GroupRegs *g, const IsaInst *inst, uint32_t exec)
{
    uint32_t src, dst, n = operand_halves(c, inst, 1, &src), nd = operand_halves(c, inst, 0, &dst);
    n = UTIL_MIN(n, nd);
    uint32_t masks[4] = {0}, index[4][32];
    for (uint32_t i = 0; i < n && i < 4; i++) {
        masks[i] = g->oob_mask[src + i] & exec;
        for (uint32_t m = masks[i]; m; m &= m - 1) {
            uint32_t l = (uint32_t)__builtin_ctz(m);
            index[i][l] = g->oob_index[(src + i) * 32 + l];
        }
    }
    for (uint32_t i = 0; i < nd; i++) {
        uint32_t h = dst + i, m = g->oob_mask[h] & exec;
        for (uint32_t r = m; r; r &= r - 1)
            c->oob_unused[g->oob_index[h * 32 + (uint32_t)__builtin_ctz(r)]]++;
        g->oob_mask[h] &= ~m;
        if (m && !g->oob_mask[h])
            g->oob_pending--;
    }
    for (uint32_t i = 0; i < n && i < 4; i++) {
        uint32_t h = dst + i;
        if (!masks[i])
            continue;
        if (!g->oob_mask[h])
            g->oob_pending++;
        g->oob_mask[h] |= masks[i];
        for (uint32_t m = masks[i]; m; m &= m - 1) {
            uint32_t l = (uint32_t)__builtin_ctz(m);
            g->oob_index[h * 32 + l] = index[i][l];
        }
    }
}

/* Everything is done at retirement: operands are bookkeeping only (no values). The session
 * calls this for loads, and for every instruction while something is pending. */
static void retired(MemoryChecker *c, const SimGroupView *sg, const IsaInst *inst, uint32_t exec)
{
    GroupRegs *g = &c->groups[sg->simdgroup];
    uint16_t op = inst->op;
    if (g->wait_pending[0] | g->wait_pending[1] | g->oob_pending) {
        /* Shuffles and matrix ops read other lanes' registers: every present lane is a reader. */
        uint32_t readers = isa_ops[op].op_class == ISA_CLASS_SIMD || isa_is_mma(op)
                               ? (sg->lanes >= 32 ? 0xffffffffu : (1u << sg->lanes) - 1)
                               : exec;
        bool copy = g->oob_pending && is_copy(inst);
        for (uint32_t i = 0; i < c->roles.num_uses[op]; i++) {
            bool write = i >= c->roles.num_reads[op];
            check_operand(c, sg, inst, c->roles.uses[op][i], write, copy, write ? exec : readers);
        }
        if (copy)
            copy_unread(c, g, inst, exec);
    }
    if (op == ISA_OP_WAIT) {
        uint32_t slot = (uint32_t)inst->opd[0].imm & 1;
        for (uint32_t w = 0; g->wait_pending[slot] && w < 4; w++)
            for (uint64_t bits = g->wait_bits[slot][w]; bits; bits &= bits - 1)
                clear_wait(g, w * 64 + (uint32_t)__builtin_ctzll(bits), 0xffffffffu);
        return;
    }
    if (!check_is_load(op) || !exec)
        return;
    uint32_t index = index_of(c->s, inst);
    if (op != ISA_OP_LD_DEV && g->load_index == index && !(exec & ~g->load_ok)) {
        g->load_index = NO_LOAD; /* the common case: every lane got its access */
        return;
    }
    uint32_t first, n = operand_halves(c, inst, 0, &first);
    if (op == ISA_OP_LD_DEV) {
        for (uint32_t h = first; h < first + n; h++) {
            clear_wait(g, h, 0xffffffffu);
            g->wait_mask[h] = exec;
            g->wait_slot[h] = (uint8_t)(inst->opd[3].imm & 1);
            g->wait_index[h] = index;
            g->wait_pending[g->wait_slot[h]]++;
            g->wait_bits[g->wait_slot[h]][h >> 6] |= 1ull << (h & 63);
        }
    }
    /* Lanes that got no access faulted: their registers hold zeros nobody asked for. */
    uint32_t faulted = exec & ~(g->load_index == index ? g->load_ok : 0);
    g->load_index = NO_LOAD;
    if (!faulted)
        return;
    for (uint32_t h = first; h < first + n; h++) {
        if (!g->oob_mask[h])
            g->oob_pending++;
        g->oob_mask[h] |= faulted;
        for (uint32_t m = faulted; m; m &= m - 1)
            g->oob_index[h * 32 + (uint32_t)__builtin_ctz(m)] = index;
    }
}

static void on_retired(CheckChecker *base, const SimGroupView *sg, const IsaInst *inst,
                       uint32_t before)
{
    MemoryChecker *c = (MemoryChecker *)base;
    GroupRegs *g = &c->groups[sg->simdgroup];
    /* The common case, settled before anything else: a load other than ld_dev that every
     * active lane made, with nothing pending (so the SIMD-group's retire_all is off already,
     * as the last call here left it). */
    if (!(g->wait_pending[0] | g->wait_pending[1] | g->oob_pending) && inst->op != ISA_OP_LD_DEV &&
        g->load_index == index_of(c->s, inst) && !(before & ~g->load_ok)) {
        g->load_index = NO_LOAD;
        return;
    }
    retired(c, sg, inst, before);
    check_retire_all(c->s, &c->base, sg->simdgroup,
                     g->wait_pending[0] | g->wait_pending[1] | g->oob_pending);
}

/* A scope begins: its locals' stack bytes are unwritten in the lanes that reach it. */
static void on_issued(void *ctx, const SimGroupView *sg, const IsaInst *inst)
{
    MemoryChecker *c = ctx;
    const uint32_t k = index_of(c->s, inst);
    const uint32_t lanes = sg->exec_mask & (sg->lanes >= 32 ? 0xffffffffu : (1u << sg->lanes) - 1);
    if (!c->stack_written || !c->begin_first || k >= c->s->program->count)
        return;
    for (uint32_t b = c->begin_first[k]; b < c->begin_first[k + 1]; b++) {
        const IsaSymbol *sym = &c->s->program->symbols[c->begin_syms[b]];
        for (uint32_t m = lanes; m; m &= m - 1)
            memset(c->stack_written + ((size_t)sg->simdgroup * SIM_SIMD_WIDTH +
                                       (uint32_t)__builtin_ctz(m)) * c->stack_bytes + sym->offset,
                   0, sym->size);
    }
}

static void report_uninit(MemoryChecker *c, const SimGroupView *sg, const SimMemAccess *acc,
                          uint32_t lane, uint64_t addr, uint32_t lanes)
{
    CheckFinding f = {.kind = CHECK_UNINITIALIZED, .severity = CHECK_ERROR, .count = 1};
    check_site_thread(&f.first, sg, lane, acc->inst->pc);
    const bool atomic = acc->kind == SIM_ACCESS_ATOMIC;
    f.first.access = atomic ? CHECK_ACCESS_ATOMIC : CHECK_ACCESS_READ;
    check_site_address(c->s, &f.first, acc->space, addr);
    char name[128];
    check_site_name(&f.first, name, sizeof name);
    const char *space = mem_space_names[f.first.space], *what = atomic ? "atomic on" : "read of";
    if (f.first.symbol[0])
        snprintf(f.message, sizeof f.message, "%s uninitialized %s memory %s%s", what, space,
                 name, lanes > 1 ? " (and by other lanes)" : "");
    else
        snprintf(f.message, sizeof f.message, "%s uninitialized %s%s", what, name,
                 lanes > 1 ? " (and by other lanes)" : "");
    if (atomic && acc->space == MEM_SPACE_THREADGROUP) {
        const uint32_t *t = sg->threadgroup->position;
        snprintf(f.fix, sizeof f.fix,
                 "nothing wrote %s before this atomic in threadgroup (%u,%u,%u), and it reads the "
                 "old value: set it first (one thread's atomic_store_explicit, then a "
                 "threadgroup_barrier)", name, t[0], t[1], t[2]);
    } else if (atomic) {
        snprintf(f.fix, sizeof f.fix, "nothing wrote %s before this atomic, which reads the old "
                 "value (the buffer is marked `init: none`)", name);
    } else if (acc->space == MEM_SPACE_THREADGROUP) {
        const uint32_t *t = sg->threadgroup->position;
        snprintf(f.fix, sizeof f.fix, "nothing wrote %s before this read in threadgroup (%u,%u,%u)",
                 name, t[0], t[1], t[2]);
    } else if (acc->space == MEM_SPACE_THREAD) {
        snprintf(f.fix, sizeof f.fix, "the thread reads %s before it writes it: initialize the "
                 "variable, or write every element it reads", name);
    } else {
        snprintf(f.fix, sizeof f.fix,
                 "nothing wrote %s before this read (the buffer is marked `init: none`)", name);
    }
    check_report(c->s, &f);
}

/* The shadow bytes of an access by lane l, or NULL when its memory is not tracked. A stack
 * offset is the lane's own: each lane of each SIMD-group has a block of stack_bytes. */
static uint8_t *shadow_of(MemoryChecker *c, const SimGroupView *sg, uint32_t l, MemSpace space,
                          uint64_t addr, uint32_t bytes)
{
    if (space == MEM_SPACE_THREADGROUP)
        return addr + bytes <= c->tg_bytes ? c->tg_written + addr : NULL;
    if (space == MEM_SPACE_THREAD)
        return c->stack_template && addr + bytes <= c->stack_bytes && addr + bytes > addr
                   ? c->stack_written +
                         ((size_t)sg->simdgroup * SIM_SIMD_WIDTH + l) * c->stack_bytes + addr
                   : NULL;
    uint64_t buffer = (addr >> MEM_BUFFER_SHIFT) - 1, offset = addr & MEM_MAX_BUFFER_BYTES;
    if (buffer >= c->s->num_buffers || !c->dev_written[buffer] ||
        offset + bytes > c->s->device->buffers[buffer].size)
        return NULL;
    return c->dev_written[buffer] + offset;
}

/* The first of n shadow bytes still 0 (never written), or n. Inline, and one compare for
 * a whole word: this runs for every lane of every checked read. */
static inline uint32_t first_unwritten(const uint8_t *shadow, uint32_t n)
{
    if (n == 4) {
        uint32_t v;
        memcpy(&v, shadow, 4);
        if (((v - 0x01010101u) & ~v & 0x80808080u) == 0)
            return 4; /* no zero byte */
    }
    for (uint32_t i = 0; i < n; i++)
        if (!shadow[i])
            return i;
    return n;
}

/* A written word's shadow bytes. */
static const uint8_t written[4] = {1, 1, 1, 1};

/* Whether none of n shadow bytes is 0 (never written), eight at a time. */
static bool all_written(const uint8_t *shadow, uint64_t n)
{
    uint64_t holes = 0, k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t v;
        memcpy(&v, shadow + k, 8);
        holes |= (v - 0x0101010101010101u) & ~v & 0x8080808080808080u;
    }
    for (; k < n; k++)
        holes |= shadow[k] == 0;
    return !holes;
}

static void on_access(void *ctx, const SimGroupView *sg, const SimMemAccess *acc)
{
    MemoryChecker *c = ctx;
    if (c->track_regs && acc->kind == SIM_ACCESS_READ) {
        GroupRegs *g = &c->groups[sg->simdgroup];
        uint32_t index = index_of(c->s, acc->inst);
        if (g->load_index != index) {
            g->load_index = index;
            g->load_ok = 0;
        }
        g->load_ok |= acc->lane_mask;
    }
    if (!c->uninit)
        return;
    if (acc->space == MEM_SPACE_THREAD ? !c->stack_template
                                       : acc->space != MEM_SPACE_THREADGROUP && !c->any_dev_uninit)
        return;
    if (acc->space == MEM_SPACE_THREADGROUP && !c->tg_unwritten)
        return; /* every byte has been written: a read finds no hole (a tile read after it
                 * is filled), and a write marks bytes marked already (a histogram's atomics
                 * on bins it cleared) */
    uint32_t bad = 0, bad_lane = 0;
    uint64_t bad_addr = 0;
    if (acc->space == MEM_SPACE_THREADGROUP && acc->kind == SIM_ACCESS_READ && acc->bytes == 4) {
        /* The common read: one word per lane. Every lane is looked at without a branch (an
         * inactive or out-of-range one reads a written word instead), and only the lanes that
         * found a hole go the slow way below. */
        /* Most reads touch a narrow span (a tile row, a broadcast word): when the bounds of
         * the active lanes, [lo, hi + 4) (lane_span.h), are close, one scan settles all. */
        const CheckSpan span = check_lane_span(acc->addr, acc->lane_mask, ~(uint64_t)0);
        const uint64_t lo = span.lo, hi = span.hi;
        if (lo <= hi && hi - lo <= 256 && hi + 4 <= c->tg_bytes && hi + 4 > hi &&
            all_written(c->tg_written + lo, hi + 4 - lo))
            return;
        uint32_t holes = 0;
        for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l++) {
            uint64_t a = acc->addr[l];
            bool look = (acc->lane_mask >> l & 1) && a + 4 <= c->tg_bytes && a + 4 > a;
            uint32_t v;
            memcpy(&v, look ? c->tg_written + a : written, 4);
            holes |= (uint32_t)(((v - 0x01010101u) & ~v & 0x80808080u) != 0) << l;
        }
        if (!holes)
            return;
    }
    /* every atomic but an exchange (atomic_store) reads the old value */
    const bool reads = acc->kind == SIM_ACCESS_READ ||
                       (acc->kind == SIM_ACCESS_ATOMIC &&
                        !((acc->inst->op == ISA_OP_ATOM_TG || acc->inst->op == ISA_OP_ATOM_DEV) &&
                          acc->inst->cond == ISA_ATOM_XCHG));
    if (acc->space == MEM_SPACE_THREADGROUP && !reads && acc->bytes == 4 && acc->lane_mask) {
        /* The common write: one word per lane, every lane inside (see the loop below). */
        const CheckSpan span = check_lane_span(acc->addr, acc->lane_mask, ~(uint64_t)0);
        if (span.hi + 4 > span.hi && span.hi + 4 <= c->tg_bytes) {
            for (uint32_t m = acc->lane_mask; m; m &= m - 1) {
                uint8_t *w = c->tg_written + acc->addr[__builtin_ctz(m)];
                c->tg_unwritten -= 4 - (uint32_t)(w[0] + w[1] + w[2] + w[3]); /* 0/1 each */
                memcpy(w, written, 4);
            }
            return;
        }
    }
    for (uint32_t m = acc->lane_mask; m; m &= m - 1) {
        uint32_t l = (uint32_t)__builtin_ctz(m);
        uint8_t *shadow = shadow_of(c, sg, l, acc->space, acc->addr[l], acc->bytes);
        if (!shadow)
            continue;
        if (reads) {
            uint32_t hole = first_unwritten(shadow, acc->bytes);
            if (hole < acc->bytes && !bad++) {
                bad_lane = l;
                bad_addr = acc->addr[l] + hole;
            }
        }
        if (acc->kind != SIM_ACCESS_READ) { /* a store, or an atomic: the lanes after see it */
            if (acc->space == MEM_SPACE_THREADGROUP)
                for (uint32_t k = 0; k < acc->bytes; k++)
                    c->tg_unwritten -= shadow[k] == 0;
            memset(shadow, 1, acc->bytes);
        }
    }
    if (bad)
        report_uninit(c, sg, acc, bad_lane, bad_addr, bad);
}


static void destroy(CheckChecker *base);

bool check_memory_read_unused(const CheckSession *s, uint32_t pc)
{
    for (uint32_t i = 0; i < s->num_checkers; i++) {
        if (s->checkers[i]->destroy != destroy)
            continue;
        const MemoryChecker *c = (const MemoryChecker *)s->checkers[i];
        int64_t index = isa_program_index_of_pc(s->program, pc);
        return c->track_regs && index >= 0 && !c->oob_used[index] && c->oob_unused[index];
    }
    return false;
}

static void destroy(CheckChecker *base)
{
    MemoryChecker *c = (MemoryChecker *)base;
    for (uint32_t i = 0; i < c->cap_groups; i++) {
        GroupRegs *g = &c->groups[i];
        free(g->wait_mask);
        free(g->wait_slot);
        free(g->wait_index);
        free(g->oob_mask);
        free(g->oob_index);
    }
    free(c->groups);
    free(c->oob_used);
    free(c->tg_written);
    free(c->stack_template);
    free(c->stack_written);
    free(c->begin_first);
    free(c->begin_syms);
    free(c->begin_wanted);
    for (uint32_t i = 0; c->dev_written && i < c->s->num_buffers; i++)
        free(c->dev_written[i]);
    free(c->dev_written);
    free(c);
}

/* A named local in thread memory with a scope (tracked: within the stack). */
static bool scoped_local(const IsaProgram *p, const IsaSymbol *sym)
{
    return sym->space == ISA_SYM_THREAD && sym->live_end && sym->live_begin < p->count &&
           (uint64_t)sym->offset + sym->size <= p->stack_bytes;
}

CheckChecker *check_memory_new(CheckSession *s)
{
    if (!s->opts.memory && !s->opts.uninit)
        return NULL;
    MemoryChecker *c = util_calloc(1, sizeof *c);
    c->s = s;
    c->track_regs = s->opts.memory;
    c->uninit = s->opts.uninit;
    check_roles_build(&c->roles);
    c->num_halves = (s->program->num_regs ? s->program->num_regs : 1) * 2;
    size_t n = s->program->count ? s->program->count : 1;
    c->oob_used = util_calloc(2 * n, sizeof *c->oob_used);
    c->oob_unused = c->oob_used + n;
    c->dev_written = util_calloc(s->num_buffers ? s->num_buffers : 1, sizeof *c->dev_written);
    for (uint32_t i = 0; c->uninit && i < s->num_buffers; i++)
        if (s->buffers[i].uninitialized) {
            c->dev_written[i] = util_calloc(s->device->buffers[i].size ? s->device->buffers[i].size : 1, 1);
            c->any_dev_uninit = true;
        }
    const IsaProgram *p = s->program;
    for (uint32_t i = 0; c->uninit && i < p->num_symbols; i++) {
        const IsaSymbol *sym = &p->symbols[i];
        if (sym->space != ISA_SYM_THREAD || (uint64_t)sym->offset + sym->size > p->stack_bytes)
            continue;
        if (!c->stack_template) {
            c->stack_bytes = p->stack_bytes;
            c->stack_template = util_calloc(p->stack_bytes, 1);
            memset(c->stack_template, 1, p->stack_bytes);
        }
        memset(c->stack_template + sym->offset, 0, sym->size);
    }
    /* the scopes that begin at an instruction, for on_issued: counted per instruction,
     * the counts made starts, then filled */
    uint32_t num_begins = 0;
    for (uint32_t i = 0; c->stack_template && i < p->num_symbols; i++)
        num_begins += scoped_local(p, &p->symbols[i]);
    if (num_begins) {
        c->begin_first = util_calloc(p->count + 1, sizeof *c->begin_first);
        c->begin_syms = util_calloc(num_begins, sizeof *c->begin_syms);
        c->begin_wanted = util_calloc(p->count, 1);
        for (uint32_t i = 0; i < p->num_symbols; i++)
            if (scoped_local(p, &p->symbols[i])) {
                const uint32_t k = p->symbols[i].live_begin;
                c->begin_first[k + 1]++;
                c->begin_wanted[k] = 1;
                check_op_set(c->base.issue_ops, p->code[k].op);
            }
        for (uint32_t k = 0; k < p->count; k++)
            c->begin_first[k + 1] += c->begin_first[k];
        uint32_t *fill = util_calloc(p->count, sizeof *fill);
        for (uint32_t i = 0; i < p->num_symbols; i++)
            if (scoped_local(p, &p->symbols[i])) {
                const uint32_t k = p->symbols[i].live_begin;
                c->begin_syms[c->begin_first[k] + fill[k]++] = i;
            }
        free(fill);
        c->base.issue_insts = c->begin_wanted;
    }
    c->base.observer = (SimObserver){
        .ctx = c,
        .threadgroup_begin = on_tg_begin,
        .threadgroup_end = on_tg_end,
        .mem_access = on_access,
        .inst_issued = c->begin_first ? on_issued : NULL,
    };
    if (c->track_regs) {
        c->base.retired = on_retired;
        for (uint32_t op = 0; op < ISA_OP_COUNT; op++)
            if (check_is_load(op))
                check_op_set(c->base.retire_ops, op);
    }
    c->base.destroy = destroy;
    return &c->base;
}
