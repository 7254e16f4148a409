// Refused: bfloat (Metal 3.1's brain-float type), which MLX kernels take for bf16 arrays.
// lockstep has no bfloat type yet; tests/lang/test_realworld.c checks the message points at
// the first use. (Nothing here runs.)
#include <metal_stdlib>
using namespace metal;

// One multiply, widened to float as MLX does for bf16.
kernel void scale_bf16(device const float *s [[buffer(2)]],
                       device const bfloat *in [[buffer(0)]],
                       device bfloat *out [[buffer(1)]],
                       uint i [[thread_position_in_grid]])
{
    out[i] = bfloat(float(in[i]) * s[0]);
}
