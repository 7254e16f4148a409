// Refused: samplers (a bilinear resize through sample()), which lockstep does not have yet
// (textures' read() and write() work: see texture_gray.metal); tests/lang/test_realworld.c
// checks the message points at the sampler.
#include <metal_stdlib>
using namespace metal;

kernel void resize(texture2d<float, access::sample> src [[texture(0)]],
                   texture2d<float, access::write> dst [[texture(1)]],
                   uint2 gid [[thread_position_in_grid]])
{
    constexpr sampler s(coord::normalized, address::clamp_to_edge, filter::linear);
    float2 uv = (float2(gid) + 0.5f) / float2(dst.get_width(), dst.get_height());
    dst.write(src.sample(s, uv), gid);
}
