/* The k-mer coverage of single-copy sequence, from the k-mer count
 * histogram (or a GFA graph's depths): what --min-copies multiplies, and
 * what a repeat's copies are counted in. */
#ifndef SG_SCC_COVERAGE_H
#define SG_SCC_COVERAGE_H

#include <stdint.h>

#include "scc_graph.h"

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

/** The coverage of a GFA graph: the k-mer-weighted median of its segments'
 * mean counts (1 when they have none). */
double sg_coverage_of_graph(const sg_graph_t *g);

#endif
