/*
 * test_review.c — regressions from the pre-release review of the compiler's front end and
 * backend and from fuzzing it: each test pins one bug that was found and fixed (what went
 * wrong is said above the test), with expected values from C reasoning written here.
 * Leaks are checked by the heap in use before and after a compile (glibc's mallinfo2), so
 * they fail here and not only under valgrind or LeakSanitizer.
 */
#include "construct_harness.h"

#include <malloc.h>

static size_t heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

/* Compiles src, which must fail with a message containing want, and leak nothing. */
static void expect_error_no_leak(const char *src, const char *want)
{
    UtilError err = {{0}};
    /* a first compile warms up whatever the C library allocates once */
    IsaProgram *p = lang_compile_source(src, "k.metal", NULL, NULL, &err);
    assert_null(p);
    size_t before = heap_in_use();
    p = lang_compile_source(src, "k.metal", NULL, NULL, &err);
    size_t after = heap_in_use();
    assert_null(p);
    if (!strstr(err.message, want))
        fail_msg("message \"%s\" lacks \"%s\"", err.message, want);
    if (after != before)
        fail_msg("%zu bytes leaked by a failed compile of:\n%s", after - before, src);
}

/* ---- preprocessor --------------------------------------------------------------------------- */

/* #pragma once kept its list of files in util_malloc memory freed only at the end of a
 * successful run: any error after a #pragma once leaked it. */
static void test_pragma_once_then_error_no_leak(void **state)
{
    (void)state;
    expect_error_no_leak("#pragma once\n#error stop here\n",
                         "k.metal:2:2: error: #error stop here");
}

/* #include read any path to its end: "/dev/zero" ran out of memory and "/dev/stdin" waited
 * for input forever. Only regular files are read. */
static void test_include_device_file_refused(void **state)
{
    (void)state;
    ch_expect_error("#include \"/dev/zero\"\n", NULL,
                    "k.metal:1:10: error: cannot include '/dev/zero': not a regular file");
    ch_expect_error("#include \"/dev/stdin\"\n", NULL, "not a regular file");
    ch_expect_error("#include \"/tmp\"\n", NULL, "not a regular file");
}

/* ---- parser ---------------------------------------------------------------------------------- */

/* head, then unit n times, then tail (caller frees). */
static char *repeat(const char *head, const char *unit, int n, const char *tail)
{
    size_t ul = strlen(unit);
    char *s = malloc(strlen(head) + ul * (size_t)n + strlen(tail) + 1);
    char *end = stpcpy(s, head);
    for (int i = 0; i < n; i++)
        end = stpcpy(end, unit);
    strcpy(end, tail);
    return s;
}

#define KHEAD "kernel void k(device int* o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n" \
              "  int x = o[i];\n  o[i] = "

/* Chains (x+x+..., x=x=..., x?x:x?x:..., (x,x,...)) parse in loops or by plain tail
 * recursion, so the parser's nesting bound never saw them, but they make trees as deep as
 * they are long and codegen walks trees recursively: 20,000 terms overflowed the stack. */
static void test_long_chains_refused_not_crash(void **state)
{
    (void)state;
    static const struct { const char *head, *unit, *tail; } chains[] = {
        {KHEAD, "x+", "1;\n}\n"},
        {KHEAD, "x=", "1;\n}\n"},
        {KHEAD, "x?x:", "1;\n}\n"},
        {KHEAD "(", "x,", "1);\n}\n"},
        {KHEAD, "x*x-", "1;\n}\n"},
    };
    for (size_t c = 0; c < sizeof chains / sizeof chains[0]; c++) {
        char *src = repeat(chains[c].head, chains[c].unit, 30000, chains[c].tail);
        ch_expect_error(src, NULL, "error: expression nests too deeply");
        free(src);
    }
    /* what real kernels write still compiles: a 200-term sum */
    char *src = repeat(KHEAD, "x+", 200, "1;\n}\n");
    isa_program_free(ch_compile(src, NULL));
    free(src);
}

/* Every call is inlined: 40 functions that each call the previous one twice asked codegen
 * for 2^40 copies (a hang, then out of memory). */
static void test_exponential_inlining_refused(void **state)
{
    (void)state;
    char *src = malloc(8192);
    strcpy(src, "int f0(int x) { return x + 1; }\n");
    for (int i = 1; i < 40; i++)
        sprintf(src + strlen(src), "int f%d(int x) { return f%d(x) + f%d(x); }\n", i, i - 1,
                i - 1);
    strcat(src, "kernel void k(device int* o [[buffer(0)]]) { o[0] = f39(o[0]); }\n");
    ch_expect_error(src, NULL, "k.metal:41:53: error: kernel 'k' is too large with its calls "
                    "inlined");
    free(src);
}

/* ---- constant folding ----------------------------------------------------------------------- */

/* A folded integer-to-float cast went through double first: 0x8000008000000001 rounds to
 * 2^63 + 2^39 in double, a tie that float rounds down to 2^63, while the value itself lies
 * above the midpoint and rounds up to 2^63 + 2^40. One rounding, as C and the cvt do. */
static void test_folded_long_to_float_rounds_once(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "kernel void k(device float* o [[buffer(0)]], device const ulong* in [[buffer(1)]],\n"
            "              device const long* sin [[buffer(2)]]) {\n"
            "  o[0] = (float)0x8000008000000001ul;\n"
            "  o[1] = float(-0x4000004000000001l);\n"
            "  o[2] = (float)in[0];\n"
            "  o[3] = (float)sin[0];\n"
            "}\n", NULL);
    float *o = ch_buf(&h, 0, 16);
    uint64_t *in = ch_buf(&h, 1, 8);
    int64_t *sin = ch_buf(&h, 2, 8);
    in[0] = 0x8000008000000001ull;
    sin[0] = -0x4000004000000001ll;
    ch_run(&h, 1, 1);
    /* 2^63 + 2^39 + 1: floats near 2^63 are 2^40 apart and 2^39 + 1 is past half of that,
     * so up to 2^63 + 2^40: exponent 63 + 127 = 0xbe, mantissa 1. -(2^62 + 2^38 + 1) the
     * same way at half the scale: -(2^62 + 2^39), sign set, exponent 0xbd, mantissa 1. */
    const float up = util_bits_f32(0x5f000001u), down = util_bits_f32(0xde800001u);
    CH_FEQ(o[0], up, 0);
    CH_FEQ(o[1], down, 1);
    CH_FEQ(o[2], up, 2);
    CH_FEQ(o[3], down, 3);
    h_free(&h);
}

/* ---- from differential testing against C (2026-11-28) ------------------------------------- */

/* abs/fabs of a half constant cleared bit 31 of the immediate, where a half's sign is bit
 * 15: abs(-19.5h) stayed -19.5. absdiff returned T where MSL gives the unsigned type of T's
 * size (absdiff(char(-3), char(127)) is uchar 130, not char -126). A swizzle indexed
 * (v.zx[1], written or read, by a constant or an unrolled counter) was refused as an
 * "unsupported lvalue", without a source location. */
static void test_half_abs_absdiff_swizzle_index(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "kernel void k(device float *o [[buffer(0)]], device int *oi [[buffer(1)]],\n"
            "              device const int *in [[buffer(2)]], uint gid [[thread_position_in_grid]]) {\n"
            "  half h = half(in[gid]);\n"
            "  o[gid * 4] = float(abs(-19.5h)) + float(fabs(half(-2.5f))) * 100.0f;\n"
            "  o[gid * 4 + 1] = float(abs(half2(h, -0.75h)).y);\n"
            "  float4 v = float4(float(in[gid]), 2.0f, 3.0f, 4.0f);\n"
            "  float s = v.zx[1];\n"
            "  for (int i = 0; i < 2; i++) s += 10.0f * v.zx[i];\n"
            "  v.zx[1] = 7.0f;\n"
            "  o[gid * 4 + 2] = s + 100.0f * v.x;\n"
            "  o[gid * 4 + 3] = v.wz[in[gid] & 1];\n"
            "  char a = char(in[gid]);\n"
            "  char c = absdiff(a, char(127));\n"
            "  oi[gid * 2] = int(c);\n"
            "  oi[gid * 2 + 1] = absdiff(in[gid], 100) > -1;\n" /* uint > uint(-1): false */
            "}\n", NULL);
    float *o = ch_buf(&h, 0, 2 * 16);
    int32_t *oi = ch_buf(&h, 1, 2 * 8);
    int32_t *in = ch_buf(&h, 2, 2 * 4);
    in[0] = -3, in[1] = 5;
    ch_run(&h, 2, 2);
    for (int t = 0; t < 2; t++) {
        float x = (float)in[t];
        CH_FEQ(o[t * 4], 19.5f + 250.0f, t);
        CH_FEQ(o[t * 4 + 1], 0.75f, t);
        CH_FEQ(o[t * 4 + 2], x + 30.0f + 10.0f * x + 700.0f, t);
        CH_FEQ(o[t * 4 + 3], (in[t] & 1) ? 3.0f : 4.0f, t);
        uint8_t d = (uint8_t)(127 - (int8_t)in[t]); /* uchar, then char: two's complement */
        CH_IEQ(oi[t * 2], (int8_t)d, t);
        CH_IEQ(oi[t * 2 + 1], 0, t);
    }
    h_free(&h);
}

/* madhi and madsat (MSL 5.3, Table "integer functions") were refused as undeclared: madhi is
 * mulhi(a, b) + c, wrapping; madsat a * b + c saturated to T, exact (a 32-bit product that
 * overflows can come back into range with c). */
static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static void test_madhi_madsat(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "kernel void k(device int *o [[buffer(0)]], device uint *ou [[buffer(1)]],\n"
            "              device const int *in [[buffer(2)]], uint gid [[thread_position_in_grid]]) {\n"
            "    int a = in[gid * 3], b = in[gid * 3 + 1], c = in[gid * 3 + 2];\n"
            "    o[gid * 6 + 0] = madhi(a, b, c);\n"
            "    o[gid * 6 + 1] = madsat(a, b, c);\n"
            "    o[gid * 6 + 2] = madsat(short(a), short(b), short(c));\n"
            "    o[gid * 6 + 3] = madsat(uchar(a), uchar(b), uchar(c));\n"
            "    o[gid * 6 + 4] = madsat(char(a), char(b), char(c));\n"
            "    o[gid * 6 + 5] = int(madhi(long(a) << 20, long(b) << 20, long(c)));\n"
            "    ou[gid * 3 + 0] = madhi(uint(a), uint(b), uint(c));\n"
            "    ou[gid * 3 + 1] = madsat(uint(a), uint(b), uint(c));\n"
            "    ou[gid * 3 + 2] = madsat(ushort(a), ushort(b), ushort(c));\n"
            "}\n", NULL);
    static const int32_t vals[] = {3, 5, 7, 100000, 100000, -5, -100000, 100000, 12345,
                                   65536, -65536, 2147483647, 70000, 70000, -2147483647 - 1,
                                   -7, 9, -100};
    enum { N = sizeof vals / sizeof vals[0] / 3 };
    int32_t *o = ch_buf(&h, 0, N * 6 * 4);
    uint32_t *ou = ch_buf(&h, 1, N * 3 * 4);
    int32_t *in = ch_buf(&h, 2, sizeof vals);
    memcpy(in, vals, sizeof vals);
    ch_run(&h, N, 32);
    for (int t = 0; t < N; t++) {
        int32_t a = vals[t * 3], b = vals[t * 3 + 1], c = vals[t * 3 + 2];
        uint32_t ua = (uint32_t)a, ub = (uint32_t)b, uc = (uint32_t)c;
        int64_t p = (int64_t)a * b;
        CH_IEQ(o[t * 6 + 0], (int32_t)((uint32_t)(p >> 32) + uc), t);
        CH_IEQ(o[t * 6 + 1], clamp64(p + c, INT32_MIN, INT32_MAX), t);
        CH_IEQ(o[t * 6 + 2], clamp64((int64_t)(int16_t)a * (int16_t)b + (int16_t)c, -32768, 32767), t);
        CH_IEQ(o[t * 6 + 3], clamp64((int64_t)(uint8_t)a * (uint8_t)b + (uint8_t)c, 0, 255), t);
        CH_IEQ(o[t * 6 + 4], clamp64((int64_t)(int8_t)a * (int8_t)b + (int8_t)c, -128, 127), t);
        __int128 lp = (__int128)((int64_t)a * 1048576) * ((int64_t)b * 1048576);
        CH_IEQ(o[t * 6 + 5], (int32_t)(uint32_t)((uint64_t)(int64_t)(lp >> 64) + (uint64_t)(int64_t)c), t);
        uint64_t up = (uint64_t)ua * ub;
        CH_IEQ(ou[t * 3 + 0], (uint32_t)(up >> 32) + uc, t);
        CH_IEQ(ou[t * 3 + 1], up + uc > UINT32_MAX ? UINT32_MAX : (uint32_t)(up + uc), t);
        uint64_t sp = (uint64_t)(uint16_t)a * (uint16_t)b + (uint16_t)c;
        CH_IEQ(ou[t * 3 + 2], sp > 65535 ? 65535u : (uint32_t)sp, t);
    }
    h_free(&h);
}

/* as_type between char and uchar (scalars and vectors) kept the source's extension in the
 * register: as_type<uchar>(char(-1)) compared and widened as -1, as_type<char>(uchar(200))
 * as 200. The bits are the same; the value is the destination type's. */
static void test_as_type_char_uchar(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "kernel void k(device uint *out [[buffer(0)]], device const int *in [[buffer(1)]],\n"
            "              uint tid [[thread_position_in_grid]]) {\n"
            "  char c = (char)(-in[tid]);\n"
            "  uchar u = as_type<uchar>(c);\n"
            "  char back = as_type<char>((uchar)(200 + in[tid]));\n"
            "  char2 m = max(as_type<char2>(uchar2(240 + in[tid], in[tid])), char2(0));\n"
            "  uchar4 v = as_type<uchar4>(char4(-1, (char)in[tid], -3, 4));\n"
            "  out[tid * 4 + 0] = (uint)u * 10 + (u > 200 ? 1u : 0u);\n"
            "  out[tid * 4 + 1] = back < 0 ? 1u : 0u;\n"
            "  out[tid * 4 + 2] = (uint)(int)m.x + 1000 * (uint)(int)m.y;\n"
            "  out[tid * 4 + 3] = (uint)v.x + v.z + 1000 * (uint)v.y;\n"
            "}\n", NULL);
    uint32_t *out = ch_buf(&h, 0, 4 * 16);
    int32_t *in = ch_buf(&h, 1, 4 * 4);
    static const int32_t given[4] = {0, 1, 3, 100};
    memcpy(in, given, sizeof given);
    ch_run(&h, 4, 4);
    for (int t = 0; t < 4; t++) {
        uint8_t u = (uint8_t)(int8_t)(-given[t]);
        int8_t back = (int8_t)(uint8_t)(200 + given[t]);
        int8_t mx = (int8_t)(uint8_t)(240 + given[t]), my = (int8_t)(uint8_t)given[t];
        CH_IEQ(out[t * 4], (uint32_t)u * 10 + (u > 200), t);
        CH_IEQ(out[t * 4 + 1], back < 0, t);
        CH_IEQ(out[t * 4 + 2], (uint32_t)(mx > 0 ? mx : 0) + 1000u * (uint32_t)(my > 0 ? my : 0), t);
        CH_IEQ(out[t * 4 + 3], 255u + 253u + 1000u * (uint8_t)given[t], t);
    }
    h_free(&h);
}

/* `typedef struct P { ... } P;` (and `typedef Q Q;`), common in headers shared with C, was
 * refused as a redefinition of P; naming another type P still is one. */
static void test_typedef_of_the_same_name(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "typedef struct P { int a; } P;\n"
            "struct Q { float b; };\n"
            "typedef Q Q;\n"
            "kernel void k(device uint *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {\n"
            "  P p; p.a = (int)tid; Q q; q.b = 2.0f;\n"
            "  out[tid] = (uint)p.a + (uint)q.b;\n"
            "}\n", NULL);
    uint32_t *out = ch_buf(&h, 0, 4 * 4);
    ch_run(&h, 4, 4);
    for (uint32_t t = 0; t < 4; t++)
        CH_IEQ(out[t], t + 2, t);
    h_free(&h);
    expect_error_no_leak("typedef struct P { int a; } P;\ntypedef float P;\n"
                         "kernel void k(device uint *out [[buffer(0)]]) { out[0] = 1; }\n",
                         "redefinition of 'P'");
}

/* Array and struct sizes are ints: t[65536][65536] of float wrapped to 0 bytes and ran with
 * bogus faults. An object past 1 GiB is refused where it is declared. */
static void test_huge_arrays_refused(void **state)
{
    (void)state;
    expect_error_no_leak("kernel void k(device float *a [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
                         "  threadgroup float t[65536][65536]; t[i][0] = 1; a[i] = t[i][0];\n}\n",
                         "array of 17179869184 bytes is too large");
    expect_error_no_leak("struct S { float x[1 << 24]; };\nstruct T { S a[15]; S b[2]; };\n"
                         "kernel void k(device float *a [[buffer(0)]]) { T t; t.b[0].x[0] = 1; "
                         "a[0] = t.b[0].x[0]; }\n",
                         "the struct is too large");
}

/* && and || on vectors are component-wise (MSL 6.3: "a scalar or vector Boolean"); they were
 * refused ("'bool4' used where a scalar condition is required"). */
static void test_logical_operators_on_vectors(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "kernel void k(device uint *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {\n"
            "  int4 v = int4((int)tid, 1, 5, -7);\n"
            "  bool4 b = (v < 2) && (v != 5);\n"
            "  bool4 c = (v > 3) || bool4(tid & 1, false, false, true);\n"
            "  bool2 d = float2(tid, 0.0f) && true;\n"
            "  out[tid * 3] = as_type<uint>(uchar4(b));\n"
            "  out[tid * 3 + 1] = as_type<uint>(uchar4(c));\n"
            "  out[tid * 3 + 2] = uint(d.x) | uint(d.y) << 8;\n"
            "}\n", NULL);
    uint32_t *out = ch_buf(&h, 0, 4 * 12);
    ch_run(&h, 4, 4);
    for (int t = 0; t < 4; t++) {
        const int v[4] = {t, 1, 5, -7};
        uint32_t b = 0, c = 0;
        for (int k = 0; k < 4; k++) {
            b |= (uint32_t)(v[k] < 2 && v[k] != 5) << (8 * k);
            c |= (uint32_t)(v[k] > 3 || (k == 0 ? (t & 1) : k == 3)) << (8 * k);
        }
        CH_IEQ(out[t * 3], b, t);
        CH_IEQ(out[t * 3 + 1], c, t);
        CH_IEQ(out[t * 3 + 2], (uint32_t)(t != 0), t);
    }
    h_free(&h);
    expect_error_no_leak("kernel void k(device uint *out [[buffer(0)]]) {\n"
                         "  bool4 b = int4(1) && int2(1); out[0] = b.x;\n}\n",
                         "invalid operands to binary expression ('int4' and 'int2')");
}

/* alignof(T) was refused ("use of undeclared identifier 'alignof'", then a second, wrong
 * error); the values are MSL's (Table 2.2: float3 16, packed_float3 4, half2 4). */
static void test_alignof(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "struct S { char c; float4 v; };\n"
            "kernel void k(device uint *out [[buffer(0)]]) {\n"
            "  out[0] = alignof(float); out[1] = alignof(float3); out[2] = alignof(S);\n"
            "  out[3] = alignof(half2); out[4] = alignof(packed_float3); out[5] = alignof(char);\n"
            "  out[6] = alignof(long); out[7] = alignof(device float *);\n"
            "}\n", NULL);
    uint32_t *out = ch_buf(&h, 0, 4 * 8);
    ch_run(&h, 1, 1);
    static const uint32_t want[8] = {4, 16, 16, 4, 4, 1, 8, 8};
    for (int i = 0; i < 8; i++)
        CH_IEQ(out[i], want[i], i);
    h_free(&h);
    expect_error_no_leak("kernel void k(device uint *out [[buffer(0)]]) { out[0] = alignof(out); }\n",
                         "expected a type in alignof(...)");
}

/* A template that instantiates itself (r<N> calls r<N - 1>) was refused as "expression or
 * statement nests too deeply"; it is named as recursion, as direct and mutual calls are. */
static void test_recursive_template_named(void **state)
{
    (void)state;
    expect_error_no_leak("template <int N> static int r() { return N + r<N - 1>(); }\n"
                         "kernel void k(device int *out [[buffer(0)]]) { out[0] = r<5>(); }\n",
                         "recursive templates are not supported");
}

/* atomic_load_explicit of an atomic_float was an atomic add of -0.0: it returned the bits but
 * wrote x + -0 back, which made a signalling NaN quiet (0x7fa00001 became 0x7fc00000). A load
 * does not change the object. */
static void test_atomic_float_load_writes_nothing(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "kernel void k(device atomic_float *f [[buffer(0)]], device uint *o [[buffer(1)]],\n"
            "              uint i [[thread_position_in_grid]]) {\n"
            "  o[i] = as_type<uint>(atomic_load_explicit(&f[i], memory_order_relaxed));\n"
            "}\n", NULL);
    uint32_t *f = ch_buf(&h, 0, 4 * 4), *o = ch_buf(&h, 1, 4 * 4);
    static const uint32_t bits[4] = {0x7fa00001u, 0x80000000u, 0xffc12345u, 0x3f800000u};
    memcpy(f, bits, sizeof bits);
    ch_run(&h, 4, 4);
    for (int i = 0; i < 4; i++) {
        CH_IEQ(o[i], bits[i], i);
        CH_IEQ(((uint32_t *)h_data(&h, 0))[i], bits[i], i);
    }
    h_free(&h);
}

/* simd_prefix_inclusive_sum (and the quad one) started from +0, so a prefix of -0s gave +0
 * where IEEE's sum (and simd_sum) gives -0. The exclusive sum of the first lane stays +0. */
static void test_prefix_sum_keeps_negative_zero(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "kernel void k(device const float *a [[buffer(0)]], device uint *o [[buffer(1)]],\n"
            "              uint i [[thread_position_in_grid]]) {\n"
            "  o[i * 4] = as_type<uint>(simd_prefix_inclusive_sum(a[i]));\n"
            "  o[i * 4 + 1] = as_type<uint>(simd_prefix_exclusive_sum(a[i]));\n"
            "  o[i * 4 + 2] = as_type<uint>(quad_prefix_inclusive_sum(a[i]));\n"
            "  o[i * 4 + 3] = as_type<uint>(float(simd_prefix_inclusive_sum(half(a[i]))));\n"
            "}\n", NULL);
    float *a = ch_buf(&h, 0, 4 * 8);
    uint32_t *o = ch_buf(&h, 1, 4 * 32);
    for (int i = 0; i < 8; i++)
        a[i] = i == 5 ? 1.0f : -0.0f;
    ch_run(&h, 8, 8);
    for (int i = 0; i < 8; i++) {
        /* lanes 0..4 sum only -0s; from lane 5 on, 1 (the exclusive one lane later) */
        const uint32_t neg0 = 0x80000000u, one = 0x3f800000u;
        CH_IEQ(o[i * 4], i < 5 ? neg0 : one, i);
        CH_IEQ(o[i * 4 + 1], i == 0 ? 0u : i < 6 ? neg0 : one, i);
        CH_IEQ(o[i * 4 + 2], i < 5 ? neg0 : one, i); /* lanes 4..7 restart: -0, then 1 */
        CH_IEQ(o[i * 4 + 3], i < 5 ? neg0 : one, i);
    }
    h_free(&h);
}

/* A buffer of atomics is typed by what the atomics hold: a manifest binds `device
 * atomic_float *` as floats without `type:` (it asked for one, as for assembly kernels). */
static void test_atomic_buffer_types(void **state)
{
    (void)state;
    UtilError err = {{0}};
    IsaProgram *p = lang_compile_source(
        "kernel void k(device atomic_float *f [[buffer(0)]], device atomic_int *n [[buffer(1)]],\n"
        "              threadgroup atomic_uint *t [[threadgroup(0)]]) {\n"
        "  atomic_fetch_add_explicit(f, 1.0f, memory_order_relaxed);\n"
        "  atomic_fetch_add_explicit(n, 1, memory_order_relaxed);\n"
        "  atomic_fetch_add_explicit(t, 1u, memory_order_relaxed);\n"
        "}\n", "k.metal", NULL, NULL, &err);
    assert_non_null(p);
    assert_string_equal(p->args[0].type_name, "float");
    assert_string_equal(p->args[1].type_name, "int");
    assert_string_equal(p->args[2].type_name, "uint");
    assert_int_equal(p->args[0].elem_size, 4);
    isa_program_free(p);
}

/* `threadgroup float *ptrs[2]` is an array of pointers to threadgroup memory, itself the
 * thread's: it was put in threadgroup memory (one array shared by all threads: a race), and
 * `= {a, b}` was refused as a threadgroup variable's initializer. */
static void test_array_of_threadgroup_pointers(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "kernel void k(device float *out [[buffer(0)]], uint lid [[thread_index_in_threadgroup]]) {\n"
            "  threadgroup float a[64];\n"
            "  threadgroup float b[64];\n"
            "  a[lid] = 1.0f; b[lid] = 2.0f;\n"
            "  threadgroup_barrier(mem_flags::mem_threadgroup);\n"
            "  threadgroup float *ptrs[2] = {a, b};\n"
            "  threadgroup float *q[2];\n"
            "  q[0] = b; q[1] = a;\n"
            "  out[lid] = ptrs[lid & 1][63 - lid] + 10.0f * q[lid & 1][lid];\n"
            "}\n", NULL);
    assert_int_equal(h.prog->tg_mem_bytes, 512);
    float *out = ch_buf(&h, 0, 4 * 64);
    ch_run(&h, 64, 64);
    for (int l = 0; l < 64; l++)
        CH_FEQ(out[l], (l & 1) ? 2.0f + 10.0f : 1.0f + 20.0f, l);
    h_free(&h);
}

/* min, max, clamp, min3 and median3 of an int and a uint took the first argument's type, so
 * min(n, 2u) was -7 and min(2u, n) 2 for n = -7; both now compare as uint, as C's usual
 * conversions do in either order. */
static void test_mixed_sign_min_either_order(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "kernel void k(device uint *o [[buffer(0)]], device const int *in [[buffer(1)]]) {\n"
            "  int n = in[0];\n"
            "  o[0] = min(n, 2u); o[1] = min(2u, n);\n"
            "  o[2] = min3(n, 2u, 3); o[3] = min3(2u, n, 3);\n"
            "  o[4] = median3(n, 2u, 3u); o[5] = median3(2u, 3u, n);\n"
            "}\n", NULL);
    uint32_t *o = ch_buf(&h, 0, 4 * 6);
    int32_t *in = ch_buf(&h, 1, 4);
    in[0] = -7;
    ch_run(&h, 1, 1);
    /* -7 as a uint is 4294967289, above 2 and 3: the min is 2, the median of (n, 2, 3) 3 */
    const uint32_t want[6] = {2, 2, 2, 2, 3, 3};
    for (int i = 0; i < 6; i++)
        CH_IEQ(o[i], want[i], i);
    h_free(&h);
}

/* A shuffle-and-fill's modulo cuts the SIMD-group (or quad) into vectors: a constant one
 * that is no power of two up to the width read lanes of other quads (modulo 8 for a quad). */
static void test_shuffle_fill_modulo_checked(void **state)
{
    (void)state;
    expect_error_no_leak("kernel void k(device int *o [[buffer(0)]], uint l [[thread_index_in_simdgroup]]) {\n"
                         "  o[l] = quad_shuffle_and_fill_down(int(l), 7, ushort(1), ushort(8));\n}\n",
                         "the modulo of a quad shuffle-and-fill must be 1, 2 or 4");
    expect_error_no_leak("kernel void k(device int *o [[buffer(0)]], uint l [[thread_index_in_simdgroup]]) {\n"
                         "  o[l] = simd_shuffle_and_fill_up(int(l), 7, ushort(1), ushort(12));\n}\n",
                         "must be a power of two up to 32");
    /* and two messages that misled */
    expect_error_no_leak("kernel void k(device float *o [[buffer(0)]]) { o[0] = modf(o[1], 3.0f); }\n",
                         "this argument is a value, not a variable");
    expect_error_no_leak("kernel void k(device ulong *o [[buffer(0)]]) { o[0] = sizeof(void) + alignof(void); }\n",
                         "sizeof(void): void has no size");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pragma_once_then_error_no_leak),
        cmocka_unit_test(test_include_device_file_refused),
        cmocka_unit_test(test_long_chains_refused_not_crash),
        cmocka_unit_test(test_exponential_inlining_refused),
        cmocka_unit_test(test_folded_long_to_float_rounds_once),
        cmocka_unit_test(test_half_abs_absdiff_swizzle_index),
        cmocka_unit_test(test_madhi_madsat),
        cmocka_unit_test(test_as_type_char_uchar),
        cmocka_unit_test(test_typedef_of_the_same_name),
        cmocka_unit_test(test_huge_arrays_refused),
        cmocka_unit_test(test_logical_operators_on_vectors),
        cmocka_unit_test(test_alignof),
        cmocka_unit_test(test_recursive_template_named),
        cmocka_unit_test(test_atomic_float_load_writes_nothing),
        cmocka_unit_test(test_prefix_sum_keeps_negative_zero),
        cmocka_unit_test(test_atomic_buffer_types),
        cmocka_unit_test(test_array_of_threadgroup_pointers),
        cmocka_unit_test(test_mixed_sign_min_either_order),
        cmocka_unit_test(test_shuffle_fill_modulo_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
