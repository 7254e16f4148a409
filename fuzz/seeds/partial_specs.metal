// A seed for make fuzz: partial specializations of struct templates and partial ordering
// of function templates.
#include <metal_stdlib>
using namespace metal;
template <typename T, int N> struct Vec { T v[N]; static constexpr int which = 0; };
template <int N> struct Vec<float, N> { float v[N]; static constexpr int which = 1; };
template <typename T> struct Vec<T, 2> { T v[2]; static constexpr int which = 2; };
template <> struct Vec<float, 2> { float v[2]; static constexpr int which = 3; };
template <typename T> struct Ptr { static constexpr int which = 0; };
template <typename T> struct Ptr<device T*> { static T get(device T *p) { return p[0]; } };
template <typename T> struct Ptr<device const T*> { static constexpr int which = 2; };
template <typename A, typename B> struct Pair { static constexpr int which = 0; };
template <typename T> struct Pair<T, T> { static constexpr int which = 1; };
template <typename T> struct Elem { static constexpr int n = 1; };
template <typename T, int N> struct Elem<vec<T, N> > { static constexpr int n = N; };
template <typename T> float f(T x) { return 1.0f; }
template <typename T> float f(device T *p) { return 2.0f + float(p[0]); }
template <typename T> float g(T a, T b) { return 10.0f; }
template <typename T, typename U> float g(T a, U b) { return 20.0f; }
kernel void k(device float *o [[buffer(0)]], device const float *c [[buffer(1)]],
              uint i [[thread_position_in_grid]]) {
    Vec<int, 3> a = {{1, 2, 3}};
    o[i] = float(a.v[2] + Vec<float, 3>::which + Vec<int, 2>::which + Pair<int, int>::which + Elem<half3>::n)
           + Ptr<device float*>::get(o) + float(Ptr<device const float*>::which)
           + f(c + i) + f(1.0f) + g(1.0f, 2.0f) + g(1.0f, 2);
}
