kernel void uninit_private(global const float *in, global float *out, uint n)
{
    uint gid = get_global_id(0);
    float window[8];
    uint count = min(8u, n - gid);
    for (uint i = 0; i < count; i++)
        window[i] = in[gid + i];
    float sum = 0.0f;
    for (uint i = 0; i < 8; i++)
        sum += window[i]; // BUG: window[count..7] were never written
    out[gid] = sum / 8.0f;
}
