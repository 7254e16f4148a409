; rsqrt_throughput.s — rsqrt (f32) throughput.
;
; Measures: cycles per rsqrt32 per scheduler, with 32 SIMD-groups per core (8 per
; scheduler), each thread running 8 independent chains x = rsqrt(x), 64 per iteration.
; Checked against: RSQRT throughput 8 cycles per SIMD-group instruction on M1, i.e. 16
; results per core per cycle (philipturner/metal-benchmarks, via
; ../shared/reference/apple-gpu-facts.md), within 15%.
;
; x = 1/sqrt(x) has the fixed point 1 and halves the distance to it every step (the
; derivative there is -1/2), so from 2.0 each chain reaches 1.0 well within one iteration.

.kernel rsqrt_throughput
.regs 16
.arg out, device, u0
.arg iters, constant, u2

    get_sr r1, thread_position_in_grid.x
    ld_const.b32 r15, u2, 0                   ; r15 = iterations
    mov r2, 2.0
    mov r3, 2.0
    mov r4, 2.0
    mov r5, 2.0
    mov r6, 2.0
    mov r7, 2.0
    mov r8, 2.0
    mov r9, 2.0
    mov r14, 0
    push_exec 2                               ; open the loop (two levels, see docs/assembly.md)
loop:
    iadd r14, r14, 1                            ; first, so the branch never waits on it
    rsqrt32 r2, r2
    rsqrt32 r3, r3
    rsqrt32 r4, r4
    rsqrt32 r5, r5
    rsqrt32 r6, r6
    rsqrt32 r7, r7
    rsqrt32 r8, r8
    rsqrt32 r9, r9
    rsqrt32 r2, r2
    rsqrt32 r3, r3
    rsqrt32 r4, r4
    rsqrt32 r5, r5
    rsqrt32 r6, r6
    rsqrt32 r7, r7
    rsqrt32 r8, r8
    rsqrt32 r9, r9
    rsqrt32 r2, r2
    rsqrt32 r3, r3
    rsqrt32 r4, r4
    rsqrt32 r5, r5
    rsqrt32 r6, r6
    rsqrt32 r7, r7
    rsqrt32 r8, r8
    rsqrt32 r9, r9
    rsqrt32 r2, r2
    rsqrt32 r3, r3
    rsqrt32 r4, r4
    rsqrt32 r5, r5
    rsqrt32 r6, r6
    rsqrt32 r7, r7
    rsqrt32 r8, r8
    rsqrt32 r9, r9
    rsqrt32 r2, r2
    rsqrt32 r3, r3
    rsqrt32 r4, r4
    rsqrt32 r5, r5
    rsqrt32 r6, r6
    rsqrt32 r7, r7
    rsqrt32 r8, r8
    rsqrt32 r9, r9
    rsqrt32 r2, r2
    rsqrt32 r3, r3
    rsqrt32 r4, r4
    rsqrt32 r5, r5
    rsqrt32 r6, r6
    rsqrt32 r7, r7
    rsqrt32 r8, r8
    rsqrt32 r9, r9
    rsqrt32 r2, r2
    rsqrt32 r3, r3
    rsqrt32 r4, r4
    rsqrt32 r5, r5
    rsqrt32 r6, r6
    rsqrt32 r7, r7
    rsqrt32 r8, r8
    rsqrt32 r9, r9
    rsqrt32 r2, r2
    rsqrt32 r3, r3
    rsqrt32 r4, r4
    rsqrt32 r5, r5
    rsqrt32 r6, r6
    rsqrt32 r7, r7
    rsqrt32 r8, r8
    rsqrt32 r9, r9
    while_icmp.ult 2, r14, r15                  ; keep going while counter < iters
    jmp_exec_any loop
    pop_exec 2
    if_icmp.eq 1, r1, 0
    st_dev.b32 r2, u0, 0
    pop_exec 1
    stop
