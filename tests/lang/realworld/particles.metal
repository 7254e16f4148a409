// A particle step in Apple-sample style: positions and velocities as packed_float3 in a
// struct array, colours as packed_half4 beside it, a constant struct of simulation parameters; the
// velocity reflects off the box walls with select() and vector ternaries, swizzles are
// assigned to (v.xz = ..., c.rg = ...).
#include <metal_stdlib>
using namespace metal;

struct Particle {
    packed_float3 position;
    packed_float3 velocity;
};

struct SimParams {
    float dt;
    float3 gravity;
    float3 box_min;
    float3 box_max;
    float damping;
};

kernel void particle_step(device Particle *particles [[buffer(0)]],
                          device packed_half4 *colors [[buffer(1)]],
                          constant SimParams &sp [[buffer(2)]],
                          uint id [[thread_position_in_grid]])
{
    Particle p = particles[id];
    float3 pos = p.position;
    float3 vel = float3(p.velocity);
    vel += sp.gravity * sp.dt;
    pos += vel * sp.dt;
    bool3 below = pos < sp.box_min;
    bool3 above = pos > sp.box_max;
    bool3 hit = below || above;
    vel = select(vel, -vel * sp.damping, hit);
    pos = clamp(pos, sp.box_min, sp.box_max);
    // Horizontal speed limit applied through a swizzle on the left.
    float2 h = vel.xz;
    float hs = length(h);
    vel.xz = hs > 4.0f ? h * (4.0f / hs) : h;
    half4 c = colors[id];
    c.rg = any(hit) ? half2(1.0h, 0.0h) : c.gr;
    c.a = half(min(1.0f, length(vel) / 8.0f));
    p.position = pos;
    p.velocity = vel;
    particles[id] = p;
    colors[id] = c;
}
