// A seed for make fuzz: structs with member functions and constructors.
#include <metal_stdlib>
using namespace metal;
struct Counter {
    int n = 0;
    void tick() { n++; }
};
class Acc {
public:
    static constexpr int K = 2;
    Acc() : sum(0), m(-INFINITY) {}
    Acc(float s) { sum = s; this->m = s; }
    void add(float x) { sum += x; m = max(m, x); c.tick(); }
    float result() const { return sum + m + float(c.n * K); }
    static float twice(float x) { return 2.0f * x; }
    float get() const device { return sum; }
private:
    float sum, m;
    Counter c;
};
kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],
              device Acc *accs [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    Acc a;
    for (int j = 0; j < 4; j++) a.add(in[i * 4 + j]);
    Acc b{Acc::twice(in[i])};
    out[i] = a.result() + b.result() + Acc(1.0f).result() + accs[i].get();
}
