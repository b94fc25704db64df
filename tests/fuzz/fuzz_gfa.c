/* libFuzzer: the GFA and edge-list readers on any bytes. Whatever graph they
 * accept must give SCCs that partition its vertices into classes of mutual
 * reachability (twins of each other when oriented), and the repeat report
 * and its pictures (valid UTF-8, finite coordinates); a GFA graph written
 * and read again must be the same graph. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scc/gfa.h"
#include "scc/graph.h"
#include "formats/json.h"
#include "scc/pictures.h"
#include "scc/repeats.h"
#include "fuzz_util.h"

/* Graphs up to this many vertices get the reachability check (n^3 / 64 work). */
#define SMALL 256

/* Vertices reachable from each vertex, as rows of 64-bit words, by
 * repeated relaxation over the edges (no code shared with Tarjan). */
static uint64_t *reachability(const sg_graph_t *g, int words)
{
    uint64_t *r = calloc((size_t)g->n_vert * words + 1, sizeof *r);
    for (uint32_t v = 0; v < g->n_vert; v++) r[(size_t)v * words + v / 64] |= 1ull << (v % 64);
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t v = 0; v < g->n_vert; v++)
            for (uint64_t j = g->off[v]; j < g->off[v + 1]; j++)
                for (int w = 0; w < words; w++) {
                    uint64_t *x = &r[(size_t)v * words + w], y = *x | r[(size_t)g->adj[j] * words + w];
                    if (y != *x) *x = y, changed = 1;
                }
    }
    return r;
}

static void check_partition(const sg_graph_t *g, const uint32_t *comp, uint32_t n_comp)
{
    const uint32_t n = g->n_vert, NONE = UINT32_MAX;
    uint32_t *size = calloc((size_t)n_comp + 1, sizeof *size), *twin = malloc(((size_t)n_comp + 1) * sizeof *twin);
    for (uint32_t c = 0; c < n_comp; c++) twin[c] = NONE;
    for (uint32_t v = 0; v < n; v++) {
        if (comp[v] >= n_comp) fuzz_fail("vertex %u in component %u of %u", v, comp[v], n_comp);
        size[comp[v]]++;
        if (g->oriented) {
            /* the flipped vertices of a component are one component */
            uint32_t t = comp[sg_vert_flip(v)];
            if (twin[comp[v]] == NONE) twin[comp[v]] = t;
            else if (twin[comp[v]] != t) fuzz_fail("component %u has no single twin", comp[v]);
        }
    }
    for (uint32_t c = 0; c < n_comp; c++)
        if (!size[c]) fuzz_fail("component %u of %u is empty", c, n_comp);
    if (n <= SMALL) {
        int words = (int)(n + 63) / 64;
        uint64_t *r = reachability(g, words);
        for (uint32_t u = 0; u < n; u++)
            for (uint32_t v = 0; v < n; v++) {
                int both = (r[(size_t)u * words + v / 64] >> (v % 64) & 1) && (r[(size_t)v * words + u / 64] >> (u % 64) & 1);
                if (both != (comp[u] == comp[v])) fuzz_fail("vertices %u and %u: mutually reachable %d, one component %d", u, v, both, comp[u] == comp[v]);
            }
        free(r);
    }
    free(size);
    free(twin);
}

/* A picture: valid UTF-8 (names are escaped), and in the attributes that
 * place things only numbers and path commands, absolute or relative lines
 * among them (no nan, no inf). */
static void check_svg(const char *s, size_t n, const char *what)
{
    static const char *const geometry[] = {"x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "width", "height", "d", "points"};
    for (size_t at = 0; at < n;) {
        size_t c = sg_utf8_char((const unsigned char *)s + at);
        if (!c) fuzz_fail("%s: a byte that is not UTF-8 at %zu", what, at);
        at += c;
    }
    /* tags, and their attributes one by one: name="value", a value never
     * holding a quote (escaped), so that no text is taken for an attribute */
    for (const char *p = s; (p = strchr(p, '<'));) {
        p += strcspn(p, " >");
        while (*p == ' ') {
            const char *name = p + 1, *eq = strchr(name, '=');
            if (!eq || eq[1] != '"') fuzz_fail("%s: an attribute without a quoted value", what);
            const char *v = eq + 2, *close = strchr(v, '"');
            if (!close) fuzz_fail("%s: an attribute value without its end", what);
            for (size_t i = 0; i < sizeof geometry / sizeof *geometry; i++)
                if ((size_t)(eq - name) == strlen(geometry[i]) && !strncmp(name, geometry[i], (size_t)(eq - name)) &&
                    strspn(v, "0123456789.-, MAQLHVhvzZ") < (size_t)(close - v))
                    fuzz_fail("%s: %.*s is not a number", what, (int)(close + 1 - name), name);
            p = close + 1;
        }
    }
}

static void analyse(sg_graph_t *g)
{
    uint32_t *comp = malloc(((size_t)g->n_vert + 1) * sizeof *comp);
    uint32_t n = sg_scc_tarjan(g, comp);
    check_partition(g, comp, n);
    if (g->oriented) {
        sg_repeats_t r;
        sg_repeats_find(g, comp, n, 1.0, &r);
        char *svg = NULL, *in[] = {"graph.gfa"};
        size_t len = 0;
        FILE *fp = open_memstream(&svg, &len);
        sg_repeat_view_t view[SG_PICTURE_REPEATS];
        uint32_t n_view = r.n < SG_PICTURE_REPEATS ? r.n : SG_PICTURE_REPEATS;
        sg_repeat_views(g, comp, &r, n_view, view);
        const sg_repeat_pictures_t pics = {.g = g, .comp = comp, .view = view, .n_view = n_view};
        sg_repeats_svg(fp, &r, &pics, g->k, in, 1);
        fclose(fp);
        check_svg(svg, len, "repeats.svg");
        free(svg);
        for (uint32_t i = 0; i < n_view; i++) free(view[i].spectrum);
        fp = open_memstream(&svg, &len);
        sg_landscape_svg(fp, &r, g->k, in, 1);
        fclose(fp);
        check_svg(svg, len, "landscape.svg");
        free(svg);
        uint64_t *hist = malloc(SG_HIST_BINS * sizeof *hist);
        sg_spectrum_t sp;
        sg_spectrum_of_graph(g, hist, SG_HIST_BINS, &sp);
        fp = open_memstream(&svg, &len);
        sg_spectrum_svg(fp, &sp, in, 1);
        fclose(fp);
        check_svg(svg, len, "spectrum.svg");
        free(svg);
        free(hist);
        sg_repeats_free(&r);
    }
    free(comp);
}

/* Write g, read it back: the same segments (names, sequences, k-mer count
 * sums to the integer that KC holds) and the same links. */
static void round_trip(const sg_graph_t *a)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/seqgpu-fuzz-gfa.%d.gfa", (int)getpid());
    FILE *fp = fopen(path, "w");
    if (!fp) fuzz_fail("cannot create '%s'", path);
    sg_gfa_write(fp, a, NULL, NULL);
    if (fclose(fp) != 0) fuzz_fail("writing '%s' failed", path);
    sg_graph_t b;
    if (sg_gfa_read(path, &b) < 0) fuzz_fail("the written graph cannot be read");
    unlink(path);
    if (b.n != a->n || b.n_vert != a->n_vert || b.n_edges != a->n_edges || !b.oriented)
        fuzz_fail("%u segments, %llu edges written; %u, %llu read", a->n, (unsigned long long)a->n_edges, b.n,
                  (unsigned long long)b.n_edges);
    for (uint32_t i = 0; i < a->n; i++) {
        if (strcmp(a->name[i], b.name[i])) fuzz_fail("segment %u: name '%s' read as '%s'", i, a->name[i], b.name[i]);
        uint64_t len = sg_graph_len(a, i);
        int no_seq = sg_graph_no_seq(a, i); /* '*' with a length: no bases to compare */
        if (sg_graph_no_seq(&b, i) != no_seq)
            fuzz_fail("segment '%s': '*' written, read %s", a->name[i], no_seq ? "with bases" : "as '*'");
        if (sg_graph_len(&b, i) != len || (!no_seq && memcmp(a->seq + a->seq_off[i], b.seq + b.seq_off[i], len)))
            fuzz_fail("segment '%s': sequence of %llu bases read as %llu", a->name[i], (unsigned long long)len,
                      (unsigned long long)sg_graph_len(&b, i));
        if (!(fabs(a->count_sum[i] - b.count_sum[i]) <= 0.5))
            fuzz_fail("segment '%s': k-mer count sum %g read as %g", a->name[i], a->count_sum[i], b.count_sum[i]);
    }
    for (uint32_t v = 0; v <= a->n_vert; v++)
        if (a->off[v] != b.off[v]) fuzz_fail("vertex %u: links differ", v);
    for (uint64_t j = 0; j < a->n_edges; j++)
        if (a->adj[j] != b.adj[j] || a->ovl[j] != b.ovl[j]) fuzz_fail("link %llu differs", (unsigned long long)j);
    sg_graph_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0) return 0;
    sg_graph_t g;
    if (sg_gfa_read(path, &g) == 0) {
        analyse(&g);
        round_trip(&g);
    }
    sg_graph_free(&g);
    if (sg_edges_read(path, &g) == 0) analyse(&g);
    sg_graph_free(&g);
    close(fd);
    return 0;
}
