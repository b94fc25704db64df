/* The bare CUDA start-up on this machine: the driver and a context, nothing
 * else (the floor for seqgpu's fixed cost on a GPU). */
#include <stdio.h>

#include <cuda_runtime_api.h>

int main(void)
{
    cudaError_t e = cudaFree(0);
    if (e != cudaSuccess) fprintf(stderr, "cuda_start: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
