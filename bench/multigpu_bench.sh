#!/bin/sh
# seqgpu on one GPU and on several, side by side in one run (the targets of
# docs/gpu.md, Several GPUs): off-target search of a 3.1 Gb genome for each
# case of CASES (the guides and Cas-OFFinder input of offtarget_bench.sh)
# with --device 0 and with each list of DEVICES, then scc on READS reads the
# same way (scc_multigpu_bench.sh). Each run: the median time, the peak RSS
# (GNU time), the devices it used, its ratio to one device and the bound
# Amdahl's law puts on that ratio from the one-device run's device seconds
# (--stats: kernels and copies summed over streams, so a generous bound).
# Every output is compared with the one device's byte for byte (cmp): a
# difference is a WARNING and exit status 1; an output equal to it is
# removed (the same bytes). The CUDA start is timed first: the driver, then
# a context per device, one after the other and all at once.
#
#   make all build/bench/gen_genome build/bench/sim_reads build/bench/cuda_start
#   sh bench/multigpu_bench.sh     (two or more GPUs; with fewer it says so and exits 1)
# Environment:
#   SIZE (3.1G)          genome (bench/gen_genome, seed 7: offtarget_bench.sh's file)
#   CASES ("1000:6:0/0 1000:4:1/1 20000:4:0/0")
#                        GUIDES:MISMATCHES:DNA/RNA bulges; 1000:6:1/1 writes about
#                        360 M rows (27 GB) a run on 3.1 Gb (docs/gpu.md)
#   DEVICES ("0,1 all")  the lists run beside --device 0; one this seqgpu does not take is skipped, said
#   SCORE ("")           --score of the bulge runs, e.g. cfd,mit
#   SCC (1)              0: no scc part; READS (10000000) its reads, SCC_CPU (0) 1: its cpu runs too
#   THREADS (nproc), REPEATS (3), BENCH_DIR (bench/data), SEQGPU (bin/seqgpu)
set -eu
cd "$(dirname "$0")/.."
SIZE=${SIZE:-3.1G}
CASES=${CASES:-1000:6:0/0 1000:4:1/1 20000:4:0/0}
DEVICES=${DEVICES:-0,1 all}
SCORE=${SCORE:-}
SCC=${SCC:-1}
READS=${READS:-10000000}
SCC_CPU=${SCC_CPU:-0}
THREADS=${THREADS:-$(nproc)}
REPEATS=${REPEATS:-3}
BENCH_DIR=${BENCH_DIR:-bench/data}
SEQGPU=${SEQGPU:-bin/seqgpu}
. bench/lib.sh
need_gpus 2
for g in gen_genome sim_reads; do
    [ -x build/bench/$g ] || { echo "multigpu_bench.sh: no build/bench/$g: make build/bench/$g first" >&2; exit 1; }
done
mkdir -p "$BENCH_DIR/offtarget_$SIZE"
for c in $CASES; do
    case $c in *:*:*/*) ;; *) echo "multigpu_bench.sh: case '$c' is not GUIDES:MISMATCHES:DB/RB (e.g. 1000:6:0/0)" >&2; exit 1 ;; esac
done
genome=$BENCH_DIR/offtarget_$SIZE/genome.fa
[ -s "$genome" ] || { build/bench/gen_genome "$SIZE" 7 > "$genome.part" && mv "$genome.part" "$genome"; }
cat "$genome" > /dev/null # into the page cache

echo "# seqgpu on one GPU and on several: $(uname -n), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x$(gpus)," \
    "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) CPUs, $THREADS threads; $("$SEQGPU" --version)"
echo "# genome $SIZE ($(du -m "$genome" | cut -f1) MB, page cache), random 20-nt guides + NGG, median of $REPEATS"
lscpu | grep '^NUMA' | sed 's/^/# /'
echo "# nvidia-smi topo -m:"
nvidia-smi topo -m 2>&1 | sed 's/^/#     /'
if [ -x build/bench/cuda_start ]; then
    first=$(echo "${CUDA_VISIBLE_DEVICES:-0}" | cut -d, -f1)
    echo "# CUDA start, one device visible: $(CUDA_VISIBLE_DEVICES=$first build/bench/cuda_start serial 2>&1 || true)"
    for mode in serial parallel; do echo "# CUDA start, all visible: $(build/bench/cuda_start $mode 2>&1 || true)"; done
fi

# devices used, device seconds (kernels and copies, summed over streams), the
# in-process wall and the process's CPU seconds of a find --stats file
find_stats() {
    python3 -c "import json, sys; s = json.load(open(sys.argv[1])); d = s.get('device') or {}
print('%d %.3f %.3f %.2f' % (d.get('devices', 0), sum(d.get(k, 0) for k in ('kernel_seconds', 'h2d_seconds', 'd2h_seconds')),
      s['wall_seconds'], s['cpu_seconds']))" "$1"
}
fail=0
echo
printf '| guides | mismatches | bulges | --device | devices used | time (s) | peak RSS (MB) | rows | in process (s) | CPU (s) | device (s) | vs one device | Amdahl bound |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for c in $CASES; do
    n=${c%%:*} rest=${c#*:}
    m=${rest%%:*} b=${rest#*:}
    db=${b%/*} rb=${b#*/}
    case=g${n}_m${m}_b$db$rb
    input=$BENCH_DIR/casoff_$case.txt
    casoff_input "$input" "$BENCH_DIR/offtarget_$SIZE" "$n" "$m" "$db" "$rb"
    if [ "$db$rb" = 00 ]; then fmt=casoffinder score=""; else fmt=casoffinder3 score=$SCORE; fi
    ref="" t1=- p1=-
    for devs in 0 $DEVICES; do
        if ! device_list_ok "$devs"; then
            echo "| $n | $m | $b | $devs | not taken by this seqgpu: skipped | | | | | | | | |"
            continue
        fi
        tag=mgpu_${case}_$(echo "$devs" | tr ',' '_')
        rm -f "$BENCH_DIR/$tag".* # no file of an earlier run is taken for this one's
        set -- $(run "$tag" "$SEQGPU" find -q -b cuda --device "$devs" -t "$THREADS" --stats "$BENCH_DIR/$tag.json" \
            --cas-offinder "$input" -F $fmt ${score:+--score $score})
        t=$1 rss=$2
        if [ -e "$BENCH_DIR/$tag.failed" ] || [ ! -s "$BENCH_DIR/$tag.json" ]; then
            echo "| $n | $m | $b | $devs | failed: $(tail -1 "$BENCH_DIR/$tag.err") | | | | | | | | |"
            fail=1
            continue
        fi
        set -- $(find_stats "$BENCH_DIR/$tag.json")
        [ "$devs" != 0 ] || { t1=$t p1=$2 ref=$BENCH_DIR/$tag.out; }
        printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %sx | %s |\n' "$n" "$m" "$b" "$devs" "$1" "$t" "$rss" \
            "$(grep -vc '^#' "$BENCH_DIR/$tag.out" || true)" "$3" "$4" "$2" "$(ratio "$t1" "$t" 2)" \
            "$([ "$devs" = 0 ] && echo - || amdahl "$t1" "$p1" "$1")"
        [ "$devs" != 0 ] || continue
        if [ -n "$ref" ] && cmp -s "$ref" "$BENCH_DIR/$tag.out"; then
            rm -f "$BENCH_DIR/$tag.out"
        else
            echo "# WARNING: --device $devs and --device 0 outputs differ ($case)"
            fail=1
        fi
    done
done
echo
echo "# CPU (s): the process's, waiting threads that spin included; device (s): the run's kernels and copies, summed over"
echo "# its streams and devices; Amdahl bound: T1 / (T1 - P + P / N), T1 and P the one device's time and device seconds,"
echo "# N the devices used: the most N devices can gain"
if [ "$SCC" = 1 ]; then
    echo
    REPEATS=$REPEATS THREADS=$THREADS BENCH_DIR=$BENCH_DIR SEQGPU=$SEQGPU DEVICES=$DEVICES READS=$READS CPU=$SCC_CPU \
        sh bench/scc_multigpu_bench.sh || fail=1
fi
exit $fail
