/* Graphs for seqgpu scc: a bidirected sequence graph (unitigs, GFA segments),
 * seen as a directed graph over oriented segments, or a plain directed graph
 * (--edges). */
#ifndef SG_GRAPH_H
#define SG_GRAPH_H

#include <stddef.h>
#include <stdint.h>

/* Oriented graphs: segment i has vertices 2i (+) and 2i+1 (-); an edge
 * u+ -> v+ comes with its complement v- -> u-. Plain graphs: vertex i is
 * node i. */
static inline uint32_t sg_vert(uint32_t node, int reverse) { return 2 * node + (reverse != 0); }
static inline uint32_t sg_vert_flip(uint32_t v) { return v ^ 1; }

typedef struct {
    uint32_t from, to; /* vertices */
    uint32_t ovl;      /* bases shared by the two segments */
} sg_edge_t;

typedef struct {
    int oriented;       /* 1: sequence segments with two orientations; 0: plain directed graph */
    int k;              /* k-mer size of a de Bruijn graph, 0 if unknown */
    int reads;          /* 1: the segments are reads (the overlap graph): count_sum holds the bases each stands for */
    uint32_t n;         /* nodes (segments) */
    uint32_t n_vert;    /* vertices: 2n oriented, n plain */
    char **name;        /* node names (GFA), or NULL: unitigs are named 1..n */
    int64_t *label;     /* plain graphs: each node's id in the input */
    char *seq;          /* oriented graphs: the sequences, seq_off[i] .. seq_off[i+1] */
    uint64_t *seq_off;
    uint64_t *star_len; /* GFA: LN of each segment given without a sequence ('*'), whose bases seq does
                         * not hold (a file of a few bytes may declare gigabases); 0 for the others; or NULL */
    uint64_t *kmers;    /* k-mers of each node (for mean counts) */
    double *count_sum;  /* sum of the k-mer counts of each node */
    uint64_t *off;      /* CSR: successors of vertex v are adj[off[v] .. off[v+1]) */
    uint32_t *adj, *ovl;
    uint64_t n_edges;   /* directed edges (an oriented link counts twice) */
} sg_graph_t;

/** Build the CSR from a list of directed edges (duplicates removed). The
 * caller has set oriented, n and n_vert. */
void sg_graph_set_edges(sg_graph_t *g, sg_edge_t *e, uint64_t n_edges);

/** Does node i come without its sequence (GFA '*' with LN)? */
static inline int sg_graph_no_seq(const sg_graph_t *g, uint32_t i) { return g->star_len && g->star_len[i]; }

/** Length of node i's sequence. */
static inline uint64_t sg_graph_len(const sg_graph_t *g, uint32_t i)
{
    return sg_graph_no_seq(g, i) ? g->star_len[i] : g->seq_off[i + 1] - g->seq_off[i];
}

/** Name of node i into buf ("17" for unnamed unitigs, the input id for plain graphs). */
const char *sg_graph_name(const sg_graph_t *g, uint32_t i, char *buf, size_t n);

void sg_graph_free(sg_graph_t *g);

/**
 * Strongly connected components by Tarjan's algorithm (src/scc/tarjan.c),
 * iteratively (a chain of millions of vertices needs no deep stack).
 * @param comp  out: component of each vertex, numbered 0.. in order of completion
 * @return number of components
 */
uint32_t sg_scc_tarjan(const sg_graph_t *g, uint32_t *comp);

/**
 * Renumber components in place: comp[v] holds any label below n, the same
 * for the vertices of one component; afterwards components are numbered
 * 0.. in the order of their first vertex, whichever algorithm labelled them.
 * @return number of components
 */
uint32_t sg_scc_renumber(uint32_t n, uint32_t *comp);

#endif
