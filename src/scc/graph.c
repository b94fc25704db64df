#include "scc/graph.h"
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An adjacency entry while the CSR is built: target, then overlap. */
static int cmp_target(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A counting sort by source, then each vertex's (short) list sorted by
 * target and overlap and its duplicate targets dropped (the smallest overlap
 * stays): linear in the edges, where one qsort of tens of millions of edges
 * took seconds. */
void sg_graph_set_edges(sg_graph_t *g, sg_edge_t *e, uint64_t n)
{
    free(g->off);
    free(g->adj);
    free(g->ovl);
    const uint32_t nv = g->n_vert;
    uint64_t *off = sg_calloc((uint64_t)nv + 2, sizeof *off);
    for (uint64_t i = 0; i < n; i++) off[e[i].from + 2]++;
    for (uint32_t v = 0; v < nv; v++) off[v + 2] += off[v + 1];
    uint64_t *item = sg_malloc((n + 1) * sizeof *item); /* target << 32 | overlap */
    for (uint64_t i = 0; i < n; i++) item[off[e[i].from + 1]++] = (uint64_t)e[i].to << 32 | e[i].ovl;
    /* off[v] .. off[v + 1] is now v's range; sort and deduplicate each in place */
    uint64_t m = 0;
    for (uint32_t v = 0; v < nv; v++) {
        uint64_t a = off[v], b = off[v + 1];
        off[v] = m;
        if (b - a > 1) qsort(item + a, b - a, sizeof *item, cmp_target);
        for (uint64_t j = a; j < b; j++)
            if (m == off[v] || item[j] >> 32 != item[m - 1] >> 32) item[m++] = item[j];
    }
    off[nv] = m;
    g->off = sg_realloc(off, ((uint64_t)nv + 1) * sizeof *off);
    g->adj = sg_malloc((m + 1) * sizeof *g->adj);
    g->ovl = sg_malloc((m + 1) * sizeof *g->ovl);
    for (uint64_t i = 0; i < m; i++) {
        g->adj[i] = (uint32_t)(item[i] >> 32);
        g->ovl[i] = (uint32_t)item[i];
    }
    free(item);
    g->n_edges = m;
}

const char *sg_graph_name(const sg_graph_t *g, uint32_t i, char *buf, size_t n)
{
    if (g->name) return g->name[i];
    if (g->label) snprintf(buf, n, "%lld", (long long)g->label[i]);
    else snprintf(buf, n, "%u", i + 1);
    return buf;
}

void sg_graph_free(sg_graph_t *g)
{
    if (g->name)
        for (uint32_t i = 0; i < g->n; i++) free(g->name[i]);
    free(g->name);
    free(g->label);
    free(g->seq);
    free(g->seq_off);
    free(g->star_len);
    free(g->kmers);
    free(g->count_sum);
    free(g->off);
    free(g->adj);
    free(g->ovl);
    memset(g, 0, sizeof *g);
}
