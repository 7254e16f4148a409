// missing_barrier.metal — BUG: a tree reduction with no barrier between its rounds.
//
// Each round, the lower half of the active threads adds the upper half's partial sums into
// its own slots: scratch[lid] += scratch[lid + stride]. Round k reads slots that round k-1
// wrote, and those writes come from OTHER threads — often in other SIMD-groups. Without a
// threadgroup_barrier between rounds nothing makes a SIMD-group wait for the others, so a
// fast SIMD-group reads its neighbour's slot before the neighbour has added into it (and
// the neighbour then overwrites a value that was already consumed): the sum is wrong, and
// differently wrong from run to run on real hardware.
//
// lockstep runs SIMD-groups one at a time up to each barrier, so here SIMD-group 0 runs
// every round alone: at stride 32 it reads scratch[32..63] before SIMD-group 1 has added
// into them at stride 64. The report names that pair: the read by SIMD-group 0 and, as the
// primary location, the later write by SIMD-group 1 (write after read).
//
// FIX: put threadgroup_barrier(mem_flags::mem_threadgroup) at the end of the loop body,
// outside the if (see ../reduce/reduce_threadgroup.metal).
#include <metal_stdlib>
using namespace metal;

kernel void missing_barrier(device const float *in     [[buffer(0)]],
                            device float *partial_sums [[buffer(1)]],
                            threadgroup float *scratch [[threadgroup(0)]],
                            uint gid                   [[thread_position_in_grid]],
                            uint group                 [[threadgroup_position_in_grid]],
                            uint lid                   [[thread_index_in_threadgroup]],
                            uint group_size            [[threads_per_threadgroup]])
{
    scratch[lid] = in[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint stride = group_size / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        // BUG: threadgroup_barrier(mem_flags::mem_threadgroup) belongs here.
    }
    if (lid == 0)
        partial_sums[group] = scratch[0];
}
