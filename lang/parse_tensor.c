/*
 * parse_tensor.c — Metal 4 tensor operations (MetalPerformancePrimitives' matmul2d) in the
 * front end: the types tensor<device T, dextents<int, 2>> (a kernel argument or a slice of
 * one), matmul2d_descriptor(...) (compile-time values), matmul2d<descriptor, scope> and the
 * cooperative tensors its get_destination_cooperative_tensor<A, B, T>() makes; their member
 * functions (slice, static_slice, run, load, store, get_capacity, get_mask) and the names
 * dynamic_extent, dynamic_length_v<T>, execution_simdgroup(s) and the mpp namespaces.
 *
 * Every tensor type is a struct (LangType.tensor says which kind) so that locals, copies and
 * `auto` need nothing new. A handle's members are the address of its origin element, its
 * extents in bounds and its row pitch; a cooperative tensor's one member is an array of this
 * thread's elements, which `ct[i]` indexes. The layout of those elements over the threads is
 * lockstep's choice (MPP leaves it to the implementation): the scope's SIMD-groups split the
 * m x n tile into equal blocks, and each holds its block as 8x8 matrices in the layout of
 * mma32 (docs/language.md, "Tensor operations"). codegen_tensor.c lowers the calls.
 */
#include <string.h>

#include "parse.h"

enum { DYNAMIC = -1 };

static LangNode *tensor_call(LangParser *p, LangToken *name, LangBuiltin id, LangType *ty,
                             LangNode **args, int n);

static bool is_namespace(const LangToken *t)
{
    return lang_p_is(t, "metal") || lang_p_is(t, "mpp") || lang_p_is(t, "tensor_ops");
}

bool lang_p_skip_namespaces(LangParser *p)
{
    bool any = false;
    while (is_namespace(p->tok) && lang_p_is(p->tok->next, "::")) {
        lang_p_next(p);
        lang_p_next(p);
        any = true;
    }
    return any;
}

/* A constant integer template argument (an additive expression: '>' ends it). */
static int64_t const_arg(LangParser *p, const char *what)
{
    LangToken *at = p->tok;
    LangNode *e = lang_p_additive(p);
    int64_t v;
    if (!lang_is_integer(e->type) || !lang_p_eval(p, e, &v))
        lang_error_at(p->ctx, at, "expected a constant integer for %s", what);
    if (lang_is_unsigned(e->type) && e->type->size == 8 && v == -1)
        return DYNAMIC; /* dynamic_extent */
    if (e->type->size == 4 && lang_is_unsigned(e->type) && v == 0xffffffffll)
        return DYNAMIC;
    return v;
}

/* An extent: a positive constant or dynamic_extent. */
static int64_t extent_arg(LangParser *p)
{
    LangToken *at = p->tok;
    int64_t v = const_arg(p, "an extent");
    if (v != DYNAMIC && (v <= 0 || v > (1 << 24)))
        lang_error_at(p->ctx, at, "an extent must be between 1 and 2^24, or dynamic_extent");
    return v;
}

/* The extents of a tensor type or constructor, from "dextents" or "extents" through its
 * closing '>': static extents into ext (DYNAMIC where dynamic_extent); true for dextents. */
static bool extents_type(LangParser *p, int64_t ext[2], const char *expected)
{
    LangToken *et = p->tok;
    bool dynamic = lang_p_consume(p, "dextents");
    if (!dynamic && !lang_p_consume(p, "extents"))
        lang_error_at(p->ctx, et, "%s", expected);
    lang_p_skip(p, "<");
    LangToken *it = p->tok;
    LangType *index = lang_p_typename(p);
    if (!lang_is_integer(index))
        lang_error_at(p->ctx, it, "a tensor's extents are of an integer type");
    lang_p_skip(p, ",");
    ext[0] = ext[1] = DYNAMIC;
    if (dynamic) {
        LangToken *rt = p->tok;
        if (const_arg(p, "the rank") != 2)
            lang_error_at(p->ctx, rt, "lockstep's tensors have rank 2 (matrices)");
    } else {
        ext[0] = extent_arg(p);
        lang_p_skip(p, ",");
        ext[1] = extent_arg(p);
        if (lang_p_is(p->tok, ","))
            lang_error_at(p->ctx, p->tok, "lockstep's tensors have rank 2 (matrices)");
    }
    lang_p_close_angle(p);
    return dynamic;
}

LangMember *lang_p_add_member(LangParser *p, LangType *st, LangMember **tail, const char *name,
                              LangType *ty)
{
    LangMember *m = lang_alloc(p->ctx, sizeof *m);
    m->name = (char *)name;
    m->type = ty;
    int off = (st->size + ty->align - 1) / ty->align * ty->align;
    m->offset = off;
    st->size = off + ty->size;
    if (ty->align > st->align)
        st->align = ty->align;
    if (*tail)
        (*tail)->next = m;
    else
        st->members = m;
    *tail = m;
    return m;
}

static LangType *tensor_struct(LangParser *p, LangTensorKind kind, char *name)
{
    LangType *ty = lang_alloc(p->ctx, sizeof *ty);
    ty->kind = LTY_STRUCT;
    ty->align = 1;
    ty->name = name;
    ty->tensor = lang_alloc(p->ctx, sizeof *ty->tensor);
    ty->tensor->kind = kind;
    return ty;
}

static const char *space_name(LangAddrSpace s)
{
    return s == LAS_DEVICE ? "device" : s == LAS_CONSTANT ? "constant"
           : s == LAS_THREADGROUP ? "threadgroup" : "thread";
}

static LangType *handle_type(LangParser *p, LangType *elem, LangAddrSpace space,
                             const int64_t ext[2], bool unchecked)
{
    char e[2][24];
    for (int d = 0; d < 2; d++)
        if (ext[d] == DYNAMIC)
            snprintf(e[d], sizeof e[d], "dynamic_extent");
        else
            snprintf(e[d], sizeof e[d], "%lld", (long long)ext[d]);
    char *name = ext[0] == DYNAMIC && ext[1] == DYNAMIC
                     ? lang_format(p->ctx, "tensor<%s %s, dextents<int, 2>>", space_name(space),
                                   elem->name)
                     : lang_format(p->ctx, "tensor<%s %s, extents<int, %s, %s>>",
                                   space_name(space), elem->name, e[0], e[1]);
    LangType *ty = tensor_struct(p, LTN_HANDLE, name);
    LangTensor *t = ty->tensor;
    t->elem = elem;
    t->ext[0] = ext[0], t->ext[1] = ext[1];
    t->unchecked = unchecked;
    LangMember *tail = NULL;
    lang_p_add_member(p, ty, &tail, "__data", lang_pointer_to(p->ctx, elem, space));
    lang_p_add_member(p, ty, &tail, "__e0", lang_ty_int);
    lang_p_add_member(p, ty, &tail, "__e1", lang_ty_int);
    lang_p_add_member(p, ty, &tail, "__s1", lang_ty_int);
    return ty;
}

static bool handle_elem_ok(const LangType *t)
{
    return t->kind == LTY_HALF || t->kind == LTY_FLOAT;
}

// tensor-type = "tensor" "<" space? T "," ("dextents" "<" int "," "2" ">"
//               | "extents" "<" int "," extent "," extent ">") ("," layout)? ">"
static LangType *tensor_type(LangParser *p)
{
    LangToken *tok = p->tok;
    lang_p_next(p);
    lang_p_skip(p, "<");
    LangAddrSpace space = LAS_THREAD;
    bool has_space = false;
    LangToken *at = p->tok;
    LangType *elem = lang_p_declspec(p, &space, &has_space);
    if (!has_space || space == LAS_THREAD)
        lang_error_at(p->ctx, at, "lockstep's tensors are in device, constant or threadgroup "
                      "memory: write tensor<device T, dextents<int, 2>>");
    if (!handle_elem_ok(elem))
        lang_error_at(p->ctx, at, "tensors of '%s' are not supported yet (half and float are)",
                      lang_type_name(p->ctx, elem));
    elem = lang_qualified(p->ctx, elem, elem->is_const || space == LAS_CONSTANT);
    lang_p_skip(p, ",");
    lang_p_skip_namespaces(p);
    int64_t ext[2];
    extents_type(p, ext, "expected dextents<int, 2> or extents<int, W, H> for the tensor's "
                 "extents");
    if (lang_p_consume(p, ",")) { /* tensor_handle, tensor_offset, tensor_inline: the same */
        lang_p_skip_namespaces(p);
        if (!lang_p_is(p->tok, "tensor_handle") && !lang_p_is(p->tok, "tensor_offset") &&
            !lang_p_is(p->tok, "tensor_inline"))
            lang_error_at(p->ctx, p->tok, "expected tensor_handle, tensor_offset or "
                          "tensor_inline");
        lang_p_next(p);
    }
    lang_p_close_angle(p);
    (void)tok;
    return handle_type(p, elem, space, ext, false);
}

/* Splits the m x n tile over n_sg SIMD-groups into equal blocks whose sides are multiples
 * of 8, as square as can be; 0 when none. */
static int split_rows(int m, int n, int n_sg)
{
    int best = 0, best_diff = 0;
    for (int r = 1; r <= n_sg; r++) {
        if (n_sg % r || m % (8 * r) || n % (8 * (n_sg / r)))
            continue;
        int diff = m / r - n / (n_sg / r);
        diff = diff < 0 ? -diff : diff;
        if (!best || diff < best_diff)
            best = r, best_diff = diff;
    }
    return best;
}

// op-type = "matmul2d" "<" descriptor "," scope ">"
// scope   = "execution_simdgroups" "<" N ">" | "execution_simdgroup" | "execution_thread"
static LangType *op_type(LangParser *p)
{
    LangToken *tok = p->tok;
    lang_p_next(p);
    lang_p_skip(p, "<");
    LangToken *at = p->tok;
    LangNode *d = lang_p_cond(p);
    if (!d->type->tensor || d->type->tensor->kind != LTN_DESCRIPTOR)
        lang_error_at(p->ctx, at, "matmul2d's first template argument is a "
                      "matmul2d_descriptor, not '%s'", lang_type_name(p->ctx, d->type));
    lang_p_skip(p, ",");
    lang_p_skip_namespaces(p);
    LangToken *st = p->tok;
    int n_sg = 1;
    if (lang_p_consume(p, "execution_simdgroups")) {
        lang_p_skip(p, "<");
        LangToken *nt = p->tok;
        int64_t v = const_arg(p, "the number of SIMD-groups");
        if (v < 1 || v > 32)
            lang_error_at(p->ctx, nt, "execution_simdgroups<N> needs N from 1 to 32 (a "
                          "threadgroup has at most 32 SIMD-groups)");
        n_sg = (int)v;
        lang_p_close_angle(p);
    } else if (lang_p_is(st, "execution_thread")) {
        lang_error_at(p->ctx, st, "execution_thread (a tensor operation run by one thread) is "
                      "not supported yet; use execution_simdgroup or execution_simdgroups<N>");
    } else if (!lang_p_consume(p, "execution_simdgroup")) {
        lang_error_at(p->ctx, st, "expected the execution scope: execution_simdgroup or "
                      "execution_simdgroups<N>");
    }
    lang_p_close_angle(p);
    const LangTensor *desc = d->type->tensor;
    int rows = split_rows(desc->m, desc->n, n_sg);
    if (!rows)
        lang_error_at(p->ctx, tok, "lockstep runs a matmul2d whose %d x %d tile splits into "
                      "%d equal blocks with sides that are multiples of 8 (one a SIMD-group); "
                      "this one does not", desc->m, desc->n, n_sg);
    LangType *ty = tensor_struct(p, LTN_OP, lang_format(p->ctx, "matmul2d<%s, "
                                 "execution_simdgroups<%d>>", d->type->name, n_sg));
    *ty->tensor = *desc;
    ty->tensor->kind = LTN_OP;
    ty->tensor->simdgroups = n_sg;
    ty->tensor->split_rows = rows;
    return ty;
}

LangType *lang_p_tensor_type(LangParser *p)
{
    return lang_p_is(p->tok, "tensor") ? tensor_type(p) : op_type(p);
}

/* The value of one descriptor argument. */
static int64_t desc_arg(LangParser *p, LangNode **a, const char *what, bool is_bool)
{
    int64_t v;
    if (is_bool)
        *a = lang_p_to_bool(p, *a);
    if (!lang_is_scalar((*a)->type) || !lang_p_eval(p, *a, &v))
        lang_error_at(p->ctx, (*a)->tok, "matmul2d_descriptor's %s must be a constant", what);
    if (!is_bool && lang_is_unsigned((*a)->type) && (*a)->type->size >= 4 &&
        (v == -1 || v == 0xffffffffll))
        v = DYNAMIC;
    return v;
}

// descriptor = "matmul2d_descriptor" "(" m "," n ("," k ("," tl ("," tr ("," relaxed
//              ("," mode)?)?)?)?)? ")"
static LangNode *descriptor(LangParser *p, LangToken *tok)
{
    lang_p_skip(p, "(");
    LangNode *args[7];
    int n = 0;
    if (!lang_p_is(p->tok, ")"))
        do {
            if (n == 7)
                lang_error_at(p->ctx, p->tok, "matmul2d_descriptor takes at most 7 arguments "
                              "(m, n, k, transpose_left, transpose_right, relaxed_precision, "
                              "mode)");
            args[n++] = lang_p_assign(p);
        } while (lang_p_consume(p, ","));
    lang_p_skip(p, ")");
    if (n < 2)
        lang_error_at(p->ctx, tok, "matmul2d_descriptor needs at least m and n (the "
                      "destination tile's rows and columns)");
    static const char *const what[] = {"m", "n", "k", "transpose_left", "transpose_right",
                                       "relaxed_precision", "mode"};
    int64_t v[7] = {0, 0, DYNAMIC, 0, 0, 0, 0};
    for (int i = 0; i < n; i++)
        v[i] = desc_arg(p, &args[i], what[i], i >= 3 && i <= 5);
    for (int i = 0; i < 2; i++)
        if (v[i] < 8 || v[i] > 256 || v[i] % 8)
            lang_error_at(p->ctx, args[i]->tok, "lockstep runs matmul2d tiles whose m and n "
                          "are multiples of 8 from 8 to 256; %s is %lld", what[i],
                          (long long)v[i]);
    if (v[2] != DYNAMIC && (v[2] < 1 || v[2] > (1 << 24)))
        lang_error_at(p->ctx, args[2]->tok, "k must be positive, or dynamic_extent");
    if (v[6] != 0 && v[6] != 1)
        lang_error_at(p->ctx, args[6]->tok, "expected matmul2d_descriptor::mode::multiply or "
                      "::multiply_accumulate");
    /* named by its values: a descriptor's type is its value (lang_same_type) */
    char k[16];
    snprintf(k, sizeof k, "%lld", (long long)v[2]);
    LangType *ty = tensor_struct(p, LTN_DESCRIPTOR, lang_format(
        p->ctx, "matmul2d_descriptor(%d, %d, %s, %s, %s, %s, %s)", (int)v[0], (int)v[1],
        v[2] == DYNAMIC ? "dynamic_length_v<int>" : k, v[3] ? "true" : "false",
        v[4] ? "true" : "false", v[5] ? "true" : "false",
        v[6] ? "multiply_accumulate" : "multiply"));
    LangTensor *t = ty->tensor;
    t->m = (int)v[0], t->n = (int)v[1], t->k = (int)v[2];
    t->transpose_left = v[3], t->transpose_right = v[4], t->relaxed = v[5];
    t->accumulate = v[6] == 1;
    LangNode *node = lang_p_new_node(p, LND_CONSTRUCT, tok);
    node->type = ty;
    return node;
}

LangNode *lang_p_tensor_primary(LangParser *p)
{
    LangToken *tok = p->tok;
    if (lang_p_is(tok, "matmul2d_descriptor") && lang_p_is(tok->next, "::")) {
        /* matmul2d_descriptor::mode::multiply(_accumulate) */
        lang_p_next(p);
        lang_p_next(p);
        if (!lang_p_consume(p, "mode") || !lang_p_consume(p, "::") ||
            (!lang_p_is(p->tok, "multiply") && !lang_p_is(p->tok, "multiply_accumulate")))
            lang_error_at(p->ctx, p->tok, "expected matmul2d_descriptor::mode::multiply or "
                          "::multiply_accumulate");
        bool acc = lang_p_is(p->tok, "multiply_accumulate");
        LangToken *name = p->tok;
        lang_p_next(p);
        return lang_p_num(p, name, lang_ty_int, acc, 0);
    }
    if (lang_p_is(tok, "matmul2d_descriptor") && lang_p_is(tok->next, "(")) {
        lang_p_next(p);
        return descriptor(p, tok);
    }
    if (lang_p_is(tok, "dynamic_extent")) {
        lang_p_next(p);
        return lang_p_num(p, tok, lang_ty_ulong, ~0ull, 0);
    }
    if (lang_p_is(tok, "dynamic_length_v") && lang_p_is(tok->next, "<")) {
        lang_p_next(p);
        lang_p_next(p);
        LangToken *at = p->tok;
        LangType *t = lang_p_typename(p);
        if (!lang_is_integer(t))
            lang_error_at(p->ctx, at, "dynamic_length_v needs an integer type");
        lang_p_close_angle(p);
        return lang_p_num(p, tok, t, ~0ull, 0);
    }
    return NULL;
}

/* ---- tensors over the kernel's own memory ------------------------------------------------ */

// make = T "(" pointer "," ("dextents" "<" int "," "2" ">" "(" cols "," rows ")"
//                           | "extents" "<" int "," W "," H ">" "(" ")") ")"
LangNode *lang_p_tensor_construct(LangParser *p, LangType *ty, LangToken *tok)
{
    const LangTensor *t = ty->tensor;
    if (t->kind != LTN_HANDLE)
        lang_error_at(p->ctx, tok, "'%s' is not constructed this way", ty->name);
    lang_p_skip(p, "(");
    LangNode *args[3];
    LangToken *at = p->tok;
    args[0] = lang_p_assign(p);
    LangType *data = ty->members->type, *pt = args[0]->type;
    if (pt->kind == LTY_ARRAY && lang_p_is_lvalue(args[0]))
        args[0] = lang_p_convert(p, args[0], lang_pointer_to(p->ctx, pt->base,
                                                             lang_p_lvalue_space(args[0])), at);
    pt = args[0]->type;
    if (pt->kind != LTY_POINTER || pt->space != data->space ||
        !lang_same_type(pt->base, data->base) || (pt->base->is_const && !data->base->is_const))
        lang_error_at(p->ctx, at, "a %s is made from a pointer to its elements ('%s'), not "
                      "'%s'", ty->name, lang_type_name(p->ctx, data),
                      lang_type_name(p->ctx, pt));
    args[0] = lang_p_convert(p, args[0], data, at);
    lang_p_skip(p, ",");
    lang_p_skip_namespaces(p);
    LangToken *et = p->tok;
    int64_t ext[2];
    bool dynamic = extents_type(p, ext, "expected the extents: dextents<int, 2>(columns, "
                                "rows) or extents<int, W, H>()");
    if (!dynamic && (ext[0] == DYNAMIC || ext[1] == DYNAMIC))
        lang_error_at(p->ctx, et, "write dextents<int, 2>(columns, rows) for extents known at "
                      "run time");
    lang_p_skip(p, "(");
    for (int d = 0; d < 2; d++) {
        if (dynamic) {
            if (d)
                lang_p_skip(p, ",");
            LangToken *xt = p->tok;
            args[1 + d] = lang_p_assign(p);
            if (!lang_is_integer(args[1 + d]->type))
                lang_error_at(p->ctx, xt, "an extent is an integer");
            args[1 + d] = lang_p_convert(p, args[1 + d], lang_ty_int, xt);
        } else {
            args[1 + d] = lang_p_num(p, et, lang_ty_int, (uint64_t)ext[d], 0);
        }
    }
    lang_p_skip(p, ")");
    if (lang_p_is(p->tok, ","))
        lang_error_at(p->ctx, p->tok, "strides are not supported yet: lockstep's tensors made "
                      "in a kernel are dense (rows one after another)");
    lang_p_skip(p, ")");
    if ((t->ext[0] != DYNAMIC || t->ext[1] != DYNAMIC) &&
        (t->ext[0] != ext[0] || t->ext[1] != ext[1]))
        lang_error_at(p->ctx, et, "these extents differ from the type's (%s)", ty->name);
    return tensor_call(p, tok, LANG_BI_TENSOR_MAKE, ty, args, 3);
}

/* ---- member functions --------------------------------------------------------------------- */

static void expect_no_args(LangParser *p, LangToken *name)
{
    if (!lang_p_consume(p, "(") || !lang_p_consume(p, ")"))
        lang_error_at(p->ctx, name, "expected '()' after '%.*s'", name->len, name->loc);
}

static LangNode *tensor_call(LangParser *p, LangToken *name, LangBuiltin id, LangType *ty,
                             LangNode **args, int n)
{
    LangNode *node = lang_p_new_node(p, LND_BUILTIN, name);
    node->builtin = id;
    node->type = ty;
    node->num_args = n;
    LangNode head = {0}, *cur = &head;
    for (int i = 0; i < n; i++) {
        args[i]->next = NULL;
        cur = cur->next = args[i];
    }
    node->args = head.next;
    return node;
}

static const LangTensor *tensor_of(const LangNode *n, LangTensorKind kind)
{
    const LangTensor *t = n->type->tensor;
    return t && t->kind == kind ? t : NULL;
}

// slice = ("slice" | "static_slice") ("<" extent "," extent ">")? "(" x "," y ")"
static LangNode *slice(LangParser *p, LangNode *lhs, LangToken *name)
{
    const LangTensor *t = lhs->type->tensor;
    int64_t ext[2] = {DYNAMIC, DYNAMIC};
    if (lang_p_consume(p, "<")) {
        ext[0] = extent_arg(p);
        lang_p_skip(p, ",");
        ext[1] = extent_arg(p);
        lang_p_close_angle(p);
    }
    LangNode *args[3] = {lhs};
    int n = lang_p_call_args(p, args + 1, 2, name) + 1;
    if (n != 3)
        lang_error_at(p->ctx, name, "'%.*s' takes the origin: (column, row)", name->len,
                      name->loc);
    for (int i = 1; i < 3; i++) {
        if (!lang_is_integer(args[i]->type))
            lang_error_at(p->ctx, args[i]->tok, "a slice's origin is two integers (column, "
                          "row)");
        args[i] = lang_p_convert(p, args[i], lang_ty_int, args[i]->tok);
    }
    bool unchecked = lang_p_is(name, "static_slice");
    LangType *ty = handle_type(p, lang_qualified(p->ctx, t->elem, t->elem->is_const),
                               lhs->type->members->type->space, ext, unchecked);
    return tensor_call(p, name, LANG_BI_TENSOR_SLICE, ty, args, 3);
}

/* A left or right operand of run: a tensor of half or float. */
static void operand(LangParser *p, LangNode *a, const char *which)
{
    if (!tensor_of(a, LTN_HANDLE))
        lang_error_at(p->ctx, a->tok, "the %s operand of run() is a tensor (lockstep does not "
                      "take cooperative tensors there yet), not '%s'", which,
                      lang_type_name(p->ctx, a->type));
}

static bool assignable(const LangNode *a)
{
    return lang_p_is_lvalue(a) && !a->type->is_const;
}

static LangNode *run(LangParser *p, LangNode *lhs, LangToken *name)
{
    LangNode *args[4] = {lhs};
    if (lang_p_call_args(p, args + 1, 3, name) != 3)
        lang_error_at(p->ctx, name, "run() takes (left, right, destination)");
    operand(p, args[1], "left");
    operand(p, args[2], "right");
    const LangTensor *op = lhs->type->tensor, *d = args[3]->type->tensor;
    if (!d || (d->kind != LTN_HANDLE && d->kind != LTN_COOP))
        lang_error_at(p->ctx, args[3]->tok, "the destination of run() is a tensor or a "
                      "cooperative tensor, not '%s'", lang_type_name(p->ctx, args[3]->type));
    if (d->kind == LTN_COOP) {
        if (d->m != op->m || d->n != op->n || d->simdgroups != op->simdgroups)
            lang_error_at(p->ctx, args[3]->tok, "this cooperative tensor was made by another "
                          "matmul2d (its layout differs)");
        if (!assignable(args[3]))
            lang_error_at(p->ctx, args[3]->tok, "the destination of run() must be a "
                          "cooperative tensor variable it can assign");
    } else if (args[3]->type->members->type->base->is_const) {
        lang_error_at(p->ctx, args[3]->tok, "run() cannot write a tensor of const elements");
    }
    return tensor_call(p, name, LANG_BI_TENSOR_RUN, lang_ty_void, args, 4);
}

// get_destination_cooperative_tensor "<" A "," B "," T ("," coord)? ">" "(" ")"
static LangNode *destination_tensor(LangParser *p, LangNode *lhs, LangToken *name)
{
    const LangTensor *op = lhs->type->tensor;
    lang_p_skip(p, "<");
    for (int i = 0; i < 2; i++) { /* the operand types: only the layout could depend on them */
        lang_p_typename(p);
        lang_p_skip(p, ",");
    }
    LangToken *at = p->tok;
    LangType *elem = lang_qualified(p->ctx, lang_p_typename(p), false);
    if (!handle_elem_ok(elem))
        lang_error_at(p->ctx, at, "a cooperative tensor of '%s' is not supported yet (half and "
                      "float are)", lang_type_name(p->ctx, elem));
    if (lang_p_consume(p, ","))
        lang_p_typename(p); /* the coordinate type */
    lang_p_close_angle(p);
    expect_no_args(p, name);
    int rows = op->split_rows, cols = op->simdgroups / rows;
    int cap = (op->m / rows) * (op->n / cols) / 32;
    LangType *ty = tensor_struct(p, LTN_COOP, lang_format(p->ctx, "cooperative_tensor<%s> "
                                 "(%d elements a thread)", elem->name, cap));
    *ty->tensor = *op;
    ty->tensor->kind = LTN_COOP;
    ty->tensor->elem = elem;
    ty->tensor->capacity = cap;
    LangMember *tail = NULL;
    lang_p_add_member(p, ty, &tail, "__e", lang_array_of(p->ctx, elem, cap));
    LangNode *node = lang_p_new_node(p, LND_CONSTRUCT, name);
    node->type = ty; /* every element 0 */
    return node;
}

/* ct.load(tensor), ct.store(tensor) */
static LangNode *coop_memory(LangParser *p, LangNode *lhs, LangToken *name, bool load)
{
    LangNode *args[2] = {lhs};
    if (lang_p_call_args(p, args + 1, 1, name) != 1 || !tensor_of(args[1], LTN_HANDLE))
        lang_error_at(p->ctx, name, "'%.*s' takes a tensor (a slice of the destination)",
                      name->len, name->loc);
    if (load && !assignable(lhs))
        lang_error_at(p->ctx, lhs->tok, "load() needs a cooperative tensor variable it can "
                      "assign");
    if (!load && args[1]->type->members->type->base->is_const)
        lang_error_at(p->ctx, args[1]->tok, "store() cannot write a tensor of const elements");
    return tensor_call(p, name, load ? LANG_BI_TENSOR_LOAD : LANG_BI_TENSOR_STORE, lang_ty_void,
                       args, 2);
}

LangNode *lang_p_tensor_elements(LangParser *p, LangNode *lhs)
{
    LangNode *node = lang_p_new_node(p, LND_MEMBER, lhs->tok);
    node->lhs = lhs;
    node->member = lhs->type->members;
    node->type = lhs->type->is_const ? lang_qualified(p->ctx, node->member->type, true)
                                     : node->member->type;
    return node;
}

LangNode *lang_p_tensor_member(LangParser *p, LangNode *lhs, LangToken *name)
{
    const LangTensor *t = lhs->type->tensor;
    switch (t->kind) {
    case LTN_HANDLE:
        if (lang_p_is(name, "slice") || lang_p_is(name, "static_slice"))
            return slice(p, lhs, name);
        break;
    case LTN_OP:
        if (lang_p_is(name, "run"))
            return run(p, lhs, name);
        if (lang_p_is(name, "get_destination_cooperative_tensor"))
            return destination_tensor(p, lhs, name);
        break;
    case LTN_COOP:
        if (lang_p_is(name, "get_capacity")) {
            expect_no_args(p, name);
            return lang_p_num(p, name, lang_ty_int, (uint64_t)t->capacity, 0);
        }
        if (lang_p_is(name, "get_mask")) { /* every element of lockstep's layout is valid */
            LangNode *a[1];
            if (lang_p_call_args(p, a, 1, name) != 1 || !lang_is_integer(a[0]->type))
                lang_error_at(p->ctx, name, "get_mask takes an element index");
            LangNode *in = lang_p_new_node(p, LND_LT, name);
            in->lhs = lang_p_convert(p, a[0], lang_ty_ulong, a[0]->tok);
            in->rhs = lang_p_num(p, name, lang_ty_ulong, (uint64_t)t->capacity, 0);
            in->type = lang_ty_bool;
            return in;
        }
        if (lang_p_is(name, "load") || lang_p_is(name, "store"))
            return coop_memory(p, lhs, name, lang_p_is(name, "load"));
        break;
    default:
        break;
    }
    lang_error_at(p->ctx, name, "'%.*s' is not a member lockstep supports on '%s'", name->len,
                  name->loc, lang_type_name(p->ctx, lhs->type));
}
