// copy.cl: the streaming copy of 32-bit words, one per work-item.
kernel void copy(global const uint *in, global uint *out)
{
    uint i = get_global_id(0);
    out[i] = in[i];
}
