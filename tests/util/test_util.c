/*
 * test_util.c — the shared helpers of util/util.c: formatting, growable arrays, error
 * messages, file reading and path handling.
 */
#include "test_util.h"

#include <fcntl.h>
#include <unistd.h>

#include "../../util/util.h"

static void test_format(void **state)
{
    (void)state;
    char *s = util_format("%s:%d:%d: %s", "k.s", 3, 7, "error");
    assert_string_equal(s, "k.s:3:7: error");
    free(s);
    s = util_format("%s", "");
    assert_string_equal(s, "");
    free(s);
    /* Longer than any small internal buffer. */
    s = util_format("%0*d", 5000, 1);
    assert_int_equal(strlen(s), 5000);
    assert_int_equal(s[4999], '1');
    assert_int_equal(s[0], '0');
    free(s);
    s = util_strndup("abcdef", 3);
    assert_string_equal(s, "abc");
    free(s);
}

static void test_fail(void **state)
{
    (void)state;
    UtilError err = {{0}};
    assert_false(util_fail(&err, "%s: error: %s", "a.yaml", "bad"));
    assert_string_equal(err.message, "a.yaml: error: bad");
    assert_false(util_fail(NULL, "ignored %d", 1)); /* a NULL error is allowed */
    /* Overlong messages are cut, still terminated. */
    char big[2000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    util_fail(&err, "%s", big);
    assert_int_equal(strlen(err.message), sizeof err.message - 1);
}

static void test_push(void **state)
{
    (void)state;
    int *items = NULL;
    size_t count = 0, capacity = 0;
    for (int i = 0; i < 1000; i++)
        UTIL_PUSH(items, count, capacity, i * 3);
    assert_int_equal(count, 1000);
    assert_true(capacity >= 1000);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(items[i], i * 3);
    free(items);

    double *d = NULL;
    size_t cap = 0;
    util_reserve((void **)&d, &cap, 3, sizeof *d);
    assert_true(cap >= 3);
    size_t before = cap;
    util_reserve((void **)&d, &cap, 2, sizeof *d); /* no shrinking, no change */
    assert_int_equal(cap, before);
    d[0] = d[1] = d[2] = 1.5;
    util_reserve((void **)&d, &cap, 100, sizeof *d);
    assert_true(cap >= 100);
    assert_true(d[2] == 1.5); /* contents survive growth */
    free(d);
}

static void test_read_file(void **state)
{
    (void)state;
    UtilError err = {{0}};
    size_t size = 123;
    assert_null(util_read_file("/nonexistent/dir/k.yaml", &size, &err));
    assert_string_equal(err.message,
                        "/nonexistent/dir/k.yaml: error: cannot open: No such file or directory");

    char path[] = "/tmp/lockstep-test-util-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char text[] = "line one\nline\0two\n"; /* an embedded NUL is kept */
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    char *buf = util_read_file(path, &size, &err);
    assert_non_null(buf);
    assert_int_equal(size, sizeof text - 1);
    assert_memory_equal(buf, text, sizeof text - 1);
    assert_int_equal(buf[size], '\0');
    free(buf);

    /* Empty file: an empty, terminated buffer. */
    fd = open(path, O_WRONLY | O_TRUNC);
    close(fd);
    buf = util_read_file(path, &size, &err);
    assert_non_null(buf);
    assert_int_equal(size, 0);
    assert_int_equal(buf[0], '\0');
    free(buf);
    unlink(path);

    assert_null(util_read_file("/tmp", &size, &err));
    assert_string_equal(err.message, "/tmp: error: cannot read (is it a directory?)");
}

static void test_paths(void **state)
{
    (void)state;
    static const struct { const char *path, *dir; } dirs[] = {
        {"a/b/c.yaml", "a/b"}, {"c.yaml", "."}, {"/c.yaml", "/"}, {"/x/y", "/x"}, {"", "."},
    };
    for (size_t i = 0; i < UTIL_ARRAY_LEN(dirs); i++) {
        char *d = util_dirname(dirs[i].path);
        assert_string_equal(d, dirs[i].dir);
        free(d);
    }
    static const struct { const char *base, *rel, *joined; } joins[] = {
        {"kernels", "k.s", "kernels/k.s"},
        {"a/b", "../c", "a/b/../c"},
        {"kernels", "/abs/k.s", "/abs/k.s"},
        {"", "k.s", "k.s"},
        {NULL, "k.s", "k.s"},
        {".", "k.s", "./k.s"},
    };
    for (size_t i = 0; i < UTIL_ARRAY_LEN(joins); i++) {
        char *j = util_path_join(joins[i].base, joins[i].rel);
        assert_string_equal(j, joins[i].joined);
        free(j);
    }
}

static void test_bits(void **state)
{
    (void)state;
    assert_int_equal(util_popcount32(0), 0);
    assert_int_equal(util_popcount32(0xffffffffu), 32);
    assert_int_equal(util_popcount32(0x80000101u), 3);
    assert_int_equal(util_f32_bits(1.0f), 0x3f800000u);
    assert_true(util_bits_f32(0xc0000000u) == -2.0f);
    assert_int_equal(util_f64_bits(1.0), UINT64_C(0x3ff0000000000000));
    assert_true(util_bits_f64(UINT64_C(0x4008000000000000)) == 3.0);
    assert_int_equal(UTIL_MIN(3, -2), -2);
    assert_int_equal(UTIL_MAX(3u, 9u), 9u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_fail),
        cmocka_unit_test(test_push),
        cmocka_unit_test(test_read_file),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
