#!/bin/sh
# The planner and the cpu k-mer counter checked on a GPU host in one run,
# sized for about 8 minutes on one H200 with 16 cores (data made first):
#   find: every case of bench/gpu_bench.sh on cpu, cuda and auto;
#   scc -g overlap: bench/overlap_bench.sh on pbsim CLR reads of 90% mean
#     accuracy (0.4 Gb, 20x of a 20 Mb genome), cpu, cuda and auto;
#   SCC: bench/scc_gpu_bench.sh's graphs, cpu, cuda and auto;
#   scc's de Bruijn graph: bench/scc_bench.sh on 10 M reads (3 GB), cpu,
#     cuda and auto beside kmc and bcalm, and --max-memory at bcalm's memory.
# Each bench ends with a table of auto against every backend, case by case
# ("auto / fastest"); the planner's constants (src/registry.c) and its tests
# of recorded cases (tests/unit_plan.c) are refitted from them.
#   sh bench/round_bench.sh        or, with the build and the GPU suites:
#   BENCHES=round TESTS="..." UNITS="..." sh bench/gpu_session.sh
# Environment: PARTS (which of "find overlap scc_gpu scc" to run), THREADS,
# BENCH_DIR, SEQGPU, as the benches take them.
set -eu
cd "$(dirname "$0")/.."
PARTS=${PARTS:-find overlap scc_gpu scc}
t0=$(date +%s)
stamp() { echo; echo "## $1 (at +$(( $(date +%s) - t0 )) s)"; echo; }
for p in $PARTS; do
    case $p in
    find)
        stamp "find: bench/gpu_bench.sh, 3.1 Gb"
        SIZE=3.1G REPEATS=1 BACKENDS="cpu cuda auto" sh bench/gpu_bench.sh ;;
    overlap)
        stamp "scc -g overlap: bench/overlap_bench.sh, 0.4 Gb of 90%-accuracy CLR reads"
        GENOME=20000000 ACCURACY=0.90 MINIMAP2=0 CHECK=0 sh bench/overlap_bench.sh ;;
    scc_gpu)
        stamp "SCC: bench/scc_gpu_bench.sh"
        SWEEP= KT_SWEEP= sh bench/scc_gpu_bench.sh ;;
    scc)
        stamp "scc's de Bruijn graph: bench/scc_bench.sh, 10 M reads"
        GENOME=50M NODES=0 sh bench/scc_bench.sh ;;
    *) echo "round_bench: unknown part '$p' (find overlap scc_gpu scc)" >&2; exit 1 ;;
    esac
done
stamp done
