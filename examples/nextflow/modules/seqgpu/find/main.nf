process SEQGPU_FIND {
    tag "$meta.id"
    label 'process_medium'
    // nf-core's GPU label: the pipeline's config gives it an accelerator
    // (e.g. in a 'gpu' profile); the script reads task.accelerator
    label 'process_gpu'

    conda "${moduleDir}/environment.yml"
    // the CUDA build of the bioconda package runs on machines without a GPU
    // too (the CUDA runtime is linked in statically; no driver, the cpu backend)
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/seqgpu:0.1.0--cuda126_100' :
        'biocontainers/seqgpu:0.1.0--cuda126_100' }"

    input:
    tuple val(meta), path(sequences)
    path motifs
    path index

    output:
    tuple val(meta), path("${prefix}.bed.gz")        , emit: bed
    tuple val(meta), path("${prefix}.bed.gz.tbi")    , emit: tbi, optional: true
    tuple val(meta), path("${prefix}.stats.json")    , emit: stats
    tuple val(meta), path("${prefix}.stats_mqc.json"), emit: multiqc
    path "versions.yml"                              , emit: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    // a task without a GPU never touches one; with GPUs, auto picks the
    // faster backend on the devices the task was given
    def backend = task.accelerator ? "--backend auto --device ${(0..<task.accelerator.request).join(',')}" : '--backend cpu'
    // a part of a scattered run (meta.part 'I/N', parts.nf): it seeks to its
    // range of the bases through the index staged beside the sequences; the
    // parts' BED files, concatenated in order, are one run's, indexed there
    def part = meta.part ? "--part ${meta.part}" : '--index'
    """
    seqgpu find \\
        --threads ${task.cpus} \\
        ${backend} \\
        --progress \\
        --motif-file ${motifs} \\
        --stats ${prefix}.stats.json \\
        --output ${prefix}.bed.gz \\
        ${part} \\
        ${args} \\
        ${sequences}

    cat <<-END_VERSIONS > versions.yml
    "${task.process}":
        seqgpu: \$(seqgpu --version | sed 's/^seqgpu //')
    END_VERSIONS
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo | gzip -n > ${prefix}.bed.gz
    touch ${prefix}.bed.gz.tbi
    echo '{}' > ${prefix}.stats.json
    echo '{}' > ${prefix}.stats_mqc.json

    cat <<-END_VERSIONS > versions.yml
    "${task.process}":
        seqgpu: \$(seqgpu --version | sed 's/^seqgpu //')
    END_VERSIONS
    """
}
