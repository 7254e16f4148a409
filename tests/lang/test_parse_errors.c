/*
 * test_parse_errors.c — the parser's diagnostics: each semantic or syntax error's text and
 * its file:line:col (columns counted by hand in the test programs), several soft errors
 * reported by one run, and refusals of what lockstep does not support yet.
 */
#include "test_util.h"

#include "../../lang/lang_internal.h"

/* Parses text as "t.metal"; returns the error message (static) or NULL if it parsed. */
static const char *parse_error(const char *text)
{
    static UtilError err;
    LangOptions opts = {0};
    LangCtx ctx = {.err = &err, .opts = &opts};
    const char *volatile result = NULL;
    memset(&err, 0, sizeof err);
    if (setjmp(ctx.bail) == 0) {
        LangFile *file = lang_add_file(&ctx, "t.metal", lang_strndup(&ctx, text, strlen(text)));
        lang_parse(&ctx, lang_preprocess(&ctx, lang_tokenize(&ctx, file)));
    } else {
        result = err.message;
    }
    lang_ctx_free(&ctx);
    return result;
}

/* The error's lines starting with "t.metal:" (the diagnostics, without source and caret),
 * joined with '|'. */
static void expect_errors(const char *text, const char *want)
{
    const char *msg = parse_error(text);
    if (!msg)
        fail_msg("accepted: %s", text);
    char got[2048] = "";
    for (const char *line = msg; *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        if (strncmp(line, "t.metal:", 8) == 0 || strncmp(line, "error:", 6) == 0)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%.*s", *got ? "|" : "",
                     (int)n, line);
        line += n + (nl != NULL);
    }
    if (strcmp(got, want) != 0)
        fail_msg("for:\n%s\nexpected: %s\n     got: %s", text, want, got);
}

#define K "kernel void k(device float *a [[buffer(0)]], uint i [[thread_position_in_grid]]) "
/* 81 characters: the body's "{" is at column 82, its first statement at column 84. */

static void test_syntax(void **state)
{
    (void)state;
    /* "expected ';'" points just after the previous token */
    expect_errors(K "{ a[i] = 1 }", "t.metal:1:92: error: expected ';'");
    expect_errors(K "{ float x = ; }", "t.metal:1:94: error: expected expression");
    expect_errors(K "{ float x = 1 +; }", "t.metal:1:97: error: expected expression");
    expect_errors(K "{ if (i) { a[0] = 1; }", "t.metal:1:104: error: expected '}' (to match the "
                  "'{' at line 1)");
    expect_errors("kernel void k(device float *a [[buffer(0)]]) { a[0] = 1; } }",
                  "t.metal:1:60: error: expected a declaration");
}

static void test_names(void **state)
{
    (void)state;
    expect_errors(K "{ a[i] = b; }", "t.metal:1:91: error: use of undeclared identifier 'b'");
    expect_errors(K "{ Foo x = 1; }", "t.metal:1:84: error: unknown type name 'Foo'");
    expect_errors("kernel void k(constant Params &p [[buffer(0)]]) {}",
                  "t.metal:1:24: error: unknown type name 'Params'");
    /* a name lives until the end of its block */
    expect_errors(K "{ for (int j = 0; j < 2; j++) {} a[j] = 1; }",
                  "t.metal:1:117: error: use of undeclared identifier 'j' ('j' declared at line 1 is "
                  "out of scope here: its block ended before this line)");
    expect_errors(K "{ { float t = 1; } a[i] = t; }",
                  "t.metal:1:108: error: use of undeclared identifier 't' ('t' declared at line 1 is "
                  "out of scope here: its block ended before this line)");
}

static void test_types(void **state)
{
    (void)state;
    expect_errors(K "{ float4 v = 1; half4 h = v; }",
                  "t.metal:1:108: error: cannot convert 'float4' to 'half4'");
    expect_errors(K "{ float4 v = float4(1, 2, 3); }",
                  "t.metal:1:95: error: a 'float4' constructor needs 4 components, not 3");
    expect_errors(K "{ int x = a; }", "t.metal:1:92: error: cannot convert 'device float*' to "
                  "'int'");
    expect_errors(K "{ uint u = as_type<uint>(half(1)); }",
                  "t.metal:1:93: error: as_type<uint> of 'half': the sizes differ (4 and 2 "
                  "bytes)");
    expect_errors(K "{ float4 v; v.xq = 1; }",
                  "t.metal:1:96: error: invalid swizzle 'xq' on 'float4' (use x y z w or r g b "
                  "a)");
    expect_errors(K "{ float3 v; float w = v.w; }",
                  "t.metal:1:106: error: swizzle component 'w' is out of range for 'float3'");
    expect_errors("kernel void k(float t [[thread_position_in_grid]]) {}",
                  "t.metal:1:21: error: type 'float' is not valid for [[thread_position_in_grid]]"
                  " (use uint, uint2, uint3, ushort, ushort2 or ushort3)");
    expect_errors("kernel void k(uint2 t [[simdgroup_index_in_threadgroup]]) {}",
                  "t.metal:1:21: error: type 'uint2' is not valid for "
                  "[[simdgroup_index_in_threadgroup]] (use uint or ushort)");
    expect_errors("kernel int k(device int *a [[buffer(0)]]) { return 1; }",
                  "t.metal:1:12: error: a kernel function must return void");
}

static void test_calls(void **state)
{
    (void)state;
    expect_errors("float f(float x, float y) { return x + y; }\n" K "{ a[i] = f(1); }",
                  "t.metal:2:91: error: too few arguments to function call, expected 2, have 1");
    expect_errors(K "{ a[i] = dot(a[i]); }",
                  "t.metal:1:91: error: too few arguments to 'dot', expected 2, have 1");
    expect_errors("float f(float x) { return f(x - 1); }\n" K "{ a[i] = f(1); }",
                  "t.metal:1:27: error: recursive call to 'f' (functions cannot be recursive in "
                  "Metal)");
    expect_errors("float f(float x);\nfloat g(float x) { return f(x); }\n"
                  "float f(float x) { return g(x); }\n" K "{ a[i] = f(1); }",
                  "t.metal:2:27: error: recursive call: 'f' calls itself through 'g' (functions "
                  "cannot be recursive in Metal)");
    expect_errors(K "{ a[i] = foo(1); }", "t.metal:1:91: error: use of undeclared identifier "
                  "'foo'");
}

/* Metal declares its math, relational, geometric and floating common functions for float
 * and half only (MSL sections 5.2, 5.4, 5.5, 5.7): called with integers alone, the call is
 * ambiguous between the two overloads (an int vector converts to neither), and Metal's
 * compiler refuses it; so does lockstep, at the call. Integer overloads (abs, min, clamp,
 * ...), ldexp's int exponent and one floating argument among integers are fine. */
static void test_float_only_calls(void **state)
{
    (void)state;
    static const char *const one[] = {
        "acos(n)", "acosh(n)", "asin(n)", "asinh(n)", "atan(n)", "atanh(n)", "ceil(n)",
        "cos(n)", "cosh(n)", "cospi(n)", "exp(n)", "exp2(n)", "exp10(n)", "fabs(n)",
        "floor(n)", "fract(n)", "ilogb(n)", "log(n)", "log2(n)", "log10(n)", "rint(n)",
        "round(n)", "rsqrt(n)", "sin(n)", "sinh(n)", "sinpi(n)", "sqrt(n)", "tan(n)",
        "tanh(n)", "tanpi(n)", "trunc(n)", "cbrt(n)", "logb(n)", "saturate(n)", "sign(n)",
        "isfinite(n)", "isinf(n)", "isnan(n)", "isnormal(n)", "signbit(n)",
        "ldexp(n, 2)", "sincos(n, c)", "modf(n, c)", "frexp(n, e)", "fast::sin(n)",
        "precise::sqrt(7)",
    };
    static const char *const several[] = {
        "atan2(n, 1)", "copysign(n, 2)", "fdim(n, 1)", "fma(n, 2, 3)", "fmax(n, 1)",
        "fmin(n, 1)", "fmod(n, 3)", "pow(2, 3)", "powr(n, 2)", "mad(n, 2, 3)",
        "nextafter(n, 1)", "fmin3(n, 1, 2)", "fmax3(n, 1, 2)", "fmedian3(n, 1, 2)",
        "divide(n, 2)", "mix(n, 1, 0)", "step(0, n)", "smoothstep(0, 1, n)",
        "isordered(n, 1)", "isunordered(n, 1)",
    };
    char text[512], want[400];
    for (size_t k = 0; k < sizeof one / sizeof one[0] + sizeof several / sizeof several[0]; k++) {
        bool many = k >= sizeof one / sizeof one[0];
        const char *call = many ? several[k - sizeof one / sizeof one[0]] : one[k];
        snprintf(text, sizeof text, K "{\n  int n = int(i); float c; int e;\n  a[i] = "
                 "float(%s);\n}\n", call);
        const char *fn = strncmp(call, "fast::", 6) == 0      ? call + 6
                         : strncmp(call, "precise::", 9) == 0 ? call + 9 : call;
        /* the call's name is at column 16 of line 3, after "  a[i] = float(" and any
         * namespace */
        snprintf(want, sizeof want, "t.metal:3:%d: error: call to '%.*s' with %s ('int') is "
                 "ambiguous in Metal (its float and half overloads fit equally): cast %s to "
                 "float or half", 16 + (int)(fn - call), (int)strcspn(fn, "("), fn,
                 many ? "integers only" : "an integer", many ? "one" : "it");
        expect_errors(text, want);
    }
    expect_errors(K "{ a[i] = length(int2(1, 2)); }", "t.metal:1:91: error: 'length' takes "
                  "float or half vectors, and Metal converts no 'int2' to one implicitly: cast "
                  "it to float2 or half2");
    expect_errors(K "{ a[i] = dot(uint3(i), uint3(1)); }", "t.metal:1:91: error: 'dot' takes "
                  "float or half vectors, and Metal converts no 'uint3' to one implicitly: "
                  "cast it to float3 or half3");
    expect_errors(K "{ a[i] = sqrt(i) + sinpi(true); }", "t.metal:1:91: error: call to 'sqrt' "
                  "with an integer ('uint') is ambiguous in Metal (its float and half overloads "
                  "fit equally): cast it to float or half|t.metal:1:101: error: call to 'sinpi' "
                  "with an integer ('bool') is ambiguous in Metal (its float and half overloads "
                  "fit equally): cast it to float or half");
    /* what Metal accepts */
    const char *fine = K "{\n  int n = int(i); float c = a[i]; int e; half h = half(c);\n"
                       "  a[i] = float(abs(n) + min(n, 3) + max(i, 2u) + clamp(n, 0, 4) +\n"
                       "    min3(n, 1, 2) + max3(n, 1, 2) + median3(n, 1, 2)) + ldexp(1.0f, n) +\n"
                       "    pow(c, 2) + fmax(h, 2) + mix(c, 1, 0) + step(0, c) + frexp(c, e) +\n"
                       "    float(isordered(c, 1)) + fma(2, c, 3) + float(select(n, 2, true));\n}\n";
    if (parse_error(fine))
        fail_msg("refused: %s\n%s", fine, parse_error(fine));
}

static void test_assignment(void **state)
{
    (void)state;
    expect_errors("kernel void k(constant float *a [[buffer(0)]]) { a[0] = 1; }",
                  "t.metal:1:55: error: cannot assign to memory in the constant address space "
                  "(it is read-only)");
    expect_errors("kernel void k(device const float *a [[buffer(0)]]) { a[0] = 1; }",
                  "t.metal:1:59: error: cannot assign to a const value of type 'const float'");
    expect_errors("constant float PI = 3.0f;\n" K "{ PI = 2; }",
                  "t.metal:2:87: error: cannot assign to program-scope constant 'PI'");
    expect_errors("constant uint N [[function_constant(0)]];\n" K "{ N = 2; }",
                  "t.metal:2:86: error: cannot assign to program-scope constant 'N'");
    expect_errors(K "{ const int c = 2; c += 1; }",
                  "t.metal:1:103: error: cannot assign to a const value of type 'const int'");
    expect_errors(K "{ float4 v; v.xx = 1; }", "t.metal:1:99: error: expression is not "
                  "assignable");
}

static void test_atomics(void **state)
{
    (void)state;
    expect_errors("kernel void k(device int *c [[buffer(0)]]) {\n"
                  "  atomic_fetch_add_explicit(c, 1, memory_order_relaxed); }",
                  "t.metal:2:29: error: 'atomic_fetch_add_explicit' needs a pointer to an atomic "
                  "type (atomic_int, atomic_uint or atomic_float), not 'device int*'");
    /* both problems of one call, in one run */
    expect_errors("kernel void k(device int *c [[buffer(0)]]) {\n"
                  "  atomic_fetch_add_explicit(c, 1); }",
                  "t.metal:2:33: error: missing memory order argument: "
                  "'atomic_fetch_add_explicit' takes 3 arguments, the last one a memory order "
                  "such as memory_order_relaxed|"
                  "t.metal:2:29: error: 'atomic_fetch_add_explicit' needs a pointer to an atomic "
                  "type (atomic_int, atomic_uint or atomic_float), not 'device int*'");
    expect_errors("kernel void k(device atomic_uint *c [[buffer(0)]]) {\n"
                  "  uint x = c[0]; }",
                  "t.metal:2:12: error: an atomic cannot be used as a value; use "
                  "atomic_load_explicit");
    expect_errors("kernel void k(device atomic_uint *c [[buffer(0)]]) {\n"
                  "  atomic_store_explicit(c, 1u, 0); }",
                  "t.metal:2:32: error: expected a memory order (such as memory_order_relaxed), "
                  "not 'int'");
}

static void test_several_errors(void **state)
{
    (void)state;
    expect_errors(K "{ a[i] = x; break; a[i] = y; }",
                  "t.metal:1:91: error: use of undeclared identifier 'x'|"
                  "t.metal:1:94: error: 'break' outside a loop or switch|"
                  "t.metal:1:108: error: use of undeclared identifier 'y'");
}

static void test_declarations(void **state)
{
    (void)state;
    expect_errors("kernel void k(device float *a [[buffer(1)]], device float *b [[buffer(1)]]) {}",
                  "t.metal:1:60: error: 'a' and 'b' have the same buffer index 1");
    expect_errors(K "{ switch (i) { case 1: break; case 1: break; } }",
                  "t.metal:1:117: error: duplicate case value 1");
    expect_errors(K "{ goto out; }", "t.metal:1:84: error: goto and labels are not supported");
    expect_errors(K "{ float x = i ? 1 : }", "t.metal:1:102: error: expected expression");
}

/* Thousands of nested parentheses or blocks get a message, not a stack overflow. */
static void test_deep_nesting(void **state)
{
    (void)state;
    size_t n = 20000;
    char *text = malloc(2 * n + 200);
    strcpy(text, K "{ a[i] = ");
    size_t len = strlen(text);
    memset(text + len, '(', n);
    text[len + n] = '1';
    memset(text + len + n + 1, ')', n);
    strcpy(text + len + 2 * n + 1, "; }");
    const char *msg = parse_error(text);
    assert_non_null(msg);
    assert_non_null(strstr(msg, "error: expression or statement nests too deeply"));
    free(text);
}

static void test_unsupported(void **state)
{
    (void)state;
    expect_errors(K "{ int4x4 m; }", "t.metal:1:84: error: matrix types have float or half "
                  "elements (float4x4, half3x3)");
    expect_errors("kernel void k(texture2d_array<float> t [[texture(0)]]) {}",
                  "t.metal:1:15: error: this texture type is not supported yet (texture1d and "
                  "texture2d are)");
    expect_errors("using namespace mps;",
                  "t.metal:1:17: error: unknown namespace 'mps' (only 'metal' and "
                  "'mpp::tensor_ops' are known)");
    expect_errors(K "{ double d = 1; }", "t.metal:1:84: error: double is not supported by "
                  "Metal");
}

static void test_never_crash(void **state)
{
    (void)state;
    /* truncated programs: each prefix parses or gets a diagnostic; none crashes */
    const char *text = "struct S { float a; half3 b; };\n"
                       "template <typename T> T f(T x) { return x * 2; }\n"
                       "constant int N = 4;\n"
                       "kernel void k(device S *s [[buffer(0)]], uint i [[thread_position_in_grid]])"
                       " { threadgroup float t[N]; t[i % N] = f<float>(s[i].a);"
                       " switch (i) { case 1: break; default: s[i].b = half3(t[0]); } }";
    size_t n = strlen(text);
    char buf[512];
    for (size_t len = 0; len < n; len++) {
        memcpy(buf, text, len);
        buf[len] = '\0';
        const char *msg = parse_error(buf);
        if (msg && strstr(msg, "error: ") == NULL)
            fail_msg("prefix of %zu chars: no diagnostic in '%s'", len, msg);
    }
    assert_null(parse_error(text));
}

/* A file with 50 errors reports the first 20, whole and in order, then how many more there
 * were, as clang's -ferror-limit does (they shared one 1,024-byte buffer: past the 11th
 * the rest was cut, mid-line). Errors on long lines fill the message sooner: those that do
 * not fit are counted with the rest, never cut. */
static void test_many_errors(void **state)
{
    (void)state;
    for (int wide = 0; wide < 2; wide++) {
        char text[40000] = K "{\n";
        for (int k = 0; k < 50; k++)
            snprintf(text + strlen(text), sizeof text - strlen(text), "  a[i] += x%d%s;\n", k,
                     wide ? "_a_name_of_three_hundred_characters_that_the_message_repeats"
                            "_a_name_of_three_hundred_characters_that_the_message_repeats"
                            "_a_name_of_three_hundred_characters_that_the_message_repeats"
                            "_a_name_of_three_hundred_characters_that_the_message_repeats"
                            "_a_name_of_three_hundred_characters_that_the_message_repeats"
                         : "");
        strcat(text, "}\n");
        const char *msg = parse_error(text);
        assert_non_null(msg);
        int shown = 0;
        const char *line = msg, *last = msg;
        while (line && *line) {
            char want[80];
            snprintf(want, sizeof want, "t.metal:%d:", shown + 2);
            if (strncmp(line, "t.metal:", 8) == 0) {
                if (strncmp(line, want, strlen(want)) != 0 ||
                    !strstr(line, "use of undeclared identifier"))
                    fail_msg("error %d is not the next one:\n%s", shown, line);
                char name[16];
                snprintf(name, sizeof name, wide ? "'x%d_" : "'x%d'", shown);
                assert_non_null(strstr(line, name));
                shown++;
            }
            last = line;
            line = strchr(line, '\n');
            line = line ? line + 1 : NULL;
        }
        char tail[64];
        snprintf(tail, sizeof tail, "%d more errors not shown", 50 - shown);
        if (strcmp(last, tail) != 0)
            fail_msg("the last line is \"%s\", expected \"%s\"", last, tail);
        if (wide)
            assert_true(shown >= 5 && shown < 20);
        else
            assert_int_equal(shown, 20);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_syntax),      cmocka_unit_test(test_names),
        cmocka_unit_test(test_types),       cmocka_unit_test(test_calls),
        cmocka_unit_test(test_float_only_calls),
        cmocka_unit_test(test_assignment),  cmocka_unit_test(test_atomics),
        cmocka_unit_test(test_several_errors), cmocka_unit_test(test_declarations),
        cmocka_unit_test(test_deep_nesting), cmocka_unit_test(test_unsupported),
        cmocka_unit_test(test_never_crash), cmocka_unit_test(test_many_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
