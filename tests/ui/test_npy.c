/*
 * test_npy.c — .npy reading and writing: round trips of every dtype, files built byte by byte
 * from the format description (versions 1.0 and 2.0), and every lie a file can tell.
 */
#include "test_util.h"

#include <stdint.h>
#include <unistd.h>

#include "../../ui/npy.h"

/* A .npy image by hand: magic, version, little-endian header length, header text padded
 * with spaces to `pad_to` and a newline, then data. */
static size_t build(uint8_t *out, int major, const char *header, const void *data,
                    size_t data_len)
{
    size_t prefix = major == 1 ? 10 : 12;
    size_t hlen = strlen(header) + 1;
    size_t total = (prefix + hlen + 63) / 64 * 64;
    hlen = total - prefix;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (uint8_t)major;
    out[7] = 0;
    out[8] = (uint8_t)(hlen & 0xff);
    out[9] = (uint8_t)(hlen >> 8);
    if (major == 2) {
        out[10] = 0;
        out[11] = 0;
    }
    memset(out + prefix, ' ', hlen);
    memcpy(out + prefix, header, strlen(header));
    out[total - 1] = '\n';
    if (data_len)
        memcpy(out + total, data, data_len);
    return total + data_len;
}

static void test_hand_built_v1(void **state)
{
    (void)state;
    int32_t values[6] = {1, -2, 3, -4, 5, 2147483647};
    uint8_t buf[512];
    size_t n = build(buf, 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }",
                     values, sizeof values);
    UiNpyArray a;
    UtilError err;
    assert_true(ui_npy_parse(buf, n, "x.npy", 1u << 30, &a, &err));
    assert_int_equal(a.dtype, UI_NPY_I4);
    assert_int_equal(a.ndim, 2);
    assert_int_equal(a.shape[0], 2);
    assert_int_equal(a.shape[1], 3);
    assert_int_equal(a.count, 6);
    assert_int_equal(a.bytes, 24);
    assert_memory_equal(a.data, values, sizeof values);
    ui_npy_free(&a);
}

static void test_hand_built_v2_and_key_order(void **state)
{
    (void)state;
    uint16_t halves[3] = {0x3c00, 0xc000, 0x7e00};
    uint8_t buf[512];
    size_t n = build(buf, 2, "{\"shape\": (3,), \"fortran_order\": False, \"descr\": \"<f2\"}",
                     halves, sizeof halves);
    UiNpyArray a;
    UtilError err;
    assert_true(ui_npy_parse(buf, n, "h.npy", 1u << 30, &a, &err));
    assert_int_equal(a.dtype, UI_NPY_F2);
    assert_int_equal(a.ndim, 1);
    assert_int_equal(a.count, 3);
    assert_memory_equal(a.data, halves, sizeof halves);
    ui_npy_free(&a);
}

static void test_scalar_shape(void **state)
{
    (void)state;
    double v = 2.5;
    uint8_t buf[512];
    size_t n = build(buf, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", &v, 8);
    UiNpyArray a;
    UtilError err;
    assert_true(ui_npy_parse(buf, n, "s.npy", 1u << 30, &a, &err));
    assert_int_equal(a.ndim, 0);
    assert_int_equal(a.count, 1);
    ui_npy_free(&a);
}

static void test_round_trip_every_dtype(void **state)
{
    (void)state;
    for (int d = 0; d < UI_NPY_DTYPE_COUNT; d++) {
        uint8_t data[7 * 8];
        for (size_t i = 0; i < sizeof data; i++)
            data[i] = (uint8_t)(i * 37 + (size_t)d);
        if (d == UI_NPY_B1)
            for (size_t i = 0; i < sizeof data; i++)
                data[i] &= 1;
        uint64_t shape[1] = {7};
        size_t size;
        uint8_t *image = ui_npy_encode((UiNpyDtype)d, shape, 1, data, &size);
        /* NumPy's layout: data starts 64-byte aligned, the header ends in a newline. */
        size_t data_off = size - 7 * ui_npy_itemsize((UiNpyDtype)d);
        assert_int_equal(data_off % 64, 0);
        assert_int_equal(image[data_off - 1], '\n');
        assert_int_equal(image[6], 1);
        UiNpyArray a;
        UtilError err;
        assert_true(ui_npy_parse(image, size, "r.npy", 1u << 30, &a, &err));
        assert_int_equal(a.dtype, d);
        assert_int_equal(a.count, 7);
        assert_memory_equal(a.data, data, 7 * ui_npy_itemsize((UiNpyDtype)d));
        ui_npy_free(&a);
        free(image);
    }
}

static void test_write_read_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/lockstep-npy-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/m.npy", dir);
    float m[2][2] = {{1, 2}, {3, 4.5f}};
    uint64_t shape[2] = {2, 2};
    UtilError err;
    assert_true(ui_npy_write(path, UI_NPY_F4, shape, 2, m, &err));
    UiNpyArray a;
    assert_true(ui_npy_read(path, 1u << 30, &a, &err));
    assert_int_equal(a.ndim, 2);
    assert_int_equal(a.shape[1], 2);
    assert_memory_equal(a.data, m, sizeof m);
    ui_npy_free(&a);
    unlink(path);
    rmdir(dir);
}

/* Each malformed image must be refused with a message naming the file and the problem. */
static void expect_refused(const uint8_t *buf, size_t n, const char *needle)
{
    UiNpyArray a;
    UtilError err;
    bool ok = ui_npy_parse(buf, n, "bad.npy", 1u << 30, &a, &err);
    if (ok)
        ui_npy_free(&a);
    assert_false(ok);
    assert_non_null(strstr(err.message, "bad.npy: error: "));
    if (!strstr(err.message, needle))
        fail_msg("message '%s' lacks '%s'", err.message, needle);
}

static void test_refusals(void **state)
{
    (void)state;
    uint8_t buf[1024], data[64] = {0};
    size_t n;
    expect_refused((const uint8_t *)"hello world, not npy", 20, "not a .npy file");
    expect_refused((const uint8_t *)"\x93NUMPY\x01", 7, "truncated");
    n = build(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", data, 16);
    buf[6] = 3;
    expect_refused(buf, n, "version 3.0");
    n = build(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", data, 16);
    expect_refused(buf, 40, "truncated .npy header");
    expect_refused(buf, n - 1, "truncated .npy data");
    n = build(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", data, 20);
    expect_refused(buf, n, "does not match");
    n = build(buf, 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", data, 16);
    expect_refused(buf, n, "Fortran");
    n = build(buf, 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", data, 16);
    expect_refused(buf, n, "big-endian");
    n = build(buf, 1, "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", data, 16);
    expect_refused(buf, n, "unsupported dtype '<c8'");
    n = build(buf, 1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }",
              data, 8);
    expect_refused(buf, n, "structured");
    n = build(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }",
              data, 0);
    expect_refused(buf, n, "1024 MiB");
    n = build(buf, 1, "{'descr': '<f8', 'fortran_order': False, "
                      "'shape': (4294967296, 4294967296, 4294967296), }", data, 0);
    expect_refused(buf, n, "larger than");
    n = build(buf, 1, "{'descr': '<f4', 'shape': (4,), }", data, 16);
    expect_refused(buf, n, "'fortran_order' is missing");
    n = build(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'x': 1}", data, 16);
    expect_refused(buf, n, "unexpected key 'x'");
    n = build(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }", data, 16);
    expect_refused(buf, n, "shape");
    n = build(buf, 1, "not a dict", data, 16);
    expect_refused(buf, n, "dict");
    /* A key given twice: Python keeps the last, so the file says two things. */
    n = build(buf, 1, "{'descr': '<f4', 'descr': '<i4', 'fortran_order': False, 'shape': (4,), }",
              data, 16);
    expect_refused(buf, n, "bad .npy header: the key 'descr' is given twice");
    n = build(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'shape': (4,)}",
              data, 16);
    expect_refused(buf, n, "the key 'shape' is given twice");
    /* A bool is the byte 0 or 1. */
    uint8_t bools[8] = {0, 1, 1, 0, 0, 0, 0, 2};
    n = build(buf, 1, "{'descr': '|b1', 'fortran_order': False, 'shape': (8,), }", bools, 8);
    expect_refused(buf, n, "element 7 of the |b1 data is the byte 2; expected 0 (False) or 1 "
                           "(True)");
    bools[7] = 255;
    bools[2] = 3;
    n = build(buf, 1, "{'descr': '<b1', 'fortran_order': False, 'shape': (8,), }", bools, 8);
    expect_refused(buf, n, "element 2 of the |b1 data is the byte 3");
}

static void test_read_missing_and_huge_files(void **state)
{
    (void)state;
    UiNpyArray a;
    UtilError err;
    assert_false(ui_npy_read("/nonexistent/dir/x.npy", 1u << 30, &a, &err));
    assert_non_null(strstr(err.message, "/nonexistent/dir/x.npy: error: cannot open"));
    /* A header claiming a huge array is refused before any data is read or allocated. */
    char dir[] = "/tmp/lockstep-npy-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/huge.npy", dir);
    uint8_t buf[256];
    size_t n = build(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1073741824,), }",
                     NULL, 0);
    FILE *f = fopen(path, "wb");
    fwrite(buf, 1, n, f);
    fclose(f);
    assert_false(ui_npy_read(path, 1u << 30, &a, &err));
    assert_non_null(strstr(err.message, "huge.npy: error: "));
    assert_non_null(strstr(err.message, "larger than"));
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_built_v1),
        cmocka_unit_test(test_hand_built_v2_and_key_order),
        cmocka_unit_test(test_scalar_shape),
        cmocka_unit_test(test_round_trip_every_dtype),
        cmocka_unit_test(test_write_read_file),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_read_missing_and_huge_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
