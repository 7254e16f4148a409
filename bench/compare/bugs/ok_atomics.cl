kernel void ok_atomics(global const float *in, global uint *count)
{
    local uint c;
    if (get_local_id(0) == 0)
        c = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (in[get_global_id(0)] > 0.0f)
        atomic_inc(&c);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        atomic_add(count, c);
}
