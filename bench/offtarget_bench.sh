#!/bin/sh
# Off-target search: seqgpu find -M with a PAM beside Cas-OFFinder on the
# same genome and guides, in one run: without bulges beside Cas-OFFinder
# 2.4.1, with bulges (and CFD and MIT scores) beside Cas-OFFinder 3.0.0.
# Prints the median wall time, peak RSS and rows of each, the time ratios,
# and whether the site sets agree: for 2.4.1 outside its two quirks (sites
# cut short at a file's end, a text N or ambiguity code taken as a PAM
# base), for 3.0.0 on every alignment outside its documented bugs
# (tests/casoff3_cmp.py; genomes up to CMP_MAX bases).
#
#   sh bench/offtarget_bench.sh
# Environment:
#   SIZE (100M)        genome size (bench/gen_genome.c, an hg38-like genome)
#   GUIDES ("10")      guide counts to run, e.g. "10 100 1000"
#   LIMITS ("4")       mismatch limits to run, e.g. "4 6"
#   BULGES ("0/0")     DNA/RNA bulge limits to run, e.g. "0/0 1/1"
#   SCORE (cfd,mit)    --score of the bulge runs (empty: none)
#   BACKENDS ("cpu")   seqgpu backends, e.g. "cuda cpu"
#   DEVICES ("")       extra cuda runs with --device LIST, e.g. "0,1"
#   CASOFF             Cas-OFFinder 2.4.1 (default: cas-offinder on the PATH), for the runs without bulges
#   CASOFF_DEV (C)     its device argument: C (CPU, PoCL) or G0 (first GPU)
#   CASOFF3            Cas-OFFinder 3.0.0 (default: none), for the runs with bulges
#   CASOFF3_DEV (C)    its device argument: C (PoCL) or G (GPUs)
#   CASOFF3_MAX (1000) most guides Cas-OFFinder 3 is run with (about 600 s at 1000 on an H200);
#                      above it the table says it was not run: put that count in GUIDES too
#   CMP_MAX (500000000) largest genome the Cas-OFFinder 3 comparison runs on (it reads the genome)
#   THREADS (nproc), REPEATS (3; Cas-OFFinder runs once), BENCH_DIR (bench/data), SEQGPU (bin/seqgpu)
set -eu
cd "$(dirname "$0")/.."
SIZE=${SIZE:-100M}
GUIDES=${GUIDES:-10}
LIMITS=${LIMITS:-4}
BULGES=${BULGES:-0/0}
SCORE=${SCORE-cfd,mit}
BACKENDS=${BACKENDS:-cpu}
DEVICES=${DEVICES:-}
CASOFF=${CASOFF:-$(command -v cas-offinder || true)}
CASOFF_DEV=${CASOFF_DEV:-C}
CASOFF3=${CASOFF3:-}
CASOFF3_DEV=${CASOFF3_DEV:-C}
CASOFF3_MAX=${CASOFF3_MAX:-1000}
CMP_MAX=${CMP_MAX:-500000000}
THREADS=${THREADS:-$(nproc)}
REPEATS=${REPEATS:-3}
BENCH_DIR=${BENCH_DIR:-bench/data}
SEQGPU=${SEQGPU:-bin/seqgpu}
mkdir -p "$BENCH_DIR/offtarget_$SIZE"
genome=$BENCH_DIR/offtarget_$SIZE/genome.fa
[ -s "$genome" ] || build/bench/gen_genome "$SIZE" 7 > "$genome"
cat "$genome" > /dev/null # into the page cache
. bench/lib.sh

# normalised sites of a Cas-OFFinder 2.4 file: first word of the record
# name, whole windows whose PAM is A/C/G/T (the peer's quirks left out), sorted
norm() {
    awk -F'\t' -v OFS='\t' '{split($2, w, " "); $2 = w[1]; if (length($4) != 23) next;
        if (toupper(substr($4, 21, 3)) ~ /[^ACGT]/) next; print}' "$1" | LC_ALL=C sort
}
rows() { grep -vc '^#' "$1" || true; }
# peer_run NAME BIN INPUT DEVICE OUT: "seconds rss" of one run of a Cas-OFFinder
peer_run() { REPEATS=1; rm -f "$5"; run "$@"; }

echo "# off-target search on $(uname -n): $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) CPUs;" \
    "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
echo "# genome $SIZE ($(du -m "$genome" | cut -f1) MB, page cache), random 20-nt guides + NGG, $THREADS threads," \
    "seqgpu median of $REPEATS, Cas-OFFinder ($CASOFF_DEV) and Cas-OFFinder 3 ($CASOFF3_DEV) once; $($SEQGPU --version)"
echo "# with bulges seqgpu prints a site per row with its best alignment${SCORE:+ and --score $SCORE} (-F casoffinder3);"
echo "# Cas-OFFinder 3 every alignment: its rows are more than the sites"
echo
printf '| guides | mismatches | bulges | tool | time (s) | peak RSS (MB) | rows | peer / tool |\n|---|---|---|---|---|---|---|---|\n'
for n in $GUIDES; do
    for m in $LIMITS; do
        for b in $BULGES; do
            db=${b%/*} rb=${b#*/}
            case=g${n}_m${m}_b$db$rb
            input=$BENCH_DIR/casoff_$case.txt
            bulged=$([ "$b" = 0/0 ] && echo 0 || echo 1)
            casoff_input "$input" "$BENCH_DIR/offtarget_$SIZE" "$n" "$m" "$db" "$rb"
            co_t="" peer=""
            if [ "$bulged" = 0 ] && [ -n "$CASOFF" ]; then
                peer="Cas-OFFinder 2.4.1 $CASOFF_DEV"
                set -- $(peer_run casoff_run_$case "$CASOFF" "$input" "$CASOFF_DEV" "$BENCH_DIR/casoff_$case.out")
                co_t=$1
                norm "$BENCH_DIR/casoff_$case.out" > "$BENCH_DIR/casoff_$case.cmp"
                printf '| %s | %s | %s | %s | %s | %s | %s | 1.0 |\n' "$n" "$m" "$b" "$peer" "$1" "$2" \
                    "$(wc -l < "$BENCH_DIR/casoff_$case.cmp")"
            elif [ -n "$CASOFF3" ] && [ "$n" -le "$CASOFF3_MAX" ]; then
                peer="Cas-OFFinder 3 $CASOFF3_DEV"
                set -- $(peer_run casoff3_run_$case "$CASOFF3" "$input" "$CASOFF3_DEV" "$BENCH_DIR/casoff3_$case.out")
                co_t=$1
                printf '| %s | %s | %s | %s | %s | %s | %s | 1.0 |\n' "$n" "$m" "$b" "$peer" "$1" "$2" \
                    "$(rows "$BENCH_DIR/casoff3_$case.out")"
            elif [ -n "$CASOFF3" ]; then
                echo "| $n | $m | $b | Cas-OFFinder 3: not run above $CASOFF3_MAX guides (CASOFF3_MAX) | | | | |"
            fi
            runs=""
            for be in $BACKENDS; do runs="$runs $be:"; done
            for d in $DEVICES; do runs="$runs cuda:$d"; done
            for r in $runs; do
                be=${r%%:*} dev=${r#*:} tag=$be${dev:+_dev$dev}
                if [ "$bulged" = 1 ]; then
                    set -- $(run seqgpu_${tag}_$case "$SEQGPU" find -q -b "$be" ${dev:+--device $dev} -t "$THREADS" \
                        --stats "$BENCH_DIR/stats_${tag}_$case.json" --cas-offinder "$input" -F casoffinder3 ${SCORE:+--score $SCORE})
                else
                    set -- $(run seqgpu_${tag}_$case "$SEQGPU" find -q -b "$be" ${dev:+--device $dev} -t "$THREADS" \
                        --stats "$BENCH_DIR/stats_${tag}_$case.json" --cas-offinder "$input" -F casoffinder)
                fi
                printf '| %s | %s | %s | seqgpu -b %s%s | %s | %s | %s | %s |\n' "$n" "$m" "$b" "$be" "${dev:+ --device $dev}" "$1" "$2" \
                    "$(rows "$BENCH_DIR/seqgpu_${tag}_$case.out")" "$( [ -n "$co_t" ] && ratio "$co_t" "$1" || echo -)"
                if [ "$bulged" = 0 ] && [ -n "$co_t" ]; then
                    norm "$BENCH_DIR/seqgpu_${tag}_$case.out" > "$BENCH_DIR/seqgpu_${tag}_$case.cmp"
                    cmp -s "$BENCH_DIR/casoff_$case.cmp" "$BENCH_DIR/seqgpu_${tag}_$case.cmp" ||
                        echo "# WARNING: seqgpu $tag and Cas-OFFinder differ ($case): $(diff "$BENCH_DIR/casoff_$case.cmp" \
                            "$BENCH_DIR/seqgpu_${tag}_$case.cmp" | grep -c '^[<>]') lines"
                fi
                first=$(echo $runs | cut -d' ' -f1); ftag=${first%%:*}; fdev=${first#*:}; ftag=$ftag${fdev:+_dev$fdev}
                cmp -s "$BENCH_DIR/seqgpu_${ftag}_$case.out" "$BENCH_DIR/seqgpu_${tag}_$case.out" ||
                    echo "# WARNING: seqgpu $tag and $ftag outputs differ ($case)"
            done
            # every alignment against Cas-OFFinder 3's (untimed), where the genome is small enough to read
            if [ "$bulged" = 1 ] && [ -n "$co_t" ] && [ "$(wc -c < "$genome")" -le "$CMP_MAX" ]; then
                "$SEQGPU" find -q -t "$THREADS" --cas-offinder "$input" --all-alignments -F casoffinder3 \
                    -o "$BENCH_DIR/seqgpu_all_$case.out"
                if python3 tests/casoff3_cmp.py "$input" "$BENCH_DIR/casoff3_$case.out" "$BENCH_DIR/seqgpu_all_$case.out" \
                    > "$BENCH_DIR/cmp_$case.txt" 2>&1; then
                    echo "# $case: every alignment as Cas-OFFinder 3's, outside its documented bugs ($(tail -1 "$BENCH_DIR/cmp_$case.txt"))"
                else
                    echo "# WARNING: seqgpu and Cas-OFFinder 3 differ ($case): $(grep -vc '^#' "$BENCH_DIR/cmp_$case.txt") rows," \
                        "see $BENCH_DIR/cmp_$case.txt"
                fi
            fi
        done
    done
done
echo
for f in "$BENCH_DIR"/stats_*_g*_m*.json; do
    case $f in *_mqc.json) continue ;; esac # the MultiQC file beside each --stats
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
