// A seed for make fuzz: default template arguments.
#include <metal_stdlib>
using namespace metal;
template <typename T, int N = 4, typename U = T> U sum_n(device const T *p) {
    U s = 0;
    for (int k = 0; k < N; k++) s += U(p[k]);
    return s;
}
template <typename T, int N_READS = 2, int STRIDE = N_READS * 2>
[[kernel]] void k(device const T *in [[buffer(0)]], device T *out [[buffer(1)]],
                  uint i [[thread_position_in_grid]]) {
    out[i] = sum_n(in + i) + sum_n<T, N_READS>(in) + T(STRIDE) + sum_n<T, 1, int>(in);
}
template [[host_name("k_float")]] [[kernel]] decltype(k<float>) k<float>;
template [[host_name("k_float_3")]] [[kernel]] decltype(k<float, 3>) k<float, 3>;
