#!/bin/sh
# seqgpu find on a GPU beside the cpu backend and seqkit, on a 3.1 Gb
# hg38-like genome read from the page cache, in one run:
#   one 8-mer, and 1000 random 20-mers; end-to-end time (median), stage
#   times, kernel throughput, PCIe throughput and peak RSS.
# seqkit takes about 0.4 s per motif per 100 Mb on one core, so for 1000
# motifs it runs on a 10 Mb slice and its time is scaled by the size ratio
# (marked); it runs once per case, seqgpu REPEATS times.
#
# Environment: SIZE (3.1G), THREADS (nproc), REPEATS (3), BENCH_DIR (bench/data),
# BACKENDS (the backends to time: "cuda opencl cpu")
set -eu
cd "$(dirname "$0")/.."
SIZE=${SIZE:-3.1G}
THREADS=${THREADS:-$(nproc)}
REPEATS=${REPEATS:-3}
BENCH_DIR=${BENCH_DIR:-bench/data}
SEQGPU=${SEQGPU:-bin/seqgpu}
BACKENDS=${BACKENDS:-cuda opencl cpu}
mkdir -p "$BENCH_DIR"
genome=$BENCH_DIR/genome_$SIZE.fa
slice=$BENCH_DIR/genome_10M.fa
[ -s "$genome" ] || build/bench/gen_genome "$SIZE" 1 > "$genome"
[ -s "$slice" ] || build/bench/gen_genome 10M 1 > "$slice"
cat "$genome" "$slice" > /dev/null # into the page cache
awk 'BEGIN { srand(11); for (i = 0; i < 1000; i++) { s = ""; for (j = 0; j < 20; j++) s = s substr("ACGT", int(rand() * 4) + 1, 1); printf ">m%d\n%s\n", i, s } }' > "$BENCH_DIR/m1000.fa"
awk '/^>/ {n=substr($0,2); next} {printf "%s\t%s\n", n, $0}' "$BENCH_DIR/m1000.fa" > "$BENCH_DIR/m1000.tsv"
motif1=ACGTTGCA
. bench/lib.sh

# stage seconds and device figures from a --stats file
stat_line() {
    python3 - "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
st = s['stage_seconds']
out = 'read %.2f parse %.2f chunk %.2f scan %.2f write %.2f (thread-s)' % tuple(st[k] for k in ('read', 'parse', 'chunk', 'scan', 'write'))
d = s.get('device')
if d and 'kernel_seconds' in d:
    out += '; kernels %.4f s = %.0f GB/s of text; H2D %.2f GB in %.3f s = %.1f GB/s; %d windows, %d rescans' % (
        d['kernel_seconds'], d['kernel_gbps'], d['h2d_bytes'] / 1e9, d['h2d_seconds'], d['h2d_gbps'], d['windows'], d['rescans'])
elif d:
    out += '; %s %s, %d windows, %d rescans' % (d.get('platform', ''), d.get('name', ''), d['windows'], d['rescans'])
print(out)
PY
}

echo "# seqgpu find on $(uname -n): $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1), $(nproc) CPUs"
echo "# genome $SIZE ($(du -m "$genome" | cut -f1) MB, page cache), $THREADS threads, median of $REPEATS; $($SEQGPU --version); $(seqkit version 2>/dev/null)"
echo
printf '| case | tool | time (s) | peak RSS (MB) | hits | vs seqkit |\n|---|---|---|---|---|---|\n'
for case in one_8mer 1000_20mers; do
    if [ $case = one_8mer ]; then sg="-m $motif1"; sk="-p $motif1"; sk_in=$genome; scale=1
    else sg="-f $BENCH_DIR/m1000.tsv"; sk="-f $BENCH_DIR/m1000.fa"; sk_in=$slice
         scale=$(awk -v a="$(stat -c %s "$genome")" -v b="$(stat -c %s "$slice")" 'BEGIN {print a / b}'); fi
    reps=$REPEATS; REPEATS=1
    set -- $(run seqkit_$case seqkit locate -i --bed -j "$THREADS" $sk "$sk_in")
    REPEATS=$reps
    sk_t=$(awk -v t="$1" -v s="$scale" 'BEGIN {printf "%.2f", t * s}')
    note=""; [ "$scale" = 1 ] || note=" (10 Mb slice x $(printf %.0f "$scale"))"
    printf '| %s | seqkit locate -i --bed -j %s | %s%s | %s | %s |  |\n' "$case" "$THREADS" "$sk_t" "$note" "$2" \
        "$( [ "$scale" = 1 ] && hits "$BENCH_DIR/seqkit_$case.out" || echo "-")"
    for be in $BACKENDS; do
        set -- $(run seqgpu_${be}_$case "$SEQGPU" find -q -b $be -t "$THREADS" --stats "$BENCH_DIR/stats_${be}_$case.json" $sg "$genome")
        printf '| %s | seqgpu find -b %s | %s | %s | %s | %sx |\n' "$case" "$be" "$1" "$2" "$(hits "$BENCH_DIR/seqgpu_${be}_$case.out")" \
            "$(ratio "$sk_t" "$1")"
        eval "t_${be}_$case=$1"
    done
    for be in $BACKENDS; do
        cmp -s "$BENCH_DIR/seqgpu_${be}_$case.out" "$BENCH_DIR/seqgpu_cpu_$case.out" ||
            echo "# WARNING: $be and cpu outputs differ ($case)"
    done
done
echo
echo "1000 motifs / one motif on cuda: $(awk -v a="$t_cuda_1000_20mers" -v b="$t_cuda_one_8mer" 'BEGIN {printf "%.2f", a / b}')x"
for f in "$BENCH_DIR"/stats_*.json; do echo "$(basename "$f" .json): $(stat_line "$f")"; done
