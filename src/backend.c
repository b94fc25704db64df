#include "backend.h"
#include "kernels.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>

#ifdef SG_HAVE_CUDA
#include "../cuda/cuda_backend.h"
#include "../cuda/cuda_util.h"
#else
static int sg_cuda_gpus_present(void) { return 0; }
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

/* Planner constants, measured on the H200 host (16 cores; see kernels.c):
 * the CUDA start for one device (driver, context, module, buffers: a 20-byte
 * input takes 0.39 s, a bare cudaFree(0) 0.32 s) and for each more; the
 * host's parsing in thread-seconds per 1e9 bases, on the cpu path and beside
 * a GPU (slower there: the driver's threads and the pinned copies); and the
 * share of the summed kernel time that the streams do not hide. The input
 * is read while the device starts, but only as far as the chunks in flight
 * reach, so the start is paid in full. */
#define GPU_START_S 0.39
#define GPU_START_MORE_S 0.25
#define PARSE_COST 0.45
#define GPU_PARSE_COST 0.93
#define GPU_KERNEL_SHARE 0.75

void sg_backend_plan(const sg_backend_opts_t *o, int n_listed, sg_backend_estimate_t *e)
{
    sg_plan_t plan;
    char err[256];
    /* SEQGPU_PLAN_BASES: the bases to plan for, when the inputs do not tell (standard input) */
    const char *env = getenv("SEQGPU_PLAN_BASES");
    double bases = env && atof(env) > 0 ? atof(env) : o->input_bases > 0 ? o->input_bases : 1e9;
    double gb = bases / 1e9, threads = o->n_threads > 0 ? o->n_threads : 1;
    double cpu = 0, gpu = 0;
    if (sg_plan_make(o->motifs, "auto", SG_CPU_VECTOR_MAX, &plan, err, sizeof err) == 0) {
        cpu = sg_plan_cpu_cost(&plan, o->motifs);
        gpu = sg_plan_gpu_cost(&plan, o->motifs);
        sg_plan_free(&plan);
    }
    e->bases = bases;
    e->cpu_s = gb * (PARSE_COST + cpu) / threads;
    /* a further device pays its start when the device work it takes over is longer */
    double kernel = GPU_KERNEL_SHARE * gb * gpu;
    e->gpus = 1;
    while (e->gpus < n_listed && kernel / (e->gpus * (e->gpus + 1.0)) > GPU_START_MORE_S) e->gpus++;
    double parse = gb * GPU_PARSE_COST / threads, dev = kernel / e->gpus;
    e->gpu_s = GPU_START_S + GPU_START_MORE_S * (e->gpus - 1) + (parse > dev ? parse : dev);
}

int sg_backend_open(const char *name, const sg_backend_opts_t *o, sg_backend_t **out)
{
    char err[512] = "", why[256] = "";
    *out = NULL;
    if (!strcmp(name, "auto")) {
        name = "cpu";
        sg_backend_ctor gpu = find_ctor("cuda");
        int present = gpu ? sg_cuda_gpus_present() : 0;
        if (!gpu) snprintf(why, sizeof why, "auto: cpu (built without cuda)");
        else if (present == 0) snprintf(why, sizeof why, "auto: cpu (no CUDA device)");
        else {
            sg_backend_estimate_t e;
            sg_backend_plan(o, 1, &e);
            snprintf(why, sizeof why, "auto: %s (estimated %.2f s on cpu, %.2f s on cuda, for %.2g bases)",
                     e.gpu_s < 0.9 * e.cpu_s ? "cuda" : "cpu", e.cpu_s, e.gpu_s, e.bases);
            if (e.gpu_s < 0.9 * e.cpu_s) {
                sg_backend_opts_t with_fallback = *o;
                with_fallback.fallback = 1;
                int r = gpu(&with_fallback, out, err, sizeof err);
                if (r == 0) {
                    snprintf((*out)->why, sizeof (*out)->why, "%s", why);
                    return 0;
                }
                if (r != SG_ERR_DEVICE) {
                    sg_error("%s", err);
                    return r;
                }
                /* a device the kernel driver reports, that does not work, is news */
                sg_warn("CUDA device unusable (%s); using the cpu backend", err);
                snprintf(why, sizeof why, "auto: cpu (the CUDA device failed: %.180s)", err);
            }
        }
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
    else snprintf((*out)->why, sizeof (*out)->why, "%s", why);
    return r;
}
