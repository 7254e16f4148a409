/*
 * isa_internal.h — helpers shared by the assembler (asm.c), the disassembler (disasm.c) and
 * the docs generator (docs.c), so that the three agree on how an operand letter of the table
 * is spelled, how wide it is once an instruction's type is known, and how an immediate is
 * read. Nothing outside isa/ includes it.
 */
#ifndef LOCKSTEP_ISA_INTERNAL_H
#define LOCKSTEP_ISA_INTERNAL_H

#include "isa.h"

/* The operand letters of an op (the table's `operands` column without commas); returns how
 * many there are (0..ISA_MAX_OPERANDS). */
int isa_op_letters(IsaOpcode op, char letters[ISA_MAX_OPERANDS]);

/* The shape of operand `index` of `in` once its type is known: 'x' becomes D/H/P and 'y'
 * becomes s/h/p after the conversion or reduction type; 'm' becomes 'H' for h16 data and
 * 'D' otherwise; every other letter is returned as is. */
char isa_operand_shape(const IsaInst *in, int index, char letter);

/* Whether an immediate in operand `index` is a float value (printed as a float). */
bool isa_operand_is_float(const IsaInst *in, int index, char letter);

/* Spelling of an atomic or reduction type: i32 for s32, the plain type name otherwise. */
const char *isa_elem_type_name(IsaType t);

/* imm.c. Reads an immediate token of a `bits`-wide operand (16, 32 or 64): decimal or 0x hex
 * integers (optionally negative; stored as the operand's bits, zero-extended), floats with a
 * `.` or an exponent, inf and nan (f32 bits for 32-bit operands, f16 bits for 16-bit ones).
 * Returns NULL on success, else what is wrong with it. */
const char *isa_parse_imm(const char *s, size_t len, unsigned bits, uint64_t *value);

/* Bits of an immediate in an operand of the given shape letter (16, 32 or 64). */
unsigned isa_shape_bits(char shape);

#endif
