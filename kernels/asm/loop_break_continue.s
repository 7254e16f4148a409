; loop_break_continue.s — Collatz stopping times: how many steps each start value takes to
; reach 1, and how many of those steps were odd (3n + 1) steps.
;
;     uint n = start[i], s = 0, odd = 0;
;     for (;;) {
;         if (n <= 1) break;
;         s++;
;         if ((n & 1) == 0) { n >>= 1; continue; }
;         n = 3 * n + 1;
;         odd++;
;     }
;     steps[i] = s; odd_steps[i] = odd;
;
; What it demonstrates
;   A loop whose trip count differs per lane (27 takes 111 steps, 8 takes 3), with `break`
;   and `continue` lowered the way Apple's hardware wants them (as Mesa's AGX compiler
;   does). A SIMD-group keeps looping while ANY lane still runs; lanes that are done (or
;   that skipped the rest of this iteration) just sit inactive. The SIMD efficiency in the
;   run summary shows what that costs.
;
; The exec nesting counter D (r0l, per lane; active iff D == 0):
;   push_exec n          D != 0 ? D += n : D stays 0     (an if that is always true)
;   if_icmp n, a, b      D != 0 ? D += n : (a cond b ? D stays 0 : D = 1)
;   pop_exec n           D = max(D - n, 0)
;   while_icmp n, a, b   D < n ? (a cond b ? D = 0 : D = n) : D unchanged
;   jmp_exec_any L       jump when at least one lane is active
;   jmp_exec_none L      jump when no lane is active
;
; The scheme. A loop takes two levels of the counter (push_exec 2), so that inside the
; loop body, at if-depth k (k ifs opened inside the loop), a lane can record how it left:
;     D = k + 2   "broke out":     after the body's k pop_execs it has D = 2
;     D = k + 1   "continued":     after the body's k pop_execs it has D = 1
; break and continue are therefore just "mov16 r0l, depth" followed by `pop_exec 0`, which
; changes no counter but makes the hardware recompute the exec mask from r0l.
; At the bottom, `while_icmp 2` with an always-true condition (0 == 0) reactivates every
; lane with D < 2 (D = 0: ran the whole body, D = 1: continued) and leaves D = 2 (broke)
; alone. jmp_exec_any loops back while any lane is active; when every lane has broken out
; the SIMD-group falls through, and pop_exec 2 takes them all from D = 2 back to 0.
; Lanes that were already inactive before the loop (D >= 1) get D + 2 from push_exec, never
; come below 2 inside, and get their old D back from pop_exec 2.

.kernel loop_break_continue
.regs 6
.arg start, device, u0
.arg steps, device, u2
.arg odd_steps, device, u4

    get_sr r1, thread_position_in_grid.x
    ld_dev.b32 r2, u0, r1, 0                  ; r2 = n = start[i]
    mov r3, 0                                 ; r3 = s
    mov r4, 0                                 ; r4 = odd
    wait 0

    ; Open the loop: every lane has D = 0 and keeps it; the two levels are now reserved.
    push_exec 2
loop:
    ; if (n <= 1) break;            (if-depth 1 inside the loop: break writes 1 + 2 = 3)
    ; Lanes with n > 1 get D = 1, so only the lanes about to break stay active. Lanes that
    ; broke in an earlier iteration come in with D = 2 and go to 3.
    if_icmp.ule 1, r2, 1
    jmp_exec_none no_break                    ; usually no lane is done: skip the break
    mov16 r0l, 3                              ; break: D = 3 ...
    pop_exec 0                                ; ... and the mask follows: these lanes are off
no_break:
    ; End of the if: lanes that broke go 3 -> 2; lanes with n > 1 go 1 -> 0.
    pop_exec 1

    iadd r3, r3, 1                            ; s++ (lanes still running)

    ; if ((n & 1) == 0) { n >>= 1; continue; }     (if-depth 1: continue writes 1 + 1 = 2)
    ; Odd lanes get D = 1. Lanes that broke already have D = 2 and go to 3.
    and r5, r2, 1
    if_icmp.eq 1, r5, 0
    jmp_exec_none odd                         ; a SIMD-group with only odd values skips
    lsr r2, r2, 1                             ; n >>= 1
    mov16 r0l, 2                              ; continue: D = 2 ...
    pop_exec 0                                ; ... these lanes are off for the rest
odd:
    ; End of the if: continuing lanes 2 -> 1, odd lanes 1 -> 0, broken lanes 3 -> 2.
    pop_exec 1

    imad r2, r2, 3, 1                         ; odd lanes only: n = 3n + 1
    iadd r4, r4, 1                            ; odd++

    ; Bottom of the loop. Always-true while: lanes with D = 0 or 1 become active for the
    ; next iteration; lanes with D = 2 (broke) stay out.
    while_icmp.eq 2, 0, 0
    jmp_exec_any loop                         ; some lane still running: go round again

    ; Every lane has broken out (D = 2): pop both loop levels, all lanes active again.
    pop_exec 2
    st_dev.b32 r3, u2, r1
    st_dev.b32 r4, u4, r1
    stop
