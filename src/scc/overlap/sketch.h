/* (w,k)-minimizer sketches of reads, the same on the host and on a CUDA
 * device (src/scc/overlap/sketch.c, cuda/scc/sketch.cu): one function, so that the
 * device's index holds the host's minimizers by construction. */
#ifndef SG_SCC_SKETCH_H
#define SG_SCC_SKETCH_H

#include <stddef.h>
#include <stdint.h>

#include "core/dna.h"

#ifdef __CUDACC__
#define SG_SKETCH_FN __host__ __device__ static inline
#else
#define SG_SKETCH_FN static inline
#endif

/* the widest window: the last w k-mers are kept in a ring of this size */
#define SG_SKETCH_W_MAX 32

typedef struct {
    uint64_t h;   /* hash of the canonical k-mer, 2k bits */
    uint32_t pos; /* the k-mer's last base in the read (uncompressed coordinates) */
    uint32_t rev; /* 1: the canonical k-mer is the reverse complement of the read's */
} sg_mini_t;

/**
 * The (w,k)-minimizers of a sequence of base codes (0-3; any other value
 * breaks k-mers), of its homopolymer-compressed form when hpc is set: for
 * every w consecutive k-mers (w 1 to SG_SKETCH_W_MAX, k odd, 3 to 31), the
 * one of the smallest hash, the last of equal ones, each once, in order of
 * position. The first cap go to out (NULL with cap 0 to count them).
 * @return how many there are
 */
SG_SKETCH_FN size_t sg_sketch_into(const uint8_t *codes, uint32_t len, int k, int w, int hpc, sg_mini_t *out, size_t cap)
{
    const int shift = 2 * (k - 1), hshift = 64 - 2 * k;
    const uint64_t mask = sg_kmer64_mask(k);
    const uint32_t W = SG_SKETCH_W_MAX - 1;
    sg_mini_t win[SG_SKETCH_W_MAX]; /* the last w k-mers, by their number modulo SG_SKETCH_W_MAX */
    int l = 0, prev = -1;
    uint64_t x = 0, r = 0;
    uint32_t j = 0, last = UINT32_MAX; /* k-mers in this stretch of A/C/G/T; the number of the last output */
    size_t n = 0;
    for (uint32_t i = 0; i < len; i++) {
        int c = codes[i];
        if (c > 3) { /* a k-mer never spans a base that is not A/C/G/T */
            l = 0, prev = -1, j = 0, last = UINT32_MAX;
            continue;
        }
        if (hpc && c == prev) continue;
        prev = c;
        x = ((x << 2) | (uint64_t)c) & mask;
        r = (r >> 2) | ((uint64_t)(3 - c) << shift);
        if (++l < k) continue;
        int z = r < x; /* k is odd: never equal */
        win[j & W].h = sg_kmer64_hash(z ? r : x) >> hshift;
        win[j & W].pos = i;
        win[j & W].rev = (uint32_t)z;
        if (++j < (uint32_t)w) continue;
        /* the window's smallest hash; of equal ones the last, so that each is output in turn */
        uint32_t best = j - (uint32_t)w;
        for (uint32_t y = best + 1; y < j; y++)
            if (win[y & W].h <= win[best & W].h) best = y;
        if (best != last) {
            if (n < cap) out[n] = win[best & W];
            n++;
            last = best;
        }
    }
    return n;
}

#endif
