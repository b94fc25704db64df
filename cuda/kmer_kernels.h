/* The k-mer kernels' C interface (kmer_kernels.cu, called from kmer_cuda.c).
 * Keys are canonical k-mers, 2 bits a base, in 64-bit words (wide 0, k <= 31)
 * or 128-bit words (wide 1, k <= 63), kept sorted ascending. Every pointer
 * is on the device and every call queues its work on stream s. Calls taking
 * temp and temp_bytes follow CUB: with temp NULL they only set *temp_bytes
 * to the scratch the call needs for that many items. Oriented nodes: node j
 * read forward is 2j, read as its reverse complement 2j + 1. */
#ifndef SG_KMER_KERNELS_H
#define SG_KMER_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "../src/scc_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SG_CK_NONE UINT32_MAX /* no node, no link */

/** Key bytes of one k-mer. */
static inline size_t sg_ck_key_bytes(int wide) { return wide ? 16 : 8; }

/**
 * The canonical k-mer starting at each of text[0 .. n - k] into keys
 * (n - k + 1 of them; a k-mer with a byte other than A/C/G/T in either case
 * gets a key above every k-mer's). *n_valid gets the number of real k-mers.
 */
cudaError_t sg_ck_extract(int wide, int k, const uint8_t *text, uint64_t n, void *keys, unsigned long long *n_valid,
                          cudaStream_t s);

/**
 * Sort n keys (keys and alt are both overwritten) and count each distinct
 * one: run_keys, run_counts, and the number of runs in *n_runs. The keys
 * that are not k-mers sort last, as one run.
 */
cudaError_t sg_ck_count(int wide, int k, void *keys, void *alt, uint64_t n, void *run_keys, uint32_t *run_counts,
                        unsigned long long *n_runs, void *temp, size_t *temp_bytes, cudaStream_t s);

/** Merge two sorted tables (a, b) into the na + nb entries of mk, mc. */
cudaError_t sg_ck_merge(int wide, const void *a_keys, const uint32_t *a_counts, uint64_t na, const void *b_keys,
                        const uint32_t *b_counts, uint64_t nb, void *mk, uint32_t *mc, void *temp, size_t *temp_bytes,
                        cudaStream_t s);

/**
 * Add up the counts of equal keys of a sorted table of n entries (saturating
 * at UINT32_MAX) into out; *n_out gets the entries of out.
 */
cudaError_t sg_ck_sum_runs(int wide, const void *keys, const uint32_t *counts, uint64_t n, void *out_keys,
                           uint32_t *out_counts, unsigned long long *n_out, void *temp, size_t *temp_bytes,
                           cudaStream_t s);

/** hist[c] += k-mers of count c (c < bins - 1), hist[bins - 1] += those of count bins - 1 or more. */
cudaError_t sg_ck_histogram(const uint32_t *counts, uint64_t n, unsigned long long *hist, int bins, cudaStream_t s);

/** The entries of count >= min into out_keys, out_counts; *n_out their number. */
cudaError_t sg_ck_filter(int wide, const void *keys, const uint32_t *counts, uint64_t n, uint32_t min, void *out_keys,
                         uint32_t *out_counts, unsigned long long *n_out, void *temp, size_t *temp_bytes,
                         cudaStream_t s);

/**
 * nb[j]: bit b set when the successor with base b of k-mer j (as stored) is
 * in the table, bit 4 + b when its predecessor with base b is (the CPU
 * path's neighbour bits).
 */
cudaError_t sg_ck_neighbours(int wide, int k, const void *keys, uint64_t n, uint8_t *nb, cudaStream_t s);

/**
 * pred[o] for each of the 2n oriented nodes: the oriented node before o in
 * its unitig, or SG_CK_NONE. o continues p when p has one successor, o,
 * and o one predecessor, p, and the two are different k-mers (a k-mer
 * next to its own reverse complement ends its unitig).
 */
cudaError_t sg_ck_links(int wide, int k, const void *keys, const uint8_t *nb, uint64_t n, uint32_t *pred,
                        cudaStream_t s);

/**
 * List ranking by pointer jumping over pred (2n oriented nodes, ceil(log2 2n)
 * + 1 launches): head[o] the first oriented node of o's path, rank[o] its
 * distance from it, low[o] the smallest node index (o / 2) met on the way.
 * ptr2, rank2, low2 are scratch of 2n entries each. On a branch-free cycle,
 * which has no first node, low is the cycle's smallest node and head[o] is
 * a node of the cycle that has a predecessor.
 */
cudaError_t sg_ck_rank(const uint32_t *pred, uint64_t n, uint32_t *head, uint32_t *rank, uint32_t *low,
                       uint32_t *ptr2, uint32_t *rank2, uint32_t *low2, cudaStream_t s);

/**
 * After a first sg_ck_rank: cycle[j] the smallest node of the cycle through
 * node j, or SG_CK_NONE off cycles; each cycle is cut before its smallest
 * node read forward, and its reverse complement at the matching place, so
 * that a second sg_ck_rank ranks cycles as paths. *n_cycle_nodes counts the
 * oriented nodes on cycles.
 */
cudaError_t sg_ck_break_cycles(uint32_t *pred, uint64_t n, const uint32_t *head, const uint32_t *low, uint32_t *cycle,
                               unsigned long long *n_cycle_nodes, cudaStream_t s);

/**
 * Each node's place in its unitig's canonical form (a path reads from the
 * end with the smaller first k-mer, a cycle from its smallest node read
 * forward): start[j] the unitig's first oriented node, pos[j] the node's
 * place, orient[j] 1 when it reads reverse complemented there, len[j] the
 * unitig's k-mers.
 */
cudaError_t sg_ck_place(int wide, int k, const void *keys, uint64_t n, const uint32_t *head, const uint32_t *rank,
                        const uint32_t *cycle, uint32_t *start, uint32_t *pos, uint8_t *orient, uint32_t *len,
                        cudaStream_t s);

/** The first node of each unitig (pos 0) into first_nodes, *n_unitigs their number. */
cudaError_t sg_ck_starts(uint64_t n, const uint32_t *pos, uint32_t *first_nodes, unsigned long long *n_unitigs,
                         void *temp, size_t *temp_bytes, cudaStream_t s);

/**
 * first_nodes (n_unitigs of them) sorted by the unitigs' first k-mers as they
 * read; ukeys, ukeys2 (keys) and nodes2 are scratch of n_unitigs entries.
 */
cudaError_t sg_ck_order(int wide, int k, const void *keys, const uint8_t *orient, uint64_t n_unitigs,
                        uint32_t *first_nodes, void *ukeys, void *ukeys2, uint32_t *nodes2, void *temp,
                        size_t *temp_bytes, cudaStream_t s);

/**
 * uid[j], node j's unitig (the place of its first node in first_nodes), and
 * kmer_off (n_unitigs + 1 entries), the exclusive sum of the unitigs'
 * k-mers; by_first is scratch of n entries.
 */
cudaError_t sg_ck_number(const uint32_t *first_nodes, uint64_t n_unitigs, uint64_t n, const uint32_t *start,
                         const uint32_t *len, uint32_t *by_first, uint32_t *uid, uint64_t *kmer_off, void *temp,
                         size_t *temp_bytes, cudaStream_t s);

/**
 * The unitigs' sequences (unitig u at kmer_off[u] + u (k - 1), A/C/G/T) and
 * the sums of their k-mers' counts (sums, n_unitigs entries; by_place is
 * scratch of n).
 */
cudaError_t sg_ck_spell(int wide, int k, const void *keys, const uint32_t *counts, uint64_t n, const uint32_t *uid,
                        const uint32_t *pos, const uint8_t *orient, const uint64_t *kmer_off, uint64_t n_unitigs,
                        char *seq, uint64_t *by_place, uint64_t *sums, void *temp, size_t *temp_bytes,
                        cudaStream_t s);

/**
 * The links between unitig ends (from u+ through its last k-mer and from u-
 * through the reverse complement of its first), overlap k - 1, into edges
 * (8 n_unitigs of room: one slot per end and base, then compacted in place);
 * *n_edges gets their number.
 */
cudaError_t sg_ck_edges(int wide, int k, const void *keys, const uint8_t *nb, uint64_t n, const uint32_t *first_nodes,
                        uint64_t n_unitigs, const uint32_t *head, const uint32_t *uid, const uint32_t *pos,
                        const uint8_t *orient, const uint32_t *len, sg_edge_t *edges, unsigned long long *n_edges,
                        void *temp, size_t *temp_bytes, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
