/*
 * race_report.c — the race detector's slow path: a conflict found by race.c becomes a finding
 * (both sites, the message naming the kind of race and the variable, and the fix), gathered
 * in a hash table per pair of instructions and reason so that a race hit a million times
 * costs one probe each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "race_internal.h"

static const char *const space_flag[SP_COUNT] = {"mem_device", "mem_threadgroup"};

/* ---- reporting (the slow path) ------------------------------------------------------------ */

static void flags_name(uint8_t flags, char *buf, size_t size)
{
    if (!(flags & (ISA_MEM_DEVICE | ISA_MEM_THREADGROUP | ISA_MEM_TEXTURE))) {
        snprintf(buf, size, "mem_none");
        return;
    }
    snprintf(buf, size, "%s%s%s%s%s", flags & ISA_MEM_DEVICE ? "mem_device" : "",
             (flags & ISA_MEM_DEVICE) && (flags & (ISA_MEM_THREADGROUP | ISA_MEM_TEXTURE)) ? " | " : "",
             flags & ISA_MEM_THREADGROUP ? "mem_threadgroup" : "",
             (flags & ISA_MEM_THREADGROUP) && (flags & ISA_MEM_TEXTURE) ? " | " : "",
             flags & ISA_MEM_TEXTURE ? "mem_texture" : "");
}

static uint32_t acc_pc(const Race *r, const RaceAccess *a)
{
    uint32_t index = a->info >> 12;
    return index < r->s->program->count ? r->s->program->code[index].pc : 0;
}

/* Fills site's thread for a remembered access. */
static void site_of_access(const Race *r, CheckSite *site, const RaceAccess *a)
{
    SimThreadgroupView view;
    const SimThreadgroupView *tg = r->cur_tg;
    if (a->serial < r->tg_first && r->num_tgs) {
        size_t lo = 0, hi = r->num_tgs;
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (r->tgs[mid].first_serial <= a->serial)
                lo = mid;
            else
                hi = mid;
        }
        memset(&view, 0, sizeof view);
        for (int k = 0; k < 3; k++) {
            view.position[k] = r->tgs[lo].position[k];
            view.size[k] = r->tgs[lo].size[k];
            view.dispatch_size[k] = r->dispatch_size[k];
        }
        tg = &view;
    }
    SimGroupView sg = {.threadgroup = tg, .simdgroup = acc_tid(*a) / SIM_SIMD_WIDTH};
    check_site_thread(site, &sg, acc_tid(*a) % SIM_SIMD_WIDTH, acc_pc(r, a));
}

static const CheckAccessKind access_kinds[4] = {CHECK_ACCESS_READ, CHECK_ACCESS_WRITE,
                                                CHECK_ACCESS_ATOMIC, CHECK_ACCESS_WRITE};

static void build_finding(const Race *r, CheckFinding *f, const SimGroupView *sg, const RaceCur *b,
                          const RaceAccess *a, uint64_t addr, RaceReason reason, bool same_value)
{
    const IsaProgram *p = r->s->program;
    MemSpace space = b->sp == SP_TG ? MEM_SPACE_THREADGROUP : MEM_SPACE_DEVICE;
    memset(f, 0, sizeof *f);
    f->kind = CHECK_RACE;
    f->severity = same_value ? CHECK_WARNING : CHECK_ERROR;
    f->cause = (uint32_t)reason; /* its own message and fix: not folded into another reason's */
    site_of_access(r, &f->first, a);
    f->first.access = access_kinds[acc_kind(*a)];
    check_site_address(r->s, &f->first, space, addr);
    check_site_thread(&f->second, sg, b->lane, b->pc);
    f->second.access = access_kinds[b->kind];
    check_site_address(r->s, &f->second, space, addr);

    char name[128];
    check_site_name(&f->second, name, sizeof name);
    const char *order = acc_kind(*a) == ACC_READ ? "write after read"
                        : b->kind == ACC_READ ? "read after write" : "write after write";
    const char *sv = same_value ? ", same value" : "";
    bool mixed = (acc_kind(*a) == ACC_ATOMIC) != (b->kind == ACC_ATOMIC);
    if (mixed)
        snprintf(f->message, sizeof f->message, "atomic and non-atomic access race%s on %s",
                 reason == REASON_CROSS_TG ? " between threadgroups" : "", name);
    else if (reason == REASON_CROSS_TG)
        snprintf(f->message, sizeof f->message, "device memory race between threadgroups (%s%s) on %s",
                 order, sv, name);
    else
        snprintf(f->message, sizeof f->message, "%s memory race (%s%s) on %s",
                 b->sp == SP_TG ? "threadgroup" : "device", order, sv, name);

    const uint32_t a_pc = acc_pc(r, a);
    const CheckLine la_ = check_line(p, a_pc), lb_ = check_line(p, b->pc);
    const char *la = la_.s, *lb = lb_.s;
    const bool one_line = check_same_line(p, a_pc, b->pc);
    const char *want = space_flag[b->sp];
    char fl[64];
    switch (reason) {
    case REASON_SAME_INST:
        snprintf(f->fix, sizeof f->fix,
                 "threads of one instruction at line %s store %s values to the same element: "
                 "give each thread its own element, or use an atomic", lb,
                 same_value ? "the same" : "different");
        break;
    case REASON_CROSS_TG:
        if (mixed)
            snprintf(f->fix, sizeof f->fix,
                     "threadgroups cannot synchronize: use atomics for every access to %s, or "
                     "separate dispatches", name);
        else
            snprintf(f->fix, sizeof f->fix, "threadgroups cannot synchronize: use atomics or separate dispatches");
        break;
    case REASON_SIMD: {
        const uint32_t g = b->tid / SIM_SIMD_WIDTH;
        if (a->serial < r->simd_noncover_serial[g][b->sp]) { /* a barrier, of the wrong flags */
            const uint8_t flags = r->simd_noncover_flags[g][b->sp];
            const CheckLine line = check_line(p, r->simd_noncover_pc[g][b->sp]);
            flags_name(flags, fl, sizeof fl);
            snprintf(f->fix, sizeof f->fix,
                     "the simdgroup_barrier at line %s has mem_flags::%s: it does not order %s "
                     "memory; use simdgroup_barrier(%s) (strict_simd: lanes of a SIMD-group are "
                     "not assumed to run in lockstep)",
                     line.s, fl, b->sp == SP_TG ? "threadgroup" : "device", want);
        } else if (one_line) /* one statement, two lanes: no barrier can go between them */
            snprintf(f->fix, sizeof f->fix,
                     "lanes of one SIMD-group read and write the same element at line %s: give "
                     "each lane its own, or use an atomic (strict_simd: lanes of a SIMD-group are "
                     "not assumed to run in lockstep)", lb);
        else
            snprintf(f->fix, sizeof f->fix,
                     "add simdgroup_barrier(%s) between line %s and line %s (strict_simd: lanes "
                     "of a SIMD-group are not assumed to run in lockstep)", want, la, lb);
        break;
    }
    case REASON_FLAGS: {
        uint8_t flags = r->noncover_flags[b->sp];
        const CheckLine line_ = check_line(p, r->noncover_pc[b->sp]);
        const char *line = line_.s;
        flags_name(flags, fl, sizeof fl);
        if (!(flags & (ISA_MEM_DEVICE | ISA_MEM_THREADGROUP | ISA_MEM_TEXTURE)))
            snprintf(f->fix, sizeof f->fix,
                     "the barrier at line %s has mem_flags::mem_none: it orders execution only; use %s",
                     line, want);
        else
            snprintf(f->fix, sizeof f->fix,
                     "the barrier at line %s has mem_flags::%s: it does not order %s memory; use %s",
                     line, fl, b->sp == SP_TG ? "threadgroup" : "device", want);
        break;
    }
    default:
        if (one_line) /* one statement, two threads (a loop's iterations, say) */
            snprintf(f->fix, sizeof f->fix,
                     "no threadgroup_barrier(%s) between the two accesses at line %s%s", want, lb,
                     mixed ? ", or use atomics for every access" : "");
        else
            snprintf(f->fix, sizeof f->fix, "no threadgroup_barrier(%s) between line %s and line %s%s",
                     want, la, lb, mixed ? ", or use atomics for every access" : "");
        break;
    }
    if (same_value) {
        size_t n = strlen(f->fix);
        snprintf(f->fix + n, sizeof f->fix - n,
                 " (the threads stored the same value; reported because same_value_races is on)");
    }
}

static RaceReason reason_of(const Race *r, const RaceAccess *a, const RaceCur *b)
{
    if (a->serial == b->serial)
        return REASON_SAME_INST;
    if (a->serial < r->tg_first)
        return REASON_CROSS_TG;
    if (acc_tid(*a) / SIM_SIMD_WIDTH == b->tid / SIM_SIMD_WIDTH)
        return REASON_SIMD;
    if (a->serial < r->noncover_serial[b->sp])
        return REASON_FLAGS;
    return REASON_NO_BARRIER;
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static void grow_table(Race *r)
{
    free(r->table);
    r->table_size = r->table_size ? r->table_size * 2 : 64;
    r->table = util_calloc(r->table_size, sizeof *r->table);
    for (size_t i = 0; i < r->num_found; i++) {
        size_t h = mix64(r->found[i].key ^ r->found[i].klass) & (r->table_size - 1);
        while (r->table[h])
            h = (h + 1) & (r->table_size - 1);
        r->table[h] = (uint32_t)(i + 1);
    }
}

void race_report(Race *r, const SimGroupView *sg, const RaceCur *b, const RaceAccess *a,
                 uint64_t addr, bool same_value)
{
    RaceReason reason = reason_of(r, a, b);
    uint64_t key = (uint64_t)acc_pc(r, a) << 32 | b->pc;
    const uint32_t kind = acc_kind(*a) == ACC_RMW ? ACC_WRITE : acc_kind(*a);
    uint32_t klass = (uint32_t)reason | kind << 4 | (uint32_t)b->kind << 6 |
                     (uint32_t)b->sp << 8 | (uint32_t)same_value << 9;
    if ((r->num_found + 1) * 2 > r->table_size)
        grow_table(r);
    size_t h = mix64(key ^ klass) & (r->table_size - 1);
    while (r->table[h]) {
        RacePending *p = &r->found[r->table[h] - 1];
        if (p->key == key && p->klass == klass) {
            p->f.count++;
            return;
        }
        h = (h + 1) & (r->table_size - 1);
    }
    util_reserve((void **)&r->found, &r->found_cap, r->num_found + 1, sizeof *r->found);
    RacePending *p = &r->found[r->num_found++];
    p->key = key;
    p->klass = klass;
    build_finding(r, &p->f, sg, b, a, addr, reason, same_value);
    p->f.count = 1;
    r->table[h] = (uint32_t)r->num_found;
}

