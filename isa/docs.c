/*
 * docs.c — docs/ISA.md, generated from the instruction table so the reference can never
 * disagree with what the assembler accepts and the simulator runs. It is a pure function of
 * isa_table.h and the name tables in isa.c; tests/isa/test_isa.c fails when the checked-in
 * file is stale, and `make docs` regenerates it.
 */
#include "isa_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Doc {
    char *s;
    size_t len, cap;
} Doc;

static void doc_add(Doc *d, const char *fmt, ...) UTIL_PRINTF(2, 3);
static void doc_add(Doc *d, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    util_reserve((void **)&d->s, &d->cap, d->len + (size_t)n + 1, 1);
    vsnprintf(d->s + d->len, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    d->len += (size_t)n;
}

/* Table cells cannot hold a bare '|'. */
static void doc_cell(Doc *d, const char *text)
{
    for (const char *p = text; *p; p++)
        doc_add(d, *p == '|' ? "\\|" : "%c", *p);
}

static const char intro[] =
    "# lockstep ISA reference\n"
    "\n"
    "Generated from `isa/isa_table.h` by `make docs`; do not edit by hand. The assembly syntax\n"
    "is described in `docs/assembly.md`.\n"
    "\n"
    "lockstep's ISA follows Apple's G13 GPU. A SIMD-group runs 32 lanes with one pc; instructions\n"
    "are pre-decoded, and `pc` is a byte address (each instruction's size is listed below).\n"
    "\n"
    "## Registers\n"
    "\n"
    "- `r0`..`r127`: 32-bit general registers per lane; `.regs N` gives a kernel r0..r(N-1), and\n"
    "  fewer registers mean more resident SIMD-groups.\n"
    "- `rNl` / `rNh`: the low and high 16-bit halves of rN (16-bit float ops, `h16` memory data).\n"
    "- 64-bit values live in register pairs named by their first register (`r4` = r4:r5).\n"
    "- `u0`..`u255`: 32-bit uniform registers, the same for every lane and read-only to kernels\n"
    "  (buffer addresses, constant data addresses (`.data`), `.uniform` constants); a pair\n"
    "  `uK` = uK:uK+1 for 64-bit operands.\n"
    "- Special registers are read with `get_sr` (list below).\n"
    "- `r0l` is the **exec nesting counter** D of each lane; a lane is active iff D == 0.\n"
    "- A kernel starts with r0l = 0 and every other register undefined, as on the hardware\n"
    "  (whatever the last kernel left). The simulator zeroes them so that runs repeat, and\n"
    "  `lockstep check` reports a stored value, address, branch condition or lane operand that\n"
    "  comes from a register the kernel never wrote (docs/checks.md).\n"
    "\n"
    "## Exec nesting counter (exact, after applegpu's emulator)\n"
    "\n"
    "D is r0l of each lane; n is 0..3; `cond` is the instruction's comparison of a and b.\n"
    "\n"
    "```\n"
    "pop_exec n:        v = D - n; if v < 0: v = 0; D = v\n"
    "if_cmp n:          v = D; if v != 0: v += n  elif !cond: v = 1;  D = v\n"
    "else_cmp n:        v = D; if v == 0: v = n   elif v == 1: v = cond ? 0 : 1;  D = v\n"
    "while_cmp n:       v = D; if v < n: v = cond ? 0 : n;  D = v\n"
    "push_exec n:       if_cmp n with an always-true condition\n"
    "jmp_exec_any L:    if any lane is active: pc = L\n"
    "jmp_exec_none L:   if no lane is active:  pc = L\n"
    "```\n"
    "\n"
    "Every lane applies these, active or not. `break`/`continue` write a depth into r0l and use\n"
    "`pop_exec 0`. Typical lowering (Mesa): if/else = `if_icmp` .. `else_icmp` .. `pop_exec 1`;\n"
    "a loop = `push_exec 2`; body; `while_icmp` n=2; `jmp_exec_any start`; `pop_exec 2`.\n"
    "\n"
    "## Floating point\n"
    "\n"
    "Every float result that is a NaN (of an add, multiply, fused multiply-add, division,\n"
    "min/max, rounding, special function, reduction, atomic, or any f16 arithmetic) is the\n"
    "canonical quiet NaN: `0x7fc00000` in f32, `0x7e00` in f16, whatever NaNs the operands\n"
    "held, as applegpu's model of the hardware's FMA has it. So a kernel gives the same bits\n"
    "in every mode and on every host. `fmov32` and `fmov16` without `.sat` are moves: a NaN\n"
    "keeps its bits, with the sign modifiers applied. `cvt` between float types keeps a NaN's\n"
    "sign and top payload bits, quieted.\n"
    "\n"
    "## Memory\n"
    "\n"
    "Memory ops move `.xN` (1 to 4) consecutive elements of a format into consecutive registers\n"
    "(or consecutive halves for `h16`). The address is `base + index * element size`. A\n"
    "device or constant access belongs to the buffer its base points into: an index that\n"
    "leaves that buffer is out of bounds of it, even where the address falls in another\n"
    "buffer. An out-of-bounds lane's access is not made (a load gives it 0) and is reported.\n"
    "Device loads are asynchronous: they complete into their registers, and `wait k` (slot 0 or\n"
    "1) must come before the registers are read.\n"
    "\n"
    "| format | bytes | in registers |\n"
    "|---|---|---|\n"
    "| `u8` | 1 | zero-extended into a 32-bit register |\n"
    "| `s8` | 1 | sign-extended into a 32-bit register |\n"
    "| `u16` | 2 | zero-extended into a 32-bit register |\n"
    "| `s16` | 2 | sign-extended into a 32-bit register |\n"
    "| `h16` | 2 | a register half (`half`, or a `short` kept in a half) |\n"
    "| `b32` | 4 | a 32-bit register |\n"
    "\n"
    "## Matrices\n"
    "\n"
    "`mma32` and `mma16` multiply 8x8 matrices spread over the 32 lanes of a SIMD-group, two\n"
    "elements a lane, in a register pair (element 0 in the low register, element 1 in the\n"
    "high), always as f32 values: a `half` matrix holds values that binary16 represents.\n"
    "Lane `l` (bits `b4 b3 b2 b1 b0`) holds row `4*b4 + 2*b2 + b1`, columns `4*b3 + 2*b0`\n"
    "(element 0) and the one after it (element 1): Apple's layout for `simdgroup_matrix`,\n"
    "as metal-flash-attention documents it. Each element of `d` is an f32 fused\n"
    "multiply-add chain over k = 0..7 starting from `c`'s element; every lane's result\n"
    "depends on other lanes' registers, so the op is only defined with all 32 lanes present\n"
    "and active (the checks report it otherwise; inactive lanes keep their `d`).\n"
    "\n"
    "`tmma` computes what `mma32` does, issued to the tensor unit: what Metal 4 tensor\n"
    "operations (`matmul2d`) compile to. On a GPU with a neural accelerator (M5) it issues to\n"
    "a tensor pipe of its own at the accelerator's rate; elsewhere it shares the fp32 pipe\n"
    "with `mma32`, as tensor operations run on the ALUs of M1-M4 (docs/timing.md).\n"
    "\n"
    "## Suffixes\n"
    "\n"
    "Dotted suffixes follow the mnemonic in this order. The capitals in the tables below stand\n"
    "for these:\n"
    "\n"
    "| suffix | values |\n"
    "|---|---|\n"
    "| `[.sat]` | optional: clamp the float result to [0, 1] |\n"
    "| src mods | float sources may be written `-a`, `\\|a\\|`, `-\\|a\\|` |\n"
    "| `.ICOND` | required: `eq ne ult ule ugt uge slt sle sgt sge` |\n"
    "| `.FCOND` | required: `eq ne lt le gt ge` (ordered: false on NaN, except `ne`, true on NaN) |\n"
    "| `.DST.SRC[.rte\\|.rtz]` | types `u8 s8 u16 s16 u32 s32 u64 s64 f16 f32 bf16` (`bf16`: bfloat16, f32's sign and exponent with 7 fraction bits, held in a register half; only `cvt` takes it); default rounding: float to int toward zero, otherwise to nearest even; float to int saturates, NaN gives 0 |\n"
    "| `.FMT[.xN]` | a memory format above; N = 2, 3 or 4 (1 when absent) |\n"
    "| `.AOP.ATYPE` | `add sub xchg min max and or xor`; `i32 u32 f32` (f32: add and xchg only) |\n"
    "| `.i32\\|.u32` | the compared type |\n"
    "| `[.dev][.tg][.tex]\\|.none` | the memory the barrier orders (device, threadgroup, texture); `.none` (or no flag) orders execution only |\n"
    "| `.ROP.RTYPE` | `sum product min max and or xor`; `i32 u32 f32 f16` (and/or/xor: integers only) |\n"
    "| `.incl\\|.excl.POP.RTYPE` | inclusive or exclusive; `sum product`; `i32 u32 f32 f16` |\n"
    "\n"
    "## Operands\n"
    "\n"
    "`d` is the destination; `a b c e` are the sources in order.\n"
    "\n"
    "| written | meaning |\n"
    "|---|---|\n"
    "| `r32` / `r16` / `r64` | a register rN / a half rNl, rNh / a pair rN |\n"
    "| `src32` | rN, uN or a 32-bit immediate (a float literal is stored as f32) |\n"
    "| `src16` | rNl, rNh, uN (its low half) or a 16-bit immediate (a float literal is stored as f16) |\n"
    "| `src64` | a register pair rN, a uniform pair uN or a 64-bit integer immediate |\n"
    "| `reg(type)`, `src(type)` | width from the suffix type: f16 a half, u64/s64 a pair, else 32-bit (`cvt`: d from DST, a from SRC; a u16/s16 side may be a half or a 32-bit register) |\n"
    "| `base64` | a 64-bit byte address: register pair rN or uniform pair uN |\n"
    "| `addr32` | a 32-bit byte address: rN, uN or an immediate |\n"
    "| `data` | the first data register (a half for `h16`) |\n"
    "| `n:0..3` | exec count |\n"
    "| `k:0..1` | wait slot |\n"
    "| `label` | a label; the target pc |\n"
    "| `sr` | a special register name |\n"
    "\n";

static const char *operand_spelling(char letter)
{
    switch (letter) {
    case 'D': return "r32";
    case 'H': return "r16";
    case 'P': return "r64";
    case 'x': return "reg(type)";
    case 'm': return "data";
    case 's': return "src32";
    case 'h': return "src16";
    case 'p': return "src64";
    case 'y': return "src(type)";
    case 'b': return "base64";
    case 'a': return "addr32";
    default: return "?";
    }
}

static void doc_operands(Doc *d, IsaOpcode op)
{
    char letters[ISA_MAX_OPERANDS];
    int n = isa_op_letters(op, letters);
    static const char src_names[] = "abce";
    int src = 0;
    if (n == 0)
        doc_add(d, "-");
    for (int k = 0; k < n; k++) {
        char c = letters[k];
        doc_add(d, k ? ", " : "");
        if (c == 'n')
            doc_add(d, "n:0..3");
        else if (c == 'k')
            doc_add(d, "k:0..1");
        else if (c == 'g')
            doc_add(d, "g:1..32");
        else if (c == 'l')
            doc_add(d, "label");
        else if (c == 'r')
            doc_add(d, "sr");
        else if (strchr("DHPxm", c))
            doc_add(d, "d:%s", operand_spelling(c));
        else
            doc_add(d, "%c:%s", src < 4 ? src_names[src++] : '?', operand_spelling(c));
    }
}

static void doc_suffixes(Doc *d, uint32_t mods)
{
    static const struct {
        uint32_t bit;
        const char *text;
    } names[] = {
        {ISA_MOD_SAT, "`[.sat]`"},
        {ISA_MOD_SRC, "src mods"},
        {ISA_MOD_ICOND, "`.ICOND`"},
        {ISA_MOD_FCOND, "`.FCOND`"},
        {ISA_MOD_CVT, "`.DST.SRC[.rte\\|.rtz]`"},
        {ISA_MOD_MEM, "`.FMT[.xN]`"},
        {ISA_MOD_ATOM, "`.AOP.ATYPE`"},
        {ISA_MOD_ATYPE, "`.i32\\|.u32`"},
        {ISA_MOD_BAR, "`[.dev][.tg][.tex]\\|.none`"},
        {ISA_MOD_RED, "`.ROP.RTYPE`"},
        {ISA_MOD_PREFIX, "`.incl\\|.excl.POP.RTYPE`"},
    };
    bool any = false;
    for (size_t i = 0; i < UTIL_ARRAY_LEN(names); i++) {
        if (mods & names[i].bit) {
            doc_add(d, "%s%s", any ? ", " : "", names[i].text);
            any = true;
        }
    }
    if (!any)
        doc_add(d, "-");
}

char *isa_docs_markdown(void)
{
    Doc d = {0};
    doc_add(&d, "%s", intro);
    doc_add(&d, "## Instructions\n\nOne table per op class (the pipe and latency group the "
                "timing model charges).\n");
    for (int c = 0; c < ISA_CLASS_COUNT; c++) {
        bool header = false;
        for (int op = 0; op < ISA_OP_COUNT; op++) {
            const IsaOpInfo *info = &isa_ops[op];
            if ((int)info->op_class != c)
                continue;
            if (!header) {
                doc_add(&d, "\n### %s\n\n| mnemonic | operands | suffixes | bytes | semantics |\n"
                            "|---|---|---|---|---|\n", isa_class_name((IsaClass)c));
                header = true;
            }
            doc_add(&d, "| `%s` | ", info->name);
            doc_operands(&d, (IsaOpcode)op);
            doc_add(&d, " | ");
            doc_suffixes(&d, info->modifiers);
            doc_add(&d, " | %u | ", info->size);
            doc_cell(&d, info->semantics);
            doc_add(&d, " |\n");
        }
    }
    doc_add(&d, "\n## Special registers (`get_sr`)\n\n");
    for (int i = 0; i < ISA_SR_COUNT; i++)
        doc_add(&d, "- `%s`\n", isa_sr_names[i]);
    return d.s;
}
