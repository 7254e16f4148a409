#!/usr/bin/env bash
# Runs every cmocka test binary given, then prints one closing line "N passed, N failed"
# over all of them. Exits non-zero when any test failed or any binary crashed.
set -u
passed=0; failed=0; broken=()
for bin in "$@"; do
    echo "== ${bin#*/tests/}"
    out=$("$bin" 2>&1); rc=$?
    printf '%s\n' "$out"
    p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n1)
    f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n1)
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
    if [ $rc -ne 0 ] && [ -z "${f}" ]; then broken+=("$bin (exit $rc)"); failed=$((failed + 1)); fi
done
for b in "${broken[@]+"${broken[@]}"}"; do echo "crashed or failed to run: $b"; done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
