// tensor_tile_overlap in OpenCL C: OpenCL 1.2 has no tensor operations, so each work-group
// computes its 32 x 32 tile of D = A * B with plain loops (A, B as float); the bug, the
// destination rows stepping by the old tile size, is unchanged.
kernel void tensor_tile_overlap(global const float *A, global const float *B, global float *D)
{
    const int Tile = 32, OldTile = 16, K = 32, N = 64, M = 64;
    int gx = get_group_id(0), gy = get_group_id(1);
    for (int e = get_local_id(0); e < Tile * Tile; e += get_local_size(0)) {
        int r = e >> 5, c = e & 31; /* Tile is 32 */
        int arow = gy * Tile + r, col = gx * Tile + c;
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += A[arow * K + k] * B[k * N + col];
        int drow = gy * OldTile + r; // BUG: rows step by the old tile size
        if (drow < M)
            D[drow * N + col] = acc;
    }
}
