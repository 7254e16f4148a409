/*
 * asm_directive.c — the assembler's directives (docs/assembly.md): the kernel's name,
 * registers, arguments and the uniforms they take, threadgroup and stack memory, uniform
 * values, and constant data blocks with their contents. Each message points at the field
 * that is wrong, as the instruction parser's do.
 */
#include "asm_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* The next comma-separated field of a directive, trimmed; false at the end of the line. */
static bool next_field(const char **q, const char *end, const char **s, const char **e)
{
    *q = skip_space(*q, end);
    if (*q == end)
        return false;
    *s = *q;
    const char *oe = operand_end(*q, end);
    *e = trim_end(*s, oe);
    *q = oe < end ? oe + 1 : oe;
    return *e > *s;
}

/* A directive field is one token; text after it is an error. */
static bool one_token(Asm *a, const char *name, const char *s, const char *e)
{
    const char *sp = s;
    while (sp < e && !is_space(*sp))
        sp++;
    if (sp < e)
        return isa_asm_fail(a, pos_at(a, skip_space(sp, e), (size_t)(e - skip_space(sp, e))),
                       "unexpected text after %s's value", name);
    return true;
}

static bool directive_uint(Asm *a, const char *name, const char **q, const char *end, uint32_t lo,
                           uint32_t hi, uint32_t *value)
{
    const char *s, *e;
    uint64_t v = 0;
    bool got = next_field(q, end, &s, &e);
    if (got && !one_token(a, name, s, e))
        return false;
    if (!got || isa_parse_imm(s, (size_t)(e - s), 64, &v) || (s[0] == '-') || v < lo || v > hi) {
        AsmPos pos = got ? pos_at(a, s, (size_t)(e - s)) : pos_at(a, end, 1);
        return isa_asm_fail(a, pos, "%s expects a number %u..%u", name, lo, hi);
    }
    *value = (uint32_t)v;
    return true;
}

/* The uniform field uK of a directive; *pos (when not NULL) receives where it is written. */
static bool directive_uniform(Asm *a, const char *name, const char **q, const char *end, bool pair,
                              uint16_t *u, AsmPos *pos)
{
    const char *s, *e;
    bool got = next_field(q, end, &s, &e);
    uint32_t v;
    if (got && !one_token(a, name, s, e))
        return false;
    if (!got || s[0] != 'u' || !scan_small_uint(s + 1, e, &v) || v > (pair ? 254u : 255u)) {
        AsmPos at = got ? pos_at(a, s, (size_t)(e - s)) : pos_at(a, end, 1);
        return isa_asm_fail(a, at, "%s expects a uniform register %s", name, pair ? "u0..u254 (a pair)" : "u0..u255");
    }
    *u = (uint16_t)v;
    if (pos)
        *pos = pos_at(a, s, (size_t)(e - s));
    return true;
}

static bool directive_end(Asm *a, const char *name, const char *q, const char *end)
{
    q = skip_space(q, end);
    if (q != end)
        return isa_asm_fail(a, pos_at(a, q, (size_t)(end - q)), "unexpected text after %s", name);
    return true;
}

/* How many uniforms an argument's binding fills: a threadgroup block's offset, a buffer's
 * 64-bit address, or a tensor's address, extents and pitch (a texture's: width, height and
 * pitch). */
static uint32_t arg_uniforms(const IsaArg *arg)
{
    return arg->kind == ISA_ARG_THREADGROUP ? 1 : arg->tensor_rank || arg->texture ? 5 : 2;
}

/* Who already takes a uniform of [lo, hi] (an argument or a constant data block: the
 * launch fills their uniforms), with its range; NULL when none does. */
static const char *uniform_owner(const IsaProgram *prog, uint32_t lo, uint32_t hi,
                                 uint32_t *olo, uint32_t *ohi)
{
    for (uint32_t i = 0; i < prog->num_args; i++) {
        const IsaArg *o = &prog->args[i];
        *olo = o->uniform, *ohi = *olo + arg_uniforms(o) - 1;
        if (lo <= *ohi && *olo <= hi)
            return o->name;
    }
    for (uint32_t i = 0; i < prog->num_symbols; i++) {
        const IsaSymbol *o = &prog->symbols[i];
        *olo = o->uniform, *ohi = *olo + 1;
        if (o->space == ISA_SYM_CONSTANT && lo <= *ohi && *olo <= hi)
            return o->name;
    }
    return NULL;
}

/* ".data" name "," uK "," bytes "," elem: a block of constant data, zero-filled, at the
 * next 16-byte boundary of the program's data, its address in uK, uK+1. */
static bool data_directive(Asm *a, const char *q, const char *end, AsmPos dpos)
{
    IsaProgram *prog = a->prog;
    const char *s, *e;
    if (!next_field(&q, end, &s, &e) || !is_alpha(*s) || scan_ident(s, e) != e)
        return isa_asm_fail(a, q == end ? pos_at(a, end, 1) : pos_at(a, q, 1),
                            ".data expects NAME, uK, BYTES, ELEMENT_BYTES");
    for (uint32_t i = 0; i < prog->num_symbols; i++)
        if (prog->symbols[i].space == ISA_SYM_CONSTANT && token_is(s, (size_t)(e - s), prog->symbols[i].name))
            return isa_asm_fail(a, pos_at(a, s, (size_t)(e - s)), "a second .data named '%s'",
                                prog->symbols[i].name);
    IsaSymbol sym = {.space = ISA_SYM_CONSTANT, .name = util_strndup(s, (size_t)(e - s))};
    AsmPos upos;
    uint32_t olo, ohi;
    const char *owner = NULL;
    bool ok = directive_uniform(a, ".data", &q, end, true, &sym.uniform, &upos) &&
              directive_uint(a, ".data's size", &q, end, 1, ISA_MAX_DATA_BYTES, &sym.size) &&
              directive_uint(a, ".data's element size", &q, end, 1, sym.size, &sym.elem_size) &&
              directive_end(a, ".data", q, end);
    if (ok && (owner = uniform_owner(prog, sym.uniform, sym.uniform + 1u, &olo, &ohi)) != NULL)
        ok = isa_asm_fail(a, upos, "'%s' takes u%u..u%u, and '%s' already holds u%u..u%u",
                          sym.name, sym.uniform, sym.uniform + 1u, owner, olo, ohi);
    for (uint32_t i = 0; ok && i < prog->num_uniform_inits; i++) {
        uint32_t u = prog->uniform_inits[i].uniform;
        if (u == sym.uniform || u == sym.uniform + 1u)
            ok = isa_asm_fail(a, upos, "'%s' takes u%u..u%u, and u%u already has a value "
                              "(.uniform); expected uniforms no .uniform sets", sym.name,
                              sym.uniform, sym.uniform + 1u, u);
    }
    uint64_t start = ((uint64_t)prog->data_bytes + 15) & ~(uint64_t)15;
    if (ok && start + sym.size > ISA_MAX_DATA_BYTES)
        ok = isa_asm_fail(a, dpos, "the program's constant data would pass %u bytes",
                          ISA_MAX_DATA_BYTES);
    if (!ok) {
        free(sym.name);
        return false;
    }
    sym.offset = (uint32_t)start;
    sym.array = sym.size > sym.elem_size;
    prog->data = util_realloc(prog->data, start + sym.size);
    memset(prog->data + prog->data_bytes, 0, start + sym.size - prog->data_bytes);
    prog->data_bytes = (uint32_t)(start + sym.size);
    UTIL_PUSH(prog->symbols, prog->num_symbols, a->cap_syms, sym);
    a->in_data = true;
    a->data_sym = prog->num_symbols - 1;
    a->data_fill = 0;
    return true;
}

/* ".word" value ("," value)*: the next 32-bit little-endian words of the open .data block
 * (the bytes of the last one past the block's end must be zero). */
static bool word_directive(Asm *a, const char *q, const char *end, AsmPos dpos)
{
    if (!a->in_data)
        return isa_asm_fail(a, dpos, ".word without a .data before it; expected `.data NAME, "
                            "uK, BYTES, ELEMENT_BYTES` first");
    const IsaSymbol *sym = &a->prog->symbols[a->data_sym];
    const char *s, *e;
    bool any = false;
    while (next_field(&q, end, &s, &e)) {
        uint64_t v;
        const char *why = isa_parse_imm(s, (size_t)(e - s), 32, &v);
        if (why || !one_token(a, ".word", s, e))
            return why ? isa_asm_fail(a, pos_at(a, s, (size_t)(e - s)), ".word expects 32-bit "
                                      "numbers: %s", why)
                       : false;
        uint32_t left = sym->size - a->data_fill;
        if (left == 0 || (left < 4 && (v >> (8 * left)) != 0))
            return isa_asm_fail(a, pos_at(a, s, (size_t)(e - s)), "'%s' holds %u bytes; this "
                                "word is past its end", sym->name, sym->size);
        for (uint32_t k = 0; k < 4 && k < left; k++)
            a->prog->data[sym->offset + a->data_fill + k] = (uint8_t)(v >> (8 * k));
        a->data_fill += left < 4 ? left : 4;
        any = true;
    }
    if (!any)
        return isa_asm_fail(a, pos_at(a, end, 1), ".word expects one or more 32-bit numbers");
    return true;
}

/* directive = ".kernel" name | ".regs" N | ".arg" name "," kind "," uK | ".tgmem" N
 *           | ".stack" N | ".uniform" uK "," value | ".data" name "," uK "," N "," N
 *           | ".word" value ("," value)* */
bool isa_asm_directive(Asm *a, const char *p, const char *end)
{
    const char *ne = scan_ident(p, end);
    AsmPos dpos = pos_at(a, p, (size_t)(ne - p));
    const char *q = ne;
    IsaProgram *prog = a->prog;
    const char *s, *e;
    if (token_is(p, (size_t)(ne - p), ".word"))
        return word_directive(a, q, end, dpos);
    a->in_data = false; /* .word lines follow their .data directly */
    if (token_is(p, (size_t)(ne - p), ".data"))
        return data_directive(a, q, end, dpos);
    if (token_is(p, (size_t)(ne - p), ".kernel")) {
        q = skip_space(q, end);
        const char *id_end = scan_ident(q, end);
        if (a->seen_kernel)
            return isa_asm_fail(a, dpos, "a second .kernel; a file holds one kernel");
        if (q == id_end || !(is_alpha(*q)))
            return isa_asm_fail(a, q == end ? pos_at(a, end, 1) : pos_at(a, q, 1), ".kernel expects a name");
        free(prog->name);
        prog->name = util_strndup(q, (size_t)(id_end - q));
        a->seen_kernel = true;
        return directive_end(a, ".kernel", id_end, end);
    }
    if (token_is(p, (size_t)(ne - p), ".regs")) {
        if (a->seen_regs)
            return isa_asm_fail(a, dpos, "a second .regs");
        a->seen_regs = true;
        return directive_uint(a, ".regs", &q, end, 1, 128, &prog->num_regs) && directive_end(a, ".regs", q, end);
    }
    if (token_is(p, (size_t)(ne - p), ".tgmem") || token_is(p, (size_t)(ne - p), ".stack")) {
        bool tg = p[1] == 't';
        bool *seen = tg ? &a->seen_tgmem : &a->seen_stack;
        if (*seen)
            return isa_asm_fail(a, dpos, "a second %s", tg ? ".tgmem" : ".stack");
        *seen = true;
        return directive_uint(a, tg ? ".tgmem" : ".stack", &q, end, 0, 1u << 30,
                              tg ? &prog->tg_mem_bytes : &prog->stack_bytes) &&
               directive_end(a, tg ? ".tgmem" : ".stack", q, end);
    }
    if (token_is(p, (size_t)(ne - p), ".arg")) {
        IsaArg arg;
        memset(&arg, 0, sizeof arg);
        arg.binding = -1;
        if (!next_field(&q, end, &s, &e) || !is_alpha(*s) || scan_ident(s, e) != e)
            return isa_asm_fail(a, q == end ? pos_at(a, end, 1) : pos_at(a, q, 1), ".arg expects NAME, KIND, uK");
        for (uint32_t i = 0; i < prog->num_args; i++)
            if (token_is(s, (size_t)(e - s), prog->args[i].name))
                return isa_asm_fail(a, pos_at(a, s, (size_t)(e - s)), "a second argument named '%s'", prog->args[i].name);
        const char *name = s;
        size_t name_len = (size_t)(e - s);
        if (!next_field(&q, end, &s, &e))
            return isa_asm_fail(a, pos_at(a, skip_space(q, end), 1), ".arg expects a kind after the name: "
                           "device, constant or threadgroup");
        if (token_is(s, (size_t)(e - s), "device"))
            arg.kind = ISA_ARG_DEVICE;
        else if (token_is(s, (size_t)(e - s), "constant"))
            arg.kind = ISA_ARG_CONSTANT;
        else if (token_is(s, (size_t)(e - s), "threadgroup"))
            arg.kind = ISA_ARG_THREADGROUP;
        else
            return isa_asm_fail(a, pos_at(a, s, (size_t)(e - s)), "unknown argument kind '%.*s'; expected "
                           "device, constant or threadgroup", (int)UTIL_MIN(e - s, ASM_SHOW_TOKEN), s);
        AsmPos upos;
        if (!directive_uniform(a, ".arg", &q, end, arg.kind != ISA_ARG_THREADGROUP, &arg.uniform,
                               &upos))
            return false;
        const char *before = q;
        if (next_field(&q, end, &s, &e)) { /* ", tensor": extents and pitch in u+2..u+4;
                                            * ", texture2d": width, height and pitch */
            size_t len = (size_t)(e - s);
            bool tensor = token_is(s, len, "tensor");
            if ((!tensor && !token_is(s, len, "texture2d") && !token_is(s, len, "texture1d")) ||
                arg.kind == ISA_ARG_THREADGROUP)
                return isa_asm_fail(a, pos_at(a, s, len), ".arg takes 'tensor', 'texture2d' or "
                               "'texture1d' after the uniform of a device or constant "
                               "argument, or nothing");
            if (arg.uniform + 5u > 256u)
                return isa_asm_fail(a, pos_at(a, s, len), "a %s argument takes five uniforms "
                               "(address, %s, pitch): u%u..u%u is past u255",
                               tensor ? "tensor" : "texture", tensor ? "extents" : "width, height",
                               arg.uniform, arg.uniform + 4u);
            arg.tensor_rank = tensor ? 2 : 0;
            arg.texture = tensor ? 0 : s[7] == '2' ? 2 : 1;
        } else {
            q = before;
        }
        if (!directive_end(a, ".arg", q, end))
            return false;
        uint32_t lo = arg.uniform, hi = lo + arg_uniforms(&arg) - 1, olo, ohi;
        const char *owner = uniform_owner(prog, lo, hi, &olo, &ohi);
        if (owner)
            return isa_asm_fail(a, dpos, "'%.*s' takes u%u..u%u, and '%s' already holds "
                                "u%u..u%u", (int)name_len, name, lo, hi, owner, olo, ohi);
        /* The launch writes an argument's uniforms, so a .uniform value there would be lost. */
        for (uint32_t i = 0; i < prog->num_uniform_inits; i++) {
            uint32_t u = prog->uniform_inits[i].uniform;
            if (lo <= u && u <= hi)
                return isa_asm_fail(a, upos, "'%.*s' takes u%u..u%u, and u%u already has a value "
                               "(.uniform); expected uniforms no .uniform sets", (int)name_len,
                               name, lo, hi, u);
        }
        arg.name = util_strndup(name, name_len);
        UTIL_PUSH(prog->args, prog->num_args, a->cap_args, arg);
        return true;
    }
    if (token_is(p, (size_t)(ne - p), ".uniform")) {
        IsaUniformInit init;
        AsmPos upos;
        if (!directive_uniform(a, ".uniform", &q, end, false, &init.uniform, &upos))
            return false;
        for (uint32_t i = 0; i < prog->num_uniform_inits; i++)
            if (prog->uniform_inits[i].uniform == init.uniform)
                return isa_asm_fail(a, dpos, "u%u is given a value twice", init.uniform);
        /* The launch writes an argument's uniforms, so this value would be lost. */
        uint32_t olo, ohi;
        const char *owner = uniform_owner(prog, init.uniform, init.uniform, &olo, &ohi);
        if (owner)
            return isa_asm_fail(a, upos, "u%u belongs to '%s' (u%u..u%u), which the launch "
                                "fills; expected a uniform no .arg or .data takes", init.uniform,
                                owner, olo, ohi);
        uint64_t v;
        const char *why = "expected a value";
        if (!next_field(&q, end, &s, &e) || (why = isa_parse_imm(s, (size_t)(e - s), 32, &v)) != NULL) {
            AsmPos pos = q == end && s >= end ? pos_at(a, end, 1) : pos_at(a, s, (size_t)(e - s));
            return isa_asm_fail(a, pos, ".uniform expects uK, VALUE (a 32-bit number): %s", why);
        }
        init.value = (uint32_t)v;
        UTIL_PUSH(prog->uniform_inits, prog->num_uniform_inits, a->cap_inits, init);
        return directive_end(a, ".uniform", q, end);
    }
    return isa_asm_fail(a, dpos, "unknown directive '%.*s'; expected .kernel, .regs, .arg, .tgmem, "
                   ".stack, .uniform, .data or .word", (int)UTIL_MIN(ne - p, ASM_SHOW_TOKEN), p);
}
