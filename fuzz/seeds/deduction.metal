// A seed for make fuzz: template argument deduction.
#include <metal_stdlib>
using namespace metal;
template <typename T> T twice(T x) { return x + x; }
template <typename T, typename U> T scaled(const device T *p, U s) { return p[0] * T(s); }
template <typename T> void bump(thread T &x) { x += T(1); }
kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],
              uint i [[thread_position_in_grid]]) {
    float x = twice(in[i]);
    half h = twice(half(1.5));
    int n = twice(3);
    float y = scaled(in + i, 2u);
    bump(x);
    out[i] = x + float(h) + float(n) + y;
}
