/*
 * fp.h — IEEE binary16/binary32 (and bfloat16) arithmetic as the ISA defines it, independent of the host's
 * FPU settings: conversions with round-to-nearest-even (subnormals, infinities and NaN
 * right), a single-rounding fused multiply-add for f32 and f16, and the int/float conversions
 * of the `cvt` instruction (float to int saturates, NaN gives 0, as Metal does).
 *
 * Half values travel as their 16-bit patterns (uint16_t), so no host half type is needed.
 */
#ifndef LOCKSTEP_FP_H
#define LOCKSTEP_FP_H

#include <stdint.h>

#include "../isa/isa.h"

/* binary16 <-> binary32. f32 -> f16 rounds to nearest, ties to even; NaN stays NaN (quiet). */
uint16_t util_f32_to_f16(float f);
uint16_t util_f32_to_f16_rtz(float f);
float util_f16_to_f32(uint16_t h);
/* bfloat16 (binary32's top 16 bits) <-> binary32: to nearest even, NaN stays NaN (quiet). */
uint16_t util_f32_to_bf16(float f);
float util_bf16_to_f32(uint16_t b);
/* double -> binary16 with a single rounding to nearest even. */
uint16_t util_f64_to_f16(double d);
uint16_t util_f64_to_bf16(double d);

/* a * b + c with one rounding. */
float util_fma_f32(float a, float b, float c);
uint16_t util_fma_f16(uint16_t a, uint16_t b, uint16_t c);

/* The `cvt` instruction: converts the value whose bits are `bits` (zero-extended to 64, of
 * type src) to type dst with the given rounding; returns the result's bits, zero-extended
 * (8/16-bit integer results are sign- or zero-extended to 32 bits as their type says).
 * ISA_ROUND_DEFAULT means: float -> int rounds toward zero (C), everything else to nearest
 * even. Float -> int saturates to the destination range; NaN converts to 0. */
uint64_t util_convert(uint64_t bits, IsaType src, IsaType dst, IsaRound round);

#endif
