#!/usr/bin/env cwl-runner
# seqgpu find as a CWL CommandLineTool: IUPAC motifs (a motif file) over
# FASTA/FASTQ, BED out; with part "I/N", the I-th of N ranges of the bases of
# a plain or BGZF FASTA (its .fai/.gzi beside it, or made for the run): the
# BED files of parts 1..N, concatenated, are one run's.
cwlVersion: v1.2
class: CommandLineTool
label: seqgpu find
doc: IUPAC motif search over FASTA/FASTQ on both strands, exact or within mismatches next to a PAM; BED6 out.
hints:
  SoftwareRequirement:
    packages:
      seqgpu:
        version: ["0.1.0"]
  ResourceRequirement:
    coresMin: 1
baseCommand: [seqgpu, find, -q]
arguments:
  - {prefix: --threads, valueFrom: $(runtime.cores)}
  - {prefix: --output, valueFrom: $(inputs.name).bed}
  - {prefix: --stats, valueFrom: $(inputs.name).json}
inputs:
  sequences:
    type: File[]
    doc: FASTA or FASTQ, plain, gzip or BGZF
    secondaryFiles:
      - {pattern: .fai, required: false}
      - {pattern: .gzi, required: false}
    inputBinding: {position: 10}
  motifs:
    type: File
    doc: motifs - FASTA, or lines "[name<TAB>]motif" or "name<TAB>motif<TAB>max_mismatches"
    inputBinding: {prefix: --motif-file}
  max_mismatches:
    type: int?
    inputBinding: {prefix: --max-mismatches}
  pam:
    type: string?
    doc: IUPAC PAM on the 3' side (SpCas9 NGG)
    inputBinding: {prefix: --pam}
  part:
    type: string?
    doc: I/N, the I-th of N near-equal ranges of the bases
    inputBinding: {prefix: --part}
  name:
    type: string
    default: sites
    doc: the outputs' names, NAME.bed and NAME.json (and the MultiQC sample, NAME_mqc.json)
outputs:
  bed:
    type: File
    outputBinding: {glob: $(inputs.name).bed}
  stats:
    type: File
    outputBinding: {glob: $(inputs.name).json}
  multiqc:
    type: File
    outputBinding: {glob: $(inputs.name)_mqc.json}
