// 1-D convolution (PyTorch Conv1d semantics, cross-correlation) with stride, padding and
// dilation, the weights in a constant buffer and the kernel size a function constant so the
// tap loop unrolls; one thread per (output position, output channel, batch).
#include <metal_stdlib>
using namespace metal;

constant int KSIZE [[function_constant(0)]];
constant bool HAS_BIAS [[function_constant(1)]];

struct ConvParams {
    int in_ch, out_ch, in_len, out_len;
    int stride, padding, dilation;
};

kernel void conv1d(device const float *input [[buffer(0)]],
                   constant float *weight [[buffer(1)]],
                   constant float *bias [[buffer(2), function_constant(HAS_BIAS)]],
                   device float *output [[buffer(3)]],
                   constant ConvParams &p [[buffer(4)]],
                   uint3 gid [[thread_position_in_grid]])
{
    const int ox = gid.x, oc = gid.y, b = gid.z;
    if (ox >= p.out_len)
        return;
    float acc = HAS_BIAS ? bias[oc] : 0.0f;
    for (int ic = 0; ic < p.in_ch; ++ic) {
        device const float *row = input + (b * p.in_ch + ic) * p.in_len;
        constant float *w = weight + (oc * p.in_ch + ic) * KSIZE;
#pragma unroll
        for (int k = 0; k < KSIZE; ++k) {
            const int ix = ox * p.stride - p.padding + k * p.dilation;
            if (ix >= 0 && ix < p.in_len)
                acc = fma(row[ix], w[k], acc);
        }
    }
    output[(b * p.out_ch + oc) * p.out_len + ox] = acc;
}
