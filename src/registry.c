/* The registry: which backends this binary has and what each implements,
 * the estimates auto compares, and the auto rule. The only file outside
 * cuda/ and opencl/ that knows whether they were built. */
#include "registry.h"
#include "find/kernels.h"
#include "core/log.h"
#include "scc/overlap/minimizer.h"
#include "scc/overlap/overlap.h"
#include "core/stage.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifdef SG_HAVE_CUDA
#include "cuda/runtime/util.h"
#include "cuda/find/backend.h"
#include "cuda/scc/backend.h"
#endif
#ifdef SG_HAVE_OPENCL
#include "opencl/find/backend.h"
#endif

#ifdef SG_HAVE_CUDA
/* The overlap graph builder whose minimizer index is built on the device. */
static int overlap_cuda(const sg_graph_opts_t *o, sg_graph_builder_t **out, char *err, size_t errsz)
{
    if (o->overlaps) { /* read from PAF: no index to build */
        *out = sg_graph_builder_overlap(o, "cpu", NULL);
        return 0;
    }
    sg_mindex_t *x;
    int r = sg_mindex_cuda(o, &x, err, errsz);
    *out = r < 0 ? NULL : sg_graph_builder_overlap(o, "cuda", x);
    return r;
}
#endif

typedef struct {
    const char *name;
    sg_backend_ctor find;     /* find's scanner */
    sg_kmer_table_ctor kmers; /* scc's k-mer table, or NULL */
    sg_scc_solver_ctor scc;   /* scc's SCC solver, or NULL */
    sg_graph_builder_ctor overlap; /* scc's overlap graph builder, or NULL */
} backend_t;

static const backend_t backends[] = {
    {"cpu", sg_backend_cpu, sg_kmer_table_cpu, sg_scc_solver_cpu, sg_graph_builder_overlap_cpu},
#ifdef SG_HAVE_CUDA
    {"cuda", sg_backend_cuda, sg_kmer_table_cuda, sg_scc_solver_cuda, overlap_cuda},
#endif
#ifdef SG_HAVE_OPENCL
    {"opencl", sg_backend_opencl, NULL, NULL, NULL},
#endif
};
#define N_BACKENDS (sizeof backends / sizeof *backends)

static const backend_t *lookup(const char *name)
{
    for (size_t i = 0; i < N_BACKENDS; i++)
        if (!strcmp(backends[i].name, name)) return &backends[i];
    return NULL;
}

const char *sg_backend_list(void)
{
    static char list[64];
    if (!list[0])
        for (size_t i = 0; i < N_BACKENDS; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", backends[i].name);
    return list;
}

/* GPUs the kernel driver reports, without starting CUDA (-1: unknown). */
static int gpus_present(void)
{
#ifdef SG_HAVE_CUDA
    return sg_cuda_gpus_present();
#else
    return 0;
#endif
}

/* Planner constants, measured on the H200 host (16 cores; see
 * src/find/kernels.c): the CUDA start for one device (driver, context, module,
 * buffers: a 20-byte input takes 0.39 s, a bare cudaFree(0) 0.32 s) and for
 * each more; the host's parsing in thread-seconds per 1e9 bases, on the cpu
 * path and beside a GPU (slower there: the driver's threads and the pinned
 * copies); and the share of the summed kernel time that the streams do not
 * hide. The input is read while the device starts, but only as far as the
 * chunks in flight reach, so the start is paid in full. */
#define GPU_START_S 0.39
#define GPU_START_MORE_S 0.25
#define PARSE_COST 0.45
#define GPU_PARSE_COST 0.93
#define GPU_KERNEL_SHARE 0.75
/* cuda is chosen when its estimate is below this share of the cpu's */
#define AUTO_MARGIN 0.9
/* scc: below this many graph vertices the CUDA start costs more than
 * Tarjan's whole run (the SCC bench of the H200 host) */
#define SCC_CUDA_MIN_VERTICES (1u << 20)

/* SEQGPU_PLAN_BASES: the bases to plan for when the inputs do not tell
 * (standard input); 0 when unset, -1 (said once) when it is not a size. */
static double plan_bases_env(void)
{
    static int warned;
    const char *env = getenv("SEQGPU_PLAN_BASES");
    if (!env) return 0;
    char *end;
    double v = strtod(env, &end);
    if (end == env || *end || !(v > 0 && v < 1e15)) {
        if (!warned++) sg_warn("SEQGPU_PLAN_BASES='%s' is not a number of bases (1 to 1e15): ignored", env);
        return -1;
    }
    return v;
}

void sg_backend_plan(const sg_backend_opts_t *o, int n_listed, sg_backend_estimate_t *e)
{
    sg_plan_t plan;
    char err[256];
    double env = plan_bases_env();
    double bases = env > 0 ? env : o->input_bases >= 0 ? o->input_bases : 1e9;
    double gb = bases / 1e9, threads = o->n_threads > 0 ? o->n_threads : 1;
    double cpu = 0, gpu = 0;
    if (sg_plan_make(o->motifs, "auto", SG_CPU_VECTOR_MAX, &plan, err, sizeof err) == 0) {
        cpu = sg_plan_cpu_cost(&plan);
        gpu = sg_plan_gpu_cost(&plan);
        sg_plan_free(&plan);
    }
    e->size = bases;
    e->unit = "bases";
    e->cpu_s = gb * (PARSE_COST + cpu) / threads;
    /* the devices of the least estimate: each pays its start, and shares the
     * device work but not the host's parsing */
    double kernel = GPU_KERNEL_SHARE * gb * gpu, parse = gb * GPU_PARSE_COST / threads;
    e->gpus = 1;
    e->gpu_s = 0;
    for (int g = 1; g <= (n_listed > 1 ? n_listed : 1); g++) {
        double dev = kernel / g, t = GPU_START_S + GPU_START_MORE_S * (g - 1) + (parse > dev ? parse : dev);
        if (g == 1 || t < e->gpu_s) {
            e->gpu_s = t;
            e->gpus = g;
        }
    }
}

void sg_scc_plan(double vertices, sg_backend_estimate_t *e)
{
    /* the rule of thumb in seconds: the device's work beyond its start is
     * negligible, and the cpu's is linear in the vertices */
    e->gpu_s = GPU_START_S;
    e->cpu_s = vertices * GPU_START_S / (AUTO_MARGIN * SCC_CUDA_MIN_VERTICES);
    e->gpus = 1;
    e->size = vertices;
    e->unit = "vertices";
}

/* scc's de Bruijn graph, fitted to recorded runs. The cpu: thread-seconds
 * per 1e9 bases of reads (binning, counting the bins, the threshold) and
 * per k-mer kept (the compaction), on the H200 host with 16 threads
 * (bench/results/h200-2026-12-02-round-scc.md): 10 M reads of 150 bp (the
 * planner's 1.6e9 bases), 4.62 s for the repeats and 6.21 s with -c 5,
 * 53 M k-mers kept by the estimate below. (The 2-core VM's threads did 2.4
 * times the work each, 19 thread-s per 1e9 bases: per-thread speed falls
 * as threads share the memory; hosts with a GPU are the ones that ask, so
 * the fit is theirs.) The device: a whole
 * run of 2 M and 10 M reads on the H200 host with 16 threads, 1.19 and
 * 2.72 s (bench/results/h200-2026-11-29-scc.md; 2.84 s again on 2026-12-02): beyond the start, 0.42 s
 * (the table's buffers), and per 1e9 bases 0.12 s on the device (copies,
 * sorts, merges: its --stats) and the rest, 18.5 thread-s, on the host
 * (reading, parsing, filling the pinned batches). The kept k-mers a run
 * with -c expects: the bases over a coverage of 30 (the solid graph of a
 * genome read at 30x; 49.4 M kept of 1.5 Gb there). */
#define DBG_CPU_COUNT 46.2
#define DBG_CPU_KEPT 0.47e-6
#define DBG_GPU_FIXED 0.42
#define DBG_GPU_DEVICE 0.12
#define DBG_GPU_HOST 18.5
#define DBG_SOLID_COVERAGE 30.0

void sg_dbg_plan(double bases, int threads, int solid, sg_backend_estimate_t *e)
{
    double env = plan_bases_env();
    if (env > 0) bases = env;
    const double gb = bases / 1e9, t = threads > 0 ? threads : 1, kept = solid ? bases / DBG_SOLID_COVERAGE : 0;
    e->cpu_s = (gb * DBG_CPU_COUNT + kept * DBG_CPU_KEPT) / t;
    e->gpu_s = GPU_START_S + DBG_GPU_FIXED + gb * (DBG_GPU_DEVICE + DBG_GPU_HOST / t);
    e->gpus = 1;
    e->size = bases;
    e->unit = "bases";
}

int sg_backend_gpu_possible(char *why, size_t whysz)
{
    if (!lookup("cuda")) snprintf(why, whysz, "auto: cpu (built without cuda)");
    else if (gpus_present() == 0) snprintf(why, whysz, "auto: cpu (no CUDA device)");
    else return 1;
    return 0;
}

/* scc -g overlap's reading, index and chaining, fitted to recorded runs
 * (bench/overlap_bench.sh, pbsim CLR reads of 0.85 to 0.99 accuracy, mean
 * 0.90, 16 threads on the H200 hosts, 2 on the VM). The cpu's thread-seconds
 * per 1e9 bases vary with the repeats in the reads: 48 on 1.0 Gb of a 50 Mb
 * genome with eight satellite arrays (3.0 s; h200-2026-12-01-overlap-chain.md),
 * 92 on the VM (46 s), 197 on 0.4 Gb of a 20 Mb genome with the same arrays
 * (4.9 s; h200x2-2026-12-01-final.md). The device's run of the same stages:
 * 3.0 s on the 1.0 Gb, 3.3 s on the 0.4 Gb (the index 0.63 s on the device
 * per Gb, the chaining 0.8, and on the host the reading, the buckets and
 * the repeat reads' chains). A wrong choice costs little on the 1.0 Gb
 * (cuda's whole run 4.55 s, the cpu's 4.19) and much on the 0.4 Gb (4.65
 * and 6.04 s), so the cpu's figure is taken near the dearer end: the device
 * from about 0.1 Gb of reads at 16 threads, and at any size from a few
 * threads on, but the cpu for a few megabases, where the start dominates. */
#define OVL_CPU_COST 100.0
#define OVL_GPU_COST 0.8
#define OVL_HOST_COST 24.0

void sg_overlap_plan(double bases, int threads, sg_backend_estimate_t *e)
{
    double env = plan_bases_env();
    if (env > 0) bases = env;
    double gb = bases / 1e9, t = threads > 0 ? threads : 1;
    e->cpu_s = gb * OVL_CPU_COST / t;
    e->gpu_s = GPU_START_S + gb * (OVL_GPU_COST + OVL_HOST_COST / t);
    e->gpus = 1;
    e->size = bases;
    e->unit = "bases";
}

const char *sg_backend_pick(const sg_backend_estimate_t *e)
{
    return e->gpu_s < AUTO_MARGIN * e->cpu_s ? "cuda" : "cpu";
}

const char *sg_backend_auto(const sg_backend_estimate_t *e, char *why, size_t whysz)
{
    if (!sg_backend_gpu_possible(why, whysz)) return "cpu";
    const char *name = sg_backend_pick(e);
    snprintf(why, whysz, "auto: %s (estimated %.2f s on cpu, %.2f s on cuda, for %.2g %s)", name, e->cpu_s, e->gpu_s,
             e->size, e->unit);
    return name;
}

/* find's scanner on a device backend (one with a failure method), run as
 * a stage: the device's failures said here, and under auto the chunk that
 * failed and all later ones scanned by the cpu backend. */
typedef struct {
    sg_backend_t *dev, *cpu; /* cpu: auto's, else NULL */
    sg_stage_t stage;        /* stage.fell_back: the fallback was said */
    int on_cpu;              /* the device failed: the cpu scans (under mu) */
    pthread_mutex_t mu;
} scanner_t;

static int scanner_scan(sg_backend_t *be, const sg_chunk_t *c, size_t from, size_t to, sg_hits_t *hits)
{
    scanner_t *s = be->priv;
    pthread_mutex_lock(&s->mu);
    int on_cpu = s->on_cpu;
    pthread_mutex_unlock(&s->mu);
    if (!on_cpu) {
        int r = s->dev->scan(s->dev, c, from, to, hits);
        if (r >= 0) return r;
        char err[512] = "";
        int at_start = 0;
        s->dev->failure(s->dev, err, sizeof err, &at_start);
        pthread_mutex_lock(&s->mu);
        on_cpu = r == SG_ERR_DEVICE && s->stage.fallback;
        if (on_cpu) s->on_cpu = 1;
        if (err[0] && on_cpu && !s->stage.fell_back) {
            s->stage.instead = at_start ? "using the cpu backend" : "the cpu backend scans the rest";
            (void)sg_stage_fall_back(&s->stage, err);
        } else if (err[0] && !on_cpu) {
            sg_error("%s", err);
        }
        pthread_mutex_unlock(&s->mu);
        if (!on_cpu) return r;
    }
    return s->cpu->scan(s->cpu, c, from, to, hits);
}

static void scanner_stats(sg_backend_t *be, FILE *fp)
{
    scanner_t *s = be->priv;
    s->dev->stats(s->dev, fp);
}

static void scanner_free(sg_backend_t *be)
{
    scanner_t *s = be->priv;
    s->dev->free(s->dev);
    if (s->cpu) s->cpu->free(s->cpu);
    pthread_mutex_destroy(&s->mu);
    free(s);
    free(be);
}

/* The device backend *be as a stage of st (under auto with the cpu
 * backend beside it), in *be's place. Errors are printed. */
static int as_stage(sg_backend_t **be, const sg_stage_t *st, const sg_backend_opts_t *o)
{
    scanner_t *s = sg_calloc(1, sizeof *s);
    s->dev = *be;
    s->stage = *st;
    s->stage.why = NULL; /* the choice stands: --stats says the fallback (the device's fell_back_to_cpu) */
    char err[512] = "";
    int r = st->fallback ? sg_backend_cpu(o, &s->cpu, err, sizeof err) : 0;
    if (r < 0) {
        sg_error("%s", err);
        s->dev->free(s->dev);
        free(s);
        *be = NULL;
        return r;
    }
    pthread_mutex_init(&s->mu, NULL);
    sg_backend_t *w = sg_calloc(1, sizeof *w);
    w->name = s->dev->name;
    memcpy(w->desc, s->dev->desc, sizeof w->desc);
    w->max_par = s->dev->max_par;
    w->chunk_size = s->dev->chunk_size;
    w->scan = scanner_scan;
    w->stats = s->dev->stats ? scanner_stats : NULL;
    w->free = scanner_free;
    w->priv = s;
    *be = w;
    return 0;
}

typedef struct {
    const sg_backend_opts_t *o;
    sg_backend_t **out;
} find_open_t;

/* find's backend name opened (an sg_stage_fn): a cuda backend with several
 * GPUs listed starts those the estimate finds worth their start (each pays
 * its start: memory-bound work stays on the first). */
static int open_find(void *arg, const char *name, char *err, size_t errsz)
{
    const find_open_t *a = arg;
    sg_backend_opts_t o = *a->o;
    const sg_devices_t *listed = sg_devices_or_default(o.devices);
    if (!strcmp(name, "cuda") && listed->n > 1) {
        sg_backend_estimate_t e;
        sg_backend_plan(&o, listed->n, &e);
        o.gpus = e.gpus;
    }
    return lookup(name)->find(&o, a->out, err, errsz);
}

int sg_backend_open(const char *name, const sg_backend_opts_t *o, sg_backend_t **out)
{
    char why[256] = "";
    *out = NULL;
    sg_stage_t s = {.backend = name, .instead = "using the cpu backend", .why = why, .whysz = sizeof why};
    if (!strcmp(name, "auto")) {
        /* without a device to try, the estimates (and the kernel tables they price) are not needed */
        s.backend = "cpu";
        s.fallback = 1;
        sg_backend_estimate_t e;
        if (sg_backend_gpu_possible(why, sizeof why)) {
            sg_backend_plan(o, 1, &e);
            s.backend = sg_backend_auto(&e, why, sizeof why);
        }
    }
    if (!lookup(s.backend)) {
        if (!strcmp(name, "cuda") || !strcmp(name, "opencl"))
            sg_error("this seqgpu was built without the %s backend (built: %s)", name, sg_backend_list());
        else
            sg_error("unknown backend '%s' (auto, %s)", name, sg_backend_list());
        return SG_ERR_INPUT;
    }
    const find_open_t a = {o, out};
    int r = sg_stage_run(&s, open_find, (void *)&a);
    if (r < 0) sg_error("%s", s.err);
    else if ((*out)->failure) r = as_stage(out, &s, o);
    if (r == 0) snprintf((*out)->why, sizeof (*out)->why, "%s", why);
    return r;
}

/* A backend of scc by name, with what it must implement. */
static const backend_t *scc_backend(const char *name, char *err, size_t errsz)
{
    const backend_t *b = lookup(name);
    if (!b || !b->kmers || !b->scc) {
        if (!strcmp(name, "cuda")) snprintf(err, errsz, "this seqgpu was built without CUDA");
        else snprintf(err, errsz, "no %s backend for scc (cpu, cuda)", name);
        return NULL;
    }
    return b;
}

int sg_kmer_table_open(const char *name, const sg_kmer_opts_t *o, sg_kmer_table_t **out, char *err, size_t errsz)
{
    *out = NULL;
    const backend_t *b = scc_backend(name, err, errsz);
    return b ? b->kmers(o, out, err, errsz) : SG_ERR_DEVICE;
}

int sg_graph_builder_on(const char *graph, const char *name)
{
    const backend_t *b = lookup(name);
    return b && (!strcmp(graph, "overlap") ? b->overlap != NULL : b->kmers != NULL);
}

int sg_graph_builder_open(const char *graph, const char *name, const sg_graph_opts_t *o, sg_graph_builder_t **out,
                          char *err, size_t errsz)
{
    *out = NULL;
    if (!strcmp(graph, "overlap")) {
        const backend_t *b = lookup(name);
        if (!b || !b->overlap) {
            if (!b && strcmp(name, "cuda")) snprintf(err, errsz, "no %s backend for scc (cpu, cuda)", name);
            else snprintf(err, errsz, "this seqgpu was built without CUDA");
            return SG_ERR_DEVICE;
        }
        return b->overlap(o, out, err, errsz);
    }
    if (strcmp(graph, "dbg")) {
        snprintf(err, errsz, "no graph builder '%s' (dbg, overlap)", graph);
        return SG_ERR_INPUT;
    }
    sg_kmer_table_t *t;
    const sg_kmer_opts_t ko = {.k = o->k, .n_threads = o->n_threads, .devices = o->devices, .max_bytes = o->max_bytes,
                               .tmp_dir = o->tmp_dir, .expect = o->expect, .min_keep = sg_graph_min_count(o)};
    int r = sg_kmer_table_open(name, &ko, &t, err, errsz);
    return r < 0 ? r : sg_graph_builder_dbg(t, o, out);
}

int sg_scc_solver_open(const char *name, const sg_scc_opts_t *o, sg_scc_solver_t **out, char *err, size_t errsz)
{
    *out = NULL;
    const backend_t *b = scc_backend(name, err, errsz);
    return b ? b->scc(o, out, err, errsz) : SG_ERR_DEVICE;
}
