/*
 * test_texture_checks.c — texture kernels under `lockstep check`, `lockstep run` and
 * `lockstep debug`: a texture read or write is an ordinary device access of its texels,
 * so an out-of-bounds coordinate (past the width on any row, where the next row's texels
 * lie, as well as past the last row), a race on a texel and a read of an `init: none`
 * texture are findings at the call's line and column, and the debugger stops in, prints
 * and steps through a texture kernel.
 */
#include "texture_harness.h"

static const char *const bugs_metal =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void shift(texture2d<float, access::read> src [[texture(0)]],\n"
    "                  texture2d<float, access::write> dst [[texture(1)]],\n"
    "                  uint2 gid [[thread_position_in_grid]])\n"
    "{\n"
    "    float4 v = src.read(uint2(gid.x + 1, gid.y));\n"   /* line 7: x = width on row 0 */
    "    dst.write(v, uint2(gid.x, gid.y + 1));\n"           /* line 8: y = height */
    "}\n"
    "kernel void race(texture2d<float, access::write> dst [[texture(0)]],\n"
    "                 uint2 gid [[thread_position_in_grid]])\n"
    "{\n"
    "    dst.write(float4(float(gid.x)), uint2(0, 0));\n"   /* line 13 */
    "}\n";

static void setup_dir(TexDir *d)
{
    tex_dir_new(d);
    tex_put_text(d, "bugs.metal", bugs_metal);
    /* 4 x 2 texels: thread (3, 0) reads (4, 0), which would be texel 4 of a plain buffer
     * (the next row's first), and threads of row 1 write row 2 */
    tex_put_text(d, "oob.yaml",
                 "kernel: bugs.metal\nentry: shift\ngrid: [4, 2]\nthreadgroup: [4, 2]\nargs:\n"
                 "  src: {type: texture2d, format: r32float, width: 4, height: 2, "
                 "init: {range: [0, 1]}}\n"
                 "  dst: {type: texture2d, format: r32float, width: 4, height: 2}\n");
    tex_put_text(d, "race.yaml",
                 "kernel: bugs.metal\nentry: race\ngrid: [4, 1]\nthreadgroup: [4, 1]\nargs:\n"
                 "  dst: {type: texture2d, format: rgba8unorm, width: 4, height: 2}\n");
    tex_put_text(d, "uninit.yaml",
                 "kernel: bugs.metal\nentry: shift\ngrid: [3, 1]\nthreadgroup: [3, 1]\nargs:\n"
                 "  src: {type: texture2d, format: rgba16float, width: 4, height: 2, "
                 "init: none}\n"
                 "  dst: {type: texture2d, format: rgba16float, width: 4, height: 2}\n");
}

static void expect_in(const char *out, const char *text, const char *what)
{
    if (!strstr(out, text))
        fail_msg("%s: expected `%s` in:\n%s", what, text, out);
}

static void test_out_of_bounds(void **state)
{
    (void)state;
    TexDir d;
    setup_dir(&d);
    char *out = NULL;
    int status = tex_lockstep(&d, "check", "oob.yaml", &out);
    assert_int_equal(status, 1);
    /* one past the texels (32 bytes of r32float), at the read's column */
    expect_in(out, "bugs.metal:7:20: error: out-of-bounds read of src[8] (byte offset 32, "
                   "4 bytes; valid 0..31)", "check");
    expect_in(out, "by thread (3,0,0)", "check");
    expect_in(out, "bugs.metal:8:9: error: out-of-bounds write of dst[", "check");
    expect_in(out, "by thread (0,1,0)", "check");
    free(out);
    /* lockstep run reports them as faults and exits 1 */
    status = tex_lockstep(&d, "run", "oob.yaml", &out);
    assert_int_equal(status, 1);
    expect_in(out, "bugs.metal:7:20: error: out-of-bounds read of device buffer 'src' at byte "
                   "offset 32 (4 bytes; valid 0..31) by thread (3,0,0)", "run");
    expect_in(out, "bugs.metal:8:9: error: out-of-bounds write of device buffer 'dst'", "run");
    free(out);
    tex_dir_remove(&d);
}

static void test_race_and_uninitialized(void **state)
{
    (void)state;
    TexDir d;
    setup_dir(&d);
    char *out = NULL;
    int status = tex_lockstep(&d, "check", "race.yaml", &out);
    assert_int_equal(status, 1);
    expect_in(out, "bugs.metal:13:9: error: device memory race (write after write) on dst[0]",
              "race");
    free(out);
    status = tex_lockstep(&d, "check", "uninit.yaml", &out);
    assert_int_equal(status, 1);
    expect_in(out, "bugs.metal:7:20: error: read of uninitialized device memory src[1]",
              "uninit");
    free(out);
    tex_dir_remove(&d);
}

/* The grayscale kernel in the debugger: a breakpoint after the read, the texel it read in
 * every lane, the texture's texels as its buffer. */
static void test_debugger(void **state)
{
    (void)state;
    TexDir d;
    tex_dir_new(&d);
    tex_put_text(&d, "g.metal",
                 "#include <metal_stdlib>\nusing namespace metal;\n"
                 "kernel void g(texture2d<float, access::read> src [[texture(0)]],\n"
                 "              texture2d<float, access::write> dst [[texture(1)]],\n"
                 "              uint2 gid [[thread_position_in_grid]]) {\n"
                 "    float4 c = src.read(gid);\n"
                 "    float s = c.r + c.g;\n"
                 "    dst.write(float4(s, c.g, c.b, c.a), gid);\n"
                 "}\n");
    uint8_t texels[32 * 4];
    for (int i = 0; i < 32 * 4; i++)
        texels[i] = (uint8_t)(i * 2);
    tex_put(&d, "in.bin", texels, sizeof texels);
    tex_put_text(&d, "g.yaml",
                 "kernel: g.metal\ngrid: [8, 4]\nthreadgroup: [8, 4]\nargs:\n"
                 "  src: {type: texture2d, format: rgba8unorm, width: 8, height: 4, "
                 "init: {file: in.bin}}\n"
                 "  dst: {type: texture2d, format: r32float, width: 8, height: 4}\n");
    tex_put_text(&d, "script.txt", "break 7\ncontinue\nprint c\nprint src[1]\nfinish\n");
    char args[512], *out = NULL;
    snprintf(args, sizeof args, "debug %s/g.yaml --script %s/script.txt", d.path, d.path);
    int status = test_lockstep(args, &out);
    if (status != 0)
        fail_msg("lockstep %s exited %d:\n%s", args, status, out);
    expect_in(out, "breakpoint 1: line 7", "debug");
    /* c.y of lane 0 is texel 0's green, 2 / 255 */
    char want[64], num[32];
    const float g0 = 2.0f / 255.0f;
    for (int digits = 1; digits <= 9; digits++) { /* the shortest text that reads back */
        snprintf(num, sizeof num, "%.*g", digits, (double)g0);
        if (strtof(num, NULL) == g0)
            break;
    }
    snprintf(want, sizeof want, "lanes  0-7 : %s ", num);
    expect_in(out, "c.y (float", "debug");
    expect_in(out, want, "debug");
    expect_in(out, "src[1]", "debug");
    expect_in(out, "(8,10,12,14)", "debug");
    free(out);
    tex_dir_remove(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_out_of_bounds),
        cmocka_unit_test(test_race_and_uninitialized),
        cmocka_unit_test(test_debugger),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
