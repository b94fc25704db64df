#!/usr/bin/env bats
# Inputs as users have them (issue 25): the same genome or reads as plain
# text, gzip (levels 1, 6 and 9, many members), BGZF and UCSC .2bit (both
# versions and byte orders) give the same bytes, on every backend here and
# at every thread count; plain gzip is inflated on all threads in chunks
# (SEQGPU_GZIP_CHUNK puts chunk seams everywhere); damage is the error it
# always was, naming the file, and leaves no output.

load test_helper

setup() {
    T=$BATS_TEST_TMPDIR
    TWOBIT="python3 $ROOT/tests/twobit.py"
}

# genome FILE SEED: records of random bases with soft-masked stretches, runs
# of N, a long run of one base, lines of several widths, empty records (not
# the last: htslib 1.16 cannot index that for --part)
genome() {
    python3 - "$1" "$2" <<'PY'
import random, sys
r = random.Random(int(sys.argv[2]))
with open(sys.argv[1], 'w') as f:
    for i in range(9):
        n = r.choice([0, 7, 3000, 40000, 90000]) if 0 < i < 8 else 120000 if i == 0 else 3000
        s = [r.choice('ACGT') for _ in range(n)]
        for _ in range(n // 5000):  # soft-masked and N stretches
            a = r.randrange(n); b = min(n, a + r.randrange(2000))
            s[a:b] = [c.lower() for c in s[a:b]] if r.random() < 0.7 else ['N'] * (b - a)
        if i == 0:
            s[20000:80000] = ['A'] * 60000  # one base: every match refers to the window before
        w = r.choice([50, 60, 80, 70000])
        f.write('>seq%d description %d\n' % (i, i))
        t = ''.join(s)
        for k in range(0, len(t), w):
            f.write(t[k:k + w] + '\n')
PY
}

# forms FASTA: FASTA.1.gz, .6.gz, .9.gz, .mm.gz (members), .bgz, .v0.2bit, .v1.2bit, .be.2bit beside it
forms() {
    local fa=$1
    for l in 1 6 9; do gzip -"$l" -c "$fa" > "$fa.$l.gz"; done
    split -n 3 -d "$fa" "$T/part."
    for p in "$T"/part.*; do gzip -c "$p"; done > "$fa.mm.gz"
    rm -f "$T"/part.*
    bgzip -c "$fa" > "$fa.bgz"
    $TWOBIT "$fa" "$fa.v0.2bit" || fail "twobit.py"
    $TWOBIT --version 1 "$fa" "$fa.v1.2bit"
    $TWOBIT --big-endian "$fa" "$fa.be.2bit"
}

@test "inputs: plain, gzip 1/6/9, members, BGZF and .2bit give the same bytes, every backend, 1 to 3 threads" {
    need gzip bgzip
    genome "$T/g.fa" 3
    forms "$T/g.fa"
    printf 'g1\tGAATTC\ng2\tACGTNNNNA\n' > "$T/m.tsv"
    printf 'o1\tGGCCGACCTGTCGCTGACGCNGG\t3\no2\tAAAAAAAAAAAAAAAAAAAANGG\t2\n' > "$T/off.tsv"
    local backends=cpu
    backend_absent opencl > /dev/null || backends="cpu opencl"
    backend_absent cuda > /dev/null || backends="$backends cuda"
    for m in m off; do
        seqgpu find -q -b cpu -t 1 -f "$T/$m.tsv" -F tsv "$T/g.fa" > "$T/want.$m" || fail "plain FASTA"
        [ -s "$T/want.$m" ] || fail "no hits: nothing compared"
        for f in 1.gz 6.gz 9.gz mm.gz bgz v0.2bit v1.2bit be.2bit; do
            for be in $backends; do
                local threads="2"
                [ "$be" = cpu ] && threads="1 2 3"
                for t in $threads; do
                    SEQGPU_GZIP_CHUNK=4000 seqgpu find -q -b "$be" -t "$t" -f "$T/$m.tsv" -F tsv "$T/g.fa.$f" > "$T/got" ||
                        fail "$f -b $be -t $t failed"
                    cmp -s "$T/want.$m" "$T/got" || { diff "$T/want.$m" "$T/got" | head -5; fail "$f -b $be -t $t differs"; }
                done
            done
        done
    done
    # lower case never matches with --skip-masked, from the mask runs of a .2bit file too
    seqgpu find -q --skip-masked -f "$T/m.tsv" -F count "$T/g.fa" > "$T/want"
    seqgpu find -q --skip-masked -f "$T/m.tsv" -F count "$T/g.fa.v1.2bit" > "$T/got"
    cmp "$T/want" "$T/got" || fail "--skip-masked differs on .2bit"
    seqgpu find -q -f "$T/m.tsv" -F count "$T/g.fa" > "$T/unmasked"
    ! cmp -s "$T/want" "$T/unmasked" || fail "the genome has no masked hit: --skip-masked was not tested"
}

@test "inputs: plain gzip is inflated on all threads, in chunks, and --stats says so" {
    need gzip
    genome "$T/g.fa" 4
    gzip -1 -c "$T/g.fa" > "$T/g.fa.gz"
    # gzip -1 writes blocks of some 50 KB: chunks of 20 KB hold a block start now and then
    SEQGPU_GZIP_CHUNK=20000 seqgpu find -q -t 3 -m GAATTC --stats "$T/s.json" "$T/g.fa.gz" > /dev/null || fail "run"
    python3 - "$T/s.json" "$(wc -c < "$T/g.fa.gz")" "$(wc -c < "$T/g.fa")" <<'PY' || fail "stats: $(grep read "$T/s.json")"
import json, sys
r = json.load(open(sys.argv[1]))['read']
assert r['inputs'] == ['gzip (all threads)'], r
assert r['bytes_in'] == int(sys.argv[2]) and r['bytes_out'] == int(sys.argv[3]), r
assert r['inflate_threads'] == 3 and r['inflate_seconds'] > 0 and r['gzip_chunks'] >= 2, r
PY
    seqgpu find -q -t 1 -m GAATTC --stats "$T/s1.json" "$T/g.fa.gz" > /dev/null
    grep -q '"inputs": \["gzip (one thread)"\], "inflate_threads": 1' "$T/s1.json" || fail "$(grep read "$T/s1.json")"
    seqgpu find -q -m GAATTC --stats "$T/s2.json" - < "$T/g.fa.gz" > /dev/null
    grep -q '"inputs": \["gzip (one thread)"\]' "$T/s2.json" || fail "a pipe: $(grep read "$T/s2.json")"
    $TWOBIT "$T/g.fa" "$T/g.2bit"
    seqgpu find -q -m GAATTC --stats "$T/s3.json" "$T/g.2bit" "$T/g.fa" > /dev/null
    grep -q '"inputs": \["plain", "2bit"\]' "$T/s3.json" || fail "$(grep read "$T/s3.json")"
}

@test "inputs: scc reads the same from FASTQ, .fq.gz in chunks, members and BGZF, and FASTA from .2bit" {
    need gzip bgzip
    $REF sim --seed 4 --periods 11,60 --unique 3000 "$T/sim"
    seqgpu scc -q -k 21 -p "$T/want" --stats "$T/want.json" "$T/sim.reads.fq" || fail "scc on FASTQ"
    gzip -1 -c "$T/sim.reads.fq" > "$T/r.fq.gz"
    split -n 4 -d -a 1 "$T/sim.reads.fq" "$T/rp."
    for p in "$T"/rp.?; do gzip -9 -c "$p"; done > "$T/r.mm.fq.gz"
    bgzip -c "$T/sim.reads.fq" > "$T/r.bgz.fq.gz"
    for f in r.fq.gz r.mm.fq.gz r.bgz.fq.gz; do
        for t in 1 3; do
            SEQGPU_GZIP_CHUNK=3000 seqgpu scc -q -t "$t" -k 21 -p "$T/got" "$T/$f" || fail "$f -t $t"
            cmp "$T/want.repeats.tsv" "$T/got.repeats.tsv" || fail "$f -t $t: other repeats"
            cmp "$T/want.gfa" "$T/got.gfa" || fail "$f -t $t: another graph"
        done
    done
    # FASTA of the reads, and the same as .2bit
    awk 'NR % 4 == 1 {print ">" substr($1, 2)} NR % 4 == 2 {print}' "$T/sim.reads.fq" > "$T/r.fa"
    seqgpu scc -q -k 21 -p "$T/fa" "$T/r.fa" || fail "scc on FASTA"
    $TWOBIT "$T/r.fa" "$T/r.2bit"
    seqgpu scc -q -k 21 -p "$T/tb" "$T/r.2bit" || fail "scc on .2bit"
    cmp "$T/fa.repeats.tsv" "$T/tb.repeats.tsv" || fail ".2bit: other repeats"
    cmp "$T/fa.gfa" "$T/tb.gfa" || fail ".2bit: another graph"
}

@test "inputs: damaged gzip is the error it is on one thread, naming the file, with no output left" {
    need gzip
    genome "$T/g.fa" 5
    gzip -6 -c "$T/g.fa" > "$T/g.fa.gz"
    local n
    n=$(wc -c < "$T/g.fa.gz")
    head -c $((n - 3)) "$T/g.fa.gz" > "$T/cut.fa.gz"          # the trailer cut
    head -c $((n / 2)) "$T/g.fa.gz" > "$T/half.fa.gz"         # a member cut in half
    python3 -c "
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
d[-8] ^= 0x55; open(sys.argv[2], 'wb').write(d)             # its CRC
d[-8] ^= 0x55; d[-2] ^= 1; open(sys.argv[3], 'wb').write(d) # its length
d[-2] ^= 1; d[len(d) // 3] ^= 0x10; open(sys.argv[4], 'wb').write(d)
" "$T/g.fa.gz" "$T/crc.fa.gz" "$T/isize.fa.gz" "$T/flip.fa.gz"
    { cat "$T/g.fa.gz"; printf 'garbage'; } > "$T/trail.fa.gz"
    { cat "$T/g.fa.gz"; head -c 1000 /dev/zero; } > "$T/zeros.fa.gz"
    for f in cut half crc isize flip trail zeros; do
        for t in 1 3; do
            SEQGPU_GZIP_CHUNK=2000 run seqgpu find -q -t "$t" -m GAATTC -o "$T/out.bed" "$T/$f.fa.gz"
            assert_failure 1
            assert_output --partial "cannot read '$T/$f.fa.gz'"
            [ ! -e "$T/out.bed" ] || fail "$f -t $t: output left"
            ls "$T" | grep -q seqgpu-tmp && fail "$f -t $t: temporaries left"
        done
        SEQGPU_GZIP_CHUNK=2000 run seqgpu find -q -t 3 -m GAATTC "$T/$f.fa.gz"
        assert_output --partial "truncated or corrupt compressed data"
    done
}

@test "inputs: .2bit through --part I/N concatenates to one run; with FASTA inputs too" {
    genome "$T/g.fa" 6
    $TWOBIT --version 1 "$T/g.fa" "$T/g.2bit"
    genome "$T/h.fa" 7
    printf 'o1\tACGTCAGTCANGG\t2\neco\tGAATTC\t0\n' > "$T/off.tsv"
    for inputs in "g.2bit" "h.fa g.2bit h.fa"; do
        local args=""
        for i in $inputs; do args="$args $T/$i"; done
        seqgpu find -q -f "$T/off.tsv" $args > "$T/whole.bed"
        [ -s "$T/whole.bed" ] || fail "no hits: nothing compared"
        for n in 2 5 13; do
            : > "$T/parts.bed"
            for i in $(seq 1 "$n"); do seqgpu find -q -f "$T/off.tsv" --part "$i/$n" $args >> "$T/parts.bed" || fail "part $i/$n"; done
            cmp "$T/whole.bed" "$T/parts.bed" || fail "$inputs: $n parts differ from the whole"
        done
    done
}

@test "inputs: a Cas-OFFinder genome folder of .2bit files is its FASTA's" {
    genome "$T/g.fa" 8
    mkdir "$T/fa" "$T/tb"
    awk '/^>seq[0-4] /{f=1} /^>seq[5-8] /{f=0} f' "$T/g.fa" > "$T/fa/a.fa"
    awk '/^>seq[5-8] /{f=1} /^>seq[0-4] /{f=0} f' "$T/g.fa" > "$T/fa/b.fa"
    $TWOBIT "$T/fa/a.fa" "$T/tb/a.2bit"
    $TWOBIT --big-endian "$T/fa/b.fa" "$T/tb/b.2bit"
    for d in fa tb; do printf '%s\nNNNNNNNNNNNNNGG\nGGCCGACCTGTCNNN 3 x1\nACGTTTGCACGANNN 2 x2\n' "$T/$d" > "$T/$d.txt"; done
    seqgpu find -q --cas-offinder "$T/fa.txt" -F casoffinder > "$T/fa.out" || fail "FASTA folder"
    seqgpu find -q --cas-offinder "$T/tb.txt" -F casoffinder > "$T/tb.out" || fail ".2bit folder"
    [ -s "$T/fa.out" ] || fail "no sites: nothing compared"
    cmp "$T/fa.out" "$T/tb.out" || fail "the .2bit folder's sites differ"
    printf 'not a 2bit file' > "$T/tb/c.2bit"
    run seqgpu find -q --cas-offinder "$T/tb.txt"
    assert_failure 1
    assert_output --partial "is named .2bit but is not a .2bit file"
}

@test "inputs: a damaged .2bit file is an error naming it, never a crash" {
    printf '>a\nACGTNNNNacgtGAATTC\n>b\nGAATTCGAATTC\n' > "$T/s.fa"
    $TWOBIT "$T/s.fa" "$T/s.2bit"
    seqgpu find -q -m GAATTC "$T/s.2bit" > "$T/ok.bed" || fail "the good file"
    [ "$(wc -l < "$T/ok.bed")" -eq 3 ] || fail "$(cat "$T/ok.bed")"
    python3 - "$T/s.2bit" "$T" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
t = sys.argv[2]
def put(name, b): open('%s/%s.2bit' % (t, name), 'wb').write(b)
put('version', d[:4] + struct.pack('<I', 2) + d[8:])                  # an unknown version
put('count', d[:8] + struct.pack('<I', 1 << 30) + d[12:])             # more records than the file holds
put('header', d[:10])                                                 # cut inside the header
off = struct.unpack('<I', d[18:22])[0]                                # record a's offset
put('offset', d[:18] + struct.pack('<I', len(d) + 5) + d[22:])        # a record past the end
put('nruns', d[:off + 4] + struct.pack('<I', 1 << 28) + d[off + 8:])  # runs of N past the end
put('dna', d[:off] + struct.pack('<I', 1 << 20) + d[off + 4:])        # bases past the end
put('runpast', d[:off + 12] + struct.pack('<I', 99) + d[off + 16:])   # a run of N past its record
put('cut', d[:len(d) - 3])                                            # the last record's bases cut
put('name', d[:17] + b'\n' + d[18:])                                  # a line end in a name (columns broken)
PY
    for f in version count header offset nruns dna runpast cut name; do
        run seqgpu find -q -m GAATTC "$T/$f.2bit"
        assert_failure 1
        assert_output --partial "cannot read '$T/$f.2bit'"
        run seqgpu find -q -m GAATTC --part 1/2 "$T/$f.2bit"
        assert_failure 1
    done
    run seqgpu find -q -m GAATTC "$T/version.2bit"
    assert_output --partial "version 2"
    run seqgpu find -q -m GAATTC "$T/name.2bit"
    assert_output --partial "record 1's name holds a space or a control character (byte 0x0a at 1 of 1)"
    # a pipe has no index to follow
    run bash -c "cat '$T/s.2bit' | '$SEQGPU' find -q -m GAATTC -"
    assert_failure 1
    assert_output --partial ".2bit"
}

@test "inputs: a gzip or .2bit file truncated while it is read is a read error naming it" {
    need gzip
    genome "$T/g.fa" 9
    for i in 1 2 3 4 5 6; do cat "$T/g.fa"; done > "$T/big.fa"
    gzip -1 -c "$T/big.fa" > "$T/big.fa.gz"
    $TWOBIT "$T/big.fa" "$T/big.2bit"
    mkfifo "$T/pipe"
    for f in big.fa.gz big.2bit; do
        SEQGPU_GZIP_CHUNK=16000 "$SEQGPU" find -t 3 --chunk-size 64K -m A --stats "$T/s.json" "$T/$f" > "$T/pipe" 2> "$T/err" &
        local pid=$!
        exec 7< "$T/pipe"
        head -c 1 <&7 > /dev/null # it reads and writes hits: the pipe holds it there, a few chunks ahead
        truncate -s 100000 "$T/$f"
        cat <&7 > /dev/null
        exec 7<&-
        wait $pid && st=0 || st=$?
        [ "$st" -eq 1 ] || fail "$f: exit status $st, not 1: $(cat "$T/err")"
        grep -qE "cannot read '$T/$f': (the file was truncated while it was read|truncated or corrupt compressed data)" \
            "$T/err" || fail "$f: $(cat "$T/err")"
        [ ! -e "$T/s.json" ] || fail "$f: --stats written"
    done
}
