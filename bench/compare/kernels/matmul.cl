// matmul.cl: C = A * B with 16 x 16 tiles staged in local memory; A is M x K, B is K x N,
// one work-item per element of C. fma() fixes the rounding of each step for every tool.
#define TILE 16
kernel void matmul(global const float *A, global const float *B, global float *C,
                   uint M, uint N, uint K)
{
    local float As[TILE][TILE];
    local float Bs[TILE][TILE];
    uint col = get_global_id(0), row = get_global_id(1);
    uint lx = get_local_id(0), ly = get_local_id(1);
    float acc = 0.0f;
    for (uint t = 0; t < K; t += TILE) {
        As[ly][lx] = A[row * K + t + lx];
        Bs[ly][lx] = B[(t + ly) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < TILE; k++)
            acc = fma(As[ly][k], Bs[k][lx], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < M)
        C[row * N + col] = acc;
}
