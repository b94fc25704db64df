#!/usr/bin/env bats
# seqgpu scc on assemblies: told from the k-mer histogram (or --assembly),
# each copy counted once; the repeats placed by locus (PREFIX.loci.bed) and
# the table their sums. Simulated assemblies with planted arrays among
# interspersed repeats that are no arrays (direct and inverted pairs of 2-10
# kb, a 7-copy rRNA-like operon on both strands, an Alu-like family at 10%
# divergence): every array found with its unit, period and strand, nothing
# where the interspersed repeats are; the same loci from any thread count,
# in parts and in bounded memory; a real Klebsiella genome against TRF.

load test_helper

# a simulated assembly PREFIX.fa with its truth (tests/reference.py assembly), and scc's run of it
assembly() {
    $REF assembly "${@:2}" "$1"
    run seqgpu scc -p "$1" --stats "$1.json" "$1.fa"
    assert_success
}

locicheck() {
    run $REF locicheck --fasta "$1.fa" --arrays "$1.arrays.tsv" --interspersed "$1.interspersed.tsv" "$1"
    assert_line ok
}

@test "an assembly is told from its k-mers: each array by locus, with its unit, period and strand; interspersed repeats are none" {
    assembly "$T/a"
    assert_output --partial "an assembly: 83% of the k-mers are seen once"
    assert_output --partial "keeping k-mers seen >= 3 times (--min-copies)"
    assert_output --partial "6 loci of 6 repeats in the assembly"
    locicheck "$T/a"
    run python3 -c "import json, sys; s = json.load(open(sys.argv[1])); print(s['assembly'], s['coverage'], s['threshold'], s['loci'])" "$T/a.json"
    assert_output "True 1.0 3 6"
    # the table: loci and length at the end, the longest first; units.fa one line a unit
    assert_equal "$(head -1 "$T/a.repeats.tsv")" "$(printf 'id\tkind\tunitigs\tkmers\tperiod\tmean_count\tcopies\tunit\tlength\tloci')"
    run awk -F'\t' 'NR > 2 && $9 > prev {print} {prev = $9}' "$T/a.repeats.tsv"
    assert_output ""
    run awk '/^>/ {n = 0; next} {n++} n > 1' "$T/a.units.fa"
    assert_output ""
    grep -q '^>repeat1 kind=tandem period=700 copies=5.00 length=3502 loci=1$' "$T/a.units.fa"
    # copies that diverge 0.2-1%, arrays of 4 to 40 copies (some bridged, one whose unit reads the other way
    # round from its component), 500 Alu-like copies
    assembly "$T/b" --seed 2 --length 2000000 --alus 500 \
        --arrays 6:40:0.01,17:30:0.01,48:20:0.01,171:12:0.01,360:8:0.005,1000:6:0.01,2000:4:0.005,40:5:0.01,90:4:0.002
    locicheck "$T/b"
    # half the k-mers in copies (400 Alu-like ones 1% apart, 7 operons, pairs): no peak, so an assembly too;
    # --assembly says so
    $REF assembly --seed 3 --length 330000 --alus 400 --alu-divergence 0.01 --arrays 31:10:0,5:30:0 "$T/c"
    run seqgpu scc -p "$T/c" "$T/c.fa"
    assert_success
    assert_output --partial "an assembly: 48% of the k-mers are seen once"
    locicheck "$T/c"
    run seqgpu scc -p "$T/given" --assembly "$T/c.fa"
    assert_success
    refute_output --partial "an assembly:"
    refute_output --partial "warning"
    for f in loci.bed repeats.tsv units.fa; do cmp "$T/c.$f" "$T/given.$f"; done
}

@test "loci.bed: sorted, tabix reads it (scc -p x.gz indexes it), one run's from any thread count, in parts and spilled" {
    need tabix bgzip
    $REF assembly --seed 4 --records 3 "$T/a"
    seqgpu scc -q -t 1 -p "$T/t1" "$T/a.fa"
    for t in 2 3; do
        seqgpu scc -q -t $t -p "$T/t$t" "$T/a.fa"
        for f in loci.bed repeats.tsv units.fa gfa components.tsv repeats.svg landscape.svg; do
            cmp "$T/t1.$f" "$T/t$t.$f" || fail "-t $t: $f differs"
        done
    done
    [ "$(grep -vc '^#' "$T/t1.loci.bed")" -ge 6 ]
    # tabix: of a bgzipped copy, and the index scc builds of its own
    bgzip -c "$T/t1.loci.bed" > "$T/t1.loci.bed.gz"
    tabix -p bed "$T/t1.loci.bed.gz"
    seqgpu scc -q -p "$T/z.gz" "$T/a.fa"
    [ -s "$T/z.loci.bed.gz.tbi" ] || fail "no tabix index of z.loci.bed.gz"
    cmp <(zcat "$T/z.loci.bed.gz") "$T/t1.loci.bed"
    while IFS=$'\t' read -r chrom start end id rest; do
        run tabix "$T/z.loci.bed.gz" "$chrom:$((start + 1))-$end"
        assert_output --partial "$chrom	$start	$end	$id	"
        run tabix "$T/t1.loci.bed.gz" "$chrom:$((start + 1))-$end"
        assert_output --partial "$chrom	$start	$end	$id	"
    done < <(grep -v '^#' "$T/t1.loci.bed")
    # in parts (--counts reads the assembly the parts counted) and spilled under --max-memory
    for i in 1 2; do seqgpu scc -q --part $i/2 --counts-out "$T/p$i.counts" "$T/a.fa"; done
    seqgpu scc -q --counts -p "$T/parts" "$T/p1.counts" "$T/p2.counts"
    # the least limit the run takes (1M is refused, naming it): k-mers spilled in one pass
    run seqgpu scc -q --max-memory 1M -p "$T/mem" "$T/a.fa"
    assert_failure 1
    least=$(printf '%s\n' "$output" | sed -n 's/.*give --max-memory \([0-9]*M\) or more.*/\1/p')
    [ -n "$least" ] || fail "no least limit said: $output"
    seqgpu scc -q --max-memory "$least" --tmp-dir "$T" -p "$T/mem" "$T/a.fa" 2> /dev/null
    for f in loci.bed repeats.tsv units.fa repeats.svg; do
        cmp "$T/t1.$f" "$T/parts.$f" || fail "--counts: $f differs"
        cmp "$T/t1.$f" "$T/mem.$f" || fail "--max-memory: $f differs"
    done
}

@test "reads are no assembly: loci.bed holds its header alone, --assembly on them warns; an assembly read once (a pipe) says why it has no loci" {
    run seqgpu scc -p "$T/r" --stats "$T/r.json" "$ROOT/examples/tandem_reads.fq.gz"
    assert_success
    refute_output --partial "assembly"
    assert_equal "$(cat "$T/r.loci.bed")" "$(printf '#chrom\tstart\tend\trepeat\tscore\tstrand\tperiod\tcopies\tidentity')"
    run python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['assembly'])" "$T/r.json"
    assert_output False
    # --assembly on reads: said (each k-mer would be one copy), the run done as asked
    run seqgpu scc -p "$T/ra" --assembly "$ROOT/examples/tandem_reads.fq.gz"
    assert_success
    assert_output --partial "warning: --assembly, but the k-mer counts have a coverage peak at 16, as reads do"
    $REF assembly --seed 5 "$T/a"
    run bash -c "cat '$T/a.fa' | '$SEQGPU' scc -p '$T/pipe' -"
    assert_success
    assert_output --partial "warning: '-' cannot be read again, so the repeats of the assembly are not placed"
    assert_equal "$(cat "$T/pipe.loci.bed")" "$(cat "$T/r.loci.bed")"
    [ "$(head -1 "$T/pipe.repeats.tsv" | cut -f10)" = "" ] || fail "a loci column without loci"
    # --assembly is a de Bruijn graph's, of sequence
    run seqgpu scc -g overlap --assembly -p "$T/o" "$T/a.fa"
    assert_failure 1
    assert_output --partial "--assembly is an option of -g dbg"
    run seqgpu scc --assembly --edges "$T/a.fa" -p "$T/o"
    assert_failure 1
    assert_output --partial "--assembly takes an assembly's sequence, not a graph (--edges)"
    run seqgpu scc --assembly --part 1/2 --counts-out "$T/o.counts" "$T/a.fa"
    assert_failure 1
    printf 'H\tVN:Z:1.0\nS\ta\tACGTACGTAAAC\n' > "$T/g.gfa"
    run seqgpu scc --assembly -p "$T/o" "$T/g.gfa"
    assert_failure 1
    assert_output --partial "--assembly takes an assembly's sequence: '$T/g.gfa' is a GFA graph"
    [ ! -e "$T/o.loci.bed" ] && [ ! -e "$T/o.repeats.tsv" ]
}

@test "cycles broken by variants that copies share are bridged: an assembly's by default, reads' with --bridge" {
    # arrays of 4 to 6 copies 0.2-1% apart, whose cycles break at the default threshold without bridges
    $REF assembly --seed 2 --length 400000 --alus 150 --arrays 40:5:0.01,90:4:0.002,1000:6:0.01,2000:4:0.005 "$T/a"
    run seqgpu scc --bridge 0 -p "$T/none" "$T/a.fa"
    assert_success
    run $REF locicheck --fasta "$T/a.fa" --arrays "$T/a.arrays.tsv" --interspersed "$T/a.interspersed.tsv" "$T/none"
    assert_line --partial "is not found"
    run seqgpu scc -p "$T/a" --stats "$T/a.json" "$T/a.fa"
    assert_success
    assert_output --regexp "[0-9]+ bridges over the graph's breaks \\(each in the sequence 1 or more times\\)"
    locicheck "$T/a"
    # the same bridges, loci and tables from any thread count
    seqgpu scc -q -t 1 -p "$T/t1" "$T/a.fa"
    seqgpu scc -q -t 3 -p "$T/t3" "$T/a.fa"
    for f in loci.bed repeats.tsv gfa units.fa components.tsv; do
        cmp "$T/t1.$f" "$T/a.$f" && cmp "$T/t3.$f" "$T/a.$f" || fail "$f differs with the threads"
    done
    # reads of it at 30x: one array without bridges, the four with them (N a quarter of the k-mer coverage)
    $REF reads --coverage 30 "$T/a.fa" "$T/r"
    seqgpu scc -q -p "$T/r0" "$T/r.fq"
    seqgpu scc -q --bridge 5 -p "$T/r5" --stats "$T/r5.json" "$T/r.fq"
    run python3 - "$T/a.arrays.tsv" "$T/r0.repeats.tsv" "$T/r5.repeats.tsv" <<'PY'
import sys
want = [int(l.split('\t')[3]) for l in list(open(sys.argv[1]))[1:]]
for f in sys.argv[2:]:
    got = [int(l.split('\t')[4]) for l in list(open(f))[1:]]
    print(sum(any(abs(g - p) <= 0.03 * p for g in got) for p in want), 'of', len(want))
PY
    assert_success
    assert_line --index 0 "1 of 4"
    assert_line --index 1 "4 of 4"
    run python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['bridges'] > 0)" "$T/r5.json"
    assert_output True
    run seqgpu scc --bridge x "$T/r.fq"
    assert_failure 1
    assert_output --partial "invalid --bridge 'x'"
}

@test "a real genome (Klebsiella pneumoniae, kleborate-examples) is an assembly; its loci are TRF's arrays" {
    need trf xz
    local g=/usr/share/doc/kleborate/examples/data/Klebs_HS11286.fna.xz
    [ -s "$g" ] || fail "$g is missing (apt-get install kleborate-examples)"
    xz -dc "$g" > "$T/k.fa"
    run seqgpu scc -p "$T/k" "$T/k.fa"
    assert_success
    assert_output --partial "an assembly: 98% of the k-mers are seen once"
    (cd "$T" && trf k.fa 2 7 7 80 10 50 500 -h -ngs > k.trf.dat 2> /dev/null) || true
    run python3 "$ROOT/bench/trf_compare.py" --trf "$T/k.trf.dat" --loci "$T/k.loci.bed"
    # (bench/trf_bench.sh: 14 of TRF's 95 arrays, every period TRF's, nothing outside them)
    assert_line --regexp '^all	[1-9][0-9]/95 '
    assert_line --regexp '^period of the recalled: the same [0-9]+$'
    assert_line 'scc loci of 2+ copies outside every TRF array: 0 (and 0 whose copies are under 70% alike)'
}
