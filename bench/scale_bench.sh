#!/bin/sh
# seqgpu scc past one machine's memory, in one run: reads simulated at 30x
# (150 bp, 0.5% errors) from a GENOME-sized synthetic genome (50M: 10 M
# reads, 3 GB of FASTQ), then
#   1. one run (the whole k-mer table in memory);
#   2. for N = 1, 2, 4: the N parts (--part I/N --counts-out) one after
#      another, each with its time and peak RSS, then the merge (--counts);
#   3. the bounded path (--max-memory MAXMEM, default 2500M: one pass, the
#      k-mers beyond through a temporary file) against bcalm with the same
#      k, abundance threshold and threads;
# every report checked equal to the one run's, byte for byte.
# Environment: GENOME (50M), CASE (repeats: the default threshold, or solid:
# -c 5), MAXMEM (2500M), THREADS (nproc), BENCH_DIR (bench/data).
set -eu
cd "$(dirname "$0")/.."
GENOME=${GENOME:-50M}
CASE=${CASE:-repeats}
MAXMEM=${MAXMEM:-2500M}
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
opt=""; [ "$CASE" = solid ] && opt="-c 5"
# json FILE KEY [DEFAULT]: a member of a --stats file
json() { $PY -c "import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], (sys.argv[3:] or [None])[0]))" "$@"; }
same() {
    for f in repeats.tsv gfa units.fa components.tsv; do cmp -s "$d/scale_one.$f" "$1.$f" || { echo "# $1.$f differs from one run" >&2; exit 1; }; done
}
echo "# seqgpu scc in parts: $(uname -n), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $THREADS threads, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# reads: $(du -Lm "$reads" | cut -f1) MB ($GENOME genome, 30x, 150 bp, 0.5% errors); case $CASE ${opt:+($opt)}"
echo
printf '| step | time (s) | cpu (s) | peak RSS (MB) | note |\n|---|---|---|---|---|\n'
set -- $(run scale_one "$SEQGPU" scc -t "$THREADS" $opt --stats "$d/scale_one.json" -p "$d/scale_one" "$reads")
printf '| one run | %s | %.1f | %s | %s k-mers, %s distinct |\n' "$1" "$(json "$d/scale_one.json" cpu_seconds)" "$2" \
    "$(json "$d/scale_one.json" kmers)" "$(json "$d/scale_one.json" distinct_kmers)"
for n in 1 2 4; do
    files=""
    for i in $(seq 1 $n); do
        set -- $(run scale_part "$SEQGPU" scc -t "$THREADS" $opt --part "$i/$n" --counts-out "$d/scale_$i.counts" \
            --stats "$d/scale_part.json" "$reads")
        printf '| part %s/%s | %s | %.1f | %s | %s MB of counts |\n' "$i" "$n" "$1" "$(json "$d/scale_part.json" cpu_seconds)" \
            "$2" "$(($(stat -c %s "$d/scale_$i.counts") >> 20))"
        files="$files $d/scale_$i.counts"
    done
    set -- $(run scale_merge "$SEQGPU" scc -t "$THREADS" $opt --counts --stats "$d/scale_merge.json" -p "$d/scale_merge" $files)
    same "$d/scale_merge"
    printf '| merge of %s | %s | %.1f | %s | outputs equal one run |\n' "$n" "$1" "$(json "$d/scale_merge.json" cpu_seconds)" "$2"
    rm -f $files
done
set -- $(run scale_bounded "$SEQGPU" scc -t "$THREADS" $opt --max-memory "$MAXMEM" --stats "$d/scale_bounded.json" \
    -p "$d/scale_bounded" "$reads")
same "$d/scale_bounded"
printf '| --max-memory %s | %s | %.1f | %s | one pass, %s MB through the temporary file; outputs equal one run |\n' "$MAXMEM" "$1" \
    "$(json "$d/scale_bounded.json" cpu_seconds)" "$2" \
    "$($PY -c "import json, sys; print(json.load(open(sys.argv[1]))['graph_cpu']['spilled_bytes'] >> 20)" "$d/scale_bounded.json")"
threshold=$(json "$d/scale_one.json" threshold)
set -- $(cd "$d" && run scale_bcalm bcalm -in "$reads" -kmer-size 31 -abundance-min "$threshold" -nb-cores "$THREADS" \
    -out "$d/scale_bcalm" -verbose 0)
printf '| bcalm, abundance >= %s | %s | | %s | %s unitigs (seqgpu: %s) |\n' "$threshold" "$1" "$2" \
    "$(grep -c '^>' "$d/scale_bcalm.unitigs.fa" || true)" "$(json "$d/scale_one.json" nodes)"
