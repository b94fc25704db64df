#!/bin/sh
# Inputs as users have them (issue 25), side by side in one run:
#   1. inflating one plain gzip file (gzip -1 of the genome): zcat, pigz -dc,
#      bgzip -d, and seqgpu's parallel reader; BGZF with bgzip -d -@; the
#      single-threaded engines (zlib, ISA-L, libdeflate, seqgpu's marker
#      decoder) from build/bench/inflate_bench;
#   2. seqgpu find (off-targets: GUIDES random guides + NGG, <= LIMIT
#      mismatches, -b BACKEND) from the genome as plain FASTA, plain gzip,
#      BGZF and .2bit, with the read stage of --stats; the outputs must agree;
#   3. seqgpu scc on simulated reads as FASTQ and as plain .fq.gz (READS_GENOME
#      set: 50M gives the 10 M reads of scc_bench.sh).
# Every line: median wall seconds of REPEATS, peak RSS, and the ratio to the
# line it is compared with.
#
#   sh bench/input_bench.sh
# Environment:
#   SIZE (100M)        genome size (bench/gen_genome.c, seed 7: offtarget_bench.sh's genome)
#   GUIDES (100), LIMIT (4), BACKEND (auto)
#   READS_GENOME ("")  genome size for the scc reads (30x of 150 bp), e.g. 50M; empty: no scc part
#   PARTS ("inflate engines find scc")  which parts to run (to split a long session into commands)
#   COMPRESS ("gzip -1")  how the plain gzip file is made
#   THREADS (nproc), REPEATS (3), BENCH_DIR (bench/data), SEQGPU (bin/seqgpu), BUILD (build), PYTHON
set -eu
cd "$(dirname "$0")/.."
SIZE=${SIZE:-100M}
GUIDES=${GUIDES:-100}
LIMIT=${LIMIT:-4}
BACKEND=${BACKEND:-auto}
READS_GENOME=${READS_GENOME:-}
THREADS=${THREADS:-$(nproc)}
REPEATS=${REPEATS:-3}
BENCH_DIR=${BENCH_DIR:-bench/data}
SEQGPU=${SEQGPU:-bin/seqgpu}
BUILD=${BUILD:-build}
PARTS=${PARTS:-inflate engines find scc}
COMPRESS=${COMPRESS:-gzip -1}
want() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
# Debian's python3 (with numpy) rather than another on the PATH, as the tests take it
PYTHON=${PYTHON:-$( [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}
for t in gzip pigz bgzip "$PYTHON"; do command -v $t >/dev/null || { echo "input_bench: $t is needed" >&2; exit 1; }; done
[ -x "$BUILD/bench/inflate_bench" ] || make "$BUILD/bench/inflate_bench" >&2
[ -x "$BUILD/bench/gen_genome" ] || make "$BUILD/bench/gen_genome" >&2
d=$BENCH_DIR/input_$SIZE
mkdir -p "$d"
g=$d/genome.fa
[ -s "$g" ] || "$BUILD/bench/gen_genome" "$SIZE" 7 > "$g"
[ -s "$g.gz" ] || $COMPRESS -c "$g" > "$g.gz"
[ -s "$d/genome.bgzf.fa.gz" ] || bgzip -@ "$THREADS" -c "$g" > "$d/genome.bgzf.fa.gz"
[ -s "$d/genome.2bit" ] || "$PYTHON" tests/twobit.py "$g" "$d/genome.2bit"
cat "$g" "$g.gz" "$d/genome.bgzf.fa.gz" "$d/genome.2bit" > /dev/null # into the page cache
. bench/lib.sh
mb() { awk -v b="$(wc -c < "$1")" 'BEGIN {printf "%.0f", b / 1e6}'; }
out_mb=$(mb "$g")

echo "# inputs on $(uname -n): $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) CPUs;" \
    "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
echo "# genome $SIZE: FASTA $out_mb MB, $COMPRESS $(mb "$g.gz") MB, BGZF $(mb "$d/genome.bgzf.fa.gz") MB," \
    ".2bit $(mb "$d/genome.2bit") MB (page cache); $THREADS threads, median of $REPEATS; $($SEQGPU --version)"
if want inflate; then
echo
echo "## Inflating the plain gzip file ($out_mb MB out)"
echo
printf '| tool | seconds | MB/s | peak RSS (MB) | zcat / tool |\n|---|---|---|---|---|\n'
line() { # NAME SECONDS RSS BASE
    printf '| %s | %s | %s | %s | %s |\n' "$1" "$2" "$(ratio "$out_mb" "$2" | sed 's/\.[0-9]$//')" "$3" "$(ratio "$4" "$2")"
}
# to /dev/null, as a reader takes it (run keeps stdout in a file)
null() { name=$1; shift; run "$name" sh -c 'exec "$@" > /dev/null' sh "$@"; }
set -- $(null zcat zcat "$g.gz"); zc=$1; line zcat "$1" "$2" "$zc"
set -- $(null pigz pigz -dc -p "$THREADS" "$g.gz"); line "pigz -dc -p $THREADS" "$1" "$2" "$zc"
set -- $(null bgzip_plain bgzip -d -@ "$THREADS" -c "$g.gz"); line "bgzip -d -@ $THREADS (plain gzip)" "$1" "$2" "$zc"
set -- $(null pgz "$BUILD/bench/inflate_bench" --cat "$g.gz" "$THREADS"); line "seqgpu parallel gzip, $THREADS threads" "$1" "$2" "$zc"
"$BUILD/bench/inflate_bench" --cat "$g.gz" "$THREADS" | cmp -s - "$g" || echo "# WARNING: seqgpu's parallel gzip output differs from the FASTA"
set -- $(null bgzip_bgzf bgzip -d -@ "$THREADS" -c "$d/genome.bgzf.fa.gz"); line "bgzip -d -@ $THREADS (the BGZF file)" "$1" "$2" "$zc"
fi
if want engines; then
echo
echo "## The engines, one thread each, and seqgpu's parallel reader (build/bench/inflate_bench; MB per CPU second is the measure on a loaded machine)"
echo
REPEATS=$REPEATS "$BUILD/bench/inflate_bench" "$g.gz" $(echo 2 "$THREADS" | tr ' ' '\n' | sort -nu)
fi
if want find; then
echo
echo "## seqgpu find: $GUIDES guides + NGG, <= $LIMIT mismatches, -b $BACKEND"
echo
gd=$BENCH_DIR/guides_$GUIDES.tsv
[ -s "$gd" ] || awk -v n="$GUIDES" 'BEGIN { srand(n); for (i = 0; i < n; i++) { s = ""; for (j = 0; j < 20; j++)
    s = s substr("ACGT", int(rand() * 4) + 1, 1); printf "g%d\t%s\n", i, s } }' > "$gd"
printf '| input | seconds | peak RSS (MB) | read stage: inflate threads, CPU s | / FASTA |\n|---|---|---|---|---|\n'
first=""
for form in genome.fa genome.fa.gz genome.bgzf.fa.gz genome.2bit; do
    tag=find_$(echo "$form" | tr . _)
    set -- $(run "$tag" "$SEQGPU" find -q -b "$BACKEND" -t "$THREADS" -f "$gd" -M "$LIMIT" --pam NGG \
        --stats "$BENCH_DIR/$tag.json" "$d/$form")
    [ -n "$first" ] || first=$1
    rs=$("$PYTHON" -c "import json,sys; r=json.load(open(sys.argv[1]))['read']; s=r['inflate_seconds'];
print('%s: %d, %s' % ('/'.join(r['inputs']), r['inflate_threads'], '-' if s is None else '%.2f' % s))" "$BENCH_DIR/$tag.json")
    printf '| %s | %s | %s | %s | %s |\n' "$form" "$1" "$2" "$rs" "$(ratio "$1" "$first")"
    cmp -s "$BENCH_DIR/find_genome_fa.out" "$BENCH_DIR/$tag.out" || echo "# WARNING: $form gives other sites than the FASTA"
done
fi
if want scc && [ -n "$READS_GENOME" ]; then
    [ -x "$BUILD/bench/sim_reads" ] || make "$BUILD/bench/sim_reads" >&2
    rd=$BENCH_DIR/scc_reads_$READS_GENOME.fq
    [ -s "$BENCH_DIR/scc_genome_$READS_GENOME.fa" ] || "$BUILD/bench/gen_genome" "$READS_GENOME" 5 > "$BENCH_DIR/scc_genome_$READS_GENOME.fa"
    [ -s "$rd" ] || "$BUILD/bench/sim_reads" "$BENCH_DIR/scc_genome_$READS_GENOME.fa" 30 150 0.005 5 > "$rd"
    [ -s "$rd.gz" ] || $COMPRESS -c "$rd" > "$rd.gz"
    cat "$rd" "$rd.gz" > /dev/null
    echo
    echo "## seqgpu scc -c 5: $(awk 'END {printf "%.1f", NR / 4e6}' "$rd") M reads ($(mb "$rd") MB FASTQ, $(mb "$rd.gz") MB $COMPRESS)"
    echo
    printf '| input | seconds | peak RSS (MB) | / FASTQ |\n|---|---|---|---|\n'
    set -- $(run scc_fq "$SEQGPU" scc -q -t "$THREADS" -c 5 -p "$BENCH_DIR/scc_fq" "$rd"); fq=$1
    printf '| reads.fq | %s | %s | 1.0 |\n' "$1" "$2"
    set -- $(run scc_gz "$SEQGPU" scc -q -t "$THREADS" -c 5 -p "$BENCH_DIR/scc_gz" "$rd.gz")
    printf '| reads.fq.gz | %s | %s | %s |\n' "$1" "$2" "$(ratio "$1" "$fq")"
    cmp -s "$BENCH_DIR/scc_fq.repeats.tsv" "$BENCH_DIR/scc_gz.repeats.tsv" || echo "# WARNING: the .fq.gz gives other repeats"
fi
