/*
 * parse_decl.c — declarations: type names (scalars, vectors, packed_, vec<T,N>, atomics,
 * structs with C layout, enums), declarators, attributes, kernel and ordinary functions with
 * their parameter attributes (Table 11 types checked), and program-scope constants and
 * function constants. Metal types lockstep does not implement (textures, matrices, tensors)
 * are refused by name with a "not supported yet" message rather than "unknown type".
 */
#include <ctype.h>
#include <string.h>

#include "parse.h"

/* ---- type names ---------------------------------------------------------------------------- */

static const struct {
    const char *name;
    LangType **type;
} scalar_names[] = {
    {"void", &lang_ty_void}, {"bool", &lang_ty_bool}, {"char", &lang_ty_char},
    {"uchar", &lang_ty_uchar}, {"short", &lang_ty_short}, {"ushort", &lang_ty_ushort},
    {"int", &lang_ty_int}, {"uint", &lang_ty_uint}, {"long", &lang_ty_long},
    {"ulong", &lang_ty_ulong}, {"half", &lang_ty_half}, {"float", &lang_ty_float},
    {"bfloat", &lang_ty_bfloat},
    {"int8_t", &lang_ty_char}, {"uint8_t", &lang_ty_uchar}, {"int16_t", &lang_ty_short},
    {"uint16_t", &lang_ty_ushort}, {"int32_t", &lang_ty_int}, {"uint32_t", &lang_ty_uint},
    {"int64_t", &lang_ty_long}, {"uint64_t", &lang_ty_ulong}, {"float16_t", &lang_ty_half},
    {"float32_t", &lang_ty_float}, {"size_t", &lang_ty_ulong}, {"ptrdiff_t", &lang_ty_long},
    {"memory_order", &lang_ty_memory_order}, {"mem_flags", &lang_ty_mem_flags},
};

static LangType *scalar_named(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof scalar_names / sizeof scalar_names[0]; i++)
        if (strlen(scalar_names[i].name) == n && memcmp(scalar_names[i].name, s, n) == 0)
            return *scalar_names[i].type;
    return NULL;
}

static LangType *atomic_of(LangParser *p, LangType *value, LangToken *tok)
{
    if (value->kind != LTY_INT && value->kind != LTY_UINT && value->kind != LTY_FLOAT)
        lang_error_at(p->ctx, tok, "atomic<%s> is not supported (atomic_int, atomic_uint and "
                      "atomic_float are)", lang_type_name(p->ctx, value));
    LangType *ty = lang_alloc(p->ctx, sizeof *ty);
    ty->kind = LTY_ATOMIC;
    ty->size = ty->align = 4;
    ty->base = value;
    ty->name = lang_format(p->ctx, "atomic_%s", value->name);
    return ty;
}

/* Builtin type spelled by one token: float, half4, packed_float3, atomic_uint, uint32_t. */
static LangType *builtin_type(LangParser *p, const LangToken *tok)
{
    if (!lang_p_is_name(tok))
        return NULL;
    const char *s = tok->loc;
    size_t n = (size_t)tok->len;
    LangType *ty = scalar_named(s, n);
    if (ty)
        return ty;
    if ((ty = lang_p_matrix_named(p, tok)) != NULL || (ty = lang_p_matrix_type_named(p, tok)))
        return ty;
    if ((ty = lang_p_vote_named(p, tok)) != NULL)
        return ty;
    if (n > 7 && memcmp(s, "atomic_", 7) == 0) {
        ty = scalar_named(s + 7, n - 7);
        if (ty && (ty->kind == LTY_INT || ty->kind == LTY_UINT || ty->kind == LTY_FLOAT))
            return atomic_of(p, ty, (LangToken *)tok);
        return NULL;
    }
    bool packed = n > 7 && memcmp(s, "packed_", 7) == 0;
    if (packed)
        s += 7, n -= 7;
    if (n < 2 || s[n - 1] < '2' || s[n - 1] > '4')
        return NULL;
    ty = scalar_named(s, n - 1);
    if (!ty || ty->kind == LTY_VOID || ty->kind >= LTY_ENUM_MEMORY_ORDER || ty == lang_ty_void ||
        (n - 1 != strlen(ty->name)))
        return NULL; /* "int322" or aliases like "uint32_t4" are not vector names */
    return lang_vector_of(p->ctx, ty, s[n - 1] - '0', packed);
}

/* Names of MSL types lockstep does not implement: refused with a clear message. */
static const char *unsupported_type(const LangToken *tok)
{
    const char *s = tok->loc;
    size_t n = (size_t)tok->len;
#define STARTS(lit) (n >= sizeof lit - 1 && memcmp(s, lit, sizeof lit - 1) == 0)
#define IS(lit) (n == sizeof lit - 1 && memcmp(s, lit, n) == 0)
    /* texture1d, texture2d_array, texturecube, texture_buffer; depth2d, depthcube */
    if ((STARTS("texture") && n > 7 && (isdigit((unsigned char)s[7]) || STARTS("texturecube") ||
                                        STARTS("texture_buffer"))))
        return IS("texture1d") || IS("texture2d")
                   ? "expected '<' and the texture's type: texture2d<float, access::read>"
                   : "this texture type is not supported yet (texture1d and texture2d are)";
    if (STARTS("depth") && n > 5 && (isdigit((unsigned char)s[5]) || STARTS("depthcube")))
        return "depth textures are not supported yet";
    if (STARTS("simdgroup_bfloat"))
        return "bfloat simdgroup matrices are not supported yet (float and half are)";
    if (STARTS("simdgroup_") && n > 3 && s[n - 2] == 'x' && isdigit((unsigned char)s[n - 1]))
        return "simdgroup matrices are 8x8 of float or half: simdgroup_float8x8, "
               "simdgroup_half8x8";
    if (IS("tensor_inline") || IS("tensor_handle") || IS("tensor_offset"))
        return "write a tensor type as tensor<device T, dextents<int, 2>> (or take it with "
               "auto)";
    if (IS("cooperative_tensor"))
        return "write a cooperative tensor's type with auto (`auto ct = "
               "op.get_destination_cooperative_tensor<...>();`)";
    if (IS("double"))
        return "double is not supported by Metal";
    if (IS("array") || IS("array_ref"))
        return "array<T, N> and argument buffers are not supported yet";
    if (IS("imageblock"))
        return "imageblocks are not supported yet";
    if (IS("auto"))
        return "'auto' is supported for a local variable with an initializer (`auto n = 4u;`); "
               "write the type here";
#undef STARTS
#undef IS
    /* matrices of other element types: int4x4, bfloat2x2 */
    if (n >= 4 && s[n - 2] == 'x' && s[n - 1] >= '2' && s[n - 1] <= '4' && s[n - 3] >= '2' &&
        s[n - 3] <= '4' && scalar_named(s, n - 3))
        return "matrix types have float or half elements (float4x4, half3x3)";
    return NULL;
}

static bool is_space_kw(const LangToken *tok)
{
    return lang_p_is(tok, "device") || lang_p_is(tok, "constant") ||
           lang_p_is(tok, "threadgroup") || lang_p_is(tok, "thread");
}

bool lang_p_is_typename(LangParser *p, LangToken *tok)
{
    static const char *const words[] = {"const", "volatile", "device", "constant", "threadgroup",
                                        "thread", "struct", "class", "enum", "unsigned", "signed",
                                        "static", "constexpr", "vec", "atomic",
                                        "simdgroup_matrix", "decltype"};
    if (!lang_p_is_name(tok))
        return false;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (lang_p_is(tok, words[i]))
            return true;
    if ((lang_p_is(tok, "metal") || lang_p_is(tok, "mpp") || lang_p_is(tok, "tensor_ops")) &&
        lang_p_is(tok->next, "::"))
        return lang_p_is_typename(p, tok->next->next);
    if (lang_p_is_trait_type(p, tok)) /* conditional_t<...>, parse_traits.c */
        return true;
    LangSym *sym = lang_p_lookup(p, tok);
    if (sym) /* a variable may be called tensor: 'tensor < 5' is then a compare */
        return (sym->type != NULL && !sym->is_enum_const) || (sym->tmpl && sym->tmpl->is_struct);
    if ((lang_p_is(tok, "tensor") || lang_p_is(tok, "matmul2d")) && lang_p_is(tok->next, "<"))
        return true;
    if (lang_p_is_texture_name(tok) || lang_p_is(tok, "sampler"))
        return true;
    return builtin_type(p, tok) || unsupported_type(tok);
}

// enum-decl = "enum" ("class" | "struct")? ident? (":" typename)? "{" enumerator-list "}"
static LangType *enum_decl(LangParser *p)
{
    if (!lang_p_consume(p, "class"))
        lang_p_consume(p, "struct");
    LangToken *name = NULL;
    if (p->tok->kind == LTK_IDENT) {
        name = p->tok;
        lang_p_next(p);
    }
    LangType *ty = lang_alloc(p->ctx, sizeof *ty);
    *ty = *lang_ty_int;
    ty->name = name ? lang_p_name(p, name) : "int";
    if (lang_p_consume(p, ":")) {
        LangType *under = lang_p_typename(p);
        if (!lang_is_integer(under))
            lang_error_at(p->ctx, p->prev, "enum base type must be an integer type");
    }
    if (!lang_p_is(p->tok, "{")) {
        if (!name)
            lang_error_at(p->ctx, p->tok, "expected '{'");
        LangSym *sym = lang_p_lookup(p, name);
        if (!sym || !sym->type)
            lang_error_at(p->ctx, name, "unknown enum '%.*s'", name->len, name->loc);
        return sym->type;
    }
    if (name)
        lang_p_push_sym(p, name)->type = ty;
    lang_p_next(p);
    int64_t value = 0;
    while (!lang_p_consume(p, "}")) {
        LangToken *en = p->tok;
        if (en->kind != LTK_IDENT)
            lang_error_at(p->ctx, en, "expected an enumerator name");
        lang_p_next(p);
        if (lang_p_consume(p, "=")) {
            LangToken *at = p->tok;
            if (!lang_p_eval(p, lang_p_cond(p), &value))
                lang_error_at(p->ctx, at, "enumerator value is not an integer constant");
        }
        LangSym *sym = lang_p_push_sym(p, en);
        sym->is_enum_const = true;
        sym->enum_value = value++;
        if (!lang_p_consume(p, ",")) {
            lang_p_skip(p, "}");
            break;
        }
    }
    return ty;
}

// type-arg = "<" typename      (vec<T, N> and atomic<T> parse the rest themselves)
static LangType *type_arg(LangParser *p)
{
    lang_p_skip(p, "<");
    return lang_p_typename(p);
}

// declspec = ("const" | "volatile" | address-space | "static" | "inline" | "constexpr")*
//            (scalar | vector | "vec" "<" T "," N ">" | "atomic" "<" T ">" | struct-decl
//             | enum-decl | typedef-name | "unsigned" int-type?)
//            ("const" | address-space)*
LangType *lang_p_declspec(LangParser *p, LangAddrSpace *space, bool *has_space)
{
    LangType *ty = NULL;
    bool is_const = false;
    for (;;) {
        LangToken *tok = p->tok;
        if (lang_p_consume(p, "const") || lang_p_consume(p, "constexpr")) {
            is_const = true;
            continue;
        }
        if (lang_p_consume(p, "volatile") || lang_p_consume(p, "static") ||
            lang_p_consume(p, "inline") || lang_p_consume(p, "__restrict") ||
            lang_p_consume(p, "restrict"))
            continue;
        if (is_space_kw(tok)) {
            if (*has_space)
                lang_error_at(p->ctx, tok, "more than one address space");
            *has_space = true;
            *space = lang_p_is(tok, "device") ? LAS_DEVICE
                     : lang_p_is(tok, "constant") ? LAS_CONSTANT
                     : lang_p_is(tok, "threadgroup") ? LAS_THREADGROUP : LAS_THREAD;
            lang_p_next(p);
            continue;
        }
        if (ty)
            break;
        if (lang_p_skip_namespaces(p))
            continue;
        if (lang_p_is_trait_type(p, tok)) {
            ty = lang_p_trait_type(p);
            continue;
        }
        if ((lang_p_is(tok, "tensor") || lang_p_is(tok, "matmul2d")) &&
            lang_p_is(tok->next, "<")) {
            ty = lang_p_tensor_type(p);
            continue;
        }
        if (lang_p_is_texture_name(tok)) {
            ty = lang_p_texture_type(p);
            continue;
        }
        if (lang_p_is(tok, "sampler")) {
            ty = lang_p_sampler_type(p);
            continue;
        }
        if (lang_p_consume(p, "struct") || lang_p_consume(p, "class")) {
            ty = lang_p_struct_decl(p, NULL);
            continue;
        }
        if (lang_p_consume(p, "enum")) {
            ty = enum_decl(p);
            continue;
        }
        if (lang_p_consume(p, "unsigned") || lang_p_consume(p, "signed")) {
            bool u = lang_p_is(tok, "unsigned");
            ty = u ? lang_ty_uint : lang_ty_int;
            if (lang_p_consume(p, "char"))
                ty = u ? lang_ty_uchar : lang_ty_char;
            else if (lang_p_consume(p, "short"))
                ty = u ? lang_ty_ushort : lang_ty_short;
            else if (lang_p_consume(p, "long"))
                ty = u ? lang_ty_ulong : lang_ty_long;
            else
                lang_p_consume(p, "int");
            lang_p_consume(p, "int");
            continue;
        }
        if (lang_p_consume(p, "vec")) {
            LangType *elem = type_arg(p);
            lang_p_skip(p, ",");
            LangToken *at = p->tok;
            LangNode *len = lang_p_additive(p); /* a constant: `4`, a template's `N`, `N * 2`
                                                 * (an additive-expression stops at '>') */
            int64_t n = 0;
            if (!lang_is_integer(len->type) || !lang_p_eval(p, len, &n) || n < 2 || n > 4)
                lang_error_at(p->ctx, at, "vector length must be 2, 3 or 4");
            lang_p_close_angle(p); /* `>>` closes an outer list too: is_same_v<T, vec<float, 4>> */
            if (!lang_is_scalar(elem))
                lang_error_at(p->ctx, tok, "vec<T, N> needs a scalar element type");
            ty = lang_vector_of(p->ctx, lang_qualified(p->ctx, elem, false), (int)n, false);
            continue;
        }
        if (lang_p_is(tok, "simdgroup_matrix")) {
            ty = lang_p_matrix_template(p);
            continue;
        }
        if (lang_p_consume(p, "decltype")) { /* the type of an expression, not evaluated */
            lang_p_skip(p, "(");
            LangNode *e = lang_p_expr(p);
            lang_p_skip(p, ")");
            ty = lang_qualified(p->ctx, e->type, false);
            continue;
        }
        if (lang_p_consume(p, "atomic")) {
            LangType *value = type_arg(p);
            lang_p_close_angle(p);
            ty = atomic_of(p, value, tok);
            continue;
        }
        if (lang_p_is(tok, "long")) { /* long, long int, long long */
            lang_p_next(p);
            lang_p_consume(p, "long");
            lang_p_consume(p, "int");
            ty = lang_ty_long;
            continue;
        }
        if (lang_p_is(tok, "short")) {
            lang_p_next(p);
            lang_p_consume(p, "int");
            ty = lang_ty_short;
            continue;
        }
        LangSym *sym = lang_p_is_name(tok) ? lang_p_lookup(p, tok) : NULL;
        LangTemplate *st = !sym ? NULL : sym->tmpl && sym->tmpl->is_struct ? sym->tmpl
                           : sym->type && sym->type->cls && lang_p_is(tok->next, "<")
                               ? sym->type->cls->tmpl /* Vec<T, N> inside Vec */
                               : NULL;
        if (st) { /* Vec<float, 4> */
            lang_p_next(p);
            ty = lang_p_struct_instance(p, st, tok);
            continue;
        }
        if (sym && sym->type && !sym->is_enum_const) {
            ty = sym->type;
            lang_p_next(p);
            continue;
        }
        if (!sym && (ty = builtin_type(p, tok)) != NULL) {
            lang_p_next(p);
            if (ty->vote && lang_p_is(p->tok, "::") && lang_p_is(p->tok->next, "vote_t")) {
                lang_p_next(p), lang_p_next(p); /* simd_vote::vote_t, quad_vote::vote_t */
                ty = ty->vote == LANG_VOTE_SIMD ? lang_ty_ulong : lang_ty_uint;
            }
            continue;
        }
        const char *why = lang_p_is_name(tok) ? unsupported_type(tok) : NULL;
        if (why)
            lang_error_at(p->ctx, tok, "%s", why);
        if (tok->kind == LTK_IDENT)
            lang_error_at(p->ctx, tok, "unknown type name '%.*s'", tok->len, tok->loc);
        lang_error_at(p->ctx, tok, "expected a type");
    }
    return is_const ? lang_qualified(p->ctx, ty, true) : ty;
}

// declarator = ("*" "const"? | "&")* ident? ("[" const-expr "]")*
LangType *lang_p_declarator(LangParser *p, LangType *base, LangAddrSpace space, bool has_space,
                            LangToken **name_tok)
{
    LangType *ty = base;
    if (base->kind == LTY_SGMATRIX && has_space && space != LAS_THREAD)
        lang_error_at(p->ctx, p->prev, "a simdgroup matrix lives in its SIMD-group's registers "
                      "(the thread address space), not in %s memory",
                      space == LAS_DEVICE ? "device" : space == LAS_CONSTANT ? "constant"
                                                                             : "threadgroup");
    for (;;) {
        LangToken *tok = p->tok;
        bool ref = lang_p_is(tok, "&");
        if (!ref && !lang_p_is(tok, "*"))
            break;
        lang_p_next(p);
        if (!has_space)
            lang_error_soft(p->ctx, tok, "%s needs an address space (device, constant, "
                            "threadgroup or thread)", ref ? "a reference" : "a pointer");
        if (ty->kind == LTY_POINTER && ty->is_reference)
            lang_error_at(p->ctx, tok, "pointers and references to references are invalid");
        ty = lang_pointer_to(p->ctx, ty, space);
        ty->is_reference = ref;
        while (lang_p_consume(p, "const") || lang_p_consume(p, "__restrict") ||
               lang_p_consume(p, "restrict"))
            ;
        space = LAS_THREAD; /* a pointer to a pointer: the outer one lives in thread memory */
    }
    *name_tok = NULL;
    if (p->tok->kind == LTK_IDENT) {
        *name_tok = p->tok;
        lang_p_next(p);
    }
    /* array dimensions, outermost first (not after `operator`: that is operator[]) */
    int dims[8], ndims = 0;
    while (lang_p_is(p->tok, "[") && !lang_p_is(p->tok->next, "[") &&
           !(*name_tok && lang_p_is(*name_tok, "operator"))) {
        LangToken *at = p->tok->next;
        lang_p_next(p);
        int64_t n = 0;
        if (lang_p_is(p->tok, "]"))
            lang_error_at(p->ctx, p->tok, "array size missing");
        if (!lang_p_eval(p, lang_p_cond(p), &n))
            lang_error_at(p->ctx, at, "array size is not an integer constant");
        if (n <= 0 || n > (1 << 24))
            lang_error_at(p->ctx, at, "invalid array size %lld", (long long)n);
        lang_p_skip(p, "]");
        if (ndims == 8)
            lang_error_at(p->ctx, at, "too many array dimensions");
        dims[ndims++] = (int)n;
    }
    for (int i = ndims - 1; i >= 0; i--) {
        if (ty->size == 0)
            lang_error_at(p->ctx, p->prev, "array of an incomplete type");
        if ((int64_t)ty->size * dims[i] > LANG_MAX_OBJECT_BYTES)
            lang_error_at(p->ctx, *name_tok ? *name_tok : p->prev,
                          "array of %lld bytes is too large (at most %d MiB)",
                          (long long)ty->size * dims[i], LANG_MAX_OBJECT_BYTES >> 20);
        ty = lang_array_of(p->ctx, ty, dims[i]);
    }
    return ty;
}

// typename = declspec ("*" | "&")*
LangType *lang_p_typename(LangParser *p)
{
    LangAddrSpace space = LAS_THREAD;
    bool has_space = false;
    LangType *ty = lang_p_declspec(p, &space, &has_space);
    LangToken *name = NULL;
    ty = lang_p_declarator(p, ty, space, has_space, &name);
    if (name)
        lang_error_at(p->ctx, name, "expected ')' or '>' after the type name");
    return ty;
}

/* ---- attributes ---------------------------------------------------------------------------- */

static const struct {
    const char *name;
    LangAttr attr;
    bool vector_ok;   /* Table 11: ushort2/3 and uint2/3 allowed */
} builtin_attrs[] = {
    {"thread_position_in_grid", LATTR_THREAD_POSITION_IN_GRID, true},
    {"thread_position_in_threadgroup", LATTR_THREAD_POSITION_IN_THREADGROUP, true},
    {"thread_index_in_threadgroup", LATTR_THREAD_INDEX_IN_THREADGROUP, false},
    {"threadgroup_position_in_grid", LATTR_THREADGROUP_POSITION_IN_GRID, true},
    {"threads_per_grid", LATTR_THREADS_PER_GRID, true},
    {"threads_per_threadgroup", LATTR_THREADS_PER_THREADGROUP, true},
    {"dispatch_threads_per_threadgroup", LATTR_DISPATCH_THREADS_PER_THREADGROUP, true},
    {"threadgroups_per_grid", LATTR_THREADGROUPS_PER_GRID, true},
    {"thread_execution_width", LATTR_THREAD_EXECUTION_WIDTH, false},
    {"threads_per_simdgroup", LATTR_THREADS_PER_SIMDGROUP, false},
    {"thread_index_in_simdgroup", LATTR_THREAD_INDEX_IN_SIMDGROUP, false},
    {"simdgroup_index_in_threadgroup", LATTR_SIMDGROUP_INDEX_IN_THREADGROUP, false},
    {"simdgroups_per_threadgroup", LATTR_SIMDGROUPS_PER_THREADGROUP, false},
    {"dispatch_simdgroups_per_threadgroup", LATTR_DISPATCH_SIMDGROUPS_PER_THREADGROUP, false},
    {"thread_index_in_quadgroup", LATTR_THREAD_INDEX_IN_QUADGROUP, false},
    {"quadgroup_index_in_threadgroup", LATTR_QUADGROUP_INDEX_IN_THREADGROUP, false},
    {"quadgroups_per_threadgroup", LATTR_QUADGROUPS_PER_THREADGROUP, false},
    {"dispatch_quadgroups_per_threadgroup", LATTR_DISPATCH_QUADGROUPS_PER_THREADGROUP, false},
};

static bool at_attr(LangParser *p)
{
    return lang_p_is(p->tok, "[[") || (lang_p_is(p->tok, "[") && lang_p_is(p->tok->next, "["));
}

static void attr_open(LangParser *p)
{
    if (!lang_p_consume(p, "[[")) {
        lang_p_next(p);
        lang_p_next(p);
    }
}

static void attr_close(LangParser *p)
{
    if (lang_p_consume(p, "]]"))
        return;
    lang_p_skip(p, "]");
    lang_p_skip(p, "]");
}

static int attr_int_arg(LangParser *p)
{
    lang_p_skip(p, "(");
    LangToken *at = p->tok;
    int64_t v = 0;
    if (!lang_p_eval(p, lang_p_cond(p), &v) || v < 0 || v > 65535)
        lang_error_at(p->ctx, at, "expected a non-negative integer constant");
    lang_p_skip(p, ")");
    return (int)v;
}

// attrs = ("[[" attr ("," attr)* "]]")*   for functions (fa) or variables/parameters (va)
void lang_p_attributes(LangParser *p, FnAttrs *fa, VarAttrs *va)
{
    while (at_attr(p)) {
        attr_open(p);
        do {
            LangToken *tok = p->tok;
            if (!lang_p_is_name(tok))
                lang_error_at(p->ctx, tok, "expected an attribute name");
            lang_p_next(p);
            if (fa && lang_p_is(tok, "kernel")) {
                fa->is_kernel = true;
            } else if (fa && lang_p_is(tok, "host_name")) {
                lang_p_skip(p, "(");
                fa->host_name = lang_p_string(p);
                lang_p_skip(p, ")");
            } else if (fa && (lang_p_is(tok, "max_total_threads_per_threadgroup") ||
                              lang_p_is(tok, "visible") || lang_p_is(tok, "stitchable"))) {
                if (lang_p_is(p->tok, "("))
                    attr_int_arg(p);
            } else if (va && lang_p_is(tok, "buffer")) {
                va->attr = LATTR_BUFFER, va->tok = tok;
                va->index = attr_int_arg(p);
            } else if (va && lang_p_is(tok, "sampler")) {
                lang_error_at(p->ctx, tok, "samplers as kernel arguments are not supported yet: "
                              "declare one in the kernel (constexpr sampler s(filter::linear);)");
            } else if (va && lang_p_is(tok, "texture")) {
                va->attr = LATTR_BUFFER, va->tok = tok, va->texture = true;
                va->index = attr_int_arg(p);
            } else if (va && lang_p_is(tok, "threadgroup")) {
                va->attr = LATTR_THREADGROUP, va->tok = tok;
                va->index = attr_int_arg(p);
            } else if (va && lang_p_is(tok, "function_constant")) {
                /* an index on a program-scope constant, a name on an argument: which one
                 * is known only after the declaration, so keep the expression */
                va->is_function_constant = true, va->tok = tok;
                lang_p_skip(p, "(");
                va->fc_cond = lang_p_cond(p);
                lang_p_skip(p, ")");
            } else {
                size_t i, n = sizeof builtin_attrs / sizeof builtin_attrs[0];
                for (i = 0; i < n && !(va && lang_p_is(tok, builtin_attrs[i].name)); i++)
                    ;
                if (i == n)
                    lang_error_at(p->ctx, tok, "unknown or misplaced attribute '%.*s'", tok->len,
                                  tok->loc);
                va->attr = builtin_attrs[i].attr;
                va->tok = tok;
            }
        } while (lang_p_consume(p, ","));
        attr_close(p);
    }
}

/* ---- functions ----------------------------------------------------------------------------- */

static void check_kernel_param(LangParser *p, LangVar *v, VarAttrs *va)
{
    LangType *ty = v->type;
    bool ptr = ty->kind == LTY_POINTER;
    if (ty->texture) { /* a texture: bound to a buffer with its size (codegen.c) */
        if (va->attr != LATTR_NONE && !va->texture)
            lang_error_soft(p->ctx, v->tok, "texture parameter '%s' takes [[texture(n)]] or no "
                            "attribute", v->name);
        v->type = lang_p_texture_param(p, v);
        v->attr = LATTR_BUFFER;
        v->attr_index = va->attr == LATTR_NONE ? -1 : va->index;
        return;
    }
    if (va->texture)
        lang_error_soft(p->ctx, v->tok, "[[texture(n)]] belongs to texture parameters; '%s' is "
                        "a '%s'", v->name, lang_type_name(p->ctx, ty));
    if (ty->tensor) { /* a tensor: bound to a buffer with its extents (codegen.c) */
        if (ty->tensor->kind != LTN_HANDLE || ty->tensor->ext[0] != -1 ||
            ty->tensor->ext[1] != -1 || ty->members->type->space == LAS_THREADGROUP)
            lang_error_soft(p->ctx, v->tok, "kernel parameter '%s' of type '%s': a kernel "
                            "takes tensors as tensor<device T, dextents<int, 2>> (or constant)",
                            v->name,
                            lang_type_name(p->ctx, ty));
        else if (va->attr != LATTR_NONE && va->attr != LATTR_BUFFER)
            lang_error_soft(p->ctx, v->tok, "tensor parameter '%s' takes [[buffer(n)]] or no "
                            "attribute", v->name);
        v->attr = LATTR_BUFFER;
        v->attr_index = va->attr == LATTR_NONE ? -1 : va->index;
        return;
    }
    if (va->attr == LATTR_NONE) {
        if (ptr && ty->space == LAS_THREADGROUP)
            va->attr = LATTR_THREADGROUP, va->index = -1;
        else if (ptr && (ty->space == LAS_DEVICE || ty->space == LAS_CONSTANT))
            va->attr = LATTR_BUFFER, va->index = -1; /* assigned automatically, like Metal */
        else
            lang_error_soft(p->ctx, v->tok, "kernel parameter '%s' needs an attribute such as "
                            "[[buffer(n)]] or [[thread_position_in_grid]]", v->name);
    } else if (va->attr == LATTR_BUFFER) {
        if (!ptr || (ty->space != LAS_DEVICE && ty->space != LAS_CONSTANT))
            lang_error_soft(p->ctx, v->tok, "[[buffer(n)]] parameter '%s' must be a device or "
                            "constant pointer or reference, not '%s'", v->name,
                            lang_type_name(p->ctx, ty));
    } else if (va->attr == LATTR_THREADGROUP) {
        if (!ptr || ty->space != LAS_THREADGROUP)
            lang_error_soft(p->ctx, v->tok, "[[threadgroup(n)]] parameter '%s' must be a "
                            "threadgroup pointer or reference, not '%s'", v->name,
                            lang_type_name(p->ctx, ty));
    } else {
        size_t i = 0;
        while (builtin_attrs[i].attr != va->attr)
            i++;
        LangType *s = lang_scalar_of(ty);
        bool ok = (s->kind == LTY_UINT || s->kind == LTY_USHORT) &&
                  (ty->kind != LTY_VECTOR || (builtin_attrs[i].vector_ok && ty->len <= 3 &&
                                              !ty->packed));
        if (!ok)
            lang_error_soft(p->ctx, v->tok, "type '%s' is not valid for [[%s]] (use %s)",
                            lang_type_name(p->ctx, ty), builtin_attrs[i].name,
                            builtin_attrs[i].vector_ok
                                ? "uint, uint2, uint3, ushort, ushort2 or ushort3"
                                : "uint or ushort");
    }
    v->attr = va->attr;
    v->attr_index = va->index;
}

/* Marks every variable the statements or expressions from n on (through next) assign,
 * increment or take the address of (LangVar.written). */
static void mark_written(LangNode *n, int depth)
{
    if (depth > 2 * LANG_P_MAX_DEPTH)
        return; /* deeper than the parser allows: nothing to find */
    for (; n; n = n->next) {
        switch (n->kind) {
        case LND_ASSIGN: case LND_PRE_INC: case LND_PRE_DEC: case LND_POST_INC:
        case LND_POST_DEC: case LND_ADDR: {
            LangVar *v = lang_p_root_var(n->lhs);
            if (v)
                v->written = true;
            break;
        }
        default:
            break;
        }
        LangNode *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->inc, n->body,
                            n->args, n->kind == LND_SWITCH ? n->case_next : NULL};
        for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++)
            mark_written(kids[i], depth + 1);
    }
}

/* Two arguments on one buffer or threadgroup index are an error; arguments without an
 * index get the next free one, as Metal assigns them. */
static void assign_indices(LangParser *p, LangFunction *f)
{
    for (LangVar *v = f->params; v; v = v->next)
        for (LangVar *o = f->params; o != v; o = o->next)
            if (v->attr_index >= 0 && !v->absent && !o->absent && o->attr == v->attr &&
                o->attr_index == v->attr_index && !o->type->texture == !v->type->texture &&
                (v->attr == LATTR_BUFFER || v->attr == LATTR_THREADGROUP))
                lang_error_soft(p->ctx, v->tok, "'%s' and '%s' have the same %s index %d",
                                o->name, v->name, v->type->texture ? "texture"
                                                  : v->attr == LATTR_BUFFER ? "buffer"
                                                                            : "threadgroup",
                                v->attr_index);
    for (LangVar *v = f->params; v; v = v->next) {
        if (v->attr_index >= 0 || v->absent ||
            (v->attr != LATTR_BUFFER && v->attr != LATTR_THREADGROUP))
            continue;
        int next = 0;
        for (LangVar *o = f->params; o; o = o->next)
            if (o != v && !o->absent && o->attr == v->attr && o->attr_index >= next &&
                !o->type->texture == !v->type->texture)
                next = o->attr_index + 1;
        v->attr_index = next;
    }
}

/* `T x [[buffer(n), function_constant(c)]]`: the argument exists only when the function
 * constant c (or a program-scope constant computed from function constants) is true; when
 * it is false or not given, the kernel is compiled as if it were not declared (MSL 4.9.1.2),
 * so the manifest does not give it. */
static void optional_param(LangParser *p, LangFunction *f, LangVar *v, VarAttrs *va)
{
    LangNode *c = va->fc_cond;
    if (!f->is_kernel) {
        lang_error_soft(p->ctx, va->tok, "[[function_constant]] on a parameter is supported "
                        "on kernel arguments only");
        return;
    }
    /* a name: of a function constant, or of a program-scope constant (folded to its value
     * when the parser met it) */
    LangVar *named = c && c->kind == LND_VAR ? c->var : NULL;
    bool is_name = c && c->tok && c->tok->kind == LTK_IDENT &&
                   (named ? named->kind == LVAR_FUNCTION_CONSTANT || named->kind == LVAR_CONSTANT
                          : c->kind == LND_NUM);
    if (!is_name || !lang_is_scalar(c->type)) {
        lang_error_soft(p->ctx, c ? c->tok : va->tok, "[[function_constant(name)]] on an "
                        "argument needs the name of a function constant (or of a program-scope "
                        "constant computed from them)");
        return;
    }
    int64_t value = 0;
    v->absent = !lang_p_eval(p, c, &value) || value == 0;
}

// params = "(" ("void" | param ("," param)*)? ")"
// param = attrs? declspec declarator attrs?
LangVar *lang_p_params(LangParser *p, LangFunction *f)
{
    LangVar head = {0}, *cur = &head;
    lang_p_skip(p, "(");
    if (lang_p_is(p->tok, "void") && lang_p_is(p->tok->next, ")"))
        lang_p_next(p);
    int n = 0;
    while (!lang_p_consume(p, ")")) {
        if (n && !lang_p_consume(p, ","))
            lang_error_at(p->ctx, p->tok, "expected ',' or ')'");
        VarAttrs va = {0};
        lang_p_attributes(p, NULL, &va);
        LangToken *at = p->tok;
        if (!lang_p_is_typename(p, at)) {
            if (at->kind == LTK_IDENT)
                lang_error_at(p->ctx, at, "unknown type name '%.*s'", at->len, at->loc);
            lang_error_at(p->ctx, at, "expected a parameter declaration");
        }
        LangAddrSpace space = LAS_THREAD;
        bool has_space = false;
        LangType *base = lang_p_declspec(p, &space, &has_space);
        LangToken *name = NULL;
        LangType *ty = lang_p_declarator(p, base, space, has_space, &name);
        lang_p_attributes(p, NULL, &va);
        bool postfix = f->name && (strcmp(f->name, "operator++") == 0 ||
                                   strcmp(f->name, "operator--") == 0); /* (thread C&, int) */
        if (!name && !f->is_method && !postfix) /* a member function's declaration may omit
                                                 * them */
            lang_error_at(p->ctx, p->tok, "expected a parameter name");
        if (ty->kind == LTY_ARRAY && !ty->matrix) /* arrays as parameters are pointers (C) */
            ty = lang_pointer_to(p->ctx, ty->base, has_space ? space : LAS_THREAD);
        if (ty->kind == LTY_VOID)
            lang_error_at(p->ctx, name ? name : at, "parameter has type void");
        LangVar *v;
        if (name) {
            v = lang_p_new_var(p, name, ty, LVAR_PARAM);
        } else {
            v = lang_alloc(p->ctx, sizeof *v);
            *v = (LangVar){.name = "", .type = ty, .tok = at, .kind = LVAR_PARAM,
                           .id = p->next_var_id++};
        }
        v->space = LAS_THREAD;
        if (va.is_function_constant)
            optional_param(p, f, v, &va);
        if (f->is_kernel)
            check_kernel_param(p, v, &va);
        else if (va.attr && !f->is_method)
            lang_error_soft(p->ctx, va.tok, "attribute only valid on kernel parameters");
        if (lang_p_is(p->tok, "="))
            lang_p_param_default(p, v, head.next); /* parse_default.c */
        cur = cur->next = v;
        n++;
    }
    f->num_params = n;
    return head.next;
}

// function = declspec (ident | "operator" op) params (";" | "{" compound)
// (op_name: "operator+" for an operator function, whose name token is `operator`)
static LangFunction *function(LangParser *p, LangType *ret, LangToken *name, FnAttrs *fa,
                              LangInstance *inst, const char *op_name, LangToken *start)
{
    LangCtx *ctx = p->ctx;
    if (!inst) {
        LangSym *sym = op_name ? NULL : lang_p_lookup(p, name);
        if (sym && !sym->func && !sym->tmpl && (sym->var || sym->type))
            lang_error_at(ctx, name, "redefinition of '%.*s' as a function", name->len,
                          name->loc);
    }
    LangFunction *f = lang_alloc(ctx, sizeof *f);
    /* instances are renamed by lang_p_instantiate, overloads by lang_p_name_overloads */
    f->name = op_name ? (char *)op_name : lang_p_name(p, name);
    f->tok = name;
    /* A reference return (`thread C& operator+=(thread C& a, C b)`) gives the value: the
     * call is no lvalue, so every use that could tell the two apart is refused. */
    f->ret = ret->kind == LTY_POINTER && ret->is_reference ? lang_qualified(ctx, ret->base, false)
                                                           : ret;
    f->is_kernel = fa->is_kernel;
    if (fa->host_name)
        f->name = fa->host_name;
    if (inst)
        inst->func = f;
    if (f->is_kernel && ret->kind != LTY_VOID)
        lang_error_soft(ctx, name, "a kernel function must return void");
    lang_p_enter(p);
    f->params = lang_p_params(p, f);
    lang_p_texhelp_bind(p, f, inst);
    if (inst && inst->decl_only) { /* a candidate's declaration (overload.c) */
        lang_p_leave(p);
        return f;
    }
    if (f->is_kernel)
        assign_indices(p, f);
    LangFunction *prior = inst ? NULL : lang_p_overload_declare(p, f, lang_p_is(p->tok, "{"));
    lang_p_merge_defaults(p, prior ? prior->params : NULL, f->params);
    if (prior) {
        prior->params = f->params; /* the definition's names */
        f = prior;
    } else {
        if (!inst) {
            LangScope *saved = p->scope;
            p->scope = p->global;
            LangSym *sym = lang_p_push_sym(p, name);
            sym->func = f;
            sym->name = f->name; /* "operator+" for an operator: more than its token */
            sym->len = (int)strlen(f->name);
            p->scope = saved;
        }
        lang_p_add_function(p, f);
    }
    if (lang_p_consume(p, ";") || lang_p_texhelp_defer(p, f, start, inst)) {
        lang_p_leave(p);
        return f;
    }
    LangToken *open = p->tok;
    if (!lang_p_consume(p, "{")) {
        if (lang_p_is(p->tok, "const") || lang_p_is(p->tok, "->"))
            lang_error_at(ctx, p->tok, "member functions and trailing return types are not "
                          "supported");
        lang_error_at(ctx, p->tok, "expected '{' or ';' after the parameter list");
    }
    long nodes_before = p->num_nodes;
    lang_p_body_begin(p, f);
    f->body = lang_p_compound(p, open);
    lang_p_body_end(p, f, nodes_before);
    lang_p_leave(p);
    return f;
}

void lang_p_add_function(LangParser *p, LangFunction *f)
{
    if (p->funcs_tail)
        p->funcs_tail->next = f;
    else
        p->unit->funcs = f;
    p->funcs_tail = f;
}

void lang_p_body_begin(LangParser *p, LangFunction *f)
{
    f->is_defined = true;
    p->fn = f;
    p->locals_tail = NULL;
    p->tg_bytes = 0;
    p->loop_depth = p->switch_depth = 0;
}

void lang_p_body_end(LangParser *p, LangFunction *f, long nodes_before)
{
    mark_written(f->body, 0);
    LangFnSize *size = lang_alloc(p->ctx, sizeof *size);
    *size = (LangFnSize){.next = p->sizes, .fn = f, .nodes = p->num_nodes - nodes_before,
                         .inlined = -1};
    p->sizes = size;
    f->tg_mem_bytes = p->tg_bytes;
    p->fn = NULL;
}

/* ---- program-scope variables ---------------------------------------------------------------- */

// global-var = "constant" declspec declarator (attrs | "=" initializer)   (after the name;
//              the caller expects the ";")
static void global_var(LangParser *p, LangType *ty, LangToken *name, LangAddrSpace space,
                       bool has_space, VarAttrs *va)
{
    if ((!has_space || space != LAS_CONSTANT) && !ty->sampler) /* constexpr sampler s(...) */
        lang_error_soft(p->ctx, name, "program-scope variable '%.*s' must be declared in the "
                        "constant address space", name->len, name->loc);
    if (ty->kind == LTY_VOID || ty->kind == LTY_ATOMIC || ty->kind == LTY_SGMATRIX)
        lang_error_at(p->ctx, name, "invalid type for a program-scope constant");
    LangType *value_ty = lang_qualified(p->ctx, ty, false);
    LangNode *init = NULL;
    LangToken *at = p->tok;
    if (lang_p_consume(p, "=") || lang_p_is(p->tok, "{")) {
        if (va->is_function_constant)
            lang_error_soft(p->ctx, at, "a function constant cannot have an initializer");
        at = p->tok;
        init = lang_p_initializer(p, value_ty);
        LangNode *folded = lang_p_fold(p, init);
        if (!folded)
            lang_error_soft(p->ctx, at, "the initializer of a program-scope constant must be "
                            "a constant expression");
        else
            init = folded;
    } else if (ty->sampler) { /* `(settings)` or none; the type holds them */
        init = lang_p_sampler_construct(p, ty, name);
    } else if (!va->is_function_constant) {
        lang_error_soft(p->ctx, name, "program-scope constant '%.*s' needs an initializer",
                        name->len, name->loc);
    }
    if (va->attr)
        lang_error_soft(p->ctx, va->tok, "attribute not valid on a program-scope variable");
    int64_t fc_index = 0;
    if (va->is_function_constant && va->fc_cond &&
        (!lang_p_eval(p, va->fc_cond, &fc_index) || fc_index < 0 || fc_index > 65535))
        lang_error_soft(p->ctx, va->fc_cond->tok, "expected a non-negative integer constant "
                        "(the function constant's index)");
    if (va->is_function_constant && !lang_is_scalar(ty))
        lang_error_soft(p->ctx, name, "function constant '%.*s' must have a scalar type",
                        name->len, name->loc);
    if (ty->sampler && init && init->type->sampler)
        ty = init->type;
    LangVar *v = lang_p_new_var(p, name, lang_qualified(p->ctx, ty, true),
                                va->is_function_constant ? LVAR_FUNCTION_CONSTANT
                                                         : LVAR_CONSTANT);
    v->space = LAS_CONSTANT;
    v->init = init;
    v->attr_index = va->is_function_constant ? (int)fc_index : 0;
    if (p->globals_tail)
        p->globals_tail->next = v;
    else
        p->unit->globals = v;
    p->globals_tail = v;
}

/* ---- program scope ------------------------------------------------------------------------- */

// toplevel = attrs ("kernel" | "static" | "inline")* declspec declarator attrs?
//            (function | ("=" initializer)? ";")
void lang_p_toplevel(LangParser *p, FnAttrs *fa, LangInstance *inst)
{
    for (;;) {
        lang_p_attributes(p, fa, NULL);
        if (lang_p_consume(p, "kernel")) {
            fa->is_kernel = true;
        } else if (lang_p_consume(p, "static") || lang_p_consume(p, "inline") ||
                   lang_p_consume(p, "METAL_FUNC")) {
        } else if (lang_p_consume(p, "__attribute__")) {
            int depth = 0;
            do {
                depth += lang_p_is(p->tok, "(") - lang_p_is(p->tok, ")");
                lang_p_next(p);
            } while (depth > 0 && p->tok->kind != LTK_EOF);
        } else {
            break;
        }
    }
    LangToken *start = p->tok;
    if (!lang_p_is_typename(p, start)) {
        if (start->kind == LTK_IDENT)
            lang_error_at(p->ctx, start, "unknown type name '%.*s'", start->len, start->loc);
        lang_error_at(p->ctx, start, "expected a declaration");
    }
    LangAddrSpace space = LAS_THREAD;
    bool has_space = false;
    LangType *base = lang_p_declspec(p, &space, &has_space);
    if (lang_p_consume(p, ";"))
        return; /* struct or enum declaration */
    if (lang_p_is(p->tok, "::") && base->kind == LTY_STRUCT && base->cls) {
        lang_p_method_define(p, base, NULL); /* Acc::Acc(...) (parse_struct.c) */
        return;
    }
    for (;;) {
        LangToken *name = NULL;
        LangType *ty = lang_p_declarator(p, base, space, has_space, &name);
        LangSym *owner = name && lang_p_is(p->tok, "::") ? lang_p_lookup(p, name) : NULL;
        if (owner && owner->type && owner->type->kind == LTY_STRUCT && owner->type->cls) {
            lang_p_method_define(p, owner->type, ty); /* float Acc::get() const { ... } */
            return;
        }
        if (!name)
            lang_error_at(p->ctx, p->tok, "expected a name");
        const char *op_name = lang_p_is(name, "operator") ? lang_p_operator_name(p) : NULL;
        if (lang_p_is(p->tok, "(") && !ty->sampler) {
            function(p, ty, name, fa, inst, op_name, start);
            return;
        }
        if (op_name)
            lang_error_at(p->ctx, p->tok, "expected '(' after '%s'", op_name);
        if (fa->is_kernel)
            lang_error_at(p->ctx, p->tok, "expected '(' after the kernel's name");
        VarAttrs va = {0};
        lang_p_attributes(p, NULL, &va);
        global_var(p, ty, name, space, has_space, &va);
        if (!lang_p_consume(p, ","))
            break;
    }
    lang_p_expect_semi(p);
}
