/*
 * test_lex.c — the tokenizer alone (lang_tokenize): token kinds, spellings and positions,
 * every literal form with its value and type (C's rules for integer types, MSL's f/h
 * suffixes, unsuffixed floating literals are float), comments and line splices, and each
 * lexical error with its file:line:col.
 */
#include <math.h>

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

/* The tokens of text as file "t.metal", or NULL with f->err set. */
static LangToken *lex(Fixture *f, const char *text)
{
    if (setjmp(f->ctx.bail) != 0)
        return NULL;
    LangFile *file = lang_add_file(&f->ctx, "t.metal", lang_strndup(&f->ctx, text, strlen(text)));
    return lang_tokenize(&f->ctx, file);
}

/* The first line of the error text lexes into. */
static void expect_error(const char *text, const char *first_line)
{
    Fixture *f = fixture_new();
    LangToken *tok = lex(f, text);
    assert_null(tok);
    const char *nl = strchr(f->err.message, '\n');
    size_t n = nl ? (size_t)(nl - f->err.message) : strlen(f->err.message);
    if (n != strlen(first_line) || strncmp(f->err.message, first_line, n) != 0)
        fail_msg("for %s\nexpected: %s\n     got: %s", text, first_line, f->err.message);
    fixture_free(f);
}

static void expect_tok(const LangToken *t, LangTokenKind kind, const char *text, int line, int col)
{
    assert_non_null(t);
    if (t->kind != kind || !lang_tok_equal(t, text) || t->line != line || t->col != col)
        fail_msg("expected %d '%s' at %d:%d, got %d '%.*s' at %d:%d", kind, text, line, col,
                 t->kind, t->len, t->loc, t->line, t->col);
}

static void test_kinds_and_positions(void **state)
{
    (void)state;
    Fixture *f = fixture_new();
    LangToken *t = lex(f, "kernel void k(device float* a)\n{\n\tx += 1; // done\n  }");
    expect_tok(t, LTK_KEYWORD, "kernel", 1, 1);
    assert_true(t->at_bol);
    assert_false(t->has_space);
    t = t->next;
    expect_tok(t, LTK_KEYWORD, "void", 1, 8);
    assert_false(t->at_bol);
    assert_true(t->has_space);
    expect_tok(t = t->next, LTK_IDENT, "k", 1, 13);
    expect_tok(t = t->next, LTK_PUNCT, "(", 1, 14);
    assert_false(t->has_space);
    expect_tok(t = t->next, LTK_KEYWORD, "device", 1, 15);
    expect_tok(t = t->next, LTK_KEYWORD, "float", 1, 22);
    expect_tok(t = t->next, LTK_PUNCT, "*", 1, 27);
    expect_tok(t = t->next, LTK_IDENT, "a", 1, 29);
    expect_tok(t = t->next, LTK_PUNCT, ")", 1, 30);
    expect_tok(t = t->next, LTK_PUNCT, "{", 2, 1);
    assert_true(t->at_bol);
    expect_tok(t = t->next, LTK_IDENT, "x", 3, 2); /* a tab counts as one column */
    assert_true(t->at_bol);
    assert_true(t->has_space);
    expect_tok(t = t->next, LTK_PUNCT, "+=", 3, 4);
    expect_tok(t = t->next, LTK_NUM, "1", 3, 7);
    expect_tok(t = t->next, LTK_PUNCT, ";", 3, 8);
    expect_tok(t = t->next, LTK_PUNCT, "}", 4, 3);
    expect_tok(t = t->next, LTK_EOF, "", 4, 4);
    assert_null(t->next);
    fixture_free(f);
}

static void test_keywords(void **state)
{
    (void)state;
    static const char *const words[] = {
        "if", "else", "for", "while", "do", "switch", "case", "default", "break", "continue",
        "return", "sizeof", "struct", "typedef", "enum", "union", "const", "static", "inline",
        "volatile", "void", "bool", "char", "short", "int", "long", "unsigned", "signed",
        "float", "true", "false", "kernel", "vertex", "fragment", "device", "constant",
        "threadgroup", "thread", "using", "namespace", "template", "typename", "static_cast",
        "reinterpret_cast", "decltype", "constexpr", "half", "uint", "ushort", "uchar", "ulong",
    };
    Fixture *f = fixture_new();
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        LangToken *t = lex(f, words[i]);
        expect_tok(t, LTK_KEYWORD, words[i], 1, 1);
    }
    static const char *const idents[] = {"kernels", "Int", "_if", "half4", "float2", "metal",
                                         "simd_sum", "x1_"};
    for (size_t i = 0; i < sizeof idents / sizeof idents[0]; i++)
        expect_tok(lex(f, idents[i]), LTK_IDENT, idents[i], 1, 1);
    fixture_free(f);
}

static void test_punctuators(void **state)
{
    (void)state;
    static const char *const expected[] = {
        "a", "<<=", "b", ">>=", "c", "...", "d", "::", "e", "->", "f", "++", "--", "&&", "||",
        "==", "!=", "<=", ">=", "<<", ">>", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
        "##", "#", "[", "[", "]", "]", "?", ":", "~", "!", "<", ">", ",", "=", "%", "^", "|", "&",
        ".", ";", "{", "}", "-", "+", "*", "/",
    };
    Fixture *f = fixture_new();
    LangToken *t = lex(f, "a<<=b>>=c...d::e->f++--&&||==!=<=>=<<>>+=-=*=/=%=&=|=^=###[[]]?:~!<>,="
                          "%^|&.;{}-+*/");
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++, t = t->next) {
        assert_non_null(t);
        if (!lang_tok_equal(t, expected[i]))
            fail_msg("token %zu: expected '%s', got '%.*s'", i, expected[i], t->len, t->loc);
        assert_int_equal(t->kind, i % 2 == 0 && i < 12 ? LTK_IDENT : LTK_PUNCT);
    }
    assert_int_equal(t->kind, LTK_EOF);
    fixture_free(f);
}

typedef struct IntCase {
    const char *text;
    uint64_t value;
    const char *type;
} IntCase;

static void test_integer_literals(void **state)
{
    (void)state;
    /* C 6.4.4.1 with 32-bit int and 64-bit long: decimal literals without u try int, long;
     * hex, octal and binary also try the unsigned types. */
    static const IntCase cases[] = {
        {"0", 0, "int"}, {"42", 42, "int"}, {"2147483647", 2147483647, "int"},
        {"2147483648", 2147483648u, "long"}, {"4294967295", 4294967295u, "long"},
        {"9223372036854775807", 9223372036854775807u, "long"},
        {"9223372036854775808", 9223372036854775808u, "ulong"},
        {"0x7fffffff", 0x7fffffff, "int"}, {"0x80000000", 0x80000000u, "uint"},
        {"0xFFFFFFFF", 0xffffffffu, "uint"}, {"0x100000000", 0x100000000u, "long"},
        {"0xffffffffffffffff", UINT64_MAX, "ulong"}, {"017", 15, "int"}, {"0b1011", 11, "int"},
        {"0B11111111111111111111111111111111", 0xffffffffu, "uint"},
        {"7u", 7, "uint"}, {"7U", 7, "uint"}, {"4294967295u", 4294967295u, "uint"},
        {"4294967296u", 4294967296u, "ulong"}, {"7l", 7, "long"}, {"7L", 7, "long"},
        {"7ll", 7, "long"}, {"7ul", 7, "ulong"}, {"7lu", 7, "ulong"}, {"7UL", 7, "ulong"},
        {"7LU", 7, "ulong"}, {"7ull", 7, "ulong"}, {"7llu", 7, "ulong"},
        {"0xffffffffffffffffl", UINT64_MAX, "ulong"},
        {"18446744073709551615u", UINT64_MAX, "ulong"},
        {"'a'", 97, "int"}, {"'\\n'", 10, "int"}, {"'\\x41'", 65, "int"}, {"'\\0'", 0, "int"},
        {"'\\''", 39, "int"}, {"'\\\\'", 92, "int"}, {"'\\101'", 65, "int"},
        {"'\\377'", (uint64_t)-1, "int"}, /* char is signed */
    };
    Fixture *f = fixture_new();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        LangToken *t = lex(f, cases[i].text);
        if (!t)
            fail_msg("%s: %s", cases[i].text, f->err.message);
        assert_int_equal(t->kind, LTK_NUM);
        assert_false(t->is_float);
        if (t->ival != cases[i].value || strcmp(t->num_type->name, cases[i].type) != 0)
            fail_msg("%s: expected %llu %s, got %llu %s", cases[i].text,
                     (unsigned long long)cases[i].value, cases[i].type,
                     (unsigned long long)t->ival, t->num_type->name);
        assert_int_equal(t->next->kind, LTK_EOF);
    }
    fixture_free(f);
}

typedef struct FloatCase {
    const char *text;
    double value;
    const char *type;
} FloatCase;

static void test_float_literals(void **state)
{
    (void)state;
    /* MSL has no double (spec 2.1): an unsuffixed floating literal is a float, so its value
     * is the decimal rounded to float. Half literals keep the exact decimal value; rounding
     * to half is code generation's business. */
    static const FloatCase cases[] = {
        {"1.5", 1.5, "float"}, {"1.5f", 1.5, "float"}, {"1.5F", 1.5, "float"},
        {".5", 0.5, "float"}, {"2.", 2.0, "float"}, {"1e3", 1000.0, "float"},
        {"1E+3f", 1000.0, "float"}, {"1.e-2f", (double)0.01f, "float"},
        {"0.1", (double)0.1f, "float"}, {"0.1f", (double)0.1f, "float"},
        {"0x1p-2", 0.25, "float"}, {"0x1.8p1f", 3.0, "float"}, {"0X.8P0", 0.5, "float"},
        {"0x1.fffffep127f", 3.4028234663852886e38, "float"},
        {"2.5h", 2.5, "half"}, {"2.5H", 2.5, "half"}, {"0.1h", 0.1, "half"},
        {"1e-1h", 0.1, "half"}, {"09.5", 9.5, "float"}, {"0e0", 0.0, "float"},
    };
    Fixture *f = fixture_new();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        LangToken *t = lex(f, cases[i].text);
        if (!t)
            fail_msg("%s: %s", cases[i].text, f->err.message);
        assert_int_equal(t->kind, LTK_NUM);
        assert_true(t->is_float);
        if (t->fval != cases[i].value || strcmp(t->num_type->name, cases[i].type) != 0)
            fail_msg("%s: expected %.17g %s, got %.17g %s", cases[i].text, cases[i].value,
                     cases[i].type, t->fval, t->num_type->name);
        assert_int_equal(t->next->kind, LTK_EOF);
    }
    fixture_free(f);
}

static void test_strings(void **state)
{
    (void)state;
    Fixture *f = fixture_new();
    LangToken *t = lex(f, "#include \"dir/a.h\"\n[[host_name(\"k\\t\\\"x\\\"\")]]");
    expect_tok(t, LTK_PUNCT, "#", 1, 1);
    expect_tok(t = t->next, LTK_IDENT, "include", 1, 2);
    expect_tok(t = t->next, LTK_STR, "\"dir/a.h\"", 1, 10);
    assert_string_equal(t->str, "dir/a.h");
    for (int i = 0; i < 5; i++)
        t = t->next;
    assert_int_equal(t->kind, LTK_STR);
    assert_int_equal(t->col, 13);
    assert_string_equal(t->str, "k\t\"x\"");
    fixture_free(f);
}

static void test_comments_and_splices(void **state)
{
    (void)state;
    Fixture *f = fixture_new();
    LangToken *t = lex(f, "a /* one\n two */ b // three\nc/**/d\r\ne \\\n f\ng");
    expect_tok(t, LTK_IDENT, "a", 1, 1);
    expect_tok(t = t->next, LTK_IDENT, "b", 2, 9);
    assert_false(t->at_bol); /* a block comment spanning lines does not start a line */
    assert_true(t->has_space);
    expect_tok(t = t->next, LTK_IDENT, "c", 3, 1);
    expect_tok(t = t->next, LTK_IDENT, "d", 3, 6);
    assert_true(t->has_space);
    expect_tok(t = t->next, LTK_IDENT, "e", 4, 1);
    /* the splice joins "f" to line 4; the next line keeps its number */
    expect_tok(t = t->next, LTK_IDENT, "f", 4, 4);
    assert_false(t->at_bol);
    expect_tok(t = t->next, LTK_IDENT, "g", 6, 1);
    fixture_free(f);
}

static void test_lang_tok_equal(void **state)
{
    (void)state;
    Fixture *f = fixture_new();
    LangToken *t = lex(f, "<<= x");
    assert_true(lang_tok_equal(t, "<<="));
    assert_false(lang_tok_equal(t, "<<"));
    assert_false(lang_tok_equal(t, "<<=="));
    assert_true(lang_tok_equal(t->next, "x"));
    assert_true(lang_tok_equal(t->next->next, ""));
    fixture_free(f);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("int a;\n  /* open", "t.metal:2:3: error: unterminated comment");
    expect_error("x = \"abc\n\";", "t.metal:1:5: error: unterminated string literal");
    expect_error("x = 'a", "t.metal:1:5: error: unterminated character literal");
    expect_error("x = '';", "t.metal:1:5: error: empty character literal");
    expect_error("x = 'ab';", "t.metal:1:5: error: multi-character character literal");
    expect_error("a\n b @ c", "t.metal:2:4: error: invalid character '@'");
    expect_error("a $", "t.metal:1:3: error: invalid character '$'");
    expect_error("a \x01", "t.metal:1:3: error: invalid character (byte 0x01)");
    expect_error("x = 12z;", "t.metal:1:7: error: invalid suffix 'z' on integer literal");
    expect_error("x = 1f;", "t.metal:1:6: error: invalid suffix 'f' on integer literal");
    expect_error("x = 1lL;", "t.metal:1:6: error: invalid suffix 'lL' on integer literal");
    expect_error("x = 1uu;", "t.metal:1:6: error: invalid suffix 'uu' on integer literal");
    expect_error("x = 1.5q;", "t.metal:1:8: error: invalid suffix 'q' on floating literal");
    expect_error("x = 1.5l;", "t.metal:1:8: error: invalid suffix 'l' on floating literal");
    expect_error("x = 1.0.0;", "t.metal:1:8: error: invalid suffix '.0' on floating literal");
    expect_error("x = 1e;", "t.metal:1:6: error: exponent has no digits");
    expect_error("x = 18446744073709551616;", "t.metal:1:5: error: integer literal too large");
    expect_error("x = 0x10000000000000000;", "t.metal:1:5: error: integer literal too large");
    expect_error("x = 08;", "t.metal:1:6: error: invalid digit '8' in octal literal");
    expect_error("x = 0x;", "t.metal:1:5: error: invalid number '0x'");
    expect_error("x = 0x1.8;",
                 "t.metal:1:5: error: hexadecimal floating literal requires an exponent");
    expect_error("s = \"\\q\";", "t.metal:1:6: error: unknown escape sequence '\\q'");
    expect_error("c = '\\x100';", "t.metal:1:6: error: hex escape sequence out of range");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds_and_positions),
        cmocka_unit_test(test_keywords),
        cmocka_unit_test(test_punctuators),
        cmocka_unit_test(test_integer_literals),
        cmocka_unit_test(test_float_literals),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_comments_and_splices),
        cmocka_unit_test(test_lang_tok_equal),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
