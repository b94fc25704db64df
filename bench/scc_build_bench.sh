#!/bin/sh
# Graph building from reads: seqgpu scc -b cuda (k-mers counted, filtered and
# compacted on the device) beside -b cpu and bcalm, same reads, same k (31),
# same abundance threshold, same threads, one run. Reads: READS x 150 bp at
# 30x from a synthetic genome (bench/gen_genome.c, bench/sim_reads.c; 0.5%
# errors). The cuda and cpu runs must write the same graph (compared).
#
# Environment: READS (10000000), THREADS (nproc), BENCH_DIR (bench/data),
# REPEATS (1), BCALM (bcalm)
set -eu
cd "$(dirname "$0")/.."
READS=${READS:-10000000}
THREADS=${THREADS:-$(nproc)}
BENCH_DIR=${BENCH_DIR:-bench/data}
SEQGPU=${SEQGPU:-bin/seqgpu}
BCALM=${BCALM:-bcalm}
REPEATS=${REPEATS:-1}
PY=python3
mkdir -p "$BENCH_DIR"
d=$(cd "$BENCH_DIR" && pwd)
BENCH_DIR=$d
. bench/lib.sh

genome=$((READS * 150 / 30))
[ -s "$d/build_genome_$genome.fa" ] || build/bench/gen_genome "$genome" 5 > "$d/build_genome_$genome.fa"
reads=$d/build_reads_$READS.fq
[ -s "$reads" ] || build/bench/sim_reads "$d/build_genome_$genome.fa" 30 150 0.005 5 > "$reads"
cat "$reads" > /dev/null

echo "# graph build: $(uname -n), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $THREADS threads; $("$SEQGPU" --version); reads $(du -m "$reads" | cut -f1) MB ($(awk 'END {print NR / 4}' "$reads") reads)"
echo
printf '| case | tool | time (s) | peak RSS (MB) | unitigs | vs bcalm |\n|---|---|---|---|---|---|\n'
stages() {
    $PY -c "import json,sys; s=json.load(open(sys.argv[1])); t=s['stage_seconds']; print('count %.2f, coverage %.2f, unitigs %.2f, scc %.3f, report %.3f; distinct %d, kept %d' % (t['count'], t['coverage'], t['compact'], t['scc'], t['report'], s['distinct_kmers'], s['kept_kmers']) + ('; device: ' + ', '.join('%s %s' % kv for kv in s['graph_cuda'].items()) if 'graph_cuda' in s else ''))" "$1"
}
for case in repeats solid; do
    opt=""; [ $case = solid ] && opt="-c 5"
    for be in cpu cuda; do
        set -- $(run build_${be}_$case "$SEQGPU" scc -b $be -t "$THREADS" $opt --stats "$d/build_${be}_$case.json" --write-graph "$d/build_${be}_$case.gfa" -p "$d/build_out_${be}_$case" "$reads")
        eval "t_$be=$1 m_$be=$2"
    done
    cmp -s "$d/build_cpu_$case.gfa" "$d/build_cuda_$case.gfa" || echo "# WARNING: cuda and cpu graphs differ ($case)"
    for f in repeats.tsv units.fa components.tsv; do
        cmp -s "$d/build_out_cpu_$case.$f" "$d/build_out_cuda_$case.$f" || echo "# WARNING: cuda and cpu $f differ ($case)"
    done
    threshold=$($PY -c "import json; print(json.load(open('$d/build_cpu_$case.json'))['threshold'])")
    unitigs=$($PY -c "import json; print(json.load(open('$d/build_cpu_$case.json'))['nodes'])")
    set -- $(cd "$d" && run build_bcalm_$case "$BCALM" -in "$reads" -kmer-size 31 -abundance-min "$threshold" -nb-cores "$THREADS" -out "$d/build_bcalm_$case" -verbose 0)
    bc_t=$1 bc_m=$2
    bc_n=$(grep -c '^>' "$d/build_bcalm_$case.unitigs.fa" || true)
    printf '| %s (abundance >= %s) | bcalm -nb-cores %s | %s | %s | %s | 1.0 |\n' "$case" "$threshold" "$THREADS" "$bc_t" "$bc_m" "$bc_n"
    printf '| %s | seqgpu scc -b cpu (graph + SCC + report) | %s | %s | %s | %sx |\n' "$case" "$t_cpu" "$m_cpu" "$unitigs" "$(ratio "$bc_t" "$t_cpu")"
    printf '| %s | seqgpu scc -b cuda (graph + SCC + report) | %s | %s | %s | %sx |\n' "$case" "$t_cuda" "$m_cuda" "$unitigs" "$(ratio "$bc_t" "$t_cuda")"
    echo "stages cpu:  $(stages "$d/build_cpu_$case.json")" >&2
    echo "stages cuda: $(stages "$d/build_cuda_$case.json")" >&2
done
