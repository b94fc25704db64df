/* The k-mer coverage of single-copy sequence, from the k-mer count
 * histogram (or a GFA graph's depths): what --min-copies multiplies, and
 * what a repeat's copies are counted in. */
#ifndef SG_SCC_COVERAGE_H
#define SG_SCC_COVERAGE_H

#include <stdint.h>

#include "scc/graph.h"

/* Bins of the k-mer count histogram: counts of k-mers up to 65535 apart
 * (the last bin holds the rest), room for the repeats whose errors the
 * coverage estimate must tell apart. */
#define SG_HIST_BINS 65537

typedef struct {
    double coverage; /* k-mer coverage of single-copy sequence (1 when there is no clear peak) */
    int trough;      /* count where the error k-mers end */
    int peak;        /* the single-copy peak's count, before the fit */
    int clear;       /* a clear peak was found; else coverage is 1 */
    int assembly;    /* the sequence of an assembly (--assembly, or sg_coverage_assembly): coverage 1, no peak */
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

/**
 * Whether the histogram is an assembly's (a genome, contigs), given the
 * estimate cov of it: with no clear peak of single-copy k-mers (cov), 30%
 * of the k-mer occurrences or more are of k-mers seen once, and k-mers seen
 * twice are under a fifth as many as those. In an assembly a k-mer seen
 * once is single-copy sequence and one seen twice a duplication; reads too
 * few for a coverage peak (Poisson) have a k-mer seen once about a third as
 * often seen twice.
 * @return 1: an assembly; 2: one in the look of the histogram (half of the
 *         occurrences at 1, a tenth as many at 2), but with a clear peak,
 *         which reads with many errors have too; 0: reads
 */
int sg_coverage_assembly(const uint64_t *hist, int n, const sg_coverage_t *cov);

/** The coverage of a GFA graph: the k-mer-weighted median of its segments'
 * mean counts (1 when they have none). */
double sg_coverage_of_graph(const sg_graph_t *g);

/* The k-mer count histogram a run ends up with and what was read from it:
 * what PREFIX.spectrum.svg and the MultiQC spectrum show. */
typedef struct {
    const uint64_t *hist; /* hist[c]: distinct k-mers seen c times; hist[n - 1]: n - 1 times or more */
    int n;
    int k;                /* 0: unknown (a GFA graph without links) */
    uint64_t total, distinct, kept; /* k-mers counted, distinct ones, distinct ones kept */
    sg_coverage_t cov;
    uint32_t threshold;   /* kept: seen >= threshold times; 0: none dropped (a GFA graph) */
    double min_copies;    /* the threshold is min_copies x coverage; 0: it was given (-c) */
    int graph;            /* from a GFA graph: each segment's k-mers at its mean count */
} sg_spectrum_t;

/**
 * The spectrum of a GFA graph: each segment's k-mers at its mean count,
 * rounded, into hist (n bins, the last holding the rest), and its coverage
 * (sg_coverage_of_graph()).
 */
void sg_spectrum_of_graph(const sg_graph_t *g, uint64_t *hist, int n, sg_spectrum_t *sp);

#endif
