/* Repeats from strongly connected components of a sequence graph: a
 * component of two or more vertices, or one vertex with a link to itself,
 * folded with its reverse-complement twin and reported once. */
#ifndef SG_REPEATS_H
#define SG_REPEATS_H

#include <stdint.h>
#include <stdio.h>

#include "scc_graph.h"

typedef struct {
    int tandem;         /* one simple cycle; else complex */
    uint32_t n_nodes;   /* unitigs (segments) */
    uint64_t kmers;
    uint64_t period;    /* shortest cycle through the highest-count unitig, in bases */
    double mean_count;  /* mean k-mer count */
    double copies;      /* mean count / coverage */
    char *unit;         /* that cycle's sequence, as its least rotation on either strand */
    uint32_t *nodes;    /* the members, ascending */
} sg_repeat_t;

typedef struct {
    sg_repeat_t *r;     /* ordered by k-mers x mean count, largest first; reported ids are index + 1 */
    uint32_t n;
    uint32_t *node_repeat; /* per node: its repeat's id, 0 for none */
} sg_repeats_t;

/**
 * Find the repeats of an oriented graph given its SCC partition (comp per
 * vertex, as sg_scc_tarjan gives).
 */
void sg_repeats_find(const sg_graph_t *g, const uint32_t *comp, uint32_t n_comp, double coverage, sg_repeats_t *out);
void sg_repeats_free(sg_repeats_t *r);

/** The least rotation of s[0..n) (Booth's algorithm): its start. */
uint64_t sg_least_rotation(const char *s, uint64_t n);

/** The canonical form of a cyclic unit: the least of its rotations and of its reverse complement's. */
char *sg_canonical_unit(const char *s, uint64_t n);

/**
 * The repeats with the most copies, most first (ties in report order): what
 * the pictures and the MultiQC table show.
 * @param idx  out: up to max indexes into r->r
 * @return how many: min(max, r->n)
 */
uint32_t sg_repeats_by_copies(const sg_repeats_t *r, uint32_t max, uint32_t *idx);

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

/** node, component: every node of a non-trivial component (for plain graphs, comp numbering) */
void sg_components_write(FILE *fp, const sg_graph_t *g, const uint32_t *node_comp);

#endif
