#!/usr/bin/env bats
# The nf-core-style modules in examples/nextflow/modules/seqgpu. Nextflow
# cannot be installed on CI: tests/nextflow_render.py renders each module's
# script: and stub: blocks from the real main.nf, as Nextflow would, with the
# inputs of its tests/main.nf.test; bash runs them on the bundled data with
# this build's seqgpu; then every declared output must exist and every value
# of the nf-test snapshot must match what was written. Nextflow itself never
# runs here.

load test_helper

MODULES=$ROOT/examples/nextflow/modules/seqgpu
RENDER="python3 $ROOT/tests/nextflow_render.py"

# run_module NAME [--stub]: render into $T/NAME and run it with bash -ue, as a
# Nextflow task runs .command.sh; seqgpu from this build first on PATH
run_module() {
    local w=$T/$1$2
    mkdir -p "$w" "$T/bin"
    ln -sf "$SEQGPU" "$T/bin/seqgpu"
    $RENDER render "$MODULES/$1" "$w" $2 || fail "cannot render $1 $2"
    cd "$w"
    run env PATH="$T/bin:$PATH" bash -ue .command.sh
    cd - >/dev/null
    assert_success
}

@test "nextflow: find's script runs on the bundled genome; its outputs and snapshot match" {
    run_module find
    run $RENDER outputs "$MODULES/find" "$T/find"
    assert_success
    assert_output "$(printf 'bed\tlambda.bed.gz\ntbi\tlambda.bed.gz.tbi\nstats\tlambda.stats.json\nmultiqc\tlambda.stats_mqc.json\nversions\tversions.yml')"
    run $RENDER snapshot "$MODULES/find" "$T/find" "lambda - fasta.gz - bed.gz"
    assert_success
    assert_line "lines of lambda.bed.gz"
    assert_line "md5 of versions.yml"
    # the task was given no GPU, so it stayed on the cpu
    run grep -c '"backend": "cpu"' "$T/find/lambda.stats.json"
    assert_output 1
}

@test "nextflow: scc's script runs on the bundled tandem reads; its outputs and snapshot match" {
    run_module scc
    run $RENDER outputs "$MODULES/scc" "$T/scc"
    assert_success
    assert_line "$(printf 'repeats\ttandem.repeats.tsv')"
    assert_line "$(printf 'svg\ttandem.spectrum.svg')"
    assert_line "$(printf 'svg\ttandem.repeats.svg')"
    assert_line "$(printf 'multiqc\ttandem.spectrum_mqc.json')"
    assert_line "$(printf 'multiqc\ttandem.repeats_mqc.tsv')"
    assert_line "$(printf 'versions\tversions.yml')"
    run $RENDER snapshot "$MODULES/scc" "$T/scc" "tandem reads - fastq.gz"
    assert_success
    assert_line "md5 of tandem.repeats.tsv"
    assert_line "md5 of tandem.gfa"
    assert_line "md5 of tandem.units.fa"
    assert_line "md5 of tandem.components.tsv"
    assert_equal "$(cat "$T/scc/versions.yml")" "$(printf '"SEQGPU_SCC":\n    seqgpu: %s' "$("$SEQGPU" --version | sed 's/^seqgpu //')")"
}

@test "nextflow: the stubs write every declared output, as their snapshots say" {
    for m in find scc; do
        run_module $m --stub
        run $RENDER outputs "$MODULES/$m" "$T/$m--stub" --stub
        assert_success
    done
    run $RENDER snapshot "$MODULES/find" "$T/find--stub" "lambda - fasta.gz - bed.gz - stub"
    assert_success
    run $RENDER snapshot "$MODULES/scc" "$T/scc--stub" "tandem reads - fastq.gz - stub"
    assert_success
}

@test "nextflow: a missing output, a changed result or Groovy the renderer does not know fails the check" {
    run_module scc
    # a result that differs from the snapshot
    printf 'x\n' >> "$T/scc/tandem.units.fa"
    run $RENDER snapshot "$MODULES/scc" "$T/scc" "tandem reads - fastq.gz"
    assert_failure 1
    assert_output --partial "tandem.units.fa: md5"
    rm "$T/scc/tandem.stats.json"
    run $RENDER outputs "$MODULES/scc" "$T/scc"
    assert_failure 1
    assert_output --partial "missing output stats: tandem.stats.json"
    # a snapshot of process.out that lacks a declared output (nf-test would
    # see it as a changed result), or holds a file of another output
    run_module scc --stub
    mkdir -p "$T/snap/scc/tests"
    cp "$MODULES/scc/main.nf" "$T/snap/scc/"
    cp "$MODULES/scc/tests/main.nf.test" "$T/snap/scc/tests/"
    ln -sf "$ROOT/examples" "$T/examples"
    sed -i 's|${moduleDir}/../../../../|'"$ROOT/examples/"'|' "$T/snap/scc/tests/main.nf.test"
    python3 - "$MODULES/scc/tests/main.nf.test.snap" "$T/snap/scc/tests/main.nf.test.snap" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
out = d["tandem reads - fastq.gz - stub"]["content"][0]
del out["8"], out["versions"]
json.dump(d, open(sys.argv[2], "w"))
PY
    run $RENDER snapshot "$T/snap/scc" "$T/scc--stub" "tandem reads - fastq.gz - stub"
    assert_failure 1
    assert_output --partial "are not the declared outputs"
    python3 - "$MODULES/scc/tests/main.nf.test.snap" "$T/snap/scc/tests/main.nf.test.snap" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
out = d["tandem reads - fastq.gz - stub"]["content"][0]
out["4"] = out["counts"] = out["svg"]
json.dump(d, open(sys.argv[2], "w"))
PY
    run $RENDER snapshot "$T/snap/scc" "$T/scc--stub" "tandem reads - fastq.gz - stub"
    assert_failure 1
    assert_output --partial "not of its pattern"
    # a module statement outside what the renderer knows is an error, not a guess
    mkdir -p "$T/e/n/m" "$T/odd-run"
    cp -r "$MODULES/scc" "$T/e/n/m/odd"
    ln -s "$ROOT/examples/tandem_reads.fq.gz" "$T/tandem_reads.fq.gz"
    run $RENDER render "$T/e/n/m/odd" "$T/odd-run"
    assert_success
    sed -i 's/^    def args = task.ext.args ?: .*/    def args = task.ext.args.toUpperCase()/' "$T/e/n/m/odd/main.nf"
    run $RENDER render "$T/e/n/m/odd" "$T/odd-run"
    assert_failure 2
    assert_output --partial "cannot render the statement"
}

@test "nextflow: the modules follow nf-core's conventions" {
    for m in find scc; do
        f=$MODULES/$m/main.nf
        P=SEQGPU_$(echo $m | tr a-z A-Z)
        grep -q "^process $P {" "$f"
        grep -q '^    tag "$meta.id"$' "$f"
        grep -q "^    label 'process_medium'$" "$f"
        grep -q "^    label 'process_gpu'$" "$f"
        grep -q 'task.accelerator ?' "$f"
        grep -q '^    conda "${moduleDir}/environment.yml"$' "$f"
        grep -q '^    container ' "$f"
        grep -q '^    tuple val(meta), path(' "$f"
        grep -q "def args = task.ext.args ?: ''" "$f"
        grep -q 'prefix = task.ext.prefix ?: "${meta.id}"' "$f"
        grep -q '^    when:$' "$f"
        grep -q '^    task.ext.when == null || task.ext.when$' "$f"
        grep -q '^    stub:$' "$f"
        grep -q '^    path "versions.yml" *, emit: versions$' "$f"
        grep -q 'bioconda::seqgpu=' "$MODULES/$m/environment.yml"
        grep -q "^name: \"seqgpu_$m\"$" "$MODULES/$m/meta.yml"
        [ -f "$MODULES/$m/tests/main.nf.test" ] && [ -f "$MODULES/$m/tests/main.nf.test.snap" ]
        grep -q "process \"$P\"" "$MODULES/$m/tests/main.nf.test"
        grep -q 'snapshot(' "$MODULES/$m/tests/main.nf.test"
        # meta.yml documents every input and every emitted channel
        for emit in $(sed -n 's/.*emit: \([a-z_]*\).*/\1/p' "$f"); do
            grep -q "^  - $emit:$" "$MODULES/$m/meta.yml" || fail "$m: output $emit missing from meta.yml"
        done
        for in in $(sed -n '/^    input:/,/^    output:/p' "$f" | grep -oE 'path\(?[a-z]+' | sed 's/path(\{0,1\}//'); do
            grep -q "^ *- $in:$" "$MODULES/$m/meta.yml" || fail "$m: input $in missing from meta.yml"
        done
    done
}

@test "nextflow: the example pipeline includes both modules by their real paths" {
    p=$ROOT/examples/nextflow/main.nf
    for m in find scc; do
        P=SEQGPU_$(echo $m | tr a-z A-Z)
        grep -q "^include { $P *} from './modules/seqgpu/$m/main'$" "$p"
        [ -f "$ROOT/examples/nextflow/modules/seqgpu/$m/main.nf" ]
        grep -q "^    $P(" "$p"
    done
    # the data it defaults to is bundled
    for f in $(sed -n 's/^params\.[a-z]* *= "${projectDir}\/\(.*\)"$/\1/p' "$p"); do
        [ -f "$ROOT/examples/nextflow/$f" ] || fail "params default $f is not bundled"
    done
}

LOCAL=$ROOT/examples/nextflow/modules/local

# task MODULE_DIR WORKDIR [--meta K=V]... [--in NAME=FILES]...: render the
# module's script with what a workflow hands it, run it with bash -ue as
# Nextflow runs .command.sh (this build's seqgpu first on PATH), and check
# that its declared outputs are there
task() {
    local m=$1 w=$2
    shift 2
    mkdir -p "$w" "$T/bin"
    ln -sf "$SEQGPU" "$T/bin/seqgpu"
    $RENDER render "$m" "$w" "$@" || fail "cannot render $m $*"
    (cd "$w" && env PATH="$T/bin:$PATH" bash -ue .command.sh) || fail "$(basename "$m") failed in $w: $*"
    $RENDER outputs "$m" "$w" "$@" > /dev/null || fail "$(basename "$m"): a declared output is missing ($*)"
}

# files DIR NAME N SUFFIX: DIR1/NAME.part1SUFFIX,...,DIRN/NAME.partNSUFFIX, in part order
files() {
    local i list=""
    for i in $(seq 1 "$3"); do list="$list${list:+,}$1$i/$2.part$i$4"; done
    echo "$list"
}

# find_parts GENOME MOTIFS N: parts.nf's find steps (FAIDX, then SEQGPU_FIND
# with meta part 'I/N' for each part, then GATHER_BED in part order) against
# main.nf's one SEQGPU_FIND, as decompressed BED; the gathered file is indexed
find_parts() {
    local g=$1 m=$2 n=$3 i w=$T/find$3
    task "$LOCAL/faidx" "$w/faidx" --meta id=g --in fasta="$g"
    local bgzf=$w/faidx/g.bgzf.fa.gz
    task "$MODULES/find" "$w/one" --meta id=g --in sequences="$g" --in motifs="$m" --in index=
    for i in $(seq 1 "$n"); do
        task "$MODULES/find" "$w/part$i" --meta id=g.part$i --meta sample=g --meta part=$i/$n \
            --in sequences="$bgzf" --in motifs="$m" --in index="$bgzf.fai,$bgzf.gzi"
        [ ! -e "$w/part$i/g.part$i.bed.gz.tbi" ] || fail "part $i/$n indexed its part"
    done
    task "$LOCAL/gather_bed" "$w/gather" --meta id=g --in beds="$(files "$w/part" g "$n" .bed.gz)"
    zcat "$w/one/g.bed.gz" > "$w/one.bed"
    zcat "$w/gather/g.bed.gz" > "$w/gathered.bed"
    [ "$(wc -l < "$w/one.bed")" -gt 10 ] || fail "too few hits to test with"
    cmp "$w/one.bed" "$w/gathered.bed" || { diff "$w/one.bed" "$w/gathered.bed" | head; fail "N $n: gathered BED differs"; }
    # the index answers for every record
    for chrom in $(cut -f1 "$w/one.bed" | uniq); do
        assert_equal "$(tabix "$w/gather/g.bed.gz" "$chrom" | wc -l)" "$(grep -c "^$chrom	" "$w/one.bed")"
    done
}

# scc_parts READS N: parts.nf's scc steps (SEQGPU_SCC with meta part 'I/N',
# then SEQGPU_SCC_ALL with meta counts on the counts in part order) against
# main.nf's one SEQGPU_SCC, byte for byte
scc_parts() {
    local r=$1 n=$2 i w=$T/scc$2 f
    task "$MODULES/scc" "$w/one" --meta id=r --in reads="$r"
    for i in $(seq 1 "$n"); do
        task "$MODULES/scc" "$w/part$i" --meta id=r.part$i --meta sample=r --meta part=$i/$n --in reads="$r"
        [ ! -e "$w/part$i/r.part$i.repeats.tsv" ] || fail "part $i/$n wrote a report"
    done
    task "$MODULES/scc" "$w/all" --meta id=r --meta counts=true --in reads="$(files "$w/part" r "$n" .counts)"
    [ "$(wc -l < "$w/one/r.repeats.tsv")" -gt 1 ] || fail "no repeats to test with"
    for f in repeats.tsv gfa units.fa components.tsv; do
        cmp "$w/one/r.$f" "$w/all/r.$f" || fail "N $n: r.$f differs"
    done
}

@test "nextflow: parts.nf builds the meta maps and order these tests give its steps" {
    p=$ROOT/examples/nextflow/parts.nf
    grep -q "^include { FAIDX  *} from './modules/local/faidx/main'$" "$p"
    grep -q "^include { GATHER_BED  *} from './modules/local/gather_bed/main'$" "$p"
    grep -q "^include { SEQGPU_FIND  *} from './modules/seqgpu/find/main'$" "$p"
    grep -q "^include { SEQGPU_SCC  *} from './modules/seqgpu/scc/main'$" "$p"
    grep -q "^include { SEQGPU_SCC as SEQGPU_SCC_ALL } from './modules/seqgpu/scc/main'$" "$p"
    grep -qF 'meta + [ id: "${meta.id}.part${i}", sample: meta.id, part: "${i}/${n}" ]' "$p"
    grep -qF '[ [ id: id, counts: true ], in_order(parts).collect { it[1] } ]' "$p"
    grep -qF '[ [ id: id ], in_order(parts).collect { it[1] } ]' "$p"
    grep -qF "SEQGPU_FIND(scattered.sequences, file(params.motifs, checkIfExists: true), scattered.index)" "$p"
    # the modules read the meta keys the workflow sets
    grep -qF 'def part = meta.part ? "--part ${meta.part}" :' "$MODULES/find/main.nf"
    grep -qF 'def part = meta.part ? "--part ${meta.part} --counts-out ${prefix}.counts" :' "$MODULES/scc/main.nf"
    grep -qF "def counts = meta.counts ? '--counts' : ''" "$MODULES/scc/main.nf"
    for f in $(sed -n 's/^params\.[a-z]* *= "${projectDir}\/\(.*\)"$/\1/p' "$p"); do
        [ -f "$ROOT/examples/nextflow/$f" ] || fail "params default $f is not bundled"
    done
}

@test "nextflow: parts.nf's find steps, N = 3 and 7, on the bundled and a generated genome, equal one run" {
    need samtools bgzip tabix
    for n in 3 7; do find_parts "$LAMBDA" "$ROOT/examples/enzymes.tsv" $n; done
    $REF gen --seed 31 --records 12 --max-len 20000 --plant GAATTC,GGATCC,AAGCTT > "$T/gen.fa"
    gzip -c "$T/gen.fa" > "$T/gen.fa.gz"
    rm -rf "$T/find3" "$T/find7"
    for n in 3 7; do find_parts "$T/gen.fa.gz" "$ROOT/examples/enzymes.tsv" $n; done
}

@test "nextflow: parts.nf's scc steps, N = 3 and 7, on the bundled and generated reads, equal one run" {
    for n in 3 7; do scc_parts "$ROOT/examples/tandem_reads.fq.gz" $n; done
    $REF sim --seed 13 --periods 2,5,19,60 --unique 30000 "$T/sim"
    rm -rf "$T/scc3" "$T/scc7"
    for n in 3 7; do scc_parts "$T/sim.reads.fq" $n; done
}
