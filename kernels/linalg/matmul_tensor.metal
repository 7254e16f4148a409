// matmul_tensor.metal — C = A * B with Metal 4's tensor operations (matmul2d from Metal
// Performance Primitives): the kernel names the tile and the SIMD-groups, and the operation
// does the rest. Each threadgroup of 4 SIMD-groups computes a 32 x 32 tile of C from the
// rows of A and the columns of B that tile needs (slices of the tensors); k comes from A's
// extent at run time. Compare matmul_simdgroup.metal, the same GEMM written with 8 x 8
// SIMD-group matrices by hand, and run both with --gpu m5 (a neural accelerator in every
// core) and --gpu m4-pro (tensor operations on the ALUs) to see what the accelerator buys.
//
// In lockstep each SIMD-group holds its 16 x 16 block of the tile as four 8 x 8 matrices
// and issues `tmma` (the tensor unit's multiply-accumulate) for each 8 columns of A; edges
// of the tensors read as 0 and are not written (docs/language.md, "Tensor operations").
#include <metal_stdlib>
#include <metal_tensor>
#include <MetalPerformancePrimitives/MetalPerformancePrimitives.h>
using namespace metal;
using namespace mpp::tensor_ops;

kernel void matmul_tensor(tensor<device float, dextents<int, 2>> A,
                          tensor<device float, dextents<int, 2>> B,
                          tensor<device float, dextents<int, 2>> C,
                          uint2 tg [[threadgroup_position_in_grid]])
{
    constexpr int Tile = 32;
    auto a = A.slice(0, tg.y * Tile);        // rows of A for this tile, every column
    auto b = B.slice(tg.x * Tile, 0);        // columns of B, every row
    auto c = C.slice(tg.x * Tile, tg.y * Tile);
    constexpr auto desc = matmul2d_descriptor(Tile, Tile, dynamic_length_v<int>);
    matmul2d<desc, execution_simdgroups<4>> op;
    op.run(a, b, c);                         // c = a * b
}
