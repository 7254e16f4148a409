// uninit_halo.metal — BUG: a stencil reads halo cells of threadgroup memory nobody wrote.
//
// A 3-point average: each thread loads its element into tile[lid + 1] and then reads
// tile[lid], tile[lid + 1] and tile[lid + 2]. The tile has room for one neighbour on each
// side (the halo), but nothing loads the halo: tile[0] and tile[65] hold whatever the last
// threadgroup on that core left there. The edges of every threadgroup come out wrong, and
// differently on every run.
//
// lockstep tracks which bytes of threadgroup memory were written in the current
// threadgroup and reports the first read of each unwritten one: tile[0] (thread 0) and
// tile[65] (thread 63).
//
// FIX: let thread 0 load tile[0] = in[gid - 1] and thread 63 load tile[65] = in[gid + 1]
// (or zero at the ends of the grid) before the barrier.
#include <metal_stdlib>
using namespace metal;

kernel void uninit_halo(device const float *in [[buffer(0)]],
                        device float *out      [[buffer(1)]],
                        threadgroup float *tile [[threadgroup(0)]], // 66 floats: 64 + a halo of 2
                        uint gid               [[thread_position_in_grid]],
                        uint lid               [[thread_index_in_threadgroup]])
{
    tile[lid + 1] = in[gid];
    // BUG: tile[0] and tile[65] (the halo) are never loaded.
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[gid] = (tile[lid] + tile[lid + 1] + tile[lid + 2]) / 3.0f;
}
