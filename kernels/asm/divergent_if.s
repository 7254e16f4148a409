; divergent_if.s — one Collatz step per thread: x even -> x / 2, x odd -> 3x + 1.
;
; What it demonstrates
;   An if/else whose condition depends on the data, so it diverges inside SIMD-groups: a
;   SIMD-group has one pc, so it cannot go down both paths at once. It runs the then-side
;   with the odd lanes switched off, then the else-side with the even lanes switched off.
;   Every lane issues both sides; each lane keeps only the results of its own side. The run
;   summary's SIMD efficiency (active lanes / present lanes over all instructions) drops
;   below 100% because of this.
;
;   This is how Mesa's AGX compiler lowers `if (c) {A} else {B}`:
;       if_icmp   1, c ...      ; A's lanes stay active
;       A
;       else_icmp 1, c ...      ; flips: A's lanes off, B's lanes on
;       B
;       pop_exec  1             ; everyone who was active before the if is active again
;   Mesa re-tests the same condition (inverted) in else_icmp; the result is the same as an
;   unconditional else, because else_icmp only looks at the condition for lanes that the
;   if switched off.
;
; The exec nesting counter D (r0l, per lane; active iff D == 0):
;   if_icmp n, a, b     D != 0 ? D += n : (a cond b ? D stays 0 : D = 1)
;   else_icmp n, a, b   D == 0 ? D = n : (D == 1 ? (a cond b ? 0 : 1) : D unchanged)
;   pop_exec n          D = max(D - n, 0)

.kernel divergent_if
.regs 6
.arg x, device, u0
.arg out, device, u2

    get_sr r1, thread_position_in_grid.x
    ld_dev.b32 r2, u0, r1, 0                  ; r2 = x
    wait 0
    and r3, r2, 1                             ; r3 = x & 1 (1 = odd)

    ; if (x is even): all lanes come in with D = 0. Even lanes pass and keep D = 0; odd
    ; lanes fail and get D = 1. Example mask for x = 6, 7, 10, 3: lanes 0, 2 active.
    if_icmp.eq 1, r3, 0
    lsr r4, r2, 1                             ; even lanes only: r4 = x / 2

    ; else: lanes with D = 0 (the even lanes, which just ran the then-side) get D = 1.
    ; Lanes with D = 1 (the odd lanes) re-test the condition, here "x is odd", which holds
    ; for all of them: D = 0. The mask is now exactly the complement: lanes 1, 3 active.
    else_icmp.ne 1, r3, 0
    imad r4, r2, 3, 1                         ; odd lanes only: r4 = 3x + 1

    ; End of if/else: the even lanes go from D = 1 to 0, the odd lanes stay at 0.
    pop_exec 1

    st_dev.b32 r4, u2, r1                     ; all lanes active again: out[i] = r4
    stop
