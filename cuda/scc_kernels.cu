// Kernels of the GPU SCC pipeline (seqgpu scc -b cuda); scc_cuda.c drives
// them. Vertices are 32-bit, edge offsets 64-bit. A vertex is unresolved
// while comp[v] == NONE; it then belongs to the partition part[v], and every
// traversal, degree and color stays inside it.
#include "scc_kernels.h"

#include <cooperative_groups.h>
#include <cub/device/device_scan.cuh>

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = 256;
constexpr unsigned kHeavyBlocks = 1024; // the grid that sweeps the heavy lists
constexpr uint32_t NONE = SG_DSCC_NONE;
constexpr uint32_t HEAVY = SG_DSCC_HEAVY;
constexpr uint32_t BACKWARD = 1u << 31;

inline unsigned grid_for(uint64_t n)
{
    uint64_t b = (n + kThreads - 1) / kThreads;
    return (unsigned)(b < 1 ? 1 : b > 65535ull * 64 ? 65535ull * 64 : b);
}

#define FOR_EACH(i, n) for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < (n); i += (uint64_t)gridDim.x * blockDim.x)

// Append v to a list: one atomic per group of converged threads, not per thread.
__device__ __forceinline__ void push(uint32_t *q, unsigned long long *n, uint32_t v)
{
    cg::coalesced_group g = cg::coalesced_threads();
    unsigned long long base = 0;
    if (g.thread_rank() == 0) base = atomicAdd(n, (unsigned long long)g.size());
    base = g.shfl(base, 0);
    q[base + g.thread_rank()] = v;
}

// counter += the block's sum of v (all threads of the block must call it)
__device__ __forceinline__ void block_add(unsigned long long *counter, unsigned long long v)
{
    __shared__ unsigned long long sum;
    if (threadIdx.x == 0) sum = 0;
    __syncthreads();
    if (v) atomicAdd(&sum, v);
    __syncthreads();
    if (threadIdx.x == 0 && sum) atomicAdd(counter, sum);
}

__device__ __forceinline__ uint64_t degree(const unsigned long long *o, uint32_t v) { return o[v + 1] - o[v]; }

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

// ---- trim ------------------------------------------------------------------

__device__ __forceinline__ bool live(const sg_dstate_t &st, uint32_t w, uint32_t p)
{
    return st.comp[w] == NONE && st.part[w] == p;
}

// The live edges leaving v, counted into out[v] and, at their targets, in[w].
__device__ __forceinline__ void count_edges(const sg_dgraph_t &g, const sg_dstate_t &st, uint32_t v,
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

// kw lanes per vertex; the heavy ones are left to k_degrees_heavy
__global__ void k_degrees(const sg_dgraph_t g, const sg_dstate_t st, int kw)
{
    const uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    const int lane = (int)(t % kw);
    for (uint64_t v = t / kw; v < g.n; v += (uint64_t)gridDim.x * blockDim.x / kw)
        if (st.comp[v] == NONE && degree(g.off, (uint32_t)v) <= HEAVY) count_edges(g, st, (uint32_t)v, lane, kw);
}

__global__ void k_degrees_heavy(const sg_dgraph_t g, const sg_dstate_t st)
{
    const uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x, stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint32_t i = 0; i < st.n_heavy_out; i++)
        if (st.comp[st.heavy_out[i]] == NONE) count_edges(g, st, st.heavy_out[i], t, stride);
}

__global__ void k_heavy_out(const sg_dgraph_t g, uint32_t *list, unsigned long long *n)
{
    FOR_EACH(v, g.n)
    if (degree(g.off, (uint32_t)v) > HEAVY) push(list, n, (uint32_t)v);
}



__global__ void k_trim_seed(const sg_dgraph_t g, const sg_dstate_t st)
{
    FOR_EACH(v, g.n)
    {
        if (st.comp[v] != NONE || (st.in[v] && st.out[v])) continue;
        if (atomicCAS(&st.comp[v], NONE, (uint32_t)v) == NONE) push(st.queue[0], &st.counter[SG_DC_Q0], (uint32_t)v);
    }
}

// Removing v lowers the live degrees of its neighbours; one that drops to 0
// is a 1-SCC too. The thread goes on with the first such neighbour itself
// (a path is peeled in one launch) and queues the others.
// v's removal: its successors lose an in-edge, its predecessors an out-edge;
// one left with none is claimed, and returned (the first) or queued.
__device__ __forceinline__ uint32_t remove_edges(const sg_dgraph_t &g, const sg_dstate_t &st, uint32_t v, int qo,
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
            else push(st.queue[qo], &st.counter[SG_DC_Q0 + qo], w);
        }
    }
    return next;
}

// A thread goes on with the first vertex its removal exposes, so a path is
// peeled in one launch; a heavy vertex is left to k_trim_heavy.
__global__ void k_trim_step(const sg_dgraph_t g, const sg_dstate_t st, int qi, uint32_t nq, int qo)
{
    FOR_EACH(i, nq)
    {
        uint32_t v = st.queue[qi][i];
        while (v != NONE) {
            if (degree(g.off, v) > HEAVY || degree(g.roff, v) > HEAVY) {
                push(st.heavy, &st.counter[SG_DC_HEAVY], v);
                break;
            }
            v = remove_edges(g, st, v, qo, 0, 1, true);
        }
    }
}

__global__ void k_trim_heavy(const sg_dgraph_t g, const sg_dstate_t st, uint32_t nh, int qo)
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
__global__ void k_trim2(const sg_dgraph_t g, const sg_dstate_t st)
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
            push(st.queue[0], &st.counter[SG_DC_Q0], (uint32_t)v);
            push(st.queue[0], &st.counter[SG_DC_Q0], w);
            break;
        }
    }
}

// ---- pivots and the forward-backward search --------------------------------

__global__ void k_slots_clear(const sg_dgraph_t g, const sg_dstate_t st)
{
    uint32_t left = 0;
    FOR_EACH(v, g.n)
    {
        if (st.comp[v] != NONE) continue;
        st.slot[st.part[v]] = 0;
        left++;
    }
    block_add(&st.counter[SG_DC_LEFT], left);
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
__device__ __forceinline__ unsigned long long pivot_key(const sg_dgraph_t &g, const sg_dstate_t &st, uint32_t v,
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

__global__ void k_pivot_keys(const sg_dgraph_t g, const sg_dstate_t st, uint32_t round)
{
    FOR_EACH(v, g.n)
    {
        if (st.comp[v] != NONE) continue;
        const unsigned long long key = pivot_key(g, st, (uint32_t)v, round);
        unsigned long long *slot = &st.slot[st.part[v]];
        if (key > *slot) atomicMax(slot, key); // most threads see a larger key already: no atomic
    }
}

__global__ void k_pivot_mark(const sg_dgraph_t g, const sg_dstate_t st, uint32_t round, int backward)
{
    FOR_EACH(v, g.n)
    {
        if (st.comp[v] != NONE || st.slot[st.part[v]] != pivot_key(g, st, (uint32_t)v, round)) continue;
        st.state[v] = SG_DSCC_FW | (backward ? SG_DSCC_BW : 0);
        push(st.queue[0], &st.counter[SG_DC_Q0], (uint32_t)v);
        if (backward) push(st.queue[1], &st.counter[SG_DC_Q1], (uint32_t)v);
    }
}

// The unvisited live neighbours of u (forward: successors) onto the next level.
__device__ __forceinline__ void visit(const sg_dgraph_t &g, const sg_dstate_t &st, uint32_t u, bool fw,
                                      unsigned long long first, unsigned long long step)
{
    const unsigned long long *o = fw ? g.off : g.roff;
    const uint32_t *a = fw ? g.adj : g.radj;
    const uint32_t bit = fw ? SG_DSCC_FW : SG_DSCC_BW, p = st.part[u];
    for (unsigned long long j = o[u] + first; j < o[u + 1]; j += step) {
        uint32_t w = a[j];
        if (!live(st, w, p) || (st.state[w] & bit)) continue;
        if (atomicOr(&st.state[w], bit) & bit) continue;
        if (fw) push(st.queue[2], &st.counter[SG_DC_Q2], w);
        else push(st.queue[3], &st.counter[SG_DC_Q3], w);
    }
}

// Virtual warps: the block's threads form groups of kw lanes; group g takes
// queue entries [g kv, g kv + kv) of the forward list followed by the
// backward list, and its lanes share out each entry's edges. kw matches the
// degrees (4 or less in a de Bruijn graph, hundreds at a power-law hub).
__global__ void k_bfs_level(const sg_dgraph_t g, const sg_dstate_t st, uint32_t nf, uint32_t nb, int kw, int kv)
{
    const uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    const int lane = (int)(t % kw);
    const uint64_t total = (uint64_t)nf + nb;
    for (uint64_t group = t / kw; group * kv < total; group += (uint64_t)gridDim.x * blockDim.x / kw)
    for (uint64_t e = group * kv; e < group * kv + kv && e < total; e++) {
        const bool fw = e < nf;
        const uint32_t u = fw ? st.queue[0][e] : st.queue[1][e - nf];
        if (degree(fw ? g.off : g.roff, u) > HEAVY) {
            if (lane == 0) push(st.heavy, &st.counter[SG_DC_HEAVY], fw ? u : u | BACKWARD);
            continue;
        }
        visit(g, st, u, fw, lane, kw);
    }
}

__global__ void k_bfs_heavy(const sg_dgraph_t g, const sg_dstate_t st, uint32_t nh)
{
    const uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x, stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint32_t i = 0; i < nh; i++) {
        const uint32_t h = st.heavy[i];
        visit(g, st, h & ~BACKWARD, !(h & BACKWARD), t, stride);
    }
}

__global__ void k_split(const sg_dgraph_t g, const sg_dstate_t st, int only_fw)
{
    FOR_EACH(v, g.n)
    {
        if (st.comp[v] != NONE) continue;
        const uint32_t s = st.state[v], p = st.part[v];
        if (!s) continue;
        st.state[v] = 0;
        const uint32_t pivot = only_fw ? p : ~(uint32_t)st.slot[p];
        if (only_fw || s == (SG_DSCC_FW | SG_DSCC_BW)) st.comp[v] = pivot;
        else st.part[v] = (s == SG_DSCC_FW ? g.n : 2 * g.n) + pivot; // new labels: pivots are never reused
    }
}

// ---- coloring partition ------------------------------------------------------

__global__ void k_color_init(const sg_dgraph_t g, const sg_dstate_t st)
{
    FOR_EACH(v, g.n) st.color[v] = (uint32_t)v;
}

__device__ __forceinline__ void take_colors(const sg_dgraph_t &g, const sg_dstate_t &st, uint32_t v,
                                            unsigned long long first, unsigned long long step)
{
    const uint32_t p = st.part[v], c0 = st.color[v];
    uint32_t c = c0;
    if (first == 0) c = min(c, st.color[c0]);
    for (unsigned long long j = g.off[v] + first; j < g.off[v + 1]; j += step) {
        uint32_t w = g.adj[j];
        if (live(st, w, p)) c = min(c, st.color[w]);
    }
    if (c < c0 && atomicMin(&st.color[v], c) > c) st.counter[SG_DC_CHANGED] = 1;
}

// A color names the smallest vertex reachable inside the partition. v reaches
// color[v], which reaches color[color[v]], so taking that too is valid and
// halves the distance colors still have to travel along a path.
__global__ void k_color_step(const sg_dgraph_t g, const sg_dstate_t st, int kw)
{
    const uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    const int lane = (int)(t % kw);
    for (uint64_t v = t / kw; v < g.n; v += (uint64_t)gridDim.x * blockDim.x / kw)
        if (st.comp[v] == NONE && degree(g.off, (uint32_t)v) <= HEAVY) take_colors(g, st, (uint32_t)v, lane, kw);
}

__global__ void k_color_heavy(const sg_dgraph_t g, const sg_dstate_t st)
{
    const uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x, stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint32_t i = 0; i < st.n_heavy_out; i++)
        if (st.comp[st.heavy_out[i]] == NONE) take_colors(g, st, st.heavy_out[i], t, stride);
}

__global__ void k_color_roots(const sg_dgraph_t g, const sg_dstate_t st)
{
    FOR_EACH(v, g.n)
    {
        if (st.comp[v] != NONE) continue;
        const uint32_t c = st.color[v];
        st.part[v] = c;
        if (c == v) {
            st.state[v] = SG_DSCC_FW;
            push(st.queue[0], &st.counter[SG_DC_Q0], (uint32_t)v);
        }
    }
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

} // namespace

extern "C" {

#define LAUNCH(kernel, n, s, ...)                                  \
    do {                                                           \
        kernel<<<grid_for(n), kThreads, 0, s>>>(__VA_ARGS__);      \
        return cudaGetLastError();                                 \
    } while (0)

cudaError_t sg_dscc_indegree(const unsigned long long *off, const uint32_t *adj, uint32_t n, uint32_t *indeg, cudaStream_t s)
{
    LAUNCH(k_indegree, n, s, off, adj, n, indeg);
}

cudaError_t sg_dscc_chain_marks(const unsigned long long *off, const uint32_t *adj, uint32_t n, const uint32_t *indeg,
                                uint8_t *chain, uint32_t *pred, cudaStream_t s)
{
    k_chain_marks<<<grid_for(n), kThreads, 0, s>>>(off, n, indeg, chain);
    LAUNCH(k_chain_preds, n, s, off, adj, n, chain, pred);
}

cudaError_t sg_dscc_jump_init(const unsigned long long *off, const uint32_t *adj, const uint32_t *pred, int backward,
                              uint32_t n, const uint8_t *chain, unsigned long long *jump, cudaStream_t s)
{
    LAUNCH(k_jump_init, n, s, off, adj, pred, backward, n, chain, jump);
}

cudaError_t sg_dscc_jump_round(uint32_t n, const uint8_t *chain, unsigned long long *jump, unsigned long long *counter,
                               cudaStream_t s)
{
    LAUNCH(k_jump_round, n, s, n, chain, jump, counter);
}

cudaError_t sg_dscc_keep(uint32_t n, const uint8_t *chain, unsigned long long *keep, cudaStream_t s)
{
    LAUNCH(k_keep, (uint64_t)n + 1, s, n, chain, keep);
}

cudaError_t sg_dscc_reduced_degrees(const unsigned long long *off, uint32_t n, const uint8_t *chain,
                                    const unsigned long long *rank, unsigned long long *deg, uint32_t *orig,
                                    cudaStream_t s)
{
    LAUNCH(k_reduced_degrees, n, s, off, n, chain, rank, deg, orig);
}

cudaError_t sg_dscc_reduced_edges(const unsigned long long *off, const uint32_t *adj, uint32_t n, const uint8_t *chain,
                                  const unsigned long long *rank, const unsigned long long *fjump,
                                  const unsigned long long *off_r, uint32_t *adj_r, cudaStream_t s)
{
    LAUNCH(k_reduced_edges, n, s, off, adj, n, chain, rank, fjump, off_r, adj_r);
}

cudaError_t sg_dscc_expand(uint32_t n, const uint8_t *chain, const unsigned long long *rank,
                           const unsigned long long *fjump, const unsigned long long *bjump, const uint32_t *comp_r,
                           const uint32_t *orig, uint32_t *label, cudaStream_t s)
{
    LAUNCH(k_expand, n, s, n, chain, rank, fjump, bjump, comp_r, orig, label);
}

cudaError_t sg_dscc_reverse(const unsigned long long *off, const uint32_t *adj, uint32_t n, unsigned long long *cursor,
                            uint32_t *radj, cudaStream_t s)
{
    LAUNCH(k_reverse, n, s, off, adj, n, cursor, radj);
}

cudaError_t sg_dscc_widen(const uint32_t *deg, uint32_t n, unsigned long long *deg64, cudaStream_t s)
{
    LAUNCH(k_widen<uint32_t>, (uint64_t)n + 1, s, deg, n, deg64);
}

cudaError_t sg_dscc_widen8(const uint8_t *deg, uint32_t n, unsigned long long *deg64, cudaStream_t s)
{
    LAUNCH(k_widen<uint8_t>, (uint64_t)n + 1, s, deg, n, deg64);
}

cudaError_t sg_dscc_scan(void *tmp, size_t *tmp_bytes, const unsigned long long *in, unsigned long long *out, size_t n,
                         cudaStream_t s)
{
    return cub::DeviceScan::ExclusiveSum(tmp, *tmp_bytes, in, out, (int64_t)n, s);
}

cudaError_t sg_dscc_heavy_out(const sg_dgraph_t *g, uint32_t *list, unsigned long long *n, cudaStream_t s)
{
    LAUNCH(k_heavy_out, g->n, s, *g, list, n);
}

cudaError_t sg_dscc_degrees(const sg_dgraph_t *g, const sg_dstate_t *st, int kw, cudaStream_t s)
{
    cudaError_t e = cudaMemsetAsync(st->in, 0, 4 * ((size_t)g->n + 1), s);
    if (e == cudaSuccess) e = cudaMemsetAsync(st->out, 0, 4 * ((size_t)g->n + 1), s);
    if (e != cudaSuccess) return e;
    k_degrees<<<grid_for((uint64_t)g->n * kw), kThreads, 0, s>>>(*g, *st, kw);
    if (st->n_heavy_out) k_degrees_heavy<<<kHeavyBlocks, kThreads, 0, s>>>(*g, *st);
    return cudaGetLastError();
}

cudaError_t sg_dscc_trim_seed(const sg_dgraph_t *g, const sg_dstate_t *st, cudaStream_t s)
{
    LAUNCH(k_trim_seed, g->n, s, *g, *st);
}

cudaError_t sg_dscc_trim_step(const sg_dgraph_t *g, const sg_dstate_t *st, int qi, uint32_t nq, int qo, cudaStream_t s)
{
    LAUNCH(k_trim_step, nq, s, *g, *st, qi, nq, qo);
}

cudaError_t sg_dscc_trim_heavy(const sg_dgraph_t *g, const sg_dstate_t *st, uint32_t nh, int qo, cudaStream_t s)
{
    k_trim_heavy<<<kHeavyBlocks, kThreads, 0, s>>>(*g, *st, nh, qo);
    return cudaGetLastError();
}

cudaError_t sg_dscc_trim2(const sg_dgraph_t *g, const sg_dstate_t *st, cudaStream_t s)
{
    LAUNCH(k_trim2, g->n, s, *g, *st);
}

cudaError_t sg_dscc_slots_clear(const sg_dgraph_t *g, const sg_dstate_t *st, cudaStream_t s)
{
    LAUNCH(k_slots_clear, g->n, s, *g, *st);
}

cudaError_t sg_dscc_pivot_keys(const sg_dgraph_t *g, const sg_dstate_t *st, uint32_t round, cudaStream_t s)
{
    LAUNCH(k_pivot_keys, g->n, s, *g, *st, round);
}

cudaError_t sg_dscc_pivot_mark(const sg_dgraph_t *g, const sg_dstate_t *st, uint32_t round, int backward,
                               cudaStream_t s)
{
    LAUNCH(k_pivot_mark, g->n, s, *g, *st, round, backward);
}

cudaError_t sg_dscc_bfs_level(const sg_dgraph_t *g, const sg_dstate_t *st, uint32_t nf, uint32_t nb, int kw, int kv,
                              cudaStream_t s)
{
    uint64_t groups = ((uint64_t)nf + nb + kv - 1) / kv;
    LAUNCH(k_bfs_level, groups * kw, s, *g, *st, nf, nb, kw, kv);
}

cudaError_t sg_dscc_bfs_heavy(const sg_dgraph_t *g, const sg_dstate_t *st, uint32_t nh, cudaStream_t s)
{
    k_bfs_heavy<<<kHeavyBlocks, kThreads, 0, s>>>(*g, *st, nh);
    return cudaGetLastError();
}

cudaError_t sg_dscc_split(const sg_dgraph_t *g, const sg_dstate_t *st, int only_fw, cudaStream_t s)
{
    LAUNCH(k_split, g->n, s, *g, *st, only_fw);
}

cudaError_t sg_dscc_color_init(const sg_dgraph_t *g, const sg_dstate_t *st, cudaStream_t s)
{
    LAUNCH(k_color_init, g->n, s, *g, *st);
}

cudaError_t sg_dscc_color_step(const sg_dgraph_t *g, const sg_dstate_t *st, int kw, cudaStream_t s)
{
    k_color_step<<<grid_for((uint64_t)g->n * kw), kThreads, 0, s>>>(*g, *st, kw);
    if (st->n_heavy_out) k_color_heavy<<<kHeavyBlocks, kThreads, 0, s>>>(*g, *st);
    return cudaGetLastError();
}

cudaError_t sg_dscc_color_roots(const sg_dgraph_t *g, const sg_dstate_t *st, cudaStream_t s)
{
    LAUNCH(k_color_roots, g->n, s, *g, *st);
}

cudaError_t sg_dscc_first_init(uint32_t n, uint32_t *first, cudaStream_t s)
{
    LAUNCH(k_first_init, (uint64_t)n + 1, s, n, first);
}

cudaError_t sg_dscc_first(uint32_t n, const uint32_t *label, uint32_t *first, cudaStream_t s)
{
    LAUNCH(k_first, n, s, n, label, first);
}

cudaError_t sg_dscc_first_flags(uint32_t n, const uint32_t *label, const uint32_t *first, unsigned long long *flag,
                                cudaStream_t s)
{
    LAUNCH(k_first_flags, (uint64_t)n + 1, s, n, label, first, flag);
}

cudaError_t sg_dscc_number(uint32_t n, const uint32_t *label, const uint32_t *first, const unsigned long long *rank,
                           uint32_t *comp, cudaStream_t s)
{
    LAUNCH(k_number, n, s, n, label, first, rank, comp);
}

} // extern "C"
