/*
 * test_isa.c — the instruction table against the assembler and disassembler.
 *
 * Every opcode gets sample instructions generated from its operand letters and modifier bits
 * (never a hand list, so a new table entry is covered the day it is added). Each sample's
 * expected IsaInst is built here from the same choices, by reasoning independent of the
 * assembler; then the text is assembled, disassembled and assembled again, and the fields
 * must match at every step. Further tests cover modifier coverage, float immediates, labels,
 * pcs, and that the checked-in docs/ISA.md is what isa_docs_markdown() produces.
 */
#include "test_util.h"

#include "../isa/isa.h"

#include <stdarg.h>

enum { VARIANTS = 400, REGS_TEXT_MAX = 512 };

typedef struct Sample {
    char text[REGS_TEXT_MAX];
    IsaInst want;
} Sample;

static void add(char *buf, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, REGS_TEXT_MAX - len, fmt, ap);
    va_end(ap);
}

static const IsaCond float_conds[] = {ISA_COND_EQ, ISA_COND_NE, ISA_COND_LT,
                                      ISA_COND_LE, ISA_COND_GT, ISA_COND_GE};

static const char *elem_name(IsaType t)
{
    switch (t) {
    case ISA_TYPE_S32: return "i32";
    case ISA_TYPE_U32: return "u32";
    case ISA_TYPE_F32: return "f32";
    case ISA_TYPE_F16: return "f16";
    default: return "?";
    }
}

/* The register shape of 'x' (dest) or 'y' (source) from a type, as docs/assembly.md says. */
static char shape_of(IsaType t, bool dest)
{
    if (t == ISA_TYPE_F16 || t == ISA_TYPE_BF16)
        return dest ? 'H' : 'h';
    if (t == ISA_TYPE_U64 || t == ISA_TYPE_S64)
        return dest ? 'P' : 'p';
    return dest ? 'D' : 's';
}

static void gen_suffixes(IsaOpcode op, unsigned v, Sample *s)
{
    uint32_t mods = isa_ops[op].modifiers;
    IsaInst *w = &s->want;
    if ((mods & ISA_MOD_SAT) && (v & 1)) {
        add(s->text, ".sat");
        w->flags |= ISA_INST_SAT;
    }
    if (mods & ISA_MOD_ICOND) {
        w->cond = (uint8_t)(v % 10); /* eq ne ult ule ugt uge slt sle sgt sge */
        add(s->text, ".%s", isa_cond_names[w->cond]);
    }
    if (mods & ISA_MOD_FCOND) {
        w->cond = (uint8_t)float_conds[v % 6];
        add(s->text, ".%s", isa_cond_names[w->cond]);
    }
    if (mods & ISA_MOD_CVT) {
        w->type = (uint8_t)(v % ISA_TYPE_COUNT);
        w->src_type = (uint8_t)(v / ISA_TYPE_COUNT % ISA_TYPE_COUNT);
        w->round = (uint8_t)(v / (ISA_TYPE_COUNT * ISA_TYPE_COUNT) % 3);
        add(s->text, ".%s.%s%s", isa_type_names[w->type], isa_type_names[w->src_type],
            w->round == ISA_ROUND_RTE ? ".rte" : w->round == ISA_ROUND_RTZ ? ".rtz" : "");
    }
    if (mods & ISA_MOD_MEM) {
        w->type = (uint8_t)(v % ISA_FMT_COUNT);
        w->count = (uint8_t)(1 + v / ISA_FMT_COUNT % 4);
        add(s->text, ".%s", isa_fmt_names[w->type]);
        if (w->count > 1)
            add(s->text, ".x%u", w->count);
    }
    if (mods & ISA_MOD_ATOM) {
        /* every integer op with i32 and u32, then f32 add and xchg */
        unsigned i = v % (ISA_ATOM_COUNT * 2 + 2);
        if (i < ISA_ATOM_COUNT * 2) {
            w->cond = (uint8_t)(i / 2);
            w->type = i % 2 ? ISA_TYPE_U32 : ISA_TYPE_S32;
        } else {
            w->cond = i == ISA_ATOM_COUNT * 2 ? ISA_ATOM_ADD : ISA_ATOM_XCHG;
            w->type = ISA_TYPE_F32;
        }
        add(s->text, ".%s.%s", isa_atomic_names[w->cond], elem_name((IsaType)w->type));
    }
    if (mods & ISA_MOD_ATYPE) {
        w->type = v % 2 ? ISA_TYPE_U32 : ISA_TYPE_S32;
        add(s->text, ".%s", elem_name((IsaType)w->type));
    }
    if (mods & ISA_MOD_BAR) {
        w->flags = (uint8_t)(v % 8);
        if (w->flags == 0 && v / 8 % 2 == 0)
            add(s->text, ".none"); /* otherwise no suffix at all, which also means none */
        if (w->flags & ISA_MEM_TEXTURE) /* any order is accepted */
            add(s->text, ".tex");
        if (w->flags & ISA_MEM_DEVICE)
            add(s->text, ".dev");
        if (w->flags & ISA_MEM_THREADGROUP)
            add(s->text, ".tg");
    }
    if (mods & ISA_MOD_PREFIX) {
        static const IsaType types[] = {ISA_TYPE_S32, ISA_TYPE_U32, ISA_TYPE_F32, ISA_TYPE_F16};
        w->count = (uint8_t)(v % 2);
        w->cond = (uint8_t)(v / 2 % 2); /* sum, product */
        w->type = (uint8_t)types[v / 4 % 4];
        add(s->text, ".%s.%s.%s", w->count ? "incl" : "excl", isa_reduce_names[w->cond],
            elem_name((IsaType)w->type));
    } else if (mods & ISA_MOD_RED) {
        /* every op with i32 and u32, then sum product min max with f32 and f16 */
        unsigned i = v % 22;
        if (i < 14) {
            w->cond = (uint8_t)(i / 2);
            w->type = i % 2 ? ISA_TYPE_U32 : ISA_TYPE_S32;
        } else {
            w->cond = (uint8_t)((i - 14) / 2);
            w->type = (i - 14) % 2 ? ISA_TYPE_F16 : ISA_TYPE_F32;
        }
        add(s->text, ".%s.%s", isa_reduce_names[w->cond], elem_name((IsaType)w->type));
    }
}

/* One operand of shape `shape` in one of several forms chosen by v and k. */
static void gen_operand(IsaOpcode op, unsigned v, int k, char shape, Sample *s)
{
    IsaOperand *o = &s->want.opd[k];
    unsigned reg = 1 + (v * 7 + (unsigned)k * 13) % 90;
    unsigned uni = (v * 11 + (unsigned)k * 5) % 200;
    unsigned half = (v + (unsigned)k) % 2;
    unsigned form = (v / 3 + (unsigned)k) % 5;
    bool src_mods = (isa_ops[op].modifiers & ISA_MOD_SRC) != 0;
    add(s->text, k ? ", " : " ");
    switch (shape) {
    case 'D': case 'P':
        add(s->text, "r%u", reg);
        o->kind = shape == 'D' ? ISA_OPD_R32 : ISA_OPD_R64;
        o->index = (uint16_t)reg;
        return;
    case 'H':
        add(s->text, "r%u%c", reg, half ? 'h' : 'l');
        o->kind = ISA_OPD_R16;
        o->index = (uint16_t)(reg * 2 + half);
        return;
    case 'n': case 'k': case 'g':
        o->kind = ISA_OPD_NUM;
        o->imm = shape == 'n' ? v % 4 : shape == 'k' ? v % 2 : 1 + v % 32;
        add(s->text, "%u", (unsigned)o->imm);
        return;
    case 'l':
        o->kind = ISA_OPD_LABEL;
        o->index = (uint16_t)(v % 2); /* start: (backward) or fin: (forward) */
        o->imm = v % 2 ? isa_ops[op].size : 0;
        add(s->text, v % 2 ? "fin" : "start");
        return;
    case 'r':
        o->kind = ISA_OPD_SR;
        o->index = (uint16_t)(v % ISA_SR_COUNT);
        add(s->text, "%s", isa_sr_names[o->index]);
        return;
    case 'b':
        form = form % 2 ? 1 : 0;
        break;
    default:
        break;
    }
    bool wide = shape == 'p' || shape == 'b', narrow = shape == 'h';
    if (form == 4 && (!src_mods || wide))
        form = 0;
    if (form == 3 && wide)
        form = 2;
    switch (form) {
    case 0:
        o->kind = wide ? ISA_OPD_R64 : narrow ? ISA_OPD_R16 : ISA_OPD_R32;
        o->index = (uint16_t)(narrow ? reg * 2 + half : reg);
        add(s->text, narrow ? "r%u%s" : "r%u", reg, half ? "h" : "l");
        break;
    case 1:
        o->kind = wide ? ISA_OPD_U64 : narrow ? ISA_OPD_U16 : ISA_OPD_U32;
        o->index = (uint16_t)uni;
        add(s->text, "u%u", uni);
        break;
    case 2:
        o->kind = ISA_OPD_IMM;
        if (v % 3 == 0) {
            add(s->text, "-1");
            o->imm = wide ? UINT64_MAX : narrow ? 0xffff : 0xffffffffu;
        } else if (v % 3 == 1) {
            add(s->text, wide ? "0x123456789abc" : narrow ? "0x1234" : "0x12345678");
            o->imm = wide ? 0x123456789abcull : narrow ? 0x1234 : 0x12345678;
        } else {
            add(s->text, "7");
            o->imm = 7;
        }
        break;
    case 3:
        o->kind = ISA_OPD_IMM;
        add(s->text, v % 2 ? "1.5" : "-2.25");
        /* 1.5 = 0x3fc00000 (f32), 0x3e00 (f16); -2.25 = 0xc0100000, 0xc080 */
        o->imm = narrow ? (v % 2 ? 0x3e00 : 0xc080) : (v % 2 ? 0x3fc00000u : 0xc0100000u);
        break;
    default: {
        static const char *const pre[] = {"-", "|", "-|"}, *const post[] = {"", "|", "|"};
        static const uint8_t flags[] = {ISA_OPD_NEG, ISA_OPD_ABS, ISA_OPD_NEG | ISA_OPD_ABS};
        unsigned m = v % 3;
        o->flags = flags[m];
        if (v % 2) {
            o->kind = narrow ? ISA_OPD_R16 : ISA_OPD_R32;
            o->index = (uint16_t)(narrow ? reg * 2 + half : reg);
            add(s->text, narrow ? "%sr%u%s%s" : "%sr%u%.0s%s", pre[m], reg, half ? "h" : "l", post[m]);
        } else {
            o->kind = narrow ? ISA_OPD_U16 : ISA_OPD_U32;
            o->index = (uint16_t)uni;
            add(s->text, "%su%u%s", pre[m], uni, post[m]);
        }
        break;
    }
    }
}

/* A sample instruction of op, variant v (0..VARIANTS-1), with the IsaInst it must give. */
static void gen_inst(IsaOpcode op, unsigned v, Sample *s)
{
    memset(s, 0, sizeof *s);
    s->want.op = (uint16_t)op;
    add(s->text, "%s", isa_ops[op].name);
    gen_suffixes(op, v, s);
    int k = 0;
    bool cvt = (isa_ops[op].modifiers & ISA_MOD_CVT) != 0;
    for (const char *l = isa_ops[op].operands; *l; l++) {
        if (*l == ',')
            continue;
        char shape = *l;
        if (shape == 'x')
            shape = shape_of((IsaType)s->want.type, true);
        else if (shape == 'y')
            shape = shape_of((IsaType)(cvt ? s->want.src_type : s->want.type), false);
        else if (shape == 'm') /* memory data: a half for h16, else 32-bit registers */
            shape = s->want.type == ISA_FMT_H16 ? 'H' : 'D';
        gen_operand(op, v, k++, shape, s);
    }
}

static void assert_inst_equal(const IsaInst *got, const IsaInst *want, const char *context)
{
    bool same = got->op == want->op && got->cond == want->cond && got->type == want->type &&
                got->src_type == want->src_type && got->round == want->round &&
                got->count == want->count && got->flags == want->flags;
    for (int k = 0; k < ISA_MAX_OPERANDS; k++) {
        const IsaOperand *a = &got->opd[k], *b = &want->opd[k];
        same = same && a->kind == b->kind && a->flags == b->flags && a->index == b->index &&
               a->imm == b->imm && a->reserved == b->reserved;
    }
    if (!same) {
        char line[256];
        snprintf(line, sizeof line, "op %u cond %u type %u src %u round %u count %u flags %u",
                 got->op, got->cond, got->type, got->src_type, got->round, got->count, got->flags);
        fail_msg("%s\ngot   %s\nwant  op %u cond %u type %u src %u round %u count %u flags %u\n"
                 "opd0 %u/%u/%u/%llx vs %u/%u/%u/%llx  opd1 %u/%u/%u/%llx vs %u/%u/%u/%llx "
                 "opd2 %u/%u/%llx vs %u/%u/%llx",
                 context, line, want->op, want->cond, want->type, want->src_type, want->round,
                 want->count, want->flags, got->opd[0].kind, got->opd[0].flags, got->opd[0].index,
                 (unsigned long long)got->opd[0].imm, want->opd[0].kind, want->opd[0].flags,
                 want->opd[0].index, (unsigned long long)want->opd[0].imm, got->opd[1].kind,
                 got->opd[1].flags, got->opd[1].index, (unsigned long long)got->opd[1].imm,
                 want->opd[1].kind, want->opd[1].flags, want->opd[1].index,
                 (unsigned long long)want->opd[1].imm, got->opd[2].kind, got->opd[2].index,
                 (unsigned long long)got->opd[2].imm, want->opd[2].kind, want->opd[2].index,
                 (unsigned long long)want->opd[2].imm);
    }
}

static IsaProgram *assemble_ok(const char *text)
{
    UtilError err = {{0}};
    IsaProgram *p = isa_assemble(text, "t.s", &err);
    if (!p)
        fail_msg("assembly failed:\n%s\n--- source ---\n%s", err.message, text);
    return p;
}

/* Assembles, checks against want, disassembles, reassembles, and compares every field. */
static void roundtrip(const Sample *s)
{
    char text[1024];
    snprintf(text, sizeof text, ".regs 128\nstart:\n    %s\nfin:\n    stop\n", s->text);
    IsaProgram *p = assemble_ok(text);
    assert_int_equal(p->count, 2);
    assert_inst_equal(&p->code[0], &s->want, s->text);
    char *dis = isa_disassemble(p, false);
    IsaProgram *q = assemble_ok(dis);
    assert_int_equal(q->count, p->count);
    for (uint32_t i = 0; i < p->count; i++) {
        char context[2048];
        snprintf(context, sizeof context, "after disassembly of '%s':\n%s", s->text, dis);
        assert_inst_equal(&q->code[i], &p->code[i], context);
        assert_int_equal(q->code[i].pc, p->code[i].pc);
    }
    char one[256];
    size_t len = isa_format_inst(p, &p->code[0], one, sizeof one);
    assert_int_equal(len, strlen(one));
    assert_non_null(strstr(dis, one));
    free(dis);
    isa_program_free(p);
    isa_program_free(q);
}

static void test_every_opcode_roundtrips(void **state)
{
    (void)state;
    for (int op = 0; op < ISA_OP_COUNT; op++) {
        for (unsigned v = 0; v < VARIANTS; v++) {
            Sample s;
            gen_inst((IsaOpcode)op, v, &s);
            roundtrip(&s);
        }
    }
}

/* The variants above reach every modifier value: checked here from the assembled fields. */
static void test_modifier_coverage(void **state)
{
    (void)state;
    bool icond[ISA_COND_COUNT] = {0}, fcond[ISA_COND_COUNT] = {0};
    bool cvt[ISA_TYPE_COUNT][ISA_TYPE_COUNT][3] = {{{0}}}, mem[ISA_FMT_COUNT][5] = {{0}};
    bool atom[ISA_ATOM_COUNT][ISA_TYPE_COUNT] = {{0}}, red[ISA_RED_COUNT][ISA_TYPE_COUNT] = {{0}};
    bool prefix[2][2][ISA_TYPE_COUNT] = {{{0}}}, bar[8] = {0}, sr[ISA_SR_COUNT] = {0};
    for (int op = 0; op < ISA_OP_COUNT; op++) {
        uint32_t mods = isa_ops[op].modifiers;
        for (unsigned v = 0; v < VARIANTS; v++) {
            Sample s;
            gen_inst((IsaOpcode)op, v, &s);
            char text[1024];
            snprintf(text, sizeof text, ".regs 128\nstart:\n%s\nfin:\nstop\n", s.text);
            IsaProgram *p = assemble_ok(text);
            const IsaInst *in = &p->code[0];
            if (mods & ISA_MOD_ICOND) icond[in->cond] = true;
            if (mods & ISA_MOD_FCOND) fcond[in->cond] = true;
            if (mods & ISA_MOD_CVT) cvt[in->type][in->src_type][in->round] = true;
            if (mods & ISA_MOD_MEM) mem[in->type][in->count] = true;
            if (mods & ISA_MOD_ATOM) atom[in->cond][in->type] = true;
            if (mods & ISA_MOD_RED) red[in->cond][in->type] = true;
            if (mods & ISA_MOD_PREFIX) prefix[in->count][in->cond][in->type] = true;
            if (mods & ISA_MOD_BAR) bar[in->flags] = true;
            if (in->opd[1].kind == ISA_OPD_SR) sr[in->opd[1].index] = true;
            isa_program_free(p);
        }
    }
    for (int c = 0; c < ISA_COND_COUNT; c++) {
        assert_true(icond[c] == (c < ISA_COND_LT));
        assert_true(fcond[c] == (c <= ISA_COND_NE || c >= ISA_COND_LT));
    }
    for (int d = 0; d < ISA_TYPE_COUNT; d++)
        for (int s = 0; s < ISA_TYPE_COUNT; s++)
            for (int r = 0; r < 3; r++)
                assert_true(cvt[d][s][r]);
    for (int f = 0; f < ISA_FMT_COUNT; f++)
        for (int n = 1; n <= 4; n++)
            assert_true(mem[f][n]);
    for (int o = 0; o < ISA_ATOM_COUNT; o++) {
        assert_true(atom[o][ISA_TYPE_S32] && atom[o][ISA_TYPE_U32]);
        assert_true(atom[o][ISA_TYPE_F32] == (o == ISA_ATOM_ADD || o == ISA_ATOM_XCHG));
    }
    for (int o = 0; o < ISA_RED_COUNT; o++) {
        assert_true(red[o][ISA_TYPE_S32] && red[o][ISA_TYPE_U32]);
        assert_true(red[o][ISA_TYPE_F32] == (o < ISA_RED_AND) && red[o][ISA_TYPE_F16] == (o < ISA_RED_AND));
    }
    for (int i = 0; i < 2; i++)
        for (int o = 0; o < 2; o++)
            assert_true(prefix[i][o][ISA_TYPE_S32] && prefix[i][o][ISA_TYPE_U32] &&
                        prefix[i][o][ISA_TYPE_F32] && prefix[i][o][ISA_TYPE_F16]);
    for (int f = 0; f < 8; f++)
        assert_true(bar[f]);
    for (int i = 0; i < ISA_SR_COUNT; i++)
        assert_true(sr[i]);
}

/* pc of instruction i is the sum of the table sizes before it; labels resolve both ways. */
static void test_pcs_and_labels(void **state)
{
    (void)state;
    char text[16384] = ".kernel k\n.regs 128\ntop:\n";
    for (int op = 0; op < ISA_OP_COUNT; op++) {
        Sample s;
        gen_inst((IsaOpcode)op, 1, &s); /* variant 1 jumps to `fin`, defined below */
        strcat(text, "    ");
        strcat(text, s.text);
        strcat(text, "\n");
    }
    strcat(text, "    jmp top\nstart:\n    jmp_exec_none fin\nfin:\n    stop\n");
    IsaProgram *p = assemble_ok(text);
    assert_int_equal(p->count, ISA_OP_COUNT + 3);
    uint32_t pc = 0;
    for (uint32_t i = 0; i < p->count; i++) {
        assert_int_equal(p->code[i].pc, pc);
        pc += isa_ops[p->code[i].op].size;
    }
    assert_int_equal(p->code_bytes, pc);
    const IsaInst *back = &p->code[ISA_OP_COUNT];
    assert_int_equal(back->opd[0].index, 0);
    assert_int_equal(back->opd[0].imm, 0);
    const IsaInst *fwd = &p->code[ISA_OP_COUNT + 1];
    assert_int_equal(fwd->opd[0].index, ISA_OP_COUNT + 2);
    assert_int_equal(fwd->opd[0].imm, pc - isa_ops[ISA_OP_STOP].size);
    char *dis = isa_disassemble(p, false);
    assert_non_null(strstr(dis, "L0:\n"));
    char want[64];
    snprintf(want, sizeof want, "\nL%u:\n    stop\n", ISA_OP_COUNT + 2);
    assert_non_null(strstr(dis, want));
    IsaProgram *q = assemble_ok(dis);
    for (uint32_t i = 0; i < p->count; i++)
        assert_inst_equal(&q->code[i], &p->code[i], dis);
    assert_string_equal(q->name, "k");
    free(dis);
    isa_program_free(p);
    isa_program_free(q);
}

/* Float immediates print as floats only when that reads back to the same bits. */
static void test_float_immediates(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"fadd32 r1, r2, 0.1", "fadd32 r1, r2, 0.1"},
        {"fadd32 r1, r2, 1.0", "fadd32 r1, r2, 1.0"},
        {"fadd32 r1, r2, -0.0", "fadd32 r1, r2, -0.0"},
        {"fmul32 r1, r2, 1e10", "fmul32 r1, r2, 1e+10"},
        {"fadd32 r1, r2, inf", "fadd32 r1, r2, inf"},
        {"fadd32 r1, r2, -inf", "fadd32 r1, r2, -inf"},
        {"fadd32 r1, r2, nan", "fadd32 r1, r2, nan"},
        {"fadd32 r1, r2, 0x7fc00001", "fadd32 r1, r2, 0x7fc00001"},   /* NaN payload */
        {"fadd32 r1, r2, 1", "fadd32 r1, r2, 1"},                     /* a subnormal's bits */
        {"fadd32 r1, r2, 0x3f800000", "fadd32 r1, r2, 1.0"},
        {"fadd16 r1l, r2h, 0.5", "fadd16 r1l, r2h, 0.5"},
        {"fadd16 r1l, r2h, 0.1", "fadd16 r1l, r2h, 0.1"},             /* f16 0x2e66 */
        {"fadd16 r1l, r2h, 65504.0", "fadd16 r1l, r2h, 6.55e+04"},  /* shortest exact text */
        {"fadd16 r1l, r2h, 0x3c00", "fadd16 r1l, r2h, 1.0"},
        {"iadd r1, r2, 1.0", "iadd r1, r2, 0x3f800000"},
        {"iadd r1, r2, -1", "iadd r1, r2, 0xffffffff"},
        {"mov64 r2, -2", "mov64 r2, 0xfffffffffffffffe"},
        {"cvt.s32.f32.rte r1, 2.5", "cvt.s32.f32.rte r1, 2.5"},
        {"cvt.f32.f16 r1, -1.5", "cvt.f32.f16 r1, -1.5"},
        /* a u16/s16 side: a half (a short kept in 16 bits) or a 32-bit register */
        {"cvt.u16.u32 r3l, r2", "cvt.u16.u32 r3l, r2"},
        {"cvt.u32.u16 r2, r3h", "cvt.u32.u16 r2, r3h"},
        {"cvt.s16.s32 r3, r2", "cvt.s16.s32 r3, r2"},
        {"cvt.s32.s16 r2, u4", "cvt.s32.s16 r2, u4"},
        {"cvt.u16.f32 r1h, 2.5", "cvt.u16.f32 r1h, 2.5"},
        {"simd_red.sum.f16 r1l, 3.0", "simd_red.sum.f16 r1l, 3.0"},
        {"atom_tg.add.f32 r1, 4, 8, 2.0", "atom_tg.add.f32 r1, 4, 8, 2.0"},
        {"ffma32.sat r1, -|r2|, |u3|, -r4", "ffma32.sat r1, -|r2|, |u3|, -r4"},
        {"barrier", "barrier.none"},
        {"barrier.tg.dev", "barrier.dev.tg"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, ".regs 8\n%s\nstop\n", cases[i].in);
        IsaProgram *p = assemble_ok(text);
        char buf[128];
        isa_format_inst(p, &p->code[0], buf, sizeof buf);
        if (strcmp(buf, cases[i].out) != 0)
            fail_msg("'%s' printed as '%s', expected '%s'", cases[i].in, buf, cases[i].out);
        isa_program_free(p);
    }
    /* f16 0.1 rounds to 0x2e66 (0.0999755859375); its text must read back to those bits */
    IsaProgram *p = assemble_ok(".regs 4\nmov16 r1l, 0.1\nstop\n");
    assert_int_equal(p->code[0].opd[1].imm, 0x2e66);
    isa_program_free(p);
}

static void test_format_inst_truncates(void **state)
{
    (void)state;
    IsaProgram *p = assemble_ok(".regs 8\nffma32 r1, r2, r3, r4\nstop\n");
    char buf[8];
    size_t n = isa_format_inst(p, &p->code[0], buf, sizeof buf);
    assert_int_equal(n, 7);
    assert_string_equal(buf, "ffma32 ");
    isa_program_free(p);
}

/* Constant data blocks: each at the next 16-byte boundary, its words little-endian, the rest
 * zero; the disassembly assembles back to the same bytes, blocks and uniforms. */
static void test_data_roundtrip(void **state)
{
    (void)state;
    const char *text = ".regs 4\n.arg out, device, u0\n.data tab, u2, 12, 4\n"
                       ".word 0x3f800000, 2\n.word 0xdeadbeef\n.data bytes, u4, 3, 1\n"
                       ".word 0x030201\n.data zeros, u8, 40, 8\nstop\n";
    IsaProgram *p = assemble_ok(text);
    const uint8_t want[] = {0x00, 0x00, 0x80, 0x3f, 2, 0, 0, 0, 0xef, 0xbe, 0xad, 0xde, 0, 0, 0, 0,
                            1, 2, 3};
    assert_int_equal(p->data_bytes, 32 + 40);
    assert_memory_equal(p->data, want, sizeof want);
    for (uint32_t k = sizeof want; k < p->data_bytes; k++)
        assert_int_equal(p->data[k], 0);
    assert_int_equal(p->num_symbols, 3);
    const uint32_t offsets[] = {0, 16, 32}, sizes[] = {12, 3, 40}, uniforms[] = {2, 4, 8};
    for (int round = 0; round < 2; round++) {
        for (uint32_t i = 0; i < 3; i++) {
            assert_int_equal(p->symbols[i].space, ISA_SYM_CONSTANT);
            assert_int_equal(p->symbols[i].offset, offsets[i]);
            assert_int_equal(p->symbols[i].size, sizes[i]);
            assert_int_equal(p->symbols[i].uniform, uniforms[i]);
        }
        assert_string_equal(p->symbols[1].name, "bytes");
        assert_int_equal(p->symbols[2].elem_size, 8);
        char *dis = isa_disassemble(p, false);
        IsaProgram *q = assemble_ok(dis);
        free(dis);
        assert_int_equal(q->data_bytes, p->data_bytes);
        assert_memory_equal(q->data, p->data, p->data_bytes);
        isa_program_free(p);
        p = q;
    }
    isa_program_free(p);
}

static void test_directives_roundtrip(void **state)
{
    (void)state;
    const char *text = "// a comment\n.kernel reduce_sum\n.regs 16\n.arg in, device, u0\n"
                       ".arg lut, constant, u2\n.arg scratch, threadgroup, u4\n.tgmem 4096\n"
                       ".stack 64\n.uniform u5, 1.0\n.uniform u6, 70000\n\nloop: iadd r1, r1, 1 ; c\n"
                       "    jmp_exec_any loop\n    stop\n";
    IsaProgram *p = assemble_ok(text);
    assert_string_equal(p->name, "reduce_sum");
    assert_int_equal(p->num_regs, 16);
    assert_int_equal(p->num_args, 3);
    assert_string_equal(p->args[2].name, "scratch");
    assert_int_equal(p->args[2].kind, ISA_ARG_THREADGROUP);
    assert_int_equal(p->args[1].uniform, 2);
    assert_int_equal(p->tg_mem_bytes, 4096);
    assert_int_equal(p->stack_bytes, 64);
    assert_int_equal(p->num_uniform_inits, 2);
    assert_int_equal(p->uniform_inits[0].value, 0x3f800000);
    assert_int_equal(p->uniform_inits[1].value, 70000);
    assert_string_equal(p->files[0], "t.s");
    assert_int_equal(p->locs[0].line, 12);
    assert_int_equal(p->locs[0].col, 7);
    assert_int_equal(p->locs[1].line, 13);
    assert_int_equal(p->locs[1].col, 5);
    char *dis = isa_disassemble(p, false);
    IsaProgram *q = assemble_ok(dis);
    assert_string_equal(q->name, p->name);
    assert_int_equal(q->num_regs, p->num_regs);
    assert_int_equal(q->num_args, p->num_args);
    for (uint32_t i = 0; i < p->num_args; i++) {
        assert_string_equal(q->args[i].name, p->args[i].name);
        assert_int_equal(q->args[i].kind, p->args[i].kind);
        assert_int_equal(q->args[i].uniform, p->args[i].uniform);
    }
    assert_int_equal(q->tg_mem_bytes, 4096);
    assert_int_equal(q->stack_bytes, 64);
    assert_int_equal(q->num_uniform_inits, 2);
    assert_int_equal(q->uniform_inits[0].value, 0x3f800000);
    assert_int_equal(q->uniform_inits[1].value, 70000);
    for (uint32_t i = 0; i < p->count; i++)
        assert_inst_equal(&q->code[i], &p->code[i], dis);
    free(dis);
    isa_program_free(q);
    /* The default kernel name is the file's base name; source comments need no readable file. */
    UtilError err;
    q = isa_assemble(".regs 2\nnop\nstop\n", "some/dir/my_kernel.s", &err);
    assert_non_null(q);
    assert_string_equal(q->name, "my_kernel");
    dis = isa_disassemble(q, true);
    assert_non_null(strstr(dis, "; some/dir/my_kernel.s:2"));
    assert_non_null(strstr(dis, "; some/dir/my_kernel.s:3"));
    free(dis);
    isa_program_free(q);
    isa_program_free(p);
}

static void test_docs_are_current(void **state)
{
    (void)state;
    char *want = isa_docs_markdown();
    assert_non_null(want);
    for (int op = 0; op < ISA_OP_COUNT; op++) {
        char name[64];
        snprintf(name, sizeof name, "| `%s` |", isa_ops[op].name);
        assert_non_null(strstr(want, name));
    }
    assert_non_null(strstr(want, "| `fadd32` | d:r32, a:src32, b:src32 |"));
    char *again = isa_docs_markdown();
    assert_string_equal(want, again);
    free(again);
    UtilError err;
    char *have = util_read_file("docs/ISA.md", NULL, &err);
    if (!have || strcmp(have, want) != 0) {
        free(have);
        free(want);
        fail_msg("docs/ISA.md is stale: run make docs");
    }
    free(have);
    free(want);
}

/* Where inlined code came from: the chain of calls innermost first, a call in another file
 * named by file, and a call index past the table (a damaged program) read as no call. */
static void test_call_text(void **state)
{
    (void)state;
    IsaProgram *p = isa_program_new();
    p->num_files = 2;
    p->files = calloc(2, sizeof *p->files);
    p->files[0] = strdup("k.metal");
    p->files[1] = strdup("helpers.h");
    p->num_calls = 2;
    p->calls = calloc(2, sizeof *p->calls);
    p->calls[0] = (IsaCallSite){.func = strdup("outer"), .loc = {0, 20, 5, 0}};
    p->calls[1] = (IsaCallSite){.func = strdup("inner"), .loc = {0, 9, 3, 1}};
    char buf[160];
    IsaSourceLoc own = {0, 4, 1, 0}, inlined = {0, 4, 1, 2}, other = {1, 4, 1, 1};
    IsaSourceLoc damaged = {0, 4, 1, 7};
    assert_string_equal(isa_call_text(p, &own, buf, sizeof buf), "");
    assert_string_equal(isa_call_text(p, &inlined, buf, sizeof buf),
                        " (in inner, called at line 9 in outer, called at line 20)");
    assert_string_equal(isa_call_text(p, &other, buf, sizeof buf),
                        " (in outer, called at k.metal:20)");
    assert_string_equal(isa_call_text(p, &damaged, buf, sizeof buf), "");
    char small[12];
    isa_call_text(p, &inlined, small, sizeof small); /* truncated, terminated */
    assert_int_equal(strlen(small), sizeof small - 1);
    isa_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_opcode_roundtrips),
        cmocka_unit_test(test_call_text),
        cmocka_unit_test(test_modifier_coverage),
        cmocka_unit_test(test_pcs_and_labels),
        cmocka_unit_test(test_float_immediates),
        cmocka_unit_test(test_format_inst_truncates),
        cmocka_unit_test(test_directives_roundtrip),
        cmocka_unit_test(test_data_roundtrip),
        cmocka_unit_test(test_docs_are_current),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
