// Single-query attention for one head, as a decode step does: scores = q . k_j * scale with
// half4 dot products accumulated in float, softmax over the keys in one SIMD-group
// (simd_max, simd_sum), and the output a weighted sum of values, one lane per dimension.
#include <metal_stdlib>
using namespace metal;

#define HEAD_DIM 32
#define MAX_KEYS 128

kernel void attn_decode(device const half4 *q [[buffer(0)]],
                        device const half4 *k [[buffer(1)]],
                        device const half *v [[buffer(2)]],
                        device float *out [[buffer(3)]],
                        constant uint &n_keys [[buffer(4)]],
                        uint lane [[thread_index_in_simdgroup]])
{
    threadgroup float scores[MAX_KEYS];
    const float scale = rsqrt(float(HEAD_DIM));
    float local_max = -INFINITY;
    for (uint j = lane; j < n_keys; j += 32) {
        float s = 0.0f;
        for (uint d = 0; d < HEAD_DIM / 4; d++)
            s += dot(float4(q[d]), float4(k[j * (HEAD_DIM / 4) + d]));
        s *= scale;
        scores[j] = s;
        local_max = max(local_max, s);
    }
    const float m = simd_max(local_max);
    float local_sum = 0.0f;
    for (uint j = lane; j < n_keys; j += 32) {
        float e = exp(scores[j] - m);
        scores[j] = e;
        local_sum += e;
    }
    const float inv = 1.0f / simd_sum(local_sum);
    simdgroup_barrier(mem_flags::mem_threadgroup);
    float acc = 0.0f;
    for (uint j = 0; j < n_keys; j++)
        acc += scores[j] * float(v[j * HEAD_DIM + lane]);
    out[lane] = acc * inv;
}
