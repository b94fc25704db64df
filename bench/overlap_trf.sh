#!/bin/sh
# seqgpu scc -g overlap on real genomes, against TRF (issue 24):
#   1. each Klebsiella genome of Debian's kleborate-examples (chromosome
#      and plasmids), TRF on it (2 7 7 80 10 50 2000) and its records merged
#      into loci (bench/overlap_trf.py loci); pbsim CLR reads at DEPTH, 10 kb
#      mean, at each accuracy of ACCURACIES (0.97: the issue's; 0.90: CLR's);
#      seqgpu scc -g overlap: the reads in its largest repeat (once the
#      whole chromosome, one "tandem" repeat), its repeats, those whose reads
#      touch no TRF locus, and TRF's loci found by length (a repeat whose
#      reads touch the locus, its period within 3% of one of TRF's);
#   2. the same from minimap2 -x ava-pb's overlaps (--overlaps), on the
#      first genome at the first accuracy;
#   3. arrays planted in the first genome's chromosome (periods 6 to 2000,
#      12 to 40 kb; tests/reference.py satellites --background), TRF on it,
#      pbsim CLR reads at 0.90, and the planted loci that TRF reports found
#      by length, with the error of the arrays' lengths (repeats.tsv's
#      length column against TRF's extent).
# Environment: DATA (/usr/share/doc/kleborate/examples/data), GENOMES (the
# .fna.xz files there, all), DEPTH (20), ACCURACIES ("0.97 0.90"), THREADS
# (nproc), BENCH_DIR (bench/data), SEQGPU (bin/seqgpu), PBSIM_MODELS.
set -eu
cd "$(dirname "$0")/.."
DATA=${DATA:-/usr/share/doc/kleborate/examples/data}
GENOMES=${GENOMES:-$(ls "$DATA"/*.fna.xz)}
DEPTH=${DEPTH:-20}
ACCURACIES=${ACCURACIES:-0.97 0.90}
THREADS=${THREADS:-$(nproc)}
BENCH_DIR=${BENCH_DIR:-bench/data}
SEQGPU=${SEQGPU:-bin/seqgpu}
MODELS=${PBSIM_MODELS:-/usr/share/pbsim/models}
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
for t in pbsim trf minimap2 xz; do
    command -v $t > /dev/null || { echo "bench: $t is needed: apt-get install $t" >&2; exit 1; }
done
mkdir -p "$BENCH_DIR"
d=$(cd "$BENCH_DIR" && pwd)/trf
mkdir -p "$d"
BENCH_DIR=$d REPEATS=1
. bench/lib.sh

# trf_loci FASTA: TRF's loci of FASTA into FASTA.loci (TRF writes nothing useful to its exit status)
trf_loci() {
    [ -s "$1.loci" ] && return
    (cd "$(dirname "$1")" && trf "$(basename "$1")" 2 7 7 80 10 50 2000 -h -ngs > "$(basename "$1").trf" 2> /dev/null) || true
    $PY bench/overlap_trf.py loci "$1.trf" > "$1.loci"
}

# reads FASTA ACC PREFIX: pbsim CLR reads of FASTA at accuracy ACC, all records in PREFIX.fastq
reads() {
    [ -s "$3.fastq" ] && return
    sd=$(awk -v a="$2" 'BEGIN {print (a >= 0.95 ? 0.01 : 0.03)}')
    pbsim --prefix "$3" --data-type CLR --depth "$DEPTH" --length-mean 10000 --length-sd 3000 --length-min 1000 \
        --length-max 30000 --accuracy-mean "$2" --accuracy-sd "$sd" --accuracy-min 0.75 \
        --model_qc "$MODELS/model_qc_clr" --seed 1 "$1" > "$3.pbsim.log" 2>&1
    cat "$3"_[0-9]*.fastq > "$3.fastq"
}

# scc NAME READS [ARGS...]: seqgpu's run, its seconds and peak MB
scc() {
    name=$1 r=$2
    shift 2
    run "$name" "$SEQGPU" scc -g overlap -t "$THREADS" -p "$d/$name" --stats "$d/$name.json" "$@" "$r"
}

echo "# seqgpu scc -g overlap against TRF: $(uname -n), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $THREADS threads"
echo "# pbsim CLR ${DEPTH}x, 10 kb mean; TRF 2 7 7 80 10 50 2000; seqgpu $("$SEQGPU" --version | head -1); minimap2 $(minimap2 --version)"
first=1
for gz in $GENOMES; do
    g=$d/$(basename "$gz" .fna.xz)
    [ -s "$g.fa" ] || xz -dc "$gz" > "$g.fa"
    trf_loci "$g.fa"
    for acc in $ACCURACIES; do
        reads "$g.fa" "$acc" "$g.$acc"
        set -- $(scc "$(basename "$g").$acc" "$g.$acc.fastq")
        echo
        echo "## $(basename "$g"), $(grep -c '>' "$g.fa") records, $(grep -v '>' "$g.fa" | tr -d '\n' | wc -c) bases; reads at $acc: $1 s, $2 MB"
        grep -h "warning" "$d/$(basename "$g").$acc.err" || true
        $PY bench/overlap_trf.py compare --maf "$g.${acc}_[0-9]*.maf" --loci "$g.fa.loci" "$d/$(basename "$g").$acc"
        if [ $first = 1 ]; then
            first=0
            [ -s "$g.$acc.mm.paf" ] || minimap2 -x ava-pb -t "$THREADS" "$g.$acc.fastq" "$g.$acc.fastq" > "$g.$acc.mm.paf" 2> /dev/null
            set -- $(scc "$(basename "$g").$acc.mm" "$g.$acc.fastq" --overlaps "$g.$acc.mm.paf")
            echo "### the same from minimap2 -x ava-pb's overlaps: $1 s, $2 MB"
            $PY bench/overlap_trf.py compare --maf "$g.${acc}_[0-9]*.maf" --loci "$g.fa.loci" "$d/$(basename "$g").$acc.mm"
            planted=$g
        fi
    done
done

# arrays planted in a real chromosome
p=$planted.planted
[ -s "$p.genome.fa" ] || $PY tests/reference.py satellites --seed 3 --background "$planted.fa" \
    --arrays 6:20000:0.02,40:15000:0.02,171:30000:0.01,360:12000:0.02,1000:25000:0.03,2000:40000:0.03 "$p" > /dev/null
trf_loci "$p.genome.fa"
reads "$p.genome.fa" 0.90 "$p.0.90"
set -- $(scc "$(basename "$p").0.90" "$p.0.90.fastq")
echo
echo "## arrays planted in $(basename "$planted")'s chromosome ($(sed 1d "$p.arrays.tsv" | cut -f 3 | tr '\n' ' ')bp periods), reads at 0.90: $1 s, $2 MB"
$PY bench/overlap_trf.py compare --maf "$p.0.90_[0-9]*.maf" --loci "$p.genome.fa.loci" --planted "$p.arrays.tsv" "$d/$(basename "$p").0.90"
