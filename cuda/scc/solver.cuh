// The SCC solver of seqgpu scc on a CUDA device: the solver's state (struct
// Solver), the graph and vertex state its kernels share, and the helpers of
// every stage. The pipeline (see cuda/scc/solve.cu, which runs it and is the
// sg_scc_solver_t) has a file a stage: contract.cu (the upload, the chain
// contraction and the reverse CSR), trim.cu (the 1- and 2-SCC trims),
// search.cu (pivots, the forward-backward search and the coloring partition).
#ifndef SG_CUDA_SCC_SOLVER_CUH
#define SG_CUDA_SCC_SOLVER_CUH

#include <stdint.h>

#include <cooperative_groups.h>
#include <cub/cub.cuh>

#include "cuda/runtime/devmem.cuh"
#include "cuda/runtime/util.h"
#include "cuda/scc/backend.h"

extern "C" {
#include "core/log.h"
}

namespace sg_scc_cuda {

namespace cg = cooperative_groups;

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

__device__ __forceinline__ bool live(const State &st, uint32_t w, uint32_t p)
{
    return st.comp[w] == NONE && st.part[w] == p;
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

// ---- the host driver ------------------------------------------------------------

// A kernel over n items (a grid-stride loop) on the solver's stream, its launch checked.
#define LAUNCH(what, kernel, n, ...)                                                                    \
    do {                                                                                                \
        kernel<<<grid_for(n), kThreads, 0, s>>>(__VA_ARGS__);                                           \
        SG_CUDA_CHECK(cudaGetLastError(), what);                                                        \
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
        SG_CUDA_CHECK(cudaMemcpyAsync(h_counter, st.counter, sizeof h_counter, cudaMemcpyDeviceToHost, s),
                      "reading counters");
        SG_CUDA_CHECK(cudaStreamSynchronize(s), "kernel");
        return 0;
    }

    int zero_counters(int first, int n)
    {
        SG_CUDA_CHECK(cudaMemsetAsync(st.counter + first, 0, n * sizeof *st.counter, s), "cudaMemset");
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
        SG_CUDA_CHECK(cudaMemcpyAsync(&v, p, sizeof v, cudaMemcpyDeviceToHost, s), "reading a size");
        SG_CUDA_CHECK(cudaStreamSynchronize(s), "kernel");
        *out = v;
        return 0;
    }

    // the upload and the contraction (cuda/scc/contract.cu)
    int contract(const sg_graph_t *gr, const uint32_t *weight);
    int upload_degrees(const uint8_t *deg, uint32_t n);
    int upload_weights(const uint32_t *weight, uint64_t nr);
    int reverse();

    // the trims (cuda/scc/trim.cu)
    int degrees();
    int trim_cascade(uint64_t n);
    int trim1();
    int trim2();

    // the searches (cuda/scc/search.cu)
    int search(uint64_t nf, uint64_t nb);
    int fwbw(uint32_t round, uint64_t *left);
    int coloring();

    // set-up and the pipeline (cuda/scc/solve.cu)
    int pipeline();
    int pick_device();
    int check_memory(uint64_t n, uint64_t m);
    int state_init();
    int run(const sg_graph_t *gr, const uint32_t *weight, uint32_t *out);
    void free_run();
};

} // namespace sg_scc_cuda

#endif
