#!/usr/bin/env bats
# What users of samtools and seqkit expect: stdin read when no input is
# named, a one-line usage error with a hint, every environment variable in a
# man page, versions of what was found, and no noise where nothing is wrong.

load test_helper

@test "scc reads standard input when no input is named" {
    seqgpu scc -q -k 11 -c 3 -p "$T/file" "$ROOT/examples/tandem_reads.fq.gz"
    seqgpu scc -q -k 11 -c 3 -p "$T/stdin" < "$ROOT/examples/tandem_reads.fq.gz"
    for s in repeats.tsv gfa units.fa components.tsv; do
        cmp "$T/file.$s" "$T/stdin.$s" || fail "$s differs"
    done
    [ "$(wc -l < "$T/stdin.repeats.tsv")" -gt 1 ]
}

@test "find reads standard input when no input is named, gzip included" {
    seqgpu find -q -m CCWGG "$LAMBDA" > "$T/file.bed"
    seqgpu find -q -m CCWGG < "$LAMBDA" > "$T/stdin.bed"
    cmp "$T/file.bed" "$T/stdin.bed"
    [ -s "$T/stdin.bed" ]
}

@test "usage errors: one line and a hint, exit 1, for find, scc and seqgpu" {
    check() { # CMD-for-the-hint ARGS...
        local cmd=$1
        shift
        run seqgpu "$@"
        assert_failure 1
        [ "${#lines[@]}" -eq 2 ] || fail "$*: ${#lines[@]} lines: $output"
        assert_line --index 1 "try '$cmd -h' for the options"
    }
    check "seqgpu find" find -m ACGT -t 0 "$LAMBDA"
    check "seqgpu find" find -m ACGT --frob "$LAMBDA"
    check "seqgpu find" find -m ACGT -o
    check "seqgpu find" find "$LAMBDA"
    check "seqgpu scc" scc -k 30 "$LAMBDA"
    check "seqgpu scc" scc --kw 3 "$LAMBDA"
    check "seqgpu scc" scc --edges a b
    run seqgpu frob
    assert_failure 1
    assert_line --index 1 "try 'seqgpu -h' for the commands"
}

@test "every environment variable the code reads is in a man page's ENVIRONMENT section" {
    names=$(grep -rhoE 'getenv\("[A-Z_]+"\)' "$ROOT/src" "$ROOT/formats" "$ROOT/cuda" "$ROOT/opencl" | sed 's/getenv("\(.*\)")/\1/' | sort -u)
    [ -n "$names" ]
    for f in "$ROOT"/man/*.1; do sed -n '/^\.SH ENVIRONMENT/,/^\.SH [^E]/p' "$f"; done > "$T/env"
    for n in $names; do
        grep -q "^\.B $n$" "$T/env" || fail "$n is read (getenv) but in no ENVIRONMENT section"
    done
    # scc's own section names what scc reads
    sed -n '/^\.SH ENVIRONMENT/,/^\.SH [^E]/p' "$ROOT/man/seqgpu-scc.1" > "$T/scc_env"
    grep -q '^\.B SEQGPU_CUDA_KMER_BATCH$' "$T/scc_env"
    grep -q '^\.B CUDA_VISIBLE_DEVICES$' "$T/scc_env"
}

@test "seqgpu version names the CUDA runtime and the driver found, with cuda built in" {
    run seqgpu version
    assert_success
    if ! echo "$output" | grep -q '^backends: .*cuda'; then
        refute_line --partial "cuda:"
        skip "built without cuda"
    fi
    assert_line --regexp '^cuda: runtime [0-9]+\.[0-9]+ \(static\), driver ([0-9]+\.[0-9]+|none found)$'
    if ! backend_absent cuda > /dev/null; then
        assert_line --regexp '^cuda: .*driver [0-9]+\.[0-9]+$'
    fi
}

@test "scc -b auto on a large graph without a GPU: no warning; -v and --stats say why" {
    backend_absent cuda > /dev/null || skip "a CUDA device is here: auto uses it"
    # a cycle of 1.1M vertices: large enough for auto to want a GPU
    awk 'BEGIN { n = 1100000; for (i = 0; i < n; i++) print i "\t" (i + 1) % n }' > "$T/cycle.tsv"
    run seqgpu scc --edges "$T/cycle.tsv" -p "$T/c" --stats "$T/c.json"
    assert_success
    refute_output --partial "warning"
    refute_output --partial "cuda"
    run grep -E '"backend_choice": "auto: cpu \((no CUDA device|built without cuda)\)"' "$T/c.json"
    assert_success
    run seqgpu scc -v --edges "$T/cycle.tsv" -p "$T/c"
    assert_success
    assert_line --regexp '^\[seqgpu scc\] SCCs: auto: cpu \((no CUDA device|built without cuda)\)$'
    # asked for by name, a missing GPU is an error
    if seqgpu version | grep -q '^backends: .*cuda'; then
        run seqgpu scc -b cuda --edges "$T/cycle.tsv" -p "$T/c"
        assert_failure 3
    fi
}
