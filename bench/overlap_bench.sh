#!/bin/sh
# seqgpu scc -g overlap beside minimap2 -x ava-pb, in one run, same threads.
#   1. a genome of unique sequence with satellite arrays planted (periods
#      6 bp to 2 kb, 10 to 60 kb, 1-3% divergence between copies;
#      tests/reference.py satellites), and pbsim CLR reads of it at 20x
#      (10 kb mean, accuracy 0.85 to 0.99);
#   2. minimap2 -x ava-pb (the overlaps alone) against seqgpu's own
#      overlapper (its reading, index and overlap seconds from --stats) and
#      against seqgpu's whole run (reads to repeats); then seqgpu on
#      minimap2's PAF (--overlaps);
#   3. the dovetails of 2 kb and more of each against the other's and
#      pbsim's truth, and the arrays each run finds (tests/reference.py
#      ovlcmp, satcheck).
#   4. where seqgpu has cuda and a GPU is there (or CUDA=1), the same run
#      with -b cuda (the index and the chaining on the device), whose files
#      must be the cpu run's, byte for byte, and its device stage seconds;
#      and with -b auto, against both: what auto chose and how far it is
#      from the faster.
# Environment: GENOME (bases, 50000000), DEPTH (20), ACCURACY (pbsim's mean
# accuracy, 0.90; the reads span 0.85 to 0.99 about it), THREADS (nproc),
# BENCH_DIR (bench/data), SEQGPU (bin/seqgpu), CUDA (auto: 1 when a GPU is
# there), MINIMAP2 (1; 0 leaves minimap2 and its PAF out), CHECK (1: the
# dovetail and array comparisons, slow in Python; 0 skips them),
# PBSIM_MODELS (/usr/share/pbsim/models), PREPARE_ONLY (1: make the genome
# and the reads, and stop).
set -eu
cd "$(dirname "$0")/.."
GENOME=${GENOME:-50000000}
DEPTH=${DEPTH:-20}
ACCURACY=${ACCURACY:-0.90}
MINIMAP2=${MINIMAP2:-1}
[ "$MINIMAP2" = 1 ] || CHECK=0
THREADS=${THREADS:-$(nproc)}
BENCH_DIR=${BENCH_DIR:-bench/data}
SEQGPU=${SEQGPU:-bin/seqgpu}
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
for t in pbsim minimap2; do
    command -v $t > /dev/null || { echo "bench: $t is needed: apt-get install $t" >&2; exit 1; }
done
mkdir -p "$BENCH_DIR"
d=$(cd "$BENCH_DIR" && pwd)
gen=$d/ovl_$GENOME # the genome; g: its reads
g=$gen
acc_lo=$(awk -v a="$ACCURACY" 'BEGIN {printf "%.2f", (a - 0.05 < 0.5 ? 0.5 : a - 0.05)}')
acc_hi=$(awk -v a="$ACCURACY" 'BEGIN {printf "%.2f", (a + 0.09 > 1 ? 1 : a + 0.09)}')
[ "$ACCURACY" = 0.90 ] || g=${g}_acc$ACCURACY
ARRAYS=6:20000:0.02,13:60000:0.01,42:30000:0.03,171:45000:0.02,360:15000:0.01,1000:35000:0.03,2000:60000:0.02,60:10000:0.02
[ -s "$gen.genome.fa" ] || $PY tests/reference.py satellites --seed 7 --length "$GENOME" --arrays "$ARRAYS" "$gen" > /dev/null
if [ ! -s "${g}_0001.fastq" ]; then
    pbsim --prefix "$g" --data-type CLR --depth "$DEPTH" --length-mean 10000 --length-sd 3000 --length-min 1000 \
        --length-max 30000 --accuracy-mean "$ACCURACY" --accuracy-sd 0.03 --accuracy-min "$acc_lo" --accuracy-max "$acc_hi" \
        --model_qc "${PBSIM_MODELS:-/usr/share/pbsim/models}/model_qc_clr" --seed 7 "$gen.genome.fa" > "$g.pbsim.log" 2>&1
fi
reads=${g}_0001.fastq
[ "${PREPARE_ONLY:-0}" = 1 ] && exit 0

BENCH_DIR=$d REPEATS=1
. bench/lib.sh

echo "# seqgpu scc -g overlap: $(uname -n), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $THREADS threads"
echo "# reads: $(awk 'NR % 4 == 2 {n++; b += length($0)} END {printf "%d reads, %.2f Gb", n, b / 1e9}' "$reads") (pbsim CLR, accuracy $ACCURACY ($acc_lo to $acc_hi), ${DEPTH}x of a $GENOME-base genome with arrays $ARRAYS)"
echo "# minimap2 $(minimap2 --version), seqgpu $("$SEQGPU" --version | head -1)"
echo
mm_t=- mm_m=-
if [ "$MINIMAP2" = 1 ]; then
    set -- $(run ovl_minimap2 minimap2 -x ava-pb -t "$THREADS" -o "$d/ovl_minimap2.paf" "$reads" "$reads")
    mm_t=$1 mm_m=$2
fi
set -- $(run ovl_seqgpu "$SEQGPU" scc -g overlap -b cpu -t "$THREADS" --stats "$d/ovl_seqgpu.json" --write-overlaps "$d/ovl_seqgpu.paf" -p "$d/ovl_seqgpu" "$reads")
sg_t=$1 sg_m=$2
if [ -z "${CUDA:-}" ]; then
    CUDA=0
    "$SEQGPU" version | grep -q '^backends:.*cuda' && { ls /dev/nvidia[0-9]* > /dev/null 2>&1 || nvidia-smi -L 2> /dev/null | grep -q '^GPU'; } && CUDA=1
fi
if [ "$CUDA" = 1 ]; then
    set -- $(run ovl_seqgpu_cuda "$SEQGPU" scc -g overlap -b cuda -t "$THREADS" --stats "$d/ovl_seqgpu_cuda.json" --write-overlaps "$d/ovl_seqgpu_cuda.paf" -p "$d/ovl_seqgpu_cuda" "$reads")
    sc_t=$1 sc_m=$2
    set -- $(run ovl_seqgpu_auto "$SEQGPU" scc -g overlap -b auto -t "$THREADS" --stats "$d/ovl_seqgpu_auto.json" --write-overlaps "$d/ovl_seqgpu_auto.paf" -p "$d/ovl_seqgpu_auto" "$reads")
    sa_t=$1 sa_m=$2
    for b in cuda auto; do
        for f in repeats.tsv gfa units.fa components.tsv repeats.svg paf; do
            cmp -s "$d/ovl_seqgpu.$f" "$d/ovl_seqgpu_$b.$f" || echo "# the $b run's $f differs from the cpu run's" >&2
        done
    done
fi
sp_t=- sp_m=-
if [ "$MINIMAP2" = 1 ]; then
    set -- $(run ovl_seqgpu_paf "$SEQGPU" scc -g overlap -t "$THREADS" --overlaps "$d/ovl_minimap2.paf" -p "$d/ovl_seqgpu_paf" "$reads")
    sp_t=$1 sp_m=$2
fi
own=$($PY -c "import json; s = json.load(open('$d/ovl_seqgpu.json'))['overlap_seconds']; print('%.3f' % (s['read'] + s['index'] + s['overlap']))")
printf '| what | tool | time (s) | peak RSS (MB) | minimap2 / tool |\n|---|---|---|---|---|\n'
printf '| overlaps | minimap2 -x ava-pb | %s | %s | 1.0 |\n' "$mm_t" "$mm_m"
printf '| overlaps (reading, index, overlapping) | seqgpu own overlapper | %s | (below) | %s |\n' "$own" "$(ratio "$mm_t" "$own")"
printf '| reads to repeats, whole run | seqgpu scc -g overlap -b cpu | %s | %s | %s |\n' "$sg_t" "$sg_m" "$(ratio "$mm_t" "$sg_t")"
if [ "$CUDA" = 1 ]; then
    own_c=$($PY -c "import json; s = json.load(open('$d/ovl_seqgpu_cuda.json'))['overlap_seconds']; print('%.3f' % (s['read'] + s['index'] + s['overlap']))")
    printf '| overlaps (reading, index on the device, overlapping) | seqgpu own overlapper, cuda | %s | (below) | %s |\n' "$own_c" "$(ratio "$mm_t" "$own_c")"
    printf '| reads to repeats, whole run | seqgpu scc -g overlap -b cuda | %s | %s | %s |\n' "$sc_t" "$sc_m" "$(ratio "$mm_t" "$sc_t")"
    printf '| reads to repeats, whole run | seqgpu scc -g overlap -b auto | %s | %s | %s |\n' "$sa_t" "$sa_m" "$(ratio "$mm_t" "$sa_t")"
fi
printf '| repeats from minimap2 PAF | seqgpu scc -g overlap --overlaps | %s | %s | |\n' "$sp_t" "$sp_m"
echo
echo "stage seconds, cpu: $($PY -c "import json; s = json.load(open('$d/ovl_seqgpu.json')); print(s['overlap_seconds'], 'scc', s['stage_seconds']['scc'], 'report', s['stage_seconds']['report'])")"
if [ "$CUDA" = 1 ]; then
    echo "stage seconds, cuda: $($PY -c "import json; s = json.load(open('$d/ovl_seqgpu_cuda.json')); print(s['overlap_seconds'], 'scc', s['stage_seconds']['scc'], 'report', s['stage_seconds']['report']); print('device index:', s['index_cuda'])")"
    auto_header cpu cuda
    auto_row "$(awk 'NR % 4 == 2 {b += length($0)} END {printf "%.2f Gb", b / 1e9}' "$reads") of CLR reads, accuracy $ACCURACY, $THREADS threads" \
        "$($PY -c "import json; print(json.load(open('$d/ovl_seqgpu_auto.json')).get('graph_backend_choice', '-'))")" "$sa_t" "$sg_t" "$sc_t"
fi
[ "${CHECK:-1}" = 1 ] || exit 0
echo
echo "dovetails of 2 kb and more (ovlcmp: a = seqgpu's, b = minimap2's):"
$PY tests/reference.py ovlcmp --maf "${g}_0001.maf" --arrays "$gen.arrays.tsv" "$d/ovl_seqgpu.paf" "$d/ovl_minimap2.paf"
echo
echo "arrays, own overlaps:"
$PY tests/reference.py satcheck --maf "${g}_0001.maf" --arrays "$gen.arrays.tsv" "$d/ovl_seqgpu"
echo "arrays, minimap2's overlaps:"
$PY tests/reference.py satcheck --maf "${g}_0001.maf" --arrays "$gen.arrays.tsv" "$d/ovl_seqgpu_paf"
