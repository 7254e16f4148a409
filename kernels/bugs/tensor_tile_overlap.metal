// tensor_tile_overlap.metal — BUG: a Metal 4 tensor GEMM whose destination tiles overlap.
//
// D (64 x 64) = A (64 x 32) * B (32 x 64) in tiles of 32 x 32, one threadgroup of 4
// SIMD-groups each, with matmul2d (Metal Performance Primitives). The kernel once used
// 16-row tiles, and the destination slice still steps its rows by the old constant: the
// threadgroup at tile row 1 multiplies rows 32..63 of A but stores them at rows 16..47 of D,
// over rows 16..31 that the threadgroup at tile row 0 computed from rows 16..31 of A.
// Threadgroups cannot order their writes: which value D keeps depends on which finishes
// last, and rows 48..63 are never written.
//
// FIX: one constant for the tile everywhere (`d = D.slice(tg.x * Tile, tg.y * Tile)`).
#include <metal_stdlib>
#include <metal_tensor>
#include <MetalPerformancePrimitives/MetalPerformancePrimitives.h>
using namespace metal;
using namespace mpp::tensor_ops;

kernel void tensor_tile_overlap(tensor<device half, dextents<int, 2>> A,
                                tensor<device half, dextents<int, 2>> B,
                                tensor<device float, dextents<int, 2>> D,
                                uint2 tg [[threadgroup_position_in_grid]])
{
    const int Tile = 32;
    const int OldTile = 16;
    auto a = A.slice(0, tg.y * Tile);
    auto b = B.slice(tg.x * Tile, 0);
    auto d = D.slice(tg.x * Tile, tg.y * OldTile); // BUG: rows step by the old tile size
    constexpr auto desc = matmul2d_descriptor(Tile, Tile);
    matmul2d<desc, execution_simdgroups<4>> op;
    op.run(a, b, d);
}
