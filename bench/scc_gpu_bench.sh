#!/bin/sh
# SCC on large graphs: seqgpu scc -b cuda (the patent pipeline) beside
# -b cpu (iterative Tarjan) and scipy's connected_components, same graphs,
# same run:
#   dbg        the uncompacted de Bruijn graph (k 31) of a synthetic genome
#              (bench/gen_genome.c, GENOME bases): one vertex per oriented k-mer
#   compacted  the same graph compacted into unitigs (seqgpu scc -c 1 on the
#              genome), as an oriented edge list
#   powerlaw   a random graph of NODES nodes and 3 NODES edges, heavy-tailed
#              in-degrees (bench/gen_graph.c)
# Times are the SCC stage alone (seqgpu's --stats scc seconds; scipy's call),
# since reading a 500 MB edge list takes longer than either; end-to-end
# times and peak RSS are printed too, and -b auto's end to end against both
# backends' in a last table. Then a kw x kv sweep on the cuda side.
#
# Environment: GENOME (6M), NODES (10000000), THREADS (nproc), BENCH_DIR (bench/data),
# GRAPHS ("dbg compacted powerlaw"), SWEEP ("1x1 4x2 2x1 32x1 8x4": kw x kv pairs),
# KT_SWEEP ("0 1 4": kt values tried on the power-law graph)
set -eu
cd "$(dirname "$0")/.."
GENOME=${GENOME:-6M}
NODES=${NODES:-10000000}
THREADS=${THREADS:-$(nproc)}
BENCH_DIR=${BENCH_DIR:-bench/data}
SWEEP=${SWEEP-1x1 4x2 2x1 32x1 8x4}
KT_SWEEP=${KT_SWEEP-0 1 4}
GRAPHS=${GRAPHS:-dbg compacted powerlaw}
names=""
for g in $GRAPHS; do
    case $g in
    dbg | compacted) names="$names ${g}_$GENOME" ;;
    powerlaw) names="$names powerlaw_$NODES" ;;
    *) echo "scc_gpu_bench: unknown graph '$g'" >&2; exit 1 ;;
    esac
done
SEQGPU=${SEQGPU:-bin/seqgpu}
PY=python3
mkdir -p "$BENCH_DIR"
d=$(cd "$BENCH_DIR" && pwd)
BENCH_DIR=$d REPEATS=1
. bench/lib.sh

[ -s "$d/sccg_genome_$GENOME.fa" ] || build/bench/gen_genome "$GENOME" 7 > "$d/sccg_genome_$GENOME.fa"
[ -s "$d/sccg_dbg_$GENOME.txt" ] || build/bench/gen_graph dbg "$d/sccg_genome_$GENOME.fa" 31 > "$d/sccg_dbg_$GENOME.txt"
case " $GRAPHS " in *" powerlaw "*) ;; *) NODES=0 ;; esac
[ "$NODES" = 0 ] || [ -s "$d/sccg_powerlaw_$NODES.txt" ] || build/bench/gen_graph powerlaw "$NODES" 1 > "$d/sccg_powerlaw_$NODES.txt"
if [ ! -s "$d/sccg_compacted_$GENOME.txt" ]; then
    "$SEQGPU" scc -q -b cpu -c 1 -t "$THREADS" --write-graph "$d/sccg_compacted_$GENOME.gfa" -p "$d/sccg_tmp" "$d/sccg_genome_$GENOME.fa"
    awk -F'\t' 'function flip(x) {return x % 2 ? x - 1 : x + 1}
        $1 == "S" {id[$2] = n++} $1 == "L" {u = 2 * id[$2] + ($3 == "-"); v = 2 * id[$4] + ($5 == "-");
        print u, v; print flip(v), flip(u)}' "$d/sccg_compacted_$GENOME.gfa" > "$d/sccg_compacted_$GENOME.txt"
fi

echo "# SCC: $(uname -n), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $THREADS threads; $("$SEQGPU" --version)"
echo
printf '| graph | vertices | edges | tool | SCC time (s) | end to end (s) | peak RSS (MB) | components | vs |\n|---|---|---|---|---|---|---|---|---|\n'
scc_json() { $PY -c "import json,sys; s=json.load(open(sys.argv[1])); print('%.4f %d %d %d' % (s['stage_seconds']['scc'], s['nodes'], s['edges'], s['components']))" "$1"; }
for g in $names; do
    f=$d/sccg_$g.txt
    set -- $(run sccg_cpu_$g "$SEQGPU" scc -q -b cpu -t "$THREADS" --edges "$f" --stats "$d/sccg_cpu_$g.json" -p "$d/sccg_cpu_$g")
    cpu_e=$1 cpu_m=$2
    set -- $(scc_json "$d/sccg_cpu_$g.json"); cpu_t=$1 nv=$2 ne=$3 nc=$4
    set -- $(run sccg_cuda_$g "$SEQGPU" scc -q -b cuda -t "$THREADS" --edges "$f" --stats "$d/sccg_cuda_$g.json" -p "$d/sccg_cuda_$g")
    cu_e=$1 cu_m=$2
    set -- $(scc_json "$d/sccg_cuda_$g.json"); cu_t=$1 cu_c=$4
    set -- $(run sccg_auto_$g "$SEQGPU" scc -q -b auto -t "$THREADS" --edges "$f" --stats "$d/sccg_auto_$g.json" -p "$d/sccg_auto_$g")
    au_e=$1
    au_why=$($PY -c "import json,sys; print(json.load(open(sys.argv[1])).get('backend_choice', '-'))" "$d/sccg_auto_$g.json")
    summary="${summary:+$summary
}$g|$au_why|$au_e|$cpu_e|$cu_e"
    for b in cuda auto; do
        cmp -s "$d/sccg_cpu_$g.components.tsv" "$d/sccg_${b}_$g.components.tsv" || echo "# WARNING: $b and cpu components differ ($g)"
    done
    py=$($PY bench/scipy_scc.py "$f")
    printf '| %s | %s | %s | scipy connected_components | %s | | | %s | |\n' "$g" "$nv" "$ne" "${py% *}" "${py#* }"
    printf '| %s | | | seqgpu -b cpu (Tarjan) | %s | %s | %s | %s | scipy/cpu %sx |\n' "$g" "$cpu_t" "$cpu_e" "$cpu_m" "$nc" "$(ratio "${py% *}" "$cpu_t")"
    printf '| %s | | | seqgpu -b cuda | %s | %s | %s | %s | cpu/cuda %sx, scipy/cuda %sx |\n' "$g" "$cu_t" "$cu_e" "$cu_m" "$cu_c" \
        "$(ratio "$cpu_t" "$cu_t")" "$(ratio "${py% *}" "$cu_t")"
done
auto_header cpu cuda
echo "$summary" | while IFS='|' read -r g why au cpu cu; do auto_row "$g (end to end)" "$why" "$au" "$cpu" "$cu"; done
echo
for g in $names; do
    echo "cuda stages, $g: $($PY -c "import json,sys; c=json.load(open(sys.argv[1]))['scc_cuda']; print(', '.join('%s %.4f' % kv for kv in c['seconds'].items()), '| chain vertices %d, contracted %d vertices %d edges, %d jump rounds, %d rounds, %d colorings (%d sweeps), %d search levels, %d trim steps, 2-SCC vertices %d' % (c['chain_vertices'], c['contracted_vertices'], c['contracted_edges'], c['jump_rounds'], c['rounds'], c['colorings'], c['color_sweeps'], c['bfs_levels'], c['trim_steps'], c['trimmed_2scc']))" "$d/sccg_cuda_$g.json")"
done
echo
echo "kw x kv sweep (cuda SCC seconds; kt 2):"
for g in $names; do
    [ -n "$SWEEP" ] || break
    line="$g:"
    for s in $SWEEP; do
        kw=${s%x*} kv=${s#*x}
        "$SEQGPU" scc -q -b cuda --kw "$kw" --kv "$kv" --edges "$d/sccg_$g.txt" --stats "$d/sccg_sweep.json" -p "$d/sccg_sweep"
        line="$line kw $kw kv $kv $($PY -c "import json,sys; print('%.4f' % json.load(open(sys.argv[1]))['stage_seconds']['scc'])" "$d/sccg_sweep.json");"
    done
    echo "$line"
done
[ "$NODES" = 0 ] && KT_SWEEP=""
for kt in $KT_SWEEP; do
    "$SEQGPU" scc -q -b cuda --kt $kt --edges "$d/sccg_powerlaw_$NODES.txt" --stats "$d/sccg_sweep.json" -p "$d/sccg_sweep"
    echo "powerlaw_$NODES kt $kt: $($PY -c "import json,sys; print('%.4f' % json.load(open(sys.argv[1]))['stage_seconds']['scc'])" "$d/sccg_sweep.json") s"
done
