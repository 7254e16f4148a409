/*
 * asm_internal.h — what the assembler's two files share (asm.c: instructions, lines, labels
 * and the whole file; asm_directive.c: the directives): its state, source positions for
 * messages, and the small scanners both read lines with. Nothing outside isa/ includes it.
 */
#ifndef LOCKSTEP_ISA_ASM_INTERNAL_H
#define LOCKSTEP_ISA_ASM_INTERNAL_H

#include "isa_internal.h"

#include <string.h>

enum { ASM_MAX_SUFFIXES = 8, ASM_SHOW_TOKEN = 40 };

/* A span of one source line, for messages. */
typedef struct AsmPos {
    const char *line;
    uint32_t line_len, line_no, col, len;
} AsmPos;

typedef struct AsmLabel {
    const char *name;
    size_t len;
    uint32_t index; /* the instruction it marks */
    AsmPos pos;
} AsmLabel;

/* A label operand waiting for its target, or a register use waiting for `.regs`. */
typedef struct AsmRef {
    uint32_t inst;
    uint8_t opd;
    uint32_t last_reg; /* register uses: the highest register number touched */
    AsmPos pos;
} AsmRef;

typedef struct Asm {
    const char *file;
    UtilError *err;
    IsaProgram *prog;
    const char *line;
    uint32_t line_len, line_no;
    AsmLabel *labels;
    size_t num_labels, cap_labels;
    AsmRef *fixups, *uses;
    size_t num_fixups, cap_fixups, num_uses, cap_uses;
    size_t cap_args, cap_inits, cap_syms;
    bool seen_kernel, seen_regs, seen_tgmem, seen_stack;
    bool in_data;       /* a .data block is open: .word lines fill it */
    uint32_t data_sym;  /* its symbol */
    uint32_t data_fill; /* bytes of it the .word lines have given so far */
    AsmPos tail;      /* just past the last non-blank, non-comment text */
    AsmPos last_inst; /* the mnemonic of the last instruction */
} Asm;

static inline AsmPos pos_at(const Asm *a, const char *p, size_t len)
{
    AsmPos pos = {a->line, a->line_len, a->line_no, (uint32_t)(p - a->line) + 1, (uint32_t)len};
    return pos;
}

/* Sets a's error to `file:line:col: error: message`, the line and a caret under pos;
 * returns false. */
bool isa_asm_fail(const Asm *a, AsmPos pos, const char *fmt, ...) UTIL_PRINTF(3, 4);

/* ---- scanning ---------------------------------------------------------------------------- */

static inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }
static inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
static inline bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static inline bool is_ident(char c) { return is_alpha(c) || is_digit(c) || c == '.'; }

static inline const char *skip_space(const char *p, const char *end)
{
    while (p < end && is_space(*p))
        p++;
    return p;
}

static inline const char *scan_ident(const char *p, const char *end)
{
    while (p < end && is_ident(*p))
        p++;
    return p;
}

/* The end of the operand starting at p: the next comma or the end of the line. */
static inline const char *operand_end(const char *p, const char *end)
{
    while (p < end && *p != ',')
        p++;
    return p;
}

static inline const char *trim_end(const char *s, const char *e)
{
    while (e > s && is_space(e[-1]))
        e--;
    return e;
}

static inline bool token_is(const char *s, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(s, word, len) == 0;
}

/* A decimal number of up to 9 digits (directive values, n, k); false when it is not one. */
static inline bool scan_small_uint(const char *s, const char *e, uint32_t *value)
{
    if (s == e || e - s > 9)
        return false;
    uint32_t v = 0;
    for (const char *p = s; p < e; p++) {
        if (!is_digit(*p))
            return false;
        v = v * 10 + (uint32_t)(*p - '0');
    }
    *value = v;
    return true;
}

/* asm_directive.c: a line that starts with '.' (p at the '.', end at its comment). */
bool isa_asm_directive(Asm *a, const char *p, const char *end);

#endif
