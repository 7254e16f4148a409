// A seed for make fuzz: struct templates, used in a function template.
#include <metal_stdlib>
using namespace metal;
template <typename T, int N = 4>
struct Vec {
    T v[N];
    T get(int i) const { return v[i]; }
    void set(int i, T x) { v[i] = x; }
    Vec<T, N> scaled(T k) const { Vec<T, N> r; for (int i = 0; i < N; i++) r.v[i] = v[i] * k; return r; }
    static constexpr int size = N;
};
template <typename T>
T total(device const T *in, uint i) {
    Vec<T> a;
    for (int j = 0; j < Vec<T>::size; j++) a.set(j, in[i * 4 + j]);
    return a.scaled(T(2)).get(int(i % 4u));
}
kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],
              uint i [[thread_position_in_grid]]) {
    out[i] = total(in, i);
}
