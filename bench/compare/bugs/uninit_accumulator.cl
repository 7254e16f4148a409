kernel void uninit_accumulator(global const float *m, global float *sums, uint cols)
{
    uint row = get_global_id(0);
    float sum;
    for (uint c = 0; c < cols; c++)
        sum += m[row * cols + c]; // BUG: the first trip adds to an undefined value
    sums[row] = sum;
}
