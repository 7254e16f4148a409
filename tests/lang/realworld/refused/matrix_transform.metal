// Refused: matrix types (float4x4), which Apple's samples use to transform positions. lockstep
// has no matrix types yet (SIMD-group matrices are supported); tests/lang/test_realworld.c
// checks the message points at the type. (Nothing here runs.)
#include <metal_stdlib>
using namespace metal;

// Each point transformed by a model matrix, then divided by w.
kernel void transform_points(device float4 *points [[buffer(0)]],
                             constant float4x4 &model [[buffer(1)]],
                             uint i [[thread_position_in_grid]])
{
    float4 p = model * points[i];
    points[i] = p / p.w;
}
