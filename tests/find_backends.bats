#!/usr/bin/env bats
# Choosing a backend: what auto says and records, device lists, the CUDA
# devices started, and the cache of built OpenCL programs.

load test_helper

built_with() { seqgpu version | grep -q "^backends:.*\b$1\b"; }

@test "auto: the choice is said with -v and recorded in --stats, never on stderr otherwise" {
    printf '>a\nACGTACGTTGCA\n' > "$T/g.fa"
    run seqgpu find -m ACGT --stats "$T/s.json" "$T/g.fa"
    assert_success
    refute_output --partial "auto:"
    python3 -c "import json; c = json.load(open('$T/s.json'))['backend_choice']; assert c.startswith('auto: '), c" ||
        fail "no backend_choice in --stats"
    run seqgpu find -v -m ACGT "$T/g.fa"
    assert_success
    assert_output --partial "[seqgpu find] auto: "
    run seqgpu find -v -q -m ACGT "$T/g.fa"
    assert_success
    refute_output --partial "auto:"
    if backend_absent cuda > /dev/null; then
        run seqgpu find -v -m ACGT "$T/g.fa"
        assert_output --regexp "auto: cpu \((no CUDA device|built without cuda)\)"
        refute_output --partial "warning"
    fi
}

@test "--device: a list, each index once; CUDA_VISIBLE_DEVICES is honoured" {
    printf '>a\nACGTACGTTGCA\n' > "$T/g.fa"
    run seqgpu find -b cpu --device 0,1 -m ACGT "$T/g.fa"
    assert_success
    run seqgpu find -b cpu --device 1,x -m ACGT "$T/g.fa"
    assert_failure 1
    assert_output --partial "invalid --device '1,x'"
    built_with cuda || skip "built without the cuda backend"
    run seqgpu find -b cuda --device 0,0 -m ACGT "$T/g.fa"
    assert_failure 1
    assert_output --partial "invalid --device '0,0'"
    run env CUDA_VISIBLE_DEVICES= "$SEQGPU" find -b cuda -m ACGT "$T/g.fa"
    assert_failure 3
    assert_output --partial "CUDA_VISIBLE_DEVICES"
    run env CUDA_VISIBLE_DEVICES= "$SEQGPU" find -m ACGT "$T/g.fa"
    assert_success
}

@test "opencl: built programs are cached per device and driver; a bad cache file is rebuilt" {
    use_backend opencl
    printf '>a\nACGTACGTTGCAAACGTT\n' > "$T/g.fa"
    export XDG_CACHE_HOME=$T/cache
    for want in false true; do
        seqgpu find -q -b opencl -m ACGT --stats "$T/s.json" "$T/g.fa" > "$T/out" || fail "run"
        grep -q "\"program_cached\": $want" "$T/s.json" || fail "program_cached should be $want"
        assert_equal "$(cat "$T/out")" "$(seqgpu find -q -b cpu -m ACGT "$T/g.fa")"
    done
    f=$(ls "$T"/cache/seqgpu/opencl-*.bin)
    head -c 700 /dev/urandom > "$f"
    seqgpu find -q -b opencl -m ACGT --stats "$T/s.json" "$T/g.fa" > "$T/out" || fail "a bad cache file is an error"
    grep -q '"program_cached": false' "$T/s.json" || fail "a bad cache file was used"
    assert_equal "$(cat "$T/out")" "$(seqgpu find -q -b cpu -m ACGT "$T/g.fa")"
    # cut short, a folder or a FIFO in its place: built again, never passed to the driver, never waited on
    seqgpu find -q -b opencl -m ACGT "$T/g.fa" > /dev/null || fail "run"
    head -c 500 "$f" > "$T/cut" && cp "$T/cut" "$f"
    seqgpu find -q -b opencl -m ACGT --stats "$T/s.json" "$T/g.fa" > "$T/out" || fail "a truncated cache file is an error"
    grep -q '"program_cached": false' "$T/s.json" || fail "a truncated cache file was used"
    rm -f "$f" && mkdir "$f"
    run seqgpu find -q -b opencl -m ACGT "$T/g.fa"
    assert_success
    rmdir "$f" && mkfifo "$f"
    run timeout 60 "$SEQGPU" find -q -b opencl -m ACGT "$T/g.fa"
    assert_success
    rm -rf "$T/cache"
    SEQGPU_OPENCL_CACHE=off seqgpu find -q -b opencl -m ACGT "$T/g.fa" > /dev/null || fail "run without cache"
    [ ! -e "$T/cache/seqgpu" ] || fail "SEQGPU_OPENCL_CACHE=off wrote a cache"
}
