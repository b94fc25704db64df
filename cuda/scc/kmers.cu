// The k-mer table of seqgpu scc on a CUDA device (cuda/scc/backend.h): the host
// driver and its kernels. Keys are canonical k-mers in 64-bit (k <= 31) or
// 128-bit words, kept sorted; the driver's steps are templates over the key
// type K, chosen once per call of the interface. Oriented nodes: node j read
// forward is 2j, read as its reverse complement 2j + 1.
//
// Counting: a batch's k-mers are extracted (one per thread), radix sorted
// over 2k bits and run-length encoded, then merged with the table and added
// up by key. The compaction gives every kept k-mer's neighbours by binary
// search, links each oriented node to the one before it in its unitig, ranks
// the paths by pointer jumping (cutting branch-free cycles at their smallest
// node), places each node in its unitig's canonical form, and spells the
// unitigs, their counts and their links on the device.
//
// Several devices (--device 0,1): one table per device, each counting the
// k-mers of its hash part (sg_kmer_part, the parts of scc --part) of every
// batch, on a host thread of its own; their histograms and totals add up,
// and after the filter the kept k-mers of every part are gathered on the
// first device, sorted, and compacted there: the same table, so the same
// graph, as one device's.
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "core/dna.h"
#include "cuda/runtime/devmem.cuh"
#include "cuda/runtime/util.h"
#include "cuda/scc/backend.h"

extern "C" {
#include "core/cli.h"
#include "core/log.h"
}

namespace {

typedef sg_kmer128_t u128;

constexpr int kThreads = 256;
constexpr uint32_t kNone = UINT32_MAX; // no node, no link

// Blocks for a grid-stride loop (FOR_EACH) over n items.
unsigned grid(uint64_t n) { return sg_grid(n, kThreads); }

// ---- device helpers ---------------------------------------------------------

// The oriented k-mer of oriented node o.
template <typename K> __device__ __forceinline__ K oriented(const K *keys, uint32_t o, int k)
{
    K x = keys[o >> 1];
    return (o & 1) ? sg_kmer_rc(x, k) : x;
}

// Successor (pred 0) or predecessor (pred 1) of oriented k-mer s with base b.
template <typename K> __device__ __forceinline__ K step(K s, int b, int pred, int k)
{
    return pred ? sg_kmer_prev(s, b, k) : sg_kmer_next(s, b, k);
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
    K r = sg_kmer_rc(s, k);
    return r < s ? 2 * (uint32_t)find(keys, n, r) + 1 : 2 * (uint32_t)find(keys, n, s);
}

__device__ __forceinline__ int rev4(int x) { return (x & 1) << 3 | (x & 2) << 1 | (x & 4) >> 1 | (x & 8) >> 3; }

// Bases of the kept successors (pred 0) or predecessors (pred 1) of oriented
// node o, as bits: the cpu table's next_bits.
__device__ __forceinline__ int next_bits(const uint8_t *nb, uint32_t o, int pred)
{
    int fwd = nb[o >> 1] & 15, back = nb[o >> 1] >> 4;
    if (o & 1) return rev4(pred ? fwd : back);
    return pred ? back : fwd;
}

// ---- counting ---------------------------------------------------------------

// One k-mer start per thread; the block's bases (and k - 1 more) are first
// read into shared memory as 2-bit codes, coalesced. A window with a byte
// other than A/C/G/T gets T^k (no canonical k-mer is that large).
__device__ __forceinline__ uint64_t khash(uint64_t x) { return sg_kmer64_hash(x); }
__device__ __forceinline__ uint64_t khash(u128 x) { return sg_kmer128_hash(x); }

// With n_parts > 1, the k-mers of hash parts other than part count as
// windows that are not k-mers.
template <typename K>
__global__ void __launch_bounds__(kThreads) k_extract(const uint8_t *text, uint64_t n, int k, uint32_t part,
                                                      uint32_t n_parts, K *keys, unsigned long long *n_valid)
{
    __shared__ uint8_t tile[kThreads + 64];
    const uint64_t base = blockIdx.x * (uint64_t)kThreads, n_keys = n - k + 1;
    for (int i = threadIdx.x; i < kThreads + k - 1; i += kThreads)
        tile[i] = base + i < n ? (uint8_t)sg_dna_code(text[base + i]) : 0xff;
    __syncthreads();
    const uint64_t i = base + threadIdx.x;
    int ok = 0;
    if (i < n_keys) {
        K f = 0;
        ok = 1;
        for (int j = 0; j < k && ok; j++) {
            uint8_t c = tile[threadIdx.x + j];
            ok = c < 4;
            f = sg_kmer_next(f, c & 3, k);
        }
        K c = ok ? sg_kmer_canon(f, k) : sg_kmer_rc((K)0, k);
        if (ok && n_parts > 1 && sg_kmer_part(khash(c), n_parts) != part) {
            ok = 0;
            c = sg_kmer_rc((K)0, k);
        }
        keys[i] = c;
    }
    int got = __syncthreads_count(ok);
    if (threadIdx.x == 0 && got) atomicAdd(n_valid, (unsigned long long)got);
}

// A key that is a k-mer (T^k is none).
template <typename K> struct IsKmer {
    K none;
    __device__ __forceinline__ bool operator()(const K &x) const { return x != none; }
};

struct SatAdd {
    __device__ __forceinline__ uint32_t operator()(uint32_t a, uint32_t b) const
    {
        uint64_t s = (uint64_t)a + b;
        return s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
    }
};

// Sort n keys (keys and alt are both overwritten) and count each distinct
// one into run_keys, run_counts (*n_runs of them); the keys that are not
// k-mers sort last, as one run. With temp NULL: the scratch it needs.
template <typename K>
cudaError_t count_keys(int k, K *keys, K *alt, uint64_t n, K *run_keys, uint32_t *run_counts,
                       unsigned long long *n_runs, void *temp, size_t &temp_bytes, cudaStream_t s)
{
    cub::DoubleBuffer<K> db(keys, alt);
    if (!temp) {
        size_t a = 0, b = 0;
        cudaError_t e = cub::DeviceRadixSort::SortKeys(nullptr, a, db, n, 0, 2 * k, s);
        if (e == cudaSuccess)
            e = cub::DeviceRunLengthEncode::Encode(nullptr, b, keys, run_keys, run_counts, n_runs, (int)n, s);
        temp_bytes = a > b ? a : b;
        return e;
    }
    cudaError_t e = cub::DeviceRadixSort::SortKeys(temp, temp_bytes, db, n, 0, 2 * k, s);
    if (e != cudaSuccess) return e;
    return cub::DeviceRunLengthEncode::Encode(temp, temp_bytes, db.Current(), run_keys, run_counts, n_runs, (int)n, s);
}

// A count as a histogram bin: the last bin takes every count from it on.
struct ClampCount {
    uint32_t top;
    __device__ __forceinline__ uint32_t operator()(uint32_t c) const { return c < top ? c : top; }
};

struct AtLeast {
    uint32_t min;
    __device__ __forceinline__ bool operator()(uint32_t c) const { return c >= min; }
};

// ---- the graph ----------------------------------------------------------------

template <typename K> __global__ void k_neighbours(const K *keys, uint64_t n, int k, uint8_t *nb)
{
    FOR_EACH(j, n)
    {
        const K c = keys[j];
        uint8_t bits = 0;
        for (int b = 0; b < 8; b++)
            if (find(keys, n, sg_kmer_canon(step(c, b & 3, b >> 2, k), k)) < n) bits |= (uint8_t)(1 << b);
        nb[j] = bits;
    }
}

// The links of node j (the cpu table's walk rule, both sides at once): read
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

// Each node's place in its unitig's canonical form (a path reads from the
// end with the smaller first k-mer, a cycle from its smallest node read
// forward): start, the unitig's first oriented node; pos, the node's place;
// orient 1 when it reads reverse complemented there; len, the unitig's k-mers.
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
            for (int i = 0; i < k - 1; i++) seq[at + i] = sg_dna_letter((int)(x >> (2 * (k - 1 - i))));
        seq[at + k - 1] = sg_dna_letter((int)x);
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

// ---- the host driver ------------------------------------------------------------

#define CK SG_CUDA_CHECK

constexpr size_t kBatchMax = (size_t)256 << 20; // bases per batch, at most ...
constexpr size_t kBatchMin = (size_t)1 << 20;   // ... and at least, unless set by SEQGPU_CUDA_KMER_BATCH
constexpr uint64_t kMaxNodes = (uint64_t)1 << 30; // kept k-mers the compaction takes: ranks and oriented nodes fit 32 bits

struct Batch {
    char *p; // pinned
    size_t n;
    int busy; // being counted
};

struct Seconds {
    double h2d, extract_sort, merge, histogram, filter, neighbours, unitigs, d2h;
};

// The compaction's device buffers, freed as soon as the later steps no longer need them.
enum { B_NB, B_PRED, B_HEAD, B_RANK, B_LOW, B_PTR2, B_RANK2, B_LOW2, B_CYCLE, B_START, B_POS, B_ORIENT, B_LEN,
       B_FIRST, B_UKEYS, B_UKEYS2, B_NODES2, B_UID, B_KOFF, B_SEQ, B_PLACE, B_SUMS, B_EDGES, N_BUF };

// Device bytes of the batch buffers for batches of n bytes: the bases, keys
// three times (extracted, the sort's other half, the runs) and run counts.
uint64_t batch_bytes(uint64_t n, size_t kb) { return n * (1 + 3 * kb + 4); }

struct Table : DevMem {
    int k, wide, device; // device: as the user numbers it
    int local;           // the runtime's index of it
    size_t kb;           // bytes of a key
    cudaStream_t stream;
    char name[128];

    // filling, under mu: buf[cur] takes the bases; the device counts one batch at a time, under dev_mu
    pthread_mutex_t mu, dev_mu;
    pthread_cond_t cv;
    Batch buf[2];
    int cur;
    size_t batch;
    int broken;     // under mu while adds run: a call failed, and every later one fails too
    int dev_broken; // under dev_mu: the same, seen before the device is taken again
    char *why;      // the interface's err: the first failure, with the device
    size_t whysz;

    // per batch, on the device
    uint8_t *d_text;
    void *d_keys, *d_alt, *d_run_keys;
    uint32_t *d_run_counts;
    unsigned long long *d_n, *h_n; // counters, and their pinned copies

    // the table: sorted canonical k-mers and their counts; m_* is scratch of the same layout
    void *tab_k, *m_k;
    uint32_t *tab_c, *m_c;
    uint64_t n_tab, cap_tab, cap_m;
    void *buf_p[N_BUF]; // the compaction's buffers

    uint64_t total, batches, bytes_in;
    Seconds sec;

    // several devices: this table counts hash part `part` of n_parts; the
    // first one owns the host batches and the others (peer), which count
    // the same batches on threads of their own
    uint32_t part, n_parts;
    int shared_host;  // a peer: no host batches of its own
    Table *peer[SG_MAX_DEVICES];
    int n_peer;
    int fail_device;  // the device whose call failed (-1: this one)

    // What an out-of-memory message says the device holds.
    static void holds_of(const DevMem *m, char *out, size_t n)
    {
        snprintf(out, n, "the table holds %llu k-mers", (unsigned long long)static_cast<const Table *>(m)->n_tab);
    }

    // The first n counters to the host; waits for the stream.
    int read_counters(int n)
    {
        CK(cudaMemcpyAsync(h_n, d_n, n * sizeof *d_n, cudaMemcpyDeviceToHost, stream), "copying counters");
        CK(cudaStreamSynchronize(stream), "running the k-mer kernels");
        return 0;
    }

    int sync_stage(double *s, double t0)
    {
        CK(cudaStreamSynchronize(stream), "running the k-mer kernels");
        *s += sg_realtime() - t0;
        return 0;
    }

    void free_batch_buffers()
    {
        dev_free(d_text);
        dev_free(d_keys);
        dev_free(d_alt);
        dev_free(d_run_keys);
        dev_free(d_run_counts);
        d_text = NULL;
        d_keys = d_alt = d_run_keys = NULL;
        d_run_counts = NULL;
        for (int i = 0; i < 2; i++) {
            cudaFreeHost(buf[i].p);
            buf[i].p = NULL;
        }
    }

    // Keys and counts (the table's layout) with room for cap entries, the old
    // ones freed first and their content not kept.
    int regrow(void **keys, uint32_t **counts, uint64_t *cap, uint64_t n, const char *what)
    {
        dev_free(*keys);
        dev_free(*counts);
        *keys = NULL;
        *counts = NULL;
        *cap = 0;
        SG_TRY(dev_alloc(keys, n * kb, what));
        SG_TRY(dev_alloc((void **)counts, n * 4, what));
        *cap = n;
        return 0;
    }

    // Add the batch's (kmer, count) runs to the table: merged into the
    // scratch, then added up by key into the table, which grows first when
    // it must (its old content is no longer needed once the merge ran).
    template <typename K> int merge_runs(uint64_t runs)
    {
        const uint64_t n = n_tab + runs;
        if (!n_tab) {
            if (cap_tab < runs) SG_TRY(regrow(&tab_k, &tab_c, &cap_tab, runs, "the k-mer table"));
            CK(cudaMemcpyAsync(tab_k, d_run_keys, runs * kb, cudaMemcpyDeviceToDevice, stream), "copying k-mers");
            CK(cudaMemcpyAsync(tab_c, d_run_counts, runs * 4, cudaMemcpyDeviceToDevice, stream), "copying counts");
            n_tab = runs;
            return 0;
        }
        const uint64_t grow = n + n / 4; // room for the next batches' new k-mers too
        if (cap_m < n) SG_TRY(regrow(&m_k, &m_c, &cap_m, grow, "merging k-mer counts"));
        auto merge = [&](void *tmp, size_t &bytes) {
            return cub::DeviceMerge::MergePairs(tmp, bytes, (const K *)tab_k, tab_c, (int64_t)n_tab,
                                                (const K *)d_run_keys, d_run_counts, (int64_t)runs, (K *)m_k, m_c,
                                                cuda::std::less<K>{}, stream);
        };
        auto sum = [&](void *tmp, size_t &bytes) {
            return cub::DeviceReduce::ReduceByKey(tmp, bytes, (const K *)m_k, (K *)tab_k, m_c, tab_c, d_n, SatAdd{}, n,
                                                  stream);
        };
        // both sized first: the scratch cannot be replaced while the merge may still use it
        size_t tb = 0, tb2 = 0;
        CK(merge(nullptr, tb), "sizing the merge");
        CK(sum(nullptr, tb2), "sizing the merge");
        SG_TRY(ensure_scratch(tb > tb2 ? tb : tb2));
        CK(merge(scratch, scratch_cap), "merging k-mer counts");
        if (cap_tab < n) {
            // the merge has read the table: only now can it make room for the sums
            CK(cudaStreamSynchronize(stream), "merging k-mer counts");
            n_tab = 0; // until the sums below refill it
            SG_TRY(regrow(&tab_k, &tab_c, &cap_tab, grow, "the k-mer table"));
        }
        CK(sum(scratch, scratch_cap), "merging k-mer counts");
        SG_TRY(read_counters(1));
        n_tab = h_n[0];
        return 0;
    }

    // Count batch b on the device (dev_mu held).
    template <typename K> int run_batch(const Batch *b)
    {
        if (b->n < (size_t)k) return 0;
        const uint64_t n_keys = b->n - k + 1;
        double t0 = sg_realtime();
        CK(cudaSetDevice(local), "cudaSetDevice");
        CK(cudaMemcpyAsync(d_text, b->p, b->n, cudaMemcpyHostToDevice, stream), "copying bases to the device");
        SG_TRY(sync_stage(&sec.h2d, t0));

        t0 = sg_realtime();
        CK(cudaMemsetAsync(d_n, 0, sizeof *d_n, stream), "extracting k-mers");
        k_extract<K><<<(unsigned)((n_keys + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
            d_text, b->n, k, part, n_parts, (K *)d_keys, d_n);
        CK(cudaGetLastError(), "extracting k-mers");
        K *keys = (K *)d_keys, *alt = (K *)d_alt;
        uint64_t n_sort = n_keys;
        if (n_parts > 1) {
            // only this part's k-mers are sorted: the others are gathered out first
            SG_TRY(read_counters(1));
            n_sort = h_n[0];
            if (!n_sort) { // none of this part's
                batches++;
                bytes_in += b->n;
                sec.extract_sort += sg_realtime() - t0;
                return 0;
            }
            SG_TRY(run_cub_kept("selecting k-mers", [&](void *tmp, size_t &bytes) {
                return cub::DeviceSelect::If(tmp, bytes, keys, alt, d_n + 2, (int64_t)n_keys,
                                             IsKmer<K>{sg_kmer_rc((K)0, k)}, stream);
            }));
            K *x = keys;
            keys = alt;
            alt = x;
        }
        SG_TRY(run_cub_kept("sorting k-mers", [&](void *tmp, size_t &bytes) {
            return count_keys<K>(k, keys, alt, n_sort, (K *)d_run_keys, d_run_counts, d_n + 1, tmp, bytes, stream);
        }));
        SG_TRY(read_counters(2));
        sec.extract_sort += sg_realtime() - t0;
        const uint64_t valid = h_n[0];
        // the keys of windows that are not k-mers sort last, as one run
        const uint64_t runs = h_n[1] - (valid < n_sort);
        total += valid;
        batches++;
        bytes_in += b->n;
        if (!runs) return 0;
        t0 = sg_realtime();
        int r = merge_runs<K>(runs);
        sec.merge += sg_realtime() - t0;
        return r;
    }

    // A failure: said once, and from now on every call fails.
    int broke(int r)
    {
        if (!why[0]) snprintf(why, whysz, "CUDA device %d: %s", fail_device >= 0 ? fail_device : device, err);
        broken = 1;
        return r;
    }

    // Count the batch being filled (mu held, released meanwhile): the next
    // one fills while the device counts this one.
    int flush()
    {
        Batch *b = &buf[cur];
        b->busy = 1;
        cur ^= 1;
        pthread_mutex_unlock(&mu);
        int r = n_peer ? count_everywhere(b) : count_batch(b);
        pthread_mutex_lock(&mu);
        b->n = 0;
        b->busy = 0;
        pthread_cond_broadcast(&cv);
        return r < 0 ? broke(r) : 0;
    }

    // Count batch b on this device, one batch at a time.
    int count_batch(const Batch *b)
    {
        pthread_mutex_lock(&dev_mu);
        int r = dev_broken ? SG_ERR_DEVICE : wide ? run_batch<u128>(b) : run_batch<uint64_t>(b);
        if (r < 0) dev_broken = 1; // before another thread takes the device: the table may be half freed
        pthread_mutex_unlock(&dev_mu);
        return r;
    }

    struct PeerJob {
        Table *t;
        const Batch *b;
        int r;
    };

    static void *peer_thread(void *arg)
    {
        PeerJob *j = (PeerJob *)arg;
        j->r = j->t->count_batch(j->b);
        return NULL;
    }

    // Count batch b on this device and on every peer at once, a host thread
    // per peer; the first failure is this table's.
    int count_everywhere(const Batch *b)
    {
        PeerJob job[SG_MAX_DEVICES];
        pthread_t th[SG_MAX_DEVICES];
        int started[SG_MAX_DEVICES];
        for (int i = 0; i < n_peer; i++) {
            job[i] = PeerJob{peer[i], b, 0};
            started[i] = pthread_create(&th[i], NULL, peer_thread, &job[i]) == 0;
            if (!started[i]) peer_thread(&job[i]); // no thread to be had: counted here
        }
        int r = count_batch(b);
        for (int i = 0; i < n_peer; i++) {
            if (started[i]) pthread_join(th[i], NULL);
            if (job[i].r < 0 && r == 0) {
                r = job[i].r;
                snprintf(err, errsz, "%s", peer[i]->err);
                fail_device = peer[i]->device;
            }
        }
        return r;
    }

    int add(const sg_chunk_t *c)
    {
        const size_t kk = (size_t)k;
        // the k-mers starting in [0, len) lie in [0, end)
        const size_t end = c->len + (c->ov < kk - 1 ? c->ov : kk - 1);
        int r = 0;
        pthread_mutex_lock(&mu);
        // windows of starts [a, a + w), each copied with the k - 1 bases after it and a separator
        for (size_t a = 0; a < c->len && !broken;) {
            Batch *b = &buf[cur];
            if (b->busy) {
                pthread_cond_wait(&cv, &mu);
                continue;
            }
            size_t room = batch - b->n;
            if (room < kk + 1) {
                if ((r = flush()) < 0) break;
                continue;
            }
            size_t w = room - kk < c->len - a ? room - kk : c->len - a;
            size_t stop = a + w + kk - 1 < end ? a + w + kk - 1 : end;
            memcpy(b->p + b->n, c->seq + a, stop - a);
            b->n += stop - a;
            b->p[b->n++] = SG_SEP;
            a += w;
        }
        if (broken) r = SG_ERR_DEVICE;
        pthread_mutex_unlock(&mu);
        return r;
    }

    int finish()
    {
        int r = 0;
        pthread_mutex_lock(&mu);
        while (buf[cur].busy) pthread_cond_wait(&cv, &mu);
        if (buf[cur].n && !broken) r = flush();
        while (buf[0].busy || buf[1].busy) pthread_cond_wait(&cv, &mu);
        if (broken) r = SG_ERR_DEVICE;
        pthread_mutex_unlock(&mu);
        if (r < 0) return r;
        // room for the compaction: the batch buffers and the merge scratch go
        for (int i = 0; i < n_peer; i++) peer[i]->release_counting();
        release_counting();
        return 0;
    }

    void release_counting()
    {
        cudaSetDevice(local);
        free_batch_buffers();
        dev_free(m_k);
        dev_free(m_c);
        m_k = m_c = NULL;
        cap_m = 0;
    }

    // Every device's histogram, added up.
    int histogram_all(uint64_t *hist, int n)
    {
        SG_TRY(histogram_on(hist, n));
        if (!n_peer) return 0;
        uint64_t *h = (uint64_t *)sg_malloc(n * sizeof *h);
        int r = 0;
        for (int i = 0; i < n_peer && r == 0; i++) {
            if ((r = peer[i]->histogram_on(h, n)) < 0) {
                snprintf(err, errsz, "%s", peer[i]->err);
                fail_device = peer[i]->device;
            }
            for (int c = 0; c < n && r == 0; c++) hist[c] += h[c];
        }
        free(h);
        return r;
    }

    int histogram_on(uint64_t *hist, int n)
    {
        CK(cudaSetDevice(local), "cudaSetDevice");
        return histogram(hist, n);
    }

    // Every device's kept k-mers gathered into this one's table, in order.
    template <typename K> int filter_all(uint32_t min)
    {
        for (int i = 0; i < n_peer; i++) {
            int r = peer[i]->filter_on<K>(min);
            if (r < 0) {
                snprintf(err, errsz, "%s", peer[i]->err);
                fail_device = peer[i]->device;
                return r;
            }
        }
        SG_TRY(filter_on<K>(min));
        if (!n_peer) return 0;
        double t0 = sg_realtime();
        uint64_t n = n_tab;
        for (int i = 0; i < n_peer; i++) n += peer[i]->n_tab;
        void *k2 = NULL, *k3 = NULL;
        uint32_t *c2 = NULL, *c3 = NULL;
        uint64_t cap2 = 0, cap3 = 0;
        int r = regrow(&k2, &c2, &cap2, n, "gathering the kept k-mers");
        if (r == 0) r = regrow(&k3, &c3, &cap3, n, "gathering the kept k-mers");
        if (r == 0) r = gather<K>((K *)k2, c2, (K *)k3, c3, n);
        // this table's old arrays, and the unsorted or sorted copy, go whatever happened
        dev_free(tab_k);
        dev_free(tab_c);
        tab_k = k2;
        tab_c = c2;
        cap_tab = cap2;
        n_tab = r == 0 ? n : 0;
        dev_free(k3);
        dev_free(c3);
        for (int i = 0; i < n_peer; i++) peer[i]->drop_table();
        sec.filter += sg_realtime() - t0;
        return r;
    }

    // Into keys, counts (n of them, sorted): this table's kept k-mers and
    // the peers', copied across and sorted; keys2, counts2 the sort's other half.
    template <typename K> int gather(K *keys, uint32_t *counts, K *keys2, uint32_t *counts2, uint64_t n)
    {
        uint64_t at = 0;
        CK(cudaMemcpyAsync(keys2, tab_k, n_tab * kb, cudaMemcpyDeviceToDevice, stream), "gathering the kept k-mers");
        CK(cudaMemcpyAsync(counts2, tab_c, n_tab * 4, cudaMemcpyDeviceToDevice, stream), "gathering the kept k-mers");
        at = n_tab;
        for (int i = 0; i < n_peer; i++) {
            Table *p = peer[i];
            CK(cudaMemcpyPeerAsync(keys2 + at, local, p->tab_k, p->local, p->n_tab * kb, stream),
               "copying kept k-mers between devices");
            CK(cudaMemcpyPeerAsync(counts2 + at, local, p->tab_c, p->local, p->n_tab * 4, stream),
               "copying kept k-mers between devices");
            at += p->n_tab;
        }
        if (!n) return 0;
        cub::DoubleBuffer<K> dk(keys2, keys);
        cub::DoubleBuffer<uint32_t> dv(counts2, counts);
        SG_TRY(run_cub_kept("sorting the kept k-mers", [&](void *tmp, size_t &bytes) {
            return cub::DeviceRadixSort::SortPairs(tmp, bytes, dk, dv, n, 0, 2 * k, stream);
        }));
        if (dk.Current() != keys) {
            CK(cudaMemcpyAsync(keys, dk.Current(), n * kb, cudaMemcpyDeviceToDevice, stream), "sorting the kept k-mers");
            CK(cudaMemcpyAsync(counts, dv.Current(), n * 4, cudaMemcpyDeviceToDevice, stream), "sorting the kept k-mers");
        }
        CK(cudaStreamSynchronize(stream), "gathering the kept k-mers");
        return 0;
    }

    template <typename K> int filter_on(uint32_t min)
    {
        CK(cudaSetDevice(local), "cudaSetDevice");
        return filter<K>(min);
    }

    // A peer's table, once gathered.
    void drop_table()
    {
        cudaSetDevice(local);
        dev_free(tab_k);
        dev_free(tab_c);
        tab_k = NULL;
        tab_c = NULL;
        cap_tab = n_tab = 0;
    }

    int histogram(uint64_t *hist, int n)
    {
        void *d_hist;
        double t0 = sg_realtime();
        SG_TRY(dev_alloc(&d_hist, n * sizeof *hist, "the count histogram"));
        int r = histogram_into((unsigned long long *)d_hist, hist, n);
        dev_free(d_hist);
        sec.histogram += sg_realtime() - t0;
        return r;
    }

    int histogram_into(unsigned long long *d_hist, uint64_t *hist, int n)
    {
        CK(cudaMemsetAsync(d_hist, 0, n * sizeof *d_hist, stream), "the count histogram");
        if (n_tab) {
            // CUB's histogram of the clamped counts: 65537 bins of 200M counts took 3.0 ms on an H200,
            // where global atomics (the bins do not fit in shared memory) took 69 ms (bench/cub_histogram.cu)
            auto in = thrust::make_transform_iterator(tab_c, ClampCount{(uint32_t)n - 1});
            SG_TRY(run_cub_kept("the count histogram", [&](void *tmp, size_t &bytes) {
                return cub::DeviceHistogram::HistogramEven(tmp, bytes, in, d_hist, n + 1, 0u, (uint32_t)n,
                                                           (int64_t)n_tab, stream);
            }));
        }
        CK(cudaMemcpyAsync(hist, d_hist, n * sizeof *hist, cudaMemcpyDeviceToHost, stream), "the count histogram");
        CK(cudaStreamSynchronize(stream), "the count histogram");
        return 0;
    }

    template <typename K> int filter(uint32_t min)
    {
        double t0 = sg_realtime();
        void *k2;
        uint32_t *c2;
        SG_TRY(dev_alloc(&k2, n_tab * kb, "the kept k-mers"));
        int r = dev_alloc((void **)&c2, n_tab * 4, "the kept k-mers");
        if (r < 0) {
            dev_free(k2);
            return r;
        }
        const K *keys = (const K *)tab_k;
        const uint32_t *counts = tab_c;
        const uint64_t n = n_tab;
        r = run_cub_kept("filtering k-mers", [&](void *tmp, size_t &bytes) {
            // the keys, then the counts, each selected by the counts
            if (!tmp) {
                size_t a = 0, b = 0;
                cudaError_t e = cub::DeviceSelect::FlaggedIf(nullptr, a, keys, counts, (K *)k2, d_n, (int64_t)n,
                                                             AtLeast{min}, stream);
                if (e == cudaSuccess)
                    e = cub::DeviceSelect::FlaggedIf(nullptr, b, counts, counts, c2, d_n, (int64_t)n, AtLeast{min},
                                                     stream);
                bytes = a > b ? a : b;
                return e;
            }
            cudaError_t e =
                cub::DeviceSelect::FlaggedIf(tmp, bytes, keys, counts, (K *)k2, d_n, (int64_t)n, AtLeast{min}, stream);
            if (e != cudaSuccess) return e;
            return cub::DeviceSelect::FlaggedIf(tmp, bytes, counts, counts, c2, d_n, (int64_t)n, AtLeast{min}, stream);
        });
        if (r == 0) r = read_counters(1);
        // the old table goes whatever happened; the new one is the table from now on
        dev_free(tab_k);
        dev_free(tab_c);
        tab_k = k2;
        tab_c = c2;
        cap_tab = n_tab;
        n_tab = r == 0 ? h_n[0] : 0;
        sec.filter += sg_realtime() - t0;
        return r;
    }

    int take(int id, size_t n, const char *what)
    {
        int r = dev_alloc(&buf_p[id], n, what);
        return r;
    }

    void drop(int id)
    {
        dev_free(buf_p[id]);
        buf_p[id] = NULL;
    }

    template <typename T> T *at(int id) { return (T *)buf_p[id]; }

    // No kept k-mers: the empty graph.
    void empty_graph(sg_graph_t *g)
    {
        g->oriented = 1;
        g->k = k;
        g->seq = (char *)sg_malloc(1);
        g->seq_off = (uint64_t *)sg_calloc(1, sizeof *g->seq_off);
        g->kmers = (uint64_t *)sg_malloc(sizeof *g->kmers);
        g->count_sum = (double *)sg_malloc(sizeof *g->count_sum);
        sg_edge_t none;
        sg_graph_set_edges(g, &none, 0);
    }

    // Whether the compaction of n kept k-mers fits this device: its node
    // limit and its largest step's memory.
    int compact_fits(uint64_t n)
    {
        if (n >= kMaxNodes) {
            snprintf(err, errsz,
                     "%llu kept k-mers: the GPU compaction takes fewer than %llu; raise the threshold or use the cpu "
                     "backend",
                     (unsigned long long)n, (unsigned long long)kMaxNodes);
            return SG_ERR_DEVICE;
        }
        size_t free_b = 0, total_b = 0;
        CK(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
        // the ranking step is the largest: neighbour bits, seven arrays of 2n ranks and links, and the places
        const uint64_t need = n * 80;
        if (need > free_b) {
            snprintf(err, errsz,
                     "compacting %llu k-mers needs about %llu MB of device memory, %zu MB free;"
                     " raise the threshold or use the cpu backend",
                     (unsigned long long)n, (unsigned long long)(need >> 20), free_b >> 20);
            return SG_ERR_DEVICE;
        }
        return 0;
    }

    // g as the nu unitigs: koff (g->seq_off already) from k-mer offsets to
    // sequence offsets, each unitig's k-mers, and the n_edges links e (freed).
    void unitig_graph(sg_graph_t *g, uint64_t nu, uint64_t *koff, sg_edge_t *e, uint64_t n_edges)
    {
        g->oriented = 1;
        g->k = k;
        g->n = (uint32_t)nu;
        g->n_vert = 2 * g->n;
        g->kmers = (uint64_t *)sg_malloc((nu + 1) * sizeof *g->kmers);
        for (uint64_t u = 0; u < nu; u++) g->kmers[u] = koff[u + 1] - koff[u];
        for (uint64_t u = 0; u <= nu; u++) koff[u] += u * (k - 1);
        sg_graph_set_edges(g, e, n_edges);
        free(e);
    }

    template <typename K> int compact(sg_graph_t *g)
    {
        const uint64_t n = n_tab;
        const K *keys = (const K *)tab_k;
        cudaStream_t s = stream;
        SG_TRY(compact_fits(n));
        if (!n) { // nothing kept
            empty_graph(g);
            return 0;
        }

        double t0 = sg_realtime();
        SG_TRY(take(B_NB, n, "neighbour bits"));
        k_neighbours<K><<<grid(n), kThreads, 0, s>>>(keys, n, k, at<uint8_t>(B_NB));
        CK(cudaGetLastError(), "looking up neighbours");
        SG_TRY(sync_stage(&sec.neighbours, t0));

        // list ranking over the 2n oriented nodes; a second round once the cycles are cut
        t0 = sg_realtime();
        const uint64_t n2 = 2 * n;
        SG_TRY(take(B_PRED, n2 * 4, "unitig links"));
        for (int id = B_HEAD; id <= B_LOW2; id++) SG_TRY(take(id, n2 * 4, "list ranking"));
        SG_TRY(take(B_CYCLE, n * 4, "list ranking"));
        k_links<K><<<grid(n2), kThreads, 0, s>>>(keys, at<uint8_t>(B_NB), n, k, at<uint32_t>(B_PRED));
        CK(cudaGetLastError(), "linking k-mers");
        SG_TRY(rank(n));
        CK(cudaMemsetAsync(d_n, 0, sizeof *d_n, s), "finding cycles");
        // marking reads pred along the cycles, so it finishes before any cut
        k_mark_cycles<<<grid(n), kThreads, 0, s>>>(at<uint32_t>(B_PRED), n, at<uint32_t>(B_HEAD), at<uint32_t>(B_LOW),
                                                   at<uint32_t>(B_CYCLE), d_n);
        k_cut_cycles<<<grid(n2), kThreads, 0, s>>>(at<uint32_t>(B_PRED), n2, at<uint32_t>(B_CYCLE));
        CK(cudaGetLastError(), "finding cycles");
        SG_TRY(read_counters(1));
        if (h_n[0]) SG_TRY(rank(n));
        SG_TRY(take(B_START, n * 4, "unitig places"));
        SG_TRY(take(B_POS, n * 4, "unitig places"));
        SG_TRY(take(B_LEN, n * 4, "unitig places"));
        SG_TRY(take(B_ORIENT, n, "unitig places"));
        k_place<K><<<grid(n), kThreads, 0, s>>>(keys, n, k, at<uint32_t>(B_HEAD), at<uint32_t>(B_RANK),
                                                at<uint32_t>(B_CYCLE), at<uint32_t>(B_START), at<uint32_t>(B_POS),
                                                at<uint8_t>(B_ORIENT), at<uint32_t>(B_LEN));
        CK(cudaGetLastError(), "placing k-mers");
        CK(cudaStreamSynchronize(s), "placing k-mers");
        for (int id = B_PRED; id <= B_CYCLE; id++)
            if (id != B_HEAD) drop(id);

        // the unitigs in the order of their first k-mers, then each k-mer's unitig
        SG_TRY(take(B_FIRST, n * 4, "unitig order"));
        uint32_t *first = at<uint32_t>(B_FIRST);
        SG_TRY(run_cub_kept("finding unitig starts", [&](void *tmp, size_t &bytes) {
            return cub::DeviceSelect::If(tmp, bytes, thrust::counting_iterator<uint32_t>(0), first, d_n, (int64_t)n,
                                         IsFirst{at<uint32_t>(B_POS)}, s);
        }));
        SG_TRY(read_counters(1));
        const uint64_t nu = h_n[0];
        SG_TRY(take(B_UKEYS, nu * kb, "unitig order"));
        SG_TRY(take(B_UKEYS2, nu * kb, "unitig order"));
        SG_TRY(take(B_NODES2, n * 4, "unitig order"));
        k_first_keys<K><<<grid(nu), kThreads, 0, s>>>(keys, at<uint8_t>(B_ORIENT), nu, k, first, at<K>(B_UKEYS));
        CK(cudaGetLastError(), "sorting unitigs");
        cub::DoubleBuffer<K> dk(at<K>(B_UKEYS), at<K>(B_UKEYS2));
        cub::DoubleBuffer<uint32_t> dv(first, at<uint32_t>(B_NODES2));
        SG_TRY(run_cub_kept("sorting unitigs", [&](void *tmp, size_t &bytes) {
            return cub::DeviceRadixSort::SortPairs(tmp, bytes, dk, dv, nu, 0, 2 * k, s);
        }));
        if (dv.Current() != first)
            CK(cudaMemcpyAsync(first, dv.Current(), nu * sizeof *first, cudaMemcpyDeviceToDevice, s), "sorting unitigs");
        SG_TRY(take(B_UID, n * 4, "unitig numbers"));
        SG_TRY(take(B_KOFF, (nu + 1) * 8, "unitig numbers"));
        uint64_t *d_koff = at<uint64_t>(B_KOFF);
        CK(cudaMemsetAsync(d_koff + nu, 0, sizeof *d_koff, s), "numbering unitigs");
        if (nu) {
            k_number_first<<<grid(nu), kThreads, 0, s>>>(first, nu, at<uint32_t>(B_LEN), at<uint32_t>(B_NODES2), d_koff);
            k_number<<<grid(n), kThreads, 0, s>>>(n, at<uint32_t>(B_START), at<uint32_t>(B_NODES2), at<uint32_t>(B_UID));
            CK(cudaGetLastError(), "numbering unitigs");
        }
        SG_TRY(run_cub_kept("numbering unitigs", [&](void *tmp, size_t &bytes) {
            return cub::DeviceScan::ExclusiveSum(tmp, bytes, d_koff, d_koff, nu + 1, s);
        }));
        CK(cudaStreamSynchronize(s), "numbering unitigs");
        drop(B_UKEYS);
        drop(B_UKEYS2);
        drop(B_NODES2);
        uint64_t *koff = (uint64_t *)sg_malloc((nu + 1) * sizeof *koff);
        g->seq_off = koff; // becomes the sequence offsets
        CK(cudaMemcpy(koff, d_koff, (nu + 1) * sizeof *koff, cudaMemcpyDeviceToHost), "copying unitig sizes");

        // sequences and count sums, copied back
        const uint64_t seq_len = koff[nu] + nu * (k - 1);
        SG_TRY(take(B_SEQ, seq_len, "unitig sequences"));
        SG_TRY(take(B_PLACE, n * 8, "unitig counts"));
        SG_TRY(take(B_SUMS, nu * 8, "unitig counts"));
        k_spell<K><<<grid(n), kThreads, 0, s>>>(keys, tab_c, n, k, at<uint32_t>(B_UID), at<uint32_t>(B_POS),
                                                at<uint8_t>(B_ORIENT), d_koff, at<char>(B_SEQ), at<uint64_t>(B_PLACE));
        CK(cudaGetLastError(), "spelling unitigs");
        SG_TRY(run_cub_kept("spelling unitigs", [&](void *tmp, size_t &bytes) {
            return cub::DeviceSegmentedReduce::Sum(tmp, bytes, at<uint64_t>(B_PLACE), at<uint64_t>(B_SUMS),
                                                   (int64_t)nu, d_koff, d_koff + 1, s);
        }));
        SG_TRY(sync_stage(&sec.unitigs, t0));
        t0 = sg_realtime();
        g->seq = (char *)sg_malloc(seq_len + 1);
        g->count_sum = (double *)sg_malloc((nu + 1) * sizeof *g->count_sum);
        CK(cudaMemcpy(g->seq, buf_p[B_SEQ], seq_len, cudaMemcpyDeviceToHost), "copying unitig sequences");
        uint64_t *sums = (uint64_t *)sg_malloc((nu + 1) * sizeof *sums);
        cudaError_t ce = cudaMemcpy(sums, buf_p[B_SUMS], nu * sizeof *sums, cudaMemcpyDeviceToHost);
        for (uint64_t u = 0; u < nu && ce == cudaSuccess; u++) g->count_sum[u] = (double)sums[u];
        free(sums);
        CK(ce, "copying unitig counts");
        sec.d2h += sg_realtime() - t0;
        drop(B_SEQ);
        drop(B_PLACE);
        drop(B_SUMS);

        // links
        t0 = sg_realtime();
        SG_TRY(take(B_EDGES, 8 * nu * sizeof(sg_edge_t), "unitig links"));
        sg_edge_t *d_edges = at<sg_edge_t>(B_EDGES);
        if (nu) {
            k_edges<K><<<grid(8 * nu), kThreads, 0, s>>>(keys, at<uint8_t>(B_NB), n, k, first, nu,
                                                         at<uint32_t>(B_HEAD), at<uint32_t>(B_UID), at<uint32_t>(B_POS),
                                                         at<uint8_t>(B_ORIENT), at<uint32_t>(B_LEN), d_edges);
            CK(cudaGetLastError(), "linking unitigs");
        }
        // one slot per end and base, compacted in place
        SG_TRY(run_cub_kept("linking unitigs", [&](void *tmp, size_t &bytes) {
            return cub::DeviceSelect::If(tmp, bytes, d_edges, d_n, (int64_t)(8 * nu), IsEdge{}, s);
        }));
        SG_TRY(read_counters(1));
        sec.unitigs += sg_realtime() - t0;
        const uint64_t n_edges = h_n[0];
        t0 = sg_realtime();
        sg_edge_t *e = (sg_edge_t *)sg_malloc((n_edges + 1) * sizeof *e);
        ce = cudaMemcpy(e, d_edges, n_edges * sizeof *e, cudaMemcpyDeviceToHost);
        sec.d2h += sg_realtime() - t0;
        if (ce != cudaSuccess) {
            free(e);
            CK(ce, "copying unitig links");
        }

        unitig_graph(g, nu, koff, e, n_edges);
        return 0;
    }

    // List ranking by pointer jumping over pred (2n oriented nodes): head[o]
    // the first oriented node of o's path, rank[o] its distance from it,
    // low[o] the smallest node index (o / 2) met on the way. On a
    // branch-free cycle, which has no first node, low is the cycle's smallest
    // node and head[o] a node of the cycle that has a predecessor.
    int rank(uint64_t n)
    {
        const uint64_t n2 = 2 * n;
        cudaStream_t s = stream;
        uint32_t *head = at<uint32_t>(B_HEAD), *rk = at<uint32_t>(B_RANK), *low = at<uint32_t>(B_LOW);
        uint32_t *ptr2 = at<uint32_t>(B_PTR2), *rank2 = at<uint32_t>(B_RANK2), *low2 = at<uint32_t>(B_LOW2);
        // a path has at most n nodes: 2^rounds >= n jumps reach its head; an even
        // number of rounds leaves the result in head, rank, low
        int rounds = 1;
        while ((1ull << rounds) < n) rounds++;
        rounds += rounds & 1;
        k_rank_init<<<grid(n2), kThreads, 0, s>>>(at<uint32_t>(B_PRED), n2, head, rk, low);
        for (int r = 0; r < rounds; r++) {
            if (r & 1) k_jump<<<grid(n2), kThreads, 0, s>>>(n2, ptr2, rank2, low2, head, rk, low);
            else k_jump<<<grid(n2), kThreads, 0, s>>>(n2, head, rk, low, ptr2, rank2, low2);
        }
        CK(cudaGetLastError(), "ranking unitig paths");
        return 0;
    }

    int unitigs(sg_graph_t *g)
    {
        memset(g, 0, sizeof *g);
        CK(cudaSetDevice(local), "cudaSetDevice");
        memset(buf_p, 0, sizeof buf_p);
        int r = wide ? compact<u128>(g) : compact<uint64_t>(g);
        for (int id = 0; id < N_BUF; id++) drop(id);
        if (r < 0) sg_graph_free(g);
        return r;
    }

    // The stream, the batch buffers and the counters on the device just opened.
    int open(size_t want_batch)
    {
        size_t free_b = 0, total_b = 0;
        CK(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
        // batch buffers take at most an eighth of the free memory: the rest is the table's
        batch = want_batch;
        if (!batch) {
            batch = kBatchMax;
            while (batch > kBatchMin && batch_bytes(batch, kb) * 2 > free_b / 8) batch /= 2;
        }
        if (batch_bytes(batch, kb) * 2 > free_b) {
            snprintf(err, errsz, "%zu MB of device memory free, too little for one batch of %zu MB", free_b >> 20,
                     (size_t)(batch_bytes(batch, kb) * 2) >> 20);
            return SG_ERR_DEVICE;
        }
        CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
        for (int i = 0; i < 2 && !shared_host; i++)
            CK(cudaHostAlloc((void **)&buf[i].p, batch, cudaHostAllocPortable), "cudaHostAlloc (batches)");
        CK(cudaHostAlloc((void **)&h_n, 4 * sizeof *h_n, cudaHostAllocPortable), "cudaHostAlloc (counters)");
        SG_TRY(dev_alloc((void **)&d_n, 4 * sizeof *d_n, "counters"));
        SG_TRY(dev_alloc((void **)&d_text, batch, "a batch of bases"));
        SG_TRY(dev_alloc(&d_keys, batch * kb, "a batch of k-mers"));
        SG_TRY(dev_alloc(&d_alt, batch * kb, "a batch of k-mers"));
        SG_TRY(dev_alloc(&d_run_keys, batch * kb, "a batch of k-mers"));
        SG_TRY(dev_alloc((void **)&d_run_counts, batch * 4, "a batch of k-mers"));
        return 0;
    }

    void destroy()
    {
        for (int i = 0; i < n_peer; i++) {
            peer[i]->destroy();
            free(peer[i]);
        }
        n_peer = 0;
        cudaSetDevice(local);
        free_batch_buffers();
        release();
        cudaFreeHost(h_n);
        if (stream) cudaStreamDestroy(stream);
        pthread_mutex_destroy(&mu);
        pthread_mutex_destroy(&dev_mu);
        pthread_cond_destroy(&cv);
    }
};

#undef CK

// ---- the table as an sg_kmer_table_t ------------------------------------------

Table *table(const sg_kmer_table_t *kt) { return (Table *)kt->priv; }

int t_add(sg_kmer_table_t *kt, const sg_chunk_t *c) { return table(kt)->add(c); }

int t_finish(sg_kmer_table_t *kt) { return table(kt)->finish(); }

uint64_t t_distinct(const sg_kmer_table_t *kt)
{
    const Table *t = table(kt);
    uint64_t n = t->n_tab;
    for (int i = 0; i < t->n_peer; i++) n += t->peer[i]->n_tab;
    return n;
}

uint64_t t_total(const sg_kmer_table_t *kt)
{
    const Table *t = table(kt);
    uint64_t n = t->total;
    for (int i = 0; i < t->n_peer; i++) n += t->peer[i]->total;
    return n;
}

int t_histogram(sg_kmer_table_t *kt, uint64_t *hist, int n)
{
    memset(hist, 0, n * sizeof *hist);
    Table *t = table(kt);
    if (t->broken) return SG_ERR_DEVICE;
    int r = t->histogram_all(hist, n);
    return r < 0 ? t->broke(r) : 0;
}

int t_filter(sg_kmer_table_t *kt, uint32_t min)
{
    Table *t = table(kt);
    if (t->broken) return SG_ERR_DEVICE;
    int r = t->wide ? t->filter_all<u128>(min) : t->filter_all<uint64_t>(min);
    return r < 0 ? t->broke(r) : 0;
}

int t_unitigs(sg_kmer_table_t *kt, sg_graph_t *g)
{
    Table *t = table(kt);
    if (t->broken) {
        memset(g, 0, sizeof *g);
        return SG_ERR_DEVICE;
    }
    int r = t->unitigs(g);
    return r < 0 ? t->broke(r) : 0;
}

void t_stats(const sg_kmer_table_t *kt, FILE *fp)
{
    const Table *t = table(kt);
    const Seconds *s = &t->sec;
    fprintf(fp, "\"device\": \"%s\", \"batch_bytes\": %zu, \"batches\": %llu, \"bases_bytes\": %llu, "
                "\"h2d_seconds\": %.6f, \"extract_sort_seconds\": %.6f, \"merge_seconds\": %.6f, "
                "\"histogram_seconds\": %.6f, \"filter_seconds\": %.6f, \"neighbours_seconds\": %.6f, "
                "\"unitigs_seconds\": %.6f, \"d2h_seconds\": %.6f, \"peak_device_bytes\": %zu",
            t->name, t->batch, (unsigned long long)t->batches, (unsigned long long)t->bytes_in, s->h2d,
            s->extract_sort, s->merge, s->histogram, s->filter, s->neighbours, s->unitigs, s->d2h, t->dev_peak);
    // several devices: the figures above are the first's, which compacts; the others counted beside it
    fprintf(fp, ", \"devices\": [%d", t->device);
    for (int i = 0; i < t->n_peer; i++) fprintf(fp, ", %d", t->peer[i]->device);
    fputs("]", fp);
    for (int i = 0; i < t->n_peer; i++)
        fprintf(fp, ", \"device_%d_seconds\": %.6f, \"device_%d_peak_bytes\": %zu", t->peer[i]->device,
                t->peer[i]->sec.h2d + t->peer[i]->sec.extract_sort + t->peer[i]->sec.merge, t->peer[i]->device,
                t->peer[i]->dev_peak);
}

void t_free(sg_kmer_table_t *kt)
{
    Table *t = table(kt);
    t->destroy();
    free(t);
    free(kt);
}

// A table on device id counting hash part `part` of n_parts (n_parts 1: all
// k-mers), with batches of `batch` bytes (0: its choice); NULL with the
// reason in err.
Table *open_table(const sg_kmer_opts_t *o, int id, uint32_t part, uint32_t n_parts, size_t batch, int shared_host,
                  char *err, size_t errsz)
{
    Table *t = (Table *)sg_calloc(1, sizeof *t);
    t->k = o->k;
    t->wide = o->k > 31;
    t->kb = t->wide ? 16 : 8;
    t->device = id;
    t->part = part;
    t->n_parts = n_parts;
    t->shared_host = shared_host;
    t->fail_device = -1;
    t->holds = Table::holds_of;
    t->advice = "use the cpu backend, a smaller input or a larger device";
    pthread_mutex_init(&t->mu, NULL);
    pthread_mutex_init(&t->dev_mu, NULL);
    pthread_cond_init(&t->cv, NULL);
    struct cudaDeviceProp p;
    int r = sg_cuda_open_device(id, &t->local, &p, err, errsz);
    if (r == 0) {
        snprintf(t->name, sizeof t->name, "%.127s", p.name);
        if ((r = t->open(batch)) < 0) snprintf(err, errsz, "CUDA device %d: %s", id, t->err);
    }
    if (r < 0) {
        t->destroy();
        free(t);
        return NULL;
    }
    return t;
}

} // namespace

extern "C" int sg_kmer_table_cuda(const sg_kmer_opts_t *o, sg_kmer_table_t **out, char *err, size_t errsz)
{
    *out = NULL;
    const sg_devices_t *ds = sg_devices_or_default(o->devices);
    size_t batch = 0;
    const char *env = getenv("SEQGPU_CUDA_KMER_BATCH");
    if (env && (sg_parse_size(env, &batch) < 0 || batch < 2 * (size_t)o->k || batch >= ((size_t)1 << 31))) {
        snprintf(err, errsz, "invalid SEQGPU_CUDA_KMER_BATCH '%s' (bytes, at least 2k and below 2 GB)", env);
        return SG_ERR_DEVICE;
    }
    // all the devices started together (the SCC solver has, when it runs on cuda)
    if (sg_cuda_select(ds->id, ds->n, err, errsz) < 0) return SG_ERR_DEVICE;
    // the first device chooses the batch size, which every other takes
    const uint32_t n = (uint32_t)ds->n;
    Table *t = open_table(o, ds->id[0], 0, n, batch, 0, err, errsz);
    if (!t) return SG_ERR_DEVICE;
    for (uint32_t i = 1; i < n; i++) {
        Table *p = open_table(o, ds->id[i], i, n, t->batch, 1, err, errsz);
        if (!p) {
            t->destroy();
            free(t);
            return SG_ERR_DEVICE;
        }
        t->peer[t->n_peer++] = p;
    }
    if (n > 1) {
        size_t at = strlen(t->name);
        snprintf(t->name + at, sizeof t->name - at, " x%u", n);
    }
    sg_kmer_table_t *kt = (sg_kmer_table_t *)sg_calloc(1, sizeof *kt);
    kt->name = "cuda";
    kt->add = t_add;
    kt->finish = t_finish;
    kt->distinct = t_distinct;
    kt->total = t_total;
    kt->histogram = t_histogram;
    kt->filter = t_filter;
    kt->unitigs = t_unitigs;
    kt->stats = t_stats;
    kt->free = t_free;
    kt->priv = t;
    t->why = kt->err;
    t->whysz = sizeof kt->err;
    *out = kt;
    return 0;
}
