// shuffle_after_exit.metal — BUG: a SIMD-group shuffle reads a lane that already left the
// loop.
//
// Each lane walks the input with a stride of 32 and, to save a pass, sums every chunk of 32
// across the SIMD-group right inside the loop with simd_shuffle_down. When n is not a
// multiple of 32 the last trip has fewer lanes: lanes whose i >= n have left the loop, yet
// simd_shuffle_down(v, 16) in lane 0 reads lane 16's v. A shuffle from an inactive lane
// returns an undefined value on real hardware (often stale, sometimes zero).
//
// Here n = 40: the second trip runs lanes 0..7 only, and lane 0 reads inactive lane 16.
//
// FIX: keep a per-lane sum in the loop and reduce across the SIMD-group once, after the
// loop, when every lane is active again (simd_sum(sum)).
#include <metal_stdlib>
using namespace metal;

kernel void shuffle_after_exit(device const float *in [[buffer(0)]],
                               device float *out      [[buffer(1)]],
                               constant uint &n       [[buffer(2)]],
                               uint lane              [[thread_index_in_simdgroup]])
{
    float total = 0.0f;
    for (uint i = lane; i < n; i += 32) {
        float v = in[i];
        v += simd_shuffle_down(v, 16); // BUG: lanes 16.. may have left the loop
        v += simd_shuffle_down(v, 8);
        v += simd_shuffle_down(v, 4);
        v += simd_shuffle_down(v, 2);
        v += simd_shuffle_down(v, 1);
        total += v;
    }
    if (lane == 0)
        out[0] = total;
}
