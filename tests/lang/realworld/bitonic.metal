// Bitonic sort: the global compare-and-swap step (one dispatch per (k, j), params in a
// constant struct) and a whole sort of one threadgroup's block in threadgroup memory,
// ascending, keys uint with a payload index.
#include <metal_stdlib>
using namespace metal;

struct BitonicStep { uint k; uint j; };

kernel void bitonic_step(device float *data [[buffer(0)]],
                         constant BitonicStep &s [[buffer(1)]],
                         uint i [[thread_position_in_grid]])
{
    uint l = i ^ s.j;
    if (l > i) {
        bool ascending = (i & s.k) == 0;
        float a = data[i], b = data[l];
        if ((a > b) == ascending) {
            data[i] = b;
            data[l] = a;
        }
    }
}

kernel void bitonic_sort_tg(device uint *keys [[buffer(0)]],
                            device uint *vals [[buffer(1)]],
                            uint lid [[thread_position_in_threadgroup]],
                            uint gid [[threadgroup_position_in_grid]],
                            uint n [[threads_per_threadgroup]])
{
    threadgroup uint sk[256];
    threadgroup uint sv[256];
    sk[lid] = keys[gid * n + lid];
    sv[lid] = lid;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint k = 2; k <= n; k <<= 1) {
        for (uint j = k >> 1; j > 0; j >>= 1) {
            uint ixj = lid ^ j;
            if (ixj > lid) {
                uint a = sk[lid], b = sk[ixj];
                bool up = (lid & k) == 0;
                if (up ? a > b : a < b) {
                    sk[lid] = b; sk[ixj] = a;
                    uint t = sv[lid]; sv[lid] = sv[ixj]; sv[ixj] = t;
                }
            }
            threadgroup_barrier(mem_flags::mem_threadgroup);
        }
    }
    keys[gid * n + lid] = sk[lid];
    vals[gid * n + lid] = sv[lid];
}
