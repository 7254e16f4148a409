kernel void ok_same_condition(global const float *in, global const float *bias,
                              global float *out)
{
    uint gid = get_global_id(0);
    uint lid = get_local_id(0);
    float b;
    if (lid < 32)
        b = bias[lid] * 0.5f;
    float x = in[gid];
    if (lid < 32)
        x += b;
    out[gid] = x;
}
