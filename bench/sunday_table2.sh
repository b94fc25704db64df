#!/bin/sh
# Table 2 of the GPU Sunday paper (parallel Sunday search with CUDA): CPU Sunday against
# the GPU on 1, 8, 16, 30, 53 and 77 MB of DNA text with one planted motif.
# CPU Sunday: seqgpu -b cpu -t 1 --kernel sunday, scan-stage seconds.
# GPU: kernel seconds of -b cuda --kernel sunday (the paper's kernel) and of
# the default kernel; end-to-end wall time of the latter. Paper: GT750M vs
# i5-3230M, 2015.
set -eu
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-bench/data}
SEQGPU=${SEQGPU:-bin/seqgpu}
mkdir -p "$BENCH_DIR"
motif=GATTACAGATTACATG
json() { python3 -c "import json,sys; s=json.load(open('$1')); print($2)"; }
echo "| text (MB) | paper CPU (ms) | paper GPU (ms) | CPU Sunday (ms) | GPU Sunday kernel (ms) | GPU vector kernel (ms) | GPU end to end (ms) | hits |"
echo "|---|---|---|---|---|---|---|---|"
for row in "1 2.943 2.008" "8 20.342 7.455" "16 40.154 14.278" "30 75.152 25.333" "53 133.683 43.331" "77 191.519 61.758"; do
    set -- $row
    f=$BENCH_DIR/table2_$1M.fa
    if [ ! -s "$f" ]; then
        { build/bench/gen_genome "$1M" 2; printf '>planted\nACGTTGCAACGTTGCA%sTTGCAACGTTGCAACG\n' "$motif"; } > "$f"
    fi
    "$SEQGPU" find -q -b cpu -t 1 --kernel sunday --stats "$BENCH_DIR/t2cpu.json" -m $motif "$f" > "$BENCH_DIR/t2cpu.bed"
    "$SEQGPU" find -q -b cuda --kernel sunday --stats "$BENCH_DIR/t2gs.json" -m $motif "$f" > /dev/null
    t0=$(date +%s%N)
    "$SEQGPU" find -q -b cuda --stats "$BENCH_DIR/t2gv.json" -m $motif "$f" > "$BENCH_DIR/t2gv.bed"
    t1=$(date +%s%N)
    cmp -s "$BENCH_DIR/t2cpu.bed" "$BENCH_DIR/t2gv.bed" || echo "# WARNING: outputs differ at $1 MB"
    printf '| %s | %s | %s | %.2f | %.3f | %.3f | %.0f | %s |\n' "$1" "$2" "$3" \
        "$(json "$BENCH_DIR/t2cpu.json" "s['stage_seconds']['scan'] * 1e3")" \
        "$(json "$BENCH_DIR/t2gs.json" "s['device']['kernel_seconds'] * 1e3")" \
        "$(json "$BENCH_DIR/t2gv.json" "s['device']['kernel_seconds'] * 1e3")" \
        "$(( (t1 - t0) / 1000000 ))" "$(wc -l < "$BENCH_DIR/t2gv.bed")"
done
