// samtools faidx with the inputs and outputs of nf-core's samtools/faidx
// module (`nf-core modules install samtools/faidx` puts that one in its
// place): a FASTA, plain or BGZF, and its index when there is one; out come
// the .fai, the .gzi of a BGZF file, and with get_sizes the record lengths.
process SAMTOOLS_FAIDX {
    tag "$fasta"
    label 'process_single'

    conda "bioconda::samtools=1.21"
    container "${ workflow.containerEngine in ['singularity', 'apptainer'] && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/samtools:1.21--h50ea8bc_0' :
        'quay.io/biocontainers/samtools:1.21--h50ea8bc_0' }"

    input:
    tuple val(meta), path(fasta), path(fai)
    val get_sizes

    output:
    tuple val(meta), path("*.sizes"), emit: sizes, optional: true
    tuple val(meta), path("*.fai")  , emit: fai, optional: true
    tuple val(meta), path("*.gzi")  , emit: gzi, optional: true
    tuple val("${task.process}"), val('samtools'), eval("samtools version | sed '1!d;s/.* //'"), topic: versions, emit: versions_samtools

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    def sizes = get_sizes ? "cut -f 1,2 ${fasta}.fai > ${fasta}.sizes" : ''
    """
    samtools faidx ${fasta} ${args}
    ${sizes}
    """
}
