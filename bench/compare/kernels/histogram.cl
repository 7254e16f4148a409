// histogram.cl: 256-bin histogram of hashed keys, counted in local memory with atomics and
// merged into the global bins with one atomic per non-empty bin per group (256 work-items).
kernel void histogram(global const uint *keys, global uint *bins)
{
    local uint local_bins[256];
    uint lid = get_local_id(0);
    local_bins[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint b = (keys[get_global_id(0)] * 2654435761u) >> 24;
    atomic_inc(&local_bins[b]);
    barrier(CLK_LOCAL_MEM_FENCE);
    uint count = local_bins[lid];
    if (count != 0)
        atomic_add(&bins[lid], count);
}
