// The k-mer count histogram: the hand-written kernels the table had (a
// histogram in shared memory per block, or global atomics when the bins do
// not fit) against cub::DeviceHistogram::HistogramEven over the clamped
// counts, which the table uses since this bench (H200: 65537 bins, 3.0 ms
// against 69 ms).
//   build/bench/cub_histogram [N]    N counts (default 200000000)
// Counts as a read set gives them: most k-mers seen once or twice (errors),
// a single-copy peak near 30, and a repeat tail to a hundred thousand.
#include <cub/cub.cuh>

#include "cuda/scc/table.cuh" // grid, kThreads, FOR_EACH
#include "cub_bench.h"

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

using namespace sg_kmer_cuda;

namespace {

__global__ void k_fill(uint32_t *counts, uint64_t n)
{
    FOR_EACH(i, n)
    {
        uint64_t h = sg_mix64(i + 1);
        uint32_t u = (uint32_t)(h % 1000);
        counts[i] = u < 650 ? 1 + (uint32_t)(h >> 40) % 2 : u < 970 ? 20 + (uint32_t)(h >> 40) % 21
                                                                    : 40 + (uint32_t)(h >> 32) % 100000;
    }
}

// the table's kernels before it took CUB's histogram
__global__ void __launch_bounds__(kThreads) k_histogram(const uint32_t *counts, uint64_t n, unsigned long long *hist,
                                                        int bins)
{
    extern __shared__ uint32_t h[];
    for (int i = threadIdx.x; i < bins; i += kThreads) h[i] = 0;
    __syncthreads();
    FOR_EACH(i, n) atomicAdd(&h[counts[i] < (uint32_t)bins - 1 ? counts[i] : bins - 1], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < bins; i += kThreads)
        if (h[i]) atomicAdd(&hist[i], (unsigned long long)h[i]);
}

__global__ void k_histogram_global(const uint32_t *counts, uint64_t n, unsigned long long *hist, int bins)
{
    FOR_EACH(i, n) atomicAdd(&hist[counts[i] < (uint32_t)bins - 1 ? counts[i] : bins - 1], 1ull);
}

struct Clamp {
    uint32_t top;
    __device__ __forceinline__ uint32_t operator()(uint32_t c) const { return c < top ? c : top; }
};

} // namespace

int main(int argc, char **argv)
{
    const uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 200000000ull;
    uint32_t *counts;
    unsigned long long *h1, *h2;
    const int max_bins = 65537; // seqgpu scc's (src/scc/dbg/dbg.c)
    BENCH_CK(cudaMalloc(&counts, n * sizeof *counts));
    BENCH_CK(cudaMalloc(&h1, max_bins * sizeof *h1));
    BENCH_CK(cudaMalloc(&h2, max_bins * sizeof *h2));
    k_fill<<<grid(n), kThreads>>>(counts, n);
    BENCH_CK(cudaDeviceSynchronize());
    printf("| bins, %llu counts | hand-written ms | CUB ms | CUB / hand | same result |\n|---|---|---|---|---|\n",
           (unsigned long long)n);
    for (int bins : {64, max_bins}) {
        auto hand = [&] { // as Table::histogram_into launches them
            BENCH_CK(cudaMemsetAsync(h1, 0, bins * sizeof *h1));
            const size_t smem = bins * sizeof(uint32_t);
            const unsigned blocks = grid(n) < 1024 ? grid(n) : 1024;
            if (smem <= 48 << 10) k_histogram<<<blocks, kThreads, smem>>>(counts, n, h1, bins);
            else k_histogram_global<<<grid(n), kThreads>>>(counts, n, h1, bins);
            BENCH_CK(cudaGetLastError());
        };
        auto in = thrust::make_transform_iterator(counts, Clamp{(uint32_t)bins - 1});
        size_t bytes = 0;
        BENCH_CK(cub::DeviceHistogram::HistogramEven(nullptr, bytes, in, h2, bins + 1, 0u, (uint32_t)bins, (int64_t)n));
        void *temp;
        BENCH_CK(cudaMalloc(&temp, bytes)); // kept, as the table keeps its scratch
        auto with_cub = [&] {
            BENCH_CK(cub::DeviceHistogram::HistogramEven(temp, bytes, in, h2, bins + 1, 0u, (uint32_t)bins, (int64_t)n));
        };
        double a = bench_ms(hand), b = bench_ms(with_cub);
        unsigned long long *x = (unsigned long long *)malloc(bins * sizeof *x), *y = (unsigned long long *)malloc(bins * sizeof *y);
        BENCH_CK(cudaMemcpy(x, h1, bins * sizeof *x, cudaMemcpyDeviceToHost));
        BENCH_CK(cudaMemcpy(y, h2, bins * sizeof *y, cudaMemcpyDeviceToHost));
        char what[64];
        snprintf(what, sizeof what, "%d bins", bins);
        bench_row(what, a, b, !memcmp(x, y, bins * sizeof *x));
        free(x);
        free(y);
        BENCH_CK(cudaFree(temp));
    }
    return 0;
}
