// A seed for make fuzz: default arguments of functions, member functions, constructors
// and function templates, given in declarations and used by later definitions.
#include <metal_stdlib>
using namespace metal;
constant float BIAS = 0.25f;
float base() { return 3.0f; }
float affine(float x, float a = base(), float b = BIAS * 2.0f) { return x * a + b; }
float later(float x, int n = 4);
float later(float x, int n) { return x + float(n); }
template <typename U> U mixd(U a, U b = U(1), U t = U(0.5f));
template <typename T> T mixd(T a, T b, T t) { return a + (b - a) * t; }
template <typename T, int N = 2> T powi(T x, int extra = N) {
    T r = T(1);
    for (int j = 0; j < extra; j++) r *= x;
    return r;
}
struct Acc {
    float sum;
    int count;
    Acc(float s = 0.0f, int c = 0) : sum(s), count(c) {}
    void add(float x, float w = 1.0f) { sum += x * w; count++; }
    float mean(float empty = -1.0f) const;
};
float Acc::mean(float empty) const { return count ? sum / float(count) : empty; }
kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    float x = float(i);
    Acc a;
    a.add(x);
    a.add(x, 2.0f);
    o[i] = affine(x) + later(x) + mixd(x) + powi(x) + a.mean() + Acc(x).mean(2.0f);
}
