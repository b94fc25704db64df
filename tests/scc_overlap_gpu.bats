#!/usr/bin/env bats
# bats file_tags=gpu
# seqgpu scc -g overlap -b cuda (the minimizer index on the device) gives
# the cpu backend's files byte for byte: pbsim reads of planted arrays,
# reads with N, gzip and standard input, any thread count; auto's choice
# and its fallback when the device fails; exit 3 when cuda was asked for and
# fails. Skipped only where there is no NVIDIA GPU (or no CUDA in the build)
# and SEQGPU_REQUIRE does not name cuda (unit_overlap_gpu compares the
# index itself against a brute force).

load test_helper

# pbsim CLR reads (20x, 10 kb mean) of a 300 kb genome with arrays of
# periods 6, 171 and 2000 bases, made once for the file.
setup_file() {
    local d=$BATS_FILE_TMPDIR
    command -v pbsim >/dev/null || return 0 # the tests say what is missing
    python3 "$BATS_TEST_DIRNAME/reference.py" satellites --seed 3 --length 300000 \
        --arrays 6:15000:0.02,171:30000:0.01,2000:40000:0.03 "$d/sat" > /dev/null
    (cd "$d" && pbsim --prefix pb --data-type CLR --depth 20 --length-mean 10000 --length-sd 3000 --length-min 1000 \
        --length-max 30000 --accuracy-mean 0.90 --accuracy-sd 0.03 --accuracy-min 0.85 --accuracy-max 0.99 \
        --model_qc "${PBSIM_MODELS:-/usr/share/pbsim/models}/model_qc_clr" --seed 3 sat.genome.fa > pbsim.log 2>&1)
}

setup() {
    T=$BATS_TEST_TMPDIR
    use_backend cuda
}

sim() {
    need pbsim
    S=$BATS_FILE_TMPDIR
    [ -s "$S/pb_0001.fastq" ] || fail "pbsim made no reads: $(tail -3 "$S/pbsim.log")"
}

# same_files A B: every output of prefixes A and B is the same
same_files() {
    for f in repeats.tsv gfa units.fa components.tsv repeats.svg; do
        cmp "$1.$f" "$2.$f" || fail "$f differs between $1 and $2"
    done
}

@test "overlap gpu: the cpu's files and overlaps, from 1 and 4 threads, in batches; index and chains on the device" {
    sim
    seqgpu scc -q -g overlap -b cpu -t 2 -p "$T/cpu" --write-overlaps "$T/cpu.paf" "$S/pb_0001.fastq"
    for t in 1 4; do
        seqgpu scc -q -g overlap -b cuda -t $t -p "$T/gpu$t" --write-overlaps "$T/gpu$t.paf" --stats "$T/s$t.json" \
            "$S/pb_0001.fastq"
        same_files "$T/cpu" "$T/gpu$t"
        cmp "$T/cpu.paf" "$T/gpu$t.paf" || fail "the overlaps differ ($t threads)"
    done
    # the device's chaining in batches of a few reads
    SEQGPU_CUDA_CHAIN_BATCH=100000 seqgpu scc -q -g overlap -b cuda -p "$T/b" --write-overlaps "$T/b.paf" \
        --stats "$T/b.json" "$S/pb_0001.fastq"
    same_files "$T/cpu" "$T/b"
    cmp "$T/cpu.paf" "$T/b.paf" || fail "the overlaps differ (batches)"
    python3 -c "import json; c = json.load(open('$T/b.json'))['index_cuda']['chain']; assert c['batches'] > 5, c" ||
        fail "batches: $(cat "$T/b.json")"
    [ "$(wc -l < "$T/cpu.repeats.tsv")" -ge 4 ] || fail "too few repeats: $(cat "$T/cpu.repeats.tsv")"
    python3 - "$T/s4.json" <<'PY' || fail "stats: $(cat "$T/s4.json")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s['graph_backend'] == 'cuda' and s['minimizers']['index'] == 'cuda', s
d = s['index_cuda']
assert d['minimizers'] == s['minimizers']['sketched'] and d['indexed'] == s['minimizers']['indexed'], d
assert d['reads'] == s['reads'] and d['bases'] == s['bases'] and d['device_bytes_peak'] > 0, d
c, m = d['chain'], s['minimizers']
# every read chained on the device: most from hits made there, the arrays' (repeat buckets) from the host's
assert m['reads_chained_on_device'] == s['reads'] and c['device_reads'] > s['reads'] / 2, (c, m)
assert c['device_reads'] + c['host_reads'] == s['reads'] and c['host_reads'] == m['repeat_reads'] > 0, (c, m)
assert 0 < c['hits'] < m['hits'], (c, m)
PY
}

@test "overlap gpu: the presets' sketches (-x ont: 17-mers in windows of 8; -x hifi: uncompressed, windows of 10) give the cpu's files and overlaps" {
    sim
    for x in ont hifi; do
        seqgpu scc -q -x $x -b cpu -t 2 -p "$T/cpu.$x" --write-overlaps "$T/cpu.$x.paf" "$S/pb_0001.fastq"
        seqgpu scc -q -x $x -b cuda -t 2 -p "$T/gpu.$x" --write-overlaps "$T/gpu.$x.paf" --stats "$T/$x.json" "$S/pb_0001.fastq"
        same_files "$T/cpu.$x" "$T/gpu.$x"
        cmp "$T/cpu.$x.paf" "$T/gpu.$x.paf" || fail "-x $x: the overlaps differ"
        python3 -c "import json; s = json.load(open('$T/$x.json')); assert s['minimizers']['index'] == 'cuda', s" ||
            fail "$(cat "$T/$x.json")"
    done
}

@test "overlap gpu: reads with N and IUPAC runs, short reads, gzip and standard input" {
    sim
    # every tenth read with runs of N and other IUPAC letters, every seventh cut short
    awk 'NR % 4 == 2 && NR % 40 == 2 {for (i = 100; i < length($0); i += 997) $0 = substr($0, 1, i) "NNNNRYKM" substr($0, i + 9)}
         NR % 4 == 2 && NR % 28 == 2 {$0 = substr($0, 1, 1500)}
         NR % 4 == 0 && NR % 28 == 4 {$0 = substr($0, 1, 1500)} {print}' "$S/pb_0001.fastq" > "$T/r.fq"
    gzip -c "$T/r.fq" > "$T/r.fq.gz"
    # (the pictures' titles name the input: each run beside the cpu's of the same input)
    seqgpu scc -q -g overlap -b cpu -p "$T/cpu" "$T/r.fq.gz"
    seqgpu scc -q -g overlap -b cuda -p "$T/gz" "$T/r.fq.gz"
    same_files "$T/cpu" "$T/gz"
    seqgpu scc -q -g overlap -b cpu -p "$T/cpu_in" < "$T/r.fq.gz"
    seqgpu scc -q -g overlap -b cuda -p "$T/in" < "$T/r.fq.gz"
    same_files "$T/cpu_in" "$T/in"
    cmp "$T/cpu.gfa" "$T/in.gfa" || fail "the graph from standard input differs"
}

@test "overlap gpu: a single read, and reads all shorter than --min-overlap" {
    sim
    head -4 "$S/pb_0001.fastq" > "$T/one.fq"
    for b in cpu cuda; do
        run seqgpu scc -g overlap -b $b -p "$T/$b" "$T/one.fq"
        assert_success
        run seqgpu scc -g overlap -b $b --min-overlap 40000 -p "$T/s$b" "$S/pb_0001.fastq"
        assert_success
        assert_output --partial "reads shorter than --min-overlap (40000) skipped"
    done
    same_files "$T/cpu" "$T/cuda"
    same_files "$T/scpu" "$T/scuda"
}

@test "overlap gpu: too little device memory: exit 3 with -b cuda, the cpu's files under auto" {
    sim
    seqgpu scc -q -g overlap -b cpu -p "$T/cpu" "$S/pb_0001.fastq"
    SEQGPU_CUDA_MEM_LIMIT=1M run seqgpu scc -g overlap -b cuda -p "$T/c" "$S/pb_0001.fastq"
    assert_failure 3
    assert_output --partial "device memory"
    [ ! -e "$T/c.repeats.tsv" ] && [ ! -e "$T/c.gfa" ]
    # auto takes the device for a large input on few threads (SEQGPU_PLAN_BASES), and falls back
    SEQGPU_PLAN_BASES=1e11 SEQGPU_CUDA_MEM_LIMIT=1M run seqgpu scc -g overlap -t 2 -v -p "$T/a" --stats "$T/a.json" \
        "$S/pb_0001.fastq"
    assert_success
    assert_output --partial "CUDA device unusable"
    same_files "$T/cpu" "$T/a"
    python3 -c "import json; s = json.load(open('$T/a.json')); assert s['graph_backend'] == 'cpu', s" ||
        fail "stats: $(cat "$T/a.json")"
}

@test "overlap gpu: a chaining step that fails: auto chains on the cpu (the cpu's files), -b cuda exits 3" {
    sim
    seqgpu scc -q -g overlap -b cpu -p "$T/cpu" "$S/pb_0001.fastq"
    for step in plan run hits; do
        SEQGPU_PLAN_BASES=1e11 SEQGPU_CUDA_CHAIN_FAULT=$step run seqgpu scc -g overlap -t 2 -p "$T/a$step" \
            --stats "$T/a$step.json" "$S/pb_0001.fastq"
        assert_success
        assert_output --partial "chaining the overlaps on the cpu"
        same_files "$T/cpu" "$T/a$step"
        # the index built on the device, the chaining and the SCCs on the cpu, and auto's reason says why
        python3 -c "
import json; s = json.load(open('$T/a$step.json')); m = s['minimizers']
assert m['reads_chained_on_device'] == 0 and m['index'] == 'cuda' and s['graph_backend'] == 'cpu', s
assert 'CUDA device failed' in s['graph_backend_choice'] and s['backend'] == 'cpu', s" ||
            fail "stats: $(cat "$T/a$step.json")"
        SEQGPU_CUDA_CHAIN_FAULT=$step run seqgpu scc -g overlap -b cuda -p "$T/c$step" "$S/pb_0001.fastq"
        assert_failure 3
        assert_output --partial "SEQGPU_CUDA_CHAIN_FAULT"
        [ ! -e "$T/c$step.repeats.tsv" ] && [ ! -e "$T/c$step.gfa" ]
    done
}

@test "overlap gpu: auto builds the index of a large input on few threads on the device, of a tiny one on the cpu" {
    sim
    SEQGPU_PLAN_BASES=1e11 run seqgpu scc -g overlap -t 2 -v -p "$T/big" "$S/pb_0001.fastq"
    assert_success
    assert_output --partial "graph: auto: cuda"
    head -400 "$S/pb_0001.fastq" > "$T/few.fq"
    run seqgpu scc -g overlap -t 2 -v -p "$T/few" "$T/few.fq"
    assert_success
    assert_output --partial "graph: auto: cpu"
}

@test "overlap gpu: a device that is not there is exit 3, before any input is read" {
    sim
    run seqgpu scc -g overlap -b cuda --device 99 -p "$T/x" "$S/pb_0001.fastq"
    assert_failure 3
    [ ! -e "$T/x.repeats.tsv" ]
}
