; shuffle_throughput.s — SIMD shuffle throughput.
;
; Measures: cycles per shfl_xor per scheduler, with 32 SIMD-groups per core (8 per
; scheduler), each thread running 8 independent chains r = simd_shuffle_xor(r, 1), 64
; shuffles per loop iteration.
; Checked against: simd_shuffle throughput 2 cycles per SIMD-group instruction on M1
; (philipturner/metal-benchmarks, via ../shared/reference/apple-gpu-facts.md; Mesa's G13
; cost model agrees: {5, 2}), within 15%.
;
; Each chain swaps values with the neighbouring lane 8 times per iteration, an even number,
; so every lane ends with its own start value: r2 = lane + 7, and thread 0 stores 7.

.kernel shuffle_throughput
.regs 16
.arg out, device, u0
.arg iters, constant, u2

    get_sr r1, thread_position_in_grid.x
    ld_const.b32 r15, u2, 0                   ; r15 = iterations
    get_sr r12, thread_index_in_simdgroup
    iadd r2, r12, 7
    iadd r3, r12, 1
    iadd r4, r12, 2
    iadd r5, r12, 3
    iadd r6, r12, 4
    iadd r7, r12, 5
    iadd r8, r12, 6
    iadd r9, r12, 8
    mov r14, 0
    push_exec 2                               ; open the loop (two levels, see docs/assembly.md)
loop:
    iadd r14, r14, 1                            ; first, so the branch never waits on it
    shfl_xor r2, r2, 1
    shfl_xor r3, r3, 1
    shfl_xor r4, r4, 1
    shfl_xor r5, r5, 1
    shfl_xor r6, r6, 1
    shfl_xor r7, r7, 1
    shfl_xor r8, r8, 1
    shfl_xor r9, r9, 1
    shfl_xor r2, r2, 1
    shfl_xor r3, r3, 1
    shfl_xor r4, r4, 1
    shfl_xor r5, r5, 1
    shfl_xor r6, r6, 1
    shfl_xor r7, r7, 1
    shfl_xor r8, r8, 1
    shfl_xor r9, r9, 1
    shfl_xor r2, r2, 1
    shfl_xor r3, r3, 1
    shfl_xor r4, r4, 1
    shfl_xor r5, r5, 1
    shfl_xor r6, r6, 1
    shfl_xor r7, r7, 1
    shfl_xor r8, r8, 1
    shfl_xor r9, r9, 1
    shfl_xor r2, r2, 1
    shfl_xor r3, r3, 1
    shfl_xor r4, r4, 1
    shfl_xor r5, r5, 1
    shfl_xor r6, r6, 1
    shfl_xor r7, r7, 1
    shfl_xor r8, r8, 1
    shfl_xor r9, r9, 1
    shfl_xor r2, r2, 1
    shfl_xor r3, r3, 1
    shfl_xor r4, r4, 1
    shfl_xor r5, r5, 1
    shfl_xor r6, r6, 1
    shfl_xor r7, r7, 1
    shfl_xor r8, r8, 1
    shfl_xor r9, r9, 1
    shfl_xor r2, r2, 1
    shfl_xor r3, r3, 1
    shfl_xor r4, r4, 1
    shfl_xor r5, r5, 1
    shfl_xor r6, r6, 1
    shfl_xor r7, r7, 1
    shfl_xor r8, r8, 1
    shfl_xor r9, r9, 1
    shfl_xor r2, r2, 1
    shfl_xor r3, r3, 1
    shfl_xor r4, r4, 1
    shfl_xor r5, r5, 1
    shfl_xor r6, r6, 1
    shfl_xor r7, r7, 1
    shfl_xor r8, r8, 1
    shfl_xor r9, r9, 1
    shfl_xor r2, r2, 1
    shfl_xor r3, r3, 1
    shfl_xor r4, r4, 1
    shfl_xor r5, r5, 1
    shfl_xor r6, r6, 1
    shfl_xor r7, r7, 1
    shfl_xor r8, r8, 1
    shfl_xor r9, r9, 1
    while_icmp.ult 2, r14, r15                  ; keep going while counter < iters
    jmp_exec_any loop
    pop_exec 2
    if_icmp.eq 1, r1, 0
    st_dev.b32 r2, u0, 0
    pop_exec 1
    stop
