#!/bin/sh
# seqgpu scc -x clr|ont|hifi on pbsim reads of each kind, over their
# accuracies (issue 24): a genome with satellite arrays (periods 6 to 2000,
# 12 to 60 kb) in unique sequence carrying interspersed repeats (direct and
# inverted copies of 5 and 8 kb, rRNA-operon-like 5 kb copies, IS-like 1.5
# kb, an Alu-like family; tests/reference.py satellites --families); reads:
#   clr  pbsim's CLR model, 10 kb mean, at ACC_CLR;
#   ont  pbsim's CLR model at ACC_ONT, deletions the most (23:31:46), 12 kb mean;
#   hifi pbsim's CCS model (98%), 12 kb mean;
# each preset on each set (its own, and the others'), and for each run: the
# arrays longer than 1.5 reads found with their period within 3% (and those
# shorter), components from unique sequence (tests/reference.py satcheck),
# the median error of the arrays' lengths, the share of implied overlaps
# found (the noisy-reads warning under 98%), seconds and peak memory.
# Environment: GENOME (bases, 2000000), DEPTH (20), ACC_CLR ("0.85 0.88
# 0.92"), ACC_ONT ("0.88 0.92 0.95"), THREADS (nproc), BENCH_DIR
# (bench/data), SEQGPU (bin/seqgpu), PBSIM_MODELS.
set -eu
cd "$(dirname "$0")/.."
GENOME=${GENOME:-2000000}
DEPTH=${DEPTH:-20}
ACC_CLR=${ACC_CLR:-0.85 0.88 0.92}
ACC_ONT=${ACC_ONT:-0.88 0.92 0.95}
THREADS=${THREADS:-$(nproc)}
BENCH_DIR=${BENCH_DIR:-bench/data}
SEQGPU=${SEQGPU:-bin/seqgpu}
MODELS=${PBSIM_MODELS:-/usr/share/pbsim/models}
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
command -v pbsim > /dev/null || { echo "bench: pbsim is needed: apt-get install pbsim" >&2; exit 1; }
mkdir -p "$BENCH_DIR"
d=$(cd "$BENCH_DIR" && pwd)/presets
mkdir -p "$d"
BENCH_DIR=$d REPEATS=1
. bench/lib.sh
g=$d/genome
ARRAYS=6:20000:0.02,13:30000:0.01,42:15000:0.03,171:45000:0.02,360:12000:0.01,1000:35000:0.03,2000:60000:0.02,60:12000:0.02
FAMILIES=5000:2:0:+,8000:2:0.01:mixed,5000:7:0.002:mixed,1500:10:0,300:1000:0.12
[ -s "$g.genome.fa" ] || $PY tests/reference.py satellites --seed 11 --length "$GENOME" --arrays "$ARRAYS" \
    --families "$FAMILIES" --spacing 30000 "$g" > /dev/null

# sim NAME ARGS...: pbsim reads into $d/NAME_0001.fastq
sim() {
    name=$1
    shift
    [ -s "$d/${name}_0001.fastq" ] || (cd "$d" && pbsim --prefix "$name" --depth "$DEPTH" "$@" --seed 1 "$g.genome.fa" > "$name.log" 2>&1)
}
sets=""
for a in $ACC_CLR; do
    sim "clr$a" --data-type CLR --length-mean 10000 --length-sd 3000 --length-min 1000 --length-max 30000 \
        --accuracy-mean "$a" --accuracy-sd 0.02 --accuracy-min 0.75 --model_qc "$MODELS/model_qc_clr"
    sets="$sets clr$a"
done
for a in $ACC_ONT; do
    sim "ont$a" --data-type CLR --length-mean 12000 --length-sd 5000 --length-min 1000 --length-max 50000 \
        --accuracy-mean "$a" --accuracy-sd 0.02 --accuracy-min 0.75 --difference-ratio 23:31:46 --model_qc "$MODELS/model_qc_clr"
    sets="$sets ont$a"
done
sim hifi --data-type CCS --length-mean 12000 --length-sd 3000 --length-min 2000 --length-max 30000 --model_qc "$MODELS/model_qc_ccs"
sets="$sets hifi"

echo "# seqgpu scc -x: $(uname -n), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $THREADS threads"
echo "# genome: $GENOME bases, arrays $ARRAYS, families $FAMILIES; pbsim ${DEPTH}x; seqgpu $("$SEQGPU" --version | head -1)"
echo
echo "| reads | preset | arrays >= 1.5 reads found | shorter found | unique components | length error (median) | implied overlaps found | seconds | peak MB |"
echo "|---|---|---|---|---|---|---|---|---|"
for s in $sets; do
    for x in clr ont hifi; do
        set -- $(run "$s.$x" "$SEQGPU" scc -x $x -t "$THREADS" -p "$d/$s.$x" --stats "$d/$s.$x.json" "$d/${s}_0001.fastq")
        t=$1 m=$2
        $PY tests/reference.py satcheck --maf "$d/${s}_0001.maf" --arrays "$g.arrays.tsv" "$d/$s.$x" > "$d/$s.$x.check" || true
        row=$($PY - "$g.arrays.tsv" "$d/$s.$x.repeats.tsv" "$d/$s.$x.json" "$d/$s.$x.check" <<'PY'
import json, sys
arrays = [l.split('\t') for l in open(sys.argv[1]).read().split('\n')[1:] if l]
head, *reps = [l.split('\t') for l in open(sys.argv[2]).read().split('\n') if l]
st = json.load(open(sys.argv[3]))
check = open(sys.argv[4]).read().split('\n')
req = [l.split('\t') for l in check if l.startswith('array\t')]
need = [r for r in req if r[-1] == 'required']
def found(r):
    p = int(r[4])
    return any(abs(int(x) - p) <= 0.03 * p for x in r[6].split(',') if x != '-')
errs = []
for a in arrays:
    p, n = int(a[2]), int(a[1]) - int(a[0])
    got = [x for x in reps if abs(int(x[4]) - p) <= 0.03 * p]
    if got:
        errs.append(abs(int(got[0][head.index('length')]) - n) / n)
errs.sort()
unique = sum(l.startswith('unique_component') for l in check)
rec = st['implied_overlaps_found'] / max(1, st['implied_overlaps'])
print('%d of %d | %d of %d | %d | %s | %.1f%% |' % (sum(map(found, need)), len(need),
      sum(found(r) for r in req if r[-1] != 'required'), len(req) - len(need), unique,
      '%.0f%%' % (100 * errs[len(errs) // 2]) if errs else '-', 100 * rec))
PY
)
        echo "| $s | $x | $row $t | $m |"
    done
done
