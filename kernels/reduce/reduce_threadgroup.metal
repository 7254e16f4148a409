// reduce_threadgroup.metal — the classic tree reduction in threadgroup memory: each
// threadgroup sums its slice of the input and writes one partial sum.
//
// What it shows: threadgroup memory and barriers. Every thread writes its element to a
// shared scratch array; then, in log2(threads) rounds, the lower half of the active threads
// adds in the upper half's values, halving the count each round. Between rounds a
// threadgroup_barrier makes every thread wait until all writes of the round are visible:
// without it a thread could read a slot its neighbour has not written yet.
//
// How it runs on SIMD-groups: "if (lid < stride)" keeps the *lower* threads active, so
// while stride >= 32 whole SIMD-groups are either fully active or fully idle: no SIMD-group
// diverges. Once stride < 32, only part of SIMD-group 0 works and the rest of the
// threadgroup just waits at the barriers; that tail is where simd_sum (reduce_simd.metal)
// does better. Note the barrier is outside the if: every thread of the threadgroup must
// reach the same barriers, or the threadgroup deadlocks.
//
// The partial sums still need adding up: a second dispatch of this kernel over them, or
// one atomic per threadgroup, as reduce_simd.metal does.
#include <metal_stdlib>
using namespace metal;

kernel void reduce_threadgroup(device const float *in        [[buffer(0)]],
                               device float *partial_sums    [[buffer(1)]],
                               constant uint &n              [[buffer(2)]],
                               threadgroup float *scratch    [[threadgroup(0)]],
                               uint gid                      [[thread_position_in_grid]],
                               uint group                    [[threadgroup_position_in_grid]],
                               uint lid                      [[thread_index_in_threadgroup]],
                               uint group_size               [[threads_per_threadgroup]])
{
    // Threads past the end add nothing, but they must still take part in the barriers.
    scratch[lid] = gid < n ? in[gid] : 0.0f;
    threadgroup_barrier(mem_flags::mem_threadgroup);

    // group_size must be a power of two for the halving to cover every slot.
    for (uint stride = group_size / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }

    if (lid == 0)
        partial_sums[group] = scratch[0];
}
