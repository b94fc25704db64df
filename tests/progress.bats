#!/usr/bin/env bats
# Progress on stderr: a self-updating line on a terminal (never for a file or
# a pipe, never with -q), plain lines with --progress for pipeline logs.
# The input is a pipe that pauses, so that the run lasts long enough to show
# progress on any machine. (tests/unit_progress.c checks the line's text:
# totals, rate, ETA, erasing.)

load test_helper

# slow_fasta SECONDS: a FASTA record on stdout, its last line after a pause
slow_fasta() { printf '>a\nACGTACGT\n'; sleep "$1"; printf 'ACGT\n'; }

@test "progress: a live line on a terminal, erased before the summary" {
    command -v script >/dev/null || skip "script (util-linux) is not installed"
    run script -qec "{ printf '>a\nACGTACGT\n'; sleep 1.6; printf 'ACGT\n'; } | $SEQGPU find -m ACGT -o $T/out.bed" /dev/null
    assert_success
    assert_output --partial $'\r[seqgpu find] scanning: '
    # the summary line starts where the erased live line was
    assert_output --regexp $' +\r\[seqgpu find\] 1 records, 12 bases'
    [ "$(wc -l < "$T/out.bed")" -eq 3 ]
}

@test "progress: nothing on a terminal with -q" {
    command -v script >/dev/null || skip "script (util-linux) is not installed"
    run script -qec "{ printf '>a\nACGTACGT\n'; sleep 1.6; printf 'ACGT\n'; } | $SEQGPU find -q -m ACGT -o $T/out.bed" /dev/null
    assert_success
    assert_output ""
}

@test "progress: nothing when stderr is a file or a pipe" {
    slow_fasta 1.6 | seqgpu find -m ACGT -o "$T/out.bed" 2> "$T/err"
    run cat "$T/err"
    assert_output --regexp '^\[seqgpu find\] 1 records, 12 bases'
    refute_output --partial scanning
    # stderr a pipe
    mkfifo "$T/pipe"
    cat "$T/pipe" > "$T/err2" &
    slow_fasta 1.6 | seqgpu scc -k 11 -c 1 -p "$T/s" 2> "$T/pipe"
    wait
    run grep -cE 'reading|counting k-mers' "$T/err2"
    assert_output 0
    run grep -c '^\[seqgpu scc\] real ' "$T/err2"
    assert_output 1
}

@test "progress: --progress=SEC prints plain lines, with -q too, for find and scc" {
    slow_fasta 1.2 | seqgpu find -q --progress=0.2 -m ACGT -o "$T/out.bed" 2> "$T/err"
    run grep -c '^\[seqgpu find\] scanning: ' "$T/err"
    [ "$output" -ge 3 ] || fail "$(cat "$T/err")"
    run grep -c $'\r' "$T/err"
    assert_output 0
    slow_fasta 1.2 | seqgpu scc -q --progress=0.2 -k 11 -c 1 -p "$T/s" 2> "$T/err"
    run grep -cE '^\[seqgpu scc\] (reading|counting k-mers): ' "$T/err"
    [ "$output" -ge 3 ] || fail "$(cat "$T/err")"
}

@test "progress: --progress without a value is every 5 seconds; a bad value is a usage error" {
    slow_fasta 1 | seqgpu find -q --progress -m ACGT -o "$T/out.bed" 2> "$T/err"
    run cat "$T/err"
    assert_output ""
    for bad in 0 -1 x 0.01; do
        run seqgpu find --progress=$bad -m ACGT "$LAMBDA"
        assert_failure 1
        assert_output --partial "invalid --progress '$bad'"
        run seqgpu scc --progress=$bad -p "$T/p" "$LAMBDA"
        assert_failure 1
    done
}
