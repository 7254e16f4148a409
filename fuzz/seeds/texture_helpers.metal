// A seed for make fuzz: textures and samplers passed to helper functions, whose bodies are
// compiled per call for the formats and sampler settings given (a helper calling a helper,
// a function template, overloads by texture type).
#include <metal_stdlib>
using namespace metal;
constexpr sampler wrap(address::repeat, filter::nearest);
float4 fetch(texture2d<float, access::read> t, uint2 p) { return t.read(p); }
float4 twice(texture2d<float, access::read> t, uint2 p) { return 2.0f * fetch(t, p); }
float4 bilinear(texture2d<float> src, sampler s, float2 uv) { return src.sample(s, uv); }
template <typename T> vec<T, 4> get(texture2d<T, access::read> t, uint2 p) { return t.read(p); }
void put(texture2d<float, access::write> t, uint2 p, float4 c) { t.write(c, p); }
void put(texture2d<half, access::write> t, uint2 p, half4 c) { t.write(c, p); }
kernel void k(texture2d<float, access::read> a [[texture(0)]],
              texture2d<float, access::read> b [[texture(1)]],
              texture2d<float> s [[texture(2)]],
              texture2d<float, access::write> o [[texture(3)]],
              texture2d<half, access::write> h [[texture(4)]],
              uint2 gid [[thread_position_in_grid]]) {
    constexpr sampler smooth(filter::linear);
    float2 uv = (float2(gid) + 0.5f) / float2(o.get_width(), o.get_height());
    float4 c = twice(a, gid) + fetch(b, gid) + bilinear(s, smooth, uv) + bilinear(s, wrap, uv);
    put(o, gid, c + get<float>(a, gid));
    put(h, gid, half4(c));
}
