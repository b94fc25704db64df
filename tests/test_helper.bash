# Shared setup for the bats suites.
bats_load_library bats-support
bats_load_library bats-assert

ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
SEQGPU=${SEQGPU:-$ROOT/bin/seqgpu}
# Debian's python3 (with python3-scipy) rather than another on the PATH
if [ -x /usr/bin/python3 ]; then python3() { /usr/bin/python3 "$@"; }; fi
REF="python3 $ROOT/tests/reference.py"
LAMBDA=$ROOT/examples/lambda_virus.fa.gz

seqgpu() { "$SEQGPU" "$@"; }

setup() {
    T=$BATS_TEST_TMPDIR
}

# true when this machine can run the CUDA backend
have_cuda() {
    printf '>a\nACGT\n' > "$BATS_TEST_TMPDIR/probe.fa"
    "$SEQGPU" find -q -b cuda -m ACGT "$BATS_TEST_TMPDIR/probe.fa" >/dev/null 2>&1
}

# true when an OpenCL platform with a device is there (PoCL in CI)
have_opencl() {
    printf '>a\nACGT\n' > "$BATS_TEST_TMPDIR/probe.fa"
    "$SEQGPU" find -q -b opencl -m ACGT "$BATS_TEST_TMPDIR/probe.fa" >/dev/null 2>&1
}

# same_as_cpu BACKEND MOTIFS INPUT [options...]: BACKEND's output equals the cpu backend's
same_as_cpu() {
    local be=$1 motifs=$2 input=$3
    shift 3
    seqgpu find -q -b cpu -f "$motifs" "$@" "$input" > "$T/cpu" || fail "cpu run failed"
    seqgpu find -q -b "$be" -f "$motifs" "$@" "$input" > "$T/$be" || fail "$be run failed: $*"
    cmp -s "$T/cpu" "$T/$be" || { diff "$T/cpu" "$T/$be" | head; fail "$be differs from cpu: $*"; }
}

# options_documented CMD: every long option of 'seqgpu CMD -h' is in man/seqgpu-CMD.1 and README.md
options_documented() {
    for opt in $(seqgpu "$1" -h | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
        grep -q -- "$(echo "$opt" | sed 's/-/\\\\-/g')" "$ROOT/man/seqgpu-$1.1" || fail "$opt missing from man/seqgpu-$1.1"
        grep -q -- "$opt" "$ROOT/README.md" || fail "$opt missing from README.md"
    done
}
