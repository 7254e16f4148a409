; shuffle_ballot.s — SIMD-group communication without memory: shuffles, ballot, popcount.
;
; What it demonstrates, one output each (two SIMD-groups of 32 lanes, x random in 0..99):
;   reversed[i]  shfl: every lane reads the register of another lane, chosen per lane.
;                Lane L reads lane L ^ 31 = 31 - L, so each SIMD-group's values come out
;                reversed.
;   xor_sum[i]   a butterfly sum with shfl_xor 16, 8, 4, 2, 1: after each step lane L holds
;                the sum over the lanes that differ from L only in the bits used so far
;                (16, then 16 and 8, ...); after five steps every lane holds the sum of all
;                32 values, with no lane left idle.
;   down_sum[i]  a tree sum with shfl_down 16, 8, 4, 2, 1: lane L adds lane L + d. Lane 0
;                ends with the full sum; the other lanes keep visible partial sums (and
;                lanes whose L + d is past 31 read their own value, so they double it:
;                that is the defined behaviour of shfl_down, shown on purpose).
;   ballot[i]    icmp_ballot: a 32-bit mask, bit L set when lane L has x >= 50. Every lane
;                of the SIMD-group receives the same mask.
; set_lanes[i]  popcount of that mask: how many lanes of the SIMD-group have x >= 50.
;
; Exec mask: there is no control flow, every lane of both SIMD-groups is active throughout
; (D = r0l = 0 everywhere). That matters: a shuffle reading an inactive lane gets an
; undefined value, and a ballot only counts active lanes.

.kernel shuffle_ballot
.regs 10
.arg x, device, u0
.arg reversed, device, u2
.arg xor_sum, device, u4
.arg down_sum, device, u6
.arg ballot, device, u8
.arg set_lanes, device, u10

    get_sr r1, thread_position_in_grid.x
    get_sr r2, thread_index_in_simdgroup
    ld_dev.b32 r3, u0, r1, 0                  ; r3 = x
    wait 0

    ; shfl with a per-lane source lane
    xor r4, r2, 31                            ; r4 = 31 - lane
    shfl r5, r3, r4                           ; r5 = x of lane 31 - lane
    st_dev.b32 r5, u2, r1

    ; butterfly: r6 += r6 of lane ^ d
    shfl_xor r7, r3, 16
    iadd r6, r3, r7
    shfl_xor r7, r6, 8
    iadd r6, r6, r7
    shfl_xor r7, r6, 4
    iadd r6, r6, r7
    shfl_xor r7, r6, 2
    iadd r6, r6, r7
    shfl_xor r7, r6, 1
    iadd r6, r6, r7
    st_dev.b32 r6, u4, r1

    ; tree: r8 += r8 of lane + d (own value when lane + d > 31)
    shfl_down r7, r3, 16
    iadd r8, r3, r7
    shfl_down r7, r8, 8
    iadd r8, r8, r7
    shfl_down r7, r8, 4
    iadd r8, r8, r7
    shfl_down r7, r8, 2
    iadd r8, r8, r7
    shfl_down r7, r8, 1
    iadd r8, r8, r7
    st_dev.b32 r8, u6, r1

    ; ballot and popcount
    icmp_ballot.uge r9, r3, 50                ; bit L = (x of lane L >= 50), active lanes only
    st_dev.b32 r9, u8, r1
    popcount r9, r9
    st_dev.b32 r9, u10, r1
    stop
