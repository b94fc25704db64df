/* k-mers of reads for seqgpu scc: counting (all threads), the count
 * histogram and the coverage it shows, and the compaction of the kept
 * k-mers' de Bruijn graph into unitigs. k is odd, so no k-mer is its own
 * reverse complement; 2 bits per base, in 64-bit words up to k = 31 and
 * 128-bit words up to 63. */
#ifndef SG_KMER_H
#define SG_KMER_H

#include <stdint.h>

#include "chunk.h"
#include "scc_graph.h"

#define SG_K_MIN 11
#define SG_K_MAX 63

typedef struct sg_kmers sg_kmers_t;

/** A count table for k-mers of size k (odd, SG_K_MIN..SG_K_MAX). */
sg_kmers_t *sg_kmers_new(int k);
void sg_kmers_free(sg_kmers_t *t);

/**
 * Count the canonical k-mers starting in [0, c->len) of chunk c, which
 * carries at least k-1 bases of overlap; k-mers stop at any base that is not
 * A/C/G/T (either case). Thread-safe.
 */
void sg_kmers_add(sg_kmers_t *t, const sg_chunk_t *c);

/** Distinct k-mers in the table, and k-mer occurrences counted. */
uint64_t sg_kmers_distinct(const sg_kmers_t *t);
uint64_t sg_kmers_total(const sg_kmers_t *t);

/** hist[c]: distinct k-mers seen c times (c < n - 1); hist[n - 1]: seen n - 1 times or more. */
void sg_kmers_histogram(const sg_kmers_t *t, uint64_t *hist, int n);

/** Keep only the k-mers seen at least min times. */
void sg_kmers_filter(sg_kmers_t *t, uint32_t min);

/**
 * The node-centric de Bruijn graph of the kept k-mers, compacted into
 * unitigs (maximal non-branching paths; a branch-free cycle is one unitig
 * with a link to itself): an oriented graph whose edges overlap by k - 1.
 * The neighbours of every k-mer are looked up first, on n_threads threads.
 */
void sg_kmers_unitigs(sg_kmers_t *t, int n_threads, sg_graph_t *g);

/* Coverage from the count histogram: the peak of single-copy sequence. */
typedef struct {
    double coverage; /* k-mer coverage of single-copy sequence (1 when there is no clear peak) */
    int trough;      /* count where the error k-mers end */
    int peak;        /* the single-copy peak's count, before the fit */
    int clear;       /* a clear peak was found; else coverage is 1 */
} sg_coverage_t;

/**
 * The coverage of single-copy sequence from the count histogram (hist[c]:
 * distinct k-mers seen c times; the last bin, n - 1, holds the rest), at any
 * depth and whatever share of it is repeats: the lowest substantial peak of
 * k-mer occurrences past the errors that is not the error k-mers of a
 * higher peak (a repeat's copies with one sequencing error), refined by a
 * Poisson fit.
 */
void sg_coverage_estimate(const uint64_t *hist, int n, int k, sg_coverage_t *cov);

#endif
