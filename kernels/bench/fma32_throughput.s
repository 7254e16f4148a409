; fma32_throughput.s — FP32 FMA throughput of a whole core.
;
; Measures: FLOP per cycle per core with many SIMD-groups per core (32 per core: 16
; threadgroups of 512 threads on 8 cores), each thread running 8 independent ffma32 chains,
; 128 ffma32 per loop iteration against 3 loop-control instructions.
; Checked against: 256 FLOP per cycle per core for FP32 FMA on M1 (128 ALUs x 2;
; philipturner/metal-benchmarks, via ../shared/reference/apple-gpu-facts.md), within 10%.
; The loop control takes 3 of every 131 issue slots, so the ideal here is 250 FLOP/cycle.
; tests/timing/test_validation.c computes flops / (cycles * cores used).
;
; Every chain computes acc = acc * 1.0 + 1.0, so after `iters` iterations each accumulator
; holds 16 * iters (exact in f32); thread 0 stores its first one.

.kernel fma32_throughput
.regs 16
.arg out, device, u0
.arg iters, constant, u2

    get_sr r1, thread_position_in_grid.x
    ld_const.b32 r15, u2, 0                   ; r15 = iterations
    mov r10, 1.0
    mov r11, 1.0
    mov r2, 0
    mov r3, 0
    mov r4, 0
    mov r5, 0
    mov r6, 0
    mov r7, 0
    mov r8, 0
    mov r9, 0
    mov r14, 0
    push_exec 2                               ; open the loop (two levels, see docs/assembly.md)
loop:
    iadd r14, r14, 1                            ; first, so the branch never waits on it
    ffma32 r2, r2, r10, r11
    ffma32 r3, r3, r10, r11
    ffma32 r4, r4, r10, r11
    ffma32 r5, r5, r10, r11
    ffma32 r6, r6, r10, r11
    ffma32 r7, r7, r10, r11
    ffma32 r8, r8, r10, r11
    ffma32 r9, r9, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r3, r3, r10, r11
    ffma32 r4, r4, r10, r11
    ffma32 r5, r5, r10, r11
    ffma32 r6, r6, r10, r11
    ffma32 r7, r7, r10, r11
    ffma32 r8, r8, r10, r11
    ffma32 r9, r9, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r3, r3, r10, r11
    ffma32 r4, r4, r10, r11
    ffma32 r5, r5, r10, r11
    ffma32 r6, r6, r10, r11
    ffma32 r7, r7, r10, r11
    ffma32 r8, r8, r10, r11
    ffma32 r9, r9, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r3, r3, r10, r11
    ffma32 r4, r4, r10, r11
    ffma32 r5, r5, r10, r11
    ffma32 r6, r6, r10, r11
    ffma32 r7, r7, r10, r11
    ffma32 r8, r8, r10, r11
    ffma32 r9, r9, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r3, r3, r10, r11
    ffma32 r4, r4, r10, r11
    ffma32 r5, r5, r10, r11
    ffma32 r6, r6, r10, r11
    ffma32 r7, r7, r10, r11
    ffma32 r8, r8, r10, r11
    ffma32 r9, r9, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r3, r3, r10, r11
    ffma32 r4, r4, r10, r11
    ffma32 r5, r5, r10, r11
    ffma32 r6, r6, r10, r11
    ffma32 r7, r7, r10, r11
    ffma32 r8, r8, r10, r11
    ffma32 r9, r9, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r3, r3, r10, r11
    ffma32 r4, r4, r10, r11
    ffma32 r5, r5, r10, r11
    ffma32 r6, r6, r10, r11
    ffma32 r7, r7, r10, r11
    ffma32 r8, r8, r10, r11
    ffma32 r9, r9, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r3, r3, r10, r11
    ffma32 r4, r4, r10, r11
    ffma32 r5, r5, r10, r11
    ffma32 r6, r6, r10, r11
    ffma32 r7, r7, r10, r11
    ffma32 r8, r8, r10, r11
    ffma32 r9, r9, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r3, r3, r10, r11
    ffma32 r4, r4, r10, r11
    ffma32 r5, r5, r10, r11
    ffma32 r6, r6, r10, r11
    ffma32 r7, r7, r10, r11
    ffma32 r8, r8, r10, r11
    ffma32 r9, r9, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r3, r3, r10, r11
    ffma32 r4, r4, r10, r11
    ffma32 r5, r5, r10, r11
    ffma32 r6, r6, r10, r11
    ffma32 r7, r7, r10, r11
    ffma32 r8, r8, r10, r11
    ffma32 r9, r9, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r3, r3, r10, r11
    ffma32 r4, r4, r10, r11
    ffma32 r5, r5, r10, r11
    ffma32 r6, r6, r10, r11
    ffma32 r7, r7, r10, r11
    ffma32 r8, r8, r10, r11
    ffma32 r9, r9, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r3, r3, r10, r11
    ffma32 r4, r4, r10, r11
    ffma32 r5, r5, r10, r11
    ffma32 r6, r6, r10, r11
    ffma32 r7, r7, r10, r11
    ffma32 r8, r8, r10, r11
    ffma32 r9, r9, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r3, r3, r10, r11
    ffma32 r4, r4, r10, r11
    ffma32 r5, r5, r10, r11
    ffma32 r6, r6, r10, r11
    ffma32 r7, r7, r10, r11
    ffma32 r8, r8, r10, r11
    ffma32 r9, r9, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r3, r3, r10, r11
    ffma32 r4, r4, r10, r11
    ffma32 r5, r5, r10, r11
    ffma32 r6, r6, r10, r11
    ffma32 r7, r7, r10, r11
    ffma32 r8, r8, r10, r11
    ffma32 r9, r9, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r3, r3, r10, r11
    ffma32 r4, r4, r10, r11
    ffma32 r5, r5, r10, r11
    ffma32 r6, r6, r10, r11
    ffma32 r7, r7, r10, r11
    ffma32 r8, r8, r10, r11
    ffma32 r9, r9, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r3, r3, r10, r11
    ffma32 r4, r4, r10, r11
    ffma32 r5, r5, r10, r11
    ffma32 r6, r6, r10, r11
    ffma32 r7, r7, r10, r11
    ffma32 r8, r8, r10, r11
    ffma32 r9, r9, r10, r11
    while_icmp.ult 2, r14, r15                  ; keep going while counter < iters
    jmp_exec_any loop
    pop_exec 2
    if_icmp.eq 1, r1, 0
    st_dev.b32 r2, u0, 0
    pop_exec 1
    stop
