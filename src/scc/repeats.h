/* Repeats from strongly connected components of a sequence graph: a
 * component of two or more vertices, or one vertex with a link to itself,
 * folded with its reverse-complement twin and reported once. */
#ifndef SG_REPEATS_H
#define SG_REPEATS_H

#include <stdint.h>
#include <stdio.h>

#include "scc/graph.h"

typedef struct {
    int tandem;         /* one simple cycle; else complex */
    uint32_t n_nodes;   /* unitigs (segments; reads of an overlap graph, the contained ones too) */
    uint64_t kmers;     /* overlap graphs: the bases of those reads */
    uint64_t period;    /* shortest cycle through the highest-count unitig, in bases */
    double mean_count;  /* mean k-mer count (overlap graphs: the read coverage) */
    double copies;      /* mean count / coverage (overlap graphs: length / period; assemblies: its loci's, summed) */
    double length;      /* the bases of all its copies: k-mers x copies (overlap graphs: the array's length
                         * estimate, from the reads that span it, or its reads' bases / the coverage;
                         * assemblies: its loci's bases) */
    double length_min, length_max; /* overlap graphs: the least and the most over the reads that span it (none: the
                                    * longest stretch of it in one read, and 0: unknown) */
    uint32_t spanning;  /* overlap graphs: the reads that span the array */
    uint32_t loci;      /* assemblies: its loci */
    char *unit;         /* that cycle's sequence, as its least rotation on either strand */
    uint32_t *nodes;    /* the members, ascending */
} sg_repeat_t;

/* What the rows of a report are made of, which names its columns. */
enum { SG_REPEATS_DBG, SG_REPEATS_ASSEMBLY, SG_REPEATS_READS };

typedef struct {
    sg_repeat_t *r;     /* ordered by length, most first (sg_repeats_order); reported ids are index + 1 */
    uint32_t n;
    uint32_t *node_repeat; /* per node: its repeat's id, 0 for none */
    int kind;              /* SG_REPEATS_*: the de Bruijn graph of reads (or a GFA graph), of an assembly, or reads
                            * (whose arrays' lengths, length_min, length_max and spanning_reads, are columns too) */
} sg_repeats_t;

/**
 * Find the repeats of an oriented graph given its SCC partition (comp per
 * vertex, as sg_scc_tarjan gives).
 */
void sg_repeats_find(const sg_graph_t *g, const uint32_t *comp, uint32_t n_comp, double coverage, sg_repeats_t *out);

/**
 * How a repeat component is described (the de Bruijn graph's way is
 * sg_repeats_find's): given component c, its vertices mv[0..n) ascending,
 * and r->nodes and r->n_nodes set to their nodes, fill in the rest of r.
 * It may replace r->nodes with a longer list (ascending, from sg_malloc)
 * of the nodes the repeat stands for.
 */
typedef void (*sg_repeat_describe_t)(void *ctx, const sg_graph_t *g, const uint32_t *comp, uint32_t c,
                                     const uint32_t *mv, uint32_t n, sg_repeat_t *r);

/** The repeats of an oriented graph as sg_repeats_find() finds and folds
 * them, each described by describe. */
void sg_repeats_find_by(const sg_graph_t *g, const uint32_t *comp, uint32_t n_comp, sg_repeat_describe_t describe,
                        void *ctx, sg_repeats_t *out);
void sg_repeats_free(sg_repeats_t *r);

/** The least rotation of s[0..n) (Booth's algorithm): its start. */
uint64_t sg_least_rotation(const char *s, uint64_t n);

/** The canonical form of a cyclic unit: the least of its rotations and of its reverse complement's. */
char *sg_canonical_unit(const char *s, uint64_t n);

/**
 * Put the repeats in report order, the longest (most bases in all copies)
 * first, ties by first node, and number the nodes' repeats again: the order
 * of PREFIX.repeats.tsv, the pictures and the MultiQC table alike.
 * @param rank  NULL, or out: rank[i] the new index of the repeat at index i before
 */
void sg_repeats_order(sg_repeats_t *r, uint32_t *rank);

/* the unitigs of a repeat whose cycles make its spectrum */
#define SG_CYCLE_SOURCES 64

/**
 * The cycle spectra of the first n repeats (report order): for each of the
 * SG_CYCLE_SOURCES unitigs of a repeat with the most k-mers, the length of
 * the shortest cycle through it, counted once per k-mer in spectra[i][len]
 * (len <= max; spectra[i] has max + 1 entries). A k-mer of a tandem array
 * comes back after one period: what the distance spectrum of its sequence
 * shows, where the sequence is not at hand (reads).
 */
void sg_repeats_cycle_spectra(const sg_graph_t *g, const uint32_t *comp, const sg_repeats_t *rp, uint32_t n,
                              uint64_t **spectra, uint32_t max);

/** The names of the columns that hold nodes, bases and coverage in a report of this kind. */
void sg_repeats_columns(int kind, const char **nodes, const char **bases, const char **coverage);

/* The report files (write errors are the caller's to check: sg_outfiles_close()). */
void sg_repeats_write_tsv(FILE *fp, const sg_repeats_t *r);
void sg_repeats_write_units(FILE *fp, const sg_repeats_t *r);
/**
 * The components of a plain graph (--edges) worth reporting, those of two or
 * more nodes or with a self-loop: node_comp[node] numbers them 1.. in the
 * order of their first node, 0 for the nodes of the others.
 * @param comp  each node's component, n_comp of them (an SCC solver's)
 * @return how many there are
 */
uint32_t sg_components_plain(const sg_graph_t *g, const uint32_t *comp, uint32_t n_comp, uint32_t *node_comp);

/** node (read, for the overlap graph), component: every node of a non-trivial component (for plain graphs, comp numbering) */
void sg_components_write(FILE *fp, const sg_graph_t *g, const uint32_t *node_comp);

#endif
