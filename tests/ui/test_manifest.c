/*
 * test_manifest.c — launch manifests: a manifest using every key, the errors for malformed
 * ones (with their file:line:col), the init generators against reference code written here
 * from the specification in docs/manifest.md, and binding a manifest to an assembled kernel.
 */
#include "test_util.h"

#include <math.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "../../lang/lang.h"
#include "../../ui/manifest.h"
#include "../../ui/npy.h"
#include "../../ui/ui.h"
#include "../../ui/yaml.h"
#include "../../util/fp.h"

static UiManifest *parse(const char *text, const char *path, UtilError *err)
{
    return ui_manifest_parse(text, strlen(text), path, err);
}

/* ---- reference generators (docs/manifest.md, "init") --------------------------------------- */

static uint64_t ref_next(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ull;
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double ref_unit(uint64_t *s) { return (double)(ref_next(s) >> 11) / 9007199254740992.0; }

static void test_splitmix_known_values(void **state)
{
    (void)state;
    uint64_t s = 1;
    assert_true(ui_splitmix64_next(&s) == 0x910a2dec89025cc1ull);
    assert_true(ui_splitmix64_next(&s) == 0xbeeb8da1658eec67ull);
    uint64_t r = 1;
    assert_true(ref_next(&r) == 0x910a2dec89025cc1ull);
}

static void test_random_float(void **state)
{
    (void)state;
    float out[5];
    UiNumber lo = ui_number_from_i64(-2), hi = ui_number_from_double(3.5);
    UtilError err;
    assert_true(ui_init_random((UiElemType){UI_FLOAT, 1}, 5, 42, &lo, &hi, (uint8_t *)out, &err));
    uint64_t s = 42;
    for (int i = 0; i < 5; i++) {
        float want = (float)(-2.0 + 5.5 * ref_unit(&s));
        assert_true(out[i] == want);
    }
    /* seed 1, [0, 1): the first value is (0x910a2dec89025cc1 >> 11) * 2^-53 */
    lo = ui_number_from_i64(0);
    hi = ui_number_from_i64(1);
    double d[1];
    float f[1];
    (void)d;
    assert_true(ui_init_random((UiElemType){UI_FLOAT, 1}, 1, 1, &lo, &hi, (uint8_t *)f, &err));
    assert_true(f[0] == (float)((double)(0x910a2dec89025cc1ull >> 11) * 0x1p-53));
}

static void test_random_int_and_half(void **state)
{
    (void)state;
    int32_t out[6];
    UiNumber lo = ui_number_from_i64(-5), hi = ui_number_from_i64(5);
    UtilError err;
    assert_true(ui_init_random((UiElemType){UI_INT, 2}, 3, 7, &lo, &hi, (uint8_t *)out, &err));
    uint64_t s = 7;
    for (int i = 0; i < 6; i++)
        assert_int_equal(out[i], -5 + (int64_t)(ref_next(&s) % 11));
    /* seed 1, 0..9: the first value is 0x910a2dec89025cc1 % 10 */
    uint8_t b[2];
    lo = ui_number_from_i64(0);
    hi = ui_number_from_i64(9);
    assert_true(ui_init_random((UiElemType){UI_UCHAR, 1}, 2, 1, &lo, &hi, b, &err));
    assert_int_equal(b[0], 0x910a2dec89025cc1ull % 10);
    assert_int_equal(b[1], 0xbeeb8da1658eec67ull % 10);
    /* half3: 3 values per element, the fourth slot stays zero */
    uint16_t h[8];
    memset(h, 0xff, sizeof h);
    lo = ui_number_from_i64(-1);
    hi = ui_number_from_i64(1);
    memset(h, 0, sizeof h);
    assert_true(ui_init_random((UiElemType){UI_HALF, 3}, 2, 3, &lo, &hi, (uint8_t *)h, &err));
    s = 3;
    for (int i = 0; i < 6; i++) {
        uint16_t want = util_f64_to_f16(-1.0 + 2.0 * ref_unit(&s));
        assert_int_equal(h[i / 3 * 4 + i % 3], want);
    }
    assert_int_equal(h[3], 0);
    assert_int_equal(h[7], 0);
    /* out-of-type bounds are refused */
    hi = ui_number_from_i64(300);
    assert_false(ui_init_random((UiElemType){UI_UCHAR, 1}, 2, 1, &lo, &hi, b, &err));
}

static void test_normal(void **state)
{
    (void)state;
    float out[4];
    UtilError err;
    assert_true(ui_init_normal((UiElemType){UI_FLOAT, 1}, 4, 9, 1.0, 0.5, (uint8_t *)out, &err));
    uint64_t s = 9;
    for (int i = 0; i < 4; i++) {
        double u1 = (double)((ref_next(&s) >> 11) + 1) * 0x1p-53;
        double u2 = (double)(ref_next(&s) >> 11) * 0x1p-53;
        float want = (float)(1.0 + 0.5 * sqrt(-2.0 * log(u1)) * cos(2.0 * 3.141592653589793 * u2));
        assert_true(out[i] == want);
    }
    int32_t ints[1];
    assert_false(ui_init_normal((UiElemType){UI_INT, 1}, 1, 9, 0, 1, (uint8_t *)ints, &err));
    assert_non_null(strstr(err.message, "float type"));
    /* a half with mean 60000 and std 10000: the first draw above 65519 rounds to inf */
    uint16_t halves[64];
    assert_false(ui_init_normal((UiElemType){UI_HALF, 1}, 64, 9, 60000, 10000, (uint8_t *)halves,
                                &err));
    assert_non_null(strstr(err.message, "out of range for half"));
    assert_true(ui_init_normal((UiElemType){UI_HALF, 1}, 64, 9, 0, 1000, (uint8_t *)halves, &err));
}

static void test_range_and_fill(void **state)
{
    (void)state;
    int16_t r[4];
    UiNumber a = ui_number_from_i64(10), d = ui_number_from_i64(-3);
    UtilError err;
    assert_true(ui_init_range((UiElemType){UI_SHORT, 1}, 4, &a, &d, (uint8_t *)r, &err));
    assert_int_equal(r[0], 10);
    assert_int_equal(r[1], 7);
    assert_int_equal(r[3], 1);
    float f[3];
    a = ui_number_from_double(0.5);
    d = ui_number_from_double(0.25);
    assert_true(ui_init_range((UiElemType){UI_FLOAT, 1}, 3, &a, &d, (uint8_t *)f, &err));
    assert_true(f[2] == 1.0f);
    uint8_t u[300];
    a = ui_number_from_i64(0);
    d = ui_number_from_i64(1);
    assert_false(ui_init_range((UiElemType){UI_UCHAR, 1}, 300, &a, &d, u, &err));
    assert_non_null(strstr(err.message, "256"));
    float v[8] = {0};
    a = ui_number_from_double(7);
    assert_true(ui_init_fill((UiElemType){UI_FLOAT, 3}, 2, &a, (uint8_t *)v, &err));
    assert_true(v[0] == 7 && v[2] == 7 && v[3] == 0 && v[6] == 7 && v[7] == 0);
}

/* Every integer type and width, both directions, vectors with and without padding: each
 * element against start + k * step computed here, and ranges that leave the type at either
 * end rejected naming the element. */
static void test_range_every_type(void **state)
{
    (void)state;
    static const struct { UiScalarType s; uint8_t lanes; int64_t start, step; uint64_t n; int64_t lo, hi; } cases[] = {
        {UI_CHAR, 1, -128, 1, 256, -128, 127},  {UI_UCHAR, 2, 255, -5, 26, 0, 255},
        {UI_SHORT, 4, 32000, -1000, 16, -32768, 32767}, {UI_USHORT, 1, 65530, 1, 6, 0, 65535},
        {UI_INT, 1, -5, 3, 40, INT32_MIN, INT32_MAX},   {UI_UINT, 2, 4000000000, -1, 9, 0, UINT32_MAX},
        {UI_LONG, 1, INT64_MIN + 10, 5, 3, INT64_MIN, INT64_MAX},
        {UI_ULONG, 1, 1, INT64_MAX / 4, 4, 0, INT64_MAX},
        {UI_INT, 3, 1, 2, 6, INT32_MIN, INT32_MAX},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        UiElemType t = {cases[c].s, cases[c].lanes};
        uint64_t count = cases[c].n, scalars = count * t.lanes;
        uint32_t size = ui_scalar_size(t.scalar);
        uint8_t got[1024] = {0};
        UiNumber a = ui_number_from_i64(cases[c].start), d = ui_number_from_i64(cases[c].step);
        UtilError err;
        assert_true(ui_init_range(t, count, &a, &d, got, &err));
        for (uint64_t k = 0; k < scalars; k++) {
            int64_t want = cases[c].start + (int64_t)k * cases[c].step;
            uint64_t off = (k / t.lanes) * ui_elem_size(t) + (k % t.lanes) * size, bits = 0;
            memcpy(&bits, got + off, size);
            assert_true(bits == ((uint64_t)want & (size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1)));
        }
        /* one element more leaves the type at the far end (unless the type is 64-bit) */
        int64_t next = cases[c].start + (int64_t)scalars * cases[c].step;
        if (size < 8 && (next < cases[c].lo || next > cases[c].hi)) {
            assert_false(ui_init_range(t, count + 1, &a, &d, got, &err));
            assert_non_null(strstr(err.message, "at scalar"));
        }
    }
    /* a negative start is out of range for an unsigned type from element 0 */
    uint32_t u[4];
    UiNumber a = ui_number_from_i64(-1), d = ui_number_from_i64(1);
    UtilError err;
    assert_false(ui_init_range((UiElemType){UI_UINT, 1}, 4, &a, &d, (uint8_t *)u, &err));
    assert_non_null(strstr(err.message, "at scalar 0"));
    /* a float range that leaves float's finite values: 1e38 steps of 1e38 reach 4e38 at
     * scalar 3, which is past FLT_MAX (3.4028235e38) */
    float f[4];
    a = ui_number_from_double(1e38);
    d = ui_number_from_double(1e38);
    assert_true(ui_init_range((UiElemType){UI_FLOAT, 1}, 3, &a, &d, (uint8_t *)f, &err));
    assert_true(f[2] == 3e38f);
    assert_false(ui_init_range((UiElemType){UI_FLOAT, 1}, 4, &a, &d, (uint8_t *)f, &err));
    assert_non_null(strstr(err.message, "at scalar 3"));
    assert_non_null(strstr(err.message, "out of range for float"));
}

/* ---- parsing ------------------------------------------------------------------------------- */

static void test_every_key(void **state)
{
    (void)state;
    const char *text =
        "kernel: k.s\n"
        "entry: k\n"
        "gpu: m1\n"
        "mode: functional\n"
        "budget: 5000\n"
        "threadgroups: [4, 2]\n"
        "threadgroup: [64]\n"
        "constants: {}\n"
        "args:\n"
        "  a: {type: float4, count: 10, init: {random: {seed: 1, min: -2, max: 2}}}\n"
        "  b: {type: half, init: {values: [1, 2.5, -3]}}\n"
        "  c: {type: uint, count: 8, expect: {values: [1, 2, 3, 4, 5, 6, 7, 8], atol: 1},\n"
        "      dump: out/c.npy}\n"
        "  d: {type: int, count: 3, init: {range: [10, -3]}, dump: stdout}\n"
        "  e: {type: float, count: 4, init: {normal: {seed: 9, mean: 1, std: 0.5}}}\n"
        "  f: {type: uchar, count: 4, init: {file: in.bin}, expect: {file: /abs/w.npy, rtol: 0.5}}\n"
        "  g: {type: float, count: 2, init: none}\n"
        "  h:\n"
        "    type: float\n"
        "    count: 2\n"
        "    init: {fill: 7}\n"
        "  s: {bytes: 1024}\n"
        "  n: {type: uint, value: 10}\n";
    UtilError err;
    UiManifest *m = parse(text, "sub/launch.yaml", &err);
    if (!m)
        fail_msg("%s", err.message);
    assert_string_equal(m->kernel_path, "sub/k.s");
    assert_string_equal(m->entry, "k");
    assert_true(m->has_mode && m->mode == SIM_MODE_FUNCTIONAL);
    assert_true(m->has_budget && m->budget == 5000);
    assert_true(m->by_threadgroups);
    assert_int_equal(m->grid[0], 4);
    assert_int_equal(m->grid[1], 2);
    assert_int_equal(m->grid[2], 1);
    assert_int_equal(m->threadgroup[0], 64);
    assert_int_equal(m->threadgroup[1], 1);
    assert_int_equal(m->num_args, 10);
    const UiArgSpec *a = ui_manifest_arg(m, "a");
    assert_true(a->has_type && a->type.scalar == UI_FLOAT && a->type.lanes == 4);
    assert_int_equal(a->init.kind, UI_INIT_RANDOM);
    assert_true(a->init.seed == 1);
    assert_true(a->init.a.negative && a->init.a.magnitude == 2);
    const UiArgSpec *b = ui_manifest_arg(m, "b");
    assert_false(b->has_count);
    assert_int_equal(b->init.kind, UI_INIT_VALUES);
    assert_int_equal(b->init.values->count, 3);
    const UiArgSpec *c = ui_manifest_arg(m, "c");
    assert_true(c->expect.present && c->expect.has_tolerance);
    assert_true(c->expect.atol == 1 && c->expect.rtol == 0);
    assert_int_equal(c->dump.kind, UI_DUMP_NPY);
    assert_string_equal(c->dump.path, "sub/out/c.npy");
    const UiArgSpec *d = ui_manifest_arg(m, "d");
    assert_int_equal(d->init.kind, UI_INIT_RANGE);
    assert_int_equal(d->dump.kind, UI_DUMP_STDOUT);
    const UiArgSpec *e = ui_manifest_arg(m, "e");
    assert_int_equal(e->init.kind, UI_INIT_NORMAL);
    assert_true(e->init.mean == 1 && e->init.std_dev == 0.5 && e->init.seed == 9);
    const UiArgSpec *f = ui_manifest_arg(m, "f");
    assert_string_equal(f->init.file, "sub/in.bin");
    assert_string_equal(f->expect.file, "/abs/w.npy");
    assert_true(f->expect.rtol == 0.5);
    assert_int_equal(ui_manifest_arg(m, "g")->init.kind, UI_INIT_NONE);
    const UiArgSpec *h = ui_manifest_arg(m, "h");
    assert_int_equal(h->init.kind, UI_INIT_FILL);
    assert_int_equal(h->init.a.magnitude, 7);
    assert_int_equal(h->count_node->line, 20);
    assert_int_equal(h->count_node->col, 12);
    const UiArgSpec *s = ui_manifest_arg(m, "s");
    assert_true(s->has_bytes && s->bytes == 1024 && !s->has_type);
    assert_null(ui_manifest_arg(m, "zz"));
    ui_manifest_free(m);
}

static void test_defaults(void **state)
{
    (void)state;
    UtilError err;
    UiManifest *m = parse("kernel: k.s\ngrid: [100, 2]\nthreadgroup: [32]\n"
                          "args: {x: {type: int, count: 2, init: {random: {}}}}\n",
                          "launch.yaml", &err);
    assert_non_null(m);
    assert_string_equal(m->kernel_path, "k.s");
    assert_false(m->by_threadgroups);
    assert_false(m->has_mode);
    assert_int_equal(m->grid[2], 1);
    const UiArgSpec *x = ui_manifest_arg(m, "x");
    assert_true(x->init.seed == 0);
    assert_true(x->init.a.magnitude == 0 && x->init.b.magnitude == 1);
    ui_manifest_free(m);
}

static const struct {
    const char *text;
    const char *where;  /* "t.yaml:L:C: error: " */
    const char *what;
} bad_manifests[] = {
    {"kernel: k.s\ngrid: [1, 2\n", "t.yaml:3:1: error: ", "invalid YAML"},
    {"- 1\n- 2\n", "t.yaml:1:1: error: ", "expected a map of manifest keys"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\ngrid: [4]\n", "t.yaml:4:1: error: ",
     "duplicate key 'grid' (first given at line 2)"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nthreads: 3\n", "t.yaml:4:1: error: ",
     "unknown key 'threads' in the manifest; expected one of: kernel, entry"},
    {"kernel: k.cu\ngrid: [8]\nthreadgroup: [8]\n", "t.yaml:1:9: error: ", ".metal or .s"},
    {"grid: [8]\nthreadgroup: [8]\n", "t.yaml:1:1: error: ", "kernel:"},
    {"kernel: k.s\ngrid: [0, 1]\nthreadgroup: [8]\n", "t.yaml:2:8: error: ",
     "a list of 1 to 3 positive integers"},
    {"kernel: k.s\ngrid: [1, 2, 3, 4]\nthreadgroup: [8]\n", "t.yaml:2:7: error: ",
     "a list of 1 to 3 positive integers"},
    {"kernel: k.s\ngrid: 8\nthreadgroup: [8]\n", "t.yaml:2:7: error: ", "a list of 1 to 3"},
    {"kernel: k.s\ngrid: [\"8\"]\nthreadgroup: [8]\n", "t.yaml:2:8: error: ", "positive integers"},
    {"kernel: k.s\ngrid: [8]\nthreadgroups: [8]\nthreadgroup: [8]\n", "t.yaml:3:1: error: ",
     "not both"},
    {"kernel: k.s\nthreadgroup: [8]\n", "t.yaml:1:1: error: ", "grid:"},
    {"kernel: k.s\ngrid: [8]\n", "t.yaml:1:1: error: ", "threadgroup:"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [32, 32, 2]\n", "t.yaml:3:14: error: ",
     "at most 1024 threads per threadgroup"},
    {"kernel: k.s\nmode: fast\ngrid: [8]\nthreadgroup: [8]\n", "t.yaml:2:7: error: ",
     "functional or timed"},
    {"kernel: k.s\nbudget: -1\ngrid: [8]\nthreadgroup: [8]\n", "t.yaml:2:9: error: ",
     "a positive number of instructions"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nconstants: {N: 4}\n", "t.yaml:4:12: error: ",
     "function constants need a .metal kernel"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs: [1]\n", "t.yaml:4:7: error: ",
     "a map from kernel argument names"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: 5\n", "t.yaml:5:6: error: ",
     "arg 'a' to be a map"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: {kind: x}\n", "t.yaml:5:7: error: ",
     "unknown key 'kind' in arg 'a'; expected one of: type, count"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: {type: double}\n",
     "t.yaml:5:13: error: ", "an element type"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: {type: int, count: 0}\n",
     "t.yaml:5:25: error: ", "a positive number of elements"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: {type: int, count: 999999999999}\n",
     "t.yaml:5:25: error: ", "1 GiB"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: {bytes: 2000000000}\n",
     "t.yaml:5:14: error: ", "at most 1 GiB"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: {init: {fil: 0}}\n",
     "t.yaml:5:14: error: ", "unknown key 'fil' in init of arg 'a'; expected one of: fill"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: {init: {fill: 0, range: [1]}}\n",
     "t.yaml:5:13: error: ", "one of: fill, range"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: {init: {fill: x}}\n",
     "t.yaml:5:20: error: ", "a number to fill with"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: {init: {range: [1, 2, 3]}}\n",
     "t.yaml:5:21: error: ", "range: [start, step]"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: {init: {random: {seed: -1}}}\n",
     "t.yaml:5:29: error: ", "a seed"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: {init: {random: {mean: 1}}}\n",
     "t.yaml:5:23: error: ", "unknown key 'mean' in random; expected one of: seed, min, max"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: {init: {normal: {std: -1}}}\n",
     "t.yaml:5:28: error: ", "non-negative std"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: {init: random}\n",
     "t.yaml:5:13: error: ", "none or a map"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: {value: 1, init: none}\n",
     "t.yaml:5:23: error: ", "either value: or init:"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: {expect: 5}\n",
     "t.yaml:5:15: error: ", "a list of values or a map"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: {expect: {rtol: 1}}\n",
     "t.yaml:5:15: error: ", "exactly one of values: or file:"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: {expect: {values: [1], rtol: -1}}\n",
     "t.yaml:5:35: error: ", "non-negative tolerance"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: {dump: out.txt}\n",
     "t.yaml:5:13: error: ", "a path ending in .npy or .bin, or stdout"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n  a: {}\n  a: {}\n",
     "t.yaml:6:3: error: ", "duplicate key 'a'"},
    {"a: &x [1]\nb: *x\n", "t.yaml:2:4: error: ", "aliases"},
    {"kernel: k.s\n---\nkernel: j.s\n", "t.yaml:2:1: error: ", "one YAML document"},
    {"? [1, 2]\n: 3\n", "t.yaml:1:3: error: ", "expected a plain key"},
    {"kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n\ta: {}\n", "t.yaml:5:1: error: ",
     "invalid YAML"},
};

static void test_bad_manifests(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < sizeof bad_manifests / sizeof bad_manifests[0]; i++) {
        UtilError err;
        UiManifest *m = parse(bad_manifests[i].text, "t.yaml", &err);
        if (m) {
            ui_manifest_free(m);
            fail_msg("case %zu was accepted:\n%s", i, bad_manifests[i].text);
        }
        if (strncmp(err.message, bad_manifests[i].where, strlen(bad_manifests[i].where)) != 0 ||
            !strstr(err.message, bad_manifests[i].what)) {
            print_message("case %zu: expected '%s...%s', got:\n%s\n", i, bad_manifests[i].where,
                          bad_manifests[i].what, err.message);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

static void test_empty_and_caret(void **state)
{
    (void)state;
    UtilError err;
    assert_null(parse("", "e.yaml", &err));
    assert_non_null(strstr(err.message, "e.yaml: error: the manifest is empty"));
    assert_null(parse("kernel: k.s\ngrid: [8]\nthreadgroup: [8, 0]\n", "c.yaml", &err));
    /* the source line, then a caret under column 18 */
    assert_non_null(strstr(err.message, "\nthreadgroup: [8, 0]\n                 ^"));
}

/* A map of 100,000 keys: the duplicate check is a hash set per map, not a scan of every earlier
 * key (which took minutes for a manifest with 200,000 args); same message, same place. */
static void test_many_keys(void **state)
{
    (void)state;
    enum { KEYS = 100000 };
    static const uint32_t dups[] = {0, 15, 16, 17, 4242, KEYS - 1};
    for (size_t d = 0; d <= UTIL_ARRAY_LEN(dups); d++) {
        size_t cap = (size_t)KEYS * 32 + 256, len = 0;
        char *text = malloc(cap);
        len += (size_t)snprintf(text + len, cap - len, "kernel: k.s\nargs:\n");
        for (uint32_t i = 0; i < KEYS; i++)
            len += (size_t)snprintf(text + len, cap - len, "  k%u: {count: 1}\n", i);
        if (d < UTIL_ARRAY_LEN(dups)) /* the last case has no duplicate */
            len += (size_t)snprintf(text + len, cap - len, "  k%u: {count: 2}\n", dups[d]);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        UtilError err;
        UiYamlDoc *doc = ui_yaml_parse(text, len, "t.yaml", &err);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double seconds =
            (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        if (seconds > 5)
            fail_msg("parsing %d keys took %.1f s", KEYS, seconds);
        if (d == UTIL_ARRAY_LEN(dups)) {
            assert_non_null(doc);
            assert_int_equal(ui_yaml_get(doc->root, "args")->count, KEYS);
            assert_non_null(ui_yaml_get(ui_yaml_get(doc->root, "args"), "k99999"));
        } else {
            assert_null(doc);
            char want[128];
            snprintf(want, sizeof want, "t.yaml:%u:3: error: duplicate key 'k%u' (first given at "
                                        "line %u)", KEYS + 3, dups[d], dups[d] + 3);
            if (strncmp(err.message, want, strlen(want)) != 0)
                fail_msg("want '%s', got:\n%s", want, err.message);
        }
        ui_yaml_free(doc);
        free(text);
    }
}

/* ---- binding to a kernel ------------------------------------------------------------------- */

static const char *kernel_text =
    ".kernel k\n"
    ".regs 4\n"
    ".arg a, device, u0\n"
    ".arg v, device, u2\n"
    ".arg n, constant, u4\n"
    ".arg s, threadgroup, u6\n"
    "    stop\n";

typedef struct Fixture {
    char dir[64];
    IsaProgram *program;
} Fixture;

static int setup(void **state)
{
    Fixture *f = calloc(1, sizeof *f);
    strcpy(f->dir, "/tmp/lockstep-manifest-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    UtilError err;
    f->program = isa_assemble(kernel_text, "k.s", &err);
    if (!f->program) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    if (system(cmd) != 0)
        return -1;
    isa_program_free(f->program);
    free(f);
    return 0;
}

static bool bind_text(Fixture *f, const char *text, UiManifest **m, UiBound *b, UtilError *err)
{
    char path[128];
    snprintf(path, sizeof path, "%s/t.yaml", f->dir);
    *m = ui_manifest_parse(text, strlen(text), path, err);
    if (!*m)
        return false;
    return ui_bind(*m, f->program, b, err);
}

static void test_bind_buffers(void **state)
{
    Fixture *f = *state;
    char path[128];
    snprintf(path, sizeof path, "%s/a.bin", f->dir);
    int16_t a_init[3] = {-1, 2, 300};
    FILE *fp = fopen(path, "wb");
    fwrite(a_init, 1, sizeof a_init, fp);
    fclose(fp);
    float want[2 * 3] = {1, 2, 3, 4, 5, 6};
    uint64_t shape[2] = {2, 3};
    snprintf(path, sizeof path, "%s/v.npy", f->dir);
    UtilError err;
    assert_true(ui_npy_write(path, UI_NPY_F4, shape, 2, want, &err));
    UiManifest *m;
    UiBound b;
    bool ok = bind_text(f,
                        "kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n"
                        "  a: {type: short, init: {file: a.bin}}\n"
                        "  v: {type: float3, value: [[1, 2, 3], [4, 5, 6]], expect: {file: v.npy}}\n"
                        "  n: {type: uint, value: 7}\n"
                        "  s: {bytes: 256}\n",
                        &m, &b, &err);
    if (!ok)
        fail_msg("%s", err.message);
    assert_int_equal(b.num_args, 4);
    const MemBuffer *a = &b.device->buffers[b.bindings[0].buffer];
    assert_string_equal(a->name, "a");
    assert_int_equal(a->size, 6);
    assert_memory_equal(a->data, a_init, 6);
    const MemBuffer *v = &b.device->buffers[b.bindings[1].buffer];
    assert_int_equal(v->size, 32);
    float vf[8];
    memcpy(vf, v->data, 32);
    assert_true(vf[0] == 1 && vf[2] == 3 && vf[3] == 0 && vf[4] == 4 && vf[6] == 6);
    assert_non_null(b.args[1].want);
    assert_memory_equal(b.args[1].want, v->data, 32);
    const MemBuffer *n = &b.device->buffers[b.bindings[2].buffer];
    assert_int_equal(n->space, MEM_SPACE_CONSTANT);
    assert_int_equal(n->size, 4);
    assert_int_equal(n->data[0], 7);
    assert_int_equal(b.bindings[3].tg_bytes, 256);
    assert_int_equal(b.args[3].buffer, -1);
    ui_bound_free(&b);
    ui_manifest_free(m);
}

static const struct {
    const char *args;   /* the args: block */
    const char *where;
    const char *what;
} bad_bindings[] = {
    {"  a: {type: int, count: 4}\n  v: {type: float, count: 4}\n  n: {type: uint, value: 1}\n",
     "t.yaml:4:1: error: ", "threadgroup argument 's'"},
    {"  a: {type: int, count: 4}\n  v: {type: float, count: 4}\n  n: {type: uint, value: 1}\n"
     "  s: {bytes: 64}\n  w: {bytes: 4}\n",
     "t.yaml:9:3: error: ", "unknown argument 'w'; expected one of the kernel's arguments: a, v, n, s"},
    {"  a: {count: 4}\n  v: {type: float, count: 4}\n  n: {type: uint, value: 1}\n  s: {bytes: 64}\n",
     "t.yaml:5:3: error: ", "expected a type: for arg 'a'"},
    {"  a: {type: int, count: 4}\n  v: {type: float, count: 4}\n  n: {type: uint, value: 1}\n"
     "  s: {bytes: 64, init: {fill: 1}}\n",
     "t.yaml:8:18: error: ", "only bytes:"},
    {"  a: {type: int, count: 4}\n  v: {type: float, count: 4}\n  n: {type: uint, value: 1}\n"
     "  s: {bytes: 40000}\n",
     "t.yaml:8:14: error: ", "at most 32768 bytes of threadgroup memory"},
    {"  a: {type: uchar, value: [1, 300]}\n  v: {type: float, count: 4}\n  n: {type: uint, value: 1}\n"
     "  s: {bytes: 64}\n",
     "t.yaml:5:31: error: ", "300 is out of range for uchar (0 to 255)"},
    {"  a: {type: int, count: 3, init: {values: [1, 2]}}\n  v: {type: float, count: 4}\n"
     "  n: {type: uint, value: 1}\n  s: {bytes: 64}\n",
     "t.yaml:5:43: error: ", "expected 3 values (count 3 of int), found 2"},
    {"  a: {type: int}\n  v: {type: float, count: 4}\n  n: {type: uint, value: 1}\n  s: {bytes: 64}\n",
     "t.yaml:5:3: error: ", "expected a count: for arg 'a'"},
    {"  a: {type: int, init: {file: nothere.npy}}\n  v: {type: float, count: 4}\n"
     "  n: {type: uint, value: 1}\n  s: {bytes: 64}\n",
     "t.yaml:5:31: error: ", "nothere.npy: cannot open"},
    {"  a: {type: float2, value: [[1, 2], [3]]}\n  v: {type: float, count: 4}\n"
     "  n: {type: uint, value: 1}\n  s: {bytes: 64}\n",
     "t.yaml:5:37: error: ", "a list of 2 numbers"},
    {"  a: {type: int, count: 2, expect: [1, x]}\n  v: {type: float, count: 4}\n"
     "  n: {type: uint, value: 1}\n  s: {bytes: 64}\n",
     "t.yaml:5:40: error: ", "expected a number (for int)"},
    {"  a: {type: int, count: 2, init: {normal: {}}}\n  v: {type: float, count: 4}\n"
     "  n: {type: uint, value: 1}\n  s: {bytes: 64}\n",
     "t.yaml:5:43: error: ", "normal needs a float type"},
    {"  a: {type: int, count: 2, bytes: 4}\n  v: {type: float, count: 4}\n"
     "  n: {type: uint, value: 1}\n  s: {bytes: 64}\n",
     "t.yaml:5:35: error: ", "at least 8 bytes"},
};

static void test_bad_bindings(void **state)
{
    Fixture *f = *state;
    int failures = 0;
    for (size_t i = 0; i < sizeof bad_bindings / sizeof bad_bindings[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text, "kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n%s",
                 bad_bindings[i].args);
        UiManifest *m;
        UiBound b = {0};
        UtilError err;
        bool ok = bind_text(f, text, &m, &b, &err);
        ui_bound_free(&b);
        ui_manifest_free(m);
        if (ok)
            fail_msg("case %zu was accepted:\n%s", i, text);
        if (!strstr(err.message, bad_bindings[i].where) || !strstr(err.message, bad_bindings[i].what)) {
            print_message("case %zu: expected '%s...%s', got:\n%s\n", i, bad_bindings[i].where,
                          bad_bindings[i].what, err.message);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

/* Tensor arguments: extents (columns, rows) and row_pitch size the buffer and reach the
 * kernel with it; what is wrong with them names the line. */
static void test_bind_tensors(void **state)
{
    Fixture *f = *state;
    UtilError err;
    IsaProgram *tensor_kernel = isa_assemble(".kernel k\n.regs 4\n.arg t, device, u0, tensor\n"
                                             ".arg b, device, u5\n    stop\n", "k.s", &err);
    assert_non_null(tensor_kernel);
    assert_int_equal(tensor_kernel->args[0].tensor_rank, 2);
    IsaProgram *plain = f->program;
    f->program = tensor_kernel;
    static const char *const head = "kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n"
                                    "  b: {type: int, count: 1}\n";
    char text[512];
    UiManifest *m;
    UiBound b;
    snprintf(text, sizeof text, "%s  t: {type: half, extents: [3, 2], row_pitch: 4}\n", head);
    if (!bind_text(f, text, &m, &b, &err))
        fail_msg("%s", err.message);
    assert_int_equal(b.device->buffers[b.bindings[0].buffer].size, 4 * 2 * 2);
    assert_int_equal(b.bindings[0].tensor[0], 3);
    assert_int_equal(b.bindings[0].tensor[1], 2);
    assert_int_equal(b.bindings[0].tensor[2], 4);
    ui_bound_free(&b);
    ui_manifest_free(m);
    snprintf(text, sizeof text, "%s  t: {type: float, extents: [3, 2], count: 7}\n", head);
    if (!bind_text(f, text, &m, &b, &err))
        fail_msg("%s", err.message);
    assert_int_equal(b.device->buffers[b.bindings[0].buffer].size, 7 * 4);
    assert_int_equal(b.bindings[0].tensor[2], 3); /* the pitch defaults to the columns */
    ui_bound_free(&b);
    ui_manifest_free(m);
    static const struct {
        const char *arg, *where, *what;
    } bad[] = {
        {"  t: {type: float, count: 6}\n", "t.yaml:6:3: error: ",
         "expected extents: [columns, rows] for tensor argument 't'"},
        {"  t: {type: float, extents: [3, 2], count: 5}\n", "t.yaml:6:44: error: ",
         "expected a count of at least 6 for a tensor of 3 x 2 elements"},
        {"  t: {type: float, extents: [3, 2], row_pitch: 2}\n", "t.yaml:6:48: error: ",
         "row_pitch: elements from one row to the next, at least the columns"},
        {"  t: {type: float, extents: [3]}\n", "t.yaml:6:29: error: ",
         "expected extents: [columns, rows]"},
        {"  t: {type: float, extents: [3, 0]}\n", "t.yaml:6:33: error: ",
         "an extent from 1 to 2^24"},
        {"  t: {type: float, row_pitch: 4}\n", "t.yaml:6:31: error: ",
         "row_pitch: belongs to a tensor argument"},
        {"  t: {extents: [3, 2]}\n", "t.yaml:6:3: error: ",
         "expected a type: for tensor argument 't'"},
        {"  t: {extents: [3, 2], bytes: 24}\n", "t.yaml:6:3: error: ",
         "expected a type: for tensor argument 't'"},
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "%s%s", head, bad[i].arg);
        UiBound bb = {0};
        m = NULL;
        bool ok = bind_text(f, text, &m, &bb, &err);
        ui_bound_free(&bb);
        ui_manifest_free(m);
        if (ok)
            fail_msg("case %zu was accepted:\n%s", i, text);
        if (!strstr(err.message, bad[i].where) || !strstr(err.message, bad[i].what)) {
            print_message("case %zu: expected '%s...%s', got:\n%s\n", i, bad[i].where,
                          bad[i].what, err.message);
            failures++;
        }
    }
    /* extents on a plain buffer */
    f->program = plain;
    snprintf(text, sizeof text, "kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n"
             "  a: {type: int, count: 4, extents: [2, 2]}\n  v: {type: float, count: 4}\n"
             "  n: {type: uint, value: 1}\n  s: {bytes: 64}\n");
    UiBound bb = {0};
    m = NULL;
    assert_false(bind_text(f, text, &m, &bb, &err));
    ui_bound_free(&bb);
    ui_manifest_free(m);
    if (!strstr(err.message, "t.yaml:5:37: error: extents: belongs to tensor arguments")) {
        print_message("plain buffer: got %s\n", err.message);
        failures++;
    }
    isa_program_free(tensor_kernel);
    assert_int_equal(failures, 0);
}

/* A .metal kernel's argument types are checked against the manifest's, except that a char
 * or uchar pointer is raw bytes the kernel reinterprets (ggml's `device const char *src0`):
 * it takes any type, and the buffer is filled as that type. */
static void test_bind_byte_buffers(void **state)
{
    Fixture *f = *state;
    UtilError err;
    IsaProgram *k = lang_compile_source(
        "kernel void k(device const char *src [[buffer(0)]], device float *dst [[buffer(1)]],\n"
        "              uint i [[thread_position_in_grid]]) {\n"
        "  dst[i] = ((device const float *)src)[i];\n}\n", "k.metal", NULL, NULL, &err);
    if (!k)
        fail_msg("%s", err.message);
    IsaProgram *plain = f->program;
    f->program = k;
    UiManifest *m;
    UiBound b;
    if (!bind_text(f, "kernel: k.s\ngrid: [2]\nthreadgroup: [2]\nargs:\n"
                      "  src: {type: float, value: [1.5, -2]}\n  dst: {count: 2}\n", &m, &b, &err))
        fail_msg("%s", err.message);
    const MemBuffer *src = &b.device->buffers[b.bindings[0].buffer];
    assert_int_equal(src->size, 8);
    float got[2];
    memcpy(got, src->data, 8);
    assert_true(got[0] == 1.5f && got[1] == -2.0f);
    ui_bound_free(&b);
    ui_manifest_free(m);
    /* other arguments still have the kernel's type */
    UiBound bb = {0};
    m = NULL;
    bool ok = bind_text(f, "kernel: k.s\ngrid: [2]\nthreadgroup: [2]\nargs:\n"
                           "  src: {type: float, count: 2}\n  dst: {type: int, count: 2}\n",
                        &m, &bb, &err);
    ui_bound_free(&bb);
    ui_manifest_free(m);
    f->program = plain;
    isa_program_free(k);
    assert_false(ok);
    if (!strstr(err.message, "t.yaml:6:15: error: expected type float, the type of kernel "
                             "argument 'dst'"))
        fail_msg("got %s", err.message);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splitmix_known_values),
        cmocka_unit_test(test_random_float),
        cmocka_unit_test(test_random_int_and_half),
        cmocka_unit_test(test_normal),
        cmocka_unit_test(test_range_and_fill),
        cmocka_unit_test(test_range_every_type),
        cmocka_unit_test(test_every_key),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_bad_manifests),
        cmocka_unit_test(test_empty_and_caret),
        cmocka_unit_test(test_many_keys),
        cmocka_unit_test_setup_teardown(test_bind_buffers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_bindings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bind_tensors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bind_byte_buffers, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
