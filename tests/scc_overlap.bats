#!/usr/bin/env bats
# seqgpu scc -g overlap: satellite arrays found in simulated PacBio reads
# (pbsim) with their periods (against the truth and TRF), nothing from
# unique sequence; the own overlaps against minimap2 -x ava-pb's and the
# truth; minimap2's PAF taken instead; the output files; bad PAF input.

load test_helper

# A 600 kb genome with arrays of periods 6, 171 and 2000 (20 to 40 kb,
# 1-3% divergence between copies) and a short one (60 bp, 12 kb), in unique
# sequence that carries interspersed repeats longer than --min-overlap, 25 kb
# apart or more: a direct pair of 5 kb, a pair of 8 kb on both strands,
# four near-identical 5 kb copies on either strand (rRNA operons), four of
# 1.5 kb (IS elements), and 200 of an Alu-like 300 bp diverged 12%; pbsim
# CLR reads at 20x, 10 kb mean, accuracy 0.85 to 0.99; and minimap2 -x
# ava-pb's overlaps of them. Made once for the file.
setup_file() {
    local d=$BATS_FILE_TMPDIR
    command -v pbsim >/dev/null && command -v minimap2 >/dev/null || return 0 # the tests say what is missing
    python3 "$BATS_TEST_DIRNAME/reference.py" satellites --seed 1 --length 600000 \
        --arrays 6:20000:0.02,171:30000:0.01,2000:40000:0.03,60:12000:0.02 \
        --families 5000:2:0:+,8000:2:0.01:mixed,5000:4:0.002:mixed,1500:4:0,300:200:0.12 --spacing 25000 "$d/sat" > /dev/null
    (cd "$d" && pbsim --prefix pb --data-type CLR --depth 20 --length-mean 10000 --length-sd 3000 --length-min 1000 \
        --length-max 30000 --accuracy-mean 0.90 --accuracy-sd 0.03 --accuracy-min 0.85 --accuracy-max 0.99 \
        --model_qc "${PBSIM_MODELS:-/usr/share/pbsim/models}/model_qc_clr" --seed 1 sat.genome.fa > pbsim.log 2>&1)
    minimap2 -x ava-pb -t 2 "$d/pb_0001.fastq" "$d/pb_0001.fastq" 2> /dev/null | gzip > "$d/mm.paf.gz"
}

sim() {
    need pbsim minimap2
    S=$BATS_FILE_TMPDIR
    [ -s "$S/pb_0001.fastq" ] && [ -s "$S/pb_0001.maf" ] || fail "pbsim made no reads: $(tail -3 "$S/pbsim.log")"
}

@test "scc -g overlap: usage errors" {
    printf '@r\nACGT\n+\nIIII\n' > "$T/r.fq"
    run seqgpu scc -g olc "$T/r.fq"
    assert_failure 1
    assert_output --partial "invalid graph 'olc' (dbg or overlap)"
    for opt in "--overlaps x.paf" "--min-overlap 100" "--min-identity 0.5" "--write-overlaps o.paf"; do
        run seqgpu scc -g dbg $opt -p "$T/o" "$T/r.fq"
        assert_failure 1
        assert_output --partial "${opt%% *} is an option of -g overlap"
    done
    run seqgpu scc -g overlap --min-identity 1.5 "$T/r.fq"
    assert_failure 1
    assert_output --partial "invalid --min-identity '1.5' (0 to 1)"
    run seqgpu scc -g overlap --min-overlap 0 "$T/r.fq"
    assert_failure 1
    run seqgpu scc -g overlap --edges "$T/r.fq"
    assert_failure 1
    for opt in "--part 1/2 --counts-out $T/c" "--counts" "--max-memory 2G" "--tmp-dir $T"; do
        run seqgpu scc -g overlap $opt -p "$T/o" "$T/r.fq"
        assert_failure 1
        assert_output --partial "${opt%% *} is an option of -g dbg"
    done
    printf 'S\ta\tACGT\n' > "$T/g.gfa"
    run seqgpu scc -g overlap -p "$T/o" "$T/g.gfa"
    assert_failure 1
    assert_output --partial "is a GFA graph"
    [ ! -e "$T/o.repeats.tsv" ]
    # the de Bruijn graph's k-mer options are refused, not ignored
    for opt in "-k 21" "-c 3" "--min-copies 2"; do
        run seqgpu scc -g overlap $opt x.fq
        assert_failure 1
        assert_output --partial "${opt% *} is an option of -g dbg"
    done
}

@test "overlap: every array longer than 1.5 reads is found once, its period within 3%; none from unique sequence" {
    sim
    run seqgpu scc --progress=0.1 -g overlap -t 2 -p "$T/o" --stats "$T/s.json" "$S/pb_0001.fastq"
    assert_success
    # reads the overlapper takes draw no noisy-reads warning, and find nearly every overlap implied
    refute_output --partial "warning"
    python3 -c "import json; s = json.load(open('$T/s.json')); assert s['implied_overlaps_found'] >= 0.98 * s['implied_overlaps'] > 1000, s" ||
        fail "$(cat "$T/s.json")"
    # progress lines with the share done and the time left in the index and overlap stages
    assert_output --regexp '\[seqgpu scc\] (indexing the minimizers|overlapping): [0-9.]+ [kMG]?b of [0-9.]+ Mb \([0-9]+%\), [0-9.]+ [kMG]?b/s, ETA '
    run python3 "$ROOT/tests/reference.py" satcheck --maf "$S/pb_0001.maf" --arrays "$S/sat.arrays.tsv" "$T/o"
    assert_success
    assert_line ok
    # each required array by one component, tandem, with its unit (short units exactly)
    run python3 - "$S/sat.arrays.tsv" "$T/o.repeats.tsv" <<'PY'
import sys
arrays = [l.split('\t') for l in open(sys.argv[1]).read().split('\n')[1:] if l]
reps = [l.split('\t') for l in open(sys.argv[2]).read().split('\n')[1:] if l]
for a in arrays:
    p = int(a[2])
    if int(a[1]) - int(a[0]) < 15000:
        continue
    got = [r for r in reps if abs(int(r[4]) - p) <= 0.03 * p]
    assert len(got) == 1 and got[0][1] == 'tandem', (p, got)
    if p < 1000:
        assert got[0][7] == a[4], (p, got[0][7], a[4])
    # copies: the array's length over the period, within a third
    assert abs(float(got[0][6]) * p - (int(a[1]) - int(a[0]))) <= 0.34 * (int(a[1]) - int(a[0])), (p, got[0][6])
    # the length, within a quarter, and its interval: no read spans these arrays, so the least is the
    # longest stretch of one in a read (no longer than the array) and the most unknown
    length = int(a[1]) - int(a[0])
    assert abs(int(got[0][8]) - length) <= 0.25 * length and int(got[0][9]) <= 1.05 * length, (p, got[0][8:])
    assert got[0][10] == '*' and got[0][11] == '0', got[0]
print('ok')
PY
    assert_output ok
}

@test "overlap: the periods agree with TRF's on the components' reads (periods to 1.5 kb)" {
    sim
    need trf seqkit
    seqgpu scc -q -g overlap -t 2 -p "$T/o" "$S/pb_0001.fastq"
    n=0
    while IFS=$'\t' read -r id kind reads bases period rest; do
        # TRF reports periods up to 2000, and a read's insertions stretch the 2 kb array's past that
        [ "$id" = id ] || [ "$period" -gt 1500 ] && continue
        # five copies (2 kb at least) from four reads of the component, and TRF's consensus
        # size in each (its best-scoring repeat; periods up to 1.5 times ours: TRF is slow
        # on long arrays of short units)
        awk -F'\t' -v c="$id" '$2 == c {print $1}' "$T/o.components.tsv" | head -4 > "$T/names"
        seqkit grep -f "$T/names" "$S/pb_0001.fastq" | seqkit fq2fa |
            seqkit subseq -r 1:$(( period * 5 > 2000 ? period * 5 : 2000 )) > "$T/c.fa"
        maxp=$(( period * 3 / 2 + 10 > 2000 ? 2000 : period * 3 / 2 + 10 ))
        (cd "$T" && trf c.fa 2 7 7 80 10 50 $maxp -h -ngs > c.trf) || true
        trf_period=$(awk '/^@/ {if (best) print size; best = 0; next} $8 > best {best = $8; size = $5} END {if (best) print size}' "$T/c.trf" |
            sort -n | uniq -c | sort -k1,1nr -k2,2n | awk 'NR == 1 {print $2}')
        [ -n "$trf_period" ] || fail "$id: TRF found no repeat in its reads"
        awk -v a="$period" -v b="$trf_period" 'BEGIN {exit !(a - b <= 0.03 * b && b - a <= 0.03 * b)}' ||
            fail "$id: period $period, TRF's $trf_period"
        echo "# $id: period $period, TRF's $trf_period" >&3
        n=$((n + 1))
    done < "$T/o.repeats.tsv"
    [ "$n" -ge 3 ] || fail "only $n repeats"
}

@test "overlap: own dovetails (2 kb and more) against minimap2 -x ava-pb's and the truth" {
    sim
    seqgpu scc -q -g overlap -t 2 -p "$T/o" --write-overlaps "$T/own.paf" "$S/pb_0001.fastq"
    zcat "$S/mm.paf.gz" > "$T/mm.paf"
    run python3 "$ROOT/tests/reference.py" ovlcmp --maf "$S/pb_0001.maf" --arrays "$S/sat.arrays.tsv" \
        --families "$S/sat.families.tsv" "$T/own.paf" "$T/mm.paf"
    assert_success
    echo "$output"
    # outside the arrays and the interspersed copies (inside an array any multiple of the period is an
    # overlap, and the two pick different ones; two copies of a repeat overlap where their reads do not)
    echo "$output" | awk '$1 == "against_b_unique" && $3 >= 0.95 && $5 >= 0.95 {ok = 1} END {exit !ok}' ||
        fail "against minimap2: $output"
    echo "$output" | awk '$1 == "a_truth" && $3 >= 0.95 && $5 >= 0.99 {ok = 1} END {exit !ok}' || fail "against the truth"
}

@test "overlap: --overlaps with minimap2's PAF (gzip) finds the same arrays" {
    sim
    run seqgpu scc -g overlap --overlaps "$S/mm.paf.gz" -p "$T/m" --stats "$T/m.json" "$S/pb_0001.fastq"
    assert_success
    run python3 "$ROOT/tests/reference.py" satcheck --maf "$S/pb_0001.maf" --arrays "$S/sat.arrays.tsv" "$T/m"
    assert_line ok
    python3 -c "import json; s = json.load(open('$T/m.json')); assert s['overlaps_from'] == 'paf' and s['dovetails'] > 1000, s" ||
        fail "stats: $(cat "$T/m.json")"
    # minimap2 reports reads overlapping themselves at a multiple of the period: taken, not refused
    zcat "$S/mm.paf.gz" | awk '$1 == $6' | grep -q . || fail "no self-overlap in minimap2's PAF"
}

@test "overlap: the same bytes from 1 and 2 threads, and from its own PAF read back" {
    sim
    seqgpu scc -q -g overlap -t 1 -p "$T/a" --write-overlaps "$T/a.paf" "$S/pb_0001.fastq"
    seqgpu scc -q -g overlap -t 2 -p "$T/b" --write-overlaps "$T/b.paf" "$S/pb_0001.fastq"
    seqgpu scc -q -g overlap --overlaps "$T/a.paf" -p "$T/c" "$S/pb_0001.fastq"
    for f in repeats.tsv gfa units.fa components.tsv; do
        cmp "$T/a.$f" "$T/b.$f" || fail "$f differs between 1 and 2 threads"
        cmp "$T/a.$f" "$T/c.$f" || fail "$f differs when the overlaps are read back"
    done
    cmp "$T/a.paf" "$T/b.paf"
    [ "$(wc -l < "$T/a.repeats.tsv")" -ge 4 ]
}

@test "overlap: the output files: reads as GFA segments (LN, RC), dovetail links, components by read" {
    sim
    seqgpu scc -q -g overlap -p "$T/o" --write-graph "$T/all.gfa" "$S/pb_0001.fastq"
    run python3 - "$T/o" "$T/all.gfa" "$S/pb_0001.fastq" <<'PY'
import sys
pre, whole, fq = sys.argv[1:]
lines = open(fq).read().split('\n')
reads = {lines[i][1:].split()[0]: lines[i + 1] for i in range(0, len(lines) - 3, 4)}
gfa = [l.rstrip('\n').split('\t') for l in open(pre + '.gfa')]
kinds = [f[0] for f in gfa]
assert kinds[0] == 'H' and kinds.index('L') > max(i for i, k in enumerate(kinds) if k == 'S'), 'S lines first'
segs = {f[1]: f for f in gfa if f[0] == 'S'}
for name, f in segs.items():
    tags = dict(t.split(':', 1) for t in f[3:])
    assert f[2] == reads[name].upper(), name
    assert tags['LN'] == 'i:%d' % len(reads[name]), name
    assert tags['LB'].startswith('Z:repeat'), name
# RC: the bases of the reads a read stands for (itself and those it contains; 0 for a contained one), in the same repeat
rc, ln = {}, {}
for f in segs.values():
    tags = dict(t.split(':', 1) for t in f[3:])
    rc[tags['LB']] = rc.get(tags['LB'], 0) + int(tags['RC'][2:])
    ln[tags['LB']] = ln.get(tags['LB'], 0) + int(tags['LN'][2:])
assert rc == ln, (rc, ln)
flip = {'+': '-', '-': '+'}
seen = set()
for f in gfa:
    if f[0] != 'L':
        continue
    a, ao, b, bo, cigar = f[1:6]
    assert a in segs and b in segs and cigar[-1] == 'M' and 0 < int(cigar[:-1]) <= min(len(reads[a]), len(reads[b])), f
    assert (a, ao, b, bo) not in seen and (b, flip[bo], a, flip[ao]) not in seen, 'link twice'
    seen.add((a, ao, b, bo))
comp = [l.split('\t') for l in open(pre + '.components.tsv').read().split('\n') if l]
assert comp[0] == ['read', 'component'], comp[0]
assert sorted(c[0] for c in comp[1:]) == sorted(segs), 'components.tsv and the GFA hold the same reads'
units = [l for l in open(pre + '.units.fa') if l.startswith('>')]
assert len(units) == len(open(pre + '.repeats.tsv').read().split('\n')) - 2 and all(' length=' in u for u in units)
# the whole graph: every read, without its bases, and the links of the repeats among them
whole = [l.rstrip('\n').split('\t') for l in open(whole)]
wsegs = {f[1]: f for f in whole if f[0] == 'S'}
assert len(wsegs) == len(reads) and all(f[2] == '*' for f in wsegs.values())
assert seen <= {tuple(f[1:5]) for f in whole if f[0] == 'L'}
print('ok')
PY
    assert_output ok
}

@test "overlap: reads shorter than --min-overlap are skipped and counted in --stats" {
    sim
    seqgpu scc -q -g overlap --min-overlap 8000 -p "$T/o" --stats "$T/s.json" "$S/pb_0001.fastq"
    want=$(awk 'NR % 4 == 2 && length($0) < 8000 {n++; b += length($0)} END {print n, b}' "$S/pb_0001.fastq")
    run python3 -c "import json; s = json.load(open('$T/s.json')); print(s['short_reads_skipped'], s['short_bases_skipped'])"
    assert_output "$want"
    [ "${want%% *}" -gt 100 ]
}

@test "overlap: long reads inside tandem arrays: the arrays found, memory linear in the reads (not their square)" {
    # two reads of 300 kb in each of two arrays (171 bp, perfect copies; 1 kb,
    # copies 2% diverged): every occurrence of a unit's minimizer pairs with
    # every other, which once took 6.7 GB here (and 24 GB and more for 1 Mb reads)
    python3 - "$T/r.fa" <<'PY'
import random, sys
rnd = random.Random(3)
sub = {'A': 'CGT', 'C': 'AGT', 'G': 'ACT', 'T': 'ACG'}
with open(sys.argv[1], 'w') as f:
    for name, p, div in (('a', 171, 0.0), ('b', 1000, 0.02)):
        unit = ''.join(rnd.choices('ACGT', k=p))
        arr = ''.join(''.join(rnd.choice(sub[c]) if rnd.random() < div else c for c in unit) for _ in range(400000 // p + 1))
        for i, off in enumerate((0, 77777)):
            f.write('>%s%d\n%s\n' % (name, i, arr[off:off + 300000]))
PY
    if [ -z "${SEQGPU_SANITIZER:-}" ]; then # sanitizers reserve more address space than the limit
        run bash -c "ulimit -v 1500000 && exec '$SEQGPU' scc -q -t 2 -g overlap -p '$T/o' --stats '$T/s.json' '$T/r.fa'"
    else
        run seqgpu scc -q -t 2 -g overlap -p "$T/o" --stats "$T/s.json" "$T/r.fa"
    fi
    assert_success
    [ "$(cut -f 2,3,5 "$T/o.repeats.tsv" | sed 1d | sort -k3,3n)" = "$(printf 'tandem\t2\t171\ntandem\t2\t1000')" ] ||
        fail "$(cat "$T/o.repeats.tsv")"
    [ "$(sed 1d "$T/o.components.tsv" | sort | cut -f 2 | uniq -c | wc -l)" -eq 2 ]
    [ "$(sed 1d "$T/o.components.tsv" | awk '{print substr($1, 1, 1), $2}' | sort -u | wc -l)" -eq 2 ] ||
        fail "$(cat "$T/o.components.tsv")"
    # the memory bound holds for the normal build (ASan keeps freed memory in quarantine)
    if [ -z "${SEQGPU_SANITIZER:-}" ]; then
        run python3 -c "import json; s = json.load(open('$T/s.json')); print(s['peak_rss_bytes'] < 300 << 20, s['self_overlapping_reads'], s['peak_rss_bytes'])"
        assert_output --regexp '^True 4 '
    fi
}

@test "overlap: bad PAF lines are named with their file and line; no outputs are left" {
    printf '@a\n%s\n+\n%s\n@b\n%s\n+\n%s\n' "$(printf 'ACGT%.0s' $(seq 1000))" "$(printf 'IIII%.0s' $(seq 1000))" \
        "$(printf 'TTGCA%.0s' $(seq 800))" "$(printf 'IIIII%.0s' $(seq 800))" > "$T/r.fq"
    good='a\t4000\t100\t3000\t+\tb\t4000\t900\t3800\t2500\t2900\t0\tdv:f:0.05'
    check() { # line, message
        printf "$good\n$1\n" > "$T/bad.paf"
        run seqgpu scc -g overlap --overlaps "$T/bad.paf" -p "$T/o" "$T/r.fq"
        assert_failure 1
        assert_output --partial "'$T/bad.paf' line 2: $2"
        [ ! -e "$T/o.repeats.tsv" ] && [ ! -e "$T/o.gfa" ]
    }
    check 'a\t4000\t100\t3000\t+\tb\t4000\t900' "truncated: 8 columns where PAF has 12 or more"
    check 'a\t4000\t100\t3000\t+\tc\t4000\t900\t3800\t2500\t2900\t0' "read 'c' is not in the input"
    check 'a\t4000\t100\t4200\t+\tb\t4000\t900\t3800\t2500\t2900\t0' "100-4200 is outside read 'a' (4000 bases) or empty"
    check 'a\t4000\t100\t3000\t+\tb\t4000\t3800\t900\t2500\t2900\t0' "3800-900 is outside read 'b'"
    check 'a\t5000\t100\t3000\t+\tb\t4000\t900\t3800\t2500\t2900\t0' "read 'a' is 4000 bases long in the input but 5000 in the PAF"
    check 'a\t4000\t100\t3000\t+\ta\t4000\t100\t3000\t2900\t2900\t0' "read 'a' is matched onto itself at the same place (query equal to target)"
    check 'a\t4000\tx\t3000\t+\tb\t4000\t900\t3800\t2500\t2900\t0' "the start of read 'a' is not a number: 'x'"
    check 'a\t4000\t100\t3000\t*\tb\t4000\t900\t3800\t2500\t2900\t0' "the strand is '*'"
    check 'a\t4000\t100\t3000\t+\tb\t4000\t900\t3800\t9000\t3000\t60' "9000 matching bases (column 10) in a block of 3000 (column 11)"
    # a read over itself at an offset is a period's evidence, not an error; a missing PAF is
    printf "$good\na\t4000\t0\t3000\t+\ta\t4000\t1000\t4000\t2900\t3000\t0\n" > "$T/ok.paf"
    run seqgpu scc -g overlap --overlaps "$T/ok.paf" -p "$T/o" "$T/r.fq"
    assert_success
    run seqgpu scc -g overlap --overlaps "$T/missing.paf" -p "$T/o" "$T/r.fq"
    assert_failure 1
    assert_output --partial "cannot read '$T/missing.paf'"
}

@test "overlap: an empty PAF, or one of short reads only, is a warning and no repeats (exit 0); --write-overlaps writes them all" {
    printf '@a\n%s\n+\n%s\n@b\n%s\n+\n%s\n' "$(printf 'ACGT%.0s' $(seq 1000))" "$(printf 'IIII%.0s' $(seq 1000))" \
        "$(printf 'TTGCA%.0s' $(seq 800))" "$(printf 'IIIII%.0s' $(seq 800))" > "$T/r.fq"
    : > "$T/empty.paf"
    for paf in "$T/empty.paf" /dev/null; do
        run seqgpu scc -g overlap --overlaps "$paf" -p "$T/o" "$T/r.fq"
        assert_success
        assert_output --partial "warning: '$paf' holds no overlap between reads of 2000 bases or longer (--min-overlap): no repeats"
        [ "$(wc -l < "$T/o.repeats.tsv")" -eq 1 ]
    done
    # overlaps of reads shorter than --min-overlap only (skipped; read c is kept)
    printf '@c\n%s\n+\n%s\n' "$(printf 'GATTC%.0s' $(seq 1000))" "$(printf 'IIIII%.0s' $(seq 1000))" > "$T/c.fq"
    printf 'a\t4000\t100\t3000\t+\tb\t4000\t900\t3800\t2500\t2900\t0\n' > "$T/short.paf"
    run seqgpu scc -g overlap --min-overlap 4001 --overlaps "$T/short.paf" -p "$T/o" "$T/r.fq" "$T/c.fq"
    assert_success
    assert_output --partial "holds no overlap between reads of 4001 bases or longer"
    # a PAF with an overlap: no such warning; --write-overlaps writes internal and short overlaps too
    { printf 'a\t4000\t1500\t2500\t+\tb\t4000\t1500\t2500\t990\t1000\t0\n' # internal
      printf 'a\t4000\t2800\t4000\t+\tb\t4000\t0\t1200\t1190\t1200\t0\n'   # short
      printf 'a\t4000\t0\t4000\t+\tb\t4000\t0\t4000\t3900\t4000\t0\n'; } > "$T/one.paf"
    run seqgpu scc -g overlap --overlaps "$T/one.paf" --write-overlaps "$T/w.paf" --stats "$T/s.json" -p "$T/o" "$T/r.fq"
    assert_success
    refute_output --partial "holds no overlap"
    [ "$(wc -l < "$T/w.paf")" -eq 3 ] || fail "$(cat "$T/w.paf")"
    python3 -c "import json; s = json.load(open('$T/s.json')); assert (s['internal'], s['short'], s['containments']) == (1, 1, 1), s" ||
        fail "$(cat "$T/s.json")"
}

@test "overlap: reads named twice, an empty input, reads too short for any overlap" {
    printf '@a\nACGTACGT\n+\nIIIIIIII\n@a\nACGT\n+\nIIII\n' > "$T/dup.fq"
    run seqgpu scc -g overlap -p "$T/o" "$T/dup.fq"
    assert_failure 1
    assert_output --partial "two reads are named 'a' (records 1 and 2)"
    : > "$T/empty.fq"
    run seqgpu scc -q -g overlap -p "$T/e" "$T/empty.fq"
    assert_success
    [ "$(cat "$T/e.repeats.tsv")" = "$(printf 'id\tkind\treads\tbases\tperiod\tread_coverage\tcopies\tunit\tlength\tlength_min\tlength_max\tspanning_reads')" ]
    run seqgpu scc -q -g overlap -p "$T/s" --stats "$T/s.json" "$ROOT/examples/lambda_reads.fq.gz"
    assert_success
    python3 -c "import json; s = json.load(open('$T/s.json')); assert s['reads'] == 0 and s['short_reads_skipped'] > 0, s" ||
        fail "$(cat "$T/s.json")"
}

@test "overlap: the repeats picture (a panel per repeat, its reads as the cycle) and MultiQC's table; no spectrum" {
    sim
    run seqgpu scc -g overlap -p "$T/o" --stats "$T/s.json" "$S/pb_0001.fastq"
    assert_success
    [ ! -e "$T/o.spectrum.svg" ] && [ ! -e "$T/o.spectrum_mqc.json" ] || fail "a k-mer spectrum from the overlap graph"
    refute_output --partial "spectrum"
    n=$(($(wc -l < "$T/o.repeats.tsv") - 1))
    [ "$n" -ge 4 ]
    [ "$(grep -c '<g class="repeat"' "$T/o.repeats.svg")" -eq "$n" ] || fail "panels: $(grep -c '<g class="repeat"' "$T/o.repeats.svg"), repeats $n"
    grep -q ' reads \xc2\xb7 \| reads · ' "$T/o.repeats.svg" || fail "the panels count reads"
    ! grep -q 'k-mers' "$T/o.repeats.svg" || fail "k-mers in the overlap graph's picture"
    [ "$(grep -vc '^#' "$T/o.repeats_mqc.tsv")" -eq $((n + 1)) ] || fail "MultiQC table: $(cat "$T/o.repeats_mqc.tsv")"
}

@test "overlap: interspersed repeats close no cycle: a 5 kb sequence twice, 300 kb apart, in 1 Mb" {
    need pbsim
    # once one repeat of ~600 reads spanning the 300 kb, period 8
    python3 - "$T/g.fa" <<'PY'
import random, sys
rnd = random.Random(5)
g = rnd.choices('ACGT', k=1000000)
rep = rnd.choices('ACGT', k=5000)
g[200000:205000] = rep
g[500000:505000] = rep
open(sys.argv[1], 'w').write('>g\n' + ''.join(g) + '\n')
PY
    (cd "$T" && pbsim --prefix pb --data-type CLR --depth 20 --length-mean 10000 --length-sd 3000 --length-min 1000 \
        --length-max 30000 --accuracy-mean 0.97 --accuracy-sd 0.01 --accuracy-min 0.95 --accuracy-max 0.99 \
        --model_qc "${PBSIM_MODELS:-/usr/share/pbsim/models}/model_qc_clr" --seed 1 g.fa > pbsim.log 2>&1)
    run seqgpu scc -g overlap -t 2 -p "$T/o" --stats "$T/s.json" --write-overlaps "$T/own.paf" "$T/pb_0001.fastq"
    assert_success
    [ "$(wc -l < "$T/o.repeats.tsv")" -eq 1 ] || fail "$(cat "$T/o.repeats.tsv")"
    # the reads that closed the long cycles are counted; the unique sequence on either side stays linked
    python3 -c "import json; s = json.load(open('$T/s.json')); assert s['long_cycle_reads'] > 50 and s['edges'] > 1000, s" ||
        fail "$(cat "$T/s.json")"
    # (minimap2's overlaps of the reads of the satellites genome, with its interspersed repeats: above)
}

@test "overlap: an overlap given twice counts once (the PAF twice over, each line as query and as target too)" {
    sim
    zcat "$S/mm.paf.gz" > "$T/once.paf"
    # the same overlaps concatenated, and with every line swapped (chunked all-vs-all, --dual=yes)
    cat "$T/once.paf" "$T/once.paf" > "$T/twice.paf"
    awk -F'\t' -v OFS='\t' '{t = $1; $1 = $6; $6 = t; t = $2; $2 = $7; $7 = t; t = $3; $3 = $8; $8 = t; t = $4; $4 = $9; $9 = t; print}' \
        "$T/once.paf" > "$T/swapped.paf"
    cat "$T/once.paf" "$T/swapped.paf" > "$T/dual.paf"
    for x in once twice dual; do
        seqgpu scc -q -g overlap --overlaps "$T/$x.paf" -p "$T/$x" --stats "$T/$x.json" "$S/pb_0001.fastq"
    done
    for x in twice dual; do
        for f in repeats.tsv gfa units.fa components.tsv; do
            cmp "$T/once.$f" "$T/$x.$f" || fail "$x: $f differs"
        done
        python3 - "$T/once.json" "$T/$x.json" <<'PY' || fail "$x: $(cat "$T/$x.json")"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for k in ('dovetails', 'containments', 'internal', 'short', 'coverage', 'contained_reads', 'self_overlapping_reads'):
    assert a[k] == b[k], k
assert b['duplicate_overlaps'] == b['overlaps'] - a['overlaps'] + a['duplicate_overlaps'], (a, b)
PY
    done
    [ "$(sed 1d "$T/once.repeats.tsv" | wc -l)" -ge 3 ]
}

@test "overlap: reads that all lie in an array: the coverage from the array's reads, never 0 copies" {
    # 60 reads of 10 kb from one 200 kb array of period 171 (copies 2% diverged, so reads of one place
    # overlap closer than reads of two): coverage 3, about 1170 copies, once 0.00 and 0.00; and a
    # single read of 1 Mb, an array of 5848 copies (coverage 1: one read)
    python3 - "$T" <<'PY'
import random, sys
rnd = random.Random(7)
sub = {'A': 'CGT', 'C': 'AGT', 'G': 'ACT', 'T': 'ACG'}
u = ''.join(rnd.choices('ACGT', k=171))
def copy(d):
    out = []
    for b in u:
        x = rnd.random()
        out.append(rnd.choice(sub[b]) if x < d * 0.8 else b + rnd.choice('ACGT') if x < d * 0.9 else '' if x < d else b)
    return ''.join(out)
arr = ''.join(copy(0.02) for _ in range(200000 // 171 + 1))[:200000]
with open(sys.argv[1] + '/enriched.fa', 'w') as f:
    for i in range(60):
        s = rnd.randrange(0, len(arr) - 10000)
        f.write('>r%d\n%s\n' % (i, arr[s:s + 10000]))
open(sys.argv[1] + '/bac.fa', 'w').write('>one\n' + ''.join(copy(0.02) for _ in range(1000000 // 171 + 1))[:1000000] + '\n')
PY
    run seqgpu scc -g overlap -t 2 -p "$T/e" --stats "$T/e.json" "$T/enriched.fa"
    assert_success
    refute_output --partial "warning"
    run python3 - "$T/e.repeats.tsv" "$T/e.json" <<'PY'
import json, sys
rows = [l.split('\t') for l in open(sys.argv[1]).read().split('\n')[1:] if l]
s = json.load(open(sys.argv[2]))
assert len(rows) == 1 and rows[0][1] == 'tandem' and rows[0][4] == '171', rows
assert s['coverage_from'] == 'array reads' and 2.4 <= s['coverage'] <= 3.6, s['coverage']
assert 900 <= float(rows[0][6]) <= 1450, rows[0][6]
print('ok')
PY
    assert_output ok
    run seqgpu scc -g overlap -t 2 -p "$T/b" --stats "$T/b.json" "$T/bac.fa"
    assert_success
    assert_output --partial "warning: the read coverage cannot be told from these reads (fewer than 20 reads outside the tandem arrays"
    run python3 - "$T/b.repeats.tsv" "$T/b.json" <<'PY'
import json, sys
rows = [l.split('\t') for l in open(sys.argv[1]).read().split('\n')[1:] if l]
s = json.load(open(sys.argv[2]))
assert len(rows) == 1 and rows[0][4] == '171' and s['coverage'] == 1 and s['coverage_from'] == 'none', (rows, s)
assert abs(float(rows[0][6]) - 1000000 / 171) <= 0.03 * 1000000 / 171, rows[0][6]
print('ok')
PY
    assert_output ok
}

@test "overlap: reads below the identity the overlapper takes (pbsim's CLR default, 78%) are said to be, with what to do" {
    need pbsim
    python3 "$ROOT/tests/reference.py" satellites --seed 2 --length 200000 --arrays 171:30000:0.01 "$T/s" > /dev/null
    (cd "$T" && pbsim --prefix pb --data-type CLR --depth 20 --length-mean 10000 --length-sd 3000 --length-min 1000 \
        --length-max 30000 --model_qc "${PBSIM_MODELS:-/usr/share/pbsim/models}/model_qc_clr" --seed 1 s.genome.fa > pbsim.log 2>&1)
    run seqgpu scc -g overlap -t 2 -p "$T/o" --stats "$T/s.json" "$T/pb_0001.fastq"
    assert_success
    assert_output --partial "of the overlaps that other overlaps imply were found"
    assert_output --partial "the reads' identity is below what the own overlapper finds overlaps at"
    assert_output --partial "Correct the reads first"
    python3 -c "import json; s = json.load(open('$T/s.json')); assert s['implied_overlaps_found'] < 0.9 * s['implied_overlaps'], s" ||
        fail "$(cat "$T/s.json")"
}

@test "overlap: -x clr, ont and hifi on pbsim reads of their kind: every array longer than 1.5 reads, its period within 3%, its length within a quarter" {
    sim
    # ONT: pbsim's CLR model at 92%, deletions the most; HiFi: pbsim's CCS model (98%), reads of 12 kb
    (cd "$T" && pbsim --prefix ont --data-type CLR --depth 15 --length-mean 12000 --length-sd 5000 --length-min 1000 \
        --length-max 50000 --accuracy-mean 0.92 --accuracy-sd 0.03 --accuracy-min 0.85 --difference-ratio 23:31:46 \
        --model_qc "${PBSIM_MODELS:-/usr/share/pbsim/models}/model_qc_clr" --seed 1 "$S/sat.genome.fa" > ont.log 2>&1 &&
     pbsim --prefix hifi --data-type CCS --depth 15 --length-mean 12000 --length-sd 3000 --length-min 2000 \
        --length-max 30000 --model_qc "${PBSIM_MODELS:-/usr/share/pbsim/models}/model_qc_ccs" --seed 1 "$S/sat.genome.fa" > hifi.log 2>&1)
    ln -s "$S/pb_0001.fastq" "$T/clr_0001.fastq"
    ln -s "$S/pb_0001.maf" "$T/clr_0001.maf"
    for x in clr ont hifi; do
        run seqgpu scc -x $x -t 2 -p "$T/$x" --stats "$T/$x.json" "$T/${x}_0001.fastq"
        assert_success
        refute_output --partial "warning"
        run python3 "$ROOT/tests/reference.py" satcheck --maf "$T/${x}_0001.maf" --arrays "$S/sat.arrays.tsv" "$T/$x"
        assert_line ok
        run python3 - "$S/sat.arrays.tsv" "$T/$x.repeats.tsv" "$T/$x.json" "$x" <<'PY'
import json, sys
arrays = [l.split('\t') for l in open(sys.argv[1]).read().split('\n')[1:] if l]
reps = [l.split('\t') for l in open(sys.argv[2]).read().split('\n')[1:] if l]
s, x = json.load(open(sys.argv[3])), sys.argv[4]
k, w, hpc = {'clr': (19, 5, True), 'ont': (17, 8, True), 'hifi': (19, 10, False)}[x]
assert (s['minimizers']['k'], s['minimizers']['w'], s['minimizers']['hpc']) == (k, w, hpc), s['minimizers']
assert s['min_identity'] == (0.9 if x == 'hifi' else 0.8) and s['preset'] == x, (s['min_identity'], s['preset'])
for a in arrays:
    p, length = int(a[2]), int(a[1]) - int(a[0])
    if length < 15000:
        continue
    got = [r for r in reps if abs(int(r[4]) - p) <= 0.03 * p]
    assert len(got) == 1, (x, p, got)
    assert abs(int(got[0][8]) - length) <= 0.25 * length, (x, p, got[0][8], length)
print('ok')
PY
        assert_output ok
    done
    # -x sr is the de Bruijn graph's: the same run as without it
    seqgpu scc -q -p "$T/d" "$ROOT/examples/lambda_reads.fq.gz"
    seqgpu scc -q -x sr -p "$T/sr" "$ROOT/examples/lambda_reads.fq.gz"
    for f in repeats.tsv gfa units.fa components.tsv; do cmp "$T/d.$f" "$T/sr.$f"; done
    # a preset of one graph with the other's options is refused
    run seqgpu scc -x hifi -g dbg "$T/clr_0001.fastq"
    assert_failure 1
    assert_output --partial "-x hifi is a preset of -g overlap"
    run seqgpu scc -x sr --min-identity 0.9 "$T/clr_0001.fastq"
    assert_failure 1
    assert_output --partial "--min-identity is an option of -g overlap"
    run seqgpu scc -x clr -k 21 "$T/clr_0001.fastq"
    assert_failure 1
    run seqgpu scc -x pacbio "$T/clr_0001.fastq"
    assert_failure 1
    assert_output --partial "invalid preset 'pacbio' (hifi, ont, clr or sr)"
}
