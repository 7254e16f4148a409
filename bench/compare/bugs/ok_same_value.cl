kernel void ok_same_value(global const float *in, global uint *any_negative, local uint *flag)
{
    uint lid = get_local_id(0);
    if (lid == 0)
        flag[0] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (in[get_global_id(0)] < 0.0f)
        flag[0] = 1; // several work-items, one value: benign
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0)
        any_negative[get_group_id(0)] = flag[0];
}
