/* MultiQC custom content: files named *_mqc.json and *_mqc.tsv, which
 * `multiqc .` (1.14 on) finds in a results folder and shows as one
 * "seqgpu" section: find's hits per motif and input (a bar graph) and its
 * off-targets per guide (a table), scc's k-mer spectrum (a line graph) and
 * repeats (a table). Files of several
 * samples and runs merge into the same plots. Write errors are the
 * caller's to check. */
#ifndef SG_MULTIQC_H
#define SG_MULTIQC_H

#include <stdint.h>
#include <stdio.h>

#include "../src/find_motif.h"
#include "../src/find_score.h"
#include "../src/scc_coverage.h"
#include "../src/scc_repeats.h"

/**
 * find: the hits of each motif in each input.
 * @param hits  hits[f * ms->n_motif + m]: motif m's in input f
 */
void sg_mqc_find(FILE *fp, const sg_motif_set_t *ms, const uint64_t *hits, char *const *inputs, int n_inputs);

/**
 * find --guide-summary: a row per guide, its sites by bulge type and
 * mismatches, and its MIT and CFD specificities as CRISPOR gives them (NA
 * unless scored: every motif can be scored).
 * @param t  t[m]: motif m's tally
 */
void sg_mqc_guides(FILE *fp, const sg_motif_set_t *ms, const sg_guide_tally_t *t, int scored);

/** scc: the spectrum of one sample (the counts seen, up to the last bin). */
void sg_mqc_spectrum(FILE *fp, const char *sample, const sg_spectrum_t *sp);

/** scc: the repeats of one sample with the most copies (SG_PICTURE_REPEATS of them), a row each. */
void sg_mqc_repeats(FILE *fp, const char *sample, const sg_repeats_t *rp);

#endif
