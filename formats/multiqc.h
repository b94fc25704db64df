/* MultiQC custom content: files named *_mqc.json and *_mqc.tsv, which
 * `multiqc .` (1.14 on) finds in a results folder and shows as one
 * "seqgpu" section: find's hits per motif and run (a bar graph) and its
 * off-targets per guide (a table), scc's k-mer spectrum (a line graph) and
 * repeats (a table). Files of several
 * samples and runs merge into the same plots. Write errors are the
 * caller's to check. */
#ifndef SG_MULTIQC_H
#define SG_MULTIQC_H

#include <stdint.h>
#include <stdio.h>

#include "find/motif.h"
#include "find/score.h"
#include "scc/coverage.h"
#include "scc/repeats.h"

/** find's sample: the name of --stats FILE less its folder, .gz/.bgz and .json. */
char *sg_mqc_run_name(const char *stats);

/**
 * Where a MultiQC file goes: beside --stats FILE, as FILE's folder + sample +
 * suffix, never compressed (MultiQC reads only plain files).
 * @return the path, or NULL when there is no FILE, or it is standard output
 *         (or another open descriptor: /dev/stdout, /dev/fd/N), a device or
 *         a FIFO (nothing to be beside)
 */
char *sg_mqc_beside(const char *stats, const char *sample, const char *suffix);

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

/** scc: the spectrum of one sample, over the counts that a linear plot shows
 * (MultiQC's flat report draws linear axes): from the trough after the
 * error k-mers to twice the threshold or four times the coverage. */
void sg_mqc_spectrum(FILE *fp, const char *sample, const sg_spectrum_t *sp);

/** scc: the repeats of one sample with the most copies (SG_PICTURE_REPEATS of them), a row each. */
void sg_mqc_repeats(FILE *fp, const char *sample, const sg_repeats_t *rp);

#endif
