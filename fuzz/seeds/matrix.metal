#include <metal_stdlib>
using namespace metal;
// A seed for make fuzz: SIMD-group matrices in most of their forms.
kernel void k(device const half *a [[buffer(0)]], device float *c [[buffer(1)]],
              threadgroup float *t [[threadgroup(0)]], uint l [[thread_index_in_simdgroup]]) {
    simdgroup_half8x8 A;
    simdgroup_float8x8 C = make_filled_simdgroup_matrix<float, 8>(0.5f), D[2];
    simdgroup_load(A, a, 16, ulong2(1, 2), true);
    D[0] = simdgroup_float8x8(2.0f);
    simdgroup_multiply_accumulate(D[1], A, D[0], C);
    D[1].thread_elements()[l & 1] += 1.0f;
    simdgroup_store(D[1], t, 8);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    simdgroup_load(C, t);
    simdgroup_multiply(C, C, A);
    simdgroup_store(C, c, 8, ulong2(0, 0), false);
}
