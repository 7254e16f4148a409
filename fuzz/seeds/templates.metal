// A seed for make fuzz: value template parameters, instantiation, nested calls.
#include <metal_stdlib>
using namespace metal;

template <typename T, int N>
T sum_n(device const T *p) {
    T s = 0;
    for (int k = 0; k < N; k++)
        s += p[k];
    return s;
}

template <typename T, uint TILE, bool SQUARE>
[[kernel]] void tiled(device const T *in [[buffer(0)]], device T *out [[buffer(1)]],
                      uint i [[thread_position_in_grid]]) {
    T acc[TILE];
    for (uint k = 0; k < TILE; k++)
        acc[k] = in[i * TILE + k];
    T s = sum_n<T, TILE * 2>(in + i);
    for (uint k = 0; k < TILE; k++)
        s += SQUARE ? acc[k] * acc[k] : acc[k];
    out[i] = s;
}

template [[host_name("tiled_float_4")]] [[kernel]] decltype(tiled<float, 4, true>) tiled<float, 4, true>;
template [[host_name("tiled_int_3")]] [[kernel]] decltype(tiled<int, 3, false>) tiled<int, 3, false>;
