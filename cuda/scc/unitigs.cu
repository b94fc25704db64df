// The k-mer table's compaction into unitigs on a CUDA device
// (cuda/scc/table.cuh): every kept k-mer's neighbours by binary search, each
// oriented node linked to the one before it in its unitig, the paths ranked
// by pointer jumping (branch-free cycles cut at their smallest node), each
// node placed in its unitig's canonical form, and the unitigs, their counts
// and their links spelled on the device.
#include <stdint.h>
#include <string.h>

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "cuda/scc/table.cuh"

namespace sg_kmer_cuda {

#define CK SG_CUDA_CHECK

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

// No kept k-mers: the empty graph.
void Table::empty_graph(sg_graph_t *g)
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
int Table::compact_fits(uint64_t n)
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
void Table::unitig_graph(sg_graph_t *g, uint64_t nu, uint64_t *koff, sg_edge_t *e, uint64_t n_edges)
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

template <typename K> int Table::compact(sg_graph_t *g)
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
int Table::rank(uint64_t n)
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

int Table::unitigs(sg_graph_t *g)
{
    memset(g, 0, sizeof *g);
    CK(cudaSetDevice(local), "cudaSetDevice");
    memset(buf_p, 0, sizeof buf_p);
    int r = wide ? compact<u128>(g) : compact<uint64_t>(g);
    for (int id = 0; id < N_BUF; id++) drop(id);
    if (r < 0) sg_graph_free(g);
    return r;
}

#undef CK

} // namespace sg_kmer_cuda
