#include "kmer.h"
#include "log.h"
#include "motif.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define N_PART 256 /* lock partitions of the count table, by the top byte of the hash */

struct sg_kmers {
    int k;
    int wide;      /* 128-bit words (k > 31) */
    void *parts;   /* part_64 or part_128 [N_PART] */
    uint64_t total;
};

/* 2-bit code of a base (either case), -1 for anything else */
static signed char base_code[256];
static pthread_once_t code_once = PTHREAD_ONCE_INIT;
static void init_codes(void)
{
    memset(base_code, -1, sizeof base_code);
    for (int i = 0; i < 4; i++) base_code[(unsigned char)"ACGT"[i]] = base_code[(unsigned char)"acgt"[i]] = (signed char)i;
}

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

/* Reverse the order of the 2-bit groups of x. */
static inline uint64_t rev2_64(uint64_t x)
{
    x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0full) | ((x & 0x0f0f0f0f0f0f0f0full) << 4);
    return __builtin_bswap64(x);
}

#define KT uint64_t
#define KT_WIDE 0
#define FN(x) x##_64
#include "kmer_impl.h"
#undef KT
#undef KT_WIDE
#undef FN

#define KT unsigned __int128
#define KT_WIDE 1
#define FN(x) x##_128
#include "kmer_impl.h"
#undef KT
#undef KT_WIDE
#undef FN

sg_kmers_t *sg_kmers_new(int k)
{
    pthread_once(&code_once, init_codes);
    sg_kmers_t *t = sg_calloc(1, sizeof *t);
    t->k = k;
    t->wide = k > 31;
    if (t->wide) new_parts_128(t);
    else new_parts_64(t);
    return t;
}

void sg_kmers_free(sg_kmers_t *t)
{
    if (!t) return;
    if (t->wide) free_parts_128(t);
    else free_parts_64(t);
    free(t);
}

void sg_kmers_add(sg_kmers_t *t, const sg_chunk_t *c)
{
    if (t->wide) add_chunk_128(t, c);
    else add_chunk_64(t, c);
}

uint64_t sg_kmers_distinct(const sg_kmers_t *t) { return t->wide ? distinct_128(t) : distinct_64(t); }
uint64_t sg_kmers_total(const sg_kmers_t *t) { return t->total; }

void sg_kmers_histogram(const sg_kmers_t *t, uint64_t *hist, int n)
{
    if (t->wide) histogram_128(t, hist, n);
    else histogram_64(t, hist, n);
}

void sg_kmers_filter(sg_kmers_t *t, uint32_t min)
{
    if (t->wide) filter_128(t, min);
    else filter_64(t, min);
}

void sg_kmers_unitigs(sg_kmers_t *t, int n_threads, sg_graph_t *g)
{
    if (t->wide) unitigs_128(t, n_threads, g);
    else unitigs_64(t, n_threads, g);
}

void sg_coverage_estimate(const uint64_t *hist, int n, sg_coverage_t *cov)
{
    /* smooth over three bins, walk down from count 1 to the first minimum
     * (the end of the error k-mers), then take the highest bin after it */
    int trough = 1;
    double prev = -1;
    for (int c = 1; c + 1 < n - 1; c++) {
        double s = (hist[c - 1 > 0 ? c - 1 : 1] + hist[c] + hist[c + 1]) / 3.0;
        if (prev >= 0 && s > prev) {
            trough = c - 1;
            break;
        }
        prev = s;
        trough = c;
    }
    int peak = 0;
    for (int c = trough + 1; c < n - 1; c++)
        if (!peak || hist[c] > hist[peak]) peak = c;
    if (!peak || hist[peak] == 0) {
        /* no peak past the errors (a genome, or very low coverage): single copies are seen once */
        cov->coverage = 1;
        cov->trough = 0;
        cov->peak = 1;
        return;
    }
    /* refine the peak to the mean of the bins around it, weighted by their heights */
    double w = 0, sum = 0;
    for (int c = peak - peak / 4; c <= peak + peak / 4 && c < n - 1; c++) {
        if (c <= trough) continue;
        w += hist[c];
        sum += (double)hist[c] * c;
    }
    cov->coverage = w > 0 ? sum / w : peak;
    cov->trough = trough;
    cov->peak = peak;
}
