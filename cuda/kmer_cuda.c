/* The graph build of seqgpu scc on a CUDA device (see kmer_cuda.h): the
 * batching of chunks, device memory, and the order of the kernel calls of
 * kmer_kernels.cu. Every CUDA call is checked; a failure leaves the table
 * broken with its reason in err. */
#define _GNU_SOURCE
#include "kmer_cuda.h"
#include "cuda_util.h"
#include "kmer_kernels.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "../src/cli.h"
#include "../src/scc_kmers.h"
#include "../src/log.h"

#define BATCH_MAX ((size_t)256 << 20) /* bases per batch, at most */
#define BATCH_MIN ((size_t)1 << 20)   /* ... and at least, unless set by SEQGPU_CUDA_KMER_BATCH */
#define MAX_NODES ((uint64_t)1 << 30) /* kept k-mers the compaction takes: ranks and oriented nodes fit 32 bits */

typedef struct {
    char *p; /* pinned */
    size_t n;
    int busy; /* being counted */
} batch_t;

typedef struct {
    double h2d, extract_sort, merge, histogram, filter, neighbours, unitigs, d2h;
} stage_t;

struct sg_cuda_kmers {
    int k, wide, device; /* device: as the user numbers it */
    int local;            /* the runtime's index of it */
    size_t kb; /* bytes of a key */
    cudaStream_t stream;
    char name[128];

    /* filling, under mu: buf[cur] takes the bases; the device counts one batch at a time, under dev_mu */
    pthread_mutex_t mu, dev_mu;
    pthread_cond_t cv;
    batch_t buf[2];
    int cur;
    size_t batch;
    int broken, reported; /* under mu: a batch failed, and it was reported */
    int dev_broken;       /* under dev_mu: the same, seen before the device is taken again */
    char err[512];

    /* per batch, on the device */
    uint8_t *d_text;
    void *d_keys, *d_alt, *d_run_keys;
    uint32_t *d_run_counts;
    unsigned long long *d_n, *h_n; /* counters, and their pinned copies */

    /* the table: sorted canonical k-mers and their counts; m_* is scratch of the same layout */
    void *tab_k, *m_k;
    uint32_t *tab_c, *m_c;
    uint64_t n_tab, cap_tab, cap_m;
    void *temp;
    size_t temp_cap;

    uint64_t total, batches, bytes_in;
    size_t dev_bytes, dev_peak;
    stage_t sec;
};

static int fail(sg_cuda_kmers_t *t, const char *what, cudaError_t e)
{
    snprintf(t->err, sizeof t->err, "%s: %s", what, cudaGetErrorString(e));
    return SG_ERR_DEVICE;
}

#define CK(call, what)                                                       \
    do {                                                                     \
        cudaError_t e_ = (call);                                             \
        if (e_ != cudaSuccess) return fail(t, what, e_);                     \
    } while (0)

/* Device memory, counted for the statistics; running out says how much was asked and what was free. */
static int dev_alloc(sg_cuda_kmers_t *t, void **p, size_t n, const char *what)
{
    *p = NULL;
    cudaError_t e = cudaMalloc(p, n ? n : 1);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError(); /* not sticky: clear it */
        size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        snprintf(t->err, sizeof t->err,
                 "out of device memory for %s: %zu MB more needed, %zu MB free of %zu MB (the table holds %llu k-mers);"
                 " use the cpu backend, a smaller input or a larger device",
                 what, n >> 20, free_b >> 20, total_b >> 20, (unsigned long long)t->n_tab);
        return SG_ERR_DEVICE;
    }
    if (e != cudaSuccess) return fail(t, what, e);
    t->dev_bytes += n;
    if (t->dev_bytes > t->dev_peak) t->dev_peak = t->dev_bytes;
    return 0;
}

static void dev_free(sg_cuda_kmers_t *t, void *p, size_t n)
{
    if (!p) return;
    cudaFree(p);
    t->dev_bytes -= n;
}

/* Make a scratch buffer at least n bytes, its content not kept. */
static int ensure(sg_cuda_kmers_t *t, void **p, size_t *cap, size_t n, const char *what)
{
    if (*p && *cap >= n) return 0;
    dev_free(t, *p, *cap);
    *cap = 0;
    int r = dev_alloc(t, p, n, what);
    if (r == 0) *cap = n;
    return r;
}

static int ensure_temp(sg_cuda_kmers_t *t, size_t n) { return ensure(t, &t->temp, &t->temp_cap, n + n / 8 + 256, "CUB scratch"); }

/* The counters to the host; waits for the stream. */
static int read_counters(sg_cuda_kmers_t *t, int n)
{
    CK(cudaMemcpyAsync(t->h_n, t->d_n, n * sizeof *t->d_n, cudaMemcpyDeviceToHost, t->stream), "copying counters");
    CK(cudaStreamSynchronize(t->stream), "running the k-mer kernels");
    return 0;
}

static int sync_stage(sg_cuda_kmers_t *t, double *sec, double t0)
{
    CK(cudaStreamSynchronize(t->stream), "running the k-mer kernels");
    *sec += sg_realtime() - t0;
    return 0;
}

static void free_batch_buffers(sg_cuda_kmers_t *t)
{
    size_t keys = t->batch * t->kb;
    dev_free(t, t->d_text, t->batch);
    dev_free(t, t->d_keys, keys);
    dev_free(t, t->d_alt, keys);
    dev_free(t, t->d_run_keys, keys);
    dev_free(t, t->d_run_counts, t->batch * sizeof *t->d_run_counts);
    t->d_text = NULL;
    t->d_keys = t->d_alt = t->d_run_keys = NULL;
    t->d_run_counts = NULL;
    for (int i = 0; i < 2; i++) {
        cudaFreeHost(t->buf[i].p);
        t->buf[i].p = NULL;
    }
}

/* Add the batch's (kmer, count) runs to the table: merged into the scratch,
 * then added up by key into the table, which grows first when it must (its
 * old content is no longer needed once the merge ran). */
static int merge_runs(sg_cuda_kmers_t *t, uint64_t runs)
{
    const uint64_t n = t->n_tab + runs;
    int r;
    if (!t->n_tab) {
        if (t->cap_tab < runs) {
            dev_free(t, t->tab_k, t->cap_tab * t->kb);
            dev_free(t, t->tab_c, t->cap_tab * 4);
            t->tab_k = t->tab_c = NULL;
            t->cap_tab = 0;
            if ((r = dev_alloc(t, &t->tab_k, runs * t->kb, "the k-mer table")) < 0) return r;
            if ((r = dev_alloc(t, (void **)&t->tab_c, runs * 4, "the k-mer table")) < 0) return r;
            t->cap_tab = runs;
        }
        CK(cudaMemcpyAsync(t->tab_k, t->d_run_keys, runs * t->kb, cudaMemcpyDeviceToDevice, t->stream), "copying k-mers");
        CK(cudaMemcpyAsync(t->tab_c, t->d_run_counts, runs * 4, cudaMemcpyDeviceToDevice, t->stream), "copying counts");
        t->n_tab = runs;
        return 0;
    }
    const uint64_t grow = n + n / 4; /* room for the next batches' new k-mers too */
    if (t->cap_m < n) {
        dev_free(t, t->m_k, t->cap_m * t->kb);
        dev_free(t, t->m_c, t->cap_m * 4);
        t->m_k = t->m_c = NULL;
        t->cap_m = 0;
        if ((r = dev_alloc(t, &t->m_k, grow * t->kb, "merging k-mer counts")) < 0) return r;
        if ((r = dev_alloc(t, (void **)&t->m_c, grow * 4, "merging k-mer counts")) < 0) return r;
        t->cap_m = grow;
    }
    size_t tb = 0, tb2 = 0;
    CK(sg_ck_merge(t->wide, t->tab_k, t->tab_c, t->n_tab, t->d_run_keys, t->d_run_counts, runs, t->m_k, t->m_c, NULL,
                   &tb, t->stream),
       "sizing the merge");
    CK(sg_ck_sum_runs(t->wide, t->m_k, t->m_c, n, t->tab_k, t->tab_c, t->d_n, NULL, &tb2, t->stream), "sizing the merge");
    if ((r = ensure_temp(t, tb > tb2 ? tb : tb2)) < 0) return r;
    CK(sg_ck_merge(t->wide, t->tab_k, t->tab_c, t->n_tab, t->d_run_keys, t->d_run_counts, runs, t->m_k, t->m_c,
                   t->temp, &t->temp_cap, t->stream),
       "merging k-mer counts");
    if (t->cap_tab < n) {
        /* the merge has read the table: only now can it make room for the sums */
        CK(cudaStreamSynchronize(t->stream), "merging k-mer counts");
        dev_free(t, t->tab_k, t->cap_tab * t->kb);
        dev_free(t, t->tab_c, t->cap_tab * 4);
        t->tab_k = t->tab_c = NULL;
        t->cap_tab = 0;
        t->n_tab = 0; /* until the sums below refill it */
        if ((r = dev_alloc(t, &t->tab_k, grow * t->kb, "the k-mer table")) < 0) return r;
        if ((r = dev_alloc(t, (void **)&t->tab_c, grow * 4, "the k-mer table")) < 0) return r;
        t->cap_tab = grow;
    }
    CK(sg_ck_sum_runs(t->wide, t->m_k, t->m_c, n, t->tab_k, t->tab_c, t->d_n, t->temp, &t->temp_cap, t->stream),
       "merging k-mer counts");
    if ((r = read_counters(t, 1)) < 0) return r;
    t->n_tab = t->h_n[0];
    return 0;
}

/* Count batch b on the device (dev_mu held). */
static int run_batch(sg_cuda_kmers_t *t, const batch_t *b)
{
    int r;
    if (b->n < (size_t)t->k) return 0;
    const uint64_t n_keys = b->n - t->k + 1;
    double t0 = sg_realtime();
    CK(cudaSetDevice(t->local), "cudaSetDevice");
    CK(cudaMemcpyAsync(t->d_text, b->p, b->n, cudaMemcpyHostToDevice, t->stream), "copying bases to the device");
    if ((r = sync_stage(t, &t->sec.h2d, t0)) < 0) return r;

    t0 = sg_realtime();
    size_t tb = 0;
    CK(sg_ck_count(t->wide, t->k, t->d_keys, t->d_alt, n_keys, t->d_run_keys, t->d_run_counts, t->d_n + 1, NULL, &tb,
                   t->stream),
       "sizing the k-mer sort");
    if ((r = ensure_temp(t, tb)) < 0) return r;
    CK(sg_ck_extract(t->wide, t->k, t->d_text, b->n, t->d_keys, t->d_n, t->stream), "extracting k-mers");
    CK(sg_ck_count(t->wide, t->k, t->d_keys, t->d_alt, n_keys, t->d_run_keys, t->d_run_counts, t->d_n + 1, t->temp,
                   &t->temp_cap, t->stream),
       "sorting k-mers");
    if ((r = read_counters(t, 2)) < 0) return r;
    t->sec.extract_sort += sg_realtime() - t0;
    const uint64_t valid = t->h_n[0];
    /* the keys of windows that are not k-mers sort last, as one run */
    const uint64_t runs = t->h_n[1] - (valid < n_keys);
    t->total += valid;
    t->batches++;
    t->bytes_in += b->n;
    if (!runs) return 0;
    t0 = sg_realtime();
    r = merge_runs(t, runs);
    t->sec.merge += sg_realtime() - t0;
    return r;
}

/* Report a failure once; from then on every call fails (under mu while adds run). */
static int broke(sg_cuda_kmers_t *t, int r)
{
    t->broken = 1;
    if (!t->reported) {
        t->reported = 1;
        sg_error("CUDA device %d: %s", t->device, t->err);
    }
    return r;
}

/* Count the batch being filled (mu held, released meanwhile): the next
 * one fills while the device counts this one. */
static int flush(sg_cuda_kmers_t *t)
{
    batch_t *b = &t->buf[t->cur];
    b->busy = 1;
    t->cur ^= 1;
    pthread_mutex_unlock(&t->mu);
    pthread_mutex_lock(&t->dev_mu);
    int r = t->dev_broken ? SG_ERR_DEVICE : run_batch(t, b);
    if (r < 0) t->dev_broken = 1; /* before another thread takes the device: the table may be half freed */
    pthread_mutex_unlock(&t->dev_mu);
    pthread_mutex_lock(&t->mu);
    b->n = 0;
    b->busy = 0;
    pthread_cond_broadcast(&t->cv);
    return r < 0 ? broke(t, r) : 0;
}

int sg_cuda_kmers_add(sg_cuda_kmers_t *t, const sg_chunk_t *c)
{
    const size_t k = (size_t)t->k;
    /* the k-mers starting in [0, len) lie in [0, end) */
    const size_t end = c->len + (c->ov < k - 1 ? c->ov : k - 1);
    int r = 0;
    pthread_mutex_lock(&t->mu);
    /* windows of starts [a, a + w), each copied with the k - 1 bases after it and a separator */
    for (size_t a = 0; a < c->len && !t->broken;) {
        batch_t *b = &t->buf[t->cur];
        if (b->busy) {
            pthread_cond_wait(&t->cv, &t->mu);
            continue;
        }
        size_t room = t->batch - b->n;
        if (room < k + 1) {
            if ((r = flush(t)) < 0) break;
            continue;
        }
        size_t w = room - k < c->len - a ? room - k : c->len - a;
        size_t stop = a + w + k - 1 < end ? a + w + k - 1 : end;
        memcpy(b->p + b->n, c->seq + a, stop - a);
        b->n += stop - a;
        b->p[b->n++] = SG_SEP;
        a += w;
    }
    if (t->broken) r = SG_ERR_DEVICE;
    pthread_mutex_unlock(&t->mu);
    return r;
}

int sg_cuda_kmers_finish(sg_cuda_kmers_t *t)
{
    int r = 0;
    pthread_mutex_lock(&t->mu);
    while (t->buf[t->cur].busy) pthread_cond_wait(&t->cv, &t->mu);
    if (t->buf[t->cur].n && !t->broken) r = flush(t);
    while (t->buf[0].busy || t->buf[1].busy) pthread_cond_wait(&t->cv, &t->mu);
    if (t->broken) r = SG_ERR_DEVICE;
    pthread_mutex_unlock(&t->mu);
    if (r < 0) return r;
    /* room for the compaction: the batch buffers and the merge scratch go */
    free_batch_buffers(t);
    dev_free(t, t->m_k, t->cap_m * t->kb);
    dev_free(t, t->m_c, t->cap_m * 4);
    t->m_k = t->m_c = NULL;
    t->cap_m = 0;
    return 0;
}

uint64_t sg_cuda_kmers_distinct(const sg_cuda_kmers_t *t) { return t->n_tab; }
uint64_t sg_cuda_kmers_total(const sg_cuda_kmers_t *t) { return t->total; }

static int histogram(sg_cuda_kmers_t *t, uint64_t *hist, int n)
{
    void *d_hist;
    double t0 = sg_realtime();
    int r = dev_alloc(t, &d_hist, n * sizeof *hist, "the count histogram");
    if (r < 0) return r;
    cudaError_t e = sg_ck_histogram(t->tab_c, t->n_tab, d_hist, n, t->stream);
    if (e == cudaSuccess) e = cudaMemcpyAsync(hist, d_hist, n * sizeof *hist, cudaMemcpyDeviceToHost, t->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(t->stream);
    dev_free(t, d_hist, n * sizeof *hist);
    t->sec.histogram += sg_realtime() - t0;
    return e == cudaSuccess ? 0 : fail(t, "the count histogram", e);
}

int sg_cuda_kmers_histogram(sg_cuda_kmers_t *t, uint64_t *hist, int n)
{
    memset(hist, 0, n * sizeof *hist);
    if (t->broken) return SG_ERR_DEVICE;
    int r = histogram(t, hist, n);
    return r < 0 ? broke(t, r) : 0;
}

static int filter(sg_cuda_kmers_t *t, uint32_t min)
{
    int r;
    double t0 = sg_realtime();
    void *k2;
    uint32_t *c2;
    if ((r = dev_alloc(t, &k2, t->n_tab * t->kb, "the kept k-mers")) < 0) return r;
    if ((r = dev_alloc(t, (void **)&c2, t->n_tab * 4, "the kept k-mers")) < 0) {
        dev_free(t, k2, t->n_tab * t->kb);
        return r;
    }
    size_t tb = 0;
    cudaError_t e = sg_ck_filter(t->wide, t->tab_k, t->tab_c, t->n_tab, min, k2, c2, t->d_n, NULL, &tb, t->stream);
    if (e == cudaSuccess && (r = ensure_temp(t, tb)) == 0)
        e = sg_ck_filter(t->wide, t->tab_k, t->tab_c, t->n_tab, min, k2, c2, t->d_n, t->temp, &t->temp_cap, t->stream);
    if (e == cudaSuccess && r == 0) r = read_counters(t, 1);
    else if (e != cudaSuccess) r = fail(t, "filtering k-mers", e);
    /* the old table goes whatever happened; the new one is the table from now on */
    dev_free(t, t->tab_k, t->cap_tab * t->kb);
    dev_free(t, t->tab_c, t->cap_tab * 4);
    t->tab_k = k2;
    t->tab_c = c2;
    t->cap_tab = t->n_tab;
    t->n_tab = r == 0 ? t->h_n[0] : 0;
    t->sec.filter += sg_realtime() - t0;
    return r;
}

int sg_cuda_kmers_filter(sg_cuda_kmers_t *t, uint32_t min)
{
    if (t->broken) return SG_ERR_DEVICE;
    int r = filter(t, min);
    return r < 0 ? broke(t, r) : 0;
}

/* ---- compaction ---- */

/* The compaction's device buffers, freed as soon as the later steps no longer need them. */
enum { B_NB, B_PRED, B_HEAD, B_RANK, B_LOW, B_PTR2, B_RANK2, B_LOW2, B_CYCLE, B_START, B_POS, B_ORIENT, B_LEN,
       B_FIRST, B_UKEYS, B_UKEYS2, B_NODES2, B_UID, B_KOFF, B_SEQ, B_PLACE, B_SUMS, B_EDGES, N_BUF };

typedef struct {
    void *p[N_BUF];
    size_t n[N_BUF];
} bufs_t;

static int take(sg_cuda_kmers_t *t, bufs_t *b, int id, size_t n, const char *what)
{
    int r = dev_alloc(t, &b->p[id], n, what);
    b->n[id] = r == 0 ? n : 0;
    return r;
}

static void drop(sg_cuda_kmers_t *t, bufs_t *b, int id)
{
    dev_free(t, b->p[id], b->n[id]);
    b->p[id] = NULL;
    b->n[id] = 0;
}

#define TAKE(id, n, what)                                  \
    do {                                                   \
        if ((r = take(t, b, id, n, what)) < 0) return r;   \
    } while (0)
#define P(id, type) ((type *)b->p[id])
/* a CUB call: sized, scratch made, then run */
#define CUB(call_with, what)                                                  \
    do {                                                                      \
        size_t tb_ = 0;                                                       \
        CK(call_with(NULL, &tb_), "sizing " what);                            \
        if ((r = ensure_temp(t, tb_)) < 0) return r;                          \
        CK(call_with(t->temp, &t->temp_cap), what);                           \
    } while (0)

static int compact(sg_cuda_kmers_t *t, bufs_t *b, sg_graph_t *g)
{
    const uint64_t n = t->n_tab;
    const int k = t->k, wide = t->wide;
    cudaStream_t s = t->stream;
    int r;
    if (n >= MAX_NODES) {
        snprintf(t->err, sizeof t->err,
                 "%llu kept k-mers: the GPU compaction takes fewer than %llu; raise the threshold or use the cpu backend",
                 (unsigned long long)n, (unsigned long long)MAX_NODES);
        return SG_ERR_DEVICE;
    }
    size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    /* the ranking step is the largest: neighbour bits, seven arrays of 2n ranks and links, and the places */
    const uint64_t need = n * 80;
    if (need > free_b) {
        snprintf(t->err, sizeof t->err,
                 "compacting %llu k-mers needs about %llu MB of device memory, %zu MB free;"
                 " raise the threshold or use the cpu backend",
                 (unsigned long long)n, (unsigned long long)(need >> 20), free_b >> 20);
        return SG_ERR_DEVICE;
    }

    if (!n) { /* nothing kept: an empty graph */
        g->oriented = 1;
        g->k = k;
        g->seq = sg_malloc(1);
        g->seq_off = sg_calloc(1, sizeof *g->seq_off);
        g->kmers = sg_malloc(sizeof *g->kmers);
        g->count_sum = sg_malloc(sizeof *g->count_sum);
        sg_edge_t none;
        sg_graph_set_edges(g, &none, 0);
        return 0;
    }

    double t0 = sg_realtime();
    TAKE(B_NB, n, "neighbour bits");
    CK(sg_ck_neighbours(wide, k, t->tab_k, n, P(B_NB, uint8_t), s), "looking up neighbours");
    if ((r = sync_stage(t, &t->sec.neighbours, t0)) < 0) return r;

    /* list ranking over the 2n oriented nodes; a second round once the cycles are cut */
    t0 = sg_realtime();
    const size_t n2 = 2 * n * sizeof(uint32_t);
    TAKE(B_PRED, n2, "unitig links");
    for (int id = B_HEAD; id <= B_LOW2; id++) TAKE(id, n2, "list ranking");
    TAKE(B_CYCLE, n * 4, "list ranking");
#define RANK()                                                                                                       \
    CK(sg_ck_rank(P(B_PRED, uint32_t), n, P(B_HEAD, uint32_t), P(B_RANK, uint32_t), P(B_LOW, uint32_t),              \
                  P(B_PTR2, uint32_t), P(B_RANK2, uint32_t), P(B_LOW2, uint32_t), s),                                \
       "ranking unitig paths")
    CK(sg_ck_links(wide, k, t->tab_k, P(B_NB, uint8_t), n, P(B_PRED, uint32_t), s), "linking k-mers");
    RANK();
    CK(sg_ck_break_cycles(P(B_PRED, uint32_t), n, P(B_HEAD, uint32_t), P(B_LOW, uint32_t), P(B_CYCLE, uint32_t),
                          t->d_n, s),
       "finding cycles");
    if ((r = read_counters(t, 1)) < 0) return r;
    if (t->h_n[0]) RANK();
#undef RANK
    TAKE(B_START, n * 4, "unitig places");
    TAKE(B_POS, n * 4, "unitig places");
    TAKE(B_LEN, n * 4, "unitig places");
    TAKE(B_ORIENT, n, "unitig places");
    CK(sg_ck_place(wide, k, t->tab_k, n, P(B_HEAD, uint32_t), P(B_RANK, uint32_t), P(B_CYCLE, uint32_t),
                   P(B_START, uint32_t), P(B_POS, uint32_t), P(B_ORIENT, uint8_t), P(B_LEN, uint32_t), s),
       "placing k-mers");
    CK(cudaStreamSynchronize(s), "placing k-mers");
    for (int id = B_PRED; id <= B_CYCLE; id++)
        if (id != B_HEAD) drop(t, b, id);

    /* the unitigs in the order of their first k-mers, then each k-mer's unitig */
    TAKE(B_FIRST, n * 4, "unitig order");
#define STARTS(tmp, tb) sg_ck_starts(n, P(B_POS, uint32_t), P(B_FIRST, uint32_t), t->d_n, tmp, tb, s)
    CUB(STARTS, "finding unitig starts");
#undef STARTS
    if ((r = read_counters(t, 1)) < 0) return r;
    const uint64_t nu = t->h_n[0];
    TAKE(B_UKEYS, nu * t->kb, "unitig order");
    TAKE(B_UKEYS2, nu * t->kb, "unitig order");
    TAKE(B_NODES2, n * 4, "unitig order");
#define ORDER(tmp, tb)                                                                                               \
    sg_ck_order(wide, k, t->tab_k, P(B_ORIENT, uint8_t), nu, P(B_FIRST, uint32_t), b->p[B_UKEYS], b->p[B_UKEYS2],   \
                P(B_NODES2, uint32_t), tmp, tb, s)
    CUB(ORDER, "sorting unitigs");
#undef ORDER
    TAKE(B_UID, n * 4, "unitig numbers");
    TAKE(B_KOFF, (nu + 1) * 8, "unitig numbers");
#define NUMBER(tmp, tb)                                                                                              \
    sg_ck_number(P(B_FIRST, uint32_t), nu, n, P(B_START, uint32_t), P(B_LEN, uint32_t), P(B_NODES2, uint32_t),       \
                 P(B_UID, uint32_t), P(B_KOFF, uint64_t), tmp, tb, s)
    CUB(NUMBER, "numbering unitigs");
#undef NUMBER
    CK(cudaStreamSynchronize(s), "numbering unitigs");
    drop(t, b, B_UKEYS);
    drop(t, b, B_UKEYS2);
    drop(t, b, B_NODES2);
    uint64_t *koff = sg_malloc((nu + 1) * sizeof *koff);
    g->seq_off = koff; /* becomes the sequence offsets */
    CK(cudaMemcpy(koff, b->p[B_KOFF], (nu + 1) * sizeof *koff, cudaMemcpyDeviceToHost), "copying unitig sizes");

    /* sequences and count sums, copied back */
    const uint64_t seq_len = koff[nu] + nu * (k - 1);
    TAKE(B_SEQ, seq_len, "unitig sequences");
    TAKE(B_PLACE, n * 8, "unitig counts");
    TAKE(B_SUMS, nu * 8, "unitig counts");
#define SPELL(tmp, tb)                                                                                               \
    sg_ck_spell(wide, k, t->tab_k, t->tab_c, n, P(B_UID, uint32_t), P(B_POS, uint32_t), P(B_ORIENT, uint8_t),        \
                P(B_KOFF, uint64_t), nu, P(B_SEQ, char), P(B_PLACE, uint64_t), P(B_SUMS, uint64_t), tmp, tb, s)
    CUB(SPELL, "spelling unitigs");
#undef SPELL
    if ((r = sync_stage(t, &t->sec.unitigs, t0)) < 0) return r;
    t0 = sg_realtime();
    g->seq = sg_malloc(seq_len + 1);
    g->count_sum = sg_malloc((nu + 1) * sizeof *g->count_sum);
    CK(cudaMemcpy(g->seq, b->p[B_SEQ], seq_len, cudaMemcpyDeviceToHost), "copying unitig sequences");
    uint64_t *sums = sg_malloc((nu + 1) * sizeof *sums);
    cudaError_t ce = cudaMemcpy(sums, b->p[B_SUMS], nu * sizeof *sums, cudaMemcpyDeviceToHost);
    for (uint64_t u = 0; u < nu && ce == cudaSuccess; u++) g->count_sum[u] = (double)sums[u];
    free(sums);
    if (ce != cudaSuccess) return fail(t, "copying unitig counts", ce);
    t->sec.d2h += sg_realtime() - t0;
    drop(t, b, B_SEQ);
    drop(t, b, B_PLACE);
    drop(t, b, B_SUMS);

    /* links */
    t0 = sg_realtime();
    TAKE(B_EDGES, 8 * nu * sizeof(sg_edge_t), "unitig links");
#define EDGES(tmp, tb)                                                                                               \
    sg_ck_edges(wide, k, t->tab_k, P(B_NB, uint8_t), n, P(B_FIRST, uint32_t), nu, P(B_HEAD, uint32_t),               \
                P(B_UID, uint32_t), P(B_POS, uint32_t), P(B_ORIENT, uint8_t), P(B_LEN, uint32_t),                    \
                P(B_EDGES, sg_edge_t), t->d_n, tmp, tb, s)
    CUB(EDGES, "linking unitigs");
#undef EDGES
    if ((r = read_counters(t, 1)) < 0) return r;
    t->sec.unitigs += sg_realtime() - t0;
    const uint64_t n_edges = t->h_n[0];
    t0 = sg_realtime();
    sg_edge_t *e = sg_malloc((n_edges + 1) * sizeof *e);
    ce = cudaMemcpy(e, b->p[B_EDGES], n_edges * sizeof *e, cudaMemcpyDeviceToHost);
    t->sec.d2h += sg_realtime() - t0;
    if (ce != cudaSuccess) {
        free(e);
        return fail(t, "copying unitig links", ce);
    }

    g->oriented = 1;
    g->k = k;
    g->n = (uint32_t)nu;
    g->n_vert = 2 * g->n;
    g->kmers = sg_malloc((nu + 1) * sizeof *g->kmers);
    for (uint64_t u = 0; u < nu; u++) g->kmers[u] = koff[u + 1] - koff[u];
    for (uint64_t u = 0; u <= nu; u++) koff[u] += u * (k - 1);
    sg_graph_set_edges(g, e, n_edges);
    free(e);
    return 0;
}
#undef TAKE
#undef P
#undef CUB

int sg_cuda_kmers_unitigs(sg_cuda_kmers_t *t, sg_graph_t *g)
{
    memset(g, 0, sizeof *g);
    if (t->broken) return SG_ERR_DEVICE;
    bufs_t b;
    memset(&b, 0, sizeof b);
    int r = compact(t, &b, g);
    for (int id = 0; id < N_BUF; id++) drop(t, &b, id);
    if (r < 0) {
        sg_graph_free(g);
        return broke(t, r);
    }
    return 0;
}

void sg_cuda_kmers_stats(const sg_cuda_kmers_t *t, FILE *fp)
{
    const stage_t *s = &t->sec;
    fprintf(fp, "\"device\": \"%s\", \"batch_bytes\": %zu, \"batches\": %llu, \"bases_bytes\": %llu, "
                "\"h2d_seconds\": %.6f, \"extract_sort_seconds\": %.6f, \"merge_seconds\": %.6f, "
                "\"histogram_seconds\": %.6f, \"filter_seconds\": %.6f, \"neighbours_seconds\": %.6f, "
                "\"unitigs_seconds\": %.6f, \"d2h_seconds\": %.6f, \"peak_device_bytes\": %zu",
            t->name, t->batch, (unsigned long long)t->batches, (unsigned long long)t->bytes_in, s->h2d,
            s->extract_sort, s->merge, s->histogram, s->filter, s->neighbours, s->unitigs, s->d2h, t->dev_peak);
}

/* Device bytes of the batch buffers for batches of n bytes: the bases, keys
 * three times (extracted, the sort's other half, the runs) and run counts. */
static uint64_t batch_bytes(uint64_t n, size_t kb) { return n * (1 + 3 * kb + 4); }

int sg_cuda_kmers_new(int k, int device, sg_cuda_kmers_t **out, char *err, size_t errsz)
{
    *out = NULL;
    int local;
    if (device < 0) device = 0;
    if (sg_cuda_check_device(device, &local, err, errsz) < 0) return SG_ERR_DEVICE;
    size_t batch = 0;
    const char *env = getenv("SEQGPU_CUDA_KMER_BATCH");
    if (env && (sg_parse_size(env, &batch) < 0 || batch < 2 * (size_t)k || batch >= ((size_t)1 << 31))) {
        snprintf(err, errsz, "invalid SEQGPU_CUDA_KMER_BATCH '%s' (bytes, at least 2k and below 2 GB)", env);
        return SG_ERR_DEVICE;
    }

    sg_cuda_kmers_t *t = sg_calloc(1, sizeof *t);
    t->k = k;
    t->wide = k > 31;
    t->kb = sg_ck_key_bytes(t->wide);
    t->device = device;
    t->local = local;
    pthread_mutex_init(&t->mu, NULL);
    pthread_mutex_init(&t->dev_mu, NULL);
    pthread_cond_init(&t->cv, NULL);
    int r = 0;
    cudaError_t e;
    struct cudaDeviceProp p;
    size_t free_b = 0, total_b = 0;
#define TRY(call, what)                                          \
    do {                                                         \
        if (r == 0 && (e = (call)) != cudaSuccess) r = fail(t, what, e); \
    } while (0)
    TRY(cudaSetDevice(local), "cudaSetDevice");
    TRY(cudaGetDeviceProperties(&p, local), "cudaGetDeviceProperties");
    if (r == 0 && (p.major < 7 || (p.major == 7 && p.minor < 5))) {
        snprintf(t->err, sizeof t->err, "CUDA device %d (%.60s) has compute capability %d.%d; seqgpu needs 7.5 or newer",
                 device, p.name, p.major, p.minor);
        r = SG_ERR_DEVICE;
    }
    if (r == 0) snprintf(t->name, sizeof t->name, "%.127s", p.name);
    TRY(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    if (r == 0) {
        /* batch buffers take at most an eighth of the free memory: the rest is the table's */
        t->batch = batch;
        if (!batch) {
            t->batch = BATCH_MAX;
            while (t->batch > BATCH_MIN && batch_bytes(t->batch, t->kb) * 2 > free_b / 8) t->batch /= 2;
        }
        if (batch_bytes(t->batch, t->kb) * 2 > free_b) {
            snprintf(t->err, sizeof t->err, "%zu MB of device memory free, too little for one batch of %zu MB", free_b >> 20,
                     (size_t)(batch_bytes(t->batch, t->kb) * 2) >> 20);
            r = SG_ERR_DEVICE;
        }
    }
    TRY(cudaStreamCreateWithFlags(&t->stream, cudaStreamNonBlocking), "cudaStreamCreate");
    for (int i = 0; i < 2; i++) TRY(cudaHostAlloc((void **)&t->buf[i].p, t->batch, cudaHostAllocPortable), "cudaHostAlloc (batches)");
    TRY(cudaHostAlloc((void **)&t->h_n, 4 * sizeof *t->h_n, cudaHostAllocPortable), "cudaHostAlloc (counters)");
#undef TRY
    if (r == 0) r = dev_alloc(t, (void **)&t->d_n, 4 * sizeof *t->d_n, "counters");
    if (r == 0) r = dev_alloc(t, (void **)&t->d_text, t->batch, "a batch of bases");
    if (r == 0) r = dev_alloc(t, &t->d_keys, t->batch * t->kb, "a batch of k-mers");
    if (r == 0) r = dev_alloc(t, &t->d_alt, t->batch * t->kb, "a batch of k-mers");
    if (r == 0) r = dev_alloc(t, &t->d_run_keys, t->batch * t->kb, "a batch of k-mers");
    if (r == 0) r = dev_alloc(t, (void **)&t->d_run_counts, t->batch * 4, "a batch of k-mers");
    if (r < 0) {
        snprintf(err, errsz, "CUDA device %d: %s", device, t->err);
        sg_cuda_kmers_free(t);
        return r;
    }
    *out = t;
    return 0;
}

void sg_cuda_kmers_free(sg_cuda_kmers_t *t)
{
    if (!t) return;
    cudaSetDevice(t->local);
    free_batch_buffers(t);
    dev_free(t, t->tab_k, t->cap_tab * t->kb);
    dev_free(t, t->tab_c, t->cap_tab * 4);
    dev_free(t, t->m_k, t->cap_m * t->kb);
    dev_free(t, t->m_c, t->cap_m * 4);
    dev_free(t, t->temp, t->temp_cap);
    dev_free(t, t->d_n, 4 * sizeof *t->d_n);
    cudaFreeHost(t->h_n);
    if (t->stream) cudaStreamDestroy(t->stream);
    pthread_mutex_destroy(&t->mu);
    pthread_mutex_destroy(&t->dev_mu);
    pthread_cond_destroy(&t->cv);
    free(t);
}
