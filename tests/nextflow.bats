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
    assert_output "$(printf 'bed\tlambda.bed.gz\ntbi\tlambda.bed.gz.tbi\nstats\tlambda.stats.json\nversions\tversions.yml')"
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
    rm "$T/scc/tandem.gfa"
    run $RENDER outputs "$MODULES/scc" "$T/scc"
    assert_failure 1
    assert_output --partial "missing output gfa: tandem.gfa"
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
        for emit in $(sed -n 's/.*emit: \([a-z]*\)$/\1/p' "$f"); do
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
