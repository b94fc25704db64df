#!/bin/sh
# seqgpu scc -b cuda on one device and on several (--device 0,1: the k-mers
# counted on each, by hash part, then gathered on the first), same reads as
# bench/scc_build_bench.sh (READS x 150 bp at 30x of a synthetic genome,
# 0.5% errors), the repeats and the solid (-c 5) cases; whole runs, median of
# REPEATS, with the ratio to one device and the bound Amdahl's law puts on it
# from the one device's counting seconds on the device (--stats). The
# several-device outputs must equal the one device's (and, with CPU=1, the
# cpu backend's), byte for byte: a difference is a WARNING and exit status 1.
# Needs two or more GPUs: with fewer it says so and exits 1.
#
# Environment: READS (10000000), THREADS (nproc), BENCH_DIR (bench/data),
# REPEATS (3), DEVICES ("0,1 all": the lists run beside --device 0; one this
# seqgpu does not take is skipped, said), CPU (1)
set -eu
cd "$(dirname "$0")/.."
READS=${READS:-10000000}
THREADS=${THREADS:-$(nproc)}
BENCH_DIR=${BENCH_DIR:-bench/data}
SEQGPU=${SEQGPU:-bin/seqgpu}
REPEATS=${REPEATS:-3}
DEVICES=${DEVICES:-0,1 all}
CPU=${CPU:-1}
PY=python3
mkdir -p "$BENCH_DIR"
d=$(cd "$BENCH_DIR" && pwd)
BENCH_DIR=$d
. bench/lib.sh
need_gpus 2

genome=$((READS * 150 / 30))
[ -s "$d/build_genome_$genome.fa" ] || build/bench/gen_genome "$genome" 5 > "$d/build_genome_$genome.fa"
reads=$d/build_reads_$READS.fq
[ -s "$reads" ] || build/bench/sim_reads "$d/build_genome_$genome.fa" 30 150 0.005 5 > "$reads"
cat "$reads" > /dev/null

echo "# scc on one and on several GPUs: $(uname -n), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1) x$(gpus), $THREADS threads; $("$SEQGPU" --version); reads $(du -m "$reads" | cut -f1) MB; median of $REPEATS"
echo
printf '| case | --device | devices used | time (s) | peak RSS (MB) | counting (s) | peak device MB (first) | vs one device | Amdahl bound |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
# count stage seconds, the first device's peak memory, the devices used, and
# the first device's counting seconds on the device (what more devices divide)
stage() { $PY -c "import json,sys; s=json.load(open(sys.argv[1])); g=s['graph_cuda']
print('%.2f %d %d %.3f' % (s['stage_seconds']['count'], g['peak_device_bytes'] >> 20, len(g.get('devices', [0])),
      g['h2d_seconds'] + g['extract_sort_seconds'] + g['merge_seconds']))" "$1"; }
fail=0
for case in repeats solid; do
    opt=""; [ $case = solid ] && opt="-c 5"
    t1=- p1=-
    if [ "$CPU" = 1 ]; then
        set -- $(run mgpu_cpu_$case "$SEQGPU" scc -b cpu -t "$THREADS" $opt -p "$d/mgpu_cpu_$case" "$reads")
        printf '| %s | cpu | | %s | %s | | | | |\n' "$case" "$1" "$2"
    fi
    for devs in 0 $DEVICES; do
        if ! device_list_ok "$devs"; then
            echo "| $case | $devs | not taken by this seqgpu: skipped | | | | | | |"
            continue
        fi
        tag=$(echo "$devs" | tr ',' '_')
        rm -f "$d/mgpu_${tag}_$case".* # no file of an earlier run is taken for this one's
        set -- $(run mgpu_${tag}_$case "$SEQGPU" scc -b cuda --device "$devs" -t "$THREADS" $opt --stats "$d/mgpu_${tag}_$case.json" -p "$d/mgpu_${tag}_$case" "$reads")
        t=$1 m=$2
        if [ -e "$d/mgpu_${tag}_$case.failed" ] || [ ! -s "$d/mgpu_${tag}_$case.json" ]; then
            echo "| $case | $devs | failed: $(tail -1 "$d/mgpu_${tag}_$case.err") | | | | | | |"
            fail=1
            continue
        fi
        set -- $(stage "$d/mgpu_${tag}_$case.json")
        [ "$devs" = 0 ] && t1=$t p1=$4
        printf '| %s | %s | %s | %s | %s | %s | %s | %sx | %s |\n' "$case" "$devs" "$3" "$t" "$m" "$1" "$2" "$(ratio "$t1" "$t" 2)" \
            "$( [ "$devs" = 0 ] && echo - || amdahl "$t1" "$p1" "$3")"
        [ "$devs" != 0 ] || continue
        for f in repeats.tsv gfa units.fa components.tsv spectrum.svg; do
            cmp -s "$d/mgpu_0_$case.$f" "$d/mgpu_${tag}_$case.$f" ||
                { echo "# WARNING: --device $devs and one device: $f differs ($case)"; fail=1; }
            [ "$CPU" != 1 ] || cmp -s "$d/mgpu_cpu_$case.$f" "$d/mgpu_${tag}_$case.$f" ||
                { echo "# WARNING: --device $devs and cpu: $f differs ($case)"; fail=1; }
        done
    done
done
echo
echo "# Amdahl bound: the one device's time over its time with the device work of counting (h2d, extract and sort,"
echo "# merge) divided by the devices used; the rest (reading, parsing, the start, the graph after counting) does not"
echo "# divide. Generous: each device copies every batch and extracts every k-mer, so part of that work is not divided."
exit $fail
