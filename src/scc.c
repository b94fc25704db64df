/* seqgpu scc: repeats from the strongly connected components of a de Bruijn
 * graph of reads (or of a GFA graph, or of a plain edge list).
 *
 * reads -> k-mer counts (all threads) -> coverage and threshold -> unitigs
 * of the kept k-mers -> SCCs -> repeats, reported once per reverse-complement
 * twin. */
#define _GNU_SOURCE
#include <getopt.h>
#include <sys/stat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../formats/gfa.h"
#include "../formats/json.h"
#include "../formats/outfile.h"
#include "../formats/seqio.h"
#ifdef SG_HAVE_CUDA
#include "../cuda/cuda_util.h"
#include "../cuda/kmer_cuda.h"
#include "../cuda/scc_cuda.h"
#endif
#include "cli.h"
#include "graph.h"
#include "input.h"
#include "kmer.h"
#include "log.h"
#include "progress.h"
#include "repeats.h"
#include "version.h"

/* counts of k-mers up to 65535 apart (the last bin holds the rest): room
 * for the repeats whose errors the coverage estimate must tell apart */
#define HIST_BINS 65537

static void usage(FILE *fp)
{
    fprintf(fp,
"Usage: seqgpu scc [options] [<reads.fq|reads.fa|graph.gfa>[.gz] ...]\n"
"\n"
"Find cyclic repeat structures (tandem repeats, satellites, repeat families):\n"
"build a de Bruijn graph of the repeated k-mers of the reads, compact it into\n"
"unitigs, and report its strongly connected components. With no input named,\n"
"standard input is read (unless it is a terminal).\n"
"\n"
"Options:\n"
"  -k INT               k-mer size, odd, 11 to 63            [31]\n"
"      --min-copies F   keep k-mers seen >= F x the estimated k-mer coverage [3]\n"
"  -c, --min-count INT  absolute k-mer count threshold (overrides --min-copies)\n"
"      --edges FILE     take a directed graph as two integer columns instead\n"
"      --write-graph F  also write the whole compacted graph as GFA\n"
"  -p, --prefix STR     output prefix; one ending in .gz writes every PREFIX.* file\n"
"                       BGZF-compressed, as PREFIX.repeats.tsv.gz ...  [seqgpu_scc]\n"
"  -t, --threads INT    total threads                          [all online CPUs]\n"
"  -b, --backend STR    auto | cpu | cuda, for graph building and SCCs [auto: cuda\n"
"                       for inputs of 1M+ graph vertices when a device is usable]\n"
"      --device INT     CUDA device index                      [0]\n"
"      --kw INT         cuda: threads per virtual warp (1, 2, 4, 8, 16, 32) [4]\n"
"      --kv INT         cuda: vertices per virtual warp        [2]\n"
"      --kt INT         cuda: second trim and coloring partition every kt rounds, 0 never [2]\n"
"      --stats FILE     write a JSON run summary (histogram, coverage, graph sizes, stage times)\n"
"  -q, --quiet          no progress or summary lines on stderr\n"
"      --progress[=SEC] a progress line every SEC seconds [5], terminal or not\n"
"  -v, --verbose        also say which backend auto chose, and why\n"
"  -h, --help           show this help and exit\n"
"\n"
"Input: reads (FASTA/FASTQ, plain, gzip or BGZF, - for stdin), or one GFA graph\n"
"(S and L lines; depth from KC, km, DP or RC tags).\n"
"\n"
"Outputs:\n"
"  PREFIX.repeats.tsv     id, kind (tandem | complex), unitigs, kmers, period (bases),\n"
"                         mean_count, copies, unit (least rotation, either strand)\n"
"  PREFIX.gfa             GFA 1.0 of the repeat components (LB/CL tags per component)\n"
"  PREFIX.units.fa        one repeat unit per component\n"
"  PREFIX.components.tsv  node, component: every node of a repeat component\n"
"Names ending in .gz or .bgz (--write-graph, --stats) are BGZF-compressed too.\n"
"With --edges only PREFIX.components.tsv, for every node of a component with\n"
"two or more nodes or a self-loop.\n"
"\n"
"Example:\n"
"  seqgpu scc -k 31 -p sample reads_1.fq.gz reads_2.fq.gz\n");
}

typedef struct {
    sg_input_t in; /* first: the input steps take the context as theirs */
    sg_kmers_t *kmers;
#ifdef SG_HAVE_CUDA
    sg_cuda_kmers_t *gpu; /* counting on the device instead */
#endif
} count_ctx_t;

static int step_count(void *vctx, void *item, sg_emit_t *emit)
{
    (void)emit;
    count_ctx_t *ctx = vctx;
#ifdef SG_HAVE_CUDA
    if (ctx->gpu) return sg_cuda_kmers_add(ctx->gpu, item) < 0 ? SG_ERR_DEVICE : 0;
#endif
    sg_kmers_add(ctx->kmers, item);
    return 0;
}

typedef struct {
    char **inputs;
    int n_inputs;
    const char *prefix, *edges, *write_graph, *stats, *backend, *device;
    const char *why; /* auto's choice when it is made from the machine alone */
    int k, threads, quiet, verbose, kw, kv, kt;
    double progress; /* --progress: seconds between lines; 0: a live line on a terminal */
    double min_copies;
    long min_count;
} scc_opts_t;

typedef struct {
    double count, coverage, compact, scc, report;
} stage_times_t;

typedef struct {
    const char *source;     /* reads, gfa or edges */
    uint64_t distinct, total, kept;
    uint64_t hist[HIST_BINS];
    sg_coverage_t cov;
    uint32_t threshold;
    uint32_t n_comp, n_nontrivial;
    const char *scc_backend;   /* where the SCCs were found */
    const char *graph_backend; /* where the reads' graph was built */
    int cuda_failed;           /* the device failed under auto: do not try it again */
#ifdef SG_HAVE_CUDA
    char graph_cuda[1024];     /* its device figures, as JSON members */
#endif
    stage_times_t t;
#ifdef SG_HAVE_CUDA
    sg_scc_cuda_stats_t cuda;
#endif
} scc_run_t;

/* Graphs this large go to the GPU under -b auto: below it the CUDA context's
 * start-up (~0.3 s) costs more than Tarjan's whole run. */
#define SCC_CUDA_MIN_VERTICES (1u << 20)

#ifdef SG_HAVE_CUDA
/* Whether the SCCs will probably go to the GPU: -b cuda, or under auto an
 * input large enough for a graph of SCC_CUDA_MIN_VERTICES (an edge list of
 * 16 bytes a vertex; reads or GFA at 200 bytes; gzip at a quarter size). */
static int likely_cuda(const scc_opts_t *o)
{
    if (!strcmp(o->backend, "cuda")) return 1;
    if (strcmp(o->backend, "auto")) return 0;
    uint64_t bytes = 0;
    struct stat sb;
    for (int i = -1; i < o->n_inputs; i++) {
        const char *f = i < 0 ? o->edges : o->inputs[i];
        if (!f || stat(f, &sb) != 0) continue;
        size_t len = strlen(f);
        bytes += (uint64_t)sb.st_size * (len > 3 && !strcmp(f + len - 3, ".gz") ? 4 : 1);
    }
    return bytes >= (uint64_t)SCC_CUDA_MIN_VERTICES * (o->edges ? 16 : 200);
}
#endif

/* The threshold from the histogram: --min-count, or --min-copies x coverage
 * (beyond any count: no k-mer kept). */
static void set_threshold(const scc_opts_t *o, scc_run_t *run)
{
    sg_coverage_estimate(run->hist, HIST_BINS, o->k, &run->cov);
    double t = fmax(2.0, ceil(o->min_copies * run->cov.coverage - 1e-9));
    run->threshold = o->min_count > 0 ? (uint32_t)o->min_count : t >= UINT32_MAX ? UINT32_MAX : (uint32_t)t;
    if (!run->cov.clear && run->total && o->min_count <= 0)
        sg_warn("no clear peak of single-copy k-mers in the k-mer count histogram (too little coverage?): coverage "
                "taken as 1, so k-mers seen %u times or more are kept; set the threshold with -c, to about 3 times "
                "the k-mer coverage (--stats FILE has the histogram)", run->threshold);
}

static void report_threshold(const scc_opts_t *o, const scc_run_t *run)
{
    sg_info("%llu k-mers, %llu distinct; k-mer coverage %.1f (peak at %d, errors below %d); keeping k-mers seen >= %u "
            "times%s: %llu",
            (unsigned long long)run->total, (unsigned long long)run->distinct, run->cov.coverage, run->cov.peak,
            run->cov.trough, run->threshold, o->min_count > 0 ? "" : " (--min-copies x coverage)",
            (unsigned long long)run->kept);
}

/* Bytes of input per block. */
#define READ_BLOCK (4 << 20)

/* Run the reads of rd (freed here) through the count step (ctx->kmers or ctx->gpu set). */
static int count_reads(const scc_opts_t *o, count_ctx_t *ctx, scc_run_t *run, sg_reader_t *rd)
{
    sg_input_init(&ctx->in, rd, o->k - 1);
    const sg_step_t steps[] = {
        {"read", sg_input_read, 1, 0},
        {"parse", sg_input_parse, 0, 0},
        {"chunk", sg_input_chunk, 1, 0},
        {"count", step_count, 0, 0},
    };
    sg_pipeline_opts_t po = {.n_threads = o->threads, .max_items = 2 * o->threads + 4, .free_item = sg_input_free_chunk};
    double t0 = sg_realtime();
    sg_progress_stage("counting k-mers", sg_input_stored_bytes(o->inputs, o->n_inputs));
    int r = sg_pipeline_run(steps, 4, ctx, &po);
    sg_input_free(&ctx->in);
    run->t.count = sg_realtime() - t0;
    return r;
}

#ifdef SG_HAVE_CUDA
/* The same on the device: counting (sort and run-length encoding), the
 * threshold and the unitigs (list ranking). SG_ERR_DEVICE when it cannot run;
 * *rd is NULL once the reads are read. */
static int graph_from_reads_cuda(const scc_opts_t *o, scc_run_t *run, sg_graph_t *g, sg_reader_t **rd, char *err,
                                 size_t errsz)
{
    long dev = 0;
    if (o->device) sg_parse_int(o->device, 0, 1023, &dev);
    sg_scc_cuda_warmup_join();
    count_ctx_t ctx = {0};
    int r = sg_cuda_kmers_new(o->k, (int)dev, &ctx.gpu, err, errsz);
    if (r < 0) return r;
    r = count_reads(o, &ctx, run, *rd);
    *rd = NULL;
    if (r == 0) {
        double t0 = sg_realtime();
        sg_progress_stage("coverage", 0);
        if ((r = sg_cuda_kmers_finish(ctx.gpu)) == 0) {
            run->t.count += sg_realtime() - t0;
            t0 = sg_realtime();
            run->distinct = sg_cuda_kmers_distinct(ctx.gpu);
            run->total = sg_cuda_kmers_total(ctx.gpu);
            r = sg_cuda_kmers_histogram(ctx.gpu, run->hist, HIST_BINS);
        }
        if (r == 0) {
            set_threshold(o, run);
            r = sg_cuda_kmers_filter(ctx.gpu, run->threshold);
            run->kept = sg_cuda_kmers_distinct(ctx.gpu);
            run->t.coverage = sg_realtime() - t0;
        }
        if (r == 0) {
            report_threshold(o, run);
            t0 = sg_realtime();
            sg_progress_stage("unitigs", 0);
            r = sg_cuda_kmers_unitigs(ctx.gpu, g);
            run->t.compact = sg_realtime() - t0;
        }
    }
    if (r < 0 && !*err) snprintf(err, errsz, "k-mer counting or compaction on the device failed (above)");
    if (r == 0) {
        FILE *fp = fmemopen(run->graph_cuda, sizeof run->graph_cuda - 1, "w");
        if (fp) {
            sg_cuda_kmers_stats(ctx.gpu, fp);
            fclose(fp);
        }
    }
    sg_cuda_kmers_free(ctx.gpu);
    return r;
}
#endif

/* Count the k-mers of the reads of rd (freed here), set the threshold, and
 * build the unitig graph: on the device when the backend asks for it (auto:
 * when the input is large), else on all CPU threads. */
static int graph_from_reads(const scc_opts_t *o, scc_run_t *run, sg_graph_t *g, sg_reader_t *rd)
{
    run->graph_backend = "cpu";
#ifdef SG_HAVE_CUDA
    if (!strcmp(o->backend, "cuda") || (!strcmp(o->backend, "auto") && likely_cuda(o))) {
        char err[512] = "";
        int r = graph_from_reads_cuda(o, run, g, &rd, err, sizeof err);
        if (r == 0) {
            run->graph_backend = "cuda";
            return 0;
        }
        if (r != SG_ERR_DEVICE || !strcmp(o->backend, "cuda")) {
            if (r == SG_ERR_DEVICE) sg_error("cuda backend: %s", err);
            sg_reader_free(rd);
            return r;
        }
        for (int i = 0; !rd && i < o->n_inputs; i++)
            if (!sg_input_rereadable(o->inputs[i])) {
                sg_error("cuda backend: %s; '%s' cannot be read again on the cpu", err, o->inputs[i]);
                return r;
            }
        if (!rd) rd = sg_reader_new(o->inputs, o->n_inputs, READ_BLOCK, o->threads);
        sg_warn("cuda backend unusable for the graph (%s); building it on the cpu", err);
        run->cuda_failed = 1; /* one warning is enough: the SCCs go to the cpu too */
        memset(run->hist, 0, sizeof run->hist);
    }
#endif
    count_ctx_t ctx = {0};
    ctx.kmers = sg_kmers_new(o->k);
    int r = count_reads(o, &ctx, run, rd);
    if (r < 0) {
        sg_kmers_free(ctx.kmers);
        return r;
    }
    double t0 = sg_realtime();
    sg_progress_stage("coverage", 0);
    run->distinct = sg_kmers_distinct(ctx.kmers);
    run->total = sg_kmers_total(ctx.kmers);
    sg_kmers_histogram(ctx.kmers, run->hist, HIST_BINS);
    set_threshold(o, run);
    sg_kmers_filter(ctx.kmers, run->threshold);
    run->kept = sg_kmers_distinct(ctx.kmers);
    run->t.coverage = sg_realtime() - t0;
    report_threshold(o, run);
    t0 = sg_realtime();
    sg_progress_stage("unitigs", 0);
    sg_kmers_unitigs(ctx.kmers, o->threads, g);
    run->t.compact = sg_realtime() - t0;
    sg_kmers_free(ctx.kmers);
    return 0;
}

typedef struct {
    double mean, weight;
} mean_t;

static int cmp_mean(const void *a, const void *b)
{
    double x = ((const mean_t *)a)->mean, y = ((const mean_t *)b)->mean;
    return (x > y) - (x < y);
}

/* Coverage of a GFA graph: the k-mer-weighted median of its segments' mean counts. */
static double graph_coverage(const sg_graph_t *g)
{
    mean_t *m = sg_malloc((g->n + 1) * sizeof *m);
    double total = 0, half = 0, cov = 1;
    for (uint32_t i = 0; i < g->n; i++) {
        m[i].mean = g->kmers[i] ? g->count_sum[i] / g->kmers[i] : 0;
        m[i].weight = (double)g->kmers[i];
        total += m[i].weight;
    }
    qsort(m, g->n, sizeof *m, cmp_mean);
    for (uint32_t i = 0; i < g->n; i++) {
        half += m[i].weight;
        if (half >= total / 2) {
            cov = m[i].mean > 0 ? m[i].mean : 1;
            break;
        }
    }
    free(m);
    return cov;
}

/* Characters of a prefix that ask for BGZF outputs (".gz", ".bgz"), or 0. */
static size_t prefix_gz(const char *prefix)
{
    return sg_outfile_compressed(prefix) ? strlen(strrchr(prefix, '.')) : 0;
}

/* PREFIX + suffix; a compressing prefix goes at the end: sample.gz gives sample.repeats.tsv.gz. */
static char *out_path(const char *prefix, const char *suffix)
{
    size_t n = strlen(prefix) + strlen(suffix) + 1, stem = strlen(prefix) - prefix_gz(prefix);
    char *p = sg_malloc(n);
    snprintf(p, n, "%.*s%s%s", (int)stem, prefix, suffix, prefix + stem);
    return p;
}

static void write_stats(FILE *fp, const scc_opts_t *o, const scc_run_t *run, const sg_graph_t *g,
                        const sg_repeats_t *rp, double wall)
{
    fprintf(fp, "{\n  \"program\": \"seqgpu\",\n  \"version\": \"%s\",\n  \"command\": \"scc\",\n  \"inputs\": [", SG_VERSION);
    for (int i = 0; i < o->n_inputs; i++) {
        fputs(i ? ", " : "", fp);
        sg_json_str(fp, o->inputs[i]);
    }
    fprintf(fp, "],\n  \"source\": \"%s\",\n  \"backend\": \"%s\",\n  \"threads\": %d,\n", run->source, run->scc_backend,
            o->threads);
    if (o->why) fprintf(fp, "  \"backend_choice\": \"%s\",\n", o->why);
#ifdef SG_HAVE_CUDA
    if (run->graph_backend && !strcmp(run->graph_backend, "cuda"))
        fprintf(fp, "  \"graph_backend\": \"cuda\",\n  \"graph_cuda\": {%s},\n", run->graph_cuda);
    if (!strcmp(run->scc_backend, "cuda")) {
        fprintf(fp, "  \"scc_cuda\": {\"kw\": %d, \"kv\": %d, \"kt\": %d, ", o->kw, o->kv, o->kt);
        sg_scc_cuda_stats_json(&run->cuda, fp);
        fputs("},\n", fp);
    }
#endif
    if (!strcmp(run->source, "reads")) {
        fprintf(fp, "  \"k\": %d,\n  \"kmers\": %llu,\n  \"distinct_kmers\": %llu,\n  \"coverage\": %.3f,\n"
                    "  \"coverage_peak\": %d,\n  \"error_trough\": %d,\n  \"threshold\": %u,\n  \"kept_kmers\": %llu,\n",
                o->k, (unsigned long long)run->total, (unsigned long long)run->distinct, run->cov.coverage,
                run->cov.peak, run->cov.trough, run->threshold, (unsigned long long)run->kept);
        int last = HIST_BINS - 1;
        while (last > 1 && !run->hist[last]) last--;
        fputs("  \"histogram\": [", fp); /* histogram[c]: distinct k-mers seen c times; the last bin holds the rest */
        for (int c = 0; c <= last; c++) fprintf(fp, "%s%llu", c ? ", " : "", (unsigned long long)run->hist[c]);
        fputs("],\n", fp);
    }
    fprintf(fp, "  \"nodes\": %u,\n  \"edges\": %llu,\n  \"components\": %u,\n  \"nontrivial_components\": %u,\n",
            g->n, (unsigned long long)(g->oriented ? g->n_edges / 2 : g->n_edges), run->n_comp, run->n_nontrivial);
    if (rp) fprintf(fp, "  \"repeats\": %u,\n", rp->n);
    fprintf(fp, "  \"stage_seconds\": {\"count\": %.4f, \"coverage\": %.4f, \"compact\": %.4f, \"scc\": %.4f, "
                "\"report\": %.4f},\n  \"wall_seconds\": %.4f,\n  \"cpu_seconds\": %.4f,\n  \"peak_rss_bytes\": %zu\n}\n",
            run->t.count, run->t.coverage, run->t.compact, run->t.scc, run->t.report, wall, sg_cputime(), sg_peak_rss());
}

#ifdef SG_HAVE_CUDA
static int scc_cuda(const scc_opts_t *o, const sg_graph_t *g, scc_run_t *run, uint32_t *comp, char *err, size_t errsz)
{
    uint32_t *weight = NULL;
    if (g->oriented && g->kmers) { /* the first pivot's tie-break: the node's mean k-mer count */
        weight = sg_malloc(((size_t)g->n_vert + 1) * sizeof *weight);
        for (uint32_t i = 0; i < g->n; i++) {
            double m = g->kmers[i] ? g->count_sum[i] / g->kmers[i] : 0;
            weight[2 * i] = weight[2 * i + 1] = m > 4e9 ? 4000000000u : (uint32_t)m;
        }
    }
    const sg_scc_cuda_opts_t co = {.device = o->device, .kw = o->kw, .kv = o->kv, .kt = o->kt, .threads = o->threads};
    int r = sg_scc_cuda(g, weight, &co, comp, &run->cuda, err, errsz);
    free(weight);
    return r;
}
#endif

/* Components of every vertex, numbered in the order of their first vertex
 * (the same numbers from either backend). */
static int find_sccs(const scc_opts_t *o, const sg_graph_t *g, scc_run_t *run, uint32_t *comp)
{
    run->scc_backend = "cpu";
    int want_cuda = !strcmp(o->backend, "cuda") ||
                    (!strcmp(o->backend, "auto") && g->n_vert >= SCC_CUDA_MIN_VERTICES && !run->cuda_failed);
    if (want_cuda) {
        char err[512] = "this seqgpu was built without CUDA";
        int r = SG_ERR_DEVICE;
#ifdef SG_HAVE_CUDA
        r = scc_cuda(o, g, run, comp, err, sizeof err);
#endif
        if (r == 0) {
            run->scc_backend = "cuda";
#ifdef SG_HAVE_CUDA
            sg_info("SCCs on cuda (%s) in %.3f s: %llu of %u vertices in chains, contracted graph %llu vertices, "
                    "%u rounds, %u colorings, %u search levels",
                    run->cuda.device, run->cuda.total, (unsigned long long)run->cuda.chain_vertices, g->n_vert,
                    (unsigned long long)run->cuda.vertices, run->cuda.rounds, run->cuda.colorings, run->cuda.bfs_levels);
#endif
        } else if (!strcmp(o->backend, "cuda")) {
            sg_error("cuda backend: %s", err);
            return r;
        } else {
            sg_warn("cuda backend unusable (%s); finding SCCs on the cpu", err);
        }
    }
    if (strcmp(run->scc_backend, "cuda")) {
        sg_scc_tarjan(g, comp);
        run->n_comp = sg_scc_renumber(g->n_vert, comp);
    }
#ifdef SG_HAVE_CUDA
    else
        run->n_comp = run->cuda.components;
#endif
    return 0;
}

static int usage_error(const char *fmt, const char *arg)
{
    return sg_usage_error("seqgpu scc", fmt, arg);
}

/* auto without a GPU to try is the cpu from the start: not news, said by -v
 * and --stats only (a device that exists and fails is a warning) */
static const char *auto_without_gpu(void)
{
#ifdef SG_HAVE_CUDA
    return sg_cuda_gpus_present() == 0 ? "auto: cpu (no CUDA device)" : NULL;
#else
    return "auto: cpu (built without cuda)";
#endif
}

static char stdin_name[] = "-";
static char *stdin_input[] = {stdin_name};

int main_scc(int argc, char **argv)
{
    enum { OPT_MIN_COPIES = 256, OPT_EDGES, OPT_WRITE_GRAPH, OPT_STATS, OPT_DEVICE, OPT_KW, OPT_KV, OPT_KT, OPT_PROGRESS };
    static const struct option lopts[] = {
        {"min-copies", required_argument, NULL, OPT_MIN_COPIES}, {"min-count", required_argument, NULL, 'c'},
        {"edges", required_argument, NULL, OPT_EDGES},           {"write-graph", required_argument, NULL, OPT_WRITE_GRAPH},
        {"prefix", required_argument, NULL, 'p'},                {"threads", required_argument, NULL, 't'},
        {"backend", required_argument, NULL, 'b'},               {"stats", required_argument, NULL, OPT_STATS},
        {"quiet", no_argument, NULL, 'q'},                       {"help", no_argument, NULL, 'h'},
        {"device", required_argument, NULL, OPT_DEVICE},         {"kw", required_argument, NULL, OPT_KW},
        {"kv", required_argument, NULL, OPT_KV},                 {"kt", required_argument, NULL, OPT_KT},
        {"verbose", no_argument, NULL, 'v'},                     {"progress", optional_argument, NULL, OPT_PROGRESS},
        {NULL, 0, NULL, 0}};
    scc_opts_t o = {.prefix = "seqgpu_scc", .backend = "auto", .k = 31, .min_copies = 3, .kw = 4, .kv = 2, .kt = 2};
    long v;
    int c;
    double t_start = sg_realtime();
    sg_log_init("seqgpu scc", 0);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":k:c:p:t:b:qvh", lopts, NULL)) >= 0) {
        switch (c) {
        case 'k':
            if (sg_parse_int(optarg, SG_K_MIN, SG_K_MAX, &v) < 0 || v % 2 == 0)
                return usage_error("invalid k-mer size '%s' (odd, 11 to 63)", optarg);
            o.k = (int)v;
            break;
        case OPT_MIN_COPIES: {
            char *end;
            o.min_copies = strtod(optarg, &end);
            if (end == optarg || *end || !(o.min_copies > 0) || o.min_copies > 1e6)
                return usage_error("invalid --min-copies '%s' (a number above 0)", optarg);
            break;
        }
        case 'c':
            if (sg_parse_int(optarg, 1, UINT32_MAX, &v) < 0) return usage_error("invalid --min-count '%s'", optarg);
            o.min_count = v;
            break;
        case OPT_EDGES: o.edges = optarg; break;
        case OPT_WRITE_GRAPH: o.write_graph = optarg; break;
        case 'p': o.prefix = optarg; break;
        case 't':
            if (sg_parse_int(optarg, 1, 4096, &v) < 0) return usage_error("invalid thread count '%s'", optarg);
            o.threads = (int)v;
            break;
        case 'b':
            if (strcmp(optarg, "auto") && strcmp(optarg, "cpu") && strcmp(optarg, "cuda"))
                return usage_error("invalid backend '%s' for scc (auto, cpu or cuda)", optarg);
            o.backend = optarg;
            break;
        case OPT_DEVICE:
            if (sg_parse_int(optarg, 0, 1023, &v) < 0) return usage_error("invalid --device '%s' (one device index)", optarg);
            o.device = optarg;
            break;
        case OPT_KW:
            if (sg_parse_int(optarg, 1, 32, &v) < 0 || (v & (v - 1)))
                return usage_error("invalid --kw '%s' (1, 2, 4, 8, 16 or 32)", optarg);
            o.kw = (int)v;
            break;
        case OPT_KV:
            if (sg_parse_int(optarg, 1, 1024, &v) < 0) return usage_error("invalid --kv '%s' (1 to 1024)", optarg);
            o.kv = (int)v;
            break;
        case OPT_KT:
            if (sg_parse_int(optarg, 0, 1000, &v) < 0) return usage_error("invalid --kt '%s' (0 to 1000)", optarg);
            o.kt = (int)v;
            break;
        case OPT_STATS: o.stats = optarg; break;
        case OPT_PROGRESS:
            if (sg_parse_progress(optarg, &o.progress) < 0)
                return usage_error("invalid --progress '%s' (seconds, 0.1 or more)", optarg);
            break;
        case 'q': o.quiet = 1; break;
        case 'v': o.verbose = 1; break;
        case 'h': usage(stdout); return SG_EXIT_OK;
        case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    sg_log_init("seqgpu scc", o.quiet);
    if (!o.threads) o.threads = sg_default_threads();
    o.inputs = argv + optind;
    o.n_inputs = argc - optind;
    if (o.edges && o.n_inputs) return usage_error("%s", "--edges takes the graph: give no other input");
    if (!o.edges && !o.n_inputs) {
        if (isatty(STDIN_FILENO)) return usage_error("%s", "no input given (reads, a GFA graph, or --edges FILE)");
        o.inputs = stdin_input;
        o.n_inputs = 1;
    }
    const char *base = strrchr(o.prefix, '/');
    base = base ? base + 1 : o.prefix;
    size_t stem = strlen(base) - prefix_gz(o.prefix);
    if (!stem || !strncmp(base, ".", stem) || !strncmp(base, "..", stem))
        return usage_error("invalid prefix '%s': it must end in a file name (PREFIX.repeats.tsv and the other outputs "
                           "would be hidden files or folders)", o.prefix);
    if (!strcmp(o.backend, "auto") && (o.why = auto_without_gpu())) o.backend = "cpu";
    if (o.verbose && o.why) sg_info("%s", o.why);

    enum { OUT_TSV, OUT_GFA, OUT_UNITS, OUT_COMP, OUT_GRAPH, OUT_STATS, N_OUT };
    char *paths[4] = {out_path(o.prefix, ".repeats.tsv"), out_path(o.prefix, ".gfa"), out_path(o.prefix, ".units.fa"),
                      out_path(o.prefix, ".components.tsv")};
    sg_outfile_t outs[N_OUT] = {
        {.what = "PREFIX.repeats.tsv", .path = o.edges ? NULL : paths[0]},
        {.what = "PREFIX.gfa", .path = o.edges ? NULL : paths[1]},
        {.what = "PREFIX.units.fa", .path = o.edges ? NULL : paths[2]},
        {.what = "PREFIX.components.tsv", .path = paths[3]},
        {.what = "--write-graph", .path = o.write_graph},
        {.what = "--stats", .path = o.stats},
    };
    char *edges_in[] = {(char *)o.edges};
    char *const *inputs = o.edges ? edges_in : o.inputs;
    int n_in = o.edges ? 1 : o.n_inputs;
    /* before any input is read: an input named twice that can be read once,
     * an output on an input, an output that cannot be written */
    int r = sg_inputs_check(inputs, n_in);
    if (r == 0) r = sg_outfiles_open(outs, N_OUT, inputs, n_in);
    if (r < 0) {
        for (int i = 0; i < 4; i++) free(paths[i]);
        return sg_exit_code(r);
    }

#ifdef SG_HAVE_CUDA
    if (likely_cuda(&o)) sg_scc_cuda_warmup(o.device);
#endif
    scc_run_t *run = sg_calloc(1, sizeof *run);
    sg_graph_t g = {0};
    sg_repeats_t rp = {0};
    uint32_t *comp = NULL, *node_comp = NULL;
    double coverage = 1;
    sg_progress_start("seqgpu scc", o.quiet, o.progress);
    if (o.edges) {
        run->source = "edges";
        sg_progress_stage("reading the edges", 0);
        r = sg_edges_read(o.edges, &g);
    } else {
        /* the format from the stream that is then read: a pipe is read once */
        sg_reader_t *rd = sg_reader_new(o.inputs, o.n_inputs, READ_BLOCK, o.threads);
        sg_progress_stage("reading", 0);
        int fmt = sg_reader_format(rd);
        if (fmt == SG_FMT_GFA) {
            run->source = "gfa";
            sg_progress_stage("reading the graph", 0);
            if (o.n_inputs > 1) {
                sg_error("a GFA graph is read alone: give one input");
                r = SG_ERR_INPUT;
            } else if ((r = sg_gfa_parse(rd, &g)) == 0) {
                coverage = graph_coverage(&g);
            }
            sg_reader_free(rd);
        } else if (fmt < 0) {
            r = fmt;
            sg_reader_free(rd);
        } else {
            run->source = "reads";
            if ((r = graph_from_reads(&o, run, &g, rd)) == 0) coverage = run->cov.coverage;
        }
    }
    if (r < 0) goto out;
    sg_info("graph: %u %s, %llu links", g.n, g.oriented ? "unitigs" : "nodes",
            (unsigned long long)(g.oriented ? g.n_edges / 2 : g.n_edges));

    double t0 = sg_realtime();
    sg_progress_stage("finding SCCs", 0);
    comp = sg_malloc(((size_t)g.n_vert + 1) * sizeof *comp);
    if ((r = find_sccs(&o, &g, run, comp)) < 0) goto out;
    run->t.scc = sg_realtime() - t0;

    t0 = sg_realtime();
    sg_progress_stage("writing", 0);
    if (o.write_graph) sg_gfa_write(outs[OUT_GRAPH].fp, &g, NULL, NULL);
    if (g.oriented) {
        sg_repeats_find(&g, comp, run->n_comp, coverage, &rp);
        run->n_nontrivial = rp.n;
        uint8_t *keep = sg_calloc((size_t)g.n + 1, 1);
        for (uint32_t i = 0; i < g.n; i++) keep[i] = rp.node_repeat[i] != 0;
        sg_repeats_write_tsv(outs[OUT_TSV].fp, &rp);
        sg_gfa_write(outs[OUT_GFA].fp, &g, keep, rp.node_repeat);
        sg_repeats_write_units(outs[OUT_UNITS].fp, &rp);
        sg_components_write(outs[OUT_COMP].fp, &g, rp.node_repeat);
        free(keep);
    } else {
        /* plain graph: components with two or more nodes or a self-loop, numbered by their first node */
        uint32_t *size = sg_calloc((size_t)run->n_comp + 1, sizeof *size), *num = sg_calloc((size_t)run->n_comp + 1, sizeof *num);
        uint8_t *self = sg_calloc((size_t)run->n_comp + 1, 1);
        for (uint32_t x = 0; x < g.n; x++) {
            size[comp[x]]++;
            for (uint64_t j = g.off[x]; j < g.off[x + 1]; j++) self[comp[x]] |= g.adj[j] == x;
        }
        node_comp = sg_calloc((size_t)g.n + 1, sizeof *node_comp);
        for (uint32_t x = 0; x < g.n; x++) {
            uint32_t cc = comp[x];
            if (size[cc] < 2 && !self[cc]) continue;
            if (!num[cc]) num[cc] = ++run->n_nontrivial;
            node_comp[x] = num[cc];
        }
        free(size);
        free(num);
        free(self);
        sg_components_write(outs[OUT_COMP].fp, &g, node_comp);
    }
    run->t.report = sg_realtime() - t0;
    if (o.stats) write_stats(outs[OUT_STATS].fp, &o, run, &g, g.oriented ? &rp : NULL, sg_realtime() - t_start);
    r = sg_outfiles_close(outs, N_OUT);
    sg_progress_stop();
    if (r == 0) {
        if (o.verbose && !o.why && !strcmp(o.backend, "auto"))
            sg_info("auto: graph built on %s, SCCs found on %s (cuda for inputs of %u+ graph vertices)",
                    run->graph_backend ? run->graph_backend : "-", run->scc_backend, SCC_CUDA_MIN_VERTICES);
        if (g.oriented) {
            uint32_t tandem = 0;
            for (uint32_t i = 0; i < rp.n; i++) tandem += rp.r[i].tandem;
            sg_info("%u repeats (%u tandem) in %u components; wrote %s, %s, %s, %s", rp.n, tandem, run->n_comp,
                    paths[0], paths[1], paths[2], paths[3]);
        } else {
            sg_info("%u strongly connected components, %u with two or more nodes or a self-loop; wrote %s",
                    run->n_comp, run->n_nontrivial, paths[3]);
        }
        sg_info("real %.3f s, cpu %.3f s, peak RSS %.1f MB", sg_realtime() - t_start, sg_cputime(),
                sg_peak_rss() / 1048576.0);
    }
out:
    sg_progress_stop();
    if (r < 0) sg_outfiles_discard(outs, N_OUT);
#ifdef SG_HAVE_CUDA
    sg_scc_cuda_warmup_join();
#endif
    for (int i = 0; i < 4; i++) free(paths[i]);
    free(comp);
    free(node_comp);
    sg_repeats_free(&rp);
    sg_graph_free(&g);
    free(run);
    return sg_exit_code(r);
}
