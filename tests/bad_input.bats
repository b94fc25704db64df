#!/usr/bin/env bats
# Bad input and hostile conditions: a precise message, a defined exit code,
# and no partial output that looks complete. (Empty files, binary junk,
# truncated gzip, malformed FASTQ, '>' in a sequence, invalid motif letters,
# missing inputs, unwritable paths, /dev/full and closed pipes are in
# find_cli.bats and scc.bats.)

load test_helper

@test "a header with no sequence is an empty record, not an error" {
    printf '>only\n' > "$T/h.fa"
    run seqgpu find -q -F count -m ACGT "$T/h.fa"
    assert_success
    assert_output "$(printf 'seqID\tpatternName\thits\nonly\tACGT\t0')"
}

@test "a 300 Mb single-line record: exact counts at every chunk seam, bounded memory" {
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
    assert_line --index 1 "$(printf 'big\tAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\t299999969')"
}

@test "SIGINT in the middle of a run leaves no output and no temporary file" {
    { printf '>big\n'; head -c 100000000 /dev/zero | tr '\0' 'A'; printf '\n'; } > "$T/big.fa"
    "$SEQGPU" find -q -t 1 -m A -o "$T/out.bed" "$T/big.fa" &
    pid=$!
    sleep 0.5
    kill -INT $pid
    wait $pid && st=0 || st=$?
    [ "$st" -eq 130 ] || fail "exit status $st, not 130 (SIGINT)"
    run ls "$T"
    refute_output --partial "out.bed"
}

@test "SIGTERM during scc leaves none of its outputs" {
    $REF sim --seed 2 --periods 5,40 --unique 200000 --coverage 60 "$T/sim"
    "$SEQGPU" scc -q -t 1 -p "$T/o" "$T/sim.reads.fq" &
    pid=$!
    sleep 0.3
    kill -TERM $pid
    wait $pid && st=0 || st=$?
    [ "$st" -eq 143 ] || fail "exit status $st, not 143 (SIGTERM)"
    run ls "$T"
    refute_output --partial "o.repeats.tsv"
    refute_output --partial "seqgpu-tmp"
}

@test "an output that cannot be completed keeps the old file: nothing half-written in its place" {
    printf 'old\n' > "$T/out.bed"
    zcat "$LAMBDA" | gzip -c | head -c 9000 > "$T/cut.fa.gz"
    run seqgpu find -q -m GAATTC -o "$T/out.bed" "$T/cut.fa.gz"
    assert_failure 1
    run cat "$T/out.bed"
    assert_output "old"
    run ls "$T"
    refute_output --partial "seqgpu-tmp"
}

@test "a write error on stdout is reported (exit 2)" {
    run bash -c "'$SEQGPU' find -q -m A '$LAMBDA' > /dev/full"
    assert_failure 2
    assert_output --partial "No space left on device"
}
