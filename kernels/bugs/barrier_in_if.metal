// barrier_in_if.metal — BUG: a threadgroup_barrier inside an `if` that not every thread
// takes.
//
// A barrier is a meeting point for the WHOLE threadgroup: every thread must reach the same
// barrier the same number of times. Here only the threads with lid < stride reach it, so
// in the first round the upper half of the threadgroup never arrives; on real hardware the
// threadgroup hangs, or the barrier silently releases early and the rounds overlap —
// which one depends on the GPU, so the kernel may even seem to work.
//
// lockstep releases a barrier when no SIMD-group can run any more, so the run finishes,
// and the barrier check reports the first barrier that some threads of the threadgroup
// never reached.
//
// FIX: move the barrier out of the `if`, to the end of the loop body, so every thread runs
// it once per round (see ../reduce/reduce_threadgroup.metal).
#include <metal_stdlib>
using namespace metal;

kernel void barrier_in_if(device const float *in     [[buffer(0)]],
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
        if (lid < stride) {
            scratch[lid] += scratch[lid + stride];
            threadgroup_barrier(mem_flags::mem_threadgroup); // BUG: not every thread gets here
        }
    }
    if (lid == 0)
        partial_sums[group] = scratch[0];
}
