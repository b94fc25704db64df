// The k-mer table's histogram and filter on a CUDA device (cuda/scc/table.cuh):
// the count histogram by CUB, the solid k-mers (count >= the threshold)
// selected into a new table and, with several devices, every device's kept
// k-mers gathered on the first one and sorted there.
#include <stdint.h>
#include <string.h>

#include <cub/cub.cuh>
#include <thrust/iterator/transform_iterator.h>

#include "cuda/scc/table.cuh"

namespace sg_kmer_cuda {

#define CK SG_CUDA_CHECK

// A count as a histogram bin: the last bin takes every count from it on.
struct ClampCount {
    uint32_t top;
    __device__ __forceinline__ uint32_t operator()(uint32_t c) const { return c < top ? c : top; }
};

struct AtLeast {
    uint32_t min;
    __device__ __forceinline__ bool operator()(uint32_t c) const { return c >= min; }
};

// Every device's histogram, added up.
int Table::histogram_all(uint64_t *hist, int n)
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

int Table::histogram_on(uint64_t *hist, int n)
{
    CK(cudaSetDevice(local), "cudaSetDevice");
    return histogram(hist, n);
}

// Every device's kept k-mers gathered into this one's table, in order.
template <typename K> int Table::filter_all(uint32_t min)
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
template <typename K> int Table::gather(K *keys, uint32_t *counts, K *keys2, uint32_t *counts2, uint64_t n)
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

template <typename K> int Table::filter_on(uint32_t min)
{
    CK(cudaSetDevice(local), "cudaSetDevice");
    return filter<K>(min);
}

// A peer's table, once gathered.
void Table::drop_table()
{
    cudaSetDevice(local);
    dev_free(tab_k);
    dev_free(tab_c);
    tab_k = NULL;
    tab_c = NULL;
    cap_tab = n_tab = 0;
}

int Table::histogram(uint64_t *hist, int n)
{
    void *d_hist;
    double t0 = sg_realtime();
    SG_TRY(dev_alloc(&d_hist, n * sizeof *hist, "the count histogram"));
    int r = histogram_into((unsigned long long *)d_hist, hist, n);
    dev_free(d_hist);
    sec.histogram += sg_realtime() - t0;
    return r;
}

int Table::histogram_into(unsigned long long *d_hist, uint64_t *hist, int n)
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

template <typename K> int Table::filter(uint32_t min)
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

// The kept k-mers (count >= min) of every device, in this table: filter_all
// for its key type.
int Table::filter_kept(uint32_t min) { return wide ? filter_all<u128>(min) : filter_all<uint64_t>(min); }

#undef CK

} // namespace sg_kmer_cuda
