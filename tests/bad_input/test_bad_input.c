/*
 * test_bad_input.c — runs the lockstep binary on malformed input, as a user would: broken
 * YAML, wrong types, unknown keys, missing or malformed kernel and data files, absurd sizes,
 * bad command lines. Each must exit 2 (never crash: no status >= 128) with a message naming
 * the file, and `file:line:col: error:` wherever the problem has a line. A few good runs
 * check the other statuses (0 success, 1 a finding).
 *
 * Every input is generated at test time in a fresh temporary folder.
 */
#include "test_util.h"

#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[64];

static void write_file(const char *name, const void *data, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (len)
        assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* A sparse file of `size` bytes (no disk used). */
static int truncate_file(const char *path, off_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int rc = ftruncate(fileno(f), size);
    fclose(f);
    return rc;
}

static void write_text(const char *name, const char *text) { write_file(name, text, strlen(text)); }

/* A .npy image: header text padded to 64 bytes, then `data_len` bytes of data. */
static void write_npy(const char *name, int major, const char *descr_shape, size_t data_len)
{
    char header[256];
    snprintf(header, sizeof header, "{%s, }", descr_shape);
    size_t prefix = major == 1 ? 10 : 12, hlen = strlen(header) + 1;
    size_t total = (prefix + hlen + 63) / 64 * 64;
    uint8_t *buf = calloc(1, total + data_len + 1);
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (uint8_t)major;
    hlen = total - prefix;
    buf[8] = (uint8_t)hlen;
    buf[9] = (uint8_t)(hlen >> 8);
    memset(buf + prefix, ' ', hlen);
    memcpy(buf + prefix, header, strlen(header));
    buf[total - 1] = '\n';
    write_file(name, buf, total + data_len);
    free(buf);
}

static const char *vector_add =
    ".kernel vector_add\n"
    ".regs 6\n"
    ".arg a, device, u0\n"
    ".arg b, device, u2\n"
    ".arg c, device, u4\n"
    ".arg n, constant, u6\n"
    "    get_sr r1, thread_position_in_grid.x\n"
    "    ld_const.b32 r2, u6, 0\n"
    "    if_icmp.ult 1, r1, r2\n"
    "    ld_dev.b32 r3, u0, r1, 0\n"
    "    ld_dev.b32 r4, u2, r1, 0\n"
    "    wait 0\n"
    "    fadd32 r5, r3, r4\n"
    "    st_dev.b32 r5, u4, r1\n"
    "    pop_exec 1\n"
    "    stop\n";

/* The first lines of a manifest for k.s; cases append args. */
#define HEAD "kernel: k.s\ngrid: [64]\nthreadgroup: [32]\n"
#define ARGS_OK_BUT_A                                                                            \
    "  b: {type: float, count: 64}\n  c: {type: float, count: 64}\n  n: {type: uint, value: 64}\n"

static int setup(void **state)
{
    (void)state;
    char path[256];
    strcpy(tmp, "/tmp/lockstep-bad-XXXXXX");
    if (!mkdtemp(tmp))
        return -1;
    write_text("k.s", vector_add);
    write_text("bad.s", ".kernel k\n.regs 4\n    fadd32 r1, r2\n    stop\n");
    write_text("junk.s", "\x01\x02\xff\xfe garbage \x80\n.kernel\n.regs 999\n");
    write_text("k.metal", "kernel void k(device float *a [[buffer(0)]]) {\n  a[0] = ;\n}\n");
    /* a NUL byte once ended the text there: these compiled and ran (the junk unread) */
    static const char nul_s[] = ".kernel vector_add\n.regs 2\n    stop\n  \0 junk\n";
    write_file("nul.s", nul_s, sizeof nul_s - 1);
    static const char nul_metal[] = "kernel void k(device float *a [[buffer(0)]]) {}\n\0 junk\n";
    write_file("nul.metal", nul_metal, sizeof nul_metal - 1);
    write_npy("trunc.npy", 1, "'descr': '<f4', 'fortran_order': False, 'shape': (64,)", 100);
    write_npy("dtype.npy", 1, "'descr': '<c8', 'fortran_order': False, 'shape': (64,)", 512);
    write_npy("big_endian.npy", 1, "'descr': '>f4', 'fortran_order': False, 'shape': (64,)", 256);
    write_npy("huge.npy", 1, "'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,)",
              16);
    write_npy("fortran.npy", 1, "'descr': '<f4', 'fortran_order': True, 'shape': (8, 8)", 256);
    write_npy("short.npy", 2, "'descr': '<f4', 'fortran_order': False, 'shape': (10,)", 40);
    write_npy("ints.npy", 1, "'descr': '<f8', 'fortran_order': False, 'shape': (64,)", 512);
    /* Python would keep the second descr; the file says two things */
    write_npy("descr_twice.npy", 1, "'descr': '<f4', 'descr': '<i4', 'fortran_order': False, "
              "'shape': (64,)", 256);
    /* |b1 data whose element 5 is the byte 2: not a bool */
    write_npy("bool2.npy", 1, "'descr': '|b1', 'fortran_order': False, 'shape': (64,)", 64);
    snprintf(path, sizeof path, "%s/bool2.npy", tmp);
    FILE *b1 = fopen(path, "r+b");
    assert_non_null(b1);
    assert_int_equal(fseek(b1, -64 + 5, SEEK_END), 0);
    fputc(2, b1);
    fclose(b1);
    static const char v3[] = "\x93NUMPY\x03\x00\x10\x00{}             \n";
    write_file("v3.npy", v3, sizeof v3 - 1);
    write_text("notnpy.npy", "hello");
    write_file("odd.bin", "\0\0\0\0\0\0", 6);
    {
        uint8_t bools[64] = {0};
        bools[5] = 7; /* raw bytes for a bool buffer: 7 is no bool */
        bools[9] = 1;
        write_file("bool7.bin", bools, sizeof bools);
    }
    uint8_t junk[300];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (uint8_t)(i * 151 + 7);
    write_file("junk.yaml", junk, sizeof junk);
    snprintf(path, sizeof path, "%s/adir", tmp);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/fifo.yaml", tmp);
    assert_int_equal(mkfifo(path, 0644), 0);
    snprintf(path, sizeof path, "%s/fifo.metal", tmp);
    assert_int_equal(mkfifo(path, 0644), 0);
    snprintf(path, sizeof path, "%s/huge.yaml", tmp);
    assert_int_equal(truncate_file(path, ((off_t)1 << 30) + 1), 0);
    /* 5000 nested lists */
    char *deep = malloc(10002);
    memset(deep, '[', 5000);
    memset(deep + 5000, ']', 5000);
    deep[10000] = '\n';
    deep[10001] = '\0';
    write_text("deep.yaml", deep);
    free(deep);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    return system(cmd) == 0 ? 0 : -1;
}

/* Writes NAME.yaml, runs `lockstep run` on it, checks status 2 and the message. */
static int run_case(const char *name, const char *manifest, int want_status, const char *needle,
                    const char *needle2)
{
    char file[128], args[512];
    snprintf(file, sizeof file, "%s.yaml", name);
    if (manifest)
        write_text(file, manifest);
    snprintf(args, sizeof args, "run %s/%s", tmp, file);
    char *out = NULL;
    int status = test_lockstep(args, &out);
    int bad = 0;
    if (status != want_status) {
        print_message("%s: exit status %d, expected %d\n%s\n", name, status, want_status, out);
        bad = 1;
    } else if ((needle && !strstr(out, needle)) || (needle2 && !strstr(out, needle2))) {
        print_message("%s: output lacks '%s' / '%s':\n%s\n", name, needle ? needle : "",
                      needle2 ? needle2 : "", out);
        bad = 1;
    }
    free(out);
    return bad;
}

static void test_bad_manifests(void **state)
{
    (void)state;
    static const struct {
        const char *name, *text, *needle, *needle2;
    } cases[] = {
        {"bad_yaml", "kernel: k.s\ngrid: [1, 2\nthreadgroup: [1]\n", "bad_yaml.yaml:3:",
         ": error: invalid YAML"},
        {"bad_indent", "kernel: k.s\n  grid: [1]\n threadgroup: [1]\n", "bad_indent.yaml:",
         ": error: invalid YAML"},
        {"tab", "kernel: k.s\ngrid: [64]\nthreadgroup: [32]\nargs:\n\ta: {}\n", "tab.yaml:5:",
         ": error:"},
        {"not_map", "just a string\n", "not_map.yaml:1:1: error: ", "a map of manifest keys"},
        {"grid_type", "kernel: k.s\ngrid: fast\nthreadgroup: [1]\n", "grid_type.yaml:2:7: error: ",
         "a list of 1 to 3 positive integers"},
        {"grid_zero", "kernel: k.s\ngrid: [0]\nthreadgroup: [1]\n", "grid_zero.yaml:2:8: error: ",
         "positive integers"},
        {"grid_huge", "kernel: k.s\ngrid: [4294967296]\nthreadgroup: [1]\n",
         "grid_huge.yaml:2:8: error: ", "positive integers"},
        {"grid_float", "kernel: k.s\ngrid: [1.5]\nthreadgroup: [1]\n",
         "grid_float.yaml:2:8: error: ", "positive integers"},
        {"tg_large", "kernel: k.s\ngrid: [64]\nthreadgroup: [64, 64]\n",
         "tg_large.yaml:3:14: error: ", "at most 1024 threads"},
        {"tg_groups_overflow", "kernel: k.s\nthreadgroups: [4294967295]\nthreadgroup: [2]\n",
         "tg_groups_overflow.yaml:2:15: error: ", "2^32-1 threads"},
        /* 2^31 x 2^31 x 4 threadgroups of 1 thread: 2^64 threads, which a 64-bit count
         * took for 0 (timed mode ran nothing and succeeded) */
        {"grid_total_wraps",
         "kernel: k.s\nthreadgroups: [2147483648, 2147483648, 4]\nthreadgroup: [1]\n",
         "grid_total_wraps.yaml:2:15: error: ", "at most 2^64-1 threads in the grid"},
        {"grid_total_huge",
         "kernel: k.s\ngrid: [4294967295, 4294967295, 4294967295]\nthreadgroup: [256]\n",
         "grid_total_huge.yaml:2:7: error: ", "at most 2^64-1 threads in the grid"},
        {"unknown_key", "kernel: k.s\ngrid: [64]\nthreadgroup: [32]\nthreadgroupz: [1]\n",
         "unknown_key.yaml:4:1: error: ", "expected one of: kernel"},
        {"dup_key", "kernel: k.s\ngrid: [64]\ngrid: [64]\nthreadgroup: [32]\n",
         "dup_key.yaml:3:1: error: ", "duplicate key"},
        {"no_kernel_key", "grid: [64]\nthreadgroup: [32]\n", "no_kernel_key.yaml:1:1: error: ",
         "kernel:"},
        {"missing_kernel", "kernel: nothere.s\ngrid: [64]\nthreadgroup: [32]\n",
         "missing_kernel.yaml:1:9: error: ", "nothere.s"},
        {"kernel_dir", "kernel: adir/x.s\ngrid: [64]\nthreadgroup: [32]\n",
         "kernel_dir.yaml:1:9: error: ", "adir/x.s"},
        /* a compile error in a .metal kernel: named by file (and, once the compiler is in,
         * line and column), exit 2 */
        {"metal", "kernel: k.metal\ngrid: [64]\nthreadgroup: [32]\n", "k.metal", "error: "},
        {"bad_asm", "kernel: bad.s\ngrid: [64]\nthreadgroup: [32]\n", "bad.s:3:", ": error: "},
        {"junk_asm", "kernel: junk.s\ngrid: [64]\nthreadgroup: [32]\n", "junk.s:", ": error: "},
        {"nul_asm", "kernel: nul.s\ngrid: [64]\nthreadgroup: [32]\n", "nul.s:4:3: error: ",
         "a NUL byte"},
        {"nul_metal", "kernel: nul.metal\ngrid: [64]\nthreadgroup: [32]\n",
         "nul.metal:2:1: error: ", "a NUL byte"},
        {"entry", "kernel: k.s\nentry: softmax\ngrid: [64]\nthreadgroup: [32]\n",
         "entry.yaml:2:8: error: ", "vector_add"},
        {"constants", HEAD "constants: {N: 1}\n", "constants.yaml:4:12: error: ",
         "function constants need a .metal kernel"},
        {"constant_name", "kernel: k.metal\ngrid: [64]\nthreadgroup: [32]\nconstants: {\"\": 1}\n",
         "constant_name.yaml:4:13: error: ", "a function constant's name"},
        {"huge_count", HEAD "args:\n  a: {type: float, count: 99999999999}\n" ARGS_OK_BUT_A,
         "huge_count.yaml:5:27: error: ", "1 GiB"},
        /* not "(1 to 18446744073709551615)": the cap is 1 GiB */
        {"zero_count", HEAD "args:\n  a: {type: float, count: 0}\n" ARGS_OK_BUT_A,
         "zero_count.yaml:5:27: error: ", "a positive number of elements (at least 1)"},
        {"huge_bytes", HEAD "args:\n  a: {bytes: 1e12}\n" ARGS_OK_BUT_A,
         "huge_bytes.yaml:5:14: error: ", "1 GiB"},
        {"unknown_arg", HEAD "args:\n  q: {type: float, count: 4}\n", "unknown_arg.yaml:5:3: error: ",
         "a, b, c, n"},
        {"missing_arg", HEAD "args:\n" ARGS_OK_BUT_A, "missing_arg.yaml:4:1: error: ",
         "argument 'a'"},
        {"no_type", HEAD "args:\n  a: {count: 64}\n" ARGS_OK_BUT_A, "no_type.yaml:5:3: error: ",
         "type:"},
        {"bad_type", HEAD "args:\n  a: {type: float8, count: 64}\n" ARGS_OK_BUT_A,
         "bad_type.yaml:5:13: error: ", "element type"},
        {"range_value", HEAD "args:\n  a: {type: float, count: 64}\n  b: {type: float, count: 64}\n"
                        "  c: {type: float, count: 64}\n  n: {type: uint, value: -1}\n",
         "range_value.yaml:8:26: error: ", "out of range for uint"},
        {"init_str", HEAD "args:\n  a: {type: float, count: 64, init: {fill: \"1\"}}\n" ARGS_OK_BUT_A,
         "init_str.yaml:5:44: error: ", "a number"},
        /* numbers past the largest double were taken for infinity */
        {"fill_1e400", HEAD "args:\n  a: {type: float, count: 64, init: {fill: 1e400}}\n" ARGS_OK_BUT_A,
         "fill_1e400.yaml:5:44: error: ", "1e400 is past the largest double"},
        {"range_1e400", HEAD "args:\n  a: {type: float, count: 64, init: {range: [0, 1e400]}}\n"
                        ARGS_OK_BUT_A, "range_1e400.yaml:5:49: error: ", "write .inf for infinity"},
        {"expect_1e400", HEAD "args:\n  a: {type: float, count: 64}\n  b: {type: float, count: 64}\n"
                         "  c: {type: float, count: 2, expect: [1e400, 1]}\n  n: {type: uint, value: 64}\n",
         "expect_1e400.yaml:7:39: error: ", "past the largest double"},
        {"rtol_1e400", HEAD "args:\n  a: {type: float, count: 64}\n  b: {type: float, count: 64}\n"
                       "  c: {type: float, count: 1, expect: {values: [1], rtol: 1e400}}\n"
                       "  n: {type: uint, value: 64}\n", "rtol_1e400.yaml:7:58: error: ",
         "past the largest double"},
        {"values_400_digits", HEAD "args:\n  a: {type: float, count: 1, init: {values: [1"
         "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
         "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
         "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
         "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000]}}\n"
         ARGS_OK_BUT_A, "values_400_digits.yaml:5:46: error: ", "10000000000000000000... is past the largest double"},
        {"values_len", HEAD "args:\n  a: {type: float, count: 64, init: {values: [1, 2]}}\n"
                       ARGS_OK_BUT_A, "values_len.yaml:5:46: error: ", "expected 64 values"},
        {"alias", "a: &x [1]\nb: *x\n", "alias.yaml:2:4: error: ", "aliases"},
        {"two_docs", HEAD "---\n" HEAD, "two_docs.yaml:4:1: error: ", "one YAML document"},
        {"empty", "", "empty.yaml: error: ", "empty"},
        {"junk", NULL, "junk.yaml:", ": error: "},
        {"deep", NULL, "deep.yaml:", ": error: "},
        {"dump_twice",
         HEAD "args:\n  a: {type: float, count: 64, dump: out.bin}\n"
              "  b: {type: float, count: 64}\n  c: {type: float, count: 64, dump: ./out.bin}\n"
              "  n: {type: uint, value: 64}\n",
         "dump_twice.yaml:7:37: error: ", "argument 'a' is dumped to this file too (line 5)"},
        {"dump_over_expect",
         HEAD "args:\n  a: {type: float, count: 64, expect: {file: want.npy}}\n"
              "  b: {type: float, count: 64}\n  c: {type: float, count: 64, dump: ./want.npy}\n"
              "  n: {type: uint, value: 64}\n",
         "dump_over_expect.yaml:7:37: error: ", "the expect: file of argument 'a' (line 5)"},
        {"dump_dir", HEAD "args:\n  a: {type: float, count: 64, dump: nodir/a.npy}\n" ARGS_OK_BUT_A,
         "dump_dir.yaml:5:37: error: ", "nodir/a.npy"},
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        failures += run_case(cases[i].name, cases[i].text, 2, cases[i].needle, cases[i].needle2);
    assert_int_equal(failures, 0);
}

static void test_bad_data_files(void **state)
{
    (void)state;
    static const struct {
        const char *file, *needle;
    } cases[] = {
        {"trunc.npy", "truncated .npy data"},
        {"dtype.npy", "unsupported dtype '<c8'"},
        {"big_endian.npy", "big-endian"},
        {"huge.npy", "larger than"},
        {"fortran.npy", "Fortran"},
        {"short.npy", "expected 64"},
        {"v3.npy", "version 3.0"},
        {"descr_twice.npy", "the key 'descr' is given twice"},
        {"bool2.npy", "element 5 of the |b1 data is the byte 2; expected 0 (False) or 1 (True)"},
        {"notnpy.npy", "not a .npy file"},
        {"odd.bin", "expected 256"},
        {"nothere.npy", "cannot open"},
        {"adir", "regular file"},
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[64], text[512], where[128];
        snprintf(name, sizeof name, "data_%zu", i);
        /* the same file as an init (line 5) and, separately, as an expectation (line 5 of a
         * second manifest) */
        snprintf(text, sizeof text, HEAD "args:\n  a: {type: float, count: 64, init: {file: %s}}\n"
                 ARGS_OK_BUT_A, cases[i].file);
        snprintf(where, sizeof where, "%s.yaml:5:44: error: ", name);
        failures += run_case(name, text, 2, where, cases[i].needle);
        failures += run_case(name, NULL, 2, cases[i].file, cases[i].needle);
        snprintf(name, sizeof name, "expect_%zu", i);
        snprintf(text, sizeof text, HEAD "args:\n  a: {type: float, count: 64}\n"
                 "  b: {type: float, count: 64}\n  n: {type: uint, value: 64}\n"
                 "  c: {type: float, count: 64, expect: {file: %s}}\n", cases[i].file);
        snprintf(where, sizeof where, "%s.yaml:8:46: error: ", name);
        failures += run_case(name, text, 2, where, cases[i].needle);
    }
    assert_int_equal(failures, 0);
    /* a raw init for a bool buffer holds 0s and 1s only (a 7 was kept, and dumped as 7) */
    assert_int_equal(run_case("bool_bin", HEAD "args:\n  a: {type: float, count: 64}\n"
                              "  b: {type: float, count: 64}\n  n: {type: uint, value: 64}\n"
                              "  c: {type: bool, count: 64, init: {file: bool7.bin}}\n", 2,
                              "bool_bin.yaml:8:", "value 5 is the byte 7, not a bool (0 or 1)"), 0);
}

/* Kernels past a limit, and an entry: the .metal file lacks, are refused at the manifest's
 * kernel: or entry: line (the simulator's refusal named only the manifest). */
static void test_kernel_limits(void **state)
{
    (void)state;
    write_text("tg_big.metal", "kernel void k(device float *a [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
                               "    threadgroup float t[10000];\n    t[i] = 1; a[i] = t[i];\n}\n");
    write_text("stack_big.s", ".kernel k\n.regs 2\n.stack 1048576\n    st_stack.b32 r1, 0, 0\n    stop\n");
    int failures = 0;
    failures += run_case("tg_big", "kernel: tg_big.metal\ngrid: [4]\nthreadgroup: [4]\nargs:\n  a: {count: 4}\n",
                         2, "tg_big.yaml:1:9: error: kernel 'k' needs 40000 bytes of threadgroup memory "
                         "(its largest array: t, 40000 bytes), more than the 32768", NULL);
    failures += run_case("stack_big", "kernel: stack_big.s\ngrid: [4]\nthreadgroup: [4]\n", 2,
                         "stack_big.yaml:1:9: error: kernel 'k' needs 1048576 bytes of thread memory", NULL);
    failures += run_case("no_entry", "kernel: tg_big.metal\nentry: other\ngrid: [4]\nthreadgroup: [4]\n"
                         "args:\n  a: {count: 4}\n", 2, "no_entry.yaml:2:8: error: expected entry: to name "
                         "a kernel of", "no kernel named 'other' (the file's kernels: k)");
    /* the GPU config's own limit (it was parsed and not used: 32 KiB always) */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "sed 's/^tg_memory_per_threadgroup: 32768/tg_memory_per_threadgroup: "
             "16384/' sim/gpus/m1.yaml > %s/small_tg.yaml", tmp);
    assert_int_equal(test_run(cmd, NULL), 0);
    write_text("tg_20k.metal", "kernel void k(device float *a [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
                               "    threadgroup float t[5000];\n    t[i] = 1; a[i] = t[i];\n}\n");
    failures += run_case("tg_gpu", "kernel: tg_20k.metal\ngpu: small_tg.yaml\ngrid: [4]\nthreadgroup: [4]\n"
                         "args:\n  a: {count: 4}\n", 2, "tg_gpu.yaml:1:9: error: kernel 'k' needs 20000 "
                         "bytes of threadgroup memory", "more than the 16384 a threadgroup may use");
    failures += run_case("tg_gpu_default", "kernel: tg_20k.metal\ngrid: [4]\nthreadgroup: [4]\n"
                         "args:\n  a: {count: 4}\n", 0, "ran ", NULL);
    /* threadgroup argument blocks are held to the same limit (they were held to 32 KiB
     * whatever the GPU): 20000 bytes past a 16 KiB GPU, 40000 within a 64 KiB one, whose
     * last float the kernel writes and reads back */
    write_text("tg_arg.metal", "kernel void k(device float *a [[buffer(0)]], threadgroup float *s "
                               "[[threadgroup(0)]],\n              uint i [[thread_position_in_grid]]) {\n"
                               "    s[9999 - i] = float(i) + 0.5f; a[i] = s[9999 - i];\n}\n");
    failures += run_case("tg_arg_small", "kernel: tg_arg.metal\ngpu: small_tg.yaml\ngrid: [4]\n"
                         "threadgroup: [4]\nargs:\n  a: {count: 4}\n  s: {bytes: 20000}\n", 2,
                         "tg_arg_small.yaml:7:14: error: expected at most 16384 bytes of threadgroup "
                         "memory in all", "come to 20000");
    snprintf(cmd, sizeof cmd, "sed -e 's/^tg_memory_per_threadgroup: 32768/tg_memory_per_threadgroup: "
             "65536/' -e 's/^tg_memory_per_core: 61440/tg_memory_per_core: 131072/' sim/gpus/m1.yaml "
             "> %s/big_tg.yaml", tmp);
    assert_int_equal(test_run(cmd, NULL), 0);
    failures += run_case("tg_arg_big", "kernel: tg_arg.metal\ngpu: big_tg.yaml\ngrid: [4]\n"
                         "threadgroup: [4]\nargs:\n  a: {count: 4, expect: {values: [0.5, 1.5, 2.5, "
                         "3.5]}}\n  s: {bytes: 40000}\n", 0, "expect a    ok (4 elements)", NULL);
    failures += run_case("tg_arg_default", "kernel: tg_arg.metal\ngrid: [4]\nthreadgroup: [4]\n"
                         "args:\n  a: {count: 4}\n  s: {bytes: 40000}\n", 2, "tg_arg_default.yaml:6:"
                         "14: error: expected at most 32768 bytes", NULL);
    write_text("two.metal", "kernel void a(device float *o [[buffer(0)]]) { o[0] = 1; }\n"
                            "kernel void b(device float *o [[buffer(0)]]) { o[0] = 2; }\n");
    failures += run_case("two_kernels", "kernel: two.metal\ngrid: [1]\nthreadgroup: [1]\nargs:\n"
                         "  o: {count: 1}\n", 2, "two_kernels.yaml:1:9: error: ",
                         "the file has several kernels (a, b): name the one to run (entry: NAME)");
    assert_int_equal(failures, 0);
}

static void test_command_line(void **state)
{
    (void)state;
    static const struct {
        const char *args;
        int status;
        const char *needle;
    } cases[] = {
        {"", 2, "usage: lockstep"},
        {"frobnicate", 2, "unknown command 'frobnicate'"},
        {"--frob", 2, "unknown option '--frob'"},
        {"run", 2, "expected a launch manifest"},
        {"run --frob x.yaml", 2, "unknown option '--frob'"},
        {"run a.yaml b.yaml", 2, "unexpected argument 'b.yaml'"},
        {"run --budget abc x.yaml", 2, "--budget"},
        {"run --budget 0 x.yaml", 2, "--budget"},
        {"run --mode fast x.yaml", 2, "functional or timed"},
        {"run --mode", 2, "needs a value"},
        {"run /nonexistent/launch.yaml", 2, "/nonexistent/launch.yaml: error: cannot open"},
        {"isa extra", 2, "unexpected argument"},
        {"--help", 0, "run LAUNCH.yaml"},
        {"help run", 0, "--budget"},
        {"help --help", 0, "run LAUNCH.yaml"}, /* was "unknown command '--help'" */
        {"run --help", 0, "--mode functional|timed"},
        {"--version", 0, "lockstep "},
        /* a device or a FIFO is not a file to read whole: /dev/zero was read until memory
         * ran out, a FIFO waited for a writer */
        {"run /dev/zero", 2, "/dev/zero: error: expected a regular file"},
        {"run --gpu /dev/zero kernels/basics/vector_add.yaml", 2, "/dev/zero: error: expected a regular file"},
        {"compile x.metal -D N=4 -D N=5", 2, "-D N=5 gives N a second value"},
        {"compile /dev/zero", 2, "/dev/zero: error: expected a regular file"},
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out = NULL;
        int status = test_lockstep(cases[i].args, &out);
        if (status != cases[i].status || !strstr(out, cases[i].needle)) {
            print_message("`lockstep %s`: status %d (expected %d), output:\n%s\n", cases[i].args,
                          status, cases[i].status, out);
            failures++;
        }
        free(out);
    }
    assert_int_equal(failures, 0);
    /* a FIFO (opening it waited for a writer) and a sparse file over the 1 GiB cap */
    static const struct {
        const char *file, *cmd, *needle;
    } files[] = {
        {"fifo.yaml", "run", "fifo.yaml: error: expected a regular file"},
        {"fifo.metal", "compile", "fifo.metal: error: expected a regular file"},
        {"huge.yaml", "run", "huge.yaml: error: 1073741825 bytes; expected a file of at most 1 GiB"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char args[512], *out = NULL;
        snprintf(args, sizeof args, "%s %s/%s", files[i].cmd, tmp, files[i].file);
        int status = test_lockstep(args, &out);
        if (status != 2 || !strstr(out, files[i].needle)) {
            print_message("`lockstep %s`: status %d (expected 2), output:\n%s\n", args, status,
                          out);
            failures++;
        }
        free(out);
    }
    assert_int_equal(failures, 0);
    /* output that cannot be written (a full disk) is an error, not success */
    static const char *const full[] = {"gpus", "--help", "isa"};
    for (size_t i = 0; i < sizeof full / sizeof full[0]; i++) {
        char cmd[4096], *out = NULL;
        snprintf(cmd, sizeof cmd, "{ %s %s > /dev/full; }", test_lockstep_path(), full[i]);
        int status = test_run(cmd, &out);
        if (status != 2 || !strstr(out, "cannot write standard output")) {
            print_message("`lockstep %s > /dev/full`: status %d, output:\n%s\n", full[i], status,
                          out);
            failures++;
        }
        free(out);
    }
    assert_int_equal(failures, 0);
}

/* The statuses that are not bad input, so the cases above are known to fail for the reason
 * they claim. Expected sums: 2.5 + 2i for a = i + 0.5 (range), b = 2 (fill). */
static void test_good_and_finding_runs(void **state)
{
    (void)state;
    char want[64 * 8];
    size_t len = 0;
    for (int i = 0; i < 64; i++)
        len += (size_t)snprintf(want + len, sizeof want - len, "%s%g", i ? ", " : "", 2.5 + 2 * i);
    char text[2048];
    snprintf(text, sizeof text, HEAD "args:\n  a: {type: float, count: 64, init: {range: [0.5, 2]}}\n"
             "  b: {type: float, count: 64, init: {fill: 2}}\n"
             "  c: {type: float, count: 64, expect: [%s]}\n  n: {type: uint, value: 64}\n", want);
    assert_int_equal(run_case("good", text, 0, "expect c    ok (64 elements)", "SIMD-group"), 0);
    /* one element off: status 1 and the element named */
    want[0] = '3';
    snprintf(text, sizeof text, HEAD "args:\n  a: {type: float, count: 64, init: {range: [0.5, 2]}}\n"
             "  b: {type: float, count: 64, init: {fill: 2}}\n"
             "  c: {type: float, count: 64, expect: [%s]}\n  n: {type: uint, value: 64}\n", want);
    assert_int_equal(run_case("mismatch", text, 1, "1 of 64 elements differ",
                              "c[0]: got 2.5, expected 3.5 (diff -1)"), 0);
    /* a buffer too short: the kernel reads out of bounds; status 1 and the fault */
    assert_int_equal(run_case("oob", HEAD "args:\n  a: {type: float, count: 63}\n"
                              ARGS_OK_BUT_A, 1, "error: out-of-bounds read of device buffer 'a' "
                              "at byte offset 252 (4 bytes; valid 0..251) by thread (63,0,0)",
                              "pc 0x"), 0);
    assert_int_equal(run_case("budget", HEAD "budget: 3\nargs:\n  a: {type: float, count: 64}\n"
                              ARGS_OK_BUT_A, 1, "instruction budget of 3 exhausted", NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_manifests),
        cmocka_unit_test(test_bad_data_files),
        cmocka_unit_test(test_kernel_limits),
        cmocka_unit_test(test_command_line),
        cmocka_unit_test(test_good_and_finding_runs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
