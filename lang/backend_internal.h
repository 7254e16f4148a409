/*
 * backend_internal.h — what backend.c and regalloc.c share: which operands of an IR
 * instruction name virtual registers (and how many consecutive ones a memory op's data
 * covers), the clean-up passes of opt.c and dce.c, and the register allocator's answer for every vreg.
 *
 * IR conventions the backend relies on beyond lang_internal.h:
 *   - The data operand of a memory op with .xN names its first vreg; the others are the next
 *     vreg ids, each taking as many elements as it is wide (a 64-bit vreg takes two b32
 *     elements; h16 data takes one 16-bit vreg per element). They get consecutive registers.
 *   - An R16 operand may name a 32-bit vreg (its low half) and an R32 operand a 64-bit vreg
 *     (its low register).
 *   - vreg 0 is r0 (R32) or r0l (R16) and is never allocated.
 */
#ifndef LOCKSTEP_LANG_BACKEND_INTERNAL_H
#define LOCKSTEP_LANG_BACKEND_INTERNAL_H

#include "lang_internal.h"

/* One register operand of an IR instruction. */
typedef struct LangBeOpd {
    uint8_t opd;      /* operand index in IsaInst.opd */
    bool def;         /* written by the instruction (else read) */
    bool is16;        /* lives in register halves (R16 or h16 data) */
    uint8_t halves;   /* 16-bit halves the operand covers */
    uint32_t vreg;    /* first vreg */
    uint32_t nvregs;  /* consecutive vregs it names (memory data .xN), else 1 */
} LangBeOpd;

/* Lists the register operands of `in`; returns how many, or -1 with *why set when the
 * instruction does not fit the IR conventions. */
int lang_be_operands(const LangIr *ir, const IsaInst *in, LangBeOpd out[ISA_MAX_OPERANDS],
                     const char **why);

/* An internal compiler error at an instruction's source location (or none). */
_Noreturn void lang_be_error(LangCtx *ctx, const IsaSourceLoc *loc, const char *fmt, ...)
    UTIL_PRINTF(3, 4);

/* The clean-ups of opt.c (constant-load reuse, algebraic folding, copy coalescing) on the
 * working copy insts[0..count) of ir's instructions, before register allocation; returns
 * the new count. Results are unchanged for every lane. */
uint32_t lang_opt(LangCtx *ctx, const LangIr *ir, LangIrInst *insts, uint32_t count);

/* Dead-code elimination (dce.c) on insts[0..count), after lang_opt: removes instructions
 * without side effects whose results nothing kept reads; returns the new count. When gone
 * is given (ir->num_vregs entries), gone[v] is set for each vreg that lost every reference
 * (a marker's aside): a variable's part the debugger shows as optimized out. */
uint32_t lang_dce(LangCtx *ctx, const LangIr *ir, LangIrInst *insts, uint32_t count, bool *gone);

enum { LANG_RA_SCRATCH_REG = 120 }; /* r120..r127 hold spilled values around their uses */

typedef struct LangRegAlloc {
    int32_t *half;          /* per vreg: its first 16-bit half (reg * 2 + high), -1 if none */
    int32_t *spill;         /* per vreg: byte offset of its stack slot when spilled, else -1 */
    int32_t *start, *end;   /* per vreg: live interval in positions of insts; -1 if unused */
    uint32_t stack_bytes;   /* the IR's stack bytes plus the spill slots */
    bool spilled;           /* something was spilled: r120..r127 are scratch */
} LangRegAlloc;

/* Allocates physical registers for every vreg referenced in insts[0..count) (labels
 * included as positions); spills to the stack when the registers run out. */
void lang_regalloc(LangCtx *ctx, const LangIr *ir, const LangIrInst *insts, uint32_t count,
                   LangRegAlloc *out);

#endif
