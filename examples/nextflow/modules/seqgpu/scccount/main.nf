// One part of a scattered seqgpu scc: the reads' k-mers of hash part I of N
// (meta.part 'I/N'; '1/1' without it) counted into PREFIX.counts, about 1/N
// of the memory of a whole run; SEQGPU_SCCMERGE gathers the N parts. It
// counts on the cpu (seqgpu scc --counts-out takes no GPU).
process SEQGPU_SCCCOUNT {
    tag "$meta.id"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    // bioconda's image of the package; the build part of the tag (PENDING) is
    // written in once bioconda has built the release
    container "${ workflow.containerEngine in ['singularity', 'apptainer'] && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/seqgpu:0.1.0--hPENDING_0' :
        'quay.io/biocontainers/seqgpu:0.1.0--hPENDING_0' }"

    input:
    tuple val(meta), path(reads)

    output:
    tuple val(meta), path("${prefix}.counts"), emit: counts
    tuple val(meta), path("${prefix}.json")  , emit: stats
    tuple val("${task.process}"), val('seqgpu'), eval("seqgpu --version | sed 's/^seqgpu //'"), topic: versions, emit: versions_seqgpu

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def part = meta.part ? "${meta.part}" : '1/1'
    """
    seqgpu scc \\
        --threads ${task.cpus} \\
        --progress \\
        --stats ${prefix}.json \\
        --part ${part} \\
        --counts-out ${prefix}.counts \\
        ${args} \\
        ${reads}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.counts
    echo '{}' > ${prefix}.json
    """
}
