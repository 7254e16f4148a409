// MLX-style affine-quantized matrix-vector product: weights packed 8 four-bit values per
// uint32 (value i in bits 4i..4i+3), a half scale and half bias per group of 32 weights,
// w = scale * q + bias. One SIMD-group per output row; each lane takes whole groups, unpacks
// with shifts and masks, and the lanes meet in simd_sum.
#include <metal_stdlib>
using namespace metal;

template <typename T, int group_size, int bits>
[[kernel]] void affine_qmv(const device uint32_t *w [[buffer(0)]],
                           const device T *scales [[buffer(1)]],
                           const device T *biases [[buffer(2)]],
                           const device T *x [[buffer(3)]],
                           device T *y [[buffer(4)]],
                           const constant int &in_vec_size [[buffer(5)]],
                           const constant int &out_vec_size [[buffer(6)]],
                           uint3 tid [[threadgroup_position_in_grid]],
                           uint simd_gid [[simdgroup_index_in_threadgroup]],
                           uint simd_lid [[thread_index_in_simdgroup]])
{
    constexpr int pack_factor = 32 / bits;
    constexpr uint mask = (1u << bits) - 1;
    const int row = tid.x * 2 + simd_gid;
    if (row >= out_vec_size)
        return;
    const int groups = in_vec_size / group_size;
    const int words_per_row = in_vec_size / pack_factor;
    float acc = 0;
    for (int g = simd_lid; g < groups; g += 32) {
        float s = scales[row * groups + g];
        float b = biases[row * groups + g];
        float qdot = 0, xsum = 0;
        for (int wi = 0; wi < group_size / pack_factor; wi++) {
            uint32_t word = w[row * words_per_row + g * (group_size / pack_factor) + wi];
            for (int k = 0; k < pack_factor; k++) {
                float xv = x[g * group_size + wi * pack_factor + k];
                qdot += xv * float((word >> (bits * k)) & mask);
                xsum += xv;
            }
        }
        acc += s * qdot + b * xsum;
    }
    acc = simd_sum(acc);
    if (simd_lid == 0)
        y[row] = static_cast<T>(acc);
}

#define instantiate_qmv(name, type, gs, b) \
  template [[host_name(#name "_" #gs "_" #b)]] [[kernel]] decltype(affine_qmv<type, gs, b>) affine_qmv<type, gs, b>;

instantiate_qmv(qmv_float, float, 32, 4)
instantiate_qmv(qmv_half, half, 32, 8)
