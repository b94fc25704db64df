/* Off-target scores of SpCas9 sites, from published tables: the CFD score
 * (Doench et al. 2016, Nat Biotechnol 34:184) of any site, bulges included,
 * the MIT score (Hsu et al. 2013, Nat Biotechnol 31:827) of a site without a
 * bulge, and a guide's specificities from its sites as CRISPOR (Concordet
 * and Haeussler 2018) aggregates them. Double precision, on the host, so
 * every backend prints the same digits. */
#ifndef SG_FIND_SCORE_H
#define SG_FIND_SCORE_H

#include <stddef.h>
#include <stdint.h>

#include "find/bulge.h"
#include "find/motif.h"

enum { SG_SCORE_CFD = 1, SG_SCORE_MIT = 2 };

/** "cfd", "mit", "cfd,mit" or "mit,cfd": SG_SCORE_* bits; -1 for anything else. */
int sg_score_parse(const char *s);

/** Whether motif m can be scored: a guide of 20 A/C/G/T bases with a 3'
 * PAM of 3 bases (SpCas9's NGG and its relatives); if not, why, in why. */
int sg_score_applies(const sg_motif_t *m, char *why, size_t whysz);

/**
 * The CFD score of an alignment in the guide's orientation: rows rna and
 * dna of n columns without the PAM ('-' in a gap, either case), and the
 * PAM's last two bases. The last 20 columns are scored, each by its column
 * (1 to 20 from the PAM-distal end), as the gap-aware calculator of
 * CRISPRme and crisprapido does: a mismatch rX:dY by the guide base and the
 * target strand's base, an RNA bulge rX:d-, a DNA bulge r-:dY; a gap in
 * column 1, which the table lacks, costs nothing.
 * @return the score, or -1 when a base is not A/C/G/T or n < 20
 */
double sg_cfd(const char *rna, const char *dna, int n, const char *pam2);

/** The MIT score (0 to 100) of a 20-base site without bulges against its
 * guide: a mismatch wherever the letters differ, either case. */
double sg_mit(const char *guide, const char *site);

/* A guide's sites, for --guide-summary: counted by type and mismatches,
 * and the score sums of the sites CRISPOR counts for its specificities
 * (mismatch-only sites with an NGG PAM, or NAG or NGA with an MIT score
 * above 1 (weighted 0.2), other than the on-target: the first of them
 * without a mismatch). A chunk keeps the scores of those sites in output
 * order and the writer adds them up in that order, as CRISPOR adds its
 * list, so that the sums (floating point) do not depend on where chunks
 * end, which differs between backends. */
typedef struct {
    double mit, cfd; /* the weighted MIT score, and the CFD score (0 where undefined) */
    int perfect;     /* no mismatch: the on-target, when it is the run's first */
} sg_tally_hit_t;

typedef struct {
    uint64_t sites[3][SG_MAX_MISMATCHES + 1]; /* by SG_BULGE_* type and mismatches */
    /* run: the sums, the sites in them, and whether the on-target was met */
    double mit_sum, cfd_sum;
    uint64_t counted;
    int on_target;
    /* chunk: the sites CRISPOR counts, in output order */
    sg_tally_hit_t *hit;
    size_t n_hit, m_hit;
} sg_guide_tally_t;

/**
 * Count a site of a guide.
 * @param type, mm  its bulge type (SG_BULGE_*) and mismatches
 * @param mit, cfd  its scores (-1: undefined)
 * @param pam2      its PAM's last two bases
 */
void sg_tally_site(sg_guide_tally_t *t, int type, int mm, double mit, double cfd, const char *pam2);
/** Add a chunk's tally to the run's, the chunks in input order (and a
 * chunk written in pieces, each piece's sites as it goes), and empty it;
 * its list keeps its room. */
void sg_tally_merge(sg_guide_tally_t *run, sg_guide_tally_t *chunk);
/** Free a chunk's list of sites. */
void sg_tally_free(sg_guide_tally_t *t);
/** CRISPOR's specificity from a sum of scores: round(100 * 100 / (100 + sum)), halves to even. */
int sg_specificity(double sum);

#endif
