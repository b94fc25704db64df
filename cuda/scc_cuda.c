/* The GPU SCC pipeline of patent CN111754383B (seed 003), driven from the
 * host:
 *
 *   upload the CSR; contract chains (pointer jumping); reverse CSR of the
 *   contracted graph; trim 1-SCCs; pivot = largest in x out degree (ties:
 *   k-mer count, then id); forward and backward search from it by virtual
 *   warps; the intersection is an SCC and the three remainders partitions;
 *   then rounds: every kt-th round the second trim (1-SCCs, 2-SCCs, 1-SCCs)
 *   and the coloring partition (each color class's root searches forward
 *   for its SCC), and in every round one random pivot per partition and a
 *   forward-backward search in all partitions at once, then a trim; until
 *   every vertex is in a component.
 *
 * The patent starts from a graph whose paths are short. A de Bruijn graph
 * that was not compacted is mostly chains (one edge in, one out), and there
 * a level-synchronous search or trim takes one launch per chain link; so the
 * chains are contracted first, in O(log length) pointer-jumping rounds: a
 * chain vertex belongs to the SCC of the chain's entry when the chain's
 * exit is in that SCC too, and is alone otherwise; a chain with no entry is
 * a cycle and one SCC. The pipeline then runs on the contracted graph. */
#define _GNU_SOURCE
#include "scc_cuda.h"
#include "cuda_util.h"
#include "scc_kernels.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "../src/cli.h"
#include "../src/log.h"

typedef struct {
    char *err;
    size_t errsz;
    cudaStream_t s;
    sg_dgraph_t g;  /* the contracted graph */
    sg_dstate_t st;
    unsigned long long h_counter[SG_DC_N];
    int kw, kv, threads;
    sg_scc_cuda_stats_t *stats;
} run_t;

#define CK(call, what)                                                                     \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            snprintf(r->err, r->errsz, "%s: %s", what, cudaGetErrorString(e_));            \
            return SG_ERR_DEVICE;                                                          \
        }                                                                                  \
    } while (0)

#define TRY(x)                      \
    do {                            \
        int rc_ = (x);              \
        if (rc_ < 0) return rc_;    \
    } while (0)

/* Device bytes the pipeline needs for n vertices and m edges (an upper bound). */
static uint64_t estimate(uint64_t n, uint64_t m)
{
    /* input CSR 8n + 4m; contraction: indeg, chain, pred, two jump words,
     * rank, labels (41n); contracted CSR both ways plus a cursor (32n + 8m,
     * at most m edges); state: comp, part, state, in, out, color, weight,
     * orig, four queues, the heavy lists (60n) and 3 pivot slots (24n); scan space */
    return 8 * (n + 1) + 4 * m + 41 * n + 32 * (n + 1) + 8 * m + 84 * n + (16u << 20);
}

static int dev_alloc(run_t *r, void *p, size_t bytes, const char *what)
{
    cudaError_t e = cudaMalloc((void **)p, bytes ? bytes : 8);
    if (e != cudaSuccess) {
        snprintf(r->err, r->errsz, "cannot allocate %.1f MB of device memory for %s: %s", bytes / 1048576.0, what,
                 cudaGetErrorString(e));
        *(void **)p = NULL;
        return SG_ERR_DEVICE;
    }
    return 0;
}

static int read_counters(run_t *r)
{
    CK(cudaMemcpyAsync(r->h_counter, r->st.counter, sizeof r->h_counter, cudaMemcpyDeviceToHost, r->s), "reading counters");
    CK(cudaStreamSynchronize(r->s), "kernel");
    return 0;
}

static int zero_counters(run_t *r, int first, int n)
{
    CK(cudaMemsetAsync(r->st.counter + first, 0, n * sizeof *r->st.counter, r->s), "cudaMemset");
    return 0;
}

/* Exclusive scan of n 64-bit values in place into out (CUB, its own scratch). */
static int scan(run_t *r, const unsigned long long *in, unsigned long long *out, size_t n)
{
    size_t bytes = 0;
    void *tmp = NULL;
    CK(sg_dscc_scan(NULL, &bytes, in, out, n, r->s), "scan");
    TRY(dev_alloc(r, &tmp, bytes, "a scan"));
    cudaError_t e = sg_dscc_scan(tmp, &bytes, in, out, n, r->s);
    cudaFree(tmp);
    CK(e, "scan");
    return 0;
}

static int read_u64(run_t *r, const unsigned long long *p, uint64_t *out)
{
    unsigned long long v = 0;
    CK(cudaMemcpyAsync(&v, p, sizeof v, cudaMemcpyDeviceToHost, r->s), "reading a size");
    CK(cudaStreamSynchronize(r->s), "kernel");
    *out = v;
    return 0;
}

/* ---- the pipeline's steps ---- */

/* Remove queue[0]'s h_counter[Q0] vertices and everything their removal exposes. */
static int trim_cascade(run_t *r, uint64_t n)
{
    int qi = 0;
    while (n) {
        int qo = 1 - qi;
        TRY(zero_counters(r, SG_DC_Q0 + qo, 1));
        TRY(zero_counters(r, SG_DC_HEAVY, 1));
        CK(sg_dscc_trim_step(&r->g, &r->st, qi, (uint32_t)n, qo, r->s), "trim");
        TRY(read_counters(r));
        if (r->h_counter[SG_DC_HEAVY]) {
            CK(sg_dscc_trim_heavy(&r->g, &r->st, (uint32_t)r->h_counter[SG_DC_HEAVY], qo, r->s), "trim");
            TRY(read_counters(r));
        }
        n = r->h_counter[SG_DC_Q0 + qo];
        qi = qo;
        r->stats->trim_steps++;
    }
    return 0;
}

/* The first kind of trim: 1-SCCs until there are none. */
static int trim1(run_t *r)
{
    double t0 = sg_realtime();
    CK(sg_dscc_degrees(&r->g, &r->st, r->kw, r->s), "degrees");
    TRY(zero_counters(r, SG_DC_Q0, 1));
    CK(sg_dscc_trim_seed(&r->g, &r->st, r->s), "trim");
    TRY(read_counters(r));
    TRY(trim_cascade(r, r->h_counter[SG_DC_Q0]));
    r->stats->trim += sg_realtime() - t0;
    return 0;
}

/* The second kind: 1-SCCs until none, then 2-SCCs, then 1-SCCs until none. */
static int trim2(run_t *r)
{
    TRY(trim1(r));
    double t0 = sg_realtime();
    TRY(zero_counters(r, SG_DC_Q0, 1));
    CK(sg_dscc_trim2(&r->g, &r->st, r->s), "2-SCC trim");
    TRY(read_counters(r));
    r->stats->trimmed2 += r->h_counter[SG_DC_Q0];
    TRY(trim_cascade(r, r->h_counter[SG_DC_Q0]));
    r->stats->trim += sg_realtime() - t0;
    return 0;
}

/* Level-synchronous search from queue[0] (forward, nf) and queue[1] (backward, nb). */
static int search(run_t *r, uint64_t nf, uint64_t nb)
{
    while (nf + nb) {
        TRY(zero_counters(r, SG_DC_Q2, 2));
        TRY(zero_counters(r, SG_DC_HEAVY, 1));
        CK(sg_dscc_bfs_level(&r->g, &r->st, (uint32_t)nf, (uint32_t)nb, r->kw, r->kv, r->s), "search");
        TRY(read_counters(r));
        if (r->h_counter[SG_DC_HEAVY]) {
            CK(sg_dscc_bfs_heavy(&r->g, &r->st, (uint32_t)r->h_counter[SG_DC_HEAVY], r->s), "search");
            TRY(read_counters(r));
        }
        nf = r->h_counter[SG_DC_Q2];
        nb = r->h_counter[SG_DC_Q3];
        uint32_t *t = r->st.queue[0];
        r->st.queue[0] = r->st.queue[2], r->st.queue[2] = t;
        t = r->st.queue[1];
        r->st.queue[1] = r->st.queue[3], r->st.queue[3] = t;
        r->stats->bfs_levels++;
    }
    return 0;
}

/* One pivot per partition and a forward-backward search in all of them;
 * *left: unresolved vertices before it (0: nothing was done). */
static int fwbw(run_t *r, uint32_t round, uint64_t *left)
{
    double t0 = sg_realtime();
    TRY(zero_counters(r, SG_DC_LEFT, 1));
    CK(sg_dscc_slots_clear(&r->g, &r->st, r->s), "pivots");
    TRY(read_counters(r));
    *left = r->h_counter[SG_DC_LEFT];
    if (!*left) return 0;
    CK(sg_dscc_pivot_keys(&r->g, &r->st, round, r->s), "pivots");
    TRY(zero_counters(r, SG_DC_Q0, 2));
    CK(sg_dscc_pivot_mark(&r->g, &r->st, round, 1, r->s), "pivots");
    TRY(read_counters(r));
    TRY(search(r, r->h_counter[SG_DC_Q0], r->h_counter[SG_DC_Q1]));
    CK(sg_dscc_split(&r->g, &r->st, 0, r->s), "split");
    r->stats->rounds++;
    r->stats->fwbw += sg_realtime() - t0;
    return 0;
}

/* The coloring partition: colors name the smallest vertex each vertex
 * reaches in its partition; the color classes become the partitions, and
 * each class's root finds its SCC by a forward search inside the class. */
static int coloring(run_t *r)
{
    double t0 = sg_realtime();
    CK(sg_dscc_color_init(&r->g, &r->st, r->s), "coloring");
    do {
        TRY(zero_counters(r, SG_DC_CHANGED, 1));
        CK(sg_dscc_color_step(&r->g, &r->st, r->kw, r->s), "coloring");
        TRY(read_counters(r));
        r->stats->color_sweeps++;
    } while (r->h_counter[SG_DC_CHANGED]);
    TRY(zero_counters(r, SG_DC_Q0, 2));
    CK(sg_dscc_color_roots(&r->g, &r->st, r->s), "coloring");
    TRY(read_counters(r));
    TRY(search(r, r->h_counter[SG_DC_Q0], 0));
    CK(sg_dscc_split(&r->g, &r->st, 1, r->s), "split");
    r->stats->colorings++;
    r->stats->color += sg_realtime() - t0;
    return 0;
}

static int pipeline(run_t *r, int kt)
{
    uint64_t left;
    TRY(trim1(r));
    TRY(fwbw(r, 0, &left)); /* the first kind of pivot: the largest degree product */
    for (uint32_t i = 1; left; i++) {
        if (kt > 0 && i % kt == 0) {
            TRY(trim2(r));
            TRY(coloring(r));
        }
        TRY(fwbw(r, i, &left)); /* the third kind: a random pivot in each partition */
        if (left) TRY(trim1(r));
    }
    return 0;
}

/* ---- set-up: device, contraction, reverse CSR ---- */

typedef struct {
    unsigned long long *off, *fjump, *bjump, *rank, *scratch;
    uint32_t *adj, *indeg, *pred, *label, *orig, *weight_r;
    uint8_t *chain;
    unsigned long long *off_r, *roff_r, *cursor;
    uint32_t *adj_r, *radj_r, *comp_r;
    void *state_block;
} bufs_t;

static void free_bufs(bufs_t *b, run_t *r)
{
    void *p[] = {b->off, b->fjump, b->bjump, b->rank, b->scratch, b->adj, b->indeg, b->pred, b->label, b->orig,
                 b->weight_r, b->chain, b->off_r, b->roff_r, b->cursor, b->adj_r, b->radj_r,
                 b->state_block, r->st.counter}; /* comp_r lies inside state_block */
    for (size_t i = 0; i < sizeof p / sizeof *p; i++)
        if (p[i]) cudaFree(p[i]);
}

/* The CUDA context takes ~0.3 s to create: sg_scc_cuda_warmup creates it on
 * a thread of its own while the graph is read or built. */
static pthread_t warm_thread;
static int warm_started, warm_id;

static void *warm_main(void *arg)
{
    (void)arg;
    char err[256];
    int local;
    if (sg_cuda_check_device(warm_id, &local, err, sizeof err) == 0 && cudaSetDevice(local) == cudaSuccess)
        cudaFree(NULL);
    cudaGetLastError(); /* a failure here is found again, and reported, by sg_scc_cuda */
    return NULL;
}

void sg_scc_cuda_warmup(const char *device)
{
    long id = 0;
    if (warm_started || (device && sg_parse_int(device, 0, 1023, &id) < 0)) return;
    warm_id = (int)id;
    warm_started = pthread_create(&warm_thread, NULL, warm_main, NULL) == 0;
}

void sg_scc_cuda_warmup_join(void)
{
    if (warm_started) pthread_join(warm_thread, NULL);
    warm_started = 0;
}

static int pick_device(const sg_scc_cuda_opts_t *o, run_t *r, sg_scc_cuda_stats_t *st)
{
    sg_scc_cuda_warmup_join();
    long id = 0;
    if (o->device && sg_parse_int(o->device, 0, 1023, &id) < 0) {
        snprintf(r->err, r->errsz, "invalid --device '%s' for scc (one device index)", o->device);
        return SG_ERR_INPUT;
    }
    int local;
    TRY(sg_cuda_check_device((int)id, &local, r->err, r->errsz));
    CK(cudaSetDevice(local), "cudaSetDevice");
    CK(cudaFree(NULL), "creating the CUDA context");
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, local), "cudaGetDeviceProperties");
    snprintf(st->device, sizeof st->device, "%s", prop.name);
    return 0;
}

static int check_memory(run_t *r, uint64_t n, uint64_t m, sg_scc_cuda_stats_t *st)
{
    size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    const char *lim = getenv("SEQGPU_CUDA_MEM_LIMIT");
    size_t limit;
    if (lim && sg_parse_size(lim, &limit) == 0 && limit < free_b) free_b = limit;
    st->device_bytes = estimate(n, m);
    if (st->device_bytes > free_b) {
        snprintf(r->err, r->errsz,
                 "the graph (%llu vertices, %llu edges) needs about %.2f GB of device memory; %.2f GB are free",
                 (unsigned long long)n, (unsigned long long)m, st->device_bytes / 1e9, free_b / 1e9);
        return SG_ERR_DEVICE;
    }
    return 0;
}

/* The out-degrees as bytes when they all fit (every vertex under 256 edges;
 * a de Bruijn graph has at most 4), else NULL. An offset takes 8 bytes a
 * vertex: for an uncompacted de Bruijn graph the bytes cut the copy to the
 * device from 12 to 5 bytes a vertex. Computed on several threads, since one
 * would spend what the smaller copy saves. */
typedef struct {
    const uint64_t *off;
    uint8_t *deg;
    uint64_t a, b;
    int fits;
} degree_job_t;

static void *degree_worker(void *arg)
{
    degree_job_t *j = arg;
    uint64_t big = 0;
    for (uint64_t v = j->a; v < j->b; v++) {
        uint64_t d = j->off[v + 1] - j->off[v];
        big |= d >> 8;
        j->deg[v] = (uint8_t)d;
    }
    j->fits = !big;
    return NULL;
}

static uint8_t *small_degrees(const sg_graph_t *g, int threads)
{
    const uint64_t n = g->n_vert;
    if (n == 0) return NULL;
    if (threads < 1) threads = 1;
    if (threads > 16) threads = 16;
    if (n < (1u << 20)) threads = 1;
    uint8_t *deg = sg_malloc(n);
    degree_job_t job[16];
    pthread_t tid[16];
    int started[16] = {0}, fits = 1;
    for (int i = 0; i < threads; i++) {
        job[i] = (degree_job_t){g->off, deg, n * i / threads, n * (i + 1) / threads, 0};
        if (i) started[i] = pthread_create(&tid[i], NULL, degree_worker, &job[i]) == 0;
    }
    degree_worker(&job[0]);
    for (int i = 1; i < threads; i++) {
        if (started[i]) pthread_join(tid[i], NULL);
        else degree_worker(&job[i]);
    }
    for (int i = 0; i < threads; i++) fits &= job[i].fits;
    if (!fits) {
        free(deg);
        return NULL;
    }
    return deg;
}

/* Upload g's CSR and contract its chains into r->g (forward part). */
static int contract(run_t *r, bufs_t *b, const sg_graph_t *g, const uint32_t *weight)
{
    const uint32_t n = g->n_vert;
    const uint64_t m = g->n_edges;
    sg_scc_cuda_stats_t *st = r->stats;
    double t0 = sg_realtime();
    TRY(dev_alloc(r, &b->off, 8 * ((size_t)n + 1), "the graph"));
    TRY(dev_alloc(r, &b->adj, 4 * m, "the graph"));
    TRY(dev_alloc(r, &b->scratch, 8 * ((size_t)n + 1), "the graph"));
    if (m) CK(cudaMemcpyAsync(b->adj, g->adj, 4 * m, cudaMemcpyHostToDevice, r->s), "copying the graph");
    uint8_t *deg = small_degrees(g, r->threads);
    if (deg) { /* a byte a vertex instead of an 8-byte offset; the scan rebuilds the offsets */
        uint8_t *d_deg = NULL;
        int rc = dev_alloc(r, &d_deg, (size_t)n + 1, "the graph");
        cudaError_t e = rc ? cudaSuccess : cudaMemcpyAsync(d_deg, deg, n, cudaMemcpyHostToDevice, r->s);
        if (!rc && e == cudaSuccess) e = sg_dscc_widen8(d_deg, n, b->scratch, r->s);
        if (!rc && e == cudaSuccess) e = cudaStreamSynchronize(r->s);
        if (d_deg) cudaFree(d_deg);
        free(deg);
        TRY(rc);
        CK(e, "copying the graph");
        TRY(scan(r, b->scratch, b->off, (size_t)n + 1));
        st->degree_bytes = 1;
    } else {
        CK(cudaMemcpyAsync(b->off, g->off, 8 * ((size_t)n + 1), cudaMemcpyHostToDevice, r->s), "copying the graph");
        st->degree_bytes = 8;
    }
    CK(cudaStreamSynchronize(r->s), "copying the graph");
    st->upload = sg_realtime() - t0;

    t0 = sg_realtime();
    TRY(dev_alloc(r, &b->indeg, 4 * ((size_t)n + 1), "degrees"));
    TRY(dev_alloc(r, &b->chain, (size_t)n + 1, "chains"));
    TRY(dev_alloc(r, &b->pred, 4 * ((size_t)n + 1), "chains"));
    TRY(dev_alloc(r, &b->fjump, 8 * ((size_t)n + 1), "chains"));
    TRY(dev_alloc(r, &b->bjump, 8 * ((size_t)n + 1), "chains"));
    TRY(dev_alloc(r, &b->rank, 8 * ((size_t)n + 1), "chains"));
    CK(cudaMemsetAsync(b->indeg, 0, 4 * ((size_t)n + 1), r->s), "cudaMemset");
    CK(sg_dscc_indegree(b->off, b->adj, n, b->indeg, r->s), "degrees");
    CK(sg_dscc_chain_marks(b->off, b->adj, n, b->indeg, b->chain, b->pred, r->s), "chains");
    /* rounds until every chain vertex points at its chain's end; cycles never
     * get there, and 2^rounds >= their length is enough for their minimum */
    uint32_t max_rounds = 2;
    while (max_rounds < 40 && (1ull << (max_rounds - 2)) < n) max_rounds++;
    for (int dir = 0; dir < 2; dir++) {
        unsigned long long *jump = dir ? b->bjump : b->fjump;
        CK(sg_dscc_jump_init(b->off, b->adj, b->pred, dir, n, b->chain, jump, r->s), "chains");
        for (uint32_t i = 0; i < max_rounds; i++) {
            TRY(zero_counters(r, SG_DC_CHANGED, 1));
            CK(sg_dscc_jump_round(n, b->chain, jump, r->st.counter + SG_DC_CHANGED, r->s), "chains");
            TRY(read_counters(r));
            st->jump_rounds++;
            if (!r->h_counter[SG_DC_CHANGED]) break;
        }
    }
    /* number the kept vertices; the contracted graph's CSR */
    CK(sg_dscc_keep(n, b->chain, b->scratch, r->s), "chains");
    TRY(scan(r, b->scratch, b->rank, (size_t)n + 1));
    uint64_t nr, mr;
    TRY(read_u64(r, b->rank + n, &nr));
    st->vertices = nr;
    st->chain_vertices = n - nr;
    TRY(dev_alloc(r, &b->off_r, 8 * (nr + 1), "the contracted graph"));
    TRY(dev_alloc(r, &b->orig, 4 * (nr + 1), "the contracted graph"));
    CK(cudaMemsetAsync(b->scratch, 0, 8 * (nr + 1), r->s), "cudaMemset");
    CK(sg_dscc_reduced_degrees(b->off, n, b->chain, b->rank, b->scratch, b->orig, r->s), "contracting");
    TRY(scan(r, b->scratch, b->off_r, nr + 1));
    TRY(read_u64(r, b->off_r + nr, &mr));
    st->edges = mr;
    TRY(dev_alloc(r, &b->adj_r, 4 * mr, "the contracted graph"));
    CK(sg_dscc_reduced_edges(b->off, b->adj, n, b->chain, b->rank, b->fjump, b->off_r, b->adj_r, r->s), "contracting");
    if (weight) { /* the tie-break weights of the kept vertices, gathered on the host */
        uint32_t *orig = sg_malloc(4 * (nr + 1)), *w = sg_malloc(4 * (nr + 1));
        int rc = 0;
        cudaError_t e = cudaStreamSynchronize(r->s);
        if (e == cudaSuccess) e = cudaMemcpy(orig, b->orig, 4 * nr, cudaMemcpyDeviceToHost);
        for (uint64_t i = 0; e == cudaSuccess && i < nr; i++) w[i] = weight[orig[i]];
        if (e == cudaSuccess && (rc = dev_alloc(r, &b->weight_r, 4 * (nr + 1), "weights")) == 0)
            e = cudaMemcpy(b->weight_r, w, 4 * nr, cudaMemcpyHostToDevice);
        free(orig);
        free(w);
        TRY(rc);
        CK(e, "copying weights");
    }
    CK(cudaStreamSynchronize(r->s), "contracting");
    st->contract = sg_realtime() - t0;
    return 0;
}

/* The reverse CSR of the contracted graph. */
static int reverse(run_t *r, bufs_t *b)
{
    double t0 = sg_realtime();
    const uint32_t nr = (uint32_t)r->stats->vertices;
    const uint64_t mr = r->stats->edges;
    TRY(dev_alloc(r, &b->roff_r, 8 * ((size_t)nr + 1), "the reverse graph"));
    TRY(dev_alloc(r, &b->cursor, 8 * ((size_t)nr + 1), "the reverse graph"));
    TRY(dev_alloc(r, &b->radj_r, 4 * mr, "the reverse graph"));
    CK(cudaMemsetAsync(b->indeg, 0, 4 * ((size_t)nr + 1), r->s), "cudaMemset");
    CK(sg_dscc_indegree(b->off_r, b->adj_r, nr, b->indeg, r->s), "reverse graph");
    CK(sg_dscc_widen(b->indeg, nr, b->cursor, r->s), "reverse graph");
    TRY(scan(r, b->cursor, b->roff_r, (size_t)nr + 1));
    CK(cudaMemcpyAsync(b->cursor, b->roff_r, 8 * ((size_t)nr + 1), cudaMemcpyDeviceToDevice, r->s), "reverse graph");
    CK(sg_dscc_reverse(b->off_r, b->adj_r, nr, b->cursor, b->radj_r, r->s), "reverse graph");
    CK(cudaStreamSynchronize(r->s), "reverse graph");
    r->g = (sg_dgraph_t){.n = nr, .off = b->off_r, .roff = b->roff_r, .adj = b->adj_r, .radj = b->radj_r};
    r->stats->reverse = sg_realtime() - t0;
    return 0;
}

/* The pipeline's state arrays, in one allocation. */
static int state_init(run_t *r, bufs_t *b)
{
    const size_t n = (size_t)r->g.n + 1;
    /* comp part state in out color, 4 queues, the heavy lists (a level of the
     * search may meet a vertex both ways: 2n) and heavy_out; 3n 64-bit slots */
    const size_t words = 13 * n + 2 * 3 * n;
    TRY(dev_alloc(r, &b->state_block, 4 * words, "the vertex state"));
    uint32_t *p = b->state_block;
    sg_dstate_t *st = &r->st;
    st->slot = (unsigned long long *)p; /* first: 8-byte aligned */
    p += 2 * 3 * n;
    st->comp = p, p += n;
    st->part = p, p += n;
    st->state = p, p += n;
    st->in = p, p += n;
    st->out = p, p += n;
    st->color = p, p += n;
    for (int i = 0; i < 4; i++) st->queue[i] = p, p += n;
    st->heavy = p, p += 2 * n;
    uint32_t *heavy_out = p;
    st->heavy_out = heavy_out;
    st->weight = b->weight_r;
    TRY(zero_counters(r, SG_DC_HEAVY, 1));
    CK(sg_dscc_heavy_out(&r->g, heavy_out, r->st.counter + SG_DC_HEAVY, r->s), "heavy vertices");
    TRY(read_counters(r));
    st->n_heavy_out = (uint32_t)r->h_counter[SG_DC_HEAVY];
    b->comp_r = st->comp;
    CK(cudaMemsetAsync(st->comp, 0xff, 4 * n, r->s), "cudaMemset");
    CK(cudaMemsetAsync(st->part, 0, 4 * n, r->s), "cudaMemset");
    CK(cudaMemsetAsync(st->state, 0, 4 * n, r->s), "cudaMemset");
    return 0;
}

static int run_all(run_t *r, bufs_t *b, const sg_graph_t *g, const uint32_t *weight, const sg_scc_cuda_opts_t *o,
                   uint32_t *out)
{
    sg_scc_cuda_stats_t *st = r->stats;
    double t0 = sg_realtime();
    TRY(pick_device(o, r, st));
    CK(cudaStreamCreate(&r->s), "cudaStreamCreate"); /* blocking: it waits for plain cudaMemcpy calls */
    st->init = sg_realtime() - t0;
    TRY(check_memory(r, g->n_vert, g->n_edges, st));
    TRY(dev_alloc(r, &r->st.counter, sizeof r->h_counter, "counters"));
    TRY(contract(r, b, g, weight));
    TRY(reverse(r, b));
    TRY(state_init(r, b));
    TRY(pipeline(r, o->kt));

    t0 = sg_realtime();
    const uint32_t n = g->n_vert;
    TRY(dev_alloc(r, &b->label, 4 * ((size_t)n + 1), "labels"));
    CK(sg_dscc_expand(n, b->chain, b->rank, b->fjump, b->bjump, b->comp_r, b->orig, b->label, r->s), "expanding chains");
    /* number the components by their first vertex (the chain arrays are free for it by now) */
    uint32_t *first = b->pred, *comp = b->indeg;
    CK(sg_dscc_first_init(n, first, r->s), "numbering");
    CK(sg_dscc_first(n, b->label, first, r->s), "numbering");
    CK(sg_dscc_first_flags(n, b->label, first, b->scratch, r->s), "numbering");
    TRY(scan(r, b->scratch, b->fjump, (size_t)n + 1));
    CK(sg_dscc_number(n, b->label, first, b->fjump, comp, r->s), "numbering");
    uint64_t n_comp;
    TRY(read_u64(r, b->fjump + n, &n_comp));
    st->components = (uint32_t)n_comp;
    st->expand = sg_realtime() - t0;
    t0 = sg_realtime();
    CK(cudaMemcpy(out, comp, 4 * (size_t)n, cudaMemcpyDeviceToHost), "copying the components");
    st->download = sg_realtime() - t0;
    return 0;
}

int sg_scc_cuda(const sg_graph_t *g, const uint32_t *weight, const sg_scc_cuda_opts_t *o, uint32_t *comp,
                sg_scc_cuda_stats_t *st, char *err, size_t errsz)
{
    memset(st, 0, sizeof *st);
    run_t r = {.err = err, .errsz = errsz, .kw = o->kw, .kv = o->kv, .threads = o->threads, .stats = st};
    bufs_t b = {0};
    cudaGetLastError(); /* an earlier caller's error is not this run's */
    if (g->n_vert >= (1u << 30)) {
        snprintf(err, errsz, "the cuda backend takes graphs of up to 2^30 vertices (this one has %u)", g->n_vert);
        return SG_ERR_DEVICE;
    }
    double t0 = sg_realtime();
    int rc = run_all(&r, &b, g, weight, o, comp);
    free_bufs(&b, &r);
    if (r.s) cudaStreamDestroy(r.s);
    st->total = sg_realtime() - t0;
    return rc;
}

void sg_scc_cuda_stats_json(const sg_scc_cuda_stats_t *st, FILE *fp)
{
    fprintf(fp, "\"device\": \"%s\", \"device_bytes_estimate\": %zu, \"degree_bytes\": %d, \"chain_vertices\": %llu, "
                "\"contracted_vertices\": %llu, \"contracted_edges\": %llu, \"jump_rounds\": %u, \"rounds\": %u, "
                "\"colorings\": %u, \"color_sweeps\": %u, \"bfs_levels\": %u, \"trim_steps\": %u, "
                "\"trimmed_2scc\": %llu, "
                "\"seconds\": {\"init\": %.4f, \"upload\": %.4f, \"contract\": %.4f, \"reverse\": %.4f, \"trim\": %.4f, "
                "\"fwbw\": %.4f, \"color\": %.4f, \"expand\": %.4f, \"download\": %.4f, \"total\": %.4f}",
            st->device, st->device_bytes, st->degree_bytes, (unsigned long long)st->chain_vertices, (unsigned long long)st->vertices,
            (unsigned long long)st->edges, st->jump_rounds, st->rounds, st->colorings, st->color_sweeps,
            st->bfs_levels, st->trim_steps, (unsigned long long)st->trimmed2,
            st->init, st->upload, st->contract, st->reverse, st->trim, st->fwbw, st->color, st->expand, st->download,
            st->total);
}
