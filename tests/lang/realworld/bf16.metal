// bfloat (Metal 3.1's brain-float type) as MLX uses it for bf16 arrays: weights and
// activations stored as bfloat, the arithmetic widened to float and the result rounded back
// once, and a bfloat4 axpy whose multiply and add are bfloat operations (each rounded).
#include <metal_stdlib>
using namespace metal;

// One multiply, widened to float as MLX does for bf16.
kernel void scale_bf16(device const float *s [[buffer(2)]],
                       device const bfloat *in [[buffer(0)]],
                       device bfloat *out [[buffer(1)]],
                       uint i [[thread_position_in_grid]])
{
    out[i] = bfloat(float(in[i]) * s[0]);
}

// out = alpha * x + y on bfloat4: alpha converts to bfloat, the product and the sum are
// bfloat operations (computed in float, each rounded to bfloat); a float accumulation of
// the row, rounded once, goes to sums.
kernel void axpy_bf16(device const bfloat4 *x [[buffer(0)]],
                      device const bfloat4 *y [[buffer(1)]],
                      device bfloat4 *out [[buffer(2)]],
                      device bfloat *sums [[buffer(3)]],
                      constant float &alpha [[buffer(4)]],
                      uint i [[thread_position_in_grid]])
{
    bfloat4 r = bfloat(alpha) * x[i] + y[i];
    out[i] = r;
    float4 w = float4(r);
    sums[i] = static_cast<bfloat>(w.x + w.y + w.z + w.w);
}
