; vector_add.s — c[i] = a[i] + b[i] for i < n.
;
; What it demonstrates
;   * how a grid that is not a multiple of the threadgroup is cut up: vector_add.yaml asks for
;     1000 threads in threadgroups of 256, so there are 4 threadgroups; the last holds only
;     232 threads = 7 full SIMD-groups + 1 SIMD-group of 8 lanes (32 SIMD-groups in all).
;     Lanes 8..31 of that last SIMD-group do not exist: they are never active, whatever the
;     exec nesting counter says, and never touch memory.
;   * the bounds guard `if (i < n)`, lowered to one if_icmp. n (997) comes from a constant
;     buffer and is smaller than the grid, so the guard really masks lanes: threads 997..999
;     skip the add and c[997..999] keep their initial -1.
;   * asynchronous device loads: both loads are issued on wait slot 0 and `wait 0` is placed
;     just before the first instruction that reads their registers.
;
; The exec nesting counter. Every lane has a counter D in r0l; a lane is active iff D == 0.
; All present lanes start with D = 0.

.kernel vector_add
.regs 6                               ; r0..r5 (r0l is the exec nesting counter)
.arg a, device, u0                    ; 64-bit buffer addresses in uniform pairs
.arg b, device, u2
.arg c, device, u4
.arg n, constant, u6                  ; a one-element constant buffer holding n

    get_sr r1, thread_position_in_grid.x      ; r1 = i
    ld_const.b32 r2, u6, 0                    ; r2 = n (constant loads are synchronous)

    ; if (i < n): per lane, D != 0 ? D += 1 : (i < n ? stay 0 : D = 1).
    ; Every lane has D = 0 here, so lanes with i >= n get D = 1 and go inactive. Only the
    ; 8-lane SIMD-group of the last threadgroup (threads 992..999) diverges: lanes 0..4 stay
    ; active, lanes 5..7 (threads 997..999) drop out. Every other SIMD-group keeps all lanes.
    if_icmp.ult 1, r1, r2

    ; The body runs with the reduced mask: inactive lanes issue nothing to memory.
    ld_dev.b32 r3, u0, r1, 0                  ; r3 = a[i], completes on slot 0
    ld_dev.b32 r4, u2, r1, 0                  ; r4 = b[i], slot 0
    wait 0                                    ; both loads have landed
    fadd32 r5, r3, r4
    st_dev.b32 r5, u4, r1                     ; c[i] = a[i] + b[i]

    ; End of the if: D = max(D - 1, 0). Lanes 5..7 of the last SIMD-group go from 1 back to
    ; 0; lanes that were active stay at 0. Every present lane is active again.
    pop_exec 1
    stop
