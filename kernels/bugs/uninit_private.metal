// uninit_private.metal — BUG: a private array read before the thread wrote all of it.
//
// Each thread smooths a short run of its input: it copies up to 8 values into a private
// window, as many as remain before the end of the input, then averages all 8. Near the
// end fewer than 8 remain, the copy loop stops early, and the average reads window
// elements this thread never wrote. Private memory is not cleared on real GPUs: those
// elements hold whatever the last kernel left in the registers or stack, so the last few
// outputs differ from run to run.
//
// lockstep keeps `window` in thread memory (it is indexed at run time) and its
// uninitialized-read check reports the first element read before any write, with the line
// of the read.
//
// FIX: average only the values copied (divide by `count`), or fill the rest of the window
// with a defined value (`for (uint i = count; i < 8; i++) window[i] = 0.0f;`).
#include <metal_stdlib>
using namespace metal;

kernel void uninit_private(device const float *in [[buffer(0)]],
                           device float *out      [[buffer(1)]],
                           constant uint &n       [[buffer(2)]],
                           uint gid               [[thread_position_in_grid]])
{
    float window[8];
    uint count = min(8u, n - gid);
    for (uint i = 0; i < count; i++)
        window[i] = in[gid + i];
    float sum = 0.0f;
    for (uint i = 0; i < 8; i++)
        sum += window[i]; // BUG: window[count..7] were never written
    out[gid] = sum / 8.0f;
}
