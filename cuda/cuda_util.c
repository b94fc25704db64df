#include "cuda_util.h"

#include <stdio.h>

#include <cuda_runtime_api.h>

#include "../src/log.h"

int sg_cuda_check_device(int id, int *count, char *err, size_t errsz)
{
    *count = 0;
    cudaError_t e = cudaGetDeviceCount(count);
    if (e == cudaErrorInsufficientDriver) {
        snprintf(err, errsz, "no CUDA driver (libcuda.so.1), or one older than this build's CUDA %d.%d runtime",
                 CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
        return SG_ERR_DEVICE;
    }
    if (e != cudaSuccess || *count == 0) {
        snprintf(err, errsz, "no CUDA device%s%s", e != cudaSuccess ? ": " : "", e != cudaSuccess ? cudaGetErrorString(e) : "");
        *count = 0;
        return SG_ERR_DEVICE;
    }
    if (id >= *count) {
        snprintf(err, errsz, "no CUDA device %d (this machine has %d)", id, *count);
        return SG_ERR_DEVICE;
    }
    return 0;
}
