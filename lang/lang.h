/*
 * lang.h — the kernel-language compiler's public face: Metal-flavoured C (the C part of
 * the Metal Shading Language) in, an IsaProgram out, plus what the launch manifest needs to
 * know about the kernel's arguments (types, struct layouts, function constants).
 */
#ifndef LOCKSTEP_LANG_H
#define LOCKSTEP_LANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../isa/isa.h"
#include "../util/util.h"

/* A function constant's value, given by name (manifest `constants:`). */
typedef struct LangConstant {
    const char *name;
    bool is_float;   /* value given as a float literal */
    double number;   /* the value (integers are exact up to 2^53) */
    bool negative;   /* an integer's value exactly (!is_float, magnitude not 0): -magnitude */
    uint64_t magnitude; /* or magnitude, so a long or ulong takes every value; 0: number's */
} LangConstant;

/* Texture pixel formats (MTLPixelFormat names without the prefix): how a texel is stored
 * and how read() and write() convert it (lang/texture_format.c). */
typedef enum LangTexFormat {
    LANG_TEX_NONE,
    LANG_TEX_R8UNORM, LANG_TEX_RG8UNORM, LANG_TEX_RGBA8UNORM, LANG_TEX_BGRA8UNORM,
    LANG_TEX_R16UNORM, LANG_TEX_RG16UNORM, LANG_TEX_RGBA16UNORM,
    LANG_TEX_R16FLOAT, LANG_TEX_RG16FLOAT, LANG_TEX_RGBA16FLOAT,
    LANG_TEX_R32FLOAT, LANG_TEX_RG32FLOAT, LANG_TEX_RGBA32FLOAT,
    LANG_TEX_R8UINT, LANG_TEX_RGBA8UINT, LANG_TEX_R16UINT, LANG_TEX_RGBA16UINT,
    LANG_TEX_R32UINT, LANG_TEX_RG32UINT, LANG_TEX_RGBA32UINT,
    LANG_TEX_R8SINT, LANG_TEX_RGBA8SINT, LANG_TEX_R16SINT, LANG_TEX_RGBA16SINT,
    LANG_TEX_R32SINT, LANG_TEX_RG32SINT, LANG_TEX_RGBA32SINT,
    LANG_TEX_COUNT
} LangTexFormat;

typedef enum LangTexKind {
    LANG_TEXK_UNORM, /* unsigned normalized: read as c / max, written rounded and clamped */
    LANG_TEXK_FLOAT,
    LANG_TEXK_UINT,
    LANG_TEXK_SINT
} LangTexKind;

typedef struct LangTexFormatInfo {
    const char *name;      /* "rgba8unorm" */
    const char *storage;   /* a texel as a buffer element: "uchar4" */
    uint8_t components;    /* 1, 2 or 4 */
    uint8_t bytes;         /* per texel */
    LangTexKind kind;
    bool bgra;             /* stored blue, green, red, alpha */
} LangTexFormatInfo;

/* The format called `name`, or LANG_TEX_NONE. */
LangTexFormat lang_tex_format_named(const char *name);
const LangTexFormatInfo *lang_tex_format_info(LangTexFormat f); /* NULL for NONE */
/* Every format's name, comma-separated, for messages (400 bytes hold them). */
void lang_tex_format_list(char *buf, size_t size);

/* A texture argument's pixel format, given by the argument's name (manifest `format:`). */
typedef struct LangTextureFormat {
    const char *name;
    LangTexFormat format;
} LangTextureFormat;

typedef struct LangOptions {
    const char *entry;            /* kernel to compile; NULL: the file's only kernel */
    const LangConstant *constants;
    uint32_t num_constants;
    const LangTextureFormat *textures; /* texture arguments' formats; others get their sample
                                        * type's 4-component format (rgba32float for float) */
    uint32_t num_textures;
    bool fast_math;               /* MSL's default is fast math on; lockstep's default: off */
} LangOptions;

/* The layout of a kernel argument's pointee or value type, for binding buffers. */
typedef struct LangFieldLayout {
    char *name;          /* field name; NULL for a scalar/vector type */
    char *type_name;     /* "float", "half4", "uint", nested struct name */
    uint32_t offset;     /* bytes from the start of the struct */
    uint32_t size;       /* bytes */
    IsaType scalar;      /* element type of a scalar/vector field (ISA_TYPE_COUNT for structs) */
    uint32_t components; /* 1 for scalars, 2..4 for vectors, array length for arrays */
    struct LangTypeLayout *nested; /* struct fields and array elements of structs */
} LangFieldLayout;

typedef struct LangTypeLayout {
    char *name;          /* "float4", "Params" */
    uint32_t size, align;
    IsaType scalar;      /* scalar/vector element type; ISA_TYPE_COUNT for structs */
    uint32_t components; /* 1 for scalars, 2..4 for vectors (3-vectors take 4 slots) */
    LangFieldLayout *fields;
    uint32_t num_fields;
} LangTypeLayout;

/* Compiles the kernel `opts->entry` of the file at `path`. On error returns NULL and err
 * holds "file:line:col: error: ...", the source line and a caret. `layouts`, when not NULL,
 * receives one LangTypeLayout per program argument (free with lang_layouts_free). */
IsaProgram *lang_compile_file(const char *path, const LangOptions *opts,
                              LangTypeLayout **layouts, UtilError *err);
/* The same from text in memory (`path` names it in messages and resolves #include). */
IsaProgram *lang_compile_source(const char *text, const char *path, const LangOptions *opts,
                                LangTypeLayout **layouts, UtilError *err);
void lang_layouts_free(LangTypeLayout *layouts, uint32_t count);

#endif
