// The overlapper's chaining on a CUDA device (cuda/scc/chain.cu), from what the
// minimizer index (cuda/scc/sketch.cu) leaves there.
#ifndef SG_SCC_CHAIN_CUH
#define SG_SCC_CHAIN_CUH

#include <stdint.h>

#include "cuda/runtime/devmem.cuh"

extern "C" {
#include "scc/overlap/minimizer.h"
}

// The index on the device: its records (sg_mrec_t: by hash, then read and
// position; first[i] 1 where a bucket starts), and the stored reads j =
// 0..n_stored-1 (in order of read number): their numbers, lengths, and the
// positions of all their minimizers (mpos[moff[j] .. moff[j + 1]), in order).
struct ChainIndex {
    const sg_mrec_t *rec;
    const uint32_t *first;
    uint64_t n_rec;
    const uint32_t *rid, *len;
    uint32_t n_stored;
    const unsigned long long *moff;
    const uint32_t *mpos;
    uint32_t n_reads; // all reads, stored or not
    int k;
};

struct ChainSeconds {
    uint64_t device_reads, host_reads, hits, chains;
    unsigned batches;
    double flag, hits_s, upload, sort, bands, chain, download, total;
};

// sg_mindex_t's chain_plan (src/scc/overlap/minimizer.h) on the index ix, then its
// chain: the state between them (delete with sg_chain_state_free); *r: 0
// or SG_ERR_DEVICE with the reason in m.err. m's buffers are left for the
// caller to release after the run.
struct ChainState;
ChainState *sg_chain_device_plan(DevMem &m, const ChainIndex &ix, uint32_t max_occ, uint32_t *used, uint8_t *host,
                                 uint64_t *hits, ChainSeconds *sec, int *r);
int sg_chain_device_run(ChainState *st, sg_chain_rec_t **out, size_t *n_out);
void sg_chain_state_free(ChainState *st);

// sg_mindex_t's chain_hits; sec adds to sg_chain_device's.
int sg_chain_device_hits(DevMem &m, uint32_t n, const uint32_t *q, const uint64_t *const *key,
                         const uint64_t *const *val, const uint64_t *cnt, sg_chain_rec_t **out, size_t *n_out,
                         ChainSeconds *sec);

#endif
