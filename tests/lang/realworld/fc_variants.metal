// Function constants choosing a kernel's variant at pipeline creation, as Apple's samples
// and MLX's "has_w" / "do_axpby" do: a bool that removes a branch, an int with a default from
// is_function_constant_defined, and a buffer that exists only when a constant says so.
#include <metal_stdlib>
using namespace metal;

constant bool use_alpha [[function_constant(0)]];
constant bool do_relu [[function_constant(1)]];
constant int unroll_hint [[function_constant(2)]];
constant int UNROLL = is_function_constant_defined(unroll_hint) ? unroll_hint : 1;
constant bool has_residual = !is_function_constant_defined(do_relu) || do_relu;

kernel void axpby_variant(device const float *x [[buffer(0)]],
                          device const float *y [[buffer(1)]],
                          device float *out [[buffer(2)]],
                          constant float &alpha [[buffer(3), function_constant(use_alpha)]],
                          constant float &beta [[buffer(4)]],
                          device const float *residual [[buffer(5), function_constant(has_residual)]],
                          constant uint &n [[buffer(6)]],
                          uint gid [[thread_position_in_grid]])
{
    for (int u = 0; u < UNROLL; u++) {
        uint i = gid * UNROLL + u;
        if (i >= n)
            return;
        float a = use_alpha ? alpha : 1.0f;
        float v = a * x[i] + beta * y[i];
        if (has_residual)
            v += residual[i];
        if (do_relu)
            v = max(v, 0.0f);
        out[i] = v;
    }
}
