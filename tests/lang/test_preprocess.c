/*
 * test_preprocess.c — the preprocessor through lang_internal.h (lang_tokenize then
 * lang_preprocess): macro expansion checked against the worked examples of the C standard
 * (C11 6.10.3.5), every directive, #if arithmetic by C's rules, #include of headers written
 * to a temporary directory, the predefined Metal macros and constants, and each error
 * message with its file:line:col, including hostile input that must fail cleanly.
 */
#include <math.h>
#include <float.h>
#include <sys/stat.h>

#include "test_util.h"

#include "../../lang/lang_internal.h"

typedef struct Fixture {
    UtilError err;
    LangCtx ctx;
} Fixture;

static Fixture *fixture_new(void)
{
    Fixture *f = calloc(1, sizeof *f);
    f->ctx.err = &f->err;
    return f;
}

static void fixture_free(Fixture *f)
{
    lang_ctx_free(&f->ctx);
    free(f);
}

/* Preprocessed tokens of text named `name`, or NULL with f->err set. */
static LangToken *pp_named(Fixture *f, const char *name, const char *text)
{
    if (setjmp(f->ctx.bail) != 0)
        return NULL;
    LangFile *file = lang_add_file(&f->ctx, name, lang_strndup(&f->ctx, text, strlen(text)));
    return lang_preprocess(&f->ctx, lang_tokenize(&f->ctx, file));
}

static LangToken *pp(Fixture *f, const char *text)
{
    return pp_named(f, "t.metal", text);
}

/* Token spellings joined by single spaces. */
static char *spell(const LangToken *t)
{
    size_t n = 1;
    for (const LangToken *u = t; u && u->kind != LTK_EOF; u = u->next)
        n += (size_t)u->len + 1;
    char *s = calloc(1, n);
    for (; t && t->kind != LTK_EOF; t = t->next) {
        if (*s)
            strcat(s, " ");
        strncat(s, t->loc, (size_t)t->len);
    }
    return s;
}

/* Preprocessing `input` gives the same tokens as lexing `expected`. */
static void expect_pp(const char *input, const char *expected)
{
    Fixture *f = fixture_new();
    LangToken *got = pp(f, input);
    if (!got)
        fail_msg("%s", f->err.message);
    char *a = spell(got);
    Fixture *g = fixture_new();
    LangFile *file = lang_add_file(&g->ctx, "e", lang_strndup(&g->ctx, expected, strlen(expected)));
    char *b = spell(lang_tokenize(&g->ctx, file));
    if (strcmp(a, b) != 0)
        fail_msg("for:\n%s\nexpected: %s\n     got: %s", input, b, a);
    free(a);
    free(b);
    fixture_free(f);
    fixture_free(g);
}

static void expect_error_named(const char *name, const char *text, const char *first_line)
{
    Fixture *f = fixture_new();
    LangToken *tok = pp_named(f, name, text);
    if (tok)
        fail_msg("no error for:\n%s", text);
    const char *nl = strchr(f->err.message, '\n');
    size_t n = nl ? (size_t)(nl - f->err.message) : strlen(f->err.message);
    if (n != strlen(first_line) || strncmp(f->err.message, first_line, n) != 0)
        fail_msg("for:\n%s\nexpected: %s\n     got: %s", text, first_line, f->err.message);
    fixture_free(f);
}

static void expect_error(const char *text, const char *first_line)
{
    expect_error_named("t.metal", text, first_line);
}

/* ---- macros ------------------------------------------------------------------------------- */

static void test_object_and_function_macros(void **state)
{
    (void)state;
    expect_pp("#define N 4\nint a[N];", "int a[4];");
    expect_pp("#define SQ(x) ((x)*(x))\nSQ(a+1)", "((a+1)*(a+1))");
    expect_pp("#define F(x, y) x - y\nF((a, b), c[1])", "(a, b) - c[1]");
    expect_pp("#define F(x) [x]\nF() F( )", "[] []");
    expect_pp("#define Z() z\nZ() Z", "z Z");
    expect_pp("#define F(x) x\nF\n(1)", "1"); /* arguments may start on the next line */
    expect_pp("#define F(x) x\nint F;", "int F;");
    expect_pp("#define A A + 1\nA", "A + 1");             /* a macro never expands itself */
    expect_pp("#define X Y\n#define Y X\nX Y", "X Y");     /* nor through another */
    expect_pp("#define f(x) x f\nf(1)(2)", "1 f(2)"); /* hideset: f not in the rparen's set */
    expect_pp("#define E\nE a E", "a");
    expect_pp("#define A 1\n#undef A\nA", "A");
    expect_pp("#define A 1\n#define A 2\nA", "2");
    expect_pp("#define kernel __kernel\nkernel", "__kernel"); /* keywords are macro names too */
    expect_pp("#define PASTE(a, b) a ## b\nPASTE(x, 1) PASTE(, y) PASTE(z, ) PASTE(,) PASTE(<, <=)",
              "x1 y z <<=");
    expect_pp("#define H(a, b, c) a ## b ## c\nH(1, , 3) H(, , 3) H(u, 1, )", "13 3 u1");
}

static void test_c_standard_example_3(void **state)
{
    (void)state;
    /* C11 6.10.3.5 EXAMPLE 3, with the result the standard gives */
    expect_pp("#define x 3\n"
              "#define f(a) f(x * (a))\n"
              "#undef x\n"
              "#define x 2\n"
              "#define g f\n"
              "#define z z[0]\n"
              "#define h g(~\n"
              "#define m(a) a(w)\n"
              "#define w 0,1\n"
              "#define t(a) a\n"
              "#define p() int\n"
              "#define q(x) x\n"
              "#define r(x,y) x ## y\n"
              "#define str(x) # x\n"
              "f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);\n"
              "g(x+(3,4)-w) | h 5) & m\n"
              "(f)^m(m);\n"
              "p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };\n"
              "char c[2][6] = { str(hello), str() };\n",
              "f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % f(2 * (0)) + t(1);\n"
              "f(2 * (2+(3,4)-0,1)) | f(2 * (~ 5)) & f(2 * (0,1))^m(0,1);\n"
              "int i[] = { 1, 23, 4, 5, };\n"
              "char c[2][6] = { \"hello\", \"\" };\n");
}

static void test_c_standard_examples_4_and_7(void **state)
{
    (void)state;
    /* EXAMPLE 4 (without the `@` case, which is not a token here) */
    expect_pp("#define str(s) # s\n"
              "#define xstr(s) str(s)\n"
              "#define debug(s, t) printf(\"x\" # s \"= %d, x\" # t \"= %s\", \\\n"
              " x ## s, x ## t)\n"
              "#define INCFILE(n) vers ## n\n"
              "#define glue(a, b) a ## b\n"
              "#define xglue(a, b) glue(a, b)\n"
              "#define HIGHLOW \"hello\"\n"
              "#define LOW LOW \", world\"\n"
              "debug(1, 2);\n"
              "fputs(str(strncmp(\"abc\\0d\", \"abc\", '\\4') // this goes away\n"
              " == 0), s);\n"
              "xstr(INCFILE(2).h)\n"
              "glue(HIGH, LOW);\n"
              "xglue(HIGH, LOW)\n",
              "printf(\"x\" \"1\" \"= %d, x\" \"2\" \"= %s\", x1, x2);\n"
              "fputs(\"strncmp(\\\"abc\\\\0d\\\", \\\"abc\\\", '\\\\4') == 0\", s);\n"
              "\"vers2.h\"\n"
              "\"hello\";\n"
              "\"hello\" \", world\"\n");
    /* EXAMPLE 7 */
    expect_pp("#define debug(...) fprintf(stderr, __VA_ARGS__)\n"
              "#define showlist(...) puts(#__VA_ARGS__)\n"
              "#define report(test, ...) ((test)?puts(#test):\\\n"
              " printf(__VA_ARGS__))\n"
              "debug(\"Flag\");\n"
              "debug(\"X = %d\\n\", x);\n"
              "showlist(The first, second, and third items.);\n"
              "report(x>y, \"x is %d but y is %d\", x, y);\n",
              "fprintf(stderr, \"Flag\");\n"
              "fprintf(stderr, \"X = %d\\n\", x);\n"
              "puts(\"The first, second, and third items.\");\n"
              "((x>y)?puts(\"x>y\"): printf(\"x is %d but y is %d\", x, y));\n");
}

static void test_variadic_and_stringize(void **state)
{
    (void)state;
    expect_pp("#define V(fmt, ...) f(fmt, ##__VA_ARGS__)\nV(1) V(1, 2, 3)", "f(1) f(1, 2, 3)");
    expect_pp("#define V(args...) g(args)\nV(a, b)", "g(a, b)");
    expect_pp("#define V(x, ...) [__VA_ARGS__]\nV(1)", "[]");
    Fixture *f = fixture_new();
    LangToken *t = pp(f, "#define S(x) #x\nS(  a   +  \"q\\n\"  )");
    assert_non_null(t);
    assert_int_equal(t->kind, LTK_STR);
    assert_string_equal(t->str, "a + \"q\\n\"");
    fixture_free(f);
}

static void test_origin_and_positions(void **state)
{
    (void)state;
    Fixture *f = fixture_new();
    LangToken *t = pp(f, "#define ADD(a) (a + one)\nx = ADD(  y);");
    assert_non_null(t);
    LangToken *paren = t->next->next;    /* x = ( */
    LangToken *use = paren->origin;
    assert_non_null(use);
    assert_true(lang_tok_equal(use, "ADD"));
    assert_int_equal(use->line, 2);
    assert_int_equal(use->col, 5);
    assert_int_equal(paren->line, 1);    /* the body token keeps its own position */
    assert_int_equal(paren->col, 16);
    LangToken *y = paren->next;          /* an argument points at what was written */
    assert_true(lang_tok_equal(y, "y"));
    assert_non_null(y->origin);
    assert_int_equal(y->origin->line, 2);
    assert_int_equal(y->origin->col, 11);
    /* a diagnostic at a body token names the macro use */
    LangToken *one = y->next->next;
    assert_true(lang_tok_equal(one, "one"));
    if (setjmp(f->ctx.bail) == 0)
        lang_error_at(&f->ctx, one, "undeclared identifier");
    assert_non_null(strstr(f->err.message, "t.metal:2:5: error: undeclared identifier"));
    fixture_free(f);
}

/* ---- predefined macros -------------------------------------------------------------------- */

static LangToken *one_token(Fixture *f, const char *text)
{
    LangToken *t = pp(f, text);
    if (!t)
        fail_msg("%s: %s", text, f->err.message);
    assert_int_equal(t->next->kind, LTK_EOF);
    return t;
}

static void expect_int_macro(const char *name, int64_t value, const char *type)
{
    Fixture *f = fixture_new();
    LangToken *t = one_token(f, name);
    assert_int_equal(t->kind, LTK_NUM);
    assert_false(t->is_float);
    if ((int64_t)t->ival != value || strcmp(t->num_type->name, type) != 0)
        fail_msg("%s: %lld %s", name, (long long)(int64_t)t->ival, t->num_type->name);
    fixture_free(f);
}

static void expect_float_macro(const char *name, double value, const char *type)
{
    Fixture *f = fixture_new();
    LangToken *t = one_token(f, name);
    assert_int_equal(t->kind, LTK_NUM);
    assert_true(t->is_float);
    if (!(t->fval == value || (isnan(value) && isnan(t->fval))) ||
        strcmp(t->num_type->name, type) != 0)
        fail_msg("%s: %.17g %s, expected %.17g", name, t->fval, t->num_type->name, value);
    assert_true(lang_tok_equal(t->origin, name));
    fixture_free(f);
}

static void test_predefined(void **state)
{
    (void)state;
    expect_int_macro("__METAL_VERSION__", 310, "int");
    expect_int_macro("__METAL__", 1, "int");
    expect_int_macro("__METAL_MACOS__", 1, "int");
    expect_int_macro("__LOCKSTEP__", 1, "int");
    expect_int_macro("INT_MAX", 2147483647, "int");
    expect_int_macro("INT_MIN", -2147483647 - 1, "int");
    expect_int_macro("UINT_MAX", 4294967295, "uint");
    expect_int_macro("LONG_MAX", INT64_MAX, "long");
    expect_int_macro("LONG_MIN", INT64_MIN, "long");
    expect_int_macro("ULONG_MAX", (int64_t)UINT64_MAX, "ulong");
    expect_int_macro("SHRT_MAX", 32767, "int");
    expect_int_macro("USHRT_MAX", 65535, "int");
    expect_int_macro("CHAR_MAX", 127, "int");
    expect_int_macro("UCHAR_MAX", 255, "int");
    expect_float_macro("INFINITY", INFINITY, "float");
    expect_float_macro("HUGE_VALF", INFINITY, "float");
    expect_float_macro("NAN", NAN, "float");
    expect_float_macro("MAXFLOAT", FLT_MAX, "float");
    expect_float_macro("FLT_MAX", FLT_MAX, "float");
    expect_float_macro("FLT_MIN", FLT_MIN, "float");
    expect_float_macro("FLT_EPSILON", FLT_EPSILON, "float");
    expect_float_macro("HALF_MAX", 65504.0, "half");            /* (2 - 2^-10) * 2^15 */
    expect_float_macro("HALF_MIN", 1.0 / 16384.0, "half");      /* 2^-14 */
    expect_float_macro("HALF_EPSILON", 1.0 / 1024.0, "half");   /* 2^-10 */
    expect_float_macro("M_PI_F", (float)3.14159265358979323846, "float");
    expect_float_macro("M_PI_2_F", (float)(3.14159265358979323846 / 2), "float");
    expect_float_macro("M_PI_4_F", (float)(3.14159265358979323846 / 4), "float");
    expect_float_macro("M_1_PI_F", (float)(1 / 3.14159265358979323846), "float");
    expect_float_macro("M_2_PI_F", (float)(2 / 3.14159265358979323846), "float");
    expect_float_macro("M_E_F", (float)2.71828182845904523536, "float");
    expect_float_macro("M_LOG2E_F", (float)1.44269504088896340736, "float");
    expect_float_macro("M_LOG10E_F", (float)0.434294481903251827651, "float");
    expect_float_macro("M_LN2_F", (float)0.693147180559945309417, "float");
    expect_float_macro("M_LN10_F", (float)2.30258509299404568402, "float");
    expect_float_macro("M_SQRT2_F", (float)1.41421356237309504880, "float");
    expect_float_macro("M_SQRT1_2_F", (float)0.707106781186547524401, "float");
    /* __LINE__ is the line of the use, __FILE__ its file, __COUNTER__ counts from 0 */
    expect_pp("#define L __LINE__\na\nL __LINE__\n__COUNTER__ __COUNTER__", "a 3 3 0 1");
    Fixture *f = fixture_new();
    LangToken *t = one_token(f, "__FILE__");
    assert_int_equal(t->kind, LTK_STR);
    assert_string_equal(t->str, "t.metal");
    fixture_free(f);
    /* they can be tested and redefined like any macro */
    expect_pp("#ifdef NAN\nyes\n#endif\n#undef NAN\n#ifndef NAN\nno\n#endif", "yes no");
    expect_pp("#define M_PI_F 3\nM_PI_F", "3");
}

/* ---- conditionals ------------------------------------------------------------------------- */

static void expect_if(const char *expr, bool value)
{
    char text[512];
    snprintf(text, sizeof text, "#define ONE 1\n#define EMPTY\n#if %s\nyes\n#else\nno\n#endif\n",
             expr);
    Fixture *f = fixture_new();
    LangToken *t = pp(f, text);
    if (!t)
        fail_msg("#if %s: %s", expr, f->err.message);
    if (lang_tok_equal(t, "yes") != value)
        fail_msg("#if %s: expected %s", expr, value ? "true" : "false");
    fixture_free(f);
}

static void test_if_expressions(void **state)
{
    (void)state;
    /* C 6.10.1: intmax_t/uintmax_t arithmetic; identifiers left after expansion are 0 */
    expect_if("1 + 2 * 3 == 7", true);
    expect_if("(1 + 2) * 3 == 9", true);
    expect_if("-1 < 0", true);
    expect_if("-1 < 0u", false);               /* -1 converts to UINTMAX_MAX */
    expect_if("~0u == 0xffffffffffffffff", true); /* unsigned int acts as uintmax_t */
    expect_if("0x7fffffff + 1 == 2147483648", true);
    expect_if("-7 / 2 == -3 && -7 % 2 == -1", true);
    expect_if("10 % 3 == 1", true);
    expect_if("1 << 63 < 0", true);
    expect_if("-1 >> 1 == -1", true);
    expect_if("(1 ? -1 : 0u) > 0", true);       /* the result is unsigned */
    expect_if("2 > 1 ? 0 : 1", false);
    expect_if("1 || 1 / 0", true);              /* the division is not evaluated */
    expect_if("0 && 1 / 0", false);
    expect_if("0 ? 1 / 0 : 5", true);
    expect_if("!0 && !!7 && ~0 == -1", true);
    expect_if("(3 & 5) == 1 && (3 | 5) == 7 && (3 ^ 5) == 6", true);
    expect_if("1 <= 1 && 1 >= 1 && 1 != 2 && !(2 < 1)", true);
    expect_if("UNDEFINED", false);
    expect_if("UNDEFINED == 0", true);
    expect_if("ONE", true);
    expect_if("defined ONE && defined(ONE) && defined EMPTY", true);
    expect_if("defined(UNDEFINED) || defined UNDEFINED", false);
    expect_if("true", true);
    expect_if("false", false);
    expect_if("'a' == 97", true);
    expect_if("__METAL_VERSION__ >= 310", true);
    expect_if("INT_MIN < 0 && UINT_MAX == 4294967295 && INT_MAX == 0x7fffffff", true);
    expect_if("LONG_MIN < 0 && LONG_MAX == 0x7fffffffffffffff && LONG_MIN == -LONG_MAX - 1 && "
              "ULONG_MAX == 0xffffffffffffffff && ULONG_MAX + 1 == 0", true);
    expect_if("ONE EMPTY + ONE == 2", true);
}

static void test_conditional_groups(void **state)
{
    (void)state;
    expect_pp("#if 0\na\n#elif 0\nb\n#elif 1\nc\n#elif 1\nd\n#else\ne\n#endif", "c");
    expect_pp("#if 1\na\n#elif 1 / 0\nb\n#endif", "a"); /* a later #elif is not evaluated */
    expect_pp("#if 0\na\n#else\nb\n#endif", "b");
    expect_pp("#ifdef X\na\n#else\nb\n#endif\n#define X\n#ifdef X\nc\n#endif", "b c");
    expect_pp("#ifndef X\n#define X 1\n#endif\n#ifndef X\nno\n#endif\nX", "1");
    /* skipped groups may hold anything that lexes, and nested conditionals */
    expect_pp("#if 0\n#if 1\n#bogus\n#else\nx\n#endif\n#error no\n#endif\nok", "ok");
    expect_pp("#if 1\n#if 0\nx\n#elif 1\ny\n#endif\n#endif", "y");
    expect_pp("#\n#pragma unroll(4)\n#warning careful\n#line 10 \"x.metal\"\na", "a");
    /* the pragma operator, written out and from a macro, goes like #pragma */
    expect_pp("a _Pragma(\"unroll\") b", "a b");
    expect_pp("#define UNROLL(n) _Pragma(#n) for\nUNROLL(unroll 4) (;;)", "for (;;)");
    expect_pp("a #define X 1\nX", "a # define X 1 X"); /* not at the start of a line */
    expect_pp("#define H #\nH define Y 2\nY", "# define Y 2 Y"); /* nor from a macro */
}

static void test_deep_nesting(void **state)
{
    (void)state;
    /* 20,000 nested groups, taken and skipped: a loop, not recursion */
    size_t n = 20000;
    char *text = malloc(n * 14 + 64);
    char *p = text;
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "#if %d\n", i == n / 2 ? 0 : 1);
    p += sprintf(p, "x\n");
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "#endif\n");
    sprintf(p, "y\n");
    expect_pp(text, "y");
    free(text);
}

/* ---- #include ----------------------------------------------------------------------------- */

static char tmpdir[64];

static void write_file(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static int make_tmpdir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/lockstep_pp_XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    char sub[300];
    snprintf(sub, sizeof sub, "%s/sub", tmpdir);
    return mkdir(sub, 0700);
}

static int remove_tmpdir(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static LangToken *pp_main(Fixture *f, const char *text)
{
    char path[300];
    snprintf(path, sizeof path, "%s/main.metal", tmpdir);
    return pp_named(f, path, text);
}

static void test_include(void **state)
{
    (void)state;
    write_file("a.h", "#pragma once\n#define HDR 42\nint from_a;\n#include \"sub/b.h\"\n");
    /* b.h finds c.h in the main file's directory, not its own */
    write_file("sub/b.h", "int from_b = HDR;\n#include \"c.h\"\n");
    write_file("c.h", "#ifndef C_H\n#define C_H\nint from_c;\n#endif\n");
    write_file("empty.h", "");
    Fixture *f = fixture_new();
    LangToken *t = pp_main(f, "#include <metal_stdlib>\n#include <simd/simd.h>\n"
                              "#include \"a.h\"\n#include \"a.h\"\n#include \"c.h\"\n"
                              "#define NAME \"empty.h\"\n#include NAME\nHDR;\n");
    if (!t)
        fail_msg("%s", f->err.message);
    char *s = spell(t);
    assert_string_equal(s, "int from_a ; int from_b = 42 ; int from_c ; 42 ;");
    free(s);
    /* tokens keep their file and line for debug info */
    assert_non_null(strstr(t->file->name, "a.h"));
    assert_int_equal(t->line, 3);
    LangToken *b = t->next->next->next;
    assert_non_null(strstr(b->file->name, "sub/b.h"));
    assert_int_equal(b->line, 1);
    assert_int_equal(f->ctx.include_depth, 0);
    fixture_free(f);
}

static void test_include_errors(void **state)
{
    (void)state;
    char name[300], msg[2048];
    snprintf(name, sizeof name, "%s/main.metal", tmpdir);
    snprintf(msg, sizeof msg,
             "%s:2:10: error: 'missing.h' file not found (tried %s/missing.h)", name, tmpdir);
    expect_error_named(name, "int x;\n#include \"missing.h\"\n", msg);
    snprintf(msg, sizeof msg, "%s/sub/d.h:1:10: error: 'nope.h' file not found (tried "
             "%s/sub/nope.h and %s/nope.h)", tmpdir, tmpdir, tmpdir);
    write_file("sub/d.h", "#include \"nope.h\"\n");
    expect_error_named(name, "#include \"sub/d.h\"\n", msg);
    /* a cycle hits the depth limit, and the message names it */
    write_file("x.h", "#include \"y.h\"\n");
    write_file("y.h", "int y;\n#include \"x.h\"\n");
    snprintf(msg, sizeof msg, "%s/y.h:2:10: error: #include nested too deeply (limit 64): "
             "include cycle %s/x.h -> %s/y.h -> %s/x.h", tmpdir, tmpdir, tmpdir, tmpdir);
    expect_error_named(name, "#include \"x.h\"\n", msg);
    /* conditionals may not span files */
    write_file("open.h", "\n#ifdef A\n");
    snprintf(msg, sizeof msg, "%s/open.h:2:2: error: unterminated #ifdef", tmpdir);
    expect_error_named(name, "#include \"open.h\"\n#endif\n", msg);
    write_file("close.h", "#endif\n");
    snprintf(msg, sizeof msg, "%s/close.h:1:2: error: #endif without #if", tmpdir);
    expect_error_named(name, "#if 1\n#include \"close.h\"\n", msg);
    expect_error("#include\n", "t.metal:1:2: error: #include expects \"FILENAME\" or <FILENAME>");
    expect_error("#include <metal_stdlib\n", "t.metal:1:10: error: expected '>' to end the "
                 "header name");
}

/* ---- errors ------------------------------------------------------------------------------- */

static void test_directive_errors(void **state)
{
    (void)state;
    expect_error("int a;\n#if 1\nx\n", "t.metal:2:2: error: unterminated #if");
    expect_error("#ifndef A\n#if 0\n#endif\n", "t.metal:1:2: error: unterminated #ifndef");
    expect_error("#if 0\n#else\n#else\n#endif\n", "t.metal:3:2: error: #else after #else");
    expect_error("#if 1\n#else\n#elif 1\n#endif\n", "t.metal:3:2: error: #elif after #else");
    expect_error("\n#endif\n", "t.metal:2:2: error: #endif without #if");
    expect_error("#else\n", "t.metal:1:2: error: #else without #if");
    expect_error("int a;\n  _Pragma(unroll)\n", "t.metal:2:3: error: _Pragma expects a string "
                 "literal in parentheses");
    expect_error("_Pragma\n", "t.metal:1:1: error: _Pragma expects a string literal in "
                 "parentheses");
    expect_error("#elif 1\n", "t.metal:1:2: error: #elif without #if");
    expect_error("#define\n", "t.metal:1:2: error: macro name missing");
    expect_error("#define 3 x\n", "t.metal:1:9: error: macro names must be identifiers");
    expect_error("#define defined\n", "t.metal:1:9: error: 'defined' cannot be used as a macro "
                 "name");
    expect_error("#undef\n", "t.metal:1:2: error: macro name missing");
    expect_error("#ifdef \"x\"\n#endif\n", "t.metal:1:8: error: macro names must be identifiers");
    expect_error("#define F(x,\n", "t.metal:1:10: error: missing ')' in macro parameter list");
    expect_error("#define F(x y) x\n", "t.metal:1:13: error: expected ',' or ')' in macro "
                 "parameter list");
    expect_error("#define F(1) x\n", "t.metal:1:11: error: expected parameter name, found '1'");
    expect_error("#define F(x, x) x\n", "t.metal:1:14: error: duplicate macro parameter 'x'");
    expect_error("#define F(..., x) x\n", "t.metal:1:14: error: expected ')' after '...'");
    expect_error("#define S(x) #y\n", "t.metal:1:14: error: '#' is not followed by a macro "
                 "parameter");
    expect_error("#define P(x) x ##\n", "t.metal:1:16: error: '##' cannot appear at either end "
                 "of a macro expansion");
    expect_error("#define P ## x\n", "t.metal:1:11: error: '##' cannot appear at either end "
                 "of a macro expansion");
    expect_error("#define V __VA_ARGS__\n", "t.metal:1:11: error: __VA_ARGS__ can only appear "
                 "in the expansion of a variadic macro");
    expect_error("#define F(x) x\nF(1, 2)\n", "t.metal:2:1: error: macro 'F' passed 2 "
                 "arguments, but takes just 1");
    expect_error("#define F(x, y) x\n  F(1)\n", "t.metal:2:3: error: macro 'F' requires 2 "
                 "arguments, but only 1 given");
    expect_error("#define Z() z\nZ(1)\n", "t.metal:2:1: error: macro 'Z' passed 1 arguments, "
                 "but takes just 0");
    expect_error("#define F(x) x\nF(1, (2\n", "t.metal:2:1: error: unterminated argument list "
                 "invoking macro 'F'");
    expect_error("#define F(x) x\nF(1,\n#define Q\n)\n", "t.metal:3:1: error: directives are "
                 "not supported inside macro arguments");
    expect_error("#define C(a, b) a ## b\nint x = C(+, /);\n", "t.metal:2:9: error: pasting "
                 "\"+\" and \"/\" does not give a valid token");
    expect_error("#error stop \"here\" now\n", "t.metal:1:2: error: #error stop \"here\" now");
    expect_error("#error\n", "t.metal:1:2: error: #error");
    expect_error("#foo\n", "t.metal:1:2: error: invalid preprocessing directive #foo");
    expect_error("#line x\n", "t.metal:1:7: error: #line expects a positive line number and "
                 "an optional \"file name\"");
    expect_error("#if\n#endif\n", "t.metal:1:2: error: #if with no expression");
    expect_error("#if 1 +\n#endif\n", "t.metal:2:1: error: expected value in #if expression");
    expect_error("#if 1.5\n#endif\n", "t.metal:1:5: error: floating literal in #if expression");
    expect_error("#if 2 / 0\n#endif\n", "t.metal:1:7: error: division by zero in #if "
                 "expression");
    expect_error("#if (1\n#endif\n", "t.metal:1:5: error: expected ')' in #if expression");
    expect_error("#if 1 2\n#endif\n", "t.metal:1:7: error: extra token '2' in #if expression");
    expect_error("#if x = 1\n#endif\n", "t.metal:1:7: error: extra token '=' in #if expression");
    expect_error("#if \"s\"\n#endif\n", "t.metal:1:5: error: invalid token '\"s\"' in #if "
                 "expression");
    expect_error("#if defined(\n#endif\n", "t.metal:1:5: error: macro name missing after "
                 "'defined'");
    expect_error("#if defined(X\n#endif\n", "t.metal:1:5: error: missing ')' after 'defined'");
}

static void test_hostile_input(void **state)
{
    (void)state;
    /* exponential expansion: each level doubles */
    char text[4096], *p = text;
    for (char c = 'A'; c < 'Z'; c++)
        p += sprintf(p, "#define %c %c %c\n", c, c + 1, c + 1);
    sprintf(p, "x = A;\n");
    expect_error(text, "t.metal:26:5: error: macro expansion too large");
    /* deeply nested macro calls and parentheses */
    size_t n = 50000;
    char *big = malloc(n * 3 + 64);
    p = big + sprintf(big, "#define F(x) x\n");
    for (size_t i = 0; i < n; i++)
        *p++ = 'F', *p++ = '(';
    strcpy(p, "1");
    p += 1;
    for (size_t i = 0; i < n; i++)
        *p++ = ')';
    strcpy(p, "\n");
    Fixture *f = fixture_new();
    assert_null(pp(f, big));
    assert_non_null(strstr(f->err.message, "t.metal:2:1: error: macro"));
    fixture_free(f);
    p = big + sprintf(big, "#if ");
    for (size_t i = 0; i < n; i++)
        *p++ = '(';
    strcpy(p, "1\n#endif\n");
    expect_error(big, "t.metal:1:105: error: #if expression nested too deeply");
    p = big + sprintf(big, "#if ");
    for (size_t i = 0; i < n; i++)
        *p++ = '-', *p++ = ' ';
    strcpy(p, "1\n#endif\n");
    expect_error(big, "t.metal:1:403: error: #if expression nested too deeply");
    free(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_object_and_function_macros),
        cmocka_unit_test(test_c_standard_example_3),
        cmocka_unit_test(test_c_standard_examples_4_and_7),
        cmocka_unit_test(test_variadic_and_stringize),
        cmocka_unit_test(test_origin_and_positions),
        cmocka_unit_test(test_predefined),
        cmocka_unit_test(test_if_expressions),
        cmocka_unit_test(test_conditional_groups),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_include),
        cmocka_unit_test(test_include_errors),
        cmocka_unit_test(test_directive_errors),
        cmocka_unit_test(test_hostile_input),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
