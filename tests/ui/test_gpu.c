/*
 * test_gpu.c — GPU configs and timing statistics on the command line: every shipped config
 * loads, m1.yaml is exactly sim_gpu_default(), each kind of mistake in a config is reported at
 * its file:line:col, `lockstep gpus` shows numbers the test computes itself from the YAML text,
 * --gpu by name and path (and the manifest's gpu:), and --stats=json is valid JSON with every
 * field. Runs from the repository root (as `make test` does).
 */
#include "test_json.h"
#include "test_util.h"

#include <ctype.h>
#include <math.h>
#include <unistd.h>

#include "../../ui/ui.h"

static const char *const shipped[] = {"m1", "m1-max", "m2", "m3-max", "m4-pro", "m5"};

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* ---- loading ---------------------------------------------------------------------------------- */

static void test_shipped_configs_load(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "sim/gpus/%s.yaml", shipped[i]);
        UiGpu g;
        UtilError err;
        if (!ui_gpu_load(path, &g, &err))
            fail_msg("%s", err.message);
        assert_string_equal(g.config.name, shipped[i]);
        assert_true(g.config.cores > 0 && g.config.clock_mhz > 0);
        assert_true(g.sources[0] != '\0');
        assert_true(g.config.memory.cores == g.config.cores);
        assert_true(mem_hierarchy_config_check(&g.config.memory, &err));
        /* Every op has a timing: its class's or an override. */
        for (int op = 0; op < ISA_OP_COUNT; op++)
            assert_true(g.config.op[op].latency >= 1 && g.config.op[op].interval >= 1);
    }
}

static void test_m1_equals_builtin(void **state)
{
    (void)state;
    UiGpu g;
    UtilError err;
    if (!ui_gpu_load("sim/gpus/m1.yaml", &g, &err))
        fail_msg("%s", err.message);
    const SimGpuConfig *a = &g.config, *b = sim_gpu_default();
    assert_string_equal(a->name, b->name);
    assert_string_equal(a->chip, b->chip);
    assert_int_equal(a->cores, b->cores);
    assert_true(a->clock_mhz == b->clock_mhz);
    assert_int_equal(a->schedulers_per_core, b->schedulers_per_core);
    assert_int_equal(a->max_threads_per_core, b->max_threads_per_core);
    assert_int_equal(a->max_threadgroups_per_core, b->max_threadgroups_per_core);
    assert_int_equal(a->tg_memory_per_core, b->tg_memory_per_core);
    assert_int_equal(a->tg_memory_per_threadgroup, b->tg_memory_per_threadgroup);
    for (int c = 0; c < ISA_CLASS_COUNT; c++) {
        if (a->op_class[c].latency != b->op_class[c].latency ||
            a->op_class[c].interval != b->op_class[c].interval)
            fail_msg("op class %s: m1.yaml {%u, %u}, built in {%u, %u}",
                     isa_class_name((IsaClass)c), a->op_class[c].latency,
                     a->op_class[c].interval, b->op_class[c].latency, b->op_class[c].interval);
    }
    for (int op = 0; op < ISA_OP_COUNT; op++) {
        if (a->op[op].latency != b->op[op].latency || a->op[op].interval != b->op[op].interval)
            fail_msg("op %s: m1.yaml {%u, %u}, built in {%u, %u}", isa_ops[op].name,
                     a->op[op].latency, a->op[op].interval, b->op[op].latency,
                     b->op[op].interval);
    }
    for (int lv = 0; lv < MEM_LEVEL_COUNT; lv++) {
        const MemCacheLevelConfig *x = &a->memory.level[lv], *y = &b->memory.level[lv];
        if (x->size_bytes != y->size_bytes || x->line_bytes != y->line_bytes ||
            x->ways != y->ways || x->latency != y->latency ||
            x->bytes_per_cycle != y->bytes_per_cycle)
            fail_msg("memory level %s differs: m1.yaml {%llu, %u, %u, %u, %.17g}, built in "
                     "{%llu, %u, %u, %u, %.17g}", mem_level_names[lv],
                     (unsigned long long)x->size_bytes, x->line_bytes, x->ways, x->latency,
                     x->bytes_per_cycle, (unsigned long long)y->size_bytes, y->line_bytes,
                     y->ways, y->latency, y->bytes_per_cycle);
    }
    assert_int_equal(a->memory.cores, b->memory.cores);
    assert_int_equal(a->tg_latency, b->tg_latency);
    assert_int_equal(a->tg_banks, b->tg_banks);
    assert_int_equal(a->tg_bank_bytes, b->tg_bank_bytes);
    assert_int_equal(a->wait_slot_loads, b->wait_slot_loads);
    assert_int_equal(a->barrier_latency, b->barrier_latency);
    assert_true(a->fp32_flops_per_cycle_per_core == b->fp32_flops_per_cycle_per_core);
    assert_true(a->dram_bytes_per_second == b->dram_bytes_per_second);
}

static char *edit(const char *from, const char *to, size_t mark, uint32_t *line, uint32_t *col);

static void test_m5_keeps_neural_accelerator(void **state)
{
    (void)state;
    UiGpu g;
    UtilError err;
    assert_true(ui_gpu_load("sim/gpus/m5.yaml", &g, &err));
    assert_true(g.config.neural_fp16_flops_per_cycle_per_core == 1024);
    /* the tensor class follows from it: 1024 FLOPs a tmma at 256 a scheduler, 4 cycles;
     * latency those 4 and ffma32's 6 */
    assert_int_equal(g.config.op[ISA_OP_TMMA].interval, 4);
    assert_int_equal(g.config.op[ISA_OP_TMMA].latency, 10);
    assert_true(ui_gpu_load("sim/gpus/m1.yaml", &g, &err));
    assert_true(g.config.neural_fp16_flops_per_cycle_per_core == 0);
    /* without one, tensor ops take the matrix class's timing (on the ALUs) */
    assert_int_equal(g.config.op[ISA_OP_TMMA].interval, g.config.op[ISA_OP_MMA32].interval);
    assert_int_equal(g.config.op[ISA_OP_TMMA].latency, g.config.op[ISA_OP_MMA32].latency);
    /* a config may give the tensor class itself */
    uint32_t line, col;
    char *text = edit("  barrier:", "  tensor: {latency: 7, interval: 3}\n  barrier:", 0, &line,
                      &col);
    assert_true(ui_gpu_parse(text, strlen(text), "t.yaml", &g, &err));
    assert_int_equal(g.config.op[ISA_OP_TMMA].latency, 7);
    assert_int_equal(g.config.op[ISA_OP_TMMA].interval, 3);
    free(text);
}

/* ---- errors ----------------------------------------------------------------------------------- */

/* m1.yaml with the first `from` replaced by `to`; *line and *col receive the 1-based
 * position of to[mark] (the character the error must point at). */
static char *edit(const char *from, const char *to, size_t mark, uint32_t *line, uint32_t *col)
{
    char *text = read_text("sim/gpus/m1.yaml");
    char *at = strstr(text, from);
    if (!at)
        fail_msg("m1.yaml has no '%s'", from);
    size_t off = (size_t)(at - text), n = strlen(text);
    char *out = malloc(n + strlen(to) + 1);
    memcpy(out, text, off);
    strcpy(out + off, to);
    strcat(out, at + strlen(from));
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off + mark; i++) {
        if (out[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
    free(text);
    return out;
}

static void expect_error(const char *from, const char *to, size_t mark, const char *want)
{
    uint32_t line, col;
    char *text = edit(from, to, mark, &line, &col);
    UiGpu g;
    UtilError err;
    bool ok = ui_gpu_parse(text, strlen(text), "bad.yaml", &g, &err);
    free(text);
    if (ok)
        fail_msg("replacing '%s' by '%s' was accepted", from, to);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "bad.yaml:%u:%u: error: ", line, col);
    if (strncmp(err.message, prefix, strlen(prefix)) != 0 || !strstr(err.message, want))
        fail_msg("replacing '%s' by '%s': want '%s...%s', got:\n%s", from, to, prefix, want,
                 err.message);
}

static void test_config_errors(void **state)
{
    (void)state;
    /* Unknown keys name the allowed ones. */
    expect_error("\ncores: 8", "\ncolour: red\ncores: 8", 1,
                 "unknown key 'colour' in a GPU config; expected one of: name, chip, sources, "
                 "cores");
    expect_error("  latency: 55", "  latncy: 55", 2,
                 "unknown key 'latncy' in threadgroup_memory; expected one of: latency, banks");
    expect_error("l1:   {size: 8192,", "l1:   {sise: 8192,", 7, "unknown key 'sise' in memory.l1");
    /* Wrong types. */
    expect_error("cores: 8 ", "cores: eight ", 7, "expected cores: the number of GPU cores");
    expect_error("clock_mhz: 1278", "clock_mhz: fast", 11, "expected clock_mhz: the GPU clock");
    expect_error("  l1:   {size: 8192, line: 128, ways: 8, latency: 60, bytes_per_cycle: 64}",
                 "  l1:   64", 8, "expected memory.l1: a map {size, line, ways, latency, "
                                  "bytes_per_cycle}");
    expect_error("fp32:            {latency: 3, interval: 1}", "fp32: [3, 1]", 6,
                 "expected a map {latency: CYCLES, interval: CYCLES} for op class fp32");
    /* Negative or zero sizes and counts. */
    expect_error("{size: 8192,", "{size: 0,", 7, "expected size: the capacity in bytes");
    expect_error("cores: 8 ", "cores: 0 ", 7, "expected cores: the number of GPU cores (1 to");
    expect_error("clock_mhz: 1278", "clock_mhz: -1278", 11, "expected clock_mhz");
    expect_error("ffma32:         {latency: 6, interval: 1}", "ffma32:         {latency: 6, interval: 0}", 39,
                 "expected interval: cycles before the pipe");
    expect_error("dram_gb_per_second: 68.25", "dram_gb_per_second: 0", 20,
                 "expected dram_gb_per_second");
    /* Line sizes and banks must be powers of two; sizes whole sets. */
    expect_error("size: 8192, line: 128,", "size: 8192, line: 96,", 18,
                 "expected line: the line size in bytes, a power of two (not 96)");
    expect_error("{size: 8192,", "{size: 8000,", 7, "expected size: a multiple of line x ways");
    expect_error("  banks: 16", "  banks: 12", 9, "expected banks: a power of two, not 12");
    expect_error("l2:   {size: 786432, line: 128,", "l2:   {size: 786432, line: 64,", 27,
                 "expected line: at least the l1 line (128 bytes), not 64");
    /* The cache model's limits: reported at the level's own key, not at memory:. */
    expect_error("l2:   {size: 786432, line: 128, ways: 16,", "l2:   {size: 786432, line: 128, "
                 "ways: 512,", 38, "expected ways: the associativity (1 to 256)");
    expect_error("slc:  {size: 8388608, line: 128, ways: 16,", "slc:  {size: 8388608, line: 128, "
                 "ways: 65536,", 39, "expected ways: the associativity (1 to 256)");
    expect_error("l2:   {size: 786432,", "l2:   {size: 4294967296,", 13,
                 "expected size: at most 4194304 lines of 128 bytes (536870912 bytes), the most "
                 "the cache model supports; not 4294967296");
    expect_error("l1:   {size: 8192,", "l1:   {size: 134217728,", 13,
                 "expected size: at most 524288 lines of 128 bytes (67108864 bytes) per core with "
                 "8 cores");
    expect_error("size: 8192, line: 128,", "size: 8192, line: 2,", 18,
                 "expected line: the line size in bytes, a power of two (4 to 65536)");
    expect_error("latency: 340, bytes_per_cycle: 105}", "latency: 340, bytes_per_cycle: 0.0001}",
                 31, "expected bytes_per_cycle: the port's bandwidth, a number from 0.001 to");
    /* Numbers outside their documented range (they printed "inf PFLOP/s peak"). */
    expect_error("clock_mhz: 1278", "clock_mhz: 1e30", 11,
                 "expected clock_mhz: the GPU clock in MHz, a number from 1 to 10000 (not 1e30)");
    expect_error("fp32_flops_per_cycle_per_core: 256", "fp32_flops_per_cycle_per_core: 1e306", 31,
                 "expected fp32_flops_per_cycle_per_core: peak FP32 FLOPs per cycle per core, a "
                 "number from 1 to 1000000 (not 1e306)");
    expect_error("dram_gb_per_second: 68.25", "dram_gb_per_second: 1e300", 20,
                 "expected dram_gb_per_second: peak DRAM bandwidth in GB/s, a number from 0.001 "
                 "to 100000 (not 1e300)");
    /* A DRAM port derived from dram_gb_per_second / clock below the model's floor: at dram:. */
    {
        uint32_t line, col;
        char *step = edit("clock_mhz: 1278", "clock_mhz: 10000", 0, &line, &col);
        char *dram_gbs = strstr(step, "dram_gb_per_second: 68.25");
        memcpy(dram_gbs, "dram_gb_per_second: 0.001", 25);
        uint32_t dram_line = 1;
        char *dram = strstr(step, "  dram: {");
        for (char *p = step; p < dram; p++)
            dram_line += *p == '\n';
        UiGpu g;
        UtilError err;
        assert_false(ui_gpu_parse(step, strlen(step), "bad.yaml", &g, &err));
        char want[160];
        snprintf(want, sizeof want, "bad.yaml:%u:9: error: expected a DRAM port of at least "
                                    "0.001 bytes per cycle", dram_line);
        if (strncmp(err.message, want, strlen(want)) != 0)
            fail_msg("want '%s', got:\n%s", want, err.message);
        free(step);
    }
    /* Unknown op mnemonics and classes. */
    expect_error("  ffma32:", "  ffma33:", 2, "unknown op 'ffma33'; expected an instruction "
                                              "mnemonic");
    expect_error("  sfu:  ", "  sfx:  ", 2, "unknown op class 'sfx'; expected one of: fp32, "
                                            "fp16, int, int-complex, sfu");
    /* Missing required fields: reported at the map that lacks them. */
    {
        uint32_t line, col;
        char *text = edit("wait_slot_loads: 8 ", "# removed: ", 0, &line, &col);
        char *name = strstr(text, "\nname: m1");
        uint32_t name_line = 2;
        for (char *p = text; p < name; p++)
            name_line += *p == '\n';
        UiGpu g;
        UtilError err;
        assert_false(ui_gpu_parse(text, strlen(text), "bad.yaml", &g, &err));
        char want[128];
        snprintf(want, sizeof want, "bad.yaml:%u:1: error: expected a wait_slot_loads: key",
                 name_line);
        if (strncmp(err.message, want, strlen(want)) != 0)
            fail_msg("want '%s', got:\n%s", want, err.message);
        free(text);
    }
    expect_error("  dram: {line: 128, latency: 397}", "  dram: {line: 128}", 8,
                 "expected a latency: key");
}

/* A missing op class: what the message says and where it points. */
static void test_missing_class_message(void **state)
{
    (void)state;
    uint32_t line, col;
    char *text = edit("  barrier:         {latency: 1, interval: 1}    # [E]\n", "", 0, &line, &col);
    UiGpu g;
    UtilError err;
    assert_false(ui_gpu_parse(text, strlen(text), "bad.yaml", &g, &err));
    assert_non_null(strstr(err.message, "expected a timing for op class barrier in op_classes:"));
    /* It points at the op_classes map: its first entry, fp32. */
    char *fp32 = strstr(text, "  fp32:");
    uint32_t fp32_line = 1;
    for (char *p = text; p < fp32; p++)
        fp32_line += *p == '\n';
    char want[64];
    snprintf(want, sizeof want, "bad.yaml:%u:3: error: ", fp32_line);
    assert_true(strncmp(err.message, want, strlen(want)) == 0);
    free(text);
}

static void test_config_not_a_map(void **state)
{
    (void)state;
    UiGpu g;
    UtilError err;
    assert_false(ui_gpu_parse("", 0, "e.yaml", &g, &err));
    assert_non_null(strstr(err.message, "e.yaml: error: the GPU config is empty"));
    assert_false(ui_gpu_parse("- 1\n", 4, "l.yaml", &g, &err));
    assert_true(strncmp(err.message, "l.yaml:1:1: error: expected a map", 33) == 0);
    assert_false(ui_gpu_load("sim/gpus/no-such-gpu.yaml", &g, &err));
    assert_non_null(strstr(err.message, "no-such-gpu.yaml: error: cannot open"));
}

/* ---- lockstep gpus ---------------------------------------------------------------------------- */

/* A top-level `key: number` of a config, read the simple way (not through ui/). */
static double yaml_number(const char *text, const char *key)
{
    size_t k = strlen(key);
    for (const char *p = text; p; p = strchr(p, '\n')) {
        if (*p == '\n')
            p++;
        if (strncmp(p, key, k) == 0 && p[k] == ':')
            return strtod(p + k + 1, NULL);
    }
    fail_msg("no %s:", key);
    return 0;
}

static void test_gpus_lists_all(void **state)
{
    (void)state;
    char *out = NULL;
    int rc = test_lockstep("gpus", &out);
    assert_int_equal(rc, 0);
    for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "sim/gpus/%s.yaml", shipped[i]);
        char *text = read_text(path);
        double cores = yaml_number(text, "cores"), mhz = yaml_number(text, "clock_mhz");
        double flops = yaml_number(text, "fp32_flops_per_cycle_per_core");
        double gbs = yaml_number(text, "dram_gb_per_second");
        free(text);
        /* The row: name, chip, cores, clock, TFLOPS, GB/s, in that order. */
        char head[64];
        snprintf(head, sizeof head, "\n%-10s ", shipped[i]);
        char *row = strstr(out, head);
        if (!row)
            fail_msg("no row for %s in:\n%s", shipped[i], out);
        char *end = strchr(row + 1, '\n');
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(end - row - 1), row + 1);
        char want[128];
        snprintf(want, sizeof want, " %.0f %.0f %.2f %.2f", cores, mhz,
                 cores * flops * mhz * 1e6 / 1e12, gbs);
        /* Compare with the row's spacing squeezed. */
        char squeezed[512];
        size_t n = 0;
        for (const char *p = line; *p && n + 1 < sizeof squeezed; p++)
            if (!(*p == ' ' && n && squeezed[n - 1] == ' '))
                squeezed[n++] = *p;
        squeezed[n] = '\0';
        if (!strstr(squeezed, want))
            fail_msg("%s: want '%s' in '%s'", shipped[i], want, squeezed);
    }
    /* The M1 row by hand: 8 x 256 x 1.278 GHz = 2.617 TFLOPS. */
    assert_non_null(strstr(out, "2.62"));
    assert_non_null(strstr(out, "sources:"));
    free(out);
}

static void test_gpus_env_folder(void **state)
{
    (void)state;
    char dir[] = "/tmp/lockstep-gpus-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/tiny.yaml", dir);
    uint32_t line, col;
    char *text = edit("name: m1\n", "name: tiny\n", 0, &line, &col);
    char *c = strstr(text, "\ncores: 8");
    c[8] = '2'; /* cores: 2 */
    write_text(path, text);
    free(text);
    char cmd[512], *out = NULL;
    snprintf(cmd, sizeof cmd, "LOCKSTEP_GPUS=%s %s gpus", dir, test_lockstep_path());
    assert_int_equal(test_run(cmd, &out), 0);
    /* 2 x 256 x 1278 MHz = 0.654 TFLOPS */
    assert_non_null(strstr(out, "\ntiny "));
    assert_non_null(strstr(out, "0.65"));
    assert_non_null(strstr(out, "\nm5 "));
    free(out);
    /* A broken config in the folder: reported with its position, exit 2. */
    write_text(path, "name: [tiny]\n");
    assert_int_equal(test_run(cmd, &out), 2);
    assert_non_null(strstr(out, "tiny.yaml:1:7: error: expected name:"));
    free(out);
    unlink(path);
    rmdir(dir);
}

/* One JSON object and nothing else (but white space). */
static bool json_valid(const char *text)
{
    return text[strspn(text, " \t\r\n")] == '{' && test_json_valid(text);
}

/* test_json.h is checked by test_check_cli; here only that an object is required. */
static void test_json_checker(void **state)
{
    (void)state;
    assert_true(json_valid("{\"a\":[1,2.5,-3e4,{\"b\":\"x\\n\"}],\"c\":true,\"d\":null}\n"));
    assert_false(json_valid("[1]"));
    assert_false(json_valid("{\"a\":nan}"));
}

static bool has_key(const char *json, const char *key)
{
    char k[96];
    snprintf(k, sizeof k, "\"%s\":", key);
    return strstr(json, k) != NULL;
}

/* ---- --gpu and --stats ------------------------------------------------------------------------ */

static char *run(const char *args, int want_rc)
{
    char *out = NULL;
    int rc = test_lockstep(args, &out);
    if (rc != want_rc)
        fail_msg("lockstep %s: exit %d, want %d:\n%s", args, rc, want_rc, out);
    return out;
}

static void check_stats_json(const char *out, const char *gpu)
{
    if (!json_valid(out))
        fail_msg("not one JSON object:\n%s", out);
    char want[64];
    snprintf(want, sizeof want, "\"gpu\":\"%s\"", gpu);
    assert_non_null(strstr(out, want));
    static const char *const common[] = {
        "type", "mode", "timed", "chip", "clock_mhz", "num_cores", "schedulers_per_core",
        "instructions", "lane_instructions", "lane_slots", "threads", "threadgroups",
        "simdgroups", "simd_efficiency"};
    for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
        if (!has_key(out, common[i]))
            fail_msg("no \"%s\" in %s", common[i], out);
    if (strstr(out, "\"timed\":true")) {
        static const char *const timed[] = {
            "cycles", "seconds", "cores", "busy_cycles", "ipc", "avg_resident_simdgroups",
            "max_resident_simdgroups", "occupancy_limiter", "stall_cycles", "memory", "hits",
            "misses", "bytes", "hit_rate", "tg_memory_accesses", "tg_bank_conflict_cycles",
            "flops", "flops_per_second", "peak_flops_per_second", "flops_percent_of_peak",
            "dram_bytes", "dram_bytes_per_second", "peak_dram_bytes_per_second",
            "dram_percent_of_peak"};
        for (size_t i = 0; i < sizeof timed / sizeof timed[0]; i++)
            if (!has_key(out, timed[i]))
                fail_msg("no \"%s\" in %s", timed[i], out);
        static const char *const stalls[] = {"dependency", "memory", "barrier", "pipe",
                                             "no_work"};
        for (size_t i = 0; i < sizeof stalls / sizeof stalls[0]; i++)
            assert_true(has_key(out, stalls[i]));
        for (int i = 0; i < MEM_LEVEL_COUNT; i++)
            assert_true(has_key(out, mem_level_names[i]));
    } else {
        assert_non_null(strstr(out, "\"timed\":false"));
        assert_true(has_key(out, "note"));
    }
}

static void test_stats_json(void **state)
{
    (void)state;
    char *out = run("run kernels/asm/vector_add.yaml --stats=json", 0);
    check_stats_json(out, "m1");
    /* vector_add: 1000 threads in 4 threadgroups. */
    assert_non_null(strstr(out, "\"threads\":1000"));
    assert_non_null(strstr(out, "\"threadgroups\":4"));
    free(out);
    out = run("run kernels/asm/vector_add.yaml --stats=json --mode functional", 0);
    check_stats_json(out, "m1");
    assert_non_null(strstr(out, "\"mode\":\"functional\""));
    assert_non_null(strstr(out, "\"timed\":false"));
    free(out);
    out = run("run kernels/asm/threadgroup_sum.yaml --stats=json --gpu m3-max", 0);
    check_stats_json(out, "m3-max");
    free(out);
}

static void test_stats_text(void **state)
{
    (void)state;
    char *out = run("run kernels/asm/vector_add.yaml --stats --mode functional", 0);
    assert_non_null(strstr(out, "need timed mode"));
    assert_non_null(strstr(out, "SIMD eff."));
    free(out);
    out = run("run kernels/asm/vector_add.yaml --stats", 0);
    assert_non_null(strstr(out, "expect c"));   /* the usual report is still there */
    assert_true(strstr(out, "cycles") || strstr(out, "need timed mode"));
    free(out);
    out = run("run kernels/asm/vector_add.yaml --stats=xml", 2);
    assert_non_null(strstr(out, "unknown --stats format 'xml'"));
    free(out);
    out = run("check kernels/asm/vector_add.yaml --stats=json --json", 0);
    assert_non_null(strstr(out, "{\"type\":\"stats\""));
    free(out);
}

static void test_gpu_flag(void **state)
{
    (void)state;
    char *out = run("run kernels/asm/vector_add.yaml --stats=json --gpu m2", 0);
    check_stats_json(out, "m2");
    free(out);
    out = run("run kernels/asm/vector_add.yaml --stats=json --gpu=sim/gpus/m5.yaml", 0);
    check_stats_json(out, "m5");
    free(out);
    out = run("check kernels/asm/vector_add.yaml --quiet --gpu m1-max", 0);
    free(out);
    out = run("run kernels/asm/vector_add.yaml --gpu m9", 2);
    assert_non_null(strstr(out, "lockstep run: error: --gpu: unknown GPU 'm9'; expected one "
                                "of: m1, m1-max, m2, m3-max, m4-pro, m5"));
    free(out);
    out = run("run kernels/asm/vector_add.yaml --gpu", 2);
    assert_non_null(strstr(out, "--gpu needs a value"));
    free(out);
    out = run("run kernels/asm/vector_add.yaml --gpu /nonexistent/x.yaml", 2);
    assert_non_null(strstr(out, "/nonexistent/x.yaml: error: cannot open"));
    free(out);
}

#define MANIFEST_FMT                                                                            \
    "kernel: %s/kernels/asm/vector_add.s\n"                                                     \
    "gpu: %s\n"                                                                                 \
    "grid: [64]\nthreadgroup: [64]\n"                                                          \
    "args:\n  a: {type: float, count: 64}\n  b: {type: float, count: 64}\n"                    \
    "  c: {type: float, count: 64}\n  n: {type: uint, value: 64}\n"

/* The manifest's gpu: — and the flag winning over it. */
static void test_manifest_gpu(void **state)
{
    (void)state;
    char cwd[1024], dir[] = "/tmp/lockstep-mgpu-XXXXXX";
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_non_null(mkdtemp(dir));
    char path[256], text[2048];
    snprintf(path, sizeof path, "%s/m.yaml", dir);
    snprintf(text, sizeof text, MANIFEST_FMT, cwd, "m1-max");
    write_text(path, text);
    char args[512], *out = NULL;
    snprintf(args, sizeof args, "run %s --stats=json", path);
    out = run(args, 0);
    check_stats_json(out, "m1-max");
    free(out);
    snprintf(args, sizeof args, "run %s --stats=json --gpu m4-pro", path);
    out = run(args, 0);
    check_stats_json(out, "m4-pro");
    free(out);
    /* A path in the manifest is relative to the manifest's folder. */
    char cfg[256];
    snprintf(cfg, sizeof cfg, "%s/mine.yaml", dir);
    char *m2 = read_text("sim/gpus/m2.yaml");
    write_text(cfg, m2);
    free(m2);
    snprintf(text, sizeof text, MANIFEST_FMT, cwd, "mine.yaml");
    write_text(path, text);
    snprintf(args, sizeof args, "run %s --stats=json", path);
    out = run(args, 0);
    check_stats_json(out, "m2");
    free(out);
    /* An unknown name points at the manifest's gpu: value (line 2, column 6). */
    snprintf(text, sizeof text, MANIFEST_FMT, cwd, "m0");
    write_text(path, text);
    snprintf(args, sizeof args, "run %s", path);
    out = run(args, 2);
    char want[600];
    snprintf(want, sizeof want, "%s:2:6: error: unknown GPU 'm0'; expected one of: m1,", path);
    if (!strstr(out, want))
        fail_msg("want '%s' in:\n%s", want, out);
    free(out);
    unlink(cfg);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_configs_load),
        cmocka_unit_test(test_m1_equals_builtin),
        cmocka_unit_test(test_m5_keeps_neural_accelerator),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_missing_class_message),
        cmocka_unit_test(test_config_not_a_map),
        cmocka_unit_test(test_gpus_lists_all),
        cmocka_unit_test(test_gpus_env_folder),
        cmocka_unit_test(test_json_checker),
        cmocka_unit_test(test_stats_json),
        cmocka_unit_test(test_stats_text),
        cmocka_unit_test(test_gpu_flag),
        cmocka_unit_test(test_manifest_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
