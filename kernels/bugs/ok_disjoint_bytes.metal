// ok_disjoint_bytes.metal — CORRECT: threads write neighbouring elements smaller than a
// word, with no barrier.
//
// Every thread writes and reads only its own element: tile[lid] (a half, 2 bytes) and
// flags[gid] (a uchar, 1 byte). Two, or four, threads' elements share one 32-bit word, and
// checkers that track memory by words (or by cache lines) report a race between
// neighbours. But the elements are disjoint bytes: on Apple GPUs byte and halfword stores
// do not rewrite the rest of the word, and the memory model races only on the same
// location. lockstep tracks every byte and stays quiet.
#include <metal_stdlib>
using namespace metal;

kernel void ok_disjoint_bytes(device const float *in [[buffer(0)]],
                              device uchar *flags    [[buffer(1)]],
                              device half *out       [[buffer(2)]],
                              uint gid               [[thread_position_in_grid]],
                              uint lid               [[thread_index_in_threadgroup]])
{
    threadgroup half tile[64];
    tile[lid] = half(in[gid]);          // 2-byte elements: two threads per word
    flags[gid] = in[gid] > 8.0f ? 1 : 0; // 1-byte elements: four threads per word
    out[gid] = tile[lid] * 2.0h;         // each thread reads back only its own element
}
