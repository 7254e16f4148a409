// Bit-level tricks common in sort and hash kernels: the radix-sort key of a float (flip all
// bits of negatives, the sign bit of positives) through as_type, its 8-bit digit for a pass,
// an integer hash (PCG-style), and packing a float4 to RGBA8 with as_type<uint>(uchar4).
#include <metal_stdlib>
using namespace metal;

static inline uint float_to_key(float f)
{
    uint u = as_type<uint>(f);
    uint mask = (u & 0x80000000u) ? 0xFFFFFFFFu : 0x80000000u;
    return u ^ mask;
}

static inline uint pcg_hash(uint v)
{
    uint state = v * 747796405u + 2891336453u;
    uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

kernel void radix_keys(device const float *in [[buffer(0)]],
                       device uint *keys [[buffer(1)]],
                       device uchar *digits [[buffer(2)]],
                       device uint *hashes [[buffer(3)]],
                       constant uint &shift [[buffer(4)]],
                       uint i [[thread_position_in_grid]])
{
    uint k = float_to_key(in[i]);
    keys[i] = k;
    digits[i] = uchar((k >> shift) & 0xFF);
    hashes[i] = pcg_hash(i ^ k);
}

kernel void pack_rgba8(device const float4 *colors [[buffer(0)]],
                       device uint *packed [[buffer(1)]],
                       device float4 *unpacked [[buffer(2)]],
                       uint i [[thread_position_in_grid]])
{
    float4 c = saturate(colors[i]);
    uchar4 u = uchar4(rint(c * 255.0f));
    packed[i] = as_type<uint>(u);
    uchar4 back = as_type<uchar4>(packed[i]);
    unpacked[i] = float4(back.bgra) * (1.0f / 255.0f);
}
