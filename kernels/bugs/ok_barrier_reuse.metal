// ok_barrier_reuse.metal — CORRECT: one threadgroup array reused for two purposes, with
// barriers between the phases.
//
// Phase 1 loads the tile; phase 2 reads it reversed (tile[63 - lid]); phase 3 overwrites
// the tile with new values that phase 4 reads rotated. Threads read slots other threads
// wrote and overwrite slots other threads read — but each time a threadgroup_barrier
// (mem_threadgroup) lies between, so every access of one phase happens before every access
// of the next. A checker that remembers accesses across barriers (or only knows "some
// barrier happened somewhere") reports the reuse; lockstep orders accesses by the barriers
// that actually separate them.
#include <metal_stdlib>
using namespace metal;

kernel void ok_barrier_reuse(device const float *in [[buffer(0)]],
                             device float *out      [[buffer(1)]],
                             uint gid               [[thread_position_in_grid]],
                             uint lid               [[thread_index_in_threadgroup]])
{
    threadgroup float tile[64];
    tile[lid] = in[gid];                              // phase 1: load
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float mine = tile[63 - lid];                      // phase 2: read another thread's slot
    threadgroup_barrier(mem_flags::mem_threadgroup);
    tile[lid] = mine * 2.0f;                          // phase 3: overwrite a slot another read
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[gid] = tile[(lid + 1) % 64];                  // phase 4: read the new values
}
