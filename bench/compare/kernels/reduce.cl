// reduce.cl: threadgroup tree reduction, 256 work-items per group, one partial sum per
// group. The tree's order is fixed, so every tool performs the same float additions.
kernel void reduce(global const float *in, global float *partial_sums)
{
    local float scratch[256];
    uint lid = get_local_id(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = get_local_size(0) / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial_sums[get_group_id(0)] = scratch[0];
}
