// matmul.metal: tiled C = A * B (bench/compare/kernels/matmul.cl in Metal).
#include <metal_stdlib>
using namespace metal;

constant uint TILE = 16;

kernel void matmul(device const float *A [[buffer(0)]],
                   device const float *B [[buffer(1)]],
                   device float *C       [[buffer(2)]],
                   constant uint &M      [[buffer(3)]],
                   constant uint &N      [[buffer(4)]],
                   constant uint &K      [[buffer(5)]],
                   uint2 gid             [[thread_position_in_grid]],
                   uint2 lid             [[thread_position_in_threadgroup]])
{
    threadgroup float As[TILE][TILE];
    threadgroup float Bs[TILE][TILE];
    uint col = gid.x, row = gid.y;
    float acc = 0.0f;
    for (uint t = 0; t < K; t += TILE) {
        As[lid.y][lid.x] = A[row * K + t + lid.x];
        Bs[lid.y][lid.x] = B[(t + lid.y) * N + col];
        threadgroup_barrier(mem_flags::mem_threadgroup);
        for (uint k = 0; k < TILE; k++)
            acc = fma(As[lid.y][k], Bs[k][lid.x], acc);
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    if (row < M)
        C[row * N + col] = acc;
}
