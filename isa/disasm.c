/*
 * disasm.c — the disassembler: IsaInst records back to assembly text that isa_assemble
 * accepts and that reassembles to the very same fields (the round-trip test in
 * tests/isa/test_isa.c holds it to that). It also owns the small helpers asm.c and docs.c
 * share about operand letters, because how an operand is printed and how it is parsed must
 * never drift apart.
 *
 * Float immediates print as the shortest decimal that reads back to the same bits; when none
 * does (NaN payloads, subnormals, integer bit patterns in float slots) they print in hex, so
 * the text is always exact.
 */
#include "isa_internal.h"
#include "../util/fp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared helpers ---------------------------------------------------------------------- */

int isa_op_letters(IsaOpcode op, char letters[ISA_MAX_OPERANDS])
{
    int n = 0;
    for (const char *s = isa_ops[op].operands; *s && n < ISA_MAX_OPERANDS; s++)
        if (*s != ',')
            letters[n++] = *s;
    return n;
}

/* A cvt's u16/s16 side may be a half (a short kept in 16 bits) or a 32-bit register (a
 * short widened or cut within 32 bits): 'E' and 'e' accept either. */
static char type_shape(IsaType t, bool dest, bool cvt)
{
    if (cvt && (t == ISA_TYPE_U16 || t == ISA_TYPE_S16))
        return dest ? 'E' : 'e';
    if (t == ISA_TYPE_F16 || t == ISA_TYPE_BF16)
        return dest ? 'H' : 'h';
    if (t == ISA_TYPE_U64 || t == ISA_TYPE_S64)
        return dest ? 'P' : 'p';
    return dest ? 'D' : 's';
}

char isa_operand_shape(const IsaInst *in, int index, char letter)
{
    (void)index;
    bool cvt = (isa_ops[in->op].modifiers & ISA_MOD_CVT) != 0;
    switch (letter) {
    case 'x': return type_shape((IsaType)in->type, true, cvt);
    case 'y': return type_shape((IsaType)(cvt ? in->src_type : in->type), false, cvt);
    case 'm': return in->type == ISA_FMT_H16 ? 'H' : 'D';
    default: return letter;
    }
}

bool isa_operand_is_float(const IsaInst *in, int index, char letter)
{
    uint32_t mods = isa_ops[in->op].modifiers;
    if (letter == 's' || letter == 'h')
        return (mods & (ISA_MOD_SRC | ISA_MOD_FCOND)) != 0 ||
               ((mods & ISA_MOD_ATOM) && in->type == ISA_TYPE_F32 && index == 3);
    if (letter == 'y') {
        IsaType t = (IsaType)((mods & ISA_MOD_CVT) ? in->src_type : in->type);
        return t == ISA_TYPE_F16 || t == ISA_TYPE_F32;
    }
    return false;
}

const char *isa_elem_type_name(IsaType t)
{
    if (t == ISA_TYPE_S32)
        return "i32";
    return t < ISA_TYPE_COUNT ? isa_type_names[t] : "?";
}

unsigned isa_shape_bits(char shape)
{
    return shape == 'h' || shape == 'H' ? 16 : shape == 'p' || shape == 'P' || shape == 'b' ? 64 : 32;
}

/* ---- text building ----------------------------------------------------------------------- */

typedef struct Text {
    char *s;
    size_t len, cap;
} Text;

static void text_add(Text *t, const char *fmt, ...) UTIL_PRINTF(2, 3);
static void text_add(Text *t, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    util_reserve((void **)&t->s, &t->cap, t->len + (size_t)n + 1, 1);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    t->len += (size_t)n;
}

static const char *name_or(const char *const *names, unsigned count, unsigned i)
{
    return i < count ? names[i] : "?";
}

/* The shortest "%.Ng" that reads back to `bits`, with ".0" added so it reads as a float. */
static bool format_float(uint64_t bits, unsigned width, char *out, size_t size)
{
    double v;
    if (width == 16) {
        if ((bits & 0x7c00) == 0 && (bits & 0x3ff))
            return false;
        v = util_f16_to_f32((uint16_t)bits);
    } else {
        if ((bits & 0x7f800000) == 0 && (bits & 0x7fffff))
            return false;
        v = util_bits_f32((uint32_t)bits);
    }
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(out, size, "%.*g", prec, v);
        if (!strpbrk(out, ".en"))
            strncat(out, ".0", size - strlen(out) - 1);
        uint64_t back;
        if (!isa_parse_imm(out, strlen(out), width, &back) && back == bits)
            return true;
    }
    return false;
}

static void add_operand(Text *t, const IsaInst *in, int k, char letter)
{
    const IsaOperand *o = &in->opd[k];
    char shape = isa_operand_shape(in, k, letter);
    const char *neg = o->flags & ISA_OPD_NEG ? "-" : "";
    const char *bar = o->flags & ISA_OPD_ABS ? "|" : "";
    switch ((IsaOperandKind)o->kind) {
    case ISA_OPD_R32:
    case ISA_OPD_R64:
        text_add(t, "%s%sr%u%s", neg, bar, o->index, bar);
        break;
    case ISA_OPD_R16:
        text_add(t, "%s%sr%u%c%s", neg, bar, o->index / 2u, o->index & 1 ? 'h' : 'l', bar);
        break;
    case ISA_OPD_U32:
    case ISA_OPD_U16:
    case ISA_OPD_U64:
        text_add(t, "%s%su%u%s", neg, bar, o->index, bar);
        break;
    case ISA_OPD_IMM: {
        char num[64];
        unsigned width = isa_shape_bits(shape);
        if (isa_operand_is_float(in, k, letter) && format_float(o->imm, width, num, sizeof num))
            text_add(t, "%s", num);
        else if (o->imm <= 0xffff)
            text_add(t, "%llu", (unsigned long long)o->imm);
        else
            text_add(t, "0x%llx", (unsigned long long)o->imm);
        break;
    }
    case ISA_OPD_LABEL:
        text_add(t, "L%u", o->index);
        break;
    case ISA_OPD_SR:
        text_add(t, "%s", name_or(isa_sr_names, ISA_SR_COUNT, o->index));
        break;
    case ISA_OPD_NUM:
        text_add(t, "%llu", (unsigned long long)o->imm);
        break;
    default:
        text_add(t, "?");
        break;
    }
}

static void add_mnemonic(Text *t, const IsaInst *in)
{
    const IsaOpInfo *info = &isa_ops[in->op];
    uint32_t mods = info->modifiers;
    text_add(t, "%s", info->name);
    if ((mods & ISA_MOD_SAT) && (in->flags & ISA_INST_SAT))
        text_add(t, ".sat");
    if (mods & (ISA_MOD_ICOND | ISA_MOD_FCOND))
        text_add(t, ".%s", name_or(isa_cond_names, ISA_COND_COUNT, in->cond));
    if (mods & ISA_MOD_CVT) {
        text_add(t, ".%s.%s", name_or(isa_type_names, ISA_TYPE_COUNT, in->type),
                 name_or(isa_type_names, ISA_TYPE_COUNT, in->src_type));
        if (in->round == ISA_ROUND_RTE || in->round == ISA_ROUND_RTZ)
            text_add(t, in->round == ISA_ROUND_RTE ? ".rte" : ".rtz");
    }
    if (mods & ISA_MOD_MEM) {
        text_add(t, ".%s", name_or(isa_fmt_names, ISA_FMT_COUNT, in->type));
        if (in->count > 1)
            text_add(t, ".x%u", in->count);
    }
    if (mods & ISA_MOD_ATOM)
        text_add(t, ".%s", name_or(isa_atomic_names, ISA_ATOM_COUNT, in->cond));
    if (mods & (ISA_MOD_ATOM | ISA_MOD_ATYPE))
        text_add(t, ".%s", isa_elem_type_name((IsaType)in->type));
    if (mods & ISA_MOD_BAR) {
        if (!(in->flags & (ISA_MEM_DEVICE | ISA_MEM_THREADGROUP | ISA_MEM_TEXTURE)))
            text_add(t, ".none");
        if (in->flags & ISA_MEM_DEVICE)
            text_add(t, ".dev");
        if (in->flags & ISA_MEM_THREADGROUP)
            text_add(t, ".tg");
        if (in->flags & ISA_MEM_TEXTURE)
            text_add(t, ".tex");
    }
    if (mods & ISA_MOD_PREFIX)
        text_add(t, in->count ? ".incl" : ".excl");
    if (mods & (ISA_MOD_RED | ISA_MOD_PREFIX))
        text_add(t, ".%s.%s", name_or(isa_reduce_names, ISA_RED_COUNT, in->cond),
                 isa_elem_type_name((IsaType)in->type));
}

static void add_inst(Text *t, const IsaInst *in)
{
    if (in->op >= ISA_OP_COUNT) {
        text_add(t, "?op%u", in->op);
        return;
    }
    add_mnemonic(t, in);
    char letters[ISA_MAX_OPERANDS];
    int n = isa_op_letters((IsaOpcode)in->op, letters);
    for (int k = 0; k < n; k++) {
        text_add(t, k ? ", " : " ");
        add_operand(t, in, k, letters[k]);
    }
}

size_t isa_format_inst(const IsaProgram *p, const IsaInst *inst, char *buf, size_t size)
{
    (void)p; /* labels are named after their target index, which the operand holds */
    Text t = {0};
    add_inst(&t, inst);
    size_t n = 0;
    if (size) {
        n = t.len < size - 1 ? t.len : size - 1;
        memcpy(buf, t.s, n);
        buf[n] = '\0';
    }
    free(t.s);
    return n;
}

/* ---- whole programs ---------------------------------------------------------------------- */

/* Line `line` (1-based) of text, without its newline, as a span; false when absent. */
static bool source_line(const char *text, uint32_t line, const char **s, size_t *len)
{
    for (uint32_t i = 1; text && i < line; i++) {
        text = strchr(text, '\n');
        if (text)
            text++;
    }
    if (!text || !*text)
        return false;
    while (*text == ' ' || *text == '\t')
        text++;
    const char *nl = strchr(text, '\n');
    *s = text;
    *len = nl ? (size_t)(nl - text) : strlen(text);
    while (*len && (text[*len - 1] == '\r' || text[*len - 1] == ' '))
        (*len)--;
    return true;
}

static void add_source_comment(Text *t, const IsaProgram *p, const IsaSourceLoc *loc, char **texts,
                               bool *tried)
{
    if (loc->file >= p->num_files || !p->files[loc->file])
        return;
    if (!tried[loc->file]) {
        tried[loc->file] = true;
        texts[loc->file] = util_read_file(p->files[loc->file], NULL, NULL);
    }
    const char *s;
    size_t len;
    text_add(t, "    ; %s:%u", p->files[loc->file], loc->line);
    if (texts[loc->file] && source_line(texts[loc->file], loc->line, &s, &len) && len) {
        bool printable = true;
        for (size_t i = 0; i < len; i++)
            printable &= (unsigned char)s[i] >= 0x20 || s[i] == '\t';
        if (printable)
            text_add(t, ": %.*s", (int)UTIL_MIN(len, 200), s);
    }
    char call[256];
    if (*isa_call_text(p, loc, call, sizeof call))
        text_add(t, "%s", call);
    text_add(t, "\n");
}

static const char *const arg_kind_names[ISA_ARG_COUNT] = {"device", "constant", "threadgroup"};

/* A declaration without a value (IsaProgram.undefs): no instruction, a comment. */
static void add_undef_comment(Text *t, const IsaUndef *u)
{
    const IsaOperand *r = &u->reg;
    if (r->kind == ISA_OPD_R16)
        text_add(t, "    ; r%u%c: `%s` (line %u) holds no value yet\n", r->index / 2u,
                 r->index & 1 ? 'h' : 'l', u->name, u->loc.line);
    else
        text_add(t, "    ; r%u%s: `%s` (line %u) holds no value yet\n", r->index,
                 r->kind == ISA_OPD_R64 ? " (pair)" : "", u->name, u->loc.line);
}

/* Each block of constant data as `.data NAME, uK, BYTES, ELEM` and its contents as
 * `.word` lines of up to 8 little-endian words (the last one zero-padded), so that the text
 * assembles back to the same bytes. */
static void add_data(Text *t, const IsaProgram *p)
{
    for (uint32_t i = 0; i < p->num_symbols; i++) {
        const IsaSymbol *s = &p->symbols[i];
        if (s->space != ISA_SYM_CONSTANT)
            continue;
        text_add(t, ".data %s, u%u, %u, %u", s->name, s->uniform, s->size, s->elem_size);
        if (s->type_name)
            text_add(t, "    ; %s", s->type_name);
        text_add(t, "\n");
        uint32_t words = (s->size + 3) / 4;
        for (uint32_t w = 0; w < words; w++) {
            uint8_t b[4] = {0};
            for (uint32_t k = 0; k < 4 && w * 4 + k < s->size; k++)
                b[k] = p->data[s->offset + w * 4 + k];
            uint32_t v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                         (uint32_t)b[3] << 24;
            text_add(t, "%s0x%08x%s", w % 8 ? ", " : ".word ", v,
                     w % 8 == 7 || w + 1 == words ? "\n" : "");
        }
    }
}

char *isa_disassemble(const IsaProgram *p, bool with_source)
{
    Text t = {0};
    util_reserve((void **)&t.s, &t.cap, 1, 1);
    t.s[0] = '\0';
    if (p->name)
        text_add(&t, ".kernel %s\n", p->name);
    text_add(&t, ".regs %u\n", p->num_regs);
    for (uint32_t i = 0; i < p->num_args; i++) {
        const IsaArg *arg = &p->args[i];
        text_add(&t, ".arg %s, %s, u%u", arg->name ? arg->name : "?",
                 name_or(arg_kind_names, ISA_ARG_COUNT, arg->kind), arg->uniform);
        if (arg->tensor_rank)
            text_add(&t, ", tensor");
        if (arg->texture)
            text_add(&t, ", texture%ud", (unsigned)arg->texture);
        if (arg->type_name)
            text_add(&t, "    ; %s%s", arg->is_const ? "const " : "", arg->type_name);
        text_add(&t, "\n");
    }
    if (p->tg_mem_bytes)
        text_add(&t, ".tgmem %u\n", p->tg_mem_bytes);
    if (p->stack_bytes)
        text_add(&t, ".stack %u\n", p->stack_bytes);
    for (uint32_t i = 0; i < p->num_uniform_inits; i++) {
        uint32_t v = p->uniform_inits[i].value;
        text_add(&t, v <= 0xffff ? ".uniform u%u, %u\n" : ".uniform u%u, 0x%x\n",
                 p->uniform_inits[i].uniform, v);
    }
    add_data(&t, p);
    text_add(&t, "\n");
    bool *target = util_calloc(p->count + 1, sizeof *target);
    for (uint32_t i = 0; i < p->count; i++)
        for (int k = 0; k < ISA_MAX_OPERANDS; k++)
            if (p->code[i].opd[k].kind == ISA_OPD_LABEL && p->code[i].opd[k].index < p->count)
                target[p->code[i].opd[k].index] = true;
    bool sources = with_source && p->locs && p->files && p->num_files;
    char **texts = sources ? util_calloc(p->num_files, sizeof *texts) : NULL;
    bool *tried = sources ? util_calloc(p->num_files, sizeof *tried) : NULL;
    IsaSourceLoc last = {0};
    uint32_t u = 0; /* undefs are in instruction order */
    for (uint32_t i = 0; i < p->count; i++) {
        if (target[i])
            text_add(&t, "L%u:\n", i);
        if (sources) {
            const IsaSourceLoc *loc = &p->locs[i];
            if (loc->line && (loc->line != last.line || loc->file != last.file ||
                              loc->call != last.call))
                add_source_comment(&t, p, loc, texts, tried);
            last = *loc;
        }
        for (; with_source && u < p->num_undefs && p->undefs[u].index <= i; u++)
            add_undef_comment(&t, &p->undefs[u]);
        text_add(&t, "    ");
        add_inst(&t, &p->code[i]);
        text_add(&t, "\n");
    }
    if (texts)
        for (uint32_t f = 0; f < p->num_files; f++)
            free(texts[f]);
    free(texts);
    free(tried);
    free(target);
    return t.s;
}
