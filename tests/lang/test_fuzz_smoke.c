/*
 * test_fuzz_smoke.c — a short, deterministic fuzz run of the compiler: every kernel in
 * kernels/, fuzz/seeds/ and ../shared/kernels/seed/, cut, spliced and bit-flipped a few dozen ways each by
 * a seeded generator, must compile or fail with a diagnostic that names the file — never
 * crash. Under `make asan` this also catches memory errors. `make fuzz` runs the real fuzzer
 * (fuzz/fuzz_compile.c, libFuzzer) for longer.
 */
#include "test_util.h"


#include "../../lang/lang.h"

#define MAX_SEEDS 128
#define MUTATIONS_PER_SEED 300

static char *seeds[MAX_SEEDS];
static size_t seed_sizes[MAX_SEEDS];
static int num_seeds;

/* Every .metal file under kernels/ and the seed folder (in name order) */
static bool add_seed(const char *path, const char *name)
{
    size_t n = strlen(name);
    if (n > 6 && strcmp(name + n - 6, ".metal") == 0) {
        UtilError err;
        size_t size;
        char *text = util_read_file(path, &size, &err);
        if (text) {
            seeds[num_seeds] = text;
            seed_sizes[num_seeds++] = size;
        }
    }
    return num_seeds < MAX_SEEDS;
}

/* One mutation of seed text into out (NUL-terminated). */
static void mutate(uint64_t *rng, const char *seed, size_t size, char *out, size_t cap)
{
    size_t len = size < cap - 1 ? size : cap - 1;
    memcpy(out, seed, len);
    int edits = 1 + (int)(test_rng_next(rng) % 4);
    static const char *const snippets[] = {
        "(", ")", "{", "}", "[[", "]]", ";", "#define X(", "#if 1\n", "#endif\n", "\"", "/*",
        "<", ">", "::", "template <typename T>", "threadgroup", "device", "->", ".xyzw", "0x",
        "1e99", "'", "\\", "#include \"nothere.h\"\n", "for(;;)", "return", "simd_sum(", "...",
        "[[buffer(0)]]", "half4(", "as_type<uint>(", "break;", "continue;", "switch (x) {",
    };
    for (int k = 0; k < edits && len > 0; k++) {
        size_t at = (size_t)(test_rng_next(rng) % len);
        switch (test_rng_next(rng) % 4) {
        case 0: /* truncate */
            len = at;
            break;
        case 1: /* flip a byte */
            out[at] = (char)(test_rng_next(rng) & 0xff);
            if (out[at] == '\0')
                out[at] = '@';
            break;
        case 2: { /* delete a run */
            size_t n = 1 + (size_t)(test_rng_next(rng) % 16);
            if (at + n > len)
                n = len - at;
            memmove(out + at, out + at + n, len - at - n);
            len -= n;
            break;
        }
        default: { /* insert a snippet */
            const char *s = snippets[test_rng_next(rng) % (sizeof snippets / sizeof *snippets)];
            size_t n = strlen(s);
            if (len + n >= cap - 1)
                break;
            memmove(out + at + n, out + at, len - at);
            memcpy(out + at, s, n);
            len += n;
            break;
        }
        }
    }
    out[len] = '\0';
}

static void test_mutated_kernels_never_crash(void **state)
{
    (void)state;
    test_walk_files("kernels", add_seed);
    test_walk_files("fuzz/seeds", add_seed);
    test_walk_files("../shared/kernels/seed", add_seed);
    assert_true(num_seeds > 0);
    uint64_t rng = 12345;
    static char buf[1 << 17];
    int compiled = 0, refused = 0;
    for (int s = 0; s < num_seeds; s++) {
        for (int m = 0; m < MUTATIONS_PER_SEED; m++) {
            mutate(&rng, seeds[s], seed_sizes[s], buf, sizeof buf);
            UtilError err;
            err.message[0] = '\0';
            IsaProgram *p = lang_compile_source(buf, "mutant.metal", NULL, NULL, &err);
            if (p) {
                compiled++;
                char *text = isa_disassemble(p, false);
                free(text);
                isa_program_free(p);
            } else {
                refused++;
                if (strncmp(err.message, "mutant.metal", 12) != 0)
                    fail_msg("a refused kernel's message does not name the file: %s", err.message);
            }
        }
    }
    print_message("fuzz smoke: %d seeds, %d mutants compiled, %d refused\n", num_seeds, compiled,
                  refused);
    for (int s = 0; s < num_seeds; s++)
        free(seeds[s]);
}

/* Found by the fuzzer: thousands of nested parentheses and unary operators overflowed the
 * stack of a sanitizer build. They must end in a diagnostic. */
static void test_deep_nesting_is_a_diagnostic(void **state)
{
    (void)state;
    static const char *const shapes[] = {"(", "-(", "!", "~(", "{"};
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        size_t n = 20000, unit = strlen(shapes[k]);
        char *text = malloc(64 + n * unit);
        char *p = text + sprintf(text, "kernel void k(device int *a [[buffer(0)]]) { a[0] = ");
        if (shapes[k][0] == '{')
            p = text + sprintf(text, "kernel void k(device int *a [[buffer(0)]]) ");
        for (size_t i = 0; i < n; i++, p += unit)
            memcpy(p, shapes[k], unit);
        *p = '\0';
        UtilError err;
        IsaProgram *prog = lang_compile_source(text, "deep.metal", NULL, NULL, &err);
        assert_null(prog);
        assert_non_null(strstr(err.message, "deep.metal:1:"));
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deep_nesting_is_a_diagnostic),
        cmocka_unit_test(test_mutated_kernels_never_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
