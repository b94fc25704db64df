/* The bare CUDA start-up on this machine, the floor for seqgpu's fixed cost
 * on a GPU. With no argument: the driver and one context (cudaFree(0)).
 * With "serial" or "parallel": the driver's start, then a context on every
 * visible device, one after the other or a thread each, timed apart: what
 * each further device costs, and whether starting them at once costs less
 * (docs/gpu.md, Several GPUs). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#define MAX_DEVICES 64

typedef struct {
    int id;
    cudaError_t e;
} start_t;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The primary context of one device. */
static void *start_device(void *arg)
{
    start_t *s = arg;
    s->e = cudaSetDevice(s->id);
    if (s->e == cudaSuccess) s->e = cudaFree(0);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc == 1) {
        cudaError_t e = cudaFree(0);
        if (e != cudaSuccess) fprintf(stderr, "cuda_start: %s\n", cudaGetErrorString(e));
        return e != cudaSuccess;
    }
    const int parallel = !strcmp(argv[1], "parallel");
    if (argc != 2 || (!parallel && strcmp(argv[1], "serial"))) {
        fprintf(stderr, "usage: cuda_start [serial|parallel]\n");
        return 1;
    }
    double t0 = now();
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n); /* the driver starts; no context yet */
    if (e != cudaSuccess) {
        fprintf(stderr, "cuda_start: %s\n", cudaGetErrorString(e));
        return 1;
    }
    if (n > MAX_DEVICES) n = MAX_DEVICES;
    double t1 = now();
    start_t s[MAX_DEVICES];
    pthread_t th[MAX_DEVICES];
    int started[MAX_DEVICES] = {0};
    for (int i = 0; i < n; i++) {
        s[i] = (start_t){i, cudaSuccess};
        if (parallel) started[i] = pthread_create(&th[i], NULL, start_device, &s[i]) == 0;
        if (!started[i]) start_device(&s[i]); /* serial, or no thread to be had */
    }
    int failed = 0;
    for (int i = 0; i < n; i++) {
        if (started[i]) pthread_join(th[i], NULL);
        if (s[i].e != cudaSuccess) {
            fprintf(stderr, "cuda_start: device %d: %s\n", i, cudaGetErrorString(s[i].e));
            failed = 1;
        }
    }
    double t2 = now();
    printf("%d device(s): driver %.3f s, contexts %.3f s (%s)\n", n, t1 - t0, t2 - t1, argv[1]);
    return failed;
}
