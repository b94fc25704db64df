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
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cooperative_groups.h>
#include <cub/cub.cuh>

#include "cuda/runtime/devmem.cuh"
#include "cuda/runtime/util.h"
#include "cuda/scc/backend.h"

extern "C" {
#include "core/log.h"
}

namespace cg = cooperative_groups;

namespace {

// A directed graph in CSR form with its reverse (the patent's R, C, R', C').
struct Graph {
    uint32_t n;
    const unsigned long long *off, *roff; // n + 1 each
    const uint32_t *adj, *radj;
};

// Slots of State::counter.
enum { C_Q0, C_Q1, C_Q2, C_Q3, C_CHANGED, C_LEFT, C_HEAVY, C_N };

constexpr uint32_t kFw = 1, kBw = 2; // state bits: reached forward, backward

// The vertex state of the pipeline (the patent's array M, split by field).
struct State {
    uint32_t *comp;              // component label (a member vertex), or NONE
    uint32_t *part;              // partition label of an unresolved vertex, < 3n
    uint32_t *state;             // kFw / kBw bits of the current traversal
    uint32_t *in, *out;          // live in- and out-degrees inside the partition (trim)
    uint32_t *color;             // coloring partition
    unsigned long long *slot;    // pivot key of each partition label, 3n
    const uint32_t *weight;      // tie-break of the first pivot (k-mer count), or NULL
    uint32_t *queue[4];          // work lists: forward, backward, and the next of each
    uint32_t *heavy;             // vertices of more than HEAVY edges met by a search or trim
                                 // (bit 31: backward), left to the whole grid
    const uint32_t *heavy_out;   // the vertices of more than HEAVY out-edges (fixed)
    uint32_t n_heavy_out;
    unsigned long long *counter; // device counters, C_N of them
};

constexpr int kThreads = 256;
constexpr unsigned kHeavyBlocks = 1024; // the grid that sweeps the heavy lists
constexpr uint32_t NONE = 0xffffffffu; // no component yet, no vertex
// A vertex with more edges than this is not left to one virtual warp: a
// power-law hub's million edges would keep its lanes busy long after the rest
// of the grid is done. Such vertices go on a list that every block sweeps.
constexpr uint32_t HEAVY = 1024;
constexpr uint32_t BACKWARD = 1u << 31;

inline unsigned grid_for(uint64_t n)
{
    uint64_t b = (n + kThreads - 1) / kThreads;
    return (unsigned)(b < 1 ? 1 : b > 65535ull * 64 ? 65535ull * 64 : b);
}

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
    typedef cub::BlockReduce<unsigned long long, kThreads> reduce_t;
    __shared__ typename reduce_t::TempStorage tmp;
    unsigned long long sum = reduce_t(tmp).Sum(v);
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

__device__ __forceinline__ bool live(const State &st, uint32_t w, uint32_t p)
{
    return st.comp[w] == NONE && st.part[w] == p;
}

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

// f(g, st, v, first, step) for every unresolved vertex v: by kw lanes each
// (lane first of step), or, for the vertices of more than HEAVY out-edges,
// by the whole grid (k_heavy_each).
template <typename F> __global__ void k_light_each(const Graph g, const State st, int kw, F f)
{
    const uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    const int lane = (int)(t % kw);
    for (uint64_t v = t / kw; v < g.n; v += (uint64_t)gridDim.x * blockDim.x / kw)
        if (st.comp[v] == NONE && degree(g.off, (uint32_t)v) <= HEAVY) f(g, st, (uint32_t)v, lane, kw);
}

template <typename F> __global__ void k_heavy_each(const Graph g, const State st, F f)
{
    const uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x, stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint32_t i = 0; i < st.n_heavy_out; i++)
        if (st.comp[st.heavy_out[i]] == NONE) f(g, st, st.heavy_out[i], t, stride);
}

struct CountEdges {
    __device__ __forceinline__ void operator()(const Graph &g, const State &st, uint32_t v, unsigned long long first,
                                               unsigned long long step) const
    {
        count_edges(g, st, v, first, step);
    }
};

__global__ void k_heavy_out(const Graph g, uint32_t *list, unsigned long long *n)
{
    FOR_EACH(v, g.n)
    if (degree(g.off, (uint32_t)v) > HEAVY) push(list, n, (uint32_t)v);
}



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

// ---- the host driver ------------------------------------------------------------

#define CK SG_CUDA_CHECK

// A kernel over n items (a grid-stride loop) on the solver's stream, its launch checked.
#define LAUNCH(what, kernel, n, ...)                                                                    \
    do {                                                                                                \
        kernel<<<grid_for(n), kThreads, 0, s>>>(__VA_ARGS__);                                           \
        CK(cudaGetLastError(), what);                                                                   \
    } while (0)

// The statistics of one run, for --stats and the log.
struct Stats {
    char device[256];
    double init, upload, contract, reverse, trim, fwbw, color, expand, download, total; // seconds
    uint64_t chain_vertices, vertices, edges; // vertices in chains; the contracted graph
    uint32_t components;
    uint32_t jump_rounds, rounds, colorings, color_sweeps, bfs_levels, trim_steps;
    uint64_t trimmed2;   // vertices in 2-SCCs found by the second trim
    size_t device_bytes; // the estimate checked against free memory
    int degree_bytes;    // the graph went to the device as byte degrees (1) or offsets (8)
};

// Device bytes the pipeline needs for n vertices and m edges (an upper bound).
uint64_t estimate(uint64_t n, uint64_t m)
{
    // input CSR 8n + 4m; contraction: indeg, chain, pred, two jump words,
    // rank, labels (41n); contracted CSR both ways plus a cursor (32n + 8m,
    // at most m edges); state: comp, part, state, in, out, color, weight,
    // orig, four queues, the heavy lists (60n) and 3 pivot slots (24n); scan space
    return 8 * (n + 1) + 4 * m + 41 * n + 32 * (n + 1) + 8 * m + 84 * n + (16u << 20);
}

// The out-degrees as bytes when they all fit (every vertex under 256 edges;
// a de Bruijn graph has at most 4), else NULL. An offset takes 8 bytes a
// vertex: for an uncompacted de Bruijn graph the bytes cut the copy to the
// device from 12 to 5 bytes a vertex. Computed on several threads, since one
// would spend what the smaller copy saves.
struct DegreeJob {
    const uint64_t *off;
    uint8_t *deg;
    uint64_t a, b;
    int fits;
};

void *degree_worker(void *arg)
{
    DegreeJob *j = (DegreeJob *)arg;
    uint64_t big = 0;
    for (uint64_t v = j->a; v < j->b; v++) {
        uint64_t d = j->off[v + 1] - j->off[v];
        big |= d >> 8;
        j->deg[v] = (uint8_t)d;
    }
    j->fits = !big;
    return NULL;
}

uint8_t *small_degrees(const sg_graph_t *g, int threads)
{
    const uint64_t n = g->n_vert;
    if (n == 0) return NULL;
    if (threads < 1) threads = 1;
    if (threads > 16) threads = 16;
    if (n < (1u << 20)) threads = 1;
    uint8_t *deg = (uint8_t *)sg_malloc(n);
    DegreeJob job[16];
    pthread_t tid[16];
    int started[16] = {0}, fits = 1;
    for (int i = 0; i < threads; i++) {
        job[i] = DegreeJob{g->off, deg, n * i / threads, n * (i + 1) / threads, 0};
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

// The device buffers of one run.
struct Buffers {
    unsigned long long *off, *fjump, *bjump, *rank, *scratch;
    uint32_t *adj, *indeg, *pred, *label, *orig, *weight_r;
    uint8_t *chain;
    unsigned long long *off_r, *roff_r, *cursor;
    uint32_t *adj_r, *radj_r, *comp_r;
    void *state_block;
};

struct Solver {
    int id, local; // the device as the user numbers it, and the runtime's index of it
    int kw, kv, kt, threads;
    char *err;     // the interface's err
    size_t errsz;
    cudaStream_t s;
    Graph g;       // the contracted graph
    State st;
    Buffers b;
    unsigned long long h_counter[C_N];
    DevMem mem;    // the run's device memory, CUB's scratch kept and grown
    Stats stats;
    sg_cuda_warm_t warm; // the CUDA context, made while the input is read

    // What an out-of-memory message says the device holds.
    static void holds_of(const DevMem *m, char *out, size_t n) { snprintf(out, n, "the SCCs of %s", m->of); }

    // mem's failure, in the interface's err.
    int said(int r)
    {
        if (r < 0) snprintf(err, errsz, "%s", mem.err);
        return r;
    }

    int dev_alloc(void *p, size_t bytes, const char *what) { return said(mem.dev_alloc((void **)p, bytes, what)); }

    int read_counters()
    {
        CK(cudaMemcpyAsync(h_counter, st.counter, sizeof h_counter, cudaMemcpyDeviceToHost, s), "reading counters");
        CK(cudaStreamSynchronize(s), "kernel");
        return 0;
    }

    int zero_counters(int first, int n)
    {
        CK(cudaMemsetAsync(st.counter + first, 0, n * sizeof *st.counter, s), "cudaMemset");
        return 0;
    }

    // Exclusive scan of n 64-bit values into out (CUB; its scratch kept and grown).
    int scan(const unsigned long long *in, unsigned long long *out, size_t n)
    {
        return said(mem.run_cub_kept("scan", [&](void *tmp, size_t &bytes) {
            return cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, (int64_t)n, s);
        }));
    }

    int read_u64(const unsigned long long *p, uint64_t *out)
    {
        unsigned long long v = 0;
        CK(cudaMemcpyAsync(&v, p, sizeof v, cudaMemcpyDeviceToHost, s), "reading a size");
        CK(cudaStreamSynchronize(s), "kernel");
        *out = v;
        return 0;
    }

    // ---- the pipeline's steps ----

    // Live in/out degrees of every unresolved vertex inside its partition.
    int degrees()
    {
        CK(cudaMemsetAsync(st.in, 0, 4 * ((size_t)g.n + 1), s), "degrees");
        CK(cudaMemsetAsync(st.out, 0, 4 * ((size_t)g.n + 1), s), "degrees");
        k_light_each<<<grid_for((uint64_t)g.n * kw), kThreads, 0, s>>>(g, st, kw, CountEdges{});
        if (st.n_heavy_out) k_heavy_each<<<kHeavyBlocks, kThreads, 0, s>>>(g, st, CountEdges{});
        CK(cudaGetLastError(), "degrees");
        return 0;
    }

    // Remove queue[0]'s h_counter[C_Q0] vertices and everything their removal exposes.
    int trim_cascade(uint64_t n)
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
    int trim1()
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
    int trim2()
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

    // Level-synchronous search from queue[0] (forward, nf) and queue[1] (backward, nb),
    // by virtual warps: kw threads per group, kv queued vertices per group.
    int search(uint64_t nf, uint64_t nb)
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
    int fwbw(uint32_t round, uint64_t *left)
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
    int coloring()
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

    int pipeline()
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

    // ---- set-up: device, contraction, reverse CSR ----

    int pick_device()
    {
        sg_cuda_warm_join(&warm);
        struct cudaDeviceProp prop;
        SG_TRY(sg_cuda_open_device(id, &local, &prop, err, errsz));
        CK(cudaFree(NULL), "creating the CUDA context");
        snprintf(stats.device, sizeof stats.device, "%s", prop.name);
        return 0;
    }

    int check_memory(uint64_t n, uint64_t m)
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

    // Upload gr's CSR and contract its chains into g (forward part).
    int contract(const sg_graph_t *gr, const uint32_t *weight)
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
    int upload_degrees(const uint8_t *deg, uint32_t n)
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
    int upload_weights(const uint32_t *weight, uint64_t nr)
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
    int reverse()
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

    // The pipeline's state arrays, in one allocation.
    int state_init()
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

    int run(const sg_graph_t *gr, const uint32_t *weight, uint32_t *out)
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

    void free_run()
    {
        mem.release();
        memset(&b, 0, sizeof b);
        memset(&st, 0, sizeof st);
        if (s) cudaStreamDestroy(s);
        s = NULL;
    }
};

#undef LAUNCH
#undef CK

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
