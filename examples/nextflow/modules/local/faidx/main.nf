// The genome as BGZF with its samtools faidx index (.fai, .gzi), made once,
// so that every part of a scattered seqgpu find seeks to its range of the
// bases instead of reading (or indexing) the whole file.
process FAIDX {
    tag "$meta.id"
    label 'process_low'

    conda "bioconda::samtools=1.21"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/samtools:1.21--h50ea8bc_0' :
        'biocontainers/samtools:1.21--h50ea8bc_0' }"

    input:
    tuple val(meta), path(fasta)

    output:
    tuple val(meta), path("${prefix}.fa.gz"), path("${prefix}.fa.gz.{fai,gzi}"), emit: indexed
    path "versions.yml"                                                       , emit: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    prefix = task.ext.prefix ?: "${meta.id}.bgzf"
    """
    # plain, gzip or BGZF in; BGZF out (plain gzip cannot be seeked in)
    zcat -f ${fasta} | bgzip --threads ${task.cpus} > ${prefix}.fa.gz
    samtools faidx ${prefix}.fa.gz

    cat <<-END_VERSIONS > versions.yml
    "${task.process}":
        samtools: \$(samtools --version | sed -n 's/^samtools //p')
    END_VERSIONS
    """
}
