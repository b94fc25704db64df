/* The OpenCL backend of seqgpu find (the interface of src/find/backend.h). */
#ifndef SG_OPENCL_BACKEND_H
#define SG_OPENCL_BACKEND_H

#include "find/backend.h"

/**
 * Open the OpenCL backend: the platform named by SEQGPU_OPENCL_PLATFORM (an
 * index or part of its name; default: the first with a GPU, else the first
 * with any device), the devices of o->device (indices on that platform).
 * @return 0; SG_ERR_DEVICE when there is no platform or device, or the
 *         kernels do not build (the build log is in err)
 */
int sg_backend_opencl(const sg_backend_opts_t *o, sg_backend_t **out, char *err, size_t errsz);

#endif
