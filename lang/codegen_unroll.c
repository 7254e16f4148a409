/*
 * codegen_unroll.c — full unrolling of small counted loops, as a GPU compiler does for a
 * tile loop (`for (uint k = 0; k < TILE; k++)`): the body is generated once per iteration
 * with the counter as a constant, and the loop's exec-mask ops, compare and jump go away.
 *
 * Which loops: a `for` whose init declares a 32-bit integer counter with a constant value,
 * whose condition compares the counter itself (<, <=, >, >=, !=) with a constant of its
 * type, and whose increment is ++, -- or += / -= a constant; whose body does not write the
 * counter or take its address, holds no loop but loops that qualify themselves (a nest of
 * small loops unrolls whole, the inner ones as the outer one's body is generated), no
 * break, continue or return, no local that would live in memory (a stack slot per step),
 * and calls only of small functions without loops (inlined: a copy per step, counted in);
 * and which runs 1 to MAX_TRIPS times, MAX_NODES syntax nodes in all once unrolled. The
 * bound may be a local never written after a constant initializer. `#pragma nounroll` (or unroll(1), or
 * clang loop unroll(disable)) before a loop keeps it as written (the preprocessor marks its
 * token).
 *
 * Where small arrays live (cg_place_arrays, before code generation): an array indexed by a
 * non-constant lives in thread (stack) memory, unless every such index is a constant once
 * the loops around it are unrolled (`acc[i][j]` inside `for i`, `for j` that qualify), as a
 * GPU compiler keeps a tile's accumulators in registers; the index is then folded as each
 * step is generated (cg_fold_index). Marking an array for memory can stop a loop that
 * declares it from unrolling, so the placement is repeated until nothing changes.
 *
 * Why it computes the same: every lane active at the loop runs every iteration (the trip
 * count is the same for all of them: constants only), in order, with the counter's value
 * of that iteration; lanes inactive at the loop run none, as before. The counter is
 * declared by the loop, so nothing reads it afterwards. Only the instructions differ: no
 * push_exec / while / jmp_exec_any / pop_exec, and constant indices fold into addresses.
 */
#include "codegen_internal.h"

enum { MAX_TRIPS = 32, MAX_NODES = 1024 };

typedef struct UnrollPlan {
    LangVar *counter;
    int64_t start, step, trips;
    int nodes;             /* of the body, once */
} UnrollPlan;

static bool plan(const LangNode *n, UnrollPlan *out);

/* An integer type that holds every value below 2^31 as is: not bool, char or short. */
static bool holds_small(const LangType *t)
{
    return lang_is_integer(t) && t->kind != LTY_BOOL && t->size >= 4;
}

/* A non-negative integer constant below 2^31 (a literal, or a `constant` global with a
 * literal initializer, through casts to 32- and 64-bit integer types), so every 32-bit type
 * holds it as is. */
static bool small_const(LangNode *n, int64_t *out)
{
    while (n && n->kind == LND_CAST && holds_small(n->type))
        n = n->lhs;
    if (n && n->kind == LND_VAR && n->var->kind == LVAR_CONSTANT && n->var->init)
        return small_const(n->var->init, out);
    /* a local never written after a constant initializer (`auto n = ct.get_capacity();`);
     * a narrower one's initializer is converted (`uchar n = c;`), so it is not followed */
    if (n && n->kind == LND_VAR && n->var->kind == LVAR_LOCAL && !n->var->written &&
        n->var->decl_init && n->var->decl_init != n && holds_small(n->var->type))
        return small_const(n->var->decl_init, out);
    if (!n || n->kind != LND_NUM || n->is_float || n->ival >= (1ull << 31))
        return false;
    *out = (int64_t)n->ival;
    return true;
}

static bool is_var(const LangNode *n, const LangVar *v)
{
    return n && n->kind == LND_VAR && n->var == v;
}

/* Counts the nodes of the statements or expressions from n on (through next); false when
 * one writes v, takes its address, or leaves the loop early. */
static bool callee_ok(const LangFunction *f, const LangVar *v, int *nodes, int depth);

static bool body_ok(const LangNode *n, const LangVar *v, int *nodes)
{
    for (; n; n = n->next) {
        if (++*nodes > MAX_NODES)
            return false;
        switch (n->kind) {
        case LND_BREAK: case LND_CONTINUE: case LND_RETURN:
        case LND_DO:
            return false;
        case LND_CALL: /* inlined: a copy of the callee per step, counted as such */
            if (!callee_ok(n->func, v, nodes, 0))
                return false;
            break;
        case LND_FOR: { /* only a loop that unrolls itself, its body counted once a step */
            UnrollPlan inner;
            int own = 0; /* and that leaves this loop's counter alone */
            if (!plan(n, &inner) || !body_ok(n->body, v, &own))
                return false;
            *nodes += inner.nodes * (int)inner.trips;
            if (*nodes > MAX_NODES)
                return false;
            continue;
        }
        case LND_DECL: /* a local kept in memory would get a stack slot per step */
            if (n->var && n->var->kind != LVAR_THREADGROUP &&
                (n->var->address_taken || cg_leaf_count(n->var->type) > 64))
                return false;
            break;
        case LND_ASSIGN: case LND_PRE_INC: case LND_PRE_DEC: case LND_POST_INC:
        case LND_POST_DEC: case LND_ADDR:
            if (is_var(n->lhs, v))
                return false;
            break;
        default:
            break;
        }
        const LangNode *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els,
                                  n->init, n->inc, n->body, n->args};
        for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++)
            if (!body_ok(kids[i], v, nodes))
                return false;
        if (n->kind == LND_SWITCH && !body_ok(n->case_next, v, nodes))
            return false;
    }
    return true;
}

/* A function a body calls, inlined once a step: small, and without loops of its own or
 * locals in memory; returns are its own. Calls inside it are counted the same way. */
static bool callee_stmts_ok(const LangNode *n, const LangVar *v, int *nodes, int depth)
{
    for (; n; n = n->next) {
        if (++*nodes > MAX_NODES)
            return false;
        switch (n->kind) {
        case LND_FOR: case LND_DO: case LND_SWITCH: case LND_BREAK: case LND_CONTINUE:
            return false;
        case LND_CALL:
            if (!callee_ok(n->func, v, nodes, depth + 1))
                return false;
            break;
        case LND_DECL:
            if (n->var && (n->var->address_taken || n->var->kind == LVAR_THREADGROUP ||
                           cg_leaf_count(n->var->type) > 64))
                return false;
            break;
        default:
            break;
        }
        const LangNode *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->body,
                                  n->args};
        for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++)
            if (!callee_stmts_ok(kids[i], v, nodes, depth))
                return false;
    }
    return true;
}

static bool callee_ok(const LangFunction *f, const LangVar *v, int *nodes, int depth)
{
    return f && f->body && depth < 8 && callee_stmts_ok(f->body, v, nodes, depth);
}

/* The counter's value after `trips` steps, in its type (32 bits, signed or not). */
static int64_t value_at(int64_t start, int64_t step, int64_t trips, bool is_unsigned)
{
    uint32_t u = (uint32_t)((uint64_t)start + (uint64_t)(step * trips));
    return is_unsigned ? (int64_t)u : (int64_t)(int32_t)u;
}

static bool holds(LangNodeKind cmp, int64_t a, int64_t b)
{
    switch (cmp) {
    case LND_LT: return a < b;
    case LND_LE: return a <= b;
    case LND_GT: return a > b;
    case LND_GE: return a >= b;
    default: return a != b; /* LND_NE */
    }
}

/* Whether loop n unrolls, and how: its counter's start and step, trips, body nodes. */
static bool plan(const LangNode *n, UnrollPlan *out)
{
    if (n->kind != LND_FOR || !n->init || n->init->kind != LND_DECL || !n->cond || !n->inc ||
        n->tok->no_unroll) /* `#pragma nounroll` before it */
        return false;
    LangVar *v = n->init->var;
    if (!v || v->address_taken || !lang_is_integer(v->type) || v->type->size != 4)
        return false;
    const bool is_unsigned = lang_is_unsigned(v->type);
    int64_t start, bound, step;
    if (!small_const(n->init->init, &start))
        return false;
    const LangNodeKind cmp = n->cond->kind;
    if (cmp != LND_LT && cmp != LND_LE && cmp != LND_GT && cmp != LND_GE && cmp != LND_NE)
        return false;
    if (!is_var(n->cond->lhs, v) || !lang_same_type(n->cond->rhs->type, v->type) ||
        !small_const(n->cond->rhs, &bound))
        return false;
    const LangNode *inc = n->inc;
    if ((inc->kind == LND_PRE_INC || inc->kind == LND_POST_INC) && is_var(inc->lhs, v))
        step = 1;
    else if ((inc->kind == LND_PRE_DEC || inc->kind == LND_POST_DEC) && is_var(inc->lhs, v))
        step = -1;
    else if (inc->kind == LND_ASSIGN && is_var(inc->lhs, v) &&
             (inc->assign_op == LND_ADD || inc->assign_op == LND_SUB) &&
             (!inc->op_type || lang_same_type(inc->op_type, v->type)) &&
             small_const(inc->rhs, &step) && step > 0)
        step = inc->assign_op == LND_ADD ? step : -step;
    else
        return false;
    int64_t trips = 0;
    while (trips <= MAX_TRIPS && holds(cmp, value_at(start, step, trips, is_unsigned), bound))
        trips++;
    int nodes = 0;
    if (trips == 0 || trips > MAX_TRIPS || !body_ok(n->body, v, &nodes) ||
        nodes * trips > MAX_NODES)
        return false;
    *out = (UnrollPlan){.counter = v, .start = start, .step = step, .trips = trips,
                        .nodes = nodes};
    return true;
}

bool cg_try_unroll(LangCg *cg, LangNode *n)
{
    UnrollPlan p;
    if (!plan(n, &p))
        return false;
    LangVar *v = p.counter;
    const bool is_unsigned = lang_is_unsigned(v->type);
    cg_bind_local(cg, v);
    for (int64_t i = 0; i < p.trips; i++) {
        LangNode num = {.kind = LND_NUM, .tok = n->tok, .type = v->type,
                        .ival = (uint64_t)value_at(p.start, p.step, i, is_unsigned)};
        CgVal value = cg_expr(cg, &num);
        CgBind *b = cg_bind(cg, v); /* again each time: the body may bind more */
        b->kind = BIND_VALUE;
        b->value = value;
        cg_stmt(cg, n->body);
    }
    cg_bind(cg, v)->kind = BIND_NONE;
    return true;
}

/* ---- where arrays live --------------------------------------------------------------------- */

/* The value of a variable in an index expression, or false: the counter of an unrolled loop
 * at the step being generated (codegen) or enumerated (placement). */
typedef bool (*CounterValue)(const void *ctx, const LangVar *v, int64_t *out);

/* Evaluates an index expression made of literals, constant globals, counters and arithmetic
 * of those, each step wrapped to its type's 32 bits as the generated code computes it. */
static bool eval_index(const LangNode *n, CounterValue value_of, const void *ctx, int64_t *out)
{
    int64_t a, b;
    if (!n || !lang_is_integer(n->type))
        return false;
    if (small_const((LangNode *)n, out))
        return true;
    switch (n->kind) {
    case LND_VAR:
        if (!value_of(ctx, n->var, &a))
            return false;
        break;
    case LND_CAST: case LND_NEG:
        if (!eval_index(n->lhs, value_of, ctx, &a))
            return false;
        a = n->kind == LND_NEG ? -a : a;
        break;
    case LND_ADD: case LND_SUB: case LND_MUL: case LND_SHL: case LND_BITAND: case LND_BITOR:
    case LND_BITXOR: case LND_DIV: case LND_MOD: case LND_SHR:
        if (!eval_index(n->lhs, value_of, ctx, &a) || !eval_index(n->rhs, value_of, ctx, &b))
            return false;
        if ((n->kind == LND_DIV || n->kind == LND_MOD) && (b == 0 || (b == -1 && a == INT32_MIN)))
            return false; /* left to run time, as written */
        switch (n->kind) {
        case LND_ADD: a += b; break;
        case LND_SUB: a -= b; break;
        case LND_MUL: a *= b; break;
        case LND_SHL: a = (int64_t)((uint64_t)a << (b & 31)); break;
        case LND_SHR: a >>= (b & 31); break; /* a is non-negative or signed: C's >> */
        case LND_DIV: a /= b; break;          /* both in the type's range: C's division */
        case LND_MOD: a %= b; break;
        case LND_BITAND: a &= b; break;
        case LND_BITOR: a |= b; break;
        default: a ^= b; break;
        }
        break;
    default:
        return false;
    }
    if (n->type->size == 4)
        a = lang_is_unsigned(n->type) ? (int64_t)(uint32_t)a : (int64_t)(int32_t)a;
    *out = a;
    return true;
}

enum { MAX_DEPTH = 16, MAX_STEPS = 4096 };

typedef struct Placement {
    UnrollPlan loops[MAX_DEPTH]; /* the unrolled loops around the node being looked at */
    int64_t step[MAX_DEPTH];     /* while enumerating: each one's step */
    int depth;
    bool changed;
} Placement;

static bool enumerated_value(const void *ctx, const LangVar *v, int64_t *out)
{
    const Placement *pl = ctx;
    for (int i = pl->depth - 1; i >= 0; i--)
        if (pl->loops[i].counter == v) {
            const UnrollPlan *u = &pl->loops[i];
            *out = value_at(u->start, u->step, pl->step[i], lang_is_unsigned(v->type));
            return true;
        }
    return false;
}

/* Whether index n is in [0, len) at every step of the unrolled loops around it (from loop
 * `level` in), so that the array can stay in registers. */
static bool in_range_every_step(Placement *pl, const LangNode *n, int64_t len, int level,
                                int *budget)
{
    if (level == pl->depth) {
        int64_t k;
        return --*budget >= 0 && eval_index(n, enumerated_value, pl, &k) && k >= 0 && k < len;
    }
    for (pl->step[level] = 0; pl->step[level] < pl->loops[level].trips; pl->step[level]++)
        if (!in_range_every_step(pl, n, len, level + 1, budget))
            return false;
    return true;
}

static LangVar *indexed_array(const LangNode *n)
{
    while (n->kind == LND_MEMBER || n->kind == LND_SWIZZLE || n->kind == LND_ELEMENTS ||
           (n->kind == LND_INDEX && n->lhs->type->kind != LTY_POINTER))
        n = n->lhs;
    return n->kind == LND_VAR ? n->var : NULL;
}

static void place(Placement *pl, LangNode *n)
{
    for (; n; n = n->next) {
        if (n->kind == LND_INDEX && n->lhs->type->kind == LTY_ARRAY) {
            LangVar *var = indexed_array(n->lhs), *ref = cg_ref_object(n->lhs);
            int64_t k;
            int budget = MAX_STEPS;
            /* an index out of range even at one step (in code no lane may run, such as
             * `if (k > 0) v[k - 1]`) keeps the array in memory, where it is checked; an
             * array reached through a reference parameter puts the object it designates in
             * memory, as its callers then see (codegen_refs.c); one through `this`, only
             * if its elements are not scalars (codegen selects among scalars) */
            if (ref && !ref->type->is_reference && cg_leaf_count(n->lhs->type->base) == 1)
                ref = NULL;
            if (((var && var->dyn_indexed && !var->address_taken) ||
                 (ref && !ref->ref_in_memory)) &&
                !(small_const(n->rhs, &k) && k < n->lhs->type->len) &&
                !in_range_every_step(pl, n->rhs, n->lhs->type->len, 0, &budget)) {
                if (var)
                    var->address_taken = true;
                if (ref)
                    ref->ref_in_memory = true;
                pl->changed = true;
            }
        }
        UnrollPlan p;
        bool unrolled = n->kind == LND_FOR && pl->depth < MAX_DEPTH && plan(n, &p);
        LangNode *const kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els,
                                  n->init, n->inc, n->args};
        for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++)
            place(pl, kids[i]);
        if (unrolled)
            pl->loops[pl->depth++] = p;
        place(pl, n->body);
        if (unrolled)
            pl->depth--;
        if (n->kind == LND_SWITCH)
            place(pl, n->case_next);
    }
}

void cg_place_arrays(LangUnit *unit)
{
    for (bool again = true; again;) {
        again = false;
        for (LangFunction *f = unit->funcs; f; f = f->next) {
            Placement pl = {.depth = 0};
            place(&pl, f->body);
            again |= pl.changed;
        }
        again |= cg_place_refs(unit); /* which can stop loops unrolling, and back */
    }
}

static bool bound_value(const void *ctx, const LangVar *v, int64_t *out)
{
    CgBind *bind = cg_bind((LangCg *)ctx, (LangVar *)v);
    if (bind->kind != BIND_VALUE || bind->value.n != 1 || bind->value.c[0].kind != ISA_OPD_IMM)
        return false;
    *out = (int64_t)bind->value.c[0].imm;
    return true;
}

bool cg_fold_index(LangCg *cg, LangNode *n, int64_t *out)
{
    return eval_index(n, bound_value, cg, out);
}
