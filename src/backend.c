#include "backend.h"
#include "log.h"

#include <string.h>

#ifdef SG_HAVE_CUDA
#include "../cuda/cuda_backend.h"
#endif
#ifdef SG_HAVE_OPENCL
#include "../opencl/opencl_backend.h"
#endif

const char *sg_backend_list(void)
{
    return "cpu"
#ifdef SG_HAVE_CUDA
           ", cuda"
#endif
#ifdef SG_HAVE_OPENCL
           ", opencl"
#endif
        ;
}

static sg_backend_ctor find_ctor(const char *name)
{
    if (!strcmp(name, "cpu")) return sg_backend_cpu;
#ifdef SG_HAVE_CUDA
    if (!strcmp(name, "cuda")) return sg_backend_cuda;
#endif
#ifdef SG_HAVE_OPENCL
    if (!strcmp(name, "opencl")) return sg_backend_opencl;
#endif
    return NULL;
}

int sg_backend_open(const char *name, const sg_backend_opts_t *o, sg_backend_t **out)
{
    char err[512] = "";
    *out = NULL;
    if (!strcmp(name, "auto")) {
        sg_backend_ctor gpu = find_ctor("cuda");
        if (gpu) {
            sg_backend_opts_t with_fallback = *o;
            with_fallback.fallback = 1;
            int r = gpu(&with_fallback, out, err, sizeof err);
            if (r == 0) return 0;
            if (r != SG_ERR_DEVICE) {
                sg_error("%s", err);
                return r;
            }
            sg_info("no usable CUDA device (%s); using the cpu backend", err);
        }
        name = "cpu";
    }
    sg_backend_ctor ctor = find_ctor(name);
    if (!ctor) {
        if (!strcmp(name, "cuda") || !strcmp(name, "opencl"))
            sg_error("this seqgpu was built without the %s backend (built: %s)", name, sg_backend_list());
        else
            sg_error("unknown backend '%s' (auto, %s)", name, sg_backend_list());
        return SG_ERR_INPUT;
    }
    int r = ctor(o, out, err, sizeof err);
    if (r < 0) sg_error("%s", err);
    return r;
}
