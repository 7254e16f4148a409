/*
 * test_constructs.c — one construct at a time through the whole compiler: vectors and
 * swizzles, structs and arrays, pointers into each address space, and references. Each
 * construct has a shape test (the emitted opcodes, formats and operand kinds that matter)
 * and an execution test whose expected values come from C code written here.
 */
#include "construct_harness.h"

/* ---- vectors and swizzles ------------------------------------------------------------------ */

static void test_vector_shape(void **state)
{
    (void)state;
    IsaProgram *p = ch_compile(
        "kernel void k(device float4* f [[buffer(0)]], device half* h [[buffer(1)]],\n"
        "              uint i [[thread_position_in_grid]]) {\n"
        "  float4 v = f[i];\n"
        "  f[i + 64].zx = v.xy;\n"
        "  h[i] = h[i] + h[i + 1];\n"
        "}\n", NULL);
    /* one 4-wide load; the swizzle store writes z and x alone, no read of the rest */
    CH_EXPECT(p, ch_count_mem(p, ISA_OP_LD_DEV, ISA_FMT_B32, 4) == 1);
    CH_EXPECT(p, ch_count_mem(p, ISA_OP_ST_DEV, ISA_FMT_B32, 1) == 2);
    CH_EXPECT(p, ch_count(p, ISA_OP_ST_DEV) == 3);
    /* half arithmetic stays in register halves */
    int a = ch_find(p, ISA_OP_FADD16, 0);
    CH_EXPECT(p, a >= 0);
    CH_EXPECT(p, p->code[a].opd[0].kind == ISA_OPD_R16);
    CH_EXPECT(p, ch_count_mem(p, ISA_OP_LD_DEV, ISA_FMT_H16, 1) == 2);
    CH_EXPECT(p, !ch_has(p, ISA_OP_FADD32));
    isa_program_free(p);
}

static void test_vector_exec(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "kernel void k(device const float4* a [[buffer(0)]], device float4* o [[buffer(1)]],\n"
            "              device int4* oi [[buffer(2)]], device half4* oh [[buffer(3)]],\n"
            "              device float3* o3 [[buffer(4)]], device uint2* o2 [[buffer(5)]],\n"
            "              uint i [[thread_position_in_grid]]) {\n"
            "  float4 v = a[i];\n"
            "  float2 p = v.wy;\n"
            "  float3 t = float3(p, v.z) * 2.0f + 1.0f;\n"
            "  float4 c = v.rgba + v.xxyy;\n"
            "  o[i * 3] = float4(t.zy, p.x, 3.0f) - c / 2.0f;\n"
            "  o[i * 3 + 1] = float4(v.bgr, v.a * v.a);\n"
            "  int3 iv = int3(int(v.x), 2, int(v.w)) * 3 - 1;\n"
            "  bool4 gt = v > float4(2.0f, 3.0f, 1.0f, 0.5f);\n"
            "  bool2 eq = iv.xy == int2(-10, 5);\n"
            "  oi[i * 2] = int4(iv.zyx, iv.x + iv.y);\n"
            "  oi[i * 2 + 1] = int4(all(gt), any(gt), any(eq), all(gt.xy));\n"
            "  o[i * 3 + 2] = select(float4(-1.0f), v, gt);\n"
            "  half4 hv = half4(v) * half(2);\n"
            "  hv.yw = hv.wy;\n"
            "  oh[i] = hv + half4(half2(v.zw), half2(1.0h));\n"
            "  o3[i] = 10.0f - float3(v.x) + t;\n"
            "  uint2 u = uint2(i, 7u) << 2u;\n"
            "  u.y ^= u.x;\n"
            "  u[0] += 1u;\n"
            "  o2[i] = u;\n"
            "}\n", NULL);
    enum { N = 40 };
    float *a = ch_buf(&h, 0, N * 16);
    float *o = ch_buf(&h, 1, N * 48);
    int32_t *oi = ch_buf(&h, 2, N * 32);
    uint16_t *oh = ch_buf(&h, 3, N * 8);
    float *o3 = ch_buf(&h, 4, N * 16);
    uint32_t *o2 = ch_buf(&h, 5, N * 8);
    for (int i = 0; i < N; i++) {
        a[i * 4 + 0] = (float)i * 0.5f - 3.0f;
        a[i * 4 + 1] = (float)i + 1.25f;
        a[i * 4 + 2] = 2.0f - (float)i * 0.25f;
        a[i * 4 + 3] = (float)(i % 5);
    }
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        const float *v = a + i * 4;
        float px = v[3], py = v[1];
        float t[3] = {px * 2.0f + 1.0f, py * 2.0f + 1.0f, v[2] * 2.0f + 1.0f};
        float c[4] = {v[0] + v[0], v[1] + v[0], v[2] + v[1], v[3] + v[1]};
        float r0[4] = {t[2] - c[0] / 2.0f, t[1] - c[1] / 2.0f, px - c[2] / 2.0f, 3.0f - c[3] / 2.0f};
        float r1[4] = {v[2], v[1], v[0], v[3] * v[3]};
        float cut[4] = {2.0f, 3.0f, 1.0f, 0.5f};
        int gt[4], any = 0, all = 1;
        for (int k = 0; k < 4; k++) {
            gt[k] = v[k] > cut[k];
            any |= gt[k];
            all &= gt[k];
            CH_FEQ(o[i * 12 + k], r0[k], i);
            CH_FEQ(o[i * 12 + 4 + k], r1[k], i);
            CH_FEQ(o[i * 12 + 8 + k], gt[k] ? v[k] : -1.0f, i);
        }
        int iv[3] = {(int)v[0] * 3 - 1, 2 * 3 - 1, (int)v[3] * 3 - 1};
        int want_i[8] = {iv[2], iv[1], iv[0], iv[0] + iv[1], all, any,
                         iv[0] == -10 || iv[1] == 5, gt[0] && gt[1]};
        for (int k = 0; k < 8; k++)
            CH_IEQ(oi[i * 8 + k], want_i[k], i);
        double hv[4] = {v[0] * 2.0, v[3] * 2.0, v[2] * 2.0, v[1] * 2.0}; /* after .yw = .wy */
        double add[4] = {v[2], v[3], 1.0, 1.0};
        for (int k = 0; k < 4; k++)
            CH_IEQ(oh[i * 4 + k], h_d2h(h_f16_value(h_d2h(hv[k])) + add[k]), i);
        for (int k = 0; k < 3; k++)
            CH_FEQ(o3[i * 4 + k], 10.0f - v[0] + t[k], i);
        uint32_t ux = (uint32_t)i << 2, uy = 7u << 2;
        uy ^= ux;
        ux += 1;
        CH_IEQ(o2[i * 2], ux, i);
        CH_IEQ(o2[i * 2 + 1], uy, i);
    }
    h_free(&h);
}

/* ---- structs and arrays -------------------------------------------------------------------- */

static const char *struct_src =
    "struct In { float2 a; int b; };\n"
    "struct Outer { In in; float c[3]; uint tag; };\n"
    "kernel void k(device Outer* s [[buffer(0)]], device float* o [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]], uint l [[thread_index_in_threadgroup]]) {\n"
    "  threadgroup float tb[32];\n"
    "  threadgroup In ts[32];\n"
    "  Outer x = s[i];\n"
    "  float loc[6];\n"
    "  for (int j = 0; j < 6; j++) loc[j] = x.c[j % 3] * float(j + 1);\n"
    "  int k2 = (x.in.b + int(i)) % 6;\n"
    "  loc[k2] += 100.0f;\n"
    "  In y;\n"
    "  y.a = x.in.a.yx;\n"
    "  y.b = x.in.b * 2;\n"
    "  ts[l] = y;\n"
    "  tb[l] = loc[(i + 1) % 6];\n"
    "  threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "  In z = ts[(l + 1) % 32];\n"
    "  s[i].in.a.y = x.c[1] + float(x.in.b);\n"
    "  s[i].tag = x.tag + 1u;\n"
    "  o[i * 4] = z.a.x + float(z.b);\n"
    "  o[i * 4 + 1] = tb[31 - l];\n"
    "  o[i * 4 + 2] = loc[k2];\n"
    "  o[i * 4 + 3] = loc[0] + loc[5];\n"
    "}\n";

static void test_struct_shape(void **state)
{
    (void)state;
    IsaProgram *p = ch_compile(struct_src, NULL);
    /* the dynamically indexed local array lives on the stack, the shared ones in threadgroup
     * memory (32 floats + 32 16-byte structs) */
    CH_EXPECT(p, p->stack_bytes >= 24);
    CH_EXPECT(p, p->tg_mem_bytes >= 32 * 4 + 32 * 16);
    CH_EXPECT(p, ch_has(p, ISA_OP_ST_STACK) && ch_has(p, ISA_OP_LD_STACK));
    CH_EXPECT(p, ch_has(p, ISA_OP_ST_TG) && ch_has(p, ISA_OP_LD_TG));
    CH_EXPECT(p, ch_has(p, ISA_OP_BARRIER));
    /* s[i].in.a.y = ... and s[i].tag = ...: two single-word stores, nothing wider */
    CH_EXPECT(p, ch_count(p, ISA_OP_ST_DEV) == 2 + 4);
    CH_EXPECT(p, ch_count_mem(p, ISA_OP_ST_DEV, ISA_FMT_B32, 1) == 6);
    isa_program_free(p);
}

typedef struct { float a[2]; int32_t b, pad; float c[3]; uint32_t tag; } COuter; /* 32 bytes */

static void test_struct_exec(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, struct_src, NULL);
    enum { N = 64 };
    COuter *s = ch_buf(&h, 0, N * sizeof(COuter));
    float *o = ch_buf(&h, 1, N * 16);
    h.bind[2].tg_bytes = 0;
    COuter in[N];
    for (int i = 0; i < N; i++) {
        s[i].a[0] = (float)i * 1.5f;
        s[i].a[1] = 100.0f - (float)i;
        s[i].b = i * 7 % 11;
        s[i].pad = 12345;
        for (int k = 0; k < 3; k++)
            s[i].c[k] = (float)(i + k) * 0.25f;
        s[i].tag = (uint32_t)(i * 3);
        in[i] = s[i];
    }
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        const COuter *x = &in[i];
        float loc[6];
        for (int j = 0; j < 6; j++)
            loc[j] = x->c[j % 3] * (float)(j + 1);
        int k2 = (x->b + i) % 6;
        loc[k2] += 100.0f;
        int base = i / 32 * 32, l = i % 32;
        const COuter *zn = &in[base + (l + 1) % 32];
        float z = zn->a[1] + (float)(zn->b * 2);
        int j = base + 31 - l; /* its loc[(j + 1) % 6] */
        const COuter *xj = &in[j];
        float lj[6];
        for (int m = 0; m < 6; m++)
            lj[m] = xj->c[m % 3] * (float)(m + 1);
        lj[(xj->b + j) % 6] += 100.0f;
        CH_FEQ(o[i * 4], z, i);
        CH_FEQ(o[i * 4 + 1], lj[(j + 1) % 6], i);
        CH_FEQ(o[i * 4 + 2], loc[k2], i);
        CH_FEQ(o[i * 4 + 3], loc[0] + loc[5], i);
        /* written: a.y and tag; the rest untouched (pad included) */
        CH_FEQ(s[i].a[0], x->a[0], i);
        CH_FEQ(s[i].a[1], x->c[1] + (float)x->b, i);
        CH_IEQ(s[i].b, x->b, i);
        CH_IEQ(s[i].pad, 12345, i);
        CH_IEQ(s[i].tag, x->tag + 1, i);
    }
    h_free(&h);
}

/* ---- pointers into each address space ------------------------------------------------------ */

static const char *pointer_src =
    "float sum3(const device float* p) { return p[0] + p[1] + p[2]; }\n"
    "float tsum(threadgroup const float* p, int n) {\n"
    "  float s = 0.0f;\n"
    "  for (int j = 0; j < n; j++) s += p[j];\n"
    "  return s;\n"
    "}\n"
    "void bump(thread float* p, float v) { *p += v; p[1] = v * 2.0f; }\n"
    "float cget(constant float* c, uint k) { return *(c + k) * 2.0f; }\n"
    "kernel void k(device const float* a [[buffer(0)]], constant float* c [[buffer(1)]],\n"
    "              device float* o [[buffer(2)]], threadgroup float* tg [[threadgroup(0)]],\n"
    "              uint i [[thread_position_in_grid]], uint l [[thread_index_in_threadgroup]]) {\n"
    "  device const float* p = a + i;\n"
    "  p += 1;\n"
    "  float d = sum3(p) + *(p - 1);\n"
    "  tg[l] = a[i];\n"
    "  threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "  threadgroup float* q = tg + (l & ~3u);\n"
    "  float t = tsum(q, 4);\n"
    "  float loc[3] = {1.0f, 2.0f, 3.0f};\n"
    "  thread float* lp = &loc[i % 2];\n"
    "  bump(lp, d);\n"
    "  device float* out = o + i * 4;\n"
    "  out[0] = d;\n"
    "  out[1] = t;\n"
    "  *(out + 2) = loc[0] + loc[1] * 10.0f + loc[2] * 100.0f;\n"
    "  out[3] = cget(c, i % 4);\n"
    "}\n";

static void test_pointer_shape(void **state)
{
    (void)state;
    IsaProgram *p = ch_compile(pointer_src, NULL);
    CH_EXPECT(p, p->num_args == 4);
    CH_EXPECT(p, p->args[1].kind == ISA_ARG_CONSTANT && p->args[3].kind == ISA_ARG_THREADGROUP);
    CH_EXPECT(p, ch_count_mem(p, ISA_OP_LD_CONST, ISA_FMT_B32, 1) == 1);
    CH_EXPECT(p, ch_has(p, ISA_OP_LD_TG) && ch_has(p, ISA_OP_ST_TG));
    /* a thread pointer with a lane-dependent target needs the stack */
    CH_EXPECT(p, ch_has(p, ISA_OP_ST_STACK) && ch_has(p, ISA_OP_LD_STACK));
    CH_EXPECT(p, p->stack_bytes >= 12);
    /* device loads take the 64-bit base from the argument's uniform pair */
    int ld = ch_find(p, ISA_OP_LD_DEV, 0);
    CH_EXPECT(p, ld >= 0 && p->code[ld].opd[1].kind == ISA_OPD_U64);
    isa_program_free(p);
}

static void test_pointer_exec(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, pointer_src, NULL);
    enum { N = 30 }; /* a partial SIMD-group */
    float *a = ch_buf(&h, 0, (N + 3) * 4);
    float *c = ch_buf(&h, 1, 16);
    float *o = ch_buf(&h, 2, N * 16);
    h.bind[3].tg_bytes = 32 * 4;
    for (int i = 0; i < N + 3; i++)
        a[i] = (float)(i * i % 17) - 4.5f;
    for (int k = 0; k < 4; k++)
        c[k] = 1.0f + (float)k * 0.5f;
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        float d = a[i + 1] + a[i + 2] + a[i + 3] + a[i];
        int q = i & ~3;
        float t = 0.0f;
        for (int j = 0; j < 4; j++)
            t += q + j < N ? a[q + j] : 0.0f; /* lanes past the grid never wrote theirs */
        float loc[3] = {1.0f, 2.0f, 3.0f};
        loc[i % 2] += d;
        loc[i % 2 + 1] = d * 2.0f;
        CH_FEQ(o[i * 4], d, i);
        if (q + 3 < N)
            CH_FEQ(o[i * 4 + 1], t, i);
        CH_FEQ(o[i * 4 + 2], loc[0] + loc[1] * 10.0f + loc[2] * 100.0f, i);
        CH_FEQ(o[i * 4 + 3], c[i % 4] * 2.0f, i);
    }
    h_free(&h);
}

/* ---- one past the end ---------------------------------------------------------------------- */

/* &a[N] of an array of N is a pointer one past its end (valid C++), for private arrays (in a
 * struct and in a helper too), threadgroup rows and arrays in device structs, with the
 * operand in parentheses too (&(a[N]), which was refused); only reading or writing a[N] is
 * an error. */
static const char *past_end_src =
    "struct S { float v[4]; };\n"
    "float last(S s) { const thread float *e = &s.v[4]; return e[-1]; }\n"
    "kernel void k(device float *o [[buffer(0)]], device S *p [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "  threadgroup float tile[2][16];\n"
    "  tile[i / 16][i % 16] = float(i);\n"
    "  threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "  S s; s.v[0] = 1; s.v[1] = 2; s.v[2] = 3; s.v[3] = float(i) * 0.5f;\n"
    "  float a[8];\n"
    "  for (int j = 0; j < 8; j++) a[j] = float(j * j) + float(i);\n"
    "  thread float *q = &a[0];\n"
    "  for (int j = 0; j <= 8; j++) q = &a[j];\n"       /* ends at &a[8] */
    "  threadgroup float *re = &(tile[0][16]);\n"
    "  device float *pe = &p[i].v[4];\n"
    "  o[i * 4] = last(s) + q[-1];\n"
    "  o[i * 4 + 1] = re[-1 - int(i % 16)];\n"
    "  o[i * 4 + 2] = pe[-3];\n"
    "  o[i * 4 + 3] = float(&tile[2] - &tile[0]) + float(q - &a[0]) + float(&((a[8])) - &(a[0]));\n"
    "}\n";

static void test_one_past_end(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, past_end_src, NULL);
    enum { N = 32 };
    float *o = ch_buf(&h, 0, N * 16);
    float *p = ch_buf(&h, 1, N * 16);
    for (int i = 0; i < N * 4; i++)
        p[i] = (float)i * 0.25f;
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        CH_FEQ(o[i * 4], (float)i * 0.5f + (49.0f + (float)i), i);
        CH_FEQ(o[i * 4 + 1], (float)(15 - i % 16), i);
        CH_FEQ(o[i * 4 + 2], p[i * 4 + 1], i);
        CH_FEQ(o[i * 4 + 3], 2.0f + 8.0f + 8.0f, i);
    }
    h_free(&h);
    /* the element itself, one further, or an index that another postfix operator follows */
    static const struct { const char *body, *want; } bad[] = {
        {"o[0] = a[8];", "index 8 is past the end of 'float[8]' (only its address, one past "
                         "the end, may be taken: &array[N])"},
        {"o[0] = *&a[9];", "index 9 is past the end of 'float[8]'"},
        {"o[0] = *&m[2][0];", "index 2 is past the end of 'float[3][2]'"},
        {"thread float *e = &a[8]++; o[0] = *e;", "index 8 is past the end"},
        {"a[8] = 1.0f; o[0] = a[0];", "index 8 is past the end"},
        /* in parentheses as without (&(a[8]) is &a[8]), unless the element is then used */
        {"o[0] = *&(a[9]);", "index 9 is past the end of 'float[8]'"},
        {"thread float *e = &(a[8])++; o[0] = *e;", "index 8 is past the end"},
        {"o[0] = *&(m[2])[0];", "index 2 is past the end of 'float[3][2]'"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char src[512];
        snprintf(src, sizeof src, "kernel void k(device float *o [[buffer(0)]]) {\n"
                 "  float a[8] = {0}; float m[2][3] = {{0}};\n  %s\n}\n", bad[k].body);
        ch_expect_error(src, NULL, bad[k].want);
    }
}

/* ---- pointers against arrays ----------------------------------------------------------------- */

/* A pointer and an array on either side of -, == and <: the array decays to a pointer to its
 * first element (`e - t` was refused as "invalid operands"), for private, threadgroup and
 * program-scope constant arrays. */
static void test_pointer_against_array(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "constant float tab[4] = {1, 2, 3, 4};\n"
            "kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
            "  float t[8];\n"
            "  for (int j = 0; j < 8; j++) t[j] = float(j);\n"
            "  threadgroup float s[8];\n"
            "  thread float *e = &t[i % 8];\n"
            "  threadgroup float *q = s + (i % 3);\n"
            "  constant const float *c = tab + (i % 5);\n"
            "  o[i * 4] = float(e - t) + 10.0f * float(t - e) + e[0];\n"
            "  o[i * 4 + 1] = (e == t ? 1.0f : 0.0f) + (e < t + 4 ? 2.0f : 0.0f) + (t != e ? 4.0f : 0.0f);\n"
            "  o[i * 4 + 2] = float(q - s) + (s <= q ? 8.0f : 0.0f);\n"
            "  o[i * 4 + 3] = float(c - tab) + (c >= tab + 4 ? 16.0f : 0.0f);\n"
            "}\n",
            NULL);
    enum { N = 32 };
    float *o = ch_buf(&h, 0, N * 16);
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        const int e = i % 8, q = i % 3, c = i % 5;
        CH_FEQ(o[i * 4], (float)e - 10.0f * (float)e + (float)e, i);
        CH_FEQ(o[i * 4 + 1], (e == 0 ? 1.0f : 0.0f) + (e < 4 ? 2.0f : 0.0f) + (e != 0 ? 4.0f : 0.0f), i);
        CH_FEQ(o[i * 4 + 2], (float)q + 8.0f, i);
        CH_FEQ(o[i * 4 + 3], (float)c + (c >= 4 ? 16.0f : 0.0f), i);
    }
    h_free(&h);
}

/* ---- thread memory shared by disjoint scopes ------------------------------------------------ */

/* Private arrays kept in thread memory (indexed at run time) of scopes never live together,
 * two helpers' and two sibling blocks', share bytes: the stack holds the largest of them,
 * not their sum (two helpers' 40000-byte arrays passed the 64 KiB limit). An array whose
 * scope is still open keeps its bytes: the caller's `keep` through the helper calls and the
 * inner block. */
static const char *scopes_src =
    "float fill_a(uint i, uint n) { float a[10000];\n"
    "  for (uint j = 0; j < n; j++) a[j] = float(j) + 0.5f;\n  return a[i % n]; }\n"
    "float fill_b(uint i, uint n) { float b[10000];\n"
    "  for (uint j = 0; j < n; j++) b[j] = float(j) * 3.0f;\n  return b[(i * 7u) % n]; }\n"
    "kernel void k(device float *o [[buffer(0)]], device const uint *n [[buffer(1)]],\n"
    "              uint i [[thread_position_in_grid]]) {\n"
    "  float keep[16];\n"
    "  for (uint j = 0; j < n[1]; j++) keep[j] = float(i * 100u + j);\n"
    "  float s = fill_a(i, n[0]) + fill_b(i, n[0]);\n"
    "  { float c[64]; for (uint j = 0; j < n[2]; j++) c[j] = -1.0f - float(j);\n"
    "    s += c[i % 64u];\n"
    "    { float e[8]; for (uint j = 0; j < n[3]; j++) e[j] = 1000.0f;\n"
    "      s += e[i % 8u] + keep[i % 16u]; } }\n"
    "  { float d[64]; for (uint j = 0; j < n[2]; j++) d[j] = float(j) * 0.25f;\n"
    "    s += d[(i + 3u) % 64u]; }\n"
    "  o[i] = s + keep[(i + 1u) % 16u];\n"
    "}\n";

static void test_disjoint_scopes_share_thread_memory(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, scopes_src, NULL);
    /* keep (64) lives throughout; a and b (40000 each) never together; c (256) with e (32)
     * inside it, then d (256) in c's place: at most 64 + 40000 bytes at once */
    CH_EXPECT(h.prog, h.prog->stack_bytes >= 64 + 40000 && h.prog->stack_bytes < 64 + 40000 + 64);
    enum { N = 40 };
    float *o = ch_buf(&h, 0, N * 4);
    uint32_t *n = ch_buf(&h, 1, 16);
    n[0] = 10000, n[1] = 16, n[2] = 64, n[3] = 8;
    ch_run(&h, N, 32);
    for (int i = 0; i < N; i++) {
        float want = ((float)(i % 10000) + 0.5f) + (float)((i * 7) % 10000) * 3.0f;
        want += -1.0f - (float)(i % 64);
        want += 1000.0f + (float)(i * 100 + i % 16);
        want += (float)((i + 3) % 64) * 0.25f;
        CH_FEQ(o[i], want + (float)(i * 100 + (i + 1) % 16), i);
    }
    h_free(&h);
}

/* ---- references ---------------------------------------------------------------------------- */

static const char *ref_src =
    "struct P { float scale; int n; float2 off; };\n"
    "void acc(thread float& s, thread int& cnt, float v) { s += v; cnt++; }\n"
    "void setv(thread float4& v, float w) { v.yw = float2(w, -w); }\n"
    "void addto(thread float& d, float x) { d += x; }\n"
    "kernel void k(constant P& p [[buffer(0)]], device float4* o [[buffer(1)]],\n"
    "              constant float& bias [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
    "  float s = bias;\n"
    "  int cnt = 0;\n"
    "  for (int j = 0; j < p.n; j++) acc(s, cnt, float(j) * p.scale);\n"
    "  float4 v = float4(p.off, float(i), 0.0f);\n"
    "  setv(v, s);\n"
    "  addto(v.x, float(cnt));\n"
    "  o[i] = v;\n"
    "}\n";

static void test_reference_shape(void **state)
{
    (void)state;
    IsaProgram *p = ch_compile(ref_src, NULL);
    CH_EXPECT(p, p->args[0].kind == ISA_ARG_CONSTANT && p->args[2].kind == ISA_ARG_CONSTANT);
    CH_EXPECT(p, ch_has(p, ISA_OP_LD_CONST));
    /* locals bound to thread references stay in registers (s, cnt, v and its component
     * v.x: the helpers only read and write them), as Apple's compiler keeps them once it
     * inlines the helpers (tests/lang/test_refregs.c has the rest); the kernel writes o[i]
     * once, 4 words wide */
    CH_EXPECT(p, p->stack_bytes == 0);
    CH_EXPECT(p, !ch_has(p, ISA_OP_ST_STACK) && !ch_has(p, ISA_OP_LD_STACK));
    CH_EXPECT(p, ch_count_mem(p, ISA_OP_ST_DEV, ISA_FMT_B32, 4) == 1);
    isa_program_free(p);
    /* a local reference to a local: that local lives in stack memory
     * (test_constructs_types.c runs local references) */
    p = ch_compile("kernel void k(device float* o [[buffer(0)]]) {\n"
                   "  float x = 1.0f;\n  thread float& r = x;\n  r += 2.0f;\n  o[0] = x;\n}\n",
                   NULL);
    CH_EXPECT(p, p->stack_bytes >= 4 && ch_has(p, ISA_OP_ST_STACK));
    isa_program_free(p);
}

static void test_reference_exec(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h, ref_src, NULL);
    enum { N = 20 };
    typedef struct { float scale; int32_t n; float off[2]; } CP;
    CP *p = ch_buf(&h, 0, sizeof(CP));
    float *o = ch_buf(&h, 1, N * 16);
    float *bias = ch_buf(&h, 2, 4);
    p->scale = 0.75f, p->n = 5, p->off[0] = -2.5f, p->off[1] = 9.0f;
    *bias = 0.125f;
    ch_run(&h, N, 32);
    float s = 0.125f;
    int cnt = 0;
    for (int j = 0; j < 5; j++)
        s += (float)j * 0.75f, cnt++;
    for (int i = 0; i < N; i++) {
        CH_FEQ(o[i * 4], -2.5f + (float)cnt, i);
        CH_FEQ(o[i * 4 + 1], s, i);
        CH_FEQ(o[i * 4 + 2], (float)i, i);
        CH_FEQ(o[i * 4 + 3], -s, i);
    }
    h_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector_shape),
        cmocka_unit_test(test_vector_exec),
        cmocka_unit_test(test_struct_shape),
        cmocka_unit_test(test_struct_exec),
        cmocka_unit_test(test_pointer_shape),
        cmocka_unit_test(test_pointer_exec),
        cmocka_unit_test(test_one_past_end),
        cmocka_unit_test(test_pointer_against_array),
        cmocka_unit_test(test_disjoint_scopes_share_thread_memory),
        cmocka_unit_test(test_reference_shape),
        cmocka_unit_test(test_reference_exec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
