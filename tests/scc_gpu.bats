#!/usr/bin/env bats
# bats file_tags=gpu
# seqgpu scc -b cuda gives the cpu backend's files: plain graphs of many
# shapes through --edges under every virtual-warp and kt setting, read sets
# and GFA graphs; the simulated tandem arrays; device memory limits. Skipped
# only where there is no NVIDIA GPU (or no CUDA in the build) and
# SEQGPU_REQUIRE does not name cuda (the unit test unit_scc_gpu compares
# partitions in-process).

load test_helper

setup() {
    T=$BATS_TEST_TMPDIR
    use_backend cuda
}

# random directed graphs: SHAPE SEED NODES
graph() {
    python3 - "$@" <<'PY'
import random, sys
shape, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r = random.Random(seed)
ids = list(range(1000, 1000 + n)); r.shuffle(ids)   # labels are not 0..n-1
e = []
if shape == 'random':
    e = [(r.randrange(n), r.randrange(n)) for _ in range(int(n * r.uniform(0.2, 3)))]
elif shape == 'cycles':                              # cycles of 1..50 linked forward, chords
    at = 0
    while at < n - 50:
        s = r.randint(1, 50)
        e += [(at + i, at + (i + 1) % s) for i in range(s)]
        if at: e.append((r.randrange(at), at))
        at += s
elif shape == 'chains':                              # long chains between a few hubs, both ways
    for c in range(20):
        L = n // 20
        a, b = r.randrange(5), r.randrange(5)
        e.append((n - 1 - a, c * L))
        e += [(c * L + i, c * L + i + 1) for i in range(L - 1)]
        e.append((c * L + L - 1, n - 1 - b))
for a, b in e:
    print(ids[a], ids[b])
PY
}

@test "scc gpu: --edges graphs of many shapes give the cpu's components under every kw, kv, kt" {
    for shape in random cycles chains; do
        for seed in 1 2; do
            graph $shape $seed 20000 > "$T/g.txt"
            seqgpu scc -q -b cpu --edges "$T/g.txt" -p "$T/cpu" || fail "cpu $shape"
            for s in "4 2 2" "1 1 0" "32 1 1" "8 16 3"; do
                set -- $s
                seqgpu scc -q -b cuda --kw $1 --kv $2 --kt $3 --edges "$T/g.txt" -p "$T/gpu" || fail "cuda $shape $s"
                cmp -s "$T/cpu.components.tsv" "$T/gpu.components.tsv" || fail "$shape seed $seed (kw kv kt $s) differs"
            done
        done
    done
}

@test "scc gpu: reads and GFA graphs give the cpu's repeats, GFA, units and components" {
    for input in "$ROOT/examples/tandem_reads.fq.gz" "$ROOT/examples/lambda_reads.fq.gz"; do
        seqgpu scc -q -b cpu -c 2 --write-graph "$T/whole.gfa" -p "$T/cpu" "$input"
        seqgpu scc -q -b cuda -c 2 --stats "$T/s.json" -p "$T/gpu" "$input"
        for f in repeats.tsv gfa units.fa components.tsv; do
            cmp -s "$T/cpu.$f" "$T/gpu.$f" || fail "$(basename "$input"): $f differs"
        done
        run python3 -c "import json; s=json.load(open('$T/s.json')); print(s['backend'], s['scc_cuda']['seconds']['total'] > 0)"
        assert_output "cuda True"
        seqgpu scc -q -b cpu -p "$T/cpu_gfa" "$T/whole.gfa"
        seqgpu scc -q -b cuda -p "$T/gpu_gfa" "$T/whole.gfa"
        for f in repeats.tsv gfa units.fa components.tsv; do
            cmp -s "$T/cpu_gfa.$f" "$T/gpu_gfa.$f" || fail "GFA of $(basename "$input"): $f differs"
        done
    done
}

@test "scc gpu: an assembly's loci, tables and pictures equal the cpu's" {
    $REF assembly --seed 4 --records 3 "$T/a"
    seqgpu scc -q -b cpu -p "$T/cpu" "$T/a.fa"
    seqgpu scc -q -b cuda -p "$T/gpu" "$T/a.fa"
    for f in loci.bed repeats.tsv gfa units.fa components.tsv repeats.svg landscape.svg spectrum.svg; do
        cmp -s "$T/cpu.$f" "$T/gpu.$f" || fail "$f differs"
    done
    [ "$(grep -vc '^#' "$T/cpu.loci.bed")" -ge 6 ] || fail "no loci: $(cat "$T/cpu.loci.bed")"
}

@test "scc gpu: the tandem arrays of a simulated genome, found on the device" {
    $REF sim --seed 3 --periods 1,2,3,5,8,13,21,34,55,89,144,200 --errors 0.005 "$T/sim"
    seqgpu scc -q -b cuda -p "$T/out" "$T/sim.reads.fq"
    awk -F'\t' 'NR > 1 {print $8}' "$T/out.repeats.tsv" | sort > "$T/got"
    sort "$T/sim.units.txt" > "$T/want"
    cmp -s "$T/want" "$T/got" || fail "units differ: $(diff "$T/want" "$T/got")"
}

@test "scc gpu: too little device memory is a clear error with cuda; auto finds the SCCs on the cpu" {
    graph random 3 2000 > "$T/g.txt"
    SEQGPU_CUDA_MEM_LIMIT=1000 run seqgpu scc -q -b cuda --edges "$T/g.txt" -p "$T/x"
    assert_failure 3
    assert_output --partial "of device memory"
    # a graph of a million vertices or more goes to the device under auto
    [ -x "$BUILD_DIR/bench/gen_graph" ] || fail "$BUILD_DIR/bench/gen_graph is not built (make units)"
    "$BUILD_DIR/bench/gen_graph" powerlaw 1200000 > "$T/big.txt" || fail "gen_graph failed"
    seqgpu scc -q -b cpu --edges "$T/big.txt" -p "$T/cpu"
    SEQGPU_CUDA_MEM_LIMIT=1000 run seqgpu scc -b auto --edges "$T/big.txt" -p "$T/auto"
    assert_success
    assert_output --partial "finding SCCs on the cpu"
    cmp "$T/cpu.components.tsv" "$T/auto.components.tsv"
    seqgpu scc -q --edges "$T/big.txt" --stats "$T/s.json" -p "$T/auto2"
    cmp "$T/cpu.components.tsv" "$T/auto2.components.tsv"
    run python3 -c "import json; print(json.load(open('$T/s.json'))['backend'])"
    assert_output "cuda"
}

# GPUs this test may use: CUDA_VISIBLE_DEVICES's entries when it is set, else nvidia-smi's
gpus_here() {
    if [ -n "${CUDA_VISIBLE_DEVICES+x}" ]; then
        echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .
    else
        nvidia-smi -L 2>/dev/null | grep -c '^GPU'
    fi
}

@test "scc gpu: --device 0,1 counts the k-mers on two devices: the files of one device and of the cpu" {
    # two GPUs or none of this: a machine with one skips it, required or not
    n=$(gpus_here || true)
    [ "${n:-0}" -ge 2 ] || skip "one GPU here ($n): --device 0,1 needs two"
    $REF sim --seed 5 --periods 2,3,7,21,55,144 --errors 0.005 "$T/sim"
    for input in "$ROOT/examples/lambda_reads.fq.gz" "$T/sim.reads.fq"; do
        for opt in "-k 31 -c 2" "-k 41 -c 2" "-k 31"; do
            seqgpu scc -q -b cpu $opt --stats "$T/cpu.json" -p "$T/cpu" "$input"
            seqgpu scc -q -b cuda $opt --stats "$T/one.json" -p "$T/one" "$input"
            # small batches: many of them in flight on both devices at once
            for dev in 0,1 1,0; do
                SEQGPU_CUDA_KMER_BATCH=64K seqgpu scc -q -b cuda --device $dev $opt --stats "$T/two.json" -p "$T/two" "$input" ||
                    fail "--device $dev $opt failed"
                for f in repeats.tsv gfa units.fa components.tsv spectrum.svg repeats.svg; do
                    cmp -s "$T/one.$f" "$T/two.$f" || fail "$(basename "$input") $opt --device $dev: $f differs from one device's"
                    cmp -s "$T/cpu.$f" "$T/two.$f" || fail "$(basename "$input") $opt --device $dev: $f differs from the cpu's"
                done
                python3 - "$T/cpu.json" "$T/two.json" "$dev" <<'PY' || fail "$opt --device $dev: the counts differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for key in ("kmers", "distinct_kmers", "threshold", "kept_kmers", "histogram"):
    assert a[key] == b[key], (key, a[key], b[key])
assert b["graph_cuda"]["devices"] == [int(d) for d in sys.argv[3].split(",")], b["graph_cuda"]
PY
            done
        done
    done
}

@test "scc gpu: --device with a device that is not there is a clear error naming it" {
    n=$(gpus_here || true)
    run seqgpu scc -q -b cuda --device "0,${n:-1}" -p "$T/x" "$ROOT/examples/lambda_reads.fq.gz"
    assert_failure 3
    assert_output --partial "device ${n:-1}"
    [ ! -e "$T/x.repeats.tsv" ] || fail "outputs left behind"
}
