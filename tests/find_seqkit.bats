#!/usr/bin/env bats
# Parity with `seqkit locate` on the lambda phage genome. Only seqkit's
# conventions are translated: it reports a palindromic motif's hits twice (+
# and -), where seqgpu reports them once with strand '.'. seqgpu's output is
# compared as it is, so a palindrome reported twice, or a hit on the wrong
# strand, fails.

load test_helper

setup() {
    T=$BATS_TEST_TMPDIR
    need seqkit
    zcat "$LAMBDA" > "$T/l.fa"
}

# seqkit_bed MOTIF [seqkit options...] < seqkit's BED6: as seqgpu writes it:
# score 0, and for a palindromic motif each +/- pair one hit with strand '.'
seqkit_bed() {
    local motif=$1 pal
    pal=$($REF revcomp "$motif")
    [ "$pal" = "$(echo "$motif" | tr a-z A-Z)" ] && pal=1 || pal=0
    awk -F'\t' -v OFS='\t' -v pal=$pal '{$5 = 0; if (pal) $6 = "."; print}' | sort -u |
        sort -t$'\t' -k1,1 -k2,2n -k3,3n -k6,6 -k4,4
}

# compare MOTIF SEQKIT-OPTIONS: seqgpu find -m MOTIF equals seqkit locate --bed
compare() {
    local motif=$1
    shift
    seqkit locate --bed "$@" -p "$motif" "$T/l.fa" > "$T/seqkit" || fail "seqkit failed"
    seqkit_bed "$motif" < "$T/seqkit" > "$T/want"
    seqgpu find -q -m "$motif" "$T/l.fa" > "$T/got" || fail "seqgpu failed on $motif"
    sort -t$'\t' -k1,1 -k2,2n -k3,3n -k6,6 -k4,4 "$T/got" | cmp -s "$T/want" - ||
        fail "$motif: $(sort -t$'\t' -k1,1 -k2,2n -k3,3n -k6,6 -k4,4 "$T/got" | diff "$T/want" - | head -5)"
}

@test "bed equals seqkit locate -i --bed for exact motifs" {
    for m in GAATTC GGATCC ACGT TTAGGG CATATG GCGGCCGC A GGTCTC; do
        compare $m -i
        [ -s "$T/want" ] || [ "$m" = GCGGCCGC ] || fail "$m found nothing"
    done
}

@test "bed equals seqkit locate -i -d --bed for IUPAC motifs" {
    for m in CCWGG GTYRAC CYCGRG RGATCY NNGAATTCNN ACNNNNGT GRCGYC TTRNCAA; do
        compare $m -i -d
        [ -s "$T/want" ] || fail "$m found nothing"
    done
}

@test "tsv carries the same columns as seqkit locate" {
    seqkit locate -i -f <(printf '>BsaI\nGGTCTC\n>sapI\nGCTCTTC\n') "$T/l.fa" > "$T/seqkit" || fail "seqkit failed"
    awk -F'\t' -v OFS='\t' 'NR>1 {print $1,$2,tolower($3),$4,$5,$6,tolower($7)}' "$T/seqkit" | sort > "$T/want"
    printf 'BsaI\tGGTCTC\nsapI\tGCTCTTC\n' > "$T/m.tsv"
    seqgpu find -q -F tsv -f "$T/m.tsv" "$T/l.fa" > "$T/seqgpu" || fail "seqgpu failed"
    awk -F'\t' -v OFS='\t' 'NR>1 {print $1,$2,tolower($3),$4,$5,$6,tolower($7)}' "$T/seqgpu" | sort > "$T/got"
    [ -s "$T/want" ]
    cmp -s "$T/want" "$T/got" || fail "$(diff "$T/want" "$T/got" | head -5)"
}

@test "reads: hits per read equal seqkit's on the bundled lambda reads" {
    for m in GGATCC TTAGG; do
        seqkit locate -i --bed -p $m "$ROOT/examples/lambda_reads.fq.gz" > "$T/seqkit" || fail "seqkit failed"
        seqkit_bed $m < "$T/seqkit" > "$T/want"
        seqgpu find -q -m $m "$ROOT/examples/lambda_reads.fq.gz" > "$T/got" || fail "seqgpu failed"
        sort -t$'\t' -k1,1 -k2,2n -k3,3n -k6,6 -k4,4 "$T/got" | cmp -s "$T/want" - || fail "$m differs"
        [ -s "$T/want" ]
    done
}
