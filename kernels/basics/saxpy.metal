// saxpy.metal — the first kernel of docs/tutorial.md: y[i] = a * x[i] + y[i].
//
// What it shows: the smallest complete kernel — buffers in, a constant, one thread per
// element — and, with its manifest's 8 threads, a SIMD-group that is only partly there:
// the hardware runs 32 lanes at a time, and a grid of 8 fills just 8 of them.
#include <metal_stdlib>
using namespace metal;

kernel void saxpy(device const float *x [[buffer(0)]],
                  device float *y       [[buffer(1)]],
                  constant float &a     [[buffer(2)]],
                  uint i                [[thread_position_in_grid]])
{
    y[i] = a * x[i] + y[i];
}
