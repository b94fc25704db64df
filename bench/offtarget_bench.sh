#!/bin/sh
# Off-target search: seqgpu find -M with a PAM beside Cas-OFFinder 2.4.1 on
# the same genome and guides, in one run. Prints the median wall time, peak
# RSS and sites of each, the time ratios, and whether the site sets agree
# (outside Cas-OFFinder's two quirks: sites cut short at a file's end, and a
# text N or ambiguity code taken as a PAM base).
#
#   sh bench/offtarget_bench.sh
# Environment:
#   SIZE (100M)        genome size (bench/gen_genome.c, an hg38-like genome)
#   GUIDES ("10")      guide counts to run, e.g. "10 1000"
#   LIMITS ("4")       mismatch limits to run, e.g. "4 6"
#   BACKENDS ("cpu")   seqgpu backends, e.g. "cuda cpu"
#   DEVICES ("")       extra cuda runs with --device LIST, e.g. "0,1"
#   CASOFF             the Cas-OFFinder binary (default: cas-offinder on the PATH)
#   CASOFF_DEV (C)     its device argument: C (CPU, PoCL) or G0 (first GPU)
#   THREADS (nproc), REPEATS (3; Cas-OFFinder runs once), BENCH_DIR (bench/data), SEQGPU (bin/seqgpu)
set -eu
cd "$(dirname "$0")/.."
SIZE=${SIZE:-100M}
GUIDES=${GUIDES:-10}
LIMITS=${LIMITS:-4}
BACKENDS=${BACKENDS:-cpu}
DEVICES=${DEVICES:-}
CASOFF=${CASOFF:-$(command -v cas-offinder || true)}
CASOFF_DEV=${CASOFF_DEV:-C}
THREADS=${THREADS:-$(nproc)}
REPEATS=${REPEATS:-3}
BENCH_DIR=${BENCH_DIR:-bench/data}
SEQGPU=${SEQGPU:-bin/seqgpu}
mkdir -p "$BENCH_DIR/offtarget_$SIZE"
genome=$BENCH_DIR/offtarget_$SIZE/genome.fa
[ -s "$genome" ] || build/bench/gen_genome "$SIZE" 7 > "$genome"
cat "$genome" > /dev/null # into the page cache
. bench/lib.sh

# normalised sites of a Cas-OFFinder-format file: first word of the record
# name, whole windows whose PAM is A/C/G/T (the peer's quirks left out), sorted
norm() {
    awk -F'\t' -v OFS='\t' '{split($2, w, " "); $2 = w[1]; if (length($4) != 23) next;
        if (toupper(substr($4, 21, 3)) ~ /[^ACGT]/) next; print}' "$1" | LC_ALL=C sort
}

echo "# off-target search on $(uname -n): $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) CPUs;" \
    "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
echo "# genome $SIZE ($(du -m "$genome" | cut -f1) MB, page cache), random 20-nt guides + NGG, $THREADS threads," \
    "seqgpu median of $REPEATS, Cas-OFFinder ($CASOFF_DEV) once; $($SEQGPU --version)"
echo
printf '| guides | mismatches | tool | time (s) | peak RSS (MB) | sites | Cas-OFFinder / tool |\n|---|---|---|---|---|---|---|\n'
for n in $GUIDES; do
    [ -s "$BENCH_DIR/guides_$n.tsv" ] || awk -v n="$n" 'BEGIN { srand(n); for (i = 0; i < n; i++) { s = ""; for (j = 0; j < 20; j++)
        s = s substr("ACGT", int(rand() * 4) + 1, 1); printf "g%d\t%s\n", i, s } }' > "$BENCH_DIR/guides_$n.tsv"
    for m in $LIMITS; do
        case=g${n}_m$m
        input=$BENCH_DIR/casoff_$case.txt
        { echo "$BENCH_DIR/offtarget_$SIZE"; echo NNNNNNNNNNNNNNNNNNNNNGG
          awk -F'\t' -v m="$m" '{print $2 "NNN " m " " $1}' "$BENCH_DIR/guides_$n.tsv"; } > "$input"
        co_t=""
        if [ -n "$CASOFF" ]; then
            reps=$REPEATS; REPEATS=1
            rm -f "$BENCH_DIR/casoff_$case.out"
            set -- $(run casoff_run_$case "$CASOFF" "$input" "$CASOFF_DEV" "$BENCH_DIR/casoff_$case.out")
            REPEATS=$reps
            co_t=$1
            norm "$BENCH_DIR/casoff_$case.out" > "$BENCH_DIR/casoff_$case.cmp"
            printf '| %s | %s | Cas-OFFinder 2.4.1 %s | %s | %s | %s | 1.0 |\n' "$n" "$m" "$CASOFF_DEV" "$1" "$2" \
                "$(wc -l < "$BENCH_DIR/casoff_$case.cmp")"
        fi
        runs=""
        for be in $BACKENDS; do runs="$runs $be:"; done
        for d in $DEVICES; do runs="$runs cuda:$d"; done
        for r in $runs; do
            be=${r%%:*} dev=${r#*:} tag=$be${dev:+_dev$dev}
            set -- $(run seqgpu_${tag}_$case "$SEQGPU" find -q -b "$be" ${dev:+--device $dev} -t "$THREADS" \
                --stats "$BENCH_DIR/stats_${tag}_$case.json" --cas-offinder "$input" -F casoffinder)
            norm "$BENCH_DIR/seqgpu_${tag}_$case.out" > "$BENCH_DIR/seqgpu_${tag}_$case.cmp"
            printf '| %s | %s | seqgpu -b %s%s | %s | %s | %s | %s |\n' "$n" "$m" "$be" "${dev:+ --device $dev}" "$1" "$2" \
                "$(wc -l < "$BENCH_DIR/seqgpu_${tag}_$case.out")" "$( [ -n "$co_t" ] && ratio "$co_t" "$1" || echo -)"
            if [ -n "$co_t" ] && ! cmp -s "$BENCH_DIR/casoff_$case.cmp" "$BENCH_DIR/seqgpu_${tag}_$case.cmp"; then
                echo "# WARNING: seqgpu $tag and Cas-OFFinder differ ($case): $(diff "$BENCH_DIR/casoff_$case.cmp" \
                    "$BENCH_DIR/seqgpu_${tag}_$case.cmp" | grep -c '^[<>]') lines"
            fi
            first=$(echo $runs | cut -d' ' -f1); ftag=${first%%:*}; fdev=${first#*:}; ftag=$ftag${fdev:+_dev$fdev}
            cmp -s "$BENCH_DIR/seqgpu_${ftag}_$case.out" "$BENCH_DIR/seqgpu_${tag}_$case.out" ||
                echo "# WARNING: seqgpu $tag and $ftag outputs differ ($case)"
        done
    done
done
echo
for f in "$BENCH_DIR"/stats_*_g*_m*.json; do
    [ -e "$f" ] || continue
    python3 - "$f" <<'PY'
import json, os, sys
s = json.load(open(sys.argv[1]))
st, d = s['stage_seconds'], s.get('device') or {}
out = '%s: wall %.2f s; parse %.2f scan %.2f write %.2f thread-s' % (os.path.basename(sys.argv[1])[6:-5], s['wall_seconds'],
      st['parse'], st['scan'], st['write'])
if 'kernel_seconds' in d:
    out += '; kernels %.3f s, H2D %.3f s, D2H %.3f s, %d rescans' % (d['kernel_seconds'], d['h2d_seconds'], d['d2h_seconds'], d['rescans'])
print(out)
PY
done
