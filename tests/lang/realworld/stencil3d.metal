// A 7-point Laplacian on a 3-D grid, one thread per cell from uint3 positions, with the grid
// size from threads_per_grid and clamped (Neumann) boundaries.
#include <metal_stdlib>
using namespace metal;

kernel void laplace3d(device const float *u [[buffer(0)]],
                      device float *lap [[buffer(1)]],
                      constant float &inv_h2 [[buffer(2)]],
                      uint3 p [[thread_position_in_grid]],
                      uint3 n [[threads_per_grid]])
{
    const uint3 lo = uint3(max(int3(p) - 1, int3(0)));
    const uint3 hi = min(p + 1, n - 1);
    const uint c = (p.z * n.y + p.y) * n.x + p.x;
    float s = u[(p.z * n.y + p.y) * n.x + lo.x] + u[(p.z * n.y + p.y) * n.x + hi.x]
            + u[(p.z * n.y + lo.y) * n.x + p.x] + u[(p.z * n.y + hi.y) * n.x + p.x]
            + u[(lo.z * n.y + p.y) * n.x + p.x] + u[(hi.z * n.y + p.y) * n.x + p.x];
    lap[c] = (s - 6.0f * u[c]) * inv_h2;
}
