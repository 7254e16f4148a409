// ggml's Q4_0 matrix-vector product: each row of the matrix is a run of 32-weight blocks,
// a half scale and 16 bytes of 4-bit quants (low nibbles are weights 0-15, high nibbles 16-31,
// offset by 8). One SIMD-group per row, lanes striding over blocks, simd_sum at the end.
#include <metal_stdlib>
using namespace metal;

#define QK4_0 32

typedef struct {
    half d;
    uint8_t qs[QK4_0 / 2];
} block_q4_0;

static_assert(sizeof(block_q4_0) == 18, "wrong q4_0 block size");

inline float block_q4_0_dot(device const block_q4_0 *qb, device const float *y)
{
    const float d = qb->d;
    float sumq = 0.f;
    for (int j = 0; j < QK4_0 / 2; ++j) {
        const int x0 = (qb->qs[j] & 0x0F) - 8;
        const int x1 = (qb->qs[j] >> 4) - 8;
        sumq += x0 * y[j] + x1 * y[j + QK4_0 / 2];
    }
    return d * sumq;
}

kernel void mul_mv_q4_0_f32(device const void *src0 [[buffer(0)]],
                            device const float *src1 [[buffer(1)]],
                            device float *dst [[buffer(2)]],
                            constant int64_t &ne00 [[buffer(3)]],
                            constant int64_t &ne01 [[buffer(4)]],
                            uint tgpig [[threadgroup_position_in_grid]],
                            uint tiisg [[thread_index_in_simdgroup]],
                            uint sgitg [[simdgroup_index_in_threadgroup]],
                            uint nsg [[simdgroups_per_threadgroup]])
{
    const int nb = ne00 / QK4_0;
    const int row = tgpig * nsg + sgitg;
    if (row >= ne01)
        return;
    device const block_q4_0 *x = (device const block_q4_0 *)src0 + row * nb;
    float sumf = 0.f;
    for (int ib = tiisg; ib < nb; ib += 32)
        sumf += block_q4_0_dot(x + ib, src1 + ib * QK4_0);
    const float tot = simd_sum(sumf);
    if (tiisg == 0)
        dst[row] = tot;
}
