// matrix_edge_guard.metal — BUG: a SIMD-group matrix multiply behind a per-thread guard.
//
// C (8 x 12) = A (8 x 8) * B (8 x 12), as two 8 x 8 blocks of C, one per SIMD-group;
// block 1 is columns 8..15, of which 8..11 exist (B and C are stored 16 columns wide).
// Used to one thread per element, the author stops the threads past the 48 that C's 96
// elements need (two a thread) with an early return. But simdgroup_multiply is one
// operation of the whole SIMD-group: it reads every lane's elements of A and B. In
// SIMD-group 1, lanes 16..31 have returned, and their elements are undefined on real
// hardware: the product is garbage, even in the lanes that stayed.
//
// FIX: no per-thread exit before a matrix operation. Every lane of the SIMD-group takes
// part (here: drop the return; B and C are padded to 16 columns), and only what is stored
// is guarded, if anything.
#include <metal_stdlib>
using namespace metal;

kernel void matrix_edge_guard(device const float *A [[buffer(0)]],
                              device const float *B [[buffer(1)]],
                              device float *C       [[buffer(2)]],
                              uint tid              [[thread_position_in_grid]],
                              uint sg               [[simdgroup_index_in_threadgroup]])
{
    if (tid >= 48) // BUG: 96 elements of C, two a thread, but the matrix ops need all lanes
        return;
    simdgroup_float8x8 a, b, c;
    simdgroup_load(a, A);
    simdgroup_load(b, B, 16, ulong2(8 * sg, 0));
    simdgroup_multiply(c, a, b);
    simdgroup_store(c, C, 16, ulong2(8 * sg, 0));
}
