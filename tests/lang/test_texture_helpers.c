/*
 * test_texture_helpers.c — textures and samplers passed to helper functions, run as a user
 * runs them (a kernel, a manifest and raw texels in a temporary folder): a helper reading
 * one texture called with textures of two formats (rgba8unorm and r32float) in one kernel,
 * a helper handing its texture on to another, a helper writing one, a bilinear helper
 * taking a texture and a sampler called with two samplers, a function template (its
 * argument given or deduced from the texture) and overloads taking textures, the forms
 * still refused (messages at file:line), and `lockstep check` naming the helper's line and
 * the call of an out-of-bounds read made through a helper. Every expected texel is
 * computed here in C from MSL's conversion rules (MSL 7.7) and the definition of
 * filtering, never taken from lockstep.
 */
#include "texture_harness.h"

#include <math.h>

static uint64_t rng = 4242;

static uint32_t next32(void)
{
    return (uint32_t)(test_rng_next(&rng) >> 32);
}

static void expect_in(const char *out, const char *text, const char *what)
{
    if (!strstr(out, text))
        fail_msg("%s: expected `%s` in:\n%s", what, text, out);
}

static void expect_float4(const float *got, const float *want, const char *what, int x, int y)
{
    for (int k = 0; k < 4; k++)
        if (!(fabsf(got[k] - want[k]) <= 1e-5f * fmaxf(1.0f, fabsf(want[k]))))
            fail_msg("%s at (%d, %d) component %d: got %.9g, want %.9g", what, x, y, k,
                     (double)got[k], (double)want[k]);
}

/* ---- one helper, two formats; a helper calling a helper --------------------------------- */

static const char *const read_metal =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "float4 fetch(texture2d<float, access::read> t, uint2 p) { return t.read(p); }\n"
    "float4 twice(texture2d<float, access::read> t, uint2 p) { return 2.0f * fetch(t, p); }\n"
    "kernel void k(texture2d<float, access::read> a [[texture(0)]],\n"
    "              texture2d<float, access::read> b [[texture(1)]],\n"
    "              texture2d<float, access::write> da [[texture(2)]],\n"
    "              texture2d<float, access::write> db [[texture(3)]],\n"
    "              texture2d<float, access::write> dc [[texture(4)]],\n"
    "              uint2 gid [[thread_position_in_grid]]) {\n"
    "    da.write(fetch(a, gid), gid);\n"
    "    db.write(fetch(b, gid), gid);\n"
    "    dc.write(twice(b, gid) + twice(a, gid), gid);\n"
    "}\n";

static void test_two_formats(void **state)
{
    (void)state;
    enum { W = 6, H = 5 };
    uint8_t a[W * H * 4];
    float b[W * H];
    for (int i = 0; i < W * H * 4; i++)
        a[i] = (uint8_t)next32();
    for (int i = 0; i < W * H; i++)
        b[i] = (float)(int)(next32() % 20000 - 10000) / 128.0f;
    TexDir d;
    tex_dir_new(&d);
    tex_put_text(&d, "k.metal", read_metal);
    tex_put(&d, "a.bin", a, sizeof a);
    tex_put(&d, "b.bin", b, sizeof b);
    tex_put_text(&d, "k.yaml",
                 "kernel: k.metal\ngrid: [6, 5]\nthreadgroup: [6, 5]\nargs:\n"
                 "  a: {type: texture2d, format: rgba8unorm, width: 6, height: 5, "
                 "init: {file: a.bin}}\n"
                 "  b: {type: texture2d, format: r32float, width: 6, height: 5, "
                 "init: {file: b.bin}}\n"
                 "  da: {type: texture2d, format: rgba32float, width: 6, height: 5, "
                 "dump: da.bin}\n"
                 "  db: {type: texture2d, format: rgba32float, width: 6, height: 5, "
                 "dump: db.bin}\n"
                 "  dc: {type: texture2d, format: rgba32float, width: 6, height: 5, "
                 "dump: dc.bin}\n");
    tex_run_ok(&d, "k.yaml");
    float da[W * H * 4], db[W * H * 4], dc[W * H * 4];
    tex_get(&d, "da.bin", da, sizeof da);
    tex_get(&d, "db.bin", db, sizeof db);
    tex_get(&d, "dc.bin", dc, sizeof dc);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int t = y * W + x;
            float wa[4], wb[4] = {b[t], 0.0f, 0.0f, 1.0f}, wc[4];
            for (int k = 0; k < 4; k++)
                wa[k] = (float)a[4 * t + k] / 255.0f; /* unorm: c / 255 */
            for (int k = 0; k < 4; k++)
                wc[k] = 2.0f * wb[k] + 2.0f * wa[k];
            expect_float4(da + 4 * t, wa, "fetch(a) (rgba8unorm)", x, y);
            expect_float4(db + 4 * t, wb, "fetch(b) (r32float)", x, y);
            expect_float4(dc + 4 * t, wc, "twice(b) + twice(a)", x, y);
        }
    tex_dir_remove(&d);
}

/* ---- a helper writing ----------------------------------------------------------------------- */

static uint8_t float_to_u8(float f) /* MSL Table 32: clamp(f * 255), round to nearest even */
{
    float v = fminf(fmaxf(f * 255.0f, 0.0f), 255.0f);
    return (uint8_t)rintf(v);
}

static void test_write_helper(void **state)
{
    (void)state;
    enum { W = 7, H = 3 };
    TexDir d;
    tex_dir_new(&d);
    tex_put_text(&d, "w.metal",
                 "#include <metal_stdlib>\nusing namespace metal;\n"
                 "void put(texture2d<half, access::write> dst, uint2 p, half4 c) {\n"
                 "    dst.write(c, p);\n"
                 "}\n"
                 "kernel void w(texture2d<half, access::write> out [[texture(0)]],\n"
                 "              uint2 gid [[thread_position_in_grid]]) {\n"
                 "    put(out, gid, half4(half(gid.x) / 6.0h, half(gid.y) / 3.0h, 0.3h, 1.0h));\n"
                 "}\n");
    tex_put_text(&d, "w.yaml",
                 "kernel: w.metal\ngrid: [7, 3]\nthreadgroup: [7, 3]\nargs:\n"
                 "  out: {type: texture2d, format: rgba8unorm, width: 7, height: 3, "
                 "dump: out.bin}\n");
    tex_run_ok(&d, "w.yaml");
    uint8_t out[W * H * 4];
    tex_get(&d, "out.bin", out, sizeof out);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float c[4] = {tex_h(x / 6.0), tex_h(y / 3.0), tex_h(0.3f), 1.0f};
            for (int k = 0; k < 4; k++) {
                uint8_t want = float_to_u8((float)c[k]);
                if (out[4 * (y * W + x) + k] != want)
                    fail_msg("put at (%d, %d) component %d: got %u, want %u", x, y, k,
                             out[4 * (y * W + x) + k], want);
            }
        }
    tex_dir_remove(&d);
}

/* ---- a bilinear helper taking a texture and a sampler --------------------------------------- */

/* clamp_to_edge or repeat, per the definition of texture addressing */
static int ref_address(bool repeat, int i, int n)
{
    if (repeat)
        return ((i % n) + n) % n;
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/* tex: w x h float4 texels; linear or nearest filtering at normalized (u, v) */
static void ref_sample(const float *tex, int w, int h, bool linear, bool repeat, float u, float v,
                       float out[4])
{
    float px = u * (float)w, py = v * (float)h;
    if (!linear) {
        int x = ref_address(repeat, (int)floorf(px), w);
        int y = ref_address(repeat, (int)floorf(py), h);
        memcpy(out, tex + 4 * (y * w + x), 4 * sizeof *out);
        return;
    }
    px -= 0.5f, py -= 0.5f;
    int x0 = (int)floorf(px), y0 = (int)floorf(py);
    double fa = px - (float)x0, fb = py - (float)y0;
    int xs[2] = {ref_address(repeat, x0, w), ref_address(repeat, x0 + 1, w)};
    int ys[2] = {ref_address(repeat, y0, h), ref_address(repeat, y0 + 1, h)};
    for (int c = 0; c < 4; c++)
        out[c] = (float)((1 - fa) * (1 - fb) * tex[4 * (ys[0] * w + xs[0]) + c] +
                         fa * (1 - fb) * tex[4 * (ys[0] * w + xs[1]) + c] +
                         (1 - fa) * fb * tex[4 * (ys[1] * w + xs[0]) + c] +
                         fa * fb * tex[4 * (ys[1] * w + xs[1]) + c]);
}

static void test_sampler_helper(void **state)
{
    (void)state;
    enum { W = 5, H = 4, DW = 9, DH = 7 };
    uint8_t in[W * H * 4];
    float tex[W * H * 4];
    for (int i = 0; i < W * H * 4; i++) {
        in[i] = (uint8_t)next32();
        tex[i] = (float)in[i] / 255.0f;
    }
    TexDir d;
    tex_dir_new(&d);
    /* texture2d<float> with no access qualifier: access::sample, MSL's default */
    tex_put_text(&d, "s.metal",
                 "#include <metal_stdlib>\nusing namespace metal;\n"
                 "float4 bilinear(texture2d<float> src, sampler s, float2 uv) {\n"
                 "    return src.sample(s, uv);\n"
                 "}\n"
                 "constexpr sampler wrap(address::repeat, filter::nearest);\n"
                 "kernel void s(texture2d<float> src [[texture(0)]],\n"
                 "              texture2d<float, access::write> lin [[texture(1)]],\n"
                 "              texture2d<float, access::write> near [[texture(2)]],\n"
                 "              uint2 gid [[thread_position_in_grid]]) {\n"
                 "    constexpr sampler smooth(coord::normalized, address::clamp_to_edge,\n"
                 "                             filter::linear);\n"
                 "    float2 size = float2(lin.get_width(), lin.get_height());\n"
                 "    float2 uv = (float2(gid) + 0.5f) / size;\n"
                 "    lin.write(bilinear(src, smooth, uv), gid);\n"
                 "    near.write(bilinear(src, wrap, uv * 1.7f - 0.4f), gid);\n"
                 "}\n");
    tex_put(&d, "in.bin", in, sizeof in);
    tex_put_text(&d, "s.yaml",
                 "kernel: s.metal\ngrid: [9, 7]\nthreadgroup: [9, 7]\nargs:\n"
                 "  src: {type: texture2d, format: rgba8unorm, width: 5, height: 4, "
                 "init: {file: in.bin}}\n"
                 "  lin: {type: texture2d, format: rgba32float, width: 9, height: 7, "
                 "dump: lin.bin}\n"
                 "  near: {type: texture2d, format: rgba32float, width: 9, height: 7, "
                 "dump: near.bin}\n");
    tex_run_ok(&d, "s.yaml");
    float lin[DW * DH * 4], near[DW * DH * 4];
    tex_get(&d, "lin.bin", lin, sizeof lin);
    tex_get(&d, "near.bin", near, sizeof near);
    for (int y = 0; y < DH; y++)
        for (int x = 0; x < DW; x++) {
            float u = ((float)x + 0.5f) / (float)DW, v = ((float)y + 0.5f) / (float)DH;
            float want[4];
            ref_sample(tex, W, H, true, false, u, v, want);
            expect_float4(lin + 4 * (y * DW + x), want, "bilinear(src, smooth)", x, y);
            ref_sample(tex, W, H, false, true, u * 1.7f - 0.4f, v * 1.7f - 0.4f, want);
            expect_float4(near + 4 * (y * DW + x), want, "bilinear(src, wrap)", x, y);
        }
    tex_dir_remove(&d);
}

/* ---- a function template and overloads taking textures ------------------------------------- */

static void test_template_and_overloads(void **state)
{
    (void)state;
    enum { W = 4, H = 3 };
    float a[W * H];
    uint16_t h[W * H * 4];
    for (int i = 0; i < W * H; i++)
        a[i] = (float)(int)(next32() % 2000) / 16.0f;
    for (int i = 0; i < W * H * 4; i++)
        h[i] = (uint16_t)(0x3000 + next32() % 0x1000); /* finite halves in [0.125, 0.5) */
    TexDir d;
    tex_dir_new(&d);
    tex_put_text(&d, "t.metal",
                 "#include <metal_stdlib>\nusing namespace metal;\n"
                 "template <typename T>\n"
                 "vec<T, 4> get(texture2d<T, access::read> t, uint2 p) { return t.read(p); }\n"
                 "void put(texture2d<float, access::write> t, uint2 p, float4 c) {\n"
                 "    t.write(c + 1.0f, p); }\n"
                 "void put(texture2d<half, access::write> t, uint2 p, half4 c) {\n"
                 "    t.write(c * 2.0h, p); }\n"
                 "kernel void t(texture2d<float, access::read> a [[texture(0)]],\n"
                 "              texture2d<half, access::read> h [[texture(1)]],\n"
                 "              texture2d<float, access::write> oa [[texture(2)]],\n"
                 "              texture2d<half, access::write> oh [[texture(3)]],\n"
                 "              uint2 gid [[thread_position_in_grid]]) {\n"
                 "    put(oa, gid, get<float>(a, gid));\n"
                 "    put(oh, gid, get(h, gid));\n" /* T deduced from the texture: half */
                 "}\n");
    tex_put(&d, "a.bin", a, sizeof a);
    tex_put(&d, "h.bin", h, sizeof h);
    tex_put_text(&d, "t.yaml",
                 "kernel: t.metal\ngrid: [4, 3]\nthreadgroup: [4, 3]\nargs:\n"
                 "  a: {type: texture2d, format: r32float, width: 4, height: 3, "
                 "init: {file: a.bin}}\n"
                 "  h: {type: texture2d, format: rgba16float, width: 4, height: 3, "
                 "init: {file: h.bin}}\n"
                 "  oa: {type: texture2d, format: rgba32float, width: 4, height: 3, "
                 "dump: oa.bin}\n"
                 "  oh: {type: texture2d, format: rgba16float, width: 4, height: 3, "
                 "dump: oh.bin}\n");
    tex_run_ok(&d, "t.yaml");
    float oa[W * H * 4];
    uint16_t oh[W * H * 4];
    tex_get(&d, "oa.bin", oa, sizeof oa);
    tex_get(&d, "oh.bin", oh, sizeof oh);
    for (int t = 0; t < W * H; t++) {
        float want[4] = {a[t] + 1.0f, 1.0f, 1.0f, 2.0f}; /* r32float reads (r, 0, 0, 1) */
        expect_float4(oa + 4 * t, want, "put(oa, get<float>(a))", t % W, t / W);
        for (int k = 0; k < 4; k++) {
            uint16_t in, out;
            memcpy(&in, &h[4 * t + k], 2);
            memcpy(&out, &oh[4 * t + k], 2);
            const float want2 = tex_h(tex_h2f(in) * 2.0);
            if (tex_h2f(out) != want2)
                fail_msg("put(oh, get(h)) texel %d component %d: got %g, want %g", t, k,
                         (double)tex_h2f(out), (double)want2);
        }
    }
    tex_dir_remove(&d);
}

/* ---- the refused forms ---------------------------------------------------------------------- */

static const TexBad bad_kernels[] = {
    /* a texture returned from a function */
    {"texture2d<float> pick(texture2d<float> a) { return a; }\n"
     "kernel void k(texture2d<float> t [[texture(0)]], device float4 *o [[buffer(0)]]) {\n"
     "    o[0] = pick(t).read(uint2(0)); }",
     "e.metal:3:18: error: ", "'pick' returns a texture"},
    /* a texture in a struct */
    {"struct S { texture2d<float, access::read> t; };\n"
     "kernel void k(texture2d<float, access::read> t [[texture(0)]],\n"
     "              device float4 *o [[buffer(0)]]) {\n"
     "    S s{t}; o[0] = s.t.read(uint2(0)); }",
     "e.metal:6:24: error: ", "the pixel format of this texture is unknown"},
    /* an array of textures */
    {"kernel void k(array<texture2d<float>, 2> t [[texture(0)]]) { }",
     "e.metal:3:15: error: ", "array<T, N> and argument buffers are not supported yet"},
    /* a texture copied to a variable, then passed to a helper */
    {"float4 f(texture2d<float, access::read> t) { return t.read(uint2(0)); }\n"
     "kernel void k(texture2d<float, access::read> t [[texture(0)]],\n"
     "              device float4 *o [[buffer(0)]]) {\n"
     "    texture2d<float, access::read> u = t; o[0] = f(u); }",
     "e.metal:6:52: error: ", "the pixel format of this texture is unknown"},
    /* a texture by reference */
    {"float4 f(thread texture2d<float, access::read> &t) { return t.read(uint2(0)); }\n"
     "kernel void k(device float4 *o [[buffer(0)]]) { }",
     "e.metal:3:49: error: ", "lockstep passes textures and samplers to helpers by value only"},
    /* declared, called, and defined after the call */
    {"float4 f(texture2d<float, access::read> t);\n"
     "kernel void k(texture2d<float, access::read> t [[texture(0)]],\n"
     "              device float4 *o [[buffer(0)]]) { o[0] = f(t); }\n"
     "float4 f(texture2d<float, access::read> t) { return t.read(uint2(0)); }",
     "e.metal:5:56: error: ", "'f' takes a texture or sampler, and lockstep compiles"},
    /* a texture of another access than the parameter's */
    {"float4 f(texture2d<float, access::read> t) { return t.read(uint2(0)); }\n"
     "kernel void k(texture2d<float, access::write> t [[texture(0)]],\n"
     "              device float4 *o [[buffer(0)]]) { o[0] = f(t); }",
     "e.metal:5:58: error: ", "cannot pass 'texture2d<float, access::write>' to parameter 't'"},
    /* T deduced from two textures of different types */
    {"template <typename T> void mix2(texture2d<T, access::read> x, texture2d<T, access::read> y)"
     " { }\n"
     "kernel void k(texture2d<float, access::read> a [[texture(0)]],\n"
     "              texture2d<half, access::read> b [[texture(1)]]) { mix2(a, b); }",
     "e.metal:5:65: error: ", "conflicting types for template parameter 'T' of 'mix2': 'float' "
     "and 'half'"},
    /* a member function taking a texture */
    {"struct R { float4 get(texture2d<float, access::read> t) { return t.read(uint2(0)); } };\n"
     "kernel void k(texture2d<float, access::read> t [[texture(0)]],\n"
     "              device float4 *o [[buffer(0)]]) { R r; o[0] = r.get(t); }",
     "e.metal:3:68: error: ", "texture parameters of member functions are not supported yet"},
    /* a texture parameter given no argument */
    {"float4 f(uint2 p, texture2d<float, access::read> t) { return t.read(p); }\n"
     "kernel void k(texture2d<float, access::read> t [[texture(0)]],\n"
     "              device float4 *o [[buffer(0)]], uint2 g [[thread_position_in_grid]]) {"
     " o[0] = f(g); }",
     "e.metal:5:93: error: ", "too few arguments to 'f': parameter 't' is a texture"},
    /* a helper calling itself with the texture */
    {"float4 f(texture2d<float, access::read> t, uint n) {\n"
     "    return n == 0 ? t.read(uint2(0)) : f(t, n - 1); }\n"
     "kernel void k(texture2d<float, access::read> t [[texture(0)]],\n"
     "              device float4 *o [[buffer(0)]]) { o[0] = f(t, 3); }",
     "e.metal:4:40: error: ", "recursive call to 'f'"},
};

static void test_errors(void **state)
{
    (void)state;
    TexDir d;
    tex_dir_new(&d);
    int failures =
        tex_compile_errors(&d, bad_kernels, sizeof bad_kernels / sizeof bad_kernels[0]);
    tex_dir_remove(&d);
    assert_int_equal(failures, 0);
}

/* ---- lockstep check through a helper -------------------------------------------------------- */

static void test_check_in_helper(void **state)
{
    (void)state;
    TexDir d;
    tex_dir_new(&d);
    tex_put_text(&d, "oob.metal",
                 "#include <metal_stdlib>\nusing namespace metal;\n"
                 "float4 right(texture2d<float, access::read> t, uint2 p) {\n"
                 "    return t.read(uint2(p.x + 1, p.y));\n" /* line 4: x = width on row 0 */
                 "}\n"
                 "kernel void k(texture2d<float, access::read> src [[texture(0)]],\n"
                 "              device float4 *o [[buffer(0)]],\n"
                 "              uint2 gid [[thread_position_in_grid]]) {\n"
                 "    o[gid.x] = right(src, gid);\n" /* line 9 */
                 "}\n");
    tex_put_text(&d, "oob.yaml",
                 "kernel: oob.metal\ngrid: [4, 1]\nthreadgroup: [4, 1]\nargs:\n"
                 "  src: {type: texture2d, format: r32float, width: 4, height: 2, "
                 "init: {range: [0, 1]}}\n"
                 "  o: {type: float4, count: 4}\n");
    char *out = NULL;
    int status = tex_lockstep(&d, "check", "oob.yaml", &out);
    if (status != 1)
        fail_msg("check exited %d:\n%s", status, out);
    /* one past the 8 texels, at the helper's read, with the call it came from */
    expect_in(out, "oob.metal:4:14: error: out-of-bounds read of src[8]", "check");
    expect_in(out, "in right, called at line 9", "check");
    expect_in(out, "by thread (3,0,0)", "check");
    free(out);
    tex_dir_remove(&d);
}

/* Two texture arguments of one type and different pixel formats are different textures:
 * assigning one to the other, or choosing between them, is refused (t would read u's
 * texels in its own format); of one format, the choice runs. */
static void test_formats_do_not_mix(void **state)
{
    (void)state;
    static const char *const bodies[] = {"  t = u;\n  o[0] = t.read(g);\n",
                                         "  o[0] = (g.x > 0 ? t : u).read(g);\n"};
    static const char *const where[] = {"k.metal:5:7: error: ", "k.metal:5:19: error: "};
    TexDir d;
    tex_dir_new(&d);
    for (int i = 0; i < 2; i++) {
        char text[512], *out = NULL;
        snprintf(text, sizeof text,
                 "#include <metal_stdlib>\nusing namespace metal;\n"
                 "kernel void k(texture2d<float, access::read> t [[texture(0)]], "
                 "texture2d<float, access::read> u [[texture(1)]],\n"
                 "              device float4 *o [[buffer(0)]], uint2 g [[thread_position_in_grid]]) {\n"
                 "%s}\n", bodies[i]);
        tex_put_text(&d, "k.metal", text);
        tex_put_text(&d, "k.yaml",
                     "kernel: k.metal\ngrid: [2]\nthreadgroup: [2]\nargs:\n"
                     "  t: {type: texture2d, format: rgba8unorm, width: 2, height: 1}\n"
                     "  u: {type: texture2d, format: r32float, width: 2, height: 1}\n"
                     "  o: {count: 1}\n");
        int status = tex_lockstep(&d, "run", "k.yaml", &out);
        if (status != 2 || !strstr(out, where[i]) ||
            !strstr(out, "cannot use a r32float texture as a rgba8unorm one"))
            fail_msg("case %d: exit %d:\n%s", i, status, out);
        free(out);
    }
    /* one format: thread 0 reads u's texel 0 (0.5), thread 1 t's texel 1 (0.75) */
    tex_put_text(&d, "k.metal",
                 "#include <metal_stdlib>\nusing namespace metal;\n"
                 "kernel void k(texture2d<float, access::read> t [[texture(0)]], "
                 "texture2d<float, access::read> u [[texture(1)]],\n"
                 "              device float4 *o [[buffer(0)]], uint2 g [[thread_position_in_grid]]) {\n"
                 "  o[g.x] = (g.x > 0 ? t : u).read(g);\n}\n");
    float tv[2] = {0.25f, 0.75f}, uv[2] = {0.5f, 0.125f};
    tex_put(&d, "t.bin", tv, sizeof tv);
    tex_put(&d, "u.bin", uv, sizeof uv);
    tex_put_text(&d, "k.yaml",
                 "kernel: k.metal\ngrid: [2]\nthreadgroup: [2]\nargs:\n"
                 "  t: {type: texture2d, format: r32float, width: 2, height: 1, init: {file: t.bin}}\n"
                 "  u: {type: texture2d, format: r32float, width: 2, height: 1, init: {file: u.bin}}\n"
                 "  o: {count: 2, dump: o.bin}\n");
    tex_run_ok(&d, "k.yaml");
    float o[8];
    tex_get(&d, "o.bin", o, sizeof o);
    const float want[8] = {0.5f, 0, 0, 1, 0.75f, 0, 0, 1}; /* r32float reads (r, 0, 0, 1) */
    for (int i = 0; i < 8; i++)
        if (o[i] != want[i])
            fail_msg("o component %d: %g, want %g", i, (double)o[i], (double)want[i]);
    tex_dir_remove(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_formats),
        cmocka_unit_test(test_write_helper),
        cmocka_unit_test(test_sampler_helper),
        cmocka_unit_test(test_template_and_overloads),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_formats_do_not_mix),
        cmocka_unit_test(test_check_in_helper),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
