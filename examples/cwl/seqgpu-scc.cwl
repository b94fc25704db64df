#!/usr/bin/env cwl-runner
# seqgpu scc as a CWL CommandLineTool, in its three modes: the repeats of a
# read set (reads); one part of a scattered run, the k-mers of hash part I of
# N (reads, part, counts_out), nothing else; and the gather of all N parts'
# counts files (counts: true), whose report is one run's, byte for byte.
cwlVersion: v1.2
class: CommandLineTool
label: seqgpu scc
doc: Cyclic repeats (tandem repeats, satellites) from the strongly connected components of a de Bruijn graph of reads.
requirements:
  InlineJavascriptRequirement: {}
hints:
  SoftwareRequirement:
    packages:
      seqgpu:
        version: ["0.1.0"]
  ResourceRequirement:
    coresMin: 1
baseCommand: [seqgpu, scc, -q]
arguments:
  - {prefix: --threads, valueFrom: $(runtime.cores)}
  - {prefix: --prefix, valueFrom: "$(inputs.counts_out ? null : inputs.prefix)"}
inputs:
  reads:
    type: File[]
    doc: reads (FASTA/FASTQ, plain, gzip or BGZF), a GFA graph, or with counts the counts files of all parts
    inputBinding: {position: 10}
  k:
    type: int?
    inputBinding: {prefix: -k}
  part:
    type: string?
    doc: I/N, with counts_out - count part I of N of the k-mers
    inputBinding: {prefix: --part}
  counts_out:
    type: string?
    doc: with part - write the part's k-mer counts to this file, and nothing else
    inputBinding: {prefix: --counts-out}
  counts:
    type: boolean?
    doc: the reads are the counts files of all parts of a run
    inputBinding: {prefix: --counts}
  prefix:
    type: string
    default: repeats
outputs:
  repeats:
    type: File?
    outputBinding: {glob: $(inputs.prefix).repeats.tsv}
  gfa:
    type: File?
    outputBinding: {glob: $(inputs.prefix).gfa}
  units:
    type: File?
    outputBinding: {glob: $(inputs.prefix).units.fa}
  components:
    type: File?
    outputBinding: {glob: $(inputs.prefix).components.tsv}
  pictures:
    type: File[]
    outputBinding: {glob: $(inputs.prefix).*.svg}
  part_counts:
    type: File?
    outputBinding: {glob: $(inputs.counts_out)}
