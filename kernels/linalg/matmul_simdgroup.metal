// matmul_simdgroup.metal — C = A * B (row-major floats, A is M x K, B is K x N) with
// SIMD-group matrices: each threadgroup of 4 SIMD-groups computes a 32 x 32 tile of C, each
// SIMD-group a 16 x 16 quarter of it as 2 x 2 blocks of 8 x 8 (simdgroup_float8x8).
//
// What it shows: the matrix unit of a SIMD-group. simdgroup_multiply_accumulate multiplies
// two 8 x 8 matrices spread over the 32 lanes (two elements a lane) and adds a third: 512
// multiply-adds in one instruction (`mma32` in `lockstep compile`), which the timing model
// issues on the fp32 pipe for 16 cycles. Each step stages an 8-wide slice of A (32 x 8) and
// of B (8 x 32) in threadgroup memory; every SIMD-group loads its two blocks of each with
// simdgroup_load (each lane loads its two elements: `ld_tg` at addresses made from its lane
// ID) and does four multiply-accumulates, reusing each loaded block twice.
//
// How it runs: M and N must be multiples of 32 and K of 8 (no edge handling: a real kernel
// pads or adds a slow path). Every thread of the threadgroup stages two elements of each
// slice, so the barriers around the multiply are essential, as in matmul_tiled.metal.
// `lockstep check` on it is clean; `lockstep run --stats` shows the fp32 pipe busy with the
// matrix ops.
#include <metal_stdlib>
#include <metal_simdgroup_matrix>
using namespace metal;

struct MatmulParams {
    uint M;   // rows of A and C
    uint N;   // columns of B and C
    uint K;   // columns of A, rows of B
};

kernel void matmul_simdgroup(device const float *A [[buffer(0)]],
                             device const float *B [[buffer(1)]],
                             device float *C [[buffer(2)]],
                             constant MatmulParams &p [[buffer(3)]],
                             uint2 tg [[threadgroup_position_in_grid]],
                             uint tid [[thread_index_in_threadgroup]],
                             uint sg [[simdgroup_index_in_threadgroup]])
{
    threadgroup float As[32 * 8];   // rows row0..row0+31 of A, columns k0..k0+7
    threadgroup float Bs[8 * 32];   // rows k0..k0+7 of B, columns col0..col0+31
    const uint row0 = tg.y * 32, col0 = tg.x * 32;
    const uint sr = (sg / 2) * 16, sc = (sg % 2) * 16;   // this SIMD-group's quarter

    simdgroup_float8x8 acc[2][2];
    for (uint i = 0; i < 2; i++)
        for (uint j = 0; j < 2; j++)
            acc[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);

    for (uint k0 = 0; k0 < p.K; k0 += 8) {
        for (uint e = tid; e < 256; e += 128) {
            As[e] = A[(row0 + e / 8) * p.K + k0 + e % 8];
            Bs[e] = B[(k0 + e / 32) * p.N + col0 + e % 32];
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_float8x8 a[2], b[2];
        for (uint i = 0; i < 2; i++)
            simdgroup_load(a[i], As, 8, ulong2(0, sr + 8 * i));    // origin: (column, row)
        for (uint j = 0; j < 2; j++)
            simdgroup_load(b[j], Bs, 32, ulong2(sc + 8 * j, 0));
        for (uint i = 0; i < 2; i++)
            for (uint j = 0; j < 2; j++)
                simdgroup_multiply_accumulate(acc[i][j], a[i], b[j], acc[i][j]);
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }

    for (uint i = 0; i < 2; i++)
        for (uint j = 0; j < 2; j++)
            simdgroup_store(acc[i][j], C, p.N, ulong2(col0 + sc + 8 * j, row0 + sr + 8 * i));
}
