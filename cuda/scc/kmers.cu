// The k-mer table of seqgpu scc on a CUDA device (cuda/scc/backend.h): its
// counting stage and the table as an sg_kmer_table_t. The table's state and
// its other stages (the histogram and filter, the compaction into unitigs)
// are in cuda/scc/table.cuh, kmer_filter.cu and unitigs.cu.
//
// Counting: a batch's k-mers are extracted (one per thread), radix sorted
// over 2k bits and run-length encoded, then merged with the table and added
// up by key.
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

#include "cuda/scc/table.cuh"

extern "C" {
#include "core/pipeline.h"
}

namespace sg_kmer_cuda {

#define CK SG_CUDA_CHECK

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

// ---- the host driver: counting ---------------------------------------------

void Table::free_batch_buffers()
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
int Table::regrow(void **keys, uint32_t **counts, uint64_t *cap, uint64_t n, const char *what)
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
template <typename K> int Table::merge_runs(uint64_t runs)
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
template <typename K> int Table::run_batch(const Batch *b)
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
int Table::broke(int r)
{
    if (!why[0]) snprintf(why, whysz, "CUDA device %d: %s", fail_device >= 0 ? fail_device : device, err);
    broken = 1;
    return r;
}

// Count the batch being filled (mu held, released meanwhile): the next
// one fills while the device counts this one.
int Table::flush()
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
int Table::count_batch(const Batch *b)
{
    pthread_mutex_lock(&dev_mu);
    int r = dev_broken ? SG_ERR_DEVICE : wide ? run_batch<u128>(b) : run_batch<uint64_t>(b);
    if (r < 0) dev_broken = 1; // before another thread takes the device: the table may be half freed
    pthread_mutex_unlock(&dev_mu);
    return r;
}

// The tables that count a batch (this one and its peers), and their results.
struct CountJob {
    Table *t[SG_MAX_DEVICES + 1];
    const Batch *b;
    int r[SG_MAX_DEVICES + 1];
};

void count_one(void *arg, void *state, uint64_t i)
{
    (void)state;
    CountJob *j = (CountJob *)arg;
    j->r[i] = j->t[i]->count_batch(j->b);
}

// Count batch b on this device and on every peer at once, each table on a
// host thread of the loop (any of them, the caller's among them: each
// count sets its own device; one device: on the caller's); the first
// failure is this table's.
int Table::count_everywhere(const Batch *b)
{
    CountJob job;
    job.t[0] = this;
    for (int i = 0; i < n_peer; i++) job.t[i + 1] = peer[i];
    job.b = b;
    sg_parallel_for(n_peer + 1, (uint64_t)n_peer + 1, 1, count_one, &job, 0, NULL);
    int r = job.r[0];
    for (int i = 0; i < n_peer; i++)
        if (job.r[i + 1] < 0 && r == 0) {
            r = job.r[i + 1];
            snprintf(err, errsz, "%s", peer[i]->err);
            fail_device = peer[i]->device;
        }
    return r;
}

int Table::add(const sg_chunk_t *c)
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

int Table::finish()
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

void Table::release_counting()
{
    cudaSetDevice(local);
    free_batch_buffers();
    dev_free(m_k);
    dev_free(m_c);
    m_k = m_c = NULL;
    cap_m = 0;
}

// The stream, the batch buffers and the counters on the device just opened.
int Table::open(size_t want_batch)
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

void Table::destroy()
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

#undef CK

} // namespace sg_kmer_cuda

namespace {

using namespace sg_kmer_cuda;

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
    int r = t->filter_kept(min);
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
