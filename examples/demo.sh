#!/bin/sh
# seqgpu demo on bundled data: the lambda phage genome (48.5 kb) and 2,000 of
# its simulated reads, both from Debian's bowtie2-examples.
set -e
cd "$(dirname "$0")/.."
SEQGPU=${SEQGPU:-bin/seqgpu}
out=${DEMO_OUT:-$(mktemp -d)}
mkdir -p "$out"

echo "== restriction sites of 16 enzymes in lambda (examples/enzymes.tsv), counts"
$SEQGPU find -f examples/enzymes.tsv -F count examples/lambda_virus.fa.gz

echo
echo "== EcoRI and BsaI sites as BED (palindromic EcoRI on strand '.', BsaI on + and -)"
$SEQGPU find -q -m GAATTC -m GGTCTC examples/lambda_virus.fa.gz

echo
echo "== an IUPAC motif (EcoRII, CCWGG), seqkit-locate columns, first 5 hits"
$SEQGPU find -q -F tsv -m CCWGG examples/lambda_virus.fa.gz | head -6

echo
echo "== the same search over gzipped FASTQ reads, with a JSON run summary"
$SEQGPU find -q -m CCWGG --stats "$out/stats.json" -o "$out/reads.bed" examples/lambda_reads.fq.gz
echo "$(wc -l < "$out/reads.bed") hits in reads; summary:"
cat "$out/stats.json"

echo
echo "== seqgpu scc: reads with planted tandem arrays (units of 3, 12, 45 and 171 bp)"
$SEQGPU scc -p "$out/tandem" examples/tandem_reads.fq.gz
cut -f1-7 "$out/tandem.repeats.tsv"
echo "units ($out/tandem.units.fa):"
grep -v '^>' "$out/tandem.units.fa" | cut -c1-70
echo "pictures: $out/tandem.spectrum.svg (the k-mer spectrum), $out/tandem.repeats.svg (a panel per repeat)"

echo
echo "== seqgpu scc on real reads (lambda phage, 2,000 reads): a genome without repeats gives none"
echo "   (2,000 reads are 4x of it, too little for a coverage peak: the warning says so, and how to set -c)"
$SEQGPU scc -p "$out/lambda" examples/lambda_reads.fq.gz
