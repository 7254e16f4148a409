/*
 * test_compile_cli.c — `lockstep compile`: for every kernel in kernels/ and every seed kernel
 * that compiles without function constants, the printed assembly carries source-line
 * annotations and assembles back to the same instructions the compiler produced (its notes of
 * variables declared without a value are comments); bad usage and compile errors exit 2
 * with a message.
 */
#include "test_util.h"

#include <dirent.h>
#include <unistd.h>

#include "../../isa/isa.h"
#include "../../lang/lang.h"

static int checked;

static void check_kernel(const char *path)
{
    UtilError err;
    IsaProgram *direct = lang_compile_file(path, NULL, NULL, &err);
    if (!direct)
        return; /* needs function constants, or is one of the seed kernels meant to be refused */
    char out[] = "/tmp/lockstep-compile-XXXXXX";
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    char args[2048];
    snprintf(args, sizeof args, "compile %s -o %s", path, out);
    char *output = NULL;
    int status = test_lockstep(args, &output);
    if (status != 0)
        fail_msg("lockstep %s exited %d: %s", args, status, output);
    free(output);
    size_t size;
    char *text = util_read_file(out, &size, &err);
    assert_non_null(text);
    if (!strstr(text, ".metal:"))
        fail_msg("%s: the assembly has no source-line annotations", path);
    IsaProgram *back = isa_assemble(text, out, &err);
    if (!back)
        fail_msg("%s: lockstep compile's output does not assemble: %s", path, err.message);
    assert_int_equal(back->count, direct->count);
    assert_int_equal(back->num_regs, direct->num_regs);
    assert_int_equal(back->num_args, direct->num_args);
    for (uint32_t i = 0; i < direct->count; i++) {
        const IsaInst *a = &direct->code[i], *b = &back->code[i];
        if (a->op != b->op || a->cond != b->cond || a->type != b->type || a->count != b->count ||
            a->pc != b->pc)
            fail_msg("%s: instruction %u differs after assembling back (%s vs %s)", path, i,
                     isa_ops[a->op].name, isa_ops[b->op].name);
        for (int k = 0; k < ISA_MAX_OPERANDS; k++)
            if (a->opd[k].kind != b->opd[k].kind || a->opd[k].index != b->opd[k].index ||
                a->opd[k].imm != b->opd[k].imm || a->opd[k].flags != b->opd[k].flags)
                fail_msg("%s: operand %d of instruction %u (%s) differs after assembling back",
                         path, k, i, isa_ops[a->op].name);
    }
    isa_program_free(back);
    isa_program_free(direct);
    free(text);
    unlink(out);
    checked++;
}

static void walk(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t n = strlen(e->d_name);
        if (n > 6 && strcmp(e->d_name + n - 6, ".metal") == 0)
            check_kernel(path);
        else if (!strchr(e->d_name, '.'))
            walk(path);
    }
    closedir(d);
}

static void test_compiled_kernels_assemble_back(void **state)
{
    (void)state;
    walk("kernels");
    walk("../shared/kernels/seed");
    assert_true(checked >= 10);
}

static void test_function_constants_and_entry(void **state)
{
    (void)state;
    char *out = NULL;
    int status = test_lockstep("compile ../shared/kernels/seed/softmax.metal -D COLS=1024", &out);
    if (status != 0)
        fail_msg("softmax with -D COLS=1024 exited %d: %s", status, out);
    assert_non_null(strstr(out, ".kernel softmax"));
    free(out);
    status = test_lockstep("compile ../shared/kernels/seed/softmax.metal", &out);
    assert_int_equal(status, 2);
    assert_non_null(strstr(out, "COLS"));
    free(out);
    /* the seed softmax's `float row_max;` keeps its register from its declaration, shown */
    status = test_lockstep("compile ../shared/kernels/seed/softmax.metal -D COLS=1024", &out);
    assert_int_equal(status, 0);
    if (!strstr(out, ": `row_max` (line 35) holds no value yet\n"))
        fail_msg("no note of row_max's declaration without a value:\n%s", out);
    free(out);
    status = test_lockstep("compile ../shared/kernels/seed/add_arrays.metal --entry nosuch", &out);
    assert_int_equal(status, 2);
    assert_non_null(strstr(out, "add_arrays"));
    free(out);
}

/* Source comments on code inlined from a helper name the call it came from. */
static void test_inlined_code_names_its_call(void **state)
{
    (void)state;
    char *out = NULL;
    int status = test_lockstep("compile kernels/ml/softmax.metal", &out);
    assert_int_equal(status, 0);
    uint32_t helper = test_line_of("kernels/ml/softmax.metal", "scratch[simd_group] = v;");
    uint32_t call = test_line_of("kernels/ml/softmax.metal", "m = threadgroup_max(m, scratch");
    char want[200];
    snprintf(want, sizeof want, "softmax.metal:%u: scratch[simd_group] = v; (in threadgroup_max, "
             "called at line %u)\n", helper, call);
    if (!strstr(out, want))
        fail_msg("no \"%s\" in:\n%s", want, out);
    free(out);
}

/* A value given for a function constant must name one and fit its type: -1 for a uint,
 * 99999999999 (which wrapped), 2 for a bool, 1e39 for a float and 100000 for a half were
 * taken as other values, and a name the kernel lacks was ignored. */
static void test_function_constant_values_checked(void **state)
{
    (void)state;
    char dir[] = "/tmp/lockstep-fc-XXXXXX", path[128], args[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/fc.metal", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("constant uint N [[function_constant(0)]];\n"
          "constant float F [[function_constant(1)]];\n"
          "constant bool B [[function_constant(2)]];\n"
          "constant half H [[function_constant(3)]];\n"
          "kernel void k(device float *a [[buffer(0)]]) { a[0] = N + F + (B ? 1 : 0) + H; }\n", f);
    fclose(f);
    static const struct {
        const char *defs, *want;
    } cases[] = {
        {"-D N=-1 -D F=1 -D B=1 -D H=1", "fc.metal:1:15: error: function constant 'N' is a uint: the value -1"},
        {"-D N=99999999999 -D F=1 -D B=1 -D H=1", "the value 99999999999 given for it"},
        {"-D N=1.5 -D F=1 -D B=1 -D H=1", "'N' is a uint: the value 1.5"},
        {"-D N=1 -D F=1e39 -D B=1 -D H=1", "fc.metal:2:16: error: function constant 'F' is a float: the value 1e+39"},
        {"-D N=1 -D F=1 -D B=2 -D H=1", "'B' is a bool: the value 2 given for it (constants: or -D) does not fit (0 or 1)"},
        {"-D N=1 -D F=1 -D B=1 -D H=100000", "'H' is a half: the value 100000"},
        {"-D N=1 -D F=1 -D B=1 -D H=1 -D Q=3", "a value is given for 'Q', which is no function constant of this file (its function constants: N, F, B, H)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out = NULL;
        snprintf(args, sizeof args, "compile %s %s", path, cases[i].defs);
        int status = test_lockstep(args, &out);
        if (status != 2 || !strstr(out, cases[i].want))
            fail_msg("`lockstep %s` exited %d without \"%s\":\n%s", args, status, cases[i].want, out);
        free(out);
    }
    /* the edges fit: FLT_MAX as usually written (a little above it as a double), a half
     * that rounds to 65504, and every long and ulong (exact, not through a double) */
    char *out = NULL;
    snprintf(args, sizeof args, "compile %s -D N=4294967295 -D F=3.4028235e38 -D B=0 -D H=-65519", path);
    int status = test_lockstep(args, &out);
    if (status != 0)
        fail_msg("`lockstep %s` exited %d:\n%s", args, status, out);
    free(out);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("constant long L [[function_constant(0)]];\n"
          "constant ulong U [[function_constant(1)]];\n"
          "kernel void k(device ulong *a [[buffer(0)]]) { a[0] = ulong(L); a[1] = U; }\n", f);
    fclose(f);
    snprintf(args, sizeof args, "compile %s -D L=-9223372036854775808 -D U=18446744073709551615", path);
    status = test_lockstep(args, &out);
    if (status != 0 || !strstr(out, "0x8000000000000000") || !strstr(out, "0xffffffffffffffff"))
        fail_msg("`lockstep %s` exited %d:\n%s", args, status, out);
    free(out);
    snprintf(args, sizeof args, "compile %s -D L=9223372036854775808 -D U=1", path);
    status = test_lockstep(args, &out);
    if (status != 2 || !strstr(out, "'L' is a long: the value 9223372036854775808 given"))
        fail_msg("`lockstep %s` exited %d:\n%s", args, status, out);
    free(out);
    unlink(path);
    rmdir(dir);
}

static void test_bad_usage(void **state)
{
    (void)state;
    char *out = NULL;
    assert_int_equal(test_lockstep("compile", &out), 2);
    assert_non_null(strstr(out, "usage: lockstep compile"));
    free(out);
    assert_int_equal(test_lockstep("compile nothere.metal", &out), 2);
    assert_non_null(strstr(out, "nothere.metal"));
    free(out);
    assert_int_equal(test_lockstep("compile kernels/basics/vector_add.metal --bogus", &out), 2);
    free(out);
    assert_int_equal(test_lockstep("compile --help", &out), 0);
    assert_non_null(strstr(out, "-o FILE"));
    free(out);
    assert_int_equal(test_lockstep("compile kernels/asm/divergent_if.s", &out), 2);
    assert_non_null(strstr(out, "is assembly, which needs no compiling"));
    free(out);
}

/* -o naming the source (by another path too) is refused, and the source is left as it was:
 * the assembly once replaced it. */
static void test_output_over_source(void **state)
{
    (void)state;
    char dir[] = "/tmp/lockstep-compile-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char src[256], cmd[1024], *out = NULL;
    snprintf(src, sizeof src, "%s/k.metal", dir);
    FILE *f = fopen(src, "w");
    assert_non_null(f);
    const char *text = "kernel void k(device float *a [[buffer(0)]]) { a[0] = 1.0f; }\n";
    fputs(text, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "compile %s -o %s/./k.metal", src, dir);
    assert_int_equal(test_lockstep(cmd, &out), 2);
    assert_non_null(strstr(out, "is the kernel being compiled"));
    free(out);
    size_t size = 0;
    UtilError err;
    char *now = util_read_file(src, &size, &err);
    assert_non_null(now);
    assert_string_equal(now, text);
    free(now);
    snprintf(cmd, sizeof cmd, "compile %s -o %s/k.s", src, dir); /* elsewhere: fine */
    assert_int_equal(test_lockstep(cmd, &out), 0);
    free(out);
    snprintf(cmd, sizeof cmd, "rm -r %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compiled_kernels_assemble_back),
        cmocka_unit_test(test_function_constants_and_entry),
        cmocka_unit_test(test_bad_usage),
        cmocka_unit_test(test_inlined_code_names_its_call),
        cmocka_unit_test(test_function_constant_values_checked),
        cmocka_unit_test(test_output_over_source),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
