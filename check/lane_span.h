/*
 * lane_span.h — where the active lanes of one memory access fall, in a few vector steps:
 * the lowest and highest address and the OR of them all (for an alignment test). The race
 * detector and the memory checker both start from this to decide, once per access, whether
 * every lane is in range and aligned, instead of asking lane by lane.
 */
#ifndef LOCKSTEP_CHECK_LANE_SPAN_H
#define LOCKSTEP_CHECK_LANE_SPAN_H

#include <stdbool.h>
#include <stdint.h>

#include "../sim/sim.h"
#if defined(__AVX2__)
#include <immintrin.h>
#endif

typedef struct CheckSpan {
    uint64_t lo, hi;   /* lowest and highest addr[l] & keep over the lanes in the mask */
    uint64_t any;      /* their OR */
} CheckSpan;

/* The span of addr[l] & keep over the lanes set in mask, which must not be 0. */
static inline CheckSpan check_lane_span(const uint64_t *addr, uint32_t mask, uint64_t keep)
{
#if defined(__AVX2__)
    /* unsigned order through signed compares: flip the top bit */
    const __m256i flip = _mm256_set1_epi64x(INT64_MIN), k = _mm256_set1_epi64x((int64_t)keep);
    const __m256i bit = _mm256_setr_epi64x(1, 2, 4, 8);
    __m256i lo = _mm256_set1_epi64x(INT64_MAX), hi = flip, any = _mm256_setzero_si256();
    for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l += 4) {
        __m256i on = _mm256_set1_epi64x((int64_t)(mask >> l & 15));
        on = _mm256_cmpeq_epi64(_mm256_and_si256(on, bit), bit);
        __m256i a = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(const void *)(addr + l)), k);
        __m256i s = _mm256_xor_si256(a, flip);
        lo = _mm256_blendv_epi8(lo, s, _mm256_and_si256(on, _mm256_cmpgt_epi64(lo, s)));
        hi = _mm256_blendv_epi8(hi, s, _mm256_and_si256(on, _mm256_cmpgt_epi64(s, hi)));
        any = _mm256_or_si256(any, _mm256_and_si256(on, a));
    }
    uint64_t l4[4], h4[4], a4[4];
    _mm256_storeu_si256((__m256i *)(void *)l4, _mm256_xor_si256(lo, flip));
    _mm256_storeu_si256((__m256i *)(void *)h4, _mm256_xor_si256(hi, flip));
    _mm256_storeu_si256((__m256i *)(void *)a4, any);
    CheckSpan s = {l4[0], h4[0], a4[0] | a4[1] | a4[2] | a4[3]};
    for (int i = 1; i < 4; i++) {
        s.lo = l4[i] < s.lo ? l4[i] : s.lo;
        s.hi = h4[i] > s.hi ? h4[i] : s.hi;
    }
    return s;
#else
    CheckSpan s = {UINT64_MAX, 0, 0};
    for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l++) {
        const bool on = mask >> l & 1;
        const uint64_t a = addr[l] & keep;
        s.lo = on && a < s.lo ? a : s.lo;
        s.hi = on && a > s.hi ? a : s.hi;
        s.any |= on ? a : 0;
    }
    return s;
#endif
}

/* Whether every lane's [addr, addr + bytes) is 4-byte aligned and inside [0, limit), from
 * its span; then the end of the highest is hi + bytes. */
static inline bool check_span_words_in(CheckSpan s, uint64_t bytes, uint64_t limit)
{
    return !((s.any | bytes) & 3) && s.hi + bytes > s.hi && s.hi + bytes <= limit;
}

#endif
