// Sampling, as Apple's image samples resize: a bilinear resize through a constexpr sampler
// with normalized coordinates, each destination pixel sampling the source at its centre.
#include <metal_stdlib>
using namespace metal;

kernel void resize(texture2d<float, access::sample> src [[texture(0)]],
                   texture2d<float, access::write> dst [[texture(1)]],
                   uint2 gid [[thread_position_in_grid]])
{
    constexpr sampler s(coord::normalized, address::clamp_to_edge, filter::linear);
    if (gid.x >= dst.get_width() || gid.y >= dst.get_height())
        return;
    float2 uv = (float2(gid) + 0.5f) / float2(dst.get_width(), dst.get_height());
    dst.write(src.sample(s, uv), gid);
}
