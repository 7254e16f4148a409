/*
 * isa.h — the public face of the ISA module: opcodes and their properties (generated from
 * isa_table.h), the pre-decoded instruction form the simulator executes, and IsaProgram,
 * the unit that both the assembler and the kernel-language compiler produce.
 *
 * Instructions are decoded once, when a program is built, into fixed-size IsaInst records;
 * the simulator never parses text or bits at run time. Debug info (pc -> source location,
 * variable -> register ranges) lives beside the code so tools can show source and values.
 */
#ifndef LOCKSTEP_ISA_H
#define LOCKSTEP_ISA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/util.h"
#include "isa_table.h"

/* ---- opcodes ------------------------------------------------------------------------------ */

typedef enum IsaOpcode {
#define ISA_ENUM_(id, name, operands, mods, cls, size, sem) ISA_OP_##id,
    ISA_OPS(ISA_ENUM_)
#undef ISA_ENUM_
    ISA_OP_COUNT
} IsaOpcode;

/* Op classes: the pipes and latency groups of the timing model (issue: timing). */
typedef enum IsaClass {
    ISA_CLASS_FP32,
    ISA_CLASS_FP16,
    ISA_CLASS_INT,
    ISA_CLASS_INT_COMPLEX,
    ISA_CLASS_SFU,
    ISA_CLASS_CONVERT,
    ISA_CLASS_MOVE,
    ISA_CLASS_CONTROL,
    ISA_CLASS_SIMD,
    ISA_CLASS_SIMD_REDUCE,
    ISA_CLASS_MATRIX,     /* SIMD-group matrix multiply-accumulate; issues on the fp32 pipe */
    ISA_CLASS_TENSOR,     /* tensor-op multiply-accumulate: the neural accelerator where a GPU
                           * has one, else the fp32 pipe (docs/timing.md) */
    ISA_CLASS_MEM_DEVICE,
    ISA_CLASS_MEM_CONST,
    ISA_CLASS_MEM_TG,
    ISA_CLASS_MEM_STACK,
    ISA_CLASS_ATOMIC,
    ISA_CLASS_BARRIER,
    ISA_CLASS_COUNT
} IsaClass;

/* Which dotted suffixes a mnemonic takes (the `modifiers` column). */
enum {
    ISA_MOD_SAT = 1 << 0,    /* .sat: clamp the float result to [0, 1] */
    ISA_MOD_SRC = 1 << 1,    /* float sources may be written -a, |a|, -|a| */
    ISA_MOD_ICOND = 1 << 2,  /* required integer condition: .eq .ne .ult .ule .ugt .uge .slt .sle .sgt .sge */
    ISA_MOD_FCOND = 1 << 3,  /* required float condition: .eq .ne .lt .le .gt .ge */
    ISA_MOD_CVT = 1 << 4,    /* .DSTTYPE.SRCTYPE[.rte|.rtz] */
    ISA_MOD_MEM = 1 << 5,    /* .FORMAT[.x2|.x3|.x4] */
    ISA_MOD_ATOM = 1 << 6,   /* .OP.TYPE: add sub xchg min max and or xor; i32 u32 f32 */
    ISA_MOD_ATYPE = 1 << 7,  /* .TYPE: i32 u32 */
    ISA_MOD_BAR = 1 << 8,    /* zero or more of .dev .tg .tex, or .none */
    ISA_MOD_RED = 1 << 9,    /* .OP.TYPE: sum product min max and or xor; i32 u32 f32 f16 */
    ISA_MOD_PREFIX = 1 << 10 /* .incl|.excl .OP.TYPE: sum product; i32 u32 f32 f16 */
};

/* Operand letters of the `operands` column:
 *   D  32-bit destination register rN          H  16-bit destination half rNl / rNh
 *   P  64-bit destination pair rN (rN, rN+1)   x  destination whose width follows the type
 *   s  32-bit source: rN, uN or an immediate   h  16-bit source: rNl/rNh, uN (low half), immediate
 *   p  64-bit source: pair rN, pair uN, immediate
 *   y  source whose width follows the type     b  64-bit base address: pair rN or pair uN
 *   a  32-bit byte address (threadgroup/stack): rN, uN or immediate
 *   m  memory data registers (first of .xN consecutive; a half for f16 formats)
 *   n  exec count 0..3      k  wait slot 0..1      l  label      r  special register name
 *   g  SIMD-groups of an execution scope, 1..32 */

typedef struct IsaOpInfo {
    const char *name;
    const char *operands;
    uint32_t modifiers;
    IsaClass op_class;
    uint8_t size;
    const char *semantics;
} IsaOpInfo;

extern const IsaOpInfo isa_ops[ISA_OP_COUNT];
const char *isa_class_name(IsaClass c);
/* A matrix multiply-accumulate (mma32, mma16, tmma): every lane's result reads other lanes. */
static inline bool isa_is_mma(uint16_t op)
{
    return isa_ops[op].op_class == ISA_CLASS_MATRIX || isa_ops[op].op_class == ISA_CLASS_TENSOR;
}
/* Returns ISA_OP_COUNT when no op has that mnemonic. */
IsaOpcode isa_lookup_op(const char *mnemonic, size_t len);

/* ---- modifier values ---------------------------------------------------------------------- */

typedef enum IsaCond {
    ISA_COND_EQ, ISA_COND_NE,
    ISA_COND_ULT, ISA_COND_ULE, ISA_COND_UGT, ISA_COND_UGE,   /* integer, unsigned */
    ISA_COND_SLT, ISA_COND_SLE, ISA_COND_SGT, ISA_COND_SGE,   /* integer, signed */
    ISA_COND_LT, ISA_COND_LE, ISA_COND_GT, ISA_COND_GE,       /* float, ordered (false on NaN) */
    ISA_COND_COUNT
} IsaCond;
/* float .eq is ordered; float .ne is unordered (true on NaN), as in C. */

/* Scalar element types: conversion types, atomic and reduction types, memory formats.
 * bf16 (bfloat16: f32's sign and exponent, 7 fraction bits) is a conversion type only: it
 * lives in register halves, and arithmetic converts it to f32 and back. */
typedef enum IsaType {
    ISA_TYPE_U8, ISA_TYPE_S8, ISA_TYPE_U16, ISA_TYPE_S16, ISA_TYPE_U32, ISA_TYPE_S32,
    ISA_TYPE_U64, ISA_TYPE_S64, ISA_TYPE_F16, ISA_TYPE_F32, ISA_TYPE_BF16,
    ISA_TYPE_COUNT
} IsaType;

typedef enum IsaRound { ISA_ROUND_DEFAULT, ISA_ROUND_RTE, ISA_ROUND_RTZ } IsaRound;

/* Memory formats: how many bytes an element has and how it lands in registers. */
typedef enum IsaMemFormat {
    ISA_FMT_U8,  /* byte, zero-extended into a 32-bit register */
    ISA_FMT_S8,  /* byte, sign-extended */
    ISA_FMT_U16, /* 16 bits, zero-extended into a 32-bit register */
    ISA_FMT_S16, /* 16 bits, sign-extended */
    ISA_FMT_H16, /* 16 bits into a register half (half, short in a half) */
    ISA_FMT_B32, /* 32 bits */
    ISA_FMT_COUNT
} IsaMemFormat;

typedef enum IsaAtomicOp {
    ISA_ATOM_ADD, ISA_ATOM_SUB, ISA_ATOM_XCHG, ISA_ATOM_MIN, ISA_ATOM_MAX,
    ISA_ATOM_AND, ISA_ATOM_OR, ISA_ATOM_XOR, ISA_ATOM_COUNT
} IsaAtomicOp;

typedef enum IsaReduceOp {
    ISA_RED_SUM, ISA_RED_PRODUCT, ISA_RED_MIN, ISA_RED_MAX, ISA_RED_AND, ISA_RED_OR,
    ISA_RED_XOR, ISA_RED_COUNT
} IsaReduceOp;

/* mem_flags of a barrier; 0 is mem_none (execution ordering only). */
enum { ISA_MEM_DEVICE = 1, ISA_MEM_THREADGROUP = 2, ISA_MEM_TEXTURE = 4 };

/* Special registers readable by get_sr: every position/index value of MSL spec Table 11,
 * the quad-group values, and the Apple extras. SR(ID, assembler name) */
#define ISA_SPECIAL_REGS(SR) \
    SR(THREAD_POSITION_IN_GRID_X, "thread_position_in_grid.x") \
    SR(THREAD_POSITION_IN_GRID_Y, "thread_position_in_grid.y") \
    SR(THREAD_POSITION_IN_GRID_Z, "thread_position_in_grid.z") \
    SR(THREAD_POSITION_IN_THREADGROUP_X, "thread_position_in_threadgroup.x") \
    SR(THREAD_POSITION_IN_THREADGROUP_Y, "thread_position_in_threadgroup.y") \
    SR(THREAD_POSITION_IN_THREADGROUP_Z, "thread_position_in_threadgroup.z") \
    SR(THREADGROUP_POSITION_IN_GRID_X, "threadgroup_position_in_grid.x") \
    SR(THREADGROUP_POSITION_IN_GRID_Y, "threadgroup_position_in_grid.y") \
    SR(THREADGROUP_POSITION_IN_GRID_Z, "threadgroup_position_in_grid.z") \
    SR(THREADS_PER_GRID_X, "threads_per_grid.x") \
    SR(THREADS_PER_GRID_Y, "threads_per_grid.y") \
    SR(THREADS_PER_GRID_Z, "threads_per_grid.z") \
    SR(THREADS_PER_THREADGROUP_X, "threads_per_threadgroup.x") \
    SR(THREADS_PER_THREADGROUP_Y, "threads_per_threadgroup.y") \
    SR(THREADS_PER_THREADGROUP_Z, "threads_per_threadgroup.z") \
    SR(DISPATCH_THREADS_PER_THREADGROUP_X, "dispatch_threads_per_threadgroup.x") \
    SR(DISPATCH_THREADS_PER_THREADGROUP_Y, "dispatch_threads_per_threadgroup.y") \
    SR(DISPATCH_THREADS_PER_THREADGROUP_Z, "dispatch_threads_per_threadgroup.z") \
    SR(THREADGROUPS_PER_GRID_X, "threadgroups_per_grid.x") \
    SR(THREADGROUPS_PER_GRID_Y, "threadgroups_per_grid.y") \
    SR(THREADGROUPS_PER_GRID_Z, "threadgroups_per_grid.z") \
    SR(THREAD_INDEX_IN_THREADGROUP, "thread_index_in_threadgroup") \
    SR(THREAD_EXECUTION_WIDTH, "thread_execution_width") \
    SR(THREADS_PER_SIMDGROUP, "threads_per_simdgroup") \
    SR(THREAD_INDEX_IN_SIMDGROUP, "thread_index_in_simdgroup") \
    SR(SIMDGROUP_INDEX_IN_THREADGROUP, "simdgroup_index_in_threadgroup") \
    SR(SIMDGROUPS_PER_THREADGROUP, "simdgroups_per_threadgroup") \
    SR(DISPATCH_SIMDGROUPS_PER_THREADGROUP, "dispatch_simdgroups_per_threadgroup") \
    SR(THREAD_INDEX_IN_QUADGROUP, "thread_index_in_quadgroup") \
    SR(QUADGROUP_INDEX_IN_THREADGROUP, "quadgroup_index_in_threadgroup") \
    SR(QUADGROUPS_PER_THREADGROUP, "quadgroups_per_threadgroup") \
    SR(DISPATCH_QUADGROUPS_PER_THREADGROUP, "dispatch_quadgroups_per_threadgroup") \
    SR(ACTIVE_THREAD_INDEX_IN_SIMDGROUP, "active_thread_index_in_simdgroup") \
    SR(CORE_INDEX, "core_index")

typedef enum IsaSpecialReg {
#define ISA_SR_ENUM_(id, name) ISA_SR_##id,
    ISA_SPECIAL_REGS(ISA_SR_ENUM_)
#undef ISA_SR_ENUM_
    ISA_SR_COUNT
} IsaSpecialReg;

extern const char *const isa_sr_names[ISA_SR_COUNT];
extern const char *const isa_cond_names[ISA_COND_COUNT];
extern const char *const isa_type_names[ISA_TYPE_COUNT];
extern const char *const isa_fmt_names[ISA_FMT_COUNT];
extern const char *const isa_atomic_names[ISA_ATOM_COUNT];
extern const char *const isa_reduce_names[ISA_RED_COUNT];
/* Bytes per element of a memory format (inline: every memory instruction asks). */
static inline unsigned isa_fmt_size(IsaMemFormat f)
{
    switch (f) {
    case ISA_FMT_U8: case ISA_FMT_S8: return 1;
    case ISA_FMT_U16: case ISA_FMT_S16: case ISA_FMT_H16: return 2;
    default: return 4;
    }
}
/* Bytes of a scalar type. */
unsigned isa_type_size(IsaType t);

/* The 8x8 matrix layout of mma32/mma16 (docs/ISA.md, "Matrices"): the row lane l (bits
 * b4..b0) holds, and the first of its two columns. */
static inline uint32_t isa_matrix_row(uint32_t l) { return ((l >> 2) & 4) | ((l >> 1) & 3); }
static inline uint32_t isa_matrix_col(uint32_t l) { return ((l >> 1) & 4) | ((l << 1) & 2); }

/* ---- decoded instructions ----------------------------------------------------------------- */

typedef enum IsaOperandKind {
    ISA_OPD_NONE,
    ISA_OPD_R32,   /* index = register number */
    ISA_OPD_R16,   /* index = register number * 2 + half (0 = low, 1 = high) */
    ISA_OPD_R64,   /* index = first register of the pair */
    ISA_OPD_U32,   /* index = uniform number */
    ISA_OPD_U16,   /* index = uniform number; its low half */
    ISA_OPD_U64,   /* index = first uniform of the pair */
    ISA_OPD_IMM,   /* imm; 64-bit immediates use imm fully */
    ISA_OPD_LABEL, /* index = target instruction index; imm = target pc */
    ISA_OPD_SR,    /* index = IsaSpecialReg */
    ISA_OPD_NUM    /* imm = small number: exec count, wait slot */
} IsaOperandKind;

enum { ISA_OPD_NEG = 1, ISA_OPD_ABS = 2 };

typedef struct IsaOperand {
    uint8_t kind;   /* IsaOperandKind */
    uint8_t flags;  /* ISA_OPD_NEG | ISA_OPD_ABS, float sources only */
    uint16_t index;
    uint32_t reserved;
    uint64_t imm;
} IsaOperand;

#define ISA_MAX_OPERANDS 5

/* One instruction, decoded. Which modifier fields matter depends on the op's modifiers. */
typedef struct IsaInst {
    uint16_t op;       /* IsaOpcode */
    uint8_t cond;      /* IsaCond, IsaAtomicOp or IsaReduceOp */
    uint8_t type;      /* IsaType: conversion destination, atomic/reduction type; IsaMemFormat */
    uint8_t src_type;  /* IsaType: conversion source */
    uint8_t round;     /* IsaRound */
    uint8_t count;     /* memory: elements (1..4); prefix: 1 inclusive, 0 exclusive */
    uint8_t flags;     /* .sat (bit 0); barrier mem flags */
    uint32_t pc;       /* byte address of this instruction */
    IsaOperand opd[ISA_MAX_OPERANDS]; /* in assembler order; destination first */
} IsaInst;

enum { ISA_INST_SAT = 1 };

/* ---- programs ----------------------------------------------------------------------------- */

typedef enum IsaArgKind {
    ISA_ARG_DEVICE,      /* device pointer: a buffer; its 64-bit address in uniforms u, u+1 */
    ISA_ARG_CONSTANT,    /* constant pointer or reference: a read-only buffer, address in u, u+1 */
    ISA_ARG_THREADGROUP, /* threadgroup pointer: the byte offset of its block in uniform u */
    ISA_ARG_COUNT
} IsaArgKind;

/* A kernel argument. Assembly kernels leave elem_type unknown (the manifest's `type:` gives
 * it); the compiler fills it from the kernel signature. */
typedef struct IsaArg {
    char *name;
    IsaArgKind kind;
    uint16_t uniform;     /* first uniform register it is bound to */
    int binding;          /* [[buffer(n)]] / [[threadgroup(n)]]; -1 when not given */
    char *type_name;      /* element type as written ("float", "half4", "Params"), or NULL */
    uint32_t elem_size;   /* bytes per element; 0 when unknown */
    bool is_const;        /* a `const` pointee: writes are a finding */
    uint8_t tensor_rank;  /* a tensor (rank 2): its extents in u+2, u+3 (columns, rows) and
                           * its row pitch in elements in u+4; 0: a plain buffer */
    uint8_t texture;      /* a texture of 1 or 2 dimensions, its texels a buffer of
                           * type_name: its width, height and row pitch in texels in u+2..u+4
                           * (as a tensor's); 0: not a texture */
} IsaArg;

/* A uniform register with a value known when the program is built (.uniform directive). */
typedef struct IsaUniformInit {
    uint16_t uniform;
    uint32_t value;
} IsaUniformInit;

/* Source location of one instruction; file indexes IsaProgram.files. line 0 = unknown.
 * Code inlined from a helper function carries the call it came from: call is 1 + an index
 * into IsaProgram.calls (0: the kernel's own code). */
typedef struct IsaSourceLoc {
    uint16_t file;
    uint32_t line;
    uint16_t col;
    uint32_t call;
} IsaSourceLoc;

/* A call of a helper function that the compiler inlined: the function's name and where the
 * call is (its loc.call: the call it sits in, when helpers call helpers). */
typedef struct IsaCallSite {
    char *func;
    IsaSourceLoc loc;
} IsaCallSite;

/* Where a source variable lives over a pc range [pc_begin, pc_end): register (or a pair of
 * halves) and type, so tools can print `acc` per lane. Filled by the compiler. */
typedef struct IsaVarLoc {
    char *name;
    char *type_name;
    uint32_t pc_begin, pc_end;
    IsaOperandKind kind; /* ISA_OPD_R32, R16, R64 */
    uint16_t index;
} IsaVarLoc;

/* A variable (or a part of one: `p.b`, `v.y`) the compiler removed every instruction of as
 * dead code: no register holds it anywhere, and the debugger prints it as optimized out
 * (gdb's <optimized out>) rather than a register that holds something else. */
typedef struct IsaGoneVar {
    char *name;
    char *type_name;
} IsaGoneVar;

/* A named block of threadgroup or thread memory (a `threadgroup float shared[256]` in a
 * kernel body), so checkers can say `shared[10]` rather than a byte offset; or of the
 * program's constant data (a program-scope `constant float tab[4] = {...}`: ISA_SYM_CONSTANT),
 * whose address the launch writes into the uniform pair `uniform`. */
/* Constant data a program may hold, in all (the assembler's and the compiler's limit). */
#define ISA_MAX_DATA_BYTES (64u << 20)

typedef enum IsaSymbolSpace { ISA_SYM_THREADGROUP, ISA_SYM_THREAD, ISA_SYM_CONSTANT } IsaSymbolSpace;

typedef struct IsaSymbol {
    char *name;
    char *type_name;        /* element type as written ("float"), or NULL */
    IsaSymbolSpace space;
    uint32_t offset;        /* bytes from the start of static threadgroup (or stack) memory,
                             * or of the constant data */
    uint32_t size;          /* bytes */
    uint32_t elem_size;     /* bytes per element, for indices */
    bool array;             /* named with an index (`shared[10]`); else alone (`total`) */
    uint32_t dims[3];       /* an array of 2 to 4 dimensions: the extents after the first,
                             * outermost first, 0 past the last (`float t[2][3][4]`: 3, 4,
                             * named `t[1][0][2]`); all 0 otherwise (named by flat index) */
    /* Thread memory: the instructions [live_begin, live_end) of the local's scope, from its
     * declaration. Locals of disjoint scopes may share bytes, so outside it they may be
     * another's; each time a lane reaches live_begin the bytes are the new local's, never
     * written. Both 0: the whole kernel. The compiler puts no branch target at live_begin. */
    uint32_t live_begin, live_end;
    uint16_t uniform;       /* ISA_SYM_CONSTANT: its address is in uniform, uniform + 1 */
} IsaSymbol;

/* A variable declared without a value: from instruction `index` on (before it runs), the
 * register (or register pair) `reg` holds nothing defined in the lanes active there, until
 * the kernel assigns the variable. Filled by the compiler for checkers (check/regdef.c); the
 * declaration itself emits no instruction. */
typedef struct IsaUndef {
    uint32_t index;         /* instruction index (== count: at the very end) */
    IsaOperand reg;         /* ISA_OPD_R16, R32 or R64 */
    IsaSourceLoc loc;       /* the declaration */
    char *name;             /* the variable (a vector or struct member: "v.y", "s[1]") */
    char *type_name;        /* its scalar type as written ("float"), or "?" */
} IsaUndef;

/* An instruction that is part of a call of an MSL function compiled to several (a
 * shuffle-and-fill: its shuffles, and the instruction that reads its modulo), so that the
 * checkers name the function the kernel called, not the instruction, and check the modulo.
 * Filled by the compiler, in instruction order. */
typedef struct IsaFnPart {
    uint32_t index;         /* instruction index */
    uint8_t modulo_opd;     /* the operand that holds the call's modulo, or 0 */
    uint8_t width;          /* with modulo_opd: the lanes it may cut (32, or 4 for a quad) */
    char *func;             /* "quad_shuffle_and_fill_up" */
} IsaFnPart;

typedef struct IsaProgram {
    char *name;             /* kernel entry name */
    IsaInst *code;
    uint32_t count;         /* instructions */
    uint32_t code_bytes;    /* sum of sizes: the pc past the end */
    uint32_t num_regs;      /* GPRs r0..r(num_regs-1) the kernel uses */
    uint32_t tg_mem_bytes;  /* static threadgroup memory */
    uint32_t stack_bytes;   /* thread (stack) memory per lane */
    IsaArg *args;
    uint32_t num_args;
    IsaUniformInit *uniform_inits;
    uint32_t num_uniform_inits;
    /* Constant data (program-scope constant arrays): data_bytes bytes, which a launch binds
     * as one read-only buffer (sim_add_program_data); its blocks are the ISA_SYM_CONSTANT
     * symbols, each with the uniform pair its address goes into. NULL when none. */
    uint8_t *data;
    uint32_t data_bytes;
    /* debug info */
    char **files;           /* source file names; files[0] is the kernel's own file */
    uint32_t num_files;
    IsaSourceLoc *locs;     /* one per instruction; may be NULL */
    IsaVarLoc *vars;
    uint32_t num_vars;
    IsaGoneVar *gone;       /* variables optimized out; may be empty */
    uint32_t num_gone;
    IsaSymbol *symbols;     /* named threadgroup/thread memory blocks and constant data
                             * blocks (these are not debug info: a launch needs them) */
    uint32_t num_symbols;
    IsaUndef *undefs;       /* declarations without a value, by index; may be empty */
    uint32_t num_undefs;
    IsaCallSite *calls;     /* inlined calls, for IsaSourceLoc.call; may be empty */
    uint32_t num_calls;
    IsaFnPart *parts;       /* may be empty */
    uint32_t num_parts;
} IsaProgram;

IsaProgram *isa_program_new(void);
void isa_program_free(IsaProgram *p);
/* Appends an instruction; pcs are assigned by isa_program_finish. */
IsaInst *isa_program_emit(IsaProgram *p, const IsaInst *inst, IsaSourceLoc loc);
/* Assigns pcs from sizes, resolves label operands' pcs, checks register counts and operand
 * kinds against the table. Returns false with err on an inconsistent program. */
bool isa_program_finish(IsaProgram *p, UtilError *err);
/* Index of the instruction at byte address pc, or -1. */
int64_t isa_program_index_of_pc(const IsaProgram *p, uint32_t pc);
/* Where inlined code came from, for messages: " (in stage, called at line 16)", and for a
 * helper called from a helper " (in inner, called at line 9 in outer, called at line 20)";
 * a call in another file than the line before it is named "file:line". Writes "" for the
 * kernel's own code. Returns buf. */
const char *isa_call_text(const IsaProgram *p, const IsaSourceLoc *loc, char *buf, size_t size);
/* The call a loc's code was inlined from (loc->call), or NULL for the kernel's own code (or a
 * call index past the table). */
static inline const IsaCallSite *isa_call_of(const IsaProgram *p, const IsaSourceLoc *loc)
{
    return loc && loc->call && loc->call <= p->num_calls ? &p->calls[loc->call - 1] : NULL;
}
/* Same source place: file, line, column and the call it was inlined from. */
static inline bool isa_same_loc(const IsaSourceLoc *a, const IsaSourceLoc *b)
{
    return a->file == b->file && a->line == b->line && a->col == b->col && a->call == b->call;
}

/* ---- text ---------------------------------------------------------------------------------- */

/* Assembles `text` (named `filename` in messages). On error returns NULL with
 * err = "file:line:col: error: ...". */
IsaProgram *isa_assemble(const char *text, const char *filename, UtilError *err);
/* Writes the assembly text of one instruction (no newline) into buf; returns its length. */
size_t isa_format_inst(const IsaProgram *p, const IsaInst *inst, char *buf, size_t size);
/* The whole program as assembly that isa_assemble accepts back (directives, labels, code).
 * When with_source is set and the program has debug info, source lines are added as comments.
 * Returns a newly allocated string. */
char *isa_disassemble(const IsaProgram *p, bool with_source);
/* docs/ISA.md, generated from the table. Newly allocated. */
char *isa_docs_markdown(void);

#endif
