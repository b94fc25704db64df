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

@test "messages: -p '' and -p dir/ are refused: they would write hidden files" {
    printf '1 2\n2 1\n' > "$T/e.txt"
    mkdir "$T/d"
    for p in "" "$T/d/" "$T/d/." "$T/d/.."; do
        run seqgpu scc -q --edges "$T/e.txt" -p "$p"
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
