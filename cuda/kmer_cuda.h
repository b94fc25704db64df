/* The graph build of seqgpu scc on a CUDA device: the counterpart of
 * src/kmer.h's sg_kmers_t, giving the same counts, histogram and, byte for
 * byte, the same canonical unitig graph, for every k (11..63, odd; 64-bit
 * keys to k = 31, 128-bit above).
 *
 * Reads are batched into pinned buffers (two, so that the host fills one
 * while the device counts the other); each batch's canonical k-mers are
 * extracted, radix sorted and run-length encoded on the device, then merged
 * into the sorted table of all batches so far. The threshold is a device
 * select; the unitigs come from binary searches in the sorted table (the
 * neighbours) and list ranking by pointer jumping (the compaction), and are
 * copied back as an sg_graph_t.
 *
 * Batches are as large as SEQGPU_CUDA_KMER_BATCH bytes when set (tests use
 * small ones to force many batches and merges), else up to 256 MB, smaller
 * when the device has little free memory. Running out of device memory is
 * an error with the sizes in the message, never a short result.
 *
 * Functions returning int give 0, or SG_ERR_DEVICE after a device error or
 * out of device memory (reported once with sg_error; every later call then
 * fails too). */
#ifndef SG_KMER_CUDA_H
#define SG_KMER_CUDA_H

#include <stdint.h>
#include <stdio.h>

#include "../src/chunk.h"
#include "../src/scc_graph.h"

typedef struct sg_cuda_kmers sg_cuda_kmers_t;

/**
 * A table for k-mers of size k on CUDA device `device`.
 * @return 0, or SG_ERR_DEVICE with the reason in err (no driver, no such
 *         device, too old a device, too little free memory for one batch)
 */
int sg_cuda_kmers_new(int k, int device, sg_cuda_kmers_t **out, char *err, size_t errsz);

/**
 * Count the canonical k-mers starting in [0, c->len) of chunk c, as
 * sg_kmers_add does. Thread-safe: the bases are copied into the batch being
 * filled, and the caller whose copy fills it runs the batch on the device.
 */
int sg_cuda_kmers_add(sg_cuda_kmers_t *t, const sg_chunk_t *c);

/** After the last add: count the last batch; frees the batch buffers. */
int sg_cuda_kmers_finish(sg_cuda_kmers_t *t);

/** Distinct k-mers in the table (kept ones after a filter), and k-mer occurrences counted. */
uint64_t sg_cuda_kmers_distinct(const sg_cuda_kmers_t *t);
uint64_t sg_cuda_kmers_total(const sg_cuda_kmers_t *t);

/** hist[c]: distinct k-mers seen c times (c < n - 1); hist[n - 1]: seen n - 1 times or more. */
int sg_cuda_kmers_histogram(sg_cuda_kmers_t *t, uint64_t *hist, int n);

/** Keep only the k-mers seen at least min times. */
int sg_cuda_kmers_filter(sg_cuda_kmers_t *t, uint32_t min);

/**
 * The compacted de Bruijn graph of the kept k-mers: the same canonical
 * sg_graph_t as sg_kmers_unitigs. The device memory it needs is checked
 * first (about 80 bytes per kept k-mer on top of the table).
 */
int sg_cuda_kmers_unitigs(sg_cuda_kmers_t *t, sg_graph_t *g);

/**
 * The body of a JSON object for --stats (no braces, no trailing comma):
 * device, batches, per-stage seconds (h2d, extract_sort, merge, histogram,
 * filter, neighbours, unitigs, d2h) and peak device bytes.
 */
void sg_cuda_kmers_stats(const sg_cuda_kmers_t *t, FILE *fp);

void sg_cuda_kmers_free(sg_cuda_kmers_t *t);

#endif
