kernel void uninit_branch(global const float *reading, global const uint *unit,
                          global float *metres)
{
    uint gid = get_global_id(0);
    float scale;
    if (unit[gid] == 0)
        scale = 1.0f;
    else if (unit[gid] == 1)
        scale = 0.01f;
    metres[gid] = reading[gid] * scale; // BUG: unit 2 (millimetres) never assigns scale
}
