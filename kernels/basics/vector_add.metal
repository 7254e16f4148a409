// vector_add.metal — the "hello world" of GPU compute: c[i] = a[i] + b[i].
//
// What it shows: one thread per element, found by [[thread_position_in_grid]], and the
// bounds check every real kernel needs. The host dispatches whole threadgroups, so the grid
// is usually rounded up past the end of the data (here 1024 threads for 1000 elements); the
// threads past the end must do nothing.
//
// How it runs: the GPU splits the grid into threadgroups (256 threads here), and each
// threadgroup into SIMD-groups of 32 threads that execute in lockstep, one instruction for
// all 32 lanes. In the last SIMD-group, lanes 1000..1023 fail the bounds check: they are
// masked off while the other lanes of the same SIMD-group finish. That costs SIMD
// efficiency only in that one SIMD-group; the loads and stores of the others are full
// 32-lane, contiguous accesses (lane i reads a[base + i]), the best pattern for memory.
#include <metal_stdlib>
using namespace metal;

kernel void vector_add(device const float *a [[buffer(0)]],
                       device const float *b [[buffer(1)]],
                       device float *c       [[buffer(2)]],
                       constant uint &n      [[buffer(3)]],
                       uint i                [[thread_position_in_grid]])
{
    if (i >= n)
        return;     // past the end of the data: this lane sits out the rest of the kernel
    c[i] = a[i] + b[i];
}
