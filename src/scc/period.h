/* The period and repeat unit of a tandem array from reads of it (seqgpu scc
 * -g overlap), with their errors:
 *
 *  - the distance spectrum: every k-mer of a read against its previous
 *    occurrence in the same read, the distances counted, each within 2%
 *    (the reads' insertions and deletions spread a long period's
 *    distances) and a quarter period; its peaks, with the pairs at their
 *    multiples folded in, are the candidate periods;
 *  - the periodicity test: the stretches of each read where k-mers recur
 *    one, two or three candidate periods on; the period is the candidate
 *    whose stretches cover the most of the reads, and there is none when
 *    they cover under a fifth (a divisor of the period, 1 above all,
 *    explains every distance the period does: the spectrum alone cannot
 *    tell an array from the homopolymers and microsatellites of unique
 *    sequence);
 *  - the unit: the copies of one period between successive occurrences of
 *    the k-mer seen most often one period apart, aligned to the copy of
 *    median length and voted on, column by column and gap by gap, until
 *    the consensus holds still; its length is the period in the genome's
 *    bases (a read's distances are stretched by its net insertions).
 */
#ifndef SG_SCC_PERIOD_H
#define SG_SCC_PERIOD_H

#include <stdint.h>

/* the spectrum's k-mer size, the longest period looked for, and the bases
 * of reads looked at (enough copies of any period up to that) */
#define SG_PERIOD_K 12
#define SG_PERIOD_MAX 16384
#define SG_PERIOD_BASES (1u << 20)

typedef struct {
    uint32_t period;  /* bases: the consensus unit's length, or the spectrum's distance when there is no consensus; 0: none */
    int tandem;       /* the period's stretches cover half the reads, it explains most repeated k-mers, and no other period competes */
    char *unit;       /* the consensus of one period, its least rotation on either strand ("" without one) */
    double support;   /* the share of the repeated k-mer pairs at the period's multiples */
    double share;     /* the share of the reads' bases in stretches periodic at the spectrum's period */
    uint32_t copies;  /* copies the consensus was voted from */
} sg_period_t;

/* Where one read repeats itself at a period. */
typedef struct {
    uint64_t bases;      /* in its periodic stretches */
    uint32_t start, end; /* the first stretch's start and the last one's end (0 and 0: none) */
    uint32_t longest;    /* the longest stretch */
} sg_period_extent_t;

/* The last place of each SG_PERIOD_K-mer of one sequence (sg_repeated_kmers's
 * table, reused from one sequence to the next; zero it to start). */
typedef struct {
    uint32_t *key, *pos; /* key: k-mer + 1, 0 empty */
    uint32_t mask;
} sg_kmer_last_t;

/**
 * Calls f(arg, x, i, d) for every SG_PERIOD_K-mer x of s[0..len) (A/C/G/T,
 * either case; any other letter starts k-mers again) that ends at i, d
 * bases after its previous place, when d <= max_d: the distance spectrum's
 * pairs (sg_period_find's, and src/scc/loci.h's sg_distance_spectrum).
 */
void sg_repeated_kmers(const char *s, uint32_t len, uint32_t max_d, sg_kmer_last_t *t,
                       void (*f)(void *, uint32_t, uint32_t, uint32_t), void *arg);
void sg_kmer_last_free(sg_kmer_last_t *t);
/** An f for sg_repeated_kmers: counts d in the uint64_t array arg. */
void sg_count_distance(void *arg, uint32_t x, uint32_t i, uint32_t d);

/**
 * The period of reads seqs[0..n) (letters, either case, any strand), lens
 * their lengths. Only the first SG_PERIOD_BASES or so are looked at.
 */
void sg_period_find(const char *const *seqs, const uint32_t *lens, uint32_t n, sg_period_t *out);

/**
 * The stretches of read s (len letters, either case) periodic at period
 * (sg_period_find's test), into *out: all zero for period 0 or none.
 */
void sg_period_extent(const char *s, uint32_t len, uint32_t period, sg_period_extent_t *out);

void sg_period_free(sg_period_t *p);

#endif
