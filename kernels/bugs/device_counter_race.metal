// device_counter_race.metal — BUG: every threadgroup updates one device counter with a
// plain read-modify-write.
//
// Each SIMD-group counts its positive inputs with simd_sum (correct: one SIMD-group, one
// instruction), then lane 0 adds the count to count[0]. `count[0] += c` is a load, an add
// and a store; threadgroups run concurrently on different cores, and no barrier orders
// device memory BETWEEN threadgroups. Two threadgroups can both load the old total and both
// store their own sum: one count is lost.
//
// lockstep runs threadgroups one after another, so the result even comes out right — and
// the race check still reports the conflicting accesses to count[0] from two different
// threadgroups.
//
// FIX: atomic_fetch_add_explicit((device atomic_uint *)count, c, memory_order_relaxed)
// (see ok_atomics.metal), or write one partial result per threadgroup and add them in a
// second pass.
#include <metal_stdlib>
using namespace metal;

kernel void device_counter_race(device const float *in [[buffer(0)]],
                                device uint *count     [[buffer(1)]],
                                uint gid               [[thread_position_in_grid]],
                                uint lane              [[thread_index_in_simdgroup]])
{
    uint c = simd_sum(in[gid] > 0.0f ? 1u : 0u);
    if (lane == 0)
        count[0] += c; // BUG: not atomic
}
