/*
 * test_texture_manifest.c — texture arguments in launch manifests (`type: texture2d`,
 * `format:`, `width:`, `height:`): the pixel format table, binding a texture to an assembly
 * kernel's `.arg t, device, u0, texture2d` (its texels a buffer of the format's storage
 * type, its width, height and row pitch reaching the kernel), running such a kernel, and
 * the errors for every way of getting one wrong, each at its file:line:col.
 */
#include "test_util.h"

#include <stdint.h>
#include <unistd.h>

#include "../../lang/lang.h"
#include "../../ui/manifest.h"
#include "../../ui/ui.h"

/* Formats by name: what a texel is stored as, per MTLPixelFormat's layout. */
static void test_format_table(void **state)
{
    (void)state;
    static const struct {
        const char *name, *storage;
        int components, bytes;
        LangTexKind kind;
    } want[] = {
        {"r8unorm", "uchar", 1, 1, LANG_TEXK_UNORM},
        {"rgba8unorm", "uchar4", 4, 4, LANG_TEXK_UNORM},
        {"bgra8unorm", "uchar4", 4, 4, LANG_TEXK_UNORM},
        {"rgba16float", "half4", 4, 8, LANG_TEXK_FLOAT},
        {"r32float", "float", 1, 4, LANG_TEXK_FLOAT},
        {"rg32float", "float2", 2, 8, LANG_TEXK_FLOAT},
        {"rgba32float", "float4", 4, 16, LANG_TEXK_FLOAT},
        {"r32uint", "uint", 1, 4, LANG_TEXK_UINT},
        {"rgba32uint", "uint4", 4, 16, LANG_TEXK_UINT},
        {"r16sint", "short", 1, 2, LANG_TEXK_SINT},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        LangTexFormat f = lang_tex_format_named(want[i].name);
        const LangTexFormatInfo *info = lang_tex_format_info(f);
        assert_non_null(info);
        assert_string_equal(info->name, want[i].name);
        assert_string_equal(info->storage, want[i].storage);
        assert_int_equal(info->components, want[i].components);
        assert_int_equal(info->bytes, want[i].bytes);
        assert_int_equal(info->kind, want[i].kind);
    }
    assert_int_equal(lang_tex_format_named("rgba8"), LANG_TEX_NONE);
    assert_null(lang_tex_format_info(LANG_TEX_NONE));
    char list[400];
    lang_tex_format_list(list, sizeof list);
    assert_non_null(strstr(list, "r8unorm, rg8unorm, rgba8unorm"));
}

/* The kernel copies the first texel's first 4 bytes and writes the texture's width, height
 * and pitch to b[0..2]. */
static const char *const kernel_text =
    ".kernel k\n.regs 4\n.arg t, device, u0, texture2d\n.arg b, device, u5\n"
    "    ld_dev.b32 r1, u0, 0, 0\n    wait 0\n"
    "    st_dev.b32 r1, u5, 3\n"
    "    mov r2, u2\n    st_dev.b32 r2, u5, 0\n"
    "    mov r2, u3\n    st_dev.b32 r2, u5, 1\n"
    "    mov r2, u4\n    st_dev.b32 r2, u5, 2\n"
    "    stop\n";

static void test_bind_and_run(void **state)
{
    (void)state;
    char dir[] = "/tmp/lockstep-texman-XXXXXX";
    assert_non_null(mkdtemp(dir));
    test_write_file(dir, "k.s", kernel_text);
    /* a 5 x 3 rgba8unorm texture: 15 uchar4 texels, the first (1, 2, 3, 4) */
    test_write_file(dir, "k.yaml",
               "kernel: k.s\ngrid: [1]\nthreadgroup: [1]\nargs:\n"
               "  t: {type: texture2d, format: rgba8unorm, width: 5, height: 3,\n"
               "      init: {range: [1, 1]}, dump: t.bin}\n"
               "  b: {type: uint, count: 4, dump: b.bin}\n");
    char args[300], *out = NULL;
    snprintf(args, sizeof args, "run %s/k.yaml --mode functional", dir);
    int status = test_lockstep(args, &out);
    if (status != 0)
        fail_msg("lockstep %s exited %d:\n%s", args, status, out);
    free(out);
    char path[300];
    snprintf(path, sizeof path, "%s/b.bin", dir);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint32_t b[4];
    assert_int_equal(fread(b, 4, 4, f), 4);
    fclose(f);
    assert_int_equal(b[0], 5);
    assert_int_equal(b[1], 3);
    assert_int_equal(b[2], 5);
    assert_int_equal(b[3], 0x04030201u);
    snprintf(path, sizeof path, "%s/t.bin", dir);
    f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t texels[80];
    assert_int_equal(fread(texels, 1, sizeof texels, f), 60); /* 15 texels of 4 bytes */
    fclose(f);
    for (int i = 0; i < 60; i++)
        assert_int_equal(texels[i], i + 1);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static const struct {
    const char *arg, *where, *what;
} bad[] = {
    {"  t: {type: texture2d, width: 4, height: 4}\n", "t.yaml:5:13: error: ",
     "expected format: for texture arg 't', one of r8unorm"},
    {"  t: {type: texture2d, format: rgb8, width: 4, height: 4}\n", "t.yaml:5:32: error: ",
     "expected a pixel format: one of r8unorm"},
    {"  t: {type: texture2d, format: r32float, height: 4}\n", "t.yaml:5:13: error: ",
     "expected width: for texture arg 't'"},
    {"  t: {type: texture2d, format: r32float, width: 4}\n", "t.yaml:5:13: error: ",
     "expected height: for texture arg 't'"},
    {"  t: {type: texture2d, format: r32float, width: 0, height: 4}\n", "t.yaml:5:49: error: ",
     "width: a number of texels (1 to 16384)"},
    {"  t: {type: texture2d, format: r32float, width: 4, height: 20000}\n",
     "t.yaml:5:60: error: ", "height: a number of texels (1 to 16384)"},
    {"  t: {type: texture2d, format: r32float, width: 4, height: 4, count: 16}\n",
     "t.yaml:5:63: error: ", "a texture's size is its width: and height:"},
    {"  t: {type: texture1d, format: r32float, width: 4, height: 4}\n", "t.yaml:5:52: error: ",
     "a texture1d has a width: only"},
    {"  t: {type: float, count: 4, format: r32float}\n", "t.yaml:5:30: error: ",
     "format: belongs to a texture argument"},
    {"  t: {type: texture3d, format: r32float, width: 4}\n", "t.yaml:5:13: error: ",
     "or texture2d or texture1d"},
};

static void test_bad_textures(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n%s",
                 bad[i].arg);
        UtilError err;
        UiManifest *m = ui_manifest_parse(text, strlen(text), "t.yaml", &err);
        if (m) {
            ui_manifest_free(m);
            fail_msg("case %zu was accepted:\n%s", i, text);
        }
        if (strncmp(err.message, bad[i].where, strlen(bad[i].where)) != 0 ||
            !strstr(err.message, bad[i].what)) {
            print_message("case %zu: expected '%s...%s', got:\n%s\n", i, bad[i].where,
                          bad[i].what, err.message);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

/* Binding: a texture argument needs a texture, a buffer argument refuses one, and the
 * dimensions must agree. */
static void test_bad_bindings(void **state)
{
    (void)state;
    UtilError err;
    IsaProgram *k = isa_assemble(kernel_text, "k.s", &err);
    assert_non_null(k);
    assert_int_equal(k->args[0].texture, 2);
    static const struct {
        const char *args, *where, *what;
    } cases[] = {
        {"  t: {type: uchar4, count: 16}\n  b: {type: uint, count: 4}\n", "t.yaml:5:3: error: ",
         "expected type: texture2d with format:, width:, height: for texture argument 't'"},
        {"  t: {type: texture1d, format: r32float, width: 4}\n  b: {type: uint, count: 4}\n",
         "t.yaml:5:13: error: ", "expected type: texture2d: argument 't' is a texture2d"},
        {"  t: {type: texture2d, format: r32float, width: 4, height: 2}\n"
         "  b: {type: texture2d, format: r32uint, width: 4, height: 1}\n",
         "t.yaml:6:13: error: ", "type: texture2d belongs to texture arguments; 'b' is a device"},
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n%s",
                 cases[i].args);
        UiManifest *m = ui_manifest_parse(text, strlen(text), "t.yaml", &err);
        if (!m)
            fail_msg("case %zu: %s", i, err.message);
        UiBound b = {0};
        bool ok = ui_bind(m, k, &b, &err);
        ui_bound_free(&b);
        ui_manifest_free(m);
        if (ok)
            fail_msg("case %zu was accepted:\n%s", i, text);
        if (!strstr(err.message, cases[i].where) || !strstr(err.message, cases[i].what)) {
            print_message("case %zu: expected '%s...%s', got:\n%s\n", i, cases[i].where,
                          cases[i].what, err.message);
            failures++;
        }
    }
    isa_program_free(k);
    /* a texture given for a threadgroup block: refused too (it was bound as its bytes) */
    k = isa_assemble(".kernel k\n.regs 2\n.arg s, threadgroup, u0\n    stop\n", "k.s", &err);
    assert_non_null(k);
    const char *text = "kernel: k.s\ngrid: [8]\nthreadgroup: [8]\nargs:\n"
                       "  s: {type: texture2d, format: r32float, width: 4, height: 4}\n";
    UiManifest *m = ui_manifest_parse(text, strlen(text), "t.yaml", &err);
    assert_non_null(m);
    UiBound b = {0};
    bool ok = ui_bind(m, k, &b, &err);
    ui_bound_free(&b);
    ui_manifest_free(m);
    isa_program_free(k);
    if (ok || !strstr(err.message, "t.yaml:5:13: error: type: texture2d belongs to texture "
                                   "arguments; 's' is a threadgroup buffer"))
        fail_msg("accepted %d: %s", ok, ok ? "" : err.message);
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_table),
        cmocka_unit_test(test_bind_and_run),
        cmocka_unit_test(test_bad_textures),
        cmocka_unit_test(test_bad_bindings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
