// Matrix types as Apple's samples use them: points transformed by a model-view-projection
// matrix bound as `constant float4x4 &`, and normals by the upper 3x3 of a model matrix held
// in a struct of uniforms (a float3x3 member: columns padded to 16 bytes), scaled by the
// determinant's sign so a mirroring transform keeps them outward.
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

struct Uniforms {
    float4x4 model;
    float3x3 tint;
    float scale;
};

// n' = tint * (transpose(M) * n) * scale, M the model's upper 3x3; w = det(M).
kernel void transform_normals(device const float4 *normals [[buffer(0)]],
                              device float4 *out [[buffer(1)]],
                              constant Uniforms &u [[buffer(2)]],
                              uint i [[thread_position_in_grid]])
{
    float3x3 m = float3x3(u.model[0].xyz, u.model[1].xyz, u.model[2].xyz);
    float d = determinant(m);
    float3 n = transpose(m) * normals[i].xyz;
    out[i] = float4(u.tint * n * (u.scale * sign(d)), d);
}
