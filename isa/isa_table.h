/*
 * isa_table.h — the only list of lockstep's instructions.
 *
 * Every other view of the ISA (the opcode enum, mnemonics, the assembler's operand parsing,
 * the disassembler, op classes for timing, encoded sizes and docs/ISA.md) is generated from
 * this one X-macro, so adding an instruction is one line here plus its semantics in sim/.
 *
 * OP(ID, mnemonic, operands, modifiers, class, size, semantics)
 *   operands   one letter per operand, comma separated (see isa.h, "operand letters")
 *   modifiers  ISA_MOD_* bits: which dotted suffixes the mnemonic takes
 *   class      ISA_CLASS_*: the pipe and latency group the timing model charges
 *   size       encoded size in bytes; pc is a byte address, as on Apple GPUs (2-12 bytes)
 *   semantics  one line for docs/ISA.md; `a b c e` are the sources in order, `d` the destination
 */
#ifndef LOCKSTEP_ISA_TABLE_H
#define LOCKSTEP_ISA_TABLE_H

#define ISA_OPS(OP) \
    /* ---- 32-bit float ------------------------------------------------------------------ */ \
    OP(FADD32,   "fadd32",   "D,s,s",   ISA_MOD_SAT | ISA_MOD_SRC, ISA_CLASS_FP32, 6, "d = a + b (f32)") \
    OP(FMUL32,   "fmul32",   "D,s,s",   ISA_MOD_SAT | ISA_MOD_SRC, ISA_CLASS_FP32, 6, "d = a * b (f32)") \
    OP(FFMA32,   "ffma32",   "D,s,s,s", ISA_MOD_SAT | ISA_MOD_SRC, ISA_CLASS_FP32, 8, "d = a * b + c, rounded once (f32)") \
    OP(FMIN32,   "fmin32",   "D,s,s",   ISA_MOD_SRC, ISA_CLASS_FP32, 6, "d = min(a, b); a NaN operand yields the other (f32)") \
    OP(FMAX32,   "fmax32",   "D,s,s",   ISA_MOD_SRC, ISA_CLASS_FP32, 6, "d = max(a, b); a NaN operand yields the other (f32)") \
    OP(FMOV32,   "fmov32",   "D,s",     ISA_MOD_SAT | ISA_MOD_SRC, ISA_CLASS_FP32, 4, "d = a with its abs/neg/saturate modifiers applied (f32)") \
    /* ---- 16-bit float (register halves) ------------------------------------------------ */ \
    OP(FADD16,   "fadd16",   "H,h,h",   ISA_MOD_SAT | ISA_MOD_SRC, ISA_CLASS_FP16, 6, "d = a + b, rounded to binary16") \
    OP(FMUL16,   "fmul16",   "H,h,h",   ISA_MOD_SAT | ISA_MOD_SRC, ISA_CLASS_FP16, 6, "d = a * b, rounded to binary16") \
    OP(FFMA16,   "ffma16",   "H,h,h,h", ISA_MOD_SAT | ISA_MOD_SRC, ISA_CLASS_FP16, 8, "d = a * b + c, rounded once to binary16") \
    OP(FMIN16,   "fmin16",   "H,h,h",   ISA_MOD_SRC, ISA_CLASS_FP16, 6, "d = min(a, b); a NaN operand yields the other (f16)") \
    OP(FMAX16,   "fmax16",   "H,h,h",   ISA_MOD_SRC, ISA_CLASS_FP16, 6, "d = max(a, b); a NaN operand yields the other (f16)") \
    OP(FMOV16,   "fmov16",   "H,h",     ISA_MOD_SAT | ISA_MOD_SRC, ISA_CLASS_FP16, 4, "d = a with its abs/neg/saturate modifiers applied (f16)") \
    /* ---- float rounding and division --------------------------------------------------- */ \
    OP(FLOOR32,  "floor32",  "D,s",     ISA_MOD_SRC, ISA_CLASS_CONVERT, 4, "d = floor(a) (f32)") \
    OP(CEIL32,   "ceil32",   "D,s",     ISA_MOD_SRC, ISA_CLASS_CONVERT, 4, "d = ceil(a) (f32)") \
    OP(TRUNC32,  "trunc32",  "D,s",     ISA_MOD_SRC, ISA_CLASS_CONVERT, 4, "d = a rounded toward zero (f32)") \
    OP(RINT32,   "rint32",   "D,s",     ISA_MOD_SRC, ISA_CLASS_CONVERT, 4, "d = a rounded to nearest, ties to even (f32)") \
    OP(FLOOR16,  "floor16",  "H,h",     ISA_MOD_SRC, ISA_CLASS_CONVERT, 4, "d = floor(a) (f16)") \
    OP(CEIL16,   "ceil16",   "H,h",     ISA_MOD_SRC, ISA_CLASS_CONVERT, 4, "d = ceil(a) (f16)") \
    OP(TRUNC16,  "trunc16",  "H,h",     ISA_MOD_SRC, ISA_CLASS_CONVERT, 4, "d = a rounded toward zero (f16)") \
    OP(RINT16,   "rint16",   "H,h",     ISA_MOD_SRC, ISA_CLASS_CONVERT, 4, "d = a rounded to nearest, ties to even (f16)") \
    OP(FDIV32,   "fdiv32",   "D,s,s",   ISA_MOD_SRC, ISA_CLASS_SFU, 8, "d = a / b, correctly rounded (f32)") \
    OP(FDIV16,   "fdiv16",   "H,h,h",   ISA_MOD_SRC, ISA_CLASS_SFU, 8, "d = a / b, correctly rounded (f16)") \
    /* ---- special functions (f32) ------------------------------------------------------- */ \
    OP(RCP32,    "rcp32",    "D,s",     ISA_MOD_SRC, ISA_CLASS_SFU, 4, "d = 1 / a") \
    OP(RSQRT32,  "rsqrt32",  "D,s",     ISA_MOD_SRC, ISA_CLASS_SFU, 4, "d = 1 / sqrt(a)") \
    OP(SQRT32,   "sqrt32",   "D,s",     ISA_MOD_SRC, ISA_CLASS_SFU, 4, "d = sqrt(a), correctly rounded") \
    OP(EXP232,   "exp232",   "D,s",     ISA_MOD_SRC, ISA_CLASS_SFU, 4, "d = 2 ** a") \
    OP(LOG232,   "log232",   "D,s",     ISA_MOD_SRC, ISA_CLASS_SFU, 4, "d = log2(a)") \
    OP(SIN32,    "sin32",    "D,s",     ISA_MOD_SRC, ISA_CLASS_SFU, 4, "d = sin(a), a in radians") \
    OP(COS32,    "cos32",    "D,s",     ISA_MOD_SRC, ISA_CLASS_SFU, 4, "d = cos(a), a in radians") \
    /* ---- 32-bit integer ---------------------------------------------------------------- */ \
    OP(IADD,     "iadd",     "D,s,s",   0, ISA_CLASS_INT, 6, "d = a + b, wrapping") \
    OP(ISUB,     "isub",     "D,s,s",   0, ISA_CLASS_INT, 6, "d = a - b, wrapping") \
    OP(IMUL,     "imul",     "D,s,s",   0, ISA_CLASS_INT_COMPLEX, 6, "d = low 32 bits of a * b") \
    OP(IMAD,     "imad",     "D,s,s,s", 0, ISA_CLASS_INT_COMPLEX, 8, "d = low 32 bits of a * b + c") \
    OP(UMULHI,   "umulhi",   "D,s,s",   0, ISA_CLASS_INT_COMPLEX, 6, "d = high 32 bits of unsigned a * b") \
    OP(SMULHI,   "smulhi",   "D,s,s",   0, ISA_CLASS_INT_COMPLEX, 6, "d = high 32 bits of signed a * b") \
    OP(UDIV,     "udiv",     "D,s,s",   0, ISA_CLASS_INT_COMPLEX, 6, "d = a / b unsigned; 0xffffffff when b == 0") \
    OP(SDIV,     "sdiv",     "D,s,s",   0, ISA_CLASS_INT_COMPLEX, 6, "d = a / b signed, toward zero; -1 when b == 0; INT_MIN / -1 = INT_MIN") \
    OP(UREM,     "urem",     "D,s,s",   0, ISA_CLASS_INT_COMPLEX, 6, "d = a % b unsigned; a when b == 0") \
    OP(SREM,     "srem",     "D,s,s",   0, ISA_CLASS_INT_COMPLEX, 6, "d = a % b signed, sign of a; a when b == 0") \
    OP(SHL,      "shl",      "D,s,s",   0, ISA_CLASS_INT, 6, "d = a << (b & 31)") \
    OP(LSR,      "lsr",      "D,s,s",   0, ISA_CLASS_INT, 6, "d = a >> (b & 31), logical") \
    OP(ASR,      "asr",      "D,s,s",   0, ISA_CLASS_INT, 6, "d = a >> (b & 31), arithmetic") \
    OP(AND,      "and",      "D,s,s",   0, ISA_CLASS_INT, 6, "d = a & b") \
    OP(OR,       "or",       "D,s,s",   0, ISA_CLASS_INT, 6, "d = a | b") \
    OP(XOR,      "xor",      "D,s,s",   0, ISA_CLASS_INT, 6, "d = a ^ b") \
    OP(NOT,      "not",      "D,s",     0, ISA_CLASS_INT, 4, "d = ~a") \
    OP(UBFE,     "ubfe",     "D,s,s,s", 0, ISA_CLASS_INT_COMPLEX, 8, "d = (a >> b) & mask(c bits), zero-extended; b, c clamped to 0..32") \
    OP(SBFE,     "sbfe",     "D,s,s,s", 0, ISA_CLASS_INT_COMPLEX, 8, "d = (a >> b) & mask(c bits), sign-extended; b, c clamped to 0..32") \
    OP(BFI,      "bfi",      "D,s,s,s,s", 0, ISA_CLASS_INT_COMPLEX, 8, "d = a with bits c .. c+e-1 replaced by the low e bits of b (MSL insert_bits)") \
    OP(POPCOUNT, "popcount", "D,s",     0, ISA_CLASS_INT, 4, "d = number of set bits of a") \
    OP(CLZ,      "clz",      "D,s",     0, ISA_CLASS_INT, 4, "d = leading zero bits of a; 32 when a == 0") \
    OP(FFS,      "ffs",      "D,s",     0, ISA_CLASS_INT, 4, "d = index of the lowest set bit of a; 32 when a == 0") \
    OP(BITREV,   "bitrev",   "D,s",     0, ISA_CLASS_INT, 4, "d = a with its 32 bits reversed") \
    /* ---- 64-bit integer (register pairs) ----------------------------------------------- */ \
    OP(IADD64,   "iadd64",   "P,p,p",   0, ISA_CLASS_INT, 8, "d = a + b, 64-bit wrapping") \
    OP(ISUB64,   "isub64",   "P,p,p",   0, ISA_CLASS_INT, 8, "d = a - b, 64-bit wrapping") \
    OP(IMUL64,   "imul64",   "P,p,p",   0, ISA_CLASS_INT_COMPLEX, 8, "d = low 64 bits of a * b") \
    OP(UMULHI64, "umulhi64", "P,p,p",   0, ISA_CLASS_INT_COMPLEX, 8, "d = high 64 bits of unsigned a * b") \
    OP(SMULHI64, "smulhi64", "P,p,p",   0, ISA_CLASS_INT_COMPLEX, 8, "d = high 64 bits of signed a * b") \
    OP(UDIV64,   "udiv64",   "P,p,p",   0, ISA_CLASS_INT_COMPLEX, 8, "d = a / b unsigned; all ones when b == 0") \
    OP(SDIV64,   "sdiv64",   "P,p,p",   0, ISA_CLASS_INT_COMPLEX, 8, "d = a / b signed, toward zero; -1 when b == 0; INT64_MIN / -1 = INT64_MIN") \
    OP(UREM64,   "urem64",   "P,p,p",   0, ISA_CLASS_INT_COMPLEX, 8, "d = a % b unsigned; a when b == 0") \
    OP(SREM64,   "srem64",   "P,p,p",   0, ISA_CLASS_INT_COMPLEX, 8, "d = a % b signed, sign of a; a when b == 0; INT64_MIN % -1 = 0") \
    OP(SHL64,    "shl64",    "P,p,s",   0, ISA_CLASS_INT, 8, "d = a << (b & 63); the amount is 32-bit") \
    OP(LSR64,    "lsr64",    "P,p,s",   0, ISA_CLASS_INT, 8, "d = a >> (b & 63), logical; the amount is 32-bit") \
    OP(ASR64,    "asr64",    "P,p,s",   0, ISA_CLASS_INT, 8, "d = a >> (b & 63), arithmetic; the amount is 32-bit") \
    OP(AND64,    "and64",    "P,p,p",   0, ISA_CLASS_INT, 8, "d = a & b (64-bit)") \
    OP(OR64,     "or64",     "P,p,p",   0, ISA_CLASS_INT, 8, "d = a | b (64-bit)") \
    OP(XOR64,    "xor64",    "P,p,p",   0, ISA_CLASS_INT, 8, "d = a ^ b (64-bit)") \
    OP(NOT64,    "not64",    "P,p",     0, ISA_CLASS_INT, 6, "d = ~a (64-bit)") \
    /* ---- compare and select ------------------------------------------------------------ */ \
    OP(ICMPSEL,  "icmpsel",  "D,s,s,s,s", ISA_MOD_ICOND, ISA_CLASS_INT, 10, "d = (a cond b) ? c : e (integer compare)") \
    OP(ICMPSEL64, "icmpsel64", "D,p,p,s,s", ISA_MOD_ICOND, ISA_CLASS_INT, 12, "d = (a cond b) ? c : e: 64-bit integer compare, 32-bit result") \
    OP(FCMPSEL32, "fcmpsel32", "D,s,s,s,s", ISA_MOD_FCOND, ISA_CLASS_FP32, 10, "d = (a cond b) ? c : e (f32 compare)") \
    OP(FCMPSEL16, "fcmpsel16", "H,h,h,h,h", ISA_MOD_FCOND, ISA_CLASS_FP16, 10, "d = (a cond b) ? c : e (f16 compare)") \
    /* ---- conversion -------------------------------------------------------------------- */ \
    OP(CVT,      "cvt",      "x,y",     ISA_MOD_CVT, ISA_CLASS_CONVERT, 6, "d = a converted from the second type to the first; float to int saturates, NaN -> 0") \
    /* ---- moves ------------------------------------------------------------------------- */ \
    OP(MOV,      "mov",      "D,s",     0, ISA_CLASS_MOVE, 6, "d = a (32 bits: register, uniform or immediate)") \
    OP(MOV16,    "mov16",    "H,h",     0, ISA_CLASS_MOVE, 4, "d = a (16 bits)") \
    OP(MOV64,    "mov64",    "P,p",     0, ISA_CLASS_MOVE, 8, "d = a (64 bits, register pairs)") \
    OP(GET_SR,   "get_sr",   "D,r",     0, ISA_CLASS_MOVE, 4, "d = special register (thread position, sizes, indices)") \
    /* ---- exec mask and control flow (apple-gpu-facts.md, exact) ------------------------ */ \
    OP(IF_ICMP,    "if_icmp",    "n,s,s", ISA_MOD_ICOND, ISA_CLASS_CONTROL, 6, "per lane: if D != 0: D += n; elif !(a cond b): D = 1") \
    OP(IF_FCMP,    "if_fcmp",    "n,s,s", ISA_MOD_FCOND, ISA_CLASS_CONTROL, 6, "per lane: if D != 0: D += n; elif !(a cond b): D = 1") \
    OP(ELSE_ICMP,  "else_icmp",  "n,s,s", ISA_MOD_ICOND, ISA_CLASS_CONTROL, 6, "per lane: if D == 0: D = n; elif D == 1: D = (a cond b) ? 0 : 1") \
    OP(ELSE_FCMP,  "else_fcmp",  "n,s,s", ISA_MOD_FCOND, ISA_CLASS_CONTROL, 6, "per lane: if D == 0: D = n; elif D == 1: D = (a cond b) ? 0 : 1") \
    OP(WHILE_ICMP, "while_icmp", "n,s,s", ISA_MOD_ICOND, ISA_CLASS_CONTROL, 6, "per lane: if D < n: D = (a cond b) ? 0 : n") \
    OP(WHILE_FCMP, "while_fcmp", "n,s,s", ISA_MOD_FCOND, ISA_CLASS_CONTROL, 6, "per lane: if D < n: D = (a cond b) ? 0 : n") \
    OP(PUSH_EXEC,  "push_exec",  "n",     0, ISA_CLASS_CONTROL, 4, "per lane: if D != 0: D += n (an if whose condition is always true)") \
    OP(POP_EXEC,   "pop_exec",   "n",     0, ISA_CLASS_CONTROL, 4, "per lane: D = max(D - n, 0)") \
    OP(JMP_EXEC_ANY,  "jmp_exec_any",  "l", 0, ISA_CLASS_CONTROL, 6, "if any lane is active: pc = label") \
    OP(JMP_EXEC_NONE, "jmp_exec_none", "l", 0, ISA_CLASS_CONTROL, 6, "if no lane is active: pc = label") \
    OP(JMP,        "jmp",        "l",     0, ISA_CLASS_CONTROL, 6, "pc = label") \
    OP(STOP,       "stop",       "",      0, ISA_CLASS_CONTROL, 2, "the SIMD-group ends") \
    OP(NOP,        "nop",        "",      0, ISA_CLASS_MOVE, 2, "nothing") \
    /* ---- memory ------------------------------------------------------------------------ */ \
    OP(LD_DEV,   "ld_dev",   "m,b,s,k", ISA_MOD_MEM, ISA_CLASS_MEM_DEVICE, 8, "d.. = device[a + b * size], asynchronous: completes into d by `wait k`") \
    OP(ST_DEV,   "st_dev",   "m,b,s",   ISA_MOD_MEM, ISA_CLASS_MEM_DEVICE, 8, "device[a + b * size] = d..") \
    OP(WAIT,     "wait",     "k",       0, ISA_CLASS_MEM_DEVICE, 2, "block until the device loads on slot k have completed") \
    OP(LD_CONST, "ld_const", "m,b,s",   ISA_MOD_MEM, ISA_CLASS_MEM_CONST, 8, "d.. = constant[a + b * size]") \
    OP(LD_TG,    "ld_tg",    "m,a,s",   ISA_MOD_MEM, ISA_CLASS_MEM_TG, 8, "d.. = threadgroup[a + b * size]") \
    OP(ST_TG,    "st_tg",    "m,a,s",   ISA_MOD_MEM, ISA_CLASS_MEM_TG, 8, "threadgroup[a + b * size] = d..") \
    OP(LD_STACK, "ld_stack", "m,a,s",   ISA_MOD_MEM, ISA_CLASS_MEM_STACK, 8, "d.. = thread[a + b * size] (this lane's stack)") \
    OP(ST_STACK, "st_stack", "m,a,s",   ISA_MOD_MEM, ISA_CLASS_MEM_STACK, 8, "thread[a + b * size] = d.. (this lane's stack)") \
    OP(ATOM_DEV, "atom_dev", "D,b,s,s", ISA_MOD_ATOM, ISA_CLASS_ATOMIC, 8, "d = device[a + b * 4]; device[a + b * 4] = d op c, atomically") \
    OP(CMPXCHG_DEV, "cmpxchg_dev", "D,b,s,s,s", ISA_MOD_ATYPE, ISA_CLASS_ATOMIC, 10, "d = device[a + b * 4]; if d == c: device[a + b * 4] = e, atomically") \
    OP(ATOM_TG,  "atom_tg",  "D,a,s,s", ISA_MOD_ATOM, ISA_CLASS_ATOMIC, 8, "d = threadgroup[a + b * 4]; threadgroup[a + b * 4] = d op c, atomically") \
    OP(CMPXCHG_TG, "cmpxchg_tg", "D,a,s,s,s", ISA_MOD_ATYPE, ISA_CLASS_ATOMIC, 10, "d = threadgroup[a + b * 4]; if d == c: threadgroup[a + b * 4] = e, atomically") \
    /* ---- barriers ---------------------------------------------------------------------- */ \
    OP(BARRIER,      "barrier",      "", ISA_MOD_BAR, ISA_CLASS_BARRIER, 4, "threadgroup_barrier(flags): every SIMD-group of the threadgroup arrives before any goes on") \
    OP(SIMD_BARRIER, "simd_barrier", "", ISA_MOD_BAR, ISA_CLASS_BARRIER, 4, "simdgroup_barrier(flags): orders this SIMD-group's memory accesses") \
    /* ---- SIMD-group and quad functions ------------------------------------------------- */ \
    OP(ICMP_BALLOT, "icmp_ballot", "D,s,s", ISA_MOD_ICOND, ISA_CLASS_SIMD, 6, "d = mask of the active lanes where (a cond b)") \
    OP(FCMP_BALLOT, "fcmp_ballot", "D,s,s", ISA_MOD_FCOND, ISA_CLASS_SIMD, 6, "d = mask of the active lanes where (a cond b), f32") \
    OP(SHFL,      "shfl",      "D,s,s", 0, ISA_CLASS_SIMD, 6, "d = a of lane (b & 31)") \
    OP(SHFL_UP,   "shfl_up",   "D,s,s", 0, ISA_CLASS_SIMD, 6, "d = a of lane - b; unchanged own a when that is below 0") \
    OP(SHFL_DOWN, "shfl_down", "D,s,s", 0, ISA_CLASS_SIMD, 6, "d = a of lane + b; unchanged own a when that is past 31") \
    OP(SHFL_XOR,  "shfl_xor",  "D,s,s", 0, ISA_CLASS_SIMD, 6, "d = a of lane ^ (b & 31)") \
    OP(SHFL_ROT_UP,   "shfl_rot_up",   "D,s,s", 0, ISA_CLASS_SIMD, 6, "d = a of lane (lane - b) mod 32") \
    OP(SHFL_ROT_DOWN, "shfl_rot_down", "D,s,s", 0, ISA_CLASS_SIMD, 6, "d = a of lane (lane + b) mod 32") \
    OP(BCAST,       "bcast",       "D,s,s", 0, ISA_CLASS_SIMD, 6, "d = a of lane b (b uniform across the SIMD-group)") \
    OP(BCAST_FIRST, "bcast_first", "D,s",   0, ISA_CLASS_SIMD, 4, "d = a of the lowest active lane") \
    OP(QSHFL,      "qshfl",      "D,s,s", 0, ISA_CLASS_SIMD, 6, "d = a of lane (b & 3) of this quad") \
    OP(QSHFL_UP,   "qshfl_up",   "D,s,s", 0, ISA_CLASS_SIMD, 6, "d = a of quad lane - b; own a when below 0") \
    OP(QSHFL_DOWN, "qshfl_down", "D,s,s", 0, ISA_CLASS_SIMD, 6, "d = a of quad lane + b; own a when past 3") \
    OP(QSHFL_XOR,  "qshfl_xor",  "D,s,s", 0, ISA_CLASS_SIMD, 6, "d = a of quad lane ^ (b & 3)") \
    OP(QSHFL_ROT_UP,   "qshfl_rot_up",   "D,s,s", 0, ISA_CLASS_SIMD, 6, "d = a of quad lane (lane - b) mod 4") \
    OP(QSHFL_ROT_DOWN, "qshfl_rot_down", "D,s,s", 0, ISA_CLASS_SIMD, 6, "d = a of quad lane (lane + b) mod 4") \
    OP(QBCAST,     "qbcast",     "D,s,s", 0, ISA_CLASS_SIMD, 6, "d = a of quad lane b (b uniform)") \
    OP(SIMD_RED,   "simd_red",   "x,y", ISA_MOD_RED, ISA_CLASS_SIMD_REDUCE, 6, "every active lane: d = op over a of the active lanes") \
    OP(QUAD_RED,   "quad_red",   "x,y", ISA_MOD_RED, ISA_CLASS_SIMD_REDUCE, 6, "every active lane: d = op over a of the active lanes of its quad") \
    OP(SIMD_PREFIX, "simd_prefix", "x,y", ISA_MOD_PREFIX, ISA_CLASS_SIMD_REDUCE, 6, "d = op over a of the active lanes below (excl) or up to (incl) this one") \
    OP(QUAD_PREFIX, "quad_prefix", "x,y", ISA_MOD_PREFIX, ISA_CLASS_SIMD_REDUCE, 6, "d = op over a of the active lanes of this quad below (excl) or up to (incl) this one") \
    /* ---- SIMD-group matrices: 8x8, two f32 elements a lane in a register pair ---------- */ \
    OP(MMA32,  "mma32",  "P,p,p,p", 0, ISA_CLASS_MATRIX, 8, "8x8 matrices spread over the SIMD-group (see Matrices): d = a * b + c, each element an f32 fma chain over k = 0..7 from c") \
    OP(MMA16,  "mma16",  "P,p,p,p", 0, ISA_CLASS_MATRIX, 8, "as mma32, each element of d then rounded to binary16 (a half matrix, still held as f32)") \
    OP(TMMA,   "tmma",   "P,p,p,p,g", 0, ISA_CLASS_TENSOR, 8, "as mma32, issued to the tensor unit (the neural accelerator): what Metal 4 tensor ops (matmul2d) compile to; g: the SIMD-groups of the operation's execution scope (for the checks)") \
    OP(MKPAIR, "mkpair", "P,s,s",   0, ISA_CLASS_MOVE, 8, "d = the pair (a, b): a in the low register, b in the high") \
    OP(LO32,   "lo32",   "D,p",     0, ISA_CLASS_MOVE, 6, "d = the low 32 bits of a") \
    OP(HI32,   "hi32",   "D,p",     0, ISA_CLASS_MOVE, 6, "d = the high 32 bits of a")

#endif
