#!/usr/bin/env bats
# Hostile input and hostile conditions, by class of defect (issue 11). Each
# case asserts seqgpu's own exit status, the message, and what is left on
# disk. Add a case under its class:
#   1. data loss                        (no read dropped, no input overwritten)
#   2. crashes and runaway resources    (a clear error instead)
#   3. output files                     (created first, replaced whole, all or none)
#   4. wrong results                    (coverage, undefined behaviour)
#   5. clear messages                   (the file, the record, what to do)
#   6. empty input                      (zero records is valid input)
# More bad input (malformed FASTQ, '>' in a sequence, invalid motif letters,
# missing inputs, /dev/full) is in find_cli.bats and scc.bats.

load test_helper

# no_temporaries DIR: nothing a run writes before it is complete is left in DIR
no_temporaries() {
    local left
    left=$(ls -A "$1" | grep seqgpu-tmp || true)
    [ -z "$left" ] || fail "temporaries left in $1: $left"
}

# lambda phage as plain FASTA, and its checksum
lambda_fa() {
    zcat "$LAMBDA" > "$T/in.fa"
    md5sum < "$T/in.fa" > "$T/in.md5"
}

same_as_before() {
    md5sum < "$1" | cmp -s - "$2" || fail "$1 changed"
}

# the value of a --stats field
stat_of() {
    python3 -c "import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"
}

# ---- 1. data loss ---------------------------------------------------------

@test "data loss: scc reads every read of a pipe or a process substitution" {
    $REF sim --seed 2 --periods 7,40 --unique 2000 "$T/sim"
    run seqgpu scc -q -p "$T/file" --stats "$T/file.json" "$T/sim.reads.fq"
    assert_success
    local want
    want=$(stat_of "$T/file.json" kmers)
    run seqgpu scc -q -p "$T/sub" --stats "$T/sub.json" <(cat "$T/sim.reads.fq")
    assert_success
    assert_equal "$(stat_of "$T/sub.json" kmers)" "$want"
    run bash -c "cat '$T/sim.reads.fq' | '$SEQGPU' scc -q -p '$T/pipe' --stats '$T/pipe.json' -"
    assert_success
    assert_equal "$(stat_of "$T/pipe.json" kmers)" "$want"
    run seqgpu scc -q -p "$T/gz" --stats "$T/gz.json" <(gzip -c "$T/sim.reads.fq")
    assert_success
    assert_equal "$(stat_of "$T/gz.json" kmers)" "$want"
    for p in sub pipe gz; do cmp "$T/file.repeats.tsv" "$T/$p.repeats.tsv" || fail "$p: other repeats"; done
}

@test "data loss: a GFA graph through a pipe is read as the graph" {
    $REF sim --seed 9 --periods 3,11,60 --unique 3000 "$T/sim"
    run seqgpu scc -q --write-graph "$T/whole.gfa" -p "$T/o" "$T/sim.reads.fq"
    assert_success
    run seqgpu scc -q -p "$T/file" "$T/whole.gfa"
    assert_success
    run bash -c "'$SEQGPU' scc -q -p '$T/stdin' - < '$T/whole.gfa'"
    assert_success
    run seqgpu scc -q -p "$T/sub" <(cat "$T/whole.gfa")
    assert_success
    run seqgpu scc -q -p "$T/gz" <(gzip -c "$T/whole.gfa")
    assert_success
    for p in stdin sub gz; do cmp "$T/file.repeats.tsv" "$T/$p.repeats.tsv" || fail "$p: other repeats"; done
    [ "$(wc -l < "$T/file.repeats.tsv")" -eq 4 ] || fail "$(cat "$T/file.repeats.tsv")"
}

@test "data loss: an output that is an input is refused (exit 1), the input untouched" {
    lambda_fa
    gzip -c "$T/in.fa" > "$T/in.fa.gz"
    md5sum < "$T/in.fa.gz" > "$T/gz.md5"
    ln -s in.fa "$T/soft.fa"
    ln "$T/in.fa" "$T/hard.fa"
    printf 'EcoRI\tGAATTC\n' > "$T/m.tsv"
    md5sum < "$T/m.tsv" > "$T/m.md5"
    run seqgpu find -m GAATTC -o "$T/in.fa" "$T/in.fa"
    assert_failure 1
    assert_output --partial "-o '$T/in.fa' is the input '$T/in.fa'"
    run seqgpu find -m GAATTC -o "$T/in.fa.gz" "$T/in.fa.gz"
    assert_failure 1
    same_as_before "$T/in.fa.gz" "$T/gz.md5"
    for out in "$T/soft.fa" "$T/hard.fa"; do
        run seqgpu find -m GAATTC -o "$out" "$T/in.fa"
        assert_failure 1
    done
    run seqgpu find -m GAATTC -o "$T/x.bed" --stats "$T/in.fa" "$T/in.fa"
    assert_failure 1
    run seqgpu find -f "$T/m.tsv" -o "$T/m.tsv" "$T/in.fa"
    assert_failure 1
    same_as_before "$T/m.tsv" "$T/m.md5"
    run bash -c "'$SEQGPU' find -m GAATTC -o '$T/in.fa' - < '$T/in.fa'"
    assert_failure 1
    run bash -c "'$SEQGPU' find -m GAATTC '$T/in.fa' >> '$T/in.fa'"
    assert_failure 1
    assert_output --partial "is the input"
    same_as_before "$T/in.fa" "$T/in.md5"
    [ ! -e "$T/x.bed" ] || fail "a refused run wrote x.bed"
    # --cas-offinder: the input file and the genome files it names are inputs too
    mkdir -p "$T/genome" && cp "$T/in.fa" "$T/genome/g.fa"
    printf '%s\nNNNNNNNNNNNNNNNNNNNNNGG\nACGTACGTACGTACGTACGTNNN 2\n' "$T/genome" > "$T/co.txt"
    md5sum < "$T/co.txt" > "$T/co.md5"
    for out in "$T/co.txt" "$T/genome/g.fa"; do
        run seqgpu find --cas-offinder "$T/co.txt" -o "$out"
        assert_failure 1
        assert_output --partial "is the input"
    done
    same_as_before "$T/co.txt" "$T/co.md5"
    same_as_before "$T/genome/g.fa" "$T/in.md5"
    no_temporaries "$T"
}

@test "data loss: scc refuses PREFIX.*, --write-graph or --stats on its input" {
    $REF sim --seed 9 --periods 11 --unique 2000 "$T/sim"
    run seqgpu scc -q --write-graph "$T/asm.gfa" -p "$T/o" "$T/sim.reads.fq"
    assert_success
    md5sum < "$T/asm.gfa" > "$T/asm.md5"
    md5sum < "$T/sim.reads.fq" > "$T/fq.md5"
    run seqgpu scc -p "$T/asm" "$T/asm.gfa"
    assert_failure 1
    assert_output --partial "PREFIX.gfa '$T/asm.gfa' is the input '$T/asm.gfa'"
    run seqgpu scc --write-graph "$T/sim.reads.fq" -p "$T/x" "$T/sim.reads.fq"
    assert_failure 1
    run seqgpu scc --stats "$T/asm.gfa" -p "$T/x" "$T/asm.gfa"
    assert_failure 1
    run seqgpu scc --stats "$T/sim.reads.fq" -p "$T/x" "$T/sim.reads.fq"
    assert_failure 1
    same_as_before "$T/asm.gfa" "$T/asm.md5"
    same_as_before "$T/sim.reads.fq" "$T/fq.md5"
    run ls "$T"
    refute_output --partial "x."
    no_temporaries "$T"
}

# ---- 2. crashes and runaway resources -------------------------------------

@test "crashes: a GFA LN must be 1 to 2^31-1 and match the sequence; the bases it declares cost nothing" {
    for ln in -5 0 3000000000 12x 1e3; do
        printf 'S\ta\t*\tLN:i:%s\nL\ta\t+\ta\t+\t0M\n' "$ln" > "$T/g.gfa"
        run timeout 60 "$SEQGPU" scc -q -p "$T/o" "$T/g.gfa"
        assert_failure 1
        assert_output --partial "line 1: LN:i:$ln is not a length"
    done
    printf 'S\ta\tACGT\tLN:i:5\n' > "$T/g.gfa"
    run seqgpu scc -q -p "$T/o" "$T/g.gfa"
    assert_failure 1
    assert_output --partial "LN 5 differs from the length of the sequence, 4"
    # 2 Tb declared in 40 kB: no sequence to hold, so no memory and no time
    for i in $(seq 1000); do printf 'S\ts%d\t*\tLN:i:2147483647\tDP:f:30\nL\ts%d\t+\ts%d\t+\t30M\n' $i $i $i; done > "$T/big.gfa"
    run timeout 60 "$SEQGPU" scc -q -p "$T/o" --stats "$T/s.json" "$T/big.gfa"
    assert_success
    run python3 -c "import json; print(json.load(open('$T/s.json'))['peak_rss_bytes'] < 1 << 30)"
    assert_output "True"
    assert_equal "$(sed -n 2p "$T/o.repeats.tsv" | cut -f5,8)" "$(printf '2147483617\t*')"
    assert_equal "$(grep -c $'^S\t[^\t]*\t\*\tLN:i:2147483647' "$T/o.gfa")" 1000
    [ ! -s "$T/o.units.fa" ] || fail "a unit of unknown bases"
}

@test "crashes: GFA depths and overlaps that no graph has are errors, not undefined behaviour" {
    for tag in DP:f:nan DP:f:-1 KC:i:-5 km:f:inf RC:i:x; do
        printf 'S\ta\tACGTACGT\t%s\n' "$tag" > "$T/g.gfa"
        run seqgpu scc -q -p "$T/o" "$T/g.gfa"
        assert_failure 1
        assert_output --partial "line 1: $tag is not a depth"
    done
    printf 'S\ta\tACGT\nL\ta\t+\ta\t+\t99999999999M\n' > "$T/g.gfa"
    run seqgpu scc -q -p "$T/o" "$T/g.gfa"
    assert_failure 1
    assert_output --partial "line 2: an L line"
}

@test "wrong results: a GFA link's overlap must be shorter than both its segments, naming the line" {
    local case
    for case in 'S\ta\tACGTACGTAC\nS\tb\tTTGCATTGCA\nL\ta\t+\tb\t+\t11M\n|3|11|a' \
        'S\ta\tACGTACGTAC\nL\ta\t+\ta\t+\t30M\n|2|30|a' 'S\ta\tACGTACGTAC\nL\ta\t+\ta\t-\t10M\n|2|10|a' \
        'S\ta\t*\tLN:i:5\nS\tb\t*\tLN:i:50\nL\tb\t+\ta\t+\t20M\n|3|20|a' \
        'S\ta\tACGTACGTAC\nS\tb\t*\nL\ta\t+\tb\t+\t3M\n|3|3|b' \
        'S\ta\tACGTACGTAC\nS\tb\tACGTAC\nL\ta\t+\tb\t-\t5M3I\n|3|8|b'; do
        printf "$(echo "$case" | cut -d'|' -f1)" > "$T/g.gfa"
        run seqgpu scc -q -p "$T/o" "$T/g.gfa"
        assert_failure 1
        assert_output --partial "line $(echo "$case" | cut -d'|' -f2): the link's overlap, $(echo "$case" | cut -d'|' -f3) bases, is not shorter than segment '$(echo "$case" | cut -d'|' -f4)'"
    done
    # one base less: a repeat with a period of one base per link
    printf 'S\ta\tACGTACGTAC\nS\tb\tCGTACGTACG\nL\ta\t+\tb\t+\t9M\nL\tb\t+\ta\t+\t9M\n' > "$T/g.gfa"
    run seqgpu scc -q -p "$T/o" "$T/g.gfa"
    assert_success
    assert_equal "$(sed -n 2p "$T/o.repeats.tsv" | cut -f2,5)" "$(printf 'tandem\t2')"
}

@test "wrong results: GFA depths beyond 2^64 are errors; up to it, every number written is finite" {
    local t
    for t in DP:f:1e308 KC:i:100000000000000000000 km:f:1.9e19 RC:i:1e300 DP:f:1e400; do
        printf 'S\ta\tACGTACGTAC\t%s\nS\tb\tTTGCATTGCA\t%s\nL\ta\t+\tb\t+\t5M\nL\tb\t+\ta\t+\t5M\n' "$t" "$t" > "$T/g.gfa"
        run seqgpu scc -q -p "$T/o" "$T/g.gfa"
        assert_failure 1
        assert_output --partial "line 1: $t is not a depth (a number from 0 to 2^64)"
    done
    printf 'S\ta\tACGTACGTAC\tDP:f:18446744073709551616\nS\tb\tTTGCATTGCA\tKC:i:18446744073709551616\nS\tc\tACGTTT\tDP:f:1e-300\nL\ta\t+\tb\t+\t5M\nL\tb\t+\ta\t+\t5M\nL\tc\t+\tc\t+\t5M\n' > "$T/g.gfa"
    run seqgpu scc -q -p "$T/o" --stats "$T/s.json" "$T/g.gfa"
    assert_success
    [ "$(wc -l < "$T/o.repeats.tsv")" -eq 3 ] || fail "$(cat "$T/o.repeats.tsv")"
    # as words: --stats has "inflate_threads"
    ! grep -qiwE 'nan|inf|infinity' "$T/o.repeats.tsv" "$T/o.gfa" "$T/o.repeats.svg" "$T/s.json" || fail "a number that is not finite"
    python3 -c "import json; json.load(open('$T/s.json'))"
}

@test "crashes: a 300 Mb single-line record: exact counts at every chunk seam, bounded memory" {
    { printf '>big\n'; head -c 300000000 /dev/zero | tr '\0' 'A'; printf '\n'; } > "$T/big.fa"
    run seqgpu find -q -t 2 -F count -m AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA --stats "$T/s.json" "$T/big.fa"
    assert_success
    assert_line --index 1 "$(printf 'big\tAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\t299999969')"
    # the memory bound holds for the normal build (ASan keeps freed memory in quarantine)
    if [ -z "${SEQGPU_SANITIZER:-}" ]; then
        run python3 -c "import json; print(json.load(open('$T/s.json'))['peak_rss_bytes'] < 400 << 20)"
        assert_output "True"
    fi
    gzip -1 -c "$T/big.fa" > "$T/big.fa.gz"
    rm "$T/big.fa"
    run seqgpu find -q -t 2 -F count -m AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA "$T/big.fa.gz"
    assert_success
    assert_line --index 1 "$(printf 'big\tAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\t299999969')"
}

# dense_genome: $T/g.fa (two records, 200 kb, soft-masked, a few N), motif
# files with hits at almost every start ($T/n40.tsv: N to N x 40;
# $T/one.tsv: 1,000 one-letter IUPAC motifs), and the counts a brute force
# expects: $T/n40.want (-F count), $T/one.want (-F count --pam NGG)
dense_genome() {
    python3 - "$T" <<'PY'
import random, re, sys
from collections import Counter
t = sys.argv[1]
random.seed(31)
recs = [(n, ''.join('N' if random.random() < 0.0005 else random.choice('ACGTacgt') for _ in range(size)))
        for n, size in (('r1', 120000), ('r2', 80000))]
with open(t + '/g.fa', 'w') as f:
    for n, s in recs:
        f.write('>' + n + '\n' + ''.join(s[i:i + 60] + '\n' for i in range(0, len(s), 60)))
iupac = {'A': 'A', 'C': 'C', 'G': 'G', 'T': 'T', 'R': 'AG', 'Y': 'CT', 'S': 'CG', 'W': 'AT', 'K': 'GT', 'M': 'AC',
         'B': 'CGT', 'D': 'AGT', 'H': 'ACT', 'V': 'ACG', 'N': 'ACGT'}
comp = {'A': 'T', 'C': 'G', 'G': 'C', 'T': 'A'}
letters = 'ACGTNRYSWKMBDHV'
with open(t + '/n40.tsv', 'w') as f:
    f.write(''.join('n%d\t%s\n' % (k, 'N' * k) for k in range(1, 41)))
with open(t + '/one.tsv', 'w') as f:
    f.write(''.join('m%d\t%s\n' % (i, letters[i % 15]) for i in range(1000)))
with open(t + '/n40.want', 'w') as f, open(t + '/one.want', 'w') as g:
    f.write('seqID\tpatternName\thits\n')
    g.write('seqID\tpatternName\thits\n')
    for n, s in recs:
        u = s.upper()
        runs = [len(r) for r in re.findall('[ACGT]+', u)]
        for k in range(1, 41):  # N x k is its own reverse complement: one strand
            f.write('%s\tn%d\t%d\n' % (n, k, sum(max(0, r - k + 1) for r in runs)))
        # the base before each NGG, and after each CCN: a motif's hits are those in its set
        fwd = Counter(m.group(1) for m in re.finditer('(?=([ACGT])[ACGT]GG)', u))
        rev = Counter(comp[m.group(1)] for m in re.finditer('(?=CC[ACGT]([ACGT]))', u))
        for i in range(1000):
            g.write('%s\tm%d\t%d\n' % (n, i, sum(fwd[b] + rev[b] for b in iupac[letters[i % 15]])))
PY
}

@test "crashes: find's memory is bounded by the chunk and the threads, however dense the hits (ulimit -v)" {
    [ -z "${SEQGPU_SANITIZER:-}" ] || skip "sanitizers reserve more address space than the limit"
    dense_genome
    # 8 M hits: 128 MB to hold and sort them; under 150 MB of address space
    run bash -c "ulimit -v 150000 && exec '$SEQGPU' find -q -b cpu -t 2 -F count -f '$T/n40.tsv' -o '$T/n40.count' '$T/g.fa'"
    assert_success
    cmp "$T/n40.want" "$T/n40.count" || { diff "$T/n40.want" "$T/n40.count" | head; fail "-F count differs from the brute force"; }
    # BED through a pipe (N to N x 20: 4 M rows): each record's rows in order (start, then end), as many as counted
    head -20 "$T/n40.tsv" > "$T/n20.tsv"
    run bash -c "set -o pipefail; ulimit -v 150000 && '$SEQGPU' find -q -b cpu -t 2 -f '$T/n20.tsv' '$T/g.fa' |
        awk -F'\t' '\$1 != r { r = \$1; s = -1; e = -1 }
                    \$2 < s || (\$2 == s && \$3 < e) { print \"out of order: \" \$0; exit 1 }
                    { s = \$2; e = \$3; n[\$1 \"\t\" \$4]++ }
                    END { for (k in n) print k \"\t\" n[k] }' | sort > '$T/bed.count'"
    assert_success
    awk -F'\t' 'NR > 1 && substr($2, 2) + 0 <= 20' "$T/n40.want" | sort | cmp - "$T/bed.count" || fail "BED rows differ from the counts"
    # a PAM: 1,000 one-letter motifs, 19 M hits counted
    run bash -c "ulimit -v 150000 && exec '$SEQGPU' find -q -b cpu -t 2 -F count --pam NGG -f '$T/one.tsv' -o '$T/one.count' '$T/g.fa'"
    assert_success
    cmp "$T/one.want" "$T/one.count" || { diff "$T/one.want" "$T/one.count" | head; fail "--pam NGG -F count differs from the brute force"; }
    # 20,000 reads and 1,000 motifs: a row per read and motif, and --summary's tally of the first 20 reads
    # (not of a chunk's reads: 160 MB)
    $REF gen --seed 4 --records 20000 --max-len 150 --fastq > "$T/r.fq"
    $REF motifs --seed 4 -n 1000 --min-len 12 --max-len 12 > "$T/rare.tsv"
    seqgpu find -q -b cpu -F count -f "$T/rare.tsv" -o "$T/r.want" "$T/r.fq"
    run bash -c "ulimit -v 150000 && exec '$SEQGPU' find -q -b cpu -t 2 -F count --summary -f '$T/rare.tsv' -o '$T/r.count' '$T/r.fq'"
    assert_success
    cmp "$T/r.want" "$T/r.count" || fail "-F count --summary differs"
    local all
    all=$(awk 'NR > 1 {s += $3} END {print s}' "$T/r.want")
    [ "$all" -gt 10 ] || fail "too few hits: $all"
    assert_equal "$(echo "$output" | awk '$1 == "all" {print $2}')" "$all"
}

@test "crashes: a chunk's hits and text in pieces (find's bounds at their least) are the reference's bytes" {
    printf 'eco\tGAATTC\nry\tRY\nn3\tNNN\nlong\tACGTTGCAGG\nsau\tCCWGG\n' > "$T/m.tsv"
    $REF gen --seed 5 --records 12 --max-len 3000 --plant GAATTC,ACGTTGCAGG > "$T/g.fa"
    local f lim c
    for f in bed tsv count; do
        $REF find -F $f "$T/m.tsv" "$T/g.fa" > "$T/want"
        for lim in 1,1 11,300 100,5000; do
            for c in 13 1000 4M; do
                SEQGPU_FIND_HITS=${lim%,*} SEQGPU_FIND_TEXT=${lim#*,} "$SEQGPU" find -q -t 3 -F $f --chunk-size $c \
                    -f "$T/m.tsv" "$T/g.fa" > "$T/got" || fail "-F $f, limits $lim, --chunk-size $c failed"
                cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got" | head; fail "-F $f, limits $lim, --chunk-size $c differs"; }
            done
        done
    done
    # mismatches and a PAM, every format, and the tallies of --stats and --summary (guides next to a PAM are of
    # one length)
    printf 'eco\tGAATTC\nacg\tACGTTG\nsau\tCCWGGN\nw\tWWWWWW\n' > "$T/m.tsv"
    for f in bed tsv count casoffinder; do
        seqgpu find -q -F $f -M 2 --pam NGG -f "$T/m.tsv" --stats "$T/want.json" --summary "$T/g.fa" > "$T/want" 2> "$T/want.sum"
        SEQGPU_FIND_HITS=1 SEQGPU_FIND_TEXT=1 "$SEQGPU" find -q -t 2 -F $f -M 2 --pam NGG -f "$T/m.tsv" \
            --stats "$T/got.json" --summary --chunk-size 500 "$T/g.fa" > "$T/got" 2> "$T/got.sum" || fail "-M 2 -F $f failed"
        cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got" | head; fail "-M 2 --pam NGG -F $f differs in pieces"; }
        cmp -s "$T/want.sum" "$T/got.sum" || fail "--summary differs in pieces: $(diff "$T/want.sum" "$T/got.sum")"
        assert_equal "$(stat_of "$T/got.json" hits)" "$(stat_of "$T/want.json" hits)"
    done
    # bulge sites (a rank each variant), Cas-OFFinder 3's rows, scores, every alignment, counts by file, and
    # --guide-summary, whose sums add the sites in output order however the chunks are cut into pieces
    python3 "$ROOT/tests/ref_offtarget.py" gen --seed 62 --records 6 --length 8000 --guides 4 --max-mm 4 --bulges 1 \
        "$T/b.fa" "$T/guides"
    local args
    for args in "-F tsv --score cfd" "-F bed" "-F count --by-file" "-F casoffinder3 --all-alignments --score cfd,mit"; do
        # shellcheck disable=SC2086 # args are words
        seqgpu find -q -M 5 --pam NRG --dna-bulge 1 --rna-bulge 1 $args -f "$T/guides" --guide-summary "$T/want_mqc.tsv" \
            "$T/b.fa" > "$T/want" || fail "bulges $args failed"
        # shellcheck disable=SC2086
        SEQGPU_FIND_HITS=1 SEQGPU_FIND_TEXT=1 "$SEQGPU" find -q -t 2 --chunk-size 700 -M 5 --pam NRG --dna-bulge 1 \
            --rna-bulge 1 $args -f "$T/guides" --guide-summary "$T/got_mqc.tsv" "$T/b.fa" > "$T/got" ||
            fail "bulges $args failed in pieces"
        cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got" | head; fail "bulges $args differ in pieces"; }
        cmp -s "$T/want_mqc.tsv" "$T/got_mqc.tsv" ||
            fail "--guide-summary differs in pieces: $(diff "$T/want_mqc.tsv" "$T/got_mqc.tsv")"
    done
    grep -q '	DNA	' "$T/got" && grep -q '	RNA	' "$T/got" || fail "no bulge site in the test"
    # the sums add several off-targets a guide (the order of their sum counts)
    [ "$(awk -F'\t' '$1 == "g0" {print $(NF - 2)}' "$T/got_mqc.tsv")" -ge 3 ] || fail "few off-targets: $(cat "$T/got_mqc.tsv")"
    run env SEQGPU_FIND_HITS=lots "$SEQGPU" find -m GAATTC -o /dev/null "$T/g.fa"
    assert_success
    assert_output --partial "SEQGPU_FIND_HITS='lots' is not a size"
}

@test "crashes: a damaged .gzi is exit 1 naming it and samtools faidx, never an abort inside htslib" {
    python3 -c "
import random
random.seed(41)
for i in range(4):
    s = ''.join(random.choice('ACGTacgt') for _ in range(150000))
    print('>r%d' % i)
    for j in range(0, len(s), 70): print(s[j:j + 70])" > "$T/g.fa"
    bgzip -c "$T/g.fa" > "$T/g.fa.gz" && samtools faidx "$T/g.fa.gz"
    bgzip -l 1 -c "$T/g.fa" > "$T/l1.fa.gz" && samtools faidx "$T/l1.fa.gz"
    $REF gen --seed 42 --records 30 --max-len 90000 > "$T/h.fa"
    bgzip -c "$T/h.fa" > "$T/h.fa.gz" && samtools faidx "$T/h.fa.gz"
    cp "$T/g.fa.gz.gzi" "$T/good.gzi"
    local v i
    for i in 1 2 3; do seqgpu find -q --part $i/3 -m GAATTC "$T/g.fa.gz" > "$T/part$i"; done
    for v in lower lower1 lower_one past past_one swap count short long empty noise level other; do
        python3 - "$T" "$v" <<'PY'
import os, random, struct, sys
t, v = sys.argv[1], sys.argv[2]
d = open(t + '/good.gzi', 'rb').read()
n = struct.unpack('<Q', d[:8])[0]
e = [list(struct.unpack('<QQ', d[8 + 16 * i:24 + 16 * i])) for i in range(n)]
size = os.path.getsize(t + '/g.fa.gz')
if v == 'lower': e = [[c, u - 30000] for c, u in e]      # uncompressed offsets lowered, by less than a block
if v == 'lower1': e = [[c, u - 1] for c, u in e]         # ... by one byte
if v == 'lower_one': e[n // 2][1] -= 100                 # one entry's
if v == 'past': e = [[c + size, u] for c, u in e]        # compressed offsets past the end
if v == 'past_one': e[-1][0] = size + 5
if v == 'swap': e[1], e[2] = e[2], e[1]
out = struct.pack('<Q', n + (v == 'count')) + b''.join(struct.pack('<QQ', c, u) for c, u in e)
if v == 'short': out = out[:-5]
if v == 'long': out += b'\0' * 16
if v == 'empty': out = b''
if v == 'noise': random.seed(1); out = bytes(random.randrange(256) for _ in range(len(d)))
if v == 'level': out = open(t + '/l1.fa.gz.gzi', 'rb').read()   # another bgzip run of the same FASTA
if v == 'other': out = open(t + '/h.fa.gz.gzi', 'rb').read()    # the .gzi of another file
open(t + '/g.fa.gz.gzi', 'wb').write(out)
PY
        local refused=0
        for i in 1 2 3; do
            "$SEQGPU" find -q --part $i/3 -m GAATTC "$T/g.fa.gz" > "$T/out" 2> "$T/err" && st=0 || st=$?
            # one entry damaged: a part that seeks elsewhere is right
            if [ $st -eq 0 ] && [ "${v%_one}" != "$v" ]; then cmp -s "$T/part$i" "$T/out" || fail "$v, part $i/3: wrong"; continue; fi
            [ $st -eq 1 ] || fail "$v, part $i/3: exit $st: $(cat "$T/err")"
            grep -q "'$T/g.fa.gz.gzi'.*samtools faidx '$T/g.fa.gz'" "$T/err" || fail "$v, part $i/3: $(cat "$T/err")"
            refused=$((refused + 1))
        done
        [ $refused -gt 0 ] || fail "$v: every part ran"
    done
    # an index that is a FIFO (which would block the run) or a folder
    rm "$T/g.fa.gz.gzi"
    mkfifo "$T/g.fa.gz.gzi"
    run timeout 20 "$SEQGPU" find -q --part 2/3 -m GAATTC "$T/g.fa.gz"
    assert_failure 1
    assert_output --partial "'$T/g.fa.gz.gzi', the BGZF index of '$T/g.fa.gz', does not fit the file (it is not a regular file)"
    rm "$T/g.fa.gz.gzi"
    mkdir "$T/g.fa.gz.gzi"
    run timeout 20 "$SEQGPU" find -q --part 2/3 -m GAATTC "$T/g.fa.gz"
    assert_failure 1
    rmdir "$T/g.fa.gz.gzi"
    cp "$T/g.fa" "$T/p.fa"
    mkfifo "$T/p.fa.fai"
    run timeout 20 "$SEQGPU" find -q --part 2/3 -m GAATTC "$T/p.fa"
    assert_failure 1
    assert_output --partial "cannot read '$T/p.fa.fai': not a regular file"
    # the index made again: the parts add up to one run
    samtools faidx "$T/g.fa.gz"
    seqgpu find -q -m GAATTC "$T/g.fa.gz" > "$T/want"
    cat "$T/part1" "$T/part2" "$T/part3" | cmp - "$T/want"
    for i in 1 2 3; do seqgpu find -q --part $i/3 -m GAATTC "$T/g.fa.gz"; done | cmp - "$T/want"
    # a BGZF FASTA with no line end after its last base: the seek to its end reads nothing more
    head -c -1 "$T/g.fa" | bgzip > "$T/n.fa.gz"
    seqgpu find -q -m GAATTC "$T/n.fa.gz" > "$T/want"
    for i in 1 2 3; do seqgpu find -q --part $i/3 -m GAATTC "$T/n.fa.gz" || fail "no final line end: part $i"; done |
        cmp - "$T/want"
}

@test "crashes: find --part on an unwrapped 60 Mb record checks a window around its cuts, not the whole line" {
    local unit i
    unit="$(head -c 9994 /dev/zero | tr '\0' 'A')GAATTC"
    { printf '>u\n'; yes "$unit" | head -n 6000 | tr -d '\n'; printf '\n'; } > "$T/u.fa"
    bgzip -c "$T/u.fa" > "$T/u.fa.gz"
    for f in u.fa u.fa.gz; do
        seqgpu find -q -m GAATTC "$T/$f" > "$T/want"
        for i in 1 2 3; do
            seqgpu find -q --part $i/3 -m GAATTC --stats "$T/s$i.json" "$T/$f" || fail "$f: part $i/3"
        done > "$T/got"
        cmp -s "$T/want" "$T/got" || fail "$f: the parts differ from the run"
        [ "$(wc -l < "$T/want")" -eq 6000 ] || fail "$(wc -l < "$T/want") sites"
        # each part holds chunks and windows, not the 60 MB line (twice) that its cuts lie in
        if [ -z "${SEQGPU_SANITIZER:-}" ]; then
            run python3 -c "import json; print(json.load(open('$T/s2.json'))['peak_rss_bytes'] < 48 << 20)"
            assert_output "True"
        fi
    done
}

@test "crashes: an input truncated while it is read is a read error naming it (exit 1), no temporary" {
    { printf '>big\n'; head -c 20000000 /dev/zero | tr '\0' 'A' | fold -w 60; } > "$T/big.fa"
    mkfifo "$T/pipe"
    "$SEQGPU" find -t 1 --chunk-size 64K -m A --stats "$T/s.json" "$T/big.fa" > "$T/pipe" 2> "$T/err" &
    local pid=$!
    exec 7< "$T/pipe" # (bats has 3)
    head -c 1 <&7 > /dev/null # it has mapped the file and writes hits: the pipe holds it there
    truncate -s 100 "$T/big.fa"
    cat <&7 > /dev/null
    exec 7<&-
    wait $pid && st=0 || st=$?
    [ "$st" -eq 1 ] || fail "exit status $st, not 1: $(cat "$T/err")"
    grep -q "cannot read '$T/big.fa': the file was truncated while it was read" "$T/err" || fail "$(cat "$T/err")"
    [ ! -e "$T/s.json" ] || fail "--stats written"
    no_temporaries "$T"
}

@test "crashes: out of memory is exit 2 and leaves no temporary" {
    [ -z "${SEQGPU_SANITIZER:-}" ] || skip "sanitizers reserve more address space than the limit"
    lambda_fa
    gzip -c "$T/in.fa" > "$T/in.fa.gz"
    run bash -c "ulimit -v 600000 && exec '$SEQGPU' find -q -m A --chunk-size 1G -o '$T/out.bed' --stats '$T/s.json' '$T/in.fa.gz'"
    assert_failure 2
    assert_output --partial "out of memory"
    [ ! -e "$T/out.bed" ] && [ ! -e "$T/s.json" ] || fail "outputs of a failed run"
    no_temporaries "$T"
}

# ---- 3. output files -------------------------------------------------------

@test "output files: a replaced output keeps its mode and its symlink; names of NAME_MAX bytes work" {
    lambda_fa
    printf 'old\n' > "$T/priv.bed"
    chmod 600 "$T/priv.bed"
    run seqgpu find -q -m GAATTC -o "$T/priv.bed" "$T/in.fa"
    assert_success
    [ "$(stat -c %a "$T/priv.bed")" = 600 ] || fail "mode $(stat -c %a "$T/priv.bed"), not 600"
    [ "$(wc -l < "$T/priv.bed")" -eq 5 ] || fail "not replaced"
    rm -f "$T/new.bed"
    run bash -c "umask 027 && exec '$SEQGPU' find -q -m GAATTC -o '$T/new.bed' '$T/in.fa'"
    assert_success
    [ "$(stat -c %a "$T/new.bed")" = 640 ] || fail "a new file: mode $(stat -c %a "$T/new.bed"), not 666 less the umask"
    mkdir "$T/d"
    printf 'old\n' > "$T/d/target.bed"
    ln -s d/target.bed "$T/link.bed"
    run seqgpu find -q -m GAATTC -o "$T/link.bed" "$T/in.fa"
    assert_success
    [ -L "$T/link.bed" ] || fail "the symlink was replaced by a file"
    [ "$(wc -l < "$T/d/target.bed")" -eq 5 ] || fail "the link's target was not written"
    local long
    long=$(printf 'n%.0s' $(seq 255))
    run seqgpu find -q -m GAATTC -o "$T/$long" "$T/in.fa"
    assert_success
    run seqgpu scc -q -p "$T/d/$(printf 's%.0s' $(seq 240))" --edges <(printf '1 2\n2 1\n')
    assert_success
    no_temporaries "$T"
    no_temporaries "$T/d"
}

@test "output files: every output is checked before any input is read (exit 1 at once)" {
    mkfifo "$T/never" # reading it would wait for ever: nobody writes it
    run timeout 30 "$SEQGPU" scc -q -p "$T/nodir/x" "$T/never"
    assert_failure 1
    assert_output --partial "cannot open '$T/nodir/x.repeats.tsv' for writing"
    run timeout 30 "$SEQGPU" find -q -m A -o "$T/nodir/x" "$T/never"
    assert_failure 1
    run timeout 30 "$SEQGPU" find -q -m A --stats /missing/s.json -o "$T/so.bed" "$T/never"
    assert_failure 1
    run timeout 30 "$SEQGPU" find -q -f "$T/never" -o "$T/nodir/x" "$T/never"
    assert_failure 1
    run timeout 30 "$SEQGPU" scc -q --stats /missing/s.json -p "$T/ok" "$T/never"
    assert_failure 1
    run timeout 30 "$SEQGPU" scc -q --write-graph "$T/nodir/g.gfa" -p "$T/ok" --edges "$T/never"
    assert_failure 1
    run ls -A "$T"
    assert_output "never"
}

@test "output files: a run's outputs appear all or none" {
    lambda_fa
    mkdir "$T/o.gfa" # PREFIX.gfa cannot be written
    $REF sim --seed 2 --periods 7,40 --unique 2000 "$T/sim"
    run seqgpu scc -q -p "$T/o" "$T/sim.reads.fq"
    assert_failure 1
    [ ! -e "$T/o.repeats.tsv" ] || fail "PREFIX.repeats.tsv without PREFIX.gfa"
    [ -c /dev/full ] || skip "/dev/full is not a character device here"
    run seqgpu find -q -m GAATTC -o "$T/so.bed" --stats /dev/full "$T/in.fa"
    assert_failure 2
    [ ! -e "$T/so.bed" ] || fail "the output of a run whose --stats failed"
    run seqgpu scc -q -p "$T/p" --stats /dev/full "$T/sim.reads.fq"
    assert_failure 2
    run ls "$T"
    refute_output --partial "p."
    no_temporaries "$T"
}

@test "output files: SIGINT in the middle of a run leaves no output and no temporary" {
    { printf '>big\n'; head -c 100000000 /dev/zero | tr '\0' 'A'; printf '\n'; } > "$T/big.fa"
    # a background job of a script starts with SIGINT ignored, which seqgpu keeps
    env --default-signal=INT "$SEQGPU" find -q -t 1 -m A -o "$T/out.bed" "$T/big.fa" &
    pid=$!
    sleep 0.5
    kill -INT $pid
    wait $pid && st=0 || st=$?
    [ "$st" -eq 130 ] || fail "exit status $st, not 130 (SIGINT)"
    [ ! -e "$T/out.bed" ] || fail "out.bed left"
    no_temporaries "$T"
}

@test "output files: SIGTERM during scc leaves none of its outputs" {
    $REF sim --seed 2 --periods 5,40 --unique 200000 --coverage 60 "$T/sim"
    "$SEQGPU" scc -q -t 1 -p "$T/o" "$T/sim.reads.fq" &
    pid=$!
    sleep 0.3
    kill -TERM $pid
    wait $pid && st=0 || st=$?
    [ "$st" -eq 143 ] || fail "exit status $st, not 143 (SIGTERM)"
    run ls "$T"
    refute_output --partial "o."
    no_temporaries "$T"
}

@test "output files: a closed pipe with --stats leaves no temporary" {
    lambda_fa
    for i in 1 2 3 4 5 6 7 8; do cat "$T/in.fa"; done > "$T/in8.fa"
    run bash -c "'$SEQGPU' find -q -m A --stats '$T/s.json' '$T/in8.fa' | head -c 1 > /dev/null; echo \${PIPESTATUS[0]}"
    assert_output "141"
    [ ! -e "$T/s.json" ] || fail "--stats of a killed run"
    no_temporaries "$T"
}

@test "output files: an output that cannot be completed keeps the old file" {
    printf 'old\n' > "$T/out.bed"
    zcat "$LAMBDA" | gzip -c | head -c 9000 > "$T/cut.fa.gz"
    run seqgpu find -q -m GAATTC -o "$T/out.bed" "$T/cut.fa.gz"
    assert_failure 1
    run cat "$T/out.bed"
    assert_output "old"
    no_temporaries "$T"
}

@test "output files: /dev/stdout, /dev/fd/N, /proc/self/fd/N and /dev/stderr are written through, on a pipe or a file" {
    lambda_fa
    seqgpu find -q -m GAATTC -o "$T/want.bed" "$T/in.fa"
    local o
    for o in /dev/stdout /dev/fd/1 /proc/self/fd/1; do
        run bash -c "set -o pipefail; '$SEQGPU' find -q -m GAATTC -o $o '$T/in.fa' | cat > '$T/pipe.bed'"
        assert_success
        cmp "$T/want.bed" "$T/pipe.bed" || fail "-o $o into a pipe"
        # a file the shell opened, for appending too: added to, never replaced
        echo old > "$T/app.bed"
        run bash -c "'$SEQGPU' find -q -m GAATTC -o $o '$T/in.fa' >> '$T/app.bed'"
        assert_success
        { echo old; cat "$T/want.bed"; } | cmp - "$T/app.bed" || fail "-o $o appending"
    done
    run bash -c "set -o pipefail; '$SEQGPU' find -q -m GAATTC -o /dev/stderr '$T/in.fa' 2>&1 >/dev/null | cat > '$T/err.bed'"
    assert_success
    cmp "$T/want.bed" "$T/err.bed" || fail "-o /dev/stderr"
    run bash -c "set -o pipefail; '$SEQGPU' find -q -m GAATTC -o /dev/fd/5 '$T/in.fa' 5>&1 >/dev/null | cat > '$T/fd5.bed'"
    assert_success
    cmp "$T/want.bed" "$T/fd5.bed" || fail "-o /dev/fd/5"
    # --stats, scc's single outputs, --counts-out
    run bash -c "set -o pipefail; '$SEQGPU' find -q -m GAATTC -o /dev/null --stats /dev/stdout '$T/in.fa' | cat > '$T/s.json'"
    assert_success
    assert_equal "$(stat_of "$T/s.json" command)" find
    [ ! -e /dev/stdout_mqc.json ] && [ -z "$(ls "$T" | grep _mqc)" ] || fail "a MultiQC file beside /dev/stdout"
    $REF sim --seed 2 --periods 7,40 --unique 2000 "$T/sim"
    seqgpu scc -q -p "$T/a" --write-graph "$T/want.gfa" --stats "$T/want.json" "$T/sim.reads.fq"
    run bash -c "set -o pipefail; '$SEQGPU' scc -q -p '$T/b' --write-graph /proc/self/fd/1 '$T/sim.reads.fq' | cat > '$T/got.gfa'"
    assert_success
    cmp "$T/want.gfa" "$T/got.gfa" || fail "--write-graph /proc/self/fd/1"
    run bash -c "set -o pipefail; '$SEQGPU' scc -q -p '$T/c' --stats /dev/fd/1 '$T/sim.reads.fq' | cat > '$T/got.json'"
    assert_success
    assert_equal "$(stat_of "$T/got.json" kmers)" "$(stat_of "$T/want.json" kmers)"
    seqgpu scc -q --part 1/2 --counts-out "$T/want.counts" "$T/sim.reads.fq"
    run bash -c "set -o pipefail; '$SEQGPU' scc -q --part 1/2 --counts-out /dev/stdout '$T/sim.reads.fq' | cat > '$T/got.counts'"
    assert_success
    cmp "$T/want.counts" "$T/got.counts" || fail "--counts-out /dev/stdout"
    # refused: two outputs on one descriptor, a descriptor not open, standard output that is the input
    run seqgpu find -q -m GAATTC -o /dev/stdout --stats - "$T/in.fa"
    assert_failure 1
    assert_output --partial "both go to standard output"
    run bash -c "'$SEQGPU' find -q -m GAATTC -o /dev/fd/5 --stats /proc/self/fd/5 '$T/in.fa' 5>/dev/null"
    assert_failure 1
    assert_output --partial "both go to '/proc/self/fd/5'"
    run seqgpu find -q -m GAATTC -o /dev/fd/9 "$T/in.fa"
    assert_failure 1
    assert_output --partial "cannot open '/dev/fd/9' for writing: Bad file descriptor"
    run bash -c "'$SEQGPU' find -q -m GAATTC -o /dev/stdout '$T/in.fa' >> '$T/in.fa'"
    assert_failure 1
    assert_output --partial "standard output is the input"
    same_as_before "$T/in.fa" "$T/in.md5"
}

@test "output files: a full disk reads 'No space left on device' from every output, however much it writes" {
    [ -c /dev/full ] || skip "/dev/full is not a character device here"
    lambda_fa
    $REF sim --seed 9 --periods 3,11,60 --unique 3000 "$T/sim"
    python3 -c "
import random
random.seed(5)
g = ''.join(random.choice('ACGT') for _ in range(30000))
g = g[:10000] + 'ACGTTGCAGGATCCAAGTCAGGT' * 400 + g[10000:]
for i in range(300):
    s = random.randrange(0, len(g) - 3000)
    print('>r%d' % i); print(g[s:s + 3000])" > "$T/long.fa"
    ln -s /dev/full "$T/full.gz"
    local cmd
    for cmd in "find -q -F tsv -m A -o /dev/full '$T/in.fa'" "find -q -m GAATTC -o /dev/null --stats /dev/full '$T/in.fa'" \
        "find -q -m A -o '$T/full.gz' '$T/in.fa'" "scc -q -p '$T/a' --write-graph /dev/full '$T/sim.reads.fq'" \
        "scc -q -p '$T/b' --write-graph - '$T/sim.reads.fq' > /dev/full" \
        "scc -q --part 1/2 --counts-out /dev/full '$T/sim.reads.fq'" \
        "scc -q -g overlap -p '$T/c' --write-overlaps /dev/full '$T/long.fa'" \
        "scc -q -g overlap -p '$T/d' --write-overlaps /dev/stdout '$T/long.fa' > /dev/full"; do
        run bash -c "'$SEQGPU' $cmd"
        [ "$status" -eq 2 ] || fail "$cmd: exit $status: $output"
        assert_output --partial "No space left on device"
        refute_output --partial "Input/output error"
    done
}

@test "output files: a write error on stdout is reported (exit 2)" {
    run bash -c "'$SEQGPU' find -q -m A '$LAMBDA' > /dev/full"
    assert_failure 2
    assert_output --partial "No space left on device"
}

# ---- 4. wrong results ------------------------------------------------------

# coverage_near SIM DEPTH TOLERANCE: scc's coverage of SIM is within TOLERANCE
# of the truth, and the planted units come back (from 30x, with about their
# copies: at 5x a 600-base array is seen in a handful of reads)
coverage_near() {
    run seqgpu scc -q -p "$T/o" --stats "$T/s.json" "$1.reads.fq"
    assert_success
    run python3 - "$T/s.json" "$T/o.repeats.tsv" "$1.units.txt" "$2" "$3" <<'PY'
import json, sys
stats, tsv, units, depth, tol = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
truth = depth * (150 - 31 + 1) / 150 * 0.995 ** 31  # k-mers of a read, without an error
cov = json.load(open(stats))['coverage']
assert abs(cov - truth) <= tol * truth, 'depth %d: coverage %.1f, truth %.1f' % (depth, cov, truth)
rows = [l.split('\t') for l in open(tsv).read().split('\n')[1:] if l]
assert sorted(r[7] for r in rows) == sorted(open(units).read().split()), rows
for r in rows:
    want = max(20, -(-600 // int(r[4])))
    assert r[1] == 'tandem' and (depth < 30 or abs(float(r[6]) - want) <= 0.3 * want), r
print('ok')
PY
    assert_output "ok"
}

@test "wrong results: the k-mer coverage holds from 5x to 2000x" {
    for depth in 5 1000 2000; do
        $REF sim --seed 4 --periods 7,40 --unique 500 --coverage $depth --errors 0.005 "$T/d$depth"
    done
    coverage_near "$T/d5" 5 0.2
    coverage_near "$T/d1000" 1000 0.1
    coverage_near "$T/d2000" 2000 0.1
}

@test "wrong results: the k-mer coverage holds when repeats hold most of the genome" {
    for depth in 30 1000; do
        $REF sim --seed 11 --periods 31,171,200 --unique 300 --coverage $depth "$T/r$depth"
    done
    coverage_near "$T/r30" 30 0.1
    coverage_near "$T/r1000" 1000 0.1
}

@test "wrong results: no clear coverage peak (the lambda reads) is a warning that says how to set -c" {
    run seqgpu scc -p "$T/o" "$ROOT/examples/lambda_reads.fq.gz"
    assert_success
    assert_output --partial "warning: no clear peak of single-copy k-mers"
    assert_output --partial "set the threshold with -c"
    run seqgpu scc -c 3 -p "$T/o" "$ROOT/examples/lambda_reads.fq.gz"
    assert_success
    refute_output --partial "no clear peak"
}

@test "wrong results: --edges ids at both ends of int64 (no overflow under UBSan)" {
    printf -- '-9223372036854775808 9223372036854775807\n9223372036854775807 -9223372036854775808\n' > "$T/e.txt"
    run seqgpu scc -q --edges "$T/e.txt" -p "$T/o"
    assert_success
    run cat "$T/o.components.tsv"
    assert_output "$(printf 'node\tcomponent\n-9223372036854775808\tscc1\n9223372036854775807\tscc1')"
}

@test "wrong results: --min-copies x coverage beyond 2^32 keeps nothing rather than wrapping" {
    # reads of a 1 kb genome at random places: its k-mers seen about 6,000 times each (a Poisson peak)
    python3 -c "
import random
random.seed(1)
s = ''.join(random.choice('ACGT') for _ in range(1000))
print(''.join('>r%d\n%s\n' % (i, s[p:p + 200]) for i, p in enumerate(random.randrange(800) for _ in range(30000))), end='')" > "$T/same.fa"
    run seqgpu scc -q --min-copies 1000000 --stats "$T/s.json" -p "$T/o" "$T/same.fa"
    assert_success
    assert_equal "$(stat_of "$T/s.json" threshold)" 4294967295
    assert_equal "$(stat_of "$T/s.json" kept_kmers)" 0
}

# ---- 5. clear messages -----------------------------------------------------

@test "messages: record numbers count within each file" {
    printf '>a\nACGT\n>b\nACGT\n' > "$T/f1.fa"
    printf '>c\nAC!T\n' > "$T/f2.fa"
    printf '@r1\nACGT\n+\nIIII\n@r2\nACGT\n+\nIII\n' > "$T/f3.fq"
    run seqgpu find -q -m ACGT "$T/f1.fa" "$T/f2.fa"
    assert_failure 1
    assert_output --partial "'$T/f2.fa': record 1 ('c'): invalid character '!'"
    run seqgpu find -q -m ACGT "$T/f1.fa" "$T/f3.fq"
    assert_failure 1
    assert_output --partial "'$T/f3.fq': record 2 ('r2'): quality length 3"
    run seqgpu scc -q -p "$T/o" "$T/f1.fa" "$T/f2.fa"
    assert_failure 1
    assert_output --partial "'$T/f2.fa': record 1 ('c')"
}

@test "messages: reads named twice for -g overlap name each file and number records within it" {
    printf '@a\nACGTACGT\n+\nIIIIIIII\n@b\nACGT\n+\nIIII\n' > "$T/d1.fq"
    printf '@c\nACGTACGT\n+\nIIIIIIII\n@b\nACGT\n+\nIIII\n' > "$T/d2.fq"
    printf '@x\nACGT\n+\nIIII\n@y\nACGT\n+\nIIII\n@x\nAC\n+\nII\n' > "$T/d3.fq"
    : > "$T/none.fq"
    run seqgpu scc -q -g overlap -p "$T/o" "$T/d1.fq" "$T/none.fq" "$T/d2.fq"
    assert_failure 1
    assert_output --partial "two reads are named 'b' (record 2 of '$T/d1.fq' and record 2 of '$T/d2.fq')"
    run seqgpu scc -q -g overlap -p "$T/o" "$T/d1.fq" "$T/d3.fq"
    assert_failure 1
    assert_output --partial "'$T/d3.fq': two reads are named 'x' (records 1 and 3)"
    run bash -c "'$SEQGPU' scc -q -g overlap -p '$T/o' '$T/d2.fq' - < '$T/d1.fq'"
    assert_failure 1
    assert_output --partial "two reads are named 'b' (record 2 of '$T/d2.fq' and record 2 of '(standard input)')"
}

# a record name of n bytes (an ESC in it, and a 2-byte character across the cut)
long_name() { python3 -c "import sys; n = int(sys.argv[1]); sys.stdout.write('r\x1b' + 'x' * 97 + '\u00e9' + 'y' * (n - 101))" "$1"; }

@test "messages: a long or hostile name is cut in every message; --part takes headers of any length" {
    local n=$((1 << 20)) name i f
    name=$(long_name $n)
    { printf '>%s desc\n' "$name"; python3 -c "print('ACGTGAATTC' * 100)"; printf '>b %s\nGAATTCGAATTC\n' "$name"; } > "$T/h.fa"
    { printf '>%s\n' "$(long_name $((3 << 20)))"; python3 -c "print('GAATTCA' * 50)"; } >> "$T/h.fa"
    bgzip -c "$T/h.fa" > "$T/h.fa.gz"
    for f in h.fa h.fa.gz; do
        seqgpu find -q -m GAATTC "$T/$f" > "$T/want"
        for i in 1 2 3 4; do seqgpu find -q --part $i/4 -m GAATTC "$T/$f" || fail "$f: part $i/4"; done > "$T/got"
        cmp -s "$T/want" "$T/got" || fail "$f: the parts differ from the run"
    done
    # the record's name cut where a message names it: 100 bytes, ESC shown as '?', then its length
    local shown="r?$(printf 'x%.0s' $(seq 97))... ($n bytes)"
    sed -i "1s/^>r/>s/" "$T/h.fa"
    run seqgpu find -q --part 1/3 -m GAATTC "$T/h.fa"
    assert_failure 1
    assert_output --partial "does not match its index (record '$shown', base 0)"
    [ ${#output} -lt 600 ] || fail "a message of ${#output} bytes"
    { printf '>%s\nAC!T\n' "$name"; } > "$T/bad.fa"
    run seqgpu find -q -m ACGT "$T/bad.fa"
    assert_failure 1
    assert_output --partial "record 1 ('$shown'): invalid character '!'"
    [ ${#output} -lt 600 ] || fail "a message of ${#output} bytes"
    { printf '@%s\nACGT\n+\nIIII\n@%s\nACGT\n+\nIIII\n' "$name" "$name"; } > "$T/dup.fq"
    run seqgpu scc -q -g overlap -p "$T/o" "$T/dup.fq"
    assert_failure 1
    assert_output --partial "two reads are named '$shown' (records 1 and 2)"
    [ ${#output} -lt 600 ] || fail "a message of ${#output} bytes"
    printf 'S\t%s\tACGT\nS\t%s\tACGT\n' "$name" "$name" > "$T/g.gfa"
    run seqgpu scc -q -p "$T/o" "$T/g.gfa"
    assert_failure 1
    assert_output --partial "segment '$shown' is defined twice"
    [ ${#output} -lt 600 ] || fail "a message of ${#output} bytes"
    printf 'S\ta\tACGTACGT\nL\ta\t+\t%s\t+\t2M\n' "$name" > "$T/g.gfa"
    run seqgpu scc -q -p "$T/o" "$T/g.gfa"
    assert_failure 1
    assert_output --partial "a link names segment '$shown', which has no S line"
    printf '@a\nACGTACGTAC\n+\nIIIIIIIIII\n' > "$T/r.fq"
    printf '%s\t10\t0\t10\t+\ta\t10\t0\t10\t10\t10\t60\n' "$name" > "$T/o.paf"
    run seqgpu scc -q -g overlap --overlaps "$T/o.paf" -p "$T/o" "$T/r.fq"
    assert_failure 1
    assert_output --partial "read '$shown' is not in the input"
    [ ${#output} -lt 600 ] || fail "a message of ${#output} bytes"
}

@test "messages: standard input can be read once" {
    printf '>a\nACGT\n' > "$T/a.fa"
    for args in "-m ACGT - -" "-f - -" "-m ACGT - /dev/stdin"; do
        run bash -c "cat '$T/a.fa' | '$SEQGPU' find $args"
        assert_failure 1
        assert_output --partial "standard input can be read only once"
        refute_output --partial "Bad file descriptor"
    done
    run bash -c "cat '$T/a.fa' | '$SEQGPU' scc -p '$T/o' - -"
    assert_failure 1
    assert_output --partial "standard input can be read only once"
}

@test "messages: bzip2, xz and zstd inputs are named as such" {
    zcat "$LAMBDA" > "$T/in.fa"
    printf 'GAATTC\n' > "$T/m.txt"
    for z in bzip2 xz zstd; do
        command -v $z > /dev/null || continue
        $z -c "$T/in.fa" > "$T/in.$z"
        run seqgpu find -m GAATTC "$T/in.$z"
        assert_failure 1
        assert_output --partial "'$T/in.$z' is $z-compressed, which seqgpu cannot read (htslib reads gzip and BGZF)"
        $z -c "$T/m.txt" > "$T/m.$z"
        run seqgpu find -f "$T/m.$z" "$T/in.fa"
        assert_failure 1
        assert_output --partial "is $z-compressed"
        run seqgpu scc -p "$T/o" "$T/in.$z"
        assert_failure 1
        assert_output --partial "is $z-compressed"
    done
    command -v bzip2 > /dev/null || skip "bzip2 is not installed"
}

@test "messages: a header without a name is an error naming the record" {
    printf '>a\nACGT\n>\nACGT\n' > "$T/n1.fa"
    printf '>a\nACGT\n> desc\nACGT\n' > "$T/n2.fa"
    printf '@r1\nACGT\n+\nIIII\n@\nACGT\n+\nIIII\n' > "$T/n3.fq"
    for f in n1.fa n2.fa n3.fq; do
        run seqgpu find -q -m ACGT "$T/$f"
        assert_failure 1
        assert_output --partial "'$T/$f': record 2: the header has no name"
    done
}

@test "messages: -p '', -p dir/, -p .gz and -p - are refused: hidden files, or several files on one descriptor" {
    printf '1 2\n2 1\n' > "$T/e.txt"
    mkdir "$T/d"
    for p in "" "$T/d/" "$T/d/." "$T/d/.." "$T/d/.gz" "$T/d/.bgz" "$T/d/..gz" "$T/d/./.bgz"; do
        run seqgpu scc -q --edges "$T/e.txt" -p "$p"
        assert_failure 1
        assert_output --partial "invalid prefix '$p'"
    done
    # standard output or another descriptor: several files cannot go there
    for p in - /dev/stdout /dev/fd/1 /proc/self/fd/1 /dev/stderr; do
        run seqgpu scc -q --edges "$T/e.txt" -p "$p"
        assert_failure 1
        assert_output --partial "invalid prefix '$p': PREFIX names several files"
    done
    [ ! -e /dev/stdout.repeats.tsv ] || fail "PREFIX.repeats.tsv written in /dev"
    # a prefix that is only a compression suffix, in the working folder
    for p in .gz .bgz; do
        run bash -c "cd '$T/d' && '$SEQGPU' scc -q --edges '$T/e.txt' -p $p"
        assert_failure 1
        assert_output --partial "invalid prefix '$p'"
    done
    run ls -A "$T/d"
    assert_output ""
}

@test "messages: --stats names files that are not UTF-8 in valid JSON" {
    zcat "$LAMBDA" > "$T/$(printf 'l\xe9\xffa.fa')"
    run seqgpu find -q -m GAATTC --stats "$T/s.json" -o /dev/null "$T"/l*a.fa
    assert_success
    run python3 -c "
import json, os, sys
raw = open(sys.argv[1], 'rb').read()
s = json.loads(raw.decode('utf-8'))
assert os.fsencode(s['inputs'][0]) == os.fsencode(sys.argv[2]), s['inputs']
print('ok')" "$T/s.json" "$(printf '%s/l\xe9\xffa.fa' "$T")"
    assert_output "ok"
}

@test "messages: a UTF-8 byte-order mark is no part of a motif name or an input" {
    printf '\xef\xbb\xbfEcoRI\tGAATTC\n' > "$T/m.tsv"
    printf '\xef\xbb\xbf>Eco first\nGAATTC\n' > "$T/m.fa"
    printf '\xef\xbb\xbf>x\nGAATTC\n' > "$T/x.fa"
    run seqgpu find -q -f "$T/m.tsv" "$T/x.fa"
    assert_success
    assert_output "$(printf 'x\t0\t6\tEcoRI\t0\t.')"
    run seqgpu find -q -f "$T/m.fa" "$T/x.fa"
    assert_success
    assert_output "$(printf 'x\t0\t6\tEco\t0\t.')"
}

@test "messages: trailing spaces and tabs on sequence lines are accepted, as seqkit does" {
    printf '>a\nGAAT  \nTC\t\n>b\r\nGAATTC \r\n' > "$T/t.fa"
    printf '@r\nGAATTC \n+\nIIIIII\t\n' > "$T/t.fq"
    run seqgpu find -q -F count -m GAATTC "$T/t.fa" "$T/t.fq"
    assert_success
    assert_output "$(printf 'seqID\tpatternName\thits\na\tGAATTC\t1\nb\tGAATTC\t1\nr\tGAATTC\t1')"
    # at every block size: a cut never falls inside the blanks that end a line
    { printf '>long\n'; head -c 30000 /dev/zero | tr '\0' 'A'; printf '   \t \n'; } > "$T/long.fa"
    for c in 1 7 4096; do
        run seqgpu find -q -F count --chunk-size $c -m AAAAAAAAAA "$T/long.fa"
        assert_success
        assert_line --index 1 "$(printf 'long\tAAAAAAAAAA\t29991')"
    done
    printf '>a\nGA AT\n' > "$T/inner.fa"
    run seqgpu find -q -m GA "$T/inner.fa"
    assert_failure 1
    assert_output --partial "invalid character byte 0x20"
}

@test "messages: CR-only line ends (old Mac) are refused naming the file, never read as empty records" {
    printf '>a\rACGTGAATTCAA\rGAATTC\r' > "$T/cr.fa"
    printf '>a desc\rACGT\r>b\rGAATTC\r' > "$T/cr2.fa"
    printf '@r1\rACGTGAATTC\r+\rIIIIIIIIII\r' > "$T/cr.fq"
    printf '>a\nACGT\rGAATTC\r\n' > "$T/mixed.fa"
    gzip -c "$T/cr.fa" > "$T/cr.fa.gz"
    for f in cr.fa cr2.fa cr.fq cr.fa.gz mixed.fa; do
        for cmd in "find -q -m GAATTC" "scc -q -k 11 -c 1 -p $T/o"; do
            run seqgpu $cmd "$T/$f"
            assert_failure 1
            assert_output --partial "'$T/$f': record 1"
            assert_output --partial "CR-only"
            [ ! -e "$T/o.repeats.tsv" ] || fail "scc left an output for $f"
        done
    done
    # through a pipe and in any block size, the same
    for c in 1 5 4096; do
        run bash -c "'$SEQGPU' find -q --chunk-size $c -m GAATTC - < '$T/cr.fa'"
        assert_failure 1
        assert_output --partial "CR-only"
    done
    # CRLF is fine, and so is a CR at the end of a header with trailing blanks
    printf '>a desc\r\nACGTGAATTC\r\n>b \r \r\nGAATTC\r\n' > "$T/crlf.fa"
    run seqgpu find -q -F count -m GAATTC "$T/crlf.fa"
    assert_success
    assert_output "$(printf 'seqID\tpatternName\thits\na\tGAATTC\t1\nb\tGAATTC\t1')"
}

@test "messages: a GFA graph given to find is named as one" {
    printf 'H\tVN:Z:1.0\nS\ta\tACGT\n' > "$T/g.gfa"
    run seqgpu find -m ACGT "$T/g.gfa"
    assert_failure 1
    assert_output --partial "'$T/g.gfa' is a GFA graph, not FASTA or FASTQ"
}

@test "messages: the index files in a --cas-offinder genome folder are skipped in silence; other files still draw a warning" {
    mkdir -p "$T/gen"
    python3 -c "
import random
random.seed(8)
for name in ('a', 'b'):
    with open('$T/' + name + '.fa', 'w') as f:
        for r in range(3):
            s = ''.join(random.choice('ACGT') for _ in range(5000))
            f.write('>%s%d\n' % (name, r) + ''.join(s[i:i + 60] + '\n' for i in range(0, len(s), 60)))"
    cp "$T/a.fa" "$T/gen/a.fa"
    bgzip -c "$T/b.fa" > "$T/gen/b.fa.gz"
    printf '%s\nNNNNNNNNNNNGG\nACGTTGCAGANNN 3\n' "$T/gen" > "$T/co.txt"
    run seqgpu find -q --cas-offinder "$T/co.txt" -o "$T/want.bed"
    assert_success
    assert_output ""
    [ "$(wc -l < "$T/want.bed")" -gt 3 ] || fail "too few sites: $(cat "$T/want.bed")"
    # find --part writes the .fai and .gzi into the folder; aligners' indexes sit there too
    run seqgpu find -q --cas-offinder "$T/co.txt" --part 1/2 -o "$T/part1.bed"
    assert_success
    [ -e "$T/gen/a.fa.fai" ] && [ -e "$T/gen/b.fa.gz.gzi" ] || fail "no index written: $(ls "$T/gen")"
    printf '@HD\tVN:1.6\n' > "$T/gen/a.dict"
    for x in amb ann bwt pac sa; do printf 'x\001\002' > "$T/gen/a.fa.$x"; done
    printf 'bin\001' > "$T/gen/a.1.bt2"
    printf 'MMI\002' > "$T/gen/a.mmi"
    run seqgpu find -q --cas-offinder "$T/co.txt" -o "$T/got.bed"
    assert_success
    assert_output ""
    cmp "$T/want.bed" "$T/got.bed"
    seqgpu find -q --cas-offinder "$T/co.txt" --part 2/2 -o "$T/part2.bed"
    cat "$T/part1.bed" "$T/part2.bed" | cmp - "$T/want.bed"
    # a file that is neither FASTA nor an index is named, -q or not
    echo "not a genome" > "$T/gen/notes.txt"
    run seqgpu find -q --cas-offinder "$T/co.txt" -o "$T/got.bed"
    assert_success
    assert_output "seqgpu find: warning: '$T/gen/notes.txt' is not FASTA or .2bit: skipped"
}

# ---- 6. empty input --------------------------------------------------------

@test "empty input: a header with no sequence is an empty record, not an error" {
    printf '>only\n' > "$T/h.fa"
    run seqgpu find -q -F count -m ACGT "$T/h.fa"
    assert_success
    assert_output "$(printf 'seqID\tpatternName\thits\nonly\tACGT\t0')"
}

@test "empty input: an empty or blank file, or nothing on stdin, has zero records: exit 0, one warning unless -q" {
    : > "$T/empty.fa"
    printf '\n \n\r\n' > "$T/blank.fa"
    for f in "$T/empty.fa" "$T/blank.fa"; do
        run seqgpu find -F count -m ACGT "$f"
        assert_success
        assert_line "seqgpu find: warning: '$f' is empty: no records"
        run seqgpu find -q -F count -m ACGT "$f"
        assert_success
        assert_output "$(printf 'seqID\tpatternName\thits')"
    done
    run bash -c "'$SEQGPU' find -q -m ACGT - < /dev/null"
    assert_success
    assert_output ""
    run bash -c "'$SEQGPU' find -m ACGT - < /dev/null 2>&1 >/dev/null | grep -c warning"
    assert_output "1"
    printf '>a\nACGT\n' > "$T/a.fa"
    run seqgpu find -q -m ACGT "$T/empty.fa" "$T/a.fa" "$T/empty.fa"
    assert_success
    assert_output "$(printf 'a\t0\t4\tACGT\t0\t.')"
}

@test "empty input: scc on no reads writes empty outputs with their headers" {
    : > "$T/empty.fq"
    run seqgpu scc -q -p "$T/o" --stats "$T/s.json" "$T/empty.fq"
    assert_success
    assert_output ""
    run bash -c "'$SEQGPU' scc -q -p '$T/i' - < /dev/null"
    assert_success
    for p in o i; do
        assert_equal "$(cat "$T/$p.repeats.tsv")" "$(printf 'id\tkind\tunitigs\tkmers\tperiod\tmean_count\tcopies\tunit\tlength')"
        assert_equal "$(cat "$T/$p.loci.bed")" "$(printf '#chrom\tstart\tend\trepeat\tscore\tstrand\tperiod\tcopies\tidentity')"
        assert_equal "$(cat "$T/$p.components.tsv")" "$(printf 'node\tcomponent')"
        assert_equal "$(cat "$T/$p.gfa")" "$(printf 'H\tVN:Z:1.0')"
        [ -e "$T/$p.units.fa" ] && [ ! -s "$T/$p.units.fa" ] || fail "$p.units.fa"
    done
    assert_equal "$(stat_of "$T/s.json" kmers)" 0
}

@test "empty input: records with no bases, the last one too (or a byte-order mark), are indexed for --part; parts add up to the run" {
    local t i f
    for t in '>a\nACGTGAATTC\n>b\n' '>a\nGAATTC\n>b' '>a\nGAATTC\n>b\n\n\n' '>a\r\nGAATTCGAATTC\r\n>b\r\n' \
        '>a\n>b\nGAATTC\n>c\n>d\n' '>a\nGAATTC\n>b\n\n>c\nTTGAATTCAA\nGA\n>d\n' '>a\n>b\n' \
        '\xef\xbb\xbf>a\nGAATTCAGAATTC\n>b\n' '>x\nGAATTCGAATTC'; do
        printf "$t" > "$T/e.fa"
        bgzip -c "$T/e.fa" > "$T/e.fa.gz"
        for f in e.fa e.fa.gz; do
            rm -f "$T/$f.fai" "$T/$f.gzi"
            seqgpu find -q -m GAATTC "$T/$f" > "$T/want" || fail "$t ($f): the run failed"
            for i in 1 2 3; do
                seqgpu find -q --part $i/3 -m GAATTC "$T/$f" || fail "$t ($f): part $i/3 failed"
            done > "$T/got"
            cmp -s "$T/want" "$T/got" || fail "$t ($f): the parts differ from the run"
        done
    done
    assert_equal "$(cat "$T/e.fa.fai")" "$(printf 'x\t12\t3\t12\t13')"
    # where samtools faidx indexes the file, the index is its own, byte for byte (.fai and .gzi)
    for t in "--seed 1 --records 30 --max-len 3000" "--seed 4 --records 30 --max-len 3000 --crlf" \
        "--seed 3 --records 20 --max-len 5000 --width 0" "--seed 6 --records 40 --max-len 20000 --width 80"; do
        $REF gen $t > "$T/a.fa"
        bgzip -c "$T/a.fa" > "$T/a.fa.gz"
        for f in a.fa a.fa.gz; do
            cp "$T/$f" "$T/s.$f"
            samtools faidx "$T/s.$f"
            rm -f "$T/$f.fai" "$T/$f.gzi"
            seqgpu find -q --part 1/2 -m GAATTC -o /dev/null "$T/$f"
            cmp "$T/s.$f.fai" "$T/$f.fai" || fail "$t: the .fai of $f differs from samtools faidx's"
            [ "$f" = a.fa ] || cmp "$T/s.$f.gzi" "$T/$f.gzi" || fail "$t: the .gzi differs from samtools faidx's"
        done
    done
    # what samtools faidx refuses is refused, naming the line
    printf '>a\nACGT\nACGTA\n' > "$T/long.fa"
    printf '>a\nACGT\nAC\nACGT\n' > "$T/short.fa"
    printf '>a\nAC GT\nACGTA\n' > "$T/bases.fa"
    for f in long:3 short:4 bases:3; do
        run seqgpu find -q --part 1/2 -m GAATTC "$T/${f%:*}.fa"
        assert_failure 1
        assert_output --partial "cannot index '$T/${f%:*}.fa', line ${f#*:}:"
    done
}

