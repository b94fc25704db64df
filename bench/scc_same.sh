#!/bin/sh
# Two seqgpu builds give the same scc files, byte for byte: every report
# file, the whole graph (--write-graph) and the k-mer figures of --stats
# (totals, histogram, coverage, threshold, kept), on the suites' read sets
# (tests/reference.py sim with the suites' seeds, the examples), real reads
# and genomes from Debian packages (spades' E. coli reads, kleborate's
# Klebsiella assemblies), over k, thresholds, thread counts, standard input,
# gzip, --part/--counts and --max-memory.
#
#   sh bench/scc_same.sh OLD_SEQGPU [NEW_SEQGPU]
# Environment: BENCH_DIR (bench/data), QUICK (1: fewer settings), READS
# (more FASTQ files to add to the sets), SAME_OPTS (options for both
# builds' runs, e.g. "-b cuda" to compare two builds on the GPU).
set -eu
cd "$(dirname "$0")/.."
OLD=${1:?usage: scc_same.sh OLD_SEQGPU [NEW_SEQGPU]}
NEW=${2:-bin/seqgpu}
BENCH_DIR=${BENCH_DIR:-bench/data}
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
mkdir -p "$BENCH_DIR/same"
d=$(cd "$BENCH_DIR/same" && pwd)
sets=""
sim() { # sim NAME ARGS...: a read set of tests/reference.py
    name=$1; shift
    [ -s "$d/$name.reads.fq" ] || $PY tests/reference.py sim "$@" "$d/$name" > /dev/null
    sets="$sets $d/$name.reads.fq"
}
sim s5 --seed 5 --periods 1,2,7,31,171 --unique 30000 --errors 0.005
sim s6 --seed 6 --periods 1,2,7,31,171 --unique 30000 --errors 0.005
sim s3 --seed 3 --periods 1,2,3,5,8,13,21,34,55,89,144,200 --errors 0.005
sim s2 --seed 2 --periods 5,40 --unique 200000 --coverage 60
sim s8 --seed 8 --periods 5,40 --unique 3000 --errors 0.01
sim s9 --seed 9 --periods 3,11,60 --unique 8000
sim s11 --seed 11 --periods 31,171,200 --unique 300 --coverage 8
sets="$sets examples/lambda_reads.fq.gz examples/tandem_reads.fq.gz"
[ -s /usr/share/spades/test_dataset/ecoli_1K_1.fq.gz ] &&
    sets="$sets /usr/share/spades/test_dataset/ecoli_1K_1.fq.gz"
for g in /usr/share/doc/kleborate/examples/data/MGH78578.fna.xz; do
    [ -s "$g" ] || continue
    [ -s "$d/kleb.fa" ] || xz -dc "$g" > "$d/kleb.fa"
    sets="$sets $d/kleb.fa"
done
sets="$sets ${READS:-}"

fails=0 runs=0
# same TAG OPTIONS... -- INPUTS...: both builds, every file compared; the
# new build with NEW_OPTS too (a run in bounded memory against a plain one)
same() {
    tag=$1; shift
    opts=""
    while [ "$1" != -- ]; do opts="$opts $1"; shift; done
    shift
    for b in old new; do
        bin=$OLD more=""
        [ $b = new ] && bin=$NEW more=${NEW_OPTS:-}
        rm -f "$d/$b".*
        # shellcheck disable=SC2086
        "$bin" scc -q ${SAME_OPTS:-} $opts $more --write-graph "$d/$b.whole.gfa" --stats "$d/$b.json" -p "$d/$b" "$@" \
            < "${STDIN:-/dev/null}" 2> "$d/$b.err" || echo "exit $?" >> "$d/$b.err"
    done
    runs=$((runs + 1))
    bad=""
    for f in repeats.tsv gfa units.fa components.tsv spectrum.svg repeats.svg whole.gfa err; do
        if [ -e "$d/old.$f" ] || [ -e "$d/new.$f" ]; then cmp -s "$d/old.$f" "$d/new.$f" || bad="$bad $f"; fi
    done
    $PY - "$d/old.json" "$d/new.json" <<'PY' || bad="$bad stats"
import json, sys
try:
    a, b = (json.load(open(f)) for f in sys.argv[1:])
except FileNotFoundError:
    sys.exit(0)
for key in ('kmers', 'distinct_kmers', 'histogram', 'coverage', 'threshold', 'kept_kmers', 'nodes', 'edges',
            'components', 'repeats'):
    if a.get(key) != b.get(key):
        sys.exit(1)
PY
    if [ -n "$bad" ]; then
        fails=$((fails + 1))
        echo "DIFFER ($bad ): $tag"
    fi
}

ks="31 11 21 33 63"
[ -n "${QUICK:-}" ] && ks=31
for s in $sets; do
    name=$(basename "$s")
    for k in $ks; do
        same "$name -k $k" -k "$k" -- "$s"
        same "$name -k $k -c 2" -k "$k" -c 2 -- "$s"
    done
    same "$name -c 1" -c 1 -- "$s"
    same "$name -c 5 -t 1" -c 5 -t 1 -- "$s"
    same "$name -c 5 -t 3" -c 5 -t 3 -- "$s"
    same "$name --min-copies 1.5" --min-copies 1.5 -- "$s"
done
# standard input, the same reads gzipped, two inputs
STDIN=$d/s5.reads.fq same "stdin" -c 3 -- -
gzip -c "$d/s6.reads.fq" > "$d/s6.fq.gz"
same "gzip" -- "$d/s6.fq.gz"
same "two inputs" -- "$d/s5.reads.fq" "$d/s6.reads.fq"
# the new build in bounded memory (spilling to a file) against the old one's plain run
mkdir -p "$d/tmp"
for m in 40M 60M 200M; do
    for s in $d/s5.reads.fq $d/s2.reads.fq; do
        NEW_OPTS="--max-memory $m --tmp-dir $d/tmp" same "$(basename "$s") -t 2 --max-memory $m" -t 2 -- "$s"
    done
done
# -c 1 keeps every k-mer: a limit that holds their graph (a lower one is refused, saying so)
for s in $d/s5.reads.fq $d/s2.reads.fq; do
    NEW_OPTS="--max-memory 200M --tmp-dir $d/tmp" same "$(basename "$s") -c 1 --max-memory 200M" -c 1 -- "$s"
done
[ -z "$(ls -A "$d/tmp")" ] || { echo "left in the temporary folder: $(ls -A "$d/tmp")"; fails=$((fails + 1)); }
echo "$runs runs, $fails differ"
[ "$fails" = 0 ]
