#!/usr/bin/env bats
# The workflow engines that CI can install run seqgpu for real: Debian's
# Snakemake runs examples/snakemake/Snakefile (find and scc scattered in
# parts, gathered, compared with one run), and cwltool validates and runs the
# CWL CommandLineTools of examples/cwl/ on the bundled data. The gathered
# outputs must be one run's, byte for byte. This build's seqgpu is the one
# on PATH.

load test_helper

setup_file() {
    # the engines are what is under test: the sanitizer runs check the same commands in nextflow.bats
    [ -z "${SEQGPU_SANITIZER:-}" ] || skip_file "the workflow engines are checked in the normal run"
}

setup() {
    T=$BATS_TEST_TMPDIR
    skip_if_file_skipped
    mkdir -p "$T/bin"
    ln -sf "$SEQGPU" "$T/bin/seqgpu"
    export PATH="$T/bin:$PATH"
}

@test "snakemake --cores 2: find and scc in 3 parts, gathered, equal one run byte for byte; a difference fails it" {
    need snakemake samtools bgzip
    run snakemake --cores 2 -q -s "$ROOT/examples/snakemake/Snakefile" -d "$T/w" --config parts=3
    assert_success
    # the Snakefile's own comparison, and again here
    [ -f "$T/w/find.same" ] && [ -f "$T/w/scc.same" ] || fail "no comparison written"
    [ "$(ls "$T"/w/find/part*.bed | wc -l)" -eq 3 ] && [ "$(ls "$T"/w/scc/part*.counts | wc -l)" -eq 3 ]
    seqgpu find -q -f "$ROOT/examples/enzymes.tsv" "$LAMBDA" > "$T/one.bed"
    cmp "$T/one.bed" "$T/w/find/gathered.bed"
    [ "$(wc -l < "$T/one.bed")" -gt 100 ] || fail "too few hits to test with"
    seqgpu scc -q -p "$T/one" "$ROOT/examples/tandem_reads.fq.gz"
    for f in repeats.tsv gfa units.fa components.tsv; do cmp "$T/one.$f" "$T/w/scc/gathered.$f"; done
    # a gathered output that differs from the one run's fails the workflow
    echo extra >> "$T/w/find/gathered.bed"
    rm "$T/w/find.same"
    run snakemake --cores 2 -q -s "$ROOT/examples/snakemake/Snakefile" -d "$T/w" find.same --config parts=3
    assert_failure
    assert_output --partial "differs from find/one.bed"
}

@test "cwltool --validate: both tools are valid CWL" {
    need cwltool
    for t in seqgpu-find seqgpu-scc; do
        run cwltool --validate "$ROOT/examples/cwl/$t.cwl"
        assert_success
        assert_output --partial "is valid CWL"
    done
}

@test "cwltool runs find on the bundled genome and in 2 parts of its BGZF copy: one run's BED" {
    need cwltool bgzip samtools
    cd "$T"
    run cwltool --quiet --outdir one "$ROOT/examples/cwl/seqgpu-find.cwl" --sequences "$LAMBDA" --motifs "$ROOT/examples/enzymes.tsv"
    assert_success
    seqgpu find -q -f "$ROOT/examples/enzymes.tsv" "$LAMBDA" > plain.bed
    cmp plain.bed one/sites.bed
    python3 -c "import json, sys; assert list(json.load(open(sys.argv[1]))['data']) == ['sites']" one/sites_mqc.json
    zcat "$LAMBDA" | bgzip > g.fa.gz && samtools faidx g.fa.gz
    for i in 1 2; do
        run cwltool --quiet --outdir p$i "$ROOT/examples/cwl/seqgpu-find.cwl" --sequences g.fa.gz --motifs "$ROOT/examples/enzymes.tsv" \
            --part $i/2 --name part$i
        assert_success
    done
    cat p1/part1.bed p2/part2.bed | cmp plain.bed -
}

@test "cwltool runs scc on the bundled reads in 2 parts and gathers them: one run's report" {
    need cwltool
    cd "$T"
    reads=$ROOT/examples/tandem_reads.fq.gz
    for i in 1 2; do
        run cwltool --quiet --outdir p$i "$ROOT/examples/cwl/seqgpu-scc.cwl" --reads "$reads" --part $i/2 --counts_out p$i.counts
        assert_success
        [ -s p$i/p$i.counts ] && [ ! -e p$i/repeats.repeats.tsv ]
    done
    run cwltool --quiet --outdir all "$ROOT/examples/cwl/seqgpu-scc.cwl" --reads p1/p1.counts --reads p2/p2.counts --counts --prefix tandem
    assert_success
    seqgpu scc -q -p plain "$reads"
    for f in repeats.tsv gfa units.fa components.tsv; do
        cmp plain.$f all/tandem.$f
    done
    [ "$(wc -l < plain.repeats.tsv)" -gt 1 ] || fail "no repeats to test with"
}
