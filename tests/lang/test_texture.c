/*
 * test_texture.c — texture2d and texture1d in kernels, run as a user runs them (a kernel, a
 * manifest and raw input texels in a temporary folder): Apple's grayscale sample, read()
 * of every kind of format into float (unorm as c / max, half widened, missing components
 * 0 and alpha 1, bgra swizzled), write() of special values (clamped and rounded to nearest
 * even for unorm, NaN to 0; rounded to half), integer formats, a 3x3 box blur, a
 * read_write texture and a texture1d. Every expected texel is computed here in C from MSL's
 * conversion rules (MSL 7.7), never taken from lockstep.
 */
#include "texture_harness.h"

#include <math.h>

static uint64_t rng = 12345;

static uint32_t next32(void)
{
    return (uint32_t)(test_rng_next(&rng) >> 32);
}

static float u8_to_float(uint8_t c) { return (float)c / 255.0f; }

/* ---- Apple's grayscale sample ------------------------------------------------------------- */

static const char *const grayscale_metal =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void grayscaleKernel(texture2d<half, access::read> inTexture [[texture(0)]],\n"
    "                            texture2d<half, access::write> outTexture [[texture(1)]],\n"
    "                            uint2 gid [[thread_position_in_grid]])\n"
    "{\n"
    "    if (gid.x >= outTexture.get_width() || gid.y >= outTexture.get_height())\n"
    "        return;\n"
    "    half4 c = inTexture.read(gid);\n"
    "    half gray = dot(c.rgb, half3(0.2126, 0.7152, 0.0722));\n"
    "    outTexture.write(half4(gray, gray, gray, 1.0), gid);\n"
    "}\n";

/* float -> unorm8 as MSL Table 32 says: clamp f * 255 to [0, 255], round to nearest even;
 * NaN becomes 0 */
static uint8_t float_to_u8(float f)
{
    if (isnan(f))
        return 0;
    float x = fminf(fmaxf(f * 255.0f, 0.0f), 255.0f);
    return (uint8_t)rintf(x);
}

static void test_grayscale(void **state)
{
    (void)state;
    enum { W = 19, H = 9 };
    uint8_t in[W * H * 4], out[W * H * 4];
    for (int i = 0; i < W * H * 4; i++)
        in[i] = (uint8_t)next32();
    TexDir d;
    tex_dir_new(&d);
    tex_put_text(&d, "k.metal", grayscale_metal);
    tex_put(&d, "in.bin", in, sizeof in);
    /* a grid larger than the texture: the kernel's own bounds check returns */
    tex_put_text(&d, "k.yaml",
                 "kernel: k.metal\ngrid: [24, 16]\nthreadgroup: [8, 8]\nargs:\n"
                 "  inTexture: {type: texture2d, format: rgba8unorm, width: 19, height: 9,\n"
                 "              init: {file: in.bin}}\n"
                 "  outTexture: {type: texture2d, format: rgba8unorm, width: 19, height: 9,\n"
                 "               dump: out.bin}\n");
    tex_run_ok(&d, "k.yaml");
    tex_get(&d, "out.bin", out, sizeof out);
    /* half arithmetic, each operation rounded to half, in the order of dot's definition */
    const float k0 = tex_h(0.2126), k1 = tex_h(0.7152), k2 = tex_h(0.0722);
    int bad = 0;
    for (int t = 0; t < W * H; t++) {
        float r = tex_h(u8_to_float(in[4 * t])), g = tex_h(u8_to_float(in[4 * t + 1]));
        float b = tex_h(u8_to_float(in[4 * t + 2]));
        float p0 = tex_h((double)r * k0), p1 = tex_h((double)g * k1), p2 = tex_h((double)b * k2);
        float s = tex_h((double)p0 + p1);
        float gray = tex_h((double)s + p2);
        uint8_t want = float_to_u8((float)gray);
        const uint8_t *got = out + 4 * t;
        if (got[0] != want || got[1] != want || got[2] != want || got[3] != 255) {
            if (bad++ < 5)
                print_message("texel %d: got %u %u %u %u, want %u %u %u 255\n", t, got[0],
                              got[1], got[2], got[3], want, want, want);
        }
    }
    assert_int_equal(bad, 0);
    tex_dir_remove(&d);
}

/* ---- read() of every kind of format ------------------------------------------------------- */

static const char *const read_metal =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void k(texture2d<float, access::read> src [[texture(0)]],\n"
    "              device float4 *dst [[buffer(0)]], uint2 gid [[thread_position_in_grid]])\n"
    "{\n"
    "    dst[gid.y * src.get_width() + gid.x] = src.read(gid);\n"
    "}\n";

/* A finite half or float bit pattern (random bits with the exponent kept off all ones). */
static uint16_t finite_half(void)
{
    uint16_t h = (uint16_t)next32();
    return (h & 0x7c00) == 0x7c00 ? (uint16_t)(h & ~0x4000) : h;
}

static float finite_float(void)
{
    uint32_t u = next32();
    if ((u & 0x7f800000u) == 0x7f800000u)
        u &= ~0x40000000u;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void test_read_formats(void **state)
{
    (void)state;
    enum { W = 5, H = 3, N = W * H };
    static const struct {
        const char *format;
        int comps, scalar_bytes;
        char kind; /* u: unorm, h: half, f: float */
        bool bgra;
    } formats[] = {
        {"r8unorm", 1, 1, 'u', false},     {"rg8unorm", 2, 1, 'u', false},
        {"rgba8unorm", 4, 1, 'u', false},  {"bgra8unorm", 4, 1, 'u', true},
        {"r16unorm", 1, 2, 'u', false},    {"rgba16unorm", 4, 2, 'u', false},
        {"r16float", 1, 2, 'h', false},    {"rg16float", 2, 2, 'h', false},
        {"rgba16float", 4, 2, 'h', false}, {"r32float", 1, 4, 'f', false},
        {"rg32float", 2, 4, 'f', false},   {"rgba32float", 4, 4, 'f', false},
    };
    TexDir d;
    tex_dir_new(&d);
    tex_put_text(&d, "k.metal", read_metal);
    for (size_t fi = 0; fi < sizeof formats / sizeof formats[0]; fi++) {
        int comps = formats[fi].comps, sb = formats[fi].scalar_bytes;
        uint8_t in[N * 16];
        size_t bytes = (size_t)N * (size_t)comps * (size_t)sb;
        for (size_t k = 0; k < bytes / (size_t)sb; k++) {
            if (formats[fi].kind == 'u') {
                uint32_t v = next32();
                memcpy(in + k * (size_t)sb, &v, (size_t)sb);
            } else if (formats[fi].kind == 'h') {
                uint16_t h = finite_half();
                memcpy(in + k * 2, &h, 2);
            } else {
                float f = finite_float();
                memcpy(in + k * 4, &f, 4);
            }
        }
        tex_put(&d, "in.bin", in, bytes);
        char yaml[512];
        snprintf(yaml, sizeof yaml,
                 "kernel: k.metal\ngrid: [%d, %d]\nthreadgroup: [%d, %d]\nargs:\n"
                 "  src: {type: texture2d, format: %s, width: %d, height: %d,"
                 " init: {file: in.bin}}\n"
                 "  dst: {type: float4, count: %d, dump: out.bin}\n",
                 W, H, W, H, formats[fi].format, W, H, N);
        tex_put_text(&d, "k.yaml", yaml);
        tex_run_ok(&d, "k.yaml");
        float out[N * 4];
        tex_get(&d, "out.bin", out, sizeof out);
        for (int t = 0; t < N; t++) {
            float stored[4] = {0, 0, 0, 1};
            for (int c = 0; c < comps; c++) {
                const uint8_t *p = in + ((size_t)t * (size_t)comps + (size_t)c) * (size_t)sb;
                if (formats[fi].kind == 'u' && sb == 1) {
                    stored[c] = (float)p[0] / 255.0f;
                } else if (formats[fi].kind == 'u') {
                    uint16_t v;
                    memcpy(&v, p, 2);
                    stored[c] = (float)v / 65535.0f;
                } else if (formats[fi].kind == 'h') {
                    uint16_t v;
                    memcpy(&v, p, 2);
                    stored[c] = tex_h2f(v);
                } else {
                    memcpy(&stored[c], p, 4);
                }
            }
            float want[4] = {stored[0], stored[1], stored[2], stored[3]};
            if (formats[fi].bgra) /* stored blue, green, red, alpha */
                want[0] = stored[2], want[2] = stored[0];
            for (int c = 0; c < 4; c++)
                if (memcmp(&out[4 * t + c], &want[c], 4) != 0)
                    fail_msg("%s texel %d component %d: got %.9g, want %.9g",
                             formats[fi].format, t, c, (double)out[4 * t + c], (double)want[c]);
        }
    }
    tex_dir_remove(&d);
}

/* ---- write() of special values ------------------------------------------------------------ */

static const char *const write_metal =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void k(device const float4 *src [[buffer(0)]],\n"
    "              texture2d<float, access::write> dst [[texture(0)]],\n"
    "              uint2 gid [[thread_position_in_grid]])\n"
    "{\n"
    "    dst.write(src[gid.y * dst.get_width() + gid.x], gid);\n"
    "}\n";

static void test_write_formats(void **state)
{
    (void)state;
    enum { W = 8, H = 4, N = W * H };
    float in[N * 4];
    static const float special[] = {-1.0f, 0.0f, 1.0f, 2.0f, 0.5f, NAN, INFINITY, -INFINITY,
                                    2.5f / 255.0f, 3.5f / 255.0f, 0.5f / 255.0f, 1e-8f,
                                    65504.0f, 70000.0f, -0.0f, 0.99f};
    for (int k = 0; k < N * 4; k++)
        in[k] = k < (int)(sizeof special / sizeof special[0]) ? special[k]
                                                              : (float)(next32() % 2000) / 1000.0f - 0.5f;
    static const struct {
        const char *format;
        int comps;
        char kind;
        bool bgra;
    } formats[] = {
        {"r8unorm", 1, 'u', false}, {"rgba8unorm", 4, 'u', false}, {"bgra8unorm", 4, 'u', true},
        {"rg16unorm", 2, 'U', false}, {"rgba16float", 4, 'h', false}, {"r32float", 1, 'f', false},
        {"rg32float", 2, 'f', false},
    };
    TexDir d;
    tex_dir_new(&d);
    tex_put_text(&d, "k.metal", write_metal);
    tex_put(&d, "in.bin", in, sizeof in);
    for (size_t fi = 0; fi < sizeof formats / sizeof formats[0]; fi++) {
        char yaml[512];
        snprintf(yaml, sizeof yaml,
                 "kernel: k.metal\ngrid: [%d, %d]\nthreadgroup: [%d, %d]\nargs:\n"
                 "  src: {type: float4, count: %d, init: {file: in.bin}}\n"
                 "  dst: {type: texture2d, format: %s, width: %d, height: %d, dump: out.bin}\n",
                 W, H, W, H, N, formats[fi].format, W, H);
        tex_put_text(&d, "k.yaml", yaml);
        tex_run_ok(&d, "k.yaml");
        int comps = formats[fi].comps;
        int sb = formats[fi].kind == 'u' ? 1 : formats[fi].kind == 'f' ? 4 : 2;
        uint8_t out[N * 16], want[16];
        tex_get(&d, "out.bin", out, (size_t)N * (size_t)comps * (size_t)sb);
        for (int t = 0; t < N; t++) {
            for (int c = 0; c < comps; c++) {
                int from = formats[fi].bgra ? (c == 0 ? 2 : c == 2 ? 0 : c) : c;
                float f = in[4 * t + from];
                uint8_t *w = want + c * sb;
                if (formats[fi].kind == 'u') {
                    w[0] = float_to_u8(f);
                } else if (formats[fi].kind == 'U') {
                    uint16_t v = isnan(f) ? 0
                                          : (uint16_t)rintf(fminf(fmaxf(f * 65535.0f, 0.0f),
                                                                  65535.0f));
                    memcpy(w, &v, 2);
                } else if (formats[fi].kind == 'h') {
                    uint16_t h = tex_f2h(f);
                    memcpy(w, &h, 2);
                } else {
                    memcpy(w, &f, 4);
                }
            }
            const uint8_t *got = out + (size_t)t * (size_t)comps * (size_t)sb;
            bool nan_half = formats[fi].kind == 'h';
            for (int c = 0; c < comps; c++) {
                const uint8_t *g = got + c * sb, *w = want + c * sb;
                if (nan_half) { /* a NaN stays a NaN; its payload is the implementation's */
                    uint16_t gv, wv;
                    memcpy(&gv, g, 2);
                    memcpy(&wv, w, 2);
                    if ((wv & 0x7fff) > 0x7c00 && (gv & 0x7fff) > 0x7c00)
                        continue;
                }
                if (memcmp(g, w, (size_t)sb) != 0)
                    fail_msg("%s texel %d component %d (from %.9g): wrong bytes",
                             formats[fi].format, t, c,
                             (double)in[4 * t + (formats[fi].bgra && c != 1 && c != 3 ? 2 - c : c)]);
            }
        }
    }
    tex_dir_remove(&d);
}

/* ---- integer formats ----------------------------------------------------------------------- */

static void test_integer_formats(void **state)
{
    (void)state;
    enum { W = 4, H = 2, N = W * H };
    TexDir d;
    tex_dir_new(&d);
    /* uint: read r8uint (g, b 0 and alpha 1) and write rgba8uint (saturated, MSL Table 33) */
    tex_put_text(&d, "u.metal",
                 "#include <metal_stdlib>\nusing namespace metal;\n"
                 "kernel void k(texture2d<uint, access::read> src [[texture(0)]],\n"
                 "              texture2d<uint, access::write> dst [[texture(1)]],\n"
                 "              device uint4 *seen [[buffer(0)]],\n"
                 "              uint2 gid [[thread_position_in_grid]]) {\n"
                 "    uint4 v = src.read(gid);\n"
                 "    seen[gid.y * 4 + gid.x] = v;\n"
                 "    dst.write(uint4(v.x * 3u, v.x + 300u, v.w, 7u), gid);\n"
                 "}\n");
    uint8_t src[N];
    for (int i = 0; i < N; i++)
        src[i] = (uint8_t)next32();
    tex_put(&d, "src.bin", src, sizeof src);
    tex_put_text(&d, "u.yaml",
                 "kernel: u.metal\ngrid: [4, 2]\nthreadgroup: [4, 2]\nargs:\n"
                 "  src: {type: texture2d, format: r8uint, width: 4, height: 2, "
                 "init: {file: src.bin}}\n"
                 "  dst: {type: texture2d, format: rgba8uint, width: 4, height: 2, "
                 "dump: dst.bin}\n"
                 "  seen: {count: 8, dump: seen.bin}\n");
    tex_run_ok(&d, "u.yaml");
    uint32_t seen[N * 4];
    uint8_t dst[N * 4];
    tex_get(&d, "seen.bin", seen, sizeof seen);
    tex_get(&d, "dst.bin", dst, sizeof dst);
    for (int t = 0; t < N; t++) {
        assert_int_equal(seen[4 * t], src[t]);
        assert_int_equal(seen[4 * t + 1], 0);
        assert_int_equal(seen[4 * t + 2], 0);
        assert_int_equal(seen[4 * t + 3], 1);
        assert_int_equal(dst[4 * t], src[t] * 3u > 255u ? 255u : src[t] * 3u);
        assert_int_equal(dst[4 * t + 1], 255); /* src + 300 > 255 */
        assert_int_equal(dst[4 * t + 2], 1);
        assert_int_equal(dst[4 * t + 3], 7);
    }
    /* int: r16sint read sign-extended, written to rg32sint */
    tex_put_text(&d, "i.metal",
                 "#include <metal_stdlib>\nusing namespace metal;\n"
                 "kernel void k(texture2d<int, access::read> src [[texture(0)]],\n"
                 "              texture2d<int, access::write> dst [[texture(1)]],\n"
                 "              uint2 gid [[thread_position_in_grid]]) {\n"
                 "    int4 v = src.read(gid);\n"
                 "    dst.write(int4(v.x - 5, v.w, v.y, 0), gid);\n"
                 "}\n");
    int16_t s16[N];
    for (int i = 0; i < N; i++)
        s16[i] = (int16_t)next32();
    s16[0] = -32768;
    tex_put(&d, "s16.bin", s16, sizeof s16);
    tex_put_text(&d, "i.yaml",
                 "kernel: i.metal\ngrid: [4, 2]\nthreadgroup: [4, 2]\nargs:\n"
                 "  src: {type: texture2d, format: r16sint, width: 4, height: 2, "
                 "init: {file: s16.bin}}\n"
                 "  dst: {type: texture2d, format: rg32sint, width: 4, height: 2, "
                 "dump: dst.bin}\n");
    tex_run_ok(&d, "i.yaml");
    int32_t out[N * 2];
    tex_get(&d, "dst.bin", out, sizeof out);
    for (int t = 0; t < N; t++) {
        assert_int_equal(out[2 * t], (int32_t)s16[t] - 5);
        assert_int_equal(out[2 * t + 1], 1);
    }
    /* int to rgba8sint: each component saturated to -128..127 (MSL Table 33) */
    tex_put_text(&d, "s.metal",
                 "#include <metal_stdlib>\nusing namespace metal;\n"
                 "kernel void k(texture2d<int, access::read> src [[texture(0)]],\n"
                 "              texture2d<int, access::write> dst [[texture(1)]],\n"
                 "              uint2 gid [[thread_position_in_grid]]) {\n"
                 "    int4 v = src.read(gid);\n"
                 "    dst.write(int4(v.x, -v.x, 300, -200), gid);\n"
                 "}\n");
    tex_put_text(&d, "s.yaml",
                 "kernel: s.metal\ngrid: [4, 2]\nthreadgroup: [4, 2]\nargs:\n"
                 "  src: {type: texture2d, format: r16sint, width: 4, height: 2, "
                 "init: {file: s16.bin}}\n"
                 "  dst: {type: texture2d, format: rgba8sint, width: 4, height: 2, "
                 "dump: dst8.bin}\n");
    tex_run_ok(&d, "s.yaml");
    int8_t s8[N * 4];
    tex_get(&d, "dst8.bin", s8, sizeof s8);
    for (int t = 0; t < N; t++) {
        const int32_t v = s16[t], want[4] = {v, -v, 300, -200};
        for (int c = 0; c < 4; c++)
            assert_int_equal(s8[4 * t + c], want[c] > 127 ? 127 : want[c] < -128 ? -128 : want[c]);
    }
    tex_dir_remove(&d);
}

/* ---- a box blur, a read_write texture, a texture1d ----------------------------------------- */

static void test_box_blur(void **state)
{
    (void)state;
    enum { W = 13, H = 7 };
    float in[W * H], out[W * H];
    for (int i = 0; i < W * H; i++)
        in[i] = (float)(next32() % 1000) / 64.0f;
    TexDir d;
    tex_dir_new(&d);
    tex_put_text(&d, "blur.metal",
                 "#include <metal_stdlib>\nusing namespace metal;\n"
                 "kernel void blur(texture2d<float, access::read> src [[texture(0)]],\n"
                 "                 texture2d<float, access::write> dst [[texture(1)]],\n"
                 "                 uint2 gid [[thread_position_in_grid]]) {\n"
                 "    int w = int(src.get_width()), h = int(src.get_height());\n"
                 "    if (int(gid.x) >= w || int(gid.y) >= h) return;\n"
                 "    float sum = 0.0f;\n"
                 "    for (int dy = -1; dy <= 1; dy++)\n"
                 "        for (int dx = -1; dx <= 1; dx++) {\n"
                 "            int x = clamp(int(gid.x) + dx, 0, w - 1);\n"
                 "            int y = clamp(int(gid.y) + dy, 0, h - 1);\n"
                 "            sum += src.read(uint2(x, y)).r;\n"
                 "        }\n"
                 "    dst.write(float4(sum / 9.0f), gid);\n"
                 "}\n");
    tex_put(&d, "in.bin", in, sizeof in);
    tex_put_text(&d, "blur.yaml",
                 "kernel: blur.metal\ngrid: [16, 8]\nthreadgroup: [8, 8]\nargs:\n"
                 "  src: {type: texture2d, format: r32float, width: 13, height: 7, "
                 "init: {file: in.bin}}\n"
                 "  dst: {type: texture2d, format: r32float, width: 13, height: 7, "
                 "dump: out.bin}\n");
    tex_run_ok(&d, "blur.yaml");
    tex_get(&d, "out.bin", out, sizeof out);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float sum = 0.0f;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int sx = x + dx < 0 ? 0 : x + dx > W - 1 ? W - 1 : x + dx;
                    int sy = y + dy < 0 ? 0 : y + dy > H - 1 ? H - 1 : y + dy;
                    sum += in[sy * W + sx];
                }
            float want = sum / 9.0f;
            if (memcmp(&out[y * W + x], &want, 4) != 0)
                fail_msg("blur (%d, %d): got %.9g, want %.9g", x, y, (double)out[y * W + x],
                         (double)want);
        }
    tex_dir_remove(&d);
}

static void test_read_write_and_1d(void **state)
{
    (void)state;
    enum { W = 6, H = 5, N = W * H };
    uint16_t in[N * 4], out[N * 4];
    for (int i = 0; i < N * 4; i++)
        in[i] = (uint16_t)(finite_half() & 0x7bff); /* below 32768: 2x + 1 stays finite */
    TexDir d;
    tex_dir_new(&d);
    tex_put_text(&d, "rw.metal",
                 "#include <metal_stdlib>\nusing namespace metal;\n"
                 "kernel void rw(texture2d<float, access::read_write> t [[texture(0)]],\n"
                 "               uint2 gid [[thread_position_in_grid]]) {\n"
                 "    float4 v = t.read(gid);\n"
                 "    t.fence();\n"
                 "    t.write(v * 2.0f + 1.0f, gid);\n"
                 "}\n"
                 "kernel void line(texture1d<float, access::read> a [[texture(0)]],\n"
                 "                 texture1d<half, access::write> b [[texture(1)]],\n"
                 "                 uint i [[thread_position_in_grid]]) {\n"
                 "    if (i < b.get_width()) b.write(half4(a.read(a.get_width() - 1 - i)), i);\n"
                 "}\n");
    tex_put(&d, "in.bin", in, sizeof in);
    tex_put_text(&d, "rw.yaml",
                 "kernel: rw.metal\nentry: rw\ngrid: [6, 5]\nthreadgroup: [6, 5]\nargs:\n"
                 "  t: {type: texture2d, format: rgba16float, width: 6, height: 5, "
                 "init: {file: in.bin}, dump: out.bin}\n");
    tex_run_ok(&d, "rw.yaml");
    tex_get(&d, "out.bin", out, sizeof out);
    for (int k = 0; k < N * 4; k++) {
        uint16_t wb = tex_f2h(tex_h2f(in[k]) * 2.0f + 1.0f);
        if (out[k] != wb)
            fail_msg("read_write texel component %d: got 0x%04x, want 0x%04x", k, out[k], wb);
    }
    /* texture1d: a reversed copy from r32float into rgba16float (g, b 0, alpha 1) */
    float line[10];
    for (int i = 0; i < 10; i++)
        line[i] = (float)i * 0.3f - 1.0f;
    tex_put(&d, "line.bin", line, sizeof line);
    tex_put_text(&d, "line.yaml",
                 "kernel: rw.metal\nentry: line\ngrid: [16]\nthreadgroup: [16]\nargs:\n"
                 "  a: {type: texture1d, format: r32float, width: 10, init: {file: line.bin}}\n"
                 "  b: {type: texture1d, format: rgba16float, width: 10, dump: b.bin}\n");
    tex_run_ok(&d, "line.yaml");
    uint16_t b[40];
    tex_get(&d, "b.bin", b, sizeof b);
    for (int i = 0; i < 10; i++) {
        uint16_t want[4] = {tex_f2h(line[9 - i]), 0, 0, 0x3c00};
        if (memcmp(&b[4 * i], want, 8) != 0)
            fail_msg("texture1d texel %d wrong", i);
    }
    tex_dir_remove(&d);
}

/* ---- what the compiler refuses, each at its line and column ------------------------------ */

static const TexBad bad_kernels[] = {
    {"kernel void k(texture2d<float, access::read> t [[texture(0)]], uint2 g "
     "[[thread_position_in_grid]]) { t.write(float4(1), g); }",
     "e.metal:3:105: error: ", "write() needs a texture with access::write or read_write"},
    {"kernel void k(texture2d<float, access::write> t [[texture(0)]], device float4 *o "
     "[[buffer(0)]], uint2 g [[thread_position_in_grid]]) { o[0] = t.read(g); }",
     "e.metal:3:145: error: ", "read() needs a texture with access::read, read_write or sample"},
    {"kernel void k(texture2d<float> t [[texture(0)]], device float4 *o [[buffer(0)]], uint2 g "
     "[[thread_position_in_grid]]) { o[0] = t.read(g, 1); }",
     "e.metal:3:138: error: ", "one mipmap level: the lod must be 0"},
    {"kernel void k(texture2d<float, access::read> t [[texture(0)]], device float4 *o "
     "[[buffer(0)]], uint2 g [[thread_position_in_grid]]) { texture2d<float, access::read> u = "
     "t; o[0] = u.read(g); }",
     "e.metal:3:182: error: ", "the pixel format of this texture is unknown"},
    {"kernel void k(texture2d_array<float> t [[texture(0)]]) { }", "e.metal:3:15: error: ",
     "this texture type is not supported yet (texture1d and texture2d are)"},
    {"kernel void k(device float *o [[texture(0)]]) { }", "e.metal:3:29: error: ",
     "[[texture(n)]] belongs to texture parameters"},
    {"kernel void k(texture2d<float> a [[texture(0)]], texture2d<float> b [[texture(0)]]) { }",
     "e.metal:3:67: error: ", "'a' and 'b' have the same texture index 0"},
    {"kernel void k(texture2d<char> a [[texture(0)]]) { }", "e.metal:3:25: error: ",
     "a texture's type is float, half, int or uint, not 'char'"},
    {"kernel void k(texture2d<float> t [[texture(0)]], device float4 *o [[buffer(0)]], uint2 g "
     "[[thread_position_in_grid]]) { o[0] = t.read(float2(g)); }",
     "e.metal:3:135: error: ", "read() takes the texel's coordinate as a uint2, not 'float2'"},
    {"kernel void k(texture2d<float> t [[texture(0)]], device float4 *o [[buffer(0)]], uint2 g "
     "[[thread_position_in_grid]]) { o[0] = t.read(long2(g)); }",
     "e.metal:3:135: error: ", "read() takes the texel's coordinate as a uint2, not 'long2'"},
    {"kernel void k(texture2d<float, access::write> t [[texture(0)]], uint2 g "
     "[[thread_position_in_grid]]) { t.write(float3(1), g); }",
     "e.metal:3:112: error: ", "write() takes a 4-component color ('float4'), not 'float3'"},
    {"kernel void k(texture2d<float> t [[texture(0)]], device float *o [[buffer(0)]]) { o[0] = "
     "t.get_depth(); }",
     "e.metal:3:92: error: ", "'get_depth' is not a member lockstep supports"},
    {"kernel void k(texture2d<float> t [[texture(0)]], device float *o [[buffer(0)]]) { o[0] = "
     "t.__w; }",
     "e.metal:3:92: error: ", "expected '(' after '__w'"},
};

static void test_errors(void **state)
{
    (void)state;
    TexDir d;
    tex_dir_new(&d);
    int failures =
        tex_compile_errors(&d, bad_kernels, sizeof bad_kernels / sizeof bad_kernels[0]);
    /* a format the texture's type cannot read: the kernel's argument is named */
    tex_put_text(&d, "k.metal", grayscale_metal);
    tex_put_text(&d, "k.yaml",
                 "kernel: k.metal\ngrid: [4, 4]\nthreadgroup: [4, 4]\nargs:\n"
                 "  inTexture: {type: texture2d, format: r32uint, width: 4, height: 4}\n"
                 "  outTexture: {type: texture2d, format: rgba8unorm, width: 4, height: 4}\n");
    char *out = NULL;
    int status = tex_lockstep(&d, "run", "k.yaml", &out);
    if (status != 2 || !strstr(out, "k.metal:3:59: error: texture 'inTexture' is a "
                                    "'texture2d<half, access::read>', whose format must hold "
                                    "floats or unorms (rgba8unorm, ...); the manifest gives it "
                                    "format r32uint")) {
        print_message("format mismatch: exit %d:\n%s\n", status, out);
        failures++;
    }
    free(out);
    tex_dir_remove(&d);
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grayscale),
        cmocka_unit_test(test_read_formats),
        cmocka_unit_test(test_write_formats),
        cmocka_unit_test(test_integer_formats),
        cmocka_unit_test(test_box_blur),
        cmocka_unit_test(test_read_write_and_1d),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
