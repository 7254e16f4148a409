// Matrix-vector product with float4 loads: the matrix rows reinterpreted as float4, each
// SIMD-group taking one row with lanes striding over its float4s, a simd_sum, and the tail
// (cols not a multiple of 4) read as scalars.
#include <metal_stdlib>
using namespace metal;

kernel void gemv_f4(device const float *A [[buffer(0)]],
                    device const float *x [[buffer(1)]],
                    device float *y [[buffer(2)]],
                    constant uint &rows [[buffer(3)]],
                    constant uint &cols [[buffer(4)]],
                    uint tg [[threadgroup_position_in_grid]],
                    uint simd_gid [[simdgroup_index_in_threadgroup]],
                    uint simd_lid [[thread_index_in_simdgroup]],
                    uint simds [[simdgroups_per_threadgroup]])
{
    const uint row = tg * simds + simd_gid;
    if (row >= rows)
        return;
    const uint n4 = cols / 4;
    device const float4 *a4 = reinterpret_cast<device const float4 *>(A + row * cols);
    device const float4 *x4 = reinterpret_cast<device const float4 *>(x);
    float acc = 0.0f;
    for (uint i = simd_lid; i < n4; i += 32)
        acc += dot(a4[i], x4[i]);
    for (uint i = n4 * 4 + simd_lid; i < cols; i += 32)
        acc += A[row * cols + i] * x[i];
    acc = simd_sum(acc);
    if (simd_lid == 0)
        y[row] = acc;
}
