/* The OpenCL backend: any OpenCL 1.2 platform (AMD, Intel, NVIDIA GPUs; PoCL
 * on plain CPUs). The kernel source is embedded in the binary and built when
 * the backend opens. A few slots per device, each with its own command queue,
 * kernels and buffers, let several chunks be in flight; a chunk is scanned
 * in windows, and a window whose hits overflow the buffer is scanned again
 * with a larger one. The windows and slots are the driver's
 * (src/find/gpu_driver.h); this file is what they do on OpenCL. */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include "opencl/find/backend.h"

#include <ctype.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CL/cl.h>

#include "core/cli.h"
#include "find/gpu_driver.h"
#include "find/kernels.h"
#include "core/log.h"

static const char kernel_source[] =
#include "find_kernels_cl.h"
    ;

#define SLOTS_PER_DEVICE 2
#define WINDOW ((size_t)16 << 20)
#define WINDOW_MIN ((size_t)1 << 20)
#define PAD 4096 /* bytes after a window's text, never bases */
#define GROUP 256
#define VECTOR_MAX 16
#define MAX_DEVICES 16

typedef struct {
    cl_device_id id;
    char name[128];
    cl_uint units;
    size_t group;             /* work-group size */
    cl_mem masks, pats, ids, qbits, slot_key, slot_start, slot_n, ent, pam, mm_pats;
} device_t;

typedef struct {
    device_t *dev;
    cl_command_queue queue;
    cl_kernel k_ranges, k_qgram, k_mismatch;
    cl_mem text, hits, count;
    cl_mem stage;             /* pinned (host-allocated) staging for the text, mapped at host */
    char *host;
    size_t hits_cap;
} slot_t;

typedef struct {
    const sg_motif_set_t *ms;
    sg_plan_t plan;
    cl_uint fold;
    uint32_t masks_len;
    int masks_local, bits_local;
    int bulges;               /* the set searches bulges: find_bulges instead of find_mismatch */
    cl_context ctx;
    cl_program prog;
    char platform[128];
    device_t dev[MAX_DEVICES];
    int n_dev;
    slot_t *slot;
    int n_slot;
    sg_gpu_driver_t drv;  /* the slots' pool and the windows (bases each: drv.window) */
    int cached;           /* the program came from the cache */
} ocl_t;

static const char *cl_strerror(cl_int e)
{
    switch (e) {
    case CL_DEVICE_NOT_FOUND: return "device not found";
    case CL_DEVICE_NOT_AVAILABLE: return "device not available";
    case CL_COMPILER_NOT_AVAILABLE: return "compiler not available";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "memory object allocation failure";
    case CL_OUT_OF_RESOURCES: return "out of resources";
    case CL_OUT_OF_HOST_MEMORY: return "out of host memory";
    case CL_BUILD_PROGRAM_FAILURE: return "build program failure";
    case CL_INVALID_VALUE: return "invalid value";
    case CL_INVALID_DEVICE: return "invalid device";
    case CL_INVALID_BUFFER_SIZE: return "invalid buffer size";
    case CL_INVALID_KERNEL_ARGS: return "invalid kernel arguments";
    case CL_INVALID_WORK_GROUP_SIZE: return "invalid work-group size";
    case CL_INVALID_ARG_SIZE: return "invalid argument size";
    case -1001: return "no OpenCL platform (is an ICD installed?)"; /* CL_PLATFORM_NOT_FOUND_KHR */
    default: return "OpenCL error";
    }
}

static int cl_fail(char *err, size_t errsz, const char *what, cl_int e)
{
    snprintf(err, errsz, "%s: %s (%d)", what, cl_strerror(e), e);
    return SG_ERR_DEVICE;
}

#define CK(call, what)                                                   \
    do {                                                                 \
        cl_int e_ = (call);                                              \
        if (e_ != CL_SUCCESS) return cl_fail(err, errsz, what, e_);      \
    } while (0)

static int buffer(ocl_t *st, cl_mem *m, const void *src, size_t n, char *err, size_t errsz)
{
    cl_int e;
    *m = clCreateBuffer(st->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n ? n : 4,
                        (void *)(n ? src : (const void *)"\0\0\0"), &e);
    CK(e, "clCreateBuffer (motif tables)");
    return 0;
}

/* The platform: SEQGPU_OPENCL_PLATFORM (an index, or part of its name), or
 * the first with a GPU, or the first with any device. */
static int choose_platform(cl_platform_id *out, char *name, size_t name_sz, char *err, size_t errsz)
{
    cl_uint n = 0;
    cl_int e = clGetPlatformIDs(0, NULL, &n);
    if (e != CL_SUCCESS || n == 0) {
        snprintf(err, errsz, "no OpenCL platform (install an ICD such as pocl-opencl-icd or a GPU vendor's)");
        return SG_ERR_DEVICE;
    }
    cl_platform_id *p = sg_malloc(n * sizeof *p);
    CK(clGetPlatformIDs(n, p, NULL), "clGetPlatformIDs");
    const char *want = getenv("SEQGPU_OPENCL_PLATFORM");
    int pick = -1, any = -1;
    long idx;
    for (cl_uint i = 0; i < n && pick < 0; i++) {
        char pn[128] = "";
        clGetPlatformInfo(p[i], CL_PLATFORM_NAME, sizeof pn, pn, NULL);
        cl_uint gpus = 0, all = 0;
        clGetDeviceIDs(p[i], CL_DEVICE_TYPE_GPU, 0, NULL, &gpus);
        clGetDeviceIDs(p[i], CL_DEVICE_TYPE_ALL, 0, NULL, &all);
        if (want && *want) {
            if (sg_parse_int(want, 0, 1000, &idx) == 0 ? idx == (long)i : strcasestr(pn, want) != NULL) pick = (int)i;
        } else if (gpus) {
            pick = (int)i;
        } else if (all && any < 0) {
            any = (int)i;
        }
    }
    if (pick < 0 && !(want && *want)) pick = any;
    if (pick < 0) {
        if (want && *want) snprintf(err, errsz, "no OpenCL platform matches SEQGPU_OPENCL_PLATFORM='%s'", want);
        else snprintf(err, errsz, "no OpenCL platform has a device");
        free(p);
        return SG_ERR_DEVICE;
    }
    *out = p[pick];
    clGetPlatformInfo(*out, CL_PLATFORM_NAME, name_sz, name, NULL);
    free(p);
    return 0;
}

/* ---- built programs, cached: building from source takes most of a second ----
 * ${XDG_CACHE_HOME:-~/.cache}/seqgpu/opencl-KEY.bin per device, KEY a hash
 * of the source, the build options, and the platform's and the device's
 * names and driver versions; SEQGPU_OPENCL_CACHE=off turns it off. A cache
 * that cannot be read or written is no error: the program is built. */

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return (h ^ 0xff) * 0x100000001b3ull;
}

static int cache_path(const ocl_t *st, cl_device_id id, const char *opts, char *path, size_t n)
{
    const char *off = getenv("SEQGPU_OPENCL_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if ((off && !strcmp(off, "off")) || !((xdg && *xdg) || (home && *home))) return -1;
    char name[256] = "", driver[128] = "", version[128] = "";
    clGetDeviceInfo(id, CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetDeviceInfo(id, CL_DRIVER_VERSION, sizeof driver, driver, NULL);
    clGetDeviceInfo(id, CL_DEVICE_VERSION, sizeof version, version, NULL);
    uint64_t h = fnv(fnv(fnv(fnv(fnv(fnv(0xcbf29ce484222325ull, kernel_source), opts), st->platform), name), driver), version);
    if (xdg && *xdg) snprintf(path, n, "%s/seqgpu/opencl-%016llx.bin", xdg, (unsigned long long)h);
    else snprintf(path, n, "%s/.cache/seqgpu/opencl-%016llx.bin", home, (unsigned long long)h);
    return 0;
}

/* The program from the cache for every device, or NULL. */
/* A cache file: this magic, the binary's length and its hash, then the
 * binary. A driver is given only a binary that passes all three: some
 * abort on a truncated one. */
#define CACHE_MAGIC "seqgpuCL"
#define CACHE_MAX ((size_t)256 << 20)

static uint64_t fnv_bytes(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* The binary of one cache file, or NULL (a file that is there but not one
 * of ours, or damaged, is removed: it would fail every run). */
static unsigned char *read_cached(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK); /* a FIFO put there must not block the run */
    if (fd < 0) return NULL;
    struct stat st;
    unsigned char head[24], *bin = NULL;
    int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size > sizeof head &&
             (size_t)st.st_size <= CACHE_MAX && read(fd, head, sizeof head) == (ssize_t)sizeof head;
    uint64_t n = 0, h = 0;
    if (ok) {
        memcpy(&n, head + 8, 8);
        memcpy(&h, head + 16, 8);
        ok = !memcmp(head, CACHE_MAGIC, 8) && n == (uint64_t)st.st_size - sizeof head;
    }
    if (ok) ok = read(fd, bin = sg_malloc(n), n) == (ssize_t)n && fnv_bytes(bin, n) == h;
    int regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    close(fd);
    if (!ok) {
        free(bin);
        if (regular) unlink(path);
        return NULL;
    }
    *len = n;
    return bin;
}

/* The program from the cache for every device, or NULL. */
static cl_program load_cached(ocl_t *st, cl_device_id *ids, const char *opts)
{
    unsigned char *bin[MAX_DEVICES] = {0};
    size_t len[MAX_DEVICES] = {0};
    char path[MAX_DEVICES][1024];
    int ok = 1;
    for (int i = 0; i < st->n_dev && ok; i++)
        ok = cache_path(st, ids[i], opts, path[i], sizeof path[i]) == 0 && (bin[i] = read_cached(path[i], &len[i]));
    cl_program prog = NULL;
    if (ok) {
        cl_int e, status[MAX_DEVICES];
        prog = clCreateProgramWithBinary(st->ctx, (cl_uint)st->n_dev, ids, len, (const unsigned char **)bin, status, &e);
        if (e != CL_SUCCESS || clBuildProgram(prog, (cl_uint)st->n_dev, ids, opts, NULL, NULL) != CL_SUCCESS) {
            if (prog) clReleaseProgram(prog);
            prog = NULL;
            for (int i = 0; i < st->n_dev; i++) unlink(path[i]); /* well-formed but refused: built again below */
        }
    }
    for (int i = 0; i < st->n_dev; i++) free(bin[i]);
    return prog;
}

static void save_cached(ocl_t *st, cl_device_id *ids, const char *opts)
{
    size_t len[MAX_DEVICES] = {0};
    if (clGetProgramInfo(st->prog, CL_PROGRAM_BINARY_SIZES, st->n_dev * sizeof *len, len, NULL) != CL_SUCCESS) return;
    unsigned char *bin[MAX_DEVICES] = {0};
    for (int i = 0; i < st->n_dev; i++) bin[i] = sg_malloc(len[i] + 1);
    if (clGetProgramInfo(st->prog, CL_PROGRAM_BINARIES, st->n_dev * sizeof *bin, bin, NULL) == CL_SUCCESS)
        for (int i = 0; i < st->n_dev; i++) {
            char path[1024], tmp[1100];
            if (!len[i] || len[i] > CACHE_MAX || cache_path(st, ids[i], opts, path, sizeof path) < 0) continue;
            char *slash = strrchr(path, '/');
            *slash = 0;
            char *parent = strrchr(path, '/');
            if (parent) { *parent = 0; mkdir(path, 0755); *parent = '/'; }
            mkdir(path, 0755);
            *slash = '/';
            snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
            unsigned char head[24];
            uint64_t n = len[i], h = fnv_bytes(bin[i], len[i]);
            memcpy(head, CACHE_MAGIC, 8);
            memcpy(head + 8, &n, 8);
            memcpy(head + 16, &h, 8);
            FILE *fp = fopen(tmp, "wb");
            int ok = fp && fwrite(head, 1, sizeof head, fp) == sizeof head && fwrite(bin[i], 1, len[i], fp) == len[i];
            if (fp && fclose(fp) != 0) ok = 0;
            if (!ok || rename(tmp, path) != 0) unlink(tmp);
        }
    for (int i = 0; i < st->n_dev; i++) free(bin[i]);
}

static int build_program(ocl_t *st, cl_device_id *ids, char *err, size_t errsz)
{
    cl_int e;
    char opts[512];
    const char *extra = getenv("SEQGPU_OPENCL_OPTIONS"); /* more build options, for a driver that needs them */
    snprintf(opts, sizeof opts, "-cl-std=CL1.2 -DMASKS_IN_LOCAL=%d -DBITS_IN_LOCAL=%d %.300s", st->masks_local,
             st->bits_local, extra ? extra : "");
    if ((st->prog = load_cached(st, ids, opts))) {
        st->cached = 1;
        return 0;
    }
    const char *src = kernel_source;
    st->prog = clCreateProgramWithSource(st->ctx, 1, &src, NULL, &e);
    CK(e, "clCreateProgramWithSource");
    e = clBuildProgram(st->prog, (cl_uint)st->n_dev, ids, opts, NULL, NULL);
    if (e == CL_INVALID_BUILD_OPTIONS) {
        snprintf(err, errsz, "the OpenCL compiler rejected the build options '%s'", opts);
        return SG_ERR_DEVICE;
    }
    if (e != CL_SUCCESS) {
        size_t n = 0;
        clGetProgramBuildInfo(st->prog, ids[0], CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
        char *log = sg_calloc(n + 1, 1);
        clGetProgramBuildInfo(st->prog, ids[0], CL_PROGRAM_BUILD_LOG, n, log, NULL);
        snprintf(err, errsz, "building the OpenCL kernels failed (%d); build log:\n%s", e, log);
        free(log);
        return SG_ERR_DEVICE;
    }
    save_cached(st, ids, opts);
    return 0;
}

static int upload_plan(ocl_t *st, device_t *d, char *err, size_t errsz)
{
    const sg_motif_set_t *ms = st->ms;
    uint8_t *masks = sg_malloc(st->masks_len + 1), *pam = sg_calloc(st->masks_len + 1, 1);
    uint32_t *pats = sg_malloc((3 * ms->n_pat + 1) * sizeof *pats), off = 0;
    const int stride = st->bulges ? 4 + 8 * SG_VARIANTS : 4; /* find_bulges' record of a pattern, or find_mismatch's */
    uint32_t *mm_pats = sg_calloc((size_t)stride * st->plan.n_approx + 1, sizeof *mm_pats), *offs = sg_malloc((ms->n_pat + 1) * 4);
    for (int i = 0; i < ms->n_pat; i++) {
        const sg_pattern_t *p = &ms->pat[i];
        memcpy(masks + off, p->mask, p->len);
        if (p->pam) memcpy(pam + off, p->pam, p->len);
        pats[3 * i] = offs[i] = off;
        pats[3 * i + 1] = (uint32_t)p->len;
        pats[3 * i + 2] = p->rank;
        off += p->len;
    }
    for (int k = 0; k < st->plan.n_approx; k++) {
        const sg_pattern_t *p = &ms->pat[st->plan.approx[k]];
        uint32_t *m = mm_pats + (size_t)stride * k;
        m[0] = offs[st->plan.approx[k]];
        m[1] = (uint32_t)p->len;
        m[2] = st->bulges ? (uint32_t)p->max_mm : p->rank;
        m[3] = st->bulges ? 0 : (uint32_t)p->max_mm;
        for (int v = 0; st->bulges && v < SG_VARIANTS; v++) {
            const sg_gap_t *g = &p->gap[v];
            int32_t *x = (int32_t *)m + 4 + 8 * v;
            x[0] = p->vrank[v] == SG_NO_RANK ? -1 : (int32_t)p->vrank[v];
            x[1] = g->far;
            x[2] = g->start;
            x[3] = g->delta;
            x[4] = g->skip;
            x[5] = g->lo;
            x[6] = g->hi;
            x[7] = g->left;
        }
    }
    int r = buffer(st, &d->masks, masks, st->masks_len, err, errsz);
    if (!r) r = buffer(st, &d->pam, pam, st->masks_len, err, errsz);
    if (!r) r = buffer(st, &d->mm_pats, mm_pats, (size_t)stride * st->plan.n_approx * sizeof *mm_pats, err, errsz);
    if (!r) r = buffer(st, &d->pats, pats, 3 * ms->n_pat * sizeof *pats, err, errsz);
    /* the range kernel takes every pattern the q-gram filter does not: the plan's vector list */
    if (!r) r = buffer(st, &d->ids, st->plan.vector, st->plan.n_vector * sizeof *st->plan.vector, err, errsz);
    if (!r && st->plan.qgram) {
        sg_qgram_view_t v;
        sg_qgram_view(st->plan.qgram, &v);
        size_t slots = (size_t)v.slot_mask + 1;
        r = buffer(st, &d->qbits, v.bits, v.n_bits_words * 8, err, errsz);
        if (!r) r = buffer(st, &d->slot_key, v.slot_key, slots * 4, err, errsz);
        if (!r) r = buffer(st, &d->slot_start, v.slot_start, slots * 4, err, errsz);
        if (!r) r = buffer(st, &d->slot_n, v.slot_n, slots * 4, err, errsz);
        if (!r) r = buffer(st, &d->ent, v.ent, v.n_ent * 12, err, errsz);
    }
    free(masks);
    free(pam);
    free(pats);
    free(mm_pats);
    free(offs);
    return r;
}

static size_t text_bytes(size_t n, size_t overlap) { return n + overlap + PAD; }

/* A hit buffer of n hits in place of slot s's (the driver's grow). */
static int grow_hits(void *be, void *slot, size_t n, char *err, size_t errsz)
{
    ocl_t *st = be;
    slot_t *s = slot;
    cl_int e;
    if (s->hits) clReleaseMemObject(s->hits);
    s->hits = clCreateBuffer(st->ctx, CL_MEM_WRITE_ONLY, n * sizeof(cl_ulong), NULL, &e);
    s->hits_cap = 0;
    CK(e, "clCreateBuffer (hits)");
    s->hits_cap = n;
    return 0;
}

static int slot_init(ocl_t *st, slot_t *s, device_t *d, char *err, size_t errsz)
{
    cl_int e;
    s->dev = d;
    s->queue = clCreateCommandQueue(st->ctx, d->id, 0, &e);
    CK(e, "clCreateCommandQueue");
    s->k_ranges = clCreateKernel(st->prog, "find_ranges", &e);
    CK(e, "clCreateKernel (find_ranges)");
    s->k_qgram = clCreateKernel(st->prog, "find_qgram", &e);
    CK(e, "clCreateKernel (find_qgram)");
    s->k_mismatch = clCreateKernel(st->prog, st->bulges ? "find_bulges" : "find_mismatch", &e);
    CK(e, "clCreateKernel (the mismatch kernel)");
    size_t bytes = text_bytes(st->drv.window, st->drv.overlap);
    s->text = clCreateBuffer(st->ctx, CL_MEM_READ_ONLY, bytes, NULL, &e);
    CK(e, "clCreateBuffer (text)");
    /* copies from pageable memory go through a bounce buffer of the driver's: stage in pinned memory */
    s->stage = clCreateBuffer(st->ctx, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &e);
    CK(e, "clCreateBuffer (staging)");
    s->host = clEnqueueMapBuffer(s->queue, s->stage, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &e);
    CK(e, "clEnqueueMapBuffer (staging)");
    s->count = clCreateBuffer(st->ctx, CL_MEM_READ_WRITE, sizeof(cl_uint), NULL, &e);
    CK(e, "clCreateBuffer (counter)");
    return grow_hits(st, s, st->drv.window / 64 + 4096, err, errsz);
}

static int run_kernels(ocl_t *st, slot_t *s, uint64_t n, char *err, size_t errsz)
{
    device_t *d = s->dev;
    cl_uint zero = 0, cap = (cl_uint)s->hits_cap;
    cl_ulong n_start = n;
    /* a fill copies its pattern when enqueued (a non-blocking write would read zero after it is gone) */
    CK(clEnqueueFillBuffer(s->queue, s->count, &zero, sizeof zero, 0, sizeof zero, 0, NULL, NULL), "clEnqueueFillBuffer");
    if (st->plan.n_vector) {
        /* each work-group scans one range of the text */
        size_t groups = (size_t)d->units * 4, global;
        cl_ulong range = (n + groups - 1) / groups;
        if (range < d->group) range = d->group;
        groups = (size_t)((n + range - 1) / range);
        global = groups * d->group;
        cl_kernel k = s->k_ranges;
        cl_uint n_ids = (cl_uint)st->plan.n_vector, masks_len = st->masks_len;
        int a = 0;
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &s->text), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof n_start, &n_start), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof range, &range), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &d->masks), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof masks_len, &masks_len), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &d->pats), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &d->ids), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof n_ids, &n_ids), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof st->fold, &st->fold), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &s->hits), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &s->count), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof cap, &cap), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, st->masks_local ? st->masks_len + 1 : 1, NULL), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, 3 * sizeof(cl_uint) * (st->plan.n_vector + 1), NULL), "clSetKernelArg");
        CK(clEnqueueNDRangeKernel(s->queue, k, 1, NULL, &global, &d->group, 0, NULL, NULL), "running find_ranges");
    }
    if (st->plan.qgram) {
        sg_qgram_view_t v;
        sg_qgram_view(st->plan.qgram, &v);
        cl_uint q = (cl_uint)v.q, max_off = (cl_uint)v.max_off, words = (cl_uint)v.n_bits_words, mask = v.slot_mask;
        size_t items = (size_t)((n + v.max_off + 63) / 64), global = (items + d->group - 1) / d->group * d->group;
        cl_kernel k = s->k_qgram;
        int a = 0;
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &s->text), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof n_start, &n_start), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof q, &q), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof max_off, &max_off), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &d->qbits), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof words, &words), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &d->slot_key), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &d->slot_start), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &d->slot_n), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof mask, &mask), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &d->ent), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &d->masks), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &d->pats), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof st->fold, &st->fold), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &s->hits), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &s->count), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof cap, &cap), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, st->bits_local ? words * sizeof(cl_ulong) : 8, NULL), "clSetKernelArg");
        CK(clEnqueueNDRangeKernel(s->queue, k, 1, NULL, &global, &d->group, 0, NULL, NULL), "running find_qgram");
    }
    if (st->plan.n_approx) {
        /* with bulges, the anchors reach SG_MAX_BULGE bases past the window's starts on either side */
        cl_ulong n_anchor = n + (st->bulges ? 2 * SG_MAX_BULGE : 0);
        cl_uint back = SG_MAX_BULGE;
        size_t global = (size_t)((n_anchor + d->group - 1) / d->group * d->group);
        cl_uint n_mm = (cl_uint)st->plan.n_approx;
        cl_kernel k = s->k_mismatch;
        int a = 0;
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &s->text), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof n_start, &n_start), "clSetKernelArg");
        if (st->bulges) {
            CK(clSetKernelArg(k, a++, sizeof n_anchor, &n_anchor), "clSetKernelArg");
            CK(clSetKernelArg(k, a++, sizeof back, &back), "clSetKernelArg");
        }
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &d->masks), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &d->pam), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &d->mm_pats), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof n_mm, &n_mm), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof st->fold, &st->fold), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &s->hits), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof(cl_mem), &s->count), "clSetKernelArg");
        CK(clSetKernelArg(k, a++, sizeof cap, &cap), "clSetKernelArg");
        CK(clEnqueueNDRangeKernel(s->queue, k, 1, NULL, &global, &d->group, 0, NULL, NULL), "running the mismatch kernel");
    }
    return 0;
}

/* ---- a window on slot s: the driver's calls (src/find/gpu_driver.h) ---- */

/* The text, then separators (never bases) up to the end of what a kernel
 * reads; the staging buffer is free again: the last window's hits were read
 * with a blocking call. */
static int ocl_put(void *be, void *slot, const char *seq, size_t text, size_t n, char *err, size_t errsz)
{
    slot_t *s = slot;
    (void)be;
    (void)n;
    memcpy(s->host, seq, text);
    memset(s->host + text, SG_SEP, PAD);
    CK(clEnqueueWriteBuffer(s->queue, s->text, CL_FALSE, 0, text + PAD, s->host, 0, NULL, NULL), "copying text");
    return 0;
}

static int ocl_count(void *be, void *slot, size_t n, uint64_t *found, size_t *cap, char *err, size_t errsz)
{
    slot_t *s = slot;
    cl_uint count;
    int r = run_kernels(be, s, n, err, errsz);
    if (r < 0) return r;
    CK(clEnqueueReadBuffer(s->queue, s->count, CL_TRUE, 0, sizeof count, &count, 0, NULL, NULL), "reading the hit count");
    *found = count;
    *cap = s->hits_cap;
    return 0;
}

static int ocl_get(void *be, void *slot, uint64_t *out, size_t found, char *err, size_t errsz)
{
    slot_t *s = slot;
    (void)be;
    if (found)
        CK(clEnqueueReadBuffer(s->queue, s->hits, CL_TRUE, 0, found * sizeof(cl_ulong), out, 0, NULL, NULL),
           "reading hits");
    return 0;
}

static const sg_gpu_ops_t ocl_ops = {ocl_put, ocl_count, grow_hits, ocl_get, NULL};

static int ocl_scan(sg_backend_t *be, const sg_chunk_t *c, size_t from, size_t to, sg_hits_t *hits)
{
    ocl_t *st = be->priv;
    int i = sg_gpu_take(&st->drv, NULL, 0, NULL);
    if (i < 0) return i; /* never: the pool is ready and never broken */
    slot_t *s = &st->slot[i];
    char err[512];
    int r = sg_gpu_scan(&st->drv, s, c, from, to, hits, err, sizeof err);
    sg_gpu_give(&st->drv, i, 0); /* the pool never breaks: a failure is said here, by its call */
    if (r < 0) sg_error("OpenCL device '%s': %s", s->dev->name, err);
    return r;
}

static void ocl_stats(sg_backend_t *be, FILE *fp)
{
    ocl_t *st = be->priv;
    fprintf(fp, "  \"device\": {\"platform\": \"%s\", \"name\": \"%s\", \"devices\": %d, \"queues\": %d, "
                "\"window_bases\": %zu, \"windows\": %llu, \"rescans\": %llu, \"program_cached\": %s},\n",
            st->platform, st->n_dev ? st->dev[0].name : "", st->n_dev, st->n_slot, st->drv.window,
            (unsigned long long)st->drv.windows, (unsigned long long)st->drv.rescans, st->cached ? "true" : "false");
}

static void ocl_destroy(sg_backend_t *be)
{
    ocl_t *st = be->priv;
    for (int i = 0; i < st->n_slot; i++) {
        slot_t *s = &st->slot[i];
        if (s->host) {
            clEnqueueUnmapMemObject(s->queue, s->stage, s->host, 0, NULL, NULL);
            clFinish(s->queue);
        }
        if (s->queue) clReleaseCommandQueue(s->queue);
        if (s->k_ranges) clReleaseKernel(s->k_ranges);
        if (s->k_qgram) clReleaseKernel(s->k_qgram);
        if (s->k_mismatch) clReleaseKernel(s->k_mismatch);
        cl_mem m[] = {s->text, s->hits, s->count, s->stage};
        for (int j = 0; j < 4; j++)
            if (m[j]) clReleaseMemObject(m[j]);
    }
    for (int i = 0; i < st->n_dev; i++) {
        device_t *d = &st->dev[i];
        cl_mem m[] = {d->masks, d->pats, d->ids, d->qbits, d->slot_key, d->slot_start, d->slot_n, d->ent, d->pam,
                      d->mm_pats};
        for (size_t j = 0; j < sizeof m / sizeof *m; j++)
            if (m[j]) clReleaseMemObject(m[j]);
    }
    if (st->prog) clReleaseProgram(st->prog);
    if (st->ctx) clReleaseContext(st->ctx);
    sg_plan_free(&st->plan);
    sg_gpu_close(&st->drv);
    free(st->slot);
    free(st);
    free(be);
}

static int open_platform(ocl_t *st, const sg_backend_opts_t *o, char *err, size_t errsz)
{
    cl_platform_id platform = NULL;
    int r = choose_platform(&platform, st->platform, sizeof st->platform, err, errsz);
    if (r < 0) return r;
    cl_uint n_all = 0;
    CK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &n_all), "clGetDeviceIDs");
    cl_device_id *all = sg_malloc((n_all + 1) * sizeof *all), ids[MAX_DEVICES];
    cl_int e = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, n_all, all, NULL);
    if (e != CL_SUCCESS) {
        free(all);
        return cl_fail(err, errsz, "clGetDeviceIDs", e);
    }
    const sg_devices_t *want = sg_devices_or_default(o->devices);
    if (want->n > MAX_DEVICES) {
        snprintf(err, errsz, "the opencl backend takes at most %d devices", MAX_DEVICES);
        r = SG_ERR_INPUT;
    }
    for (int i = 0; i < want->n && r == 0; i++) {
        if ((cl_uint)want->id[i] >= n_all) {
            snprintf(err, errsz, "OpenCL platform '%s' has no device %d (it has %u)", st->platform, want->id[i], n_all);
            r = SG_ERR_DEVICE;
            break;
        }
        device_t *d = &st->dev[st->n_dev];
        d->id = ids[st->n_dev++] = all[want->id[i]];
    }
    free(all);
    if (r < 0) return r;
    cl_ulong local_mem = ~(cl_ulong)0, max_alloc = ~(cl_ulong)0;
    for (int i = 0; i < st->n_dev; i++) {
        device_t *d = &st->dev[i];
        cl_ulong lm, ma;
        size_t wg;
        clGetDeviceInfo(d->id, CL_DEVICE_NAME, sizeof d->name, d->name, NULL);
        CK(clGetDeviceInfo(d->id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof d->units, &d->units, NULL), "clGetDeviceInfo");
        CK(clGetDeviceInfo(d->id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL), "clGetDeviceInfo");
        CK(clGetDeviceInfo(d->id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lm, &lm, NULL), "clGetDeviceInfo");
        CK(clGetDeviceInfo(d->id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof ma, &ma, NULL), "clGetDeviceInfo");
        d->group = wg < GROUP ? wg : GROUP;
        if (lm < local_mem) local_mem = lm;
        if (ma < max_alloc) max_alloc = ma;
    }
    /* what fits in local memory goes there, with room for the pattern table */
    size_t table = 3 * 4 * (size_t)(st->plan.n_vector + 1);
    st->masks_local = st->masks_len + 1 + table + 1024 <= local_mem;
    if (st->plan.qgram) {
        sg_qgram_view_t v;
        sg_qgram_view(st->plan.qgram, &v);
        st->bits_local = v.n_bits_words * 8 + 1024 <= local_mem;
    }
    st->drv.window = WINDOW;
    while (st->drv.window > WINDOW_MIN && text_bytes(st->drv.window, st->drv.overlap) > max_alloc) st->drv.window /= 2;
    st->ctx = clCreateContext(NULL, (cl_uint)st->n_dev, ids, NULL, NULL, &e);
    CK(e, "clCreateContext");
    if ((r = build_program(st, ids, err, errsz)) < 0) return r;
    for (int i = 0; i < st->n_dev; i++)
        if ((r = upload_plan(st, &st->dev[i], err, errsz)) < 0) return r;
    st->slot = sg_calloc(st->n_dev * SLOTS_PER_DEVICE, sizeof *st->slot);
    for (int i = 0; i < st->n_dev * SLOTS_PER_DEVICE; i++) {
        st->n_slot = i + 1;
        if ((r = slot_init(st, &st->slot[i], &st->dev[i % st->n_dev], err, errsz)) < 0) return r;
    }
    return 0;
}

int sg_backend_opencl(const sg_backend_opts_t *o, sg_backend_t **out, char *err, size_t errsz)
{
    const char *kernel = o->kernel ? o->kernel : "auto";
    if (!strcmp(kernel, "sunday")) {
        snprintf(err, errsz, "the opencl backend has no sunday kernel (auto, vector, qgram)");
        return SG_ERR_INPUT;
    }
    ocl_t *st = sg_calloc(1, sizeof *st);
    st->ms = o->motifs;
    st->fold = o->skip_masked ? 0xff : 0xdf;
    st->bulges = o->motifs->dna_bulge || o->motifs->rna_bulge;
    for (int i = 0; i < o->motifs->n_pat; i++) st->masks_len += o->motifs->pat[i].len;
    sg_gpu_init(&st->drv);
    st->drv.ops = &ocl_ops;
    st->drv.be = st;
    st->drv.overlap = o->motifs->max_len ? o->motifs->max_len - 1 : 0;
    sg_backend_t *be = sg_calloc(1, sizeof *be);
    be->priv = st;
    be->free = ocl_destroy;
    int r = sg_plan_make(o->motifs, kernel, VECTOR_MAX, &st->plan, err, errsz);
    if (r == 0) r = open_platform(st, o, err, errsz);
    if (r < 0) {
        ocl_destroy(be);
        return r;
    }
    sg_gpu_ready(&st->drv, st->n_slot, 0, NULL);
    be->name = "opencl";
    be->max_par = st->n_slot;
    be->chunk_size = WINDOW;
    be->scan = ocl_scan;
    be->stats = ocl_stats;
    char plan[96];
    sg_plan_describe(&st->plan, plan, sizeof plan);
    snprintf(be->desc, sizeof be->desc, "opencl, %.40s: %d x %.40s, %d queues: %s", st->platform, st->n_dev,
             st->dev[0].name, st->n_slot, plan);
    *out = be;
    return 0;
}
