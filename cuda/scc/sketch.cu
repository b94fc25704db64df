// The minimizer index of seqgpu scc -g overlap on a CUDA device
// (cuda/scc/backend.h, sg_mindex_t of src/scc/overlap/minimizer.h). The reads go up as the
// read set keeps them (2 bits a base, runs of other bytes aside) and are
// unpacked there; one thread sketches one read with the host's own function
// (src/scc/overlap/sketch.h): a pass that counts, a scan that places each read's
// minimizers, a pass that writes them. CUB's stable radix sort orders them by
// hash, after read and position (the order they were written in); a
// minimizer is kept when a neighbour in that order has its hash (its run is
// two or more long), and the kept ones are compacted by a scan into the
// host's records, with the first of each partition found by binary search.
// The host makes the buckets of each partition from them, on its threads,
// exactly as from its own sorted records: the same index, and so the same
// overlaps, byte for byte.
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cub/cub.cuh>

#include "core/dna.h"
#include "cuda/runtime/util.h"
#include "cuda/scc/chain.cuh"
#include "cuda/scc/backend.h"
#include "cuda/runtime/devmem.cuh"

extern "C" {
#include "core/cli.h"
#include "core/log.h"
#include "core/pipeline.h"
#include "scc/overlap/minimizer.h"
#include "scc/overlap/readset.h"
}

namespace {

constexpr int kThreads = 256;
// reads are sketched by smaller blocks: one read a thread, and a block's reads end at different times
constexpr int kSketchThreads = 64;

unsigned grid(uint64_t n, int threads = kThreads) { return sg_grid(n, threads); }
#define CK SG_CUDA_CHECK

// ---- kernels ----------------------------------------------------------------

// Bases 4 a byte, the first in the low bits, to one code a byte.
__global__ void k_unpack(const uint8_t *packed, uint64_t n_bases, uint8_t *codes)
{
    FOR_EACH(i, (n_bases + 3) / 4) {
        const uint32_t b = packed[i];
        if (4 * i + 4 <= n_bases) {
            *(uchar4 *)(codes + 4 * i) = make_uchar4(b & 3, (b >> 2) & 3, (b >> 4) & 3, b >> 6);
        } else {
            for (uint64_t j = 4 * i; j < n_bases; j++) codes[j] = (b >> (2 * (j - 4 * i))) & 3;
        }
    }
}

// The runs of bytes that are not A/C/G/T become code 4.
__global__ void k_ambiguous(const sg_readset_amb_t *amb, uint64_t n_amb, uint8_t *codes)
{
    FOR_EACH(a, n_amb) for (uint32_t j = 0; j < amb[a].len; j++) codes[amb[a].at + j] = 4;
}

// The stored reads, longest first (order), their first base and length; one a thread.
struct Reads {
    const uint32_t *order, *rid, *len;
    const uint64_t *base;
    uint32_t n;
};

__global__ void __launch_bounds__(kSketchThreads) k_count(Reads r, const uint8_t *codes, int k, int w, int hpc,
                                                          unsigned long long *cnt)
{
    FOR_EACH(t, r.n) {
        const uint32_t i = r.order[t];
        cnt[i] = sg_sketch_into(codes + r.base[i], r.len[i], k, w, hpc, NULL, 0);
    }
}

// Read i's minimizers at off[i]: hash, and read << 32 | position << 1 | strand; and their positions.
__global__ void __launch_bounds__(kSketchThreads) k_write(Reads r, const uint8_t *codes, int k, int w, int hpc,
                                                          const unsigned long long *off, sg_mini_t *mini,
                                                          uint64_t *keys, uint64_t *vals, uint32_t *mpos)
{
    FOR_EACH(t, r.n) {
        const uint32_t i = r.order[t];
        const uint64_t o = off[i], n = off[i + 1] - o;
        sg_sketch_into(codes + r.base[i], r.len[i], k, w, hpc, mini + o, n);
        const uint64_t id = (uint64_t)r.rid[i] << 32;
        for (uint64_t j = 0; j < n; j++) {
            keys[o + j] = mini[o + j].h;
            vals[o + j] = id | mini[o + j].pos << 1 | mini[o + j].rev;
            mpos[o + j] = mini[o + j].pos;
        }
    }
}

// 1 where a sorted hash has a neighbour of the same hash.
__global__ void k_flag(const uint64_t *keys, uint64_t n, uint32_t *keep)
{
    FOR_EACH(i, n) keep[i] = (i > 0 && keys[i - 1] == keys[i]) || (i + 1 < n && keys[i + 1] == keys[i]);
}

// The kept ones, to their places (pos: an exclusive scan of keep), and 1 in
// first where a bucket (a hash's run) starts.
__global__ void k_scatter(const uint64_t *keys, const uint64_t *vals, const uint32_t *keep, const uint32_t *pos,
                          uint64_t n, int hb, sg_mrec_t *out, uint32_t *first)
{
    const uint64_t lo = ((uint64_t)1 << hb) - 1;
    FOR_EACH(i, n) if (keep[i]) {
        out[pos[i]] = sg_mrec_t{(uint32_t)(keys[i] & lo), (uint32_t)(vals[i] >> 32), (uint32_t)vals[i]};
        first[pos[i]] = i == 0 || keys[i - 1] != keys[i];
    }
}

// The first kept record of each partition (part[SG_OVL_PARTS]: all of them).
__global__ void k_parts(const uint64_t *keys, uint64_t n, const uint32_t *keep, const uint32_t *pos, int hb,
                        unsigned long long *part)
{
    FOR_EACH(p, (uint64_t)SG_OVL_PARTS + 1) {
        const uint64_t first = p << hb;
        uint64_t a = 0, b = n;
        while (a < b) {
            uint64_t m = (a + b) / 2;
            if (keys[m] < first) a = m + 1;
            else b = m;
        }
        part[p] = a < n ? pos[a] : n ? pos[n - 1] + keep[n - 1] : 0;
    }
}

// ---- the driver -------------------------------------------------------------

// The pages of a fresh host buffer touched on a few threads while the device
// works: a copy from the device into pages not yet faulted in runs at a
// fraction of the bus's speed (the kernel zeroes each page on the copy's path).
struct Prefault {
    sg_pfor_bg_t bg = {};
    char *p = nullptr;

    static void touch(void *arg, void *state, uint64_t page)
    {
        (void)state;
        ((volatile char *)((Prefault *)arg)->p)[page << 12] = 0;
    }

    void start(void *buf, size_t nbytes, int threads)
    {
        p = (char *)buf;
        sg_parallel_start(&bg, threads < 1 ? 1 : threads > 16 ? 16 : threads, (nbytes + 4095) >> 12, 1024, touch,
                          this);
    }

    void join() { sg_parallel_join(&bg); }

    ~Prefault() { join(); }
};

struct Seconds {
    double init, upload, sketch, sort, select, download, total;
};

// What an out-of-memory message says the overlapper's device holds.
void overlap_holds(const DevMem *m, char *out, size_t n) { snprintf(out, n, "the overlaps of %s", m->of); }

struct Index : DevMem {
    int id, local;
    uint64_t bases; // of the reads
    sg_cuda_warm_t warm; // the CUDA context, made while the input is read
    char device[128];
    Seconds sec;
    uint64_t reads, sketched, kept;
    ChainIndex cix; // what the chaining needs, on the device from build to chain
    int have_cix;
    ChainSeconds chain;
    ChainState *cs; // from chain_plan to chain
    int hits_calls; // of chain_hits since the build

    int open()
    {
        double t0 = sg_realtime();
        sg_cuda_warm_join(&warm);
        struct cudaDeviceProp prop;
        SG_TRY(sg_cuda_open_device(id, &local, &prop, err, errsz));
        CK(cudaFree(NULL), "creating the CUDA context");
        snprintf(device, sizeof device, "%s", prop.name);
        sec.init = sg_realtime() - t0;
        return 0;
    }

    int run(const sg_readset_t *rs, const sg_ovl_opts_t *o, sg_mrec_t **out, size_t *part)
    {
        const int hb = 2 * o->k - SG_OVL_PART_BITS;
        sg_readset_stream_t st;
        sg_readset_stream(rs, &st);
        bases = st.n_bases;
        snprintf(of, sizeof of, "%llu bases of reads", (unsigned long long)bases);
        // the stored reads, and the order they are sketched in: longest first
        const uint32_t n_all = sg_readset_n(rs);
        uint32_t n = 0;
        for (uint32_t i = 0; i < n_all; i++) n += sg_readset_stored(rs, i);
        reads = n;
        SG_TRY(open());
        double t0 = sg_realtime();
        SG_TRY(check_memory(bases + bases / 4 + 32 * (size_t)n + st.n_amb * sizeof *st.amb, "unpacking the reads"));
        uint64_t *h_base;
        uint32_t *h_rid = host_reads(rs, st, n_all, n, &h_base);
        uint8_t *d_packed, *d_codes;
        sg_readset_amb_t *d_amb;
        uint32_t *d_rid;
        uint64_t *d_base;
        int r = alloc(&d_packed, (bases + 3) / 4, "the reads");
        if (r == 0) r = alloc(&d_codes, bases + 4, "the reads' bases");
        if (r == 0) r = alloc(&d_amb, st.n_amb, "the reads' other bytes");
        if (r == 0) r = alloc(&d_rid, ((size_t)n + 1) * 3, "the reads' lengths");
        if (r == 0) r = alloc(&d_base, (size_t)n + 1, "the reads' places");
        cudaError_t e = cudaSuccess;
        if (r == 0) {
            if (bases) e = cudaMemcpy(d_packed, st.packed, (bases + 3) / 4, cudaMemcpyHostToDevice);
            if (e == cudaSuccess && st.n_amb)
                e = cudaMemcpy(d_amb, st.amb, st.n_amb * sizeof *st.amb, cudaMemcpyHostToDevice);
            if (e == cudaSuccess)
                e = cudaMemcpy(d_rid, h_rid, ((size_t)n + 1) * 3 * sizeof *h_rid, cudaMemcpyHostToDevice);
            if (e == cudaSuccess) e = cudaMemcpy(d_base, h_base, ((size_t)n + 1) * sizeof *h_base, cudaMemcpyHostToDevice);
        }
        free(h_rid);
        free(h_base);
        if (r < 0) return r;
        CK(e, "copying the reads to the device");
        if (bases) k_unpack<<<grid((bases + 3) / 4), kThreads>>>(d_packed, bases, d_codes);
        if (st.n_amb) k_ambiguous<<<grid(st.n_amb), kThreads>>>(d_amb, st.n_amb, d_codes);
        SG_TRY(sync("unpacking the reads", &sec.upload, t0));
        dev_free(d_packed);
        dev_free(d_amb);

        // sketch: count, place, write
        t0 = sg_realtime();
        const Reads rd = {d_rid + 2 * ((size_t)n + 1), d_rid, d_rid + n + 1, d_base, n};
        unsigned long long *d_cnt, *d_off;
        SG_TRY(alloc(&d_cnt, (size_t)n + 1, "the minimizer counts"));
        SG_TRY(alloc(&d_off, (size_t)n + 1, "the minimizers' places"));
        CK(cudaMemset(d_cnt, 0, ((size_t)n + 1) * sizeof *d_cnt), "clearing the counts");
        if (n) k_count<<<grid(n, kSketchThreads), kSketchThreads>>>(rd, d_codes, o->k, o->w, o->hpc, d_cnt);
        SG_TRY(sync("counting minimizers", &sec.sketch, t0));
        t0 = sg_realtime();
        // exclusive sum over n + 1 entries: off[n] is the total
        SG_TRY(run_cub("placing minimizers", [&](void *tmp, size_t &bytes) {
            return cub::DeviceScan::ExclusiveSum(tmp, bytes, d_cnt, d_off, (int64_t)n + 1);
        }));
        unsigned long long total = 0;
        CK(cudaMemcpy(&total, d_off + n, sizeof total, cudaMemcpyDeviceToHost), "copying the count");
        sketched = total;
        if (total >= UINT32_MAX) {
            snprintf(err, errsz, "%llu minimizers: the cuda index takes fewer than 2^32; use the cpu backend", total);
            return SG_ERR_DEVICE;
        }
        // the host's copy of the index: at most every minimizer, its pages faulted in meanwhile
        Prefault pf;
        *out = (sg_mrec_t *)sg_malloc((total + 1) * sizeof **out);
        pf.start(*out, (total + 1) * sizeof **out, o->n_threads);
        // the sketches, then keys and values and their sorted copies, and the sort's scratch
        SG_TRY(check_memory(total * (16 + 32 + 4) + (total * 16 + (64 << 20)), "the minimizer index"));
        sg_mini_t *d_mini;
        uint64_t *d_keys[2], *d_vals[2];
        SG_TRY(alloc(&d_keys[0], total, "minimizer hashes"));
        SG_TRY(alloc(&d_vals[0], total, "minimizer places"));
        SG_TRY(alloc(&d_mini, total, "the sketches"));
        uint32_t *d_mpos;
        SG_TRY(alloc(&d_mpos, total + 1, "the minimizers' positions"));
        if (n)
            k_write<<<grid(n, kSketchThreads), kSketchThreads>>>(rd, d_codes, o->k, o->w, o->hpc, d_off, d_mini,
                                                                 d_keys[0], d_vals[0], d_mpos);
        SG_TRY(sync("sketching the reads", &sec.sketch, t0));
        dev_free(d_mini);
        dev_free(d_codes);
        dev_free(d_base);
        dev_free(d_cnt);
        // the reads' numbers and lengths, and their minimizers' positions, stay for the chaining

        // sort by hash, stably: each hash's minimizers stay in read and position order
        t0 = sg_realtime();
        SG_TRY(alloc(&d_keys[1], total, "sorted hashes"));
        SG_TRY(alloc(&d_vals[1], total, "sorted places"));
        cub::DoubleBuffer<uint64_t> dk(d_keys[0], d_keys[1]), dv(d_vals[0], d_vals[1]);
        if (total)
            SG_TRY(run_cub("sorting minimizers", [&](void *tmp, size_t &bytes) {
                return cub::DeviceRadixSort::SortPairs(tmp, bytes, dk, dv, (int64_t)total, 0, 2 * o->k);
            }));
        SG_TRY(sync("sorting minimizers", &sec.sort, t0));
        const uint64_t *keys = dk.Current(), *vals = dv.Current();
        dev_free(dk.Alternate());
        dev_free(dv.Alternate());

        // the runs of two or more, compacted into the host's records
        t0 = sg_realtime();
        uint32_t *d_keep, *d_pos;
        unsigned long long *d_part;
        SG_TRY(alloc(&d_keep, total + 1, "run flags"));
        SG_TRY(alloc(&d_pos, total + 1, "run places"));
        SG_TRY(alloc(&d_part, SG_OVL_PARTS + 1, "partitions"));
        if (total) {
            k_flag<<<grid(total), kThreads>>>(keys, total, d_keep);
            SG_TRY(run_cub("compacting minimizers", [&](void *tmp, size_t &bytes) {
                return cub::DeviceScan::ExclusiveSum(tmp, bytes, d_keep, d_pos, (int64_t)total);
            }));
        }
        k_parts<<<1, SG_OVL_PARTS + 1>>>(keys, total, d_keep, d_pos, hb, d_part);
        unsigned long long h_part[SG_OVL_PARTS + 1];
        CK(cudaMemcpy(h_part, d_part, sizeof h_part, cudaMemcpyDeviceToHost), "copying the partitions");
        kept = h_part[SG_OVL_PARTS];
        sg_mrec_t *d_out;
        uint32_t *d_first;
        SG_TRY(alloc(&d_out, kept + 1, "the index"));
        SG_TRY(alloc(&d_first, kept + 1, "the index's buckets"));
        if (total) k_scatter<<<grid(total), kThreads>>>(keys, vals, d_keep, d_pos, total, hb, d_out, d_first);
        SG_TRY(sync("compacting minimizers", &sec.select, t0));
        dev_free(d_keep);
        dev_free(d_pos);
        dev_free(d_part);
        dev_free(keys);
        dev_free(vals);
        cix = ChainIndex{d_out, d_first, kept, d_rid, d_rid + n + 1, n, d_off, d_mpos, n_all, o->k};
        have_cix = 1;

        t0 = sg_realtime();
        pf.join();
        CK(cudaMemcpy(*out, d_out, kept * sizeof **out, cudaMemcpyDeviceToHost), "copying the index to the host");
        *out = (sg_mrec_t *)sg_realloc(*out, (kept + 1) * sizeof **out);
        for (int p = 0; p <= SG_OVL_PARTS; p++) part[p] = (size_t)h_part[p];
        sec.download = sg_realtime() - t0;
        return 0;
    }

    // The n stored reads of the n_all on the host, as the sketch kernels take
    // them: their numbers rid[0, n), lengths rid[n + 1, 2n + 1) and the order
    // they are sketched in rid[2n + 2, 3n + 2), longest first; their places
    // in *base (n + 1 of them). Both arrays the caller's to free.
    static uint32_t *host_reads(const sg_readset_t *rs, const sg_readset_stream_t &st, uint32_t n_all, uint32_t n,
                                uint64_t **base)
    {
        uint32_t *h_rid = (uint32_t *)sg_malloc(((size_t)n + 1) * 3 * sizeof *h_rid), *h_len = h_rid + n + 1,
                 *h_order = h_len + n + 1;
        uint64_t *h_base = (uint64_t *)sg_malloc(((size_t)n + 1) * sizeof *h_base);
        for (uint32_t i = 0, j = 0; i < n_all; i++)
            if (sg_readset_stored(rs, i)) {
                h_rid[j] = i;
                h_len[j] = st.len[i];
                h_base[j] = st.base[i];
                h_order[j] = j;
                j++;
            }
        order_by_length(h_order, h_len, n);
        *base = h_base;
        return h_rid;
    }

    // Reads by the bit width of their length, the longest first: a warp's reads end at about the same time.
    static void order_by_length(uint32_t *order, const uint32_t *len, uint32_t n)
    {
        if (n < 2) return;
        size_t cnt[34] = {0};
        for (uint32_t i = 0; i < n; i++) cnt[33 - (32 - __builtin_clz(len[i] | 1))]++;
        for (int b = 0, sum = 0; b < 34; b++) {
            size_t c = cnt[b];
            cnt[b] = sum;
            sum += (int)c;
        }
        uint32_t *tmp = (uint32_t *)sg_malloc(n * sizeof *tmp);
        for (uint32_t i = 0; i < n; i++) tmp[cnt[33 - (32 - __builtin_clz(len[i] | 1))]++] = i;
        memcpy(order, tmp, n * sizeof *tmp);
        free(tmp);
    }
};

int x_build(sg_mindex_t *mx, const sg_readset_t *rs, const sg_ovl_opts_t *o, sg_mrec_t **out,
            size_t part[SG_OVL_PARTS + 1], uint64_t *sketched, char *err, size_t errsz)
{
    Index *x = (Index *)mx->priv;
    *out = NULL;
    memset(&x->sec, 0, sizeof x->sec);
    x->err[0] = 0;
    sg_chain_state_free(x->cs); // an earlier build's, never chained
    x->cs = nullptr;
    x->hits_calls = 0;
    x->release();
    x->have_cix = 0;
    cudaGetLastError(); // an earlier caller's error is not this run's
    double t0 = sg_realtime();
    int r = x->run(rs, o, out, part);
    x->sec.total = sg_realtime() - t0;
    if (r < 0) {
        x->release();
        x->have_cix = 0;
        snprintf(err, errsz, "CUDA device %d: %s", x->id, x->err);
        free(*out);
        *out = NULL;
        return SG_ERR_DEVICE;
    }
    *sketched = x->sketched;
    return 0;
}

// SEQGPU_CUDA_CHAIN_FAULT=STEP (plan, run or hits; hits:N for the Nth call
// of chain_hits since the build): that step of the chaining fails, for the
// tests of the fallback.
int injected(Index *x, const char *step)
{
    const char *f = getenv("SEQGPU_CUDA_CHAIN_FAULT");
    size_t n = strlen(step);
    if (!f || strncmp(f, step, n) || (f[n] && f[n] != ':')) return 0;
    if (f[n] == ':' && atoi(f + n + 1) != x->hits_calls) return 0;
    snprintf(x->err, x->errsz, "the chaining's %s step failed (SEQGPU_CUDA_CHAIN_FAULT)", step);
    return 1;
}

int x_chain_plan(sg_mindex_t *mx, uint32_t max_occ, uint32_t *used, uint8_t *host, uint64_t *hits, char *err,
                 size_t errsz)
{
    Index *x = (Index *)mx->priv;
    x->err[0] = 0;
    *hits = 0;
    *used = max_occ;
    if (!x->have_cix) {
        snprintf(err, errsz, "CUDA device %d: internal error: chaining without an index", x->id);
        return SG_ERR_DEVICE;
    }
    sg_chain_state_free(x->cs);
    int r = SG_ERR_DEVICE;
    x->cs = injected(x, "plan") ? nullptr : sg_chain_device_plan(*x, x->cix, max_occ, used, host, hits, &x->chain, &r);
    if (r < 0) {
        sg_chain_state_free(x->cs);
        x->cs = nullptr;
        x->release();
        x->have_cix = 0;
        snprintf(err, errsz, "CUDA device %d: %s", x->id, x->err);
        return SG_ERR_DEVICE;
    }
    return 0;
}

// (on a thread of its own, maybe: the device is made current here)
int x_chain(sg_mindex_t *mx, sg_chain_rec_t **out, size_t *n_out, char *err, size_t errsz)
{
    Index *x = (Index *)mx->priv;
    *out = NULL;
    *n_out = 0;
    int r = SG_ERR_DEVICE;
    x->err[0] = 0;
    if (!x->cs) snprintf(x->err, x->errsz, "internal error: chaining without a plan");
    else if (injected(x, "run")) {}
    else if (cudaSetDevice(x->local) != cudaSuccess) snprintf(x->err, x->errsz, "cannot make the device current");
    else r = sg_chain_device_run(x->cs, out, n_out);
    sg_chain_state_free(x->cs);
    x->cs = nullptr;
    x->release();
    x->have_cix = 0;
    if (r < 0) {
        snprintf(err, errsz, "CUDA device %d: %s", x->id, x->err);
        free(*out);
        *out = NULL;
        *n_out = 0;
        return SG_ERR_DEVICE;
    }
    return 0;
}

int x_chain_hits(sg_mindex_t *mx, uint32_t n, const uint32_t *q, const uint64_t *const *key, const uint64_t *const *val,
                 const uint64_t *cnt, sg_chain_rec_t **out, size_t *n_out, char *err, size_t errsz)
{
    Index *x = (Index *)mx->priv;
    x->err[0] = 0;
    x->release();
    *out = NULL;
    *n_out = 0;
    int r = SG_ERR_DEVICE;
    x->hits_calls++;
    if (cudaSetDevice(x->local) != cudaSuccess) snprintf(x->err, x->errsz, "cannot make the device current");
    else if (!injected(x, "hits")) r = sg_chain_device_hits(*x, n, q, key, val, cnt, out, n_out, &x->chain);
    x->release();
    if (r < 0) {
        snprintf(err, errsz, "CUDA device %d: %s", x->id, x->err);
        free(*out);
        *out = NULL;
        *n_out = 0;
        return SG_ERR_DEVICE;
    }
    return 0;
}

void x_stats(const sg_mindex_t *mx, FILE *fp)
{
    const Index *x = (const Index *)mx->priv;
    const Seconds *s = &x->sec;
    fprintf(fp, "\"device\": \"%s\", \"reads\": %llu, \"bases\": %llu, \"minimizers\": %llu, \"indexed\": %llu, "
                "\"device_bytes_peak\": %zu, \"seconds\": {\"init\": %.4f, \"upload\": %.4f, \"sketch\": %.4f, "
                "\"sort\": %.4f, \"select\": %.4f, \"download\": %.4f, \"total\": %.4f}",
            x->device, (unsigned long long)x->reads, (unsigned long long)x->bases, (unsigned long long)x->sketched,
            (unsigned long long)x->kept, x->dev_peak, s->init, s->upload, s->sketch, s->sort, s->select, s->download,
            s->total);
    const ChainSeconds *c = &x->chain;
    fprintf(fp, ", \"chain\": {\"device_reads\": %llu, \"host_reads\": %llu, \"hits\": %llu, \"batches\": %u, "
                "\"chains\": %llu, \"seconds\": {\"flag\": %.4f, \"hits\": %.4f, \"upload\": %.4f, \"sort\": %.4f, \"bands\": %.4f, "
                "\"chain\": %.4f, \"download\": %.4f, \"total\": %.4f}}",
            (unsigned long long)c->device_reads, (unsigned long long)c->host_reads, (unsigned long long)c->hits,
            c->batches, (unsigned long long)c->chains, c->flag, c->hits_s, c->upload, c->sort, c->bands, c->chain, c->download,
            c->total);
}

void x_free(sg_mindex_t *mx)
{
    Index *x = (Index *)mx->priv;
    sg_cuda_warm_join(&x->warm);
    sg_chain_state_free(x->cs);
    x->release();
    free(x);
    free(mx);
}

} // namespace

extern "C" int sg_mindex_cuda(const sg_graph_opts_t *o, sg_mindex_t **out, char *err, size_t errsz)
{
    *out = NULL;
    const int id = sg_devices_or_default(o->devices)->id[0];
    // what can be known before CUDA starts: the device is listed and reported
    if (sg_cuda_select(&id, 1, err, errsz) < 0 || sg_cuda_precheck(id, err, errsz) < 0) return SG_ERR_DEVICE;
    Index *x = (Index *)sg_calloc(1, sizeof *x);
    x->id = id;
    x->holds = overlap_holds;
    // the CUDA context is made on a thread of its own while the reads are read
    sg_cuda_warm_start(&x->warm, x->id);
    sg_mindex_t *mx = (sg_mindex_t *)sg_calloc(1, sizeof *mx);
    mx->name = "cuda";
    mx->build = x_build;
    mx->chain_plan = x_chain_plan;
    mx->chain = x_chain;
    mx->chain_hits = x_chain_hits;
    mx->stats = x_stats;
    mx->free = x_free;
    mx->priv = x;
    *out = mx;
    return 0;
}
