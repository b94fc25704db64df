// The overlapper's chaining on a CUDA device (sg_mindex_t chain of
// src/scc/overlap/minimizer.h), from the index that cuda/scc/sketch.cu leaves there. The
// host's query of a read q (src/scc/overlap/hits.c) pairs each of q's minimizers
// with the occurrences before it in its bucket; here each occurrence of the
// index makes those hits itself (its bucket is sorted by read and position,
// so they are the bucket's entries before q's run and q's after it), read
// by read in batches that fit the device:
//   1. flags: the reads that take the repeat path (a bucket above max_occ, or
//      a bucket held more than SG_REP_MAX_PER_READ times) are left to the
//      host; the others' hits are counted, atomically per read;
//   2. hits: an exclusive scan places each read's, one pass writes them;
//   3. sort: CUB's segmented sort orders each read's by key (t, strand,
//      diagonal), as the host's radix sort;
//   4. bands: a flag where a read, a group or a band starts, a scan numbers
//      the bands, and a second segmented sort orders each band by val;
//   5. chain: one thread a band runs the host's own chaining of its windows
//      (src/scc/overlap/chain.h) and appends each chain of SG_CHAIN_MIN_ANCHORS or
//      more hits with the read's minimizers in its span; the chains are
//      sorted by band and window, the host's order, and go to the host.
// The host turns the chains into overlaps as it does its own: the same
// overlaps, byte for byte.
#include <stdlib.h>
#include <string.h>

#include <cub/cub.cuh>

#include "cuda/scc/chain.cuh"

namespace {

constexpr int kThreads = 256;
// a band a thread: bands end at different times, so smaller blocks
constexpr int kChainThreads = 64;

#define CK SG_CUDA_CHECK

unsigned grid(uint64_t n, int threads = kThreads) { return sg_grid(n, threads); }

// ---- kernels ----------------------------------------------------------------

// Each stored read's length and index j, by read number.
__global__ void k_reads(ChainIndex ix, uint32_t *len_of, uint32_t *j_of)
{
    FOR_EACH(j, ix.n_stored) {
        len_of[ix.rid[j]] = ix.len[j];
        j_of[ix.rid[j]] = (uint32_t)j;
    }
}

// The first record of each bucket (bno: an inclusive scan of first).
__global__ void k_bucket_begin(const uint32_t *first, const uint32_t *bno, uint64_t n, uint32_t *begin)
{
    FOR_EACH(i, n) if (first[i]) begin[bno[i] - 1] = (uint32_t)i;
}

struct Bucket {
    uint32_t bs, be; // the bucket's records
    uint32_t rs, re; // the run of the record's read in it
};

__device__ Bucket bucket_of(const sg_mrec_t *rec, const uint32_t *bno, const uint32_t *begin, uint64_t i)
{
    Bucket b;
    const uint32_t x = bno[i] - 1, rid = rec[i].rid;
    b.bs = begin[x];
    b.be = begin[x + 1];
    b.rs = (uint32_t)i;
    while (b.rs > b.bs && rec[b.rs - 1].rid == rid) b.rs--;
    b.re = (uint32_t)i + 1;
    while (b.re < b.be && rec[b.re].rid == rid) b.re++;
    return b;
}

// The occurrences in buckets of each size (the last bin: that size or more), for max_occ.
__global__ void k_occ_hist(const uint32_t *begin, uint32_t n_bkt, unsigned long long *hist)
{
    __shared__ unsigned long long h[SG_OVL_OCC_HIST];
    for (uint32_t i = threadIdx.x; i < SG_OVL_OCC_HIST; i += blockDim.x) h[i] = 0;
    __syncthreads();
    FOR_EACH(b, n_bkt) {
        const uint32_t n = begin[b + 1] - begin[b];
        atomicAdd(&h[n < SG_OVL_OCC_HIST - 1 ? n : SG_OVL_OCC_HIST - 1], (unsigned long long)n);
    }
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < SG_OVL_OCC_HIST; i += blockDim.x)
        if (h[i]) atomicAdd(&hist[i], h[i]);
}

// The reads that take the repeat path: a bucket above max_occ, or a bucket
// they hold more than SG_REP_MAX_PER_READ times.
__global__ void k_repeat(const sg_mrec_t *rec, const uint32_t *bno, const uint32_t *begin, uint64_t n, uint32_t max_occ,
                         uint8_t *rep)
{
    FOR_EACH(i, n) {
        const uint32_t x = bno[i] - 1, size = begin[x + 1] - begin[x], rid = rec[i].rid;
        if (size > max_occ) {
            rep[rid] = 1;
        } else if (size > SG_REP_MAX_PER_READ && (i == begin[x] || rec[i - 1].rid != rid)) {
            uint64_t e = i + 1;
            while (e < begin[x + 1] && rec[e].rid == rid) e++;
            if (e - i > SG_REP_MAX_PER_READ) rep[rid] = 1;
        }
    }
}

// The hits of each read that is not a repeat read: those of each of its
// occurrences with the bucket's entries of reads before it and its own
// later ones.
__global__ void k_count(const sg_mrec_t *rec, const uint32_t *bno, const uint32_t *begin, uint64_t n, const uint8_t *rep,
                        unsigned long long *cnt)
{
    FOR_EACH(i, n) {
        const uint32_t q = rec[i].rid;
        if (rep[q]) continue;
        const Bucket b = bucket_of(rec, bno, begin, i);
        const uint32_t c = (b.rs - b.bs) + (b.re - (uint32_t)i - 1);
        if (c) atomicAdd(&cnt[q], (unsigned long long)c);
    }
}

// The hits of reads r0..r1-1 to their reads' places: off[q - r0], cur[q - r0] counting up.
__global__ void k_fill(const sg_mrec_t *rec, const uint32_t *bno, const uint32_t *begin, uint64_t n, const uint8_t *rep,
                       const uint32_t *len_of, int k, uint32_t r0, uint32_t r1, const uint32_t *off, uint32_t *cur,
                       uint64_t *key, uint64_t *val)
{
    FOR_EACH(i, n) {
        const uint32_t q = rec[i].rid;
        if (q < r0 || q >= r1 || rep[q]) continue;
        const Bucket b = bucket_of(rec, bno, begin, i);
        const uint32_t c = (b.rs - b.bs) + (b.re - (uint32_t)i - 1);
        if (!c) continue;
        uint64_t o = off[q - r0] + atomicAdd(&cur[q - r0], c);
        const uint32_t qpos = rec[i].ps >> 1, qrev = rec[i].ps & 1;
        auto put = [&](uint32_t j) {
            sg_hit_make(qpos, qrev, rec[j].rid, rec[j].ps, len_of[rec[j].rid], k, 0, &key[o], &val[o]);
            o++;
        };
        for (uint32_t j = b.bs; j < b.rs; j++) put(j);               // the reads before q
        for (uint32_t j = (uint32_t)i + 1; j < b.re; j++) put(j);    // q's own, after this one
    }
}

// 1 where a band starts: a new group (t and strand) or a gap of diagonals.
__global__ void k_band_flags(const uint64_t *key, uint64_t n, uint32_t *flag)
{
    FOR_EACH(h, n) flag[h] = h == 0 || (key[h] >> 31) != (key[h - 1] >> 31) ||
                             sg_hit_diag(key[h]) - sg_hit_diag(key[h - 1]) > SG_CHAIN_GAP;
}

// And where a read's hits start.
__global__ void k_read_flags(const uint32_t *off, uint32_t nq, uint32_t *flag)
{
    FOR_EACH(i, nq) if (off[i + 1] > off[i]) flag[off[i]] = 1;
}

__global__ void k_band_begin(const uint32_t *flag, const uint32_t *bandno, uint64_t n, uint32_t *begin)
{
    FOR_EACH(h, n) if (flag[h]) begin[bandno[h] - 1] = (uint32_t)h;
}

struct DevChain {
    unsigned long long order; // band << 32 | window
    sg_chain_rec_t r;
};

struct Scratch {
    uint8_t *used;
    uint32_t *cand, *order, *start;
    uint64_t *cv;
    int32_t *tail, *pred;
};

// The minimizers of read q (index j) at positions lo to hi - 1.
__device__ uint32_t minimizers_in(const ChainIndex &ix, uint32_t j, uint32_t lo, uint32_t hi)
{
    const uint32_t *p = ix.mpos + ix.moff[j];
    const uint32_t n = (uint32_t)(ix.moff[j + 1] - ix.moff[j]);
    return sg_first_at(p, n, hi) - sg_first_at(p, n, lo);
}

__device__ void emit(const ChainIndex &ix, const uint32_t *j_of, uint32_t q, uint64_t key0, uint64_t band, uint32_t w,
                     const sg_chain_t &c, DevChain *out, unsigned long long cap, unsigned long long *count)
{
    if (c.n < SG_CHAIN_MIN_ANCHORS) return;
    const unsigned long long at = atomicAdd(count, 1ull);
    if (at >= cap) return; // counted: the host runs the batch again with room for all
    DevChain d;
    d.order = band << 32 | w;
    d.r.q = q;
    d.r.t = (uint32_t)(key0 >> 32);
    d.r.rev = (uint32_t)(key0 >> 31) & 1;
    d.r.n_all = j_of ? minimizers_in(ix, j_of[q], sg_hit_qpos(c.first), sg_hit_qpos(c.last) + 1) : 0;
    d.r.c = c;
    out[at] = d;
}

// One band a thread: its windows chained as the host chains them.
__global__ void __launch_bounds__(kChainThreads) k_chain(const uint64_t *val, const uint64_t *key, const uint32_t *bbegin,
                                                         uint32_t n_bands, const uint32_t *off, uint32_t nq, uint32_t r0,
                                                         const uint32_t *qid, ChainIndex ix, const uint32_t *j_of,
                                                         Scratch s, DevChain *out, unsigned long long cap,
                                                         unsigned long long *count)
{
    FOR_EACH(b, n_bands) {
        const uint32_t h0 = bbegin[b], m = bbegin[b + 1] - h0;
        if (m < SG_CHAIN_MIN_ANCHORS) continue;
        const uint64_t *V = val + h0, *K = key + h0;
        int64_t d_first = sg_hit_diag(K[0]), d_last = d_first;
        for (uint32_t i = 1; i < m; i++) {
            const int64_t d = sg_hit_diag(K[i]);
            d_first = d < d_first ? d : d_first;
            d_last = d > d_last ? d : d_last;
        }
        uint8_t *used = s.used + h0;
        for (uint32_t i = 0; i < m; i++) used[i] = 0;
        // the read: the last whose hits start at or before h0
        uint32_t lo = 0, hi = nq + 1;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (off[mid] <= h0) lo = mid + 1;
            else hi = mid;
        }
        const uint32_t q = qid ? qid[lo - 1] : r0 + lo - 1;
        sg_chain_t c;
        if (!sg_chain_wide(d_first, d_last)) {
            sg_chain_window(V, 1, NULL, m, NULL, 0, used, s.cand + h0, s.cv + h0, s.tail + h0, s.pred + h0, &c);
            emit(ix, j_of, q, K[0], b, 0, c, out, cap, count);
            continue;
        }
        uint32_t *order = s.order + h0, *start = s.start + h0;
        const uint32_t n_sl = sg_chain_slices(K, 1, m, d_first, d_last, order, start);
        for (uint32_t w = 0; w < n_sl; w++) {
            const uint32_t nb = w + 1 < n_sl ? start[w + 2] - start[w + 1] : 0;
            sg_chain_window(V, 1, order + start[w], start[w + 1] - start[w], order + start[w + 1], nb, used,
                            s.cand + h0, s.cv + h0, s.tail + h0, s.pred + h0, &c);
            emit(ix, j_of, q, K[0], b, w, c, out, cap, count);
            if (sg_chain_last_window(d_first, d_last, w)) break;
        }
    }
}

__global__ void k_order_keys(const DevChain *c, uint64_t n, unsigned long long *keys, uint32_t *idx)
{
    FOR_EACH(i, n) {
        keys[i] = c[i].order;
        idx[i] = (uint32_t)i;
    }
}

__global__ void k_gather(const DevChain *c, const uint32_t *idx, uint64_t n, sg_chain_rec_t *out)
{
    FOR_EACH(i, n) out[i] = c[idx[i]].r;
}

// ---- the driver -------------------------------------------------------------

// Device bytes a hit takes through a batch: keys and values twice (the
// sorts), band flags and numbers, its band's start, and the chaining's
// scratch (used, cand, cv, tail, pred, order, start).
constexpr size_t kHitBytes = 32 + 4 + 4 + 4 + 1 + 4 + 8 + 4 + 4 + 4 + 4;
// A batch's offsets are 32-bit, and the chaining's indices 31-bit.
constexpr uint64_t kBatchMax = ((uint64_t)1 << 31) - 1;

// Segments (reads) in batches of at most cap hits, one segment at least.
struct Batches {
    uint64_t cap = 0, biggest = 0;
    uint32_t most = 0; // segments in a batch

    void plan(const uint64_t *cnt, uint32_t n, uint64_t cap_)
    {
        cap = cap_;
        for (uint32_t a = 0, b; a < n; a = b) {
            uint64_t acc = next(cnt, n, a, &b);
            biggest = acc > biggest ? acc : biggest;
            most = b - a > most ? b - a : most;
        }
    }

    // The batch from segment a: its end *b, its hits.
    uint64_t next(const uint64_t *cnt, uint32_t n, uint32_t a, uint32_t *b) const
    {
        uint64_t acc = 0;
        for (*b = a; *b < n && (*b == a || acc + cnt[*b] <= cap); (*b)++) acc += cnt[*b];
        return acc;
    }
};

struct Chainer {
    DevMem &m;
    ChainSeconds *sec;
    char *err;
    size_t errsz;
    const char *what = "chaining the hits";
    // a batch's buffers, for the biggest batch
    uint64_t *key[2], *val[2];
    uint32_t *flag, *bandno, *bbeg, *off, *cur, *qid;
    Scratch s;
    unsigned long long *count, chain_cap;
    DevChain *chains;
    // the chains so far, on the host
    sg_chain_rec_t *out = nullptr;
    size_t n_out = 0, m_out = 0;

    Chainer(DevMem &mem, ChainSeconds *sc) : m(mem), sec(sc), err(mem.err), errsz(mem.errsz) {}

    template <typename T> int alloc(T **p, size_t n, const char *w) { return m.alloc(p, n + 1, w); }

    // The most hits a batch takes: what fits in 70% of the free memory (or SEQGPU_CUDA_CHAIN_BATCH).
    int batch_cap(uint64_t *cap)
    {
        size_t free_b;
        SG_TRY(m.free_memory(&free_b));
        *cap = sg_chain_batch_env(free_b / 10 * 7 / kHitBytes); // the tests force many batches so
        if (*cap > kBatchMax) *cap = kBatchMax;
        return 0;
    }

    int alloc_batch(const Batches &b)
    {
        if (b.biggest > kBatchMax) { // one read's (a batch holds one read at least)
            snprintf(err, errsz, "a read has %llu minimizer hits, more than the device's chaining takes (2^31)",
                     (unsigned long long)b.biggest);
            return SG_ERR_DEVICE;
        }
        SG_TRY(m.check_memory(b.biggest * kHitBytes, what));
        const uint64_t n = b.biggest;
        SG_TRY(alloc(&key[0], n, "hits"));
        SG_TRY(alloc(&key[1], n, "sorted hits"));
        SG_TRY(alloc(&val[0], n, "hits"));
        SG_TRY(alloc(&val[1], n, "sorted hits"));
        SG_TRY(alloc(&flag, n, "band flags"));
        SG_TRY(alloc(&bandno, n, "band numbers"));
        SG_TRY(alloc(&bbeg, n + 1, "bands"));
        SG_TRY(alloc(&off, (size_t)b.most + 1, "the reads' hits"));
        SG_TRY(alloc(&cur, (size_t)b.most + 1, "the reads' hits"));
        SG_TRY(alloc(&qid, (size_t)b.most + 1, "the reads"));
        SG_TRY(alloc(&s.used, n, "chaining scratch"));
        SG_TRY(alloc(&s.cand, n, "chaining scratch"));
        SG_TRY(alloc(&s.cv, n, "chaining scratch"));
        SG_TRY(alloc(&s.tail, n, "chaining scratch"));
        SG_TRY(alloc(&s.pred, n, "chaining scratch"));
        SG_TRY(alloc(&s.order, n, "chaining scratch"));
        SG_TRY(alloc(&s.start, n, "chaining scratch")); // a wide band's slices: fewer than its hits
        SG_TRY(alloc(&count, 1, "the chain count"));
        const char *room = getenv("SEQGPU_CUDA_CHAIN_ROOM"); // small: the tests reach the second pass
        chain_cap = room && *room && atoll(room) > 0 ? (unsigned long long)atoll(room) : n / 32 + 4096;
        SG_TRY(alloc(&chains, chain_cap, "the chains"));
        return 0;
    }

    // Steps 3 to 5 of a batch of nq reads whose acc hits are in key[0] and
    // val[0], read i's at off[i] (off[nq] = acc); read i is r0 + i, or qids[i]
    // when qids (on the device) is given. n_all from ix when j_of is given.
    int chain_batch(uint64_t acc, uint32_t nq, uint32_t r0, const uint32_t *qids, const ChainIndex &ix,
                    const uint32_t *j_of)
    {
        sec->batches++;
        // 3. each read's by key
        double t0 = sg_realtime();
        cub::DoubleBuffer<uint64_t> dk(key[0], key[1]), dv(val[0], val[1]);
        SG_TRY(m.run_cub("sorting hits", [&](void *tmp, size_t &bytes) {
            return cub::DeviceSegmentedSort::StableSortPairs(tmp, bytes, dk, dv, (int64_t)acc, (int64_t)nq, off, off + 1);
        }));
        SG_TRY(m.sync(what, &sec->sort, t0));
        // 4. bands, each by val
        t0 = sg_realtime();
        k_band_flags<<<grid(acc), kThreads>>>(dk.Current(), acc, flag);
        k_read_flags<<<grid(nq), kThreads>>>(off, nq, flag);
        SG_TRY(m.run_cub("numbering bands", [&](void *tmp, size_t &bytes) {
            return cub::DeviceScan::InclusiveSum(tmp, bytes, flag, bandno, (int64_t)acc);
        }));
        uint32_t n_bands = 0;
        SG_CUDA_CHECK(cudaMemcpy(&n_bands, bandno + acc - 1, sizeof n_bands, cudaMemcpyDeviceToHost), "copying the band count");
        const uint32_t acc32 = (uint32_t)acc;
        SG_CUDA_CHECK(cudaMemcpy(bbeg + n_bands, &acc32, sizeof acc32, cudaMemcpyHostToDevice), "the bands' end");
        k_band_begin<<<grid(acc), kThreads>>>(flag, bandno, acc, bbeg);
        cub::DoubleBuffer<uint64_t> bk(dv.Current(), dv.Alternate()), bv(dk.Current(), dk.Alternate());
        SG_TRY(m.run_cub("sorting bands", [&](void *tmp, size_t &bytes) {
            return cub::DeviceSegmentedSort::StableSortPairs(tmp, bytes, bk, bv, (int64_t)acc, (int64_t)n_bands, bbeg,
                                                             bbeg + 1);
        }));
        SG_TRY(m.sync(what, &sec->bands, t0));
        // 5. the chains, in the host's order
        t0 = sg_realtime();
        unsigned long long n_ch = 0;
        for (int pass = 0; pass < 2; pass++) {
            SG_CUDA_CHECK(cudaMemset(count, 0, sizeof *count), "clearing the chain count");
            k_chain<<<grid(n_bands, kChainThreads), kChainThreads>>>(bk.Current(), bv.Current(), bbeg, n_bands, off, nq,
                                                                     r0, qids, ix, j_of, s, chains, chain_cap, count);
            SG_CUDA_CHECK(cudaMemcpy(&n_ch, count, sizeof n_ch, cudaMemcpyDeviceToHost), "copying the chain count");
            if (n_ch <= chain_cap) break;
            m.dev_free(chains); // more chains than room: again, with room for all
            chain_cap = n_ch + n_ch / 4;
            SG_TRY(alloc(&chains, chain_cap, "the chains"));
        }
        SG_TRY(m.sync(what, &sec->chain, t0));
        t0 = sg_realtime();
        if (n_ch) {
            unsigned long long *ok[2];
            uint32_t *idx[2];
            sg_chain_rec_t *sorted;
            SG_TRY(alloc(&ok[0], n_ch, "chain order"));
            SG_TRY(alloc(&ok[1], n_ch, "chain order"));
            SG_TRY(alloc(&idx[0], n_ch, "chain order"));
            SG_TRY(alloc(&idx[1], n_ch, "chain order"));
            SG_TRY(alloc(&sorted, n_ch, "sorted chains"));
            k_order_keys<<<grid(n_ch), kThreads>>>(chains, n_ch, ok[0], idx[0]);
            cub::DoubleBuffer<unsigned long long> ck(ok[0], ok[1]);
            cub::DoubleBuffer<uint32_t> ci(idx[0], idx[1]);
            SG_TRY(m.run_cub("sorting chains", [&](void *tmp, size_t &bytes) {
                return cub::DeviceRadixSort::SortPairs(tmp, bytes, ck, ci, (int64_t)n_ch);
            }));
            k_gather<<<grid(n_ch), kThreads>>>(chains, ci.Current(), n_ch, sorted);
            SG_CUDA_CHECK(cudaGetLastError(), "gathering chains");
            if (n_out + n_ch > m_out) {
                m_out = (n_out + n_ch) * 5 / 4 + 1024;
                out = (sg_chain_rec_t *)sg_realloc(out, m_out * sizeof *out);
            }
            SG_CUDA_CHECK(cudaMemcpy(out + n_out, sorted, n_ch * sizeof *out, cudaMemcpyDeviceToHost), "copying the chains");
            n_out += n_ch;
            m.dev_free(sorted);
            m.dev_free(ok[0]);
            m.dev_free(ok[1]);
            m.dev_free(idx[0]);
            m.dev_free(idx[1]);
        }
        sec->download += sg_realtime() - t0;
        return 0;
    }

    // The index's reads (sg_mindex_t chain_plan, then chain): what stays on
    // the device between the two, and the batches planned on the host.
    ChainIndex ix;
    uint32_t nr = 0;
    uint32_t *len_of, *j_of, *bno, *bbegin;
    unsigned long long *cnt;
    uint8_t *rep;
    uint64_t *cnt64 = nullptr;
    Batches plan_b;

    ~Chainer() { free(cnt64); }

    int plan(const ChainIndex &x, uint32_t max_occ, uint32_t *used, uint8_t *host, uint64_t *hits)
    {
        ix = x;
        double t0 = sg_realtime();
        nr = ix.n_reads;
        SG_TRY(alloc(&len_of, nr, "the reads' lengths"));
        SG_TRY(alloc(&j_of, nr, "the reads' places"));
        SG_TRY(alloc(&cnt, nr, "the reads' hit counts"));
        SG_TRY(alloc(&rep, nr, "the repeat reads"));
        SG_TRY(alloc(&bno, ix.n_rec, "the buckets' numbers"));
        SG_CUDA_CHECK(cudaMemset(len_of, 0, ((size_t)nr + 1) * sizeof *len_of), "clearing the lengths");
        SG_CUDA_CHECK(cudaMemset(j_of, 0xff, ((size_t)nr + 1) * sizeof *j_of), "clearing the places");
        SG_CUDA_CHECK(cudaMemset(cnt, 0, ((size_t)nr + 1) * sizeof *cnt), "clearing the counts");
        SG_CUDA_CHECK(cudaMemset(rep, 0, (size_t)nr + 1), "clearing the flags");
        if (ix.n_stored) k_reads<<<grid(ix.n_stored), kThreads>>>(ix, len_of, j_of);
        uint32_t n_bkt = 0;
        if (ix.n_rec) {
            SG_TRY(m.run_cub("numbering the buckets", [&](void *tmp, size_t &bytes) {
                return cub::DeviceScan::InclusiveSum(tmp, bytes, ix.first, bno, (int64_t)ix.n_rec);
            }));
            SG_CUDA_CHECK(cudaMemcpy(&n_bkt, bno + ix.n_rec - 1, sizeof n_bkt, cudaMemcpyDeviceToHost),
                          "copying the bucket count");
        }
        SG_TRY(alloc(&bbegin, (size_t)n_bkt + 1, "the buckets"));
        const uint32_t n_rec32 = (uint32_t)ix.n_rec;
        SG_CUDA_CHECK(cudaMemcpy(bbegin + n_bkt, &n_rec32, sizeof n_rec32, cudaMemcpyHostToDevice), "the buckets' end");
        if (ix.n_rec) k_bucket_begin<<<grid(ix.n_rec), kThreads>>>(ix.first, bno, ix.n_rec, bbegin);
        if (!max_occ) { // the host's choice, from the same counts
            unsigned long long *d_hist;
            uint64_t hist[SG_OVL_OCC_HIST];
            SG_TRY(alloc(&d_hist, SG_OVL_OCC_HIST, "the bucket sizes"));
            SG_CUDA_CHECK(cudaMemset(d_hist, 0, SG_OVL_OCC_HIST * sizeof *d_hist), "clearing the bucket sizes");
            if (n_bkt) k_occ_hist<<<grid(n_bkt), kThreads>>>(bbegin, n_bkt, d_hist);
            SG_CUDA_CHECK(cudaMemcpy(hist, d_hist, sizeof hist, cudaMemcpyDeviceToHost), "copying the bucket sizes");
            m.dev_free(d_hist);
            max_occ = sg_ovl_max_occ(hist);
        }
        *used = max_occ;
        if (ix.n_rec) {
            k_repeat<<<grid(ix.n_rec), kThreads>>>(ix.rec, bno, bbegin, ix.n_rec, max_occ, rep);
            k_count<<<grid(ix.n_rec), kThreads>>>(ix.rec, bno, bbegin, ix.n_rec, rep, cnt);
        }
        SG_TRY(m.sync("counting hits", &sec->flag, t0));
        // the counts and flags to the host, the batches planned there
        uint8_t *h_rep = (uint8_t *)sg_malloc((size_t)nr + 1);
        uint32_t *h_j = (uint32_t *)sg_malloc(((size_t)nr + 1) * sizeof *h_j);
        cnt64 = (uint64_t *)sg_malloc(((size_t)nr + 1) * sizeof *cnt64);
        cudaError_t e = cudaMemcpy(h_rep, rep, nr, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess) e = cudaMemcpy(cnt64, cnt, (size_t)nr * sizeof *cnt64, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess) e = cudaMemcpy(h_j, j_of, (size_t)nr * sizeof *h_j, cudaMemcpyDeviceToHost);
        int r = e == cudaSuccess ? 0 : sg_cuda_fail(err, errsz, "copying the hit counts", e);
        uint64_t total = 0;
        for (uint32_t i = 0; r == 0 && i < nr; i++) {
            total += cnt64[i];
            if (h_j[i] == UINT32_MAX) continue; // not stored
            host[i] = h_rep[i];
            sec->host_reads += h_rep[i];
            sec->device_reads += !h_rep[i];
        }
        free(h_rep);
        free(h_j);
        sec->hits = *hits = total;
        uint64_t cap = 0;
        if (r == 0) r = batch_cap(&cap);
        if (r == 0) {
            plan_b.plan(cnt64, nr, cap);
            r = alloc_batch(plan_b);
        }
        return r;
    }

    int run()
    {
        int r = 0;
        for (uint32_t r0 = 0, r1; r == 0 && r0 < nr; r0 = r1) {
            const uint64_t acc = plan_b.next(cnt64, nr, r0, &r1);
            if (!acc) continue;
            const uint32_t nq = r1 - r0;
            // 2. the hits, each read's at its place
            double t0 = sg_realtime();
            SG_TRY(m.run_cub("placing hits", [&](void *tmp, size_t &bytes) {
                return cub::DeviceScan::ExclusiveSum(tmp, bytes, cnt + r0, off, (int64_t)nq + 1);
            }));
            SG_CUDA_CHECK(cudaMemset(cur, 0, ((size_t)nq + 1) * sizeof *cur), "clearing the cursors");
            k_fill<<<grid(ix.n_rec), kThreads>>>(ix.rec, bno, bbegin, ix.n_rec, rep, len_of, ix.k, r0, r1, off, cur,
                                                 key[0], val[0]);
            r = m.sync(what, &sec->hits_s, t0);
            if (r == 0) r = chain_batch(acc, nq, r0, nullptr, ix, j_of);
        }
        return r;
    }

    // Hits made on the host (sg_mindex_t chain_hits).
    int host_hits(uint32_t n, const uint32_t *q, const uint64_t *const *hkey, const uint64_t *const *hval,
                  const uint64_t *cnt)
    {
        uint32_t *o32 = (uint32_t *)sg_malloc(((size_t)n + 1) * sizeof *o32);
        Batches b;
        uint64_t cap = 0;
        int r = batch_cap(&cap);
        if (r == 0) {
            b.plan(cnt, n, cap);
            r = alloc_batch(b);
        }
        const ChainIndex none = {};
        for (uint32_t a = 0, e; r == 0 && a < n; a = e) {
            const uint64_t acc = b.next(cnt, n, a, &e);
            if (!acc) continue;
            double t0 = sg_realtime();
            o32[0] = 0;
            for (uint32_t i = a; i < e; i++) o32[i - a + 1] = o32[i - a] + (uint32_t)cnt[i];
            cudaError_t ce = cudaMemcpy(off, o32, ((size_t)(e - a) + 1) * sizeof *o32, cudaMemcpyHostToDevice);
            if (ce == cudaSuccess) ce = cudaMemcpy(qid, q + a, (size_t)(e - a) * sizeof *q, cudaMemcpyHostToDevice);
            for (uint32_t i = a; i < e && ce == cudaSuccess; i++) {
                ce = cudaMemcpyAsync(key[0] + o32[i - a], hkey[i], cnt[i] * sizeof **hkey, cudaMemcpyHostToDevice);
                if (ce == cudaSuccess)
                    ce = cudaMemcpyAsync(val[0] + o32[i - a], hval[i], cnt[i] * sizeof **hval, cudaMemcpyHostToDevice);
            }
            if (ce == cudaSuccess) ce = cudaDeviceSynchronize();
            if (ce != cudaSuccess) r = sg_cuda_fail(err, errsz, "copying the hits to the device", ce);
            sec->upload += sg_realtime() - t0;
            if (r == 0) r = chain_batch(acc, e - a, 0, qid, none, nullptr);
        }
        free(o32);
        return r;
    }
};

} // namespace

struct ChainState {
    Chainer c;
    ChainState(DevMem &m, ChainSeconds *sec) : c(m, sec) {}
};

ChainState *sg_chain_device_plan(DevMem &m, const ChainIndex &ix, uint32_t max_occ, uint32_t *used, uint8_t *host,
                                 uint64_t *hits, ChainSeconds *sec, int *r)
{
    memset(sec, 0, sizeof *sec);
    ChainState *st = new ChainState(m, sec);
    double t0 = sg_realtime();
    *r = st->c.plan(ix, max_occ, used, host, hits);
    sec->total = sg_realtime() - t0;
    return st;
}

int sg_chain_device_run(ChainState *st, sg_chain_rec_t **out, size_t *n_out)
{
    double t0 = sg_realtime();
    int r = st->c.run();
    st->c.sec->total += sg_realtime() - t0;
    *out = st->c.out;
    *n_out = st->c.n_out;
    st->c.out = nullptr;
    st->c.sec->chains = *n_out;
    return r;
}

void sg_chain_state_free(ChainState *st)
{
    if (st) free(st->c.out);
    delete st;
}

int sg_chain_device_hits(DevMem &m, uint32_t n, const uint32_t *q, const uint64_t *const *key,
                         const uint64_t *const *val, const uint64_t *cnt, sg_chain_rec_t **out, size_t *n_out,
                         ChainSeconds *sec)
{
    Chainer c(m, sec);
    double t0 = sg_realtime();
    int r = c.host_hits(n, q, key, val, cnt);
    sec->total += sg_realtime() - t0;
    *out = c.out;
    *n_out = c.n_out;
    sec->chains += c.n_out;
    return r;
}
