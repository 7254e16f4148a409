// uninit_branch.metal — BUG: a variable assigned on some paths only.
//
// Each reading comes with a unit code: 0 for metres, 1 for centimetres, 2 for
// millimetres. The kernel converts every reading to metres, but the millimetre case was
// forgotten: for those readings `scale` is never assigned. MSL leaves its value undefined:
// the multiplication may use whatever the register held, or the optimizer, free to pick
// any value, folds the path into another (clang: `unit == 1 ? 0.01f : 1.0f`). Either way
// every third output is silently wrong, and how wrong depends on the compiler and GPU.
//
// lockstep zeroes registers so that runs repeat, which alone would hide the bug (those
// outputs would just be 0). Its uninitialized-value check follows, lane by lane, which
// registers hold a value the kernel gave them, and reports the store at line 30: the value
// comes from `scale`, declared at line 25 without one. Oclgrind misses this bug: its clang
// folds the unassigned path as above, so nothing undefined is left for it to see.
//
// FIX: handle every unit (`else if (unit[gid] == 2) scale = 0.001f;`).
#include <metal_stdlib>
using namespace metal;

kernel void uninit_branch(device const float *reading [[buffer(0)]],
                          device const uint *unit     [[buffer(1)]],
                          device float *metres        [[buffer(2)]],
                          uint gid                    [[thread_position_in_grid]])
{
    float scale;
    if (unit[gid] == 0)
        scale = 1.0f;
    else if (unit[gid] == 1)
        scale = 0.01f;
    metres[gid] = reading[gid] * scale; // BUG: unit 2 (millimetres) never assigns scale
}
