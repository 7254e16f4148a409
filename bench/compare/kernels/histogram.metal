// histogram.metal: 256-bin histogram of hashed keys (bench/compare/kernels/histogram.cl in
// Metal): threadgroup atomics, then one device atomic per non-empty bin per threadgroup.
#include <metal_stdlib>
using namespace metal;

kernel void histogram(device const uint *keys   [[buffer(0)]],
                      device atomic_uint *bins  [[buffer(1)]],
                      uint gid                  [[thread_position_in_grid]],
                      uint lid                  [[thread_index_in_threadgroup]])
{
    threadgroup atomic_uint local_bins[256];
    atomic_store_explicit(&local_bins[lid], 0, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    uint b = (keys[gid] * 2654435761u) >> 24;
    atomic_fetch_add_explicit(&local_bins[b], 1, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    uint count = atomic_load_explicit(&local_bins[lid], memory_order_relaxed);
    if (count != 0)
        atomic_fetch_add_explicit(&bins[lid], count, memory_order_relaxed);
}
