#!/bin/sh
# Run the C unit tests and the bats suites; the last line is "N passed, N failed".
cd "$(dirname "$0")/.." || exit 2
pass=0 fail=0 skip=0
BUILD=${BUILD:-build}
for t in "$BUILD"/tests/unit_*; do
    [ -x "$t" ] || continue
    echo "# $t"
    out=$("$t" 2>&1)
    status=$?
    echo "$out"
    last=$(echo "$out" | tail -n 1)
    p=$(echo "$last" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    f=$(echo "$last" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    if [ -z "$p" ]; then p=0 f=1; echo "not ok - $t crashed or printed no summary (exit $status)"; fi
    [ "$status" -ne 0 ] && [ "$f" -eq 0 ] && f=1
    pass=$((pass + p)) fail=$((fail + f))
done
echo "# bats"
tap=$(mktemp)
bats --tap ${SEQGPU_BATS_FILTER:+--filter "$SEQGPU_BATS_FILTER"} tests/*.bats | tee "$tap"
bp=$(grep -c '^ok ' "$tap")
bs=$(grep -c '^ok .*# skip' "$tap")
bf=$(grep -c '^not ok ' "$tap")
rm -f "$tap"
pass=$((pass + bp - bs)) fail=$((fail + bf)) skip=$bs
[ "$skip" -gt 0 ] && echo "# $skip skipped (GPU tests without a GPU, or missing tools)"
echo "$pass passed, $fail failed"
[ -n "${SEQGPU_TALLY:-}" ] && echo "$pass $fail" >> "$SEQGPU_TALLY"
[ "$fail" -eq 0 ]
