// Cross-entropy loss per row of logits: logsumexp with the max subtracted, an ignore index
// that zeroes the row, labels as int; one threadgroup of 64 per row, the row max and sum
// through simd_max / simd_sum and a two-slot threadgroup array.
#include <metal_stdlib>
using namespace metal;

constant int IGNORE_INDEX = -100;

kernel void cross_entropy_fwd(device const float *logits [[buffer(0)]],
                              device const int *labels [[buffer(1)]],
                              device float *loss [[buffer(2)]],
                              constant uint &vocab [[buffer(3)]],
                              uint row [[threadgroup_position_in_grid]],
                              uint tid [[thread_index_in_threadgroup]],
                              uint sg [[simdgroup_index_in_threadgroup]],
                              uint lane [[thread_index_in_simdgroup]])
{
    threadgroup float part[2];
    const int label = labels[row];
    device const float *l = logits + size_t(row) * vocab;
    float m = -FLT_MAX;
    for (uint c = tid; c < vocab; c += 64)
        m = fmax(m, l[c]);
    m = simd_max(m);
    if (lane == 0)
        part[sg] = m;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    m = max(part[0], part[1]);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float s = 0;
    for (uint c = tid; c < vocab; c += 64)
        s += exp(l[c] - m);
    s = simd_sum(s);
    if (lane == 0)
        part[sg] = s;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (tid == 0)
        loss[row] = label == IGNORE_INDEX ? 0.0f : (log(part[0] + part[1]) + m - l[label]);
}
