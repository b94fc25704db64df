/* The CUDA backend: chunks go through a few slots per device, each a stream
 * with a pinned staging buffer and device buffers. Several scan calls run at
 * once (one per slot), so the copy of one chunk, the kernels of another and
 * the host's parsing and formatting of others overlap. A chunk is scanned in
 * windows as large as the slot holds (the batch size comes from the device's
 * free memory). Hits are compacted on the device through an atomic counter;
 * a window whose hits overflow the buffer is scanned again with a larger
 * one, so none is lost. The windows and slots are the driver's
 * (src/find/gpu_driver.h); this file is what they do on CUDA.
 *
 * Creating the CUDA context and the device buffers takes about half a second
 * on an H200, longer than parsing a genome's first chunks, so it runs on a
 * thread of its own while the pipeline starts; the first scan waits for it. */
#define _GNU_SOURCE
#include "cuda/find/backend.h"
#include "cuda/runtime/util.h"
#include "cuda/find/kernels.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "find/gpu_driver.h"
#include "find/kernels.h"
#include "core/log.h"

#define SLOTS_PER_DEVICE 4
#define CHUNK_SIZE ((size_t)4 << 20)  /* what the reader is asked for (16M: 2.4x the peak RSS, no faster) */
#define WINDOW_MAX ((size_t)16 << 20) /* bases per device batch, at most */
#define WINDOW_MIN ((size_t)1 << 20)  /* ... and at least */
#define TILE 2048                     /* text is padded to whole warp tiles of the vector kernel */
#define VECTOR_MAX 32                 /* patterns above which auto prefers the q-gram kernel */

typedef struct {
    int id;         /* as the user numbers it (--device) */
    int local;      /* the runtime's index of it (sg_cuda_select) */
    char name[128];
    sg_dlimits_t lim;
    uint8_t *masks, *pam; /* the plan, on this device */
    sg_dpat_t *pats;
    sg_dmm_group_t *mm_groups;
    uint8_t *mm_pam_pos, *mm_pam_set;
    uint32_t *mm_planes, *mm_ids;
    sg_gap_t *mm_gaps;
    uint32_t *sunday_ids, *vector_ids;
    unsigned long long *qbits;
    uint32_t *slot_key, *slot_start, *slot_n, *ent;
} device_t;

typedef struct {
    device_t *dev;
    cudaStream_t stream;
    cudaEvent_t ev[4];
    char *pinned;               /* staging for a window of text */
    uint8_t *text;              /* the window on the device */
    size_t cap;                 /* bytes of both */
    unsigned long long *hits;   /* device hit buffer */
    size_t hits_cap;
    unsigned long long *count;  /* device counter, and its pinned copy */
    unsigned long long *h_count;
    size_t bytes;               /* of the window in flight, its front included */
    int fault;                  /* its kernel faults (SEQGPU_CUDA_FAULT) */
} slot_t;

/* The mismatch kernel's tables, flattened for the device (sg_dmm_group_t). */
typedef struct {
    sg_dmm_group_t *groups;
    int n_groups;
    uint8_t *pam_pos, *pam_set;
    size_t n_pam;
    uint32_t *planes;
    size_t n_planes;
    sg_gap_t *gaps;  /* bulges: SG_VARIANTS per group */
    uint32_t *ids;   /* patterns of windows longer than 32 */
    int n_ids;
} mm_tables_t;

typedef struct {
    const sg_motif_set_t *ms;
    sg_plan_t plan;
    mm_tables_t mm;
    int skip_masked;
    int bulges;              /* the set searches bulges: the text has SG_DEV_FRONT bytes in front */
    uint32_t masks_len;
    int ids[SG_MAX_DEVICES], n_ids; /* the devices used: the first n_ids listed */
    int n_listed;
    size_t mem_limit;        /* SEQGPU_CUDA_MEM_LIMIT: device memory to assume free (tests) */
    long fault_at;           /* SEQGPU_CUDA_FAULT=N: the Nth window's kernel faults (tests) */
    device_t dev[SG_MAX_DEVICES];
    int n_dev;
    slot_t *slot;
    int n_slot;
    sg_gpu_driver_t drv;     /* the slots' pool and the windows (bases per batch: drv.window) */
    pthread_t init_thread;
    /* statistics, under drv.mu */
    double h2d_ms, kernel_ms, d2h_ms;
    uint64_t h2d_bytes, d2h_bytes, text_bytes;
    uint64_t windows;        /* started (the fault counts them): drv.windows counts those done */
} cuda_t;

#define CK SG_CUDA_CHECK

static int upload(void **dst, const void *src, size_t n, char *err, size_t errsz)
{
    *dst = NULL;
    if (!n) return 0;
    CK(cudaMalloc(dst, n), "cudaMalloc (motif tables)");
    CK(cudaMemcpy(*dst, src, n, cudaMemcpyHostToDevice), "cudaMemcpy (motif tables)");
    return 0;
}

/* The plan's mismatch index as the device's flat tables: with bulges,
 * each group's geometry and the ranks of its variants after its planes. */
static void mm_tables(const sg_mm_t *mm, int bulges, mm_tables_t *t)
{
    int n = sg_mm_n_groups(mm);
    const size_t rows = bulges ? 6 + SG_VARIANTS : 7;
    sg_mm_group_view_t v;
    size_t pams = 0, planes = 0, ids = 0;
    for (int g = 0; g < n; g++) {
        sg_mm_group(mm, g, &v);
        if (v.p32) pams += v.n_pam, planes += rows * v.n_pad;
        else ids += v.n_pat;
    }
    t->groups = sg_calloc(n + 1, sizeof *t->groups);
    t->pam_pos = sg_malloc(pams + 1);
    t->pam_set = sg_malloc(pams + 1);
    t->planes = sg_malloc((planes + 1) * sizeof *t->planes);
    t->gaps = sg_calloc(SG_VARIANTS * ((size_t)n + 1), sizeof *t->gaps);
    t->ids = sg_malloc((ids + 1) * sizeof *t->ids);
    for (int g = 0; g < n; g++) {
        sg_mm_group(mm, g, &v);
        if (!v.p32) {
            for (int i = 0; i < v.n_pat; i++) t->ids[t->n_ids++] = (uint32_t)v.pat[i];
            continue;
        }
        uint32_t var_mask = 0;
        for (int q = 0; q < v.n_var; q++) var_mask |= 1u << v.var[q];
        memcpy(t->gaps + (size_t)t->n_groups * SG_VARIANTS, v.gap, SG_VARIANTS * sizeof *v.gap);
        t->groups[t->n_groups++] = (sg_dmm_group_t){(uint32_t)v.len, (uint32_t)v.n_pam, (uint32_t)t->n_pam,
                                                     (uint32_t)v.n_pat, (uint32_t)v.n_pad, (uint32_t)t->n_planes,
                                                     var_mask};
        for (int k = 0; k < v.n_pam; k++) {
            t->pam_pos[t->n_pam] = (uint8_t)v.pam_pos[k];
            t->pam_set[t->n_pam++] = v.pam_set[k];
        }
        uint32_t *pl = t->planes + t->n_planes;
        memcpy(pl, v.p32, 5 * (size_t)v.n_pad * sizeof *v.p32);
        memcpy(pl + 5 * (size_t)v.n_pad, v.limit, v.n_pad * sizeof *v.limit);
        memcpy(pl + 6 * (size_t)v.n_pad, v.rank, v.n_pad * sizeof *v.rank);
        for (size_t r = 7; r < rows; r++)
            for (int i = 0; i < v.n_pad; i++) pl[r * v.n_pad + i] = v.vrank[(size_t)i * SG_VARIANTS + (r - 6)];
        t->n_planes += rows * v.n_pad;
    }
}

static void mm_tables_free(mm_tables_t *t)
{
    free(t->groups);
    free(t->pam_pos);
    free(t->pam_set);
    free(t->planes);
    free(t->gaps);
    free(t->ids);
    memset(t, 0, sizeof *t);
}

/* The plan's tables on device d. */
static int upload_plan(cuda_t *st, device_t *d, char *err, size_t errsz)
{
    const sg_motif_set_t *ms = st->ms;
    uint8_t *masks = sg_malloc(st->masks_len + 1), *pam = sg_calloc(st->masks_len + 1, 1);
    sg_dpat_t *pats = sg_malloc((ms->n_pat + 1) * sizeof *pats);
    uint32_t off = 0;
    for (int i = 0; i < ms->n_pat; i++) {
        const sg_pattern_t *p = &ms->pat[i];
        memcpy(masks + off, p->mask, p->len);
        if (p->pam) memcpy(pam + off, p->pam, p->len);
        pats[i] = (sg_dpat_t){off, (uint32_t)p->len, p->rank, (uint32_t)p->max_mm};
        off += p->len;
    }
    const mm_tables_t *t = &st->mm;
    int r = upload((void **)&d->masks, masks, st->masks_len, err, errsz);
    if (!r) r = upload((void **)&d->pam, pam, st->masks_len, err, errsz);
    if (!r) r = upload((void **)&d->pats, pats, ms->n_pat * sizeof *pats, err, errsz);
    if (!r) r = upload((void **)&d->mm_groups, t->groups, t->n_groups * sizeof *t->groups, err, errsz);
    if (!r) r = upload((void **)&d->mm_pam_pos, t->pam_pos, t->n_pam, err, errsz);
    if (!r) r = upload((void **)&d->mm_pam_set, t->pam_set, t->n_pam, err, errsz);
    if (!r) r = upload((void **)&d->mm_planes, t->planes, t->n_planes * sizeof *t->planes, err, errsz);
    if (!r) r = upload((void **)&d->mm_ids, t->ids, t->n_ids * sizeof *t->ids, err, errsz);
    if (!r && st->bulges) r = upload((void **)&d->mm_gaps, t->gaps, t->n_groups * SG_VARIANTS * sizeof *t->gaps, err, errsz);
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
    free(pam);
    free(pats);
    return r;
}

/* Device bytes for a window of n starts: its text with the overlap, padded
 * (and the front of a bulge search, SG_DEV_FRONT, before it). */
static size_t window_bytes(size_t n, size_t overlap) { return (n + overlap + TILE - 1) / TILE * TILE + TILE + SG_DEV_PAD; }
static size_t hits_for(size_t n) { return n / 64 + 4096; }
static size_t slot_bytes(size_t n, size_t overlap) { return SG_DEV_FRONT + window_bytes(n, overlap) + hits_for(n) * 8 + 64; }

/* A hit buffer of n hits in place of slot s's (the driver's grow). */
static int grow_hits(void *be, void *slot, size_t n, char *err, size_t errsz)
{
    slot_t *s = slot;
    (void)be;
    if (s->hits) cudaFree(s->hits);
    s->hits = NULL;
    s->hits_cap = 0;
    CK(cudaMalloc((void **)&s->hits, n * sizeof *s->hits), "cudaMalloc (hits)");
    s->hits_cap = n;
    return 0;
}

static int slot_init(cuda_t *st, slot_t *s, device_t *d, char *err, size_t errsz)
{
    s->dev = d;
    CK(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking), "cudaStreamCreate");
    for (int i = 0; i < 4; i++) CK(cudaEventCreate(&s->ev[i]), "cudaEventCreate");
    CK(cudaMalloc((void **)&s->count, sizeof *s->count), "cudaMalloc (counter)");
    CK(cudaHostAlloc((void **)&s->h_count, sizeof *s->h_count, cudaHostAllocPortable), "cudaHostAlloc (counter)");
    s->cap = SG_DEV_FRONT + window_bytes(st->drv.window, st->drv.overlap);
    CK(cudaHostAlloc((void **)&s->pinned, s->cap, cudaHostAllocPortable), "cudaHostAlloc (text staging)");
    CK(cudaMalloc((void **)&s->text, s->cap), "cudaMalloc (text)");
    return grow_hits(st, s, hits_for(st->drv.window), err, errsz);
}

static void slot_free(slot_t *s)
{
    if (!s->dev) return;
    cudaSetDevice(s->dev->local);
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
    cudaSetDevice(d->local);
    void *p[] = {d->masks, d->pam, d->pats, d->sunday_ids, d->vector_ids, d->qbits, d->slot_key, d->slot_start,
                 d->slot_n, d->ent, d->mm_groups, d->mm_pam_pos, d->mm_pam_set, d->mm_planes, d->mm_ids, d->mm_gaps};
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) cudaFree(p[i]);
}

/* Contexts, tables and slots on every device (the init thread). */
static int open_devices(cuda_t *st, char *err, size_t errsz)
{
    int r;
    size_t budget = (size_t)-1;
    for (int i = 0; i < st->n_ids; i++) {
        device_t *d = &st->dev[st->n_dev++];
        d->id = st->ids[i];
        struct cudaDeviceProp p;
        if ((r = sg_cuda_open_device(d->id, &d->local, &p, err, errsz)) < 0) return r;
        snprintf(d->name, sizeof d->name, "%.127s", p.name);
        d->lim.n_sm = p.multiProcessorCount;
        d->lim.smem_optin = p.sharedMemPerBlockOptin;
        CK(sg_cuda_prepare(&d->lim), "setting kernel attributes");
        size_t need = sg_cuda_sunday_smem(st->masks_len, st->plan.n_sunday);
        if (st->plan.n_sunday && need > d->lim.sunday_smem) {
            snprintf(err, errsz, "the sunday kernel keeps its motifs in shared memory: they need %zu KB, device %d has %zu KB;"
                     " use --kernel auto", need >> 10, d->id, d->lim.sunday_smem >> 10);
            return SG_ERR_INPUT;
        }
        if ((r = upload_plan(st, d, err, errsz)) < 0) return r;
        size_t free_b = 0, total_b = 0;
        CK(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
        if (st->mem_limit && st->mem_limit < free_b) free_b = st->mem_limit;
        if (free_b / 10 * 8 < budget) budget = free_b / 10 * 8;
    }
    /* batch size from the free memory: fewer and smaller windows until the slots fit in 80% of it */
    int per_dev = SLOTS_PER_DEVICE;
    st->drv.window = WINDOW_MAX;
    while (per_dev * slot_bytes(st->drv.window, st->drv.overlap) > budget) {
        if (st->drv.window > WINDOW_MIN) st->drv.window /= 2;
        else if (per_dev > 1) per_dev /= 2;
        else {
            snprintf(err, errsz, "%zu MB of device memory free, too little for one batch of %zu MB", budget / 8 * 10 >> 20,
                     slot_bytes(st->drv.window, st->drv.overlap) >> 20);
            return SG_ERR_DEVICE;
        }
    }
    st->slot = sg_calloc(st->n_dev * per_dev, sizeof *st->slot);
    for (int i = 0; i < st->n_dev * per_dev; i++) {
        device_t *d = &st->dev[i % st->n_dev];
        CK(cudaSetDevice(d->local), "cudaSetDevice");
        r = slot_init(st, &st->slot[i], d, err, errsz);
        st->n_slot = i + 1;
        if (r < 0) return r;
    }
    return 0;
}

static void *init_main(void *arg)
{
    cuda_t *st = arg;
    char err[512] = "";
    int r = open_devices(st, err, sizeof err);
    sg_gpu_ready(&st->drv, st->n_slot, r, err);
    return NULL;
}

/* ---- a window on slot s: the driver's calls (src/find/gpu_driver.h) ---- */

/* The text into the slot's staging and on its way to the device. */
static int cuda_put(void *be, void *slot, const char *seq, size_t text, size_t n, char *err, size_t errsz)
{
    cuda_t *st = be;
    slot_t *s = slot;
    /* a bulge search sees separators in front, where anchors before the window's first base lie */
    const size_t front = st->bulges ? SG_DEV_FRONT : 0;
    s->bytes = front + window_bytes(n, st->drv.overlap);
    memset(s->pinned, SG_SEP, front);
    memcpy(s->pinned + front, seq, text);
    memset(s->pinned + front + text, SG_SEP, s->bytes - front - text);
    pthread_mutex_lock(&st->drv.mu);
    s->fault = ++st->windows == (uint64_t)st->fault_at;
    pthread_mutex_unlock(&st->drv.mu);
    CK(cudaEventRecord(s->ev[0], s->stream), "cudaEventRecord");
    CK(cudaMemcpyAsync(s->text, s->pinned, s->bytes, cudaMemcpyHostToDevice, s->stream), "copying text to the device");
    CK(cudaEventRecord(s->ev[1], s->stream), "cudaEventRecord");
    return 0;
}

/* The kernels' arguments for the window of n starts on slot s. */
static void scan_args(const cuda_t *st, const slot_t *s, size_t n, sg_dscan_t *k)
{
    const device_t *d = s->dev;
    const size_t front = st->bulges ? SG_DEV_FRONT : 0, bytes = s->bytes;
    *k = (sg_dscan_t){
        .text = s->text + front, .n_start = n, .skip_masked = st->skip_masked,
        .masks = d->masks, .pats = d->pats, .masks_len = st->masks_len,
        .sunday_ids = d->sunday_ids, .n_sunday = st->plan.n_sunday,
        .vector_ids = d->vector_ids, .n_vector = st->plan.n_vector,
        .mm_groups = d->mm_groups, .n_mm_groups = st->mm.n_groups,
        .mm_pam_pos = d->mm_pam_pos, .mm_pam_set = d->mm_pam_set, .mm_planes = d->mm_planes,
        .pam = d->pam, .mm_ids = d->mm_ids, .n_mm_ids = st->mm.n_ids, .n_text = bytes - front,
        .bulges = st->bulges, .mm_gaps = d->mm_gaps, .btext = s->text, .n_btext = bytes,
        .n_anchor = front + n + SG_MAX_BULGE, .own_lo = front, .own_hi = front + n,
        .hits = s->hits, .n_hits = s->count, .cap = s->hits_cap,
    };
    if (st->plan.qgram) {
        sg_qgram_view_t v;
        sg_qgram_view(st->plan.qgram, &v);
        k->q = v.q;
        k->max_off = v.max_off;
        k->qbits = d->qbits;
        k->qbits_words = v.n_bits_words;
        k->slot_key = d->slot_key;
        k->slot_start = d->slot_start;
        k->slot_n = d->slot_n;
        k->slot_mask = v.slot_mask;
        k->ent = d->ent;
    }
    if (s->fault) k->text = (const uint8_t *)16; /* a real fault: the kernel reads an unmapped address */
}

static int cuda_count(void *be, void *slot, size_t n, uint64_t *found, size_t *cap, char *err, size_t errsz)
{
    slot_t *s = slot;
    sg_dscan_t k;
    scan_args(be, s, n, &k);
    CK(cudaMemsetAsync(s->count, 0, sizeof *s->count, s->stream), "cudaMemsetAsync");
    CK(sg_cuda_scan(&k, &s->dev->lim, s->stream), "launching the scan kernels");
    CK(cudaEventRecord(s->ev[2], s->stream), "cudaEventRecord");
    CK(cudaMemcpyAsync(s->h_count, s->count, sizeof *s->count, cudaMemcpyDeviceToHost, s->stream),
       "copying the hit count");
    CK(cudaStreamSynchronize(s->stream), "running the scan kernels");
    *found = *s->h_count;
    *cap = s->hits_cap;
    return 0;
}

static int cuda_get(void *be, void *slot, uint64_t *out, size_t found, char *err, size_t errsz)
{
    slot_t *s = slot;
    (void)be;
    if (found)
        CK(cudaMemcpyAsync(out, s->hits, found * sizeof *s->hits, cudaMemcpyDeviceToHost, s->stream),
           "copying hits from the device");
    CK(cudaEventRecord(s->ev[3], s->stream), "cudaEventRecord");
    CK(cudaStreamSynchronize(s->stream), "copying hits from the device");
    return 0;
}

/* The window's times and bytes into the statistics. */
static void cuda_done(void *be, void *slot, size_t n, size_t found)
{
    cuda_t *st = be;
    slot_t *s = slot;
    float t_h2d = 0, t_kernel = 0, t_d2h = 0;
    cudaEventElapsedTime(&t_h2d, s->ev[0], s->ev[1]);
    cudaEventElapsedTime(&t_kernel, s->ev[1], s->ev[2]); /* the last scan, if scanned again */
    cudaEventElapsedTime(&t_d2h, s->ev[2], s->ev[3]);
    pthread_mutex_lock(&st->drv.mu);
    st->h2d_ms += t_h2d;
    st->kernel_ms += t_kernel;
    st->d2h_ms += t_d2h;
    st->h2d_bytes += s->bytes;
    st->d2h_bytes += found * sizeof *s->hits;
    st->text_bytes += n;
    pthread_mutex_unlock(&st->drv.mu);
}

static const sg_gpu_ops_t cuda_ops = {cuda_put, cuda_count, grow_hits, cuda_get, cuda_done};

static int scan_on(cuda_t *st, slot_t *s, const sg_chunk_t *c, size_t from, size_t to, sg_hits_t *hits, char *err,
                   size_t errsz)
{
    CK(cudaSetDevice(s->dev->local), "cudaSetDevice");
    return sg_gpu_scan(&st->drv, s, c, from, to, hits, err, errsz);
}
/* What this thread's last scan call that failed has to say (cuda_failure):
 * the caller's stage runner says it, and falls back or stops. */
static _Thread_local char fail_msg[600];
static _Thread_local int fail_at_start;

static void cuda_failure(sg_backend_t *be, char *err, size_t errsz, int *at_start)
{
    (void)be;
    snprintf(err, errsz, "%s", fail_msg);
    *at_start = fail_at_start;
}

static int cuda_scan(sg_backend_t *be, const sg_chunk_t *c, size_t from, size_t to, sg_hits_t *hits)
{
    cuda_t *st = be->priv;
    fail_msg[0] = 0;
    fail_at_start = 0;
    int i = sg_gpu_take(&st->drv, fail_msg, sizeof fail_msg, &fail_at_start);
    if (i < 0) return i;
    slot_t *s = &st->slot[i];
    char err[512];
    size_t before = hits->n;
    int r = scan_on(st, s, c, from, to, hits, err, sizeof err);
    sg_gpu_give(&st->drv, i, r < 0);
    if (r == 0) return 0;
    hits->n = before;
    snprintf(fail_msg, sizeof fail_msg, "CUDA device %d: %s", s->dev->id, err);
    return SG_ERR_DEVICE;
}
static void cuda_stats(sg_backend_t *be, FILE *fp)
{
    cuda_t *st = be->priv;
    double h2d = st->h2d_ms / 1e3, kern = st->kernel_ms / 1e3, d2h = st->d2h_ms / 1e3;
    fprintf(fp, "  \"device\": {\"name\": \"%s\", \"devices\": %d, \"streams\": %d, \"window_bases\": %zu, "
                "\"windows\": %llu, \"text_bytes\": %llu, \"h2d_bytes\": %llu, \"d2h_bytes\": %llu, "
                "\"h2d_seconds\": %.6f, \"kernel_seconds\": %.6f, \"d2h_seconds\": %.6f, \"kernel_gbps\": %.1f, "
                "\"h2d_gbps\": %.1f, \"rescans\": %llu, \"fell_back_to_cpu\": %s},\n",
            st->n_dev ? st->dev[0].name : "", st->n_dev, st->n_slot, st->drv.window, (unsigned long long)st->windows,
            (unsigned long long)st->text_bytes, (unsigned long long)st->h2d_bytes, (unsigned long long)st->d2h_bytes,
            h2d, kern, d2h, kern > 0 ? st->text_bytes / kern / 1e9 : 0.0, h2d > 0 ? st->h2d_bytes / h2d / 1e9 : 0.0,
            (unsigned long long)st->drv.rescans, st->drv.broken ? "true" : "false");
}

static void cuda_destroy(sg_backend_t *be)
{
    cuda_t *st = be->priv;
    pthread_join(st->init_thread, NULL);
    /* streams, device and pinned memory go with the process, faster than
     * one by one (SEQGPU_CUDA_TEARDOWN=1 frees them, for leak checkers) */
    const char *teardown = getenv("SEQGPU_CUDA_TEARDOWN");
    if (teardown && !strcmp(teardown, "1")) {
        for (int i = 0; i < st->n_slot; i++) slot_free(&st->slot[i]);
        for (int i = 0; i < st->n_dev; i++) device_free(&st->dev[i]);
    } else if (st->n_dev) {
        sg_exit_quick_request();
    }
    mm_tables_free(&st->mm);
    sg_plan_free(&st->plan);
    sg_gpu_close(&st->drv);
    free(st->slot);
    free(st);
    free(be);
}

/* What must be known before the run starts: the options are valid, and
 * there is a driver and each device asked for. */
static int check_devices(cuda_t *st, const sg_backend_opts_t *o, char *err, size_t errsz)
{
    const sg_devices_t *listed = sg_devices_or_default(o->devices);
    int r = 0;
    memcpy(st->ids, listed->id, listed->n * sizeof *st->ids);
    st->n_ids = st->n_listed = listed->n;
    if (o->gpus > 0 && o->gpus < st->n_ids) st->n_ids = o->gpus; /* the others would not pay their start */
    if ((r = sg_cuda_mem_limit(&st->mem_limit, err, errsz)) < 0) return r;
    const char *fault = getenv("SEQGPU_CUDA_FAULT");
    st->fault_at = fault ? atol(fault) : 0;
    /* only these devices start (CUDA_VISIBLE_DEVICES); the driver starts on
     * the set-up thread, while the input is read */
    char why[256];
    if (sg_cuda_select(st->ids, st->n_ids, why, sizeof why) < 0) r = SG_ERR_DEVICE;
    for (int i = 0; i < st->n_ids && r == 0; i++) r = sg_cuda_precheck(st->ids[i], why, sizeof why);
    if (r < 0) snprintf(err, errsz, "the cuda backend cannot run: %s", why);
    return r;
}

int sg_backend_cuda(const sg_backend_opts_t *o, sg_backend_t **out, char *err, size_t errsz)
{
    cuda_t *st = sg_calloc(1, sizeof *st);
    st->ms = o->motifs;
    st->skip_masked = o->skip_masked;
    st->bulges = o->motifs->dna_bulge || o->motifs->rna_bulge;
    for (int i = 0; i < o->motifs->n_pat; i++) st->masks_len += o->motifs->pat[i].len;
    int r = check_devices(st, o, err, errsz);
    if (r == 0) r = sg_plan_make(o->motifs, o->kernel ? o->kernel : "auto", VECTOR_MAX, &st->plan, err, errsz);
    if (r == 0 && st->plan.mm) mm_tables(st->plan.mm, st->bulges, &st->mm);
    if (r < 0) {
        mm_tables_free(&st->mm);
        sg_plan_free(&st->plan);
        free(st);
        return r;
    }
    sg_gpu_init(&st->drv);
    st->drv.ops = &cuda_ops;
    st->drv.be = st;
    st->drv.overlap = o->motifs->max_len ? o->motifs->max_len - 1 : 0;
    st->drv.exact = 1;
    sg_backend_t *be = sg_calloc(1, sizeof *be);
    be->name = "cuda";
    be->max_par = SLOTS_PER_DEVICE * st->n_ids;
    be->chunk_size = CHUNK_SIZE;
    be->scan = cuda_scan;
    be->stats = cuda_stats;
    be->free = cuda_destroy;
    be->failure = cuda_failure;
    be->priv = st;
    if (pthread_create(&st->init_thread, NULL, init_main, st) != 0) {
        snprintf(err, errsz, "cannot start the device set-up thread");
        mm_tables_free(&st->mm);
        sg_plan_free(&st->plan);
        sg_gpu_close(&st->drv);
        free(st);
        free(be);
        return SG_ERR_SYSTEM;
    }
    char plan[96];
    sg_plan_describe(&st->plan, plan, sizeof plan);
    snprintf(be->desc, sizeof be->desc, "cuda, %d device(s)%s, %d streams each: %s", st->n_ids,
             st->n_listed > st->n_ids ? " (memory-bound: the others listed would not pay their start)" : "",
             SLOTS_PER_DEVICE, plan);
    *out = be;
    return 0;
}
