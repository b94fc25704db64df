#!/usr/bin/env bats
# Parity with `seqkit locate` on the lambda phage genome, after normalising
# seqkit's conventions: its palindromes come twice (+ and -), ours once with
# strand '.'; its -i output is lowercase.

load test_helper

setup() {
    T=$BATS_TEST_TMPDIR
    command -v seqkit >/dev/null || skip "seqkit is not installed"
    zcat "$LAMBDA" > "$T/l.fa"
}

# normalise a BED6 stream: palindromic hits (same place on + and -) to '.'
norm_bed() {
    awk -F'\t' -v OFS='\t' '{k=$1 FS $2 FS $3 FS $4; if (k in s) {s[k]="."} else {s[k]=$6; o[++n]=k}}
        END {for (i=1;i<=n;i++) print o[i], 0, s[o[i]]}' | awk -F'\t' -v OFS='\t' '{print $1,$2,$3,$4,$5,$6}' |
        sort -t$'\t' -k1,1 -k2,2n -k3,3n -k6,6 -k4,4
}

@test "bed equals seqkit locate -i --bed for exact motifs" {
    for m in GAATTC GGATCC ACGT TTAGGG CATATG GCGGCCGC A GGTCTC; do
        seqkit locate -i --bed -p "$m" "$T/l.fa" | norm_bed > "$T/want"
        seqgpu find -q -m "$m" "$T/l.fa" | norm_bed > "$T/got"
        cmp -s "$T/want" "$T/got" || fail "$m: $(diff "$T/want" "$T/got" | head -5)"
        [ -s "$T/want" ] || [ "$m" = GCGGCCGC ] || fail "$m found nothing"
    done
}

@test "bed equals seqkit locate -i -d --bed for IUPAC motifs" {
    for m in CCWGG GTYRAC CYCGRG RGATCY NNGAATTCNN ACNNNNGT; do
        seqkit locate -i -d --bed -p "$m" "$T/l.fa" | norm_bed > "$T/want"
        seqgpu find -q -m "$m" "$T/l.fa" | norm_bed > "$T/got"
        cmp -s "$T/want" "$T/got" || fail "$m: $(diff "$T/want" "$T/got" | head -5)"
    done
}

@test "tsv carries the same columns as seqkit locate" {
    seqkit locate -i -f <(printf '>BsaI\nGGTCTC\n>sapI\nGCTCTTC\n') "$T/l.fa" |
        awk -F'\t' -v OFS='\t' 'NR>1 {print $1,$2,tolower($3),$4,$5,$6,tolower($7)}' | sort > "$T/want"
    printf 'BsaI\tGGTCTC\nsapI\tGCTCTTC\n' > "$T/m.tsv"
    seqgpu find -q -F tsv -f "$T/m.tsv" "$T/l.fa" |
        awk -F'\t' -v OFS='\t' 'NR>1 {print $1,$2,tolower($3),$4,$5,$6,tolower($7)}' | sort > "$T/got"
    [ -s "$T/want" ]
    cmp -s "$T/want" "$T/got" || fail "$(diff "$T/want" "$T/got" | head -5)"
}

@test "reads: hits per read equal seqkit's on the bundled lambda reads" {
    seqkit locate -i --bed -p GGATCC,TTAGG "$ROOT/examples/lambda_reads.fq.gz" | norm_bed > "$T/want"
    seqgpu find -q -m GGATCC -m TTAGG "$ROOT/examples/lambda_reads.fq.gz" | norm_bed > "$T/got"
    [ -s "$T/want" ]
    cmp -s "$T/want" "$T/got" || fail "$(diff "$T/want" "$T/got" | head -5)"
}
