/*
 * realworld_ref_ml.h — the ML-shaped kernels of tests/lang/realworld/ for realworld_ref.c
 * (included by it, after its helpers): norms, softmax, RoPE, quantized products, attention,
 * reductions and cross-entropy. Sums the kernel leaves to simd_sum or atomics are done in
 * double; the manifests allow for float's order.
 */
#ifndef LOCKSTEP_TESTS_REF_REALWORLD_ML_H
#define LOCKSTEP_TESTS_REF_REALWORLD_ML_H

static void layer_norm_rows(const double *x, const double *w, int w_stride, const double *b,
                            int rows, int n, double *out)
{
    for (int r = 0; r < rows; r++) {
        double mean = 0, var = 0;
        for (int i = 0; i < n; i++)
            mean += x[r * n + i];
        mean /= n;
        for (int i = 0; i < n; i++)
            var += (x[r * n + i] - mean) * (x[r * n + i] - mean);
        double inv = 1.0 / sqrt(var / n + (double)1e-5f);
        for (int i = 0; i < n; i++)
            out[r * n + i] = w[i * w_stride] * ((x[r * n + i] - mean) * inv) + b[i];
    }
}

static void layer_norm(void)
{
    static float x[6000], w[1000], b[1000], y[6000];
    static double xd[6000], wd[1000], bd[1000], yd[6000];
    normal_f32(21, 1.5, 2, x, 6000);
    rand_f32(22, 0.5, 1.5, w, 1000);
    rand_f32(23, -1, 1, b, 1000);
    for (int i = 0; i < 6000; i++)
        xd[i] = x[i];
    for (int i = 0; i < 1000; i++)
        wd[i] = w[i], bd[i] = b[i];
    layer_norm_rows(xd, wd, 1, bd, 6, 1000, yd);
    for (int i = 0; i < 6000; i++)
        y[i] = (float)yd[i];
    write_f32("layer_norm_float32.out.npy", y, 6000);

    uint16_t xh[900], wh[300], bh[300], yh[900];
    normal_f16(24, -0.5, 1, xh, 900);
    rand_f16(25, 0.5, 1.5, wh, 300);
    rand_f16(26, -1, 1, bh, 300);
    for (int i = 0; i < 900; i++)
        xd[i] = h2d(xh[i]);
    for (int i = 0; i < 300; i++)
        wd[i] = h2d(wh[i]), bd[i] = h2d(bh[i]);
    layer_norm_rows(xd, wd, 0, bd, 3, 300, yd);
    for (int i = 0; i < 900; i++)
        yh[i] = d2h(yd[i]);
    write_f16("layer_norm_float16.out.npy", yh, 900);
}

static void rms_norm(void)
{
    static float x[2048], y[2048];
    normal_f32(31, 0, 3, x, 2048);
    for (int r = 0; r < 4; r++) {
        double s = 0;
        for (int i = 0; i < 512; i++)
            s += (double)x[r * 512 + i] * x[r * 512 + i];
        double scale = 1.0 / sqrt(s / 512 + (double)1e-6f);
        for (int i = 0; i < 512; i++)
            y[r * 512 + i] = (float)(x[r * 512 + i] * scale);
    }
    write_f32("rms_norm.dst.npy", y, 2048);
}

static void softmax_rows(const float *x, const uint16_t *mask, int rows, int n, double scale,
                         float *out)
{
    for (int r = 0; r < rows; r++) {
        double v[300], m = -INFINITY, s = 0;
        for (int i = 0; i < n; i++) {
            v[i] = (double)x[r * n + i] * scale + (mask ? h2d(mask[r * n + i]) : 0.0);
            m = v[i] > m ? v[i] : m;
        }
        for (int i = 0; i < n; i++)
            s += exp(v[i] - m);
        for (int i = 0; i < n; i++)
            out[r * n + i] = (float)(exp(v[i] - m) / s);
    }
}

static void softmax(void)
{
    static float x[1500], y[1500];
    static uint16_t mask[1500];
    rand_f32(41, -8, 8, x, 1500);
    for (int i = 0; i < 1500; i++)
        mask[i] = i % 11 == 4 ? 0xfc00 /* -inf */ : d2h((i % 5) * 0.25 - 0.5);
    write_f16("softmax.mask.npy", mask, 1500);
    softmax_rows(x, mask, 5, 300, 0.5, y);
    write_f32("softmax.dst.npy", y, 1500);
    rand_f32(42, -8, 8, x, 120);
    softmax_rows(x, NULL, 3, 40, 1.0, y);
    write_f32("softmax_nomask.dst.npy", y, 120);
}

/* theta = pos * base^(-2i/n): the product rounded to float as the kernel's is; the kernel's
 * pow is within a few float ulps of this, which the manifest's tolerance allows. */
static void rope(void)
{
    static const int pos[5] = {0, 7, 3, 100, 2047};
    uint16_t src[960], dst[960];
    rand_f16(51, -2, 2, src, 960);
    for (int t = 0; t < 5; t++)
        for (int h = 0; h < 3; h++)
            for (int i = 0; i < 32; i++) {
                float inv_freq = (float)pow(10000.0, -2.0 * i / 64.0);
                float theta = (float)pos[t] * inv_freq;
                int row = (t * 3 + h) * 64;
                double x0 = h2d(src[row + i]), x1 = h2d(src[row + i + 32]);
                dst[row + i] = d2h(x0 * cos(theta) - x1 * sin(theta));
                dst[row + i + 32] = d2h(x0 * sin(theta) + x1 * cos(theta));
            }
    write_f16("rope.dst.npy", dst, 960);
}

/* block_q4_0: a half scale and 16 bytes of nibbles; 10 rows of 64 blocks. */
static void quant_q4_0(void)
{
    static uint8_t raw[10 * 64 * 18];
    float y[2048], dst[10];
    sm_state = 6001;
    for (int b = 0; b < 640; b++) {
        uint16_t d = d2h(0.001 + 0.019 * ((double)(sm_next() >> 11) * 0x1p-53));
        raw[b * 18] = (uint8_t)(d & 0xff);
        raw[b * 18 + 1] = (uint8_t)(d >> 8);
        for (int j = 0; j < 16; j++)
            raw[b * 18 + 2 + j] = (uint8_t)(sm_next() & 0xff);
    }
    write_bin("quant_q4_0.src0.bin", raw, sizeof raw);
    rand_f32(61, -1, 1, y, 2048);
    for (int r = 0; r < 10; r++) {
        double s = 0;
        for (int b = 0; b < 64; b++) {
            const uint8_t *blk = raw + (r * 64 + b) * 18;
            double d = h2d((uint16_t)(blk[0] | blk[1] << 8)), q = 0;
            for (int j = 0; j < 16; j++)
                q += ((blk[2 + j] & 15) - 8) * (double)y[b * 32 + j] +
                     ((blk[2 + j] >> 4) - 8) * (double)y[b * 32 + j + 16];
            s += d * q;
        }
        dst[r] = (float)s;
    }
    write_f32("quant_q4_0.dst.npy", dst, 10);
}

static void quant_q8_0(void)
{
    uint8_t raw[12 * 34];
    float deq[384];
    sm_state = 7001;
    for (int b = 0; b < 12; b++) {
        uint16_t d = d2h(0.001 + 0.05 * ((double)(sm_next() >> 11) * 0x1p-53));
        raw[b * 34] = (uint8_t)(d & 0xff);
        raw[b * 34 + 1] = (uint8_t)(d >> 8);
        for (int j = 0; j < 32; j++) {
            raw[b * 34 + 2 + j] = (uint8_t)(sm_next() & 0xff);
            deq[b * 32 + j] = (float)(h2d(d) * (int8_t)raw[b * 34 + 2 + j]);
        }
    }
    write_bin("quant_q8_0.blocks.bin", raw, sizeof raw);
    write_f32("quant_q8_0_dequant.dst.npy", deq, 384);

    uint32_t words[320];
    uint16_t scales[40];
    float y[1280], partial[40];
    rand_u32(71, words, 320);
    rand_f16(72, 0.001, 0.05, scales, 40);
    rand_f32(73, -1, 1, y, 1280);
    for (int blk = 0; blk < 40; blk++) {
        double acc = 0;
        for (int w = 0; w < 8; w++)
            for (int k = 0; k < 4; k++)
                acc += (double)(int8_t)(words[blk * 8 + w] >> (8 * k)) * y[blk * 32 + 4 * w + k];
        partial[blk] = (float)(acc * h2d(scales[blk]));
    }
    write_f32("quant_q8_0_dot.partial.npy", partial, 40);
}

static void attention(void)
{
    uint16_t q[32], k[3200], v[3200];
    float out[32];
    double p[100], m = -INFINITY, s = 0;
    rand_f16(201, -1, 1, q, 32);
    rand_f16(202, -1, 1, k, 3200);
    rand_f16(203, -1, 1, v, 3200);
    for (int j = 0; j < 100; j++) {
        double d = 0;
        for (int c = 0; c < 32; c++)
            d += h2d(q[c]) * h2d(k[j * 32 + c]);
        p[j] = d / sqrt(32.0);
        m = p[j] > m ? p[j] : m;
    }
    for (int j = 0; j < 100; j++)
        s += p[j] = exp(p[j] - m);
    for (int c = 0; c < 32; c++) {
        double acc = 0;
        for (int j = 0; j < 100; j++)
            acc += p[j] * h2d(v[j * 32 + c]);
        out[c] = (float)(acc / s);
    }
    write_f32("attention.out.npy", out, 32);
}

/* affine_qmv<T, 32, bits>: y[row] = sum over groups of scale * (q . x) + bias * sum(x). */
static void affine_qmv_one(int bits, int rows, int in, const uint32_t *w, const double *scales,
                           const double *biases, const double *x, double *y)
{
    int pack = 32 / bits, groups = in / 32;
    uint32_t mask = (1u << bits) - 1;
    for (int r = 0; r < rows; r++) {
        double acc = 0;
        for (int g = 0; g < groups; g++) {
            double qd = 0, xs = 0;
            for (int e = 0; e < 32; e++) {
                uint32_t word = w[r * (in / pack) + (g * 32 + e) / pack];
                qd += x[g * 32 + e] * (double)((word >> (bits * (e % pack))) & mask);
                xs += x[g * 32 + e];
            }
            acc += scales[r * groups + g] * qd + biases[r * groups + g] * xs;
        }
        y[r] = acc;
    }
}

static void affine_qmv(void)
{
    static uint32_t w[1024];
    static double sd[128], bd[128], xd[1024], yd[5];
    float sf[80], bf[80], xf[512], yf[5];
    rand_u32(211, w, 320);
    rand_f32(212, 0.01, 0.1, sf, 80);
    rand_f32(213, -0.5, 0.5, bf, 80);
    rand_f32(214, -1, 1, xf, 512);
    for (int i = 0; i < 80; i++)
        sd[i] = sf[i], bd[i] = bf[i];
    for (int i = 0; i < 512; i++)
        xd[i] = xf[i];
    affine_qmv_one(4, 5, 512, w, sd, bd, xd, yd);
    for (int i = 0; i < 5; i++)
        yf[i] = (float)yd[i];
    write_f32("affine_qmv_float.y.npy", yf, 5);

    uint16_t sh[128], bh[128], xh[1024], yh[4];
    rand_u32(215, w, 1024);
    rand_f16(216, 0.001, 0.01, sh, 128);
    rand_f16(217, -0.5, 0.5, bh, 128);
    rand_f16(218, -1, 1, xh, 1024);
    for (int i = 0; i < 128; i++)
        sd[i] = h2d(sh[i]), bd[i] = h2d(bh[i]);
    for (int i = 0; i < 1024; i++)
        xd[i] = h2d(xh[i]);
    affine_qmv_one(8, 4, 1024, w, sd, bd, xd, yd);
    for (int i = 0; i < 4; i++)
        yh[i] = d2h(yd[i]);
    write_f16("affine_qmv_half.y.npy", yh, 4);
}

static void reductions(void)
{
    static int64_t v[10007];
    int32_t si = 0;
    uint32_t su = 0;
    rand_int(221, -1000, 1000, v, 10007);
    for (int i = 0; i < 10007; i++)
        si += (int32_t)v[i];
    write_i32("reduce_sum_int.out.npy", &si, 1);
    rand_int(222, 0, 255, v, 3001);
    for (int i = 0; i < 3001; i++)
        su += (uint32_t)v[i];
    write_u32("reduce_sum_uchar.out.npy", &su, 1);
}

static void cross_entropy(void)
{
    static float l[6000];
    static const int labels[6] = {5, 999, -100, 0, 512, 77};
    float loss[6];
    normal_f32(231, 0, 3, l, 6000);
    for (int r = 0; r < 6; r++) {
        double m = -INFINITY, s = 0;
        for (int c = 0; c < 1000; c++)
            m = l[r * 1000 + c] > m ? l[r * 1000 + c] : m;
        for (int c = 0; c < 1000; c++)
            s += exp(l[r * 1000 + c] - m);
        loss[r] = labels[r] == -100 ? 0.0f : (float)(log(s) + m - l[r * 1000 + labels[r]]);
    }
    write_f32("cross_entropy.loss.npy", loss, 6);
}

static void ml_kernels(void)
{
    layer_norm();
    rms_norm();
    softmax();
    rope();
    quant_q4_0();
    quant_q8_0();
    attention();
    affine_qmv();
    reductions();
    cross_entropy();
}

#endif
