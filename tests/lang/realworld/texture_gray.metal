// Textures, as Apple's image-processing samples read and write them: the same grayscale as
// image_ops.metal's on buffers, with the RGBA8 pixels in rgba8unorm textures (read() gives
// c / 255 as half, write() rounds back to 0..255) and the alpha kept.
#include <metal_stdlib>
using namespace metal;

// Luminance of each pixel, written back as gray.
kernel void grayscale_texture(texture2d<half, access::read> in [[texture(0)]],
                              texture2d<half, access::write> out [[texture(1)]],
                              uint2 gid [[thread_position_in_grid]])
{
    half4 c = in.read(gid);
    half y = dot(c.rgb, half3(0.299h, 0.587h, 0.114h));
    out.write(half4(y, y, y, c.a), gid);
}
