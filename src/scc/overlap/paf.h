/* PAF, minimap2's pairwise mapping format, for seqgpu scc -g overlap: the
 * overlaps of all-vs-all mapping (minimap2 -x ava-pb / ava-ont) read in,
 * and the own overlapper's written out (--write-overlaps). */
#ifndef SG_PAF_H
#define SG_PAF_H

#include <stdio.h>

#include "scc/overlap/overlap.h"
#include "scc/overlap/readset.h"

/**
 * Read the overlaps of a PAF file (plain or gzip; "-" is standard input)
 * between the reads of rs, handing them to sink in batches. A line that
 * names a read too short to be stored is passed over. The identity is
 * 1 - dv (minimap2's divergence estimate), or 1 - de, or else the matching
 * bases over the block length (columns 10 and 11).
 * @return 0; SG_ERR_INPUT with the message printed (file and line) for a
 *         line that is truncated, names a read not in the input, gives a
 *         read's length differently, places a match outside a read, or
 *         maps a read onto itself at the same place; or sink's code
 */
int sg_paf_read(const char *path, const sg_readset_t *rs, sg_overlap_sink_t sink, void *arg)
    __attribute__((warn_unused_result));

/** An overlap as a PAF line: columns 10 and 11 the estimated matching bases
 * and the longer of the two spans, mapping quality 255, and tags tp:A:S,
 * cm:i (minimizer hits) and dv:f (1 - identity), as minimap2 writes them. */
void sg_paf_write(FILE *fp, const sg_readset_t *rs, const sg_overlap_t *o);

/** The lines of ov[0..n) in order, as sg_paf_write writes each, formatted
 * on n_threads threads (millions of overlaps).
 * @return 0, or the pipeline's SG_ERR_* code (its threads could not start) */
int sg_paf_write_all(FILE *fp, const sg_readset_t *rs, const sg_overlap_t *ov, size_t n, int n_threads)
    __attribute__((warn_unused_result));

#endif
