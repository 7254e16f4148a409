/*
 * type.c — the kernel language's types: the scalar singletons, derived types (vectors,
 * arrays, pointers, const copies) built in the context's arena, and the MSL layout rules
 * (spec 2.2/2.3): a vector's size and alignment are its length times the element size, with
 * 3-vectors laid out like 4-vectors; packed_ vectors are tightly packed and aligned to the
 * element. Types are compared structurally, so building the same vector twice is harmless.
 */
#include <string.h>

#include "lang_internal.h"

#define SCALAR_TYPE(var, kind_, size_, spelled) \
    static LangType var##_storage = {.kind = kind_, .size = size_, .align = size_ ? size_ : 1, \
                                     .name = spelled}; \
    LangType *lang_ty_##var = &var##_storage;

SCALAR_TYPE(void, LTY_VOID, 0, "void")
SCALAR_TYPE(bool, LTY_BOOL, 1, "bool")
SCALAR_TYPE(char, LTY_CHAR, 1, "char")
SCALAR_TYPE(uchar, LTY_UCHAR, 1, "uchar")
SCALAR_TYPE(short, LTY_SHORT, 2, "short")
SCALAR_TYPE(ushort, LTY_USHORT, 2, "ushort")
SCALAR_TYPE(int, LTY_INT, 4, "int")
SCALAR_TYPE(uint, LTY_UINT, 4, "uint")
SCALAR_TYPE(long, LTY_LONG, 8, "long")
SCALAR_TYPE(ulong, LTY_ULONG, 8, "ulong")
SCALAR_TYPE(half, LTY_HALF, 2, "half")
SCALAR_TYPE(float, LTY_FLOAT, 4, "float")
SCALAR_TYPE(memory_order, LTY_ENUM_MEMORY_ORDER, 4, "memory_order")
SCALAR_TYPE(mem_flags, LTY_ENUM_MEM_FLAGS, 4, "mem_flags")

static LangType *new_type(LangCtx *ctx, LangTypeKind kind, int size, int align)
{
    LangType *ty = lang_alloc(ctx, sizeof *ty);
    ty->kind = kind;
    ty->size = size;
    ty->align = align;
    return ty;
}

LangType *lang_vector_of(LangCtx *ctx, LangType *scalar, int len, bool packed)
{
    int elem = scalar->size;
    int slots = len == 3 && !packed ? 4 : len;
    LangType *ty = new_type(ctx, LTY_VECTOR, elem * slots, packed ? elem : elem * slots);
    ty->base = scalar->is_const ? lang_qualified(ctx, scalar, false) : scalar;
    ty->len = len;
    ty->packed = packed;
    ty->name = lang_format(ctx, "%s%s%d", packed ? "packed_" : "", scalar->name, len);
    return ty;
}

LangType *lang_array_of(LangCtx *ctx, LangType *elem, int len)
{
    LangType *ty = new_type(ctx, LTY_ARRAY, elem->size * len, elem->align);
    ty->base = elem;
    ty->len = len;
    ty->name = lang_format(ctx, "%s[%d]", elem->name ? elem->name : "?", len);
    return ty;
}

LangType *lang_pointer_to(LangCtx *ctx, LangType *pointee, LangAddrSpace space)
{
    LangType *ty = new_type(ctx, LTY_POINTER, 8, 8);
    ty->base = pointee;
    ty->space = space;
    return ty;
}

LangType *lang_qualified(LangCtx *ctx, LangType *ty, bool is_const)
{
    if (ty->is_const == is_const)
        return ty;
    LangType *copy = lang_alloc(ctx, sizeof *copy);
    *copy = *ty;
    copy->is_const = is_const;
    return copy;
}

bool lang_is_integer(const LangType *ty)
{
    return ty && ty->kind >= LTY_BOOL && ty->kind <= LTY_ULONG;
}

bool lang_is_float(const LangType *ty)
{
    return ty && (ty->kind == LTY_HALF || ty->kind == LTY_FLOAT);
}

bool lang_is_scalar(const LangType *ty)
{
    return lang_is_integer(ty) || lang_is_float(ty);
}

bool lang_is_unsigned(const LangType *ty)
{
    switch (ty->kind) {
    case LTY_BOOL: case LTY_UCHAR: case LTY_USHORT: case LTY_UINT: case LTY_ULONG:
        return true;
    default:
        return false;
    }
}

LangType *lang_scalar_of(LangType *ty)
{
    return ty->kind == LTY_VECTOR ? ty->base : ty;
}

int lang_components(const LangType *ty)
{
    return ty->kind == LTY_VECTOR ? ty->len : 1;
}

bool lang_same_type(const LangType *a, const LangType *b)
{
    if (a == b)
        return true;
    if (!a || !b || a->kind != b->kind)
        return false;
    switch (a->kind) {
    case LTY_VECTOR:
        return a->len == b->len && a->packed == b->packed && lang_same_type(a->base, b->base);
    case LTY_ARRAY:
        return a->len == b->len && lang_same_type(a->base, b->base);
    case LTY_POINTER:
        return a->space == b->space && a->is_reference == b->is_reference &&
               lang_same_type(a->base, b->base);
    case LTY_ATOMIC:
        return lang_same_type(a->base, b->base);
    case LTY_STRUCT:
        /* const copies share the member list */
        return a->members == b->members && a->size == b->size;
    case LTY_FUNC:
        if (!lang_same_type(a->ret, b->ret) || a->num_params != b->num_params)
            return false;
        for (int i = 0; i < a->num_params; i++)
            if (!lang_same_type(a->params[i], b->params[i]))
                return false;
        return true;
    default:
        return true; /* scalars and enums: the kind says it all */
    }
}

static const char *space_name(LangAddrSpace space)
{
    switch (space) {
    case LAS_DEVICE: return "device";
    case LAS_CONSTANT: return "constant";
    case LAS_THREADGROUP: return "threadgroup";
    default: return "thread";
    }
}

const char *lang_type_name(LangCtx *ctx, const LangType *ty)
{
    if (!ty)
        return "?";
    const char *c = ty->is_const ? "const " : "";
    switch (ty->kind) {
    case LTY_POINTER:
        return lang_format(ctx, "%s %s%s", space_name(ty->space), lang_type_name(ctx, ty->base),
                           ty->is_reference ? "&" : "*");
    case LTY_ARRAY:
        return lang_format(ctx, "%s%s[%d]", c, lang_type_name(ctx, lang_qualified(ctx, ty->base,
                                                                              false)), ty->len);
    case LTY_ATOMIC:
        return lang_format(ctx, "%satomic_%s", c, ty->base->name);
    case LTY_FUNC:
        return lang_format(ctx, "%s(...)", lang_type_name(ctx, ty->ret));
    default:
        return lang_format(ctx, "%s%s", c, ty->name ? ty->name : "?");
    }
}

IsaType lang_isa_type(const LangType *scalar)
{
    switch (scalar->kind) {
    case LTY_BOOL: case LTY_UCHAR: return ISA_TYPE_U8;
    case LTY_CHAR: return ISA_TYPE_S8;
    case LTY_SHORT: return ISA_TYPE_S16;
    case LTY_USHORT: return ISA_TYPE_U16;
    case LTY_INT: case LTY_ENUM_MEMORY_ORDER: case LTY_ENUM_MEM_FLAGS: return ISA_TYPE_S32;
    case LTY_UINT: return ISA_TYPE_U32;
    case LTY_LONG: return ISA_TYPE_S64;
    case LTY_ULONG: case LTY_POINTER: return ISA_TYPE_U64;
    case LTY_HALF: return ISA_TYPE_F16;
    case LTY_FLOAT: return ISA_TYPE_F32;
    default: return ISA_TYPE_COUNT;
    }
}
