// softmax.metal: row softmax of scale * x (bench/compare/kernels/softmax.cl in Metal).
#include <metal_stdlib>
using namespace metal;

kernel void softmax(device const float *in [[buffer(0)]],
                    device float *out      [[buffer(1)]],
                    constant float &scale  [[buffer(2)]],
                    uint gid               [[thread_position_in_grid]],
                    uint lid               [[thread_index_in_threadgroup]],
                    uint n                 [[threads_per_threadgroup]])
{
    threadgroup float scratch[256];
    float x = in[gid] * scale;

    scratch[lid] = x;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint s = n / 2; s > 0; s /= 2) {
        if (lid < s)
            scratch[lid] = fmax(scratch[lid], scratch[lid + s]);
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    float m = scratch[0];
    threadgroup_barrier(mem_flags::mem_threadgroup);

    float e = exp(x - m);
    scratch[lid] = e;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint s = n / 2; s > 0; s /= 2) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    out[gid] = e / scratch[0];
}
