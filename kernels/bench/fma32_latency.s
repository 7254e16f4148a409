; fma32_latency.s — FP32 FMA latency: one SIMD-group, one dependent chain.
;
; Measures: cycles per ffma32 when every FMA needs the result of the one before, with a
; single SIMD-group on the whole GPU (so nothing hides the latency). 128 dependent ffma32 per
; loop iteration; the loop counter is bumped first so the chain never waits on it.
; tests/timing/test_validation.c runs it with two iteration counts and divides the
; difference in cycles by the difference in FMAs, which cancels launch and drain.
; Checked against: the configured FFMA32 latency (sim/gpus/m1.yaml; published figures: ~2.2
; cycles in the first philipturner/metal-benchmarks runs, ~6 in later ones; Mesa's G13 cost
; model says 2 — all via ../shared/reference/apple-gpu-facts.md), within 5%.
;
; acc = acc * 1.0 + 1.0, so the stored value is 128 * iters.

.kernel fma32_latency
.regs 16
.arg out, device, u0
.arg iters, constant, u2

    get_sr r1, thread_position_in_grid.x
    ld_const.b32 r15, u2, 0                   ; r15 = iterations
    mov r10, 1.0
    mov r11, 1.0
    mov r2, 0
    mov r14, 0
    push_exec 2                               ; open the loop (two levels, see docs/assembly.md)
loop:
    iadd r14, r14, 1                            ; first, so the branch never waits on it
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    ffma32 r2, r2, r10, r11
    while_icmp.ult 2, r14, r15                  ; keep going while counter < iters
    jmp_exec_any loop
    pop_exec 2
    if_icmp.eq 1, r1, 0
    st_dev.b32 r2, u0, 0
    pop_exec 1
    stop
