// Activation functions as ML frameworks write them: GELU (tanh approximation and erf-free
// sigmoid form), SiLU, in half and float, through a function-like macro that stamps out a
// kernel per (name, type), with metal:: prefixes and the precise:: tanh.
#include <metal_stdlib>
using namespace metal;

#define SQRT_2_OVER_PI 0.7978845608028654f
#define GELU_COEF_A 0.044715f

template <typename T>
inline T gelu_tanh(T x)
{
    float xf = float(x);
    float inner = SQRT_2_OVER_PI * xf * (1.0f + GELU_COEF_A * xf * xf);
    return T(0.5f * xf * (1.0f + metal::precise::tanh(inner)));
}

template <typename T>
inline T silu(T x)
{
    return x / (T(1) + metal::exp(-x));
}

#define DEFINE_UNARY(NAME, FN, T)                                                \
    kernel void NAME##_##T(device const T *in [[buffer(0)]],                     \
                           device T *out [[buffer(1)]],                          \
                           constant uint &n [[buffer(2)]],                       \
                           uint gid [[thread_position_in_grid]])                 \
    {                                                                            \
        if (gid >= n)                                                            \
            return;                                                              \
        out[gid] = FN<T>(in[gid]);                                               \
    }

DEFINE_UNARY(gelu, gelu_tanh, float)
DEFINE_UNARY(gelu, gelu_tanh, half)
DEFINE_UNARY(silu, silu, float)
DEFINE_UNARY(silu, silu, half)

// float4 variant, as llama.cpp's kernel_gelu_4: four elements a thread.
kernel void gelu_4(device const float4 *src [[buffer(0)]],
                   device float4 *dst [[buffer(1)]],
                   uint tpig [[thread_position_in_grid]])
{
    device const float4 &x = src[tpig];
    dst[tpig] = 0.5f * x * (1.0f + precise::tanh(SQRT_2_OVER_PI * x * (1.0f + GELU_COEF_A * x * x)));
}
