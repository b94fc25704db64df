/* GFA 1.0 in and out, and plain edge lists, for seqgpu scc. */
#ifndef SG_GFA_H
#define SG_GFA_H

#include <stdint.h>

#include "../src/graph.h"

/** Does the file start like GFA (a line beginning "H\t", "S\t" or "L\t")?
 * Standard input ("-") is never probed: reading it would consume it. */
int sg_is_gfa(const char *path);

/**
 * Read segments (S) and links (L) into an oriented graph; other lines are
 * skipped. Depth comes from KC (k-mer count), km or DP (mean depth) or RC
 * (read count) tags; k from the links' overlaps.
 * @return 0, or SG_ERR_INPUT with the message printed (file and line)
 */
int sg_gfa_read(const char *path, sg_graph_t *g) __attribute__((warn_unused_result));

/**
 * Read a directed graph given as lines "from<whitespace>to" of integers
 * ('#' comments and blank lines skipped); nodes keep their ids as labels.
 * @return 0, or SG_ERR_INPUT with the message printed
 */
int sg_edges_read(const char *path, sg_graph_t *g) __attribute__((warn_unused_result));

/**
 * Write g as GFA 1.0: S lines first (LN, KC, DP tags; LB and CL tags naming
 * and colouring the component when comp_of is given), then each link once.
 * @param keep     nodes to write, or NULL for all
 * @param comp_of  component number (from 1) of each node, or NULL
 * @return 0, or SG_ERR_SYSTEM when writing fails (message printed)
 */
int sg_gfa_write(const char *path, const sg_graph_t *g, const uint8_t *keep, const uint32_t *comp_of)
    __attribute__((warn_unused_result));

#endif
