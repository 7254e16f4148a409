/*
 * codegen_stmt.c — statements and structured control flow lowered to Apple's exec-mask ops
 * (apple-gpu-facts.md), and user functions inlined at each call.
 *
 * Counter values, derived from the op semantics (D = r0l, a lane runs iff D == 0):
 *  - if/else: if_*cmp n=1 .. else_icmp n=1 (0 == 0) .. pop_exec 1. A lane at D >= 2 inside
 *    an if is untouched by its else and comes out at D - 1.
 *  - loops: push_exec 2; [for/while: while_icmp n=2 on the condition, so lanes failing the
 *    first test wait at 2 — the test-first choice]; head: body; continue label;
 *    [while_icmp n=2 (0 == 0) when the loop has a continue: lanes at 1 run again for the
 *    increment]; inc; while_icmp n=2 on the condition; jmp_exec_any head; pop_exec 2.
 *  - break inside k ifs (and switch case regions) of its loop: D = 2 + k, i.e. depth minus
 *    the loop's base depth: each if's pop takes one off, the loop's while leaves D >= 2
 *    alone, and pop_exec 2 brings the lane back to 0 after the loop.
 *  - continue inside k ifs: D = 1 + k: after the k pops the lane is at 1, which the loop's
 *    while_icmp (D < 2) re-tests. At every else on the way D >= 2, so no else revives it.
 *  - return from the kernel at depth d > 0: D = d + 1, so the lane ends at 1 at the top level
 *    and never runs again; at depth 0 every running lane returns: `stop`.
 *  - an inlined function with a return before its end runs inside push_exec 1 .. pop_exec 1;
 *    return sets D = depth - base, which the pops bring back to 0 at the function's end.
 *  - switch: push_exec 2 (a region break can leave, as a loop); a flag f collects "this
 *    lane has matched" (fallthrough keeps it set); each case body runs under if (f);
 *    default matches lanes no case value matched; pop_exec 2.
 * Every early exit writes r0l with mov16 and refreshes the mask with pop_exec 0.
 */
#include <string.h>

#include "codegen_internal.h"

static void add_loop(LangCg *cg, int head, int end)
{
    LangIr *ir = cg->ir;
    ir->loops = lang_grow(cg->ctx, ir->loops, ir->num_loops, &ir->loops_cap, sizeof *ir->loops, 16);
    ir->loops[ir->num_loops].head_label = head;
    ir->loops[ir->num_loops].end_label = end;
    ir->num_loops++;
}

static void exec_op(LangCg *cg, IsaOpcode op, int n)
{
    IsaInst *in = lang_cg_emit(cg, op);
    in->opd[0] = cg_num(n);
}

static void while_always(LangCg *cg)
{
    IsaInst *in = lang_cg_emit(cg, ISA_OP_WHILE_ICMP);
    in->cond = ISA_COND_EQ;
    in->opd[0] = cg_num(2);
    in->opd[1] = lang_cg_imm(0);
    in->opd[2] = lang_cg_imm(0);
}

/* A single compare of 32-bit scalars can feed the exec op directly. */
static bool direct_compare(LangNode *c)
{
    if (!c || c->kind < LND_EQ || c->kind > LND_GE)
        return false;
    LangType *t = c->lhs->type;
    return lang_is_scalar(t) && cg_width_of(t) == 32 && lang_same_type(t, c->rhs->type);
}

static IsaCond cond_of(LangNode *c, bool *is_float)
{
    LangType *t = c->lhs->type;
    bool fl = lang_is_float(t), u = lang_is_unsigned(t);
    *is_float = fl;
    switch (c->kind) {
    case LND_EQ: return ISA_COND_EQ;
    case LND_NE: return ISA_COND_NE;
    case LND_LT: return fl ? ISA_COND_LT : u ? ISA_COND_ULT : ISA_COND_SLT;
    case LND_LE: return fl ? ISA_COND_LE : u ? ISA_COND_ULE : ISA_COND_SLE;
    case LND_GT: return fl ? ISA_COND_GT : u ? ISA_COND_UGT : ISA_COND_SGT;
    default: return fl ? ISA_COND_GE : u ? ISA_COND_UGE : ISA_COND_SGE;
    }
}

/* while_*cmp n=2 testing the condition node: lanes failing it wait at 2. */
static void exec_test(LangCg *cg, LangNode *c, bool is_while)
{
    (void)is_while;
    cg_set_loc(cg, c->tok);
    IsaOperand a, b;
    IsaCond cond;
    bool fl = false;
    if (direct_compare(c)) {
        a = cg_scalar(cg, c->lhs);
        b = cg_scalar(cg, c->rhs);
        cond = cond_of(c, &fl);
    } else {
        a = cg_bool_of(cg, cg_scalar(cg, c), c->type);
        b = lang_cg_imm(0);
        cond = ISA_COND_NE;
    }
    IsaInst *in = lang_cg_emit(cg, fl ? ISA_OP_WHILE_FCMP : ISA_OP_WHILE_ICMP);
    in->cond = (uint8_t)cond;
    in->opd[0] = cg_num(2);
    in->opd[1] = a;
    in->opd[2] = b;
}

static void if_stmt(LangCg *cg, LangNode *n)
{
    int skip;
    cg_set_loc(cg, n->cond->tok);
    if (direct_compare(n->cond)) {
        bool fl;
        IsaOperand a = cg_scalar(cg, n->cond->lhs), b = cg_scalar(cg, n->cond->rhs);
        IsaCond c = cond_of(n->cond, &fl);
        cg_set_loc(cg, n->tok);
        cg_if_cmp_begin(cg, fl ? ISA_OP_IF_FCMP : ISA_OP_IF_ICMP, c, a, b, &skip);
    } else {
        IsaOperand c = cg_bool_of(cg, cg_scalar(cg, n->cond), n->cond->type);
        cg_set_loc(cg, n->tok);
        cg_if_begin(cg, c, &skip);
    }
    cg_stmt(cg, n->then);
    if (n->els) {
        cg_set_loc(cg, n->tok);
        cg_if_else(cg, &skip);
        cg_stmt(cg, n->els);
    }
    cg_set_loc(cg, n->tok);
    cg_if_end(cg, skip);
}

static void loop_stmt(LangCg *cg, LangNode *n)
{
    if (cg_try_unroll(cg, n)) /* codegen_unroll.c */
        return;
    bool is_do = n->kind == LND_DO;
    if (n->init)
        cg_stmt(cg, n->init);
    cg_set_loc(cg, n->tok);
    CgRegion r = {0};
    r.up = cg->region;
    r.base_depth = cg->depth;
    r.is_loop = true;
    exec_op(cg, ISA_OP_PUSH_EXEC, 2);
    cg->depth += 2;
    cg->region = &r;
    int head = cg_new_label(cg), end = cg_new_label(cg);
    if (!is_do && n->cond) {
        exec_test(cg, n->cond, true);
        IsaInst *j = lang_cg_emit(cg, ISA_OP_JMP_EXEC_NONE);
        j->opd[0] = cg_label_opd(end);
        j->flags = LANG_IR_OPTIONAL;
    }
    cg_label(cg, head);
    cg_stmt(cg, n->body);
    cg_set_loc(cg, n->tok);
    if (r.has_continue)
        while_always(cg);
    if (n->inc)
        cg_expr(cg, n->inc);
    if (n->cond) {
        exec_test(cg, n->cond, true);
    } else {
        cg_set_loc(cg, n->tok);
        while_always(cg);
    }
    cg_set_loc(cg, n->tok);
    IsaInst *j = lang_cg_emit(cg, ISA_OP_JMP_EXEC_ANY);
    j->opd[0] = cg_label_opd(head);
    cg_label(cg, end);
    exec_op(cg, ISA_OP_POP_EXEC, 2);
    cg->depth -= 2;
    cg->region = r.up;
    add_loop(cg, head, end);
}

static void while_cmp(LangCg *cg, IsaCond cond, IsaOperand a, IsaOperand b)
{
    IsaInst *in = lang_cg_emit(cg, ISA_OP_WHILE_ICMP);
    in->cond = (uint8_t)cond;
    in->opd[0] = cg_num(2);
    in->opd[1] = a;
    in->opd[2] = b;
}

void cg_loop_begin(LangCg *cg, CgLoop *l, IsaCond cond, IsaOperand a, IsaOperand b)
{
    memset(l, 0, sizeof *l);
    l->r.up = cg->region;
    l->r.base_depth = cg->depth;
    l->r.is_loop = true;
    exec_op(cg, ISA_OP_PUSH_EXEC, 2);
    cg->depth += 2;
    cg->region = &l->r;
    l->head = cg_new_label(cg);
    l->end = cg_new_label(cg);
    while_cmp(cg, cond, a, b);
    IsaInst *j = lang_cg_emit(cg, ISA_OP_JMP_EXEC_NONE);
    j->opd[0] = cg_label_opd(l->end);
    j->flags = LANG_IR_OPTIONAL;
    cg_label(cg, l->head);
}

void cg_loop_end(LangCg *cg, CgLoop *l, IsaCond cond, IsaOperand a, IsaOperand b)
{
    while_cmp(cg, cond, a, b);
    IsaInst *j = lang_cg_emit(cg, ISA_OP_JMP_EXEC_ANY);
    j->opd[0] = cg_label_opd(l->head);
    cg_label(cg, l->end);
    exec_op(cg, ISA_OP_POP_EXEC, 2);
    cg->depth -= 2;
    cg->region = l->r.up;
    add_loop(cg, l->head, l->end);
}

/* A case value as the selector's immediate: all 64 bits for long/ulong selectors. */
static IsaOperand case_imm(int64_t v, bool wide)
{
    return lang_cg_imm(wide ? (uint64_t)v : (uint32_t)v);
}

static void switch_stmt(LangCg *cg, LangNode *n)
{
    IsaOperand sel = cg_scalar(cg, n->cond);
    if (cg_is_int16(n->cond->type))
        sel = cg_widen16(cg, sel, n->cond->type);
    bool wide = cg_width_of(n->cond->type) == 64;
    IsaOpcode cmp = wide ? ISA_OP_ICMPSEL64 : ISA_OP_ICMPSEL;
    cg_set_loc(cg, n->tok);
    CgRegion r = {0};
    r.up = cg->region;
    r.base_depth = cg->depth;
    r.is_switch = true;
    exec_op(cg, ISA_OP_PUSH_EXEC, 2);
    cg->depth += 2;
    cg->region = &r;
    IsaOperand f = cg_mov(cg, lang_cg_new_vreg(cg, 32), lang_cg_imm(0), 32);
    IsaOperand nomatch = lang_cg_imm(1);
    bool has_default = false;
    for (LangNode *c = n->case_next; c; c = c->case_next) {
        if (c->is_default) {
            has_default = true;
            continue;
        }
        IsaOperand d = lang_cg_new_vreg(cg, 32);
        IsaInst *in = lang_cg_emit(cg, cmp);
        in->cond = ISA_COND_EQ;
        in->opd[0] = d, in->opd[1] = sel, in->opd[2] = case_imm(c->case_value, wide);
        in->opd[3] = lang_cg_imm(0), in->opd[4] = nomatch;
        nomatch = d;
    }
    for (LangNode *c = n->case_next; c; c = c->case_next) {
        cg_set_loc(cg, c->tok);
        IsaInst *in;
        if (c->is_default) {
            in = lang_cg_emit(cg, ISA_OP_OR);
            in->opd[0] = f, in->opd[1] = f, in->opd[2] = nomatch;
        } else {
            in = lang_cg_emit(cg, cmp);
            in->cond = ISA_COND_EQ;
            in->opd[0] = f, in->opd[1] = sel, in->opd[2] = case_imm(c->case_value, wide);
            in->opd[3] = lang_cg_imm(1), in->opd[4] = f;
        }
        if (!c->body)
            continue;
        int skip;
        cg_if_begin(cg, f, &skip);
        for (LangNode *s = c->body; s; s = s->next)
            cg_stmt(cg, s);
        cg_set_loc(cg, c->tok);
        cg_if_end(cg, skip);
    }
    (void)has_default;
    cg_set_loc(cg, n->tok);
    exec_op(cg, ISA_OP_POP_EXEC, 2);
    cg->depth -= 2;
    cg->region = r.up;
}

static CgRegion *find_region(LangCg *cg, bool want_loop_only)
{
    for (CgRegion *r = cg->region; r; r = r->up) {
        if (r->is_func)
            return NULL;
        if (r->is_loop || (!want_loop_only && r->is_switch))
            return r;
    }
    return NULL;
}

static CgRegion *func_region(LangCg *cg)
{
    for (CgRegion *r = cg->region; r; r = r->up)
        if (r->is_func)
            return r;
    return NULL;
}

static void return_stmt(LangCg *cg, LangNode *n)
{
    CgRegion *fr = func_region(cg);
    if (!fr) {
        if (n->lhs)
            cg_expr(cg, n->lhs);
        if (cg->depth == 0) {
            lang_cg_emit(cg, ISA_OP_STOP);
            return;
        }
        cg_set_depth_and_refresh(cg, cg->depth + 1);
        return;
    }
    if (n->lhs) {
        CgVal v = cg_expr(cg, n->lhs);
        cg_set_loc(cg, n->tok);
        cg_copy_into(cg, fr->ret.c, fr->ret.type, v);
    }
    if (n == (LangNode *)fr->ret.ref) /* the function's last statement: nothing to skip */
        return;
    cg_set_depth_and_refresh(cg, cg->depth - fr->base_depth);
}

void cg_bind_local(LangCg *cg, LangVar *var)
{
    CgBind *b = cg_bind(cg, var);
    LangType *ty = var->type;
    memset(b, 0, sizeof *b);
    if (var->kind == LVAR_THREADGROUP) {
        b->kind = BIND_MEM;
        b->addr.space = LAS_THREADGROUP;
        b->addr.base = lang_cg_imm((uint32_t)var->tg_offset);
        b->addr.scale = 1;
        return;
    }
    int n = cg_leaf_count(ty);
    if (var->address_taken || (ty->kind == LTY_ARRAY && n > 64) || n > 256) {
        b->kind = BIND_MEM;
        b->addr.space = LAS_THREAD;
        uint32_t offset = cg_stack_alloc(cg, ty->size, ty->align);
        b->addr.base = lang_cg_imm(offset);
        b->addr.scale = 1;
        cg_name_thread_variable(cg, var, offset);
        return;
    }
    CgVal v = cg_val_fresh(cg, ty);
    b->kind = BIND_REG;
    b->regs = v.c;
    for (int i = 0; i < v.n; i++)
        cg_name_vreg(cg, v.c[i], var);
}

static void decl_stmt(LangCg *cg, LangNode *n)
{
    LangVar *var = n->var;
    if (!var)
        return;
    cg_bind_local(cg, var);
    if (!n->init) {
        cg_mark_undefined(cg, cg_bind(cg, var), var);
        return;
    }
    CgVal v = cg_expr(cg, n->init);
    cg_set_loc(cg, n->tok);
    CgBind *b = cg_bind(cg, var);
    if (b->kind == BIND_MEM) {
        cg_store_addr(cg, &b->addr, var->type, v);
        return;
    }
    if (var->type->kind == LTY_POINTER && v.ref) { /* a pointer to a register variable */
        b->kind = BIND_VALUE;
        b->value = v;
        return;
    }
    cg_copy_into(cg, b->regs, var->type, v);
}

void cg_stmt(LangCg *cg, LangNode *n)
{
    if (!n)
        return;
    cg_set_loc(cg, n->tok);
    switch (n->kind) {
    case LND_BLOCK: {
        const uint32_t scope = cg_scope_begin(cg);
        for (LangNode *s = n->body; s; s = s->next)
            cg_stmt(cg, s);
        cg_scope_end(cg, scope);
        return;
    }
    case LND_EXPR_STMT:
        if (n->lhs)
            cg_expr(cg, n->lhs);
        return;
    case LND_DECL: decl_stmt(cg, n); return;
    case LND_IF: if_stmt(cg, n); return;
    case LND_FOR: case LND_DO: loop_stmt(cg, n); return;
    case LND_SWITCH: switch_stmt(cg, n); return;
    case LND_CASE: /* reached only through the switch */
        return;
    case LND_BREAK: {
        CgRegion *r = find_region(cg, false);
        if (!r)
            cg_error(cg, n->tok, "'break' outside a loop or switch");
        cg_set_depth_and_refresh(cg, cg->depth - r->base_depth);
        return;
    }
    case LND_CONTINUE: {
        CgRegion *r = find_region(cg, true);
        if (!r)
            cg_error(cg, n->tok, "'continue' outside a loop");
        r->has_continue = true;
        cg_set_depth_and_refresh(cg, cg->depth - r->base_depth - 1);
        return;
    }
    case LND_RETURN: return_stmt(cg, n); return;
    case LND_NULL_STMT: return;
    default:
        cg_expr(cg, n);
        return;
    }
}

/* ---- inlining ------------------------------------------------------------------------------- */

static bool has_return(LangNode *n, LangNode *tail)
{
    for (; n; n = n->next) {
        if (n->kind == LND_RETURN && n != tail)
            return true;
        if (n->kind == LND_IF && (has_return(n->then ? n->then : NULL, tail) ||
                                  has_return(n->els, tail)))
            return true;
        if ((n->kind == LND_FOR || n->kind == LND_DO || n->kind == LND_BLOCK ||
             n->kind == LND_SWITCH || n->kind == LND_CASE) && has_return(n->body, tail))
            return true;
    }
    return false;
}

/* has_return over a single statement (not its siblings) */
static bool stmt_has_return(LangNode *s, LangNode *tail)
{
    if (!s)
        return false;
    LangNode *save = s->next;
    s->next = NULL;
    bool r = has_return(s, tail);
    s->next = save;
    return r;
}

/* Records the call being inlined at cg->loc; returns its IsaSourceLoc.call. One call in the
 * source is one call site, however often it is inlined (an unrolled loop's copies). */
static uint32_t call_site(LangCg *cg, const LangFunction *f)
{
    LangIr *ir = cg->ir;
    for (uint32_t i = 0; i < ir->num_calls; i++)
        if (isa_same_loc(&ir->calls[i].loc, &cg->loc) && strcmp(ir->calls[i].func, f->name) == 0)
            return i + 1;
    ir->calls = lang_grow(cg->ctx, ir->calls, ir->num_calls, &ir->calls_cap, sizeof *ir->calls, 16);
    ir->calls[ir->num_calls] = (IsaCallSite){.func = f->name, .loc = cg->loc};
    return ++ir->num_calls;
}

CgVal cg_call(LangCg *cg, LangNode *node)
{
    LangFunction *f = node->func;
    if (!f || !f->body)
        lang_error_at(cg->ctx, node->tok, "function '%s' is declared but never defined",
                      f ? f->name : "?");
    if (cg->inline_depth >= 64)
        cg_error(cg, node->tok, "calls nest too deeply to inline");
    for (int i = 0; i < cg->inline_depth; i++)
        if (cg->inline_stack[i] == f)
            cg_error(cg, node->tok, "recursive calls are not supported");
    /* arguments first: a nested call of the same function must not see our bindings */
    int np = f->num_params;
    CgVal *vals = lang_alloc(cg->ctx, (size_t)(np ? np : 1) * sizeof *vals);
    LangVar *p = f->params;
    LangNode *a = node->args;
    for (int i = 0; i < np && p && a; i++, p = p->next, a = a->next) {
        if (p->type->kind == LTY_POINTER && p->type->is_reference &&
            a->type->kind != LTY_POINTER) {
            /* a reference bound to an lvalue */
            CgLval *lv = cg_lval(cg, a);
            if (lv->kind == LV_MEM) {
                vals[i] = cg_pointer_of_addr(cg, &lv->addr, p->type);
            } else {
                vals[i] = cg_val_new(cg, p->type, 1);
                vals[i].c[0] = lang_cg_imm(0);
                vals[i].ref = lv;
            }
        } else {
            vals[i] = cg_expr(cg, a);
        }
    }
    cg_set_loc(cg, node->tok);
    const uint32_t scope = cg_scope_begin(cg); /* its parameters and locals */
    p = f->params;
    for (int i = 0; i < np && p; i++, p = p->next) {
        CgBind *b = cg_bind(cg, p);
        memset(b, 0, sizeof *b);
        LangType *ty = p->type;
        CgVal v = vals[i];
        if (v.ref || (ty->kind == LTY_POINTER && !cg_writes_var(f->body, p))) {
            b->kind = BIND_VALUE;
            b->value = v;
            b->value.type = ty;
            continue;
        }
        if (ty->kind != LTY_POINTER && lang_is_scalar(lang_scalar_of(ty)) &&
            lang_is_scalar(lang_scalar_of(v.type)) && !lang_same_type(lang_scalar_of(ty), lang_scalar_of(v.type))) {
            for (int k = 0; k < v.n; k++)
                v.c[k] = cg_convert(cg, v.c[k], lang_scalar_of(v.type), lang_scalar_of(ty));
        }
        if (lang_is_integer(ty) && v.n == 1 && v.c[0].kind == ISA_OPD_IMM &&
            !cg_writes_var(f->body, p)) {
            /* a constant the body never changes (a counter of an unrolled loop passed to
             * `v[i]`): the body's array indexes fold (cg_fold_index) */
            b->kind = BIND_VALUE;
            b->value = v;
            b->value.type = ty;
            continue;
        }
        cg_bind_local(cg, p);
        if (b->kind == BIND_MEM)
            cg_store_addr(cg, &b->addr, ty, v);
        else
            cg_copy_into(cg, b->regs, ty, v);
    }
    CgRegion r = {0};
    r.up = cg->region;
    r.is_func = true;
    r.base_depth = cg->depth;
    if (f->ret && f->ret->kind != LTY_VOID)
        r.ret = cg_val_fresh(cg, f->ret);
    else
        r.ret = cg_val_new(cg, lang_ty_void, 0);
    LangNode *tail = NULL;
    for (LangNode *s = f->body->body; s; s = s->next)
        tail = s;
    if (!tail || tail->kind != LND_RETURN)
        tail = NULL;
    r.ret.ref = (CgLval *)tail; /* marks the tail return (see return_stmt) */
    bool region = stmt_has_return(f->body, tail);
    cg->region = &r;
    cg->inline_stack[cg->inline_depth++] = f;
    if (region) {
        exec_op(cg, ISA_OP_PUSH_EXEC, 1);
        cg->depth += 1;
    }
    uint32_t outer_call = cg->call;
    cg->call = call_site(cg, f);
    cg_stmt(cg, f->body);
    cg->call = outer_call;
    cg_set_loc(cg, node->tok); /* what follows belongs to the call again */
    if (region) {
        exec_op(cg, ISA_OP_POP_EXEC, 1);
        cg->depth -= 1;
    }
    cg->inline_depth--;
    cg->region = r.up;
    cg_scope_end(cg, scope);
    CgVal ret = r.ret;
    ret.ref = NULL;
    ret.type = f->ret ? f->ret : lang_ty_void;
    return ret;
}
