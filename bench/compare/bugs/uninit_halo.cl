kernel void uninit_halo(global const float *in, global float *out, local float *tile)
{
    uint gid = get_global_id(0), lid = get_local_id(0);
    tile[lid + 1] = in[gid];
    // BUG: tile[0] and tile[65] (the halo) are never loaded.
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gid] = (tile[lid] + tile[lid + 1] + tile[lid + 2]) / 3.0f;
}
