/* Strongly connected components on a CUDA device: the pipeline of patent
 * CN111754383B (seed 003) over a graph's CSR, after the graph's chains have
 * been contracted by pointer jumping. */
#ifndef SG_SCC_CUDA_H
#define SG_SCC_CUDA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../src/scc_graph.h"

typedef struct {
    const char *device; /* device index ("0"; NULL: 0) */
    int kw;             /* threads per virtual warp (1, 2, 4, 8, 16 or 32) */
    int kv;             /* queued vertices per virtual warp (1 or more) */
    int kt;             /* second trim and coloring partition every kt rounds (0: never) */
    int threads;        /* host threads for preparing the copy (0: one) */
} sg_scc_cuda_opts_t;

#define SG_SCC_KW_DEFAULT 4
#define SG_SCC_KV_DEFAULT 2
#define SG_SCC_KT_DEFAULT 2

typedef struct {
    char device[256];
    double init, upload, contract, reverse, trim, fwbw, color, expand, download, total; /* seconds */
    uint64_t chain_vertices, vertices, edges; /* vertices in chains; the contracted graph */
    uint32_t components;
    uint32_t jump_rounds, rounds, colorings, color_sweeps, bfs_levels, trim_steps;
    uint64_t trimmed2; /* vertices in 2-SCCs found by the second trim */
    size_t device_bytes; /* the estimate checked against free memory */
    int degree_bytes;    /* the graph went to the device as byte degrees (1) or offsets (8) */
} sg_scc_cuda_stats_t;

/**
 * SCCs of g (either kind) on the device.
 * @param weight  tie-break of the first pivot for each vertex (k-mer count), or NULL
 * @param comp    out: each vertex's component, numbered 0.. in the order of
 *                their first vertex (as sg_scc_renumber; st->components of them)
 * @return 0, or SG_ERR_DEVICE with the reason in err (no device or driver, too
 *         little device memory, a failed launch)
 */
int sg_scc_cuda(const sg_graph_t *g, const uint32_t *weight, const sg_scc_cuda_opts_t *o, uint32_t *label,
                sg_scc_cuda_stats_t *st, char *err, size_t errsz);

/** Create the device's CUDA context on a thread of its own, to overlap its
 * start-up with reading the graph; sg_scc_cuda waits for it. */
void sg_scc_cuda_warmup(const char *device);
/** Wait for that thread (before exit, if sg_scc_cuda was not called). */
void sg_scc_cuda_warmup_join(void);

/** The stats as JSON members (no braces), for --stats. */
void sg_scc_cuda_stats_json(const sg_scc_cuda_stats_t *st, FILE *fp);

#endif
