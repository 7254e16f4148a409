// ok_same_value.metal — CORRECT (by lockstep's default policy): many threads write the
// same value to one flag.
//
// "Is any input negative?": thread 0 clears the flag, a barrier, then every thread whose
// input is negative sets it to 1, a barrier, then thread 0 reads it. The setting writes
// come from threads in different SIMD-groups with no barrier between them — formally a
// race, and checkers that only compare addresses flag it — but every racing write stores
// the same value, so whichever lands last, the flag ends up 1. This is a common, deliberate
// idiom, so lockstep calls same-value writes benign by default.
//
// `lockstep check --same-value-races` reports them (the strict reading of the memory
// model, under which even this is undefined behaviour). An atomic_store or a simd_any per
// SIMD-group avoids the question altogether.
#include <metal_stdlib>
using namespace metal;

kernel void ok_same_value(device const float *in [[buffer(0)]],
                          device uint *any_negative [[buffer(1)]],
                          threadgroup uint *flag    [[threadgroup(0)]],
                          uint gid                  [[thread_position_in_grid]],
                          uint group                [[threadgroup_position_in_grid]],
                          uint lid                  [[thread_index_in_threadgroup]])
{
    if (lid == 0)
        flag[0] = 0;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (in[gid] < 0.0f)
        flag[0] = 1; // several threads, several SIMD-groups, one value: benign
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid == 0)
        any_negative[group] = flag[0];
}
