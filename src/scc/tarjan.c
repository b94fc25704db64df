/* The cpu SCC solver: Tarjan's algorithm without recursion, then the
 * components numbered in the order of their first vertex. */
#include "scc/backend.h"
#include "core/log.h"

#include <stdlib.h>

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

static int tarjan_solve(sg_scc_solver_t *s, const sg_graph_t *g, uint32_t *comp, uint32_t *n_comp)
{
    (void)s;
    sg_scc_tarjan(g, comp);
    *n_comp = sg_scc_renumber(g->n_vert, comp);
    return 0;
}

static void tarjan_free(sg_scc_solver_t *s) { free(s); }

int sg_scc_solver_cpu(const sg_scc_opts_t *o, sg_scc_solver_t **out, char *err, size_t errsz)
{
    (void)o, (void)err, (void)errsz; /* nothing to set, nothing can fail */
    sg_scc_solver_t *s = sg_calloc(1, sizeof *s);
    s->name = "cpu";
    s->solve = tarjan_solve;
    s->free = tarjan_free;
    *out = s;
    return 0;
}
