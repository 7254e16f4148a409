// Image processing on buffers, Apple-sample style (no textures): RGBA8 pixels as uchar4,
// grayscale by Rec. 709 luma, and a separable 5-tap box blur of a 2-D float image along x with
// clamped edges, using uint2 positions and an ushort2 image size.
#include <metal_stdlib>
using namespace metal;

constant half3 kRec709Luma = half3(0.2126h, 0.7152h, 0.0722h);

kernel void grayscale(device const uchar4 *in [[buffer(0)]],
                      device uchar4 *out [[buffer(1)]],
                      constant ushort2 &size [[buffer(2)]],
                      uint2 gid [[thread_position_in_grid]])
{
    if (gid.x >= size.x || gid.y >= size.y)
        return;
    const uint i = gid.y * size.x + gid.x;
    half4 c = half4(in[i]) / 255.0h;
    half gray = dot(c.rgb, kRec709Luma);
    out[i] = uchar4(uchar3(gray * 255.0h + 0.5h), in[i].a);
}

kernel void box_blur_x(device const float *src [[buffer(0)]],
                       device float *dst [[buffer(1)]],
                       constant ushort2 &size [[buffer(2)]],
                       uint2 gid [[thread_position_in_grid]])
{
    const int w = size.x;
    if (gid.x >= uint(w) || gid.y >= size.y)
        return;
    float s = 0.0f;
    for (int d = -2; d <= 2; d++) {
        int x = clamp(int(gid.x) + d, 0, w - 1);
        s += src[gid.y * w + x];
    }
    dst[gid.y * w + gid.x] = s * 0.2f;
}
