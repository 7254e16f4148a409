/*
 * test_asm_errors.c — malformed assembly must give a clear, located message and never crash.
 *
 * Each case is a snippet, the `file:line:col: error:` prefix the message must start with
 * (columns counted by hand from the snippet), and a phrase naming what was expected. The
 * last tests feed mutilated and random input and only ask for a well-formed message.
 */
#include "test_util.h"

#include "../isa/isa.h"

typedef struct ErrorCase {
    const char *what;
    const char *text;
    const char *prefix;  /* the message starts with this */
    const char *phrase;  /* and contains this */
} ErrorCase;

static const ErrorCase cases[] = {
    {"unknown op", ".regs 4\n    fadd33 r1, r2, r3\n", "t.s:2:5: error:", "unknown instruction 'fadd33'"},
    {"bad register", ".regs 4\n  mov r1, rx\n", "t.s:2:11: error:", "expected a 32-bit source (rN, uN or an immediate)"},
    {"r200", ".regs 4\nmov r200, 1\n", "t.s:2:5: error:", "register r200 is out of range: registers are r0..r127"},
    {"u300", ".regs 4\nmov r1, u300\n", "t.s:2:9: error:", "uniform u300 is out of range: uniforms are u0..u255"},
    {"missing operand", ".regs 4\nfadd32 r1, r2\n", "t.s:2:14: error:", "missing operand 3: a 32-bit source"},
    {"extra operand", ".regs 4\nfadd32 r1, r2, r3, r3\n", "t.s:2:20: error:", "too many operands: fadd32 takes 3"},
    {"bad modifier", ".regs 4\niadd.sat r1, r2, r3\n", "t.s:2:5: error:", "iadd takes no suffixes"},
    {"unknown suffix on a float op", ".regs 4\nfadd32.rtz r1, r2, r3\n", "t.s:2:7: error:", "it takes only .sat"},
    {"missing condition", ".regs 4\nif_icmp 1, r1, r2\n", "t.s:2:1: error:", "needs an integer condition: .eq .ne .ult"},
    {"float condition on an integer op", ".regs 4\nicmpsel.lt r1, r1, r1, r1, r1\n", "t.s:2:8: error:", "expected one of .eq .ne .ult"},
    {"undefined label", ".regs 4\njmp nowhere\nstop\n", "t.s:2:5: error:", "undefined label 'nowhere'"},
    {"duplicate label", ".regs 4\nagain:\nstop\nagain:\nstop\n", "t.s:4:1: error:", "duplicate label 'again' (first defined on line 2)"},
    {"label at the end", ".regs 4\njmp out\nout:\n", "t.s:2:5: error:", "a jump needs an instruction to land on"},
    /* docs/assembly.md: a label after the last instruction is an error, jumped to or not */
    {"unused label at the end", ".regs 4\nstop\ndone: ; nothing follows\n", "t.s:3:1: error:",
     "label 'done' is after the last instruction; a label marks the instruction after it"},
    /* a SIMD-group ran off the end silently (as if at stop) */
    {"no stop at the end", ".regs 4\nmov r1, 1\n  iadd r1, r1, 1 ; done\n", "t.s:3:3: error:",
     "the last instruction is iadd, so a SIMD-group would run past the end of the kernel; "
     "expected `stop` (or an unconditional `jmp`) last"},
    {"conditional jump at the end", ".regs 4\nagain: nop\njmp_exec_any again\n", "t.s:3:1: error:",
     "the last instruction is jmp_exec_any"},
    {"barrier at the end", ".regs 4\nstop\nbarrier\n", "t.s:3:1: error:", "the last instruction is barrier"},
    {"bad directive", ".regs 4\n.foo 3\nstop\n", "t.s:2:1: error:", "unknown directive '.foo'; expected .kernel, .regs"},
    {".regs missing", "nop\nstop\n", "t.s:1:1: error:", "missing .regs directive"},
    {".regs too big", ".regs 200\nstop\n", "t.s:1:7: error:", ".regs expects a number 1..128"},
    {".regs twice", ".regs 4\n.regs 4\nstop\n", "t.s:2:1: error:", "a second .regs"},
    {"register above .regs", ".regs 4\nmov r5, 1\n", "t.s:2:5: error:", "r5 is above the registers the kernel declares (.regs 4: r0..r3)"},
    {"pair above .regs", ".regs 4\nmov64 r2, r3\n", "t.s:2:11: error:", "'r3' reaches r4, above the registers"},
    {"too-big n", ".regs 4\npop_exec 4\n", "t.s:2:10: error:", "expected an exec count 0..3"},
    {"bad wait slot", ".regs 4\nwait 2\n", "t.s:2:6: error:", "expected a wait slot 0 or 1"},
    {"truncated line", ".regs 4\nld_dev.b32 r1, u0, r2,", "t.s:2:23: error:", "missing operand 4: a wait slot"},
    {"truncated mnemonic", ".regs 4\nld_dev.\n", "t.s:2:7: error:", "empty suffix"},
    {"missing memory format", ".regs 4\nst_tg r1, 0, 0\n", "t.s:2:1: error:", "needs a memory format: .u8 .s8"},
    {"bad element count", ".regs 4\nld_tg.b32.x5 r1, 0, 0\n", "t.s:2:10: error:", "expected .x2, .x3 or .x4"},
    {"data past r127", ".regs 128\nld_tg.b32.x4 r126, 0, 0\n", "t.s:2:14: error:", "r126..r129 runs past r127"},
    {"garbage bytes", ".regs 4\nstop \x01\x80\n", "t.s:2:6: error:", "unexpected byte 0x01"},
    {"empty file", "", "t.s:1:1: error:", "missing .regs directive"},
    {"no instructions", ".regs 4\n; nothing\n", "t.s:1:8: error:", "expected at least `stop`"},
    {"f32 atomic sub", ".regs 4\natom_dev.sub.f32 r1, u0, 0, 1.0\n", "t.s:2:13: error:", "f32 atomics are add and xchg only"},
    {"atomic without type", ".regs 4\natom_tg.add r1, 0, 0, 1\n", "t.s:2:1: error:", "a type after the operation: .i32 .u32 or .f32"},
    {"float reduction and", ".regs 4\nsimd_red.and.f32 r1, r2\n", "t.s:2:13: error:", "works on integers only"},
    {"prefix min", ".regs 4\nsimd_prefix.incl.min.u32 r1, r2\n", "t.s:2:17: error:", "expected .sum or .product"},
    {"prefix without incl", ".regs 4\nsimd_prefix.sum.u32 r1, r2\n", "t.s:2:12: error:", "expected .incl or .excl"},
    {"barrier none and dev", ".regs 4\nbarrier.none.dev\n", "t.s:2:13: error:", "flag after .none"},
    {"cvt missing type", ".regs 4\ncvt.f32 r1, r2\n", "t.s:2:1: error:", "a source type after the destination type"},
    {"cvt bad type", ".regs 4\ncvt.f64.f32 r1, r2\n", "t.s:2:4: error:", "expected one of u8 s8 u16"},
    {"cvt width follows type", ".regs 4\ncvt.f16.f32 r1, r2\n", "t.s:2:13: error:", "a register half (rNl or rNh)"},
    {"cvt f32 not in a half", ".regs 4\ncvt.f32.u16 r1l, r2l\n", "t.s:2:13: error:", "a 32-bit register (rN)"},
    {"cvt u16 destination", ".regs 4\ncvt.u16.u32 7, r2\n", "t.s:2:13: error:",
     "expected a register (rN) or a register half (rNl or rNh) for operand 1 of cvt, got an immediate"},
    {"half where 32 bits", ".regs 4\niadd r1l, r2, r3\n", "t.s:2:6: error:", "expected a 32-bit register (rN) for operand 1 of iadd"},
    {"source mods on an int op", ".regs 4\niadd r1, -r2, r3\n", "t.s:2:10: error:", "source modifiers (-x, |x|, -|x|) are only for"},
    {"unclosed abs", ".regs 4\nfadd32 r1, |r2, r3\n", "t.s:2:12: error:", "expected a closing '|'"},
    {"immediate too big", ".regs 4\nmov r1, 0x100000000\n", "t.s:2:9: error:", "does not fit in 32 bits"},
    {"float in 64-bit op", ".regs 4\nmov64 r2, 1.5\n", "t.s:2:11: error:", "64-bit operands take integer immediates"},
    {"bad float", ".regs 4\nfadd32 r1, r2, 1.5q\n", "t.s:2:16: error:", "a float is written like 1.5"},
    /* a number past the type's largest was taken for infinity */
    {"float past float", ".regs 4\nmov r1, 1e400\n", "t.s:2:9: error:", "out of range for float"},
    {"float past float 1e39", ".regs 4\nfadd32 r1, r2, -1e39\n", "t.s:2:16: error:", "out of range for float"},
    {"float past half", ".regs 4\nmov16 r1l, 70000.0\n", "t.s:2:12: error:", "out of range for half"},
    {"uniform past float", ".regs 4\n.uniform u9, 1e400\nstop\n", "t.s:2:14: error:", "out of range for float"},
    {"immediate destination", ".regs 4\nmov 3, r1\n", "t.s:2:5: error:", "got an immediate"},
    {"uniform pair past u255", ".regs 4\nld_dev.b32 r1, u255, 0, 0\n", "t.s:2:16: error:", "the last pair is u254"},
    {"unknown special register", ".regs 4\nget_sr r1, lane_id\n", "t.s:2:12: error:", "unknown special register 'lane_id'"},
    {"two operands without comma", ".regs 4\nmov r1 r2\n", "t.s:2:8: error:", "expected ',' between operands"},
    {"junk after operand", ".regs 4\nfadd32 r1, r2 r3, r1\n", "t.s:2:15: error:", "expected ',' between operands"},
    {"bad .arg kind", ".regs 4\n.arg x, global, u0\nstop\n", "t.s:2:9: error:", "expected device, constant or threadgroup"},
    {".arg pair past u254", ".regs 4\n.arg x, device, u255\nstop\n", "t.s:2:17: error:", "u0..u254 (a pair)"},
    {"duplicate .arg", ".regs 4\n.arg x, device, u0\n.arg x, device, u2\nstop\n", "t.s:3:6: error:", "a second argument named 'x'"},
    {"overlapping .arg uniforms", ".regs 4\n.arg a, device, u0, tensor\n.arg b, device, u2\nstop\n",
     "t.s:3:1: error:", "'b' takes u2..u3, and 'a' already holds u0..u4"},
    {"overlapping threadgroup .arg", ".regs 4\n.arg a, device, u4\n.arg s, threadgroup, u5\nstop\n",
     "t.s:3:1: error:", "'s' takes u5..u5, and 'a' already holds u4..u5"},
    {"tensor .arg past u255", ".regs 4\n.arg a, device, u252, tensor\nstop\n", "t.s:2:23: error:",
     "five uniforms (address, extents, pitch): u252..u256 is past u255"},
    /* the launch writes an argument's uniforms: the .uniform value was silently lost */
    {".uniform inside an .arg", ".regs 4\n.arg a, device, u0\n.uniform u1, 5\nstop\n", "t.s:3:10: error:",
     "u1 belongs to 'a' (u0..u1), which the launch fills; expected a uniform no .arg or .data takes"},
    {".uniform inside a tensor .arg", ".regs 4\n.arg t, constant, u8, tensor\n.uniform u12, 1.0\nstop\n",
     "t.s:3:10: error:", "u12 belongs to 't' (u8..u12)"},
    /* constant data: its address goes into a uniform pair the launch fills */
    {".uniform inside a .data", ".regs 4\n.data tab, u4, 8, 4\n.uniform u5, 1\nstop\n",
     "t.s:3:10: error:", "u5 belongs to 'tab' (u4..u5)"},
    {".data over an .arg", ".regs 4\n.arg a, device, u0\n.data tab, u1, 8, 4\nstop\n",
     "t.s:3:12: error:", "'tab' takes u1..u2, and 'a' already holds u0..u1"},
    {".arg over a .data", ".regs 4\n.data tab, u2, 8, 4\n.arg a, device, u3\nstop\n",
     "t.s:3:1: error:", "'a' takes u3..u4, and 'tab' already holds u2..u3"},
    {".data twice", ".regs 4\n.data t, u0, 4, 4\n.data t, u2, 4, 4\nstop\n", "t.s:3:7: error:",
     "a second .data named 't'"},
    {".data without size", ".regs 4\n.data t, u0\nstop\n", "t.s:2:12: error:",
     ".data's size expects a number"},
    {".data element past its size", ".regs 4\n.data t, u0, 4, 8\nstop\n", "t.s:2:17: error:",
     ".data's element size expects a number 1..4"},
    {".word without .data", ".regs 4\n.word 1\nstop\n", "t.s:2:1: error:", ".word without a .data"},
    {".word after code", ".regs 4\n.data t, u0, 4, 4\nnop\n.word 1\nstop\n", "t.s:4:1: error:",
     ".word without a .data"},
    {".word past the block", ".regs 4\n.data t, u0, 4, 4\n.word 1, 2\nstop\n", "t.s:3:10: error:",
     "'t' holds 4 bytes; this word is past its end"},
    {".word bytes past a short block", ".regs 4\n.data t, u0, 3, 1\n.word 0x01020304\nstop\n",
     "t.s:3:7: error:", "'t' holds 3 bytes"},
    {".word not a number", ".regs 4\n.data t, u0, 4, 4\n.word x\nstop\n", "t.s:3:7: error:",
     ".word expects 32-bit numbers"},
    {".arg over a .uniform", ".regs 4\n.uniform u3, 7\n.arg s, threadgroup, u3\nstop\n", "t.s:3:22: error:",
     "'s' takes u3..u3, and u3 already has a value (.uniform)"},
    {".uniform twice", ".regs 4\n.uniform u1, 2\n.uniform u1, 3\nstop\n", "t.s:3:1: error:", "u1 is given a value twice"},
    {".kernel without name", ".kernel\n.regs 4\nstop\n", "t.s:1:8: error:", ".kernel expects a name"},
    {"text after directive", ".regs 4 5\nstop\n", "t.s:1:9: error:", "unexpected text after .regs"},
    {"label starting with a digit", ".regs 4\n1abc: stop\n", "t.s:2:1: error:", "cannot start with a digit"},
    {"stray punctuation", ".regs 4\n@stop\n", "t.s:2:1: error:", "expected an instruction, a directive or a label"},
    {"comment hides nothing", ".regs 4 // ok\nnop ; fine\nfoo // not an op\n", "t.s:3:1: error:", "unknown instruction 'foo'"},
};

static void test_error_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        UtilError err;
        memset(&err, 0, sizeof err);
        IsaProgram *p = isa_assemble(cases[i].text, "t.s", &err);
        if (p) {
            isa_program_free(p);
            fail_msg("%s: assembled without an error", cases[i].what);
        }
        if (strncmp(err.message, cases[i].prefix, strlen(cases[i].prefix)) != 0 ||
            !strstr(err.message, cases[i].phrase))
            fail_msg("%s: got\n%s\nwanted a message starting '%s' containing '%s'", cases[i].what,
                     err.message, cases[i].prefix, cases[i].phrase);
        /* the message is three lines: the error, the source line, a caret line */
        const char *nl1 = strchr(err.message, '\n');
        assert_non_null(nl1);
        const char *nl2 = strchr(nl1 + 1, '\n');
        assert_non_null(nl2);
        assert_null(strchr(nl2 + 1, '\n'));
        assert_non_null(strchr(nl2 + 1, '^'));
    }
}

/* The whole message, caret and underline included, for one case. */
static void test_message_layout(void **state)
{
    (void)state;
    UtilError err;
    assert_null(isa_assemble(".regs 4\n    fadd33 r1, r2, r3\n", "k.s", &err));
    assert_string_equal(err.message, "k.s:2:5: error: unknown instruction 'fadd33' (docs/ISA.md "
                                     "lists them)\n    fadd33 r1, r2, r3\n    ^~~~~~");
    assert_null(isa_assemble(".regs 4\n\tmov\tr1, r9x\n", "k.s", &err));
    assert_string_equal(err.message, "k.s:2:10: error: bad register 'r9x': registers are rN, rNl, "
                                     "rNh, uniforms uN\n\tmov\tr1, r9x\n\t   \t    ^~~");
}

static void test_very_long_line(void **state)
{
    (void)state;
    size_t n = 20000;
    char *text = malloc(n + 64);
    strcpy(text, ".regs 4\nmov r1, ");
    size_t len = strlen(text);
    memset(text + len, 'x', n);
    strcpy(text + len + n, "\nstop\n");
    UtilError err;
    assert_null(isa_assemble(text, "t.s", &err));
    assert_true(strncmp(err.message, "t.s:2:9: error: expected a 32-bit source", 40) == 0);
    assert_non_null(strstr(err.message, "..."));
    /* an error far to the right keeps its column and shows a window around it */
    memset(text + len, ' ', n);
    memcpy(text + len + n - 3, "r1$", 3);
    assert_null(isa_assemble(text, "t.s", &err));
    char want[64];
    snprintf(want, sizeof want, "t.s:2:%zu: error:", len - 8 + n - 1 + 1);
    if (strncmp(err.message, want, strlen(want)) != 0)
        fail_msg("got %s, wanted %s", err.message, want);
    assert_true(strlen(err.message) < sizeof err.message - 1);
    free(text);
}

static void check_message(const char *text)
{
    UtilError err;
    memset(&err, 0, sizeof err);
    IsaProgram *p = isa_assemble(text, "f.s", &err);
    if (p) {
        isa_program_free(p);
        return;
    }
    if (strncmp(err.message, "f.s:", 4) != 0 || !strstr(err.message, ": error: "))
        fail_msg("bad message for input:\n%s\n---\n%s", text, err.message);
}

/* Every prefix of a real kernel, and every single-byte change, gives a program or a message. */
static void test_mutations_never_crash(void **state)
{
    (void)state;
    const char *good = ".kernel k\n.regs 8\n.arg a, device, u0\nstart: get_sr r1, thread_index_in_simdgroup\n"
                       "  ld_dev.h16.x2 r2l, u0, r1, 1 ; c\n  wait 1\n  ffma16.sat r3h, -|r2l|, r2h, 0.5\n"
                       "  if_fcmp.lt 1, r3, 1.0e3\n  cvt.s32.f16.rtz r4, r3h\n  simd_prefix.excl.sum.i32 r5, r4\n"
                       "  atom_dev.add.f32 r6, u0, r1, -2.5\n  barrier.dev.tg\n  jmp_exec_none start\n"
                       "  pop_exec 1\n  stop\n";
    size_t n = strlen(good);
    char *buf = malloc(n + 1);
    static const char bytes[] = {'\0', ' ', ',', '.', ';', '|', '-', ':', 'r', 'u', '9', 'x', '\n', '\x7f', '\xff'};
    for (size_t i = 0; i <= n; i++) {
        memcpy(buf, good, i);
        buf[i] = '\0';
        check_message(buf);
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t b = 1; b < sizeof bytes; b++) {
            memcpy(buf, good, n + 1);
            buf[i] = bytes[b];
            check_message(buf);
        }
    }
    unsigned seed = 12345;
    for (int round = 0; round < 2000; round++) {
        size_t len = 0;
        for (; len < 80; len++) {
            seed = seed * 1103515245u + 12345u;
            char c = (char)(seed >> 16);
            if (!c)
                break;
            buf[len] = c;
        }
        buf[len] = '\0';
        check_message(buf);
    }
    free(buf);
    UtilError err;
    IsaProgram *p = isa_assemble(good, "f.s", &err);
    if (!p)
        fail_msg("%s", err.message);
    isa_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_cases),
        cmocka_unit_test(test_message_layout),
        cmocka_unit_test(test_very_long_line),
        cmocka_unit_test(test_mutations_never_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
