; threadgroup_sum.s — each threadgroup of 256 threads sums its 256 floats into out[group].
;
; What it demonstrates
;   The classic two-level reduction, as a Metal kernel would do it with simd_sum and
;   threadgroup memory:
;     1. every SIMD-group (32 lanes) sums its 32 values with one simd_red instruction;
;     2. lane 0 of each of the 8 SIMD-groups writes its partial sum to threadgroup memory;
;     3. barrier.tg: nobody reads the partials before all 8 are written;
;     4. SIMD-group 0 reads the 8 partials into lanes 0..7 and reduces them again;
;     5. thread 0 writes the threadgroup's total to device memory.
;   Along the way: nested ifs (one if inside another) and jmp_exec_none, which lets a
;   SIMD-group with no active lane jump over code instead of issuing it all masked off.
;
; The exec nesting counter. Every lane has a counter D in r0l; a lane is active iff D == 0.
;   if_icmp n, a, b    D != 0 ? D += n : (a cond b ? D stays 0 : D = 1)
;   pop_exec n         D = max(D - n, 0)
; So an inactive lane counts how many enclosing ifs it is "inside but switched off by".
;
; The inputs (threadgroup_sum.in.npy) are multiples of 1/16, so every partial sum is exact
; and the result does not depend on the order the hardware adds in.

.kernel threadgroup_sum
.regs 9                                       ; r0..r8
.arg in, device, u0
.arg out, device, u2
.arg partials, threadgroup, u4                ; 8 floats (bytes: 32 in the manifest); u4 holds
                                              ; the byte offset of the block

    get_sr r1, thread_position_in_grid.x      ; r1 = global index
    get_sr r2, thread_index_in_simdgroup      ; r2 = lane 0..31
    get_sr r3, simdgroup_index_in_threadgroup ; r3 = SIMD-group 0..7
    ld_dev.b32 r4, u0, r1, 0                  ; r4 = in[gid], asynchronous on slot 0
    wait 0

    ; Step 1. All 32 lanes are active (D = 0 everywhere), so the reduction covers all of
    ; them and every lane receives the same sum.
    simd_red.sum.f32 r5, r4

    ; Step 2. if (lane == 0): lanes 1..31 have D = 0 and fail the test, so they get D = 1.
    ; Only lane 0 stays active and stores; the store index is the SIMD-group number.
    if_icmp.eq 1, r2, 0
    st_tg.b32 r5, u4, r3                      ; partials[simdgroup] = sum
    pop_exec 1                                ; lanes 1..31: D = 1 -> 0; all active again

    ; Step 3. Every SIMD-group of the threadgroup must arrive here before any goes on, and
    ; the .tg flag makes the threadgroup-memory stores above visible to the loads below.
    ; A barrier must be reached with all lanes active (it is outside every if).
    barrier.tg

    ; Step 4. if (simdgroup == 0): in SIMD-groups 1..7 every lane fails the test and gets
    ; D = 1. With no lane active, jmp_exec_none jumps straight to the matching pop_exec:
    ; those SIMD-groups skip the whole block in one instruction. SIMD-group 0 falls through.
    if_icmp.eq 1, r3, 0
    jmp_exec_none done

    ;   Nested if (lane < 8): one lane per partial. Lanes 8..31 have D = 0 and fail, so
    ;   D = 1. (In a SIMD-group where the outer if had switched lanes off, they would have
    ;   D = 1 and this if would make it 2: the counter remembers both levels.)
    if_icmp.ult 1, r2, 8
    ld_tg.b32 r6, u4, r2                      ; lanes 0..7: r6 = partials[lane]
    ;   simd_red reduces over the ACTIVE lanes only: here lanes 0..7, i.e. the 8 partials.
    simd_red.sum.f32 r7, r6

    ;     Innermost if (lane == 0): lanes 1..7 have D = 0 and fail -> D = 1; lanes 8..31
    ;     already have D = 1, so D += 1 -> 2. Only lane 0 (thread 0) is active.
    if_icmp.eq 1, r2, 0
    get_sr r8, threadgroup_position_in_grid.x
    st_dev.b32 r7, u2, r8                     ; out[group] = total
    pop_exec 1                                ; lanes 1..7: 1 -> 0; lanes 8..31: 2 -> 1
    pop_exec 1                                ; lanes 8..31: 1 -> 0; all active

done:
    ; End of the outer if. In SIMD-groups 1..7 every lane goes from D = 1 back to 0; in
    ; SIMD-group 0 every lane is already at 0 and stays there.
    pop_exec 1
    stop
