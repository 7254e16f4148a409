; fma16_throughput.s — FP16 FMA throughput of a whole core.
;
; Measures: FLOP per cycle per core with 32 SIMD-groups per core (16 threadgroups of 512
; threads on 8 cores), each thread running 8 independent ffma16 chains in register halves,
; 128 ffma16 per loop iteration against 3 loop-control instructions.
; Checked against: 256 FLOP per cycle per core for FP16 FMA on M1, the same as FP32
; (philipturner/metal-benchmarks, via ../shared/reference/apple-gpu-facts.md), within 10%.
;
; Every chain computes acc = acc * 1.0 + 1.0 in binary16: after `iters` iterations each
; accumulator holds 16 * iters (exact while it is at most 2048); thread 0 stores r2l.

.kernel fma16_throughput
.regs 16
.arg out, device, u0
.arg iters, constant, u2

    get_sr r1, thread_position_in_grid.x
    ld_const.b32 r15, u2, 0                   ; r15 = iterations
    mov16 r10l, 1.0
    mov16 r10h, 1.0
    mov r2, 0                                 ; both halves of r2..r5: eight f16 zeros
    mov r3, 0
    mov r4, 0
    mov r5, 0
    mov r14, 0
    push_exec 2                               ; open the loop (two levels, see docs/assembly.md)
loop:
    iadd r14, r14, 1                            ; first, so the branch never waits on it
    ffma16 r2l, r2l, r10l, r10h
    ffma16 r2h, r2h, r10l, r10h
    ffma16 r3l, r3l, r10l, r10h
    ffma16 r3h, r3h, r10l, r10h
    ffma16 r4l, r4l, r10l, r10h
    ffma16 r4h, r4h, r10l, r10h
    ffma16 r5l, r5l, r10l, r10h
    ffma16 r5h, r5h, r10l, r10h
    ffma16 r2l, r2l, r10l, r10h
    ffma16 r2h, r2h, r10l, r10h
    ffma16 r3l, r3l, r10l, r10h
    ffma16 r3h, r3h, r10l, r10h
    ffma16 r4l, r4l, r10l, r10h
    ffma16 r4h, r4h, r10l, r10h
    ffma16 r5l, r5l, r10l, r10h
    ffma16 r5h, r5h, r10l, r10h
    ffma16 r2l, r2l, r10l, r10h
    ffma16 r2h, r2h, r10l, r10h
    ffma16 r3l, r3l, r10l, r10h
    ffma16 r3h, r3h, r10l, r10h
    ffma16 r4l, r4l, r10l, r10h
    ffma16 r4h, r4h, r10l, r10h
    ffma16 r5l, r5l, r10l, r10h
    ffma16 r5h, r5h, r10l, r10h
    ffma16 r2l, r2l, r10l, r10h
    ffma16 r2h, r2h, r10l, r10h
    ffma16 r3l, r3l, r10l, r10h
    ffma16 r3h, r3h, r10l, r10h
    ffma16 r4l, r4l, r10l, r10h
    ffma16 r4h, r4h, r10l, r10h
    ffma16 r5l, r5l, r10l, r10h
    ffma16 r5h, r5h, r10l, r10h
    ffma16 r2l, r2l, r10l, r10h
    ffma16 r2h, r2h, r10l, r10h
    ffma16 r3l, r3l, r10l, r10h
    ffma16 r3h, r3h, r10l, r10h
    ffma16 r4l, r4l, r10l, r10h
    ffma16 r4h, r4h, r10l, r10h
    ffma16 r5l, r5l, r10l, r10h
    ffma16 r5h, r5h, r10l, r10h
    ffma16 r2l, r2l, r10l, r10h
    ffma16 r2h, r2h, r10l, r10h
    ffma16 r3l, r3l, r10l, r10h
    ffma16 r3h, r3h, r10l, r10h
    ffma16 r4l, r4l, r10l, r10h
    ffma16 r4h, r4h, r10l, r10h
    ffma16 r5l, r5l, r10l, r10h
    ffma16 r5h, r5h, r10l, r10h
    ffma16 r2l, r2l, r10l, r10h
    ffma16 r2h, r2h, r10l, r10h
    ffma16 r3l, r3l, r10l, r10h
    ffma16 r3h, r3h, r10l, r10h
    ffma16 r4l, r4l, r10l, r10h
    ffma16 r4h, r4h, r10l, r10h
    ffma16 r5l, r5l, r10l, r10h
    ffma16 r5h, r5h, r10l, r10h
    ffma16 r2l, r2l, r10l, r10h
    ffma16 r2h, r2h, r10l, r10h
    ffma16 r3l, r3l, r10l, r10h
    ffma16 r3h, r3h, r10l, r10h
    ffma16 r4l, r4l, r10l, r10h
    ffma16 r4h, r4h, r10l, r10h
    ffma16 r5l, r5l, r10l, r10h
    ffma16 r5h, r5h, r10l, r10h
    ffma16 r2l, r2l, r10l, r10h
    ffma16 r2h, r2h, r10l, r10h
    ffma16 r3l, r3l, r10l, r10h
    ffma16 r3h, r3h, r10l, r10h
    ffma16 r4l, r4l, r10l, r10h
    ffma16 r4h, r4h, r10l, r10h
    ffma16 r5l, r5l, r10l, r10h
    ffma16 r5h, r5h, r10l, r10h
    ffma16 r2l, r2l, r10l, r10h
    ffma16 r2h, r2h, r10l, r10h
    ffma16 r3l, r3l, r10l, r10h
    ffma16 r3h, r3h, r10l, r10h
    ffma16 r4l, r4l, r10l, r10h
    ffma16 r4h, r4h, r10l, r10h
    ffma16 r5l, r5l, r10l, r10h
    ffma16 r5h, r5h, r10l, r10h
    ffma16 r2l, r2l, r10l, r10h
    ffma16 r2h, r2h, r10l, r10h
    ffma16 r3l, r3l, r10l, r10h
    ffma16 r3h, r3h, r10l, r10h
    ffma16 r4l, r4l, r10l, r10h
    ffma16 r4h, r4h, r10l, r10h
    ffma16 r5l, r5l, r10l, r10h
    ffma16 r5h, r5h, r10l, r10h
    ffma16 r2l, r2l, r10l, r10h
    ffma16 r2h, r2h, r10l, r10h
    ffma16 r3l, r3l, r10l, r10h
    ffma16 r3h, r3h, r10l, r10h
    ffma16 r4l, r4l, r10l, r10h
    ffma16 r4h, r4h, r10l, r10h
    ffma16 r5l, r5l, r10l, r10h
    ffma16 r5h, r5h, r10l, r10h
    ffma16 r2l, r2l, r10l, r10h
    ffma16 r2h, r2h, r10l, r10h
    ffma16 r3l, r3l, r10l, r10h
    ffma16 r3h, r3h, r10l, r10h
    ffma16 r4l, r4l, r10l, r10h
    ffma16 r4h, r4h, r10l, r10h
    ffma16 r5l, r5l, r10l, r10h
    ffma16 r5h, r5h, r10l, r10h
    ffma16 r2l, r2l, r10l, r10h
    ffma16 r2h, r2h, r10l, r10h
    ffma16 r3l, r3l, r10l, r10h
    ffma16 r3h, r3h, r10l, r10h
    ffma16 r4l, r4l, r10l, r10h
    ffma16 r4h, r4h, r10l, r10h
    ffma16 r5l, r5l, r10l, r10h
    ffma16 r5h, r5h, r10l, r10h
    ffma16 r2l, r2l, r10l, r10h
    ffma16 r2h, r2h, r10l, r10h
    ffma16 r3l, r3l, r10l, r10h
    ffma16 r3h, r3h, r10l, r10h
    ffma16 r4l, r4l, r10l, r10h
    ffma16 r4h, r4h, r10l, r10h
    ffma16 r5l, r5l, r10l, r10h
    ffma16 r5h, r5h, r10l, r10h
    ffma16 r2l, r2l, r10l, r10h
    ffma16 r2h, r2h, r10l, r10h
    ffma16 r3l, r3l, r10l, r10h
    ffma16 r3h, r3h, r10l, r10h
    ffma16 r4l, r4l, r10l, r10h
    ffma16 r4h, r4h, r10l, r10h
    ffma16 r5l, r5l, r10l, r10h
    ffma16 r5h, r5h, r10l, r10h
    while_icmp.ult 2, r14, r15                  ; keep going while counter < iters
    jmp_exec_any loop
    pop_exec 2
    if_icmp.eq 1, r1, 0
    st_dev.h16 r2l, u0, 0
    pop_exec 1
    stop
