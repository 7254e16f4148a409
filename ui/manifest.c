/*
 * manifest.c — reads a launch manifest into a UiManifest, checking every key's shape and
 * type where it is written. Messages say what was expected and name the allowed keys, since
 * a manifest is written by hand and its author is usually mid-experiment.
 *
 * Each parse function below has the YAML form it accepts in a comment above it.
 */
#include "manifest.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Parser {
    UiManifest *m;
    const UiYamlDoc *doc;
    UtilError *err;
} Parser;

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Relative paths in a manifest start at the manifest's folder. */
static char *resolve(const UiManifest *m, const char *rel)
{
    if (strcmp(m->dir, ".") == 0)
        return util_strdup(rel);
    return util_path_join(m->dir, rel);
}

static bool fail(Parser *p, const UiYamlNode *at, const char *fmt, ...) UTIL_PRINTF(3, 4);
static bool fail(Parser *p, const UiYamlNode *at, const char *fmt, ...)
{
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ui_yaml_fail(p->doc, at, p->err, "%s", msg);
}

static bool expect_map(Parser *p, const UiYamlNode *n, const char *what)
{
    if (n->kind != UI_YAML_MAP)
        return fail(p, n, "expected %s", what);
    return true;
}

/* dims = "[" uint ("," uint){0,2} "]"   (missing trailing dimensions are 1) */
static bool parse_dims(Parser *p, const UiYamlNode *n, uint32_t out[3])
{
    const char *what = "a list of 1 to 3 positive integers, like [256, 1, 1]";
    if (n->kind != UI_YAML_LIST || n->count < 1 || n->count > 3)
        return fail(p, n, "expected %s", what);
    out[0] = out[1] = out[2] = 1;
    for (uint32_t i = 0; i < n->count; i++) {
        uint64_t v;
        if (!ui_yaml_uint(p->doc, n->items[i], what, 1, UINT32_MAX, &v, p->err))
            return false;
        out[i] = (uint32_t)v;
    }
    return true;
}

static bool parse_number(Parser *p, const UiYamlNode *n, UiNumber *out)
{
    return ui_yaml_number(p->doc, n, "a number", out, p->err);
}

static bool parse_tolerance(Parser *p, const UiYamlNode *n, double *out)
{
    UiNumber num;
    if (!ui_yaml_number(p->doc, n, "a non-negative tolerance, like 1e-5", &num, p->err))
        return false;
    *out = ui_number_to_double(&num);
    if (!(*out >= 0) || isinf(*out))
        return fail(p, n, "expected a non-negative tolerance, like 1e-5");
    return true;
}

static bool parse_seed(Parser *p, const UiYamlNode *map, uint64_t *seed)
{
    const UiYamlNode *n = ui_yaml_get(map, "seed");
    *seed = 0;
    return !n || ui_yaml_uint(p->doc, n, "a seed: an integer from 0 to 2^64-1", 0, UINT64_MAX,
                              seed, p->err);
}

static bool optional_number(Parser *p, const UiYamlNode *map, const char *key, double def,
                            UiNumber *out)
{
    const UiYamlNode *n = ui_yaml_get(map, key);
    if (!n) {
        *out = ui_number_from_double(def);
        if (def == floor(def))
            *out = ui_number_from_i64((int64_t)def);
        return true;
    }
    return parse_number(p, n, out);
}

/* init = "none" | "{" ( fill: number | range: [start, step] | random: {seed, min, max}
 *                     | normal: {seed, mean, std} | values: [...] | file: PATH ) "}" */
static bool parse_init(Parser *p, const char *arg, const UiYamlNode *n, UiInit *init)
{
    static const char *const forms[] = {"fill", "range", "random", "normal", "values", "file",
                                        NULL};
    init->node = n;
    if (n->kind == UI_YAML_SCALAR && !n->quoted && strcmp(n->text, "none") == 0) {
        init->kind = UI_INIT_NONE;
        return true;
    }
    if (n->kind != UI_YAML_MAP || n->count != 1)
        return fail(p, n, "expected init of arg '%s' to be none or a map with one of: fill, "
                          "range, random, normal, values, file (like {fill: 0})", arg);
    char what[80];
    snprintf(what, sizeof what, "init of arg '%s'", arg);
    if (!ui_yaml_check_keys(p->doc, n, what, forms, p->err))
        return false;
    const char *form = n->keys[0]->text;
    const UiYamlNode *v = n->items[0];
    init->node = v;
    if (strcmp(form, "fill") == 0) {
        init->kind = UI_INIT_FILL;
        return ui_yaml_number(p->doc, v, "a number to fill with", &init->a, p->err);
    }
    if (strcmp(form, "range") == 0) {
        init->kind = UI_INIT_RANGE;
        if (v->kind != UI_YAML_LIST || v->count < 1 || v->count > 2)
            return fail(p, v, "expected range: [start, step]");
        init->b = ui_number_from_i64(1);
        return parse_number(p, v->items[0], &init->a) &&
               (v->count < 2 || parse_number(p, v->items[1], &init->b));
    }
    if (strcmp(form, "random") == 0 || strcmp(form, "normal") == 0) {
        bool random = form[0] == 'r';
        static const char *const random_keys[] = {"seed", "min", "max", NULL};
        static const char *const normal_keys[] = {"seed", "mean", "std", NULL};
        init->kind = random ? UI_INIT_RANDOM : UI_INIT_NORMAL;
        if (v->kind != UI_YAML_MAP)
            return fail(p, v, random ? "expected random: {seed: S, min: A, max: B}"
                                     : "expected normal: {seed: S, mean: M, std: D}");
        if (!ui_yaml_check_keys(p->doc, v, random ? "random" : "normal",
                                random ? random_keys : normal_keys, p->err) ||
            !parse_seed(p, v, &init->seed))
            return false;
        if (random)
            return optional_number(p, v, "min", 0, &init->a) &&
                   optional_number(p, v, "max", 1, &init->b);
        UiNumber mean, std_dev;
        if (!optional_number(p, v, "mean", 0, &mean) || !optional_number(p, v, "std", 1, &std_dev))
            return false;
        init->mean = ui_number_to_double(&mean);
        init->std_dev = ui_number_to_double(&std_dev);
        if (!(init->std_dev >= 0))
            return fail(p, ui_yaml_get(v, "std"), "expected a non-negative std");
        return true;
    }
    if (strcmp(form, "values") == 0) {
        init->kind = UI_INIT_VALUES;
        if (v->kind != UI_YAML_LIST)
            return fail(p, v, "expected values: a list of numbers, like [1, 2, 3]");
        init->values = v;
        return true;
    }
    const char *path;
    init->kind = UI_INIT_FILE;
    if (!ui_yaml_string(p->doc, v, "file: a path to a .npy or raw .bin file", &path, p->err))
        return false;
    init->file = resolve(p->m, path);
    return true;
}

/* expect = "[" number, ... "]" | "{" (values: [...] | file: PATH) [rtol: R] [atol: A] "}" */
static bool parse_expect(Parser *p, const char *arg, const UiYamlNode *n, UiExpect *e)
{
    static const char *const keys[] = {"values", "file", "rtol", "atol", NULL};
    e->present = true;
    e->node = n;
    if (n->kind == UI_YAML_LIST) {
        e->values = n;
        return true;
    }
    if (n->kind != UI_YAML_MAP)
        return fail(p, n, "expected expect of arg '%s' to be a list of values or a map like "
                          "{values: [...], rtol: 1e-5} or {file: out.npy}", arg);
    char what[80];
    snprintf(what, sizeof what, "expect of arg '%s'", arg);
    if (!ui_yaml_check_keys(p->doc, n, what, keys, p->err))
        return false;
    const UiYamlNode *values = ui_yaml_get(n, "values"), *file = ui_yaml_get(n, "file");
    if (!values == !file)
        return fail(p, n, "expected exactly one of values: or file: in expect of arg '%s'", arg);
    if (values) {
        if (values->kind != UI_YAML_LIST)
            return fail(p, values, "expected values: a list of numbers, like [1, 2, 3]");
        e->values = values;
    } else {
        const char *path;
        if (!ui_yaml_string(p->doc, file, "file: a path to a .npy or raw .bin file", &path,
                            p->err))
            return false;
        e->file = resolve(p->m, path);
        e->file_node = file;
    }
    const UiYamlNode *rtol = ui_yaml_get(n, "rtol"), *atol = ui_yaml_get(n, "atol");
    if ((rtol && !parse_tolerance(p, rtol, &e->rtol)) || (atol && !parse_tolerance(p, atol, &e->atol)))
        return false;
    e->has_tolerance = rtol || atol;
    return true;
}

/* dump = "stdout" | PATH.npy | PATH.bin */
static bool parse_dump(Parser *p, const UiYamlNode *n, UiDump *d)
{
    const char *what = "dump: a path ending in .npy or .bin, or stdout";
    const char *text;
    if (!ui_yaml_string(p->doc, n, what, &text, p->err))
        return false;
    d->node = n;
    if (strcmp(text, "stdout") == 0 && !n->quoted) {
        d->kind = UI_DUMP_STDOUT;
        return true;
    }
    if (ends_with(text, ".npy"))
        d->kind = UI_DUMP_NPY;
    else if (ends_with(text, ".bin"))
        d->kind = UI_DUMP_BIN;
    else
        return fail(p, n, "expected %s", what);
    d->path = resolve(p->m, text);
    return true;
}

/* extents: [columns, rows] and row_pitch: N of a tensor argument */
static bool parse_extents(Parser *p, const UiYamlNode *n, UiArgSpec *a)
{
    const UiYamlNode *v = ui_yaml_get(n, "extents");
    if (v) {
        a->extents_node = v;
        a->has_extents = true;
        if (v->kind != UI_YAML_LIST || v->count != 2)
            return fail(p, v, "expected extents: [columns, rows], a tensor's two extents");
        for (int d = 0; d < 2; d++) {
            uint64_t e;
            if (!ui_yaml_uint(p->doc, v->items[d], "an extent from 1 to 2^24", 1, 1u << 24, &e,
                              p->err))
                return false;
            a->extents[d] = (uint32_t)e;
        }
    }
    if ((v = ui_yaml_get(n, "row_pitch"))) {
        uint64_t e;
        a->row_pitch_node = v;
        if (!a->has_extents)
            return fail(p, v, "row_pitch: belongs to a tensor argument, with extents: "
                              "[columns, rows]");
        if (!ui_yaml_uint(p->doc, v, "row_pitch: elements from one row to the next, at least "
                          "the columns and at most 2^24", a->extents[0], 1u << 24, &e, p->err))
            return false;
        a->row_pitch = (uint32_t)e;
    }
    return true;
}

/* type: texture2d (or texture1d) with format: F, width: W, height: H. The texels are then
 * a buffer of the format's storage type (docs/manifest.md, "Textures"). */
static bool parse_texture(Parser *p, const UiYamlNode *n, UiArgSpec *a, const UiYamlNode *type)
{
    a->texture = strcmp(type->text, "texture1d") == 0 ? 1 : 2;
    const UiYamlNode *bad = ui_yaml_get(n, "count") ? ui_yaml_get(n, "count")
                            : ui_yaml_get(n, "bytes") ? ui_yaml_get(n, "bytes")
                            : ui_yaml_get(n, "extents");
    if (bad)
        return fail(p, ui_yaml_key_of(n, bad), "a texture's size is its width: and height:, "
                                              "not count:, bytes: or extents:");
    char list[400];
    lang_tex_format_list(list, sizeof list);
    const UiYamlNode *f = ui_yaml_get(n, "format");
    if (!f)
        return fail(p, type, "expected format: for texture arg '%s', one of %s", a->name, list);
    a->format_node = f;
    if (f->kind != UI_YAML_SCALAR || !(a->format = lang_tex_format_named(f->text)))
        return fail(p, f, "expected a pixel format: one of %s", list);
    uint64_t w, h = 1;
    const UiYamlNode *wn = ui_yaml_get(n, "width"), *hn = ui_yaml_get(n, "height");
    if (!wn)
        return fail(p, type, "expected width: for texture arg '%s'", a->name);
    if (!ui_yaml_uint(p->doc, wn, "width: a number of texels", 1, 16384, &w, p->err))
        return false;
    if (a->texture == 1 && hn)
        return fail(p, ui_yaml_key_of(n, hn), "a texture1d has a width: only");
    if (a->texture == 2 && !hn)
        return fail(p, type, "expected height: for texture arg '%s'", a->name);
    if (hn && !ui_yaml_uint(p->doc, hn, "height: a number of texels", 1, 16384, &h, p->err))
        return false;
    a->width = (uint32_t)w;
    a->height = (uint32_t)h;
    a->has_type = ui_elem_type_parse(lang_tex_format_info(a->format)->storage, &a->type);
    a->has_count = true;
    a->count = w * h;
    a->count_node = wn;
    return true;
}

/* What a struct's name may be: a C identifier that is no spelling of a scalar or vector
 * type lockstep lacks (`double`, `float8`), nor of a texture (`texture3d`): those are wrong
 * element types, said as such. */
static bool is_struct_name(const char *s)
{
    static const char *const scalars[] = {"bool", "char", "uchar", "short", "ushort", "int",
                                          "uint", "long", "ulong", "half", "float", "bfloat",
                                          "double", "texture"};
    if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (const char *c = s; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_')
            return false;
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++) {
        size_t n = strlen(scalars[i]);
        if (strncmp(s, scalars[i], n) == 0 && strspn(s + n, "0123456789dx") == strlen(s + n))
            return false;
    }
    return true;
}

/* arg = "{" [type: T] [count: N] [value: V] [bytes: B] [init: I] [expect: E] [dump: D]
 *           [extents: [C, R]] [row_pitch: P] [format: F width: W height: H] "}" */
static bool parse_arg(Parser *p, const UiYamlNode *key, const UiYamlNode *n, UiArgSpec *a)
{
    static const char *const keys[] = {"type", "count", "value", "bytes", "init", "expect",
                                       "dump", "extents", "row_pitch", "format", "width",
                                       "height", NULL};
    a->name = util_strdup(key->text);
    a->key = key;
    a->map = n;
    char what[300];
    snprintf(what, sizeof what, "arg '%s' to be a map of its settings (type, count, value, "
                                "bytes, init, expect, dump; extents, row_pitch for tensors)", a->name);
    if (!expect_map(p, n, what))
        return false;
    snprintf(what, sizeof what, "arg '%s'", a->name);
    if (!ui_yaml_check_keys(p->doc, n, what, keys, p->err))
        return false;
    if (!parse_extents(p, n, a))
        return false;
    const UiYamlNode *v;
    if ((v = ui_yaml_get(n, "type"))) {
        a->type_node = v;
        a->has_type = true;
        if (v->kind == UI_YAML_SCALAR &&
            (strcmp(v->text, "texture2d") == 0 || strcmp(v->text, "texture1d") == 0)) {
            if (!parse_texture(p, n, a, v))
                return false;
        } else if (v->kind == UI_YAML_SCALAR && !ui_elem_type_parse(v->text, &a->type) &&
                   is_struct_name(v->text)) {
            a->has_type = false; /* a struct's name: binding checks it against the kernel */
            a->struct_name = v->text;
        } else if (v->kind != UI_YAML_SCALAR || !ui_elem_type_parse(v->text, &a->type)) {
            return fail(p, v, "expected an element type: float half int uint short ushort char "
                              "uchar long ulong bool, or a 2-, 3- or 4-vector of one (float4), "
                              "or texture2d or texture1d, or the name of the kernel's struct");
        }
    }
    static const char *const texture_keys[] = {"format", "width", "height"};
    for (int k = 0; k < 3 && !a->texture; k++)
        if ((v = ui_yaml_get(n, texture_keys[k])))
            return fail(p, ui_yaml_key_of(n, v), "%s: belongs to a texture argument (type: "
                        "texture2d or texture1d)", texture_keys[k]);
    if (!a->texture && (v = ui_yaml_get(n, "count"))) {
        a->count_node = v;
        a->has_count = true;
        if (!ui_yaml_uint(p->doc, v, "a count: a positive number of elements", 1, UINT64_MAX,
                          &a->count, p->err))
            return false;
        if (a->has_type && a->count > UI_MAX_BUFFER_BYTES / ui_elem_size(a->type)) {
            char tn[16];
            return fail(p, v, "expected a count of at most %llu: %llu elements of %s is more "
                              "than the 1 GiB a buffer may hold",
                        (unsigned long long)(UI_MAX_BUFFER_BYTES / ui_elem_size(a->type)),
                        (unsigned long long)a->count, ui_elem_type_name(a->type, tn, sizeof tn));
        }
    }
    if ((v = ui_yaml_get(n, "bytes"))) {
        a->bytes_node = v;
        a->has_bytes = true;
        if (!ui_yaml_uint(p->doc, v, "bytes: a positive size of at most 1 GiB", 1,
                          UI_MAX_BUFFER_BYTES, &a->bytes, p->err))
            return false;
    }
    if ((v = ui_yaml_get(n, "value")))
        a->value = v;
    if ((v = ui_yaml_get(n, "init"))) {
        if (a->value)
            return fail(p, v, "expected either value: or init: for arg '%s', not both", a->name);
        if (!parse_init(p, a->name, v, &a->init))
            return false;
    }
    if ((v = ui_yaml_get(n, "expect")) && !parse_expect(p, a->name, v, &a->expect))
        return false;
    if ((v = ui_yaml_get(n, "dump")) && !parse_dump(p, v, &a->dump))
        return false;
    return true;
}

/* Two arguments dumped to one file would leave only the last one's contents. */
static bool check_dumps_distinct(Parser *p)
{
    UiManifest *m = p->m;
    char **keys = util_calloc(m->num_args ? m->num_args : 1, sizeof *keys);
    bool ok = true;
    for (uint32_t i = 0; i < m->num_args && ok; i++) {
        if (!m->args[i].dump.path)
            continue;
        keys[i] = util_file_key(m->args[i].dump.path);
        for (uint32_t j = 0; j < i && ok; j++)
            if (keys[j] && strcmp(keys[i], keys[j]) == 0)
                ok = fail(p, m->args[i].dump.node, "expected a dump file of its own; argument "
                          "'%s' is dumped to this file too (line %u), and only the last dump "
                          "would be kept", m->args[j].name, m->args[j].dump.node->line);
        /* an expectation file overwritten by the output would pass every later run */
        for (uint32_t j = 0; j < m->num_args && ok; j++) {
            if (!m->args[j].expect.file)
                continue;
            char *want = util_file_key(m->args[j].expect.file);
            if (strcmp(keys[i], want) == 0)
                ok = fail(p, m->args[i].dump.node, "expected a dump file that is not an "
                          "expectation; this is the expect: file of argument '%s' (line %u), "
                          "which the dump would overwrite", m->args[j].name,
                          m->args[j].expect.file_node->line);
            free(want);
        }
    }
    for (uint32_t i = 0; i < m->num_args; i++)
        free(keys[i]);
    free(keys);
    return ok;
}

static bool parse_args(Parser *p, const UiYamlNode *n)
{
    if (!expect_map(p, n, "args: a map from kernel argument names to their settings"))
        return false;
    UiManifest *m = p->m;
    m->args = util_calloc(n->count ? n->count : 1, sizeof *m->args);
    for (uint32_t i = 0; i < n->count; i++) {
        m->num_args++;
        if (!parse_arg(p, n->keys[i], n->items[i], &m->args[i]))
            return false;
    }
    return check_dumps_distinct(p);
}

/* manifest = "{" kernel: PATH [entry: NAME] [gpu: NAME] [mode: functional|timed]
 *            [budget: N] (grid: DIMS | threadgroups: DIMS) threadgroup: DIMS
 *            [constants: {...}] [args: {...}] "}" */
static bool parse_top(Parser *p)
{
    static const char *const keys[] = {"kernel", "entry", "gpu", "mode", "budget", "grid",
                                       "threadgroups", "threadgroup", "constants", "args", NULL};
    UiManifest *m = p->m;
    const UiYamlNode *root = p->doc->root;
    if (!root)
        return util_fail(p->err, "%s: error: the manifest is empty; expected a map with at "
                                 "least kernel:, grid: and threadgroup:", m->path);
    if (!expect_map(p, root, "a map of manifest keys (kernel:, grid:, threadgroup:, args: ...)") ||
        !ui_yaml_check_keys(p->doc, root, "the manifest", keys, p->err))
        return false;

    const UiYamlNode *v = ui_yaml_get(root, "kernel");
    const char *text;
    if (!v)
        return fail(p, root, "expected a kernel: key naming the kernel file (.metal or .s)");
    if (!ui_yaml_string(p->doc, v, "kernel: a path to a .metal or .s file", &text, p->err))
        return false;
    if (!ends_with(text, ".s") && !ends_with(text, ".metal"))
        return fail(p, v, "expected kernel: a path to a .metal or .s file");
    m->kernel = util_strdup(text);
    m->kernel_path = resolve(m, text);
    m->kernel_node = v;

    if ((v = ui_yaml_get(root, "entry"))) {
        if (!ui_yaml_string(p->doc, v, "entry: the kernel's name", &m->entry, p->err))
            return false;
        m->entry_node = v;
    }
    if ((v = ui_yaml_get(root, "gpu")) &&
        !ui_yaml_string(p->doc, v, "gpu: a GPU config name", &text, p->err))
        return false;
    if ((v = ui_yaml_get(root, "mode"))) {
        m->has_mode = true;
        if (v->kind == UI_YAML_SCALAR && strcmp(v->text, "functional") == 0)
            m->mode = SIM_MODE_FUNCTIONAL;
        else if (v->kind == UI_YAML_SCALAR && strcmp(v->text, "timed") == 0)
            m->mode = SIM_MODE_TIMED;
        else
            return fail(p, v, "expected mode: functional or timed");
    }
    if ((v = ui_yaml_get(root, "budget"))) {
        m->has_budget = true;
        if (!ui_yaml_uint(p->doc, v, "budget: a positive number of instructions", 1, UINT64_MAX,
                          &m->budget, p->err))
            return false;
    }

    const UiYamlNode *grid = ui_yaml_get(root, "grid"), *groups = ui_yaml_get(root, "threadgroups");
    if (grid && groups)
        return fail(p, ui_yaml_key_of(root, groups), "expected grid: (threads per grid) or "
                                                     "threadgroups: (threadgroups per grid), "
                                                     "not both");
    if (!grid && !groups)
        return fail(p, root, "expected grid: [x, y, z] (threads per grid) or threadgroups: "
                             "[x, y, z] (threadgroups per grid)");
    m->by_threadgroups = groups != NULL;
    m->grid_node = grid ? grid : groups;
    if (!parse_dims(p, m->grid_node, m->grid))
        return false;
    if (!(v = ui_yaml_get(root, "threadgroup")))
        return fail(p, root, "expected threadgroup: [x, y, z], the threads per threadgroup");
    m->threadgroup_node = v;
    if (!parse_dims(p, v, m->threadgroup))
        return false;
    uint64_t threads = (uint64_t)m->threadgroup[0] * m->threadgroup[1] * m->threadgroup[2];
    if (threads > SIM_MAX_THREADS_PER_THREADGROUP)
        return fail(p, v, "expected at most %d threads per threadgroup; this one has %llu",
                    SIM_MAX_THREADS_PER_THREADGROUP, (unsigned long long)threads);
    if (m->by_threadgroups)
        for (int d = 0; d < 3; d++)
            if ((uint64_t)m->grid[d] * m->threadgroup[d] > UINT32_MAX)
                return fail(p, m->grid_node, "expected at most 2^32-1 threads per grid "
                                             "dimension; dimension %d has %llu", d,
                            (unsigned long long)m->grid[d] * m->threadgroup[d]);
    uint64_t grid_threads = 1;
    for (int d = 0; d < 3; d++)
        if (__builtin_mul_overflow(grid_threads, (uint64_t)m->grid[d] *
                                   (m->by_threadgroups ? m->threadgroup[d] : 1u), &grid_threads))
            return fail(p, m->grid_node, "expected at most 2^64-1 threads in the grid; "
                                         "%u x %u x %u %s is more", m->grid[0], m->grid[1],
                        m->grid[2], m->by_threadgroups ? "threadgroups" : "threads");

    if ((v = ui_yaml_get(root, "constants"))) {
        if (!expect_map(p, v, "constants: a map from function constant names to values"))
            return false;
        m->constants = v;
        for (uint32_t i = 0; i < v->count; i++)
            if (!v->keys[i]->text[0])
                return fail(p, v->keys[i], "expected a function constant's name, not an empty "
                                           "key");
        if (v->count && ends_with(m->kernel, ".s"))
            return fail(p, v, "function constants need a .metal kernel; %s is assembly",
                        m->kernel);
    }
    if ((v = ui_yaml_get(root, "args")) && !parse_args(p, v))
        return false;
    return true;
}

UiManifest *ui_manifest_parse(const char *text, size_t size, const char *path, UtilError *err)
{
    UiYamlDoc *doc = ui_yaml_parse(text, size, path, err);
    if (!doc)
        return NULL;
    UiManifest *m = util_calloc(1, sizeof *m);
    m->doc = doc;
    m->path = util_strdup(path);
    m->dir = util_dirname(path);
    Parser p = {m, doc, err};
    if (!parse_top(&p)) {
        ui_manifest_free(m);
        return NULL;
    }
    return m;
}

UiManifest *ui_manifest_load(const char *path, UtilError *err)
{
    size_t size;
    char *text = util_read_file(path, &size, err);
    if (!text)
        return NULL;
    UiManifest *m = ui_manifest_parse(text, size, path, err);
    free(text);
    return m;
}

void ui_manifest_free(UiManifest *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->num_args; i++) {
        free(m->args[i].name);
        free(m->args[i].init.file);
        free(m->args[i].expect.file);
        free(m->args[i].dump.path);
    }
    free(m->args);
    free(m->kernel);
    free(m->kernel_path);
    free(m->dir);
    free(m->path);
    ui_yaml_free(m->doc);
    free(m);
}

const UiArgSpec *ui_manifest_arg(const UiManifest *m, const char *name)
{
    for (uint32_t i = 0; i < m->num_args; i++)
        if (strcmp(m->args[i].name, name) == 0)
            return &m->args[i];
    return NULL;
}
