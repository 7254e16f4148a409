// Q8_0 dequantization and dot product: blocks of a half scale and 32 signed bytes. The
// dequantize kernel unpacks four int8 at a time through a char4 read of the quants; the dot
// kernel converts a packed uint of four bytes with shifts and sign extension.
#include <metal_stdlib>
using namespace metal;

#define QK8_0 32

struct block_q8_0 {
    half d;
    int8_t qs[QK8_0];
};

kernel void dequantize_q8_0(device const block_q8_0 *src [[buffer(0)]],
                            device float4 *dst [[buffer(1)]],
                            uint2 tid [[thread_position_in_grid]])
{
    // tid.x: which group of four weights in the block (0..7), tid.y: the block.
    device const block_q8_0 &b = src[tid.y];
    const float d = float(b.d);
    char4 q = char4(b.qs[4 * tid.x + 0], b.qs[4 * tid.x + 1], b.qs[4 * tid.x + 2], b.qs[4 * tid.x + 3]);
    dst[tid.y * (QK8_0 / 4) + tid.x] = d * float4(q);
}

// Sign-extends byte k of w, as hand-written unpackers do.
#define SEXT8(w, k) (int((w) << (24 - 8 * (k))) >> 24)

kernel void dot_q8_0_packed(device const uint *qwords [[buffer(0)]],
                            device const half *scales [[buffer(1)]],
                            device const float *y [[buffer(2)]],
                            device float *partial [[buffer(3)]],
                            uint blk [[thread_position_in_grid]])
{
    float acc = 0.0f;
    for (int w = 0; w < QK8_0 / 4; w++) {
        const uint word = qwords[blk * (QK8_0 / 4) + w];
        for (int k = 0; k < 4; k++)
            acc += float(SEXT8(word, k)) * y[blk * QK8_0 + 4 * w + k];
    }
    partial[blk] = acc * float(scales[blk]);
}
