// RoPE in the NeoX layout (pairs i and i + n_dims/2), as llama.cpp and MLX apply it: one
// thread per (pair, head, token) from a uint3 position; theta = pos * base^(-2i/n_dims),
// computed with pow; cos and sin in float, inputs and outputs half.
#include <metal_stdlib>
using namespace metal;

struct RopeParams {
    int n_dims;
    int n_heads;
    float freq_base;
    float freq_scale;
};

static inline float2 rotate(float2 v, float c, float s)
{
    return float2(v.x * c - v.y * s, v.x * s + v.y * c);
}

kernel void rope_neox_f16(device const half *src [[buffer(0)]],
                          device const int *positions [[buffer(1)]],
                          device half *dst [[buffer(2)]],
                          constant RopeParams &p [[buffer(3)]],
                          uint3 tid [[thread_position_in_grid]])
{
    const int i = tid.x;          // pair index, 0 .. n_dims/2
    const int head = tid.y;
    const int token = tid.z;
    const int half_dims = p.n_dims / 2;
    if (i >= half_dims)
        return;
    const float theta_base = float(positions[token]) * p.freq_scale;
    const float inv_freq = pow(p.freq_base, -2.0f * float(i) / float(p.n_dims));
    const float theta = theta_base * inv_freq;
    float cos_theta, sin_theta;
    sin_theta = sincos(theta, cos_theta);

    const size_t row = (size_t(token) * p.n_heads + head) * p.n_dims;
    float2 v = float2(src[row + i], src[row + i + half_dims]);
    float2 r = rotate(v, cos_theta, sin_theta);
    dst[row + i] = half(r.x);
    dst[row + i + half_dims] = half(r.y);
}
