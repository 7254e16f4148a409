; occupancy.s — resident SIMD-groups per core against registers per thread.
;
; Measures: how many SIMD-groups stay resident on a core (SimStats.max_resident_simdgroups
; and avg_resident_simdgroups) when the kernel declares more registers. The code needs 16
; registers; tests/timing/test_validation.c assembles it again with `.regs` set to each row
; of the occupancy table and launches ten full waves of 32-thread threadgroups (one
; SIMD-group each, so every row is reachable and no SIMD-group waits for a partner).
; Checked against: Mesa's G13 occupancy table (threads per core by 16-bit half-registers per
; thread: <=104 -> 1024, 112 -> 896, 128 -> 832, 136 -> 768, 144 -> 704, 160 -> 640,
; 184 -> 576, 208 -> 512, 232 -> 448, 256 -> 384; via ../shared/reference/apple-gpu-facts.md),
; exactly for the limit and within 10% for the average over the run.
; As written (.regs 64 = 128 halves) a core holds 832 threads: 26 SIMD-groups.
;
; The work is an FMA loop like fma32_throughput.s: 64 ffma32 per iteration; thread 0 stores
; 8 * iters.

.kernel occupancy
.regs 64
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
    while_icmp.ult 2, r14, r15                  ; keep going while counter < iters
    jmp_exec_any loop
    pop_exec 2
    if_icmp.eq 1, r1, 0
    st_dev.b32 r2, u0, 0
    pop_exec 1
    stop
