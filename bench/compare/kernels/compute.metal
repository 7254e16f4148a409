// compute.metal: the compute-bound loop (bench/compare/kernels/compute.cl in Metal).
#include <metal_stdlib>
using namespace metal;

kernel void compute(device const float *in [[buffer(0)]],
                    device float *out      [[buffer(1)]],
                    constant uint &iters   [[buffer(2)]],
                    uint i                 [[thread_position_in_grid]])
{
    float x = in[i], y = in[i] * 0.5f;
    for (uint k = 0; k < iters; k++) {
        x = fma(x, 0.9999f, 0.0001f);
        y = fma(y, 0.9998f, 0.0002f);
    }
    out[i] = x + y;
}
