// wrong_barrier_flags.metal — BUG: the barrier between reduction rounds orders the wrong
// memory.
//
// threadgroup_barrier(mem_flags::mem_device) makes every thread wait, but it only promises
// that DEVICE memory writes before it are visible after it. The rounds of this reduction
// communicate through THREADGROUP memory (scratch), and for that the barrier says nothing:
// a thread may still read a partial sum its neighbour wrote in the previous round from a
// stale copy. Execution order alone does not make a write visible — the memory flags do.
//
// lockstep therefore treats this barrier as no barrier at all for threadgroup memory. At
// stride 64 SIMD-group 1 writes scratch[32..63]; at stride 32, after the mem_device
// barrier, SIMD-group 0 reads them (read after write).
//
// FIX: threadgroup_barrier(mem_flags::mem_threadgroup) — or mem_device | mem_threadgroup
// when both kinds of memory must be ordered.
#include <metal_stdlib>
using namespace metal;

kernel void wrong_barrier_flags(device const float *in     [[buffer(0)]],
                                device float *partial_sums [[buffer(1)]],
                                threadgroup float *scratch [[threadgroup(0)]],
                                uint gid                   [[thread_position_in_grid]],
                                uint group                 [[threadgroup_position_in_grid]],
                                uint lid                   [[thread_index_in_threadgroup]],
                                uint group_size            [[threads_per_threadgroup]])
{
    scratch[lid] = in[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint stride = group_size / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        threadgroup_barrier(mem_flags::mem_device); // BUG: scratch is threadgroup memory
    }
    if (lid == 0)
        partial_sums[group] = scratch[0];
}
