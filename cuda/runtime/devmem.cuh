// The device memory of one run of the overlapper's stages on a CUDA device
// (cuda/scc/sketch.cu: the minimizer index; cuda/scc/chain.cu: the chains): every
// buffer is counted (the peak goes to --stats), checked against the free
// memory (or SEQGPU_CUDA_MEM_LIMIT) before large steps, and freed by
// release(); a failure leaves its reason in err.
#ifndef SG_SCC_DEVMEM_CUH
#define SG_SCC_DEVMEM_CUH

#include <stdint.h>
#include <stdio.h>

#include "cuda/runtime/util.h"

extern "C" {
#include "core/cli.h"
#include "core/log.h"
}

// A grid for n items of a grid-stride loop (FOR_EACH).
static inline unsigned sg_grid(uint64_t n, int threads)
{
    uint64_t b = (n + threads - 1) / threads;
    return (unsigned)(b < 1 ? 1 : b > (1u << 20) ? (1u << 20) : b);
}

#define FOR_EACH(i, n) for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < (n); i += (uint64_t)gridDim.x * blockDim.x)

struct DevMem {
    char err[512];
    static constexpr size_t errsz = sizeof err;
    size_t dev_bytes = 0, dev_peak = 0;
    uint64_t bases = 0; // of the reads: the error messages name it

    struct Buf {
        void *p;
        size_t n;
    } buf[64];
    int n_buf = 0;

    int dev_alloc(void **p, size_t n, const char *what)
    {
        char holds[96];
        snprintf(holds, sizeof holds, "the overlaps of %llu bases of reads", (unsigned long long)bases);
        if (n_buf == (int)(sizeof buf / sizeof *buf)) {
            snprintf(err, errsz, "internal error: too many device buffers (%s)", what);
            return SG_ERR_DEVICE;
        }
        SG_TRY(sg_cuda_malloc(p, n, what, holds, "use the cpu backend or a larger device", err, errsz));
        buf[n_buf++] = Buf{*p, n};
        dev_bytes += n;
        if (dev_bytes > dev_peak) dev_peak = dev_bytes;
        return 0;
    }

    template <typename T> int alloc(T **p, size_t n, const char *what)
    {
        return dev_alloc((void **)p, n * sizeof(T), what);
    }

    void dev_free(const void *p)
    {
        for (int i = 0; i < n_buf; i++)
            if (buf[i].p == p) {
                cudaFree(buf[i].p);
                dev_bytes -= buf[i].n;
                buf[i] = buf[--n_buf];
                return;
            }
    }

    void release()
    {
        while (n_buf) dev_free(buf[n_buf - 1].p);
    }

    // The device's free memory (or what SEQGPU_CUDA_MEM_LIMIT leaves).
    int free_memory(size_t *free_b)
    {
        size_t total_b = 0, limit;
        SG_CUDA_CHECK(cudaMemGetInfo(free_b, &total_b), "cudaMemGetInfo");
        SG_TRY(sg_cuda_mem_limit(&limit, err, errsz));
        if (limit) *free_b = limit > dev_bytes ? (limit - dev_bytes < *free_b ? limit - dev_bytes : *free_b) : 0;
        return 0;
    }

    // Whether need more bytes fit.
    int check_memory(size_t need, const char *what)
    {
        size_t free_b;
        SG_TRY(free_memory(&free_b));
        if (need > free_b) {
            snprintf(err, errsz,
                     "%s of %llu bases of reads needs about %.2f GB more device memory; %.2f GB are free; use the "
                     "cpu backend or a larger device",
                     what, (unsigned long long)bases, need / 1e9, free_b / 1e9);
            return SG_ERR_DEVICE;
        }
        return 0;
    }

    // A CUB call: its scratch size, the scratch, the call.
    template <typename F> int run_cub(const char *what, F call)
    {
        size_t need = 0;
        SG_CUDA_CHECK(call(nullptr, need), what);
        void *tmp;
        SG_TRY(dev_alloc(&tmp, need, "CUB scratch"));
        SG_CUDA_CHECK(call(tmp, need), what);
        dev_free(tmp);
        return 0;
    }

    // The kernels so far, finished; their seconds added to *s.
    int sync(const char *what, double *s, double t0)
    {
        SG_CUDA_CHECK(cudaGetLastError(), what);
        SG_CUDA_CHECK(cudaDeviceSynchronize(), what);
        *s += sg_realtime() - t0;
        return 0;
    }
};

#endif
