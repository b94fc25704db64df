// A Nextflow DSL2 module for seqgpu find.
//
//   include { SEQGPU_FIND } from './seqgpu_find.nf'
//   SEQGPU_FIND(Channel.of([[id: 'lambda'], file('lambda_virus.fa.gz')]), file('enzymes.tsv'))
//
// Emits one BED file per sample and the JSON run summary; the version line
// comes from `seqgpu --version`.
process SEQGPU_FIND {
    tag "$meta.id"
    label 'process_medium'
    conda 'bioconda::seqgpu'

    input:
    tuple val(meta), path(sequences)
    path motifs

    output:
    tuple val(meta), path("${meta.id}.bed"),        emit: bed
    tuple val(meta), path("${meta.id}.stats.json"), emit: stats
    path 'versions.yml',                            emit: versions

    script:
    def args = task.ext.args ?: ''
    """
    seqgpu find \\
        -t ${task.cpus} \\
        -f ${motifs} \\
        --stats ${meta.id}.stats.json \\
        -o ${meta.id}.bed \\
        ${args} \\
        ${sequences}

    cat <<-END_VERSIONS > versions.yml
    "${task.process}":
        seqgpu: \$(seqgpu --version | sed 's/^seqgpu //')
    END_VERSIONS
    """
}
