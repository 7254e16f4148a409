/*
 * kernel.c — the manifest's kernel: assembled from .s, or compiled from .metal with the
 * manifest's function constants; the argument layouts the compiler reports, used to lay out
 * struct `value:`s; and `lockstep compile`, which shows a Metal kernel as annotated assembly.
 */
#include "ui.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static IsaProgram *compile_metal(const char *path, const LangOptions *opts,
                                 LangTypeLayout **layouts, UtilError *err)
{
    return lang_compile_file(path, opts, layouts, err);
}

void ui_free_layouts(LangTypeLayout *layouts, uint32_t count)
{
    lang_layouts_free(layouts, count);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Threads per core a kernel using `regs` 32-bit registers can keep resident (Mesa's table for
 * G13, counted in 16-bit halves; apple-gpu-facts.md). */
uint32_t ui_occupancy_threads(uint32_t regs)
{
    static const struct { uint32_t halves, threads; } table[] = {
        {104, 1024}, {112, 896}, {128, 832}, {136, 768}, {144, 704},
        {160, 640}, {184, 576}, {208, 512}, {232, 448}, {256, 384},
    };
    uint32_t halves = regs * 2;
    for (size_t i = 0; i < UTIL_ARRAY_LEN(table); i++)
        if (halves <= table[i].halves)
            return table[i].threads;
    return 384;
}

/* Function constants from the manifest's `constants:` map. */
static bool read_constants(const UiManifest *m, LangConstant **out, uint32_t *count,
                           UtilError *err)
{
    *out = NULL;
    *count = 0;
    const UiYamlNode *map = m->constants;
    if (!map || map->count == 0)
        return true;
    LangConstant *c = util_calloc(map->count, sizeof *c);
    for (uint32_t i = 0; i < map->count; i++) {
        UiNumber n;
        if (!ui_yaml_number(m->doc, map->items[i], "a number (a function constant's value)", &n,
                            err)) {
            free(c);
            return false;
        }
        c[i].name = map->keys[i]->text;
        c[i].is_float = n.is_float;
        c[i].number = ui_number_to_double(&n);
        c[i].negative = n.negative;
        c[i].magnitude = n.magnitude;
    }
    *out = c;
    *count = map->count;
    return true;
}

IsaProgram *ui_load_kernel(const UiManifest *m, LangTypeLayout **layouts, UtilError *err)
{
    if (layouts)
        *layouts = NULL;
    struct stat st;
    if (stat(m->kernel_path, &st) != 0) {
        ui_yaml_fail(m->doc, m->kernel_node, err, "cannot open kernel file '%s': %s",
                     m->kernel_path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        ui_yaml_fail(m->doc, m->kernel_node, err, "expected kernel file '%s' to be a regular "
                     "file", m->kernel_path);
        return NULL;
    }
    IsaProgram *p;
    if (ends_with(m->kernel_path, ".metal")) {
        LangConstant *constants;
        uint32_t num_constants;
        if (!read_constants(m, &constants, &num_constants, err))
            return NULL;
        /* a texture's pixel format decides the code its read() and write() compile to */
        LangTextureFormat *textures = util_calloc(m->num_args ? m->num_args : 1,
                                                  sizeof *textures);
        uint32_t num_textures = 0;
        for (uint32_t i = 0; i < m->num_args; i++)
            if (m->args[i].texture)
                textures[num_textures++] = (LangTextureFormat){m->args[i].name,
                                                               m->args[i].format};
        LangOptions opts = {.entry = m->entry, .constants = constants,
                            .num_constants = num_constants, .textures = textures,
                            .num_textures = num_textures};
        p = compile_metal(m->kernel_path, &opts, layouts, err);
        free(textures);
        free(constants);
        /* which kernel to run is the manifest's business: point at its entry: (or kernel:) */
        const char *entry_error =
            p ? NULL
              : strstr(err->message, m->entry ? "error: no kernel named"
                                              : "error: the file has several kernels");
        if (entry_error) {
            char why[sizeof err->message];
            snprintf(why, sizeof why, "%s", entry_error + strlen("error: "));
            if (m->entry)
                ui_yaml_fail(m->doc, m->entry_node, err, "expected entry: to name a kernel of "
                             "%s: %s", m->kernel_path, why);
            else /* several kernels, no entry: */
                ui_yaml_fail(m->doc, m->kernel_node, err, "%s: %s (entry: NAME)", m->kernel_path,
                             why);
        }
        return p;
    }
    char *text = util_read_text_file(m->kernel_path, err);
    if (!text)
        return NULL;
    p = isa_assemble(text, m->kernel_path, err);
    free(text);
    if (!p)
        return NULL;
    if (m->entry && (!p->name || strcmp(p->name, m->entry) != 0)) {
        ui_yaml_fail(m->doc, m->entry_node, err, "expected entry: to name the kernel in %s, "
                     "which is '%s'", m->kernel_path, p->name ? p->name : "(unnamed)");
        isa_program_free(p);
        return NULL;
    }
    return p;
}

/* ---- struct values ------------------------------------------------------------------------ */

static UiScalarType scalar_of(IsaType t)
{
    switch (t) {
    case ISA_TYPE_U8: return UI_UCHAR;
    case ISA_TYPE_S8: return UI_CHAR;
    case ISA_TYPE_U16: return UI_USHORT;
    case ISA_TYPE_S16: return UI_SHORT;
    case ISA_TYPE_U32: return UI_UINT;
    case ISA_TYPE_S32: return UI_INT;
    case ISA_TYPE_U64: return UI_ULONG;
    case ISA_TYPE_S64: return UI_LONG;
    case ISA_TYPE_F16: return UI_HALF;
    case ISA_TYPE_BF16: return UI_BFLOAT;
    default: return UI_FLOAT;
    }
}

static bool store_number(const UiYamlDoc *doc, const UiYamlNode *n, UiScalarType s, uint8_t *dst,
                         UtilError *err)
{
    char what[64];
    snprintf(what, sizeof what, "a number (for %s)", ui_scalar_name(s));
    UiNumber num;
    UtilError why;
    if (!ui_yaml_number(doc, n, what, &num, err))
        return false;
    if (!ui_store_number(s, &num, dst, &why))
        return ui_yaml_fail(doc, n, err, "%s", why.message);
    return true;
}

/* One field's value: a number, a list of numbers (vectors, arrays) or a map (structs). */
static bool fill_field(const UiYamlDoc *doc, const UiYamlNode *v, const LangFieldLayout *f,
                       uint8_t *dst, UtilError *err)
{
    if (f->nested) {
        if (f->components > 1 && v->kind == UI_YAML_LIST) {
            if (v->count != f->components)
                return ui_yaml_fail(doc, v, err, "expected %u elements for field '%s'",
                                    f->components, f->name);
            for (uint32_t i = 0; i < v->count; i++)
                if (!ui_fill_struct(doc, v->items[i], f->nested, dst + i * f->nested->size, err))
                    return false;
            return true;
        }
        return ui_fill_struct(doc, v, f->nested, dst, err);
    }
    UiScalarType s = scalar_of(f->scalar);
    uint32_t ssize = ui_scalar_size(s);
    if (v->kind == UI_YAML_SCALAR) {
        if (f->components != 1)
            return ui_yaml_fail(doc, v, err, "expected a list of %u numbers for field '%s' (%s)",
                                f->components, f->name, f->type_name);
        return store_number(doc, v, s, dst, err);
    }
    if (v->kind != UI_YAML_LIST || v->count != f->components)
        return ui_yaml_fail(doc, v, err, "expected %u number%s for field '%s' (%s)",
                            f->components, f->components == 1 ? "" : "s", f->name, f->type_name);
    /* Components are consecutive scalars, except that 3-vectors inside arrays (and a
     * float3x3's columns) keep a padding slot: the field's size says so. */
    bool padded3 = f->components % 3 == 0 && f->size == f->components / 3 * 4 * ssize &&
                   f->components > 3;
    for (uint32_t c = 0; c < v->count; c++)
        if (!store_number(doc, v->items[c], s, dst + (padded3 ? c / 3 * 4 + c % 3 : c) * ssize,
                          err))
            return false;
    return true;
}

bool ui_fill_struct(const UiYamlDoc *doc, const UiYamlNode *value, const LangTypeLayout *layout,
                    uint8_t *dst, UtilError *err)
{
    if (value->kind != UI_YAML_MAP)
        return ui_yaml_fail(doc, value, err, "expected a map of %s's fields, like {%s: ...}",
                            layout->name, layout->num_fields ? layout->fields[0].name : "field");
    for (uint32_t i = 0; i < value->count; i++) {
        const char *key = value->keys[i]->text;
        const LangFieldLayout *f = NULL;
        for (uint32_t k = 0; k < layout->num_fields && !f; k++)
            if (strcmp(layout->fields[k].name, key) == 0)
                f = &layout->fields[k];
        if (!f) {
            char names[300];
            size_t len = 0;
            names[0] = '\0';
            for (uint32_t k = 0; k < layout->num_fields && len < sizeof names; k++)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "",
                                        layout->fields[k].name);
            return ui_yaml_fail(doc, value->keys[i], err, "%s has no field '%s'; its fields: %s",
                                layout->name, key, names);
        }
        if (!fill_field(doc, value->items[i], f, dst + f->offset, err))
            return false;
    }
    return true;
}

/* ---- lockstep compile --------------------------------------------------------------------- */

void ui_compile_usage(FILE *out)
{
    fputs("usage: lockstep compile KERNEL.metal [-o OUT.s] [--entry NAME] [-D NAME=VALUE]...\n"
          "\n"
          "Compiles a Metal kernel and prints its assembly, annotated with the source lines\n"
          "each instruction came from. The output assembles back (kernel: OUT.s in a manifest).\n"
          "\n"
          "options:\n"
          "  -o FILE          write the assembly to FILE instead of standard output\n"
          "  --entry NAME     the kernel to compile when the file has several\n"
          "  -D NAME=VALUE    a function constant's value\n"
          "  -h, --help       show this help\n"
          "\n"
          "exit status: 0 success; 2 bad input (a compile error, a missing file, bad usage)\n",
          out);
}

#define compile_usage_error(...) ui_usage_error("compile", ui_compile_usage, __VA_ARGS__)

int ui_cmd_compile(int argc, char **argv)
{
    const char *input = NULL, *output = NULL, *entry = NULL;
    LangConstant constants[64];
    char names[64][128]; /* the constants' names: nothing to free on the many ways out */
    uint32_t num_constants = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            ui_compile_usage(stdout);
            return UI_EXIT_OK;
        } else if (strcmp(a, "-o") == 0) {
            if (++i >= argc)
                return compile_usage_error("-o needs a file name");
            output = argv[i];
        } else if (strcmp(a, "--entry") == 0) {
            if (++i >= argc)
                return compile_usage_error("--entry needs a kernel name");
            entry = argv[i];
        } else if (strncmp(a, "-D", 2) == 0) {
            const char *def = a[2] ? a + 2 : (++i < argc ? argv[i] : NULL);
            const char *eq = def ? strchr(def, '=') : NULL;
            UiNumber n;
            if (!eq || eq == def || !ui_yaml_parse_number(eq + 1, &n))
                return compile_usage_error("expected -D NAME=NUMBER, not %s", def ? def : "nothing");
            for (uint32_t k = 0; k < num_constants; k++)
                if (strlen(constants[k].name) == (size_t)(eq - def) &&
                    strncmp(constants[k].name, def, (size_t)(eq - def)) == 0)
                    return compile_usage_error("expected each function constant once; -D %s "
                                               "gives %.*s a second value", def,
                                               (int)(eq - def), def);
            if (num_constants == UTIL_ARRAY_LEN(constants))
                return compile_usage_error("too many -D options");
            if ((size_t)(eq - def) >= sizeof names[0])
                return compile_usage_error("-D %.*s...: a name of at most %zu characters", 16, def,
                                           sizeof names[0] - 1);
            snprintf(names[num_constants], sizeof names[0], "%.*s", (int)(eq - def), def);
            constants[num_constants].name = names[num_constants];
            constants[num_constants].is_float = n.is_float;
            constants[num_constants].negative = n.negative;
            constants[num_constants].magnitude = n.magnitude;
            constants[num_constants].number =
                ui_number_to_double(&n);
            num_constants++;
        } else if (a[0] == '-' && a[1]) {
            return compile_usage_error("unknown option %s", a);
        } else if (input) {
            return compile_usage_error("one kernel file at a time; unexpected %s", a);
        } else {
            input = a;
        }
    }
    if (!input)
        return compile_usage_error("expected a kernel file (KERNEL.metal)");
    if (ends_with(input, ".s")) {
        fprintf(stderr, "lockstep compile: error: %s is assembly, which needs no compiling: run "
                "it with `kernel: %s` in a launch manifest\n", input, input);
        return UI_EXIT_BAD_INPUT;
    }
    struct stat in_st, out_st;
    if (output && stat(input, &in_st) == 0 && stat(output, &out_st) == 0 &&
        in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino) {
        fprintf(stderr, "lockstep compile: error: -o %s is the kernel being compiled; writing the "
                "assembly there would replace the source\n", output);
        return UI_EXIT_BAD_INPUT;
    }
    UtilError err;
    LangOptions opts = {.entry = entry, .constants = constants, .num_constants = num_constants};
    IsaProgram *p = compile_metal(input, &opts, NULL, &err);
    if (!p) {
        fprintf(stderr, "%s\n", err.message);
        return UI_EXIT_BAD_INPUT;
    }
    char *text = isa_disassemble(p, true);
    FILE *out = output ? fopen(output, "w") : stdout;
    if (!out) {
        fprintf(stderr, "lockstep compile: error: cannot write %s: %s\n", output, strerror(errno));
        free(text);
        isa_program_free(p);
        return UI_EXIT_BAD_INPUT;
    }
    fprintf(out, "; %s: kernel %s, %u registers (%u halves): up to %u threads resident per core\n",
            input, p->name, p->num_regs, p->num_regs * 2, ui_occupancy_threads(p->num_regs));
    fputs(text, out);
    int status = UI_EXIT_OK;
    if (output && fclose(out) != 0) {
        fprintf(stderr, "lockstep compile: error: cannot write %s: %s\n", output, strerror(errno));
        status = UI_EXIT_BAD_INPUT;
    }
    free(text);
    isa_program_free(p);
    return status;
}
