/*
 * codegen.c — code generation's state and entry point: the emission API of codegen.h,
 * labels, virtual registers, variable bindings, the kernel's arguments (uniform slots),
 * built-in attribute parameters (get_sr at entry), program-scope constants, and the
 * exec-mask form of if/else that every other construct builds on.
 *
 * Exec depth bookkeeping: cg->depth counts how much the open constructs add to a lane's
 * r0l while it runs inside them (if: 1, loop/switch: 2, inlined function region: 1). An
 * early exit writes `r0l = depth - region.base_depth` (plus adjustments, codegen_stmt.c) so
 * that the pops on the way out bring the lane back to exactly the level where it resumes.
 */
#include <string.h>

#include "../util/fp.h"
#include "codegen_internal.h"

/* ---- emission ------------------------------------------------------------------------------ */

static LangIrInst *append(LangCg *cg)
{
    LangIr *ir = cg->ir;
    ir->insts = lang_grow(cg->ctx, ir->insts, ir->count, &ir->cap, sizeof *ir->insts, 256);
    LangIrInst *li = &ir->insts[ir->count++];
    memset(li, 0, sizeof *li);
    li->label = -1;
    li->loc = cg->loc;
    return li;
}

IsaInst *lang_cg_emit(LangCg *cg, IsaOpcode op)
{
    LangIrInst *li = append(cg);
    li->inst.op = (uint16_t)op;
    return &li->inst;
}

LangCtx *lang_cg_ctx(LangCg *cg) { return cg->ctx; }

IsaOperand lang_cg_new_vreg(LangCg *cg, int width)
{
    LangIr *ir = cg->ir;
    if (ir->num_vregs == ir->vregs_cap) {
        size_t cap = ir->vregs_cap ? ir->vregs_cap * 2 : 256;
        LangVreg *n = lang_alloc(cg->ctx, cap * sizeof *n);
        if (ir->num_vregs)
            memcpy(n, ir->vregs, ir->num_vregs * sizeof *n);
        ir->vregs = n;
        ir->vregs_cap = cap;
    }
    if (ir->num_vregs >= 65535)
        cg_error(cg, NULL, "the kernel is too large (more than 65535 values)");
    uint32_t id = ir->num_vregs++;
    ir->vregs[id].width = (uint8_t)width;
    ir->vregs[id].var = NULL;
    IsaOperand o = {0};
    o.kind = width == 16 ? ISA_OPD_R16 : width == 64 ? ISA_OPD_R64 : ISA_OPD_R32;
    o.index = (uint16_t)id;
    return o;
}

IsaOperand lang_cg_imm(uint64_t bits)
{
    IsaOperand o = {0};
    o.kind = ISA_OPD_IMM;
    o.imm = bits;
    return o;
}

IsaOperand lang_cg_imm_f32(float value) { return lang_cg_imm(util_f32_bits(value)); }
IsaOperand lang_cg_imm_f16(uint16_t bits) { return lang_cg_imm(bits); }

IsaOperand cg_num(int n)
{
    IsaOperand o = {0};
    o.kind = ISA_OPD_NUM;
    o.imm = (uint64_t)n;
    return o;
}

int cg_new_label(LangCg *cg) { return (int)cg->ir->num_labels++; }

void cg_label(LangCg *cg, int label)
{
    LangIrInst *li = append(cg);
    li->label = label;
}

IsaOperand cg_label_opd(int label)
{
    IsaOperand o = {0};
    o.kind = ISA_OPD_LABEL;
    o.index = (uint16_t)label;
    return o;
}

void cg_set_loc(LangCg *cg, const LangToken *tok)
{
    while (tok && tok->origin)
        tok = tok->origin;
    if (!tok || !tok->file)
        return;
    cg->loc_tok = tok;
    cg->loc.file = (uint16_t)tok->file->index;
    cg->loc.line = (uint32_t)tok->line;
    cg->loc.col = (uint16_t)tok->col;
    cg->loc.call = cg->call;
}

void cg_error(LangCg *cg, const LangToken *tok, const char *msg)
{
    lang_error_at(cg->ctx, tok ? tok : cg->loc_tok, "%s", msg);
}

int cg_width_of(const LangType *t)
{
    switch (t->kind) {
    case LTY_HALF: case LTY_BFLOAT: case LTY_SHORT: case LTY_USHORT: return 16;
    case LTY_LONG: case LTY_ULONG: case LTY_SGMATRIX: return 64;
    case LTY_POINTER:
        return t->space == LAS_DEVICE || t->space == LAS_CONSTANT ? 64 : 32;
    default: return 32;
    }
}

IsaOperand cg_vreg_for(LangCg *cg, const LangType *scalar)
{
    return lang_cg_new_vreg(cg, cg_width_of(scalar));
}

void cg_name_vreg(LangCg *cg, IsaOperand r, LangVar *var)
{
    if ((r.kind == ISA_OPD_R32 || r.kind == ISA_OPD_R16 || r.kind == ISA_OPD_R64) && r.index &&
        r.index < cg->ir->num_vregs)
        cg->ir->vregs[r.index].var = var;
}

void cg_mark_undefined(LangCg *cg, const CgBind *b, const LangVar *var)
{
    if (b->kind != BIND_REG)
        return;
    const int n = cg_leaf_count(var->type);
    for (int i = 0; i < n; i++) {
        IsaInst *in = lang_cg_emit(cg, ISA_OP_NOP);
        in->flags = LANG_IR_UNDEF;
        in->opd[0] = b->regs[i];
        in->opd[1] = lang_cg_imm((uint64_t)i); /* which leaf (for its name) */
    }
}

CgBind *cg_bind(LangCg *cg, LangVar *var)
{
    int id = var->id < 0 ? 0 : var->id;
    if (id >= cg->binds_cap) {
        int cap = cg->binds_cap ? cg->binds_cap : 64;
        while (cap <= id)
            cap *= 2;
        CgBind *n = lang_alloc(cg->ctx, (size_t)cap * sizeof *n);
        if (cg->binds_cap)
            memcpy(n, cg->binds, (size_t)cg->binds_cap * sizeof *n);
        cg->binds = n;
        cg->binds_cap = cap;
    }
    return &cg->binds[id];
}

/* ---- thread memory -------------------------------------------------------------------------
 * First fit among the free spans (one that ends at the top may grow it), else the top. */

static void span_insert(LangCg *cg, CgSpan **list, uint32_t *n, uint32_t *cap, uint32_t at,
                        CgSpan s)
{
    if (*n == *cap) {
        uint32_t c = *cap ? 2 * *cap : 16;
        CgSpan *m = lang_alloc(cg->ctx, c * sizeof *m);
        if (*n)
            memcpy(m, *list, *n * sizeof *m);
        *list = m;
        *cap = c;
    }
    memmove(*list + at + 1, *list + at, (*n - at) * sizeof **list);
    (*list)[at] = s;
    (*n)++;
}

static void span_free(LangCg *cg, uint32_t off, uint32_t size)
{
    uint32_t at = 0;
    while (at < cg->num_free && cg->stack_free[at].off < off)
        at++;
    span_insert(cg, &cg->stack_free, &cg->num_free, &cg->cap_free, at,
                (CgSpan){.off = off, .size = size});
    CgSpan *f = cg->stack_free;
    if (at + 1 < cg->num_free && f[at].off + f[at].size == f[at + 1].off) { /* the next */
        f[at].size += f[at + 1].size;
        memmove(f + at + 1, f + at + 2, (cg->num_free - at - 2) * sizeof *f);
        cg->num_free--;
    }
    if (at > 0 && f[at - 1].off + f[at - 1].size == f[at].off) { /* the one before */
        f[at - 1].size += f[at].size;
        memmove(f + at, f + at + 1, (cg->num_free - at - 1) * sizeof *f);
        cg->num_free--;
    }
}

uint32_t cg_stack_alloc(LangCg *cg, int size, int align)
{
    const uint32_t a = (uint32_t)(align < 4 ? 4 : align), need = (uint32_t)(size > 0 ? size : 4);
    uint32_t off = (cg->stack_bytes + a - 1) & ~(a - 1);
    for (uint32_t i = 0; i < cg->num_free; i++) {
        const CgSpan f = cg->stack_free[i];
        const uint32_t at = (f.off + a - 1) & ~(a - 1), end = f.off + f.size;
        if (at > end || (at + need > end && end != cg->stack_bytes))
            continue;
        memmove(cg->stack_free + i, cg->stack_free + i + 1, (cg->num_free - i - 1) * sizeof f);
        cg->num_free--;
        if (at > f.off)
            span_free(cg, f.off, at - f.off);
        if (at + need < end)
            span_free(cg, at + need, end - at - need);
        off = at;
        break;
    }
    if (off + need > cg->stack_bytes)
        cg->stack_bytes = off + need;
    span_insert(cg, &cg->stack_live, &cg->num_live, &cg->cap_live, cg->num_live,
                (CgSpan){.off = off, .size = need});
    return off;
}

uint32_t cg_scope_begin(LangCg *cg)
{
    return cg->num_live;
}

/* The scope's locals end: their bytes are free, and the checkers learn where (a marker). */
void cg_scope_end(LangCg *cg, uint32_t mark)
{
    while (cg->num_live > mark) {
        const CgSpan s = cg->stack_live[--cg->num_live];
        if (s.sym) {
            IsaInst *in = lang_cg_emit(cg, ISA_OP_NOP);
            in->flags = LANG_IR_SCOPE_END;
            cg->ir->insts[cg->ir->count - 1].sym = s.sym - 1;
        }
        span_free(cg, s.off, s.size);
    }
}

/* ---- exec-mask if/else ----------------------------------------------------------------------
 * if_*cmp n=1 (lanes failing the test go to 1, inactive lanes +1); an optional
 * jmp_exec_none over the then side; else_icmp n=1 with an always-true test (lanes that ran
 * the then side go to 1, lanes at 1 come back); an optional skip over the else side;
 * pop_exec 1. skip_label is the label after the side being emitted. */

static void skip_over(LangCg *cg, int *skip_label)
{
    *skip_label = cg_new_label(cg);
    IsaInst *j = lang_cg_emit(cg, ISA_OP_JMP_EXEC_NONE);
    j->opd[0] = cg_label_opd(*skip_label);
    j->flags = LANG_IR_OPTIONAL;
}

void cg_if_cmp_begin(LangCg *cg, IsaOpcode op, IsaCond cond, IsaOperand a, IsaOperand b,
                     int *skip_label)
{
    IsaInst *in = lang_cg_emit(cg, op);
    in->cond = (uint8_t)cond;
    in->opd[0] = cg_num(1);
    in->opd[1] = a;
    in->opd[2] = b;
    cg->depth += 1;
    skip_over(cg, skip_label);
}

void cg_if_begin(LangCg *cg, IsaOperand cond01, int *skip_label)
{
    cg_if_cmp_begin(cg, ISA_OP_IF_ICMP, ISA_COND_NE, cond01, lang_cg_imm(0), skip_label);
}

void cg_if_else(LangCg *cg, int *skip_label)
{
    cg_label(cg, *skip_label);
    IsaInst *in = lang_cg_emit(cg, ISA_OP_ELSE_ICMP);
    in->cond = ISA_COND_EQ;
    in->opd[0] = cg_num(1);
    in->opd[1] = lang_cg_imm(0);
    in->opd[2] = lang_cg_imm(0);
    skip_over(cg, skip_label);
}

void cg_if_end(LangCg *cg, int skip_label)
{
    cg_label(cg, skip_label);
    IsaInst *in = lang_cg_emit(cg, ISA_OP_POP_EXEC);
    in->opd[0] = cg_num(1);
    cg->depth -= 1;
}

/* mov16 r0l, value; pop_exec 0 (the new counter takes effect on the mask). */
void cg_set_depth_and_refresh(LangCg *cg, int value)
{
    IsaInst *m = lang_cg_emit(cg, ISA_OP_MOV16);
    IsaOperand r0l = {0};
    r0l.kind = ISA_OPD_R16;
    r0l.index = 0;
    m->opd[0] = r0l;
    m->opd[1] = lang_cg_imm((uint64_t)(uint16_t)value);
    IsaInst *p = lang_cg_emit(cg, ISA_OP_POP_EXEC);
    p->opd[0] = cg_num(0);
}

/* ---- kernel entry ---------------------------------------------------------------------------- */

typedef struct SrMap {
    LangAttr attr;
    IsaSpecialReg x;
    int comps; /* 3: X/Y/Z consecutive; 1: scalar only */
} SrMap;

static const SrMap sr_map[] = {
    {LATTR_THREAD_POSITION_IN_GRID, ISA_SR_THREAD_POSITION_IN_GRID_X, 3},
    {LATTR_THREAD_POSITION_IN_THREADGROUP, ISA_SR_THREAD_POSITION_IN_THREADGROUP_X, 3},
    {LATTR_THREADGROUP_POSITION_IN_GRID, ISA_SR_THREADGROUP_POSITION_IN_GRID_X, 3},
    {LATTR_THREADS_PER_GRID, ISA_SR_THREADS_PER_GRID_X, 3},
    {LATTR_THREADS_PER_THREADGROUP, ISA_SR_THREADS_PER_THREADGROUP_X, 3},
    {LATTR_DISPATCH_THREADS_PER_THREADGROUP, ISA_SR_DISPATCH_THREADS_PER_THREADGROUP_X, 3},
    {LATTR_THREADGROUPS_PER_GRID, ISA_SR_THREADGROUPS_PER_GRID_X, 3},
    {LATTR_THREAD_INDEX_IN_THREADGROUP, ISA_SR_THREAD_INDEX_IN_THREADGROUP, 1},
    {LATTR_THREAD_EXECUTION_WIDTH, ISA_SR_THREAD_EXECUTION_WIDTH, 1},
    {LATTR_THREADS_PER_SIMDGROUP, ISA_SR_THREADS_PER_SIMDGROUP, 1},
    {LATTR_THREAD_INDEX_IN_SIMDGROUP, ISA_SR_THREAD_INDEX_IN_SIMDGROUP, 1},
    {LATTR_SIMDGROUP_INDEX_IN_THREADGROUP, ISA_SR_SIMDGROUP_INDEX_IN_THREADGROUP, 1},
    {LATTR_SIMDGROUPS_PER_THREADGROUP, ISA_SR_SIMDGROUPS_PER_THREADGROUP, 1},
    {LATTR_DISPATCH_SIMDGROUPS_PER_THREADGROUP, ISA_SR_DISPATCH_SIMDGROUPS_PER_THREADGROUP, 1},
    {LATTR_THREAD_INDEX_IN_QUADGROUP, ISA_SR_THREAD_INDEX_IN_QUADGROUP, 1},
    {LATTR_QUADGROUP_INDEX_IN_THREADGROUP, ISA_SR_QUADGROUP_INDEX_IN_THREADGROUP, 1},
    {LATTR_QUADGROUPS_PER_THREADGROUP, ISA_SR_QUADGROUPS_PER_THREADGROUP, 1},
    {LATTR_DISPATCH_QUADGROUPS_PER_THREADGROUP, ISA_SR_DISPATCH_QUADGROUPS_PER_THREADGROUP, 1},
};

static void bind_builtin_param(LangCg *cg, LangVar *p)
{
    const SrMap *m = NULL;
    for (size_t i = 0; i < sizeof sr_map / sizeof sr_map[0]; i++)
        if (sr_map[i].attr == p->attr)
            m = &sr_map[i];
    LangType *ty = p->type;
    LangType *sc = lang_scalar_of(ty);
    int n = lang_components(ty);
    if (!m || !lang_is_integer(sc) || cg_width_of(sc) == 64 || n > m->comps ||
        (ty->kind != LTY_VECTOR && !lang_is_scalar(ty)))
        cg_error(cg, p->tok, "this attribute needs an integer parameter of fitting size");
    cg_set_loc(cg, p->tok);
    CgBind *b = cg_bind(cg, p);
    b->kind = BIND_REG;
    b->regs = lang_alloc(cg->ctx, (size_t)n * sizeof *b->regs);
    for (int i = 0; i < n; i++) {
        IsaOperand r = lang_cg_new_vreg(cg, 32);
        IsaInst *in = lang_cg_emit(cg, ISA_OP_GET_SR);
        in->opd[0] = r;
        in->opd[1].kind = ISA_OPD_SR;
        in->opd[1].index = (uint16_t)(m->x + i);
        if (cg_is_int16(sc)) { /* ushort lane [[...]]: the low bits, in a half */
            b->regs[i] = cg_narrow16(cg, r, sc);
            cg_name_vreg(cg, b->regs[i], p);
            continue;
        }
        b->regs[i] = cg_normalize(cg, r, sc);
        if (b->regs[i].index != r.index) { /* keep the variable in one register */
            cg_mov(cg, r, b->regs[i], 32);
            b->regs[i] = r;
        }
        cg_name_vreg(cg, r, p);
    }
}

/* A generic walk over an AST: lists (body, args, statements) through next, single children
 * directly; calls are followed into the callee's body once per walk when `into_calls`. */
typedef bool (*CgVisit)(LangNode *n, void *ud);

static bool walk(LangNode *n, CgVisit fn, void *ud, int depth)
{
    if (depth > 200)
        return false;
    for (; n; n = n->next) {
        if (fn(n, ud))
            return true;
        LangNode *singles[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->inc};
        for (size_t i = 0; i < sizeof singles / sizeof singles[0]; i++) {
            if (!singles[i])
                continue;
            LangNode *save = singles[i]->next;
            singles[i]->next = NULL;
            bool hit = walk(singles[i], fn, ud, depth + 1);
            singles[i]->next = save;
            if (hit)
                return true;
        }
        if (walk(n->body, fn, ud, depth + 1) || walk(n->args, fn, ud, depth + 1))
            return true;
        if (n->kind == LND_CALL && n->func && n->func->body && walk(n->func->body, fn, ud, depth + 1))
            return true;
    }
    return false;
}

static bool visit_writes(LangNode *n, void *ud)
{
    LangVar *var = ud;
    return (n->kind == LND_ASSIGN || n->kind == LND_PRE_INC || n->kind == LND_PRE_DEC ||
            n->kind == LND_POST_INC || n->kind == LND_POST_DEC || n->kind == LND_ADDR) &&
           n->lhs && n->lhs->kind == LND_VAR && n->lhs->var == var;
}

bool cg_writes_var(LangNode *body, LangVar *var)
{
    return walk(body, visit_writes, var, 0);
}

typedef struct ConstScan {
    LangCg *cg;
} ConstScan;

static IsaSymbol variable_symbol(LangCg *cg, LangVar *v, IsaSymbolSpace space, uint32_t offset);

/* A program-scope constant array goes to the program's constant data, as Metal keeps it in
 * the constant address space: its bytes from the initializer's leaves (immediates: it was
 * folded), at the next 16-byte boundary, with a uniform pair the launch writes its address
 * into. Indexes, pointers and pointer arithmetic then work as on a constant buffer, the
 * checks bound and name it (`tab[4]`), and no thread copies it. */
static void place_constant_array(LangCg *cg, LangVar *v, CgVal val, CgBind *b)
{
    LangIr *ir = cg->ir;
    int n;
    CgLeaf *l = cg_leaves(cg, v->type, &n);
    const uint64_t start = ((uint64_t)ir->data_bytes + 15) & ~(uint64_t)15;
    if (start + (uint64_t)v->type->size > ISA_MAX_DATA_BYTES)
        cg_error(cg, v->tok, "program-scope constant arrays may hold at most 64 MiB in all");
    if (cg->next_uniform + 2 > 256)
        cg_error(cg, v->tok, "too many kernel arguments and program-scope constant arrays "
                             "(their addresses take uniforms u0..u255)");
    uint8_t *data = lang_alloc(cg->ctx, (size_t)(start + (uint64_t)v->type->size) + 1);
    if (ir->data_bytes)
        memcpy(data, ir->data, ir->data_bytes);
    memset(data + ir->data_bytes, 0, (size_t)(start - ir->data_bytes) + (size_t)v->type->size);
    for (int i = 0; i < n && i < val.n; i++) {
        if (val.c[i].kind != ISA_OPD_IMM)
            cg_error(cg, v->tok, "the initializer of a program-scope constant array must be "
                                 "made of constants");
        for (int k = 0; k < l[i].scalar->size && k < 8; k++)
            data[start + (uint64_t)l[i].off + (uint64_t)k] = (uint8_t)(val.c[i].imm >> (8 * k));
    }
    ir->data = data;
    ir->data_bytes = (uint32_t)(start + (uint64_t)v->type->size);
    IsaSymbol sym = variable_symbol(cg, v, ISA_SYM_CONSTANT, (uint32_t)start);
    sym.uniform = (uint16_t)cg->next_uniform;
    cg->next_uniform += 2;
    if (cg->num_data_syms == cg->cap_data_syms) {
        uint32_t cap = cg->cap_data_syms ? 2 * cg->cap_data_syms : 4;
        IsaSymbol *syms = lang_alloc(cg->ctx, cap * sizeof *syms);
        if (cg->num_data_syms)
            memcpy(syms, cg->data_syms, cg->num_data_syms * sizeof *syms);
        cg->data_syms = syms;
        cg->cap_data_syms = cap;
    }
    cg->data_syms[cg->num_data_syms++] = sym;
    b->kind = BIND_MEM;
    memset(&b->addr, 0, sizeof b->addr);
    b->addr.space = LAS_CONSTANT;
    b->addr.base.kind = ISA_OPD_U64;
    b->addr.base.index = sym.uniform;
    b->addr.scale = 1;
}

bool cg_constant_data_at(LangCg *cg, const CgAddr *a, int extra, int bytes, uint64_t *value)
{
    if (a->space != LAS_CONSTANT || a->base.kind != ISA_OPD_U64 || a->idx.kind != ISA_OPD_NONE)
        return false;
    for (uint32_t i = 0; i < cg->num_data_syms; i++) {
        const IsaSymbol *s = &cg->data_syms[i];
        const int64_t at = a->off + extra;
        if (s->uniform != a->base.index)
            continue;
        if (at < 0 || at + bytes > (int64_t)s->size)
            return false;
        *value = 0;
        for (int k = 0; k < bytes; k++)
            *value |= (uint64_t)cg->ir->data[s->offset + (uint64_t)at + (uint64_t)k] << (8 * k);
        return true;
    }
    return false;
}

/* Program-scope aggregate constants get their values at entry, where every lane is active:
 * vectors and structs as immediates, arrays in the constant data. */
static bool visit_consts(LangNode *n, void *ud)
{
    LangCg *cg = ((ConstScan *)ud)->cg;
    if (n->kind != LND_VAR || !n->var || n->var->kind != LVAR_CONSTANT)
        return false;
    LangVar *v = n->var;
    CgBind *b = cg_bind(cg, v);
    if (b->kind != BIND_NONE)
        return false;
    if (!v->init)
        cg_error(cg, v->tok, "a program-scope constant needs an initializer");
    cg_set_loc(cg, v->tok);
    CgVal val = cg_expr(cg, v->init);
    if (v->type->kind == LTY_ARRAY) {
        place_constant_array(cg, v, val, b);
    } else {
        b->kind = BIND_VALUE;
        b->value = val;
        b->value.type = v->type;
    }
    return false;
}

/* A tensor argument: a buffer whose address is in u, u+1, and its extents and row pitch in
 * u+2..u+4 (the leaves of the tensor struct, in member order). A texture is bound the same
 * way: its texels, width, height and row pitch. */
static void bind_tensor_param(LangCg *cg, LangVar *p, IsaArg *a, uint32_t *uniform)
{
    LangType *ty = p->type, *data = ty->members->type;
    a->name = p->name;
    a->binding = p->attr_index;
    a->type_name = data->base->name;
    a->elem_size = (uint32_t)data->base->size;
    a->is_const = data->base->is_const || data->space == LAS_CONSTANT;
    a->kind = data->space == LAS_CONSTANT ? ISA_ARG_CONSTANT : ISA_ARG_DEVICE;
    a->uniform = (uint16_t)*uniform;
    a->tensor_rank = ty->texture ? 0 : 2;
    a->texture = ty->texture ? (uint8_t)ty->texture->dims : 0;
    if (*uniform + 5 > 256)
        cg_error(cg, p->tok, "too many kernel arguments (uniforms u0..u255)");
    CgVal v = cg_val_new(cg, ty, 4);
    for (int k = 0; k < 4; k++) {
        v.c[k].kind = k ? ISA_OPD_U32 : ISA_OPD_U64;
        v.c[k].index = (uint16_t)(*uniform + (k ? k + 1 : 0));
    }
    *uniform += 5;
    CgBind *b = cg_bind(cg, p);
    if (cg_writes_var(cg->kernel->body, p)) {
        b->kind = BIND_REG;
        b->regs = cg_val_fresh(cg, ty).c;
        cg_copy_into(cg, b->regs, ty, v);
    } else {
        b->kind = BIND_VALUE;
        b->value = v;
    }
}

static void bind_args_in_order(LangCg *cg, LangFunction *k);

/* The kernel's arguments, then uniforms from next_uniform on for the constant data. */
static void bind_args(LangCg *cg, LangFunction *k)
{
    bind_args_in_order(cg, k);
    uint32_t top = 0;
    for (uint32_t i = 0; i < cg->ir->num_args; i++) {
        const IsaArg *a = &cg->ir->args[i];
        uint32_t end = a->uniform + (a->kind == ISA_ARG_THREADGROUP ? 1u
                                     : a->tensor_rank || a->texture ? 5u : 2u);
        top = end > top ? end : top;
    }
    cg->next_uniform = top;
}

static void bind_args_in_order(LangCg *cg, LangFunction *k)
{
    LangIr *ir = cg->ir;
    int nargs = 0;
    for (LangVar *p = k->params; p; p = p->next)
        nargs += (p->attr == LATTR_BUFFER || p->attr == LATTR_THREADGROUP) && !p->absent;
    /* An argument whose function constant is false is not part of the signature: the kernel
     * has no buffer for it, and it reads as a null pointer (code reaching it under a false
     * constant is never run; code that does run it faults, as on a GPU). */
    ir->args = lang_alloc(cg->ctx, (size_t)(nargs ? nargs : 1) * sizeof *ir->args);
    uint32_t uniform = 0;
    for (LangVar *p = k->params; p; p = p->next) {
        cg_set_loc(cg, p->tok);
        if (p->attr == LATTR_NONE)
            cg_error(cg, p->tok, "a kernel parameter needs an attribute ([[buffer(n)]], "
                                 "[[threadgroup(n)]] or a built-in position/index attribute)");
        if (p->attr != LATTR_BUFFER && p->attr != LATTR_THREADGROUP) {
            bind_builtin_param(cg, p);
            continue;
        }
        LangType *ty = p->type;
        if (p->absent && ty->kind == LTY_POINTER) {
            CgBind *b = cg_bind(cg, p);
            b->kind = BIND_VALUE;
            b->value = cg_val_new(cg, ty, 1);
            b->value.c[0] = lang_cg_imm(0);
            continue;
        }
        if (p->absent)
            cg_error(cg, p->tok, "[[function_constant]] on this argument is supported on "
                                 "pointers and references only");
        if (ty->tensor || ty->texture) {
            bind_tensor_param(cg, p, &ir->args[ir->num_args++], &uniform);
            continue;
        }
        if (ty->kind != LTY_POINTER)
            cg_error(cg, p->tok, "a buffer or threadgroup argument must be a pointer or a reference");
        IsaArg *a = &ir->args[ir->num_args++];
        a->name = p->name;
        a->binding = p->attr_index;
        LangType *pointee = ty->base;
        if (pointee->kind == LTY_ATOMIC) /* an atomic_float buffer holds floats */
            pointee = pointee->base;
        if (lang_is_matrix(pointee)) /* a float4x4 buffer holds float4 columns */
            pointee = pointee->base;
        a->type_name = pointee->name ? pointee->name : (char *)lang_type_name(cg->ctx, pointee);
        a->elem_size = (uint32_t)pointee->size;
        a->is_const = pointee->is_const || ty->space == LAS_CONSTANT;
        IsaOperand u = {0};
        if (p->attr == LATTR_THREADGROUP) {
            if (ty->space != LAS_THREADGROUP)
                cg_error(cg, p->tok, "a [[threadgroup(n)]] argument must point to threadgroup memory");
            a->kind = ISA_ARG_THREADGROUP;
            a->uniform = (uint16_t)uniform;
            u.kind = ISA_OPD_U32;
            u.index = (uint16_t)uniform;
            uniform += 1;
        } else {
            if (ty->space != LAS_DEVICE && ty->space != LAS_CONSTANT)
                cg_error(cg, p->tok, "a [[buffer(n)]] argument must point to device or constant memory");
            a->kind = ty->space == LAS_DEVICE ? ISA_ARG_DEVICE : ISA_ARG_CONSTANT;
            a->uniform = (uint16_t)uniform;
            u.kind = ISA_OPD_U64;
            u.index = (uint16_t)uniform;
            uniform += 2;
        }
        if (uniform > 256)
            cg_error(cg, p->tok, "too many kernel arguments (uniforms u0..u255)");
        CgBind *b = cg_bind(cg, p);
        if (cg_writes_var(k->body, p)) {
            b->kind = BIND_REG;
            b->regs = lang_alloc(cg->ctx, sizeof *b->regs);
            b->regs[0] = cg_vreg_for(cg, ty);
            cg_mov(cg, b->regs[0], u, cg_width_of(ty));
            cg_name_vreg(cg, b->regs[0], p);
        } else {
            b->kind = BIND_VALUE;
            b->value = cg_val_new(cg, ty, 1);
            b->value.c[0] = u;
        }
    }
}

/* A variable's symbol: indices count elements of the innermost non-array type. */
static IsaSymbol variable_symbol(LangCg *cg, LangVar *v, IsaSymbolSpace space, uint32_t offset)
{
    LangType *elem = v->type;
    /* a cooperative tensor is named by its elements, as the kernel indexes it (ct[3]) */
    bool coop = v->type->tensor && v->type->tensor->kind == LTN_COOP;
    if (coop)
        elem = v->type->members->type;
    while (elem->kind == LTY_ARRAY)
        elem = elem->base;
    IsaSymbol sym = {
        .name = v->name,
        .type_name = (char *)lang_type_name(cg->ctx, elem),
        .space = space,
        .offset = offset,
        .size = (uint32_t)v->type->size,
        .elem_size = (uint32_t)(elem->size ? elem->size : 1),
        .array = coop || v->type->kind == LTY_ARRAY,
    };
    /* the inner extents of an array of up to 4 dimensions (more: named by flat index) */
    const LangType *t = v->type->kind == LTY_ARRAY ? v->type->base : NULL;
    for (int k = 0; t && t->kind == LTY_ARRAY && k < 3; k++, t = t->base)
        sym.dims[k] = (uint32_t)t->len;
    if (t && t->kind == LTY_ARRAY)
        memset(sym.dims, 0, sizeof sym.dims);
    return sym;
}

/* A local kept in thread (stack) memory at `offset`, just allocated in the current scope:
 * the memory checks track reads of its bytes before any write from here, its declaration,
 * and name it (`acc[6]`). Spill slots and temporaries have none. */
void cg_name_thread_variable(LangCg *cg, LangVar *var, uint32_t offset)
{
    if (!var->name || !var->name[0])
        return; /* a compiler temporary: nothing to call it */
    if (cg->num_live && cg->stack_live[cg->num_live - 1].off == offset) {
        cg->stack_live[cg->num_live - 1].sym = cg->num_thread_syms + 1;
        IsaInst *in = lang_cg_emit(cg, ISA_OP_NOP);
        in->flags = LANG_IR_SCOPE_BEGIN;
        cg->ir->insts[cg->ir->count - 1].sym = cg->num_thread_syms;
    }
    if (cg->num_thread_syms == cg->cap_thread_syms) {
        uint32_t cap = cg->cap_thread_syms ? 2 * cg->cap_thread_syms : 8;
        IsaSymbol *n = lang_alloc(cg->ctx, cap * sizeof *n);
        if (cg->num_thread_syms)
            memcpy(n, cg->thread_syms, cg->num_thread_syms * sizeof *n);
        cg->thread_syms = n;
        cg->cap_thread_syms = cap;
    }
    cg->thread_syms[cg->num_thread_syms++] = variable_symbol(cg, var, ISA_SYM_THREAD, offset);
}

/* The kernel's threadgroup variables and the locals kept in thread memory, so checkers can
 * say `shared[10]` rather than a byte offset. */
static void name_variables(LangCg *cg, LangFunction *kernel)
{
    uint32_t n = cg->num_thread_syms + cg->num_data_syms;
    for (LangVar *v = kernel->locals; v; v = v->next)
        n += v->kind == LVAR_THREADGROUP;
    if (!n)
        return;
    IsaSymbol *syms = lang_alloc(cg->ctx, n * sizeof *syms);
    uint32_t i = 0;
    for (LangVar *v = kernel->locals; v; v = v->next)
        if (v->kind == LVAR_THREADGROUP)
            syms[i++] = variable_symbol(cg, v, ISA_SYM_THREADGROUP, (uint32_t)v->tg_offset);
    for (uint32_t k = 0; k < cg->num_thread_syms; k++)
        syms[i++] = cg->thread_syms[k];
    for (uint32_t k = 0; k < cg->num_data_syms; k++)
        syms[i++] = cg->data_syms[k];
    cg->ir->symbols = syms;
    cg->ir->num_symbols = n;
}

LangIr *lang_codegen(LangCtx *ctx, LangUnit *unit, LangFunction *kernel)
{
    LangCg *cg = lang_alloc(ctx, sizeof *cg);
    cg->ctx = ctx;
    cg->unit = unit;
    cg->kernel = kernel;
    cg->vec_mem = true;
    cg->ir = lang_alloc(ctx, sizeof *cg->ir);
    cg->ir->name = kernel->name;
    IsaOperand r0l = lang_cg_new_vreg(cg, 16); /* vreg 0: r0l, the exec nesting counter */
    (void)r0l;
    cg_set_loc(cg, kernel->tok);
    if (!kernel->body)
        cg_error(cg, kernel->tok, "the kernel has no body");
    cg_place_arrays(unit);
    bind_args(cg, kernel);
    ConstScan scan = {cg};
    walk(kernel->body, visit_consts, &scan, 0);
    cg->inline_stack = lang_alloc(ctx, 64 * sizeof *cg->inline_stack);
    cg->inline_stack[cg->inline_depth++] = kernel;
    cg_stmt(cg, kernel->body);
    IsaInst *stop = lang_cg_emit(cg, ISA_OP_STOP);
    (void)stop;
    cg->ir->tg_mem_bytes = (uint32_t)kernel->tg_mem_bytes;
    cg->ir->stack_bytes = cg->stack_bytes;
    name_variables(cg, kernel);
    return cg->ir;
}
