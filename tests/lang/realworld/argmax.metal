// Argmax of each row with simd_shuffle_down on (value, index) pairs: lanes stride the row,
// then a shuffle tree halves the pairs; ties go to the lower index. A second kernel does the
// same with simd_max and a ballot.
#include <metal_stdlib>
using namespace metal;

kernel void argmax_rows(device const float *x [[buffer(0)]],
                        device uint *out [[buffer(1)]],
                        constant uint &cols [[buffer(2)]],
                        uint row [[threadgroup_position_in_grid]],
                        uint lane [[thread_index_in_simdgroup]])
{
    device const float *xr = x + row * cols;
    float best = -INFINITY;
    uint best_i = 0;
    for (uint c = lane; c < cols; c += 32) {
        float v = xr[c];
        if (v > best) {
            best = v;
            best_i = c;
        }
    }
    for (ushort off = 16; off > 0; off /= 2) {
        float ov = simd_shuffle_down(best, off);
        uint oi = simd_shuffle_down(best_i, off);
        if (ov > best || (ov == best && oi < best_i)) {
            best = ov;
            best_i = oi;
        }
    }
    if (lane == 0)
        out[row] = best_i;
}

kernel void argmax_ballot(device const float *x [[buffer(0)]],
                          device uint *out [[buffer(1)]],
                          uint row [[threadgroup_position_in_grid]],
                          uint lane [[thread_index_in_simdgroup]])
{
    float v = x[row * 32 + lane];
    float m = simd_max(v);
    auto mask = simd_ballot(v == m);
    if (simd_is_first())
        out[row] = ctz(uint(static_cast<ulong>(mask)));
}
