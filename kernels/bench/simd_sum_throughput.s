; simd_sum_throughput.s — simd_sum (f32) throughput.
;
; Measures: cycles per simd_red.sum.f32 per scheduler, with 32 SIMD-groups per core (8 per
; scheduler) each issuing 32 independent reductions per loop iteration (8 destination
; registers in turn, one source), so neither latency nor the loop control limits them.
; Checked against: simd_sum f32 throughput 14.5 cycles per SIMD-group instruction on M1
; (philipturner/metal-benchmarks, via ../shared/reference/apple-gpu-facts.md), within 15%.
; tests/timing/test_validation.c computes cycles * cores used * schedulers per core / the
; number of simd_red instructions issued.
;
; The source is the lane index as a float, so every reduction yields 0 + 1 + ... + 31 = 496.

.kernel simd_sum_throughput
.regs 16
.arg out, device, u0
.arg iters, constant, u2

    get_sr r1, thread_position_in_grid.x
    ld_const.b32 r15, u2, 0                   ; r15 = iterations
    get_sr r12, thread_index_in_simdgroup
    cvt.f32.u32 r10, r12                      ; r10 = lane as a float
    mov r14, 0
    push_exec 2                               ; open the loop (two levels, see docs/assembly.md)
loop:
    iadd r14, r14, 1                            ; first, so the branch never waits on it
    simd_red.sum.f32 r2, r10
    simd_red.sum.f32 r3, r10
    simd_red.sum.f32 r4, r10
    simd_red.sum.f32 r5, r10
    simd_red.sum.f32 r6, r10
    simd_red.sum.f32 r7, r10
    simd_red.sum.f32 r8, r10
    simd_red.sum.f32 r9, r10
    simd_red.sum.f32 r2, r10
    simd_red.sum.f32 r3, r10
    simd_red.sum.f32 r4, r10
    simd_red.sum.f32 r5, r10
    simd_red.sum.f32 r6, r10
    simd_red.sum.f32 r7, r10
    simd_red.sum.f32 r8, r10
    simd_red.sum.f32 r9, r10
    simd_red.sum.f32 r2, r10
    simd_red.sum.f32 r3, r10
    simd_red.sum.f32 r4, r10
    simd_red.sum.f32 r5, r10
    simd_red.sum.f32 r6, r10
    simd_red.sum.f32 r7, r10
    simd_red.sum.f32 r8, r10
    simd_red.sum.f32 r9, r10
    simd_red.sum.f32 r2, r10
    simd_red.sum.f32 r3, r10
    simd_red.sum.f32 r4, r10
    simd_red.sum.f32 r5, r10
    simd_red.sum.f32 r6, r10
    simd_red.sum.f32 r7, r10
    simd_red.sum.f32 r8, r10
    simd_red.sum.f32 r9, r10
    while_icmp.ult 2, r14, r15                  ; keep going while counter < iters
    jmp_exec_any loop
    pop_exec 2
    if_icmp.eq 1, r1, 0
    st_dev.b32 r2, u0, 0
    pop_exec 1
    stop
