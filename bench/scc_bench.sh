#!/bin/sh
# seqgpu scc's de Bruijn graph beside KMC 3 (counting) and bcalm (graph
# building), in one run, same threads, peak RSS of each:
#   reads simulated at 30x (150 bp, 0.5% errors) from a synthetic genome
#   with interspersed and tandem repeats (bench/gen_genome.c): GENOME 5M
#   gives 1 M reads (299 MB of FASTQ), 50M gives 10 M (3 GB);
#   solid (-c 5, the whole solid graph): kmc -k31 -ci5 counting alone, bcalm
#   -abundance-min 5, and seqgpu scc whole runs (count, threshold, unitigs,
#   SCC, report) with -b cpu, and -b cuda and -b auto where a GPU is; then
#   -b cpu with --max-memory at bcalm's peak RSS, and at half of it;
#   repeats (the default threshold, 3 x the coverage): bcalm at the same
#   threshold, seqgpu's backends;
#   then the SCC stage on the oriented unitig graph and a random power-law
#   graph (NODES; 0 skips it): seqgpu's Tarjan against scipy.
# Ratios: seqgpu -b cpu against kmc (time / kmc's: <= 1.3 is KMC's speed)
# and bcalm (bcalm's time / seqgpu's), RSS against bcalm's, a bounded run
# against the normal one. Every seqgpu run of a case wrote the same files
# (compared). Environment: GENOME (5M), THREADS (nproc), BENCH_DIR
# (bench/data), NODES (2000000), REPEATS (1), SEQGPU (bin/seqgpu), CASES
# ("solid repeats").
set -eu
cd "$(dirname "$0")/.."
GENOME=${GENOME:-5M}
NODES=${NODES:-2000000}
THREADS=${THREADS:-$(nproc)}
BENCH_DIR=${BENCH_DIR:-bench/data}
SEQGPU=${SEQGPU:-bin/seqgpu}
CASES=${CASES:-solid repeats}
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
for t in kmc bcalm; do
    command -v $t > /dev/null || { echo "bench: $t is needed: apt-get install $t" >&2; exit 1; }
done
mkdir -p "$BENCH_DIR"
d=$(cd "$BENCH_DIR" && pwd)
[ -x build/bench/gen_genome ] && [ -x build/bench/sim_reads ] || make -s build/bench/gen_genome build/bench/sim_reads
[ -s "$d/scc_genome_$GENOME.fa" ] || build/bench/gen_genome "$GENOME" 5 > "$d/scc_genome_$GENOME.fa"
[ -s "$d/scc_reads_$GENOME.fq" ] || build/bench/sim_reads "$d/scc_genome_$GENOME.fa" 30 150 0.005 5 > "$d/scc_reads_$GENOME.fq"
cat "$d/scc_reads_$GENOME.fq" > /dev/null # into the page cache, for every tool alike

BENCH_DIR=$d REPEATS=${REPEATS:-1}
. bench/lib.sh

reads=$d/scc_reads_$GENOME.fq
GPU=0
"$SEQGPU" version | grep -q '^backends:.*cuda' && nvidia-smi -L 2> /dev/null | grep -q '^GPU' && GPU=1
BACKENDS="cpu"; [ $GPU = 1 ] && BACKENDS="cpu cuda auto"
echo "# seqgpu scc: $(uname -n), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $THREADS threads$([ $GPU = 1 ] && echo ", $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"); $("$SEQGPU" --version)"
echo "# reads: $(du -Lm "$reads" | cut -f1) MB ($GENOME genome from bench/gen_genome.c, 30x, 150 bp, 0.5% errors); kmc $(kmc 2>&1 | sed -n 's/.*ver\. *\([0-9.]*\).*/\1/p' | head -1), bcalm $(dpkg-query -W -f '${Version}' bcalm 2> /dev/null || echo "(version unknown)")"
echo
json() { $PY -c "import json,sys; s=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
printf '| case | tool | time (s) | peak RSS (MB) | result | vs |\n|---|---|---|---|---|---|\n'
for case in $CASES; do
    opt=""; [ $case = solid ] && opt="-c 5"
    first=""
    for be in $BACKENDS; do
        set -- $(run scc_${case}_$be "$SEQGPU" scc -b $be -t "$THREADS" $opt --stats "$d/scc_${case}_$be.json" --write-graph "$d/scc_${case}_$be.whole.gfa" -p "$d/scc_${case}_$be" "$reads")
        eval "t_$be=$1 m_$be=$2"
        if [ -z "$first" ]; then
            first=$be
        else
            for f in repeats.tsv gfa units.fa components.tsv whole.gfa; do
                cmp -s "$d/scc_${case}_$first.$f" "$d/scc_${case}_$be.$f" || echo "# WARNING: -b $be and -b $first write different $f ($case)"
            done
        fi
    done
    j=$d/scc_${case}_cpu.json
    threshold=$(json "$j" "s['threshold']")
    unitigs=$(json "$j" "s['nodes']")
    stages=$(json "$j" "'count %.2f, coverage %.2f, unitigs %.2f, scc %.3f, report %.3f s; %d k-mers, %d distinct, %d kept; bins %d' % (s['stage_seconds']['count'], s['stage_seconds']['coverage'], s['stage_seconds']['compact'], s['stage_seconds']['scc'], s['stage_seconds']['report'], s['kmers'], s['distinct_kmers'], s['kept_kmers'], s['graph_cpu']['bins'])")
    set -- $(cd "$d" && run scc_bcalm_$case bcalm -in "$reads" -kmer-size 31 -abundance-min "$threshold" -nb-cores "$THREADS" -out "$d/scc_bcalm_$case" -verbose 0)
    bc_t=$1 bc_m=$2
    bc_n=$(grep -c '^>' "$d/scc_bcalm_$case.unitigs.fa" || true)
    if [ $case = solid ]; then
        mkdir -p "$d/kmc_tmp"
        set -- $(run scc_kmc kmc -k31 -t"$THREADS" -ci5 "$reads" "$d/scc_kmc" "$d/kmc_tmp")
        printf '| %s | kmc -k31 -ci5 (counting alone) | %s | %s | %s k-mers >= 5 | seqgpu cpu / kmc %sx |\n' "$case" "$1" "$2" \
            "$(sed -n 's/.*unique counted k-mers *: *//p' "$d/scc_kmc.out" | head -1)" "$(awk -v a="$t_cpu" -v b="$1" 'BEGIN {printf "%.2f", a / b}')"
    fi
    printf '| %s | bcalm, abundance >= %s | %s | %s | %s unitigs | 1.0 |\n' "$case" "$threshold" "$bc_t" "$bc_m" "$bc_n"
    for be in $BACKENDS; do
        eval "t=\$t_$be m=\$m_$be"
        why=""; [ $be = auto ] && why=" ($(json "$d/scc_${case}_auto.json" "s.get('graph_backend_choice', s.get('backend_choice', '-'))"))"
        printf '| %s | seqgpu scc -b %s%s | %s | %s (%s of bcalm) | %s unitigs | bcalm / seqgpu %sx |\n' "$case" "$be" "$why" "$t" "$m" \
            "$(awk -v a="$m" -v b="$bc_m" 'BEGIN {printf "%.2f", a / b}')" "$unitigs" "$(ratio "$bc_t" "$t")"
    done
    if [ $case = solid ]; then
        mkdir -p "$d/scc_tmp"
        for share in 1 2; do
            lim=$((bc_m / share))M
            rm -f "$d/scc_bounded_$share".*
            set -- $(run scc_bounded_$share "$SEQGPU" scc -b cpu -t "$THREADS" $opt --max-memory "$lim" --tmp-dir "$d/scc_tmp" --stats "$d/scc_bounded_$share.json" -p "$d/scc_bounded_$share" "$reads")
            if [ -s "$d/scc_bounded_$share.repeats.tsv" ]; then
                cmp -s "$d/scc_solid_cpu.repeats.tsv" "$d/scc_bounded_$share.repeats.tsv" || echo "# WARNING: --max-memory $lim writes other repeats"
                spilled=$(json "$d/scc_bounded_$share.json" "'%.0f MB spilled' % (s['graph_cpu']['spilled_bytes'] / 1048576)")
            else
                spilled="refused: $(tail -1 "$d/scc_bounded_$share.err")"
            fi
            printf '| %s | seqgpu scc -b cpu --max-memory %s | %s | %s | %s | bounded / normal %sx |\n' "$case" "$lim" "$1" "$2" \
                "$spilled" "$(awk -v a="$1" -v b="$t_cpu" 'BEGIN {printf "%.2f", a / b}')"
        done
    fi
    eval "stages_$case='$stages'"
done
echo
for case in $CASES; do echo "seqgpu scc -b cpu stages, $case: $(eval echo \"\$stages_$case\")"; done
[ "$NODES" = 0 ] && exit 0

# the oriented unitig graph as an edge list (vertex 2i: segment i +, 2i+1: -), and a power-law graph
echo
printf '| step | tool | time (s) | result | scipy / seqgpu |\n|---|---|---|---|---|\n'
awk -F'\t' 'function flip(x) {return x % 2 ? x - 1 : x + 1}
    $1 == "S" {id[$2] = n++} $1 == "L" {u = 2 * id[$2] + ($3 == "-"); v = 2 * id[$4] + ($5 == "-");
    print u, v; print flip(v), flip(u)}' "$d/scc_solid_cpu.whole.gfa" > "$d/scc_unitig_edges.txt"
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
    set -- $(run scc_edges_$g "$SEQGPU" scc -q -b cpu -t "$THREADS" --edges "$d/$g.txt" --stats "$d/scc_edges.json" -p "$d/scc_edges")
    set -- $(json "$d/scc_edges.json" "'%.3f %d %d %d' % (s['stage_seconds']['scc'], s['nodes'], s['edges'], s['components'])")
    py_out=$($PY bench/scipy_scc.py "$d/$g.txt")
    printf '| SCC of %s (%s nodes, %s edges) | scipy connected_components | %s | %s components | 1.0 |\n' "$g" "$2" "$3" "${py_out% *}" "${py_out#* }"
    printf '| SCC of %s | seqgpu scc --edges (Tarjan) | %s | %s components | %s |\n' "$g" "$1" "$4" "$(ratio "${py_out% *}" "$1")"
done
