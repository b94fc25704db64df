// The SCC solver's first stage on a CUDA device (cuda/scc/solver.cuh): the
// graph uploaded (its degrees as bytes when they fit), its chains contracted
// by pointer jumping, and the reverse CSR of the contracted graph.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/scc/solver.cuh"

extern "C" {
#include "core/cli.h"
#include "core/pipeline.h"
}

namespace sg_scc_cuda {

#define CK SG_CUDA_CHECK

// ---- chain contraction ---------------------------------------------------
// A vertex with exactly one in-edge and one out-edge lies in the SCC of its
// chain's entry if the chain's exit is in that SCC too, and alone otherwise;
// chains with no entry are whole cycles. Pointer jumping finds every chain
// vertex's exit (and entry) in O(log length) rounds, so an uncompacted de
// Bruijn graph with chains of millions of vertices costs no more launches
// than a compacted one.

__global__ void k_indegree(const unsigned long long *off, const uint32_t *adj, uint32_t n, uint32_t *indeg)
{
    FOR_EACH(v, n)
    for (unsigned long long j = off[v]; j < off[v + 1]; j++) atomicAdd(&indeg[adj[j]], 1u);
}

__global__ void k_chain_marks(const unsigned long long *off, uint32_t n, const uint32_t *indeg, uint8_t *chain)
{
    FOR_EACH(v, n)
    {
        chain[v] = indeg[v] == 1 && off[v + 1] - off[v] == 1;
    }
}

// the one in-edge of each chain vertex (run after k_chain_marks)
__global__ void k_chain_preds(const unsigned long long *off, const uint32_t *adj, uint32_t n, const uint8_t *chain,
                              uint32_t *pred)
{
    FOR_EACH(v, n)
    for (unsigned long long j = off[v]; j < off[v + 1]; j++)
        if (chain[adj[j]]) pred[adj[j]] = (uint32_t)v;
}

// jump[v] = min vertex of [v, next) << 32 | next: one 64-bit word, so a
// concurrent reader sees a consistent pair
__global__ void k_jump_init(const unsigned long long *off, const uint32_t *adj, const uint32_t *pred, int backward,
                            uint32_t n, const uint8_t *chain, unsigned long long *jump)
{
    FOR_EACH(v, n)
    {
        if (!chain[v]) continue;
        uint32_t next = backward ? pred[v] : adj[off[v]];
        jump[v] = (unsigned long long)v << 32 | next;
    }
}

__global__ void k_jump_round(uint32_t n, const uint8_t *chain, unsigned long long *jump, unsigned long long *flag)
{
    bool open = false;
    FOR_EACH(v, n)
    {
        if (!chain[v]) continue;
        unsigned long long w = jump[v];
        uint32_t y = (uint32_t)w;
        if (!chain[y]) continue; // at the exit already
        unsigned long long wy = jump[y];
        uint32_t m = min((uint32_t)(w >> 32), (uint32_t)(wy >> 32));
        jump[v] = (unsigned long long)m << 32 | (uint32_t)wy;
        open |= chain[(uint32_t)wy] != 0;
    }
    if (open) *flag = 1; // a plain store: any thread's 1 will do
}

__global__ void k_keep(uint32_t n, const uint8_t *chain, unsigned long long *keep)
{
    FOR_EACH(v, n + 1) keep[v] = v < n && !chain[v];
}

__global__ void k_reduced_degrees(const unsigned long long *off, uint32_t n, const uint8_t *chain,
                                  const unsigned long long *rank, unsigned long long *deg, uint32_t *orig)
{
    FOR_EACH(v, n)
    {
        if (chain[v]) continue;
        uint64_t r = rank[v];
        deg[r] = off[v + 1] - off[v];
        orig[r] = (uint32_t)v;
    }
}

// the exit of an edge's target: itself, or the end of the chain it enters
__device__ __forceinline__ uint32_t exit_of(uint32_t w, const uint8_t *chain, const unsigned long long *fjump)
{
    return chain[w] ? (uint32_t)fjump[w] : w;
}

__global__ void k_reduced_edges(const unsigned long long *off, const uint32_t *adj, uint32_t n, const uint8_t *chain,
                                const unsigned long long *rank, const unsigned long long *fjump,
                                const unsigned long long *off_r, uint32_t *adj_r)
{
    FOR_EACH(v, n)
    {
        if (chain[v]) continue;
        unsigned long long o = off_r[rank[v]];
        for (unsigned long long j = off[v]; j < off[v + 1]; j++) adj_r[o++] = (uint32_t)rank[exit_of(adj[j], chain, fjump)];
    }
}

// ---- reverse CSR -----------------------------------------------------------

__global__ void k_reverse(const unsigned long long *off, const uint32_t *adj, uint32_t n, unsigned long long *cursor,
                          uint32_t *radj)
{
    FOR_EACH(v, n)
    for (unsigned long long j = off[v]; j < off[v + 1]; j++) radj[atomicAdd(&cursor[adj[j]], 1ull)] = (uint32_t)v;
}

template <typename T> __global__ void k_widen(const T *deg, uint32_t n, unsigned long long *deg64)
{
    FOR_EACH(v, (uint64_t)n + 1) deg64[v] = v < n ? deg[v] : 0;
}

// ---- the host driver: upload, contraction, reverse CSR ----------------------

// The out-degrees as bytes when they all fit (every vertex under 256 edges;
// a de Bruijn graph has at most 4), else NULL. An offset takes 8 bytes a
// vertex: for an uncompacted de Bruijn graph the bytes cut the copy to the
// device from 12 to 5 bytes a vertex. Computed on several threads, since one
// would spend what the smaller copy saves.
struct Degrees {
    const uint64_t *off;
    uint8_t *deg;
    uint64_t n, big; // big: the bits above a byte of any degree
};

constexpr uint64_t kDegreeBlock = 1 << 16; // vertices an item of the loop

void degree_block(void *arg, void *state, uint64_t i)
{
    const Degrees *d = (const Degrees *)arg;
    const uint64_t *off = d->off;
    uint8_t *deg = d->deg;
    const uint64_t a = i * kDegreeBlock, e = a + kDegreeBlock < d->n ? a + kDegreeBlock : d->n;
    uint64_t big = 0;
    for (uint64_t v = a; v < e; v++) {
        uint64_t x = off[v + 1] - off[v];
        big |= x >> 8;
        deg[v] = (uint8_t)x;
    }
    *(uint64_t *)state |= big;
}

void degrees_done(void *arg, void *state) { ((Degrees *)arg)->big |= *(uint64_t *)state; }

uint8_t *small_degrees(const sg_graph_t *g, int threads)
{
    const uint64_t n = g->n_vert;
    if (n == 0) return NULL;
    if (threads < 1) threads = 1;
    if (threads > 16) threads = 16;
    if (n < (1u << 20)) threads = 1;
    Degrees d = {g->off, (uint8_t *)sg_malloc(n), n, 0};
    sg_parallel_for(threads, (n + kDegreeBlock - 1) / kDegreeBlock, 1, degree_block, &d, sizeof(uint64_t),
                    degrees_done);
    if (d.big) {
        free(d.deg);
        return NULL;
    }
    return d.deg;
}

// Upload gr's CSR and contract its chains into g (forward part).
int Solver::contract(const sg_graph_t *gr, const uint32_t *weight)
{
    const uint32_t n = gr->n_vert;
    const uint64_t m = gr->n_edges;
    double t0 = sg_realtime();
    SG_TRY(dev_alloc(&b.off, 8 * ((size_t)n + 1), "the graph"));
    SG_TRY(dev_alloc(&b.adj, 4 * m, "the graph"));
    SG_TRY(dev_alloc(&b.scratch, 8 * ((size_t)n + 1), "the graph"));
    if (m) CK(cudaMemcpyAsync(b.adj, gr->adj, 4 * m, cudaMemcpyHostToDevice, s), "copying the graph");
    uint8_t *deg = small_degrees(gr, threads);
    if (deg) { // a byte a vertex instead of an 8-byte offset; the scan rebuilds the offsets
        int r = upload_degrees(deg, n);
        free(deg);
        SG_TRY(r);
        SG_TRY(scan(b.scratch, b.off, (size_t)n + 1));
        stats.degree_bytes = 1;
    } else {
        CK(cudaMemcpyAsync(b.off, gr->off, 8 * ((size_t)n + 1), cudaMemcpyHostToDevice, s), "copying the graph");
        stats.degree_bytes = 8;
    }
    CK(cudaStreamSynchronize(s), "copying the graph");
    stats.upload = sg_realtime() - t0;

    t0 = sg_realtime();
    SG_TRY(dev_alloc(&b.indeg, 4 * ((size_t)n + 1), "degrees"));
    SG_TRY(dev_alloc(&b.chain, (size_t)n + 1, "chains"));
    SG_TRY(dev_alloc(&b.pred, 4 * ((size_t)n + 1), "chains"));
    SG_TRY(dev_alloc(&b.fjump, 8 * ((size_t)n + 1), "chains"));
    SG_TRY(dev_alloc(&b.bjump, 8 * ((size_t)n + 1), "chains"));
    SG_TRY(dev_alloc(&b.rank, 8 * ((size_t)n + 1), "chains"));
    CK(cudaMemsetAsync(b.indeg, 0, 4 * ((size_t)n + 1), s), "cudaMemset");
    LAUNCH("degrees", k_indegree, n, b.off, b.adj, n, b.indeg);
    k_chain_marks<<<grid_for(n), kThreads, 0, s>>>(b.off, n, b.indeg, b.chain);
    LAUNCH("chains", k_chain_preds, n, b.off, b.adj, n, b.chain, b.pred);
    // rounds until every chain vertex points at its chain's end; cycles never
    // get there, and 2^rounds >= their length is enough for their minimum
    uint32_t max_rounds = 2;
    while (max_rounds < 40 && (1ull << (max_rounds - 2)) < n) max_rounds++;
    for (int dir = 0; dir < 2; dir++) {
        unsigned long long *jump = dir ? b.bjump : b.fjump;
        LAUNCH("chains", k_jump_init, n, b.off, b.adj, b.pred, dir, n, b.chain, jump);
        for (uint32_t i = 0; i < max_rounds; i++) {
            SG_TRY(zero_counters(C_CHANGED, 1));
            LAUNCH("chains", k_jump_round, n, n, b.chain, jump, st.counter + C_CHANGED);
            SG_TRY(read_counters());
            stats.jump_rounds++;
            if (!h_counter[C_CHANGED]) break;
        }
    }
    // number the kept vertices; the contracted graph's CSR
    LAUNCH("chains", k_keep, (uint64_t)n + 1, n, b.chain, b.scratch);
    SG_TRY(scan(b.scratch, b.rank, (size_t)n + 1));
    uint64_t nr, mr;
    SG_TRY(read_u64(b.rank + n, &nr));
    stats.vertices = nr;
    stats.chain_vertices = n - nr;
    SG_TRY(dev_alloc(&b.off_r, 8 * (nr + 1), "the contracted graph"));
    SG_TRY(dev_alloc(&b.orig, 4 * (nr + 1), "the contracted graph"));
    CK(cudaMemsetAsync(b.scratch, 0, 8 * (nr + 1), s), "cudaMemset");
    LAUNCH("contracting", k_reduced_degrees, n, b.off, n, b.chain, b.rank, b.scratch, b.orig);
    SG_TRY(scan(b.scratch, b.off_r, nr + 1));
    SG_TRY(read_u64(b.off_r + nr, &mr));
    stats.edges = mr;
    SG_TRY(dev_alloc(&b.adj_r, 4 * mr, "the contracted graph"));
    LAUNCH("contracting", k_reduced_edges, n, b.off, b.adj, n, b.chain, b.rank, b.fjump, b.off_r, b.adj_r);
    if (weight) SG_TRY(upload_weights(weight, nr));
    CK(cudaStreamSynchronize(s), "contracting");
    stats.contract = sg_realtime() - t0;
    return 0;
}

// The degrees as bytes, widened on the device into scratch for the scan.
int Solver::upload_degrees(const uint8_t *deg, uint32_t n)
{
    uint8_t *d_deg = NULL;
    SG_TRY(dev_alloc(&d_deg, (size_t)n + 1, "the graph"));
    cudaError_t e = cudaMemcpyAsync(d_deg, deg, n, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) {
        k_widen<uint8_t><<<grid_for((uint64_t)n + 1), kThreads, 0, s>>>(d_deg, n, b.scratch);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    mem.dev_free(d_deg);
    CK(e, "copying the graph");
    return 0;
}

// The tie-break weights of the kept vertices, gathered on the host.
int Solver::upload_weights(const uint32_t *weight, uint64_t nr)
{
    uint32_t *orig = (uint32_t *)sg_malloc(4 * (nr + 1)), *w = (uint32_t *)sg_malloc(4 * (nr + 1));
    int r = 0;
    cudaError_t e = cudaStreamSynchronize(s);
    if (e == cudaSuccess) e = cudaMemcpy(orig, b.orig, 4 * nr, cudaMemcpyDeviceToHost);
    for (uint64_t i = 0; e == cudaSuccess && i < nr; i++) w[i] = weight[orig[i]];
    if (e == cudaSuccess && (r = dev_alloc(&b.weight_r, 4 * (nr + 1), "weights")) == 0)
        e = cudaMemcpy(b.weight_r, w, 4 * nr, cudaMemcpyHostToDevice);
    free(orig);
    free(w);
    SG_TRY(r);
    CK(e, "copying weights");
    return 0;
}

// The reverse CSR of the contracted graph.
int Solver::reverse()
{
    double t0 = sg_realtime();
    const uint32_t nr = (uint32_t)stats.vertices;
    const uint64_t mr = stats.edges;
    SG_TRY(dev_alloc(&b.roff_r, 8 * ((size_t)nr + 1), "the reverse graph"));
    SG_TRY(dev_alloc(&b.cursor, 8 * ((size_t)nr + 1), "the reverse graph"));
    SG_TRY(dev_alloc(&b.radj_r, 4 * mr, "the reverse graph"));
    CK(cudaMemsetAsync(b.indeg, 0, 4 * ((size_t)nr + 1), s), "cudaMemset");
    LAUNCH("reverse graph", k_indegree, nr, b.off_r, b.adj_r, nr, b.indeg);
    LAUNCH("reverse graph", k_widen<uint32_t>, (uint64_t)nr + 1, b.indeg, nr, b.cursor);
    SG_TRY(scan(b.cursor, b.roff_r, (size_t)nr + 1));
    CK(cudaMemcpyAsync(b.cursor, b.roff_r, 8 * ((size_t)nr + 1), cudaMemcpyDeviceToDevice, s), "reverse graph");
    LAUNCH("reverse graph", k_reverse, nr, b.off_r, b.adj_r, nr, b.cursor, b.radj_r);
    CK(cudaStreamSynchronize(s), "reverse graph");
    g.n = nr;
    g.off = b.off_r;
    g.roff = b.roff_r;
    g.adj = b.adj_r;
    g.radj = b.radj_r;
    stats.reverse = sg_realtime() - t0;
    return 0;
}

#undef CK

} // namespace sg_scc_cuda
