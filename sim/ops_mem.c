/*
 * ops_mem.c — loads, stores and atomics on every address space, each access bounds-checked.
 *
 * An access outside its buffer or space is recorded as a fault naming the buffer, offset,
 * valid range, thread and pc; the faulting lane's load returns zeros and its store is
 * dropped, so the kernel runs on and the simulator never touches memory it does not own.
 * Device loads complete at once (timed mode times their waits; see timing.c).
 * Atomics are serialized in lane order, which is one legal order and keeps runs
 * deterministic.
 */
#include "../util/fp.h"
#include "sim_internal.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

static void notify_access(SimDispatch *d, SimGroup *g, const SimMemAccess *acc)
{
    g->view.exec_mask = g->exec_mask;
    for (uint32_t i = 0; i < d->launch->num_observers; i++) {
        SimObserver *o = d->launch->observers[i];
        if (o->mem_access)
            o->mem_access(o->ctx, &g->view, acc);
    }
}

static MemSpace space_of(IsaOpcode op)
{
    switch (op) {
    case ISA_OP_LD_DEV: case ISA_OP_ST_DEV: case ISA_OP_ATOM_DEV: case ISA_OP_CMPXCHG_DEV:
        return MEM_SPACE_DEVICE;
    case ISA_OP_LD_CONST:
        return MEM_SPACE_CONSTANT;
    case ISA_OP_LD_TG: case ISA_OP_ST_TG: case ISA_OP_ATOM_TG: case ISA_OP_CMPXCHG_TG:
        return MEM_SPACE_THREADGROUP;
    default:
        return MEM_SPACE_THREAD;
    }
}

/* Resolves lane l's address (addr_out: what observers see) to host memory of `bytes`
 * bytes, recording a fault when it is not all inside its buffer or space. */
static uint8_t *resolve(SimDispatch *d, SimGroup *g, const SimInst *in, MemSpace space,
                        bool is_write, uint32_t l, uint32_t esize, uint32_t bytes,
                        uint64_t *addr_out)
{
    const uint32_t *base = sim_bank(d, g, &in->o[1]);
    int64_t index = (int32_t)sim_bank(d, g, &in->o[2])[l];
    if (space == MEM_SPACE_DEVICE || space == MEM_SPACE_CONSTANT) {
        const uint64_t from = (uint64_t)base[W + l] << 32 | base[l];
        uint64_t addr = from + (uint64_t)(index * (int64_t)esize);
        *addr_out = addr;
        MemBuffer *b = mem_device_buffer_at(d->device, addr);
        uint64_t offset = addr & MEM_MAX_BUFFER_BYTES;
        MemBuffer *home = mem_device_buffer_at(d->device, from);
        if (home && (int64_t)(home - d->device->buffers) == d->data_buffer) {
            /* the constant data: an access belongs to the array its base points into */
            const uint64_t start = mem_buffer_address((uint32_t)d->data_buffer);
            const SimTgBlock *blk = sim_data_overrun(d, from - start, addr - start, bytes,
                                                     in->o[1].bank != SIM_BANK_CONSTS);
            if (blk) {
                sim_fault(d, g, l, SIM_FAULT_OUT_OF_BOUNDS, home->space, is_write, blk->name,
                          addr - start - blk->offset, bytes, blk->size);
                return NULL;
            }
        }
        if (home && b != home) {
            /* An access belongs to the buffer its base points into: an index that leaves it
             * is out of bounds of that buffer (at a negative offset, or one past 4 GB), even
             * where another buffer lies. */
            const uint32_t h = (uint32_t)(home - d->device->buffers);
            sim_fault(d, g, l, SIM_FAULT_OUT_OF_BOUNDS, home->space, is_write, home->name,
                      addr - mem_buffer_address(h), bytes, home->size);
            return NULL;
        }
        if (!b) {
            sim_fault(d, g, l, SIM_FAULT_NO_BUFFER, space, is_write, NULL, addr, bytes, 0);
            return NULL;
        }
        if (offset + bytes > b->size) {
            sim_fault(d, g, l, SIM_FAULT_OUT_OF_BOUNDS, b->space, is_write, b->name, offset,
                      bytes, b->size);
            return NULL;
        }
        if (is_write && b->space == MEM_SPACE_CONSTANT) {
            sim_fault(d, g, l, SIM_FAULT_CONSTANT_WRITE, b->space, true, b->name, offset, bytes,
                      b->size);
            return NULL;
        }
        return b->data + offset;
    }
    uint64_t offset = (uint64_t)((int64_t)base[l] + index * (int64_t)esize);
    *addr_out = offset;
    const SimTgBlock *home =
        space == MEM_SPACE_THREADGROUP
            ? sim_tg_overrun(d, base[l], offset, bytes, in->o[1].bank != SIM_BANK_CONSTS)
            : NULL;
    if (home) {
        /* as for device buffers: an index that leaves the array its base points into is out
         * of bounds of that array, even where another one lies */
        sim_fault(d, g, l, SIM_FAULT_OUT_OF_BOUNDS, space, is_write, home->name,
                  offset - home->offset, bytes, home->size);
        return NULL;
    }
    uint64_t limit = space == MEM_SPACE_THREADGROUP ? d->tg_mem_bytes : d->program->stack_bytes;
    if ((int64_t)offset < 0 || offset + bytes > limit) {
        sim_fault(d, g, l, SIM_FAULT_OUT_OF_BOUNDS, space, is_write, NULL, offset, bytes, limit);
        return NULL;
    }
    if (space == MEM_SPACE_THREADGROUP)
        return d->tg_memory + offset;
    return g->stack + (size_t)l * d->program->stack_bytes + offset;
}

/* Register word and half that element k of the data operand lives in. */
static inline uint16_t *data_half(SimGroup *g, const IsaOperand *o, uint32_t k, uint32_t l)
{
    uint32_t half_index = o->index + k;
    return (uint16_t *)(g->regs + (half_index / 2) * W + l) + (half_index & 1);
}

static inline uint32_t *data_word(SimGroup *g, const IsaOperand *o, uint32_t k, uint32_t l)
{
    return g->regs + (o->index + k) * W + l;
}

static uint32_t load_element(const uint8_t *p, IsaMemFormat fmt)
{
    switch (fmt) {
    case ISA_FMT_U8: return p[0];
    case ISA_FMT_S8: return (uint32_t)(int32_t)(int8_t)p[0];
    case ISA_FMT_U16: case ISA_FMT_H16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case ISA_FMT_S16: {
        int16_t v;
        memcpy(&v, p, 2);
        return (uint32_t)(int32_t)v;
    }
    default: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    }
}

static void store_element(uint8_t *p, IsaMemFormat fmt, uint32_t v)
{
    unsigned n = isa_fmt_size(fmt);
    if (n == 1) {
        p[0] = (uint8_t)v;
    } else if (n == 2) {
        uint16_t h = (uint16_t)v;
        memcpy(p, &h, 2);
    } else {
        memcpy(p, &v, 4);
    }
}

/* Every lane's offset base + index * esize into off[] (threadgroup memory, or a device buffer
 * when base holds the low words of addresses in it); returns the active lanes whose `bytes`
 * there are not all inside `size` (0: all in bounds). */
static uint32_t lane_offsets(const SimGroup *g, const uint32_t *base, const uint32_t *index,
                             uint32_t esize, uint32_t bytes, uint64_t size, uint64_t *off)
{
    uint32_t bad = 0;
    const uint32_t k = sim_esize_shift(esize);
    for (int l = 0; l < W; l++) {
        off[l] = sim_lane_offset(base[l], index[l], k);
        /* A negative offset wraps to a huge value: the first compare catches it (bitwise |,
         * not ||, so the loop stays branch-free). */
        bad |= ((uint32_t)(off[l] > size) | (uint32_t)(off[l] + bytes > size)) & g->lane_select[l];
    }
    return bad;
}

/* Whether every active lane's bytes [off, off + bytes) lie in the block its base points
 * into (lanes whose base is in no named block: anywhere, as lane_offsets checked); pointer:
 * the bases are registers (see sim_tg_overrun). */
static bool inside_homes(const SimDispatch *d, const SimGroup *g, const uint32_t *base,
                         const uint64_t *off, uint32_t bytes, bool pointer)
{
    for (uint32_t m = g->exec_mask; m; m &= m - 1) {
        const uint32_t l = (uint32_t)__builtin_ctz(m);
        if (sim_tg_overrun(d, base[l], off[l], bytes, pointer))
            return false;
    }
    return true;
}

/* reg[l] = the 32-bit word at base + 4 * index[l] for every lane whose select[] is all ones
 * (those lanes' words are in bounds; the others are neither read nor changed). */
static inline void gather_words(uint32_t *reg, const uint8_t *base, const uint32_t *index,
                                const uint32_t *select, bool full)
{
#if defined(__AVX2__)
    for (int l = 0; l < W; l += 8) {
        __m256i i = _mm256_loadu_si256((const __m256i *)(index + l));
        __m256i v;
        if (full) {
            v = _mm256_i32gather_epi32((const int *)base, i, 4);
        } else {
            __m256i old = _mm256_loadu_si256((const __m256i *)(reg + l));
            __m256i m = _mm256_loadu_si256((const __m256i *)(select + l));
            v = _mm256_mask_i32gather_epi32(old, (const int *)base, i, m, 4);
        }
        _mm256_storeu_si256((__m256i *)(reg + l), v);
    }
#else
    for (int l = 0; l < W; l++)
        if (full || select[l])
            memcpy(&reg[l], base + (int64_t)(int32_t)index[l] * 4, 4);
#endif
}

/* The common case, done without per-lane function calls: no observer, and every active
 * lane's access lies inside one region known up front (threadgroup memory, or one device
 * buffer named by a uniform base). Returns false to leave it to the general path, which
 * also records faults. */
static bool memory_fast_path(SimDispatch *d, SimGroup *g, const SimInst *in, MemSpace space,
                             bool is_write, SimMemAccess *acc)
{
    const IsaInst *isa = in->isa;
    uint8_t *region;
    uint64_t region_size, origin, address_base = 0; /* origin: where lane 0's base points */
    const uint32_t *base = sim_bank(d, g, &in->o[1]);
    if (space == MEM_SPACE_THREADGROUP) {
        region = d->tg_memory;
        region_size = d->tg_mem_bytes;
        origin = base[0];
        const SimTgBlock *home = in->o[1].bank == SIM_BANK_CONSTS ? sim_tg_home(d, base[0]) : NULL;
        if (home) { /* one base for all lanes: the block it points into bounds them */
            region += home->offset;
            region_size = home->size;
            origin -= home->offset;
            address_base = home->offset;
        }
    } else if (space != MEM_SPACE_THREAD && in->o[1].bank == SIM_BANK_CONSTS) {
        uint64_t addr = (uint64_t)base[W] << 32 | base[0];
        MemBuffer *b = mem_device_buffer_at(d->device, addr);
        if (!b || (is_write && b->space == MEM_SPACE_CONSTANT))
            return false;
        region = b->data;
        region_size = b->size;
        address_base = addr & ~MEM_MAX_BUFFER_BYTES;
        origin = addr & MEM_MAX_BUFFER_BYTES;
        if ((int64_t)(b - d->device->buffers) == d->data_buffer) {
            /* bounded by the constant array the base points into */
            const SimTgBlock *blk = sim_data_home(d, origin);
            if (!blk)
                return false;
            region += blk->offset;
            region_size = blk->size;
            origin -= blk->offset;
            address_base += blk->offset;
        }
    } else {
        return false;
    }
    const IsaMemFormat fmt = (IsaMemFormat)isa->type;
    const uint32_t esize = isa_fmt_size(fmt), n = isa->count, bytes = esize * n;
    const uint32_t *index = sim_bank(d, g, &in->o[2]);
    uint64_t off[W];
    uint32_t bad = 0;
    const bool uniform_origin = space != MEM_SPACE_THREADGROUP || in->o[1].bank == SIM_BANK_CONSTS;
    if (uniform_origin) {
        /* One origin for every lane: the in-bounds indices are the range [lo, hi], so each
         * lane costs two 32-bit compares (this loop vectorizes) instead of 64-bit ones. */
        const int64_t o = (int64_t)origin;
        int32_t lo, hi;
        sim_index_range(origin, region_size, bytes, sim_esize_shift(esize), &lo, &hi);
        bad = sim_lanes_outside(index, g->lane_select, lo, hi);
        if (bad || hi < lo)
            return bad ? false : g->exec_mask == 0;
        /* Coalesced: lanes at consecutive 32-bit elements (lane l at index[0] + l). With all
         * lanes active (and so all in bounds: checked above) one block copy moves them all.
         * With some inactive, and the whole block inside the region, the block is blended:
         * active lanes take the new word, the others keep theirs, in one branch-free pass
         * (rewriting a word with its own value is invisible: nothing else runs meanwhile). */
        if (fmt == ISA_FMT_B32 && n == 1) {
            uint32_t step_ok = 0;
            for (int l = 0; l < W; l++)
                step_ok |= index[l] ^ (index[0] + (uint32_t)l);
            int64_t first = o + (int64_t)(int32_t)index[0] * 4;
            const bool full = g->exec_mask == SIM_FULL_MASK;
            if (step_ok == 0 && (full || (first >= 0 && first + 4 * W <= (int64_t)region_size))) {
                uint8_t *block = region + first;
                uint32_t *reg = g->regs + isa->opd[0].index * W;
                if (full) {
                    if (is_write)
                        memcpy(block, reg, W * 4);
                    else
                        memcpy(reg, block, W * 4);
                } else {
                    uint32_t words[W];
                    const uint32_t *sel = g->lane_select;
                    memcpy(words, block, sizeof words);
                    if (is_write) {
                        for (int l = 0; l < W; l++)
                            words[l] = (reg[l] & sel[l]) | (words[l] & ~sel[l]);
                        memcpy(block, words, sizeof words);
                    } else {
                        for (int l = 0; l < W; l++)
                            reg[l] = (words[l] & sel[l]) | (reg[l] & ~sel[l]);
                    }
                }
                if (acc) {
                    acc->lane_mask = g->exec_mask;
                    for (int l = 0; l < W; l++) {
                        acc->addr[l] = address_base + (uint64_t)first + 4 * (uint64_t)l;
                        if (is_write)
                            memcpy(acc->data[l], &reg[l], 4);
                    }
                }
                return true;
            }
        }
        if (fmt == ISA_FMT_B32 && n == 1) {
            /* Words gathered or scattered (a tile's column, a row every lane reads): each
             * lane's word straight from its index, in lane order. Observers see every
             * lane's address, and for stores every lane's word (they read only the active
             * lanes'). */
            uint32_t *reg = g->regs + isa->opd[0].index * W;
            if (acc) {
                acc->lane_mask = g->exec_mask;
                for (int l = 0; l < W; l++)
                    acc->addr[l] = address_base + (uint64_t)(o + (int64_t)(int32_t)index[l] * 4);
                if (is_write)
                    for (int l = 0; l < W; l++)
                        memcpy(acc->data[l], &reg[l], 4);
            }
            if (!is_write) {
                gather_words(reg, region + o, index, g->lane_select,
                             g->exec_mask == SIM_FULL_MASK);
            } else if (g->exec_mask == SIM_FULL_MASK) {
                for (int l = 0; l < W; l++)
                    memcpy(region + (o + (int64_t)(int32_t)index[l] * 4), &reg[l], 4);
            } else {
                for (uint32_t m = g->exec_mask; m; m &= m - 1) {
                    const uint32_t l = (uint32_t)__builtin_ctz(m);
                    memcpy(region + (o + (int64_t)(int32_t)index[l] * 4), &reg[l], 4);
                }
            }
            return true;
        }
        for (int l = 0; l < W; l++)
            off[l] = (uint64_t)(o + (int64_t)(int32_t)index[l] * (int64_t)esize);
    } else {
        /* only threadgroup memory with a per-lane base gets here */
        if (lane_offsets(g, base, index, esize, bytes, region_size, off))
            return false;
        if (d->tg_home && !inside_homes(d, g, base, off, bytes, true))
            return false; /* the slow path names the array a lane ran past */
    }
    const IsaOperand *data = &isa->opd[0];
    const uint32_t full = g->exec_mask == SIM_FULL_MASK;
    if (acc) {
        /* Observers see every active lane's address and, for stores, the bytes it wrote. */
        acc->lane_mask = g->exec_mask;
        for (int l = 0; l < W; l++)
            acc->addr[l] = address_base + off[l];
        if (is_write && fmt == ISA_FMT_B32) {
            /* whole registers: every lane's word, active or not (observers read only the
             * lanes in lane_mask), in a loop without branches */
            for (uint32_t k = 0; k < n; k++) {
                const uint32_t *reg = g->regs + (data->index + k) * W;
                for (int l = 0; l < W; l++)
                    memcpy(acc->data[l] + 4 * k, &reg[l], 4);
            }
        } else if (is_write) {
            uint32_t mask = g->exec_mask;
            while (mask) {
                uint32_t l = (uint32_t)__builtin_ctz(mask);
                mask &= mask - 1;
                for (uint32_t k = 0; k < n; k++) {
                    uint32_t v = fmt == ISA_FMT_H16 ? *data_half(g, data, k, l) : *data_word(g, data, k, l);
                    store_element(acc->data[l] + k * esize, fmt, v);
                }
            }
        }
    }
    if (fmt == ISA_FMT_B32) {
        for (uint32_t k = 0; k < n; k++) {
            uint32_t *reg = g->regs + (data->index + k) * W;
            if (full) {
                if (is_write)
                    for (int l = 0; l < W; l++)
                        memcpy(region + off[l] + 4 * k, &reg[l], 4);
                else
                    for (int l = 0; l < W; l++)
                        memcpy(&reg[l], region + off[l] + 4 * k, 4);
                continue;
            }
            /* Inactive lanes' offsets were not bounds-checked: never touch them. */
            for (uint32_t m = g->exec_mask; m; m &= m - 1) {
                const uint32_t l = (uint32_t)__builtin_ctz(m);
                if (is_write)
                    memcpy(region + off[l] + 4 * k, &reg[l], 4);
                else
                    memcpy(&reg[l], region + off[l] + 4 * k, 4);
            }
        }
        return true;
    }
    uint32_t mask = g->exec_mask;
    while (mask) {
        uint32_t l = (uint32_t)__builtin_ctz(mask);
        mask &= mask - 1;
        for (uint32_t k = 0; k < n; k++) {
            uint8_t *p = region + off[l] + k * esize;
            if (is_write)
                store_element(p, fmt, fmt == ISA_FMT_H16 ? *data_half(g, data, k, l) : *data_word(g, data, k, l));
            else if (fmt == ISA_FMT_H16)
                *data_half(g, data, k, l) = (uint16_t)load_element(p, fmt);
            else
                *data_word(g, data, k, l) = load_element(p, fmt);
        }
    }
    return true;
}

void sim_exec_memory(SimDispatch *d, SimGroup *g, const SimInst *in)
{
    const IsaInst *isa = in->isa;
    IsaOpcode op = (IsaOpcode)in->op;
    MemSpace space = space_of(op);
    bool is_write = op == ISA_OP_ST_DEV || op == ISA_OP_ST_TG || op == ISA_OP_ST_STACK;
    IsaMemFormat fmt = (IsaMemFormat)isa->type;
    uint32_t esize = isa_fmt_size(fmt), n = isa->count, bytes = esize * n;
    bool halves = fmt == ISA_FMT_H16;
    const bool observed = d->launch->num_observers != 0;
    if (!g->exec_mask)
        return; /* no lane: nothing is read, written or seen (a tree's idle SIMD-groups) */
    SimMemAccess local_acc;
    SimMemAccess *acc = NULL;
    if (observed) {
        acc = &local_acc;
        acc->inst = isa;
        acc->space = space;
        acc->kind = is_write ? SIM_ACCESS_WRITE : SIM_ACCESS_READ;
        acc->lane_mask = 0;
        acc->bytes = bytes;
    }
    if (memory_fast_path(d, g, in, space, is_write, acc)) {
        if (acc && acc->lane_mask)
            notify_access(d, g, acc);
        return;
    }
    uint32_t mask = g->exec_mask;
    while (mask) {
        uint32_t l = (uint32_t)__builtin_ctz(mask);
        mask &= mask - 1;
        uint64_t addr;
        uint8_t *p = resolve(d, g, in, space, is_write, l, esize, bytes, &addr);
        for (uint32_t k = 0; k < n; k++) {
            if (is_write) {
                uint32_t v = halves ? *data_half(g, &isa->opd[0], k, l) : *data_word(g, &isa->opd[0], k, l);
                if (p)
                    store_element(p + k * esize, fmt, v);
                if (acc && p)
                    store_element(acc->data[l] + k * esize, fmt, v);
            } else {
                uint32_t v = p ? load_element(p + k * esize, fmt) : 0;
                if (halves)
                    *data_half(g, &isa->opd[0], k, l) = (uint16_t)v;
                else
                    *data_word(g, &isa->opd[0], k, l) = v;
            }
        }
        if (acc && p) {
            acc->lane_mask |= 1u << l;
            acc->addr[l] = addr;
        }
    }
    if (acc && acc->lane_mask)
        notify_access(d, g, acc);
}

static uint32_t atomic_apply(IsaAtomicOp op, IsaType type, uint32_t old, uint32_t v)
{
    switch (op) {
    case ISA_ATOM_ADD:
        if (type == ISA_TYPE_F32)
            return sim_canon_f32(util_f32_bits(util_bits_f32(old) + util_bits_f32(v)));
        return old + v;
    case ISA_ATOM_SUB: return old - v;
    case ISA_ATOM_XCHG: return v;
    case ISA_ATOM_MIN:
        if (type == ISA_TYPE_S32)
            return (int32_t)v < (int32_t)old ? v : old;
        return v < old ? v : old;
    case ISA_ATOM_MAX:
        if (type == ISA_TYPE_S32)
            return (int32_t)v > (int32_t)old ? v : old;
        return v > old ? v : old;
    case ISA_ATOM_AND: return old & v;
    case ISA_ATOM_OR: return old | v;
    default: return old ^ v; /* XOR */
    }
}

/* The lanes of `mask` of an atomic whose every lane is in bounds of `region`, in lane order;
 * inlined once per common op, so the op's switch folds away. */
static inline __attribute__((always_inline)) void atomic_lanes(IsaAtomicOp op, IsaType type,
                                                               uint8_t *region,
                                                               const uint64_t *off,
                                                               uint64_t address_base,
                                                               const uint32_t *V, uint32_t mask,
                                                               uint32_t *res, SimMemAccess *acc)
{
    if (acc)
        acc->lane_mask = mask;
    for (; mask; mask &= mask - 1) {
        uint32_t l = (uint32_t)__builtin_ctz(mask), old;
        uint8_t *p = region + off[l];
        memcpy(&old, p, 4);
        uint32_t nv = atomic_apply(op, type, old, V[l]);
        memcpy(p, &nv, 4);
        res[l] = old;
        if (acc) {
            acc->addr[l] = address_base + off[l];
            memcpy(acc->data[l], &nv, 4);
        }
    }
}

void sim_exec_atomic(SimDispatch *d, SimGroup *g, const SimInst *in)
{
    const IsaInst *isa = in->isa;
    IsaOpcode op = (IsaOpcode)in->op;
    MemSpace space = space_of(op);
    bool cmpxchg = op == ISA_OP_CMPXCHG_DEV || op == ISA_OP_CMPXCHG_TG;
    const uint32_t *V = sim_bank(d, g, &in->o[3]);
    const uint32_t *NEW = cmpxchg ? sim_bank(d, g, &in->o[4]) : V;
    uint32_t res[W] = {0};
    SimMemAccess local_acc, *acc = d->launch->num_observers ? &local_acc : NULL;
    if (acc) {
        acc->inst = isa;
        acc->space = space;
        acc->kind = SIM_ACCESS_ATOMIC;
        acc->lane_mask = 0;
        acc->bytes = 4;
        memset(acc->addr, 0, sizeof acc->addr); /* observers may read every lane's */
    }
    uint32_t *dst = sim_bank(d, g, &in->o[0]);
    memcpy(res, dst, sizeof res);
    uint32_t mask = g->exec_mask;
    /* Every active lane in bounds of threadgroup memory, or of the one device buffer a
     * buffer argument names (tested for all lanes at once, as in memory_fast_path): the
     * offsets come straight from the operands, without resolve's per-lane calls. The lanes
     * still go one at a time, in lane order. */
    const uint32_t *base = sim_bank(d, g, &in->o[1]), *index = sim_bank(d, g, &in->o[2]);
    uint64_t off[W], address_base = 0;
    uint8_t *region = NULL;
    bool direct = false;
    if (space == MEM_SPACE_THREADGROUP) {
        region = d->tg_memory;
        direct = lane_offsets(g, base, index, 4, 4, d->tg_mem_bytes, off) == 0 &&
                 (!d->tg_home || inside_homes(d, g, base, off, 4, in->o[1].bank != SIM_BANK_CONSTS));
    } else if (space == MEM_SPACE_DEVICE && mask) {
        /* a pointer per lane (base[W + l] its high word: the buffer), or a buffer argument's */
        const uint32_t stride = in->o[1].bank == SIM_BANK_CONSTS ? 0 : 1;
        const uint32_t lead = (uint32_t)__builtin_ctz(mask), high = base[W + lead * stride];
        uint32_t other = 0;
        for (int l = 0; l < W; l++)
            other |= (base[W + (uint32_t)l * stride] ^ high) & g->lane_select[l];
        const uint64_t at = (uint64_t)high << 32 | base[lead * stride];
        const MemBuffer *b = other ? NULL : mem_device_buffer_at(d->device, at);
        if (b && b->space != MEM_SPACE_CONSTANT) {
            region = b->data;
            address_base = at & ~MEM_MAX_BUFFER_BYTES;
            direct = lane_offsets(g, base, index, 4, 4, b->size, off) == 0;
        }
    }
    if (direct && !cmpxchg && isa->type != ISA_TYPE_F32) {
        /* The common integer ops without the per-lane choices below. */
        const IsaType type = (IsaType)isa->type;
        switch ((IsaAtomicOp)isa->cond) {
        case ISA_ATOM_ADD:
            atomic_lanes(ISA_ATOM_ADD, type, region, off, address_base, V, mask, res, acc);
            break;
        case ISA_ATOM_XCHG:
            atomic_lanes(ISA_ATOM_XCHG, type, region, off, address_base, V, mask, res, acc);
            break;
        case ISA_ATOM_OR:
            atomic_lanes(ISA_ATOM_OR, type, region, off, address_base, V, mask, res, acc);
            break;
        default:
            atomic_lanes((IsaAtomicOp)isa->cond, type, region, off, address_base, V, mask, res,
                         acc);
            break;
        }
        mask = 0;
    }
    while (mask) {
        uint32_t l = (uint32_t)__builtin_ctz(mask);
        mask &= mask - 1;
        uint64_t addr = direct ? address_base + off[l] : 0;
        uint8_t *p = direct ? region + off[l] : resolve(d, g, in, space, true, l, 4, 4, &addr);
        if (!p) {
            res[l] = 0;
            continue;
        }
        uint32_t old;
        memcpy(&old, p, 4);
        uint32_t nv = cmpxchg ? (old == V[l] ? NEW[l] : old)
                              : atomic_apply((IsaAtomicOp)isa->cond, (IsaType)isa->type, old, V[l]);
        memcpy(p, &nv, 4);
        res[l] = old;
        if (acc) {
            acc->lane_mask |= 1u << l;
            acc->addr[l] = addr;
            memcpy(acc->data[l], &nv, 4);
        }
    }
    sim_write32(g, dst, res);
    if (acc && acc->lane_mask)
        notify_access(d, g, acc);
}
