/* Read overlaps for seqgpu scc -g overlap: the record that the own
 * overlapper (src/scc/overlap/minimizer.h) and PAF input (src/scc/overlap/paf.c) both give, how
 * one is classified (miniasm's rules), and the overlap graph builder. */
#ifndef SG_SCC_OVERLAP_H
#define SG_SCC_OVERLAP_H

#include <stddef.h>
#include <stdint.h>

#include "scc/backend.h"

/* A local match between reads q and t (q == t: a read that matches itself
 * at an offset). */
typedef struct {
    uint32_t q, t;
    uint32_t qs, qe, ts, te; /* [start, end) on each read's forward strand */
    uint32_t anchors;        /* minimizer hits in the chain (PAF: its cm tag, or 0) */
    uint8_t rev;             /* t's reverse complement is what matches q */
    float identity;          /* estimated, 0 to 1 */
} sg_overlap_t;

/* Takes overlaps as they are found (or read); a negative SG_ERR_* code stops the search. */
typedef int (*sg_overlap_sink_t)(void *arg, const sg_overlap_t *ov, size_t n);

enum {
    SG_OVL_INTERNAL,    /* a match that stops short of both reads' ends (a shared repeat) */
    SG_OVL_SHORT,       /* dovetail or containment shorter than the minimum */
    SG_OVL_Q_CONTAINED, /* q lies inside t */
    SG_OVL_T_CONTAINED, /* t lies inside q */
    SG_OVL_DOVETAIL     /* the end of one read overlaps the start of the other */
};

/* miniasm's defaults: ends left unmatched up to this many bases, and the
 * share of the overlap the match must cover, for a match to count as
 * reaching the reads' ends (beyond, it is internal) */
#define SG_OVL_MAX_HANG 1000
#define SG_OVL_INT_FRAC 0.8

/**
 * What an overlap is, as miniasm's ma_hit2arc says: internal, a
 * containment, too short, or a dovetail. A dovetail gives the edge
 * *from -> *to between oriented reads (sg_vert(read, reverse)), whose
 * complement is sg_vert_flip(*to) -> sg_vert_flip(*from), and *ovl, the
 * overlap in bases (the shorter of its lengths on the two reads).
 * @param ql, tl       the reads' lengths
 * @param min_overlap  the shortest dovetail or containment kept, in bases
 */
int sg_overlap_classify(const sg_overlap_t *o, uint32_t ql, uint32_t tl, uint32_t min_overlap, uint32_t *from,
                        uint32_t *to, uint32_t *ovl);

/** The overlap graph builder on the cpu: the own overlapper on all threads,
 * or the overlaps of o->overlaps (PAF). */
int sg_graph_builder_overlap_cpu(const sg_graph_opts_t *o, sg_graph_builder_t **out, char *err, size_t errsz);

#endif
