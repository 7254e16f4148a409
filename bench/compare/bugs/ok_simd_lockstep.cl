kernel void ok_simd_lockstep(global const float *in, global float *out, local float *tile)
{
    uint gid = get_global_id(0), lid = get_local_id(0);
    tile[lid] = in[gid];
    out[gid] = tile[lid ^ 1]; // lockstep on Apple GPUs; a race under OpenCL's rules
}
