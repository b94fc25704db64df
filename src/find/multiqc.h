/* find's MultiQC custom content (formats/multiqc.h). */
#ifndef SG_FIND_MULTIQC_H
#define SG_FIND_MULTIQC_H

#include <stdint.h>
#include <stdio.h>

#include "find/motif.h"
#include "find/score.h"
#include "formats/multiqc.h"

/**
 * find: the hits of each motif in a run, its inputs together, as one sample.
 * @param hits  hits[f * ms->n_motif + m]: motif m's in input f
 */
void sg_mqc_find(FILE *fp, const sg_motif_set_t *ms, const uint64_t *hits, int n_inputs, const char *sample);

/**
 * find --guide-summary: a row per guide, its sites by bulge type and
 * mismatches, and its MIT and CFD specificities as CRISPOR gives them (NA
 * unless scored: every motif can be scored).
 * @param t  t[m]: motif m's tally
 */
void sg_mqc_guides(FILE *fp, const sg_motif_set_t *ms, const sg_guide_tally_t *t, int scored);

#endif
