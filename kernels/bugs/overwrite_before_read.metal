// overwrite_before_read.metal — BUG: a thread overwrites a threadgroup slot that another
// thread still has to read (write after read).
//
// The kernel smooths its slice in place: each thread averages its value with its right
// neighbour's, tile[lid] = (tile[lid] + tile[lid + 1]) / 2. The load before the barrier
// is right. But thread lid reads tile[lid + 1] and then writes tile[lid] with nothing in
// between, while thread lid + 1 writes tile[lid + 1]: if thread lid + 1 runs first, thread
// lid averages with the already smoothed value. Inside one SIMD-group the lanes run in
// lockstep (every lane reads before any lane writes), so the damage is at SIMD-group
// boundaries: lane 31 reads tile[32], which lane 0 of the next SIMD-group overwrites.
//
// lockstep runs SIMD-group 0 before SIMD-group 1, so it sees the read of tile[32] by lane 31
// and then the write of tile[32] by SIMD-group 1: a write after read.
//
// FIX: read the neighbour into a register, then threadgroup_barrier(mem_threadgroup), then
// write: every read of the round happens before any write.
#include <metal_stdlib>
using namespace metal;

kernel void overwrite_before_read(device const float *in  [[buffer(0)]],
                                  device float *out       [[buffer(1)]],
                                  threadgroup float *tile [[threadgroup(0)]],
                                  uint gid                [[thread_position_in_grid]],
                                  uint lid                [[thread_index_in_threadgroup]])
{
    tile[lid] = in[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float right = tile[min(lid + 1, 63u)];
    // BUG: threadgroup_barrier(mem_flags::mem_threadgroup) belongs here.
    tile[lid] = 0.5f * (tile[lid] + right);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[gid] = tile[lid];
}
