/*
 * compile.c — the compiler driver (lang.h): runs the stages of lang_internal.h in order and
 * reports the layouts of a kernel's arguments for binding buffers.
 */
#include <stdlib.h>
#include <string.h>

#include "lang_internal.h"

static void copy_layouts(LangCtx *ctx, LangFunction *kernel, LangTypeLayout **layouts,
                         uint32_t *count);

IsaProgram *lang_compile_source(const char *text, const char *path, const LangOptions *opts,
                                LangTypeLayout **layouts, UtilError *err)
{
    static const LangOptions no_options;
    LangCtx ctx = {.err = err, .opts = opts ? opts : &no_options};
    IsaProgram *volatile program = NULL;
    if (layouts)
        *layouts = NULL;
    if (setjmp(ctx.bail) == 0) {
        LangFile *file = lang_add_file(&ctx, path, lang_strndup(&ctx, text, strlen(text)));
        LangToken *tok = lang_preprocess(&ctx, lang_tokenize(&ctx, file));
        LangUnit *unit = lang_parse(&ctx, tok);
        LangFunction *kernel = lang_find_kernel(&ctx, unit, ctx.opts->entry);
        LangIr *ir = lang_codegen(&ctx, unit, kernel);
        program = lang_backend(&ctx, ir);
        if (layouts) {
            uint32_t n = 0;
            copy_layouts(&ctx, kernel, layouts, &n);
        }
    } else {
        isa_program_free(program);
        program = NULL;
    }
    lang_ctx_free(&ctx);
    return program;
}

IsaProgram *lang_compile_file(const char *path, const LangOptions *opts, LangTypeLayout **layouts,
                              UtilError *err)
{
    char *text = util_read_text_file(path, err);
    if (!text)
        return NULL;
    IsaProgram *p = lang_compile_source(text, path, opts, layouts, err);
    free(text);
    return p;
}

/* ---- argument layouts for the manifest ---------------------------------------------------- */

static LangTypeLayout *layout_of(LangType *ty);

static void fill_layout(LangTypeLayout *out, LangType *ty)
{
    out->name = util_strdup(ty->name ? ty->name : "?");
    out->size = (uint32_t)ty->size;
    out->align = (uint32_t)ty->align;
    out->scalar = ISA_TYPE_COUNT;
    out->components = 1;
    if (ty->kind == LTY_ATOMIC)
        ty = ty->base;
    if (lang_is_scalar(ty) || ty->kind == LTY_VECTOR) {
        out->scalar = lang_isa_type(lang_scalar_of(ty));
        out->components = (uint32_t)lang_components(ty);
        return;
    }
    if (ty->kind == LTY_STRUCT) {
        uint32_t n = 0;
        for (LangMember *m = ty->members; m; m = m->next)
            n++;
        out->fields = util_calloc(n ? n : 1, sizeof *out->fields);
        out->num_fields = n;
        uint32_t i = 0;
        for (LangMember *m = ty->members; m; m = m->next, i++) {
            LangFieldLayout *f = &out->fields[i];
            LangType *mt = m->type;
            f->name = util_strdup(m->name ? m->name : "");
            f->offset = (uint32_t)m->offset;
            f->size = (uint32_t)mt->size;
            f->type_name = util_strdup(mt->name ? mt->name : "?");
            f->scalar = ISA_TYPE_COUNT;
            f->components = 1;
            LangType *elem = mt->kind == LTY_ARRAY ? mt->base : mt;
            if (mt->kind == LTY_ARRAY)
                f->components = (uint32_t)mt->len;
            if (elem->kind == LTY_ATOMIC)
                elem = elem->base;
            if (lang_is_scalar(elem) || elem->kind == LTY_VECTOR) {
                f->scalar = lang_isa_type(lang_scalar_of(elem));
                f->components *= (uint32_t)lang_components(elem);
            } else if (elem->kind == LTY_STRUCT) {
                f->nested = layout_of(elem);
            }
        }
    }
}

static LangTypeLayout *layout_of(LangType *ty)
{
    LangTypeLayout *l = util_calloc(1, sizeof *l);
    fill_layout(l, ty);
    return l;
}

static void free_layout_fields(LangTypeLayout *l)
{
    free(l->name);
    for (uint32_t i = 0; i < l->num_fields; i++) {
        free(l->fields[i].name);
        free(l->fields[i].type_name);
        if (l->fields[i].nested) {
            free_layout_fields(l->fields[i].nested);
            free(l->fields[i].nested);
        }
    }
    free(l->fields);
}

void lang_layouts_free(LangTypeLayout *layouts, uint32_t count)
{
    if (!layouts)
        return;
    for (uint32_t i = 0; i < count; i++)
        free_layout_fields(&layouts[i]);
    free(layouts);
}

/* One layout per kernel argument bound to a buffer or threadgroup block, in the order of the
 * program's args (codegen emits args in parameter order, skipping built-in attributes and
 * arguments a false function constant removed). */
static void copy_layouts(LangCtx *ctx, LangFunction *kernel, LangTypeLayout **layouts,
                         uint32_t *count)
{
    (void)ctx;
    uint32_t n = 0;
    for (LangVar *p = kernel->params; p; p = p->next)
        n += (p->attr == LATTR_BUFFER || p->attr == LATTR_THREADGROUP) && !p->absent;
    LangTypeLayout *out = util_calloc(n ? n : 1, sizeof *out);
    uint32_t i = 0;
    for (LangVar *p = kernel->params; p; p = p->next) {
        if ((p->attr != LATTR_BUFFER && p->attr != LATTR_THREADGROUP) || p->absent)
            continue;
        LangType *pointee = p->type->kind == LTY_POINTER ? p->type->base : p->type;
        fill_layout(&out[i++], pointee);
    }
    *layouts = out;
    *count = n;
}
