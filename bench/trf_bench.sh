#!/bin/sh
# seqgpu scc on real assemblies beside TRF, in one run, same machine: the
# Klebsiella genomes of Debian's kleborate-examples (four complete genomes
# with their plasmids, 5.3-5.7 Mb each). TRF (Benson 1999) with the
# parameters its manual recommends (2 7 7 80 10 50 500, -h -ngs) against
# seqgpu scc's loci (PREFIX.loci.bed) at the default threshold (k 31, three
# copies; bridged, and without bridges) and at two lower ones; bench/trf_compare.py prints, per array
# length, the TRF arrays recalled (and those a k-mer threshold can see), the
# period agreement and the loci outside every TRF array.
# Environment: THREADS (nproc), BENCH_DIR (bench/data), SEQGPU (bin/seqgpu),
# GENOMES (the .fna.xz files, default all four).
set -eu
cd "$(dirname "$0")/.."
THREADS=${THREADS:-$(nproc)}
BENCH_DIR=${BENCH_DIR:-bench/data}
SEQGPU=${SEQGPU:-bin/seqgpu}
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
GENOMES=${GENOMES:-$(ls /usr/share/doc/kleborate/examples/data/*.fna.xz 2> /dev/null || true)}
command -v trf > /dev/null || { echo "bench: trf is needed: apt-get install trf" >&2; exit 1; }
[ -n "$GENOMES" ] || { echo "bench: no genomes: apt-get install kleborate-examples" >&2; exit 1; }
mkdir -p "$BENCH_DIR"
d=$(cd "$BENCH_DIR" && pwd)
BENCH_DIR=$d REPEATS=1
. bench/lib.sh

echo "# seqgpu scc on assemblies beside TRF: $(uname -n), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $THREADS threads"
echo "# $("$SEQGPU" --version | head -1); TRF $(dpkg-query -W -f='${Version}' trf 2> /dev/null || echo '(version unknown)')"
for gz in $GENOMES; do
    name=$(basename "$gz" .fna.xz)
    g=$d/trf_$name
    [ -s "$g.fa" ] || xz -dc "$gz" > "$g.fa"
    echo
    echo "## $name: $(grep -c '>' "$g.fa") records, $(grep -v '>' "$g.fa" | tr -d '\n' | wc -c) bases"
    # -ngs: the .dat lines on standard output; TRF's exit status is not 0 on success
    set -- $(run "trf_$name" sh -c 'trf "$1" 2 7 7 80 10 50 500 -h -ngs; true' trf "$g.fa")
    cp "$d/trf_$name.out" "$g.trf.dat"
    echo "trf: $1 s, $2 MB, $(grep -vc '^@' "$g.trf.dat") lines"
    for opt in "-k 31 --min-copies 3 --bridge 0" "-k 31 --min-copies 3" "-k 31 --min-copies 2" "-k 21 --min-copies 2"; do
        tag=$(echo "$opt" | tr -d ' -' | sed 's/mincopies/m/; s/bridge/b/')
        set -- $(run "scc_${name}_$tag" "$SEQGPU" scc -t "$THREADS" $opt -p "$g.$tag" "$g.fa")
        k=$(echo "$opt" | cut -d' ' -f2) m=$(echo "$opt" | cut -d' ' -f4)
        echo "seqgpu scc $opt: $1 s, $2 MB, $(grep -vc '^#' "$g.$tag.loci.bed") loci of $(($(wc -l < "$g.$tag.repeats.tsv") - 1)) repeats"
        $PY bench/trf_compare.py --trf "$g.trf.dat" --loci "$g.$tag.loci.bed" -k "$k" --min-copies "$m" --fasta "$g.fa" \
            --label "$tag"
    done
done
