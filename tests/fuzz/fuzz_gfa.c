/* libFuzzer: the GFA and edge-list readers on any bytes, then SCCs and the
 * repeat report of whatever graph they accept. */
#define _GNU_SOURCE
#include <stdlib.h>

#include "../../formats/gfa.h"
#include "../../src/scc_graph.h"
#include "../../src/scc_repeats.h"
#include "fuzz_util.h"

static void analyse(sg_graph_t *g)
{
    uint32_t *comp = malloc(((size_t)g->n_vert + 1) * sizeof *comp);
    uint32_t n = sg_scc_tarjan(g, comp);
    if (g->oriented) {
        sg_repeats_t r;
        sg_repeats_find(g, comp, n, 1.0, &r);
        sg_repeats_free(&r);
    }
    free(comp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0) return 0;
    sg_graph_t g;
    if (sg_gfa_read(path, &g) == 0) analyse(&g);
    sg_graph_free(&g);
    if (sg_edges_read(path, &g) == 0) analyse(&g);
    sg_graph_free(&g);
    close(fd);
    return 0;
}
