/*
 * mem.h — the address spaces a kernel sees and the buffers behind them.
 *
 * Device and constant buffers live in one flat 64-bit device address space. Buffer i sits at
 * address (i + 1) << 32, so an address names its buffer in its high half and the offset in its
 * low half: translating an address and bounds-checking it is a shift, a compare and an add,
 * and an out-of-bounds report can always name the buffer. Address 0 and addresses above the
 * last buffer belong to no buffer. Threadgroup memory is a flat byte array per threadgroup;
 * thread (stack) memory a byte array per lane. None of this prints or exits.
 */
#ifndef LOCKSTEP_MEM_H
#define LOCKSTEP_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/util.h"

typedef enum MemSpace {
    MEM_SPACE_DEVICE,
    MEM_SPACE_CONSTANT,
    MEM_SPACE_THREADGROUP,
    MEM_SPACE_THREAD,
    MEM_SPACE_COUNT
} MemSpace;

extern const char *const mem_space_names[MEM_SPACE_COUNT];

#define MEM_BUFFER_SHIFT 32
#define MEM_MAX_BUFFER_BYTES (((uint64_t)1 << MEM_BUFFER_SHIFT) - 1)

typedef struct MemBuffer {
    char *name;      /* the argument it is bound to, for reports */
    uint8_t *data;
    uint64_t size;   /* bytes */
    MemSpace space;  /* MEM_SPACE_DEVICE or MEM_SPACE_CONSTANT (read-only to kernels) */
    bool borrowed;   /* data belongs to another device's buffer (mem_device_clone_sharing) */
} MemBuffer;

typedef struct MemDevice {
    MemBuffer *buffers;
    uint32_t count;
    size_t capacity;
} MemDevice;

MemDevice *mem_device_new(void);
void mem_device_free(MemDevice *dev);
/* A copy of every buffer: names, sizes, spaces and contents. */
MemDevice *mem_device_clone(const MemDevice *dev);
/* The same, except that buffer i's contents are not copied but shared with dev when
 * share[i]: for buffers no one writes while both devices are in use. The clone never frees
 * shared contents, and must not be used once dev has freed them. */
MemDevice *mem_device_clone_sharing(const MemDevice *dev, const bool *share);
/* Writes every page of every buffer (with the byte it holds), so that each is the process's
 * own page before a second thread shares the address space. A page only read so far maps
 * the kernel's shared zero page, and the first store to it is then a copy-on-write whose
 * TLB flush interrupts every other CPU running the process, once per page. Contents are
 * unchanged. */
void mem_device_own_pages(MemDevice *dev);
/* Adds a zero-filled buffer; returns its index, or -1 with err when it is too large. */
int32_t mem_device_add(MemDevice *dev, const char *name, uint64_t size, MemSpace space,
                       UtilError *err);

static inline uint64_t mem_buffer_address(uint32_t index)
{
    return (uint64_t)(index + 1) << MEM_BUFFER_SHIFT;
}

/* The buffer an address points into (not bounds-checked), or NULL for no buffer. */
static inline MemBuffer *mem_device_buffer_at(const MemDevice *dev, uint64_t addr)
{
    uint64_t index = (addr >> MEM_BUFFER_SHIFT) - 1;
    return index < dev->count ? &dev->buffers[index] : NULL;
}

/* Host pointer for `bytes` bytes at addr, or NULL when any of them is outside a buffer. */
static inline uint8_t *mem_device_translate(const MemDevice *dev, uint64_t addr, uint32_t bytes)
{
    MemBuffer *b = mem_device_buffer_at(dev, addr);
    uint64_t offset = addr & MEM_MAX_BUFFER_BYTES;
    if (UTIL_UNLIKELY(!b || offset + bytes > b->size))
        return NULL;
    return b->data + offset;
}

#endif
