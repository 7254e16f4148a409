/*
 * codegen_internal.h — what code generation's own files share (codegen.c: state, emission,
 * kernel entry and exec-mask regions; codegen_mem.c: leaves, moves, memory, lvalues;
 * codegen_expr.c: constants, conversions, arithmetic, the expression walk; codegen_stmt.c:
 * statements, control flow, inlining; codegen_builtin.c: non-math builtins; codegen_int64.c:
 * 64-bit integer functions and products). Not part of the stage contract.
 *
 * Values are flattened into scalar "leaves": a scalar is one leaf, a vector one per
 * component, a struct or array the leaves of its members in layout order, a pointer one
 * leaf (64-bit for device/constant, a 32-bit byte offset for threadgroup/thread). Each leaf
 * is an operand (a vreg, a uniform or an immediate).
 *
 * IR conventions the backend relies on (besides lang_internal.h):
 *  - a memory op with count N > 1 names the first of N vregs with consecutive ids as its
 *    data; they must land in consecutive registers (halves for h16);
 *  - 64-bit data of a memory op is an R64 operand (one 64-bit vreg) with format b32, count 2.
 */
#ifndef LOCKSTEP_LANG_CODEGEN_INTERNAL_H
#define LOCKSTEP_LANG_CODEGEN_INTERNAL_H

#include "codegen.h"

typedef struct CgLval CgLval;

typedef struct CgVal {
    LangType *type;
    int n;            /* leaves */
    IsaOperand *c;    /* n operands */
    CgLval *ref;      /* a pointer that designates a register lvalue (thread refs/&local) */
} CgVal;

typedef struct CgLeaf {
    int off;          /* byte offset in the object */
    LangType *scalar; /* scalar or pointer type of the leaf */
} CgLeaf;

/* A memory address: base + idx * scale + off (bytes). */
typedef struct CgAddr {
    LangAddrSpace space;
    IsaOperand base;  /* device/constant: 64-bit pair; threadgroup/thread: 32-bit bytes */
    IsaOperand idx;   /* ISA_OPD_NONE or a 32-bit register/immediate */
    int scale;
    int64_t off;
} CgAddr;

typedef enum CgLvKind { LV_REG, LV_MEM, LV_SWZ, LV_DYNVEC, LV_ELEMS } CgLvKind;

struct CgLval {
    CgLvKind kind;
    LangType *type;
    IsaOperand *regs;      /* LV_REG: the leaves' storage (shared with the variable) */
    CgAddr addr;           /* LV_MEM */
    CgLval *base;          /* LV_SWZ, LV_DYNVEC: the vector; LV_ELEMS: the matrix */
    uint8_t swz[4];
    int swz_len;
    IsaOperand dyn;        /* LV_DYNVEC: the index */
};

/* How a variable is bound in the current inlining. */
typedef enum CgBindKind { BIND_NONE, BIND_REG, BIND_MEM, BIND_VALUE } CgBindKind;

typedef struct CgBind {
    CgBindKind kind;
    IsaOperand *regs;      /* BIND_REG: vregs; BIND_VALUE: read-only operands */
    CgVal value;           /* BIND_VALUE (incl. ref) */
    CgAddr addr;           /* BIND_MEM */
} CgBind;

/* A breakable/continuable region or an inlined function's region. */
typedef struct CgRegion {
    struct CgRegion *up;
    int base_depth;        /* exec depth outside the region */
    bool is_loop, is_switch, is_func;
    bool has_continue;
    CgVal ret;             /* is_func: where a return value goes */
    bool ret_set;
} CgRegion;

/* A span of thread memory: free, or held by a scope (sym: 1 + its thread symbol, or 0). */
typedef struct CgSpan {
    uint32_t off, size, sym;
} CgSpan;

struct LangCg {
    LangCtx *ctx;
    LangUnit *unit;
    LangFunction *kernel;
    LangIr *ir;
    IsaSourceLoc loc;      /* what the next instruction gets; loc.call is `call` */
    uint32_t call;         /* the inlined call being generated (IsaSourceLoc.call), or 0 */
    const LangToken *loc_tok; /* the token loc came from: errors without one point there */
    CgBind *binds;
    int binds_cap;
    int depth;             /* exec nesting added by the open constructs */
    CgRegion *region;      /* innermost */
    int load_slot;
    uint32_t stack_bytes;
    LangFunction **inline_stack;
    int inline_depth;
    bool vec_mem;          /* use .xN vector memory ops */
    IsaSymbol *thread_syms;/* locals kept in thread (stack) memory, for the checkers */
    uint32_t num_thread_syms, cap_thread_syms;
    CgSpan *stack_free;    /* thread memory free for reuse, by offset, adjacent spans merged */
    uint32_t num_free, cap_free;
    CgSpan *stack_live;    /* what the open scopes hold, innermost scope's last */
    uint32_t num_live, cap_live;
    uint32_t next_uniform; /* the first uniform no argument takes */
    IsaSymbol *data_syms;  /* program-scope constant arrays in the constant data */
    uint32_t num_data_syms, cap_data_syms;
};

/* codegen.c */
void cg_name_thread_variable(LangCg *cg, LangVar *var, uint32_t offset);
/* Thread memory is handed out per scope (a block, an inlined call): what one allocates goes
 * back when it ends, for later scopes to reuse, so stack_bytes counts only what can be live
 * together. cg_scope_begin returns the mark cg_scope_end takes. */
uint32_t cg_scope_begin(LangCg *cg);
void cg_scope_end(LangCg *cg, uint32_t mark);
/* Whether `bytes` bytes at a + extra are constant data known now (a program-scope constant
 * array read at a constant index): their value, little-endian, into *value. */
bool cg_constant_data_at(LangCg *cg, const CgAddr *a, int extra, int bytes, uint64_t *value);
int cg_new_label(LangCg *cg);
void cg_label(LangCg *cg, int label);
IsaOperand cg_label_opd(int label);
IsaOperand cg_num(int n);
void cg_set_loc(LangCg *cg, const LangToken *tok);
_Noreturn void cg_error(LangCg *cg, const LangToken *tok, const char *msg);
int cg_width_of(const LangType *scalar);
IsaOperand cg_vreg_for(LangCg *cg, const LangType *scalar);
void cg_name_vreg(LangCg *cg, IsaOperand r, LangVar *var);
CgBind *cg_bind(LangCg *cg, LangVar *var);
/* A local declared without an initializer: each of its registers is marked as holding no
 * value yet (LANG_IR_UNDEF), so checkers can tell a read of it before any assignment. */
void cg_mark_undefined(LangCg *cg, const CgBind *b, const LangVar *var);
bool cg_writes_var(LangNode *body, LangVar *var);
uint32_t cg_stack_alloc(LangCg *cg, int size, int align);
/* exec-mask constructs */
void cg_if_begin(LangCg *cg, IsaOperand cond01, int *skip_label);
void cg_if_cmp_begin(LangCg *cg, IsaOpcode op, IsaCond cond, IsaOperand a, IsaOperand b,
                     int *skip_label);
void cg_if_else(LangCg *cg, int *skip_label);
void cg_if_end(LangCg *cg, int skip_label);
void cg_set_depth_and_refresh(LangCg *cg, int value);

/* codegen_mem.c */
static inline bool cg_is_reg(IsaOperand o)
{
    return o.kind == ISA_OPD_R32 || o.kind == ISA_OPD_R16 || o.kind == ISA_OPD_R64;
}
static inline bool cg_is_dev(LangAddrSpace s) { return s == LAS_DEVICE || s == LAS_CONSTANT; }
CgLeaf *cg_leaves(LangCg *cg, LangType *ty, int *n);
CgVal cg_val_new(LangCg *cg, LangType *ty, int n);
CgVal cg_val_fresh(LangCg *cg, LangType *ty);   /* vregs for every leaf */
CgLval *cg_lval(LangCg *cg, LangNode *node);
CgVal cg_load(LangCg *cg, CgLval *lv);
void cg_store(LangCg *cg, CgLval *lv, CgVal v);
CgVal cg_load_addr(LangCg *cg, CgAddr *a, LangType *ty);
/* Loads n consecutive scalars into dst and the vregs after it (consecutive ids), which keep
 * their values in lanes that do not run the load (a guarded load: the wait comes before
 * their first use, after the guard). */
void cg_load_into(LangCg *cg, CgAddr *a, LangType *scalar, int n, IsaOperand dst);
void cg_store_addr(LangCg *cg, CgAddr *a, LangType *ty, CgVal v);
void cg_copy_into(LangCg *cg, IsaOperand *dst, LangType *ty, CgVal v);
IsaOperand cg_mov(LangCg *cg, IsaOperand dst, IsaOperand src, int width);
IsaOperand cg_to_reg(LangCg *cg, IsaOperand src, int width);
CgAddr cg_addr_of_pointer(LangCg *cg, CgVal p);
CgVal cg_pointer_of_addr(LangCg *cg, CgAddr *a, LangType *pty);
IsaOperand cg_elem_index(LangCg *cg, CgAddr *a, int fsz);
/* addr += index * scale; index is an operand of integer type it (any width) */
void cg_addr_add(LangCg *cg, CgAddr *a, IsaOperand index, LangType *it, int scale);
bool cg_lvalue_like(LangNode *n);                       /* reads go through cg_lval */
int cg_member_leaf_start(LangType *st, LangMember *mem); /* first leaf of a member */

/* codegen_expr.c */
CgVal cg_expr(LangCg *cg, LangNode *node);
IsaOperand cg_scalar(LangCg *cg, LangNode *node); /* a scalar expression's one operand */
IsaType cg_reg_type(const LangType *t);           /* the cvt type of a value in a register */
IsaOperand cg_cvt(LangCg *cg, IsaOperand v, IsaType dst, IsaType src, int dst_width);
IsaOperand cg_bf16_to_f32(LangCg *cg, IsaOperand v);  /* a bfloat operand as an f32 one */
IsaOperand cg_emit3(LangCg *cg, IsaOpcode op, int width, IsaOperand a, IsaOperand b);
IsaOperand cg_convert(LangCg *cg, IsaOperand v, LangType *from, LangType *to);
IsaOperand cg_bool_of(LangCg *cg, IsaOperand v, LangType *ty); /* 0/1 */
IsaOperand cg_select(LangCg *cg, IsaOperand c01, IsaOperand a, IsaOperand b, int width);
IsaOperand cg_binop(LangCg *cg, LangNodeKind k, LangType *ty, IsaOperand a, IsaOperand b,
                    const LangToken *tok);
IsaOperand cg_compare(LangCg *cg, LangNodeKind k, LangType *ty, IsaOperand a, IsaOperand b);
IsaOperand cg_normalize(LangCg *cg, IsaOperand v, LangType *ty); /* 32-bit, extended */
/* short/ushort live in register halves (16-bit vregs, h16 memory format); arithmetic widens
 * them to 32 bits (C's promotion) and narrows results back by keeping the low 16 bits. */
bool cg_is_int16(const LangType *t);
IsaOperand cg_widen16(LangCg *cg, IsaOperand v, const LangType *t);   /* -> 32-bit, extended */
IsaOperand cg_narrow16(LangCg *cg, IsaOperand v, const LangType *t);  /* 32-bit -> a half */
bool cg_expr_is_simple(LangNode *node);
int64_t cg_const_int(LangCg *cg, LangNode *node, bool *ok);

/* codegen_stmt.c */
void cg_stmt(LangCg *cg, LangNode *node);
CgVal cg_call(LangCg *cg, LangNode *node);
void cg_bind_local(LangCg *cg, LangVar *var);
/* A loop the compiler makes itself (tensor operations): `while (a cond b) { ... }` with
 * 32-bit integer operands, which the body may reassign; lanes failing the compare wait at
 * its end, as in any loop. */
typedef struct CgLoop {
    CgRegion r;
    int head, end;
} CgLoop;
void cg_loop_begin(LangCg *cg, CgLoop *l, IsaCond cond, IsaOperand a, IsaOperand b);
void cg_loop_end(LangCg *cg, CgLoop *l, IsaCond cond, IsaOperand a, IsaOperand b);
/* Generates a small counted `for` loop unrolled (codegen_unroll.c); false: not such a loop,
 * nothing generated. */
bool cg_try_unroll(LangCg *cg, LangNode *n);
/* Decides, for the whole unit, which arrays indexed by a non-constant stay in registers
 * (every such index a constant once unrolled) and marks the rest address_taken. */
void cg_place_arrays(LangUnit *unit);
/* codegen_refs.c: marks the `thread` reference parameters whose function needs the object
 * in memory (ref_in_memory), and the variables bound to them (address_taken); true when it
 * marked any. Run inside cg_place_arrays' fixpoint. */
bool cg_place_refs(LangUnit *unit);
/* The thread reference parameter, or member function's `this`, whose object an lvalue is
 * part of (`a.v[k]` of `thread S &a`), or NULL. */
LangVar *cg_ref_object(const LangNode *lvalue);
/* An array index made constant by unrolling, folded with the current bindings. */
bool cg_fold_index(LangCg *cg, LangNode *n, int64_t *out);

/* codegen_builtin.c */
CgVal cg_builtin(LangCg *cg, LangNode *node);
IsaOperand cg_lane_id(LangCg *cg); /* thread_index_in_simdgroup, 32-bit */

/* codegen_int64.c: the integer functions (clz ... madsat) on one long/ulong component */
IsaOperand cg_int64_fn(LangCg *cg, LangBuiltin b, LangType *s, IsaOperand *x, LangNode *node);
/* simd_product and quad_product (prefix < 0) and the prefix products (prefix 1 inclusive,
 * 0 exclusive) of one 64-bit component, over the active lanes */
IsaOperand cg_product64(LangCg *cg, bool quad, int prefix, IsaOperand v);

/* codegen_matrix.c: simdgroup matrix construction, load, store and multiply */
CgVal cg_matrix_builtin(LangCg *cg, LangNode *node);
/* A matrix's two elements in this lane as a vec<T, 2> value, and back (thread_elements()). */
CgVal cg_matrix_elements(LangCg *cg, IsaOperand matrix, LangType *vec2);
IsaOperand cg_matrix_of_elements(LangCg *cg, CgVal elements);
/* The row and first column of an 8x8 matrix this lane holds (isa_matrix_row/col). */
void cg_matrix_lane_coords(LangCg *cg, IsaOperand *row, IsaOperand *col);
/* A float or half value as the f32 a matrix register holds. */
IsaOperand cg_matrix_f32(LangCg *cg, IsaOperand v, const LangType *elem);

/* codegen_linalg.c: the matrix types' operators and functions, and their one-argument
 * constructors (a diagonal from a scalar, a conversion from a matrix of the same size) */
CgVal cg_linalg_builtin(LangCg *cg, LangNode *node);
CgVal cg_matrix_type_construct(LangCg *cg, LangNode *node);

/* codegen_tensor.c: Metal 4 tensor operations (slices, matmul2d's run, cooperative tensors) */
CgVal cg_tensor_builtin(LangCg *cg, LangNode *node);

#endif
