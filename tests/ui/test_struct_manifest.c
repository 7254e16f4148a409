/*
 * test_struct_manifest.c — a struct argument's `type:` in a launch manifest, run the way a
 * user runs it (`lockstep run` on a kernel and manifest written to a temporary directory):
 * the struct's name is accepted where an element type would be, and must be the kernel's
 * struct; a name that is not, or a struct name on a plain buffer, is refused at its line.
 * The tests run from the repository root and use $LOCKSTEP.
 */
#include "test_util.h"

#include <unistd.h>

static const char *kernel_text =
    "struct Params { uint n; float scale; };\n"
    "kernel void k(device float *y [[buffer(0)]], constant Params &p [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "  if (i < p.n) y[i] = float(i) * p.scale;\n"
    "}\n";

/* Runs `lockstep run` on a manifest whose args are `args`; returns its exit status. */
static int run(const char *dir, const char *args, char **out)
{
    char manifest[1024], cmd[256];
    snprintf(manifest, sizeof manifest,
             "kernel: k.metal\ngrid: [8]\nthreadgroup: [8]\nargs:\n%s", args);
    test_write_file(dir, "k.yaml", manifest);
    snprintf(cmd, sizeof cmd, "run %s/k.yaml --mode functional", dir);
    return test_lockstep(cmd, out);
}

static void test_struct_type_names(void **state)
{
    (void)state;
    char dir[] = "/tmp/lockstep-struct-XXXXXX";
    assert_non_null(mkdtemp(dir));
    test_write_file(dir, "k.metal", kernel_text);
    char *out = NULL;
    /* y[i] = i * 2.5 for i < 6, 0 past n */
    int status = run(dir, "  y: {count: 8, expect: [0, 2.5, 5, 7.5, 10, 12.5, 0, 0]}\n"
                          "  p: {type: Params, value: {n: 6, scale: 2.5}}\n", &out);
    if (status != 0 || !strstr(out, "ok (8 elements)"))
        fail_msg("exit %d:\n%s", status, out);
    free(out);
    status = run(dir, "  y: {count: 8}\n  p: {type: Parms, value: {n: 6, scale: 2.5}}\n", &out);
    if (status != 2 || !strstr(out, "k.yaml:6:13: error: expected type Params, the type of "
                                    "kernel argument 'p'"))
        fail_msg("exit %d:\n%s", status, out);
    free(out);
    status = run(dir, "  y: {type: Params, count: 8}\n  p: {value: {n: 6, scale: 2.5}}\n", &out);
    if (status != 2 || !strstr(out, "k.yaml:5:13: error: expected type float, the type of "
                                    "kernel argument 'y'"))
        fail_msg("exit %d:\n%s", status, out);
    free(out);
    status = run(dir, "  y: {type: 4floats, count: 8}\n  p: {value: {n: 6, scale: 2.5}}\n", &out);
    if (status != 2 || !strstr(out, "k.yaml:5:13: error: expected an element type") ||
        !strstr(out, "or the name of the kernel's struct"))
        fail_msg("exit %d:\n%s", status, out);
    free(out);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -r %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_struct_type_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
