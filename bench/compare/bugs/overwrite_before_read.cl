kernel void overwrite_before_read(global const float *in, global float *out,
                                  local float *tile)
{
    uint gid = get_global_id(0), lid = get_local_id(0);
    tile[lid] = in[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    float right = tile[min(lid + 1, 63u)];
    // BUG: barrier(CLK_LOCAL_MEM_FENCE) belongs here.
    tile[lid] = 0.5f * (tile[lid] + right);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gid] = tile[lid];
}
