kernel void grid_edge_oob(global const float *a, global const float *b, global float *c)
{
    uint gid = get_global_id(0);
    c[gid] = a[gid] + b[gid]; // BUG: gid may be >= 1000
}
