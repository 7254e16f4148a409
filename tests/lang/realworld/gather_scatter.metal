// Embedding lookup (gather rows by an index buffer) and a scatter-add of rows back into a
// table through atomic float adds, as an embedding backward pass does; indices may repeat.
#include <metal_stdlib>
using namespace metal;

kernel void embedding_gather(device const float *table [[buffer(0)]],
                             device const int *ids [[buffer(1)]],
                             device float *out [[buffer(2)]],
                             constant uint &dim [[buffer(3)]],
                             uint2 gid [[thread_position_in_grid]])
{
    const uint col = gid.x, tok = gid.y;
    if (col >= dim)
        return;
    out[tok * dim + col] = table[ids[tok] * dim + col];
}

kernel void scatter_add(device const float *grad [[buffer(0)]],
                        device const int *ids [[buffer(1)]],
                        device atomic_float *table_grad [[buffer(2)]],
                        constant uint &dim [[buffer(3)]],
                        uint2 gid [[thread_position_in_grid]])
{
    const uint col = gid.x, tok = gid.y;
    if (col >= dim)
        return;
    atomic_fetch_add_explicit(&table_grad[ids[tok] * dim + col], grad[tok * dim + col],
                              memory_order_relaxed);
}

// Gather along an axis with a uint index buffer, PyTorch's index_select on dim 0 of a 2-D
// tensor whose rows are strided (row_stride >= cols).
kernel void index_select(device const half *src [[buffer(0)]],
                         device const uint *index [[buffer(1)]],
                         device half *dst [[buffer(2)]],
                         constant uint2 &shape_stride [[buffer(3)]],
                         uint tid [[thread_position_in_grid]])
{
    const uint cols = shape_stride.x, row_stride = shape_stride.y;
    const uint r = tid / cols, c = tid % cols;
    dst[tid] = src[index[r] * row_stride + c];
}
