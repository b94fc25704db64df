/* The de Bruijn graph builder of seqgpu scc, over a k-mer table of either
 * backend: the reads' k-mers counted (read, parse, chunk, count on all
 * threads), the coverage from their count histogram and the threshold it
 * gives, then the kept k-mers compacted into unitigs. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "log.h"
#include "pipeline.h"
#include "scc_backend.h"
#include "progress.h"
#include "scc_coverage.h"

typedef struct {
    sg_input_t in;          /* first: the input steps take the context as theirs */
    sg_kmer_table_t *table; /* until the graph is built */
    sg_graph_opts_t o;
    uint64_t distinct, total, kept;
    uint64_t hist[SG_HIST_BINS];
    sg_coverage_t cov;
    uint32_t threshold;
    char table_stats[1024]; /* the table's --stats members, kept when it is freed */
} dbg_t;

static int step_count(void *vctx, void *item, sg_emit_t *emit)
{
    (void)emit;
    dbg_t *d = vctx;
    return d->table->add(d->table, item);
}

/* The threshold from the histogram: --min-count, or --min-copies x coverage
 * (beyond any count: no k-mer kept). */
static void set_threshold(dbg_t *d)
{
    sg_coverage_estimate(d->hist, SG_HIST_BINS, d->o.k, &d->cov);
    double t = fmax(2.0, ceil(d->o.min_copies * d->cov.coverage - 1e-9));
    d->threshold = d->o.min_count > 0 ? (uint32_t)d->o.min_count : t >= UINT32_MAX ? UINT32_MAX : (uint32_t)t;
    if (!d->cov.clear && d->total && d->o.min_count <= 0)
        sg_warn("no clear peak of single-copy k-mers in the k-mer count histogram (too little coverage?): coverage "
                "taken as 1, so k-mers seen %u times or more are kept; set the threshold with -c, to about 3 times "
                "the k-mer coverage (--stats FILE has the histogram)", d->threshold);
}

static int dbg_build(sg_graph_builder_t *b, sg_reader_t *rd, sg_graph_t *g)
{
    dbg_t *d = b->priv;
    sg_kmer_table_t *t = d->table;
    memset(g, 0, sizeof *g);
    sg_input_init(&d->in, rd, d->o.k - 1);
    const sg_step_t steps[] = {
        {"read", sg_input_read, 1, 0},
        {"parse", sg_input_parse, 0, 0},
        {"chunk", sg_input_chunk, 1, 0},
        {"count", step_count, 0, 0},
    };
    sg_pipeline_opts_t po = {.n_threads = d->o.n_threads, .max_items = 2 * d->o.n_threads + 4,
                             .free_item = sg_input_free_chunk};
    double t0 = sg_realtime();
    int r = sg_pipeline_run(steps, 4, d, &po);
    sg_input_free(&d->in);
    if (r == 0) r = t->finish(t);
    b->sec[0] = sg_realtime() - t0;
    if (r == 0) {
        t0 = sg_realtime();
        sg_progress_stage("coverage", 0);
        d->distinct = t->distinct(t);
        d->total = t->total(t);
        r = t->histogram(t, d->hist, SG_HIST_BINS);
        if (r == 0) {
            set_threshold(d);
            b->coverage = d->cov.coverage;
            r = t->filter(t, d->threshold);
            d->kept = t->distinct(t);
        }
        b->sec[1] = sg_realtime() - t0;
    }
    if (r == 0) {
        sg_info("%llu k-mers, %llu distinct; k-mer coverage %.1f (peak at %d, errors below %d); keeping k-mers seen "
                ">= %u times%s: %llu",
                (unsigned long long)d->total, (unsigned long long)d->distinct, d->cov.coverage, d->cov.peak,
                d->cov.trough, d->threshold, d->o.min_count > 0 ? "" : " (--min-copies x coverage)",
                (unsigned long long)d->kept);
        t0 = sg_realtime();
        sg_progress_stage("unitigs", 0);
        r = t->unitigs(t, g);
        b->sec[2] = sg_realtime() - t0;
    }
    if (r == SG_ERR_DEVICE) snprintf(b->err, sizeof b->err, "%s", t->err);
    if (r == 0 && t->stats) {
        FILE *fp = fmemopen(d->table_stats, sizeof d->table_stats - 1, "w");
        if (fp) {
            t->stats(t, fp);
            fclose(fp);
        }
    }
    t->free(t); /* a device table's memory is the SCC solver's from now on */
    d->table = NULL;
    return r;
}

static void dbg_stats(const sg_graph_builder_t *b, FILE *fp)
{
    const dbg_t *d = b->priv;
    if (d->table_stats[0])
        fprintf(fp, "  \"graph_backend\": \"%s\",\n  \"graph_%s\": {%s},\n", b->backend, b->backend, d->table_stats);
    fprintf(fp, "  \"k\": %d,\n  \"kmers\": %llu,\n  \"distinct_kmers\": %llu,\n  \"coverage\": %.3f,\n"
                "  \"coverage_peak\": %d,\n  \"error_trough\": %d,\n  \"threshold\": %u,\n  \"kept_kmers\": %llu,\n",
            d->o.k, (unsigned long long)d->total, (unsigned long long)d->distinct, d->cov.coverage, d->cov.peak,
            d->cov.trough, d->threshold, (unsigned long long)d->kept);
    int last = SG_HIST_BINS - 1;
    while (last > 1 && !d->hist[last]) last--;
    fputs("  \"histogram\": [", fp); /* histogram[c]: distinct k-mers seen c times; the last bin holds the rest */
    for (int c = 0; c <= last; c++) fprintf(fp, "%s%llu", c ? ", " : "", (unsigned long long)d->hist[c]);
    fputs("],\n", fp);
}

static void dbg_spectrum(const sg_graph_builder_t *b, sg_spectrum_t *sp)
{
    const dbg_t *d = b->priv;
    *sp = (sg_spectrum_t){.hist = d->hist, .n = SG_HIST_BINS, .k = d->o.k, .total = d->total, .distinct = d->distinct,
                          .kept = d->kept, .cov = d->cov, .threshold = d->threshold,
                          .min_copies = d->o.min_count > 0 ? 0 : d->o.min_copies};
}

static void dbg_free(sg_graph_builder_t *b)
{
    dbg_t *d = b->priv;
    if (d->table) d->table->free(d->table);
    free(d);
    free(b);
}

int sg_graph_builder_dbg(sg_kmer_table_t *t, const sg_graph_opts_t *o, sg_graph_builder_t **out)
{
    dbg_t *d = sg_calloc(1, sizeof *d);
    d->table = t;
    d->o = *o;
    sg_graph_builder_t *b = sg_calloc(1, sizeof *b);
    b->name = "dbg";
    b->backend = t->name;
    b->build = dbg_build;
    b->stats = dbg_stats;
    b->spectrum = dbg_spectrum;
    b->free = dbg_free;
    b->priv = d;
    *out = b;
    return 0;
}
