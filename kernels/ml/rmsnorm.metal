// rmsnorm.metal — RMS normalization (as in LLaMA-style transformers), one threadgroup per
// row: y[j] = x[j] * rsqrt(mean(x^2) + eps) * weight[j].
//
// What it shows: a single threadgroup-wide sum, done in two stages: simd_sum within each
// SIMD-group of 32 threads, then the SIMD-groups' totals through a little threadgroup
// memory. Every SIMD-group reduces those totals itself, so every thread gets the row's sum
// with one barrier and no separate broadcast. rsqrt is a single hardware instruction on
// Apple GPUs, cheaper than 1 / sqrt.
//
// How it runs: each thread accumulates every group_size-th element, so the 32 lanes of a
// SIMD-group always read 32 consecutive floats. The threadgroup must be a whole number of
// SIMD-groups (a multiple of 32), as it is in practice.
#include <metal_stdlib>
using namespace metal;

kernel void rmsnorm(device const float *in      [[buffer(0)]],
                    device const float *weight  [[buffer(1)]],
                    device float *out           [[buffer(2)]],
                    constant uint &cols         [[buffer(3)]],
                    constant float &eps         [[buffer(4)]],
                    uint row                    [[threadgroup_position_in_grid]],
                    uint lid                    [[thread_index_in_threadgroup]],
                    uint group_size             [[threads_per_threadgroup]],
                    uint lane                   [[thread_index_in_simdgroup]],
                    uint simd_group             [[simdgroup_index_in_threadgroup]],
                    uint num_simd_groups        [[simdgroups_per_threadgroup]])
{
    threadgroup float simd_totals[32];
    device const float *x = in + row * cols;
    device float *y = out + row * cols;

    float sum_sq = 0.0f;
    for (uint j = lid; j < cols; j += group_size)
        sum_sq += x[j] * x[j];

    sum_sq = simd_sum(sum_sq);
    if (lane == 0)
        simd_totals[simd_group] = sum_sq;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    sum_sq = simd_sum(lane < num_simd_groups ? simd_totals[lane] : 0.0f);

    float scale = rsqrt(sum_sq / float(cols) + eps);
    for (uint j = lid; j < cols; j += group_size)
        y[j] = x[j] * scale * weight[j];
}
