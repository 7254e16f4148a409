; stream_copy.s — streaming copy bandwidth: dst[i] = src[i] over buffers far larger than
; any latency.
;
; Measures: achieved DRAM bandwidth of a copy, counted as bytes read plus bytes written over
; the run time (as STREAM "copy" counts it). Each thread moves one float4 (16 bytes), so a
; SIMD-group's load and store each cover four 128-byte lines. The manifest copies 2 MiB:
; 4 MiB of traffic, ~80,000 cycles at M1's bandwidth against ~400 cycles of DRAM latency,
; and 32 SIMD-groups per core keep ~128 lines in flight per core (Little's law asks for ~21).
; Checked against: the configured DRAM bandwidth (sim/gpus/m1.yaml: Apple's 68.25 GB/s for
; M1's LPDDR4X-4266; chipsandcheese measured ~50 GB/s achieved — both via
; ../shared/reference/apple-gpu-facts.md), within 10%.

.kernel stream_copy
.regs 8
.arg src, device, u0
.arg dst, device, u2

    get_sr r1, thread_position_in_grid.x
    shl r2, r1, 2                             ; element index of this thread's float4
    ld_dev.b32.x4 r4, u0, r2, 0
    wait 0
    st_dev.b32.x4 r4, u2, r2
    stop
