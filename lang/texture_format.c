/*
 * texture_format.c — the texture pixel formats lockstep knows: for each, the buffer element a
 * texel is stored as (so that a manifest fills, checks and dumps a texture as it does a
 * buffer of that type) and the conversion read() and write() apply (MSL 7.7). One table,
 * read by the compiler's texture lowering (parse_texture.c) and the manifest.
 */
#include <stdio.h>
#include <string.h>

#include "lang.h"

static const LangTexFormatInfo formats[LANG_TEX_COUNT] = {
    [LANG_TEX_R8UNORM] = {"r8unorm", "uchar", 1, 1, LANG_TEXK_UNORM, false},
    [LANG_TEX_RG8UNORM] = {"rg8unorm", "uchar2", 2, 2, LANG_TEXK_UNORM, false},
    [LANG_TEX_RGBA8UNORM] = {"rgba8unorm", "uchar4", 4, 4, LANG_TEXK_UNORM, false},
    [LANG_TEX_BGRA8UNORM] = {"bgra8unorm", "uchar4", 4, 4, LANG_TEXK_UNORM, true},
    [LANG_TEX_R16UNORM] = {"r16unorm", "ushort", 1, 2, LANG_TEXK_UNORM, false},
    [LANG_TEX_RG16UNORM] = {"rg16unorm", "ushort2", 2, 4, LANG_TEXK_UNORM, false},
    [LANG_TEX_RGBA16UNORM] = {"rgba16unorm", "ushort4", 4, 8, LANG_TEXK_UNORM, false},
    [LANG_TEX_R16FLOAT] = {"r16float", "half", 1, 2, LANG_TEXK_FLOAT, false},
    [LANG_TEX_RG16FLOAT] = {"rg16float", "half2", 2, 4, LANG_TEXK_FLOAT, false},
    [LANG_TEX_RGBA16FLOAT] = {"rgba16float", "half4", 4, 8, LANG_TEXK_FLOAT, false},
    [LANG_TEX_R32FLOAT] = {"r32float", "float", 1, 4, LANG_TEXK_FLOAT, false},
    [LANG_TEX_RG32FLOAT] = {"rg32float", "float2", 2, 8, LANG_TEXK_FLOAT, false},
    [LANG_TEX_RGBA32FLOAT] = {"rgba32float", "float4", 4, 16, LANG_TEXK_FLOAT, false},
    [LANG_TEX_R8UINT] = {"r8uint", "uchar", 1, 1, LANG_TEXK_UINT, false},
    [LANG_TEX_RGBA8UINT] = {"rgba8uint", "uchar4", 4, 4, LANG_TEXK_UINT, false},
    [LANG_TEX_R16UINT] = {"r16uint", "ushort", 1, 2, LANG_TEXK_UINT, false},
    [LANG_TEX_RGBA16UINT] = {"rgba16uint", "ushort4", 4, 8, LANG_TEXK_UINT, false},
    [LANG_TEX_R32UINT] = {"r32uint", "uint", 1, 4, LANG_TEXK_UINT, false},
    [LANG_TEX_RG32UINT] = {"rg32uint", "uint2", 2, 8, LANG_TEXK_UINT, false},
    [LANG_TEX_RGBA32UINT] = {"rgba32uint", "uint4", 4, 16, LANG_TEXK_UINT, false},
    [LANG_TEX_R8SINT] = {"r8sint", "char", 1, 1, LANG_TEXK_SINT, false},
    [LANG_TEX_RGBA8SINT] = {"rgba8sint", "char4", 4, 4, LANG_TEXK_SINT, false},
    [LANG_TEX_R16SINT] = {"r16sint", "short", 1, 2, LANG_TEXK_SINT, false},
    [LANG_TEX_RGBA16SINT] = {"rgba16sint", "short4", 4, 8, LANG_TEXK_SINT, false},
    [LANG_TEX_R32SINT] = {"r32sint", "int", 1, 4, LANG_TEXK_SINT, false},
    [LANG_TEX_RG32SINT] = {"rg32sint", "int2", 2, 8, LANG_TEXK_SINT, false},
    [LANG_TEX_RGBA32SINT] = {"rgba32sint", "int4", 4, 16, LANG_TEXK_SINT, false},
};

LangTexFormat lang_tex_format_named(const char *name)
{
    for (int f = 1; f < LANG_TEX_COUNT; f++)
        if (strcmp(formats[f].name, name) == 0)
            return (LangTexFormat)f;
    return LANG_TEX_NONE;
}

const LangTexFormatInfo *lang_tex_format_info(LangTexFormat f)
{
    return f > LANG_TEX_NONE && f < LANG_TEX_COUNT ? &formats[f] : NULL;
}

void lang_tex_format_list(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int f = 1; f < LANG_TEX_COUNT && len < size; f++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", f > 1 ? ", " : "",
                                formats[f].name);
}
