// MLX-style functors (kernels/binary_ops.h, reduction/ops.h): each operation is a struct with
// a templated operator(), passed to the kernel templates as a type argument and instantiated
// under host names. The reduction functor also carries its identity (`init`) and a member
// function template that reduces across the SIMD-group; a small array type with operator[]
// and operator+= holds each thread's partial results. Add's operator() ends in `};`, as
// MLX's binary_ops.h has it.
#include <metal_stdlib>
using namespace metal;

struct Add {
    template <typename T>
    T operator()(T x, T y) { return x + y; };
};

struct Maximum {
    template <typename T>
    METAL_FUNC T operator()(T x, T y) { return metal::max(x, y); }
};

struct Max {
    static constexpr constant float init = -INFINITY;
    template <typename T>
    T operator()(T a, T b) const { return a > b ? a : b; }
    template <typename T>
    T simd_reduce(T val) { return simd_max(val); }
};

template <typename T, int N>
struct Partials {
    T v[N];
    T operator[](int i) const { return v[i]; }
    thread T& operator[](int i) { return v[i]; }
    thread Partials& operator+=(thread const Partials& o) {
        for (int k = 0; k < N; k++)
            v[k] += o.v[k];
        return *this;
    }
};

template <typename T, typename U, typename Op>
[[kernel]] void binary_vv(device const T* a [[buffer(0)]], device const T* b [[buffer(1)]],
                          device U* c [[buffer(2)]], uint index [[thread_position_in_grid]])
{
    c[index] = Op()(a[index], b[index]);
}

template [[host_name("vv_add_float")]] [[kernel]]
decltype(binary_vv<float, float, Add>) binary_vv<float, float, Add>;
template [[host_name("vv_maximum_float")]] [[kernel]]
decltype(binary_vv<float, float, Maximum>) binary_vv<float, float, Maximum>;

// One SIMD-group per row of row_size values: each lane folds 4 at a time with op, then the
// SIMD-group's reduction; lane 0 writes the row's result. Partials keeps the 4 lanes of work
// and their sum of squares beside the running op.
template <typename T, typename Op>
[[kernel]] void row_reduce(device const T* in [[buffer(0)]], device T* out [[buffer(1)]],
                           device T* sq [[buffer(2)]], constant int& row_size [[buffer(3)]],
                           uint row [[simdgroup_index_in_threadgroup]],
                           uint tg [[threadgroup_position_in_grid]],
                           uint sgs [[simdgroups_per_threadgroup]],
                           uint lane [[thread_index_in_simdgroup]])
{
    Op op;
    T acc = Op::init;
    Partials<T, 4> squares = {{0, 0, 0, 0}};
    device const T* x = in + (tg * sgs + row) * row_size;
    for (int i = lane * 4; i < row_size; i += 32 * 4) {
        Partials<T, 4> p;
        for (int k = 0; k < 4; k++) {
            p[k] = x[i + k];
            acc = op(acc, p[k]);
        }
        for (int k = 0; k < 4; k++)
            p[k] = p[k] * p[k];
        squares += p;
    }
    acc = op.simd_reduce(acc);
    if (lane == 0)
        out[tg * sgs + row] = acc;
    for (int k = 0; k < 4; k++)
        sq[(tg * sgs + row) * 128 + lane * 4 + k] = squares[k];
}

template [[host_name("row_max_float")]] [[kernel]]
decltype(row_reduce<float, Max>) row_reduce<float, Max>;
