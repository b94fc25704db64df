/* The CUDA backend: chunks go through a few slots per device, each a stream
 * with a pinned staging buffer and device buffers. Several scan calls run at
 * once (one per slot), so the copy of one chunk, the kernels of another and
 * the host's parsing and formatting of others overlap; hits are compacted on
 * the device through an atomic counter, and a chunk whose hits overflow the
 * buffer is scanned again with a larger one, so none is lost. */
#define _GNU_SOURCE
#include "cuda_backend.h"
#include "find_kernels.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "../src/cli.h"
#include "../src/kernels.h"
#include "../src/log.h"

#define SLOTS_PER_DEVICE 4
#define CHUNK_DEFAULT ((size_t)64 << 20)
#define CHUNK_MIN ((size_t)1 << 20)
#define TILE 2048 /* text is padded to a multiple of this: the vector kernel reads whole warp tiles */
#define VECTOR_MAX 32 /* patterns above which auto prefers the q-gram kernel */
#define MAX_DEVICES 64

typedef struct {
    int id;
    char name[128];
    sg_dlimits_t lim;
    uint8_t *masks; /* the plan, on this device */
    sg_dpat_t *pats;
    uint32_t *sunday_ids, *vector_ids;
    unsigned long long *qbits;
    uint32_t *slot_key, *slot_start, *slot_n, *ent;
} device_t;

typedef struct {
    device_t *dev;
    cudaStream_t stream;
    cudaEvent_t ev[4];
    char *pinned;                /* staging for the chunk's text */
    uint8_t *text;               /* the text on the device */
    size_t cap;                  /* bytes of both */
    unsigned long long *hits;    /* device hit buffer */
    size_t hits_cap;
    unsigned long long *count;   /* device counter, and its pinned copy */
    unsigned long long *h_count;
    int busy;
} slot_t;

typedef struct {
    const sg_motif_set_t *ms;
    sg_plan_t plan;
    long fault_at;          /* SEQGPU_CUDA_FAULT=N: the Nth chunk's kernel faults (for tests) */
    int skip_masked;
    uint32_t masks_len;
    int vector_max_len;
    device_t dev[MAX_DEVICES];
    int n_dev;
    slot_t *slot;
    int n_slot;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    sg_backend_t *fallback; /* under auto: the cpu backend takes over if a device fails */
    int broken;
    /* statistics, under mu */
    double h2d_ms, kernel_ms, d2h_ms;
    uint64_t h2d_bytes, d2h_bytes, text_bytes, chunks, rescans;
} cuda_t;

static int cuda_fail(char *err, size_t errsz, const char *what, cudaError_t e)
{
    snprintf(err, errsz, "%s: %s", what, cudaGetErrorString(e));
    return SG_ERR_DEVICE;
}

#define CK(call, what)                                                       \
    do {                                                                     \
        cudaError_t e_ = (call);                                             \
        if (e_ != cudaSuccess) return cuda_fail(err, errsz, what, e_);       \
    } while (0)

static int upload(void **dst, const void *src, size_t n, char *err, size_t errsz)
{
    *dst = NULL;
    if (!n) return 0;
    CK(cudaMalloc(dst, n), "cudaMalloc (motif tables)");
    CK(cudaMemcpy(*dst, src, n, cudaMemcpyHostToDevice), "cudaMemcpy (motif tables)");
    return 0;
}

/* The plan's tables on device d. */
static int upload_plan(cuda_t *st, device_t *d, char *err, size_t errsz)
{
    const sg_motif_set_t *ms = st->ms;
    uint8_t *masks = sg_malloc(st->masks_len + 1);
    sg_dpat_t *pats = sg_malloc((ms->n_pat + 1) * sizeof *pats);
    uint32_t off = 0;
    for (int i = 0; i < ms->n_pat; i++) {
        memcpy(masks + off, ms->pat[i].mask, ms->pat[i].len);
        pats[i] = (sg_dpat_t){off, (uint32_t)ms->pat[i].len, ms->pat[i].rank};
        off += ms->pat[i].len;
    }
    int r = upload((void **)&d->masks, masks, st->masks_len, err, errsz);
    if (!r) r = upload((void **)&d->pats, pats, ms->n_pat * sizeof *pats, err, errsz);
    if (!r) r = upload((void **)&d->sunday_ids, st->plan.sunday, st->plan.n_sunday * sizeof(int), err, errsz);
    if (!r) r = upload((void **)&d->vector_ids, st->plan.vector, st->plan.n_vector * sizeof(int), err, errsz);
    if (!r && st->plan.qgram) {
        sg_qgram_view_t v;
        sg_qgram_view(st->plan.qgram, &v);
        size_t slots = (size_t)v.slot_mask + 1;
        r = upload((void **)&d->qbits, v.bits, v.n_bits_words * 8, err, errsz);
        if (!r) r = upload((void **)&d->slot_key, v.slot_key, slots * 4, err, errsz);
        if (!r) r = upload((void **)&d->slot_start, v.slot_start, slots * 4, err, errsz);
        if (!r) r = upload((void **)&d->slot_n, v.slot_n, slots * 4, err, errsz);
        if (!r) r = upload((void **)&d->ent, v.ent, v.n_ent * 12, err, errsz);
    }
    free(masks);
    free(pats);
    return r;
}

static size_t text_bytes_for(size_t len) { return (len + TILE - 1) / TILE * TILE + TILE + SG_DEV_PAD; }

/* Make slot s hold text of len bytes and hits hits; device memory is
 * replaced, not grown in place. */
static int slot_reserve(slot_t *s, size_t len, size_t hits, char *err, size_t errsz)
{
    size_t need = text_bytes_for(len);
    if (need > s->cap) {
        if (s->pinned) cudaFreeHost(s->pinned);
        if (s->text) cudaFree(s->text);
        s->pinned = NULL;
        s->text = NULL;
        s->cap = 0;
        CK(cudaHostAlloc((void **)&s->pinned, need, cudaHostAllocPortable), "cudaHostAlloc (text staging)");
        CK(cudaMalloc((void **)&s->text, need), "cudaMalloc (text)");
        s->cap = need;
    }
    if (hits > s->hits_cap) {
        if (s->hits) cudaFree(s->hits);
        s->hits = NULL;
        s->hits_cap = 0;
        CK(cudaMalloc((void **)&s->hits, hits * sizeof *s->hits), "cudaMalloc (hits)");
        s->hits_cap = hits;
    }
    return 0;
}

static int slot_init(slot_t *s, device_t *d, size_t chunk, char *err, size_t errsz)
{
    s->dev = d;
    CK(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking), "cudaStreamCreate");
    for (int i = 0; i < 4; i++) CK(cudaEventCreate(&s->ev[i]), "cudaEventCreate");
    CK(cudaMalloc((void **)&s->count, sizeof *s->count), "cudaMalloc (counter)");
    CK(cudaHostAlloc((void **)&s->h_count, sizeof *s->h_count, cudaHostAllocPortable), "cudaHostAlloc (counter)");
    return slot_reserve(s, chunk, chunk / 64 + 4096, err, errsz);
}

static void slot_free(slot_t *s)
{
    if (!s->dev) return;
    cudaSetDevice(s->dev->id);
    if (s->stream) cudaStreamDestroy(s->stream);
    for (int i = 0; i < 4; i++)
        if (s->ev[i]) cudaEventDestroy(s->ev[i]);
    cudaFreeHost(s->pinned);
    cudaFreeHost(s->h_count);
    cudaFree(s->text);
    cudaFree(s->hits);
    cudaFree(s->count);
}

static void device_free(device_t *d)
{
    cudaSetDevice(d->id);
    void *p[] = {d->masks, d->pats, d->sunday_ids, d->vector_ids, d->qbits, d->slot_key, d->slot_start, d->slot_n, d->ent};
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) cudaFree(p[i]);
}

static void cuda_destroy(sg_backend_t *be)
{
    cuda_t *st = be->priv;
    for (int i = 0; i < st->n_slot; i++) slot_free(&st->slot[i]);
    for (int i = 0; i < st->n_dev; i++) device_free(&st->dev[i]);
    if (st->fallback) st->fallback->free(st->fallback);
    sg_plan_free(&st->plan);
    pthread_mutex_destroy(&st->mu);
    pthread_cond_destroy(&st->cv);
    free(st->slot);
    free(st);
    free(be);
}

/* One chunk on one slot: copy in, scan, copy the hits out (scanning again
 * with a larger hit buffer if it overflowed). */
static int scan_on(cuda_t *st, slot_t *s, const sg_chunk_t *c, sg_hits_t *hits, char *err, size_t errsz)
{
    device_t *d = s->dev;
    size_t len = c->len + c->ov;
    CK(cudaSetDevice(d->id), "cudaSetDevice");
    int r = slot_reserve(s, len, 0, err, errsz);
    if (r < 0) return r;
    size_t bytes = text_bytes_for(len);
    memcpy(s->pinned, c->seq, len);
    memset(s->pinned + len, SG_SEP, bytes - len);
    sg_dscan_t a = {
        .text = s->text, .n_start = c->len, .skip_masked = st->skip_masked,
        .masks = d->masks, .pats = d->pats, .masks_len = st->masks_len,
        .sunday_ids = d->sunday_ids, .n_sunday = st->plan.n_sunday,
        .vector_ids = d->vector_ids, .n_vector = st->plan.n_vector, .vector_max_len = st->vector_max_len,
    };
    if (st->plan.qgram) {
        sg_qgram_view_t v;
        sg_qgram_view(st->plan.qgram, &v);
        a.q = v.q;
        a.max_off = v.max_off;
        a.qbits = d->qbits;
        a.qbits_words = v.n_bits_words;
        a.slot_key = d->slot_key;
        a.slot_start = d->slot_start;
        a.slot_n = d->slot_n;
        a.slot_mask = v.slot_mask;
        a.ent = d->ent;
    }
    CK(cudaEventRecord(s->ev[0], s->stream), "cudaEventRecord");
    CK(cudaMemcpyAsync(s->text, s->pinned, bytes, cudaMemcpyHostToDevice, s->stream), "copying text to the device");
    CK(cudaEventRecord(s->ev[1], s->stream), "cudaEventRecord");
    pthread_mutex_lock(&st->mu);
    int fault = st->fault_at && (long)++st->chunks == st->fault_at;
    pthread_mutex_unlock(&st->mu);
    if (fault) a.text = (const uint8_t *)16; /* a real fault: the kernel reads an unmapped address */
    unsigned long long n;
    int rescans = 0;
    for (;;) {
        a.hits = s->hits;
        a.n_hits = s->count;
        a.cap = s->hits_cap;
        CK(cudaMemsetAsync(s->count, 0, sizeof *s->count, s->stream), "cudaMemsetAsync");
        CK(sg_cuda_scan(&a, &d->lim, s->stream), "launching the scan kernels");
        CK(cudaEventRecord(s->ev[2], s->stream), "cudaEventRecord");
        CK(cudaMemcpyAsync(s->h_count, s->count, sizeof *s->count, cudaMemcpyDeviceToHost, s->stream),
           "copying the hit count");
        CK(cudaStreamSynchronize(s->stream), "running the scan kernels");
        n = *s->h_count;
        if (n <= s->hits_cap) break;
        /* too many hits for the buffer: none was lost, the count is exact; scan again */
        if ((r = slot_reserve(s, len, n + n / 4, err, errsz)) < 0) return r;
        rescans++;
    }
    sg_hits_grow(hits, hits->n + n);
    if (n)
        CK(cudaMemcpyAsync(hits->a + hits->n, s->hits, n * sizeof *s->hits, cudaMemcpyDeviceToHost, s->stream),
           "copying hits from the device");
    CK(cudaEventRecord(s->ev[3], s->stream), "cudaEventRecord");
    CK(cudaStreamSynchronize(s->stream), "copying hits from the device");
    hits->n += n;
    float t_h2d = 0, t_kernel = 0, t_d2h = 0;
    cudaEventElapsedTime(&t_h2d, s->ev[0], s->ev[1]);
    cudaEventElapsedTime(&t_kernel, s->ev[1], s->ev[2]); /* the last scan, if rescanned */
    cudaEventElapsedTime(&t_d2h, s->ev[2], s->ev[3]);
    pthread_mutex_lock(&st->mu);
    st->h2d_ms += t_h2d;
    st->kernel_ms += t_kernel;
    st->d2h_ms += t_d2h;
    st->h2d_bytes += bytes;
    st->d2h_bytes += n * sizeof *s->hits;
    st->text_bytes += c->len;
    st->rescans += rescans;
    pthread_mutex_unlock(&st->mu);
    return 0;
}

static int cuda_scan(sg_backend_t *be, const sg_chunk_t *c, sg_hits_t *hits)
{
    cuda_t *st = be->priv;
    pthread_mutex_lock(&st->mu);
    slot_t *s = NULL;
    while (!st->broken && !s) {
        for (int i = 0; i < st->n_slot && !s; i++)
            if (!st->slot[i].busy) s = &st->slot[i];
        if (!s) pthread_cond_wait(&st->cv, &st->mu);
    }
    if (s) s->busy = 1;
    pthread_mutex_unlock(&st->mu);
    if (!s) return st->fallback ? st->fallback->scan(st->fallback, c, hits) : SG_ERR_DEVICE;

    char err[512];
    size_t before = hits->n;
    int r = scan_on(st, s, c, hits, err, sizeof err);
    pthread_mutex_lock(&st->mu);
    s->busy = 0;
    int first_failure = r < 0 && !st->broken;
    if (r < 0) st->broken = 1;
    pthread_cond_broadcast(&st->cv);
    pthread_mutex_unlock(&st->mu);
    if (r == 0) return 0;
    hits->n = before;
    if (!st->fallback) {
        sg_error("CUDA device %d: %s", s->dev->id, err);
        return SG_ERR_DEVICE;
    }
    if (first_failure) sg_warn("CUDA device %d: %s; the cpu backend scans the rest", s->dev->id, err);
    return st->fallback->scan(st->fallback, c, hits);
}

static void cuda_stats(sg_backend_t *be, FILE *fp)
{
    cuda_t *st = be->priv;
    double h2d = st->h2d_ms / 1e3, kern = st->kernel_ms / 1e3, d2h = st->d2h_ms / 1e3;
    fprintf(fp, "  \"device\": {\"name\": \"%s\", \"devices\": %d, \"streams\": %d, \"chunks\": %llu, "
                "\"text_bytes\": %llu, \"h2d_bytes\": %llu, \"d2h_bytes\": %llu, \"h2d_seconds\": %.4f, "
                "\"kernel_seconds\": %.4f, \"d2h_seconds\": %.4f, \"kernel_gbps\": %.1f, \"h2d_gbps\": %.1f, "
                "\"rescans\": %llu, \"fell_back_to_cpu\": %s},\n",
            st->dev[0].name, st->n_dev, st->n_slot, (unsigned long long)st->chunks,
            (unsigned long long)st->text_bytes, (unsigned long long)st->h2d_bytes, (unsigned long long)st->d2h_bytes,
            h2d, kern, d2h, kern > 0 ? st->text_bytes / kern / 1e9 : 0.0, h2d > 0 ? st->h2d_bytes / h2d / 1e9 : 0.0,
            (unsigned long long)st->rescans, st->broken ? "true" : "false");
}

static int parse_devices(const char *s, int *ids, int *n, char *err, size_t errsz)
{
    *n = 0;
    if (!s) {
        ids[(*n)++] = 0;
        return 0;
    }
    char *copy = sg_strdup(s), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long v;
        if (*n == MAX_DEVICES || sg_parse_int(t, 0, 1023, &v) < 0) {
            snprintf(err, errsz, "invalid --device '%s' (GPU indices such as 0 or 0,1)", s);
            free(copy);
            return SG_ERR_INPUT;
        }
        ids[(*n)++] = (int)v;
    }
    free(copy);
    if (!*n) {
        snprintf(err, errsz, "invalid --device '%s' (GPU indices such as 0 or 0,1)", s);
        return SG_ERR_INPUT;
    }
    return 0;
}

/* Device memory one slot needs for chunks of this size. */
static size_t slot_bytes(size_t chunk) { return text_bytes_for(chunk) + (chunk / 64 + 4096) * 8 + 64; }

static int open_devices(cuda_t *st, const sg_backend_opts_t *o, size_t *chunk, char *err, size_t errsz)
{
    int ids[MAX_DEVICES], n_ids, count = 0;
    int r = parse_devices(o->device, ids, &n_ids, err, errsz);
    if (r < 0) return r;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorInsufficientDriver) {
        snprintf(err, errsz, "no CUDA driver (libcuda.so.1), or one older than this build's CUDA %d.%d runtime",
                 CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
        return SG_ERR_DEVICE;
    }
    if (e != cudaSuccess) return cuda_fail(err, errsz, "no CUDA device", e);
    if (count == 0) {
        snprintf(err, errsz, "no CUDA device");
        return SG_ERR_DEVICE;
    }
    size_t limit = 0;
    const char *cap = getenv("SEQGPU_CUDA_MEM_LIMIT"); /* for testing out-of-memory paths */
    if (cap && sg_parse_size(cap, &limit) < 0) {
        snprintf(err, errsz, "invalid SEQGPU_CUDA_MEM_LIMIT '%s'", cap);
        return SG_ERR_INPUT;
    }
    *chunk = CHUNK_DEFAULT;
    for (int i = 0; i < n_ids; i++) {
        if (ids[i] >= count) {
            snprintf(err, errsz, "no CUDA device %d (this machine has %d)", ids[i], count);
            return SG_ERR_DEVICE;
        }
        device_t *d = &st->dev[st->n_dev++];
        d->id = ids[i];
        struct cudaDeviceProp p;
        CK(cudaSetDevice(d->id), "cudaSetDevice");
        CK(cudaGetDeviceProperties(&p, d->id), "cudaGetDeviceProperties");
        if (p.major < 7 || (p.major == 7 && p.minor < 5)) {
            snprintf(err, errsz, "CUDA device %d (%s) has compute capability %d.%d; seqgpu needs 7.5 or newer", d->id,
                     p.name, p.major, p.minor);
            return SG_ERR_DEVICE;
        }
        snprintf(d->name, sizeof d->name, "%.127s", p.name);
        d->lim.n_sm = p.multiProcessorCount;
        d->lim.smem_optin = p.sharedMemPerBlockOptin;
        CK(sg_cuda_prepare(&d->lim), "setting kernel attributes");
        if ((r = upload_plan(st, d, err, errsz)) < 0) return r;
        size_t free_b = 0, total_b = 0;
        CK(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
        if (limit && limit < free_b) free_b = limit;
        /* batch size from the free memory: halve the chunk until the slots fit in 80% of it */
        while (*chunk > CHUNK_MIN && SLOTS_PER_DEVICE * slot_bytes(*chunk) > free_b / 10 * 8) *chunk /= 2;
        if (SLOTS_PER_DEVICE * slot_bytes(*chunk) > free_b / 10 * 8) {
            snprintf(err, errsz, "CUDA device %d has %zu MB free, too little for %d batches of %zu MB", d->id,
                     free_b >> 20, SLOTS_PER_DEVICE, *chunk >> 20);
            return SG_ERR_DEVICE;
        }
    }
    st->n_slot = st->n_dev * SLOTS_PER_DEVICE;
    st->slot = sg_calloc(st->n_slot, sizeof *st->slot);
    for (int i = 0; i < st->n_slot; i++) {
        device_t *d = &st->dev[i % st->n_dev];
        CK(cudaSetDevice(d->id), "cudaSetDevice");
        if ((r = slot_init(&st->slot[i], d, *chunk, err, errsz)) < 0) return r;
    }
    return 0;
}

int sg_backend_cuda(const sg_backend_opts_t *o, sg_backend_t **out, char *err, size_t errsz)
{
    cuda_t *st = sg_calloc(1, sizeof *st);
    st->ms = o->motifs;
    st->skip_masked = o->skip_masked;
    pthread_mutex_init(&st->mu, NULL);
    pthread_cond_init(&st->cv, NULL);
    sg_backend_t *be = sg_calloc(1, sizeof *be);
    be->priv = st;
    be->free = cuda_destroy;
    int r = sg_plan_make(o->motifs, o->kernel ? o->kernel : "auto", VECTOR_MAX, &st->plan, err, errsz);
    if (r < 0) {
        free(st);
        free(be);
        return r;
    }
    const char *fault = getenv("SEQGPU_CUDA_FAULT");
    st->fault_at = fault ? atol(fault) : 0;
    for (int i = 0; i < o->motifs->n_pat; i++) {
        st->masks_len += o->motifs->pat[i].len;
        if (o->motifs->pat[i].len > st->vector_max_len) st->vector_max_len = o->motifs->pat[i].len;
    }
    size_t chunk;
    if ((r = open_devices(st, o, &chunk, err, errsz)) < 0) {
        cuda_destroy(be);
        return r;
    }
    if (o->fallback && (r = sg_backend_cpu(o, &st->fallback, err, errsz)) < 0) {
        cuda_destroy(be);
        return r;
    }
    be->name = "cuda";
    be->max_par = st->n_slot;
    be->chunk_size = chunk;
    be->scan = cuda_scan;
    be->stats = cuda_stats;
    char plan[96];
    sg_plan_describe(&st->plan, plan, sizeof plan);
    snprintf(be->desc, sizeof be->desc, "cuda, %d x %.60s (%d SMs), %d streams: %s", st->n_dev, st->dev[0].name,
             st->dev[0].lim.n_sm, st->n_slot, plan);
    *out = be;
    return 0;
}
