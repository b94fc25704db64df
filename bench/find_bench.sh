#!/bin/sh
# seqgpu find beside seqkit locate on the same synthetic genome, in one run.
# Prints median wall time, peak RSS and hits of each, and the time ratios.
#
#   sh bench/find_bench.sh            (make bench runs this)
# Environment: SIZE (100M), THREADS (all CPUs), REPEATS (3), BENCH_DIR
# (bench/data), SEQGPU (bin/seqgpu), BACKENDS ("cpu"; add cuda on a GPU).
set -eu
cd "$(dirname "$0")/.."
SIZE=${SIZE:-100M}
THREADS=${THREADS:-$(nproc)}
REPEATS=${REPEATS:-3}
BENCH_DIR=${BENCH_DIR:-bench/data}
SEQGPU=${SEQGPU:-bin/seqgpu}
BACKENDS=${BACKENDS:-cpu}
mkdir -p "$BENCH_DIR"
genome=$BENCH_DIR/genome_$SIZE.fa
[ -s "$genome" ] || build/bench/gen_genome "$SIZE" 1 > "$genome"
motif1=ACGTTGCA
awk 'BEGIN { srand(7); for (i = 0; i < 100; i++) { s = ""; for (j = 0; j < 12; j++) s = s substr("ACGT", int(rand() * 4) + 1, 1); printf ">m%d\n%s\n", i, s } }' > "$BENCH_DIR/m100.fa"
awk '/^>/ {n=substr($0,2); next} {printf "%s\t%s\n", n, $0}' "$BENCH_DIR/m100.fa" > "$BENCH_DIR/m100.tsv"
. bench/lib.sh

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
echo "# seqgpu find vs seqkit locate: $SIZE genome ($(du -m "$genome" | cut -f1) MB), $THREADS threads, median of $REPEATS"
echo "# $(uname -n): $cpu, $(nproc) CPUs; $(seqkit version 2>/dev/null || echo 'seqkit missing'); $($SEQGPU --version)"
echo
printf '| case | tool | time (s) | peak RSS (MB) | hits | seqkit / tool |\n|---|---|---|---|---|---|\n'
for case in one_8mer 100_12mers; do
    if [ $case = one_8mer ]; then sk="-p $motif1"; sg="-m $motif1"; else sk="-f $BENCH_DIR/m100.fa"; sg="-f $BENCH_DIR/m100.tsv"; fi
    # seqkit once for 100 motifs: it takes minutes
    reps=$REPEATS; [ $case = 100_12mers ] && REPEATS=1
    set -- $(run seqkit_$case seqkit locate -i --bed -j "$THREADS" $sk "$genome")
    REPEATS=$reps
    sk_t=$1 sk_m=$2 sk_h=$(hits "$BENCH_DIR/seqkit_$case.out")
    printf '| %s | seqkit locate -i --bed | %s | %s | %s | 1.0 |\n' "$case" "$sk_t" "$sk_m" "$sk_h"
    for be in $BACKENDS; do
        set -- $(run seqgpu_${be}_$case "$SEQGPU" find -q -b "$be" -t "$THREADS" $sg "$genome")
        h=$(hits "$BENCH_DIR/seqgpu_${be}_$case.out")
        printf '| %s | seqgpu find -b %s | %s | %s | %s | %s |\n' "$case" "$be" "$1" "$2" "$h" \
            "$(ratio "$sk_t" "$1")"
        [ "$h" = "$sk_h" ] || echo "# WARNING: $be found $h hits, seqkit $sk_h"
    done
done
