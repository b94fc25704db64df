#!/usr/bin/env bats
# seqgpu scc: planted tandem arrays found, unique sequence not; unitigs equal
# bcalm's; SCC partitions equal scipy's; GFA in and out; bad input.

load test_helper

units_of() { awk -F'\t' 'NR > 1 {print $8}' "$1" | sort; }

@test "scc -h and help scc print the usage; bad options exit 1" {
    run seqgpu scc -h
    assert_success
    assert_output --partial "Usage: seqgpu scc"
    run seqgpu help scc
    assert_success
    run seqgpu scc -k 30 x.fq
    assert_failure 1
    assert_output --partial "invalid k-mer size '30' (odd, 11 to 63)"
    run seqgpu scc -k 65 x.fq
    assert_failure 1
    run seqgpu scc --min-copies 0 x.fq
    assert_failure 1
    run seqgpu scc -b opencl x.fq
    assert_failure 1
    assert_output --partial "invalid backend 'opencl' for scc"
    run seqgpu scc --kw 3 x.fq
    assert_failure 1
    assert_output --partial "invalid --kw '3'"
    run seqgpu scc --kv 0 x.fq
    assert_failure 1
    run seqgpu scc --kt -1 x.fq
    assert_failure 1
    run seqgpu scc --device x x.fq
    assert_failure 1
    run script -qec "$SEQGPU scc" /dev/null
    assert_failure 1
    assert_output --partial "no input given"
    run seqgpu scc --edges e.txt x.fq
    assert_failure 1
    run seqgpu scc --write-graph p.gfa -p p "$ROOT/examples/tandem_reads.fq.gz"
    assert_failure 1
    assert_output --partial "is PREFIX.gfa"
}

@test "every option in scc -h is in the man page and the README" {
    options_documented scc
}

@test "tandem arrays of periods 1 to 200 are reported, unique sequence is not" {
    $REF sim --seed 3 --periods 1,2,3,5,8,13,21,34,55,89,144,200 --errors 0.005 "$T/sim"
    run seqgpu scc -q -p "$T/out" --stats "$T/s.json" "$T/sim.reads.fq"
    assert_success
    units_of "$T/out.repeats.tsv" > "$T/got"
    sort "$T/sim.units.txt" > "$T/want"
    cmp -s "$T/want" "$T/got" || fail "units differ: $(diff "$T/want" "$T/got")"
    run awk -F'\t' 'NR > 1 && ($2 != "tandem" || $5 != length($8)) {print}' "$T/out.repeats.tsv"
    assert_output ""
    # coverage: 30x reads of 150 bp, k 31, 0.5% errors: 30*120/150*0.995**31 = 20.5 k-mers,
    # near the main peak of the histogram: within half a bin of the truth (a peak taken one
    # bin off is not), which sets the threshold;
    # copies: the arrays hold 20 or more copies; the estimate is within 25%
    run python3 -c "
import json, math
s = json.load(open('$T/s.json'))
h = s['histogram']
trough = next(c for c in range(2, len(h) - 1) if h[c] < h[c - 1] and h[c] <= h[c + 1])
peak = max(range(trough, len(h) - 1), key=lambda c: h[c])
assert abs(s['coverage'] - 20.5) <= 0.5 and abs(s['coverage'] - peak) <= 1, (s['coverage'], peak)
assert s['threshold'] == max(2, math.ceil(3 * s['coverage'] - 1e-9)), s['threshold']
for l in open('$T/out.repeats.tsv').read().split('\n')[1:]:
    if l:
        f = l.split('\t'); p = int(f[4]); c = float(f[6])
        want = max(20, -(-600 // p))
        assert abs(c - want) < 0.25 * want, (p, c, want)
print('ok')"
    assert_output "ok"
}

@test "k 11, 13, 21, 31, 33, 45 and 63 (both k-mer word widths and their edges) find the same units; stdin, gzip" {
    $REF sim --seed 5 --periods 4,17,90 --unique 10000 "$T/sim"
    sort "$T/sim.units.txt" > "$T/want"
    for k in 11 13 21 31 33 45 63; do
        seqgpu scc -q -k $k -p "$T/o$k" "$T/sim.reads.fq"
        units_of "$T/o$k.repeats.tsv" | cmp -s "$T/want" - || fail "k=$k: $(units_of "$T/o$k.repeats.tsv")"
    done
    gzip -c "$T/sim.reads.fq" > "$T/r.fq.gz"
    seqgpu scc -q -p "$T/gz" - < "$T/r.fq.gz"
    units_of "$T/gz.repeats.tsv" | cmp -s "$T/want" - || fail "stdin gzip"
}

@test "k-mer counts and histogram equal a brute-force count of the reads" {
    $REF sim --seed 8 --periods 5,40 --unique 3000 --errors 0.01 "$T/sim"
    for k in 11 31 45; do
        seqgpu scc -q -k $k -c 2 --stats "$T/s.json" -p "$T/o" "$T/sim.reads.fq"
        run python3 - "$T/sim.reads.fq" "$T/s.json" $k <<'PY'
import collections, json, re, sys
reads, stats, k = sys.argv[1], json.load(open(sys.argv[2])), int(sys.argv[3])
comp = str.maketrans('ACGT', 'TGCA')
count = collections.Counter()
for i, line in enumerate(open(reads)):
    if i % 4 == 1:
        for run in re.findall('[ACGT]+', line.upper()):
            for j in range(len(run) - k + 1):
                f = run[j:j + k]
                count[min(f, f[::-1].translate(comp))] += 1
hist = [0] * len(stats['histogram'])
for c in count.values():
    hist[min(c, len(hist) - 1)] += 1
print(stats['kmers'] == sum(count.values()), stats['distinct_kmers'] == len(count), stats['histogram'] == hist)
PY
        assert_success
        assert_output "True True True"
    done
}

@test "the output files: GFA with S lines first and each link once, components, units" {
    $REF sim --seed 7 --periods 6,40 --unique 8000 "$T/sim"
    seqgpu scc -q -p "$T/o" "$T/sim.reads.fq"
    run awk '/^L/ {l=1} /^S/ && l {print "S after L"}' "$T/o.gfa"
    assert_output ""
    run python3 -c "
import collections
links = [tuple(l.split('\t')[1:5]) for l in open('$T/o.gfa') if l.startswith('L')]
flip = {'+': '-', '-': '+'}
seen = set()
for a, ao, b, bo in links:
    assert (a, ao, b, bo) not in seen and (b, flip[bo], a, flip[ao]) not in seen, 'link twice'
    seen.add((a, ao, b, bo))
segs = [l.split('\t') for l in open('$T/o.gfa') if l.startswith('S')]
assert all(any(t.startswith('LB:Z:repeat') for t in s) and any(t.startswith('CL:Z:#') for t in s) for s in segs)
comp = [l.split('\t') for l in open('$T/o.components.tsv').read().split('\n')[1:] if l]
assert len(comp) == len(segs)
units = [l for l in open('$T/o.units.fa') if l.startswith('>')]
assert len(units) == 2 and 'kind=tandem' in units[0]
print('ok')"
    assert_output "ok"
}

@test "unitigs equal bcalm's with the same k and abundance threshold" {
    need bcalm
    zcat "$ROOT/examples/lambda_reads.fq.gz" > "$T/r.fq"
    for spec in "31 2" "21 2" "45 1"; do
        set -- $spec
        (cd "$T" && bcalm -in r.fq -kmer-size $1 -abundance-min $2 -out b -nb-cores 1 -verbose 0 > /dev/null 2>&1)
        seqgpu scc -q -k $1 -c $2 --write-graph "$T/whole.gfa" -p "$T/o" "$T/r.fq"
        run python3 -c "
def rc(s): return s[::-1].translate(str.maketrans('ACGT', 'TGCA'))
b = sorted(min(x, rc(x)) for x in (l.strip() for l in open('$T/b.unitigs.fa')) if not x.startswith('>'))
s = sorted(min(x, rc(x)) for x in (l.split('\t')[2] for l in open('$T/whole.gfa') if l.startswith('S')))
print(len(b), len(s), b == s)"
        [ "${lines[0]##* }" = True ] || fail "k=$1 abundance $2: bcalm and seqgpu unitigs differ ($output)"
    done
}

@test "--edges: the partition equals scipy's on random graphs, chains, cycles, self-loops" {
    python3 -c "import scipy" || fail "python3-scipy is not installed (make test-deps installs it)"
    run python3 - "$SEQGPU" "$T" <<'PY'
import random, subprocess, sys
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components
seqgpu, tmp = sys.argv[1], sys.argv[2]
def check(edges):
    with open(tmp + '/e.txt', 'w') as f:
        f.write('# from to\n')
        for a, b in edges:
            f.write('%d\t%d\n' % (a, b))
    subprocess.run([seqgpu, 'scc', '-q', '--edges', tmp + '/e.txt', '-p', tmp + '/o'], check=True)
    nodes = sorted(set(x for e in edges for x in e))
    idx = {v: i for i, v in enumerate(nodes)}
    m = csr_matrix((np.ones(len(edges)), ([idx[a] for a, b in edges], [idx[b] for a, b in edges])), shape=(len(nodes),) * 2)
    _, lab = connected_components(m, directed=True, connection='strong')
    size = np.bincount(lab)
    loops = set(a for a, b in edges if a == b)
    want = {}
    for v in nodes:
        if size[lab[idx[v]]] >= 2 or v in loops:
            want.setdefault(lab[idx[v]], set()).add(v)
    got = {}
    for l in open(tmp + '/o.components.tsv').read().split('\n')[1:]:
        if l:
            a, c = l.split('\t')
            got.setdefault(c, set()).add(int(a))
    return sorted(map(sorted, want.values())) == sorted(map(sorted, got.values()))
random.seed(4)
ok = True
for t in range(30):
    n = random.randint(1, 300)
    ok &= check([(random.randint(-5, n), random.randint(-5, n)) for _ in range(random.randint(1, 3 * n))])
ok &= check([(i, i + 1) for i in range(200000)] + [(200000, 0)])
ok &= check([(i, i + 1) for i in range(300000)])
ok &= check([(i, i) for i in range(50)] + [(1000 + i, 1000 + (i + 1) % 3) for i in range(3)])
print(ok)
PY
    assert_success
    assert_output "True"
}

@test "a GFA graph as input: the repeats of a written graph come back" {
    $REF sim --seed 9 --periods 3,11,60 --unique 8000 "$T/sim"
    seqgpu scc -q --write-graph "$T/whole.gfa" -p "$T/o" "$T/sim.reads.fq"
    seqgpu scc -q -p "$T/g" "$T/whole.gfa"
    run diff <(cut -f2,3,5,8 "$T/o.repeats.tsv") <(cut -f2,3,5,8 "$T/g.repeats.tsv")
    assert_success
}

@test "a GFA graph read and written again is the same file" {
    # reads with errors and a low threshold: a branchy graph, links between all orientations
    $REF sim --seed 9 --periods 3,11,60 --unique 3000 --errors 0.01 "$T/sim"
    seqgpu scc -q -c 2 --write-graph "$T/whole.gfa" -p "$T/o" "$T/sim.reads.fq"
    for o in "+ +" "+ -" "- +" "- -"; do
        awk -v o="$o" '$1 == "L" && $3 " " $5 == o {f = 1} END {exit !f}' "$T/whole.gfa" || fail "no $o link"
    done
    seqgpu scc -q --write-graph "$T/again.gfa" -p "$T/g" "$T/whole.gfa"
    cmp -s "$T/whole.gfa" "$T/again.gfa" || fail "$(diff "$T/whole.gfa" "$T/again.gfa" | head -5)"
}

@test "bad graph inputs are named with their line" {
    printf 'S\ta\tACGT\nL\ta\t+\tb\t+\t3M\n' > "$T/bad.gfa"
    run seqgpu scc "$T/bad.gfa"
    assert_failure 1
    assert_output --partial "segment 'b', which has no S line"
    printf 'S\ta\tACGT\nL\ta\t*\ta\t+\t3M\n' > "$T/bad2.gfa"
    run seqgpu scc "$T/bad2.gfa"
    assert_failure 1
    assert_output --partial "line 2"
    printf '1 2\n3 x\n' > "$T/e.txt"
    run seqgpu scc --edges "$T/e.txt"
    assert_failure 1
    assert_output --partial "line 2: expected two integers"
    run seqgpu scc "$T/missing.fq"
    assert_failure 1
    assert_output --partial "No such file or directory"
    printf '@r1\nACGT\n+\nII\n' > "$T/badq.fq"
    run seqgpu scc "$T/badq.fq"
    assert_failure 1
    assert_output --partial "quality length"
}

@test "real reads: E. coli (spades test data) and lambda run to the end" {
    for f in /usr/share/spades/test_dataset/ecoli_1K_1.fq.gz "$ROOT/examples/lambda_reads.fq.gz"; do
        [ -e "$f" ] || fail "$f is missing (make test-deps installs spades)"
        rm -f "$T/real.repeats.tsv" "$T/s.json"
        run seqgpu scc -p "$T/real" --stats "$T/s.json" "$f"
        assert_success
        assert_output --partial "k-mer coverage"
        [ -s "$T/real.repeats.tsv" ] || fail "$f: no repeats.tsv"
        [ -s "$T/s.json" ] || fail "$f: no stats"
    done
}

@test "scc -b cuda without a usable GPU exits 3 with the reason; auto finds the SCCs on the cpu" {
    backend_absent cuda >/dev/null || skip "a CUDA device is here (scc_gpu.bats tests -b cuda)"
    printf '1 2\n2 1\n2 3\n' > "$BATS_TEST_TMPDIR/e.txt"
    run seqgpu scc -b cuda --edges "$BATS_TEST_TMPDIR/e.txt" -p "$BATS_TEST_TMPDIR/x"
    assert_failure 3
    assert_output --regexp "cuda backend: (no CUDA|this seqgpu was built without CUDA)"
    [ ! -e "$BATS_TEST_TMPDIR/x.components.tsv" ]
    run seqgpu scc --edges "$BATS_TEST_TMPDIR/e.txt" -p "$BATS_TEST_TMPDIR/x"
    assert_success
    printf 'node\tcomponent\n1\tscc1\n2\tscc1\n' | cmp - "$BATS_TEST_TMPDIR/x.components.tsv"
}

@test "scc auto: the choices are said with -v and recorded in --stats, never on stderr otherwise" {
    printf '1 2\n2 1\n2 3\n' > "$T/e.txt"
    run seqgpu scc --edges "$T/e.txt" -p "$T/x" --stats "$T/s.json"
    assert_success
    refute_output --partial "auto:"
    python3 -c "import json; c = json.load(open('$T/s.json'))['backend_choice']; assert c.startswith('auto: '), c" ||
        fail "no backend_choice in --stats"
    run seqgpu scc -v --edges "$T/e.txt" -p "$T/x"
    assert_success
    assert_output --partial "[seqgpu scc] SCCs: auto: "
    run seqgpu scc -v -q --edges "$T/e.txt" -p "$T/x"
    refute_output --partial "auto:"
    run seqgpu scc -v -c 2 -p "$T/r" --stats "$T/r.json" "$ROOT/examples/lambda_reads.fq.gz"
    assert_success
    assert_output --partial "[seqgpu scc] graph: auto: "
    python3 -c "import json; s = json.load(open('$T/r.json')); assert s['graph_backend_choice'].startswith('auto: ')" ||
        fail "no graph_backend_choice in --stats"
    run seqgpu scc -b cpu --edges "$T/e.txt" -p "$T/x" --stats "$T/s.json"
    python3 -c "import json; assert 'backend_choice' not in json.load(open('$T/s.json'))" || fail "a choice without auto"
    if backend_absent cuda > /dev/null; then
        run seqgpu scc -v --edges "$T/e.txt" -p "$T/x"
        assert_output --regexp "auto: cpu \((no CUDA device|built without cuda)\)"
        refute_output --partial "warning"
    fi
    run seqgpu scc --device 0,0 --edges "$T/e.txt" -p "$T/x"
    assert_failure 1
    assert_output --partial "invalid --device '0,0' (device indices, each once"
}
