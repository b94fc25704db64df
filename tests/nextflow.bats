#!/usr/bin/env bats
# The nf-core-style modules in examples/nextflow/modules/seqgpu. Nextflow and
# nf-test cannot be installed on CI: tests/nextflow_render.py renders each
# module's script: and stub: blocks from the real main.nf, as Nextflow would,
# with the inputs of its tests/main.nf.test; bash runs them on the bundled
# data with this build's seqgpu; then every declared output must exist, the
# versions' eval() must answer, and the outputs must be a plain seqgpu run's,
# byte for byte. tests/nfcore_meta_check.py checks every meta.yml against our
# schema of nf-core's rules and against main.nf. No nf-test snapshot is kept
# or written here: nf-test writes main.nf.test.snap on its first run.

load test_helper

MODULES=$ROOT/examples/nextflow/modules/seqgpu
RENDER="python3 $ROOT/tests/nextflow_render.py"
CHECK="python3 $ROOT/tests/nfcore_meta_check.py"
VERSION=$(sed -n 's/^#define SG_VERSION "\(.*\)"$/\1/p' "$ROOT/src/core/version.h")

# run_module NAME [--stub] [--meta K=V | --in NAME=FILES]...: render into
# $T/NAME[--stub] and run it with bash -ue, as a Nextflow task runs
# .command.sh; seqgpu from this build first on PATH
run_module() {
    local m=$1 w=$T/$1
    shift
    [ "${1:-}" = --stub ] && w=$w--stub
    mkdir -p "$w" "$T/bin"
    ln -sf "$SEQGPU" "$T/bin/seqgpu"
    $RENDER render "$MODULES/$m" "$w" "$@" || fail "cannot render $m $*"
    cd "$w"
    run env PATH="$T/bin:$PATH" bash -ue .command.sh
    cd - >/dev/null
    assert_success
    run env PATH="$T/bin:$PATH" $RENDER outputs "$MODULES/$m" "$w" "$@"
    assert_success
}

@test "nextflow: find's script on the bundled genome: a plain run's BED and index, its stats and MultiQC sample, the version" {
    run_module find
    assert_output "$(printf 'bed\tlambda.bed.gz\ntbi\tlambda.bed.gz.tbi\nstats\tlambda.json\nmultiqc\tlambda_mqc.json\nversions_seqgpu\tSEQGPU_FIND,seqgpu,%s' "$VERSION")"
    seqgpu find -q -f "$MODULES/find/tests/motifs.tsv" -o "$T/plain.bed.gz" --index "$LAMBDA"
    cmp <(zcat "$T/find/lambda.bed.gz") <(zcat "$T/plain.bed.gz")
    cmp "$T/find/lambda.bed.gz.tbi" "$T/plain.bed.gz.tbi"
    [ "$(zcat "$T/plain.bed.gz" | wc -l)" -gt 10 ] || fail "too few hits to test with"
    # the task was given no GPU, so it stayed on the cpu; its MultiQC sample is its id
    grep -q '"backend": "cpu"' "$T/find/lambda.json"
    python3 -c "import json, sys; assert list(json.load(open(sys.argv[1]))['data']) == ['lambda']" "$T/find/lambda_mqc.json"
}

@test "nextflow: scc's script on the bundled tandem reads: a plain run's report, pictures and MultiQC files" {
    run_module scc
    for l in "repeats\ttandem.repeats.tsv" "svg\ttandem.spectrum.svg" "svg\ttandem.repeats.svg" "multiqc\ttandem.spectrum_mqc.json" \
             "multiqc\ttandem.repeats_mqc.tsv" "stats\ttandem.json" "versions_seqgpu\tSEQGPU_SCC,seqgpu,$VERSION"; do
        assert_line "$(printf "$l")"
    done
    seqgpu scc -q -p "$T/plain" "$ROOT/examples/tandem_reads.fq.gz"
    for f in repeats.tsv gfa units.fa components.tsv spectrum.svg repeats.svg; do
        cmp "$T/scc/tandem.$f" "$T/plain.$f" || fail "tandem.$f differs from a plain run's"
    done
    [ "$(wc -l < "$T/plain.repeats.tsv")" -gt 1 ] || fail "no repeats to test with"
}

@test "nextflow: scccount's two parts and sccmerge on their counts give scc's report, byte for byte" {
    run_module scccount
    assert_line "$(printf 'counts\ttandem.part1.counts')"
    mv "$T/scccount" "$T/part1"
    reads=$ROOT/examples/tandem_reads.fq.gz
    run_module scccount --meta id=tandem.part2 --meta part=2/2 --in reads="$reads"
    # the merge's test takes its counts from SEQGPU_SCCCOUNT: a workflow step, given here with --in
    run $RENDER render "$MODULES/sccmerge" "$T/nope"
    assert_failure 2
    assert_output --partial "made by a workflow step in the test: give it with --in"
    run_module sccmerge --meta id=tandem --in counts="$T/part1/tandem.part1.counts,$T/scccount/tandem.part2.counts"
    seqgpu scc -q -p "$T/plain" "$reads"
    for f in repeats.tsv gfa units.fa components.tsv; do
        cmp "$T/sccmerge/tandem.$f" "$T/plain.$f" || fail "tandem.$f differs from one run's"
    done
}

@test "nextflow: the stubs write every declared output" {
    run_module find --stub
    run_module scc --stub
    run_module scccount --stub
    run_module sccmerge --stub --meta id=tandem --in counts="$ROOT/examples/tandem_reads.fq.gz"
    assert_line "$(printf 'repeats\ttandem.repeats.tsv')"
}

@test "nextflow: a missing output, a failing eval or Groovy the renderer does not know fails the check" {
    run_module scc
    rm "$T/scc/tandem.json"
    run env PATH="$T/bin:$PATH" $RENDER outputs "$MODULES/scc" "$T/scc"
    assert_failure 1
    assert_output --partial "missing output stats: tandem.json"
    # no seqgpu on PATH: the versions' eval fails
    run env PATH=/usr/bin:/bin $RENDER outputs "$MODULES/scc" "$T/scc"
    assert_failure 2
    assert_output --partial "eval("
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

@test "nextflow: every meta.yml passes the schema of nf-core's rules and matches its main.nf" {
    run $CHECK "$MODULES"/*/
    assert_success
    assert_output ""
    [ "$(ls -d "$MODULES"/*/ | wc -l)" -eq 4 ]
    # no snapshot pretends to be nf-test's
    run find "$MODULES" -name '*.snap'
    assert_output ""
}

# plant NAME MODULE FILE SCRIPT PROBLEM: MODULE with FILE changed by the python
# SCRIPT (on s, the text) fails the check with PROBLEM
plant() {
    local d=$T/plant/$1/seqgpu
    rm -rf "$d" && mkdir -p "$d" && cp -r "$MODULES/$2" "$d/"
    python3 - "$d/$2/$3" "$4" <<'PY'
import sys
p, script = sys.argv[1], sys.argv[2]
s = open(p).read()
t = eval(script, {"s": s, "re": __import__("re"), "yaml": __import__("yaml")})
assert t != s, "nothing planted"
open(p, "w").write(t)
PY
    run $CHECK "$d/$2"
    assert_failure 1
    assert_output --partial "$5"
}

@test "nextflow: the meta.yml check fails on the defects nf-core's linter finds" {
    # the output as a list, as the modules had it before
    plant list find meta.yml 'yaml.safe_dump(dict(yaml.safe_load(s), output=[{k: v} for k, v in yaml.safe_load(s)["output"].items()]))' "meta.yml output"
    plant keywords scccount meta.yml 're.sub(r"keywords:\n(  - .*\n)+", "keywords:\n  - repeats\n", s)' "meta.yml keywords"
    plant ontologies find meta.yml 's.replace("        ontologies:\n        - edam: \"http://edamontology.org/format_3326\" # FASTA index\n", "")' "'ontologies' is a required property"
    plant edam scc meta.yml 's.replace("format_3975", "format_GFA")' "does not match"
    plant emit scc meta.yml 're.sub(r"  gfa:\n(    .*\n)+?(?=  units:)", "", s)' "are not main.nf's emits"
    plant element find meta.yml 's.replace("- \"${prefix}_mqc.json\":", "- \"${prefix}.stats_mqc.json\":")' "output multiqc"
    plant topic sccmerge meta.yml 's[:s.index("topics:")] + s[s.index("authors:"):]' "topics"
    plant heredoc find main.nf 's.replace(", topic: versions, emit: versions_seqgpu", ", emit: versions_seqgpu")' "versions topic"
    plant tag scc main.nf 's.replace("0.1.0--hPENDING_0\x27)", "0.1.0--cuda126_100\x27)")' "container tags"
    plant engine find main.nf 's.replace("workflow.containerEngine in [\x27singularity\x27, \x27apptainer\x27]", "workflow.containerEngine == \x27singularity\x27")' "singularity and apptainer alike"
    plant accelerator scc main.nf 's.replace("(task.accelerator ? \x27community", "(false ? \x27community")' "task.accelerator"
    plant nfcore find tests/main.nf.test 's.replace("    tag \"modules_nfcore\"\n", "")' "no tag modules_nfcore"
    plant gpu scc tests/gpu.nf.test 's.replace("    tag \"gpu\"\n", "")' "no test tagged gpu"
    plant version scccount environment.yml 's.replace("seqgpu=", "seqgpu=9.")' "does not pin"
}

@test "nextflow: the modules follow nf-core's conventions" {
    for m in find scc scccount sccmerge; do
        f=$MODULES/$m/main.nf
        grep -q '^    tag "$meta.id"$' "$f"
        grep -q "^    label 'process_medium'$" "$f"
        if [ $m != scccount ]; then
            grep -q "^    label 'process_gpu'$" "$f"
            grep -q 'def backend = task.accelerator ?' "$f"
        fi
        grep -q "def args = task.ext.args ?: ''" "$f"
        grep -q 'prefix = task.ext.prefix ?: "${meta.id}"' "$f"
        grep -q '^    task.ext.when == null || task.ext.when$' "$f"
        grep -q '^    stub:$' "$f"
        ! grep -q 'versions.yml' "$f" || fail "$m still writes versions.yml"
    done
}

@test "nextflow: the example pipelines include the modules by their real paths" {
    for p in main parts; do
        for inc in $(sed -n "s/^include { \([A-Z_]*\) *} from '\(.*\)'$/\1:\2/p" "$ROOT/examples/nextflow/$p.nf"); do
            [ -f "$ROOT/examples/nextflow/${inc#*:}.nf" ] || fail "$p.nf includes ${inc%%:*} from ${inc#*:}, which is not there"
            grep -q "^process ${inc%%:*} {" "$ROOT/examples/nextflow/${inc#*:}.nf" || fail "${inc#*:}.nf has no ${inc%%:*}"
            grep -q "^    ${inc%%:*}(" "$ROOT/examples/nextflow/$p.nf" || fail "$p.nf does not run ${inc%%:*}"
        done
        # the data it defaults to is bundled
        for f in $(sed -n 's/^params\.[a-z]* *= "${projectDir}\/\(.*\)"$/\1/p' "$ROOT/examples/nextflow/$p.nf"); do
            [ -f "$ROOT/examples/nextflow/$f" ] || fail "params default $f is not bundled"
        done
        grep -q "channel.topic('versions')" "$ROOT/examples/nextflow/$p.nf" || fail "$p.nf does not gather the versions topic"
    done
    grep -q "^include { SEQGPU_FIND *} from './modules/seqgpu/find/main'$" "$ROOT/examples/nextflow/main.nf"
    grep -q "^include { SEQGPU_SCC *} from './modules/seqgpu/scc/main'$" "$ROOT/examples/nextflow/main.nf"
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
    env PATH="$T/bin:$PATH" $RENDER outputs "$m" "$w" "$@" > /dev/null || fail "$(basename "$m"): a declared output is missing ($*)"
}

# files DIR NAME N SUFFIX: DIR1/NAME.part1SUFFIX,...,DIRN/NAME.partNSUFFIX, in part order
files() {
    local i list=""
    for i in $(seq 1 "$3"); do list="$list${list:+,}$1$i/$2.part$i$4"; done
    echo "$list"
}

# find_parts GENOME MOTIFS N: parts.nf's find steps (BGZIP, SAMTOOLS_FAIDX,
# then SEQGPU_FIND with meta part 'I/N' for each part, then GATHER_BED in part
# order) against main.nf's one SEQGPU_FIND, as decompressed BED; the gathered
# file is indexed
find_parts() {
    local g=$1 m=$2 n=$3 i w=$T/find$3
    task "$LOCAL/bgzip" "$w/bgzip" --meta id=g --in fasta="$g"
    local bgzf=$w/bgzip/g.bgzf.fa.gz
    task "$LOCAL/samtools_faidx" "$w/bgzip" --meta id=g --in fasta="$bgzf" --in fai= --in get_sizes=false
    [ ! -e "$w/bgzip/g.bgzf.fa.gz.sizes" ] || fail "get_sizes false wrote the sizes"
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

# scc_parts READS N: parts.nf's scc steps (SEQGPU_SCCCOUNT with meta part
# 'I/N', then SEQGPU_SCCMERGE on the counts in part order) against main.nf's
# one SEQGPU_SCC, byte for byte
scc_parts() {
    local r=$1 n=$2 i w=$T/scc$2 f
    task "$MODULES/scc" "$w/one" --meta id=r --in reads="$r"
    for i in $(seq 1 "$n"); do
        task "$MODULES/scccount" "$w/part$i" --meta id=r.part$i --meta sample=r --meta part=$i/$n --in reads="$r"
        [ ! -e "$w/part$i/r.part$i.repeats.tsv" ] || fail "part $i/$n wrote a report"
    done
    task "$MODULES/sccmerge" "$w/all" --meta id=r --in counts="$(files "$w/part" r "$n" .counts)"
    [ "$(wc -l < "$w/one/r.repeats.tsv")" -gt 1 ] || fail "no repeats to test with"
    for f in repeats.tsv gfa units.fa components.tsv; do
        cmp "$w/one/r.$f" "$w/all/r.$f" || fail "N $n: r.$f differs"
    done
}

@test "nextflow: parts.nf builds the meta maps and order these tests give its steps" {
    p=$ROOT/examples/nextflow/parts.nf
    for inc in "BGZIP:./modules/local/bgzip/main" "SAMTOOLS_FAIDX:./modules/local/samtools_faidx/main" \
               "GATHER_BED:./modules/local/gather_bed/main" "SEQGPU_FIND:./modules/seqgpu/find/main" \
               "SEQGPU_SCCCOUNT:./modules/seqgpu/scccount/main" "SEQGPU_SCCMERGE:./modules/seqgpu/sccmerge/main"; do
        grep -q "^include { ${inc%%:*}  *} from '${inc#*:}'$" "$p" || fail "parts.nf does not include ${inc%%:*}"
    done
    grep -qF 'meta + [ id: "${meta.id}.part${i}", sample: meta.id, part: "${i}/${n}" ]' "$p"
    grep -qF 'SAMTOOLS_FAIDX(BGZIP.out.fasta.map { meta, fasta -> [ meta, fasta, [] ] }, false)' "$p"
    grep -qF '[ [ id: id ], in_order(parts).collect { it[1] } ]' "$p"
    grep -qF "SEQGPU_FIND(scattered.sequences, file(params.motifs, checkIfExists: true), scattered.index)" "$p"
    # the modules read the meta keys the workflow sets
    grep -qF 'def part = meta.part ? "--part ${meta.part}" :' "$MODULES/find/main.nf"
    grep -qF 'def part = meta.part ? "${meta.part}" :' "$MODULES/scccount/main.nf"
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
