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
