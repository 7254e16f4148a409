#!/bin/bash
# run.sh — lockstep against Oclgrind and PoCL (`make bench-compare`).
#
# Speed: six kernels written twice (bench/compare/kernels/*.metal for lockstep, *.cl for
# OpenCL) run at 2^16 .. 2^22 threads in lockstep (functional; timed; timed with every
# check), oclgrind-kernel (without and with --data-races) and PoCL (pocl_host.c, kernel time
# only). Every tool's outputs are compared with lockstep's functional run; the table gives
# median wall times of REPS runs, the ratios the targets are about, lane-instructions per
# second and lockstep's peak RSS. lockstep's and Oclgrind's repetitions take turns (one of
# each lockstep mode, then one of each Oclgrind run, and again), so a slow phase of this
# shared machine falls on both sides of a ratio. Detection: the kernels/bugs set through
# `lockstep check` and its OpenCL translation (bench/compare/bugs) through oclgrind-kernel
# --data-races --uninitialized.
#
# Environment: BUILD (build directory, default build), REPS (lockstep and PoCL repetitions,
# default 3), OCL_REPS (Oclgrind repetitions, default 1), OCL_MAX (largest log2 size
# Oclgrind runs, default 18: 2^20 takes minutes per kernel), SIZES (log2 sizes, default
# "16 18 20 22"), KERNELS (default all six), ITERS (compute-loop iterations, default 64).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
OUT=$BUILD/compare
REPS=${REPS:-3}
OCL_REPS=${OCL_REPS:-1}
OCL_MAX=${OCL_MAX:-18}
SIZES=${SIZES:-16 18 20 22}
KERNELS=${KERNELS:-compute copy reduce softmax matmul histogram}
ITERS=${ITERS:-64}
KDIR=$ROOT/bench/compare/kernels
LOCKSTEP=$BUILD/lockstep
CC=${CC:-cc}

# --- dependencies: Debian packages, installed only here and only as root -------------------
PKGS="oclgrind pocl-opencl-icd ocl-icd-opencl-dev opencl-headers"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" -eq 0 ]; then
        echo "installing:$missing"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null || exit 1
    else
        echo "bench-compare needs:$missing"
        echo "run: sudo apt-get install -y$missing"
        exit 1
    fi
fi
[ -x "$LOCKSTEP" ] || { echo "run.sh: $LOCKSTEP is missing (make BUILD=... first)"; exit 1; }

mkdir -p "$OUT"
$CC -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -o "$OUT/pocl_host" \
    "$ROOT/bench/compare/pocl_host.c" -lOpenCL || exit 1
$CC -O2 -std=c11 -Wall -Wextra -o "$OUT/tools" "$ROOT/bench/compare/tools.c" -lm || exit 1
TOOLS=$OUT/tools

# --- kernel setups: a lockstep manifest and an Oclgrind .sim file per kernel and size ------
# gen KERNEL LOG2 DIR writes DIR/KERNEL.yaml and DIR/KERNEL.sim and sets CMP to the outputs
# to compare, "NAME:TYPE ...". Inputs use only fill and integer-step ranges, which lockstep
# (start + k * step) and Oclgrind (value += step, in the element type) produce alike.
gen() {
    local k=$1 n=$((1 << $2)) d=$3
    local y=$d/$k.yaml s=$d/$k.sim
    case $k in
    compute)
        cat > "$y" <<EOF
kernel: $KDIR/compute.metal
grid: [$n]
threadgroup: [256]
args:
  in: {type: float, count: $n, init: {range: [0, 1]}}
  out: {type: float, count: $n, dump: out.bin}
  iters: {type: uint, value: $ITERS}
EOF
        printf '%s\n' "$KDIR/compute.cl" compute "$n 1 1" "256 1 1" \
            "<size=$((4 * n)) float range=0:1:$((n - 1))>" "<size=$((4 * n)) float fill=0 dump>" \
            "<size=4 uint> $ITERS" > "$s"
        CMP="out:float" ;;
    copy)
        cat > "$y" <<EOF
kernel: $KDIR/copy.metal
grid: [$n]
threadgroup: [256]
args:
  in: {type: uint, count: $n, init: {range: [0, 1]}}
  out: {type: uint, count: $n, dump: out.bin}
EOF
        printf '%s\n' "$KDIR/copy.cl" copy "$n 1 1" "256 1 1" \
            "<size=$((4 * n)) uint range=0:1:$((n - 1))>" "<size=$((4 * n)) uint fill=0 dump>" > "$s"
        CMP="out:uint" ;;
    reduce)
        cat > "$y" <<EOF
kernel: $KDIR/reduce.metal
grid: [$n]
threadgroup: [256]
args:
  in: {type: float, count: $n, init: {range: [0, 1]}}
  partial_sums: {type: float, count: $((n / 256)), dump: partial_sums.bin}
EOF
        printf '%s\n' "$KDIR/reduce.cl" reduce "$n 1 1" "256 1 1" \
            "<size=$((4 * n)) float range=0:1:$((n - 1))>" "<size=$((n / 64)) float fill=0 dump>" > "$s"
        CMP="partial_sums:float" ;;
    softmax)
        cat > "$y" <<EOF
kernel: $KDIR/softmax.metal
grid: [$n]
threadgroup: [256]
args:
  in: {type: float, count: $n, init: {range: [0, 1]}}
  out: {type: float, count: $n, dump: out.bin}
  scale: {type: float, value: 0.03125}
EOF
        printf '%s\n' "$KDIR/softmax.cl" softmax "$n 1 1" "256 1 1" \
            "<size=$((4 * n)) float range=0:1:$((n - 1))>" "<size=$((4 * n)) float fill=0 dump>" \
            "<size=4 float> 0.03125" > "$s"
        CMP="out:float" ;;
    matmul)
        # C is S x S (S * S threads), K = 64: four 16-wide tiles per element.
        local sq=1 kk=64
        while [ $((sq * sq)) -lt $n ]; do sq=$((sq * 2)); done
        cat > "$y" <<EOF
kernel: $KDIR/matmul.metal
grid: [$sq, $sq]
threadgroup: [16, 16]
args:
  A: {type: float, count: $((sq * kk)), init: {range: [0, 1]}}
  B: {type: float, count: $((kk * sq)), init: {range: [0, 1]}}
  C: {type: float, count: $((sq * sq)), dump: C.bin}
  M: {type: uint, value: $sq}
  N: {type: uint, value: $sq}
  K: {type: uint, value: $kk}
EOF
        printf '%s\n' "$KDIR/matmul.cl" matmul "$sq $sq 1" "16 16 1" \
            "<size=$((4 * sq * kk)) float range=0:1:$((sq * kk - 1))>" \
            "<size=$((4 * sq * kk)) float range=0:1:$((sq * kk - 1))>" \
            "<size=$((4 * sq * sq)) float fill=0 dump>" \
            "<size=4 uint> $sq" "<size=4 uint> $sq" "<size=4 uint> $kk" > "$s"
        CMP="C:float" ;;
    histogram)
        cat > "$y" <<EOF
kernel: $KDIR/histogram.metal
grid: [$n]
threadgroup: [256]
args:
  keys: {type: uint, count: $n, init: {range: [0, 1]}}
  bins: {type: uint, count: 256, dump: bins.bin}
EOF
        printf '%s\n' "$KDIR/histogram.cl" histogram "$n 1 1" "256 1 1" \
            "<size=$((4 * n)) uint range=0:1:$((n - 1))>" "<size=1024 uint fill=0 dump>" > "$s"
        CMP="bins:uint" ;;
    esac
}

# median of the first field of files given as arguments
median() { for f in "$@"; do cut -d' ' -f1 "$f"; done | sort -g | awk '{v[NR]=$1} END {
    if (NR == 0) print "-"; else if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2 }'; }
maxfield() { for f in "$@"; do cut -d' ' -f"$1" "$f" 2>/dev/null; done; }

# one_rep TAG R CMD...: run R of CMD in the current directory, timed into TAG.R.t; its
# stdout and stderr in TAG.out / TAG.err. Fails if the run fails.
one_rep() {
    local tag=$1 r=$2; shift 2
    "$TOOLS" time "$tag.$r.t" "$@" > "$tag.out" 2> "$tag.err"
    [ "$(cut -d' ' -f3 "$tag.$r.t")" = 0 ]
}

fmt_s() { awk -v v="$1" 'BEGIN { if (v == "-" || v == "" || v == "skipped") print v == "" ? "-" : v;
    else if (v < 0.1) printf "%.1f ms", v * 1000; else printf "%.2f s", v }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a !~ /^[0-9.e+-]+$/ || b !~ /^[0-9.e+-]+$/ || a == "-" || b == "-" || b == 0) print "-";
    else if (a / b >= 10) printf "%.0fx", a / b; else printf "%.1fx", a / b }'; }
mips() { awk -v l="$1" -v t="$2" 'BEGIN { if (l == "" || t == "-" || t == 0) print "-";
    else printf "%.0f", l / t / 1e6 }'; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "lockstep $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null) $($LOCKSTEP --version 2>/dev/null | head -1)," \
     "$(dpkg-query -W -f='oclgrind ${Version}, pocl ${Version}' oclgrind 2>/dev/null | sed "s/pocl .*/pocl $(dpkg-query -W -f='${Version}' pocl-opencl-icd)/")"
echo "REPS=$REPS (lockstep, PoCL) OCL_REPS=$OCL_REPS (Oclgrind, sizes up to 2^$OCL_MAX) ITERS=$ITERS"
echo
echo "| kernel | threads | lockstep functional | lockstep timed | lockstep timed+checks | Oclgrind | Oclgrind --data-races | PoCL kernel | races / checks | functional / PoCL | Mlane-instr/s func / timed / checks | peak RSS (checks) | outputs |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"

status=0
for k in $KERNELS; do
    for lg in $SIZES; do
        d=$OUT/$k.$lg
        rm -rf "$d" && mkdir -p "$d" && cd "$d" || exit 1
        gen "$k" "$lg" "$d"
        notes=""
        mkdir -p func timed check pocl
        ocl=false
        [ "$lg" -le "$OCL_MAX" ] && ocl=true
        # Rounds: each runs every lockstep mode once, then (while it has repetitions left)
        # Oclgrind without and with --data-races, so that the tools whose times are divided
        # share the machine's slow and fast phases instead of each getting its own.
        rounds=$REPS
        $ocl && [ "$OCL_REPS" -gt "$rounds" ] && rounds=$OCL_REPS
        rm -f func/r.*.t timed/r.*.t check/r.*.t ocl.*.t ocl_races.*.t
        for r in $(seq 1 "$rounds"); do
            if [ "$r" -le "$REPS" ]; then
                one_rep func/r "$r" "$LOCKSTEP" run "$d/$k.yaml" --mode functional --quiet || notes="$notes lockstep-functional-failed"
                mv -f "$d"/*.bin func/ 2>/dev/null
                one_rep timed/r "$r" "$LOCKSTEP" run "$d/$k.yaml" --mode timed --quiet --stats=json || notes="$notes lockstep-timed-failed"
                mv -f "$d"/*.bin timed/ 2>/dev/null
                one_rep check/r "$r" "$LOCKSTEP" run "$d/$k.yaml" --mode timed --check --quiet || notes="$notes checks-found-something"
                mv -f "$d"/*.bin check/ 2>/dev/null
            fi
            if $ocl && [ "$r" -le "$OCL_REPS" ]; then
                one_rep ocl "$r" oclgrind-kernel "$d/$k.sim" || notes="$notes oclgrind-failed"
                one_rep ocl_races "$r" oclgrind-kernel --data-races "$d/$k.sim" || notes="$notes oclgrind-races-failed"
            fi
        done
        notes=$(echo "$notes" | tr ' ' '\n' | awk 'NF && !seen[$0]++' | tr '\n' ' ' | sed 's/ $//; s/^./ &/')
        lanes=$(grep -o '"lane_instructions":[0-9]*' timed/r.out | cut -d: -f2)
        tf=$(median func/r.*.t); tt=$(median timed/r.*.t); tc=$(median check/r.*.t)
        rss=$(maxfield 2 check/r.*.t func/r.*.t | sort -n | tail -1)

        "$TOOLS" time pocl/t "$OUT/pocl_host" "$d/$k.sim" --reps "$REPS" --out pocl > pocl/out 2> pocl/err \
            || notes="$notes pocl-failed"
        tp=$(awk '/^kernel_ms/ { print $2 / 1000 }' pocl/out); tp=${tp:--}

        to=- tr=-
        if $ocl; then
            [ -s ocl_races.err ] && notes="$notes oclgrind-reported:$(grep -m1 -v '^$' ocl_races.err | tr ' ' _)"
            to=$(median ocl.*.t); tr=$(median ocl_races.*.t)
        fi

        # outputs: lockstep functional is the reference; every other tool must match it
        same=same
        for c in $CMP; do
            name=${c%%:*} type=${c#*:}
            ref=func/$name.bin
            [ -f "$ref" ] || { same="no-output"; continue; }
            for m in timed check; do
                "$TOOLS" cmp "$type" 0 0 "$ref" "$m/$name.bin" > cmp.$m 2>&1 || same="DIFF(lockstep-$m: $(cat cmp.$m))"
            done
            "$TOOLS" cmp "$type" 1e-5 1e-6 "$ref" "pocl/$name.bin" > cmp.pocl 2>&1 || same="DIFF(pocl: $(cat cmp.pocl))"
            if [ "$to" != - ]; then
                for o in ocl ocl_races; do
                    "$TOOLS" cmp "$type" 1e-5 1e-6 "$ref" "oclgrind:$o.out:$name" > cmp.$o 2>&1 || same="DIFF($o: $(cat cmp.$o))"
                done
            fi
        done
        [ "$same" = same ] || status=1
        [ -n "$notes" ] && same="$same;$notes"
        [ "$to" = - ] && to=skipped tr=skipped
        echo "| $k | 2^$lg | $(fmt_s "$tf") | $(fmt_s "$tt") | $(fmt_s "$tc") | $(fmt_s "$to") | $(fmt_s "$tr") | $(fmt_s "$tp") | $(ratio "$tr" "$tc") | $(ratio "$tf" "$tp") | $(mips "$lanes" "$tf") / $(mips "$lanes" "$tt") / $(mips "$lanes" "$tc") | $((rss / 1024)) MB | $same |"
    done
done
echo
echo "Times are medians of whole-process wall times (compile, set-up, run, dumps) for lockstep"
echo "and Oclgrind; PoCL's is the kernel alone (enqueue to clFinish, after a warm-up launch)."
echo "races / checks = Oclgrind --data-races over lockstep timed+checks (target >= 100x at"
echo "2^18 threads and up); functional / PoCL = lockstep functional over PoCL (target <= 20x"
echo "for compute). Lane-instructions from lockstep's --stats=json."

# --- detection: the bug set in both tools --------------------------------------------------
echo
echo "| kernel | bug? | lockstep check | Oclgrind --data-races --uninitialized | Oclgrind's first message |"
echo "|---|---|---|---|---|"
BUGS=$ROOT/kernels/bugs
OB=$ROOT/bench/compare/bugs
for y in "$BUGS"/*.yaml; do
    b=$(basename "$y" .yaml)
    case $b in ok_*) want=clean ;; *) want=bug ;; esac
    "$LOCKSTEP" check "$y" --quiet > "$OUT/bug.$b.ls" 2>&1
    rc=$?
    if [ $rc -eq 1 ]; then ls_r=found; elif [ $rc -eq 0 ]; then ls_r=clean; else ls_r="error($rc)"; fi
    if [ -f "$OB/$b.sim" ]; then
        (cd "$OB" && oclgrind-kernel --data-races --uninitialized "$b.sim") > /dev/null 2> "$OUT/bug.$b.ocl"
        if grep -q -E -i 'race|invalid|divergence|uninitiali|error|failure' "$OUT/bug.$b.ocl"; then
            og_r=found; msg=$(grep -m1 -v '^$' "$OUT/bug.$b.ocl")
        else
            og_r=clean; msg=""
        fi
    else
        og_r="n/a"; msg="not expressible in OpenCL 1.2 (see bench/compare/bugs/README.md)"
    fi
    label() { case "$want:$1" in bug:found) echo "found" ;; bug:clean) echo "**missed**" ;;
        clean:found) echo "**false alarm**" ;; clean:clean) echo "clean" ;; *) echo "$1" ;; esac; }
    echo "| $b | $want | $(label "$ls_r") | $(label "$og_r") | $msg |"
done
exit $status
