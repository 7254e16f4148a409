// MLX-style layer norm: one threadgroup per row; each thread reads N_READS consecutive
// elements, the mean and variance go through simd_sum and a threadgroup array of per-SIMD
// partials, then the row is normalized and scaled by weight and bias. Parameters come in a
// constant struct.
#include <metal_stdlib>
using namespace metal;

struct LayerNormParams {
    uint axis_size;
    float eps;
    uint w_stride;
    uint b_stride;
};

constant constexpr int SIMD_SIZE = 32;

template <typename T, int N_READS = 4>
[[kernel]] void layer_norm_looped(const device T *x,
                                  const device T *w,
                                  const device T *b,
                                  device T *out,
                                  constant LayerNormParams &p,
                                  uint gid [[threadgroup_position_in_grid]],
                                  uint lid [[thread_position_in_threadgroup]],
                                  uint lsize [[threads_per_threadgroup]],
                                  uint simd_lane_id [[thread_index_in_simdgroup]],
                                  uint simd_group_id [[simdgroup_index_in_threadgroup]])
{
    threadgroup float local_sums[SIMD_SIZE];
    threadgroup float local_mean;
    threadgroup float local_normalizer;
    const uint axis_size = p.axis_size;
    x += gid * size_t(axis_size);
    out += gid * size_t(axis_size);

    float sum = 0;
    for (uint r = 0; r < axis_size; r += lsize * N_READS) {
        if (r + lid * N_READS + N_READS <= axis_size) {
#pragma unroll
            for (int i = 0; i < N_READS; i++)
                sum += float(x[r + lid * N_READS + i]);
        } else {
            for (int i = 0; i < N_READS; i++)
                if ((r + lid * N_READS + i) < axis_size)
                    sum += float(x[r + lid * N_READS + i]);
        }
    }
    sum = simd_sum(sum);
    if (simd_group_id == 0)
        local_sums[simd_lane_id] = 0;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (simd_lane_id == 0)
        local_sums[simd_group_id] = sum;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (simd_group_id == 0) {
        sum = simd_sum(local_sums[simd_lane_id]);
        if (simd_lane_id == 0)
            local_mean = sum / axis_size;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);

    float mean = local_mean;
    float var = 0;
    for (uint r = 0; r < axis_size; r += lsize * N_READS) {
        for (int i = 0; i < N_READS; i++) {
            uint k = r + lid * N_READS + i;
            if (k < axis_size) {
                float t = float(x[k]) - mean;
                var += t * t;
            }
        }
    }
    var = simd_sum(var);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (simd_lane_id == 0)
        local_sums[simd_group_id] = var;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (simd_group_id == 0) {
        var = simd_sum(local_sums[simd_lane_id]);
        if (simd_lane_id == 0)
            local_normalizer = metal::precise::rsqrt(var / axis_size + p.eps);
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float normalizer = local_normalizer;

    for (uint r = 0; r < axis_size; r += lsize * N_READS) {
        for (int i = 0; i < N_READS; i++) {
            uint k = r + lid * N_READS + i;
            if (k < axis_size) {
                float xn = (float(x[k]) - mean) * normalizer;
                out[k] = T(float(w[k * p.w_stride]) * xn + float(b[k * p.b_stride]));
            }
        }
    }
}

template [[host_name("layer_norm_float32")]] [[kernel]] decltype(layer_norm_looped<float>) layer_norm_looped<float>;
template [[host_name("layer_norm_float16")]] [[kernel]] decltype(layer_norm_looped<half, 8>) layer_norm_looped<half, 8>;
