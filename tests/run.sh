#!/bin/sh
# Run the C unit tests and the bats suites:  sh tests/run.sh [NAME...]
# NAME picks suites (unit_motif, find_gpu, ...); the default is all of them.
#
# Every test counts as passed, failed or skipped, and the last line is
# "N passed, N failed, N skipped". A run never passes by testing nothing:
# a unit binary that was not built or printed no summary, a missing bats,
# and a suite that dies before reporting every test of its plan are
# failures. The exit status is non-zero when anything failed.
#
# Environment: BUILD (where the unit tests are built), SEQGPU (the binary
# under test), SEQGPU_REQUIRE (backends that must work, e.g. "cuda,opencl"),
# SEQGPU_BATS_FILTER (a bats --filter), SEQGPU_TALLY (a file to append
# "passed failed skipped" to).
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
export BUILD
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 skip=0
: > "$tmp/failed"

# failed SUITE WHAT: one failure that no test reported itself
failed() {
    echo "not ok - $1: $2"
    echo "$1: $2" >> "$tmp/failed"
    fail=$((fail + 1))
}

# a misspelt backend in SEQGPU_REQUIRE would require nothing
for b in $(echo "${SEQGPU_REQUIRE:-}" | tr ',' ' '); do
    case $b in cuda | opencl) ;; *) failed SEQGPU_REQUIRE "'$b' is not a backend (cuda, opencl)" ;; esac
done

# the suites asked for
units="" suites=""
for src in tests/unit_*.c; do units="$units $(basename "$src" .c)"; done
for f in tests/*.bats; do suites="$suites $(basename "$f" .bats)"; done
if [ $# -gt 0 ]; then
    want=" $* " units_all=$units suites_all=$suites units="" suites=""
    for u in $units_all; do case $want in *" $u "*) units="$units $u" ;; esac; done
    for s in $suites_all; do case $want in *" $s "*) suites="$suites $s" ;; esac; done
    for name in "$@"; do
        case " $units $suites " in *" $name "*) ;; *) failed "$name" "no such test suite" ;; esac
    done
fi

for u in $units; do
    t=$BUILD/tests/$u
    echo "# $t"
    if [ ! -x "$t" ]; then
        failed "$u" "$t was not built (make units)"
        continue
    fi
    { "$t" 2>&1; echo $? > "$tmp/status"; } | tee "$tmp/out"
    status=$(cat "$tmp/status")
    sed -n "s/^not ok - \([^ ]*\).*/$u: \1/p" "$tmp/out" >> "$tmp/failed"
    summary=$(tail -n 1 "$tmp/out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p')
    if [ -z "$summary" ]; then
        failed "$u" "crashed or printed no summary (exit $status)"
        continue
    fi
    set -- $summary
    pass=$((pass + $1)) fail=$((fail + $2)) skip=$((skip + $3))
    if [ "$status" -ne 0 ] && [ "$2" -eq 0 ]; then failed "$u" "exit status $status with no failed test"; fi
done

if [ -n "$suites" ]; then
    if ! command -v bats >/dev/null 2>&1; then
        failed bats "bats is not installed (make test-deps installs it)"
        suites=""
    elif [ ! -x "${SEQGPU:-bin/seqgpu}" ]; then
        failed bats "the binary under test, ${SEQGPU:-bin/seqgpu}, is missing (make)"
        suites=""
    fi
fi
for s in $suites; do
    echo "# tests/$s.bats"
    { bats --tap ${SEQGPU_BATS_FILTER:+--filter "$SEQGPU_BATS_FILTER"} "tests/$s.bats" 2>&1; echo $? > "$tmp/status"; } |
        tee "$tmp/tap"
    status=$(cat "$tmp/status")
    plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$tmp/tap" | head -n 1)
    ok=$(grep -c '^ok ' "$tmp/tap")
    skipped=$(grep -c '^ok [0-9]* .* # skip' "$tmp/tap")
    bad=$(grep -c '^not ok ' "$tmp/tap")
    sed -n "s/^not ok [0-9]* \(.*\)/$s: \1/p" "$tmp/tap" >> "$tmp/failed"
    pass=$((pass + ok - skipped)) fail=$((fail + bad)) skip=$((skip + skipped))
    if [ -z "$plan" ]; then
        failed "$s" "bats died before its plan (exit $status)"
    elif [ $((ok + bad)) -ne "$plan" ]; then
        failed "$s" "bats reported $((ok + bad)) of the $plan tests of its plan (exit $status)"
    elif [ "$status" -ne 0 ] && [ "$bad" -eq 0 ]; then
        failed "$s" "bats exited $status with no failed test"
    fi
done

if [ $((pass + fail + skip)) -eq 0 ]; then failed run.sh "no test ran"; fi
if [ -s "$tmp/failed" ]; then
    echo "# failed:"
    sed 's/^/#   /' "$tmp/failed"
fi
echo "$pass passed, $fail failed, $skip skipped"
if [ -n "${SEQGPU_TALLY:-}" ]; then echo "$pass $fail $skip" >> "$SEQGPU_TALLY"; fi
[ "$fail" -eq 0 ]
