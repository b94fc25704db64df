/* The alignments of a reported site, on the host: src/find/bulge.h's one-gap
 * geometry applied to the site's bases, for the formatter (the best
 * alignment, or all of them with --all-alignments) and the scores. */
#ifndef SG_FIND_ALIGN_H
#define SG_FIND_ALIGN_H

#include <stdint.h>

#include "find/motif.h"

/* One alignment of a site: its variant, its cut and its mismatches. */
typedef struct {
    int v, cut, mm;
} sg_aln_t;

/* Most alignments one site has (a cut per position), and most columns of
 * an alignment (a window and a DNA bulge). */
#define SG_MAX_ALIGNMENTS (SG_BULGE_MAX_WINDOW + 1)
#define SG_MAX_COLUMNS (SG_MOTIF_MAX_LEN + SG_MAX_BULGE)

/**
 * The alignments of variant v of pattern p to the site whose bases start
 * at site (as many as the variant's site length; enc: sg_encode_table's),
 * with at most lim mismatches.
 * @param all  0: the best alignment only (src/find/bulge.h's rule); 1: every cut, the gap moving from
 *             the guide's 5' end to its 3' end
 * @param out  room for SG_MAX_ALIGNMENTS
 * @return the alignments written (0: none within lim)
 */
int sg_site_align(const sg_pattern_t *p, int v, int lim, const char *site, const uint8_t enc[256], int all,
                  sg_aln_t *out);

/**
 * The two rows of alignment a, in the motif's orientation (reversed and
 * complemented when minus): rna, the window's letters (letters, in the
 * motif's orientation) with '-' over extra DNA bases; dna, the site's bases
 * in upper case, mismatched ones in lower case, '-' under unpaired guide
 * bases. Neither is NUL-terminated.
 * @return the columns of each
 */
int sg_aln_rows(const sg_pattern_t *p, const sg_aln_t *a, const char *site, const uint8_t enc[256],
                const char *letters, int minus, char *rna, char *dna);

#endif
