/*
 * codegen.h — the emission API that code generation's files share (codegen*.c): new virtual
 * registers and appending instructions to the kernel's LangIr at the current source
 * location. See lang_internal.h for what IR operands mean.
 */
#ifndef LOCKSTEP_LANG_CODEGEN_H
#define LOCKSTEP_LANG_CODEGEN_H

#include "lang_internal.h"

typedef struct LangCg LangCg;   /* code generation state of one kernel (codegen.c) */

/* A new virtual register of 16, 32 or 64 bits, as an operand (R16/R32/R64, index = vreg). */
IsaOperand lang_cg_new_vreg(LangCg *cg, int width);
/* Immediates: raw 32-bit bits, a float (f32 bits), a half (f16 bits, for 16-bit operands). */
IsaOperand lang_cg_imm(uint64_t bits);
IsaOperand lang_cg_imm_f32(float value);
IsaOperand lang_cg_imm_f16(uint16_t bits);
/* Appends an instruction with opcode op and everything else zero, at the current source
 * location; fill its operands and modifiers through the returned pointer before the next
 * emit. */
IsaInst *lang_cg_emit(LangCg *cg, IsaOpcode op);
LangCtx *lang_cg_ctx(LangCg *cg);

/* Math builtins (codegen_math.c): computes one scalar component of builtin b into dst from
 * args (all f32 operands, or all f16 operands when is_half), within the ULP limits of the
 * MSL spec chapter 7 for precise math, or of fast math when fast is set. Straight-line code
 * only (no branches: it may run with any exec mask). Returns false when b is not a math
 * builtin it implements. */
bool lang_cg_math(LangCg *cg, LangBuiltin b, IsaOperand dst, const IsaOperand *args, int nargs,
                  bool is_half, bool fast);

#endif
