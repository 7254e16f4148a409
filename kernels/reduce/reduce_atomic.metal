// reduce_atomic.metal — the naive sum: every thread adds its element to one total with an
// atomic add.
//
// What it shows: correctness is easy (an atomic read-modify-write cannot lose an update),
// but every one of the n threads targets the same 4 bytes. The memory system must apply
// those adds one at a time, so the reduction is serialized however many cores run it. The
// other two reductions in this folder do the same sum with almost no atomics.
//
// A note on floats: atomic adds happen in whatever order the hardware serves them, and
// float addition is not associative, so in general the result can change from run to run.
// The test data here is chosen (multiples of 1/16, small enough that no partial sum needs
// more than 24 bits) so that every order gives the same exact sum.
//
// atomic_float in device memory needs Metal 3 (MSL 3.0); with older targets, use integers.
#include <metal_stdlib>
using namespace metal;

kernel void reduce_atomic(device const float *in     [[buffer(0)]],
                          device atomic_float *total [[buffer(1)]],
                          constant uint &n           [[buffer(2)]],
                          uint i                     [[thread_position_in_grid]])
{
    if (i < n)
        atomic_fetch_add_explicit(total, in[i], memory_order_relaxed);
}
