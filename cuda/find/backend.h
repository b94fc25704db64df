/* The CUDA backend of seqgpu find (the interface of src/find/backend.h). */
#ifndef SG_CUDA_BACKEND_H
#define SG_CUDA_BACKEND_H

#include "find/backend.h"

/**
 * Open the CUDA backend on the devices of o->device ("0", "0,2"; NULL: 0).
 * @return 0; SG_ERR_DEVICE when no usable device or driver is found, or the
 *         device memory cannot hold the smallest batch (reason in err)
 */
int sg_backend_cuda(const sg_backend_opts_t *o, sg_backend_t **out, char *err, size_t errsz);

#endif
