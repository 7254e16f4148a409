/*
 * type.c — the kernel language's types: the scalar singletons, derived types (vectors,
 * arrays, pointers, const copies) built in the context's arena, and the MSL layout rules
 * (spec 2.2/2.3): a vector's size and alignment are its length times the element size, with
 * 3-vectors laid out like 4-vectors; packed_ vectors are tightly packed and aligned to the
 * element. Types are compared structurally, so building the same vector twice is harmless.
 *
 * Then the typing rules the parser applies to expressions: the usual arithmetic conversions
 * (integer promotion, half below float, unsigned winning at equal rank), scalar-to-vector
 * broadcast, which conversions are implicit and which need a cast, where an lvalue lives,
 * and constant folding (program-scope constants, array sizes, case labels, literal casts).
 */
#include <math.h>
#include <string.h>

#include "../util/fp.h"
#include "parse.h"

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
SCALAR_TYPE(bfloat, LTY_BFLOAT, 2, "bfloat")
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

LangType *lang_sgmatrix_of(LangCtx *ctx, LangType *elem)
{
    LangType *ty = new_type(ctx, LTY_SGMATRIX, 8, 8);
    ty->base = elem->kind == LTY_HALF ? lang_ty_half : lang_ty_float;
    ty->name = elem->kind == LTY_HALF ? "simdgroup_half8x8" : "simdgroup_float8x8";
    return ty;
}

LangType *lang_matrix_of(LangCtx *ctx, LangType *elem, int cols, int rows)
{
    LangType *col = lang_vector_of(ctx, elem->kind == LTY_HALF ? lang_ty_half : lang_ty_float,
                                   rows, false);
    LangType *ty = new_type(ctx, LTY_ARRAY, col->size * cols, col->align);
    ty->base = col;
    ty->len = cols;
    ty->matrix = true;
    ty->name = lang_format(ctx, "%s%dx%d", col->base->name, cols, rows);
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
    if (ty->twin)
        return ty->twin;
    LangType *copy = lang_alloc(ctx, sizeof *copy);
    *copy = *ty;
    copy->is_const = is_const;
    if (ty->kind == LTY_STRUCT) { /* `const thread Acc &` inside Acc: see parse_struct.c */
        copy->twin = ty;
        ty->twin = copy;
    }
    return copy;
}

bool lang_is_integer(const LangType *ty)
{
    return ty && ty->kind >= LTY_BOOL && ty->kind <= LTY_ULONG;
}

bool lang_is_float(const LangType *ty)
{
    return ty && (ty->kind == LTY_HALF || ty->kind == LTY_FLOAT || ty->kind == LTY_BFLOAT);
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

/* Tensor types are made afresh where they are spelled (each its own member list), so they
 * compare by what they are: a descriptor's or an operation's type is its whole value. */
static bool same_tensor(const LangType *a, const LangType *b)
{
    const LangTensor *x = a->tensor, *y = b->tensor;
    if (!x || !y || x->kind != y->kind)
        return false;
    if (x->kind == LTN_HANDLE) /* the data pointer: element type, const and address space */
        return lang_same_type(a->members->type, b->members->type) &&
               x->ext[0] == y->ext[0] && x->ext[1] == y->ext[1] && x->unchecked == y->unchecked;
    return (x->kind != LTN_COOP || lang_same_type(x->elem, y->elem)) &&
           x->m == y->m && x->n == y->n && x->k == y->k &&
           x->transpose_left == y->transpose_left && x->transpose_right == y->transpose_right &&
           x->relaxed == y->relaxed && x->accumulate == y->accumulate &&
           x->simdgroups == y->simdgroups && x->split_rows == y->split_rows &&
           x->capacity == y->capacity;
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
        return a->len == b->len && a->matrix == b->matrix && lang_same_type(a->base, b->base);
    case LTY_POINTER:
        return a->space == b->space && a->is_reference == b->is_reference &&
               lang_same_type(a->base, b->base);
    case LTY_ATOMIC: case LTY_SGMATRIX:
        return lang_same_type(a->base, b->base);
    case LTY_STRUCT:
        if (a->tensor || b->tensor)
            return same_tensor(a, b);
        if (a->sampler || b->sampler) /* `sampler` takes any settings; else they must agree */
            return a->sampler && b->sampler &&
                   (a->sampler->generic || b->sampler->generic ||
                    (a->sampler->pixel == b->sampler->pixel &&
                     a->sampler->linear == b->sampler->linear &&
                     a->sampler->address[0] == b->sampler->address[0] &&
                     a->sampler->address[1] == b->sampler->address[1] &&
                     a->sampler->border == b->sampler->border));
        if (a->texture || b->texture) /* the format is the argument's, not the type's: */
            return a->texture && b->texture && a->texture->dims == b->texture->dims &&
                   a->texture->access == b->texture->access &&
                   lang_same_type(a->texture->sample, b->texture->sample) &&
                   /* but two known formats must agree (`t = u` would read u's texels
                    * in t's format) */
                   (a->texture->format == LANG_TEX_NONE || b->texture->format == LANG_TEX_NONE ||
                    a->texture->format == b->texture->format);
        /* const copies share the member list */
        return a->members == b->members && a->size == b->size && a->cls == b->cls;
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
        if (ty->matrix)
            return lang_format(ctx, "%s%s", c, ty->name);
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
    case LTY_ULONG: case LTY_POINTER: case LTY_SGMATRIX: return ISA_TYPE_U64;
    case LTY_HALF: return ISA_TYPE_F16;
    case LTY_FLOAT: return ISA_TYPE_F32;
    case LTY_BFLOAT: return ISA_TYPE_BF16;
    default: return ISA_TYPE_COUNT;
    }
}

/* ---- typing rules of expressions (used by the parser) ---------------------------------------- */

static LangType *unqual(LangParser *p, LangType *ty)
{
    return lang_qualified(p->ctx, ty, false);
}

/* Wraps an integer to its type's width and signedness. */
static uint64_t wrap_int(const LangType *ty, uint64_t v)
{
    switch (ty->kind) {
    case LTY_BOOL: return v != 0;
    case LTY_CHAR: return (uint64_t)(int64_t)(int8_t)v;
    case LTY_UCHAR: return (uint8_t)v;
    case LTY_SHORT: return (uint64_t)(int64_t)(int16_t)v;
    case LTY_USHORT: return (uint16_t)v;
    case LTY_INT: case LTY_ENUM_MEMORY_ORDER: case LTY_ENUM_MEM_FLAGS:
        return (uint64_t)(int64_t)(int32_t)v;
    case LTY_UINT: return (uint32_t)v;
    default: return v;
    }
}

LangNode *lang_p_num(LangParser *p, LangToken *tok, LangType *ty, uint64_t ival, double fval)
{
    LangNode *n = lang_p_new_node(p, LND_NUM, tok);
    n->type = unqual(p, ty);
    n->is_float = lang_is_float(ty);
    if (n->is_float) {
        /* a half (bfloat) constant is a binary16 (bfloat16) value, so folded half and
         * bfloat expressions round per op */
        n->fval = ty->kind == LTY_FLOAT ? (double)(float)fval
                  : ty->kind == LTY_BFLOAT ? (double)util_bf16_to_f32(util_f64_to_bf16(fval))
                  : (double)util_f16_to_f32(util_f64_to_f16(fval));
        n->ival = fval > -9.2e18 && fval < 9.2e18 ? (uint64_t)(int64_t)fval : 0;
    } else {
        n->ival = wrap_int(ty, ival);
        n->fval = lang_is_unsigned(ty) ? (double)n->ival : (double)(int64_t)n->ival;
    }
    return n;
}

/* ---- conversions ---------------------------------------------------------------------------- */

static int int_rank(const LangType *ty)
{
    return ty->size;
}

bool lang_p_unordered_floats(const LangType *a, const LangType *b)
{
    return (a->kind == LTY_HALF && b->kind == LTY_BFLOAT) ||
           (a->kind == LTY_BFLOAT && b->kind == LTY_HALF);
}

const char *lang_p_operands_hint(const LangType *a, const LangType *b)
{
    bool numeric = (lang_is_scalar(a) || a->kind == LTY_VECTOR) &&
                   (lang_is_scalar(b) || b->kind == LTY_VECTOR);
    return numeric && lang_p_unordered_floats(lang_scalar_of((LangType *)a),
                                              lang_scalar_of((LangType *)b))
               ? ": half and bfloat do not convert to each other implicitly; convert one of "
                 "them (float(x), bfloat(x))" : "";
}

/* The usual arithmetic conversions of two scalars (C, with half and bfloat below float);
 * NULL for half with bfloat, whose ranks MSL leaves unordered (clang's rule for _Float16
 * and __bf16): neither converts to the other implicitly. */
static LangType *arith_common(LangType *a, LangType *b)
{
    if (lang_is_float(a) || lang_is_float(b)) {
        if (a->kind == LTY_FLOAT || b->kind == LTY_FLOAT)
            return lang_ty_float;
        if (lang_p_unordered_floats(a, b))
            return NULL;
        return a->kind == LTY_BFLOAT || b->kind == LTY_BFLOAT ? lang_ty_bfloat : lang_ty_half;
    }
    if (int_rank(a) < 4)
        a = lang_ty_int;
    if (int_rank(b) < 4)
        b = lang_ty_int;
    if (a->kind == b->kind)
        return a;
    bool ua = lang_is_unsigned(a), ub = lang_is_unsigned(b);
    if (ua == ub)
        return int_rank(a) >= int_rank(b) ? a : b;
    LangType *u = ua ? a : b, *s = ua ? b : a;
    if (int_rank(u) >= int_rank(s))
        return u;
    return s; /* long with uint: long holds every uint */
}

LangType *lang_p_promote(LangType *ty)
{
    if (lang_is_integer(ty) && ty->size < 4)
        return lang_ty_int;
    return ty;
}

LangNode *lang_p_new_cast(LangParser *p, LangNode *node, LangType *ty, LangToken *tok)
{
    ty = unqual(p, ty);
    if (node->kind == LND_NUM && lang_is_scalar(ty)) {
        if (!node->is_float && (ty->kind == LTY_FLOAT || ty->kind == LTY_BFLOAT)) {
            /* straight to float, as the cvt does: through double, a (u)long above 2^53
             * would round twice */
            IsaType to = ty->kind == LTY_FLOAT ? ISA_TYPE_F32 : ISA_TYPE_BF16;
            uint64_t bits = util_convert(node->ival, lang_is_unsigned(node->type) ? ISA_TYPE_U64
                                                     : ISA_TYPE_S64, to, ISA_ROUND_DEFAULT);
            return lang_p_num(p, tok, ty, 0, to == ISA_TYPE_F32
                                                 ? util_bits_f32((uint32_t)bits)
                                                 : util_bf16_to_f32((uint16_t)bits));
        }
        if (lang_is_float(ty))
            return lang_p_num(p, tok, ty, 0, node->fval);
        if (node->is_float) {
            double f = node->fval;
            if (ty->kind == LTY_BOOL)
                return lang_p_num(p, tok, ty, f != 0, 0);
            /* out-of-range values saturate and NaN gives 0, as the cvt instruction does */
            int bits = 8 * ty->size;
            bool un = lang_is_unsigned(ty);
            double top = ldexp(1, un ? bits : bits - 1);
            uint64_t v;
            if (isnan(f) || (un && f <= -1))
                v = 0;
            else if (f >= top)
                v = UINT64_MAX >> (un ? 64 - bits : 65 - bits);
            else if (!un && f <= -top)
                v = (uint64_t)1 << (bits - 1);
            else
                v = f < 0 ? (uint64_t)(int64_t)f : (uint64_t)f;
            return lang_p_num(p, tok, ty, v, 0);
        }
        return lang_p_num(p, tok, ty, ty->kind == LTY_BOOL ? node->ival != 0 : node->ival, 0);
    }
    LangNode *c = lang_p_new_node(p, LND_CAST, tok);
    c->lhs = node;
    c->type = ty;
    return c;
}

LangNode *lang_p_broadcast(LangParser *p, LangNode *scalar, LangType *vec, LangToken *tok)
{
    LangNode *c = lang_p_new_node(p, LND_CONSTRUCT, tok);
    c->type = unqual(p, vec);
    c->args = lang_p_new_cast(p, scalar, vec->base, tok);
    if (lang_same_type(scalar->type, vec->base))
        c->args = scalar;
    c->num_args = 1;
    return c;
}

LangNode *lang_p_nullptr_binary(LangParser *p, LangNodeKind kind, LangNode *lhs, LangNode *rhs,
                                LangToken *tok)
{
    LangTypeKind lk = lhs->type->kind, rk = rhs->type->kind;
    if ((!lhs->is_nullptr && !rhs->is_nullptr) || lk == LTY_POINTER || rk == LTY_POINTER ||
        lk == LTY_ARRAY || rk == LTY_ARRAY) /* p == nullptr: a pointer comparison */
        return NULL;
    if (lhs->is_nullptr && rhs->is_nullptr && (kind == LND_EQ || kind == LND_NE))
        return lang_p_num(p, tok, lang_ty_bool, kind == LND_EQ, 0);
    lang_error_soft(p->ctx, tok, "nullptr is a null pointer, not a number: arithmetic on it is "
                    "not allowed (compare a pointer with it, `p == nullptr`, or convert it to "
                    "a device or constant pointer)");
    return lang_p_num(p, tok, lang_ty_int, 0, 0);
}

/* Implicit (explicit = false) or explicit conversion of node to ty; errors at tok. */
LangNode *lang_p_cast(LangParser *p, LangNode *node, LangType *ty, LangToken *tok,
                         bool explicit)
{
    LangType *from = node->type;
    ty = unqual(p, ty);
    if (node->is_nullptr && ty->kind != LTY_POINTER) { /* nullptr's own type is no integer */
        lang_error_soft(p->ctx, tok, "cannot convert nullptr to '%s' (it is a null pointer, not "
                        "a number)", lang_type_name(p->ctx, ty));
        return lang_p_num(p, tok, lang_is_scalar(ty) ? ty : lang_ty_int, 0, 0);
    }
    if (lang_same_type(from, ty)) {
        if (from->kind == LTY_POINTER && from->base->is_const && !ty->base->is_const &&
            !explicit)
            lang_error_soft(p->ctx, tok, "cannot convert '%s' to '%s': it discards const",
                            lang_type_name(p->ctx, from), lang_type_name(p->ctx, ty));
        return node;
    }
    if (from->vote || ty->vote)
        return lang_p_vote_cast(p, node, ty, tok, explicit);
    if (from->kind == LTY_ATOMIC) {
        lang_error_soft(p->ctx, tok, "an atomic cannot be used as a value; use "
                        "atomic_load_explicit");
        return lang_p_num(p, tok, ty->kind == LTY_ATOMIC ? ty->base : lang_ty_int, 0, 0);
    }
    if (node->is_nullptr && ty->kind == LTY_POINTER) {
        if (ty->space != LAS_DEVICE && ty->space != LAS_CONSTANT)
            lang_error_soft(p->ctx, tok, "nullptr as a %s pointer is not supported (device "
                            "and constant pointers can be null)", space_name(ty->space));
        return lang_p_num(p, tok, ty, 0, 0);
    }
    if (lang_is_scalar(from) && lang_is_scalar(ty))
        return lang_p_new_cast(p, node, ty, tok);
    if (lang_is_scalar(from) && ty->kind == LTY_VECTOR)
        return lang_p_broadcast(p, node, ty, tok);
    if (from->kind == LTY_VECTOR && ty->kind == LTY_VECTOR && from->len == ty->len &&
        (explicit || lang_same_type(from->base, ty->base)))
        return lang_p_new_cast(p, node, ty, tok);
    if (from->kind == LTY_POINTER && ty->kind == LTY_POINTER && from->space == ty->space &&
        (explicit || lang_same_type(from->base, ty->base))) {
        if (!explicit && from->base->is_const && !ty->base->is_const)
            lang_error_soft(p->ctx, tok, "cannot convert '%s' to '%s': it discards const",
                            lang_type_name(p->ctx, from), lang_type_name(p->ctx, ty));
        return lang_p_new_cast(p, node, ty, tok);
    }
    if (from->kind == LTY_ARRAY && !from->matrix && ty->kind == LTY_POINTER &&
        (explicit || lang_same_type(from->base, ty->base)) &&
        lang_p_lvalue_space(node) == ty->space && lang_p_is_lvalue(node)) {
        /* the array decays to a pointer to its first element; an explicit cast may then
         * reinterpret it, as (threadgroup uchar *)tile does */
        LangNode *a = lang_p_new_node(p, LND_ADDR, tok);
        a->lhs = node;
        a->type = lang_same_type(from->base, ty->base) ? ty
                                                       : lang_pointer_to(p->ctx, from->base,
                                                                         ty->space);
        if (node->kind == LND_VAR)
            node->var->address_taken = true;
        return a->type == ty ? a : lang_p_new_cast(p, a, ty, tok);
    }
    if (from->texture && ty->texture && lang_tex_format_info(from->texture->format) &&
        lang_tex_format_info(ty->texture->format))
        lang_error_soft(p->ctx, tok, "cannot use a %s texture as a %s one ('%s'): the two "
                        "arguments' pixel formats (the manifest's format:) differ",
                        lang_tex_format_info(from->texture->format)->name,
                        lang_tex_format_info(ty->texture->format)->name, lang_type_name(p->ctx, ty));
    else
        lang_error_soft(p->ctx, tok, "cannot convert '%s' to '%s'", lang_type_name(p->ctx, from),
                        lang_type_name(p->ctx, ty));
    node = lang_p_new_node(p, LND_CAST, tok);
    node->type = ty;
    node->lhs = lang_p_num(p, tok, lang_ty_int, 0, 0);
    return node;
}

LangNode *lang_p_convert(LangParser *p, LangNode *node, LangType *ty, LangToken *tok)
{
    return lang_p_cast(p, node, ty, tok, false);
}

LangNode *lang_p_to_bool(LangParser *p, LangNode *node)
{
    LangType *t = node->type;
    if (t->kind == LTY_POINTER && (t->space == LAS_DEVICE || t->space == LAS_CONSTANT)) {
        /* `if (mask)`, `pmask ? pmask[i] : 0`: the pointer is not null */
        LangNode *ne = lang_p_new_node(p, LND_NE, node->tok);
        ne->lhs = node;
        ne->rhs = lang_p_num(p, node->tok, unqual(p, t), 0, 0);
        ne->type = lang_ty_bool;
        return ne;
    }
    if (t->kind == LTY_POINTER) {
        lang_error_soft(p->ctx, node->tok, "a %s pointer used as a condition is not supported "
                        "(device and constant pointers can be tested for null)",
                        space_name(t->space));
        return lang_p_num(p, node->tok, lang_ty_bool, 0, 0);
    }
    if (!lang_is_scalar(node->type) && !node->type->vote) {
        lang_error_soft(p->ctx, node->tok, "'%s' used where a scalar condition is required",
                        lang_type_name(p->ctx, node->type));
        return lang_p_num(p, node->tok, lang_ty_bool, 0, 0);
    }
    return lang_p_cast(p, node, lang_ty_bool, node->tok, false);
}

/* The common type of two operands of arithmetic (scalars or vectors), or NULL. */
LangType *lang_p_common_type(LangParser *p, LangType *a, LangType *b)
{
    if (lang_p_unordered_floats(lang_scalar_of(a), lang_scalar_of(b)))
        return NULL;
    if (lang_is_scalar(a) && lang_is_scalar(b))
        return arith_common(a, b);
    if (a->kind == LTY_VECTOR && lang_is_scalar(b))
        return lang_vector_of(p->ctx, a->base, a->len, false);
    if (b->kind == LTY_VECTOR && lang_is_scalar(a))
        return lang_vector_of(p->ctx, b->base, b->len, false);
    if (a->kind == LTY_VECTOR && b->kind == LTY_VECTOR && a->len == b->len &&
        lang_same_type(a->base, b->base))
        return lang_vector_of(p->ctx, a->base, a->len, false);
    return NULL;
}

/* ---- lvalues ----------------------------------------------------------------------------- */

bool lang_p_is_lvalue(const LangNode *node)
{
    switch (node->kind) {
    case LND_VAR:
    case LND_DEREF:
        return true;
    case LND_MEMBER: case LND_ELEMENTS:
        return lang_p_is_lvalue(node->lhs);
    case LND_SWIZZLE: {
        for (int i = 0; i < node->swizzle_len; i++)
            for (int j = 0; j < i; j++)
                if (node->swizzle[i] == node->swizzle[j])
                    return false;
        return lang_p_is_lvalue(node->lhs);
    }
    case LND_INDEX:
        return node->lhs->type->kind == LTY_POINTER || lang_p_is_lvalue(node->lhs);
    default:
        return false;
    }
}

/* Where an lvalue lives. */
LangAddrSpace lang_p_lvalue_space(const LangNode *node)
{
    switch (node->kind) {
    case LND_VAR:
        return node->var->kind == LVAR_THREADGROUP ? LAS_THREADGROUP
               : node->var->kind == LVAR_CONSTANT || node->var->kind == LVAR_FUNCTION_CONSTANT
                   ? LAS_CONSTANT : LAS_THREAD;
    case LND_DEREF:
        return node->lhs->type->space;
    case LND_INDEX:
        if (node->lhs->type->kind == LTY_POINTER)
            return node->lhs->type->space;
        return lang_p_lvalue_space(node->lhs);
    case LND_MEMBER: case LND_SWIZZLE: case LND_ELEMENTS:
        return lang_p_lvalue_space(node->lhs);
    default:
        return LAS_THREAD;
    }
}

LangVar *lang_p_root_var(const LangNode *node)
{
    while (node->kind == LND_MEMBER || node->kind == LND_SWIZZLE || node->kind == LND_ELEMENTS ||
           (node->kind == LND_INDEX && node->lhs->type->kind != LTY_POINTER))
        node = node->lhs;
    return node->kind == LND_VAR ? node->var : NULL;
}

/* ---- constant folding ---------------------------------------------------------------------- */

static LangNode *fold_binary(LangParser *p, LangNode *node, LangNode *l, LangNode *r)
{
    LangType *ty = node->type;
    LangType *opty = l->type;
    bool f = lang_is_float(opty), u = lang_is_unsigned(opty);
    double a = l->fval, b = r->fval;
    uint64_t x = l->ival, y = r->ival;
    int64_t sx = (int64_t)x, sy = (int64_t)y;
    double fr = 0;
    uint64_t ir = 0;
    switch (node->kind) {
    case LND_ADD: fr = a + b; ir = x + y; break;
    case LND_SUB: fr = a - b; ir = x - y; break;
    case LND_MUL: fr = a * b; ir = x * y; break;
    case LND_DIV:
    case LND_MOD:
        if (!f && (y == 0 || (!u && sy == -1 && sx == INT64_MIN)))
            return NULL; /* not a constant: let the program fault at run time */
        if (node->kind == LND_DIV && f)
            fr = a / b;
        else if (node->kind == LND_DIV)
            ir = u ? x / y : (uint64_t)(sx / sy);
        else if (f)
            return NULL;
        else
            ir = u ? x % y : (uint64_t)(sx % sy);
        break;
    case LND_BITAND: ir = x & y; break;
    case LND_BITOR: ir = x | y; break;
    case LND_BITXOR: ir = x ^ y; break;
    /* the amount is taken modulo the promoted width (MSL 3.1), as shl/lsr/asr do */
    case LND_SHL: ir = x << (y & (uint64_t)(opty->size > 4 ? 63 : 31)); break;
    case LND_SHR:
        y &= (uint64_t)(opty->size > 4 ? 63 : 31);
        ir = u ? (opty->size > 4 ? x : (uint32_t)x) >> y : (uint64_t)(sx >> y);
        break;
    case LND_EQ: ir = f ? a == b : x == y; break;
    case LND_NE: ir = f ? a != b : x != y; break;
    case LND_LT: ir = f ? a < b : u ? x < y : sx < sy; break;
    case LND_LE: ir = f ? a <= b : u ? x <= y : sx <= sy; break;
    case LND_GT: ir = f ? a > b : u ? x > y : sx > sy; break;
    case LND_GE: ir = f ? a >= b : u ? x >= y : sx >= sy; break;
    case LND_LOGAND: ir = x && y; break;
    case LND_LOGOR: ir = x || y; break;
    default: return NULL;
    }
    if (ty->kind == LTY_BOOL || !f)
        return lang_p_num(p, node->tok, ty, ir, (double)ir);
    return lang_p_num(p, node->tok, ty, 0, fr);
}

LangNode *lang_p_fold(LangParser *p, LangNode *node)
{
    if (!node)
        return NULL;
    switch (node->kind) {
    case LND_NUM:
        return node;
    case LND_VAR: {
        LangVar *v = node->var;
        if (v->kind == LVAR_FUNCTION_CONSTANT) {
            /* a value given in the options is a constant: `constant int n =
             * is_function_constant_defined(k) ? k : 4;` folds either way */
            const LangOptions *o = p->ctx->opts;
            for (uint32_t i = 0; o && i < o->num_constants; i++) {
                if (strcmp(o->constants[i].name, v->name) != 0)
                    continue;
                double d = o->constants[i].number;
                LangType *t = lang_qualified(p->ctx, v->type, false);
                if (lang_is_float(t))
                    return lang_p_num(p, node->tok, t, 0, d);
                uint64_t iv = t->kind == LTY_BOOL ? d != 0 : lang_constant_bits(&o->constants[i]);
                return lang_p_num(p, node->tok, t, iv, (double)iv);
            }
            return NULL;
        }
        if (v->init && v->type->is_const && v->kind != LVAR_PARAM)
            return lang_p_fold(p, v->init);
        return NULL;
    }
    case LND_CAST: {
        LangNode *l = lang_p_fold(p, node->lhs);
        return l && l->kind == LND_NUM && lang_is_scalar(node->type)
                   ? lang_p_new_cast(p, l, node->type, node->tok) : NULL;
    }
    case LND_NEG: case LND_NOT: case LND_BITNOT: {
        LangNode *l = lang_p_fold(p, node->lhs);
        if (!l || l->kind != LND_NUM)
            return NULL;
        if (node->kind == LND_NOT)
            return lang_p_num(p, node->tok, lang_ty_bool, !l->ival, 0);
        if (node->kind == LND_BITNOT)
            return lang_p_num(p, node->tok, node->type, ~l->ival, 0);
        return lang_p_num(p, node->tok, node->type, (uint64_t)0 - l->ival, -l->fval);
    }
    case LND_COND: {
        LangNode *c = lang_p_fold(p, node->cond);
        if (!c || c->kind != LND_NUM)
            return NULL;
        return lang_p_fold(p, c->ival ? node->then : node->els);
    }
    case LND_CONSTRUCT: {
        LangNode *c = lang_p_new_node(p, LND_CONSTRUCT, node->tok);
        *c = *node;
        LangNode head = {0}, *cur = &head;
        for (LangNode *a = node->args; a; a = a->next) {
            LangNode *f = lang_p_fold(p, a);
            if (!f)
                return NULL;
            LangNode *copy = lang_p_new_node(p, f->kind, f->tok);
            *copy = *f;
            copy->next = NULL;
            cur = cur->next = copy;
        }
        c->args = head.next;
        return c;
    }
    default:
        if (node->kind == LND_LOGAND || node->kind == LND_LOGOR) {
            /* short-circuit, as C: `!is_function_constant_defined(k) || k` is a constant
             * when k is not given */
            LangNode *l = lang_p_fold(p, node->lhs);
            bool lv = l && l->kind == LND_NUM && (l->is_float ? l->fval != 0 : l->ival != 0);
            if (l && l->kind == LND_NUM && lv == (node->kind == LND_LOGOR))
                return lang_p_num(p, node->tok, lang_ty_bool, lv, 0);
        }
        if (node->kind >= LND_ADD && node->kind <= LND_LOGOR) {
            LangNode *l = lang_p_fold(p, node->lhs), *r = lang_p_fold(p, node->rhs);
            if (!l || !r || l->kind != LND_NUM || r->kind != LND_NUM)
                return NULL;
            return fold_binary(p, node, l, r);
        }
        return NULL;
    }
}

bool lang_p_eval(LangParser *p, LangNode *node, int64_t *val)
{
    LangNode *f = lang_p_fold(p, node);
    if (!f || f->kind != LND_NUM || !lang_is_integer(f->type))
        return false;
    *val = (int64_t)f->ival;
    return true;
}

