/* Passes over the sequence once the de Bruijn graph of its kept k-mers is
 * built (on all threads, their results in its order):
 *  - bridges over the graph's breaks, before the SCCs: where the sequence
 *    goes from one unitig's end to another's start across k-mers under the
 *    threshold;
 *  - the loci of an assembly's repeats (seqgpu scc on a genome, where each
 *    copy of a repeat is counted once): where the k-mers of each repeat's
 *    unitigs lie in the sequence, grouped into loci (the k-mers looked up),
 *    each with its period, copies, the identity between its copies and the
 *    strand of its unit (the loci's bases read); the repeats then sum their
 *    loci. */
#ifndef SG_SCC_LOCI_H
#define SG_SCC_LOCI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scc/graph.h"
#include "scc/repeats.h"

/* the k-mer of the distance spectra and the longest distance counted */
#define SG_SPECTRUM_K 12
#define SG_SPECTRUM_MAX 32768
/* the bases of a repeat's largest locus kept for its picture */
#define SG_LOCUS_SEQ_MAX (4u << 20)

typedef struct {
    uint32_t rec;       /* its record: an index into the names */
    uint32_t repeat;    /* an index into the repeats */
    uint64_t start, end; /* 0-based, end exclusive */
    char strand;        /* the unit read forwards (+), reverse-complemented (-), or either ('.') */
    uint32_t period;    /* its own: where most of its SG_SPECTRUM_K-mers come back (else the repeat's) */
    float identity;     /* between adjacent copies, 0 to 1; below 0: under two copies */
} sg_locus_t;

/* What the picture of a repeat shows of its loci. */
typedef struct {
    uint64_t *spectrum; /* spectrum[d], 1 <= d <= SG_SPECTRUM_MAX: SG_SPECTRUM_K-mers of its loci whose previous
                         * place in the locus is d bases before */
    char *seq;          /* its largest locus's first bases (SG_LOCUS_SEQ_MAX at most), or NULL */
    uint64_t len;
    size_t locus;       /* the index of that locus */
} sg_locus_view_t;

typedef struct {
    sg_locus_t *l;      /* by record (input order), start, end, repeat */
    size_t n;
    char **names;       /* the records that hold loci (and some that hold a repeat's k-mers alone) */
    int64_t *rids;      /* their numbers over all the inputs, from 0 */
    uint32_t n_names;
    sg_locus_view_t *view; /* of the first n_view repeats (report order) */
    uint32_t n_view;
} sg_loci_t;

typedef struct {
    char *const *inputs; /* the sequence (an assembly, or reads), read again */
    int n_inputs;
    int n_threads;
    size_t read_block;
    uint32_t n_view;     /* loci: the repeats, first in report order, whose loci are kept for the pictures */
    uint32_t max_gap;    /* bridges: the most k-mers under the threshold one crosses (0: none) */
    uint32_t min_support; /* bridges: the fewest times the sequence shows one */
} sg_loci_opts_t;

/**
 * Bridges over the breaks of a de Bruijn graph of sequence (g, its
 * unitigs, canonical): where the sequence reads the last k-mer of one
 * oriented unitig and, 2 to max_gap + 1 k-mers on, the first of one, with
 * no kept k-mer between (the k-mers of a variant that copies of an array
 * share, each under the threshold, where the array's cycle breaks), the
 * bases between become a segment linked to the two ends (overlaps of k - 1),
 * when the sequence shows them min_support times or more (the count of
 * each of its k-mers). A pass over the sequence; the segments are added in
 * the order of their ends and bases, so that the graph does not depend on
 * the threads.
 * @return the bridges added, or a negative SG_ERR_* code (the input's error printed)
 */
int64_t sg_bridges_add(const sg_loci_opts_t *o, sg_graph_t *g) __attribute__((warn_unused_result));

/**
 * Place the repeats of a de Bruijn graph of an assembly (g, its SCCs comp,
 * its repeats rp) in the sequence, and make each repeat the sum of its loci:
 * copies (each locus's length over its period), length (their bases) and
 * loci; then put rp in report order again (sg_repeats_order), the loci
 * numbered after it.
 * @return 0, or a negative SG_ERR_* code (the input's error printed)
 */
int sg_loci_find(const sg_loci_opts_t *o, const sg_graph_t *g, const uint32_t *comp, sg_repeats_t *rp, sg_loci_t *out)
    __attribute__((warn_unused_result));

/** BED6+3: chrom, start, end, repeat id, score (identity x 1000), strand of the unit, its period, copies, identity. */
void sg_loci_write_bed(FILE *fp, const sg_loci_t *l);

/** The header line of PREFIX.loci.bed (a '#' comment, which BED readers and tabix skip). */
void sg_loci_write_header(FILE *fp);

/**
 * The distance spectrum of s[0..len): for each SG_SPECTRUM_K-mer (A/C/G/T
 * only), the distance d to its previous place, counted in spectrum[d] when
 * 1 <= d <= SG_SPECTRUM_MAX (spectrum has min(len, SG_SPECTRUM_MAX + 1) entries).
 */
void sg_distance_spectrum(const char *s, uint64_t len, uint64_t *spectrum);

/**
 * The identity between adjacent copies of a tandem array s[0..len) of
 * period p: a banded alignment of the array against itself one period on
 * (s[0..len-p) with s[p..len)), 1 - its edits over len - p.
 * @return 0 to 1, or -1 when len < 2p (under two copies)
 */
double sg_copy_identity(const char *s, uint64_t len, uint64_t p);

void sg_loci_free(sg_loci_t *l);

#endif
