// reduce.metal: threadgroup tree reduction (bench/compare/kernels/reduce.cl in Metal).
#include <metal_stdlib>
using namespace metal;

kernel void reduce(device const float *in       [[buffer(0)]],
                   device float *partial_sums   [[buffer(1)]],
                   uint gid                     [[thread_position_in_grid]],
                   uint group                   [[threadgroup_position_in_grid]],
                   uint lid                     [[thread_index_in_threadgroup]],
                   uint group_size              [[threads_per_threadgroup]])
{
    threadgroup float scratch[256];
    scratch[lid] = in[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint stride = group_size / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    if (lid == 0)
        partial_sums[group] = scratch[0];
}
