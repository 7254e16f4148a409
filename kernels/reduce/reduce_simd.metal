// reduce_simd.metal — a two-stage reduction with SIMD-group functions, finished with one
// atomic per threadgroup.
//
// What it shows: the 32 threads of a SIMD-group run in lockstep and can read each other's
// registers, so simd_sum adds 32 values without touching memory and without a barrier.
//   stage 0: each thread first sums many elements on its own (a grid-stride loop), so the
//            grid can be much smaller than the input;
//   stage 1: simd_sum combines the 32 lanes of each SIMD-group;
//   stage 2: lane 0 of each SIMD-group leaves its total in threadgroup memory; after one
//            barrier, SIMD-group 0 reads them all and simd_sums again;
//   finish:  one thread per threadgroup adds the threadgroup's total to the result with an
//            atomic: 8 atomics here, where reduce_atomic.metal does 16384.
// Compared with reduce_threadgroup.metal: one barrier instead of nine, and threadgroup
// memory for 32 floats instead of one per thread.
#include <metal_stdlib>
using namespace metal;

kernel void reduce_simd(device const float *in     [[buffer(0)]],
                        device atomic_float *total [[buffer(1)]],
                        constant uint &n           [[buffer(2)]],
                        uint gid                   [[thread_position_in_grid]],
                        uint grid_size             [[threads_per_grid]],
                        uint lane                  [[thread_index_in_simdgroup]],
                        uint simd_group            [[simdgroup_index_in_threadgroup]],
                        uint num_simd_groups       [[simdgroups_per_threadgroup]])
{
    threadgroup float simd_totals[32];   // at most 1024 threads = 32 SIMD-groups

    // Stage 0: consecutive lanes read consecutive elements at every step of the loop.
    float sum = 0.0f;
    for (uint i = gid; i < n; i += grid_size)
        sum += in[i];

    // Stage 1: a sum across the SIMD-group; every lane gets the result.
    sum = simd_sum(sum);
    if (lane == 0)
        simd_totals[simd_group] = sum;
    threadgroup_barrier(mem_flags::mem_threadgroup);

    // Stage 2: SIMD-group 0 sums the SIMD-group totals. Lanes beyond the number of
    // SIMD-groups contribute 0, so the whole SIMD-group can take part in simd_sum.
    if (simd_group == 0) {
        sum = lane < num_simd_groups ? simd_totals[lane] : 0.0f;
        sum = simd_sum(sum);
        if (lane == 0)
            atomic_fetch_add_explicit(total, sum, memory_order_relaxed);
    }
}
