/* What bench/cub_*.cu share: a device timer and the report line. Each of
 * those benches compares a hand-written kernel of seqgpu's CUDA code with
 * the CUB call that could replace it, on one device, and checks that both
 * give the same result (docs/gpu.md says which, and why they stay). */
#ifndef SG_BENCH_CUB_H
#define SG_BENCH_CUB_H

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#define BENCH_CK(call)                                                                                  \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));      \
            exit(1);                                                                                    \
        }                                                                                               \
    } while (0)

/* The median milliseconds of `reps` runs of f() on the default stream, after one warm-up run. */
template <typename F> static double bench_ms(F f, int reps = 7)
{
    cudaEvent_t a, b;
    BENCH_CK(cudaEventCreate(&a));
    BENCH_CK(cudaEventCreate(&b));
    f();
    double t[32];
    for (int i = 0; i < reps && i < 32; i++) {
        BENCH_CK(cudaEventRecord(a));
        f();
        BENCH_CK(cudaEventRecord(b));
        BENCH_CK(cudaEventSynchronize(b));
        float ms = 0;
        BENCH_CK(cudaEventElapsedTime(&ms, a, b));
        t[i] = ms;
    }
    for (int i = 1; i < reps; i++) /* insertion sort: a few values */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1], t[j - 1] = x;
        }
    BENCH_CK(cudaEventDestroy(a));
    BENCH_CK(cudaEventDestroy(b));
    return t[reps / 2];
}

/* "| case | hand-written ms | CUB ms | CUB / hand | same result |" */
static void bench_row(const char *what, double hand, double cub, int same)
{
    printf("| %s | %.3f | %.3f | %.2f | %s |\n", what, hand, cub, hand > 0 ? cub / hand : 0.0, same ? "yes" : "NO");
}

#endif
