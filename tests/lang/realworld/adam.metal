// One Adam optimizer step over a flat parameter buffer (as PyTorch's fused Adam kernels
// do), four outputs updated in place, hyper-parameters in a constant struct, bias
// corrections with pow, half gradients.
#include <metal_stdlib>
using namespace metal;

struct AdamParams {
    float lr;
    float beta1;
    float beta2;
    float eps;
    float weight_decay;
    int step;
};

kernel void adam_step(device float *param [[buffer(0)]],
                      device const half *grad [[buffer(1)]],
                      device float *exp_avg [[buffer(2)]],
                      device float *exp_avg_sq [[buffer(3)]],
                      constant AdamParams &hp [[buffer(4)]],
                      constant uint &numel [[buffer(5)]],
                      uint i [[thread_position_in_grid]])
{
    if (i >= numel)
        return;
    float g = float(grad[i]) + hp.weight_decay * param[i];
    float m = exp_avg[i] = hp.beta1 * exp_avg[i] + (1.0f - hp.beta1) * g;
    float v = exp_avg_sq[i] = hp.beta2 * exp_avg_sq[i] + (1.0f - hp.beta2) * g * g;
    const float bc1 = 1.0f - pow(hp.beta1, float(hp.step));
    const float bc2 = 1.0f - pow(hp.beta2, float(hp.step));
    const float denom = sqrt(v / bc2) + hp.eps;
    param[i] -= hp.lr / bc1 * m / denom;
}
