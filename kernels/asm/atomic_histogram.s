; atomic_histogram.s — counts 4096 uint values into 64 bins with device atomics.
;
; What it demonstrates
;   * atom_dev.add.u32: a read-modify-write that no other access can split. Many lanes of one
;     SIMD-group often hit the same bin in the same instruction; each of their increments is
;     applied (the order between them is unspecified, the sum is not), and each lane gets
;     the old value back in its destination register (unused here).
;   * an if without an else: values >= 64 are out of range and must not be counted.
;
; The data (atomic_histogram.in.npy) is mostly the sum of two "dice" 0..31, so the bins form
; a triangle peaking at 31; one value in 16 is an outlier of 64 or more.
;
; The exec nesting counter D (r0l, per lane; active iff D == 0):
;   if_icmp n, a, b      D != 0 ? D += n : (a cond b ? D stays 0 : D = 1)
;   pop_exec n           D = max(D - n, 0)

.kernel atomic_histogram
.regs 4
.arg data, device, u0
.arg bins, device, u2                         ; 64 uints, zero-filled by the manifest

    get_sr r1, thread_position_in_grid.x
    ld_dev.b32 r2, u0, r1, 0                  ; r2 = value
    wait 0

    ; if (value < 64): all lanes enter with D = 0; lanes holding an outlier get D = 1 and
    ; take no part in the atomic below (about 2 lanes per SIMD-group).
    if_icmp.ult 1, r2, 64
    atom_dev.add.u32 r3, u2, r2, 1            ; r3 = bins[value]; bins[value] += 1
    pop_exec 1                                ; the outlier lanes: 1 -> 0
    stop
