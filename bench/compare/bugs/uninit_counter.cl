kernel void uninit_counter(global const float *in, global uint *counts)
{
    local uint count;
    // BUG: nothing sets count to 0 before the adds.
    if (in[get_global_id(0)] > 0.5f)
        atomic_inc(&count);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        counts[get_group_id(0)] = count;
}
