#!/bin/sh
# One call on a GPU machine: build, run the GPU suites, then the benchmarks
# named in BENCHES; every log goes to $LOGS (default bench/results/last).
#
#   BENCHES="offtarget gpu" TESTS="tests/find_mismatch.bats tests/find_gpu.bats" sh bench/gpu_session.sh
# Environment: TESTS (bats files; "" for none), UNITS (unit test binaries to
# run, e.g. "unit_kmer_gpu"), BENCHES (offtarget, gpu, scc_gpu, overlap), and each
# bench script's own variables.
set -u
cd "$(dirname "$0")/.."
LOGS=${LOGS:-bench/results/last}
mkdir -p "$LOGS"
t0=$(date +%s)
stamp() { echo "## $1 at +$(( $(date +%s) - t0 )) s"; }
stamp build
# the Makefile takes nvcc only from PATH (or NVCC, CUDA_HOME): the toolkit's usual place, said here
command -v nvcc >/dev/null 2>&1 || { [ -x /usr/local/cuda/bin/nvcc ] && export PATH="$PATH:/usr/local/cuda/bin"; }
make -j"$(nproc)" all units > "$LOGS/build.log" 2>&1 || { tail -30 "$LOGS/build.log"; exit 1; }
make -j"$(nproc)" build/bench/gen_genome build/bench/sim_reads build/bench/gen_graph build/bench/cuda_start >> "$LOGS/build.log" 2>&1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
for u in ${UNITS:-}; do
    stamp "$u"
    build/tests/$u > "$LOGS/$u.log" 2>&1; echo "$u: exit $?, $(tail -1 "$LOGS/$u.log")"
done
for t in ${TESTS:-}; do
    stamp "$t"
    bats --tap "$t" > "$LOGS/$(basename "$t").tap" 2>&1
    echo "$t: exit $?, $(grep -c '^ok' "$LOGS/$(basename "$t").tap") ok ($(grep -c '# skip' "$LOGS/$(basename "$t").tap") skipped), $(grep -c '^not ok' "$LOGS/$(basename "$t").tap") not ok"
    grep -A6 '^not ok' "$LOGS/$(basename "$t").tap" | head -40
done
for b in ${BENCHES:-}; do
    stamp "bench $b"
    sh bench/${b}_bench.sh > "$LOGS/$b.md" 2> "$LOGS/$b.err"; echo "bench $b: exit $?"
    cat "$LOGS/$b.md"; tail -5 "$LOGS/$b.err"
done
stamp done
