// The device memory of one stage's run on a CUDA device, the one accountant
// of every CUDA stage of scc (cuda/scc/sketch.cu and chain.cu: the overlap
// index and its chains; the k-mer table, cuda/scc/table.cuh; the SCC
// solver, cuda/scc/solver.cuh): every buffer is counted (the peak goes to --stats), freed by
// pointer or all at once by release(), and checked against the free memory
// (or SEQGPU_CUDA_MEM_LIMIT) before large steps; CUB's scratch is either
// the call's own (run_cub) or kept and grown (run_cub_kept), for stages
// that call CUB often. A failure leaves its reason in err, in the words
// the owner gave: holds() says what the device holds, of what the run
// works on, advice what to do.
#ifndef SG_CUDA_DEVMEM_CUH
#define SG_CUDA_DEVMEM_CUH

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
    // the owner's words for an out-of-memory message: what the device holds
    // ("the table holds 9 k-mers"; NULL: nothing said), of what the run
    // works on ("120 bases of reads", for check_memory) and what to do
    // (NULL: the cpu backend or a larger device)
    void (*holds)(const DevMem *m, char *out, size_t n) = nullptr;
    char of[96] = "";
    const char *advice = nullptr;

    struct Buf {
        void *p;
        size_t n;
    } held[64]; // the buffers held now
    int n_buf = 0;
    void *scratch = nullptr; // CUB's, kept and grown by run_cub_kept
    size_t scratch_cap = 0;

    int dev_alloc(void **p, size_t n, const char *what)
    {
        char said[160] = "";
        if (holds) holds(this, said, sizeof said);
        if (n_buf == (int)(sizeof held / sizeof *held)) {
            *p = NULL;
            snprintf(err, errsz, "internal error: too many device buffers (%s)", what);
            return SG_ERR_DEVICE;
        }
        SG_TRY(sg_cuda_malloc(p, n, what, said, advice ? advice : "use the cpu backend or a larger device", err,
                              errsz));
        held[n_buf++] = Buf{*p, n};
        dev_bytes += n;
        if (dev_bytes > dev_peak) dev_peak = dev_bytes;
        return 0;
    }

    template <typename T> int alloc(T **p, size_t n, const char *what)
    {
        return dev_alloc((void **)p, n * sizeof(T), what);
    }

    // Frees p, one of the buffers held (NULL: nothing; every device pointer of
    // a stage comes from dev_alloc, so there is no other).
    void dev_free(const void *p)
    {
        if (!p) return;
        if (p == scratch) {
            scratch = nullptr;
            scratch_cap = 0;
        }
        for (int i = 0; i < n_buf; i++)
            if (held[i].p == p) {
                cudaFree(held[i].p);
                dev_bytes -= held[i].n;
                held[i] = held[--n_buf];
                return;
            }
    }

    // Every buffer freed, the kept scratch with them.
    void release()
    {
        for (int i = 0; i < n_buf; i++) cudaFree(held[i].p);
        n_buf = 0;
        dev_bytes = 0;
        scratch = nullptr;
        scratch_cap = 0;
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
            snprintf(err, errsz, "%s of %s needs about %.2f GB more device memory; %.2f GB are free; %s", what, of,
                     need / 1e9, free_b / 1e9, advice ? advice : "use the cpu backend or a larger device");
            return SG_ERR_DEVICE;
        }
        return 0;
    }

    // A CUB call: its scratch size, the scratch, the call, the scratch freed.
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

    // The kept scratch at least n bytes (with room to grow), its content not kept.
    int ensure_scratch(size_t n)
    {
        n += n / 8 + 256;
        if (scratch && scratch_cap >= n) return 0;
        dev_free(scratch);
        void *p;
        SG_TRY(dev_alloc(&p, n, "CUB scratch"));
        scratch = p;
        scratch_cap = n;
        return 0;
    }

    // A CUB call on the kept scratch, grown first when it is too small; the
    // call may still run on its stream when this returns.
    template <typename F> int run_cub_kept(const char *what, F call)
    {
        size_t need = 0;
        SG_CUDA_CHECK(call(nullptr, need), what);
        SG_TRY(ensure_scratch(need));
        SG_CUDA_CHECK(call(scratch, scratch_cap), what);
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
