/*
 * mem.c — the device buffer table (see mem.h for the address layout).
 */
#include "mem.h"

#include <stdlib.h>
#include <string.h>

const char *const mem_space_names[MEM_SPACE_COUNT] = {
    [MEM_SPACE_DEVICE] = "device",
    [MEM_SPACE_CONSTANT] = "constant",
    [MEM_SPACE_THREADGROUP] = "threadgroup",
    [MEM_SPACE_THREAD] = "thread",
};

MemDevice *mem_device_new(void) { return util_calloc(1, sizeof(MemDevice)); }

void mem_device_free(MemDevice *dev)
{
    if (!dev)
        return;
    for (uint32_t i = 0; i < dev->count; i++) {
        free(dev->buffers[i].name);
        if (!dev->buffers[i].borrowed)
            free(dev->buffers[i].data);
    }
    free(dev->buffers);
    free(dev);
}

MemDevice *mem_device_clone(const MemDevice *dev)
{
    return mem_device_clone_sharing(dev, NULL);
}

MemDevice *mem_device_clone_sharing(const MemDevice *dev, const bool *share)
{
    MemDevice *c = util_calloc(1, sizeof *c);
    c->buffers = util_calloc(dev->count ? dev->count : 1, sizeof *c->buffers);
    c->count = dev->count;
    c->capacity = dev->count ? dev->count : 1;
    for (uint32_t i = 0; i < dev->count; i++) {
        const MemBuffer *b = &dev->buffers[i];
        const bool shared = share && share[i];
        c->buffers[i] = (MemBuffer){.name = util_strdup(b->name), .size = b->size,
                                    .space = b->space, .borrowed = shared};
        if (shared) {
            c->buffers[i].data = b->data;
        } else {
            c->buffers[i].data = util_malloc(b->size ? (size_t)b->size : 1);
            util_populate(c->buffers[i].data, (size_t)b->size);
            memcpy(c->buffers[i].data, b->data, (size_t)b->size);
        }
    }
    return c;
}

void mem_device_own_pages(MemDevice *dev)
{
    for (uint32_t i = 0; i < dev->count; i++) {
        util_populate(dev->buffers[i].data, (size_t)dev->buffers[i].size); /* mostly does it */
        volatile uint8_t *p = dev->buffers[i].data;
        for (uint64_t off = 0; off < dev->buffers[i].size; off += 4096)
            p[off] = p[off];
    }
}

int32_t mem_device_add(MemDevice *dev, const char *name, uint64_t size, MemSpace space,
                       UtilError *err)
{
    if (size > MEM_MAX_BUFFER_BYTES) {
        util_fail(err, "buffer '%s' of %llu bytes is larger than the 4 GiB a buffer may hold",
                  name, (unsigned long long)size);
        return -1;
    }
    if (dev->count >= 0x7fffffff) {
        util_fail(err, "too many buffers");
        return -1;
    }
    MemBuffer b = {
        .name = util_strdup(name),
        .data = util_calloc(1, (size_t)size),
        .size = size,
        .space = space,
    };
    UTIL_PUSH(dev->buffers, dev->count, dev->capacity, b);
    return (int32_t)(dev->count - 1);
}
