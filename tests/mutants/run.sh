#!/bin/sh
# make mutants: the mutation check. Each tests/mutants/*.patch plants one
# small defect; it is applied to a copy of the tree, built as CI builds it
# (no CUDA), and the suites CI runs (make check, with SEQGPU_REQUIRE=opencl)
# run on it. A mutant is killed when a test fails, and the tests that killed
# it are listed. The exit status is non-zero when a mutant survives, or when
# a patch no longer applies or builds: regenerate it against the moved code.
#
#   sh tests/mutants/run.sh [NAME...]     (default: every patch)
cd "$(dirname "$0")/../.." || exit 2
export SEQGPU_REQUIRE="${SEQGPU_REQUIRE-opencl}"
unset BUILD BIN SEQGPU TESTS SEQGPU_TALLY
work=$PWD/build/mutants
rm -rf "$work"
mkdir -p "$work/base"

# the tree as it stands (tracked and new files), built once; each mutant
# starts from a copy with the objects' times kept, so only what its patch
# touches is rebuilt
git ls-files -co --exclude-standard | tar -cf - -T - | tar -xf - -C "$work/base"
echo "# building the unmutated tree in $work/base"
if ! make -C "$work/base" --no-print-directory -j2 CUDA=0 all units > "$work/base.log" 2>&1; then
    tail -n 20 "$work/base.log"
    echo "the unmutated tree does not build"
    exit 2
fi

if [ $# -gt 0 ]; then
    patches=""
    for n in "$@"; do patches="$patches tests/mutants/$n.patch"; done
else
    patches=$(ls tests/mutants/*.patch)
fi
killed=0 survived=0 broken=0
for p in $patches; do
    name=$(basename "$p" .patch)
    m=$work/$name
    rm -rf "$m"
    cp -a "$work/base" "$m"
    # no fuzz: a patch whose context moved must be regenerated, not guessed into place
    if ! patch -d "$m" -p1 -s -F0 --no-backup-if-mismatch < "$p" > "$work/$name.log" 2>&1; then
        echo "BROKEN    $name: the patch no longer applies ($work/$name.log); regenerate it"
        broken=$((broken + 1))
        continue
    fi
    # the suites, once; a build failure shows as no test having run
    make -C "$m" --no-print-directory -j2 CUDA=0 check >> "$work/$name.log" 2>&1
    if ! grep -q '^[0-9]* passed, [0-9]* failed, [0-9]* skipped$' "$work/$name.log"; then
        echo "BROKEN    $name: it does not build or the tests did not run ($work/$name.log)"
        broken=$((broken + 1))
        continue
    fi
    # the runner lists the failed tests after "# failed:"
    by=$(sed -n '/^# failed:$/,$ s/^#   //p' "$work/$name.log")
    if [ -n "$by" ]; then
        echo "killed    $name, by:"
        echo "$by" | sed 's/^/              /'
        killed=$((killed + 1))
        rm -rf "$m"
    else
        echo "SURVIVED  $name ($work/$name.log)"
        survived=$((survived + 1))
    fi
done
echo "$((killed + survived + broken)) mutants: $killed killed, $survived survived, $broken broken"
[ "$survived" -eq 0 ] && [ "$broken" -eq 0 ]
