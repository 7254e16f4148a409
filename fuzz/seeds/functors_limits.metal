// Seed: functors (member operator(), operator[], compound assignment, member templates),
// operator templates, numeric_limits, a helper named as a builtin, refs kept in registers.
#include <metal_stdlib>
using namespace metal;

struct Add { template <typename T> T operator()(T x, T y) const { return x + y; } };
struct Max {
  template <typename T> T operator()(T a, T b) const { return a > b ? a : b; }
  template <typename T> T simd_reduce(T v) { return simd_max(v); }
  static constexpr constant float init = -INFINITY;
};
struct Acc {
  float v[4];
  float operator[](int i) const { return v[i]; }
  thread Acc &operator+=(float x) { v[0] += x; return *this; }
};
template <typename T> struct Pair { T a, b; };
template <typename T> Pair<T> operator+(Pair<T> x, Pair<T> y) { return {x.a + y.a, x.b + y.b}; }
inline float max(float a, float b, float c) { return max(max(a, b), c); }
void accumulate(thread float &s, float x) { s += x; }

template <typename T, typename Op>
[[kernel]] void reduce_op(device const T *in [[buffer(0)]], device T *out [[buffer(1)]],
                          uint i [[thread_position_in_grid]]) {
  Op op;
  T x = op(in[i], numeric_limits<T>::lowest());
  float s = 0.0f;
  accumulate(s, float(x));
  Acc a = {{s, 1, 2, 3}};
  a += 1.0f;
  Pair<float> p = Pair<float>{a[0], a[1]} + Pair<float>{1.0f, 2.0f};
  out[i] = T(max(p.a, p.b, numeric_limits<float>::epsilon())) + Max().simd_reduce(x);
}
template [[host_name("reduce_add")]] [[kernel]] decltype(reduce_op<float, Add>) reduce_op<float, Add>;
template [[host_name("reduce_max")]] [[kernel]] void reduce_op<int, Max>(device const int *in [[buffer(0)]],
    device int *out [[buffer(1)]], uint i [[thread_position_in_grid]]);
