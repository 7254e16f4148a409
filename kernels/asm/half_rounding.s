; half_rounding.s — binary16 (half) arithmetic and its rounding, one test case per thread.
;
; What it demonstrates
;   * 16-bit loads into register halves: `ld_dev.h16.x3 r1l` fills r1l, r1h and r2l with
;     three consecutive halves; `st_dev.h16.x4 r3l` stores r3l, r3h, r4l, r4h.
;   * fadd16, fmul16 and ffma16 work on halves and round every result to binary16
;     (11 significant bits, round to nearest, ties to even).
;   * fused vs. unfused: ffma16 rounds a * b + c once; fmul16 then fadd16 rounds twice.
;
; Each thread reads (a, b, c) = cases[3i .. 3i+2] and writes, to results[4i .. 4i+3]:
;     a + b,   a * b,   fma(a, b, c),   (a * b) + c  (two roundings)
; Some cases (tests/ref/gen_expect.c has the full table and the expected results):
;     2048 + 1          = 2048     spacing of halves at 2048 is 2; 2049 is a tie -> even
;     2048 + 3          = 2052     2051 is a tie between 2050 (odd) and 2052 (even)
;     1 + 2^-11         = 1        tie -> even;  (1 + 2^-10) + 2^-11 = 1 + 2^-9 (tie -> up)
;     65504 + 15        = 65504    65504 is the largest half
;     65504 + 16        = inf      65520 ties between 65504 and 65536, even is 65536: overflow
;     300 * 300         = inf      90000 is out of range
;     2^-14 * 0.5       = 2^-15    a subnormal, exact
;     2^-24 * 0.5       = 0        the smallest subnormal halved: a tie -> even (0)
;     1.5 * 2^-24       -> 2^-23   tie -> even
;     (1+2^-10)^2 - (1+2^-9):  fma = 2^-20, mul then add = 0 (the 2^-20 was rounded away)
;     256 * 256 - 65504:       fma = 32, mul then add = inf (65536 overflowed on its own)
;     3 * half(1/3)     = 1        0.999755859375 ties to 1.0; fma(3, 1/3, -1) = -2^-12
;     half(0.1) + half(0.2) = 0.2998046875, not half(0.3) = 0.300048828125
;
; Exec mask: no control flow. The manifest launches exactly one thread per case (18), so
; the single SIMD-group is partial: lanes 18..31 do not exist and never execute.

.kernel half_rounding
.regs 7
.arg cases, device, u0                        ; 3 halves per case
.arg results, device, u2                      ; 4 halves per case

    get_sr r5, thread_position_in_grid.x
    imul r6, r5, 3                            ; element index of a (index counts halves)
    ld_dev.h16.x3 r1l, u0, r6, 0              ; r1l = a, r1h = b, r2l = c
    imul r6, r5, 4
    wait 0

    fadd16 r3l, r1l, r1h                      ; a + b
    fmul16 r3h, r1l, r1h                      ; a * b
    ffma16 r4l, r1l, r1h, r2l                 ; a * b + c, one rounding
    fadd16 r4h, r3h, r2l                      ; round(a * b) + c, second rounding

    st_dev.h16.x4 r3l, u2, r6                 ; results[4i..4i+3] = r3l, r3h, r4l, r4h
    stop
