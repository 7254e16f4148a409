// grid_edge_oob.metal — BUG: no bounds check at the edge of the grid.
//
// The dispatch uses whole threadgroups (Metal's dispatchThreadgroups): 4 x 256 = 1024
// threads for 1000 elements. Threads 1000..1023 exist too, and each of them reads a[gid]
// and b[gid] past the end of the buffers and writes c[gid] past the end of c. On a GPU an
// out-of-bounds read returns garbage (or zero) and the write corrupts whatever lies after c.
//
// lockstep reports each out-of-bounds instruction once, with the first thread that went
// out of bounds (thread 1000: threadgroup 3, SIMD-group 7, lane 8), and counts the rest.
//
// FIX: pass n and return early: `if (gid >= n) return;` — or dispatch exactly n threads
// (dispatchThreads; `grid:` in a manifest), which Apple GPUs support.
#include <metal_stdlib>
using namespace metal;

kernel void grid_edge_oob(device const float *a [[buffer(0)]],
                          device const float *b [[buffer(1)]],
                          device float *c       [[buffer(2)]],
                          uint gid              [[thread_position_in_grid]])
{
    c[gid] = a[gid] + b[gid]; // BUG: gid may be >= 1000
}
