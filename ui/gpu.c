/*
 * gpu.c — GPU configs for the timing model: reading sim/gpus/NAME.yaml into a SimGpuConfig
 * (every mistake reported as file:line:col), finding a config by name, choosing the one a
 * run uses (--gpu beats the manifest's gpu:, which beats the built-in M1) and the
 * `lockstep gpus` listing.
 *
 * A config spells out every field: a missing one is an error rather than a silent default,
 * because a config is a claim about a chip and a forgotten key would quietly make an M5 look
 * like an M1. Only per-op overrides (`ops:`) and the neural accelerator are optional.
 * Configs are searched in $LOCKSTEP_GPUS (a colon-separated list of folders), then
 * <binary>/../sim/gpus (a build tree), then <binary>/../share/lockstep/gpus (`make install`).
 */
#include "ui.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

#define MAX_DIRS 16
#define UI_GPU_MAX_BYTES_PER_CYCLE 1e6 /* a port's bandwidth; 0.001 is the cache model's floor */

typedef struct Loader {
    const UiYamlDoc *doc;
    UtilError *err;
} Loader;

static bool fail(const Loader *l, const UiYamlNode *at, const char *fmt, ...) UTIL_PRINTF(3, 4);
static bool fail(const Loader *l, const UiYamlNode *at, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ui_yaml_fail(l->doc, at, l->err, "%s", msg);
}

static bool expect_map(const Loader *l, const UiYamlNode *n, const char *what)
{
    if (n->kind != UI_YAML_MAP)
        return fail(l, n, "expected %s", what);
    return true;
}

/* The value of a required key; fails at the map when it is missing. */
static const UiYamlNode *need(const Loader *l, const UiYamlNode *map, const char *key,
                              const char *what)
{
    const UiYamlNode *v = ui_yaml_get(map, key);
    if (!v)
        fail(l, map, "expected a %s: key (%s)", key, what);
    return v;
}

static bool get_u32(const Loader *l, const UiYamlNode *map, const char *key, const char *what,
                    uint64_t min, uint64_t max, uint32_t *out)
{
    const UiYamlNode *v = need(l, map, key, what);
    char expected[160];
    snprintf(expected, sizeof expected, "%s: %s", key, what);
    uint64_t x;
    if (!v || !ui_yaml_uint(l->doc, v, expected, min, max, &x, l->err))
        return false;
    *out = (uint32_t)x;
    return true;
}

/* A finite number from min to max (each numeric key has a documented range: a value outside
 * it is a typo, and 1e306 FLOPs per cycle would print "inf PFLOP/s peak"). */
static bool get_number(const Loader *l, const UiYamlNode *map, const char *key, const char *what,
                       double min, double max, double *out)
{
    const UiYamlNode *v = need(l, map, key, what);
    if (!v)
        return false;
    UiNumber n;
    char expected[200];
    snprintf(expected, sizeof expected, "%s: %s, a number from %.15g to %.15g", key, what, min,
             max);
    if (!ui_yaml_number(l->doc, v, expected, &n, l->err))
        return false;
    double d = ui_number_to_double(&n);
    if (!(d >= min && d <= max))
        return fail(l, v, "expected %s (not %s)", expected, v->text);
    *out = d;
    return true;
}

static bool get_string(const Loader *l, const UiYamlNode *map, const char *key, const char *what,
                       char *dst, size_t size)
{
    const UiYamlNode *v = need(l, map, key, what);
    const char *text;
    char expected[160];
    snprintf(expected, sizeof expected, "%s: %s", key, what);
    if (!v || !ui_yaml_string(l->doc, v, expected, &text, l->err))
        return false;
    if (strlen(text) >= size)
        return fail(l, v, "expected %s of at most %zu characters", expected, size - 1);
    memcpy(dst, text, strlen(text) + 1);
    return true;
}

static bool is_pow2(uint64_t x)
{
    return x && (x & (x - 1)) == 0;
}

/* ---- op timing -------------------------------------------------------------------------------- */

static bool parse_timing(const Loader *l, const UiYamlNode *n, const char *whose, SimOpTiming *t)
{
    static const char *const keys[] = {"latency", "interval", NULL};
    char what[96];
    snprintf(what, sizeof what, "a map {latency: CYCLES, interval: CYCLES} for %s", whose);
    if (!expect_map(l, n, what))
        return false;
    snprintf(what, sizeof what, "the timing of %s", whose);
    if (!ui_yaml_check_keys(l->doc, n, what, keys, l->err))
        return false;
    uint32_t lat, iv;
    if (!get_u32(l, n, "latency", "cycles until the result can be read", 1, UINT16_MAX, &lat) ||
        !get_u32(l, n, "interval", "cycles before the pipe takes another instruction", 1,
                 UINT16_MAX, &iv))
        return false;
    t->latency = (uint16_t)lat;
    t->interval = (uint16_t)iv;
    return true;
}

static bool parse_op_classes(const Loader *l, const UiYamlNode *map, SimGpuConfig *cfg)
{
    char names[400];
    size_t len = 0;
    names[0] = '\0';
    for (int c = 0; c < ISA_CLASS_COUNT; c++)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", c ? ", " : "",
                                isa_class_name((IsaClass)c));
    char what[480];
    snprintf(what, sizeof what, "op_classes: a map from every op class (%s) to its timing",
             names);
    if (!expect_map(l, map, what))
        return false;
    for (uint32_t i = 0; i < map->count; i++) {
        int c = 0;
        while (c < ISA_CLASS_COUNT && strcmp(isa_class_name((IsaClass)c), map->keys[i]->text))
            c++;
        if (c == ISA_CLASS_COUNT)
            return fail(l, map->keys[i], "unknown op class '%s'; expected one of: %s",
                        map->keys[i]->text, names);
        char whose[64];
        snprintf(whose, sizeof whose, "op class %s", map->keys[i]->text);
        if (!parse_timing(l, map->items[i], whose, &cfg->op_class[c]))
            return false;
    }
    /* Every class but tensor is required; tensor defaults to the matrix class's timing, or
     * to the neural accelerator's when the config has one (sim_gpu_tensor_timing). */
    for (int c = 0; c < ISA_CLASS_COUNT; c++)
        if (c != ISA_CLASS_TENSOR && !ui_yaml_get(map, isa_class_name((IsaClass)c)))
            return fail(l, map, "expected a timing for op class %s in op_classes: (every class "
                                "but tensor is required: %s)", isa_class_name((IsaClass)c),
                        names);
    return true;
}

static bool parse_ops(const Loader *l, const UiYamlNode *map, SimGpuConfig *cfg, uint8_t *mask)
{
    if (!expect_map(l, map, "ops: a map from instruction mnemonics (ffma32, rsqrt32, ...) to "
                            "their timing"))
        return false;
    for (uint32_t i = 0; i < map->count; i++) {
        const char *name = map->keys[i]->text;
        IsaOpcode op = isa_lookup_op(name, strlen(name));
        if (op == ISA_OP_COUNT)
            return fail(l, map->keys[i], "unknown op '%s'; expected an instruction mnemonic "
                                         "such as ffma32, rsqrt32 or umulhi (`lockstep isa` "
                                         "lists them)", name);
        char whose[64];
        snprintf(whose, sizeof whose, "op %s", name);
        if (!parse_timing(l, map->items[i], whose, &cfg->op[op]))
            return false;
        mask[op] = 1;
    }
    return true;
}

/* ---- memory ----------------------------------------------------------------------------------- */

static const char *const level_keys[MEM_LEVEL_COUNT] = {"l1", "l2", "slc", "dram"};

/* Every field is checked here against the cache model's limits (mem/cache.h), so that a value
 * it refuses is reported at its own key. */
static bool parse_level(const Loader *l, const UiYamlNode *n, MemLevel lv, uint32_t cores,
                        MemCacheLevelConfig *c)
{
    static const char *const cache_keys[] = {"size", "line", "ways", "latency", "bytes_per_cycle",
                                             NULL};
    static const char *const dram_keys[] = {"line", "latency", "bytes_per_cycle", NULL};
    bool dram = lv == MEM_LEVEL_DRAM;
    char what[160];
    snprintf(what, sizeof what, "memory.%s: a map {%s}", level_keys[lv],
             dram ? "[line], latency, [bytes_per_cycle]"
                  : "size, line, ways, latency, bytes_per_cycle");
    if (!expect_map(l, n, what))
        return false;
    snprintf(what, sizeof what, "memory.%s", level_keys[lv]);
    if (!ui_yaml_check_keys(l->doc, n, what, dram ? dram_keys : cache_keys, l->err))
        return false;
    memset(c, 0, sizeof *c);
    if (!dram) {
        uint64_t size;
        const UiYamlNode *v = need(l, n, "size", "the capacity in bytes");
        if (!v || !ui_yaml_uint(l->doc, v, "size: the capacity in bytes, a positive integer", 1,
                                UINT64_MAX / 2, &size, l->err))
            return false;
        c->size_bytes = size;
        if (!get_u32(l, n, "ways", "the associativity", 1, MEM_CACHE_MAX_WAYS, &c->ways))
            return false;
    }
    if (!dram || ui_yaml_get(n, "line")) {
        if (!get_u32(l, n, "line", "the line size in bytes, a power of two", MEM_CACHE_MIN_LINE,
                     MEM_CACHE_MAX_LINE, &c->line_bytes))
            return false;
        if (!is_pow2(c->line_bytes))
            return fail(l, ui_yaml_get(n, "line"), "expected line: the line size in bytes, a "
                                                   "power of two (not %u)", c->line_bytes);
    }
    if (!dram && c->size_bytes % ((uint64_t)c->line_bytes * c->ways) != 0)
        return fail(l, ui_yaml_get(n, "size"), "expected size: a multiple of line x ways "
                                               "(%u x %u = %llu bytes), not %llu",
                    c->line_bytes, c->ways, (unsigned long long)c->line_bytes * c->ways,
                    (unsigned long long)c->size_bytes);
    /* The model keeps a tag per line: every core's L1 together, or one L2, at most 4 Mi lines. */
    uint64_t copies = lv == MEM_LEVEL_L1 ? cores : 1;
    if (!dram && c->size_bytes / c->line_bytes > MEM_CACHE_MAX_LINES / copies) {
        char per_core[64] = "";
        if (lv == MEM_LEVEL_L1)
            snprintf(per_core, sizeof per_core, " per core with %u cores", cores);
        return fail(l, ui_yaml_get(n, "size"), "expected size: at most %llu lines of %u bytes "
                                               "(%llu bytes)%s, the most the cache model "
                                               "supports; not %llu",
                    (unsigned long long)(MEM_CACHE_MAX_LINES / copies), c->line_bytes,
                    (unsigned long long)(MEM_CACHE_MAX_LINES / copies * c->line_bytes), per_core,
                    (unsigned long long)c->size_bytes);
    }
    if (!get_u32(l, n, "latency", "cycles from request to data when the line is found here", 1,
                 1u << 20, &c->latency))
        return false;
    /* DRAM's port defaults to the published peak, so a config need not repeat it per cycle. */
    if (dram && !ui_yaml_get(n, "bytes_per_cycle"))
        return true;
    return get_number(l, n, "bytes_per_cycle", "the port's bandwidth",
                      MEM_CACHE_MIN_BYTES_PER_CYCLE, UI_GPU_MAX_BYTES_PER_CYCLE,
                      &c->bytes_per_cycle);
}

static bool parse_memory(const Loader *l, const UiYamlNode *map, SimGpuConfig *cfg)
{
    if (!expect_map(l, map, "memory: a map {l1, l2, slc, dram}"))
        return false;
    static const char *const keys[] = {"l1", "l2", "slc", "dram", NULL};
    if (!ui_yaml_check_keys(l->doc, map, "memory", keys, l->err))
        return false;
    for (int lv = 0; lv < MEM_LEVEL_COUNT; lv++) {
        const UiYamlNode *v = need(l, map, level_keys[lv], lv == MEM_LEVEL_DRAM
                                   ? "DRAM latency and bandwidth" : "the cache level");
        if (!v || !parse_level(l, v, (MemLevel)lv, cfg->cores, &cfg->memory.level[lv]))
            return false;
    }
    MemCacheLevelConfig *lvl = cfg->memory.level;
    if (!lvl[MEM_LEVEL_DRAM].line_bytes)
        lvl[MEM_LEVEL_DRAM].line_bytes = lvl[MEM_LEVEL_SLC].line_bytes;
    /* A line moves whole from level to level, so a lower level's line can't be smaller. */
    for (int lv = 1; lv < MEM_LEVEL_COUNT; lv++)
        if (lvl[lv].line_bytes < lvl[lv - 1].line_bytes)
            return fail(l, ui_yaml_get(ui_yaml_get(map, level_keys[lv]), "line"),
                        "expected line: at least the %s line (%u bytes), not %u",
                        level_keys[lv - 1], lvl[lv - 1].line_bytes, lvl[lv].line_bytes);
    MemCacheLevelConfig *dram = &lvl[MEM_LEVEL_DRAM];
    if (dram->bytes_per_cycle == 0) {
        dram->bytes_per_cycle = cfg->dram_bytes_per_second / (cfg->clock_mhz * 1e6);
        if (dram->bytes_per_cycle < MEM_CACHE_MIN_BYTES_PER_CYCLE)
            return fail(l, ui_yaml_get(map, "dram"), "expected a DRAM port of at least %g bytes "
                                                     "per cycle: dram_gb_per_second / clock_mhz "
                                                     "gives %g; give memory.dram.bytes_per_cycle",
                        MEM_CACHE_MIN_BYTES_PER_CYCLE, dram->bytes_per_cycle);
    }
    cfg->memory.cores = cfg->cores;
    /* The fields were checked above; should the cache model refuse anyway, the message names
     * its level ("memory hierarchy: L2: ..."), which is where it is reported. */
    UtilError why;
    if (!mem_hierarchy_config_check(&cfg->memory, &why)) {
        const UiYamlNode *at = map;
        for (int lv = 0; lv < MEM_LEVEL_COUNT; lv++) {
            char prefix[40];
            snprintf(prefix, sizeof prefix, "memory hierarchy: %s:", mem_level_names[lv]);
            if (strncmp(why.message, prefix, strlen(prefix)) == 0)
                at = ui_yaml_get(map, level_keys[lv]);
        }
        return fail(l, at, "expected a memory hierarchy the cache model accepts: %s",
                    why.message);
    }
    return true;
}

/* ---- the whole config ------------------------------------------------------------------------- */

static bool parse_config(const Loader *l, UiGpu *out)
{
    static const char *const keys[] = {
        "name", "chip", "sources", "cores", "clock_mhz", "schedulers_per_core",
        "max_threads_per_core", "max_threadgroups_per_core", "tg_memory_per_core",
        "tg_memory_per_threadgroup", "fp32_flops_per_cycle_per_core", "dram_gb_per_second",
        "wait_slot_loads", "barrier_latency", "threadgroup_memory", "op_classes", "ops",
        "memory", "neural_accelerator", NULL};
    const UiYamlNode *root = l->doc->root;
    if (!root)
        return util_fail(l->err, "%s: error: the GPU config is empty; expected a map with "
                                 "name:, cores:, clock_mhz:, op_classes:, memory: ...",
                         l->doc->path);
    if (!expect_map(l, root, "a map of GPU config keys (name:, cores:, clock_mhz:, ...)") ||
        !ui_yaml_check_keys(l->doc, root, "a GPU config", keys, l->err))
        return false;
    SimGpuConfig *cfg = &out->config;
    double dram_gbs;
    if (!get_string(l, root, "name", "the config's short name (m1)", cfg->name,
                    sizeof cfg->name) ||
        !get_string(l, root, "chip", "the chip's full name", cfg->chip, sizeof cfg->chip) ||
        !get_string(l, root, "sources", "where the numbers come from", out->sources,
                    sizeof out->sources) ||
        !get_u32(l, root, "cores", "the number of GPU cores", 1, 4096, &cfg->cores) ||
        !get_number(l, root, "clock_mhz", "the GPU clock in MHz", 1, 10000, &cfg->clock_mhz) ||
        !get_u32(l, root, "schedulers_per_core", "schedulers per core", 1, 64,
                 &cfg->schedulers_per_core) ||
        !get_u32(l, root, "max_threads_per_core", "resident threads per core, a multiple of 32",
                 SIM_SIMD_WIDTH, 1u << 16, &cfg->max_threads_per_core) ||
        !get_u32(l, root, "max_threadgroups_per_core", "resident threadgroups per core", 1,
                 1u << 16, &cfg->max_threadgroups_per_core) ||
        !get_u32(l, root, "tg_memory_per_core", "threadgroup memory per core in bytes", 1,
                 1u << 30, &cfg->tg_memory_per_core) ||
        !get_u32(l, root, "tg_memory_per_threadgroup",
                 "threadgroup memory one threadgroup may use, in bytes", 1, 1u << 30,
                 &cfg->tg_memory_per_threadgroup) ||
        !get_number(l, root, "fp32_flops_per_cycle_per_core", "peak FP32 FLOPs per cycle "
                    "per core", 1, 1e6, &cfg->fp32_flops_per_cycle_per_core) ||
        !get_number(l, root, "dram_gb_per_second", "peak DRAM bandwidth in GB/s", 0.001, 1e5,
                    &dram_gbs) ||
        !get_u32(l, root, "wait_slot_loads", "pending device loads per wait slot", 1, 1u << 16,
                 &cfg->wait_slot_loads) ||
        !get_u32(l, root, "barrier_latency", "cycles from the last arrival to release", 0,
                 1u << 20, &cfg->barrier_latency))
        return false;
    cfg->dram_bytes_per_second = dram_gbs * 1e9;
    if (cfg->max_threads_per_core % SIM_SIMD_WIDTH)
        return fail(l, ui_yaml_get(root, "max_threads_per_core"),
                    "expected max_threads_per_core: a multiple of 32 (whole SIMD-groups), not %u",
                    cfg->max_threads_per_core);
    if (cfg->tg_memory_per_threadgroup > cfg->tg_memory_per_core)
        return fail(l, ui_yaml_get(root, "tg_memory_per_threadgroup"),
                    "expected tg_memory_per_threadgroup: at most tg_memory_per_core (%u bytes), "
                    "not %u", cfg->tg_memory_per_core, cfg->tg_memory_per_threadgroup);

    const UiYamlNode *tg = need(l, root, "threadgroup_memory", "latency, banks, bank_bytes");
    static const char *const tg_keys[] = {"latency", "banks", "bank_bytes", NULL};
    if (!tg || !expect_map(l, tg, "threadgroup_memory: a map {latency, banks, bank_bytes}") ||
        !ui_yaml_check_keys(l->doc, tg, "threadgroup_memory", tg_keys, l->err) ||
        !get_u32(l, tg, "latency", "cycles from request to data", 1, 1u << 20, &cfg->tg_latency) ||
        !get_u32(l, tg, "banks", "the number of banks, a power of two", 1, 1024, &cfg->tg_banks) ||
        !get_u32(l, tg, "bank_bytes", "bytes per bank word, a power of two", 1, 64,
                 &cfg->tg_bank_bytes))
        return false;
    if (!is_pow2(cfg->tg_banks))
        return fail(l, ui_yaml_get(tg, "banks"), "expected banks: a power of two, not %u",
                    cfg->tg_banks);
    if (!is_pow2(cfg->tg_bank_bytes))
        return fail(l, ui_yaml_get(tg, "bank_bytes"), "expected bank_bytes: a power of two, "
                                                      "not %u", cfg->tg_bank_bytes);

    const UiYamlNode *v = ui_yaml_get(root, "neural_accelerator");
    if (v) { /* before op_classes: the tensor class's default timing follows from it */
        static const char *const na_keys[] = {"fp16_flops_per_cycle_per_core", NULL};
        if (!expect_map(l, v, "neural_accelerator: a map {fp16_flops_per_cycle_per_core}") ||
            !ui_yaml_check_keys(l->doc, v, "neural_accelerator", na_keys, l->err) ||
            !get_number(l, v, "fp16_flops_per_cycle_per_core", "FP16 FLOPs per cycle per "
                        "core", 1, 1e6, &cfg->neural_fp16_flops_per_cycle_per_core))
            return false;
    }
    v = need(l, root, "op_classes", "latency and interval of every op class");
    if (!v || !parse_op_classes(l, v, cfg))
        return false;
    uint8_t mask[ISA_OP_COUNT] = {0};
    if ((v = ui_yaml_get(root, "ops")) && !parse_ops(l, v, cfg, mask))
        return false;
    sim_gpu_resolve_ops(cfg, mask);
    if (!ui_yaml_get(ui_yaml_get(root, "op_classes"), isa_class_name(ISA_CLASS_TENSOR))) {
        cfg->op_class[ISA_CLASS_TENSOR] = sim_gpu_tensor_timing(cfg); /* reads ffma32's */
        sim_gpu_resolve_ops(cfg, mask);
    }

    v = need(l, root, "memory", "l1, l2, slc and dram");
    if (!v || !parse_memory(l, v, cfg))
        return false;

    return true;
}

bool ui_gpu_parse(const char *text, size_t size, const char *path, UiGpu *out, UtilError *err)
{
    memset(out, 0, sizeof *out);
    UiYamlDoc *doc = ui_yaml_parse(text, size, path, err);
    if (!doc)
        return false;
    Loader l = {doc, err};
    bool ok = parse_config(&l, out);
    ui_yaml_free(doc);
    if (!ok)
        return false;
    snprintf(out->path, sizeof out->path, "%s", path);
    return true;
}

bool ui_gpu_load(const char *path, UiGpu *out, UtilError *err)
{
    size_t size;
    char *text = util_read_file(path, &size, err);
    if (!text)
        return false;
    bool ok = ui_gpu_parse(text, size, path, out, err);
    free(text);
    return ok;
}

void ui_gpu_builtin(UiGpu *out)
{
    memset(out, 0, sizeof *out);
    out->config = *sim_gpu_default();
    snprintf(out->sources, sizeof out->sources, "built in (sim/gpu.c); the same numbers as "
                                                "sim/gpus/m1.yaml");
}

/* ---- finding configs -------------------------------------------------------------------------- */

static bool is_dir(const char *path)
{
    DIR *d = opendir(path);
    if (d)
        closedir(d);
    return d != NULL;
}

/* The folders configs are searched in, in order; existing ones only. */
static uint32_t search_dirs(char dirs[][PATH_MAX], uint32_t max)
{
    uint32_t n = 0;
    const char *env = getenv("LOCKSTEP_GPUS");
    for (const char *p = env; p && *p && n < max;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len && len < PATH_MAX) {
            memcpy(dirs[n], p, len);
            dirs[n][len] = '\0';
            n += is_dir(dirs[n]);
        }
        p = end ? end + 1 : p + len;
    }
    /* The binary's grandparent: the build tree's root or the install prefix. */
    char root[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", root, sizeof root - 1);
    if (len <= 0)
        return n;
    root[len] = '\0';
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(root, '/');
        if (!slash)
            return n;
        *slash = '\0';
    }
    static const char *const rel[] = {"sim/gpus", "share/lockstep/gpus"};
    for (size_t i = 0; i < UTIL_ARRAY_LEN(rel) && n < max; i++) {
        snprintf(dirs[n], PATH_MAX, "%.*s/%s", PATH_MAX - 32, root, rel[i]);
        bool dup = false;
        for (uint32_t k = 0; k < n && !dup; k++)
            dup = strcmp(dirs[k], dirs[n]) == 0;
        n += !dup && is_dir(dirs[n]);
    }
    return n;
}

static bool valid_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '_' || *s == '.'))
            return false;
    return true;
}

bool ui_gpu_find(const char *name, char *path, size_t size)
{
    char dirs[MAX_DIRS][PATH_MAX];
    uint32_t n = search_dirs(dirs, MAX_DIRS);
    for (uint32_t i = 0; i < n; i++) {
        snprintf(path, size, "%s/%s.yaml", dirs[i], name);
        if (access(path, R_OK) == 0)
            return true;
    }
    return false;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every NAME.yaml in the search folders (earlier folders hide later ones), sorted by name;
 * each entry is "NAME\0PATH". */
static char **list_configs(uint32_t *count)
{
    char dirs[MAX_DIRS][PATH_MAX];
    uint32_t n = search_dirs(dirs, MAX_DIRS);
    char **items = NULL;
    size_t num = 0, cap = 0;
    for (uint32_t i = 0; i < n; i++) {
        DIR *d = opendir(dirs[i]);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t len = strlen(e->d_name);
            if (len <= 5 || strcmp(e->d_name + len - 5, ".yaml") != 0 || e->d_name[0] == '.')
                continue;
            char *name = util_strndup(e->d_name, len - 5);
            bool seen = false;
            for (size_t k = 0; k < num && !seen; k++)
                seen = strcmp(items[k], name) == 0;
            if (!seen) {
                char *item = util_format("%s%c%s/%s", name, '\0', dirs[i], e->d_name);
                UTIL_PUSH(items, num, cap, item);
            }
            free(name);
        }
        closedir(d);
    }
    if (num)
        qsort(items, num, sizeof *items, cmp_str);
    *count = (uint32_t)num;
    return items;
}

static void names_text(char *buf, size_t size)
{
    uint32_t n;
    char **items = list_configs(&n);
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < n; i++) {
        if (len < size)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", items[i]);
        free(items[i]);
    }
    free(items);
    if (!n)
        snprintf(buf, size, "m1 (built in; no config folder found: set LOCKSTEP_GPUS)");
}

static bool is_path(const char *spec)
{
    size_t n = strlen(spec);
    return strchr(spec, '/') || (n > 5 && strcmp(spec + n - 5, ".yaml") == 0) ||
           (n > 4 && strcmp(spec + n - 4, ".yml") == 0);
}

/* Loads spec: NULL (the built-in M1), a path, or a name searched for. A name not found
 * fails with "unknown GPU ..." and no location (the caller adds one). */
static bool select_gpu(const char *spec, UiGpu *out, bool *unknown, UtilError *err)
{
    *unknown = false;
    if (!spec) {
        ui_gpu_builtin(out);
        return true;
    }
    if (is_path(spec))
        return ui_gpu_load(spec, out, err);
    char path[PATH_MAX + 64];
    if (valid_name(spec) && ui_gpu_find(spec, path, sizeof path))
        return ui_gpu_load(path, out, err);
    if (strcmp(spec, "m1") == 0) {
        ui_gpu_builtin(out);
        return true;
    }
    *unknown = true;
    char names[512];
    names_text(names, sizeof names);
    return util_fail(err, "unknown GPU '%s'; expected one of: %s (`lockstep gpus` lists them), "
                          "or a path to a .yaml config", spec, names);
}

bool ui_gpu_select(const char *spec, UiGpu *out, UtilError *err)
{
    bool unknown;
    return select_gpu(spec, out, &unknown, err);
}

bool ui_gpu_for_launch(const char *cmd, const char *flag, const UiManifest *m, UiGpu *out,
                       UtilError *err)
{
    bool unknown;
    if (flag) {
        if (select_gpu(flag, out, &unknown, err))
            return true;
        if (unknown) {
            char msg[sizeof err->message];
            snprintf(msg, sizeof msg, "%s", err->message);
            util_fail(err, "%s: error: --gpu: %s", cmd, msg);
        }
        return false;
    }
    const UiYamlNode *v = m && m->doc->root ? ui_yaml_get(m->doc->root, "gpu") : NULL;
    if (!v)
        return select_gpu(NULL, out, &unknown, err);
    if (is_path(v->text)) {
        char *path = v->text[0] == '/' ? util_strdup(v->text) : util_path_join(m->dir, v->text);
        bool ok = access(path, R_OK) == 0
                      ? ui_gpu_load(path, out, err)
                      : ui_yaml_fail(m->doc, v, err, "expected gpu: a GPU config name or a "
                                                     "readable .yaml file; cannot read '%s'",
                                     path);
        free(path);
        return ok;
    }
    if (select_gpu(v->text, out, &unknown, err))
        return true;
    if (unknown) {
        char names[512];
        names_text(names, sizeof names);
        ui_yaml_fail(m->doc, v, err, "unknown GPU '%s'; expected one of: %s, or a path to a "
                                     ".yaml config", v->text, names);
    }
    return false;
}

/* ---- lockstep gpus ---------------------------------------------------------------------------- */

void ui_gpus_usage(FILE *out)
{
    fputs("usage: lockstep gpus\n"
          "\n"
          "Lists the GPU configs the timing model can use (`--gpu NAME` on run and check, or\n"
          "`gpu: NAME` in a manifest): cores, clock, peak FP32 (cores x FP32 FLOPs per cycle\n"
          "per core x clock), peak DRAM bandwidth, and where each config's numbers come from.\n"
          "Configs are NAME.yaml files searched in $LOCKSTEP_GPUS (folders separated by ':'),\n"
          "then <lockstep's folder>/../sim/gpus, then <lockstep's folder>/../share/lockstep/gpus;\n"
          "see docs/timing.md. Without --gpu the built-in M1 is used.\n"
          "\n"
          "exit status: 0 success; 2 a config that does not load\n",
          out);
}

int ui_cmd_gpus(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            ui_gpus_usage(stdout);
            return UI_EXIT_OK;
        }
        fprintf(stderr, "lockstep gpus: error: unexpected argument '%s'\n", argv[i]);
        ui_gpus_usage(stderr);
        return UI_EXIT_BAD_INPUT;
    }
    uint32_t n;
    char **items = list_configs(&n);
    int status = UI_EXIT_OK;
    printf("%-10s %-34s %5s %10s %12s %10s\n", "name", "chip", "cores", "clock MHz",
           "FP32 TFLOPS", "DRAM GB/s");
    UiGpu *gpu = util_malloc(sizeof *gpu);
    if (!n) {
        ui_gpu_builtin(gpu);
        n = 0;
    }
    for (uint32_t i = 0; i < (n ? n : 1); i++) {
        UtilError err;
        if (n && !ui_gpu_load(items[i] + strlen(items[i]) + 1, gpu, &err)) {
            fflush(stdout);
            fprintf(stderr, "%s\n", err.message);
            status = UI_EXIT_BAD_INPUT;
            continue;
        }
        const SimGpuConfig *c = &gpu->config;
        double tflops = c->cores * c->fp32_flops_per_cycle_per_core * c->clock_mhz * 1e6 / 1e12;
        printf("%-10s %-34s %5u %10.0f %12.2f %10.2f\n", c->name, c->chip, c->cores,
               c->clock_mhz, tflops, c->dram_bytes_per_second / 1e9);
        printf("%-10s sources: %s\n", "", gpu->sources);
        printf("%-10s file: %s\n", "", n ? gpu->path : "(built in)");
    }
    for (uint32_t i = 0; i < n; i++)
        free(items[i]);
    free(items);
    free(gpu);
    return status;
}
