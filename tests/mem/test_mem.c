/*
 * test_mem.c — pins the device address space of mem.h: where buffers sit, bounds of
 * mem_device_translate at the last byte and one past it, addresses of no buffer (0, above
 * the last buffer), and the refusal of a buffer larger than 4 GiB - 1.
 */
#include "test_util.h"

#include "../../mem/mem.h"

static void test_add_and_translate(void **state)
{
    (void)state;
    UtilError err = {{0}};
    MemDevice *dev = mem_device_new();
    assert_int_equal(mem_device_add(dev, "a", 16, MEM_SPACE_DEVICE, &err), 0);
    assert_int_equal(mem_device_add(dev, "c", 8, MEM_SPACE_CONSTANT, &err), 1);
    assert_int_equal(dev->count, 2);
    assert_string_equal(dev->buffers[0].name, "a");
    assert_int_equal(dev->buffers[1].space, MEM_SPACE_CONSTANT);
    for (int i = 0; i < 16; i++)
        assert_int_equal(dev->buffers[0].data[i], 0); /* zero-filled */

    uint64_t a = mem_buffer_address(0), c = mem_buffer_address(1);
    assert_int_equal(a, 1ull << 32);
    assert_int_equal(c, 2ull << 32);
    assert_ptr_equal(mem_device_buffer_at(dev, a), &dev->buffers[0]);
    assert_ptr_equal(mem_device_buffer_at(dev, a + 0xffffffffull), &dev->buffers[0]);
    assert_ptr_equal(mem_device_buffer_at(dev, c + 3), &dev->buffers[1]);
    assert_null(mem_device_buffer_at(dev, 0));
    assert_null(mem_device_buffer_at(dev, 0xffffffffull));
    assert_null(mem_device_buffer_at(dev, mem_buffer_address(2)));
    assert_null(mem_device_buffer_at(dev, 0xffffffffffffffffull));

    assert_ptr_equal(mem_device_translate(dev, a, 16), dev->buffers[0].data);
    assert_ptr_equal(mem_device_translate(dev, a + 15, 1), dev->buffers[0].data + 15); /* last byte */
    assert_null(mem_device_translate(dev, a + 16, 1));                                 /* one past */
    assert_ptr_equal(mem_device_translate(dev, a + 12, 4), dev->buffers[0].data + 12);
    assert_null(mem_device_translate(dev, a + 13, 4));                                 /* straddles */
    assert_null(mem_device_translate(dev, a + 0xfffffffcull, 4));
    assert_ptr_equal(mem_device_translate(dev, c + 7, 1), dev->buffers[1].data + 7);
    assert_null(mem_device_translate(dev, c + 8, 1));
    assert_null(mem_device_translate(dev, 0, 1));
    assert_null(mem_device_translate(dev, 8, 4));
    assert_null(mem_device_translate(dev, mem_buffer_address(2), 1));
    mem_device_free(dev);
}

static void test_too_large(void **state)
{
    (void)state;
    UtilError err = {{0}};
    MemDevice *dev = mem_device_new();
    assert_int_equal(mem_device_add(dev, "huge", MEM_MAX_BUFFER_BYTES + 1, MEM_SPACE_DEVICE, &err), -1);
    assert_non_null(strstr(err.message, "huge"));
    assert_int_equal(dev->count, 0);
    assert_int_equal(mem_device_add(dev, "zero", 0, MEM_SPACE_DEVICE, &err), 0);
    assert_null(mem_device_translate(dev, mem_buffer_address(0), 1));
    mem_device_free(dev);
    mem_device_free(NULL);
}

/* A clone holds the same bytes in storage of its own; owning the pages changes no byte. */
static void test_clone_and_own_pages(void **state)
{
    (void)state;
    MemDevice *dev = mem_device_new();
    UtilError err = {{0}};
    assert_int_equal(mem_device_add(dev, "a", 3 * 4096 + 5, MEM_SPACE_DEVICE, &err), 0);
    assert_int_equal(mem_device_add(dev, "b", 10000, MEM_SPACE_CONSTANT, &err), 1);
    assert_int_equal(mem_device_add(dev, "empty", 0, MEM_SPACE_DEVICE, &err), 2);
    for (uint64_t i = 0; i < dev->buffers[0].size; i += 7)
        dev->buffers[0].data[i] = (uint8_t)(i * 13 + 1);
    mem_device_own_pages(dev);
    for (uint64_t i = 0; i < dev->buffers[0].size; i++)
        assert_int_equal(dev->buffers[0].data[i], i % 7 ? 0 : (uint8_t)(i * 13 + 1));
    for (uint64_t i = 0; i < dev->buffers[1].size; i++)
        assert_int_equal(dev->buffers[1].data[i], 0);
    MemDevice *c = mem_device_clone(dev);
    assert_int_equal(c->count, 3);
    for (uint32_t b = 0; b < 3; b++) {
        assert_string_equal(c->buffers[b].name, dev->buffers[b].name);
        assert_int_equal(c->buffers[b].size, dev->buffers[b].size);
        assert_int_equal(c->buffers[b].space, dev->buffers[b].space);
        assert_true(c->buffers[b].data != dev->buffers[b].data);
        assert_memory_equal(c->buffers[b].data, dev->buffers[b].data, dev->buffers[b].size);
    }
    c->buffers[0].data[0] ^= 0xff;
    assert_int_equal(dev->buffers[0].data[0], 1);
    mem_device_free(c);
    mem_device_free(dev);
}

/* A sharing clone copies the buffers not shared and points at the others, and freeing it
 * leaves the shared contents to their owner (ASan would see a double free). */
static void test_clone_sharing(void **state)
{
    (void)state;
    MemDevice *dev = mem_device_new();
    UtilError err = {{0}};
    assert_int_equal(mem_device_add(dev, "in", 4096, MEM_SPACE_DEVICE, &err), 0);
    assert_int_equal(mem_device_add(dev, "out", 100, MEM_SPACE_DEVICE, &err), 1);
    dev->buffers[0].data[7] = 42;
    dev->buffers[1].data[3] = 9;
    const bool share[] = {true, false};
    MemDevice *c = mem_device_clone_sharing(dev, share);
    assert_ptr_equal(c->buffers[0].data, dev->buffers[0].data);
    assert_true(c->buffers[0].borrowed);
    assert_true(c->buffers[1].data != dev->buffers[1].data);
    assert_false(c->buffers[1].borrowed);
    assert_int_equal(c->buffers[1].data[3], 9);
    assert_string_equal(c->buffers[1].name, "out");
    c->buffers[1].data[3] = 1;
    assert_int_equal(dev->buffers[1].data[3], 9);
    mem_device_free(c);
    assert_int_equal(dev->buffers[0].data[7], 42);
    mem_device_free(dev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_and_translate),
        cmocka_unit_test(test_too_large),
        cmocka_unit_test(test_clone_and_own_pages),
        cmocka_unit_test(test_clone_sharing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
