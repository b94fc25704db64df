/* The pictures of seqgpu scc, for people: the k-mer spectrum with the
 * coverage and the threshold the run read from it (PREFIX.spectrum.svg),
 * one panel per repeat (PREFIX.repeats.svg) and the landscape of them all
 * (PREFIX.landscape.svg). Plain SVG, drawn here (formats/svg.h); write
 * errors are the caller's to check. */
#ifndef SG_SCC_PICTURES_H
#define SG_SCC_PICTURES_H

#include <stdint.h>
#include <stdio.h>

#include "scc/coverage.h"
#include "scc/graph.h"
#include "scc/loci.h"
#include "scc/repeats.h"

/* Repeats drawn one a panel (and rows of the MultiQC table): the first in
 * report order, the longest; PREFIX.repeats.tsv lists them all. */
#define SG_PICTURE_REPEATS 24

/**
 * The spectrum on log-log axes, 800 x 500: distinct k-mers per count, the
 * error trough, the single-copy peak and the coverage estimate, the
 * threshold and the k-mers kept, under a title with the inputs, k and those
 * numbers. Whatever made the histogram: reads, merged counts, a GFA graph,
 * an assembly.
 * @param inputs  the run's inputs (their base names go in the title)
 */
void sg_spectrum_svg(FILE *fp, const sg_spectrum_t *sp, char *const *inputs, int n_inputs);

/* What a repeat's panel shows besides its numbers. */
typedef struct {
    uint64_t *spectrum; /* its period spectrum, spectrum[d] for 1 <= d <= SG_SPECTRUM_MAX, or NULL */
    int cycles;         /* the spectrum is of the graph's cycles (no sequence at hand), not of k-mer distances */
    const char *seq;    /* one array's bases (or a read's) for the self-identity heatmap, or NULL */
    uint64_t len;
    char where[160];    /* where they are: "chr1:91,374-92,741", a read's name */
    int draw_cycle;     /* the repeat's component is small enough to draw as a cycle */
} sg_repeat_view_t;

/* The graph the repeats came from, and a view of each of the first n. */
typedef struct {
    const sg_graph_t *g;       /* the graph and the SCC of each of its vertices (cycle drawings) */
    const uint32_t *comp;
    const sg_repeat_view_t *view;
    uint32_t n_view;
} sg_repeat_pictures_t;

/** A repeat's component (one twin) is drawn as a cycle up to this many vertices. */
#define SG_CYCLE_DRAWN 20

/**
 * The views of the first n repeats of a graph whose sequence is not at
 * hand (de Bruijn graph of reads, GFA): the spectrum of their cycles, and
 * a cycle drawing of the small ones; or, of the overlap graph (g->reads),
 * the distance spectrum of their reads and the heatmap of the longest one.
 * The caller frees each view's spectrum.
 */
void sg_repeat_views(const sg_graph_t *g, const uint32_t *comp, const sg_repeats_t *rp, uint32_t n,
                     sg_repeat_view_t *view);

/**
 * One panel per repeat, the first SG_PICTURE_REPEATS of the report, three
 * to a row: id, kind, period, copies, length, unit, size; its period
 * spectrum with the period's multiples marked; and its self-identity
 * heatmap (an array's bases), or its component as a cycle (small ones), or
 * where to see it (PREFIX.gfa). With more repeats, the page says where the
 * rest are.
 */
void sg_repeats_svg(FILE *fp, const sg_repeats_t *rp, const sg_repeat_pictures_t *pics, int k, char *const *inputs,
                    int n_inputs);

/**
 * The landscape of all the repeats, 900 x 620: each a disc at its period
 * (log) and copies (log), its area by its length (bases in all copies),
 * tandem and complex apart, the longest labelled (those whose label finds
 * room).
 */
void sg_landscape_svg(FILE *fp, const sg_repeats_t *rp, int k, char *const *inputs, int n_inputs);

#endif
