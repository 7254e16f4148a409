; exp2_throughput.s — exp2 (f32) throughput.
;
; Measures: cycles per exp232 per scheduler, with 32 SIMD-groups per core (8 per
; scheduler), each thread running 8 independent chains x = exp2(-x), 64 per iteration.
; Checked against: EXP2 throughput 4 cycles per SIMD-group instruction on M1, i.e. 32
; results per core per cycle (philipturner/metal-benchmarks, via
; ../shared/reference/apple-gpu-facts.md), within 15%.
;
; x = 2^-x has one fixed point, x* = W(ln 2) / ln 2 = 0.6411857445..., and the step
; contracts by ln 2 * x* = 0.444 around it, so after 8 steps per chain per iteration the
; chains sit at x*; thread 0 stores it.

.kernel exp2_throughput
.regs 16
.arg out, device, u0
.arg iters, constant, u2

    get_sr r1, thread_position_in_grid.x
    ld_const.b32 r15, u2, 0                   ; r15 = iterations
    mov r2, 0.5
    mov r3, 0.5
    mov r4, 0.5
    mov r5, 0.5
    mov r6, 0.5
    mov r7, 0.5
    mov r8, 0.5
    mov r9, 0.5
    mov r14, 0
    push_exec 2                               ; open the loop (two levels, see docs/assembly.md)
loop:
    iadd r14, r14, 1                            ; first, so the branch never waits on it
    exp232 r2, -r2
    exp232 r3, -r3
    exp232 r4, -r4
    exp232 r5, -r5
    exp232 r6, -r6
    exp232 r7, -r7
    exp232 r8, -r8
    exp232 r9, -r9
    exp232 r2, -r2
    exp232 r3, -r3
    exp232 r4, -r4
    exp232 r5, -r5
    exp232 r6, -r6
    exp232 r7, -r7
    exp232 r8, -r8
    exp232 r9, -r9
    exp232 r2, -r2
    exp232 r3, -r3
    exp232 r4, -r4
    exp232 r5, -r5
    exp232 r6, -r6
    exp232 r7, -r7
    exp232 r8, -r8
    exp232 r9, -r9
    exp232 r2, -r2
    exp232 r3, -r3
    exp232 r4, -r4
    exp232 r5, -r5
    exp232 r6, -r6
    exp232 r7, -r7
    exp232 r8, -r8
    exp232 r9, -r9
    exp232 r2, -r2
    exp232 r3, -r3
    exp232 r4, -r4
    exp232 r5, -r5
    exp232 r6, -r6
    exp232 r7, -r7
    exp232 r8, -r8
    exp232 r9, -r9
    exp232 r2, -r2
    exp232 r3, -r3
    exp232 r4, -r4
    exp232 r5, -r5
    exp232 r6, -r6
    exp232 r7, -r7
    exp232 r8, -r8
    exp232 r9, -r9
    exp232 r2, -r2
    exp232 r3, -r3
    exp232 r4, -r4
    exp232 r5, -r5
    exp232 r6, -r6
    exp232 r7, -r7
    exp232 r8, -r8
    exp232 r9, -r9
    exp232 r2, -r2
    exp232 r3, -r3
    exp232 r4, -r4
    exp232 r5, -r5
    exp232 r6, -r6
    exp232 r7, -r7
    exp232 r8, -r8
    exp232 r9, -r9
    while_icmp.ult 2, r14, r15                  ; keep going while counter < iters
    jmp_exec_any loop
    pop_exec 2
    if_icmp.eq 1, r1, 0
    st_dev.b32 r2, u0, 0
    pop_exec 1
    stop
