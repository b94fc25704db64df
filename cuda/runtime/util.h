/* What the CUDA parts share: choosing, finding and opening devices, the
 * checking of every CUDA call, and the warm-up of a device's context. C, and C++ for the drivers in .cu files. */
#ifndef SG_CUDA_UTIL_H
#define SG_CUDA_UTIL_H

#include <pthread.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every CUDA call is checked, one way: the calling function has err and
 * errsz in scope (its parameters, or members of the stage's state in the
 * C++ drivers), the reason goes there, and it returns SG_ERR_DEVICE. */
#define SG_CUDA_CHECK(call, what)                                                \
    do {                                                                         \
        cudaError_t e_ = (call);                                                 \
        if (e_ != cudaSuccess) return sg_cuda_fail(err, errsz, what, e_);        \
    } while (0)

/* A step that failed passes its SG_ERR_* code on, its reason already in err. */
#define SG_TRY(call)                                                             \
    do {                                                                         \
        int r_ = (call);                                                         \
        if (r_ < 0) return r_;                                                   \
    } while (0)

/** "what: the runtime's message" into err; SG_ERR_DEVICE. */
int sg_cuda_fail(char *err, size_t errsz, const char *what, cudaError_t e);

/**
 * cudaMalloc of n bytes (at least 1) into *p. Out of device memory is said
 * as "out of device memory for WHAT: N MB more needed, F MB free of T MB
 * (HOLDS); ADVICE", the error cleared (it is not sticky); any other failure
 * as SG_CUDA_CHECK says it.
 * @return 0, or SG_ERR_DEVICE with the reason in err
 */
int sg_cuda_malloc(void **p, size_t n, const char *what, const char *holds, const char *advice, char *err,
                   size_t errsz);

/**
 * Make the listed devices (indices as the user sees them, i.e. into
 * CUDA_VISIBLE_DEVICES when it is set) the only ones the CUDA driver
 * starts: each visible GPU adds to the start-up time. Takes effect only
 * before the runtime's first call, so the first call wins; later calls must
 * name devices of the first set. The runtime then knows them as 0..n-1.
 * @return 0, or SG_ERR_DEVICE / SG_ERR_INPUT with the reason in err
 */
int sg_cuda_select(const int *ids, int n, char *err, size_t errsz);

/** The runtime's index of device id after sg_cuda_select(), or -1. */
int sg_cuda_local(int id);

/**
 * What can be known of device id without starting CUDA: the NVIDIA kernel
 * driver reports a GPU, and enough of them.
 * @return 0, or SG_ERR_DEVICE with the reason in err
 */
int sg_cuda_precheck(int id, char *err, size_t errsz);

/**
 * Check that there is a CUDA driver and the device id (selecting it first
 * if nothing is selected yet), without creating a context.
 * @param local  its index for cudaSetDevice()
 * @return 0, or SG_ERR_DEVICE with the reason in err
 */
int sg_cuda_check_device(int id, int *local, char *err, size_t errsz);

/**
 * sg_cuda_check_device, then make the device current and check that it
 * can run seqgpu's kernels (compute capability 7.5 or newer).
 * @param prop  out: the device's properties
 * @return 0, or SG_ERR_DEVICE with the reason in err
 */
int sg_cuda_open_device(int id, int *local, struct cudaDeviceProp *prop, char *err, size_t errsz);

/** NVIDIA GPUs the kernel driver reports (/proc/driver/nvidia/gpus), without starting CUDA; -1 if unknown. */
int sg_cuda_gpus_present(void);

/** For `seqgpu version`: "runtime 12.4 (static), driver 12.8", or "driver
 * none found" on a machine without the NVIDIA driver. */
void sg_cuda_versions(char *out, size_t n);

/**
 * The device memory to assume free at most: SEQGPU_CUDA_MEM_LIMIT (bytes,
 * K/M/G; the tests' way to run out of device memory), or 0 when it is unset.
 * @return 0, or SG_ERR_INPUT when it is not a size (reason in err)
 */
int sg_cuda_mem_limit(size_t *limit, char *err, size_t errsz);

/**
 * The CUDA context of a device, made on a thread of its own while the host
 * reads the input (a context costs 0.1-0.3 s): the warm-up scc's CUDA
 * stages share (find's set-up thread does more: it opens the devices and
 * their buffers). A failure there is not reported: the stage's own
 * sg_cuda_open_device() meets it again and says it. Start once per join;
 * sg_cuda_warm_join() before that call, and before the stage is freed;
 * joining twice, or a warm-up that never started (a zeroed sg_cuda_warm_t
 * counts as not started), is harmless.
 */
typedef struct {
    pthread_t thread;
    int id, started;
} sg_cuda_warm_t;

void sg_cuda_warm_start(sg_cuda_warm_t *w, int id);
void sg_cuda_warm_join(sg_cuda_warm_t *w);

#ifdef __cplusplus
}
#endif

#endif
