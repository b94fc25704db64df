// The genome as BGZF (plain gzip cannot be seeked in), made once, so that
// samtools faidx can index it and every part of a scattered seqgpu find
// seeks to its range of the bases instead of reading the whole file.
process BGZIP {
    tag "$meta.id"
    label 'process_low'

    // samtools' image: bgzip comes with its htslib
    conda "bioconda::samtools=1.21"
    container "${ workflow.containerEngine in ['singularity', 'apptainer'] && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/samtools:1.21--h50ea8bc_0' :
        'quay.io/biocontainers/samtools:1.21--h50ea8bc_0' }"

    input:
    tuple val(meta), path(fasta)

    output:
    tuple val(meta), path("${prefix}.fa.gz"), emit: fasta
    tuple val("${task.process}"), val('bgzip'), eval("bgzip --version | sed -n '1s/^bgzip (htslib) //p'"), topic: versions, emit: versions_bgzip

    when:
    task.ext.when == null || task.ext.when

    script:
    prefix = task.ext.prefix ?: "${meta.id}.bgzf"
    """
    # plain, gzip or BGZF in; BGZF out
    zcat -f ${fasta} | bgzip --threads ${task.cpus} > ${prefix}.fa.gz
    """
}
