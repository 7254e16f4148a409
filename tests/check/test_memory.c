/*
 * test_memory.c — the memory checks: reads of threadgroup memory, of `init: none` buffers
 * and of private arrays kept in thread memory that nothing wrote (named by variable and
 * index, with the reader and threadgroup; unnamed stack bytes such as spill slots are not
 * tracked),
 * out-of-bounds reads whose value is never used (warnings, not errors), and registers of a
 * device load read or written before its `wait` (assembly; compiled code always waits);
 * memory written before it is read and loads used after their wait stay silent.
 */
#include "test_util.h"
#include "check_harness.h"



/* ---- uninitialized reads ---------------------------------------------------------------------- */

/* Two arrays read at one place (a helper's line, inlined twice; a tensor operation reading
 * both its staged tiles): a finding each, not one that names the first. */
static void test_uninitialized_reads_of_two_arrays_at_one_place(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "float get(threadgroup float *p, uint i) { return p[i]; }\n"  /* 1 */
          "kernel void k(device float *out [[buffer(0)]],\n"            /* 2 */
          "              uint lid [[thread_position_in_threadgroup]]) {\n"
          "    threadgroup float as[64], bs[64];\n"                     /* 4 */
          "    as[lid] = 1.0f;\n"                                       /* 5 */
          "    bs[lid] = 2.0f;\n"                                       /* 6 */
          "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"      /* 7 */
          "    out[lid] = get(as, lid + 32) + get(bs, lid + 32);\n"     /* 8 */
          "}\n",
          32, 32);
    bool named = c.h.prog->num_symbols > 0;
    if (named) {
        const CheckFinding *a = find(&c, CHECK_UNINITIALIZED, "threadgroup memory as[32]");
        const CheckFinding *b = find(&c, CHECK_UNINITIALIZED, "threadgroup memory bs[32]");
        assert_int_equal(line_of(&c, &a->first), 1);
        assert_int_equal(line_of(&c, &b->first), 1);
    }
    assert_int_equal(c.n, 2);
    done(&c);
}

static void test_uninitialized_threadgroup_read(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "kernel void k(device float *out [[buffer(0)]],\n"               /* 1 */
          "              uint lid [[thread_position_in_threadgroup]])\n"   /* 2 */
          "{\n"                                                             /* 3 */
          "    threadgroup float sh[64];\n"                                 /* 4 */
          "    if (lid < 32) sh[lid] = float(lid);\n"                       /* 5 */
          "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"          /* 6 */
          "    out[lid] = sh[(lid + 8) % 64];\n"                            /* 7 */
          "}\n",
          64, 64);
    /* lanes 24..55 read sh[32..63], which nothing wrote; the first is lane 24 reading sh[32]
     * (byte 128) */
    const CheckFinding *f = find(&c, CHECK_UNINITIALIZED, "read of uninitialized threadgroup memory");
    bool named = c.h.prog->num_symbols > 0;
    assert_non_null(strstr(f->message, named ? "sh[32]" : "byte 128"));
    assert_non_null(strstr(f->fix, named ? "nothing wrote sh[32] before this read in threadgroup (0,0,0)"
                                         : "before this read in threadgroup (0,0,0)"));
    assert_int_equal(line_of(&c, &f->first), 7);
    assert_int_equal(f->first.thread.lane, 24);
    assert_int_equal(f->first.thread.simdgroup, 0);
    assert_int_equal(f->first.offset, 128);
    assert_int_equal(f->first.space, MEM_SPACE_THREADGROUP);
    assert_int_equal(f->count, 2); /* both SIMD-groups, one source place */
    assert_int_equal(c.n, 1);
    done(&c);
}

/* Each threadgroup starts with fresh (unwritten) threadgroup memory. */
static void test_uninitialized_threadgroup_per_threadgroup(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "kernel void k(device float *out [[buffer(0)]], uint gid [[thread_position_in_grid]],\n"
          "              uint lid [[thread_position_in_threadgroup]],\n"
          "              uint tg [[threadgroup_position_in_grid]])\n"
          "{\n"
          "    threadgroup float sh[32];\n"
          "    if (tg == 0) sh[lid] = 1.0f;\n"
          "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
          "    out[gid] = sh[lid];\n"
          "}\n",
          64, 32);
    const CheckFinding *f = find(&c, CHECK_UNINITIALIZED, "read of uninitialized threadgroup memory");
    assert_int_equal(f->first.thread.threadgroup[0], 1);
    assert_int_equal(f->first.thread.lane, 0);
    assert_non_null(strstr(f->fix, "in threadgroup (1,0,0)"));
    assert_int_equal(c.n, 1);
    done(&c);
}

static const char *const k_device_uninit =
    "kernel void k(device float *tmp [[buffer(0)]], device float *out [[buffer(1)]],\n" /* 1 */
    "              uint gid [[thread_position_in_grid]])\n"                             /* 2 */
    "{\n"                                                                                /* 3 */
    "    if (gid < 16) tmp[gid] = 2.0f;\n"                                               /* 4 */
    "    out[gid] = tmp[gid];\n"                                                         /* 5 */
    "}\n";

static void test_uninitialized_device_buffer(void **state)
{
    (void)state;
    Checked c;
    CheckBufferInfo info[2] = {{.elem_size = 4, .uninitialized = true}, {.elem_size = 4}};
    metal_info(&c, k_device_uninit, 64, 32, info);
    const CheckFinding *f = find(&c, CHECK_UNINITIALIZED, "read of uninitialized device memory tmp[16]");
    assert_non_null(strstr(f->fix, "nothing wrote tmp[16] before this read (the buffer is marked `init: none`)"));
    assert_int_equal(line_of(&c, &f->first), 5);
    assert_int_equal(f->first.thread.grid[0], 16);
    assert_int_equal(f->first.index, 16);
    assert_int_equal(f->count, 2); /* SIMD-group 0 from lane 16, and the second threadgroup */
    assert_int_equal(c.n, 1);
    done(&c);
    /* the same buffer with its contents given: silent */
    CheckBufferInfo given[2] = {{.elem_size = 4}, {.elem_size = 4}};
    metal_info(&c, k_device_uninit, 64, 32, given);
    expect_silent(&c);
    done(&c);
}

/* An atomic reads the old value (all but an exchange, which atomic_store is): a threadgroup
 * counter no thread set, or an `init: none` buffer, is an uninitialized read at the first
 * atomic of each threadgroup; set first (an atomic_store, then a barrier), it is silent. */
static void test_atomic_on_uninitialized_memory(void **state)
{
    (void)state;
    static const char *const k_counter =
        "kernel void k(device uint *out [[buffer(0)]],\n"                        /* 1 */
        "              uint lid [[thread_index_in_threadgroup]]) {\n"           /* 2 */
        "    threadgroup atomic_uint cnt;\n"                                    /* 3 */
        "    if (SET && lid == 0) atomic_store_explicit(&cnt, 0u, memory_order_relaxed);\n" /* 4 */
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"                /* 5 */
        "    atomic_fetch_add_explicit(&cnt, 1u, memory_order_relaxed);\n"      /* 6 */
        "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"                /* 7 */
        "    if (lid == 0) out[0] = atomic_load_explicit(&cnt, memory_order_relaxed);\n" /* 8 */
        "}\n";
    char src[1024];
    Checked c;
    for (int set = 0; set < 2; set++) {
        snprintf(src, sizeof src, "#define SET %d\n%s", set, k_counter);
        metal(&c, src, 128, 64);
        if (set) {
            expect_silent(&c);
        } else {
            const CheckFinding *f = find(&c, CHECK_UNINITIALIZED,
                                         "atomic on uninitialized threadgroup memory cnt");
            assert_int_equal(line_of(&c, &f->first), 7); /* line 6 of the kernel */
            assert_int_equal(f->first.access, CHECK_ACCESS_ATOMIC);
            assert_int_equal(f->first.thread.grid[0], 0);
            assert_int_equal(f->count, 2); /* once per threadgroup */
            assert_non_null(strstr(f->fix, "atomic_store_explicit"));
            assert_int_equal(c.n, 1);
        }
        done(&c);
    }
    /* a device buffer marked `init: none`: the first atomic on each word reads nothing */
    CheckBufferInfo info[1] = {{.elem_size = 4, .uninitialized = true}};
    metal_info(&c,
               "kernel void k(device atomic_uint *bins [[buffer(0)]],\n"
               "              uint gid [[thread_position_in_grid]]) {\n"
               "    atomic_fetch_add_explicit(&bins[gid % 4], 1u, memory_order_relaxed);\n"
               "}\n",
               64, 64, info);
    const CheckFinding *f = find(&c, CHECK_UNINITIALIZED, "atomic on uninitialized device memory bins[0]");
    assert_int_equal(f->count, 1);
    done(&c);
}

/* ---- uninitialized private arrays (thread memory) ------------------------------------------ */

/* Even lanes write acc[0..5], odd lanes acc[0..6]; all read acc[0..7]. The first read of a
 * hole is acc[6] by lane 0 (the odd lanes wrote theirs); the next trip's acc[7] by every
 * lane is the same instruction, so it folds into the same finding. */
static void test_uninitialized_private_array(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "kernel void k(device float *out [[buffer(0)]], uint gid [[thread_position_in_grid]])\n" /* 1 */
          "{\n"                                                                                     /* 2 */
          "    float acc[8];\n"                                                                     /* 3 */
          "    uint n = 6 + gid % 2;\n"                                                             /* 4 */
          "    for (uint i = 0; i < n; i++)\n"                                                      /* 5 */
          "        acc[i] = float(i);\n"                                                            /* 6 */
          "    float s = 0.0f;\n"                                                                   /* 7 */
          "    for (uint i = 0; i < 8; i++)\n"                                                      /* 8 */
          "        s += acc[(i + gid / 64) % 8];\n"                                                 /* 9 */
          "    out[gid] = s;\n"                                                                     /* 10 */
          "}\n",
          64, 64);
    const CheckFinding *f = find(&c, CHECK_UNINITIALIZED,
                                 "read of uninitialized thread memory acc[6] (and by other lanes)");
    assert_non_null(strstr(f->fix, "the thread reads acc[6] before it writes it"));
    assert_int_equal(line_of(&c, &f->first), 9);
    assert_int_equal(f->first.thread.lane, 0);
    assert_int_equal(f->first.space, MEM_SPACE_THREAD);
    assert_int_equal(f->first.index, 6);
    assert_int_equal(f->count, 4); /* two trips (acc[6], acc[7]) of two SIMD-groups */
    assert_int_equal(c.n, 1);
    done(&c);
}

/* Locals of disjoint scopes share thread memory (d takes c's bytes; f, in a helper, takes
 * g's), yet a new scope's array starts unwritten: d[1] and f[3] read what c and g left there,
 * and are reported by their own names. So is an array a loop body declares anew each trip
 * (t[1], written only in the trip before). */
static void test_private_memory_of_a_new_scope(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "float from_g(uint k, uint m) { float g[16]; for (uint i = 0; i < m; i++) g[i] = 2.0f;\n" /* 1 */
          "  return g[k % 16u]; }\n"                                                         /* 2 */
          "float from_f(uint k, uint m) { float f[16]; f[0] = 1.0f;\n"                        /* 3 */
          "  return f[k % m]; }\n"                                                           /* 4 */
          "kernel void k(device float *out [[buffer(0)]], uint gid [[thread_position_in_grid]])\n" /* 5 */
          "{\n"                                                                               /* 6 */
          "    float s = 0.0f;\n"                                                             /* 7 */
          "    { float c[8]; for (uint i = 0; i < 8u - gid % 2u; i++) c[i] = 3.0f; s += c[gid % 4u]; }\n" /* 8 */
          "    { float d[8]; d[0] = 5.0f; s += d[gid % 2u]; }\n"                              /* 9 */
          "    s += from_g(gid, 16u) + from_f(3u, 4u);\n"                                     /* 10 */
          "    for (uint r = 0; r < 2u; r++) {\n"                                             /* 11 */
          "        float t[4];\n"                                                             /* 12 */
          "        t[r] = 1.0f;\n"                                                            /* 13 */
          "        s += t[(gid + r) % 2u == 0u ? r : 0u];\n"                                  /* 14 */
          "    }\n"                                                                           /* 15 */
          "    out[gid] = s;\n"                                                               /* 16 */
          "}\n",
          32, 32);
    /* the sharing this relies on */
    uint32_t off_c = UINT32_MAX, off_d = 0, off_f = UINT32_MAX, off_g = 0;
    for (uint32_t i = 0; i < c.h.prog->num_symbols; i++) {
        const IsaSymbol *sym = &c.h.prog->symbols[i];
        uint32_t *o = !strcmp(sym->name, "c") ? &off_c : !strcmp(sym->name, "d") ? &off_d
                      : !strcmp(sym->name, "f") ? &off_f : !strcmp(sym->name, "g") ? &off_g : NULL;
        if (o)
            *o = sym->offset;
    }
    assert_int_equal(off_c, off_d);
    assert_int_equal(off_f, off_g);
    const CheckFinding *f = find(&c, CHECK_UNINITIALIZED, "read of uninitialized thread memory d[1]");
    assert_int_equal(line_of(&c, &f->first), 9);
    assert_int_equal(f->first.thread.lane, 1);
    f = find(&c, CHECK_UNINITIALIZED, "read of uninitialized thread memory f[3]");
    assert_int_equal(line_of(&c, &f->first), 4);
    f = find(&c, CHECK_UNINITIALIZED, "read of uninitialized thread memory t[0]");
    assert_int_equal(line_of(&c, &f->first), 14);
    assert_int_equal(f->first.thread.lane, 0); /* trip 1 of lane 0 reads t[0], set in trip 0 */
    assert_int_equal(c.n, 3);
    done(&c);
}

/* A lane's private memory starts unwritten in every threadgroup: what a lane of the first
 * threadgroup wrote does not count for the lane that takes its place in the second. */
static void test_private_memory_per_threadgroup(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "kernel void k(device float *out [[buffer(0)]], uint gid [[thread_position_in_grid]],\n"
          "              uint tg [[threadgroup_position_in_grid]])\n"
          "{\n"
          "    float acc[4];\n"
          "    if (tg == 0)\n"
          "        for (uint i = 0; i < 4; i++) acc[(i + gid) % 4] = 1.0f;\n"
          "    out[gid] = acc[gid % 4];\n"
          "}\n",
          64, 32);
    const CheckFinding *f = find(&c, CHECK_UNINITIALIZED, "read of uninitialized thread memory acc[0]");
    assert_int_equal(f->first.thread.threadgroup[0], 1);
    assert_int_equal(f->first.thread.lane, 0);
    assert_int_equal(c.n, 1);
    done(&c);
}

/* What compiled code reads of private memory it wrote: struct fields written through a
 * pointer and copied, float3 elements (12 bytes of 16), halves and bytes. */
static void test_private_memory_written_is_silent(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "struct S { float3 a; float b; half c; };\n"
          "static void fill(thread S *s, float v) { s->a = float3(v, v + 1.0f, v + 2.0f); s->b = v; s->c = half(v); }\n"
          "kernel void k(device float *out [[buffer(0)]], uint gid [[thread_position_in_grid]])\n"
          "{\n"
          "    uint n = 3 + gid % 2;\n"
          "    float3 arr[4];\n"
          "    half h[6];\n"
          "    uchar bytes[7];\n"
          "    S s;\n"
          "    fill(&s, float(gid));\n"
          "    S t = s;\n"
          "    for (uint i = 0; i < n; i++) {\n"
          "        arr[i] = float3(float(i), 1.0f, 2.0f);\n"
          "        h[i] = half(i);\n"
          "        bytes[i] = uchar(i);\n"
          "    }\n"
          "    float3 acc = 0.0f;\n"
          "    for (uint i = 0; i < n; i++)\n"
          "        acc += arr[(i + gid) % n] + float(h[(i + gid) % n]) + float(bytes[(i * 3u) % n]);\n"
          "    out[gid] = acc.x + acc.y + acc.z + t.a.y + t.b + float(t.c);\n"
          "}\n",
          64, 32);
    expect_silent(&c);
    done(&c);
}

/* A struct kept in thread memory (its address is taken) is named alone. */
static void test_private_struct_named_alone(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "struct S { float a; float b; };\n"
          "static void set_a(thread S *s, float v) { s->a = v; }\n"
          "kernel void k(device float *out [[buffer(0)]], uint gid [[thread_position_in_grid]])\n"
          "{\n"
          "    S s;\n"
          "    set_a(&s, float(gid));\n"
          "    out[gid] = s.a + s.b;\n"
          "}\n",
          32, 32);
    const CheckFinding *f = find(&c, CHECK_UNINITIALIZED, "read of uninitialized thread memory s (and by other lanes)");
    assert_int_equal(f->first.index, CHECK_NO_INDEX);
    assert_int_equal(f->first.offset, 4); /* s.b */
    done(&c);
}

/* Stack bytes no named variable holds (spill slots, and assembly, which names none) are not
 * tracked: a spill slot is written before it is read in every lane that needs it. */
static void test_unnamed_stack_is_not_tracked(void **state)
{
    (void)state;
    Checked c;
    assembly(&c,
             ".kernel k\n.regs 4\n.stack 8\n.arg out, device, u0\n"
             "    get_sr r1, thread_position_in_grid.x\n"
             "    ld_stack.b32 r2, 4, 0\n"
             "    st_dev.b32 r2, u0, r1\n"
             "    stop\n",
             32, 32);
    expect_silent(&c);
    done(&c);
}

static void test_memory_written_before_read_is_silent(void **state)
{
    (void)state;
    Checked c;
    CheckBufferInfo info[2] = {{.elem_size = 4, .uninitialized = true}, {.elem_size = 4}};
    metal_info(&c,
               "kernel void k(device float *tmp [[buffer(0)]], device float *out [[buffer(1)]],\n"
               "              uint gid [[thread_position_in_grid]],\n"
               "              uint lid [[thread_position_in_threadgroup]])\n"
               "{\n"
               "    threadgroup float sh[64];\n"
               "    threadgroup atomic_uint count;\n"
               "    if (lid == 0) atomic_store_explicit(&count, 0u, memory_order_relaxed);\n"
               "    sh[lid] = float(gid);\n"
               "    tmp[gid] = 3.0f;\n"
               "    threadgroup_barrier(mem_flags::mem_threadgroup | mem_flags::mem_device);\n"
               "    atomic_fetch_add_explicit(&count, 1u, memory_order_relaxed);\n"
               "    out[gid] = sh[63 - lid] + tmp[gid];\n"
               "}\n",
               128, 64, info);
    expect_silent(&c);
    done(&c);
}

/* ---- out-of-bounds reads whose value is never used -------------------------------------------- */

static const char *const k_guarded_use =
    "kernel void k(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n" /* 1 */
    "              constant uint &n [[buffer(2)]], uint gid [[thread_position_in_grid]])\n"  /* 2 */
    "{\n"                                                                                     /* 3 */
    "    float x = in[gid];\n"                                                                /* 4 */
    "    if (gid < n) out[gid] = x * 2.0f;\n"                                                 /* 5 */
    "}\n";

static void test_out_of_bounds_read_never_used_is_warning(void **state)
{
    (void)state;
    Checked c;
    ch_init(&c.h, k_guarded_use, NULL);
    c.info = NULL;
    h_buffer(&c.h, 0, "in", 64, MEM_SPACE_DEVICE); /* 16 floats */
    h_buffer(&c.h, 1, "out", 256, MEM_SPACE_DEVICE);
    uint32_t *n = h_buffer(&c.h, 2, "n", 4, MEM_SPACE_CONSTANT);
    *n = 16;
    run_checked(&c, 32, 32);
    const CheckFinding *f = find(&c, CHECK_OUT_OF_BOUNDS, "out-of-bounds read of in");
    assert_non_null(strstr(f->message, "whose value is never used"));
    assert_non_null(strstr(f->message, "byte offset 64, 4 bytes; valid 0..63"));
    assert_int_equal(f->severity, CHECK_WARNING);
    assert_int_equal(line_of(&c, &f->first), 4);
    assert_int_equal(f->first.thread.grid[0], 16);
    assert_int_equal(f->count, 16);
    assert_int_equal(c.n, 1);
    done(&c);
}

static void test_out_of_bounds_read_used_is_error(void **state)
{
    (void)state;
    Checked c;
    ch_init(&c.h, k_guarded_use, NULL);
    c.info = NULL;
    h_buffer(&c.h, 0, "in", 64, MEM_SPACE_DEVICE);
    h_buffer(&c.h, 1, "out", 256, MEM_SPACE_DEVICE);
    uint32_t *n = h_buffer(&c.h, 2, "n", 4, MEM_SPACE_CONSTANT);
    *n = 20; /* lanes 16..19 store the value they read out of bounds */
    run_checked(&c, 32, 32);
    const CheckFinding *f = find(&c, CHECK_OUT_OF_BOUNDS, "out-of-bounds read of in");
    assert_null(strstr(f->message, "never used"));
    assert_int_equal(f->severity, CHECK_ERROR);
    done(&c);
}

/* Past the simulator's first 64 faults in detail, each instruction's faults are still its
 * own: 256 threads fault at two stores; the second's all come after the first 64. */
static void test_out_of_bounds_counted_per_instruction(void **state)
{
    (void)state;
    Checked c;
    ch_init(&c.h,
            "kernel void k(device float *a [[buffer(0)]], device float *b [[buffer(1)]],\n"
            "              uint gid [[thread_position_in_grid]]) {\n"
            "    a[gid + 16] = 1.0f;\n"                                      /* 3 */
            "    b[gid + 16] = 2.0f;\n"                                      /* 4 */
            "}\n", NULL);
    c.info = NULL;
    h_buffer(&c.h, 0, "a", 64, MEM_SPACE_DEVICE);
    h_buffer(&c.h, 1, "b", 64, MEM_SPACE_DEVICE);
    run_checked(&c, 256, 64);
    const CheckFinding *fa = find(&c, CHECK_OUT_OF_BOUNDS, "out-of-bounds write of a[64] (byte offset 64");
    const CheckFinding *fb = find(&c, CHECK_OUT_OF_BOUNDS, "out-of-bounds write of b[64] (byte offset 64");
    assert_int_equal(line_of(&c, &fa->first), 3);
    assert_int_equal(line_of(&c, &fb->first), 4);
    assert_int_equal(fa->count, 256);
    assert_int_equal(fb->count, 256);
    assert_int_equal(fb->first.thread.grid[0], 0);
    assert_int_equal(c.n, 2);
    done(&c);
}

/* An index past the end of a local array (the thread's stack memory) is named by the array,
 * and a cooperative tensor's element by the tensor (ct[8]). */
static void test_out_of_bounds_past_a_local_array(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "kernel void k(device float *out [[buffer(0)]], device const int *n [[buffer(1)]],\n"
          "              uint gid [[thread_position_in_grid]]) {\n"
          "    float v[8];\n"
          "    for (int i = 0; i < 8; i++) v[i] = float(i);\n"
          "    float s = 0;\n"
          "    for (int i = 0; i < 8 + n[0] + 1; i++) s += v[i];\n"     /* 6 */
          "    out[gid] = s;\n"
          "}\n",
          32, 32);
    const CheckFinding *f = find(&c, CHECK_OUT_OF_BOUNDS, "out-of-bounds read of v[8] (byte "
                                                          "offset 32, 4 bytes");
    assert_int_equal(line_of(&c, &f->first), 6);
    done(&c);
    metal(&c,
          "using namespace metal; using namespace mpp::tensor_ops;\n"
          "kernel void k(tensor<device float, dextents<int, 2>> A, device float *out,\n"
          "              device const int *n) {\n"
          "    matmul2d<matmul2d_descriptor(16, 16), execution_simdgroup> op;\n"
          "    auto ct = op.get_destination_cooperative_tensor<decltype(A), decltype(A), float>();\n"
          "    op.run(A, A, ct);\n"
          "    float s = 0;\n"
          "    for (int i = 0; i < ct.get_capacity() + n[0] + 1; i++) s += ct[i];\n"
          "    out[0] = s;\n"
          "}\n",
          32, 32);
    find(&c, CHECK_OUT_OF_BOUNDS, "out-of-bounds read of ct[8]");
    done(&c);
}

/* An index before a buffer's start is out of bounds of that buffer, named with its negative
 * element and byte offset: b[-1], not an element of the buffer whose addresses lie before
 * b's (`a` here). */
static void test_out_of_bounds_negative_index(void **state)
{
    (void)state;
    Checked c;
    ch_init(&c.h,
            "kernel void k(device float *a [[buffer(0)]], device float *b [[buffer(1)]],\n"
            "              uint gid [[thread_position_in_grid]]) {\n"
            "    b[int(gid) - 1] = 1.0f;\n"
            "}\n",
            NULL);
    CheckBufferInfo info[2] = {{.elem_size = 4}, {.elem_size = 4}};
    c.info = info;
    h_buffer(&c.h, 0, "a", 16, MEM_SPACE_DEVICE);
    h_buffer(&c.h, 1, "b", 16, MEM_SPACE_DEVICE);
    run_checked(&c, 4, 4);
    const CheckFinding *f = find(&c, CHECK_OUT_OF_BOUNDS, "out-of-bounds write of b[-1]");
    assert_non_null(strstr(f->message, "(byte offset -4, 4 bytes; valid 0..15)"));
    assert_int_equal(f->first.index, -1);
    assert_int_equal((int64_t)f->first.offset, -4);
    assert_int_equal(f->first.thread.grid[0], 0);
    done(&c);
}

/* A program-scope constant array is bounded and named as a threadgroup array is: tab[4]
 * (not a byte of the constant data, nor other[0], whose bytes follow), through an index
 * and through a pointer one past its end read back too far. */
static void test_out_of_bounds_of_a_constant_array(void **state)
{
    (void)state;
    Checked c;
    metal(&c,
          "constant float tab[4] = {1, 2, 3, 4};\n"                                  /* 1 */
          "constant float other[4] = {5, 6, 7, 8};\n"                                /* 2 */
          "kernel void k(device float *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
          "    constant const float *e = tab + 4;\n"                                  /* 4 */
          "    float x = tab[i];\n"                                                   /* 5 */
          "    float y = e[-1 - int(i)];\n"                                           /* 6 */
          "    out[i] = x + y + other[i % 4];\n"                                      /* 7 */
          "}\n",
          6, 6);
    const CheckFinding *f = find(&c, CHECK_OUT_OF_BOUNDS, "out-of-bounds read of tab[4] (byte "
                                                          "offset 16, 4 bytes; valid 0..15)");
    assert_int_equal(line_of(&c, &f->first), 5);
    assert_int_equal(f->count, 2);
    f = find(&c, CHECK_OUT_OF_BOUNDS, "out-of-bounds read of tab[-1] (byte offset -4");
    assert_int_equal(line_of(&c, &f->first), 6);
    assert_int_equal(c.n, 2);
    done(&c);
}

/* Threadgroup arrays side by side: an index that leaves the array its base points into is
 * out of bounds of that array, though the bytes belong to the next one (s[64] is t[0]) --
 * through a constant base (s[lid + 1], t[lid - 1], each lane's own word or a float4), a
 * pointer held in a register (p = s + 8), a 2-D array, and a threadgroup argument's block.
 * Lanes inside stay silent. Before, only accesses past all of threadgroup memory faulted. */
static void test_out_of_bounds_between_threadgroup_arrays(void **state)
{
    (void)state;
    Checked c;
    ch_init(&c.h,
            "kernel void k(device float *out [[buffer(0)]],\n"                       /* 1 */
            "              threadgroup float *blk [[threadgroup(0)]],\n"              /* 2 */
            "              uint lid [[thread_index_in_threadgroup]]) {\n"             /* 3 */
            "    threadgroup float s[64];\n"                                          /* 4 */
            "    threadgroup float t[64];\n"                                          /* 5 */
            "    threadgroup float m[2][8];\n"                                        /* 6 */
            "    s[lid] = 1.0f; t[lid] = 2.0f; blk[lid] = 3.0f;\n"                    /* 7 */
            "    if (lid < 16) m[lid / 8][lid % 8] = 4.0f;\n"                         /* 8 */
            "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"                  /* 9 */
            "    threadgroup float *p = s + 8;\n"                                     /* 10 */
            "    float x = s[lid + 1];\n"                                             /* 11 */
            "    float y = t[int(lid) - 1];\n"                                        /* 12 */
            "    float z = p[lid];\n"                                                 /* 13 */
            "    float w = m[1][lid % 16];\n"                                         /* 14 */
            "    float v = blk[lid + 2];\n"                                           /* 15 */
            "    float4 q = ((threadgroup float4 *)s)[lid % 17];\n"                   /* 16 */
            "    out[lid] = x + y + z + w + v + q.x;\n"                               /* 17 */
            "}\n",
            NULL);
    CheckBufferInfo info[1] = {{.elem_size = 4}};
    c.info = info;
    h_buffer(&c.h, 0, "out", 256, MEM_SPACE_DEVICE);
    c.h.bind[1].tg_bytes = 256;
    run_checked(&c, 64, 64);
    static const struct {
        const char *message;
        uint32_t line, thread, count;
    } want[] = {
        {"out-of-bounds read of s[64] (byte offset 256, 4 bytes; valid 0..255)", 11, 63, 1},
        {"out-of-bounds read of t[-1] (byte offset -4, 4 bytes; valid 0..255)", 12, 0, 1},
        {"out-of-bounds read of s[64] (byte offset 256, 4 bytes; valid 0..255)", 13, 56, 8},
        {"out-of-bounds read of m[2][0] (byte offset 64, 4 bytes; valid 0..63)", 14, 8, 8 * 4},
        {"out-of-bounds read of blk[64] (byte offset 256, 4 bytes; valid 0..255)", 15, 62, 2},
        {"out-of-bounds read of s[64] (byte offset 256, 16 bytes; valid 0..255)", 16, 16, 3},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const CheckFinding *f = NULL;
        for (uint32_t k = 0; k < c.n && !f; k++)
            if (c.f[k].kind == CHECK_OUT_OF_BOUNDS && strcmp(c.f[k].message, want[i].message) == 0 &&
                line_of(&c, &c.f[k].first) == want[i].line)
                f = &c.f[k];
        if (!f) {
            dump(&c);
            fail_msg("no finding \"%s\" at line %u", want[i].message, want[i].line);
        }
        assert_int_equal(f->first.thread.grid[0], want[i].thread);
        assert_int_equal(f->count, want[i].count);
    }
    assert_int_equal(c.n, sizeof want / sizeof want[0]);
    done(&c);
}

/* A pointer one past the end of an array is the start of the next one: indexed backwards
 * (`end[-1 - lid]`) it reads the first array, in bounds; the next array's own index that
 * steps before it (t[lid - 1]) is out of bounds. Atomics are bounded by their array too
 * (`&bins[lid % 9]` reached t[0] silently). */
static void test_threadgroup_pointer_past_the_end_and_atomics(void **state)
{
    (void)state;
    Checked c;
    ch_init(&c.h,
            "kernel void k(device float *out [[buffer(0)]],\n"                          /* 1 */
            "              uint lid [[thread_index_in_threadgroup]]) {\n"                /* 2 */
            "    threadgroup float s[64];\n"                                             /* 3 */
            "    threadgroup float t[64];\n"                                             /* 4 */
            "    threadgroup atomic_uint bins[8];\n"                                     /* 5 */
            "    threadgroup uint u[64];\n"                                              /* 6 */
            "    s[lid] = float(lid); t[lid] = 100.0f; u[lid] = 0;\n"                    /* 7 */
            "    if (lid < 8) atomic_store_explicit(&bins[lid], 0u, memory_order_relaxed);\n" /* 8 */
            "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"                     /* 9 */
            "    threadgroup float *end = s + 64;\n"                                     /* 10 */
            "    float x = end[-1 - (int)lid];\n"                                        /* 11 */
            "    float y = t[int(lid) - 1];\n"                                           /* 12 */
            "    atomic_fetch_add_explicit(&bins[lid % 9], 1u, memory_order_relaxed);\n" /* 13 */
            "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"                     /* 14 */
            "    out[lid] = x + y + float(u[lid]);\n"                                    /* 15 */
            "}\n",
            NULL);
    CheckBufferInfo info[1] = {{.elem_size = 4}};
    c.info = info;
    h_buffer(&c.h, 0, "out", 256, MEM_SPACE_DEVICE);
    run_checked(&c, 64, 64);
    const CheckFinding *f = find(&c, CHECK_OUT_OF_BOUNDS, "out-of-bounds read of t[-1]");
    assert_int_equal(line_of(&c, &f->first), 12);
    f = find(&c, CHECK_OUT_OF_BOUNDS, "out-of-bounds write of bins[8] (byte offset 32, 4 bytes; valid 0..31)");
    assert_int_equal(line_of(&c, &f->first), 13);
    assert_int_equal(f->count, 7); /* lid 8, 17, .., 62 */
    assert_int_equal(c.n, 2);
    const float *out = h_data(&c.h, 0);
    for (uint32_t l = 1; l < 64; l++) /* end[-1 - l] is s[63 - l]; t[l - 1] is 100 */
        CH_FEQ(out[l], (float)(63 - l) + 100.0f, l);
    done(&c);
}

/* &s[64] and &a[8] (one past the end of a threadgroup and a private array) index back in
 * bounds; dereferenced, they are out of bounds of their arrays, named by them (the
 * threadgroup one was `threadgroup memory byte 256`). */
static void test_address_one_past_the_end_dereferenced(void **state)
{
    (void)state;
    Checked c;
    ch_init(&c.h,
            "kernel void k(device float *out [[buffer(0)]],\n"                          /* 1 */
            "              uint lid [[thread_index_in_threadgroup]]) {\n"                /* 2 */
            "    threadgroup float s[64];\n"                                             /* 3 */
            "    float a[8];\n"                                                          /* 4 */
            "    for (int j = 0; j < 8; j++) a[j] = float(j);\n"                         /* 5 */
            "    s[lid] = float(lid);\n"                                                 /* 6 */
            "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"                     /* 7 */
            "    threadgroup float *end = &s[64];\n"                                     /* 8 */
            "    thread float *ae = &a[8];\n"                                            /* 9 */
            "    float x = end[-1 - (int)lid] + ae[-1];\n"                               /* 10 */
            "    float y = *end;\n"                                                      /* 11 */
            "    float z = *ae;\n"                                                       /* 12 */
            "    out[lid] = x + y + z;\n"                                                /* 13 */
            "}\n",
            NULL);
    CheckBufferInfo info[1] = {{.elem_size = 4}};
    c.info = info;
    h_buffer(&c.h, 0, "out", 256, MEM_SPACE_DEVICE);
    run_checked(&c, 64, 64);
    const CheckFinding *f = find(&c, CHECK_OUT_OF_BOUNDS, "out-of-bounds read of s[64] (byte "
                                                          "offset 256, 4 bytes; valid 0..255)");
    assert_int_equal(line_of(&c, &f->first), 11);
    assert_int_equal(f->count, 64);
    f = find(&c, CHECK_OUT_OF_BOUNDS, "out-of-bounds read of a[8] (byte offset 32, 4 bytes");
    assert_int_equal(line_of(&c, &f->first), 12);
    assert_int_equal(c.n, 2);
    done(&c);
}

/* Indices below a threadgroup array's start are out of bounds of that array, named by it,
 * down to the element just before it: lane 3's p[-1] (byte offset -4, 4 bytes) ends at byte
 * 0, where the unsigned sum of offset and size wrapped to 0 and read as in bounds of no
 * array (`threadgroup memory byte 18446744073709551612`). */
static void test_threadgroup_index_below_the_array(void **state)
{
    (void)state;
    Checked c;
    ch_init(&c.h,
            "kernel void k(device float *out [[buffer(0)]],\n"                          /* 1 */
            "              uint lid [[thread_index_in_threadgroup]]) {\n"                /* 2 */
            "    threadgroup float t[8];\n"                                             /* 3 */
            "    t[lid] = 1.0f;\n"                                                      /* 4 */
            "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"                     /* 5 */
            "    threadgroup float *p = t;\n"                                           /* 6 */
            "    out[lid] = p[(int)lid - 4];\n"                                         /* 7 */
            "}\n",
            NULL);
    CheckBufferInfo info[1] = {{.elem_size = 4}};
    c.info = info;
    h_buffer(&c.h, 0, "out", 32, MEM_SPACE_DEVICE);
    run_checked(&c, 8, 8);
    const CheckFinding *f = find(&c, CHECK_OUT_OF_BOUNDS, "out-of-bounds read of t[-4] (byte "
                                                          "offset -16, 4 bytes; valid 0..31)");
    assert_int_equal(line_of(&c, &f->first), 7);
    assert_int_equal(f->count, 4); /* lanes 0..3: p[-4] .. p[-1] */
    assert_int_equal(c.n, 1);
    const float *out = h_data(&c.h, 0);
    for (uint32_t l = 4; l < 8; l++)
        CH_FEQ(out[l], 1.0f, l);
    done(&c);
}

/* Assembly: the faulting load's register is overwritten before anything reads it. */
static void test_out_of_bounds_overwritten_register(void **state)
{
    (void)state;
    Checked c;
    h_init(&c.h,
           ".kernel k\n"
           ".regs 4\n"
           ".arg in, device, u0\n"
           ".arg out, device, u2\n"
           "    get_sr r1, thread_position_in_grid.x\n"
           "    ld_tg.b32 r2, 0, r1\n"          /* out of bounds for lanes >= 4 */
           "    mov r2, 7\n"                    /* overwritten: never used */
           "    ld_dev.b32 r3, u0, r1, 0\n"     /* out of bounds for lanes >= 8 */
           "    wait 0\n"
           "    st_dev.b32 r3, u2, r1\n"        /* used */
           "    stop\n"
           ".tgmem 16\n");
    c.info = NULL;
    h_buffer(&c.h, 0, "in", 32, MEM_SPACE_DEVICE);
    h_buffer(&c.h, 1, "out", 128, MEM_SPACE_DEVICE);
    run_checked(&c, 32, 32);
    const CheckFinding *w = find(&c, CHECK_OUT_OF_BOUNDS, "out-of-bounds read of threadgroup");
    assert_int_equal(w->severity, CHECK_WARNING);
    assert_non_null(strstr(w->message, "whose value is never used"));
    const CheckFinding *e = find(&c, CHECK_OUT_OF_BOUNDS, "out-of-bounds read of in");
    assert_int_equal(e->severity, CHECK_ERROR);
    assert_int_equal(e->count, 24);
    /* lanes 0..3 read threadgroup memory nothing wrote */
    find(&c, CHECK_UNINITIALIZED, "read of uninitialized threadgroup memory byte 0");
    assert_int_equal(c.n, 3);
    done(&c);
}

/* Whether a threadgroup read can find an unwritten byte is settled at once when every byte
 * has been written (memory.c counts them down), so the count must be exact whatever wrote
 * them; a count that reached 0 one write early would hide the finding. Each variant writes
 * the 64 bytes but the last ones, with a repeated word or byte that a careless count would
 * take for the missing one, then every lane reads word 15:
 *  0: word stores by lanes 0..14 to words 0..14, lane 15 to word 0 again: bytes 60..63 left;
 *  1: byte stores by all lanes to bytes 32..62, lane 31 to byte 32 again, then word stores
 *     to words 0..7: byte 63 left;
 *  2: as 1, and an atomic exchange (atomic_store) on word 15: nothing left, no finding. */
static void test_threadgroup_fill_count(void **state)
{
    (void)state;
    static const char *const writes[3] = {
        "    and r2, r1, 15\n"
        "    if_icmp.eq 1, r2, 15\n      mov r2, 0\n    pop_exec 1\n"
        "    if_icmp.ult 1, r1, 16\n      st_tg.b32 r2, 0, r2\n    pop_exec 1\n",
        "    urem r2, r1, 31\n    iadd r2, r2, 32\n    st_tg.u8 r2, 0, r2\n"
        "    if_icmp.ult 1, r1, 8\n      st_tg.b32 r1, 0, r1\n    pop_exec 1\n",
        "    urem r2, r1, 31\n    iadd r2, r2, 32\n    st_tg.u8 r2, 0, r2\n"
        "    if_icmp.ult 1, r1, 8\n      st_tg.b32 r1, 0, r1\n    pop_exec 1\n"
        "    if_icmp.eq 1, r1, 0\n      atom_tg.xchg.u32 r4, 0, 15, r1\n    pop_exec 1\n",
    };
    static const char *const hole[2] = {"threadgroup memory byte 60", "threadgroup memory byte 63"};
    for (int v = 0; v < 3; v++) {
        char text[1024];
        snprintf(text, sizeof text,
                 ".kernel k\n.regs 6\n.tgmem 64\n.arg out, device, u0\n"
                 "    get_sr r1, thread_position_in_grid.x\n%s"
                 "    barrier.tg\n"
                 "    ld_tg.b32 r5, 0, 15\n"
                 "    st_dev.b32 r5, u0, r1\n"
                 "    stop\n",
                 writes[v]);
        Checked c;
        h_init(&c.h, text);
        c.info = NULL;
        h_buffer(&c.h, 0, "out", 128, MEM_SPACE_DEVICE);
        run_checked(&c, 32, 32);
        if (v == 2) {
            assert_int_equal(c.n, 0);
        } else {
            const CheckFinding *f = find(&c, CHECK_UNINITIALIZED, hole[v]);
            assert_int_equal(f->first.thread.lane, 0);
            assert_int_equal(c.n, 1);
        }
        done(&c);
    }
}

/* Once every byte of threadgroup memory is written, later writes and atomics leave nothing
 * to mark (check/memory.c returns before looking at them), and the next threadgroup starts
 * with every byte unwritten again: here threadgroup 0 fills its 128 bytes, runs atomics on
 * them and reads them clean; threadgroup 1 leaves word 5 out, runs the same atomics (on
 * other words) and must be told of its hole when lane 5 reads it. */
static void test_threadgroup_full_then_next(void **state)
{
    (void)state;
    Checked c;
    h_init(&c.h, ".kernel k\n.regs 8\n.tgmem 128\n.arg out, device, u0\n"
                 "    get_sr r1, thread_position_in_grid.x\n"
                 "    get_sr r2, thread_index_in_threadgroup\n"
                 "    get_sr r3, threadgroup_position_in_grid.x\n"
                 "    shl r4, r2, 2\n"
                 "    mov r5, 0\n"
                 "    if_icmp.eq 1, r3, 1\n"
                 "      if_icmp.eq 2, r2, 5\n        mov r5, 1\n      pop_exec 2\n"
                 "    pop_exec 1\n"
                 "    if_icmp.eq 1, r5, 0\n      st_tg.b32 r2, r4, 0\n    pop_exec 1\n"
                 "    barrier.tg\n"
                 "    and r6, r2, 3\n"
                 "    shl r6, r6, 2\n"
                 "    atom_tg.add.u32 r7, r6, 0, 1\n"
                 "    barrier.tg\n"
                 "    ld_tg.b32 r7, r4, 0\n"
                 "    st_dev.b32 r7, u0, r1\n"
                 "    stop\n");
    c.info = NULL;
    h_buffer(&c.h, 0, "out", 256, MEM_SPACE_DEVICE);
    run_checked(&c, 64, 32);
    const CheckFinding *f = find(&c, CHECK_UNINITIALIZED, "threadgroup memory byte 20");
    assert_int_equal(f->first.thread.lane, 5);
    assert_int_equal(f->first.thread.threadgroup[0], 1);
    assert_int_equal(c.n, 1);
    done(&c);
}

/* ---- device loads used before their wait ------------------------------------------------------ */

static void test_read_before_wait(void **state)
{
    (void)state;
    Checked c;
    assembly(&c,
             ".kernel k\n"                                   /* 1 */
             ".regs 6\n"                                     /* 2 */
             ".arg in, device, u0\n"                         /* 3 */
             ".arg out, device, u2\n"                        /* 4 */
             "    get_sr r1, thread_position_in_grid.x\n"    /* 5 */
             "    ld_dev.b32 r2, u0, r1, 0\n"                /* 6 */
             "    fadd32 r3, r2, 1.0\n"                      /* 7: too early */
             "    wait 0\n"                                  /* 8 */
             "    st_dev.b32 r3, u2, r1\n"                   /* 9 */
             "    stop\n",
             64, 32);
    const CheckFinding *f = find(&c, CHECK_READ_BEFORE_WAIT,
                                 "register r2 is read before `wait 0`: the device load at line 6 "
                                 "may not have completed");
    assert_int_equal(line_of(&c, &f->first), 6);
    assert_int_equal(line_of(&c, &f->second), 7);
    assert_int_equal(f->second.thread.lane, 0);
    assert_int_equal(f->second.access, CHECK_ACCESS_READ);
    assert_int_equal(f->count, 2); /* once per SIMD-group */
    assert_int_equal(c.n, 1);
    done(&c);
}

/* A matrix multiply reads every lane's registers: lanes 16-31 load (pending), lanes 0-15
 * multiply before the wait, and the read of lane 16's pending pair is reported. */
static void test_matrix_reads_other_lanes_before_wait(void **state)
{
    (void)state;
    Checked c;
    assembly(&c,
             ".kernel k\n"                                   /* 1 */
             ".regs 10\n"                                    /* 2 */
             ".arg in, device, u0\n"                         /* 3 */
             ".arg out, device, u2\n"                        /* 4 */
             "    get_sr r1, thread_index_in_simdgroup\n"    /* 5 */
             "    mov64 r2, 0\n"                             /* 6 */
             "    mov64 r4, 0\n"                             /* 7 */
             "    shl r8, r1, 1\n"                           /* 8 */
             "    if_icmp.uge 1, r1, 16\n"                   /* 9 */
             "    ld_dev.b32.x2 r2, u0, r8, 0\n"             /* 10 */
             "    else_icmp.ult 1, r1, 16\n"                 /* 11 */
             "    mma32 r4, r2, r2, 0\n"                     /* 12: reads lanes 16-31 too */
             "    pop_exec 1\n"                              /* 13 */
             "    wait 0\n"                                  /* 14 */
             "    st_dev.b32.x2 r4, u2, r8\n"                /* 15 */
             "    stop\n",
             32, 32);
    const CheckFinding *f = find(&c, CHECK_READ_BEFORE_WAIT,
                                 "register r2 is read before `wait 0`: the device load at line 10");
    assert_int_equal(line_of(&c, &f->second), 12);
    assert_int_equal(f->second.thread.lane, 16);
    find(&c, CHECK_SIMD_DIVERGENCE, "simdgroup matrix multiply with 16 of 32 lanes active");
    if (c.n != 2) { dump(&c); fail(); }
    done(&c);
}

static void test_write_and_wrong_slot_before_wait(void **state)
{
    (void)state;
    Checked c;
    assembly(&c,
             ".kernel k\n"                                   /* 1 */
             ".regs 6\n"                                     /* 2 */
             ".arg in, device, u0\n"                         /* 3 */
             ".arg out, device, u2\n"                        /* 4 */
             "    get_sr r1, thread_position_in_grid.x\n"    /* 5 */
             "    ld_dev.b32 r2, u0, r1, 0\n"                /* 6 */
             "    mov r2, 5\n"                               /* 7: overwritten before wait */
             "    ld_dev.h16.x2 r4l, u0, r1, 1\n"            /* 8: r4l, r4h on slot 1 */
             "    wait 0\n"                                  /* 9: not slot 1 */
             "    fadd16 r3l, r4h, 1.0\n"                    /* 10 */
             "    wait 1\n"                                  /* 11 */
             "    st_dev.h16 r3l, u2, r1\n"                  /* 12 */
             "    stop\n",
             32, 32);
    const CheckFinding *f = find(&c, CHECK_READ_BEFORE_WAIT, "register r2 is written before `wait 0`");
    assert_int_equal(line_of(&c, &f->second), 7);
    assert_int_equal(f->second.access, CHECK_ACCESS_WRITE);
    f = find(&c, CHECK_READ_BEFORE_WAIT,
             "register r4h is read before `wait 1`: the device load at line 8");
    assert_int_equal(line_of(&c, &f->second), 10);
    assert_int_equal(c.n, 2);
    done(&c);
}

static void test_loads_used_after_wait_are_silent(void **state)
{
    (void)state;
    Checked c;
    assembly(&c,
             ".kernel k\n"
             ".regs 8\n"
             ".arg in, device, u0\n"
             ".arg out, device, u2\n"
             "    get_sr r1, thread_position_in_grid.x\n"
             "    if_icmp.ult 1, r1, 20\n"
             "    ld_dev.b32 r2, u0, r1, 0\n"
             "    ld_dev.b32.x2 r4, u0, r1, 1\n"
             "    iadd r6, r1, 1\n"                 /* independent work while loads fly */
             "    wait 0\n"
             "    fadd32 r3, r2, 1.0\n"
             "    wait 1\n"
             "    fadd32 r3, r3, r5\n"
             "    st_dev.b32 r3, u2, r1\n"
             "    pop_exec 1\n"
             "    stop\n",
             32, 32);
    expect_silent(&c);
    done(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uninitialized_threadgroup_read),
        cmocka_unit_test(test_uninitialized_threadgroup_per_threadgroup),
        cmocka_unit_test(test_uninitialized_device_buffer),
        cmocka_unit_test(test_atomic_on_uninitialized_memory),
        cmocka_unit_test(test_uninitialized_private_array),
        cmocka_unit_test(test_private_memory_per_threadgroup),
        cmocka_unit_test(test_private_memory_of_a_new_scope),
        cmocka_unit_test(test_private_memory_written_is_silent),
        cmocka_unit_test(test_unnamed_stack_is_not_tracked),
        cmocka_unit_test(test_private_struct_named_alone),
        cmocka_unit_test(test_threadgroup_fill_count),
        cmocka_unit_test(test_threadgroup_full_then_next),
        cmocka_unit_test(test_memory_written_before_read_is_silent),
        cmocka_unit_test(test_out_of_bounds_read_never_used_is_warning),
        cmocka_unit_test(test_out_of_bounds_read_used_is_error),
        cmocka_unit_test(test_address_one_past_the_end_dereferenced),
        cmocka_unit_test(test_threadgroup_index_below_the_array),
        cmocka_unit_test(test_out_of_bounds_overwritten_register),
        cmocka_unit_test(test_out_of_bounds_negative_index),
        cmocka_unit_test(test_out_of_bounds_between_threadgroup_arrays),
        cmocka_unit_test(test_out_of_bounds_of_a_constant_array),
        cmocka_unit_test(test_threadgroup_pointer_past_the_end_and_atomics),
        cmocka_unit_test(test_read_before_wait),
        cmocka_unit_test(test_matrix_reads_other_lanes_before_wait),
        cmocka_unit_test(test_write_and_wrong_slot_before_wait),
        cmocka_unit_test(test_loads_used_after_wait_are_silent),
        cmocka_unit_test(test_out_of_bounds_counted_per_instruction),
        cmocka_unit_test(test_out_of_bounds_past_a_local_array),
        cmocka_unit_test(test_uninitialized_reads_of_two_arrays_at_one_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
