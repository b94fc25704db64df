#!/bin/sh
# seqgpu find on a GPU host: every backend and auto on the same cases, in
# one run, from the page cache. Per case and backend: the end-to-end time
# (median), the time inside the process (--stats wall_seconds), peak RSS,
# kernel and host-to-device throughput, and what auto chose; then how far
# auto is from the fastest backend, and the bare CUDA start of the devices.
#
# Cases: a 20-byte FASTA (fixed costs only); on the SIZE genome: one 8-mer,
# 1000 random 20-mers, 1000 IUPAC 18-mers over ACGTRYSWKM, 100 16-mers with
# 4 N each, and 10 and 1000 20-nt guides within 4 mismatches of NGG sites.
#
# Environment: SIZE (3.1G), THREADS (nproc), REPEATS (3), BENCH_DIR
# (bench/data), BACKENDS ("cpu cuda opencl auto"), DEVICES (extra cuda runs
# with --device LIST, e.g. "0,1"), CASES (all), SEQKIT (1: seqkit locate on
# the one-motif case too)
set -eu
cd "$(dirname "$0")/.."
SIZE=${SIZE:-3.1G}
THREADS=${THREADS:-$(nproc)}
REPEATS=${REPEATS:-3}
BENCH_DIR=${BENCH_DIR:-bench/data}
SEQGPU=${SEQGPU:-bin/seqgpu}
BACKENDS=${BACKENDS:-cpu cuda opencl auto}
DEVICES=${DEVICES:-}
CASES=${CASES:-tiny one_8mer 1000_20mers 1000_iupac18 100_16mers_4N mm4_10 mm4_1000}
mkdir -p "$BENCH_DIR"
genome=$BENCH_DIR/genome_$SIZE.fa
[ -s "$genome" ] || build/bench/gen_genome "$SIZE" 1 > "$genome"
cat "$genome" > /dev/null # into the page cache
printf '>tiny\nACGTACGTTGCA\n' > "$BENCH_DIR/tiny.fa"
rnd() { # rnd N LEN LETTERS SEED: N random motifs "name<TAB>motif"
    awk -v n="$1" -v l="$2" -v a="$3" -v seed="$4" 'BEGIN { srand(seed); for (i = 0; i < n; i++) { s = "";
        for (j = 0; j < l; j++) s = s substr(a, int(rand() * length(a)) + 1, 1); printf "m%d\t%s\n", i, s } }'
}
# made once: awk's random numbers differ between awk builds, and the runs of one bench must agree
[ -s "$BENCH_DIR/m1000.tsv" ] || rnd 1000 20 ACGT 11 > "$BENCH_DIR/m1000.tsv"
[ -s "$BENCH_DIR/iupac1000.tsv" ] || rnd 1000 18 ACGTRYSWKM 12 > "$BENCH_DIR/iupac1000.tsv"
[ -s "$BENCH_DIR/n100.tsv" ] || rnd 100 16 ACGT 13 | awk -F'\t' -v OFS='\t' \
    '{ s = $2; $2 = substr(s,1,3) "N" substr(s,5,3) "N" substr(s,9,3) "N" substr(s,13,3) "N"; print }' > "$BENCH_DIR/n100.tsv"
[ -s "$BENCH_DIR/g10.tsv" ] || rnd 10 20 ACGT 14 > "$BENCH_DIR/g10.tsv"
[ -s "$BENCH_DIR/g1000.tsv" ] || rnd 1000 20 ACGT 15 > "$BENCH_DIR/g1000.tsv"
. bench/lib.sh

args_of() {
    case $1 in
    tiny) echo "-m ACGTACGT $BENCH_DIR/tiny.fa" ;;
    one_8mer) echo "-m ACGTTGCA $genome" ;;
    1000_20mers) echo "-f $BENCH_DIR/m1000.tsv $genome" ;;
    1000_iupac18) echo "-f $BENCH_DIR/iupac1000.tsv $genome" ;;
    100_16mers_4N) echo "-f $BENCH_DIR/n100.tsv $genome" ;;
    mm4_10) echo "-f $BENCH_DIR/g10.tsv -M 4 --pam NGG $genome" ;;
    mm4_1000) echo "-f $BENCH_DIR/g1000.tsv -M 4 --pam NGG $genome" ;;
    esac
}

# in-process seconds, kernel and H2D figures, and auto's choice, from a --stats file
stat_cols() {
    python3 - "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
d = s.get('device') or {}
k = '%.0f GB/s' % d['kernel_gbps'] if d.get('kernel_seconds') else '-'
h = '%.1f GB/s' % d['h2d_gbps'] if d.get('h2d_seconds') else '-'
print('%.3f|%s|%s|%s' % (s['wall_seconds'], k, h, s.get('backend_choice', '-').replace('|', '/')))
PY
}

echo "# seqgpu find on $(uname -n): $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)" \
    "x $(nvidia-smi -L 2>/dev/null | wc -l), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) CPUs"
echo "# genome $SIZE ($(du -m "$genome" | cut -f1) MB, page cache), $THREADS threads, median of $REPEATS; $($SEQGPU --version)"
if [ -x build/bench/cuda_start ]; then
    REPEATS_SAVE=$REPEATS
    set -- $(CUDA_VISIBLE_DEVICES=0 run cuda_start_1 build/bench/cuda_start)
    one=$1
    set -- $(run cuda_start_all build/bench/cuda_start)
    echo "# bare CUDA start (cudaFree(0)): $one s with one device visible, $1 s with all $(nvidia-smi -L 2>/dev/null | wc -l)"
fi
echo
printf '| case | backend | end to end (s) | in process (s) | peak RSS (MB) | kernels | H2D | hits | auto |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for case in $CASES; do
    runs=""
    for be in $BACKENDS; do runs="$runs $be:"; done
    for d in $DEVICES; do runs="$runs cuda:$d"; done
    best="" best_t=""
    for r in $runs; do
        be=${r%%:*} dev=${r#*:} tag=$be${dev:+_dev$(echo $dev | tr , _)}
        set -- $(run find_${tag}_$case "$SEQGPU" find -q -b "$be" ${dev:+--device $dev} -t "$THREADS" \
            --stats "$BENCH_DIR/stats_find_${tag}_$case.json" $(args_of $case))
        t=$1 m=$2
        IFS='|' read -r inproc kern h2d choice <<EOF
$(stat_cols "$BENCH_DIR/stats_find_${tag}_$case.json")
EOF
        printf '| %s | %s%s | %s | %s | %s | %s | %s | %s | %s |\n' "$case" "$be" "${dev:+ --device $dev}" "$t" "$inproc" "$m" \
            "$kern" "$h2d" "$(wc -l < "$BENCH_DIR/find_${tag}_$case.out")" "$choice"
        eval "t_${tag}=$t"
        if [ "$be" != auto ] && { [ -z "$best_t" ] || awk -v a="$t" -v b="$best_t" 'BEGIN {exit !(a < b)}'; }; then
            best=$tag best_t=$t
        fi
        cmp -s "$BENCH_DIR/find_${tag}_$case.out" "$BENCH_DIR/find_cpu_$case.out" 2>/dev/null ||
            echo "# WARNING: $tag and cpu outputs differ ($case)"
    done
    case " $BACKENDS " in *" auto "*)
        echo "# $case: fastest $best ($best_t s); auto $(eval echo \$t_auto) s = $(ratio "$(eval echo \$t_auto)" "$best_t")x the fastest"
        row="$case|$(stat_cols "$BENCH_DIR/stats_find_auto_$case.json" | cut -d'|' -f4)|$t_auto"
        for be in $BACKENDS; do [ $be = auto ] || row="$row|$(eval echo \$t_$be)"; done
        summary="${summary:+$summary
}$row" ;;
    esac
done
# auto against every backend, one row per case
if [ -n "${summary:-}" ]; then
    auto_header $(echo " $BACKENDS " | sed 's/ auto / /')
    echo "$summary" | while IFS='|' read -r c choice auto rest; do
        IFS='|'; set -- $rest; unset IFS
        auto_row "$c" "$choice" "$auto" "$@"
    done
fi
if [ "${SEQKIT:-0}" = 1 ]; then
    REPEATS=1
    set -- $(run seqkit_one seqkit locate -i --bed -j "$THREADS" -p ACGTTGCA "$genome")
    echo "# seqkit locate -j $THREADS, one 8-mer: $1 s, $2 MB"
fi
