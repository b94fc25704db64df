#!/usr/bin/env bats
# MultiQC as users run it on a results folder, the flat (static image)
# report included: each find run is its own sample, named after --stats; the
# MultiQC files of both commands sit beside --stats; the k-mer spectrum that
# a flat report draws on linear axes covers the counts where its peak is.

load test_helper

TANDEM=$ROOT/examples/tandem_reads.fq.gz

setup() {
    T=$BATS_TEST_TMPDIR
    need multiqc
    printf 'no_version_check: true\n' > "$T/mqc.yaml"
}

@test "multiqc --flat: two find runs over one genome are two samples, each with its own hits" {
    mkdir "$T/r"
    seqgpu find -q -m GAATTC -m GGATCC --stats "$T/r/sites.json" -o "$T/r/sites.bed" "$LAMBDA"
    seqgpu find -q -m GAATTC -M 1 --stats "$T/r/near.json" -o "$T/r/near.bed" "$LAMBDA"
    run multiqc -q --flat --export -c "$T/mqc.yaml" -o "$T/report" "$T/r"
    assert_success
    # the flat report draws the plots as images (--export keeps them), and the data behind them
    ls "$T"/report/multiqc_plots/png/*seqgpu_find_hits_plot* > /dev/null || fail "no flat plot of the hits"
    run python3 - "$T/report/multiqc_data/multiqc_seqgpu_find_hits_plot.txt" "$T/r" <<'PY'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1]), delimiter='\t'))
got = {r[0]: dict(zip(rows[0][1:], r[1:])) for r in rows[1:]}
assert sorted(got) == ['near', 'sites'], got
for run in got:
    stats = json.load(open(f'{sys.argv[2]}/{run}.json'))
    for m in stats['motifs']:
        assert int(float(got[run][m['name']])) == m['hits'], (run, m)
    # the BED's rows, motif by motif
    bed = [l.split('\t')[3] for l in open(f'{sys.argv[2]}/{run}.bed')]
    assert {m: int(float(v)) for m, v in got[run].items() if v} == {m: bed.count(m) for m in set(bed)}, run
print('ok')
PY
    assert_output ok
}

@test "the MultiQC files go beside --stats, named after the run (find) or PREFIX (scc)" {
    mkdir "$T/out" "$T/qc"
    seqgpu find -q -m GAATTC --stats "$T/qc/run1.json" -o "$T/out/run1.bed" "$LAMBDA"
    seqgpu scc -q -p "$T/out/tandem" --stats "$T/qc/tandem.stats.json" "$TANDEM"
    run ls "$T/qc"
    assert_output "$(printf '%s\n' run1.json run1_mqc.json tandem.repeats_mqc.tsv tandem.spectrum_mqc.json tandem.stats.json)"
    run ls "$T/out"
    refute_output --partial _mqc
    # a sample for each: multiqc finds them in the folder of --stats alone
    run multiqc -q -c "$T/mqc.yaml" -o "$T/report" "$T/qc"
    assert_success
    grep -q '^run1' "$T/report/multiqc_data/multiqc_seqgpu_find_hits_plot.txt"
    grep -q '^tandem' "$T/report/multiqc_data/multiqc_seqgpu_scc_spectrum_plot.txt"
    # --stats on standard output: nothing to be beside, no MultiQC file (find and scc alike)
    (cd "$T/out" && seqgpu scc -q -p s --stats - "$TANDEM" > /dev/null)
    [ ! -e "$T/out/s.spectrum_mqc.json" ] && [ ! -e "$T/out/s.repeats_mqc.tsv" ]
}

@test "the spectrum for linear axes: from the error trough to twice the threshold, every count, the peak inside" {
    seqgpu scc -q -p "$T/t" --stats "$T/t.json" "$TANDEM"
    run multiqc -q --flat --export -c "$T/mqc.yaml" -o "$T/report" "$T/t.json" "$T/t.spectrum_mqc.json"
    assert_success
    ls "$T"/report/multiqc_plots/png/*seqgpu_scc_spectrum_plot* > /dev/null || fail "no flat plot of the spectrum"
    run python3 - "$T/report/multiqc_data/multiqc_seqgpu_scc_spectrum_plot.txt" "$T/t.json" <<'PY'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1]), delimiter='\t'))
got = {int(float(c)): int(float(v)) for c, v in zip(rows[0][1:], rows[1][1:])}
st = json.load(open(sys.argv[2]))
h, cov, thr = st['histogram'], st['coverage'], st['threshold']
lo, hi = min(got), max(got)
# every count of the range, as the histogram has it
assert got == {c: h[c] for c in range(lo, hi + 1)}, 'not the histogram'
# the error k-mers' spike at 1 is left out: the trough starts it; the peak and the threshold are in
assert 1 < lo < cov < thr <= hi, (lo, cov, thr, hi)
assert hi == min(max(2 * thr, int(4 * cov + 0.999)), max(c for c in range(len(h) - 1) if h[c])), (hi, thr, cov)
# on linear axes the peak stands out: the highest point of the range is at the coverage
peak = max(got, key=got.get)
assert abs(peak - cov) <= 0.2 * cov, (peak, cov)
print('ok')
PY
    assert_output ok
}
