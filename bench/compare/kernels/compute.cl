// compute.cl: the compute-bound loop. Each work-item runs two independent fma chains for
// `iters` steps; fma() is used explicitly so every tool rounds each step once (no
// contraction choice left to the compiler) and outputs agree bit for bit.
kernel void compute(global const float *in, global float *out, uint iters)
{
    uint i = get_global_id(0);
    float x = in[i], y = in[i] * 0.5f;
    for (uint k = 0; k < iters; k++) {
        x = fma(x, 0.9999f, 0.0001f);
        y = fma(y, 0.9998f, 0.0002f);
    }
    out[i] = x + y;
}
