// softmax.cl: row softmax of scale * x, one 256-wide row per 256-work-item group, the max
// and the sum by tree reductions in local memory. OpenCL 1.2 has no SIMD-group reductions,
// so the Metal twin uses the same local-memory trees (same kernel, same work).
kernel void softmax(global const float *in, global float *out, float scale)
{
    local float scratch[256];
    uint lid = get_local_id(0), n = get_local_size(0);
    float x = in[get_global_id(0)] * scale;

    scratch[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = n / 2; s > 0; s /= 2) {
        if (lid < s)
            scratch[lid] = fmax(scratch[lid], scratch[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float m = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);

    float e = exp(x - m);
    scratch[lid] = e;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = n / 2; s > 0; s /= 2) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = e / scratch[0];
}
