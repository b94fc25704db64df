// seqgpu scc on a read set (FASTA/FASTQ files, one sample) or a GFA graph:
// the repeats, their graph, units, components, pictures and MultiQC files.
process SEQGPU_SCC {
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
    tuple val(meta), path(reads)

    output:
    tuple val(meta), path("${prefix}.repeats.tsv")   , emit: repeats
    tuple val(meta), path("${prefix}.gfa")           , emit: gfa
    tuple val(meta), path("${prefix}.units.fa")      , emit: units
    tuple val(meta), path("${prefix}.components.tsv"), emit: components
    tuple val(meta), path("${prefix}.*.svg")         , emit: svg
    tuple val(meta), path("${prefix}.*_mqc.*")       , emit: multiqc
    tuple val(meta), path("${prefix}.json")          , emit: stats
    tuple val(meta), path("${prefix}.loci.bed")      , emit: loci, optional: true
    tuple val("${task.process}"), val('seqgpu'), eval("seqgpu --version | sed 's/^seqgpu //'"), topic: versions, emit: versions_seqgpu

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    // a task without a GPU never touches one; with one, auto puts large
    // graphs on it (scc uses one device)
    def backend = task.accelerator ? '--backend auto --device 0' : '--backend cpu'
    """
    seqgpu scc \\
        --threads ${task.cpus} \\
        ${backend} \\
        --progress \\
        --stats ${prefix}.json \\
        --prefix ${prefix} \\
        ${args} \\
        ${reads}
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
    echo '{}' > ${prefix}.json
    """
}
