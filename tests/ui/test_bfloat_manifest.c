/*
 * test_bfloat_manifest.c — bfloat buffers in launch manifests, run the way a user runs them
 * (`lockstep run` on a kernel and manifest written to a temporary directory): the element
 * type comes from the kernel, values and generated inits are rounded to bfloat (nearest,
 * ties to even, checked against bit manipulation done here), `expect:` compares bfloat
 * values, a `constant bfloat &` and a struct's bfloat member take `value:`, and dumps write
 * .npy as float32 (NumPy has no bfloat dtype) and .bin as the 16-bit patterns. The unit
 * parts (number conversion, parsing, printing) are checked on the data functions directly.
 * The tests run from the repository root and use $LOCKSTEP.
 */
#include "test_util.h"

#include <math.h>
#include <stdint.h>
#include <unistd.h>

#include "../../ui/data.h"
#include "../../ui/npy.h"

static uint16_t ref_f2bf(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

static float ref_bf2f(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void test_data_functions(void **state)
{
    (void)state;
    UiElemType t;
    assert_true(ui_elem_type_parse("bfloat4", &t));
    assert_int_equal(t.scalar, UI_BFLOAT);
    assert_int_equal(t.lanes, 4);
    assert_int_equal(ui_elem_size(t), 8);
    assert_true(ui_elem_type_parse("bfloat3", &t));
    assert_int_equal(ui_elem_size(t), 8); /* 3-vectors take the room of 4 */
    assert_true(ui_scalar_is_float(UI_BFLOAT));
    static const struct { const char *text; uint16_t bits; bool ok; } cases[] = {
        {"1", 0x3f80, true},
        {"1.00390625", 0x3f80, true},  /* 1 + 2^-8: a tie, to even */
        {"1.01171875", 0x3f82, true},  /* 1 + 3*2^-8: a tie, to even (up) */
        {"1.0039062500001", 0x3f81, true}, /* just above the tie, from the double directly */
        {"0.1", 0x3dcd, true},
        {"-2.5", 0xc020, true},
        {"3.3895e38", 0x7f7f, true},   /* the largest bfloat */
        {"3.4e38", 0x7f80, false},     /* finite, but rounds to infinity: reported */
        {".inf", 0x7f80, true},
        {"-.inf", 0xff80, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        UiNumber n;
        assert_true(ui_yaml_parse_number(cases[i].text, &n));
        uint16_t got = 0;
        UtilError err = {{0}};
        bool ok = ui_store_number(UI_BFLOAT, &n, &got, &err);
        if (ok != cases[i].ok || got != cases[i].bits)
            fail_msg("%s: got 0x%04x (%s), want 0x%04x (%s)", cases[i].text, got,
                     ok ? "ok" : err.message, cases[i].bits, cases[i].ok ? "ok" : "an error");
        if (!ok)
            assert_non_null(strstr(err.message, "out of range for bfloat"));
    }
    uint16_t b = 0x3dcd;
    UiNumber n = ui_load_number(UI_BFLOAT, &b);
    assert_true(n.is_float && n.f == (double)ref_bf2f(0x3dcd));
    char buf[64];
    assert_string_equal(ui_format_number(UI_BFLOAT, &n, buf, sizeof buf), "0.1");
    /* compare: values, not bits (NaN matches NaN) */
    uint16_t want[3] = {0x3f80, 0x7fc0, 0x4000}, got[3] = {0x3f80, 0x7fc1, 0x4001};
    UiCompareResult r;
    ui_compare((UiElemType){UI_BFLOAT, 1}, (const uint8_t *)got, (const uint8_t *)want, 3, 0, 0,
               false, &r);
    assert_int_equal(r.mismatched_elements, 1);
    assert_int_equal(r.first[0].element, 2);
    ui_compare((UiElemType){UI_BFLOAT, 1}, (const uint8_t *)got, (const uint8_t *)want, 3,
               0.01, 0, true, &r);
    assert_int_equal(r.mismatched_elements, 0);
}

static const char *kernel_text =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "struct Params { float bias; bfloat scale; };\n"
    "kernel void k(device const bfloat *x [[buffer(0)]], device bfloat *y [[buffer(1)]],\n"
    "              constant bfloat &s [[buffer(2)]], constant Params &p [[buffer(3)]],\n"
    "              device bfloat2 *r [[buffer(4)]], uint i [[thread_position_in_grid]]) {\n"
    "  y[i] = x[i] * s + bfloat(p.bias) * p.scale;\n"
    "  r[i] = bfloat2(x[i], -x[i]);\n"
    "}\n";

static void test_run_manifest(void **state)
{
    (void)state;
    char dir[] = "/tmp/lockstep-bfloat-XXXXXX";
    assert_non_null(mkdtemp(dir));
    test_write_file(dir, "k.metal", kernel_text);
    /* x: 1 + 2^-8 (to 1), 3, -0.1, 1.01171875 (to 1.015625), then a range */
    static const float x_in[8] = {1.00390625f, 3.0f, -0.1f, 1.01171875f, 0.5f, 0.75f, 1.0f, 1.25f};
    const float s = 2.0f, bias = 0.5f, scale = 1.5f;
    char manifest[2048];
    char want_text[512] = "";
    size_t len = 0;
    for (int i = 0; i < 8; i++) {
        float x = ref_bf2f(ref_f2bf(x_in[i]));
        float y = ref_bf2f(ref_f2bf(ref_bf2f(ref_f2bf(x * s)) +
                                    ref_bf2f(ref_f2bf(bias * scale))));
        len += (size_t)snprintf(want_text + len, sizeof want_text - len, "%s%.9g",
                                i ? ", " : "", (double)y);
    }
    snprintf(manifest, sizeof manifest,
             "kernel: k.metal\ngrid: [8]\nthreadgroup: [8]\nargs:\n"
             "  x: {init: {values: [1.00390625, 3, -0.1, 1.01171875, 0.5, 0.75, 1, 1.25]}}\n"
             "  y: {count: 8, expect: [%s], dump: y.npy}\n"
             "  s: {value: 2}\n"
             "  p: {value: {bias: 0.5, scale: 1.5}}\n"
             "  r: {count: 8, dump: r.bin}\n", want_text);
    test_write_file(dir, "k.yaml", manifest);
    char args[512], *out = NULL;
    snprintf(args, sizeof args, "run %s/k.yaml --mode functional", dir);
    int status = test_lockstep(args, &out);
    if (status != 0 || !strstr(out, "ok (8 elements)"))
        fail_msg("lockstep %s exited %d:\n%s\n--- manifest ---\n%s", args, status, out, manifest);
    free(out);
    /* y.npy: float32 values, each exactly the bfloat the buffer holds */
    char path[256];
    snprintf(path, sizeof path, "%s/y.npy", dir);
    UiNpyArray a;
    UtilError err;
    if (!ui_npy_read(path, 1 << 20, &a, &err))
        fail_msg("%s", err.message);
    assert_int_equal(a.dtype, UI_NPY_F4);
    assert_int_equal(a.count, 8);
    for (int i = 0; i < 8; i++) {
        float got, x = ref_bf2f(ref_f2bf(x_in[i]));
        memcpy(&got, a.data + 4 * i, 4);
        float want = ref_bf2f(ref_f2bf(ref_bf2f(ref_f2bf(x * s)) +
                                       ref_bf2f(ref_f2bf(bias * scale))));
        if (got != want)
            fail_msg("y[%d]: dumped %.9g, want %.9g", i, (double)got, (double)want);
    }
    ui_npy_free(&a);
    /* r.bin: the raw 16-bit patterns, two per element */
    snprintf(path, sizeof path, "%s/r.bin", dir);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint16_t bits[16];
    assert_int_equal(fread(bits, 2, 16, f), 16);
    fclose(f);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(bits[2 * i], ref_f2bf(x_in[i]));
        assert_int_equal(bits[2 * i + 1], ref_f2bf(x_in[i]) ^ 0x8000);
    }
    /* a wrong expectation fails with bfloat values named */
    snprintf(manifest, sizeof manifest,
             "kernel: k.metal\ngrid: [2]\nthreadgroup: [2]\nargs:\n"
             "  x: {init: {values: [1, 2]}}\n  y: {count: 2, expect: [3.5, 5.5]}\n"
             "  s: {value: 2}\n  p: {value: {bias: 0, scale: 0}}\n  r: {count: 2}\n");
    test_write_file(dir, "bad.yaml", manifest);
    snprintf(args, sizeof args, "run %s/bad.yaml --mode functional", dir);
    status = test_lockstep(args, &out);
    if (status != 1 || !strstr(out, "y[0]: got 2, expected 3.5"))
        fail_msg("lockstep %s exited %d:\n%s", args, status, out);
    free(out);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_data_functions),
        cmocka_unit_test(test_run_manifest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
