#!/usr/bin/env bats
# seqgpu scc -g overlap: satellite arrays found in simulated PacBio reads
# (pbsim) with their periods (against the truth and TRF), nothing from
# unique sequence; the own overlaps against minimap2 -x ava-pb's and the
# truth; minimap2's PAF taken instead; the output files; bad PAF input.

load test_helper

# A 400 kb genome with arrays of periods 6, 171 and 2000 (20 to 40 kb,
# 1-3% divergence between copies) and a short one (60 bp, 12 kb), in unique
# sequence; pbsim CLR reads at 20x, 10 kb mean, accuracy 0.85 to 0.99; and
# minimap2 -x ava-pb's overlaps of them. Made once for the file.
setup_file() {
    local d=$BATS_FILE_TMPDIR
    command -v pbsim >/dev/null && command -v minimap2 >/dev/null || return 0 # the tests say what is missing
    python3 "$BATS_TEST_DIRNAME/reference.py" satellites --seed 1 --length 400000 \
        --arrays 6:20000:0.02,171:30000:0.01,2000:40000:0.03,60:12000:0.02 "$d/sat" > /dev/null
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
    run seqgpu scc -g overlap -t 2 -p "$T/o" --stats "$T/s.json" "$S/pb_0001.fastq"
    assert_success
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
    run python3 "$ROOT/tests/reference.py" ovlcmp --maf "$S/pb_0001.maf" --arrays "$S/sat.arrays.tsv" "$T/own.paf" "$T/mm.paf"
    assert_success
    echo "$output"
    # outside the arrays (inside, any multiple of the period is an overlap, and the two pick different ones)
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
    assert int(tags['RC'][2:]) >= len(reads[name]), name   # itself and the reads it contains
    assert tags['LB'].startswith('Z:repeat'), name
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
    [ "$(cat "$T/e.repeats.tsv")" = "$(printf 'id\tkind\treads\tbases\tperiod\tread_coverage\tcopies\tunit\tlength')" ]
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
