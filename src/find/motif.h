/* The motif compiler: IUPAC DNA motifs to per-position base sets, one
 * pattern per strand searched, each with its rank in the output order (record,
 * start, end, strand, motif).
 *
 * A motif is searched as a window: 5' PAM + motif + 3' PAM. PAM positions
 * must match exactly (text A/C/G/T in the letter's set) and are never
 * counted; a motif position is a mismatch when the text base is not
 * A/C/G/T or not in the letter's set. A window is a hit when it has at most
 * max_mm mismatches. Without PAMs and mismatches this is exact search. */
#ifndef SG_MOTIF_H
#define SG_MOTIF_H

#include <stddef.h>
#include <stdint.h>

#include "core/dna.h" /* sg_mask_complement */
#include "find/bulge.h"

/* Base sets: one bit per base (dna.h's sg_mask_complement complements them).
 * Text bases use the same code (0 for anything that is not A/C/G/T), so a
 * text base b matches a motif position m iff b & m. */
enum { SG_BASE_A = 1, SG_BASE_C = 2, SG_BASE_G = 4, SG_BASE_T = 8 };

/* Longest motif accepted; chunks overlap by (longest motif - 1) bases. */
#define SG_MOTIF_MAX_LEN 4096
/* Most mismatches a motif may allow (-M). */
#define SG_MAX_MISMATCHES 8

/* Strands to search (-s). */
enum { SG_STRAND_FWD = 1, SG_STRAND_REV = 2, SG_STRAND_BOTH = 3 };

typedef struct {
    char *name;      /* name from -f, a Cas-OFFinder guide's id, else the motif as given */
    char *seq;       /* the motif as given */
    char *window;    /* the window pattern, PAMs included (the motif as given when there is no PAM) */
    char *query;     /* the window with N at the PAM positions, upper case (Cas-OFFinder's query) */
    char *id;        /* a Cas-OFFinder guide's id, or NULL */
    uint8_t *mask;   /* base set of each window position */
    uint8_t *pam;    /* 1 at the PAM positions; NULL when there are none */
    int len;         /* window length */
    int max_mm;      /* mismatches allowed */
    int palindrome;  /* the window equals its own reverse complement: searched once, strand '.' */
} sg_motif_t;

/* Rank of a bulge variant that is not searched. */
#define SG_NO_RANK UINT32_MAX

/* One strand of one motif, as the scanners see it. */
typedef struct {
    const uint8_t *mask; /* base set of each position, in text order */
    const uint8_t *pam;  /* 1 at PAM positions, in text order; NULL when there are none */
    int len;
    int max_mm;          /* mismatches allowed at the other positions */
    int motif;           /* index into sg_motif_set_t.motif */
    char strand;         /* '+', '-' or '.' */
    uint32_t rank;       /* hits at one start sort by rank: end, then strand, then motif order */
    /* bulges (src/find/bulge.h): each variant's geometry, and the rank of its
     * sites (vrank[0] = rank, the sites without a bulge; SG_NO_RANK: not searched) */
    sg_gap_t gap[SG_VARIANTS];
    uint32_t vrank[SG_VARIANTS];
} sg_pattern_t;

/** Whether pattern p is searched with bulges (a variant other than X). */
static inline int sg_pattern_bulges(const sg_pattern_t *p)
{
    for (int v = 1; v < SG_VARIANTS; v++)
        if (p->vrank[v] != SG_NO_RANK) return 1;
    return 0;
}

typedef struct {
    sg_motif_t *motif;
    int n_motif, m_motif;
    /* applied by every later sg_motif_add() and sg_motif_load(): set with sg_motif_set_window() */
    char *pam5, *pam3;
    int max_mm;
    sg_pattern_t *pat;   /* filled by sg_motif_compile() */
    int n_pat;
    uint8_t *rc;         /* storage of the reverse-complement masks and PAM flags */
    int min_len, max_len; /* shortest window, longest site (the window and a DNA bulge) */
    int approx;          /* some motif has a PAM or allows mismatches (output shows mismatches) */
    int strands;         /* SG_STRAND_* searched (sg_motif_compile) */
    int dna_bulge, rna_bulge; /* largest bulges searched (sg_motif_set_bulges) */
    int guides_include_pam;  /* set before the adds: every motif ends (5' PAM: starts) with its PAM, which is cut off */
    int n_rank;          /* ranks in use: the variants searched of every pattern */
} sg_motif_set_t;

/** Base set of an IUPAC letter (either case), 0 if it is not one of ACGTRYSWKMBDHVN. */
uint8_t sg_iupac_mask(int c);

/**
 * The PAMs and the mismatch limit of the motifs added after this call.
 * @param pam5, pam3  IUPAC PAMs on the 5' and 3' side of every motif (NULL or "": none)
 * @param max_mm      mismatches allowed, 0 to SG_MAX_MISMATCHES
 * @return 0, or SG_ERR_INPUT with a message in err
 */
int sg_motif_set_window(sg_motif_set_t *ms, const char *pam5, const char *pam3, int max_mm, char *err, size_t errsz)
    __attribute__((warn_unused_result));

/**
 * Add one motif, with the set's PAMs and mismatch limit.
 * @param name  name to report, or NULL to report the motif itself
 * @return 0, or SG_ERR_INPUT with a message in err
 */
int sg_motif_add(sg_motif_set_t *ms, const char *name, const char *seq, char *err, size_t errsz)
    __attribute__((warn_unused_result));

/**
 * Add one Cas-OFFinder guide: pattern and guide are equally long; the
 * guide's N positions are PAM positions with the pattern's letters, the
 * others are motif positions with the guide's letters (the pattern must be
 * N there).
 * @param id  the guide's id, or NULL; it is also the name reported
 * @return 0, or SG_ERR_INPUT with a message in err
 */
int sg_motif_add_guide(sg_motif_set_t *ms, const char *pattern, const char *guide, int max_mm, const char *id,
                       char *err, size_t errsz) __attribute__((warn_unused_result));

/**
 * Add the motifs of a file: FASTA (name = first word of the header) or lines
 * "[name<TAB>]motif" or "name<TAB>motif<TAB>max_mismatches"; blank lines and
 * lines starting with '#' are skipped. Plain or gzip-compressed.
 * @return number of motifs added, or SG_ERR_INPUT with a message in err
 */
int sg_motif_load(sg_motif_set_t *ms, const char *path, char *err, size_t errsz)
    __attribute__((warn_unused_result));

/**
 * Search bulges of up to dna DNA and rna RNA bases (0 to SG_MAX_BULGE) next
 * to the mismatches. Call after the last add: every window must have at
 * most SG_BULGE_MAX_WINDOW bases and its PAM at one end.
 * @return 0, or SG_ERR_INPUT with a message naming the motif in err
 */
int sg_motif_set_bulges(sg_motif_set_t *ms, int dna, int rna, char *err, size_t errsz)
    __attribute__((warn_unused_result));

/** Whether every motif begins (5' PAM) or ends (3' PAM) with a match of the
 * set's PAM: guides given with their PAM by mistake (find warns). */
int sg_motif_guides_carry_pam(const sg_motif_set_t *ms);

/** Build the patterns for the strands asked for (SG_STRAND_*). Call after the last add. */
void sg_motif_compile(sg_motif_set_t *ms, int strands);

void sg_motif_set_free(sg_motif_set_t *ms);

#endif
