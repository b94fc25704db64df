/* The motif compiler: IUPAC DNA motifs to per-position base sets, one
 * pattern per strand searched, in the output order of DESIGN.md. */
#ifndef SG_MOTIF_H
#define SG_MOTIF_H

#include <stddef.h>
#include <stdint.h>

/* Base sets: one bit per base. Text bases use the same code (0 for anything
 * that is not A/C/G/T), so a text base b matches a motif position m iff b & m. */
enum { SG_BASE_A = 1, SG_BASE_C = 2, SG_BASE_G = 4, SG_BASE_T = 8 };

/* Longest motif accepted; chunks overlap by (longest motif - 1) bases. */
#define SG_MOTIF_MAX_LEN 4096

/* Strands to search (-s). */
enum { SG_STRAND_FWD = 1, SG_STRAND_REV = 2, SG_STRAND_BOTH = 3 };

typedef struct {
    char *name;      /* name from -f, else the motif as given */
    char *seq;       /* the motif as given */
    uint8_t *mask;   /* base set of each position */
    int len;
    int palindrome;  /* equal to its own reverse complement: searched once, strand '.' */
} sg_motif_t;

/* One strand of one motif, as the scanners see it. */
typedef struct {
    const uint8_t *mask; /* base set of each position, in text order */
    int len;
    int motif;           /* index into sg_motif_set_t.motif */
    char strand;         /* '+', '-' or '.' */
    uint32_t rank;       /* hits at one start sort by rank: end, then strand, then motif order */
} sg_pattern_t;

typedef struct {
    sg_motif_t *motif;
    int n_motif, m_motif;
    sg_pattern_t *pat;   /* filled by sg_motif_compile() */
    int n_pat;
    uint8_t *rc;         /* storage of the reverse-complement masks */
    int min_len, max_len;
} sg_motif_set_t;

/** Base set of an IUPAC letter (either case), 0 if it is not one of ACGTRYSWKMBDHVN. */
uint8_t sg_iupac_mask(int c);

/** Complement of a base letter: A<->T, C<->G in either case; any other byte as it is. */
static inline char sg_base_complement(char c)
{
    switch (c) {
    case 'A': return 'T';
    case 'C': return 'G';
    case 'G': return 'C';
    case 'T': return 'A';
    case 'a': return 't';
    case 'c': return 'g';
    case 'g': return 'c';
    case 't': return 'a';
    default: return c;
    }
}

/** Complement of a base set (A<->T, C<->G). */
static inline uint8_t sg_mask_complement(uint8_t m)
{
    return (uint8_t)(((m & 1) << 3) | ((m & 8) >> 3) | ((m & 2) << 1) | ((m & 4) >> 1));
}

/**
 * Add one motif.
 * @param name  name to report, or NULL to report the motif itself
 * @return 0, or SG_ERR_INPUT with a message in err
 */
int sg_motif_add(sg_motif_set_t *ms, const char *name, const char *seq, char *err, size_t errsz)
    __attribute__((warn_unused_result));

/**
 * Add the motifs of a file: FASTA (name = first word of the header) or lines
 * "[name<TAB>]motif"; blank lines and lines starting with '#' are skipped.
 * Plain or gzip-compressed.
 * @return number of motifs added, or SG_ERR_INPUT with a message in err
 */
int sg_motif_load(sg_motif_set_t *ms, const char *path, char *err, size_t errsz)
    __attribute__((warn_unused_result));

/** Build the patterns for the strands asked for (SG_STRAND_*). Call after the last add. */
void sg_motif_compile(sg_motif_set_t *ms, int strands);

void sg_motif_set_free(sg_motif_set_t *ms);

#endif
