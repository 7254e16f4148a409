/*
 * codegen_refs.c — where an object passed to a `thread` reference parameter lives. Every
 * call is inlined, so the parameter can designate the caller's registers (CgVal.ref) as
 * Apple's compiler keeps such an object in registers: `acc(s, v)` with `void acc(thread
 * float &a, float v) { a += v; }` adds into s's register. The object goes to thread (stack)
 * memory only when its function does something with the parameter that needs an address:
 *
 *   - `&a` or `&a.m` (an address kept, compared, or given to a pointer parameter; an array
 *     member decaying to a pointer is the same), or a local reference bound to it;
 *   - `a.arr[k]` with k not a constant at every step of the unrolled loops around it (the
 *     index check is in codegen_unroll.c's placement, beside the one for local arrays);
 *   - passing it on to a reference parameter that needs memory itself, or calling a member
 *     function on it that takes an address inside its object (LangFunction.this_escapes).
 *
 * Everything else works on a register lvalue as on a local: reads, writes, compound
 * assignment, ++/--, members, swizzles, whole-object assignment, vector indexes (a select
 * when not constant), constant array indexes, and passing it on to a reference parameter
 * that is itself fine, to any depth (each function's parameters are judged from their own
 * body, so a callee defined after its caller is no different). The caller's variable, the
 * root of the argument (`s`, or `t` of `t.acc[2]`), then goes to memory only if the
 * parameter needs it, as `&s` would put it there.
 *
 * A parameter starts as fine and is only ever marked as needing memory, as a variable is
 * only ever marked address_taken; marking one can stop a loop from unrolling (a local in
 * memory in its body) and so make an index non-constant, so this runs inside the
 * placement's fixpoint (cg_place_arrays), repeated until nothing changes. Recursion needs
 * no guard here: each body is scanned once a round and calls are not followed.
 */
#include <string.h>

#include "codegen_internal.h"

enum { MAX_DEPTH = 512 }; /* twice the parser's nesting limit: never reached */

static bool is_thread_ref(const LangType *t)
{
    return t->kind == LTY_POINTER && t->is_reference && t->space == LAS_THREAD;
}

static bool takes_this(const LangFunction *f)
{
    return f && f->is_method && f->params && strcmp(f->params->name, "this") == 0;
}

/* A use of a thread reference parameter as such (the parser reads it as `*a`), or of a
 * member function's `this` on a thread object: the same pointer to a caller's object. */
static LangVar *ref_param(const LangNode *n)
{
    if (!n || n->kind != LND_VAR || n->var->kind != LVAR_PARAM)
        return NULL;
    const LangType *t = n->var->type;
    bool is_this = t->kind == LTY_POINTER && !t->is_reference && t->space == LAS_THREAD &&
                   n->var->name && strcmp(n->var->name, "this") == 0;
    return is_thread_ref(t) || is_this ? n->var : NULL;
}

/* The object an lvalue is part of: below its members, swizzles, elements and indexes. */
static const LangNode *path_root(const LangNode *n)
{
    while (n->kind == LND_MEMBER || n->kind == LND_SWIZZLE || n->kind == LND_ELEMENTS ||
           (n->kind == LND_INDEX && n->lhs->type->kind != LTY_POINTER))
        n = n->lhs;
    return n;
}

/* The thread reference parameter an lvalue designates part of (`a.v[1]`), or NULL. */
static LangVar *path_param(const LangNode *lvalue)
{
    const LangNode *r = path_root(lvalue);
    return r->kind == LND_DEREF ? ref_param(r->lhs) : NULL;
}

LangVar *cg_ref_object(const LangNode *lvalue)
{
    return path_param(lvalue);
}

typedef struct RefScan {
    bool changed;
} RefScan;

static void needs_memory(RefScan *s, LangVar *param)
{
    if (param && !param->ref_in_memory) {
        param->ref_in_memory = true;
        s->changed = true;
    }
}

static void scan(RefScan *s, LangNode *n, int depth);

static void scan_one(RefScan *s, LangNode *n, int depth)
{
    if (!n)
        return;
    LangNode *next = n->next;
    n->next = NULL;
    scan(s, n, depth);
    n->next = next;
}

/* The expressions inside an lvalue whose object is bound to a reference: its indexes, and
 * the pointer below a `*p` or `p[i]` it starts from. The object itself is not a use. */
static void scan_path(RefScan *s, const LangNode *lvalue, int depth)
{
    const LangNode *n = lvalue;
    while (n->kind == LND_MEMBER || n->kind == LND_SWIZZLE || n->kind == LND_ELEMENTS ||
           (n->kind == LND_INDEX && n->lhs->type->kind != LTY_POINTER)) {
        if (n->kind == LND_INDEX)
            scan_one(s, n->rhs, depth + 1);
        n = n->lhs;
    }
    if (n->kind == LND_DEREF && !ref_param(n->lhs))
        scan_one(s, n->lhs, depth + 1);
    else if (n->kind != LND_DEREF && n->kind != LND_VAR)
        scan_one(s, (LangNode *)n, depth + 1);
}

/* An lvalue bound to a parameter whose object must be in memory or not (`in_memory`): a
 * thread reference parameter it is part of then needs memory too, and so does a variable. */
static void bind_object(RefScan *s, LangNode *lvalue, bool in_memory, int depth)
{
    if (in_memory) {
        needs_memory(s, path_param(lvalue));
        const LangNode *r = path_root(lvalue);
        LangVar *v = r->kind == LND_VAR ? r->var : NULL;
        if (v && !v->address_taken) {
            v->address_taken = true;
            s->changed = true;
        }
    }
    scan_path(s, lvalue, depth);
}

/* A call's arguments: objects bound to thread references and the object of a member
 * function, judged by what the callee does with them; anything else is scanned as usual. */
static void scan_call(RefScan *s, LangNode *call, int depth)
{
    LangFunction *f = call->func;
    LangVar *param = f ? f->params : NULL;
    for (LangNode *a = call->args; a; a = a->next, param = param ? param->next : NULL) {
        if (a == call->args && takes_this(f) && a->kind == LND_CAST) {
            /* make_call: `a.f()` on a reference `a` (or in a member function, on *this),
             * or the object's address */
            LangNode *self = a->lhs;
            bool in_memory = f->this_escapes || f->params->ref_in_memory;
            if (ref_param(self)) {
                if (in_memory)
                    needs_memory(s, self->var);
                continue;
            }
            if (self->kind == LND_ADDR && !self->temporary) {
                bind_object(s, self->lhs, in_memory, depth);
                continue;
            }
        }
        if (param && is_thread_ref(param->type) && a->kind == LND_ADDR && !a->temporary) {
            bind_object(s, a->lhs, param->ref_in_memory || !f->body, depth);
            continue;
        }
        scan_one(s, a, depth + 1);
    }
}

/* Every statement and expression from n on (through next). */
static void scan(RefScan *s, LangNode *n, int depth)
{
    if (depth > MAX_DEPTH)
        return; /* deeper than the parser allows: nothing to find */
    for (; n; n = n->next) {
        switch (n->kind) {
        case LND_CALL:
            scan_call(s, n, depth);
            continue;
        case LND_ADDR: /* &a, &a.m, a local reference to it, an array member decaying */
            if (!n->temporary)
                needs_memory(s, path_param(n->lhs));
            break;
        case LND_DEREF:
            if (ref_param(n->lhs))
                continue; /* the object itself: read or written in place */
            break;
        case LND_VAR: /* the reference as a pointer value, anywhere else */
            needs_memory(s, ref_param(n));
            continue;
        default:
            break;
        }
        LangNode *const kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els,
                                  n->init, n->inc, n->body, n->args};
        for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++)
            scan(s, kids[i], depth + 1);
        if (n->kind == LND_SWITCH)
            scan(s, n->case_next, depth + 1);
    }
}

bool cg_place_refs(LangUnit *unit)
{
    RefScan s = {.changed = false};
    for (LangFunction *f = unit->funcs; f; f = f->next)
        scan(&s, f->body, 0);
    return s.changed;
}
