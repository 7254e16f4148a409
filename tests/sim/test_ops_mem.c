/*
 * test_ops_mem.c — pins loads, stores and atomics: every format with .x1 to .x4 on device,
 * constant, threadgroup and stack memory (extension into registers, halves, truncation on
 * store, registers past the element count untouched), faults (out of bounds, no buffer,
 * constant writes) with every field of the SimFault record, and atomics with many lanes on
 * one address, checked against a C fold and a lane-order serialization of the old values.
 */
#include "sim_harness.h"

static const char *fmts[] = {"u8", "s8", "u16", "s16", "h16", "b32"};
static const uint32_t fsize[] = {1, 1, 2, 2, 2, 4};

/* What register word k holds after loading elements elem[0..n) of format f into a
 * register image preset to 0xaaaaaaaa. */
static void expect_image(int f, uint32_t n, const uint8_t *elem, uint32_t img[4])
{
    for (int k = 0; k < 4; k++)
        img[k] = 0xaaaaaaaau;
    for (uint32_t k = 0; k < n; k++) {
        const uint8_t *p = elem + k * fsize[f];
        uint32_t v = fsize[f] == 1 ? p[0] : fsize[f] == 2 ? (uint32_t)(p[0] | p[1] << 8)
                                          : (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        if (f == 1 && (v & 0x80))
            v |= 0xffffff00u;
        if (f == 3 && (v & 0x8000))
            v |= 0xffff0000u;
        if (f == 4) { /* halves: element k in half k of r2, r2h, r3l, ... */
            uint32_t w = k / 2, sh = (k & 1) * 16;
            img[w] = (img[w] & ~(0xffffu << sh)) | v << sh;
        } else {
            img[k] = v;
        }
    }
}

/* Bytes element k of format f takes from register image words (truncation / halves). */
static void store_bytes(int f, uint32_t k, const uint32_t *words, uint8_t *dst)
{
    uint32_t v = f == 4 ? words[k / 2] >> ((k & 1) * 16) : words[k];
    for (uint32_t b = 0; b < fsize[f]; b++)
        dst[b] = (uint8_t)(v >> (8 * b));
}

enum { T = 40 }; /* threads: a full and a partial SIMD-group */

/* space: 0 device, 1 constant, 2 threadgroup (neighbour's slot after a barrier), 3 stack */
static void check_format(int space, int f, uint32_t n)
{
    const char *ld = space == 0 ? "ld_dev" : space == 1 ? "ld_const" : space == 2 ? "ld_tg" : "ld_stack";
    const char *st = space == 2 ? "st_tg" : space == 3 ? "st_stack" : "st_dev";
    char xs[16] = "";
    if (n > 1)
        snprintf(xs, sizeof xs, ".x%u", n);
    const char *d_ld = f == 4 ? "r2l" : "r2", *d_st = f == 4 ? "r10l" : "r10";
    char body[1024];
    if (space <= 1) {
        snprintf(body, sizeof body,
                 "    %s.%s%s %s, u0, r7%s\n"
                 "    wait 0\n"
                 "    st_dev.%s%s %s, u6, r7\n",
                 ld, fmts[f], xs, d_ld, space == 0 ? ", 0" : "", fmts[f], xs, d_st);
    } else {
        /* address = 16 + element index * size: a base and an index */
        snprintf(body, sizeof body,
                 "    %s.%s%s %s, 16, %s\n"
                 "%s"
                 "    %s.%s%s %s, 16, r14\n"
                 "    st_dev.%s%s %s, u6, r7\n",
                 st, fmts[f], xs, d_st, space == 2 ? "r7" : "0", space == 2 ? "    barrier.tg\n" : "",
                 ld, fmts[f], xs, d_ld, fmts[f], xs, d_st);
    }
    char text[4096];
    snprintf(text, sizeof text,
             ".kernel mem\n.regs 16\n.tgmem %u\n.stack 32\n"
             ".arg in, %s, u0\n.arg words, device, u2\n.arg out, device, u4\n.arg st, device, u6\n"
             "    get_sr r1, thread_position_in_grid.x\n"
             "    imul r7, r1, %u\n"
             "    iadd r14, r1, 1\n"
             "    urem r14, r14, %u\n"            /* the neighbour thread */
             "    imul r14, r14, %u\n"
             "    shl r8, r1, 2\n"
             "    mov r2, 0xaaaaaaaa\n    mov r3, 0xaaaaaaaa\n    mov r4, 0xaaaaaaaa\n    mov r5, 0xaaaaaaaa\n"
             "    ld_dev.b32.x4 r10, u2, r8, 1\n"
             "    wait 1\n"
             "%s"
             "    st_dev.b32.x4 r2, u4, r8\n"
             "    stop\n",
             16 + T * 16, space == 1 ? "constant" : "device", n, T, space == 3 ? 0 : n, body);
    Harness h;
    h_init(&h, text);
    uint8_t *in = h_buffer(&h, 0, "in", T * 16, space == 1 ? MEM_SPACE_CONSTANT : MEM_SPACE_DEVICE);
    uint32_t *words = h_buffer(&h, 1, "words", T * 16, MEM_SPACE_DEVICE);
    uint32_t *out = h_buffer(&h, 2, "out", T * 16, MEM_SPACE_DEVICE);
    uint8_t *stb = h_buffer(&h, 3, "st", T * 16, MEM_SPACE_DEVICE);
    uint32_t seed = 777;
    for (int i = 0; i < T * 16; i++) {
        seed = seed * 1664525u + 1013904223u;
        in[i] = (uint8_t)(seed >> 24);
    }
    for (int i = 0; i < T * 4; i++) {
        seed = seed * 1664525u + 1013904223u;
        words[i] = seed ^ 0x80808080u;
    }
    h_grid(&h, false, T, 1, 1, T, 1, 1);
    h_run(&h);
    h_expect_no_faults(&h);
    uint8_t want_st[T * 16];
    memset(want_st, 0, sizeof want_st);
    uint32_t sz = fsize[f];
    for (uint32_t i = 0; i < T; i++) {
        uint8_t elems[16];
        if (space <= 1) {
            memcpy(elems, in + i * n * sz, n * sz);
        } else {
            /* threadgroup: the neighbour's stored elements; stack: this lane's own */
            uint32_t src = space == 2 ? (i + 1) % T : i;
            for (uint32_t k = 0; k < n; k++)
                store_bytes(f, k, words + src * 4, elems + k * sz);
        }
        uint32_t img[4];
        expect_image(f, n, elems, img);
        for (int k = 0; k < 4; k++)
            if (out[i * 4 + k] != img[k])
                fail_msg("%s.%s%s thread %u word %d: expected %#x, got %#x", ld, fmts[f], xs, i, k, img[k],
                         out[i * 4 + k]);
        for (uint32_t k = 0; k < n; k++)
            store_bytes(f, k, words + i * 4, want_st + (i * n + k) * sz);
    }
    for (int b = 0; b < T * 16; b++)
        if (stb[b] != want_st[b])
            fail_msg("%s.%s%s: stored byte %d expected %#x, got %#x", space <= 1 ? "st_dev" : st, fmts[f], xs,
                     b, want_st[b], stb[b]);
    h_free(&h);
}

static void test_formats_device(void **state) { (void)state; for (int f = 0; f < 6; f++) for (uint32_t n = 1; n <= 4; n++) check_format(0, f, n); }
static void test_formats_constant(void **state) { (void)state; for (int f = 0; f < 6; f++) for (uint32_t n = 1; n <= 4; n++) check_format(1, f, n); }
static void test_formats_threadgroup(void **state) { (void)state; for (int f = 0; f < 6; f++) for (uint32_t n = 1; n <= 4; n++) check_format(2, f, n); }
static void test_formats_stack(void **state) { (void)state; for (int f = 0; f < 6; f++) for (uint32_t n = 1; n <= 4; n++) check_format(3, f, n); }

/* ---- faults ------------------------------------------------------------------------------- */

static void test_device_out_of_bounds(void **state)
{
    (void)state;
    /* a has 10 words; threads 0..47 read a[i] (threads 10..47 fault and read 0), then write
     * b[i] where b has 12 words (threads 12..47 fault). */
    const char *k =
        ".kernel oob\n.regs 6\n.arg a, device, u0\n.arg b, device, u2\n.arg out, device, u4\n"
        "    get_sr r1, thread_position_in_grid.x\n"
        "    mov r2, 0x5555\n"
        "    ld_dev.b32 r2, u0, r1, 0\n"
        "    wait 0\n"
        "    st_dev.b32 r2, u4, r1\n"
        "    st_dev.b32 r1, u2, r1\n"
        "    stop\n";
    Harness h;
    h_init(&h, k);
    uint32_t *a = h_buffer(&h, 0, "a", 40, MEM_SPACE_DEVICE);
    uint32_t *b = h_buffer(&h, 1, "b", 48, MEM_SPACE_DEVICE);
    uint32_t *out = h_buffer(&h, 2, "out", 48 * 4, MEM_SPACE_DEVICE);
    for (int i = 0; i < 10; i++)
        a[i] = 100u + (uint32_t)i;
    h.launch.max_faults = 100;
    h_grid(&h, false, 48, 1, 1, 48, 1, 1);
    h.launch.max_faults = 100;
    h_run(&h);
    for (uint32_t i = 0; i < 48; i++) {
        assert_int_equal(out[i], i < 10 ? 100 + i : 0u); /* the run went on; faulting loads read 0 */
        if (i < 12)
            assert_int_equal(b[i], i);
    }
    assert_int_equal(h.res.total_faults, 38 + 36);
    assert_int_equal(h.res.num_faults, 74);
    uint32_t pc_ld = h_pc_of(h.prog, 2), pc_st = h_pc_of(h.prog, 5);
    uint32_t nr = 0, nw = 0;
    for (uint32_t j = 0; j < h.res.num_faults; j++) {
        const SimFault *f = &h.res.faults[j];
        assert_int_equal(f->kind, SIM_FAULT_OUT_OF_BOUNDS);
        assert_int_equal(f->space, MEM_SPACE_DEVICE);
        assert_int_equal(f->bytes, 4);
        uint32_t t = f->thread.grid[0];
        assert_int_equal(f->thread.local[0], t);
        assert_int_equal(f->thread.simdgroup, t / 32);
        assert_int_equal(f->thread.lane, t % 32);
        assert_int_equal(f->offset, 4ull * t);
        if (f->is_write) {
            nw++;
            assert_string_equal(f->buffer, "b");
            assert_int_equal(f->valid_bytes, 48);
            assert_int_equal(f->pc, pc_st);
            assert_true(t >= 12);
        } else {
            nr++;
            assert_string_equal(f->buffer, "a");
            assert_int_equal(f->valid_bytes, 40);
            assert_int_equal(f->pc, pc_ld);
            assert_true(t >= 10);
        }
    }
    assert_int_equal(nr, 38);
    assert_int_equal(nw, 36);
    /* only the first max_faults are kept, all are counted */
    h.launch.max_faults = 5;
    h_run(&h);
    assert_int_equal(h.res.num_faults, 5);
    assert_int_equal(h.res.total_faults, 74);
    h_free(&h);
}

/* Found by the run fuzzer (a segfault): a constant base past the end of its region with a
 * negative index. The in-bounds indices are then all below -1, and index -1 was taken for
 * one of them, so loads and stores went past the region: threadgroup memory at base 20 of
 * 16 bytes, and at base 4294967292 (the crash); and a device buffer of 16 bytes through a
 * uniform pointing 256 bytes into it. Index -2 from base 20 is byte 12: in bounds. */
static void test_base_past_the_end(void **state)
{
    (void)state;
    const char *k =
        ".kernel x\n.regs 8\n.arg a, device, u0\n.arg out, device, u2\n"
        ".uniform u10, 256\n.uniform u11, 1\n.tgmem 16\n"
        "    mov r1, 5\n"
        "    st_tg.b32 r1, 0, 3\n"            /* tg[12] = 5 */
        "    mov r2, 7\n    mov r3, 7\n    mov r4, 7\n    mov r5, 7\n    mov r6, 7\n"
        "    ld_tg.b32 r2, 20, -2\n"          /* tg[12]: 5 */
        "    ld_tg.b32 r3, 20, -1\n"          /* byte 16: out of bounds */
        "    st_tg.b32 r1, 20, -1\n"          /* out of bounds */
        "    ld_tg.b32 r4, 4294967292, -1\n"  /* byte 4294967288 */
        "    ld_dev.b32 r5, u10, -1, 0\n"     /* a, byte 252 of 16 */
        "    st_dev.b32 r1, u10, -1\n"
        "    wait 0\n"
        "    st_dev.b32 r2, u2, 0\n    st_dev.b32 r3, u2, 1\n    st_dev.b32 r4, u2, 2\n"
        "    st_dev.b32 r5, u2, 3\n"
        "    stop\n";
    for (int timed = 0; timed < 2; timed++) {
        Harness h;
        h_init(&h, k);
        h_buffer(&h, 0, "a", 16, MEM_SPACE_DEVICE);
        uint32_t *out = h_buffer(&h, 1, "out", 16, MEM_SPACE_DEVICE);
        h_grid(&h, false, 1, 1, 1, 1, 1, 1);
        h.launch.mode = timed ? SIM_MODE_TIMED : SIM_MODE_FUNCTIONAL;
        h_run(&h);
        assert_int_equal(out[0], 5u);
        assert_int_equal(out[1], 0u); /* a faulting load reads 0 */
        assert_int_equal(out[2], 0u);
        assert_int_equal(out[3], 0u);
        assert_int_equal(h.res.total_faults, 5);
        static const uint64_t offset[5] = {16, 16, 4294967288ull, 252, 252};
        for (int i = 0; i < 5; i++) {
            assert_int_equal(h.res.faults[i].kind, SIM_FAULT_OUT_OF_BOUNDS);
            assert_int_equal(h.res.faults[i].offset, offset[i]);
            assert_int_equal(h.res.faults[i].is_write, i == 1 || i == 4);
        }
        h_free(&h);
    }
}

static void test_partial_vector_and_no_buffer(void **state)
{
    (void)state;
    /* .x4 at element 2 of a 5-word buffer crosses its end: the whole access faults (offset 8,
     * 16 bytes). Index -1 from a buffer's start is out of bounds of that buffer, at offset -4;
     * an index that reaches another buffer (here 4 GB back from `out`, where `a` starts) is
     * out of bounds of the buffer its base points into, and `a` is left alone; a base that
     * points into no buffer (a null pointer in r6:r7) is an address of no buffer. */
    const char *k =
        ".kernel x\n.regs 8\n.arg a, device, u0\n.arg out, device, u2\n"
        "    mov r2, 1\n    mov r3, 2\n    mov r4, 3\n    mov r5, 4\n"
        "    ld_dev.b32.x4 r2, u0, 2, 0\n"
        "    wait 0\n"
        "    st_dev.b32.x4 r2, u2, 0\n"
        "    ld_dev.b32 r6, u0, -1, 0\n"
        "    wait 0\n"
        "    st_dev.b32 r6, u2, 4\n"
        "    st_dev.b32 r6, u2, -1073741824\n"
        "    mov r6, 0\n    mov r7, 0\n"
        "    ld_dev.b32 r2, r6, 0, 0\n"
        "    wait 0\n"
        "    stop\n";
    Harness h;
    h_init(&h, k);
    uint32_t *a = h_buffer(&h, 0, "a", 20, MEM_SPACE_DEVICE);
    uint32_t *out = h_buffer(&h, 1, "out", 20, MEM_SPACE_DEVICE);
    for (int i = 0; i < 5; i++)
        a[i] = 9;
    out[4] = 77;
    h_run1(&h, 1, 1);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(out[i], 0u);
        assert_int_equal(a[i], 9u);
    }
    assert_int_equal(h.res.total_faults, 4);
    const SimFault *f = &h.res.faults[0];
    assert_int_equal(f->kind, SIM_FAULT_OUT_OF_BOUNDS);
    assert_string_equal(f->buffer, "a");
    assert_int_equal(f->offset, 8);
    assert_int_equal(f->bytes, 16);
    assert_int_equal(f->valid_bytes, 20);
    assert_int_equal(f->pc, h_pc_of(h.prog, 4));
    f = &h.res.faults[1];
    assert_int_equal(f->kind, SIM_FAULT_OUT_OF_BOUNDS);
    assert_string_equal(f->buffer, "a");
    assert_int_equal((int64_t)f->offset, -4);
    assert_int_equal(f->valid_bytes, 20);
    assert_int_equal(f->pc, h_pc_of(h.prog, 7));
    f = &h.res.faults[2];
    assert_int_equal(f->kind, SIM_FAULT_OUT_OF_BOUNDS);
    assert_string_equal(f->buffer, "out");
    assert_true(f->is_write);
    assert_int_equal((int64_t)f->offset, -4294967296ll);
    assert_int_equal(f->pc, h_pc_of(h.prog, 10));
    f = &h.res.faults[3];
    assert_int_equal(f->kind, SIM_FAULT_NO_BUFFER);
    assert_null(f->buffer);
    assert_int_equal(f->offset, 0);
    assert_int_equal(f->pc, h_pc_of(h.prog, 13));
    h_free(&h);
}

static void test_constant_writes_fault(void **state)
{
    (void)state;
    const char *k =
        ".kernel cw\n.regs 4\n.arg c, constant, u0\n"
        "    get_sr r1, thread_position_in_grid.x\n"
        "    st_dev.b32 r1, u0, r1\n"
        "    atom_dev.add.u32 r2, u0, r1, 5\n"
        "    cmpxchg_dev.u32 r3, u0, r1, 0, 9\n"
        "    stop\n";
    Harness h;
    h_init(&h, k);
    uint32_t *c = h_buffer(&h, 0, "c", 16, MEM_SPACE_CONSTANT);
    h_run1(&h, 4, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(c[i], 0);
    assert_int_equal(h.res.total_faults, 12);
    for (uint32_t j = 0; j < 12; j++) {
        const SimFault *f = &h.res.faults[j];
        assert_int_equal(f->kind, SIM_FAULT_CONSTANT_WRITE);
        assert_true(f->is_write);
        assert_string_equal(f->buffer, "c");
        assert_int_equal(f->offset, 4 * f->thread.lane);
        assert_int_equal(f->valid_bytes, 16);
        assert_int_equal(f->pc, h_pc_of(h.prog, 1 + j / 4));
    }
    h_free(&h);
}

static void test_tg_stack_out_of_bounds(void **state)
{
    (void)state;
    const char *k =
        ".kernel tso\n.regs 6\n.tgmem 64\n.stack 8\n.arg out, device, u0\n"
        "    get_sr r1, thread_position_in_grid.x\n"
        "    mov r2, 0x77\n    mov r3, 0x77\n"
        "    ld_tg.b32 r2, 60, r1\n"    /* offsets 60 + 4i: only thread 0 is inside */
        "    ld_stack.b32 r3, 4, r1\n"  /* offsets 4 + 4i: only thread 0 is inside */
        "    shl r4, r1, 1\n"
        "    st_dev.b32.x2 r2, u0, r4\n"
        "    stop\n";
    Harness h;
    h_init(&h, k);
    uint32_t *out = h_buffer(&h, 0, "out", 4 * 8, MEM_SPACE_DEVICE);
    memset(out, 0xff, 32);
    h_run1(&h, 4, 4);
    for (int i = 0; i < 8; i++)
        assert_int_equal(out[i], 0u);
    assert_int_equal(h.res.total_faults, 6);
    for (uint32_t j = 0; j < 6; j++) {
        const SimFault *f = &h.res.faults[j];
        bool tg = j < 3;
        uint32_t t = f->thread.lane;
        assert_int_equal(f->kind, SIM_FAULT_OUT_OF_BOUNDS);
        assert_int_equal(f->space, tg ? MEM_SPACE_THREADGROUP : MEM_SPACE_THREAD);
        assert_null(f->buffer);
        assert_int_equal(t, j % 3 + 1);
        assert_int_equal(f->offset, (tg ? 60 : 4) + 4 * t);
        assert_int_equal(f->valid_bytes, tg ? 64 : 8);
        assert_int_equal(f->pc, h_pc_of(h.prog, tg ? 3 : 4));
    }
    h_free(&h);
}

/* Consecutive lanes with some inactive: the inactive lanes' words are kept, whether the
 * 32-word block lies inside the memory (blended in one pass) or runs past its end (where
 * only the active lanes may be touched, and none faults). */
static void test_partial_coalesced(void **state)
{
    (void)state;
    const char *k =
        ".kernel blend\n.regs 8\n.tgmem 128\n"
        ".arg in, device, u0\n.arg out, device, u2\n.arg edge, device, u4\n"
        "    get_sr r1, thread_position_in_grid.x\n"
        "    mov r2, 0x5555\n    mov r5, 0x77\n    mov r7, 0x99\n"
        "    st_tg.b32 r2, 0, r1\n"
        "    ld_dev.b32 r3, u0, r1, 0\n"
        "    wait 0\n"
        "    and r4, r1, 1\n"
        "    if_icmp.eq 1, r4, 1\n"        /* odd lanes */
        "      st_tg.b32 r3, 0, r1\n"      /* block inside threadgroup memory */
        "      ld_dev.b32 r5, u0, r1, 0\n" /* block inside `in` */
        "      wait 0\n"
        "    pop_exec 1\n"
        "    and r4, r1, 0x11\n"
        "    if_icmp.eq 1, r4, 1\n"        /* odd lanes below 16 */
        "      st_dev.b32 r3, u4, r1\n"    /* `edge` holds 16 words: the block runs past it */
        "      iadd r6, r1, 16\n"
        "      ld_tg.b32 r7, 0, r6\n"      /* words 17..31: the block runs past the end */
        "    pop_exec 1\n"
        "    ld_tg.b32 r2, 0, r1\n"
        "    st_dev.b32 r2, u2, r1\n"
        "    iadd r6, r1, 32\n"
        "    st_dev.b32 r5, u2, r6\n"
        "    iadd r6, r1, 64\n"
        "    st_dev.b32 r7, u2, r6\n"
        "    stop\n";
    Harness h;
    h_init(&h, k);
    uint32_t *in = h_buffer(&h, 0, "in", 32 * 4, MEM_SPACE_DEVICE);
    uint32_t *out = h_buffer(&h, 1, "out", 96 * 4, MEM_SPACE_DEVICE);
    uint32_t *edge = h_buffer(&h, 2, "edge", 16 * 4, MEM_SPACE_DEVICE);
    for (uint32_t i = 0; i < 32; i++)
        in[i] = 1000 + i * 7;
    for (uint32_t i = 0; i < 16; i++)
        edge[i] = 0xeeee;
    h_run1(&h, 32, 32);
    h_expect_no_faults(&h);
    for (uint32_t l = 0; l < 32; l++) {
        bool odd = l & 1, low_odd = odd && l < 16;
        assert_int_equal(out[l], odd ? in[l] : 0x5555u);
        assert_int_equal(out[32 + l], odd ? in[l] : 0x77u);
        /* tg word l + 16 after the first if: odd ones hold in[l + 16] */
        assert_int_equal(out[64 + l], low_odd ? ((l + 16) & 1 ? in[l + 16] : 0x5555u) : 0x99u);
        if (l < 16)
            assert_int_equal(edge[l], low_odd ? in[l] : 0xeeeeu);
    }
    h_free(&h);
}

/* Word gathers (every lane's own index, not consecutive) with all lanes active and with
 * some: a permutation with repeats from threadgroup memory and from a device buffer. Lanes
 * left out keep their register, and their indices, far outside both, are never read. */
static void test_word_gathers(void **state)
{
    (void)state;
    const char *k =
        ".kernel gather\n.regs 10\n.tgmem 256\n"
        ".arg in, device, u0\n.arg out, device, u2\n"
        "    get_sr r1, thread_position_in_grid.x\n"
        "    ld_dev.b32 r2, u0, r1, 0\n"
        "    wait 0\n"
        "    st_tg.b32 r2, 0, r1\n"           /* tg word l = in[l] */
        "    imul r3, r1, 7\n"
        "    and r3, r3, 31\n"
        "    lsr r4, r1, 3\n"
        "    iadd r3, r3, r4\n"               /* (7l mod 32) + l / 8: repeats, any order */
        "    ld_tg.b32 r5, 0, r3\n"           /* every lane */
        "    ld_dev.b32 r6, u0, r3, 0\n"
        "    wait 0\n"
        "    mov r7, 0x1234\n    mov r8, 0x5678\n"
        "    and r9, r1, 3\n"
        "    if_icmp.ne 1, r9, 0\n"           /* lanes not a multiple of 4 */
        "      ld_tg.b32 r7, 0, r3\n"
        "      ld_dev.b32 r8, u0, r3, 0\n"
        "      wait 0\n"
        "    pop_exec 1\n"
        "    if_icmp.eq 1, r9, 0\n"           /* the others: indices far out, then unused */
        "      mov r3, 0x40000000\n"
        "    pop_exec 1\n"
        "    if_icmp.ne 1, r9, 0\n"
        "      ld_tg.b32 r7, 0, r3\n"
        "      ld_dev.b32 r8, u0, r3, 0\n"
        "      wait 0\n"
        "    pop_exec 1\n"
        "    st_dev.b32 r5, u2, r1\n"
        "    iadd r4, r1, 32\n    st_dev.b32 r6, u2, r4\n"
        "    iadd r4, r1, 64\n    st_dev.b32 r7, u2, r4\n"
        "    iadd r4, r1, 96\n    st_dev.b32 r8, u2, r4\n"
        "    stop\n";
    Harness h;
    h_init(&h, k);
    uint32_t *in = h_buffer(&h, 0, "in", 64 * 4, MEM_SPACE_DEVICE);
    uint32_t *out = h_buffer(&h, 1, "out", 128 * 4, MEM_SPACE_DEVICE);
    for (uint32_t i = 0; i < 64; i++)
        in[i] = 0xc0de0000u + i * 13;
    h_run1(&h, 32, 32);
    h_expect_no_faults(&h);
    for (uint32_t l = 0; l < 32; l++) {
        uint32_t j = (7 * l) % 32 + l / 8;
        uint32_t tg = j < 32 ? in[j] : 0; /* tg words past 31 were never written: zero */
        bool on = l % 4 != 0;
        assert_int_equal(out[l], tg);
        assert_int_equal(out[32 + l], in[j]);
        assert_int_equal(out[64 + l], on ? tg : 0x1234u);
        assert_int_equal(out[96 + l], on ? in[j] : 0x5678u);
    }
    h_free(&h);
}

/* Threadgroup atomics: lanes past the end fault and leave memory alone while the others
 * add; lanes past the end that are inactive do not fault. */
static void test_tg_atomic_bounds(void **state)
{
    (void)state;
    const char *k =
        ".kernel tga\n.regs 6\n.tgmem 64\n.arg out, device, u0\n"
        "    get_sr r1, thread_position_in_grid.x\n"
        "    mov r2, 1\n"
        "    atom_tg.add.u32 r3, 0, r1, r2\n"   /* words 0..31: 16 in bounds */
        "    if_icmp.ult 1, r1, 16\n"
        "      atom_tg.add.u32 r3, 0, r1, r2\n" /* only the lanes in bounds are active */
        "    pop_exec 1\n"
        "    if_icmp.ult 1, r1, 16\n"
        "      ld_tg.b32 r4, 0, r1\n"
        "      st_dev.b32 r4, u0, r1\n"
        "    pop_exec 1\n"
        "    stop\n";
    Harness h;
    h_init(&h, k);
    uint32_t *out = h_buffer(&h, 0, "out", 16 * 4, MEM_SPACE_DEVICE);
    h_run1(&h, 32, 32);
    for (int i = 0; i < 16; i++)
        assert_int_equal(out[i], 2u);
    assert_int_equal(h.res.total_faults, 16);
    for (uint32_t j = 0; j < h.res.num_faults; j++) {
        const SimFault *f = &h.res.faults[j];
        assert_int_equal(f->kind, SIM_FAULT_OUT_OF_BOUNDS);
        assert_int_equal(f->space, MEM_SPACE_THREADGROUP);
        assert_int_equal(f->offset, 4 * f->thread.lane);
        assert_true(f->thread.lane >= 16);
        assert_int_equal(f->pc, h_pc_of(h.prog, 2));
    }
    h_free(&h);
}

/* With every lane off, a memory instruction reads, writes and faults nothing, whatever its
 * addresses: out-of-bounds threadgroup, device and atomic accesses under a false `if` leave
 * the registers and buffers as they were and record no fault. */
static void test_no_lane_memory(void **state)
{
    (void)state;
    const char *k =
        ".kernel nl\n.regs 6\n.tgmem 16\n.arg a, device, u0\n.arg out, device, u2\n"
        "    get_sr r1, thread_position_in_grid.x\n"
        "    mov r2, 7\n"
        "    mov r3, 9\n"
        "    mov r4, 100000\n"
        "    if_icmp.ult 1, r1, 0\n"        /* no lane */
        "      ld_tg.b32 r2, 0, r4\n"
        "      st_tg.b32 r1, 0, r4\n"
        "      ld_dev.b32 r3, u0, r4, 0\n"
        "      wait 0\n"
        "      st_dev.b32 r1, u0, r4\n"
        "      atom_tg.add.u32 r5, 0, r4, r1\n"
        "    pop_exec 1\n"
        "    iadd r2, r2, r3\n"
        "    st_dev.b32 r2, u2, r1\n"
        "    stop\n";
    Harness h;
    h_init(&h, k);
    uint32_t *a = h_buffer(&h, 0, "a", 16, MEM_SPACE_DEVICE);
    uint32_t *out = h_buffer(&h, 1, "out", 40 * 4, MEM_SPACE_DEVICE);
    h_run1(&h, 40, 40);
    h_expect_no_faults(&h);
    for (int i = 0; i < 40; i++)
        assert_int_equal(out[i], 16u);
    for (int i = 0; i < 4; i++)
        assert_int_equal(a[i], 0u);
    h_free(&h);
}

/* ---- atomics ------------------------------------------------------------------------------ */

static uint32_t apply_atom(const char *op, const char *type, uint32_t old, uint32_t v)
{
    bool s = !strcmp(type, "i32"), f = !strcmp(type, "f32");
    if (!strcmp(op, "add"))
        return f ? h_fbits(h_bitsf(old) + h_bitsf(v)) : old + v;
    if (!strcmp(op, "sub")) return old - v;
    if (!strcmp(op, "xchg")) return v;
    if (!strcmp(op, "min")) return s ? ((int32_t)v < (int32_t)old ? v : old) : (v < old ? v : old);
    if (!strcmp(op, "max")) return s ? ((int32_t)v > (int32_t)old ? v : old) : (v > old ? v : old);
    if (!strcmp(op, "and")) return old & v;
    if (!strcmp(op, "or")) return old | v;
    return old ^ v;
}

enum { AT = 72 }; /* three SIMD-groups, the last partial */

/* Every thread i applies `op.type` with value val[i] to word 3 (device or threadgroup);
 * every third thread is inactive. */
static void check_atomic(bool tg, const char *op, const char *type, const uint32_t *val, uint32_t init)
{
    char text[2048];
    snprintf(text, sizeof text,
             ".kernel at\n.regs 6\n.tgmem 16\n.arg vals, device, u0\n.arg mem, device, u2\n.arg old, device, u4\n"
             "    get_sr r1, thread_position_in_grid.x\n"
             "    ld_dev.b32 r2, u0, r1, 0\n"
             "    ld_dev.b32 r4, u2, 3, 0\n"
             "    wait 0\n"
             "    mov r3, 0xeeeeeeee\n"
             "%s"
             "    urem r5, r1, 3\n"
             "    if_icmp.ne 1, r5, 2\n"
             "    %s.%s.%s r3, %s, 3, r2\n"
             "    pop_exec 1\n"
             "    st_dev.b32 r3, u4, r1\n"
             "%s"
             "    stop\n",
             tg ? "    st_tg.b32 r4, 12, 0\n    barrier.tg\n" : "", tg ? "atom_tg" : "atom_dev", op, type,
             tg ? "0" : "u2",
             tg ? "    barrier.tg\n    ld_tg.b32 r4, 12, 0\n    st_dev.b32 r4, u2, 3\n" : "");
    Harness h;
    h_init(&h, text);
    uint32_t *vals = h_buffer(&h, 0, "vals", AT * 4, MEM_SPACE_DEVICE);
    uint32_t *mem = h_buffer(&h, 1, "mem", 16, MEM_SPACE_DEVICE);
    uint32_t *old = h_buffer(&h, 2, "old", AT * 4, MEM_SPACE_DEVICE);
    memcpy(vals, val, AT * 4);
    mem[3] = init;
    h_run1(&h, AT, AT);
    h_expect_no_faults(&h);
    /* the final value: a fold over the active threads (these ops commute for these inputs) */
    uint32_t want = init;
    for (uint32_t i = 0; i < AT; i++)
        if (i % 3 != 2 && strcmp(op, "xchg"))
            want = apply_atom(op, type, want, val[i]);
    /* old values: within a SIMD-group, lane order; the groups in some order */
    uint32_t start[3], end[3];
    for (uint32_t g = 0; g < 3; g++) {
        uint32_t prev_lane = UINT32_MAX;
        for (uint32_t i = g * 32; i < AT && i < g * 32 + 32; i++) {
            if (i % 3 == 2) {
                assert_int_equal(old[i], 0xeeeeeeeeu);
                continue;
            }
            if (prev_lane == UINT32_MAX)
                start[g] = old[i];
            else if (old[i] != apply_atom(op, type, old[prev_lane], val[prev_lane]))
                fail_msg("%s.%s thread %u: old %#x does not follow thread %u (old %#x, value %#x)", op, type, i,
                         old[i], prev_lane, old[prev_lane], val[prev_lane]);
            prev_lane = i;
        }
        end[g] = apply_atom(op, type, old[prev_lane], val[prev_lane]);
    }
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    bool chained = false;
    for (int p = 0; p < 6 && !chained; p++) {
        uint32_t cur = init;
        bool ok = true;
        for (int s = 0; s < 3 && ok; s++) {
            ok = start[perms[p][s]] == cur;
            cur = end[perms[p][s]];
        }
        if (ok && cur == mem[3]) {
            chained = true;
            if (!strcmp(op, "xchg"))
                want = cur;
        }
    }
    if (!chained)
        fail_msg("%s %s.%s: old values are no serialization of the threads", tg ? "tg" : "dev", op, type);
    if (mem[3] != want)
        fail_msg("%s %s.%s: final %#x, expected %#x", tg ? "tg" : "dev", op, type, mem[3], want);
    h_free(&h);
}

static void test_atomics(void **state)
{
    (void)state;
    static const char *ops[] = {"add", "sub", "xchg", "min", "max", "and", "or", "xor"};
    uint32_t v[AT], fv[AT];
    for (uint32_t i = 0; i < AT; i++) {
        v[i] = (i * 2654435761u) ^ (i & 1 ? 0x80000000u : 0);
        fv[i] = h_fbits((float)(i % 9) - 3.5f); /* halves: every sum exact, any order */
    }
    for (int tg = 0; tg < 2; tg++) {
        for (int o = 0; o < 8; o++) {
            check_atomic(tg, ops[o], "u32", v, o == 5 ? 0xffffffffu : 1000);
            check_atomic(tg, ops[o], "i32", v, o == 5 ? 0xffffffffu : 1000);
        }
        check_atomic(tg, "add", "f32", fv, h_fbits(0.25f));
        check_atomic(tg, "xchg", "f32", fv, h_fbits(0.25f));
    }
}

/* Device atomics through a pointer per lane (as compiled code makes them), against C:
 *  1. into one buffer, a (40 words, a[i] = 50 + i): threads 40..47 fault, the rest add i + 1;
 *  2. into a (i % 3 == 0: a[i]) or b (b[i / 2], two threads a word), one instruction;
 *  3. xchg then or into c[i];
 *  4. into a constant buffer: every thread faults, nothing changes.
 * Old values within a SIMD-group follow lane order. */
static void test_device_atomic_pointers(void **state)
{
    (void)state;
    const char *k =
        ".kernel dap\n.regs 14\n.arg a, device, u0\n.arg b, device, u2\n.arg c, device, u4\n"
        ".arg kc, constant, u6\n.arg olds, device, u8\n"
        "    get_sr r1, thread_position_in_grid.x\n"
        "    iadd r2, r1, 1\n"
        "    imul r3, r1, 4\n"
        "    cvt.s64.s32 r4, r3\n"
        "    iadd64 r6, u0, r4\n"
        "    atom_dev.add.u32 r8, r6, 0, r2\n"
        "    mov r12, r3\n"
        "    st_dev.b32 r8, u8, r12\n"
        "    urem r9, r1, 3\n"
        "    if_icmp.eq 1, r9, 0\n"
        "    iadd64 r6, u0, r4\n"
        "    else_icmp.eq 1, 0, 0\n"
        "    lsr r9, r1, 1\n"
        "    imul r9, r9, 4\n"
        "    cvt.s64.s32 r10, r9\n"
        "    iadd64 r6, u2, r10\n"
        "    pop_exec 1\n"
        "    atom_dev.add.u32 r8, r6, 0, r2\n"
        "    iadd r12, r12, 1\n"
        "    st_dev.b32 r8, u8, r12\n"
        "    iadd64 r6, u4, r4\n"
        "    imul r13, r1, 7\n"
        "    atom_dev.xchg.u32 r8, r6, 0, r13\n"
        "    iadd r12, r12, 1\n"
        "    st_dev.b32 r8, u8, r12\n"
        "    mov r13, 0x100\n"
        "    atom_dev.or.u32 r8, r6, 0, r13\n"
        "    iadd r12, r12, 1\n"
        "    st_dev.b32 r8, u8, r12\n"
        "    iadd64 r6, u6, r4\n"
        "    atom_dev.add.u32 r8, r6, 0, r2\n"
        "    stop\n";
    enum { N = 48, NA = 40 };
    Harness h;
    h_init(&h, k);
    uint32_t *a = h_buffer(&h, 0, "a", NA * 4, MEM_SPACE_DEVICE);
    uint32_t *b = h_buffer(&h, 1, "b", N / 2 * 4, MEM_SPACE_DEVICE);
    uint32_t *c = h_buffer(&h, 2, "c", N * 4, MEM_SPACE_DEVICE);
    uint32_t *kc = h_buffer(&h, 3, "kc", N * 4, MEM_SPACE_CONSTANT);
    uint32_t *olds = h_buffer(&h, 4, "olds", N * 16, MEM_SPACE_DEVICE);
    for (uint32_t i = 0; i < N; i++) {
        c[i] = 1000 + i;
        if (i < NA)
            a[i] = 50 + i;
    }
    h_grid(&h, false, N, 1, 1, N, 1, 1);
    h.launch.max_faults = 100;
    h_run(&h);
    uint32_t want_a[NA] = {0}, want_b[N / 2] = {0}, old1[N] = {0}, old2[N] = {0};
    for (uint32_t i = 0; i < NA; i++) { /* step 1 */
        old1[i] = 50 + i;
        want_a[i] = 50 + i + i + 1;
    }
    for (uint32_t i = 0; i < N; i++) { /* step 2, in lane (= thread) order */
        uint32_t *word = i % 3 == 0 ? (i < NA ? &want_a[i] : NULL) : &want_b[i / 2];
        if (!word)
            continue;
        old2[i] = *word;
        *word += i + 1;
    }
    for (uint32_t i = 0; i < NA; i++)
        assert_int_equal(a[i], want_a[i]);
    for (uint32_t j = 0; j < N / 2; j++)
        assert_int_equal(b[j], want_b[j]);
    for (uint32_t i = 0; i < N; i++) {
        assert_int_equal(olds[4 * i], old1[i]);
        assert_int_equal(olds[4 * i + 1], old2[i]);
        assert_int_equal(olds[4 * i + 2], 1000 + i);
        assert_int_equal(olds[4 * i + 3], 7 * i);
        assert_int_equal(c[i], 7 * i | 0x100);
        assert_int_equal(kc[i], 0);
    }
    /* 8 (step 1) + 2 (step 2: threads 42, 45) + 48 (step 4) */
    assert_int_equal(h.res.total_faults, 8 + 2 + N);
    uint32_t oob = 0, cw = 0;
    for (uint32_t j = 0; j < h.res.num_faults; j++) {
        const SimFault *f = &h.res.faults[j];
        const uint32_t t = f->thread.grid[0];
        assert_true(f->is_write);
        assert_int_equal(f->offset, 4ull * t);
        if (f->kind == SIM_FAULT_OUT_OF_BOUNDS) {
            oob++;
            assert_string_equal(f->buffer, "a");
            assert_true(t >= NA);
        } else {
            cw++;
            assert_int_equal(f->kind, SIM_FAULT_CONSTANT_WRITE);
            assert_string_equal(f->buffer, "kc");
        }
    }
    assert_int_equal(oob, 10);
    assert_int_equal(cw, N);
    h_free(&h);
}

static void test_cmpxchg(void **state)
{
    (void)state;
    for (int tg = 0; tg < 2; tg++) {
        /* lane k swaps k for k + 1: in lane order every compare succeeds */
        char text[1024];
        snprintf(text, sizeof text,
                 ".kernel cx\n.regs 6\n.tgmem 16\n.arg mem, device, u0\n.arg old, device, u2\n"
                 "    get_sr r1, thread_position_in_grid.x\n"
                 "    iadd r2, r1, 1\n"
                 "    %s.%s r3, %s, 1, r1, r2\n"
                 "    %s.u32 r4, %s, 2, 0, r2\n"   /* a lock: only the first lane wins */
                 "    shl r5, r1, 1\n"
                 "    st_dev.b32.x2 r3, u2, r5\n"
                 "%s"
                 "    stop\n",
                 tg ? "cmpxchg_tg" : "cmpxchg_dev", tg ? "i32" : "u32", tg ? "0" : "u0",
                 tg ? "cmpxchg_tg" : "cmpxchg_dev", tg ? "0" : "u0",
                 tg ? "    ld_tg.b32.x2 r3, 4, 0\n    st_dev.b32.x2 r3, u0, 1\n" : "");
        Harness h;
        h_init(&h, text);
        uint32_t *mem = h_buffer(&h, 0, "mem", 16, MEM_SPACE_DEVICE);
        uint32_t *old = h_buffer(&h, 1, "old", 32 * 8, MEM_SPACE_DEVICE);
        h_run1(&h, 32, 32);
        h_expect_no_faults(&h);
        assert_int_equal(mem[1], 32);
        assert_int_equal(mem[2], 1);
        for (uint32_t i = 0; i < 32; i++) {
            assert_int_equal(old[2 * i], i);
            assert_int_equal(old[2 * i + 1], i == 0 ? 0u : 1u);
        }
        h_free(&h);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formats_device),       cmocka_unit_test(test_formats_constant),
        cmocka_unit_test(test_formats_threadgroup),  cmocka_unit_test(test_formats_stack),
        cmocka_unit_test(test_device_out_of_bounds), cmocka_unit_test(test_partial_vector_and_no_buffer),
        cmocka_unit_test(test_base_past_the_end),
        cmocka_unit_test(test_partial_coalesced), cmocka_unit_test(test_word_gathers),
        cmocka_unit_test(test_tg_atomic_bounds),
        cmocka_unit_test(test_constant_writes_fault), cmocka_unit_test(test_tg_stack_out_of_bounds),
        cmocka_unit_test(test_atomics), cmocka_unit_test(test_no_lane_memory), cmocka_unit_test(test_device_atomic_pointers),              cmocka_unit_test(test_cmpxchg),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
