// Luminance histogram of RGBA8 pixels packed in uints: each pixel unpacked into a uchar4
// with as_type, its Rec. 709 luma binned into a threadgroup histogram with threadgroup
// atomics, and the threadgroup's bins added to the global ones with device atomics.
#include <metal_stdlib>
using namespace metal;

constant float3 kRec709Luma = float3(0.2126f, 0.7152f, 0.0722f);
#define NUM_BINS 64

kernel void luma_histogram(device const uint *pixels [[buffer(0)]],
                           device atomic_uint *hist [[buffer(1)]],
                           constant uint &count [[buffer(2)]],
                           uint gid [[thread_position_in_grid]],
                           uint lid [[thread_position_in_threadgroup]],
                           uint tgsize [[threads_per_threadgroup]])
{
    threadgroup atomic_uint local_hist[NUM_BINS];
    for (uint b = lid; b < NUM_BINS; b += tgsize)
        atomic_store_explicit(&local_hist[b], 0u, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (gid < count) {
        uchar4 px = as_type<uchar4>(pixels[gid]);
        float3 rgb = float3(px.rgb) / 255.0f;
        float luma = dot(rgb, kRec709Luma);
        uint bin = min(uint(luma * NUM_BINS), uint(NUM_BINS - 1));
        atomic_fetch_add_explicit(&local_hist[bin], 1u, memory_order_relaxed);
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint b = lid; b < NUM_BINS; b += tgsize) {
        uint c = atomic_load_explicit(&local_hist[b], memory_order_relaxed);
        if (c)
            atomic_fetch_add_explicit(&hist[b], c, memory_order_relaxed);
    }
}
