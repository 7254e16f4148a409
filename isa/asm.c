/*
 * asm.c — the text assembler: turns lockstep assembly (docs/assembly.md) into an IsaProgram.
 *
 * It reads one line at a time with a hand-written scanner, because every message must point
 * at a column: `file:line:col: error: ...`, the source line, and a caret under the token.
 * Operands are parsed straight from the table's operand letters and modifier bits, so a new
 * op in isa_table.h needs no parser change. Two things can only be checked once the whole
 * file is read — label targets and registers against `.regs` — so the assembler remembers
 * where each label use and register use was written and checks them before handing the
 * program to isa_program_finish, whose own messages have no location.
 */
#include "asm_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- messages ---------------------------------------------------------------------------- */

/* Long lines are shown as a window around the column so the message stays readable (and
 * fits UtilError); control bytes are shown as '?'. */
bool isa_asm_fail(const Asm *a, AsmPos pos, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t n = pos.line_len;
    while (n > 0 && (pos.line[n - 1] == '\r' || pos.line[n - 1] == '\n'))
        n--;
    size_t col0 = pos.col - 1 < n ? pos.col - 1 : n;
    size_t start = col0 > 100 ? col0 - 60 : 0;
    size_t shown = n - start > 160 ? 160 : n - start;
    char src[200], caret[200];
    size_t si = 0, ci = 0;
    if (start) {
        memcpy(src, "...", 3);
        memcpy(caret, "   ", 3);
        si = ci = 3;
    }
    for (size_t i = start; i < start + shown; i++) {
        unsigned char c = (unsigned char)pos.line[i];
        src[si++] = c == '\t' || (c >= 0x20 && c < 0x7f) ? (char)c : '?';
        if (i < col0)
            caret[ci++] = c == '\t' ? '\t' : ' ';
    }
    if (start + shown < n) {
        memcpy(src + si, "...", 3);
        si += 3;
    }
    src[si] = '\0';
    caret[ci++] = '^';
    for (uint32_t i = 1; i < pos.len && col0 + i < start + shown && ci < 190; i++)
        caret[ci++] = '~';
    caret[ci] = '\0';
    if (a->err)
        snprintf(a->err->message, sizeof a->err->message, "%s:%u:%u: error: %s\n%s\n%s",
                 a->file, pos.line_no, pos.col, msg, src, caret);
    return false;
}

/* ---- bookkeeping ------------------------------------------------------------------------- */

static void note_use(Asm *a, int opd, uint32_t last_reg, AsmPos pos)
{
    AsmRef r = {a->prog->count, (uint8_t)opd, last_reg, pos};
    UTIL_PUSH(a->uses, a->num_uses, a->cap_uses, r);
}

static const char *letter_what(char shape)
{
    switch (shape) {
    case 'D': return "a 32-bit register (rN)";
    case 'H': return "a register half (rNl or rNh)";
    case 'E': return "a register (rN) or a register half (rNl or rNh)";
    case 'e': return "a 16-bit integer source (rN, rNl, rNh, uN or an immediate)";
    case 'P': return "a register pair (rN, meaning rN:rN+1)";
    case 's': return "a 32-bit source (rN, uN or an immediate)";
    case 'h': return "a 16-bit source (rNl, rNh, uN or an immediate)";
    case 'p': return "a 64-bit source (register pair rN, uniform pair uN or an immediate)";
    case 'b': return "a 64-bit base address (register pair rN or uniform pair uN)";
    case 'a': return "a 32-bit byte address (rN, uN or an immediate)";
    case 'n': return "an exec count 0..3";
    case 'k': return "a wait slot 0 or 1";
    case 'g': return "the SIMD-groups of the execution scope, 1..32";
    case 'l': return "a label";
    case 'r': return "a special register name (e.g. thread_position_in_grid.x)";
    default: return "an operand";
    }
}

/* ---- operands ---------------------------------------------------------------------------- */

/* A register or uniform token `rN`, `rNl`, `rNh`, `uN` at s; sets *end past it. Returns
 * false (with the message) when it is malformed or out of range. */
static bool scan_reg(Asm *a, const char *s, const char *e, char *file, uint32_t *num, int *half,
                     const char **end)
{
    const char *p = s + 1;
    *file = *s;
    *half = -1;
    uint32_t v = 0;
    while (p < e && is_digit(*p) && v < 100000)
        v = v * 10 + (uint32_t)(*p++ - '0');
    if (*file == 'r' && p < e && (*p == 'l' || *p == 'h'))
        *half = *p++ == 'h';
    const char *tok_end = p;
    while (tok_end < e && (is_ident(*tok_end)))
        tok_end++;
    if (tok_end != p)
        return isa_asm_fail(a, pos_at(a, s, (size_t)(tok_end - s)),
                       "bad register '%.*s': registers are rN, rNl, rNh, uniforms uN",
                       (int)UTIL_MIN(tok_end - s, ASM_SHOW_TOKEN), s);
    if (*file == 'r' && v > 127)
        return isa_asm_fail(a, pos_at(a, s, (size_t)(p - s)),
                       "register r%u is out of range: registers are r0..r127", v);
    if (*file == 'u' && v > 255)
        return isa_asm_fail(a, pos_at(a, s, (size_t)(p - s)),
                       "uniform u%u is out of range: uniforms are u0..u255", v);
    *num = v;
    *end = p;
    return true;
}

/* operand = ["-"] ["|"] (register | uniform | immediate) ["|"] | label | sr | number */
static bool parse_operand(Asm *a, IsaInst *in, int k, char letter, const char *s, const char *e)
{
    const IsaOpInfo *info = &isa_ops[in->op];
    char shape = isa_operand_shape(in, k, letter);
    IsaOperand *o = &in->opd[k];
    AsmPos whole = pos_at(a, s, (size_t)(e - s));
    int tok_len = (int)UTIL_MIN(e - s, ASM_SHOW_TOKEN);
    if (shape == 'n' || shape == 'k' || shape == 'g') {
        uint32_t v;
        uint32_t max = shape == 'n' ? 3 : shape == 'k' ? 1 : 32;
        if (!scan_small_uint(s, e, &v) || v > max || (shape == 'g' && v == 0))
            return isa_asm_fail(a, whole, "expected %s, got '%.*s'", letter_what(shape), tok_len, s);
        o->kind = ISA_OPD_NUM;
        o->imm = v;
        return true;
    }
    if (shape == 'l') {
        if (!is_alpha(*s) && *s != '.')
            return isa_asm_fail(a, whole, "expected a label name, got '%.*s'", tok_len, s);
        if (scan_ident(s, e) != e)
            return isa_asm_fail(a, pos_at(a, scan_ident(s, e), 1), "unexpected text after the label name");
        o->kind = ISA_OPD_LABEL;
        AsmRef r = {a->prog->count, (uint8_t)k, 0, whole};
        UTIL_PUSH(a->fixups, a->num_fixups, a->cap_fixups, r);
        return true;
    }
    if (shape == 'r') {
        for (int i = 0; i < ISA_SR_COUNT; i++) {
            if (token_is(s, (size_t)(e - s), isa_sr_names[i])) {
                o->kind = ISA_OPD_SR;
                o->index = (uint16_t)i;
                return true;
            }
        }
        return isa_asm_fail(a, whole, "unknown special register '%.*s'; expected e.g. "
                       "thread_position_in_grid.x or thread_index_in_simdgroup", tok_len, s);
    }
    /* Source modifiers: -x, |x|, -|x| */
    const char *p = s, *inner_end = e;
    uint8_t flags = 0;
    if (*p == '-' && p + 1 < e && (p[1] == 'r' || p[1] == 'u' || p[1] == '|')) {
        flags |= ISA_OPD_NEG;
        p++;
    }
    if (*p == '|') {
        if (e - p < 2 || e[-1] != '|')
            return isa_asm_fail(a, pos_at(a, p, 1), "'|' opens an absolute value; expected a closing '|'");
        flags |= ISA_OPD_ABS;
        p = skip_space(p + 1, e);
        inner_end = trim_end(p, e - 1);
    }
    if (flags && (!(info->modifiers & ISA_MOD_SRC) || (shape != 's' && shape != 'h')))
        return isa_asm_fail(a, whole, "source modifiers (-x, |x|, -|x|) are only for the float "
                       "sources of ops marked src mods, not operand %d of %s", k + 1, info->name);
    if (p == inner_end)
        return isa_asm_fail(a, whole, "expected %s", letter_what(shape));
    const char *tok_end = p;
    if ((*p == 'r' || *p == 'u') && p + 1 < inner_end && is_digit(p[1])) {
        char file;
        uint32_t num = 0;
        int half;
        if (!scan_reg(a, p, inner_end, &file, &num, &half, &tok_end))
            return false;
        AsmPos rpos = pos_at(a, p, (size_t)(tok_end - p));
        bool wants_half = shape == 'H' || shape == 'h' || ((shape == 'E' || shape == 'e') && half >= 0);
        bool pair = shape == 'P' || shape == 'p' || shape == 'b';
        if (shape == 'D' || shape == 'H' || shape == 'P' || shape == 'E') {
            if (file != 'r' || (half >= 0) != wants_half)
                return isa_asm_fail(a, rpos, "expected %s for operand %d of %s, got '%.*s'",
                               letter_what(shape), k + 1, info->name, (int)(tok_end - p), p);
        } else if (file == 'r' && (half >= 0) != wants_half) {
            return isa_asm_fail(a, rpos, "expected %s for operand %d of %s, got '%.*s'",
                           letter_what(shape), k + 1, info->name, (int)(tok_end - p), p);
        }
        uint32_t count = 1;
        if (letter == 'm')
            count = in->count;
        if (file == 'u') {
            if (pair && num > 254)
                return isa_asm_fail(a, rpos, "u%u starts a uniform pair past u255; the last pair is u254", num);
            o->kind = pair ? ISA_OPD_U64 : wants_half ? ISA_OPD_U16 : ISA_OPD_U32;
            o->index = (uint16_t)num;
        } else if (half >= 0) {
            uint32_t first = num * 2 + (uint32_t)half, last = (first + count - 1) / 2;
            if (last > 127)
                return isa_asm_fail(a, rpos, "%u halves from r%u%c run past r127", count, num, half ? 'h' : 'l');
            o->kind = ISA_OPD_R16;
            o->index = (uint16_t)first;
            note_use(a, k, last, rpos);
        } else {
            uint32_t last = num + (pair ? 2 : count) - 1;
            if (last > 127)
                return isa_asm_fail(a, rpos, "r%u..r%u runs past r127", num, last);
            o->kind = pair ? ISA_OPD_R64 : ISA_OPD_R32;
            o->index = (uint16_t)num;
            note_use(a, k, last, rpos);
        }
    } else if (is_digit(*p) || *p == '-' || *p == '+' || *p == '.' || (is_alpha(*p) && shape != 'b' &&
               inner_end - p >= 3 &&
               (memcmp(p, "inf", 3) == 0 || memcmp(p, "nan", 3) == 0))) {
        tok_end = p;
        while (tok_end < inner_end && (is_ident(*tok_end) || *tok_end == '-' || *tok_end == '+'))
            tok_end++;
        AsmPos ipos = pos_at(a, p, (size_t)(tok_end - p));
        if (flags)
            return isa_asm_fail(a, ipos, "source modifiers apply to registers and uniforms; write the "
                           "immediate's value instead");
        if (shape == 'b' || shape == 'D' || shape == 'H' || shape == 'P' || shape == 'E')
            return isa_asm_fail(a, ipos, "expected %s for operand %d of %s, got an immediate",
                           letter_what(shape), k + 1, info->name);
        uint64_t v;
        const char *why = isa_parse_imm(p, (size_t)(tok_end - p), isa_shape_bits(shape), &v);
        if (why)
            return isa_asm_fail(a, ipos, "bad immediate '%.*s': %s", (int)UTIL_MIN(tok_end - p, ASM_SHOW_TOKEN), p, why);
        o->kind = ISA_OPD_IMM;
        o->imm = v;
    } else {
        const char *bad_end = scan_ident(p, inner_end);
        if (bad_end == p)
            bad_end = p + 1;
        return isa_asm_fail(a, pos_at(a, p, (size_t)(bad_end - p)), "expected %s for operand %d of %s, got '%.*s'",
                       letter_what(shape), k + 1, info->name, (int)UTIL_MIN(bad_end - p, ASM_SHOW_TOKEN), p);
    }
    o->flags = flags;
    const char *rest = skip_space(tok_end, inner_end);
    if (rest != inner_end)
        return isa_asm_fail(a, pos_at(a, rest, (size_t)(scan_ident(rest, inner_end) - rest) + 0),
                       "unexpected '%.*s' after operand %d; expected ',' between operands",
                       (int)UTIL_MIN(inner_end - rest, ASM_SHOW_TOKEN), rest, k + 1);
    return true;
}

/* ---- mnemonics and suffixes -------------------------------------------------------------- */

typedef struct AsmSuffix {
    const char *s;
    size_t len;
} AsmSuffix;

static int find_name(const AsmSuffix *sx, const char *const *names, int count)
{
    for (int i = 0; i < count; i++)
        if (names[i] && token_is(sx->s, sx->len, names[i]))
            return i;
    return -1;
}

static const char *const int_cond_list = ".eq .ne .ult .ule .ugt .uge .slt .sle .sgt .sge";
static const char *const float_cond_list = ".eq .ne .lt .le .gt .ge";

/* The type names atomics and reductions accept (i32 spells s32). */
static int find_elem_type(const AsmSuffix *sx, bool allow_f16)
{
    static const IsaType types[] = {ISA_TYPE_S32, ISA_TYPE_U32, ISA_TYPE_F32, ISA_TYPE_F16};
    for (int i = 0; i < (allow_f16 ? 4 : 3); i++)
        if (token_is(sx->s, sx->len, isa_elem_type_name(types[i])))
            return (int)types[i];
    return -1;
}

#define SUFFIX_POS(sx) pos_at(a, (sx)->s - 1, (sx)->len + 1)
#define NEED_SUFFIX(what)                                                                        \
    do {                                                                                         \
        if (i >= n)                                                                              \
            return isa_asm_fail(a, mn_pos, "%s needs %s", info->name, what);                          \
    } while (0)

/* mnemonic = op ("." suffix)*, suffixes in the order of docs/assembly.md */
static bool parse_suffixes(Asm *a, IsaInst *in, const AsmSuffix *sx, int n, AsmPos mn_pos)
{
    const IsaOpInfo *info = &isa_ops[in->op];
    uint32_t mods = info->modifiers;
    int i = 0, v;
    if ((mods & ISA_MOD_SAT) && i < n && token_is(sx[i].s, sx[i].len, "sat")) {
        in->flags |= ISA_INST_SAT;
        i++;
    }
    if (mods & (ISA_MOD_ICOND | ISA_MOD_FCOND)) {
        bool fl = mods & ISA_MOD_FCOND;
        const char *list = fl ? float_cond_list : int_cond_list;
        NEED_SUFFIX(fl ? "a float condition: .eq .ne .lt .le .gt .ge"
                       : "an integer condition: .eq .ne .ult .ule .ugt .uge .slt .sle .sgt .sge");
        v = find_name(&sx[i], isa_cond_names, ISA_COND_COUNT);
        bool ok = v >= 0 && (fl ? (v <= ISA_COND_NE || v >= ISA_COND_LT) : v < ISA_COND_LT);
        if (!ok)
            return isa_asm_fail(a, SUFFIX_POS(&sx[i]), "'.%.*s' is not a condition of %s; expected one of %s",
                           (int)UTIL_MIN(sx[i].len, ASM_SHOW_TOKEN), sx[i].s, info->name, list);
        in->cond = (uint8_t)v;
        i++;
    }
    if (mods & ISA_MOD_CVT) {
        for (int t = 0; t < 2; t++) {
            NEED_SUFFIX(t == 0 ? "a destination and a source type, e.g. cvt.f32.s32"
                               : "a source type after the destination type, e.g. cvt.f32.s32");
            v = find_name(&sx[i], isa_type_names, ISA_TYPE_COUNT);
            if (v < 0)
                return isa_asm_fail(a, SUFFIX_POS(&sx[i]), "'.%.*s' is not a type; expected one of "
                               "u8 s8 u16 s16 u32 s32 u64 s64 f16 f32 bf16",
                               (int)UTIL_MIN(sx[i].len, ASM_SHOW_TOKEN), sx[i].s);
            if (t == 0)
                in->type = (uint8_t)v;
            else
                in->src_type = (uint8_t)v;
            i++;
        }
        if (i < n && token_is(sx[i].s, sx[i].len, "rte"))
            in->round = ISA_ROUND_RTE, i++;
        else if (i < n && token_is(sx[i].s, sx[i].len, "rtz"))
            in->round = ISA_ROUND_RTZ, i++;
    }
    if (mods & ISA_MOD_MEM) {
        NEED_SUFFIX("a memory format: .u8 .s8 .u16 .s16 .h16 or .b32");
        v = find_name(&sx[i], isa_fmt_names, ISA_FMT_COUNT);
        if (v < 0)
            return isa_asm_fail(a, SUFFIX_POS(&sx[i]), "'.%.*s' is not a memory format; expected one "
                           "of .u8 .s8 .u16 .s16 .h16 .b32", (int)UTIL_MIN(sx[i].len, ASM_SHOW_TOKEN), sx[i].s);
        in->type = (uint8_t)v;
        in->count = 1;
        i++;
        if (i < n && sx[i].len == 2 && sx[i].s[0] == 'x') {
            if (sx[i].s[1] < '2' || sx[i].s[1] > '4')
                return isa_asm_fail(a, SUFFIX_POS(&sx[i]), "a memory op moves 1 to 4 elements: "
                               "expected .x2, .x3 or .x4 (or nothing for 1)");
            in->count = (uint8_t)(sx[i].s[1] - '0');
            i++;
        }
    }
    if (mods & ISA_MOD_ATOM) {
        NEED_SUFFIX("an operation and a type, e.g. .add.u32");
        v = find_name(&sx[i], isa_atomic_names, ISA_ATOM_COUNT);
        if (v < 0)
            return isa_asm_fail(a, SUFFIX_POS(&sx[i]), "'.%.*s' is not an atomic operation; expected "
                           "one of .add .sub .xchg .min .max .and .or .xor",
                           (int)UTIL_MIN(sx[i].len, ASM_SHOW_TOKEN), sx[i].s);
        in->cond = (uint8_t)v;
        i++;
        NEED_SUFFIX("a type after the operation: .i32 .u32 or .f32");
        v = find_elem_type(&sx[i], false);
        if (v < 0)
            return isa_asm_fail(a, SUFFIX_POS(&sx[i]), "'.%.*s' is not an atomic type; expected .i32 .u32 or .f32",
                           (int)UTIL_MIN(sx[i].len, ASM_SHOW_TOKEN), sx[i].s);
        if (v == ISA_TYPE_F32 && in->cond != ISA_ATOM_ADD && in->cond != ISA_ATOM_XCHG)
            return isa_asm_fail(a, SUFFIX_POS(&sx[i]), "f32 atomics are add and xchg only, not %s",
                           isa_atomic_names[in->cond]);
        in->type = (uint8_t)v;
        i++;
    }
    if (mods & ISA_MOD_ATYPE) {
        NEED_SUFFIX("a type: .i32 or .u32");
        v = find_elem_type(&sx[i], false);
        if (v < 0 || v == ISA_TYPE_F32)
            return isa_asm_fail(a, SUFFIX_POS(&sx[i]), "'.%.*s' is not a type of %s; expected .i32 or .u32",
                           (int)UTIL_MIN(sx[i].len, ASM_SHOW_TOKEN), sx[i].s, info->name);
        in->type = (uint8_t)v;
        i++;
    }
    if (mods & ISA_MOD_BAR) {
        bool none = false;
        for (; i < n; i++) {
            int bit = token_is(sx[i].s, sx[i].len, "dev") ? ISA_MEM_DEVICE
                      : token_is(sx[i].s, sx[i].len, "tg") ? ISA_MEM_THREADGROUP
                      : token_is(sx[i].s, sx[i].len, "tex") ? ISA_MEM_TEXTURE
                      : token_is(sx[i].s, sx[i].len, "none") ? 0 : -1;
            if (bit < 0)
                return isa_asm_fail(a, SUFFIX_POS(&sx[i]), "'.%.*s' is not a barrier flag; expected "
                               ".dev .tg .tex or .none", (int)UTIL_MIN(sx[i].len, ASM_SHOW_TOKEN), sx[i].s);
            if ((bit == 0 && (none || in->flags)) || (bit && (none || (in->flags & bit))))
                return isa_asm_fail(a, SUFFIX_POS(&sx[i]), bit ? "repeated barrier flag, or a flag after .none"
                                                          : ".none cannot be combined with other flags");
            none |= bit == 0;
            in->flags |= (uint8_t)bit;
        }
    }
    if (mods & ISA_MOD_PREFIX) {
        NEED_SUFFIX(".incl or .excl, an operation and a type, e.g. .excl.sum.u32");
        if (token_is(sx[i].s, sx[i].len, "incl") || token_is(sx[i].s, sx[i].len, "excl"))
            in->count = sx[i].s[0] == 'i';
        else
            return isa_asm_fail(a, SUFFIX_POS(&sx[i]), "expected .incl or .excl, got '.%.*s'",
                           (int)UTIL_MIN(sx[i].len, ASM_SHOW_TOKEN), sx[i].s);
        i++;
    }
    if (mods & (ISA_MOD_RED | ISA_MOD_PREFIX)) {
        bool prefix = mods & ISA_MOD_PREFIX;
        NEED_SUFFIX(prefix ? "an operation (.sum or .product) and a type" : "an operation and a type, e.g. .sum.f32");
        v = find_name(&sx[i], isa_reduce_names, prefix ? ISA_RED_MIN : ISA_RED_COUNT);
        if (v < 0)
            return isa_asm_fail(a, SUFFIX_POS(&sx[i]), "'.%.*s' is not an operation of %s; expected %s",
                           (int)UTIL_MIN(sx[i].len, ASM_SHOW_TOKEN), sx[i].s, info->name,
                           prefix ? ".sum or .product" : ".sum .product .min .max .and .or .xor");
        in->cond = (uint8_t)v;
        i++;
        NEED_SUFFIX("a type after the operation: .i32 .u32 .f32 or .f16");
        v = find_elem_type(&sx[i], true);
        if (v < 0)
            return isa_asm_fail(a, SUFFIX_POS(&sx[i]), "'.%.*s' is not a type of %s; expected .i32 .u32 .f32 or .f16",
                           (int)UTIL_MIN(sx[i].len, ASM_SHOW_TOKEN), sx[i].s, info->name);
        if ((v == ISA_TYPE_F32 || v == ISA_TYPE_F16) && in->cond >= ISA_RED_AND)
            return isa_asm_fail(a, SUFFIX_POS(&sx[i]), "%s.%s works on integers only (.i32 or .u32)",
                           info->name, isa_reduce_names[in->cond]);
        in->type = (uint8_t)v;
        i++;
    }
    if (i < n) {
        if (mods == 0 || mods == ISA_MOD_SRC)
            return isa_asm_fail(a, SUFFIX_POS(&sx[i]), "unexpected suffix '.%.*s': %s takes no suffixes",
                           (int)UTIL_MIN(sx[i].len, ASM_SHOW_TOKEN), sx[i].s, info->name);
        return isa_asm_fail(a, SUFFIX_POS(&sx[i]), "unexpected suffix '.%.*s' on %s%s",
                       (int)UTIL_MIN(sx[i].len, ASM_SHOW_TOKEN), sx[i].s, info->name,
                       (mods & ISA_MOD_SAT) ? " (it takes only .sat)" : "");
    }
    return true;
}

/* instruction = mnemonic [operand ("," operand)*] */
static bool parse_instruction(Asm *a, const char *p, const char *end)
{
    const char *mn_end = scan_ident(p, end);
    const char *dot = memchr(p, '.', (size_t)(mn_end - p));
    const char *op_end = dot ? dot : mn_end;
    AsmPos mn_pos = pos_at(a, p, (size_t)(mn_end - p));
    if (mn_end == p || (mn_end < end && !is_space(*mn_end)))
        return isa_asm_fail(a, pos_at(a, mn_end == p ? p : mn_end, 1),
                       "expected an instruction, a directive or a label, got '%c'", *(mn_end == p ? p : mn_end));
    IsaOpcode op = isa_lookup_op(p, (size_t)(op_end - p));
    if (op == ISA_OP_COUNT)
        return isa_asm_fail(a, pos_at(a, p, (size_t)(op_end - p)), "unknown instruction '%.*s' (docs/ISA.md lists them)",
                       (int)UTIL_MIN(op_end - p, ASM_SHOW_TOKEN), p);
    IsaInst in;
    memset(&in, 0, sizeof in);
    in.op = (uint16_t)op;
    AsmSuffix sx[ASM_MAX_SUFFIXES];
    int n = 0;
    for (const char *s = op_end; s < mn_end;) {
        const char *next = s + 1;
        while (next < mn_end && *next != '.')
            next++;
        if (next == s + 1)
            return isa_asm_fail(a, pos_at(a, s, 1), "empty suffix after '.'");
        if (n == ASM_MAX_SUFFIXES)
            return isa_asm_fail(a, pos_at(a, s, (size_t)(next - s)), "too many suffixes");
        sx[n].s = s + 1;
        sx[n++].len = (size_t)(next - s - 1);
        s = next;
    }
    if (!parse_suffixes(a, &in, sx, n, mn_pos))
        return false;
    char letters[ISA_MAX_OPERANDS];
    int nopd = isa_op_letters(op, letters);
    const char *q = skip_space(mn_end, end);
    for (int k = 0; k < nopd; k++) {
        char shape = isa_operand_shape(&in, k, letters[k]);
        if (q == end)
            return isa_asm_fail(a, pos_at(a, end, 1), "%s takes %d operand%s; missing operand %d: %s",
                           isa_ops[op].name, nopd, nopd == 1 ? "" : "s", k + 1, letter_what(shape));
        const char *oe = operand_end(q, end);
        const char *te = trim_end(q, oe);
        if (te == q)
            return isa_asm_fail(a, pos_at(a, q, 1), "expected %s for operand %d of %s", letter_what(shape),
                           k + 1, isa_ops[op].name);
        if (!parse_operand(a, &in, k, letters[k], q, te))
            return false;
        q = oe;
        if (k + 1 < nopd) {
            if (q == end)
                return isa_asm_fail(a, pos_at(a, end, 1), "%s takes %d operands; missing operand %d: %s",
                               isa_ops[op].name, nopd, k + 2, letter_what(isa_operand_shape(&in, k + 1, letters[k + 1])));
            q = skip_space(q + 1, end);
        }
    }
    if (q != end) {
        if (*q == ',')
            q = skip_space(q + 1, end);
        return isa_asm_fail(a, pos_at(a, q, (size_t)(operand_end(q, end) - q)), "too many operands: "
                       "%s takes %d", isa_ops[op].name, nopd);
    }
    IsaSourceLoc loc = {0, a->line_no, (uint16_t)UTIL_MIN(mn_pos.col, 65535u)};
    isa_program_emit(a->prog, &in, loc);
    a->last_inst = mn_pos;
    return true;
}

/* ---- lines and the whole file ------------------------------------------------------------ */

/* line = [label ":"] [instruction | directive] [comment] */
static bool parse_line(Asm *a)
{
    const char *p = a->line, *end = a->line + a->line_len;
    for (const char *c = p; c < end; c++) {
        if (*c == ';' || (*c == '/' && c + 1 < end && c[1] == '/')) {
            end = c;
            break;
        }
    }
    for (const char *c = p; c < end; c++) {
        unsigned char u = (unsigned char)*c;
        if ((u < 0x20 && u != '\t' && u != '\r') || u >= 0x7f)
            return isa_asm_fail(a, pos_at(a, c, 1), "unexpected byte 0x%02x; assembly is plain ASCII "
                           "(anything goes in comments)", u);
    }
    end = trim_end(p, end);
    p = skip_space(p, end);
    if (p == end)
        return true;
    a->tail = pos_at(a, end, 1);
    const char *id_end = scan_ident(p, end);
    if (id_end > p && id_end < end && *id_end == ':') {
        if (is_digit(*p))
            return isa_asm_fail(a, pos_at(a, p, (size_t)(id_end - p)), "a label name cannot start with a digit");
        for (size_t i = 0; i < a->num_labels; i++) {
            AsmLabel *l = &a->labels[i];
            if (l->len == (size_t)(id_end - p) && memcmp(l->name, p, l->len) == 0)
                return isa_asm_fail(a, pos_at(a, p, l->len), "duplicate label '%.*s' (first defined on line %u)",
                               (int)UTIL_MIN(l->len, ASM_SHOW_TOKEN), p, l->pos.line_no);
        }
        AsmLabel l = {p, (size_t)(id_end - p), a->prog->count, pos_at(a, p, (size_t)(id_end - p))};
        UTIL_PUSH(a->labels, a->num_labels, a->cap_labels, l);
        p = skip_space(id_end + 1, end);
        if (p == end)
            return true;
    }
    if (*p == '.')
        return isa_asm_directive(a, p, end);
    a->in_data = false; /* .word lines follow their .data directly */
    return parse_instruction(a, p, end);
}

/* Checks that need the whole file: label targets, registers against .regs. */
static bool finish_checks(Asm *a)
{
    IsaProgram *prog = a->prog;
    for (size_t i = 0; i < a->num_fixups; i++) {
        AsmRef *f = &a->fixups[i];
        const AsmLabel *found = NULL;
        for (size_t j = 0; j < a->num_labels && !found; j++)
            if (a->labels[j].len == f->pos.len &&
                memcmp(a->labels[j].name, f->pos.line + f->pos.col - 1, f->pos.len) == 0)
                found = &a->labels[j];
        if (!found)
            return isa_asm_fail(a, f->pos, "undefined label '%.*s'", (int)UTIL_MIN(f->pos.len, ASM_SHOW_TOKEN),
                           f->pos.line + f->pos.col - 1);
        if (found->index >= prog->count)
            return isa_asm_fail(a, f->pos, "label '%.*s' is at the end of the kernel; a jump needs an "
                           "instruction to land on", (int)UTIL_MIN(f->pos.len, ASM_SHOW_TOKEN),
                           f->pos.line + f->pos.col - 1);
        prog->code[f->inst].opd[f->opd].index = (uint16_t)found->index;
    }
    for (size_t i = 0; i < a->num_labels; i++)
        if (a->labels[i].index >= prog->count)
            return isa_asm_fail(a, a->labels[i].pos, "label '%.*s' is after the last instruction; a "
                           "label marks the instruction after it (to end the SIMD-group there, "
                           "write `stop` after the label)",
                           (int)UTIL_MIN(a->labels[i].len, ASM_SHOW_TOKEN), a->labels[i].name);
    for (size_t i = 0; i < a->num_uses; i++) {
        AsmRef *u = &a->uses[i];
        if (u->last_reg < prog->num_regs)
            continue;
        char reg[16];
        snprintf(reg, sizeof reg, "r%u", u->last_reg);
        const char *tok = u->pos.line + u->pos.col - 1;
        if (token_is(tok, u->pos.len, reg))
            return isa_asm_fail(a, u->pos, "%s is above the registers the kernel declares (.regs %u: "
                           "r0..r%u)", reg, prog->num_regs, prog->num_regs - 1);
        return isa_asm_fail(a, u->pos, "'%.*s' reaches %s, above the registers the kernel declares "
                       "(.regs %u: r0..r%u)", (int)u->pos.len, tok, reg, prog->num_regs,
                       prog->num_regs - 1);
    }
    /* A SIMD-group that ran past the last instruction would end as if at `stop`; a kernel
     * that forgot its `stop` (or the jump back of a loop) is refused instead. */
    uint16_t last = prog->code[prog->count - 1].op;
    if (last != ISA_OP_STOP && last != ISA_OP_JMP)
        return isa_asm_fail(a, a->last_inst, "the last instruction is %s, so a SIMD-group would run "
                       "past the end of the kernel; expected `stop` (or an unconditional `jmp`) "
                       "last", isa_ops[last].name);
    return true;
}

static char *default_name(const char *filename)
{
    const char *base = strrchr(filename, '/');
    base = base ? base + 1 : filename;
    const char *dot = strrchr(base, '.');
    size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    return len ? util_strndup(base, len) : util_strdup("kernel");
}

IsaProgram *isa_assemble(const char *text, const char *filename, UtilError *err)
{
    Asm a;
    memset(&a, 0, sizeof a);
    a.file = filename ? filename : "<input>";
    a.err = err;
    a.prog = isa_program_new();
    bool ok = true;
    const char *p = text ? text : "";
    for (uint32_t line_no = 1; ok; line_no++) {
        const char *nl = strchr(p, '\n');
        a.line = p;
        a.line_len = (uint32_t)(nl ? (size_t)(nl - p) : strlen(p));
        a.line_no = line_no;
        ok = parse_line(&a);
        if (!nl)
            break;
        p = nl + 1;
    }
    if (ok && !a.seen_regs) {
        a.line = text ? text : "";
        a.line_len = (uint32_t)(strchr(a.line, '\n') ? (size_t)(strchr(a.line, '\n') - a.line) : strlen(a.line));
        a.line_no = 1;
        ok = isa_asm_fail(&a, pos_at(&a, a.line, 1), "missing .regs directive: a kernel declares how "
                     "many registers it uses, e.g. .regs 8");
    }
    if (ok && a.prog->count == 0)
        ok = isa_asm_fail(&a, a.tail, "the kernel has no instructions; expected at least `stop`");
    if (ok)
        ok = finish_checks(&a);
    if (ok && !a.prog->name)
        a.prog->name = default_name(a.file);
    if (ok) {
        a.prog->files = util_malloc(sizeof *a.prog->files);
        a.prog->files[0] = util_strdup(a.file);
        a.prog->num_files = 1;
        UtilError inner;
        if (!isa_program_finish(a.prog, &inner)) {
            util_fail(err, "%s: error: %s", a.file, inner.message);
            ok = false;
        }
    }
    free(a.labels);
    free(a.fixups);
    free(a.uses);
    if (!ok) {
        isa_program_free(a.prog);
        return NULL;
    }
    return a.prog;
}
