// Matrix transpose through a threadgroup tile padded by one column so the column-wise reads
// avoid bank conflicts; 2-D positions as uint2, edges guarded for sizes that are not
// multiples of the tile.
#include <metal_stdlib>
using namespace metal;

constant constexpr uint TILE = 16;

kernel void transpose_tiled(device const float *in [[buffer(0)]],
                            device float *out [[buffer(1)]],
                            constant uint &rows [[buffer(2)]],
                            constant uint &cols [[buffer(3)]],
                            uint2 tgid [[threadgroup_position_in_grid]],
                            uint2 tid [[thread_position_in_threadgroup]])
{
    threadgroup float tile[TILE][TILE + 1];
    uint x = tgid.x * TILE + tid.x;
    uint y = tgid.y * TILE + tid.y;
    if (x < cols && y < rows)
        tile[tid.y][tid.x] = in[y * cols + x];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    x = tgid.y * TILE + tid.x;
    y = tgid.x * TILE + tid.y;
    if (x < rows && y < cols)
        out[y * rows + x] = tile[tid.x][tid.y];
}
