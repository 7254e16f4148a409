// ok_simd_lockstep.metal — CORRECT under lockstep's default policy, and a race under
// --strict-simd: neighbours in one SIMD-group exchange values through threadgroup memory
// with no barrier.
//
// Each thread writes tile[lid] and then reads tile[lid ^ 1], its neighbour's slot. lid and
// lid ^ 1 are always in the same SIMD-group, and the lanes of a SIMD-group execute each
// instruction together: every lane's write is done before any lane's read. Apple GPUs run
// SIMD-groups exactly this way, so lockstep (by default) orders the lanes of a SIMD-group
// and reports nothing; checkers that treat every thread as independent report a race.
//
// The Metal memory model itself does not promise lockstep execution, so strictly portable
// code puts simdgroup_barrier(mem_flags::mem_threadgroup) between the write and the read —
// or better, uses simd_shuffle_xor(v, 1) and no memory at all. `lockstep check
// --strict-simd` drops the lockstep assumption and reports this exchange.
#include <metal_stdlib>
using namespace metal;

kernel void ok_simd_lockstep(device const float *in   [[buffer(0)]],
                             device float *out        [[buffer(1)]],
                             threadgroup float *tile  [[threadgroup(0)]],
                             uint gid                 [[thread_position_in_grid]],
                             uint lid                 [[thread_index_in_threadgroup]])
{
    tile[lid] = in[gid];
    out[gid] = tile[lid ^ 1]; // the neighbour is in the same SIMD-group
}
