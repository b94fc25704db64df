#!/usr/bin/env bats
# seqgpu find --part I/N: parts 1..N, concatenated, are one run's output byte
# for byte, whatever N, chunk size, threads, format or compression, with
# records cut anywhere; the inputs are seeked through their .fai/.gzi, which
# are made beside them when missing and never replace a file; what cannot
# be cut is refused with exit 1, naming what would work.

load test_helper

# parts_equal N OUT ARGS...: parts 1..N of 'seqgpu find ARGS', each checked
# for its exit status, concatenated into OUT.parts, equal OUT (one run)
parts_equal() {
    local n=$1 out=$2 i
    shift 2
    : > "$out.parts"
    for i in $(seq 1 "$n"); do
        seqgpu find -q --part "$i/$n" "$@" >> "$out.parts" || fail "part $i/$n failed: $*"
    done
    cmp -s "$out" "$out.parts" || { diff "$out" "$out.parts" | head; fail "parts 1..$n differ from one run: $*"; }
}

motifs() {
    printf 'eco\tGAATTC\nsau\tCCWGG\nbsa\tGGTCTC\niupac\tTTRNCAA\nlong\tACGTTGCAGGATCCAAGTC\nry\tRY\n' > "$T/m.tsv"
}

@test "find --part: parts 1..N of a random genome equal one run, for many N, chunk sizes, threads, bed and tsv" {
    motifs
    $REF gen --seed 23 --records 7 --max-len 4000 --lower 0.3 --plant-rate 0.01 \
        --plant GAATTC,CCAGG,GGTCTC,TTGACAA,ACGTTGCAGGATCCAAGTC > "$T/g.fa"
    for fmt in bed tsv; do
        run seqgpu find -q -F $fmt -f "$T/m.tsv" "$T/g.fa"
        assert_success
        echo "$output" > "$T/one.$fmt"
        # hits of every motif, so that a lost or doubled one shows
        [ "$(wc -l < "$T/one.$fmt")" -gt 100 ] || fail "too few hits to test with"
        for n in 1 2 3 5 7 13 64; do
            for c in 1 7 64M; do
                for t in 1 2; do parts_equal $n "$T/one.$fmt" -t $t --chunk-size $c -F $fmt -f "$T/m.tsv" "$T/g.fa"; done
            done
        done
    done
    # the tsv header comes from part 1 only
    run grep -c '^seqID' "$T/one.tsv.parts"
    assert_output 1
}

@test "find --part: every cut point: N as large as the bases, so each part is one base" {
    printf '>a x\nGAATTCGAAT\nTCCCAGGAAT\nTC\n>b\n\n>c\nACGTTGCAGG\nATCCAAGTCG\nAATTCC\n' > "$T/s.fa"
    printf 'eco\tGAATTC\nsau\tCCWGG\nlong\tACGTTGCAGGATCCAAGTC\n' > "$T/m.tsv"
    run seqgpu find -q -f "$T/m.tsv" "$T/s.fa"
    assert_success
    echo "$output" > "$T/one"
    [ "$(wc -l < "$T/one")" -eq 6 ] || fail "the fixture should have 6 hits: $output"
    # 48 bases: 48 parts of one base, and more parts than bases (empty parts)
    for n in 47 48 49 100; do parts_equal $n "$T/one" -f "$T/m.tsv" "$T/s.fa"; done
}

@test "find --part: BGZF, several inputs, a part across files, CRLF, blanks, empty records, -M with a PAM" {
    motifs
    $REF gen --seed 7 --records 5 --max-len 3000 --plant GAATTC,CCTGG,GGTCTC > "$T/a.fa"
    $REF gen --seed 8 --records 3 --max-len 900 --width 70 --crlf --plant GAATTC,TTGACAA > "$T/b.fa"
    printf '>empty\n>odd  with blanks  \nGAATTCAC  \nCCAGGTAA  \nGA\n\n>tail\nGAATTC' > "$T/c.fa"
    bgzip -c "$T/a.fa" > "$T/a.fa.gz"
    cp "$T/b.fa" "$T/b2.fa"
    bgzip -c "$T/b.fa" > "$T/b.fa.gz"
    set -- "$T/a.fa.gz" "$T/b.fa" "$T/c.fa" "$T/b.fa.gz" "$T/b2.fa"
    seqgpu find -q -F tsv -f "$T/m.tsv" "$@" > "$T/one" || fail "one run failed"
    for n in 2 3 4 9 31; do
        for t in 1 2; do parts_equal $n "$T/one" -t $t --chunk-size 5 -F tsv -f "$T/m.tsv" "$@"; done
    done
    seqgpu find -q -M 2 --pam NGG -m ACGTTGCAGG -m GGTCTCAAGG "$@" > "$T/mm" || fail "one -M run failed"
    [ -s "$T/mm" ] || fail "no hits within 2 mismatches to test with"
    for n in 3 8; do parts_equal $n "$T/mm" -M 2 --pam NGG -m ACGTTGCAGG -m GGTCTCAAGG "$@"; done
}

@test "find --part: the index is made beside the input when missing, never replaces one, never touches the input" {
    $REF gen --seed 3 --records 4 --max-len 5000 --plant GAATTC > "$T/g.fa"
    bgzip -c "$T/g.fa" > "$T/g.fa.gz"
    sum0=$(md5sum < "$T/g.fa.gz")
    seqgpu find -q -m GAATTC "$T/g.fa.gz" > "$T/one"
    [ ! -e "$T/g.fa.gz.fai" ] || fail "one run made an index"
    parts_equal 4 "$T/one" -m GAATTC "$T/g.fa.gz"
    [ -s "$T/g.fa.gz.fai" ] && [ -s "$T/g.fa.gz.gzi" ] || fail "no index made"
    assert_equal "$(md5sum < "$T/g.fa.gz")" "$sum0"
    # the same index as samtools faidx makes, and nothing else left in the folder
    need samtools
    cp "$T/g.fa.gz" "$T/s.fa.gz"
    samtools faidx "$T/s.fa.gz"
    cmp "$T/g.fa.gz.fai" "$T/s.fa.gz.fai"
    cmp "$T/g.fa.gz.gzi" "$T/s.fa.gz.gzi"
    run ls -A "$T"
    refute_output --partial "seqgpu-tmp"
    # an index that is there is used, not rewritten
    touch -d '2000-01-01' "$T/g.fa.gz.fai"
    sumfai=$(md5sum < "$T/g.fa.gz.fai")
    parts_equal 3 "$T/one" -m GAATTC "$T/g.fa.gz"
    assert_equal "$(md5sum < "$T/g.fa.gz.fai")" "$sumfai"
    run stat -c %Y "$T/g.fa.gz.fai"
    assert_output "$(date -d '2000-01-01' +%s)"
}

@test "find --part: a part reads its share of the input, not what is before it" {
    $REF gen --seed 5 --records 3 --max-len 200000 --plant GAATTC > "$T/g.fa"
    bgzip -c "$T/g.fa" > "$T/g.fa.gz"
    size=$(stat -c %s "$T/g.fa")
    for f in g.fa g.fa.gz; do
        run seqgpu find -q --part 8/8 --stats "$T/s.json" -m GAATTC "$T/$f"
        assert_success
        read_bytes=$(python3 -c "import json; print(json.load(open('$T/s.json'))['input_bytes'])")
        [ "$read_bytes" -lt $((size / 8 + size / 50)) ] || fail "$f: part 8/8 read $read_bytes of $size bytes"
    done
}

@test "find --part: a stale or foreign index is an error naming samtools faidx, never a wrong result" {
    $REF gen --seed 11 --records 3 --max-len 2000 > "$T/g.fa"
    $REF gen --seed 12 --records 3 --max-len 2000 > "$T/h.fa"
    samtools faidx "$T/h.fa" 2>/dev/null || need samtools
    cp "$T/h.fa.fai" "$T/g.fa.fai"
    run seqgpu find -q --part 2/3 -m GAATTC "$T/g.fa"
    assert_failure 1
    assert_output --partial "samtools faidx"
    # an index of another layout: longer lines
    $REF gen --seed 11 --records 3 --max-len 2000 --width 80 > "$T/w.fa"
    samtools faidx "$T/w.fa"
    cp "$T/w.fa.fai" "$T/g.fa.fai"
    run seqgpu find -q --part 2/3 -m GAATTC "$T/g.fa"
    assert_failure 1
    assert_output --partial "does not fit '$T/g.fa'"
    # the same layout, other names: the part's first record is checked by its header
    samtools faidx "$T/g.fa"
    sed -i 's/^/other_/' "$T/g.fa.fai"
    run seqgpu find -q --part 2/3 -m GAATTC "$T/g.fa"
    assert_failure 1
    assert_output --partial "does not match its index"
    printf 'chr1\tx\t3\t60\t61\n' > "$T/g.fa.fai"
    run seqgpu find -q --part 1/3 -m GAATTC "$T/g.fa"
    assert_failure 1
    assert_output --partial "not a FASTA index line"
    # a record added after the index was made (its time kept older): every part refuses, plain and BGZF
    samtools faidx "$T/g.fa"
    bgzip -c "$T/g.fa" > "$T/b.fa.gz" && samtools faidx "$T/b.fa.gz"
    printf '>late\nGAATTCGAATTC\n' >> "$T/g.fa"
    printf '>late\nGAATTCGAATTC\n' | bgzip >> "$T/b.fa.gz"
    touch -d '1 hour ago' "$T/g.fa" "$T/b.fa.gz"
    for f in g.fa b.fa.gz; do
        for i in 1 2 3; do
            run seqgpu find -q --part $i/3 -m GAATTC "$T/$f"
            assert_failure 1
            assert_output --partial "'$T/$f.fai' does not fit '$T/$f': the file goes on after the last record"
        done
    done
    # the .gzi of another BGZF file (other block sizes): the .gzi is named, never a wrong result
    python3 -c "
import random, sys
random.seed(int(sys.argv[1]))
for i in range(50):
    s = ''.join(random.choice('ACGT') for _ in range(int(sys.argv[2])))
    print('>r%d' % i)
    for j in range(0, len(s), int(sys.argv[3])): print(s[j:j + int(sys.argv[3])])" 13 40000 60 > "$T/m.fa"
    python3 -c "
import random
random.seed(14)
for i in range(50):
    s = ''.join(random.choice('ACGT') for _ in range(50000))
    print('>q%d' % i)
    for j in range(0, len(s), 70): print(s[j:j + 70])" > "$T/n.fa"
    bgzip -l 1 -c "$T/m.fa" > "$T/m.fa.gz" && samtools faidx "$T/m.fa.gz"
    bgzip -c "$T/n.fa" > "$T/n.fa.gz" && samtools faidx "$T/n.fa.gz"
    cp "$T/n.fa.gz.gzi" "$T/m.fa.gz.gzi"
    for i in 1 2 3; do
        run seqgpu find -q --part $i/3 -m GAATTC "$T/m.fa.gz"
        assert_failure 1
        assert_output --partial "'$T/m.fa.gz.gzi'"
        assert_output --partial "samtools faidx"
    done
}

@test "find --part: an empty FASTA, or one of blank lines, has empty parts" {
    : > "$T/z.fa"
    printf '\n\r\n\n' > "$T/b.fa"
    for f in z b; do
        for i in 1 2; do
            run seqgpu find -q --part $i/2 -m GAATTC "$T/$f.fa"
            assert_success
            assert_output ""
        done
        [ ! -e "$T/$f.fa.fai" ] || [ ! -s "$T/$f.fa.fai" ]
    done
}

@test "find --part: standard input, gzip, FASTQ, -F count and --index are refused, saying what would work" {
    $REF gen --seed 2 --records 2 --max-len 300 > "$T/g.fa"
    run seqgpu find --part 1/2 -m ACGT - < "$T/g.fa"
    assert_failure 1
    assert_output --partial "standard input cannot be cut"
    assert_output --partial "samtools faidx"
    gzip -c "$T/g.fa" > "$T/g.fa.gz"
    run seqgpu find --part 1/2 -m ACGT "$T/g.fa.gz"
    assert_failure 1
    assert_output --partial "gzip-compressed, not BGZF"
    assert_output --partial "bgzip"
    $REF gen --seed 2 --records 2 --max-len 300 --fastq > "$T/r.fq"
    run seqgpu find --part 1/2 -m ACGT "$T/r.fq"
    assert_failure 1
    assert_output --partial "is FASTQ"
    run seqgpu find --part 1/2 -F count -m ACGT "$T/g.fa"
    assert_failure 1
    assert_output --partial "-F count cannot be cut into parts"
    run seqgpu find --part 1/2 --index -o "$T/x.bed.gz" -m ACGT "$T/g.fa"
    assert_failure 1
    for bad in 0/2 3/2 1/0 x/2 2 1/2/3 -1/2; do
        run seqgpu find --part "$bad" -m ACGT "$T/g.fa"
        assert_failure 1
        assert_output --partial "invalid --part"
    done
    # nothing was written, no index either: the gzip and FASTQ inputs were refused first
    [ ! -e "$T/g.fa.gz.fai" ] && [ ! -e "$T/r.fq.fai" ] && [ ! -e "$T/x.bed.gz" ]
}

@test "find --part: a folder that takes no new files: indexed for the run only, nothing left behind" {
    mkdir -p "$T/ro" "$T/tmp"
    $REF gen --seed 4 --records 3 --max-len 3000 --plant GAATTC > "$T/ro/g.fa"
    seqgpu find -q -m GAATTC "$T/ro/g.fa" > "$T/one"
    chmod a-w "$T/ro"
    if touch "$T/ro/probe" 2>/dev/null; then
        # root writes anyway: an immutable folder stops it (chattr needs CAP_LINUX_IMMUTABLE)
        rm -f "$T/ro/probe"
        chattr +i "$T/ro" || fail "cannot make a folder unwritable as root here: no chattr +i"
    fi
    export TMPDIR=$T/tmp
    parts_equal 3 "$T/one" -m GAATTC "$T/ro/g.fa"
    run seqgpu find --part 1/3 -m GAATTC "$T/ro/g.fa"
    assert_success
    assert_output --partial "for this run only"
    chattr -i "$T/ro" 2>/dev/null || true
    chmod u+w "$T/ro"
    unset TMPDIR
    [ ! -e "$T/ro/g.fa.fai" ] || fail "an index was written into the folder"
    run ls -A "$T/tmp" "$T/ro"
    refute_output --partial "seqgpu"
}

@test "find --part: no room for the index beside the FASTA: indexed for the run only" {
    mkdir -p "$T/small"
    mount -t tmpfs -o size=200k tmpfs "$T/small" 2> /dev/null || skip "mounting a small tmpfs needs root"
    python3 -c "
import random
random.seed(15)
for i in range(20):
    s = ''.join(random.choice('ACGT') for _ in range(3000))
    print('>r%d' % i)
    for j in range(0, len(s), 60): print(s[j:j + 60])" > "$T/small/g.fa"
    seqgpu find -q -m GAATTC "$T/small/g.fa" > "$T/one.bed"
    dd if=/dev/zero of="$T/small/fill" bs=1k count=400 2> /dev/null || true
    for i in 1 2; do
        run seqgpu find --part $i/2 -m GAATTC "$T/small/g.fa"
        [ "$status" -eq 0 ] || { umount "$T/small"; fail "part $i: $output"; }
        printf '%s\n' "$output" | grep -v -e '^\[' -e 'warning' -e '^$' >> "$T/parts.bed"
    done
    out=$output
    # nor in TMPDIR: a write error (exit 2), naming the cause
    run env TMPDIR="$T/small" "$SEQGPU" find -q --part 1/2 -m GAATTC "$T/small/g.fa"
    st=$status
    err=$output
    ls -A "$T/small" > "$T/left"
    umount "$T/small"
    [ "$st" -eq 2 ] || fail "TMPDIR full too: exit $st, $err"
    [[ "$err" == *"No space left on device"* ]] || fail "$err"
    output=$out
    assert_output --partial "for this run only"
    cmp "$T/parts.bed" "$T/one.bed"
    [ "$(cat "$T/left")" = "$(printf 'fill\ng.fa')" ] || fail "left behind: $(cat "$T/left")"
}
