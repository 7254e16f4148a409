// uninit_counter.metal — BUG: a threadgroup counter is incremented but never set to zero.
//
// Each threadgroup counts its inputs above a threshold with an atomic on a threadgroup
// counter, then thread 0 writes the count. Threadgroup memory is not cleared between
// threadgroups: the counter starts with whatever the last threadgroup on that core left
// there, so every count but the very first comes out too high (on hardware, even the first).
//
// An atomic add reads the old value before it writes: lockstep reports an atomic on
// uninitialized threadgroup memory at the first atomic of each threadgroup.
//
// FIX: let thread 0 set the counter to 0 (atomic_store_explicit) and put a
// threadgroup_barrier between that and the adds.
#include <metal_stdlib>
using namespace metal;

kernel void uninit_counter(device const float *in [[buffer(0)]],
                           device uint *counts    [[buffer(1)]],
                           uint gid               [[thread_position_in_grid]],
                           uint lid               [[thread_index_in_threadgroup]],
                           uint group             [[threadgroup_position_in_grid]])
{
    threadgroup atomic_uint count;
    // BUG: nothing sets count to 0 before the adds.
    if (in[gid] > 0.5f)
        atomic_fetch_add_explicit(&count, 1u, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid == 0)
        counts[group] = atomic_load_explicit(&count, memory_order_relaxed);
}
