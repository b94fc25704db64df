/* The de Bruijn graph builder of seqgpu scc, over a k-mer table of either
 * backend: the reads' k-mers counted (read, parse, chunk, count on all
 * threads; in hash parts when the table would outgrow its memory, or taken
 * from counts files: src/scc/dbg/counts.h), the coverage from their count
 * histogram and the threshold it gives, then the kept k-mers compacted into
 * unitigs. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "scc/backend.h"
#include "core/progress.h"
#include "scc/dbg/counts.h"
#include "scc/coverage.h"

typedef struct {
    sg_kmer_table_t *table; /* until the graph is built */
    sg_graph_opts_t o;
    uint64_t distinct, total, kept;
    uint64_t *hist;         /* SG_HIST_BINS: the set's */
    sg_counts_set_t set;    /* counted in parts, or given as counts files */
    sg_coverage_t cov;
    uint32_t threshold;
    char table_stats[1024]; /* the table's --stats members, kept when it is freed */
} dbg_t;

/* The threshold from the histogram: --min-count, or --min-copies x coverage
 * (beyond any count: no k-mer kept). */
static void set_threshold(dbg_t *d)
{
    /* an assembly (given, or told from the histogram) has no coverage to
     * estimate: each copy is counted once, and the threshold is a copy count */
    sg_coverage_estimate(d->hist, SG_HIST_BINS, d->o.k, &d->cov);
    const int told = d->total ? sg_coverage_assembly(d->hist, SG_HIST_BINS, &d->cov) : 0;
    if (told == 2 && !d->o.assembly)
        sg_info("most k-mers are seen once, as in an assembly; taken as reads for the peak at %d: --assembly counts each "
                "copy once", d->cov.peak);
    /* a coverage peak as wide as a Poisson's (sg_coverage_estimate's test from 4 on), with few k-mers
     * seen once, is reads' */
    if (d->o.assembly && !told && d->cov.clear && d->cov.peak >= 4)
        sg_warn("--assembly, but the k-mer counts have a coverage peak at %d, as reads do: each k-mer is taken as "
                "one copy, so copies are off by the coverage (leave --assembly out for reads)", d->cov.peak);
    if (d->o.assembly || told == 1) d->cov = (sg_coverage_t){.coverage = 1, .peak = 1, .assembly = 1};
    double t = fmax(2.0, ceil(d->o.min_copies * d->cov.coverage - 1e-9));
    d->threshold = d->o.min_count > 0 ? (uint32_t)d->o.min_count : t >= UINT32_MAX ? UINT32_MAX : (uint32_t)t;
    if (d->cov.assembly && !d->o.assembly)
        sg_info("an assembly: %.0f%% of the k-mers are seen once (--assembly says so when this cannot tell): each copy "
                "counted once, repeats placed by locus", 100.0 * d->hist[1] / (double)d->total);
    if (!d->cov.clear && !d->cov.assembly && d->total && d->o.min_count <= 0)
        sg_warn("no clear peak of single-copy k-mers in the k-mer count histogram (too little coverage?): coverage "
                "taken as 1, so k-mers seen %u times or more are kept; set the threshold with -c, to about 3 times "
                "the k-mer coverage (--stats FILE has the histogram)", d->threshold);
}

/* The k-mers of counts files, or of the reads: d->set, or the table, has
 * their histogram and totals. */
static int count(dbg_t *d, sg_reader_t *rd)
{
    if (d->o.n_counts) return sg_counts_open_set(d->o.counts, d->o.n_counts, d->o.k_given, d->o.k, &d->set);
    return sg_count_reads(d->table, rd, d->o.k, d->o.n_threads);
}

/* The histogram and totals: the files', or the table's. */
static int summarise(dbg_t *d)
{
    sg_kmer_table_t *t = d->table;
    if (d->o.n_counts) {
        d->distinct = d->set.distinct;
        d->total = d->set.total;
        d->o.k = d->set.k;
        return 0;
    }
    d->distinct = t->distinct(t);
    d->total = t->total(t);
    return t->histogram(t, d->hist, SG_HIST_BINS);
}

/* The k-mers of the counts files that pass the threshold, into a new cpu table. */
static int load_kept(dbg_t *d)
{
    d->table->free(d->table);
    d->table = NULL;
    const sg_kmer_opts_t ko = {.k = d->o.k, .n_threads = d->o.n_threads, .min_keep = d->threshold};
    char err[256];
    int r = sg_kmer_table_cpu(&ko, &d->table, err, sizeof err);
    if (r < 0) {
        sg_error("%s", err);
        return r;
    }
    return sg_counts_load(&d->set, d->threshold, d->table);
}

static int dbg_build(sg_graph_builder_t *b, sg_reader_t *rd, sg_graph_t *g)
{
    dbg_t *d = b->priv;
    memset(g, 0, sizeof *g);
    double t0 = sg_realtime();
    int r = count(d, rd);
    b->sec[0] = sg_realtime() - t0;
    if (r == 0) {
        t0 = sg_realtime();
        sg_progress_stage("coverage", 0);
        r = summarise(d);
        if (r == 0) {
            set_threshold(d);
            b->coverage = d->cov.coverage;
            b->assembly = d->cov.assembly;
            if (d->o.n_counts) {
                b->inputs = d->set.inputs;
                b->n_inputs = d->set.n_inputs;
            }
            if (d->o.n_counts) r = load_kept(d);
        }
        if (r == 0 && (r = d->table->filter(d->table, d->threshold)) < 0 && r != SG_ERR_DEVICE && d->table->err[0])
            sg_error("%s", d->table->err);
        if (r == 0) d->kept = d->table->distinct(d->table);
        b->sec[1] = sg_realtime() - t0;
    }
    sg_kmer_table_t *t = d->table;
    if (r == 0) {
        if (d->cov.assembly)
            sg_info("%llu k-mers, %llu distinct; keeping k-mers seen >= %u times%s: %llu", (unsigned long long)d->total,
                    (unsigned long long)d->distinct, d->threshold, d->o.min_count > 0 ? "" : " (--min-copies)",
                    (unsigned long long)d->kept);
        else
            sg_info("%llu k-mers, %llu distinct; k-mer coverage %.1f (peak at %d, errors below %d); keeping k-mers "
                    "seen >= %u times%s: %llu",
                    (unsigned long long)d->total, (unsigned long long)d->distinct, d->cov.coverage, d->cov.peak,
                    d->cov.trough, d->threshold, d->o.min_count > 0 ? "" : " (--min-copies x coverage)",
                    (unsigned long long)d->kept);
        t0 = sg_realtime();
        sg_progress_stage("unitigs", 0);
        if ((r = t->unitigs(t, g)) < 0 && r != SG_ERR_DEVICE && t->err[0]) sg_error("%s", t->err);
        b->sec[2] = sg_realtime() - t0;
    }
    if (r == SG_ERR_DEVICE && t) snprintf(b->err, sizeof b->err, "%s", t->err);
    if (r == 0 && t->stats) {
        FILE *fp = fmemopen(d->table_stats, sizeof d->table_stats - 1, "w");
        if (fp) {
            t->stats(t, fp);
            fclose(fp);
        }
    }
    if (t) t->free(t); /* a device table's memory is the SCC solver's from now on */
    d->table = NULL;
    return r;
}

static void dbg_stats(const sg_graph_builder_t *b, FILE *fp)
{
    const dbg_t *d = b->priv;
    if (d->table_stats[0])
        fprintf(fp, "  \"graph_backend\": \"%s\",\n  \"graph_%s\": {%s},\n", b->backend, b->backend, d->table_stats);
    fprintf(fp, "  \"k\": %d,\n  \"kmers\": %llu,\n  \"distinct_kmers\": %llu,\n  \"coverage\": %.3f,\n"
                "  \"coverage_peak\": %d,\n  \"error_trough\": %d,\n  \"assembly\": %s,\n  \"threshold\": %u,\n"
                "  \"kept_kmers\": %llu,\n",
            d->o.k, (unsigned long long)d->total, (unsigned long long)d->distinct, d->cov.coverage, d->cov.peak,
            d->cov.trough, d->cov.assembly ? "true" : "false", d->threshold, (unsigned long long)d->kept);
    if (d->set.n_files) /* given as counts files */
        fprintf(fp, "  \"count_parts\": %d,\n", d->set.n_files);
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
    sg_counts_set_free(&d->set);
    free(d);
    free(b);
}

int sg_graph_builder_dbg(sg_kmer_table_t *t, const sg_graph_opts_t *o, sg_graph_builder_t **out)
{
    dbg_t *d = sg_calloc(1, sizeof *d);
    d->table = t;
    d->o = *o;
    d->hist = d->set.hist;
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
