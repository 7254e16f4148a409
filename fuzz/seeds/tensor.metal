// A seed for make fuzz: the tensor-operation forms lockstep supports, in one kernel.
#include <metal_stdlib>
#include <metal_tensor>
#include <MetalPerformancePrimitives/MetalPerformancePrimitives.h>
using namespace metal;
using namespace mpp::tensor_ops;

half scale(half v) { return v * (half)0.5f; }

kernel void k(tensor<device half, dextents<int, 2>> A [[buffer(0)]],
              tensor<device half, dextents<int, 2>> B,
              tensor<device float, dextents<int, 2>> D,
              device const float *bias [[buffer(3)]],
              uint2 tg [[threadgroup_position_in_grid]],
              uint tid [[thread_index_in_threadgroup]])
{
    const int T = 32;
    threadgroup float stage[32 * 32];
    for (uint i = tid; i < 32u * 32u; i += 128u)
        stage[i] = bias[i];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    auto bt = tensor<threadgroup float, extents<int, 32, 32>>(stage, extents<int, 32, 32>());
    auto bd = tensor<device const float, dextents<int, 2>, tensor_inline>(bias, dextents<int, 2>(32, 32));
    auto a = A.slice<dynamic_extent, T>(0, tg.y * T);
    auto b = B.static_slice<T, dynamic_extent>(tg.x * T, 0);
    constexpr auto desc = matmul2d_descriptor(T, T, static_cast<int>(dynamic_extent), false, true,
                                              false, matmul2d_descriptor::mode::multiply_accumulate);
    mpp::tensor_ops::matmul2d<desc, metal::execution_simdgroups<4>> op;
    auto ct = op.get_destination_cooperative_tensor<decltype(a), decltype(b), float>();
    ct.load(bt);
    op.run(a, b, ct);
    for (int e = 0; e < ct.get_capacity(); e++)
        if (ct.get_mask(e))
            ct[e] += (float)scale((half)ct[e]);
    ct.store(D.slice(tg.x * T, tg.y * T));
    matmul2d<matmul2d_descriptor(16, 16, 8), execution_simdgroup> small;
    small.run(bd, bd, D);
}
