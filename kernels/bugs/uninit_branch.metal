// uninit_branch.metal — BUG: a variable assigned on some paths only.
//
// Each reading comes with a unit code: 0 for metres, 1 for centimetres, 2 for
// millimetres. The kernel converts every reading to metres, but the millimetre case was
// forgotten: for those readings `scale` is never assigned, and the multiplication uses
// whatever its register held. On a GPU that is a value some earlier instruction (or
// kernel) left there, so every third output is garbage, differently on each GPU.
//
// lockstep zeroes registers so that runs repeat, which alone would hide the bug (those
// outputs would just be 0). Its uninitialized-value check follows, lane by lane, which
// registers hold a value the kernel gave them, and reports the store at line 30: the value
// comes from `scale`, declared at line 25 without one. Oclgrind misses this bug: its
// compiler may assume any value for the unassigned path, and takes one of the others.
//
// FIX: handle every unit (`else if (unit[gid] == 2) scale = 0.001f;`), and give `scale` a
// value where it is declared, or fail loudly for an unknown unit.
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
