/*
 * test_parse.c — the parser and type checker (lang_parse, type.c) on small programs: the
 * AST's shape and every node's type for each construct, MSL layouts (sizes and offsets
 * worked out by hand from the spec's rules: vectors aligned to their size, 3-vectors like
 * 4-vectors, packed_ vectors aligned to the element, C struct layout), implicit
 * conversions, templates, threadgroup allocation, and lang_find_kernel.
 */
#include "test_util.h"

#include "../../lang/lang_internal.h"

typedef struct Fixture {
    UtilError err;
    LangOptions opts;
    LangCtx ctx;
} Fixture;

static Fixture *fx;

static int setup(void **state)
{
    (void)state;
    fx = calloc(1, sizeof *fx);
    fx->ctx.err = &fx->err;
    fx->ctx.opts = &fx->opts;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    lang_ctx_free(&fx->ctx);
    free(fx);
    return 0;
}

/* The unit text parses into; fails the test with the message if it does not parse. */
static LangUnit *parse_ok(const char *text)
{
    if (setjmp(fx->ctx.bail) != 0)
        fail_msg("unexpected error: %s", fx->err.message);
    LangFile *file = lang_add_file(&fx->ctx, "t.metal", lang_strndup(&fx->ctx, text, strlen(text)));
    LangToken *tok = lang_preprocess(&fx->ctx, lang_tokenize(&fx->ctx, file));
    return lang_parse(&fx->ctx, tok);
}

static LangFunction *func(LangUnit *u, const char *name)
{
    for (LangFunction *f = u->funcs; f; f = f->next)
        if (strcmp(f->name, name) == 0)
            return f;
    fail_msg("no function %s", name);
    return NULL;
}

/* The declaration of local `name` in f's body (depth-first). */
static LangNode *find_decl(LangNode *n, const char *name)
{
    for (; n; n = n->next) {
        if (n->kind == LND_DECL && strcmp(n->var->name, name) == 0)
            return n;
        LangNode *kids[] = {n->then, n->els, n->init, n->body};
        for (int i = 0; i < 4; i++) {
            LangNode *d = kids[i] ? find_decl(kids[i], name) : NULL;
            if (d)
                return d;
        }
    }
    return NULL;
}

/* The initializer of local `name` in the first function of the unit. */
static LangNode *init_of(LangUnit *u, const char *name)
{
    LangNode *d = find_decl(u->funcs->body, name);
    if (!d)
        fail_msg("no declaration of %s", name);
    assert_non_null(d->init);
    return d->init;
}

static void expect_type(const LangType *ty, const char *name)
{
    const char *got = lang_type_name(&fx->ctx, ty);
    if (strcmp(got, name) != 0)
        fail_msg("expected type %s, got %s", name, got);
}

/* ---- layouts ------------------------------------------------------------------------------- */

static LangType *local_type(LangUnit *u, const char *name)
{
    LangNode *d = find_decl(u->funcs->body, name);
    assert_non_null(d);
    return d->var->type;
}

static void test_vector_layouts(void **state)
{
    (void)state;
    LangUnit *u = parse_ok("void f() { half3 a; float3 b; packed_half3 c; packed_float4 d;"
                           " bool2 e; long3 g; vec<float, 3> h; uchar3 i; short4 j; }");
    static const struct {
        const char *var;
        int size, align;
    } want[] = {
        {"a", 8, 8}, {"b", 16, 16}, {"c", 6, 2}, {"d", 16, 4}, {"e", 2, 2}, {"g", 32, 32},
        {"h", 16, 16}, {"i", 4, 4}, {"j", 8, 8},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        LangType *ty = local_type(u, want[i].var);
        if (ty->size != want[i].size || ty->align != want[i].align)
            fail_msg("%s: size %d align %d, want %d %d", want[i].var, ty->size, ty->align,
                     want[i].size, want[i].align);
    }
    expect_type(local_type(u, "h"), "float3");
    assert_true(local_type(u, "c")->packed);
}

static void test_struct_layout(void **state)
{
    (void)state;
    /* a: half3 at 0 (8 bytes); b: float at 8; c: packed_float3 (align 4) at 12..24;
     * d: float3 aligned to 16 -> 32..48; e: char at 48; size rounds 49 up to 16 -> 64. */
    LangUnit *u = parse_ok("struct S { half3 a; float b; packed_float3 c; float3 d; char e; };\n"
                           "struct In { char c; float4 v; };\n"
                           "struct Out { char a; In in; half h; float3 arr[2]; };\n"
                           "void f() { S s; Out o; In ins[3]; }");
    LangType *s = local_type(u, "s");
    assert_int_equal(s->kind, LTY_STRUCT);
    int offsets[] = {0, 8, 12, 32, 48}, i = 0;
    for (LangMember *m = s->members; m; m = m->next, i++)
        assert_int_equal(m->offset, offsets[i]);
    assert_int_equal(i, 5);
    assert_int_equal(s->size, 64);
    assert_int_equal(s->align, 16);
    /* In: c 0, v 16, size 32. Out: a 0, in 16, h 48, arr (float3 align 16) 64..96. */
    LangType *o = local_type(u, "o");
    int out_offsets[] = {0, 16, 48, 64};
    i = 0;
    for (LangMember *m = o->members; m; m = m->next, i++)
        assert_int_equal(m->offset, out_offsets[i]);
    assert_int_equal(o->size, 96);
    LangType *ins = local_type(u, "ins");
    assert_int_equal(ins->kind, LTY_ARRAY);
    assert_int_equal(ins->len, 3);
    assert_int_equal(ins->size, 96);
    assert_int_equal(ins->base->size, 32);
}

static void test_typedef_enum_sizeof(void **state)
{
    (void)state;
    LangUnit *u = parse_ok("typedef struct { float4 v; int i[3]; } T;\n"
                           "typedef float real; using idx = uint;\n"
                           "enum Mode { A, B = 5, C };\n"
                           "void f() { T t; real r = 1; idx k = C; int s = sizeof(T); "
                           "ulong z = sizeof(half3); }");
    expect_type(local_type(u, "t"), "T");
    assert_int_equal(local_type(u, "t")->size, 32);
    expect_type(local_type(u, "r"), "float");
    expect_type(local_type(u, "k"), "uint");
    LangNode *k = init_of(u, "k");
    assert_int_equal(k->kind, LND_NUM);
    assert_int_equal(k->ival, 6);
    LangNode *s = init_of(u, "s");
    assert_int_equal(s->kind, LND_NUM);
    assert_int_equal(s->ival, 32);
    assert_int_equal(init_of(u, "z")->ival, 8);
}

/* ---- expressions and conversions ----------------------------------------------------------- */

static void test_binary_types(void **state)
{
    (void)state;
    LangUnit *u = parse_ok(
        "void f(half h, float x, int i, uint u, ushort s, long l, half4 h4, float4 f4) {\n"
        "  float a = h * x; uint b = i + u; half c = h + i; int d = s + s; long e = l + u;\n"
        "  float4 g = f4 * 2; half4 k = h4 + h; bool4 m = f4 < x; bool n = i < u;\n"
        "  int o = s << 2; }");
    LangNode *a = init_of(u, "a");
    assert_int_equal(a->kind, LND_MUL);
    expect_type(a->type, "float");
    assert_int_equal(a->lhs->kind, LND_CAST); /* half -> float */
    expect_type(a->lhs->type, "float");
    LangNode *b = init_of(u, "b");
    expect_type(b->type, "uint");
    assert_int_equal(b->lhs->kind, LND_CAST);
    expect_type(init_of(u, "c")->type, "half");
    LangNode *d = init_of(u, "d");
    expect_type(d->type, "int"); /* integer promotion */
    expect_type(init_of(u, "e")->type, "long");
    LangNode *g = init_of(u, "g");
    expect_type(g->type, "float4");
    assert_int_equal(g->rhs->kind, LND_CONSTRUCT); /* broadcast of 2.0f */
    assert_int_equal(g->rhs->num_args, 1);
    assert_int_equal(g->rhs->args->kind, LND_NUM);
    expect_type(g->rhs->args->type, "float");
    assert_true(g->rhs->args->fval == 2.0);
    LangNode *k = init_of(u, "k");
    expect_type(k->type, "half4");
    assert_int_equal(k->rhs->kind, LND_CONSTRUCT);
    expect_type(init_of(u, "m")->type, "bool4");
    LangNode *n = init_of(u, "n");
    expect_type(n->type, "bool");
    expect_type(n->lhs->type, "uint");
    expect_type(init_of(u, "o")->type, "int");
}

static void test_swizzles(void **state)
{
    (void)state;
    LangUnit *u = parse_ok("void f(float4 v, uint3 p) { float2 a = v.zw; half3 b = half3(v.rgb);"
                           " uint c = p.x; float4 d = v.xxyy; v.yx = a; }");
    LangNode *a = init_of(u, "a");
    assert_int_equal(a->kind, LND_SWIZZLE);
    assert_int_equal(a->swizzle_len, 2);
    assert_int_equal(a->swizzle[0], 2);
    assert_int_equal(a->swizzle[1], 3);
    LangNode *b = init_of(u, "b");
    assert_int_equal(b->kind, LND_CAST);
    assert_int_equal(b->lhs->kind, LND_SWIZZLE);
    assert_int_equal(b->lhs->swizzle[2], 2);
    expect_type(init_of(u, "c")->type, "uint");
    expect_type(init_of(u, "d")->type, "float4");
    LangNode *last = u->funcs->body->body;
    while (last->next)
        last = last->next;
    assert_int_equal(last->kind, LND_EXPR_STMT);
    assert_int_equal(last->lhs->kind, LND_ASSIGN);
    assert_int_equal(last->lhs->lhs->kind, LND_SWIZZLE);
}

static void test_constructors(void **state)
{
    (void)state;
    LangUnit *u = parse_ok("struct P { float a; int b; };\n"
                           "void f(float2 xy, half h) { float4 a = float4(xy, 1, h);"
                           " float4 b = float4(3); float3 c = float3(half3(h)); P p = {1, 2};"
                           " P q = P{2.0f, 3}; float d[3] = {1, 2, 3}; int e = int(2.5f); }");
    LangNode *a = init_of(u, "a");
    assert_int_equal(a->kind, LND_CONSTRUCT);
    assert_int_equal(a->num_args, 3);
    expect_type(a->args->type, "float2");
    expect_type(a->args->next->type, "float");
    expect_type(a->args->next->next->type, "float"); /* half converted */
    LangNode *b = init_of(u, "b");
    assert_int_equal(b->kind, LND_CONSTRUCT);
    assert_int_equal(b->num_args, 1);
    LangNode *c = init_of(u, "c");
    assert_int_equal(c->kind, LND_CAST);
    expect_type(c->lhs->type, "half3");
    LangNode *p = init_of(u, "p");
    assert_int_equal(p->kind, LND_CONSTRUCT);
    expect_type(p->type, "P");
    expect_type(p->args->type, "float");
    expect_type(p->args->next->type, "int");
    expect_type(init_of(u, "q")->args->next->type, "int");
    LangNode *d = init_of(u, "d");
    assert_int_equal(d->num_args, 3);
    expect_type(d->args->type, "float");
    LangNode *e = init_of(u, "e");
    assert_int_equal(e->kind, LND_NUM); /* folded cast */
    assert_int_equal(e->ival, 2);
}

static void test_casts_and_bitcasts(void **state)
{
    (void)state;
    LangUnit *u = parse_ok("void f(float x, half2 h) { uint a = as_type<uint>(x);"
                           " float b = as_type<float>(h); int c = static_cast<int>(x);"
                           " half d = (half)x; float e = x > 0 ? x : 0; }");
    LangNode *a = init_of(u, "a");
    assert_int_equal(a->kind, LND_BITCAST);
    expect_type(a->type, "uint");
    assert_int_equal(init_of(u, "b")->kind, LND_BITCAST);
    LangNode *c = init_of(u, "c");
    assert_int_equal(c->kind, LND_CAST);
    expect_type(c->type, "int");
    expect_type(init_of(u, "d")->type, "half");
    LangNode *e = init_of(u, "e");
    assert_int_equal(e->kind, LND_COND);
    expect_type(e->cond->type, "bool");
    expect_type(e->els->type, "float");
    assert_int_equal(e->els->kind, LND_NUM);
}

static void test_pointers_and_references(void **state)
{
    (void)state;
    LangUnit *u = parse_ok(
        "struct S { float a; float4 v; };\n"
        "float g(thread float &r, device const float *p) { r += p[1]; return *(p + 2); }\n"
        "kernel void k(device float *out [[buffer(0)]], constant S &s [[buffer(1)]],\n"
        "              uint id [[thread_position_in_grid]]) {\n"
        "  float t = s.a; device float *q = out + id; float u = g(t, q); long n = q - out;\n"
        "  float w = s.v.y; }");
    LangFunction *k = func(u, "k");
    LangVar *s = k->params->next;
    assert_true(s->type->kind == LTY_POINTER && s->type->is_reference);
    assert_int_equal(s->type->space, LAS_CONSTANT);
    LangNode *t = find_decl(k->body, "t")->init;
    assert_int_equal(t->kind, LND_MEMBER);
    assert_int_equal(t->lhs->kind, LND_DEREF);
    assert_int_equal(t->lhs->lhs->kind, LND_VAR);
    LangNode *q = find_decl(k->body, "q")->init;
    assert_int_equal(q->kind, LND_ADD);
    expect_type(q->type, "device float*");
    LangNode *call = find_decl(k->body, "u")->init;
    assert_int_equal(call->kind, LND_CALL);
    assert_ptr_equal(call->func, func(u, "g"));
    assert_int_equal(call->args->kind, LND_ADDR); /* bound to the reference */
    /* whether t goes to memory is decided with g's body known (codegen_refs.c) */
    assert_false(find_decl(k->body, "t")->var->address_taken);
    expect_type(find_decl(k->body, "n")->init->type, "long");
    LangNode *w = find_decl(k->body, "w")->init;
    assert_int_equal(w->kind, LND_SWIZZLE);
    assert_int_equal(w->lhs->member->offset, 16);
}

static void test_statements(void **state)
{
    (void)state;
    LangUnit *u = parse_ok("void f(int x) { int s = 0;\n"
                           "  for (int i = 0; i < 4; i++) { if (i == 2) continue; s += i; }\n"
                           "  while (s > 0) s--;\n"
                           "  do { s++; } while (s < 3);\n"
                           "  switch (x) { case 1: s = 1; break; case 2: case 3: s = 2; "
                           "default: s = 4; }\n"
                           "  if (s) s = 0; else s = 1; s = (s, 2); }");
    LangNode *st = u->funcs->body->body;
    assert_int_equal(st->kind, LND_DECL);
    st = st->next;
    assert_int_equal(st->kind, LND_FOR);
    assert_int_equal(st->init->kind, LND_DECL);
    assert_int_equal(st->cond->kind, LND_LT);
    assert_int_equal(st->inc->kind, LND_POST_INC);
    st = st->next;
    assert_int_equal(st->kind, LND_FOR); /* while */
    assert_null(st->init);
    st = st->next;
    assert_int_equal(st->kind, LND_DO);
    st = st->next;
    assert_int_equal(st->kind, LND_SWITCH);
    int n = 0;
    int64_t values[] = {1, 2, 3};
    for (LangNode *c = st->case_next; c; c = c->case_next, n++) {
        assert_int_equal(c->kind, LND_CASE);
        if (n < 3)
            assert_int_equal(c->case_value, values[n]);
        else
            assert_true(c->is_default);
    }
    assert_int_equal(n, 4);
    assert_int_equal(st->case_next->body->body->next->kind, LND_BREAK);
    st = st->next;
    assert_int_equal(st->kind, LND_IF);
    expect_type(st->cond->type, "bool");
    assert_non_null(st->els);
    st = st->next;
    assert_int_equal(st->lhs->rhs->kind, LND_COMMA);
}

static void test_builtins(void **state)
{
    (void)state;
    LangUnit *u = parse_ok(
        "kernel void k(device atomic_uint *c [[buffer(0)]], device float4 *v [[buffer(1)]],\n"
        "              uint lane [[thread_index_in_simdgroup]]) {\n"
        "  half4 h = half4(v[0]); half d = dot(h, h); bool a = all(v[0] > 0);\n"
        "  simd_vote b = simd_ballot(lane > 3); float s = simd_shuffle(v[0].x, lane);\n"
        "  uint o = atomic_fetch_add_explicit(c, 1, memory_order_relaxed);\n"
        "  float e = fast::exp(v[0].x); float m = max(v[0].x, 1); float l = length(v[0]);\n"
        "  threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);\n"
        "  float p = metal::precise::sqrt(2.0f); int z = clz(3); }");
    LangNode *d = init_of(u, "d");
    assert_int_equal(d->kind, LND_BUILTIN);
    assert_int_equal(d->builtin, LANG_BI_DOT);
    expect_type(d->type, "half");
    expect_type(init_of(u, "a")->type, "bool");
    LangNode *b = init_of(u, "b");
    assert_int_equal(b->builtin, LANG_BI_SIMD_BALLOT);
    expect_type(b->type, "simd_vote");
    LangNode *s = init_of(u, "s");
    expect_type(s->type, "float");
    expect_type(s->args->next->type, "ushort");
    LangNode *o = init_of(u, "o");
    assert_int_equal(o->builtin, LANG_BI_ATOMIC_FETCH_ADD);
    expect_type(o->type, "uint");
    assert_int_equal(o->num_args, 3);
    expect_type(o->args->next->type, "uint");
    expect_type(o->args->next->next->type, "memory_order");
    LangNode *e = init_of(u, "e");
    assert_true(e->fast_math);
    assert_int_equal(e->builtin, LANG_BI_EXP);
    LangNode *m = init_of(u, "m");
    expect_type(m->args->next->type, "float");
    expect_type(init_of(u, "l")->type, "float");
    LangNode *bar = find_decl(u->funcs->body, "l")->next;
    assert_int_equal(bar->lhs->builtin, LANG_BI_THREADGROUP_BARRIER);
    assert_int_equal(bar->lhs->args->kind, LND_NUM);
    expect_type(bar->lhs->args->type, "mem_flags");
    assert_int_equal(bar->lhs->args->ival, 3); /* mem_device 1 | mem_threadgroup 2 */
    assert_false(init_of(u, "p")->fast_math);
    expect_type(init_of(u, "z")->type, "int");
}

/* ---- declarations -------------------------------------------------------------------------- */

static void test_kernel_params(void **state)
{
    (void)state;
    LangUnit *u = parse_ok(
        "[[kernel]] void k(device float *a [[buffer(2)]], device half *b,\n"
        "  threadgroup float *t [[threadgroup(0)]], uint3 g [[thread_position_in_grid]],\n"
        "  ushort l [[thread_index_in_threadgroup]], uint w [[threads_per_simdgroup]],\n"
        "  uint q [[quadgroup_index_in_threadgroup]]) {}");
    LangFunction *k = func(u, "k");
    assert_true(k->is_kernel);
    assert_int_equal(k->num_params, 7);
    LangVar *p = k->params;
    assert_int_equal(p->attr, LATTR_BUFFER);
    assert_int_equal(p->attr_index, 2);
    assert_int_equal(p->type->space, LAS_DEVICE);
    p = p->next;
    assert_int_equal(p->attr, LATTR_BUFFER);
    assert_int_equal(p->attr_index, 3); /* assigned after the highest given index */
    p = p->next;
    assert_int_equal(p->attr, LATTR_THREADGROUP);
    assert_int_equal(p->type->space, LAS_THREADGROUP);
    p = p->next;
    assert_int_equal(p->attr, LATTR_THREAD_POSITION_IN_GRID);
    expect_type(p->type, "uint3");
    assert_int_equal(p->next->attr, LATTR_THREAD_INDEX_IN_THREADGROUP);
    assert_int_equal(p->next->next->attr, LATTR_THREADS_PER_SIMDGROUP);
    assert_int_equal(p->next->next->next->attr, LATTR_QUADGROUP_INDEX_IN_THREADGROUP);
}

static void test_threadgroup_vars(void **state)
{
    (void)state;
    /* a: char at 0; b: float4 aligned to 16 -> 16..32; c: half[3] at 32..38; d: float at 40 */
    LangUnit *u = parse_ok("kernel void k(uint l [[thread_index_in_threadgroup]]) {\n"
                           "  threadgroup char a; threadgroup float4 b; threadgroup half c[3];\n"
                           "  { threadgroup float d; d = 1; } c[l] = a; }");
    LangFunction *k = u->funcs;
    int offsets[] = {0, 16, 32, 40}, i = 0;
    for (LangVar *v = k->locals; v; v = v->next, i++) {
        assert_int_equal(v->kind, LVAR_THREADGROUP);
        assert_int_equal(v->tg_offset, offsets[i]);
    }
    assert_int_equal(i, 4);
    assert_int_equal(k->tg_mem_bytes, 44);
}

static void test_program_constants(void **state)
{
    (void)state;
    LangUnit *u = parse_ok("constant int N = 3 * 4;\n"
                           "constant float SCALE = 0.5f;\n"
                           "constant float2 V = float2(1, 2);\n"
                           "constant bool HAS [[function_constant(7)]];\n"
                           "constant uint CNT [[function_constant(1)]];\n"
                           "void f() { int a[N]; float s = SCALE * 2; bool h = HAS; "
                           "bool d = is_function_constant_defined(CNT); }");
    LangVar *g = u->globals;
    assert_int_equal(g->kind, LVAR_CONSTANT);
    assert_int_equal(g->init->kind, LND_NUM);
    assert_int_equal(g->init->ival, 12);
    assert_int_equal(g->next->init->kind, LND_NUM);
    assert_int_equal(g->next->next->init->kind, LND_CONSTRUCT);
    LangVar *fc = g->next->next->next;
    assert_int_equal(fc->kind, LVAR_FUNCTION_CONSTANT);
    assert_int_equal(fc->attr_index, 7);
    expect_type(fc->type, "const bool");
    assert_int_equal(local_type(u, "a")->len, 12);
    LangNode *s = init_of(u, "s");
    assert_int_equal(s->kind, LND_NUM); /* folded: 0.5 * 2 */
    assert_true(s->fval == 1.0);
    LangNode *h = init_of(u, "h");
    assert_int_equal(h->kind, LND_VAR);
    assert_ptr_equal(h->var, fc);
    assert_int_equal(init_of(u, "d")->kind, LND_NUM);
}

static void test_templates(void **state)
{
    (void)state;
    LangUnit *u = parse_ok(
        "template <typename T> T twice(T x) { return x + x; }\n"
        "template <typename T>\n"
        "[[kernel]] void kern(device T *out [[buffer(0)]], uint i [[thread_position_in_grid]])"
        " { out[i] = twice<T>(out[i]); }\n"
        "template [[host_name(\"kern_half\")]] [[kernel]] decltype(kern<half>) kern<half>;\n"
        "template [[host_name(\"kern_float\")]] [[kernel]] decltype(kern<float>) kern<float>;\n");
    LangFunction *kh = func(u, "kern_half"), *kf = func(u, "kern_float");
    assert_true(kh->is_kernel && kf->is_kernel);
    expect_type(kh->params->type, "device half*");
    expect_type(kf->params->type, "device float*");
    LangFunction *th = func(u, "twice<half>");
    expect_type(th->ret, "half");
    assert_false(th->is_kernel);
    func(u, "twice<float>");
    assert_ptr_equal(lang_find_kernel(&fx->ctx, u, "kern_float"), kf);
}

static void test_find_kernel(void **state)
{
    (void)state;
    LangUnit *u = parse_ok("kernel void only(device int *a [[buffer(0)]]) {}\n"
                           "void helper() {}");
    assert_ptr_equal(lang_find_kernel(&fx->ctx, u, NULL), func(u, "only"));
    assert_ptr_equal(lang_find_kernel(&fx->ctx, u, "only"), func(u, "only"));
    LangUnit *two = parse_ok("kernel void a(device int *p [[buffer(0)]]) {}\n"
                             "kernel void b(device int *p [[buffer(0)]]) {}");
    if (setjmp(fx->ctx.bail) == 0) {
        lang_find_kernel(&fx->ctx, two, NULL);
        fail_msg("an ambiguous entry was accepted");
    }
    assert_non_null(strstr(fx->err.message,
                           "error: the file has several kernels (a, b): name the one to run"));
    if (setjmp(fx->ctx.bail) == 0) {
        lang_find_kernel(&fx->ctx, two, "c");
        fail_msg("a missing entry was accepted");
    }
    assert_non_null(strstr(fx->err.message,
                           "error: no kernel named 'c' (the file's kernels: a, b)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_vector_layouts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_struct_layout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_typedef_enum_sizeof, setup, teardown),
        cmocka_unit_test_setup_teardown(test_binary_types, setup, teardown),
        cmocka_unit_test_setup_teardown(test_swizzles, setup, teardown),
        cmocka_unit_test_setup_teardown(test_constructors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_casts_and_bitcasts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pointers_and_references, setup, teardown),
        cmocka_unit_test_setup_teardown(test_statements, setup, teardown),
        cmocka_unit_test_setup_teardown(test_builtins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernel_params, setup, teardown),
        cmocka_unit_test_setup_teardown(test_threadgroup_vars, setup, teardown),
        cmocka_unit_test_setup_teardown(test_program_constants, setup, teardown),
        cmocka_unit_test_setup_teardown(test_templates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_find_kernel, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
