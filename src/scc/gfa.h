/* GFA 1.0 in and out, and plain edge lists, for seqgpu scc. */
#ifndef SG_GFA_H
#define SG_GFA_H

#include <stdint.h>
#include <stdio.h>

#include "scc/graph.h"
#include "formats/seqio.h"

/**
 * Read segments (S) and links (L) into an oriented graph from a reader
 * whose format is SG_FMT_GFA (sg_reader_format()); other lines are skipped.
 * Depth comes from KC (k-mer count), km or DP (mean depth) or RC (read
 * count) tags; k from the links' overlaps. A segment without a sequence
 * ('*') has the length LN:i says, and no bases (sg_graph_no_seq()).
 * @return 0, or SG_ERR_INPUT with the message printed (file and line)
 */
int sg_gfa_parse(sg_reader_t *r, sg_graph_t *g) __attribute__((warn_unused_result));

/** The same from one file, which must be a GFA graph. */
int sg_gfa_read(const char *path, sg_graph_t *g) __attribute__((warn_unused_result));

/**
 * Read a directed graph given as lines "from<whitespace>to" of integers
 * ('#' comments and blank lines skipped); nodes keep their ids as labels.
 * @return 0, or SG_ERR_INPUT with the message printed
 */
int sg_edges_read(const char *path, sg_graph_t *g) __attribute__((warn_unused_result));

/**
 * Write g as GFA 1.0: S lines first (LN, KC and DP tags, or RC for reads;
 * LB and CL tags naming and colouring the component when comp_of is
 * given), then each link once.
 * Write errors are the caller's to check (sg_outfiles_close()).
 * @param keep     nodes to write, or NULL for all
 * @param comp_of  component number (from 1) of each node, or NULL
 */
void sg_gfa_write(FILE *fp, const sg_graph_t *g, const uint8_t *keep, const uint32_t *comp_of);

#endif
