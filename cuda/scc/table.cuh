// The k-mer table of seqgpu scc on a CUDA device: the host driver's state
// (struct Table) and what its stages share. Each stage is a file of its own:
// cuda/scc/kmers.cu counts the batches (and is the sg_kmer_table_t),
// cuda/scc/kmer_filter.cu gives the histogram and keeps the solid k-mers,
// cuda/scc/unitigs.cu compacts them into unitigs on the device. Keys are
// canonical k-mers in 64-bit (k <= 31) or 128-bit words, kept sorted; the
// driver's steps are templates over the key type K, chosen once per call of
// the interface. Oriented nodes: node j read forward is 2j, read as its
// reverse complement 2j + 1.
#ifndef SG_CUDA_SCC_TABLE_CUH
#define SG_CUDA_SCC_TABLE_CUH

#include <pthread.h>
#include <stdint.h>

#include "core/dna.h"
#include "cuda/runtime/devmem.cuh"
#include "cuda/runtime/util.h"
#include "cuda/scc/backend.h"

extern "C" {
#include "core/cli.h"
#include "core/log.h"
}

namespace sg_kmer_cuda {

typedef sg_kmer128_t u128;

constexpr int kThreads = 256;
constexpr uint32_t kNone = UINT32_MAX; // no node, no link

// Blocks for a grid-stride loop (FOR_EACH) over n items.
inline unsigned grid(uint64_t n) { return sg_grid(n, kThreads); }

// ---- the host driver ------------------------------------------------------------

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
inline uint64_t batch_bytes(uint64_t n, size_t kb) { return n * (1 + 3 * kb + 4); }

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
        SG_CUDA_CHECK(cudaMemcpyAsync(h_n, d_n, n * sizeof *d_n, cudaMemcpyDeviceToHost, stream), "copying counters");
        SG_CUDA_CHECK(cudaStreamSynchronize(stream), "running the k-mer kernels");
        return 0;
    }

    int sync_stage(double *s, double t0)
    {
        SG_CUDA_CHECK(cudaStreamSynchronize(stream), "running the k-mer kernels");
        *s += sg_realtime() - t0;
        return 0;
    }

    int take(int id, size_t n, const char *what) { return dev_alloc(&buf_p[id], n, what); }

    void drop(int id)
    {
        dev_free(buf_p[id]);
        buf_p[id] = NULL;
    }

    template <typename T> T *at(int id) { return (T *)buf_p[id]; }

    // counting (cuda/scc/kmers.cu)
    void free_batch_buffers();
    int regrow(void **keys, uint32_t **counts, uint64_t *cap, uint64_t n, const char *what);
    template <typename K> int merge_runs(uint64_t runs);
    template <typename K> int run_batch(const Batch *b);
    int broke(int r);
    int flush();
    int count_batch(const Batch *b);
    int count_everywhere(const Batch *b);
    int add(const sg_chunk_t *c);
    int finish();
    void release_counting();
    int open(size_t want_batch);
    void destroy();

    // the histogram and the filter (cuda/scc/kmer_filter.cu)
    int histogram_all(uint64_t *hist, int n);
    int histogram_on(uint64_t *hist, int n);
    template <typename K> int filter_all(uint32_t min);
    template <typename K> int gather(K *keys, uint32_t *counts, K *keys2, uint32_t *counts2, uint64_t n);
    template <typename K> int filter_on(uint32_t min);
    void drop_table();
    int histogram(uint64_t *hist, int n);
    int histogram_into(unsigned long long *d_hist, uint64_t *hist, int n);
    template <typename K> int filter(uint32_t min);
    int filter_kept(uint32_t min); // filter_all for this table's key type

    // the compaction (cuda/scc/unitigs.cu)
    void empty_graph(sg_graph_t *g);
    int compact_fits(uint64_t n);
    void unitig_graph(sg_graph_t *g, uint64_t nu, uint64_t *koff, sg_edge_t *e, uint64_t n_edges);
    template <typename K> int compact(sg_graph_t *g);
    int rank(uint64_t n);
    int unitigs(sg_graph_t *g);
};

} // namespace sg_kmer_cuda

#endif
