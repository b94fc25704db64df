#define _GNU_SOURCE
#include "scc/repeats.h"
#include "core/dna.h"
#include "core/log.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t sg_least_rotation(const char *s, uint64_t n)
{
    if (n < 2) return 0;
    int64_t *f = sg_malloc(2 * n * sizeof *f);
    for (uint64_t i = 0; i < 2 * n; i++) f[i] = -1;
    uint64_t k = 0;
    for (uint64_t j = 1; j < 2 * n; j++) {
        char sj = s[j % n];
        int64_t i = f[j - k - 1];
        while (i != -1 && sj != s[(k + i + 1) % n]) {
            if (sj < s[(k + i + 1) % n]) k = j - i - 1;
            i = f[i];
        }
        if (i == -1 && sj != s[k % n]) {
            if (sj < s[k % n]) k = j;
            f[j - k] = -1;
        } else {
            f[j - k] = i + 1;
        }
    }
    free(f);
    return k % n;
}

/* A unit's complement: a base that is not A/C/G/T (a GFA segment's N or
 * IUPAC letter) becomes N. */
static char comp_base(char c) { return sg_dna_code(c) < 0 ? 'N' : sg_base_complement(c); }

static char *rotate(const char *s, uint64_t n, uint64_t at)
{
    char *r = sg_malloc(n + 1);
    memcpy(r, s + at, n - at);
    memcpy(r + n - at, s, at);
    r[n] = 0;
    return r;
}

char *sg_canonical_unit(const char *s, uint64_t n)
{
    char *up = sg_malloc(n + 1), *rc = sg_malloc(n + 1);
    for (uint64_t i = 0; i < n; i++) up[i] = (char)toupper((unsigned char)s[i]);
    for (uint64_t i = 0; i < n; i++) rc[i] = comp_base(up[n - 1 - i]);
    up[n] = rc[n] = 0;
    char *a = rotate(up, n, sg_least_rotation(up, n)), *b = rotate(rc, n, sg_least_rotation(rc, n));
    free(up);
    free(rc);
    if (strcmp(b, a) < 0) {
        free(a);
        return b;
    }
    free(b);
    return a;
}

/* Append vertex v's oriented sequence, less its first skip bases, to out. */
static void spell(const sg_graph_t *g, uint32_t v, uint32_t skip, char *out, uint64_t *at)
{
    uint32_t i = v >> 1;
    uint64_t len = sg_graph_len(g, i);
    const char *s = g->seq + g->seq_off[i];
    for (uint64_t j = skip; j < len; j++) out[(*at)++] = v & 1 ? comp_base((char)toupper((unsigned char)s[len - 1 - j])) : s[j];
}

typedef struct {
    uint64_t d;
    uint32_t v;
} heap_item_t;

static void heap_push(heap_item_t *h, uint64_t *n, heap_item_t x)
{
    uint64_t i = (*n)++;
    while (i && h[(i - 1) / 2].d > x.d) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = x;
}

static heap_item_t heap_pop(heap_item_t *h, uint64_t *n)
{
    heap_item_t top = h[0], last = h[--(*n)];
    uint64_t i = 0;
    for (;;) {
        uint64_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && h[c + 1].d < h[c].d) c++;
        if (h[c].d >= last.d) break;
        h[i] = h[c];
        i = c;
    }
    if (*n) h[i] = last;
    return top;
}

static uint64_t weight(const sg_graph_t *g, uint64_t edge)
{
    uint64_t len = sg_graph_len(g, g->adj[edge] >> 1);
    return len > g->ovl[edge] ? len - g->ovl[edge] : 0;
}

/* Scratch of the shortest cycles, for a graph of nv vertices. */
typedef struct {
    uint64_t *dist, *prev_edge;
    uint32_t *prev, *touched;
    heap_item_t *heap;
} cycles_t;

static void cycles_init(cycles_t *c, const sg_graph_t *g)
{
    const uint64_t nv = g->n_vert;
    c->dist = sg_malloc((nv + 1) * sizeof *c->dist);
    c->prev_edge = sg_malloc((nv + 1) * sizeof *c->prev_edge);
    c->prev = sg_malloc((nv + 1) * sizeof *c->prev);
    c->touched = sg_malloc((nv + 1) * sizeof *c->touched);
    c->heap = sg_malloc((g->n_edges + 2) * sizeof *c->heap); /* each edge pushes at most once */
    for (uint64_t v = 0; v < nv; v++) c->dist[v] = UINT64_MAX;
}

static void cycles_free(cycles_t *c)
{
    free(c->dist);
    free(c->prev);
    free(c->prev_edge);
    free(c->touched);
    free(c->heap);
}

/* The shortest cycle through s inside component c, spelled when spelt is
 * set (NULL if none, or when a segment on it has no sequence); *period:
 * its length (0: none). */
static char *shortest_cycle(const sg_graph_t *g, const uint32_t *comp, uint32_t s, cycles_t *cy, int spelt,
                            uint64_t *period)
{
    uint64_t *dist = cy->dist, *prev_edge = cy->prev_edge;
    uint32_t *prev = cy->prev, *touched = cy->touched;
    heap_item_t *heap = cy->heap;
    const uint64_t INF = UINT64_MAX;
    uint32_t c = comp[s], n_touched = 0;
    uint64_t n_heap = 0, best = INF, best_edge = 0;
    uint32_t best_from = 0;
    dist[s] = 0;
    touched[n_touched++] = s;
    heap_push(heap, &n_heap, (heap_item_t){0, s});
    while (n_heap) {
        heap_item_t x = heap_pop(heap, &n_heap);
        if (x.d != dist[x.v] || x.d >= best) continue;
        for (uint64_t j = g->off[x.v]; j < g->off[x.v + 1]; j++) {
            uint32_t w = g->adj[j];
            if (comp[w] != c) continue;
            uint64_t d = x.d + weight(g, j);
            if (w == s) { /* closes a cycle */
                if (d < best) best = d, best_from = x.v, best_edge = j;
                continue;
            }
            if (dist[w] == INF) touched[n_touched++] = w;
            if (d < dist[w]) {
                dist[w] = d;
                prev[w] = x.v;
                prev_edge[w] = j;
                heap_push(heap, &n_heap, (heap_item_t){d, w});
            }
        }
    }
    char *out = NULL;
    *period = best != INF ? best : 0;
    if (best != INF && spelt) {
        /* walk back from the vertex that closed the cycle, then spell forwards */
        uint64_t n_steps = 1, m = 16;
        uint64_t *edges = sg_malloc(m * sizeof *edges);
        edges[0] = best_edge;
        int known = 1;
        for (uint32_t v = best_from; v != s; v = prev[v]) {
            if (n_steps == m) edges = sg_realloc(edges, (m *= 2) * sizeof *edges);
            edges[n_steps++] = prev_edge[v];
        }
        for (uint64_t i = 0; i < n_steps; i++) known &= !sg_graph_no_seq(g, g->adj[edges[i]] >> 1);
        if (known) {
            out = sg_malloc(best + 1);
            uint64_t at = 0;
            for (uint64_t i = n_steps; i-- > 0;) spell(g, g->adj[edges[i]], g->ovl[edges[i]], out, &at);
            out[at] = 0;
        }
        free(edges);
    }
    for (uint32_t i = 0; i < n_touched; i++) dist[touched[i]] = INF;
    return out;
}

/* The longest first; a repeat's first node tells ties apart (nodes are in
 * one repeat each). */
static int cmp_length(const void *a, const void *b, void *rp)
{
    const sg_repeat_t *r = rp, *x = &r[*(const uint32_t *)a], *y = &r[*(const uint32_t *)b];
    if (x->length != y->length) return x->length > y->length ? -1 : 1;
    return (x->nodes[0] > y->nodes[0]) - (x->nodes[0] < y->nodes[0]);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The de Bruijn graph's description of a component: k-mers and their mean
 * count, copies (the mean count over the coverage), tandem when the
 * component is one simple cycle, and the period and unit from the shortest
 * cycle through its highest-count unitig. */
typedef struct {
    double coverage;
    cycles_t cycles;
    uint32_t *in_deg;
} dbg_describe_t;

static void describe_dbg(void *ctx, const sg_graph_t *g, const uint32_t *comp, uint32_t c, const uint32_t *mv,
                         uint32_t size, sg_repeat_t *r)
{
    dbg_describe_t *d = ctx;
    double sum = 0;
    uint32_t best = mv[0];
    double best_mean = -1;
    for (uint32_t i = 0; i < r->n_nodes; i++) {
        uint32_t node = r->nodes[i];
        r->kmers += g->kmers[node];
        sum += g->count_sum[node];
    }
    for (uint32_t i = 0; i < size; i++) {
        uint32_t node = mv[i] >> 1;
        double mean = g->kmers[node] ? g->count_sum[node] / g->kmers[node] : 0;
        if (mean > best_mean) best_mean = mean, best = mv[i];
    }
    r->mean_count = r->kmers ? sum / r->kmers : 0;
    r->copies = d->coverage > 0 ? r->mean_count / d->coverage : 0;
    /* a component that is its own twin, as for (CG)n, reads each canonical k-mer in both
     * orientations along the cycle: every copy counts it twice */
    if (comp[sg_vert_flip(mv[0])] == c) r->copies /= 2;
    r->length = (double)r->kmers * r->copies;
    /* one simple cycle: inside the component every vertex has one way in and one way out
     * (also when the component is its own twin, as for an (AT)n array: u+ -> u- -> u+) */
    int tandem = 1;
    for (uint32_t i = 0; i < size && tandem; i++) {
        uint32_t out_deg = 0;
        for (uint64_t j = g->off[mv[i]]; j < g->off[mv[i] + 1]; j++)
            if (comp[g->adj[j]] == c) out_deg++, d->in_deg[g->adj[j]]++;
        tandem = out_deg == 1;
    }
    for (uint32_t i = 0; i < size; i++) {
        if (d->in_deg[mv[i]] != 1) tandem = 0;
        d->in_deg[mv[i]] = 0;
    }
    r->tandem = tandem;
    char *cycle = shortest_cycle(g, comp, best, &d->cycles, 1, &r->period);
    r->unit = cycle ? sg_canonical_unit(cycle, r->period) : sg_strdup("");
    free(cycle);
}

void sg_repeats_find(const sg_graph_t *g, const uint32_t *comp, uint32_t n_comp, double coverage, sg_repeats_t *out)
{
    dbg_describe_t d = {.coverage = coverage};
    cycles_init(&d.cycles, g);
    d.in_deg = sg_calloc((uint64_t)g->n_vert + 1, sizeof *d.in_deg);
    sg_repeats_find_by(g, comp, n_comp, describe_dbg, &d, out);
    cycles_free(&d.cycles);
    free(d.in_deg);
}

/* The unitigs with the most k-mers first, ties by vertex. */
static int cmp_kmers(const void *a, const void *b, void *gp)
{
    const sg_graph_t *g = gp;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint64_t kx = g->kmers[x >> 1], ky = g->kmers[y >> 1];
    if (kx != ky) return kx > ky ? -1 : 1;
    return (x > y) - (x < y);
}

void sg_repeats_cycle_spectra(const sg_graph_t *g, const uint32_t *comp, const sg_repeats_t *rp, uint32_t n,
                              uint64_t **spectra, uint32_t max)
{
    cycles_t cy;
    cycles_init(&cy, g);
    for (uint32_t i = 0; i < n && i < rp->n; i++) {
        const sg_repeat_t *r = &rp->r[i];
        const uint32_t c = comp[sg_vert(r->nodes[0], 0)];
        uint32_t *v = sg_malloc(((size_t)r->n_nodes + 1) * sizeof *v), nv = 0;
        for (uint32_t j = 0; j < r->n_nodes; j++) v[nv++] = sg_vert(r->nodes[j], comp[sg_vert(r->nodes[j], 0)] != c);
        qsort_r(v, nv, sizeof *v, cmp_kmers, (void *)g);
        for (uint32_t j = 0; j < nv && j < SG_CYCLE_SOURCES; j++) {
            uint64_t len;
            shortest_cycle(g, comp, v[j], &cy, 0, &len);
            if (len && len <= max) spectra[i][len] += g->kmers[v[j] >> 1] ? g->kmers[v[j] >> 1] : 1;
        }
        free(v);
    }
    cycles_free(&cy);
}

void sg_repeats_find_by(const sg_graph_t *g, const uint32_t *comp, uint32_t n_comp, sg_repeat_describe_t describe,
                        void *ctx, sg_repeats_t *out)
{
    memset(out, 0, sizeof *out);
    const uint32_t nv = g->n_vert;
    uint32_t *size = sg_calloc(n_comp + 1, sizeof *size), *start = sg_calloc(n_comp + 2, sizeof *start);
    uint32_t *rep = sg_malloc((n_comp + 1) * sizeof *rep), *members = sg_malloc((nv + 1) * sizeof *members);
    uint8_t *self = sg_calloc(n_comp + 1, 1), *done = sg_calloc(n_comp + 1, 1);
    for (uint32_t c = 0; c < n_comp; c++) rep[c] = UINT32_MAX;
    for (uint32_t v = 0; v < nv; v++) {
        size[comp[v]]++;
        if (rep[comp[v]] == UINT32_MAX) rep[comp[v]] = v;
        for (uint64_t j = g->off[v]; j < g->off[v + 1]; j++) self[comp[v]] |= g->adj[j] == v;
    }
    for (uint32_t c = 0; c < n_comp; c++) start[c + 1] = start[c] + size[c];
    uint32_t *fill = sg_calloc(n_comp + 1, sizeof *fill);
    for (uint32_t v = 0; v < nv; v++) members[start[comp[v]] + fill[comp[v]]++] = v; /* ascending within each */
    free(fill);
    uint32_t m_rep = 16;
    out->r = sg_malloc(m_rep * sizeof *out->r);

    for (uint32_t v = 0; v < nv; v++) {
        uint32_t c = comp[v];
        if (rep[c] != v || done[c] || !(size[c] >= 2 || self[c])) continue;
        done[c] = done[comp[sg_vert_flip(v)]] = 1;
        const uint32_t *mv = members + start[c];
        sg_repeat_t r = {0};
        r.nodes = sg_malloc(size[c] * sizeof *r.nodes);
        for (uint32_t i = 0; i < size[c]; i++) r.nodes[i] = mv[i] >> 1;
        qsort(r.nodes, size[c], sizeof *r.nodes, cmp_u32);
        for (uint32_t i = 0; i < size[c]; i++)
            if (!r.n_nodes || r.nodes[i] != r.nodes[r.n_nodes - 1]) r.nodes[r.n_nodes++] = r.nodes[i];
        describe(ctx, g, comp, c, mv, size[c], &r);
        if (out->n == m_rep) out->r = sg_realloc(out->r, (m_rep *= 2) * sizeof *out->r);
        out->r[out->n++] = r;
    }
    out->node_repeat = sg_calloc((uint64_t)g->n + 1, sizeof *out->node_repeat);
    sg_repeats_order(out, NULL);
    free(size);
    free(start);
    free(rep);
    free(members);
    free(self);
    free(done);
}

void sg_repeats_free(sg_repeats_t *r)
{
    for (uint32_t i = 0; i < r->n; i++) {
        free(r->r[i].unit);
        free(r->r[i].nodes);
    }
    free(r->r);
    free(r->node_repeat);
    memset(r, 0, sizeof *r);
}

void sg_repeats_order(sg_repeats_t *r, uint32_t *rank)
{
    uint32_t *idx = sg_malloc(((size_t)r->n + 1) * sizeof *idx);
    for (uint32_t i = 0; i < r->n; i++) idx[i] = i;
    qsort_r(idx, r->n, sizeof *idx, cmp_length, r->r);
    sg_repeat_t *sorted = sg_malloc(((size_t)r->n + 1) * sizeof *sorted);
    for (uint32_t i = 0; i < r->n; i++) {
        sorted[i] = r->r[idx[i]];
        if (rank) rank[idx[i]] = i;
        for (uint32_t j = 0; j < sorted[i].n_nodes; j++) r->node_repeat[sorted[i].nodes[j]] = i + 1;
    }
    free(r->r);
    r->r = sorted;
    free(idx);
}

void sg_repeats_columns(int kind, const char **nodes, const char **bases, const char **coverage)
{
    *nodes = kind == SG_REPEATS_READS ? "reads" : "unitigs";
    *bases = kind == SG_REPEATS_READS ? "bases" : "kmers";
    *coverage = kind == SG_REPEATS_READS ? "read_coverage" : "mean_count";
}

void sg_repeats_write_tsv(FILE *fp, const sg_repeats_t *r)
{
    const char *nodes, *bases, *coverage;
    const int reads = r->kind == SG_REPEATS_READS;
    sg_repeats_columns(r->kind, &nodes, &bases, &coverage);
    fprintf(fp, "id\tkind\t%s\t%s\tperiod\t%s\tcopies\tunit\tlength%s%s\n", nodes, bases, coverage,
            r->kind == SG_REPEATS_ASSEMBLY ? "\tloci" : "", reads ? "\tlength_min\tlength_max\tspanning_reads" : "");
    for (uint32_t i = 0; i < r->n; i++) {
        const sg_repeat_t *x = &r->r[i];
        fprintf(fp, "repeat%u\t%s\t%u\t%llu\t%llu\t%.2f\t", i + 1, x->tandem ? "tandem" : "complex", x->n_nodes,
                (unsigned long long)x->kmers, (unsigned long long)x->period, x->mean_count);
        if (reads && !x->period) fputc('*', fp); /* reads of no period: copies of nothing */
        else fprintf(fp, "%.2f", x->copies);
        fprintf(fp, "\t%s\t%.0f", x->unit[0] ? x->unit : "*", x->length);
        if (r->kind == SG_REPEATS_ASSEMBLY) fprintf(fp, "\t%u", x->loci);
        if (reads) { /* unknown: * */
            if (x->length_min > 0) fprintf(fp, "\t%.0f", x->length_min);
            else fputs("\t*", fp);
            if (x->length_max > 0) fprintf(fp, "\t%.0f", x->length_max);
            else fputs("\t*", fp);
            fprintf(fp, "\t%u", x->spanning);
        }
        fputc('\n', fp);
    }
}

void sg_repeats_write_units(FILE *fp, const sg_repeats_t *r)
{
    for (uint32_t i = 0; i < r->n; i++) {
        const sg_repeat_t *x = &r->r[i];
        if (!x->unit[0]) continue;
        fprintf(fp, ">repeat%u kind=%s period=%llu copies=%.2f length=%.0f", i + 1, x->tandem ? "tandem" : "complex",
                (unsigned long long)x->period, x->copies, x->length);
        if (r->kind == SG_REPEATS_ASSEMBLY) fprintf(fp, " loci=%u", x->loci);
        fprintf(fp, "\n%s\n", x->unit);
    }
}

void sg_components_write(FILE *fp, const sg_graph_t *g, const uint32_t *node_comp)
{
    char nb[32];
    const char *prefix = g->oriented ? "repeat" : "scc";
    fputs(g->reads ? "read\tcomponent\n" : "node\tcomponent\n", fp);
    for (uint32_t i = 0; i < g->n; i++)
        if (node_comp[i]) fprintf(fp, "%s\t%s%u\n", sg_graph_name(g, i, nb, sizeof nb), prefix, node_comp[i]);
}

uint32_t sg_components_plain(const sg_graph_t *g, const uint32_t *comp, uint32_t n_comp, uint32_t *node_comp)
{
    uint32_t *size = sg_calloc((size_t)n_comp + 1, sizeof *size), *num = sg_calloc((size_t)n_comp + 1, sizeof *num);
    uint8_t *self = sg_calloc((size_t)n_comp + 1, 1);
    uint32_t n = 0;
    for (uint32_t x = 0; x < g->n; x++) {
        size[comp[x]]++;
        for (uint64_t j = g->off[x]; j < g->off[x + 1]; j++) self[comp[x]] |= g->adj[j] == x;
    }
    for (uint32_t x = 0; x < g->n; x++) {
        uint32_t cc = comp[x];
        node_comp[x] = 0;
        if (size[cc] < 2 && !self[cc]) continue;
        if (!num[cc]) num[cc] = ++n;
        node_comp[x] = num[cc];
    }
    free(size);
    free(num);
    free(self);
    return n;
}
