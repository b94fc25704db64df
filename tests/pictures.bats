#!/usr/bin/env bats
# What people look at: scc's pictures (the k-mer spectrum, the repeats),
# the MultiQC files of both commands read by Debian's multiqc, and find's
# --summary tables. The pictures are checked as a reader sees them
# (tests/pictures.py: markers against the axes' own ticks, labels against
# each other), rendered with rsvg-convert and parsed with xmllint.

load test_helper

TANDEM=$ROOT/examples/tandem_reads.fq.gz
PICTURES="python3 $ROOT/tests/pictures.py"

# valid XML that rsvg-convert renders: SVG PNG WIDTH [HEIGHT]
renders() {
    xmllint --noout "$1" || fail "$1 is not well-formed XML"
    rsvg-convert "$1" -o "$2" || fail "rsvg-convert cannot render $1"
    # the PNG's own width and height (IHDR)
    run python3 -c "import struct, sys; print(*struct.unpack('>II', open(sys.argv[1], 'rb').read()[16:24]))" "$2"
    assert_success
    [ "${output% *}" = "$3" ] || fail "$2 is $output pixels, not $3 wide"
    [ -z "${4:-}" ] || [ "${output#* }" = "$4" ] || fail "$2 is $output pixels, not $3 x $4"
}

# a GFA graph: a bubble cycle of 4 segments, a ring of 150 with chords, 60
# self-loops of 10 to 69 bases at depths 5 to 64 (more than 50 repeats), and
# 300 unique segments at depth 3
gfa_graph() {
    python3 - "$1" <<'PY'
import random, sys
random.seed(1)
S, L = [], []
def seg(name, n, depth):
    S.append(f"S\t{name}\t{''.join(random.choice('ACGT') for _ in range(n))}\tKC:i:{n * depth}")
for n in 'abcd':
    seg(n, 40, 30)
L += [f"L\t{a}\t+\t{b}\t+\t0M" for a, b in ('ab', 'bc', 'bd', 'ca', 'da')]
for i in range(150):
    seg(f'r{i}', 20 + i % 7, 15)
    L.append(f"L\tr{i}\t+\tr{(i + 1) % 150}\t+\t0M")
L += [f"L\tr{i}\t+\tr{(i + 37) % 150}\t+\t0M" for i in range(0, 150, 10)]
for i in range(60):
    seg(f't{i}', 10 + i, 5 + i)
    L.append(f"L\tt{i}\t+\tt{i}\t+\t0M")
for i in range(300):
    seg(f'u{i}', 200, 3)
open(sys.argv[1], 'w').write('H\tVN:Z:1.0\n' + '\n'.join(S + L) + '\n')
PY
}

@test "scc's spectrum: markers and data on their bins and ticks, labels apart; repeats the longest first; all render" {
    need xmllint rsvg-convert
    run seqgpu scc -q -p "$T/t" --stats "$T/t.json" "$TANDEM"
    assert_success
    renders "$T/t.spectrum.svg" "$T/s.png" 800 500
    renders "$T/t.repeats.svg" "$T/r.png" 1200
    renders "$T/t.landscape.svg" "$T/l.png" 900 620
    run $PICTURES spectrum "$T/t.spectrum.svg" "$T/t.json"
    assert_output ok
    run $PICTURES repeats "$T/t.repeats.svg" "$T/t.repeats.tsv"
    assert_output ok
    run $PICTURES landscape "$T/t.landscape.svg" "$T/t.repeats.tsv"
    assert_output ok
    # arrays of periods 1 to 200 with errors: a trough, a peak, a tail of repeats
    $REF sim --seed 3 --periods 1,2,3,5,8,13,21,34,55,89,144,200 --errors 0.005 "$T/sim"
    run seqgpu scc -q -p "$T/sim" --stats "$T/sim.json" "$T/sim.reads.fq"
    assert_success
    renders "$T/sim.spectrum.svg" "$T/sim.png" 800 500
    run $PICTURES spectrum "$T/sim.spectrum.svg" "$T/sim.json"
    assert_output ok
    run $PICTURES repeats "$T/sim.repeats.svg" "$T/sim.repeats.tsv"
    assert_output ok
    run $PICTURES landscape "$T/sim.landscape.svg" "$T/sim.repeats.tsv"
    assert_output ok
    # a threshold given with -c, below the peak
    run seqgpu scc -q -c 5 -p "$T/c5" --stats "$T/c5.json" "$T/sim.reads.fq"
    assert_success
    run $PICTURES spectrum "$T/c5.spectrum.svg" "$T/c5.json"
    assert_output ok
    grep -q 'threshold 5 (-c)' "$T/c5.spectrum.svg"
    # inputs whose names do not fit a title: cut, and nothing runs out of the picture
    for i in 1 2 3; do cp "$TANDEM" "$T/sample_${i}_sequenced_on_a_long_afternoon_R1.fastq.gz"; done
    run seqgpu scc -q -p "$T/long" --stats "$T/long.json" "$T"/sample_*
    assert_success
    run $PICTURES spectrum "$T/long.spectrum.svg" "$T/long.json"
    assert_output ok
    run $PICTURES repeats "$T/long.repeats.svg" "$T/long.repeats.tsv"
    assert_output ok
    run $PICTURES landscape "$T/long.landscape.svg" "$T/long.repeats.tsv"
    assert_output ok
}

@test "scc's spectrum without a clear peak (lambda's 2,000 reads) says so; no repeats is a picture too" {
    need xmllint rsvg-convert
    run seqgpu scc -q -p "$T/l" --stats "$T/l.json" "$ROOT/examples/lambda_reads.fq.gz"
    assert_success
    renders "$T/l.spectrum.svg" "$T/l.png" 800 500
    run $PICTURES spectrum "$T/l.spectrum.svg" "$T/l.json"
    assert_output ok
    grep -q 'no single-copy peak: coverage taken as 1' "$T/l.spectrum.svg"
    ! grep -q 'class="coverage"' "$T/l.spectrum.svg" || fail "a coverage marked without a peak"
    renders "$T/l.repeats.svg" "$T/lr.png" 1200
    grep -q 'no repeats' "$T/l.repeats.svg"
    renders "$T/l.landscape.svg" "$T/ll.png" 900 620
    grep -q 'no repeats' "$T/l.landscape.svg"
}

@test "scc on a GFA graph: the spectrum of its segments' depths at their median; 24 of 62 repeats drawn, chords too" {
    need xmllint rsvg-convert
    gfa_graph "$T/graph.gfa"
    run seqgpu scc -q -p "$T/g" "$T/graph.gfa"
    assert_success
    [ "$(($(wc -l < "$T/g.repeats.tsv") - 1))" -eq 62 ]
    renders "$T/g.repeats.svg" "$T/g.png" 1200
    run $PICTURES repeats "$T/g.repeats.svg" "$T/g.repeats.tsv"
    assert_output ok
    run $PICTURES landscape "$T/g.landscape.svg" "$T/g.repeats.tsv"
    assert_output ok
    renders "$T/g.spectrum.svg" "$T/gs.png" 800 500
    run python3 - "$T/graph.gfa" "$T/g.spectrum.svg" "$T/g.repeats.svg" "$T/g.repeats.tsv" <<'PY'
import re, sys
segs = [l.split('\t') for l in open(sys.argv[1]) if l.startswith('S')]
# the k-mer-weighted median of the segments' depths (no overlaps: a k-mer a base)
d = sorted((int(s[3][5:]) / len(s[2]), len(s[2])) for s in segs)
half, acc = sum(w for _, w in d) / 2, 0
for depth, w in d:
    acc += w
    if acc >= half:
        break
svg = open(sys.argv[2]).read()
cov = re.search(r'class="coverage" data-count="([\d.]+)"', svg)
assert cov and abs(float(cov.group(1)) - depth) < 1e-3, (cov and cov.group(1), depth)
assert 'k-mer depths of the graph graph.gfa' in svg and 'class="threshold"' not in svg and 'class="trough"' not in svg
# the bubble cycle's 4 arcs and its 2 links that leave the circle's order; the ring of 150 is not drawn
import xml.etree.ElementTree as ET
rows = [l.split('\t') for l in open(sys.argv[4])][1:]
panels = {g.get('data-id'): g for g in ET.parse(sys.argv[3]).getroot().iter('{http://www.w3.org/2000/svg}g')
          if g.get('class') == 'repeat'}
def count(g, cls):
    return sum(e.get('class') == cls for e in g.iter())
bubble = panels[[r[0] for r in rows if r[2] == '4'][0]]
assert count(bubble, 'unitig') == 4 and count(bubble, 'link') == 2, ET.tostring(bubble)
ring = panels[[r[0] for r in rows if r[2] == '150'][0]]
assert count(ring, 'unitig') == 0 and any('150 unitigs:' in (e.text or '') for e in ring.iter()), ET.tostring(ring)
print('ok')
PY
    assert_output ok
}

@test "names that are not XML (& < > \" and a byte that is not UTF-8): valid SVG, valid MultiQC JSON" {
    need xmllint
    name=$(printf '%s/a&b<c>"d\377' "$T")
    zcat "$TANDEM" > "$name.fq"
    run seqgpu scc -q -p "$T/odd" --stats "$T/odd.json" "$name.fq"
    assert_success
    xmllint --noout "$T/odd.spectrum.svg"
    xmllint --noout "$T/odd.repeats.svg"
    grep -q 'a&amp;b&lt;c&gt;&quot;d' "$T/odd.spectrum.svg"
    run seqgpu find -q -m AAG --stats "$T/f.json" -o "$T/f.bed" "$name.fq"
    assert_success
    run seqgpu find -q -m AAG --stats "$name.json" -o "$T/f.bed" "$name.fq"
    assert_success
    run python3 -c "import json, sys; d = json.load(open(sys.argv[1]))['data']; print(list(d) == ['a&b<c>\"d\udcff'])" "$name""_mqc.json"
    assert_output True
    python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$T/odd.spectrum_mqc.json"
}

@test "scc -p PREFIX.gz: the pictures and MultiQC files stay plain, beside the compressed outputs" {
    need xmllint
    run seqgpu scc -q -p "$T/s.gz" --stats "$T/s.json" "$TANDEM"
    assert_success
    for f in spectrum.svg repeats.svg landscape.svg spectrum_mqc.json repeats_mqc.tsv; do
        [ -f "$T/s.$f" ] || fail "no s.$f"
        [ ! -e "$T/s.$f.gz" ] || fail "s.$f.gz"
    done
    xmllint --noout "$T/s.spectrum.svg"
    python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$T/s.spectrum_mqc.json"
    gzip -t "$T/s.repeats.tsv.gz"
    # the same pictures as a plain run's
    seqgpu scc -q -p "$T/p" "$TANDEM"
    cmp "$T/p.spectrum.svg" "$T/s.spectrum.svg"
    cmp "$T/p.repeats.svg" "$T/s.repeats.svg"
    cmp "$T/p.landscape.svg" "$T/s.landscape.svg"
}

@test "the new outputs: with the others or none, never over an input; MultiQC files only with --stats; none with --edges" {
    # without --stats: the pictures, no MultiQC files
    run seqgpu scc -q -p "$T/a" "$TANDEM"
    assert_success
    [ -s "$T/a.spectrum.svg" ] && [ -s "$T/a.repeats.svg" ]
    [ ! -e "$T/a.spectrum_mqc.json" ] && [ ! -e "$T/a.repeats_mqc.tsv" ]
    # an input named as one of them is refused before anything is written
    zcat "$TANDEM" > "$T/b.spectrum.svg"
    cp "$T/b.spectrum.svg" "$T/b.orig"
    run seqgpu scc -q -p "$T/b" "$T/b.spectrum.svg"
    assert_failure 1
    assert_output --partial "PREFIX.spectrum.svg '$T/b.spectrum.svg' is the input"
    cmp "$T/b.spectrum.svg" "$T/b.orig"
    [ ! -e "$T/b.repeats.tsv" ] && [ ! -e "$T/b.repeats.svg" ]
    printf '>r\nACGT\n' > "$T/c_mqc.json"
    run seqgpu find -q -m ACG --stats "$T/c.json" -o "$T/c.bed" "$T/c_mqc.json"
    assert_failure 1
    assert_output --partial "is the input"
    [ ! -e "$T/c.json" ] && [ ! -e "$T/c.bed" ]
    # a run that fails on its input leaves none of them, and older ones as they were
    echo old > "$T/d.spectrum.svg"
    printf '@r\nACGT\n+\nII\n' > "$T/bad.fq"
    run seqgpu scc -q -p "$T/d" --stats "$T/d.json" "$TANDEM" "$T/bad.fq"
    assert_failure 1
    [ "$(cat "$T/d.spectrum.svg")" = old ]
    for f in repeats.svg repeats.tsv spectrum_mqc.json repeats_mqc.tsv json; do [ ! -e "$T/d.$f" ] || fail "d.$f written"; done
    # --edges: only the components
    printf '1\t2\n2\t1\n' > "$T/e.tsv"
    run seqgpu scc -q --edges "$T/e.tsv" -p "$T/e" --stats "$T/e.json"
    assert_success
    run ls "$T"/e.*
    assert_output "$(printf '%s\n' "$T/e.components.tsv" "$T/e.json" "$T/e.tsv")"
    run find "$T" -name '*.seqgpu-tmp.*'
    assert_output ""
}

@test "find --stats FILE: FILE less .json as FILE_mqc.json (plain, also for FILE.json.gz); none for - or a device" {
    run seqgpu find -q -m GAATTC -m GGTCTC --stats "$T/x.json" -o "$T/x.bed" "$LAMBDA" "$ROOT/examples/lambda_reads.fq.gz"
    assert_success
    # hits per motif of the run (sample x): the BED's, both inputs together
    seqgpu find -q -m GAATTC -m GGTCTC -F count "$LAMBDA" > "$T/one.count"
    seqgpu find -q -m GAATTC -m GGTCTC -F count "$ROOT/examples/lambda_reads.fq.gz" > "$T/two.count"
    run python3 - "$T/x_mqc.json" "$T/one.count" "$T/two.count" <<'PY'
import collections, json, sys
m = json.load(open(sys.argv[1]))
assert m['plot_type'] == 'bargraph' and m['parent_id'] == 'seqgpu', m
c = collections.Counter()
for f in sys.argv[2:]:
    for l in list(open(f))[1:]:
        rec, motif, hits = l.split('\t')
        c[motif] += int(hits)
assert m['data'] == {'x': dict(c)}, (m['data'], c)
print('ok')
PY
    assert_output ok
    run seqgpu find -q -m GAATTC --stats "$T/y.json.gz" -o "$T/y.bed" "$LAMBDA"
    assert_success
    python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$T/y_mqc.json"
    run seqgpu find -q -m GAATTC --stats "$T/z.stats" -o "$T/z.bed" "$LAMBDA"
    assert_success
    [ -s "$T/z.stats_mqc.json" ]
    run seqgpu find -q -m GAATTC --stats - -o "$T/m.bed" "$LAMBDA"
    assert_success
    run seqgpu find -q -m GAATTC --stats /dev/null -o "$T/n.bed" "$LAMBDA"
    assert_success
    [ ! -e /dev/null_mqc.json ] && [ ! -e "$T/-_mqc.json" ] && [ ! -e "./-_mqc.json" ]
}

@test "find --summary: hits per motif and strand as in the BED, per record as -F count; -q or not; needs -F count or --stats" {
    printf '>one\nGAATTCGGTCTCAAGAGACCGAATTC\n>two\nGAGACCTTGAATTC\n>three\nACGT\n' > "$T/g.fa"
    run seqgpu find -q -F count --summary -m GAATTC -m GGTCTC -o "$T/c.tsv" "$T/g.fa"
    assert_success
    assert_output "$(printf '%s\n' \
        'motif   strand  hits' \
        'GAATTC  .          3' \
        'GGTCTC  +          1' \
        'GGTCTC  -          2' \
        'all                6' \
        '' \
        'record  GAATTC  GGTCTC   all' \
        'one          2       2     4' \
        'two          1       1     2' \
        'three        0       0     0')"
    # the same numbers as the BED's strands and the count format's rows
    seqgpu find -q -m GAATTC -m GGTCTC "$T/g.fa" > "$T/g.bed"
    [ "$(awk '$4 == "GGTCTC" && $6 == "-"' "$T/g.bed" | wc -l)" -eq 2 ]
    [ "$(awk -F'\t' '$1 == "one" {s += $3} END {print s}' "$T/c.tsv")" -eq 4 ]
    # with --stats and BED, and without -q (the summary after the run's line)
    run seqgpu find --summary --stats "$T/s.json" -m GAATTC -o "$T/s.bed" "$T/g.fa"
    assert_success
    assert_line --index 0 --partial "[seqgpu find] 3 records"
    assert_line --index 1 "motif   strand  hits"
    # more records than a table holds: it says so
    python3 -c "print(''.join(f'>r{i}\nGAATTC\n' for i in range(21)))" > "$T/many.fa"
    run seqgpu find -q -F count --summary -m GAATTC -o "$T/m.tsv" "$T/many.fa"
    assert_success
    assert_line "all               21"
    assert_line "(21 records: more than 20, so no table of records; -F count has one)"
    # a record across chunks is one row
    python3 -c "print('>long\n' + 'GAATTCA' * 5000)" > "$T/long.fa"
    run seqgpu find -q -F count --summary --chunk-size 1000 -m GAATTC -o "$T/l.tsv" "$T/long.fa"
    assert_success
    assert_line --regexp '^long +5000 +5000$'
    run seqgpu find -q --summary -m GAATTC "$T/g.fa"
    assert_failure 1
    assert_output --partial "--summary goes with -F count or --stats"
}

@test "multiqc on a folder of find and scc outputs: a seqgpu section with hits, spectra and repeats, and their data" {
    need multiqc
    run multiqc --version
    assert_success
    # Debian 12's is 1.14; parent sections and these plot types are older than that
    run python3 -c "import sys; v = sys.argv[1].split()[-1].split('.'); print(int(v[0]) > 1 or int(v[1]) >= 14)" "$output"
    assert_output True
    mkdir "$T/results"
    cd "$T/results"
    seqgpu find -q -f "$ROOT/examples/enzymes.tsv" --stats lambda.find.json -o lambda.bed "$LAMBDA" \
        "$ROOT/examples/lambda_reads.fq.gz"
    # find --guide-summary: guides cut from lambda, their sites with bulges
    python3 -c "
import gzip, sys
seq = ''.join(l.strip() for l in gzip.open(sys.argv[1], 'rt') if not l.startswith('>'))
for i, at in enumerate((1000, 9000, 30000)): print('g%d\t%s' % (i, seq[at:at + 20]))" "$LAMBDA" > guides.tsv
    seqgpu find -q -f guides.tsv -M 3 --pam NNN --dna-bulge 1 --rna-bulge 1 --guide-summary guides_mqc.tsv -o /dev/null "$LAMBDA"
    seqgpu scc -q -p tandem --stats tandem.scc.json "$TANDEM"
    seqgpu scc -q -p lambda --stats lambda.scc.json "$ROOT/examples/lambda_reads.fq.gz" 2> /dev/null
    printf 'no_version_check: true\n' > "$T/mqc.yaml"
    run multiqc -q -c "$T/mqc.yaml" -o "$T/report" .
    assert_success
    refute_output --partial "rror"
    for id in seqgpu seqgpu_find_hits seqgpu_find_guides seqgpu_scc_spectrum seqgpu_scc_repeats; do
        grep -q "id=\"$id\"" "$T/report/multiqc_report.html" || fail "no section $id in the report"
    done
    d=$T/report/multiqc_data
    run python3 - "$d" lambda.find.json tandem.scc.json tandem.repeats.tsv guides_mqc.tsv <<'PY'
import csv, json, sys
d = sys.argv[1]
rows = lambda f: list(csv.reader(open(f'{d}/{f}'), delimiter='\t'))
# find: a row for the run (named as its --stats), a column per motif: the run's hits
hits = rows('multiqc_seqgpu_find_hits_plot.txt')
assert [r[0] for r in hits[1:]] == ['lambda.find'], hits
stats = json.load(open(sys.argv[2]))
for m in stats['motifs']:
    col = hits[0].index(m['name'])
    assert sum(int(float(r[col])) for r in hits[1:]) == m['hits'], m
# scc: each sample's spectrum, the --stats histogram over a run of counts (multiqc.bats checks the range)
spec = {r[0]: r for r in rows('multiqc_seqgpu_scc_spectrum_plot.txt')}
h = json.load(open(sys.argv[3]))['histogram']
got = {int(float(c)): int(float(v)) for c, v in zip(spec['Sample'][1:], spec['tandem'][1:]) if v != ''}
assert got == {c: h[c] for c in range(min(got), max(got) + 1)}, 'spectrum'
assert 'lambda' in spec
# the repeats table: tandem's rows, as in its repeats.tsv
rep = rows('multiqc_seqgpu_scc_repeats_table.txt')
tsv = {r[0]: r for r in csv.reader(open(sys.argv[4]), delimiter='\t')}
got = {r[0]: r for r in rep[1:]}
assert sorted(got) == sorted(f'tandem {i}' for i in tsv if i != 'id'), sorted(got)
for i, r in tsv.items():
    if i != 'id':
        g = dict(zip(rep[0], got[f'tandem {i}']))
        assert g['kind'] == r[1] and float(g['period']) == float(r[4]) and float(g['copies']) == float(r[6]), (g, r)
# the guides table: a row per guide, its sites and specificities as in the file
gt = rows('multiqc_seqgpu_find_guides_table.txt')
mine = [r for r in csv.reader(open(sys.argv[5]), delimiter='\t') if not r[0].startswith('#')]
assert [r[0] for r in gt[1:]] == [r[0] for r in mine[1:]], gt
for r in gt[1:]:
    g, m = dict(zip(gt[0], r)), dict(zip(mine[0], next(x for x in mine[1:] if x[0] == r[0])))
    for k in ('sites', 'mit_specificity', 'cfd_specificity', 'RNA_1mm'):
        assert float(g[k]) == float(m[k]), (k, g, m)
assert sum(float(r[gt[0].index('X_0mm')]) for r in gt[1:]) == 3, 'the on-targets'
print('ok')
PY
    assert_output ok
}

@test "the pictures in docs/ are what scc draws of examples/tandem_reads.fq.gz" {
    run seqgpu scc -q -p "$T/docs" "$TANDEM"
    assert_success
    for f in spectrum repeats landscape; do
        cmp -s "$T/docs.$f.svg" "$ROOT/docs/$f.svg" ||
            fail "docs/$f.svg is out of date: seqgpu scc -p x examples/tandem_reads.fq.gz makes x.$f.svg"
    done
}
