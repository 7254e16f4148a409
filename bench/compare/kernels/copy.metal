// copy.metal: the streaming copy (bench/compare/kernels/copy.cl in Metal).
#include <metal_stdlib>
using namespace metal;

kernel void copy(device const uint *in [[buffer(0)]],
                 device uint *out      [[buffer(1)]],
                 uint i                 [[thread_position_in_grid]])
{
    out[i] = in[i];
}
