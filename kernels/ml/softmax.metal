// softmax.metal — row-wise softmax, out[j] = exp(x[j] - max(x)) / sum_k exp(x[k] - max(x)),
// one threadgroup per row.
//
// What it shows: a kernel built from threadgroup-wide reductions, the pattern behind most
// normalization layers. Subtracting the row's maximum first keeps exp() from overflowing
// (softmax does not change when every input moves by the same amount).
//
// How it runs: three passes over the row, each thread taking every group_size-th column
// (so 32 lanes of a SIMD-group read 32 neighbouring columns: coalesced). The max and the
// sum are combined across the threadgroup by threadgroup_max / threadgroup_sum below:
// simd_max / simd_sum inside each SIMD-group (no memory, no barrier), one value per
// SIMD-group through threadgroup memory, and a second SIMD-group reduction that *every*
// SIMD-group performs, so that all threads end up with the result without another
// broadcast step. The second barrier in each helper keeps a fast SIMD-group from
// overwriting the scratch slots (in the next call) while a slow one is still reading them.
#include <metal_stdlib>
using namespace metal;

static float threadgroup_max(float v, threadgroup float *scratch, uint lane, uint simd_group,
                             uint num_simd_groups)
{
    v = simd_max(v);
    if (lane == 0)
        scratch[simd_group] = v;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    v = lane < num_simd_groups ? scratch[lane] : -INFINITY;
    v = simd_max(v);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    return v;
}

static float threadgroup_sum(float v, threadgroup float *scratch, uint lane, uint simd_group,
                             uint num_simd_groups)
{
    v = simd_sum(v);
    if (lane == 0)
        scratch[simd_group] = v;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    v = lane < num_simd_groups ? scratch[lane] : 0.0f;
    v = simd_sum(v);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    return v;
}

kernel void softmax(device const float *in   [[buffer(0)]],
                    device float *out        [[buffer(1)]],
                    constant uint &cols      [[buffer(2)]],
                    uint row                 [[threadgroup_position_in_grid]],
                    uint lid                 [[thread_index_in_threadgroup]],
                    uint group_size          [[threads_per_threadgroup]],
                    uint lane                [[thread_index_in_simdgroup]],
                    uint simd_group          [[simdgroup_index_in_threadgroup]],
                    uint num_simd_groups     [[simdgroups_per_threadgroup]])
{
    threadgroup float scratch[32];
    device const float *x = in + row * cols;
    device float *y = out + row * cols;

    // Pass 1: the row's maximum.
    float m = -INFINITY;
    for (uint j = lid; j < cols; j += group_size)
        m = max(m, x[j]);
    m = threadgroup_max(m, scratch, lane, simd_group, num_simd_groups);

    // Pass 2: the sum of the shifted exponentials.
    float s = 0.0f;
    for (uint j = lid; j < cols; j += group_size)
        s += exp(x[j] - m);
    s = threadgroup_sum(s, scratch, lane, simd_group, num_simd_groups);

    // Pass 3: normalize. One division, then a multiply per element.
    float inv = 1.0f / s;
    for (uint j = lid; j < cols; j += group_size)
        y[j] = exp(x[j] - m) * inv;
}
