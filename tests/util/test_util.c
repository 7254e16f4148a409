/*
 * test_util.c — the shared helpers of util/util.c: formatting, growable arrays, error
 * messages, file reading, path handling and populating pages.
 */
#include "test_util.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
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
    char big[sizeof err.message + 1000];
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

static void test_util_read_file(void **state)
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
    /* ...but read as text it is an error at its line and column */
    assert_null(util_read_text_file(path, &err));
    char want[128];
    snprintf(want, sizeof want, "%s:2:5: error: a NUL byte; expected text", path);
    assert_non_null(strstr(err.message, want));

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
    assert_string_equal(err.message, "/tmp: error: expected a regular file");
}

/* A JSON string from bytes that are not all UTF-8 (a Latin-1 name in a trace's header): the
 * bytes went out raw, and the JSON was invalid. */
static void test_json_string(void **state)
{
    (void)state;
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"a\"b\\c\n\x01", "\"a\\\"b\\\\c\\n\\u0001\""},
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""},
        {"caf\xe9", "\"caf\\ufffd\""},                   /* Latin-1 */
        {"\xc3", "\"\\ufffd\""},                           /* cut short */
        {"\xc0\xaf \xed\xa0\x80 \xff", "\"\\ufffd\\ufffd \\ufffd\\ufffd\\ufffd \\ufffd\""}, /* overlong, surrogate */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[256] = "";
        FILE *f = fmemopen(buf, sizeof buf - 1, "w");
        assert_non_null(f);
        util_json_string(f, cases[i].in);
        fclose(f);
        assert_string_equal(buf, cases[i].want);
    }
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

static long minor_faults(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

/* Whether this kernel takes MADV_POPULATE_WRITE, asked here apart from util_populate. */
static bool kernel_populates(void)
{
#if defined(__linux__)
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return false;
    bool ok = madvise(p, 4096, 23 /* MADV_POPULATE_WRITE */) == 0;
    munmap(p, 4096);
    return ok;
#else
    return false;
#endif
}

/* Faults taken by reading fresh zeroed memory of n bytes throughout and then writing a byte
 * of each page, with util_populate first or not; fails if a byte is not 0. The memory comes
 * straight from mmap: malloc may hand back pages it has touched already. */
static long faults_to_fill(size_t n, bool populate)
{
#if defined(__linux__)
    uint8_t *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    if (populate)
        util_populate(p, n);
    long before = minor_faults();
    size_t nonzero = 0;
    for (size_t i = 0; i < n; i++)
        nonzero += p[i] != 0;
    for (size_t i = 0; i < n; i += 4096)
        p[i] = 1;
    long faults = minor_faults() - before;
    munmap(p, n);
    assert_int_equal(nonzero, 0);
    return faults;
#else
    (void)n;
    (void)populate;
    return 0;
#endif
}

/* util_populate leaves every byte as it was, at any alignment and size (below the size it
 * acts on too), and pages it mapped take (nearly) no fault when read and written after: a
 * fresh 4 MB buffer takes over 1000 faults without it. Compared with the same work without
 * it, as a sanitizer's own shadow pages fault either way. */
static void test_populate(void **state)
{
    (void)state;
    const size_t n = 4u << 20;
    uint8_t *filled = util_malloc(n + 64);
    for (size_t i = 0; i < n + 64; i++)
        filled[i] = (uint8_t)(i * 7 + 3);
    util_populate(filled + 13, n - 29);     /* unaligned ends */
    util_populate(filled + 1, 100);         /* below UTIL_POPULATE_MIN: nothing */
    size_t changed = 0;
    for (size_t i = 0; i < n + 64; i++)
        changed += filled[i] != (uint8_t)(i * 7 + 3);
    free(filled);
    assert_int_equal(changed, 0);
    long plain = faults_to_fill(n, false), populated = faults_to_fill(n, true);
    print_message("populate: %ld faults filling 4 MB, %ld after util_populate\n", plain, populated);
#if defined(__SANITIZE_THREAD__)
    /* ThreadSanitizer's shadow of every page faults in on first touch, populated or not
     * (8190 of 10238 faults here): only the bytes are checked */
    const bool compare_faults = false;
#else
    const bool compare_faults = true;
#endif
    if (!compare_faults)
        print_message("populate: fault counts not compared under ThreadSanitizer\n");
    else if (kernel_populates())
        assert_true(populated * 4 < plain);
    else
        print_message("populate: this kernel has no MADV_POPULATE_WRITE (Linux 5.14)\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_fail),
        cmocka_unit_test(test_push),
        cmocka_unit_test(test_util_read_file),
        cmocka_unit_test(test_json_string),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_bits),
        cmocka_unit_test(test_populate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
