// shuffle_past_last_lane.metal — BUG: a neighbour exchange by simd_shuffle asks the last
// lane for a lane the SIMD-group does not have.
//
// Each thread computes the forward difference of a row, in[i + 1] - in[i], and takes its
// right neighbour's value from the next lane instead of loading it again. Lane 31 asks for
// lane 32: MSL requires simd_shuffle's lane to be a valid SIMD lane ID (0 to 31) and leaves
// the result undefined otherwise. Hardware that keeps only the low five bits hands lane 31
// lane 0's value, so every 32nd difference comes out wrong while the others look right.
//
// lockstep's SIMD check reports the first lane that asks for a lane past 31 (here lane
// 31 of every SIMD-group), with the line of the shuffle.
//
// FIX: let the last lane of each SIMD-group load its neighbour itself:
//     float right = simd_shuffle(v, ushort(min(lane + 1u, 31u)));
//     if (lane == 31u) right = in[gid + 1];
// (or use simd_shuffle_down(v, 1), which leaves the last lane's own value in place, and
// patch lane 31 the same way).
#include <metal_stdlib>
using namespace metal;

kernel void shuffle_past_last_lane(device const float *in [[buffer(0)]],
                                   device float *diff     [[buffer(1)]],
                                   uint gid               [[thread_position_in_grid]],
                                   uint lane              [[thread_index_in_simdgroup]])
{
    float v = in[gid];
    float right = simd_shuffle(v, ushort(lane + 1u)); // BUG: lane 31 asks for lane 32
    diff[gid] = right - v;
}
