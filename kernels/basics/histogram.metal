// histogram.metal — a 256-bin histogram of bytes, counted first in threadgroup memory.
//
// What it shows: privatization. The naive histogram has every thread do an atomic add on a
// bin in device memory; with 256 bins and millions of threads, many threads hit the same
// bin at once and their atomics serialize in the memory system. Here each threadgroup keeps
// its own 256 bins in threadgroup memory (on-chip, shared by the threadgroup only), counts
// its slice of the data there, and only at the end adds its 256 totals to the device bins:
// 256 device atomics per threadgroup instead of one per element.
//
// How it runs: threadgroup memory starts with garbage, so the threadgroup first zeroes its
// bins (one bin per thread) and waits at a threadgroup_barrier before any thread counts:
// without the barrier a fast SIMD-group could count into a bin that a slow one has not
// zeroed yet. A second barrier makes sure every count is in before the bins are read.
// Each thread walks the data with a grid-sized stride, so any grid size covers any n, and
// at every step the 32 lanes of a SIMD-group read 32 consecutive elements.
#include <metal_stdlib>
using namespace metal;

constant uint NUM_BINS = 256;

kernel void histogram(device const uchar *data      [[buffer(0)]],
                      device atomic_uint *bins      [[buffer(1)]],
                      constant uint &n              [[buffer(2)]],
                      uint gid                      [[thread_position_in_grid]],
                      uint grid_size                [[threads_per_grid]],
                      uint lid                      [[thread_index_in_threadgroup]],
                      uint group_size               [[threads_per_threadgroup]])
{
    threadgroup atomic_uint local_bins[NUM_BINS];

    // 1. Zero this threadgroup's bins (the loop also works for threadgroups under 256).
    for (uint b = lid; b < NUM_BINS; b += group_size)
        atomic_store_explicit(&local_bins[b], 0, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);

    // 2. Count. Atomics on threadgroup memory are cheap, and relaxed order is enough:
    //    only the final counts matter, and the barrier below orders them.
    for (uint i = gid; i < n; i += grid_size)
        atomic_fetch_add_explicit(&local_bins[data[i]], 1, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);

    // 3. Merge: one device atomic per bin per threadgroup, skipping empty bins.
    for (uint b = lid; b < NUM_BINS; b += group_size) {
        uint count = atomic_load_explicit(&local_bins[b], memory_order_relaxed);
        if (count != 0)
            atomic_fetch_add_explicit(&bins[b], count, memory_order_relaxed);
    }
}
