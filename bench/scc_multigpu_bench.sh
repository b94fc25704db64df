#!/bin/sh
# seqgpu scc -b cuda on one device and on two (--device 0,1: the k-mers
# counted on both, by hash part, then gathered on the first), same reads as
# bench/scc_build_bench.sh (READS x 150 bp at 30x of a synthetic genome,
# 0.5% errors), the repeats and the solid (-c 5) cases; whole runs, median of
# REPEATS; the two-device outputs must equal the one device's (and, with
# CPU=1, the cpu backend's), byte for byte.
#
# Environment: READS (10000000), THREADS (nproc), BENCH_DIR (bench/data),
# REPEATS (3), DEVICES (0,1), CPU (1)
set -eu
cd "$(dirname "$0")/.."
READS=${READS:-10000000}
THREADS=${THREADS:-$(nproc)}
BENCH_DIR=${BENCH_DIR:-bench/data}
SEQGPU=${SEQGPU:-bin/seqgpu}
REPEATS=${REPEATS:-3}
DEVICES=${DEVICES:-0,1}
CPU=${CPU:-1}
PY=python3
mkdir -p "$BENCH_DIR"
d=$(cd "$BENCH_DIR" && pwd)
BENCH_DIR=$d
. bench/lib.sh

genome=$((READS * 150 / 30))
[ -s "$d/build_genome_$genome.fa" ] || build/bench/gen_genome "$genome" 5 > "$d/build_genome_$genome.fa"
reads=$d/build_reads_$READS.fq
[ -s "$reads" ] || build/bench/sim_reads "$d/build_genome_$genome.fa" 30 150 0.005 5 > "$reads"
cat "$reads" > /dev/null

echo "# scc on one and on several GPUs: $(uname -n), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1) x$(nvidia-smi -L 2>/dev/null | grep -c '^GPU'), $THREADS threads; $("$SEQGPU" --version); reads $(du -m "$reads" | cut -f1) MB; median of $REPEATS"
echo
printf '| case | devices | time (s) | peak RSS (MB) | counting (s) | peak device MB (first) | vs one device |\n|---|---|---|---|---|---|---|\n'
# count stage seconds and the first device's peak memory
stage() { $PY -c "import json,sys; s=json.load(open(sys.argv[1])); print('%.2f %d' % (s['stage_seconds']['count'], s['graph_cuda']['peak_device_bytes'] >> 20))" "$1"; }
for case in repeats solid; do
    opt=""; [ $case = solid ] && opt="-c 5"
    if [ "$CPU" = 1 ]; then
        set -- $(run mgpu_cpu_$case "$SEQGPU" scc -b cpu -t "$THREADS" $opt -p "$d/mgpu_cpu_$case" "$reads")
        printf '| %s | cpu | %s | %s | | | |\n' "$case" "$1" "$2"
    fi
    for devs in 0 "$DEVICES"; do
        tag=$(echo "$devs" | tr ',' '_')
        set -- $(run mgpu_${tag}_$case "$SEQGPU" scc -b cuda --device "$devs" -t "$THREADS" $opt --stats "$d/mgpu_${tag}_$case.json" -p "$d/mgpu_${tag}_$case" "$reads")
        t=$1 m=$2
        [ "$devs" = 0 ] && t1=$t
        set -- $(stage "$d/mgpu_${tag}_$case.json")
        printf '| %s | %s | %s | %s | %s | %s | %sx |\n' "$case" "$devs" "$t" "$m" "$1" "$2" "$(ratio "$t1" "$t")"
    done
    two=$(echo "$DEVICES" | tr ',' '_')
    for f in repeats.tsv gfa units.fa components.tsv spectrum.svg; do
        cmp -s "$d/mgpu_0_$case.$f" "$d/mgpu_${two}_$case.$f" || echo "# WARNING: --device $DEVICES and one device: $f differs ($case)"
        [ "$CPU" != 1 ] || cmp -s "$d/mgpu_cpu_$case.$f" "$d/mgpu_${two}_$case.$f" || echo "# WARNING: --device $DEVICES and cpu: $f differs ($case)"
    done
done
