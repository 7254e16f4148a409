// uninit_accumulator.metal — BUG: a running sum that never starts at zero.
//
// Each thread adds up one row of a matrix into `sum`, declared without a value. The first
// `+=` adds to whatever was in its register: on a GPU, something an earlier instruction or
// kernel left there, so each row sum is off by a different amount on each run or GPU.
// The most common form of this bug, and easy to miss: tests on zeroed memory pass.
//
// lockstep zeroes registers so that runs repeat, which alone would hide the bug (the sums
// would come out right). Its uninitialized-value check follows which lanes' registers hold
// a value the kernel gave them: the undefined start flows through every `+=` into the
// store at line 25, which it reports, naming `sum` and the line that declared it (22).
//
// FIX: `float sum = 0.0f;`
#include <metal_stdlib>
using namespace metal;

kernel void uninit_accumulator(device const float *m   [[buffer(0)]],
                               device float *sums      [[buffer(1)]],
                               constant uint &cols     [[buffer(2)]],
                               uint row                [[thread_position_in_grid]])
{
    float sum;
    for (uint c = 0; c < cols; c++)
        sum += m[row * cols + c]; // BUG: the first trip adds to an undefined value
    sums[row] = sum;
}
