kernel void ok_disjoint_bytes(global const float *in, global uchar *flags, global half *out)
{
    local ushort raw[64];               // half storage: 2-byte elements, two per word
    local half *tile = (local half *)raw;
    uint gid = get_global_id(0), lid = get_local_id(0);
    vstore_half(in[gid], lid, tile);
    flags[gid] = in[gid] > 8.0f ? 1 : 0; // 1-byte elements: four work-items per word
    vstore_half(vload_half(lid, tile) * 2.0f, gid, out);
}
