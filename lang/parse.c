/*
 * parse.c — the parser's entry points and program level (lang_parse, lang_find_kernel):
 * `using`, typedef, recursion detection over the call graph, and calls to the Metal
 * standard library (builtins.h). Templates are in parse_template.c.
 *
 * Builtin calls resolve by name to a LangBuiltin and are
 * typed by the spec's signatures (chapter 5): arguments are converted to what the chosen
 * overload takes, so code generation sees, e.g., dot(half4, half4) -> half and
 * simd_shuffle(T, ushort) -> T. Atomic calls check that the object is a pointer to an atomic
 * type and that the memory order is present, reporting both problems in one run.
 * Declarations are in parse_decl.c, statements in parse_stmt.c, expressions in
 * parse_expr.c, the typing rules in type.c.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "parse.h"
#include "../util/fp.h"

static const struct {
    const char *name;
    int lo, hi;
} builtin_info[] = {
#define BUILTIN_INFO_(id, name, lo, hi, ref) {name, lo, hi},
    LANG_BUILTINS(BUILTIN_INFO_)
#undef BUILTIN_INFO_
};

int lang_p_builtin_id(const LangToken *tok)
{
    for (int i = 0; i < LANG_BUILTIN_COUNT; i++)
        if (lang_p_is(tok, builtin_info[i].name))
            return i;
    return -1;
}

static LangType *unqual(LangParser *p, LangType *ty)
{
    return lang_qualified(p->ctx, ty, false);
}

static bool numeric(const LangType *ty)
{
    return lang_is_scalar(ty) || ty->kind == LTY_VECTOR;
}

/* The common type of args[0..n) (usual arithmetic conversions, scalars broadcast to a vector
 * argument's type); NULL with an error if there is none. */
static LangType *unify(LangParser *p, LangNode **args, int n, LangToken *name)
{
    LangType *ty = NULL;
    for (int i = 0; i < n; i++) {
        LangType *t = args[i]->type;
        if (!numeric(t)) {
            lang_error_soft(p->ctx, args[i]->tok, "invalid argument of type '%s' to '%.*s'",
                            lang_type_name(p->ctx, t), name->len, name->loc);
            return NULL;
        }
        t = unqual(p, t);
        if (!ty) {
            ty = t;
            continue;
        }
        if (lang_same_type(ty, t))
            continue;
        LangType *st = lang_scalar_of(ty), *su = lang_scalar_of(t);
        LangType *elem;
        if (lang_is_float(st) || lang_is_float(su))
            elem = st->kind == LTY_FLOAT || su->kind == LTY_FLOAT ? lang_ty_float : lang_ty_half;
        else /* the wider; of one width, the unsigned, as C's conversions (either order) */
            elem = st->size != su->size ? (st->size > su->size ? st : su)
                                        : lang_is_unsigned(su) ? su : st;
        if (ty->kind == LTY_VECTOR && t->kind == LTY_VECTOR) {
            if (ty->len != t->len || !lang_same_type(ty->base, t->base)) {
                lang_error_soft(p->ctx, args[i]->tok, "'%.*s': arguments of types '%s' and "
                                "'%s' do not match", name->len, name->loc,
                                lang_type_name(p->ctx, ty), lang_type_name(p->ctx, t));
                return NULL;
            }
        } else if (ty->kind == LTY_VECTOR) {
            /* a scalar next to a vector takes the vector's type */
        } else if (t->kind == LTY_VECTOR) {
            ty = t;
        } else {
            ty = elem;
        }
    }
    for (int i = 0; i < n; i++)
        args[i] = lang_p_convert(p, args[i], ty, args[i]->tok);
    return ty;
}

/* The arguments of a function Metal declares for float and half only (its math, relational,
 * geometric and floating common functions): one of them at least must be floating, the
 * others are converted to its type. A call with integer arguments alone is refused, as
 * Metal's compiler refuses it: an int converts to float and to half equally well, so the
 * call is ambiguous between the two overloads (and an int vector converts to neither). */
static LangType *floatify(LangParser *p, LangNode **args, int n, LangToken *name)
{
    LangType *ty = unify(p, args, n, name);
    if (!ty || lang_is_float(lang_scalar_of(ty)))
        return ty;
    LangType *f = ty->kind == LTY_VECTOR ? lang_vector_of(p->ctx, lang_ty_float, ty->len, false)
                                         : lang_ty_float;
    LangType *h = ty->kind == LTY_VECTOR ? lang_vector_of(p->ctx, lang_ty_half, ty->len, false)
                                         : lang_ty_half;
    const char *tn = lang_type_name(p->ctx, ty);
    if (ty->kind == LTY_VECTOR)
        lang_error_soft(p->ctx, name, "'%.*s' takes float or half vectors, and Metal converts "
                        "no '%s' to one implicitly: cast it to %s or %s", name->len, name->loc,
                        tn, lang_type_name(p->ctx, f), lang_type_name(p->ctx, h));
    else
        lang_error_soft(p->ctx, name, "call to '%.*s' with %s ('%s') is ambiguous in Metal (its "
                        "float and half overloads fit equally): cast %s to float or half",
                        name->len, name->loc, n > 1 ? "integers only" : "an integer", tn,
                        n > 1 ? "one" : "it");
    return f;
}

static LangType *integer_args(LangParser *p, LangNode **args, int n, LangToken *name)
{
    LangType *ty = unify(p, args, n, name);
    if (ty && !lang_is_integer(lang_scalar_of(ty))) {
        lang_error_soft(p->ctx, name, "'%.*s' needs integer arguments, not '%s'", name->len,
                        name->loc, lang_type_name(p->ctx, ty));
        return NULL;
    }
    return ty;
}

static LangType *bool_like(LangParser *p, LangType *ty)
{
    return ty && ty->kind == LTY_VECTOR ? lang_vector_of(p->ctx, lang_ty_bool, ty->len, false)
                                        : lang_ty_bool;
}

/* int, or the int vector of ty's length */
static LangType *int_like(LangParser *p, LangType *ty)
{
    return ty && ty->kind == LTY_VECTOR ? lang_vector_of(p->ctx, lang_ty_int, ty->len, false)
                                        : lang_ty_int;
}

/* The second result of sincos, modf and frexp goes to a `T &` argument: a writable lvalue of
 * exactly type want (any address space; MSL's declarations take a thread reference). It is
 * wrapped in an LND_ADDR node, so every pass that looks for writes to a variable sees it;
 * code generation stores through the lvalue inside, never materializing the address. */
static LangNode *out_arg(LangParser *p, LangNode *a, LangType *want, LangToken *name)
{
    if (!want)
        return a;
    if (!lang_p_is_lvalue(a)) {
        lang_error_soft(p->ctx, a->tok, "'%.*s' writes its second result to a variable (of "
                        "type '%s'): this argument is a value, not a variable", name->len,
                        name->loc, lang_type_name(p->ctx, want));
        return a;
    }
    if (!lang_same_type(unqual(p, a->type), want)) {
        lang_error_soft(p->ctx, a->tok, "'%.*s' writes its second result to a variable of "
                        "type '%s', not to '%s'", name->len, name->loc,
                        lang_type_name(p->ctx, want), lang_type_name(p->ctx, a->type));
        return a;
    }
    if (a->type->is_const || lang_p_lvalue_space(a) == LAS_CONSTANT)
        lang_error_soft(p->ctx, a->tok, "'%.*s' cannot write its second result to a constant",
                        name->len, name->loc);
    LangNode *addr = lang_p_new_node(p, LND_ADDR, a->tok);
    addr->lhs = a;
    addr->type = lang_pointer_to(p->ctx, a->type, lang_p_lvalue_space(a));
    return addr;
}

static bool is_atomic_fn(int id)
{
    return id >= LANG_BI_ATOMIC_STORE && id <= LANG_BI_ATOMIC_FETCH_XOR;
}

/* Atomic calls: args[0] a pointer to atomic T, then values of T and memory orders. */
static LangType *atomic_call(LangParser *p, LangNode **args, int n, LangToken *name, int id)
{
    LangType *ptr = n ? args[0]->type : NULL;
    LangType *value = lang_ty_int;
    if (ptr && ptr->kind == LTY_ARRAY)
        ptr = NULL;
    if (!ptr || ptr->kind != LTY_POINTER || ptr->base->kind != LTY_ATOMIC) {
        lang_error_soft(p->ctx, n ? args[0]->tok : name, "'%.*s' needs a pointer to an atomic "
                        "type (atomic_int, atomic_uint or atomic_float), not '%s'", name->len,
                        name->loc, n ? lang_type_name(p->ctx, args[0]->type) : "nothing");
        if (ptr && ptr->kind == LTY_POINTER && lang_is_scalar(ptr->base))
            value = unqual(p, ptr->base);
    } else {
        value = ptr->base->base;
        if (ptr->space == LAS_CONSTANT || ptr->base->is_const)
            lang_error_soft(p->ctx, args[0]->tok, "atomic object is read-only (%s)",
                            lang_type_name(p->ctx, ptr));
        if (value->kind == LTY_FLOAT && (id == LANG_BI_ATOMIC_FETCH_AND ||
                                         id == LANG_BI_ATOMIC_FETCH_OR ||
                                         id == LANG_BI_ATOMIC_FETCH_XOR ||
                                         id == LANG_BI_ATOMIC_CMPXCHG_WEAK))
            lang_error_soft(p->ctx, name, "'%.*s' is not available for atomic_float",
                            name->len, name->loc);
    }
    int orders = id == LANG_BI_ATOMIC_CMPXCHG_WEAK ? 2 : 1;
    int values = builtin_info[id].lo - orders;
    for (int i = 1; i < n; i++) {
        if (i >= values) {
            if (args[i]->type->kind != LTY_ENUM_MEMORY_ORDER)
                lang_error_soft(p->ctx, args[i]->tok, "expected a memory order (such as "
                                "memory_order_relaxed), not '%s'",
                                lang_type_name(p->ctx, args[i]->type));
        } else if (id == LANG_BI_ATOMIC_CMPXCHG_WEAK && i == 1) {
            LangType *t = args[i]->type;
            if (t->kind != LTY_POINTER || !lang_same_type(t->base, value))
                lang_error_soft(p->ctx, args[i]->tok, "expected a 'thread %s*' for the expected "
                                "value, not '%s'", value->name, lang_type_name(p->ctx, t));
        } else {
            args[i] = lang_p_convert(p, args[i], value, args[i]->tok);
        }
    }
    switch (id) {
    case LANG_BI_ATOMIC_STORE: return lang_ty_void;
    case LANG_BI_ATOMIC_CMPXCHG_WEAK: return lang_ty_bool;
    default: return value;
    }
}

static LangType *type_call(LangParser *p, LangNode **args, int n, LangToken *name, int id)
{
    LangType *ty;
    if (id == LANG_BI_TRANSPOSE || id == LANG_BI_DETERMINANT)
        return lang_p_linalg_call(p, args, n, name, id);
    switch (id) {
    case LANG_BI_REFLECT: case LANG_BI_FACEFORWARD: /* T f(T, T[, T]) */
        return floatify(p, args, n, name);
    case LANG_BI_DISTANCE_SQUARED: /* Ts f(T, T) */
        ty = floatify(p, args, n, name);
        return ty ? lang_scalar_of(ty) : lang_ty_float;
    case LANG_BI_REFRACT: /* T refract(T I, T N, Ts eta) */
        ty = floatify(p, args, 2, name);
        if (ty)
            args[2] = lang_p_convert(p, args[2], lang_scalar_of(ty), args[2]->tok);
        return ty;
    case LANG_BI_FABS: case LANG_BI_FLOOR: case LANG_BI_CEIL: case LANG_BI_TRUNC:
    case LANG_BI_ROUND: case LANG_BI_RINT: case LANG_BI_FRACT: case LANG_BI_SQRT:
    case LANG_BI_RSQRT: case LANG_BI_EXP: case LANG_BI_EXP2: case LANG_BI_EXP10:
    case LANG_BI_LOG: case LANG_BI_LOG2: case LANG_BI_LOG10: case LANG_BI_SIN: case LANG_BI_COS:
    case LANG_BI_TAN: case LANG_BI_ASIN: case LANG_BI_ACOS: case LANG_BI_ATAN: case LANG_BI_SINH:
    case LANG_BI_COSH: case LANG_BI_TANH: case LANG_BI_SATURATE: case LANG_BI_SIGN:
    case LANG_BI_NORMALIZE: case LANG_BI_FMOD: case LANG_BI_POW: case LANG_BI_POWR:
    case LANG_BI_ATAN2: case LANG_BI_FMIN: case LANG_BI_FMAX: case LANG_BI_COPYSIGN:
    case LANG_BI_FDIM: case LANG_BI_DIVIDE: case LANG_BI_STEP: case LANG_BI_FMA:
    case LANG_BI_MAD: case LANG_BI_MIX: case LANG_BI_SMOOTHSTEP: case LANG_BI_ACOSH:
    case LANG_BI_ASINH: case LANG_BI_ATANH: case LANG_BI_CBRT: case LANG_BI_SINPI:
    case LANG_BI_COSPI: case LANG_BI_TANPI: case LANG_BI_LOGB: case LANG_BI_NEXTAFTER:
    case LANG_BI_FMIN3: case LANG_BI_FMAX3: case LANG_BI_FMEDIAN3:
        return floatify(p, args, n, name);
    case LANG_BI_ABS: case LANG_BI_MIN: case LANG_BI_MAX: case LANG_BI_CLAMP:
    case LANG_BI_MIN3: case LANG_BI_MAX3: case LANG_BI_MEDIAN3:
        return unify(p, args, n, name);
    case LANG_BI_ISNAN: case LANG_BI_ISINF: case LANG_BI_ISFINITE: case LANG_BI_SIGNBIT:
    case LANG_BI_ISNORMAL: case LANG_BI_ISORDERED: case LANG_BI_ISUNORDERED:
        return bool_like(p, floatify(p, args, n, name));
    case LANG_BI_ILOGB: /* Ti ilogb(T x) */
        return int_like(p, floatify(p, args, n, name));
    case LANG_BI_LDEXP: { /* T ldexp(T x, Ti k) */
        ty = floatify(p, args, 1, name);
        LangType *k = unqual(p, args[1]->type);
        args[1] = lang_p_convert(p, args[1], k->kind == LTY_VECTOR ? int_like(p, ty)
                                                                    : lang_ty_int, args[1]->tok);
        return ty;
    }
    case LANG_BI_SINCOS: case LANG_BI_MODF: case LANG_BI_FREXP:
        ty = floatify(p, args, 1, name);
        args[1] = out_arg(p, args[1], id == LANG_BI_FREXP ? int_like(p, ty) : ty, name);
        return ty;
    case LANG_BI_ALL: case LANG_BI_ANY:
        if (!numeric(args[0]->type))
            lang_error_soft(p->ctx, args[0]->tok, "'%.*s' needs a bool vector", name->len,
                            name->loc);
        else if (lang_scalar_of(args[0]->type)->kind != LTY_BOOL)
            lang_error_soft(p->ctx, args[0]->tok, "'%.*s' needs a bool vector, not '%s'",
                            name->len, name->loc, lang_type_name(p->ctx, args[0]->type));
        return lang_ty_bool;
    case LANG_BI_SELECT: {
        ty = unify(p, args, 2, name);
        LangType *want = bool_like(p, ty);
        if (!lang_same_type(unqual(p, args[2]->type), want) && !lang_is_scalar(args[2]->type))
            lang_error_soft(p->ctx, args[2]->tok, "select's condition must be '%s', not '%s'",
                            lang_type_name(p->ctx, want), lang_type_name(p->ctx,
                                                                         args[2]->type));
        else if (!lang_same_type(unqual(p, args[2]->type), want))
            args[2] = lang_p_convert(p, args[2], lang_scalar_of(want), args[2]->tok);
        return ty;
    }
    case LANG_BI_CLZ: case LANG_BI_CTZ: case LANG_BI_POPCOUNT: case LANG_BI_REVERSE_BITS:
    case LANG_BI_MULHI: case LANG_BI_MAD24: case LANG_BI_MUL24: case LANG_BI_ROTATE:
    case LANG_BI_ADDSAT: case LANG_BI_SUBSAT: case LANG_BI_HADD: case LANG_BI_RHADD:
    case LANG_BI_MADHI: case LANG_BI_MADSAT:
        return integer_args(p, args, n, name);
    case LANG_BI_ABSDIFF: { /* Tu absdiff(T x, T y): the unsigned type of T's size */
        ty = integer_args(p, args, n, name);
        if (!ty)
            return NULL;
        LangType *s = lang_scalar_of(ty);
        LangType *u = s->kind == LTY_CHAR ? lang_ty_uchar : s->kind == LTY_SHORT ? lang_ty_ushort
                      : s->kind == LTY_INT ? lang_ty_uint : s->kind == LTY_LONG ? lang_ty_ulong : s;
        return ty->kind == LTY_VECTOR ? lang_vector_of(p->ctx, u, ty->len, false) : u;
    }
    case LANG_BI_EXTRACT_BITS: case LANG_BI_INSERT_BITS: {
        int data = id == LANG_BI_EXTRACT_BITS ? 1 : 2;
        ty = integer_args(p, args, data, name);
        for (int i = data; i < n; i++)
            args[i] = lang_p_convert(p, args[i], lang_ty_uint, args[i]->tok);
        return ty;
    }
    case LANG_BI_DOT: case LANG_BI_LENGTH: case LANG_BI_LENGTH_SQUARED: case LANG_BI_DISTANCE:
    case LANG_BI_CROSS:
        ty = floatify(p, args, n, name);
        if (!ty)
            return lang_ty_float;
        if (id == LANG_BI_CROSS && (ty->kind != LTY_VECTOR || ty->len != 3))
            lang_error_soft(p->ctx, name, "cross needs 3-component vectors, not '%s'",
                            lang_type_name(p->ctx, ty));
        return id == LANG_BI_CROSS ? ty : lang_scalar_of(ty);
    case LANG_BI_SIMDGROUP_LOAD: case LANG_BI_SIMDGROUP_STORE: case LANG_BI_SIMDGROUP_MULTIPLY:
    case LANG_BI_SIMDGROUP_MULTIPLY_ACCUMULATE:
        return lang_p_matrix_call(p, args, n, name, id);
    case LANG_BI_THREADGROUP_BARRIER: case LANG_BI_SIMDGROUP_BARRIER:
        if (args[0]->type->kind != LTY_ENUM_MEM_FLAGS)
            lang_error_soft(p->ctx, args[0]->tok, "expected mem_flags (such as "
                            "mem_flags::mem_threadgroup), not '%s'",
                            lang_type_name(p->ctx, args[0]->type));
        return lang_ty_void;
    case LANG_BI_SIMD_BALLOT: case LANG_BI_QUAD_BALLOT:
        args[0] = lang_p_to_bool(p, args[0]);
        return lang_p_vote_type(p, id == LANG_BI_QUAD_BALLOT);
    case LANG_BI_SIMD_ALL: case LANG_BI_SIMD_ANY: case LANG_BI_QUAD_ALL: case LANG_BI_QUAD_ANY:
        args[0] = lang_p_to_bool(p, args[0]);
        return lang_ty_bool;
    case LANG_BI_SIMD_IS_FIRST: case LANG_BI_QUAD_IS_FIRST:
        return lang_ty_bool;
    case LANG_BI_SIMD_ACTIVE_THREADS_MASK: case LANG_BI_QUAD_ACTIVE_THREADS_MASK:
        return lang_p_vote_type(p, id == LANG_BI_QUAD_ACTIVE_THREADS_MASK);
    case LANG_BI_SIMD_AND: case LANG_BI_SIMD_OR: case LANG_BI_SIMD_XOR: case LANG_BI_QUAD_AND:
    case LANG_BI_QUAD_OR: case LANG_BI_QUAD_XOR:
        return integer_args(p, args, 1, name);
    default:
        break;
    }
    /* SIMD and quad data functions: T f(T data[, ushort lane]) */
    ty = unqual(p, args[0]->type);
    if (!numeric(ty) || ty->kind == LTY_BOOL) {
        lang_error_soft(p->ctx, args[0]->tok, "invalid argument of type '%s' to '%.*s'",
                        lang_type_name(p->ctx, ty), name->len, name->loc);
        return lang_ty_int;
    }
    if (ty->kind == LTY_VECTOR && ty->packed)
        args[0] = lang_p_convert(p, args[0], ty = lang_vector_of(p->ctx, ty->base, ty->len,
                                                                 false), args[0]->tok);
    if (n == 2)
        args[1] = lang_p_convert(p, args[1], lang_ty_ushort, args[1]->tok);
    if (n >= 3) { /* the shuffle-and-fill functions: filling data of T, delta, modulo */
        args[1] = lang_p_convert(p, args[1], ty, args[1]->tok);
        for (int i = 2; i < n; i++)
            args[i] = lang_p_convert(p, args[i], lang_ty_ushort, args[i]->tok);
    }
    return ty;
}

/* The functions of the standard library take bfloat through float: its arguments are
 * widened (exactly), the float overload computes, and a result of the arguments' floating
 * type is rounded once to bfloat. Returns whether the call was so widened (the caller then
 * narrows the result); false, with an error, for what cannot be. */
static bool widen_bfloat_args(LangParser *p, LangNode **args, int n, LangToken *name, int id)
{
    bool bf = false, half = false;
    for (int i = 0; i < n; i++) {
        LangType *t = args[i]->type;
        if (lang_is_scalar(t) || t->kind == LTY_VECTOR) {
            bf = bf || lang_scalar_of(t)->kind == LTY_BFLOAT;
            half = half || lang_scalar_of(t)->kind == LTY_HALF;
        }
    }
    if (!bf || is_atomic_fn(id) || lang_builtin_is_matrix(id) || lang_builtin_is_tensor(id))
        return false;
    if (half || id == LANG_BI_SINCOS || id == LANG_BI_MODF || id == LANG_BI_FREXP) {
        lang_error_soft(p->ctx, name, half ? "'%.*s' mixes half and bfloat arguments, which do "
                        "not convert to each other implicitly; convert one of them"
                        : "'%.*s' on bfloat is not supported; convert the argument to float",
                        name->len, name->loc);
        return false;
    }
    for (int i = 0; i < n; i++) {
        LangType *t = args[i]->type;
        if ((lang_is_scalar(t) || t->kind == LTY_VECTOR) && lang_scalar_of(t)->kind == LTY_BFLOAT)
            args[i] = lang_p_cast(p, args[i], t->kind == LTY_VECTOR
                                  ? lang_vector_of(p->ctx, lang_ty_float, t->len, false)
                                  : lang_ty_float, args[i]->tok, true);
    }
    return true;
}

// builtin-call = ident "(" (assign ("," assign)*)? ")"
LangNode *lang_p_builtin_call(LangParser *p, LangToken *name, int id, bool fast)
{
    LangCtx *ctx = p->ctx;
    LangNode *node = lang_p_new_node(p, LND_BUILTIN, name);
    node->builtin = (LangBuiltin)id;
    node->fast_math = fast;
    lang_p_skip(p, "(");
    LangNode *args[8];
    int n = 0;
    while (!lang_p_consume(p, ")")) {
        if (n && !lang_p_consume(p, ","))
            lang_error_at(ctx, p->tok, "expected ',' or ')'");
        LangNode *a = lang_p_assign(p);
        if (n == 8)
            lang_error_at(ctx, a->tok, "too many arguments to '%.*s'", name->len, name->loc);
        if (a->type->kind == LTY_ARRAY && !is_atomic_fn(id) && !lang_builtin_is_matrix(id) &&
            !a->type->matrix)
            lang_error_soft(ctx, a->tok, "an array cannot be passed to '%.*s'", name->len,
                            name->loc);
        args[n++] = a;
    }
    int lo = builtin_info[id].lo, hi = builtin_info[id].hi;
    bool ok = n >= lo && n <= hi;
    bool widened = ok && widen_bfloat_args(p, args, n, name, id);
    if (is_atomic_fn(id) && n == lo - 1 && n >= 1) {
        lang_error_soft(ctx, p->prev, "missing memory order argument: '%.*s' takes %d "
                        "arguments, the last one a memory order such as memory_order_relaxed",
                        name->len, name->loc, lo);
        node->type = atomic_call(p, args, n, name, id);
    } else if (!ok) {
        lang_error_soft(ctx, name, "too %s arguments to '%.*s', expected %d, have %d",
                        n < lo ? "few" : "many", name->len, name->loc, n < lo ? lo : hi, n);
        node->type = lang_ty_int;
        if (is_atomic_fn(id) && n)
            node->type = atomic_call(p, args, n > hi ? hi : n, name, id);
    } else if (is_atomic_fn(id)) {
        node->type = atomic_call(p, args, n, name, id);
    } else {
        node->type = type_call(p, args, n, name, id);
        if (!node->type)
            node->type = n ? unqual(p, args[0]->type) : lang_ty_int;
    }
    LangNode head = {0}, *cur = &head;
    for (int i = 0; i < n; i++) {
        args[i]->next = NULL;
        cur = cur->next = args[i];
    }
    node->args = head.next;
    node->num_args = n;
    LangType *rt = node->type;
    if (widened && (lang_is_scalar(rt) || rt->kind == LTY_VECTOR) &&
        lang_scalar_of(rt)->kind == LTY_FLOAT)
        return lang_p_new_cast(p, node, rt->kind == LTY_VECTOR
                               ? lang_vector_of(p->ctx, lang_ty_bfloat, rt->len, false)
                               : lang_ty_bfloat, name);
    return node;
}

// using = "using" "namespace" ident ("::" ident)* ";" | "using" ident "=" typename ";"
static void using_decl(LangParser *p)
{
    if (lang_p_consume(p, "namespace")) {
        LangToken *ns = p->tok;
        if (!lang_p_is(ns, "metal") && !lang_p_is(ns, "mpp"))
            lang_error_at(p->ctx, ns, "unknown namespace '%.*s' (only 'metal' and "
                          "'mpp::tensor_ops' are known)", ns->len, ns->loc);
        lang_p_next(p);
        while (lang_p_consume(p, "::"))
            lang_p_next(p);
        lang_p_expect_semi(p);
        return;
    }
    LangToken *name = p->tok;
    if (name->kind != LTK_IDENT)
        lang_error_at(p->ctx, name, "expected 'namespace' or an alias name");
    lang_p_next(p);
    lang_p_skip(p, "=");
    LangType *ty = lang_p_typename(p);
    lang_p_expect_semi(p);
    lang_p_push_sym(p, name)->type = ty;
}

// typedef = "typedef" declspec declarator ("," declarator)* ";"
static void typedef_decl(LangParser *p)
{
    LangAddrSpace space = LAS_THREAD;
    bool has_space = false;
    LangType *base = lang_p_declspec(p, &space, &has_space);
    do {
        LangToken *name = NULL;
        LangType *ty = lang_p_declarator(p, base, space, has_space, &name);
        if (!name)
            lang_error_at(p->ctx, p->tok, "expected a typedef name");
        if (ty->kind == LTY_STRUCT && base->name && strchr(base->name, '(')) {
            ty->name = lang_p_name(p, name); /* typedef struct { ... } Name; */
        }
        /* `typedef struct P { ... } P;`: naming the type it already names is no redefinition */
        const LangSym *was = lang_p_lookup_in_scope(p, name);
        if (was && was->type && !was->var && !was->func && !was->tmpl && !was->is_enum_const &&
            lang_same_type(was->type, ty))
            continue;
        lang_p_push_sym(p, name)->type = ty;
    } while (lang_p_consume(p, ","));
    lang_p_expect_semi(p);
}

/* ---- recursion ----------------------------------------------------------------------------- */

/* Depth-first search for a call cycle through f; on_path marks the current path. */
static bool find_cycle(LangParser *p, LangFunction *f, LangFunction **path, int depth,
                       LangFunction **done, int *num_done)
{
    for (int i = 0; i < *num_done; i++)
        if (done[i] == f)
            return false;
    for (int i = 0; i < depth; i++)
        if (path[i] == f)
            return true;
    if (depth >= 256)
        return false;
    path[depth] = f;
    for (LangCallEdge *e = p->calls; e; e = e->next) {
        if (e->caller != f || e->callee == f)
            continue; /* direct recursion is reported at the call */
        if (find_cycle(p, e->callee, path, depth + 1, done, num_done)) {
            if (e->callee == path[0])
                lang_error_soft(p->ctx, e->tok, "recursive call: '%s' calls itself through "
                                "'%s' (functions cannot be recursive in Metal)", path[0]->name,
                                f->name);
            return true;
        }
    }
    if (*num_done < 4096)
        done[(*num_done)++] = f;
    return false;
}

static void check_recursion(LangParser *p)
{
    LangFunction *path[256];
    int num_done = 0;
    LangFunction **done = lang_alloc(p->ctx, 4096 * sizeof *done);
    for (LangFunction *f = p->unit->funcs; f; f = f->next)
        if (find_cycle(p, f, path, 0, done, &num_done))
            return; /* one report is enough */
    for (LangCallEdge *e = p->calls; e; e = e->next)
        if (!e->callee->is_defined)
            lang_error_soft(p->ctx, e->tok, "function '%s' is declared but never defined",
                            e->callee->name);
}

/* ---- inlined size ----------------------------------------------------------------------------
 * Codegen inlines every call, so a kernel's code is its own plus that of each call's callee,
 * recursively: ten functions that each call the one before twice make a kernel of 2^10
 * bodies. The bound turns such input into an error instead of hours of work and gigabytes.
 * The call graph is acyclic by now (check_recursion). */

enum { MAX_INLINED_NODES = 1 << 18, MAX_CALL_NESTING = 256 };

static LangFnSize *size_of(LangParser *p, const LangFunction *f)
{
    for (LangFnSize *s = p->sizes; s; s = s->next)
        if (s->fn == f)
            return s;
    return NULL;
}

/* Nodes of f with every call inlined, saturating just above the bound. */
static long inlined_size(LangParser *p, LangFunction *f, int nesting)
{
    LangFnSize *s = size_of(p, f);
    if (!s)
        return 0; /* declared, never defined: reported elsewhere */
    if (s->inlined >= 0)
        return s->inlined;
    long total = s->nodes;
    if (nesting < MAX_CALL_NESTING) /* deeper nests are refused by codegen */
        for (LangCallEdge *e = p->calls; e && total <= MAX_INLINED_NODES; e = e->next)
            if (e->caller == f)
                total += inlined_size(p, e->callee, nesting + 1);
    s->inlined = total > MAX_INLINED_NODES ? MAX_INLINED_NODES + 1 : total;
    return s->inlined;
}

static void check_inlined_size(LangParser *p)
{
    for (LangFunction *f = p->unit->funcs; f; f = f->next) {
        if (!f->is_kernel || inlined_size(p, f, 0) <= MAX_INLINED_NODES)
            continue;
        LangCallEdge *biggest = NULL;
        for (LangCallEdge *e = p->calls; e; e = e->next)
            if (e->caller == f &&
                (!biggest || inlined_size(p, e->callee, 1) > inlined_size(p, biggest->callee, 1)))
                biggest = e;
        lang_error_soft(p->ctx, biggest ? biggest->tok : f->tok,
                        "kernel '%s' is too large with its calls inlined (over %d expression "
                        "nodes)", f->name, MAX_INLINED_NODES);
    }
}

/* Whether the value d given for a function constant of scalar type t fits it: an integer in
 * the type's range (0 or 1 for bool), or a float in the type's finite range (or an infinity
 * or NaN, given as such). */
static bool constant_fits(const LangType *t, const LangConstant *c)
{
    const double d = c->number;
    if (lang_is_float(t)) /* as a buffer value: anything that does not round to infinity */
        return isnan(d) || isinf(d) ||
               (t->kind == LTY_HALF ? (util_f64_to_f16(d) & 0x7fff) != 0x7c00
                : t->kind == LTY_BFLOAT ? (util_f64_to_bf16(d) & 0x7fff) != 0x7f80
                                        : isfinite((float)d));
    /* the exact integer: -magnitude or magnitude (else the double's value) */
    const bool exact = !c->is_float && c->magnitude;
    if (!exact && d != floor(d))
        return false;
    const bool neg = exact ? c->negative : d < 0;
    const double fm = fabs(d);
    if (!exact && fm >= 18446744073709551616.0)
        return false;
    const uint64_t mag = exact ? c->magnitude : (uint64_t)fm;
    uint64_t pos_max, neg_max; /* the largest magnitude above and below 0 */
    switch (t->kind) {
    case LTY_BOOL: pos_max = 1, neg_max = 0; break;
    case LTY_CHAR: pos_max = 127, neg_max = 128; break;
    case LTY_UCHAR: pos_max = 255, neg_max = 0; break;
    case LTY_SHORT: pos_max = 32767, neg_max = 32768; break;
    case LTY_USHORT: pos_max = 65535, neg_max = 0; break;
    case LTY_INT: pos_max = 2147483647u, neg_max = 2147483648u; break;
    case LTY_UINT: pos_max = 4294967295u, neg_max = 0; break;
    case LTY_LONG: pos_max = (uint64_t)INT64_MAX, neg_max = (uint64_t)INT64_MAX + 1; break;
    case LTY_ULONG: pos_max = UINT64_MAX, neg_max = 0; break;
    default: return true;
    }
    return neg ? mag <= neg_max : mag <= pos_max;
}

/* The values given for function constants (a manifest's constants:, compile -D) must name
 * one of the program's and fit its type: -1 for a uint, 2 for a bool or 1e39 for a float
 * became other values silently. */
static void check_constant_values(LangParser *p)
{
    const LangOptions *o = p->ctx->opts;
    for (uint32_t i = 0; o && i < o->num_constants; i++) {
        const LangConstant *c = &o->constants[i];
        const LangVar *found = NULL;
        char *names = "";
        for (const LangVar *v = p->unit->globals; v; v = v->next) {
            if (v->kind != LVAR_FUNCTION_CONSTANT)
                continue;
            names = lang_format(p->ctx, "%s%s%s", names, *names ? ", " : "", v->name);
            if (strcmp(v->name, c->name) == 0)
                found = v;
        }
        if (!found)
            lang_error_soft(p->ctx, NULL, "a value is given for '%s', which is no function "
                            "constant of this file (%s%s)", c->name,
                            *names ? "its function constants: " : "it declares none", names);
        else if (!constant_fits(found->type, c)) {
            const char *tn = lang_type_name(p->ctx, lang_qualified(p->ctx, found->type, false));
            lang_error_soft(p->ctx, found->tok, "function constant '%s' is %s %s: the value %s "
                            "given for it (constants: or -D) does not fit (%s)", c->name,
                            tn[0] && strchr("aeio", tn[0]) ? "an" : "a", tn,
                            !c->is_float && c->magnitude
                                ? lang_format(p->ctx, "%s%llu", c->negative ? "-" : "",
                                              (unsigned long long)c->magnitude)
                                : lang_format(p->ctx, "%.9g", c->number),
                            found->type->kind == LTY_BOOL ? "0 or 1"
                            : lang_is_float(found->type) ? "a finite value in its range, or .inf"
                                                         : "an integer in its range");
        }
    }
}

/* One or more adjacent string literals, joined as C joins them ("qmv_" #name "_gs_" #gs in
 * MLX's [[host_name]] macros). */
char *lang_p_string(LangParser *p)
{
    if (p->tok->kind != LTK_STR)
        lang_error_at(p->ctx, p->tok, "expected a string");
    char *s = "";
    while (p->tok->kind == LTK_STR) {
        LangToken *t = p->tok;
        if (t->str)
            s = lang_format(p->ctx, "%s%s", s, t->str);
        else
            s = lang_format(p->ctx, "%s%.*s", s, t->len - 2, t->loc + 1);
        lang_p_next(p);
    }
    return s;
}

// static-assert = "static_assert" "(" constant-expr ("," string)? ")" ";"
void lang_p_static_assert(LangParser *p)
{
    LangToken *kw = p->tok;
    lang_p_next(p);
    lang_p_skip(p, "(");
    LangToken *at = p->tok;
    LangNode *e = lang_p_cond(p);
    char *msg = NULL;
    if (lang_p_consume(p, ","))
        msg = lang_p_string(p);
    lang_p_skip(p, ")");
    lang_p_expect_semi(p);
    LangNode *f = lang_p_fold(p, e);
    if (!f || f->kind != LND_NUM)
        lang_error_soft(p->ctx, at, "static_assert needs a constant expression");
    else if (f->is_float ? f->fval == 0 : f->ival == 0)
        lang_error_soft(p->ctx, kw, "static assertion failed%s%s", msg ? ": " : "",
                        msg ? msg : "");
}

// program = (using | typedef | template-def | explicit-instantiation | static-assert |
//            toplevel | ";")*
LangUnit *lang_parse(LangCtx *ctx, LangToken *tok)
{
    LangParser parser = {.ctx = ctx, .tok = tok};
    LangParser *p = &parser;
    p->unit = lang_alloc(ctx, sizeof *p->unit);
    lang_p_enter(p);
    p->global = p->scope;
    while (p->tok->kind != LTK_EOF) {
        LangToken *t = p->tok;
        if (lang_p_consume(p, ";"))
            continue;
        if (lang_p_consume(p, "using")) {
            using_decl(p);
        } else if (lang_p_consume(p, "typedef")) {
            typedef_decl(p);
        } else if (lang_p_consume(p, "template")) {
            if (lang_p_is(p->tok, "<"))
                lang_p_template_def(p, t);
            else
                lang_p_explicit_instantiation(p);
        } else if (lang_p_is(t, "static_assert")) {
            lang_p_static_assert(p);
        } else if (lang_p_is(t, "namespace")) {
            lang_error_at(ctx, t, "namespace definitions are not supported yet");
        } else {
            FnAttrs fa = {0};
            lang_p_toplevel(p, &fa, NULL);
        }
    }
    lang_p_name_overloads(p);
    check_recursion(p);
    lang_bail_if_errors(ctx);
    check_constant_values(p);
    lang_bail_if_errors(ctx);
    check_inlined_size(p);
    lang_bail_if_errors(ctx);
    return p->unit;
}

/* ---- entry point --------------------------------------------------------------------------- */

static char *kernel_list(LangCtx *ctx, LangUnit *unit)
{
    char *list = "";
    for (LangFunction *f = unit->funcs; f; f = f->next)
        if (f->is_kernel && f->is_defined)
            list = lang_format(ctx, "%s%s%s", list, *list ? ", " : "", f->name);
    return list;
}

LangFunction *lang_find_kernel(LangCtx *ctx, LangUnit *unit, const char *entry)
{
    LangFunction *found = NULL;
    int count = 0;
    for (LangFunction *f = unit->funcs; f; f = f->next) {
        if (!f->is_kernel || !f->is_defined)
            continue;
        count++;
        if (entry && strcmp(f->name, entry) == 0)
            return f;
        found = f;
    }
    if (count == 0)
        lang_error_at(ctx, NULL, "no kernel function in the file (declare one with `kernel "
                      "void name(...)`)");
    if (entry)
        lang_error_at(ctx, NULL, "no kernel named '%s' (the file's kernels: %s)", entry,
                      kernel_list(ctx, unit));
    if (count > 1)
        lang_error_at(ctx, NULL, "the file has several kernels (%s): name the one to run",
                      kernel_list(ctx, unit));
    return found;
}
