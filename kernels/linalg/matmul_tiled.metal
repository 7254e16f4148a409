// matmul_tiled.metal — C = A * B (row-major floats, A is M x K, B is K x N), one thread per
// element of C, with the operands staged through threadgroup memory in 16 x 16 tiles.
//
// What it shows: data reuse through threadgroup memory. A naive kernel reads a whole row of
// A and column of B from device memory for every element of C: 2K loads per 1 multiply-add.
// Here a 16 x 16 threadgroup loads one tile of A and one of B (one element per thread),
// waits at a barrier, and then each thread does 16 multiply-adds from on-chip memory: every
// element loaded from device memory is used 16 times.
//
// How it runs: the threads of a tile cooperate, so the two barriers are essential: the
// first makes the whole tile visible before anyone multiplies, the second stops a fast
// thread from overwriting the tile with the next one while others still read it. For the
// same reason, threads outside C (when M or N is not a multiple of 16) may not return
// early: they still load (zeros) and still reach every barrier; they only skip the store.
// Zero padding also handles K not a multiple of 16: adding 0 * 0 changes nothing.
// lid.x is the fastest-varying index, so the 32 lanes of a SIMD-group (two rows of the
// tile) read consecutive addresses of A and of B.
#include <metal_stdlib>
using namespace metal;

constant uint TILE = 16;

struct MatmulParams {
    uint M;   // rows of A and C
    uint N;   // columns of B and C
    uint K;   // columns of A, rows of B
};

kernel void matmul_tiled(device const float *A            [[buffer(0)]],
                         device const float *B            [[buffer(1)]],
                         device float *C                  [[buffer(2)]],
                         constant MatmulParams &p         [[buffer(3)]],
                         uint2 gid                        [[thread_position_in_grid]],
                         uint2 lid                        [[thread_position_in_threadgroup]])
{
    threadgroup float As[TILE][TILE];
    threadgroup float Bs[TILE][TILE];

    uint row = gid.y, col = gid.x;
    float acc = 0.0f;
    for (uint t = 0; t < p.K; t += TILE) {
        // Each thread loads one element of each tile, or 0 outside the matrices.
        uint a_col = t + lid.x, b_row = t + lid.y;
        if (row < p.M && a_col < p.K)
            As[lid.y][lid.x] = A[row * p.K + a_col];
        else
            As[lid.y][lid.x] = 0.0f;
        if (b_row < p.K && col < p.N)
            Bs[lid.y][lid.x] = B[b_row * p.N + col];
        else
            Bs[lid.y][lid.x] = 0.0f;
        threadgroup_barrier(mem_flags::mem_threadgroup);

        for (uint k = 0; k < TILE; k++)
            acc += As[lid.y][k] * Bs[k][lid.x];
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }

    if (row < p.M && col < p.N)
        C[row * p.N + col] = acc;
}
