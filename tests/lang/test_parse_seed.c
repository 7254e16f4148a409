/*
 * test_parse_seed.c — the seed kernels (/work/shared/kernels/seed, read from
 * ../shared/kernels/seed/ relative to the repository root) through the preprocessor and
 * parser: the valid ones parse and yield their kernel with the expected parameters and
 * threadgroup memory; the broken ones are refused with the precise diagnostics a compiler
 * would give; and no prefix of any seed file crashes the parser.
 */
#include "test_util.h"

#include "../../lang/lang_internal.h"

#define SEED "../shared/kernels/seed/"

typedef struct Parsed {
    UtilError err;
    LangOptions opts;
    LangCtx ctx;
    LangUnit *unit;
    LangFunction *kernel;
} Parsed;

/* Parses text named path (and finds its only kernel); ok tells whether both worked. */
static Parsed *parse_text(const char *text, const char *path, bool *ok)
{
    Parsed *r = calloc(1, sizeof *r);
    r->ctx.err = &r->err;
    r->ctx.opts = &r->opts;
    if (setjmp(r->ctx.bail) == 0) {
        LangFile *file = lang_add_file(&r->ctx, path, lang_strndup(&r->ctx, text, strlen(text)));
        LangToken *tok = lang_preprocess(&r->ctx, lang_tokenize(&r->ctx, file));
        r->unit = lang_parse(&r->ctx, tok);
        r->kernel = lang_find_kernel(&r->ctx, r->unit, NULL);
        *ok = true;
    } else {
        *ok = false;
    }
    return r;
}

static char *read_seed(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, SEED "%s.metal", name);
    UtilError err = {0};
    char *text = util_read_file(path, NULL, &err);
    if (!text)
        fail_msg("cannot read %s: %s", path, err.message);
    return text;
}

static Parsed *parse_seed(const char *name, bool *ok)
{
    char path[256];
    snprintf(path, sizeof path, SEED "%s.metal", name);
    char *text = read_seed(name);
    Parsed *r = parse_text(text, path, ok);
    free(text);
    return r;
}

static void parsed_free(Parsed *r)
{
    lang_ctx_free(&r->ctx);
    free(r);
}

static Parsed *expect_ok(const char *name, const char *kernel)
{
    bool ok;
    Parsed *r = parse_seed(name, &ok);
    if (!ok)
        fail_msg("%s refused:\n%s", name, r->err.message);
    assert_string_equal(r->kernel->name, kernel);
    assert_true(r->kernel->is_kernel);
    return r;
}

static void test_valid_seeds(void **state)
{
    (void)state;
    static const char *const seeds[][2] = {
        {"add_arrays", "add_arrays"},
        {"dot_product_fp16", "dot_product_fp16"},
        {"gemv_mixed_precision", "gemv_mixed_precision"},
        {"reduction_with_shared", "reduction_with_shared"},
        {"rmsnorm", "rmsnorm"},
        {"silu_activation", "silu_activation"},
        {"rope", "rope"},
        {"histogram", "histogram"},
        {"softmax", "softmax"},
        {"thread_id_demo", "thread_id_demo"},
        {"gemm", "gemm"},
        {"mlx_myexp", "custom_kernel_myexp_float"},
        {"mlx_grid_sample", "custom_kernel_grid_sample_float"},
        {"mlx_grid_sample_grad", "custom_kernel_grid_sample_grad_float"},
    };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++)
        parsed_free(expect_ok(seeds[i][0], seeds[i][1]));
}

static void test_seed_details(void **state)
{
    (void)state;
    /* threadgroup float shared[256] */
    Parsed *r = expect_ok("reduction_with_shared", "reduction_with_shared");
    assert_int_equal(r->kernel->tg_mem_bytes, 256 * 4);
    parsed_free(r);
    /* simd_sums[8] then rms_scale: 32 + 4 */
    r = expect_ok("rmsnorm", "rmsnorm");
    assert_int_equal(r->kernel->tg_mem_bytes, 36);
    assert_int_equal(r->unit->globals->kind, LVAR_FUNCTION_CONSTANT);
    parsed_free(r);
    /* simd_max_vals[8], simd_sum_vals[8], shared_max, shared_sum */
    r = expect_ok("softmax", "softmax");
    assert_int_equal(r->kernel->tg_mem_bytes, 72);
    parsed_free(r);
    r = expect_ok("histogram", "histogram");
    LangType *bins = r->kernel->params->next->type;
    assert_int_equal(bins->kind, LTY_POINTER);
    assert_int_equal(bins->space, LAS_DEVICE);
    assert_int_equal(bins->base->kind, LTY_ATOMIC);
    assert_int_equal(bins->base->base->kind, LTY_UINT);
    parsed_free(r);
    /* GEMMParams { uint M, N, K; float alpha; } is 16 bytes; gid is a uint2 */
    r = expect_ok("gemm", "gemm");
    LangVar *params = r->kernel->params->next->next->next;
    assert_true(params->type->is_reference);
    assert_int_equal(params->type->space, LAS_CONSTANT);
    assert_int_equal(params->type->base->size, 16);
    assert_int_equal(params->attr_index, 3);
    assert_int_equal(params->next->attr, LATTR_THREADGROUP_POSITION_IN_GRID);
    parsed_free(r);
    /* float16_t is half; T is float in the instance */
    r = expect_ok("mlx_myexp", "custom_kernel_myexp_float");
    LangType *inp = r->kernel->params->type;
    assert_int_equal(inp->base->kind, LTY_HALF);
    assert_true(inp->base->is_const);
    parsed_free(r);
    r = expect_ok("mlx_grid_sample_grad", "custom_kernel_grid_sample_grad_float");
    LangType *x_grad = r->kernel->params->next->next->next->next->next->type;
    assert_int_equal(x_grad->base->kind, LTY_ATOMIC);
    assert_int_equal(x_grad->base->base->kind, LTY_FLOAT);
    parsed_free(r);
}

/* The diagnostic lines (those naming the file) of a refused seed, joined with '|'. */
static void expect_refused(const char *name, const char *want)
{
    bool ok;
    Parsed *r = parse_seed(name, &ok);
    if (ok)
        fail_msg("%s was accepted", name);
    char got[4096] = "";
    for (const char *line = r->err.message; *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        if (strncmp(line, SEED, strlen(SEED)) == 0)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%.*s", *got ? "|" : "",
                     (int)n, line);
        line += n + (nl != NULL);
    }
    if (strcmp(got, want) != 0)
        fail_msg("%s:\nexpected: %s\n     got: %s", name, want, got);
    parsed_free(r);
}

static void test_refused_seeds(void **state)
{
    (void)state;
    expect_refused("softmax_simd", SEED "softmax_simd.metal:12:23: error: use of undeclared "
                   "identifier 'threads_per_threadgroup'");
    expect_refused("address_space_demo", SEED "address_space_demo.metal:6:14: error: unknown "
                   "type name 'Params'");
    expect_refused("linear_layer", SEED "linear_layer.metal:18:48: error: expected expression");
    /* `s` lives only in the first for; the atomic call has a plain int pointer and no
     * memory order; the file also ends without the kernel's closing brace. */
    expect_refused("spec_reduce",
                   SEED "spec_reduce.metal:32:18: error: use of undeclared identifier 's' ('s' declared "
                   "at line 17 is out of scope here: its block ended before this line)|"
                   SEED "spec_reduce.metal:36:38: error: missing memory order argument: "
                   "'atomic_fetch_add_explicit' takes 3 arguments, the last one a memory order "
                   "such as memory_order_relaxed|"
                   SEED "spec_reduce.metal:36:27: error: 'atomic_fetch_add_explicit' needs a "
                   "pointer to an atomic type (atomic_int, atomic_uint or atomic_float), not "
                   "'device int*'|"
                   SEED "spec_reduce.metal:37:1: error: expected '}' (to match the '{' at line "
                   "13)");
}

/* Every prefix of every seed file, cut at each line end: parsed or refused, never a crash. */
static void test_seed_prefixes(void **state)
{
    (void)state;
    static const char *const names[] = {
        "add_arrays", "address_space_demo", "dot_product_fp16", "gemm", "gemv_mixed_precision",
        "histogram", "linear_layer", "mlx_grid_sample", "mlx_grid_sample_grad", "mlx_myexp",
        "reduction_with_shared", "rmsnorm", "rope", "silu_activation", "softmax",
        "softmax_simd", "spec_reduce", "tensor_matmul_relu", "thread_id_demo",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *text = read_seed(names[i]);
        size_t n = strlen(text);
        for (size_t cut = 0; cut <= n; cut++) {
            if (cut < n && text[cut] != '\n' && text[cut] != '(' && text[cut] != ',')
                continue;
            char saved = text[cut];
            text[cut] = '\0';
            bool ok;
            Parsed *r = parse_text(text, "prefix.metal", &ok);
            if (!ok && !strstr(r->err.message, "error: "))
                fail_msg("%s cut at %zu: no diagnostic", names[i], cut);
            parsed_free(r);
            text[cut] = saved;
        }
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_seeds),
        cmocka_unit_test(test_seed_details),
        cmocka_unit_test(test_refused_seeds),
        cmocka_unit_test(test_seed_prefixes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
