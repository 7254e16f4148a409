kernel void ok_barrier_reuse(global const float *in, global float *out)
{
    local float tile[64];
    uint gid = get_global_id(0), lid = get_local_id(0);
    tile[lid] = in[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    float mine = tile[63 - lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    tile[lid] = mine * 2.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gid] = tile[(lid + 1) % 64];
}
