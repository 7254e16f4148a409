/*
 * test_review.c — regressions from the pre-release review of the compiler's front end and
 * backend and from fuzzing it: each test pins one bug that was found and fixed (what went
 * wrong is said above the test), with expected values from C reasoning written here.
 * Leaks are checked by the heap in use before and after a compile (glibc's mallinfo2), so
 * they fail here and not only under valgrind or LeakSanitizer.
 */
#include "construct_harness.h"

#include <malloc.h>

static size_t heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

/* Compiles src, which must fail with a message containing want, and leak nothing. */
static void expect_error_no_leak(const char *src, const char *want)
{
    UtilError err = {{0}};
    /* a first compile warms up whatever the C library allocates once */
    IsaProgram *p = lang_compile_source(src, "k.metal", NULL, NULL, &err);
    assert_null(p);
    size_t before = heap_in_use();
    p = lang_compile_source(src, "k.metal", NULL, NULL, &err);
    size_t after = heap_in_use();
    assert_null(p);
    if (!strstr(err.message, want))
        fail_msg("message \"%s\" lacks \"%s\"", err.message, want);
    if (after != before)
        fail_msg("%zu bytes leaked by a failed compile of:\n%s", after - before, src);
}

/* ---- preprocessor --------------------------------------------------------------------------- */

/* #pragma once kept its list of files in util_malloc memory freed only at the end of a
 * successful run: any error after a #pragma once leaked it. */
static void test_pragma_once_then_error_no_leak(void **state)
{
    (void)state;
    expect_error_no_leak("#pragma once\n#error stop here\n", "k.metal:2:2: error: #error stop here");
}

/* #include read any path to its end: "/dev/zero" ran out of memory and "/dev/stdin" waited
 * for input forever. Only regular files are read. */
static void test_include_device_file_refused(void **state)
{
    (void)state;
    ch_expect_error("#include \"/dev/zero\"\n", NULL,
                    "k.metal:1:10: error: cannot include '/dev/zero': not a regular file");
    ch_expect_error("#include \"/dev/stdin\"\n", NULL, "not a regular file");
    ch_expect_error("#include \"/tmp\"\n", NULL, "not a regular file");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pragma_once_then_error_no_leak),
        cmocka_unit_test(test_include_device_file_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
