#!/usr/bin/env bats
# find with mismatches and PAMs (-M, --pam, --pam-5, --cas-offinder,
# -F casoffinder) against tests/ref_offtarget.py, a numpy brute force that
# shares no code with seqgpu; parity with Cas-OFFinder 2.4.1 where it is
# installed.

load test_helper

# the brute force needs numpy: Debian's python3-numpy, or another python3 that has it
OFF_PY=$(for p in /usr/bin/python3 $(type -ap python3); do "$p" -c 'import numpy' 2>/dev/null && { echo "$p"; break; }; done)
OFF="${OFF_PY:-python3} $ROOT/tests/ref_offtarget.py"

# check_ref ARGS...: seqgpu find's output equals the brute force's, for the cpu backend's three
# instruction-set paths, a few thread counts and chunk sizes down to one byte
check_ref() {
    $OFF find "$@" > "$T/want" || fail "reference failed: $*"
    local simd c t
    for simd in none avx2 avx512; do # avx512 is the default where the CPU has it, else avx2
        for c in 1 613 4M; do
            t=$((1 + ${#c} % 3))
            SEQGPU_CPU_SIMD=$simd seqgpu find -q -b cpu -t $t --chunk-size $c "$@" > "$T/got" ||
                fail "seqgpu failed ($simd, chunks $c): $*"
            cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got" | head -5; fail "differs ($simd, chunks $c): $*"; }
        done
    done
}

@test "mismatches: random genomes with N runs, IUPAC text and soft-masking, 0 to 5 mismatches, 3' PAM" {
    for seed in 1 2; do
        $OFF gen --seed $seed --records 9 --length 6000 --guides 12 --max-mm 5 "$T/g.fa" "$T/guides"
        for m in 0 1 3 5; do
            check_ref -f "$T/guides" -M $m --pam NGG "$T/g.fa"
        done
        check_ref -f "$T/guides" -M 4 --pam NRG -F tsv "$T/g.fa"
    done
    [ "$(wc -l < "$T/want")" -gt 20 ] || fail "too few hits to mean anything: $(wc -l < "$T/want")"
}

@test "mismatches: 5' PAMs, both PAMs, no PAM, one strand, --skip-masked, every format" {
    $OFF gen --seed 3 --records 8 --length 5000 --guides 8 --pam TTTV --max-mm 4 "$T/g.fa" "$T/guides"
    check_ref -f "$T/guides" -M 3 --pam-5 TTTV "$T/g.fa"
    check_ref -f "$T/guides" -M 2 --pam-5 TTTV --pam NNG -F tsv "$T/g.fa"
    check_ref -f "$T/guides" -M 2 "$T/g.fa"
    check_ref -f "$T/guides" -M 4 --pam-5 TTTV -s - -F casoffinder "$T/g.fa"
    check_ref -f "$T/guides" -M 4 --pam-5 TTTV --skip-masked -F tsv "$T/g.fa"
    check_ref -f "$T/guides" -M 4 --pam-5 TTTV -F count "$T/g.fa"
}

@test "mismatches: windows longer than 32 and 64 bases, IUPAC guide letters, per-motif limits" {
    $OFF gen --seed 4 --records 6 --length 8000 --guides 4 --guide-len 45 --pam NGG --max-mm 8 "$T/g.fa" "$T/guides"
    check_ref -f "$T/guides" -M 8 --pam NGG "$T/g.fa"
    $OFF gen --seed 5 --records 4 --length 4000 --guides 3 --guide-len 70 --pam GG --max-mm 8 "$T/g.fa" "$T/guides"
    check_ref -f "$T/guides" -M 8 --pam GG -F tsv "$T/g.fa"
    printf 'iu\tACGTRYNNACGTKMSWACGT\t3\nplain\tACGTACGTACGTACGTACGT\t1\n' > "$T/m"
    $OFF gen --seed 6 --records 6 --length 6000 --guides 2 "$T/g.fa" "$T/guides"
    check_ref -f "$T/m" -M 2 --pam NGG -F tsv "$T/g.fa"
    printf 'exact\tACGTAC\n' > "$T/m" # guides next to a PAM are one length: another run
    check_ref -f "$T/m" -M 2 --pam NGG -F tsv "$T/g.fa"
}

@test "mismatches: a window equal to its reverse complement is searched once ('.'), and given twice by -F casoffinder" {
    printf 'pal\tACGTNNACGT\t2\n' > "$T/m"
    $OFF gen --seed 7 --records 5 --length 20000 --guides 2 "$T/g.fa" "$T/guides"
    printf '>planted\nTTCCAACGTAAACGTTGGTTCCAACGTAtACGTTGGTT\n' >> "$T/g.fa"
    check_ref -f "$T/m" --pam-5 CCN --pam NGG "$T/g.fa"
    grep -q '	\.$' "$T/got" || fail "no palindromic hit"
    check_ref -f "$T/m" --pam-5 CCN --pam NGG -F casoffinder "$T/g.fa"
    check_ref -f "$T/m" --pam-5 CCN --pam NGG -F casoffinder -s + "$T/g.fa"
    check_ref -f "$T/m" --pam-5 CCN --pam NGG -F casoffinder -s - "$T/g.fa"
}

# check_backend BACKEND ARGS...: the backend's output equals the brute force's, at a few chunk sizes
check_backend() {
    local be=$1 c
    shift
    $OFF find "$@" > "$T/want" || fail "reference failed: $*"
    for c in 1000 64M; do
        seqgpu find -q -b "$be" --chunk-size $c "$@" > "$T/got" || fail "$be failed (chunks $c): $*"
        cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got" | head -5; fail "$be differs (chunks $c): $*"; }
    done
}

@test "mismatches: the GPU backends give the brute force's bytes" {
    local bes
    bes=$(gpu_backends)
    [ -n "$bes" ] || skip "no GPU backend here: $(backend_absent cuda); $(backend_absent opencl)"
    for be in $bes; do
        use_backend $be
        $OFF gen --seed 21 --records 10 --length 30000 --guides 40 --max-mm 6 "$T/g.fa" "$T/guides"
        check_backend $be -f "$T/guides" -M 4 --pam NGG "$T/g.fa"
        check_backend $be -f "$T/guides" -M 6 --pam NRG -F tsv "$T/g.fa"
        check_backend $be -f "$T/guides" -M 3 --pam-5 TTTV -s - "$T/g.fa"
        check_backend $be -f "$T/guides" -M 2 --skip-masked -F casoffinder "$T/g.fa"
        printf 'pal\tACGTNNACGT\t2\n' > "$T/m"
        printf '>planted\nTTCCAACGTAAACGTTGGTTCCAACGTAtACGTTGGTT\n' >> "$T/g.fa"
        check_backend $be -f "$T/m" --pam-5 CCN --pam NGG "$T/g.fa"
        $OFF gen --seed 22 --records 4 --length 9000 --guides 5 --guide-len 45 --max-mm 8 "$T/g.fa" "$T/guides"
        check_backend $be -f "$T/guides" -M 8 --pam NGG "$T/g.fa"
    done
}

@test "mismatches: no window spans two records or runs past the last base" {
    # g is ACGTTGCAACGGTACCATGA; each record holds part of a window that would have 1-3 mismatches
    printf '>a\nTTTTACGTTGCAACGG\n>b\nTACCATGATGGTTTT\n>c\nCCCTTTAACGTTGCAACGGTACCATG\n>d\nTTTVACGTTGCAACGGTACCATGA\n' > "$T/g.fa"
    printf 'g\tACGTTGCAACGGTACCATGA\n' > "$T/m"
    for be in cpu $(gpu_backends); do
        for c in 1 7 4M; do
            run seqgpu find -q -b $be --chunk-size $c -f "$T/m" -M 3 "$T/g.fa"
            assert_success
            assert_output "$(printf 'd\t4\t24\tg\t0\t+')"
            run seqgpu find -q -b $be --chunk-size $c -f "$T/m" -M 3 --pam-5 TTTV "$T/g.fa"
            assert_success
            assert_output ""
            run seqgpu find -q -b $be --chunk-size $c -f "$T/m" -M 3 --pam NGG "$T/g.fa"
            assert_success
            assert_output ""
        done
    done
}

@test "mismatches: -M 0 without a PAM is exact search, byte for byte" {
    $OFF gen --seed 8 --records 6 --length 5000 --guides 6 "$T/g.fa" "$T/guides"
    for f in bed tsv count; do
        seqgpu find -q -f "$T/guides" -F $f "$T/g.fa" > "$T/exact" || fail "exact $f"
        seqgpu find -q -f "$T/guides" -M 0 -F $f "$T/g.fa" > "$T/m0" || fail "-M 0 $f"
        cmp -s "$T/exact" "$T/m0" || fail "-M 0 changed the $f output"
    done
}

@test "mismatches: output columns" {
    printf '>chr1 x\nAAAACGTACGTACGTACGTACGTCGGTTTT\n' > "$T/g.fa"
    run seqgpu find -q -m ACGTACGTACGTACGTAGGT -M 2 --pam NGG "$T/g.fa"
    assert_success
    assert_output "chr1	3	26	ACGTACGTACGTACGTAGGT	1	+"
    run seqgpu find -q -m ACGTACGTACGTACGTAGGT -M 2 --pam NGG -F tsv "$T/g.fa"
    assert_success
    assert_line -n 0 "seqID	patternName	pattern	strand	start	end	matched	mismatches"
    assert_line -n 1 "chr1	ACGTACGTACGTACGTAGGT	ACGTACGTACGTACGTAGGTNGG	+	4	26	ACGTACGTACGTACGTAcGTCGG	1"
    run seqgpu find -q -m ACGTACGTACGTACGTAGGT -M 2 --pam NGG -F casoffinder "$T/g.fa"
    assert_success
    assert_output "ACGTACGTACGTACGTAGGTNNN	chr1	3	ACGTACGTACGTACGTAcGTCGG	+	1"
    # the minus strand: the site in guide orientation
    printf '>m\nCCGACGTACGTACGTACGTACGT\n' > "$T/r.fa"
    run seqgpu find -q -m ACGTACGTACGTACGTAGGT -M 2 --pam NGG -F casoffinder "$T/r.fa"
    assert_success
    assert_output "ACGTACGTACGTACGTAGGTNNN	m	0	ACGTACGTACGTACGTAcGTCGG	-	1"
    # IUPAC text letters on the minus strand are complemented too (R<->Y, K<->M), as Cas-OFFinder does
    printf '>r\nCCTTTTCCAGRYKMTTTTT\n' > "$T/iu.fa"
    run seqgpu find -q -m AAAAAAAACCTGGAAAA -M 4 --pam GG -F casoffinder "$T/iu.fa"
    assert_success
    assert_output "AAAAAAAACCTGGAAAANN	r	0	AAAAAkmryCTGGAAAAGG	-	4"
}

# write_casoff DIR PATTERN LIMIT GUIDES...: a Cas-OFFinder input file naming genome folder DIR
write_casoff() {
    local dir=$1 pat=$2 lim=$3 i=0
    shift 3
    { echo "$dir"; echo "$pat"; for g in "$@"; do echo "$g $lim id$i"; i=$((i + 1)); done; } > "$T/in.txt"
}

@test "--cas-offinder: a folder of plain and gzip FASTA in name order, guides with limits and ids" {
    mkdir -p "$T/gen"
    $OFF gen --seed 9 --records 4 --length 8000 --guides 6 --max-mm 4 "$T/gen/b.fa" "$T/guides"
    $OFF gen --seed 10 --records 3 --length 8000 --guides 6 --max-mm 4 "$T/a.fa" "$T/guides2"
    gzip -c "$T/a.fa" > "$T/gen/a.fa.gz"
    echo "not a genome" > "$T/gen/notes.txt"
    { echo "$T/gen"; echo NNNNNNNNNNNNNNNNNNNNNGG;
      awk -F'\t' '{print $2 "NNN " NR % 5 " " $1}' "$T/guides" "$T/guides2"; } > "$T/in.txt"
    run seqgpu find -q --cas-offinder "$T/in.txt" -F casoffinder -o "$T/got"
    assert_success
    assert_output --partial "not FASTA"
    $OFF find --cas-offinder "$T/in.txt" -F casoffinder > "$T/want"
    cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got" | head; fail "differs from the reference"; }
    [ "$(wc -l < "$T/want")" -gt 10 ] || fail "too few sites: $(wc -l < "$T/want")"
    # records of a.fa.gz come first (name order)
    head -1 "$T/got" | grep -q "	rec[0-9]	" || fail "first row: $(head -1 "$T/got")"
    seqgpu find -q --cas-offinder "$T/in.txt" > "$T/bed" || fail "bed"
    $OFF find --cas-offinder "$T/in.txt" > "$T/want"
    cmp -s "$T/want" "$T/bed" || fail "bed differs"
    cut -f4 "$T/bed" | grep -q '^g1$' || fail "the id names the motif in BED"
}

@test "--cas-offinder: parity with Cas-OFFinder 2.4.1 on random genomes, NGG and NRG, up to 5 mismatches" {
    CASOFF=${SEQGPU_CASOFFINDER:-$ROOT/../shared/peers/cas-offinder/cas-offinder}
    [ -x "$CASOFF" ] || skip "Cas-OFFinder 2.4.1 is not installed (SEQGPU_CASOFFINDER)"
    [ -z "$(ls /etc/OpenCL/vendors/*.icd 2>/dev/null)" ] && skip "no OpenCL platform for Cas-OFFinder"
    for seed in 11 12; do
        mkdir -p "$T/g$seed"
        $OFF gen --seed $seed --records 6 --length 20000 --guides 10 --max-mm 5 "$T/g$seed/genome.fa" "$T/guides"
        for pam in NGG NRG; do
            { echo "$T/g$seed"; echo NNNNNNNNNNNNNNNNNNNN$pam; awk -F'\t' '{print $2 "NNN 5 " $1}' "$T/guides"; } > "$T/in.txt"
            rm -f "$T/co.out"
            "$CASOFF" "$T/in.txt" "${SEQGPU_CASOFFINDER_DEVICE:-C}" "$T/co.out" > /dev/null 2>&1 || fail "Cas-OFFinder failed"
            seqgpu find -q --cas-offinder "$T/in.txt" -F casoffinder -o "$T/sg.out" || fail "seqgpu failed"
            # Cas-OFFinder prints the whole header; its quirks (sites cut short at a file's end,
            # a text N or ambiguity code taken as a PAM base) stay out of the comparison
            for f in co sg; do
                awk -F'\t' -v OFS='\t' '{split($2, w, " "); $2 = w[1];
                    if (length($4) != 23) next; p = toupper(substr($4, 21, 3)); if (p ~ /[^ACGT]/) next; print}' \
                    "$T/$f.out" | sort > "$T/$f.cmp"
            done
            [ "$(wc -l < "$T/sg.cmp")" -gt 20 ] || fail "too few sites: $(wc -l < "$T/sg.cmp")"
            cmp -s "$T/co.cmp" "$T/sg.cmp" || { diff "$T/co.cmp" "$T/sg.cmp" | head; fail "seed $seed $pam differs"; }
        done
    done
}

@test "mismatches: bad input gets a clear error naming what is wrong" {
    printf '>a\nACGTACGTACGT\n' > "$T/g.fa"
    run seqgpu find -M 9 -m ACGTACGTACGT "$T/g.fa"
    assert_failure 1
    assert_output --partial "invalid mismatch limit '9'"
    run seqgpu find -M -1 -m ACGT "$T/g.fa"
    assert_failure 1
    run seqgpu find -M 4 -m ACGT "$T/g.fa"
    assert_failure 1
    assert_output --partial "below the motif's 4 bases"
    run seqgpu find --pam NXG -m ACGT "$T/g.fa"
    assert_failure 1
    assert_output --partial "invalid letter 'X' at position 2 of PAM 'NXG'"
    printf 'a\tACGTAC\t9\n' > "$T/m"
    run seqgpu find -f "$T/m" "$T/g.fa"
    assert_failure 1
    assert_output --partial "line 1"
    run seqgpu find --cas-offinder "$T/none.txt"
    assert_failure 1
    assert_output --partial "none.txt"
    write_casoff "$T/nowhere" NNNNNNNGG 2 ACGTACGNN
    run seqgpu find --cas-offinder "$T/in.txt"
    assert_failure 1
    assert_output --partial "nowhere"
    mkdir -p "$T/gen" && cp "$T/g.fa" "$T/gen/"
    write_casoff "$T/gen" NNNNNNNGG 2 ACGTACGNNN
    run seqgpu find --cas-offinder "$T/in.txt"
    assert_failure 1
    assert_output --partial "line 3"
    assert_output --partial "10 bases where the pattern"
    write_casoff "$T/gen" NNNNNNNGG 9 ACGTACGNN
    run seqgpu find --cas-offinder "$T/in.txt"
    assert_failure 1
    assert_output --partial "line 3"
    write_casoff "$T/gen" NNNNNNNGG 2 ACGTXCGNN
    run seqgpu find --cas-offinder "$T/in.txt"
    assert_failure 1
    assert_output --partial "invalid letter 'X'"
    printf '%s\nNNNNNNNGG 1\nACGTACGNN 2\n' "$T/gen" > "$T/in.txt"
    run seqgpu find --cas-offinder "$T/in.txt"
    assert_failure 1
    assert_output --partial "DNA_BULGE RNA_BULGE"
    write_casoff "$T/gen" NNNNNNNGG 2 ACGTACGNN
    run seqgpu find --cas-offinder "$T/in.txt" -m ACGT
    assert_failure 1
    assert_output --partial "without -m"
    run seqgpu find --cas-offinder "$T/in.txt" "$T/g.fa"
    assert_failure 1
    mkdir -p "$T/empty"
    write_casoff "$T/empty" NNNNNNNGG 2 ACGTACGNN
    run seqgpu find --cas-offinder "$T/in.txt"
    assert_failure 1
    assert_output --partial "no FASTA or .2bit files"
}

@test "mismatches: --stats names each motif's window and limit" {
    printf '>a\nACGTACGTACGTAGG\n' > "$T/g.fa"
    seqgpu find -q -m ACGTACGTACGT -M 2 --pam NGG --stats "$T/s.json" "$T/g.fa" > /dev/null || fail "run"
    python3 -c "
import json, sys
m = json.load(open('$T/s.json'))['motifs'][0]
assert m['window'] == 'ACGTACGTACGTNGG' and m['max_mismatches'] == 2 and m['length'] == 15, m
" || fail "stats: $(cat "$T/s.json")"
}
