/* What the CUDA parts share: finding a usable device. */
#ifndef SG_CUDA_UTIL_H
#define SG_CUDA_UTIL_H

#include <stddef.h>

/**
 * Check that there is a CUDA driver and a device with index id (id < 0:
 * any device); *count gets the number of devices.
 * @return 0, or SG_ERR_DEVICE with the reason in err
 */
int sg_cuda_check_device(int id, int *count, char *err, size_t errsz);

#endif
