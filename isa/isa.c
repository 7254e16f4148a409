/*
 * isa.c — the tables generated from isa_table.h (op properties, modifier names) and the
 * IsaProgram container: building a program instruction by instruction, then fixing pcs and
 * branch targets and checking every operand against the table once, so the simulator can
 * trust what it executes.
 */
#include "isa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const IsaOpInfo isa_ops[ISA_OP_COUNT] = {
#define ISA_INFO_(id, name, operands, mods, cls, size, sem) \
    [ISA_OP_##id] = {name, operands, mods, cls, size, sem},
    ISA_OPS(ISA_INFO_)
#undef ISA_INFO_
};

const char *const isa_sr_names[ISA_SR_COUNT] = {
#define ISA_SR_NAME_(id, name) [ISA_SR_##id] = name,
    ISA_SPECIAL_REGS(ISA_SR_NAME_)
#undef ISA_SR_NAME_
};

const char *const isa_cond_names[ISA_COND_COUNT] = {
    "eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge", "lt", "le", "gt", "ge",
};
const char *const isa_type_names[ISA_TYPE_COUNT] = {
    "u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64", "f16", "f32", "bf16",
};
const char *const isa_fmt_names[ISA_FMT_COUNT] = {"u8", "s8", "u16", "s16", "h16", "b32"};
const char *const isa_atomic_names[ISA_ATOM_COUNT] = {
    "add", "sub", "xchg", "min", "max", "and", "or", "xor",
};
const char *const isa_reduce_names[ISA_RED_COUNT] = {
    "sum", "product", "min", "max", "and", "or", "xor",
};

static const char *const class_names[ISA_CLASS_COUNT] = {
    [ISA_CLASS_FP32] = "fp32",
    [ISA_CLASS_FP16] = "fp16",
    [ISA_CLASS_INT] = "int",
    [ISA_CLASS_INT_COMPLEX] = "int-complex",
    [ISA_CLASS_SFU] = "sfu",
    [ISA_CLASS_CONVERT] = "convert",
    [ISA_CLASS_MOVE] = "move",
    [ISA_CLASS_CONTROL] = "control",
    [ISA_CLASS_SIMD] = "simd",
    [ISA_CLASS_SIMD_REDUCE] = "simd-reduce",
    [ISA_CLASS_MATRIX] = "matrix",
    [ISA_CLASS_TENSOR] = "tensor",
    [ISA_CLASS_MEM_DEVICE] = "mem-device",
    [ISA_CLASS_MEM_CONST] = "mem-constant",
    [ISA_CLASS_MEM_TG] = "mem-threadgroup",
    [ISA_CLASS_MEM_STACK] = "mem-stack",
    [ISA_CLASS_ATOMIC] = "atomic",
    [ISA_CLASS_BARRIER] = "barrier",
};

const char *isa_class_name(IsaClass c) { return c < ISA_CLASS_COUNT ? class_names[c] : "?"; }

IsaOpcode isa_lookup_op(const char *mnemonic, size_t len)
{
    for (int i = 0; i < ISA_OP_COUNT; i++) {
        if (strlen(isa_ops[i].name) == len && memcmp(isa_ops[i].name, mnemonic, len) == 0)
            return (IsaOpcode)i;
    }
    return ISA_OP_COUNT;
}

unsigned isa_type_size(IsaType t)
{
    switch (t) {
    case ISA_TYPE_U8: case ISA_TYPE_S8: return 1;
    case ISA_TYPE_U16: case ISA_TYPE_S16: case ISA_TYPE_F16: case ISA_TYPE_BF16: return 2;
    case ISA_TYPE_U64: case ISA_TYPE_S64: return 8;
    default: return 4;
    }
}

IsaProgram *isa_program_new(void)
{
    IsaProgram *p = util_calloc(1, sizeof *p);
    return p;
}

void isa_program_free(IsaProgram *p)
{
    if (!p)
        return;
    free(p->name);
    free(p->code);
    for (uint32_t i = 0; i < p->num_args; i++) {
        free(p->args[i].name);
        free(p->args[i].type_name);
    }
    free(p->args);
    free(p->uniform_inits);
    free(p->data);
    for (uint32_t i = 0; i < p->num_files; i++)
        free(p->files[i]);
    free(p->files);
    free(p->locs);
    for (uint32_t i = 0; i < p->num_vars; i++) {
        free(p->vars[i].name);
        free(p->vars[i].type_name);
    }
    free(p->vars);
    for (uint32_t i = 0; i < p->num_gone; i++) {
        free(p->gone[i].name);
        free(p->gone[i].type_name);
    }
    free(p->gone);
    for (uint32_t i = 0; i < p->num_symbols; i++) {
        free(p->symbols[i].name);
        free(p->symbols[i].type_name);
    }
    free(p->symbols);
    for (uint32_t i = 0; i < p->num_undefs; i++) {
        free(p->undefs[i].name);
        free(p->undefs[i].type_name);
    }
    free(p->undefs);
    for (uint32_t i = 0; i < p->num_parts; i++)
        free(p->parts[i].func);
    free(p->parts);
    for (uint32_t i = 0; i < p->num_calls; i++)
        free(p->calls[i].func);
    free(p->calls);
    free(p);
}

IsaInst *isa_program_emit(IsaProgram *p, const IsaInst *inst, IsaSourceLoc loc)
{
    /* count doubles as the capacity's lower bound: grow both arrays in powers of two. */
    if ((p->count & (p->count - 1)) == 0) {
        size_t cap = p->count ? (size_t)p->count * 2 : 16;
        p->code = util_realloc(p->code, cap * sizeof *p->code);
        p->locs = util_realloc(p->locs, cap * sizeof *p->locs);
    }
    p->code[p->count] = *inst;
    p->locs[p->count] = loc;
    return &p->code[p->count++];
}

const char *isa_call_text(const IsaProgram *p, const IsaSourceLoc *loc, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    uint32_t file = loc->file;
    /* calls nest at most as deep as the compiler inlines (64); the bound guards bad input */
    const IsaCallSite *site = isa_call_of(p, loc);
    for (int depth = 0; site && depth < 64 && n < size; depth++) {
        const char *sep = depth ? " in " : " (in ";
        if (site->loc.file != file && site->loc.file < p->num_files && p->files[site->loc.file])
            n += (size_t)snprintf(buf + n, size - n, "%s%s, called at %s:%u", sep, site->func,
                                  p->files[site->loc.file], site->loc.line);
        else
            n += (size_t)snprintf(buf + n, size - n, "%s%s, called at line %u", sep, site->func,
                                  site->loc.line);
        file = site->loc.file;
        site = isa_call_of(p, &site->loc);
    }
    if (n && n + 1 < size)
        snprintf(buf + n, size - n, ")");
    else if (n && size >= 5) /* cut: end it plainly rather than mid-name */
        memcpy(buf + size - 5, "...)", 5);
    return buf;
}

/* How many 32-bit registers an operand of a memory op covers, from its format and count. */
static uint32_t mem_regs_needed(const IsaInst *in, uint32_t *halves)
{
    if (in->type == ISA_FMT_H16) {
        *halves = in->count;
        return 0;
    }
    *halves = 0;
    return in->count;
}

static bool check_reg_range(const IsaProgram *p, uint32_t first, uint32_t n, uint32_t i,
                            UtilError *err)
{
    if (first + n > p->num_regs)
        return util_fail(err, "instruction %u (%s) uses r%u, but the kernel declares %u registers",
                         i, isa_ops[p->code[i].op].name, first + n - 1, p->num_regs);
    return true;
}

bool isa_program_finish(IsaProgram *p, UtilError *err)
{
    if (p->num_regs == 0 || p->num_regs > 128)
        return util_fail(err, "a kernel needs between 1 and 128 registers, not %u", p->num_regs);
    uint32_t pc = 0;
    for (uint32_t i = 0; i < p->count; i++) {
        p->code[i].pc = pc;
        pc += isa_ops[p->code[i].op].size;
    }
    p->code_bytes = pc;
    for (uint32_t i = 0; i < p->count; i++) {
        IsaInst *in = &p->code[i];
        if (in->op >= ISA_OP_COUNT)
            return util_fail(err, "instruction %u has an invalid opcode %u", i, in->op);
        for (int k = 0; k < ISA_MAX_OPERANDS; k++) {
            IsaOperand *o = &in->opd[k];
            switch ((IsaOperandKind)o->kind) {
            case ISA_OPD_R32:
                if (!check_reg_range(p, o->index, 1, i, err))
                    return false;
                break;
            case ISA_OPD_R16:
                if (!check_reg_range(p, o->index / 2u, 1, i, err))
                    return false;
                break;
            case ISA_OPD_R64:
                if (!check_reg_range(p, o->index, 2, i, err))
                    return false;
                break;
            case ISA_OPD_U32: case ISA_OPD_U16:
                if (o->index > 255)
                    return util_fail(err, "instruction %u uses u%u; uniforms are u0..u255", i, o->index);
                break;
            case ISA_OPD_U64:
                if (o->index > 254)
                    return util_fail(err, "instruction %u uses u%u as a pair; the last pair is u254", i, o->index);
                break;
            case ISA_OPD_LABEL:
                if (o->index >= p->count)
                    return util_fail(err, "instruction %u jumps past the end of the kernel", i);
                o->imm = p->code[o->index].pc;
                break;
            case ISA_OPD_SR:
                if (o->index >= ISA_SR_COUNT)
                    return util_fail(err, "instruction %u reads an unknown special register", i);
                break;
            default:
                break;
            }
        }
        IsaClass cls = isa_ops[in->op].op_class;
        bool is_mem = (isa_ops[in->op].modifiers & ISA_MOD_MEM) != 0;
        if (is_mem) {
            if (in->count < 1 || in->count > 4 || in->type >= ISA_FMT_COUNT)
                return util_fail(err, "instruction %u: a memory op moves 1 to 4 elements", i);
            uint32_t halves;
            uint32_t regs = mem_regs_needed(in, &halves);
            const IsaOperand *data = &in->opd[0];
            if (halves) {
                if (data->kind != ISA_OPD_R16 || (data->index + halves + 1) / 2 > p->num_regs)
                    return util_fail(err, "instruction %u: h16 data must be register halves within the declared registers", i);
            } else if (data->kind != ISA_OPD_R32 || !check_reg_range(p, data->index, regs, i, err)) {
                return data->kind != ISA_OPD_R32
                           ? util_fail(err, "instruction %u: memory data must be 32-bit registers", i)
                           : false;
            }
        }
        (void)cls;
    }
    for (uint32_t i = 0; i < p->num_args; i++) {
        uint32_t need = p->args[i].kind == ISA_ARG_THREADGROUP ? 1 : 2;
        if (p->args[i].uniform + need > 256)
            return util_fail(err, "argument '%s' is bound past u255", p->args[i].name);
    }
    for (uint32_t i = 0; i < p->num_symbols; i++) {
        const IsaSymbol *s = &p->symbols[i];
        if (s->space != ISA_SYM_CONSTANT)
            continue;
        if ((uint64_t)s->offset + s->size > p->data_bytes)
            return util_fail(err, "constant data '%s' ends past the program's %u bytes of "
                             "constant data", s->name, p->data_bytes);
        if (s->uniform > 254)
            return util_fail(err, "constant data '%s' is bound past u255", s->name);
    }
    return true;
}

int64_t isa_program_index_of_pc(const IsaProgram *p, uint32_t pc)
{
    uint32_t lo = 0, hi = p->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->code[mid].pc < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->count && p->code[lo].pc == pc ? (int64_t)lo : -1;
}
