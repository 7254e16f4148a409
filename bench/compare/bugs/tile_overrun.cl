kernel void tile_overrun(global const float *in, global float *out)
{
    local float tile[64];
    local float scale[64];
    uint gid = get_global_id(0), lid = get_local_id(0);
    tile[lid] = in[gid];
    scale[lid] = 0.5f;
    barrier(CLK_LOCAL_MEM_FENCE);
    // BUG: for lid == 63, tile[lid + 1] is tile[64], past the end of tile.
    out[gid] = (tile[lid + 1] - tile[lid]) * scale[lid];
}
