process SEQGPU_FIND {
    tag "$meta.id"
    label 'process_medium'
    // nf-core's GPU label: the pipeline's config gives it an accelerator
    // (e.g. in a 'gpu' profile); the script reads task.accelerator
    label 'process_gpu'

    conda "${ task.accelerator ? "${moduleDir}/environment.gpu.yml" : "${moduleDir}/environment.yml" }"
    // cpu tasks: bioconda's image of the package; GPU tasks: the package with
    // ocl-icd-system (environment.gpu.yml). The build part of each tag
    // (PENDING) is written in once bioconda has built the release.
    container "${ workflow.containerEngine in ['singularity', 'apptainer'] && !task.ext.singularity_pull_docker_container ?
        (task.accelerator ? 'oras://community.wave.seqera.io/library/seqgpu_ocl-icd-system:PENDING' : 'https://depot.galaxyproject.org/singularity/seqgpu:0.1.0--hPENDING_0') :
        (task.accelerator ? 'community.wave.seqera.io/library/seqgpu_ocl-icd-system:PENDING' : 'quay.io/biocontainers/seqgpu:0.1.0--hPENDING_0') }"

    input:
    tuple val(meta), path(sequences)
    path motifs
    path index

    output:
    tuple val(meta), path("${prefix}.bed.gz")    , emit: bed
    tuple val(meta), path("${prefix}.bed.gz.tbi"), emit: tbi, optional: true
    tuple val(meta), path("${prefix}.json")      , emit: stats
    tuple val(meta), path("${prefix}_mqc.json")  , emit: multiqc
    tuple val("${task.process}"), val('seqgpu'), eval("seqgpu --version | sed 's/^seqgpu //'"), topic: versions, emit: versions_seqgpu

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
    def part = meta.part ? "--part ${meta.part}" : '--write-index'
    """
    seqgpu find \\
        --threads ${task.cpus} \\
        ${backend} \\
        --progress \\
        --motif-file ${motifs} \\
        --stats ${prefix}.json \\
        --output ${prefix}.bed.gz \\
        ${part} \\
        ${args} \\
        ${sequences}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo | gzip -n > ${prefix}.bed.gz
    touch ${prefix}.bed.gz.tbi
    echo '{}' > ${prefix}.json
    echo '{}' > ${prefix}_mqc.json
    """
}
