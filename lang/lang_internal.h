/*
 * lang_internal.h — the contract between the compiler's stages, chibicc-style:
 *
 *   preprocess.c + lex.c   text -> LangToken list (macros expanded, #include resolved)
 *   parse.c + type.c       tokens -> LangUnit: typed AST (LangNode), LangType, LangVar,
 *                          LangFunction; every semantic error is reported here
 *   codegen*.c             one kernel's AST -> LangIr: ISA instructions on virtual registers,
 *                          structured control flow already lowered to Apple's exec-mask ops
 *   backend.c, opt.c,      LangIr -> IsaProgram: clean-ups, dead-code elimination,
 *   dce.c, regalloc.c      labels, load scheduling and waits,
 *                          jmp_exec_none, register allocation (halves, pairs), debug info
 *   compile.c              drives the stages (lang.h)
 *
 * Errors: every stage reports the first error with lang_error_at(), which formats
 * "file:line:col: error: ...", the source line and a caret into the context's UtilError and
 * longjmps back to lang_compile_*. All compiler memory comes from the context's arena
 * (lang_alloc), so bailing out leaks nothing. Nothing here prints.
 */
#ifndef LOCKSTEP_LANG_INTERNAL_H
#define LOCKSTEP_LANG_INTERNAL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>

#include "../isa/isa.h"
#include "../util/util.h"
#include "builtins.h"
#include "lang.h"

typedef struct LangType LangType;
typedef struct LangToken LangToken;
typedef struct LangNode LangNode;
typedef struct LangVar LangVar;
typedef struct LangFunction LangFunction;
typedef struct LangMember LangMember;

/* ---- context, arena, diagnostics ---------------------------------------------------------- */

typedef struct LangFile {
    char *name;      /* as given (for messages) */
    char *contents;  /* NUL-terminated */
    int index;       /* IsaSourceLoc.file */
} LangFile;

typedef struct LangArenaBlock LangArenaBlock;

typedef struct LangCtx {
    UtilError *err;
    jmp_buf bail;
    LangArenaBlock *arena;
    LangFile **files;
    int num_files, files_cap;
    const LangOptions *opts;
    int include_depth;
    int num_errors;        /* soft errors kept so far (lang_error_soft), at most LANG_MAX_ERRORS */
    int num_hidden;        /* errors past LANG_MAX_ERRORS: counted, not shown */
    char *diags;           /* the kept errors' text, one after another (malloc'd) */
    size_t diags_len, diags_cap;
} LangCtx;

/* Errors one compile reports before "N more errors not shown" (clang's -ferror-limit). */
#define LANG_MAX_ERRORS 20

void *lang_alloc(LangCtx *ctx, size_t size);   /* zeroed; freed with the context */
/* An arena array of `count` items of `size` bytes with room for one more: items itself, or a
 * copy twice as large (at least `first` items) when *cap is reached. */
void *lang_grow(LangCtx *ctx, void *items, size_t count, size_t *cap, size_t size, size_t first);
/* A function constant's given value as an integer's bits (two's complement): exact for an
 * integer (a long or ulong takes every value of its range), truncated for a float (the
 * parser has checked that it fits the constant's type). */
static inline uint64_t lang_constant_bits(const LangConstant *c)
{
    if (!c->is_float && c->magnitude)
        return c->negative ? 0 - c->magnitude : c->magnitude;
    return c->number >= 0 ? (uint64_t)c->number : (uint64_t)(int64_t)c->number;
}

/* The largest array or struct a kernel may declare (sizes are ints in bytes). */
#define LANG_MAX_OBJECT_BYTES (1 << 30)
char *lang_strndup(LangCtx *ctx, const char *s, size_t n);
char *lang_format(LangCtx *ctx, const char *fmt, ...) UTIL_PRINTF(2, 3);
void lang_ctx_free(LangCtx *ctx);
LangFile *lang_add_file(LangCtx *ctx, const char *name, char *contents);

/* Report an error at a token (or a raw position) and abandon compilation. */
_Noreturn void lang_error_at(LangCtx *ctx, const LangToken *tok, const char *fmt, ...) UTIL_PRINTF(3, 4);
_Noreturn void lang_error_pos(LangCtx *ctx, const LangFile *file, const char *pos, const char *fmt,
                              ...) UTIL_PRINTF(4, 5);

/* Report an error and go on (for checks that do not derail parsing), so one compile can
 * name several mistakes; lang_bail_if_errors() stops at the end of the stage. The first
 * LANG_MAX_ERRORS are shown; the rest are counted ("N more errors not shown"). */
void lang_error_soft(LangCtx *ctx, const LangToken *tok, const char *fmt, ...) UTIL_PRINTF(3, 4);
void lang_bail_if_errors(LangCtx *ctx);
/* A speculative parse takes back the errors it reported: the mark before it, and back to it. */
typedef struct LangErrorMark {
    int num_errors, num_hidden;
    size_t diags_len;
} LangErrorMark;
LangErrorMark lang_errors_mark(const LangCtx *ctx);
void lang_errors_restore(LangCtx *ctx, LangErrorMark mark);

/* ---- tokens (lex.c, preprocess.c) --------------------------------------------------------- */

typedef enum LangTokenKind {
    LTK_IDENT,
    LTK_PUNCT,    /* operators and punctuation, incl. "::" "->" "<<=" "..." */
    LTK_KEYWORD,  /* C and MSL keywords (kernel device constant threadgroup thread ...) */
    LTK_NUM,      /* integer or floating literal */
    LTK_STR,
    LTK_EOF
} LangTokenKind;

typedef struct LangHideset LangHideset;

struct LangToken {
    LangTokenKind kind;
    LangToken *next;
    const char *loc;        /* start in its file's contents */
    int len;
    LangFile *file;
    int line, col;          /* 1-based */
    bool at_bol, has_space;
    /* numbers */
    bool is_float;
    uint64_t ival;
    double fval;
    LangType *num_type;     /* int uint long ulong float half (suffixes u l ul f h) */
    /* strings */
    char *str;
    /* preprocessor */
    LangHideset *hideset;
    LangToken *origin;      /* the macro use this token was expanded from, for messages */
    bool no_unroll;         /* the first token after a `#pragma nounroll` (or the like): a
                             * `for` it starts is not unrolled (codegen_unroll.c) */
};

LangToken *lang_tokenize(LangCtx *ctx, LangFile *file);
/* Runs the preprocessor over a token list (#include resolved relative to the including file;
 * <metal_stdlib> and other system headers are accepted and contribute nothing). */
LangToken *lang_preprocess(LangCtx *ctx, LangToken *tok);
bool lang_tok_equal(const LangToken *tok, const char *s);

/* ---- types (type.c) ----------------------------------------------------------------------- */

typedef enum LangTypeKind {
    LTY_VOID, LTY_BOOL,
    LTY_CHAR, LTY_UCHAR, LTY_SHORT, LTY_USHORT, LTY_INT, LTY_UINT, LTY_LONG, LTY_ULONG,
    LTY_HALF, LTY_FLOAT,
    LTY_BFLOAT,   /* MSL 3.1's bfloat (bfloat16): 2 bytes in memory and in a register half;
                   * arithmetic is done in f32 and rounded back (codegen_expr.c) */
    LTY_VECTOR,   /* base: scalar element, len: 2..4, packed for packed_ types */
    LTY_ARRAY,    /* base: element, len: count; also the matrix types (`matrix` set) */
    LTY_STRUCT,   /* members */
    LTY_POINTER,  /* base: pointee; space: the pointee's address space */
    LTY_ATOMIC,   /* atomic_int, atomic_uint, atomic_float; base: the value type */
    LTY_SGMATRIX, /* simdgroup_float8x8, simdgroup_half8x8; base: float or half. One 64-bit
                   * leaf: a lane's two elements as f32 in a register pair (docs/ISA.md) */
    LTY_FUNC,
    LTY_ENUM_MEMORY_ORDER, /* memory_order */
    LTY_ENUM_MEM_FLAGS     /* mem_flags */
} LangTypeKind;

typedef enum LangAddrSpace {
    LAS_THREAD, LAS_DEVICE, LAS_CONSTANT, LAS_THREADGROUP
} LangAddrSpace;

struct LangMember {
    LangMember *next;
    char *name;
    LangType *type;
    LangToken *tok;
    int offset;
    LangToken *init_tok;    /* a default member initializer (`float sum = 0;`): its first
                             * token, parsed by each constructor that leaves the member */
};

/* Metal 4 tensor operations (parse_tensor.c): the types are structs (so locals, copies and
 * helper parameters work as for any struct) that carry this description. */
typedef enum LangTensorKind {
    LTN_HANDLE,     /* tensor<device T, dextents<int, 2>> or a slice of one: members __data
                     * (the element at the origin), __e0, __e1 (the extents in bounds: what
                     * edge checks compare with) and __s1 (elements between rows) */
    LTN_DESCRIPTOR, /* matmul2d_descriptor(...): compile-time values only, no members */
    LTN_OP,         /* matmul2d<descriptor, scope>: no members */
    LTN_COOP        /* a cooperative tensor: member __e, this thread's elements */
} LangTensorKind;

typedef struct LangTensor {
    LangTensorKind kind;
    LangType *elem;        /* HANDLE, COOP: the element type */
    int64_t ext[2];        /* HANDLE: static extents (columns, rows); -1 dynamic */
    bool unchecked;        /* HANDLE: a static_slice: no edge checks */
    int m, n, k;           /* DESCRIPTOR, OP, COOP: the tile; k -1 = from the operands */
    bool transpose_left, transpose_right, relaxed, accumulate;
    int simdgroups;        /* OP, COOP: SIMD-groups in the execution scope */
    int split_rows;        /* OP, COOP: the scope's SIMD-groups as split_rows x
                            * (simdgroups / split_rows) blocks of the m x n tile */
    int capacity;          /* COOP: elements a thread */
} LangTensor;

/* Textures (parse_texture.c): struct types whose members are __data (the texels: a pointer
 * to the pixel format's storage type, `device uchar4 *` for rgba8unorm), __w, __h and __p
 * (width, height and row pitch in texels, uints), bound like a tensor's. */
typedef enum LangTexAccess { LTA_SAMPLE, LTA_READ, LTA_WRITE, LTA_READ_WRITE } LangTexAccess;

typedef struct LangTexture {
    int dims;              /* 1 or 2 */
    LangType *sample;      /* T of texture2d<T>: float, half, int or uint */
    LangTexAccess access;
    LangTexFormat format;  /* a kernel argument's pixel format (the manifest's); NONE for a
                            * texture type spelled elsewhere, whose texels are unknown */
} LangTexture;

/* Samplers (parse_sampler.c): `constexpr sampler s(...)` makes a type of its own that holds
 * the settings (a struct with no data the code uses), so sample() is lowered for them. */
typedef enum LangAddress {
    LADDR_CLAMP_TO_EDGE, LADDR_REPEAT, LADDR_MIRRORED_REPEAT, LADDR_CLAMP_TO_ZERO,
    LADDR_CLAMP_TO_BORDER
} LangAddress;

typedef struct LangSampler {
    bool generic;          /* `sampler` as spelled, before its constructor gives settings */
    bool pixel;            /* coord::pixel (else normalized) */
    bool linear;           /* mag_filter (or filter) linear: the filter at LOD 0 */
    LangAddress address[2];/* s (x) and t (y) */
    int border;            /* clamp_to_border's color: 0 transparent_black, 1 opaque_black,
                            * 2 opaque_white */
} LangSampler;

struct LangType {
    LangTypeKind kind;
    int size, align;        /* bytes, C/MSL layout (3-vectors: size and align of 4) */
    LangType *base;
    int len;
    bool packed;
    bool matrix;            /* LTY_ARRAY: floatNxM / halfNxM, N (len) columns of base, a float
                             * or half M-vector: laid out as their array (MSL 2.2), indexed
                             * as one, with matrix operators (parse_linalg.c) */
    bool is_const;          /* this object is const (for pointers: see base->is_const) */
    LangAddrSpace space;    /* pointers and references: where the pointee lives */
    bool is_reference;      /* `T&` parameter: a pointer that reads like a value */
    char *name;             /* spelled name: "float4", struct/typedef name */
    LangMember *members;
    LangType *ret;          /* functions */
    LangType **params;
    int num_params;
    LangTensor *tensor;     /* Metal 4 tensor types (structs): what they are */
    LangTexture *texture;   /* texture types (structs): what they are */
    LangSampler *sampler;   /* sampler types (structs): their settings */
    uint8_t vote;           /* LangVote: simd_vote and quad_vote (structs of their bits) */
    struct LangClass *cls;  /* a user struct's member functions and static members (parse.h;
                             * NULL for a plain struct); shared by its const copies */
    LangType *twin;         /* a struct's other-const version: made once (lang_qualified), so
                             * one made while the struct is incomplete is completed with it */
};

/* simd_vote (a ulong: bit i for lane i) and quad_vote (a uint: bits 0-3), parse_vote.c */
typedef enum LangVote { LANG_VOTE_NONE, LANG_VOTE_SIMD, LANG_VOTE_QUAD } LangVote;

extern LangType *lang_ty_void, *lang_ty_bool, *lang_ty_char, *lang_ty_uchar, *lang_ty_short,
    *lang_ty_ushort, *lang_ty_int, *lang_ty_uint, *lang_ty_long, *lang_ty_ulong, *lang_ty_half,
    *lang_ty_float, *lang_ty_bfloat, *lang_ty_memory_order, *lang_ty_mem_flags;

LangType *lang_vector_of(LangCtx *ctx, LangType *scalar, int len, bool packed);
LangType *lang_array_of(LangCtx *ctx, LangType *elem, int len);
LangType *lang_pointer_to(LangCtx *ctx, LangType *pointee, LangAddrSpace space);
LangType *lang_sgmatrix_of(LangCtx *ctx, LangType *elem); /* elem: float or half */
LangType *lang_matrix_of(LangCtx *ctx, LangType *elem, int cols, int rows); /* float4x4 */
static inline bool lang_is_matrix(const LangType *ty)
{
    return ty && ty->kind == LTY_ARRAY && ty->matrix;
}
LangType *lang_qualified(LangCtx *ctx, LangType *ty, bool is_const);
bool lang_is_integer(const LangType *ty);   /* bool and char..ulong */
bool lang_is_float(const LangType *ty);     /* half, float, bfloat */
bool lang_is_scalar(const LangType *ty);    /* integer or float */
bool lang_is_unsigned(const LangType *ty);
LangType *lang_scalar_of(LangType *ty);      /* vectors: the element; scalars: themselves */
int lang_components(const LangType *ty);     /* vectors: len; scalars: 1 */
/* Scalars a value of the type holds in registers (codegen_mem.c): vector lanes, array
 * elements and struct members flattened in order. */
int cg_leaf_count(const LangType *ty);
bool lang_same_type(const LangType *a, const LangType *b); /* ignoring const */
const char *lang_type_name(LangCtx *ctx, const LangType *ty); /* for messages: "device half4*" */
/* The IsaType of a scalar (bool -> U8 in memory, U32 in registers; see codegen). */
IsaType lang_isa_type(const LangType *scalar);

/* ---- AST (parse.c) ------------------------------------------------------------------------ */

typedef enum LangNodeKind {
    /* expressions */
    LND_NUM,          /* literal: ival or fval per type */
    LND_VAR,          /* var */
    LND_MEMBER,       /* lhs.member (lhs a struct value or lvalue) */
    LND_SWIZZLE,      /* lhs.xyz: swizzle[0..swizzle_len) component indices; an lvalue if unique */
    LND_ELEMENTS,     /* lhs.thread_elements(): a simdgroup matrix's two elements in this
                       * thread, as a vec<T, 2> (an lvalue when lhs is) */
    LND_INDEX,        /* lhs[rhs]: pointer, array or vector element */
    LND_DEREF,        /* *lhs */
    LND_ADDR,         /* &lhs */
    LND_CAST,         /* (type)lhs, type(lhs), static_cast<type>(lhs), implicit conversions */
    LND_BITCAST,      /* as_type<type>(lhs): same size, bits reinterpreted */
    LND_CONSTRUCT,    /* vector or struct constructor: type(args...) / {args...} */
    LND_CALL,         /* user function call (inlined by codegen): func, args */
    LND_BUILTIN,      /* standard library call: builtin, args */
    LND_NEG, LND_NOT, LND_BITNOT,
    LND_ADD, LND_SUB, LND_MUL, LND_DIV, LND_MOD,
    LND_BITAND, LND_BITOR, LND_BITXOR, LND_SHL, LND_SHR,
    LND_EQ, LND_NE, LND_LT, LND_LE, LND_GT, LND_GE,
    LND_LOGAND, LND_LOGOR,
    LND_ASSIGN,       /* lhs = rhs; with assign_op set: lhs op= rhs (see op_type) */
    LND_PRE_INC, LND_PRE_DEC, LND_POST_INC, LND_POST_DEC,
    LND_COND,         /* cond ? then : els */
    LND_COMMA,
    /* statements */
    LND_BLOCK,        /* body: statement list */
    LND_EXPR_STMT,    /* lhs */
    LND_DECL,         /* var, init (may be NULL) */
    LND_IF,           /* cond, then, els */
    LND_FOR,          /* init (stmt), cond, inc, body; `while` is a for without init/inc */
    LND_DO,           /* body, cond */
    LND_SWITCH,       /* cond, body; cases: case_next list of LND_CASE */
    LND_CASE,         /* case_value or is_default; body: following statements until next case */
    LND_BREAK, LND_CONTINUE,
    LND_RETURN,       /* lhs (may be NULL) */
    LND_NULL_STMT
} LangNodeKind;

struct LangNode {
    LangNodeKind kind;
    LangToken *tok;         /* for diagnostics and debug info */
    LangType *type;         /* expressions: the result type (after checks) */
    LangNode *next;         /* statement lists, argument lists */
    LangNode *lhs, *rhs;
    LangNode *cond, *then, *els, *init, *inc, *body;
    LangNode *args;
    int num_args;
    LangVar *var;
    LangMember *member;
    uint8_t swizzle[4];
    int swizzle_len;
    LangFunction *func;
    LangBuiltin builtin;
    LangNodeKind assign_op; /* LND_ASSIGN: 0 for plain =, else LND_ADD etc. */
    LangType *op_type;      /* LND_ASSIGN with assign_op: the type the operation is done in (C:
                             * the common type of both sides; rhs is converted to it); the
                             * result is converted back to lhs's type. NULL: lhs's type */
    bool is_float;          /* LND_NUM */
    bool is_nullptr;        /* LND_NUM: `nullptr`, which converts to any device or constant
                             * pointer (address 0: no buffer is there, mem.h) */
    uint64_t ival;
    double fval;
    LangNode *case_next;    /* LND_SWITCH: first case; LND_CASE: next case */
    int64_t case_value;
    bool is_default;
    bool fast_math;         /* LND_BUILTIN called as fast:: (true) or precise:: */
    bool addr_only;         /* LND_INDEX: the operand of &, whose element is not accessed:
                             * a[N] of an array of N is the pointer one past its end */
    bool temporary;         /* LND_ADDR of a value (not an lvalue) bound to a `thread const
                             * T&` parameter: the value is held in a temporary */
};

/* Built-in position/index attributes of kernel parameters (MSL Table 11 and quad ones). */
typedef enum LangAttr {
    LATTR_NONE,
    LATTR_BUFFER,              /* [[buffer(n)]] */
    LATTR_THREADGROUP,         /* [[threadgroup(n)]] */
    LATTR_THREAD_POSITION_IN_GRID,
    LATTR_THREAD_POSITION_IN_THREADGROUP,
    LATTR_THREAD_INDEX_IN_THREADGROUP,
    LATTR_THREADGROUP_POSITION_IN_GRID,
    LATTR_THREADS_PER_GRID,
    LATTR_THREADS_PER_THREADGROUP,
    LATTR_DISPATCH_THREADS_PER_THREADGROUP,
    LATTR_THREADGROUPS_PER_GRID,
    LATTR_THREAD_EXECUTION_WIDTH,
    LATTR_THREADS_PER_SIMDGROUP,
    LATTR_THREAD_INDEX_IN_SIMDGROUP,
    LATTR_SIMDGROUP_INDEX_IN_THREADGROUP,
    LATTR_SIMDGROUPS_PER_THREADGROUP,
    LATTR_DISPATCH_SIMDGROUPS_PER_THREADGROUP,
    LATTR_THREAD_INDEX_IN_QUADGROUP,
    LATTR_QUADGROUP_INDEX_IN_THREADGROUP,
    LATTR_QUADGROUPS_PER_THREADGROUP,
    LATTR_DISPATCH_QUADGROUPS_PER_THREADGROUP
} LangAttr;

typedef enum LangVarKind {
    LVAR_LOCAL,        /* thread-space local (register, or stack if its address is taken) */
    LVAR_PARAM,        /* function or kernel parameter */
    LVAR_CONSTANT,     /* program-scope `constant T x = init;` (value known at compile time) */
    LVAR_FUNCTION_CONSTANT, /* `constant T x [[function_constant(n)]];` value from the manifest */
    LVAR_THREADGROUP   /* `threadgroup T x[N];` in a kernel body: static threadgroup memory */
} LangVarKind;

struct LangVar {
    LangVar *next;          /* in its function's list of locals, or the unit's globals */
    char *name;
    LangType *type;
    LangToken *tok;
    LangVarKind kind;
    LangAddrSpace space;    /* where the variable itself lives */
    LangAttr attr;
    int attr_index;         /* buffer(n), threadgroup(n), function_constant(n) index */
    LangNode *init;         /* constants: the initializer */
    bool address_taken;     /* &x used, or an array indexed by a non-constant that is no
                             * unrolled loop's counter (codegen_unroll.c decides): in memory */
    bool dyn_indexed;       /* an array indexed by a non-constant somewhere */
    bool ref_in_memory;     /* a `thread` reference parameter whose function needs the
                             * object it designates in memory (codegen_refs.c decides) */
    LangNode *decl_init;    /* a local's initializer as declared, or NULL */
    bool written;           /* assigned, incremented or its address taken after its
                             * declaration (so a local with a constant decl_init and not
                             * written holds that constant: codegen_unroll.c) */
    int tg_offset;          /* LVAR_THREADGROUP: byte offset in static threadgroup memory */
    bool absent;            /* a kernel argument [[function_constant(c)]] with c false or
                             * undefined: not declared in the signature (MSL 4.9.1.2) */
    int id;                 /* unique per unit */
    LangToken *default_arg; /* a parameter's default argument (`float s = 2.0f`): its first
                             * token, parsed again at each call that leaves it out */
    struct LangScope *default_scope; /* the names it sees: its function's, not the caller's */
};

struct LangFunction {
    LangFunction *next;
    char *name;             /* for template instances, the host name or mangled name */
    LangToken *tok;
    LangType *ret;
    LangVar *params;        /* linked by next, in order */
    int num_params;
    LangVar *locals;        /* every local of the body (including nested scopes) */
    LangNode *body;         /* LND_BLOCK */
    bool is_kernel;
    bool is_method;         /* a struct's member function: attributes of its parameters
                             * (MLX's [[thread_index_in_simdgroup]] on a constructor's) are
                             * ignored, as Metal ignores them outside a kernel's */
    bool this_escapes;      /* a member function that takes an address inside its object
                             * (`&v[0]`): its objects live in thread memory (parse_struct.c) */
    bool is_defined;
    int tg_mem_bytes;       /* kernels: static threadgroup memory of LVAR_THREADGROUP locals */
};

typedef struct LangUnit {
    LangFunction *funcs;    /* every function, kernels included, in source order */
    LangVar *globals;       /* program-scope constants and function constants */
} LangUnit;

LangUnit *lang_parse(LangCtx *ctx, LangToken *tok);
LangFunction *lang_find_kernel(LangCtx *ctx, LangUnit *unit, const char *entry);

/* ---- IR (codegen -> backend) ---------------------------------------------------------------
 * IsaInst records whose register operands name virtual registers: kind R32/R16/R64 with
 * index = vreg id (not a register number). vreg 0 is pinned to the physical r0 (the exec
 * nesting counter: R16 index 0 is r0l). Label operands (ISA_OPD_LABEL) carry a label id in
 * `index`; a LangIrInst with label >= 0 defines that label and has no instruction. Device
 * loads are emitted without `wait`: the backend inserts waits before first use. A
 * jmp_exec_none with LANG_IR_OPTIONAL set is a skip the backend keeps only when the skipped
 * code is long enough (Mesa's rule).
 */

enum { LANG_IR_OPTIONAL = 0x80 }; /* IsaInst.flags on jmp_exec_none */
/* IsaInst.flags on a nop whose opd[0] names a vreg: the vreg holds no value from here on
 * (a variable declared without an initializer). Register allocation counts it as a write,
 * so the variable keeps its own register from its declaration; the backend emits no
 * instruction for it and records it in IsaProgram.undefs for the checkers. */
enum { LANG_IR_UNDEF = 0x40 };
/* IsaInst.flags on a nop: the scope of the local in thread memory whose symbol is
 * LangIrInst.sym begins (its declaration) or ends here (IsaSymbol.live_begin, live_end); the
 * backend emits no instruction for it. */
enum { LANG_IR_SCOPE_BEGIN = 0x20, LANG_IR_SCOPE_END = 0x10 };

typedef struct LangIrInst {
    IsaInst inst;
    int32_t label;          /* >= 0: a label definition (inst unused) */
    IsaSourceLoc loc;
    const char *part_of;    /* the MSL function of a call compiled to several instructions
                             * that this one is part of (IsaFnPart), or NULL */
    uint8_t modulo_opd;     /* with part_of: the operand that holds the call's modulo, or 0 */
    uint8_t modulo_width;   /* and the lanes the modulo may cut */
    uint32_t sym;           /* a LANG_IR_SCOPE_* marker's thread symbol (its index among the
                             * kernel's locals in thread memory) */
} LangIrInst;

static inline bool lang_ir_is_undef(const LangIrInst *it)
{
    return it->label < 0 && it->inst.op == ISA_OP_NOP && (it->inst.flags & LANG_IR_UNDEF);
}

/* A marker (an undef or a scope's begin or end): no instruction of its own. */
static inline bool lang_ir_is_marker(const LangIrInst *it)
{
    return it->label < 0 && it->inst.op == ISA_OP_NOP &&
           (it->inst.flags & (LANG_IR_UNDEF | LANG_IR_SCOPE_BEGIN | LANG_IR_SCOPE_END));
}

typedef struct LangVreg {
    uint8_t width;          /* 16, 32 or 64 */
    LangVar *var;           /* the source variable it holds, for debug info; or NULL */
} LangVreg;

typedef struct LangIrLoop {
    int32_t head_label, end_label; /* registers live in a loop stay live through all of it */
} LangIrLoop;

typedef struct LangIr {
    LangIrInst *insts;
    uint32_t count;
    size_t cap;
    LangVreg *vregs;
    uint32_t num_vregs;
    size_t vregs_cap;
    uint32_t num_labels;
    LangIrLoop *loops;
    uint32_t num_loops;
    size_t loops_cap;
    /* what the IsaProgram gets */
    char *name;
    IsaArg *args;           /* with uniform slots assigned by codegen */
    uint32_t num_args;
    IsaUniformInit *uniform_inits;
    uint32_t num_uniform_inits;
    uint32_t tg_mem_bytes, stack_bytes;
    uint8_t *data;          /* constant data (program-scope constant arrays), in the arena */
    uint32_t data_bytes;
    IsaSymbol *symbols;     /* named threadgroup variables (names in the arena) */
    uint32_t num_symbols;
    IsaCallSite *calls;     /* inlined calls, for IsaSourceLoc.call (names in the arena) */
    uint32_t num_calls;
    size_t calls_cap;
} LangIr;

LangIr *lang_codegen(LangCtx *ctx, LangUnit *unit, LangFunction *kernel);
/* Consumes ir; the program's files are the context's files. */
IsaProgram *lang_backend(LangCtx *ctx, LangIr *ir);

#endif
