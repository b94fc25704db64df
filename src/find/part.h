/* find --part I/N: the I-th of N near-equal, contiguous ranges of the
 * inputs' bases (cut anywhere, inside a record too), found through each
 * FASTA file's .fai (and .gzi for BGZF) so that a part is read without
 * what comes before it. Its chunks own the starts in the range and carry
 * the bases after it as overlap, as the chunker does at any seam, so the
 * hits of parts 1..N, in order, are one run's. */
#ifndef SG_FIND_PART_H
#define SG_FIND_PART_H

#include <stddef.h>
#include <stdint.h>

#include "formats/fai.h"
#include "formats/seqio.h"

typedef struct {
    sg_fai_t *fai;          /* per input */
    char **gzi;             /* per input: its .gzi, or NULL (plain) */
    uint8_t *twobit;        /* per input: a .2bit file, its own index (offsets then count bases) */
    int n_inputs;
    sg_reader_part_t range; /* what the reader reads; range.first == n_inputs: nothing (an empty part) */
    int64_t rid, file_rid0; /* the record the part starts in (over all inputs, from 0), the first of its file */
    const char *name;       /* its name */
    uint64_t rec_pos;       /* the base of that record where it starts */
    uint64_t beg, end, total; /* its bases [beg, end) of all the inputs' total */
} sg_find_part_t;

/**
 * Plan part `part` (1..n_parts) of the inputs, for hits of up to overlap + 1
 * bases: every input indexed (sg_fai_load: made when missing), the range
 * found (a .2bit file is its own index). Standard input, gzip that is not
 * BGZF and FASTQ are refused, saying what would work.
 * @return 0, or SG_ERR_INPUT with the message printed
 */
int sg_find_part_plan(char *const *paths, int n_paths, long part, long n_parts, size_t overlap, sg_find_part_t *p)
    __attribute__((warn_unused_result));
void sg_find_part_free(sg_find_part_t *p);

#endif
