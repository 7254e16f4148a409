/*
 * lane_span.h — where the active lanes of one memory access fall, bounded in one pass that
 * the compiler vectorizes: the AND of their addresses is at most the lowest, the OR at
 * least the highest (and has bit 0 or 1 set when any is misaligned). The race detector and
 * the memory checker use it to decide once per access that every lane is in range and
 * aligned, instead of asking lane by lane; when the bounds are too loose to tell, they go
 * lane by lane as before, with the same result.
 */
#ifndef LOCKSTEP_CHECK_LANE_SPAN_H
#define LOCKSTEP_CHECK_LANE_SPAN_H

#include <stdbool.h>
#include <stdint.h>

#include "../sim/sim.h"

typedef struct CheckSpan {
    uint64_t lo;   /* AND of addr[l] & keep over the lanes in the mask: <= the lowest */
    uint64_t hi;   /* their OR: >= the highest */
} CheckSpan;

/* The bounds of addr[l] & keep over the lanes set in mask (with none: lo > hi). */
static inline CheckSpan check_lane_span(const uint64_t *addr, uint32_t mask, uint64_t keep)
{
    uint64_t lo = ~(uint64_t)0, hi = 0;
    for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l++) {
        const uint64_t on = 0 - (uint64_t)(mask >> l & 1), a = addr[l] & keep;
        lo &= a | ~on;
        hi |= a & on;
    }
    return (CheckSpan){lo, hi};
}

/* Whether the span shows every lane's [a, a + bytes) 4-byte aligned and inside [0, limit):
 * then each ends by hi + bytes. */
static inline bool check_span_words_in(CheckSpan s, uint64_t bytes, uint64_t limit)
{
    return !((s.hi | bytes) & 3) && s.hi + bytes > s.hi && s.hi + bytes <= limit;
}

#endif
