// The SCC solver's searches on a CUDA device (cuda/scc/solver.cuh): a pivot
// per partition (largest in x out degree, then a random one), the
// forward-backward search from it by virtual warps and the split of its
// partition, and the coloring partition.
#include <stdint.h>
#include <string.h>

#include "cuda/scc/solver.cuh"

namespace sg_scc_cuda {

#define CK SG_CUDA_CHECK

// ---- pivots and the forward-backward search --------------------------------

__global__ void k_slots_clear(const Graph g, const State st)
{
    uint32_t left = 0;
    FOR_EACH(v, g.n)
    {
        if (st.comp[v] != NONE) continue;
        st.slot[st.part[v]] = 0;
        left++;
    }
    block_add(&st.counter[C_LEFT], left);
}

__device__ __forceinline__ uint32_t hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// key: high 32 bits rank the vertex, low 32 bits are ~v (unique, and the
// smaller id wins a tie)
__device__ __forceinline__ unsigned long long pivot_key(const Graph &g, const State &st, uint32_t v,
                                                        uint32_t round)
{
    uint32_t hi;
    if (round == 0) {
        unsigned long long prod = (g.off[v + 1] - g.off[v]) * (g.roff[v + 1] - g.roff[v]);
        uint32_t w = st.weight ? min(st.weight[v], 4095u) : 0;
        hi = (uint32_t)min(prod, (1ull << 20) - 1) << 12 | w;
    } else {
        hi = hash32(v ^ hash32(round));
    }
    return (unsigned long long)hi << 32 | (uint32_t)~v;
}

__global__ void k_pivot_keys(const Graph g, const State st, uint32_t round)
{
    FOR_EACH(v, g.n)
    {
        if (st.comp[v] != NONE) continue;
        const unsigned long long key = pivot_key(g, st, (uint32_t)v, round);
        unsigned long long *slot = &st.slot[st.part[v]];
        if (key > *slot) atomicMax(slot, key); // most threads see a larger key already: no atomic
    }
}

__global__ void k_pivot_mark(const Graph g, const State st, uint32_t round, int backward)
{
    FOR_EACH(v, g.n)
    {
        if (st.comp[v] != NONE || st.slot[st.part[v]] != pivot_key(g, st, (uint32_t)v, round)) continue;
        st.state[v] = kFw | (backward ? kBw : 0);
        push(st.queue[0], &st.counter[C_Q0], (uint32_t)v);
        if (backward) push(st.queue[1], &st.counter[C_Q1], (uint32_t)v);
    }
}

// The unvisited live neighbours of u (forward: successors) onto the next level.
__device__ __forceinline__ void visit(const Graph &g, const State &st, uint32_t u, bool fw,
                                      unsigned long long first, unsigned long long step)
{
    const unsigned long long *o = fw ? g.off : g.roff;
    const uint32_t *a = fw ? g.adj : g.radj;
    const uint32_t bit = fw ? kFw : kBw, p = st.part[u];
    for (unsigned long long j = o[u] + first; j < o[u + 1]; j += step) {
        uint32_t w = a[j];
        if (!live(st, w, p) || (st.state[w] & bit)) continue;
        if (atomicOr(&st.state[w], bit) & bit) continue;
        if (fw) push(st.queue[2], &st.counter[C_Q2], w);
        else push(st.queue[3], &st.counter[C_Q3], w);
    }
}

// Virtual warps: the block's threads form groups of kw lanes; group g takes
// queue entries [g kv, g kv + kv) of the forward list followed by the
// backward list, and its lanes share out each entry's edges. kw matches the
// degrees (4 or less in a de Bruijn graph, hundreds at a power-law hub).
__global__ void k_bfs_level(const Graph g, const State st, uint32_t nf, uint32_t nb, int kw, int kv)
{
    const uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    const int lane = (int)(t % kw);
    const uint64_t total = (uint64_t)nf + nb;
    for (uint64_t group = t / kw; group * kv < total; group += (uint64_t)gridDim.x * blockDim.x / kw)
    for (uint64_t e = group * kv; e < group * kv + kv && e < total; e++) {
        const bool fw = e < nf;
        const uint32_t u = fw ? st.queue[0][e] : st.queue[1][e - nf];
        if (degree(fw ? g.off : g.roff, u) > HEAVY) {
            if (lane == 0) push(st.heavy, &st.counter[C_HEAVY], fw ? u : u | BACKWARD);
            continue;
        }
        visit(g, st, u, fw, lane, kw);
    }
}

__global__ void k_bfs_heavy(const Graph g, const State st, uint32_t nh)
{
    const uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x, stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint32_t i = 0; i < nh; i++) {
        const uint32_t h = st.heavy[i];
        visit(g, st, h & ~BACKWARD, !(h & BACKWARD), t, stride);
    }
}

__global__ void k_split(const Graph g, const State st, int only_fw)
{
    FOR_EACH(v, g.n)
    {
        if (st.comp[v] != NONE) continue;
        const uint32_t s = st.state[v], p = st.part[v];
        if (!s) continue;
        st.state[v] = 0;
        const uint32_t pivot = only_fw ? p : ~(uint32_t)st.slot[p];
        if (only_fw || s == (kFw | kBw)) st.comp[v] = pivot;
        else st.part[v] = (s == kFw ? g.n : 2 * g.n) + pivot; // new labels: pivots are never reused
    }
}

// ---- coloring partition ------------------------------------------------------

__global__ void k_color_init(const Graph g, const State st)
{
    FOR_EACH(v, g.n) st.color[v] = (uint32_t)v;
}

// A color names the smallest vertex reachable inside the partition. v reaches
// color[v], which reaches color[color[v]], so taking that too is valid and
// halves the distance colors still have to travel along a path.
__device__ __forceinline__ void take_colors(const Graph &g, const State &st, uint32_t v,
                                            unsigned long long first, unsigned long long step)
{
    const uint32_t p = st.part[v], c0 = st.color[v];
    uint32_t c = c0;
    if (first == 0) c = min(c, st.color[c0]);
    for (unsigned long long j = g.off[v] + first; j < g.off[v + 1]; j += step) {
        uint32_t w = g.adj[j];
        if (live(st, w, p)) c = min(c, st.color[w]);
    }
    if (c < c0 && atomicMin(&st.color[v], c) > c) st.counter[C_CHANGED] = 1;
}

struct TakeColors {
    __device__ __forceinline__ void operator()(const Graph &g, const State &st, uint32_t v, unsigned long long first,
                                               unsigned long long step) const
    {
        take_colors(g, st, v, first, step);
    }
};

__global__ void k_color_roots(const Graph g, const State st)
{
    FOR_EACH(v, g.n)
    {
        if (st.comp[v] != NONE) continue;
        const uint32_t c = st.color[v];
        st.part[v] = c;
        if (c == v) {
            st.state[v] = kFw;
            push(st.queue[0], &st.counter[C_Q0], (uint32_t)v);
        }
    }
}

// ---- the host driver: the searches -------------------------------------------

// Level-synchronous search from queue[0] (forward, nf) and queue[1] (backward, nb),
// by virtual warps: kw threads per group, kv queued vertices per group.
int Solver::search(uint64_t nf, uint64_t nb)
{
    while (nf + nb) {
        SG_TRY(zero_counters(C_Q2, 2));
        SG_TRY(zero_counters(C_HEAVY, 1));
        uint64_t groups = (nf + nb + kv - 1) / kv;
        LAUNCH("search", k_bfs_level, groups * kw, g, st, (uint32_t)nf, (uint32_t)nb, kw, kv);
        SG_TRY(read_counters());
        if (h_counter[C_HEAVY]) {
            k_bfs_heavy<<<kHeavyBlocks, kThreads, 0, s>>>(g, st, (uint32_t)h_counter[C_HEAVY]);
            CK(cudaGetLastError(), "search");
            SG_TRY(read_counters());
        }
        nf = h_counter[C_Q2];
        nb = h_counter[C_Q3];
        uint32_t *t = st.queue[0];
        st.queue[0] = st.queue[2], st.queue[2] = t;
        t = st.queue[1];
        st.queue[1] = st.queue[3], st.queue[3] = t;
        stats.bfs_levels++;
    }
    return 0;
}

// One pivot per partition and a forward-backward search in all of them;
// *left: unresolved vertices before it (0: nothing was done).
int Solver::fwbw(uint32_t round, uint64_t *left)
{
    double t0 = sg_realtime();
    SG_TRY(zero_counters(C_LEFT, 1));
    LAUNCH("pivots", k_slots_clear, g.n, g, st);
    SG_TRY(read_counters());
    *left = h_counter[C_LEFT];
    if (!*left) return 0;
    LAUNCH("pivots", k_pivot_keys, g.n, g, st, round);
    SG_TRY(zero_counters(C_Q0, 2));
    LAUNCH("pivots", k_pivot_mark, g.n, g, st, round, 1);
    SG_TRY(read_counters());
    SG_TRY(search(h_counter[C_Q0], h_counter[C_Q1]));
    LAUNCH("split", k_split, g.n, g, st, 0);
    stats.rounds++;
    stats.fwbw += sg_realtime() - t0;
    return 0;
}

// The coloring partition: colors name the smallest vertex each vertex
// reaches in its partition; the color classes become the partitions, and
// each class's root finds its SCC by a forward search inside the class.
int Solver::coloring()
{
    double t0 = sg_realtime();
    LAUNCH("coloring", k_color_init, g.n, g, st);
    do {
        SG_TRY(zero_counters(C_CHANGED, 1));
        k_light_each<<<grid_for((uint64_t)g.n * kw), kThreads, 0, s>>>(g, st, kw, TakeColors{});
        if (st.n_heavy_out) k_heavy_each<<<kHeavyBlocks, kThreads, 0, s>>>(g, st, TakeColors{});
        CK(cudaGetLastError(), "coloring");
        SG_TRY(read_counters());
        stats.color_sweeps++;
    } while (h_counter[C_CHANGED]);
    SG_TRY(zero_counters(C_Q0, 2));
    LAUNCH("coloring", k_color_roots, g.n, g, st);
    SG_TRY(read_counters());
    SG_TRY(search(h_counter[C_Q0], 0));
    LAUNCH("split", k_split, g.n, g, st, 1);
    stats.colorings++;
    stats.color += sg_realtime() - t0;
    return 0;
}

#undef CK

} // namespace sg_scc_cuda
