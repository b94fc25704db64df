// The SCC solver's trims on a CUDA device (cuda/scc/solver.cuh): live degrees
// inside each partition, the 1-SCC trim as a cascade of work lists, and the
// second trim (1-SCCs, then 2-SCCs, then 1-SCCs again).
#include <stdint.h>
#include <string.h>

#include "cuda/scc/solver.cuh"

namespace sg_scc_cuda {

#define CK SG_CUDA_CHECK

// ---- trim ------------------------------------------------------------------

// The live edges leaving v, counted into out[v] and, at their targets, in[w].
__device__ __forceinline__ void count_edges(const Graph &g, const State &st, uint32_t v,
                                            unsigned long long first, unsigned long long step)
{
    const uint32_t p = st.part[v];
    uint32_t o = 0;
    for (unsigned long long j = g.off[v] + first; j < g.off[v + 1]; j += step) {
        uint32_t w = g.adj[j];
        if (w == v || !live(st, w, p)) continue;
        o++;
        atomicAdd(&st.in[w], 1u);
    }
    if (o) atomicAdd(&st.out[v], o);
}

struct CountEdges {
    __device__ __forceinline__ void operator()(const Graph &g, const State &st, uint32_t v, unsigned long long first,
                                               unsigned long long step) const
    {
        count_edges(g, st, v, first, step);
    }
};

__global__ void k_trim_seed(const Graph g, const State st)
{
    FOR_EACH(v, g.n)
    {
        if (st.comp[v] != NONE || (st.in[v] && st.out[v])) continue;
        if (atomicCAS(&st.comp[v], NONE, (uint32_t)v) == NONE) push(st.queue[0], &st.counter[C_Q0], (uint32_t)v);
    }
}

// Removing v lowers the live degrees of its neighbours; one that drops to 0
// is a 1-SCC too. The thread goes on with the first such neighbour itself
// (a path is peeled in one launch) and queues the others.
// v's removal: its successors lose an in-edge, its predecessors an out-edge;
// one left with none is claimed, and returned (the first) or queued.
__device__ __forceinline__ uint32_t remove_edges(const Graph &g, const State &st, uint32_t v, int qo,
                                                 unsigned long long first, unsigned long long step, bool keep_one)
{
    const uint32_t p = st.part[v];
    uint32_t next = NONE;
    for (int dir = 0; dir < 2; dir++) {
        const unsigned long long *o = dir ? g.roff : g.off;
        const uint32_t *a = dir ? g.radj : g.adj;
        uint32_t *deg = dir ? st.out : st.in;
        for (unsigned long long j = o[v] + first; j < o[v + 1]; j += step) {
            uint32_t w = a[j];
            if (w == v || !live(st, w, p)) continue;
            if (atomicSub(&deg[w], 1u) != 1) continue;
            if (atomicCAS(&st.comp[w], NONE, w) != NONE) continue;
            if (keep_one && next == NONE) next = w;
            else push(st.queue[qo], &st.counter[C_Q0 + qo], w);
        }
    }
    return next;
}

// A thread goes on with the first vertex its removal exposes, so a path is
// peeled in one launch; a heavy vertex is left to k_trim_heavy.
__global__ void k_trim_step(const Graph g, const State st, int qi, uint32_t nq, int qo)
{
    FOR_EACH(i, nq)
    {
        uint32_t v = st.queue[qi][i];
        while (v != NONE) {
            if (degree(g.off, v) > HEAVY || degree(g.roff, v) > HEAVY) {
                push(st.heavy, &st.counter[C_HEAVY], v);
                break;
            }
            v = remove_edges(g, st, v, qo, 0, 1, true);
        }
    }
}

__global__ void k_trim_heavy(const Graph g, const State st, uint32_t nh, int qo)
{
    const uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x, stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint32_t i = 0; i < nh; i++) remove_edges(g, st, st.heavy[i], qo, t, stride, false);
}

__device__ __forceinline__ bool has_edge(const unsigned long long *off, const uint32_t *adj, uint32_t a, uint32_t b)
{
    for (unsigned long long j = off[a]; j < off[a + 1]; j++)
        if (adj[j] == b) return true;
    return false;
}

// The patent's 2-SCC test: v and w linked both ways, and apart from that
// link nothing enters the pair, or nothing leaves it (live degrees after a
// full trim). Such a pair cannot meet another, so no claim is contested.
__global__ void k_trim2(const Graph g, const State st)
{
    FOR_EACH(v, g.n)
    {
        if (st.comp[v] != NONE || (st.in[v] != 1 && st.out[v] != 1)) continue;
        const uint32_t p = st.part[v];
        for (unsigned long long j = g.off[v]; j < g.off[v + 1]; j++) {
            uint32_t w = g.adj[j];
            if (w <= v || !live(st, w, p)) continue;
            bool closed_in = st.in[v] == 1 && st.in[w] == 1, closed_out = st.out[v] == 1 && st.out[w] == 1;
            if (!(closed_in || closed_out) || !has_edge(g.off, g.adj, w, (uint32_t)v)) continue;
            st.comp[v] = st.comp[w] = (uint32_t)v;
            push(st.queue[0], &st.counter[C_Q0], (uint32_t)v);
            push(st.queue[0], &st.counter[C_Q0], w);
            break;
        }
    }
}

// ---- the host driver: the trims ----------------------------------------------

// Live in/out degrees of every unresolved vertex inside its partition.
int Solver::degrees()
{
    CK(cudaMemsetAsync(st.in, 0, 4 * ((size_t)g.n + 1), s), "degrees");
    CK(cudaMemsetAsync(st.out, 0, 4 * ((size_t)g.n + 1), s), "degrees");
    k_light_each<<<grid_for((uint64_t)g.n * kw), kThreads, 0, s>>>(g, st, kw, CountEdges{});
    if (st.n_heavy_out) k_heavy_each<<<kHeavyBlocks, kThreads, 0, s>>>(g, st, CountEdges{});
    CK(cudaGetLastError(), "degrees");
    return 0;
}

// Remove queue[0]'s h_counter[C_Q0] vertices and everything their removal exposes.
int Solver::trim_cascade(uint64_t n)
{
    int qi = 0;
    while (n) {
        int qo = 1 - qi;
        SG_TRY(zero_counters(C_Q0 + qo, 1));
        SG_TRY(zero_counters(C_HEAVY, 1));
        LAUNCH("trim", k_trim_step, (uint32_t)n, g, st, qi, (uint32_t)n, qo);
        SG_TRY(read_counters());
        if (h_counter[C_HEAVY]) {
            k_trim_heavy<<<kHeavyBlocks, kThreads, 0, s>>>(g, st, (uint32_t)h_counter[C_HEAVY], qo);
            CK(cudaGetLastError(), "trim");
            SG_TRY(read_counters());
        }
        n = h_counter[C_Q0 + qo];
        qi = qo;
        stats.trim_steps++;
    }
    return 0;
}

// The first kind of trim: 1-SCCs until there are none.
int Solver::trim1()
{
    double t0 = sg_realtime();
    SG_TRY(degrees());
    SG_TRY(zero_counters(C_Q0, 1));
    LAUNCH("trim", k_trim_seed, g.n, g, st);
    SG_TRY(read_counters());
    SG_TRY(trim_cascade(h_counter[C_Q0]));
    stats.trim += sg_realtime() - t0;
    return 0;
}

// The second kind: 1-SCCs until none, then 2-SCCs, then 1-SCCs until none.
int Solver::trim2()
{
    SG_TRY(trim1());
    double t0 = sg_realtime();
    SG_TRY(zero_counters(C_Q0, 1));
    LAUNCH("2-SCC trim", k_trim2, g.n, g, st);
    SG_TRY(read_counters());
    stats.trimmed2 += h_counter[C_Q0];
    SG_TRY(trim_cascade(h_counter[C_Q0]));
    stats.trim += sg_realtime() - t0;
    return 0;
}

#undef CK

} // namespace sg_scc_cuda
