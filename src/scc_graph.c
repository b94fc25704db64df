#include "scc_graph.h"
#include "log.h"

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

/* Tarjan with an explicit stack of (vertex, next edge) frames. */
uint32_t sg_scc_tarjan(const sg_graph_t *g, uint32_t *comp)
{
    const uint32_t n = g->n_vert, NONE = UINT32_MAX;
    uint32_t *index = sg_malloc(((size_t)n + 1) * sizeof *index);
    uint32_t *low = sg_malloc(((size_t)n + 1) * sizeof *low);
    uint32_t *stack = sg_malloc(((size_t)n + 1) * sizeof *stack);     /* Tarjan's stack of open vertices */
    uint32_t *call_v = sg_malloc(((size_t)n + 1) * sizeof *call_v);   /* the DFS, as frames */
    uint64_t *call_e = sg_malloc(((size_t)n + 1) * sizeof *call_e);
    uint8_t *on_stack = sg_calloc((size_t)n + 1, 1);
    for (uint32_t v = 0; v < n; v++) index[v] = NONE;
    uint32_t next_index = 0, n_comp = 0, sp = 0;
    for (uint32_t root = 0; root < n; root++) {
        if (index[root] != NONE) continue;
        uint32_t depth = 0;
        call_v[0] = root;
        call_e[0] = g->off[root];
        index[root] = low[root] = next_index++;
        stack[sp++] = root;
        on_stack[root] = 1;
        while (1) {
            uint32_t v = call_v[depth];
            if (call_e[depth] < g->off[v + 1]) {
                uint32_t w = g->adj[call_e[depth]++];
                if (index[w] == NONE) { /* descend */
                    index[w] = low[w] = next_index++;
                    stack[sp++] = w;
                    on_stack[w] = 1;
                    depth++;
                    call_v[depth] = w;
                    call_e[depth] = g->off[w];
                } else if (on_stack[w] && index[w] < low[v]) {
                    low[v] = index[w];
                }
                continue;
            }
            /* v is done: close its component if it is a root, then return to its caller */
            if (low[v] == index[v]) {
                uint32_t w;
                do {
                    w = stack[--sp];
                    on_stack[w] = 0;
                    comp[w] = n_comp;
                } while (w != v);
                n_comp++;
            }
            if (depth == 0) break;
            depth--;
            uint32_t u = call_v[depth];
            if (low[v] < low[u]) low[u] = low[v];
        }
    }
    free(index);
    free(low);
    free(stack);
    free(call_v);
    free(call_e);
    free(on_stack);
    return n_comp;
}

uint32_t sg_scc_renumber(uint32_t n, uint32_t *comp)
{
    const uint32_t NONE = UINT32_MAX;
    uint32_t *num = sg_malloc(((size_t)n + 1) * sizeof *num), next = 0;
    for (uint32_t v = 0; v < n; v++) num[v] = NONE;
    for (uint32_t v = 0; v < n; v++) {
        uint32_t *x = &num[comp[v]];
        if (*x == NONE) *x = next++;
        comp[v] = *x;
    }
    free(num);
    return next;
}
