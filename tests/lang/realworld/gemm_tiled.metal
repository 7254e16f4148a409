// SGEMM C = alpha * A * B + beta * C with 16x16 threadgroup tiles of A and B, uint2
// positions, partial edge tiles padded with zeros, a constant struct of sizes; the inner
// product loop is a #pragma unroll over the tile.
#include <metal_stdlib>
using namespace metal;

#define BM 16
#define BN 16
#define BK 16

struct GemmParams {
    uint M, N, K;
    uint lda, ldb, ldc;
    float alpha, beta;
};

kernel void sgemm_tiled(device const float *A [[buffer(0)]],
                        device const float *B [[buffer(1)]],
                        device float *C [[buffer(2)]],
                        constant GemmParams &gp [[buffer(3)]],
                        uint2 gid [[thread_position_in_grid]],
                        uint2 lid [[thread_position_in_threadgroup]])
{
    threadgroup float As[BM][BK];
    threadgroup float Bs[BK][BN];
    const uint row = gid.y, col = gid.x;
    float acc = 0.0f;
    for (uint k0 = 0; k0 < gp.K; k0 += BK) {
        uint ak = k0 + lid.x, bk = k0 + lid.y;
        As[lid.y][lid.x] = (row < gp.M && ak < gp.K) ? A[row * gp.lda + ak] : 0.0f;
        Bs[lid.y][lid.x] = (bk < gp.K && col < gp.N) ? B[bk * gp.ldb + col] : 0.0f;
        threadgroup_barrier(mem_flags::mem_threadgroup);
#pragma unroll
        for (uint k = 0; k < BK; ++k)
            acc = fma(As[lid.y][k], Bs[k][lid.x], acc);
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    if (row < gp.M && col < gp.N) {
        device float &c = C[row * gp.ldc + col];
        c = gp.alpha * acc + gp.beta * c;
    }
}
