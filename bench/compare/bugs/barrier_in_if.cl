kernel void barrier_in_if(global const float *in, global float *partial_sums,
                          local float *scratch)
{
    uint lid = get_local_id(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = get_local_size(0) / 2; stride > 0; stride /= 2) {
        if (lid < stride) {
            scratch[lid] += scratch[lid + stride];
            barrier(CLK_LOCAL_MEM_FENCE); // BUG: not every work-item gets here
        }
    }
    if (lid == 0)
        partial_sums[get_group_id(0)] = scratch[0];
}
