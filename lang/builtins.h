/*
 * builtins.h — the one list of Metal standard-library functions the kernel language knows.
 * The parser/checker resolves a call by name to a LangBuiltin id (and types it); code
 * generation lowers it by id. B(ID, "name", min_args, max_args, "spec section")
 * Names are matched after stripping `metal::`. Overloads on types are resolved by the
 * checker's typing rules, not by separate entries.
 */
#ifndef LOCKSTEP_LANG_BUILTINS_H
#define LOCKSTEP_LANG_BUILTINS_H

#define LANG_BUILTINS(B) \
    /* common and math functions (5.2, 5.5) */ \
    B(ABS, "abs", 1, 1, "5.2/5.3") B(FABS, "fabs", 1, 1, "5.5") \
    B(MIN, "min", 2, 2, "5.2/5.3") B(MAX, "max", 2, 2, "5.2/5.3") \
    B(FMIN, "fmin", 2, 2, "5.5") B(FMAX, "fmax", 2, 2, "5.5") \
    B(CLAMP, "clamp", 3, 3, "5.2/5.3") B(SATURATE, "saturate", 1, 1, "5.2") \
    B(MIX, "mix", 3, 3, "5.2") B(STEP, "step", 2, 2, "5.2") B(SMOOTHSTEP, "smoothstep", 3, 3, "5.2") \
    B(SIGN, "sign", 1, 1, "5.2") \
    B(FLOOR, "floor", 1, 1, "5.5") B(CEIL, "ceil", 1, 1, "5.5") B(TRUNC, "trunc", 1, 1, "5.5") \
    B(ROUND, "round", 1, 1, "5.5") B(RINT, "rint", 1, 1, "5.5") B(FRACT, "fract", 1, 1, "5.5") \
    B(FMOD, "fmod", 2, 2, "5.5") B(SQRT, "sqrt", 1, 1, "5.5") B(RSQRT, "rsqrt", 1, 1, "5.5") \
    B(EXP, "exp", 1, 1, "5.5") B(EXP2, "exp2", 1, 1, "5.5") B(EXP10, "exp10", 1, 1, "5.5") \
    B(LOG, "log", 1, 1, "5.5") B(LOG2, "log2", 1, 1, "5.5") B(LOG10, "log10", 1, 1, "5.5") \
    B(POW, "pow", 2, 2, "5.5") B(POWR, "powr", 2, 2, "5.5") \
    B(SIN, "sin", 1, 1, "5.5") B(COS, "cos", 1, 1, "5.5") B(TAN, "tan", 1, 1, "5.5") \
    B(ASIN, "asin", 1, 1, "5.5") B(ACOS, "acos", 1, 1, "5.5") B(ATAN, "atan", 1, 1, "5.5") \
    B(ATAN2, "atan2", 2, 2, "5.5") B(SINH, "sinh", 1, 1, "5.5") B(COSH, "cosh", 1, 1, "5.5") \
    B(TANH, "tanh", 1, 1, "5.5") B(FMA, "fma", 3, 3, "5.5") B(MAD, "mad", 3, 3, "5.5") \
    B(COPYSIGN, "copysign", 2, 2, "5.5") B(FDIM, "fdim", 2, 2, "5.5") \
    B(DIVIDE, "divide", 2, 2, "5.5 (fast::/precise::)") \
    B(ACOSH, "acosh", 1, 1, "5.5") B(ASINH, "asinh", 1, 1, "5.5") B(ATANH, "atanh", 1, 1, "5.5") \
    B(CBRT, "cbrt", 1, 1, "5.5") B(SINPI, "sinpi", 1, 1, "5.5") B(COSPI, "cospi", 1, 1, "5.5") \
    B(TANPI, "tanpi", 1, 1, "5.5") B(LOGB, "logb", 1, 1, "5.5") B(ILOGB, "ilogb", 1, 1, "5.5") \
    B(LDEXP, "ldexp", 2, 2, "5.5") B(NEXTAFTER, "nextafter", 2, 2, "5.5") \
    B(FMIN3, "fmin3", 3, 3, "5.5") B(FMAX3, "fmax3", 3, 3, "5.5") B(FMEDIAN3, "fmedian3", 3, 3, "5.5") \
    B(MIN3, "min3", 3, 3, "5.3/5.5") B(MAX3, "max3", 3, 3, "5.3/5.5") \
    B(MEDIAN3, "median3", 3, 3, "5.3/5.5") \
    B(ISNAN, "isnan", 1, 1, "5.4") B(ISINF, "isinf", 1, 1, "5.4") B(ISFINITE, "isfinite", 1, 1, "5.4") \
    B(SIGNBIT, "signbit", 1, 1, "5.4") B(ISNORMAL, "isnormal", 1, 1, "5.4") \
    B(ISORDERED, "isordered", 2, 2, "5.4") B(ISUNORDERED, "isunordered", 2, 2, "5.4") \
    B(ALL, "all", 1, 1, "5.4") B(ANY, "any", 1, 1, "5.4") \
    B(SELECT, "select", 3, 3, "5.4") \
    /* integer functions (5.3) */ \
    B(CLZ, "clz", 1, 1, "5.3") B(CTZ, "ctz", 1, 1, "5.3") B(POPCOUNT, "popcount", 1, 1, "5.3") \
    B(REVERSE_BITS, "reverse_bits", 1, 1, "5.3") B(EXTRACT_BITS, "extract_bits", 3, 3, "5.3") \
    B(INSERT_BITS, "insert_bits", 4, 4, "5.3") B(MULHI, "mulhi", 2, 2, "5.3") \
    B(MAD24, "mad24", 3, 3, "5.3") B(MUL24, "mul24", 2, 2, "5.3") B(ROTATE, "rotate", 2, 2, "5.3") \
    B(ABSDIFF, "absdiff", 2, 2, "5.3") B(ADDSAT, "addsat", 2, 2, "5.3") B(SUBSAT, "subsat", 2, 2, "5.3") \
    B(HADD, "hadd", 2, 2, "5.3") B(RHADD, "rhadd", 2, 2, "5.3") \
    B(MADHI, "madhi", 3, 3, "5.3") B(MADSAT, "madsat", 3, 3, "5.3") \
    /* math functions with a second result, written through a reference argument (5.5); \
     * they have side effects, so they sit past CLZ (see cg_expr_is_simple). The last is \
     * frexp's exponent, a name no call can spell */ \
    B(SINCOS, "sincos", 2, 2, "5.5") B(FREXP, "frexp", 2, 2, "5.5") B(MODF, "modf", 2, 2, "5.5") \
    B(FREXP_EXP, "frexp<exponent>", 1, 1, "5.5") \
    /* geometric functions (5.7) */ \
    B(DOT, "dot", 2, 2, "5.7") B(LENGTH, "length", 1, 1, "5.7") B(LENGTH_SQUARED, "length_squared", 1, 1, "5.7") \
    B(DISTANCE, "distance", 2, 2, "5.7") B(NORMALIZE, "normalize", 1, 1, "5.7") B(CROSS, "cross", 2, 2, "5.7") \
    /* synchronization (5.8.1) */ \
    B(THREADGROUP_BARRIER, "threadgroup_barrier", 1, 1, "5.8.1") \
    B(SIMDGROUP_BARRIER, "simdgroup_barrier", 1, 1, "5.8.1") \
    /* atomics (5.12); the memory order argument is required */ \
    B(ATOMIC_STORE, "atomic_store_explicit", 3, 3, "5.12") B(ATOMIC_LOAD, "atomic_load_explicit", 2, 2, "5.12") \
    B(ATOMIC_EXCHANGE, "atomic_exchange_explicit", 3, 3, "5.12") \
    B(ATOMIC_CMPXCHG_WEAK, "atomic_compare_exchange_weak_explicit", 5, 5, "5.12") \
    B(ATOMIC_FETCH_ADD, "atomic_fetch_add_explicit", 3, 3, "5.12") \
    B(ATOMIC_FETCH_SUB, "atomic_fetch_sub_explicit", 3, 3, "5.12") \
    B(ATOMIC_FETCH_MIN, "atomic_fetch_min_explicit", 3, 3, "5.12") \
    B(ATOMIC_FETCH_MAX, "atomic_fetch_max_explicit", 3, 3, "5.12") \
    B(ATOMIC_FETCH_AND, "atomic_fetch_and_explicit", 3, 3, "5.12") \
    B(ATOMIC_FETCH_OR, "atomic_fetch_or_explicit", 3, 3, "5.12") \
    B(ATOMIC_FETCH_XOR, "atomic_fetch_xor_explicit", 3, 3, "5.12") \
    /* SIMD-group functions (5.13) */ \
    B(SIMD_SHUFFLE, "simd_shuffle", 2, 2, "5.13") B(SIMD_SHUFFLE_UP, "simd_shuffle_up", 2, 2, "5.13") \
    B(SIMD_SHUFFLE_DOWN, "simd_shuffle_down", 2, 2, "5.13") B(SIMD_SHUFFLE_XOR, "simd_shuffle_xor", 2, 2, "5.13") \
    B(SIMD_SHUFFLE_ROTATE_UP, "simd_shuffle_rotate_up", 2, 2, "5.13") \
    B(SIMD_SHUFFLE_ROTATE_DOWN, "simd_shuffle_rotate_down", 2, 2, "5.13") \
    B(SIMD_BROADCAST, "simd_broadcast", 2, 2, "5.13") B(SIMD_BROADCAST_FIRST, "simd_broadcast_first", 1, 1, "5.13") \
    B(SIMD_BALLOT, "simd_ballot", 1, 1, "5.13") B(SIMD_ALL, "simd_all", 1, 1, "5.13") B(SIMD_ANY, "simd_any", 1, 1, "5.13") \
    B(SIMD_IS_FIRST, "simd_is_first", 0, 0, "5.13") B(SIMD_ACTIVE_THREADS_MASK, "simd_active_threads_mask", 0, 0, "5.13") \
    B(SIMD_SUM, "simd_sum", 1, 1, "5.13") B(SIMD_PRODUCT, "simd_product", 1, 1, "5.13") \
    B(SIMD_MIN, "simd_min", 1, 1, "5.13") B(SIMD_MAX, "simd_max", 1, 1, "5.13") \
    B(SIMD_AND, "simd_and", 1, 1, "5.13") B(SIMD_OR, "simd_or", 1, 1, "5.13") B(SIMD_XOR, "simd_xor", 1, 1, "5.13") \
    B(SIMD_PREFIX_INCLUSIVE_SUM, "simd_prefix_inclusive_sum", 1, 1, "5.13") \
    B(SIMD_PREFIX_EXCLUSIVE_SUM, "simd_prefix_exclusive_sum", 1, 1, "5.13") \
    B(SIMD_PREFIX_INCLUSIVE_PRODUCT, "simd_prefix_inclusive_product", 1, 1, "5.13") \
    B(SIMD_PREFIX_EXCLUSIVE_PRODUCT, "simd_prefix_exclusive_product", 1, 1, "5.13") \
    B(QUAD_SHUFFLE, "quad_shuffle", 2, 2, "5.13") B(QUAD_SHUFFLE_UP, "quad_shuffle_up", 2, 2, "5.13") \
    B(QUAD_SHUFFLE_DOWN, "quad_shuffle_down", 2, 2, "5.13") B(QUAD_SHUFFLE_XOR, "quad_shuffle_xor", 2, 2, "5.13") \
    B(QUAD_SHUFFLE_ROTATE_UP, "quad_shuffle_rotate_up", 2, 2, "5.13") \
    B(QUAD_SHUFFLE_ROTATE_DOWN, "quad_shuffle_rotate_down", 2, 2, "5.13") \
    B(QUAD_BROADCAST, "quad_broadcast", 2, 2, "5.13") B(QUAD_BALLOT, "quad_ballot", 1, 1, "5.13") \
    B(QUAD_ALL, "quad_all", 1, 1, "5.13") B(QUAD_ANY, "quad_any", 1, 1, "5.13") \
    B(QUAD_SUM, "quad_sum", 1, 1, "5.13") B(QUAD_PRODUCT, "quad_product", 1, 1, "5.13") \
    B(QUAD_MIN, "quad_min", 1, 1, "5.13") B(QUAD_MAX, "quad_max", 1, 1, "5.13") \
    B(QUAD_AND, "quad_and", 1, 1, "5.13") B(QUAD_OR, "quad_or", 1, 1, "5.13") B(QUAD_XOR, "quad_xor", 1, 1, "5.13") \
    B(QUAD_PREFIX_INCLUSIVE_SUM, "quad_prefix_inclusive_sum", 1, 1, "5.13") \
    B(QUAD_PREFIX_EXCLUSIVE_SUM, "quad_prefix_exclusive_sum", 1, 1, "5.13") \
    B(QUAD_PREFIX_INCLUSIVE_PRODUCT, "quad_prefix_inclusive_product", 1, 1, "5.13") \
    B(QUAD_PREFIX_EXCLUSIVE_PRODUCT, "quad_prefix_exclusive_product", 1, 1, "5.13") \
    B(QUAD_BROADCAST_FIRST, "quad_broadcast_first", 1, 1, "5.13") \
    B(QUAD_IS_FIRST, "quad_is_first", 0, 0, "5.13") \
    B(QUAD_ACTIVE_THREADS_MASK, "quad_active_threads_mask", 0, 0, "5.13") \
    /* simd_vote::all(), any() and quad_vote's: member functions, made by parse_vote.c */ \
    B(VOTE_ALL, "vote.all", 1, 1, "5.13") B(VOTE_ANY, "vote.any", 1, 1, "5.13") \
    /* T f(T data, T filling_data, ushort delta[, ushort modulo]) */ \
    B(SIMD_SHUFFLE_AND_FILL_UP, "simd_shuffle_and_fill_up", 3, 4, "5.13") \
    B(SIMD_SHUFFLE_AND_FILL_DOWN, "simd_shuffle_and_fill_down", 3, 4, "5.13") \
    B(QUAD_SHUFFLE_AND_FILL_UP, "quad_shuffle_and_fill_up", 3, 4, "5.13") \
    B(QUAD_SHUFFLE_AND_FILL_DOWN, "quad_shuffle_and_fill_down", 3, 4, "5.13") \
    /* SIMD-group matrices (<metal_simdgroup_matrix>); the last two are made by the parser \
     * from make_filled_simdgroup_matrix<T, 8, 8>(v) and T(v), names no call can spell */ \
    B(SIMDGROUP_LOAD, "simdgroup_load", 2, 5, "simdgroup_matrix") \
    B(SIMDGROUP_STORE, "simdgroup_store", 2, 5, "simdgroup_matrix") \
    B(SIMDGROUP_MULTIPLY, "simdgroup_multiply", 3, 3, "simdgroup_matrix") \
    B(SIMDGROUP_MULTIPLY_ACCUMULATE, "simdgroup_multiply_accumulate", 4, 4, "simdgroup_matrix") \
    B(SIMDGROUP_FILLED, "make_filled_simdgroup_matrix<>", 1, 1, "simdgroup_matrix") \
    B(SIMDGROUP_DIAGONAL, "simdgroup_matrix<>", 1, 1, "simdgroup_matrix") \
    /* Metal 4 tensor operations: member functions, made by parse_tensor.c */ \
    B(TENSOR_MAKE, "tensor<>", 3, 3, "MPP") \
    B(TENSOR_SLICE, "tensor.slice", 3, 3, "MPP") \
    B(TENSOR_RUN, "matmul2d.run", 4, 4, "MPP") \
    B(TENSOR_LOAD, "cooperative_tensor.load", 2, 2, "MPP") \
    B(TENSOR_STORE, "cooperative_tensor.store", 2, 2, "MPP") \
    /* matrix types (parse_linalg.c types them, codegen_linalg.c lowers them): the operators \
     * are made by the parser from + - * (names no call can spell), then the functions */ \
    B(MATRIX_ADD, "matrix+", 2, 2, "3.2") B(MATRIX_SUB, "matrix-", 2, 2, "3.2") \
    B(MATRIX_MUL, "matrix*", 2, 2, "3.2") \
    B(TRANSPOSE, "transpose", 1, 1, "5.6") B(DETERMINANT, "determinant", 1, 1, "5.6") \
    /* geometric functions built on dot (5.7), lowered beside the matrices */ \
    B(REFLECT, "reflect", 2, 2, "5.7") B(REFRACT, "refract", 3, 3, "5.7") \
    B(FACEFORWARD, "faceforward", 3, 3, "5.7") B(DISTANCE_SQUARED, "distance_squared", 2, 2, "5.7")

typedef enum LangBuiltin {
    LANG_BUILTIN_NONE = -1,
#define LANG_BUILTIN_ENUM_(id, name, lo, hi, ref) LANG_BI_##id,
    LANG_BUILTINS(LANG_BUILTIN_ENUM_)
#undef LANG_BUILTIN_ENUM_
    LANG_BUILTIN_COUNT
} LangBuiltin;

/* The simdgroup matrix functions (parse_matrix.c types them, codegen_matrix.c lowers them). */
static inline int lang_builtin_is_matrix(int id)
{
    return id >= LANG_BI_SIMDGROUP_LOAD && id <= LANG_BI_SIMDGROUP_DIAGONAL;
}

/* The tensor operations (parse_tensor.c types them, codegen_tensor.c lowers them). */
static inline int lang_builtin_is_tensor(int id)
{
    return id >= LANG_BI_TENSOR_MAKE && id <= LANG_BI_TENSOR_STORE;
}

/* Matrix types and the functions lowered with them (parse_linalg.c, codegen_linalg.c). */
static inline int lang_builtin_is_linalg(int id)
{
    return id >= LANG_BI_MATRIX_ADD && id <= LANG_BI_DISTANCE_SQUARED;
}

#endif
