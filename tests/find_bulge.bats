#!/usr/bin/env bats
# find with bulges (--dna-bulge, --rna-bulge), --all-alignments, -F
# casoffinder3, CFD and MIT scores and --guide-summary, and guides given
# with their PAM, against tests/ref_offtarget.py (a numpy brute force of
# alignment templates in the guide's orientation, sharing no code with
# seqgpu); parity with Cas-OFFinder 3.0.0 where it is installed.

load test_helper

OFF_PY=$(for p in /usr/bin/python3 $(type -ap python3); do "$p" -c 'import numpy' 2>/dev/null && { echo "$p"; break; }; done)
OFF="${OFF_PY:-python3} $ROOT/tests/ref_offtarget.py"

# check_ref ARGS...: seqgpu find's output equals the brute force's, on the cpu backend's three
# instruction-set paths and at chunk sizes down to one byte (sites across every seam)
check_ref() {
    $OFF find "$@" > "$T/want" || fail "reference failed: $*"
    local simd c
    for simd in none avx2 avx512; do
        for c in 1 613 4M; do
            SEQGPU_CPU_SIMD=$simd seqgpu find -q -b cpu -t 2 --chunk-size $c "$@" > "$T/got" ||
                fail "seqgpu failed ($simd, chunks $c): $*"
            cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got" | head -5; fail "differs ($simd, chunks $c): $*"; }
        done
    done
}

# check_one ARGS...: the same at one chunk size (613) and the default instruction set
check_one() {
    $OFF find "$@" > "$T/want" || fail "reference failed: $*"
    seqgpu find -q -b cpu -t 2 --chunk-size 613 "$@" > "$T/got" || fail "seqgpu failed: $*"
    cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got" | head -5; fail "differs: $*"; }
}

# has TYPE: the last reference output holds sites with bulges of that type (its column 7 in BED)
has() { awk -F'\t' -v t="$1" '$7 == t' "$T/want" | grep -q . || fail "no $1 site in the reference's output"; }

@test "bulges: random genomes with N runs, IUPAC text, lowercase and short records, 3' PAM, bulges 0 to 2" {
    $OFF gen --seed 51 --records 7 --length 4000 --guides 5 --max-mm 3 --bulges 2 "$T/g.fa" "$T/guides"
    # records shorter than a window: an RNA-bulge site that fills one, and one too short for any
    printf '>short\n%s\n>tiny\nACG\n' "$(awk -F'\t' 'NR == 1 {print substr($2, 1, 7) substr($2, 9) "TGG"}' "$T/guides")" >> "$T/g.fa"
    check_ref -f "$T/guides" -M 3 --pam NGG --dna-bulge 1 --rna-bulge 1 "$T/g.fa"
    has DNA
    has RNA
    grep -q '^short	0	22	g0	0	+	RNA	1$' "$T/want" || fail "the site in a record shorter than its window is missing"
    check_ref -f "$T/guides" -M 2 --pam NRG --dna-bulge 2 --rna-bulge 2 -F tsv "$T/g.fa"
    check_one -f "$T/guides" -M 3 --pam NGG --dna-bulge 2 --rna-bulge 0 -F tsv "$T/g.fa"
    check_one -f "$T/guides" -M 3 --pam NGG --dna-bulge 0 --rna-bulge 2 -F casoffinder3 "$T/g.fa"
    check_one -f "$T/guides" -M 3 --pam NGG --dna-bulge 1 --rna-bulge 1 -F count "$T/g.fa"
}

@test "bulges: 5' PAM, no PAM, one strand, --skip-masked, a palindrome, every alignment" {
    $OFF gen --seed 52 --records 6 --length 5000 --guides 5 --max-mm 3 --bulges 2 --pam TTTV --pam-5 TTTV \
        "$T/g.fa" "$T/guides"
    check_ref -f "$T/guides" -M 3 --pam-5 TTTV --dna-bulge 2 --rna-bulge 2 -F casoffinder3 --all-alignments "$T/g.fa"
    grep -q '	DNA	' "$T/want" && grep -q '	RNA	' "$T/want" || fail "no bulge site next to a 5' PAM"
    check_one -f "$T/guides" -M 2 --pam-5 TTTV --dna-bulge 1 --rna-bulge 2 -s - -F tsv --all-alignments "$T/g.fa"
    check_ref -f "$T/guides" -M 1 --dna-bulge 2 --rna-bulge 1 -F tsv "$T/g.fa"
    check_one -f "$T/guides" -M 3 --pam-5 TTTV --dna-bulge 1 --rna-bulge 1 --skip-masked -F tsv "$T/g.fa"
    # a window equal to its reverse complement: searched once ('.'), both strands in casoffinder3
    printf 'pal\tACGTTAACGT\t1\n' > "$T/m"
    printf '>p\nTTACGTATAACGTTTACGTTAAACGTT\n' >> "$T/g.fa"
    check_one -f "$T/m" --dna-bulge 1 --rna-bulge 1 -F tsv --all-alignments "$T/g.fa"
    grep -q '	\.	' "$T/want" || fail "no palindromic site"
    check_one -f "$T/m" --dna-bulge 1 --rna-bulge 1 -F casoffinder3 "$T/g.fa"
}

@test "bulges: one row per site with its best alignment, every gap placement with --all-alignments" {
    # DNA bulge in a homopolymer: three placements, the gap farthest from the PAM shown
    printf '>r\nTTTTACGTACGTAAACCCGGTTACGTAGGTTTT\n' > "$T/g.fa"
    run seqgpu find -q -m ACGTACGTAACCCGGTTACG -M 0 --pam TAGG --dna-bulge 1 -F casoffinder3 "$T/g.fa"
    assert_success
    assert_line -n 2 "ACGTACGTAACCCGGTTACG	DNA	ACGTACGT-AACCCGGTTACGNNNN	ACGTACGTAAACCCGGTTACGTAGG	r	4	+	0	1"
    run seqgpu find -q -m ACGTACGTAACCCGGTTACG -M 0 --pam TAGG --dna-bulge 1 -F casoffinder3 --all-alignments "$T/g.fa"
    assert_success
    [ "$(grep -v '^#' <<< "$output" | grep -c '	DNA	')" -eq 3 ] || fail "expected 3 placements: $output"
    assert_line -n 4 "ACGTACGTAACCCGGTTACG	DNA	ACGTACGTAA-CCCGGTTACGNNNN	ACGTACGTAAACCCGGTTACGTAGG	r	4	+	0	1"
    # BED and tsv carry the type and size; tsv the guide's row of the alignment
    run seqgpu find -q -m ACGTACGTAACCCGGTTACG -M 0 --pam TAGG --dna-bulge 1 "$T/g.fa"
    assert_output "r	4	29	ACGTACGTAACCCGGTTACG	0	+	DNA	1"
    run seqgpu find -q -m ACGTACGTAACCCGGTTACG -M 0 --pam TAGG --dna-bulge 1 -F tsv "$T/g.fa"
    assert_line -n 0 "seqID	patternName	pattern	strand	start	end	matched	mismatches	bulge_type	bulge_size	crRNA"
    assert_line -n 1 "r	ACGTACGTAACCCGGTTACG	ACGTACGTAACCCGGTTACGTAGG	+	5	29	ACGTACGTAAACCCGGTTACGTAGG	0	DNA	1	ACGTACGT-AACCCGGTTACGTAGG"
    # an RNA bulge, on the minus strand: in the guide's orientation, the gap in the DNA
    printf '>m\nCCTACTAACCGGGTTACGTACGTTT\n' > "$T/r.fa"
    run seqgpu find -q -m ACGTACGTAACCCGGTTACG -M 0 --pam TAGG --rna-bulge 1 -F casoffinder3 "$T/r.fa"
    assert_success
    assert_line -n 2 "ACGTACGTAACCCGGTTACG	RNA	ACGTACGTAACCCGGTTACGNNNN	ACGTACGTAACCCGGTTA-GTAGG	m	0	-	0	1"
}

@test "scores: CFD and MIT columns and CRISPOR's guide specificities against the brute force's" {
    $OFF gen --seed 53 --records 6 --length 6000 --guides 4 --max-mm 4 --bulges 1 "$T/g.fa" "$T/guides"
    check_one -f "$T/guides" -M 4 --pam NRG --dna-bulge 1 --rna-bulge 1 --score cfd,mit -F tsv "$T/g.fa"
    grep -q '	NA$' "$T/want" || fail "no NA (the MIT score of a bulge site)"
    check_one -f "$T/guides" -M 3 --pam NNN --score mit -F casoffinder3 --all-alignments "$T/g.fa"
    check_one -f "$T/guides" -M 3 --pam NGG --dna-bulge 2 --score cfd "$T/g.fa"
    # the guide summary: sites by type and mismatches, the specificities, the on-target set apart
    $OFF find -f "$T/guides" -M 4 --pam NNN --dna-bulge 1 --rna-bulge 1 --guide-summary "$T/want_mqc.tsv" "$T/g.fa" > /dev/null
    for c in 1 4M; do
        seqgpu find -q --chunk-size $c -f "$T/guides" -M 4 --pam NNN --dna-bulge 1 --rna-bulge 1 \
            --guide-summary "$T/sum_mqc.tsv" "$T/g.fa" > /dev/null || fail "seqgpu failed"
        grep -v '^#' "$T/sum_mqc.tsv" > "$T/got"
        cmp -s "$T/want_mqc.tsv" "$T/got" || { diff "$T/want_mqc.tsv" "$T/got"; fail "summary differs (chunks $c)"; }
    done
    grep -q "^# plot_type: 'table'" "$T/sum_mqc.tsv" || fail "no MultiQC header"
    [ "$(awk -F'\t' 'NR > 1 {n += $4} END {print n + 0}' "$T/got")" -ge 1 ] || fail "no perfect site (the on-target): $(cat "$T/got")"
    # the on-target is the first perfect site CRISPOR finds: not one next to TTT, which it never searches
    local g=CAGAGATGGATTGGTGCCTT
    printf '>r1\nAAAA%sTTTAAAA\n>r2\nAAAA%sAGGAAAA\n' $g $g > "$T/on.fa"
    seqgpu find -q -m $g --pam NNN --guide-summary "$T/on_mqc.tsv" -o /dev/null "$T/on.fa" || fail "seqgpu failed"
    run awk -F'\t' '$1 == "'$g'" {print $3, $4, $5, $6, $7}' "$T/on_mqc.tsv"
    assert_output "2 2 100 100 0"
    # guides that cannot be scored: NA in the summary, an error for --score
    run seqgpu find -q -f "$T/guides" -M 2 --pam-5 TTTV --guide-summary "$T/s_mqc.tsv" "$T/g.fa"
    assert_success
    grep -q '	NA	NA	NA	NA	NA$' "$T/s_mqc.tsv" || fail "scores of a 5' PAM: $(cat "$T/s_mqc.tsv")"
    run seqgpu find -q -f "$T/guides" -M 2 --pam-5 TTTV --score cfd "$T/g.fa"
    assert_failure 1
    assert_output --partial "defined for SpCas9 sites"
}

@test "--cas-offinder: Cas-OFFinder 3's 'pattern DNA_BULGE RNA_BULGE' line, ids, -F casoffinder3" {
    mkdir -p "$T/gen"
    $OFF gen --seed 54 --records 4 --length 6000 --guides 4 --max-mm 3 --bulges 2 "$T/gen/g.fa" "$T/guides"
    { echo "$T/gen"; echo NNNNNNNNNNNNNNNNNNNNNGG 2 1; awk -F'\t' '{print $2 "NNN 3 " $1}' "$T/guides"; } > "$T/in.txt"
    $OFF find --cas-offinder "$T/in.txt" -F casoffinder3 --all-alignments > "$T/want"
    seqgpu find -q --cas-offinder "$T/in.txt" -F casoffinder3 --all-alignments > "$T/got" || fail "seqgpu failed"
    cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got" | head; fail "differs"; }
    grep -q '^g1	DNA	' "$T/got" || fail "no DNA bulge named by its id"
    seqgpu find -q --cas-offinder "$T/in.txt" --stats "$T/s.json" > /dev/null || fail "stats run"
    python3 -c "import json; s = json.load(open('$T/s.json')); assert (s['dna_bulge'], s['rna_bulge']) == (2, 1), s" ||
        fail "stats: $(cat "$T/s.json")"
    for bad in "NNNNNNNNNNNNNNNNNNNNNGG 1" "NNNNNNNNNNNNNNNNNNNNNGG 3 1" "NNNNNNNNNNNNNNNNNNNNNGG 1 x"; do
        { echo "$T/gen"; echo "$bad"; awk -F'\t' '{print $2 "NNN 3 " $1}' "$T/guides"; } > "$T/bad.txt"
        run seqgpu find -q --cas-offinder "$T/bad.txt"
        assert_failure 1
        assert_output --partial "line 2"
        assert_output --partial "DNA_BULGE RNA_BULGE"
    done
    run seqgpu find -q --cas-offinder "$T/in.txt" --dna-bulge 1
    assert_failure 1
    assert_output --partial "without"
}

@test "--cas-offinder: parity with Cas-OFFinder 3.0.0 on every alignment, outside its documented bugs" {
    CASOFF3=${SEQGPU_CASOFFINDER3:-$ROOT/../shared/peers/cas-offinder3/cas-offinder}
    [ -x "$CASOFF3" ] || skip "Cas-OFFinder 3 is not installed (SEQGPU_CASOFFINDER3)"
    [ -z "$(ls /etc/OpenCL/vendors/*.icd 2>/dev/null)" ] && skip "no OpenCL platform for Cas-OFFinder 3"
    mkdir -p "$T/g3" "$T/g5"
    $OFF gen --seed 55 --records 5 --length 12000 --guides 5 --max-mm 3 --bulges 2 "$T/g3/genome.fa" "$T/guides3"
    $OFF gen --seed 56 --records 5 --length 12000 --guides 5 --max-mm 3 --bulges 2 --pam TTTV --pam-5 TTTV \
        "$T/g5/genome.fa" "$T/guides5"
    local n=0
    for run in "g3 NNNNNNNNNNNNNNNNNNNNNGG 1 1 3" "g3 NNNNNNNNNNNNNNNNNNNNNRG 2 2 2" "g3 NNNNNNNNNNNNNNNNNNNNNGG 0 2 3" \
               "g5 TTTVNNNNNNNNNNNNNNNNNNNN 2 1 3"; do
        set -- $run
        { echo "$T/$1"; echo "$2 $3 $4"
          if [ "$1" = g5 ]; then awk -F'\t' -v m="$5" '{print "NNNN" $2 " " m " " $1}' "$T/guides5"
          else awk -F'\t' -v m="$5" '{print $2 "NNN " m " " $1}' "$T/guides3"; fi; } > "$T/in.txt"
        rm -f "$T/co.out"
        "$CASOFF3" "$T/in.txt" "${SEQGPU_CASOFFINDER3_DEVICE:-C}" "$T/co.out" > /dev/null 2>&1 || fail "Cas-OFFinder 3 failed"
        seqgpu find -q --cas-offinder "$T/in.txt" --all-alignments -F casoffinder3 -o "$T/sg.out" || fail "seqgpu failed"
        run python3 "$ROOT/tests/casoff3_cmp.py" "$T/in.txt" "$T/co.out" "$T/sg.out"
        [ "$status" -eq 0 ] || { echo "$output" | head; fail "$run differs from Cas-OFFinder 3"; }
        n=$((n + $(grep -v '^#' "$T/sg.out" | grep -c '	RNA	\|	DNA	')))
    done
    [ "$n" -gt 300 ] || fail "too few bulge alignments to mean anything: $n"
}

@test "bulges: the GPU backends give the brute force's bytes" {
    local bes
    bes=$(gpu_backends)
    [ -n "$bes" ] || skip "no GPU backend here: $(backend_absent cuda); $(backend_absent opencl)"
    $OFF gen --seed 57 --records 6 --length 6000 --guides 8 --max-mm 3 --bulges 2 "$T/g.fa" "$T/guides"
    printf '>short\n%s\n' "$(awk -F'\t' 'NR == 1 {print substr($2, 1, 7) substr($2, 9) "TGG"}' "$T/guides")" >> "$T/g.fa"
    for be in $bes; do
        use_backend $be
        for args in "-M 3 --pam NGG --dna-bulge 1 --rna-bulge 1" "-M 2 --pam NRG --dna-bulge 2 --rna-bulge 2 -F casoffinder3 --all-alignments" \
                    "-M 3 --pam-5 TTTV --dna-bulge 2 --rna-bulge 1 -s - -F tsv" "-M 1 --pam NGG --dna-bulge 1 --rna-bulge 2 --score cfd" \
                    "-M 3 --pam NGG --dna-bulge 0 --rna-bulge 2 --skip-masked -F tsv"; do
            $OFF find -f "$T/guides" $args "$T/g.fa" > "$T/want" || fail "reference failed: $args"
            for c in 1000 64M; do
                seqgpu find -q -b $be --chunk-size $c -f "$T/guides" $args "$T/g.fa" > "$T/got" || fail "$be failed: $args"
                cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got" | head -5; fail "$be differs (chunks $c): $args"; }
            done
        done
    done
}

@test "bulges: parts 1..N of a run, concatenated, are the whole run" {
    $OFF gen --seed 59 --records 5 --length 4000 --guides 4 --max-mm 3 --bulges 2 "$T/g.fa" "$T/guides"
    seqgpu find -q -f "$T/guides" -M 3 --pam NGG --dna-bulge 2 --rna-bulge 2 -F casoffinder3 "$T/g.fa" > "$T/whole" ||
        fail "whole run"
    for n in 3 7; do
        : > "$T/parts"
        for i in $(seq 1 $n); do
            seqgpu find -q --part $i/$n -f "$T/guides" -M 3 --pam NGG --dna-bulge 2 --rna-bulge 2 -F casoffinder3 \
                "$T/g.fa" >> "$T/parts" || fail "part $i/$n"
        done
        cmp -s "$T/whole" "$T/parts" || { diff "$T/whole" "$T/parts" | head; fail "$n parts differ from the whole run"; }
    done
}

@test "bulges: no site spans two records or runs past the last base; sites at the records' ends" {
    # g with an RNA bulge (its 8th base unpaired) split over two records, and whole at both ends of one
    local g=ACGTTGCAACGGTACCATGA x
    x=${g:0:7}${g:8}TGG
    printf '>a\nTTTT%s\n>b\n%sTTTT\n>c\n%sAA%s\n' "${x:0:9}" "${x:9}" "$x" "$x" > "$T/g.fa"
    for be in cpu $(gpu_backends); do
        for c in 1 7 4M; do
            run seqgpu find -q -b $be --chunk-size $c -m $g -M 0 --pam NGG --rna-bulge 1 "$T/g.fa"
            assert_success
            assert_output "$(printf 'c\t0\t22\t%s\t0\t+\tRNA\t1\nc\t24\t46\t%s\t0\t+\tRNA\t1' $g $g)"
        done
    done
}

@test "guides given with their PAM: a warning naming --guides-include-pam, which cuts the PAM off" {
    $OFF gen --seed 58 --records 4 --length 6000 --guides 4 --max-mm 3 "$T/g.fa" "$T/guides"
    # the guides as CRISPOR lists them: with the PAM of a site each
    awk -F'\t' '{print $1 "\t" $2 substr("AGGTGGCGGGGG", 3 * (NR % 4) + 1, 3)}' "$T/guides" > "$T/with_pam"
    run seqgpu find -q -f "$T/with_pam" -M 3 --pam NGG "$T/g.fa"
    assert_success
    assert_output --partial "warning: every guide ends with a match of the PAM NGG"
    assert_output --partial "--guides-include-pam"
    seqgpu find -q -f "$T/guides" -M 3 --pam NGG "$T/g.fa" > "$T/want" || fail "plain guides"
    seqgpu find -q -f "$T/with_pam" -M 3 --pam NGG --guides-include-pam "$T/g.fa" > "$T/got" 2> "$T/err" || fail "stripped"
    cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got" | head; fail "--guides-include-pam differs from the guides alone"; }
    [ ! -s "$T/err" ] || fail "a warning with --guides-include-pam: $(cat "$T/err")"
    $OFF find -f "$T/with_pam" -M 3 --pam NGG --guides-include-pam "$T/g.fa" > "$T/ref" || fail "reference"
    cmp -s "$T/ref" "$T/got" || fail "differs from the reference"
    # a 5' PAM the same way
    awk -F'\t' '{print $1 "\tTTTA" $2}' "$T/guides" > "$T/with5"
    run seqgpu find -q -f "$T/with5" -M 3 --pam-5 TTTV "$T/g.fa"
    assert_output --partial "every guide begins with a match of the PAM TTTV"
    # a guide without the PAM it is said to carry, and guides of two lengths, are errors naming the line
    printf 'a\tACGTACGTACGTACGTACGTAGG\nb\tACGTACGTACGTACGTACGTACA\n' > "$T/bad"
    run seqgpu find -q -f "$T/bad" -M 3 --pam NGG --guides-include-pam "$T/g.fa"
    assert_failure 1
    assert_output --partial "line 2"
    assert_output --partial "does not end with a match of the PAM NGG"
    printf 'a\tACGTACGTACGTACGTACGT\nb\tACGTACGTACGTACGTACGTAGG\n' > "$T/mixed"
    run seqgpu find -q -f "$T/mixed" -M 3 --pam NGG "$T/g.fa"
    assert_failure 1
    assert_output --partial "line 2"
    assert_output --partial "23 bases where the first guide"
    run seqgpu find -q -m ACGTACGTACGTACGTACGT -m ACGTACGTACGTACGTAC --pam NGG "$T/g.fa"
    assert_failure 1
    assert_output --partial "one length"
    run seqgpu find -q -f "$T/guides" -M 2 --guides-include-pam "$T/g.fa"
    assert_failure 1
    assert_output --partial "needs the PAM"
    # a guide no longer than the PAMs it is said to carry (the cut would leave nothing, or less)
    for m in TGG TTTAGG TTTAAGG; do
        run seqgpu find -q -m $m --pam-5 TTTV --pam NGG --guides-include-pam "$T/g.fa"
        assert_failure 1
        assert_output --partial "guide '$m' has ${#m} bases, no more than its PAMs (7)"
    done
    run seqgpu find -q -m TGG --pam NGG --guides-include-pam "$T/g.fa"
    assert_failure 1
    assert_output --partial "no more than its PAM (3)"
}

@test "bulges and scores: bad options and motifs get clear errors" {
    printf '>a\nACGTACGTACGTACGTACGTAGG\n' > "$T/g.fa"
    run seqgpu find -m ACGTACGTACGTACGTACGT --pam NGG --dna-bulge 3 "$T/g.fa"
    assert_failure 1
    assert_output --partial "invalid bulge size '3' (0 to 2)"
    run seqgpu find -m ACGTACGTACGTACGTACGT --pam NGG --rna-bulge x "$T/g.fa"
    assert_failure 1
    run seqgpu find -m ACGTACGTACGTACGTACGT --pam NGG --dna-bulge 1 -F casoffinder "$T/g.fa"
    assert_failure 1
    assert_output --partial "casoffinder3"
    run seqgpu find -m ACGTACGTACGTACGTACGT --pam NGG --dna-bulge 1 --all-alignments "$T/g.fa"
    assert_failure 1
    assert_output --partial "--all-alignments goes with -F tsv or -F casoffinder3"
    run seqgpu find -m ACGTACGTACGTACGTACGT --pam NGG --score cfd,xyz "$T/g.fa"
    assert_failure 1
    assert_output --partial "invalid --score"
    run seqgpu find -m ACGTACGTACGTACGTACGT --pam NGG --score cfd -F count "$T/g.fa"
    assert_failure 1
    run seqgpu find -m ACGTACGTACGTACGTAC --pam NGG --score mit "$T/g.fa"
    assert_failure 1
    assert_output --partial "a guide of 20"
    run seqgpu find -m ACGTACGTACGTACGTACGTACGTACGTACGTAC --pam NGG --dna-bulge 1 "$T/g.fa"
    assert_failure 1
    assert_output --partial "up to 32 bases"
    run seqgpu find -m ACGTACGTACGTACGTACGT --pam NGG --pam-5 TTTV --rna-bulge 1 "$T/g.fa"
    assert_failure 1
    assert_output --partial "not at both"
    run seqgpu find -m ACGTACGTACGTACGTACGT --pam NGG --guide-summary "$T/s.tsv" --part 1/2 "$T/g.fa"
    assert_failure 1
    assert_output --partial "a part's summary"
    [ ! -e "$T/s.tsv" ] || fail "an output was left by a refused run"
}
