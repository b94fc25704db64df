// The SCC solver of seqgpu scc on a CUDA device (cuda/scc/backend.h): the pipeline
// of patent CN111754383B, its host driver and its kernels.
//
//   upload the CSR; contract chains (pointer jumping); reverse CSR of the
//   contracted graph; trim 1-SCCs; pivot = largest in x out degree (ties:
//   k-mer count, then id); forward and backward search from it by virtual
//   warps; the intersection is an SCC and the three remainders partitions;
//   then rounds: every kt-th round the second trim (1-SCCs, 2-SCCs, 1-SCCs)
//   and the coloring partition (each color class's root searches forward
//   for its SCC), and in every round one random pivot per partition and a
//   forward-backward search in all partitions at once, then a trim; until
//   every vertex is in a component.
//
// The patent starts from a graph whose paths are short. A de Bruijn graph
// that was not compacted is mostly chains (one edge in, one out), and there
// a level-synchronous search or trim takes one launch per chain link; so the
// chains are contracted first, in O(log length) pointer-jumping rounds: a
// chain vertex belongs to the SCC of the chain's entry when the chain's
// exit is in that SCC too, and is alone otherwise; a chain with no entry is
// a cycle and one SCC. The pipeline then runs on the contracted graph.
//
// Vertices are 32-bit, edge offsets 64-bit. A vertex is unresolved while
// comp[v] == NONE; it then belongs to the partition part[v], and every
// traversal, degree and color stays inside it.
//
// Its stages are files of their own (cuda/scc/solver.cuh names them); this
// one sets the run up, runs the pipeline and is the sg_scc_solver_t.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/scc/solver.cuh"

extern "C" {
#include "core/cli.h"
}

namespace sg_scc_cuda {

#define CK SG_CUDA_CHECK

__global__ void k_expand(uint32_t n, const uint8_t *chain, const unsigned long long *rank,
                         const unsigned long long *fjump, const unsigned long long *bjump, const uint32_t *comp_r,
                         const uint32_t *orig, uint32_t *label)
{
    FOR_EACH(v, n)
    {
        if (!chain[v]) {
            label[v] = orig[comp_r[rank[v]]];
            continue;
        }
        uint32_t ex = (uint32_t)fjump[v], en = (uint32_t)bjump[v];
        if (chain[ex]) { // no exit: the chain is a cycle; its smallest vertex names it
            label[v] = (uint32_t)(fjump[v] >> 32);
            continue;
        }
        uint32_t a = comp_r[rank[en]], b = comp_r[rank[ex]];
        label[v] = a == b ? orig[a] : (uint32_t)v;
    }
}

__global__ void k_heavy_out(const Graph g, uint32_t *list, unsigned long long *n)
{
    FOR_EACH(v, g.n)
    if (degree(g.off, (uint32_t)v) > HEAVY) push(list, n, (uint32_t)v);
}

// ---- numbering ------------------------------------------------------------------

__global__ void k_first_init(uint32_t n, uint32_t *first)
{
    FOR_EACH(x, (uint64_t)n + 1) first[x] = n;
}

__global__ void k_first(uint32_t n, const uint32_t *label, uint32_t *first)
{
    FOR_EACH(v, n)
    {
        uint32_t *f = &first[label[v]];
        if (v < *f) atomicMin(f, (uint32_t)v);
    }
}

__global__ void k_first_flags(uint32_t n, const uint32_t *label, const uint32_t *first, unsigned long long *flag)
{
    FOR_EACH(v, (uint64_t)n + 1) flag[v] = v < n && first[label[v]] == v;
}

__global__ void k_number(uint32_t n, const uint32_t *label, const uint32_t *first, const unsigned long long *rank,
                         uint32_t *comp)
{
    FOR_EACH(v, n) comp[v] = (uint32_t)rank[first[label[v]]];
}

// ---- the host driver: set-up and the pipeline ----------------------------------

// Device bytes the pipeline needs for n vertices and m edges (an upper bound).
uint64_t estimate(uint64_t n, uint64_t m)
{
    // input CSR 8n + 4m; contraction: indeg, chain, pred, two jump words,
    // rank, labels (41n); contracted CSR both ways plus a cursor (32n + 8m,
    // at most m edges); state: comp, part, state, in, out, color, weight,
    // orig, four queues, the heavy lists (60n) and 3 pivot slots (24n); scan space
    return 8 * (n + 1) + 4 * m + 41 * n + 32 * (n + 1) + 8 * m + 84 * n + (16u << 20);
}

int Solver::pipeline()
{
    uint64_t left;
    SG_TRY(trim1());
    SG_TRY(fwbw(0, &left)); // the first kind of pivot: the largest degree product
    for (uint32_t i = 1; left; i++) {
        if (kt > 0 && i % kt == 0) {
            SG_TRY(trim2());
            SG_TRY(coloring());
        }
        SG_TRY(fwbw(i, &left)); // the third kind: a random pivot in each partition
        if (left) SG_TRY(trim1());
    }
    return 0;
}

int Solver::pick_device()
{
    sg_cuda_warm_join(&warm);
    struct cudaDeviceProp prop;
    SG_TRY(sg_cuda_open_device(id, &local, &prop, err, errsz));
    CK(cudaFree(NULL), "creating the CUDA context");
    snprintf(stats.device, sizeof stats.device, "%s", prop.name);
    return 0;
}

int Solver::check_memory(uint64_t n, uint64_t m)
{
    size_t free_b = 0;
    SG_TRY(said(mem.free_memory(&free_b)));
    snprintf(mem.of, sizeof mem.of, "a graph of %llu vertices and %llu edges", (unsigned long long)n,
             (unsigned long long)m);
    stats.device_bytes = estimate(n, m);
    if (stats.device_bytes > free_b) {
        snprintf(err, errsz,
                 "the graph (%llu vertices, %llu edges) needs about %.2f GB of device memory; %.2f GB are free",
                 (unsigned long long)n, (unsigned long long)m, stats.device_bytes / 1e9, free_b / 1e9);
        return SG_ERR_DEVICE;
    }
    return 0;
}

// The pipeline's state arrays, in one allocation.
int Solver::state_init()
{
    const size_t n = (size_t)g.n + 1;
    // comp part state in out color, 4 queues, the heavy lists (a level of the
    // search may meet a vertex both ways: 2n) and heavy_out; 3n 64-bit slots
    const size_t words = 13 * n + 2 * 3 * n;
    SG_TRY(dev_alloc(&b.state_block, 4 * words, "the vertex state"));
    uint32_t *p = (uint32_t *)b.state_block;
    st.slot = (unsigned long long *)p; // first: 8-byte aligned
    p += 2 * 3 * n;
    st.comp = p, p += n;
    st.part = p, p += n;
    st.state = p, p += n;
    st.in = p, p += n;
    st.out = p, p += n;
    st.color = p, p += n;
    for (int i = 0; i < 4; i++) st.queue[i] = p, p += n;
    st.heavy = p, p += 2 * n;
    uint32_t *heavy_out = p;
    st.heavy_out = heavy_out;
    st.weight = b.weight_r;
    SG_TRY(zero_counters(C_HEAVY, 1));
    LAUNCH("heavy vertices", k_heavy_out, g.n, g, heavy_out, st.counter + C_HEAVY);
    SG_TRY(read_counters());
    st.n_heavy_out = (uint32_t)h_counter[C_HEAVY];
    b.comp_r = st.comp;
    CK(cudaMemsetAsync(st.comp, 0xff, 4 * n, s), "cudaMemset");
    CK(cudaMemsetAsync(st.part, 0, 4 * n, s), "cudaMemset");
    CK(cudaMemsetAsync(st.state, 0, 4 * n, s), "cudaMemset");
    return 0;
}

int Solver::run(const sg_graph_t *gr, const uint32_t *weight, uint32_t *out)
{
    double t0 = sg_realtime();
    SG_TRY(pick_device());
    CK(cudaStreamCreate(&s), "cudaStreamCreate"); // blocking: it waits for plain cudaMemcpy calls
    stats.init = sg_realtime() - t0;
    SG_TRY(check_memory(gr->n_vert, gr->n_edges));
    SG_TRY(dev_alloc(&st.counter, sizeof h_counter, "counters"));
    SG_TRY(contract(gr, weight));
    SG_TRY(reverse());
    SG_TRY(state_init());
    SG_TRY(pipeline());

    t0 = sg_realtime();
    const uint32_t n = gr->n_vert;
    SG_TRY(dev_alloc(&b.label, 4 * ((size_t)n + 1), "labels"));
    LAUNCH("expanding chains", k_expand, n, n, b.chain, b.rank, b.fjump, b.bjump, b.comp_r, b.orig, b.label);
    // number the components by their first vertex (the chain arrays are free for it by now)
    uint32_t *first = b.pred, *comp = b.indeg;
    LAUNCH("numbering", k_first_init, (uint64_t)n + 1, n, first);
    LAUNCH("numbering", k_first, n, n, b.label, first);
    LAUNCH("numbering", k_first_flags, (uint64_t)n + 1, n, b.label, first, b.scratch);
    SG_TRY(scan(b.scratch, b.fjump, (size_t)n + 1));
    LAUNCH("numbering", k_number, n, n, b.label, first, b.fjump, comp);
    uint64_t n_comp;
    SG_TRY(read_u64(b.fjump + n, &n_comp));
    stats.components = (uint32_t)n_comp;
    stats.expand = sg_realtime() - t0;
    t0 = sg_realtime();
    CK(cudaMemcpy(out, comp, 4 * (size_t)n, cudaMemcpyDeviceToHost), "copying the components");
    stats.download = sg_realtime() - t0;
    return 0;
}

void Solver::free_run()
{
    mem.release();
    memset(&b, 0, sizeof b);
    memset(&st, 0, sizeof st);
    if (s) cudaStreamDestroy(s);
    s = NULL;
}

#undef CK

} // namespace sg_scc_cuda

namespace {

using namespace sg_scc_cuda;

int c_solve(sg_scc_solver_t *ss, const sg_graph_t *g, uint32_t *comp, uint32_t *n_comp)
{
    Solver *v = (Solver *)ss->priv;
    Stats *st = &v->stats;
    memset(st, 0, sizeof *st);
    ss->summary[0] = 0;
    cudaGetLastError(); // an earlier caller's error is not this run's
    if (g->n_vert >= (1u << 30)) {
        snprintf(ss->err, sizeof ss->err, "the cuda backend takes graphs of up to 2^30 vertices (this one has %u)",
                 g->n_vert);
        return SG_ERR_DEVICE;
    }
    uint32_t *weight = NULL;
    if (g->oriented && g->kmers) { // the first pivot's tie-break: the node's mean k-mer count
        weight = (uint32_t *)sg_malloc(((size_t)g->n_vert + 1) * sizeof *weight);
        for (uint32_t i = 0; i < g->n; i++) {
            double m = g->kmers[i] ? g->count_sum[i] / g->kmers[i] : 0;
            weight[2 * i] = weight[2 * i + 1] = m > 4e9 ? 4000000000u : (uint32_t)m;
        }
    }
    double t0 = sg_realtime();
    int r = v->run(g, weight, comp);
    v->free_run();
    free(weight);
    st->total = sg_realtime() - t0;
    if (r < 0) return r;
    *n_comp = st->components;
    snprintf(ss->summary, sizeof ss->summary,
             "cuda (%s) in %.3f s: %llu of %u vertices in chains, contracted graph %llu vertices, %u rounds, %u "
             "colorings, %u search levels",
             st->device, st->total, (unsigned long long)st->chain_vertices, g->n_vert,
             (unsigned long long)st->vertices, st->rounds, st->colorings, st->bfs_levels);
    return 0;
}

void c_stats(const sg_scc_solver_t *ss, FILE *fp)
{
    const Solver *v = (const Solver *)ss->priv;
    const Stats *st = &v->stats;
    fprintf(fp, "\"kw\": %d, \"kv\": %d, \"kt\": %d, ", v->kw, v->kv, v->kt);
    fprintf(fp, "\"device\": \"%s\", \"device_bytes_estimate\": %zu, \"degree_bytes\": %d, \"chain_vertices\": %llu, "
                "\"contracted_vertices\": %llu, \"contracted_edges\": %llu, \"jump_rounds\": %u, \"rounds\": %u, "
                "\"colorings\": %u, \"color_sweeps\": %u, \"bfs_levels\": %u, \"trim_steps\": %u, "
                "\"trimmed_2scc\": %llu, "
                "\"seconds\": {\"init\": %.4f, \"upload\": %.4f, \"contract\": %.4f, \"reverse\": %.4f, \"trim\": %.4f, "
                "\"fwbw\": %.4f, \"color\": %.4f, \"expand\": %.4f, \"download\": %.4f, \"total\": %.4f}",
            st->device, st->device_bytes, st->degree_bytes, (unsigned long long)st->chain_vertices,
            (unsigned long long)st->vertices, (unsigned long long)st->edges, st->jump_rounds, st->rounds,
            st->colorings, st->color_sweeps, st->bfs_levels, st->trim_steps, (unsigned long long)st->trimmed2,
            st->init, st->upload, st->contract, st->reverse, st->trim, st->fwbw, st->color, st->expand, st->download,
            st->total);
}

void c_free(sg_scc_solver_t *ss)
{
    Solver *v = (Solver *)ss->priv;
    sg_cuda_warm_join(&v->warm);
    free(v);
    free(ss);
}

} // namespace

extern "C" int sg_scc_solver_cuda(const sg_scc_opts_t *o, sg_scc_solver_t **out, char *err, size_t errsz)
{
    *out = NULL;
    const sg_devices_t *ds = sg_devices_or_default(o->devices);
    const int id = ds->id[0]; // the SCCs are found on the first device; the k-mer tables take them all
    // what can be known before CUDA starts: the devices are listed and reported
    if (sg_cuda_select(ds->id, ds->n, err, errsz) < 0 || sg_cuda_precheck(id, err, errsz) < 0) return SG_ERR_DEVICE;
    sg_scc_solver_t *ss = (sg_scc_solver_t *)sg_calloc(1, sizeof *ss);
    Solver *v = (Solver *)sg_calloc(1, sizeof *v);
    v->id = id;
    v->kw = o->kw;
    v->kv = o->kv;
    v->kt = o->kt;
    v->threads = o->n_threads;
    v->err = ss->err;
    v->errsz = sizeof ss->err;
    v->mem.holds = Solver::holds_of;
    // the CUDA context (~0.3 s) made on a thread of its own while the graph is read or built
    sg_cuda_warm_start(&v->warm, v->id);
    ss->name = "cuda";
    ss->solve = c_solve;
    ss->stats = c_stats;
    ss->free = c_free;
    ss->priv = v;
    *out = ss;
    return 0;
}
