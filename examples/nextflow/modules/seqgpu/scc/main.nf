process SEQGPU_SCC {
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
    tuple val(meta), path(reads)

    output:
    tuple val(meta), path("${prefix}.repeats.tsv")   , emit: repeats, optional: true
    tuple val(meta), path("${prefix}.gfa")           , emit: gfa, optional: true
    tuple val(meta), path("${prefix}.units.fa")      , emit: units, optional: true
    tuple val(meta), path("${prefix}.components.tsv"), emit: components, optional: true
    tuple val(meta), path("${prefix}.counts")        , emit: counts, optional: true
    tuple val(meta), path("${prefix}.*.svg")         , emit: svg, optional: true
    tuple val(meta), path("${prefix}.*_mqc.*")       , emit: multiqc, optional: true
    tuple val(meta), path("${prefix}.stats.json")    , emit: stats
    tuple val(meta), path("${prefix}.loci.bed")      , emit: loci, optional: true
    path "versions.yml"                              , emit: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    // a task without a GPU never touches one; with one, auto puts large
    // graphs on it (scc uses one device)
    def backend = task.accelerator ? '--backend auto --device 0' : '--backend cpu'
    // scattered (parts.nf): a part (meta.part 'I/N') counts part I of the
    // reads' k-mers into PREFIX.counts, and the gather (meta.counts) takes the
    // N counts files as its reads: its report is one run's, byte for byte
    def part = meta.part ? "--part ${meta.part} --counts-out ${prefix}.counts" : "--prefix ${prefix}"
    def counts = meta.counts ? '--counts' : ''
    """
    seqgpu scc \\
        --threads ${task.cpus} \\
        ${backend} \\
        --progress \\
        --stats ${prefix}.stats.json \\
        ${part} \\
        ${counts} \\
        ${args} \\
        ${reads}

    cat <<-END_VERSIONS > versions.yml
    "${task.process}":
        seqgpu: \$(seqgpu --version | sed 's/^seqgpu //')
    END_VERSIONS
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.repeats.tsv
    touch ${prefix}.gfa
    touch ${prefix}.units.fa
    touch ${prefix}.components.tsv
    touch ${prefix}.loci.bed
    touch ${prefix}.spectrum.svg
    touch ${prefix}.repeats.svg
    touch ${prefix}.landscape.svg
    echo '{}' > ${prefix}.spectrum_mqc.json
    touch ${prefix}.repeats_mqc.tsv
    echo '{}' > ${prefix}.stats.json

    cat <<-END_VERSIONS > versions.yml
    "${task.process}":
        seqgpu: \$(seqgpu --version | sed 's/^seqgpu //')
    END_VERSIONS
    """
}
