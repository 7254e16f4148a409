// A seed for make fuzz: auto locals.
#include <metal_stdlib>
using namespace metal;
kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],
              uint i [[thread_position_in_grid]]) {
    auto x = in[i] * 2.0f;
    const auto n = 3u;
    auto p = in + 1;
    auto v = float2(x, 1.0f);
    for (auto k = 0u; k < n; k++)
        v.y += p[k];
    auto wrap = n - 4;
    out[i] = v.x + v.y + float(wrap > 100u);
}
