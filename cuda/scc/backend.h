/* seqgpu scc on a CUDA device, behind src/scc/backend.h's interfaces: the k-mer
 * table (cuda/scc/kmers.cu), the SCC solver (cuda/scc/solve.cu) and the overlapper's
 * minimizer index (cuda/scc/sketch.cu). Each gives the cpu implementation's
 * results, byte for byte. */
#ifndef SG_SCC_CUDA_H
#define SG_SCC_CUDA_H

#ifdef __cplusplus
extern "C" {
#endif

#include "scc/backend.h"

/**
 * The k-mer table on the first device listed (default 0), for every k
 * (64-bit keys to k = 31, 128-bit above). Reads are batched into pinned
 * buffers (two: the host fills one while the device counts the other), as
 * large as SEQGPU_CUDA_KMER_BATCH bytes when set (the tests force many
 * batches so), else up to 256 MB, less when the device has little free
 * memory; each batch's canonical k-mers are extracted, radix sorted, run-
 * length encoded and merged into the sorted table of all batches so far.
 * The threshold is a device select; the unitigs come from binary searches
 * of the sorted table (the neighbours) and list ranking by pointer jumping
 * (the compaction). Running out of device memory is an error that gives
 * the sizes, never a short result; after an error every call fails.
 * @return 0, or SG_ERR_DEVICE with the reason in err (no driver, no such
 *         device, too old a device, too little free memory for one batch)
 */
int sg_kmer_table_cuda(const sg_kmer_opts_t *o, sg_kmer_table_t **out, char *err, size_t errsz);

/**
 * The SCC pipeline of patent CN111754383B on the first device listed, after
 * the graph's chains are contracted. The device's CUDA context is created
 * on a thread of its own from now on, while the graph is read or built.
 * @return 0, or SG_ERR_DEVICE with the reason in err (no device reported)
 */
int sg_scc_solver_cuda(const sg_scc_opts_t *o, sg_scc_solver_t **out, char *err, size_t errsz);

typedef struct sg_mindex sg_mindex_t;

/**
 * The minimizer index of scc -g overlap (src/scc/overlap/minimizer.h) on the first
 * device listed: the reads' sketches, sorted by hash with CUB, and their
 * runs of two or more, for the host to bucket. The CUDA context is created
 * on a thread of its own from now on, while the reads are read. The whole
 * index is built at once: about 14 bytes of device memory a base of reads
 * (PacBio-like reads; more for reads of fewer homopolymers), or an error that
 * gives the sizes.
 * @return 0, or SG_ERR_DEVICE with the reason in err (no device reported)
 */
int sg_mindex_cuda(const sg_graph_opts_t *o, sg_mindex_t **out, char *err, size_t errsz);

#ifdef __cplusplus
}
#endif

#endif
