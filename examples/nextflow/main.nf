#!/usr/bin/env nextflow
/*
 * A small pipeline over the bundled data: restriction sites of every genome
 * (BGZF BED with a tabix index) and the repeats of every read set.
 *
 *   nextflow run examples/nextflow -profile conda          # or docker, singularity
 *   nextflow run examples/nextflow -profile conda,gpu      # GPU tasks: auto may use them
 *   nextflow run examples/nextflow --genomes 'genomes/*.fa.gz' --reads 'reads/*.fq.gz' --motifs sites.tsv
 */
nextflow.enable.dsl = 2

include { SEQGPU_FIND } from './modules/seqgpu/find/main'
include { SEQGPU_SCC  } from './modules/seqgpu/scc/main'

params.genomes = "${projectDir}/../lambda_virus.fa.gz"
params.reads   = "${projectDir}/../tandem_reads.fq.gz"
params.motifs  = "${projectDir}/../enzymes.tsv"
params.outdir  = 'results'

workflow {
    genomes = Channel.fromPath(params.genomes, checkIfExists: true).map { f -> [ [ id: f.simpleName ], f ] }
    reads   = Channel.fromPath(params.reads, checkIfExists: true).map { f -> [ [ id: f.simpleName ], f ] }

    SEQGPU_FIND(genomes, file(params.motifs, checkIfExists: true), [])
    SEQGPU_SCC(reads)

    // every task's versions, sent to the versions topic by eval()
    channel.topic('versions')
        .unique()
        .map { process, tool, version -> "${process.tokenize(':').last()}:\n    ${tool}: ${version}\n" }
        .collectFile(name: 'software_versions.yml', storeDir: "${params.outdir}/pipeline_info", sort: true)

    // the MultiQC custom content of every task (hits per motif, k-mer
    // spectra, repeats), gathered for `multiqc results/multiqc`
    SEQGPU_FIND.out.multiqc
        .mix(SEQGPU_SCC.out.multiqc)
        .flatMap { meta, files -> files instanceof List ? files : [ files ] }
        .collectFile(storeDir: "${params.outdir}/multiqc")
}
