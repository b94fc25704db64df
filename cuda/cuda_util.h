/* What the CUDA parts share: choosing and finding devices. */
#ifndef SG_CUDA_UTIL_H
#define SG_CUDA_UTIL_H

#include <stddef.h>

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

/** NVIDIA GPUs the kernel driver reports (/proc/driver/nvidia/gpus), without starting CUDA; -1 if unknown. */
int sg_cuda_gpus_present(void);

/** For `seqgpu version`: "runtime 12.4 (static), driver 12.8", or "driver
 * none found" on a machine without the NVIDIA driver. */
void sg_cuda_versions(char *out, size_t n);

#endif
