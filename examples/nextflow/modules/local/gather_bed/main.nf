// The BGZF BED files of a scattered seqgpu find's parts, in part order, put
// together: BGZF files concatenated are one BGZF file, and the parts in
// order are one run's BED, byte for byte; then its tabix index.
process GATHER_BED {
    tag "$meta.id"
    label 'process_single'

    conda "bioconda::samtools=1.21"
    container "${ workflow.containerEngine in ['singularity', 'apptainer'] && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/samtools:1.21--h50ea8bc_0' :
        'quay.io/biocontainers/samtools:1.21--h50ea8bc_0' }"

    input:
    tuple val(meta), path(beds)

    output:
    tuple val(meta), path("${prefix}.bed.gz")    , emit: bed
    tuple val(meta), path("${prefix}.bed.gz.tbi"), emit: tbi
    tuple val("${task.process}"), val('tabix'), eval("tabix --version | sed -n '1s/^tabix (htslib) //p'"), topic: versions, emit: versions_tabix

    when:
    task.ext.when == null || task.ext.when

    script:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    cat ${beds} > ${prefix}.bed.gz
    tabix --preset bed ${prefix}.bed.gz
    """
}
