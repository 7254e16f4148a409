/*
 * test_constructs_tensor.c — Metal 4 tensor operations (MPP's matmul2d): tensor arguments
 * and slices with and without edge checks, matmul2d_descriptor's forms (k from the operands
 * or given, transposed operands, multiply and multiply_accumulate), run() into a tensor and
 * into a cooperative tensor, the cooperative tensor's elements (get_capacity, [], get_mask,
 * load, store), the execution scopes, and the diagnostics. Expected values come from C here
 * written from MPP's definition (C = A * B, or A * B + C), each element a float fused
 * multiply-add chain over k in order (the order lockstep documents for its tensor unit), so
 * float results are compared bit for bit.
 */
#include "construct_harness.h"

/* A tensor argument: a zeroed buffer of rows x pitch elements and its extents. */
static void *tensor_buf(Harness *h, uint32_t arg, uint32_t cols, uint32_t rows, uint32_t pitch,
                        uint32_t elem_size)
{
    void *p = ch_buf(h, arg, (uint64_t)pitch * rows * elem_size);
    h->bind[arg].tensor[0] = cols;
    h->bind[arg].tensor[1] = rows;
    h->bind[arg].tensor[2] = pitch;
    return p;
}

static float value_of(int i, int salt) { return (float)((i * 7 + salt * 13) % 19 - 9) * 0.25f; }

typedef struct Gemm {
    int m, n, k;          /* the problem: D (m x n) = A (m x k) * B (k x n) */
    int tile_m, tile_n;   /* the descriptor's tile */
    int simdgroups;
    bool tl, tr, accumulate;
    const char *k_arg;    /* the descriptor's k as written */
} Gemm;

/* Runs run(A.slice, B.slice, D.slice) over a grid of tiles and compares D with C. */
static void check_gemm(const Gemm *g)
{
    char src[2048];
    snprintf(src, sizeof src,
             "#include <metal_tensor>\n"
             "#include <MetalPerformancePrimitives/MetalPerformancePrimitives.h>\n"
             "using namespace metal;\nusing namespace mpp::tensor_ops;\n"
             "kernel void k(tensor<device float, dextents<int, 2>> A,\n"
             "              tensor<device float, dextents<int, 2>> B,\n"
             "              tensor<device float, dextents<int, 2>> D,\n"
             "              uint2 tg [[threadgroup_position_in_grid]]) {\n"
             "    constexpr auto desc = matmul2d_descriptor(%d, %d, %s, %s, %s, false,\n"
             "        matmul2d_descriptor::mode::%s);\n"
             "    matmul2d<desc, execution_simdgroups<%d>> op;\n"
             "    auto a = A.slice(%s);\n"
             "    auto b = B.slice(%s);\n"
             "    auto d = D.slice(tg.x * %d, tg.y * %d);\n"
             "    op.run(a, b, d);\n"
             "}\n",
             g->tile_m, g->tile_n, g->k_arg, g->tl ? "true" : "false", g->tr ? "true" : "false",
             g->accumulate ? "multiply_accumulate" : "multiply", g->simdgroups,
             g->tl ? "tg.y * TM, 0" : "0, tg.y * TM", g->tr ? "0, tg.x * TN" : "tg.x * TN, 0",
             g->tile_n, g->tile_m);
    /* the tile sizes in the slices' origins */
    char defs[64], full[2200];
    snprintf(defs, sizeof defs, "#define TM %d\n#define TN %d\n", g->tile_m, g->tile_n);
    snprintf(full, sizeof full, "%s%s", defs, src);
    Harness h;
    ch_init(&h, full, NULL);
    int M = g->m, N = g->n, K = g->k;
    /* A is m x k (stored k x m when transposed), B k x n (n x k when transposed) */
    float *a = tensor_buf(&h, 0, g->tl ? M : K, g->tl ? K : M, g->tl ? M : K, 4);
    float *b = tensor_buf(&h, 1, g->tr ? K : N, g->tr ? N : K, g->tr ? K : N, 4);
    float *d = tensor_buf(&h, 2, N, M, N, 4);
    for (int i = 0; i < M * K; i++)
        a[i] = value_of(i, 1);
    for (int i = 0; i < K * N; i++)
        b[i] = value_of(i, 2);
    float *want = calloc((size_t)(M * N), sizeof *want);
    /* a k in the descriptor: run() multiplies that many columns of A (rows of B) */
    int k_used = g->k_arg[0] >= '0' && g->k_arg[0] <= '9' ? atoi(g->k_arg) : K;
    k_used = k_used < K ? k_used : K;
    for (int i = 0; i < M * N; i++)
        d[i] = value_of(i, 3);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = g->accumulate ? d[i * N + j] : 0.0f;
            for (int kk = 0; kk < k_used; kk++) {
                float x = g->tl ? a[kk * M + i] : a[i * K + kk];
                float y = g->tr ? b[j * K + kk] : b[kk * N + j];
                acc = fmaf(x, y, acc);
            }
            want[i * N + j] = acc;
        }
    uint32_t tgs = (uint32_t)g->simdgroups * 32;
    h_grid(&h, true, (uint32_t)((N + g->tile_n - 1) / g->tile_n),
           (uint32_t)((M + g->tile_m - 1) / g->tile_m), 1, tgs, 1, 1);
    h_run(&h);
    h_expect_no_faults(&h);
    for (int i = 0; i < M * N; i++)
        if (util_f32_bits(d[i]) != util_f32_bits(want[i])) {
            print_error("%s", full);
            fail_msg("D[%d][%d] is %.9g, want %.9g", i / N, i % N, (double)d[i],
                     (double)want[i]);
        }
    free(want);
    h_free(&h);
}

static void test_matmul_into_tensor(void **state)
{
    (void)state;
    /* tiles of 32 x 32 over 4 SIMD-groups (16 x 16 each); edges in m, n and k */
    check_gemm(&(Gemm){40, 48, 13, 32, 32, 4, false, false, false, "dynamic_length_v<int>"});
    check_gemm(&(Gemm){64, 64, 32, 32, 32, 4, false, false, false, "dynamic_length_v<int>"});
    /* k given (the operands are only read up to it) and static_cast<int>(dynamic_extent) */
    check_gemm(&(Gemm){32, 32, 24, 32, 32, 4, false, false, false, "16"});
    /* a k that is not a multiple of 8, in operands that reach past it (the last step of 8
     * must not sum their elements past k), plain and transposed */
    check_gemm(&(Gemm){32, 32, 24, 32, 32, 4, false, false, false, "12"});
    check_gemm(&(Gemm){24, 16, 24, 8, 8, 1, true, true, true, "3"});
    check_gemm(&(Gemm){16, 24, 32, 16, 8, 2, false, true, false, "20"});
    check_gemm(&(Gemm){32, 40, 20, 32, 32, 4, false, false, false,
                       "static_cast<int>(dynamic_extent)"});
    /* transposed operands, and accumulating into D */
    check_gemm(&(Gemm){40, 24, 17, 32, 32, 4, true, false, false, "dynamic_extent"});
    check_gemm(&(Gemm){24, 40, 9, 32, 32, 4, false, true, true, "dynamic_extent"});
    check_gemm(&(Gemm){33, 33, 33, 32, 32, 4, true, true, true, "dynamic_extent"});
    /* other splits: 64 x 16 over 2 (32 x 16 each), 8 x 64 over 8 (8 x 8 each), one */
    check_gemm(&(Gemm){64, 32, 20, 64, 16, 2, false, false, false, "dynamic_extent"});
    check_gemm(&(Gemm){16, 64, 11, 8, 64, 8, false, false, true, "dynamic_extent"});
    check_gemm(&(Gemm){16, 24, 30, 16, 8, 1, false, false, false, "dynamic_extent"});
}

/* The CPU side of the cooperative kernels: D = 2 * (A * B) + bias, in tiles of 32 x 32. */
static void check_cooperative(const char *elem, bool half_out)
{
    enum { M = 40, N = 40, K = 12 };
    char src[2600];
    snprintf(src, sizeof src,
             "#include <metal_stdlib>\nusing namespace metal;\nusing namespace mpp::tensor_ops;\n"
             "kernel void k(tensor<device half, dextents<int, 2>> A [[buffer(0)]],\n"
             "              tensor<device half, dextents<int, 2>> B [[buffer(1)]],\n"
             "              tensor<device %s, dextents<int, 2>> D [[buffer(2)]],\n"
             "              tensor<device %s, dextents<int, 2>> bias [[buffer(3)]],\n"
             "              device int *info [[buffer(4)]],\n"
             "              uint2 tg [[threadgroup_position_in_grid]],\n"
             "              uint tid [[thread_index_in_threadgroup]]) {\n"
             "    constexpr auto desc = matmul2d_descriptor(32, 32);\n"
             "    mpp::tensor_ops::matmul2d<desc, metal::execution_simdgroups<4>> op;\n"
             "    auto a = A.slice(0, tg.y * 32);\n"
             "    auto b = B.slice(tg.x * 32, 0);\n"
             "    auto ct = op.get_destination_cooperative_tensor<decltype(a), decltype(b), %s>();\n"
             "    op.run(a, b, ct);\n"
             "    for (int i = 0; i < ct.get_capacity(); i++)\n"
             "        if (ct.get_mask(i))\n"
             "            ct[i] = ct[i] * (%s)2;\n"
             "    auto bt = op.get_destination_cooperative_tensor<decltype(a), decltype(b), %s>();\n"
             "    bt.load(bias.slice(tg.x * 32, tg.y * 32));\n"
             "    for (int i = 0; i < bt.get_capacity(); i++)\n"
             "        ct[i] += bt[i];\n"
             "    ct.store(D.slice(tg.x * 32, tg.y * 32));\n"
             "    if (tid == 0 && tg.x == 0 && tg.y == 0) {\n"
             "        info[0] = ct.get_capacity();\n"
             "        info[1] = ct.get_mask(7) ? 1 : 0;\n"
             "        info[2] = ct.get_mask(8) ? 1 : 0;\n"
             "        info[3] = ct.get_mask(-1) ? 1 : 0;\n"
             "    }\n"
             "}\n",
             elem, elem, elem, elem, elem);
    Harness h;
    ch_init(&h, src, NULL);
    uint16_t *a = tensor_buf(&h, 0, K, M, K, 2), *b = tensor_buf(&h, 1, N, K, N, 2);
    void *d = tensor_buf(&h, 2, N, M, N, half_out ? 2 : 4);
    void *bias = tensor_buf(&h, 3, N, M, N, half_out ? 2 : 4);
    int32_t *info = ch_buf(&h, 4, 16);
    float fa[M * K], fb[K * N], fbias[M * N];
    for (int i = 0; i < M * K; i++)
        a[i] = h_d2h(fa[i] = value_of(i, 4));
    for (int i = 0; i < K * N; i++)
        b[i] = h_d2h(fb[i] = value_of(i, 5));
    for (int i = 0; i < M * N; i++) {
        fbias[i] = value_of(i, 6) * 0.5f;
        if (half_out)
            ((uint16_t *)bias)[i] = h_d2h(fbias[i]);
        else
            ((float *)bias)[i] = fbias[i];
    }
    h_grid(&h, true, 2, 2, 1, 128, 1, 1);
    h_run(&h);
    h_expect_no_faults(&h);
    /* 32 x 32 over 4 SIMD-groups of 32 lanes: 8 elements a thread, all valid */
    CH_IEQ(info[0], 8, 0);
    CH_IEQ(info[1], 1, 1);
    CH_IEQ(info[2], 0, 2);
    CH_IEQ(info[3], 0, 3);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0;
            for (int kk = 0; kk < K; kk++)
                acc = fmaf(fa[i * K + kk], fb[kk * N + j], acc);
            if (half_out) { /* each step in half: the cooperative tensor holds halves */
                double v = h_f16_value(h_d2h(acc));
                v = h_f16_value(h_d2h(v * 2));
                v = h_f16_value(h_d2h(v + h_f16_value(h_d2h(fbias[i * N + j]))));
                double got = h_f16_value(((uint16_t *)d)[i * N + j]);
                if (got != v)
                    fail_msg("%s D[%d][%d] is %g, want %g", elem, i, j, got, v);
            } else {
                CH_FEQ(((float *)d)[i * N + j], acc * 2 + fbias[i * N + j], i * N + j);
            }
        }
    h_free(&h);
}

static void test_cooperative_tensors(void **state)
{
    (void)state;
    check_cooperative("float", false);
    check_cooperative("half", true);
}

/* The seed's shape: slice<W, H> (edge checked) and static_slice (not), a helper's result on
 * each element, the whole tile over 4 SIMD-groups; execution_simdgroup with one. */
static void test_slices_and_scopes(void **state)
{
    (void)state;
    enum { M = 20, N = 24, K = 10 };
    const char *src =
        "using namespace metal;\nusing namespace mpp::tensor_ops;\n"
        "float twice(float v) { return v + v; }\n"
        "kernel void k(tensor<device float, dextents<int, 2>> A,\n"
        "              tensor<device float, dextents<int, 2>> B,\n"
        "              tensor<device float, dextents<int, 2>> D,\n"
        "              tensor<device float, dextents<int, 2>> E,\n"
        "              uint2 tg [[threadgroup_position_in_grid]]) {\n"
        "    const int T = 16;\n"
        "    auto a = A.slice<dynamic_extent, T>(0, tg.y * T);\n"
        "    auto b = B.slice<T, dynamic_extent>(tg.x * T, 0);\n"
        "    constexpr auto desc = matmul2d_descriptor(T, T, dynamic_length_v<int>);\n"
        "    matmul2d<desc, execution_simdgroup> op;\n"
        "    auto ct = op.get_destination_cooperative_tensor<decltype(a), decltype(b), float>();\n"
        "    op.run(a, b, ct);\n"
        "    auto n = ct.get_capacity();\n"
        "    for (int e = 0; e < n; e++)\n"
        "        ct[e] = twice(ct[e]);\n"
        "    ct.store(D.slice<T, T>(tg.x * T, tg.y * T));\n"
        "    if (tg.x == 0 && tg.y == 0)\n" /* the inside tile: a static slice needs no checks */
        "        ct.store(E.static_slice<T, T>(0, 0));\n"
        "}\n";
    Harness h;
    ch_init(&h, src, NULL);
    float *a = tensor_buf(&h, 0, K, M, K, 4), *b = tensor_buf(&h, 1, N, K, N, 4);
    float *d = tensor_buf(&h, 2, N, M, N, 4), *e = tensor_buf(&h, 3, N, M, N, 4);
    for (int i = 0; i < M * K; i++)
        a[i] = value_of(i, 7);
    for (int i = 0; i < K * N; i++)
        b[i] = value_of(i, 8);
    for (int i = 0; i < M * N; i++)
        d[i] = e[i] = -100;
    h_grid(&h, true, 2, 2, 1, 32, 1, 1);
    h_run(&h);
    h_expect_no_faults(&h);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0;
            for (int kk = 0; kk < K; kk++)
                acc = fmaf(a[i * K + kk], b[kk * N + j], acc);
            CH_FEQ(d[i * N + j], acc + acc, i * N + j);
            CH_FEQ(e[i * N + j], i < 16 && j < 16 ? acc + acc : -100.0f, i * N + j);
        }
    /* the program: tmma for the multiply, and a loop over k (k is not a constant) */
    CH_EXPECT(h.prog, ch_count(h.prog, ISA_OP_TMMA) == 4);
    CH_EXPECT(h.prog, ch_has(h.prog, ISA_OP_WHILE_ICMP));
    h_free(&h);
}

/* A slice whose origin is before its parent (a negative coordinate) or past its end has no
 * elements: run() reads nothing of it (no fault) and multiplies zeros. */
static void test_slices_outside(void **state)
{
    (void)state;
    const char *src =
        "using namespace metal;\nusing namespace mpp::tensor_ops;\n"
        "kernel void k(tensor<device float, dextents<int, 2>> A,\n"
        "              tensor<device float, dextents<int, 2>> B,\n"
        "              tensor<device float, dextents<int, 2>> D,\n"
        "              uint2 tg [[threadgroup_position_in_grid]]) {\n"
        "    constexpr auto desc = matmul2d_descriptor(8, 8);\n"
        "    matmul2d<desc, execution_simdgroup> op;\n"
        "    auto a = tg.x == 0 ? A.slice(0, -4) : A.slice(-8, 0);\n"
        "    auto b = tg.x == 2 ? B.slice(8, 0) : B.slice(0, 0);\n"
        "    op.run(a, b, D.slice(tg.x * 8, 0));\n"
        "}\n";
    Harness h;
    ch_init(&h, src, NULL);
    float *a = tensor_buf(&h, 0, 8, 8, 8, 4), *b = tensor_buf(&h, 1, 8, 8, 8, 4);
    float *d = tensor_buf(&h, 2, 24, 8, 24, 4);
    for (int i = 0; i < 64; i++)
        a[i] = b[i] = 1.0f;
    for (int i = 0; i < 8 * 24; i++)
        d[i] = -100;
    h_grid(&h, true, 3, 1, 1, 32, 1, 1);
    h_run(&h);
    h_expect_no_faults(&h);
    for (int i = 0; i < 8 * 24; i++)
        CH_FEQ(d[i], 0.0f, i);
    h_free(&h);
}

/* Tensor values as values: copies, assignment, a slice of a slice in a loop, a tensor made
 * with the type written out, a template helper taking two tensors of one type; and names
 * that are tensor words used as variables. */
static void test_tensor_values(void **state)
{
    (void)state;
    const char *src =
        "using namespace metal;\nusing namespace mpp::tensor_ops;\n"
        "template <typename T>\n"
        "void mul(T a, T b, tensor<device float, dextents<int, 2>> d) {\n"
        "    constexpr auto desc = matmul2d_descriptor(8, 8);\n"
        "    matmul2d<desc, execution_simdgroup> op;\n"
        "    op.run(a, b, d);\n"
        "}\n"
        "kernel void k(tensor<device float, dextents<int, 2>> A,\n"
        "              tensor<device float, dextents<int, 2>> B,\n"
        "              tensor<device float, dextents<int, 2>> D,\n"
        "              device float *p [[buffer(3)]], device int *out [[buffer(4)]]) {\n"
        "    tensor<device float, dextents<int, 2>> t =\n"
        "        tensor<device float, dextents<int, 2>>(p, extents<int, 8, 8>());\n"
        "    auto u = A;\n"
        "    u = B;\n"
        "    auto s = A.slice(0, 0);\n"
        "    for (int i = 0; i < 2; i++)\n"
        "        s = s.slice(1, 1);\n" /* A from (2, 2) on: a 6 x 6 corner */
        "    mul(s, u, D);\n"
        "    mul(A, B, t);\n"
        "    int matmul2d = 3, tensor = 4;\n"
        "    out[0] = matmul2d < 5;\n"
        "    out[1] = tensor > 5;\n"
        "}\n";
    Harness h;
    ch_init(&h, src, NULL);
    float *a = tensor_buf(&h, 0, 8, 8, 8, 4), *b = tensor_buf(&h, 1, 8, 8, 8, 4);
    float *d = tensor_buf(&h, 2, 8, 8, 8, 4);
    float *t = ch_buf(&h, 3, 64 * 4);
    int32_t *out = ch_buf(&h, 4, 8);
    for (int i = 0; i < 64; i++)
        a[i] = value_of(i, 1), b[i] = value_of(i, 2);
    h_grid(&h, true, 1, 1, 1, 32, 1, 1);
    h_run(&h);
    h_expect_no_faults(&h);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            float whole = 0, corner = 0;
            for (int kk = 0; kk < 8; kk++)
                whole = fmaf(a[i * 8 + kk], b[kk * 8 + j], whole);
            for (int kk = 0; kk < 6 && i < 6; kk++)
                corner = fmaf(a[(i + 2) * 8 + kk + 2], b[kk * 8 + j], corner);
            CH_FEQ(t[i * 8 + j], whole, i * 8 + j);
            CH_FEQ(d[i * 8 + j], corner, i * 8 + j);
        }
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 0);
    h_free(&h);
}

/* Tensors a kernel makes over its own memory: a device buffer (dextents at run time, and the
 * tensor_inline form), and a tile staged in threadgroup memory (static extents). */
static void test_tensors_made_in_the_kernel(void **state)
{
    (void)state;
    enum { M = 16, N = 16, K = 8 };
    const char *src =
        "using namespace metal;\nusing namespace mpp::tensor_ops;\n"
        "kernel void k(device const float *a [[buffer(0)]], device const float *b [[buffer(1)]],\n"
        "              device float *d [[buffer(2)]], constant uint &n [[buffer(3)]],\n"
        "              uint tid [[thread_index_in_threadgroup]]) {\n"
        "    threadgroup float as[16 * 8];\n"
        "    for (uint i = tid; i < 128; i += 32) as[i] = a[i];\n"
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
        "    auto A = tensor<threadgroup float, extents<int, 8, 16>>(as, extents<int, 8, 16>());\n"
        "    auto B = tensor<device const float, dextents<int, 2>, tensor_inline>(\n"
        "        b, dextents<int, 2>(16, 8));\n"
        "    auto D = tensor<device float, dextents<int32_t, 2>>(d, dextents<int32_t, 2>(n, 16));\n"
        "    matmul2d<matmul2d_descriptor(16, 16), execution_simdgroup> op;\n"
        "    op.run(A, B, D);\n"
        "}\n";
    Harness h;
    ch_init(&h, src, NULL);
    float *a = ch_buf(&h, 0, M * K * 4), *b = ch_buf(&h, 1, K * N * 4);
    float *d = ch_buf(&h, 2, M * N * 4);
    uint32_t *n = ch_buf(&h, 3, 4);
    *n = N;
    for (int i = 0; i < M * K; i++)
        a[i] = value_of(i, 9);
    for (int i = 0; i < K * N; i++)
        b[i] = value_of(i, 10);
    ch_run(&h, 32, 32);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0;
            for (int kk = 0; kk < K; kk++)
                acc = fmaf(a[i * K + kk], b[kk * N + j], acc);
            CH_FEQ(d[i * N + j], acc, i * N + j);
        }
    h_free(&h);
}

static void test_errors(void **state)
{
    (void)state;
#define HEAD "using namespace metal;\nusing namespace mpp::tensor_ops;\n"
#define T2 "tensor<device float, dextents<int, 2>>"
#define K1 "kernel void k(" T2 " A, " T2 " B, " T2 " D) {\n"
    ch_expect_error(HEAD K1 "constexpr auto d = matmul2d_descriptor(12, 32);\n}\n", NULL,
                    "multiples of 8 from 8 to 256; m is 12");
    ch_expect_error(HEAD K1 "int m = 8;\nconstexpr auto d = matmul2d_descriptor(m, 32);\n}\n",
                    NULL, "matmul2d_descriptor's m must be a constant");
    ch_expect_error(HEAD K1 "constexpr auto d = matmul2d_descriptor(32, 32);\n"
                    "matmul2d<d, execution_thread> op;\n}\n", NULL,
                    "execution_thread (a tensor operation run by one thread) is not supported");
    ch_expect_error(HEAD K1 "constexpr auto d = matmul2d_descriptor(32, 32);\n"
                    "matmul2d<d, execution_simdgroups<3>> op;\n}\n", NULL,
                    "splits into 3 equal blocks with sides that are multiples of 8");
    ch_expect_error(HEAD K1 "matmul2d<4, execution_simdgroups<4>> op;\n}\n", NULL,
                    "matmul2d's first template argument is a matmul2d_descriptor");
    ch_expect_error(HEAD K1 "constexpr auto d = matmul2d_descriptor(32, 32);\n"
                    "matmul2d<d, execution_simdgroups<4>> op;\nfloat x = 0;\n"
                    "op.run(A, B, x);\n}\n", NULL,
                    "the destination of run() is a tensor or a cooperative tensor");
    ch_expect_error(HEAD K1 "constexpr auto d = matmul2d_descriptor(32, 32);\n"
                    "matmul2d<d, execution_simdgroups<4>> op;\nop.run(A, B);\n}\n", NULL,
                    "run() takes (left, right, destination)");
    ch_expect_error(HEAD K1 "constexpr auto d = matmul2d_descriptor(32, 32);\n"
                    "matmul2d<d, execution_simdgroups<2>> op2;\n"
                    "matmul2d<d, execution_simdgroups<4>> op4;\n"
                    "auto ct = op2.get_destination_cooperative_tensor<" T2 ", " T2 ", float>();\n"
                    "op4.run(A, B, ct);\n}\n", NULL,
                    "this cooperative tensor was made by another matmul2d");
    ch_expect_error(HEAD K1 "auto s = A.slice(1);\n}\n", NULL,
                    "'slice' takes the origin: (column, row)");
    ch_expect_error(HEAD K1 "auto s = A.reshape(1, 2);\n}\n", NULL,
                    "'reshape' is not a member lockstep supports on");
    ch_expect_error(HEAD "kernel void k(tensor<device float, dextents<int, 3>> A) {}\n", NULL,
                    "lockstep's tensors have rank 2 (matrices)");
    ch_expect_error(HEAD "kernel void k(tensor<device int, dextents<int, 2>> A) {}\n", NULL,
                    "tensors of 'int' are not supported yet (half and float are)");
    ch_expect_error(HEAD "kernel void k(tensor<thread float, dextents<int, 2>> A) {}\n", NULL,
                    "lockstep's tensors are in device, constant or threadgroup memory");
    ch_expect_error(HEAD "kernel void k(tensor<threadgroup float, dextents<int, 2>> A) {}\n",
                    NULL, "a kernel takes tensors as tensor<device T, dextents<int, 2>>");
    ch_expect_error(HEAD "kernel void k(device int *p) {\n"
                    "auto t = tensor<device float, dextents<int, 2>>(p, dextents<int, 2>(4, 4));\n"
                    "}\n", NULL, "is made from a pointer to its elements ('device float*'), "
                    "not 'device int*'");
    ch_expect_error(HEAD "kernel void k(device float *p) {\n"
                    "auto t = tensor<device float, dextents<int, 2>>(p, dextents<int, 3>(4, 4));\n"
                    "}\n", NULL, "lockstep's tensors have rank 2");
    ch_expect_error(HEAD "kernel void k(device float *p) {\n"
                    "auto t = tensor<device float, dextents<int, 2>>(p, dextents<int, 2>(4, 4), 1);\n"
                    "}\n", NULL, "strides are not supported yet");
    ch_expect_error(HEAD "kernel void k(device float *p) {\n"
                    "auto t = tensor<device float, dextents<int, 2>>(p, "
                    "extents<int, dynamic_extent, 4>());\n}\n", NULL,
                    "write dextents<int, 2>(columns, rows) for extents known at run time");
    ch_expect_error(HEAD "kernel void k(device float *p) {\n"
                    "auto t = tensor<device float, dextents<int, 2>>(p, dextents<float, 2>(4, 4));"
                    "\n}\n", NULL, "a tensor's extents are of an integer type");
    ch_expect_error(HEAD "kernel void k(device float *p) {\n"
                    "auto t = tensor<device float, dextents<int, 2>>(p, 4);\n}\n", NULL,
                    "expected the extents: dextents<int, 2>(columns, rows)");
    ch_expect_error(HEAD "kernel void k(tensor<device float, extents<int, 4, 4>> A) {}\n", NULL,
                    "a kernel takes tensors as tensor<device T, dextents<int, 2>>");
    ch_expect_error(HEAD "kernel void k(" T2 " A [[thread_position_in_grid]]) {}\n", NULL,
                    "tensor parameter 'A' takes [[buffer(n)]] or no attribute");
    ch_expect_error(HEAD "kernel void k(tensor<device const float, dextents<int, 2>> A, " T2
                    " B) {\nconstexpr auto d = matmul2d_descriptor(32, 32);\n"
                    "matmul2d<d, execution_simdgroups<4>> op;\nop.run(B, B, A);\n}\n", NULL,
                    "run() cannot write a tensor of const elements");
    ch_expect_error(HEAD "kernel void k(threadgroup float *p) {\n"
                    "auto t = tensor<threadgroup float, extents<int, 8, 8>>(p, "
                    "extents<int, 16, 16>());\n}\n", NULL, "these extents differ from the "
                    "type's (tensor<threadgroup float, extents<int, 8, 8>>)");
    ch_expect_error(HEAD K1 "auto d = matmul2d_descriptor(8, 8);\n"
                    "d = matmul2d_descriptor(16, 16);\n}\n", NULL,
                    "cannot convert 'matmul2d_descriptor(16, 16, dynamic_length_v<int>, false, "
                    "false, false, multiply)' to 'matmul2d_descriptor(8, 8, ");
    ch_expect_error(HEAD K1 "matmul2d<matmul2d_descriptor(8, 8), execution_simdgroup> op;\n"
                    "matmul2d<matmul2d_descriptor(8, 16), execution_simdgroup> op2;\n"
                    "op = op2;\n}\n", NULL, "cannot convert 'matmul2d<matmul2d_descriptor(8, 16");
    ch_expect_error(HEAD K1 "matmul2d<matmul2d_descriptor(16, 16), execution_simdgroup> op;\n"
                    "auto ct = op.get_destination_cooperative_tensor<" T2 ", " T2 ", float>();\n"
                    "float x = ct[8];\n}\n", NULL, "index 8 is outside the cooperative tensor: "
                    "each thread holds 8 elements (get_capacity())");
    ch_expect_error(HEAD K1 "cooperative_tensor<float> c;\n}\n", NULL,
                    "write a cooperative tensor's type with auto");
#undef K1
#undef T2
#undef HEAD
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matmul_into_tensor),
        cmocka_unit_test(test_cooperative_tensors),
        cmocka_unit_test(test_slices_and_scopes),
        cmocka_unit_test(test_slices_outside),
        cmocka_unit_test(test_tensor_values),
        cmocka_unit_test(test_tensors_made_in_the_kernel),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
