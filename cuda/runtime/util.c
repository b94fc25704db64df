#define _GNU_SOURCE
#include "cuda/runtime/util.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "core/cli.h"
#include "core/log.h"

#define MAX_SELECTED 64

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int selected[MAX_SELECTED], n_selected = -1;
static int user_visible; /* CUDA_VISIBLE_DEVICES was set before: indices are into it */
static int user_saved;   /* the user's CUDA_VISIBLE_DEVICES is kept below: ours replaced it */
static char *user_cvd;   /* the user's value, NULL when unset */

/* Devices CUDA_VISIBLE_DEVICES leaves of n: the leading entries that name a
 * device (an index below n, or a GPU-/MIG- id); the runtime ignores the
 * rest from the first that does not. */
static int visible_of(int n)
{
    /* the user's list, not the one sg_cuda_select put in its place */
    pthread_mutex_lock(&mu);
    const char *v = user_saved ? user_cvd : getenv("CUDA_VISIBLE_DEVICES");
    pthread_mutex_unlock(&mu);
    if (!v) return n;
    int count = 0;
    for (const char *t = v; *t;) {
        size_t len = strcspn(t, ",");
        int ok = !strncmp(t, "GPU-", 4) || !strncmp(t, "MIG-", 4);
        if (!ok && len > 0 && len == strspn(t, "0123456789")) ok = n < 0 || atoi(t) < n;
        if (!ok) break;
        count++;
        t += len + (t[len] == ',');
    }
    return n < 0 && count ? -1 : count;
}

int sg_cuda_gpus_present(void)
{
    DIR *d = opendir("/proc/driver/nvidia/gpus");
    if (!d) return access("/dev/nvidiactl", F_OK) == 0 ? visible_of(-1) : 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
    closedir(d);
    return visible_of(n);
}

int sg_cuda_select(const int *ids, int n, char *err, size_t errsz)
{
    int r = 0;
    pthread_mutex_lock(&mu);
    if (n_selected < 0) {
        /* the new CUDA_VISIBLE_DEVICES: the listed entries of the old one, or the indices themselves */
        const char *old = getenv("CUDA_VISIBLE_DEVICES");
        user_visible = old != NULL;
        if (!user_saved) user_cvd = old ? sg_strdup(old) : NULL, user_saved = 1;
        char *copy = old ? sg_strdup(old) : NULL, *tok[MAX_SELECTED], *save = NULL;
        int n_tok = 0;
        for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && n_tok < MAX_SELECTED; t = strtok_r(NULL, ",", &save))
            tok[n_tok++] = t;
        char list[MAX_SELECTED * 96] = ""; /* room for every entry in full */
        size_t at = 0;
        for (int i = 0; i < n && i < MAX_SELECTED && r == 0; i++) {
            if (old && ids[i] >= n_tok) {
                snprintf(err, errsz, "no CUDA device %d (CUDA_VISIBLE_DEVICES='%s' lists %d)", ids[i], old, n_tok);
                r = SG_ERR_DEVICE;
                break;
            }
            if (old) at += snprintf(list + at, sizeof list - at, "%s%.90s", i ? "," : "", tok[ids[i]]);
            else at += snprintf(list + at, sizeof list - at, "%s%d", i ? "," : "", ids[i]);
            selected[i] = ids[i];
        }
        free(copy);
        if (r == 0) {
            setenv("CUDA_VISIBLE_DEVICES", list, 1);
            n_selected = n;
        }
    } else {
        for (int i = 0; i < n && r == 0; i++) {
            int found = 0;
            for (int j = 0; j < n_selected; j++) found |= selected[j] == ids[i];
            if (!found) {
                snprintf(err, errsz, "CUDA device %d was not selected when CUDA started in this process", ids[i]);
                r = SG_ERR_DEVICE;
            }
        }
    }
    pthread_mutex_unlock(&mu);
    return r;
}

int sg_cuda_local(int id)
{
    int local = -1;
    pthread_mutex_lock(&mu);
    for (int j = 0; j < n_selected && local < 0; j++)
        if (selected[j] == id) local = j;
    pthread_mutex_unlock(&mu);
    return local;
}

int sg_cuda_precheck(int id, char *err, size_t errsz)
{
    int present = sg_cuda_gpus_present();
    if (present == 0) {
        snprintf(err, errsz, "no CUDA device (the NVIDIA kernel driver reports no GPU)");
        return SG_ERR_DEVICE;
    }
    pthread_mutex_lock(&mu);
    int user = user_visible;
    pthread_mutex_unlock(&mu);
    if (present > 0 && !user && id >= present) {
        snprintf(err, errsz, "no CUDA device %d (this machine has %d)", id, present);
        return SG_ERR_DEVICE;
    }
    return 0;
}

int sg_cuda_check_device(int id, int *local, char *err, size_t errsz)
{
    *local = -1;
    if (sg_cuda_select(&id, 1, err, errsz) < 0 || sg_cuda_precheck(id, err, errsz) < 0) return SG_ERR_DEVICE;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorInsufficientDriver) {
        snprintf(err, errsz, "no CUDA driver (libcuda.so.1), or one older than this build's CUDA %d.%d runtime",
                 CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
        return SG_ERR_DEVICE;
    }
    *local = sg_cuda_local(id);
    if (e != cudaSuccess || count == 0 || *local < 0 || *local >= count) {
        snprintf(err, errsz, "no CUDA device %d%s%s", id, e != cudaSuccess ? ": " : "",
                 e != cudaSuccess ? cudaGetErrorString(e) : "");
        *local = -1;
        return SG_ERR_DEVICE;
    }
    return 0;
}

int sg_cuda_fail(char *err, size_t errsz, const char *what, cudaError_t e)
{
    snprintf(err, errsz, "%s: %s", what, cudaGetErrorString(e));
    return SG_ERR_DEVICE;
}

int sg_cuda_malloc(void **p, size_t n, const char *what, const char *holds, const char *advice, char *err,
                   size_t errsz)
{
    *p = NULL;
    cudaError_t e = cudaMalloc(p, n ? n : 1);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        snprintf(err, errsz, "out of device memory for %s: %zu MB more needed, %zu MB free of %zu MB (%s); %s", what,
                 n >> 20, free_b >> 20, total_b >> 20, holds, advice);
        return SG_ERR_DEVICE;
    }
    SG_CUDA_CHECK(e, what);
    return 0;
}

int sg_cuda_open_device(int id, int *local, struct cudaDeviceProp *prop, char *err, size_t errsz)
{
    SG_TRY(sg_cuda_check_device(id, local, err, errsz));
    SG_CUDA_CHECK(cudaSetDevice(*local), "cudaSetDevice");
    SG_CUDA_CHECK(cudaGetDeviceProperties(prop, *local), "cudaGetDeviceProperties");
    if (prop->major < 7 || (prop->major == 7 && prop->minor < 5)) {
        snprintf(err, errsz, "CUDA device %d (%.60s) has compute capability %d.%d; seqgpu needs 7.5 or newer", id,
                 prop->name, prop->major, prop->minor);
        return SG_ERR_DEVICE;
    }
    return 0;
}

int sg_cuda_mem_limit(size_t *limit, char *err, size_t errsz)
{
    const char *s = getenv("SEQGPU_CUDA_MEM_LIMIT");
    *limit = 0;
    if (s && sg_parse_size(s, limit) < 0) {
        snprintf(err, errsz, "invalid SEQGPU_CUDA_MEM_LIMIT '%s'", s);
        return SG_ERR_INPUT;
    }
    return 0;
}

void sg_cuda_versions(char *out, size_t n)
{
    int rt = 0, drv = 0;
    cudaRuntimeGetVersion(&rt);
    /* 0 without libcuda.so.1; asks the driver its version, starts no device */
    if (cudaDriverGetVersion(&drv) != cudaSuccess) drv = 0;
    int k = snprintf(out, n, "runtime %d.%d (static), driver ", rt / 1000, rt % 1000 / 10);
    if (k < 0 || (size_t)k >= n) return;
    if (drv) snprintf(out + k, n - k, "%d.%d", drv / 1000, drv % 1000 / 10);
    else snprintf(out + k, n - k, "none found");
}

static void *warm_main(void *arg)
{
    sg_cuda_warm_t *w = arg;
    char err[256];
    int local;
    if (sg_cuda_check_device(w->id, &local, err, sizeof err) == 0 && cudaSetDevice(local) == cudaSuccess)
        cudaFree(NULL);
    cudaGetLastError(); /* a failure here is met again, and reported, by the stage */
    return NULL;
}

void sg_cuda_warm_start(sg_cuda_warm_t *w, int id)
{
    w->id = id;
    w->started = pthread_create(&w->thread, NULL, warm_main, w) == 0;
}

void sg_cuda_warm_join(sg_cuda_warm_t *w)
{
    if (w->started) pthread_join(w->thread, NULL);
    w->started = 0;
}
