// Refused: texture arrays (texture2d_array), which lockstep does not have yet (texture2d
// and texture1d work: see texture_gray.metal and texture_resize.metal);
// tests/lang/test_realworld.c checks the message points at the type.
#include <metal_stdlib>
using namespace metal;

// Averages the layers of an array of images.
kernel void average_layers(texture2d_array<float, access::read> layers [[texture(0)]],
                           texture2d<float, access::write> out [[texture(1)]],
                           uint2 gid [[thread_position_in_grid]])
{
    float4 sum = 0.0f;
    for (uint l = 0; l < layers.get_array_size(); l++)
        sum += layers.read(gid, l);
    out.write(sum / float(layers.get_array_size()), gid);
}
