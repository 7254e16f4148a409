/*
 * bind.c — turns a checked manifest and a kernel into a ready dispatch: one buffer per
 * device/constant argument, filled from `value:` or `init:`, threadgroup block sizes, and the
 * expected contents loaded before anything runs (so a bad expectation file is bad input, not
 * a failed run). Also writes `dump:` outputs afterwards.
 *
 * Every error points at the manifest line that caused it; errors in data files name the file
 * first and add a note pointing at the manifest line that named it.
 */
#include "ui.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../util/fp.h"
#include "npy.h"

typedef struct Binder {
    const UiManifest *m;
    const UiYamlDoc *doc;
    const IsaProgram *program;
    UtilError *err;
    const LangTypeLayout *layouts; /* per program argument, for .metal kernels; or NULL */
    uint32_t tg_limit;             /* threadgroup memory one threadgroup may use, bytes */
} Binder;

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static const char *type_text(UiElemType t, char *buf, size_t size)
{
    return ui_elem_type_name(t, buf, size);
}

/* A data file's error ("x.npy: error: truncated ...") becomes an error at the manifest line
 * that named the file: "launch.yaml:7:20: error: x.npy: truncated ...". */
static bool fail_file(Binder *b, const UiYamlNode *at, const UtilError *file_err)
{
    char msg[600];
    const char *text = file_err->message;
    const char *tag = strstr(text, ": error: ");
    size_t head = tag ? (size_t)(tag - text) : 0;
    const char *rest = tag ? tag + strlen(": error: ") : text;
    int len = snprintf(msg, sizeof msg, "%.*s%s", (int)UTIL_MIN(head, 300), text, tag ? ": " : "");
    size_t used = len < 0 ? 0 : (size_t)len;
    size_t k = UTIL_MIN(strlen(rest), sizeof msg - 1 - used);
    memcpy(msg + used, rest, k);
    msg[used + k] = '\0';
    return ui_yaml_fail(b->doc, at, b->err, "%s", msg);
}

/* ---- data files ---------------------------------------------------------------------------- */

static UiNumber npy_number(UiNpyDtype d, const uint8_t *p)
{
    switch (d) {
    case UI_NPY_F2: return ui_load_number(UI_HALF, p);
    case UI_NPY_F4: return ui_load_number(UI_FLOAT, p);
    case UI_NPY_F8: { double v; memcpy(&v, p, 8); return ui_number_from_double(v); }
    case UI_NPY_I1: return ui_load_number(UI_CHAR, p);
    case UI_NPY_U1: return ui_load_number(UI_UCHAR, p);
    case UI_NPY_I2: return ui_load_number(UI_SHORT, p);
    case UI_NPY_U2: return ui_load_number(UI_USHORT, p);
    case UI_NPY_I4: return ui_load_number(UI_INT, p);
    case UI_NPY_U4: return ui_load_number(UI_UINT, p);
    case UI_NPY_I8: return ui_load_number(UI_LONG, p);
    case UI_NPY_U8: return ui_load_number(UI_ULONG, p);
    default: return ui_number_from_u64(p[0] != 0);
    }
}

/* Elements in a file of `total` scalars or bytes, given `unit` scalars or bytes each. */
static bool match_count(const char *path, uint64_t total, uint64_t unit, const char *unit_what,
                        const char *tname, uint64_t *count, UtilError *err)
{
    if (*count == 0) {
        if (total == 0 || total % unit != 0)
            return util_fail(err, "%s: error: holds %llu %s, which is not a positive whole "
                                  "number of %s elements (%llu %s each)", path,
                             (unsigned long long)total, unit_what, tname,
                             (unsigned long long)unit, unit_what);
        *count = total / unit;
        return true;
    }
    if (total != *count * unit)
        return util_fail(err, "%s: error: holds %llu %s; expected %llu (count %llu of %s)", path,
                         (unsigned long long)total, unit_what,
                         (unsigned long long)(*count * unit), (unsigned long long)*count, tname);
    return true;
}

bool ui_read_data_file(const char *path, UiElemType t, uint64_t *count, uint8_t **data,
                       UtilError *err)
{
    char tname[16];
    type_text(t, tname, sizeof tname);
    uint32_t esize = ui_elem_size(t);
    if (ends_with(path, ".npy")) {
        UiNpyArray a;
        if (!ui_npy_read(path, UI_MAX_BUFFER_BYTES, &a, err))
            return false;
        if (!match_count(path, a.count, t.lanes, "values", tname, count, err)) {
            ui_npy_free(&a);
            return false;
        }
        uint8_t *out = util_calloc((size_t)*count, esize);
        uint32_t isize = ui_npy_itemsize(a.dtype);
        for (uint64_t k = 0; k < a.count; k++) {
            UiNumber n = npy_number(a.dtype, a.data + k * isize);
            UtilError why;
            if (!ui_store_number(t.scalar, &n, out + ui_scalar_offset(t, k), &why)) {
                free(out);
                ui_npy_free(&a);
                return util_fail(err, "%s: error: value %llu (%s): %s", path,
                                 (unsigned long long)k, ui_npy_descr(a.dtype), why.message);
            }
        }
        ui_npy_free(&a);
        *data = out;
        return true;
    }
    /* Raw bytes, laid out exactly as the buffer (3-vectors with their padding). */
    struct stat st;
    if (stat(path, &st) != 0)
        return util_fail(err, "%s: error: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return util_fail(err, "%s: error: expected a regular file", path);
    if ((uint64_t)st.st_size > UI_MAX_BUFFER_BYTES)
        return util_fail(err, "%s: error: %llu bytes is more than the 1 GiB a buffer may hold",
                         path, (unsigned long long)st.st_size);
    size_t size;
    char *bytes = util_read_file(path, &size, err);
    if (!bytes)
        return false;
    if (!match_count(path, size, esize, "bytes", tname, count, err)) {
        free(bytes);
        return false;
    }
    for (uint64_t k = 0; t.scalar == UI_BOOL && k < *count * t.lanes; k++) {
        const uint8_t v = (uint8_t)bytes[ui_scalar_offset(t, k)];
        if (v > 1) { /* a bool is 0 or 1: anything else is not a bool's bytes */
            free(bytes);
            return util_fail(err, "%s: error: value %llu is the byte %u, not a bool (0 or 1)",
                             path, (unsigned long long)k, v);
        }
    }
    *data = (uint8_t *)bytes;
    return true;
}

/* ---- values from YAML ---------------------------------------------------------------------- */

/* Elements a `values:`/`value:` list holds: a flat list of scalars, or (vectors) a list of
 * lists of `lanes` numbers. 0 when the list's length does not fit the type. */
static uint64_t list_count(const UiYamlNode *list, UiElemType t)
{
    if (list->count && list->items[0]->kind == UI_YAML_LIST)
        return t.lanes > 1 ? list->count : 0;
    return list->count % t.lanes == 0 ? list->count / t.lanes : 0;
}

static bool store_at(Binder *b, const UiYamlNode *n, UiElemType t, uint8_t *dst)
{
    char what[64];
    snprintf(what, sizeof what, "a number (for %s)", ui_scalar_name(t.scalar));
    UiNumber num;
    UtilError why;
    if (!ui_yaml_number(b->doc, n, what, &num, b->err))
        return false;
    if (!ui_store_number(t.scalar, &num, dst, &why))
        return ui_yaml_fail(b->doc, n, b->err, "%s", why.message);
    return true;
}

static bool fill_from_list(Binder *b, const UiYamlNode *list, UiElemType t, uint64_t count,
                           uint8_t *dst)
{
    char tname[16];
    type_text(t, tname, sizeof tname);
    bool nested = list->count && list->items[0]->kind == UI_YAML_LIST;
    if (nested) {
        if (t.lanes == 1)
            return ui_yaml_fail(b->doc, list->items[0], b->err, "expected a number (for %s)",
                                tname);
        if (list->count != count)
            return ui_yaml_fail(b->doc, list, b->err, "expected %llu elements of %s, found %u",
                                (unsigned long long)count, tname, list->count);
        for (uint32_t i = 0; i < list->count; i++) {
            const UiYamlNode *e = list->items[i];
            if (e->kind != UI_YAML_LIST || e->count != t.lanes)
                return ui_yaml_fail(b->doc, e, b->err, "expected a list of %u numbers (one %s)",
                                    (unsigned)t.lanes, tname);
            for (uint32_t c = 0; c < t.lanes; c++)
                if (!store_at(b, e->items[c], t, dst + ui_scalar_offset(t, (uint64_t)i * t.lanes + c)))
                    return false;
        }
        return true;
    }
    if (list->count != count * t.lanes)
        return ui_yaml_fail(b->doc, list, b->err, "expected %llu values (count %llu of %s), found %u",
                            (unsigned long long)(count * t.lanes), (unsigned long long)count,
                            tname, list->count);
    for (uint32_t k = 0; k < list->count; k++)
        if (!store_at(b, list->items[k], t, dst + ui_scalar_offset(t, k)))
            return false;
    return true;
}

/* ---- one argument -------------------------------------------------------------------------- */

static const char *kind_name(IsaArgKind k)
{
    return k == ISA_ARG_DEVICE ? "device" : k == ISA_ARG_CONSTANT ? "constant" : "threadgroup";
}

static bool resolve_type(Binder *b, const UiArgSpec *s, const IsaArg *param, UiBoundArg *a)
{
    UiElemType from_kernel;
    bool kernel_typed = param->type_name && ui_elem_type_parse(param->type_name, &from_kernel);
    /* `device const char *src0` is how ggml passes rows it addresses in bytes and reads as
     * float4: a byte buffer takes whatever type the manifest gives it */
    bool bytes = kernel_typed && from_kernel.lanes == 1 &&
                 (from_kernel.scalar == UI_CHAR || from_kernel.scalar == UI_UCHAR);
    if (s->has_type) {
        if (kernel_typed && !bytes && (from_kernel.scalar != s->type.scalar || from_kernel.lanes != s->type.lanes))
            return ui_yaml_fail(b->doc, s->type_node, b->err,
                                "expected type %s, the type of kernel argument '%s'",
                                param->type_name, param->name);
        a->type = s->type;
        a->typed = true;
    } else if (kernel_typed) {
        a->type = from_kernel;
        a->typed = true;
    }
    return true;
}

static bool count_from_sources(Binder *b, const UiArgSpec *s, UiBoundArg *a)
{
    char tname[16];
    type_text(a->type, tname, sizeof tname);
    const UiYamlNode *list = s->value && s->value->kind == UI_YAML_LIST ? s->value
                             : s->init.kind == UI_INIT_VALUES        ? s->init.values
                             : s->expect.values                      ? s->expect.values
                                                                     : NULL;
    if (s->value && s->value->kind != UI_YAML_LIST) {
        a->count = 1;
    } else if (list) {
        a->count = list_count(list, a->type);
        if (a->count == 0)
            return ui_yaml_fail(b->doc, list, b->err, "expected a non-empty list of %s values "
                                "(a multiple of %u numbers, or a list of %u-number lists)",
                                tname, (unsigned)a->type.lanes, (unsigned)a->type.lanes);
    } else if (s->init.kind == UI_INIT_FILE || s->expect.file) {
        return true; /* the file sets it when read */
    } else if (s->has_bytes) {
        a->count = s->bytes / ui_elem_size(a->type);
    } else {
        return ui_yaml_fail(b->doc, s->key, b->err, "expected a count: for arg '%s' (or a value:, "
                            "init values or file, or bytes: to size its buffer)", s->name);
    }
    return true;
}

static bool bind_threadgroup(Binder *b, const UiArgSpec *s, UiBoundArg *a, uint64_t *tg_total)
{
    const UiYamlNode *bad = s->value          ? ui_yaml_key_of(s->map, s->value)
                            : s->init.node    ? ui_yaml_key_of(s->map, ui_yaml_get(s->map, "init"))
                            : s->expect.node  ? ui_yaml_key_of(s->map, s->expect.node)
                            : s->dump.node    ? ui_yaml_key_of(s->map, s->dump.node)
                                              : NULL;
    if (bad)
        return ui_yaml_fail(b->doc, bad, b->err, "expected only bytes: (or count: and type:) for "
                            "threadgroup arg '%s'; threadgroup memory starts empty in every "
                            "threadgroup and cannot be checked or dumped", s->name);
    const UiYamlNode *at = s->bytes_node ? s->bytes_node : s->count_node;
    if (s->has_bytes)
        a->bytes = s->bytes;
    else if (s->has_count && a->typed)
        a->bytes = s->count * ui_elem_size(a->type);
    else
        return ui_yaml_fail(b->doc, s->key, b->err, "expected bytes: for threadgroup arg '%s' "
                            "(the size of its block of threadgroup memory)", s->name);
    *tg_total += a->bytes;
    if (b->program->tg_mem_bytes + *tg_total > b->tg_limit)
        return ui_yaml_fail(b->doc, at, b->err, "expected at most %u bytes of threadgroup memory "
                            "in all; the kernel's %u static bytes and its threadgroup args come "
                            "to %llu", b->tg_limit, b->program->tg_mem_bytes,
                            (unsigned long long)(b->program->tg_mem_bytes + *tg_total));
    a->buffer = -1;
    return true;
}

static bool fill_buffer(Binder *b, const UiArgSpec *s, UiBoundArg *a, uint8_t *dst)
{
    const UiInit *in = &s->init;
    UtilError why;
    bool ok = true;
    if (s->value && s->value->kind == UI_YAML_LIST)
        return fill_from_list(b, s->value, a->type, a->count, dst);
    if (s->value) {
        UiNumber n;
        if (!ui_yaml_number(b->doc, s->value, "a number or a list of numbers", &n, b->err))
            return false;
        ok = ui_init_fill(a->type, a->count, &n, dst, &why);
        return ok || ui_yaml_fail(b->doc, s->value, b->err, "%s", why.message);
    }
    if (in->kind == UI_INIT_FILL || in->kind == UI_INIT_RANGE || in->kind == UI_INIT_RANDOM ||
        in->kind == UI_INIT_NORMAL)
        util_populate(dst, (size_t)(a->count * ui_elem_size(a->type))); /* written throughout */
    switch (in->kind) {
    case UI_INIT_ZERO:
        return true;
    case UI_INIT_NONE:
        a->uninitialized = true;
        return true;
    case UI_INIT_FILL: ok = ui_init_fill(a->type, a->count, &in->a, dst, &why); break;
    case UI_INIT_RANGE: ok = ui_init_range(a->type, a->count, &in->a, &in->b, dst, &why); break;
    case UI_INIT_RANDOM:
        ok = ui_init_random(a->type, a->count, in->seed, &in->a, &in->b, dst, &why);
        break;
    case UI_INIT_NORMAL:
        ok = ui_init_normal(a->type, a->count, in->seed, in->mean, in->std_dev, dst, &why);
        break;
    case UI_INIT_VALUES:
        return fill_from_list(b, in->values, a->type, a->count, dst);
    case UI_INIT_FILE:
        break; /* read before the buffer was made */
    }
    return ok || ui_yaml_fail(b->doc, in->node, b->err, "%s", why.message);
}

static bool load_expect(Binder *b, const UiArgSpec *s, UiBoundArg *a)
{
    const UiExpect *e = &s->expect;
    if (!e->present)
        return true;
    if (e->values) {
        a->want = util_calloc((size_t)a->count, ui_elem_size(a->type));
        return fill_from_list(b, e->values, a->type, a->count, a->want);
    }
    uint64_t count = a->count;
    UtilError file_err;
    if (!ui_read_data_file(e->file, a->type, &count, &a->want, &file_err)) {
        return fail_file(b, e->file_node, &file_err);
    }
    a->count = count;
    return true;
}

static bool bind_buffer(Binder *b, const UiArgSpec *s, UiBoundArg *a, MemDevice *dev)
{
    char tname[16];
    bool needs_type = s->value || s->init.kind || s->expect.present || s->dump.kind ||
                      !s->has_bytes;
    if (!a->typed && needs_type)
        return ui_yaml_fail(b->doc, s->key, b->err, "expected a type: for arg '%s' (assembly "
                            "kernels do not say what their buffers hold), e.g. type: float",
                            s->name);
    uint8_t *file_data = NULL;
    if (a->typed) {
        type_text(a->type, tname, sizeof tname);
        a->count = s->has_count ? s->count : 0;
        if (!s->has_count && !count_from_sources(b, s, a))
            return false;
        if (s->init.kind == UI_INIT_FILE) {
            UtilError file_err;
            if (!ui_read_data_file(s->init.file, a->type, &a->count, &file_data, &file_err))
                return fail_file(b, s->init.node, &file_err);
        } else if (a->count == 0 && s->expect.file) {
            /* Only the expectation file says how big the output is. */
            if (!load_expect(b, s, a))
                return false;
        }
        if (a->count > UI_MAX_BUFFER_BYTES / ui_elem_size(a->type)) {
            free(file_data);
            return ui_yaml_fail(b->doc, s->count_node ? s->count_node : s->key, b->err,
                                "expected at most 1 GiB per buffer; %llu elements of %s is more",
                                (unsigned long long)a->count, tname);
        }
        a->bytes = a->count * ui_elem_size(a->type);
        if (s->has_bytes) {
            if (s->bytes < a->bytes) {
                free(file_data);
                return ui_yaml_fail(b->doc, s->bytes_node, b->err, "expected at least %llu "
                                    "bytes to hold %llu elements of %s",
                                    (unsigned long long)a->bytes, (unsigned long long)a->count,
                                    tname);
            }
            a->bytes = s->bytes;
        }
    } else {
        a->bytes = s->bytes;
    }
    MemSpace space = a->param->kind == ISA_ARG_CONSTANT ? MEM_SPACE_CONSTANT : MEM_SPACE_DEVICE;
    UtilError mem_err;
    a->buffer = mem_device_add(dev, s->name, a->bytes, space, &mem_err);
    if (a->buffer < 0) {
        free(file_data);
        return ui_yaml_fail(b->doc, s->key, b->err, "%s", mem_err.message);
    }
    uint8_t *dst = dev->buffers[a->buffer].data;
    if (file_data) {
        memcpy(dst, file_data, (size_t)(a->count * ui_elem_size(a->type)));
        free(file_data);
    } else if (a->typed && !fill_buffer(b, s, a, dst)) {
        return false;
    }
    return a->want || !a->typed || load_expect(b, s, a);
}

/* A tensor: a buffer of row_pitch x rows elements (or count:, if it is at least what the
 * extents reach), and the extents and pitch the kernel reads. */
static bool bind_tensor(Binder *b, const UiArgSpec *s, UiBoundArg *a, MemDevice *dev,
                        SimArgBinding *out)
{
    if (!s->has_extents)
        return ui_yaml_fail(b->doc, s->key, b->err, "expected extents: [columns, rows] for "
                            "tensor argument '%s'", s->name);
    if (!a->typed) /* an assembly kernel's tensor: its element type is the manifest's */
        return ui_yaml_fail(b->doc, s->key, b->err, "expected a type: for tensor argument '%s' "
                            "(assembly kernels do not declare one)", s->name);
    uint64_t pitch = s->row_pitch ? s->row_pitch : s->extents[0];
    uint64_t need = pitch * (s->extents[1] - 1) + s->extents[0];
    UiArgSpec sized = *s;
    if (!s->has_count) {
        sized.has_count = true;
        sized.count = pitch * s->extents[1];
        sized.count_node = s->extents_node;
    } else if (s->count < need) {
        return ui_yaml_fail(b->doc, s->count_node, b->err, "expected a count of at least %llu "
                            "for a tensor of %u x %u elements with a row pitch of %llu",
                            (unsigned long long)need, s->extents[0], s->extents[1],
                            (unsigned long long)pitch);
    }
    if (sized.count > UI_MAX_BUFFER_BYTES / ui_elem_size(a->type))
        return ui_yaml_fail(b->doc, s->extents_node, b->err, "expected at most 1 GiB per "
                            "tensor; %llu elements is more", (unsigned long long)sized.count);
    if (!bind_buffer(b, &sized, a, dev))
        return false;
    out->buffer = (uint32_t)a->buffer;
    out->tensor[0] = s->extents[0];
    out->tensor[1] = s->extents[1];
    out->tensor[2] = (uint32_t)pitch;
    return true;
}

/* A texture: its texels are a buffer of its format's storage type, width x height of them
 * (the manifest made the spec so), and the kernel reads its width, height and row pitch. */
static bool bind_texture(Binder *b, const UiArgSpec *s, UiBoundArg *a, MemDevice *dev,
                         SimArgBinding *out)
{
    const IsaArg *param = a->param;
    if (s->texture != param->texture)
        return ui_yaml_fail(b->doc, s->type_node, b->err, "expected type: texture%dd: argument "
                            "'%s' is a texture%dd", param->texture, s->name, param->texture);
    if (!bind_buffer(b, s, a, dev))
        return false;
    out->buffer = (uint32_t)a->buffer;
    out->tensor[0] = s->width;
    out->tensor[1] = s->height;
    out->tensor[2] = s->width;
    return true;
}

/* ---- the whole launch ---------------------------------------------------------------------- */

static void param_list(const IsaProgram *p, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < p->num_args && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", p->args[i].name);
    if (p->num_args == 0)
        snprintf(buf, size, "(none)");
}

bool ui_bind(const UiManifest *m, const IsaProgram *program, UiBound *out, UtilError *err)
{
    return ui_bind_layouts(m, program, NULL, 0, out, err);
}

/* A struct argument (`constant Params& p`, `device Item* items`): its value is a map of fields,
 * or a list of such maps for several elements. */
static bool bind_struct(Binder *b, const UiArgSpec *s, UiBoundArg *a, const LangTypeLayout *l,
                        MemDevice *dev)
{
    const UiYamlNode *v = s->value;
    if (!v && (s->init.kind != UI_INIT_ZERO || s->expect.present || s->dump.kind))
        return ui_yaml_fail(b->doc, s->key, b->err, "arg '%s' is a %s struct: give its fields "
                            "with value: {field: ...} (init, expect and dump need scalar or "
                            "vector types)", s->name, l->name);
    uint64_t count = !v ? (s->has_count ? s->count : 1) : v->kind == UI_YAML_LIST ? v->count : 1;
    if (count == 0 || count > UI_MAX_BUFFER_BYTES / (l->size ? l->size : 1))
        return ui_yaml_fail(b->doc, v ? v : s->key, b->err, "expected 1 to %llu elements of %s",
                            (unsigned long long)(UI_MAX_BUFFER_BYTES / (l->size ? l->size : 1)),
                            l->name);
    a->count = count;
    a->bytes = s->has_bytes && s->bytes > count * l->size ? s->bytes : count * l->size;
    MemSpace space = a->param->kind == ISA_ARG_CONSTANT ? MEM_SPACE_CONSTANT : MEM_SPACE_DEVICE;
    UtilError mem_err;
    a->buffer = mem_device_add(dev, s->name, a->bytes, space, &mem_err);
    if (a->buffer < 0)
        return ui_yaml_fail(b->doc, s->key, b->err, "%s", mem_err.message);
    uint8_t *dst = dev->buffers[a->buffer].data;
    if (!v)
        return true;
    if (v->kind == UI_YAML_LIST) {
        for (uint32_t i = 0; i < v->count; i++)
            if (!ui_fill_struct(b->doc, v->items[i], l, dst + (size_t)i * l->size, b->err))
                return false;
        return true;
    }
    return ui_fill_struct(b->doc, v, l, dst, b->err);
}

bool ui_bind_layouts(const UiManifest *m, const IsaProgram *program,
                     const LangTypeLayout *layouts, uint32_t tg_limit, UiBound *out,
                     UtilError *err)
{
    Binder b = {m, m->doc, program, err, layouts, tg_limit ? tg_limit : SIM_DEFAULT_TG_MEM_LIMIT};
    memset(out, 0, sizeof *out);
    out->data_buffer = -1;
    out->device = mem_device_new();
    out->num_args = program->num_args;
    out->args = util_calloc(program->num_args ? program->num_args : 1, sizeof *out->args);
    out->bindings = util_calloc(program->num_args ? program->num_args : 1, sizeof *out->bindings);
    char names[400];
    param_list(program, names, sizeof names);
    const UiYamlNode *args_node = ui_yaml_get(m->doc->root, "args");
    for (uint32_t i = 0; i < m->num_args; i++) {
        bool known = false;
        for (uint32_t j = 0; j < program->num_args && !known; j++)
            known = strcmp(program->args[j].name, m->args[i].name) == 0;
        if (!known)
            return ui_yaml_fail(m->doc, m->args[i].key, err, "unknown argument '%s'; expected "
                                "one of the kernel's arguments: %s", m->args[i].name, names);
    }
    uint64_t tg_total = 0;
    for (uint32_t i = 0; i < program->num_args; i++) {
        const IsaArg *param = &program->args[i];
        UiBoundArg *a = &out->args[i];
        a->param = param;
        a->spec = ui_manifest_arg(m, param->name);
        if (!a->spec)
            return ui_yaml_fail(m->doc, args_node ? ui_yaml_key_of(m->doc->root, args_node)
                                                  : m->doc->root,
                                err, "expected a setting for %s argument '%s' under args: "
                                "(the kernel's arguments: %s)", kind_name(param->kind),
                                param->name, names);
        if (param->texture && !a->spec->texture)
            return ui_yaml_fail(m->doc, a->spec->key, err, "expected type: texture%dd with "
                                "format:, width:%s for texture argument '%s'", param->texture,
                                param->texture == 2 ? ", height:" : "", param->name);
        if (a->spec->struct_name &&
            (!layouts || layouts[i].num_fields == 0 || !param->type_name ||
             strcmp(param->type_name, a->spec->struct_name) != 0))
            return ui_yaml_fail(m->doc, a->spec->type_node, err,
                                "expected type %s, the type of kernel argument '%s' (a struct "
                                "name here must be the kernel's struct)",
                                param->type_name ? param->type_name : "?", param->name);
        if (!resolve_type(&b, a->spec, param, a))
            return false;
        if (a->spec->texture && !param->texture)
            return ui_yaml_fail(m->doc, a->spec->type_node, err, "type: texture%dd belongs to "
                                "texture arguments; '%s' is a %s buffer", a->spec->texture,
                                param->name, kind_name(param->kind));
        if (param->kind == ISA_ARG_THREADGROUP) {
            if (!bind_threadgroup(&b, a->spec, a, &tg_total))
                return false;
            out->bindings[i].tg_bytes = (uint32_t)a->bytes;
        } else if (!a->typed && layouts && layouts[i].num_fields > 0 && !a->spec->has_type) {
            if (!bind_struct(&b, a->spec, a, &layouts[i], out->device))
                return false;
            out->bindings[i].buffer = (uint32_t)a->buffer;
        } else if (param->texture) {
            if (!bind_texture(&b, a->spec, a, out->device, &out->bindings[i]))
                return false;
        } else if (param->tensor_rank) {
            if (!bind_tensor(&b, a->spec, a, out->device, &out->bindings[i]))
                return false;
        } else {
            if (a->spec->has_extents)
                return ui_yaml_fail(m->doc, a->spec->extents_node, err, "extents: belongs to "
                                    "tensor arguments; '%s' is a %s buffer (give count:)",
                                    param->name, kind_name(param->kind));
            if (!bind_buffer(&b, a->spec, a, out->device))
                return false;
            out->bindings[i].buffer = (uint32_t)a->buffer;
        }
    }
    /* after the arguments, so their buffers keep their indices */
    UtilError mem_err;
    out->data_buffer = sim_add_program_data(out->device, program, &mem_err);
    if (out->data_buffer < 0 && program->data_bytes)
        return util_fail(err, "%s", mem_err.message);
    return true;
}

void ui_bound_free(UiBound *b)
{
    if (!b)
        return;
    for (uint32_t i = 0; i < b->num_args; i++)
        free(b->args[i].want);
    free(b->args);
    free(b->bindings);
    mem_device_free(b->device);
    memset(b, 0, sizeof *b);
}

/* ---- dumps --------------------------------------------------------------------------------- */

static UiNpyDtype npy_dtype_of(UiScalarType s)
{
    static const UiNpyDtype map[UI_SCALAR_COUNT] = {
        [UI_BOOL] = UI_NPY_B1, [UI_CHAR] = UI_NPY_I1,   [UI_UCHAR] = UI_NPY_U1,
        [UI_SHORT] = UI_NPY_I2, [UI_USHORT] = UI_NPY_U2, [UI_INT] = UI_NPY_I4,
        [UI_UINT] = UI_NPY_U4, [UI_LONG] = UI_NPY_I8,   [UI_ULONG] = UI_NPY_U8,
        [UI_HALF] = UI_NPY_F2, [UI_FLOAT] = UI_NPY_F4, [UI_BFLOAT] = UI_NPY_F4,
    };
    return map[s];
}

bool ui_dump_arg(const UiManifest *m, const UiBound *b, const UiBoundArg *arg, FILE *out,
                 UtilError *err)
{
    const UiDump *d = &arg->spec->dump;
    if (d->kind == UI_DUMP_NONE || arg->buffer < 0)
        return true;
    const MemBuffer *buf = &b->device->buffers[arg->buffer];
    if (d->kind == UI_DUMP_STDOUT) {
        ui_report_values(out, arg->spec->name, arg->type, buf->data, arg->count);
        return true;
    }
    UtilError file_err;
    bool ok;
    if (d->kind == UI_DUMP_BIN) {
        FILE *f = fopen(d->path, "wb");
        ok = f && fwrite(buf->data, 1, (size_t)buf->size, f) == buf->size;
        ok = (f && fclose(f) == 0) && ok;
        if (!ok)
            util_fail(&file_err, "%s: error: cannot write: %s", d->path, strerror(errno));
    } else {
        /* .npy holds the real components only: a float3 buffer becomes shape (count, 3). */
        UiElemType t = arg->type;
        uint32_t ssize = ui_scalar_size(t.scalar);
        uint64_t n = arg->count * t.lanes;
        /* .npy has no bfloat dtype: bfloat is written as float32, which holds every value
         * exactly */
        uint32_t osize = t.scalar == UI_BFLOAT ? 4 : ssize;
        uint8_t *packed = util_malloc((size_t)(n ? n * osize : 1));
        for (uint64_t k = 0; k < n; k++) {
            const uint8_t *src = buf->data + ui_scalar_offset(t, k);
            if (t.scalar == UI_BFLOAT) {
                uint16_t bits;
                memcpy(&bits, src, 2);
                float f = util_bf16_to_f32(bits);
                memcpy(packed + k * osize, &f, 4);
            } else {
                memcpy(packed + k * osize, src, ssize);
            }
        }
        uint64_t shape[2] = {arg->count, t.lanes};
        ok = ui_npy_write(d->path, npy_dtype_of(t.scalar), shape, t.lanes > 1 ? 2 : 1, packed,
                          &file_err);
        free(packed);
    }
    if (ok)
        return true;
    Binder bd = {m, m->doc, NULL, err};
    return fail_file(&bd, d->node, &file_err);
}
