// prefix_scan.metal — inclusive prefix sums within each threadgroup's block of the input
// (out[i] = in[start] + ... + in[i]), and each block's total.
//
// What it shows: a scan built from SIMD-group scans. simd_prefix_inclusive_sum gives lane i
// the sum of lanes 0..i of its SIMD-group in a handful of shuffle steps, with no memory and
// no barrier. To scan a whole threadgroup, each SIMD-group's total (held by its last lane)
// goes to threadgroup memory; after a barrier SIMD-group 0 turns those totals into
// exclusive prefix sums, the offset every SIMD-group must add; after a second barrier each
// thread adds its SIMD-group's offset.
//
// A scan of the whole array is one more step away: scan block_sums (with this same
// kernel, for up to 1024 blocks of 1024) and add block b's exclusive prefix to block b.
// Threads past the end scan a 0, so they do not change the sums, and they stay in the
// kernel so that every SIMD-group is complete and every thread reaches both barriers.
#include <metal_stdlib>
using namespace metal;

kernel void prefix_scan(device const uint *in      [[buffer(0)]],
                        device uint *out           [[buffer(1)]],
                        device uint *block_sums    [[buffer(2)]],
                        constant uint &n           [[buffer(3)]],
                        uint gid                   [[thread_position_in_grid]],
                        uint group                 [[threadgroup_position_in_grid]],
                        uint lane                  [[thread_index_in_simdgroup]],
                        uint simd_width            [[threads_per_simdgroup]],
                        uint simd_group            [[simdgroup_index_in_threadgroup]],
                        uint num_simd_groups       [[simdgroups_per_threadgroup]])
{
    threadgroup uint offsets[32];

    uint v = gid < n ? in[gid] : 0;
    uint sum = simd_prefix_inclusive_sum(v);      // lanes 0..lane of this SIMD-group
    if (lane == simd_width - 1)
        offsets[simd_group] = sum;                // the SIMD-group's total
    threadgroup_barrier(mem_flags::mem_threadgroup);

    if (simd_group == 0) {
        uint total = lane < num_simd_groups ? offsets[lane] : 0;
        uint before = simd_prefix_exclusive_sum(total);
        if (lane < num_simd_groups)
            offsets[lane] = before;               // what the SIMD-groups before it add up to
        if (lane == num_simd_groups - 1)
            block_sums[group] = before + total;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);

    sum += offsets[simd_group];
    if (gid < n)
        out[gid] = sum;
}
