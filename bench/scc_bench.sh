#!/bin/sh
# seqgpu scc beside bcalm (graph building) and scipy (SCC), in one run.
#   1. reads simulated at 30x (150 bp, 0.5% errors) from a synthetic genome
#      with interspersed and tandem repeats (gen_genome): seqgpu scc whole
#      (count, coverage, unitigs, SCC, report) against bcalm building the
#      unitigs with the same k, abundance threshold and threads;
#   2. SCC of the same oriented unitig graph, and of a random power-law graph,
#      through --edges: seqgpu's Tarjan against scipy's connected_components.
# Environment: GENOME (genome size, 5M), NODES (power-law graph nodes, 2000000),
# THREADS (nproc), BENCH_DIR (bench/data).
set -eu
cd "$(dirname "$0")/.."
GENOME=${GENOME:-5M}
NODES=${NODES:-2000000}
THREADS=${THREADS:-$(nproc)}
BENCH_DIR=${BENCH_DIR:-bench/data}
SEQGPU=${SEQGPU:-bin/seqgpu}
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
mkdir -p "$BENCH_DIR"
d=$(cd "$BENCH_DIR" && pwd)
[ -s "$d/scc_genome_$GENOME.fa" ] || build/bench/gen_genome "$GENOME" 5 > "$d/scc_genome_$GENOME.fa"
[ -s "$d/scc_reads_$GENOME.fq" ] || build/bench/sim_reads "$d/scc_genome_$GENOME.fa" 30 150 0.005 5 > "$d/scc_reads_$GENOME.fq"

BENCH_DIR=$d REPEATS=1
. bench/lib.sh

reads=$d/scc_reads_$GENOME.fq
echo "# seqgpu scc: $(uname -n), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $THREADS threads"
echo "# reads: $(du -m "$reads" | cut -f1) MB ($GENOME genome from bench/gen_genome.c, 30x, 150 bp, 0.5% errors)"
echo
printf '| step | tool | time (s) | peak RSS (MB) | result | bcalm or scipy / seqgpu |\n|---|---|---|---|---|---|\n'
# two thresholds: the default (3 x coverage: the repeats) and 5 (the whole solid graph)
for case in repeats solid; do
    opt=""; [ $case = solid ] && opt="-c 5"
    set -- $(run scc_seqgpu_$case "$SEQGPU" scc -t "$THREADS" $opt --stats "$d/scc_$case.json" --write-graph "$d/scc_whole_$case.gfa" -p "$d/scc_out_$case" "$reads")
    sg_t=$1 sg_m=$2
    threshold=$($PY -c "import json; print(json.load(open('$d/scc_$case.json'))['threshold'])")
    unitigs=$($PY -c "import json; print(json.load(open('$d/scc_$case.json'))['nodes'])")
    stages=$($PY -c "import json; s=json.load(open('$d/scc_$case.json'))['stage_seconds']; print('count %.2f s, coverage %.2f, unitigs %.2f, scc %.3f, report %.3f' % (s['count'], s['coverage'], s['compact'], s['scc'], s['report']))")
    set -- $(cd "$d" && run scc_bcalm_$case bcalm -in "$reads" -kmer-size 31 -abundance-min "$threshold" -nb-cores "$THREADS" -out "$d/scc_bcalm_$case" -verbose 0)
    bc_t=$1 bc_m=$2
    bc_n=$(grep -c '^>' "$d/scc_bcalm_$case.unitigs.fa" || true)
    printf '| graph build, k 31, abundance >= %s | bcalm | %s | %s | %s unitigs | 1.0 |\n' "$threshold" "$bc_t" "$bc_m" "$bc_n"
    printf '| graph build + SCC + report | seqgpu scc | %s | %s | %s unitigs | %s |\n' "$sg_t" "$sg_m" "$unitigs" \
        "$(ratio "$bc_t" "$sg_t")"
    eval "stages_$case='$stages'"
done

# the oriented unitig graph as an edge list (vertex 2i: segment i +, 2i+1: -), and a power-law graph
awk -F'\t' 'function flip(x) {return x % 2 ? x - 1 : x + 1}
    $1 == "S" {id[$2] = n++} $1 == "L" {u = 2 * id[$2] + ($3 == "-"); v = 2 * id[$4] + ($5 == "-");
    print u, v; print flip(v), flip(u)}' "$d/scc_whole_solid.gfa" > "$d/scc_unitig_edges.txt"
[ -s "$d/powerlaw_$NODES.txt" ] || $PY - "$NODES" > "$d/powerlaw_$NODES.txt" <<'PY'
import sys, numpy as np
n = int(sys.argv[1]); rng = np.random.default_rng(1)
# heavy-tailed in-degrees (targets from a Zipf law over a random ranking), random
# sources, 3 edges per node on average: a giant SCC and a long tail of small ones
rank = rng.permutation(n)
src = rng.integers(0, n, size=3 * n)
dst = rank[np.minimum(rng.zipf(1.5, size=3 * n) - 1, n - 1)]
dst = np.where(rng.random(3 * n) < 0.5, rng.integers(0, n, size=3 * n), dst)
np.savetxt(sys.stdout, np.stack([src, dst], axis=1), fmt='%d')
PY
for g in scc_unitig_edges powerlaw_$NODES; do
    set -- $(run scc_edges_$g "$SEQGPU" scc -q -t "$THREADS" --edges "$d/$g.txt" --stats "$d/scc_edges.json" -p "$d/scc_edges")
    sg_scc=$($PY -c "import json; s=json.load(open('$d/scc_edges.json')); print('%.3f %d %d %d' % (s['stage_seconds']['scc'], s['nodes'], s['edges'], s['components']))")
    set -- $sg_scc
    py_out=$($PY bench/scipy_scc.py "$d/$g.txt")
    printf '| SCC of %s (%s nodes, %s edges) | scipy connected_components | %s | | %s components | 1.0 |\n' "$g" "$2" "$3" "${py_out% *}" "${py_out#* }"
    printf '| SCC of %s | seqgpu scc --edges (Tarjan) | %s | | %s components | %s |\n' "$g" "$1" "$4" \
        "$(ratio "${py_out% *}" "$1")"
done
echo
echo "seqgpu scc stages, repeats: $stages_repeats"
echo "seqgpu scc stages, solid:   $stages_solid"
