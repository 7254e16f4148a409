// MLX-style strided binary op: out[i] = op(a[loc_a], b[loc_b]) over a 3-D output, where a
// and b reach their elements through their own strides (0 on a broadcast axis). Templated on
// the element type and the op; instantiated under host names as MLX does.
#include <metal_stdlib>
using namespace metal;

#define OP_ADD 0
#define OP_MUL 1
#define OP_MAXIMUM 2

template <typename T, int OP>
inline T apply_op(T x, T y)
{
    if (OP == OP_ADD)
        return x + y;
    else if (OP == OP_MUL)
        return x * y;
    return metal::max(x, y);
}

template <typename IdxT = int64_t>
METAL_FUNC IdxT elem_to_loc(uint3 elem, constant const int *shape,
                            constant const int64_t *strides, int ndim)
{
    IdxT loc = elem.x * IdxT(strides[ndim - 1]) + elem.y * IdxT(strides[ndim - 2]);
    for (int d = ndim - 3; d >= 0; --d) {
        loc += (elem.z % shape[d]) * IdxT(strides[d]);
        elem.z /= shape[d];
    }
    return loc;
}

template <typename T, int OP>
[[kernel]] void binary_g(device const T *a [[buffer(0)]],
                         device const T *b [[buffer(1)]],
                         device T *out [[buffer(2)]],
                         constant const int *shape [[buffer(3)]],
                         constant const int64_t *a_strides [[buffer(4)]],
                         constant const int64_t *b_strides [[buffer(5)]],
                         constant const int &ndim [[buffer(6)]],
                         uint3 index [[thread_position_in_grid]],
                         uint3 grid_dim [[threads_per_grid]])
{
    auto a_idx = elem_to_loc(index, shape, a_strides, ndim);
    auto b_idx = elem_to_loc(index, shape, b_strides, ndim);
    size_t out_idx = index.x + (size_t)grid_dim.x * (index.y + (size_t)grid_dim.y * index.z);
    out[out_idx] = apply_op<T, OP>(a[a_idx], b[b_idx]);
}

template [[host_name("add_float")]] [[kernel]] decltype(binary_g<float, OP_ADD>) binary_g<float, OP_ADD>;
template [[host_name("mul_half")]] [[kernel]] decltype(binary_g<half, OP_MUL>) binary_g<half, OP_MUL>;
template [[host_name("max_float")]] [[kernel]] decltype(binary_g<float, OP_MAXIMUM>) binary_g<float, OP_MAXIMUM>;
