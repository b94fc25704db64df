#!/usr/bin/env bats
# seqgpu find against the brute-force reference (tests/reference.py) on random
# genomes: N runs, IUPAC text, soft-masked stretches, many short and empty
# records, unwrapped and CRLF records, planted motifs, and chunk sizes small
# enough to put hits on every kind of boundary.

load test_helper

# compare FORMAT MOTIFS INPUT [seqgpu options...]
compare() {
    local fmt=$1 motifs=$2 input=$3
    shift 3
    local ref_opts=()
    for o in "$@"; do
        case $o in --skip-masked) ref_opts+=(--skip-masked) ;; esac
    done
    for ((i = 1; i <= $#; i++)); do
        if [ "${!i}" = "-s" ]; then j=$((i + 1)); ref_opts+=(-s "${!j}"); fi
    done
    $REF find -F "$fmt" "${ref_opts[@]}" "$motifs" "$input" > "$T/want"
    seqgpu find -q -F "$fmt" -f "$motifs" "$@" "$input" > "$T/got" || fail "seqgpu failed: $*"
    if ! cmp -s "$T/want" "$T/got"; then
        diff "$T/want" "$T/got" | head -20
        fail "differs from the reference: -F $fmt $* ($(wc -l < "$T/want") lines wanted)"
    fi
}

@test "cpu: palindromes, IUPAC, both strands and chunk seams against the reference, every kernel" {
    reference_check cpu sunday vector qgram auto
}

@test "random genomes, few exact motifs, bed, every thread count and tiny chunks" {
    for seed in 1 2 3 4; do
        $REF gen --seed $seed --records 30 --max-len 3000 --plant ACGTTGCA,GAATTC > "$T/g.fa"
        $REF motifs --seed $seed -n 3 --min-len 1 --max-len 10 > "$T/m.tsv"
        printf 'p1\tACGTTGCA\np2\tGAATTC\n' >> "$T/m.tsv"
        for t in 1 2 5; do
            for c in 7 64 1000 4M; do compare bed "$T/m.tsv" "$T/g.fa" -t $t --chunk-size $c; done
        done
    done
}

@test "random IUPAC motifs, every kernel, tsv and count" {
    for seed in 11 12 13; do
        $REF gen --seed $seed --records 40 --max-len 2000 --width 0 > "$T/g.fa"
        $REF motifs --seed $seed -n 8 --iupac --min-len 2 --max-len 14 > "$T/m.tsv"
        for k in sunday vector qgram auto; do
            compare bed "$T/m.tsv" "$T/g.fa" --kernel $k --chunk-size 333
        done
        compare tsv "$T/m.tsv" "$T/g.fa" --chunk-size 50
        compare count "$T/m.tsv" "$T/g.fa" --chunk-size 50
    done
}

@test "hundreds of motifs at once (q-gram filter), with very degenerate ones" {
    $REF gen --seed 21 --records 10 --max-len 20000 > "$T/g.fa"
    $REF motifs --seed 21 -n 300 --iupac --min-len 6 --max-len 20 > "$T/m.tsv"
    printf 'deg\tNNNNNNNN\nshort\tRY\n' >> "$T/m.tsv"
    compare bed "$T/m.tsv" "$T/g.fa" -t 2
    compare count "$T/m.tsv" "$T/g.fa" --chunk-size 5000
}

@test "strands and --skip-masked" {
    $REF gen --seed 31 --records 20 --max-len 4000 --lower 0.6 > "$T/g.fa"
    $REF motifs --seed 31 -n 6 --iupac --min-len 3 --max-len 9 > "$T/m.tsv"
    compare bed "$T/m.tsv" "$T/g.fa" --skip-masked
    compare bed "$T/m.tsv" "$T/g.fa" -s + --chunk-size 100
    compare bed "$T/m.tsv" "$T/g.fa" -s - --skip-masked --chunk-size 100
}

@test "FASTQ reads, CRLF FASTA, gzip" {
    $REF gen --seed 41 --records 500 --max-len 300 --fastq > "$T/r.fq"
    $REF motifs --seed 41 -n 5 --min-len 3 --max-len 8 > "$T/m.tsv"
    compare bed "$T/m.tsv" "$T/r.fq" -t 2 --chunk-size 2000
    gzip -c "$T/r.fq" > "$T/r.fq.gz"
    compare count "$T/m.tsv" "$T/r.fq.gz"
    $REF gen --seed 42 --records 20 --max-len 3000 --crlf --width 70 > "$T/c.fa"
    compare bed "$T/m.tsv" "$T/c.fa" --chunk-size 77
}

@test "a long unwrapped record cut at every small chunk size" {
    $REF gen --seed 51 --records 3 --max-len 800 --width 0 --plant GGATCC --plant-rate 0.05 > "$T/g.fa"
    printf 'b\tGGATCC\nx\tACNNGT\n' > "$T/m.tsv"
    for c in $(seq 1 40); do compare bed "$T/m.tsv" "$T/g.fa" --chunk-size $c -t 2; done
}
