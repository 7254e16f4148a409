// llama.cpp-style RMS norm: a kargs struct in a constant buffer, float4 loads of each row,
// sum of squares through simd_sum and a [[threadgroup(0)]] scratch array, then the row scaled
// by 1 / sqrt(mean + eps).
#include <metal_stdlib>
using namespace metal;

typedef struct {
    int32_t ne00;
    int32_t ne00_4;
    uint64_t nb01;
    float eps;
} ggml_metal_kargs_rms_norm;

kernel void kernel_rms_norm(constant ggml_metal_kargs_rms_norm &args,
                            device const char *src0,
                            device char *dst,
                            threadgroup float *shmem_f32 [[threadgroup(0)]],
                            uint tgpig [[threadgroup_position_in_grid]],
                            ushort tpitg [[thread_position_in_threadgroup]],
                            ushort sgitg [[simdgroup_index_in_threadgroup]],
                            ushort tiisg [[thread_index_in_simdgroup]],
                            ushort ntg [[threads_per_threadgroup]])
{
    if (sgitg == 0)
        shmem_f32[tiisg] = 0.0f;

    device const float4 *x = (device const float4 *)(src0 + tgpig * args.nb01);

    float sumf = 0.0f;
    for (int i00 = tpitg; i00 < args.ne00_4; i00 += ntg)
        sumf += dot(x[i00], x[i00]);
    sumf = simd_sum(sumf);

    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (tiisg == 0)
        shmem_f32[sgitg] = sumf;
    threadgroup_barrier(mem_flags::mem_threadgroup);

    sumf = shmem_f32[tiisg];
    sumf = simd_sum(sumf);

    const float mean = sumf / args.ne00;
    const float scale = 1.0f / sqrt(mean + args.eps);

    device float4 *y = (device float4 *)(dst + tgpig * args.ne00 * sizeof(float));
    for (int i00 = tpitg; i00 < args.ne00_4; i00 += ntg)
        y[i00] = x[i00] * scale;
}
