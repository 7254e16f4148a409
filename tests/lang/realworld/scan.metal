// Two prefix sums of one threadgroup's block: Blelloch's work-efficient exclusive scan
// (up-sweep, clear, down-sweep) over 2 elements a thread, and an inclusive scan built from
// simd_prefix_inclusive_sum and the SIMD-groups' totals.
#include <metal_stdlib>
using namespace metal;

kernel void blelloch_scan(device const uint *in [[buffer(0)]],
                          device uint *out [[buffer(1)]],
                          device uint *block_sums [[buffer(2)]],
                          threadgroup uint *temp [[threadgroup(0)]],
                          uint tid [[thread_index_in_threadgroup]],
                          uint bid [[threadgroup_position_in_grid]],
                          uint nthreads [[threads_per_threadgroup]])
{
    const uint n = 2 * nthreads;
    const uint base = bid * n;
    temp[2 * tid] = in[base + 2 * tid];
    temp[2 * tid + 1] = in[base + 2 * tid + 1];
    uint offset = 1;
    for (uint d = n >> 1; d > 0; d >>= 1) {
        threadgroup_barrier(mem_flags::mem_threadgroup);
        if (tid < d) {
            uint ai = offset * (2 * tid + 1) - 1;
            uint bi = offset * (2 * tid + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }
    if (tid == 0) {
        block_sums[bid] = temp[n - 1];
        temp[n - 1] = 0;
    }
    for (uint d = 1; d < n; d *= 2) {
        offset >>= 1;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        if (tid < d) {
            uint ai = offset * (2 * tid + 1) - 1;
            uint bi = offset * (2 * tid + 2) - 1;
            uint t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[base + 2 * tid] = temp[2 * tid];
    out[base + 2 * tid + 1] = temp[2 * tid + 1];
}

kernel void simd_inclusive_scan(device const float *in [[buffer(0)]],
                                device float *out [[buffer(1)]],
                                uint gid [[thread_position_in_grid]],
                                uint lane [[thread_index_in_simdgroup]],
                                uint sg [[simdgroup_index_in_threadgroup]],
                                uint nsg [[simdgroups_per_threadgroup]])
{
    threadgroup float totals[32];
    float v = in[gid];
    float incl = simd_prefix_inclusive_sum(v);
    if (lane == 31)
        totals[sg] = incl;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (sg == 0) {
        float t = lane < nsg ? totals[lane] : 0.0f;
        totals[lane] = simd_prefix_exclusive_sum(t);
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[gid] = incl + totals[sg];
}
