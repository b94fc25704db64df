// The numbering of the vertices the chain contraction keeps: the solver's
// hand-written way (k_keep, an exclusive scan, k_reduced_degrees) against
// cub::DeviceSelect::Flagged for the kept list and one kernel for their rank
// and degree. The contraction needs rank only at kept vertices.
//   build/bench/cub_select [N]    N vertices (default 20000000)
// Two graphs: an uncompacted de Bruijn graph (3% of the vertices kept) and a
// power-law graph (95% kept), out-degrees 0 to 4.
#include "cuda/scc/contract.cu" // k_keep, k_reduced_degrees; grid_for, kThreads (solver.cuh)
#include "core/dna.h"
#include "cub_bench.h"

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

using namespace sg_scc_cuda;

namespace {

__global__ void k_fill(uint8_t *chain, unsigned long long *deg, uint32_t n, uint32_t kept_per_1000)
{
    FOR_EACH(v, n + 1)
    {
        uint64_t h = sg_mix64(v + 7);
        if (v < n) chain[v] = h % 1000 >= kept_per_1000;
        deg[v] = v < n ? (h >> 32) % 5 : 0;
    }
}

struct Kept {
    __device__ __forceinline__ bool operator()(uint8_t c) const { return !c; }
};

__global__ void k_rank_degrees(const uint32_t *orig, uint64_t nr, const unsigned long long *off,
                               unsigned long long *rank, unsigned long long *deg)
{
    FOR_EACH(i, nr)
    {
        const uint32_t v = orig[i];
        rank[v] = i;
        deg[i] = off[v + 1] - off[v];
    }
}

} // namespace

int main(int argc, char **argv)
{
    const uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 20000000u;
    uint8_t *chain;
    unsigned long long *off, *scratch, *rank1, *rank2, *deg1, *deg2, *d_nr;
    uint32_t *orig1, *orig2;
    BENCH_CK(cudaMalloc(&chain, n + 1));
    BENCH_CK(cudaMalloc(&off, 8 * ((size_t)n + 1)));
    BENCH_CK(cudaMalloc(&scratch, 8 * ((size_t)n + 1)));
    BENCH_CK(cudaMalloc(&rank1, 8 * ((size_t)n + 1)));
    BENCH_CK(cudaMalloc(&rank2, 8 * ((size_t)n + 1)));
    BENCH_CK(cudaMalloc(&deg1, 8 * ((size_t)n + 1)));
    BENCH_CK(cudaMalloc(&deg2, 8 * ((size_t)n + 1)));
    BENCH_CK(cudaMalloc(&orig1, 4 * ((size_t)n + 1)));
    BENCH_CK(cudaMalloc(&orig2, 4 * ((size_t)n + 1)));
    BENCH_CK(cudaMalloc(&d_nr, 8));
    size_t bytes = 0, b2 = 0;
    BENCH_CK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, scratch, rank1, (int64_t)n + 1));
    auto flags = thrust::make_transform_iterator(chain, Kept{});
    BENCH_CK(cub::DeviceSelect::Flagged(nullptr, b2, thrust::counting_iterator<uint32_t>(0), flags, orig2, d_nr, (int64_t)n));
    void *temp;
    BENCH_CK(cudaMalloc(&temp, bytes > b2 ? bytes : b2)); // kept, as the solver keeps its scratch
    printf("| graph, %u vertices | hand-written ms | CUB ms | CUB / hand | same result |\n|---|---|---|---|---|\n", n);
    for (uint32_t kept : {30u, 950u}) {
        k_fill<<<grid_for((uint64_t)n + 1), kThreads>>>(chain, scratch, n, kept);
        BENCH_CK(cub::DeviceScan::ExclusiveSum(temp, bytes, scratch, off, (int64_t)n + 1)); // degrees to offsets
        unsigned long long nr = 0;
        auto hand = [&] { // as Solver::contract: keep flags, scan, read the count, degrees and origins
            k_keep<<<grid_for((uint64_t)n + 1), kThreads>>>(n, chain, scratch);
            BENCH_CK(cub::DeviceScan::ExclusiveSum(temp, bytes, scratch, rank1, (int64_t)n + 1));
            BENCH_CK(cudaMemcpy(&nr, rank1 + n, 8, cudaMemcpyDeviceToHost));
            BENCH_CK(cudaMemsetAsync(deg1, 0, 8 * (nr + 1)));
            k_reduced_degrees<<<grid_for(n), kThreads>>>(off, n, chain, rank1, deg1, orig1);
            BENCH_CK(cudaGetLastError());
        };
        unsigned long long nr2 = 0;
        auto with_cub = [&] {
            BENCH_CK(cub::DeviceSelect::Flagged(temp, b2, thrust::counting_iterator<uint32_t>(0), flags, orig2, d_nr,
                                                (int64_t)n));
            BENCH_CK(cudaMemcpy(&nr2, d_nr, 8, cudaMemcpyDeviceToHost));
            BENCH_CK(cudaMemsetAsync(deg2 + nr2, 0, 8));
            k_rank_degrees<<<grid_for(nr2 ? nr2 : 1), kThreads>>>(orig2, nr2, off, rank2, deg2);
            BENCH_CK(cudaGetLastError());
        };
        double a = bench_ms(hand), b = bench_ms(with_cub);
        BENCH_CK(cudaDeviceSynchronize());
        int same = nr == nr2;
        uint32_t *o1 = (uint32_t *)malloc(4 * (nr + 1)), *o2 = (uint32_t *)malloc(4 * (nr + 1));
        unsigned long long *d1 = (unsigned long long *)malloc(8 * (nr + 1)), *d2 = (unsigned long long *)malloc(8 * (nr + 1));
        unsigned long long *r1 = (unsigned long long *)malloc(8 * ((size_t)n + 1)), *r2 = (unsigned long long *)malloc(8 * ((size_t)n + 1));
        BENCH_CK(cudaMemcpy(o1, orig1, 4 * nr, cudaMemcpyDeviceToHost));
        BENCH_CK(cudaMemcpy(o2, orig2, 4 * nr, cudaMemcpyDeviceToHost));
        BENCH_CK(cudaMemcpy(d1, deg1, 8 * (nr + 1), cudaMemcpyDeviceToHost));
        BENCH_CK(cudaMemcpy(d2, deg2, 8 * (nr + 1), cudaMemcpyDeviceToHost));
        BENCH_CK(cudaMemcpy(r1, rank1, 8 * (size_t)n, cudaMemcpyDeviceToHost));
        BENCH_CK(cudaMemcpy(r2, rank2, 8 * (size_t)n, cudaMemcpyDeviceToHost));
        same = same && !memcmp(o1, o2, 4 * nr) && !memcmp(d1, d2, 8 * (nr + 1));
        for (unsigned long long i = 0; same && i < nr; i++) same = r1[o1[i]] == r2[o1[i]]; // rank where it is read
        char what[64];
        snprintf(what, sizeof what, "%.1f%% kept", kept / 10.0);
        bench_row(what, a, b, same);
        free(o1), free(o2), free(d1), free(d2), free(r1), free(r2);
    }
    return 0;
}
