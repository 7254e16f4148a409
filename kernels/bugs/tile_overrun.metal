// tile_overrun.metal — BUG: a stencil's tile has no room for its halo, so the last thread
// reads past the end of the tile, into the array declared after it.
//
// A 2-point difference: each thread loads its element into tile[lid], and after the barrier
// reads tile[lid] and tile[lid + 1]. Thread 63's tile[64] is one past the end of the tile;
// the threadgroup memory there belongs to `scale`, declared next, so the read returns a
// scale factor instead of the neighbour and nothing crashes: the last element of every
// threadgroup comes out wrong.
//
// lockstep gives each threadgroup array its own bounds: an index that leaves the array its
// base points into is out of bounds even where another array lies (tile[64], not scale[0]).
//
// FIX: declare tile[65] and let thread 63 also load tile[64] = in[gid + 1] (or 0 at the
// end of the grid).
#include <metal_stdlib>
using namespace metal;

kernel void tile_overrun(device const float *in [[buffer(0)]],
                         device float *out      [[buffer(1)]],
                         uint gid               [[thread_position_in_grid]],
                         uint lid               [[thread_index_in_threadgroup]])
{
    threadgroup float tile[64];
    threadgroup float scale[64];
    tile[lid] = in[gid];
    scale[lid] = 0.5f;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    // BUG: for lid == 63, tile[lid + 1] is tile[64], past the end of tile.
    out[gid] = (tile[lid + 1] - tile[lid]) * scale[lid];
}
