// ok_same_condition.metal — CORRECT: a variable assigned under one `if`, used under another.
//
// Only the first half of each threadgroup has a bias to add; those threads compute it early
// (before a load the compiler may want to start sooner), and add it later under the same
// condition. `bias` is never assigned in the other threads, and never used there either, so
// the kernel is correct. clang's -Wconditional-uninitialized, which looks at paths rather
// than threads, flags it ("may be uninitialized"); lockstep follows each lane: silent. The
// twin of uninit_branch, where a lane does use a value no path gave it.
#include <metal_stdlib>
using namespace metal;

kernel void ok_same_condition(device const float *in    [[buffer(0)]],
                              device const float *bias  [[buffer(1)]],
                              device float *out         [[buffer(2)]],
                              uint gid                  [[thread_position_in_grid]],
                              uint lid                  [[thread_position_in_threadgroup]])
{
    float b;
    if (lid < 32)
        b = bias[lid] * 0.5f;
    float x = in[gid];
    if (lid < 32)
        x += b;
    out[gid] = x;
}
