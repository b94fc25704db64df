#!/usr/bin/env nextflow
/*
 * seqgpu runs cut into parts that tasks run apart, then put together: the
 * gathered outputs are one run's, byte for byte.
 *
 *   find: each genome made BGZF (BGZIP) and indexed with samtools faidx
 *         (SAMTOOLS_FAIDX, nf-core's module interface: its .fai and .gzi),
 *         scanned in N parts, each the I-th of N ranges of its bases
 *         (SEQGPU_FIND with meta.part 'I/N', seeking through the index), and
 *         the parts' BGZF BED files concatenated in order and indexed (GATHER_BED).
 *   scc:  each read set counted in N parts, each the k-mers of hash part I
 *         (SEQGPU_SCCCOUNT, about 1/N of the memory), and the N counts files
 *         made into the graph, SCCs and report (SEQGPU_SCCMERGE).
 *
 *   nextflow run examples/nextflow/parts.nf -profile conda --parts 7
 *   nextflow run examples/nextflow/parts.nf --genomes 'g/*.fa.gz' --reads 'r/*.fq.gz' --parts 16
 *
 * tests/nextflow.bats runs the commands these steps' rendered scripts run,
 * with the meta maps built here, at N = 3 and 7, against one run.
 */
nextflow.enable.dsl = 2

include { BGZIP           } from './modules/local/bgzip/main'
include { SAMTOOLS_FAIDX  } from './modules/local/samtools_faidx/main'
include { GATHER_BED      } from './modules/local/gather_bed/main'
include { SEQGPU_FIND     } from './modules/seqgpu/find/main'
include { SEQGPU_SCCCOUNT } from './modules/seqgpu/scccount/main'
include { SEQGPU_SCCMERGE } from './modules/seqgpu/sccmerge/main'

params.genomes = "${projectDir}/../lambda_virus.fa.gz"
params.reads   = "${projectDir}/../tandem_reads.fq.gz"
params.motifs  = "${projectDir}/../enzymes.tsv"
params.parts   = 3
params.outdir  = 'results'

// part i of n of a sample: its own id, the sample's, and the part
def part_meta(meta, i, n) { meta + [ id: "${meta.id}.part${i}", sample: meta.id, part: "${i}/${n}" ] }

// the parts of a sample, back in part order
def in_order(parts) { parts.sort { a, b -> (a[0].part.tokenize('/')[0] as int) <=> (b[0].part.tokenize('/')[0] as int) } }

// the parts of a sample are gathered by its id: two inputs of one name
// (a/reads.fq.gz, b/reads.fq.gz) would mix their parts, so they stop the run
def unique_ids(ch, what) {
    ch.toList().flatMap { items ->
        def ids = items.collect { it[0].id }
        def twice = ids.findAll { id -> ids.count(id) > 1 }.unique()
        if (twice) error "${what}: ${twice.join(', ')} named twice; the parts are gathered by name: rename the files"
        items
    }
}

workflow {
    def n = params.parts as int
    genomes = unique_ids(channel.fromPath(params.genomes, checkIfExists: true).map { f -> [ [ id: f.simpleName ], f ] }, 'genomes')
    reads   = unique_ids(channel.fromPath(params.reads, checkIfExists: true).map { f -> [ [ id: f.simpleName ], f ] }, 'reads')

    // find: the genome as BGZF and its index, then a scatter over ranges of the bases, gathered in order
    BGZIP(genomes)
    SAMTOOLS_FAIDX(BGZIP.out.fasta.map { meta, fasta -> [ meta, fasta, [] ] }, false)
    indexed = BGZIP.out.fasta.join(SAMTOOLS_FAIDX.out.fai).join(SAMTOOLS_FAIDX.out.gzi)
    scattered = indexed
        .combine(channel.of(1..n))
        .multiMap { meta, fasta, fai, gzi, i ->
            sequences: [ part_meta(meta, i, n), fasta ]
            index: [ fai, gzi ]
        }
    SEQGPU_FIND(scattered.sequences, file(params.motifs, checkIfExists: true), scattered.index)
    GATHER_BED(
        SEQGPU_FIND.out.bed
            .map { meta, bed -> [ meta.sample, [ meta, bed ] ] }
            .groupTuple(size: n)
            .map { id, parts -> [ [ id: id ], in_order(parts).collect { it[1] } ] })

    // scc: a scatter over hash parts of the k-mers, the counts gathered
    SEQGPU_SCCCOUNT(reads.combine(channel.of(1..n)).map { meta, f, i -> [ part_meta(meta, i, n), f ] })
    SEQGPU_SCCMERGE(
        SEQGPU_SCCCOUNT.out.counts
            .map { meta, counts -> [ meta.sample, [ meta, counts ] ] }
            .groupTuple(size: n)
            .map { id, parts -> [ [ id: id ], in_order(parts).collect { it[1] } ] })

    channel.topic('versions')
        .unique()
        .map { process, tool, version -> "${process.tokenize(':').last()}:\n    ${tool}: ${version}\n" }
        .collectFile(name: 'software_versions.yml', storeDir: "${params.outdir}/pipeline_info", sort: true)
}
