/* The k-mer counts file of seqgpu scc (--part I/N --counts-out FILE): one
 * hash part of a run's canonical k-mers (sg_kmer_part) with their counts,
 * and the count histogram of all the part's k-mers, so that the N parts of
 * a run together give that run's coverage, graph and report (scc --counts).
 * docs/counts-format.md describes the bytes; every size and value in a file
 * is checked before it is used, and a truncated or corrupt file is an error
 * that names it. */
#ifndef SG_COUNTS_H
#define SG_COUNTS_H

#include <stdint.h>
#include <stdio.h>

#include <htslib/bgzf.h>

#include "scc/backend.h"

#define SG_COUNTS_VERSION 2
/* the size of an input that has none to tell (a pipe, standard input) */
#define SG_COUNTS_SIZE_UNKNOWN UINT64_MAX
/* pairs per block: what sg_counts_next() returns at most */
#define SG_COUNTS_BLOCK 65536

typedef struct {
    int k;
    uint32_t part, n_parts; /* part 1..n_parts */
    uint32_t min_count;     /* the pairs are the part's k-mers seen at least this often */
    uint64_t kmers;         /* k-mer occurrences of the part */
    uint64_t distinct;      /* its distinct k-mers */
    uint64_t pairs;         /* the k-mers stored, with their counts */
    int bins;               /* hist[c]: k-mers seen c times; hist[bins - 1]: that often or more */
    uint64_t *hist;
    char **inputs;          /* the reads the part's run counted, as it named them */
    uint64_t *sizes;        /* their sizes in bytes, SG_COUNTS_SIZE_UNKNOWN for a pipe (NULL: all unknown) */
    int n_inputs;
} sg_counts_header_t;

/**
 * Write a counts file: the header (h->pairs is kc->n), then kc's pairs
 * (sorted, strictly increasing, each count >= h->min_count), in blocks
 * deflated where that makes them smaller (compress 1) or stored as they are.
 * @param name  for messages
 * @return 0, or SG_ERR_SYSTEM on a write error (message printed)
 */
int sg_counts_write(FILE *fp, const char *name, const sg_counts_header_t *h, const sg_kmer_counts_t *kc, int compress)
    __attribute__((warn_unused_result));

typedef struct sg_counts_reader sg_counts_reader_t;

/**
 * Read a counts file's header from fp (plain or BGZF-compressed; owned from
 * now on, closed with the reader), checking the magic number, version, k
 * and part numbers, sizes and the histogram.
 * @param bins  the histogram length the caller sums
 * @return 0, or SG_ERR_INPUT (message printed, naming the file; fp closed)
 */
int sg_counts_open(BGZF *fp, const char *name, int bins, sg_counts_reader_t **out) __attribute__((warn_unused_result));
const sg_counts_header_t *sg_counts_header(const sg_counts_reader_t *r);
/**
 * The next block of pairs into kc (arrays for SG_COUNTS_BLOCK pairs, which
 * sg_counts_next allocates when kc->kmer is NULL). Each is checked: k-mer
 * order, values below 4^k, the part, the counts; at the end, the histogram
 * against the counts and nothing after the last block.
 * @return pairs read, 0 after the last, or SG_ERR_INPUT (message printed)
 */
int sg_counts_next(sg_counts_reader_t *r, sg_kmer_counts_t *kc) __attribute__((warn_unused_result));
void sg_counts_close(sg_counts_reader_t *r);

#endif
