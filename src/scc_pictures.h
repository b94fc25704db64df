/* The pictures of seqgpu scc, for people: the k-mer spectrum with the
 * coverage and the threshold the run read from it (PREFIX.spectrum.svg),
 * and one panel per repeat (PREFIX.repeats.svg). Plain SVG, drawn here
 * (formats/svg.h); write errors are the caller's to check. */
#ifndef SG_SCC_PICTURES_H
#define SG_SCC_PICTURES_H

#include <stdint.h>
#include <stdio.h>

#include "scc_coverage.h"
#include "scc_graph.h"
#include "scc_repeats.h"

/* Most repeats drawn, and put in the MultiQC table: those with the most copies. */
#define SG_PICTURE_REPEATS 50

/**
 * The spectrum on log-log axes, 800 x 500: distinct k-mers per count, the
 * error trough, the single-copy peak and the coverage estimate, the
 * threshold and the k-mers kept, under a title with the inputs, k and those
 * numbers. Whatever made the histogram: reads, merged counts, a GFA graph.
 * @param inputs  the run's inputs (their base names go in the title)
 */
void sg_spectrum_svg(FILE *fp, const sg_spectrum_t *sp, char *const *inputs, int n_inputs);

/* What a repeat's panel draws besides its numbers: the structure the graph
 * it came from shows. The de Bruijn graph draws the repeat's component of
 * unitigs as a cycle (sg_draw_unitigs). The read-overlap graph (-g overlap,
 * issue 16) is to pass its own: the repeated-k-mer distance spectrum of the
 * repeat's reads, with the period marked. */
typedef struct sg_repeat_drawing sg_repeat_drawing_t;
struct sg_repeat_drawing {
    /** Draw repeat i of rp inside the box at (x, y) of w x h pixels. */
    void (*draw)(const sg_repeat_drawing_t *d, FILE *fp, const sg_repeats_t *rp, uint32_t i, double x, double y,
                 double w, double h);
    const sg_graph_t *g; /* sg_draw_unitigs: the graph and the SCC of each of its vertices */
    const uint32_t *comp;
};

/** A repeat of an oriented sequence graph (de Bruijn or GFA): the unitigs
 * of its component as arcs of a circle in the order of the cycle, each as
 * long as its k-mers, and the links that leave that order as chords. */
void sg_draw_unitigs(const sg_repeat_drawing_t *d, FILE *fp, const sg_repeats_t *rp, uint32_t i, double x, double y,
                     double w, double h);

/**
 * One panel per repeat, the SG_PICTURE_REPEATS with the most copies, three
 * to a row: id, kind, period, copies, unit, size, and d's drawing.
 */
void sg_repeats_svg(FILE *fp, const sg_repeats_t *rp, const sg_repeat_drawing_t *d, int k, char *const *inputs,
                    int n_inputs);

#endif
