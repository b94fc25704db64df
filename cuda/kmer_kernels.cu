// Kernels of the GPU graph build for seqgpu scc (see kmer_kernels.h): k-mer
// extraction, counting by radix sort and run-length encoding, merging with
// the table so far, the threshold, neighbour bits by binary search in the
// sorted table, and the compaction into unitigs by list ranking. Each C
// entry point dispatches on the key width to a template over the key type.
#include "kmer_kernels.h"

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <stdint.h>

namespace {

typedef unsigned __int128 u128;

constexpr int kThreads = 256;
constexpr uint32_t kNone = SG_CK_NONE;

// Blocks for a grid-stride loop over n items.
unsigned grid(uint64_t n)
{
    uint64_t b = (n + kThreads - 1) / kThreads;
    return (unsigned)(b < 1 ? 1 : b > (1u << 20) ? (1u << 20) : b);
}

#define FOR_EACH(i, n) for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < (n); i += (uint64_t)gridDim.x * blockDim.x)

// Reverse the order of the 2-bit groups of x.
__device__ __forceinline__ uint64_t rev2(uint64_t x)
{
    x = __brevll(x);
    return ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
}

__device__ __forceinline__ uint64_t rc(uint64_t x, int k) { return rev2(~x) >> (64 - 2 * k); }
__device__ __forceinline__ u128 rc(u128 x, int k)
{
    u128 r = (u128)rev2(~(uint64_t)x) << 64 | rev2(~(uint64_t)(x >> 64));
    return r >> (128 - 2 * k);
}

template <typename K> __device__ __forceinline__ K kmask(int k) { return ((K)1 << (2 * k)) - 1; }
template <typename K> __device__ __forceinline__ K canon(K x, int k)
{
    K r = rc(x, k);
    return r < x ? r : x;
}

// The oriented k-mer of oriented node o.
template <typename K> __device__ __forceinline__ K oriented(const K *keys, uint32_t o, int k)
{
    K x = keys[o >> 1];
    return (o & 1) ? rc(x, k) : x;
}

// Successor (pred 0) or predecessor (pred 1) of oriented k-mer s with base b.
template <typename K> __device__ __forceinline__ K step(K s, int b, int pred, int k)
{
    return pred ? (s >> 2) | ((K)b << (2 * (k - 1))) : ((s << 2) | (K)b) & kmask<K>(k);
}

// Index of x in the sorted keys, or n.
template <typename K> __device__ __forceinline__ uint64_t find(const K *keys, uint64_t n, K x)
{
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        if (keys[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && keys[lo] == x ? lo : n;
}

// The oriented node of oriented k-mer s (which is in the table).
template <typename K> __device__ __forceinline__ uint32_t node_of(const K *keys, uint64_t n, K s, int k)
{
    K r = rc(s, k);
    return r < s ? 2 * (uint32_t)find(keys, n, r) + 1 : 2 * (uint32_t)find(keys, n, s);
}

__device__ __forceinline__ int rev4(int x) { return (x & 1) << 3 | (x & 2) << 1 | (x & 4) >> 1 | (x & 8) >> 3; }

// Bases of the kept successors (pred 0) or predecessors (pred 1) of oriented
// node o, as bits: kmer_impl.h's next_bits.
__device__ __forceinline__ int next_bits(const uint8_t *nb, uint32_t o, int pred)
{
    int fwd = nb[o >> 1] & 15, back = nb[o >> 1] >> 4;
    if (o & 1) return rev4(pred ? fwd : back);
    return pred ? back : fwd;
}

__device__ __forceinline__ uint8_t base_code(uint8_t b)
{
    switch (b | 0x20) { // either case
    case 'a': return 0;
    case 'c': return 1;
    case 'g': return 2;
    case 't': return 3;
    default: return 4;
    }
}

// ---- counting ---------------------------------------------------------------

// One k-mer start per thread; the block's bases (and k - 1 more) are first
// read into shared memory as 2-bit codes, coalesced.
template <typename K>
__global__ void __launch_bounds__(kThreads) k_extract(const uint8_t *text, uint64_t n, int k, K *keys,
                                                      unsigned long long *n_valid)
{
    __shared__ uint8_t tile[kThreads + 64];
    const uint64_t base = blockIdx.x * (uint64_t)kThreads, n_keys = n - k + 1;
    for (int i = threadIdx.x; i < kThreads + k - 1; i += kThreads)
        tile[i] = base + i < n ? base_code(text[base + i]) : 4;
    __syncthreads();
    const uint64_t i = base + threadIdx.x;
    int ok = 0;
    if (i < n_keys) {
        K f = 0;
        ok = 1;
        for (int j = 0; j < k && ok; j++) {
            uint8_t c = tile[threadIdx.x + j];
            ok = c < 4;
            f = f << 2 | (K)(c & 3);
        }
        keys[i] = ok ? canon(f, k) : kmask<K>(k);
    }
    int got = __syncthreads_count(ok);
    if (threadIdx.x == 0 && got) atomicAdd(n_valid, (unsigned long long)got);
}

struct SatAdd {
    __device__ __forceinline__ uint32_t operator()(uint32_t a, uint32_t b) const
    {
        uint64_t s = (uint64_t)a + b;
        return s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
    }
};

template <typename K>
cudaError_t count_t(int k, K *keys, K *alt, uint64_t n, K *run_keys, uint32_t *run_counts, unsigned long long *n_runs,
                    void *temp, size_t *temp_bytes, cudaStream_t s)
{
    cub::DoubleBuffer<K> db(keys, alt);
    if (!temp) {
        size_t a = 0, b = 0;
        cudaError_t e = cub::DeviceRadixSort::SortKeys(nullptr, a, db, n, 0, 2 * k, s);
        if (e == cudaSuccess)
            e = cub::DeviceRunLengthEncode::Encode(nullptr, b, keys, run_keys, run_counts, n_runs, (int)n, s);
        *temp_bytes = a > b ? a : b;
        return e;
    }
    cudaError_t e = cub::DeviceRadixSort::SortKeys(temp, *temp_bytes, db, n, 0, 2 * k, s);
    if (e != cudaSuccess) return e;
    return cub::DeviceRunLengthEncode::Encode(temp, *temp_bytes, db.Current(), run_keys, run_counts, n_runs, (int)n, s);
}

template <typename K>
cudaError_t merge_t(const K *ak, const uint32_t *ac, uint64_t na, const K *bk, const uint32_t *bc, uint64_t nb, K *mk,
                    uint32_t *mc, void *temp, size_t *temp_bytes, cudaStream_t s)
{
    return cub::DeviceMerge::MergePairs(temp, *temp_bytes, ak, ac, (int64_t)na, bk, bc, (int64_t)nb, mk, mc,
                                        cuda::std::less<K>{}, s);
}

template <typename K>
cudaError_t sum_runs_t(const K *keys, const uint32_t *counts, uint64_t n, K *ok, uint32_t *oc,
                       unsigned long long *n_out, void *temp, size_t *temp_bytes, cudaStream_t s)
{
    return cub::DeviceReduce::ReduceByKey(temp, *temp_bytes, keys, ok, counts, oc, n_out, SatAdd{}, n, s);
}

// Per-block histograms in shared memory (most k-mers fall in the first few
// bins, so global atomics would all hit the same words), added up at the end.
__global__ void __launch_bounds__(kThreads) k_histogram(const uint32_t *counts, uint64_t n, unsigned long long *hist,
                                                        int bins)
{
    extern __shared__ uint32_t h[];
    for (int i = threadIdx.x; i < bins; i += kThreads) h[i] = 0;
    __syncthreads();
    FOR_EACH(i, n) atomicAdd(&h[counts[i] < (uint32_t)bins - 1 ? counts[i] : bins - 1], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < bins; i += kThreads)
        if (h[i]) atomicAdd(&hist[i], (unsigned long long)h[i]);
}

__global__ void k_histogram_global(const uint32_t *counts, uint64_t n, unsigned long long *hist, int bins)
{
    FOR_EACH(i, n) atomicAdd(&hist[counts[i] < (uint32_t)bins - 1 ? counts[i] : bins - 1], 1ull);
}

struct AtLeast {
    uint32_t min;
    __device__ __forceinline__ bool operator()(uint32_t c) const { return c >= min; }
};

template <typename K>
cudaError_t filter_t(const K *keys, const uint32_t *counts, uint64_t n, uint32_t min, K *ok, uint32_t *oc,
                     unsigned long long *n_out, void *temp, size_t *temp_bytes, cudaStream_t s)
{
    if (!temp) {
        size_t a = 0, b = 0;
        cudaError_t e = cub::DeviceSelect::FlaggedIf(nullptr, a, keys, counts, ok, n_out, (int64_t)n, AtLeast{min}, s);
        if (e == cudaSuccess)
            e = cub::DeviceSelect::FlaggedIf(nullptr, b, counts, counts, oc, n_out, (int64_t)n, AtLeast{min}, s);
        *temp_bytes = a > b ? a : b;
        return e;
    }
    cudaError_t e = cub::DeviceSelect::FlaggedIf(temp, *temp_bytes, keys, counts, ok, n_out, (int64_t)n, AtLeast{min}, s);
    if (e != cudaSuccess) return e;
    return cub::DeviceSelect::FlaggedIf(temp, *temp_bytes, counts, counts, oc, n_out, (int64_t)n, AtLeast{min}, s);
}

// ---- the graph ----------------------------------------------------------------

template <typename K> __global__ void k_neighbours(const K *keys, uint64_t n, int k, uint8_t *nb)
{
    FOR_EACH(j, n)
    {
        const K c = keys[j];
        uint8_t bits = 0;
        for (int b = 0; b < 8; b++)
            if (find(keys, n, canon(step(c, b & 3, b >> 2, k), k)) < n) bits |= (uint8_t)(1 << b);
        nb[j] = bits;
    }
}

// The links of node j (kmer_impl.h's walk rule, both sides at once): read
// forward, j continues into its one successor if that has one predecessor
// and is another node; read reversed, likewise with its one predecessor.
template <typename K> __global__ void k_links(const K *keys, const uint8_t *nb, uint64_t n, int k, uint32_t *pred)
{
    FOR_EACH(o, 2 * n)
    {
        // the predecessor of oriented node o is the reverse complement of the
        // successor of o's flip
        const uint32_t f = (uint32_t)o ^ 1;
        uint32_t p = kNone;
        int bits = next_bits(nb, f, 0);
        if (__popc(bits) == 1) {
            uint32_t x = node_of(keys, n, step(oriented(keys, f, k), __ffs(bits) - 1, 0, k), k);
            if ((x >> 1) != (f >> 1) && __popc(next_bits(nb, x, 1)) == 1) p = x ^ 1;
        }
        pred[o] = p;
    }
}

__global__ void k_rank_init(const uint32_t *pred, uint64_t n2, uint32_t *ptr, uint32_t *rank, uint32_t *low)
{
    FOR_EACH(o, n2)
    {
        uint32_t p = pred[o];
        ptr[o] = p == kNone ? (uint32_t)o : p;
        rank[o] = p != kNone;
        low[o] = (uint32_t)o >> 1;
    }
}

__global__ void k_jump(uint64_t n2, const uint32_t *ptr, const uint32_t *rank, const uint32_t *low, uint32_t *ptr2,
                       uint32_t *rank2, uint32_t *low2)
{
    FOR_EACH(o, n2)
    {
        uint32_t p = ptr[o];
        ptr2[o] = ptr[p];
        // a cycle's ranks grow without bound: they are thrown away, but must not wrap to look small
        uint64_t r = (uint64_t)rank[o] + rank[p];
        rank2[o] = r > 0x7fffffffu ? 0x7fffffffu : (uint32_t)r;
        low2[o] = min(low[o], low[p]);
    }
}

__global__ void k_mark_cycles(const uint32_t *pred, uint64_t n, const uint32_t *head, const uint32_t *low,
                              uint32_t *cycle, unsigned long long *n_cycle_nodes)
{
    FOR_EACH(j, n)
    {
        // on a path the head has no predecessor; on a cycle every node has one
        int on = pred[head[2 * j]] != kNone;
        cycle[j] = on ? low[2 * j] : kNone;
        if (on) atomicAdd(n_cycle_nodes, 2ull);
    }
}

// Cut each cycle before its smallest node m read forward (2m), and its
// reverse complement after 2m + 1, so that the two paths read each other
// backwards.
__global__ void k_cut_cycles(uint32_t *pred, uint64_t n2, const uint32_t *cycle)
{
    FOR_EACH(o, n2)
    {
        uint32_t m = cycle[o >> 1];
        if (m != kNone && (o == 2ull * m || pred[o] == 2 * m + 1)) pred[o] = kNone;
    }
}

template <typename K>
__global__ void k_place(const K *keys, uint64_t n, int k, const uint32_t *head, const uint32_t *rank,
                        const uint32_t *cycle, uint32_t *start, uint32_t *pos, uint8_t *orient, uint32_t *len)
{
    FOR_EACH(j, n)
    {
        const uint32_t ha = head[2 * j], hb = head[2 * j + 1], ra = rank[2 * j], rb = rank[2 * j + 1];
        // the forward path through j starts at ha, the reverse one at hb
        int a = cycle[j] != kNone ? ha == 2 * cycle[j] : oriented(keys, ha, k) < oriented(keys, hb, k);
        start[j] = a ? ha : hb;
        pos[j] = a ? ra : rb;
        orient[j] = (uint8_t)!a;
        len[j] = ra + rb + 1;
    }
}

struct IsFirst {
    const uint32_t *pos;
    __device__ __forceinline__ bool operator()(uint32_t j) const { return pos[j] == 0; }
};

template <typename K>
__global__ void k_first_keys(const K *keys, const uint8_t *orient, uint64_t nu, int k, const uint32_t *first, K *ukeys)
{
    FOR_EACH(u, nu)
    {
        uint32_t j = first[u];
        ukeys[u] = oriented(keys, 2 * j + orient[j], k);
    }
}

template <typename K>
cudaError_t order_t(int k, const K *keys, const uint8_t *orient, uint64_t nu, uint32_t *first, K *uk, K *uk2,
                    uint32_t *nodes2, void *temp, size_t *temp_bytes, cudaStream_t s)
{
    cub::DoubleBuffer<K> dk(uk, uk2);
    cub::DoubleBuffer<uint32_t> dv(first, nodes2);
    if (!temp) return cub::DeviceRadixSort::SortPairs(nullptr, *temp_bytes, dk, dv, nu, 0, 2 * k, s);
    k_first_keys<<<grid(nu), kThreads, 0, s>>>(keys, orient, nu, k, first, uk);
    cudaError_t e = cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, dk, dv, nu, 0, 2 * k, s);
    if (e == cudaSuccess && dv.Current() != first)
        e = cudaMemcpyAsync(first, dv.Current(), nu * sizeof *first, cudaMemcpyDeviceToDevice, s);
    return e;
}

__global__ void k_number_first(const uint32_t *first, uint64_t nu, const uint32_t *len, uint32_t *by_first,
                               uint64_t *kmer_off)
{
    FOR_EACH(u, nu)
    {
        by_first[first[u]] = (uint32_t)u;
        kmer_off[u] = len[first[u]];
    }
}

__global__ void k_number(uint64_t n, const uint32_t *start, const uint32_t *by_first, uint32_t *uid)
{
    FOR_EACH(j, n) uid[j] = by_first[start[j] >> 1];
}

// Node j writes the last base of its k-mer as it reads in its unitig (the
// first node all k), and its count at its place in unitig order.
template <typename K>
__global__ void k_spell(const K *keys, const uint32_t *counts, uint64_t n, int k, const uint32_t *uid,
                        const uint32_t *pos, const uint8_t *orient, const uint64_t *kmer_off, char *seq,
                        uint64_t *by_place)
{
    FOR_EACH(j, n)
    {
        const uint32_t u = uid[j];
        const K x = oriented(keys, 2 * (uint32_t)j + orient[j], k);
        const uint64_t at = kmer_off[u] + (uint64_t)u * (k - 1) + pos[j];
        if (pos[j] == 0)
            for (int i = 0; i < k - 1; i++) seq[at + i] = "ACGT"[(int)(x >> (2 * (k - 1 - i))) & 3];
        seq[at + k - 1] = "ACGT"[(int)x & 3];
        by_place[kmer_off[u] + pos[j]] = counts[j];
    }
}

// Slot 8u + 4 dir + b: the link from unitig end (u, dir) through base b.
template <typename K>
__global__ void k_edges(const K *keys, const uint8_t *nb, uint64_t n, int k, const uint32_t *first,
                        uint64_t nu, const uint32_t *head, const uint32_t *uid, const uint32_t *pos,
                        const uint8_t *orient, const uint32_t *len, sg_edge_t *slots)
{
    FOR_EACH(i, 8 * nu)
    {
        const uint32_t u = (uint32_t)(i >> 3), dir = (uint32_t)(i >> 2) & 1, b = (uint32_t)i & 3;
        const uint32_t j = first[u], fo = 2 * j + orient[j];
        // u+ leaves through its last oriented node, the flip of the head of
        // the reverse path; u- through the flip of its first
        const uint32_t end = dir ? fo ^ 1 : head[fo ^ 1] ^ 1;
        sg_edge_t e = {kNone, kNone, (uint32_t)(k - 1)};
        if (next_bits(nb, end, 0) >> b & 1) {
            const uint32_t x = node_of(keys, n, step(oriented(keys, end, k), (int)b, 0, k), k), v = x >> 1;
            const uint32_t xr = x & 1;
            int vdir = -1;
            if (pos[v] == 0 && orient[v] == xr) vdir = 0;                  // x is v's first k-mer
            else if (pos[v] == len[v] - 1 && orient[v] != xr) vdir = 1;   // ... or the flip of its last
            if (vdir >= 0) e = sg_edge_t{2 * u + dir, 2 * uid[v] + (uint32_t)vdir, (uint32_t)(k - 1)};
        }
        slots[i] = e;
    }
}

struct IsEdge {
    __device__ __forceinline__ bool operator()(const sg_edge_t &e) const { return e.from != kNone; }
};

} // namespace

// ---- C entry points -------------------------------------------------------------

#define DISPATCH(wide, call) ((wide) ? call(u128) : call(uint64_t))

extern "C" cudaError_t sg_ck_extract(int wide, int k, const uint8_t *text, uint64_t n, void *keys,
                                     unsigned long long *n_valid, cudaStream_t s)
{
    cudaError_t e = cudaMemsetAsync(n_valid, 0, sizeof *n_valid, s);
    if (e != cudaSuccess || n < (uint64_t)k) return e;
    const unsigned blocks = (unsigned)((n - k + 1 + kThreads - 1) / kThreads);
#define CALL(K) (k_extract<K><<<blocks, kThreads, 0, s>>>(text, n, k, (K *)keys, n_valid), cudaGetLastError())
    return DISPATCH(wide, CALL);
#undef CALL
}

extern "C" cudaError_t sg_ck_count(int wide, int k, void *keys, void *alt, uint64_t n, void *run_keys,
                                   uint32_t *run_counts, unsigned long long *n_runs, void *temp, size_t *temp_bytes,
                                   cudaStream_t s)
{
#define CALL(K) count_t<K>(k, (K *)keys, (K *)alt, n, (K *)run_keys, run_counts, n_runs, temp, temp_bytes, s)
    return DISPATCH(wide, CALL);
#undef CALL
}

extern "C" cudaError_t sg_ck_merge(int wide, const void *a_keys, const uint32_t *a_counts, uint64_t na,
                                   const void *b_keys, const uint32_t *b_counts, uint64_t nb, void *mk, uint32_t *mc,
                                   void *temp, size_t *temp_bytes, cudaStream_t s)
{
#define CALL(K)                                                                                                     \
    merge_t<K>((const K *)a_keys, a_counts, na, (const K *)b_keys, b_counts, nb, (K *)mk, mc, temp, temp_bytes, s)
    return DISPATCH(wide, CALL);
#undef CALL
}

extern "C" cudaError_t sg_ck_sum_runs(int wide, const void *keys, const uint32_t *counts, uint64_t n, void *out_keys,
                                      uint32_t *out_counts, unsigned long long *n_out, void *temp, size_t *temp_bytes,
                                      cudaStream_t s)
{
#define CALL(K) sum_runs_t<K>((const K *)keys, counts, n, (K *)out_keys, out_counts, n_out, temp, temp_bytes, s)
    return DISPATCH(wide, CALL);
#undef CALL
}

extern "C" cudaError_t sg_ck_histogram(const uint32_t *counts, uint64_t n, unsigned long long *hist, int bins,
                                       cudaStream_t s)
{
    cudaError_t e = cudaMemsetAsync(hist, 0, bins * sizeof *hist, s);
    if (e != cudaSuccess || !n) return e;
    const size_t smem = bins * sizeof(uint32_t);
    // few blocks: each clears and adds up a whole histogram
    const unsigned blocks = grid(n) < 1024 ? grid(n) : 1024;
    if (smem <= 48 << 10) k_histogram<<<blocks, kThreads, smem, s>>>(counts, n, hist, bins);
    else k_histogram_global<<<grid(n), kThreads, 0, s>>>(counts, n, hist, bins);
    return cudaGetLastError();
}

extern "C" cudaError_t sg_ck_filter(int wide, const void *keys, const uint32_t *counts, uint64_t n, uint32_t min,
                                    void *out_keys, uint32_t *out_counts, unsigned long long *n_out, void *temp,
                                    size_t *temp_bytes, cudaStream_t s)
{
#define CALL(K) filter_t<K>((const K *)keys, counts, n, min, (K *)out_keys, out_counts, n_out, temp, temp_bytes, s)
    return DISPATCH(wide, CALL);
#undef CALL
}

extern "C" cudaError_t sg_ck_neighbours(int wide, int k, const void *keys, uint64_t n, uint8_t *nb, cudaStream_t s)
{
    if (!n) return cudaSuccess;
#define CALL(K) (k_neighbours<K><<<grid(n), kThreads, 0, s>>>((const K *)keys, n, k, nb), cudaGetLastError())
    return DISPATCH(wide, CALL);
#undef CALL
}

extern "C" cudaError_t sg_ck_links(int wide, int k, const void *keys, const uint8_t *nb, uint64_t n, uint32_t *pred,
                                   cudaStream_t s)
{
    if (!n) return cudaSuccess;
#define CALL(K) (k_links<K><<<grid(2 * n), kThreads, 0, s>>>((const K *)keys, nb, n, k, pred), cudaGetLastError())
    return DISPATCH(wide, CALL);
#undef CALL
}

extern "C" cudaError_t sg_ck_rank(const uint32_t *pred, uint64_t n, uint32_t *head, uint32_t *rank, uint32_t *low,
                                  uint32_t *ptr2, uint32_t *rank2, uint32_t *low2, cudaStream_t s)
{
    const uint64_t n2 = 2 * n;
    if (!n) return cudaSuccess;
    // a path has at most n nodes: 2^rounds >= n jumps reach its head; an even
    // number of rounds leaves the result in head, rank, low
    int rounds = 1;
    while ((1ull << rounds) < n) rounds++;
    rounds += rounds & 1;
    k_rank_init<<<grid(n2), kThreads, 0, s>>>(pred, n2, head, rank, low);
    for (int r = 0; r < rounds; r++) {
        if (r & 1) k_jump<<<grid(n2), kThreads, 0, s>>>(n2, ptr2, rank2, low2, head, rank, low);
        else k_jump<<<grid(n2), kThreads, 0, s>>>(n2, head, rank, low, ptr2, rank2, low2);
    }
    return cudaGetLastError();
}

extern "C" cudaError_t sg_ck_break_cycles(uint32_t *pred, uint64_t n, const uint32_t *head, const uint32_t *low,
                                          uint32_t *cycle, unsigned long long *n_cycle_nodes, cudaStream_t s)
{
    cudaError_t e = cudaMemsetAsync(n_cycle_nodes, 0, sizeof *n_cycle_nodes, s);
    if (e != cudaSuccess || !n) return e;
    // marking reads pred along the cycles, so it finishes before any cut
    k_mark_cycles<<<grid(n), kThreads, 0, s>>>(pred, n, head, low, cycle, n_cycle_nodes);
    k_cut_cycles<<<grid(2 * n), kThreads, 0, s>>>(pred, 2 * n, cycle);
    return cudaGetLastError();
}

extern "C" cudaError_t sg_ck_place(int wide, int k, const void *keys, uint64_t n, const uint32_t *head,
                                   const uint32_t *rank, const uint32_t *cycle, uint32_t *start, uint32_t *pos,
                                   uint8_t *orient, uint32_t *len, cudaStream_t s)
{
    if (!n) return cudaSuccess;
#define CALL(K)                                                                                                     \
    (k_place<K><<<grid(n), kThreads, 0, s>>>((const K *)keys, n, k, head, rank, cycle, start, pos, orient, len),   \
     cudaGetLastError())
    return DISPATCH(wide, CALL);
#undef CALL
}

extern "C" cudaError_t sg_ck_starts(uint64_t n, const uint32_t *pos, uint32_t *first_nodes,
                                    unsigned long long *n_unitigs, void *temp, size_t *temp_bytes, cudaStream_t s)
{
    return cub::DeviceSelect::If(temp, *temp_bytes, thrust::counting_iterator<uint32_t>(0), first_nodes, n_unitigs,
                                 (int64_t)n, IsFirst{pos}, s);
}

extern "C" cudaError_t sg_ck_order(int wide, int k, const void *keys, const uint8_t *orient, uint64_t n_unitigs,
                                   uint32_t *first_nodes, void *ukeys, void *ukeys2, uint32_t *nodes2, void *temp,
                                   size_t *temp_bytes, cudaStream_t s)
{
#define CALL(K)                                                                                                     \
    order_t<K>(k, (const K *)keys, orient, n_unitigs, first_nodes, (K *)ukeys, (K *)ukeys2, nodes2, temp,         \
               temp_bytes, s)
    return DISPATCH(wide, CALL);
#undef CALL
}

extern "C" cudaError_t sg_ck_number(const uint32_t *first_nodes, uint64_t n_unitigs, uint64_t n,
                                    const uint32_t *start, const uint32_t *len, uint32_t *by_first, uint32_t *uid,
                                    uint64_t *kmer_off, void *temp, size_t *temp_bytes, cudaStream_t s)
{
    if (!temp) return cub::DeviceScan::ExclusiveSum(nullptr, *temp_bytes, kmer_off, kmer_off, n_unitigs + 1, s);
    cudaError_t e = cudaMemsetAsync(kmer_off + n_unitigs, 0, sizeof *kmer_off, s);
    if (e != cudaSuccess) return e;
    if (n_unitigs) {
        k_number_first<<<grid(n_unitigs), kThreads, 0, s>>>(first_nodes, n_unitigs, len, by_first, kmer_off);
        k_number<<<grid(n), kThreads, 0, s>>>(n, start, by_first, uid);
        if ((e = cudaGetLastError()) != cudaSuccess) return e;
    }
    return cub::DeviceScan::ExclusiveSum(temp, *temp_bytes, kmer_off, kmer_off, n_unitigs + 1, s);
}

extern "C" cudaError_t sg_ck_spell(int wide, int k, const void *keys, const uint32_t *counts, uint64_t n,
                                   const uint32_t *uid, const uint32_t *pos, const uint8_t *orient,
                                   const uint64_t *kmer_off, uint64_t n_unitigs, char *seq, uint64_t *by_place,
                                   uint64_t *sums, void *temp, size_t *temp_bytes, cudaStream_t s)
{
    if (!temp)
        return cub::DeviceSegmentedReduce::Sum(nullptr, *temp_bytes, by_place, sums, (int64_t)n_unitigs, kmer_off,
                                               kmer_off + 1, s);
    if (!n) return cudaSuccess;
#define CALL(K)                                                                                                     \
    (k_spell<K><<<grid(n), kThreads, 0, s>>>((const K *)keys, counts, n, k, uid, pos, orient, kmer_off, seq,       \
                                              by_place),                                                            \
     cudaGetLastError())
    cudaError_t e = DISPATCH(wide, CALL);
#undef CALL
    if (e != cudaSuccess) return e;
    return cub::DeviceSegmentedReduce::Sum(temp, *temp_bytes, by_place, sums, (int64_t)n_unitigs, kmer_off,
                                           kmer_off + 1, s);
}

extern "C" cudaError_t sg_ck_edges(int wide, int k, const void *keys, const uint8_t *nb, uint64_t n,
                                   const uint32_t *first_nodes, uint64_t n_unitigs, const uint32_t *head,
                                   const uint32_t *uid, const uint32_t *pos, const uint8_t *orient, const uint32_t *len,
                                   sg_edge_t *edges, unsigned long long *n_edges, void *temp, size_t *temp_bytes,
                                   cudaStream_t s)
{
    if (!temp) return cub::DeviceSelect::If(nullptr, *temp_bytes, edges, n_edges, (int64_t)(8 * n_unitigs), IsEdge{}, s);
    if (n_unitigs) {
#define CALL(K)                                                                                                     \
    (k_edges<K><<<grid(8 * n_unitigs), kThreads, 0, s>>>((const K *)keys, nb, n, k, first_nodes, n_unitigs, head,  \
                                                          uid, pos, orient, len, edges),                            \
     cudaGetLastError())
        cudaError_t e = DISPATCH(wide, CALL);
#undef CALL
        if (e != cudaSuccess) return e;
    }
    return cub::DeviceSelect::If(temp, *temp_bytes, edges, n_edges, (int64_t)(8 * n_unitigs), IsEdge{}, s);
}
