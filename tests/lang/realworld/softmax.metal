// llama.cpp-style soft_max with scale and an optional mask: one threadgroup per row, the row
// max through simd_max and a threadgroup buffer, then exp and sum through simd_sum, written
// to dst before the second pass divides it.
#include <metal_stdlib>
using namespace metal;

#define N_SIMDWIDTH 32
#define MAX(x, y) ((x) > (y) ? (x) : (y))

typedef struct {
    int32_t ne00;
    float scale;
    int32_t has_mask;
} kargs_soft_max;

kernel void kernel_soft_max(device const float *src0,
                            device const half *src1,
                            device float *dst,
                            constant kargs_soft_max &args,
                            threadgroup float *buf [[threadgroup(0)]],
                            uint tgpig [[threadgroup_position_in_grid]],
                            uint tpitg [[thread_position_in_threadgroup]],
                            uint sgitg [[simdgroup_index_in_threadgroup]],
                            uint tiisg [[thread_index_in_simdgroup]],
                            uint ntg [[threads_per_threadgroup]])
{
    const int64_t i01 = tgpig;
    device const float *psrc0 = src0 + i01 * args.ne00;
    device const half *pmask = args.has_mask ? src1 + i01 * args.ne00 : nullptr;
    device float *pdst = dst + i01 * args.ne00;

    float lmax = -INFINITY;
    for (int i00 = tpitg; i00 < args.ne00; i00 += ntg)
        lmax = MAX(lmax, psrc0[i00] * args.scale + (pmask ? float(pmask[i00]) : 0.0f));

    float max_val = simd_max(lmax);
    if (ntg > N_SIMDWIDTH) {
        if (sgitg == 0)
            buf[tiisg] = -INFINITY;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        if (tiisg == 0)
            buf[sgitg] = max_val;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        max_val = buf[tiisg];
        max_val = simd_max(max_val);
    }

    float lsum = 0.0f;
    for (int i00 = tpitg; i00 < args.ne00; i00 += ntg) {
        const float exp_psrc0 = exp((psrc0[i00] * args.scale + (pmask ? float(pmask[i00]) : 0.0f)) - max_val);
        lsum += exp_psrc0;
        pdst[i00] = exp_psrc0;
    }
    // llama.cpp has mem_flags::mem_none here, which orders execution only: `lockstep check`
    // then reports the write of buf below after the reads of buf above (write after read).
    threadgroup_barrier(mem_flags::mem_threadgroup);

    float sum = simd_sum(lsum);
    if (ntg > N_SIMDWIDTH) {
        if (sgitg == 0)
            buf[tiisg] = 0.0f;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        if (tiisg == 0)
            buf[sgitg] = sum;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        sum = buf[tiisg];
        sum = simd_sum(sum);
    }

    const float inv_sum = 1.0f / sum;
    for (int i00 = tpitg; i00 < args.ne00; i00 += ntg)
        pdst[i00] *= inv_sum;
}
