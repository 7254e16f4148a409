/*
 * test_texture_sample.c — samplers: `constexpr sampler s(...)` and `t.sample(s, coord)` run
 * as a user runs them, against a reference written here from the definition of texture
 * filtering at LOD 0 (MSL 2.10 and 6.12; the filtering formulas every GPU API shares):
 * normalized coordinates scaled by the size, pixel coordinates as they are, an optional
 * texel offset; nearest takes the texel floor() lands in, linear the four around the
 * coordinate less half a texel, weighted by the fraction; each texel coordinate addressed
 * per axis (clamp_to_edge, repeat, mirrored_repeat, clamp_to_zero's transparent or opaque
 * black, clamp_to_border's color). A bilinear resize, wrapping and mirrored lookups
 * outside [0, 1], a half texture, a texture1d with a program-scope sampler, gather() and
 * the refused forms.
 */
#include "texture_harness.h"

#include <math.h>

enum { EDGE, REPEAT, MIRROR, ZERO, BORDER };

typedef struct RefSampler {
    bool pixel, linear;
    int address[2];
    float border[4];
} RefSampler;

/* An integer texel coordinate addressed: the coordinate to load, or -1 for the border. */
static int ref_address(int mode, int i, int n)
{
    switch (mode) {
    case REPEAT:
        return ((i % n) + n) % n;
    case MIRROR: {
        int t = ((i % (2 * n)) + 2 * n) % (2 * n);
        return t < n ? t : 2 * n - 1 - t;
    }
    case ZERO:
    case BORDER:
        return i < 0 || i >= n ? -1 : i;
    default:
        return i < 0 ? 0 : i >= n ? n - 1 : i;
    }
}

static void ref_texel(const float *tex, int w, int h, const RefSampler *s, int x, int y,
                      float out[4])
{
    int ax = ref_address(s->address[0], x, w), ay = ref_address(s->address[1], y, h);
    if (ax < 0 || ay < 0) {
        memcpy(out, s->border, sizeof s->border);
        return;
    }
    memcpy(out, tex + 4 * (ay * w + ax), 4 * sizeof *out);
}

/* tex: w x h texels already converted to float4 (as read() gives them) */
static void ref_sample(const float *tex, int w, int h, const RefSampler *s, float u, float v,
                       int ox, int oy, float out[4])
{
    /* the position in texels in float, as a GPU computes it (so floor() agrees) */
    float px = s->pixel ? u : u * (float)w, py = s->pixel ? v : v * (float)h;
    px += (float)ox, py += (float)oy;
    if (!s->linear) {
        ref_texel(tex, w, h, s, (int)floorf(px), (int)floorf(py), out);
        return;
    }
    px -= 0.5f, py -= 0.5f;
    int x0 = (int)floor(px), y0 = (int)floor(py);
    double a = px - x0, b = py - y0;
    float t00[4], t10[4], t01[4], t11[4];
    ref_texel(tex, w, h, s, x0, y0, t00);
    ref_texel(tex, w, h, s, x0 + 1, y0, t10);
    ref_texel(tex, w, h, s, x0, y0 + 1, t01);
    ref_texel(tex, w, h, s, x0 + 1, y0 + 1, t11);
    for (int c = 0; c < 4; c++)
        out[c] = (float)((1 - a) * (1 - b) * t00[c] + a * (1 - b) * t10[c] +
                         (1 - a) * b * t01[c] + a * b * t11[c]);
}

static uint64_t rng = 777;

/* One run: SRC (w x h rgba8unorm, random) sampled at the coordinate each thread computes
 * from `coord_expr` (of gid and the size), written to an rgba32float texture. */
typedef struct Case {
    const char *sampler;   /* the constructor's arguments */
    RefSampler ref;
    const char *coord;     /* MSL float2 of gid, dst_size */
    double (*u)(int x, int y, int dw, int dh), (*v)(int x, int y, int dw, int dh);
    const char *format;    /* the source's: rgba8unorm or r32float */
    int ox, oy;            /* a texel offset, or 0 */
} Case;

static double resize_u(int x, int y, int dw, int dh) { (void)y, (void)dh; return (x + 0.5f) / (float)dw; }
static double resize_v(int x, int y, int dw, int dh) { (void)x, (void)dw; return (y + 0.5f) / (float)dh; }
static double wide_u(int x, int y, int dw, int dh) { (void)y, (void)dw, (void)dh; return (float)x * 0.37f - 1.3f; }
static double wide_v(int x, int y, int dw, int dh) { (void)x, (void)dw, (void)dh; return (float)y * 0.41f - 1.1f; }
static double pix_u(int x, int y, int dw, int dh) { (void)y, (void)dw, (void)dh; return (float)x * 0.75f - 0.6f; }
static double pix_v(int x, int y, int dw, int dh) { (void)x, (void)dw, (void)dh; return (float)y * 0.6f - 0.3f; }

static void run_case(const TexDir *d, const Case *c, int idx)
{
    enum { W = 5, H = 4, DW = 9, DH = 7 };
    bool r32 = strcmp(c->format, "r32float") == 0;
    uint8_t in8[W * H * 4];
    float in32[W * H], tex[W * H * 4];
    for (int t = 0; t < W * H; t++) {
        for (int k = 0; k < 4; k++) {
            in8[4 * t + k] = (uint8_t)(test_rng_next(&rng) >> 56);
            tex[4 * t + k] = (float)in8[4 * t + k] / 255.0f;
        }
        in32[t] = (float)(test_rng_next(&rng) >> 40) / 65536.0f;
        if (r32)
            tex[4 * t] = in32[t], tex[4 * t + 1] = 0, tex[4 * t + 2] = 0, tex[4 * t + 3] = 1;
    }
    if (r32)
        tex_put(d, "in.bin", in32, sizeof in32);
    else
        tex_put(d, "in.bin", in8, sizeof in8);
    char metal[2048], yaml[1024];
    snprintf(metal, sizeof metal,
             "#include <metal_stdlib>\nusing namespace metal;\n"
             "kernel void k(texture2d<float, access::sample> src [[texture(0)]],\n"
             "              texture2d<float, access::write> dst [[texture(1)]],\n"
             "              uint2 gid [[thread_position_in_grid]]) {\n"
             "    constexpr sampler s(%s);\n"
             "    float2 size = float2(dst.get_width(), dst.get_height());\n"
             "    float2 c = %s;\n"
             "    dst.write(src.sample(s, c%s), gid);\n"
             "}\n",
             c->sampler, c->coord, c->ox || c->oy ? ", int2(OX, OY)" : "");
    char *o = strstr(metal, "OX");
    if (o) {
        char tail[512];
        snprintf(tail, sizeof tail, "%d, %d%s", c->ox, c->oy, strstr(o, "OY") + 2);
        strcpy(o, tail);
    }
    tex_put_text(d, "k.metal", metal);
    snprintf(yaml, sizeof yaml,
             "kernel: k.metal\ngrid: [%d, %d]\nthreadgroup: [%d, %d]\nargs:\n"
             "  src: {type: texture2d, format: %s, width: %d, height: %d, init: {file: in.bin}}\n"
             "  dst: {type: texture2d, format: rgba32float, width: %d, height: %d, "
             "dump: out.bin}\n",
             DW, DH, DW, DH, c->format, W, H, DW, DH);
    tex_put_text(d, "k.yaml", yaml);
    tex_run_ok(d, "k.yaml");
    float out[DW * DH * 4];
    tex_get(d, "out.bin", out, sizeof out);
    for (int y = 0; y < DH; y++)
        for (int x = 0; x < DW; x++) {
            float want[4];
            ref_sample(tex, W, H, &c->ref, (float)c->u(x, y, DW, DH), (float)c->v(x, y, DW, DH),
                       c->ox, c->oy, want);
            for (int k = 0; k < 4; k++) {
                float got = out[4 * (y * DW + x) + k];
                if (!(fabsf(got - want[k]) <= 1e-5f * fmaxf(1.0f, fabsf(want[k]))))
                    fail_msg("case %d (%s) at (%d, %d) component %d: got %.9g, want %.9g\n%s",
                             idx, c->sampler, x, y, k, (double)got, (double)want[k], metal);
            }
        }
}

static void test_sampling(void **state)
{
    (void)state;
    static const char *const resize = "(float2(gid) + 0.5f) / size";
    static const char *const wide = "float2(gid) * float2(0.37f, 0.41f) - float2(1.3f, 1.1f)";
    static const char *const pix = "float2(gid) * float2(0.75f, 0.6f) - float2(0.6f, 0.3f)";
    const Case cases[] = {
        /* the bilinear resize of the brief: 5 x 4 up to 9 x 7 */
        {"coord::normalized, address::clamp_to_edge, filter::linear",
         {false, true, {EDGE, EDGE}, {0}}, resize, resize_u, resize_v, "rgba8unorm", 0, 0},
        {"filter::nearest", {false, false, {EDGE, EDGE}, {0}}, resize, resize_u, resize_v,
         "rgba8unorm", 0, 0},
        {"address::repeat, filter::linear", {false, true, {REPEAT, REPEAT}, {0}}, wide, wide_u,
         wide_v, "rgba8unorm", 0, 0},
        {"address::repeat", {false, false, {REPEAT, REPEAT}, {0}}, wide, wide_u, wide_v,
         "r32float", 0, 0},
        {"address::mirrored_repeat, filter::linear", {false, true, {MIRROR, MIRROR}, {0}}, wide,
         wide_u, wide_v, "r32float", 0, 0},
        /* clamp_to_zero: transparent black with alpha, opaque black without */
        {"address::clamp_to_zero, filter::linear", {false, true, {ZERO, ZERO}, {0, 0, 0, 0}},
         wide, wide_u, wide_v, "rgba8unorm", 0, 0},
        {"address::clamp_to_zero", {false, false, {ZERO, ZERO}, {0, 0, 0, 1}}, wide, wide_u,
         wide_v, "r32float", 0, 0},
        {"s_address::repeat, t_address::clamp_to_border, border_color::opaque_white, "
         "mag_filter::linear", {false, true, {REPEAT, BORDER}, {1, 1, 1, 1}}, wide, wide_u,
         wide_v, "rgba8unorm", 0, 0},
        /* pixel coordinates, and a texel offset */
        {"coord::pixel, filter::linear", {true, true, {EDGE, EDGE}, {0}}, pix, pix_u, pix_v,
         "r32float", 0, 0},
        {"coord::pixel", {true, false, {EDGE, EDGE}, {0}}, pix, pix_u, pix_v, "rgba8unorm", 1,
         -1},
        {"filter::linear, address::repeat", {false, true, {REPEAT, REPEAT}, {0}}, resize,
         resize_u, resize_v, "r32float", 2, 1},
    };
    TexDir d;
    tex_dir_new(&d);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&d, &cases[i], (int)i);
    tex_dir_remove(&d);
}

/* A half texture sampled into half, and a texture1d: the same definition. */
static void test_half_and_1d(void **state)
{
    (void)state;
    TexDir d;
    tex_dir_new(&d);
    tex_put_text(&d, "k.metal",
                 "#include <metal_stdlib>\nusing namespace metal;\n"
                 "kernel void h(texture2d<half> src [[texture(0)]],\n"
                 "              texture2d<half, access::write> dst [[texture(1)]],\n"
                 "              uint2 gid [[thread_position_in_grid]]) {\n"
                 "    constexpr sampler s(filter::linear);\n"
                 "    dst.write(src.sample(s, float2(gid) * 0.3f), gid);\n"
                 "}\n"
                 "constexpr sampler wrap(address::repeat, filter::linear);\n"
                 "kernel void l(texture1d<float> src [[texture(0)]],\n"
                 "              device float4 *dst [[buffer(0)]],\n"
                 "              uint i [[thread_position_in_grid]]) {\n"
                 "    dst[i] = src.sample(wrap, float(i) * 0.15f - 0.4f);\n"
                 "}\n");
    enum { W = 4, H = 3, DW = 6, DH = 5 };
    uint16_t in[W * H * 4];
    float tex[W * H * 4];
    for (int k = 0; k < W * H * 4; k++) {
        in[k] = tex_f2h((float)(test_rng_next(&rng) >> 54) / 256.0f - 2.0f);
        tex[k] = tex_h2f(in[k]);
    }
    tex_put(&d, "in.bin", in, sizeof in);
    tex_put_text(&d, "h.yaml",
                 "kernel: k.metal\nentry: h\ngrid: [6, 5]\nthreadgroup: [6, 5]\nargs:\n"
                 "  src: {type: texture2d, format: rgba16float, width: 4, height: 3, "
                 "init: {file: in.bin}}\n"
                 "  dst: {type: texture2d, format: rgba16float, width: 6, height: 5, "
                 "dump: out.bin}\n");
    tex_run_ok(&d, "h.yaml");
    uint16_t out[DW * DH * 4];
    tex_get(&d, "out.bin", out, sizeof out);
    RefSampler s = {false, true, {EDGE, EDGE}, {0}};
    for (int y = 0; y < DH; y++)
        for (int x = 0; x < DW; x++) {
            float want[4];
            ref_sample(tex, W, H, &s, (float)x * 0.3f, (float)y * 0.3f, 0, 0, want);
            for (int k = 0; k < 4; k++) {
                float got = tex_h2f(out[4 * (y * DW + x) + k]);
                /* the result rounded to half: within half an ulp of half (2^-11 relative) */
                if (!(fabsf(got - want[k]) <= fabsf(want[k]) * 0x1p-11f + 0x1p-24f + 1e-6f))
                    fail_msg("half (%d, %d) %d: got %.9g, want %.9g", x, y, k, (double)got,
                             (double)want[k]);
            }
        }
    /* texture1d: r32float 7 texels, repeat, linear */
    float line[7], ltex[7 * 4];
    for (int i = 0; i < 7; i++) {
        line[i] = (float)i * 1.5f - 2.0f;
        ltex[4 * i] = line[i], ltex[4 * i + 1] = 0, ltex[4 * i + 2] = 0, ltex[4 * i + 3] = 1;
    }
    tex_put(&d, "line.bin", line, sizeof line);
    tex_put_text(&d, "l.yaml",
                 "kernel: k.metal\nentry: l\ngrid: [12]\nthreadgroup: [12]\nargs:\n"
                 "  src: {type: texture1d, format: r32float, width: 7, init: {file: line.bin}}\n"
                 "  dst: {type: float4, count: 12, dump: l.bin}\n");
    tex_run_ok(&d, "l.yaml");
    float lout[12 * 4];
    tex_get(&d, "l.bin", lout, sizeof lout);
    RefSampler s1 = {false, true, {REPEAT, EDGE}, {0}};
    for (int i = 0; i < 12; i++) {
        float want[4];
        /* a texture1d is a texture of one row: v at its centre */
        ref_sample(ltex, 7, 1, &s1, (float)i * 0.15f - 0.4f, 0.5f, 0, 0, want);
        for (int k = 0; k < 4; k++)
            if (!(fabsf(lout[4 * i + k] - want[k]) <= 1e-5f))
                fail_msg("texture1d %d.%d: got %.9g, want %.9g", i, k, (double)lout[4 * i + k],
                         (double)want[k]);
    }
    tex_dir_remove(&d);
}

/* gather: the four texels bilinear filtering would weigh, one component of each, in MSL's
 * order (counter-clockwise from the lower left: (x0, y1), (x1, y1), (x1, y0), (x0, y0)) */
static void ref_gather(const float *tex, int w, int h, const RefSampler *s, float u, float v,
                       int ox, int oy, int comp, float out[4])
{
    float px = (s->pixel ? u : u * (float)w) + (float)ox - 0.5f;
    float py = (s->pixel ? v : v * (float)h) + (float)oy - 0.5f;
    int x0 = (int)floorf(px), y0 = (int)floorf(py);
    const int xs[4] = {x0, x0 + 1, x0 + 1, x0}, ys[4] = {y0 + 1, y0 + 1, y0, y0};
    for (int k = 0; k < 4; k++) {
        float t[4];
        ref_texel(tex, w, h, s, xs[k], ys[k], t);
        out[k] = t[comp];
    }
}

static void test_gather(void **state)
{
    (void)state;
    enum { W = 5, H = 4, N = 12 };
    uint8_t in[W * H * 4];
    float tex[W * H * 4];
    for (int k = 0; k < W * H * 4; k++) {
        in[k] = (uint8_t)(test_rng_next(&rng) >> 56);
        tex[k] = (float)in[k] / 255.0f;
    }
    TexDir d;
    tex_dir_new(&d);
    tex_put(&d, "in.bin", in, sizeof in);
    tex_put_text(&d, "g.metal",
                 "#include <metal_stdlib>\nusing namespace metal;\n"
                 "kernel void g(texture2d<float> src [[texture(0)]],\n"
                 "              device float4 *a [[buffer(0)]], device float4 *b [[buffer(1)]],\n"
                 "              uint i [[thread_position_in_grid]]) {\n"
                 "    constexpr sampler wrap(address::repeat);\n"
                 "    constexpr sampler zero(address::clamp_to_zero, filter::linear);\n"
                 "    float2 c = float2(float(i) * 0.23f - 0.4f, float(i) * 0.17f - 0.3f);\n"
                 "    a[i] = src.gather(wrap, c);\n"
                 "    b[i] = src.gather(zero, c, int2(1, -1), component::y);\n"
                 "}\n");
    tex_put_text(&d, "g.yaml",
                 "kernel: g.metal\ngrid: [12]\nthreadgroup: [12]\nargs:\n"
                 "  src: {type: texture2d, format: rgba8unorm, width: 5, height: 4, "
                 "init: {file: in.bin}}\n"
                 "  a: {type: float4, count: 12, dump: a.bin}\n"
                 "  b: {type: float4, count: 12, dump: b.bin}\n");
    tex_run_ok(&d, "g.yaml");
    float a[N * 4], b[N * 4];
    tex_get(&d, "a.bin", a, sizeof a);
    tex_get(&d, "b.bin", b, sizeof b);
    RefSampler wrap = {false, false, {REPEAT, REPEAT}, {0}};
    RefSampler zero = {false, true, {ZERO, ZERO}, {0, 0, 0, 0}};
    for (int i = 0; i < N; i++) {
        float u = (float)i * 0.23f - 0.4f, v = (float)i * 0.17f - 0.3f, wa[4], wb[4];
        ref_gather(tex, W, H, &wrap, u, v, 0, 0, 0, wa);
        ref_gather(tex, W, H, &zero, u, v, 1, -1, 1, wb);
        for (int k = 0; k < 4; k++) {
            if (a[4 * i + k] != wa[k])
                fail_msg("gather %d.%d: got %.9g, want %.9g", i, k, (double)a[4 * i + k],
                         (double)wa[k]);
            if (b[4 * i + k] != wb[k])
                fail_msg("gather (clamp_to_zero, offset, y) %d.%d: got %.9g, want %.9g", i, k,
                         (double)b[4 * i + k], (double)wb[k]);
        }
    }
    tex_dir_remove(&d);
}

static const TexBad bad[] = {
    {"kernel void k(texture1d<float> t [[texture(0)]], device float4 *o [[buffer(0)]]) { "
     "constexpr sampler s; o[0] = t.gather(s, 0.5f); }",
     "e.metal:3:114: error: ", "gather() is a texture2d's"},
    {"kernel void k(texture2d<float, access::read> t [[texture(0)]], device float4 *o "
     "[[buffer(0)]]) { constexpr sampler s(filter::linear); o[0] = t.sample(s, float2(0)); }",
     "e.metal:3:144: error: ", "sample() needs a texture with access::sample"},
    {"kernel void k(texture2d<float> t [[texture(0)]], device float4 *o [[buffer(0)]]) { "
     "constexpr sampler s(coord::pixel, address::repeat); o[0] = t.sample(s, float2(0)); }",
     "e.metal:3:102: error: ", "a sampler with coord::pixel addresses by clamp_to_edge"},
    {"kernel void k(texture2d<float> t [[texture(0)]], device float4 *o [[buffer(0)]]) { "
     "constexpr sampler s(filter::cubic); o[0] = t.sample(s, float2(0)); }",
     "e.metal:3:112: error: ", "expected filter::nearest, filter::linear"},
    {"kernel void k(texture2d<float> t [[texture(0)]], device float4 *o [[buffer(0)]]) { "
     "constexpr sampler s(compare_func::less); o[0] = t.sample(s, float2(0)); }",
     "e.metal:3:104: error: ", "sampler setting 'compare_func' is not supported yet"},
    {"kernel void k(texture2d<float> t [[texture(0)]], sampler s [[sampler(0)]]) { }",
     "e.metal:3:62: error: ", "samplers as kernel arguments are not supported yet"},
    {"kernel void k(texture2d<float> t [[texture(0)]], device float4 *o [[buffer(0)]]) { "
     "constexpr sampler s(filter::linear); o[0] = t.sample(s, uint2(0)); }",
     "e.metal:3:140: error: ", "sample() takes the coordinate as a float2, not 'uint2'"},
    {"kernel void k(texture2d<uint> t [[texture(0)]], device uint4 *o [[buffer(0)]]) { "
     "constexpr sampler s; o[0] = t.sample(s, float2(0)); }",
     "e.metal:3:112: error: ", "sample() reads textures of float or half"},
    {"kernel void k(texture2d<float> t [[texture(0)]], device float4 *o [[buffer(0)]]) { "
     "constexpr sampler s; o[0] = t.gather(s, float2(0), component::y); }",
     "e.metal:3:135: error: ", "gather() takes the offset before the component"},
};

static void test_errors(void **state)
{
    (void)state;
    TexDir d;
    tex_dir_new(&d);
    int failures = tex_compile_errors(&d, bad, sizeof bad / sizeof bad[0]);
    tex_dir_remove(&d);
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sampling),
        cmocka_unit_test(test_half_and_1d),
        cmocka_unit_test(test_gather),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
